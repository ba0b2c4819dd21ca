//! The event queue.
//!
//! Total order: events pop by increasing time; events at the same time pop in
//! the order they were pushed (a global insertion sequence number breaks
//! ties). Pushing an event before the last popped time, or popping one that
//! would go back in time, panics.
use crate::time::SimTime;

struct Entry<E> {
    at: SimTime,
    seq: u64,
    ev: E,
}

/// The (time, sequence) order as one 128-bit number: one comparison where
/// two fields take two, with no branch between them.
#[inline(always)]
fn order(at: SimTime, seq: u64) -> u128 {
    (at.0 as u128) << 64 | seq as u128
}

impl<E> Entry<E> {
    #[inline(always)]
    fn key(&self) -> u128 {
        order(self.at, self.seq)
    }
    /// Strict (time, sequence) order.
    #[inline(always)]
    fn before(&self, o: &Self) -> bool {
        self.key() < o.key()
    }
}

/// Children per node of the heap. A 4-ary heap is half as deep as a binary
/// one and its four children share a cache line or two, which makes `pop`
/// (the costlier operation) cheaper at the heap sizes the simulator sees
/// (tens to a few thousand events).
const ARITY: usize = 4;
const _: () = assert!(ARITY == 4, "sift_down_root's tournament takes four children");

/// A priority queue of events ordered by (time, insertion sequence).
///
/// Implementation: an implicit 4-ary min-heap keyed by (time, sequence),
/// plus one slot in front of it for an event pushed as the earliest;
/// both sift operations move a hole instead of swapping entries (the
/// only `unsafe` code of the crate, commented at each block).
pub struct EventQueue<E> {
    /// The earliest event, when it was pushed as the earliest one: kept out
    /// of the heap, so that the common pattern "schedule the very next
    /// event, then pop it" costs no heap operation. Invariant: if set, it
    /// precedes every heap entry. Its instant and sequence number are kept
    /// in separate fields and read one by one: the pop that follows the
    /// push reads what the push just wrote, and a wider load spanning two
    /// narrower stores waits for them to retire (no store forwarding).
    front: Option<E>,
    front_at: SimTime,
    front_seq: u64,
    heap: Vec<Entry<E>>,
    seq: u64,
    now: SimTime,
    /// The tie-break key of the event popped last.
    last_seq: u64,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        Self::with_capacity(0)
    }
    pub fn with_capacity(n: usize) -> Self {
        EventQueue {
            front: None,
            front_at: SimTime::ZERO,
            front_seq: 0,
            heap: Vec::with_capacity(n),
            seq: 0,
            now: SimTime::ZERO,
            last_seq: 0,
            popped: 0,
        }
    }
    /// Time of the last popped event.
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// Schedule `ev` at `at`; returns its sequence number.
    pub fn push(&mut self, at: SimTime, ev: E) -> u64 {
        let seq = self.seq;
        self.push_keyed(at, seq, ev);
        seq
    }

    /// Schedule `ev` at `at` with tie-break key `key` in place of the
    /// insertion sequence: events of one instant pop by increasing key.
    /// A caller that numbers its pushes itself (`push` numbers them in
    /// insertion order) gives each event a key no other queued event of
    /// the same instant has; the order of equal keys is unspecified.
    /// `next_seq` counts pushes of either kind.
    #[inline]
    pub fn push_keyed(&mut self, at: SimTime, key: u64, ev: E) {
        assert!(at >= self.now, "event scheduled in the past: {at:?} < now {:?}", self.now);
        let seq = key;
        self.seq += 1;
        let first = match (&self.front, self.heap.first()) {
            (Some(_), _) => order(at, seq) < order(self.front_at, self.front_seq),
            (None, Some(h)) => order(at, seq) < h.key(),
            (None, None) => true,
        };
        if first {
            if let Some(old) = self.front.replace(ev) {
                self.heap_push(Entry { at: self.front_at, seq: self.front_seq, ev: old });
            }
            self.front_at = at;
            self.front_seq = seq;
        } else {
            self.heap_push(Entry { at, seq, ev });
        }
    }
    fn heap_push(&mut self, e: Entry<E>) {
        self.heap.push(e);
        self.sift_up(self.heap.len() - 1);
    }
    /// Remove and return the next event, advancing `now` to its time.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let (at, seq, ev) = match self.front.take() {
            Some(ev) => (self.front_at, self.front_seq, ev),
            None => {
                let e = self.heap_pop()?;
                (e.at, e.seq, e.ev)
            }
        };
        assert!(at >= self.now, "time went backwards: {:?} < {:?}", at, self.now);
        self.now = at;
        self.last_seq = seq;
        self.popped += 1;
        Some((at, ev))
    }

    /// The tie-break key of the event popped last (zero before the
    /// first).
    #[inline]
    pub fn popped_key(&self) -> u64 {
        self.last_seq
    }

    /// Count `n` pushes without queueing anything: the keys `push` would
    /// give them (the next `n` sequence numbers) are left to events the
    /// caller queues later with [`push_first`](Self::push_first), each
    /// when the one before it pops (a run of events of one instant held as
    /// one entry).
    #[inline]
    pub fn skip(&mut self, n: u64) {
        self.seq += n;
    }

    /// Queue `ev` at `at` under `key`, which must precede every queued
    /// event (the successor of the event just popped, under a key that
    /// was reserved with it, `skip`): it goes to the front slot, no heap
    /// operation. Not counted as a push (its key was, when reserved).
    #[inline]
    pub fn push_first(&mut self, at: SimTime, key: u64, ev: E) {
        assert!(at >= self.now, "event scheduled in the past: {at:?} < now {:?}", self.now);
        debug_assert!(
            self.peek_time().is_none_or(|t| (at, key) < (t, self.peek_seq().expect("queued"))),
            "push_first of an event that does not precede the queue"
        );
        if let Some(old) = self.front.replace(ev) {
            self.heap_push(Entry { at: self.front_at, seq: self.front_seq, ev: old });
        }
        self.front_at = at;
        self.front_seq = key;
    }
    fn heap_pop(&mut self) -> Option<Entry<E>> {
        let last = self.heap.pop()?;
        if self.heap.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut self.heap[0], last);
        self.sift_down_root();
        Some(top)
    }
    /// Move the entry at `i` up to its place.
    #[inline]
    fn sift_up(&mut self, mut i: usize) {
        let h = self.heap.as_mut_ptr();
        // SAFETY: `i` and every parent index are < len. The entry is read
        // out once, parents are moved down into the hole one by one
        // (non-overlapping single-element copies), and the entry is written
        // back into the final hole, so every slot holds exactly one entry
        // again on return. `before` cannot panic, so no slot is left
        // duplicated on unwinding.
        unsafe {
            let e = std::ptr::read(h.add(i));
            while i > 0 {
                let parent = (i - 1) / ARITY;
                if !e.before(&*h.add(parent)) {
                    break;
                }
                std::ptr::copy_nonoverlapping(h.add(parent), h.add(i), 1);
                i = parent;
            }
            std::ptr::write(h.add(i), e);
        }
    }

    /// Restore the heap order after the root was replaced. A node with
    /// all four children picks the least of them by a tournament of
    /// three comparisons whose outcomes select values instead of taking
    /// branches (which child is least is a coin toss to a branch
    /// predictor); ties go to the first child, as a scan in order would.
    #[inline]
    fn sift_down_root(&mut self) {
        let n = self.heap.len();
        let h = self.heap.as_mut_ptr();
        // SAFETY: as in `sift_up`; every index used is < n.
        unsafe {
            let e = std::ptr::read(h);
            let ek = e.key();
            let mut i = 0;
            loop {
                let first = i * ARITY + 1;
                let (best, bk) = if first + ARITY <= n {
                    let k = |c: usize| (*h.add(c)).key();
                    let (k0, k1, k2, k3) = (k(first), k(first + 1), k(first + 2), k(first + 3));
                    let (a, ka) = if k1 < k0 { (first + 1, k1) } else { (first, k0) };
                    let (b, kb) = if k3 < k2 { (first + 3, k3) } else { (first + 2, k2) };
                    if kb < ka {
                        (b, kb)
                    } else {
                        (a, ka)
                    }
                } else if first < n {
                    let mut best = (first, (*h.add(first)).key());
                    for c in first + 1..n {
                        let kc = (*h.add(c)).key();
                        if kc < best.1 {
                            best = (c, kc);
                        }
                    }
                    best
                } else {
                    break;
                };
                if bk >= ek {
                    break;
                }
                std::ptr::copy_nonoverlapping(h.add(best), h.add(i), 1);
                i = best;
            }
            std::ptr::write(h.add(i), e);
        }
    }
    /// Remove every queued event, in (time, key) order, leaving the clock
    /// and the count of popped events as they were (to queue them again,
    /// e.g. under other keys).
    pub fn drain(&mut self) -> Vec<(SimTime, E)> {
        let mut all: Vec<Entry<E>> = std::mem::take(&mut self.heap);
        if let Some(ev) = self.front.take() {
            all.push(Entry { at: self.front_at, seq: self.front_seq, ev });
        }
        all.sort_unstable_by_key(|e| (e.at, e.seq));
        all.into_iter().map(|e| (e.at, e.ev)).collect()
    }

    /// Remove every queued event with its tie-break key, in (time, key)
    /// order (to queue again those that stay, under the same keys).
    pub fn drain_keyed(&mut self) -> Vec<(SimTime, u64, E)> {
        let mut all: Vec<Entry<E>> = std::mem::take(&mut self.heap);
        if let Some(ev) = self.front.take() {
            all.push(Entry { at: self.front_at, seq: self.front_seq, ev });
        }
        all.sort_unstable_by_key(|e| (e.at, e.seq));
        all.into_iter().map(|e| (e.at, e.seq, e.ev)).collect()
    }

    /// Time of the next event without removing it.
    pub fn peek_time(&self) -> Option<SimTime> {
        if self.front.is_some() {
            Some(self.front_at)
        } else {
            self.heap.first().map(|e| e.at)
        }
    }
    /// Queued events it holds room for without growing.
    pub fn capacity(&self) -> usize {
        self.heap.capacity()
    }
    /// Room for `n` queued events in all without growing.
    pub fn reserve_total(&mut self, n: usize) {
        self.heap.reserve_exact(n.saturating_sub(self.heap.len()));
    }
    pub fn len(&self) -> usize {
        self.heap.len() + usize::from(self.front.is_some())
    }
    pub fn is_empty(&self) -> bool {
        self.front.is_none() && self.heap.is_empty()
    }
    /// Number of events popped so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
    /// The sequence number the next push will take (= events pushed so
    /// far).
    pub fn next_seq(&self) -> u64 {
        self.seq
    }
    /// Sequence number of the next event, without removing it.
    pub fn peek_seq(&self) -> Option<u64> {
        if self.front.is_some() {
            Some(self.front_seq)
        } else {
            self.heap.first().map(|e| e.seq)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), 'a');
        q.push(SimTime(3), 'b');
        q.push(SimTime(5), 'c');
        q.push(SimTime(3), 'd');
        let got: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(got, vec!['b', 'd', 'a', 'c']);
    }
    #[test]
    #[should_panic(expected = "past")]
    fn refuses_the_past() {
        let mut q = EventQueue::new();
        q.push(SimTime(5), ());
        q.pop();
        q.push(SimTime(4), ());
    }

    #[test]
    fn reserved_keys_queue_first_in_order() {
        // A run of three events of one instant pushed as one (`push` and
        // `skip(2)`), each successor queued by `push_first` when the one
        // before it pops: the same order as three pushes, with events
        // pushed after the run at the same instant and earlier ones.
        let mut q = EventQueue::new();
        q.push(SimTime(4), 'x');
        let run = q.push(SimTime(5), 'a');
        q.skip(2);
        q.push(SimTime(5), 'd');
        q.push(SimTime(3), 'w');
        assert_eq!(q.next_seq(), 6);
        let mut got = Vec::new();
        while let Some((at, ev)) = q.pop() {
            let key = q.popped_key();
            got.push(ev);
            if key >= run && key < run + 2 {
                let next = ['b', 'c'][(key - run) as usize];
                q.push_first(at, key + 1, next);
            }
        }
        assert_eq!(got, vec!['w', 'x', 'a', 'b', 'c', 'd']);
        assert_eq!(q.popped(), 6);
    }

    #[test]
    fn keyed_pushes_pop_by_time_then_key() {
        // Keys out of push order at one instant, with the front slot in
        // play (a push that is the earliest goes there), against a sorted
        // reference; `drain` gives the same order without popping.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut next_key = [0u64; 4];
        for round in 0..5_000 {
            if rnd() % 3 != 0 || reference.is_empty() {
                let at = q.now().0 + rnd() % 4;
                let part = rnd() % 4;
                let key = part << 48 | next_key[part as usize];
                next_key[part as usize] += 1;
                q.push_keyed(SimTime(at), key, key);
                reference.push((at, key));
            } else {
                reference.sort_unstable();
                let (at, key) = reference.remove(0);
                assert_eq!(q.peek_seq(), Some(key));
                assert_eq!(q.pop(), Some((SimTime(at), key)), "round {round}");
            }
        }
        reference.sort_unstable();
        let popped = q.popped();
        let drained: Vec<(u64, u64)> = q.drain().into_iter().map(|(t, k)| (t.0, k)).collect();
        assert_eq!(drained, reference);
        assert!(q.is_empty());
        assert_eq!(q.popped(), popped, "drain pops nothing");
    }

    #[test]
    fn matches_a_sorted_reference() {
        // Random pushes and pops against a sorted list of (time, seq).
        let mut q = EventQueue::new();
        let mut reference: Vec<(u64, u64)> = Vec::new();
        let mut x = 88172645463325252u64;
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut pushes = 0u64;
        for _ in 0..20_000 {
            if rnd() % 3 != 0 || reference.is_empty() {
                let at = q.now().0 + rnd() % 50;
                assert_eq!(q.next_seq(), pushes);
                let seq = q.push(SimTime(at), pushes);
                assert_eq!(seq, pushes);
                pushes += 1;
                reference.push((at, seq));
            } else {
                reference.sort_unstable();
                let (at, seq) = reference.remove(0);
                assert_eq!(q.peek_seq(), Some(seq));
                let (t, ev) = q.pop().expect("non-empty");
                assert_eq!(t.0, at);
                assert_eq!(ev, seq, "the payload is the push count, i.e. the sequence");
            }
            assert_eq!(q.len(), reference.len());
        }
    }
}
