//! Rules BBR v1 ([`super::bbr`]) and BBR v3 ([`super::bbr3`]) share
//! (draft-cardwell-iccrg-bbr-congestion-control-00 and
//! draft-ietf-ccwg-bbr state them alike): the windowed maximum filter of
//! the bandwidth estimate, the send quantum, the pseudo-random draw and fast recovery's cwnd rules.
use crate::rate::RateSample;
use crate::sender::LossState;
use std::collections::VecDeque;
use wifitcp_core::SimDur;

/// The maximum of samples over a window of rounds (or, for BBR v3,
/// ProbeBW cycles): a deque of (round, value) with decreasing values, so
/// the front is the maximum.
#[derive(Clone, Debug, Default)]
pub struct MaxFilter {
    window: u64,
    samples: VecDeque<(u64, f64)>,
}

impl MaxFilter {
    pub fn new(window: u64) -> Self {
        MaxFilter { window, samples: VecDeque::new() }
    }
    /// Add `value` measured in `round`; samples older than `window`
    /// rounds leave.
    pub fn update(&mut self, round: u64, value: f64) {
        while self.samples.back().is_some_and(|&(_, v)| v <= value) {
            self.samples.pop_back();
        }
        self.samples.push_back((round, value));
        while self.samples.front().is_some_and(|&(r, _)| round - r > self.window) {
            self.samples.pop_front();
        }
    }
    pub fn best(&self) -> f64 {
        self.samples.front().map_or(0.0, |&(_, v)| v)
    }
}

/// The send quantum in bytes (both drafts, BBRSetSendQuantum, at pacing
/// rate `pacing` bytes/s): 1 MSS below 1.2 Mbit/s, 2 MSS below 24 Mbit/s,
/// else 1 ms of data up to 64 KB; `quantum_segments` segments if not 0.
pub fn send_quantum(pacing: f64, mss: u64, quantum_segments: u32) -> u64 {
    if quantum_segments > 0 {
        return quantum_segments as u64 * mss;
    }
    let bits = pacing * 8.0;
    if bits < 1.2e6 {
        mss
    } else if bits < 24e6 {
        2 * mss
    } else {
        ((pacing / 1e3) as u64).min(65_536)
    }
}

/// The in-flight target for `gain` (both drafts, BBRInflight plus the
/// quantum headroom of BBRUpdateTargetCwnd): `gain` x BDP of the
/// bandwidth estimate `bw` (bytes/s) over `min_rtt`, plus 3 send quanta
/// `quantum`; before the first RTT sample the initial window (`init_cwnd`,
/// else 10 segments of `mss`).
pub fn inflight(bw: f64, min_rtt: Option<SimDur>, gain: f64, quantum: u64, init_cwnd: Option<u64>, mss: u64) -> u64 {
    let Some(rtt) = min_rtt else {
        return init_cwnd.unwrap_or(10 * mss);
    };
    let bdp = bw * rtt.as_secs_f64();
    (gain * bdp).ceil() as u64 + 3 * quantum
}

/// The pacing rate before any bandwidth sample (both drafts,
/// BBRInitPacingRate): `gain` x the initial window (`init_cwnd`, else
/// `cwnd`) over the first RTT sample (1 ms before there is one), bytes/s.
pub fn initial_pacing_rate(gain: f64, first_rtt: Option<SimDur>, init_cwnd: Option<u64>, cwnd: u64) -> f64 {
    let rtt = first_rtt.unwrap_or(SimDur::from_millis(1)).as_nanos().max(1) as f64;
    gain * init_cwnd.unwrap_or(cwnd) as f64 * 1e9 / rtt
}

/// The next pacing rate (both drafts, BBRSetPacingRateWithGain): `rate`
/// once the pipe is full or if it exceeds `current`; the initial rate
/// `initial()` while `current` is 0.
pub fn next_pacing_rate(current: f64, rate: f64, full_bw_reached: bool, initial: impl FnOnce() -> f64) -> f64 {
    let current = if current == 0.0 { initial() } else { current };
    if rate > 0.0 && rate.is_finite() && (full_bw_reached || rate > current) {
        rate
    } else {
        current
    }
}

/// splitmix64: advances `state` and returns the next draw (the
/// controllers' random choices, from the seed the connection gives).
pub fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// cwnd's growth toward `target` after an ACK that delivered `acked`
/// bytes (both drafts' BBRSetCwnd, Linux `bbr_set_cwnd`): once the pipe
/// is full, up to the target; before, by every ACK while below the
/// target or while fewer than the initial window `init` of bytes have
/// been delivered (`delivered_total`).
pub fn grow_cwnd(cwnd: u64, acked: u64, target: u64, full_bw_reached: bool, delivered_total: u64, init: u64) -> u64 {
    if full_bw_reached {
        (cwnd + acked).min(target)
    } else if cwnd < target || delivered_total < init {
        cwnd + acked
    } else {
        cwnd
    }
}

/// What [`RecoveryCwnd::modulate`] leaves to the caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CwndStep {
    /// The ACK delivered nothing: cwnd only lowered by the losses.
    Hold,
    /// Packet conservation holds cwnd at in flight + delivered.
    Conserve,
    /// The controller's own growth toward its target follows.
    Grow,
}

/// Fast recovery's cwnd rules both drafts state alike (BBRSaveCwnd,
/// BBRModulateCwndForRecovery with BBROnEnterFastRecovery and
/// BBROnExitRecovery; Linux `bbr_save_cwnd`,
/// `bbr_set_cwnd_to_recover_or_restore`): cwnd lowered by the data newly
/// marked lost; on entering fast recovery cwnd = in flight + delivered
/// (at least one MSS) and packet conservation for a round (the caller
/// ends it at its next round start); on leaving recovery or an RTO's loss
/// state cwnd back to at least the saved one.
#[derive(Clone, Debug)]
pub struct RecoveryCwnd {
    pub prior_cwnd: u64,
    pub packet_conservation: bool,
    pub prev_phase: LossState,
}

impl Default for RecoveryCwnd {
    fn default() -> Self {
        RecoveryCwnd { prior_cwnd: 0, packet_conservation: false, prev_phase: LossState::Open }
    }
}

impl RecoveryCwnd {
    /// BBRSaveCwnd: the cwnd to restore, unless already in recovery or
    /// ProbeRTT (then the larger of the two).
    pub fn save(&mut self, cwnd: u64, in_probe_rtt: bool) {
        self.prior_cwnd =
            if self.prev_phase == LossState::Open && !in_probe_rtt { cwnd } else { self.prior_cwnd.max(cwnd) };
    }

    /// Applies the ACK's losses and recovery transitions to `cwnd`;
    /// returns whether fast recovery began and what the caller does next.
    pub fn modulate(&mut self, cwnd: &mut u64, rs: &RateSample, mss: u64) -> (bool, CwndStep) {
        let acked = rs.newly_delivered;
        if rs.newly_lost > 0 {
            *cwnd = cwnd.saturating_sub(rs.newly_lost).max(mss);
        }
        let entering = rs.phase == LossState::Recovery && self.prev_phase != LossState::Recovery;
        if entering {
            self.packet_conservation = true;
            *cwnd = rs.in_flight + acked.max(mss);
        }
        if acked == 0 && !entering {
            return (false, CwndStep::Hold);
        }
        if !entering && self.prev_phase != LossState::Open && rs.phase == LossState::Open {
            *cwnd = (*cwnd).max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_phase = rs.phase;
        if self.packet_conservation {
            *cwnd = (*cwnd).max(rs.in_flight + acked);
            return (entering, CwndStep::Conserve);
        }
        (entering, CwndStep::Grow)
    }
}

/// The trace state of BBR v1 and v3: the mode, the pacing rate and the
/// bandwidth estimate (bytes per second, reported in bit/s) and the
/// min-RTT estimate (reported in ms).
pub fn trace_state(mode: &'static str, pacing: f64, bw: f64, min_rtt: Option<SimDur>) -> super::CcTraceState {
    super::CcTraceState::new(
        mode,
        &["pacing_rate_bps", "btlbw_bps", "min_rtt_ms"],
        [Some(pacing * 8.0), Some(bw * 8.0), min_rtt.map(|d| d.as_secs_f64() * 1e3), None],
    )
}
