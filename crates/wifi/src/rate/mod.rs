//! Rate adaptation: which PHY rate a station uses for its next data frame
//! to a receiver, learnt from the outcomes of earlier attempts.
//!
//! A [`RateControl`] is a sans-I/O state machine owned by one station's
//! MAC: the MAC asks [`RateControl::data_rate`] when it builds a data
//! frame (each attempt, retries included) and reports every attempt's
//! outcome with [`RateControl::on_outcome`]. Control frames keep the
//! control-response rate rule (802.11-2020 10.6.6.5) and never ask.
//!
//! Invariant: a controller returns only rates of the BSS's PHY, and the
//! same sequence of calls gives the same answers (any randomness comes
//! from an `RngStream` the controller was built with).
mod fixed;

pub use fixed::FixedRate;

use crate::mac::MacAddr;
use crate::phy::Rate;
use wifitcp_core::SimTime;

/// Outcome of one transmission attempt of a data frame (or of an
/// aggregate's MPDUs, counted individually).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The rate the attempt used.
    pub rate: Rate,
    /// MPDUs sent in the attempt (1 without aggregation).
    pub sent: u32,
    /// MPDUs acknowledged (ACK or BlockAck bitmap); 0 when the ACK or
    /// BlockAck timed out.
    pub acked: u32,
    /// Attempt number of the frame (0 = first transmission).
    pub retry: u32,
}

/// Chooses the data rate per receiver (ARF, AARF, Minstrel, fixed...).
pub trait RateControl: Send {
    /// A short name (`fixed`, `arf`, `aarf`, `minstrel`), used in results.
    fn kind(&self) -> &'static str;
    /// The rate for the next data frame (or retry) of `bytes` to `ra`.
    fn data_rate(&mut self, now: SimTime, ra: MacAddr, bytes: u32) -> Rate;
    /// The outcome of an attempt made at `now` to `ra`.
    fn on_outcome(&mut self, now: SimTime, ra: MacAddr, outcome: Outcome);
}
