//! TCP ACK congestion control and filtering at the AP (paper 001, Keceli,
//! Inan & Ayanoglu, section III), with sorted or grouped threshold
//! assignment ([`threshold`]).
//!
//! Structure (section III and IV): the AP buffer is split into the
//! conventional drop-tail interface queue (IFQ), which the MAC serves, and
//! a control queue of the same size (25 + 25 packets in section IV). The
//! MAC never dequeues from the control queue: ACKs leave it only into the
//! IFQ.
//!
//! Rules, per flow i (one direction of a TCP connection, identified by its
//! 4-tuple):
//! 1. Eq. (2): on every pure ACK of flow i,
//!    `AvgACKint_i = alpha*AvgACKint_i + (1-alpha)*(now - LastACKarr_i)`,
//!    then `LastACKarr_i = now`.
//! 2. "The relaying ACK packet waits for the duration equal to
//!    beta*AvgACKint_i in the control queue before it is queued to IFQ."
//! 3. "If another ACK packet of flow i is received while there is an ACK
//!    packet of flow i in the control queue, the previous ACK in the buffer
//!    is replaced with the new cumulative ACK", `cum_cur,i` is incremented
//!    and the waiting timer restarts with the updated duration. The
//!    replaced ACK is dropped with reason `AckFiltered`.
//! 4. "As soon as `cum_thresh,i <= cum_cur,i`", the cumulative ACK moves to
//!    the IFQ and `cum_cur,i = 0`. `cum_thresh,i` comes from sorted or
//!    grouped assignment over the active flows: those with an ACK received
//!    within `ActiveThresh` of now.
//! 5. A timeout timer per flow "started at the time when the first ACK is
//!    received with no cumulative ones buffered": on expiry the held ACK
//!    moves to the IFQ "independent of `cum_cur,i`" and `cum_cur,i = 0`.
//! 6. "TCP ACKs with flags set such as duplicate ACKs are not filtered":
//!    they go straight to the IFQ.
//! 7. "If a flow is detected to be newly started or recently received three
//!    duplicate ACKs, the first couple of TCP ACKs are directly enqueued to
//!    the IFQ."
//!
//! Interpretations (stated because the paper does not):
//! - Only pure TCP ACKs (`Packet::is_pure_tcp_ack`) enter the algorithm;
//!   every other packet goes to the IFQ (drop-tail, `QueueFull`).
//! - `cum_cur,i` counts the ACKs replaced while one is held (rule 3): it is
//!   0 when the first ACK enters the control queue. So a flow with
//!   threshold t has t ACKs filtered per ACK sent to the IFQ.
//! - Eq. (2) needs an initial value: the first measured inter-arrival time.
//!   A flow without an estimate (one ACK seen) is active but not ranked;
//!   n_act in the assignment counts ranked flows. An ACK of a flow without
//!   an estimate has no waiting time and passes to the IFQ (only possible
//!   with `pass_first = 0`).
//! - "Flags set": any of SYN, FIN, RST, URG, ECE, CWR. ACKs carrying SACK
//!   blocks also bypass (they carry loss information that a replacing ACK
//!   might not). Duplicate ACK: same ack number as the highest seen for the
//!   flow. An ACK older than the highest seen also bypasses.
//! - When a bypassing ACK arrives while an ACK of the same flow is held,
//!   the held one moves to the IFQ first, keeping the flow's ACKs in order
//!   (a duplicate ACK must not overtake the ACK it duplicates).
//! - "First couple" = `pass_first` = 2 ACKs; a new flow's first ACK is the
//!   first of them; after the third duplicate ACK, the next `pass_first`
//!   advancing ACKs pass.
//! - The timeout value is not given by the paper: default 100 ms, below the
//!   200 ms minimum RTO of ns-2 and Linux senders.
//! - Control queue full (more held flows than its capacity): the arriving
//!   ACK is dropped (`QueueFull`), as in any full buffer. With one held ACK
//!   per flow this needs more than 25 flows.
//! - Timers due at or before `now` are processed at the start of every
//!   `enqueue`/`dequeue`, so a late `on_timer` call changes nothing.
pub mod threshold;

use crate::config::{check, positive_ms, ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::droptail::Fifo;
use crate::occupancy::Occupancy;
use crate::tcpack::{is_plain_ack, seq_lt, FlowKey};
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{r, PKTS, PROB, TIMER_MS};
use wifitcp_core::{DropReason, RngStream, SimDur, SimTime};

wifitcp_core::config_table! {
    /// `kind = "keceli-sorted"` and `kind = "keceli-grouped"` (paper 001
    /// section III; defaults from section IV).
    #[serde(deny_unknown_fields)]
    pub struct KeceliConfig {
        /// EWMA weight of eq. (2), paper 001.
        #[key(range = PROB)]
        pub alpha: f64 = 0.8,
        /// Waiting time = beta * AvgACKint.
        #[key(range = r(Ex(0.0), In(1e3)))]
        pub beta: f64 = 2.0,
        /// Activity window.
        #[key(range = TIMER_MS, unit = "ms")]
        pub active_thresh_ms: f64 = 500.0,
        /// Timeout timer.
        ///
        /// Not given by the paper.
        #[key(range = TIMER_MS, unit = "ms")]
        pub timeout_ms: f64 = 100.0,
        /// IFQ size.
        ///
        /// 25 of 50 by default.
        #[key(range = PKTS, unit = "packets", default = "capacity - capacity/2")]
        pub ifq_capacity: Option<usize> = None,
        /// Control queue size.
        ///
        /// 25 of 50 by default.
        #[key(range = PKTS, unit = "packets", default = "max(capacity/2, 1)")]
        pub control_capacity: Option<usize> = None,
        /// ACKs passed directly for new flows.
        ///
        /// And after three duplicate ACKs ("the first couple").
        #[key(range = r(In(0.0), In(1e6)), unit = "ACKs")]
        pub pass_first: u32 = 2,
        /// Sorted assignment constant (keceli-sorted).
        #[key(range = r(In(1.0), In(1e6)))]
        pub c_srt: u32 = 1,
        /// Grouping tolerance (keceli-grouped).
        ///
        /// Gamma of eq. (3).
        #[key(range = r(In(0.0), Ex(1.0)))]
        pub gamma: f64 = 0.5,
        /// Thresholds (keceli-grouped).
        ///
        /// The threshold set C: strictly increasing, each > 1.
        #[key(range = r(In(2.0), In(1e6)))]
        pub c: Vec<u32> = vec![2, 6, 12, 16, 20],
    }
}

impl KeceliConfig {
    pub(crate) fn params(&self, capacity: usize, grouped: bool) -> Result<KeceliParams, ConfigError> {
        check((0.0..=1.0).contains(&self.alpha), "alpha", "must be in [0, 1]")?;
        check(self.beta.is_finite() && self.beta > 0.0, "beta", "must be positive")?;
        let assignment = if grouped {
            check((0.0..1.0).contains(&self.gamma), "gamma", "must be in [0, 1)")?;
            check(!self.c.is_empty(), "c", "must not be empty")?;
            check(self.c.windows(2).all(|w| w[0] < w[1]), "c", "must be strictly increasing")?;
            check(self.c[0] > 1, "c", "elements must be greater than 1 (paper 001: 1 < c_k)")?;
            Assignment::Grouped { gamma: self.gamma, c: self.c.clone() }
        } else {
            check(self.c_srt >= 1, "c_srt", "must be at least 1")?;
            Assignment::Sorted { c_srt: self.c_srt }
        };
        let ifq = self.ifq_capacity.unwrap_or(capacity - capacity / 2);
        let control = self.control_capacity.unwrap_or((capacity / 2).max(1));
        check(ifq > 0, "ifq_capacity", "must be positive")?;
        check(control > 0, "control_capacity", "must be positive")?;
        Ok(KeceliParams {
            alpha: self.alpha,
            beta: self.beta,
            active_thresh: positive_ms("active_thresh_ms", self.active_thresh_ms)?,
            timeout: positive_ms("timeout_ms", self.timeout_ms)?,
            ifq_capacity: ifq,
            control_capacity: control,
            pass_first: self.pass_first,
            assignment,
        })
    }
}

impl QdiscKind for KeceliConfig {
    /// `keceli-grouped` assigns thresholds by grouping, `keceli-sorted` by
    /// sorting.
    fn build(&self, kind: &'static str, capacity: usize, _: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        Ok(Box::new(Keceli::new(self.params(capacity, kind == "keceli-grouped")?)))
    }
}

/// How `cum_thresh,i` is chosen (paper 001 section III).
#[derive(Clone, Debug, PartialEq)]
pub enum Assignment {
    Sorted { c_srt: u32 },
    Grouped { gamma: f64, c: Vec<u32> },
}

#[derive(Clone, Debug, PartialEq)]
pub struct KeceliParams {
    /// EWMA weight of eq. (2); paper value 0.8.
    pub alpha: f64,
    /// Waiting time factor; paper value 2.
    pub beta: f64,
    /// Activity window; paper value 500 ms.
    pub active_thresh: SimDur,
    /// Timeout timer (not given by the paper; see module docs).
    pub timeout: SimDur,
    /// IFQ size; paper value 25.
    pub ifq_capacity: usize,
    /// Control queue size; paper value 25.
    pub control_capacity: usize,
    /// ACKs passed directly for new flows / after three duplicate ACKs.
    pub pass_first: u32,
    pub assignment: Assignment,
}

impl KeceliParams {
    /// The paper's values (section IV) with grouped or sorted assignment.
    pub fn paper(grouped: bool) -> Self {
        KeceliParams {
            alpha: 0.8,
            beta: 2.0,
            active_thresh: SimDur::from_millis(500),
            timeout: SimDur::from_millis(100),
            ifq_capacity: 25,
            control_capacity: 25,
            pass_first: 2,
            assignment: if grouped {
                Assignment::Grouped { gamma: 0.5, c: vec![2, 6, 12, 16, 20] }
            } else {
                Assignment::Sorted { c_srt: 1 }
            },
        }
    }
}

#[derive(Clone, Debug)]
struct FlowState {
    /// AvgACKint_i in nanoseconds.
    avg_ns: Option<f64>,
    last_arr: SimTime,
    /// Highest cumulative ACK seen.
    last_ack: u32,
    dup_count: u32,
    pass_left: u32,
    held: Option<Queued>,
    cum_cur: u32,
    wait_deadline: SimTime,
    timeout_deadline: SimTime,
}

impl FlowState {
    fn deadline(&self) -> Option<SimTime> {
        self.held.as_ref().map(|_| self.wait_deadline.min(self.timeout_deadline))
    }
}

pub struct Keceli {
    p: KeceliParams,
    kind: &'static str,
    ifq: Fifo,
    /// Per-flow state, sorted by key (a handful of flows: a binary search
    /// beats a tree, and iteration in key order is a slice walk).
    flows: Vec<(FlowKey, FlowState)>,
    /// `(AvgACKint or NaN, LastACKarr)` of `flows[i]`, kept beside it so
    /// that `threshold` walks 16 bytes per flow.
    rank_view: Vec<(f64, SimTime)>,
    held: usize,
    held_bytes: u64,
    counters: QueueCounters,
    occ: Occupancy,
    /// Earliest deadline of a held ACK (`NEVER` if none): kept exact after
    /// every change, so that `expire` and `next_wakeup` need no scan.
    next_due: SimTime,
    /// Scratch for `threshold` and `expire` (no allocation per packet).
    scratch_avgs: Vec<f64>,
    scratch_due: Vec<(SimTime, usize)>,
}

impl Keceli {
    pub fn new(p: KeceliParams) -> Self {
        let kind = match p.assignment {
            Assignment::Sorted { .. } => "keceli-sorted",
            Assignment::Grouped { .. } => "keceli-grouped",
        };
        Keceli {
            p,
            kind,
            ifq: Fifo::default(),
            flows: Vec::new(),
            rank_view: Vec::new(),
            held: 0,
            held_bytes: 0,
            counters: QueueCounters::default(),
            occ: Occupancy::default(),
            next_due: SimTime::NEVER,
            scratch_avgs: Vec::new(),
            scratch_due: Vec::new(),
        }
    }

    /// Recompute `next_due` after held ACKs or their deadlines changed.
    fn refresh_due(&mut self) {
        self.next_due = if self.held == 0 {
            SimTime::NEVER
        } else {
            self.flows.iter().filter_map(|(_, s)| s.deadline()).min().unwrap_or(SimTime::NEVER)
        };
    }

    /// Index of flow `k` in `flows`.
    fn find(&self, k: &FlowKey) -> Option<usize> {
        self.flows.binary_search_by(|(key, _)| key.cmp(k)).ok()
    }

    fn state(&self, k: &FlowKey) -> Option<&FlowState> {
        self.find(k).map(|i| &self.flows[i].1)
    }

    /// `AvgACKint` of a flow, if estimated.
    pub fn avg_ack_interval(&self, k: &FlowKey) -> Option<SimDur> {
        self.state(k)?.avg_ns.map(|a| SimDur::from_nanos(a.round() as u64))
    }

    /// ACKs currently held in the control queue.
    pub fn held(&self) -> usize {
        self.held
    }

    /// `cum_thresh` of flow `k` at `now` under the configured assignment.
    ///
    /// The active flows (estimated `AvgACKint`, an ACK within
    /// `active_thresh`) are listed in flow-key order and sorted by
    /// decreasing `AvgACKint`, ties in list order (the stable order of
    /// [`threshold::sorted`] and [`threshold::grouped`], which this
    /// reproduces without allocating; a unit test compares both).
    pub fn threshold(&mut self, now: SimTime, k: &FlowKey) -> u32 {
        match self.find(k) {
            Some(i) => self.threshold_at(now, i),
            None => self.least_threshold(),
        }
    }

    /// The threshold of a flow that is not ranked (no estimate, inactive).
    fn least_threshold(&self) -> u32 {
        match &self.p.assignment {
            Assignment::Sorted { c_srt } => *c_srt,
            Assignment::Grouped { c, .. } => c[0],
        }
    }

    /// [`Keceli::threshold`] of `flows[idx]`.
    fn threshold_at(&mut self, now: SimTime, idx: usize) -> u32 {
        let mut list = std::mem::take(&mut self.scratch_avgs);
        list.clear();
        let (mut me, mut ahead) = (None, 0usize);
        let active = self.p.active_thresh;
        for (j, &(a, last)) in self.rank_view.iter().enumerate() {
            if a.is_nan() || now.saturating_since(last) > active {
                continue;
            }
            if j == idx {
                me = Some(a);
                // equal values listed before this flow rank ahead of it
                ahead += list.iter().filter(|&&v| v == a).count();
            }
            list.push(a);
        }
        let th = match me {
            None => self.least_threshold(),
            Some(mine) => match &self.p.assignment {
                Assignment::Sorted { c_srt } => {
                    // rank = flows ahead in the sorted list (higher values)
                    let rank = ahead + list.iter().filter(|&&v| v > mine).count();
                    (rank as u32 + 1) * c_srt
                }
                Assignment::Grouped { gamma, c } => {
                    let (g, n_groups) = threshold::group_of_value(&list, *gamma, mine);
                    threshold::grouped_value(g, n_groups, c)
                }
            },
        };
        self.scratch_avgs = list;
        th
    }

    fn ifq_push(&mut self, item: Queued, dropped: &mut Dropped) {
        if self.ifq.len() >= self.p.ifq_capacity {
            self.counters.drop_pkt(dropped, item.pkt, DropReason::QueueFull);
        } else {
            self.ifq.push(item);
        }
    }

    /// Move `flows[i]`'s held ACK (if any) to the IFQ; `cum_cur = 0`.
    fn release(&mut self, i: usize, dropped: &mut Dropped) {
        let st = &mut self.flows[i].1;
        st.cum_cur = 0;
        if let Some(x) = st.held.take() {
            self.held -= 1;
            self.held_bytes -= x.size();
            self.ifq_push(x, dropped);
        }
    }

    /// Release every held ACK whose waiting or timeout timer is due.
    fn expire(&mut self, now: SimTime, dropped: &mut Dropped) {
        if self.held == 0 || now < self.next_due {
            return;
        }
        let mut due = std::mem::take(&mut self.scratch_due);
        due.clear();
        // (deadline, index): the flows are in key order, so ties release
        // in key order
        due.extend(
            self.flows.iter().enumerate().filter_map(|(i, (_, s))| s.deadline().filter(|d| *d <= now).map(|d| (d, i))),
        );
        due.sort();
        for &(_, i) in due.iter() {
            self.release(i, dropped);
        }
        self.scratch_due = due;
        self.refresh_due();
    }

    fn on_pure_ack(&mut self, now: SimTime, item: Queued, dropped: &mut Dropped) {
        self.hold_or_pass(now, item, dropped);
        self.refresh_due();
    }

    fn hold_or_pass(&mut self, now: SimTime, item: Queued, dropped: &mut Dropped) {
        let k = FlowKey::of(&item.pkt).expect("pure ACK is TCP");
        let t = item.pkt.tcp().expect("TCP");
        let (a, no_sack) = (t.ack, t.options.sack.is_empty());
        let plain = is_plain_ack(&item.pkt) && no_sack;
        let (alpha, pass_first) = (self.p.alpha, self.p.pass_first);
        let (slot, is_new) = match self.flows.binary_search_by(|(key, _)| key.cmp(&k)) {
            Ok(i) => (i, false),
            Err(i) => {
                let fresh = FlowState {
                    avg_ns: None,
                    last_arr: now,
                    last_ack: a,
                    dup_count: 0,
                    pass_left: pass_first,
                    held: None,
                    cum_cur: 0,
                    wait_deadline: SimTime::NEVER,
                    timeout_deadline: SimTime::NEVER,
                };
                self.flows.insert(i, (k, fresh));
                self.rank_view.insert(i, (f64::NAN, now));
                (i, true)
            }
        };
        let st = &mut self.flows[slot].1;
        // eq. (2)
        if !is_new {
            let sample = now.since(st.last_arr).as_nanos() as f64;
            st.avg_ns = Some(match st.avg_ns {
                None => sample,
                Some(avg) => alpha * avg + (1.0 - alpha) * sample,
            });
            st.last_arr = now;
            self.rank_view[slot] = (st.avg_ns.unwrap_or(f64::NAN), now);
        }
        let advancing = if is_new {
            true
        } else if a == st.last_ack {
            st.dup_count += 1;
            if st.dup_count == 3 {
                st.pass_left = pass_first;
            }
            false
        } else if seq_lt(a, st.last_ack) {
            false
        } else {
            st.last_ack = a;
            st.dup_count = 0;
            true
        };
        let candidate = advancing && plain;
        // without an AvgACKint estimate there is no waiting time: pass
        if !candidate || st.pass_left > 0 || st.avg_ns.is_none() {
            if candidate && st.pass_left > 0 {
                st.pass_left -= 1;
            }
            self.release(slot, dropped);
            self.ifq_push(item, dropped);
            return;
        }
        // hold in the control queue
        let wait = SimDur::from_nanos((self.p.beta * st.avg_ns.expect("estimated")).round() as u64);
        if let Some(old) = st.held.take() {
            st.cum_cur += 1;
            self.held_bytes -= old.size();
            self.held_bytes += item.size();
            st.held = Some(item);
            self.counters.drop_pkt(dropped, old.pkt, DropReason::AckFiltered);
        } else if self.held >= self.p.control_capacity {
            self.counters.drop_pkt(dropped, item.pkt, DropReason::QueueFull);
            return;
        } else {
            st.cum_cur = 0;
            st.timeout_deadline = now + self.p.timeout;
            self.held += 1;
            self.held_bytes += item.size();
            st.held = Some(item);
        }
        st.wait_deadline = now + wait;
        let cum = st.cum_cur;
        // rule 4; a zero waiting time (no estimate yet) releases at once
        // (No threshold is below the smallest one in use: skip computing it.)
        let least = match &self.p.assignment {
            Assignment::Sorted { c_srt } => *c_srt,
            Assignment::Grouped { c, .. } => c.iter().copied().min().unwrap_or(0),
        };
        if wait == SimDur::ZERO || (cum >= least && cum >= self.threshold_at(now, slot)) {
            self.release(slot, dropped);
        }
    }

    fn update_occ(&mut self, now: SimTime) {
        self.occ.update(now, self.len(), self.bytes());
    }
}

impl QueueDisc for Keceli {
    fn kind(&self) -> &'static str {
        self.kind
    }
    fn timed(&self) -> bool {
        true
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        self.expire(now, dropped);
        self.counters.offered(&item);
        item.enqueued_at = now;
        if item.pkt.is_pure_tcp_ack() {
            self.on_pure_ack(now, item, dropped);
        } else {
            self.ifq_push(item, dropped);
        }
        self.update_occ(now);
    }
    fn dequeue(&mut self, now: SimTime, dropped: &mut Dropped) -> Option<Queued> {
        self.expire(now, dropped);
        let x = self.ifq.pop();
        if let Some(x) = &x {
            self.counters.sent(x);
        }
        self.update_occ(now);
        x
    }
    fn len(&self) -> usize {
        self.ifq.len() + self.held
    }
    fn bytes(&self) -> u64 {
        self.ifq.bytes() + self.held_bytes
    }
    fn ready_len(&self) -> usize {
        self.ifq.len()
    }
    fn next_wakeup(&self) -> Option<SimTime> {
        debug_assert_eq!(
            self.next_due,
            self.flows.iter().filter_map(|(_, s)| s.deadline()).min().unwrap_or(SimTime::NEVER)
        );
        (!self.next_due.is_never()).then_some(self.next_due)
    }
    fn on_timer(&mut self, now: SimTime, dropped: &mut Dropped) {
        self.expire(now, dropped);
        self.update_occ(now);
    }
    fn counters(&self) -> &QueueCounters {
        &self.counters
    }
    fn occupancy(&self) -> &Occupancy {
        &self.occ
    }
}

#[cfg(test)]
mod tests;
