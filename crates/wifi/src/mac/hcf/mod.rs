//! The hybrid coordination function's contention-based channel access,
//! EDCA (IEEE 802.11-2020 10.22.2), with QoS Data, TXOPs, and immediate
//! BlockAck (10.25): A-MPDUs on HT (802.11n), blocks of SIFS-separated
//! frames on non-HT PHYs (802.11e over 802.11a/g), or one acknowledged
//! MPDU per exchange without an agreement; the No Ack policy per access
//! category (9.2.4.5.4).
//!
//! Pieces, one file each:
//! - `access.rs`: four EDCAFs (AIFS, CW, backoff, internal collisions);
//! - `aggregate.rs`: what the next exchange carries (A-MPDU limits: count,
//!   octets, aPPDUMaxTime, TXOP; the originator's window);
//! - this file: the TXOP (10.22.2.9: after a successful exchange the
//!   holder goes on SIFS later while the next exchange fits in the TXOP
//!   limit; a limit of 0 allows one exchange), the originator side on
//!   `blockack::Originator` (retransmission of unacknowledged MPDUs in the
//!   next exchange, retry limit -> `Dropped(RetryLimit)`, BlockAckReq when
//!   the originator gave up on MPDUs or, with `bar_after_missed_ba`, after
//!   a missed BlockAck);
//! - `rx.rs`: the recipient (reordering buffer on `blockack::Recipient`,
//!   MSDUs passed up in order, ACK / BlockAck responses after SIFS; a
//!   user's share of an HE MU PPDU, the HE TB PPDU a first user sends);
//! - `mu_exchange.rs`: an 802.11ax AP's downlink MU exchange (one HE MU
//!   PPDU of per-station A-MPDUs when its multi-user scheduler picks one,
//!   then MU-BAR, aggregated MU-BAR or SU-format BlockAcks), on the
//!   control frames and airtimes of `mu.rs`;
//! - `ul_exchange.rs`: uplink trigger-based access (the AP's Basic Trigger
//!   and multi-STA BlockAck, a triggered station's share of the HE TB
//!   PPDU).
//!
//! Model choices, each a statement of what is and is not modelled:
//! - ADDBA is not exchanged: every (transmitter, receiver, TID) has an
//!   immediate BlockAck agreement from association, starting sequence
//!   number 0, buffer size `ba_window`, no BlockAck timeout (the agreement
//!   never lapses). The ADDBA Request/Response action frames (10.25.2) of
//!   a real association cost a few hundred us once per agreement.
//! - MSDU to TID: the user priority of the IPv4 packet's DSCP as RFC 8325
//!   maps it (`AccessCategory::user_priority_of_dscp`; e.g. EF voice 6,
//!   AF41 video 4, CS1 background 1). Untagged traffic (DSCP 0) is TID 0,
//!   best effort. The access category follows from the UP by Table 10-1.
//! - A single MPDU under an agreement goes as a plain (non-aggregated)
//!   QoS Data frame with Normal Ack and is answered by an ACK; two or more
//!   form an A-MPDU with Normal Ack policy (the implicit BlockAckReq) and
//!   are answered by a compressed BlockAck (9.3.1.8.3, 32 octets).
//!   Non-HT blocks carry the Block Ack policy, are closed by a BlockAckReq
//!   (24 octets) and answered by a basic BlockAck (152 octets).
//! - A TXOP ends at the first failed exchange (no PIFS recovery,
//!   10.22.2.7 makes it optional); CW doubles and a new backoff starts.
//!   A BlockAck that reports some MPDUs missing is a successful exchange
//!   for CW (10.22.2.7: the TXOP holder received the expected response).
//! - The MAC holds one MSDU that is not yet in a window (what it contends
//!   with) and fills an exchange from its queue at the instant it wins
//!   access: it asks for MSDUs (`Ready`, `Demand::ANY`, arrival order) and
//!   transmits when woken again at the same instant, with up to
//!   `max_mpdus` (as a driver that pulls from its queue when it builds an
//!   aggregate). The queue discipline stays in front, so an ACK filter
//!   there sees the ACKs that wait for the next transmission opportunity.
//!   An AP that serves several receivers thus sends A-MPDUs holding the
//!   MSDUs of one receiver among an exchange's worth in arrival order.
//!   With `HcfParams::mac_queue` the MAC keeps per-receiver queues of that
//!   many MSDUs instead, as ns-3's WifiMacQueue, so each A-MPDU is filled
//!   from its receiver's own backlog.
//! - Non-HT blocks and TXOP limit 0: one block per TXOP (the block and its
//!   BlockAckReq/BlockAck exchange are one "frame exchange sequence").
//!
//! Invariants: every MSDU given to the MAC leaves as exactly one of
//! `Acked` or `Dropped` at the originator; the recipient delivers each
//! MSDU at most once and, per (transmitter, TID), in sequence-number
//! order; `next_wakeup` is exact after every input; at most one frame
//! starts per input.
mod access;
mod aggregate;
pub mod mu;
mod mu_exchange;
mod params;
mod poll;
mod rx;
mod ul_exchange;

#[cfg(test)]
mod harness;
#[cfg(test)]
mod tests;

pub use mu_exchange::MuConfig;
pub use params::{HcfParams, HcfStats, BASIC_BLOCK_ACK_LEN};
pub use poll::{PollConfig, QOS_NULL_LEN};

use super::access::{Backoff, CountRule, Deferral, IfsTimes, Intake, MuEdca, MuEdcaParams, Slotting};
use super::api::{Demand, Mac};
use super::blockack::{BaOutcome, Originator, Recipient, MAX_WINDOW};
use super::dcf::MacCounters;
use super::edca::{AccessCategory, EdcaParams};
use super::exchange::{control_frame, cts_duration, needs_rts, rts_for, After, Receipts, Sequence};
use super::frame::{AckPolicy, Frame, FrameKind, MacAddr, MacOutput, MacSink, Mpdu, MpduBody, Mpdus, Msdu};
use crate::phy::PhyTiming;
use std::collections::VecDeque;
use wifitcp_core::{RngStream, SimDur, SimTime};
use wifitcp_wire::wifi_frame::{data_mpdu_len, msdu_len, ACK_LEN, BLOCK_ACK_LEN, BLOCK_ACK_REQ_LEN, CTS_LEN};
use wifitcp_wire::Packet;

/// An MSDU in the MAC: the shared handle and its MPDU length.
#[derive(Clone, Debug)]
pub(super) struct Item {
    msdu: Msdu,
    bytes: u32,
}

/// One EDCAF's state (`access.rs`).
#[derive(Debug)]
struct AcState {
    ac: AccessCategory,
    p: EdcaParams,
    /// Its backoff entity (`mac/access`).
    bo: Backoff,
    /// When its current frame became available.
    ready_at: SimTime,
    /// Some link of this AC has something to send.
    has_frame: bool,
    /// Its MU EDCA parameters and timer (`mac/access`, 802.11ax-2021
    /// 26.2.7; off unless `set_mu_edca`).
    mu: MuEdca,
}

/// The transmit side towards one receiver and TID.
#[derive(Debug)]
struct TxLink {
    ra: MacAddr,
    tid: u8,
    ac: AccessCategory,
    /// MSDUs not yet in the originator's window, in arrival order.
    queue: VecDeque<Item>,
    orig: Originator<Item>,
    /// Arrival order of the oldest MSDU waiting on this link (to serve the
    /// links of one AC in arrival order).
    head_order: u64,
}

impl TxLink {
    fn has_work(&self, block_ack: bool) -> bool {
        !self.queue.is_empty() || self.orig.pending().next().is_some() || (block_ack && self.orig.bar_due())
    }

    /// An exchange may start now: none is under way on the link (no MPDU
    /// in flight: a BlockAck, or its absence, settles every MPDU in flight
    /// at once, `Originator`), and it would carry something: a
    /// BlockAckReq due, an MPDU waiting in the window, or an MSDU the
    /// window takes. A station's HE TB share awaiting its multi-STA
    /// BlockAck is such an exchange (`ul_exchange.rs`: its MPDUs stay in
    /// flight until the BlockAck or the instant it would have ended).
    fn can_send(&self, block_ack: bool) -> bool {
        self.orig.first_in_flight().is_none()
            && ((block_ack && self.orig.bar_due())
                || self.orig.pending().next().is_some()
                || (!self.queue.is_empty() && self.orig.can_accept()))
    }
}

/// The receive side from one transmitter and TID.
#[derive(Debug)]
struct RxLink {
    ta: MacAddr,
    tid: u8,
    rec: Recipient<Msdu>,
}

/// The TXOP this station holds.
#[derive(Debug, Clone, Copy)]
struct Txop {
    /// Index of the EDCAF.
    ac: usize,
    /// The link of the current exchange.
    link: usize,
    /// End of the TXOP limit (`None`: one exchange, TXOP limit 0).
    end: Option<SimTime>,
    /// The current exchange is a BlockAckReq alone.
    bar_only: bool,
    /// Granted by the AP's scheduler (a polled TXOP, or the AP's own in a
    /// service period), not won by contention: its end changes no CW or
    /// backoff (`poll.rs`).
    granted: bool,
}

pub struct Hcf {
    pub addr: MacAddr,
    /// (Boxed, as are the EDCAFs: `AnyMac` stays the size of its DCF.)
    p: Box<HcfParams>,
    rng: RngStream,
    acs: Box<[AcState; 4]>,
    links: Vec<TxLink>,
    rx_links: Vec<RxLink>,
    /// MSDUs in the links' queues (not yet in a window).
    waiting: usize,
    /// Arrival counter of MSDUs.
    order: u64,
    /// The frame exchange in progress (`mac/exchange`): our frame on the
    /// air and what follows it, the response awaited, the frame due (a
    /// response, the next frame of a block or of the TXOP), the data frame
    /// an RTS protects.
    seq: Sequence<Frame>,
    /// The rest of the current block, after the frame due.
    block: VecDeque<Frame>,
    /// The AP's polling (`poll.rs`; `None`: the AP does not poll, or a
    /// station).
    poller: Option<Box<poll::Poller>>,
    /// A QoS CF-Poll granted us a TXOP: (its start, its end, the AP).
    grant: Option<(SimTime, SimTime, MacAddr)>,
    /// The end of the granted TXOP being filled (`access_at`).
    granted_end: Option<SimTime>,
    /// A polled station holding its traffic for the polls until this
    /// instant (`HcfParams::poll_hold`, `poll.rs`): its EDCAFs do not
    /// count; `SimTime::ZERO`: not held.
    held_until: SimTime,
    txop: Option<Txop>,
    /// The EDCAF that won access at this instant and transmits once the
    /// queue has topped up the exchange (module docs).
    access_at: Option<(SimTime, usize)>,
    /// Carrier sense (`mac/access`).
    cs: Deferral,
    /// When the MAC last asked for an MSDU (`mac/access/arrival.rs`).
    intake: Intake,
    /// The slot time and EDCA's counting rule; the IFS.
    slotting: Slotting,
    ifs_times: IfsTimes,
    /// What reached the receivers (the medium's verdicts).
    receipts: Receipts,
    pub counters: MacCounters,
    pub stats: HcfStats,
    /// An AP's multi-user transmissions (`mu_exchange.rs`; `None`: SU only).
    mu: Option<Box<mu_exchange::MuState>>,
    /// A station's part in an uplink exchange (`ul_exchange.rs`).
    tb: Option<Box<ul_exchange::TbSta>>,
    /// The earliest MU EDCA timer expiry of the EDCAFs (`SimTime::NEVER`:
    /// none running).
    mu_edca_next: SimTime,
}

impl Hcf {
    pub fn new(addr: MacAddr, p: HcfParams, rng: RngStream) -> Hcf {
        assert!((1..=MAX_WINDOW).contains(&p.ba_window) && (1..=p.ba_window).contains(&p.max_mpdus));
        let hist = usize::from(p.ba_window.max(64)) + 1;
        let acs = AccessCategory::ALL.map(|ac| {
            let e = *p.edca.get(ac);
            AcState {
                ac,
                p: e,
                bo: Backoff::new(e.cw_min),
                ready_at: SimTime::ZERO,
                has_frame: false,
                mu: MuEdca::default(),
            }
        });
        let slotting = Slotting::new(p.timing.slot, CountRule::Edca);
        let ifs_times = IfsTimes { difs: p.timing.difs, eifs: p.timing.eifs };
        Hcf {
            addr,
            p: Box::new(p),
            rng,
            acs: Box::new(acs),
            links: Vec::new(),
            rx_links: Vec::new(),
            waiting: 0,
            order: 0,
            seq: Sequence::default(),
            block: VecDeque::new(),
            poller: None,
            grant: None,
            granted_end: None,
            held_until: SimTime::ZERO,
            txop: None,
            access_at: None,
            cs: Deferral::new(),
            intake: Intake::new(),
            slotting,
            ifs_times,
            receipts: Receipts::default(),
            counters: MacCounters::default(),
            stats: HcfStats { mpdus_per_ppdu: vec![0; hist], ..HcfStats::default() },
            mu: None,
            tb: None,
            mu_edca_next: SimTime::NEVER,
        }
    }

    /// The MU EDCA Parameter Set this (HE non-AP) station received from its
    /// AP, indexed by `AccessCategory as usize` (`mac/access` `mu_edca.rs`;
    /// a timer of zero leaves that AC on EDCA alone).
    pub fn set_mu_edca(&mut self, set: [MuEdcaParams; 4]) {
        for (a, p) in self.acs.iter_mut().zip(set) {
            a.mu = MuEdca::new(p);
        }
    }

    /// EDCAF `i`'s AIFSN, CWmin and CWmax in use (EDCA or MU EDCA).
    #[cfg(test)]
    pub(crate) fn ac_params_in_use(&self, i: usize) -> (u32, u32, u32, bool) {
        let a = &self.acs[i];
        (a.mu.aifsn(a.p.aifsn), a.mu.cw_min(a.p.cw_min), a.mu.cw_max(a.p.cw_max), a.mu.disabled())
    }

    /// 26.2.7: the HE TB PPDU carried QoS Data of EDCAF `i` and the
    /// multi-STA BlockAck acknowledged it at `now`: the EDCAF switches to
    /// its MU EDCA parameters and (re)starts its timer.
    pub(super) fn mu_edca_start(&mut self, now: SimTime, i: usize) {
        if !self.acs[i].mu.enabled() {
            return;
        }
        self.freeze(now);
        self.acs[i].mu.start(now);
        self.stats.mu_edca_switches += 1;
        if self.acs[i].mu.disabled() {
            // (it counts again one AIFS after the expiry at the earliest)
            self.acs[i].bo.set_count_from(None);
        }
        self.mu_edca_next = self.mu_edca_earliest();
    }

    /// The earliest MU EDCA timer expiry of the EDCAFs.
    fn mu_edca_earliest(&self) -> SimTime {
        self.acs.iter().map(|a| a.mu.expires_at()).min().unwrap_or(SimTime::NEVER)
    }

    /// MU EDCA timers that ran out by `now`: back to the EDCA parameters,
    /// counting resumes (an EDCAF that was disabled defers AIFS first).
    fn mu_edca_expire(&mut self, now: SimTime) {
        if self.mu_edca_next > now {
            return;
        }
        for a in self.acs.iter_mut() {
            a.mu.expire(now);
        }
        self.mu_edca_next = self.mu_edca_earliest();
        self.resume();
    }

    pub fn params(&self) -> &HcfParams {
        &self.p
    }

    /// The TID of an MSDU: the user priority of its DSCP (module docs).
    pub fn tid_of(pkt: &Packet) -> u8 {
        AccessCategory::user_priority_of_dscp(pkt.ip.tos >> 2)
    }

    /// MSDUs the MAC takes from its queue (module docs): one to contend
    /// with, and at the instant it wins access, an exchange's worth; or
    /// its own queues' size (`HcfParams::mac_queue`) if that is more.
    fn hold_limit(&self) -> usize {
        let exchange = if self.access_at.is_some() || self.tb_filling() {
            usize::from(self.max_per_exchange()) * self.mu_width()
        } else {
            1
        };
        exchange.max(self.p.mac_queue)
    }

    fn link_of(&mut self, ra: MacAddr, tid: u8) -> usize {
        if let Some(i) = self.links.iter().position(|l| l.ra == ra && l.tid == tid) {
            return i;
        }
        let ac = AccessCategory::from_up(tid).unwrap_or(AccessCategory::Be);
        // Without an agreement one MPDU is outstanding at a time (the
        // DCF's stop-and-wait), which the originator with window 1 is.
        let win = if self.p.block_ack { self.p.ba_window } else { 1 };
        self.links.push(TxLink {
            ra,
            tid,
            ac,
            queue: VecDeque::new(),
            orig: Originator::new(0, win, self.p.retry_limit),
            head_order: 0,
        });
        self.links.len() - 1
    }

    /// Recompute which EDCAFs have something to send.
    fn refresh_has_frame(&mut self) {
        let mut has = [false; 4];
        let ba = self.p.block_ack;
        for l in &self.links {
            if l.has_work(ba) {
                has[l.ac as usize] = true;
            }
        }
        // (an AP's access request for uplink, `ul_exchange.rs`)
        has[AccessCategory::Be as usize] |= self.ul_req_pending();
        for (a, h) in self.acs.iter_mut().zip(has) {
            a.has_frame = h;
        }
    }

    /// The link EDCAF `ac` serves next, among those that can send
    /// (`TxLink::can_send`): a link with a BlockAckReq due, else round
    /// robin (the link served longest ago, or whose MSDU arrived first).
    fn pick_link(&self, ac: usize) -> Option<usize> {
        let ba = self.p.block_ack;
        let mine = |l: &&TxLink| l.ac as usize == ac && l.can_send(ba);
        if let Some(i) = self.links.iter().position(|l| mine(&l) && l.orig.bar_due()) {
            return Some(i);
        }
        self.links.iter().enumerate().filter(|(_, l)| mine(l)).min_by_key(|(_, l)| l.head_order).map(|(i, _)| i)
    }

    fn mpdu_bytes(pkt: &Packet) -> u32 {
        // QoS Data: the 24-octet header plus QoS Control (2 octets, 9.3.2.1).
        data_mpdu_len(msdu_len(pkt.ip_len())) + 2
    }

    fn block_ack_time(&self) -> SimDur {
        let t = &self.p.timing;
        t.tx_time(self.block_ack_len(), t.control_rate)
    }

    fn block_ack_len(&self) -> u32 {
        if self.p.ba_window > 64 {
            // The 256-bit bitmap of an HE agreement: 24 octets more
            // (802.11ax-2021 9.3.1.8.2).
            BLOCK_ACK_LEN + 24
        } else if self.p.timing.ht.is_some() {
            BLOCK_ACK_LEN
        } else {
            BASIC_BLOCK_ACK_LEN
        }
    }

    fn bar_time(&self) -> SimDur {
        let t = &self.p.timing;
        t.tx_time(BLOCK_ACK_REQ_LEN, t.control_rate)
    }

    fn ack_time(&self) -> SimDur {
        let t = &self.p.timing;
        t.tx_time(ACK_LEN, t.control_rate)
    }

    // ------------------------------------------------------------------
    // Inputs

    fn give(&mut self, now: SimTime, pkt: Packet, ra: MacAddr, out: &mut impl MacSink) {
        let tid = Self::tid_of(&pkt);
        let l = self.link_of(ra, tid);
        let bytes = Self::mpdu_bytes(&pkt);
        self.order += 1;
        let link = &mut self.links[l];
        if !link.has_work(self.p.block_ack) {
            link.head_order = self.order;
        }
        link.queue.push_back(Item { msdu: Msdu::new(pkt), bytes });
        self.waiting += 1;
        let ac = link.ac as usize;
        if !self.acs[ac].has_frame {
            self.frame_arrived(now, ac);
        }
        self.resume();
        if self.waiting < self.hold_limit() {
            self.ask(now, out);
        }
    }

    fn wake(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.mu_edca_expire(now);
        if self.tb.is_some() {
            self.tb_expire(now, out);
        }
        if self.mu.is_some() {
            self.ul_req_tick(now);
        }
        if let Some(f) = self.seq.take_due(now) {
            // (the HE TB PPDU we send for the triggered stations gets our
            // share now, `ul_exchange.rs`)
            let f = if self.tb.is_some() { self.tb_fill_own(now, f, out) } else { Some(f) };
            if let Some(f) = f {
                self.transmit(now, f, out);
                return;
            }
        }
        if self.seq.times_out(now).is_some() {
            self.cs.self_busy_until = now;
            self.exchange_failed(now, out);
            // No reception began: the medium has been idle since the
            // frame ended, and a polling AP may act PIFS after now.
            self.poll_idle(now);
            return;
        }
        if self.grant_wake(now, out) || self.poll_wake(now, out) {
            return;
        }
        self.hold_ends(now);
        let ac = match self.access_at {
            Some((at, ac)) if at == now => {
                self.access_at = None;
                ac
            }
            _ => {
                if self.earliest_access() != Some(now) {
                    return;
                }
                let Some(ac) = self.resolve_internal(now) else { return };
                if self.max_per_exchange() > 1 {
                    // Fill the exchange from the queue at this instant:
                    // ask for MSDUs, transmit when woken again now.
                    self.access_at = Some((now, ac));
                    if self.waiting < self.hold_limit() {
                        self.ask(now, out);
                    }
                    return;
                }
                ac
            }
        };
        self.start_txop(now, ac, out);
    }

    /// Start a TXOP of EDCAF `ac`: won by contention, or granted by a
    /// QoS CF-Poll (`granted_end`, `poll.rs`).
    fn start_txop(&mut self, now: SimTime, ac: usize, out: &mut impl MacSink) {
        let granted = self.granted_end.take();
        if granted.is_none() && self.mu.is_some() && self.mu_start(now, ac, out) {
            return;
        }
        let Some(l) = self.pick_link(ac) else {
            self.refresh_has_frame();
            if granted.is_none() {
                // Nothing to send after all: back off again rather than
                // stall, the new backoff counting from now (the medium has
                // been idle for AIFS at least).
                let k = self.draw(ac);
                self.acs[ac].bo.restart(k);
                self.resume_not_before(now);
            } else {
                self.resume();
            }
            return;
        };
        let end = self.txop_end(ac, now, granted);
        self.txop = Some(Txop { ac, link: l, end, bar_only: false, granted: granted.is_some() });
        let f = self.build_exchange(now, l, granted.is_none(), out);
        let f = self.protect(f);
        self.counters.attempts += 1;
        self.transmit(now, f, out);
    }

    /// When a TXOP of AC `ac` won at `now` ends: the end a coordinator
    /// granted, else `now` plus the AC's TXOP limit; `None` for a limit of
    /// zero (one exchange, whatever its length: 10.22.2.8).
    pub(super) fn txop_end(&self, ac: usize, now: SimTime, granted: Option<SimTime>) -> Option<SimTime> {
        match (granted, self.acs[ac].p.txop_limit) {
            (Some(e), _) => Some(e),
            (None, SimDur::ZERO) => None,
            (None, lim) => Some(now + lim),
        }
    }

    /// The first frame of the next exchange on link `l` (the rest of a
    /// block goes to `self.block`); marks its MPDUs sent.
    fn build_exchange(&mut self, now: SimTime, l: usize, contended: bool, out: &mut impl MacSink) -> Frame {
        let t = self.p.timing.clone();
        if !self.p.block_ack {
            // Without an agreement there is no BlockAckReq: the recipient's
            // duplicate filter (a window of 1) moves with the next MPDU.
            self.links[l].orig.take_bar();
        }
        if let Some(ssn) = self.links[l].orig.take_bar() {
            let tx = self.txop.as_mut().expect("an exchange outside a TXOP");
            tx.bar_only = true;
            tx.link = l;
            self.stats.block_ack_reqs += 1;
            let link = &self.links[l];
            return self.bar_frame(link.ra, link.tid, ssn, contended);
        }
        if self.admit(l) {
            self.waiting = self.links.iter().map(|k| k.queue.len()).sum();
            self.ask(now, out);
        }
        let txop_end = self.txop.and_then(|x| x.end);
        let chosen = self.choose(l, now, txop_end);
        let tx = self.txop.as_mut().expect("an exchange outside a TXOP");
        tx.bar_only = false;
        tx.link = l;
        let (ra, tid, ac) = (self.links[l].ra, self.links[l].tid, self.links[l].ac);
        let no_ack = self.p.no_ack[ac as usize];
        let n = chosen.mpdus.len();
        assert!(n > 0, "an exchange without MPDUs");
        let ht = t.ht.is_some();
        let block = self.p.block_ack && !ht && !no_ack;
        let policy = if no_ack {
            AckPolicy::NoAck
        } else if block {
            AckPolicy::BlockAck
        } else {
            AckPolicy::Normal
        };
        let mut mpdus = Vec::with_capacity(n);
        self.psdu_mpdus(l, chosen.mpdus, policy, &mut mpdus);
        if mpdus.iter().any(|m| m.retry) {
            self.counters.retries += 1;
        }
        // Round robin among the links of the AC: this one goes last.
        self.order += 1;
        self.links[l].head_order = self.order;
        self.refresh_has_frame();
        if block {
            // Non-HT block: one frame per MPDU, SIFS apart, then the
            // BlockAckReq.
            let tail = t.sifs * 2 + self.bar_time() + self.block_ack_time();
            let mut frames: VecDeque<Frame> = VecDeque::with_capacity(n + 1);
            for m in mpdus {
                let air = t.data_ppdu_time(m.bytes);
                self.stats.mpdus_per_ppdu[1] += 1;
                frames.push_back(self.data_frame(ra, m.bytes, air, tail, false, Mpdus::one(m)));
            }
            let win_start = self.links[l].orig.win_start();
            frames.push_back(self.bar_frame(ra, tid, win_start, false));
            let mut first = frames.pop_front().expect("a block without frames");
            first.contended = contended;
            self.block = frames;
            return first;
        }
        self.stats.mpdus_per_ppdu[n] += 1;
        let air = t.data_ppdu_time(chosen.psdu);
        let resp = if no_ack {
            SimDur::ZERO
        } else if n > 1 {
            t.sifs + self.block_ack_time()
        } else {
            t.sifs + self.ack_time()
        };
        let mpdus = if n == 1 { Mpdus::one(mpdus.pop().expect("one")) } else { Mpdus::many(mpdus) };
        self.data_frame(ra, chosen.psdu, air, resp, contended, mpdus)
    }

    fn data_frame(&self, ra: MacAddr, bytes: u32, air: SimDur, duration: SimDur, contended: bool, m: Mpdus) -> Frame {
        let first = m.first().expect("a data frame without MPDUs");
        Frame {
            mu: None,
            kind: FrameKind::QosData,
            ta: self.addr,
            ra,
            duration,
            seq: first.seq,
            retry: first.retry,
            mpdu_bytes: bytes,
            rate: self.p.timing.data_rate,
            airtime: air,
            contended,
            mpdus: m,
        }
    }

    fn bar_frame(&self, ra: MacAddr, tid: u8, ssn: u16, contended: bool) -> Frame {
        let t = &self.p.timing;
        Frame {
            mu: None,
            kind: FrameKind::BlockAckReq,
            ta: self.addr,
            ra,
            duration: t.sifs + self.block_ack_time(),
            seq: 0,
            retry: false,
            mpdu_bytes: BLOCK_ACK_REQ_LEN,
            rate: t.control_rate,
            airtime: self.bar_time(),
            contended,
            mpdus: Mpdus::one(Mpdu {
                seq: 0,
                retry: false,
                tid,
                ack: AckPolicy::Normal,
                bytes: BLOCK_ACK_REQ_LEN,
                body: MpduBody::BlockAckReq { tid, start_seq: ssn },
                fcs_ok: false,
            }),
        }
    }

    /// The first frame of an exchange, or an RTS in front of it when its
    /// PSDU exceeds dot11RTSThreshold (`mac/exchange`, 10.3.2.7): the data
    /// frame then waits for the CTS in the exchange sequence and follows it
    /// after SIFS.
    /// Model choice: the MPDUs count an attempt when the exchange is built,
    /// so an RTS that gets no CTS costs each of them one attempt (as the
    /// DCF's short retry count counts failed RTS), and their next data
    /// frame carries the Retry bit.
    fn protect(&mut self, f: Frame) -> Frame {
        let acked = f.kind.carries_msdus() && f.mpdus.first().is_some_and(|m| m.ack != AckPolicy::NoAck);
        if !needs_rts(f.mpdu_bytes, self.p.rts_threshold, acked) {
            return f;
        }
        let t = &self.p.timing;
        // The data frame's own Duration covers its response (SIFS + ACK or
        // BlockAck, or the rest of a block).
        let rts = rts_for(&f, t.sifs, t.cts_time(), t.control_rate, t.rts_time());
        self.stats.rts += 1;
        self.seq.protect(f, rts)
    }

    /// The CTS answering an RTS from `ta` whose Duration was `rts_duration`.
    fn cts_frame(&self, ta: MacAddr, rts_duration: SimDur) -> Frame {
        let t = &self.p.timing;
        let cts = t.cts_time();
        let duration = cts_duration(rts_duration, t.sifs, cts);
        control_frame(FrameKind::Cts, self.addr, ta, duration, CTS_LEN, t.control_rate, cts)
    }

    fn transmit(&mut self, now: SimTime, f: Frame, out: &mut impl MacSink) {
        let _ = out;
        self.freeze(now);
        let air = f.airtime.as_nanos();
        match f.kind {
            FrameKind::Ack => self.stats.airtime_ack_ns += air,
            FrameKind::BlockAck => self.stats.airtime_block_ack_ns += air,
            FrameKind::BlockAckReq => self.stats.airtime_bar_ns += air,
            FrameKind::Rts | FrameKind::Cts => self.stats.airtime_rts_cts_ns += air,
            _ => self.stats.airtime_data_ns += air,
        }
        if self.poller.is_some() && f.kind.carries_msdus() {
            for m in f.mpdus.iter() {
                self.poll_observe(now, f.ra, m.bytes);
            }
        }
        self.seq.started(After::of(&f));
        self.cs.self_busy_until = now + f.airtime;
        out.push(MacOutput::StartTx(f));
    }

    fn tx_end(&mut self, now: SimTime, out: &mut impl MacSink) {
        // What follows is the frame's own rule (`After::of`); a response it
        // solicits is awaited from now.
        let after = self.seq.ended(now, self.p.timing.ack_timeout());
        self.cs.self_busy_until = now;
        if after.frees_medium() {
            self.poll_idle(now);
        }
        match after {
            After::Nothing | After::Await(_) => {}
            After::Block => {
                let next = self.block.pop_front().expect("a block frame without a successor");
                self.seq.schedule(now + self.p.timing.sifs, next);
            }
            After::NoAckDone => {
                let l = self.txop.expect("No Ack exchange outside a TXOP").link;
                let o = &mut self.links[l].orig;
                let first = o.first_in_flight().expect("No Ack exchange without MPDUs");
                let res = o.on_block_ack(first, crate::mac::blockack::Bitmap::FULL);
                for it in res.acked {
                    self.counters.successes += 1;
                    out.push(MacOutput::Acked(it.msdu.id));
                }
                self.exchange_succeeded(now, out);
            }
        }
        self.resume();
    }

    /// The expected response arrived (or a No Ack exchange ended): go on
    /// within the TXOP if the next exchange fits, else end it.
    fn exchange_succeeded(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.seq.close();
        self.refresh_has_frame();
        let tx = self.txop.expect("an exchange outside a TXOP");
        if let Some(end) = tx.end {
            if let Some(l) = self.pick_link(tx.ac) {
                // The shortest next exchange: SIFS, one MPDU, SIFS, ACK.
                let t = &self.p.timing;
                let bytes = self.links[l]
                    .orig
                    .pending()
                    .next()
                    .map(|(_, i)| i.bytes)
                    .or_else(|| self.links[l].queue.front().map(|i| i.bytes))
                    .unwrap_or(0);
                let min = t.sifs * 2 + t.data_ppdu_time(bytes) + self.ack_time();
                if now + min <= end {
                    let at = now + t.sifs;
                    let f = self.build_exchange(at, l, false, out);
                    let f = self.protect(f);
                    self.seq.schedule(at, f);
                    return;
                }
            }
        }
        self.end_txop(now, true);
    }

    /// The TXOP ends: CW reset to CWmin (after a success, or a discard at
    /// the retry limit), else doubled; a new backoff either way (10.22.2.7,
    /// post-backoff).
    fn end_txop(&mut self, now: SimTime, reset_cw: bool) {
        let Some(tx) = self.txop.take() else { return };
        let i = tx.ac;
        if tx.granted {
            // A granted TXOP leaves the EDCAF's CW and backoff as they were.
            self.cs.self_busy_until = self.cs.self_busy_until.max(now);
            self.refresh_has_frame();
            self.resume();
            return;
        }
        if reset_cw {
            let a = &mut self.acs[i];
            a.bo.cw = a.mu.cw_min(a.p.cw_min);
        } else {
            self.grow_cw(i);
        }
        let k = self.draw(i);
        self.acs[i].bo.restart(k);
        self.cs.self_busy_until = self.cs.self_busy_until.max(now);
        self.refresh_has_frame();
        self.resume();
    }

    /// No valid response: the MPDUs in flight wait for retransmission or
    /// are dropped at the retry limit; the TXOP ends.
    fn exchange_failed(&mut self, now: SimTime, out: &mut impl MacSink) {
        if self.mu_busy() {
            return self.mu_failed(now, out);
        }
        self.seq.close();
        self.counters.failures += 1;
        if self.seq.drop_protected() {
            self.stats.cts_failures += 1;
        }
        let tx = self.txop.expect("a failed exchange outside a TXOP");
        let o = &mut self.links[tx.link].orig;
        let res = o.on_timeout();
        let aggregate = res.to_retry + res.dropped.len() > 1;
        if self.p.bar_after_missed_ba && aggregate && !tx.bar_only && o.outstanding() > 0 {
            o.request_bar();
        }
        if tx.bar_only {
            // The BlockAckReq got no BlockAck: ask again next time.
            o.request_bar();
        }
        let gave_up = !res.dropped.is_empty();
        for it in res.dropped {
            self.counters.drops_retry_limit += 1;
            out.push(self.receipts.discard(it.msdu.id));
        }
        self.block.clear();
        // 10.22.2.7: CW doubles after a failure, and returns to CWmin when
        // the retry count reaches its limit (here: an MPDU was discarded).
        self.end_txop(now, gave_up);
    }

    /// A response addressed to us ended: ACK or BlockAck.
    fn rx_response(&mut self, now: SimTime, f: &Frame, out: &mut impl MacSink) {
        let Some(w) = self.seq.awaiting() else { return };
        if self.mu_busy() && f.kind != FrameKind::Cts {
            return self.mu_rx_response(now, f, out);
        }
        let tx = self.txop.expect("awaiting a response outside a TXOP");
        let link = &mut self.links[tx.link];
        if !w.accepts(f.kind) || f.ta != link.ra {
            self.exchange_failed(now, out);
            return;
        }
        if f.kind == FrameKind::Cts {
            // The data frame follows SIFS after the CTS (10.3.2.7).
            self.seq.cts_arrived(now, self.p.timing.sifs);
            self.cs.self_busy_until = now;
            return;
        }
        let res = match f.kind {
            FrameKind::Ack => {
                let first = link.orig.first_in_flight().expect("an ACK without an MPDU in flight");
                link.orig.on_block_ack(first, crate::mac::blockack::Bitmap::from_u64(1))
            }
            _ => {
                let Some(MpduBody::BlockAck { start_seq, bitmap, .. }) = f.mpdus.first().map(|m| &m.body) else {
                    panic!("a BlockAck without its bitmap")
                };
                self.stats.block_acks += 1;
                link.orig.on_block_ack(*start_seq, **bitmap)
            }
        };
        settle_block_ack(&mut self.stats, &mut self.counters, &mut self.receipts, res, out);
        self.cs.self_busy_until = now;
        self.exchange_succeeded(now, out);
    }

    /// Append the MPDUs chosen from link `l` for a PSDU to `mpdus`, with
    /// acknowledgement policy `ack`: each marked a retry if its sequence
    /// number went out before (counted), and recorded as sent by the
    /// link's originator. The single-user and the multi-user exchange
    /// build their PSDUs with it.
    pub(super) fn psdu_mpdus(
        &mut self,
        l: usize,
        chosen: impl IntoIterator<Item = (u16, u32, Item)>,
        ack: AckPolicy,
        mpdus: &mut Vec<Mpdu>,
    ) {
        let tid = self.links[l].tid;
        for (sn, bytes, item) in chosen {
            let o = &mut self.links[l].orig;
            let retry = o.attempts(sn) > 0;
            if retry {
                self.stats.mpdu_retransmissions += 1;
            }
            o.sent(sn);
            mpdus.push(Mpdu { seq: sn, retry, tid, ack, bytes, body: MpduBody::Msdu(item.msdu), fcs_ok: false });
        }
    }

    fn held_items(&self) -> impl Iterator<Item = &Packet> {
        let tx = self.links.iter().flat_map(|l| l.queue.iter().chain(l.orig.items())).map(|i| &*i.msdu);
        let rx = self.rx_links.iter().flat_map(|r| r.rec.items()).map(|m| &**m);
        tx.chain(rx)
    }
}

impl Mac for Hcf {
    #[inline]
    fn addr(&self) -> MacAddr {
        self.addr
    }
    #[inline]
    fn timing(&self) -> &PhyTiming {
        &self.p.timing
    }
    #[inline]
    fn demand(&self) -> Option<Demand> {
        (self.waiting < self.hold_limit()).then_some(Demand::ANY)
    }
    fn give_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr, out: &mut impl MacSink) {
        self.give(now, pkt, ra, out)
    }
    fn on_cca(&mut self, now: SimTime, busy: bool, out: &mut impl MacSink) {
        if busy {
            self.freeze(now);
            self.cs.cca(now, true);
            self.poll_busy();
            // 10.3.2.9: the candidate response (`ResponseWait`).
            self.seq.energy(now, self.p.timing.rx_phy_start_delay);
        } else {
            self.cs.cca(now, false);
            self.poll_idle(now);
            if self.seq.reception_ended_without_response() {
                self.exchange_failed(now, out);
            }
            self.resume();
        }
    }
    fn on_rx_start(&mut self, now: SimTime) {
        self.seq.energy(now, self.p.timing.rx_phy_start_delay);
    }
    #[inline]
    fn idle_may_emit(&self) -> bool {
        self.seq.reception_ended_without_response()
    }
    fn on_rx_end(&mut self, now: SimTime, f: &mut Frame, ok: bool, out: &mut impl MacSink) {
        self.rx_end(now, f, ok, out)
    }
    fn on_tx_end(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.tx_end(now, out)
    }
    fn on_verdict(&mut self, _: SimTime, f: &Frame, received: bool, out: &mut impl MacSink) {
        if f.mu.is_some() {
            self.mu_verdict(f, received);
        }
        self.receipts.verdict(f, received, out)
    }
    fn on_wake(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.wake(now, out)
    }
    fn next_wakeup(&self) -> SimTime {
        let mut t = self.seq.timer().min(self.poll_timer()).min(self.ul_req_timer()).min(self.mu_edca_next);
        if let Some((at, _)) = self.access_at {
            t = t.min(at);
        }
        if let Some((at, _, _)) = self.grant {
            t = t.min(at);
        }
        if self.held_until != SimTime::ZERO {
            t = t.min(self.held_until);
        }
        match self.earliest_access() {
            Some(c) => t.min(c),
            None => t,
        }
    }
    fn held(&self) -> impl Iterator<Item = &Packet> {
        self.held_items()
    }
    fn take_tb_share(&mut self, now: SimTime, out: &mut impl MacSink) -> Option<super::mu_frame::TbShare> {
        self.tb_take(now, out)
    }
    #[inline]
    fn counters(&self) -> MacCounters {
        self.counters.clone()
    }
}

/// Tell what a BlockAck (or the Ack standing for one) decided: the MPDUs
/// it left to retry or dropped count as bitmap losses, each acknowledged
/// MSDU is reported, each dropped one discarded (its receipt says whether
/// it reached the receiver). Single-user and multi-user exchanges alike.
pub(super) fn settle_block_ack(
    stats: &mut HcfStats,
    counters: &mut MacCounters,
    receipts: &mut Receipts,
    res: BaOutcome<Item>,
    out: &mut impl MacSink,
) {
    stats.bitmap_losses += (res.to_retry + res.dropped.len()) as u64;
    for it in res.acked {
        counters.successes += 1;
        out.push(MacOutput::Acked(it.msdu.id));
    }
    for it in res.dropped {
        counters.drops_retry_limit += 1;
        out.push(receipts.discard(it.msdu.id));
    }
}
