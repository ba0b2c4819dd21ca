//! BBR v1 (Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR:
//! Congestion-Based Congestion Control", ACM Queue 14(5), 2016; the
//! algorithm as specified in draft-cardwell-iccrg-bbr-congestion-control-00,
//! July 2017, cited as "draft" with the name of its pseudocode routine or
//! constant; facts checked against Linux's `net/ipv4/tcp_bbr.c`, the
//! reference implementation).
//!
//! BBR models the path by two estimates and paces at their product:
//! - BtlBw, the bottleneck bandwidth: the windowed maximum of the
//!   delivery-rate samples ([`crate::rate`]) over the last 10 round trips
//!   (paper "Estimating BtlBw"; draft, BtlBwFilterLen = 10),
//!   where a sample taken while application-limited enters only if it
//!   raises the maximum (draft);
//! - RTprop, the round-trip propagation time: the minimum RTT over the last
//!   10 s (paper "Estimating RTprop"; draft, RTpropFilterLen = 10 s).
//!
//! Control (draft): pacing rate = pacing_gain x BtlBw, kept
//! at its initial value until BtlBw has a sample, and in Startup only ever
//! raised; cwnd target = cwnd_gain x BtlBw x RTprop + 3 send quanta
//! (BBRInflight), the send quantum 1 MSS below 1.2 Mbit/s, 2 MSS
//! below 24 Mbit/s, else 1 ms of data up to 64 KB; cwnd never below
//! 4 packets (BBRMinPipeCwnd). Once the pipe is full cwnd grows by
//! the data each ACK delivers up to the target; before, it grows by it
//! without bound below the target or while less than the initial window has
//! been delivered (BBRSetCwnd).
//!
//! The state machine (draft; paper figure "BBR state machine"):
//! - Startup: pacing and cwnd gain 2/ln 2 (draft, BBRHighGain;
//!   2.885, Linux's 2885/1000); the pipe is full once BtlBw has not grown
//!   by 25 % over three rounds in a row, checked once per round and not on
//!   application-limited samples (BBRCheckFullPipe).
//! - Drain: pacing gain ln 2 / 2 (its inverse), cwnd gain 2/ln 2, until the
//!   data in flight is at most BBRInflight(1.0).
//! - ProbeBW: cwnd gain 2 and the pacing-gain cycle 5/4, 3/4, 1, 1, 1, 1,
//!   1, 1; a phase lasts at least RTprop; the 5/4 phase also until
//!   a loss or until the data in flight before the ACK reaches
//!   BBRInflight(5/4); the 3/4 phase ends early once it is at most
//!   BBRInflight(1) (BBRIsNextCyclePhase). Entered at a random
//!   phase other than 3/4 (BBREnterProbeBW).
//! - ProbeRTT: when RTprop has not been lowered or refreshed for 10 s,
//!   cwnd is held at 4 packets (pacing gain 1) until 200 ms and one round
//!   trip have passed after the data in flight fell to 4 packets; then
//!   RTprop's timestamp restarts, the cwnd saved on entry is restored and
//!   BBR returns to ProbeBW (or Startup if the pipe was never filled)
//!   (BBRCheckProbeRTT / BBRHandleProbeRTT). While in ProbeRTT the
//!   connection is marked application-limited so its low rates do not
//!   lower BtlBw.
//!
//! Round trips are counted on delivery: a round ends when a packet sent
//! after the previous round's end is delivered (draft,
//! BBRUpdateRound: `packet.delivered >= next_round_delivered`).
//!
//! Loss (draft, BBRModulateCwndForRecovery; Linux `bbr_set_cwnd_to_recover_or_restore`):
//! ssthresh is never changed (`ssthresh_after_loss` saves cwnd and returns
//! the old ssthresh, as Linux's `bbr_ssthresh`); on every ACK cwnd is
//! lowered by the data newly marked lost; on entering fast recovery cwnd
//! becomes the data in flight plus what the ACK delivered (at least one
//! MSS) and packet conservation holds for one round (cwnd at least in
//! flight + delivered); on leaving recovery or an RTO's loss state cwnd is
//! restored to at least the cwnd saved at the loss. After an RTO the
//! connection sets cwnd to one segment and BBR grows it from there.
//!
//! Choices (documented deviations):
//! - Windows and counts are in bytes; a "packet" is one SMSS.
//! - The BtlBw filter is an exact maximum over the samples of the rounds
//!   `[round - 10, round]` (a sample expires when more than 10 rounds old,
//!   Linux's test); Linux and ns-3 keep Nichols's three-sample running
//!   estimate of the same window.
//! - The ProbeBW start phase is drawn from the seed the connection gives
//!   ([`CongestionControl::seed`]: its random initial sequence number).
//! - `quantum_segments` fixes the send quantum (ns-3 3.37's `TcpBbr` uses
//!   one segment at every rate, where the draft gives two between 1.2 and
//!   24 Mbit/s; three quanta enter the cwnd target).
//! - Only the v1 mechanisms of the draft: no long-term bandwidth (policer)
//!   sampling, no ACK-aggregation extra cwnd unless `extra_acked` is set
//!   (off by default; [`super::ack_aggregation`], Linux's and ns-3's
//!   estimator), no 1 % pacing margin, no
//!   even-packet rounding of cwnd (later Linux additions), no TSO
//!   quantization other than the draft's send quantum.
//! - A new RTprop is an RTT sample below the current one or any sample
//!   once it has expired (Linux's test; the draft also takes an equal one).
//! - The idle restart (draft, BBRHandleRestartFromIdle) is not modelled: a bulk sender is
//!   never idle; the connection skips RFC 5681's idle restart for BBR.
//! - cwnd is BBR's alone: the connection's fast recovery leaves it to BBR
//!   (as Linux leaves it to a `cong_control` controller), an RTO sets one
//!   segment (as Linux's `tcp_enter_loss`); any raise between two of BBR's
//!   updates is undone at the next one.
//! - The initial pacing rate is 2/ln 2 x initial cwnd / the first RTT
//!   sample (the handshake's), 1 ms before any (draft,
//!   BBRInitPacingRate; Linux uses SRTT at the same point).
use super::ack_aggregation::AckAggregation;
use super::{check_param, AckInfo, CcKind, CcTraceState, CongestionControl, LossKind, Window};
use crate::rate::RateSample;
use crate::sender::LossState;
use wifitcp_core::config::ConfigError;
use wifitcp_core::schema::r;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::{SimDur, SimTime};

/// The ProbeBW pacing-gain cycle (draft; paper "Steady-state
/// behavior": 5/4, 3/4, then six phases of 1).
pub const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// BtlBw's growth that counts as growth in Startup (draft, BBRCheckFullPipe: 25 %).
pub const FULL_BW_THRESH: f64 = 1.25;
/// Rounds without that growth after which the pipe is full (draft).
pub const FULL_BW_COUNT: u32 = 3;
/// BBRMinPipeCwnd (draft), in packets.
pub const MIN_PIPE_CWND_PKTS: u64 = 4;

wifitcp_core::config_table! {
    /// `[tcp.bbr]`: BBR v1's parameters (draft-cardwell-iccrg-bbr-congestion-control-00).
    #[serde(deny_unknown_fields)]
    pub struct BbrTable {
        /// Startup's pacing and cwnd gain (2/ln 2; Linux 2885/1000).
        #[key(range = r(Ex(1.0), In(100.0)))]
        pub high_gain: f64 = 2.885,
        /// ProbeBW's cwnd gain.
        #[key(range = r(In(1.0), In(100.0)))]
        pub cwnd_gain: f64 = 2.0,
        /// Length of BtlBw's max filter.
        #[key(range = r(In(1.0), In(1000.0)), unit = "round trips")]
        pub bw_window_rounds: u32 = 10,
        /// Length of RTprop's min filter; ProbeRTT follows this long without a new minimum.
        #[key(range = r(Ex(0.0), In(3600.0)), unit = "s")]
        pub min_rtt_window_s: f64 = 10.0,
        /// ProbeRTT's duration at 4 packets.
        #[key(range = r(Ex(0.0), In(60000.0)), unit = "ms")]
        pub probe_rtt_ms: f64 = 200.0,
        /// Send quantum in segments; 0: the draft's rule (1, 2 or 1 ms of data by pacing rate).
        ///
        /// ns-3 3.37's TcpBbr uses 1 segment at every rate.
        #[key(range = r(In(0.0), In(64.0)), unit = "segments")]
        pub quantum_segments: u32 = 0,
        /// Add the ACK-aggregation allowance to the cwnd target (Linux's and ns-3's extra_acked; not in the v1 draft).
        pub extra_acked: bool = false,
        /// The ACK-aggregation estimator's epoch restarts once it has counted this many bytes; 0: Linux's 2^20 segments.
        ///
        /// ns-3 3.37's TcpBbr: 4096 (its AckEpochAckedResetThresh), which
        /// keeps its allowance below about three segments.
        #[key(range = r(In(0.0), In(1e12)), unit = "bytes")]
        pub extra_acked_reset_bytes: u64 = 0,
    }
}

impl CcKind for BbrTable {
    fn check(&self) -> Result<(), ConfigError> {
        check_param("high_gain", self.high_gain, self.high_gain > 1.0, "must be above 1")?;
        check_param("cwnd_gain", self.cwnd_gain, self.cwnd_gain >= 1.0, "must be at least 1")?;
        if self.bw_window_rounds == 0 {
            return Err(ConfigError::new("bw_window_rounds", "must be at least 1, got 0"));
        }
        let w = self.min_rtt_window_s;
        check_param("min_rtt_window_s", w, w > 0.0, "must be positive")?;
        check_param("probe_rtt_ms", self.probe_rtt_ms, self.probe_rtt_ms > 0.0, "must be positive")
    }
    fn build(&self) -> Box<dyn CongestionControl> {
        Box::new(Bbr::new(self))
    }
}

/// BBR's modes (draft).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw => "probe_bw",
            Mode::ProbeRtt => "probe_rtt",
        }
    }
}

pub use super::bbr_common::MaxFilter;
use super::bbr_common::{CwndStep, RecoveryCwnd};

#[derive(Clone, Debug)]
pub struct Bbr {
    high_gain: f64,
    probe_bw_cwnd_gain: f64,
    min_rtt_window: SimDur,
    probe_rtt_duration: SimDur,
    /// Fixed send quantum in segments (0: the draft's rule).
    quantum_segments: u32,
    pub mode: Mode,
    btlbw: MaxFilter,
    pub min_rtt: Option<SimDur>,
    min_rtt_stamp: SimTime,
    pub round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    full_bw: f64,
    full_bw_count: u32,
    pub full_bw_reached: bool,
    pub pacing_gain: f64,
    pub cwnd_gain: f64,
    pub cycle_index: usize,
    cycle_stamp: SimTime,
    probe_rtt_done_stamp: Option<SimTime>,
    probe_rtt_round_done: bool,
    rec: RecoveryCwnd,
    /// Pacing rate in bytes/s (0: not set yet).
    pacing: f64,
    /// The first RTT sample, for the initial pacing rate.
    first_rtt: Option<SimDur>,
    init_cwnd: Option<u64>,
    /// cwnd as BBR last set it (0: never).
    cwnd_set: u64,
    rng: u64,
    /// The ACK-aggregation estimator (`extra_acked`), if on.
    aggregation: Option<AckAggregation>,
}

impl Bbr {
    pub fn new(t: &BbrTable) -> Self {
        let mut b = Bbr {
            high_gain: t.high_gain,
            probe_bw_cwnd_gain: t.cwnd_gain,
            min_rtt_window: SimDur::from_secs_f64(t.min_rtt_window_s),
            probe_rtt_duration: SimDur::from_secs_f64(t.probe_rtt_ms / 1e3),
            quantum_segments: t.quantum_segments,
            mode: Mode::Startup,
            btlbw: MaxFilter::new(t.bw_window_rounds as u64),
            min_rtt: None,
            min_rtt_stamp: SimTime::ZERO,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            full_bw: 0.0,
            full_bw_count: 0,
            full_bw_reached: false,
            pacing_gain: 1.0,
            cwnd_gain: 1.0,
            cycle_index: 0,
            cycle_stamp: SimTime::ZERO,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            rec: RecoveryCwnd::default(),
            pacing: 0.0,
            first_rtt: None,
            init_cwnd: None,
            cwnd_set: 0,
            rng: 0x9E37_79B9_7F4A_7C15,
            aggregation: t.extra_acked.then(|| AckAggregation::with_reset_bytes(t.extra_acked_reset_bytes)),
        };
        b.enter_startup();
        b
    }

    /// The BtlBw estimate, bytes per second.
    pub fn btlbw(&self) -> f64 {
        self.btlbw.best()
    }

    /// The ACK-aggregation allowance in the cwnd target now, bytes (0 when
    /// off or before the pipe is full).
    pub fn aggregation_allowance(&self) -> u64 {
        match &self.aggregation {
            Some(a) if self.full_bw_reached => a.cwnd_allowance(self.btlbw()),
            _ => 0,
        }
    }

    /// The ProbeBW start phase's draw.
    fn next_random(&mut self) -> u64 {
        super::bbr_common::next_random(&mut self.rng)
    }

    fn enter_startup(&mut self) {
        // draft
        self.mode = Mode::Startup;
        self.pacing_gain = self.high_gain;
        self.cwnd_gain = self.high_gain;
    }

    fn enter_probe_bw(&mut self, now: SimTime) {
        // draft, BBREnterProbeBW: a random phase other than the 3/4 one
        self.mode = Mode::ProbeBw;
        self.pacing_gain = 1.0;
        self.cwnd_gain = self.probe_bw_cwnd_gain;
        let n = PACING_GAIN_CYCLE.len();
        self.cycle_index = n - 1 - (self.next_random() % (n as u64 - 1)) as usize;
        self.advance_cycle_phase(now);
    }

    fn advance_cycle_phase(&mut self, now: SimTime) {
        // draft, BBRAdvanceCyclePhase
        self.cycle_stamp = now;
        self.cycle_index = (self.cycle_index + 1) % PACING_GAIN_CYCLE.len();
        self.pacing_gain = PACING_GAIN_CYCLE[self.cycle_index];
    }

    /// The send quantum (draft, BBRSetSendQuantum), bytes; `quantum_segments`
    /// segments if set.
    fn send_quantum(&self, mss: u64) -> u64 {
        super::bbr_common::send_quantum(self.pacing, mss, self.quantum_segments)
    }

    /// BBRInflight(gain) (draft): gain x BDP + 3 send quanta, in
    /// bytes; the initial window before RTprop is known.
    pub fn inflight(&self, gain: f64, mss: u64) -> u64 {
        super::bbr_common::inflight(self.btlbw(), self.min_rtt, gain, self.send_quantum(mss), self.init_cwnd, mss)
    }

    fn save_cwnd(&mut self, cwnd: u64) {
        let probe_rtt = self.mode == Mode::ProbeRtt;
        self.rec.save(cwnd, probe_rtt);
    }

    fn update_bw(&mut self, rs: &RateSample) {
        self.round_start = false;
        let Some(bw) = rs.rate_bps() else { return };
        // draft, BBRUpdateRound
        if rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = rs.delivered_total;
            self.round_count += 1;
            self.round_start = true;
            // draft: packet conservation lasts one round
            self.rec.packet_conservation = false;
        }
        // draft, BBRUpdateBtlBw
        if !rs.is_app_limited || bw >= self.btlbw() {
            self.btlbw.update(self.round_count, bw);
        }
    }

    fn update_cycle_phase(&mut self, rs: &RateSample, mss: u64) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        // draft, BBRIsNextCyclePhase
        let full_length = self.min_rtt.is_some_and(|m| rs.now.saturating_since(self.cycle_stamp) > m);
        let next = if self.pacing_gain > 1.0 {
            full_length && (rs.newly_lost > 0 || rs.prior_in_flight >= self.inflight(self.pacing_gain, mss))
        } else if self.pacing_gain < 1.0 {
            full_length || rs.prior_in_flight <= self.inflight(1.0, mss)
        } else {
            full_length
        };
        if next {
            self.advance_cycle_phase(rs.now);
        }
    }

    fn check_full_pipe(&mut self, rs: &RateSample) {
        // draft, BBRCheckFullPipe
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let bw = self.btlbw();
        if bw >= self.full_bw * FULL_BW_THRESH {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= FULL_BW_COUNT;
    }

    fn check_drain(&mut self, rs: &RateSample, mss: u64) {
        // draft, BBRCheckDrain
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / self.high_gain;
            self.cwnd_gain = self.high_gain;
        }
        if self.mode == Mode::Drain && rs.in_flight <= self.inflight(1.0, mss) {
            self.enter_probe_bw(rs.now);
        }
    }

    /// RTprop and ProbeRTT (draft, BBRUpdateRTprop,
    /// BBRCheckProbeRTT). Returns whether the connection is to be marked
    /// application-limited (in ProbeRTT).
    fn update_min_rtt(&mut self, win: &mut Window, rs: &RateSample) -> bool {
        let now = rs.now;
        let expired = self.min_rtt.is_some() && now > self.min_rtt_stamp + self.min_rtt_window;
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(win.cwnd);
            self.probe_rtt_done_stamp = None;
        }
        if self.mode != Mode::ProbeRtt {
            return false;
        }
        let mss = win.mss as u64;
        match self.probe_rtt_done_stamp {
            None if rs.in_flight <= MIN_PIPE_CWND_PKTS * mss => {
                self.probe_rtt_done_stamp = Some(now + self.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = rs.delivered_total;
            }
            None => {}
            Some(done) => {
                if self.round_start {
                    self.probe_rtt_round_done = true;
                }
                if self.probe_rtt_round_done && now > done {
                    self.min_rtt_stamp = now;
                    // BBRRestoreCwnd, then BBRExitProbeRTT
                    win.cwnd = win.cwnd.max(self.rec.prior_cwnd);
                    if self.full_bw_reached {
                        self.enter_probe_bw(now);
                    } else {
                        self.enter_startup();
                    }
                    return false;
                }
            }
        }
        true
    }

    /// draft, BBRSetPacingRateWithGain (BBRInitPacingRate before the
    /// first bandwidth sample).
    fn set_pacing_rate(&mut self, win: &Window) {
        let rate = self.pacing_gain * self.btlbw();
        self.pacing =
            super::bbr_common::next_pacing_rate(self.pacing, rate, self.full_bw_reached, || self.initial_pacing_rate(win));
    }

    fn initial_pacing_rate(&self, win: &Window) -> f64 {
        super::bbr_common::initial_pacing_rate(self.high_gain, self.first_rtt, self.init_cwnd, win.cwnd)
    }

    /// draft, BBRSetCwnd with BBRModulateCwndForRecovery and
    /// BBRModulateCwndForProbeRTT.
    fn set_cwnd(&mut self, win: &mut Window, rs: &RateSample) {
        let mss = win.mss as u64;
        let min_cwnd = MIN_PIPE_CWND_PKTS * mss;
        let mut cwnd = win.cwnd;
        let (entering, step) = self.rec.modulate(&mut cwnd, rs, mss);
        if entering {
            // draft, BBROnEnterFastRecovery: a new round
            self.next_round_delivered = rs.delivered_total;
        }
        if step == CwndStep::Grow {
            let acked = rs.newly_delivered;
            let target = self.inflight(self.cwnd_gain, mss) + self.aggregation_allowance();
            let init = self.init_cwnd.unwrap_or(10 * mss);
            cwnd = super::bbr_common::grow_cwnd(cwnd, acked, target, self.full_bw_reached, rs.delivered_total, init);
            cwnd = cwnd.max(min_cwnd);
        }
        win.cwnd = cwnd;
        if self.mode == Mode::ProbeRtt {
            win.cwnd = win.cwnd.min(min_cwnd);
        }
    }
}

impl Default for Bbr {
    fn default() -> Self {
        Bbr::new(&BbrTable::default())
    }
}

impl CongestionControl for Bbr {
    fn name(&self) -> &'static str {
        "bbr"
    }

    /// BBR sets cwnd from delivery-rate samples only.
    fn on_ack(&mut self, _win: &mut Window, _ack: &AckInfo) {}

    fn on_rtt_sample(&mut self, _now: SimTime, rtt: SimDur) {
        self.first_rtt.get_or_insert(rtt);
    }

    /// ssthresh is not BBR's: keep it, save cwnd (Linux `bbr_ssthresh`;
    /// draft: BBRSaveCwnd on entering recovery and at an
    /// RTO). At an RTO the plateau count restarts (Linux `bbr_set_state`
    /// for the loss state: `full_bw` = 0).
    fn ssthresh_after_loss(&mut self, _now: SimTime, win: &Window, _in_flight: u64, kind: LossKind) -> u64 {
        let cwnd = if self.cwnd_set > 0 { win.cwnd.min(self.cwnd_set) } else { win.cwnd };
        self.save_cwnd(cwnd);
        if kind == LossKind::Timeout {
            self.rec.prev_phase = LossState::Loss;
            self.full_bw = 0.0;
        }
        win.ssthresh
    }

    fn reads_rate_samples(&self) -> bool {
        true
    }

    /// BBR's per-ACK update (draft, BBRUpdateModelAndState then
    /// BBRUpdateControlParameters; Linux `bbr_main`: update the
    /// model, then the pacing rate, then cwnd).
    fn on_rate_sample(&mut self, win: &mut Window, rs: &RateSample) -> bool {
        let mss = win.mss as u64;
        if self.cwnd_set > 0 {
            win.cwnd = win.cwnd.min(self.cwnd_set);
        }
        self.init_cwnd.get_or_insert(win.cwnd);
        self.update_bw(rs);
        if let Some(a) = self.aggregation.as_mut() {
            // Linux bbr_update_model: after the bandwidth filter.
            a.update(rs, self.round_start, self.btlbw.best(), win.cwnd, mss);
        }
        self.update_cycle_phase(rs, mss);
        self.check_full_pipe(rs);
        self.check_drain(rs, mss);
        let app_limited = self.update_min_rtt(win, rs);
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
        super::bbr_common::trace_state(self.mode.name(), self.pacing, self.btlbw(), self.min_rtt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// A synthetic sender around BBR: each call delivers one round of
    /// `pkts` packets at `rate` bytes/s with RTT `rtt`, one ACK per packet;
    /// the packet acknowledged by an ACK was sent one RTT earlier, with
    /// `delivered` then one round behind.
    struct Drive {
        bbr: Bbr,
        win: Window,
        now: SimTime,
        delivered: u64,
        in_flight: u64,
    }

    impl Drive {
        fn new(seed: u64) -> Self {
            let mut bbr = Bbr::default();
            bbr.seed(seed);
            bbr.on_rtt_sample(SimTime::ZERO, SimDur::from_millis(100));
            Drive {
                bbr,
                win: Window { cwnd: 10 * MSS, ssthresh: u64::MAX >> 2, mss: MSS as u32 },
                now: SimTime::ZERO,
                delivered: 0,
                in_flight: 10 * MSS,
            }
        }

        fn ack(&mut self, rate: f64, rtt: SimDur, prior_delivered: u64, in_flight: u64) -> bool {
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
                newly_lost: 0,
                prior_in_flight: self.in_flight,
                in_flight,
                phase: LossState::Open,
            };
            self.in_flight = in_flight;
            self.bbr.on_rate_sample(&mut self.win, &rs)
        }

        /// One round: `pkts` ACKs spread over `rtt`, each packet sent in
        /// the previous round (prior_delivered = delivered at the round's
        /// start).
        fn round(&mut self, pkts: u64, rate: f64, rtt: SimDur, in_flight: u64) {
            let start = self.delivered;
            for _ in 0..pkts {
                self.now += rtt / pkts;
                self.ack(rate, rtt, start, in_flight);
            }
        }
    }

    const RTT: SimDur = SimDur::from_millis(100);

    #[test]
    fn startup_exits_after_three_rounds_without_25_percent_growth() {
        let mut d = Drive::new(1);
        // growing by 30 % a round: stays in Startup, with 2/ln 2 gains
        let mut rate = 100_000.0;
        for _ in 0..6 {
            d.round(10, rate, RTT, 10 * MSS);
            rate *= 1.3;
            assert_eq!(d.bbr.mode, Mode::Startup);
            assert!(!d.bbr.full_bw_reached);
        }
        assert_eq!((d.bbr.pacing_gain, d.bbr.cwnd_gain), (2.885, 2.885));
        // a plateau (8, 16, 24 % above it: < 25 %): three rounds later the pipe is full
        let plateau = rate;
        let rounds_before = d.bbr.round_count;
        // the first plateau round still sets full_bw (30 % above the last)
        d.round(10, plateau, RTT, 100 * MSS);
        for k in 1..=3 {
            assert!(!d.bbr.full_bw_reached, "{k}");
            d.round(10, plateau * (1.0 + 0.08 * k as f64), RTT, 100 * MSS);
        }
        assert!(d.bbr.full_bw_reached);
        assert_eq!(d.bbr.round_count - rounds_before, 4);
        // in flight (100 packets) above BDP: Drain, pacing at ln 2 / 2
        assert_eq!(d.bbr.mode, Mode::Drain);
        assert!((d.bbr.pacing_gain - 1.0 / 2.885).abs() < 1e-12);
        // once in flight is at most one BDP (+ 3 quanta), ProbeBW
        let bdp = d.bbr.inflight(1.0, MSS);
        d.round(1, plateau, RTT, bdp);
        assert_eq!(d.bbr.mode, Mode::ProbeBw);
        assert_eq!(d.bbr.cwnd_gain, 2.0);
    }

    fn to_probe_bw(seed: u64) -> Drive {
        let mut d = Drive::new(seed);
        for _ in 0..5 {
            d.round(10, 1_000_000.0, RTT, 10 * MSS);
        }
        assert!(d.bbr.full_bw_reached);
        d.round(1, 1_000_000.0, RTT, 0);
        assert_eq!(d.bbr.mode, Mode::ProbeBw);
        d
    }

    /// `extra_acked`: a burst of 20 ACKs at one instant in ProbeBW is 20
    /// segments ahead of BtlBw, and the allowance enters the cwnd target
    /// (`set_cwnd` grows cwnd to it); off (the default), nothing changes.
    #[test]
    fn extra_acked_adds_the_aggregation_allowance() {
        let mut cwnds = Vec::new();
        for on in [false, true] {
            let mut d = Drive::new(1);
            d.bbr = Bbr::new(&BbrTable { extra_acked: on, ..BbrTable::default() });
            d.bbr.seed(1);
            d.bbr.on_rtt_sample(SimTime::ZERO, RTT);
            for _ in 0..5 {
                d.round(10, 1_000_000.0, RTT, 10 * MSS);
            }
            d.round(1, 1_000_000.0, RTT, 0);
            assert_eq!(d.bbr.mode, Mode::ProbeBw);
            let start = d.delivered;
            for _ in 0..20 {
                d.ack(1_000_000.0, RTT, start, 10 * MSS);
            }
            let allowance = d.bbr.aggregation_allowance();
            if on {
                assert!((19 * MSS..=21 * MSS).contains(&allowance), "{allowance}");
            } else {
                assert_eq!(allowance, 0);
            }
            for _ in 0..3 {
                d.round(50, 1_000_000.0, RTT, 10 * MSS);
            }
            assert_eq!(d.bbr.aggregation_allowance(), allowance, "kept for the slot's 5 rounds");
            let target = d.bbr.inflight(d.bbr.cwnd_gain, MSS) + allowance;
            assert_eq!(d.win.cwnd, target, "on = {on}");
            cwnds.push((d.win.cwnd, allowance));
        }
        assert_eq!(cwnds[1].0 - cwnds[0].0, cwnds[1].1, "{cwnds:?}");
    }

    #[test]
    fn probe_bw_cycles_its_gains_in_order_and_paces_at_gain_times_btlbw() {
        let mut starts = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let mut d = to_probe_bw(seed);
            let first = d.bbr.cycle_index;
            starts.insert(first);
            assert_ne!(first, 1, "never starts in the 3/4 phase");
            let bw = d.bbr.btlbw();
            assert!((bw - 1_000_000.0).abs() < 1.0, "{bw}");
            let bdp = d.bbr.inflight(1.0, MSS);
            let mut seen = vec![d.bbr.pacing_gain];
            for _ in 0..16 {
                // each phase lasts RTprop (100 ms); 5/4 needs in flight at
                // 5/4 BDP, which the ACKs report
                let before = d.bbr.cycle_index;
                let mut n = 0;
                while d.bbr.cycle_index == before {
                    d.now += SimDur::from_millis(20);
                    let inflight = if d.bbr.pacing_gain > 1.0 { 2 * bdp } else { bdp };
                    let start = d.delivered;
                    d.ack(1_000_000.0, RTT, start, inflight);
                    d.in_flight = inflight;
                    n += 1;
                    assert!(n < 20);
                }
                assert_eq!(d.bbr.cycle_index, (before + 1) % 8);
                seen.push(d.bbr.pacing_gain);
                // pacing rate = gain x BtlBw (draft)
                let rate = d.bbr.pacing_rate(&d.win).unwrap();
                assert!((rate - d.bbr.pacing_gain * d.bbr.btlbw()).abs() < 1e-6, "{rate}");
            }
            for (k, g) in seen.iter().enumerate() {
                assert_eq!(*g, PACING_GAIN_CYCLE[(first + k) % 8]);
            }
        }
        assert!(starts.len() >= 5, "random start phases: {starts:?}");
    }

    #[test]
    fn probe_rtt_follows_ten_seconds_without_a_new_min_rtt() {
        let mut d = to_probe_bw(7);
        let cwnd_before = d.win.cwnd;
        assert!(cwnd_before > 4 * MSS);
        // RTTs above the minimum (100 ms, set at the first ACK) from now
        // on: 10 s after it, ProbeRTT
        let deadline = d.bbr.min_rtt_stamp + SimDur::from_secs(10);
        assert!(d.bbr.min_rtt_stamp < SimTime::from_millis(20));
        while d.bbr.mode != Mode::ProbeRtt {
            assert!(d.now <= deadline, "entered only after 10 s");
            d.round(10, 1_000_000.0, SimDur::from_millis(120), 50 * MSS);
        }
        assert!(d.now > deadline && d.now <= deadline + SimDur::from_millis(130), "{:?}", d.now);
        assert_eq!(d.win.cwnd, 4 * MSS, "ProbeRTT holds cwnd at 4 packets");
        assert_eq!(d.bbr.pacing_gain, 1.0);
        assert_eq!(d.bbr.min_rtt, Some(SimDur::from_millis(120)), "the expired minimum is replaced");
        // in flight drains to 4 packets; then 200 ms and a round trip
        let entered = d.now;
        let mut marked = false;
        while d.bbr.mode == Mode::ProbeRtt {
            d.now += SimDur::from_millis(10);
            let start = d.delivered;
            marked |= d.ack(1_000_000.0, SimDur::from_millis(100), start.saturating_sub(4 * MSS), 4 * MSS);
            assert!(d.now < entered + SimDur::from_millis(1000));
        }
        assert!(marked, "ProbeRTT marks the connection application-limited");
        assert!(d.now >= entered + SimDur::from_millis(200));
        assert_eq!(d.bbr.mode, Mode::ProbeBw);
        assert!(d.win.cwnd >= cwnd_before, "the saved cwnd is restored: {} < {cwnd_before}", d.win.cwnd);
    }

    #[test]
    fn max_filter_keeps_the_window_of_rounds() {
        let mut f = MaxFilter::new(10);
        f.update(0, 5.0);
        f.update(3, 3.0);
        assert_eq!(f.best(), 5.0);
        f.update(10, 1.0);
        assert_eq!(f.best(), 5.0, "round 0 is 10 rounds old: still in");
        f.update(11, 1.0);
        assert_eq!(f.best(), 3.0, "round 0 is 11 rounds old: out");
    }

    #[test]
    fn recovery_conserves_packets_and_restores_cwnd() {
        let mut d = to_probe_bw(3);
        for _ in 0..3 {
            d.round(10, 1_000_000.0, RTT, 50 * MSS);
        }
        let before = d.win.cwnd;
        let win = d.win;
        assert_eq!(d.bbr.ssthresh_after_loss(d.now, &win, 50 * MSS, LossKind::FastRetransmit), win.ssthresh);
        // the connection's recovery sets cwnd = ssthresh (huge): undone
        d.win.cwnd = d.win.ssthresh;
        let rs = RateSample {
            now: d.now,
            delivered_total: d.delivered + MSS,
            prior_delivered: d.delivered,
            delivered: 0,
            interval: SimDur::ZERO,
            is_app_limited: false,
            rtt: None,
            newly_delivered: MSS,
            newly_lost: MSS,
            prior_in_flight: 50 * MSS,
            in_flight: 30 * MSS,
            phase: LossState::Recovery,
        };
        d.bbr.on_rate_sample(&mut d.win, &rs);
        assert_eq!(d.win.cwnd, 31 * MSS, "in flight + delivered");
        let rs = RateSample { phase: LossState::Open, in_flight: 20 * MSS, newly_lost: 0, ..rs };
        d.bbr.on_rate_sample(&mut d.win, &rs);
        assert!(d.win.cwnd >= before, "{} < {before}", d.win.cwnd);
    }

    #[test]
    fn the_table_is_checked_and_builds_bbr() {
        assert!(BbrTable::default().check().is_ok());
        let e = BbrTable { high_gain: 1.0, ..BbrTable::default() }.check().unwrap_err();
        assert_eq!(e.to_string(), "high_gain: must be above 1, got 1");
        assert!(BbrTable { bw_window_rounds: 0, ..BbrTable::default() }.check().is_err());
        // the send quantum: 2 segments at 8 Mbit/s by the draft's rule, 1
        // with quantum_segments = 1; three of them in BBRInflight
        let mut d = to_probe_bw(5);
        let draft = d.bbr.inflight(1.0, MSS);
        d.bbr.quantum_segments = 1;
        assert_eq!(draft - d.bbr.inflight(1.0, MSS), 3 * MSS);
        let b = BbrTable::default().build();
        assert_eq!(b.name(), "bbr");
        assert!(b.reads_rate_samples());
        let w = Window { cwnd: 10 * MSS, ssthresh: 0, mss: MSS as u32 };
        // 2.885 x 10 packets / 1 ms before any RTT sample
        assert!((b.pacing_rate(&w).unwrap() - 2.885 * 10_000.0 * 1e3).abs() < 1e-3);
    }
}
