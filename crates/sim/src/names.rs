//! Names of many things of one kind (nodes, flows) in one string.
//!
//! A run names every node and every flow, and a campus has tens of
//! thousands of each: a `String` apiece costs 24 bytes plus an allocation
//! of at least 32, where a short name such as "sta1234" or "sat/sta1234"
//! is a dozen bytes. [`Names`] keeps the names end to end in one string
//! with the end offset of each (its bytes and 4).
//!
//! Invariants: `ends` is non-decreasing and its last entry is
//! `text.len()`; name `i` is `text[ends[i-1]..ends[i]]` (from 0 for the
//! first); names are never changed or removed.

/// Names, by index, in the order they were added.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    text: String,
    ends: Vec<u32>,
}

impl Names {
    /// Room for `n` more names of `bytes` bytes in all.
    pub fn with_capacity(n: usize, bytes: usize) -> Names {
        Names { text: String::with_capacity(bytes), ends: Vec::with_capacity(n) }
    }

    /// Adds `name` as the next index, which it returns.
    pub fn push(&mut self, name: &str) -> usize {
        self.text.push_str(name);
        self.ends.push(u32::try_from(self.text.len()).expect("names of a run under 4 GiB in all"));
        self.ends.len() - 1
    }

    /// Name `i`.
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The names in index order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The index of the first name equal to `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.iter().position(|n| n == name)
    }

    /// Drops the spare capacity of a table that is complete.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

impl<S: AsRef<str>> FromIterator<S> for Names {
    fn from_iter<I: IntoIterator<Item = S>>(it: I) -> Names {
        let mut n = Names::default();
        for s in it {
            n.push(s.as_ref());
        }
        n.shrink_to_fit();
        n
    }
}

#[cfg(test)]
mod tests {
    use super::Names;

    #[test]
    fn names_come_back_by_index_including_empty_ones() {
        let n: Names = ["ap", "", "sta0", "sat/sta0#2"].into_iter().collect();
        assert_eq!(n.len(), 4);
        assert_eq!((n.get(0), n.get(1), n.get(2), n.get(3)), ("ap", "", "sta0", "sat/sta0#2"));
        assert_eq!(n.iter().collect::<Vec<_>>(), ["ap", "", "sta0", "sat/sta0#2"]);
        assert_eq!(n.position("sta0"), Some(2));
        assert_eq!(n.position("sta"), None);
    }

    #[test]
    fn a_name_costs_its_bytes_and_four() {
        let mut n = Names::default();
        for i in 0..10_000 {
            assert_eq!(n.push(&format!("sta{i}")), i);
        }
        n.shrink_to_fit();
        let bytes: usize = (0..10_000).map(|i| format!("sta{i}").len()).sum();
        assert_eq!(n.text.capacity() + 4 * n.ends.capacity(), bytes + 40_000);
        assert_eq!(n.get(9_999), "sta9999");
    }
}
