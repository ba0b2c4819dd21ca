//! TCP Westwood+ (Mascolo, Casetti, Gerla, Sanadidi & Wang, "TCP Westwood:
//! Bandwidth Estimation for Enhanced Transport over Wireless Links",
//! MobiCom 2001; the "+" per-RTT sampling of Grieco & Mascolo, CCR 2004),
//! with the filter and loss response of ns-3's `TcpWestwoodPlus`.
//!
//! - Bandwidth sample once per RTT: the bytes acknowledged since the last
//!   sample divided by the time since it, taken on the first ACK at least
//!   one (latest) RTT after the last sample (Grieco & Mascolo: sampling
//!   once per RTT removes ACK-compression aliasing).
//! - Filter: Tustin low-pass with gain 0.9, `BWE_k = 0.9 BWE_{k-1} +
//!   0.1 (b_k + b_{k-1}) / 2` (ns-3's `TcpWestwoodPlus` default filter).
//! - Loss (fast retransmit and timeout): `ssthresh = max(2 SMSS, BWE x
//!   RTTmin)` (Mascolo et al. section 2; ns-3's `GetSsThresh`); the
//!   connection then sets cwnd per its recovery (ssthresh + 3 SMSS on
//!   fast retransmit, 1 SMSS after a timeout). Before any estimate:
//!   Reno's half flight.
//! - Growth: Reno's ([`super::reno`]).
use super::reno::Reno;
use super::{half_flight, AckInfo, CcEvent, CcKind, CcTraceState, CongestionControl, LossKind, Window};
use wifitcp_core::{SimDur, SimTime};

wifitcp_core::config_table! {
    /// `cc = "westwood"`: no keys.
    #[serde(deny_unknown_fields)]
    pub struct WestwoodTable {}
}

impl CcKind for WestwoodTable {
    fn build(&self) -> Box<dyn CongestionControl> {
        Box::new(Westwood::default())
    }
}

/// Tustin filter gain (ns-3 TcpWestwoodPlus).
const GAIN: f64 = 0.9;

#[derive(Clone, Debug, Default)]
pub struct Westwood {
    reno: Reno,
    /// Filtered bandwidth estimate, bytes per second.
    pub bwe: f64,
    last_sample: f64,
    acked: u64,
    sample_start: Option<SimTime>,
    last_rtt: Option<SimDur>,
    /// Minimum RTT seen.
    pub rtt_min: Option<SimDur>,
}

impl Westwood {
    fn sample(&mut self, now: SimTime) {
        let (Some(start), Some(rtt)) = (self.sample_start, self.last_rtt) else {
            self.sample_start = Some(now);
            return;
        };
        let dt = now.saturating_since(start);
        if dt < rtt || dt.as_nanos() == 0 {
            return;
        }
        let b = self.acked as f64 / dt.as_secs_f64();
        self.bwe = GAIN * self.bwe + (1.0 - GAIN) * (b + self.last_sample) / 2.0;
        self.last_sample = b;
        self.acked = 0;
        self.sample_start = Some(now);
    }
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }
    fn on_rtt_sample(&mut self, _now: SimTime, rtt: SimDur) {
        self.last_rtt = Some(rtt);
        self.rtt_min = Some(self.rtt_min.map_or(rtt, |m| m.min(rtt)));
    }
    fn on_ack(&mut self, win: &mut Window, ack: &AckInfo) {
        self.acked += ack.acked_bytes;
        self.sample(ack.now);
        self.reno.on_ack(win, ack);
    }
    fn ssthresh_after_loss(&mut self, now: SimTime, win: &Window, in_flight: u64, kind: LossKind) -> u64 {
        let _ = self.reno.ssthresh_after_loss(now, win, in_flight, kind);
        match self.rtt_min {
            Some(m) if self.bwe > 0.0 => ((self.bwe * m.as_secs_f64()) as u64).max(2 * win.mss as u64),
            _ => half_flight(in_flight, win.mss),
        }
    }
    fn on_event(&mut self, now: SimTime, win: &mut Window, ev: CcEvent) {
        self.reno.on_event(now, win, ev);
    }

    fn trace_state(&self, win: &Window) -> CcTraceState {
        CcTraceState::new(
            super::window_mode(win),
            &["bwe_bps", "rtt_min_ms"],
            [(self.bwe > 0.0).then_some(self.bwe * 8.0), self.rtt_min.map(|d| d.as_secs_f64() * 1e3), None, None],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{RttModel, TestSender};

    #[test]
    fn estimate_tracks_the_bottleneck_and_sets_ssthresh_to_the_bdp() {
        // 100 packets/s of 1000 B (100 kB/s) behind 100 ms: BDP 10 kB.
        let model = RttModel::Bottleneck { base: SimDur::from_millis(100), rate_pps: 100.0 };
        let mut s = TestSender::new(Westwood::default(), 1000, 2, 30_000, model);
        s.run_rounds(60);
        let bwe = s.cc.bwe;
        // the window-limited test sender delivers cwnd per RTT = the rate once queued
        assert!(bwe > 70_000.0 && bwe < 130_000.0, "bwe {bwe}");
        let w = s.win;
        let ss = s.cc.ssthresh_after_loss(s.now, &w, w.cwnd, LossKind::FastRetransmit);
        let bdp = bwe * 0.1;
        assert!((ss as f64 - bdp).abs() < 1000.0, "ssthresh {ss} vs BWE x RTTmin {bdp}");
        assert!(ss < w.cwnd / 2, "below a halving of a window that has queued");
    }

    #[test]
    fn tustin_filter_step() {
        let mut w = Westwood { last_rtt: Some(SimDur::from_millis(10)), ..Default::default() };
        w.sample_start = Some(SimTime::ZERO);
        w.acked = 10_000;
        w.sample(SimTime::from_millis(10));
        // b = 1e6 B/s: 0.9 * 0 + 0.1 * (1e6 + 0) / 2
        assert!((w.bwe - 50_000.0).abs() < 1e-6);
        w.acked = 10_000;
        w.sample(SimTime::from_millis(20));
        assert!((w.bwe - (0.9 * 50_000.0 + 0.1 * 1e6)).abs() < 1e-6);
        assert_eq!(w.ssthresh_after_loss(SimTime::ZERO, &Window { cwnd: 1, ssthresh: 1, mss: 1000 }, 0, LossKind::Timeout), 2000, "no RTTmin yet: Reno floor");
    }
}
