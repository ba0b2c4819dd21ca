//! Drop-tail FIFO with a capacity in packets: the 802.11 interface queue
//! (IFQ) of ns-2 and the default of every interface.
//!
//! Rule: an arriving packet that finds `capacity` packets queued is dropped
//! (`QueueFull`); otherwise it joins the tail. Dequeue takes the head.
use crate::config::{ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::occupancy::Occupancy;
use std::collections::VecDeque;
use std::sync::LazyLock;
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
    /// Its FIFO, counters and occupancy, from the first packet offered:
    /// until then it reads as an empty queue that has counted nothing (a
    /// saturated station's queue, fed on demand, never holds a packet; in
    /// a cell of thousands that is 16 bytes a station instead of 240).
    held: Option<Box<Held>>,
}

#[derive(Default)]
struct Held {
    fifo: Fifo,
    counters: QueueCounters,
    occ: Occupancy,
}

/// What a drop-tail queue that was never offered a packet reads as.
static UNUSED_COUNTERS: LazyLock<QueueCounters> = LazyLock::new(QueueCounters::default);
static UNUSED_OCCUPANCY: LazyLock<Occupancy> = LazyLock::new(Occupancy::default);

impl DropTail {
    pub fn new(capacity: usize) -> Self {
        DropTail { capacity, held: None }
    }
}

impl QueueDisc for DropTail {
    fn kind(&self) -> &'static str {
        "drop-tail"
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        let h = self.held.get_or_insert_with(Box::default);
        h.counters.offered(&item);
        if h.fifo.len() >= self.capacity {
            h.counters.drop_pkt(dropped, item.pkt, DropReason::QueueFull);
        } else {
            item.enqueued_at = now;
            h.fifo.push(item);
        }
        h.occ.update(now, h.fifo.len(), h.fifo.bytes());
    }
    fn dequeue(&mut self, now: SimTime, _: &mut Dropped) -> Option<Queued> {
        // (an empty queue returns before the work's registers are saved:
        // a saturated station asks its empty queue once per packet)
        let h = self.held.as_deref_mut().filter(|h| !h.fifo.is_empty())?;
        crate::disc::fifo_dequeue(now, &mut h.fifo, &mut h.counters, &mut h.occ)
    }
    fn idle(&self) -> bool {
        self.held.as_ref().is_none_or(|h| h.fifo.is_empty())
    }
    fn len(&self) -> usize {
        self.held.as_ref().map_or(0, |h| h.fifo.len())
    }
    fn bytes(&self) -> u64 {
        self.held.as_ref().map_or(0, |h| h.fifo.bytes())
    }
    fn counters(&self) -> &QueueCounters {
        self.held.as_ref().map_or(&UNUSED_COUNTERS, |h| &h.counters)
    }
    fn occupancy(&self) -> &Occupancy {
        self.held.as_ref().map_or(&UNUSED_OCCUPANCY, |h| &h.occ)
    }
    fn peek_for(&self, ra: Option<u32>, tid: Option<u8>) -> Option<&Queued> {
        crate::disc::fifo_peek_for(&self.held.as_ref()?.fifo, ra, tid)
    }
    fn dequeue_for(&mut self, now: SimTime, ra: Option<u32>, tid: Option<u8>, _: &mut Dropped) -> Option<Queued> {
        let h = self.held.as_deref_mut()?;
        crate::disc::fifo_dequeue_for(now, ra, tid, &mut h.fifo, &mut h.counters, &mut h.occ)
    }
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

    #[test]
    fn a_queue_never_offered_a_packet_reads_as_a_fresh_one() {
        let mut d = DropTail::new(2);
        let mut dr = Vec::new();
        assert_eq!(std::mem::size_of::<DropTail>(), 16);
        assert!(d.held.is_none() && d.idle() && d.is_empty());
        assert!(d.dequeue(ms(4), &mut dr).is_none() && d.dequeue_for(ms(4), Some(1), None, &mut dr).is_none());
        assert!(d.held.is_none(), "asking an empty queue changes nothing");
        let fresh = Held::default();
        assert_eq!(d.counters(), &fresh.counters);
        let occ = |o: &Occupancy| (o.mean_len(ms(9)), o.mean_bytes(ms(9)), o.max_len(), o.series().to_vec());
        assert_eq!(occ(d.occupancy()), occ(&fresh.occ));
        // once offered a packet it holds its own state, counted from then
        d.enqueue(ms(5), q(data(0, 1)), &mut dr);
        assert!(d.held.is_some() && !d.idle());
        assert_eq!((d.len(), d.counters().enqueued), (1, 1));
        // (the mean runs from the first update, as it did before)
        assert_eq!((d.occupancy().mean_len(ms(10)), d.occupancy().series()), (1.0, &[(ms(5), 1)][..]));
    }
}
