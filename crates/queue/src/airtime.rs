//! Airtime-fair station scheduling at the AP, after the scheduler of
//! Høiland-Jørgensen et al., "Ending the Anomaly: Achieving Low Latency and
//! Airtime Fairness in WiFi" (USENIX ATC 2017, section 3.2, Algorithm 3),
//! as merged in Linux mac80211.
//!
//! Rules:
//! - One queue per station (`Queued::dest`), each an FQ-CoDel instance
//!   ([`crate::fq_codel`]) sharing the packet and memory limits: when the
//!   total is exceeded the head of the fattest flow queue of any station is
//!   dropped (`QueueFull`).
//! - Deficit round robin over stations where the deficit is airtime: a
//!   station's deficit is reduced by the airtime its transmissions used,
//!   reported after the fact through `on_airtime(dest, airtime)`. The
//!   simulator should report the airtime of every frame exchange with the
//!   station, including retries and, as in the paper, frames received from
//!   it (the scheduler then also compensates for uplink airtime).
//! - Sparse-station optimisation (as FQ-CoDel's new/old flow lists): a
//!   station that becomes backlogged joins `new_stations`; dequeue takes
//!   the head of `new_stations`, else of `old_stations`. A station whose
//!   deficit is not positive gets `quantum` added and moves to the tail of
//!   `old_stations`. A station with nothing to send leaves the lists (a
//!   station from `new_stations` first goes to `old_stations`).
//! - Quantum: 300 us of airtime (state: the paper's mac80211 default of
//!   the airtime quantum).
//! - Interpretation: on becoming backlogged again a station keeps a debt
//!   (negative deficit) but not a credit beyond one quantum:
//!   `deficit = min(deficit, 0) + quantum`. Airtime is charged after the
//!   packet left the queue, so forgiving debts would let a station that
//!   empties its queue every time exceed its share.
use crate::cake_ack::AckFilterMode;
use crate::config::{check, ConfigError, QdiscKind};
use crate::disc::{Dropped, QueueCounters, QueueDisc, Queued};
use crate::fq_codel::{account_core_drops, new_drops, FqCodelConfig, FqCodelParams, FqCore, List};
use crate::occupancy::Occupancy;
use std::collections::{BTreeMap, VecDeque};
use wifitcp_core::schema::B::In;
use wifitcp_core::schema::{r, TIMER_MS};
use wifitcp_core::{DropReason, RngStream, SimDur, SimTime};

wifitcp_core::config_table! {
    /// `kind = "airtime"`: the airtime DRR and each station's FQ-CoDel
    /// (whose keys are fq-codel's, the byte quantum named `fq_quantum`).
    #[serde(deny_unknown_fields)]
    pub struct AirtimeConfig {
        /// Airtime DRR quantum (1 us to 1 s: the deficit is integer nanoseconds).
        #[key(range = r(In(1.0), In(1e6)), unit = "us")]
        pub quantum_us: f64 = 300.0,
        /// Hash buckets (RFC 8290).
        #[key(range = r(In(1.0), In(65536.0)), unit = "queues")]
        pub flows: u32 = FqCodelConfig::default().flows,
        /// Per-station FQ-CoDel quantum.
        #[key(range = r(In(1.0), In(1e6)), unit = "bytes")]
        pub fq_quantum: u32 = FqCodelConfig::default().quantum,
        /// CoDel target (RFC 8289).
        #[key(range = TIMER_MS, unit = "ms")]
        pub target_ms: f64 = FqCodelConfig::default().target_ms,
        /// CoDel interval (RFC 8289).
        #[key(range = TIMER_MS, unit = "ms")]
        pub interval_ms: f64 = FqCodelConfig::default().interval_ms,
        /// Byte limit.
        #[key(range = r(In(1.0), In(1099511627776.0)), unit = "bytes")]
        pub memory_limit: u64 = FqCodelConfig::default().memory_limit,
        /// CAKE ACK filter per flow queue.
        pub ack_filter: AckFilterMode = FqCodelConfig::default().ack_filter,
        /// Mark ECT packets CE instead of dropping them (RFC 8290 4.2 / RFC 8289 5).
        ///
        /// Only CoDel's signals; the overload drops of a full buffer stay drops.
        pub ecn: bool = false,
    }
}

impl AirtimeConfig {
    fn fq(&self) -> FqCodelConfig {
        FqCodelConfig {
            flows: self.flows,
            quantum: self.fq_quantum,
            target_ms: self.target_ms,
            interval_ms: self.interval_ms,
            memory_limit: self.memory_limit,
            ack_filter: self.ack_filter,
            ecn: self.ecn,
        }
    }
}

impl QdiscKind for AirtimeConfig {
    fn build(&self, _: &'static str, capacity: usize, rng: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
        let fq = self.fq().params(capacity, "fq_quantum")?;
        let quantum = SimDur::from_nanos((self.quantum_us * 1e3).round().max(0.0) as u64);
        check(self.quantum_us.is_finite() && quantum > SimDur::ZERO, "quantum_us", "must be positive")?;
        Ok(Box::new(Airtime::new(AirtimeParams { quantum, fq }, rng)))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct AirtimeParams {
    /// DRR quantum in airtime.
    pub quantum: SimDur,
    /// FQ-CoDel parameters of every station queue; `limit` and
    /// `memory_limit` apply to the total over all stations.
    pub fq: FqCodelParams,
}

struct Station {
    fq: FqCore,
    deficit_ns: i64,
    list: List,
    airtime: SimDur,
}

pub struct Airtime {
    p: AirtimeParams,
    perturb: u64,
    stations: BTreeMap<u32, Station>,
    new_st: VecDeque<u32>,
    old_st: VecDeque<u32>,
    len: usize,
    bytes: u64,
    counters: QueueCounters,
    occ: Occupancy,
}

impl Airtime {
    pub fn new(p: AirtimeParams, rng: &mut RngStream) -> Self {
        Airtime {
            p,
            perturb: rng.next_u64(),
            stations: BTreeMap::new(),
            new_st: VecDeque::new(),
            old_st: VecDeque::new(),
            len: 0,
            bytes: 0,
            counters: QueueCounters::default(),
            occ: Occupancy::default(),
        }
    }

    /// Airtime reported for station `dest` so far.
    pub fn airtime_of(&self, dest: u32) -> SimDur {
        self.stations.get(&dest).map(|s| s.airtime).unwrap_or(SimDur::ZERO)
    }

    fn enforce_limits(&mut self, dropped: &mut Dropped) {
        while self.len > self.p.fq.limit || self.bytes > self.p.fq.memory_limit {
            let (dest, bucket) = self
                .stations
                .iter()
                .filter_map(|(d, s)| s.fq.fattest().map(|(b, bytes)| (bytes, *d, b)))
                .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)))
                .map(|(_, d, b)| (d, b))
                .expect("over limit implies packets");
            let x = self.stations.get_mut(&dest).expect("station").fq.drop_head(bucket).expect("non-empty");
            self.len -= 1;
            self.bytes -= x.size();
            self.counters.drop_pkt(dropped, x.pkt, DropReason::QueueFull);
        }
    }
}

impl QueueDisc for Airtime {
    fn kind(&self) -> &'static str {
        "airtime"
    }
    fn enqueue(&mut self, now: SimTime, mut item: Queued, dropped: &mut Dropped) {
        self.counters.offered(&item);
        item.enqueued_at = now;
        let dest = item.dest;
        let (fqp, perturb, quantum) = (self.p.fq.clone(), self.perturb, self.p.quantum.as_nanos() as i64);
        let st = self.stations.entry(dest).or_insert_with(|| Station {
            fq: FqCore::new(fqp, perturb),
            deficit_ns: quantum,
            list: List::None,
            airtime: SimDur::ZERO,
        });
        let mut d = new_drops();
        let (l0, b0) = (st.fq.len, st.fq.bytes);
        st.fq.enqueue(item, &mut d);
        self.len = self.len - l0 + st.fq.len;
        self.bytes = self.bytes - b0 + st.fq.bytes;
        if st.list == List::None && st.fq.len > 0 {
            st.list = List::New;
            st.deficit_ns = st.deficit_ns.min(0) + quantum;
            self.new_st.push_back(dest);
        }
        account_core_drops(&mut self.counters, dropped, d);
        self.enforce_limits(dropped);
        self.occ.update(now, self.len, self.bytes);
    }
    fn dequeue(&mut self, now: SimTime, dropped: &mut Dropped) -> Option<Queued> {
        let quantum = self.p.quantum.as_nanos() as i64;
        let mut d = new_drops();
        let x = loop {
            let (dest, from_new) = match self.new_st.front() {
                Some(&s) => (s, true),
                None => match self.old_st.front() {
                    Some(&s) => (s, false),
                    None => break None,
                },
            };
            let st = self.stations.get_mut(&dest).expect("listed station");
            if st.deficit_ns <= 0 {
                st.deficit_ns += quantum;
                st.list = List::Old;
                if from_new {
                    self.new_st.pop_front()
                } else {
                    self.old_st.pop_front()
                };
                self.old_st.push_back(dest);
                continue;
            }
            let (l0, b0) = (st.fq.len, st.fq.bytes);
            let m0 = st.fq.marks;
            let x = st.fq.dequeue(now, &mut d);
            self.counters.ce_marked += st.fq.marks - m0;
            self.len = self.len - l0 + st.fq.len;
            self.bytes = self.bytes - b0 + st.fq.bytes;
            match x {
                Some(x) => break Some(x),
                None => {
                    if from_new {
                        self.new_st.pop_front();
                        st.list = List::Old;
                        self.old_st.push_back(dest);
                    } else {
                        self.old_st.pop_front();
                        st.list = List::None;
                    }
                }
            }
        };
        account_core_drops(&mut self.counters, dropped, d);
        if let Some(x) = &x {
            self.counters.sent(x);
        }
        debug_assert_eq!(self.len, self.stations.values().map(|s| s.fq.len).sum::<usize>());
        self.occ.update(now, self.len, self.bytes);
        x
    }
    fn uses_airtime(&self) -> bool {
        true
    }
    fn on_airtime(&mut self, dest: u32, airtime: SimDur) {
        if let Some(st) = self.stations.get_mut(&dest) {
            st.deficit_ns -= airtime.as_nanos() as i64;
            st.airtime += airtime;
        }
    }
    fn len(&self) -> usize {
        self.len
    }
    fn bytes(&self) -> u64 {
        self.bytes
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

    fn air(limit: usize) -> Airtime {
        let p = AirtimeParams { quantum: SimDur::from_micros(300), fq: FqCodelParams::rfc(limit) };
        Airtime::new(p, &mut RngStream::derive(1, "air"))
    }

    #[test]
    fn equal_airtime_for_stations_with_different_rates() {
        let mut a = air(100_000);
        let mut dr = Vec::new();
        // station 1: 100 us per packet (fast), station 2: 1000 us (slow)
        let cost = |dest: u32| SimDur::from_micros(if dest == 1 { 100 } else { 1000 });
        let mut t = SimTime::ZERO;
        let mut sent = [0u32; 3];
        for i in 0..2000u32 {
            a.enqueue(t, q_to(data(1, i), 1), &mut dr);
            a.enqueue(t, q_to(data(2, i), 2), &mut dr);
        }
        for _ in 0..1100 {
            let x = a.dequeue(t, &mut dr).expect("backlogged");
            t += cost(x.dest); // sojourn grows but CoDel state is per flow
            a.on_airtime(x.dest, cost(x.dest));
            sent[x.dest as usize] += 1;
        }
        let (a1, a2) = (a.airtime_of(1).as_nanos() as f64, a.airtime_of(2).as_nanos() as f64);
        assert!((a1 / a2 - 1.0).abs() < 0.02, "airtime {a1} vs {a2}, sent {sent:?}");
        // the fast station sent about ten times as many packets
        assert!((sent[1] as f64 / sent[2] as f64 - 10.0).abs() < 0.5, "{sent:?}");
        assert!(a.counters().balances(a.len()));
    }

    #[test]
    fn sparse_station_served_first() {
        let mut a = air(1000);
        let mut dr = Vec::new();
        for i in 0..20 {
            a.enqueue(ms(0), q_to(data(1, i), 1), &mut dr);
        }
        for _ in 0..3 {
            let x = a.dequeue(ms(0), &mut dr).unwrap();
            a.on_airtime(x.dest, SimDur::from_micros(200));
        }
        a.enqueue(ms(0), q_to(udp(2, 100), 2), &mut dr);
        assert_eq!(a.dequeue(ms(0), &mut dr).unwrap().dest, 2);
    }

    #[test]
    fn global_limit_drops_from_fattest_flow_of_any_station() {
        let mut a = air(5);
        let mut dr = Vec::new();
        for i in 0..4 {
            a.enqueue(ms(0), q_to(data(1, i), 1), &mut dr);
        }
        a.enqueue(ms(0), q_to(data(2, 0), 2), &mut dr);
        a.enqueue(ms(0), q_to(data(2, 1), 2), &mut dr);
        assert_eq!(dr.len(), 1);
        assert_eq!(dr[0].0.flow.0, 1);
        assert_eq!(a.len(), 5);
        assert!(a.counters().balances(a.len()));
    }
}
