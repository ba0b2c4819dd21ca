//! D-Proxy, the AP half (paper 003 section III-C): the proxy before the
//! lossy link. It caches a copy of every TCP data segment it forwards to a
//! station, frees the copies the station's cumulative ACKs cover, and
//! replays a cached segment when the station half
//! ([`crate::dproxy_sta`]) asks for it over UDP. It never delays, drops
//! or alters the flow's own packets.
//!
//! Request format: a UDP datagram from the station to the AP's port
//! `request_port` whose 16-byte payload names the flow (4-tuple, 12 bytes)
//! and the missing sequence number (4 bytes), one datagram per missing
//! segment (section III-C 3). The simulator keeps no payload bytes, so the
//! payload is carried by its length (for airtime) and its content in fields
//! the network leaves alone: the flow as the packet's flow id (the
//! simulator's name for the 4-tuple: the request belongs to the flow it
//! asks about), the sequence number's upper 16 bits in the IP
//! identification field, its lower 16 bits in the UDP source port. The AP
//! answers only with a segment of that flow from the requesting station's
//! flows, so two flows of one station whose sequence numbers meet never
//! get each other's segments. A flow the simulator did not create (the
//! emulator's real traffic, which all has one flow id) is found among the
//! station's flows by the cached sequence number alone.
//!
//! Left open by the paper, chosen here: the cache per flow holds
//! `cache_packets` segments (default 512, more than the AP's transmit
//! queue plus a wireless window, so a request normally finds its segment;
//! the oldest copy is evicted when full, counted in `cache_evictions`); a
//! copy is freed by the station's cumulative ACK.
use crate::config::site_keys;
use crate::dproxy_sta::DProxyStaConfig;
use crate::{seq_le, FlowKey, Sides};
use std::collections::{BTreeMap, VecDeque};
use wifitcp_core::config::ConfigError;
use wifitcp_core::SimTime;
use wifitcp_net::{Agent, AgentCtx, Arrival, Verdict};
use wifitcp_wire::{Ipv4Addr, Packet, TcpFlags, Transport};

/// Encode a request for `seq` (IP identification, UDP source port).
pub fn encode_request(seq: u32) -> (u16, u16) {
    ((seq >> 16) as u16, seq as u16)
}
/// Decode the sequence number of a request.
pub fn decode_request(ident: u16, src_port: u16) -> u32 {
    ((ident as u32) << 16) | src_port as u32
}
/// The flow id of packets of no simulated flow (the emulator's).
const NO_FLOW: wifitcp_core::FlowId = wifitcp_core::FlowId(u32::MAX);

/// Payload of one request: flow 4-tuple (12 bytes) and sequence number (4).
pub const REQUEST_PAYLOAD: u32 = 16;

wifitcp_core::config_table! {
    /// `kind = "dproxy"`: the defaults are [`DProxyApConfig::default`]'s
    /// and [`DProxyStaConfig::default`]'s.
    #[serde(deny_unknown_fields)]
    pub struct DproxyTable {
        use site_keys;
        /// Cached segments per flow at the AP.
        #[key(range = wifitcp_core::schema::PKTS, unit = "packets")]
        pub cache_packets: u32 = DProxyApConfig::default().cache_packets as u32,
        /// Station half's buffer, shared by its flows.
        #[key(range = wifitcp_core::schema::PKTS, unit = "packets")]
        pub buffer_packets: u32 = DProxyStaConfig::default().buffer_packets as u32,
        /// Re-request times in mean retransmission times; strictly increasing.
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::Ex(0.0), wifitcp_core::schema::B::In(1e3)))]
        pub rerequest_multipliers: Vec<f64> = DProxyStaConfig::default().rerequest_multipliers,
        /// Segments released before input is checked again.
        #[key(range = wifitcp_core::schema::PKTS, unit = "packets")]
        pub catchup_packets: u32 = DProxyStaConfig::default().catchup_packets as u32,
        /// Mean retransmission time before the first sample.
        #[key(range = wifitcp_core::schema::TIMER_MS, unit = "ms")]
        pub initial_rtx_time_ms: f64 = DProxyStaConfig::default().initial_rtx_time.as_secs_f64() * 1e3,
        /// UDP port of the AP half.
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::In(1.0), wifitcp_core::schema::B::In(65535.0)))]
        pub request_port: u16 = DProxyApConfig::default().request_port,
    }
}

impl crate::config::ProxyKind for DproxyTable {
    fn node(&self) -> Option<&str> {
        self.node.as_deref()
    }
    fn check(&self, _: &wifitcp_tcp::scenario::TcpSection) -> Result<(), ConfigError> {
        use crate::config::at_least_one;
        at_least_one("cache_packets", self.cache_packets.into())?;
        at_least_one("buffer_packets", self.buffer_packets.into())?;
        at_least_one("catchup_packets", self.catchup_packets.into())?;
        let m = &self.rerequest_multipliers;
        if m.is_empty() {
            return Err(ConfigError::new("rerequest_multipliers", "must list at least one multiplier"));
        }
        if m.windows(2).any(|w| w[0] >= w[1]) {
            return Err(ConfigError::new("rerequest_multipliers", format!("must be strictly increasing, got {m:?}")));
        }
        Ok(())
    }
    fn build(&self, site: &crate::config::Site) -> Option<crate::config::Installed> {
        use crate::dproxy_sta::DProxySta;
        let port = self.request_port;
        let c = DProxyApConfig { cache_packets: self.cache_packets as usize, request_port: port };
        let sc = DProxyStaConfig {
            buffer_packets: self.buffer_packets as usize,
            rerequest_multipliers: self.rerequest_multipliers.clone(),
            catchup_packets: self.catchup_packets as usize,
            initial_rtx_time: crate::config::ms(self.initial_rtx_time_ms),
            request_port: port,
        };
        let stations: Vec<Box<dyn Agent>> =
            site.stations.iter().map(|&a| Box::new(DProxySta::new(sc.clone(), a, site.ap)) as Box<dyn Agent>).collect();
        let sides = Sides::new(site.stations.to_vec());
        Some(crate::config::Installed { ap: Box::new(DProxyAp::new(c, site.ap, sides)), stations })
    }
}

#[derive(Clone, Debug)]
pub struct DProxyApConfig {
    pub cache_packets: usize,
    pub request_port: u16,
}

impl Default for DProxyApConfig {
    fn default() -> Self {
        DProxyApConfig { cache_packets: 512, request_port: 7070 }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DProxyApStats {
    pub segments_cached: u64,
    pub cache_evictions: u64,
    pub requests_received: u64,
    pub replays: u64,
    pub request_misses: u64,
    pub max_cache_occupancy: u64,
}

struct Cached {
    seq: u32,
    end: u32,
    pkt: Packet,
}

pub struct DProxyAp {
    cfg: DProxyApConfig,
    addr: Ipv4Addr,
    sides: Sides,
    flows: BTreeMap<FlowKey, VecDeque<Cached>>,
    stats: DProxyApStats,
}

impl DProxyAp {
    /// The AP half at the node of address `addr`.
    pub fn new(cfg: DProxyApConfig, addr: Ipv4Addr, sides: Sides) -> Self {
        DProxyAp { cfg, addr, sides, flows: BTreeMap::new(), stats: DProxyApStats::default() }
    }
    pub fn stats(&self) -> &DProxyApStats {
        &self.stats
    }

    fn cache(&mut self, p: &Packet) {
        let h = p.tcp().expect("tcp");
        let q = self.flows.entry(FlowKey::downstream(p, h)).or_default();
        let end = h.seq.wrapping_add(p.payload_len + h.flags.has(TcpFlags::FIN) as u32);
        if let Some(c) = q.iter_mut().find(|c| c.seq == h.seq) {
            c.pkt = p.clone(); // a sender retransmission: keep the newest copy
            return;
        }
        if q.len() >= self.cfg.cache_packets {
            q.pop_front();
            self.stats.cache_evictions += 1;
        }
        q.push_back(Cached { seq: h.seq, end, pkt: p.clone() });
        self.stats.segments_cached += 1;
        self.stats.max_cache_occupancy = self.stats.max_cache_occupancy.max(q.len() as u64);
    }

    fn on_request(&mut self, p: &Packet, ctx: &mut AgentCtx) {
        let Transport::Udp(u) = &p.l4 else { return };
        self.stats.requests_received += 1;
        let seq = decode_request(p.ip.ident, u.src_port);
        let any_flow = p.flow == NO_FLOW;
        let hit = self
            .flows
            .iter()
            .filter(|(k, _)| k.wireless.0 == p.ip.src)
            .find_map(|(_, q)| q.iter().find(|c| c.seq == seq && (any_flow || c.pkt.flow == p.flow)));
        match hit {
            Some(c) => {
                ctx.emit_copy(c.pkt.clone());
                self.stats.replays += 1;
            }
            None => self.stats.request_misses += 1,
        }
    }
}

impl Agent for DProxyAp {
    fn kind(&self) -> &'static str {
        "dproxy"
    }

    fn on_packet(&mut self, _now: SimTime, at: Arrival, pkt: &mut Packet, ctx: &mut AgentCtx) -> Verdict {
        match &pkt.l4 {
            Transport::Udp(u) => {
                if at.local && pkt.ip.dst == self.addr && u.dst_port == self.cfg.request_port {
                    self.on_request(pkt, ctx);
                    return Verdict::Consume;
                }
            }
            Transport::Tcp(h) => {
                if at.local || h.flags.has(TcpFlags::SYN) {
                    return Verdict::Pass;
                }
                if self.sides.is_downstream(pkt) && (pkt.payload_len > 0 || h.flags.has(TcpFlags::FIN)) {
                    self.cache(pkt);
                } else if self.sides.is_upstream(pkt) && h.flags.has(TcpFlags::ACK) {
                    if let Some(q) = self.flows.get_mut(&FlowKey::upstream(pkt, h)) {
                        while q.front().is_some_and(|c| seq_le(c.end, h.ack)) {
                            q.pop_front();
                        }
                    }
                }
            }
        }
        Verdict::Pass
    }

    fn report(&self) -> Option<(&'static str, serde_json::Value)> {
        let s = &self.stats;
        Some((
            "proxy",
            serde_json::json!({
                "kind": "dproxy",
                "segments_cached": s.segments_cached,
                "cache_evictions": s.cache_evictions,
                "requests_received": s.requests_received,
                "replays": s.replays,
                "request_misses": s.request_misses,
                "max_cache_occupancy": s.max_cache_occupancy,
                "cache_occupancy_end": self.flows.values().map(|q| q.len()).sum::<usize>(),
            }),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::*;
    use wifitcp_wire::{Ipv4Header, UdpHeader};

    fn request(seq: u32) -> Packet {
        request_of(wifitcp_core::FlowId(0), seq)
    }

    fn request_of(flow: wifitcp_core::FlowId, seq: u32) -> Packet {
        let (ident, sport) = encode_request(seq);
        let mut ip = Ipv4Header::new(STA, AP, wifitcp_wire::ip::PROTO_UDP);
        ip.ident = ident;
        let u = UdpHeader { src_port: sport, dst_port: 7070 };
        Packet::new_udp(wifitcp_core::PacketId(0), flow, SimTime::ZERO, ip, u, REQUEST_PAYLOAD)
    }

    #[test]
    fn a_request_is_answered_with_its_own_flows_segment_only() {
        use wifitcp_core::FlowId;
        let mut a = DProxyAp::new(Default::default(), AP, sides());
        let mut ctx = AgentCtx::default();
        // Two flows of one station (other station ports), the same
        // sequence numbers cached for both.
        for (flow, port) in [(0u32, 20000u16), (1, 20001)] {
            let mut p = data(1001, 100);
            p.flow = FlowId(flow);
            if let Transport::Tcp(h) = &mut p.l4 {
                h.dst_port = port;
            }
            a.on_packet(t(0.0), FWD, &mut p, &mut ctx);
        }
        a.on_packet(t(1.0), LOCAL, &mut request_of(FlowId(1), 1001), &mut ctx);
        let got: Vec<(u32, u16)> = ctx
            .take_emitted()
            .map(|p| {
                (
                    p.flow.0,
                    match &p.l4 {
                        Transport::Tcp(h) => h.dst_port,
                        _ => 0,
                    },
                )
            })
            .collect();
        assert_eq!(got, vec![(1, 20001)], "flow 1's segment, not flow 0's");
        a.on_packet(t(1.0), LOCAL, &mut request_of(FlowId(2), 1001), &mut ctx);
        assert_eq!(a.stats().request_misses, 1, "no segment of flow 2");
        assert_eq!(ctx.take_emitted().count(), 0);
        // A request of no simulated flow: found by sequence number.
        a.on_packet(t(1.0), LOCAL, &mut request_of(NO_FLOW, 1001), &mut ctx);
        assert_eq!(ctx.take_emitted().count(), 1);
    }

    #[test]
    fn requests_round_trip_through_the_headers() {
        for seq in [0, 1, 65_535, 65_536, 0xdead_beef, u32::MAX] {
            let (i, p) = encode_request(seq);
            assert_eq!(decode_request(i, p), seq);
        }
    }

    #[test]
    fn replays_cached_segments_frees_acknowledged_ones_and_bounds_the_cache() {
        let cfg = DProxyApConfig { cache_packets: 3, ..Default::default() };
        let mut a = DProxyAp::new(cfg, AP, sides());
        let mut ctx = AgentCtx::default();
        for k in 0..4u32 {
            assert_eq!(a.on_packet(t(0.0), FWD, &mut data(1 + 100 * k, 100), &mut ctx), Verdict::Pass);
        }
        assert_eq!(a.stats().cache_evictions, 1, "the oldest copy goes when full");
        assert_eq!(a.on_packet(t(1.0), LOCAL, &mut request(201), &mut ctx), Verdict::Consume);
        assert_eq!(emitted(&mut ctx).0, vec![201]);
        a.on_packet(t(1.0), LOCAL, &mut request(1), &mut ctx);
        assert_eq!(a.stats().request_misses, 1, "evicted");
        a.on_packet(t(2.0), FWD, &mut ack(301), &mut ctx);
        a.on_packet(t(3.0), LOCAL, &mut request(201), &mut ctx);
        assert_eq!(a.stats().request_misses, 2, "freed by the ACK");
        assert!(emitted(&mut ctx).0.is_empty());
        assert_eq!(a.stats().replays, 1);
    }
}
