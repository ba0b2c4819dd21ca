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
/// Largest window of a compressed BlockAck bitmap (9.3.1.8.3: 64 bits).
pub const MAX_WINDOW: u16 = 64;

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
