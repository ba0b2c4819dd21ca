//! ACK-first buffer with redundant-ACK filtering (paper 000, Cuzanauskas &
//! Anskaitis, section V "TCP optimization in multi-polling").
//!
//! Rules (paper 000 section V, paragraph "Our TCP ACK handling mechanism"):
//! - "additional buffers are created to separate TCP ACK from all the rest
//!   normal data": pure TCP ACKs (`Packet::is_pure_tcp_ack`: ACK set, no
//!   payload, no SYN/FIN/RST) go to an ACK buffer; everything else to the
//!   data buffer (drop-tail, `capacity` packets).
//! - "Firstly, TCP ACKs buffer is flushed, and after that the data buffer is
//!   handled": every dequeue serves the ACK buffer first.
//! - "the device periodically checks if there exist outdated ACKs before
//!   transmitting them ... they are simply removed", "leaving only
//!   up-to-date ACKs which sequence number contains the information of
//!   outdated ACK": before each dequeue from the ACK buffer, every queued
//!   ACK made redundant by the newest queued ACK of the same direction of
//!   the same connection is removed (reason `AckFiltered`), using
//!   [`crate::tcpack::makes_redundant`]: strictly higher cumulative ACK,
//!   SACK information covered, no SYN/FIN/RST/URG/ECE/CWR on the removed
//!   ACK. Duplicate ACKs (same ack number) are never removed, nor is the
//!   ACK they duplicate ([`crate::tcpack::DupTracker`]), even once a newer
//!   cumulative ACK is queued: the sender sees every duplicate ACK.
//!
//! Interpretations (not stated by the paper):
//! - The check runs at every dequeue that serves the ACK buffer ("before
//!   transmitting them") and also when an ACK arrives at a full ACK buffer,
//!   so that redundant ACKs do not cause an arriving fresh ACK to be
//!   dropped. Filtering at dequeue rather than at arrival does not change
//!   what is transmitted, only occupancy.
//! - The ACK buffer has its own capacity `ack_capacity` (default: the data
//!   buffer's capacity; the paper gives no size). Overflow: `QueueFull`.
//! - The redundancy test compares each ACK only with the newest queued ACK
//!   of its flow direction, which carries the highest ack number and the
//!   most recent SACK blocks.
use crate::config::{check, ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::droptail::Fifo;
use crate::occupancy::Occupancy;
use crate::tcpack::{is_plain_ack, makes_redundant, sack_covered, seq_lt, DupTracker, FlowKey};
use serde::Serialize;
use std::collections::BTreeMap;
use wifitcp_core::schema::PKTS;
use wifitcp_core::{DropReason, RngStream, SimTime};

wifitcp_core::config_table! {
    /// `kind = "ack-first"`.
    #[serde(deny_unknown_fields)]
    pub struct AckFirstConfig {
        /// ACK buffer.
        ///
        /// The paper gives no size.
        #[key(range = PKTS, unit = "packets", default = "the interface capacity")]
        pub ack_capacity: Option<usize> = None,
    }
}

impl QdiscKind for AckFirstConfig {
    fn build(&self, _: &'static str, capacity: usize, _: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        let ack = self.ack_capacity.unwrap_or(capacity);
        check(ack > 0, "ack_capacity", "must be positive")?;
        Ok(Box::new(AckFirst::new(capacity, ack)))
    }
}

/// What the filter did (results: the queue's `ack_filter`). Removed ACKs,
/// all superseded by a newer cumulative ACK of their flow direction, by
/// where the check ran; and the ACKs sent while a newer ACK of their flow
/// direction was queued behind them, by why the check kept them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AckFilterStats {
    /// Removed when an ACK arrived at a full ACK buffer.
    pub removed_at_enqueue: u64,
    /// Removed before a dequeue of the whole queue (a contending station;
    /// an AP outside a CFP).
    pub removed_at_dequeue: u64,
    /// Removed before a dequeue for one receiver (a point coordinator's
    /// downlink to the station it polls).
    pub removed_at_receiver_dequeue: u64,
    /// Kept: flagged (URG, ECE or CWR; SYN/FIN/RST ACKs never enter the
    /// ACK buffer).
    pub kept_flagged: u64,
    /// Kept: a duplicate ACK, or the ACK a duplicate series repeats.
    pub kept_duplicate: u64,
    /// Kept: SACK information (or a D-SACK block) the newer ACK lacks.
    pub kept_sack: u64,
    /// Kept: the newer ACK acknowledges less (reordered).
    pub kept_reordered: u64,
}

pub struct AckFirst {
    capacity: usize,
    ack_capacity: usize,
    data: Fifo,
    acks: Fifo,
    dups: DupTracker,
    counters: QueueCounters,
    occ: Occupancy,
    stats: AckFilterStats,
}

/// Where the redundancy check runs (for [`AckFilterStats`]).
#[derive(Clone, Copy)]
enum At {
    Enqueue,
    Dequeue,
    ReceiverDequeue,
}

impl AckFirst {
    pub fn new(capacity: usize, ack_capacity: usize) -> Self {
        AckFirst {
            capacity,
            ack_capacity,
            data: Fifo::default(),
            acks: Fifo::default(),
            dups: DupTracker::default(),
            counters: QueueCounters::default(),
            occ: Occupancy::default(),
            stats: AckFilterStats::default(),
        }
    }

    /// The filter's counters.
    pub fn stats(&self) -> &AckFilterStats {
        &self.stats
    }

    /// The ACK at `i` is about to be sent: if a newer ACK of its flow
    /// direction is queued, count why the check kept it.
    fn note_kept(&mut self, i: usize) {
        let p = &self.acks.q[i].pkt;
        let Some(k) = FlowKey::of(p) else { return };
        let Some(j) = (i + 1..self.acks.len()).rev().find(|&j| FlowKey::of(&self.acks.q[j].pkt) == Some(k)) else {
            return;
        };
        let (Some(o), Some(n)) = (p.tcp(), self.acks.q[j].pkt.tcp()) else { return };
        let why = if !is_plain_ack(p) {
            &mut self.stats.kept_flagged
        } else if self.dups.protected(p) || o.ack == n.ack {
            &mut self.stats.kept_duplicate
        } else if !seq_lt(o.ack, n.ack) {
            &mut self.stats.kept_reordered
        } else {
            debug_assert!(!sack_covered(o.ack, &o.options.sack, n.ack, &n.options.sack));
            &mut self.stats.kept_sack
        };
        *why += 1;
    }

    /// Remove every ACK of the ACK buffer made redundant by the newest
    /// queued ACK of the same flow direction.
    fn purge(&mut self, at: At, dropped: &mut Dropped) {
        let mut newest: BTreeMap<FlowKey, usize> = BTreeMap::new();
        let mut doomed = Vec::new();
        for i in (0..self.acks.len()).rev() {
            let p = &self.acks.q[i].pkt;
            let Some(k) = FlowKey::of(p) else { continue };
            match newest.get(&k) {
                None => {
                    newest.insert(k, i);
                }
                Some(&j) => {
                    if makes_redundant(p, &self.acks.q[j].pkt) && !self.dups.protected(p) {
                        doomed.push(i);
                    }
                }
            }
        }
        // `doomed` is in decreasing index order: removal keeps indices valid
        for i in doomed {
            let x = self.acks.remove(i).expect("index in range");
            self.counters.drop_pkt(dropped, x.pkt, DropReason::AckFiltered);
            *match at {
                At::Enqueue => &mut self.stats.removed_at_enqueue,
                At::Dequeue => &mut self.stats.removed_at_dequeue,
                At::ReceiverDequeue => &mut self.stats.removed_at_receiver_dequeue,
            } += 1;
        }
    }

    fn update_occ(&mut self, now: SimTime) {
        self.occ.update(now, self.len(), self.bytes());
    }
}

impl QueueDisc for AckFirst {
    fn kind(&self) -> &'static str {
        "ack-first"
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        self.counters.offered(&item);
        item.enqueued_at = now;
        self.dups.observe(&item.pkt);
        if item.pkt.is_pure_tcp_ack() {
            if self.acks.len() >= self.ack_capacity {
                self.purge(At::Enqueue, dropped);
            }
            if self.acks.len() >= self.ack_capacity {
                self.counters.drop_pkt(dropped, item.pkt, DropReason::QueueFull);
            } else {
                self.acks.push(item);
            }
        } else if self.data.len() >= self.capacity {
            self.counters.drop_pkt(dropped, item.pkt, DropReason::QueueFull);
        } else {
            self.data.push(item);
        }
        self.update_occ(now);
    }
    fn dequeue(&mut self, now: SimTime, dropped: &mut Dropped) -> Option<Queued> {
        let x = if !self.acks.is_empty() {
            self.purge(At::Dequeue, dropped);
            self.note_kept(0);
            self.acks.pop()
        } else {
            self.data.pop()
        };
        if let Some(x) = &x {
            self.counters.sent(x);
        }
        self.update_occ(now);
        x
    }
    /// A point coordinator polling station `ra` (`mac::pcf`): that
    /// station's ACKs first (after the redundancy check), then its data.
    fn peek_for(&self, ra: Option<u32>, tid: Option<u8>) -> Option<&Queued> {
        match self.acks.first_for(ra, tid) {
            Some(i) => Some(&self.acks.q[i]),
            None => self.data.first_for(ra, tid).map(|i| &self.data.q[i]),
        }
    }
    fn dequeue_for(&mut self, now: SimTime, ra: Option<u32>, tid: Option<u8>, dropped: &mut Dropped) -> Option<Queued> {
        if ra.is_none() && tid.is_none() {
            return self.dequeue(now, dropped);
        }
        let x = match self.acks.first_for(ra, tid) {
            Some(_) => {
                self.purge(At::ReceiverDequeue, dropped);
                let i = self.acks.first_for(ra, tid).expect("the newest ACK of a flow stays");
                self.note_kept(i);
                self.acks.remove(i)
            }
            None => self.data.first_for(ra, tid).and_then(|i| self.data.remove(i)),
        };
        if let Some(x) = &x {
            self.counters.sent(x);
        }
        self.update_occ(now);
        x
    }
    fn len(&self) -> usize {
        self.acks.len() + self.data.len()
    }
    fn bytes(&self) -> u64 {
        self.acks.bytes() + self.data.bytes()
    }
    fn counters(&self) -> &QueueCounters {
        &self.counters
    }
    fn occupancy(&self) -> &Occupancy {
        &self.occ
    }
    fn ack_filter(&self) -> Option<AckFilterStats> {
        Some(self.stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;
    use wifitcp_wire::TcpFlags;

    #[test]
    fn acks_served_before_data() {
        let mut d = AckFirst::new(10, 10);
        let mut dr = Vec::new();
        d.enqueue(ms(0), q(data(1, 1)), &mut dr);
        d.enqueue(ms(1), q(ack(2, 500)), &mut dr);
        let first = d.dequeue(ms(2), &mut dr).unwrap();
        assert!(first.pkt.is_pure_tcp_ack());
        assert!(!d.dequeue(ms(2), &mut dr).unwrap().pkt.is_pure_tcp_ack());
    }

    #[test]
    fn per_receiver_dequeue_serves_its_acks_first_filtered() {
        let mut d = AckFirst::new(10, 10);
        let mut dr = Vec::new();
        d.enqueue(ms(0), q_to(data(1, 1), 2), &mut dr);
        d.enqueue(ms(0), q_to(ack(3, 100), 1), &mut dr);
        d.enqueue(ms(0), q_to(ack(2, 500), 2), &mut dr);
        d.enqueue(ms(0), q_to(ack(2, 900), 2), &mut dr);
        assert!(d.peek_for(Some(2), None).unwrap().pkt.is_pure_tcp_ack());
        let x = d.dequeue_for(ms(1), Some(2), None, &mut dr).unwrap();
        assert_eq!((x.dest, ack_of(&x.pkt)), (2, 900));
        assert_eq!(count(&dr, DropReason::AckFiltered), 1);
        assert_eq!((d.stats().removed_at_receiver_dequeue, d.stats().removed_at_dequeue), (1, 0));
        let x = d.dequeue_for(ms(1), Some(2), None, &mut dr).unwrap();
        assert!(!x.pkt.is_pure_tcp_ack() && x.dest == 2);
        assert!(d.dequeue_for(ms(1), Some(2), None, &mut dr).is_none());
        assert_eq!(ack_of(&d.dequeue(ms(1), &mut dr).unwrap().pkt), 100);
    }

    #[test]
    fn older_cumulative_acks_removed_newest_kept() {
        let mut d = AckFirst::new(10, 10);
        let mut dr = Vec::new();
        for (i, a) in [1000, 2000, 3000].into_iter().enumerate() {
            d.enqueue(ms(i as u64), q(ack(1, a)), &mut dr);
        }
        d.enqueue(ms(3), q(ack(2, 700)), &mut dr); // another flow: untouched
        let out = drain(&mut d, ms(4), &mut dr);
        let acks: Vec<u32> = out.iter().map(|x| ack_of(&x.pkt)).collect();
        assert_eq!(acks, vec![3000, 700]);
        assert_eq!(count(&dr, DropReason::AckFiltered), 2);
        assert_eq!(d.counters().filtered(), 2);
        assert_eq!(*d.stats(), AckFilterStats { removed_at_dequeue: 2, ..Default::default() });
        assert!((d.counters().filtered_share() - 0.5).abs() < 1e-12);
        assert!(d.counters().balances(d.len()));
    }

    #[test]
    fn duplicates_flags_and_uncovered_sack_are_kept() {
        let mut d = AckFirst::new(10, 10);
        let mut dr = Vec::new();
        d.enqueue(ms(0), q(with_flags(ack(1, 1000), TcpFlags::ECE)), &mut dr);
        d.enqueue(ms(0), q(with_sack(ack(1, 1500), &[(3000, 4000)])), &mut dr);
        d.enqueue(ms(0), q(ack(1, 2000)), &mut dr);
        d.enqueue(ms(0), q(ack(1, 2000)), &mut dr); // duplicate
        let out = drain(&mut d, ms(1), &mut dr);
        assert_eq!(out.len(), 4);
        assert!(dr.is_empty());
        // each of the first three had the newer 2000 behind it
        let s = d.stats();
        assert_eq!((s.kept_flagged, s.kept_sack, s.kept_duplicate, s.kept_reordered), (1, 1, 1, 0));
        assert_eq!(s.removed_at_dequeue + s.removed_at_enqueue + s.removed_at_receiver_dequeue, 0);
    }

    #[test]
    fn full_ack_buffer_purges_before_dropping() {
        let mut d = AckFirst::new(10, 2);
        let mut dr = Vec::new();
        d.enqueue(ms(0), q(ack(1, 1000)), &mut dr);
        d.enqueue(ms(0), q(ack(1, 2000)), &mut dr);
        d.enqueue(ms(0), q(ack(1, 3000)), &mut dr);
        assert_eq!(count(&dr, DropReason::AckFiltered), 1);
        assert_eq!(count(&dr, DropReason::QueueFull), 0);
        d.enqueue(ms(0), q(ack(1, 3000)), &mut dr); // dup: purge removes 2000
        assert_eq!(count(&dr, DropReason::AckFiltered), 2);
        d.enqueue(ms(0), q(ack(1, 3000)), &mut dr); // buffer full of non-redundant ACKs
        assert_eq!(count(&dr, DropReason::QueueFull), 1);
        assert_eq!((d.stats().removed_at_enqueue, d.stats().removed_at_dequeue), (2, 0));
        assert!(d.counters().balances(d.len()));
    }
}
