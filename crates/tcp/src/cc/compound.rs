//! Compound TCP (CTCP): a loss-based window plus a scalable delay-based
//! window.
//!
//! Sources: K. Tan, J. Song, Q. Zhang, M. Sridharan, "A Compound TCP
//! Approach for High-speed and Long Distance Networks", IEEE INFOCOM 2006
//! ("Tan"), and its use in S. R. Pokhrel and C. Williamson, "Modeling
//! Compound TCP over WiFi for IoT" ("P&W", `shared/seeds/004_*`, section
//! III-A, eq. (1)).
//!
//! # State
//! - `lwnd`: the loss-based window, Tan's `cwnd` (P&W `W_loss`), Reno-like.
//! - `dwnd`: the delay-based window (P&W `W_delay`).
//! - The connection's [`Window::cwnd`] is the send window
//!   `win = lwnd + dwnd` (Tan: `win = min(cwnd + dwnd, awnd)`; the
//!   receiver-window cap is applied by the connection). Both components are
//!   observable via [`Compound::loss_window`] / [`Compound::delay_window`].
//!
//! # Rules
//! - Slow start (`win < ssthresh`): standard slow start on `lwnd`
//!   (RFC 5681 eq. 2); the delay-based component is inactive (Tan: dwnd is
//!   only updated in congestion avoidance).
//! - Congestion avoidance, per ACK: `lwnd += 1 / win` per acknowledged
//!   segment (Tan: `cwnd = cwnd + 1/(cwnd + dwnd)`).
//! - Per round trip (P&W eq. 1; Tan section III), with `RTT_b` the minimum RTT
//!   ever seen and `RTT` the minimum sample of the last round:
//!   `diff = win (1 - RTT_b / RTT)` packets;
//!   if `diff < gamma`: `dwnd += (alpha win^k - 1)^+`;
//!   if `diff >= gamma`: `dwnd = (dwnd - zeta diff)^+`.
//!   Together with the +1 of `lwnd` this is P&W eq. (1):
//!   `W <- W + 1 + (alpha W^k - 1)^+` or `W <- W + 1 - zeta diff`.
//! - Loss (Tan): `dwnd = (win (1 - beta) - lwnd / 2)^+`, `lwnd = lwnd / 2`.
//!   The returned ssthresh is the resulting send window
//!   `lwnd/2 + dwnd = max(win (1 - beta), lwnd / 2)` (at least 2 MSS), so
//!   that after fast recovery the connection sets `cwnd = ssthresh` to exactly
//!   the post-loss CTCP window. P&W write the loss step as
//!   `W_loss/2 + W_delay (1 - beta)`; with `beta = 1/2` the two coincide
//!   whenever the `^+` is inactive; we follow Tan for other betas.
//! - Timeout: same ssthresh; `dwnd = 0` (the connection restarts from a
//!   1-MSS loss window and slow start).
//!
//! # Defaults
//! `alpha = 0.125`, `beta = 0.5`, `k = 0.75` (Tan; P&W section III-A),
//! `gamma = 30` packets (P&W: "th = 30 packets as in \[9\]", i.e. Tan), `zeta = 1`
//! (our choice: P&W only require `zeta > 0`; one packet of dwnd per
//! estimated queued packet).
//!
//! # Documented choices / deviations
//! - The dwnd update is applied in one step at the end of each round (the
//!   per-RTT difference equation of P&W eq. 1), not spread over the ACKs.
//! - `RTT` in `diff` is the minimum sample of the round (as for Vegas, see
//!   [`super::vegas::RoundTracker`]), which is robust to delayed-ACK noise.
//! - The low-window threshold of Microsoft's implementation (dwnd disabled
//!   for small windows) is not modelled: P&W eq. 1 has no such threshold.
//! - The connection may change `cwnd` itself (recovery inflation, RFC 6582
//!   exit, idle restart). At every callback the controller reconciles: any
//!   change the connection made is attributed to `lwnd`; if the window fell
//!   below `dwnd + 1 MSS`, `dwnd` is reduced so that `lwnd >= 1 MSS`.
//! - ACKs sent while application- or rwnd-limited do not grow either
//!   component.
use super::vegas::{vegas_diff, RoundStats, RoundTracker};
use super::{check_param, AckInfo, CcEvent, CcKind, CcTraceState, CongestionControl, LossKind, Window};
use wifitcp_core::config::ConfigError;
use wifitcp_core::schema::r;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::{SimDur, SimTime};

wifitcp_core::config_table! {
    /// Compound TCP parameters (windows in packets), `[tcp.compound]`.
    #[derive(Copy)]
    #[serde(deny_unknown_fields)]
    pub struct CompoundConfig {
        /// dwnd growth alpha * win^k per round.
        ///
        /// Scalability (Tan: 1/8).
        #[key(range = r(Ex(0.0), In(100.0)))]
        pub alpha: f64 = 0.125,
        /// Window decrease on loss.
        ///
        /// Multiplicative decrease of the send window (Tan: 1/2).
        #[key(range = r(Ex(0.0), Ex(1.0)))]
        pub beta: f64 = 0.5,
        /// Exponent of the delay window's growth.
        ///
        /// Kappa (Tan: 3/4); paper 004's appendix discusses kappa = 0 and 1.
        #[key(range = r(In(0.0), In(1.0)))]
        pub k: f64 = 0.75,
        /// Backlog threshold.
        ///
        /// Gamma, in packets (Tan, P&W: 30).
        #[key(range = r(Ex(0.0), In(1e6)), unit = "packets")]
        pub gamma: f64 = 30.0,
        /// dwnd reduction per packet above gamma.
        ///
        /// Zeta, per estimated backlogged packet (P&W: zeta > 0; 1).
        #[key(range = r(Ex(0.0), In(100.0)))]
        pub zeta: f64 = 1.0,
    }
}

impl CcKind for CompoundConfig {
    fn check(&self) -> Result<(), ConfigError> {
        check_param("alpha", self.alpha, self.alpha > 0.0, "must be positive")?;
        check_param("beta", self.beta, self.beta > 0.0 && self.beta < 1.0, "must be in (0, 1)")?;
        check_param("k", self.k, (0.0..=1.0).contains(&self.k), "must be in [0, 1]")?;
        check_param("gamma", self.gamma, self.gamma > 0.0, "must be a positive number of packets")?;
        check_param("zeta", self.zeta, self.zeta > 0.0, "must be positive (paper 004: zeta > 0)")
    }
    fn build(&self) -> Box<dyn CongestionControl> {
        Box::new(Compound::new(*self))
    }
}

impl CompoundConfig {
    /// dwnd increment (packets) for one uncongested round: `(alpha win^k - 1)^+`.
    pub fn dwnd_increase(&self, win_pkts: f64) -> f64 {
        (self.alpha * win_pkts.powf(self.k) - 1.0).max(0.0)
    }
}

/// What happened at the end of the last round (for tests and traces).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompoundRound {
    pub at: SimTime,
    /// Send window used in the update, packets.
    pub win_pkts: f64,
    /// Estimated backlog, packets.
    pub diff: f64,
    pub dwnd_before: f64,
    pub dwnd_after: f64,
}

/// Compound TCP controller.
#[derive(Clone, Debug)]
pub struct Compound {
    cfg: CompoundConfig,
    rounds: RoundTracker,
    /// Loss-based window, bytes.
    lwnd: u64,
    /// Delay-based window, bytes (fractional; the send window uses floor).
    dwnd: f64,
    /// Sub-byte lwnd growth not yet applied.
    frac: f64,
    last_round: Option<CompoundRound>,
}

impl Compound {
    pub fn new(cfg: CompoundConfig) -> Self {
        Compound { cfg, rounds: RoundTracker::new(), lwnd: 0, dwnd: 0.0, frac: 0.0, last_round: None }
    }
    pub fn config(&self) -> &CompoundConfig {
        &self.cfg
    }
    /// Loss-based window (Tan's cwnd), bytes.
    pub fn loss_window(&self) -> u64 {
        self.lwnd
    }
    /// Delay-based window (Tan's dwnd), bytes, as used in the send window.
    pub fn delay_window(&self) -> u64 {
        self.dwnd.floor() as u64
    }
    /// Delay-based window with its fractional part, bytes.
    pub fn delay_window_exact(&self) -> f64 {
        self.dwnd
    }
    /// Minimum RTT seen so far (RTT_b).
    pub fn base_rtt(&self) -> Option<SimDur> {
        self.rounds.base_rtt()
    }
    /// The last per-round delay-window update.
    pub fn last_round(&self) -> Option<CompoundRound> {
        self.last_round
    }

    fn total(&self) -> u64 {
        self.lwnd + self.delay_window()
    }

    /// Attribute any window change made by the connection to `lwnd`.
    fn reconcile(&mut self, win: &Window) {
        if win.cwnd == self.total() {
            return;
        }
        let mss = win.mss as u64;
        let d = self.delay_window();
        if win.cwnd >= d + mss {
            self.lwnd = win.cwnd - d;
        } else {
            let d = win.cwnd.saturating_sub(mss);
            self.dwnd = d as f64;
            self.lwnd = win.cwnd - d;
        }
        self.frac = 0.0;
    }

    fn publish(&self, win: &mut Window) {
        win.cwnd = self.total();
    }

    fn end_of_round(&mut self, now: SimTime, win: &Window, stats: RoundStats) {
        let (Some(rtt), Some(base)) = (stats.min_rtt, self.rounds.base_rtt()) else {
            return;
        };
        if stats.partial || win.cwnd < win.ssthresh {
            return; // dwnd is only updated in congestion avoidance (Tan).
        }
        let mss = win.mss as f64;
        let win_pkts = self.total() as f64 / mss;
        let diff = vegas_diff(win_pkts, base, rtt);
        let before = self.dwnd;
        self.dwnd = if diff < self.cfg.gamma {
            self.dwnd + self.cfg.dwnd_increase(win_pkts) * mss
        } else {
            (self.dwnd - self.cfg.zeta * diff * mss).max(0.0)
        };
        self.last_round =
            Some(CompoundRound { at: now, win_pkts, diff, dwnd_before: before / mss, dwnd_after: self.dwnd / mss });
    }
}

impl Default for Compound {
    fn default() -> Self {
        Compound::new(CompoundConfig::default())
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }

    fn on_ack(&mut self, win: &mut Window, ack: &AckInfo) {
        self.reconcile(win);
        let round = self.rounds.on_ack(ack.acked_bytes, ack.prior_in_flight);
        if ack.app_or_rwnd_limited {
            return;
        }
        let mss = win.mss as u64;
        if win.cwnd < win.ssthresh {
            self.lwnd += ack.acked_bytes.min(mss); // RFC 5681 eq. (2)
        } else {
            // Tan: cwnd += 1/(cwnd + dwnd) per segment, in bytes.
            self.frac += ack.acked_bytes as f64 * mss as f64 / self.total() as f64;
            let whole = self.frac.floor();
            self.lwnd += whole as u64;
            self.frac -= whole;
        }
        if let Some(stats) = round {
            self.end_of_round(ack.now, win, stats);
        }
        self.publish(win);
    }

    fn on_rtt_sample(&mut self, _now: SimTime, rtt: SimDur) {
        self.rounds.on_rtt(rtt);
    }

    fn ssthresh_after_loss(&mut self, _now: SimTime, win: &Window, _in_flight: u64, kind: LossKind) -> u64 {
        self.reconcile(win);
        let w = self.total() as f64;
        let half_l = self.lwnd / 2;
        // Tan: dwnd = (win (1 - beta) - cwnd/2)^+, cwnd = cwnd/2.
        let dwnd = (w * (1.0 - self.cfg.beta) - half_l as f64).max(0.0).floor();
        let ssthresh = (half_l + dwnd as u64).max(2 * win.mss as u64);
        if kind == LossKind::Timeout {
            // The connection restarts from a 1-MSS loss window.
            self.dwnd = 0.0;
            self.lwnd = half_l;
        } else {
            // lwnd + dwnd == ssthresh: the window after fast recovery.
            self.dwnd = dwnd;
            self.lwnd = ssthresh - dwnd as u64;
        }
        self.frac = 0.0;
        self.rounds.restart();
        ssthresh
    }

    fn on_event(&mut self, _now: SimTime, win: &mut Window, ev: CcEvent) {
        match ev {
            CcEvent::RecoveryExit => {
                self.reconcile(win);
                self.rounds.restart();
            }
            CcEvent::IdleRestart => {
                self.reconcile(win);
                self.rounds.restart();
            }
        }
    }

    fn trace_state(&self, win: &Window) -> CcTraceState {
        CcTraceState::new(
            super::window_mode(win),
            &["dwnd_segments", "diff_segments", "base_rtt_ms"],
            [
                Some(self.dwnd / win.mss as f64),
                self.last_round.map(|r| r.diff),
                self.rounds.base_rtt().map(|d| d.as_secs_f64() * 1e3),
                None,
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{RttModel, TestSender};

    const MSS: u32 = 1000;

    fn pk(b: f64) -> f64 {
        b / MSS as f64
    }

    /// A sender already in congestion avoidance at `w` packets.
    fn ca_sender(w: u64, model: RttModel) -> TestSender<Compound> {
        TestSender::new(Compound::default(), MSS, w, w * MSS as u64, model)
    }

    #[test]
    fn defaults_are_the_papers() {
        let c = CompoundConfig::default();
        assert_eq!((c.alpha, c.beta, c.k, c.gamma, c.zeta), (0.125, 0.5, 0.75, 30.0, 1.0));
        // alpha * 100^0.75 - 1 = 0.125 * 31.6228 - 1 = 2.9528
        assert!((c.dwnd_increase(100.0) - 2.952847).abs() < 1e-6);
        // Below win = 8^(4/3) = 16 packets the increase is clipped to zero.
        assert_eq!(c.dwnd_increase(15.0), 0.0);
    }

    /// RTT == RTT_b: each round adds exactly (alpha win^k - 1)^+ to dwnd,
    /// where win is the send window at the end of the round, and lwnd grows
    /// by about one packet per RTT.
    #[test]
    fn dwnd_grows_by_alpha_win_pow_k_minus_one_without_queueing() {
        let cfg = CompoundConfig::default();
        let mut s = ca_sender(40, RttModel::Fixed(SimDur::from_millis(100)));
        s.run_rounds(2);
        let mut checked = 0;
        for _ in 0..6 {
            let l0 = s.cc.loss_window();
            let d0 = pk(s.cc.delay_window_exact());
            s.run_round();
            // One round boundary per harness round (at its first ACK).
            let r = s.cc.last_round().unwrap();
            assert_eq!(
                r.at,
                s.records.last().unwrap().start
                    + SimDur::from_nanos(
                        s.records.last().unwrap().rtt.as_nanos() / s.records.last().unwrap().acks as u64
                    )
            );
            assert_eq!(r.dwnd_before, d0);
            assert!((pk(s.cc.delay_window_exact()) - r.dwnd_after).abs() < 1e-12);
            assert_eq!(r.diff, 0.0);
            // The window used is the one the sender had at the start of this
            // round (plus at most one ACK's worth of lwnd growth).
            let w_rec = pk(s.records.last().unwrap().cwnd as f64);
            assert!((r.win_pkts - w_rec).abs() < 0.1, "win {} vs recorded {}", r.win_pkts, w_rec);
            let want = r.dwnd_before + (0.125 * r.win_pkts.powf(0.75) - 1.0).max(0.0);
            assert!((r.dwnd_after - want).abs() < 1e-9, "dwnd {} -> {}, want {}", r.dwnd_before, r.dwnd_after, want);
            assert!(r.dwnd_after - r.dwnd_before > 1.0);
            // lwnd: +1 packet per RTT (1/win per ACK, win ACKs per RTT), up to rounding.
            let dl = pk((s.cc.loss_window() - l0) as f64);
            assert!((0.7..=1.3).contains(&dl), "lwnd grew {dl} packets in one RTT");
            checked += 1;
        }
        assert_eq!(checked, 6);
        // And the send window exposed to the connection is the sum.
        assert_eq!(s.win.cwnd, s.cc.loss_window() + s.cc.delay_window());
        // Window per RTT grows as W + 1 + (alpha W^k - 1) = W + alpha W^k (P&W eq. 1).
        let w: Vec<f64> = s.records.iter().map(|r| pk(r.cwnd as f64)).collect();
        for p in w.windows(2).skip(3) {
            let pred = p[0] + cfg.alpha * p[0].powf(cfg.k);
            assert!((p[1] - pred).abs() <= 0.1 * (pred - p[0]) + 1.0, "{} -> {} (pred {pred})", p[0], p[1]);
        }
    }

    /// When queueing makes diff >= gamma, dwnd shrinks by zeta * diff per RTT.
    #[test]
    fn dwnd_shrinks_by_zeta_diff_when_backlogged() {
        // Bottleneck 500 pkt/s, 100 ms: BDP 50 packets.
        let model = RttModel::Bottleneck { base: SimDur::from_millis(100), rate_pps: 500.0 };
        let mut s = ca_sender(30, model);
        // Grow until the backlog reaches gamma, then check every shrinking round.
        let mut shrinks = 0;
        for _ in 0..40 {
            s.run_round();
            let Some(r) = s.cc.last_round() else { continue };
            if r.diff >= 30.0 {
                let want = (r.dwnd_before - r.diff).max(0.0);
                assert!((r.dwnd_after - want).abs() < 1e-9, "{r:?}");
                shrinks += 1;
            } else {
                assert!(r.dwnd_after >= r.dwnd_before);
            }
        }
        assert!(shrinks >= 2, "backlog never reached gamma");
        // Each shrink removes the estimated backlog, so while the loss window
        // alone is below BDP + gamma (80 packets) the backlog stays within a
        // couple of rounds' growth of gamma.
        assert!(s.cc.loss_window() < 80 * MSS as u64);
        let peak = s.records.iter().map(|r| model.queued(pk(r.cwnd as f64))).fold(0.0, f64::max);
        assert!((30.0..=38.0).contains(&peak), "peak backlog {peak}");
    }

    /// Loss: win -> win (1 - beta) = win/2 with dwnd = (win/2 - lwnd/2)^+.
    #[test]
    fn loss_halves_send_window() {
        let mut s = ca_sender(40, RttModel::Fixed(SimDur::from_millis(100)));
        s.run_rounds(10);
        let (l, d, w) = (s.cc.loss_window(), s.cc.delay_window(), s.win.cwnd);
        assert!(d > 10 * MSS as u64, "dwnd should have grown: {d}");
        let th = s.loss_now(LossKind::FastRetransmit);
        let want_d = (w as f64 * 0.5 - (l / 2) as f64).max(0.0);
        assert!((s.cc.delay_window_exact() - want_d).abs() < 1e-6);
        assert_eq!(s.cc.loss_window(), l / 2);
        assert_eq!(th, l / 2 + want_d.floor() as u64);
        assert!((th as f64 - w as f64 / 2.0).abs() <= 1.0, "ssthresh {th} vs win/2 {}", w / 2);
        assert_eq!(s.win.cwnd, th);
        // P&W form: W_loss/2 + W_delay (1 - beta) agrees with beta = 1/2.
        assert!((th as f64 - (l as f64 / 2.0 + d as f64 * 0.5)).abs() <= 1.0);
        // Growth resumes from the split state.
        s.run_rounds(2);
        assert_eq!(s.win.cwnd, s.cc.loss_window() + s.cc.delay_window());
    }

    /// Once the backlog stays above gamma, dwnd is driven to 0 and stays
    /// there: CTCP is then Reno (+1 MSS per RTT, halving on loss).
    #[test]
    fn pure_loss_regime_behaves_as_reno() {
        // Bottleneck 100 pkt/s, 100 ms: BDP 10 packets; the backlog reaches
        // gamma = 30 at a window of 40.
        let model = RttModel::Bottleneck { base: SimDur::from_millis(100), rate_pps: 100.0 };
        let mut s = ca_sender(8, model);
        s.run_rounds(40);
        let mut dw = Vec::new();
        let a = s.win.cwnd;
        for _ in 0..20 {
            s.run_round();
            let r = s.cc.last_round().unwrap();
            assert!(r.diff >= 30.0, "{r:?}");
            dw.push(s.cc.delay_window());
        }
        assert!(dw.iter().all(|&d| d == 0), "{dw:?}");
        let grown = pk((s.win.cwnd - a) as f64);
        assert!((grown - 20.0).abs() <= 1.0, "Reno CA: +1/RTT, got {grown} in 20 RTTs");
        let w = s.win.cwnd;
        let th = s.loss_now(LossKind::FastRetransmit);
        assert_eq!(th, w / 2);
        assert_eq!(s.cc.delay_window(), 0);
    }

    /// The response function of the Compound TCP paper's window rule
    /// (Tan et al. 2006, section 4: deterministic loss, one loss every
    /// 1/p packets, no queueing so dwnd is active): between losses the
    /// window grows by `alpha W^k` per RTT and a loss multiplies it by
    /// `1 - beta`, so
    /// `W_max = ((2-k) alpha / (p (1 - (1-beta)^(2-k))))^(1/(2-k))`,
    /// a cycle lasts `N = W_max^(1-k) (1 - (1-beta)^(1-k)) / ((1-k) alpha)`
    /// RTTs, and the mean window is `(1/p) / N`, proportional to
    /// `p^(-1/(2-k)) = p^(-0.8)` (Reno: `p^(-0.5)`). The simulated mean
    /// window must follow it within 5 % over two decades of p.
    #[test]
    fn response_function_follows_the_paper_model() {
        let c = CompoundConfig::default();
        let (a, b, k) = (c.alpha, c.beta, c.k);
        let model = |p: f64| {
            let wmax = ((2.0 - k) * a / (p * (1.0 - (1.0 - b).powf(2.0 - k)))).powf(1.0 / (2.0 - k));
            let n = wmax.powf(1.0 - k) * (1.0 - (1.0 - b).powf(1.0 - k)) / ((1.0 - k) * a);
            (1.0 / p) / n
        };
        let mut sim = Vec::new();
        for p in [1e-3, 1e-4, 1e-5] {
            let mut s = ca_sender(20, RttModel::Fixed(SimDur::from_millis(100)));
            let every = (1.0 / p) as u64;
            let (mut acked, mut since_loss, mut rounds, mut losses) = (0u64, 0u64, 0u64, 0);
            while losses < 12 {
                let r = s.run_round();
                since_loss += r.acks as u64;
                if losses >= 2 {
                    acked += r.acks as u64;
                    rounds += 1;
                }
                if since_loss >= every {
                    s.loss_now(LossKind::FastRetransmit);
                    since_loss = 0;
                    losses += 1;
                }
            }
            let mean = acked as f64 / rounds as f64;
            let m = model(p);
            assert!((mean / m - 1.0).abs() < 0.05, "p = {p}: mean window {mean:.1}, model {m:.1}");
            eprintln!("compound response: p = {p:e}: simulated mean window {mean:.2}, model {m:.2}");
            sim.push(mean);
        }
        // log-log slope over the two decades: -1/(2-k) = -0.8
        let slope = (sim[2] / sim[0]).ln() / (1e-5f64 / 1e-3).ln();
        assert!((slope + 0.8).abs() < 0.03, "slope {slope}");
    }

    /// Slow start leaves dwnd alone; a timeout clears it.
    #[test]
    fn slow_start_and_timeout() {
        let mut s =
            TestSender::new(Compound::default(), MSS, 2, 64 * MSS as u64, RttModel::Fixed(SimDur::from_millis(100)));
        s.run_rounds(5);
        let c: Vec<u64> = s.records.iter().map(|r| r.cwnd / MSS as u64).collect();
        assert_eq!(c, vec![2, 4, 8, 16, 32]);
        assert_eq!(s.cc.delay_window(), 0);
        s.run_rounds(6);
        assert!(s.cc.delay_window() > 0);
        s.loss_now(LossKind::Timeout);
        assert_eq!(s.cc.delay_window(), 0);
        assert_eq!(s.win.cwnd, MSS as u64);
        s.run_round();
        assert_eq!(s.cc.loss_window(), s.win.cwnd);
    }

    /// The connection's own changes to cwnd are attributed to lwnd.
    #[test]
    fn reconciles_connection_changes() {
        let mut cc = Compound::default();
        let mut win = Window { cwnd: 50 * MSS as u64, ssthresh: 10 * MSS as u64, mss: MSS };
        cc.lwnd = 30 * MSS as u64;
        cc.dwnd = 20.0 * MSS as f64;
        cc.on_event(SimTime::ZERO, &mut win, CcEvent::RecoveryExit);
        assert_eq!((cc.loss_window(), cc.delay_window()), (30_000, 20_000));
        win.cwnd = 60 * MSS as u64;
        cc.on_event(SimTime::ZERO, &mut win, CcEvent::IdleRestart);
        assert_eq!((cc.loss_window(), cc.delay_window()), (40_000, 20_000));
        win.cwnd = 5 * MSS as u64;
        cc.on_event(SimTime::ZERO, &mut win, CcEvent::IdleRestart);
        assert_eq!((cc.loss_window(), cc.delay_window()), (1000, 4000));
    }

    #[test]
    fn app_limited_acks_do_not_grow() {
        let mut s = ca_sender(40, RttModel::Fixed(SimDur::from_millis(100)));
        s.app_limited = true;
        s.run_rounds(5);
        assert_eq!(s.win.cwnd, 40 * MSS as u64);
    }
}
