//! D-Proxy, the station half (paper 003 section III-C): the proxy after the
//! lossy link, at the TCP receiver's node. For each TCP flow arriving at the
//! station it tracks the next expected sequence number; a segment above it
//! reveals a gap, and the half holds the segments behind the gap, asks the
//! AP half ([`crate::dproxy`]) for each missing segment with one UDP
//! request, and hands the segments to the local TCP in sequence once the
//! gap is filled (Fig. 5).
//!
//! * Gap detection (III-C, Fig. 4): a data segment (or FIN) whose sequence
//!   number is above the next expected one. The gap is split into segments
//!   of the largest payload seen in the flow ("based on the packet sizes in
//!   the flow", Fig. 5a); each is requested at once, in sequence order.
//! * Timeouts (III-C 2): a missing segment is re-requested at the
//!   multipliers of `rerequest_multipliers` (default 2, 3, 4) times the mean
//!   retransmission time after its first request; after the last
//!   re-request (the fourth request) the half gives up waiting for it, one
//!   step later (at 5 times; the paper does not say how long the fourth
//!   request is waited for): the segments behind it go to TCP, whose own
//!   recovery takes over, and a late replay still passes through.
//! * Retransmission order (III-C 3): a replayed segment that arrives while
//!   a hole requested before it is still open means that request or its
//!   replay was lost: every such earlier hole is re-requested at once.
//! * Staggered catch-up (III-C 4): when a gap fills, at most
//!   `catchup_packets` (5) segments go to TCP before the half looks at its
//!   input again (it resumes on a wake-up at the same instant, after the
//!   events already due).
//! * Buffer (III-C 5): `buffer_packets` (150) shared equally by the flows
//!   the half holds segments for; a flow over its share stops waiting for
//!   its first hole (requests already sent stand).
//!
//! Left open by the paper, chosen here: the mean retransmission time is an
//! exponentially weighted mean (gain 1/8, as RFC 6298's SRTT) of the time
//! from a request to the arrival of the segment that fills its hole, with
//! `initial_rtx_time` before the first sample, sampled only from holes
//! requested once (Karn's rule), and doubled (at most 8 times) for every
//! hole given up with no sample since, as RFC 6298 5.5 backs off its timer
//! (without this the mean never learns that replays queued behind a full
//! AP queue take longer than its first value: every hole is given up and
//! none gives a sample); a duplicate of a held segment, and the
//! replays still expected for a hole filled after several requests, are
//! dropped (`DropReason::Proxy`: TCP would answer each with a duplicate
//! ACK, and three make the sender retransmit); a segment that
//! arrives while a gap is open is held even if it is in sequence with the
//! held ones, so TCP sees no gap at all while the proxy waits.
//!
//! Packets the half hands to TCP after holding them are new packets (the
//! held one was consumed at the station, its copy is emitted towards the
//! station itself); they pass this agent again as old data.
use crate::dproxy::{encode_request, REQUEST_PAYLOAD};
use crate::FlowKey;
use std::collections::BTreeMap;
use wifitcp_core::{DropReason, FlowId, SimDur, SimTime};
use wifitcp_net::{Agent, AgentCtx, Arrival, Verdict};
use wifitcp_wire::ip::PROTO_UDP;
use wifitcp_wire::{Ipv4Addr, Ipv4Header, Packet, TcpFlags, UdpHeader};

#[derive(Clone, Debug)]
pub struct DProxyStaConfig {
    pub buffer_packets: usize,
    pub rerequest_multipliers: Vec<f64>,
    pub catchup_packets: usize,
    pub initial_rtx_time: SimDur,
    pub request_port: u16,
}

impl Default for DProxyStaConfig {
    fn default() -> Self {
        DProxyStaConfig {
            buffer_packets: 150,
            rerequest_multipliers: vec![2.0, 3.0, 4.0],
            catchup_packets: 5,
            initial_rtx_time: SimDur::from_secs_f64(5e-3),
            request_port: 7070,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DProxyStaStats {
    pub gaps: u64,
    pub requests: u64,
    pub timeout_rerequests: u64,
    pub order_rerequests: u64,
    pub holes_filled: u64,
    pub holes_abandoned: u64,
    pub segments_held: u64,
    pub duplicates_dropped: u64,
    pub catchup_pauses: u64,
    pub max_buffer_occupancy: u64,
    pub holes_timed_out: u64,
}

/// Most doublings of the mean retransmission time.
const MAX_BACKOFF: u32 = 8;

#[derive(Clone, Debug)]
struct Hole {
    /// Length in sequence space (the largest payload seen, or the rest of
    /// the gap).
    len: u64,
    /// Requests sent so far (the first included).
    requests: u32,
    first_req: SimTime,
    last_req: SimTime,
    /// Position of its latest request in the flow's request order.
    order: u64,
}

struct Flow {
    /// The simulator's flow id (for the requests this half sends).
    id: FlowId,
    /// Next sequence number TCP expects from us, unwrapped (64-bit).
    next: u64,
    next_wire: u32,
    /// Largest payload seen.
    seg: u64,
    held: BTreeMap<u64, Packet>,
    holes: BTreeMap<u64, Hole>,
    /// One past the highest sequence number seen, unwrapped.
    high: u64,
    order: u64,
    /// Held segments now in sequence, not yet handed over (catch-up).
    releasing: bool,
    /// Filled holes that were requested more than once: how many more
    /// replays of each are still on their way (dropped on arrival).
    extra: BTreeMap<u64, u32>,
    /// Segments this half emitted towards TCP that have not yet come back
    /// through it (they pass).
    released: BTreeMap<u64, u32>,
}

impl Flow {
    fn unwrap(&self, seq: u32) -> u64 {
        (self.next as i64 + seq.wrapping_sub(self.next_wire) as i32 as i64) as u64
    }
    fn wire(&self, abs: u64) -> u32 {
        self.next_wire.wrapping_add(abs.wrapping_sub(self.next) as u32)
    }
    fn set_next(&mut self, abs: u64) {
        self.next_wire = self.wire(abs);
        self.next = abs;
    }
}

/// When the half stops waiting for a segment requested at every
/// multiplier, in mean retransmission times after its first request: one
/// more step of the same size past the last multiplier (2, 3, 4: at 5), so
/// the last re-request has the time the earlier ones had.
pub fn give_up_multiplier(m: &[f64]) -> f64 {
    match m {
        [] => 1.0,
        [x] => 2.0 * x,
        [.., a, b] => b + (b - a),
    }
}

/// Length of a segment in sequence space.
fn seg_len(p: &Packet) -> u64 {
    let h = p.tcp().expect("tcp");
    p.payload_len as u64 + h.flags.has(TcpFlags::FIN) as u64
}

pub struct DProxySta {
    cfg: DProxyStaConfig,
    /// This station's address and its AP's.
    addr: Ipv4Addr,
    ap: Ipv4Addr,
    flows: BTreeMap<FlowKey, Flow>,
    mean_rtx: SimDur,
    sampled: bool,
    /// Doublings of the mean after holes given up with no sample since
    /// (RFC 6298 5.5 and 5.7, applied to the retransmission time).
    backoff: u32,
    wake: Option<SimTime>,
    stats: DProxyStaStats,
}

impl DProxySta {
    pub fn new(cfg: DProxyStaConfig, addr: Ipv4Addr, ap: Ipv4Addr) -> Self {
        let mean_rtx = cfg.initial_rtx_time;
        DProxySta {
            cfg,
            addr,
            ap,
            flows: BTreeMap::new(),
            mean_rtx,
            sampled: false,
            backoff: 0,
            wake: None,
            stats: DProxyStaStats::default(),
        }
    }
    pub fn stats(&self) -> &DProxyStaStats {
        &self.stats
    }
    pub fn mean_rtx(&self) -> SimDur {
        self.mean_rtx
    }

    fn request(&mut self, now: SimTime, flow: FlowId, seq: u32, ctx: &mut AgentCtx) {
        let (ident, sport) = encode_request(seq);
        let mut ip = Ipv4Header::new(self.addr, self.ap, PROTO_UDP);
        ip.ident = ident;
        let u = UdpHeader { src_port: sport, dst_port: self.cfg.request_port };
        ctx.emit(Packet::new_udp(wifitcp_core::PacketId(0), flow, now, ip, u, REQUEST_PAYLOAD));
        self.stats.requests += 1;
    }

    /// When a hole is next due: its next re-request while multipliers are
    /// left, then the moment the half stops waiting for it (`None`: it is
    /// no longer waited for).
    fn due(&self, h: &Hole) -> Option<SimTime> {
        let m = &self.cfg.rerequest_multipliers;
        let k = h.requests as usize;
        let mult = if k <= m.len() {
            m[k - 1]
        } else if k == m.len() + 1 {
            give_up_multiplier(m)
        } else {
            return None;
        };
        let mean = self.mean_rtx.0 as f64 * (1u64 << self.backoff) as f64;
        Some(SimTime(h.first_req.0 + (mean * mult).round() as u64))
    }

    fn rtx_sample(&mut self, r: SimDur) {
        self.mean_rtx = if self.sampled { SimDur((7 * self.mean_rtx.0 + r.0) / 8) } else { r };
        self.backoff = 0;
        self.sampled = true;
    }

    /// Hand in-sequence held segments of `key` to TCP, at most the catch-up
    /// limit per call (the rest wait for a wake-up now); skip over holes no
    /// longer waited for (given up, or over the flow's buffer share when
    /// `force`).
    fn advance(&mut self, key: FlowKey, mut force: bool, ctx: &mut AgentCtx) {
        let limit = self.cfg.rerequest_multipliers.len();
        let f = self.flows.get_mut(&key).expect("flow");
        let mut n = 0;
        f.releasing = false;
        loop {
            while let Some((&abs, _)) = f.held.first_key_value() {
                if abs > f.next {
                    break;
                }
                let p = f.held.remove(&abs).expect("held");
                let end = abs + seg_len(&p);
                if end <= f.next {
                    continue; // fully delivered already
                }
                if n == self.cfg.catchup_packets {
                    f.held.insert(abs, p);
                    f.releasing = true;
                    self.stats.catchup_pauses += 1;
                    return;
                }
                f.set_next(end);
                *f.released.entry(abs).or_insert(0) += 1;
                ctx.emit_copy(p);
                n += 1;
            }
            while f.holes.first_key_value().is_some_and(|(&s, h)| s + h.len <= f.next) {
                f.holes.pop_first();
            }
            let Some((&first, _)) = f.held.first_key_value() else { return };
            let waiting = f.holes.range(..first).any(|(_, h)| (h.requests as usize) <= limit + 1);
            if waiting && !force {
                return;
            }
            force = false;
            let gone = f.holes.range(..first).count() as u64;
            self.stats.holes_abandoned += gone;
            f.set_next(first);
        }
    }

    fn share(&self) -> usize {
        let active = self.flows.values().filter(|f| !f.held.is_empty()).count().max(1);
        (self.cfg.buffer_packets / active).max(1)
    }

    fn on_data(&mut self, now: SimTime, p: &Packet, ctx: &mut AgentCtx) -> Verdict {
        let h = p.tcp().expect("tcp");
        let key = FlowKey::downstream(p, h);
        if h.flags.has(TcpFlags::SYN) {
            let next_wire = h.seq.wrapping_add(1);
            let (holes, held) = (BTreeMap::new(), BTreeMap::new());
            let id = p.flow;
            self.flows.entry(key).or_insert(Flow {
                id,
                next: 0,
                next_wire,
                seg: 0,
                held,
                holes,
                high: 0,
                order: 0,
                releasing: false,
                extra: BTreeMap::new(),
                released: BTreeMap::new(),
            });
            return Verdict::Pass;
        }
        let len = seg_len(p);
        if len == 0 {
            return Verdict::Pass;
        }
        let Some(f) = self.flows.get_mut(&key) else {
            return Verdict::Pass; // a flow whose SYN this half did not see
        };
        f.seg = f.seg.max(p.payload_len as u64);
        let abs = f.unwrap(h.seq);
        let end = abs + len;
        if let Some(n) = f.released.get_mut(&abs) {
            *n -= 1;
            if *n == 0 {
                f.released.remove(&abs);
            }
            return Verdict::Pass;
        }
        if end <= f.next {
            // A superfluous replay of a hole already filled is dropped (it
            // would make TCP send a duplicate ACK); other old data, or a
            // segment this half released, passes.
            if let Some(n) = f.extra.get_mut(&abs) {
                *n -= 1;
                if *n == 0 {
                    f.extra.remove(&abs);
                }
                self.stats.duplicates_dropped += 1;
                return Verdict::Drop(DropReason::Proxy);
            }
            return Verdict::Pass;
        }
        if abs <= f.next && f.held.is_empty() {
            f.set_next(end);
            f.high = f.high.max(end);
            return Verdict::Pass;
        }
        if f.held.contains_key(&abs) {
            self.stats.duplicates_dropped += 1;
            return Verdict::Drop(DropReason::Proxy);
        }
        // Held: it fills (part of) a hole, or lies beyond the highest seen.
        let flow = f.id;
        f.held.insert(abs, p.clone());
        self.stats.segments_held += 1;
        let hole_at = f.holes.range(..=abs).next_back().filter(|(&s, h)| abs < s + h.len).map(|(&s, _)| s);
        let mut to_request: Vec<u32> = Vec::new();
        let mut sample = None;
        if let Some(s) = hole_at {
            let hole = f.holes.remove(&s).expect("hole");
            self.stats.holes_filled += 1;
            // Karn's rule (as RFC 6298 section 3 for RTT samples): only a
            // hole requested once gives an unambiguous sample.
            if hole.requests == 1 {
                sample = Some(now.since(hole.last_req));
            } else if abs == s {
                f.extra.insert(abs, hole.requests - 1);
                // Bounded: the oldest expectations go first.
                while f.extra.len() > self.cfg.buffer_packets {
                    f.extra.pop_first();
                }
            }
            // What of the hole this segment does not cover stays a hole.
            if abs > s {
                f.holes.insert(s, Hole { len: abs - s, ..hole.clone() });
            }
            if end < s + hole.len {
                f.holes.insert(end, Hole { len: s + hole.len - end, ..hole.clone() });
            }
            // Retransmission order: live holes below, requested before
            // this one, are re-requested at once.
            let limit = self.cfg.rerequest_multipliers.len();
            let earlier: Vec<u64> = f
                .holes
                .range(..abs)
                .filter(|(_, h)| h.order < hole.order && (h.requests as usize) <= limit)
                .map(|(&k, _)| k)
                .collect();
            for k in earlier {
                f.order += 1;
                let order = f.order;
                let h = f.holes.get_mut(&k).expect("hole");
                h.requests += 1;
                h.last_req = now;
                h.order = order;
                to_request.push(f.wire(k));
                self.stats.order_rerequests += 1;
            }
        } else if abs > f.high.max(f.next) {
            // A new gap [high, abs): one hole per expected segment, each
            // requested at once, in sequence order.
            self.stats.gaps += 1;
            let mut s = f.high.max(f.next);
            let seg = f.seg.max(1);
            while s < abs {
                let l = seg.min(abs - s);
                f.order += 1;
                f.holes.insert(s, Hole { len: l, requests: 1, first_req: now, last_req: now, order: f.order });
                to_request.push(f.wire(s));
                s += l;
            }
        }
        f.high = f.high.max(end);
        for seq in to_request {
            self.request(now, flow, seq, ctx);
        }
        if let Some(r) = sample {
            self.rtx_sample(r);
        }
        let held_total: u64 = self.flows.values().map(|f| f.held.len() as u64).sum();
        self.stats.max_buffer_occupancy = self.stats.max_buffer_occupancy.max(held_total);
        let over = self.flows[&key].held.len() > self.share();
        if !self.flows[&key].releasing {
            self.advance(key, over, ctx);
        }
        self.update_wake(now);
        Verdict::Consume
    }

    fn update_wake(&mut self, now: SimTime) {
        let mut w: Option<SimTime> = None;
        let mut min = |t: SimTime| w = Some(w.map_or(t, |x: SimTime| x.min(t)));
        for f in self.flows.values() {
            if f.releasing {
                min(now);
            }
            for h in f.holes.values() {
                if let Some(d) = self.due(h) {
                    min(d);
                }
            }
        }
        self.wake = w;
    }
}

impl Agent for DProxySta {
    fn kind(&self) -> &'static str {
        "dproxy-station"
    }

    fn on_packet(&mut self, now: SimTime, at: Arrival, pkt: &mut Packet, ctx: &mut AgentCtx) -> Verdict {
        if !at.local || pkt.ip.dst != self.addr || pkt.tcp().is_none() {
            return Verdict::Pass;
        }
        self.on_data(now, pkt, ctx)
    }

    fn on_timer(&mut self, now: SimTime, ctx: &mut AgentCtx) {
        let keys: Vec<FlowKey> = self.flows.keys().copied().collect();
        for key in keys {
            let f = &self.flows[&key];
            let due: Vec<u64> =
                f.holes.iter().filter(|(_, h)| self.due(h).is_some_and(|t| t <= now)).map(|(&s, _)| s).collect();
            let limit = self.cfg.rerequest_multipliers.len();
            for s in due {
                let f = self.flows.get_mut(&key).expect("flow");
                f.order += 1;
                let order = f.order;
                let h = f.holes.get_mut(&s).expect("hole");
                h.requests += 1;
                if h.requests as usize > limit + 1 {
                    // Given up (`advance` skips it): the replays take
                    // longer than the mean says, so wait twice as long
                    // until a sample comes (at most 2^8 times).
                    self.backoff = (self.backoff + 1).min(MAX_BACKOFF);
                    self.stats.holes_timed_out += 1;
                    continue;
                }
                h.last_req = now;
                h.order = order;
                let (seq, id) = (f.wire(s), f.id);
                self.stats.timeout_rerequests += 1;
                self.request(now, id, seq, ctx);
            }
            self.advance(key, false, ctx);
        }
        self.update_wake(now);
    }

    fn next_wakeup(&self) -> Option<SimTime> {
        self.wake
    }

    fn report(&self) -> Option<(&'static str, serde_json::Value)> {
        let s = &self.stats;
        Some((
            "proxy",
            serde_json::json!({
                "kind": "dproxy-station",
                "gaps": s.gaps,
                "requests": s.requests,
                "timeout_rerequests": s.timeout_rerequests,
                "order_rerequests": s.order_rerequests,
                "holes_filled": s.holes_filled,
                "holes_abandoned": s.holes_abandoned,
                "segments_held": s.segments_held,
                "duplicates_dropped": s.duplicates_dropped,
                "catchup_pauses": s.catchup_pauses,
                "max_buffer_occupancy": s.max_buffer_occupancy,
                "mean_rtx_time_ms": self.mean_rtx.as_secs_f64() * 1e3,
                "rtx_backoff": self.backoff,
                "holes_timed_out": s.holes_timed_out,
            }),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;

    fn half(cfg: DProxyStaConfig) -> DProxySta {
        DProxySta::new(cfg, STA, AP)
    }

    #[test]
    fn give_up_is_one_step_past_the_last_multiplier() {
        assert_eq!(give_up_multiplier(&[2.0, 3.0, 4.0]), 5.0);
        assert_eq!(give_up_multiplier(&[3.0]), 6.0);
    }

    /// Fig. 5 with sequence numbers across 2^32: a gap of two segments is
    /// two requests; the replays come in reverse order, so the first one
    /// to arrive (the later hole) triggers a retransmission-order
    /// re-request of the earlier hole; once both are in, everything goes
    /// to TCP in order, five at a time.
    #[test]
    fn gap_requests_retransmission_order_and_staggered_catch_up_across_the_wrap() {
        let mut d = half(DProxyStaConfig::default());
        let mut ctx = AgentCtx::default();
        let isn = u32::MAX - 2_000;
        assert_eq!(d.on_packet(t(0.0), LOCAL, &mut synack(isn), &mut ctx), Verdict::Pass);
        let s0 = isn.wrapping_add(1);
        let seg = |k: u32| s0.wrapping_add(1000 * k);
        assert_eq!(d.on_packet(t(1.0), LOCAL, &mut data(seg(0), 1000), &mut ctx), Verdict::Pass);
        // seg 1 and 2 lost; 3..=7 arrive.
        for k in 3..=7 {
            assert_eq!(d.on_packet(t(2.0), LOCAL, &mut data(seg(k), 1000), &mut ctx), Verdict::Consume);
        }
        let (tcp, udp) = emitted(&mut ctx);
        assert!(tcp.is_empty());
        assert_eq!(udp, 2, "one request per missing segment");
        assert_eq!(d.stats().gaps, 1);
        // The replay of seg 2 arrives first: seg 1's request or replay was
        // lost, re-request it at once.
        assert_eq!(d.on_packet(t(3.0), LOCAL, &mut data(seg(2), 1000), &mut ctx), Verdict::Consume);
        assert_eq!(emitted(&mut ctx), (vec![], 1));
        assert_eq!(d.stats().order_rerequests, 1);
        assert_eq!(d.on_packet(t(4.0), LOCAL, &mut data(seg(1), 1000), &mut ctx), Verdict::Consume);
        let (tcp, _) = emitted(&mut ctx);
        assert_eq!(tcp, vec![seg(1), seg(2), seg(3), seg(4), seg(5)], "at most five, in order");
        assert_eq!(d.next_wakeup(), Some(t(4.0)), "the rest after the events already due");
        d.on_timer(t(4.0), &mut ctx);
        assert_eq!(emitted(&mut ctx).0, vec![seg(6), seg(7)]);
        // The copies come back through the half and pass; a second replay
        // of seg 1 (requested twice) is dropped.
        assert_eq!(d.on_packet(t(4.0), LOCAL, &mut data(seg(1), 1000), &mut ctx), Verdict::Pass);
        assert_eq!(d.on_packet(t(5.0), LOCAL, &mut data(seg(1), 1000), &mut ctx), Verdict::Drop(DropReason::Proxy));
        assert_eq!(d.on_packet(t(6.0), LOCAL, &mut data(seg(8), 1000), &mut ctx), Verdict::Pass);
    }

    #[test]
    fn timeouts_re_request_at_the_multipliers_then_give_up_and_back_off() {
        let cfg = DProxyStaConfig { initial_rtx_time: SimDur::from_millis(10), ..Default::default() };
        let mut d = half(cfg);
        let mut ctx = AgentCtx::default();
        d.on_packet(t(0.0), LOCAL, &mut synack(99), &mut ctx);
        d.on_packet(t(0.0), LOCAL, &mut data(100, 1000), &mut ctx);
        d.on_packet(t(0.0), LOCAL, &mut data(2100, 1000), &mut ctx); // 1100 missing
        assert_eq!(emitted(&mut ctx).1, 1);
        for due in [20.0, 30.0, 40.0] {
            assert_eq!(d.next_wakeup(), Some(t(due)));
            d.on_timer(t(due), &mut ctx);
            assert_eq!(emitted(&mut ctx).1, 1, "re-request at {due} ms");
        }
        assert_eq!(d.next_wakeup(), Some(t(50.0)), "given up one step later");
        d.on_timer(t(50.0), &mut ctx);
        assert_eq!(emitted(&mut ctx), (vec![2100], 0), "what was held goes to TCP");
        assert_eq!(d.stats().holes_timed_out, 1);
        assert_eq!(d.backoff, 1, "the mean doubles until a sample comes");
        assert_eq!(d.on_packet(t(60.0), LOCAL, &mut data(1100, 1000), &mut ctx), Verdict::Pass, "late: old data");
    }

    #[test]
    fn a_flow_over_its_buffer_share_stops_waiting_for_its_first_hole() {
        let cfg = DProxyStaConfig { buffer_packets: 3, ..Default::default() };
        let mut d = half(cfg);
        let mut ctx = AgentCtx::default();
        d.on_packet(t(0.0), LOCAL, &mut synack(0), &mut ctx);
        d.on_packet(t(0.0), LOCAL, &mut data(1, 100), &mut ctx);
        for k in 2..=4 {
            d.on_packet(t(1.0), LOCAL, &mut data(1 + 100 * k, 100), &mut ctx);
        }
        assert!(emitted(&mut ctx).0.is_empty(), "three held: at the share");
        d.on_packet(t(1.0), LOCAL, &mut data(501, 100), &mut ctx);
        assert_eq!(emitted(&mut ctx).0, vec![201, 301, 401, 501], "over it: released past the hole");
        assert_eq!(d.stats().holes_abandoned, 1);
    }
}
