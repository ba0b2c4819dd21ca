//! A CF-pollable station (10.4.4.1 of 802.11-2016): the DCF for the
//! contention period; in the CFP its NAV (set by the beacon's
//! CFPDurRemaining, 10.4.3.3, reset by CF-End) keeps it silent unless
//! polled. Polled, it answers SIFS after the poll with its MSDU (Data, or
//! Data+CF-Ack if the poll carried data for it), else CF-Ack (data
//! received, nothing to send) or Null. The CF-Ack bit of the PC's next
//! frame acknowledges its data frame; without it the MSDU goes back to the
//! DCF (same sequence number, Retry bit set) and is retried by contention
//! or at the next poll, up to `dot11ShortRetryLimit` attempts.
//!
//! Choice: a CF-pollable station keeps contending in the CP with its DCF
//! (10.4 allows it: the CFP is an addition to the CP). So a station with a
//! high-priority packet never waits for a poll, whatever the polling list
//! (the multi-poll hybrid's bypass rule of paper 000 holds for every
//! packet outside the CFP).
//!
//! Invariants: an answer is sent only SIFS after a poll addressed to us;
//! at most one MSDU is lent to the CFP and it awaits exactly the PC's next
//! frame.
use super::Shadow;
use crate::mac::api::{Demand, Mac};
use crate::mac::dcf::{Dcf, MacCounters, Tally, Withdrawn};
use crate::mac::frame::{Frame, FrameKind, MacAddr, MacOutput, MacSink, Mpdus};
use crate::phy::PhyTiming;
use wifitcp_core::{SimDur, SimTime};
use wifitcp_wire::wifi_frame::CF_POLL_LEN;
use wifitcp_wire::Packet;

pub struct CfStation {
    dcf: Dcf,
    sh: Shadow,
    /// The point coordinator (the AP).
    ap: MacAddr,
    /// Our answer to a poll, due SIFS after it (built then, so that an
    /// MSDU the queue gives us after the poll's CF-Ack can go in it), and
    /// whether the poll carried data for us.
    answer: Option<(SimTime, bool)>,
    /// Our own frame on the air (not the DCF's).
    own_tx: Option<FrameKind>,
    /// The MSDU lent to the CFP, and whether its frame is over (awaiting
    /// the CF-Ack in the PC's next frame).
    up: Option<Withdrawn>,
    up_sent: bool,
    /// Polls answered (results, tests), and how many of the answers
    /// carried no MSDU (Null, or a CF-Ack alone).
    pub polls: u64,
    pub null_answers: u64,
}

impl CfStation {
    pub fn new(dcf: Dcf, ap: MacAddr) -> CfStation {
        CfStation {
            dcf,
            sh: Shadow::default(),
            ap,
            answer: None,
            own_tx: None,
            up: None,
            up_sent: false,
            polls: 0,
            null_answers: 0,
        }
    }
    pub fn dcf(&self) -> &Dcf {
        &self.dcf
    }
    pub fn dcf_mut(&mut self) -> &mut Dcf {
        &mut self.dcf
    }

    /// The PC's frame after our data frame: its CF-Ack bit settles the MSDU.
    fn settle_up(&mut self, now: SimTime, acked: bool, out: &mut impl MacSink) {
        if !self.up_sent {
            return;
        }
        self.up_sent = false;
        let mut w = self.up.take().expect("a lent MSDU");
        if acked {
            self.dcf.count(Tally::Successes, 1);
            out.push(MacOutput::Acked(w.id()));
            if self.dcf.is_ready() {
                self.dcf.ask(now, out);
            }
            return;
        }
        self.dcf.count(Tally::Failures, 1);
        if w.failed(self.dcf.params()) {
            self.dcf.count(Tally::DropsRetryLimit, 1);
            out.push(self.dcf.receipts.discard(w.id()));
            self.dcf.ask(now, out);
        } else {
            self.dcf.restore(w);
        }
    }

    /// Our answer to a poll (`got_data`: it carried an MSDU for us).
    fn answer(&mut self, got_data: bool) -> Frame {
        self.polls += 1;
        let t = self.dcf.timing_ref().clone();
        let addr = self.dcf.addr;
        if self.up.is_none() {
            self.up = self.dcf.withdraw();
        }
        let f = match self.up.as_mut() {
            Some(w) => {
                self.dcf.count(Tally::Attempts, 1);
                w.frame(addr, FrameKind::DataCf { ack: got_data, poll: false }, &t, SimDur::ZERO)
            }
            None => {
                self.null_answers += 1;
                Frame {
                    mu: None,
                    kind: if got_data { FrameKind::CfAck } else { FrameKind::Null },
                    ta: addr,
                    ra: self.ap,
                    duration: SimDur::ZERO,
                    seq: 0,
                    retry: false,
                    mpdu_bytes: CF_POLL_LEN,
                    rate: t.data_rate,
                    airtime: t.data_ppdu_time(CF_POLL_LEN),
                    contended: false,
                    mpdus: Mpdus::none(),
                }
            }
        };
        f
    }
}

impl Mac for CfStation {
    #[inline]
    fn addr(&self) -> MacAddr {
        self.dcf.addr
    }
    #[inline]
    fn timing(&self) -> &PhyTiming {
        self.dcf.timing_ref()
    }
    fn demand(&self) -> Option<Demand> {
        if self.up.is_some() {
            return None;
        }
        Mac::demand(&self.dcf)
    }
    fn give_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr, out: &mut impl MacSink) {
        self.dcf.start_msdu(now, pkt, ra, out);
    }
    fn on_cca(&mut self, now: SimTime, busy: bool, out: &mut impl MacSink) {
        self.sh.on_medium(now, busy, &mut self.dcf, out);
    }
    fn on_rx_start(&mut self, now: SimTime) {
        self.dcf.on_rx_start(now);
    }
    #[inline]
    fn idle_may_emit(&self) -> bool {
        self.dcf.idle_may_fail_exchange()
    }
    fn on_rx_end(&mut self, now: SimTime, f: &mut Frame, ok: bool, out: &mut impl MacSink) {
        self.dcf.on_rx_end(now, f, ok, out);
        if f.ta != self.ap {
            return;
        }
        let addr = self.dcf.addr;
        let ok_here = ok && (f.ra != addr || f.mpdus.first().is_none_or(|m| m.fcs_ok));
        // The PC's frame after our data frame (10.4.4.1).
        self.settle_up(now, ok_here && f.kind.cf_ack(), out);
        if !ok_here {
            return;
        }
        match f.kind {
            // 10.4.3.3: CF-End resets the NAV of every station.
            FrameKind::CfEnd | FrameKind::CfEndAck => self.dcf.clear_nav(now),
            k if k.cf_poll() && f.ra == addr => {
                let got_data = k.carries_msdus();
                if got_data {
                    self.dcf.accept_cf_data(f, out);
                }
                self.answer = Some((now + self.dcf.timing_ref().sifs, got_data));
            }
            _ => {}
        }
    }
    fn on_verdict(&mut self, _: SimTime, f: &Frame, received: bool, out: &mut impl MacSink) {
        // One log per station, the DCF's, whoever sent the frame.
        self.dcf.receipts.verdict(f, received, out)
    }
    fn lend_msdus(&self, f: &mut Frame) {
        // (the DCF's frames of the contention period)
        self.dcf.lend_msdus(f)
    }
    fn on_tx_end(&mut self, now: SimTime, out: &mut impl MacSink) {
        let Some(kind) = self.own_tx.take() else {
            self.sh.idle_since = now;
            self.dcf.on_tx_end(now, out);
            return;
        };
        self.sh.own = false;
        self.sh.idle_since = now;
        if kind.carries_msdus() {
            self.up_sent = true;
        }
        self.sh.update(now, &mut self.dcf, out);
    }
    fn on_wake(&mut self, now: SimTime, out: &mut impl MacSink) {
        if let Some((at, _)) = &self.answer {
            if *at == now {
                let (_, got_data) = self.answer.take().expect("an answer");
                let f = self.answer(got_data);
                self.own_tx = Some(f.kind);
                self.sh.own = true;
                self.sh.update(now, &mut self.dcf, out);
                out.push(MacOutput::StartTx(f));
                return;
            }
        }
        if Mac::next_wakeup(&self.dcf) == now {
            self.dcf.on_wake(now, out);
        }
    }
    fn next_wakeup(&self) -> SimTime {
        let own = self.answer.as_ref().map_or(SimTime::NEVER, |(at, _)| *at);
        Mac::next_wakeup(&self.dcf).min(own)
    }
    fn held(&self) -> impl Iterator<Item = &Packet> {
        Mac::held(&self.dcf).chain(self.up.as_ref().map(|w| w.packet()))
    }
    #[inline]
    fn counters(&self) -> MacCounters {
        Mac::counters(&self.dcf)
    }
    fn eifs_after_collision(&self) -> bool {
        Mac::eifs_after_collision(&self.dcf)
    }
}
