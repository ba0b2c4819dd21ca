//! Virtual Buffer Sharing at the AP (paper 004, Pokhrel & Williamson,
//! section V, Algorithm 1).
//!
//! Algorithm 1 as written:
//! ```text
//! INITIALIZE: desired fraction h*_i, buffer size B_ap
//! UPDATE: while (Q_n - c B_ap)^2 > tol:
//!             if h_i(n) < h*_i then p_i(n) = 0 else p_i(n) = 1
//!             obtain h_i(n) and Q_n
//! ```
//! with c = 0.6 (section V, "Starvation solution") and tol = 1/B_ap^2
//! (section V-B). Arriving packets of class i are admitted with probability
//! 1 - p_i ("Unfairness solution"); as p_i is 0 or 1, no randomness is
//! needed.
//!
//! Three update rules (`update`, [`VbsUpdate`]):
//! - `"above-target"` (default): lines 6-7 apply only while Q > c B; below
//!   the target nobody is blocked, so VBS "mimics a small DropTail buffer"
//!   of c B packets (section V). This is a deviation from the algorithm as
//!   printed, made because the printed rule with `>=` deadlocks
//!   (docs/validation.md section 5.2): once every h_i equals its h*_i every
//!   class is blocked, nothing is served, and the shares never change.
//!   A class at or above its share is blocked.
//! - `"literal"`: Algorithm 1 as printed, at every occupancy outside the
//!   tolerance band, above or below c B. Line 6 admits h_i < h*_i, line 7
//!   blocks "else"; we read line 7 as blocking h_i > h*_i and admit the tie
//!   h_i = h*_i, because with the tie blocked the algorithm deadlocks as
//!   above (the paper's experiments show no deadlock, so its code cannot
//!   have blocked the tie). Even so this rule starves both classes in the
//!   Pokhrel scenarios (0-2 Mbit/s, docs/validation.md 5.2): with two
//!   classes one of them is always above 1/2 and blocked, also in an
//!   empty buffer, until the other is served.
//! - `"partition"`: the fluid reading of section V-A. Eq. (21) gives
//!   p_i = (lambda_i / Theta_i)^(c h*_i B), the loss probability of a small
//!   drop-tail buffer holding c h*_i B packets ("the factor c h*_i B_ap is
//!   the buffer space"), and section V begins with "virtual partitioning of
//!   the AP buffer" giving each class "the desired share of buffer". A
//!   class is blocked while it holds at least c h*_i B packets of the
//!   buffer: each class sees its own drop-tail partition, whose overflow
//!   probability eq. (21) approximates. The tolerance plays no role. We do
//!   not draw p_i at random from estimated lambda_i / Theta_i: the paper
//!   gives no estimator for the two rates (window, averaging), and eq. (21)
//!   is introduced for the control analysis of the appendix, not as the
//!   AP's rule.
//!
//! Interpretations (each stated because the paper leaves it open):
//! - Step n of the loop is a packet arrival: at every arrival the
//!   discipline obtains h_i(n) and Q_n and, if `(Q_n - c B)^2 > tol`,
//!   recomputes every p_i; otherwise the loop is not entered and the p_i
//!   keep their values ("when (Q(t) - cB_ap)^2 < tol, the VBS algorithm
//!   plays no role"). Then the arriving packet is admitted or blocked
//!   (reason `QueueAdmission`) by its class's p_i.
//! - h_i is "the fraction of services by the AP that are ... packets
//!   belonging to SNR class i" (Table I): measured over the last `window`
//!   dequeues (default B_ap), zero before the first dequeue. Alternatively
//!   (`measure = "occupancy"`) the fraction of the buffer's packets that
//!   belong to class i, which under FIFO service is the probability that
//!   the head-of-line packet is of class i (Table I's other wording).
//!   Or (`measure = "delivered"`) the class's share of the TCP data moved by
//!   the last `window` dequeues: see the next paragraph.
//! - `measure = "delivered"`. Table I defines h*_i through a *throughput*
//!   ratio ("if the desired throughput ratio is 1.11, then h*_i = 0.526")
//!   and h_i as the fraction of the AP's services "that are Compound TCP
//!   data packets belonging to SNR class i". For a download class the AP's
//!   services are data packets; for an upload class the AP forwards TCP
//!   ACKs, and a forwarded cumulative ACK accounts for every data byte it
//!   newly acknowledges. Counting services instead (`"service"`) equates
//!   one ACK with one data packet, but an ACK the AP refuses costs its
//!   upload almost nothing (the next cumulative ACK covers it), so equal
//!   service counts gave the uploads 2 to 5.6 times the downloads'
//!   throughput (docs/validation.md 5.3). Here each dequeued packet counts
//!   for its class with a weight: a TCP segment that is not a pure ACK its
//!   payload bytes; a pure TCP ACK the advance of its cumulative ACK number
//!   over the highest ACK number previously dequeued in the same direction
//!   of the same connection (4-tuple), modulo 2^32, 0 if it does not
//!   advance and 0 for the first ACK of a direction; a non-TCP packet its
//!   payload bytes.
//!   Every dequeued TCP segment with the ACK flag (also a data segment
//!   carrying a piggybacked ACK) raises the highest ACK number of its
//!   direction, so no acknowledged byte is counted twice. A retransmitted
//!   data segment counts again (the AP moved it again). h_i is class i's
//!   weight over the window's total weight, 0 while the total is 0: the
//!   class's share of the data the AP's services move, i.e. of throughput,
//!   which is what h*_i is defined against. The window's per-class sums are
//!   kept incrementally (one addition and at most one subtraction per
//!   dequeue). The measure changes only rules that use h_i: `partition`
//!   judges a class by the packets it holds and ignores h_i. The weights
//!   are bursty (after a stall one ACK can acknowledge a whole window, 45 x
//!   1460 bytes), so a window of B_ap services is short for this measure;
//!   docs/validation.md 5.3.1 gives its results against the window.
//! - h*_i are given per class (`shares`, renormalised over the active
//!   classes); an empty list means equal shares. A class is active if it
//!   offered a packet among the last `window` arrivals. Classes beyond the
//!   list get the mean listed weight. Renormalising keeps Algorithm 1 from
//!   blocking a class for a share that an absent class cannot use.
//! - With a single active class Algorithm 1 would block it for ever (its
//!   h_i = h*_i = 1, so "else p_i = 1"): a lone class is never blocked.
//! - The buffer still holds at most B_ap packets; an arrival at a full
//!   buffer is dropped (`QueueFull`) before VBS is consulted.
//! - Classes are set by the caller (`Queued::class`): a station, or a group
//!   of stations such as an SNR class.
use crate::config::{check, one_of, ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::droptail::Fifo;
use crate::occupancy::Occupancy;
use crate::tcpack::{seq_lt, FlowKey};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{r, PKTS};
use wifitcp_core::{DropReason, RngStream, SimTime};
use wifitcp_wire::{Packet, TcpFlags};

/// Which occupancies trigger Algorithm 1 and how a class is judged (module
/// doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum VbsUpdate {
    /// Update only while Q > c B (outside tol); block h_i >= h*_i.
    #[default]
    AboveTarget,
    /// Update whenever (Q - c B)^2 > tol; block h_i > h*_i.
    Literal,
    /// Block class i while it holds >= c h*_i B packets (eq. (21)).
    Partition,
}

/// How h_i is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ShareMeasure {
    /// Fraction of the last `window` dequeues (Table I: "fraction of
    /// services by the AP").
    #[default]
    Service,
    /// Fraction of the packets currently in the buffer.
    Occupancy,
    /// Fraction of the TCP data moved by the last `window` dequeues: data
    /// segments by payload bytes, pure ACKs by the bytes they newly
    /// acknowledge (Table I: h*_i is a throughput share; module doc).
    Delivered,
}

wifitcp_core::config_table! {
    /// `kind = "vbs"`.
    #[serde(deny_unknown_fields)]
    pub struct VbsConfig {
        /// Target occupancy fraction.
        ///
        /// Paper 004: 0.5 < c < 1.
        #[key(range = r(Ex(0.0), Ex(1.0)))]
        pub c: f64 = 0.6,
        /// Tolerance on (Q - cB)^2.
        #[key(range = r(In(0.0), In(1e6)), default = "1 / capacity^2")]
        pub tol: Option<f64> = None,
        /// Service shares by class.
        ///
        /// Desired service fractions h*_i by class index; empty: equal.
        #[key(range = r(In(0.0), In(1e6)), default = "[] (equal)")]
        pub shares: Vec<f64> = Vec::new(),
        /// "service", "occupancy" or "delivered".
        ///
        /// See [`ShareMeasure`]. A string checked when built, as `update`
        /// is, so that a bad value is reported as `ap.qdisc.measure: ...`
        /// (serde's tagged enums lose the field's path).
        pub measure: String = "service".into(),
        /// Measurement window.
        #[key(range = PKTS, unit = "packets", default = "the interface capacity")]
        pub window: Option<usize> = None,
        /// "above-target", "literal", "partition".
        ///
        /// See [`VbsUpdate`] and the module docs.
        pub update: String = "above-target".into(),
    }
}

impl VbsConfig {
    pub(crate) fn params(&self, capacity: usize) -> Result<VbsParams, ConfigError> {
        check(self.c > 0.0 && self.c < 1.0, "c", "must be in (0, 1) (paper 004: 0.5 < c < 1)")?;
        let tol = self.tol.unwrap_or(1.0 / (capacity as f64 * capacity as f64));
        check(tol.is_finite() && tol >= 0.0, "tol", "must be a finite non-negative number")?;
        check(self.shares.iter().all(|s| s.is_finite() && *s >= 0.0), "shares", "must be non-negative")?;
        check(self.shares.is_empty() || self.shares.iter().sum::<f64>() > 0.0, "shares", "must not all be zero")?;
        let window = self.window.unwrap_or(capacity);
        check(window > 0, "window", "must be positive")?;
        let update = one_of(
            "update",
            &self.update,
            &[
                ("above-target", VbsUpdate::AboveTarget),
                ("literal", VbsUpdate::Literal),
                ("partition", VbsUpdate::Partition),
            ],
        )?;
        let measure = one_of(
            "measure",
            &self.measure,
            &[
                ("service", ShareMeasure::Service),
                ("occupancy", ShareMeasure::Occupancy),
                ("delivered", ShareMeasure::Delivered),
            ],
        )?;
        Ok(VbsParams { capacity, c: self.c, tol, shares: self.shares.clone(), measure, window, update })
    }
}

impl QdiscKind for VbsConfig {
    fn build(&self, _: &'static str, capacity: usize, _: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        Ok(Box::new(Vbs::new(self.params(capacity)?)))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct VbsParams {
    /// B_ap in packets.
    pub capacity: usize,
    /// Target occupancy fraction c (0.5 < c < 1; paper value 0.6).
    pub c: f64,
    /// Tolerance; paper value 1 / B_ap^2.
    pub tol: f64,
    /// h*_i by class index; empty: equal shares.
    pub shares: Vec<f64>,
    pub measure: ShareMeasure,
    /// Measurement window (dequeues for h_i, arrivals for activity).
    pub window: usize,
    pub update: VbsUpdate,
}

impl VbsParams {
    pub fn paper(capacity: usize) -> Self {
        VbsParams {
            capacity,
            c: 0.6,
            tol: 1.0 / (capacity as f64 * capacity as f64),
            shares: Vec::new(),
            measure: ShareMeasure::Service,
            window: capacity.max(1),
            update: VbsUpdate::AboveTarget,
        }
    }
}

/// A sliding count of the classes of the last `n` events.
#[derive(Clone, Debug, Default)]
struct Window {
    n: usize,
    hist: VecDeque<u32>,
    counts: BTreeMap<u32, u32>,
}

impl Window {
    fn new(n: usize) -> Self {
        Window { n: n.max(1), ..Default::default() }
    }
    fn push(&mut self, class: u32) {
        self.hist.push_back(class);
        *self.counts.entry(class).or_default() += 1;
        if self.hist.len() > self.n {
            let old = self.hist.pop_front().expect("non-empty");
            let c = self.counts.get_mut(&old).expect("counted");
            *c -= 1;
            if *c == 0 {
                self.counts.remove(&old);
            }
        }
    }
    fn total(&self) -> usize {
        self.hist.len()
    }
    fn count(&self, class: u32) -> u32 {
        self.counts.get(&class).copied().unwrap_or(0)
    }
}

/// The `delivered` measure (module doc; paper 004 Table I, h_i and h*_i):
/// per-class sums of the data bytes moved by the last `n` dequeues.
#[derive(Clone, Debug, Default)]
struct DeliveredWindow {
    n: usize,
    /// (class, weight) of the last `n` dequeues, oldest first.
    hist: VecDeque<(u32, u64)>,
    /// Weight sum per class over `hist`; classes with sum 0 are absent.
    sums: BTreeMap<u32, u64>,
    total: u64,
    /// Highest ACK number dequeued per direction of a TCP connection.
    highest_ack: BTreeMap<FlowKey, u32>,
}

impl DeliveredWindow {
    fn new(n: usize) -> Self {
        DeliveredWindow { n: n.max(1), ..Default::default() }
    }

    /// The data bytes the AP moves by serving `pkt`; raises the highest ACK
    /// number of `pkt`'s direction.
    fn weight(&mut self, pkt: &Packet) -> u64 {
        let (Some(t), Some(key)) = (pkt.tcp(), FlowKey::of(pkt)) else {
            return pkt.payload_len as u64; // not TCP
        };
        let mut advance = 0u32;
        if t.flags.has(TcpFlags::ACK) {
            match self.highest_ack.get_mut(&key) {
                None => {
                    self.highest_ack.insert(key, t.ack); // first ACK: 0
                }
                Some(h) => {
                    if seq_lt(*h, t.ack) {
                        advance = t.ack.wrapping_sub(*h);
                        *h = t.ack;
                    }
                }
            }
        }
        if pkt.is_pure_tcp_ack() {
            advance as u64
        } else {
            pkt.payload_len as u64
        }
    }

    /// Count one dequeued packet of class `class`; O(log classes).
    fn push(&mut self, class: u32, pkt: &Packet) {
        let w = self.weight(pkt);
        self.hist.push_back((class, w));
        if w > 0 {
            *self.sums.entry(class).or_default() += w;
            self.total += w;
        }
        if self.hist.len() > self.n {
            let (old, ow) = self.hist.pop_front().expect("non-empty");
            if ow > 0 {
                let s = self.sums.get_mut(&old).expect("summed");
                *s -= ow;
                if *s == 0 {
                    self.sums.remove(&old);
                }
                self.total -= ow;
            }
        }
    }

    /// h_i: class `class`'s share of the window's weight, 0 if it is 0.
    fn share(&self, class: u32) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            self.sums.get(&class).copied().unwrap_or(0) as f64 / self.total as f64
        }
    }
}

pub struct Vbs {
    p: VbsParams,
    fifo: Fifo,
    services: Window,
    /// Data bytes moved per class (only kept for `ShareMeasure::Delivered`).
    delivered: DeliveredWindow,
    arrivals: Window,
    /// Packets in the buffer per class (for the occupancy measure).
    held: BTreeMap<u32, u32>,
    /// p_i: true = blocked (p_i = 1).
    blocked: BTreeMap<u32, bool>,
    counters: QueueCounters,
    occ: Occupancy,
}

impl Vbs {
    pub fn new(p: VbsParams) -> Self {
        let (w, cap) = (p.window, p.capacity);
        assert!(cap > 0, "VBS needs a buffer");
        Vbs {
            p,
            fifo: Fifo::default(),
            services: Window::new(w),
            delivered: DeliveredWindow::new(w),
            arrivals: Window::new(w),
            held: BTreeMap::new(),
            blocked: BTreeMap::new(),
            counters: QueueCounters::default(),
            occ: Occupancy::default(),
        }
    }

    /// Whether class `class` is currently blocked (p_i = 1).
    pub fn is_blocked(&self, class: u32) -> bool {
        self.blocked.get(&class).copied().unwrap_or(false)
    }

    /// h_i(n): the measured share of class `class`.
    pub fn measured_share(&self, class: u32) -> f64 {
        match self.p.measure {
            ShareMeasure::Service => {
                let t = self.services.total();
                if t == 0 {
                    0.0
                } else {
                    self.services.count(class) as f64 / t as f64
                }
            }
            ShareMeasure::Occupancy => {
                let t = self.fifo.len();
                if t == 0 {
                    0.0
                } else {
                    self.held.get(&class).copied().unwrap_or(0) as f64 / t as f64
                }
            }
            ShareMeasure::Delivered => self.delivered.share(class),
        }
    }

    fn weight(&self, class: u32) -> f64 {
        let s = &self.p.shares;
        if s.is_empty() {
            1.0
        } else {
            s.get(class as usize).copied().unwrap_or_else(|| s.iter().sum::<f64>() / s.len() as f64)
        }
    }

    /// h*_i renormalised over the active classes.
    pub fn desired_share(&self, class: u32) -> f64 {
        let total: f64 = self.active_classes().map(|c| self.weight(c)).sum();
        if total <= 0.0 {
            0.0
        } else {
            self.weight(class) / total
        }
    }

    fn active_classes(&self) -> impl Iterator<Item = u32> + '_ {
        self.arrivals.counts.keys().copied()
    }

    /// Packets of class `class` in the buffer.
    pub fn held(&self, class: u32) -> u32 {
        self.held.get(&class).copied().unwrap_or(0)
    }

    /// Algorithm 1, UPDATE, one step.
    fn update(&mut self) {
        let q = self.fifo.len() as f64;
        let target = self.p.c * self.p.capacity as f64;
        if self.p.update == VbsUpdate::Partition {
            // eq. (21): class i's virtual drop-tail buffer of c h*_i B packets
            let active: Vec<u32> = self.active_classes().collect();
            for c in active {
                let block = self.held(c) as f64 >= self.p.c * self.desired_share(c) * self.p.capacity as f64;
                self.blocked.insert(c, block);
            }
            return;
        }
        if (q - target).powi(2) <= self.p.tol {
            return;
        }
        if self.p.update == VbsUpdate::Literal {
            let active: Vec<u32> = self.active_classes().collect();
            let lone = active.len() <= 1;
            for c in active {
                let block = !lone && self.measured_share(c) > self.desired_share(c);
                self.blocked.insert(c, block);
            }
            return;
        }
        // Below the target occupancy nobody is blocked: VBS "mimics a small
        // DropTail buffer" of c B packets (paper 004, section V). Read
        // literally, lines 6-7 of Algorithm 1 also run while Q < c B and
        // block every class whose share has reached its target; once all
        // shares equal their targets every class is blocked and the buffer
        // drains for good (0 Mbit/s in the Pokhrel reproductions).
        if q < target {
            for b in self.blocked.values_mut() {
                *b = false;
            }
            return;
        }
        let active: Vec<u32> = self.active_classes().collect();
        let lone = active.len() <= 1;
        for c in active {
            let block = !lone && self.measured_share(c) >= self.desired_share(c);
            self.blocked.insert(c, block);
        }
    }
}

impl QueueDisc for Vbs {
    fn kind(&self) -> &'static str {
        "vbs"
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        self.counters.offered(&item);
        let class = item.class;
        self.arrivals.push(class);
        if self.fifo.len() >= self.p.capacity {
            self.counters.drop_pkt(dropped, item.pkt, DropReason::QueueFull);
        } else {
            self.update();
            if self.is_blocked(class) {
                self.counters.drop_pkt(dropped, item.pkt, DropReason::QueueAdmission);
            } else {
                item.enqueued_at = now;
                *self.held.entry(class).or_default() += 1;
                self.fifo.push(item);
            }
        }
        self.occ.update(now, self.fifo.len(), self.fifo.bytes());
    }
    fn dequeue(&mut self, now: SimTime, _dropped: &mut Dropped) -> Option<Queued> {
        let x = self.fifo.pop()?;
        self.services.push(x.class);
        if self.p.measure == ShareMeasure::Delivered {
            self.delivered.push(x.class, &x.pkt);
        }
        let h = self.held.get_mut(&x.class).expect("class held");
        *h -= 1;
        if *h == 0 {
            self.held.remove(&x.class);
        }
        self.counters.sent(&x);
        self.occ.update(now, self.fifo.len(), self.fifo.bytes());
        Some(x)
    }
    crate::disc::fifo_accessors!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;
    use wifitcp_wire::Packet;

    /// B = 10 (target c B = 6): a service history of 3 class-0 packets per
    /// class-1 packet, then the buffer filled with `fill` class-0 packets.
    fn history_then_fill(shares: Vec<f64>, fill: u32) -> (Vbs, Dropped) {
        let mut p = VbsParams::paper(10);
        p.shares = shares;
        let mut v = Vbs::new(p);
        let mut dr = Vec::new();
        for i in 0..40u32 {
            v.enqueue(ms(0), q_class(data(1, i), if i % 4 == 3 { 1 } else { 0 }), &mut dr);
            v.dequeue(ms(0), &mut dr);
        }
        for i in 0..fill {
            v.enqueue(ms(1), q_class(data(1, 100 + i), 0), &mut dr);
        }
        (v, dr)
    }

    #[test]
    fn below_target_nobody_is_blocked() {
        // Q < c B: VBS acts like a drop-tail buffer (nothing blocked), even
        // though class 0's share is above its desired 0.5.
        let (v, dr) = history_then_fill(vec![], 5);
        assert!(v.measured_share(0) > 0.5);
        assert_eq!(v.len(), 5);
        assert_eq!(count(&dr, DropReason::QueueAdmission), 0);
        assert!(!v.is_blocked(0) && !v.is_blocked(1));
    }

    #[test]
    fn blocks_class_above_its_share_and_admits_the_other() {
        // Q = 7 > c B = 6: class 0 (share >= 0.5) blocked, class 1 admitted.
        let (mut v, mut dr) = history_then_fill(vec![], 8);
        assert!(v.is_blocked(0));
        assert!(!v.is_blocked(1));
        assert_eq!(count(&dr, DropReason::QueueAdmission), 1);
        let before = v.len();
        v.enqueue(ms(2), q_class(data(2, 100), 1), &mut dr);
        assert_eq!(v.len(), before + 1);
        assert!(v.counters().balances(v.len()));
    }

    #[test]
    fn unequal_desired_shares() {
        // h* = (0.9, 0.1): class 0 (share ~0.75-0.8) is below 0.9 and
        // admitted; class 1 (~0.2-0.25 >= 0.1) is blocked above the target.
        let (mut v, mut dr) = history_then_fill(vec![0.9, 0.1], 7);
        v.enqueue(ms(2), q_class(data(2, 200), 1), &mut dr);
        assert!(v.is_blocked(1) && !v.is_blocked(0));
        assert_eq!(count(&dr, DropReason::QueueAdmission), 1);
    }

    #[test]
    fn no_update_within_tolerance_of_target() {
        // B = 10: target c*B = 6, tol = 1/100: with Q = 6 the loop is not
        // entered and the p_i keep their values.
        let mut v = Vbs::new(VbsParams::paper(10));
        let mut dr = Vec::new();
        // no service yet: h_i = 0 < h*_i = 0.5, everything admitted
        v.enqueue(ms(0), q_class(data(2, 0), 1), &mut dr);
        for i in 0..6 {
            v.enqueue(ms(0), q_class(data(1, i), 0), &mut dr);
        }
        assert_eq!((v.len(), dr.len()), (7, 0));
        // one class-1 service: h_1 = 1, h_0 = 0; Q = 6
        assert_eq!(v.dequeue(ms(1), &mut dr).unwrap().class, 1);
        v.enqueue(ms(2), q_class(data(2, 1), 1), &mut dr);
        // Q was 6: no update, class 1 still admitted although h_1 >= h*_1
        assert!(!v.is_blocked(1));
        assert_eq!(v.len(), 7);
        // Q = 7: update, class 1 blocked
        v.enqueue(ms(3), q_class(data(2, 2), 1), &mut dr);
        assert!(v.is_blocked(1) && !v.is_blocked(0));
        assert_eq!(count(&dr, DropReason::QueueAdmission), 1);
    }

    #[test]
    fn occupancy_measure() {
        // B = 10, target 6: classes measured by their share of the buffer.
        let mut p = VbsParams::paper(10);
        p.measure = ShareMeasure::Occupancy;
        let mut v = Vbs::new(p);
        let mut dr = Vec::new();
        for i in 0..5 {
            v.enqueue(ms(0), q_class(data(1, i), 0), &mut dr);
        }
        v.enqueue(ms(0), q_class(data(2, 0), 1), &mut dr);
        v.enqueue(ms(0), q_class(data(1, 9), 0), &mut dr);
        // Q = 7 > 6: class 0 holds 6/7 >= 1/2 and is blocked, class 1 not.
        v.enqueue(ms(0), q_class(data(1, 10), 0), &mut dr);
        assert!((v.measured_share(0) - 6.0 / 7.0).abs() < 1e-12);
        assert!(v.is_blocked(0) && !v.is_blocked(1));
        assert_eq!(count(&dr, DropReason::QueueAdmission), 1);
    }

    #[test]
    fn lone_class_is_never_blocked_and_buffer_is_bounded() {
        let mut v = Vbs::new(VbsParams::paper(5));
        let mut dr = Vec::new();
        for i in 0..8 {
            v.enqueue(ms(0), q_class(data(1, i), 3), &mut dr);
        }
        assert_eq!(count(&dr, DropReason::QueueAdmission), 0);
        assert_eq!(count(&dr, DropReason::QueueFull), 3);
    }

    fn with_update(cap: usize, update: VbsUpdate) -> Vbs {
        let mut p = VbsParams::paper(cap);
        p.update = update;
        Vbs::new(p)
    }

    /// B = 10, target 6: services 0,0,0,1 (h_0 = 3/4, h_1 = 1/4), buffer
    /// left empty.
    fn served_3_to_1(update: VbsUpdate) -> (Vbs, Dropped) {
        let mut v = with_update(10, update);
        let mut dr = Vec::new();
        for (i, c) in [0u32, 0, 0, 1].into_iter().enumerate() {
            v.enqueue(ms(0), q_class(data(1, i as u32), c), &mut dr);
            assert_eq!(v.dequeue(ms(0), &mut dr).unwrap().class, c);
        }
        assert_eq!((v.len(), dr.len()), (0, 0));
        (v, dr)
    }

    #[test]
    fn literal_blocks_below_target_above_target_does_not() {
        // Q = 0 < c B = 6: the literal rule updates (36 > tol) and blocks
        // class 0 (h_0 = 3/4 > 1/2) even in an empty buffer; the default
        // rule admits it.
        let (mut lit, mut dr) = served_3_to_1(VbsUpdate::Literal);
        lit.enqueue(ms(1), q_class(data(1, 10), 0), &mut dr);
        assert_eq!((lit.len(), count(&dr, DropReason::QueueAdmission)), (0, 1));
        lit.enqueue(ms(1), q_class(data(2, 10), 1), &mut dr);
        assert_eq!(lit.len(), 1);
        let (mut abv, mut dr) = served_3_to_1(VbsUpdate::AboveTarget);
        abv.enqueue(ms(1), q_class(data(1, 10), 0), &mut dr);
        assert_eq!((abv.len(), dr.len()), (1, 0));
    }

    #[test]
    fn literal_admits_the_tie() {
        // services 0,1,0,1: h_0 = h_1 = 1/2 = h*_i. The tie is admitted for
        // both classes (read as >= it would block both for ever).
        let mut v = with_update(10, VbsUpdate::Literal);
        let mut dr = Vec::new();
        for (i, c) in [0u32, 1, 0, 1].into_iter().enumerate() {
            v.enqueue(ms(0), q_class(data(1, i as u32), c), &mut dr);
            v.dequeue(ms(0), &mut dr);
        }
        v.enqueue(ms(1), q_class(data(1, 10), 0), &mut dr);
        v.enqueue(ms(1), q_class(data(2, 10), 1), &mut dr);
        assert_eq!((v.len(), dr.len()), (2, 0));
        assert!(!v.is_blocked(0) && !v.is_blocked(1));
        // one more class-0 service (h_0 = 3/5): class 0 now blocked
        assert_eq!(v.dequeue(ms(2), &mut dr).unwrap().class, 0);
        v.enqueue(ms(2), q_class(data(1, 11), 0), &mut dr);
        assert!(v.is_blocked(0) && !v.is_blocked(1));
        assert_eq!(count(&dr, DropReason::QueueAdmission), 1);
    }

    #[test]
    fn literal_keeps_p_within_tolerance() {
        // h_0 = 3/4: every update blocks class 0. Eight class-1 arrivals
        // (updates at Q = 0..5 and 7, none at Q = 6).
        let (mut v, mut dr) = served_3_to_1(VbsUpdate::Literal);
        for i in 0..8 {
            v.enqueue(ms(1), q_class(data(2, 20 + i), 1), &mut dr);
        }
        assert!(v.is_blocked(0) && v.len() == 8);
        // two class-1 services: h_0 = 3/6 = 1/2 (no longer above), Q = 6
        v.dequeue(ms(2), &mut dr);
        v.dequeue(ms(2), &mut dr);
        // Q = 6 = c B: no update, class 0 still blocked
        v.enqueue(ms(3), q_class(data(1, 30), 0), &mut dr);
        assert_eq!((v.len(), count(&dr, DropReason::QueueAdmission)), (6, 1));
        v.enqueue(ms(3), q_class(data(2, 30), 1), &mut dr);
        // Q = 7: update, the tie h_0 = 1/2 is admitted
        v.enqueue(ms(4), q_class(data(1, 31), 0), &mut dr);
        assert!(!v.is_blocked(0));
        assert_eq!((v.len(), count(&dr, DropReason::QueueAdmission)), (8, 1));
    }

    #[test]
    fn partition_gives_each_class_c_share_b() {
        // B = 10, c = 0.6, two active classes: each may hold 0.6 * 0.5 * 10
        // = 3 packets, whatever the service history.
        let mut v = with_update(10, VbsUpdate::Partition);
        let mut dr = Vec::new();
        v.enqueue(ms(0), q_class(data(2, 0), 1), &mut dr);
        for i in 0..5 {
            v.enqueue(ms(0), q_class(data(1, i), 0), &mut dr);
        }
        assert_eq!((v.held(0), v.held(1)), (3, 1));
        assert_eq!(count(&dr, DropReason::QueueAdmission), 2);
        for i in 1..5 {
            v.enqueue(ms(0), q_class(data(2, i), 1), &mut dr);
        }
        assert_eq!((v.held(0), v.held(1), v.len()), (3, 3, 6));
        assert_eq!(count(&dr, DropReason::QueueAdmission), 4);
        // a class-0 service frees one place of class 0's partition only
        assert_eq!(v.dequeue(ms(1), &mut dr).unwrap().class, 1);
        v.enqueue(ms(1), q_class(data(1, 9), 0), &mut dr);
        assert_eq!(v.held(0), 3);
        v.enqueue(ms(1), q_class(data(2, 9), 1), &mut dr);
        assert_eq!(v.held(1), 3);
        assert!(v.counters().balances(v.len()));
    }

    fn delivered(cap: usize, window: usize) -> Vbs {
        let mut p = VbsParams::paper(cap);
        p.measure = ShareMeasure::Delivered;
        p.window = window;
        Vbs::new(p)
    }

    /// Enqueue and at once dequeue each (packet, class): a service history.
    fn serve(v: &mut Vbs, items: Vec<(Packet, u32)>) {
        let mut dr = Vec::new();
        for (pkt, c) in items {
            v.enqueue(ms(0), q_class(pkt, c), &mut dr);
            assert_eq!(v.dequeue(ms(0), &mut dr).unwrap().class, c);
        }
        assert!(dr.is_empty());
    }

    #[test]
    fn delivered_weights_hand_computed() {
        // window 20 > history: every service counts
        let mut v = delivered(50, 20);
        assert_eq!(v.measured_share(1), 0.0); // nothing served yet
        serve(
            &mut v,
            vec![
                (data(5, 1), 2),             // 1460
                (ack(1, 1000), 1),           // first ACK of flow 1: 0
                (ack(1, 3920), 1),           // advances 2920
                (ack(1, 3920), 1),           // duplicate: 0
                (ack(1, 2460), 1),           // behind the highest: 0
                (data_len(5, 1461, 500), 2), // 500
                (ack(2, 100), 1),            // first ACK of flow 2: 0
                (ack(2, 1560), 1),           // advances 1460
                (udp(3, 200), 3),            // 200
            ],
        );
        // class 1: 2920 + 1460 = 4380, class 2: 1960, class 3: 200
        let total = 6540.0;
        assert!((v.measured_share(1) - 4380.0 / total).abs() < 1e-12);
        assert!((v.measured_share(2) - 1960.0 / total).abs() < 1e-12);
        assert!((v.measured_share(3) - 200.0 / total).abs() < 1e-12);
        assert_eq!(v.measured_share(7), 0.0);
    }

    #[test]
    fn delivered_window_slides_and_wraps() {
        // window of 3 dequeues; flow 1's ACK numbers wrap through 2^32
        let mut v = delivered(50, 3);
        let near = u32::MAX - 999; // 2^32 - 1000
        serve(&mut v, vec![(ack(1, near), 1), (ack(1, 500), 1)]);
        // 500 - (2^32 - 1000) mod 2^32 = 1500 bytes newly acknowledged
        assert_eq!(v.measured_share(1), 1.0);
        serve(&mut v, vec![(data_len(5, 1, 500), 2)]);
        // 1500 / 2000
        assert!((v.measured_share(1) - 0.75).abs() < 1e-12);
        // an ACK number from before the wrap is behind 500: weight 0; the
        // first service (weight 0) leaves the window
        serve(&mut v, vec![(ack(1, u32::MAX - 10), 1)]);
        assert!((v.measured_share(2) - 0.25).abs() < 1e-12);
        // the 1500 leaves: only class 2's 500 remains with weight
        serve(&mut v, vec![(ack(1, 500), 1)]); // duplicate: 0
        assert_eq!((v.measured_share(1), v.measured_share(2)), (0.0, 1.0));
        // class 2's 500 leaves too: total 0, every share 0
        serve(&mut v, vec![(ack(1, 500), 1)]);
        assert_eq!((v.measured_share(1), v.measured_share(2)), (0.0, 0.0));
        // the highest ACK number survives the window: 500 -> 2000
        serve(&mut v, vec![(ack(1, 2000), 1)]);
        assert_eq!(v.measured_share(1), 1.0);
        assert_eq!(v.delivered.total, 1500);
    }

    #[test]
    fn delivered_piggybacked_ack_is_not_counted_twice() {
        let mut v = delivered(50, 10);
        let mut seg = data(1, 1);
        seg.tcp_mut().unwrap().ack = 3000;
        // a pure ACK, then a data segment of the same direction carrying
        // ACK 3000, then a pure ACK 4000: counts 1000, not 2000
        serve(&mut v, vec![(ack(1, 1000), 1), (seg, 2), (ack(1, 4000), 1)]);
        assert!((v.measured_share(1) - 1000.0 / 2460.0).abs() < 1e-12);
        assert!((v.measured_share(2) - 1460.0 / 2460.0).abs() < 1e-12);
    }

    /// B = 10, target 6: services alternate an upload's ACK that newly
    /// acknowledges two segments (class 1) and a download's data segment
    /// (class 2), then the buffer is filled to 7 with class-2 data.
    fn ack_vs_data_history(measure: ShareMeasure) -> (Vbs, Dropped) {
        let mut p = VbsParams::paper(10);
        p.measure = measure;
        let mut v = Vbs::new(p);
        let mut items = vec![(ack(1, 1), 1)];
        for i in 0..10u32 {
            items.push((data(5, 1 + 1460 * i), 2));
            items.push((ack(1, 1 + 2920 * (i + 1)), 1));
        }
        serve(&mut v, items);
        let mut dr = Vec::new();
        for i in 0..7u32 {
            v.enqueue(ms(1), q_class(data(5, 100_000 + i), 2), &mut dr);
        }
        (v, dr)
    }

    #[test]
    fn delivered_blocks_the_acks_that_move_more_data() {
        // Counted as services the classes are even (5 : 5 in the window of
        // 10), so both are at their share 1/2 and blocked. Counted by data
        // moved, class 1 moved 2920 bytes per service against class 2's
        // 1460: h_1 = 2/3 >= 1/2 is blocked, h_2 = 1/3 admitted.
        let (mut v, mut dr) = ack_vs_data_history(ShareMeasure::Delivered);
        assert!((v.measured_share(1) - 2.0 / 3.0).abs() < 1e-12);
        v.enqueue(ms(2), q_class(data(5, 200_000), 2), &mut dr);
        v.enqueue(ms(2), q_class(ack(1, 1_000_000), 1), &mut dr);
        assert!(v.is_blocked(1) && !v.is_blocked(2));
        assert_eq!((v.len(), count(&dr, DropReason::QueueAdmission)), (8, 1));
        let (mut s, mut dr) = ack_vs_data_history(ShareMeasure::Service);
        assert_eq!(s.measured_share(1), 0.5);
        s.enqueue(ms(2), q_class(data(5, 200_000), 2), &mut dr);
        assert!(s.is_blocked(1) && s.is_blocked(2));
        assert_eq!((s.len(), count(&dr, DropReason::QueueAdmission)), (7, 1));
    }

    #[test]
    fn delivered_incremental_sums_match_a_recount() {
        // a deterministic mix of data, advancing, duplicate and stale ACKs
        // of three flows in three classes, window 7: after every dequeue the
        // kept sums equal a recount of the last 7 weights.
        let mut v = delivered(50, 7);
        let mut highest: BTreeMap<u32, u32> = BTreeMap::new();
        let mut weights: Vec<(u32, u64)> = Vec::new();
        let mut x = 12345u32;
        let mut dr = Vec::new();
        for _ in 0..300 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let flow = (x >> 8) % 3;
            let class = flow;
            let (pkt, w) = if (x >> 12).is_multiple_of(3) {
                (data_len(10 + flow, x, (x >> 4) % 1500), ((x >> 4) % 1500) as u64)
            } else {
                let a = (u32::MAX - 50_000).wrapping_add((x >> 14) % 100_000); // around the wrap
                let w = match highest.get(&flow) {
                    None => 0,
                    Some(&h) if (a.wrapping_sub(h) as i32) > 0 => a.wrapping_sub(h) as u64,
                    Some(_) => 0,
                };
                if w > 0 || !highest.contains_key(&flow) {
                    highest.insert(flow, a);
                }
                (ack(flow, a), w)
            };
            weights.push((class, w));
            v.enqueue(ms(0), q_class(pkt, class), &mut dr);
            v.dequeue(ms(0), &mut dr);
            let last = &weights[weights.len().saturating_sub(7)..];
            let total: u64 = last.iter().map(|&(_, w)| w).sum();
            assert_eq!(v.delivered.total, total);
            for c in 0..3 {
                let mine: u64 = last.iter().filter(|&&(k, _)| k == c).map(|&(_, w)| w).sum();
                let want = if total == 0 { 0.0 } else { mine as f64 / total as f64 };
                assert_eq!(v.measured_share(c), want);
            }
        }
        assert!(dr.is_empty());
    }

    #[test]
    fn partition_lone_class_gets_c_b() {
        let mut v = with_update(10, VbsUpdate::Partition);
        let mut dr = Vec::new();
        for i in 0..9 {
            v.enqueue(ms(0), q_class(data(1, i), 4), &mut dr);
        }
        assert_eq!(v.len(), 6);
        assert_eq!(count(&dr, DropReason::QueueAdmission), 3);
    }
}
