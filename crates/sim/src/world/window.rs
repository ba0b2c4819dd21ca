//! Windowed runs: partitions joined by wired links, on several cores.
//!
//! A world whose cells reach each other only over wired links of positive
//! latency (a server behind the APs, a campus backhaul) is cut into
//! partitions (`cut.rs`), and its events are already ordered so that each
//! partition can reproduce its own share of the sequential run
//! (`kernel.rs`, "Same-instant order"). Such a run, on two threads or
//! more, runs as groups of whole partitions, one per thread, in windows of
//! the lookahead `L`, the least latency of a cut link (conservative
//! parallel simulation with barriers: Chandy & Misra 1979, Nicol 1993, as
//! Shadow and ns-3's distributed simulator use them).
//!
//! Each group is a whole world built from the same scenario and seed (the
//! build is deterministic), so nodes, flows, endpoints, port tables and
//! timer keys keep the whole run's indices; it keeps only the queued
//! events of its own partitions (under their keys) and runs only its own
//! cells, flows' ends and endpoints. A link direction whose far end is in
//! another group keeps its sending side here (queue limit, drops,
//! serialisation) and schedules no arrival: at each barrier its packets
//! are shipped, with their arrival instants and keys, to the receiving
//! group's copy of the direction, which schedules their arrivals from
//! there (`LinkDir::ship`, `LinkDir::inject`).
//!
//! The windows: with `T` the earliest event of any group, every group
//! handles its events due before `T + L`, then the groups exchange what
//! they shipped. A packet offered at `t >= T` arrives no earlier than
//! `t + L >= T + L`, so no group handles an event another group's window
//! could still cause; an arrival carries the key its sender took at the
//! offer, so its place among its instant's events is the sequential
//! run's.
//!
//! At the end every group's copies merge into one world, which writes the
//! result: a cell, its members' queue disciplines and a TCP endpoint are
//! their group's; a link direction is its sender's; a flow's record is
//! its destination's group's, with the counts its source keeps
//! (`generated`, `window_generated`, a ping's round trips) from the group
//! of the node that generates its packets; packet ids carry their group,
//! and each group's outcomes of other groups' packets are applied to
//! their own ledgers before the whole run's ledger is checked against the
//! packets every group holds (`Ledger::merge_groups`). The result is the
//! sequential run's byte for byte (`tests/partitioned.rs`).
//!
//! Invariants: every partition is in exactly one group; no group handles
//! an event at or after the window's end before the barrier; every
//! shipped packet crosses exactly one barrier and enters the receiving
//! pipe in offer order; the groups are stepped by one thread each at a
//! time.
use super::cells::Cells;
use super::cut::wired_cut;
use super::flows::Flows;
use super::kernel::Kernel;
use super::nodes::Nodes;
use super::part::{Engine, Part};
use super::World;
use crate::config::Scenario;
use crate::ledger::Ledger;
use crate::link::InPipe;
use crate::metrics::RunView;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use wifitcp_core::{ConfigError, SimDur, SimTime};

/// A windowed run (module docs).
pub struct Windowed {
    groups: Vec<Part>,
    pool: rayon::ThreadPool,
    /// The lookahead: the least latency of a link between two groups.
    lookahead: SimDur,
    /// Group of each node, and the cells each group holds.
    group_of_node: Vec<usize>,
    cells_of: Vec<Vec<usize>>,
    /// Receiving group of each link direction.
    dir_to: Vec<[usize; 2]>,
    end: SimTime,
    /// The instant every group has been stepped to.
    reached: SimTime,
    /// Windows run (barriers).
    windows: u64,
}

/// A world built up to its first wake-ups (`World::build_parts`).
pub(super) type Built = (Kernel, Nodes, Cells, Flows);

impl World {
    /// A run of `s` in `groups` groups on `threads` threads (module docs),
    /// `first` being its world as `World::build_parts` built it, if it can
    /// be windowed: its cells joined only by wired links of positive
    /// latency, each cell holding only its own members, no agent, roaming,
    /// external node or packet made before the first event. The sequential
    /// engine otherwise.
    pub(super) fn build_windowed(
        s: &Scenario,
        seed: u64,
        first: Built,
        threads: usize,
        groups: usize,
    ) -> Result<Engine, ConfigError> {
        let (k, nodes, cells, flows) = first;
        let cut = wired_cut(nodes.topo(), cells.members(), nodes.links());
        let lookahead = cut.lookahead_ns.filter(|&l| l > 0);
        let windowable = k.order_parts() > 1 && nodes.windowable() && cells.windowable() && k.ledger.generated() == 0;
        let (Some(l), true) = (lookahead, windowable) else {
            return Ok(Engine::Sequential(Box::new(World::start(k, nodes, cells, flows))));
        };
        // Partitions to groups: heaviest first, each to the least loaded
        // group so far (ties: the lower index). A partition's weight: two
        // per WLAN member (its MAC's events), one per wired node and one
        // per TCP endpoint.
        let mut weight = vec![0u64; cut.parts];
        for (v, &p) in cut.part_of_node.iter().enumerate() {
            weight[p] += if v < cells.members() { 2 } else { 1 };
        }
        for e in flows.eps() {
            weight[cut.part_of_node[e.node]] += 1;
        }
        let groups = groups.clamp(1, cut.parts);
        let mut order: Vec<usize> = (0..cut.parts).collect();
        order.sort_by_key(|&p| (std::cmp::Reverse(weight[p]), p));
        let mut load = vec![0u64; groups];
        let mut group_of_part = vec![0; cut.parts];
        for p in order {
            let g = (0..groups).min_by_key(|&g| (load[g], g)).expect("a group");
            group_of_part[p] = g;
            load[g] += weight[p];
        }
        let group_of_node: Vec<usize> = cut.part_of_node.iter().map(|&p| group_of_part[p]).collect();
        let n_cells = cut.part_of_cell.len();
        let cells_of: Vec<Vec<usize>> =
            (0..groups).map(|g| (0..n_cells).filter(|&c| group_of_part[cut.part_of_cell[c]] == g).collect()).collect();
        let dir_to: Vec<[usize; 2]> =
            nodes.topo().link_ends.iter().map(|&(a, b)| [group_of_node[b], group_of_node[a]]).collect();
        // (a direction leads out of group g if g sends on it and another
        // group receives)
        let ends = nodes.topo().link_ends.clone();
        let out_of = |g: usize, l: usize, d: usize| {
            let sender = if d == 0 { ends[l].0 } else { ends[l].1 };
            group_of_node[sender] == g && dir_to[l][d] != g
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| ConfigError::new("scenario.threads", format!("no thread pool: {e}")))?;
        // Each group's world, built and started on the pool (group 0's is
        // `first`): its ledger numbers its packets under its group, its
        // links to other groups only ship, its events are its partitions'.
        let group = |g: usize, built: Built| -> Part {
            let (mut k, mut nodes, cells, flows) = built;
            k.ledger = Ledger::of_group(g as u16);
            nodes.set_out(|l, d| out_of(g, l, d));
            let mut w = World::start(k, nodes, cells, flows);
            let mine: Vec<bool> = group_of_part.iter().map(|&h| h == g).collect();
            w.k.keep_events_of(&mine);
            Part(w)
        };
        let mut parts = vec![group(0, (k, nodes, cells, flows))];
        let build = |g: usize| World::build_parts(s, seed, &|m| s.mac.kind.get().build(m)).map(|b| group(g, b));
        parts.extend(pool.install(|| (1..groups).into_par_iter().map(build).collect::<Result<Vec<_>, _>>())?);
        if parts.iter().any(|p| p.0.k.ledger.generated() != 0) {
            // (a packet made while starting: every group would have made
            // it; such runs stay sequential)
            drop(parts);
            return Ok(Engine::Sequential(Box::new(World::build(s, seed)?)));
        }
        let end = parts[0].0.k.end;
        Ok(Engine::Windowed(Box::new(Windowed {
            groups: parts,
            pool,
            lookahead: SimDur(l),
            group_of_node,
            cells_of,
            dir_to,
            end,
            reached: SimTime::ZERO,
            windows: 0,
        })))
    }
}

/// What the threads of a windowed run share while it steps: the window's
/// end, a count of windows started, of groups done with the current one,
/// and whether the run stops (or a group failed).
struct Barrier {
    stop: AtomicU64,
    epoch: AtomicU64,
    done: AtomicUsize,
    quit: AtomicBool,
}

/// Wait until `ready`: spinning briefly (a window is tens to hundreds of
/// microseconds of work on each thread), then yielding the core.
fn wait_until(mut ready: impl FnMut() -> bool) {
    let mut spins = 0u32;
    while !ready() {
        if spins < 1 << 14 {
            std::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

/// Stops the workers when the caller's loop ends, also by a panic of its
/// own group (the pool's scope waits for the workers before it raises
/// it).
struct QuitOnDrop<'a>(&'a Barrier);

impl Drop for QuitOnDrop<'_> {
    fn drop(&mut self) {
        self.0.quit.store(true, Ordering::Release);
        self.0.epoch.fetch_add(1, Ordering::AcqRel);
    }
}

/// Counts a worker's window as done even if stepping panicked (the pool's
/// scope then raises the panic), so that the caller never waits forever.
struct DoneGuard<'a>(&'a Barrier, bool);

impl Drop for DoneGuard<'_> {
    fn drop(&mut self) {
        if !self.1 {
            self.0.quit.store(true, Ordering::Release);
        }
        self.0.done.fetch_add(1, Ordering::AcqRel);
    }
}

impl Windowed {
    /// The groups.
    pub(super) fn groups(&self) -> usize {
        self.groups.len()
    }

    pub(super) fn end(&self) -> SimTime {
        self.end
    }

    pub(super) fn reached(&self) -> SimTime {
        self.reached
    }

    /// Windows run so far.
    pub(super) fn windows(&self) -> u64 {
        self.windows
    }

    /// Events handled so far (each sampling instant counted once: a group
    /// counts the samples of partition 0 only if it holds it).
    pub(super) fn events(&self) -> u64 {
        self.groups.iter().map(|p| p.0.k.events()).sum()
    }

    /// Step every group to `min(t, end)`, window by window: with as many
    /// threads as groups, each group on its own thread for the whole call
    /// (group 0 on the caller's), meeting at each barrier; otherwise the
    /// groups in turn.
    pub(super) fn step_until(&mut self, t: SimTime) {
        let until = t.min(self.end);
        let (lookahead, dir_to) = (self.lookahead, &self.dir_to);
        let slots: Vec<Mutex<&mut Part>> = self.groups.iter_mut().map(Mutex::new).collect();
        let lock = |g: usize| slots[g].lock().expect("a group's thread panicked");
        let window = |windows: &mut u64| -> Option<SimTime> {
            let next = (0..slots.len()).filter_map(|g| lock(g).0.k.next_at()).min()?;
            (next <= until).then(|| {
                *windows += 1;
                (next + lookahead - SimDur(1)).min(until)
            })
        };
        let exchange = |stop: SimTime| exchange(&slots, dir_to, stop + SimDur(1));
        let mut windows = self.windows;
        if self.pool.current_num_threads() < slots.len() {
            while let Some(stop) = window(&mut windows) {
                for g in 0..slots.len() {
                    lock(g).0.step_until(stop);
                }
                exchange(stop);
            }
        } else {
            let b = Barrier {
                stop: AtomicU64::new(0),
                epoch: AtomicU64::new(0),
                done: AtomicUsize::new(0),
                quit: AtomicBool::new(false),
            };
            let workers = slots.len() - 1;
            self.pool.scope(|sc| {
                for g in 1..slots.len() {
                    let (b, slots) = (&b, &slots);
                    sc.spawn(move |_| {
                        let mut seen = 0;
                        loop {
                            wait_until(|| b.epoch.load(Ordering::Acquire) != seen);
                            seen = b.epoch.load(Ordering::Acquire);
                            if b.quit.load(Ordering::Acquire) {
                                return;
                            }
                            let mut guard = DoneGuard(b, false);
                            let stop = SimTime(b.stop.load(Ordering::Acquire));
                            slots[g].lock().expect("not poisoned").0.step_until(stop);
                            guard.1 = true;
                        }
                    });
                }
                let _quit = QuitOnDrop(&b);
                while let Some(stop) = window(&mut windows) {
                    b.stop.store(stop.0, Ordering::Release);
                    b.done.store(0, Ordering::Release);
                    b.epoch.fetch_add(1, Ordering::AcqRel);
                    lock(0).0.step_until(stop);
                    wait_until(|| b.done.load(Ordering::Acquire) == workers);
                    if b.quit.load(Ordering::Acquire) {
                        break;
                    }
                    exchange(stop);
                }
            });
        }
        self.windows = windows;
        self.reached = self.reached.max(until);
    }

    /// Merge the groups into one world and finish it (module docs).
    pub(super) fn finish<R>(mut self, wall: std::time::Instant, emit: impl FnOnce(&RunView) -> R) -> Result<R, String> {
        // (what is still in flight is held by its receiving group)
        let slots: Vec<Mutex<&mut Part>> = self.groups.iter_mut().map(Mutex::new).collect();
        exchange(&slots, &self.dir_to, self.end + SimDur(1));
        drop(slots);
        let events = self.events();
        let Windowed { groups, group_of_node, cells_of, .. } = self;
        let mut ws: Vec<World> = groups.into_iter().map(|p| p.0).collect();
        let mut held = Vec::new();
        let mut queued = 0;
        for (g, w) in ws.iter().enumerate() {
            let (ids, q) = w.cells.held_in(&cells_of[g]);
            held.extend(ids);
            held.extend(w.nodes.held());
            queued += q;
        }
        let (ledger, first) = Ledger::merge_groups(ws.iter_mut().map(|w| std::mem::take(&mut w.k.ledger)).collect());
        ledger.check(held.into_iter().map(|id| Ledger::merged_id(id, &first)), queued)?;
        let (base, rest) = ws.split_first_mut().expect("a group");
        let other = |g: usize| g.checked_sub(1);
        for (g, cs) in cells_of.iter().enumerate() {
            if let Some(h) = other(g) {
                for &c in cs {
                    base.cells.swap_cell(&mut rest[h].cells, c);
                }
            }
        }
        let ends = base.nodes.topo().link_ends.clone();
        for (l, &(a, b)) in ends.iter().enumerate() {
            for (dir, sender) in [(0, a), (1, b)] {
                if let Some(h) = other(group_of_node[sender]) {
                    base.nodes.swap_link(&mut rest[h].nodes, l, dir);
                }
            }
        }
        for ep in 0..base.flows.eps().len() {
            if let Some(h) = other(group_of_node[base.flows.eps()[ep].node]) {
                base.flows.swap_ep(&mut rest[h].flows, ep);
            }
        }
        for fi in 0..base.flows.flows().len() {
            let dst = group_of_node[base.flows.flows()[fi].dst()];
            let src = group_of_node[base.flows.generator(fi)];
            if let Some(h) = other(dst) {
                base.flows.swap_flow(&mut rest[h].flows, fi);
            }
            if src != dst {
                // (group 0's record went to the destination's group's slot)
                let from = if src == 0 { dst } else { src };
                base.flows.take_source_counts(&mut rest[from - 1].flows, fi);
            }
        }
        let mut w = ws.swap_remove(0);
        w.k.ledger = ledger;
        w.k.events_elsewhere = events - w.k.events();
        w.nodes.set_out(|_, _| false);
        w.finish_with(wall, false, None, emit)
    }
}

/// The barrier at `before`: every group's shipped packets into the
/// receiving groups' pipes, in group, link, direction and offer order.
fn exchange(slots: &[Mutex<&mut Part>], dir_to: &[[usize; 2]], before: SimTime) {
    let mut shipped: Vec<(u32, u8, InPipe)> = Vec::new();
    for slot in slots {
        slot.lock().expect("not poisoned").0.nodes.ship(before, &mut shipped);
        for (l, dir, x) in shipped.drain(..) {
            let (l, dir) = (l as usize, dir as usize);
            let mut to = slots[dir_to[l][dir]].lock().expect("not poisoned");
            let w = &mut to.0;
            w.nodes.take_shipped(&mut w.k, l, dir, x);
        }
    }
}
