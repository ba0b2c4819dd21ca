//! Access schedulers: who may transmit when, on top of channel access
//! (`mac/access`) and the frame exchange rules (`mac/exchange`).
//!
//! Contention (the DCF, EDCA) needs no scheduler object: each station's
//! backoff entities decide. AP-scheduled access hands out transmit
//! opportunities instead: the AP (the hybrid coordinator, 10.23.3) takes
//! the medium after PIFS and grants a station a TXOP with a QoS CF-Poll; the
//! station uses it as it would a TXOP won by contention (an A-MPDU with
//! immediate BlockAck, more exchanges while they fit). A [`PollScheduler`]
//! decides whom the AP grants next and for how long; the HCF's polling
//! (`mac/hcf/poll.rs`) and the PCF's point coordinator
//! (`mac/pcf/coordinator.rs`, where a grant is one CF-Poll and the frame
//! exchange it starts) carry the grants out.
//!
//! Schedulers, one file each:
//! - `list.rs`: [`ListScheduler`], a polling list in order, each listed
//!   station once per service period (the HCF) or round after round until
//!   the period ends (the PCF's CFP);
//! - `activity.rs`: [`PollList`], the list: every associated station
//!   (round robin), or the stations whose traffic crosses packet-rate and
//!   byte-rate thresholds (the multi-poll activity list of paper 000).
//!
//! - `mu.rs`: the [`MultiUserScheduler`] of an 802.11ax AP (OFDMA): per
//!   TXOP won, single user, a downlink HE MU PPDU or a Basic Trigger, to
//!   whom on which resource unit; [`RoundRobinMu`] is ns-3's round robin.
mod activity;
mod list;
mod mu;

pub use activity::{ActivityConfig, PollList};
pub use list::{ListScheduler, Rounds};
pub use mu::{MuAlloc, MuTx, MuView, MultiUserScheduler, RoundRobinConfig, RoundRobinMu};

use crate::mac::frame::MacAddr;
use wifitcp_core::{SimDur, SimTime};

/// A transmit opportunity granted to one station.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grant {
    pub sta: MacAddr,
    /// TXOP limit carried by the QoS CF-Poll (9.2.4.5.3, in units of 32 us
    /// on the air; here in ns).
    pub txop: SimDur,
}

/// How a granted TXOP was used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Usage {
    /// MSDU bytes the station sent in it.
    pub bytes: u64,
    /// It answered with a QoS Null: nothing to send.
    pub empty: bool,
}

/// Whom the AP grants transmit opportunities, in what order (module docs).
pub trait PollScheduler {
    /// A service period begins at `now` (the AP starts polling).
    fn begin(&mut self, now: SimTime);
    /// The next grant of this service period, `None` when it is over (the
    /// same grant until `done`: a coordinator may look one grant ahead).
    fn next(&mut self, now: SimTime) -> Option<Grant>;
    /// The grant was carried out: a polled TXOP when the AP regained the
    /// medium; a PCF CF-Poll (one frame exchange) when the poll went out.
    fn done(&mut self, now: SimTime, g: Grant, u: Usage);
    /// The AP holds downlink data for `sta`: start the period's grants
    /// there if the scheduler may (the PCF piggybacks that MSDU on the
    /// poll). Default: ignored.
    fn prefer(&mut self, _sta: MacAddr) {}
    /// A data frame of `bytes` MSDU bytes to or from `sta` (activity).
    fn observe(&mut self, now: SimTime, sta: MacAddr, bytes: u32);
    /// Stations on the list now (results).
    fn listed(&self) -> usize;
    /// Joins and leaves of the list so far (results).
    fn joins_leaves(&self) -> (u64, u64);
}
