//! The cut of a world into partitions along its wired links, and the
//! same-instant order it gives (`kernel.rs`, "Same-instant order").
//!
//! Cells interact only through wired links (channels that leak into each
//! other share a cell, `Scenario::cells`) and through the nodes those
//! links join. A
//! link whose latency is positive carries nothing to its far end sooner
//! than that latency, which is what lets partitions joined by such links
//! run side by side in windows of it (conservative parallel simulation:
//! Chandy & Misra 1979; the barrier windows of Nicol 1993). The cut here
//! decides which nodes go together; `order` keys the world's events by it.
//!
//! A world is ordered by partition only when nothing but wired links of
//! positive latency joins its partitions: no roaming (members change
//! cell), no agent (an agent acts on its node's packets wherever they
//! came from) and at least two partitions. Anything else keeps insertion
//! order, as does every world of one cell.
use super::events::TimerOwner;
use super::kernel::{Kernel, Order};
use super::nodes::Nodes;
use crate::disjoint::{find, union};
use crate::endpoints::{Endpoint, FlowKind, FlowRt};
use crate::link::LinkDir;
use crate::topology::Topology;
use std::collections::HashMap;

/// The cut of a world's nodes into partitions along wired links (the
/// windows of `window.rs`): each cell is a unit; a wired node is a unit; a
/// link of zero latency joins its ends' units, and so does a link between
/// two wired nodes; a group of wired nodes linked to exactly one cell's
/// units joins it (one linked to none joins the first cell's). The rest
/// are cut.
pub struct WiredCut {
    /// Partition of every node (BSS members first, then wired nodes).
    pub part_of_node: Vec<usize>,
    /// Partition of every cell.
    pub part_of_cell: Vec<usize>,
    pub parts: usize,
    /// Whether each link joins two partitions.
    pub cut: Vec<bool>,
    /// The least latency of a cut link (ns), if any is cut.
    pub lookahead_ns: Option<u64>,
}

/// Whether a world with `nodes` may be ordered by partition (module
/// docs): no roaming and no agents.
pub(super) fn orderable(nodes: &Nodes) -> bool {
    !nodes.roaming() && nodes.agents().is_empty()
}

/// The cut of the nodes of `topo` (its first `members` nodes in cells)
/// along the wired links `links` (`WiredCut`).
pub(super) fn wired_cut(topo: &Topology, members: usize, links: &[[LinkDir; 2]]) -> WiredCut {
    let n = topo.nodes.len();
    let n_cells = (0..members).map(|i| topo.cell_of(i) + 1).max().unwrap_or(1);
    let unit = |v: usize| if v < members { topo.cell_of(v) } else { n_cells + (v - members) };
    let mut p: Vec<usize> = (0..n_cells + (n - members)).collect();
    for (l, &(a, b)) in topo.link_ends.iter().enumerate() {
        if links[l][0].delay.0 == 0 || (a >= members && b >= members) {
            union(&mut p, unit(a), unit(b));
        }
    }
    // a wired group linked to one cell's partition only joins it
    let mut reach: HashMap<usize, Vec<usize>> = HashMap::new();
    for &(a, b) in &topo.link_ends {
        let (ra, rb) = (find(&mut p, unit(a)), find(&mut p, unit(b)));
        for (w, c) in [(ra, rb), (rb, ra)] {
            if w >= n_cells && c < n_cells {
                let v = reach.entry(w).or_default();
                if !v.contains(&c) {
                    v.push(c);
                }
            }
        }
    }
    // (and one linked to no cell joins the first: nothing reaches it)
    for u in n_cells..p.len() {
        let r = find(&mut p, u);
        if r >= n_cells && !reach.contains_key(&r) {
            union(&mut p, r, 0);
        }
    }
    let mut groups: Vec<_> = reach.into_iter().collect();
    groups.sort_unstable();
    for (w, cs) in groups {
        if cs.len() == 1 {
            union(&mut p, w, cs[0]);
        }
    }
    let mut number: HashMap<usize, usize> = HashMap::new();
    let part_of_unit: Vec<usize> = (0..p.len())
        .map(|u| {
            let r = find(&mut p, u);
            let next = number.len();
            *number.entry(r).or_insert(next)
        })
        .collect();
    let part_of_node: Vec<usize> = (0..n).map(|v| part_of_unit[unit(v)]).collect();
    let part_of_cell = part_of_unit[..n_cells].to_vec();
    let cut: Vec<bool> = topo.link_ends.iter().map(|&(a, b)| part_of_node[a] != part_of_node[b]).collect();
    let lookahead_ns = cut.iter().zip(links).filter(|(c, _)| **c).map(|(_, l)| l[0].delay.0).min();
    WiredCut { part_of_node, part_of_cell, parts: number.len(), cut, lookahead_ns }
}

/// The node that handles flow `fi`'s start (`Ev::FlowStart`) and its
/// source's later firings: a UDP flow's source; a TCP flow's client (its
/// start opens the client, which sends the SYN).
fn flow_node(fi: usize, flows: &[FlowRt], eps: &[Endpoint]) -> usize {
    match &flows[fi].kind {
        FlowKind::Tcp(t) => eps[t.client].node,
        FlowKind::Udp(_) => flows[fi].src(),
    }
}

/// The node that handles the events of a timer of `owner`: a flow's
/// (`flow_node`), a TCP flow's sender for its stop; a link direction's receiving
/// end; a TCP endpoint's node; a member's queue discipline at the member.
/// `None` for agents and roaming (such worlds are not ordered by
/// partition).
fn timer_node(owner: TimerOwner, topo: &Topology, flows: &[FlowRt], eps: &[Endpoint]) -> Option<usize> {
    Some(match owner {
        TimerOwner::Flow(fi) => flow_node(fi, flows, eps),
        TimerOwner::Link { link, dir } => {
            let (a, b) = topo.link_ends[link];
            if dir == 0 {
                b
            } else {
                a
            }
        }
        TimerOwner::FlowStop(fi) => match &flows[fi].kind {
            FlowKind::Tcp(t) => eps[t.sender].node,
            FlowKind::Udp(_) => unreachable!("only a TCP flow's stop is an event of its own"),
        },
        TimerOwner::Tcp(ep) => eps[ep].node,
        TimerOwner::Qdisc(sta) => sta,
        TimerOwner::Agent { .. } | TimerOwner::Roam(_) => return None,
    })
}

/// The same-instant order of a world under `cut` (`kernel.rs`), and the
/// flows each partition samples (those whose destination it holds): the
/// partition of each cell, of each timer key of `k` by the node that
/// handles its events (`timer_node`) and of each flow's start
/// (`flow_node`). `None` for one partition, or for
/// timers of agents or roaming.
pub(super) fn order(
    cut: &WiredCut,
    k: &Kernel,
    topo: &Topology,
    flows: &[FlowRt],
    eps: &[Endpoint],
) -> Option<(Order, Vec<Vec<u32>>)> {
    if cut.parts < 2 || cut.parts > u16::MAX as usize {
        return None;
    }
    let mut keys = Vec::with_capacity(k.timer_keys());
    for key in 0..k.timer_keys() {
        keys.push(cut.part_of_node[timer_node(k.owner(key as u32), topo, flows, eps)?] as u16);
    }
    let cells = cut.part_of_cell.iter().map(|&p| p as u16).collect();
    let starts = (0..flows.len()).map(|fi| cut.part_of_node[flow_node(fi, flows, eps)] as u16).collect();
    let mut sampled = vec![Vec::new(); cut.parts];
    for (fi, f) in flows.iter().enumerate() {
        sampled[cut.part_of_node[f.dst()]].push(fi as u32);
    }
    Some((Order::new(cells, keys, starts, cut.parts), sampled))
}
