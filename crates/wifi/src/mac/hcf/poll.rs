//! AP-scheduled access in the HCF: polled TXOPs (HCCA's controlled access,
//! IEEE 802.11-2020 10.23.3), with a [`PollScheduler`] deciding the grants
//! (`mac/sched`).
//!
//! The AP (hybrid coordinator) starts a service period every `interval`:
//! once the medium has been idle for PIFS (10.3.2.3.3: SIFS + aSlotTime,
//! shorter than any AIFS, so no EDCAF can start first) it takes each grant
//! of its scheduler in turn. For each granted station it first sends its own
//! downlink for that station as a TXOP of the grant's length (A-MPDUs with
//! immediate BlockAck, like a TXOP won by contention), then a QoS CF-Poll
//! whose Duration is the granted TXOP (so every other station's NAV covers
//! it). The polled station answers SIFS later: an A-MPDU (or more
//! exchanges while they fit in the TXOP), or a QoS Null when it has nothing
//! to send. The AP takes the medium back PIFS after it goes idle, and the
//! period ends when the scheduler has no grant left, or the next grant would
//! not fit before `max_period` has passed. Between periods every station,
//! the AP included, contends with EDCA.
//!
//! A station may hold its traffic for the polls (`HcfParams::poll_hold`,
//! the token of a polled list as in paper 000's multi-poll, where listed
//! stations send only when the token reaches them, and as HCCA serves an
//! admitted traffic stream only in polled TXOPs, 10.23.3): from a poll
//! until `poll_hold` after the end of the TXOP it grants (each poll moves
//! that instant) its best-effort and background EDCAFs do not count; then,
//! with no poll since, they contend again, counting AIFS and backoff from
//! that instant. Its video and voice EDCAFs keep contending: the paper's
//! "stations which have high-priority packets receive capability to access
//! wireless medium without waiting for polling tokens".
//!
//! Model choices:
//! - A station's polled TXOP serves its highest-priority access category
//!   with traffic; CW and backoff of its EDCAFs are untouched by polled
//!   TXOPs (they were not won by contention), and so are the AP's by its
//!   own scheduled TXOPs.
//! - The AP proceeds PIFS after the polled TXOP ends (also after a QoS
//!   Null), the recovery rule of 10.23.3 for a TXOP that ended early.
//! - The QoS CF-Poll goes at the data rate in the PPDU format of data
//!   frames (30 octets: QoS Data header 26, FCS 4), as do QoS Null answers.
//! - No admission control (TSPECs): the scheduler's list decides who is
//!   polled, and its TXOP is the same for every grant.
use super::{Hcf, Txop};
use crate::mac::frame::{Frame, FrameKind, MacAddr, MacSink, Mpdus};
use crate::mac::sched::{Grant, PollScheduler, Usage};
use wifitcp_core::{SimDur, SimTime};

/// QoS CF-Poll and QoS Null: QoS Data header (26 octets) and FCS, no body.
pub const QOS_NULL_LEN: u32 = 30;

/// When the AP polls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PollConfig {
    /// A service period starts every `interval`.
    pub interval: SimDur,
    /// Most time a service period may take.
    pub max_period: SimDur,
}

/// Where the AP's polling stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Between service periods, until `next_period`.
    Idle,
    /// A period is due: waiting for PIFS of idle medium.
    Starting,
    /// In a service period.
    Period,
}

/// The grant in progress.
#[derive(Clone, Copy, Debug)]
struct Current {
    g: Grant,
    u: Usage,
    /// The AP's own downlink for the station has had its TXOP.
    downlink_served: bool,
    /// The QoS CF-Poll has been sent.
    polled: bool,
}

/// The AP's polling state.
pub(super) struct Poller {
    sched: Box<dyn PollScheduler>,
    cfg: PollConfig,
    phase: Phase,
    next_period: SimTime,
    period_end: SimTime,
    period_start: SimTime,
    current: Option<Current>,
    /// When the AP may act next, PIFS after the medium turned idle
    /// (`None`: wait for it to turn idle).
    act_at: Option<SimTime>,
}

impl Hcf {
    /// Make this (AP's) HCF poll with `sched` (module docs); the first
    /// service period is due at `interval`.
    pub fn set_poller(&mut self, sched: Box<dyn PollScheduler>, cfg: PollConfig) {
        assert!(cfg.interval > SimDur::ZERO, "a zero polling interval");
        self.poller = Some(Box::new(Poller {
            sched,
            cfg,
            phase: Phase::Idle,
            next_period: SimTime::ZERO + cfg.interval,
            period_end: SimTime::ZERO,
            period_start: SimTime::ZERO,
            current: None,
            act_at: None,
        }));
    }

    fn pifs(&self) -> SimDur {
        self.p.timing.sifs + self.p.timing.slot
    }

    /// A service period is due or under way: the AP does not contend.
    #[inline]
    pub(super) fn polling(&self) -> bool {
        self.poller.as_ref().is_some_and(|p| p.phase != Phase::Idle)
    }

    /// The poller's next instant.
    pub(super) fn poll_timer(&self) -> SimTime {
        match self.poller.as_deref() {
            None => SimTime::NEVER,
            Some(p) if p.phase == Phase::Idle => p.next_period,
            Some(p) => p.act_at.unwrap_or(SimTime::NEVER),
        }
    }

    /// The medium turned idle for the AP at `now` (its CCA, or the end of
    /// its own frame with nothing awaited): it may act PIFS later.
    pub(super) fn poll_idle(&mut self, now: SimTime) {
        let pifs = self.pifs();
        if let Some(p) = self.poller.as_deref_mut() {
            if p.phase != Phase::Idle {
                p.act_at = Some(now + pifs);
            }
        }
    }

    /// The medium turned busy for the AP.
    pub(super) fn poll_busy(&mut self) {
        if let Some(p) = self.poller.as_deref_mut() {
            if p.phase != Phase::Idle {
                p.act_at = None;
            }
        }
    }

    /// The instant PIFS after the medium became free for the AP (`None`:
    /// busy, or an exchange of its own under way).
    fn pifs_after_free(&self) -> Option<SimTime> {
        if self.engaged_apart_from_polling() {
            return None;
        }
        self.cs.free_since().map(|f| f + self.pifs())
    }

    /// Woken at `poll_timer()`: start a period, or the next step of it.
    /// Returns whether the poller acted at `now`.
    pub(super) fn poll_wake(&mut self, now: SimTime, out: &mut impl MacSink) -> bool {
        if self.poller.is_none() || self.poll_timer() != now {
            return false;
        }
        let at = self.pifs_after_free();
        let p = self.poller.as_deref_mut().expect("a poller");
        if p.phase == Phase::Idle {
            // The AP stops contending and waits for PIFS of idle medium.
            p.phase = Phase::Starting;
            p.next_period = now + p.cfg.interval;
            self.freeze(now);
            for a in self.acs.iter_mut() {
                if a.bo.take_count_from().is_some() {
                    // Its countdown ended now: it goes first after the period.
                    a.bo.set_slots(Some(0));
                }
            }
        }
        let p = self.poller.as_deref_mut().expect("a poller");
        match at {
            Some(t) if t <= now => {}
            _ => {
                p.act_at = at;
                return true;
            }
        }
        if p.phase == Phase::Starting {
            p.phase = Phase::Period;
            p.period_start = now;
            p.period_end = now + p.cfg.max_period;
            p.sched.begin(now);
            self.stats.service_periods += 1;
        }
        self.grant_step(now, out);
        true
    }

    /// The next step of the period: the AP's downlink TXOP for the granted
    /// station, the poll, the next grant, or the end of the period.
    fn grant_step(&mut self, now: SimTime, out: &mut impl MacSink) {
        loop {
            let p = self.poller.as_deref_mut().expect("a poller");
            p.act_at = None;
            let Some(mut c) = p.current else {
                match p.sched.next(now) {
                    Some(g) if now + g.txop <= p.period_end => {
                        let u = Usage { bytes: 0, empty: false };
                        p.current = Some(Current { g, u, downlink_served: false, polled: false });
                        continue;
                    }
                    _ if self.end_period(now) => continue,
                    _ => return,
                }
            };
            if !c.downlink_served {
                c.downlink_served = true;
                p.current = Some(c);
                if let Some(l) = self.downlink_for(c.g.sta) {
                    // The AP's own downlink for the station, as a TXOP of
                    // the grant's length (not contended).
                    self.stats.scheduled_txops += 1;
                    let ac = self.links[l].ac as usize;
                    self.txop = Some(Txop { ac, link: l, end: Some(now + c.g.txop), bar_only: false, granted: true });
                    let f = self.build_exchange(now, l, false, out);
                    let f = self.protect(f);
                    self.counters.attempts += 1;
                    self.transmit(now, f, out);
                    return;
                }
                continue;
            }
            if !c.polled {
                c.polled = true;
                p.current = Some(c);
                self.stats.polls += 1;
                let f = self.no_body_frame(FrameKind::QosCfPoll, c.g.sta, c.g.txop);
                self.transmit(now, f, out);
                return;
            }
            // The station's TXOP is over.
            p.current = None;
            p.sched.done(now, c.g, c.u);
            if c.u.empty {
                self.stats.poll_nulls += 1;
            } else if c.u.bytes == 0 {
                self.stats.poll_no_answers += 1;
            }
        }
    }

    /// The AP's link with traffic for `sta`, highest access category first.
    fn downlink_for(&self, sta: MacAddr) -> Option<usize> {
        let ba = self.p.block_ack;
        let mut best: Option<usize> = None;
        for (i, l) in self.links.iter().enumerate() {
            if l.ra == sta && l.has_work(ba) && best.is_none_or(|b| self.links[b].ac < l.ac) {
                best = Some(i);
            }
        }
        best
    }

    /// The period ends at `now`. If the next one is due already (this one
    /// overran the interval), it begins at once, the medium being the AP's:
    /// returns true.
    fn end_period(&mut self, now: SimTime) -> bool {
        let p = self.poller.as_deref_mut().expect("a poller");
        p.act_at = None;
        p.current = None;
        self.stats.period_ns += now.saturating_since(p.period_start).as_nanos();
        let (j, l) = p.sched.joins_leaves();
        self.stats.list_joins = j;
        self.stats.list_leaves = l;
        if p.next_period <= now {
            p.period_start = now;
            p.period_end = now + p.cfg.max_period;
            p.next_period = now + p.cfg.interval;
            p.sched.begin(now);
            self.stats.service_periods += 1;
            return true;
        }
        p.phase = Phase::Idle;
        self.refresh_has_frame();
        // (a period with no grant ends where it began, the medium idle all
        // along: counting goes on from now, not from AIFS after it freed)
        self.resume_not_before(now);
        false
    }

    /// A QoS CF-Poll or QoS Null (no body, `QOS_NULL_LEN` octets) to `ra`.
    fn no_body_frame(&self, kind: FrameKind, ra: MacAddr, duration: SimDur) -> Frame {
        let t = &self.p.timing;
        Frame {
            mu: None,
            kind,
            ta: self.addr,
            ra,
            duration,
            seq: 0,
            retry: false,
            mpdu_bytes: QOS_NULL_LEN,
            rate: t.data_rate,
            airtime: t.data_ppdu_time(QOS_NULL_LEN),
            contended: false,
            mpdus: Mpdus::none(),
        }
    }

    /// Data of `bytes` from or to `sta` (activity, and the grant's use).
    pub(super) fn poll_observe(&mut self, now: SimTime, sta: MacAddr, bytes: u32) {
        if let Some(p) = self.poller.as_deref_mut() {
            p.sched.observe(now, sta, bytes);
            if let Some(c) = p.current.as_mut() {
                if c.polled && c.g.sta == sta {
                    c.u.bytes += u64::from(bytes);
                }
            }
        }
    }

    /// A QoS Null from `sta`: its grant was empty.
    pub(super) fn poll_null(&mut self, sta: MacAddr) {
        if let Some(c) = self.poller.as_deref_mut().and_then(|p| p.current.as_mut()) {
            if c.polled && c.g.sta == sta && c.u.bytes == 0 {
                c.u.empty = true;
            }
        }
    }

    /// The AP's list (results): stations listed now.
    pub fn poll_listed(&self) -> Option<usize> {
        self.poller.as_deref().map(|p| p.sched.listed())
    }

    // ------------------------------------------------------------------
    // The polled station

    /// A QoS CF-Poll addressed to us ended at `now`: our TXOP starts SIFS
    /// later and lasts the Duration it carried.
    pub(super) fn rx_poll(&mut self, now: SimTime, f: &Frame) {
        if self.seq.under_way() {
            return;
        }
        // Our EDCAFs stay frozen until the TXOP ends (`engaged`), and while
        // we hold our traffic for the polls.
        self.grant = Some((now + self.p.timing.sifs, now + f.duration, f.ta));
        if let Some(h) = self.p.poll_hold {
            self.held_until = now + f.duration + h;
        }
    }

    /// At the end of a hold (`HcfParams::poll_hold`) with no poll since:
    /// contend with EDCA again, counting from now (not while it held).
    pub(super) fn hold_ends(&mut self, now: SimTime) {
        if self.held_until != SimTime::ZERO && self.held_until <= now {
            self.held_until = SimTime::ZERO;
            self.resume_not_before(now);
        }
    }

    /// Woken at the start of a granted TXOP: fill it like a TXOP won by
    /// contention (`wake`), or answer QoS Null.
    pub(super) fn grant_wake(&mut self, now: SimTime, out: &mut impl MacSink) -> bool {
        let Some((at, end, ap)) = self.grant else { return false };
        if at != now {
            return false;
        }
        self.grant = None;
        self.stats.polled_txops += 1;
        let Some(ac) = (0..4).rev().find(|&i| self.acs[i].has_frame) else {
            let null = self.no_body_frame(FrameKind::QosNull, ap, SimDur::ZERO);
            self.stats.null_answers += 1;
            self.transmit(now, null, out);
            return true;
        };
        self.granted_end = Some(end);
        if self.max_per_exchange() > 1 {
            // Top the exchange up from the queue at this instant (`wake`).
            self.access_at = Some((now, ac));
            if self.waiting < self.hold_limit() {
                self.ask(now, out);
            }
            return true;
        }
        self.start_txop(now, ac, out);
        true
    }
}
