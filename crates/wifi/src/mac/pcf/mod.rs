//! The point coordination function (802.11-2016 clause 10.4; 802.11-2020
//! keeps PCF only as obsolete, so 802.11-2016 is the reference text) and
//! the multi-poll hybrid of paper 000 built on it.
//!
//! - [`Coordinator`] (`coordinator.rs`): the AP's MAC. Its DCF serves the
//!   contention period (CP); it sends a beacon at every TBTT
//!   (`mac::beacon`); with a CFP configured, every `cfp_period`-th beacon
//!   carries the CF Parameter Set and starts a contention-free period
//!   (CFP) of at most CFPMaxDuration, in which it polls the stations of its
//!   [`PollList`] (`mac/sched/activity.rs`) through a
//!   [`PollScheduler`](crate::mac::sched::PollScheduler) and ends the CFP with CF-End.
//! - [`CfStation`] (`station.rs`): a CF-pollable station. Its DCF serves
//!   the CP; the beacon's CFPDurRemaining sets its NAV (10.4.3.3), a
//!   CF-End resets it; polled, it answers after SIFS with Data (+CF-Ack),
//!   CF-Ack or Null (10.4.4.1).
//! - `Shadow`: what the wrapped DCF senses. The wrappers send frames the
//!   DCF did not make (beacons, polls, answers to polls) and, at the AP,
//!   hold the DCF off for the whole CFP; the DCF sees the medium busy then,
//!   exactly as if another station sent, so its backoff freezes and resumes
//!   after DIFS (10.3.4.3) and nothing of the DCF changes.
//!
//! Frame exchange rules used, each from 10.4 of 802.11-2016:
//! - the CFP begins with the beacon at (or after, if the medium is busy)
//!   TBTT, sent after PIFS of idle medium; the PC sends its first frame
//!   SIFS after the beacon (10.4.2, 10.4.3.1);
//! - a polled station answers SIFS after the poll; the PC sends its next
//!   frame SIFS after the answer, or PIFS after its own frame if no answer
//!   starts (10.4.3.1);
//! - the CF-Ack bit of the PC's next frame (or of CF-End+CF-Ack)
//!   acknowledges the station's data frame; a station's Data+CF-Ack or
//!   CF-Ack acknowledges the PC's data frame (10.4.4.1); a frame not
//!   acknowledged is retransmitted later (in the next poll, or by the DCF
//!   in the CP), keeping its sequence number;
//! - frames sent in the CFP carry Duration 0 here: the standard's value
//!   32768 tells stations not to update the NAV, which the beacon set for
//!   the whole CFP;
//! - the PC ends the CFP with CF-End (CF-End+CF-Ack if it owes an
//!   acknowledgement) when the next poll exchange would not fit before
//!   CFPMaxDuration ends, when the list is empty, or when a whole round of
//!   the list brought nothing in either direction (the standard lets the PC
//!   end the CFP early, 10.4.3.2; when to do so is the PC's choice).
//!
//! Deviations and choices, also at the code:
//! - CFP frames go at the PHY's data rate (`phy.data_rate_mbps`); no rate
//!   control in the CFP;
//! - 802.11n: frames of type Data (data, Data+CF-Poll, CF-Poll, CF-Ack,
//!   Null) are single MPDUs in HT-mixed PPDUs at the MCS
//!   (`PhyTiming::data_ppdu_time`, 19.4.3), as are the DCF's data frames in
//!   the CP; ACK, CF-End and the beacon go at legacy rates. A model of the
//!   paper's hardware (its multi-poll is its own protocol on 802.11n
//!   devices), not a configuration the standard describes (802.11 makes an
//!   HT station a QoS station, polled by the HCF): it keeps the HT PPDU
//!   and leaves out what needs QoS Data, aggregation under a BlockAck
//!   agreement. A-MPDU under polling is not modelled;
//! - the PC polls each station with at most one MSDU per poll in each
//!   direction (no CF-Poll bursts); the downlink MSDU is the polled
//!   station's oldest in the AP's queue (`Demand { ra }`: drop-tail and
//!   ack-first serve a named receiver; a discipline that does not leaves
//!   the CFP without downlink data but the one MSDU the DCF held);
//! - the cursor of the polling list carries over from one CFP to the next,
//!   so a CFP too short for the whole list continues where the last ended;
//!   a CFP whose beacon found the DCF holding an MSDU starts the round at
//!   that MSDU's receiver (if listed), so that it goes with the first poll.
//!
//! Carrier sense per station (hidden nodes, `medium::sense`) needs nothing
//! here: every CF-pollable station that decodes the beacon keeps silent
//! for the CFP by its NAV, whoever it hears; one that missed the beacon
//! (the medium failed it) senses only the frames it hears, and may contend
//! in the CFP while a station hidden from it answers a poll, as real
//! stations would (`polling_in_a_cell_with_hidden_stations` in the tests).
//!
//! Invariants: at most one frame of the wrapper or its DCF is on the air;
//! every MSDU lent by the DCF to the CFP returns to it, is acknowledged, or
//! is dropped at the retry limit; no CFP outlasts CFPMaxDuration after its
//! TBTT, so it ends before the next TBTT.
mod coordinator;
mod station;
#[cfg(test)]
mod tests;

pub use crate::mac::sched::{ActivityConfig, PollList};
pub use coordinator::{CfpConfig, Coordinator, PcfStats};
pub use station::CfStation;

use super::dcf::Dcf;
use super::frame::MacSink;
use wifitcp_core::SimTime;

/// What the wrapped DCF senses (module docs): the medium's carrier sense,
/// or the wrapper's own frame, or the AP's CFP.
#[derive(Clone, Debug, Default)]
struct Shadow {
    /// The medium's carrier sense (`on_cca`).
    medium_busy: bool,
    /// A frame of the wrapper is on the air.
    own: bool,
    /// The AP holds its DCF off for the CFP.
    cfp: bool,
    /// What the DCF was last told.
    shown: bool,
    /// When the medium (the medium's carrier sense and our own frames) last
    /// turned idle.
    idle_since: SimTime,
}

impl Shadow {
    fn busy(&self) -> bool {
        self.medium_busy || self.own
    }
    /// The medium's carrier sense changed (`Mac::on_cca` of both
    /// wrappers): note it and tell the DCF if what it senses changed.
    fn on_medium(&mut self, now: SimTime, busy: bool, dcf: &mut Dcf, out: &mut impl MacSink) {
        self.medium_busy = busy;
        if !busy {
            self.idle_since = now;
        }
        self.update(now, dcf, out);
    }
    /// Tell the DCF if what it senses changed.
    fn update(&mut self, now: SimTime, dcf: &mut Dcf, out: &mut impl MacSink) {
        let b = self.medium_busy || self.own || self.cfp;
        if b != self.shown {
            self.shown = b;
            dcf.on_cca(now, b, out);
        }
    }
}
