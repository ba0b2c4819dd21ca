//! PHY timing (IEEE 802.11-2020): frame airtime per PHY and rate, the
//! interframe spaces, and the control-response rate rule.
//!
//! Invariants: every duration is an integer number of nanoseconds; the
//! values of a [`PhyTiming`] are fixed for a run; any value may be
//! overridden by the scenario (see [`PhyOverrides`]), and overridden values
//! are used everywhere (airtime, IFS, EIFS, timeouts) consistently.
pub mod he;
pub mod he_mu;
pub mod ht;
pub mod ppdu;
mod rates;
mod timing;
pub mod vht;

pub use ppdu::{ChannelWidth, TxVector};
pub use rates::{Modulation, PhyStandard, Rate};
pub use timing::{GiConfig, HeFormatConfig, PhyConfig, PhyOverrides, PhyTiming, Preamble, SlotKind, TimingModel};
