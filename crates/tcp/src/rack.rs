//! RACK-TLP loss detection (RFC 8985), an option of the SACK variant
//! (`tcp.rack_tlp`).
//!
//! - **RACK** (RFC 8985 section 6) marks a segment lost by time: once a
//!   segment sent later has been delivered (cumulatively ACKed or SACKed),
//!   an earlier-sent one still outstanding RACK.rtt + RACK.reo_wnd after
//!   its own transmission is lost. This also finds a lost
//!   *retransmission*, which RFC 6675's duplicate-ACK rule cannot: only
//!   the RTO recovers that without RACK.
//! - **TLP** (section 7) sends a probe about two smoothed RTTs after the
//!   last transmission when nothing comes back: one new segment if there
//!   is one, else the last segment again, so that a loss at the tail of a
//!   flight is reported by SACK instead of waiting for the RTO.
//!
//! Simplifications, each beside its code: segments are scanned in
//! sequence order (the RFC keeps a list in transmission order; the result
//! is the same, the cost is the window per ACK); DSACK is not implemented,
//! so the reordering window never grows past min_RTT/4 (its multiplier
//! stays one) and a TLP retransmission whose ACK arrives is always taken to have
//! repaired a loss (section 7.4.1 without DSACK: the conservative reading).
//!
//! Invariants: RACK marks only segments that are neither SACKed nor
//! already pending retransmission; the reordering timer runs only while
//! some outstanding segment was sent before RACK.xmit_ts and is not yet
//! deemed lost; at most one TLP probe is outstanding (TLP.end_seq).
use crate::scoreboard::Scoreboard;
use wifitcp_core::{SimDur, SimTime};

/// RFC 8985 7.2: TLP.max_ack_delay when the peer's delayed-ACK timer is
/// unknown (200 ms, the RFC's recommended value and Linux's
/// TCP_DELACK_MAX).
pub const TLP_MAX_ACK_DELAY: SimDur = SimDur(200_000_000);

#[derive(Clone, Debug, Default)]
pub struct Rack {
    /// RACK.xmit_ts / RACK.end_seq: the latest transmission time (and its
    /// end) among the segments delivered so far.
    xmit_ts: Option<SimTime>,
    end_seq: u64,
    /// RACK.rtt: the RTT of that delivery.
    rtt: SimDur,
    /// RACK.min_RTT over RACK's own samples.
    min_rtt: Option<SimDur>,
    /// RACK.fack: the highest end of a delivered segment.
    fack: u64,
    /// RACK.reordering_seen.
    reordering_seen: bool,
    /// The reordering timer (section 6.3).
    pub(crate) reo_deadline: Option<SimTime>,
    /// The probe timeout (section 7.2).
    pub(crate) pto_deadline: Option<SimTime>,
    /// TLP.end_seq of the outstanding probe and whether it was a
    /// retransmission (TLP.is_retrans).
    pub(crate) tlp_end_seq: Option<u64>,
    pub(crate) tlp_is_retrans: bool,
    /// The probe is due: the next `next_segment` sends it.
    pub(crate) probe_due: bool,
    /// Counters for the result.
    pub(crate) marked_lost: u64,
    pub(crate) probes: u64,
}

impl Rack {
    /// Section 6.2 step 2 (RACK.rtt, xmit_ts, end_seq) and step 3
    /// (reordering), for an ACK that delivers everything below `ack` and
    /// the whole segments inside `blocks`, before the scoreboard applies
    /// it.
    pub(crate) fn on_ack(&mut self, sb: &Scoreboard, ack: u64, blocks: &[(u64, u64)], now: SimTime) {
        let mut consider = |s: &crate::scoreboard::SentSeg| {
            if s.sacked {
                return;
            }
            let rtt = now.saturating_since(s.last_sent);
            // Step 2: a retransmitted segment acknowledged within min_RTT
            // of its retransmission was probably delivered by the original
            // (the ACK is too early for the retransmission).
            if s.ever_rtx && self.min_rtt.is_some_and(|m| rtt < m) {
                return;
            }
            if !s.ever_rtx && s.end < self.fack {
                self.reordering_seen = true;
            }
            self.fack = self.fack.max(s.end);
            self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
            let newer = match self.xmit_ts {
                None => true,
                Some(t) => s.last_sent > t || (s.last_sent == t && s.end > self.end_seq),
            };
            if newer {
                self.xmit_ts = Some(s.last_sent);
                self.end_seq = s.end;
                self.rtt = rtt;
            }
        };
        for i in 0..sb.len() {
            let s = sb.get(i);
            if s.end > ack {
                break;
            }
            consider(s);
        }
        for &(l, r) in blocks {
            let Some(mut i) = sb.find(l) else { continue };
            while i < sb.len() && sb.get(i).end <= r {
                if sb.get(i).start >= l {
                    consider(sb.get(i));
                }
                i += 1;
            }
        }
    }

    /// Section 6.2 step 4: RACK.reo_wnd. Without reordering seen it is 0
    /// in recovery or once DupThresh segments are SACKed (the RFC's
    /// compatibility with RFC 6675); otherwise min_RTT / 4, at most SRTT.
    fn reo_wnd(&self, in_recovery: bool, sacked_segs: u64, dupthresh: u32, srtt: Option<SimDur>) -> SimDur {
        if !self.reordering_seen && (in_recovery || sacked_segs >= dupthresh as u64) {
            return SimDur::ZERO;
        }
        let w = self.min_rtt.map_or(SimDur::ZERO, |m| SimDur(m.as_nanos() / 4));
        srtt.map_or(w, |s| w.min(s))
    }

    /// Section 6.2 step 5: mark every outstanding segment sent before
    /// RACK.xmit_ts and older than RACK.rtt + reo_wnd lost; arm the
    /// reordering timer for the youngest of the others. Returns whether a
    /// segment was marked.
    pub(crate) fn detect_loss(
        &mut self,
        sb: &mut Scoreboard,
        now: SimTime,
        in_recovery: bool,
        dupthresh: u32,
        smss: u32,
        srtt: Option<SimDur>,
    ) -> bool {
        self.reo_deadline = None;
        let Some(xmit_ts) = self.xmit_ts else { return false };
        let sacked_segs = sb.sacked_bytes() / smss.max(1) as u64;
        let reo = self.reo_wnd(in_recovery, sacked_segs, dupthresh, srtt);
        let mut marked = false;
        let mut wait: Option<SimTime> = None;
        for i in 0..sb.len() {
            let s = sb.get(i);
            // Not a candidate: delivered, or already waiting to be resent.
            if s.sacked || (s.lost && !s.retrans) {
                continue;
            }
            let sent_before = s.last_sent < xmit_ts || (s.last_sent == xmit_ts && s.end < self.end_seq);
            if !sent_before {
                continue;
            }
            let deadline = s.last_sent + self.rtt + reo;
            if deadline <= now {
                sb.mark_lost(i);
                self.marked_lost += 1;
                marked = true;
            } else {
                wait = Some(wait.map_or(deadline, |w| w.max(deadline)));
            }
        }
        self.reo_deadline = wait;
        marked
    }

    /// Section 7.2: arm the probe timeout, PTO = 2 SRTT (+ max ACK delay
    /// with one segment in flight; 1 s before any RTT sample), no later
    /// than the retransmission timer.
    pub(crate) fn arm_pto(&mut self, now: SimTime, srtt: Option<SimDur>, one_segment: bool, rto_at: Option<SimTime>) {
        let mut pto = match srtt {
            Some(s) => SimDur(2 * s.as_nanos()),
            None => SimDur::from_secs(1),
        };
        if one_segment {
            pto += TLP_MAX_ACK_DELAY;
        }
        let mut at = now + pto;
        if let Some(r) = rto_at {
            at = at.min(r);
        }
        self.pto_deadline = Some(at);
    }

    /// Forget the timers and the probe (an RTO took over, or all data is
    /// acknowledged).
    pub(crate) fn reset_timers(&mut self) {
        self.reo_deadline = None;
        self.pto_deadline = None;
        self.probe_due = false;
    }

    pub(crate) fn deadline(&self) -> Option<SimTime> {
        SimTime::earliest(self.reo_deadline, self.pto_deadline)
    }
}

use crate::sender::{LossState, Sender, TxData};

impl Sender {
    /// After an ACK was processed: end a TLP episode the ACK covers
    /// (section 7.4), detect losses by time (6.2 step 5), enter recovery
    /// when a segment is deemed lost, and re-arm the probe timeout.
    pub(crate) fn rack_after_ack(&mut self, now: SimTime) {
        let (dupthresh, smss, srtt) = (self.dupthresh, self.smss, self.rtt.srtt());
        let in_recovery = self.state != LossState::Open;
        let Some(r) = self.rack.as_mut() else { return };
        let mut repaired = false;
        if let Some(end) = r.tlp_end_seq {
            if self.snd_una >= end {
                // 7.4.1 without DSACK: a retransmitted probe that is
                // acknowledged is taken to have repaired a loss.
                repaired = r.tlp_is_retrans && !in_recovery;
                r.tlp_end_seq = None;
            }
        }
        let marked = r.detect_loss(&mut self.sb, now, in_recovery, dupthresh, smss, srtt);
        self.stats.rack_marked_lost = r.marked_lost;
        if repaired {
            self.tlp_congestion_response(now);
        }
        if marked && self.state == LossState::Open && self.snd_una >= self.recover {
            self.enter_recovery_from(now, false);
        }
        let r = self.rack.as_mut().expect("checked above");
        if self.snd_una == self.snd_max {
            r.reset_timers();
        } else if self.state == LossState::Open && r.tlp_end_seq.is_none() {
            // 7.2: an ACK arrived; schedule the PTO again.
            let one = self.snd_max - self.snd_una <= self.smss as u64;
            r.arm_pto(now, srtt, one, self.rtx_deadline);
        } else {
            r.pto_deadline = None;
        }
    }

    /// 7.2: after a transmission in the open state with no probe
    /// outstanding, (re)schedule the PTO.
    pub(crate) fn rack_arm_pto(&mut self, now: SimTime) {
        let srtt = self.rtt.srtt();
        let one = self.snd_max - self.snd_una <= self.smss as u64;
        let (open, rto_at) = (self.state == LossState::Open, self.rtx_deadline);
        if let Some(r) = self.rack.as_mut() {
            if open && r.tlp_end_seq.is_none() {
                r.arm_pto(now, srtt, one, rto_at);
            }
        }
    }

    /// The reordering timer or the PTO fired.
    pub(crate) fn on_rack_timer(&mut self, now: SimTime) {
        let (dupthresh, smss, srtt) = (self.dupthresh, self.smss, self.rtt.srtt());
        let in_recovery = self.state != LossState::Open;
        let outstanding = self.snd_max > self.snd_una;
        let Some(r) = self.rack.as_mut() else { return };
        if r.reo_deadline.is_some_and(|d| d <= now) {
            let marked = r.detect_loss(&mut self.sb, now, in_recovery, dupthresh, smss, srtt);
            self.stats.rack_marked_lost = r.marked_lost;
            if marked && self.state == LossState::Open && self.snd_una >= self.recover {
                self.enter_recovery_from(now, false);
            }
        }
        let open = self.state == LossState::Open;
        let r = self.rack.as_mut().expect("checked above");
        if r.pto_deadline.is_some_and(|d| d <= now) {
            r.pto_deadline = None;
            r.probe_due = open && outstanding && r.tlp_end_seq.is_none();
        }
    }

    /// 7.3: send the probe: one new segment if the application and the
    /// receive window allow (cwnd is not checked), otherwise the last
    /// segment again; then restart the retransmission timer.
    pub(crate) fn tail_loss_probe(&mut self, now: SimTime) -> Option<TxData> {
        let r = self.rack.as_mut()?;
        r.probe_due = false;
        if self.state != LossState::Open || self.sb.is_empty() {
            return None;
        }
        // (marks the episode open so that the transmission below does not
        // schedule another PTO; the real end is set after it)
        r.tlp_end_seq = Some(u64::MAX);
        let tx = match self.new_data_size_for_probe() {
            Some(size) => {
                let flight = self.in_flight();
                (self.send_new_probe(now, size, flight), false)
            }
            None => {
                let i = self.sb.len() - 1;
                if self.sb.get(i).sacked {
                    self.rack.as_mut().expect("present").tlp_end_seq = None;
                    return None;
                }
                (self.retransmit_probe(i, now), true)
            }
        };
        let r = self.rack.as_mut().expect("present");
        r.tlp_end_seq = Some(self.snd_max);
        r.tlp_is_retrans = tx.1;
        r.probes += 1;
        self.stats.tlp_probes = r.probes;
        self.rtx_deadline = Some(now + self.rtt.rto());
        Some(tx.0)
    }
}
