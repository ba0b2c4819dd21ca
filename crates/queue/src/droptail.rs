//! Drop-tail FIFO with a capacity in packets: the 802.11 interface queue
//! (IFQ) of ns-2 and the default of every interface.
//!
//! Rule: an arriving packet that finds `capacity` packets queued is dropped
//! (`QueueFull`); otherwise it joins the tail. Dequeue takes the head.
use crate::config::{ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::occupancy::Occupancy;
use std::collections::VecDeque;
use wifitcp_core::{DropReason, RngStream, SimTime};

wifitcp_core::config_table! {
    /// `kind = "drop-tail"`: no keys of its own.
    #[serde(deny_unknown_fields)]
    pub struct DropTailConfig {}
}

impl QdiscKind for DropTailConfig {
    fn build(&self, _: &'static str, capacity: usize, _: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        Ok(Box::new(DropTail::new(capacity)))
    }
}

/// A bounded FIFO of queued items with byte accounting; the building block
/// of several disciplines.
#[derive(Clone, Debug, Default)]
pub struct Fifo {
    pub(crate) q: VecDeque<Queued>,
    pub(crate) bytes: u64,
}

impl Fifo {
    pub fn len(&self) -> usize {
        self.q.len()
    }
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn push(&mut self, x: Queued) {
        self.bytes += x.size();
        self.q.push_back(x);
    }
    pub fn pop(&mut self) -> Option<Queued> {
        let x = self.q.pop_front()?;
        self.bytes -= x.size();
        Some(x)
    }
    pub fn front(&self) -> Option<&Queued> {
        self.q.front()
    }
    /// Remove the item at `i`.
    pub fn remove(&mut self, i: usize) -> Option<Queued> {
        let x = self.q.remove(i)?;
        self.bytes -= x.size();
        Some(x)
    }
    pub fn iter(&self) -> impl Iterator<Item = &Queued> {
        self.q.iter()
    }
    /// The first item for next hop `ra` (`None`: any) and TID `tid`
    /// (every packet has TID 0, `QueueDisc::peek_for`).
    pub fn first_for(&self, ra: Option<u32>, tid: Option<u8>) -> Option<usize> {
        if tid.is_some_and(|t| t != 0) {
            return None;
        }
        self.q.iter().position(|x| ra.is_none_or(|r| x.dest == r))
    }
}

pub struct DropTail {
    capacity: usize,
    fifo: Fifo,
    counters: QueueCounters,
    occ: Occupancy,
}

impl DropTail {
    pub fn new(capacity: usize) -> Self {
        DropTail { capacity, fifo: Fifo::default(), counters: QueueCounters::default(), occ: Occupancy::default() }
    }
}

impl QueueDisc for DropTail {
    fn kind(&self) -> &'static str {
        "drop-tail"
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        self.counters.offered(&item.pkt);
        if self.fifo.len() >= self.capacity {
            self.counters.drop_pkt(dropped, item.pkt, DropReason::QueueFull);
        } else {
            item.enqueued_at = now;
            self.fifo.push(item);
        }
        self.occ.update(now, self.fifo.len(), self.fifo.bytes());
    }
    crate::disc::fifo_accessors!(with_per_receiver);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;

    #[test]
    fn per_receiver_dequeue_keeps_each_receivers_order() {
        let mut d = DropTail::new(10);
        let mut dr = Vec::new();
        let t = SimTime::ZERO;
        for (i, dest) in [1, 2, 1, 3, 2].into_iter().enumerate() {
            d.enqueue(t, q_to(data(0, i as u32), dest), &mut dr);
        }
        let seq = |x: Option<Queued>| x.map(|x| (x.dest, x.pkt.tcp().unwrap().seq));
        assert_eq!(seq(d.peek_for(Some(2), None).cloned()), Some((2, 1)));
        assert_eq!(seq(d.dequeue_for(t, Some(2), None, &mut dr)), Some((2, 1)));
        assert_eq!(seq(d.dequeue_for(t, Some(2), None, &mut dr)), Some((2, 4)));
        assert_eq!(seq(d.dequeue_for(t, Some(2), None, &mut dr)), None);
        assert_eq!(seq(d.dequeue_for(t, Some(1), Some(5), &mut dr)), None);
        assert_eq!(seq(d.dequeue_for(t, Some(3), None, &mut dr)), Some((3, 3)));
        assert_eq!(seq(d.dequeue(t, &mut dr)), Some((1, 0)));
        assert_eq!((d.len(), d.counters().dequeued), (1, 4));
    }

    #[test]
    fn fifo_order_and_tail_drop() {
        let mut d = DropTail::new(2);
        let mut dr = Vec::new();
        let (a, b, c) = (data(1, 1), data(1, 1461), data(1, 2921));
        d.enqueue(ms(0), q(a.clone()), &mut dr);
        d.enqueue(ms(1), q(b.clone()), &mut dr);
        d.enqueue(ms(2), q(c.clone()), &mut dr);
        assert_eq!(dr, vec![(c, DropReason::QueueFull)]);
        assert_eq!(d.bytes(), 2 * 1500);
        let x = d.dequeue(ms(3), &mut dr).unwrap();
        assert_eq!((x.pkt, x.enqueued_at), (a, ms(0)));
        assert_eq!(d.dequeue(ms(3), &mut dr).unwrap().pkt, b);
        assert!(d.dequeue(ms(3), &mut dr).is_none());
        assert!(d.counters().balances(d.len()));
        assert_eq!(d.counters().dropped(DropReason::QueueFull), 1);
    }
}
