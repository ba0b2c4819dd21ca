//! A JSON object written member by member, for the result's per-station
//! and per-flow arrays (thousands of objects per run).
//!
//! `serde_json`'s `Value` keeps an object's members in a `BTreeMap` of
//! owned keys, so building one allocates every key and every node of the
//! tree before a byte is written. [`Obj`] instead writes each member's
//! value as JSON text at once, into one buffer, and keeps only (key,
//! extent) pairs; [`Obj::write_to`] then writes the members in the order
//! a `BTreeMap<String, _>` has them (keys compared byte by byte, a later
//! member replacing an earlier one of the same key). Values are written by
//! `serde_json`'s own serializer, so the text is byte for byte what
//! serialising the equivalent `json!` tree gives (floats by the same
//! shortest-round-trip rule, non-finite floats as `null`); a test holds
//! that for every kind of value the result uses.
use serde::Serialize;
use std::ops::Range;

/// One object's members: their values' texts back to back in `text`.
///
/// The objects of one array mostly have the same keys in the same order,
/// so the order members are written in (`order`: each member's index and
/// the extent of its `"key":` text in `keys`) is kept with the keys it was
/// made for (`order_of`, compared by address) and made again only when
/// they differ.
#[derive(Default)]
pub(crate) struct Obj {
    text: Vec<u8>,
    members: Vec<(&'static str, Range<usize>)>,
    order: Vec<(usize, Range<usize>)>,
    order_of: Vec<(*const u8, usize)>,
    keys: Vec<u8>,
}

impl Obj {
    /// Forget the members (the buffers are kept for the next object).
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.members.clear();
    }

    /// Member `key` with value `v`.
    pub(crate) fn put<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> &mut Self {
        let start = self.text.len();
        serde_json::to_writer(&mut self.text, v).expect("a result value serialises");
        self.members.push((key, start..self.text.len()));
        self
    }

    /// Member `key`: the array of `items`, each written in turn (no
    /// vector of them is built).
    pub(crate) fn put_seq<T: Serialize>(&mut self, key: &'static str, items: impl IntoIterator<Item = T>) -> &mut Self {
        let start = self.text.len();
        self.text.push(b'[');
        for (k, x) in items.into_iter().enumerate() {
            if k > 0 {
                self.text.push(b',');
            }
            serde_json::to_writer(&mut self.text, &x).expect("a result value serialises");
        }
        self.text.push(b']');
        self.members.push((key, start..self.text.len()));
        self
    }

    /// Append the object's JSON text to `out`.
    pub(crate) fn write_to(&mut self, out: &mut Vec<u8>) {
        let same = self.order_of.len() == self.members.len()
            && self.order_of.iter().zip(&self.members).all(|(&(p, n), (k, _))| p == k.as_ptr() && n == k.len());
        if !same {
            self.order_of.clear();
            self.order_of.extend(self.members.iter().map(|(k, _)| (k.as_ptr(), k.len())));
            let m = &self.members;
            let mut order: Vec<usize> = (0..m.len()).collect();
            // stable: of equal keys the later member stays last, and only
            // the last is written (it replaced the others)
            order.sort_by(|&a, &b| m[a].0.cmp(m[b].0));
            self.order.clear();
            self.keys.clear();
            for (k, &i) in order.iter().enumerate() {
                if order.get(k + 1).is_none_or(|&next| m[next].0 != m[i].0) {
                    let start = self.keys.len();
                    if !self.order.is_empty() {
                        self.keys.push(b',');
                    }
                    serde_json::to_writer(&mut self.keys, m[i].0).expect("a key serialises");
                    self.keys.push(b':');
                    self.order.push((i, start..self.keys.len()));
                }
            }
        }
        out.push(b'{');
        for (i, key) in &self.order {
            out.extend_from_slice(&self.keys[key.clone()]);
            out.extend_from_slice(&self.text[self.members[*i].1.clone()]);
        }
        out.push(b'}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_what_the_value_tree_writes() {
        let mut o = Obj::default();
        o.put("zeta", &1u64)
            .put("name", "sta\u{0}\"1\u{e9}")
            .put("alpha", &-0.0f64)
            .put("x", &1.5e-7f64)
            .put("big", &1e300f64)
            .put("nan", &f64::NAN)
            .put("inf", &Some(f64::INFINITY))
            .put("none", &None::<f64>)
            .put("some", &Some(0.1f64 + 0.2))
            .put("nested", &json!({"b": [1, 2], "a": null}))
            .put_seq("series", [(0.5f64, 3u64), (1.0, 4)])
            .put_seq("empty", std::iter::empty::<u64>())
            .put("Upper", &true)
            .put("x", &2.5f64); // replaces the first "x"
        let mut out = Vec::new();
        o.write_to(&mut out);
        let tree = json!({
            "zeta": 1u64, "name": "sta\u{0}\"1\u{e9}", "alpha": -0.0f64, "x": 2.5f64, "big": 1e300f64,
            "nan": f64::NAN, "inf": f64::INFINITY, "none": null, "some": 0.1f64 + 0.2,
            "nested": {"b": [1, 2], "a": null}, "series": [[0.5f64, 3u64], [1.0f64, 4u64]],
            "empty": [], "Upper": true,
        });
        assert_eq!(String::from_utf8(out).unwrap(), tree.to_string());
    }

    #[test]
    fn objects_with_other_keys_get_their_own_order() {
        let mut o = Obj::default();
        let mut out = Vec::new();
        for k in 0..4u64 {
            o.clear();
            o.put("b", &k).put("a", &k);
            if k % 2 == 1 {
                o.put("ab", &k);
            }
            o.write_to(&mut out);
        }
        let want: String = (0..4u64)
            .map(|k| if k % 2 == 1 { json!({"b": k, "a": k, "ab": k}) } else { json!({"b": k, "a": k}) }.to_string())
            .collect();
        assert_eq!(String::from_utf8(out).unwrap(), want);
    }

    #[test]
    fn clear_starts_a_new_object_and_empty_is_braces() {
        let mut o = Obj::default();
        o.put("a", &1u64);
        o.clear();
        let mut out = Vec::new();
        o.write_to(&mut out);
        assert_eq!(out, b"{}");
    }
}
