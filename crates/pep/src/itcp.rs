//! Split TCP (I-TCP: Bakre & Badrinath, ICDCS 1995; RFC 3135 section 2.2.1
//! "split connections"; paper 003 section III-A): the AP terminates each TCP
//! connection between a station and the wired side and runs two
//! connections of its own, one to the station (impersonating the wired
//! host: its address and port) and one to the wired host (impersonating the
//! station), relaying the bytes between them.
//!
//! * Interception: the station's SYN towards the wired side creates the
//!   split. The station-side connection is a passive open fed that SYN; the
//!   wired-side connection is an active open to the same wired host and
//!   port from the station's address and port. From then on every packet of
//!   the flow, in either direction, is consumed by the AP (counted delivered
//!   at the AP in the ledger) and fed to the matching connection; each
//!   connection's own segments are new packets. A relayed byte is thus
//!   carried by one packet on each side and counted once end to end by the
//!   flow's statistics, which are the receiver's.
//! * Relay and back-pressure: the wired side does not consume data on
//!   arrival (`auto_consume` off); the AP reads from it only as much as the
//!   relay buffer has room for, the relay buffer being the bytes written to
//!   the station-side connection and not yet acknowledged by the station
//!   (at most `relay_buffer_bytes`). Until the AP reads, the bytes sit in
//!   the wired connection's receive buffer and its advertised window
//!   shrinks, which slows the wired sender. The same holds upstream.
//! * Teardown: a FIN received on one side, once every byte before it is
//!   relayed, closes the other side.
//! * The two connections take their configuration (congestion controller,
//!   options) from `[tcp]` overridden by `ap.proxy.wired_tcp` and
//!   `ap.proxy.wireless_tcp`, so they may differ.
//!
//! End-to-end semantics are broken, as RFC 3135 section 4.1 warns: the
//! wired sender sees data acknowledged once the AP has it.
use crate::config::site_keys;
use crate::{FlowKey, Sides};
use std::collections::BTreeMap;
use wifitcp_core::config::ConfigError;
use wifitcp_core::{FlowId, PacketId, RngStream, SimTime};
use wifitcp_net::{Agent, AgentCtx, Arrival, Verdict};
use wifitcp_tcp::scenario::TcpSection;
use wifitcp_tcp::{random_isn, CongestionControl, Connection, TcpConfig};
use wifitcp_wire::ip::PROTO_TCP;
use wifitcp_wire::{Ipv4Header, Packet, TcpFlags};

/// Builds one side's connection configuration and controller.
pub type SideFactory = Box<dyn Fn() -> (TcpConfig, Box<dyn CongestionControl>) + Send>;

wifitcp_core::config_table! {
    /// `kind = "itcp"`: the defaults are [`ItcpConfig::default`]'s.
    #[serde(deny_unknown_fields)]
    pub struct ItcpTable {
        use site_keys;
        /// Bytes relayed and not yet acknowledged by the receiving side.
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::In(1.0), wifitcp_core::schema::B::In(1e9)), unit = "bytes")]
        pub relay_buffer_bytes: u64 = ItcpConfig::default().relay_buffer_bytes,
        /// The AP-to-wired-host connection (a tcp table over [tcp]).
        #[key(default = "[tcp]")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub wired_tcp: Option<TcpSection> = None,
        /// The AP-to-station connection (a tcp table over [tcp]).
        #[key(default = "[tcp]")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub wireless_tcp: Option<TcpSection> = None,
    }
}

impl crate::config::ProxyKind for ItcpTable {
    fn node(&self) -> Option<&str> {
        self.node.as_deref()
    }
    /// The relay buffer, and each side's TCP table over `[tcp]`.
    fn check(&self, tcp: &TcpSection) -> Result<(), ConfigError> {
        crate::config::at_least_one("relay_buffer_bytes", self.relay_buffer_bytes)?;
        for (name, t) in [("wired_tcp", &self.wired_tcp), ("wireless_tcp", &self.wireless_tcp)] {
            if let Some(t) = t {
                wifitcp_tcp::scenario::build(&t.clone().over(tcp)).map_err(|e| e.under(name))?;
            }
        }
        Ok(())
    }
    fn build(&self, site: &crate::config::Site) -> Option<crate::config::Installed> {
        let c = ItcpConfig { relay_buffer_bytes: self.relay_buffer_bytes };
        let side = |o: &Option<TcpSection>| -> SideFactory {
            let t = o.clone().unwrap_or_default().over(site.tcp);
            Box::new(move || {
                (
                    wifitcp_tcp::scenario::build(&t).expect("checked by ProxyConfig::validate"),
                    wifitcp_tcp::scenario::controller(&t),
                )
            })
        };
        let sides = Sides::new(site.stations.to_vec());
        let agent = Itcp::new(c, sides, side(&self.wired_tcp), side(&self.wireless_tcp), site.rng.clone());
        Some(crate::config::Installed { ap: Box::new(agent), stations: Vec::new() })
    }
}

pub struct ItcpConfig {
    /// Bytes relayed and not yet acknowledged by the receiving side.
    pub relay_buffer_bytes: u64,
}

impl Default for ItcpConfig {
    fn default() -> Self {
        ItcpConfig { relay_buffer_bytes: 262_144 }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ItcpStats {
    pub splits: u64,
    pub bytes_relayed_down: u64,
    pub bytes_relayed_up: u64,
    pub max_relay_occupancy: u64,
    pub packets_consumed: u64,
}

struct Split {
    flow: FlowId,
    key: FlowKey,
    /// AP <-> station (the AP plays the wired host).
    st: Connection,
    /// AP <-> wired host (the AP plays the station).
    wd: Connection,
    st_closed: bool,
    wd_closed: bool,
}

pub struct Itcp {
    cfg: ItcpConfig,
    sides: Sides,
    wired: SideFactory,
    wireless: SideFactory,
    rng: RngStream,
    splits: BTreeMap<FlowKey, Split>,
    stats: ItcpStats,
}

impl Itcp {
    /// `rng` gives the ISNs of the AP's connections.
    pub fn new(cfg: ItcpConfig, sides: Sides, wired: SideFactory, wireless: SideFactory, rng: RngStream) -> Self {
        Itcp { cfg, sides, wired, wireless, rng, splits: BTreeMap::new(), stats: ItcpStats::default() }
    }
    pub fn stats(&self) -> &ItcpStats {
        &self.stats
    }

    fn open(&mut self, now: SimTime, p: &Packet) {
        let h = p.tcp().expect("tcp");
        let key = FlowKey::upstream(p, h);
        let (mut wcfg, wcc) = (self.wired)();
        wcfg.auto_consume = false;
        let (mut scfg, scc) = (self.wireless)();
        scfg.auto_consume = false;
        let st = Connection::listen(scfg, scc, key.wired.1, random_isn(&mut self.rng));
        let wd = Connection::connect(now, wcfg, wcc, key.wireless.1, key.wired.1, random_isn(&mut self.rng));
        self.splits.insert(key, Split { flow: p.flow, key, st, wd, st_closed: false, wd_closed: false });
        self.stats.splits += 1;
    }

    /// Relay what can be relayed in both directions, then send what both
    /// connections have to send.
    fn pump(&mut self, now: SimTime, key: FlowKey, ctx: &mut AgentCtx) {
        let cap = self.cfg.relay_buffer_bytes;
        let s = self.splits.get_mut(&key).expect("split");
        let room = |c: &Connection| cap.saturating_sub(c.unacked_app_bytes());
        let n = s.wd.read(now, room(&s.st));
        if n > 0 {
            s.st.send(n);
            self.stats.bytes_relayed_down += n;
        }
        let n = s.st.read(now, room(&s.wd));
        if n > 0 {
            s.wd.send(n);
            self.stats.bytes_relayed_up += n;
        }
        let occ = s.st.unacked_app_bytes().max(s.wd.unacked_app_bytes());
        self.stats.max_relay_occupancy = self.stats.max_relay_occupancy.max(occ);
        if s.wd.peer_closed() && s.wd.unread_bytes() == 0 && !s.st_closed {
            s.st.close(now);
            s.st_closed = true;
        }
        if s.st.peer_closed() && s.st.unread_bytes() == 0 && !s.wd_closed {
            s.wd.close(now);
            s.wd_closed = true;
        }
        let (wired, wireless) = (s.key.wired.0, s.key.wireless.0);
        while let Some(seg) = s.st.poll_transmit(now) {
            let mut ip = Ipv4Header::new(wired, wireless, PROTO_TCP);
            ip.set_ecn(seg.ecn);
            ctx.emit(Packet::new_tcp(PacketId(0), s.flow, now, ip, seg.header, seg.payload_len));
        }
        while let Some(seg) = s.wd.poll_transmit(now) {
            let mut ip = Ipv4Header::new(wireless, wired, PROTO_TCP);
            ip.set_ecn(seg.ecn);
            ctx.emit(Packet::new_tcp(PacketId(0), s.flow, now, ip, seg.header, seg.payload_len));
        }
    }
}

impl Agent for Itcp {
    fn kind(&self) -> &'static str {
        "itcp"
    }

    fn on_packet(&mut self, now: SimTime, at: Arrival, pkt: &mut Packet, ctx: &mut AgentCtx) -> Verdict {
        let Some(h) = pkt.tcp() else { return Verdict::Pass };
        if at.local {
            return Verdict::Pass;
        }
        let (key, from_station) = if self.sides.is_upstream(pkt) {
            (FlowKey::upstream(pkt, h), true)
        } else if self.sides.is_downstream(pkt) {
            (FlowKey::downstream(pkt, h), false)
        } else {
            return Verdict::Pass;
        };
        if !self.splits.contains_key(&key) {
            let syn = h.flags.has(TcpFlags::SYN) && !h.flags.has(TcpFlags::ACK);
            if !(from_station && syn) {
                return Verdict::Pass; // a connection opened before the proxy saw it
            }
            self.open(now, pkt);
        }
        let h = pkt.tcp().expect("tcp").clone();
        let s = self.splits.get_mut(&key).expect("split");
        if from_station {
            s.st.on_segment_ecn(now, &h, pkt.payload_len, pkt.ip.ecn_codepoint());
        } else {
            s.wd.on_segment_ecn(now, &h, pkt.payload_len, pkt.ip.ecn_codepoint());
        }
        self.stats.packets_consumed += 1;
        self.pump(now, key, ctx);
        Verdict::Consume
    }

    fn on_timer(&mut self, now: SimTime, ctx: &mut AgentCtx) {
        let keys: Vec<FlowKey> = self.splits.keys().copied().collect();
        for key in keys {
            let s = self.splits.get_mut(&key).expect("split");
            if s.st.next_wakeup().is_some_and(|t| t <= now) {
                s.st.on_timer(now);
            }
            if s.wd.next_wakeup().is_some_and(|t| t <= now) {
                s.wd.on_timer(now);
            }
            self.pump(now, key, ctx);
        }
    }

    fn next_wakeup(&self) -> Option<SimTime> {
        self.splits.values().flat_map(|s| [s.st.next_wakeup(), s.wd.next_wakeup()]).flatten().min()
    }

    fn report(&self) -> Option<(&'static str, serde_json::Value)> {
        let s = &self.stats;
        let side = |c: &Connection| {
            let t = c.stats();
            serde_json::json!({
                "cc": c.cc_name(),
                "segments_retransmitted": t.segments_retransmitted,
                "fast_retransmits": t.fast_retransmits,
                "timeouts": t.timeouts,
            })
        };
        let splits: Vec<serde_json::Value> = self
            .splits
            .values()
            .map(|x| serde_json::json!({"station_side": side(&x.st), "wired_side": side(&x.wd)}))
            .collect();
        Some((
            "proxy",
            serde_json::json!({
                "kind": "itcp",
                "splits": s.splits,
                "bytes_relayed_down": s.bytes_relayed_down,
                "bytes_relayed_up": s.bytes_relayed_up,
                "max_relay_occupancy": s.max_relay_occupancy,
                "packets_consumed": s.packets_consumed,
                "connections": splits,
            }),
        ))
    }
}
