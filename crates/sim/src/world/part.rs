//! Partitioned runs: the cells of different channels on several cores.
//!
//! A scenario's cells (one per channel, or per group of channels that leak
//! into each other, `Scenario::cells`) interact only through the nodes
//! and links they share. When they share none that carries anything, a
//! run splits into partitions, one per cell, that each run on their own
//! (conservative parallel discrete-event simulation with no cross-partition
//! message: the lookahead is unbounded), and merges them back at the end
//! into one world whose result is the sequential run's byte for byte (the
//! cells merged; the flows read in place from the partitions, in flow
//! order, `metrics::FlowSeq`).
//!
//! Partition p holds cell p (its `Bss` and members' MACs; or a group of
//! consecutive cells, `World::build_partitioned_in`), its members'
//! queue disciplines and saturated sources, the flows whose source is one
//! of its members (renumbered from 0: a flow's index is its packets'
//! `FlowId`), its own kernel (event queue, a timer registry of its own
//! components' keys, its own packet ledger) and a copy of the nodes' per-node flags, sharing the topology
//! read-only (`Arc`). A flow whose source is a wired node goes with its
//! destination's partition. Each partition keeps its own sampling events
//! (every partition samples its own flows at the same instants).
//!
//! When a run can be partitioned (`Engine::build`, whatever
//! `scenario.threads`; `Engine::sequential` never partitions): several cells, no roaming, no wired link (nothing can cross from a
//! cell to another: a packet for another cell's member is dropped at the
//! first AP that has no route, inside the sender's partition), no agent,
//! no TCP flow (an endpoint's index is bound in the shared port tables),
//! and a driver that only steps and finishes (no capture, trace, external
//! node or injected packet: the CLI's and the Python API's plain runs).
//! Cells joined by wired links run in windows on two threads or more
//! (below, and `window.rs`). Anything else runs sequentially: results are
//! the same either way, so the fallback changes only the wall time.
//!
//! Why the result is the sequential run's: the sequential run handles
//! events in (time, insertion) order, and an event of partition p reads
//! and changes only p's state (its cell, its members' queues, its flows;
//! the nodes' state the packet path changes without links or agents is
//! none). The order of p's events among themselves in the sequential run
//! is therefore p's own (time, insertion) order: a partition's events are
//! pushed in the same relative order in both (its flows' starts,
//! handed over in queue order, then its MACs' first wake-ups, then its
//! samples), and every later push comes from one of its own events. What
//! the partitions share in the sequential run only counts: packet ids
//! (each partition numbers its packets from 0; no model reads an id but
//! the ledger) and the event count (each partition counts the sampling
//! events, counted once when merged). The tests compare the result JSON
//! of the sequential engine with the partitioned one on one thread and on
//! two, byte for byte (`tests/partitioned.rs`).
//!
//! Invariants: every cell and every flow is in exactly one partition; a
//! partition's per-member tables hold its own members only, at their slots
//! (`MemberMap::part`); while the partitions run, the whole run's queue
//! discipline slots are empty (`queues.rs`) and never used; between `Engine::step_until` calls no
//! partition is borrowed; the merged ledger is each partition's ledger,
//! checked against its own held packets first, appended in partition
//! order.
//!
//! Threads: a `rayon` pool of `scenario.threads` threads (0: one per
//! core) steps the partitions to the same instant and joins; each
//! partition is stepped by one thread at a time.
//!
//! # Cells joined by wired links
//!
//! A scenario whose cells reach each other over wired links (a server
//! behind the APs, a campus backhaul) runs on the sequential engine on one
//! thread, and in windows of the cut links' least latency on two or more
//! (`window.rs`): conservative parallel simulation with the links'
//! latency as lookahead (Chandy & Misra 1979; Bryant 1977; the barrier
//! windows of YAWNS, Nicol 1993, as Shadow and ns-3's distributed
//! simulator use them). `cut.rs` makes the cut (each cell a unit, each
//! wired node a unit; a link of zero latency, or between two wired nodes,
//! joins its ends' units; a group of wired nodes linked to one cell only
//! joins it; every other link is cut), `kernel.rs` orders the sequential
//! run's same-instant events by partition (an event is keyed by the
//! partition whose event pushed it and that partition's count of pushes;
//! a link arrival by its sender at the offer), which is the order each
//! group of a windowed run reproduces from its own partitions' histories,
//! and `World::probe_wired` (`probe.rs`, the `wired_probe` example)
//! measures on the sequential engine what windows meet: the events per
//! window and the bound on their speed-up (`docs/validation.md` 24.7).
use super::cells::{Cells, CellsShell};
use super::events::{Ev, TimerOwner};
use super::flows::Flows;
use super::kernel::Kernel;
use super::nodes::Nodes;
use super::shape::General;
use super::window::Windowed;
use super::World;
use crate::config::Scenario;
use crate::metrics::RunResult;
use crate::names::Names;
use rayon::prelude::*;
use std::borrow::Borrow;
use wifitcp_core::{ConfigError, SimTime};

/// A run: sequential (one event queue), or partitioned.
pub enum Engine {
    Sequential(Box<World>),
    Partitioned(Box<Partitioned>),
    Windowed(Box<Windowed>),
}

impl Engine {
    /// Build a run of `s` with seed `seed` on `threads` threads (0: every
    /// core; 1: the caller's): partitioned if it can be (module docs),
    /// sequential otherwise. On one thread too: each partition's state
    /// stays in the caches while it runs, which halves the CPU time of a
    /// 64-cell campus against the one event queue (docs/performance.md).
    ///
    /// Given the scenario itself rather than a reference, it drops it once
    /// the world is built, before the partitions are split: a campus's
    /// per-station lists (association, peers, about 60 bytes a station)
    /// are then not held beside the world at the split, the heap's peak
    /// with several cells.
    pub fn build(s: impl Borrow<Scenario>, seed: u64, threads: usize) -> Result<Engine, ConfigError> {
        World::build_partitioned_in(s, seed, threads, None)
    }

    /// The sequential engine (one event queue), whatever the scenario:
    /// what a capture, a trace or the driver API needs.
    pub fn sequential(s: &Scenario, seed: u64) -> Result<Engine, ConfigError> {
        Ok(Engine::Sequential(Box::new(World::build(s, seed)?)))
    }

    /// The run's end instant.
    pub fn end(&self) -> SimTime {
        match self {
            Engine::Sequential(w) => w.end(),
            Engine::Partitioned(p) => p.end,
            Engine::Windowed(w) => w.end(),
        }
    }

    /// Events handled so far.
    pub fn events(&self) -> u64 {
        match self {
            Engine::Sequential(w) => w.events(),
            Engine::Partitioned(p) => p.events(),
            Engine::Windowed(w) => w.events(),
        }
    }

    /// Whether the run is partitioned.
    pub fn partitions(&self) -> usize {
        match self {
            Engine::Sequential(_) => 1,
            Engine::Partitioned(p) => p.parts.len(),
            Engine::Windowed(w) => w.groups(),
        }
    }

    /// The windows (barriers) a windowed run has gone through so far; 0 for
    /// the other engines.
    pub fn windows(&self) -> u64 {
        match self {
            Engine::Windowed(w) => w.windows(),
            _ => 0,
        }
    }

    /// Handle every event due at or before `min(t, end)` (`World::step_until`).
    pub fn step_until(&mut self, t: SimTime) {
        match self {
            Engine::Sequential(w) => w.step_until(t),
            Engine::Partitioned(p) => p.step_until(t),
            Engine::Windowed(w) => w.step_until(t),
        }
    }

    /// `World::step_until_at_most`; a partitioned run steps to `t` at once
    /// and returns false.
    pub fn step_until_at_most(&mut self, t: SimTime, max: u64) -> bool {
        match self {
            Engine::Sequential(w) => w.step_until_at_most(t, max),
            Engine::Partitioned(p) => {
                p.step_until(t);
                false
            }
            Engine::Windowed(w) => {
                w.step_until(t);
                false
            }
        }
    }

    /// The instant of the last event handled (a partitioned run: the
    /// instant every partition has been stepped to).
    pub fn now(&self) -> SimTime {
        match self {
            Engine::Sequential(w) => w.now(),
            Engine::Partitioned(p) => p.reached,
            Engine::Windowed(w) => w.reached(),
        }
    }

    /// End the run and collect the metrics (`World::finish`).
    pub fn finish(self, wall: std::time::Instant) -> Result<RunResult, String> {
        match self {
            Engine::Sequential(w) => w.finish(wall),
            Engine::Partitioned(p) => (*p).finish(wall, crate::metrics::collect),
            Engine::Windowed(w) => (*w).finish(wall, crate::metrics::collect),
        }
    }

    /// End the run and write its result to `out` as it is rendered, with
    /// the top-level keys `extra` added (`World::finish_to`).
    pub fn finish_to(
        self,
        wall: std::time::Instant,
        extra: &[(&str, serde_json::Value)],
        out: &mut dyn std::io::Write,
    ) -> Result<(), String> {
        match self {
            Engine::Sequential(w) => w.finish_to(wall, extra, out),
            Engine::Partitioned(p) => (*p).finish(wall, |v| crate::metrics::write(v, extra, out))?,
            Engine::Windowed(w) => (*w).finish(wall, |v| crate::metrics::write(v, extra, out))?,
        }
    }

    /// Run to the end; returns the metrics.
    pub fn run(mut self, wall: std::time::Instant) -> Result<RunResult, String> {
        let end = self.end();
        self.step_until(end);
        self.finish(wall)
    }
}

/// A partition: a world of its own (module docs); also a group of a
/// windowed run (`window.rs`).
pub(super) struct Part(pub(super) World);

// SAFETY: a `World` is not `Send` only for what it holds by `Rc` (an
// MSDU's handles, `wifitcp_wifi::mac::Msdu`: the transmitting MAC's and
// the medium's) and by trait objects not declared `Send` (MACs, error
// models, traffic sources), none of which uses thread-local state. Every
// `Rc` a partition holds was made in it (no packet exists when the
// partitions are made, and none crosses between them: there is no link),
// and every `Rc` a group of a windowed run holds was made in it (`window.rs`:
// each group's world is built whole on one thread, and what crosses
// between groups is a plain `Packet` copied out of a link's pipe at a
// barrier, while no group runs), so all the handles of one `Rc` are in
// one part, and a part is stepped by one thread at a time (the pool
// joins, or the barrier waits, before anything else touches it). Moving a
// whole part between threads is then sound.
unsafe impl Send for Part {}

/// A partitioned run (module docs).
pub struct Partitioned {
    parts: Vec<Part>,
    /// `None`: step the partitions on the caller's thread, in order.
    pool: Option<rayon::ThreadPool>,
    /// What stays of the world while the partitions run: the kernel (its
    /// end, warm-up, sampling interval; no event), the nodes, the cells'
    /// shell, and which cells and flows each partition holds.
    k: Kernel,
    nodes: Nodes,
    cells: CellsShell,
    cells_of: Vec<Vec<usize>>,
    /// Every flow's name, by global flow index.
    flow_names: Names,
    end: SimTime,
    /// The instant every partition has been stepped to.
    reached: SimTime,
}

impl World {
    /// A run of `s` partitioned among its cells on `threads` threads (0:
    /// every core; 1: the partitioned algorithm on the caller's thread),
    /// or sequential if it cannot be partitioned (module docs).
    pub fn build_partitioned(s: impl Borrow<Scenario>, seed: u64, threads: usize) -> Result<Engine, ConfigError> {
        World::build_partitioned_in(s, seed, threads, None)
    }

    /// [`World::build_partitioned`] with the cells in `groups` partitions
    /// of consecutive cells (`None`: one per cell, which was the fastest
    /// on `bench/campus`: the smaller a partition, the longer its state
    /// stays in the caches while it runs). The result is the same for any
    /// grouping.
    pub fn build_partitioned_in(
        s: impl Borrow<Scenario>,
        seed: u64,
        threads: usize,
        groups: Option<usize>,
    ) -> Result<Engine, ConfigError> {
        let sc = s.borrow();
        let (k, nodes, cells, flows) = World::build_parts(sc, seed, &|m| sc.mac.kind.get().build(m))?;
        if !(nodes.partitionable() && cells.partitionable() && flows.partitionable() && k.ledger.generated() == 0) {
            let threads = if threads == 0 { rayon::current_num_threads() } else { threads };
            if threads > 1 && k.order_parts() > 1 {
                return World::build_windowed(sc, seed, (k, nodes, cells, flows), threads, threads);
            }
            return Ok(Engine::Sequential(Box::new(World::start(k, nodes, cells, flows))));
        }
        // (a scenario given by value is dropped here: the split needs
        // nothing of it)
        drop(s);
        let pool = if threads == 1 {
            None
        } else {
            let b = rayon::ThreadPoolBuilder::new().num_threads(threads);
            Some(b.build().map_err(|e| ConfigError::new("scenario.threads", format!("no thread pool: {e}")))?)
        };
        Ok(Engine::Partitioned(Box::new(Partitioned::split(k, nodes, cells, flows, pool, groups))))
    }
}

impl World {
    /// A run of `s` whose cells are joined by wired links, in `groups`
    /// windowed groups on `threads` threads (`window.rs`; fewer threads
    /// than groups: the groups in turn on the caller's thread), or
    /// sequential if it cannot be windowed. The result is the same for any
    /// number of groups and threads (the tests use it on one thread).
    pub fn build_windowed_in(s: &Scenario, seed: u64, threads: usize, groups: usize) -> Result<Engine, ConfigError> {
        let built = World::build_parts(s, seed, &|m| s.mac.kind.get().build(m))?;
        World::build_windowed(s, seed, built, threads, groups)
    }
}

impl Partitioned {
    /// Split a world built up to its first wake-ups (`World::build_parts`,
    /// every part partitionable) into `groups` partitions of consecutive
    /// cells (`None`: one per cell), and start each.
    fn split(
        mut k: Kernel,
        nodes: Nodes,
        cells: Cells,
        flows: Flows,
        pool: Option<rayon::ThreadPool>,
        groups: Option<usize>,
    ) -> Partitioned {
        let topo = nodes.topo();
        let n_cells = (0..cells.members()).map(|i| topo.cell_of(i) + 1).max().unwrap_or(1);
        let groups = groups.unwrap_or(n_cells).clamp(1, n_cells);
        let part_of_cell: Vec<usize> = (0..n_cells).map(|c| c * groups / n_cells).collect();
        let cells_of: Vec<Vec<usize>> =
            (0..groups).map(|p| (0..n_cells).filter(|&c| part_of_cell[c] == p).collect()).collect();
        let n_parts = groups;
        // A flow goes with its source's cell (its destination's if its
        // source is a wired node).
        let part_of_flow: Vec<usize> = flows
            .flows()
            .iter()
            .map(|f| match (f.src() < cells.members(), f.dst() < cells.members()) {
                (true, _) => part_of_cell[topo.cell_of(f.src())],
                (false, true) => part_of_cell[topo.cell_of(f.dst())],
                (false, false) => 0,
            })
            .collect();
        let (pflows, flow_names) = flows.split(&part_of_flow, n_parts);
        let mut flow_local = vec![0; part_of_flow.len()];
        for pf in &pflows {
            for (l, f) in pf.flows().iter().enumerate() {
                flow_local[f.index()] = l;
            }
        }
        let (mut pcells, shell) = cells.split(&cells_of, &flow_local);
        let mut pflows = pflows;
        // Each partition registers its own components' timer keys (its
        // members' queue disciplines, its flows), so its registry holds
        // only those.
        let mut kernels: Vec<Kernel> = (0..n_parts).map(|_| k.part()).collect();
        // The queued events (the flows' starts, one per flow) queued again
        // in their partitions, in queue order (consecutive flows of a
        // partition starting at one instant as one entry, as `build_flows`
        // queues them).
        let mut starts: Vec<Vec<(SimTime, Ev)>> = vec![Vec::new(); n_parts];
        for (at, ev) in k.take_events() {
            let Ev::FlowStart { fi } = ev else { unreachable!("only flows' starts are queued before the start") };
            let fi = fi as usize;
            starts[part_of_flow[fi]].push((at, Ev::FlowStart { fi: flow_local[fi] as u32 }));
        }
        // (their registries and event queues sized once: grown by
        // doubling, they would hold up to twice their keys and entries)
        for (((pk, pc), pf), st) in kernels.iter_mut().zip(&mut pcells).zip(&mut pflows).zip(starts) {
            pk.reserve_timers(pc.timed_qdiscs() + pf.timed());
            pk.reserve_events(pk.entries_of(&st) + 64);
            pc.register_qdisc_timers(|node| pk.new_timer(TimerOwner::Qdisc(node)));
            pf.register_timers(|fi| pk.new_timer(TimerOwner::Flow(fi)));
            pk.push_events(General, st);
        }
        k.drop_timers();
        let parts = kernels
            .into_iter()
            .zip(pcells)
            .zip(pflows)
            .map(|((pk, pc), pf)| Part(World::start(pk, nodes.part(), pc, pf)))
            .collect();
        let end = k.end;
        Partitioned { parts, pool, k, nodes, cells: shell, cells_of, flow_names, end, reached: SimTime::ZERO }
    }

    /// Events handled so far (each sampling instant counted once).
    fn events(&self) -> u64 {
        let sum: u64 = self.parts.iter().map(|p| p.0.k.events()).sum();
        let samples = self.parts.first().map_or(0, |p| p.0.k.samples);
        sum - samples * (self.parts.len() as u64 - 1)
    }

    /// Step every partition to `min(t, end)`.
    fn step_until(&mut self, t: SimTime) {
        let step = |p: &mut Part| p.0.step_until(t);
        match &self.pool {
            None => self.parts.iter_mut().for_each(step),
            Some(pool) => pool.install(|| self.parts.par_iter_mut().for_each(step)),
        }
        self.reached = self.reached.max(t.min(self.end));
    }

    /// Check each partition's ledger against the packets it holds, merge
    /// the partitions' cells back into one world and finish it, reading
    /// the flows where the partitions hold them.
    fn finish<R>(
        self,
        wall: std::time::Instant,
        emit: impl FnOnce(&crate::metrics::RunView) -> R,
    ) -> Result<R, String> {
        let events = self.events();
        let Partitioned { parts, mut k, nodes, cells, cells_of, flow_names, .. } = self;
        let (mut pcells, mut pflows) = (Vec::new(), Vec::new());
        for (i, Part(w)) in parts.into_iter().enumerate() {
            let World { k: pk, cells: c, flows: f, .. } = w;
            let (held, queued) = c.held();
            pk.ledger.check(held.into_iter(), queued).map_err(|e| format!("partition {i} (cell {i}): {e}"))?;
            k.ledger.absorb(pk.ledger);
            pcells.push(c);
            pflows.push(f);
        }
        k.events_elsewhere = events - k.events();
        let cells = Cells::merge(pcells, &cells_of, cells);
        let flows = Flows::new(Vec::new(), Vec::new(), Vec::new(), Vec::new(), flow_names);
        World { k, nodes, cells, flows }.finish_with(wall, false, Some(pflows), emit)
    }
}
