//! Random Early Detection (Floyd & Jacobson, "Random Early Detection
//! Gateways for Congestion Avoidance", IEEE/ACM ToN 1(4), 1993; RFC 2309
//! section 3 recommends it), with the "gentle" variant (Floyd, "Recommendation
//! on using the gentle variant of RED", 2000) and ECN marking (RFC 3168
//! section 7: "mark instead of drop" for ECT packets).
//!
//! Rules (the paper's figure 2, packet mode):
//! - On every arrival the average queue is updated:
//!   `avg = (1 - w_q) avg + w_q q` when the queue is not empty; after an
//!   idle period, `avg = (1 - w_q)^m avg` with `m = idle / s`, `s` the
//!   transmission time of a typical packet (`idle_pkt_us`).
//! - `min_th <= avg < max_th`: `count += 1`,
//!   `p_b = max_p (avg - min_th) / (max_th - min_th)`,
//!   `p_a = p_b / (1 - count p_b)` (1 once `count p_b >= 1`); with
//!   probability `p_a` the packet is marked (ECT and `ecn`) or dropped
//!   (`QueueAqm`), and `count = 0`.
//! - Gentle: for `max_th <= avg < 2 max_th`,
//!   `p_b = max_p + (1 - max_p) (avg - max_th) / max_th`, then as above.
//! - `avg >= max_th` (not gentle) or `avg >= 2 max_th` (gentle): the packet
//!   is dropped, ECT or not (a forced drop, as ns-3's `UseHardDrop`
//!   default), `count = 0`.
//! - `avg < min_th`: `count = -1`.
//! - `min_queue` (default 0, the paper's rule): an arrival that finds fewer
//!   than `min_queue` packets queued gets no signal, early or forced, and
//!   `count = -1`, the average updated as above. ns-2's RED (`qlen > 1`)
//!   and ns-3's `RedQueueDisc` (`nQueued > 1`) have this rule with 2; the
//!   paper has none. Section 16.7 of docs/validation.md measures its effect.
//! - An arrival that finds `capacity` packets is dropped (`QueueFull`).
//!
//! Defaults: `min_th` 5 packets, `max_th` 15 (3 x `min_th`), `max_p` 0.1,
//! `w_q` 0.002 (the values Floyd's "RED: Discussions of Setting
//! Parameters", 1997, recommends), gentle on; `idle_pkt_us` 1000 (a
//! 1500-byte packet at 12 Mb/s). The random draws come from the interface's
//! random stream.
use crate::config::{check, ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::droptail::Fifo;
use crate::occupancy::Occupancy;
use wifitcp_core::schema::r;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::{DropReason, RngStream, SimTime};

wifitcp_core::config_table! {
    /// `kind = "red"`. The hard packet limit is the interface capacity.
    #[serde(deny_unknown_fields)]
    pub struct RedConfig {
        /// Minimum threshold of the average queue (Floyd & Jacobson 1993).
        #[key(range = r(In(0.0), In(1e6)), unit = "packets")]
        pub min_th: f64 = 5.0,
        /// Maximum threshold of the average queue.
        #[key(range = r(Ex(0.0), In(1e6)), unit = "packets")]
        pub max_th: f64 = 15.0,
        /// Mark/drop probability at max_th.
        #[key(range = r(Ex(0.0), In(1.0)))]
        pub max_p: f64 = 0.1,
        /// Weight of the average-queue EWMA.
        #[key(range = r(Ex(0.0), In(1.0)))]
        pub w_q: f64 = 0.002,
        /// Gentle RED: probability rises from max_p to 1 between max_th and 2 max_th.
        pub gentle: bool = true,
        /// Mark ECT packets CE instead of dropping them (RFC 3168 7).
        pub ecn: bool = false,
        /// Transmission time of a typical packet, for the idle-time decay of the average.
        #[key(range = r(Ex(0.0), In(1e7)), unit = "us")]
        pub idle_pkt_us: f64 = 1000.0,
        /// No early or forced signal for an arrival that finds fewer packets queued (0: none withheld, Floyd & Jacobson; ns-2's and ns-3's RED: 2).
        #[key(range = r(In(0.0), In(1e6)), unit = "packets")]
        pub min_queue: u32 = 0,
    }
}

impl QdiscKind for RedConfig {
    fn build(&self, _: &'static str, capacity: usize, rng: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        check(self.min_th.is_finite() && self.min_th >= 0.0, "min_th", "must be at least 0")?;
        check(self.max_th.is_finite() && self.max_th > self.min_th, "max_th", "must be above min_th")?;
        check(self.max_p > 0.0 && self.max_p <= 1.0, "max_p", "must be in (0, 1]")?;
        check(self.w_q > 0.0 && self.w_q <= 1.0, "w_q", "must be in (0, 1]")?;
        check(self.idle_pkt_us.is_finite() && self.idle_pkt_us > 0.0, "idle_pkt_us", "must be positive")?;
        Ok(Box::new(Red::new(capacity, self.clone(), RngStream::derive(rng.next_u64(), "red"))))
    }
}

/// What RED decided for an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Enqueue,
    /// Early signal: mark if ECT and `ecn`, else drop.
    Early,
    /// Forced drop (avg above the top of the ramp).
    Forced,
}

pub struct Red {
    limit: usize,
    cfg: RedConfig,
    rng: RngStream,
    /// Average queue in packets.
    pub avg: f64,
    count: i64,
    /// When the queue last became empty.
    idle_since: Option<SimTime>,
    fifo: Fifo,
    counters: QueueCounters,
    occ: Occupancy,
}

impl Red {
    pub fn new(limit: usize, cfg: RedConfig, rng: RngStream) -> Self {
        Red {
            limit,
            cfg,
            rng,
            avg: 0.0,
            count: -1,
            idle_since: Some(SimTime::ZERO),
            fifo: Fifo::default(),
            counters: QueueCounters::default(),
            occ: Occupancy::default(),
        }
    }

    /// The early-signal probability `p_b` at average `avg` (before the
    /// count correction), `None` above the ramp (forced drop).
    pub fn p_b(cfg: &RedConfig, avg: f64) -> Option<f64> {
        if avg < cfg.min_th {
            Some(0.0)
        } else if avg < cfg.max_th {
            Some(cfg.max_p * (avg - cfg.min_th) / (cfg.max_th - cfg.min_th))
        } else if cfg.gentle && avg < 2.0 * cfg.max_th {
            Some(cfg.max_p + (1.0 - cfg.max_p) * (avg - cfg.max_th) / cfg.max_th)
        } else {
            None
        }
    }

    /// Update the average for an arrival at `now` and decide.
    pub fn decide(&mut self, now: SimTime) -> Verdict {
        match self.idle_since.take() {
            Some(t) if self.fifo.is_empty() => {
                let m = now.saturating_since(t).as_secs_f64() * 1e6 / self.cfg.idle_pkt_us;
                self.avg *= (1.0 - self.cfg.w_q).powf(m);
            }
            _ => self.avg = (1.0 - self.cfg.w_q) * self.avg + self.cfg.w_q * self.fifo.len() as f64,
        }
        if (self.fifo.len() as u64) < u64::from(self.cfg.min_queue) {
            self.count = -1;
            return Verdict::Enqueue;
        }
        match Red::p_b(&self.cfg, self.avg) {
            None => {
                self.count = 0;
                Verdict::Forced
            }
            Some(pb) if self.avg >= self.cfg.min_th => {
                self.count += 1;
                let denom = 1.0 - self.count as f64 * pb;
                let pa = if denom <= 0.0 { 1.0 } else { (pb / denom).min(1.0) };
                if self.rng.unit() < pa {
                    self.count = 0;
                    Verdict::Early
                } else {
                    Verdict::Enqueue
                }
            }
            Some(_) => {
                self.count = -1;
                Verdict::Enqueue
            }
        }
    }
}

impl QueueDisc for Red {
    fn kind(&self) -> &'static str {
        "red"
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        self.counters.offered(&item);
        let v = self.decide(now);
        if self.fifo.len() >= self.limit {
            // a full buffer drops before any mark
            self.counters.drop_pkt(dropped, item.pkt, DropReason::QueueFull);
            self.occ.update(now, self.fifo.len(), self.fifo.bytes());
            return;
        }
        let keep = match v {
            Verdict::Enqueue => true,
            Verdict::Early if self.cfg.ecn && item.pkt.ip.mark_ce() => {
                self.counters.ce_marked += 1;
                true
            }
            Verdict::Early | Verdict::Forced => {
                self.counters.drop_pkt(dropped, item.pkt.clone(), DropReason::QueueAqm);
                false
            }
        };
        if keep {
            item.enqueued_at = now;
            self.fifo.push(item);
        }
        if self.fifo.is_empty() && self.idle_since.is_none() {
            self.idle_since = Some(now);
        }
        self.occ.update(now, self.fifo.len(), self.fifo.bytes());
    }
    fn dequeue(&mut self, now: SimTime, _dropped: &mut Dropped) -> Option<Queued> {
        let x = self.fifo.pop()?;
        self.counters.sent(&x);
        if self.fifo.is_empty() {
            self.idle_since = Some(now);
        }
        self.occ.update(now, self.fifo.len(), self.fifo.bytes());
        Some(x)
    }
    fn len(&self) -> usize {
        self.fifo.len()
    }
    fn bytes(&self) -> u64 {
        self.fifo.bytes()
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

    #[test]
    fn probability_ramp_and_gentle_region() {
        let c = RedConfig::default();
        assert_eq!(Red::p_b(&c, 4.9), Some(0.0));
        assert!((Red::p_b(&c, 10.0).unwrap() - 0.05).abs() < 1e-12, "halfway up the ramp: max_p / 2");
        assert!((Red::p_b(&c, 15.0).unwrap() - 0.1).abs() < 1e-12);
        assert!((Red::p_b(&c, 22.5).unwrap() - 0.55).abs() < 1e-12, "gentle: halfway from max_p to 1");
        assert_eq!(Red::p_b(&c, 30.0), None, "forced above 2 max_th");
        let hard = RedConfig { gentle: false, ..c };
        assert_eq!(Red::p_b(&hard, 15.0), None);
    }

    #[test]
    fn average_follows_the_ewma_and_decays_when_idle() {
        // thresholds out of reach: no early drop changes the queue
        let cfg = RedConfig { min_th: 500.0, max_th: 900.0, ..RedConfig::default() };
        let mut r = Red::new(1000, cfg, RngStream::derive(1, "t"));
        let mut dr = Vec::new();
        for i in 0..100 {
            r.enqueue(us(i), q(data(1, i as u32)), &mut dr);
        }
        // avg_n = sum of w (1-w)^(n-1-k) k for queue k = 0..99
        let w = 0.002f64;
        let mut a = 0.0;
        for k in 0..100 {
            a = if k == 0 { a } else { (1.0 - w) * a + w * k as f64 };
        }
        assert!((r.avg - a).abs() < 1e-9, "{} vs {a}", r.avg);
        while r.dequeue(us(200), &mut dr).is_some() {}
        let before = r.avg;
        // 1000 typical packet times idle: avg x (1 - w)^1000
        r.enqueue(SimTime::from_micros(200 + 1_000_000), q(data(1, 0)), &mut dr);
        assert!((r.avg - before * (1.0 - w).powf(1000.0)).abs() < 1e-9);
    }

    /// A standing queue of `n` packets: the fraction of arrivals that get
    /// an early signal. With the count correction the gap between signals
    /// is uniform on {1, ..., 1/p_b} (the paper's section 7), so the rate
    /// is `2 / (1/p_b + 1)`.
    fn signal_rate(ecn: bool, ect: bool, n: usize) -> (f64, u64, u64) {
        let cfg = RedConfig { ecn, w_q: 0.2, ..RedConfig::default() };
        let mut r = Red::new(1000, cfg, RngStream::derive(7, "t"));
        let mut dr = Vec::new();
        let mut t = 0;
        let mut arrivals = 0u64;
        for i in 0..200_000u32 {
            let mut p = data(1, i);
            if ect {
                p.ip.set_ecn(wifitcp_wire::Ecn::Ect0);
            }
            r.enqueue(us(t), q(p), &mut dr);
            arrivals += 1;
            t += 1;
            while r.len() > n {
                r.dequeue(us(t), &mut dr);
            }
        }
        let c = r.counters();
        ((c.dropped(DropReason::QueueAqm) + c.ce_marked) as f64 / arrivals as f64, c.ce_marked, c.dropped(DropReason::QueueAqm))
    }

    #[test]
    fn min_queue_withholds_signals_from_a_short_queue() {
        // avg far above 2 max_th: every arrival is a forced drop, unless
        // min_queue withholds the signal while fewer packets are queued
        for (min_queue, kept) in [(0u32, 0usize), (2, 2)] {
            let cfg = RedConfig { min_queue, ..RedConfig::default() };
            let mut r = Red::new(1000, cfg, RngStream::derive(3, "t"));
            r.avg = 100.0;
            let mut dr = Vec::new();
            for i in 0..5 {
                r.enqueue(us(i), q(data(1, i as u32)), &mut dr);
            }
            assert_eq!(r.len(), kept, "min_queue {min_queue}");
            assert_eq!(dr.len(), 5 - kept);
        }
    }

    #[test]
    fn early_signals_at_the_counted_rate_and_mark_ect_when_ecn() {
        // queue held at 10 (+1 on arrival): avg ~ 10 .. 11; p_b ~ 0.05
        let (rate, marks, drops) = signal_rate(false, true, 10);
        let pb = Red::p_b(&RedConfig::default(), 10.0).unwrap();
        let expect = 2.0 / (1.0 / pb + 1.0);
        assert!(rate > 0.9 * expect && rate < 1.1 * expect, "{rate} vs {expect}");
        assert_eq!(marks, 0);
        assert!(drops > 0);
        let (rate_m, marks, drops) = signal_rate(true, true, 10);
        assert_eq!(drops, 0, "ECT packets are marked, not dropped");
        assert!(marks > 0 && (rate_m - rate).abs() < 0.3 * rate);
        let (_, marks, drops) = signal_rate(true, false, 10);
        assert!(marks == 0 && drops > 0, "Not-ECT packets are dropped");
    }
}
