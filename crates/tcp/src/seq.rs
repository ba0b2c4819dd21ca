//! Sequence-number arithmetic.
//!
//! On the wire, sequence numbers are 32-bit and compared with serial-number
//! arithmetic modulo 2^32 (RFC 9293 section 3.4, RFC 1982): `a < b` iff the
//! signed 32-bit difference `a - b` is negative, which is meaningful while the
//! two values are less than 2^31 apart.
//!
//! Inside a connection, positions are kept as 64-bit offsets from the initial
//! sequence number ("absolute" sequence numbers: ISN = 0, the SYN occupies
//! offset 0, the first data byte offset 1). They never wrap during a run, so
//! the scoreboard and the reassembly queue use plain integer order. Each
//! arriving 32-bit value is converted with [`SeqSpace::unwrap`], which picks
//! the 64-bit offset nearest to a reference point the connection knows (for
//! example `snd_una` or `rcv_nxt`) using the serial difference; outgoing
//! offsets are converted with [`SeqSpace::wire`]. The conversion is exact as
//! long as the value lies within 2^31 bytes of the reference, which TCP's
//! window (at most 2^30 bytes with window scaling, RFC 7323 2.3) guarantees.

/// `a < b` in serial arithmetic.
pub fn seq_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}
/// `a <= b` in serial arithmetic.
pub fn seq_le(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) <= 0
}
/// `a > b` in serial arithmetic.
pub fn seq_gt(a: u32, b: u32) -> bool {
    seq_lt(b, a)
}
/// `a >= b` in serial arithmetic.
pub fn seq_ge(a: u32, b: u32) -> bool {
    seq_le(b, a)
}

/// The mapping between one direction's 32-bit wire sequence numbers and
/// 64-bit offsets from its initial sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqSpace {
    pub isn: u32,
}

impl SeqSpace {
    pub fn new(isn: u32) -> Self {
        SeqSpace { isn }
    }
    /// Wire value of absolute offset `abs`.
    pub fn wire(self, abs: u64) -> u32 {
        self.isn.wrapping_add(abs as u32)
    }
    /// The absolute offset of wire value `w` nearest to `reference`
    /// (serial difference, RFC 1982 section 3.2), or `None` if that offset
    /// would lie before the ISN.
    pub fn unwrap(self, w: u32, reference: u64) -> Option<u64> {
        let ref_wire = self.wire(reference);
        let d = w.wrapping_sub(ref_wire) as i32 as i64;
        let abs = reference as i64 + d;
        if abs < 0 {
            None
        } else {
            Some(abs as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_comparisons_wrap() {
        assert!(seq_lt(1, 2));
        assert!(seq_lt(u32::MAX, 0));
        assert!(seq_lt(u32::MAX - 10, 5));
        assert!(seq_gt(5, u32::MAX - 10));
        assert!(seq_le(7, 7) && seq_ge(7, 7));
        assert!(!seq_lt(7, 7));
        // 2^31 - 1 apart: still ordered
        assert!(seq_lt(0, 0x7fff_ffff));
    }

    #[test]
    fn unwrap_round_trips_across_the_wrap() {
        let sp = SeqSpace::new(u32::MAX - 100);
        for abs in [0u64, 1, 100, 101, 102, 5_000, (1 << 32) + 7, (3 << 32) + 12_345] {
            let w = sp.wire(abs);
            // any reference within 2^31 recovers it
            for r in [abs.saturating_sub(1 << 30), abs, abs + (1 << 30)] {
                assert_eq!(sp.unwrap(w, r), Some(abs), "abs {abs} ref {r}");
            }
        }
    }

    #[test]
    fn unwrap_before_isn_is_none() {
        let sp = SeqSpace::new(1000);
        assert_eq!(sp.unwrap(999, 0), None);
        assert_eq!(sp.unwrap(999, 10), None);
        assert_eq!(sp.unwrap(1000, 10), Some(0));
    }
}
