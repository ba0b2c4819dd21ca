//! DCTCP (RFC 8257): Reno window growth with a reduction proportional to
//! the fraction of ECN-marked bytes.
//!
//! - The sender estimates the marked fraction per observation window of
//!   about one RTT (RFC 8257 section 3.3): bytes acknowledged and bytes
//!   acknowledged by ACKs with ECE are counted; when `snd_una` passes the
//!   window's end (the `snd_max` of its start), `alpha = (1 - g) alpha +
//!   g M` with `M = marked / acked` and `g = 1/16`, and a new window starts.
//!   `alpha` starts at 1 (3.3: "SHOULD be initialized to 1").
//! - On an ECE (once per window of data, the connection's RFC 3168 rule,
//!   see [`crate::ecn`]): `cwnd = cwnd (1 - alpha / 2)` (3.4), floored at
//!   2 SMSS; the connection sets cwnd to it without retransmitting.
//! - On loss: as Reno (3.4: "react to loss ... the same as conventional TCP").
//! - Growth: Reno's ([`super::reno`]).
//! - The per-ACK marked-byte count needs the receiver's per-segment echo:
//!   run both ends with `[tcp] ecn = "accurate"` (RFC 8257 3.2, see
//!   [`crate::ecn`]). With `ecn = "classic"` ECE stays set until CWR and
//!   M is overestimated; with `ecn = "off"` DCTCP is Reno.
use super::reno::Reno;
use super::{half_flight, AckInfo, CcEvent, CcKind, CcTraceState, CongestionControl, EcnFeedback, LossKind, Window};
use crate::ecn::Ecn;
use wifitcp_core::SimTime;

wifitcp_core::config_table! {
    /// `cc = "dctcp"` (RFC 8257).
    #[serde(deny_unknown_fields)]
    pub struct DctcpTable {
        /// EWMA gain g of alpha (RFC 8257 3.3: 1/16).
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::Ex(0.0), wifitcp_core::schema::B::In(1.0)))]
        pub g: f64 = 1.0 / 16.0,
    }
}

impl CcKind for DctcpTable {
    fn check(&self) -> Result<(), wifitcp_core::config::ConfigError> {
        super::check_param("g", self.g, self.g > 0.0 && self.g <= 1.0, "must be in (0, 1]")
    }
    fn build(&self) -> Box<dyn CongestionControl> {
        Box::new(Dctcp::new(self.g))
    }
}

/// DCTCP's state; also the scalable response of [`super::prague`].
#[derive(Clone, Debug)]
pub struct Dctcp {
    reno: Reno,
    /// EWMA gain.
    pub g: f64,
    /// Estimated fraction of marked bytes.
    pub alpha: f64,
    window_end: u64,
    bytes_acked: u64,
    bytes_marked: u64,
    name: &'static str,
    ect: Ecn,
}

impl Dctcp {
    pub fn new(g: f64) -> Self {
        Dctcp::with(g, "dctcp", Ecn::Ect0)
    }
    /// The same law under another name and ECT codepoint (Prague: ECT(1)).
    pub fn with(g: f64, name: &'static str, ect: Ecn) -> Self {
        Dctcp { reno: Reno::new(), g, alpha: 1.0, window_end: 0, bytes_acked: 0, bytes_marked: 0, name, ect }
    }
}

impl CongestionControl for Dctcp {
    fn name(&self) -> &'static str {
        self.name
    }
    fn on_ack(&mut self, win: &mut Window, ack: &AckInfo) {
        self.reno.on_ack(win, ack);
    }
    fn ssthresh_after_loss(&mut self, now: SimTime, win: &Window, in_flight: u64, kind: LossKind) -> u64 {
        let _ = self.reno.ssthresh_after_loss(now, win, in_flight, kind);
        half_flight(in_flight, win.mss)
    }
    fn ect(&self) -> Ecn {
        self.ect
    }
    fn on_ecn_feedback(&mut self, fb: &EcnFeedback) {
        self.bytes_acked += fb.acked_bytes;
        if fb.ece {
            self.bytes_marked += fb.acked_bytes;
        }
        if fb.snd_una > self.window_end {
            if self.bytes_acked > 0 {
                let m = self.bytes_marked as f64 / self.bytes_acked as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * m;
            }
            self.window_end = fb.snd_max;
            self.bytes_acked = 0;
            self.bytes_marked = 0;
        }
    }
    fn ssthresh_after_ce(&mut self, _now: SimTime, win: &Window, _in_flight: u64) -> u64 {
        let c = win.cwnd as f64 * (1.0 - self.alpha / 2.0);
        (c as u64).max(2 * win.mss as u64)
    }
    fn on_event(&mut self, now: SimTime, win: &mut Window, ev: CcEvent) {
        self.reno.on_event(now, win, ev);
    }

    fn trace_state(&self, win: &Window) -> CcTraceState {
        CcTraceState::new(super::window_mode(win), &["alpha"], [Some(self.alpha), None, None, None])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fb(acked: u64, ece: bool, una: u64, max: u64) -> EcnFeedback {
        EcnFeedback { now: SimTime::ZERO, acked_bytes: acked, ece, snd_una: una, snd_max: max }
    }

    #[test]
    fn alpha_ewma_per_window() {
        let mut d = Dctcp::new(1.0 / 16.0);
        assert_eq!(d.alpha, 1.0);
        // first ACK closes the (empty) first window: alpha from M of that ACK
        d.on_ecn_feedback(&fb(1000, false, 1001, 10_001));
        assert!((d.alpha - 15.0 / 16.0).abs() < 1e-12);
        // a window of 10 segments, 3 marked
        for i in 0..10u64 {
            d.on_ecn_feedback(&fb(1000, i < 3, 2001 + i * 1000, 20_001));
        }
        // the window ends at the first ACK past 10_001 (the 10th): 3 of 10 marked
        let a1 = 15.0 / 16.0;
        let want = (1.0 - 1.0 / 16.0) * a1 + (1.0 / 16.0) * (3.0 / 10.0);
        assert!((d.alpha - want).abs() < 1e-12, "{} vs {want}", d.alpha);
    }

    #[test]
    fn alpha_converges_to_the_marked_fraction_and_reduction_is_alpha_half() {
        let mut d = Dctcp::new(1.0 / 16.0);
        let mut una = 1;
        for _ in 0..300 {
            let end = una + 10_000;
            for k in 0..10u64 {
                una += 1000;
                d.on_ecn_feedback(&fb(1000, k == 0, una, end + 10_000));
            }
        }
        assert!((d.alpha - 0.1).abs() < 0.01, "{}", d.alpha);
        let w = Window { cwnd: 100_000, ssthresh: u64::MAX, mss: 1000 };
        let ss = d.ssthresh_after_ce(SimTime::ZERO, &w, 100_000);
        assert!((ss as f64 - 100_000.0 * (1.0 - d.alpha / 2.0)).abs() < 2.0);
        // all marked: alpha -> 1, halving as Reno
        d.alpha = 1.0;
        assert_eq!(d.ssthresh_after_ce(SimTime::ZERO, &w, 100_000), 50_000);
        // loss: half the flight regardless of alpha
        d.alpha = 0.0;
        assert_eq!(d.ssthresh_after_loss(SimTime::ZERO, &w, 80_000, LossKind::FastRetransmit), 40_000);
        assert_eq!(d.ect(), Ecn::Ect0);
    }
}
