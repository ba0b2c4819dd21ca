//! TCP Veno (Fu & Liew, "TCP Veno: TCP Enhancement for Transmission over
//! Wireless Access Networks", IEEE JSAC 21(2), 2003).
//!
//! - Backlog estimate (section II.A, Vegas' N): `N = Actual x (RTT -
//!   BaseRTT) = cwnd (RTT - BaseRTT) / RTT` in packets, BaseRTT the
//!   smallest RTT seen, RTT the smallest sample of the last round trip (as
//!   Linux's `tcp_veno`; the paper uses the current RTT).
//! - Loss (II.B): `N < beta` (3 packets) marks the loss random (the path
//!   is not congested): `ssthresh = cwnd x 4/5`; otherwise congestive:
//!   `ssthresh = cwnd / 2`; floor 2 SMSS. A timeout answers the same way
//!   (the connection then sets cwnd to 1 SMSS).
//! - Growth (II.C): slow start as Reno; in congestion avoidance one SMSS
//!   per RTT while `N < beta`, one SMSS every other RTT otherwise.
use super::reno::Reno;
use super::{AckInfo, CcEvent, CcKind, CcTraceState, CongestionControl, LossKind, Window};
use wifitcp_core::{SimDur, SimTime};

wifitcp_core::config_table! {
    /// `cc = "veno"`.
    #[serde(deny_unknown_fields)]
    pub struct VenoTable {
        /// Backlog threshold beta (Fu & Liew: 3 packets).
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::Ex(0.0), wifitcp_core::schema::B::In(1e6)), unit = "packets")]
        pub beta: f64 = 3.0,
    }
}

impl CcKind for VenoTable {
    fn check(&self) -> Result<(), wifitcp_core::config::ConfigError> {
        super::check_param("beta", self.beta, self.beta > 0.0, "must be positive")
    }
    fn build(&self) -> Box<dyn CongestionControl> {
        Box::new(Veno::new(self.beta))
    }
}

#[derive(Clone, Debug)]
pub struct Veno {
    reno: Reno,
    pub beta: f64,
    pub base_rtt: Option<SimDur>,
    round_min: Option<SimDur>,
    last_round_min: Option<SimDur>,
    round_end: SimTime,
    /// Congestion avoidance above beta: grow on every other RTT.
    skip: bool,
    ca_bytes: u64,
}

impl Veno {
    pub fn new(beta: f64) -> Self {
        Veno {
            reno: Reno::new(),
            beta,
            base_rtt: None,
            round_min: None,
            last_round_min: None,
            round_end: SimTime::ZERO,
            skip: false,
            ca_bytes: 0,
        }
    }
    /// Vegas' backlog N in packets for a window of `cwnd_pkts`.
    pub fn backlog(&self, cwnd_pkts: f64) -> Option<f64> {
        let (base, rtt) = (self.base_rtt?, self.last_round_min.or(self.round_min)?);
        let r = rtt.as_secs_f64();
        (r > 0.0).then(|| cwnd_pkts * (r - base.as_secs_f64()) / r)
    }
    fn congestive(&self, win: &Window) -> bool {
        self.backlog(win.cwnd as f64 / win.mss as f64).is_some_and(|n| n >= self.beta)
    }
}

impl CongestionControl for Veno {
    fn name(&self) -> &'static str {
        "veno"
    }
    fn on_rtt_sample(&mut self, now: SimTime, rtt: SimDur) {
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |b| b.min(rtt)));
        if now >= self.round_end {
            if self.round_min.is_some() {
                self.last_round_min = self.round_min;
            }
            self.round_min = None;
            self.round_end = now + rtt;
        }
        self.round_min = Some(self.round_min.map_or(rtt, |m| m.min(rtt)));
    }
    fn on_ack(&mut self, win: &mut Window, ack: &AckInfo) {
        if win.cwnd < win.ssthresh || !self.congestive(win) {
            self.reno.on_ack(win, ack);
            return;
        }
        if ack.app_or_rwnd_limited {
            return;
        }
        // N >= beta: one SMSS per two windows of acknowledged bytes.
        self.ca_bytes += ack.acked_bytes;
        if self.ca_bytes >= win.cwnd {
            self.ca_bytes -= win.cwnd;
            if self.skip {
                win.cwnd += win.mss as u64;
            }
            self.skip = !self.skip;
        }
    }
    fn ssthresh_after_loss(&mut self, now: SimTime, win: &Window, in_flight: u64, kind: LossKind) -> u64 {
        let _ = self.reno.ssthresh_after_loss(now, win, in_flight, kind);
        self.ca_bytes = 0;
        let ss = if self.congestive(win) { win.cwnd / 2 } else { win.cwnd * 4 / 5 };
        ss.max(2 * win.mss as u64)
    }
    fn on_event(&mut self, now: SimTime, win: &mut Window, ev: CcEvent) {
        self.reno.on_event(now, win, ev);
    }

    fn trace_state(&self, win: &Window) -> CcTraceState {
        let ms = |d: Option<SimDur>| d.map(|d| d.as_secs_f64() * 1e3);
        CcTraceState::new(
            super::window_mode(win),
            &["base_rtt_ms", "rtt_ms", "backlog_segments"],
            [ms(self.base_rtt), ms(self.last_round_min.or(self.round_min)), self.backlog(win.cwnd as f64 / win.mss as f64), None],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(now_ms: u64) -> AckInfo {
        AckInfo { now: SimTime::from_millis(now_ms), acked_bytes: 1000, rtt: None, prior_in_flight: 0, app_or_rwnd_limited: false }
    }

    #[test]
    fn random_loss_reduces_by_a_fifth_congestive_by_half() {
        let w = Window { cwnd: 20_000, ssthresh: 10_000, mss: 1000 };
        // RTT = BaseRTT: N = 0 < 3: random
        let mut v = Veno::new(3.0);
        v.on_rtt_sample(SimTime::ZERO, SimDur::from_millis(100));
        assert_eq!(v.backlog(20.0), Some(0.0));
        assert_eq!(v.ssthresh_after_loss(SimTime::ZERO, &w, 20_000, LossKind::FastRetransmit), 16_000);
        // RTT 125 ms on base 100: N = 20 x 25 / 125 = 4 >= 3: congestive
        v.on_rtt_sample(SimTime::from_millis(200), SimDur::from_millis(125));
        v.on_rtt_sample(SimTime::from_millis(400), SimDur::from_millis(125));
        assert!((v.backlog(20.0).unwrap() - 4.0).abs() < 1e-9);
        assert_eq!(v.ssthresh_after_loss(SimTime::ZERO, &w, 20_000, LossKind::FastRetransmit), 10_000);
        // N just below beta: 20 x 13 / 113 = 2.3
        v.on_rtt_sample(SimTime::from_millis(600), SimDur::from_millis(113));
        v.on_rtt_sample(SimTime::from_millis(800), SimDur::from_millis(113));
        assert_eq!(v.ssthresh_after_loss(SimTime::ZERO, &w, 20_000, LossKind::FastRetransmit), 16_000);
    }

    #[test]
    fn growth_halves_above_beta() {
        let mut v = Veno::new(3.0);
        v.on_rtt_sample(SimTime::ZERO, SimDur::from_millis(100));
        let mut w = Window { cwnd: 20_000, ssthresh: 10_000, mss: 1000 };
        for i in 0..40 {
            v.on_ack(&mut w, &ack(i));
        }
        let reno_growth = w.cwnd - 20_000;
        assert!((1800..=2000).contains(&reno_growth), "N < beta: about 1 SMSS per RTT, {reno_growth}");
        let mut v = Veno::new(3.0);
        v.on_rtt_sample(SimTime::ZERO, SimDur::from_millis(100));
        v.on_rtt_sample(SimTime::from_millis(200), SimDur::from_millis(150));
        v.on_rtt_sample(SimTime::from_millis(400), SimDur::from_millis(150));
        let mut w = Window { cwnd: 20_000, ssthresh: 10_000, mss: 1000 };
        for i in 0..80 {
            v.on_ack(&mut w, &ack(i));
        }
        assert!(w.cwnd - 20_000 <= 2000, "N >= beta: 1 SMSS per 2 RTTs, got {}", w.cwnd - 20_000);
    }
}
