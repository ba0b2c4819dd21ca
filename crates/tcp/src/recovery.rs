//! Loss detection and recovery: fast retransmit / fast recovery for Tahoe,
//! Reno (RFC 5681 3.2), NewReno (RFC 6582) and SACK (RFC 6675), and the
//! retransmission timeout (RFC 6298 section 5, RFC 5681 3.1).
//!
//! The congestion controller only chooses ssthresh ([`crate::cc::CongestionControl::ssthresh_after_loss`]);
//! cwnd during and after recovery is set here, per variant:
//!
//! | event | Tahoe | Reno | NewReno | SACK |
//! |---|---|---|---|---|
//! | DupThresh dup ACKs | cwnd = 1 SMSS, go-back-N from `snd_una` | cwnd = ssthresh + 3 SMSS | same as Reno, `recover = HighData` | cwnd = ssthresh, `RecoveryPoint = HighData` |
//! | further dup ACK | ignored | cwnd += SMSS | cwnd += SMSS | scoreboard only |
//! | partial ACK | (slow start) | exit: cwnd = ssthresh | retransmit next hole, deflate | scoreboard drives NextSeg |
//! | full ACK | (slow start) | exit: cwnd = ssthresh | exit: cwnd = ssthresh | exit |
//! | RTO | cwnd = 1 SMSS (loss window), go-back-N, backoff | same | same | same, SACK info cleared |
//!
//! A controller that reads delivery-rate samples (BBR) sets cwnd itself on
//! every ACK: the cwnd changes of the table's fast-recovery rows are not
//! applied for it (the RTO's and Tahoe's loss window are).
//!
//! Invariants: a loss episode is entered at most once per window of data:
//! after an RTO or a Tahoe/NewReno/SACK recovery, duplicate ACKs whose
//! cumulative point is below `recover` do not start another fast
//! retransmit (RFC 6582 3.2 step 1 and section 4; RFC 6675 section 5). Classic
//! Reno is exempt from this check after its own fast recoveries (RFC 5681
//! keeps no `recover`), which is why several losses in one window cost it
//! several halvings or a timeout.
use crate::cc::{CcEvent, LossKind};
use crate::config::RecoveryVariant;
use crate::sender::{LossState, Sender};
use crate::stats::LossEvent;
use wifitcp_core::SimTime;

/// Result of a retransmission-timer expiry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoOutcome {
    /// Nothing was outstanding (stale timer).
    Idle,
    /// Go-back-N retransmission started.
    Retransmit,
    /// Too many consecutive timeouts: abort the connection.
    Abort,
}

impl Sender {
    /// A duplicate ACK (per the variant's definition) arrived.
    pub(crate) fn on_dupack(&mut self, _now: SimTime) {
        self.dupacks += 1;
        self.stats.dupacks_received += 1;
        if self.state == LossState::Recovery && matches!(self.variant, RecoveryVariant::Reno | RecoveryVariant::NewReno)
        {
            // RFC 5681 3.2 step 4 / RFC 6582 3.2 step 2: each further
            // duplicate ACK signals a segment that left the network.
            self.recovery_cwnd(self.win.cwnd + self.smss as u64);
        }
    }

    /// cwnd as the loss recovery sets it, unless the controller owns cwnd
    /// on every ACK ([`crate::cc::CongestionControl::reads_rate_samples`],
    /// BBR): Linux's fast recovery leaves cwnd to a `cong_control`
    /// controller (no PRR reduction, no cwnd = ssthresh at the end). An RTO
    /// (and Tahoe's go-back-N) still sets the loss window for it, as Linux's
    /// `tcp_enter_loss` does.
    fn recovery_cwnd(&mut self, cwnd: u64) {
        if self.sb.rate.is_none() {
            self.win.cwnd = cwnd;
        }
    }

    /// Enter loss recovery if the duplicate-ACK threshold is reached, or,
    /// with SACK, if the first unacknowledged segment is deemed lost
    /// (RFC 6675 section 5, IsLost(HighACK + 1)).
    pub(crate) fn maybe_enter_recovery(&mut self, now: SimTime) {
        if self.sb.is_empty() {
            return;
        }
        // B&P 3.1 (Vegas's own loss response): on a duplicate ACK (same
        // acknowledgement number; B&P and ns-2 do not compare windows), a
        // first segment older than the fine-grained timeout is lost.
        let by_fine_timer = self.same_ack && self.cc.fine_grained_loss() && self.first_seg_expired(now);
        let by_dupacks = self.dupacks >= self.dupthresh || by_fine_timer;
        let by_sack = self.sack_recovery_variant()
            && self.sb.sacked_bytes() > 0
            && self.sb.is_lost(self.snd_una, self.dupthresh, self.smss);
        if !(by_dupacks || by_sack) {
            return;
        }
        // RFC 6582 3.2 step 1 / RFC 6675 section 5 (4): only if the
        // cumulative ACK covers more than `recover` (the highest offset
        // sent when the previous episode or timeout started).
        if self.snd_una < self.recover {
            return;
        }
        self.enter_recovery(now);
    }

    /// B&P's fine-grained timeout for the first unacknowledged segment:
    /// `SRTT + 4 RTTVAR` without RFC 6298's floor (the point of B&P's
    /// timer is a clock finer than the coarse RTO), doubled for a segment
    /// already retransmitted; `None` before the first RTT sample.
    fn first_seg_expired(&self, now: SimTime) -> bool {
        let (Some(f), Some(srtt)) = (self.sb.front(), self.rtt.srtt()) else {
            return false;
        };
        if f.sacked {
            return false;
        }
        let mut t = srtt + self.rtt.rttvar() * 4;
        if f.tx_count > 1 {
            t = t * 2;
        }
        now.saturating_since(f.last_sent) >= t
    }

    /// B&P 3.1 second check: on the first and second new ACK after a
    /// fine-grained-loss retransmission, resend the next unacknowledged
    /// segment if it is older than the fine-grained timeout (no window
    /// change).
    ///
    /// The resend stands for the fast retransmit of that segment, so the
    /// duplicate ACKs that follow (for segments sent before it) are fast
    /// recovery's further duplicates: each inflates cwnd by one SMSS (RFC
    /// 5681 3.2 step 4) and none starts another fast retransmit of the same
    /// segment; the next new ACK deflates and ends it (step 6). B&P's
    /// timer replaces the wait for three duplicates, it adds no second
    /// trigger. Without this, Reno's recovery (which ended on this very
    /// ACK) counted three of those duplicates afresh and resent the segment
    /// again, usually while its resend was still in flight. ns-2.35's
    /// `Agent/TCP/Vegas` likewise sets its duplicate count to the threshold
    /// after such a resend. Reno and NewReno only: SACK counts duplicates
    /// by the scoreboard, and Tahoe has no fast recovery.
    pub(crate) fn fine_grained_check_after_rtx(&mut self, now: SimTime) {
        if self.fg_worried == 0 {
            return;
        }
        self.fg_worried -= 1;
        if self.sb.is_empty() || !self.first_seg_expired(now) {
            self.fg_worried = 0;
            return;
        }
        self.fine_grained_resend();
        if self.state == LossState::Open && matches!(self.variant, RecoveryVariant::Reno | RecoveryVariant::NewReno) {
            self.state = LossState::Recovery;
            self.dupacks = self.dupthresh;
        }
    }

    /// B&P 3.1's check on every duplicate ACK, during fast recovery too:
    /// a first unacknowledged segment older than the fine-grained timeout
    /// (doubled once retransmitted) is resent at once, so a lost fast
    /// retransmission waits for no coarse timeout (ns-2.35's
    /// `Agent/TCP/Vegas` likewise). No window change: the segment was sent
    /// after the last cut (rule 3 of `crate::cc::vegas`).
    pub(crate) fn fine_grained_check_in_recovery(&mut self, now: SimTime) {
        if !self.cc.fine_grained_loss() || self.sb.is_empty() || !self.first_seg_expired(now) {
            return;
        }
        self.fine_grained_resend();
    }

    /// Resend the first unacknowledged segment now, found lost by the
    /// fine-grained timer (B&P 3.1).
    fn fine_grained_resend(&mut self) {
        if !self.sb.get(0).lost {
            self.sb.mark_lost(0);
        }
        self.force_rtx = true;
        self.stats.fine_grained_retransmits += 1;
    }

    fn sack_recovery_variant(&self) -> bool {
        self.variant == RecoveryVariant::Sack
    }

    /// Fast retransmit (RFC 5681 3.2 steps 2-3; RFC 6582 3.2 step 1;
    /// RFC 6675 section 5 step (4)); Tahoe's reaction.
    fn enter_recovery(&mut self, now: SimTime) {
        self.enter_recovery_from(now, true)
    }

    /// Enter recovery; `first_lost`: the first unacknowledged segment is
    /// the one deemed lost (duplicate ACKs); RACK marks its own.
    pub(crate) fn enter_recovery_from(&mut self, now: SimTime, first_lost: bool) {
        // RFC 5681 3.2 step 2: ssthresh from FlightSize, excluding data
        // sent by Limited Transmit (RFC 3042 / RFC 5681 3.2 note).
        let flight = (self.snd_max - self.snd_una).saturating_sub(self.lt_bytes);
        if let Some(f) = self.sb.front() {
            self.cc.on_loss_segment(f.last_sent, f.tx_count > 1);
        }
        if self.cc.fine_grained_loss() {
            self.fg_worried = 2;
        }
        // RFC 3168 6.1.2: the window is reduced only once for a series of
        // dropped and/or CE-marked packets of one window of data. A loss of
        // data sent before an ECN reduction (below its `ecn.high`) is of the
        // window that reduction answered: ssthresh stays as it set it.
        if !(self.ecn.reacted && self.snd_una < self.ecn.high) {
            let ssthresh = self.cc.ssthresh_after_loss(now, &self.win, flight, LossKind::FastRetransmit);
            // The controller decides (RFC 5681 eq. (4) floors at 2 SMSS); only a
            // one-segment sanity floor is applied here.
            self.win.ssthresh = ssthresh.max(self.smss as u64);
        }
        self.stats.fast_retransmits += 1;
        self.sb.new_episode();
        if first_lost {
            self.sb.mark_lost(0);
            self.force_rtx = true;
        }
        self.high_rxt = self.snd_una;
        self.partial_acks = 0;
        let smss = self.smss as u64;
        match self.variant {
            RecoveryVariant::Tahoe => {
                // Slow start from one segment, resending everything from
                // snd_una (Fall & Floyd 1996; 4.3BSD-Tahoe / ns-2 Tahoe).
                self.win.cwnd = smss;
                self.sb.mark_all_lost(false);
                self.state = LossState::Loss;
                self.recover = self.snd_max;
            }
            RecoveryVariant::Reno => {
                // RFC 5681 3.2 step 3.
                self.recovery_cwnd(self.win.ssthresh + self.dupthresh as u64 * smss);
                self.state = LossState::Recovery;
            }
            RecoveryVariant::NewReno => {
                // RFC 6582 3.2 steps 1-2.
                self.recovery_cwnd(self.win.ssthresh + self.dupthresh as u64 * smss);
                self.recover = self.snd_max;
                self.state = LossState::Recovery;
            }
            RecoveryVariant::Sack => {
                // RFC 6675 section 5 step (4.2): cwnd = ssthresh; (4.1)
                // RecoveryPoint = HighData.
                self.recovery_cwnd(self.win.ssthresh);
                self.recover = self.snd_max;
                self.state = LossState::Recovery;
                self.sb.mark_lost_by_sack(self.dupthresh, self.smss);
            }
        }
        self.log_loss(now, LossKind::FastRetransmit, flight);
    }

    /// A cumulative ACK during fast recovery. Returns whether the
    /// retransmission timer is to be restarted: RFC 6298 (5.3), except that
    /// NewReno restarts it only for the first partial ACK of an episode
    /// (RFC 6582 3.2 step 3, the "Impatient" behaviour: with many holes the
    /// RTO ends a slow one-hole-per-RTT recovery).
    pub(crate) fn recovery_ack(&mut self, now: SimTime, acked: u64) -> bool {
        let full = self.snd_una >= self.recover;
        match self.variant {
            RecoveryVariant::Reno => {
                // RFC 5681 3.2 step 6: the first ACK of new data deflates
                // the window and ends fast recovery, even a partial ACK.
                self.recovery_cwnd(self.win.ssthresh);
                self.exit_recovery(now);
                true
            }
            RecoveryVariant::NewReno if full => {
                // RFC 6582 3.2 step 3, full ACK, option (2): cwnd = ssthresh.
                self.recovery_cwnd(self.win.ssthresh);
                self.exit_recovery(now);
                true
            }
            RecoveryVariant::NewReno => {
                // RFC 6582 3.2 step 3, partial ACK: retransmit the first
                // unacknowledged segment, deflate by the data acknowledged,
                // add back one SMSS if at least one SMSS was acknowledged.
                let smss = self.smss as u64;
                if !self.sb.is_empty() {
                    self.sb.mark_lost(0);
                    self.force_rtx = true;
                    self.stats.partial_ack_retransmits += 1;
                }
                let mut cwnd = self.win.cwnd.saturating_sub(acked);
                if acked >= smss {
                    cwnd += smss;
                }
                self.recovery_cwnd(cwnd.max(smss));
                self.partial_acks += 1;
                self.partial_acks == 1
            }
            RecoveryVariant::Sack => {
                // RFC 6675: DupAcks reset on a cumulative ACK; the episode
                // ends once RecoveryPoint is acknowledged.
                self.dupacks = 0;
                if full {
                    self.exit_recovery(now);
                }
                true
            }
            RecoveryVariant::Tahoe => unreachable!("Tahoe never enters fast recovery"),
        }
    }

    fn exit_recovery(&mut self, now: SimTime) {
        self.state = LossState::Open;
        self.dupacks = 0;
        self.cc.on_event(now, &mut self.win, CcEvent::RecoveryExit);
        self.win.cwnd = self.win.cwnd.max(self.smss as u64);
    }

    /// The retransmission timer expired (RFC 6298 5.4-5.6, RFC 5681 3.1).
    pub fn on_rto(&mut self, now: SimTime) -> RtoOutcome {
        if self.sb.is_empty() {
            self.rtx_deadline = None;
            return RtoOutcome::Idle;
        }
        self.rto_count += 1;
        if self.rto_count > self.max_retransmissions {
            self.rtx_deadline = None;
            return RtoOutcome::Abort;
        }
        self.stats.timeouts += 1;
        // FlightSize of RFC 5681 eq. (4): the data in the network. Outside
        // recovery that is `snd_max - snd_una`; during SACK recovery (or
        // after an earlier RTO) it is RFC 6675's pipe, taken before the
        // scoreboard is cleared. `snd_max - snd_una` there would count the
        // segments SACKed or deemed lost, which have left the network, and
        // the new data the pipe rule sent beyond them: an RTO during SACK
        // recovery would then set ssthresh far above the window that caused
        // the loss (a CUBIC download with a 1000-packet receive window got
        // ssthresh = 0.7 x 998 segments after a 289-segment window and
        // collapsed into repeated timeouts). ns-3 takes BytesInFlight (its
        // pipe) before the timeout marks everything lost, the same reading.
        // During Reno/NewReno fast recovery the same holds without SACK:
        // each duplicate ACK reported one segment that left the network and
        // inflated cwnd by one SMSS (RFC 5681 3.2 step 4, RFC 6582 3.2 step
        // 2), and partial ACKs took those reports back out (deflation), so
        // cwnd - ssthresh is the data reported received beyond the holes and
        // still counted in `snd_max - snd_una`. Subtracting it leaves the
        // data in the network. Without it, a lost fast retransmission (no
        // partial ACK until the RTO, new data sent on every duplicate ACK)
        // put the whole receive window into `snd_max - snd_una` and the RTO
        // set ssthresh to half of it (500 segments where the fast retransmit
        // had set 42, in a download with a 1000-packet receive window). RFC
        // 5681 eq. (4) is an upper bound ("no more than"); ns-3 takes its
        // Reno-SACK pipe here, Linux keeps the recovery's ssthresh.
        // A controller that reads the window (Compound's loss and delay
        // windows) sees the same: the inflation is no window the connection
        // had, so it is given cwnd without it.
        let mut win = self.win;
        let flight = match self.state {
            LossState::Recovery if !self.sack_recovery_variant() => {
                let in_network =
                    (self.snd_max - self.snd_una).saturating_sub(self.win.cwnd.saturating_sub(self.win.ssthresh));
                win.cwnd = win.cwnd.min(in_network.max(self.smss as u64));
                in_network
            }
            _ => self.in_flight(),
        };
        // RFC 5681 3.1: ssthresh is set by equation (4) when a segment is
        // first retransmitted by the timer; it is held constant on further
        // timeouts of the same segment.
        if self.rto_count == 1 {
            let ss = self.cc.ssthresh_after_loss(now, &win, flight, LossKind::Timeout);
            self.win.ssthresh = ss.max(self.smss as u64);
        }
        // RFC 5681 3.1: cwnd = loss window = 1 full-sized segment.
        self.win.cwnd = self.smss as u64;
        // RFC 6298 (5.5): back off the timer.
        self.rtt.back_off();
        // Go-back-N from snd_una; SACK information is discarded (RFC 2018
        // section 8; RFC 6675 section 5.1 keeps RFC 2018's rule).
        self.sb.mark_all_lost(true);
        self.state = LossState::Loss;
        self.recover = self.snd_max;
        self.high_rxt = self.snd_una;
        self.dupacks = 0;
        self.lt_bytes = 0;
        // RFC 6298 (5.4): retransmit the earliest unacknowledged segment;
        // (5.6): restart the timer with the backed-off RTO.
        self.force_rtx = true;
        self.rtx_deadline = Some(now + self.rtt.rto());
        if let Some(r) = &mut self.rack {
            r.reset_timers();
            r.tlp_end_seq = None;
        }
        self.log_loss(now, LossKind::Timeout, flight);
        RtoOutcome::Retransmit
    }

    /// RFC 8985 7.4.2: a probe repaired a loss at the tail: the
    /// congestion response of a fast recovery, without the recovery.
    pub(crate) fn tlp_congestion_response(&mut self, now: SimTime) {
        let flight = self.snd_max - self.snd_una;
        let ss = self.cc.ssthresh_after_loss(now, &self.win, flight, LossKind::FastRetransmit);
        self.win.ssthresh = ss.max(self.smss as u64);
        self.recovery_cwnd(self.win.ssthresh);
        self.cc.on_event(now, &mut self.win, CcEvent::RecoveryExit);
        self.win.cwnd = self.win.cwnd.max(self.smss as u64);
        self.log_loss(now, LossKind::FastRetransmit, flight);
    }

    fn log_loss(&mut self, now: SimTime, kind: LossKind, flight: u64) {
        self.note_cwnd(now);
        if self.trace {
            let ev = LossEvent { time: now, kind, flight, ssthresh: self.win.ssthresh, cwnd_after: self.win.cwnd };
            self.stats.loss_events.push(ev);
        }
    }
}
