//! A TCP Prague-style scalable controller
//! (draft-briscoe-iccrg-prague-congestion-control-04): the DCTCP response
//! on the L4S path.
//!
//! What is modelled: data is sent ECT(1), the L4S identifier (RFC 9331
//! section 4), so a DualPI2 queue ([`wifitcp_queue`'s `dualpi2`]) puts it in
//! its L queue; the marked fraction `alpha` is DCTCP's EWMA with g = 1/16
//! per observation window of one RTT, and an ECE reduces cwnd once per
//! window by `cwnd alpha / 2` (the draft's section 2.4, the same law as
//! RFC 8257, see [`super::dctcp`]); loss halves as Reno; growth is Reno's
//! one segment per RTT. Needs `[tcp] ecn = "accurate"` at both ends (the
//! per-segment echo standing in for AccECN, see [`crate::ecn`]).
//!
//! Omitted (documented deviations from the draft): the RTT-independence
//! of the additive increase (section 2.3.3's virtual RTT of 25 ms), the
//! classic-ECN-AQM fallback detection (2.3.7), paced chirping and pacing
//! (2.3.5), and the fractional cwnd below 2 segments (2.3.6).
use super::dctcp::Dctcp;
use super::{CcKind, CongestionControl};
use crate::ecn::Ecn;

wifitcp_core::config_table! {
    /// `cc = "prague"`.
    #[serde(deny_unknown_fields)]
    pub struct PragueTable {
        /// EWMA gain g of alpha (1/16).
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::Ex(0.0), wifitcp_core::schema::B::In(1.0)))]
        pub g: f64 = 1.0 / 16.0,
    }
}

impl CcKind for PragueTable {
    fn check(&self) -> Result<(), wifitcp_core::config::ConfigError> {
        super::check_param("g", self.g, self.g > 0.0 && self.g <= 1.0, "must be in (0, 1]")
    }
    fn build(&self) -> Box<dyn CongestionControl> {
        Box::new(prague(self.g))
    }
}

/// Prague: DCTCP's law on ECT(1).
pub fn prague(g: f64) -> Dctcp {
    Dctcp::with(g, "prague", Ecn::Ect1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::{EcnFeedback, Window};
    use wifitcp_core::SimTime;

    #[test]
    fn ect1_and_the_scalable_law() {
        let mut p = prague(1.0 / 16.0);
        assert_eq!(p.name(), "prague");
        assert_eq!(p.ect(), Ecn::Ect1, "the L4S identifier (RFC 9331)");
        // a small marked fraction gives a small reduction (scalable), not a halving
        let mut una = 1;
        for _ in 0..300 {
            let end = una + 20_000;
            for k in 0..20u64 {
                una += 1000;
                p.on_ecn_feedback(&EcnFeedback { now: SimTime::ZERO, acked_bytes: 1000, ece: k == 0, snd_una: una, snd_max: end + 20_000 });
            }
        }
        let w = Window { cwnd: 100_000, ssthresh: u64::MAX, mss: 1000 };
        let ss = p.ssthresh_after_ce(SimTime::ZERO, &w, 100_000);
        assert!(ss > 96_000 && ss < 98_500, "5 % marked: cwnd x (1 - 0.025), got {ss}");
    }
}
