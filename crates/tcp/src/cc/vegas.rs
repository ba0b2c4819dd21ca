//! TCP Vegas: delay-based congestion avoidance.
//!
//! Source: L. S. Brakmo and L. L. Peterson, "TCP Vegas: End to End Congestion
//! Avoidance on a Global Internet", IEEE JSAC 13(8), 1995 (cited below as
//! "B&P"), with implementation details that the Linux `tcp_vegas` module
//! made conventional (cited as "Linux"). Facts only; no code was copied.
//!
//! # Algorithm (once per round trip)
//! - `BaseRTT` is the minimum of all RTT samples of the connection (B&P
//!   section 3.2: "the minimum of all measured round trip times").
//! - `RTT` for a round is the **minimum of the RTT samples taken during the
//!   last round trip** (Linux keeps `minRTT` per round to filter out
//!   delayed-ACK inflation; B&P time one distinguished segment per RTT).
//!   `[tcp.vegas] round_rtt = "mean"` takes their mean instead, as ns-2.35's
//!   `Agent/TCP/Vegas` does (`v_sumRTT_ / v_cntRTT_`); on a WLAN, where a
//!   segment's RTT varies without any queue, the mean reads a larger Diff
//!   for the same window, so that Vegas stops growing earlier.
//! - `Diff = cwnd * (1 - BaseRTT / RTT)` packets, which is
//!   `(Expected - Actual) * BaseRTT` with `Expected = cwnd / BaseRTT` and
//!   `Actual = cwnd / RTT` (B&P section 3.2). Linux uses
//!   `cwnd * (RTT - BaseRTT) / BaseRTT` instead (the same quantity scaled by
//!   `RTT / BaseRTT`); we follow the paper.
//! - Congestion avoidance (B&P 3.2): `Diff < alpha` -> cwnd += 1 MSS;
//!   `Diff > beta` -> cwnd -= 1 MSS; otherwise unchanged. Applied once at the
//!   end of the round (Linux), never below 2 MSS.
//! - Slow start (B&P 3.3): exponential growth only every other RTT (the
//!   window is held in between so Expected and Actual can be compared);
//!   leave slow start when `Diff > gamma`. On leaving, cwnd is cut to
//!   `Expected * BaseRTT + 1` packets (= `cwnd - Diff + 1`) and ssthresh set
//!   below cwnd (Linux `tcp_vegas_cong_avoid`: `min(cwnd, target_cwnd + 1)`,
//!   `ssthresh = min(ssthresh, cwnd - 1)`). Whenever CA decreases cwnd,
//!   ssthresh follows it down the same way (Linux) so the decrease does not
//!   re-enter slow start.
//! - Loss, [`VegasLoss::Reno`] (default): like Reno, `ssthresh =
//!   max(FlightSize / 2, 2 MSS)` (RFC 5681 eq. 4), with the connection's
//!   recovery variant. This is what ns-3 3.37 (`TcpVegas`, standard
//!   recovery of `TcpSocketBase`) and Linux (`tcp_vegas`, Reno's ssthresh)
//!   do, the references the project compares against.
//! - Loss, [`VegasLoss::Brakmo`] (`[tcp.vegas] loss_response = "brakmo"`):
//!   B&P section 3.1, as ns-2.35's `Agent/TCP/Vegas` implements it:
//!   1. the connection keeps a fine-grained timeout, `SRTT + 4 RTTVAR` of
//!      its RFC 6298 estimator without the minimum-RTO floor or the coarse
//!      clock of 4.4BSD (doubled for a segment already retransmitted), and
//!      checks it on every duplicate ACK: if the first unacknowledged
//!      segment was sent longer ago than that, it is retransmitted at once
//!      (fast retransmit without waiting for three duplicates);
//!   2. on the first and second new ACK after such a retransmission it
//!      checks the next unacknowledged segment the same way and resends it
//!      if expired (a second loss of the same window is repaired without a
//!      coarse timeout), without a further window change; that resend is
//!      the segment's fast retransmit, so the duplicate ACKs that follow
//!      inflate the window and start no second one (RFC 5681 3.2 step 4;
//!      crates/tcp/src/recovery.rs);
//!   3. the window is cut only for a segment sent after the last cut
//!      ("losses at the current sending rate"), by one quarter (`cwnd -
//!      cwnd / 4`), or by half if the lost segment was itself a
//!      retransmission; never below 2 MSS. Timeouts are Reno's.
//!
//! # Defaults (B&P section 4 / Linux module parameters)
//! `alpha = 2`, `beta = 4`, `gamma = 1` packets.
//!
//! # Round detection
//! The trait gives no sequence numbers, so a round is tracked in
//! "acknowledged-bytes" coordinates: at a round boundary the controller
//! records `snd_nxt` as `acked_total_before + prior_in_flight`, and the round
//! ends at the first ACK whose cumulative advance goes strictly past it
//! (Linux: `after(ack, beg_snd_nxt)`). See [`RoundTracker`].
//!
//! # Other choices (documented deviations)
//! - RTT samples are taken only from [`CongestionControl::on_rtt_sample`]
//!   (`AckInfo::rtt` is ignored to avoid double counting); the connection is
//!   expected to call `on_rtt_sample` before `on_ack` for the same ACK.
//! - Linux falls back to Reno growth when a round had fewer than 3 samples;
//!   we do the same with [`VegasConfig::min_samples`] (default 3).
//! - ACKs that arrive while the sender is application- or rwnd-limited do
//!   not change the window (RFC 7661 spirit; Linux `tcp_is_cwnd_limited`).
//! - `Diff` is compared as a real number (B&P). ns-2.35's `Agent/TCP/Vegas`
//!   rounds it to the nearest integer first (`int(x + 0.5)`), so there it
//!   grows while `Diff < alpha - 0.5`, shrinks when `Diff >= beta + 0.5` and
//!   leaves slow start when `Diff >= gamma + 0.5`; thresholds shifted by half
//!   a packet give its rule.
//! - Every RTT sample of the connection reaches `BaseRTT`, the handshake's
//!   too (B&P: "the minimum of all measured round trip times"). A SYN-ACK
//!   carries no payload, so over a slow link its RTT is below any full
//!   segment's (24 Mbit/s 802.11g: 30.19 against 30.79 ms); ns-2 has no
//!   handshake, and Linux initialises Vegas's minimum when the connection
//!   is established (`vegas_init`), after the handshake's sample.
//! - After a loss, recovery exit or idle restart, the current round is
//!   restarted (Linux `vegas_enable`); `BaseRTT` is kept (B&P: minimum of
//!   all samples), whereas Linux resets it after idle.
use super::{check_param, half_flight, AckInfo, CcEvent, CcKind, CcTraceState, CongestionControl, LossKind, Window};
use wifitcp_core::config::{ConfigError, KeyType};
use wifitcp_core::schema::B::In;
use wifitcp_core::schema::{r, Ty};
use wifitcp_core::{SimDur, SimTime};

wifitcp_core::config_table! {
    /// `[tcp.vegas]`: the thresholds of [`VegasConfig`], in packets of
    /// backlog, and its loss response.
    #[serde(deny_unknown_fields)]
    pub struct VegasTable {
        /// Grow while Diff < alpha.
        #[key(range = r(In(0.0), In(1e6)), unit = "packets")]
        pub alpha: f64 = 2.0,
        /// Shrink while Diff > beta; >= alpha.
        #[key(range = r(In(0.0), In(1e6)), unit = "packets")]
        pub beta: f64 = 4.0,
        /// Leave slow start when Diff > gamma.
        #[key(range = r(In(0.0), In(1e6)), unit = "packets")]
        pub gamma: f64 = 1.0,
        /// "reno" (as ns-3 and Linux) or "brakmo" (Brakmo & Peterson 3.1, as ns-2).
        pub loss_response: VegasLoss = VegasLoss::Reno,
        /// A round's RTT: "min" of its samples (Linux) or their "mean" (ns-2.35).
        pub round_rtt: VegasRoundRtt = VegasRoundRtt::Min,
    }
}

impl CcKind for VegasTable {
    fn check(&self) -> Result<(), ConfigError> {
        check_param("alpha", self.alpha, self.alpha >= 0.0, "must be non-negative")?;
        check_param("beta", self.beta, self.beta >= 0.0, "must be non-negative")?;
        check_param("gamma", self.gamma, self.gamma >= 0.0, "must be non-negative")?;
        if self.beta < self.alpha {
            return Err(ConfigError::new("beta", format!("must be at least alpha ({}), got {}", self.alpha, self.beta)));
        }
        Ok(())
    }
    fn build(&self) -> Box<dyn CongestionControl> {
        Box::new(Vegas::new(VegasConfig::from(self)))
    }
}

impl From<&VegasTable> for VegasConfig {
    fn from(t: &VegasTable) -> VegasConfig {
        VegasConfig {
            alpha: t.alpha,
            beta: t.beta,
            gamma: t.gamma,
            loss_response: t.loss_response,
            round_rtt: t.round_rtt,
            ..VegasConfig::default()
        }
    }
}

/// Vegas parameters (packets). Defaults: alpha 2, beta 4, gamma 1 (B&P 1995).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VegasConfig {
    /// Increase cwnd by 1 MSS per RTT while `Diff < alpha`.
    pub alpha: f64,
    /// Decrease cwnd by 1 MSS per RTT while `Diff > beta`.
    pub beta: f64,
    /// Leave slow start when `Diff > gamma`.
    pub gamma: f64,
    /// Minimum RTT samples in a round for a Vegas decision; fewer -> Reno
    /// behaviour for that round (Linux uses 3).
    pub min_samples: u32,
    /// B&P 3.3: grow exponentially only every other RTT. `false` gives
    /// Linux's every-ACK slow start.
    pub ss_every_other_rtt: bool,
    /// Loss response (module docs); default Reno's, as ns-3 and Linux.
    pub loss_response: VegasLoss,
    /// The RTT a round's decision reads (module docs); default the minimum.
    pub round_rtt: VegasRoundRtt,
}

/// Vegas's reaction to loss (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VegasLoss {
    /// Reno's: three duplicate ACKs, half the flight (ns-3 3.37, Linux).
    #[default]
    Reno,
    /// Brakmo & Peterson 1995 section 3.1 (ns-2.35 `Agent/TCP/Vegas`).
    Brakmo,
}

impl KeyType for VegasLoss {
    const TY: Ty = Ty::Str;
}

/// The RTT of a round that Vegas's once-per-round decision reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VegasRoundRtt {
    /// The minimum of the round's samples (Linux `tcp_vegas`, which filters
    /// delayed-ACK inflation with it).
    #[default]
    Min,
    /// The mean of the round's samples (ns-2.35's `Agent/TCP/Vegas`:
    /// `v_sumRTT_ / v_cntRTT_`).
    Mean,
}

impl KeyType for VegasRoundRtt {
    const TY: Ty = Ty::Str;
}

impl Default for VegasConfig {
    /// The thresholds and loss response of [`VegasTable`]'s defaults.
    fn default() -> Self {
        let t = VegasTable::default();
        VegasConfig {
            alpha: t.alpha,
            beta: t.beta,
            gamma: t.gamma,
            min_samples: 3,
            ss_every_other_rtt: true,
            loss_response: t.loss_response,
            round_rtt: t.round_rtt,
        }
    }
}

/// RTT statistics of one completed round (one RTT's worth of ACKs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundStats {
    /// Minimum RTT sample of the round (None if the round had no samples).
    pub min_rtt: Option<SimDur>,
    /// Mean of the round's RTT samples (None if it had none).
    pub mean_rtt: Option<SimDur>,
    /// Number of RTT samples in the round.
    pub samples: u32,
    /// True for the partial round that ends on the first ACK after a
    /// (re)start; its samples do not describe a full round.
    pub partial: bool,
}

/// Detects round-trip boundaries from ACK progress and collects the RTT
/// samples of each round. Shared by the delay-based controllers (Vegas,
/// Compound TCP).
#[derive(Clone, Debug, Default)]
pub struct RoundTracker {
    /// Cumulative bytes acknowledged since creation ("snd_una" coordinate).
    acked_total: u64,
    /// The `snd_nxt` recorded at the last boundary, same coordinate.
    round_end: u64,
    /// Next ACK starts a fresh round (after creation, loss or idle).
    restart: bool,
    min_rtt: Option<SimDur>,
    samples: u32,
    /// Sum of the round's samples (ns), for their mean.
    sum_ns: u64,
    base_rtt: Option<SimDur>,
}

impl RoundTracker {
    pub fn new() -> Self {
        RoundTracker { restart: true, ..Default::default() }
    }

    /// Record an RTT sample (zero is raised to 1 ns so ratios stay finite).
    pub fn on_rtt(&mut self, rtt: SimDur) {
        let rtt = rtt.max(SimDur::from_nanos(1));
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
        self.base_rtt = Some(self.base_rtt.map_or(rtt, |m| m.min(rtt)));
        self.samples += 1;
        self.sum_ns += rtt.as_nanos();
    }

    /// Account for an ACK; returns the statistics of the round that this ACK
    /// completed, if any. `prior_in_flight` is the flight size before the ACK.
    pub fn on_ack(&mut self, acked_bytes: u64, prior_in_flight: u64) -> Option<RoundStats> {
        let before = self.acked_total;
        self.acked_total += acked_bytes;
        if self.restart || self.acked_total > self.round_end {
            let mean_rtt = (self.samples > 0).then(|| SimDur::from_nanos(self.sum_ns / self.samples as u64));
            let stats = RoundStats { min_rtt: self.min_rtt, mean_rtt, samples: self.samples, partial: self.restart };
            self.restart = false;
            // snd_nxt as of this ACK: snd_una before it plus what was in flight.
            self.round_end = before + prior_in_flight;
            self.min_rtt = None;
            self.samples = 0;
            self.sum_ns = 0;
            return Some(stats);
        }
        None
    }

    /// Discard the current round; the next ACK starts a new one.
    pub fn restart(&mut self) {
        self.restart = true;
        self.min_rtt = None;
        self.samples = 0;
        self.sum_ns = 0;
    }

    /// Minimum RTT ever sampled.
    pub fn base_rtt(&self) -> Option<SimDur> {
        self.base_rtt
    }
}

/// `Diff = cwnd * (1 - base/rtt)` in packets (B&P section 3.2).
pub fn vegas_diff(cwnd_pkts: f64, base: SimDur, rtt: SimDur) -> f64 {
    cwnd_pkts * (1.0 - base.as_nanos() as f64 / rtt.as_nanos().max(1) as f64)
}

/// TCP Vegas controller.
#[derive(Clone, Debug)]
pub struct Vegas {
    cfg: VegasConfig,
    rounds: RoundTracker,
    /// In slow start: does the current round grow the window (B&P 3.3)?
    ss_grow_round: bool,
    /// Reno congestion-avoidance byte accumulator (fallback rounds).
    ca_acc: u64,
    last_diff: Option<f64>,
    /// Brakmo loss response: when the window was last cut for a loss, and
    /// the segment the pending fast retransmit resends (last sent at,
    /// already a retransmission).
    last_cut: Option<SimTime>,
    loss_seg: Option<(SimTime, bool)>,
}

impl Vegas {
    pub fn new(cfg: VegasConfig) -> Self {
        Vegas {
            cfg,
            rounds: RoundTracker::new(),
            ss_grow_round: true,
            ca_acc: 0,
            last_diff: None,
            last_cut: None,
            loss_seg: None,
        }
    }
    pub fn config(&self) -> &VegasConfig {
        &self.cfg
    }
    /// Minimum RTT seen so far (BaseRTT).
    pub fn base_rtt(&self) -> Option<SimDur> {
        self.rounds.base_rtt()
    }
    /// `Diff` computed at the end of the most recent full round, in packets.
    pub fn last_diff(&self) -> Option<f64> {
        self.last_diff
    }

    fn min_cwnd(win: &Window) -> u64 {
        2 * win.mss as u64
    }

    /// Reno congestion-avoidance growth for a round-end ACK when the round
    /// had too few samples (Linux falls back to `tcp_reno_cong_avoid`):
    /// RFC 5681 eq. (3) with byte counting (RFC 3465).
    fn reno_ca_ack(&mut self, win: &mut Window, acked: u64) {
        self.ca_acc += acked;
        if self.ca_acc >= win.cwnd {
            self.ca_acc -= win.cwnd;
            win.cwnd += win.mss as u64;
        }
    }

    /// The once-per-RTT Vegas decision, taken on the ACK that ends a round.
    fn end_of_round(&mut self, win: &mut Window, stats: RoundStats, acked: u64) {
        let mss = win.mss as u64;
        let usable = !stats.partial && stats.samples >= self.cfg.min_samples;
        let rtt = match self.cfg.round_rtt {
            VegasRoundRtt::Min => stats.min_rtt,
            VegasRoundRtt::Mean => stats.mean_rtt,
        };
        let diff = match (usable, rtt, self.rounds.base_rtt()) {
            (true, Some(rtt), Some(base)) => {
                let d = vegas_diff(win.cwnd as f64 / mss as f64, base, rtt);
                self.last_diff = Some(d);
                Some(d)
            }
            _ => None,
        };
        if win.cwnd < win.ssthresh {
            // Slow start. With every-other-RTT growth, compare only at the
            // end of a hold round, when the window was constant (B&P 3.3).
            let comparable = !self.cfg.ss_every_other_rtt || !self.ss_grow_round;
            if let Some(d) = diff.filter(|&d| comparable && d > self.cfg.gamma) {
                // Leave slow start (Linux: cwnd = min(cwnd, target_cwnd + 1)
                // with target_cwnd = cwnd * BaseRTT / RTT = cwnd - Diff).
                let target_pkts = (win.cwnd as f64 / mss as f64 - d).floor().max(0.0) as u64 + 1;
                win.cwnd = win.cwnd.min(target_pkts * mss).max(Self::min_cwnd(win));
                win.ssthresh = win.ssthresh.min(win.cwnd.saturating_sub(mss)).max(Self::min_cwnd(win)).min(win.cwnd);
                self.ss_grow_round = true;
                return;
            }
            if self.cfg.ss_every_other_rtt && !stats.partial {
                self.ss_grow_round = !self.ss_grow_round;
            }
            if !self.cfg.ss_every_other_rtt || self.ss_grow_round {
                win.cwnd += acked.min(mss); // RFC 5681 eq. (2), first ACK of a growth round
            }
            return;
        }
        match diff {
            None => self.reno_ca_ack(win, acked),
            Some(d) if d < self.cfg.alpha => win.cwnd += mss,
            Some(d) if d > self.cfg.beta => {
                win.cwnd = win.cwnd.saturating_sub(mss).max(Self::min_cwnd(win));
                // Keep cwnd > ssthresh so the decrease does not re-enter slow start.
                win.ssthresh = win.ssthresh.min(win.cwnd.saturating_sub(mss).max(Self::min_cwnd(win)));
            }
            Some(_) => {}
        }
    }
}

impl Default for Vegas {
    fn default() -> Self {
        Vegas::new(VegasConfig::default())
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn on_ack(&mut self, win: &mut Window, ack: &AckInfo) {
        let round = self.rounds.on_ack(ack.acked_bytes, ack.prior_in_flight);
        if ack.app_or_rwnd_limited {
            return;
        }
        match round {
            Some(stats) => self.end_of_round(win, stats, ack.acked_bytes),
            None => {
                let in_ss = win.cwnd < win.ssthresh;
                if in_ss && (!self.cfg.ss_every_other_rtt || self.ss_grow_round) {
                    win.cwnd += ack.acked_bytes.min(win.mss as u64); // RFC 5681 eq. (2)
                }
            }
        }
    }

    fn on_rtt_sample(&mut self, _now: SimTime, rtt: SimDur) {
        self.rounds.on_rtt(rtt);
    }

    fn ssthresh_after_loss(&mut self, now: SimTime, win: &Window, in_flight: u64, kind: LossKind) -> u64 {
        self.rounds.restart();
        self.ss_grow_round = true;
        self.ca_acc = 0;
        let seg = self.loss_seg.take();
        if self.cfg.loss_response == VegasLoss::Brakmo && kind == LossKind::FastRetransmit {
            // B&P 3.1: cut only for a loss at the current rate (a segment
            // sent after the last cut), by a quarter, or by half if the
            // segment was already a retransmission.
            let (sent_at, retransmitted) = seg.unwrap_or((now, false));
            if self.last_cut.is_some_and(|cut| sent_at < cut) {
                return win.cwnd.max(2 * win.mss as u64);
            }
            self.last_cut = Some(now);
            let cwnd = win.cwnd;
            let cut = if retransmitted { cwnd / 2 } else { cwnd - cwnd / 4 };
            return cut.max(2 * win.mss as u64);
        }
        self.last_cut = Some(now);
        half_flight(in_flight, win.mss)
    }

    fn fine_grained_loss(&self) -> bool {
        self.cfg.loss_response == VegasLoss::Brakmo
    }

    fn on_loss_segment(&mut self, sent_at: SimTime, retransmitted: bool) {
        self.loss_seg = Some((sent_at, retransmitted));
    }

    fn on_event(&mut self, _now: SimTime, _win: &mut Window, ev: CcEvent) {
        match ev {
            CcEvent::RecoveryExit | CcEvent::IdleRestart => self.rounds.restart(),
        }
    }

    fn trace_state(&self, win: &Window) -> CcTraceState {
        CcTraceState::new(
            super::window_mode(win),
            &["base_rtt_ms", "diff_segments"],
            [self.rounds.base_rtt().map(|d| d.as_secs_f64() * 1e3), self.last_diff, None, None],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testkit::{RttModel, TestSender};

    const MSS: u32 = 1000;

    #[test]
    fn round_tracker_rounds_span_one_window() {
        let mut rt = RoundTracker::new();
        // First ACK closes the (partial) start-up round.
        let s = rt.on_ack(1000, 10_000).unwrap();
        assert!(s.partial);
        // The next 9 ACKs stay inside the round, the 10th ends it.
        for _ in 0..9 {
            rt.on_rtt(SimDur::from_millis(50));
            assert!(rt.on_ack(1000, 10_000).is_none());
        }
        rt.on_rtt(SimDur::from_millis(40));
        let s = rt.on_ack(1000, 10_000).unwrap();
        assert!(!s.partial);
        assert_eq!(s.samples, 10);
        assert_eq!(s.min_rtt, Some(SimDur::from_millis(40)));
        assert_eq!(s.mean_rtt, Some(SimDur::from_millis(49)));
        assert_eq!(rt.base_rtt(), Some(SimDur::from_millis(40)));
    }

    /// `round_rtt`: a round whose samples are 30 and 50 ms over a 30 ms
    /// BaseRTT; at 20 packets the minimum reads no queue (Diff 0 < alpha:
    /// grow), the mean (40 ms) Diff = 20 (1 - 30/40) = 5 > beta (shrink).
    #[test]
    fn round_rtt_min_or_mean() {
        let cwnd_after = |round_rtt: VegasRoundRtt| {
            let cfg = VegasConfig { alpha: 1.0, beta: 3.0, round_rtt, ..VegasConfig::default() };
            let mut v = Vegas::new(cfg);
            v.rounds.on_rtt(SimDur::from_millis(30));
            let stats = RoundStats {
                min_rtt: Some(SimDur::from_millis(30)),
                mean_rtt: Some(SimDur::from_millis(40)),
                samples: 20,
                partial: false,
            };
            let mut win = Window { cwnd: 20 * MSS as u64, ssthresh: 10 * MSS as u64, mss: MSS };
            v.end_of_round(&mut win, stats, MSS as u64);
            win.cwnd / MSS as u64
        };
        assert_eq!(cwnd_after(VegasRoundRtt::Min), 21);
        assert_eq!(cwnd_after(VegasRoundRtt::Mean), 19);
    }

    #[test]
    fn diff_formula() {
        // 20 packets, RTT twice the base: half the window is queued.
        let d = vegas_diff(20.0, SimDur::from_millis(50), SimDur::from_millis(100));
        assert!((d - 10.0).abs() < 1e-12);
    }

    /// With RTT == BaseRTT there is never a queue, so CA grows 1 MSS per RTT.
    #[test]
    fn constant_rtt_grows_one_mss_per_rtt() {
        let mut s =
            TestSender::new(Vegas::default(), MSS, 10, 10 * MSS as u64, RttModel::Fixed(SimDur::from_millis(100)));
        s.run_rounds(3);
        let start = s.win.cwnd / MSS as u64;
        s.run_rounds(20);
        let end = s.win.cwnd / MSS as u64;
        assert_eq!(end - start, 20, "Vegas CA with no queueing must add exactly 1 MSS per RTT");
        for r in &s.records[3..] {
            assert!(r.ssthresh <= r.cwnd);
        }
    }

    /// Bottleneck of 200 pkt/s and base RTT 100 ms: BDP = 20 packets. Vegas
    /// must settle with Diff (= queued packets) within [alpha, beta].
    #[test]
    fn converges_to_alpha_beta_band_with_queue() {
        let model = RttModel::Bottleneck { base: SimDur::from_millis(100), rate_pps: 200.0 };
        let mut s = TestSender::new(Vegas::default(), MSS, 4, 4 * MSS as u64, model);
        s.run_rounds(60);
        for r in &s.records[40..] {
            let w = r.cwnd as f64 / MSS as f64;
            let queued = w - 20.0;
            assert!((2.0..=4.0 + 1.0).contains(&queued), "round {}: cwnd {} pkts, queue {}", r.round, w, queued);
        }
        let d = s.cc.last_diff().unwrap();
        assert!((2.0..=4.0).contains(&d), "Diff {d} outside [alpha, beta]");
        // And it is stable: no change over the last 10 rounds.
        let tail: Vec<u64> = s.records[50..].iter().map(|r| r.cwnd).collect();
        assert!(tail.windows(2).all(|w| w[0] == w[1]), "{tail:?}");
    }

    /// The bottleneck rate halves (BDP 20 -> 10 packets) once Vegas has
    /// settled: the queue jumps above beta and Vegas drains it by 1 MSS per
    /// RTT until Diff <= beta, without falling back into slow start.
    #[test]
    fn decreases_when_diff_above_beta() {
        let model = RttModel::Bottleneck { base: SimDur::from_millis(100), rate_pps: 200.0 };
        let mut s = TestSender::new(Vegas::default(), MSS, 10, 10 * MSS as u64, model);
        s.run_rounds(40);
        let w0 = s.win.cwnd / MSS as u64;
        assert!((22..=24).contains(&w0));
        s.model = RttModel::Bottleneck { base: SimDur::from_millis(100), rate_pps: 100.0 };
        let first = s.records.len();
        s.run_rounds(30);
        let c: Vec<u64> = s.records[first..].iter().map(|r| r.cwnd / MSS as u64).collect();
        // Non-increasing, at most one packet per round, ends in the band.
        assert!(c.windows(2).all(|w| w[1] <= w[0] && w[0] - w[1] <= 1), "{c:?}");
        assert!(c[0] - c[c.len() - 1] >= 8, "{c:?}");
        let q = s.model.queued(*c.last().unwrap() as f64);
        assert!((2.0..=4.0).contains(&q), "{c:?}");
        assert!(s.records.iter().all(|r| r.cwnd >= r.ssthresh));
    }

    /// Slow start doubles every other RTT and stops at the first comparable
    /// round with Diff > gamma; the window is then cut to Expected + 1.
    #[test]
    fn slow_start_every_other_rtt_and_exit_on_gamma() {
        let model = RttModel::Bottleneck { base: SimDur::from_millis(100), rate_pps: 200.0 };
        let mut s = TestSender::new(Vegas::default(), MSS, 2, u64::MAX / 2, model);
        s.run_rounds(14);
        let c: Vec<u64> = s.records.iter().map(|r| r.cwnd / MSS as u64).collect();
        let exit = s.records.iter().position(|r| r.ssthresh < u64::MAX / 2).expect("never left slow start");
        // Round 0 grows (start-up), round 1 holds (its end is the first round
        // with samples), then grow/hold alternate: 2 -> 4 = 4 -> 8 = 8 ...
        // The hold round at 32 packets (12 queued, Diff = 32 (1 - 100/160)
        // = 12 > gamma) ends slow start with cwnd = floor(32 - 12) + 1 = 21
        // and ssthresh = 20.
        assert_eq!(&c[..=exit], &[2, 4, 4, 8, 8, 16, 16, 32, 32, 21], "{c:?}");
        assert_eq!(s.records[exit].ssthresh, 20 * MSS as u64);
        assert!(s.records[..exit].iter().all(|r| r.ssthresh == u64::MAX / 2));
        // Later it settles into the [alpha, beta] band.
        s.run_rounds(30);
        let q = s.win.cwnd as f64 / MSS as f64 - 20.0;
        assert!((2.0..=5.0).contains(&q), "queue {q}");
    }

    /// B&P 3.3: the slow-start exit test is made only at the end of a hold
    /// round. With BDP = 15.2 packets the hold round at W = 16 sees Diff =
    /// 0.8 <= gamma; the following growth round ends with Diff ~ 1.6 (the
    /// window doubled while the RTT still reflects 16 packets), which must
    /// not count; the next hold round (W = 32, 16.8 queued) exits with
    /// cwnd = Expected + 1 = 16.
    #[test]
    fn slow_start_compares_only_in_hold_rounds() {
        let model = RttModel::Bottleneck { base: SimDur::from_millis(100), rate_pps: 152.0 };
        let mut s = TestSender::new(Vegas::default(), MSS, 2, u64::MAX / 2, model);
        s.run_rounds(12);
        let exit = s.records.iter().position(|r| r.ssthresh < u64::MAX / 2).expect("never left slow start");
        let c: Vec<u64> = s.records.iter().map(|r| r.cwnd / MSS as u64).collect();
        assert_eq!(c[exit - 1], 32, "{c:?}");
        assert_eq!(c[exit], 16, "{c:?}");
    }

    #[test]
    fn loss_halves_flight_like_reno() {
        let mut s =
            TestSender::new(Vegas::default(), MSS, 40, 10 * MSS as u64, RttModel::Fixed(SimDur::from_millis(50)));
        s.run_rounds(2);
        let flight = s.win.cwnd;
        let th = s.cc.ssthresh_after_loss(s.now, &s.win, flight, LossKind::FastRetransmit);
        assert_eq!(th, flight / 2);
        let th = s.cc.ssthresh_after_loss(s.now, &s.win, 3 * MSS as u64, LossKind::Timeout);
        assert_eq!(th, 2 * MSS as u64);
    }

    #[test]
    fn app_limited_acks_do_not_grow() {
        let mut s =
            TestSender::new(Vegas::default(), MSS, 10, 10 * MSS as u64, RttModel::Fixed(SimDur::from_millis(100)));
        s.app_limited = true;
        s.run_rounds(10);
        assert_eq!(s.win.cwnd, 10 * MSS as u64);
    }
}
