//! The Distributed Coordination Function (IEEE 802.11-2020 clause 10.3).
//!
//! One instance per station. Carrier sense is the union of the physical CCA
//! state (reported by the caller through `on_cca`) and the NAV (10.3.2.4).
//! Backoff is never advanced slot by slot: while the medium is free the
//! state holds the instant counting starts (`count_from` = end of DIFS or
//! EIFS) and the remaining slot count, so the transmission instant is
//! `count_from + slots * aSlotTime`; when the medium turns busy the elapsed
//! whole slots are subtracted (10.3.4.3: a slot counts only if the medium was
//! idle for the whole slot). Cost is per frame, not per slot.
//!
//! Retry counts and limits are the frame exchange layer's
//! (`mac/exchange/retry.rs`, 10.3.4.4: a limit counts attempts, so the
//! default 7 gives an MSDU at most 7 attempts).
//!
//! Deviations from the standard, each also noted at the code:
//! - Optional (`DcfParams::backoff_on_idle_access`, off by default): ns-2's
//!   random deferral of a frame that finds the medium idle, instead of
//!   10.3.4.2's access after DIFS; for reproducing ns-2 studies.
//! - Short and long retry counts are kept per MSDU and drive discard
//!   (`exchange::RetryCounts`); CW doubles after every failure.
//! - A failed exchange ends at the ACK/CTS timeout; the station then needs
//!   DIFS of idle medium after it before counting (ns-3 does the same).
//!
//! With `DcfParams::ack_policy = NoAck` the station sends QoS Data frames
//! with the No Ack policy (9.2.4.5.4) under the same channel access: the
//! exchange ends with the frame, which counts as a success (CW reset to
//! CWmin, new backoff, as after an acknowledged frame: 10.22.2.7 treats a
//! No Ack transmission as successful); nothing is retransmitted; the
//! receiver delivers without answering. The rate control hears no outcome
//! (the transmitter learns nothing).
mod backoff;
mod handoff;
mod params;
mod shared;
mod tallies;
#[cfg(test)]
mod tests;
mod view;

pub use handoff::Withdrawn;
pub use params::{DcfParams, MacCounters};
pub use shared::DcfShared;
pub(crate) use tallies::Tally;
use tallies::{RxTallies, Tallies};

use super::access::{Backoff, Deferral, Intake};
use super::api::{Bystander, Demand, GroupRules, Mac};
use super::exchange::{
    answers_rts, control_frame, cts_duration, needs_rts, rts_for, After, Count, Receipts, ResponseWait, RetryCounts,
    RxCache, RxVerdict, Sequence,
};
use super::frame::{AckPolicy, Frame, FrameKind, MacAddr, MacOutput, MacSink, Mpdu, MpduBody, Mpdus, Msdu};
use crate::phy::{PhyTiming, Rate};
use crate::rate::{FixedRate, Outcome, RateControl};
use std::sync::Arc;
use wifitcp_core::PacketId;
use wifitcp_core::{DropReason, RngStream, SimDur, SimTime};
use wifitcp_wire::wifi_frame::{data_mpdu_len, msdu_len, ACK_LEN, CTS_LEN, DATA_HEADER_LEN, QOS_DATA_HEADER_LEN};
use wifitcp_wire::Packet;

/// The MSDU in service.
#[derive(Debug)]
struct InService {
    pkt: Msdu,
    ra: MacAddr,
    seq: u16,
    mpdu_bytes: u32,
    // (The rate of the current exchange's data frame, asked of the rate
    // control at each access, and its airtime are the DCF's
    // `last_len`, `last_rate` and `last_air`: `choose_rate`.)
    /// Data frames of this MSDU sent so far (the rate control's attempt
    /// number).
    data_attempts: u32,
    /// The MSDU's short and long retry counts (10.3.4.4).
    retry: RetryCounts,
    /// Whether a data frame of this MSDU has been on the air: the Retry
    /// subfield of every later data frame of it (9.2.4.1.6: set in "any
    /// data frame that is a retransmission of an earlier frame"). Not
    /// `retry.any()`: a CTS resets the retry count (10.3.4.4) although the
    /// data frame it precedes may be a retransmission, and the receiver's
    /// duplicate filter (10.3.2.14) needs the Retry bit of every
    /// retransmission, whatever the exchange.
    data_sent: bool,
    uses_rts: bool,
    /// When the MSDU became available to the MAC.
    ready_at: SimTime,
}

/// The MSDU in service or, between two, the handle of the last one, which
/// the next reuses if nobody else holds it any more (`install_msdu`): a
/// saturated station then allocates no MSDU handle per packet. One or the
/// other, never both, so they share one place.
#[derive(Debug)]
enum Service {
    Idle(Option<Msdu>),
    Busy(InService),
}

impl Service {
    #[inline(always)]
    fn as_ref(&self) -> Option<&InService> {
        match self {
            Service::Busy(c) => Some(c),
            Service::Idle(_) => None,
        }
    }

    #[inline(always)]
    fn as_mut(&mut self) -> Option<&mut InService> {
        match self {
            Service::Busy(c) => Some(c),
            Service::Idle(_) => None,
        }
    }

    #[inline(always)]
    fn is_none(&self) -> bool {
        matches!(self, Service::Idle(_))
    }

    #[inline(always)]
    fn is_some(&self) -> bool {
        !self.is_none()
    }

    /// The MSDU in service, leaving no spare handle.
    #[inline(always)]
    fn take(&mut self) -> Option<InService> {
        match std::mem::replace(self, Service::Idle(None)) {
            Service::Busy(c) => Some(c),
            Service::Idle(h) => {
                *self = Service::Idle(h);
                None
            }
        }
    }

    /// The MSDU in service is done: keep its handle for the next.
    #[inline(always)]
    fn done(&mut self, c: InService) {
        *self = Service::Idle(Some(c.pkt));
    }
}

/// What few MACs use, boxed together out of every MAC's own lines (one
/// word in each): the rate control (`None`: the PHY's fixed data rate,
/// asked and told nothing, the common case kept off the per-access path)
/// and the receive cache (`mac/exchange`), made at the first data frame
/// received.
#[derive(Default)]
struct Aside {
    rc: Option<Box<dyn RateControl>>,
    rx_cache: RxCache,
    /// The delivery counters and what the 32-bit ones carried (`tallies.rs`).
    rx: RxTallies,
}

/// A frame the DCF sends SIFS after a reception (`Dcf::seq`'s due frame).
#[derive(Debug)]
enum Pending {
    /// An ACK or CTS, built when it is sent (`Dcf::response`): four
    /// fields to keep instead of a whole frame to move in and out. `rate`:
    /// the control response rate for the eliciting frame's rate.
    /// `duration`: the Duration field, at most 32,767 us (9.2.4.2), in
    /// the 32 bits of an [`Airtime`].
    Response { kind: FrameKind, ra: MacAddr, duration: Airtime, rate: Rate },
    /// The data frame after a CTS.
    Frame(Box<Frame>),
}

impl From<Box<Frame>> for Pending {
    fn from(f: Box<Frame>) -> Pending {
        Pending::Frame(f)
    }
}

/// Field order is layout (`repr(C)`, each station's state starting a
/// cache line): in a cell of thousands of stations a station's state is
/// rarely in the nearest cache, so the fields each medium input reads or
/// writes are kept together, by 64-byte line (offsets in comments):
/// - 0: the backoff and the exchange's phase, timer and protected frame
///   (the bystander group's hand-over, `next_wakeup`, every input), and
///   the frame due after SIFS, which runs into
/// - 64: carrier sense (carrier-sense changes, the group's `shares_view`,
///   `freeze`), the address, the sequence number and the last data
///   frame's length, and the MSDU in service (its arrival instant decides
///   every wake-up) or the spare handle for the next, which runs into
/// - 128: the random stream (a new backoff after every exchange) and when
///   the MAC last asked for an MSDU (read when the next arrives);
/// - 192 to 255: the box of the rate control and the receive cache (an
///   access asks whether there is a rate control), the counters (an
///   access counts its attempt), the receipts, the parameters (one
///   pointer: the MACs built from one `[mac]` table share one copy with
///   the slot time, the IFS and the control frames' airtimes derived from
///   it, `shared.rs`, which every access and freeze reads and which so
///   stays in the nearest cache), and the last data frame's rate and
///   airtime, which every access reads too: 256 bytes in all (a test
///   holds it; "none" is a sentinel, not an `Option`'s second word, in the
///   backoff, the receipts and the last data frame's length; the rate
///   control, the receive cache and the delivery counters, which few MACs
///   use, share one box, and the receipts' log of several MPDUs is boxed;
///   airtimes and the counters an exchange moves are kept in 32 bits,
///   `tallies.rs`).
#[repr(C, align(64))]
pub struct Dcf {
    // --- channel access (`mac/access`) ---
    bo: Backoff,
    /// The frame exchange in progress (`mac/exchange`): its phase, its
    /// timer (the timer part of `next_wakeup`), the frame an RTS protects
    /// and the frame due after SIFS.
    seq: Sequence<Pending>,
    cs: Deferral,
    pub addr: MacAddr,
    // --- sequence numbers and duplicate detection (10.3.2.14) ---
    next_seq: u16,
    /// The last data MPDU's length ([`NO_LENGTH`]: none yet, or one of
    /// 65,535 bytes or more, whose airtime is then computed every time);
    /// with `last_rate` and `last_air`, from an access on (`choose_rate`),
    /// those of the MSDU in service's data frame.
    last_len: u16,
    cur: Service,
    rng: RngStream,
    /// When the MAC last asked for an MSDU (`mac/access/arrival.rs`).
    intake: Intake,
    /// The rate control, the receive cache and the delivery counters, out
    /// of line (`Aside`; `None`: none of them yet).
    aside: Option<Box<Aside>>,
    /// The counters an exchange moves (`tallies.rs`; [`Mac::counters`]
    /// reports them all).
    tallies: Tallies,
    /// What reached the receivers (the medium's verdicts).
    pub(crate) receipts: Receipts,
    /// Shared by the MACs of a cell built from one `[mac]` table: the
    /// parameters and their derived constants (the slot time, the IFS, the
    /// control frames' airtimes).
    p: Arc<DcfShared>,
    last_rate: Rate,
    last_air: Airtime,
}

/// `Dcf::last_len` of no data frame yet, and of one too long for 16 bits.
const NO_LENGTH: u16 = u16::MAX;

/// An airtime in 32 bits of nanoseconds, for the airtimes a MAC keeps
/// (4 bytes where a [`SimDur`] takes 8; the state of every MAC of a cell
/// of thousands). Every PPDU is far shorter than the 4.29 s that holds:
/// at most aPPDUMaxTime, 5.484 ms, in the HT, VHT and HE PHYs
/// (802.11-2020 Tables 19-25, 21-29; 802.11ax-2021 Table 27-54), and a
/// non-HT PPDU of 2,304 bytes at 1 Mbit/s lasts 18.6 ms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Airtime(u32);

impl Airtime {
    const ZERO: Airtime = Airtime(0);
    fn of(d: SimDur) -> Airtime {
        Airtime(u32::try_from(d.as_nanos()).expect("an airtime below 4.29 s"))
    }
    #[inline(always)]
    fn get(self) -> SimDur {
        SimDur::from_nanos(self.0 as u64)
    }
}

impl Dcf {
    pub fn new(addr: MacAddr, p: impl Into<Arc<DcfShared>>, rng: RngStream) -> Dcf {
        let p: Arc<DcfShared> = p.into();
        Dcf {
            addr,
            bo: Backoff::new(p.cw_min),
            p,
            rng,
            cur: Service::Idle(None),
            seq: Sequence::default(),
            cs: Deferral::new(),
            next_seq: 0,
            last_len: NO_LENGTH,
            last_rate: Rate(0),
            last_air: Airtime::ZERO,
            aside: None,
            intake: Intake::new(),
            receipts: Receipts::default(),
            tallies: Tallies::default(),
        }
    }

    pub fn params(&self) -> &DcfParams {
        &self.p
    }

    /// Change the parameters of this MAC alone (its derived constants
    /// follow).
    #[cfg(test)]
    fn edit_params(&mut self, f: impl FnOnce(&mut DcfParams)) {
        let mut p = DcfParams::clone(&self.p);
        f(&mut p);
        self.p = Arc::new(DcfShared::new(p));
    }

    /// Replace the rate control (default: the PHY's fixed data rate).
    pub fn set_rate_control(&mut self, rc: Box<dyn RateControl>) {
        self.aside.get_or_insert_with(Box::default).rc = Some(rc);
    }

    /// The rate control's name (for results).
    pub fn rate_control_kind(&self) -> &'static str {
        self.aside
            .as_ref()
            .and_then(|a| a.rc.as_ref())
            .map_or(FixedRate(self.p.timing.data_rate).kind(), |rc| rc.kind())
    }

    /// Whether the MAC can take a new MSDU.
    pub fn is_ready(&self) -> bool {
        self.cur.is_none()
    }

    /// The MSDU in service, if any (for end-of-run accounting).
    pub fn in_service(&self) -> Option<&Packet> {
        self.cur.as_ref().map(|c| &*c.pkt)
    }

    /// Hand the MAC its next MSDU for `ra`. Precondition: `is_ready()`.
    pub fn start_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr, out: &mut impl MacSink) {
        let _ = out;
        self.install_msdu(now, pkt, ra);
        if self.p.backoff_on_idle_access && self.backoff_expired(now) {
            // ns-2.35 (Mac802_11::send), a deviation (see DcfParams): with
            // no backoff pending (none, or one that has run out) the frame
            // still waits DIFS + a drawn number of slots from its arrival,
            // idle medium or not.
            self.bo.restart(self.bo.draw(&mut self.rng));
            self.cs.self_busy_until = self.cs.self_busy_until.max(now);
        } else {
            // 10.3.4.2-10.3.4.3: with no backoff pending the frame goes
            // once the medium has been idle for DIFS, unless it arrived at
            // an empty queue while the medium is busy: then it backs off
            // (`Backoff::frame_arrives`).
            let (busy, empty) = (self.cs.busy_at(now), self.intake.queue_was_empty(now));
            self.bo.frame_arrives(now, &self.p.slotting, busy, empty, &mut self.rng);
        }
        self.resume();
    }

    /// Put an MSDU in service (sequence number, airtime) without acting on
    /// it: `start_msdu` without its carrier-sense and backoff part. For a
    /// station whose pending backoff is kept by the medium's bystander
    /// group, where the frame simply waits for that backoff to end.
    pub fn install_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr) {
        assert!(self.cur.is_none(), "start_msdu while an MSDU is in service");
        let mut mpdu_bytes = data_mpdu_len(msdu_len(pkt.ip_len()));
        if self.p.ack_policy == AckPolicy::NoAck {
            // QoS Data: the QoS Control field adds 2 octets (9.3.2.1).
            mpdu_bytes += QOS_DATA_HEADER_LEN - DATA_HEADER_LEN;
        }
        let seq = self.next_seq;
        self.next_seq = (self.next_seq + 1) % 4096;
        // 10.3.2.7: PSDUs longer than dot11RTSThreshold use RTS/CTS.
        let uses_rts = needs_rts(mpdu_bytes, self.p.rts_threshold, self.p.ack_policy != AckPolicy::NoAck);
        // Reuse the last MSDU's handle if nobody else holds it any more.
        let Service::Idle(spare) = &mut self.cur else { unreachable!("checked above") };
        let pkt = match spare.take() {
            Some(mut h) => match Msdu::get_mut(&mut h) {
                Some(slot) => {
                    *slot = pkt;
                    h
                }
                None => Msdu::new(pkt),
            },
            None => Msdu::new(pkt),
        };
        self.cur = Service::Busy(InService {
            pkt,
            ra,
            seq,
            mpdu_bytes,
            data_attempts: 0,
            retry: RetryCounts::default(),
            data_sent: false,
            uses_rts,
            ready_at: now,
        });
    }

    /// Physical carrier sense changed (another station's energy).
    pub fn on_cca(&mut self, now: SimTime, busy: bool, out: &mut impl MacSink) {
        if busy {
            self.freeze(now);
            self.cs.cca(now, true);
            // 10.3.2.9: the candidate response (`ResponseWait`).
            self.seq.energy(now, self.p.timing.rx_phy_start_delay);
        } else {
            self.cs.cca(now, false);
            // A reception started during the response timeout and ended
            // without delivering a valid response: the exchange failed.
            if self.seq.reception_ended_without_response() {
                let kind = self.seq.awaiting().expect("awaiting").kind;
                self.exchange_failed(now, kind, out);
            }
            self.resume();
        }
    }

    /// Whether `on_cca(now, false)` may end a failed exchange (and emit
    /// outputs): a reception started during the response timeout. After
    /// `on_rx_end` it is always false (every reception settles a pending
    /// exchange).
    #[inline]
    pub fn idle_may_fail_exchange(&self) -> bool {
        self.seq.reception_ended_without_response()
    }

    /// A frame ended at this station. `ok` is false if it was corrupted
    /// (collision or channel error); a data frame addressed to this station
    /// carries its MSDU, which the DCF takes out to deliver it.
    /// Called before `on_cca(now, false)`.
    pub fn on_rx_end(&mut self, now: SimTime, f: &mut Frame, ok: bool, out: &mut impl MacSink) {
        // One MPDU per DCF frame: at its intended receiver its FCS outcome
        // is the frame's (elsewhere `fcs_ok` means nothing).
        let ok = ok && (f.ra != self.addr || f.mpdus.first().is_none_or(|m| m.fcs_ok));
        // EIFS after an error, NAV from a third party's frame (access layer).
        let third_party = f.ra != self.addr;
        self.cs.heard(now, ok, third_party, f.duration);
        if !ok || third_party {
            self.count(Tally::RxErrors, u64::from(!ok));
            if let Some(w) = self.seq.awaiting() {
                self.exchange_failed(now, w.kind, out);
            }
            return;
        }
        // 10.3.2.9: while awaiting an ACK/CTS, any other frame means the
        // exchange failed (it is then processed normally).
        if let Some(w) = self.seq.awaiting() {
            if !w.accepts(f.kind) {
                self.exchange_failed(now, w.kind, out);
            }
        }
        match f.kind {
            FrameKind::Data | FrameKind::QosData => self.rx_data(now, f, out),
            FrameKind::Rts => self.rx_rts(now, f),
            FrameKind::Ack => self.rx_ack(now, out),
            FrameKind::Cts => self.rx_cts(now),
            // Frames of other MACs (EDCA, PCF, BlockAck) addressed to a DCF
            // station: decoded (the NAV and EIFS rules above applied), no
            // response.
            _ => {}
        }
    }

    /// Our own transmission ended.
    pub fn on_tx_end(&mut self, now: SimTime, out: &mut impl MacSink) {
        // What follows (a response awaited, or the end of a No Ack
        // exchange) is the frame's own rule (`After::of`).
        let after = self.seq.ended(now, self.p.timing.ack_timeout());
        self.cs.self_busy_until = now;
        let done_no_ack = (after == After::NoAckDone).then(|| self.sent_no_ack());
        self.resume();
        if self.cur.is_none() {
            if let Some(id) = done_no_ack {
                out.push(MacOutput::Acked(id));
            }
            self.ask(now, out);
        }
    }

    /// A No Ack data frame ended: the MSDU's exchange is over (module
    /// docs); returns the MSDU's id.
    fn sent_no_ack(&mut self) -> PacketId {
        let cur = self.cur.take().expect("a data frame without MSDU");
        self.count(Tally::Successes, 1);
        self.bo.cw = self.p.cw_min;
        self.bo.redraw(&mut self.rng);
        let id = cur.pkt.id;
        self.cur.done(cur);
        id
    }

    /// The caller woke us at `next_wakeup()`.
    pub fn on_wake(&mut self, now: SimTime, out: &mut impl MacSink) {
        if let Some(p) = self.seq.take_due(now) {
            match p {
                Pending::Response { kind, ra, duration, rate } => {
                    self.transmit(now, out, |d| d.response(kind, ra, duration.get(), rate));
                }
                Pending::Frame(f) => self.transmit(now, out, |_| *f),
            }
            return;
        }
        if let Some(kind) = self.seq.times_out(now) {
            // 10.3.2.9: no PHY-RXSTART within the timeout: failure.
            self.cs.self_busy_until = now;
            if self.p.eifs_after_timeout {
                let t = &self.p.timing;
                let tx_end = now - t.ack_timeout();
                self.cs.self_busy_until = now.max(tx_end + t.eifs.saturating_sub(t.difs));
            }
            self.exchange_failed(now, kind, out);
            return;
        }
        if self.contention_wake() == Some(now) {
            self.access(now, out);
        }
    }

    /// When the caller must call `on_wake` next (`SimTime::NEVER` if not).
    /// (Asked after every input: always inlined, as profile-guided builds
    /// otherwise keep it out of line.)
    #[inline(always)]
    pub fn next_wakeup(&self) -> SimTime {
        let timer = self.seq.timer();
        match self.contention_wake() {
            Some(c) => timer.min(c),
            None => timer,
        }
    }

    // ------------------------------------------------------------------
    // Transmissions

    /// Backoff reached zero: start the frame exchange (10.3.4.3).
    fn access(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.bo.consume();
        self.choose_rate(now);
        let cur = self.cur.as_ref().expect("access without MSDU");
        let uses_rts = cur.uses_rts;
        let retry = cur.retry.any();
        self.count(Tally::Attempts, 1);
        if retry {
            self.count(Tally::Retries, 1);
        }
        if uses_rts {
            // 10.3.2.7: the data frame waits for the CTS (`mac/exchange`);
            // the RTS goes at the rate of the CTS it asks for.
            let data = self.data_frame();
            let air = self.p.air(data.rate);
            let rts = rts_for(&data, self.p.timing.sifs, air.cts, air.rate, air.rts);
            let rts = self.seq.protect(data, rts);
            self.transmit(now, out, |_| rts);
        } else {
            self.transmit(now, out, |d| d.data_frame());
        }
    }

    /// Ask the rate control for the data frame of this exchange (one
    /// question per access: an RTS's Duration and the data frame after the
    /// CTS use the same rate), and its airtime.
    fn choose_rate(&mut self, now: SimTime) {
        let cur = self.cur.as_mut().expect("access without MSDU");
        let rate = match self.aside.as_mut().and_then(|a| a.rc.as_mut()) {
            Some(rc) => rc.data_rate(now, cur.ra, cur.mpdu_bytes),
            None => self.p.timing.data_rate,
        };
        // Consecutive frames mostly have one length and rate: keep the last
        // airtime.
        let len = u16::try_from(cur.mpdu_bytes).unwrap_or(NO_LENGTH);
        if len == NO_LENGTH || self.last_len != len || self.last_rate != rate {
            let t = &self.p.timing;
            // 802.11n (fixed MCS, no rate control): the data frame is one
            // MPDU in an HT-mixed PPDU (`data_ppdu_time`); only the polling
            // MACs run the DCF over HT (docs/validation.md section 1.4).
            let air = if t.ht.is_some() && rate == t.data_rate {
                t.data_ppdu_time(cur.mpdu_bytes)
            } else {
                t.tx_time(cur.mpdu_bytes, rate)
            };
            (self.last_len, self.last_rate, self.last_air) = (len, rate, Airtime::of(air));
        }
    }

    /// The data frame of the MSDU in service, with a copy of the MSDU: sent
    /// after contention, as every DCF data frame is (built where it is
    /// sent, so it is not copied again to mark it). Inlined: built in the
    /// medium's slot, not on the stack and copied there.
    #[inline(always)]
    fn data_frame(&self) -> Frame {
        let t = &self.p.timing;
        let cur = self.cur.as_ref().expect("data frame without MSDU");
        // (the rate and airtime `choose_rate` chose at this access)
        let (rate, airtime) = (self.last_rate, self.last_air);
        let no_ack = self.p.ack_policy == AckPolicy::NoAck;
        Frame {
            mu: None,
            kind: if no_ack { FrameKind::QosData } else { FrameKind::Data },
            ta: self.addr,
            ra: cur.ra,
            // 9.2.5.2: Duration of a unicast data frame = SIFS + ACK; with
            // No Ack nothing follows the frame: 0.
            duration: if no_ack { SimDur::ZERO } else { t.sifs + self.p.air(rate).ack },
            seq: cur.seq,
            retry: cur.data_sent,
            mpdu_bytes: cur.mpdu_bytes,
            rate,
            airtime: airtime.get(),
            contended: true,
            mpdus: Mpdus::one(Mpdu {
                seq: cur.seq,
                retry: cur.data_sent,
                tid: 0,
                ack: if no_ack { AckPolicy::NoAck } else { AckPolicy::Normal },
                bytes: cur.mpdu_bytes,
                // (lent when the medium needs it: `Mac::lend_msdus`)
                body: MpduBody::AtSender,
                fcs_ok: false,
            }),
        }
    }

    /// `Mac::lend_msdus`: the MSDU in service into the MPDU of our data
    /// frame `f` that stands for it (a frame of the DCF holds one MPDU).
    #[inline]
    pub(crate) fn lend_msdus(&self, f: &mut Frame) {
        if let Some(m) = f.mpdus.first_mut().filter(|m| matches!(m.body, MpduBody::AtSender)) {
            let cur = self.cur.as_ref().expect("a data frame on the air without its MSDU in service");
            debug_assert_eq!((m.seq, f.ta), (cur.seq, self.addr), "lent the MSDU of another frame");
            m.body = MpduBody::Msdu(cur.pkt.clone());
        }
    }

    /// Tell the rate control how a data frame fared.
    fn report_outcome(&mut self, now: SimTime, acked: bool) {
        let Some(rc) = self.aside.as_mut().and_then(|a| a.rc.as_mut()) else { return };
        let cur = self.cur.as_ref().expect("outcome without MSDU");
        let o = Outcome { rate: self.last_rate, sent: 1, acked: u32::from(acked), retry: cur.data_attempts - 1 };
        rc.on_outcome(now, cur.ra, o);
    }

    /// Start the frame `build` makes from the present state (it is built
    /// first, where the sink keeps it, then the state moves on: a data
    /// frame's Retry bit is that of before this attempt).
    fn transmit(&mut self, now: SimTime, out: &mut impl MacSink, build: impl FnOnce(&Dcf) -> Frame) {
        let (kind, airtime, after) = out.start_tx_with(|| build(self), |f| (f.kind, f.airtime, After::of(f)));
        self.freeze(now);
        if kind.carries_msdus() {
            if let Some(c) = self.cur.as_mut() {
                c.data_sent = true;
                c.data_attempts += 1;
            }
        }
        self.seq.started(after);
        self.cs.self_busy_until = now + airtime;
    }

    fn response(&self, kind: FrameKind, ra: MacAddr, duration: SimDur, rate: Rate) -> Frame {
        let bytes = if kind == FrameKind::Ack { ACK_LEN } else { CTS_LEN };
        let airtime = self.p.response_time(kind == FrameKind::Cts, rate);
        control_frame(kind, self.addr, ra, duration, bytes, rate, airtime)
    }

    // ------------------------------------------------------------------
    // Receptions addressed to us

    fn rx_data(&mut self, now: SimTime, f: &mut Frame, out: &mut impl MacSink) {
        let m = f.mpdus.first_mut().expect("a data frame without its MPDU");
        let id = m.msdu_id().expect("a data frame without its MSDU");
        let (seq, retry, policy) = (m.seq, m.retry, m.ack);
        // 10.3.2.9: acknowledge after SIFS regardless of the medium state,
        // unless the frame says No Ack (9.2.4.5.4).
        if policy != AckPolicy::NoAck {
            let rate = self.p.timing.response_rate(f.rate);
            let ack = Pending::Response { kind: FrameKind::Ack, ra: f.ta, duration: Airtime::ZERO, rate };
            self.seq.schedule(now + self.p.timing.sifs, ack);
        }
        // 10.3.2.14: a retried frame whose sequence number matches the cache
        // is a duplicate: acknowledge it but do not deliver it again.
        self.deliver_unless_duplicate(f, seq, retry, id, out);
    }

    /// The receive cache of 10.3.2.14 and delivery: a retried MPDU whose
    /// sequence number equals the last one from its transmitter is
    /// discarded, otherwise its MSDU is taken out of `f` and delivered.
    pub(crate) fn deliver_unless_duplicate(
        &mut self,
        f: &mut Frame,
        seq: u16,
        retry: bool,
        id: PacketId,
        out: &mut impl MacSink,
    ) {
        let a = self.aside.get_or_insert_with(Box::default);
        match a.rx_cache.receive(f.ta.0 as usize, seq, retry, id) {
            RxVerdict::New => {}
            RxVerdict::Duplicate => {
                a.rx.duplicates += 1;
                return;
            }
            RxVerdict::FalseDuplicate => {
                a.rx.false_duplicates += 1;
                out.push(MacOutput::Dropped(id, DropReason::DuplicateFrame));
                return;
            }
        }
        a.rx.delivered += 1;
        let pkt = f.mpdus.first_mut().and_then(|m| m.take_msdu()).expect("the MSDU taken twice");
        out.push(MacOutput::Deliver { from: f.ta, pkt });
    }

    fn rx_rts(&mut self, now: SimTime, f: &Frame) {
        // Answer with CTS after SIFS only if the NAV is idle (10.3.2.8).
        if !answers_rts(self.cs.nav_end, now) {
            return;
        }
        let t = &self.p.timing;
        let rate = t.response_rate(f.rate);
        let cts_time = self.p.response_time(true, rate);
        let d = cts_duration(f.duration, t.sifs, cts_time);
        let cts = Pending::Response { kind: FrameKind::Cts, ra: f.ta, duration: Airtime::of(d), rate };
        self.seq.schedule(now + t.sifs, cts);
    }

    fn rx_ack(&mut self, now: SimTime, out: &mut impl MacSink) {
        if !matches!(self.seq.awaiting(), Some(ResponseWait { kind: FrameKind::Ack, .. })) {
            return;
        }
        self.seq.close();
        self.cs.self_busy_until = now;
        self.report_outcome(now, true);
        let cur = self.cur.take().expect("ACK without MSDU");
        self.count(Tally::Successes, 1);
        // 10.3.4.3: CW reset after a successful attempt, then a new backoff
        // (post-backoff) even if no frame is queued.
        self.bo.cw = self.p.cw_min;
        self.bo.redraw(&mut self.rng);
        out.push(MacOutput::Acked(cur.pkt.id));
        self.cur.done(cur);
        self.ask(now, out);
    }

    fn rx_cts(&mut self, now: SimTime) {
        if !matches!(self.seq.awaiting(), Some(ResponseWait { kind: FrameKind::Cts, .. })) {
            return;
        }
        // 10.3.4.4: a CTS resets the short retry count of the MSDU; data
        // failures count against the long retry limit with the long count,
        // which the CTS leaves alone.
        if let Some(c) = self.cur.as_mut() {
            c.retry.cts_received();
        }
        self.seq.cts_arrived(now, self.p.timing.sifs);
    }

    /// No (valid) response: 10.3.4.4 retry procedure.
    fn exchange_failed(&mut self, now: SimTime, kind: FrameKind, out: &mut impl MacSink) {
        self.seq.close();
        self.seq.drop_protected();
        if kind == FrameKind::Ack {
            // A data frame got no valid ACK (a failed RTS tested no data rate).
            self.report_outcome(now, false);
        }
        self.count(Tally::Failures, 1);
        let cur = self.cur.as_mut().expect("failed exchange without MSDU");
        // Data frames sent after RTS/CTS count against the long limit with
        // the long retry count; everything else against the short one.
        let count = if kind == FrameKind::Ack && cur.uses_rts { Count::Long } else { Count::Short };
        let discard = cur.retry.fail(count, self.p.short_limit(), self.p.long_limit());
        // CW doubles (10.3.4.3).
        self.bo.grow_cw(self.p.cw_max);
        if discard {
            let cur = self.cur.take().expect("in service");
            self.count(Tally::DropsRetryLimit, 1);
            self.bo.cw = self.p.cw_min;
            self.bo.redraw(&mut self.rng);
            out.push(self.receipts.discard(cur.pkt.id));
            self.cur.done(cur);
            self.ask(now, out);
        } else {
            self.bo.redraw(&mut self.rng);
        }
        self.resume();
    }

    /// Add `n` to counter `t` (`tallies.rs`).
    #[inline(always)]
    pub(crate) fn count(&mut self, t: Tally, n: u64) {
        let aside = &mut self.aside;
        self.tallies.add(t, n, || &mut aside.get_or_insert_with(Box::default).rx);
    }

    /// Ask the queue for the next MSDU (`MacOutput::Ready`), noting when
    /// (`Intake`: a frame handed over at this instant was waiting).
    pub(crate) fn ask(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.intake.asked(now);
        out.push(MacOutput::Ready);
    }
}

/// The DCF as the medium drives it (the inherent methods of the same names
/// do the work; a caller holding a `Dcf` may use either).
impl Mac for Dcf {
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
        self.is_ready().then_some(Demand::ANY)
    }
    #[inline]
    fn give_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr, out: &mut impl MacSink) {
        self.start_msdu(now, pkt, ra, out)
    }
    #[inline]
    fn on_cca(&mut self, now: SimTime, busy: bool, out: &mut impl MacSink) {
        Dcf::on_cca(self, now, busy, out)
    }
    fn on_rx_start(&mut self, now: SimTime) {
        self.seq.energy(now, self.p.timing.rx_phy_start_delay);
    }
    #[inline]
    fn idle_may_emit(&self) -> bool {
        self.idle_may_fail_exchange()
    }
    #[inline]
    fn on_rx_end(&mut self, now: SimTime, f: &mut Frame, ok: bool, out: &mut impl MacSink) {
        Dcf::on_rx_end(self, now, f, ok, out)
    }
    #[inline]
    fn on_tx_end(&mut self, now: SimTime, out: &mut impl MacSink) {
        Dcf::on_tx_end(self, now, out)
    }
    #[inline]
    fn on_verdict(&mut self, _: SimTime, f: &Frame, received: bool, out: &mut impl MacSink) {
        self.receipts.verdict(f, received, out)
    }
    #[inline]
    fn lend_msdus(&self, f: &mut Frame) {
        Dcf::lend_msdus(self, f)
    }
    #[inline]
    fn on_wake(&mut self, now: SimTime, out: &mut impl MacSink) {
        Dcf::on_wake(self, now, out)
    }
    #[inline]
    fn next_wakeup(&self) -> SimTime {
        Dcf::next_wakeup(self)
    }
    fn held(&self) -> impl Iterator<Item = &Packet> {
        self.in_service().into_iter()
    }
    #[inline]
    fn counters(&self) -> MacCounters {
        self.tallies.report(self.aside.as_ref().map(|a| &a.rx))
    }
    fn eifs_after_collision(&self) -> bool {
        self.p.eifs_after_timeout
    }
    #[inline]
    fn bystander(&self) -> Option<&dyn Bystander> {
        Some(self)
    }
    #[inline]
    fn bystander_mut(&mut self) -> Option<&mut dyn Bystander> {
        Some(self)
    }
}
#[cfg(test)]
mod layout {
    /// A station's MAC is 4 cache lines: with the parameters and their
    /// derived constants shared (`Arc`), a frame of a cell of thousands of
    /// stations touches at most those 4 lines of the sender's MAC (`crates/wifi/src/mac/dcf/mod.rs`
    /// field order; docs/performance.md "Dense cells").
    #[test]
    fn a_station_mac_is_four_cache_lines() {
        assert_eq!(std::mem::size_of::<super::Dcf>(), 256);
        assert_eq!(std::mem::size_of::<crate::mac::AnyMac>(), 256);
        assert_eq!(std::mem::align_of::<super::Dcf>(), 64);
    }
}
