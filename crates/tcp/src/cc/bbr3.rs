//! BBR v3 (Cardwell, Swett, Vasiliev et al., draft-ietf-ccwg-bbr, "BBR
//! Congestion Control", cited as "draft" with the name of its pseudocode
//! routine or constant; facts checked against Linux's `tcp_bbr.c` of the
//! v3 branch).
//!
//! Model (draft "BBR.max_bw", "BBR.min_rtt", the long- and short-term
//! models):
//! - `bw_hi` (the draft's max_bw): the maximum delivery-rate sample
//!   ([`crate::rate`]) over the last two ProbeBW cycles (MaxBwFilterLen = 2;
//!   one window in Startup and Drain); an application-limited sample enters
//!   only if it raises it.
//! - `min_rtt`: the minimum RTT over 10 s (MinRTTFilterLen); ProbeRTT follows
//!   5 s (ProbeRTTInterval) without a new minimum of its own 5 s filter.
//! - long term: `inflight_hi`, the data in flight above which loss or ECN
//!   marks exceed their thresholds, set by a probe that sees them
//!   (BBRHandleInflightTooHigh: `max(tx_in_flight, beta x target inflight)`)
//!   and raised in ProbeBW_UP with a slope doubling each round
//!   (BBRProbeInflightHiUpward);
//! - short term: `bw_lo` and `inflight_lo`, cut once per round with loss
//!   outside probing to `max(latest, beta x lo)` (BBRAdaptLowerBoundsFromCongestion)
//!   and reset at Refill and at ProbeRTT's end (BBRResetLowerBounds).
//!
//! The estimate used is `bw = min(bw_hi, bw_lo)`; pacing rate =
//! pacing_gain x bw x (1 - 1 %) (PacingMarginPercent); cwnd target =
//! cwnd_gain x bw x min_rtt + 3 send quanta, capped by `inflight_hi` in
//! ProbeBW Down / Refill / Up, by `inflight_hi x (1 - headroom 0.15)` in
//! Cruise and ProbeRTT, by `inflight_lo` always, and never below 4 packets.
//!
//! States (draft): Startup (pacing gain 2.77 = 4 ln 2, cwnd gain 2) until
//! the bandwidth has not grown by 25 % for 3 rounds or a round's loss rate
//! exceeds 2 % with at least 6 loss events (BBRCheckStartupHighLoss) or its
//! CE fraction exceeds 0.5; Drain (pacing gain 0.35) until in flight is at
//! most one BDP; ProbeBW: Down (pacing 0.9) until in flight is at most the
//! BDP and below inflight_hi's headroom, Cruise (1.0) until 2-3 s (random)
//! or min(BDP in packets, 63) rounds have passed since the last probe
//! (BBRCheckTimeToProbeBW, Reno coexistence), Refill (1.0) for one round,
//! Up (1.25, cwnd gain 2.25) until a round trip has passed and in flight
//! reaches 1.25 BDP, or loss / ECN is too high; ProbeRTT (cwnd 0.5 BDP,
//! pacing 1.0) for 200 ms and a round after in flight reaches that cwnd.
//!
//! Loss and ECN (draft, BBRIsInflightTooHigh, LossThresh 2 %, Beta 0.7,
//! ECNThresh 0.5, ECNFactor 1/3 as Linux's `bbr_ecn_factor`): a probe (Up,
//! Refill or Startup) whose round loses more than 2 % of the data that was
//! in flight, or sees CE marks on more than half of it, sets
//! inflight_hi and goes Down; outside probing a round with CE marks cuts
//! inflight_lo by `ecn_factor x ce_alpha` (ce_alpha the EWMA, gain 1/16
//! per round, of the rounds' CE fraction; Linux `bbr_ecn_alpha_gain`).
//!
//! Choices (documented deviations):
//! - Windows in bytes; a "packet" is one SMSS.
//! - Loss rate: the data newly marked lost during the round over the data
//!   in flight when the round began (the draft divides each sample's
//!   `rs.lost` by its packet's `tx_in_flight`, which the connection does not
//!   stamp); the CE-marked data likewise; `tx_in_flight` in BBRHandleInflightTooHigh is the ACK's
//!   `prior_in_flight`. A loss event is an ACK that marks data lost.
//! - The CE fraction is the fraction of acknowledged bytes whose ACK
//!   carried ECE ([`CongestionControl::on_ecn_feedback`]); it is the CE
//!   fraction with `[tcp] ecn = "accurate"` (with RFC 3168 echoes ECE
//!   stays on until CWR). The connection's once-per-window RFC 3168
//!   reduction is undone at the next update: cwnd is BBR's.
//! - No ACK-aggregation extra cwnd, no idle restart (a bulk sender is never
//!   idle), no full_bw_now plateau check inside Up: Linux's rule (a round
//!   trip and in flight at 1.25 BDP) ends Up.
//! - Fast recovery's packet conservation and cwnd save / restore are BBR
//!   v1's ([`super::bbr_common::RecoveryCwnd`]; the drafts state the same
//!   BBRModulateCwndForRecovery).
use super::bbr_common::{next_random, send_quantum, CwndStep, MaxFilter, RecoveryCwnd};
use super::{check_param, AckInfo, CcKind, CcTraceState, CongestionControl, EcnFeedback, LossKind, Window};
use crate::rate::RateSample;
use crate::sender::LossState;
use wifitcp_core::config::ConfigError;
use wifitcp_core::schema::r;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::{SimDur, SimTime};

/// BBRStartupFullLossCnt (draft): loss events in a round for Startup's loss exit.
pub const STARTUP_FULL_LOSS_CNT: u32 = 6;
/// BBRMinPipeCwnd (draft), in packets.
pub const MIN_PIPE_CWND_PKTS: u64 = 4;
/// ProbeBW_DOWN's and ProbeBW_UP's pacing gains (draft).
pub const DOWN_GAIN: f64 = 0.9;
pub const UP_GAIN: f64 = 1.25;
/// ProbeBW_UP's cwnd gain (draft: 2.25).
pub const UP_CWND_GAIN: f64 = 2.25;
/// Drain's pacing gain (draft BBRDrainPacingGain 0.35; Linux 1/2.885).
pub const DRAIN_GAIN: f64 = 0.35;
/// Headroom left below inflight_hi in Cruise (draft BBRHeadroom).
pub const HEADROOM: f64 = 0.15;
/// PacingMarginPercent (draft): pace 1 % below the estimate.
pub const PACING_MARGIN: f64 = 0.01;

wifitcp_core::config_table! {
    /// `[tcp.bbr3]`: BBR v3's parameters (draft-ietf-ccwg-bbr).
    #[serde(deny_unknown_fields)]
    pub struct Bbr3Table {
        /// Startup's pacing gain (4 ln 2).
        #[key(range = r(Ex(1.0), In(100.0)))]
        pub startup_pacing_gain: f64 = 2.77,
        /// Startup's and ProbeBW's cwnd gain.
        #[key(range = r(In(1.0), In(100.0)))]
        pub cwnd_gain: f64 = 2.0,
        /// Loss rate of a round above which the data in flight is too high (LossThresh).
        #[key(range = r(Ex(0.0), Ex(1.0)))]
        pub loss_thresh: f64 = 0.02,
        /// Multiplicative cut of the models on loss (Beta).
        #[key(range = r(Ex(0.0), Ex(1.0)))]
        pub beta: f64 = 0.7,
        /// CE-marked fraction of a round above which the data in flight is too high (ECNThresh).
        #[key(range = r(Ex(0.0), In(1.0)))]
        pub ecn_thresh: f64 = 0.5,
        /// inflight_lo's cut per CE alpha outside probing (Linux bbr_ecn_factor).
        #[key(range = r(In(0.0), In(1.0)))]
        pub ecn_factor: f64 = 0.333,
        /// Time without a new minimum RTT after which ProbeRTT follows.
        #[key(range = r(Ex(0.0), In(3600.0)), unit = "s")]
        pub probe_rtt_interval_s: f64 = 5.0,
        /// ProbeRTT's duration at its cwnd.
        #[key(range = r(Ex(0.0), In(60000.0)), unit = "ms")]
        pub probe_rtt_ms: f64 = 200.0,
        /// ProbeRTT's cwnd as a multiple of the BDP.
        #[key(range = r(Ex(0.0), In(1.0)))]
        pub probe_rtt_cwnd_gain: f64 = 0.5,
        /// Send quantum in segments; 0: the draft's rule (1, 2 or 1 ms of data by pacing rate).
        #[key(range = r(In(0.0), In(64.0)), unit = "segments")]
        pub quantum_segments: u32 = 0,
    }
}

impl CcKind for Bbr3Table {
    fn check(&self) -> Result<(), ConfigError> {
        let g = self.startup_pacing_gain;
        check_param("startup_pacing_gain", g, g > 1.0, "must be above 1")?;
        check_param("cwnd_gain", self.cwnd_gain, self.cwnd_gain >= 1.0, "must be at least 1")?;
        let f = |x: f64| x > 0.0 && x < 1.0;
        check_param("loss_thresh", self.loss_thresh, f(self.loss_thresh), "must be in (0, 1)")?;
        check_param("beta", self.beta, f(self.beta), "must be in (0, 1)")?;
        let e = self.ecn_thresh;
        check_param("ecn_thresh", e, e > 0.0 && e <= 1.0, "must be in (0, 1]")?;
        let e = self.ecn_factor;
        check_param("ecn_factor", e, (0.0..=1.0).contains(&e), "must be in [0, 1]")?;
        let w = self.probe_rtt_interval_s;
        check_param("probe_rtt_interval_s", w, w > 0.0, "must be positive")?;
        check_param("probe_rtt_ms", self.probe_rtt_ms, self.probe_rtt_ms > 0.0, "must be positive")?;
        let p = self.probe_rtt_cwnd_gain;
        check_param("probe_rtt_cwnd_gain", p, p > 0.0 && p <= 1.0, "must be in (0, 1]")
    }
    fn build(&self) -> Box<dyn CongestionControl> {
        Box::new(Bbr3::new(self))
    }
}

/// BBR v3's states (draft), ProbeBW with its four phases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Startup,
    Drain,
    Down,
    Cruise,
    Refill,
    Up,
    ProbeRtt,
}

impl State {
    pub fn name(self) -> &'static str {
        match self {
            State::Startup => "startup",
            State::Drain => "drain",
            State::Down => "probe_bw_down",
            State::Cruise => "probe_bw_cruise",
            State::Refill => "probe_bw_refill",
            State::Up => "probe_bw_up",
            State::ProbeRtt => "probe_rtt",
        }
    }
    fn probing(self) -> bool {
        matches!(self, State::Startup | State::Refill | State::Up)
    }
}

#[derive(Clone, Debug)]
pub struct Bbr3 {
    t: Bbr3Table,
    min_rtt_window: SimDur,
    probe_rtt_interval: SimDur,
    probe_rtt_duration: SimDur,
    pub state: State,
    pacing_gain: f64,
    cwnd_gain: f64,
    // model
    bw_hi: MaxFilter,
    cycle_count: u64,
    pub bw_lo: f64,
    pub inflight_hi: u64,
    pub inflight_lo: u64,
    bw_latest: f64,
    inflight_latest: u64,
    pub min_rtt: Option<SimDur>,
    min_rtt_stamp: SimTime,
    probe_rtt_min: Option<SimDur>,
    probe_rtt_min_stamp: SimTime,
    /// The 5-s filter had expired at this ACK (draft BBR.probe_rtt_expired).
    probe_rtt_expired: bool,
    // rounds
    pub round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    round_lost: u64,
    round_loss_events: u32,
    round_inflight: u64,
    round_acked: u64,
    round_ce: u64,
    ce_alpha: f64,
    ce_pending: u64,
    // Startup
    full_bw: f64,
    full_bw_count: u32,
    pub full_bw_reached: bool,
    // ProbeBW
    cycle_stamp: SimTime,
    bw_probe_wait: SimDur,
    rounds_since_probe: u64,
    up_rounds: u32,
    up_acks: u64,
    /// inflight_hi was set by this probe (the draft's bw_probe_samples = 0).
    probe_cut: bool,
    // ProbeRTT
    probe_rtt_done: Option<SimTime>,
    probe_rtt_round_done: bool,
    // recovery
    rec: RecoveryCwnd,
    pacing: f64,
    first_rtt: Option<SimDur>,
    init_cwnd: Option<u64>,
    cwnd_set: u64,
    rng: u64,
}

impl Bbr3 {
    pub fn new(t: &Bbr3Table) -> Self {
        let mut b = Bbr3 {
            t: t.clone(),
            min_rtt_window: SimDur::from_secs(10),
            probe_rtt_interval: SimDur::from_secs_f64(t.probe_rtt_interval_s),
            probe_rtt_duration: SimDur::from_secs_f64(t.probe_rtt_ms / 1e3),
            state: State::Startup,
            pacing_gain: 1.0,
            cwnd_gain: 1.0,
            bw_hi: MaxFilter::new(1),
            cycle_count: 0,
            bw_lo: f64::INFINITY,
            inflight_hi: u64::MAX,
            inflight_lo: u64::MAX,
            bw_latest: 0.0,
            inflight_latest: 0,
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            probe_rtt_min: None,
            probe_rtt_min_stamp: SimTime::ZERO,
            probe_rtt_expired: false,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            round_lost: 0,
            round_loss_events: 0,
            round_inflight: 0,
            round_acked: 0,
            round_ce: 0,
            ce_alpha: 0.0,
            ce_pending: 0,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_reached: false,
            cycle_stamp: SimTime::ZERO,
            bw_probe_wait: SimDur::from_secs(2),
            rounds_since_probe: 0,
            up_rounds: 0,
            up_acks: 0,
            probe_cut: false,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            rec: RecoveryCwnd::default(),
            pacing: 0.0,
            first_rtt: None,
            init_cwnd: None,
            cwnd_set: 0,
            rng: 0x2545_F491_4F6C_DD1D,
        };
        b.set_state(State::Startup);
        b
    }

    /// The bandwidth estimate (draft BBR.bw = min(max_bw, bw_lo)), bytes/s.
    pub fn bw(&self) -> f64 {
        self.bw_hi.best().min(self.bw_lo)
    }
    pub fn max_bw(&self) -> f64 {
        self.bw_hi.best()
    }

    fn set_state(&mut self, s: State) {
        self.state = s;
        let (p, c) = match s {
            State::Startup => (self.t.startup_pacing_gain, self.t.cwnd_gain),
            State::Drain => (DRAIN_GAIN, self.t.cwnd_gain),
            State::Down => (DOWN_GAIN, self.t.cwnd_gain),
            State::Cruise | State::Refill => (1.0, self.t.cwnd_gain),
            State::Up => (UP_GAIN, UP_CWND_GAIN),
            State::ProbeRtt => (1.0, self.t.probe_rtt_cwnd_gain),
        };
        self.pacing_gain = p;
        self.cwnd_gain = c;
    }

    /// BBRBDPMultiple(bw, gain) + 3 send quanta (draft BBRInflight), bytes;
    /// the initial window before min_rtt is known.
    pub fn inflight(&self, gain: f64, mss: u64) -> u64 {
        let quantum = send_quantum(self.pacing, mss, self.t.quantum_segments);
        super::bbr_common::inflight(self.bw(), self.min_rtt, gain, quantum, self.init_cwnd, mss)
    }

    /// BBRInflightWithHeadroom (draft).
    fn inflight_with_headroom(&self, mss: u64) -> u64 {
        if self.inflight_hi == u64::MAX {
            return u64::MAX;
        }
        (((1.0 - HEADROOM) * self.inflight_hi as f64) as u64).max(MIN_PIPE_CWND_PKTS * mss)
    }

    fn start_down(&mut self, now: SimTime) {
        // draft, BBRStartProbeBW_DOWN: a new cycle, a new probe wait
        self.cycle_count += 1;
        self.rounds_since_probe = 0;
        self.bw_probe_wait = SimDur::from_millis(2000 + next_random(&mut self.rng) % 1001);
        self.cycle_stamp = now;
        self.set_state(State::Down);
    }

    fn start_refill(&mut self, rs: &RateSample) {
        // draft, BBRStartProbeBW_REFILL: lower bounds reset, a new round
        self.reset_lower_bounds();
        self.probe_cut = false;
        self.up_rounds = 0;
        self.up_acks = 0;
        self.next_round_delivered = rs.delivered_total;
        self.cycle_stamp = rs.now;
        self.set_state(State::Refill);
    }

    fn start_up(&mut self, rs: &RateSample) {
        // draft, BBRStartProbeBW_UP
        self.next_round_delivered = rs.delivered_total;
        self.cycle_stamp = rs.now;
        self.up_rounds = 0;
        self.up_acks = 0;
        self.set_state(State::Up);
    }

    fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = u64::MAX;
    }

    fn update_round(&mut self, rs: &RateSample) {
        // draft, BBRUpdateRound
        self.round_start = false;
        if rs.delivered > 0 && rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = rs.delivered_total;
            self.round_count += 1;
            self.rounds_since_probe += 1;
            self.round_start = true;
            self.rec.packet_conservation = false;
        }
    }

    /// The round's loss or CE-mark rate is too high (draft,
    /// BBRIsInflightTooHigh, with the round's counts).
    fn too_high(&self) -> bool {
        let loss = self.round_lost as f64 > self.t.loss_thresh * self.round_inflight.max(1) as f64;
        let ce = self.round_ce as f64 > self.t.ecn_thresh * self.round_inflight.max(1) as f64;
        loss || ce
    }

    /// draft, BBRHandleInflightTooHigh.
    fn handle_too_high(&mut self, rs: &RateSample, mss: u64) {
        if !rs.is_app_limited {
            let target = self.inflight(1.0, mss).min(self.cwnd_set.max(mss));
            self.inflight_hi = rs.prior_in_flight.max((self.t.beta * target as f64) as u64).max(MIN_PIPE_CWND_PKTS * mss);
        }
        if self.state == State::Up {
            self.start_down(rs.now);
        }
    }

    /// draft, BBRAdaptLowerBoundsFromCongestion, at the end of a round;
    /// then the round's counters restart.
    fn end_round(&mut self, mss: u64) {
        let ce_frac = if self.round_acked > 0 { self.round_ce as f64 / self.round_acked as f64 } else { 0.0 };
        self.ce_alpha += (ce_frac - self.ce_alpha) / 16.0;
        if !self.state.probing() && self.full_bw_reached {
            if self.round_lost > 0 {
                if self.bw_lo.is_infinite() {
                    self.bw_lo = self.max_bw();
                }
                if self.inflight_lo == u64::MAX {
                    self.inflight_lo = self.cwnd_set.max(MIN_PIPE_CWND_PKTS * mss);
                }
                self.bw_lo = self.bw_latest.max(self.t.beta * self.bw_lo);
                self.inflight_lo = self.inflight_latest.max((self.t.beta * self.inflight_lo as f64) as u64);
            }
            if self.round_ce > 0 && self.t.ecn_factor > 0.0 {
                let base = if self.inflight_lo == u64::MAX { self.cwnd_set } else { self.inflight_lo };
                let cut = 1.0 - self.t.ecn_factor * self.ce_alpha;
                self.inflight_lo = ((base as f64 * cut) as u64).max(MIN_PIPE_CWND_PKTS * mss);
            }
        }
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
        self.round_lost = 0;
        self.round_loss_events = 0;
        self.round_acked = 0;
        self.round_ce = 0;
    }

    fn update_model(&mut self, rs: &RateSample, mss: u64) {
        self.update_round(rs);
        if self.round_start {
            self.end_round(mss);
            self.round_inflight = rs.prior_in_flight;
        }
        self.round_lost += rs.newly_lost;
        self.round_loss_events += (rs.newly_lost > 0) as u32;
        self.round_acked += rs.newly_delivered;
        self.round_ce += std::mem::take(&mut self.ce_pending).min(rs.newly_delivered);
        if let Some(bw) = rs.rate_bps() {
            self.bw_latest = self.bw_latest.max(bw);
            self.inflight_latest = self.inflight_latest.max(rs.delivered);
            if !rs.is_app_limited || bw >= self.max_bw() {
                self.bw_hi.update(self.cycle_count, bw);
            }
        }
        // min RTT filters (draft BBRUpdateMinRTT)
        let now = rs.now;
        let probe_expired = now > self.probe_rtt_min_stamp + self.probe_rtt_interval;
        self.probe_rtt_expired = probe_expired;
        if let Some(rtt) = rs.rtt {
            if self.probe_rtt_min.is_none_or(|m| rtt < m) || probe_expired {
                self.probe_rtt_min = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
            let expired = now > self.min_rtt_stamp + self.min_rtt_window;
            let p = self.probe_rtt_min.unwrap_or(rtt);
            if self.min_rtt.is_none_or(|m| p < m) || expired {
                self.min_rtt = Some(p);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
    }

    fn check_startup_done(&mut self, rs: &RateSample, mss: u64) {
        if self.full_bw_reached || self.state != State::Startup {
            return;
        }
        // draft BBRCheckStartupHighLoss (and the CE fraction, Linux)
        let lossy = self.round_loss_events >= STARTUP_FULL_LOSS_CNT && self.round_lost > 0;
        if self.too_high() && (lossy || self.round_ce > 0) {
            self.full_bw_reached = true;
            self.inflight_hi = self.inflight(1.0, mss).max(self.inflight_latest).max(MIN_PIPE_CWND_PKTS * mss);
        } else if self.round_start && !rs.is_app_limited {
            // draft BBRCheckFullBWReached: 3 rounds below 25 % growth
            let bw = self.max_bw();
            if bw >= self.full_bw * 1.25 {
                self.full_bw = bw;
                self.full_bw_count = 0;
            } else {
                self.full_bw_count += 1;
                self.full_bw_reached = self.full_bw_count >= 3;
            }
        }
        if self.full_bw_reached {
            self.set_state(State::Drain);
        }
    }

    fn update_probe_bw(&mut self, rs: &RateSample, win: &Window) {
        let mss = win.mss as u64;
        if self.state == State::Drain && rs.in_flight <= self.inflight(1.0, mss) {
            // draft BBRCheckDrainDone -> BBREnterProbeBW
            self.start_down(rs.now);
            self.set_state(State::Cruise);
        }
        let probing = matches!(self.state, State::Refill | State::Up);
        if probing && !self.probe_cut && self.too_high() {
            self.probe_cut = true;
            self.handle_too_high(rs, mss);
        }
        let time_to_probe = rs.now.saturating_since(self.cycle_stamp) > self.bw_probe_wait
            || self.rounds_since_probe >= self.reno_rounds(mss);
        match self.state {
            State::Down => {
                if time_to_probe {
                    self.start_refill(rs);
                } else if rs.in_flight <= self.inflight_with_headroom(mss) && rs.in_flight <= self.inflight(1.0, mss) {
                    self.set_state(State::Cruise);
                }
            }
            State::Cruise if time_to_probe => self.start_refill(rs),
            State::Refill if self.round_start => self.start_up(rs),
            State::Up => {
                if self.round_start {
                    self.up_rounds = (self.up_rounds + 1).min(30);
                }
                // draft BBRProbeInflightHiUpward: when cwnd-limited at inflight_hi
                if self.inflight_hi != u64::MAX && rs.prior_in_flight + mss >= win.cwnd && win.cwnd >= self.inflight_hi {
                    let cnt = (win.cwnd >> self.up_rounds).max(mss);
                    self.up_acks += rs.newly_delivered;
                    let n = self.up_acks / cnt;
                    self.up_acks -= n * cnt;
                    self.inflight_hi += n * mss;
                }
                let elapsed = self.min_rtt.is_some_and(|m| rs.now.saturating_since(self.cycle_stamp) > m);
                if elapsed && rs.prior_in_flight >= self.inflight(UP_GAIN, mss) {
                    self.start_down(rs.now);
                }
            }
            _ => {}
        }
    }

    /// Rounds after which Cruise probes for Reno coexistence (draft
    /// BBRIsRenoCoexistenceProbeTime: min(BDP in packets, 63)).
    fn reno_rounds(&self, mss: u64) -> u64 {
        (self.inflight(1.0, mss) / mss).clamp(1, 63)
    }

    /// ProbeRTT (draft BBRCheckProbeRTT / BBRHandleProbeRTT). Returns
    /// whether the connection is to mark itself application-limited.
    fn update_probe_rtt(&mut self, win: &mut Window, rs: &RateSample) -> bool {
        let now = rs.now;
        let mss = win.mss as u64;
        if self.state != State::ProbeRtt && self.probe_rtt_expired {
            self.save_cwnd(win.cwnd);
            self.set_state(State::ProbeRtt);
            self.probe_rtt_done = None;
        }
        if self.state != State::ProbeRtt {
            return false;
        }
        match self.probe_rtt_done {
            None if rs.in_flight <= self.probe_rtt_cwnd(mss) => {
                self.probe_rtt_done = Some(now + self.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = rs.delivered_total;
            }
            None => {}
            Some(done) => {
                self.probe_rtt_round_done |= self.round_start;
                if self.probe_rtt_round_done && now > done {
                    // BBRExitProbeRTT
                    self.probe_rtt_min_stamp = now;
                    self.reset_lower_bounds();
                    win.cwnd = win.cwnd.max(self.rec.prior_cwnd);
                    if self.full_bw_reached {
                        self.start_down(now);
                        self.set_state(State::Cruise);
                    } else {
                        self.set_state(State::Startup);
                    }
                    return false;
                }
            }
        }
        true
    }

    /// BBRProbeRTTCwnd (draft): probe_rtt_cwnd_gain x BDP, at least 4 packets.
    pub fn probe_rtt_cwnd(&self, mss: u64) -> u64 {
        let bdp = self.min_rtt.map_or(0.0, |m| self.bw() * m.as_secs_f64());
        ((self.t.probe_rtt_cwnd_gain * bdp) as u64).max(MIN_PIPE_CWND_PKTS * mss)
    }

    fn save_cwnd(&mut self, cwnd: u64) {
        let probe_rtt = self.state == State::ProbeRtt;
        self.rec.save(cwnd, probe_rtt);
    }

    fn set_pacing_rate(&mut self, win: &Window) {
        let rate = self.pacing_gain * self.bw() * (1.0 - PACING_MARGIN);
        self.pacing =
            super::bbr_common::next_pacing_rate(self.pacing, rate, self.full_bw_reached, || self.initial_pacing_rate(win));
    }

    fn initial_pacing_rate(&self, win: &Window) -> f64 {
        super::bbr_common::initial_pacing_rate(self.t.startup_pacing_gain, self.first_rtt, self.init_cwnd, win.cwnd)
    }

    /// draft BBRSetCwnd with BBRModulateCwndForRecovery,
    /// BBRBoundCwndForProbeRTT and BBRBoundCwndForModel.
    fn set_cwnd(&mut self, win: &mut Window, rs: &RateSample) {
        let mss = win.mss as u64;
        let min_cwnd = MIN_PIPE_CWND_PKTS * mss;
        let mut cwnd = win.cwnd;
        let (entering, step) = self.rec.modulate(&mut cwnd, rs, mss);
        if entering {
            self.next_round_delivered = rs.delivered_total;
        }
        if step == CwndStep::Grow {
            let acked = rs.newly_delivered;
            let target = self.inflight(self.cwnd_gain, mss);
            let init = self.init_cwnd.unwrap_or(10 * mss);
            cwnd = super::bbr_common::grow_cwnd(cwnd, acked, target, self.full_bw_reached, rs.delivered_total, init);
        }
        // bounds
        if self.state == State::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd(mss));
        }
        let cap = match self.state {
            State::Down | State::Refill | State::Up => self.inflight_hi,
            State::Cruise | State::ProbeRtt => self.inflight_with_headroom(mss),
            _ => u64::MAX,
        };
        cwnd = cwnd.min(cap).min(self.inflight_lo).max(min_cwnd);
        win.cwnd = cwnd;
    }
}

impl Default for Bbr3 {
    fn default() -> Self {
        Bbr3::new(&Bbr3Table::default())
    }
}

impl CongestionControl for Bbr3 {
    fn name(&self) -> &'static str {
        "bbr3"
    }

    /// BBR sets cwnd from delivery-rate samples only.
    fn on_ack(&mut self, _win: &mut Window, _ack: &AckInfo) {}

    fn on_rtt_sample(&mut self, _now: SimTime, rtt: SimDur) {
        self.first_rtt.get_or_insert(rtt);
    }

    /// ssthresh is not BBR's: keep it and save cwnd (draft BBRSaveCwnd).
    fn ssthresh_after_loss(&mut self, _now: SimTime, win: &Window, _in_flight: u64, kind: LossKind) -> u64 {
        let cwnd = if self.cwnd_set > 0 { win.cwnd.min(self.cwnd_set) } else { win.cwnd };
        self.save_cwnd(cwnd);
        if kind == LossKind::Timeout {
            self.rec.prev_phase = LossState::Loss;
            self.full_bw = 0.0;
        }
        win.ssthresh
    }

    /// CE is answered by the model (inflight_hi, inflight_lo), not by the
    /// RFC 3168 halving: keep ssthresh; the cwnd the connection sets is
    /// replaced at the next update.
    fn ssthresh_after_ce(&mut self, _now: SimTime, win: &Window, _in_flight: u64) -> u64 {
        win.ssthresh
    }

    fn on_ecn_feedback(&mut self, fb: &EcnFeedback) {
        if fb.ece {
            self.ce_pending += fb.acked_bytes;
        }
    }

    fn reads_rate_samples(&self) -> bool {
        true
    }

    /// The per-ACK update (draft BBRUpdateModelAndState then
    /// BBRUpdateControlParameters).
    fn on_rate_sample(&mut self, win: &mut Window, rs: &RateSample) -> bool {
        let mss = win.mss as u64;
        if self.cwnd_set > 0 {
            win.cwnd = win.cwnd.min(self.cwnd_set);
        }
        self.init_cwnd.get_or_insert(win.cwnd);
        self.update_model(rs, mss);
        self.check_startup_done(rs, mss);
        self.update_probe_bw(rs, win);
        let app_limited = self.update_probe_rtt(win, rs);
        self.set_pacing_rate(win);
        self.set_cwnd(win, rs);
        self.cwnd_set = win.cwnd.max(mss);
        app_limited
    }

    fn pacing_rate(&self, win: &Window) -> Option<f64> {
        Some(if self.pacing > 0.0 { self.pacing } else { self.initial_pacing_rate(win) })
    }

    fn seed(&mut self, seed: u64) {
        self.rng ^= seed;
    }

    fn trace_state(&self, _win: &Window) -> CcTraceState {
        super::bbr_common::trace_state(self.state.name(), self.pacing, self.bw(), self.min_rtt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const RTT: SimDur = SimDur::from_millis(100);
    const RATE: f64 = 1_000_000.0;

    /// A synthetic sender around BBR v3: each ACK delivers one packet sent
    /// `prior_delivered` bytes ago at `rate` bytes/s.
    struct Drive {
        b: Bbr3,
        win: Window,
        now: SimTime,
        delivered: u64,
        in_flight: u64,
    }

    impl Drive {
        fn new(seed: u64) -> Self {
            let mut b = Bbr3::default();
            b.seed(seed);
            b.on_rtt_sample(SimTime::ZERO, RTT);
            let win = Window { cwnd: 10 * MSS, ssthresh: u64::MAX >> 2, mss: MSS as u32 };
            Drive { b, win, now: SimTime::ZERO, delivered: 0, in_flight: 10 * MSS }
        }

        fn ack(&mut self, rate: f64, rtt: SimDur, prior_delivered: u64, in_flight: u64, lost: u64) -> bool {
            self.delivered += MSS;
            let interval = SimDur::from_secs_f64((self.delivered - prior_delivered) as f64 / rate);
            let rs = RateSample {
                now: self.now,
                delivered_total: self.delivered,
                prior_delivered,
                delivered: self.delivered - prior_delivered,
                interval,
                is_app_limited: false,
                rtt: Some(rtt),
                newly_delivered: MSS,
                newly_lost: lost,
                prior_in_flight: self.in_flight,
                in_flight,
                phase: LossState::Open,
            };
            self.in_flight = in_flight;
            self.b.on_rate_sample(&mut self.win, &rs)
        }

        /// One round of `pkts` ACKs over `rtt`, `lost` bytes lost on each
        /// of the first `lossy` ACKs.
        fn round(&mut self, pkts: u64, rate: f64, rtt: SimDur, in_flight: u64, lossy: u64, lost: u64) {
            let start = self.delivered;
            for k in 0..pkts {
                self.now += rtt / pkts;
                self.ack(rate, rtt, start, in_flight, if k < lossy { lost } else { 0 });
            }
        }
    }

    fn to_probe_bw(seed: u64) -> Drive {
        let mut d = Drive::new(seed);
        for _ in 0..5 {
            d.round(10, RATE, RTT, 10 * MSS, 0, 0);
        }
        assert!(d.b.full_bw_reached);
        d.round(1, RATE, RTT, 0, 0, 0);
        assert_eq!(d.b.state, State::Cruise);
        d
    }

    #[test]
    fn startup_exits_on_a_bandwidth_plateau() {
        let mut d = Drive::new(1);
        let mut rate = 100_000.0;
        for _ in 0..6 {
            d.round(10, rate, RTT, 10 * MSS, 0, 0);
            rate *= 1.3;
            assert_eq!(d.b.state, State::Startup);
        }
        assert_eq!((d.b.pacing_gain, d.b.cwnd_gain), (2.77, 2.0));
        // the first plateau round still counts as growth; then 3 rounds below 25 %
        d.round(10, rate, RTT, 100 * MSS, 0, 0);
        for k in 1..=3 {
            assert!(!d.b.full_bw_reached, "{k}");
            d.round(10, rate * (1.0 + 0.08 * k as f64), RTT, 100 * MSS, 0, 0);
        }
        assert!(d.b.full_bw_reached);
        assert_eq!(d.b.inflight_hi, u64::MAX, "no loss: no long-term bound");
        assert_eq!(d.b.state, State::Drain);
        assert_eq!(d.b.pacing_gain, DRAIN_GAIN);
    }

    #[test]
    fn startup_exits_on_a_loss_rate_above_two_percent() {
        let mut d = Drive::new(1);
        let mut rate = 100_000.0;
        for _ in 0..4 {
            d.round(10, rate, RTT, 50 * MSS, 0, 0);
            rate *= 1.5;
        }
        // 5 loss events of 1 packet out of 50 in flight (10 %): fewer than 6 events
        d.round(10, rate, RTT, 50 * MSS, 5, MSS);
        assert_eq!(d.b.state, State::Startup);
        rate *= 1.5;
        // 6 events of 200 bytes (1.2 kB of 50 kB: 2.4 %): the pipe is full
        d.round(10, rate, RTT, 50 * MSS, 6, 200);
        assert!(d.b.full_bw_reached);
        assert_ne!(d.b.state, State::Startup);
        assert!(d.b.inflight_hi < u64::MAX);
        // 6 events of 100 bytes (1.2 %) would not have been enough
        let mut e = Drive::new(1);
        let mut rate = 100_000.0;
        for _ in 0..4 {
            e.round(10, rate, RTT, 50 * MSS, 0, 0);
            rate *= 1.5;
        }
        e.round(10, rate, RTT, 50 * MSS, 6, 100);
        assert_eq!(e.b.state, State::Startup);
    }

    #[test]
    fn probe_bw_cycles_down_cruise_refill_up() {
        let mut d = to_probe_bw(3);
        // no ProbeRTT in this run
        d.b.probe_rtt_interval = SimDur::from_secs(60);
        let bdp = d.b.inflight(1.0, MSS);
        let mut seen = vec![d.b.state];
        while d.now < SimTime::from_secs(12) {
            // in flight follows the pacing gain: above 1.25 BDP in Up, below a BDP after it
            let inflight = match d.b.state {
                State::Up => bdp * 13 / 10,
                _ => bdp * 9 / 10,
            };
            d.round(10, RATE, RTT, inflight, 0, 0);
            if seen.last() != Some(&d.b.state) {
                seen.push(d.b.state);
            }
        }
        use State::*;
        let cycle = [Cruise, Refill, Up, Down];
        assert!(seen.len() >= 9, "{seen:?}");
        for (k, s) in seen.iter().enumerate() {
            assert_eq!(*s, cycle[k % 4], "{seen:?}");
        }
        // Up raises the pacing gain to 1.25, Down lowers it to 0.9
        assert!((d.b.pacing_rate(&d.win).unwrap() - d.b.pacing_gain * RATE * 0.99).abs() < 1e-3);
    }

    #[test]
    fn loss_above_two_percent_in_a_probe_cuts_inflight_hi_to_beta_times_inflight() {
        let mut d = to_probe_bw(3);
        let bdp = d.b.inflight(1.0, MSS);
        while d.b.state != State::Up {
            d.round(10, RATE, RTT, bdp * 9 / 10, 0, 0);
        }
        d.round(10, RATE, RTT, bdp, 0, 0);
        assert_eq!(d.b.state, State::Up);
        let target = d.b.inflight(1.0, MSS).min(d.win.cwnd);
        // a new round (in flight at its start: one BDP); losses of 1 % of it: no cut
        let start = d.delivered;
        assert_eq!(d.in_flight, bdp);
        d.now += RTT / 10;
        d.ack(RATE, RTT, start, bdp / 2, 0);
        let lost = bdp / 100;
        d.now += RTT / 10;
        d.ack(RATE, RTT, start, bdp / 2, lost);
        assert_eq!(d.b.inflight_hi, u64::MAX);
        assert_eq!(d.b.state, State::Up);
        // another 2 %: 3 % in the round, inflight_hi = beta x inflight
        d.now += RTT / 10;
        d.ack(RATE, RTT, start, bdp / 2, 2 * lost);
        assert_eq!(d.b.inflight_hi, (0.7 * target as f64) as u64);
        assert!(matches!(d.b.state, State::Down | State::Cruise), "the probe ends: {:?}", d.b.state);
        // the cap holds cwnd
        d.round(10, RATE, RTT, bdp / 2, 0, 0);
        assert!(d.win.cwnd <= d.b.inflight_hi);
    }

    #[test]
    fn probe_rtt_follows_five_seconds_without_a_new_min_rtt() {
        let mut d = to_probe_bw(7);
        let stamp = d.b.probe_rtt_min_stamp;
        let deadline = stamp + SimDur::from_secs(5);
        let bdp = d.b.inflight(1.0, MSS);
        while d.b.state != State::ProbeRtt {
            assert!(d.now <= deadline, "entered only after 5 s");
            d.round(10, RATE, SimDur::from_millis(120), bdp * 9 / 10, 0, 0);
        }
        assert!(d.now > deadline && d.now <= deadline + SimDur::from_millis(130), "{:?}", d.now);
        // cwnd at half the BDP (100 kB/s x 100 ms x 0.5), pacing gain 1
        assert_eq!(d.win.cwnd, 50 * MSS);
        assert_eq!(d.b.pacing_gain, 1.0);
        let entered = d.now;
        let mut marked = false;
        while d.b.state == State::ProbeRtt {
            d.now += SimDur::from_millis(10);
            let start = d.delivered;
            marked |= d.ack(RATE, RTT, start.saturating_sub(4 * MSS), 40 * MSS, 0);
            assert!(d.now < entered + SimDur::from_secs(1));
        }
        assert!(marked && d.now >= entered + SimDur::from_millis(200));
        assert_eq!(d.b.state, State::Cruise);
    }

    #[test]
    fn ce_marks_above_half_end_a_probe_and_cut_inflight_lo_outside_it() {
        let mut d = to_probe_bw(3);
        let bdp = d.b.inflight(1.0, MSS);
        while d.b.state != State::Up {
            d.round(10, RATE, RTT, bdp * 9 / 10, 0, 0);
        }
        // a round in Up with 4 packets CE-marked: not too high; then 10
        // packets in flight
        let fb = |ece| EcnFeedback { now: SimTime::ZERO, acked_bytes: MSS, ece, snd_una: 0, snd_max: 0 };
        let start = d.delivered;
        for k in 0..10 {
            d.now += RTT / 10;
            d.b.on_ecn_feedback(&fb(k < 4));
            d.ack(RATE, RTT, start, 10 * MSS, 0);
        }
        assert_eq!(d.b.inflight_hi, u64::MAX);
        // then 6 in the next round, above half the 10 in flight at its
        // start: the probe ends with inflight_hi set
        let start = d.delivered;
        for k in 0..10 {
            d.now += RTT / 10;
            d.b.on_ecn_feedback(&fb(k < 6));
            d.ack(RATE, RTT, start, 10 * MSS, 0);
        }
        assert!(d.b.inflight_hi < u64::MAX);
        assert_ne!(d.b.state, State::Up);
        // outside probing, rounds with CE marks lower inflight_lo
        let lo = d.b.inflight_lo;
        for _ in 0..3 {
            let start = d.delivered;
            for k in 0..10 {
                d.now += RTT / 10;
                d.b.on_ecn_feedback(&fb(k < 2));
                d.ack(RATE, RTT, start, bdp / 2, 0);
            }
        }
        assert!(!d.b.state.probing());
        assert!(d.b.inflight_lo < lo.min(d.b.inflight_hi), "{} {lo} {}", d.b.inflight_lo, d.b.inflight_hi);
        // the connection's RFC 3168 halving is not BBR's answer
        let w = d.win;
        assert_eq!(d.b.ssthresh_after_ce(d.now, &w, bdp), w.ssthresh);
    }

    #[test]
    fn the_table_is_checked_and_builds_bbr3() {
        assert!(Bbr3Table::default().check().is_ok());
        let e = Bbr3Table { beta: 1.0, ..Bbr3Table::default() }.check().unwrap_err();
        assert_eq!(e.to_string(), "beta: must be in (0, 1), got 1");
        let b = Bbr3Table::default().build();
        assert_eq!(b.name(), "bbr3");
        assert!(b.reads_rate_samples());
    }
}
