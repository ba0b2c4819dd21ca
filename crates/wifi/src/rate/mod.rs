//! Rate adaptation: which PHY rate a station uses for its next data frame
//! to a receiver, learnt from the outcomes of earlier attempts.
//!
//! A [`RateControl`] is a sans-I/O state machine owned by one station's
//! MAC: the MAC asks [`RateControl::data_rate`] when it builds a data
//! frame (each attempt, retries included) and reports every attempt's
//! outcome with [`RateControl::on_outcome`]. Control frames keep the
//! control-response rate rule (802.11-2020 10.6.6.5) and never ask.
//!
//! Controllers (one file each): [`FixedRate`], [`Arf`] (Kamerman &
//! Monteban 1997), [`Aarf`] (Lacage, Manshaei & Turletti 2004) and
//! [`Minstrel`] (after Linux's mac80211 minstrel).
//!
//! Invariant: a controller returns only rates of the BSS's PHY, and the
//! same sequence of calls gives the same answers (any randomness comes
//! from an `RngStream` the controller was built with).
mod aarf;
mod arf;
mod fixed;
mod minstrel;

pub use aarf::Aarf;
pub use arf::Arf;
pub use fixed::FixedRate;
pub use minstrel::{Minstrel, MinstrelParams, RateInfo};

use crate::mac::MacAddr;
use crate::phy::Rate;
use serde::{Deserialize, Serialize};
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

/// The `phy.rate_control` key: which controller every station uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RateControlKind {
    /// `phy.data_rate_mbps` for every data frame.
    #[default]
    Fixed,
    Arf,
    Aarf,
    Minstrel,
}

impl RateControlKind {
    pub fn is_fixed(&self) -> bool {
        *self == RateControlKind::Fixed
    }
    pub fn name(self) -> &'static str {
        match self {
            RateControlKind::Fixed => "fixed",
            RateControlKind::Arf => "arf",
            RateControlKind::Aarf => "aarf",
            RateControlKind::Minstrel => "minstrel",
        }
    }
}

/// The controller of `kind` for one station: `fixed` sends every frame at
/// `fixed`; the others adapt over `rates` (the PHY's rates), Minstrel
/// weighing them by `timing`'s airtimes and drawing its sample tables from
/// `rng`.
pub fn build(
    kind: RateControlKind,
    fixed: Rate,
    rates: &[Rate],
    timing: &crate::phy::PhyTiming,
    rng: wifitcp_core::RngStream,
) -> Box<dyn RateControl> {
    match kind {
        RateControlKind::Fixed => Box::new(FixedRate(fixed)),
        RateControlKind::Arf => Box::new(Arf::new(rates)),
        RateControlKind::Aarf => Box::new(Aarf::new(rates)),
        RateControlKind::Minstrel => {
            let info: Vec<RateInfo> = rates
                .iter()
                .map(|&rate| RateInfo { rate, frame_1200: timing.tx_time(1200, rate), ack: timing.tx_time(14, rate) })
                .collect();
            Box::new(Minstrel::new(&info, MinstrelParams::default(), rng))
        }
    }
}
