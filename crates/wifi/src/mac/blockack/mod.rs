//! Immediate BlockAck under an HT/QoS BlockAck agreement (IEEE 802.11-2020
//! 10.25): the originator's transmit window and retransmission scoreboard,
//! and the recipient's scoreboard and receive reordering buffer. Both are
//! plain state machines over 12-bit sequence numbers; the MAC that owns an
//! agreement feeds them MPDUs, BlockAcks, timeouts and BlockAckReqs.
//!
//! Invariants (tested, also under random loss by a property test):
//! - the recipient passes MSDUs up in increasing sequence-number order,
//!   each at most once;
//! - every MPDU the originator accepted is, at any time, exactly one of:
//!   outstanding (awaiting acknowledgement or retransmission), acknowledged,
//!   or dropped after its retry limit; and the recipient passes up every
//!   acknowledged MPDU and none that the originator dropped unless it had
//!   in fact received it;
//! - the originator sends no sequence number at or beyond WinStartO +
//!   WinSizeO, so with equal window sizes the recipient never has to skip
//!   a hole that the originator has not given up on.
//!
//! Sequence numbers compare modulo 2^12 (10.25.6.2: "SN1 < SN2 when
//! 0 < (SN2 - SN1) mod 4096 < 2048").
mod originator;
mod recipient;

pub use originator::{BaOutcome, Originator};
pub use recipient::Recipient;

/// Sequence-number space (9.2.4.4.2).
pub const SN_MODULO: u16 = 4096;
/// Largest window of a compressed BlockAck bitmap: 64 bits before HE
/// (9.3.1.8.3), 256 bits under an HE agreement (802.11ax-2021 9.3.1.8.2,
/// the BlockAck Starting Sequence Control's Fragment Number subfield
/// selecting the 256-bit bitmap; 10.25.2 buffer sizes up to 256).
pub const MAX_WINDOW: u16 = 256;

/// A compressed BlockAck bitmap: bit `i` acknowledges sequence number
/// SSN + i; 256 bits, of which a 64-bit BlockAck uses the first word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct Bitmap(pub [u64; 4]);

impl Bitmap {
    /// Every bit set (No Ack exchanges settle as if all were acknowledged).
    pub const FULL: Bitmap = Bitmap([u64::MAX; 4]);
    /// A 64-bit bitmap.
    pub const fn from_u64(x: u64) -> Bitmap {
        Bitmap([x, 0, 0, 0])
    }
    /// Bit `i` (false beyond 255).
    pub fn bit(&self, i: u16) -> bool {
        i < 256 && self.0[usize::from(i / 64)] >> (i % 64) & 1 == 1
    }
    /// Set bit `i` (< 256).
    pub fn set(&mut self, i: u16) {
        self.0[usize::from(i / 64)] |= 1 << (i % 64);
    }
    pub fn count_ones(&self) -> u32 {
        self.0.iter().map(|w| w.count_ones()).sum()
    }
    /// The first 64 bits (all of a 64-bit BlockAck's bitmap).
    pub fn low(&self) -> u64 {
        self.0[0]
    }
}

/// `a + n` modulo 2^12.
pub fn sn_add(a: u16, n: u16) -> u16 {
    (a + n) % SN_MODULO
}

/// `(b - a)` modulo 2^12: how far `b` is ahead of `a`.
pub fn sn_dist(a: u16, b: u16) -> u16 {
    (b + SN_MODULO - a) % SN_MODULO
}

/// `a < b` in the sense of 10.25.6.2.
pub fn sn_lt(a: u16, b: u16) -> bool {
    let d = sn_dist(a, b);
    d > 0 && d < SN_MODULO / 2
}

#[cfg(test)]
mod tests;
