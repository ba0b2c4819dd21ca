//! The frame exchange rules every MAC shares (IEEE 802.11-2020 10.3.2):
//! waiting for a response, the receiver's duplicate filter, and RTS/CTS
//! protection. A MAC decides what to send and when it may (channel access,
//! `mac/access`; or a coordinator's grant); these rules decide how an
//! exchange proceeds once it has begun.
//!
//! Pieces, one file each:
//! - `wait.rs`: [`ResponseWait`], the ACK/CTS/BlockAck timeout and the
//!   PHY-RXSTART rule that decides whether a frame can be the response
//!   (10.3.2.9);
//! - `dup.rs`: [`RxCache`], the receive cache of 10.3.2.14 for MPDUs
//!   outside a BlockAck agreement;
//! - `protect.rs`: RTS/CTS (10.3.2.7, 10.3.2.8): when a PSDU needs it, the
//!   Duration fields of the RTS and the CTS, and when a station answers an
//!   RTS;
//! - `retry.rs`: [`RetryCounts`] and [`RetryLimit`], the short and long
//!   retry counts of 10.3.4.4 and what a limit counts;
//! - `receipts.rs`: [`Receipts`], the transmitter's side of the medium's
//!   verdict on its data frames: No Ack losses (9.2.4.5.4) and the MSDUs
//!   that reached the receiver although their acknowledgements were lost;
//! - `sequence.rs`: [`Sequence`], the exchange in progress (the frame on
//!   the air and what follows it by [`After::of`], the wait, the frame due
//!   after SIFS, the frame an RTS protects, the exchange timer), and the
//!   control frames (`control_frame`, `rts_for`) every MAC sends.
//!
//! Invariants: a response is accepted only while a wait is open, only of
//! the kind awaited and only if its reception started within the timeout;
//! a wait ends exactly once (accepted, failed by another frame, or timed
//! out); a received MPDU is delivered at most once; an MSDU is discarded
//! at the retry limit once, after exactly `limit` failed attempts.
mod dup;
mod protect;
mod receipts;
mod retry;
mod sequence;
#[cfg(test)]
mod tests;
mod wait;

pub use dup::{RxCache, RxVerdict};
pub use protect::{answers_rts, cts_duration, needs_rts, rts_duration, RTS_OFF};
pub use receipts::{Receipts, SEVERAL};
pub use retry::{Count, RetryCounts, RetryLimit};
pub use sequence::{control_frame, rts_for, After, Phase, Sequence};
pub use wait::ResponseWait;
