//! The sending half of a connection: ACK processing, RTT sampling, the
//! retransmission timer, and the choice of the next segment to send.
//! Loss detection and the variant-specific reactions live in
//! [`crate::recovery`].
//!
//! Positions are absolute offsets in our own sequence space (our SYN is
//! offset 0, the first data byte offset 1).
//!
//! Invariants:
//! - `snd_una <= snd_max`; the scoreboard holds exactly the segments in
//!   `[snd_una, snd_max)`, contiguous;
//! - the retransmission timer runs iff data (or a FIN) is outstanding
//!   (RFC 6298 5.1/5.2), except while a zero-window probe timer runs instead;
//! - cwnd >= 1 SMSS at all times.
//!
//! Pacing (Linux's `sk_pacing_rate` with the fq scheduler's per-flow
//! release times; ns-3's `TcpSocketState::m_pacing`): when the controller
//! sets a pacing rate ([`CongestionControl::pacing_rate`], BBR) or `[tcp]
//! pacing` is on, each data segment (new data, retransmission, FIN, tail
//! loss probe) moves the earliest release of the next one to
//! `max(release, now) + payload / rate`; a segment that cwnd allows earlier
//! waits, and the connection's next wake-up ([`crate::Connection::next_wakeup`])
//! is that release time. Pure ACKs are not paced. Without a controller's
//! rate, `[tcp] pacing` uses Linux's `tcp_update_pacing_rate`: `ratio x
//! max(cwnd, FlightSize) / SRTT`, ratio 2 in slow start (cwnd < ssthresh /
//! 2, `tcp_pacing_ss_ratio` = 200 %) and 1.2 otherwise
//! (`tcp_pacing_ca_ratio` = 120 %), no pacing before the first RTT sample.
//! Deviations: the gap counts payload bytes (as ns-3's pacing timer; Linux
//! and fq count the whole packet, 40 bytes more per 1460); Linux does not
//! pace a connection's first 10 segments, here every data segment is paced.
//! With neither a controller's rate nor `pacing`, no pacing state is read
//! and nothing changes.
use crate::cc::{AckInfo, CongestionControl, Window};
use crate::config::{RecoveryVariant, TcpConfig};
use crate::rack::Rack;
use crate::rate::{RateSample, RateSampler};
use crate::rtt::RttEstimator;
use crate::scoreboard::{Scoreboard, SentSeg};
use crate::stats::{CcSample, CwndSample, TcpStats};
use wifitcp_core::{SimDur, SimTime};

/// Loss-recovery state of the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossState {
    /// No loss being repaired.
    Open,
    /// Fast recovery (RFC 5681 3.2, RFC 6582, RFC 6675) until `recover`.
    Recovery,
    /// After an RTO (or Tahoe's fast retransmit): slow start, go-back-N
    /// retransmission of everything below `recover`.
    Loss,
}

/// An arriving acknowledgement, converted to absolute offsets.
#[derive(Clone, Debug)]
pub struct AckSeg<'a> {
    pub now: SimTime,
    /// Cumulative acknowledgement (our sequence space).
    pub ack: u64,
    /// Advertised window in bytes (already scaled).
    pub wnd: u64,
    /// The segment's own sequence number (peer's space), for SND.WL1.
    pub seg_seq: u64,
    /// SACK blocks (our sequence space).
    pub sacks: &'a [(u64, u64)],
    pub tsecr: Option<u32>,
    /// No payload and neither SYN nor FIN (RFC 5681 section 2 (b), (c)).
    pub pure: bool,
}

/// What the connection must do after an ACK was processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckVerdict {
    /// Acknowledges data not yet sent: reply with an ACK and drop it
    /// (RFC 9293 3.10.7.4).
    TooNew,
    /// Older than `snd_una`: ignored.
    Old,
    Processed,
}

/// One segment the sender wants on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxData {
    pub start: u64,
    pub payload: u32,
    pub fin: bool,
    pub rtx: bool,
}

/// Why no new data could be sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Blocked {
    App,
    Rwnd,
}

#[derive(Debug)]
pub struct Sender {
    pub(crate) variant: RecoveryVariant,
    pub(crate) dupthresh: u32,
    limited_transmit: bool,
    nagle: bool,
    idle_restart: bool,
    ts_tick: u64,
    pub(crate) smss: u32,
    pub(crate) iw: u64,
    pub(crate) snd_una: u64,
    pub(crate) snd_max: u64,
    pub(crate) app_end: u64,
    pub(crate) infinite: bool,
    pub(crate) fin_queued: bool,
    pub(crate) fin_sent: bool,
    pub(crate) snd_wnd: u64,
    max_snd_wnd: u64,
    wl1: u64,
    wl2: u64,
    pub(crate) win: Window,
    pub(crate) cc: Box<dyn CongestionControl>,
    pub(crate) rtt: RttEstimator,
    pub(crate) sb: Scoreboard,
    pub(crate) state: LossState,
    pub(crate) dupacks: u32,
    pub(crate) recover: u64,
    pub(crate) high_rxt: u64,
    pub(crate) force_rtx: bool,
    pub(crate) lt_bytes: u64,
    pub(crate) partial_acks: u32,
    /// New ACKs after a fine-grained-loss retransmission still to check
    /// (Vegas, B&P 3.1: the first and second).
    pub(crate) fg_worried: u8,
    /// The ACK being processed repeats `snd_una` with data outstanding (a
    /// duplicate in B&P's sense: same acknowledgement number, whatever
    /// its window).
    pub(crate) same_ack: bool,
    pub(crate) rtx_deadline: Option<SimTime>,
    pub(crate) persist_deadline: Option<SimTime>,
    persist_backoff: u32,
    pub(crate) rto_count: u32,
    pub(crate) max_retransmissions: u32,
    cwnd_limited: bool,
    last_data_sent: Option<SimTime>,
    pub(crate) sack_ok: bool,
    pub(crate) ts_ok: bool,
    pub(crate) trace: bool,
    pub(crate) stats: TcpStats,
    /// RACK-TLP state (RFC 8985), with `rack_tlp` and SACK negotiated.
    pub(crate) rack: Option<Rack>,
    /// Data segments are paced (the controller sets a rate, or `pacing`).
    paced: bool,
    /// `[tcp] pacing`: pace at the connection's own rate when the
    /// controller sets none.
    pacing_cfg: bool,
    /// Earliest release time of the next data segment.
    pace_next: SimTime,
    /// A segment waits for `pace_next`: the connection's wake-up.
    pub(crate) pace_wait: Option<SimTime>,
    /// The RTT sample of the ACK being processed (for the rate sample).
    ack_rtt: Option<SimDur>,
    /// ECN state of the connection, both directions ([`crate::ecn`]).
    pub(crate) ecn: crate::ecn::EcnState,
}

impl Sender {
    pub fn new(cfg: &TcpConfig, cc: Box<dyn CongestionControl>) -> Self {
        let smss = cfg.mss;
        let ssthresh = cfg.initial_ssthresh.unwrap_or(u64::MAX >> 2);
        Sender {
            variant: cfg.recovery,
            dupthresh: cfg.dupthresh,
            limited_transmit: cfg.limited_transmit,
            nagle: cfg.nagle,
            idle_restart: cfg.idle_restart,
            ts_tick: cfg.ts_tick.as_nanos(),
            smss,
            iw: cfg.initial_window.bytes(smss),
            snd_una: 1,
            snd_max: 1,
            app_end: 1,
            infinite: false,
            fin_queued: false,
            fin_sent: false,
            snd_wnd: 0,
            max_snd_wnd: 0,
            wl1: 0,
            wl2: 0,
            win: Window { cwnd: cfg.initial_window.bytes(smss), ssthresh, mss: smss },
            cc,
            rtt: RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.max_rto, cfg.clock_granularity),
            sb: Scoreboard::new(),
            state: LossState::Open,
            dupacks: 0,
            recover: 0,
            high_rxt: 0,
            force_rtx: false,
            lt_bytes: 0,
            partial_acks: 0,
            fg_worried: 0,
            same_ack: false,
            rtx_deadline: None,
            persist_deadline: None,
            persist_backoff: 0,
            rto_count: 0,
            max_retransmissions: cfg.max_retransmissions,
            cwnd_limited: false,
            last_data_sent: None,
            sack_ok: false,
            ts_ok: false,
            trace: cfg.trace,
            stats: TcpStats::default(),
            rack: (cfg.rack_tlp && cfg.recovery == RecoveryVariant::Sack).then(Rack::default),
            paced: false,
            pacing_cfg: cfg.pacing,
            pace_next: SimTime::ZERO,
            pace_wait: None,
            ack_rtt: None,
            ecn: crate::ecn::EcnState::new(cfg.ecn),
        }
        .with_controller_hooks()
    }

    /// Delivery-rate sampling if the controller reads it; pacing if it
    /// sets a rate from its construction or `pacing` is on.
    fn with_controller_hooks(mut self) -> Self {
        if self.cc.reads_rate_samples() {
            self.sb.rate = Some(RateSampler::default());
        }
        self.paced = self.pacing_cfg || self.cc.pacing_rate(&self.win).is_some();
        self
    }

    /// The pacing rate in bytes per second, if any (see the module docs).
    pub fn pacing_rate(&self) -> Option<f64> {
        if !self.paced {
            return None;
        }
        if let Some(r) = self.cc.pacing_rate(&self.win) {
            return Some(r);
        }
        let srtt = self.rtt.srtt()?;
        if !self.pacing_cfg || srtt.as_nanos() == 0 {
            return None;
        }
        let ratio = if self.win.cwnd < self.win.ssthresh / 2 { 2.0 } else { 1.2 };
        let w = self.win.cwnd.max(self.snd_max - self.snd_una) as f64;
        Some(ratio * w * 1e9 / srtt.as_nanos() as f64)
    }

    /// Finish setup when the connection becomes synchronized: the
    /// negotiated sender MSS, options, the peer's first window, and the
    /// initial window (one segment if the SYN or SYN-ACK was retransmitted,
    /// RFC 5681 3.1 / RFC 6928 2).
    #[allow(clippy::too_many_arguments)]
    pub fn establish(&mut self, now: SimTime, smss: u32, iw: u64, sack_ok: bool, ts_ok: bool, wnd: u64, wl1: u64) {
        self.smss = smss;
        self.win.mss = smss;
        self.iw = iw;
        self.win.cwnd = iw;
        self.sack_ok = sack_ok;
        self.ts_ok = ts_ok;
        if self.variant == RecoveryVariant::Sack && !sack_ok {
            // RFC 6675 needs SACK information; fall back to NewReno (and
            // RACK-TLP, which needs it too, is off: RFC 8985 section 4).
            self.variant = RecoveryVariant::NewReno;
            self.rack = None;
        }
        self.snd_wnd = wnd;
        self.max_snd_wnd = wnd;
        self.wl1 = wl1;
        self.wl2 = self.snd_una;
        self.note_cwnd(now);
    }

    fn sack_recovery(&self) -> bool {
        self.variant == RecoveryVariant::Sack
    }

    /// Bytes considered in flight for the send decision. Outside recovery
    /// this is RFC 5681's FlightSize (`snd_max - snd_una`); in SACK
    /// recovery and after an RTO it is RFC 6675's pipe (for go-back-N,
    /// pipe = `snd_nxt - snd_una` of the BSD formulation); Reno and NewReno
    /// fast recovery use FlightSize with the inflated cwnd (RFC 5681 3.2).
    pub fn in_flight(&self) -> u64 {
        match self.state {
            LossState::Open => self.snd_max - self.snd_una,
            LossState::Recovery if !self.sack_recovery() => self.snd_max - self.snd_una,
            _ => self.sb.pipe(),
        }
    }

    /// Payload bytes written by the application and not yet acknowledged.
    pub fn unacked_app_bytes(&self) -> u64 {
        if self.infinite {
            return u64::MAX;
        }
        self.app_end.saturating_sub(self.snd_una)
    }

    pub(crate) fn note_cwnd(&mut self, now: SimTime) {
        if !self.trace {
            return;
        }
        let c = CcSample { time: now, cwnd: self.win.cwnd, state: self.cc.trace_state(&self.win) };
        let tr = &mut self.stats.cc_trace;
        if !tr.last().is_some_and(|l| l.cwnd == c.cwnd && l.state == c.state) {
            tr.push(c);
        }
        let s = CwndSample { time: now, cwnd: self.win.cwnd, ssthresh: self.win.ssthresh };
        let tr = &mut self.stats.cwnd_trace;
        if tr.last().is_some_and(|l| l.cwnd == s.cwnd && l.ssthresh == s.ssthresh) {
            return;
        }
        tr.push(s);
    }

    /// TSval for `now` (RFC 7323 section 5.4: a clock of `ts_tick`).
    pub fn ts_val(&self, now: SimTime) -> u32 {
        (now.as_nanos() / self.ts_tick) as u32
    }

    /// Process the acknowledgement part of an arriving segment.
    pub fn on_ack(&mut self, a: &AckSeg) -> AckVerdict {
        if a.ack > self.snd_max {
            return AckVerdict::TooNew;
        }
        if a.ack < self.snd_una {
            return AckVerdict::Old;
        }
        let old_wnd = self.snd_wnd;
        let (prior_pipe, lost0) = (self.sb.pipe(), self.sb.lost_marked());
        self.ack_rtt = None;
        self.update_window(a);
        // Only the SACK variant uses SACK information (a NewReno sender
        // ignores it even when the option was negotiated).
        let blocks: Vec<(u64, u64)> = if self.sack_ok && self.sack_recovery() && !a.sacks.is_empty() {
            a.sacks.iter().filter(|&&(l, r)| l < r && r <= self.snd_max && l >= a.ack).copied().collect()
        } else {
            Vec::new()
        };
        if let Some(r) = &mut self.rack {
            r.on_ack(&self.sb, a.ack, &blocks, a.now);
        }
        let newly_sacked = if blocks.is_empty() { 0 } else { self.sb.apply_sack(&blocks) };
        let cumulative = a.ack > self.snd_una;
        if cumulative {
            self.on_new_ack(a);
        }
        let outstanding = self.snd_max > self.snd_una;
        let dup = if self.sack_recovery() {
            // RFC 6675 section 2: an ACK is a duplicate if it SACKs data
            // not SACKed before (regardless of it also being cumulative).
            outstanding && newly_sacked > 0
        } else {
            // RFC 5681 section 2 (a)-(e).
            !cumulative && outstanding && a.pure && a.wnd == old_wnd
        };
        if dup {
            self.on_dupack(a.now);
        }
        self.same_ack = !cumulative && outstanding && a.pure;
        if self.state == LossState::Open {
            self.maybe_enter_recovery(a.now);
        } else if self.state == LossState::Recovery && self.same_ack {
            self.fine_grained_check_in_recovery(a.now);
        }
        if self.sack_recovery() && self.state == LossState::Recovery {
            self.sb.mark_lost_by_sack(self.dupthresh, self.smss);
        }
        if self.rack.is_some() {
            self.rack_after_ack(a.now);
        }
        if self.sb.rate.is_some() {
            self.rate_sample(a.now, prior_pipe, lost0);
        }
        let flight = self.snd_max - self.snd_una;
        self.stats.max_flight = self.stats.max_flight.max(flight);
        self.note_cwnd(a.now);
        debug_assert!(self.sb.check().is_ok(), "{:?}", self.sb.check());
        AckVerdict::Processed
    }

    /// RFC 9293 3.10.7.4: update the send window if the segment is not
    /// older than the one that last updated it (SND.WL1/SND.WL2).
    fn update_window(&mut self, a: &AckSeg) {
        if self.wl1 < a.seg_seq || (self.wl1 == a.seg_seq && self.wl2 <= a.ack) {
            self.snd_wnd = a.wnd;
            self.wl1 = a.seg_seq;
            self.wl2 = a.ack;
            self.max_snd_wnd = self.max_snd_wnd.max(a.wnd);
            if a.wnd > 0 {
                self.persist_deadline = None;
                self.persist_backoff = 0;
            }
        }
    }

    /// An ACK advancing `snd_una`.
    fn on_new_ack(&mut self, a: &AckSeg) {
        let now = a.now;
        let prior_pipe = self.in_flight();
        let acked_seq = a.ack - self.snd_una;
        let r = self.sb.ack_to(a.ack);
        self.snd_una = a.ack;
        let acked = acked_seq - r.fin as u64;
        self.stats.bytes_acked += acked;
        let sample = self.rtt_sample(a, r.any_retransmitted, r.newest_sent);
        if let Some(s) = sample {
            self.rtt.on_sample(s);
            // Karn's algorithm / RFC 6298 section 5: a valid sample ends
            // the backoff.
            self.rtt.reset_backoff();
            self.cc.on_rtt_sample(now, s);
            self.stats.rtt_samples += 1;
            self.stats.rtt_sum_ns += s.as_nanos();
            self.ack_rtt = Some(s);
        }
        self.rto_count = 0;
        self.lt_bytes = 0;
        let mut restart_timer = true;
        match self.state {
            LossState::Open => {
                self.dupacks = 0;
                self.grow(now, acked, sample, prior_pipe);
            }
            LossState::Loss => {
                self.dupacks = 0;
                self.grow(now, acked, sample, prior_pipe);
                if self.snd_una >= self.recover {
                    self.state = LossState::Open;
                }
            }
            LossState::Recovery => restart_timer = self.recovery_ack(now, acked),
        }
        self.fine_grained_check_after_rtx(now);
        // RFC 6298 (5.2): all data acknowledged -> stop the timer;
        // (5.3): new data acknowledged -> restart it.
        if self.snd_una == self.snd_max {
            self.rtx_deadline = None;
        } else if restart_timer {
            self.rtx_deadline = Some(now + self.rtt.rto());
        }
    }

    /// RTT sample from this ACK: the timestamp echo if timestamps are in
    /// use (RFC 7323 section 4), otherwise the send time of the newest
    /// newly acknowledged segment, unless any newly acknowledged segment was
    /// retransmitted (Karn's rule, RFC 6298 section 3, applied as Linux
    /// does to the whole ACK).
    fn rtt_sample(&self, a: &AckSeg, any_rtx: bool, newest: Option<SimTime>) -> Option<SimDur> {
        if self.ts_ok {
            let ecr = a.tsecr?;
            let ticks = self.ts_val(a.now).wrapping_sub(ecr) as i32;
            return (ticks >= 0).then(|| SimDur(ticks as u64 * self.ts_tick));
        }
        if any_rtx {
            return None;
        }
        newest.map(|t| a.now.saturating_since(t))
    }

    /// Close the ACK's delivery-rate sample and hand it to the controller,
    /// which sets cwnd (draft-cheng-iccrg-delivery-rate-estimation 3.3;
    /// Linux's `tcp_rate_gen` then `cong_control`).
    fn rate_sample(&mut self, now: SimTime, prior_in_flight: u64, lost0: u64) {
        let Some(r) = self.sb.rate.as_mut() else { return };
        if let Some(rtt) = self.ack_rtt {
            r.on_rtt(rtt);
        }
        let (prior_delivered, delivered, interval, is_app_limited, newly) = r.generate(now);
        let rs = RateSample {
            now,
            delivered_total: r.delivered,
            prior_delivered,
            delivered,
            interval,
            is_app_limited,
            rtt: self.ack_rtt,
            newly_delivered: newly,
            newly_lost: self.sb.lost_marked() - lost0,
            prior_in_flight,
            in_flight: self.sb.pipe(),
            phase: self.state,
        };
        if self.cc.on_rate_sample(&mut self.win, &rs) {
            let pipe = self.sb.pipe();
            if let Some(r) = self.sb.rate.as_mut() {
                r.mark_app_limited(pipe);
            }
        }
        self.win.cwnd = self.win.cwnd.max(self.smss as u64);
    }

    /// Window growth through the congestion controller (outside fast
    /// recovery: slow start or congestion avoidance, RFC 5681 3.1).
    fn grow(&mut self, now: SimTime, acked: u64, rtt: Option<SimDur>, prior_in_flight: u64) {
        let info = AckInfo { now, acked_bytes: acked, rtt, prior_in_flight, app_or_rwnd_limited: !self.cwnd_limited };
        self.cc.on_ack(&mut self.win, &info);
        self.win.cwnd = self.win.cwnd.max(self.smss as u64);
    }

    /// The next data (or FIN) segment to transmit now, if any. The caller
    /// wraps it into a header.
    pub fn next_segment(&mut self, now: SimTime) -> Option<TxData> {
        if self.paced {
            self.pace_wait = None;
            if now < self.pace_next && self.pacing_rate().is_some() {
                self.pace_wait = Some(self.pace_next);
                return None;
            }
        }
        if self.rack.as_ref().is_some_and(|r| r.probe_due) {
            if let Some(tx) = self.tail_loss_probe(now) {
                return Some(tx);
            }
        }
        if self.force_rtx {
            self.force_rtx = false;
            if self.sb.front().is_some_and(|s| !s.sacked) {
                return Some(self.retransmit(0, now));
            }
        }
        let cwnd = self.win.cwnd;
        let flight = self.in_flight();
        if self.state != LossState::Open {
            if let Some(i) = self.sb.first_lost_pending() {
                if flight + self.sb.get(i).len() <= cwnd {
                    return Some(self.retransmit(i, now));
                }
                self.cwnd_limited = true;
                return None;
            }
        }
        match self.new_data_size() {
            Ok(size) => {
                let allow = cwnd + self.limited_transmit_allowance();
                if flight + size <= allow {
                    return Some(self.send_new(now, size, flight));
                }
                self.cwnd_limited = true;
                return None;
            }
            Err(Blocked::Rwnd) => {
                self.cwnd_limited = false;
                self.arm_persist(now);
            }
            Err(Blocked::App) => {
                self.cwnd_limited = false;
                // draft-cheng-iccrg-delivery-rate-estimation 3.4: nothing
                // to send, cwnd not full, no loss to repair.
                if flight < cwnd && self.sb.lost_pending() == 0 {
                    let pipe = self.sb.pipe();
                    if let Some(r) = self.sb.rate.as_mut() {
                        r.mark_app_limited(pipe);
                    }
                }
            }
        }
        if self.state == LossState::Recovery && self.sack_recovery() {
            if let Some(i) = self.sb.rule3_candidate(self.high_rxt) {
                if flight + self.sb.get(i).len() <= cwnd {
                    return Some(self.retransmit(i, now));
                }
            }
        }
        self.next_fin(now)
    }

    /// RFC 3042 Limited Transmit: on the first and second duplicate ACK,
    /// one new segment each may be sent beyond cwnd.
    fn limited_transmit_allowance(&self) -> u64 {
        if self.limited_transmit && self.state == LossState::Open && self.dupacks > 0 && self.dupacks < self.dupthresh {
            self.dupacks.min(2) as u64 * self.smss as u64
        } else {
            0
        }
    }

    /// Size of the next new-data segment, or why none can be sent.
    fn new_data_size(&self) -> Result<u64, Blocked> {
        if self.fin_sent {
            return Err(Blocked::App);
        }
        let app = if self.infinite { u64::MAX } else { self.app_end - self.snd_max };
        if app == 0 {
            return Err(Blocked::App);
        }
        let usable = (self.snd_una + self.snd_wnd).saturating_sub(self.snd_max);
        let size = (self.smss as u64).min(app).min(usable);
        if size == 0 {
            return Err(Blocked::Rwnd);
        }
        let full = size == self.smss as u64;
        // Sender SWS avoidance (RFC 9293 3.8.6.2.1): send a partial segment
        // only if it empties the queue or is at least half the largest
        // window the peer ever offered.
        if !full && size < app && 2 * size < self.max_snd_wnd {
            return Err(Blocked::Rwnd);
        }
        // Nagle (RFC 9293 3.7.4): a sub-MSS segment waits while data is
        // unacknowledged.
        if self.nagle && !full && self.snd_max > self.snd_una {
            return Err(Blocked::App);
        }
        Ok(size)
    }

    /// The size of a TLP probe of new data (RFC 8985 7.3: if the
    /// receive window and the application allow; cwnd is not checked).
    pub(crate) fn new_data_size_for_probe(&self) -> Option<u64> {
        self.new_data_size().ok()
    }
    pub(crate) fn send_new_probe(&mut self, now: SimTime, size: u64, flight: u64) -> TxData {
        self.send_new(now, size, flight)
    }
    pub(crate) fn retransmit_probe(&mut self, i: usize, now: SimTime) -> TxData {
        self.retransmit(i, now)
    }

    fn send_new(&mut self, now: SimTime, size: u64, flight: u64) -> TxData {
        if self.idle_restart && self.snd_max == self.snd_una && self.sb.rate.is_none() {
            if let Some(last) = self.last_data_sent {
                // RFC 5681 4.1: after an idle period longer than the RTO,
                // restart from RW = min(IW, cwnd).
                if now.saturating_since(last) > self.rtt.rto() && self.win.cwnd > self.iw {
                    self.win.cwnd = self.iw;
                    self.cc.on_event(now, &mut self.win, crate::cc::CcEvent::IdleRestart);
                    self.note_cwnd(now);
                }
            }
        }
        if flight + size > self.win.cwnd {
            self.lt_bytes += size;
        }
        let start = self.snd_max;
        self.snd_max += size;
        self.push_stamped(SentSeg::new(start, self.snd_max, false, now), now);
        self.on_data_sent(now, size);
        TxData { start, payload: size as u32, fin: false, rtx: false }
    }

    fn next_fin(&mut self, now: SimTime) -> Option<TxData> {
        if !self.fin_queued || self.fin_sent || self.snd_max != self.app_end || self.infinite {
            return None;
        }
        self.fin_sent = true;
        let start = self.snd_max;
        self.snd_max += 1;
        self.push_stamped(SentSeg::new(start, self.snd_max, true, now), now);
        self.on_data_sent(now, 0);
        Some(TxData { start, payload: 0, fin: true, rtx: false })
    }

    /// Append a first transmission, stamped for delivery-rate sampling
    /// (draft-cheng-iccrg-delivery-rate-estimation 3.2: an empty pipe
    /// restarts the intervals).
    fn push_stamped(&mut self, mut seg: SentSeg, now: SimTime) {
        let idle = self.sb.is_empty();
        if let Some(r) = self.sb.rate.as_mut() {
            seg.tx = r.on_send(now, idle, false);
        }
        self.sb.push(seg);
    }

    fn on_data_sent(&mut self, now: SimTime, payload: u64) {
        if self.paced {
            if let Some(rate) = self.pacing_rate() {
                let gap = SimDur((payload.max(1) as f64 * 1e9 / rate) as u64);
                self.pace_next = self.pace_next.max(now) + gap;
            }
        }
        if payload > 0 {
            self.stats.data_segments_sent += 1;
            self.stats.bytes_sent += payload;
        }
        self.last_data_sent = Some(now);
        // RFC 6298 (5.1): start the timer if it is not running.
        if self.rtx_deadline.is_none() {
            self.rtx_deadline = Some(now + self.rtt.rto());
        }
        self.rack_arm_pto(now);
        self.persist_deadline = None;
        self.stats.max_flight = self.stats.max_flight.max(self.snd_max - self.snd_una);
    }

    fn retransmit(&mut self, i: usize, now: SimTime) -> TxData {
        self.sb.on_retransmit(i, now);
        let counted = self.sb.get(i).tx.counted;
        if let Some(r) = self.sb.rate.as_mut() {
            let tx = r.on_send(now, false, counted);
            self.sb.stamp(i, tx);
        }
        let s = self.sb.get(i).clone();
        self.high_rxt = self.high_rxt.max(s.end);
        self.stats.segments_retransmitted += 1;
        self.stats.bytes_retransmitted += s.payload();
        self.on_data_sent(now, s.payload());
        TxData { start: s.start, payload: s.payload() as u32, fin: s.fin, rtx: true }
    }

    /// Blocked by the peer's window with nothing outstanding: arm the
    /// persist timer (RFC 9293 3.8.6.1 for a zero window; also for a window
    /// too small to use under sender SWS avoidance, the override timeout of
    /// RFC 1122 4.2.3.4), backing off like the RTO. Without it a lost
    /// window update would stall the connection forever.
    fn arm_persist(&mut self, now: SimTime) {
        if self.sb.is_empty() && self.persist_deadline.is_none() {
            let d = SimDur(self.rtt.rto().as_nanos().saturating_mul(1 << self.persist_backoff.min(20)));
            self.persist_deadline = Some(now + d.min(SimDur::from_secs(60)));
        }
    }

    /// The persist timer fired: the caller sends a probe.
    pub fn on_persist_timeout(&mut self) {
        self.persist_deadline = None;
        self.persist_backoff += 1;
        self.stats.window_probes += 1;
    }
}
