//! The run loop: builds a scenario's components and drives them with one
//! event queue.
//!
//! Event order: (time, insertion sequence), enforced by `EventQueue`.
//! Invariants checked at the end of every run: the packet ledger balances
//! (generated = delivered + dropped by reason + held in a buffer), and
//! every TCP receiver delivered one in-order byte stream without gaps or
//! duplicates.
use crate::apps::Firing;
use crate::config::{Direction, Scenario, TrafficKind};
use crate::endpoints::{Endpoint, FlowKind, FlowRt};
use crate::ledger::Ledger;
use crate::link::LinkDir;
use crate::metrics::{self, FlowStats, RunResult};
use crate::topology::{addr_of, Hop, Topology};
use std::collections::HashMap;
use wifitcp_core::{DropReason, EventQueue, FlowId, RngStream, SimDur, SimTime};
use wifitcp_net::{Agent, AgentCtx, Arrival, TimerKey, TimerRegistry, Verdict};
use wifitcp_queue::{QdiscConfig, QueueDisc, Queued};
use wifitcp_wifi::channel::{Channel, Position, Preamble};
use wifitcp_wifi::mac::{Dcf, DcfParams, MacAddr};
use wifitcp_wifi::medium::{Bss, BssOutput, ChannelErrors, FixedPer, FrameErrorModel};
use wifitcp_wire::ip::{PROTO_TCP, PROTO_UDP};
use wifitcp_wire::wifi_frame::LLC_SNAP_LEN;
use wifitcp_wire::{Ipv4Header, Packet, Transport, UdpHeader};

/// Hasher of the demultiplexing table: its keys are (node, port) pairs
/// chosen by the simulator itself, so a multiplicative hash suffices (no
/// need for SipHash's flooding resistance on the per-packet path).
#[derive(Default, Clone, Copy)]
struct DemuxHash;
impl std::hash::BuildHasher for DemuxHash {
    type Hasher = MulHasher;
    fn build_hasher(&self) -> MulHasher {
        MulHasher(0)
    }
}
struct MulHasher(u64);
impl std::hash::Hasher for MulHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn write_u16(&mut self, x: u16) {
        self.write_u64(x as u64);
    }
}

/// An event of the run loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ev {
    BssWake,
    /// A transmission ends (`Bss` ids are u32, unique among the frames on
    /// the air).
    TxEnd {
        id: u32,
    },
    /// A component's wake-up from the timer registry (traffic sources,
    /// TCP connections, link directions, queue disciplines, agents); `gen`
    /// tells a current one from stale ones (see `wifitcp_net::timers`).
    Timer {
        key: u32,
        gen: u16,
    },
    Sample,
    /// A packet given to `World::inject` is due (the next of the ingress
    /// queue, which is in time order).
    Ingress,
}

/// An [`Ev`] as the queue stores it: one non-zero `u64` (kind in the low
/// byte, from 1; a u32 field in bits 8..40; a u16 or u8 field in bits
/// 40..56). A scalar moves through the queue and the run loop as one
/// register, and the queue's `(instant, event)` pairs as two: an enum with
/// a one-byte tag was copied through the stack in overlapping pieces whose
/// reloads missed store forwarding (about a tenth of R2's run time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct EvCode(std::num::NonZeroU64);

impl Ev {
    #[inline(always)]
    fn code(self) -> EvCode {
        let (kind, a, b): (u64, u32, u16) = match self {
            Ev::BssWake => (1, 0, 0),
            Ev::TxEnd { id } => (2, id, 0),
            Ev::Timer { key, gen } => (6, key, gen),
            Ev::Sample => (7, 0, 0),
            Ev::Ingress => (8, 0, 0),
        };
        EvCode(std::num::NonZeroU64::new(kind | (a as u64) << 8 | (b as u64) << 40).expect("kind is non-zero"))
    }
}

impl EvCode {
    #[inline(always)]
    fn ev(self) -> Ev {
        let v = self.0.get();
        let (a, b) = ((v >> 8) as u32, (v >> 40) as u16);
        match v & 0xff {
            1 => Ev::BssWake,
            2 => Ev::TxEnd { id: a },
            6 => Ev::Timer { key: a, gen: b },
            7 => Ev::Sample,
            _ => Ev::Ingress,
        }
    }
}

const _: () = assert!(std::mem::size_of::<Option<(SimTime, EvCode)>>() == 16);

/// A packet that reached an external node (see [`World::set_external`]).
#[derive(Debug, Clone)]
pub struct Egress {
    pub at: SimTime,
    pub node: usize,
    pub packet: Packet,
}

/// The component behind a timer key.
#[derive(Debug, Clone, Copy)]
enum TimerOwner {
    /// Flow `fi`'s source fires (a UDP datagram, or a TCP flow's start).
    Flow(usize),
    /// The next packet of link `link`'s direction `dir` (0: a to b)
    /// reaches the far end.
    Link { link: usize, dir: usize },
    /// TCP endpoint `ep`'s retransmission or delayed-ACK timer (armed
    /// lazily: see `TimerRegistry::arm_earliest`).
    Tcp(usize),
    /// The queue discipline of BSS member `sta`.
    Qdisc(usize),
    /// Agent `k` of node `node`.
    Agent { node: usize, k: usize },
}

pub struct World {
    q: EventQueue<EvCode>,
    topo: Topology,
    bss: Bss,
    /// Transmit queue discipline of each BSS member's WLAN interface.
    wq: Vec<Box<dyn QueueDisc>>,
    /// Every component wake-up other than the MAC's, and who owns each key.
    timers: TimerRegistry,
    timer_owner: Vec<TimerOwner>,
    /// Timer key of each BSS member's queue discipline.
    wq_timer: Vec<TimerKey>,
    /// Timer keys of each link's two directions.
    link_timer: Vec<[TimerKey; 2]>,
    /// Timer key of each flow's source.
    flow_timer: Vec<TimerKey>,
    /// Timer key of each TCP endpoint.
    ep_timer: Vec<TimerKey>,
    /// Agents of each node, in the order they see a packet, with their
    /// timer keys.
    agents: Vec<Vec<(Box<dyn Agent>, TimerKey)>>,
    agent_ctx: AgentCtx,
    /// Nodes whose packets leave the simulation: a packet addressed to one
    /// goes to `egress` instead of a simulated endpoint (the driver API).
    external: Vec<bool>,
    /// Per node: it has agents or is external (one test on the per-packet
    /// path instead of two).
    hooked: Vec<bool>,
    /// Packets injected by the driver, due in this order: (instant, node).
    ingress: std::collections::VecDeque<(SimTime, usize, Packet)>,
    /// Packets delivered to external nodes, not yet drained by the driver.
    egress: Vec<Egress>,
    /// Class of each BSS member as seen by the AP's queue discipline.
    ap_class: Vec<u32>,
    links: Vec<[LinkDir; 2]>,
    flows: Vec<FlowRt>,
    eps: Vec<Endpoint>,
    /// (node, local port) -> endpoint.
    demux: HashMap<(usize, u16), usize, DemuxHash>,
    /// Saturated UDP flows by sending BSS member, each with its first hop
    /// (the topology is static), and a round-robin cursor.
    saturated: Vec<(Vec<(usize, Hop)>, usize)>,
    ledger: Ledger,
    end: SimTime,
    warmup: SimTime,
    bin: SimDur,
    /// Outputs of the BSS not yet handled (see `drain_outputs`).
    out: Vec<BssOutput>,
    dropped: Vec<(Packet, DropReason)>,
}

impl World {
    pub fn build(s: &Scenario, seed: u64) -> Result<World, String> {
        let topo = Topology::build(s);
        let bss = build_bss(s, seed)?;
        let n = bss.len();
        let mut wq: Vec<Box<dyn QueueDisc>> = Vec::with_capacity(n);
        for i in 0..n {
            let (cfg, cap, path) = if topo.is_ap(i) {
                (
                    s.ap.qdisc.clone().unwrap_or(QdiscConfig::DropTail(Default::default())),
                    s.ap_queue_packets(),
                    "ap.qdisc",
                )
            } else {
                (
                    s.wlan.station_qdisc.clone().unwrap_or(QdiscConfig::DropTail(Default::default())),
                    s.mac.queue_packets,
                    "wlan.station_qdisc",
                )
            };
            let mut rng = RngStream::derive(seed, &format!("qdisc/{}", topo.nodes[i].name));
            wq.push(wifitcp_queue::build(&cfg, cap as usize, &mut rng).map_err(|e| format!("{path}.{e}"))?);
        }
        let mut timers = TimerRegistry::new();
        let mut timer_owner = Vec::new();
        let wq_timer = (0..n)
            .map(|i| {
                timer_owner.push(TimerOwner::Qdisc(i));
                timers.register()
            })
            .collect();
        let agents = crate::agents::build(s, &topo)?
            .into_iter()
            .enumerate()
            .map(|(node, list)| {
                list.into_iter()
                    .enumerate()
                    .map(|(k, a)| {
                        timer_owner.push(TimerOwner::Agent { node, k });
                        (a, timers.register())
                    })
                    .collect()
            })
            .collect();
        let link_timer = (0..s.links.len())
            .map(|link| {
                [0, 1].map(|dir| {
                    timer_owner.push(TimerOwner::Link { link, dir });
                    timers.register()
                })
            })
            .collect();
        let links = s
            .links
            .iter()
            .map(|l| {
                let mk = || {
                    LinkDir::new(l.rate_mbps * 1e6, SimDur::from_secs_f64(l.delay_ms / 1e3), l.queue_packets as usize)
                };
                [mk(), mk()]
            })
            .collect();
        let end = SimTime::from_secs_f64(s.scenario.duration_s);
        let mut w = World {
            q: EventQueue::with_capacity(64),
            topo,
            bss,
            timers,
            timer_owner,
            wq_timer,
            link_timer,
            flow_timer: Vec::new(),
            ep_timer: Vec::new(),
            agents,
            agent_ctx: AgentCtx::default(),
            external: Vec::new(),
            hooked: Vec::new(),
            ingress: Default::default(),
            egress: Vec::new(),
            wq,
            ap_class: s.ap_classes(),
            links,
            flows: Vec::new(),
            eps: Vec::new(),
            demux: HashMap::default(),
            saturated: vec![(Vec::new(), 0); n],
            ledger: Ledger::default(),
            end,
            warmup: SimTime::from_secs_f64(s.scenario.warmup_s),
            bin: SimDur::from_secs_f64(s.scenario.sample_interval_s),
            out: Vec::new(),
            dropped: Vec::new(),
        };
        w.external = vec![false; w.topo.nodes.len()];
        w.update_hooked();
        let airtime = w.wq.iter().any(|q| q.uses_airtime());
        w.bss.set_report_airtime(airtime);
        w.add_flows(s, seed)?;
        let mut out = Vec::new();
        w.bss.reschedule_all(&mut out);
        w.out = out;
        w.drain_outputs();
        w.q.push(SimTime::ZERO, Ev::Sample.code());
        if w.warmup > SimTime::ZERO {
            w.q.push(w.warmup, Ev::Sample.code());
        }
        Ok(w)
    }

    fn add_flows(&mut self, s: &Scenario, seed: u64) -> Result<(), String> {
        for (ti, tr) in s.traffic.iter().enumerate() {
            let path = format!("traffic[{ti}]");
            let list = tr.station_list(s.wlan.stations, &path)?;
            let peers = tr.peers(list.len(), &path)?;
            for (k, st) in list.into_iter().enumerate() {
                let peer = self.topo.nodes.iter().position(|x| x.name == peers[k]).expect("validated peer");
                let sta = st as usize + 1;
                let (src, dst) = match tr.direction {
                    Direction::Uplink => (sta, peer),
                    Direction::Downlink => (peer, sta),
                };
                let fi = self.flows.len();
                let name = format!("{}/{}", tr.name, self.topo.nodes[sta].name);
                let start = SimTime::from_secs_f64(tr.start_s + k as f64 * tr.start_stagger_s);
                let stop = tr.stop_s.map(SimTime::from_secs_f64).unwrap_or(self.end).min(self.end);
                let kind = match tr.kind {
                    TrafficKind::Udp => {
                        let source = crate::apps::build(tr, RngStream::derive(seed, &format!("traffic/{name}")));
                        if source.saturated() && src < self.bss.len() {
                            self.saturated[src].0.push((fi, self.topo.next_hop(src, dst)));
                        }
                        FlowKind::Udp { source, start, stop, src_port: 10_000 + fi as u16 }
                    }
                    TrafficKind::Tcp => {
                        let t = tr.tcp.clone().unwrap_or_default().over(&s.tcp);
                        let cfg = crate::tcpcfg::build(&t)?;
                        let (client, server) = (sta, peer);
                        let cport = 20_000 + fi as u16;
                        let sport = 5_000 + fi as u16;
                        let mut rng = RngStream::derive(seed, &format!("tcp/{name}"));
                        let ce = self.eps.len();
                        self.eps.push(Endpoint::client(
                            client,
                            server,
                            fi,
                            cfg.clone(),
                            crate::tcpcfg::controller(&t),
                            cport,
                            sport,
                            &mut rng,
                        ));
                        let se = self.eps.len();
                        self.eps.push(Endpoint::server(
                            server,
                            client,
                            fi,
                            cfg,
                            crate::tcpcfg::controller(&t),
                            sport,
                            &mut rng,
                        ));
                        self.demux.insert((client, cport), ce);
                        self.demux.insert((server, sport), se);
                        let (sender, receiver) = if tr.direction == Direction::Uplink { (ce, se) } else { (se, ce) };
                        FlowKind::Tcp { client: ce, sender, receiver, bytes: tr.bytes, start, stop, completed: None }
                    }
                };
                let kind_name = if tr.kind == TrafficKind::Udp { "udp" } else { "tcp" };
                self.flows.push(FlowRt {
                    src,
                    dst,
                    kind,
                    stats: FlowStats::new(
                        name,
                        kind_name,
                        self.topo.nodes[src].name.clone(),
                        self.topo.nodes[dst].name.clone(),
                    ),
                });
                let key = self.new_timer(TimerOwner::Flow(fi));
                self.flow_timer.push(key);
                self.arm(key, Some(start.min(self.end)));
            }
        }
        for ep in 0..self.eps.len() {
            let key = self.new_timer(TimerOwner::Tcp(ep));
            self.ep_timer.push(key);
        }
        Ok(())
    }

    /// Run to the end; returns the metrics.
    pub fn run(mut self, wall: std::time::Instant) -> Result<RunResult, String> {
        self.step_until(self.end);
        self.finish(wall)
    }

    /// Install `agent` at `node`, after the node's other agents (see
    /// `wifitcp_net::agent`). The index of nodes is the topology's: BSS
    /// members first (APs and stations), then wired nodes.
    pub fn add_agent(&mut self, node: usize, agent: Box<dyn Agent>) -> Result<(), String> {
        if node >= self.agents.len() {
            return Err(format!("no node {node} (the scenario has {})", self.agents.len()));
        }
        let k = self.agents[node].len();
        self.timer_owner.push(TimerOwner::Agent { node, k });
        let key = self.timers.register();
        self.agents[node].push((agent, key));
        self.update_hooked();
        let wake = self.agents[node][k].0.next_wakeup().map(|t| t.max(self.q.now()));
        if let Some((at, gen)) = self.timers.set(key, wake) {
            self.q.push(at, Ev::Timer { key: key.0, gen }.code());
        }
        Ok(())
    }

    // ------------------------------------------------------------------
    // Driver API: a virtual-clock driver (`run`) and a wall-clock one (the
    // emulator) both step the network with `step_until` and exchange
    // packets with the outside through external nodes.

    /// Mark `node` external: packets addressed to it leave the simulation
    /// through [`World::drain_egress`] (counted as delivered), and it
    /// sends through [`World::inject`].
    pub fn set_external(&mut self, node: usize) -> Result<(), String> {
        if node >= self.topo.nodes.len() {
            return Err(format!("no node {node} (the scenario has {})", self.topo.nodes.len()));
        }
        self.external[node] = true;
        self.update_hooked();
        Ok(())
    }

    /// Send `packet` from `node` at instant `at` (no earlier than the last
    /// instant stepped to, nor than an earlier injection). It is handled
    /// when a step reaches `at`, as a new packet of the ledger (its id is
    /// replaced).
    pub fn inject(&mut self, at: SimTime, node: usize, packet: Packet) -> Result<(), String> {
        if node >= self.topo.nodes.len() {
            return Err(format!("no node {node} (the scenario has {})", self.topo.nodes.len()));
        }
        let last = self.ingress.back().map_or(self.q.now(), |x| x.0.max(self.q.now()));
        if at < last {
            return Err(format!("inject at {at:?}: before {last:?}"));
        }
        self.ingress.push_back((at, node, packet));
        self.q.push(at, Ev::Ingress.code());
        Ok(())
    }

    /// The packets that reached external nodes since the last call, in the
    /// order they arrived.
    pub fn drain_egress(&mut self) -> Vec<Egress> {
        std::mem::take(&mut self.egress)
    }

    fn update_hooked(&mut self) {
        self.hooked = (0..self.topo.nodes.len()).map(|i| self.external[i] || !self.agents[i].is_empty()).collect();
    }

    /// The index of the node named `name`.
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.topo.nodes.iter().position(|n| n.name == name)
    }

    /// The run's end instant (`scenario.duration_s`).
    pub fn end(&self) -> SimTime {
        self.end
    }

    /// The instant of the last event handled (zero before the first).
    pub fn now(&self) -> SimTime {
        self.q.now()
    }

    /// The instant of the next event due at or before the run's end, if any.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        self.q.peek_time().filter(|&t| t <= self.end)
    }

    /// Handle every event due at or before `min(t, end)`, in (time,
    /// insertion) order. Stepping in pieces gives the same result as one
    /// step to the end: the event order does not depend on where a step
    /// stops.
    pub fn step_until(&mut self, t: SimTime) {
        let until = t.min(self.end);
        while let Some(at) = self.q.peek_time() {
            if at > until {
                break;
            }
            let (now, ev) = self.q.pop().expect("peeked");
            self.dispatch(now, ev.ev());
            self.drain_outputs();
        }
    }

    /// End the run at its end instant (events still queued after it are
    /// left undone), check its invariants and collect the metrics.
    pub fn finish(mut self, wall: std::time::Instant) -> Result<RunResult, String> {
        self.sample(self.end);
        for d in self.links.iter_mut().flatten() {
            d.account(self.end);
        }
        self.bss.ungroup_all();
        self.check_end()?;
        let queued: u64 = self.wq.iter().map(|q| q.len() as u64).sum();
        let held: Vec<_> = self
            .bss
            .packets_in_service()
            .map(|p| p.id)
            .chain(self.links.iter().flat_map(|l| l.iter().flat_map(|d| d.held().map(|p| p.id))))
            .collect();
        self.ledger.check(held.into_iter(), queued)?;
        let events = self.q.popped();
        Ok(metrics::collect(&metrics::RunView {
            bss: &self.bss,
            topo: &self.topo,
            flows: &self.flows,
            eps: &self.eps,
            wq: &self.wq,
            agents: &self.agents,
            links: &self.links,
            ledger: &self.ledger,
            end: self.end,
            warmup: self.warmup,
            bin: self.bin,
            events,
            wall_s: wall.elapsed().as_secs_f64(),
        }))
    }

    fn check_end(&self) -> Result<(), String> {
        for e in &self.eps {
            e.conn
                .check_stream_integrity()
                .map_err(|m| format!("TCP receiver of flow {}: {m}", self.flows[e.flow].stats.name))?;
        }
        Ok(())
    }

    fn dispatch(&mut self, now: SimTime, ev: Ev) {
        match ev {
            Ev::BssWake => self.bss.wake(now, &mut self.out),
            Ev::TxEnd { id } => self.bss.tx_end(now, id, &mut self.out),
            Ev::Timer { key, gen } => {
                let owner = self.timer_owner[key as usize];
                let due = match owner {
                    TimerOwner::Tcp(_) => self.timers.fire_at(TimerKey(key), now),
                    _ => self.timers.fire(TimerKey(key), gen, now),
                };
                if !due {
                    return; // stale: re-armed or cancelled since
                }
                match owner {
                    TimerOwner::Flow(fi) => self.source_fires(now, fi),
                    TimerOwner::Link { link, dir } => {
                        let (p, next) = self.links[link][dir].arrive(now);
                        self.arm(self.link_timer[link][dir], next);
                        let (a, b) = self.topo.link_ends[link];
                        self.receive(now, if dir == 0 { b } else { a }, p);
                    }
                    TimerOwner::Tcp(ep) => {
                        // Armed lazily: the connection runs at the earliest
                        // instant it ever asked for; if its deadline moved
                        // later meanwhile, it is re-armed without acting.
                        if self.eps[ep].conn.next_wakeup().is_some_and(|t| t <= now) {
                            self.eps[ep].conn.on_timer(now);
                        }
                        self.tcp_poll(now, ep);
                    }
                    TimerOwner::Qdisc(sta) => {
                        self.wq[sta].on_timer(now, &mut self.dropped);
                        self.flush_drops();
                        self.feed(now, sta);
                        self.qdisc_timer(sta);
                    }
                    TimerOwner::Agent { node, k } => {
                        self.agents[node][k].0.on_timer(now, &mut self.agent_ctx);
                        self.agent_done(now, node, k);
                    }
                }
            }
            Ev::Ingress => {
                let (_, node, mut p) = self.ingress.pop_front().expect("one ingress event per packet");
                p.id = self.ledger.generate();
                self.send_from(now, node, p);
            }
            Ev::Sample => {
                self.sample(now);
                let next = now + self.bin;
                if next < self.end {
                    self.q.push(next, Ev::Sample.code());
                }
            }
        }
    }

    /// Handle every output of the BSS, in emission order, including the
    /// outputs emitted while handling earlier ones. The `Bss` only appends
    /// to `out`, so one pass by index sees them all in that order (an
    /// output emitted while handling output k comes after every output
    /// emitted before it); the vector is cleared once at the end, so no
    /// output is moved.
    #[inline]
    fn drain_outputs(&mut self) {
        let mut i = 0;
        while i < self.out.len() {
            self.handle_output(i);
            i += 1;
        }
        self.out.clear();
    }

    /// Handle output `i` of `out` (its fields are copied out first: handling
    /// it may append to `out`).
    fn handle_output(&mut self, i: usize) {
        let now = self.q.now();
        match self.out[i] {
            BssOutput::Wake { at } => {
                self.q.push(at, Ev::BssWake.code());
            }
            BssOutput::TxEnd { id, at } => {
                self.q.push(at, Ev::TxEnd { id }.code());
            }
            BssOutput::Deliver { sta, from, id } => {
                // A UDP datagram for this node, which has no agents, is only
                // counted: read where its transmitter holds it; anything
                // else is copied and received (forwarded, or handed to TCP).
                let p = self.bss.delivered(from, id);
                if matches!(p.l4, Transport::Udp(_)) && self.topo.node_of(p.ip.dst) == Some(sta) && !self.hooked[sta] {
                    udp_arrived(&mut self.ledger, &mut self.flows, self.warmup, p, now);
                } else {
                    let msdu = p.clone();
                    self.receive(now, sta, msdu);
                }
            }
            BssOutput::Dropped { id, reason, .. } => self.ledger.drop(id, reason),
            BssOutput::DiscardedAfterReceipt { .. } => self.ledger.late_drops += 1,
            BssOutput::Ready { sta } => self.feed(now, sta),
            BssOutput::Airtime { sta, peer, airtime } => {
                // Airtime fairness at the AP (mac80211 style): charge the
                // station for frames sent to it and received from it.
                if self.topo.is_ap(sta) {
                    self.wq[sta].on_airtime(peer as u32, airtime);
                } else if self.topo.is_ap(peer) {
                    self.wq[peer].on_airtime(sta as u32, airtime);
                }
            }
        }
    }

    // ------------------------------------------------------------------
    // Network layer

    /// A packet arrived at `node`: deliver it or forward it.
    fn receive(&mut self, now: SimTime, node: usize, mut p: Packet) {
        let Some(dst) = self.topo.node_of(p.ip.dst) else {
            self.ledger.drop(p.id, DropReason::NoRoute);
            return;
        };
        if self.hooked[node] && !self.agents[node].is_empty() {
            match self.run_agents(now, node, dst == node, &mut p) {
                Verdict::Pass => {}
                Verdict::Consume => {
                    self.ledger.deliver(p.id);
                    return;
                }
                Verdict::Drop(r) => {
                    self.ledger.drop(p.id, r);
                    return;
                }
            }
        }
        if dst != node {
            self.send_from(now, node, p);
            return;
        }
        if self.hooked[node] && self.external[node] {
            self.ledger.deliver(p.id);
            self.egress.push(Egress { at: now, node, packet: p });
            return;
        }
        let fi = p.flow.idx();
        if fi >= self.flows.len() {
            // An injected packet of no simulated flow, for a simulated node.
            self.ledger.drop(p.id, DropReason::NoReceiver);
            return;
        }
        match &p.l4 {
            Transport::Udp(_) => udp_arrived(&mut self.ledger, &mut self.flows, self.warmup, &p, now),
            Transport::Tcp(h) => {
                let Some(&ep) = self.demux.get(&(node, h.dst_port)) else {
                    self.ledger.drop(p.id, DropReason::NoReceiver);
                    return;
                };
                self.ledger.deliver(p.id);
                if p.payload_len > 0 && self.flows[fi].is_receiver(ep) && now >= self.warmup {
                    self.flows[fi].stats.on_data_arrival(&p, now);
                }
                self.eps[ep].conn.on_segment(now, h, p.payload_len);
                self.tcp_poll(now, ep);
                self.check_completion(now, fi);
            }
        }
    }

    /// Send a packet from `node` towards its destination.
    fn send_from(&mut self, now: SimTime, node: usize, p: Packet) {
        let dst = self.topo.node_of(p.ip.dst).expect("routable");
        match self.topo.next_hop(node, dst) {
            Hop::Local => self.receive(now, node, p),
            Hop::Wlan { ra } => self.enqueue_wlan(now, node, p, ra),
            Hop::Link { link, dir } => match self.links[link][dir].offer(now, p) {
                Ok(Some(arrival)) => self.arm(self.link_timer[link][dir], Some(arrival)),
                Ok(None) => {}
                Err(p) => self.ledger.drop(p.id, DropReason::LinkQueueFull),
            },
            Hop::Unreachable => self.ledger.drop(p.id, DropReason::NoRoute),
        }
    }

    fn enqueue_wlan(&mut self, now: SimTime, sta: usize, p: Packet, ra: usize) {
        let class = if self.topo.is_ap(sta) { self.ap_class[ra] } else { 0 };
        self.wq[sta].enqueue(now, Queued::new(p, ra as u32, class), &mut self.dropped);
        self.flush_drops();
        self.feed(now, sta);
        self.qdisc_timer(sta);
    }

    #[inline]
    fn flush_drops(&mut self) {
        if self.dropped.is_empty() {
            return; // the common case, three times per forwarded packet
        }
        for (p, r) in self.dropped.drain(..) {
            self.ledger.drop(p.id, r);
        }
    }

    fn qdisc_timer(&mut self, sta: usize) {
        let key = self.wq_timer[sta];
        if let Some((at, gen)) = self.timers.set(key, self.wq[sta].next_wakeup()) {
            self.q.push(at, Ev::Timer { key: key.0, gen }.code());
        }
    }

    /// Show packet `p`, which arrived at `node`, to the node's agents in
    /// order, until one does not pass it.
    fn run_agents(&mut self, now: SimTime, node: usize, local: bool, p: &mut Packet) -> Verdict {
        let at = Arrival { node, local };
        for k in 0..self.agents[node].len() {
            let v = self.agents[node][k].0.on_packet(now, at, p, &mut self.agent_ctx);
            self.agent_done(now, node, k);
            if v != Verdict::Pass {
                return v;
            }
        }
        Verdict::Pass
    }

    /// A new key of the timer registry, owned by `owner`.
    fn new_timer(&mut self, owner: TimerOwner) -> TimerKey {
        self.timer_owner.push(owner);
        self.timers.register()
    }

    /// Arm `key` for `at` (exactly; `None` cancels).
    #[inline]
    fn arm(&mut self, key: TimerKey, at: Option<SimTime>) {
        if let Some((at, gen)) = self.timers.set(key, at) {
            self.q.push(at, Ev::Timer { key: key.0, gen }.code());
        }
    }

    /// After a call into agent `k` of `node`: send what it emitted (each a
    /// new packet in the ledger) and re-arm its timer.
    fn agent_done(&mut self, now: SimTime, node: usize, k: usize) {
        while self.agent_ctx.has_emitted() {
            let mut batch: Vec<Packet> = self.agent_ctx.take_emitted().collect();
            for p in batch.iter_mut() {
                p.id = self.ledger.generate();
            }
            for p in batch {
                self.send_from(now, node, p);
            }
        }
        let (agent, key) = &self.agents[node][k];
        if let Some((at, gen)) = self.timers.set(*key, agent.next_wakeup()) {
            self.q.push(at, Ev::Timer { key: key.0, gen }.code());
        }
    }

    /// The MAC of `sta` can take a frame: give it the next packet of its
    /// queue discipline, or a fresh packet from a saturated source.
    fn feed(&mut self, now: SimTime, sta: usize) {
        if !self.bss.macs[sta].is_ready() {
            return;
        }
        let item = self.wq[sta].dequeue(now, &mut self.dropped);
        self.flush_drops();
        if let Some(it) = item {
            self.bss.give_msdu(now, sta, it.pkt, it.dest as usize, &mut self.out);
            self.qdisc_timer(sta);
            return;
        }
        // (`ready_len` has no side effect: test the cheap condition first.)
        if self.saturated[sta].0.is_empty() || self.wq[sta].ready_len() > 0 {
            return;
        }
        // Round robin over the station's active saturated flows (no
        // allocation: this runs once per saturated packet).
        let flows = &self.flows;
        let (list, cursor) = &mut self.saturated[sta];
        let active = |&(fi, _): &(usize, Hop)| flows[fi].udp_active(now);
        let (fi, hop) = if let [only] = list[..] {
            // The usual single flow: the general case below with n_active = 1.
            if !active(&only) {
                return;
            }
            *cursor = 0;
            only
        } else {
            let n_active = list.iter().filter(|f| active(f)).count();
            if n_active == 0 {
                return;
            }
            *cursor = (*cursor + 1) % n_active;
            list.iter().copied().filter(|f| active(f)).nth(*cursor).expect("counted")
        };
        let FlowKind::Udp { source, .. } = &mut self.flows[fi].kind else { unreachable!("a saturated UDP flow") };
        let msdu_bytes = source.fire(now).msdu_bytes;
        let p = self.make_udp(now, fi, msdu_bytes);
        match hop {
            Hop::Wlan { ra } => self.bss.give_msdu(now, sta, p, ra, &mut self.out),
            _ => self.send_from(now, sta, p),
        }
    }

    // ------------------------------------------------------------------
    // Transport

    fn source_fires(&mut self, now: SimTime, fi: usize) {
        let src = self.flows[fi].src;
        match &mut self.flows[fi].kind {
            FlowKind::Udp { source, start, stop, .. } => {
                if now < *start || now >= *stop {
                    return;
                }
                if source.saturated() {
                    if src < self.bss.len() {
                        self.feed(now, src);
                    }
                    return;
                }
                let Firing { msdu_bytes, next } = source.fire(now);
                if next < *stop {
                    self.arm(self.flow_timer[fi], Some(next));
                }
                let p = self.make_udp(now, fi, msdu_bytes);
                self.send_from(now, src, p);
            }
            FlowKind::Tcp { client, sender, bytes, .. } => {
                let (client, sender, bytes) = (*client, *sender, *bytes);
                self.eps[client].open(now);
                match bytes {
                    Some(b) => self.eps[sender].conn.send(b),
                    None => self.eps[sender].conn.set_infinite_source(),
                }
                self.tcp_poll(now, client);
                if sender != client {
                    self.tcp_poll(now, sender);
                }
            }
        }
    }

    /// A datagram of flow `fi` carrying an MSDU of `msdu_bytes`.
    fn make_udp(&mut self, now: SimTime, fi: usize, msdu_bytes: u32) -> Packet {
        let id = self.ledger.generate();
        let f = &mut self.flows[fi];
        f.stats.generated += 1;
        let FlowKind::Udp { src_port, .. } = &f.kind else { unreachable!("UDP flow") };
        let ip = Ipv4Header::new(addr_of(f.src), addr_of(f.dst), PROTO_UDP);
        let payload = msdu_bytes - LLC_SNAP_LEN - 20 - 8;
        Packet::new_udp(id, FlowId(fi as u32), now, ip, UdpHeader { src_port: *src_port, dst_port: 9 }, payload)
    }

    /// Send everything endpoint `ep` has to send and re-arm its timer.
    fn tcp_poll(&mut self, now: SimTime, ep: usize) {
        while let Some(seg) = self.eps[ep].conn.poll_transmit(now) {
            let e = &self.eps[ep];
            let ip = Ipv4Header::new(addr_of(e.node), addr_of(e.remote), PROTO_TCP);
            let (node, fi) = (e.node, e.flow);
            let id = self.ledger.generate();
            if seg.payload_len > 0 {
                self.flows[fi].stats.generated += 1;
            }
            let p = Packet::new_tcp(id, FlowId(fi as u32), now, ip, seg.header, seg.payload_len);
            self.send_from(now, node, p);
        }
        let key = self.ep_timer[ep];
        if let Some((at, gen)) = self.timers.arm_earliest(key, self.eps[ep].conn.next_wakeup()) {
            self.q.push(at, Ev::Timer { key: key.0, gen }.code());
        }
    }

    fn check_completion(&mut self, now: SimTime, fi: usize) {
        if let FlowKind::Tcp { receiver, bytes: Some(b), completed, .. } = &mut self.flows[fi].kind {
            if completed.is_none() && self.eps[*receiver].conn.delivered_bytes() >= *b {
                *completed = Some(now);
            }
        }
    }

    fn sample(&mut self, now: SimTime) {
        for f in self.flows.iter_mut() {
            let cum = match &f.kind {
                FlowKind::Udp { .. } => f.stats.payload_bytes_total,
                FlowKind::Tcp { receiver, .. } => self.eps[*receiver].conn.delivered_bytes(),
            };
            f.stats.sample(now, cum, now <= self.warmup);
        }
    }
}

fn build_bss(s: &Scenario, seed: u64) -> Result<Bss, String> {
    let timing = s.timing()?;
    let n = s.wlan_members();
    let params = DcfParams {
        cw_min: s.mac.cw_min.unwrap_or(timing.cw_min_default),
        cw_max: s.mac.cw_max.unwrap_or(timing.cw_max_default),
        short_retry_limit: s.mac.short_retry_limit,
        long_retry_limit: s.mac.long_retry_limit,
        rts_threshold: s.mac.rts_threshold_bytes,
        busy_slot_counts: s.mac.backoff_rule == crate::config::BackoffRule::BusySlotCounts,
        eifs_after_timeout: s.mac.collision_restart == crate::config::CollisionRestart::Eifs,
        backoff_on_idle_access: s.mac.idle_access == crate::config::IdleAccess::Backoff,
        timing,
    };
    let macs = (0..n)
        .map(|i| {
            Dcf::new(MacAddr(i as u32), params.clone(), RngStream::derive(seed, &format!("mac/{}", s.member_name(i))))
        })
        .collect();
    let errors: Box<dyn FrameErrorModel> = match &s.channel {
        None => Box::new(FixedPer {
            uplink: vec![s.wlan.per_uplink; n],
            downlink: vec![s.wlan.per_downlink; n],
            is_ap: (0..n).map(|i| s.ap_of_members()[i] == i).collect(),
        }),
        Some(c) => {
            let model = c.build(&|name| s.member_id(name)).map_err(|e| e.to_string())?;
            let mut rng = RngStream::derive(seed, "channel/shadowing");
            let positions = station_positions(s);
            let preamble = match s.phy.preamble {
                wifitcp_wifi::phy::Preamble::Long => Preamble::Long,
                wifitcp_wifi::phy::Preamble::Short => Preamble::Short,
            };
            Box::new(ChannelErrors {
                channel: Channel::new(model, &mut rng),
                positions,
                tx_power_dbm: c.default_tx_power_dbm().unwrap_or(20.0),
                preamble,
            })
        }
    };
    let mut bss = Bss::new(macs, errors, RngStream::derive(seed, "medium/errors"));
    bss.set_control_rng(RngStream::derive(seed, "medium/control-errors"));
    bss.set_grouping(s.mac.group_bystanders);
    Ok(bss)
}

/// Positions of the BSS members: APs at `wlan.ap_positions` (default AP k
/// at (20 k, 0)); stations at `wlan.positions`, or evenly on a circle of
/// radius `wlan.distance_m` around their AP (1 m if neither is given).
fn station_positions(s: &Scenario) -> Vec<Position> {
    let n = s.wlan.stations as usize;
    let ap_pos = |k: usize| match &s.wlan.ap_positions {
        Some(p) => Position::new(p[k][0], p[k][1], 0.0),
        None => Position::new(20.0 * k as f64, 0.0, 0.0),
    };
    let ap_of = s.ap_of_members();
    let mut v = vec![Position::new(0.0, 0.0, 0.0); s.wlan_members()];
    for k in 0..s.wlan.aps as usize {
        v[s.ap_member(k)] = ap_pos(k);
    }
    for i in 1..=n {
        v[i] = match &s.wlan.positions {
            Some(p) => Position::new(p[i - 1][0], p[i - 1][1], 0.0),
            None => {
                let r = s.wlan.distance_m.unwrap_or(1.0);
                let a = 2.0 * std::f64::consts::PI * (i - 1) as f64 / n as f64;
                let c = v[ap_of[i]];
                Position::new(c.x + r * a.cos(), c.y + r * a.sin(), 0.0)
            }
        };
    }
    v
}

/// A UDP datagram reached its destination node: counted once (a
/// duplicate delivery is a defect upstream, which the ledger reports).
fn udp_arrived(ledger: &mut Ledger, flows: &mut [FlowRt], warmup: SimTime, p: &Packet, now: SimTime) {
    if ledger.deliver(p.id) {
        flows[p.flow.idx()].stats.on_delivered(p, now, now >= warmup);
    }
}

#[cfg(test)]
mod tests {
    use super::Ev;

    #[test]
    fn event_codes_round_trip() {
        let all = [
            Ev::BssWake,
            Ev::TxEnd { id: 0 },
            Ev::TxEnd { id: u32::MAX },
            Ev::Timer { key: 99_999, gen: u16::MAX },
            Ev::Timer { key: 0, gen: 0 },
            Ev::Sample,
            Ev::Ingress,
        ];
        for e in all {
            assert_eq!(e.code().ev(), e);
        }
    }
}
