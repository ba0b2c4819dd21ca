//! FQ-CoDel (RFC 8290): flow queueing with deficit round robin between
//! new and old flows, and CoDel (RFC 8289) on every flow queue.
//!
//! Rules (RFC 8290 sections 4 and 5):
//! - Classification: the 5-tuple (addresses, protocol, ports) is hashed
//!   with a per-instance random perturbation into `flows` buckets (default
//!   1024); each bucket is one queue (section 4.1.1).
//! - Enqueue (4.1): a packet is timestamped and appended to its queue; a
//!   queue not on either list joins the tail of `new_flows` with
//!   `deficit = quantum` (default 1514 bytes). When the total exceeds the
//!   packet `limit` (or the memory limit, 32 MiB) a packet is dropped from
//!   the head of the queue with the largest byte count (`QueueFull`).
//!   Deviation: Linux drops in batches (up to half that queue); here one
//!   packet at a time until the limits hold, as RFC 8290 describes it.
//! - Dequeue (4.2): take the head of `new_flows`, else of `old_flows`. If
//!   its deficit is not positive it gains `quantum` and moves to the tail
//!   of `old_flows`; start again. Otherwise CoDel dequeues from it; if it
//!   yields nothing, a queue from `new_flows` moves to the tail of
//!   `old_flows` (so that it cannot re-enter `new_flows` at once) and a
//!   queue from `old_flows` leaves the lists; start again. Else the packet
//!   is sent and its size is taken from the deficit.
//! - Sizes are IPv4 datagram lengths (the 1514-byte quantum of Linux
//!   counts Ethernet framing; a 1500-byte datagram fits one quantum).
//! - Optional CAKE ACK filter ([`crate::cake_ack`]) on each flow queue.
use crate::cake_ack::{AckFilter, AckFilterMode};
use crate::codel::{CodelConfig, CodelParams, CodelState};
use crate::config::{check, ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::droptail::Fifo;
use crate::occupancy::Occupancy;
use std::collections::{BTreeMap, VecDeque};
use wifitcp_core::schema::B::In;
use wifitcp_core::schema::{r, TIMER_MS};
use wifitcp_core::{DropReason, RngStream, SimTime};
use wifitcp_wire::Transport;

wifitcp_core::config_table! {
    /// `kind = "fq-codel"`. The packet limit is the interface capacity.
    #[serde(deny_unknown_fields)]
    pub struct FqCodelConfig {
        /// Hash buckets (RFC 8290).
        #[key(range = r(In(1.0), In(65536.0)), unit = "queues")]
        pub flows: u32 = 1024,
        /// DRR quantum.
        #[key(range = r(In(1.0), In(1e6)), unit = "bytes")]
        pub quantum: u32 = 1514,
        /// CoDel target (RFC 8289).
        #[key(range = TIMER_MS, unit = "ms")]
        pub target_ms: f64 = 5.0,
        /// CoDel interval (RFC 8289).
        #[key(range = TIMER_MS, unit = "ms")]
        pub interval_ms: f64 = 100.0,
        /// Byte limit.
        ///
        /// Over all queues; the default is 32 MiB.
        #[key(range = r(In(1.0), In(1099511627776.0)), unit = "bytes")]
        pub memory_limit: u64 = 32 << 20,
        /// CAKE ACK filter per flow queue.
        ///
        /// "off", "conservative" or "aggressive".
        pub ack_filter: AckFilterMode = AckFilterMode::Off,
        /// Mark ECT packets CE instead of dropping them (RFC 8290 4.2 / RFC 8289 5).
        ///
        /// Only CoDel's signals; the overload drops of a full buffer stay drops.
        pub ecn: bool = false,
    }
}

impl FqCodelConfig {
    /// The parameters, `quantum_field` naming the byte quantum's key.
    pub(crate) fn params(&self, capacity: usize, quantum_field: &str) -> Result<FqCodelParams, ConfigError> {
        check(self.flows > 0, "flows", "must be positive")?;
        check(self.quantum > 0, quantum_field, "must be positive")?;
        check(self.memory_limit > 0, "memory_limit", "must be positive")?;
        Ok(FqCodelParams {
            flows: self.flows,
            quantum: self.quantum,
            codel: CodelConfig::params(self.target_ms, self.interval_ms, self.ecn)?,
            limit: capacity,
            memory_limit: self.memory_limit,
            ack_filter: self.ack_filter,
        })
    }
}

impl QdiscKind for FqCodelConfig {
    fn build(&self, _: &'static str, capacity: usize, rng: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        Ok(Box::new(FqCodel::new(self.params(capacity, "quantum")?, rng)))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FqCodelParams {
    /// Number of hash buckets (RFC 8290 section 5.2.3 / Linux default 1024).
    pub flows: u32,
    /// DRR quantum in bytes (Linux default 1514).
    pub quantum: u32,
    pub codel: CodelParams,
    /// Packet limit across all queues.
    pub limit: usize,
    /// Byte limit across all queues (Linux default 32 MiB).
    pub memory_limit: u64,
    pub ack_filter: AckFilterMode,
}

impl FqCodelParams {
    pub fn rfc(limit: usize) -> Self {
        FqCodelParams {
            flows: 1024,
            quantum: 1514,
            codel: CodelParams::default(),
            limit,
            memory_limit: 32 << 20,
            ack_filter: AckFilterMode::Off,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum List {
    None,
    New,
    Old,
}

struct FlowQueue {
    fifo: Fifo,
    deficit: i64,
    codel: CodelState,
    list: List,
}

/// Mix a 64-bit value (SplitMix64 finaliser).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A packet's 5-tuple as (source address, destination address, protocol
/// and ports), the keys the flow-queueing disciplines hash.
pub(crate) fn five_tuple(x: &Queued) -> (u64, u64, u64) {
    let ip = &x.pkt.ip;
    let (sp, dp) = match &x.pkt.l4 {
        Transport::Tcp(t) => (t.src_port, t.dst_port),
        Transport::Udp(u) => (u.src_port, u.dst_port),
    };
    let ports = ((ip.protocol as u64) << 32) | ((sp as u64) << 16) | dp as u64;
    (u32::from(ip.src) as u64, u32::from(ip.dst) as u64, ports)
}

/// The flow hash of keys `a` and `b` under the queue's `perturb`ation.
pub(crate) fn flow_hash(a: u64, b: u64, perturb: u64) -> u64 {
    mix(mix(a ^ perturb) ^ b)
}

/// Why a packet left an [`FqCore`] other than by dequeue.
pub(crate) struct CoreDrops {
    pub filtered: Vec<Queued>,
    pub aqm: Vec<Queued>,
}

/// The FQ-CoDel scheduler without limits or accounting, shared with the
/// airtime scheduler (one per station there).
pub(crate) struct FqCore {
    p: FqCodelParams,
    perturb: u64,
    filter: AckFilter,
    queues: BTreeMap<u32, FlowQueue>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    pub(crate) len: usize,
    pub(crate) bytes: u64,
    maxpacket: u64,
    /// Packets CoDel marked CE instead of dropping (`ecn`).
    pub(crate) marks: u64,
}

impl FqCore {
    pub(crate) fn new(p: FqCodelParams, perturb: u64) -> Self {
        assert!(p.flows > 0 && p.quantum > 0);
        let filter = AckFilter::new(p.ack_filter);
        FqCore {
            p,
            perturb,
            filter,
            queues: BTreeMap::new(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
            maxpacket: 0,
            marks: 0,
        }
    }

    /// Bucket of a packet: hash of its 5-tuple.
    pub(crate) fn classify(&self, x: &Queued) -> u32 {
        let (src, dst, ports) = five_tuple(x);
        let h = flow_hash((src << 32) | dst, ports, self.perturb);
        (h % self.p.flows as u64) as u32
    }

    pub(crate) fn enqueue(&mut self, item: Queued, drops: &mut CoreDrops) {
        let bucket = self.classify(&item);
        self.maxpacket = self.maxpacket.max(item.size());
        let quantum = self.p.quantum as i64;
        let fq = self.queues.entry(bucket).or_insert_with(|| FlowQueue {
            fifo: Fifo::default(),
            deficit: quantum,
            codel: CodelState::default(),
            list: List::None,
        });
        self.len += 1;
        self.bytes += item.size();
        fq.fifo.push(item);
        let before = drops.filtered.len();
        self.filter.filter(&mut fq.fifo, &mut drops.filtered);
        for x in &drops.filtered[before..] {
            self.len -= 1;
            self.bytes -= x.size();
        }
        if fq.list == List::None {
            fq.list = List::New;
            fq.deficit = quantum;
            self.new_flows.push_back(bucket);
        }
    }

    pub(crate) fn dequeue(&mut self, now: SimTime, drops: &mut CoreDrops) -> Option<Queued> {
        loop {
            let (bucket, from_new) = match self.new_flows.front() {
                Some(&b) => (b, true),
                None => (*self.old_flows.front()?, false),
            };
            let fq = self.queues.get_mut(&bucket).expect("listed queue exists");
            if fq.deficit <= 0 {
                fq.deficit += self.p.quantum as i64;
                fq.list = List::Old;
                if from_new {
                    self.new_flows.pop_front()
                } else {
                    self.old_flows.pop_front()
                };
                self.old_flows.push_back(bucket);
                continue;
            }
            let before = drops.aqm.len();
            let aqm = &mut drops.aqm;
            let m0 = fq.codel.marks;
            let x = fq.codel.dequeue(now, &mut fq.fifo, &self.p.codel, self.maxpacket, &mut |d| aqm.push(d));
            self.marks += fq.codel.marks - m0;
            for d in &drops.aqm[before..] {
                self.len -= 1;
                self.bytes -= d.size();
            }
            match x {
                Some(x) => {
                    fq.deficit -= x.size() as i64;
                    self.len -= 1;
                    self.bytes -= x.size();
                    return Some(x);
                }
                None => {
                    if from_new {
                        self.new_flows.pop_front();
                        fq.list = List::Old;
                        self.old_flows.push_back(bucket);
                    } else {
                        self.old_flows.pop_front();
                        fq.list = List::None;
                    }
                }
            }
        }
    }

    /// The queue with the largest byte count (lowest bucket on ties).
    pub(crate) fn fattest(&self) -> Option<(u32, u64)> {
        self.queues
            .iter()
            .filter(|(_, q)| !q.fifo.is_empty())
            .map(|(b, q)| (*b, q.fifo.bytes()))
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
    }

    /// Drop the head packet of queue `bucket`.
    pub(crate) fn drop_head(&mut self, bucket: u32) -> Option<Queued> {
        let x = self.queues.get_mut(&bucket)?.fifo.pop()?;
        self.len -= 1;
        self.bytes -= x.size();
        Some(x)
    }
}

/// Account the packets an [`FqCore`] call removed.
pub(crate) fn account_core_drops(c: &mut QueueCounters, dropped: &mut Dropped, d: CoreDrops) {
    for x in d.filtered {
        c.drop_pkt(dropped, x.pkt, DropReason::AckFiltered);
    }
    for x in d.aqm {
        c.drop_pkt(dropped, x.pkt, DropReason::QueueAqm);
    }
}

pub(crate) fn new_drops() -> CoreDrops {
    CoreDrops { filtered: Vec::new(), aqm: Vec::new() }
}

pub struct FqCodel {
    core: FqCore,
    counters: QueueCounters,
    occ: Occupancy,
}

impl FqCodel {
    /// `rng` supplies the hash perturbation (one draw).
    pub fn new(p: FqCodelParams, rng: &mut RngStream) -> Self {
        FqCodel { core: FqCore::new(p, rng.next_u64()), counters: QueueCounters::default(), occ: Occupancy::default() }
    }
    /// The bucket a packet hashes to (for tests and diagnostics).
    pub fn bucket_of(&self, x: &Queued) -> u32 {
        self.core.classify(x)
    }
}

impl QueueDisc for FqCodel {
    fn kind(&self) -> &'static str {
        "fq-codel"
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        self.counters.offered(&item);
        item.enqueued_at = now;
        let mut d = new_drops();
        self.core.enqueue(item, &mut d);
        account_core_drops(&mut self.counters, dropped, d);
        while self.core.len > self.core.p.limit || self.core.bytes > self.core.p.memory_limit {
            let (b, _) = self.core.fattest().expect("over limit implies packets");
            let x = self.core.drop_head(b).expect("fattest queue non-empty");
            self.counters.drop_pkt(dropped, x.pkt, DropReason::QueueFull);
        }
        self.occ.update(now, self.core.len, self.core.bytes);
    }
    fn dequeue(&mut self, now: SimTime, dropped: &mut Dropped) -> Option<Queued> {
        let mut d = new_drops();
        let m0 = self.core.marks;
        let x = self.core.dequeue(now, &mut d);
        self.counters.ce_marked += self.core.marks - m0;
        account_core_drops(&mut self.counters, dropped, d);
        if let Some(x) = &x {
            self.counters.sent(x);
        }
        self.occ.update(now, self.core.len, self.core.bytes);
        x
    }
    fn len(&self) -> usize {
        self.core.len
    }
    fn bytes(&self) -> u64 {
        self.core.bytes
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

    fn fq(limit: usize) -> FqCodel {
        FqCodel::new(FqCodelParams::rfc(limit), &mut RngStream::derive(1, "fq"))
    }

    #[test]
    fn sparse_flow_overtakes_bulk_backlog() {
        let mut f = fq(1000);
        let mut dr = Vec::new();
        for i in 0..50 {
            f.enqueue(ms(0), q(data(1, 1 + 1460 * i)), &mut dr);
        }
        // the bulk flow is served once, moving it to old_flows
        assert_eq!(f.dequeue(ms(1), &mut dr).unwrap().pkt.flow.0, 1);
        assert_eq!(f.dequeue(ms(1), &mut dr).unwrap().pkt.flow.0, 1);
        // a sparse flow's packet arrives behind 48 bulk packets
        f.enqueue(ms(2), q(udp(2, 100)), &mut dr);
        assert_ne!(f.bucket_of(&q(udp(2, 100))), f.bucket_of(&q(data(1, 1))));
        assert_eq!(f.dequeue(ms(2), &mut dr).unwrap().pkt.flow.0, 2);
        assert!(dr.is_empty());
    }

    #[test]
    fn drr_shares_bytes_between_backlogged_flows() {
        let mut f = fq(10_000);
        let mut dr = Vec::new();
        // flow 1: 1500-byte packets; flow 2: 500-byte packets
        for i in 0..300 {
            f.enqueue(ms(0), q(data(1, i)), &mut dr);
            f.enqueue(ms(0), q(data_len(2, i, 460)), &mut dr);
            f.enqueue(ms(0), q(data_len(2, i, 460)), &mut dr);
            f.enqueue(ms(0), q(data_len(2, i, 460)), &mut dr);
        }
        let mut bytes = [0u64; 3];
        for _ in 0..400 {
            let x = f.dequeue(ms(1), &mut dr).unwrap();
            bytes[x.pkt.flow.0 as usize] += x.size();
        }
        let ratio = bytes[1] as f64 / bytes[2] as f64;
        assert!((ratio - 1.0).abs() < 0.02, "{bytes:?}");
    }

    #[test]
    fn overflow_drops_from_the_fattest_flow() {
        let mut f = fq(10);
        let mut dr = Vec::new();
        for i in 0..8 {
            f.enqueue(ms(0), q(data(1, i)), &mut dr);
        }
        for i in 0..2 {
            f.enqueue(ms(0), q(data(2, i)), &mut dr);
        }
        f.enqueue(ms(0), q(data(2, 9)), &mut dr);
        assert_eq!(dr.len(), 1);
        assert_eq!((dr[0].0.flow.0, dr[0].1), (1, DropReason::QueueFull));
        assert!(f.counters().balances(f.len()));
    }

    #[test]
    fn codel_drops_once_sojourn_above_target_for_an_interval() {
        let mut f = fq(10_000);
        // packet k waits 0.2 k ms, reaching the 5 ms target at k = 25
        // (dequeued at t = 30 ms)
        let (dr, first, _) = overload(&mut f);
        let first = first.expect("CoDel dropped");
        assert!((130_000..=131_200).contains(&first), "first drop at {first} us");
        assert!(dr.iter().all(|(_, r)| *r == DropReason::QueueAqm));
        assert!(f.counters().dropped(DropReason::QueueAqm) > 1);
        assert!(f.counters().balances(f.len()));
    }

    #[test]
    fn ack_filter_inside_flow_queues() {
        let mut p = FqCodelParams::rfc(100);
        p.ack_filter = AckFilterMode::Aggressive;
        let mut f = FqCodel::new(p, &mut RngStream::derive(1, "fq"));
        let mut dr = Vec::new();
        for a in [1000, 2000, 3000] {
            f.enqueue(ms(0), q(ack(1, a)), &mut dr);
        }
        assert_eq!(f.len(), 1);
        assert_eq!(count(&dr, DropReason::AckFiltered), 2);
    }
}
