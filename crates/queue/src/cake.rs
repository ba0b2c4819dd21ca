//! CAKE, Common Applications Kept Enhanced, as a whole queue discipline:
//! flow isolation by DRR++ over hashed flow queues, optional per-host
//! fairness, the COBALT AQM on every flow queue, a rate shaper and the ACK
//! filter. Sources (facts only; no code consulted or carried over):
//! Høiland-Jørgensen, Täht & Morton, "Piece of CAKE: A Comprehensive Queue
//! Management Solution for Home Gateways", IEEE LANMAN 2018 (sections
//! III-A to III-D), and tc-cake(8) of iproute2 for the option names and
//! defaults.
//!
//! Rules as implemented here:
//! - **Flow hashing** (paper III-B): `flows` queues (1024) in sets of 8
//!   ways. A packet's key (by `isolation`: nothing, source address,
//!   destination address, both, or the 5-tuple) is hashed with a
//!   per-instance perturbation; within the key's set the queue already
//!   holding that key is used, else a free queue of the set (empty and on
//!   no list), else the key's own queue (a collision).
//! - **Host isolation** (paper III-B, tc-cake `dual-srchost`,
//!   `dual-dsthost`, `triple-isolate`): flows are still queued separately
//!   but a flow's DRR quantum is divided by the number of bulk flows (on
//!   the old list) of its source host, its destination host or the larger
//!   of the two, so that hosts share first and a host's flows share its
//!   part. Hosts are IPv4 addresses, kept exactly (Linux hashes them into
//!   1024 host slots).
//! - **DRR++** (paper III-C): new (sparse) and old (bulk) lists as in
//!   FQ-CoDel (RFC 8290 4.2): a queue that was on no list joins the new
//!   list with one quantum; the new list is served first; a queue whose
//!   deficit runs out gains a (host-scaled) quantum and moves to the old
//!   list's tail; a new-list queue found empty moves to the old list, an
//!   old-list one leaves the lists. The quantum follows the shaped rate as
//!   in tc-cake: rate / 4096 bytes (rate in bytes/s) within 300..1514 bytes,
//!   1514 without a shaper. Deviation: CAKE keeps an emptied old-list queue
//!   on a "decaying" list until its COBALT state has decayed; here the
//!   queue leaves the lists at once and its COBALT state (kept with the
//!   queue) decays at the queue's next dequeue attempts.
//! - **COBALT** (paper III-D: CoDel's control law with BLUE beside it):
//!   per flow queue, at dequeue. A packet's sojourn time is over target
//!   when it exceeds `target` and also 2 x (bulk flows) and 4 x the time
//!   one 1514-byte packet takes at the shaped rate. Over target, the
//!   dropping state is entered (first signal an interval later) and `count`
//!   is at least 1; below it the state is left. While dropping, a packet
//!   dequeued at or after `drop_next` is signalled (CE on an ECT packet
//!   with `ecn`, else dropped), `count` rises and `drop_next` advances by
//!   interval / sqrt(count) (the control law shared with CoDel,
//!   [`crate::codel`]). Not dropping, each `drop_next` that passes
//!   lowers `count` by one and advances `drop_next` ("count decays instead
//!   of being reset", the paper's change to CoDel). BLUE: when the buffer
//!   overflows, the flow that loses its head packet raises its drop
//!   probability by 1/256 (at most once per `target`) and enters the
//!   dropping state; when a flow is found empty its probability falls by
//!   1/4096 per `target` passed since BLUE last moved (deviation: CAKE
//!   takes one step per visit, at most once per `target`; a discipline
//!   the MAC does not ask while it is empty would otherwise keep a raised
//!   probability through a sender's timeout backoff, where Linux's
//!   runner asks until it gets nothing). A dequeue that leaves no packet
//!   walks the lists once more at once, as Linux's last empty dequeue
//!   does, so the emptied queues are found. Every dequeued packet is also
//!   dropped with that probability (BLUE never marks). With no packet
//!   signalled `drop_next` is reset to now + interval while `count` is 0
//!   (an activity timeout).
//! - **Shaper** (paper III-A, `bandwidth_mbps` > 0): a packet may leave
//!   no earlier than the instant the previous one's transmission (its
//!   length plus `overhead_bytes` at the rate) ends; a dequeue before
//!   that returns nothing and the discipline asks for a wake-up then
//!   (`next_wakeup` while packets wait on the shaper). The
//!   schedule restarts from the present when the shaper finds it in the
//!   past (the link was idle or the consumer slower than the rate): no
//!   credit accumulates, so no burst above the rate. Target and interval
//!   follow the rate as in tc-cake: target at least 1.5 MTU times, interval
//!   grown by the same amount and at least two targets.
//! - **Overflow**: above the packet limit (the interface capacity) or
//!   `memory_limit` bytes (IPv4 datagram lengths; Linux counts the
//!   buffers' memory) the head of the queue holding the most bytes is
//!   dropped (`QueueFull`), one packet at a time, and that queue's BLUE
//!   reacts as above. The packet limit is the interface's capacity, as for
//!   every discipline here (Linux's CAKE bounds bytes only, by default
//!   10240 packets' worth of MTUs unless `memlimit` or its shaped rate
//!   gives less): with a small capacity a TCP burst overflows it and
//!   BLUE's random drops follow (section 16.10 of docs/validation.md).
//! - **ACK filter**: `ack_filter` runs [`crate::cake_ack`]'s filter on
//!   every flow queue at enqueue (CAKE's `ack-filter` option).
//! - Not modelled: the Diffserv tins (one best-effort tin, tc-cake's
//!   `besteffort`), NAT lookup, DSCP washing, GSO splitting, the
//!   `ingress` and `autorate-ingress` modes.
use crate::cake_ack::{AckFilter, AckFilterMode};
use crate::codel::control_law;
use crate::config::{check, positive_ms, ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::droptail::Fifo;
use crate::fq_codel::{five_tuple, flow_hash, List};
use crate::occupancy::Occupancy;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use wifitcp_core::config::KeyType;
use wifitcp_core::schema::Ty;
use wifitcp_core::schema::B::In;
use wifitcp_core::schema::{r, TIMER_MS};
use wifitcp_core::{DropReason, RngStream, SimDur, SimTime};

/// What CAKE isolates (tc-cake's flow isolation keywords).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CakeIsolation {
    /// One queue for everything.
    Flowblind,
    /// One queue per source address.
    Srchost,
    /// One queue per destination address.
    Dsthost,
    /// One queue per address pair.
    Hosts,
    /// One queue per 5-tuple, no host fairness.
    Flows,
    /// Per 5-tuple, fair between source hosts first.
    DualSrchost,
    /// Per 5-tuple, fair between destination hosts first.
    DualDsthost,
    /// Per 5-tuple, fair between source and between destination hosts.
    #[default]
    TripleIsolate,
}

impl KeyType for CakeIsolation {
    const TY: Ty = Ty::Str;
}

wifitcp_core::config_table! {
    /// `kind = "cake"`. The packet limit is the interface capacity.
    #[serde(deny_unknown_fields)]
    pub struct CakeConfig {
        /// Shaper rate; 0 leaves the output unshaped (tc-cake `unlimited`).
        #[key(range = r(In(0.0), In(1e6)), unit = "Mbit/s")]
        pub bandwidth_mbps: f64 = 0.0,
        /// Bytes added to each packet's length for the shaper (framing).
        #[key(range = r(In(0.0), In(256.0)), unit = "bytes")]
        pub overhead_bytes: u32 = 0,
        /// Flow isolation mode.
        ///
        /// "flowblind", "srchost", "dsthost", "hosts", "flows",
        /// "dual-srchost", "dual-dsthost" or "triple-isolate" (tc-cake's
        /// default).
        pub isolation: CakeIsolation = CakeIsolation::TripleIsolate,
        /// Flow queues (8-way set associative).
        #[key(range = r(In(8.0), In(65536.0)), unit = "queues")]
        pub flows: u32 = 1024,
        /// COBALT target (before the shaper's MTU-time floor).
        #[key(range = TIMER_MS, unit = "ms")]
        pub target_ms: f64 = 5.0,
        /// COBALT interval (tc-cake `rtt`).
        #[key(range = TIMER_MS, unit = "ms")]
        pub interval_ms: f64 = 100.0,
        /// Byte limit over all queues.
        #[key(range = r(In(1.0), In(1099511627776.0)), unit = "bytes")]
        pub memory_limit: u64 = 4 << 20,
        /// Mark ECT packets CE instead of dropping them (CAKE marks).
        pub ecn: bool = true,
        /// CAKE's ACK filter on each flow queue.
        ///
        /// "off", "conservative" (tc-cake `ack-filter`) or "aggressive".
        pub ack_filter: AckFilterMode = AckFilterMode::Off,
    }
}

/// Largest packet CAKE reckons with for its MTU time (Ethernet frame).
const MTU: u64 = 1514;
/// Ways per set of the flow table.
const WAYS: u32 = 8;
/// BLUE's steps (paper III-D): up by 1/256 on overflow, down by 1/4096 when empty.
const P_INC: f64 = 1.0 / 256.0;
const P_DEC: f64 = 1.0 / 4096.0;

/// CAKE's parameters, derived from a [`CakeConfig`].
#[derive(Clone, Debug, PartialEq)]
pub struct CakeParams {
    /// Shaper: nanoseconds per byte (0: unshaped).
    pub ns_per_byte: f64,
    pub overhead: u64,
    pub isolation: CakeIsolation,
    pub flows: u32,
    pub quantum: u64,
    pub target: SimDur,
    pub interval: SimDur,
    /// Time one MTU takes at the shaped rate (0 unshaped).
    pub mtu_time: SimDur,
    pub limit: usize,
    pub memory_limit: u64,
    pub ecn: bool,
    pub ack_filter: AckFilterMode,
}

impl CakeConfig {
    pub fn params(&self, capacity: usize) -> Result<CakeParams, ConfigError> {
        check(self.bandwidth_mbps.is_finite() && self.bandwidth_mbps >= 0.0, "bandwidth_mbps", "must be >= 0")?;
        check(self.flows >= WAYS, "flows", "must be at least 8")?;
        check(self.memory_limit > 0, "memory_limit", "must be positive")?;
        let target = positive_ms("target_ms", self.target_ms)?;
        let interval = positive_ms("interval_ms", self.interval_ms)?;
        let (ns_per_byte, quantum) = if self.bandwidth_mbps > 0.0 {
            let bytes_per_s = self.bandwidth_mbps * 1e6 / 8.0;
            (1e9 / bytes_per_s, ((bytes_per_s as u64) >> 12).clamp(300, MTU))
        } else {
            (0.0, MTU)
        };
        let mtu_time = SimDur::from_nanos((MTU as f64 * ns_per_byte).round() as u64);
        // tc-cake: target no shorter than 1.5 MTU times, the interval grown
        // by what the target grew and at least two targets
        let t = target.max(SimDur::from_nanos(mtu_time.as_nanos() * 3 / 2));
        let i = (interval + (t - target)).max(t * 2);
        Ok(CakeParams {
            ns_per_byte,
            overhead: self.overhead_bytes as u64,
            isolation: self.isolation,
            flows: self.flows,
            quantum,
            target: t,
            interval: i,
            mtu_time,
            limit: capacity,
            memory_limit: self.memory_limit,
            ecn: self.ecn,
            ack_filter: self.ack_filter,
        })
    }
}

impl QdiscKind for CakeConfig {
    fn build(&self, _: &'static str, capacity: usize, rng: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        Ok(Box::new(Cake::new(self.params(capacity)?, rng)))
    }
}

/// COBALT's per-queue state (paper III-D).
#[derive(Clone, Debug, Default)]
pub struct Cobalt {
    count: u32,
    drop_next: SimTime,
    dropping: bool,
    /// BLUE's drop probability.
    p_drop: f64,
    /// When BLUE last moved (`None`: never).
    blue_timer: Option<SimTime>,
}

/// What COBALT decided for a dequeued packet.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    Pass,
    Mark,
    Drop,
}

impl Cobalt {
    pub fn count(&self) -> u32 {
        self.count
    }
    pub fn p_drop(&self) -> f64 {
        self.p_drop
    }

    /// The buffer overflowed and this queue lost its head packet.
    fn queue_full(&mut self, now: SimTime, p: &CakeParams) {
        if self.blue_timer.is_none_or(|t| now.since(t) > p.target) {
            self.p_drop = (self.p_drop + P_INC).min(1.0);
            self.blue_timer = Some(now);
        }
        self.dropping = true;
        self.drop_next = now;
        self.count = self.count.max(1);
    }

    /// This queue was found empty at a dequeue.
    fn queue_empty(&mut self, now: SimTime, p: &CakeParams) {
        if self.p_drop > 0.0 && self.blue_timer.is_none_or(|t| now.since(t) > p.target) {
            // one step per target that passed since BLUE last moved: the
            // steps a queue visited empty once per target would have taken
            // (deviation, see the module docs)
            let steps = self.blue_timer.map_or(1, |t| now.since(t).as_nanos() / p.target.as_nanos().max(1));
            self.p_drop = (self.p_drop - P_DEC * steps as f64).max(0.0);
            self.blue_timer = Some(now);
        }
        self.dropping = false;
        if self.count > 0 && now >= self.drop_next {
            self.count -= 1;
            self.drop_next = control_law(self.drop_next, p.interval, self.count);
        }
    }

    /// The verdict on `x`, dequeued at `now` with `bulk` bulk flows.
    fn judge(&mut self, now: SimTime, x: &mut Queued, p: &CakeParams, bulk: u64, rng: &mut RngStream) -> Verdict {
        let sojourn = now.since(x.enqueued_at);
        let floor = p.mtu_time.as_nanos().saturating_mul(4.max(2 * bulk));
        let over = sojourn > p.target && sojourn.as_nanos() > floor;
        let mut due = self.count > 0 && now >= self.drop_next;
        if over {
            if !self.dropping {
                self.dropping = true;
                self.drop_next = control_law(now, p.interval, self.count);
            }
            self.count = self.count.max(1);
        } else {
            self.dropping = false;
        }
        let mut verdict = Verdict::Pass;
        if due && self.dropping {
            verdict = if p.ecn && x.pkt.ip.mark_ce() { Verdict::Mark } else { Verdict::Drop };
            self.count = self.count.saturating_add(1);
            self.drop_next = control_law(self.drop_next, p.interval, self.count);
        } else {
            while due {
                self.count -= 1;
                self.drop_next = control_law(self.drop_next, p.interval, self.count);
                due = self.count > 0 && now >= self.drop_next;
            }
        }
        if self.p_drop > 0.0 && verdict != Verdict::Drop && rng.unit() < self.p_drop {
            // BLUE drops, even a packet COBALT's CoDel half marked
            verdict = Verdict::Drop;
        }
        if self.count == 0 {
            self.drop_next = now + p.interval;
        }
        verdict
    }
}


struct FlowQueue {
    fifo: Fifo,
    deficit: i64,
    cobalt: Cobalt,
    list: List,
    /// The key of the flow now using this queue.
    tag: u64,
    src: u32,
    dst: u32,
}


pub struct Cake {
    p: CakeParams,
    perturb: u64,
    rng: RngStream,
    filter: AckFilter,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    /// Bulk (old-list) flows per source and per destination address.
    src_bulk: BTreeMap<u32, u64>,
    dst_bulk: BTreeMap<u32, u64>,
    bulk: u64,
    len: usize,
    bytes: u64,
    /// The shaper: when the next packet may leave.
    next_send: SimTime,
    /// The latest instant the discipline was called at.
    now: SimTime,
    counters: QueueCounters,
    occ: Occupancy,
}

impl Cake {
    /// `rng` supplies the hash perturbation and BLUE's stream (two draws).
    pub fn new(p: CakeParams, rng: &mut RngStream) -> Self {
        let perturb = rng.next_u64();
        let blue = RngStream::derive(rng.next_u64(), "cake/blue");
        let queues = (0..p.flows)
            .map(|_| FlowQueue {
                fifo: Fifo::default(),
                deficit: 0,
                cobalt: Cobalt::default(),
                list: List::None,
                tag: u64::MAX,
                src: 0,
                dst: 0,
            })
            .collect();
        Cake {
            filter: AckFilter::new(p.ack_filter),
            p,
            perturb,
            rng: blue,
            queues,
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            src_bulk: BTreeMap::new(),
            dst_bulk: BTreeMap::new(),
            bulk: 0,
            len: 0,
            bytes: 0,
            next_send: SimTime::ZERO,
            now: SimTime::ZERO,
            counters: QueueCounters::default(),
            occ: Occupancy::default(),
        }
    }

    /// The flow key of a packet under the isolation mode.
    fn key(&self, x: &Queued) -> u64 {
        let (src, dst, ports) = five_tuple(x);
        let (a, b) = match self.p.isolation {
            CakeIsolation::Flowblind => (0, 0),
            CakeIsolation::Srchost => (src, 0),
            CakeIsolation::Dsthost => (0, dst),
            CakeIsolation::Hosts => (src, dst),
            _ => ((src << 32) | dst, ports),
        };
        flow_hash(a, b, self.perturb)
    }

    /// The queue of a packet: the set-associative lookup of the module docs.
    pub fn queue_of(&self, x: &Queued) -> u32 {
        let key = self.key(x);
        let home = (key % self.p.flows as u64) as u32;
        let set = home / WAYS * WAYS;
        let ways = set..(set + WAYS).min(self.p.flows);
        if let Some(i) = ways.clone().find(|&i| self.queues[i as usize].tag == key) {
            return i;
        }
        let free = |i: &u32| {
            let q = &self.queues[*i as usize];
            q.fifo.is_empty() && q.list == List::None
        };
        if free(&home) {
            return home;
        }
        ways.into_iter().find(free).unwrap_or(home)
    }

    /// The DRR quantum of queue `i` under host isolation.
    fn quantum_of(&self, i: u32) -> i64 {
        let q = &self.queues[i as usize];
        let of = |m: &BTreeMap<u32, u64>, h: u32| m.get(&h).copied().unwrap_or(0).max(1);
        let load = match self.p.isolation {
            CakeIsolation::DualSrchost => of(&self.src_bulk, q.src),
            CakeIsolation::DualDsthost => of(&self.dst_bulk, q.dst),
            CakeIsolation::TripleIsolate => of(&self.src_bulk, q.src).max(of(&self.dst_bulk, q.dst)),
            _ => 1,
        };
        (self.p.quantum / load).max(1) as i64
    }

    fn set_list(&mut self, i: u32, list: List) {
        let q = &mut self.queues[i as usize];
        let (was, src, dst) = (q.list, q.src, q.dst);
        q.list = list;
        if (was == List::Old) != (list == List::Old) {
            let up = list == List::Old;
            for (m, h) in [(&mut self.src_bulk, src), (&mut self.dst_bulk, dst)] {
                let e = m.entry(h).or_insert(0);
                if up {
                    *e += 1;
                } else {
                    *e -= 1;
                    if *e == 0 {
                        m.remove(&h);
                    }
                }
            }
            if up {
                self.bulk += 1;
            } else {
                self.bulk -= 1;
            }
        }
    }

    /// The queue holding the most bytes (lowest index on ties).
    fn fattest(&self) -> Option<u32> {
        (0..self.p.flows)
            .filter(|&i| !self.queues[i as usize].fifo.is_empty())
            .max_by(|&a, &b| {
                let (x, y) = (self.queues[a as usize].fifo.bytes(), self.queues[b as usize].fifo.bytes());
                x.cmp(&y).then(b.cmp(&a))
            })
    }

    /// Whether the shaper holds the queued packets back at the latest call.
    fn shaping(&self) -> bool {
        self.p.ns_per_byte > 0.0 && self.len > 0 && self.next_send > self.now
    }

    /// COBALT's state of queue `i` (tests and diagnostics).
    pub fn cobalt(&self, i: u32) -> &Cobalt {
        &self.queues[i as usize].cobalt
    }
    pub fn params(&self) -> &CakeParams {
        &self.p
    }

    /// One packet from DRR++ with COBALT, or `None` when every queue is empty.
    fn drr_dequeue(&mut self, now: SimTime, dropped: &mut Dropped) -> Option<Queued> {
        loop {
            let (i, from_new) = match self.new_flows.front() {
                Some(&b) => (b, true),
                None => (*self.old_flows.front()?, false),
            };
            if self.queues[i as usize].deficit <= 0 {
                let quantum = self.quantum_of(i);
                self.queues[i as usize].deficit += quantum;
                if from_new {
                    self.new_flows.pop_front();
                } else {
                    self.old_flows.pop_front();
                }
                self.set_list(i, List::Old);
                self.old_flows.push_back(i);
                continue;
            }
            let bulk = self.bulk;
            let q = &mut self.queues[i as usize];
            let mut got = None;
            while let Some(mut x) = q.fifo.pop() {
                self.len -= 1;
                self.bytes -= x.size();
                match q.cobalt.judge(now, &mut x, &self.p, bulk, &mut self.rng) {
                    Verdict::Drop => self.counters.drop_pkt(dropped, x.pkt, DropReason::QueueAqm),
                    v => {
                        if v == Verdict::Mark {
                            self.counters.ce_marked += 1;
                        }
                        got = Some(x);
                        break;
                    }
                }
            }
            match got {
                Some(x) => {
                    q.deficit -= x.size() as i64;
                    return Some(x);
                }
                None => {
                    q.cobalt.queue_empty(now, &self.p);
                    if from_new {
                        self.new_flows.pop_front();
                        self.set_list(i, List::Old);
                        self.old_flows.push_back(i);
                    } else {
                        self.old_flows.pop_front();
                        self.set_list(i, List::None);
                    }
                }
            }
        }
    }
}

impl QueueDisc for Cake {
    fn kind(&self) -> &'static str {
        "cake"
    }
    fn timed(&self) -> bool {
        true
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        self.counters.offered(&item);
        item.enqueued_at = now;
        self.now = now;
        if self.len == 0 && self.next_send < now {
            self.next_send = now; // an idle shaper restarts from the present
        }
        let i = self.queue_of(&item);
        let key = self.key(&item);
        let (src, dst) = (u32::from(item.pkt.ip.src), u32::from(item.pkt.ip.dst));
        let size = item.size();
        let q = &mut self.queues[i as usize];
        if q.list == List::None && q.fifo.is_empty() {
            q.tag = key;
            q.src = src;
            q.dst = dst;
        }
        q.fifo.push(item);
        self.len += 1;
        self.bytes += size;
        let mut removed = Vec::new();
        self.filter.filter(&mut q.fifo, &mut removed);
        for x in removed {
            self.len -= 1;
            self.bytes -= x.size();
            self.counters.drop_pkt(dropped, x.pkt, DropReason::AckFiltered);
        }
        if self.queues[i as usize].list == List::None {
            self.queues[i as usize].deficit = self.quantum_of(i);
            self.set_list(i, List::New);
            self.new_flows.push_back(i);
        }
        while self.len > self.p.limit || self.bytes > self.p.memory_limit {
            let f = self.fattest().expect("over the limit implies packets");
            let q = &mut self.queues[f as usize];
            let x = q.fifo.pop().expect("fattest queue holds packets");
            q.cobalt.queue_full(now, &self.p);
            self.len -= 1;
            self.bytes -= x.size();
            self.counters.drop_pkt(dropped, x.pkt, DropReason::QueueFull);
        }
        self.occ.update(now, self.len, self.bytes);
    }
    fn dequeue(&mut self, now: SimTime, dropped: &mut Dropped) -> Option<Queued> {
        if self.len == 0 && self.new_flows.is_empty() && self.old_flows.is_empty() {
            return None;
        }
        // (with no packet left the lists are still walked: the queues found
        // empty leave them and their COBALT state decays)
        self.now = now;
        if self.len > 0 && self.p.ns_per_byte > 0.0 && now < self.next_send {
            return None; // the shaper: next_wakeup() says when
        }
        let x = self.drr_dequeue(now, dropped);
        if self.len == 0 {
            // Linux's qdisc runner dequeues until it gets nothing: that
            // last call finds the emptied queues, which leave the lists
            // and let BLUE decay (a MAC asks an empty discipline nothing)
            let none = self.drr_dequeue(now, dropped);
            debug_assert!(none.is_none());
        }
        if let Some(x) = &x {
            self.counters.sent(x);
            if self.p.ns_per_byte > 0.0 {
                let dur = ((x.size() + self.p.overhead) as f64 * self.p.ns_per_byte).round() as u64;
                self.next_send = self.next_send.max(now) + SimDur::from_nanos(dur);
            }
        }
        self.occ.update(now, self.len, self.bytes);
        x
    }
    fn len(&self) -> usize {
        self.len
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn ready_len(&self) -> usize {
        if self.shaping() {
            0
        } else {
            self.len
        }
    }
    /// While the shaper holds packets back: the instant the next may leave
    /// (asked after every call, so a MAC that finds nothing eligible is
    /// fed again then).
    fn next_wakeup(&self) -> Option<SimTime> {
        self.shaping().then_some(self.next_send)
    }
    fn on_timer(&mut self, now: SimTime, _dropped: &mut Dropped) {
        self.now = now;
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
    use std::net::Ipv4Addr;

    fn cake(cfg: CakeConfig, limit: usize) -> Cake {
        Cake::new(cfg.params(limit).unwrap(), &mut RngStream::derive(1, "cake"))
    }

    /// A 1460-byte segment of `flow` from `src` to `dst` (addresses 10.0.x.y by last octet).
    fn seg(flow: u32, seq: u32, src: u8, dst: u8) -> Queued {
        let mut p = data(flow, seq);
        p.ip.src = Ipv4Addr::new(10, 0, 1, src);
        p.ip.dst = Ipv4Addr::new(10, 0, 0, dst);
        q(p)
    }

    #[test]
    fn sparse_flow_is_served_ahead_of_a_bulk_backlog() {
        // A shaped 10 Mbit/s CAKE: a bulk flow keeps 200 packets queued
        // (about 240 ms of backlog at the rate); a ping-sized packet of
        // another flow arriving behind it leaves within two packet times.
        let mut c = cake(CakeConfig { bandwidth_mbps: 10.0, ..Default::default() }, 1000);
        let mut dr = Vec::new();
        let mut t = 0u64; // us
        let mut next_sparse = 0u64;
        let mut seq = 0;
        let mut sparse_delay = Vec::new();
        let mut bulk_delay = Vec::new();
        for _ in 0..200 {
            c.enqueue(us(t), q(data(1, seq)), &mut dr);
            seq += 1460;
        }
        while t < 2_000_000 {
            if t >= next_sparse {
                c.enqueue(us(t), q(udp(2, 64)), &mut dr);
                next_sparse += 50_000;
            }
            // keep the bulk flow backlogged
            while c.len() < 200 {
                c.enqueue(us(t), q(data(1, seq)), &mut dr);
                seq += 1460;
            }
            if let Some(x) = c.dequeue(us(t), &mut dr) {
                let d = us(t).since(x.enqueued_at).as_nanos() as f64 / 1e6;
                if x.pkt.flow.0 == 2 { sparse_delay.push(d) } else { bulk_delay.push(d) }
            }
            t = match c.next_wakeup() {
                Some(w) => w.as_nanos() / 1000 + 1,
                None => t + 10,
            };
            c.on_timer(us(t), &mut dr);
        }
        let worst = sparse_delay.iter().cloned().fold(0.0, f64::max);
        assert!(sparse_delay.len() >= 39, "{}", sparse_delay.len());
        // one 1500-byte packet at 10 Mbit/s is 1.2 ms
        assert!(worst < 2.5, "sparse flow waited {worst} ms");
        let bulk_mean = bulk_delay.iter().sum::<f64>() / bulk_delay.len() as f64;
        assert!(bulk_mean > 20.0, "bulk flow's mean sojourn {bulk_mean} ms");
        assert!(c.counters().balances(c.len()));
    }

    #[test]
    fn the_shaper_holds_the_configured_rate() {
        // 20 Mbit/s, one backlogged flow: bytes out over 1 s within 1 % of
        // 2.5 MB, with wake-ups at the shaper's instants only.
        let mut c = cake(CakeConfig { bandwidth_mbps: 20.0, ..Default::default() }, 10_000);
        let mut dr = Vec::new();
        for i in 0..5000 {
            c.enqueue(ms(0), q(data(1, i * 1460)), &mut dr);
        }
        let mut now = ms(0);
        let mut bytes = 0u64;
        loop {
            while let Some(x) = c.dequeue(now, &mut dr) {
                bytes += x.size();
            }
            let w = c.next_wakeup().expect("throttled with packets");
            assert!(w > now);
            if w > ms(1000) {
                break;
            }
            now = w;
            c.on_timer(now, &mut dr);
        }
        let want = 20e6 / 8.0;
        assert!((bytes as f64 - want).abs() / want < 0.01, "{bytes} bytes in 1 s");
        // unshaped: no wake-up, everything at once
        let mut u = cake(CakeConfig::default(), 100);
        for i in 0..10 {
            u.enqueue(ms(0), q(data(1, i)), &mut dr);
        }
        assert_eq!(drain(&mut u, ms(0), &mut dr).len(), 10);
        assert!(u.next_wakeup().is_none());
    }

    #[test]
    fn host_isolation_shares_between_hosts_before_flows() {
        // Destination host 1 has four bulk flows, host 2 one. With
        // dual-dsthost each host gets half the bytes; with plain per-flow
        // fairness host 2 gets a fifth.
        for (iso, want) in [(CakeIsolation::DualDsthost, 0.5), (CakeIsolation::Flows, 0.2)] {
            let cfg = CakeConfig { isolation: iso, ecn: false, memory_limit: 1 << 30, ..Default::default() };
            let mut c = cake(cfg, 100_000);
            let mut dr = Vec::new();
            for i in 0..2000 {
                for f in 1..=4 {
                    c.enqueue(ms(0), seg(f, i, f as u8, 1), &mut dr);
                }
                c.enqueue(ms(0), seg(5, i, 5, 2), &mut dr);
            }
            let mut host2 = 0u64;
            let mut all = 0u64;
            for _ in 0..4000 {
                let x = c.dequeue(ms(1), &mut dr).expect("backlogged");
                all += x.size();
                if x.pkt.ip.dst == Ipv4Addr::new(10, 0, 0, 2) {
                    host2 += x.size();
                }
            }
            let share = host2 as f64 / all as f64;
            assert!((share - want).abs() < 0.02, "{iso:?}: host 2 got {share}");
        }
    }

    #[test]
    fn cobalt_signals_a_standing_queue_and_count_decays_after() {
        // One flow: a packet per ms in, one per 1.2 ms out (unshaped CAKE
        // served by hand): the sojourn passes 5 ms at about 30 ms, the
        // first drop comes an interval later, then drops follow the control
        // law; after the load stops, count falls back instead of resetting.
        let mut c = cake(CakeConfig { ecn: false, ..Default::default() }, 10_000);
        let (mut dr, first, mut ts) = overload(&mut c);
        let first = first.expect("COBALT dropped");
        assert!((125_000..=140_000).contains(&first), "first drop at {first} us");
        assert!(dr.iter().all(|(_, r)| *r == DropReason::QueueAqm));
        let qi = c.queue_of(&q(data(1, 0)));
        let peak = c.cobalt(qi).count();
        assert!(peak > 2, "count {peak}");
        // drain, then idle dequeues: count decays one step per drop_next
        while c.dequeue(us(ts), &mut dr).is_some() {
            ts += 1200;
        }
        for k in 1..=40u64 {
            c.enqueue(us(ts + k * 100_000), q(data(1, k as u32)), &mut dr);
            let _ = drain(&mut c, us(ts + k * 100_000 + 1), &mut dr);
        }
        let later = c.cobalt(qi).count();
        assert!(later < peak, "count {peak} -> {later}");
        assert!(c.counters().balances(c.len()));
    }

    #[test]
    fn cobalt_marks_ect_packets_instead_of_dropping() {
        let mut c = cake(CakeConfig::default(), 10_000);
        let mut dr = Vec::new();
        let (mut ta, mut ts, mut i) = (0u64, 0u64, 0u32);
        while ta < 600_000 {
            if ta <= ts {
                let mut p = data(1, i);
                p.ip.set_ecn(wifitcp_wire::ip::Ecn::Ect0);
                c.enqueue(us(ta), q(p), &mut dr);
                i += 1;
                ta += 1000;
            } else {
                c.dequeue(us(ts), &mut dr);
                ts += 1200;
            }
        }
        assert!(c.counters().ce_marked > 0);
        assert!(dr.is_empty(), "{} dropped", dr.len());
    }

    #[test]
    fn overflow_drops_the_fattest_head_and_raises_blue() {
        let mut c = cake(CakeConfig::default(), 10);
        let mut dr = Vec::new();
        for i in 0..8 {
            c.enqueue(ms(0), q(data(1, i)), &mut dr);
        }
        for i in 0..3 {
            c.enqueue(ms(1), q(data(2, i)), &mut dr);
        }
        assert_eq!(dr.len(), 1);
        assert_eq!((dr[0].0.flow.0, dr[0].1), (1, DropReason::QueueFull));
        let qi = c.queue_of(&q(data(1, 0)));
        assert!((c.cobalt(qi).p_drop() - P_INC).abs() < 1e-12);
        // BLUE falls back once the queue is found empty, a target later
        let _ = drain(&mut c, ms(2), &mut dr);
        let _ = c.dequeue(ms(20), &mut dr);
        c.enqueue(ms(30), q(data(1, 99)), &mut dr);
        let _ = drain(&mut c, ms(30), &mut dr);
        let _ = c.dequeue(ms(40), &mut dr);
        assert!(c.cobalt(qi).p_drop() < P_INC);
        assert!(c.counters().balances(c.len()));
    }

    #[test]
    fn ack_filter_option_reuses_the_cake_ack_filter() {
        let mut c = cake(CakeConfig { ack_filter: AckFilterMode::Aggressive, ..Default::default() }, 100);
        let mut dr = Vec::new();
        for a in [1000, 2000, 3000] {
            c.enqueue(ms(0), q(ack(1, a)), &mut dr);
        }
        assert_eq!(c.len(), 1);
        assert_eq!(count(&dr, DropReason::AckFiltered), 2);
        assert!(c.counters().balances(c.len()));
    }

    #[test]
    fn quantum_and_target_follow_the_rate() {
        let p = CakeConfig { bandwidth_mbps: 1.0, ..Default::default() }.params(100).unwrap();
        // 125 kB/s >> 12 = 30 -> 300; MTU time 12.1 ms -> target 18.2 ms
        assert_eq!(p.quantum, 300);
        assert!((p.target.as_nanos() as f64 / 1e6 - 18.17).abs() < 0.01, "{:?}", p.target);
        assert!(p.interval >= p.target * 2);
        let u = CakeConfig::default().params(100).unwrap();
        assert_eq!((u.quantum, u.target, u.interval), (1514, SimDur::from_millis(5), SimDur::from_millis(100)));
        assert!(CakeConfig { flows: 4, ..Default::default() }.params(100).is_err());
    }
}
