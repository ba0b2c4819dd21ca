//! DualPI2, the Dual-Queue Coupled AQM of RFC 9332 with a PI2 base AQM
//! (De Schepper et al., "PI2: A Linearized AQM for both Classic and
//! Scalable TCP", CoNEXT 2016).
//!
//! Rules (RFC 9332 sections 2.4, 2.5 and appendix A):
//! - Classification (2.5.1.1, RFC 9331 section 5.1): ECT(1) and CE packets
//!   join the L4S queue (L), all others the Classic queue (C). The two
//!   share the interface's packet limit (an arrival that finds it full is
//!   dropped, `QueueFull`).
//! - Base AQM (A.2): every `t_update` (16 ms) the PI controller updates the
//!   base probability `p' += alpha (q - target) + beta (q - q_prev)`,
//!   clamped to [0, 1], where `q` is the larger of the two queues' head
//!   sojourn times in seconds, target 15 ms, alpha 0.16 and beta 3.2 (the
//!   gains per second of queue delay, applied at each update, as Linux's
//!   sch_dualpi2 applies its defaults of the same values).
//! - Coupling (2.4): Classic probability `p_C = (p')^2` (the squaring of
//!   PI2), coupled L4S probability `p_CL = min(k p', 1)`, k = 2.
//! - L4S queue (2.5.1.2): native step marking: a packet whose sojourn time
//!   at dequeue exceeds `step_us` (1 ms) is marked; otherwise it is marked
//!   with probability `p_CL`. L4S packets are ECN-capable, so L4S signals
//!   are always marks.
//! - Classic queue: a packet is signalled with probability `p_C` at
//!   dequeue: marked CE if ECT(0) (classic ECN), dropped (`QueueAqm`)
//!   otherwise.
//! - Scheduler (2.5.1.3, A.1): time-shifted FIFO: the L queue is served
//!   unless the C head's sojourn exceeds the L head's by more than
//!   `tshift` (30 ms, twice the target), which bounds Classic starvation.
//! - Deviations: no overload mode (RFC 9332 2.5.1.4: above `p_Cmax` the
//!   L queue would switch to drop; here `p'` is only clamped at 1); no
//!   ramp for the native L4S AQM (A.1 shows a ramp; here the step of
//!   RFC 9332 section 2.5.1.2's simplest option, as Linux's default);
//!   the PI update is evaluated lazily at the next enqueue or dequeue
//!   (every missed `t_update` is applied in order, so the result is that
//!   of a timer).
use crate::config::{ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::droptail::Fifo;
use crate::occupancy::Occupancy;
use wifitcp_core::config::check;
use wifitcp_core::schema::r;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::{DropReason, RngStream, SimDur, SimTime};
use wifitcp_wire::Ecn;

wifitcp_core::config_table! {
    /// `kind = "dualpi2"` (RFC 9332). The packet limit (both queues) is the interface capacity.
    #[serde(deny_unknown_fields)]
    pub struct DualPi2Config {
        /// Classic queue-delay target of the PI controller.
        #[key(range = r(Ex(0.0), In(1e4)), unit = "ms")]
        pub target_ms: f64 = 15.0,
        /// PI update interval.
        #[key(range = r(Ex(0.0), In(1e4)), unit = "ms")]
        pub t_update_ms: f64 = 16.0,
        /// PI integral gain (per second of delay error, per update).
        #[key(range = r(In(0.0), In(1e3)))]
        pub alpha: f64 = 0.16,
        /// PI proportional gain (per second of delay change, per update).
        #[key(range = r(In(0.0), In(1e3)))]
        pub beta: f64 = 3.2,
        /// Coupling factor k (p_CL = k p').
        #[key(range = r(Ex(0.0), In(1e3)))]
        pub k: f64 = 2.0,
        /// L4S step-marking threshold on sojourn time.
        #[key(range = r(Ex(0.0), In(1e7)), unit = "us")]
        pub step_us: f64 = 1000.0,
        /// Time shift of the scheduler's time-shifted FIFO.
        #[key(range = r(In(0.0), In(1e4)), unit = "ms")]
        pub tshift_ms: f64 = 30.0,
    }
}

impl QdiscKind for DualPi2Config {
    fn build(&self, _: &'static str, capacity: usize, rng: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        for (k, x) in [("target_ms", self.target_ms), ("t_update_ms", self.t_update_ms), ("k", self.k), ("step_us", self.step_us)] {
            check(x.is_finite() && x > 0.0, k, "must be positive")?;
        }
        for (k, x) in [("alpha", self.alpha), ("beta", self.beta), ("tshift_ms", self.tshift_ms)] {
            check(x.is_finite() && x >= 0.0, k, "must be at least 0")?;
        }
        Ok(Box::new(DualPi2::new(capacity, self.clone(), RngStream::derive(rng.next_u64(), "dualpi2"))))
    }
}

/// Which queue a packet joins (RFC 9332 2.5.1.1).
pub fn is_l4s(e: Ecn) -> bool {
    matches!(e, Ecn::Ect1 | Ecn::Ce)
}

pub struct DualPi2 {
    limit: usize,
    cfg: DualPi2Config,
    rng: RngStream,
    l: Fifo,
    c: Fifo,
    /// Base probability p'.
    pub p: f64,
    q_prev: f64,
    next_update: SimTime,
    counters: QueueCounters,
    occ: Occupancy,
    /// Signals by queue: L marks (step, coupled), C marks, C drops.
    pub l_step_marks: u64,
    pub l_coupled_marks: u64,
    pub c_marks: u64,
    pub c_drops: u64,
}

impl DualPi2 {
    pub fn new(limit: usize, cfg: DualPi2Config, rng: RngStream) -> Self {
        let t = SimDur::from_secs_f64(cfg.t_update_ms / 1e3);
        DualPi2 {
            limit,
            cfg,
            rng,
            l: Fifo::default(),
            c: Fifo::default(),
            p: 0.0,
            q_prev: 0.0,
            next_update: SimTime::ZERO + t,
            counters: QueueCounters::default(),
            occ: Occupancy::default(),
            l_step_marks: 0,
            l_coupled_marks: 0,
            c_marks: 0,
            c_drops: 0,
        }
    }

    /// Classic drop/mark probability p_C = p'^2 (RFC 9332 2.4).
    pub fn p_c(&self) -> f64 {
        self.p * self.p
    }
    /// Coupled L4S marking probability p_CL = min(k p', 1).
    pub fn p_cl(&self) -> f64 {
        (self.cfg.k * self.p).min(1.0)
    }
    /// Packets in the L and C queues.
    pub fn lens(&self) -> (usize, usize) {
        (self.l.len(), self.c.len())
    }

    fn head_sojourn(q: &Fifo, now: SimTime) -> f64 {
        q.front().map_or(0.0, |x| now.saturating_since(x.enqueued_at).as_secs_f64())
    }

    /// Apply every PI update due at or before `now` (A.2 dualpi2_update).
    fn update(&mut self, now: SimTime) {
        let t = SimDur::from_secs_f64(self.cfg.t_update_ms / 1e3);
        while self.next_update <= now {
            let at = self.next_update;
            let q = DualPi2::head_sojourn(&self.c, at).max(DualPi2::head_sojourn(&self.l, at));
            let target = self.cfg.target_ms / 1e3;
            self.p = (self.p + self.cfg.alpha * (q - target) + self.cfg.beta * (q - self.q_prev)).clamp(0.0, 1.0);
            self.q_prev = q;
            self.next_update = at + t;
            if self.p == 0.0 && self.l.is_empty() && self.c.is_empty() && self.next_update <= now {
                // idle and at zero: later updates change nothing but q_prev (0)
                let missed = now.since(self.next_update).as_nanos() / t.as_nanos().max(1);
                self.next_update += SimDur::from_nanos(missed * t.as_nanos());
            }
        }
    }

    /// The queue the time-shifted FIFO serves next: true for L.
    fn serve_l(&self, now: SimTime) -> Option<bool> {
        match (self.l.front(), self.c.front()) {
            (None, None) => None,
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (Some(_), Some(_)) => {
                let shift = self.cfg.tshift_ms / 1e3;
                Some(DualPi2::head_sojourn(&self.l, now) + shift >= DualPi2::head_sojourn(&self.c, now))
            }
        }
    }
}

impl QueueDisc for DualPi2 {
    fn kind(&self) -> &'static str {
        "dualpi2"
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        self.update(now);
        self.counters.offered(&item);
        if self.l.len() + self.c.len() >= self.limit {
            self.counters.drop_pkt(dropped, item.pkt, DropReason::QueueFull);
        } else {
            item.enqueued_at = now;
            if is_l4s(item.pkt.ip.ecn_codepoint()) {
                self.l.push(item);
            } else {
                self.c.push(item);
            }
        }
        self.occ.update(now, self.len(), self.bytes());
    }
    fn dequeue(&mut self, now: SimTime, dropped: &mut Dropped) -> Option<Queued> {
        self.update(now);
        let out = loop {
            let Some(l) = self.serve_l(now) else { break None };
            if l {
                let mut x = self.l.pop().expect("L head");
                let step = now.saturating_since(x.enqueued_at).as_secs_f64() * 1e6 > self.cfg.step_us;
                let mark = step || self.rng.unit() < self.p_cl();
                if mark && x.pkt.ip.mark_ce() {
                    if step {
                        self.l_step_marks += 1;
                    } else {
                        self.l_coupled_marks += 1;
                    }
                    self.counters.ce_marked += 1;
                }
                break Some(x);
            }
            let mut x = self.c.pop().expect("C head");
            if self.rng.unit() < self.p_c() {
                if x.pkt.ip.mark_ce() {
                    self.c_marks += 1;
                    self.counters.ce_marked += 1;
                } else {
                    self.c_drops += 1;
                    self.counters.drop_pkt(dropped, x.pkt, DropReason::QueueAqm);
                    continue;
                }
            }
            break Some(x);
        };
        if let Some(x) = &out {
            self.counters.sent(x);
        }
        self.occ.update(now, self.len(), self.bytes());
        out
    }
    fn len(&self) -> usize {
        self.l.len() + self.c.len()
    }
    fn bytes(&self) -> u64 {
        self.l.bytes() + self.c.bytes()
    }
    fn counters(&self) -> &QueueCounters {
        &self.counters
    }
    fn occupancy(&self) -> &Occupancy {
        &self.occ
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;

    fn pkt(e: Ecn, i: u32) -> Queued {
        let mut p = data(1, i);
        p.ip.set_ecn(e);
        q(p)
    }

    fn new() -> DualPi2 {
        DualPi2::new(10_000, DualPi2Config::default(), RngStream::derive(3, "t"))
    }

    #[test]
    fn classification_by_ecn_codepoint() {
        let mut d = new();
        let mut dr = Vec::new();
        for (i, e) in [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce].into_iter().enumerate() {
            d.enqueue(us(i as u64), pkt(e, i as u32), &mut dr);
        }
        assert_eq!(d.lens(), (2, 2), "ECT(1) and CE in L (RFC 9332 2.5.1.1)");
    }

    #[test]
    fn coupled_probabilities_closed_form() {
        // RFC 9332 2.4: p_C = (p_CL / k)^2 = p'^2, p_CL = k p'.
        let mut d = new();
        for p in [0.0, 0.01, 0.1, 0.3, 0.5, 0.7, 1.0] {
            d.p = p;
            assert!((d.p_c() - p * p).abs() < 1e-15);
            assert!((d.p_cl() - (2.0 * p).min(1.0)).abs() < 1e-15);
            if 2.0 * p < 1.0 {
                assert!((d.p_c() - (d.p_cl() / 2.0).powi(2)).abs() < 1e-15, "p_C = (p_CL / k)^2");
            }
        }
    }

    #[test]
    fn pi_update_follows_the_control_law() {
        // A C queue whose head has waited 16 ms at the first update: p' =
        // alpha (0.016 - 0.015) + beta (0.016 - 0) = 0.05136.
        let mut d = new();
        let mut dr = Vec::new();
        d.enqueue(SimTime::ZERO, pkt(Ecn::NotEct, 0), &mut dr);
        d.c.q[0].enqueued_at = SimTime::ZERO;
        d.update(SimTime::from_millis(16));
        let q = 0.016;
        let want = 0.16 * (q - 0.015) + 3.2 * q;
        assert!((d.p - want).abs() < 1e-12, "{} vs {want}", d.p);
        // the next update with the same head: integral only grows by alpha (q - target) + beta dq
        d.update(SimTime::from_millis(32));
        let want2 = want + 0.16 * (0.032 - 0.015) + 3.2 * (0.032 - 0.016);
        assert!((d.p - want2).abs() < 1e-12);
    }

    #[test]
    fn step_marking_in_l_and_coupled_signals() {
        let mut d = new();
        let mut dr = Vec::new();
        // two L packets; one served after 0.5 ms, one after 2 ms
        d.enqueue(SimTime::ZERO, pkt(Ecn::Ect1, 0), &mut dr);
        d.enqueue(SimTime::ZERO, pkt(Ecn::Ect1, 1), &mut dr);
        let a = d.dequeue(SimTime::from_micros(500), &mut dr).unwrap();
        assert_eq!(a.pkt.ip.ecn_codepoint(), Ecn::Ect1, "below the step, p' = 0: unmarked");
        let b = d.dequeue(SimTime::from_micros(2000), &mut dr).unwrap();
        assert_eq!(b.pkt.ip.ecn_codepoint(), Ecn::Ce, "above 1 ms: marked");
        assert_eq!(d.l_step_marks, 1);
        // Coupled: with p' fixed at 0.2, L marks at 0.4, C Not-ECT drops at 0.04.
        let mut d = new();
        d.cfg.alpha = 0.0;
        d.cfg.beta = 0.0;
        d.p = 0.2;
        let n = 50_000u32;
        let (mut l_marked, mut c_dropped) = (0, 0);
        for i in 0..n {
            let t = SimTime::from_micros(i as u64 * 10);
            d.enqueue(t, pkt(Ecn::Ect1, i), &mut dr);
            d.enqueue(t, pkt(Ecn::NotEct, i), &mut dr);
            let before = dr.len();
            for _ in 0..2 {
                if let Some(x) = d.dequeue(t, &mut dr) {
                    if x.pkt.ip.ecn_codepoint() == Ecn::Ce {
                        l_marked += 1;
                    }
                }
            }
            c_dropped += dr.len() - before;
        }
        let fl = l_marked as f64 / n as f64;
        let fc = c_dropped as f64 / n as f64;
        assert!((fl - 0.4).abs() < 0.01, "p_CL = k p' = 0.4, got {fl}");
        assert!((fc - 0.04).abs() < 0.005, "p_C = p'^2 = 0.04, got {fc}");
        assert!(d.counters().balances(d.len()));
    }

    /// A fluid-free check of the RFC's headline behaviour: a scalable
    /// (DCTCP/Prague-like, cwnd -= marked/2 per RTT, +1 per RTT) source
    /// through the L queue of a 10 Mb/s link keeps the L queue delay near
    /// the 1 ms step, far below the Classic 15 ms target.
    #[test]
    fn one_scalable_flow_keeps_l_delay_near_one_ms() {
        let mut d = new();
        let mut dr = Vec::new();
        let serve = SimDur::from_micros(1200); // 1500 B at 10 Mb/s
        let base_rtt = SimDur::from_millis(20);
        let mut cwnd = 10.0f64;
        let mut alpha = 0.0f64;
        let mut t = SimTime::ZERO;
        let mut sojourn_sum = 0.0;
        let mut served = 0u64;
        let mut i = 0u32;
        for round in 0..400 {
            // one RTT: send cwnd packets evenly, serve at line rate
            let n = cwnd.round().max(1.0) as u32;
            let gap = base_rtt.as_nanos() / n as u64;
            let (mut marked, mut total) = (0u32, 0u32);
            let end = t + base_rtt;
            let mut next_send = t;
            let mut next_serve = t;
            let mut sent = 0;
            while (sent < n && next_send < end) || next_serve < end {
                if sent < n && next_send <= next_serve {
                    d.enqueue(next_send, pkt(Ecn::Ect1, i), &mut dr);
                    i += 1;
                    sent += 1;
                    next_send += SimDur::from_nanos(gap);
                } else {
                    if let Some(x) = d.dequeue(next_serve, &mut dr) {
                        total += 1;
                        if x.pkt.ip.ecn_codepoint() == Ecn::Ce {
                            marked += 1;
                        }
                        if round >= 100 {
                            sojourn_sum += next_serve.since(x.enqueued_at).as_secs_f64();
                            served += 1;
                        }
                    }
                    next_serve += serve;
                    if sent >= n && d.is_empty() {
                        next_serve = end.max(next_serve);
                    }
                }
            }
            t = end;
            let f = if total == 0 { 0.0 } else { marked as f64 / total as f64 };
            alpha = (1.0 - 1.0 / 16.0) * alpha + f / 16.0;
            cwnd = if marked > 0 { cwnd * (1.0 - alpha / 2.0) } else { cwnd + 1.0 };
        }
        let mean_ms = sojourn_sum / served as f64 * 1e3;
        assert!(mean_ms < 2.0, "mean L sojourn {mean_ms} ms");
        assert!(d.l_step_marks > 0);
        assert_eq!(dr.len(), 0, "no L4S packet is dropped");
    }
}
