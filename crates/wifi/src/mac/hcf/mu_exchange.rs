//! The AP's downlink multi-user exchange (IEEE 802.11ax-2021 26.5.1): when
//! the AP wins an EDCA TXOP and its multi-user scheduler
//! (`mac::sched::mu`, ns-3's round robin) picks a downlink MU PPDU, one
//! A-MPDU per selected station on its RU goes out as one HE MU PPDU, and
//! the stations acknowledge it as `mu.rs` lays out:
//! - MU-BAR (`DlAck::MuBar`): SIFS, the MU-BAR Trigger frame, SIFS, the
//!   HE TB PPDU of the users' BlockAcks;
//! - aggregated MU-BAR (`DlAck::AggregatedMuBar`): each A-MPDU carries its
//!   user's Trigger (the MPDUs' Normal Ack policy solicits the HE TB PPDU),
//!   SIFS, the HE TB PPDU;
//! - SU format (`DlAck::SuFormat`): the first user's MPDUs carry Normal
//!   Ack and it answers with a BlockAck after SIFS, the others' carry Block
//!   Ack and each is asked by a BlockAckReq, SIFS apart.
//!
//! Rules:
//! - A-MPDU sizes: per user the MPDUs its originator has pending, oldest
//!   first, at most `max_mpdus` and `max_ampdu_bytes`, while the HE MU PPDU
//!   (its longest user, `phy::he_mu::mu_txtime`) stays within aPPDUMaxTime
//!   and, with a TXOP limit, the whole exchange within the TXOP.
//! - MPDUs count an attempt when sent (as SU exchanges do); the BlockAck
//!   answers go through each user's `blockack::Originator` (acknowledged,
//!   retransmitted in a later exchange, dropped at the retry limit).
//! - HE TB PPDU of BlockAcks: one transmission by the first user
//!   (`mac::mu_frame`); each user's BlockAck reports the MPDUs that
//!   reached it (the medium's per-user verdicts, `Mac::on_verdict`, kept
//!   until acknowledged: what its recipient's scoreboard holds). Model
//!   choice: the users' BlockAcks share the fate of the one HE TB PPDU
//!   (judged at the AP from the first user's link). In SU format each
//!   BlockAck is the user's own frame.
//! - A missing response (BlockAck timeout) fails every user whose
//!   BlockAck had not come: their in-flight MPDUs wait for retransmission
//!   or are dropped at the retry limit; the TXOP ends with CW doubled (as
//!   a failed SU exchange).
//! - When it wins access the AP takes up to `max_mpdus` MSDUs per
//!   associated station from its queue discipline, in the discipline's
//!   order (as a driver filling per-station queues; ns-3 keeps a MAC queue
//!   per station), so that any station the scheduler picks can fill its
//!   RU.
//! - Only when the AP wins access by contention (a polled TXOP stays SU),
//!   and not while a link of the access category owes a BlockAckReq (the
//!   SU path sends it first).
use super::mu::{mu_bar_len, DlAck, MuPhy};
use super::{Hcf, Item, Txop};
use crate::mac::blockack::{sn_dist, sn_lt, Bitmap};
use crate::mac::frame::{AckPolicy, Frame, FrameKind, MacAddr, MacSink, Mpdu, MpduBody, Mpdus};
use crate::mac::mu_frame::{MuInfo, MuUserTx};
use crate::mac::sched::{MuTx, MuView, MultiUserScheduler, RoundRobinConfig, RoundRobinMu};
use crate::phy::he::HeGi;
use crate::phy::he_mu::{self, MuUser};
use crate::phy::ht::subframe_bytes;
use crate::phy::ppdu::{TxVector, PPDU_MAX_TIME};
use crate::phy::ChannelWidth;
use wifitcp_core::{SimDur, SimTime};

/// One user's MPDUs (sequence number, octets, item) and PSDU octets.
type UserMpdus = (Vec<(u16, u32, Item)>, u32);

/// What the AP's multi-user transmissions use (`mac.ofdma` and friends).
#[derive(Clone, Debug)]
pub struct MuConfig {
    /// Downlink MU PPDUs (`mac.ofdma` "dl" or "dl+ul").
    pub dl: bool,
    /// Uplink trigger-based access (`ul_exchange.rs`).
    pub ul: bool,
    /// The AP asks for channel access this often to trigger uplink
    /// transmissions (ns-3's AccessReqInterval); zero: only when it holds
    /// downlink data.
    pub access_req: SimDur,
    /// Stations per MU PPDU at most (ns-3's NStations).
    pub max_stations: u32,
    /// How long the AP trusts a station's buffer status report (ns-3's
    /// BsrLifetime, 20 ms); after it the station's status is unknown
    /// (`ul_exchange.rs`).
    pub bsr_lifetime: SimDur,
    /// The stations' QoS Data frames carry their Queue Size (ns-3's
    /// SetQueueSize); false: only their QoS Null frames do.
    pub queue_size_in_data: bool,
    /// A BSRP Trigger before a Basic Trigger for stations without a fresh
    /// report (ns-3's EnableBsrp analogue, `mac::sched::mu`,
    /// `ul_exchange.rs`).
    pub bsrp: bool,
    /// The rate of the AP's Trigger frames (Basic and BSRP; a non-HT
    /// rate); `None`: the control rate. ns-3 3.37 sends a Trigger to
    /// several stations at its non-unicast mode (6 Mbit/s by default).
    pub trigger_rate: Option<crate::phy::Rate>,
    pub ack: DlAck,
    /// The associated HE stations, in association order.
    pub stations: Vec<MacAddr>,
}

impl MuConfig {
    /// The rate and airtime of a Trigger frame of `len` octets, Basic or
    /// BSRP: `trigger_rate`, else the control rate.
    pub(super) fn trigger_air(&self, t: &crate::phy::PhyTiming, len: u32) -> (crate::phy::Rate, SimDur) {
        let rate = self.trigger_rate.unwrap_or(t.control_rate);
        (rate, t.tx_time(len, rate))
    }
}

/// The HE PHY parameters of the BSS's MU PPDUs (from the data TXVECTOR).
#[derive(Clone, Copy, Debug)]
pub(super) struct HePhy {
    pub(super) width: ChannelWidth,
    pub(super) gi: HeGi,
    pub(super) pe_us: u8,
    pub(super) mcs: u8,
    pub(super) nss: u8,
}

/// One user of the exchange under way.
#[derive(Debug)]
struct Served {
    addr: MacAddr,
    link: usize,
    /// Its BlockAck came (SU format).
    done: bool,
}

/// The AP's multi-user state.
#[derive(Debug)]
pub(super) struct MuState {
    pub(super) cfg: MuConfig,
    pub(super) phy: HePhy,
    sched: RoundRobinMu,
    /// The exchange under way.
    cur: Option<Vec<Served>>,
    /// Per link: sequence numbers that reached the recipient and are not
    /// yet acknowledged.
    reached: Vec<Vec<u16>>,
    /// The uplink exchange under way: the triggered stations.
    pub(super) ul: Option<Vec<MacAddr>>,
    /// The uplink exchange under way answers a BSRP Trigger.
    pub(super) ul_bsrp: bool,
    /// Each associated station's last reported buffer status (octets,
    /// `u32::MAX`: more than 254 x 256) and when it came (`None`: never).
    pub(super) bsr: Vec<(MacAddr, Option<(u32, SimTime)>)>,
    /// The next access request (uplink; `SimTime::NEVER`: none).
    pub(super) next_req: SimTime,
    /// An access request is pending: the best-effort EDCAF contends as if
    /// it held a frame.
    pub(super) req: bool,
}

impl Hcf {
    /// Make this HCF (an AP's, on an HE PHY) send downlink MU PPDUs.
    /// Panics on a PHY without HE data frames (the scenario checks it).
    pub fn set_mu(&mut self, cfg: MuConfig) {
        let Some(TxVector::He(v)) = self.p.timing.ht else { panic!("OFDMA needs the HE PHY") };
        let phy =
            HePhy { width: v.width(), gi: v.gi(), pe_us: v.pe_us(), mcs: v.mcs().index(), nss: v.streams() as u8 };
        let sched = RoundRobinMu::new(RoundRobinConfig {
            max_stations: cfg.max_stations,
            dl: cfg.dl,
            ul: cfg.ul,
            bsrp: cfg.bsrp,
            ..RoundRobinConfig::default()
        });
        let bsr = cfg.stations.iter().map(|&a| (a, None)).collect();
        let next_req =
            if cfg.ul && cfg.access_req > SimDur::ZERO { SimTime::ZERO + cfg.access_req } else { SimTime::NEVER };
        self.mu = Some(Box::new(MuState {
            cfg,
            phy,
            sched,
            cur: None,
            reached: Vec::new(),
            ul: None,
            ul_bsrp: false,
            bsr,
            next_req,
            req: false,
        }));
    }

    /// Exchanges' worth of MSDUs the MAC holds when it wins access (module
    /// docs): one per associated station with OFDMA (the scheduler may
    /// pick any of them), else 1.
    pub(super) fn mu_width(&self) -> usize {
        match &self.mu {
            Some(m) if m.cfg.dl => m.cfg.stations.len().max(1),
            _ => 1,
        }
    }

    /// An MU exchange is under way.
    #[inline]
    pub(super) fn mu_busy(&self) -> bool {
        self.mu.as_ref().is_some_and(|m| m.cur.is_some() || m.ul.is_some())
    }

    pub(super) fn mu_phy<'a>(&'a self, m: &MuState) -> MuPhy<'a> {
        let bitmap_octets = if self.p.ba_window > 64 { 32 } else { 8 };
        MuPhy { timing: &self.p.timing, width: m.phy.width, gi: m.phy.gi, pe_us: m.phy.pe_us, bitmap_octets }
    }

    /// EDCAF `ac` won a TXOP by contention at `now`: send a downlink MU
    /// PPDU or a Basic Trigger (`ul_exchange.rs`) if the scheduler picks
    /// one (true), else leave the TXOP to the SU path (false).
    pub(super) fn mu_start(&mut self, now: SimTime, ac: usize, out: &mut impl MacSink) -> bool {
        if self.mu.is_none() {
            return false;
        }
        // (an access request is answered by this access, whatever follows)
        self.ul_req_answered(now);
        let m = self.mu.as_ref().expect("checked");
        if !(m.cfg.dl || m.cfg.ul) || !self.p.block_ack || self.p.no_ack[ac] {
            return false;
        }
        let ba = self.p.block_ack;
        let mine = |l: &&super::TxLink| l.ac as usize == ac && l.has_work(ba);
        if self.links.iter().filter(mine).any(|l| l.orig.bar_due()) {
            return false;
        }
        let mut dl: Vec<MacAddr> =
            if m.cfg.dl { self.links.iter().filter(mine).map(|l| l.ra).collect() } else { Vec::new() };
        dl.dedup();
        if dl.is_empty() && !m.cfg.ul {
            return false;
        }
        let stations: Vec<(MacAddr, Option<u32>)> = if m.cfg.ul {
            // (a report older than the lifetime is unknown)
            let fresh = |&(q, at): &(u32, SimTime)| (now.saturating_since(at) <= m.cfg.bsr_lifetime).then_some(q);
            m.bsr.iter().map(|(a, r)| (*a, r.as_ref().and_then(fresh))).collect()
        } else {
            m.cfg.stations.iter().map(|&a| (a, None)).collect()
        };
        let view = MuView { width: m.phy.width, stations: &stations, dl: &dl };
        let m = self.mu.as_mut().expect("checked");
        let alloc = match m.sched.select(now, &view) {
            MuTx::Dl(alloc) => alloc,
            MuTx::Ul(alloc) => return self.ul_start(now, ac, &alloc, out),
            MuTx::Bsrp(alloc) => return self.bsrp_start(now, ac, &alloc, out),
            MuTx::Su => return false,
        };
        let (phy, ack) = (m.phy, m.cfg.ack);
        // Each user's link: the one of this AC with work, served longest ago.
        let mut users: Vec<(MacAddr, usize, MuUser)> = Vec::new();
        for (addr, ru) in &alloc.users {
            let l = self
                .links
                .iter()
                .enumerate()
                .filter(|(_, l)| l.ra == *addr && l.ac as usize == ac && l.has_work(ba))
                .min_by_key(|(_, l)| l.head_order)
                .map(|(i, _)| i)
                .expect("the scheduler picks stations with data");
            let u = MuUser::new(*ru, phy.mcs, phy.nss).expect("the data MCS and streams are HE's");
            users.push((*addr, l, u));
        }
        let mut admitted = false;
        for &(_, l, _) in &users {
            admitted |= self.admit(l);
        }
        if admitted {
            self.waiting = self.links.iter().map(|k| k.queue.len()).sum();
            self.ask(now, out);
        }
        let end = self.txop_end(ac, now, None);
        let chosen = self.mu_choose(now, &users, end, ack, phy);
        // Users left without MPDUs (none pending) drop out.
        let (users, chosen): (Vec<_>, Vec<_>) = users.into_iter().zip(chosen).filter(|(_, c)| !c.0.is_empty()).unzip();
        if users.is_empty() {
            return false;
        }
        self.mu_send(now, ac, end, &users, chosen, ack, phy, out);
        true
    }

    /// The MPDUs of each user (sequence number, octets, item) and its PSDU
    /// octets, within the limits of the module docs.
    fn mu_choose(
        &self,
        now: SimTime,
        users: &[(MacAddr, usize, MuUser)],
        end: Option<SimTime>,
        ack: DlAck,
        phy: HePhy,
    ) -> Vec<UserMpdus> {
        let m = self.mu.as_ref().expect("an MU AP");
        let p = self.mu_phy(m);
        let ru: Vec<MuUser> = users.iter().map(|u| u.2).collect();
        let mut psdu = vec![0u32; users.len()];
        let mut out = Vec::with_capacity(users.len());
        let budget = end.map(|e| e.saturating_since(now));
        let max = usize::from(self.max_per_exchange());
        for (i, &(_, l, _)) in users.iter().enumerate() {
            let mut v: Vec<(u16, u32, Item)> = Vec::new();
            let mut padded = 0u32;
            for (sn, item) in self.links[l].orig.pending().take(max) {
                let b = item.bytes;
                let grown_padded = padded + subframe_bytes(b, false);
                let grown = grown_padded - subframe_bytes(b, false) + subframe_bytes(b, true);
                if !v.is_empty() {
                    let mut trial = psdu.clone();
                    trial[i] = grown;
                    let air = he_mu::mu_txtime(phy.width, phy.gi, phy.pe_us, &ru, &with_trigger(&trial, ack));
                    if grown > self.p.max_ampdu_bytes
                        || air > PPDU_MAX_TIME
                        || budget.is_some_and(|b| p.dl_exchange(&ru, &trial, ack) > b)
                    {
                        break;
                    }
                }
                padded = grown_padded;
                psdu[i] = grown;
                v.push((sn, b, item.clone()));
            }
            out.push(v);
        }
        out.into_iter().zip(psdu).collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn mu_send(
        &mut self,
        now: SimTime,
        ac: usize,
        end: Option<SimTime>,
        users: &[(MacAddr, usize, MuUser)],
        chosen: Vec<UserMpdus>,
        ack: DlAck,
        phy: HePhy,
        out: &mut impl MacSink,
    ) {
        let t = self.p.timing.clone();
        let ru: Vec<MuUser> = users.iter().map(|u| u.2).collect();
        let raw: Vec<u32> = chosen.iter().map(|c| c.1).collect();
        let psdu = with_trigger(&raw, ack);
        let air = he_mu::mu_txtime(phy.width, phy.gi, phy.pe_us, &ru, &psdu);
        let (tb, rest) = {
            let m = self.mu.as_ref().expect("an MU AP");
            let p = self.mu_phy(m);
            (p.tb_block_acks(&ru), p.dl_exchange(&ru, &raw, ack) - air)
        };
        let mut mpdus = Vec::new();
        let mut txs = Vec::with_capacity(users.len());
        let mut served = Vec::with_capacity(users.len());
        for (i, ((addr, l, user), (mine, _))) in users.iter().zip(chosen).enumerate() {
            let policy = match ack {
                DlAck::MuBar => AckPolicy::BlockAck,
                DlAck::AggregatedMuBar => AckPolicy::Normal,
                DlAck::SuFormat if i == 0 => AckPolicy::Normal,
                DlAck::SuFormat => AckPolicy::BlockAck,
            };
            let first = mpdus.len() as u32;
            self.psdu_mpdus(*l, mine, policy, &mut mpdus);
            let count = mpdus.len() as u32 - first;
            self.stats.mpdus_per_ppdu[count as usize] += 1;
            txs.push(MuUserTx {
                addr: *addr,
                first,
                count,
                psdu: psdu[i],
                psdu_max: 0,
                rate: t.data_rate,
                ru: Some(user.ru.size),
                ok: false,
                queue: None,
            });
            served.push(Served { addr: *addr, link: *l, done: false });
            // Round robin among the links of the AC: served ones go last.
            self.order += 1;
            self.links[*l].head_order = self.order;
        }
        if mpdus.iter().any(|m| m.retry) {
            self.counters.retries += 1;
        }
        self.stats.mu_ppdus += 1;
        self.stats.mu_users += users.len() as u64;
        self.refresh_has_frame();
        let first = mpdus.first().expect("an MU PPDU without MPDUs");
        let f = Frame {
            kind: FrameKind::QosData,
            ta: self.addr,
            ra: users[0].0,
            duration: rest,
            seq: first.seq,
            retry: first.retry,
            mpdu_bytes: psdu.iter().sum(),
            rate: t.data_rate,
            airtime: air,
            contended: true,
            mpdus: Mpdus::many(mpdus),
            mu: Some(Box::new(MuInfo {
                users: txs,
                tb_response: (ack == DlAck::AggregatedMuBar).then_some(tb),
                uplink: false,
                bsrp: false,
            })),
        };
        if ack == DlAck::MuBar {
            let bar = self.mu_bar_frame(&served, tb);
            self.block.push_back(bar);
        }
        let m = self.mu.as_mut().expect("an MU AP");
        m.cur = Some(served);
        if m.reached.len() < self.links.len() {
            m.reached.resize(self.links.len(), Vec::new());
        }
        self.txop = Some(Txop { ac, link: users[0].1, end, bar_only: false, granted: false });
        self.counters.attempts += 1;
        self.transmit(now, f, out);
    }

    /// The MU-BAR Trigger frame to the users of `served`, soliciting an HE
    /// TB PPDU of `tb`.
    fn mu_bar_frame(&self, served: &[Served], tb: SimDur) -> Frame {
        let t = &self.p.timing;
        let n = served.len() as u32;
        let len = mu_bar_len(n);
        let mpdus: Vec<Mpdu> = served
            .iter()
            .map(|s| {
                let l = &self.links[s.link];
                let body = MpduBody::BlockAckReq { tid: l.tid, start_seq: l.orig.win_start() };
                Mpdu { seq: 0, retry: false, tid: l.tid, ack: AckPolicy::Normal, bytes: 9, body, fcs_ok: false }
            })
            .collect();
        let users = served.iter().enumerate().map(|(i, s)| MuUserTx::one(s.addr, i, 9, t.control_rate)).collect();
        let duration = t.sifs + tb;
        Frame::mu_control(
            t,
            FrameKind::BlockAckReq,
            self.addr,
            users,
            len,
            duration,
            false,
            Mpdus::many(mpdus),
            Some(tb),
        )
    }

    /// The medium's verdict on our MU PPDU: what reached each user.
    pub(super) fn mu_verdict(&mut self, f: &Frame, received: bool) {
        let (Some(m), Some(info)) = (self.mu.as_mut(), f.mu.as_ref()) else { return };
        let Some(cur) = m.cur.as_ref() else { return };
        if !received {
            return;
        }
        for (u, s) in info.users.iter().zip(cur) {
            let r = &mut m.reached[s.link];
            for x in &f.mpdus.as_slice()[u.range()] {
                if x.fcs_ok && !r.contains(&x.seq) {
                    r.push(x.seq);
                }
            }
        }
    }

    /// A response to our MU exchange arrived: the HE TB PPDU of BlockAcks,
    /// or in SU format one user's BlockAck.
    pub(super) fn mu_rx_response(&mut self, now: SimTime, f: &Frame, out: &mut impl MacSink) {
        if self.mu.as_ref().is_some_and(|m| m.cur.is_none()) {
            // (an uplink exchange awaits its HE TB PPDU, not this)
            return self.exchange_failed(now, out);
        }
        let m = self.mu.as_mut().expect("an MU exchange");
        let ack = m.cfg.ack;
        let cur = m.cur.as_mut().expect("an MU exchange");
        let Some(i) = cur.iter().position(|s| !s.done) else { return };
        if f.kind != FrameKind::BlockAck || f.ta != cur[i].addr {
            return self.exchange_failed(now, out);
        }
        self.stats.block_acks += 1;
        let judged: Vec<usize> = if ack == DlAck::SuFormat { vec![i] } else { (i..cur.len()).collect() };
        for &k in &judged {
            cur[k].done = true;
        }
        let links: Vec<usize> = judged.iter().map(|&k| cur[k].link).collect();
        let next = cur.iter().find(|s| !s.done).map(|s| s.link);
        for l in links {
            let o = &mut self.links[l].orig;
            let r = &mut m.reached[l];
            let res = match (ack, f.mpdus.first().map(|x| &x.body)) {
                (DlAck::SuFormat, Some(MpduBody::BlockAck { start_seq, bitmap, .. })) => {
                    o.on_block_ack(*start_seq, **bitmap)
                }
                _ => {
                    let Some(ssn) = o.first_in_flight() else { continue };
                    let mut b = Bitmap::default();
                    for &sn in r.iter() {
                        let d = sn_dist(ssn, sn);
                        if !sn_lt(sn, ssn) && d < 256 {
                            b.set(d);
                        }
                    }
                    o.on_block_ack(ssn, b)
                }
            };
            let ws = o.win_start();
            r.retain(|&sn| !sn_lt(sn, ws));
            super::settle_block_ack(&mut self.stats, &mut self.counters, &mut self.receipts, res, out);
        }
        self.cs.self_busy_until = now;
        if let Some(l) = next {
            // SU format: the next user's BlockAckReq, SIFS later.
            self.seq.close();
            let (ra, tid) = (self.links[l].ra, self.links[l].tid);
            let bar = self.bar_frame(ra, tid, self.links[l].orig.win_start(), false);
            self.stats.block_ack_reqs += 1;
            self.seq.schedule(now + self.p.timing.sifs, bar);
            return;
        }
        self.mu.as_mut().expect("an MU AP").cur = None;
        self.exchange_succeeded(now, out);
    }

    /// No valid response: every user not yet acknowledged fails (module
    /// docs); the TXOP ends.
    pub(super) fn mu_failed(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.seq.close();
        self.counters.failures += 1;
        if self.mu.as_mut().and_then(|m| m.ul.take()).is_some() {
            // No HE TB PPDU reached us: the TXOP ends with CW doubled.
            self.block.clear();
            return self.end_txop(now, false);
        }
        let cur = self.mu.as_mut().and_then(|m| m.cur.take()).expect("an MU exchange");
        let mut gave_up = false;
        for s in cur.iter().filter(|s| !s.done) {
            let res = self.links[s.link].orig.on_timeout();
            gave_up |= !res.dropped.is_empty();
            for it in res.dropped {
                self.counters.drops_retry_limit += 1;
                out.push(self.receipts.discard(it.msdu.id));
            }
        }
        self.block.clear();
        self.end_txop(now, gave_up);
    }
}

/// The PSDUs with an aggregated MU-BAR's Trigger subframe added (`mu.rs`).
fn with_trigger(psdu: &[u32], ack: DlAck) -> Vec<u32> {
    if ack != DlAck::AggregatedMuBar {
        return psdu.to_vec();
    }
    let sub = (4 + mu_bar_len(1)).next_multiple_of(4);
    psdu.iter().map(|b| b.next_multiple_of(4) + sub).collect()
}

#[cfg(test)]
#[path = "mu_tests.rs"]
mod tests;
