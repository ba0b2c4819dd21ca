//! Head-drop FIFO with a capacity in packets (`kind = "head-drop"`), as
//! Linux's `pfifo_head_drop`.
//!
//! Rule: an arriving packet that finds `capacity` packets queued makes the
//! packet at the head (the oldest) be dropped (`QueueFull`) and joins the
//! tail; otherwise it joins the tail. Dequeue takes the head.
//!
//! Why over a WLAN: the lost packet is the one that has waited longest, so
//! the TCP sender learns of the loss (by duplicate ACKs of the packets
//! behind it) about one queueing delay sooner than with drop-tail, whose
//! lost packet is the newest and leaves a full queue ahead of it.
use crate::config::{ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::droptail::Fifo;
use crate::occupancy::Occupancy;
use wifitcp_core::{DropReason, RngStream, SimTime};

wifitcp_core::config_table! {
    /// `kind = "head-drop"`: no keys of its own (the limit is the
    /// interface capacity).
    #[serde(deny_unknown_fields)]
    pub struct HeadDropConfig {}
}

impl QdiscKind for HeadDropConfig {
    fn build(&self, _: &'static str, capacity: usize, _: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        Ok(Box::new(HeadDrop::new(capacity)))
    }
}

pub struct HeadDrop {
    capacity: usize,
    fifo: Fifo,
    counters: QueueCounters,
    occ: Occupancy,
}

impl HeadDrop {
    pub fn new(capacity: usize) -> Self {
        HeadDrop { capacity, fifo: Fifo::default(), counters: QueueCounters::default(), occ: Occupancy::default() }
    }
}

impl QueueDisc for HeadDrop {
    fn kind(&self) -> &'static str {
        "head-drop"
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        self.counters.offered(&item);
        while self.fifo.len() >= self.capacity {
            let Some(head) = self.fifo.pop() else { break };
            self.counters.drop_pkt(dropped, head.pkt, DropReason::QueueFull);
        }
        item.enqueued_at = now;
        self.fifo.push(item);
        self.occ.update(now, self.fifo.len(), self.fifo.bytes());
    }
    crate::disc::fifo_accessors!(with_per_receiver);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::droptail::DropTail;
    use crate::testutil::*;
    use crate::QdiscConfig;

    #[test]
    fn a_full_queue_drops_its_head_and_keeps_the_arrival() {
        let mut d = HeadDrop::new(2);
        let mut dr = Vec::new();
        let (a, b, c) = (data(1, 1), data(1, 1461), data(1, 2921));
        d.enqueue(ms(0), q(a.clone()), &mut dr);
        d.enqueue(ms(1), q(b.clone()), &mut dr);
        assert!(dr.is_empty());
        d.enqueue(ms(2), q(c.clone()), &mut dr);
        assert_eq!(dr, vec![(a, DropReason::QueueFull)]);
        assert_eq!((d.len(), d.bytes()), (2, 2 * 1500));
        let x = d.dequeue(ms(3), &mut dr).unwrap();
        assert_eq!((x.pkt, x.enqueued_at), (b, ms(1)));
        let x = d.dequeue(ms(3), &mut dr).unwrap();
        assert_eq!((x.pkt, x.enqueued_at), (c, ms(2)));
        assert!(d.dequeue(ms(3), &mut dr).is_none());
        assert!(d.counters().balances(d.len()));
        assert_eq!(d.counters().dropped(DropReason::QueueFull), 1);
    }

    /// Against drop-tail under the same overload: the same number of
    /// losses, but head-drop loses the oldest segments, so the first
    /// segment delivered after a loss follows it by fewer queue positions.
    #[test]
    fn head_drop_loses_the_oldest_where_drop_tail_loses_the_newest() {
        let (mut h, mut t) = (HeadDrop::new(4), DropTail::new(4));
        let (mut dh, mut dt) = (Vec::new(), Vec::new());
        for i in 0..6u32 {
            h.enqueue(ms(i as u64), q(data(1, 1 + 1460 * i)), &mut dh);
            t.enqueue(ms(i as u64), q(data(1, 1 + 1460 * i)), &mut dt);
        }
        let seqs = |d: &Dropped| d.iter().map(|(p, _)| p.tcp().unwrap().seq).collect::<Vec<_>>();
        assert_eq!(seqs(&dh), [1, 1461]);
        assert_eq!(seqs(&dt), [1 + 1460 * 4, 1 + 1460 * 5]);
        let head = h.dequeue(ms(6), &mut dh).unwrap();
        assert_eq!(head.pkt.tcp().unwrap().seq, 1 + 1460 * 2);
        assert!(h.counters().balances(h.len()) && t.counters().balances(t.len()));
    }

    #[test]
    fn a_capacity_of_one_keeps_only_the_newest() {
        let mut d = HeadDrop::new(1);
        let mut dr = Vec::new();
        for i in 0..3u32 {
            d.enqueue(ms(i as u64), q(data(1, 1 + 1460 * i)), &mut dr);
        }
        assert_eq!(dr.len(), 2);
        assert_eq!(d.dequeue(ms(3), &mut dr).unwrap().pkt.tcp().unwrap().seq, 1 + 1460 * 2);
        assert!(d.counters().balances(d.len()));
    }

    #[test]
    fn per_receiver_dequeue_keeps_each_receivers_order() {
        let mut d = HeadDrop::new(10);
        let mut dr = Vec::new();
        for (i, dest) in [1, 2, 1, 2].into_iter().enumerate() {
            d.enqueue(ms(0), q_to(data(0, i as u32), dest), &mut dr);
        }
        let seq = |x: Option<Queued>| x.map(|x| (x.dest, x.pkt.tcp().unwrap().seq));
        assert_eq!(seq(d.peek_for(Some(2), None).cloned()), Some((2, 1)));
        assert_eq!(seq(d.dequeue_for(ms(1), Some(2), None, &mut dr)), Some((2, 1)));
        assert_eq!(seq(d.dequeue_for(ms(1), Some(2), None, &mut dr)), Some((2, 3)));
        assert_eq!(seq(d.dequeue_for(ms(1), Some(2), None, &mut dr)), None);
        assert_eq!(seq(d.dequeue(ms(1), &mut dr)), Some((1, 0)));
        assert!(d.counters().balances(d.len()));
    }

    #[test]
    fn the_table_parses_builds_and_rejects_unknown_keys() {
        let cfg: QdiscConfig = serde_json::from_str(r#"{"kind": "head-drop"}"#).unwrap();
        assert_eq!(cfg.kind(), "head-drop");
        let qd = crate::build(&cfg, 50, &mut RngStream::derive(1, "q")).unwrap();
        assert_eq!(qd.kind(), "head-drop");
        assert!(serde_json::from_str::<QdiscConfig>(r#"{"kind": "head-drop", "limit": 5}"#).is_err());
        let e = cfg.validate(0).unwrap_err();
        assert_eq!(e.to_string(), "capacity: must be positive");
        assert!(QdiscConfig::keys()[0].doc.contains("head-drop"));
    }
}
