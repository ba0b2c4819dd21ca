//! CoDel, Controlled Delay AQM (RFC 8289), as a per-queue state machine
//! used by FQ-CoDel and airtime fairness, and as a single-queue discipline
//! (`kind = "codel"`).
//!
//! Rules (RFC 8289 sections 3 and 5):
//! - Sojourn time is measured per packet from enqueue to dequeue.
//! - `ok_to_drop` becomes true once the sojourn time has stayed at or above
//!   `target` (5 ms) for at least `interval` (100 ms), unless the queue
//!   holds at most one maximum-size packet after the dequeue ("MAXPACKET",
//!   here the largest packet the discipline has seen).
//! - Entering the dropping state drops one packet and schedules the next
//!   drop with the control law `drop_next = t + interval / sqrt(count)`;
//!   while dropping, every dequeue at or after `drop_next` drops and
//!   advances `count` and `drop_next`; the state ends as soon as the
//!   sojourn time falls below target.
//! - On re-entry shortly after leaving (now - drop_next < 16 intervals)
//!   `count` restarts from the number of drops of the last cycle
//!   (`count - lastcount`) if that exceeds 1, else from 1 (RFC 8289 section
//!   5.5, the Linux variant the RFC presents).
//! - CoDel drops at dequeue (reason `QueueAqm`). With `ecn = true` an
//!   ECT packet due to be dropped is marked CE and sent instead (RFC 8289
//!   section 5, "the packet is marked instead of dropped"; RFC 3168
//!   section 5): entering the dropping state marks that packet, and while
//!   dropping each due signal marks the head and advances `count` and
//!   `drop_next` by the control law, one signal per dequeue (as Linux's
//!   codel does). Not-ECT packets are dropped as before. The CoDel
//!   discipline's buffer limit is drop-tail (`QueueFull`), never a mark.
use crate::config::{positive_ms, ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::droptail::Fifo;
use crate::occupancy::Occupancy;
use wifitcp_core::schema::TIMER_MS;
use wifitcp_core::{DropReason, RngStream, SimDur, SimTime};

wifitcp_core::config_table! {
    /// `kind = "codel"`.
    #[serde(deny_unknown_fields)]
    pub struct CodelConfig {
        /// CoDel target (RFC 8289).
        #[key(range = TIMER_MS, unit = "ms")]
        pub target_ms: f64 = 5.0,
        /// CoDel interval (RFC 8289).
        #[key(range = TIMER_MS, unit = "ms")]
        pub interval_ms: f64 = 100.0,
        /// Mark ECT packets CE instead of dropping them (RFC 8289 5, RFC 3168).
        pub ecn: bool = false,
    }
}

impl CodelConfig {
    /// The parameters of `target_ms` and `interval_ms`: both positive.
    pub(crate) fn params(target_ms: f64, interval_ms: f64, ecn: bool) -> Result<CodelParams, ConfigError> {
        Ok(CodelParams {
            target: positive_ms("target_ms", target_ms)?,
            interval: positive_ms("interval_ms", interval_ms)?,
            ecn,
        })
    }
}

impl QdiscKind for CodelConfig {
    fn build(&self, _: &'static str, capacity: usize, _: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        Ok(Box::new(Codel::new(capacity, CodelConfig::params(self.target_ms, self.interval_ms, self.ecn)?)))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodelParams {
    pub target: SimDur,
    pub interval: SimDur,
    /// Mark ECT packets CE instead of dropping them.
    pub ecn: bool,
}

impl Default for CodelParams {
    /// RFC 8289 section 4.3/4.4 defaults: target 5 ms, interval 100 ms.
    fn default() -> Self {
        CodelParams { target: SimDur::from_millis(5), interval: SimDur::from_millis(100), ecn: false }
    }
}

/// CoDel per-queue state (RFC 8289 section 5).
#[derive(Clone, Debug, Default)]
pub struct CodelState {
    first_above_time: Option<SimTime>,
    drop_next: SimTime,
    count: u32,
    lastcount: u32,
    dropping: bool,
    /// Packets marked CE instead of dropped.
    pub marks: u64,
}

/// CoDel's control law (RFC 8289 5.4): the next signal `interval /
/// sqrt(count)` after `t`; COBALT ([`crate::cake`]) uses the same rule.
pub(crate) fn control_law(t: SimTime, interval: SimDur, count: u32) -> SimTime {
    let step = interval.as_nanos() as f64 / (count.max(1) as f64).sqrt();
    t + SimDur::from_nanos(step.round() as u64)
}

impl CodelState {
    pub fn dropping(&self) -> bool {
        self.dropping
    }
    pub fn count(&self) -> u32 {
        self.count
    }

    fn do_dequeue(&mut self, now: SimTime, q: &mut Fifo, p: &CodelParams, maxpacket: u64) -> (Option<Queued>, bool) {
        let Some(x) = q.pop() else {
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.since(x.enqueued_at);
        let mut ok = false;
        if sojourn < p.target || q.bytes() <= maxpacket {
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + p.interval),
                Some(t) => ok = now >= t,
            }
        }
        (Some(x), ok)
    }

    /// Dequeue from `q` at `now`, dropping per the control law; dropped
    /// packets are passed to `on_drop`.
    pub fn dequeue(
        &mut self,
        now: SimTime,
        q: &mut Fifo,
        p: &CodelParams,
        maxpacket: u64,
        on_drop: &mut dyn FnMut(Queued),
    ) -> Option<Queued> {
        let (mut r, mut ok) = self.do_dequeue(now, q, p, maxpacket);
        if r.is_none() {
            self.dropping = false;
            return None;
        }
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                if p.ecn && r.as_mut().expect("packet").pkt.ip.mark_ce() {
                    self.marks += 1;
                    self.count += 1;
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                    break;
                }
                on_drop(r.take().expect("packet"));
                self.count += 1;
                (r, ok) = self.do_dequeue(now, q, p, maxpacket);
                if !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = control_law(self.drop_next, p.interval, self.count);
                }
            }
        } else if ok {
            if p.ecn && r.as_mut().expect("packet").pkt.ip.mark_ce() {
                self.marks += 1;
            } else {
                on_drop(r.take().expect("packet"));
                (r, _) = self.do_dequeue(now, q, p, maxpacket);
            }
            self.dropping = true;
            let delta = self.count.saturating_sub(self.lastcount);
            let recent = now < self.drop_next || now.since(self.drop_next) < p.interval * 16;
            self.count = if delta > 1 && recent { delta } else { 1 };
            self.drop_next = control_law(now, p.interval, self.count);
            self.lastcount = self.count;
        }
        r
    }
}

/// Single-queue CoDel with a drop-tail packet limit.
pub struct Codel {
    limit: usize,
    p: CodelParams,
    state: CodelState,
    fifo: Fifo,
    maxpacket: u64,
    counters: QueueCounters,
    occ: Occupancy,
}

impl Codel {
    pub fn new(limit: usize, p: CodelParams) -> Self {
        Codel {
            limit,
            p,
            state: CodelState::default(),
            fifo: Fifo::default(),
            maxpacket: 0,
            counters: QueueCounters::default(),
            occ: Occupancy::default(),
        }
    }
}

impl QueueDisc for Codel {
    fn kind(&self) -> &'static str {
        "codel"
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        self.counters.offered(&item);
        if self.fifo.len() >= self.limit {
            self.counters.drop_pkt(dropped, item.pkt, DropReason::QueueFull);
        } else {
            item.enqueued_at = now;
            self.maxpacket = self.maxpacket.max(item.size());
            self.fifo.push(item);
        }
        self.occ.update(now, self.fifo.len(), self.fifo.bytes());
    }
    fn dequeue(&mut self, now: SimTime, dropped: &mut Dropped) -> Option<Queued> {
        let counters = &mut self.counters;
        let m0 = self.state.marks;
        let x = self.state.dequeue(now, &mut self.fifo, &self.p, self.maxpacket, &mut |d: Queued| {
            counters.drop_pkt(dropped, d.pkt, DropReason::QueueAqm)
        });
        self.counters.ce_marked += self.state.marks - m0;
        if let Some(x) = &x {
            self.counters.sent(x);
        }
        self.occ.update(now, self.fifo.len(), self.fifo.bytes());
        x
    }
    crate::disc::fifo_accessors!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;

    /// A standing queue: 1500-byte packets arrive every `gap_us` and the
    /// link serves one every `serve_us` (slower), for `dur_ms`. Returns the
    /// instants of CoDel drops.
    fn standing_queue(gap_us: u64, serve_us: u64, dur_ms: u64) -> (Codel, Vec<SimTime>) {
        let mut c = Codel::new(10_000, CodelParams::default());
        let mut drops = Vec::new();
        let (mut next_arr, mut next_srv) = (0u64, 0u64);
        let mut i = 0;
        while next_arr.min(next_srv) < dur_ms * 1000 {
            let mut dr = Vec::new();
            if next_arr <= next_srv {
                c.enqueue(us(next_arr), q(data(1, i)), &mut dr);
                i += 1;
                next_arr += gap_us;
            } else {
                c.dequeue(us(next_srv), &mut dr);
                drops.extend(dr.iter().map(|_| us(next_srv)));
                next_srv += serve_us;
            }
            assert!(c.counters().balances(c.len()));
        }
        (c, drops)
    }

    #[test]
    fn no_drop_while_sojourn_below_target() {
        // served faster than arrivals: sojourn ~0
        let (c, drops) = standing_queue(1000, 500, 1000);
        assert!(drops.is_empty());
        assert_eq!(c.counters().dropped(DropReason::QueueAqm), 0);
    }

    #[test]
    fn drops_once_sojourn_above_target_for_an_interval() {
        // arrivals every 1 ms, service every 1.2 ms: the queue (and the
        // sojourn time) grows by 1 packet per 6 ms; sojourn = 0.2 ms per
        // queued packet, passing 5 ms at about 25 queued packets, i.e. at
        // t ~ 150 ms. The first drop must come one interval (100 ms) after
        // sojourn first exceeds target, not before.
        let (_, drops) = standing_queue(1000, 1200, 2000);
        assert!(!drops.is_empty());
        let first = drops[0];
        // packet k arrives at k ms and is served at 1.2 k ms: sojourn
        // 0.2 k ms reaches target at k = 25 (t = 30 ms); the first drop
        // comes at the first service at or after 30 ms + interval.
        let crossing = SimTime::from_micros(25 * 1200);
        assert!(first >= crossing + SimDur::from_millis(100), "first drop {first:?}");
        assert!(first <= crossing + SimDur::from_micros(101_200), "first drop {first:?}");
        // then drops come closer: interval / sqrt(count), on the 1.2 ms grid
        let gaps: Vec<u64> = drops.windows(2).map(|w| (w[1] - w[0]).as_nanos()).take(3).collect();
        assert!(gaps[0] <= 101_200_000 && gaps[1] < gaps[0] && gaps[2] < gaps[1], "{gaps:?}");
        assert!((70_000_000..72_000_000).contains(&gaps[1]), "{gaps:?}");
    }

    /// As `standing_queue`, ECT(0) packets, with `ecn`: the served
    /// packets' CE instants and the drops.
    fn standing_queue_ecn(ecn: bool, ect: bool) -> (Codel, Vec<SimTime>, usize) {
        let mut c = Codel::new(10_000, CodelParams { ecn, ..CodelParams::default() });
        let (mut marks, mut drops) = (Vec::new(), 0);
        let (mut next_arr, mut next_srv) = (0u64, 0u64);
        let mut i = 0;
        while next_arr.min(next_srv) < 2_000_000 {
            let mut dr = Vec::new();
            if next_arr <= next_srv {
                let mut p = data(1, i);
                if ect {
                    p.ip.set_ecn(wifitcp_wire::Ecn::Ect0);
                }
                c.enqueue(us(next_arr), q(p), &mut dr);
                i += 1;
                next_arr += 1000;
            } else {
                if let Some(x) = c.dequeue(us(next_srv), &mut dr) {
                    if x.pkt.ip.ecn() == 3 {
                        marks.push(us(next_srv));
                    }
                }
                drops += dr.len();
                next_srv += 1200;
            }
            assert!(c.counters().balances(c.len()));
        }
        (c, marks, drops)
    }

    #[test]
    fn ecn_marks_ect_packets_where_it_would_drop() {
        let (_, drop_at) = standing_queue(1000, 1200, 2000);
        let (c, marks, drops) = standing_queue_ecn(true, true);
        assert_eq!(drops, 0, "ECT packets are marked, not dropped (RFC 8289 5)");
        assert_eq!(c.counters().ce_marked, marks.len() as u64);
        // the first signal comes at the same instant as the first drop
        assert_eq!(marks[0], drop_at[0]);
        // marking does not shorten the queue, so the dropping state never
        // ends early: at least as many signals as drops over the same time
        assert!(marks.len() >= drop_at.len(), "{} marks vs {} drops", marks.len(), drop_at.len());
        // ecn on, Not-ECT traffic: drops as without ecn
        let (_, m, d) = standing_queue_ecn(true, false);
        assert!(m.is_empty());
        assert_eq!(d, drop_at.len());
        // ecn off, ECT traffic: drops, no marks
        let (_, m, d) = standing_queue_ecn(false, true);
        assert!(m.is_empty() && d == drop_at.len());
    }

    #[test]
    fn control_law_spacing() {
        let t = SimTime::from_millis(1000);
        let i = SimDur::from_millis(100);
        assert_eq!(control_law(t, i, 1), t + i);
        assert_eq!(control_law(t, i, 4), t + SimDur::from_millis(50));
        assert_eq!(control_law(t, i, 2), t + SimDur::from_nanos(70_710_678));
    }
}
