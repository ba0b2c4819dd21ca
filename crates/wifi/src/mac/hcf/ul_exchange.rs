//! Uplink trigger-based access (IEEE 802.11ax-2021 26.5.2): the AP's Basic
//! Trigger frame, the triggered stations' HE TB PPDUs of data, and the
//! AP's multi-STA BlockAck (9.3.1.8.7), as ns-3 3.37 runs them with
//! `RrMultiUserScheduler` and EnableUlOfdma (`mac.ofdma = "ul"` or
//! `"dl+ul"`).
//!
//! The AP:
//! - Access: with `MuConfig::access_req` above zero the AP asks for
//!   channel access at that interval (ns-3's AccessReqInterval; 26.5.2
//!   leaves when to trigger to the AP): its best-effort EDCAF then
//!   contends as if it held a frame, with the usual EDCA rules, until it
//!   wins. Whatever EDCAF wins, the multi-user scheduler (`mac::sched::mu`)
//!   decides: a Basic Trigger when it picks uplink.
//! - Buffer status (26.5.5's two sources are BSRP-solicited reports and
//!   the Queue Size of QoS Data and QoS Null frames, 9.2.4.5.6): the AP
//!   knows the last Queue Size each station sent in an HE TB share it
//!   decoded, quantised as the subfield is (units of 256 octets, 254:
//!   "more than 254 x 256 octets"), for `MuConfig::bsr_lifetime` (ns-3's
//!   BsrLifetime, 20 ms); older or none: unknown, and the scheduler asks
//!   for ns-3's UlPsduSize, 500 octets (`mac::sched::mu`). Which frames
//!   carry a Queue Size is the stations' choice: QoS Null frames always;
//!   QoS Data frames with `MuConfig::queue_size_in_data` (ns-3's
//!   SetQueueSize, false by default: its stations report in QoS Nulls
//!   only); a BlockAckReq has no QoS Control field. A report of 254 asks
//!   for as much as the HE TB PPDU can hold (ns-3 3.37 reads it as
//!   unbounded): the PPDU lasts aPPDUMaxTime, longer than a station's
//!   `max_ampdu_bytes` needs (measured in ns-3 with bench/ns3/he-ofdma.cc
//!   --trace: its HE TB PPDUs after a report of 254 announce 5,480 us; a
//!   share of 42 MPDUs, 64,846 octets, fills 3.7 ms of it, the rest is
//!   padding).
//! - BSRP (`MuConfig::bsrp`, off by default; 26.5.5): when the scheduler
//!   lacks a fresh report for a station it would trigger, the AP sends a
//!   BSRP Trigger (`mu::bsrp_trigger_len`) to those stations instead; SIFS
//!   later they answer in one HE TB PPDU of a QoS Null each carrying the
//!   Queue Size, as long as a QoS Null needs on their RUs
//!   (`MuPhy::bsrp_response`, the UL Length). QoS Nulls solicit no
//!   acknowledgement: the TXOP ends (one exchange per TXOP, as the Basic
//!   Trigger's) and the AP contends again at once for the Basic Trigger
//!   the reports size. A BSRP whose answer is lost ends the TXOP with CW
//!   doubled, as a lost HE TB PPDU does.
//!   Deviation: with SetQueueSize ns-3 also reads the Queue Size of the
//!   stations' single-user QoS Data frames; here only HE TB shares
//!   report.
//! - The HE TB PPDU lasts what the longest user needs for the largest
//!   reported queue, at most aPPDUMaxTime (and, under a TXOP limit, what
//!   is left of the TXOP after the Trigger, two SIFS and the multi-STA
//!   BlockAck), on whole symbols (`phy::he_mu::tb_ppdu`, the UL Length of
//!   the Trigger) of the GI the Trigger names (`HeGi::for_tb`: 1.6 us in a
//!   BSS on 0.8 us, as ns-3's Triggers ask). Each user's `psdu` in the Trigger is the most octets its
//!   RU carries in that time (RU, the BSS's data MCS and streams: ns-3
//!   uses each station's single-user MCS, the same here).
//! - SIFS after the HE TB PPDU the AP answers with a multi-STA BlockAck
//!   acknowledging every user whose PSDU reached it (its recipient
//!   scoreboard, `blockack::Recipient`), one BlockAck body per user; no
//!   HE TB PPDU (every share lost, or a collision): the TXOP ends with CW
//!   doubled. One uplink exchange per TXOP (the TXOP ends after it).
//! - The wait for the HE TB PPDU is the response wait of every exchange
//!   (10.3.2.9): it lasts to the PPDU's end if a reception started within
//!   the timeout. Under reception per receiver a station's A-MPDU that
//!   began while the AP sent the Trigger keeps the AP's carrier sense busy
//!   when the wait starts; the HE TB PPDU the AP's PHY then synchronises on
//!   is a PHY-RXSTART without a change of carrier sense
//!   (`Mac::on_rx_start`), and the AP answers it as any other (as ns-3
//!   3.37's AP does).
//! - An HE TB PPDU that ends after the AP gave its exchange up (no
//!   reception started during its wait, `mu_failed`): the AP passes up
//!   the MPDUs it decoded (its scoreboard and reordering buffer take every
//!   QoS Data MPDU received under the agreement, 10.25.6.3 and 10.25.6.6;
//!   the medium's verdict told each user which of its MPDUs arrived) and
//!   sends no multi-STA BlockAck.
//!
//! A station:
//! - MU EDCA (26.2.7; `Hcf::set_mu_edca`, the rule in `mac/access`
//!   `mu_edca.rs`): when the multi-STA BlockAck acknowledges QoS Data of
//!   its share, the share's AC switches to the MU EDCA parameters and its
//!   MU EDCA timer restarts (ns-3 3.37 starts it on the same event); the
//!   expiry is a wake-up of the MAC. Off (every timer 0, ns-3's default):
//!   its EDCA parameters do not change after a Trigger.
//! - A BSRP Trigger that lists it: it answers with a QoS Null alone (its
//!   Queue Size), neither data nor a BlockAckReq.
//! - On a Basic Trigger that lists it, it takes up to `max_mpdus` MSDUs
//!   from its queue discipline (as when it wins access) and fills its
//!   share when the HE TB PPDU starts: the MPDUs its originator has
//!   pending for the AP, oldest first, at most `max_mpdus` and
//!   `max_ampdu_bytes`, within the octets its RU carries. They count an
//!   attempt and stay in flight, so its own EDCA does not contend for them.
//!   The share goes into the one HE TB PPDU SIFS after the Trigger: every
//!   user that decoded the Trigger has it due then, the first to start it
//!   sends it, and the medium gathers the others' shares into it (one MAC
//!   call each, which drops that user's own; `mac::mu_frame`). A user that
//!   did not decode the Trigger has no share; the others still answer. A station with nothing to send still
//!   reports its queue (ns-3's QoS Null). A BlockAckReq it owes goes
//!   instead of data, alone in its share (as ns-3 3.37's stations do;
//!   answered in the multi-STA BlockAck, asked again if none comes).
//! - Queue Size: model choice: the MAC sees its queue discipline only
//!   through what it takes from it; when the last fill reached its limit
//!   (the discipline held more) it reports "more than 254 x 256 octets",
//!   else the octets it holds for the AP after its share.
//! - The multi-STA BlockAck settles its MPDUs through its originator
//!   (acknowledged, retransmitted later, dropped at the retry limit). None
//!   for it by the instant it would have ended: every MPDU of its share
//!   failed (as a missed BlockAck), settled at the station's next input
//!   (no timer of its own: the next frame on the medium, its next wake-up
//!   or Trigger). Its CW does not change either way.
use super::mu::{basic_trigger_len, bsrp_trigger_len, multi_sta_block_ack_len};
use super::mu_exchange::HePhy;
use super::{settle_block_ack, Hcf, Item, Txop, QOS_NULL_LEN};
use crate::mac::edca::AccessCategory;
use crate::mac::frame::{AckPolicy, Frame, FrameKind, MacAddr, MacOutput, MacSink, Mpdu, MpduBody, Mpdus};
use crate::mac::mu_frame::{MuInfo, MuUserTx, TbShare};
use crate::mac::sched::MuAlloc;
use crate::phy::he_mu::{self, MuUser};
use crate::phy::ht::subframe_bytes;
use crate::phy::ppdu::PPDU_MAX_TIME;
use wifitcp_core::{SimDur, SimTime};
use wifitcp_wire::wifi_frame::BLOCK_ACK_REQ_LEN;

/// The users of a Trigger for `alloc`: each station's RU at the data MCS
/// and streams (the Basic Trigger and the BSRP Trigger alike).
fn tb_users(phy: &HePhy, alloc: &MuAlloc) -> Vec<MuUser> {
    alloc
        .users
        .iter()
        .map(|(_, ru)| MuUser::new(*ru, phy.mcs, phy.nss).expect("the data MCS and streams are HE's"))
        .collect()
}

/// 9.2.4.5.6: Queue Size in units of 256 octets, 254 and above "more".
const QUEUE_UNIT: u32 = 256;
const QUEUE_MORE: u32 = 254;

/// A station's part in an uplink exchange under way.
#[derive(Debug)]
pub(super) struct TbSta {
    /// Between the Trigger and the HE TB PPDU: the share is not filled.
    filling: bool,
    ap: MacAddr,
    /// This station's entry in the Trigger.
    me: MuUserTx,
    /// The multi-STA BlockAck has not come by then: the share failed.
    deadline: SimTime,
    /// The link the share came from.
    link: Option<usize>,
    /// The share is a BlockAckReq.
    bar: bool,
    /// The Trigger was a BSRP: the share is a QoS Null alone.
    bsrp: bool,
}

impl Hcf {
    // ------------------------------------------------------------------
    // The AP

    /// The AP's next access request (`SimTime::NEVER`: none, or one is
    /// pending: the ticks until it is answered change nothing, and
    /// `ul_req_answered` skips them).
    pub(super) fn ul_req_timer(&self) -> SimTime {
        match &self.mu {
            Some(m) if !m.req => m.next_req,
            _ => SimTime::NEVER,
        }
    }

    /// The AP won access at `now`: a pending request is answered; the next
    /// one comes at the next tick after now.
    pub(super) fn ul_req_answered(&mut self, now: SimTime) {
        let Some(m) = self.mu.as_mut() else { return };
        if m.req {
            m.req = false;
            while m.next_req <= now {
                m.next_req += m.cfg.access_req;
            }
        }
    }

    /// An access request pending (the best-effort EDCAF contends for it).
    pub(super) fn ul_req_pending(&self) -> bool {
        self.mu.as_ref().is_some_and(|m| m.req)
    }

    /// The access request timer fired at or before `now`: the best-effort
    /// EDCAF contends as if a frame arrived (module docs).
    pub(super) fn ul_req_tick(&mut self, now: SimTime) {
        let Some(m) = self.mu.as_mut() else { return };
        if m.next_req > now {
            return;
        }
        while m.next_req <= now {
            m.next_req += m.cfg.access_req;
        }
        m.req = true;
        let be = AccessCategory::Be as usize;
        if !self.acs[be].has_frame {
            self.frame_arrived(now, be);
            self.resume();
        }
    }

    /// The scheduler picked uplink: send the Basic Trigger (module docs).
    pub(super) fn ul_start(&mut self, now: SimTime, ac: usize, alloc: &MuAlloc, out: &mut impl MacSink) -> bool {
        let m = self.mu.as_ref().expect("an MU AP");
        let phy = m.phy;
        let p = self.mu_phy(m);
        let t = self.p.timing.clone();
        let users = tb_users(&phy, alloc);
        let n = users.len() as u32;
        let (trigger_rate, trigger_air) = m.cfg.trigger_air(&t, basic_trigger_len(n));
        let ba_air = t.tx_time(multi_sta_block_ack_len(n, p.bitmap_octets), t.control_rate);
        let end = self.txop_end(ac, now, None);
        let mut longest = PPDU_MAX_TIME;
        if let Some(e) = end {
            let left = e.saturating_since(now).saturating_sub(trigger_air + t.sifs * 2 + ba_air);
            longest = longest.min(left);
        }
        let n_ltf = he_mu::ltfs(users.iter().map(|u| u.nss).max().unwrap_or(1));
        let gi = p.tb_gi();
        // The most octets user `u` carries in an HE TB PPDU of `d`.
        let carries = |u: &MuUser, d: SimDur| u.octets_in(he_mu::tb_data_symbols(gi, phy.pe_us, n_ltf, d));
        let want: Vec<u32> = users.iter().map(|u| alloc.ul_bytes.min(carries(u, longest))).collect();
        if want.iter().all(|&w| w == 0) {
            return false;
        }
        let tb = p.tb_ppdu(&users, &want).min(longest);
        let txs: Vec<MuUserTx> = alloc
            .users
            .iter()
            .zip(&users)
            .map(|((a, _), u)| MuUserTx {
                addr: *a,
                first: 0,
                count: 0,
                psdu: carries(u, tb),
                psdu_max: carries(u, tb),
                rate: t.data_rate,
                ru: Some(u.ru.size),
                ok: false,
                queue: None,
            })
            .collect();
        let len = basic_trigger_len(n);
        let duration = t.sifs * 2 + tb + ba_air;
        let mut f =
            Frame::mu_control(&t, FrameKind::Trigger, self.addr, txs, len, duration, true, Mpdus::none(), Some(tb));
        (f.rate, f.airtime) = (trigger_rate, trigger_air);
        let m = self.mu.as_mut().expect("an MU AP");
        m.ul = Some(alloc.users.iter().map(|(a, _)| *a).collect());
        m.ul_bsrp = false;
        self.txop = Some(Txop { ac, link: 0, end, bar_only: false, granted: false });
        self.counters.attempts += 1;
        self.stats.basic_triggers += 1;
        self.transmit(now, f, out);
        true
    }

    /// The scheduler asked for buffer status first: send the BSRP Trigger
    /// (module docs). Its users answer SIFS later in one HE TB PPDU of a
    /// QoS Null each, lasting what a QoS Null needs on the RUs
    /// (`MuPhy::bsrp_response`, the UL Length).
    pub(super) fn bsrp_start(&mut self, now: SimTime, ac: usize, alloc: &MuAlloc, out: &mut impl MacSink) -> bool {
        let m = self.mu.as_ref().expect("an MU AP");
        let phy = m.phy;
        let t = self.p.timing.clone();
        let users = tb_users(&phy, alloc);
        let tb = self.mu_phy(m).bsrp_response(&users);
        let txs: Vec<MuUserTx> = alloc
            .users
            .iter()
            .map(|(a, ru)| MuUserTx {
                addr: *a,
                first: 0,
                count: 0,
                psdu: QOS_NULL_LEN,
                psdu_max: 0,
                rate: t.data_rate,
                ru: Some(ru.size),
                ok: false,
                queue: None,
            })
            .collect();
        let len = bsrp_trigger_len(users.len() as u32);
        let mut f =
            Frame::mu_control(&t, FrameKind::Trigger, self.addr, txs, len, t.sifs + tb, true, Mpdus::none(), Some(tb));
        f.mu.as_mut().expect("an MU frame").bsrp = true;
        (f.rate, f.airtime) = m.cfg.trigger_air(&t, len);
        let end = self.txop_end(ac, now, None);
        let m = self.mu.as_mut().expect("an MU AP");
        m.ul = Some(alloc.users.iter().map(|(a, _)| *a).collect());
        m.ul_bsrp = true;
        self.txop = Some(Txop { ac, link: 0, end, bar_only: false, granted: false });
        self.counters.attempts += 1;
        self.stats.bsrp_triggers += 1;
        self.transmit(now, f, out);
        true
    }

    /// An HE TB PPDU of uplink data ended here (`ok`: some user's PSDU
    /// reached us): pass up what arrived, note each user's Queue Size,
    /// answer with the multi-STA BlockAck if the AP still waits for the
    /// PPDU (module docs). At a station, a fellow user's PPDU: nothing to
    /// do.
    pub(super) fn ul_rx(&mut self, now: SimTime, f: &mut Frame, out: &mut impl MacSink) {
        let Some(m) = self.mu.as_mut() else { return };
        let waiting = m.ul.is_some();
        let info = f.mu.take().expect("an HE TB PPDU without its users");
        for u in info.users.iter().filter(|u| u.ok) {
            // What carries a Queue Size (module docs): a QoS Null, QoS Data
            // with `queue_size_in_data`; a BlockAckReq has no QoS Control.
            let bar = u.count > 0 && matches!(f.mpdus.as_slice()[u.first as usize].body, MpduBody::BlockAckReq { .. });
            if bar || (u.count > 0 && !m.cfg.queue_size_in_data) {
                continue;
            }
            if let (Some(q), Some(e)) = (u.queue, m.bsr.iter_mut().find(|(a, _)| *a == u.addr)) {
                let units = q.div_ceil(QUEUE_UNIT).min(QUEUE_MORE);
                e.1 = Some((if units == QUEUE_MORE { u32::MAX } else { units * QUEUE_UNIT }, now));
            }
        }
        let t = self.p.timing.clone();
        let mut bodies = Vec::new();
        let mut acked = Vec::new();
        for u in info.users.iter().filter(|u| u.ok && u.count > 0) {
            let mine = &mut f.mpdus.as_mut_slice()[u.range()];
            let tid = mine[0].tid;
            if let MpduBody::BlockAckReq { start_seq, .. } = mine[0].body {
                let r = self.rx_link(u.addr, tid);
                for pkt in self.rx_links[r].rec.on_bar(start_seq) {
                    self.counters.rx_delivered += 1;
                    out.push(MacOutput::Deliver { from: u.addr, pkt });
                }
            }
            let mine = &mut f.mpdus.as_mut_slice()[u.range()];
            for x in mine.iter_mut().filter(|x| x.fcs_ok) {
                let (sn, tid) = (x.seq, x.tid);
                let Some(msdu) = x.take_msdu() else { continue };
                let r = self.rx_link(u.addr, tid);
                let before = self.rx_links[r].rec.duplicates;
                let up = self.rx_links[r].rec.on_mpdu(sn, msdu);
                self.counters.rx_duplicates += self.rx_links[r].rec.duplicates - before;
                for pkt in up {
                    self.counters.rx_delivered += 1;
                    out.push(MacOutput::Deliver { from: u.addr, pkt });
                }
            }
            let r = self.rx_link(u.addr, tid);
            let (start_seq, bitmap) = self.rx_links[r].rec.block_ack();
            let body = MpduBody::BlockAck { tid, start_seq, bitmap: Box::new(bitmap) };
            bodies.push(Mpdu { seq: 0, retry: false, tid, ack: AckPolicy::Normal, bytes: 0, body, fcs_ok: false });
            acked.push(u.addr);
        }
        let info_ok = info.users.iter().any(|u| u.ok);
        f.mu = Some(info);
        if !waiting {
            return;
        }
        self.cs.self_busy_until = now;
        if !info_ok {
            return self.mu_failed(now, out);
        }
        self.seq.close();
        let m = self.mu.as_mut().expect("an MU AP");
        m.ul = None;
        if acked.is_empty() {
            // Only QoS Nulls came: the exchange is over, nothing to
            // acknowledge. After a BSRP the AP contends again at once for
            // the Basic Trigger its reports size (module docs).
            if std::mem::take(&mut m.ul_bsrp) {
                m.req = true;
            }
            return self.end_txop(now, true);
        }
        let m = self.mu.as_ref().expect("an MU AP");
        let bitmap_octets = self.mu_phy(m).bitmap_octets;
        let len = multi_sta_block_ack_len(acked.len() as u32, bitmap_octets);
        let per = len / acked.len() as u32;
        let users = acked.iter().enumerate().map(|(i, &addr)| MuUserTx::one(addr, i, per, t.control_rate)).collect();
        for b in &mut bodies {
            b.bytes = per;
        }
        let ba = Frame::mu_control(
            &t,
            FrameKind::BlockAck,
            self.addr,
            users,
            len,
            SimDur::ZERO,
            false,
            Mpdus::many(bodies),
            None,
        );
        self.stats.block_acks += 1;
        self.end_txop(now, true);
        self.seq.schedule(now + t.sifs, ba);
    }

    // ------------------------------------------------------------------
    // A station

    /// A Basic Trigger ended here: if it lists us, take an exchange's worth
    /// from the queue discipline now, and fill our share when the HE TB
    /// PPDU starts (module docs); every user that decoded it has that PPDU due.
    pub(super) fn rx_trigger(&mut self, now: SimTime, f: &Frame, out: &mut impl MacSink) {
        let (Some(mu), Some(tb)) = (f.mu.as_ref(), f.mu.as_ref().and_then(|m| m.tb_response)) else { return };
        let Some(i) = mu.users.iter().position(|u| u.addr == self.addr) else { return };
        if let Some(old) = self.tb.take() {
            self.tb_failed(&old, out);
        }
        let t = &self.p.timing;
        let n = mu.users.len() as u32;
        let bitmap = if self.p.ba_window > 64 { 32 } else { 8 };
        let ba_air = t.tx_time(multi_sta_block_ack_len(n, bitmap), t.control_rate);
        let start = now + t.sifs;
        let me = mu.users[i].clone();
        let bsrp = mu.bsrp;
        // The HE TB PPDU, its users' shares filled when it starts: every
        // user that decoded the Trigger has it due SIFS later, and the
        // first to start it sends it for all (the medium takes the
        // others' shares, `tb_take`, which drops theirs). Model choice:
        // one transmission on the medium; a user that did not decode
        // the Trigger (under reception per receiver: its own A-MPDU on
        // the air) has no share, and the others still answer.
        let users = mu.users.iter().map(|u| MuUserTx { count: 0, first: 0, ..u.clone() }).collect();
        let ppdu = Frame {
            kind: FrameKind::QosData,
            ta: self.addr,
            ra: f.ta,
            // (QoS Nulls answering a BSRP solicit no response)
            duration: if bsrp { SimDur::ZERO } else { t.sifs + ba_air },
            seq: 0,
            retry: false,
            mpdu_bytes: 0,
            rate: me.rate,
            airtime: tb,
            contended: false,
            mpdus: Mpdus::none(),
            mu: Some(Box::new(MuInfo { users, tb_response: None, uplink: true, bsrp })),
        };
        self.seq.schedule(start, ppdu);
        self.tb = Some(Box::new(TbSta {
            filling: true,
            ap: f.ta,
            me,
            deadline: start + tb + t.sifs + ba_air + t.slot,
            link: None,
            bar: false,
            bsrp,
        }));
        if self.waiting < self.hold_limit() {
            self.ask(now, out);
        }
    }

    /// Between a Trigger and its HE TB PPDU: the MAC takes an exchange's
    /// worth from its queue discipline.
    pub(super) fn tb_filling(&self) -> bool {
        self.tb.as_ref().is_some_and(|s| s.filling)
    }

    /// The multi-STA BlockAck did not come by its instant: our share
    /// failed (checked at our next input, module docs).
    pub(super) fn tb_expire(&mut self, now: SimTime, out: &mut impl MacSink) {
        if self.tb.as_ref().is_some_and(|s| s.deadline <= now) {
            // (still filling: the HE TB PPDU never started, nothing sent)
            let s = self.tb.take().expect("checked");
            self.tb_failed(&s, out);
        }
    }

    /// Fill our share (module docs): its MPDUs, PSDU octets and Queue
    /// Size.
    fn tb_share(&mut self, now: SimTime, out: &mut impl MacSink) -> TbShare {
        let saturated = self.waiting >= self.hold_limit();
        let mut s = self.tb.take().expect("a share to fill");
        s.filling = false;
        let ba = self.p.block_ack;
        // (a BSRP's answer is a QoS Null alone: no data, no BlockAckReq)
        let link = self
            .links
            .iter()
            .enumerate()
            .filter(|(_, l)| !s.bsrp && l.ra == s.ap && l.has_work(ba))
            .min_by_key(|(_, l)| l.head_order)
            .map(|(i, _)| i);
        let mut mpdus = Vec::new();
        let mut psdu = 0u32;
        if let Some(ssn) = link.and_then(|l| self.links[l].orig.take_bar()) {
            // A BlockAckReq it owes goes alone (as ns-3's stations send it).
            let l = link.expect("checked");
            let tid = self.links[l].tid;
            let body = MpduBody::BlockAckReq { tid, start_seq: ssn };
            let bytes = BLOCK_ACK_REQ_LEN;
            mpdus.push(Mpdu { seq: 0, retry: false, tid, ack: AckPolicy::Normal, bytes, body, fcs_ok: false });
            psdu = bytes;
            self.stats.block_ack_reqs += 1;
            s.link = Some(l);
            s.bar = true;
        } else if let Some(l) = link {
            if self.admit(l) {
                self.waiting = self.links.iter().map(|k| k.queue.len()).sum();
                self.ask(now, out);
            }
            let room = s.me.psdu.min(self.p.max_ampdu_bytes);
            let max = usize::from(self.max_per_exchange());
            let mut chosen: Vec<(u16, u32, Item)> = Vec::new();
            let mut padded = 0u32;
            for (sn, item) in self.links[l].orig.pending().take(max) {
                let grown = padded + subframe_bytes(item.bytes, true);
                if grown > room {
                    break;
                }
                psdu = grown;
                padded += subframe_bytes(item.bytes, false);
                chosen.push((sn, item.bytes, item.clone()));
            }
            if !chosen.is_empty() {
                self.psdu_mpdus(l, chosen, AckPolicy::Normal, &mut mpdus);
                self.stats.mpdus_per_ppdu[mpdus.len()] += 1;
                self.stats.tb_data_shares += 1;
                self.counters.attempts += 1;
                if mpdus.iter().any(|m| m.retry) {
                    self.counters.retries += 1;
                }
                self.order += 1;
                self.links[l].head_order = self.order;
                s.link = Some(l);
            }
        }
        self.refresh_has_frame();
        let held: u32 = self
            .links
            .iter()
            .filter(|l| l.ra == s.ap)
            .map(|l| l.queue.iter().map(|i| i.bytes).sum::<u32>() + l.orig.pending().map(|(_, i)| i.bytes).sum::<u32>())
            .sum();
        let queue = if saturated { u32::MAX } else { held };
        self.tb = Some(s);
        TbShare { mpdus, psdu: psdu.max(QOS_NULL_LEN), queue }
    }

    /// Our HE TB PPDU is due: our share goes in as our user's. `None`: the
    /// PPDU already started from another user, with our share in it.
    pub(super) fn tb_fill_own(&mut self, now: SimTime, mut f: Frame, out: &mut impl MacSink) -> Option<Frame> {
        if !f.mu.as_ref().is_some_and(|m| m.uplink) {
            return Some(f);
        }
        if !self.tb_filling() {
            return None;
        }
        let share = self.tb_share(now, out);
        let me = self.addr;
        let mu = f.mu.as_mut().expect("checked");
        let u = mu.users.iter_mut().find(|u| u.addr == me).expect("a user of our HE TB PPDU");
        u.count = share.mpdus.len() as u32;
        u.psdu = share.psdu;
        u.queue = Some(share.queue);
        if let Some(m) = share.mpdus.first() {
            f.seq = m.seq;
            f.retry = m.retry;
        }
        f.mpdu_bytes = share.psdu;
        f.mpdus = Mpdus::many(share.mpdus);
        Some(f)
    }

    /// The medium takes our share as another user's HE TB PPDU starts:
    /// ours, due at this instant, is not sent.
    pub(super) fn tb_take(&mut self, now: SimTime, out: &mut impl MacSink) -> Option<TbShare> {
        if !self.tb_filling() {
            return None;
        }
        if let Some(f) = self.seq.take_due(now) {
            debug_assert!(f.mu.as_ref().is_some_and(|m| m.uplink), "a frame due with our HE TB PPDU");
        }
        Some(self.tb_share(now, out))
    }

    /// A multi-STA BlockAck ended here: settle our share by our BlockAck
    /// in it (none: wait for the deadline).
    pub(super) fn tb_block_ack(&mut self, now: SimTime, f: &Frame, out: &mut impl MacSink) {
        let Some(s) = self.tb.as_ref() else { return };
        if s.filling || f.ta != s.ap {
            return;
        }
        let Some(u) = f.mu.as_ref().and_then(|m| m.user(self.addr)) else { return };
        let Some(MpduBody::BlockAck { start_seq, bitmap, .. }) =
            f.mpdus.as_slice().get(u.first as usize).map(|m| &m.body)
        else {
            return;
        };
        let (start_seq, bitmap) = (*start_seq, **bitmap);
        let s = self.tb.take().expect("checked");
        self.stats.block_acks += 1;
        if let Some(l) = s.link {
            let res = self.links[l].orig.on_block_ack(start_seq, bitmap);
            let acked = !res.acked.is_empty();
            settle_block_ack(&mut self.stats, &mut self.counters, &mut self.receipts, res, out);
            self.refresh_bar(l);
            // 26.2.7: QoS Data of this AC went in an HE TB PPDU and the
            // immediate response acknowledged some of it: MU EDCA.
            if !s.bar && acked {
                self.mu_edca_start(now, self.links[l].ac as usize);
            }
        }
        self.refresh_has_frame();
        self.resume();
    }

    /// A BlockAckReq still due on link `l` after its share was settled
    /// starts at the window as it is now (data went out in between; an
    /// older starting sequence number would lag the recipient's window).
    fn refresh_bar(&mut self, l: usize) {
        let o = &mut self.links[l].orig;
        if o.take_bar().is_some() {
            o.request_bar();
        }
    }

    /// No multi-STA BlockAck for our share: its MPDUs failed.
    fn tb_failed(&mut self, s: &TbSta, out: &mut impl MacSink) {
        let Some(l) = s.link else { return };
        self.counters.failures += 1;
        if s.bar {
            // The BlockAckReq got no BlockAck: ask again next time.
            self.links[l].orig.request_bar();
            return;
        }
        let res = self.links[l].orig.on_timeout();
        for it in res.dropped {
            self.counters.drops_retry_limit += 1;
            out.push(self.receipts.discard(it.msdu.id));
        }
        self.refresh_bar(l);
        self.refresh_has_frame();
        self.resume();
    }
}

#[cfg(test)]
#[path = "ul_tests.rs"]
mod tests;
