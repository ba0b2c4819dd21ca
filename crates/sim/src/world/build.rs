//! Building a world from a scenario: the topology, the cells (the members'
//! positions, the channel's radios with the power game's equilibrium, the
//! carrier-sense view, mobility), the queue disciplines, agents and links,
//! the flows and their TCP endpoints, and roaming; then the first events.
//! Nothing here runs per event.
//!
//! Every random stream is derived from the run's seed by a stable name
//! (`qdisc/<node>`, `traffic/<flow>`, `tcp/<flow>`, `channel/shadowing`,
//! `medium/errors`, `mobility/<node>`, ...), so the order in which parts
//! are built does not change their draws. Timer keys are registered in a
//! fixed order (queue disciplines, agents, links, flows, TCP endpoints,
//! roaming); the first events are pushed in a fixed order too (flows'
//! starts, roaming checks, the MACs' first wake-ups, the samples),
//! which fixes their insertion sequence.
use super::cells::{Cell, CellGate, Cells, Presence};
use super::events::{Ev, TimerOwner};
use super::flows::Flows;
use super::kernel::{Kernel, NO_TIMER};
use super::members::MemberMap;
use super::nodes::Nodes;
use super::queues::Queues;
use super::roam::Roaming;
use super::shape::General;
use super::World;
use crate::apps::echo::{self, UdpSocket};
use crate::config::{Direction, Scenario, Traffic, TrafficKind};
use crate::endpoints::{Endpoint, FlowKind, FlowRt, TcpFlow};
use crate::link::LinkDir;
use crate::macs::Member;
use crate::metrics::FlowStats;
use crate::names::Names;
use crate::topology::Topology;
use std::collections::HashMap;
use std::sync::atomic::AtomicU32;
use std::sync::Arc;
use wifitcp_core::{ConfigError, RngStream, SimDur, SimTime};
use wifitcp_net::TimerKey;
use wifitcp_queue::{QdiscConfig, QueueDisc};
use wifitcp_wifi::channel::antenna::Beam;
use wifitcp_wifi::channel::config::{NodeKeys, PowerControl, StaAntenna};
use wifitcp_wifi::channel::moving::MovingChannelErrors;
use wifitcp_wifi::channel::{Channel, Position, Preamble};
use wifitcp_wifi::mac::{AckPolicy, AnyMac, DcfParams, DcfShared, MacAddr};
use wifitcp_wifi::medium::sense::{propagation_delay_ns, senses};
use wifitcp_wifi::medium::{Bss, ChannelErrors, FixedPer, FrameErrorModel, NodeRadio, SenseMatrix};
use wifitcp_wifi::mobility::Mobility;

impl World {
    pub fn build(s: &Scenario, seed: u64) -> Result<World, ConfigError> {
        World::build_with_macs(s, seed, &|m| s.mac.kind.get().build(m))
    }

    /// [`World::build`] with each member's MAC from `macs` instead of
    /// `mac.kind`'s constructor (for a MAC the registry does not list, or
    /// one the kind builds another way).
    pub fn build_with_macs(s: &Scenario, seed: u64, macs: &dyn Fn(&Member) -> AnyMac) -> Result<World, ConfigError> {
        let (k, nodes, cells, flows) = World::build_parts(s, seed, macs)?;
        Ok(World::start(k, nodes, cells, flows))
    }

    /// The parts of a world built from a scenario, before the MACs'
    /// first wake-ups (no packet exists yet; the flows' starts are
    /// queued).
    pub(super) fn build_parts(
        s: &Scenario,
        seed: u64,
        macs: &dyn Fn(&Member) -> AnyMac,
    ) -> Result<(Kernel, Nodes, Cells, Flows), ConfigError> {
        let topo = Topology::build(s);
        let (cells, presence, map) = build_cells(s, seed, &topo, macs)?;
        let wq = build_qdiscs(s, seed, &topo)?;
        let mut k = Kernel::new(
            SimTime::from_secs_f64(s.scenario.duration_s),
            SimTime::from_secs_f64(s.scenario.warmup_s),
            SimDur::from_secs_f64(s.scenario.sample_interval_s),
        );
        // (a timer key for each discipline that may ask for a wake-up
        // only: a plain FIFO never does, and a campus has thousands)
        let wq_timer = (0..wq.len())
            .map(|i| if wq.get(i).timed() { k.new_timer(TimerOwner::Qdisc(i)) } else { NO_TIMER })
            .collect();
        let agents = crate::agents::build(s, &topo, seed)?
            .into_iter()
            .enumerate()
            .map(|(node, list)| {
                list.into_iter()
                    .enumerate()
                    .map(|(a, ag)| (ag, k.new_timer(TimerOwner::Agent { node, k: a })))
                    .collect()
            })
            .collect();
        let link_timer =
            (0..s.links.len()).map(|link| [0, 1].map(|dir| k.new_timer(TimerOwner::Link { link, dir }))).collect();
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
        let mut nodes = Nodes::new(topo, agents, links, link_timer);
        let mut cells = Cells::new(cells, presence, map, wq, wq_timer, s.ap_classes().into(), s.phy.standard);
        cells.report_airtime_if_used();
        let flows = build_flows(s, seed, &mut k, &mut nodes, &mut cells)?;
        if s.wlan.roaming.is_some() {
            let positions = station_positions(s);
            let models = mobility_models(s, seed, &positions)?;
            nodes.set_roaming(Roaming::new(s, &mut k, positions, models)?);
        }
        let mut flows = flows;
        if super::cut::orderable(&nodes) {
            let cut = super::cut::wired_cut(nodes.topo(), cells.members(), nodes.links());
            if let Some((order, sampled)) = super::cut::order(&cut, &k, nodes.topo(), flows.flows(), flows.eps()) {
                k.set_order(order);
                flows.set_sampled(sampled);
            }
        }
        k.shrink_timers();
        Ok((k, nodes, cells, flows))
    }

    /// A world built (`build_with_macs`) up to its first wake-ups: let the
    /// MACs schedule theirs, handle what that led to, and push the samples.
    pub(super) fn start(k: Kernel, nodes: Nodes, mut cells: Cells, flows: Flows) -> World {
        cells.reschedule_all();
        let mut w = World { k, nodes, cells, flows };
        w.cells.drain_outputs(General, &mut w.k, &mut w.nodes, &mut w.flows);
        // (each partition samples its own flows: `kernel.rs`)
        let parts = w.k.order_parts() as u16;
        // (one chain of sampling instants per partition from 0: the
        // multiples of the interval and the warm-up, `Sampling::next`)
        for part in 0..parts {
            w.k.push(General, SimTime::ZERO, Ev::Sample { part });
        }
        w
    }
}

/// The transmit queue discipline of every WLAN member's interface
/// (`ap.qdisc` at an AP, `wlan.station_qdisc` at a station).
fn build_qdiscs(s: &Scenario, seed: u64, topo: &Topology) -> Result<Queues, ConfigError> {
    let n = s.wlan_members();
    let mut wq: Vec<Option<Box<dyn QueueDisc>>> = Vec::with_capacity(n);
    let fifo = s.mac.common.queue_packets as usize;
    for i in 0..n {
        let (cfg, cap, path) = if topo.is_ap(i) {
            (s.ap.qdisc.clone().unwrap_or(QdiscConfig::DropTail(Default::default())), s.ap_queue_packets(), "ap.qdisc")
        } else {
            (
                s.wlan.station_qdisc.clone().unwrap_or(QdiscConfig::DropTail(Default::default())),
                s.mac.common.queue_packets,
                "wlan.station_qdisc",
            )
        };
        // (a plain FIFO of the stations' capacity, which `mac.queue_packets`'s
        // check keeps positive, is built with its first packet: `queues.rs`)
        if matches!(cfg, QdiscConfig::DropTail(_)) && cap as usize == fifo {
            wq.push(None);
            continue;
        }
        let mut rng = RngStream::derive(seed, &format!("qdisc/{}", topo.name(i)));
        wq.push(Some(wifitcp_queue::build(&cfg, cap as usize, &mut rng).map_err(|e| e.under(path))?));
    }
    Ok(Queues::new(wq, fifo))
}

/// The flows of the scenario's traffic, in entry order and, within an
/// entry, station order: each with its source or TCP endpoints (bound to
/// their nodes' ports), its statistics, its start queued (`Ev::FlowStart`)
/// and a timer key if its source fires again; a ping flow's echo responder and ping socket bound to their
/// ports; a saturated source registered with its station's cells.
fn build_flows(
    s: &Scenario,
    seed: u64,
    k: &mut Kernel,
    nodes: &mut Nodes,
    cells: &mut Cells,
) -> Result<Flows, ConfigError> {
    // The flows' count, to size their tables once: grown by doubling, a
    // campus's flow records (224 bytes each) would stand at up to three
    // times their size while the last doubling copies them, the heap's
    // peak of a one-cell campus.
    let count = (s.traffic.iter().enumerate())
        .map(|(ti, tr)| tr.station_list(s.wlan.stations, &format!("traffic[{ti}]")).map(|l| l.len()))
        .sum::<Result<usize, _>>()?;
    // Each flow's name, station and peer first, with the tables that find
    // them (dropped before the flows' tables are made, which would
    // otherwise stand beside them at the build's peak).
    let (names, plan) = plan_flows(s, nodes.topo(), count)?;
    let (mut flows, mut eps, mut flow_timer): (Vec<FlowRt>, _, _) =
        (Vec::with_capacity(count), Vec::new(), Vec::with_capacity(count));
    // The flows' starts and TCP flows' stops, queued after the loop in its
    // order: the starts of consecutive flows at one instant as one entry
    // (`Kernel::push_events`), the queue sized for them once (doubling
    // would leave up to as much again unused). The frame ends of a cell
    // whose stations all find the medium idle (10.3.4.2) are one entry
    // too (`Kernel::push_tx_ends`).
    let mut queued: Vec<Queued> = Vec::with_capacity(count);
    for (fi, p) in plan.iter().enumerate() {
        let (ti, j, sta, peer) = (p.traffic as usize, p.index as usize, p.sta as usize, p.peer as usize);
        let tr = &s.traffic[ti];
        let path = format!("traffic[{ti}]");
        let (src, dst) = match tr.common.direction {
            Direction::Uplink => (sta, peer),
            Direction::Downlink => (peer, sta),
        };
        let name = names.get(fi);
        let start = SimTime::from_secs_f64(tr.common.start_s + j as f64 * tr.common.start_stagger_s);
        let stop = tr.common.stop_s.map(SimTime::from_secs_f64).unwrap_or(k.end).min(k.end);
        let mut first = start;
        let kind = match tr.common.kind {
            TrafficKind::Udp => {
                let mut source = crate::apps::build(tr, RngStream::derive(seed, &format!("traffic/{name}")))
                    .map_err(|e| e.under(&path))?;
                if source.saturated() && src < cells.members() {
                    debug_assert!(!source.echo(), "a saturated source sends no echo requests");
                    cells.add_saturated(src, fi, nodes.topo().next_hop(src, dst), tr.common.msdu_bytes);
                }
                if source.echo() {
                    nodes.bind_udp(dst, echo::PORT, UdpSocket::Echo);
                    nodes.bind_udp(src, udp_port(fi), UdpSocket::Ping);
                }
                first = source.start(start);
                FlowKind::Udp(source)
            }
            TrafficKind::Tcp => {
                let t = tr.common.tcp.clone().unwrap_or_default().over(&s.tcp);
                let cfg = wifitcp_tcp::scenario::build(&t)?;
                let (client, server) = (sta, peer);
                let cport = 20_000 + fi as u16;
                let sport = 5_000 + fi as u16;
                let mut rng = RngStream::derive(seed, &format!("tcp/{name}"));
                let ce = eps.len();
                let cc = wifitcp_tcp::scenario::controller(&t);
                eps.push(Endpoint::client(client, server, fi, cfg.clone(), cc, cport, sport, &mut rng));
                let se = eps.len();
                let cc = wifitcp_tcp::scenario::controller(&t);
                eps.push(Endpoint::server(server, client, fi, cfg, cc, sport, &mut rng));
                nodes.bind_tcp(client, cport, ce);
                nodes.bind_tcp(server, sport, se);
                let (sender, receiver) = if tr.common.direction == Direction::Uplink { (ce, se) } else { (se, ce) };
                FlowKind::Tcp(Box::new(TcpFlow {
                    client: ce,
                    sender,
                    receiver,
                    bytes: tr.common.bytes,
                    completed: None,
                }))
            }
        };
        let mut stats = FlowStats::default();
        stats.reserve_samples(k.samples_to_reserve());
        if matches!(&kind, FlowKind::Udp(source) if source.echo()) {
            stats.enable_echo();
        }
        let src_port = if matches!(kind, FlowKind::Udp(_)) { udp_port(fi) } else { 0 };
        flows.push(FlowRt::new(fi, kind, [start, stop], [src, dst], src_port, tr.common.dscp << 2, stats));
        // (a key of the timer registry only for a source that fires again;
        // the start is an event of its own)
        flow_timer.push(if flows[fi].fires_again() { k.new_timer(TimerOwner::Flow(fi)) } else { NO_TIMER });
        let id = u32::try_from(fi).expect("fewer than 2^32 flows");
        queued.push(Queued::Start(first.min(k.end), id));
        // (a TCP flow's stop is its sender's event: `Flows::stop_fires`)
        if matches!(flows[fi].kind, FlowKind::Tcp(_)) && stop < k.end {
            queued.push(Queued::Stop(k.new_timer(TimerOwner::FlowStop(fi)), stop));
        }
    }
    queue_starts(k, queued);
    let ep_timer = (0..eps.len()).map(|ep| k.new_timer(TimerOwner::Tcp(ep))).collect();
    let mut flows = Flows::new(flows, eps, flow_timer, ep_timer, names);
    flows.prime_servers();
    Ok(flows)
}

/// What `build_flows` queues for a flow: its start, and a TCP flow's
/// stop (a timer key armed at that instant).
enum Queued {
    Start(SimTime, u32),
    Stop(TimerKey, SimTime),
}

/// Queue the flows' starts and stops in order, the starts between two
/// stops as runs (`Kernel::push_events`), in a queue sized for them.
fn queue_starts(k: &mut Kernel, queued: Vec<Queued>) {
    let mut starts: Vec<(SimTime, Ev)> = Vec::new();
    let mut entries = 0;
    for q in &queued {
        match *q {
            Queued::Start(at, fi) => starts.push((at, Ev::FlowStart { fi })),
            Queued::Stop(..) => {
                entries += k.entries_of(&starts) + 1;
                starts.clear();
            }
        }
    }
    k.reserve_events(entries + k.entries_of(&starts) + 64);
    starts.clear();
    for q in queued {
        match q {
            Queued::Start(at, fi) => starts.push((at, Ev::FlowStart { fi })),
            Queued::Stop(key, stop) => {
                k.push_events(General, starts.drain(..));
                k.arm(General, key, Some(stop));
            }
        }
    }
    k.push_events(General, starts);
}

/// A flow to build: its `[[traffic]]` entry, its index in that entry's
/// station list, and its station and peer (node ids).
struct FlowPlan {
    traffic: u32,
    index: u32,
    sta: u32,
    peer: u32,
}

/// The flows' names and plans, in flow order.
///
/// A flow is named "<traffic>/<station>"; one whose name an earlier flow
/// has (a station listed again) is "<name>#<n>", its n-th instance: names,
/// and the RNG streams derived from them, are the flow's own.
/// The source port of UDP flow `fi`'s datagrams (16 bits, wrapping).
fn udp_port(fi: usize) -> u16 {
    10_000 + fi as u16
}

fn plan_flows(s: &Scenario, topo: &Topology, count: usize) -> Result<(Names, Vec<FlowPlan>), ConfigError> {
    let mut names = Names::with_capacity(count, 0);
    let mut plan = Vec::with_capacity(count);
    // A node's index by name (the first node of that name), and for each
    // name the number of flows already named it or "<it>#<anything>":
    // lookups in O(1), so naming n flows costs O(n), not O(n^2).
    let mut node_of: HashMap<&str, u32> = HashMap::with_capacity(topo.names().len());
    for (i, x) in topo.names().iter().enumerate() {
        node_of.entry(x).or_insert(i as u32);
    }
    let mut instances: HashMap<String, usize> = HashMap::with_capacity(count);
    for (ti, tr) in s.traffic.iter().enumerate() {
        let path = format!("traffic[{ti}]");
        for (j, (st, peer)) in s.flow_peers(tr, &path)?.into_iter().enumerate() {
            let peer = *node_of.get(peer.as_str()).expect("validated peer");
            let sta = st + 1;
            let mut name = format!("{}/{}", tr.common.name, topo.name(sta as usize));
            let same = instances.get(&name).copied().unwrap_or(0);
            if same > 0 {
                name = format!("{name}#{}", same + 1);
            }
            // The new name counts for itself and for each of its prefixes
            // that a '#' follows.
            for (i, _) in name.match_indices('#') {
                *instances.entry(name[..i].to_string()).or_insert(0) += 1;
            }
            names.push(&name);
            *instances.entry(name).or_insert(0) += 1;
            plan.push(FlowPlan { traffic: ti as u32, index: j as u32, sta, peer });
        }
    }
    names.shrink_to_fit();
    Ok((names, plan))
}

/// The cells of a scenario, one per channel (`Scenario::cell_channels`).
/// With roaming, each with a MAC for every WLAN member and the presence
/// table their gates share; with several cells and no roaming, each with
/// MACs for its own members only, and the map of where each member is
/// (`members.rs`); one cell holds every member. Cell 0 draws from the
/// streams a single-cell scenario always used; cell k > 0 from the same
/// names suffixed with "/ch<channel>" (a member's MAC from the streams of
/// its node name in every case).
#[allow(clippy::type_complexity)]
fn build_cells(
    s: &Scenario,
    seed: u64,
    topo: &Topology,
    macs: &dyn Fn(&Member) -> AnyMac,
) -> Result<(Vec<Cell>, Option<Presence>, Option<MemberMap>), ConfigError> {
    let chans = s.cell_channels();
    let roaming = s.wlan.roaming.is_some();
    let presence: Option<Presence> = roaming
        .then(|| (0..s.wlan_members()).map(|i| AtomicU32::new(topo.cell_of(i) as u32)).collect::<Vec<_>>().into());
    let map = (chans.len() > 1 && !roaming).then(|| {
        let cell_of: Vec<usize> = (0..s.wlan_members()).map(|i| topo.cell_of(i)).collect();
        MemberMap::new(&cell_of, chans.len())
    });
    let channels = Channels::new(s);
    let mut cells = Vec::new();
    for (k, ch) in chans.iter().enumerate() {
        let suffix = if k == 0 { String::new() } else { format!("/ch{ch}") };
        let gate = match (&presence, &map) {
            (Some(p), _) => Gate::Presence(k as u32, p.clone()),
            (None, Some(m)) => Gate::Renumbered(k as u32, m.members(k).clone()),
            (None, None) => Gate::None,
        };
        let bss = build_bss(s, seed, k, &suffix, gate, &channels, macs)?;
        cells.push(Cell::new(bss));
    }
    Ok((cells, presence, map))
}

/// What stands between a cell's medium and the channel's error model.
enum Gate {
    /// Nothing: one cell of every member.
    None,
    /// Cell `.0` of every member, frames of members absent from it failing
    /// (`CellGate::new`).
    Presence(u32, Presence),
    /// Cell `.0` of the members `.1` (node ids by index in the cell),
    /// shown to the model as node ids (`CellGate::renumbered`).
    Renumbered(u32, Arc<[u32]>),
}

/// One cell's `Bss`: a MAC for every WLAN member (or, behind a
/// `Gate::Renumbered`, for each of the cell's members), the channel's error
/// model; random streams named with `suffix` after their usual names;
/// `channels`: the members' channels (`Channels`).
fn build_bss(
    s: &Scenario,
    seed: u64,
    cell: usize,
    suffix: &str,
    gate: Gate,
    channels: &Channels,
    build: &dyn Fn(&Member) -> AnyMac,
) -> Result<Bss<AnyMac>, ConfigError> {
    let timing = s.timing()?;
    let n = s.wlan_members();
    // One allocation shared by every member's MAC (read on every access:
    // shared, it stays in the nearest cache whatever the cell's size).
    let params = Arc::new(DcfShared::new(s.mac.dcf_params(timing)));
    let rates: Vec<_> = s.phy.standard.rates().into_iter().map(|(r, _)| r).collect();
    let ap_of = s.ap_of_members();
    // The cell's members by index: every member, or the cell's own.
    let members: Vec<usize> = match &gate {
        Gate::Renumbered(_, m) => m.iter().map(|&g| g as usize).collect(),
        _ => (0..n).collect(),
    };
    // Each member's AP by index in the cell (a member's AP is in its cell).
    let local_ap_of: Vec<usize> = match &gate {
        Gate::Renumbered(..) => {
            let mut index = vec![usize::MAX; n];
            for (l, &g) in members.iter().enumerate() {
                index[g] = l;
            }
            members.iter().map(|&g| index[ap_of[g]]).collect()
        }
        _ => ap_of.clone(),
    };
    // An AP sends beacons (and polls) only in its own cell; its MAC in the
    // other cells is never fed (roaming's gate).
    let cell_of_aps = s.cell_of_aps();
    let macs = members
        .iter()
        .enumerate()
        .map(|(l, &i)| {
            // `mac.no_ack_nodes`: this member's data frames carry No Ack
            let own;
            let params = if s.no_ack_member(i) {
                own = Arc::new(DcfShared::new(DcfParams { ack_policy: AckPolicy::NoAck, ..(**params).clone() }));
                &own
            } else {
                &params
            };
            build(&Member {
                s,
                seed,
                i: l,
                node: i,
                ap_of: &local_ap_of,
                elsewhere: ap_of[i] == i && cell_of_aps[i] != cell,
                suffix,
                params,
                rates: &rates,
            })
        })
        .collect();
    let mut sense = None;
    let errors: Box<dyn FrameErrorModel> = match &s.channel {
        // Without error rates, no tables: `FixedPer` reads a member beyond
        // its tables as error-free, which every member then is (the
        // tables, by node id, would be n slots in each of the cells).
        None if s.wlan.per_uplink == 0.0 && s.wlan.per_downlink == 0.0 => Box::new(FixedPer::default()),
        None => {
            let ap_of = s.ap_of_members();
            Box::new(FixedPer {
                uplink: vec![s.wlan.per_uplink; n],
                downlink: vec![s.wlan.per_downlink; n],
                is_ap: (0..n).map(|i| ap_of[i] == i).collect(),
            })
        }
        Some(c) => {
            let model = c.build(&|name| s.member_id(name))?;
            let mut rng = RngStream::derive(seed, "channel/shadowing");
            let positions = station_positions(s);
            let preamble = match s.phy.preamble {
                wifitcp_wifi::phy::Preamble::Long => Preamble::Long,
                wifitcp_wifi::phy::Preamble::Short => Preamble::Short,
            };
            let mut channel = Channel::new(model, &mut rng);
            // `[channel.fading]`: one process per link from the streams
            // `channel/fading/{lo}-{hi}` of the run seed, drawn lazily; none
            // (the default) leaves the channel, and every draw, as it was.
            if let Some(spec) = c.fading()? {
                channel =
                    channel.with_fading(spec, seed).map_err(|e| ConfigError::new("channel.fading", e.to_string()))?;
            }
            let mut errors = ChannelErrors {
                channel,
                positions,
                tx_power_dbm: c.default_tx_power_dbm().unwrap_or(20.0),
                preamble,
                nodes: Vec::new(),
                // 802.11n: data frames are HT PPDUs of `phy`'s vector
                ht: params.timing.ht,
            };
            if let Some(keys) = c.node_keys()? {
                if !keys.is_plain() {
                    errors.nodes = node_radios(s, &keys, &errors, channels)?;
                }
            }
            // Who hears whom and the propagation delays, from the starting
            // positions: moving stations keep the shared view (their
            // carrier sense is not re-derived as they move).
            if s.wlan.mobility.is_empty() {
                let per_receiver = c.per_receiver();
                let leak = channels.leaks.then_some(channels);
                sense = match &gate {
                    Gate::Renumbered(..) => member_view(&errors, n, &members, per_receiver, leak),
                    _ => cell_view(&errors, n, per_receiver, leak),
                };
            }
            if s.wlan.mobility.is_empty() {
                Box::new(errors)
            } else {
                Box::new(moving_errors(s, seed, errors)?)
            }
        }
    };
    let errors: Box<dyn FrameErrorModel> = match gate {
        Gate::None => errors,
        Gate::Presence(cell, presence) => Box::new(CellGate::new(errors, cell, presence)),
        Gate::Renumbered(cell, nodes) => Box::new(CellGate::renumbered(errors, cell, nodes)),
    };
    let mut bss = Bss::new(macs, errors, RngStream::derive(seed, &format!("medium/errors{suffix}")));
    bss.set_control_rng(RngStream::derive(seed, &format!("medium/control-errors{suffix}")));
    bss.set_grouping(s.mac.common.group_bystanders);
    if let Some(m) = sense {
        if let crate::macs::MacKindConfig::Edca(h) = &s.mac.kind {
            // (a downlink HE MU PPDU is judged once for all its users, at
            // the shared medium's single instant: not per receiver)
            if crate::macs::edca::ofdma_dl(h) {
                return Err(ConfigError::new(
                    "mac.ofdma",
                    "downlink OFDMA runs on cells where every station hears every other without delay (the shared medium); this cell has per-station carrier sense (uplink OFDMA, \"ul\", runs on both)",
                ));
            }
        }
        if s.channel.as_ref().is_some_and(|c| c.per_receiver()) {
            bss.set_per_receiver(m);
        } else {
            bss.set_sense(m);
        }
    }
    Ok(bss)
}

/// One-way propagation delay (ns) up to which a cell in which everyone
/// hears everyone keeps the shared view, whose delay is zero: half of
/// aAirPropagationTime at coverage class 0 (1 us, 802.11-2020 Table 9-85;
/// the round trip between the most distant stations that the slot
/// absorbs), i.e. stations at most 150 m apart. Within it stations that
/// pick the same slot collide and others do not, as with zero delay, and
/// an exchange is longer by at most 1 us of hundreds.
const SHARED_VIEW_MAX_DELAY_NS: u64 = 500;

/// The WLAN members' channels and what a receiver on one takes of a frame
/// on another: all of it on one channel; with `channel.adjacent_channel =
/// "mask"` what leaks (`Leakage`), else nothing. Worked out once per run
/// and pair of the scenario's channels (a leakage is a numerical
/// integral, and a cell's view asks for every pair of members).
struct Channels {
    /// Channel by node id.
    of: Vec<u32>,
    /// Index of each node's channel in the scenario's channels.
    idx: Vec<usize>,
    /// `db[i * chans + j]`: what a receiver on the j-th channel takes of a
    /// frame on the i-th, dB.
    db: Vec<f64>,
    chans: usize,
    /// Whether channels leak into each other (the key is set).
    leaks: bool,
}

impl Channels {
    fn new(s: &Scenario) -> Channels {
        let of = s.member_channels();
        let leakage = s.leakage();
        let mut distinct: Vec<u32> = of.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let k = distinct.len();
        let idx = of.iter().map(|c| distinct.binary_search(c).expect("listed")).collect();
        let db = (0..k * k)
            .map(|x| match (&leakage, distinct[x / k], distinct[x % k]) {
                (Some(l), a, b) => l.db(a, b),
                (None, a, b) if a == b => 0.0,
                (None, ..) => f64::NEG_INFINITY,
            })
            .collect();
        Channels { of, idx, db, chans: k, leaks: leakage.is_some() }
    }

    /// What a member on `b`'s channel takes of a frame of `a`'s, dB.
    fn db(&self, a: usize, b: usize) -> f64 {
        self.db[self.idx[a] * self.chans + self.idx[b]]
    }
}

/// The cell's per-station view, if it needs one: when some member does
/// not hear another (carrier sense at `channel.cs_threshold_dbm`), or
/// when two members are further apart than the shared view's zero delay
/// allows (`SHARED_VIEW_MAX_DELAY_NS`), or when the cell holds several
/// channels (`chans`: adjacent-channel leakage; a member then receives a
/// frame of another channel at the power its receiver takes of it, and
/// senses it by energy, `SenseMatrix::with_channels`). Delays are every
/// pair's distance over the speed of light (`propagation_delay_ns`); the
/// per-station view applies them to every pair, however short.
/// `per_receiver` (`channel.reception`): the per-station view in any case.
fn cell_view(e: &ChannelErrors, n: usize, per_receiver: bool, chans: Option<&Channels>) -> Option<SenseMatrix> {
    let cs = e.cs_threshold_dbm().unwrap_or(f64::NEG_INFINITY);
    let p = &e.positions;
    let m = match chans {
        None => sense_matrix(e, n, cs),
        Some(ch) => SenseMatrix::from_rx_dbm(n, cs, |a, b| rx_dbm(e, a, b) + ch.db(a, b)).with_channels(ch.of.clone()),
    };
    let m = m.with_delays(|a, b| propagation_delay_ns(p[a].distance(&p[b])));
    (per_receiver || !m.all_hear() || m.max_delay_ns() > SHARED_VIEW_MAX_DELAY_NS).then_some(m)
}

/// Mean received power of a frame of member `a` at member `b`, dBm (0
/// for a channel without a power model: every frame heard, no capture).
fn rx_dbm(e: &ChannelErrors, a: usize, b: usize) -> f64 {
    e.mean_rx_dbm(MacAddr(a as u32), MacAddr(b as u32)).unwrap_or(0.0)
}

/// [`cell_view`] for a cell of only `members` (node ids, increasing) of
/// the `n` WLAN members: whether the cell needs the per-station view is
/// decided over every member as `cell_view` decides it (so a cell's view
/// does not depend on which members it holds), stopping at the first pair
/// that decides it; the view is then the members' (those of other cells
/// never send in this one).
fn member_view(
    e: &ChannelErrors,
    n: usize,
    members: &[usize],
    per_receiver: bool,
    chans: Option<&Channels>,
) -> Option<SenseMatrix> {
    let cs = e.cs_threshold_dbm().unwrap_or(f64::NEG_INFINITY);
    let p = &e.positions;
    let rx = |a: usize, b: usize| rx_dbm(e, a, b);
    let mixed = chans.is_some_and(|ch| members.windows(2).any(|w| ch.of[w[0]] != ch.of[w[1]]));
    let needed = per_receiver
        || mixed
        || (0..n).any(|a| {
            (0..n).any(|b| {
                // (hearing as `SenseMatrix::from_rx_dbm` judges it: p >= cs)
                let heard = |a, b| rx(a, b) >= cs;
                a != b && (!heard(a, b) || propagation_delay_ns(p[a].distance(&p[b])) > SHARED_VIEW_MAX_DELAY_NS)
            })
        });
    if !needed {
        return None;
    }
    let m = match chans {
        None => SenseMatrix::from_rx_dbm(members.len(), cs, |a, b| rx(members[a], members[b])),
        Some(ch) => SenseMatrix::from_rx_dbm(members.len(), cs, |a, b| {
            rx(members[a], members[b]) + ch.db(members[a], members[b])
        })
        .with_channels(members.iter().map(|&g| ch.of[g]).collect()),
    };
    Some(m.with_delays(|a, b| propagation_delay_ns(p[members[a]].distance(&p[members[b]]))))
}

/// The carrier-sense matrix of the cell: member `t` senses member `s` iff
/// the mean power of `s`'s frames at `t` is at least `cs_dbm`.
fn sense_matrix(e: &ChannelErrors, n: usize, cs_dbm: f64) -> SenseMatrix {
    SenseMatrix::from_rx_dbm(n, cs_dbm, |a, b| rx_dbm(e, a, b))
}

/// Per-member transmit power and antenna gains (`channel.ap_tx_power_dbm`,
/// `ap_antenna_gain_dbi`, `sta_antenna_gain_dbi`, `sta_antenna`), and with
/// `power_control = "game"` each station's power from the power game's
/// equilibrium (`wifitcp_wifi::channel::power`) on the gains between
/// the WLAN's stations: a station on another channel interferes at the
/// power the receiver takes of it (`Channels::db`: what leaks, nothing
/// without leakage) and overlaps by energy detection (`medium::senses`).
fn node_radios(s: &Scenario, k: &NodeKeys, e: &ChannelErrors, ch: &Channels) -> Result<Vec<NodeRadio>, ConfigError> {
    let n = s.wlan_members();
    let ap_of = s.ap_of_members();
    let mut nodes: Vec<NodeRadio> = (0..n)
        .map(|i| {
            let is_ap = ap_of[i] == i;
            let (to_ap, to_sta) = if is_ap {
                (k.ap_antenna_gain_dbi, k.ap_antenna_gain_dbi)
            } else {
                match k.sta_antenna {
                    StaAntenna::Omni => (k.sta_antenna_gain_dbi, k.sta_antenna_gain_dbi),
                    StaAntenna::TowardAp | StaAntenna::Beam => (k.sta_antenna_gain_dbi, 0.0),
                }
            };
            let tx_power_dbm = if is_ap { k.ap_tx_power_dbm } else { k.tx_power_dbm };
            // (aimed at its AP's position at the start of the run)
            let beam = (!is_ap && k.sta_antenna == StaAntenna::Beam)
                .then(|| Beam::aimed(k.sta_antenna_gain_dbi, e.positions[i], e.positions[ap_of[i]]));
            NodeRadio { tx_power_dbm, gain_to_ap_dbi: to_ap, gain_to_sta_dbi: to_sta, is_ap, beam }
        })
        .collect();
    if k.power_control == PowerControl::Game {
        let with = ChannelErrors {
            channel: e.channel.clone(),
            positions: e.positions.clone(),
            tx_power_dbm: e.tx_power_dbm,
            preamble: e.preamble,
            nodes: nodes.clone(),
            ht: e.ht,
        };
        let stas: Vec<usize> = (0..n).filter(|&i| ap_of[i] != i).collect();
        let same = |a: usize, b: usize| ch.of[a] == ch.of[b];
        let rx = |a: usize, b: usize| with.mean_rx_dbm(MacAddr(a as u32), MacAddr(b as u32));
        let mw = |a: usize, b: usize| 10f64.powf((rx(a, b).unwrap_or(0.0) + ch.db(a, b)) / 10.0);
        // Linear gain (W/W) of station j's frames at the AP of station i.
        let gain = |j: usize, i: usize| mw(stas[j], ap_of[stas[i]]) / mw_of_dbm(nodes[stas[j]].tx_power_dbm);
        let cs = with.cs_threshold_dbm();
        let hears = |a: usize, b: usize| match (cs, same(a, b)) {
            (None, true) => true,
            (c, one) => senses(rx(a, b).unwrap_or(f64::INFINITY) + ch.db(a, b), c.unwrap_or(f64::NEG_INFINITY), one),
        };
        let interferes = |j: usize, i: usize| !hears(stas[i], stas[j]);
        let radio = with.channel.model().radio().expect("a power model");
        let n0_w = mw_of_dbm(radio.noise_dbm(wifitcp_wifi::channel::Mode::Ofdm6)) / 1e3;
        let caps: Vec<f64> =
            stas.iter().map(|&i| k.power_max_w.unwrap_or(mw_of_dbm(nodes[i].tx_power_dbm) / 1e3)).collect();
        let p = wifitcp_wifi::channel::power::nash(stas.len(), gain, interferes, n0_w, k.power_cost_per_w, &caps)
            .map_err(|r| ConfigError::new("channel.power_control", r))?;
        for (j, &i) in stas.iter().enumerate() {
            // A station the game silences keeps -100 dBm (0.1 pW): it
            // still exists on the air, and nothing it sends is received.
            nodes[i].tx_power_dbm = if p[j] > 0.0 { 10.0 * (p[j] * 1e3).log10() } else { -100.0 };
        }
    }
    Ok(nodes)
}

fn mw_of_dbm(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

/// The channel with `[[wlan.mobility]]`: station i's model starts at its
/// configured position; random draws come from `mobility/sta<i>`.
fn moving_errors(s: &Scenario, seed: u64, errors: ChannelErrors) -> Result<MovingChannelErrors, ConfigError> {
    let models = mobility_models(s, seed, &errors.positions)?;
    Ok(MovingChannelErrors::new(errors, models))
}

/// The mobility model of every WLAN member (`None`: it stands still),
/// from its starting position. Every call builds the same trajectories
/// (each model draws only from its own stream, `mobility/<name>`, and its
/// positions do not depend on when they are asked for), so every cell and
/// the roaming checks see a station at one place.
fn mobility_models(
    s: &Scenario,
    seed: u64,
    positions: &[Position],
) -> Result<Vec<Option<Box<dyn Mobility>>>, ConfigError> {
    let n = s.wlan.stations;
    let ap_of = s.ap_of_members();
    let mut models: Vec<Option<Box<dyn Mobility>>> = (0..s.wlan_members()).map(|_| None).collect();
    for (i, m) in s.wlan.mobility.iter().enumerate() {
        for k in Traffic::stations_of(&m.stations, n, &format!("wlan.mobility[{i}]"))? {
            let member = k as usize + 1;
            let rng = RngStream::derive(seed, &format!("mobility/{}", s.member_name(member)));
            let (start, ap) = (positions[member], positions[ap_of[member]]);
            models[member] = Some(m.build(start, ap, s.scenario.duration_s, rng));
        }
    }
    Ok(models)
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
