//! The AP's MAC: its DCF for the contention period, beacons at every TBTT,
//! and, with a [`CfpConfig`], the point coordinator of 10.4 (see the
//! module docs of `mac::pcf` for the rules and choices).
//!
//! Invariants: the coordinator's own frames (beacon, polls, CF-End) start
//! only while no exchange of its DCF is under way and the medium is idle;
//! the DCF is held off (sees the medium busy) from the CFP's beacon to the
//! end of its CF-End; the downlink MSDU lent to the CFP (`dl`) goes back to
//! the DCF at the CF-End unless acknowledged or dropped.
use super::Shadow;
use crate::mac::access::CsView;
use crate::mac::api::{Bystander, Demand, GroupRules, Mac};
use crate::mac::beacon::BeaconClock;
use crate::mac::dcf::{Dcf, MacCounters, Tally, Withdrawn};
use crate::mac::frame::{Frame, FrameKind, MacAddr, MacOutput, MacSink, Mpdus};
use crate::mac::sched::{Grant, ListScheduler, PollList, PollScheduler, Usage};
use crate::phy::PhyTiming;
use wifitcp_core::{SimDur, SimTime};
use wifitcp_wire::wifi_frame::{data_mpdu_len, msdu_len, CF_POLL_LEN};
use wifitcp_wire::Packet;

/// CF-End length: Frame Control 2, Duration 2, RA 6, BSSID 6, FCS 4 (9.3.1.6).
const CF_END_LEN: u32 = 20;

/// The contention-free period of a point coordinator.
#[derive(Clone, Debug)]
pub struct CfpConfig {
    /// CFPPeriod: a CFP starts at every `period`-th beacon (10.4.1).
    pub period: u32,
    /// CFPMaxDuration, counted from the TBTT (10.4.1); shorter than the
    /// beacon interval (checked by the scenario loader).
    pub max_duration: SimDur,
    /// The stations polled, round after round (`ListScheduler::cycling`).
    pub list: PollList,
}

/// The contention-free period as the coordinator runs it: CFPPeriod,
/// CFPMaxDuration and the scheduler that names whom each CF-Poll goes to.
struct Cfp {
    period: u32,
    max_duration: SimDur,
    sched: Box<dyn PollScheduler>,
}

/// What the coordinator does at its next own wake-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Next {
    /// Outside a CFP: the beacon of the next TBTT (after PIFS of idle medium).
    Beacon,
    /// In the CFP: the next frame (poll or CF-End) at this instant.
    CfpFrame(SimTime),
    /// In the CFP: our poll got no answer by this instant (PIFS after it):
    /// send the next frame then, if the medium is idle.
    NoAnswer(SimTime),
    /// In the CFP: waiting (our frame on the air, or a station's answer).
    Wait,
}

/// The state of a CFP in progress.
#[derive(Debug, Default)]
struct CfpRun {
    /// CFPMaxDuration ends.
    end: SimTime,
    /// The station our last poll went to (its answer is awaited).
    polled: Option<MacAddr>,
    /// The station the next poll goes to.
    next_sta: Option<MacAddr>,
    /// Our next frame carries a CF-Ack (a station's data frame was received).
    cf_ack_due: bool,
    /// The downlink MSDU our last poll carried (awaiting the CF-Ack).
    dl_sent: bool,
    /// Polls in a row that moved nothing in either direction.
    idle_polls: usize,
}

pub struct Coordinator {
    dcf: Dcf,
    sh: Shadow,
    clock: BeaconClock,
    cfp: Option<Cfp>,
    /// Beacons until the next CFP (the CF Parameter Set's CFPCount).
    cfp_count: u32,
    run: Option<CfpRun>,
    /// A downlink MSDU lent to the CFP (by the DCF, or given by the queue
    /// for the station polled next).
    dl: Option<Withdrawn>,
    /// Our own frame on the air (not the DCF's).
    own_tx: Option<FrameKind>,
    next: Next,
    /// The instant of the latest input: our wake-up is never earlier (a
    /// beacon held up by an exchange of the DCF goes when it ends).
    last_input: SimTime,
    /// Airtime of the longest answer a station may send (a 1500-byte IP
    /// packet at the data rate), for the fit test before each poll.
    max_answer: SimDur,
    cf_end_air: SimDur,
    /// Beacons sent, CFPs, polls, polls without answer.
    pub stats: PcfStats,
    /// Start of the CFP in progress (its beacon), for `stats.cfp_ns`.
    cfp_began: SimTime,
}

/// Counters of the point coordinator (results): beacons, CFPs and their
/// total time (beacon start to CF-End end), CF-Polls sent, polls with no
/// answer (nothing within PIFS), answers received in error, answers
/// without an MSDU (Null, or a CF-Ack alone), data frames received in
/// answers and data frames sent with the polls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PcfStats {
    pub beacons: u64,
    pub cfps: u64,
    pub cfp_ns: u64,
    pub polls: u64,
    pub no_answer: u64,
    pub answer_errors: u64,
    pub null_answers: u64,
    pub cf_data_up: u64,
    pub cf_data_down: u64,
}

impl Coordinator {
    pub fn new(dcf: Dcf, clock: BeaconClock, cfp: Option<CfpConfig>) -> Coordinator {
        let cfp = cfp.map(|c| Cfp {
            period: c.period,
            max_duration: c.max_duration,
            sched: Box::new(ListScheduler::cycling(c.list)),
        });
        let t = dcf.timing_ref();
        let max_answer = t.data_ppdu_time(data_mpdu_len(msdu_len(1500)));
        let cf_end_air = t.tx_time(CF_END_LEN, t.control_rate);
        Coordinator {
            dcf,
            sh: Shadow::default(),
            clock,
            cfp,
            cfp_count: 0,
            run: None,
            dl: None,
            own_tx: None,
            next: Next::Beacon,
            last_input: SimTime::ZERO,
            max_answer,
            cf_end_air,
            stats: PcfStats::default(),
            cfp_began: SimTime::ZERO,
        }
    }

    pub fn dcf(&self) -> &Dcf {
        &self.dcf
    }
    pub fn dcf_mut(&mut self) -> &mut Dcf {
        &mut self.dcf
    }
    /// The scheduler of the CF-Polls (none without a CFP).
    pub fn poll_scheduler(&self) -> Option<&dyn PollScheduler> {
        self.cfp.as_ref().map(|c| &*c.sched)
    }
    /// Whether a CFP is in progress.
    pub fn in_cfp(&self) -> bool {
        self.run.is_some()
    }
    pub fn has_cfp(&self) -> bool {
        self.cfp.is_some()
    }

    fn t(&self) -> &PhyTiming {
        self.dcf.timing_ref()
    }
    fn pifs(&self) -> SimDur {
        // 10.3.2.3.4: PIFS = aSIFSTime + aSlotTime.
        self.t().sifs + self.t().slot
    }

    /// When our own next action is due (`NEVER`: none now).
    fn own_wake(&self) -> SimTime {
        if self.own_tx.is_some() || self.sh.busy() {
            return SimTime::NEVER;
        }
        let at = match self.next {
            Next::Beacon => {
                if self.dcf.in_exchange() {
                    SimTime::NEVER
                } else {
                    self.clock.tbtt().max(self.sh.idle_since + self.pifs())
                }
            }
            Next::CfpFrame(at) | Next::NoAnswer(at) => at,
            Next::Wait => SimTime::NEVER,
        };
        at.max(self.last_input)
    }

    fn send(&mut self, now: SimTime, f: Frame, out: &mut impl MacSink) {
        self.own_tx = Some(f.kind);
        self.sh.own = true;
        self.next = Next::Wait;
        self.sh.update(now, &mut self.dcf, out);
        out.push(MacOutput::StartTx(f));
    }

    fn send_beacon(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.clock.skip_missed(now);
        let tbtt = self.clock.tbtt();
        self.clock.started();
        self.stats.beacons += 1;
        let mut nav = SimDur::ZERO;
        if let Some(c) = self.cfp.as_mut() {
            if self.cfp_count == 0 {
                // 10.4.1: this beacon starts a CFP; stations set their NAV
                // to CFPDurRemaining (10.4.3.3).
                let end = tbtt + c.max_duration;
                nav = end.saturating_since(now + self.clock.airtime());
                c.sched.begin(now);
                self.run = Some(CfpRun { end, ..CfpRun::default() });
                self.stats.cfps += 1;
                self.cfp_began = now;
                self.sh.cfp = true;
                // The DCF's MSDU serves the CFP (its exchange is idle: the
                // beacon waits for that); the round starts at its receiver
                // if that is on the list, so that it does not hold up the
                // other stations' downlink (the queue gives the PC one
                // station's MSDUs while it holds none, `demand`).
                self.dl = self.dcf.withdraw();
                if let Some(d) = &self.dl {
                    c.sched.prefer(d.ra());
                }
                self.cfp_count = c.period - 1;
            } else {
                self.cfp_count -= 1;
            }
        }
        let f = self.clock.frame(self.dcf.addr, nav);
        self.send(now, f, out);
    }

    /// Choose the station of the next poll and, if no downlink MSDU is
    /// lent, ask the queue for one for it (`demand`; the caller feeds us
    /// at once, at this instant, before the poll is due).
    fn prefetch(&mut self, now: SimTime, out: &mut impl MacSink) {
        let next_sta = self.cfp.as_mut().and_then(|c| c.sched.next(now)).map(|g| g.sta);
        if let Some(r) = self.run.as_mut() {
            r.next_sta = next_sta;
        }
        if self.dl.is_none() && next_sta.is_some() {
            self.dcf.ask(now, out);
        }
    }

    /// The next frame of the CFP: a poll (with the downlink MSDU for the
    /// station, if any, and a CF-Ack if owed), or CF-End.
    fn cfp_frame(&mut self, now: SimTime, out: &mut impl MacSink) {
        let t = self.t().clone();
        let addr = self.dcf.addr;
        let (list_len, next_sta) = match (&self.cfp, &self.run) {
            (Some(c), Some(r)) => (c.sched.listed(), r.next_sta),
            _ => return,
        };
        let run = self.run.as_mut().expect("in a CFP");
        let ack = std::mem::take(&mut run.cf_ack_due);
        let with_dl = matches!((&self.dl, next_sta), (Some(d), Some(s)) if d.ra() == s);
        let poll_air = match (&self.dl, with_dl) {
            (Some(d), true) => t.data_ppdu_time(d.mpdu_bytes()),
            _ => t.data_ppdu_time(CF_POLL_LEN),
        };
        let fits = now + poll_air + t.sifs + self.max_answer + t.sifs + self.cf_end_air <= run.end;
        let quiet_round = list_len > 0 && run.idle_polls >= list_len;
        let Some(sta) = next_sta.filter(|_| fits && !quiet_round) else {
            // CF-End (+CF-Ack), 10.4.3.2 / 9.3.1.6.
            let kind = if ack { FrameKind::CfEndAck } else { FrameKind::CfEnd };
            let f = Frame {
                mu: None,
                kind,
                ta: addr,
                ra: addr,
                duration: SimDur::ZERO,
                seq: 0,
                retry: false,
                mpdu_bytes: CF_END_LEN,
                rate: t.control_rate,
                airtime: self.cf_end_air,
                contended: false,
                mpdus: Mpdus::none(),
            };
            self.send(now, f, out);
            return;
        };
        if let Some(c) = self.cfp.as_mut() {
            // The grant is this poll and the exchange it starts.
            let g = Grant { sta, txop: SimDur::ZERO };
            c.sched.done(now, g, Usage { bytes: 0, empty: false });
        }
        self.stats.polls += 1;
        run.polled = Some(sta);
        run.dl_sent = with_dl;
        let f = if with_dl {
            let d = self.dl.as_mut().expect("a downlink MSDU");
            self.stats.cf_data_down += 1;
            self.dcf.count(Tally::Attempts, 1);
            d.frame(addr, FrameKind::DataCf { ack, poll: true }, &t, SimDur::ZERO)
        } else {
            Frame {
                mu: None,
                kind: if ack { FrameKind::CfAckPoll } else { FrameKind::CfPoll },
                ta: addr,
                ra: sta,
                duration: SimDur::ZERO,
                seq: 0,
                retry: false,
                mpdu_bytes: CF_POLL_LEN,
                rate: t.data_rate,
                airtime: poll_air,
                contended: false,
                mpdus: Mpdus::none(),
            }
        };
        self.send(now, f, out);
        self.prefetch(now, out);
    }

    /// The answer to our poll (or its absence): settle the downlink MSDU
    /// it carried. `acked`: the answer carried a CF-Ack.
    fn settle_dl(&mut self, now: SimTime, acked: bool, out: &mut impl MacSink) {
        let Some(run) = self.run.as_mut() else { return };
        if !std::mem::take(&mut run.dl_sent) {
            return;
        }
        if acked {
            let d = self.dl.take().expect("a downlink MSDU");
            self.dcf.count(Tally::Successes, 1);
            out.push(MacOutput::Acked(d.id()));
            run.idle_polls = 0;
            // Ask for the next station's MSDU (`demand`).
            if run.next_sta.is_some() {
                self.dcf.ask(now, out);
            }
            return;
        }
        self.dcf.count(Tally::Failures, 1);
        let d = self.dl.as_mut().expect("a downlink MSDU");
        if d.failed(self.dcf.params()) {
            let d = self.dl.take().expect("a downlink MSDU");
            self.dcf.count(Tally::DropsRetryLimit, 1);
            out.push(self.dcf.receipts.discard(d.id()));
        }
    }

    /// The CFP ended (our CF-End is over): back to the DCF.
    fn end_cfp(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.stats.cfp_ns += now.saturating_since(self.cfp_began).as_nanos();
        self.run = None;
        self.sh.cfp = false;
        self.next = Next::Beacon;
        if let Some(d) = self.dl.take() {
            self.dcf.restore(d);
        }
        self.sh.update(now, &mut self.dcf, out);
        if self.dcf.is_ready() {
            self.dcf.ask(now, out);
        }
    }
}

impl Mac for Coordinator {
    #[inline]
    fn addr(&self) -> MacAddr {
        self.dcf.addr
    }
    #[inline]
    fn timing(&self) -> &PhyTiming {
        self.dcf.timing_ref()
    }
    fn demand(&self) -> Option<Demand> {
        match &self.run {
            // (The DCF holds nothing in the CFP unless a stray exchange of
            // its own left an MSDU with it; then wait for the CP.)
            Some(r) => match (self.dl.is_none() && self.dcf.is_ready() && !self.dcf.in_exchange(), r.next_sta) {
                (true, Some(s)) => Some(Demand { ra: Some(s), tid: None }),
                _ => None,
            },
            None => Mac::demand(&self.dcf),
        }
    }
    fn give_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr, out: &mut impl MacSink) {
        self.last_input = now;
        // Downlink activity: each MSDU once, when the queue hands it over.
        if let Some(c) = self.cfp.as_mut() {
            c.sched.observe(now, ra, pkt.ip_len());
        }
        if self.run.is_some() {
            // For the station polled next: lent to the CFP at once (the
            // DCF numbers it; it holds no MSDU during the CFP).
            self.dcf.install_msdu(now, pkt, ra);
            self.dl = self.dcf.withdraw();
            return;
        }
        self.dcf.start_msdu(now, pkt, ra, out);
    }
    fn on_cca(&mut self, now: SimTime, busy: bool, out: &mut impl MacSink) {
        self.last_input = now;
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
        self.last_input = now;
        let polled = self.run.as_ref().and_then(|r| r.polled);
        if self.run.is_none() || polled != Some(f.ta) {
            if ok && f.ra == self.dcf.addr && f.kind.carries_msdus() {
                if let (Some(c), Some(p)) = (self.cfp.as_mut(), f.first_msdu()) {
                    c.sched.observe(now, f.ta, p.ip_len());
                }
            }
            self.dcf.on_rx_end(now, f, ok, out);
            return;
        }
        // The polled station's answer (10.4.3.1): the next frame after SIFS,
        // or after PIFS if it was not received.
        let ok = ok && f.ra == self.dcf.addr && f.mpdus.first().is_none_or(|m| m.fcs_ok);
        self.dcf.on_rx_end(now, f, ok, out);
        let run = self.run.as_mut().expect("in a CFP");
        run.polled = None;
        if !ok {
            self.stats.answer_errors += 1;
            self.settle_dl(now, false, out);
            self.next = Next::CfpFrame(now + self.pifs());
            return;
        }
        self.settle_dl(now, f.kind.cf_ack(), out);
        let run = self.run.as_mut().expect("in a CFP");
        if f.kind.carries_msdus() {
            run.cf_ack_due = true;
            run.idle_polls = 0;
            self.stats.cf_data_up += 1;
            let bytes = f.first_msdu().map_or(0, |p| p.ip_len());
            if let Some(c) = self.cfp.as_mut() {
                c.sched.observe(now, f.ta, bytes);
            }
            self.dcf.accept_cf_data(f, out);
        } else {
            self.stats.null_answers += 1;
            if !f.kind.cf_ack() {
                run.idle_polls += 1;
            }
        }
        self.next = Next::CfpFrame(now + self.t().sifs);
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
        self.last_input = now;
        let Some(kind) = self.own_tx.take() else {
            // The DCF's frame: the medium is idle from its end.
            self.sh.idle_since = now;
            self.dcf.on_tx_end(now, out);
            return;
        };
        self.sh.own = false;
        self.sh.idle_since = now;
        match kind {
            FrameKind::Beacon if self.run.is_some() => {
                // 10.4.3.1: the PC's first frame SIFS after the beacon.
                self.next = Next::CfpFrame(now + self.t().sifs);
                self.prefetch(now, out);
            }
            FrameKind::Beacon => self.next = Next::Beacon,
            FrameKind::CfEnd | FrameKind::CfEndAck => self.end_cfp(now, out),
            _ => {
                // A poll: its answer starts SIFS after it, or the PC goes on
                // PIFS after it (10.4.3.1).
                self.next = Next::NoAnswer(now + self.pifs());
            }
        }
        self.sh.update(now, &mut self.dcf, out);
    }
    fn on_wake(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.last_input = now;
        if self.own_wake() == now {
            match self.next {
                Next::Beacon => {
                    // A DCF frame due at the same instant goes first; the
                    // beacon then defers to it.
                    if Mac::next_wakeup(&self.dcf) == now {
                        self.dcf.on_wake(now, out);
                    }
                    if !self.dcf.in_exchange() {
                        self.send_beacon(now, out);
                    }
                    return;
                }
                Next::NoAnswer(_) => {
                    self.stats.no_answer += 1;
                    if let Some(r) = self.run.as_mut() {
                        r.polled = None;
                        if !r.dl_sent {
                            r.idle_polls += 1;
                        }
                    }
                    self.settle_dl(now, false, out);
                    // PIFS has passed: the next frame now.
                    self.cfp_frame(now, out);
                    return;
                }
                Next::CfpFrame(_) => {
                    self.cfp_frame(now, out);
                    return;
                }
                Next::Wait => {}
            }
        }
        if Mac::next_wakeup(&self.dcf) == now {
            self.dcf.on_wake(now, out);
        }
    }
    fn next_wakeup(&self) -> SimTime {
        Mac::next_wakeup(&self.dcf).min(self.own_wake())
    }
    fn held(&self) -> impl Iterator<Item = &Packet> {
        Mac::held(&self.dcf).chain(self.dl.as_ref().map(|d| d.packet()))
    }
    #[inline]
    fn counters(&self) -> MacCounters {
        Mac::counters(&self.dcf)
    }
    fn eifs_after_collision(&self) -> bool {
        Mac::eifs_after_collision(&self.dcf)
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

/// The AP offers the DCF's group rules so that its stations may be grouped,
/// but never joins the group itself (`shares_view` is false): its beacon
/// timer is its own.
impl Bystander for Coordinator {
    fn group_rules(&self) -> GroupRules {
        Bystander::group_rules(&self.dcf)
    }
    fn is_quiet(&self) -> bool {
        false
    }
    fn has_frame(&self) -> bool {
        Bystander::has_frame(&self.dcf)
    }
    fn shares_view(&self, _: &CsView, _: SimTime) -> bool {
        false
    }
    fn backoff(&self) -> Option<u32> {
        Bystander::backoff(&self.dcf)
    }
    fn adopt_view(&mut self, _: &CsView, _: Option<u32>, _: u64) {
        unreachable!("the AP never joins the bystander group")
    }
    fn install_msdu(&mut self, _: SimTime, _: Packet, _: MacAddr) {
        unreachable!("the AP never joins the bystander group")
    }
}
