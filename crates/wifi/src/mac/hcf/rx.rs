//! The receive side: carrier-sense bookkeeping of every reception (NAV,
//! EIFS), and the recipient of QoS Data addressed to this station.
//!
//! Recipient rules (10.25.6, 10.3.2.9):
//! - every MPDU whose FCS checked goes through the (transmitter, TID)'s
//!   reordering buffer (`blockack::Recipient`), which passes MSDUs up in
//!   sequence-number order, each once; without an agreement the same
//!   buffer with a window of 1 is the duplicate filter of 10.3.2.14 and
//!   never holds an MSDU back;
//! - No Ack MPDUs are passed up at once (no retransmission will fill a
//!   hole, so waiting would only delay them; 10.25.6.6 applies the
//!   reordering to MPDUs of the agreement, which No Ack ones are not);
//! - an A-MPDU with Normal Ack policy (implicit BlockAckReq) is answered
//!   with a compressed BlockAck SIFS after it, a BlockAckReq with a
//!   BlockAck (basic on a non-HT PHY), a single QoS Data MPDU with Normal
//!   Ack with an ACK; Block Ack policy MPDUs get no immediate response.
//!   Responses go regardless of the NAV and the medium (10.3.2.9).
use super::{Hcf, RxLink};
use crate::mac::blockack::Recipient;
use crate::mac::exchange::{answers_rts, control_frame};
use crate::mac::frame::{AckPolicy, Frame, FrameKind, MacAddr, MacOutput, MacSink, Mpdu, MpduBody, Mpdus};
use wifitcp_core::{SimDur, SimTime};
use wifitcp_wire::wifi_frame::ACK_LEN;

impl Hcf {
    pub(super) fn rx_end(&mut self, now: SimTime, f: &mut Frame, ok: bool, out: &mut impl MacSink) {
        if self.tb.is_some() {
            self.tb_expire(now, out);
        }
        // EIFS after an error, NAV from a third party's frame (access layer).
        let third_party = !f.addressed_to(self.addr);
        self.cs.heard(now, ok, third_party, f.duration);
        if !ok || third_party {
            self.counters.rx_errors += u64::from(!ok);
            if self.seq.awaiting().is_some() {
                self.exchange_failed(now, out);
            }
            return;
        }
        if f.kind.carries_msdus() && f.mu.as_ref().is_some_and(|m| m.uplink) {
            // An HE TB PPDU (`ul_exchange.rs`).
            return self.ul_rx(now, f, out);
        }
        if f.kind == FrameKind::BlockAck && f.mu.is_some() {
            // A multi-STA BlockAck (`ul_exchange.rs`).
            return self.tb_block_ack(now, f, out);
        }
        match f.kind {
            FrameKind::Ack | FrameKind::BlockAck | FrameKind::Cts => self.rx_response(now, f, out),
            kind => {
                if self.seq.awaiting().is_some() {
                    self.exchange_failed(now, out);
                }
                match kind {
                    FrameKind::QosData | FrameKind::Data => self.rx_data(now, f, out),
                    FrameKind::BlockAckReq => self.rx_bar(now, f, out),
                    FrameKind::Rts => self.rx_rts(now, f),
                    FrameKind::QosCfPoll => self.rx_poll(now, f),
                    FrameKind::QosNull => self.poll_null(f.ta),
                    FrameKind::Trigger => self.rx_trigger(now, f, out),
                    // Other MACs' frames: decoded, no response.
                    _ => {}
                }
            }
        }
    }

    /// An RTS addressed to us: a CTS after SIFS if the NAV is idle
    /// (10.3.2.8).
    fn rx_rts(&mut self, now: SimTime, f: &Frame) {
        if !answers_rts(self.cs.nav_end, now) || self.seq.has_due() {
            return;
        }
        let cts = self.cts_frame(f.ta, f.duration);
        self.seq.schedule(now + self.p.timing.sifs, cts);
    }

    pub(super) fn rx_link(&mut self, ta: MacAddr, tid: u8) -> usize {
        if let Some(i) = self.rx_links.iter().position(|r| r.ta == ta && r.tid == tid) {
            return i;
        }
        let win = if self.p.block_ack { self.p.ba_window } else { 1 };
        self.rx_links.push(RxLink { ta, tid, rec: Recipient::new(0, win) });
        self.rx_links.len() - 1
    }

    fn rx_data(&mut self, now: SimTime, f: &mut Frame, out: &mut impl MacSink) {
        let ta = f.ta;
        // (an HE MU PPDU: this station's share, always an A-MPDU)
        let range = f.mpdu_range_of(self.addr);
        let aggregate = range.len() > 1 || f.mu.is_some();
        let mut respond: Option<(FrameKind, u8)> = None;
        for m in &mut f.mpdus.as_mut_slice()[range] {
            match m.ack {
                AckPolicy::Normal if aggregate => respond = Some((FrameKind::BlockAck, m.tid)),
                AckPolicy::Normal => respond = Some((FrameKind::Ack, m.tid)),
                _ => {}
            }
            if !m.fcs_ok {
                continue;
            }
            let (sn, tid, policy) = (m.seq, m.tid, m.ack);
            if self.poller.is_some() {
                // The polling AP meters uplink activity (`poll.rs`).
                self.poll_observe(now, ta, m.bytes);
            }
            let Some(msdu) = m.take_msdu() else { continue };
            if policy == AckPolicy::NoAck {
                self.counters.rx_delivered += 1;
                out.push(MacOutput::Deliver { from: ta, pkt: msdu });
                continue;
            }
            let r = self.rx_link(ta, tid);
            let before = self.rx_links[r].rec.duplicates;
            let up = self.rx_links[r].rec.on_mpdu(sn, msdu);
            self.counters.rx_duplicates += self.rx_links[r].rec.duplicates - before;
            for pkt in up {
                self.counters.rx_delivered += 1;
                out.push(MacOutput::Deliver { from: ta, pkt });
            }
        }
        if let (Some(mu), Some((_, tid))) = (f.mu.as_ref(), respond) {
            // Solicited in an HE TB PPDU: the first user sends it for all
            // (`mac::mu_frame`).
            if let Some(tb) = mu.tb_response {
                if mu.users.first().is_some_and(|u| u.addr == self.addr) {
                    self.respond_tb(now, ta, tid, tb);
                }
                return;
            }
        }
        match respond {
            Some((FrameKind::BlockAck, tid)) => self.respond_block_ack(now, ta, tid),
            Some((_, _)) => self.respond_ack(now, ta),
            None => {}
        }
    }

    fn rx_bar(&mut self, now: SimTime, f: &Frame, out: &mut impl MacSink) {
        let mine = f.mpdu_range_of(self.addr).start;
        let Some(MpduBody::BlockAckReq { tid, start_seq }) = f.mpdus.as_slice().get(mine).map(|m| &m.body) else {
            return;
        };
        let (tid, ssn, ta) = (*tid, *start_seq, f.ta);
        let r = self.rx_link(ta, tid);
        for pkt in self.rx_links[r].rec.on_bar(ssn) {
            self.counters.rx_delivered += 1;
            out.push(MacOutput::Deliver { from: ta, pkt });
        }
        if let Some(mu) = f.mu.as_ref() {
            // A MU-BAR (`mac::mu_frame`).
            if let (Some(tb), Some(u)) = (mu.tb_response, mu.users.first()) {
                if u.addr == self.addr {
                    self.respond_tb(now, ta, tid, tb);
                }
            }
            return;
        }
        self.respond_block_ack(now, ta, tid);
    }

    fn respond_ack(&mut self, now: SimTime, ra: MacAddr) {
        let t = &self.p.timing;
        let f = control_frame(FrameKind::Ack, self.addr, ra, SimDur::ZERO, ACK_LEN, t.control_rate, self.ack_time());
        self.seq.schedule(now + t.sifs, f);
    }

    /// The HE TB PPDU of BlockAcks (of `tb`) answering a MU-BAR, sent by
    /// the first user (`mac::mu_frame`) with its own BlockAck.
    fn respond_tb(&mut self, now: SimTime, ra: MacAddr, tid: u8, tb: SimDur) {
        let f = Frame { airtime: tb, ..self.block_ack_frame(ra, tid) };
        self.seq.schedule(now + self.p.timing.sifs, f);
    }

    fn respond_block_ack(&mut self, now: SimTime, ra: MacAddr, tid: u8) {
        let f = self.block_ack_frame(ra, tid);
        self.seq.schedule(now + self.p.timing.sifs, f);
    }

    fn block_ack_frame(&mut self, ra: MacAddr, tid: u8) -> Frame {
        let r = self.rx_link(ra, tid);
        let (start_seq, bitmap) = self.rx_links[r].rec.block_ack();
        let t = &self.p.timing;
        let bytes = self.block_ack_len();
        Frame {
            mu: None,
            kind: FrameKind::BlockAck,
            ta: self.addr,
            ra,
            duration: SimDur::ZERO,
            seq: 0,
            retry: false,
            mpdu_bytes: bytes,
            rate: t.control_rate,
            airtime: self.block_ack_time(),
            contended: false,
            mpdus: Mpdus::one(Mpdu {
                seq: 0,
                retry: false,
                tid,
                ack: AckPolicy::Normal,
                bytes,
                body: MpduBody::BlockAck { tid, start_seq, bitmap: Box::new(bitmap) },
                fcs_ok: false,
            }),
        }
    }
}
