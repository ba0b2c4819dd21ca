//! The wired-partition probe: what windows of the wired links' latency
//! would meet in a run whose cells are joined by wired links
//! (`part.rs`'s module docs, "Cells joined by wired links").
//!
//! It runs the sequential engine (the events are the sequential run's)
//! and notes, per event, the partition it would belong to under the cut
//! `wired_cut` makes, and its lineage: the instant and partition of the
//! event that pushed it, of the one that pushed that, and so on (the event
//! queue's sequence numbers are consecutive, so the sequence numbers an
//! event's handling took are its pushes). From that it counts, at each
//! instant:
//! - `cross_arrivals`: arrivals over a cut link (cross-partition events),
//!   and of those `cross_armed_by_receiver`: pushed by the receiving
//!   partition's previous arrival on that link direction;
//! - `ties`: cross arrivals sharing their instant with another event of
//!   their partition (the insertion order decides which goes first);
//! - `ties_resolved_at_depth[d - 1]`: those whose order the lineages
//!   decide at level `d` (the first level where the two differ in instant
//!   or are of one partition, whose own insertion order then decides; the
//!   last entry: not within `DEPTH` levels);
//! - `order_pairs_checked`, `order_contradictions`: pairs of events of
//!   one instant (each with the next, and each tie) whose order the
//!   lineages decide, and those the engine handled the other way round
//!   (none: the lineage rule is the engine's order);
//! - `ambiguous`: ties not decided at level 1, the ones no
//!   partition-local rule reproduces (two events pushed at the same
//!   instant by events of different partitions; `part.rs`), with the
//!   instants of the first and the last;
//!
//! and, over windows of the lookahead `L` (the least latency of a cut
//! link) on the fixed grid `[wL, (w + 1)L)`: the windows with events (the
//! barriers), the events per window, and the bounds on the speed-up that
//! per-window barriers allow: the total over the sum over windows of the
//! busiest partition's events (any number of threads) and of
//! `max(busiest, total / 2)` (two threads). A sample counts once in each
//! partition (each has its own); a TCP flow's start, which opens both of
//! its endpoints, counts in its source's partition
//! (`flow_starts_in_two_partitions` says how many do so).
use super::events::{Ev, TimerOwner};
use super::World;
use crate::endpoints::FlowKind;
use serde_json::{json, Value};
use std::collections::HashMap;
use wifitcp_core::SimTime;

/// The push of an event made while the world was built (its order among
/// all events is known before any partition runs).
const BUILD: u32 = u32::MAX;
/// A sampling event: every partition has its own.
const EVERY: u32 = u32::MAX - 1;

/// The cut of a world's nodes into partitions along wired links (the
/// design in `part.rs`): each cell is a unit; a wired node is a unit; a
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

fn find(p: &mut [usize], mut x: usize) -> usize {
    while p[x] != x {
        p[x] = p[p[x]];
        x = p[x];
    }
    x
}

fn union(p: &mut [usize], a: usize, b: usize) {
    let (a, b) = (find(p, a), find(p, b));
    if a != b {
        // the smaller root wins: cells (units 0..) stay the roots
        let (lo, hi) = (a.min(b), a.max(b));
        p[hi] = lo;
    }
}

impl World {
    /// The cut of this world along its wired links (`WiredCut`).
    pub fn wired_cut(&self) -> WiredCut {
        let topo = self.nodes.topo();
        let members = self.cells.members();
        let n = topo.nodes.len();
        let n_cells = (0..members).map(|i| topo.cell_of(i) + 1).max().unwrap_or(1);
        let unit = |v: usize| if v < members { topo.cell_of(v) } else { n_cells + (v - members) };
        let mut p: Vec<usize> = (0..n_cells + (n - members)).collect();
        let links = self.nodes.links();
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

    /// Run to the end on the sequential engine and report what windows of
    /// the wired links' latency would meet (module docs). Errors: a world
    /// with agents, roaming or external nodes (never partitioned).
    pub fn probe_wired(mut self) -> Result<Value, String> {
        if self.nodes.roaming() || self.nodes.agents().iter().any(|a| !a.is_empty()) {
            return Err("agents and roaming are never partitioned".into());
        }
        let cut = self.wired_cut();
        let l_ns = cut.lookahead_ns.unwrap_or(u64::MAX);
        let parts = cut.parts;
        let build_end = self.k.next_seq();
        let end = self.k.end;
        // seq -> lineage of the queued events (`Lineage`)
        let mut pushed: HashMap<u64, Lineage> = HashMap::new();
        let mut group: Vec<(u32, bool, Lineage)> = Vec::new();
        // pushes made so far by each partition's events (then the build's
        // and the samples' own numbering)
        let mut pushes = vec![0u64; parts + 2];
        let mut group_at = SimTime::ZERO;
        let mut c = Counts::default();
        let mut window = u64::MAX;
        let mut per_part = vec![0u64; parts];
        let mut split_starts = 0u64;
        while let Some(at) = self.k.next_at().filter(|&t| t <= end) {
            let seq = self.k.peek_seq().expect("an event is due");
            let (now, code) = self.k.pop().expect("peeked");
            let ev = code.ev();
            let (part, cross) = self.part_of(&cut, ev, &mut split_starts)?;
            let lin = if seq < build_end {
                vec![(SimTime::ZERO, BUILD, seq)]
            } else {
                pushed.remove(&seq).expect("every push noted")
            };
            if at != group_at {
                c.instant(group_at, &group);
                group.clear();
                group_at = at;
            }
            c.events += 1;
            c.cross += cross as u64;
            c.cross_by_receiver += (cross && lin[0].1 == part) as u64;
            let w = if l_ns == u64::MAX { 0 } else { at.0 / l_ns };
            if w != window {
                c.window(&per_part);
                per_part.iter_mut().for_each(|x| *x = 0);
                window = w;
            }
            if part == EVERY {
                per_part.iter_mut().for_each(|x| *x += 1);
            } else {
                per_part[part as usize] += 1;
            }
            let before = self.k.next_seq();
            self.dispatch(now, ev);
            self.cells.drain_outputs(&mut self.k, &mut self.nodes, &mut self.flows);
            let slot = if part == EVERY { parts + 1 } else { part as usize };
            for s in before..self.k.next_seq() {
                let mut l = Vec::with_capacity(DEPTH);
                l.push((now, part, pushes[slot]));
                l.extend(lin.iter().take(DEPTH - 1).copied());
                pushes[slot] += 1;
                pushed.insert(s, l);
            }
            group.push((part, cross, lin));
        }
        c.instant(group_at, &group);
        c.window(&per_part);
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        Ok(json!({
            "partitions": parts,
            "cut_links": cut.cut.iter().filter(|&&x| x).count(),
            "lookahead_s": cut.lookahead_ns.map(|x| x as f64 * 1e-9),
            "events": c.events,
            "cross_arrivals": c.cross,
            "cross_armed_by_receiver": c.cross_by_receiver,
            "ties": c.ties,
            "ambiguous": c.ambiguous,
            "ambiguous_with_sample": c.ambiguous_sample,
            "ambiguous_first_s": c.first.map(|t| t.as_secs_f64()),
            "ambiguous_last_s": c.last.map(|t| t.as_secs_f64()),
            "ties_resolved_at_depth": c.depth,
            "order_pairs_checked": c.checked,
            "order_contradictions": c.contradictions,
            "flow_starts_in_two_partitions": split_starts,
            "barriers": c.windows,
            "events_per_window": ratio(c.work, c.windows),
            "speedup_bound_any_threads": ratio(c.work, c.critical),
            "speedup_bound_two_threads": ratio(c.work, c.two),
        }))
    }

    /// The partition of event `ev` under `cut` (`EVERY` for a sample), and
    /// whether it is an arrival over a cut link.
    fn part_of(&self, cut: &WiredCut, ev: Ev, split: &mut u64) -> Result<(u32, bool), String> {
        let topo = self.nodes.topo();
        let node = |v: usize| cut.part_of_node[v] as u32;
        Ok(match ev {
            Ev::BssWake { cell } | Ev::TxEnd { cell, .. } => (cut.part_of_cell[cell as usize] as u32, false),
            Ev::Sample => (EVERY, false),
            Ev::Ingress => return Err("injected packets are never partitioned".into()),
            Ev::Timer { key, .. } => match self.k.owner(key) {
                TimerOwner::Flow(fi) => {
                    let f = &self.flows.flows()[fi];
                    if let FlowKind::Tcp { client, sender, .. } = f.kind {
                        let eps = self.flows.eps();
                        if node(eps[client].node) != node(eps[sender].node) {
                            *split += 1;
                        }
                    }
                    (node(f.src), false)
                }
                TimerOwner::Link { link, dir } => {
                    let (a, b) = topo.link_ends[link];
                    (node(if dir == 0 { b } else { a }), cut.cut[link])
                }
                TimerOwner::Tcp(ep) => (node(self.flows.eps()[ep].node), false),
                TimerOwner::Qdisc(sta) => (node(sta), false),
                TimerOwner::Agent { .. } | TimerOwner::Roam(_) => {
                    return Err("agents and roaming are never partitioned".into())
                }
            },
        })
    }
}

/// How deep a lineage the probe keeps.
const DEPTH: usize = 8;

/// An event's pushes back through its ancestors, nearest first: the
/// instant, the partition of the event that pushed it and that
/// partition's count of pushes so far (its insertion order there). The
/// sequential order of two events due at one instant is the order of the
/// first level where their lineages differ in instant, or are of one
/// partition (that partition's insertion order); a level with the same
/// instant and different partitions defers to the next.
type Lineage = Vec<(SimTime, u32, u64)>;

/// The level (1-based) at which the order of two events due at one
/// instant is decided by their lineages, `None` if not within `DEPTH`.
fn decided_at(a: &Lineage, b: &Lineage) -> Option<usize> {
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        if x.0 != y.0 || x.1 == y.1 || x.1 == BUILD || y.1 == BUILD {
            return Some(k + 1);
        }
    }
    None
}

/// Whether the lineages put event `a` before `b` (both due at one
/// instant), if they decide it within `DEPTH` levels: at the deciding
/// level the earlier instant goes first; the build's pushes go before any
/// other and among themselves in their order; so do one partition's.
fn before(a: &Lineage, b: &Lineage) -> Option<bool> {
    let k = decided_at(a, b)? - 1;
    let (x, y) = (a[k], b[k]);
    Some(if x.0 != y.0 {
        x.0 < y.0
    } else if x.1 == y.1 {
        x.2 < y.2
    } else {
        x.1 == BUILD
    })
}

#[derive(Default)]
struct Counts {
    events: u64,
    cross: u64,
    cross_by_receiver: u64,
    ties: u64,
    ambiguous: u64,
    ambiguous_sample: u64,
    first: Option<SimTime>,
    last: Option<SimTime>,
    /// Ties decided at depth 1, 2, ..., `DEPTH`, and undecided.
    depth: [u64; DEPTH + 1],
    /// Pairs of events of one instant whose order the lineages decide,
    /// and of those the ones the sequential engine handled the other way
    /// round (none, if the lineage is the engine's order).
    checked: u64,
    contradictions: u64,
    windows: u64,
    work: u64,
    critical: u64,
    two: u64,
}

impl Counts {
    /// The events of instant `at`: (partition, cross, lineage) in the
    /// sequential order. A cross event is `ambiguous` if some other event
    /// of its partition then was pushed at the same instant by another
    /// partition's event (not decided at depth 1).
    fn instant(&mut self, at: SimTime, g: &[(u32, bool, Lineage)]) {
        if g.len() < 2 {
            return;
        }
        // the engine handled g[i] before g[i + 1]
        for w in g.windows(2) {
            self.check(&w[0].2, &w[1].2);
        }
        for (i, (part, cross, lin)) in g.iter().enumerate() {
            if !cross {
                continue;
            }
            let (mut tie, mut deepest, mut sample) = (false, 0, false);
            for (j, (q, _, other)) in g.iter().enumerate() {
                if i == j || (q != part && *q != EVERY) {
                    continue;
                }
                tie = true;
                if i < j {
                    self.check(lin, other);
                } else {
                    self.check(other, lin);
                }
                let d = decided_at(lin, other).unwrap_or(DEPTH + 1);
                if d > 1 && (*q == EVERY || lin[0].1 == EVERY || other[0].1 == EVERY) {
                    sample = true;
                }
                deepest = deepest.max(d);
            }
            if !tie {
                continue;
            }
            self.ties += 1;
            self.depth[deepest - 1] += 1;
            if deepest > 1 {
                self.ambiguous += 1;
                self.ambiguous_sample += sample as u64;
                self.first.get_or_insert(at);
                self.last = Some(at);
            }
        }
    }

    /// Events `a` and `b` were handled in this order: count whether their
    /// lineages decide it and agree.
    fn check(&mut self, a: &Lineage, b: &Lineage) {
        if let Some(first) = before(a, b) {
            self.checked += 1;
            self.contradictions += !first as u64;
        }
    }

    /// The events of one window, per partition.
    fn window(&mut self, per_part: &[u64]) {
        let total: u64 = per_part.iter().sum();
        if total == 0 {
            return;
        }
        let max = per_part.iter().copied().max().unwrap_or(0);
        self.windows += 1;
        self.work += total;
        self.critical += max;
        self.two += max.max(total.div_ceil(2));
    }
}

#[cfg(test)]
mod tests {
    use super::{before, decided_at, BUILD};
    use wifitcp_core::SimTime;

    #[test]
    fn lineages_decide_at_the_first_differing_instant_or_shared_partition() {
        let t = SimTime;
        // pushed at different instants: level 1
        let a = vec![(t(5), 0, 9), (t(1), 2, 0)];
        let b = vec![(t(6), 1, 0), (t(1), 2, 1)];
        assert_eq!((decided_at(&a, &b), before(&a, &b), before(&b, &a)), (Some(1), Some(true), Some(false)));
        // one partition at one instant: its own order
        let b = vec![(t(5), 0, 3), (t(2), 1, 0)];
        assert_eq!((decided_at(&a, &b), before(&a, &b)), (Some(1), Some(false)));
        // two partitions at one instant: the pushers' pushes decide
        let a = vec![(t(5), 0, 9), (t(4), 3, 7), (t(0), BUILD, 2)];
        let b = vec![(t(5), 1, 0), (t(4), 3, 8), (t(0), BUILD, 1)];
        assert_eq!((decided_at(&a, &b), before(&a, &b)), (Some(2), Some(true)));
        let b = vec![(t(5), 1, 0), (t(4), 2, 0), (t(0), BUILD, 1)];
        assert_eq!((decided_at(&a, &b), before(&a, &b)), (Some(3), Some(false)));
        // the build's pushes go first
        let b = vec![(t(5), 1, 0), (t(4), 2, 0), (t(0), 4, 0)];
        assert_eq!(before(&a, &b), Some(true));
        // not decided within the lineages kept
        let b = vec![(t(5), 1, 0), (t(4), 2, 0)];
        assert_eq!((decided_at(&a, &b), before(&a, &b)), (None, None));
    }
}
