//! Congestion control: the extension point for window-growth algorithms.
//!
//! The connection owns `cwnd` and `ssthresh` (in bytes) and the loss-recovery
//! machinery (fast retransmit, NewReno partial ACKs, SACK scoreboard, RTO);
//! a congestion controller only decides:
//! - how the window grows when new data is acknowledged ([`CongestionControl::on_ack`]),
//! - what ssthresh becomes when the connection detects a loss
//!   ([`CongestionControl::ssthresh_after_loss`]), and
//! - what it wants to know about RTT samples, recovery and timeouts.
//!
//! This mirrors the split of Linux's `tcp_congestion_ops` (`ssthresh`,
//! `cong_avoid`, `pkts_acked`, `set_state`, `cwnd_event`): a new algorithm
//! plugs in without touching the connection code.
//!
//! A scenario selects a controller by name (`[tcp] cc = "vegas"`) and sets
//! its keys in the table under that name (`[tcp.vegas]`). Each controller
//! is one file here: its algorithm, its table struct (declared with
//! `wifitcp_core::config_table!`, so its key rows derive from the
//! declaration) and the [`CcKind`] impl of that struct (its checks and the
//! constructor of an endpoint's controller); and one line of the
//! [`CcConfig`] registration below, which the scenario layer
//! (`crate::scenario`: parsing, the key table, building) reads.
use wifitcp_core::config::ConfigError;
use wifitcp_core::{SimDur, SimTime};

wifitcp_core::config_choices! {
    /// The congestion controllers a scenario selects by `tcp.cc`, each with
    /// its keys (if any) in `[tcp.<name>]`: one line per controller, naming
    /// its table struct and the module of its file, in the order docs and
    /// messages list them; the first is the default.
    pub enum CcConfig: key "cc", names CcName, dyn CcKind {
        /// Reno window growth (RFC 5681).
        "reno" => Reno(reno::RenoTable) mod reno,
        /// NewReno: Reno window growth with the `recovery` default, RFC 6582 NewReno loss
        /// recovery (the name Linux and ns-3 give it; an explicit `recovery` still applies).
        "newreno" => NewReno(reno::RenoTable),
        /// TCP Vegas (Brakmo & Peterson 1995): its thresholds, in packets of backlog.
        "vegas" => Vegas(vegas::VegasTable) mod vegas,
        /// CUBIC (RFC 9438).
        "cubic" => Cubic(cubic::CubicTable) mod cubic,
        /// Compound TCP (Tan et al., INFOCOM 2006; paper 004 eq. (1)).
        "compound" => Compound(compound::CompoundConfig) mod compound,
        /// HighSpeed TCP (RFC 3649).
        "highspeed" => HighSpeed(highspeed::HighSpeedTable) mod highspeed,
        /// BBR v1 (Cardwell et al., ACM Queue 2016; draft-cardwell-iccrg-bbr-congestion-control-00).
        "bbr" => Bbr(bbr::BbrTable) mod bbr,
        /// BBR v3 (draft-ietf-ccwg-bbr): ProbeBW Down / Cruise / Refill / Up, inflight_hi / inflight_lo, loss and ECN response.
        "bbr3" => Bbr3(bbr3::Bbr3Table) mod bbr3,
        /// DCTCP (RFC 8257): reduction by alpha / 2 of the marked fraction; needs `ecn = "accurate"`.
        "dctcp" => Dctcp(dctcp::DctcpTable) mod dctcp,
        /// TCP Prague-style scalable response (draft-briscoe-iccrg-prague-congestion-control): DCTCP's law on ECT(1).
        "prague" => Prague(prague::PragueTable) mod prague,
        /// TCP Westwood+ (Mascolo et al. 2001; Grieco & Mascolo 2004): ssthresh = BWE x RTTmin.
        "westwood" => Westwood(westwood::WestwoodTable) mod westwood,
        /// TCP Veno (Fu & Liew 2003): random vs congestive loss by Vegas' backlog.
        "veno" => Veno(veno::VenoTable) mod veno,
    }
}

/// A congestion controller as a scenario selects it: its table
/// (`[tcp.<name>]`), checked, and the constructor of one endpoint's
/// controller.
pub trait CcKind {
    /// Checks of the table's keys; paths relative to the table (`beta`).
    fn check(&self) -> Result<(), ConfigError> {
        Ok(())
    }
    /// A fresh controller for one endpoint (of a checked table).
    fn build(&self) -> Box<dyn CongestionControl>;
}

/// `Err` at `key`, "`reason`, got `x`", unless `x` is finite and `ok`.
pub fn check_param(key: &str, x: f64, ok: bool, reason: &str) -> Result<(), ConfigError> {
    if x.is_finite() && ok {
        Ok(())
    } else {
        Err(ConfigError::new(key, format!("{reason}, got {x}")))
    }
}

/// The window state the connection shares with its controller, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Sender maximum segment size (payload bytes per segment).
    pub mss: u32,
}

/// What an arriving ACK that advanced `snd_una` tells the controller.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo {
    pub now: SimTime,
    /// Bytes newly acknowledged by this ACK (cumulative advance).
    pub acked_bytes: u64,
    /// RTT sample taken from this ACK, if Karn's rule allowed one.
    pub rtt: Option<SimDur>,
    /// Bytes in flight before this ACK was processed.
    pub prior_in_flight: u64,
    /// Whether the sender was limited by the application or receiver window
    /// (not by cwnd) when the acknowledged data was sent.
    pub app_or_rwnd_limited: bool,
}

/// What one ACK tells about ECN marks (see [`CongestionControl::on_ecn_feedback`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EcnFeedback {
    pub now: SimTime,
    /// Bytes newly acknowledged by this ACK (cumulative advance).
    pub acked_bytes: u64,
    /// The ACK carried ECE.
    pub ece: bool,
    /// `snd_una` after this ACK and `snd_max` (absolute offsets), for a
    /// per-window observation (RFC 8257 3.3: the window ends when
    /// `snd_una` passes the `snd_max` of its start).
    pub snd_una: u64,
    pub snd_max: u64,
}

/// Why the connection is reducing its window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossKind {
    /// Fast retransmit after duplicate ACKs or SACK-detected loss
    /// (RFC 5681 section 3.2, RFC 6675).
    FastRetransmit,
    /// Retransmission timeout (RFC 6298 section 5, RFC 5681 section 3.1).
    Timeout,
}

/// Events the controller may react to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcEvent {
    /// Fast recovery finished; the connection has set cwnd per its recovery
    /// algorithm (normally to ssthresh).
    RecoveryExit,
    /// Transmission restarted after an idle period.
    IdleRestart,
}

/// A congestion-control algorithm. One instance per connection; it owns all
/// of its private state. `Send`: a connection may run inside an agent (the
/// split-TCP proxy's two connections).
pub trait CongestionControl: std::fmt::Debug + Send {
    /// Short name, e.g. "newreno", "cubic".
    fn name(&self) -> &'static str;

    /// Grow (or, for delay-based algorithms, adjust) the window after an ACK
    /// that advanced `snd_una` outside loss recovery.
    fn on_ack(&mut self, win: &mut Window, ack: &AckInfo);

    /// Called for every RTT sample, including those during recovery.
    fn on_rtt_sample(&mut self, _now: SimTime, _rtt: SimDur) {}

    /// A loss was detected: return the new ssthresh in bytes. The connection
    /// then sets cwnd according to `kind` (ssthresh + 3 MSS for fast
    /// recovery, 1 MSS loss window after a timeout; RFC 5681).
    fn ssthresh_after_loss(&mut self, now: SimTime, win: &Window, in_flight: u64, kind: LossKind) -> u64;

    /// Notification of other events.
    fn on_event(&mut self, _now: SimTime, _win: &mut Window, _ev: CcEvent) {}

    /// Whether the connection checks a fine-grained timeout on duplicate
    /// ACKs and on the first two new ACKs after a retransmission (Brakmo &
    /// Peterson's Vegas loss detection, see [`vegas`]). Off by default.
    fn fine_grained_loss(&self) -> bool {
        false
    }

    /// The segment a fast retransmit is about to resend: when it was last
    /// sent and whether that was already a retransmission. Called just
    /// before [`CongestionControl::ssthresh_after_loss`] with
    /// `LossKind::FastRetransmit`.
    fn on_loss_segment(&mut self, _sent_at: SimTime, _retransmitted: bool) {}

    /// Whether the controller reads delivery-rate samples
    /// ([`CongestionControl::on_rate_sample`]; Linux's `cong_control`
    /// hook). Off by default: the connection then keeps no delivery-rate
    /// state. A controller that reads them owns cwnd on every ACK, in and
    /// out of loss recovery (the connection's recovery still chooses which
    /// segments to send), and the connection skips RFC 5681 4.1's idle
    /// restart for it (Linux skips it for a `cong_control` controller).
    fn reads_rate_samples(&self) -> bool {
        false
    }

    /// Every ACK's delivery-rate sample, after the connection's loss
    /// detection (Linux calls `cong_control` at the same point of
    /// `tcp_ack`). Returns true if the connection is to mark itself
    /// application-limited (draft-cheng-iccrg-delivery-rate-estimation 3.4;
    /// BBR does so in ProbeRTT so that its low-rate samples do not lower
    /// the bandwidth estimate).
    fn on_rate_sample(&mut self, _win: &mut Window, _rs: &crate::rate::RateSample) -> bool {
        false
    }

    /// The rate the connection paces its data segments at, in bytes per
    /// second (Linux's `sk_pacing_rate`); `None` (the default): the
    /// controller sets none, and the connection paces only if `[tcp]
    /// pacing` is set, at its own rate (see [`crate::sender`]).
    fn pacing_rate(&self, _win: &Window) -> Option<f64> {
        None
    }

    /// A seed for the controller's own random choices, drawn from the
    /// connection's random stream (the initial sequence number, itself
    /// from the connection's `RngStream`). Called once at construction.
    fn seed(&mut self, _seed: u64) {}

    /// The ECT codepoint of this controller's data segments when ECN is in
    /// use: ECT(0) (RFC 3168), or ECT(1) for a scalable controller on the
    /// L4S path (RFC 9331 section 4).
    fn ect(&self) -> crate::ecn::Ecn {
        crate::ecn::Ecn::Ect0
    }

    /// The ssthresh after an ECN congestion indication (RFC 3168 6.1.2;
    /// the connection then sets cwnd to it, once per window, without
    /// retransmitting). Default: the controller's response to a loss
    /// detected by fast retransmit, as RFC 3168 asks.
    fn ssthresh_after_ce(&mut self, now: SimTime, win: &Window, in_flight: u64) -> u64 {
        self.ssthresh_after_loss(now, win, in_flight, LossKind::FastRetransmit)
    }

    /// Every ACK's ECN echo while ECN is in use (DCTCP's and Prague's
    /// marked-fraction estimate, RFC 8257 3.3), before the connection's
    /// once-per-window reaction to it.
    fn on_ecn_feedback(&mut self, _fb: &EcnFeedback) {}

    /// The controller's state for the per-connection trace (`[tcp]
    /// trace_cwnd`), read after every window change. The default, for
    /// controllers whose only state is the window: the mode RFC 5681 3.1
    /// names from cwnd and ssthresh ("slow_start" below ssthresh,
    /// "congestion_avoidance" from it), no estimates.
    fn trace_state(&self, win: &Window) -> CcTraceState {
        CcTraceState::new(window_mode(win), &[], [None; 4])
    }
}

/// RFC 5681 3.1's phase of a window: slow start while cwnd < ssthresh.
pub fn window_mode(win: &Window) -> &'static str {
    if win.cwnd < win.ssthresh {
        "slow_start"
    } else {
        "congestion_avoidance"
    }
}

/// A controller's state at one instant, for the trace: its mode and up
/// to four of its estimates, named (with their unit) by `names`, the same
/// names for every sample of one controller ("pacing_rate_bps",
/// "btlbw_bps", "min_rtt_ms" for BBR; "w_max_segments" for CUBIC, ...).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcTraceState {
    /// The controller's mode, a short name ("startup", "probe_bw",
    /// "slow_start", "concave", ...).
    pub mode: &'static str,
    /// What `values` hold, in order (at most four).
    pub names: &'static [&'static str],
    /// The estimates named by `names` (None: not known yet).
    pub values: [Option<f64>; 4],
}

impl CcTraceState {
    pub fn new(mode: &'static str, names: &'static [&'static str], values: [Option<f64>; 4]) -> CcTraceState {
        debug_assert!(names.len() <= 4);
        CcTraceState { mode, names, values }
    }
    /// The estimates named by `names`.
    pub fn named(&self) -> &[Option<f64>] {
        &self.values[..self.names.len()]
    }
}

/// RFC 5681 equation (4): ssthresh = max(FlightSize / 2, 2 * SMSS).
pub fn half_flight(in_flight: u64, mss: u32) -> u64 {
    (in_flight / 2).max(2 * mss as u64)
}

pub mod ack_aggregation;
pub mod bbr_common;
pub mod hystart;
#[cfg(test)]
pub(crate) mod testkit;
