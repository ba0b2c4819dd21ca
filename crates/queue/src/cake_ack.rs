//! CAKE-style TCP ACK filter, implemented from the documented behaviour of
//! the ACK filter of Linux sch_cake (the "sch_cake: Add optional ACK filter"
//! commit message, 2018, and the CAKE paper, Høiland-Jørgensen, Täht &
//! Morton, "Piece of CAKE", IEEE LANMAN 2018). No code was consulted.
//!
//! Documented behaviour (facts carried over):
//! - On every enqueue the filter inspects the packet's own (per-flow)
//!   queue, starting at the head, for an older ACK the new packet makes
//!   redundant; the ACK dropped is always closer to the head than the new
//!   packet.
//! - An ACK is eligible only if it acknowledges fewer bytes than the new
//!   packet, including SACK information, which prevents duplicate ACKs from
//!   being filtered.
//! - Only ACKs whose TCP header options are known not to interfere with
//!   sequence-number logic are dropped.
//! - Conservative mode (default) always keeps at least two redundant ACKs
//!   queued; aggressive mode filters down to a single ACK.
//!
//! Rules as implemented here (`old`: a queued packet; `new`: the arriving
//! packet, which is the queue's tail):
//! 1. `new` is TCP with ACK set and none of SYN, FIN, RST, URG; it may carry
//!    data (a data segment's ACK field makes older pure ACKs redundant too).
//! 2. `old` is a pure ACK: no payload, ACK set, none of SYN, FIN, RST, URG.
//! 3. Same direction of the same connection (4-tuple).
//! 4. Options of both: only timestamps and SACK blocks (NOP/EOL padding is
//!    implicit in our option model); MSS, window scale or SACK-permitted on
//!    either makes `old` ineligible. Timestamps present on both or on
//!    neither; if on both, `old`'s TSval is not newer than `new`'s.
//! 5. ECE and CWR flags equal, and the IP ECN field equal (an ACK carrying
//!    a different congestion signal is not redundant).
//! 6. `new.ack > old.ack` strictly (sequence space). Deviation from CAKE:
//!    CAKE also drops an ACK with the same cumulative ACK whose SACK blocks
//!    are strictly covered by newer ones; here a duplicate ACK is never
//!    removed, whatever its SACK blocks, and neither is the ACK it
//!    duplicates, even after a higher cumulative ACK arrived
//!    ([`crate::tcpack::DupTracker`]; project rule: duplicate ACKs signal
//!    loss and are never filtered, and the sender must count all of them).
//! 7. Every SACK block of `old` is covered by `new`'s cumulative ACK or
//!    SACK blocks; a D-SACK block is never covered
//!    ([`crate::tcpack::sack_covered`]).
//! 8. The window field is not compared (the newer ACK carries the current
//!    window).
//!
//! Modes: with E eligible older ACKs found in the queue, aggressive mode
//! drops all E; conservative mode drops the E-1 oldest and keeps the most
//! recent one, so that (with the new packet) at least two ACKs acknowledging
//! the flow's progress stay queued. When applied at every enqueue this
//! drops one ACK per arriving ACK in steady state in either mode, keeping
//! one (aggressive) or two (conservative) ACKs per flow queued.
use crate::config::{ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::droptail::Fifo;
use crate::occupancy::Occupancy;
use crate::tcpack::{sack_covered, seq_lt, DupTracker, FlowKey};
use serde::{Deserialize, Serialize};
use wifitcp_core::config::KeyType;
use wifitcp_core::schema::Ty;
use wifitcp_core::{DropReason, RngStream, SimTime};
use wifitcp_wire::{Packet, TcpFlags, TcpHeader};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AckFilterMode {
    #[default]
    Off,
    Conservative,
    Aggressive,
}

const NEVER_ON_EITHER: u8 = TcpFlags::SYN | TcpFlags::FIN | TcpFlags::RST | TcpFlags::URG;
const MUST_MATCH: u8 = TcpFlags::ECE | TcpFlags::CWR;

fn options_allowed(t: &TcpHeader) -> bool {
    t.options.mss.is_none() && t.options.window_scale.is_none() && !t.options.sack_permitted
}

/// Whether `new` (an arriving packet) makes `old` (queued before it)
/// redundant under rules 1-8 of the module docs.
pub fn cake_redundant(old: &Packet, new: &Packet) -> bool {
    let (Some(o), Some(n)) = (old.tcp(), new.tcp()) else { return false };
    // rules 1, 2
    if !n.flags.has(TcpFlags::ACK) || n.flags.has(NEVER_ON_EITHER) {
        return false;
    }
    if old.payload_len != 0 || !o.flags.has(TcpFlags::ACK) || o.flags.has(NEVER_ON_EITHER) {
        return false;
    }
    // rule 3
    if FlowKey::of(old) != FlowKey::of(new) {
        return false;
    }
    // rule 4
    if !options_allowed(o) || !options_allowed(n) {
        return false;
    }
    match (o.options.timestamps, n.options.timestamps) {
        (None, None) => {}
        (Some((tv_o, _)), Some((tv_n, _))) if !seq_lt(tv_n, tv_o) => {}
        _ => return false,
    }
    // rule 5
    if o.flags.0 & MUST_MATCH != n.flags.0 & MUST_MATCH || old.ip.ecn() != new.ip.ecn() {
        return false;
    }
    // rules 6, 7
    seq_lt(o.ack, n.ack) && sack_covered(o.ack, &o.options.sack, n.ack, &n.options.sack)
}

/// The filter, applicable to any FIFO whose tail is the packet just
/// enqueued (a whole drop-tail FIFO, or one FQ-CoDel flow queue). It must
/// see every packet enqueued behind it (to track duplicate series).
#[derive(Clone, Debug)]
pub struct AckFilter {
    pub mode: AckFilterMode,
    dups: DupTracker,
}

impl AckFilter {
    pub fn new(mode: AckFilterMode) -> Self {
        AckFilter { mode, dups: DupTracker::default() }
    }

    /// Call right after appending a packet to `queue`: removes the ACKs
    /// made redundant by `queue`'s tail, appending them to `removed` in
    /// queue order. Returns how many were removed.
    pub fn filter(&mut self, queue: &mut Fifo, removed: &mut Vec<Queued>) -> usize {
        if self.mode == AckFilterMode::Off || queue.is_empty() {
            return 0;
        }
        let newest = queue.len() - 1;
        let new = &queue.q[newest].pkt;
        self.dups.observe(new);
        if new.tcp().is_none() {
            return 0;
        }
        let dups = &self.dups;
        let eligible: Vec<usize> =
            (0..newest).filter(|&i| cake_redundant(&queue.q[i].pkt, new) && !dups.protected(&queue.q[i].pkt)).collect();
        let keep = match self.mode {
            AckFilterMode::Conservative => 1,
            _ => 0,
        };
        let n_drop = eligible.len().saturating_sub(keep);
        // remove from the back so earlier indices stay valid
        let mut out: Vec<Queued> =
            eligible[..n_drop].iter().rev().map(|&i| queue.remove(i).expect("index in range")).collect();
        out.reverse();
        removed.extend(out);
        n_drop
    }
}

impl KeyType for AckFilterMode {
    const TY: Ty = Ty::Str;
}

wifitcp_core::config_table! {
    /// `kind = "cake-ack"`.
    #[serde(deny_unknown_fields)]
    pub struct CakeAckConfig {
        /// "conservative", "aggressive", "off".
        ///
        /// The default is CAKE's `ack-filter`; "aggressive" is
        /// `ack-filter-aggressive`.
        pub mode: AckFilterMode = AckFilterMode::Conservative,
    }
}

impl QdiscKind for CakeAckConfig {
    fn build(&self, _: &'static str, capacity: usize, _: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        Ok(Box::new(CakeAck::new(capacity, self.mode)))
    }
}

/// Drop-tail FIFO with the ACK filter applied over the whole FIFO at every
/// enqueue (`kind = "cake-ack"`).
///
/// Order of operations: the arriving packet is appended, the filter runs,
/// and only if the FIFO then exceeds `capacity` is the arriving packet
/// dropped (`QueueFull`). If the filter removed anything the FIFO is back
/// within capacity, so an ACK that made older ones redundant is never itself
/// lost to overflow.
pub struct CakeAck {
    capacity: usize,
    filter: AckFilter,
    fifo: Fifo,
    counters: QueueCounters,
    occ: Occupancy,
}

impl CakeAck {
    pub fn new(capacity: usize, mode: AckFilterMode) -> Self {
        CakeAck {
            capacity,
            filter: AckFilter::new(mode),
            fifo: Fifo::default(),
            counters: QueueCounters::default(),
            occ: Occupancy::default(),
        }
    }
}

impl QueueDisc for CakeAck {
    fn kind(&self) -> &'static str {
        "cake-ack"
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        self.counters.offered(&item);
        item.enqueued_at = now;
        self.fifo.push(item);
        let mut removed = Vec::new();
        self.filter.filter(&mut self.fifo, &mut removed);
        for x in removed {
            self.counters.drop_pkt(dropped, x.pkt, DropReason::AckFiltered);
        }
        if self.fifo.len() > self.capacity {
            let x = self.fifo.remove(self.fifo.len() - 1).expect("non-empty");
            self.counters.drop_pkt(dropped, x.pkt, DropReason::QueueFull);
        }
        self.occ.update(now, self.fifo.len(), self.fifo.bytes());
    }
    crate::disc::fifo_accessors!(with_dequeue);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;

    fn fifo(pkts: Vec<Packet>) -> Fifo {
        let mut f = Fifo::default();
        for p in pkts {
            f.push(q(p));
        }
        f
    }
    fn acks_in(f: &Fifo) -> Vec<u32> {
        f.iter().map(|x| ack_of(&x.pkt)).collect()
    }

    #[test]
    fn aggressive_keeps_one_conservative_keeps_two() {
        let mut removed = Vec::new();
        let mut f = fifo(vec![ack(1, 1000), ack(1, 2000), ack(1, 3000)]);
        AckFilter::new(AckFilterMode::Aggressive).filter(&mut f, &mut removed);
        assert_eq!(acks_in(&f), vec![3000]);
        let mut f = fifo(vec![ack(1, 1000), ack(1, 2000), ack(1, 3000)]);
        AckFilter::new(AckFilterMode::Conservative).filter(&mut f, &mut removed);
        assert_eq!(acks_in(&f), vec![2000, 3000]);
        // one older ACK only: conservative keeps it
        let mut f = fifo(vec![ack(1, 1000), ack(1, 2000)]);
        assert_eq!(AckFilter::new(AckFilterMode::Conservative).filter(&mut f, &mut removed), 0);
        assert_eq!(removed.len(), 3);
    }

    #[test]
    fn sack_block_not_covered_keeps_the_older_ack() {
        let mut removed = Vec::new();
        let f_old = with_sack(ack(1, 1000), &[(5000, 6000)]);
        // newer ACK's SACK covers only [5000, 5500): the older ACK is kept
        let mut f = fifo(vec![f_old.clone(), with_sack(ack(1, 2000), &[(5000, 5500)])]);
        AckFilter::new(AckFilterMode::Aggressive).filter(&mut f, &mut removed);
        assert_eq!(f.len(), 2);
        // covered by a newer block: dropped
        let mut f = fifo(vec![f_old, with_sack(ack(1, 2000), &[(4000, 7000)])]);
        AckFilter::new(AckFilterMode::Aggressive).filter(&mut f, &mut removed);
        assert_eq!(f.len(), 1);
    }

    #[test]
    fn eligibility_rules() {
        let r = |o: Packet, n: Packet| cake_redundant(&o, &n);
        assert!(r(ack(1, 1000), ack(1, 2000)));
        // duplicate ACK: never
        assert!(!r(ack(1, 2000), ack(1, 2000)));
        assert!(!r(with_sack(ack(1, 2000), &[(3000, 4000)]), with_sack(ack(1, 2000), &[(3000, 5000)])));
        // a data segment's ACK makes an older pure ACK redundant, not vice versa
        let mut d = data(1, 7);
        d.tcp_mut().unwrap().ack = 5000;
        assert!(r(ack(1, 1000), d));
        assert!(!r(data(1, 7), ack(1, 9000)));
        // flags
        assert!(!r(with_flags(ack(1, 1000), TcpFlags::ECE), ack(1, 2000)));
        assert!(r(with_flags(ack(1, 1000), TcpFlags::ECE), with_flags(ack(1, 2000), TcpFlags::ECE)));
        assert!(!r(ack(1, 1000), with_flags(ack(1, 2000), TcpFlags::FIN)));
        assert!(!r(with_flags(ack(1, 1000), TcpFlags::URG), ack(1, 2000)));
        // IP ECN field must match
        let mut ce = ack(1, 2000);
        ce.ip.tos = 3;
        assert!(!r(ack(1, 1000), ce));
        // options: timestamps fine (monotone), unknown-to-filter options not
        assert!(r(with_ts(ack(1, 1000), 5), with_ts(ack(1, 2000), 6)));
        assert!(!r(with_ts(ack(1, 1000), 7), with_ts(ack(1, 2000), 6)));
        assert!(!r(with_ts(ack(1, 1000), 5), ack(1, 2000)));
        let mut mss = ack(1, 1000);
        mss.tcp_mut().unwrap().options.mss = Some(1460);
        assert!(!r(mss, ack(1, 2000)));
        // other flow
        assert!(!r(ack(2, 1000), ack(1, 2000)));
    }

    #[test]
    fn other_packets_stay_in_place() {
        let mut removed = Vec::new();
        let mut f = fifo(vec![ack(1, 1000), data(2, 1), ack(2, 50), ack(1, 2000), ack(1, 3000)]);
        AckFilter::new(AckFilterMode::Aggressive).filter(&mut f, &mut removed);
        let left: Vec<(u32, u32)> = f.iter().map(|x| (x.pkt.flow.0, x.pkt.payload_len)).collect();
        assert_eq!(left, vec![(2, 1460), (2, 0), (1, 0)]);
        assert_eq!(removed.iter().map(|x| ack_of(&x.pkt)).collect::<Vec<_>>(), vec![1000, 2000]);
    }

    #[test]
    fn fifo_discipline_filters_and_never_loses_the_newer_ack_to_overflow() {
        let mut c = CakeAck::new(2, AckFilterMode::Aggressive);
        let mut dr = Vec::new();
        c.enqueue(ms(0), q(data(2, 1)), &mut dr);
        c.enqueue(ms(0), q(ack(1, 1000)), &mut dr);
        // full, but the new ACK makes the queued one redundant: it fits
        c.enqueue(ms(1), q(ack(1, 2000)), &mut dr);
        assert_eq!(count(&dr, DropReason::AckFiltered), 1);
        assert_eq!(count(&dr, DropReason::QueueFull), 0);
        c.enqueue(ms(2), q(data(2, 1461)), &mut dr);
        assert_eq!(count(&dr, DropReason::QueueFull), 1);
        let out = drain(&mut c, ms(3), &mut dr);
        assert_eq!(out.len(), 2);
        assert_eq!(ack_of(&out[1].pkt), 2000);
        assert!(c.counters().balances(c.len()));
    }
}
