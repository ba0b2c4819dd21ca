//! Snoop (Balakrishnan, Seshan, Amir & Katz, "Improving TCP/IP performance
//! over wireless networks", MobiCom 1995; RFC 3135 section 2.1.6 calls it a
//! local-retransmission PEP): an agent at the AP that watches each TCP flow
//! towards a station.
//!
//! * Data from the wired side: a segment above the highest sequence seen is
//!   cached (a copy of its headers) and forwarded; a segment at or below it
//!   (a sender retransmission, or reordering upstream) is forwarded and its
//!   cache entry marked so that it gives no RTT sample (Karn).
//! * ACKs from the station: a new cumulative ACK frees the cache up to it,
//!   gives a round-trip sample of the wireless hop (RFC 6298 estimator) and
//!   is forwarded. An ACK below the last one seen (reordered) is dropped, as
//!   Balakrishnan's agent discards it. A duplicate ACK whose next segment is
//!   cached is a cache hit: on the first one the segment is retransmitted
//!   locally and the number of duplicates still to come is estimated as the
//!   number of cached segments above it; those duplicates (the first
//!   included) are suppressed (dropped with `DropReason::Proxy`). Duplicates
//!   beyond the estimate, and any duplicate whose segment is not cached,
//!   go on to the sender, whose own recovery then runs.
//! * Local timer: when the oldest unacknowledged cached segment has waited
//!   one local RTO (max(`local_rto_min`, SRTT + 4 RTTVAR), RFC 6298 2.3,
//!   `local_rto_initial` before the first sample) without ACK progress, it
//!   is retransmitted locally and the timer backs off (doubling, at most
//!   `max_local_retransmissions` per segment).
//!
//! SACK: the agent uses the cumulative ACK only, as the 1995 design does.
//! SACK blocks of forwarded ACKs reach the sender unchanged; those of
//! suppressed duplicates are lost to it, so after a suppressed episode the
//! sender's scoreboard learns the holes only from later ACKs. This is the
//! weakness the SACK-aware Snoop variants (paper 003 refs. 12-14) address.
//!
//! ACK loss on the wireless hop: a later cumulative ACK covers a lost one
//! and frees the same cache entries; a lost duplicate ACK only delays the
//! local retransmission to the next duplicate or to the local timer.
//!
//! The local timer's floor (`local_rto_min`, default 250 ms) sits above
//! the receiver's delayed-ACK timer (200 ms, the TCP crate's default; RFC
//! 1122 4.2.3.2 allows up to 500 ms): with a lower floor the timer fires
//! whenever a lone segment's ACK is merely delayed (measured in the
//! loss-free 400 kB transfer of crates/sim/tests/proxies.rs: 2 spurious
//! timer retransmissions with a 200 ms floor, none with 250 ms).
//! The 1995 paper derives its timer from the wireless round trip, which
//! its receivers' ACK policy kept short.
//!
//! Deviations: a local retransmission joins the tail of the AP's transmit
//! queue (the 1995 agent gave it priority at the base station's link
//! layer); the cache is per flow and bounded by `cache_packets` (a segment
//! arriving at a full cache is forwarded uncached, counted in
//! `cache_full`).
use crate::config::site_keys;
use crate::{pure_ack, seq_ge, seq_gt, seq_le, seq_lt, FlowKey, Sides};
use std::collections::{BTreeMap, VecDeque};
use wifitcp_core::config::ConfigError;
use wifitcp_core::{DropReason, SimDur, SimTime};
use wifitcp_net::{Agent, AgentCtx, Arrival, Verdict};
use wifitcp_wire::{Packet, TcpFlags};

wifitcp_core::config_table! {
    /// `kind = "snoop"`: the defaults are [`SnoopConfig::default`]'s.
    #[serde(deny_unknown_fields)]
    pub struct SnoopTable {
        use site_keys;
        /// Cached segments per flow at the AP.
        #[key(range = wifitcp_core::schema::PKTS, unit = "packets")]
        pub cache_packets: u32 = SnoopConfig::default().cache_packets as u32,
        /// Floor of the local retransmission timer.
        #[key(range = wifitcp_core::schema::TIMER_MS, unit = "ms")]
        pub local_rto_min_ms: f64 = SnoopConfig::default().local_rto_min.as_secs_f64() * 1e3,
        /// Local timer before an RTT sample.
        #[key(range = wifitcp_core::schema::TIMER_MS, unit = "ms")]
        pub local_rto_initial_ms: f64 = SnoopConfig::default().local_rto_initial.as_secs_f64() * 1e3,
        /// Local retransmissions of one segment.
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::In(0.0), wifitcp_core::schema::B::In(255.0)))]
        pub max_local_retransmissions: u32 = SnoopConfig::default().max_local_retransmissions,
    }
}

impl crate::config::ProxyKind for SnoopTable {
    fn node(&self) -> Option<&str> {
        self.node.as_deref()
    }
    fn check(&self, _: &wifitcp_tcp::scenario::TcpSection) -> Result<(), ConfigError> {
        crate::config::at_least_one("cache_packets", self.cache_packets.into())
    }
    fn build(&self, site: &crate::config::Site) -> Option<crate::config::Installed> {
        let c = SnoopConfig {
            cache_packets: self.cache_packets as usize,
            local_rto_min: crate::config::ms(self.local_rto_min_ms),
            local_rto_initial: crate::config::ms(self.local_rto_initial_ms),
            max_local_retransmissions: self.max_local_retransmissions,
        };
        let sides = Sides::new(site.stations.to_vec());
        Some(crate::config::Installed { ap: Box::new(Snoop::new(c, sides)), stations: Vec::new() })
    }
}

/// Snoop's constants (scenario keys `ap.proxy.*`).
#[derive(Clone, Debug)]
pub struct SnoopConfig {
    /// Cached segments per flow.
    pub cache_packets: usize,
    /// Floor of the local retransmission timeout.
    pub local_rto_min: SimDur,
    /// Local retransmission timeout before the first RTT sample.
    pub local_rto_initial: SimDur,
    /// Local retransmissions of one segment before Snoop leaves it to the
    /// sender.
    pub max_local_retransmissions: u32,
}

impl Default for SnoopConfig {
    fn default() -> Self {
        SnoopConfig {
            cache_packets: 150,
            local_rto_min: SimDur::from_secs_f64(0.25),
            local_rto_initial: SimDur::from_secs_f64(0.25),
            max_local_retransmissions: 4,
        }
    }
}

/// Counters reported in the result (`proxy` of the AP's record).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SnoopStats {
    pub segments_cached: u64,
    pub cache_full: u64,
    pub cache_hits: u64,
    pub cache_misses: u64,
    pub local_retransmissions: u64,
    pub timer_retransmissions: u64,
    pub suppressed_dupacks: u64,
    pub dupacks_passed: u64,
    pub stale_acks_dropped: u64,
    pub sender_retransmissions: u64,
    pub max_cache_occupancy: u64,
}

struct Cached {
    pkt: Packet,
    seq: u32,
    end: u32,
    sent: SimTime,
    local_rtx: u32,
    /// The sender retransmitted it (no RTT sample).
    sender_rtx: bool,
}

#[derive(Default)]
struct Flow {
    cache: VecDeque<Cached>,
    /// One past the highest sequence number seen from the sender.
    high: Option<u32>,
    last_ack: Option<u32>,
    dupacks: u32,
    /// The ACK value whose segment was retransmitted on a duplicate, and
    /// how many duplicates are expected for it.
    rtx_for: Option<u32>,
    expected_dupacks: u32,
    srtt: Option<SimDur>,
    rttvar: SimDur,
    backoff: u32,
    deadline: Option<SimTime>,
}

impl Flow {
    fn rto(&self, c: &SnoopConfig) -> SimDur {
        let base = match self.srtt {
            Some(s) => SimDur(s.0 + 4 * self.rttvar.0).max(c.local_rto_min),
            None => c.local_rto_initial,
        };
        SimDur(base.0.saturating_mul(1u64 << self.backoff.min(16)))
    }
    /// RFC 6298 2.2-2.3 (alpha 1/8, beta 1/4).
    fn rtt_sample(&mut self, r: SimDur) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = SimDur(r.0 / 2);
            }
            Some(s) => {
                let d = s.0.abs_diff(r.0);
                self.rttvar = SimDur((3 * self.rttvar.0 + d) / 4);
                self.srtt = Some(SimDur((7 * s.0 + r.0) / 8));
            }
        }
    }
    fn arm(&mut self, now: SimTime, c: &SnoopConfig) {
        self.deadline = if self.cache.is_empty() { None } else { Some(SimTime(now.0 + self.rto(c).0)) };
    }
}

/// The Snoop agent of one AP.
pub struct Snoop {
    cfg: SnoopConfig,
    sides: Sides,
    flows: BTreeMap<FlowKey, Flow>,
    stats: SnoopStats,
}

impl Snoop {
    pub fn new(cfg: SnoopConfig, sides: Sides) -> Self {
        Snoop { cfg, sides, flows: BTreeMap::new(), stats: SnoopStats::default() }
    }
    pub fn stats(&self) -> &SnoopStats {
        &self.stats
    }

    fn on_data(&mut self, now: SimTime, p: &Packet) {
        let h = p.tcp().expect("tcp");
        let f = self.flows.entry(FlowKey::downstream(p, h)).or_default();
        let (seq, end) = (h.seq, h.seq.wrapping_add(p.payload_len));
        let new = f.high.is_none_or(|hi| seq_ge(seq, hi));
        if !new {
            self.stats.sender_retransmissions += 1;
            if let Some(c) = f.cache.iter_mut().find(|c| c.seq == seq) {
                c.sender_rtx = true;
                c.sent = now;
                return;
            }
            if f.last_ack.is_some_and(|a| seq_le(end, a)) {
                return; // already acknowledged: forwarded, not cached
            }
        }
        if f.high.is_none_or(|hi| seq_gt(end, hi)) {
            f.high = Some(end);
        }
        if f.cache.len() >= self.cfg.cache_packets {
            self.stats.cache_full += 1;
            return;
        }
        let at = f.cache.iter().position(|c| seq_lt(seq, c.seq)).unwrap_or(f.cache.len());
        f.cache.insert(at, Cached { pkt: p.clone(), seq, end, sent: now, local_rtx: 0, sender_rtx: !new });
        self.stats.segments_cached += 1;
        self.stats.max_cache_occupancy = self.stats.max_cache_occupancy.max(f.cache.len() as u64);
        if f.deadline.is_none() {
            f.arm(now, &self.cfg);
        }
    }

    fn on_ack(&mut self, now: SimTime, p: &Packet, ctx: &mut AgentCtx) -> Verdict {
        let h = p.tcp().expect("tcp");
        let Some(f) = self.flows.get_mut(&FlowKey::upstream(p, h)) else {
            return Verdict::Pass;
        };
        let ack = h.ack;
        match f.last_ack {
            Some(last) if seq_lt(ack, last) => {
                self.stats.stale_acks_dropped += 1;
                return Verdict::Drop(DropReason::Proxy);
            }
            Some(last) if ack == last => {
                if !pure_ack(p, h) {
                    return Verdict::Pass;
                }
                return self.on_dupack(now, p, ctx);
            }
            _ => {}
        }
        // New cumulative ACK.
        let mut sample = None;
        while f.cache.front().is_some_and(|c| seq_le(c.end, ack)) {
            let c = f.cache.pop_front().expect("front");
            if c.local_rtx == 0 && !c.sender_rtx && sample.is_none() {
                sample = Some(now.since(c.sent));
            }
        }
        if let Some(r) = sample {
            f.rtt_sample(r);
        }
        f.last_ack = Some(ack);
        f.dupacks = 0;
        f.rtx_for = None;
        f.expected_dupacks = 0;
        f.backoff = 0;
        f.arm(now, &self.cfg);
        Verdict::Pass
    }

    fn on_dupack(&mut self, now: SimTime, p: &Packet, ctx: &mut AgentCtx) -> Verdict {
        let h = p.tcp().expect("tcp");
        let f = self.flows.get_mut(&FlowKey::upstream(p, h)).expect("flow");
        let ack = h.ack;
        f.dupacks += 1;
        let Some(i) = f.cache.iter().position(|c| c.seq == ack) else {
            self.stats.cache_misses += 1;
            self.stats.dupacks_passed += 1;
            return Verdict::Pass;
        };
        if f.rtx_for != Some(ack) {
            self.stats.cache_hits += 1;
            let c = &mut f.cache[i];
            if c.local_rtx < self.cfg.max_local_retransmissions {
                c.local_rtx += 1;
                c.sent = now;
                ctx.emit_copy(c.pkt.clone());
                self.stats.local_retransmissions += 1;
                f.rtx_for = Some(ack);
                f.expected_dupacks = (f.cache.len() - i - 1) as u32;
                f.dupacks = 1;
                f.arm(now, &self.cfg);
                self.stats.suppressed_dupacks += 1;
                return Verdict::Drop(DropReason::Proxy);
            }
            self.stats.dupacks_passed += 1;
            return Verdict::Pass;
        }
        if f.dupacks <= f.expected_dupacks.max(1) {
            self.stats.suppressed_dupacks += 1;
            return Verdict::Drop(DropReason::Proxy);
        }
        self.stats.dupacks_passed += 1;
        Verdict::Pass
    }
}

impl Agent for Snoop {
    fn kind(&self) -> &'static str {
        "snoop"
    }

    fn on_packet(&mut self, now: SimTime, at: Arrival, pkt: &mut Packet, ctx: &mut AgentCtx) -> Verdict {
        let Some(h) = pkt.tcp() else { return Verdict::Pass };
        if at.local || h.flags.has(TcpFlags::SYN) || h.flags.has(TcpFlags::RST) {
            return Verdict::Pass;
        }
        if self.sides.is_downstream(pkt) {
            if pkt.payload_len > 0 {
                self.on_data(now, pkt);
            }
            Verdict::Pass
        } else if self.sides.is_upstream(pkt) && h.flags.has(TcpFlags::ACK) {
            self.on_ack(now, pkt, ctx)
        } else {
            Verdict::Pass
        }
    }

    fn on_timer(&mut self, now: SimTime, ctx: &mut AgentCtx) {
        for f in self.flows.values_mut() {
            if f.deadline.is_none_or(|d| d > now) {
                continue;
            }
            f.deadline = None;
            if let Some(c) = f.cache.front_mut() {
                if c.local_rtx < self.cfg.max_local_retransmissions {
                    c.local_rtx += 1;
                    c.sent = now;
                    ctx.emit_copy(c.pkt.clone());
                    self.stats.local_retransmissions += 1;
                    self.stats.timer_retransmissions += 1;
                    f.backoff += 1;
                    f.arm(now, &self.cfg);
                }
            }
        }
    }

    fn next_wakeup(&self) -> Option<SimTime> {
        self.flows.values().filter_map(|f| f.deadline).min()
    }

    fn report(&self) -> Option<(&'static str, serde_json::Value)> {
        let s = &self.stats;
        Some((
            "proxy",
            serde_json::json!({
                "kind": "snoop",
                "segments_cached": s.segments_cached,
                "cache_full": s.cache_full,
                "cache_hits": s.cache_hits,
                "cache_misses": s.cache_misses,
                "local_retransmissions": s.local_retransmissions,
                "timer_retransmissions": s.timer_retransmissions,
                "suppressed_dupacks": s.suppressed_dupacks,
                "dupacks_passed": s.dupacks_passed,
                "stale_acks_dropped": s.stale_acks_dropped,
                "sender_retransmissions": s.sender_retransmissions,
                "max_cache_occupancy": s.max_cache_occupancy,
                "flows": self.flows.len(),
            }),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;

    #[test]
    fn retransmits_on_the_first_dupack_suppresses_the_expected_ones_and_drops_stale_acks() {
        let mut s = Snoop::new(SnoopConfig::default(), sides());
        let mut ctx = AgentCtx::default();
        for k in 0..5u32 {
            assert_eq!(s.on_packet(t(k as f64), FWD, &mut data(1000 + 100 * k, 100), &mut ctx), Verdict::Pass);
        }
        assert_eq!(s.on_packet(t(10.0), FWD, &mut ack(1100), &mut ctx), Verdict::Pass, "new ACK");
        assert_eq!(s.flows.values().next().unwrap().cache.len(), 4, "the acknowledged segment is freed");
        // 1100 lost: three segments above it produce duplicates.
        let d = Verdict::Drop(DropReason::Proxy);
        assert_eq!(s.on_packet(t(11.0), FWD, &mut ack(1100), &mut ctx), d);
        assert_eq!(emitted(&mut ctx).0, vec![1100], "local retransmission of the missing segment");
        assert_eq!(s.on_packet(t(11.1), FWD, &mut ack(1100), &mut ctx), d);
        assert_eq!(s.on_packet(t(11.2), FWD, &mut ack(1100), &mut ctx), d);
        assert_eq!(s.on_packet(t(11.3), FWD, &mut ack(1100), &mut ctx), Verdict::Pass, "beyond the expected");
        assert!(emitted(&mut ctx).0.is_empty());
        assert_eq!(s.on_packet(t(12.0), FWD, &mut ack(1500), &mut ctx), Verdict::Pass);
        assert_eq!(s.on_packet(t(12.1), FWD, &mut ack(1300), &mut ctx), d, "an ACK below the last is stale");
        assert_eq!(s.stats().stale_acks_dropped, 1);
        assert_eq!(s.stats().suppressed_dupacks, 3);
        assert!(s.next_wakeup().is_none(), "nothing cached, no timer");
    }

    #[test]
    fn the_local_timer_retransmits_the_oldest_segment_and_backs_off() {
        let cfg = SnoopConfig { max_local_retransmissions: 2, ..Default::default() };
        let mut s = Snoop::new(cfg, sides());
        let mut ctx = AgentCtx::default();
        s.on_packet(t(0.0), FWD, &mut data(1, 100), &mut ctx);
        let w1 = s.next_wakeup().unwrap();
        assert_eq!(w1, t(250.0), "the initial local RTO");
        s.on_timer(w1, &mut ctx);
        assert_eq!(emitted(&mut ctx).0, vec![1]);
        let w2 = s.next_wakeup().unwrap();
        assert_eq!(w2, t(750.0), "doubled");
        s.on_timer(w2, &mut ctx);
        s.on_timer(s.next_wakeup().unwrap(), &mut ctx);
        assert_eq!(emitted(&mut ctx).0, vec![1], "at most max_local_retransmissions");
        assert_eq!(s.stats().timer_retransmissions, 2);
    }

    #[test]
    fn the_cache_is_bounded() {
        let cfg = SnoopConfig { cache_packets: 3, ..Default::default() };
        let mut s = Snoop::new(cfg, sides());
        let mut ctx = AgentCtx::default();
        for k in 0..5u32 {
            s.on_packet(t(0.0), FWD, &mut data(1 + 100 * k, 100), &mut ctx);
        }
        assert_eq!(s.stats().max_cache_occupancy, 3);
        assert_eq!(s.stats().cache_full, 2);
    }
}
