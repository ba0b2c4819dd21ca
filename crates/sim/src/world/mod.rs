//! The run loop: builds a scenario's components and drives them with one
//! event queue.
//!
//! Event order: (time, insertion sequence), enforced by `EventQueue`.
//! Invariants checked at the end of every run: the packet ledger balances
//! (generated = delivered + dropped by reason + held in a buffer), and
//! every TCP receiver delivered one in-order byte stream without gaps or
//! duplicates.
//!
//! Files: `mod.rs` the loop (build, step, dispatch, finish) and the timer
//! registry's use; `events.rs` the event encoding; `network.rs` a node's
//! packet path (agents, forwarding, local delivery); `wlan.rs` the cells'
//! outputs and the queue disciplines that feed their MACs; `roam.rs`
//! stations handing over between APs; `transport.rs` flows, traffic
//! sources and TCP endpoints; `driver.rs` the driver API (agents, external
//! nodes, inject and drain); `demux.rs` the port table's hasher.
//!
//! Cells: one `Bss` per channel (`wlan.ap_channels`; one cell when every
//! AP shares a channel, the default). Every cell has a MAC for every WLAN
//! member (member index = node id), but a member takes part only in the
//! cell of its WLAN interface (`Node::wlan.cell`): only that cell's MAC is
//! fed from the member's queue, and with several cells or roaming a gate
//! on each cell's error model fails every frame from or to a member that
//! is not in the cell (a radio on another channel hears nothing of it).
//! Idle MACs of absent members never transmit: nothing feeds them.
pub(crate) mod demux;
mod driver;
mod events;
mod network;
mod roam;
mod transport;
mod wlan;

pub use driver::Egress;
use events::{Ev, EvCode, TimerOwner};
use network::udp_arrived;
use transport::ECHO_PORT;
use wlan::{build_cells, with_bss, Cell};

use crate::apps::Firing;
use crate::config::{Direction, Scenario, TrafficKind};
use crate::endpoints::{Endpoint, FlowKind, FlowRt};
use crate::ledger::Ledger;
use crate::link::LinkDir;
use crate::metrics::{self, FlowStats, RunResult};
use crate::topology::{addr_of, Hop, Topology, DETACHED};
use wifitcp_core::{DropReason, EventQueue, FlowId, RngStream, SimDur, SimTime};
use wifitcp_net::{Agent, AgentCtx, Arrival, TimerKey, TimerRegistry, Verdict};
use wifitcp_queue::{QdiscConfig, QueueDisc, Queued};
use wifitcp_wifi::channel::{Channel, Position, Preamble};
use wifitcp_wifi::mac::AnyMac;
use wifitcp_wifi::mac::{Demand, MacAddr};
use wifitcp_wifi::medium::{Bss, BssOutput, ChannelErrors, FixedPer, FrameErrorModel};
use wifitcp_wire::ip::{PROTO_TCP, PROTO_UDP};
use wifitcp_wire::wifi_frame::LLC_SNAP_LEN;
use wifitcp_wire::{Ipv4Header, Packet, Transport, UdpHeader};

/// A scenario's network: its nodes (BSS members first, then wired nodes),
/// the BSS, links, queue disciplines, agents, flows and TCP endpoints, one
/// event queue and the packet ledger. Driven by [`World::step_until`]
/// (see the driver API in `driver.rs`), or to the end by [`World::run`].
pub struct World {
    q: EventQueue<EvCode>,
    topo: Topology,
    /// One cell per channel, each with its outputs not yet handled: cell
    /// 0 (AP 0's channel, the only one in most scenarios) inline, the
    /// others after it (see `cell`).
    cell0: Cell,
    more_cells: Vec<Cell>,
    /// Cell of each WLAN member as the cells' gates see it (only with
    /// several cells or roaming; see `wlan::CellGate`).
    presence: Option<wlan::Presence>,
    /// Stations handing over between APs (`[wlan.roaming]`).
    roam: Option<Box<roam::Roaming>>,
    /// Packets in a home agent's tunnel: their inner destination, by id
    /// (`wlan.roaming.reroute = "home_agent"`, `roam.rs`).
    tunnel: std::collections::HashMap<wifitcp_core::PacketId, wifitcp_wire::Ipv4Addr>,
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
    /// Packet capture (`capture_to`), off by default.
    capture: Option<crate::capture::Capture>,
    /// Per-packet trace (`trace_to`), off by default.
    trace: Option<crate::trace::PacketTrace>,
    /// Standard of the PHY (for the capture's radiotap headers).
    standard: wifitcp_wifi::phy::PhyStandard,
    /// Class of each BSS member as seen by the AP's queue discipline.
    ap_class: Vec<u32>,
    links: Vec<[LinkDir; 2]>,
    flows: Vec<FlowRt>,
    eps: Vec<Endpoint>,
    /// Saturated UDP flows by sending BSS member, each with its first hop
    /// (the topology is static), and a round-robin cursor.
    saturated: Vec<(Vec<(usize, Hop)>, usize)>,
    ledger: Ledger,
    end: SimTime,
    warmup: SimTime,
    bin: SimDur,
    dropped: Vec<(Packet, DropReason)>,
}
impl World {
    pub fn build(s: &Scenario, seed: u64) -> Result<World, String> {
        let topo = Topology::build(s);
        let (mut cells, presence) = build_cells(s, seed, &topo)?;
        let more_cells = cells.split_off(1);
        let cell0 = cells.pop().expect("at least one cell");
        let n = s.wlan_members();
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
        let agents = crate::agents::build(s, &topo, seed)?
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
            cell0,
            more_cells,
            presence,
            roam: None,
            tunnel: Default::default(),
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
            capture: None,
            trace: None,
            standard: s.phy.standard,
            wq,
            ap_class: s.ap_classes(),
            links,
            flows: Vec::new(),
            eps: Vec::new(),
            saturated: vec![(Vec::new(), 0); n],
            ledger: Ledger::default(),
            end,
            warmup: SimTime::from_secs_f64(s.scenario.warmup_s),
            bin: SimDur::from_secs_f64(s.scenario.sample_interval_s),
            dropped: Vec::new(),
        };
        w.external = vec![false; w.topo.nodes.len()];
        w.update_hooked();
        let airtime = w.wq.iter().any(|q| q.uses_airtime());
        for c in w.cells_mut() {
            with_bss!(&mut c.bss, b => b.set_report_airtime(airtime));
        }
        w.add_flows(s, seed)?;
        w.roam = roam::Roaming::build(s, seed, &mut w)?;
        for c in w.cells_mut() {
            with_bss!(&mut c.bss, b => b.reschedule_all(&mut c.out));
        }
        w.drain_outputs();
        w.q.push(SimTime::ZERO, Ev::Sample.code());
        if w.warmup > SimTime::ZERO {
            w.q.push(w.warmup, Ev::Sample.code());
        }
        Ok(w)
    }

    /// Run to the end; returns the metrics.
    pub fn run(mut self, wall: std::time::Instant) -> Result<RunResult, String> {
        self.step_until(self.end);
        self.finish(wall)
    }

    /// The run's end instant (`scenario.duration_s`).
    pub fn end(&self) -> SimTime {
        self.end
    }

    /// The instant of the last event handled (zero before the first).
    pub fn now(&self) -> SimTime {
        self.q.now()
    }

    /// Events handled so far.
    pub fn events(&self) -> u64 {
        self.q.popped()
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
        while self.step_one(until) {}
    }

    /// Handle the next event if it is due at or before `until`; whether
    /// one was.
    #[inline(always)]
    fn step_one(&mut self, until: SimTime) -> bool {
        match self.q.peek_time() {
            Some(at) if at <= until => {
                let (now, ev) = self.q.pop().expect("peeked");
                self.dispatch(now, ev.ev());
                self.drain_outputs();
                true
            }
            _ => false,
        }
    }

    /// [`World::step_until`] handling at most `max` events; true if events
    /// due at or before `min(t, end)` are left (call again to go on: the
    /// events are handled in the same order as by one `step_until`).
    pub fn step_until_at_most(&mut self, t: SimTime, max: u64) -> bool {
        let until = t.min(self.end);
        for _ in 0..max {
            if !self.step_one(until) {
                return false;
            }
        }
        self.q.peek_time().is_some_and(|at| at <= until)
    }

    /// End the run at its end instant (events still queued after it are
    /// left undone), check its invariants and collect the metrics.
    pub fn finish(mut self, wall: std::time::Instant) -> Result<RunResult, String> {
        if self.capture.is_some() || self.trace.is_some() {
            drop(with_bss!(&mut self.cell0.bss, b => b.take_tap()));
        }
        if let Some(c) = self.capture.take() {
            c.finish()?;
        }
        if let Some(t) = self.trace.take() {
            t.finish()?;
        }
        self.sample(self.end);
        for d in self.links.iter_mut().flatten() {
            d.account(self.end);
        }
        for c in self.cells_mut() {
            with_bss!(&mut c.bss, b => b.ungroup_all());
        }
        self.check_end()?;
        // (the cells are read as `Bss<AnyMac>` from here on)
        let cells: Vec<Bss<AnyMac>> = std::iter::once(self.cell0.bss)
            .chain(self.more_cells.into_iter().map(|c| c.bss))
            .map(|b| b.into_any())
            .collect();
        let queued: u64 = self.wq.iter().map(|q| q.len() as u64).sum();
        let held: Vec<_> = cells
            .iter()
            .flat_map(|b| b.packets_in_service())
            .map(|p| p.id)
            .chain(self.links.iter().flat_map(|l| l.iter().flat_map(|d| d.held().map(|p| p.id))))
            .collect();
        self.ledger.check(held.into_iter(), queued)?;
        let events = self.q.popped();
        let cells: Vec<&Bss<AnyMac>> = cells.iter().collect();
        let handoffs = self.roam.as_ref().map(|r| r.report(&self.topo));
        Ok(metrics::collect(&metrics::RunView {
            cells: &cells,
            handoffs,
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
            Ev::BssWake { cell } => {
                let c = self.cell_mut(cell as usize);
                with_bss!(&mut c.bss, b => b.wake(now, &mut c.out))
            }
            Ev::TxEnd { id, cell } => {
                let c = self.cell_mut(cell as usize);
                with_bss!(&mut c.bss, b => b.tx_end(now, id, &mut c.out))
            }
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
                        if self.capture.is_some() || self.trace.is_some() {
                            let (from, to) = if dir == 0 { (a, b) } else { (b, a) };
                            let iface = self.link_name(link);
                            if let Some(c) = &self.capture {
                                c.wired(now, &iface, from, to, &p);
                            }
                            if let Some(t) = &self.trace {
                                t.packet(now, to, &iface, "receive", &p, None);
                            }
                        }
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
                        self.flush_drops(sta);
                        self.feed(now, sta);
                        self.qdisc_timer(sta);
                    }
                    TimerOwner::Agent { node, k } => {
                        self.agents[node][k].0.on_timer(now, &mut self.agent_ctx);
                        self.agent_done(now, node, k);
                    }
                    TimerOwner::Roam(sta) => self.roam_fires(now, sta),
                }
            }
            Ev::Ingress => {
                let (_, node, mut p) = self.ingress.pop_front().expect("one ingress event per packet");
                p.id = self.ledger.generate();
                if let Some(t) = &self.trace {
                    t.packet(now, node, "ingress", "receive", &p, None);
                }
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

    /// Cell `c`.
    #[inline(always)]
    fn cell(&self, c: usize) -> &Cell {
        if c == 0 {
            &self.cell0
        } else {
            &self.more_cells[c - 1]
        }
    }

    /// Cell `c`, to change.
    #[inline(always)]
    fn cell_mut(&mut self, c: usize) -> &mut Cell {
        if c == 0 {
            &mut self.cell0
        } else {
            &mut self.more_cells[c - 1]
        }
    }

    /// Every cell, in index order.
    fn cells_mut(&mut self) -> impl Iterator<Item = &mut Cell> {
        std::iter::once(&mut self.cell0).chain(self.more_cells.iter_mut())
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
}
