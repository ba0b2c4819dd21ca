//! Nodes: the network layer of every node and what hangs off it.
//!
//! [`Nodes`] holds the topology (interfaces, addresses, the static
//! routing table, the port tables by which local delivery finds a TCP
//! endpoint or a UDP socket), the wired links and their timers, the agents
//! of every node, the external nodes with the driver's ingress and egress
//! queues, the pcap capture of the links, and the roaming state
//! (`roam.rs`: a hand-off changes a station's association, and the home
//! agent acts on the packet path).
//!
//! A packet's path through a node: `receive` (the home agent's tunnel end,
//! the node's agents), then forwarding or local delivery (`arrived`);
//! `send_from` picks the next hop (the home agent's tunnel start, then the
//! WLAN, a wired link or the node itself, `forward`). Local delivery hands
//! a datagram or a segment to the flows (`Flows::datagram`,
//! `Flows::segment`), or a packet for an external node to the egress
//! queue. The WLAN hop hands the packet to the cells (`Cells::enqueue`).
//!
//! Invariants: `hooked[i]` is whether node `i` has agents or is external;
//! `plain[i]` is whether it has neither nor any UDP socket (a datagram for
//! it is only counted, which the cells' delivery does without calling
//! `receive`); every packet that enters `receive` or `send_from` is
//! forwarded, delivered (ledger), handed to the egress queue (delivered)
//! or dropped with a typed reason.
use super::cells::Cells;
use super::events::{Ev, TimerOwner};
use super::flows::Flows;
use super::kernel::Kernel;
use super::roam::{Roaming, Step};
use super::shape::{General, Shape};
use crate::apps::echo::UdpSocket;
use crate::capture::Capture;
use crate::link::{InPipe, LinkDir};
use crate::topology::{addr_of, Hop, Topology, DETACHED};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use wifitcp_core::{DropReason, SimTime};
use wifitcp_net::{Agent, AgentCtx, Arrival, TimerKey, Verdict};
use wifitcp_queue::Queued;
use wifitcp_wire::{Packet, Transport};

/// A packet that reached an external node (see `World::set_external`).
#[derive(Debug, Clone)]
pub struct Egress {
    pub at: SimTime,
    pub node: usize,
    pub packet: Packet,
}

pub(super) struct Nodes {
    /// The topology, shared read-only by the partitions of a partitioned
    /// run (`part.rs`); changed only while it is not shared (ports bound
    /// at build, roaming's re-association, which is never partitioned).
    topo: Arc<Topology>,
    links: Vec<[LinkDir; 2]>,
    /// Each link's two directions: their timer keys, and in a group of a
    /// windowed run (`window.rs`) whether their far end is another group's
    /// (its packets are shipped at the barriers, `ship`; no arrival is
    /// scheduled here).
    dirs: Vec<[DirKeys; 2]>,
    /// Agents of each node, in the order they see a packet, with their
    /// timer keys.
    agents: Agents,
    agent_ctx: AgentCtx,
    /// Nodes whose packets leave the simulation: a packet addressed to one
    /// goes to `egress` instead of a simulated endpoint (the driver API).
    /// (This and the two below are shared with a run's partitions, which
    /// only read them: one table per run, not one per partition.)
    external: Arc<Vec<bool>>,
    /// Per node: it has agents or is external (one test on the per-packet
    /// path instead of two).
    hooked: Arc<Vec<bool>>,
    /// Per node: not hooked and no UDP socket bound.
    plain: Arc<Vec<bool>>,
    /// Packets injected by the driver, due in this order: (instant, node).
    ingress: VecDeque<(SimTime, usize, Packet)>,
    /// Packets delivered to external nodes, not yet drained by the driver.
    egress: Vec<Egress>,
    /// Packet capture (`World::capture_to`), off by default.
    capture: Option<Capture>,
    /// Stations handing over between APs (`[wlan.roaming]`).
    roam: Option<Box<Roaming>>,
}

/// A link direction's timer key (its arrivals) and whether it leads to
/// another group of a windowed run.
#[derive(Clone, Copy)]
struct DirKeys {
    timer: TimerKey,
    out: bool,
}

/// The agents of the nodes that have any, each node's in the order they
/// see a packet, with their timer keys (a map, not a list per node: in a
/// campus of thousands of stations none has one).
#[derive(Default)]
pub(crate) struct Agents(BTreeMap<usize, NodeAgents>);

/// One node's agents, in the order they see a packet, with their timer
/// keys.
type NodeAgents = Vec<(Box<dyn Agent>, TimerKey)>;

impl Agents {
    fn new(per_node: Vec<NodeAgents>) -> Agents {
        Agents(per_node.into_iter().enumerate().filter(|(_, a)| !a.is_empty()).collect())
    }
    /// Node `node`'s agents (none if it has none).
    pub(crate) fn at(&self, node: usize) -> &[(Box<dyn Agent>, TimerKey)] {
        self.0.get(&node).map_or(&[], |a| a.as_slice())
    }
    fn at_mut(&mut self, node: usize) -> &mut NodeAgents {
        self.0.entry(node).or_default()
    }
    /// Whether no node has an agent.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.values().all(|a| a.is_empty())
    }
}

impl Nodes {
    pub(super) fn new(
        topo: Topology,
        agents: Vec<Vec<(Box<dyn Agent>, TimerKey)>>,
        links: Vec<[LinkDir; 2]>,
        link_timer: Vec<[TimerKey; 2]>,
    ) -> Nodes {
        let n = topo.nodes.len();
        let mut nodes = Nodes {
            topo: Arc::new(topo),
            links,
            dirs: link_timer.into_iter().map(|t| t.map(|timer| DirKeys { timer, out: false })).collect(),
            agents: Agents::new(agents),
            agent_ctx: AgentCtx::default(),
            external: Arc::new(vec![false; n]),
            hooked: Arc::default(),
            plain: Arc::default(),
            ingress: VecDeque::new(),
            egress: Vec::new(),
            capture: None,
            roam: None,
        };
        nodes.update_hooked();
        nodes
    }

    #[inline(always)]
    pub(super) fn topo(&self) -> &Topology {
        &self.topo
    }

    /// The topology, to change (never while a partitioned run shares it).
    fn topo_mut(&mut self) -> &mut Topology {
        Arc::get_mut(&mut self.topo)
            .expect("the topology is shared only by the partitions of a run, which bind no port and never roam")
    }

    fn update_hooked(&mut self) {
        let n = self.topo.nodes.len();
        self.hooked = Arc::new((0..n).map(|i| self.external[i] || !self.agents.at(i).is_empty()).collect());
        self.plain = Arc::new((0..n).map(|i| !self.hooked[i] && !self.topo.nodes[i].has_udp()).collect());
    }

    /// Bind TCP endpoint `ep` to `port` of `node`.
    pub(super) fn bind_tcp(&mut self, node: usize, port: u16, ep: usize) {
        self.topo_mut().nodes[node].bind_tcp(port, ep);
    }

    /// Bind `socket` to UDP `port` of `node`.
    pub(super) fn bind_udp(&mut self, node: usize, port: u16, socket: UdpSocket) {
        self.topo_mut().nodes[node].bind_udp(port, socket);
        Arc::make_mut(&mut self.plain)[node] = false;
    }

    pub(super) fn set_roaming(&mut self, r: Box<Roaming>) {
        self.roam = Some(r);
    }

    /// Whether stations hand over between APs.
    #[inline(always)]
    pub(super) fn roaming(&self) -> bool {
        self.roam.is_some()
    }

    /// Whether the datagram `p`, which the WLAN delivered to `sta`, is
    /// only counted at its arrival: UDP, addressed to `sta`, which is
    /// plain. (`receive` would count it too, by a longer path.)
    #[inline(always)]
    pub(super) fn counts_on_arrival(&self, sta: usize, p: &Packet) -> bool {
        matches!(p.l4, Transport::Udp(_)) && self.topo.node_of(p.ip.dst) == Some(sta) && self.plain[sta]
    }

    /// A packet arrived at `node`: deliver it or forward it.
    pub(super) fn receive(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        node: usize,
        p: Packet,
    ) {
        let Some(dst) = self.topo.node_of(p.ip.dst) else {
            k.drop_packet(node, "", &p, DropReason::NoRoute);
            return;
        };
        if dst == node && self.roam.as_ref().is_some_and(|r| r.in_tunnel(p.id)) {
            return self.untunnel(shape, k, cells, flows, node, p);
        }
        if self.hooked[node] && !self.agents.at(node).is_empty() {
            return self.receive_hooked(shape, k, cells, flows, node, dst, p);
        }
        self.arrived(shape, k, cells, flows, node, dst, p)
    }

    /// `receive` at the foreign AP's end of a home agent's tunnel: the
    /// packet goes on to its inner destination. (This and the agents'
    /// path are out of line: the usual packet's path takes no copy of the
    /// packet for them.)
    #[cold]
    #[inline(never)]
    fn untunnel(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        node: usize,
        mut p: Packet,
    ) {
        p.ip.dst = self.roam.as_mut().expect("a home agent roams").tunnel_out(p.id);
        self.send_from(shape, k, cells, flows, node, p);
    }

    /// `receive` at a node with agents: they see the packet first.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn receive_hooked(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        node: usize,
        dst: usize,
        mut p: Packet,
    ) {
        match self.run_agents(shape, k, cells, flows, node, dst == node, &mut p) {
            Verdict::Pass => self.arrived(shape, k, cells, flows, node, dst, p),
            Verdict::Consume => {
                k.ledger.deliver(p.id);
            }
            Verdict::Drop(r) => k.drop_packet(node, "", &p, r),
        }
    }

    /// A packet for node `dst` arrived at `node`, past its agents: forward
    /// it, or deliver it here.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn arrived(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        node: usize,
        dst: usize,
        p: Packet,
    ) {
        if dst != node {
            self.send_from(shape, k, cells, flows, node, p);
            return;
        }
        if self.hooked[node] && self.external[node] {
            k.ledger.deliver(p.id);
            self.egress.push(Egress { at: k.now(), node, packet: p });
            return;
        }
        if !flows.has(p.flow.idx()) {
            // An injected packet of no simulated flow, for a simulated node.
            k.drop_packet(node, "", &p, DropReason::NoReceiver);
            return;
        }
        match &p.l4 {
            Transport::Udp(h) => {
                let socket = self.topo.nodes[node].udp_socket(h.dst_port);
                if let Some(reply) = flows.datagram(k, &p, h, socket) {
                    self.send_from(shape, k, cells, flows, node, reply);
                }
            }
            Transport::Tcp(h) => {
                let Some(ep) = self.topo.nodes[node].tcp_endpoint(h.dst_port) else {
                    k.drop_packet(node, "", &p, DropReason::NoReceiver);
                    return;
                };
                flows.segment(shape, k, self, cells, ep, &p, h);
            }
        }
    }

    /// Send a packet from `node` towards its destination.
    pub(super) fn send_from(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        node: usize,
        p: Packet,
    ) {
        // Every simulated source sends to a node of the topology; a packet
        // injected by the emulator may be for any address (a name server,
        // multicast, a host outside the scenario).
        let Some(dst) = self.topo.node_of(p.ip.dst) else {
            k.drop_packet(node, "", &p, DropReason::NoRoute);
            return;
        };
        if let Some(home) = &self.topo.home {
            if self.topo.is_station(dst) && home[dst] == node && self.topo.ap_of(dst) != node {
                return self.tunnel_from(shape, k, cells, flows, node, dst, p);
            }
        }
        self.forward(shape, k, cells, flows, node, dst, p)
    }

    /// `send_from` at the home agent of station `dst`, which is away from
    /// it: the packet goes to its foreign AP (roam.rs). Out of line: the
    /// usual packet's path takes no copy of the packet for it.
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn tunnel_from(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        node: usize,
        dst: usize,
        mut p: Packet,
    ) {
        let fa = self.topo.ap_of(dst);
        self.roam.as_mut().expect("a home agent roams").tunnel_in(p.id, p.ip.dst);
        p.ip.dst = addr_of(fa);
        self.forward(shape, k, cells, flows, node, fa, p)
    }

    /// Send `p` from `node` on its way to node `dst` (its next hop).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        node: usize,
        dst: usize,
        p: Packet,
    ) {
        match self.topo.next_hop(node, dst) {
            Hop::Local => self.receive(shape, k, cells, flows, node, p),
            Hop::Wlan { ra } => cells.enqueue(shape, k, self, flows, node, p, ra as usize),
            Hop::Link { link, dir } => {
                let (link, dir) = (link as usize, dir as usize);
                let now = k.now();
                if let Some(t) = &k.trace {
                    t.packet(now, node, &self.link_name(link), "enqueue", &p, None);
                }
                let key = k.link_key(shape, self.dirs[link][dir].timer);
                match self.links[link][dir].offer(now, p, key) {
                    Ok(Some(arrival)) if !self.is_out(link, dir) => {
                        k.arm_link(shape, self.dirs[link][dir].timer, Some(arrival))
                    }
                    Ok(_) => {}
                    Err(p) => {
                        let iface = if k.trace.is_some() { self.link_name(link) } else { String::new() };
                        k.drop_packet(node, &iface, &p, DropReason::LinkQueueFull)
                    }
                }
            }
            Hop::Unreachable => k.drop_packet(node, "", &p, DropReason::NoRoute),
        }
    }

    /// The next packet of link `link`'s direction `dir` reaches the far
    /// end.
    #[inline(always)]
    pub(super) fn link_arrives(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        link: usize,
        dir: usize,
    ) {
        let now = k.now();
        let (p, next) = self.links[link][dir].arrive(now);
        k.arm_link(shape, self.dirs[link][dir].timer, next);
        let (a, b) = self.topo.link_ends[link];
        if self.capture.is_some() || k.trace.is_some() {
            let (from, to) = if dir == 0 { (a, b) } else { (b, a) };
            let iface = self.link_name(link);
            if let Some(c) = &self.capture {
                c.wired(now, &iface, from, to, &p);
            }
            if let Some(t) = &k.trace {
                t.packet(now, to, &iface, "receive", &p, None);
            }
        }
        self.receive(shape, k, cells, flows, if dir == 0 { b } else { a }, p);
    }

    /// The file and trace name of wired link `link`.
    fn link_name(&self, link: usize) -> String {
        let (a, b) = self.topo.link_ends[link];
        format!("link-{}-{}", self.topo.name(a), self.topo.name(b))
    }

    /// Show packet `p`, which arrived at `node`, to the node's agents in
    /// order, until one does not pass it.
    #[allow(clippy::too_many_arguments)]
    fn run_agents(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        node: usize,
        local: bool,
        p: &mut Packet,
    ) -> Verdict {
        let at = Arrival { node, local };
        for a in 0..self.agents.at(node).len() {
            let v = self.agents.at_mut(node)[a].0.on_packet(k.now(), at, p, &mut self.agent_ctx);
            self.agent_done(shape, k, cells, flows, node, a);
            if v != Verdict::Pass {
                return v;
            }
        }
        Verdict::Pass
    }

    /// Agent `a` of `node` wakes up.
    #[inline(always)]
    pub(super) fn agent_fires(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        node: usize,
        a: usize,
    ) {
        self.agents.at_mut(node)[a].0.on_timer(k.now(), &mut self.agent_ctx);
        self.agent_done(shape, k, cells, flows, node, a);
    }

    /// After a call into agent `a` of `node`: send what it emitted (each a
    /// new packet in the ledger) and re-arm its timer. A new data packet of
    /// a flow (a split connection's segment, I-TCP) is one the flow
    /// generated: its receiver delivers it, so the flow counts it
    /// (`Flows::generated`); a copy of a packet (a Snoop retransmission) is
    /// not a new one.
    fn agent_done(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        node: usize,
        a: usize,
    ) {
        while self.agent_ctx.has_emitted() {
            let mut batch: Vec<(Packet, bool)> = self.agent_ctx.take_emitted_marked().collect();
            for (p, copy) in batch.iter_mut() {
                p.id = if *copy { k.ledger.generate_copy(p.id) } else { k.ledger.generate() };
                if !*copy && p.payload_len > 0 {
                    flows.generated(k, p.flow.idx());
                }
            }
            for (p, _) in batch {
                self.send_from(shape, k, cells, flows, node, p);
            }
        }
        self.arm_agent(shape, k, node, a);
    }

    /// Arm agent `a` of `node` for its next wake-up (no earlier than now).
    fn arm_agent(&self, shape: impl Shape, k: &mut Kernel, node: usize, a: usize) {
        let (agent, key) = &self.agents.at(node)[a];
        k.arm(shape, *key, agent.next_wakeup().map(|t| t.max(k.now())));
    }

    /// Install `agent` at `node`, after the node's other agents.
    pub(super) fn add_agent(&mut self, k: &mut Kernel, node: usize, agent: Box<dyn Agent>) -> Result<(), String> {
        let n = self.topo.nodes.len();
        if node >= n {
            return Err(format!("no node {node} (the scenario has {n})"));
        }
        let a = self.agents.at(node).len();
        let key = k.new_timer(TimerOwner::Agent { node, k: a });
        self.agents.at_mut(node).push((agent, key));
        self.update_hooked();
        self.arm_agent(General, k, node, a);
        Ok(())
    }

    /// Mark `node` external.
    pub(super) fn set_external(&mut self, node: usize) -> Result<(), String> {
        self.check_node(node)?;
        Arc::make_mut(&mut self.external)[node] = true;
        self.update_hooked();
        Ok(())
    }

    fn check_node(&self, node: usize) -> Result<(), String> {
        if node >= self.topo.nodes.len() {
            return Err(format!("no node {node} (the scenario has {})", self.topo.nodes.len()));
        }
        Ok(())
    }

    /// Queue `packet` for sending from `node` at `at` (an `Ev::Ingress`).
    pub(super) fn inject(&mut self, k: &mut Kernel, at: SimTime, node: usize, packet: Packet) -> Result<(), String> {
        self.check_node(node)?;
        let last = self.ingress.back().map_or(k.now(), |x| x.0.max(k.now()));
        if at < last {
            return Err(format!("inject at {at:?}: before {last:?}"));
        }
        self.ingress.push_back((at, node, packet));
        k.push(General, at, Ev::Ingress);
        Ok(())
    }

    /// The next injected packet is due: a new packet of the ledger, sent
    /// from its node.
    #[inline(always)]
    pub(super) fn ingress_due(&mut self, shape: impl Shape, k: &mut Kernel, cells: &mut Cells, flows: &mut Flows) {
        let (_, node, mut p) = self.ingress.pop_front().expect("one ingress event per packet");
        p.id = k.ledger.generate();
        if let Some(t) = &k.trace {
            t.packet(k.now(), node, "ingress", "receive", &p, None);
        }
        self.send_from(shape, k, cells, flows, node, p);
    }

    /// The packets that reached external nodes since the last call.
    pub(super) fn drain_egress(&mut self) -> Vec<Egress> {
        std::mem::take(&mut self.egress)
    }

    pub(super) fn set_capture(&mut self, c: Capture) {
        self.capture = Some(c);
    }

    pub(super) fn capturing(&self) -> bool {
        self.capture.is_some()
    }

    /// Flush and close the capture, if any.
    pub(super) fn finish_capture(&mut self) -> Result<(), String> {
        match self.capture.take() {
            Some(c) => c.finish(),
            None => Ok(()),
        }
    }

    // ------------------------------------------------------------------
    // Roaming: the association of stations (roam.rs decides).

    /// Station `sta`'s roaming timer: apply what it decides (leave the
    /// cell, or join the new AP's and be fed again).
    pub(super) fn roam_fires(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        sta: usize,
    ) {
        let r = self.roam.as_mut().expect("a roaming timer without roaming");
        match r.fires(k, sta, self.topo.ap_of(sta)) {
            Step::Stay => {}
            Step::Leave => self.set_cell(cells, sta, DETACHED),
            Step::Join { ap, cell } => {
                // the wired side learns its new port (the layer-2 update)
                self.topo_mut().set_ap_of(sta, ap);
                self.set_cell(cells, sta, cell);
                cells.feed(shape, k, self, flows, sta);
                cells.qdisc_timer(shape, k, sta);
            }
        }
    }

    /// Put member `sta`'s interface into `cell` (or `DETACHED`), for the
    /// nodes and the cells' gates.
    fn set_cell(&mut self, cells: &Cells, sta: usize, cell: usize) {
        self.topo_mut().set_cell(sta, cell);
        cells.set_presence(sta, cell);
    }

    /// Whether AP `ap` holds a frame for station `dest` that has
    /// reassociated elsewhere.
    #[inline]
    pub(super) fn left_ap(&self, ap: usize, dest: usize) -> bool {
        self.topo.is_ap(ap) && self.topo.is_station(dest) && self.topo.ap_of(dest) != ap
    }

    /// A frame AP `ap` held for a station that left it: forwarded to the
    /// station's new AP, or dropped (`wlan.roaming.queued`).
    pub(super) fn left_behind(
        &mut self,
        shape: impl Shape,
        k: &mut Kernel,
        cells: &mut Cells,
        flows: &mut Flows,
        ap: usize,
        it: Queued,
    ) {
        let r = self.roam.as_mut().expect("roaming");
        if r.left_behind(ap, it.dest as usize) {
            self.send_from(shape, k, cells, flows, ap, it.pkt);
        } else {
            k.drop_packet(ap, "wlan", &it.pkt, DropReason::Handoff);
        }
    }

    /// A MAC of member `sta` discarded an MSDU for `reason`.
    #[inline(always)]
    pub(super) fn mac_dropped(&mut self, sta: usize, reason: DropReason) {
        if let Some(r) = self.roam.as_mut() {
            r.mac_dropped(sta, reason);
        }
    }

    // ------------------------------------------------------------------
    // The end of the run.

    /// Account every link's busy time up to `end`.
    pub(super) fn account_links(&mut self, end: SimTime) {
        for d in self.links.iter_mut().flatten() {
            d.account(end);
        }
    }

    /// Ids of the packets the links hold.
    /// (In a windowed run's group, not those of the directions that lead
    /// to other groups: the receiving group holds them.)
    pub(super) fn held(&self) -> impl Iterator<Item = wifitcp_core::PacketId> + '_ {
        self.links.iter().enumerate().flat_map(move |(l, d)| {
            (0..2).filter(move |&dir| !self.is_out(l, dir)).flat_map(move |dir| d[dir].held().map(|p| p.id))
        })
    }

    /// The `"handoffs"` part of the result, with roaming.
    pub(super) fn handoffs(&self) -> Option<serde_json::Value> {
        self.roam.as_ref().map(|r| r.report(&self.topo))
    }

    pub(super) fn links(&self) -> &[[LinkDir; 2]] {
        &self.links
    }

    pub(super) fn agents(&self) -> &Agents {
        &self.agents
    }

    // ------------------------------------------------------------------
    // Partitioned runs (`part.rs`).

    /// Whether a partitioned run can hold a copy of these nodes per
    /// partition: no wired link, agent, external node, injected packet,
    /// capture or roaming (the partitions then share nothing here but the
    /// topology, which none changes).
    pub(super) fn partitionable(&self) -> bool {
        self.links.is_empty() && self.windowable()
    }

    /// A partition's nodes (`partitionable` holds): the shared topology and
    /// the per-node flags, no links or agents.
    pub(super) fn part(&self) -> Nodes {
        debug_assert!(self.partitionable());
        Nodes {
            topo: self.topo.clone(),
            links: Vec::new(),
            dirs: Vec::new(),
            agents: Agents::default(),
            agent_ctx: AgentCtx::default(),
            external: self.external.clone(),
            hooked: self.hooked.clone(),
            plain: self.plain.clone(),
            ingress: VecDeque::new(),
            egress: Vec::new(),
            capture: None,
            roam: None,
        }
    }

    // ------------------------------------------------------------------
    // Groups of a windowed run (`window.rs`).

    /// Whether a windowed run's group can hold a copy of these nodes: no
    /// agent, external node, injected packet, capture or roaming (links
    /// are what the groups exchange packets over).
    pub(super) fn windowable(&self) -> bool {
        self.agents.is_empty()
            && !self.external.iter().any(|&e| e)
            && self.ingress.is_empty()
            && self.capture.is_none()
            && self.roam.is_none()
    }

    /// Mark the link directions whose far end another group holds
    /// (`out(link, dir)`).
    pub(super) fn set_out(&mut self, out: impl Fn(usize, usize) -> bool) {
        for (l, d) in self.dirs.iter_mut().enumerate() {
            for (dir, k) in d.iter_mut().enumerate() {
                k.out = out(l, dir);
            }
        }
    }

    /// Whether link `link`'s direction `dir` leads to another group.
    #[inline(always)]
    fn is_out(&self, link: usize, dir: usize) -> bool {
        self.dirs[link][dir].out
    }

    /// The packets offered to the directions that lead to other groups
    /// since the last call, as (link, direction, packet), in link,
    /// direction and offer order (`LinkDir::ship`).
    pub(super) fn ship(&mut self, before: SimTime, out: &mut Vec<(u32, u8, InPipe)>) {
        for (l, d) in self.dirs.iter().enumerate() {
            for (dir, k) in d.iter().enumerate() {
                if k.out {
                    self.links[l][dir].ship(before, |x| out.push((l as u32, dir as u8, x)));
                }
            }
        }
    }

    /// A packet another group shipped over link `link`'s direction `dir`
    /// (whose far end is here): into the pipe, its arrival scheduled if it
    /// is the direction's next.
    pub(super) fn take_shipped(&mut self, k: &mut Kernel, link: usize, dir: usize, x: InPipe) {
        if let Some(a) = self.links[link][dir].inject(x) {
            k.arm_link(General, self.dirs[link][dir].timer, Some(a));
        }
    }

    /// Exchange link `link`'s direction `dir` with `other`'s (merging a
    /// windowed run's groups: each direction is its sender's).
    pub(super) fn swap_link(&mut self, other: &mut Nodes, link: usize, dir: usize) {
        std::mem::swap(&mut self.links[link][dir], &mut other.links[link][dir]);
    }
}
