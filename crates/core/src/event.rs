//! The event queue.
//!
//! Total order: events pop by increasing time; events at the same time pop in
//! the order they were pushed (a global insertion sequence number breaks
//! ties). Pushing an event before the last popped time, or popping one that
//! would go back in time, panics.
use crate::time::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<E> {
    at: SimTime,
    seq: u64,
    ev: E,
}
impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // BinaryHeap is a max-heap: reverse so the smallest (time, seq) is on top.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

/// A priority queue of events ordered by (time, insertion sequence).
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: SimTime,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::new(), seq: 0, now: SimTime::ZERO, popped: 0 }
    }
    pub fn with_capacity(n: usize) -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(n), seq: 0, now: SimTime::ZERO, popped: 0 }
    }
    /// Time of the last popped event.
    pub fn now(&self) -> SimTime {
        self.now
    }
    /// Schedule `ev` at `at`; returns its sequence number.
    pub fn push(&mut self, at: SimTime, ev: E) -> u64 {
        assert!(at >= self.now, "event scheduled in the past: {at:?} < now {:?}", self.now);
        let seq = self.seq;
        self.seq += 1;
        self.heap.push(Entry { at, seq, ev });
        seq
    }
    /// Remove and return the next event, advancing `now` to its time.
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let e = self.heap.pop()?;
        assert!(e.at >= self.now, "time went backwards: {:?} < {:?}", e.at, self.now);
        self.now = e.at;
        self.popped += 1;
        Some((e.at, e.ev))
    }
    /// Time of the next event without removing it.
    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.at)
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Number of events popped so far.
    pub fn popped(&self) -> u64 {
        self.popped
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
}
