//! Explicit Congestion Notification for one connection: negotiation, the
//! receiver's echo and the sender's reaction.
//!
//! - Negotiation (RFC 3168 section 6.1.1): an ECN-setup SYN carries ECE and
//!   CWR; an ECN-setup SYN-ACK carries ECE and not CWR. ECN is in use when
//!   both were exchanged; SYN, SYN-ACK, pure ACKs, window probes and
//!   retransmissions are sent Not-ECT (6.1.1, 6.1.4, 6.1.5); new data is
//!   sent with the controller's ECT codepoint
//!   ([`crate::CongestionControl::ect`]: ECT(0), or ECT(1), the L4S
//!   identifier of RFC 9331, for the scalable controllers).
//! - Receiver echo, `ecn = "classic"` (RFC 3168 6.1.3): after a CE-marked
//!   data segment, every ACK carries ECE until a data segment with CWR
//!   arrives (a CWR segment that is itself CE-marked sets it again).
//! - Receiver echo, `ecn = "accurate"`: the per-segment echo of DCTCP,
//!   RFC 8257 section 3.2, not AccECN (RFC 9768's ACE counter and option
//!   are not modelled). The receiver keeps one bit, the CE state of the
//!   last data segment; every ACK carries it in ECE; when an arriving data
//!   segment's CE status differs from the state and a delayed ACK is
//!   pending, that ACK is sent at once with the old state before the state
//!   changes (the two-state machine of RFC 8257 figure 1). CWR is ignored.
//!   The sender thus sees, per ACK, whether the bytes it acknowledges were
//!   marked, which DCTCP's and Prague's alpha need. Both ends are expected
//!   to use the same mode (RFC 8257 section 1.1: DCTCP is deployed with
//!   both ends configured); negotiation is RFC 3168's in both modes, as
//!   Linux's DCTCP does.
//! - Sender reaction (RFC 3168 6.1.2): an ACK with ECE, outside loss
//!   recovery and not within the window of data sent before the previous
//!   reaction, sets ssthresh to the controller's
//!   [`crate::CongestionControl::ssthresh_after_ce`] (by default its loss
//!   response) and cwnd to ssthresh, without retransmitting; CWR is set on
//!   the next new data segment. During fast recovery or after an RTO no
//!   further reduction is made (the loss reaction covers the window); a
//!   loss of data sent before an ECN reduction starts fast recovery
//!   without a second one (6.1.2: one reduction for the dropped and/or CE
//!   packets of one window; `Sender::enter_recovery_from`).
//!   Every ACK's echo is also given to the controller
//!   ([`crate::CongestionControl::on_ecn_feedback`]) for its own estimate.
use crate::cc::EcnFeedback;
use crate::sender::{LossState, Sender};
use serde::{Deserialize, Serialize};
use wifitcp_core::SimTime;
pub use wifitcp_wire::Ecn;

/// `[tcp] ecn`: whether and how the endpoint uses ECN.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EcnMode {
    /// No ECN: segments are Not-ECT and the SYN does not offer it (default).
    #[default]
    Off,
    /// RFC 3168: ECE from a CE mark until CWR.
    Classic,
    /// RFC 8257 section 3.2 per-segment echo (DCTCP, Prague).
    Accurate,
}

impl wifitcp_core::config::KeyType for EcnMode {
    const TY: wifitcp_core::schema::Ty = wifitcp_core::schema::Ty::Str;
}

/// Per-connection ECN state.
#[derive(Clone, Debug, Default)]
pub struct EcnState {
    pub(crate) mode: EcnMode,
    /// Negotiated on the handshake (RFC 3168 6.1.1).
    pub(crate) ok: bool,
    /// Receiver: the ECE bit our ACKs carry.
    pub(crate) ece: bool,
    /// Sender: CWR is due on the next new data segment.
    pub(crate) cwr_due: bool,
    /// Sender: `snd_max` at the last reduction; ECE on ACKs not beyond it
    /// causes no new one (once per window, RFC 3168 6.1.2).
    pub(crate) high: u64,
    pub(crate) reacted: bool,
}

impl EcnState {
    pub fn new(mode: EcnMode) -> Self {
        EcnState { mode, ..Default::default() }
    }
    /// We offer ECN on our SYN.
    pub fn offered(&self) -> bool {
        self.mode != EcnMode::Off
    }
    /// A SYN arrived (passive side): ECN is in use if we want it and the
    /// SYN is an ECN-setup SYN (ECE and CWR).
    pub fn on_syn(&mut self, ece: bool, cwr: bool) {
        self.ok = self.offered() && ece && cwr;
    }
    /// A SYN-ACK arrived (active side): an ECN-setup SYN-ACK has ECE and
    /// not CWR.
    pub fn on_syn_ack(&mut self, ece: bool, cwr: bool) {
        self.ok = self.offered() && ece && !cwr;
    }
    /// Receiver: a data segment arrived with codepoint `cp` and flag
    /// `cwr`; `delack_pending`: an ACK is owed for earlier segments.
    /// Returns (flush, old): flush is true if that owed ACK must go out now,
    /// carrying ECE = old, the state before this segment (RFC 8257 3.2);
    /// later ACKs carry the new state.
    pub fn on_data(&mut self, cp: Ecn, cwr: bool, delack_pending: bool) -> (bool, bool) {
        let ce = cp == Ecn::Ce;
        match self.mode {
            EcnMode::Off => (false, false),
            EcnMode::Classic => {
                if cwr {
                    self.ece = false;
                }
                if ce {
                    self.ece = true;
                }
                (false, false)
            }
            EcnMode::Accurate => {
                let old = self.ece;
                self.ece = ce;
                (ce != old && delack_pending, old)
            }
        }
    }
}

impl Sender {
    /// An ACK processed while ECN is in use: `ece` its flag, `acked` the
    /// bytes it newly acknowledged. The controller sees every echo; a
    /// reduction follows at most once per window (RFC 3168 6.1.2).
    pub(crate) fn on_ecn_echo(&mut self, now: SimTime, ece: bool, acked: u64) {
        if ece {
            self.stats.ece_received += 1;
        }
        let fb = EcnFeedback { now, acked_bytes: acked, ece, snd_una: self.snd_una, snd_max: self.snd_max };
        self.cc.on_ecn_feedback(&fb);
        if !ece || self.state != LossState::Open || (self.ecn.reacted && self.snd_una <= self.ecn.high) {
            return;
        }
        let flight = self.snd_max - self.snd_una;
        let ss = self.cc.ssthresh_after_ce(now, &self.win, flight);
        self.win.ssthresh = ss.max(self.smss as u64);
        self.win.cwnd = self.win.ssthresh;
        self.ecn.reacted = true;
        self.ecn.high = self.snd_max;
        self.ecn.cwr_due = true;
        self.stats.ecn_reductions += 1;
        self.note_cwnd(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation_needs_both_sides() {
        let mut s = EcnState::new(EcnMode::Classic);
        s.on_syn(true, true);
        assert!(s.ok);
        s.on_syn(true, false);
        assert!(!s.ok, "an ECN-setup SYN has ECE and CWR");
        s.on_syn_ack(true, false);
        assert!(s.ok);
        s.on_syn_ack(true, true);
        assert!(!s.ok, "a SYN-ACK with CWR too is not ECN-setup (RFC 3168 6.1.1)");
        let mut off = EcnState::new(EcnMode::Off);
        off.on_syn(true, true);
        assert!(!off.ok && !off.offered());
    }

    #[test]
    fn classic_echo_holds_until_cwr() {
        let mut s = EcnState::new(EcnMode::Classic);
        s.on_data(Ecn::Ect0, false, false);
        assert!(!s.ece);
        s.on_data(Ecn::Ce, false, false);
        assert!(s.ece);
        s.on_data(Ecn::Ect0, false, false);
        assert!(s.ece, "ECE persists");
        s.on_data(Ecn::Ect0, true, false);
        assert!(!s.ece, "CWR clears it");
        s.on_data(Ecn::Ce, true, false);
        assert!(s.ece, "a CE-marked CWR segment sets it again");
    }

    #[test]
    fn accurate_echo_follows_each_segment() {
        let mut s = EcnState::new(EcnMode::Accurate);
        assert_eq!(s.on_data(Ecn::Ect1, false, true), (false, false));
        assert_eq!(
            s.on_data(Ecn::Ce, false, true),
            (true, false),
            "state change with an ACK owed: send it with the old ECE"
        );
        assert!(s.ece);
        assert_eq!(s.on_data(Ecn::Ce, false, true), (false, true));
        assert_eq!(s.on_data(Ecn::Ect1, true, false), (false, true), "no ACK owed: nothing to flush; CWR ignored");
        assert!(!s.ece);
    }
}
