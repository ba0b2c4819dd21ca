//! TCP facts shared by the ACK-aware disciplines: the directional 4-tuple,
//! sequence-space comparison (RFC 9293 section 3.4, modulo 2^32), flag
//! classes and SACK-coverage of one ACK by another (RFC 2018 section 3).
use std::collections::{BTreeMap, VecDeque};
use std::net::Ipv4Addr;
use wifitcp_wire::{Packet, SackBlock, TcpFlags, TcpHeader};

/// One direction of a TCP connection: (source, destination) address/port.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct FlowKey {
    pub src: Ipv4Addr,
    pub sport: u16,
    pub dst: Ipv4Addr,
    pub dport: u16,
}

impl FlowKey {
    /// The directional 4-tuple of a TCP packet; `None` for UDP.
    pub fn of(p: &Packet) -> Option<FlowKey> {
        let t = p.tcp()?;
        Some(FlowKey { src: p.ip.src, sport: t.src_port, dst: p.ip.dst, dport: t.dst_port })
    }
    /// The connection regardless of direction, and which side sent this
    /// direction (0: the lower (address, port) endpoint, 1: the other).
    pub fn connection(self) -> (ConnKey, usize) {
        let a = (self.src, self.sport);
        let b = (self.dst, self.dport);
        if a <= b {
            (ConnKey { lo: a, hi: b }, 0)
        } else {
            (ConnKey { lo: b, hi: a }, 1)
        }
    }
}

/// A TCP connection identified by its two endpoints in canonical order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct ConnKey {
    pub lo: (Ipv4Addr, u16),
    pub hi: (Ipv4Addr, u16),
}

/// `a < b` in sequence space.
pub fn seq_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}
/// `a <= b` in sequence space.
pub fn seq_le(a: u32, b: u32) -> bool {
    a == b || seq_lt(a, b)
}

/// Flags that make a pure ACK carry more than a cumulative acknowledgment:
/// connection control (SYN, FIN, RST), urgent data (URG) and the ECN
/// signals (ECE, CWR; RFC 3168 section 6.1). ACK filters never remove an
/// ACK carrying any of them (paper 001 section III: "TCP ACKs with flags
/// set ... are not filtered").
pub const SIGNAL_FLAGS: u8 =
    TcpFlags::SYN | TcpFlags::FIN | TcpFlags::RST | TcpFlags::URG | TcpFlags::ECE | TcpFlags::CWR;

/// A pure ACK (no payload, ACK set) without any [`SIGNAL_FLAGS`]: a
/// candidate for filtering as far as flags go.
pub fn is_plain_ack(p: &Packet) -> bool {
    match p.tcp() {
        Some(t) => p.payload_len == 0 && t.flags.has(TcpFlags::ACK) && !t.flags.has(SIGNAL_FLAGS),
        None => false,
    }
}

/// The TCP header of a pure ACK, if `p` is one (`Packet::is_pure_tcp_ack`).
pub fn pure_ack(p: &Packet) -> Option<&TcpHeader> {
    if p.is_pure_tcp_ack() {
        p.tcp()
    } else {
        None
    }
}

/// Whether every byte the SACK blocks `old` report is also acknowledged by
/// an ACK with cumulative `new_ack` and SACK blocks `new` (RFC 2018 section
/// 3: bytes below the cumulative ACK are acknowledged; SACK blocks report
/// received ranges above it). A D-SACK block (RFC 2883: a block at or
/// below its own ACK's cumulative point, `old_ack`) reports a duplicate, an
/// event the newer ACK does not carry: never covered.
pub fn sack_covered(old_ack: u32, old: &[SackBlock], new_ack: u32, new: &[SackBlock]) -> bool {
    old.iter().all(|b| {
        if seq_le(b.right, old_ack) || seq_lt(b.left, old_ack) {
            return false; // D-SACK
        }
        // walk [max(left, new_ack), right) through the union of `new`
        let mut cur = if seq_lt(b.left, new_ack) { new_ack } else { b.left };
        let mut progressed = true;
        while seq_lt(cur, b.right) && progressed {
            progressed = false;
            for nb in new {
                if seq_le(nb.left, cur) && seq_lt(cur, nb.right) {
                    cur = nb.right;
                    progressed = true;
                }
            }
        }
        !seq_lt(cur, b.right)
    })
}

/// Paper 000 section V / common rule of the ACK filters here: the newer pure
/// ACK `new` makes the older pure ACK `old` (queued earlier, same direction
/// of the same connection) redundant if
/// - `old` is a plain ACK (no payload, no SYN/FIN/RST/URG/ECE/CWR),
/// - `new` acknowledges strictly more: `new.ack > old.ack` in sequence
///   space. A duplicate ACK (same ack number) is never redundant: it
///   signals loss to the sender (RFC 5681 section 3.2),
/// - every SACK block of `old` is covered by `new` ([`sack_covered`]).
///
/// The window field is not compared: `new` carries the receiver's current
/// window, which supersedes the older value.
pub fn makes_redundant(old: &Packet, new: &Packet) -> bool {
    if !is_plain_ack(old) || FlowKey::of(old) != FlowKey::of(new) {
        return false;
    }
    let (Some(o), Some(n)) = (old.tcp(), new.tcp()) else { return false };
    if !n.flags.has(TcpFlags::ACK) || !seq_lt(o.ack, n.ack) {
        return false;
    }
    sack_covered(o.ack, &o.options.sack, n.ack, &n.options.sack)
}

/// How many duplicated ack numbers a [`DupTracker`] remembers per flow.
const DUP_MEMORY: usize = 8;

/// Remembers, per flow direction, which ack numbers were duplicated, so
/// that filters can leave whole duplicate series alone.
///
/// A duplicate ACK (RFC 5681 section 2) is a pure ACK whose ack number
/// equals the highest one seen so far in its direction. The filters here
/// never remove an ACK whose ack number was duplicated: neither the
/// duplicates nor the original they repeat, so the sender counts exactly
/// the duplicate ACKs the receiver sent (removing the original would turn
/// the first duplicate into a new ACK and lower the count by one).
#[derive(Clone, Debug, Default)]
pub struct DupTracker {
    flows: BTreeMap<FlowKey, (u32, VecDeque<u32>)>,
}

impl DupTracker {
    /// Observe an arriving packet; returns whether it is a duplicate ACK.
    pub fn observe(&mut self, p: &Packet) -> bool {
        let (Some(k), Some(t)) = (FlowKey::of(p), p.tcp()) else { return false };
        if !t.flags.has(TcpFlags::ACK) {
            return false;
        }
        match self.flows.get_mut(&k) {
            None => {
                self.flows.insert(k, (t.ack, VecDeque::new()));
                false
            }
            Some((last, dups)) => {
                if t.ack == *last && p.payload_len == 0 && !t.flags.has(TcpFlags::SYN | TcpFlags::FIN | TcpFlags::RST) {
                    if dups.back() != Some(&t.ack) {
                        dups.push_back(t.ack);
                        if dups.len() > DUP_MEMORY {
                            dups.pop_front();
                        }
                    }
                    true
                } else {
                    if seq_lt(*last, t.ack) {
                        *last = t.ack;
                    }
                    false
                }
            }
        }
    }
    /// Whether `p`'s ack number belongs to a duplicate series of its flow.
    pub fn protected(&self, p: &Packet) -> bool {
        let (Some(k), Some(t)) = (FlowKey::of(p), p.tcp()) else { return false };
        self.flows.get(&k).is_some_and(|(_, d)| d.contains(&t.ack))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;

    #[test]
    fn sequence_space_wraps() {
        assert!(seq_lt(u32::MAX - 10, 5));
        assert!(!seq_lt(5, u32::MAX - 10));
        assert!(seq_le(7, 7));
    }

    #[test]
    fn sack_coverage() {
        let b = |l, r| SackBlock { left: l, right: r };
        // covered by the cumulative ACK
        assert!(sack_covered(100, &[b(200, 300)], 300, &[]));
        // covered by a union of newer blocks
        assert!(sack_covered(100, &[b(200, 300)], 150, &[b(180, 250), b(250, 400)]));
        // a gap [250, 260) is not covered
        assert!(!sack_covered(100, &[b(200, 300)], 150, &[b(180, 250), b(260, 400)]));
        // D-SACK block below the old cumulative ACK is never covered
        assert!(!sack_covered(100, &[b(50, 80)], 300, &[]));
    }

    #[test]
    fn redundancy_rule() {
        let a1 = ack(1, 1000);
        let a2 = ack(1, 2000);
        assert!(makes_redundant(&a1, &a2));
        assert!(!makes_redundant(&a2, &a1));
        // duplicate ACK: never
        assert!(!makes_redundant(&ack(1, 2000), &ack(1, 2000)));
        // other flow: never
        assert!(!makes_redundant(&ack(2, 1000), &a2));
        // flagged older ACK: never
        assert!(!makes_redundant(&with_flags(ack(1, 1000), TcpFlags::ECE), &a2));
        // older SACK info not covered: kept
        let old = with_sack(ack(1, 1000), &[(3000, 4000)]);
        assert!(!makes_redundant(&old, &ack(1, 2000)));
        assert!(makes_redundant(&old, &with_sack(ack(1, 2000), &[(3000, 5000)])));
    }

    #[test]
    fn connection_key_is_direction_free() {
        let f = FlowKey::of(&ack(1, 1)).unwrap();
        let r = FlowKey { src: f.dst, sport: f.dport, dst: f.src, dport: f.sport };
        assert_eq!(f.connection().0, r.connection().0);
        assert_ne!(f.connection().1, r.connection().1);
    }

    #[test]
    fn dup_tracker_protects_whole_series() {
        let mut d = DupTracker::default();
        let (a1, a2, a2d, a3) = (ack(1, 1000), ack(1, 2000), ack(1, 2000), ack(1, 3000));
        assert!(!d.observe(&a1));
        assert!(!d.observe(&a2));
        assert!(!d.protected(&a2));
        assert!(d.observe(&a2d));
        assert!(d.protected(&a2) && d.protected(&a2d));
        assert!(!d.observe(&a3));
        assert!(!d.protected(&a1) && !d.protected(&a3));
        // a data segment with the same ack number is not a duplicate ACK
        let mut seg = data(1, 5);
        seg.tcp_mut().unwrap().ack = 3000;
        assert!(!d.observe(&seg));
        assert!(!d.protected(&a3));
    }
}
