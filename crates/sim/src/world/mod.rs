//! The run loop: one event queue driving a scenario's network, whose state
//! is split into parts that each own theirs.
//!
//! Event order: by time, then in insertion order; in a world whose cells
//! are joined only by wired links, by time, then by the pushing partition
//! and its own insertion order (`kernel.rs`, "Same-instant order"); both
//! enforced by `EventQueue`.
//! Invariants checked at the end of every run: the packet ledger balances
//! (generated = delivered + dropped by reason + held in a buffer), and
//! every TCP receiver delivered one in-order byte stream without gaps or
//! duplicates.
//!
//! [`World`] holds the kernel and three parts, side by side:
//! - `kernel.rs` `Kernel`: the event queue and clock, the timer registry
//!   and the owner of every key, the packet ledger, the per-packet trace,
//!   the run's end, warm-up and sampling interval;
//! - `nodes.rs` `Nodes`: the topology (interfaces, addresses, routes, port
//!   tables), wired links, agents, external nodes with the driver's
//!   ingress and egress, a node's packet path (`receive`, `send_from`), the
//!   links' capture; and the roaming state (`roam.rs` `Roaming`: hand-offs
//!   between APs and the home agent's tunnel), which acts through the
//!   nodes;
//! - `cells.rs` `Cells`: the cells (one `Bss` per channel) and their
//!   outputs, the presence gates, the WLAN queue disciplines that feed the
//!   MACs, and the saturated sources' round robin;
//! - `flows.rs` `Flows`: applications (traffic sources, the echo
//!   responder's and ping's sockets) and TCP endpoints.
//!
//! Other files: `build.rs` builds a world from a scenario (positions, the
//! power game's equilibrium, the cells, queue disciplines, links, agents,
//! flows, roaming); `driver.rs` the public driver API (stepping's
//! companions: agents, external nodes, inject and drain, capture and
//! trace); `events.rs` the event encoding and the timer owners; `demux.rs`
//! the port tables' hasher; `cut.rs` the cut along wired links and the
//! order by partition it gives; `part.rs` partitioned runs; `window.rs`
//! windowed runs; `probe.rs` what windows of the wired links' latency
//! meet (`part.rs`, "Cells joined by wired links"); `shape.rs` the
//! shapes the per-event code is compiled for (any world, and one cell of
//! plain DCFs), picked by `step_until`.
//!
//! Partitioned runs (`part.rs`, whatever `scenario.threads`): a
//! scenario whose cells share no node or link that could carry a packet
//! between them (several channels, no wired link, no roaming, no agent)
//! is built as usual up to the MACs' first wake-ups, then split into one
//! world per cell (a partition: its own kernel, cell, members' queue
//! disciplines and flows, the topology shared read-only; or per group of
//! cells, `World::build_partitioned_in`), and the
//! partitions are stepped to the same instants in turn on the caller's
//! thread (`threads = 1`) or on a `rayon` pool. This is
//! conservative parallel simulation whose lookahead is unbounded (no
//! cross-partition message exists), so a partition never waits for
//! another. At the end the partitions merge back into one world (each
//! partition's ledger checked against its own held packets first), which
//! writes the result: the sequential run's byte for byte, because a
//! partition's events in the sequential run touch only its state and
//! keep their relative order (`part.rs` gives the argument;
//! `tests/partitioned.rs` compares the bytes). Cells joined by wired
//! links run, on two threads or more, as groups of whole partitions in
//! windows of the cut links' least latency, exchanging the packets that
//! cross at each barrier (`window.rs`): each group a whole world built
//! from the same scenario and seed that runs only its own partitions'
//! events, merged at the end into the sequential run's result byte for
//! byte. Every other run, and these on one thread, runs on the
//! sequential engine.
//!
//! Borrowing: per-event code that crosses parts is a method of the part it
//! starts in, and takes the kernel and the other parts it reaches as
//! `&mut` arguments (split borrows of the world's fields, taken by
//! `dispatch` and `step_one`): a packet's path is ordinary static calls,
//! with no pointer to the whole world, no trait object and no copy of the
//! packet for the split. The current instant is the kernel's
//! (`Kernel::now`).
//!
//! Invariants of the split: a part's fields are private to its file; the
//! kernel is the only state every part writes; a part learns of another's
//! state only through that part's methods (the cells read the topology
//! through `Nodes::topo`).
mod build;
mod cells;
mod cut;
pub(crate) mod demux;
mod driver;
mod events;
mod flows;
mod kernel;
mod members;
mod nodes;
mod part;
mod probe;
pub mod queues;
mod roam;
mod shape;
mod state;
mod window;

use cells::Cells;
pub use cut::WiredCut;
use events::{Ev, TimerOwner};
use flows::Flows;
use kernel::Kernel;
pub(crate) use nodes::Agents;
pub use nodes::Egress;
use nodes::Nodes;
pub use part::{Engine, Partitioned};
use shape::{General, OneDcfCell, Shape};

use crate::metrics::{self, RunResult};
use wifitcp_core::SimTime;
use wifitcp_wifi::mac::AnyMac;
use wifitcp_wifi::medium::Bss;

/// A scenario's network: its nodes (BSS members first, then wired nodes),
/// the cells, links, queue disciplines, agents, flows and TCP endpoints,
/// one event queue and the packet ledger. Built by [`World::build`],
/// driven by [`World::step_until`] (see the driver API in `driver.rs`), or
/// to the end by [`World::run`].
pub struct World {
    k: Kernel,
    nodes: Nodes,
    cells: Cells,
    flows: Flows,
}

impl World {
    /// Run to the end; returns the metrics.
    pub fn run(mut self, wall: std::time::Instant) -> Result<RunResult, String> {
        self.step_until(self.k.end);
        self.finish(wall)
    }

    /// The run's end instant (`scenario.duration_s`).
    pub fn end(&self) -> SimTime {
        self.k.end
    }

    /// The instant of the last event handled (zero before the first).
    pub fn now(&self) -> SimTime {
        self.k.now()
    }

    /// Events handled so far.
    pub fn events(&self) -> u64 {
        self.k.events()
    }

    /// The instant of the next event due at or before the run's end, if any.
    pub fn next_wakeup(&self) -> Option<SimTime> {
        self.k.next_at().filter(|&t| t <= self.k.end)
    }

    /// Handle every event due at or before `min(t, end)`, in (time,
    /// insertion) order. Stepping in pieces gives the same result as one
    /// step to the end: the event order does not depend on where a step
    /// stops.
    pub fn step_until(&mut self, t: SimTime) {
        let until = t.min(self.k.end);
        if self.one_dcf_cell() {
            while self.step_one(OneDcfCell, until) {}
        } else {
            while self.step_one(General, until) {}
        }
    }

    /// Whether the world is one cell of plain DCFs with its members at
    /// their node ids and events in insertion order (`shape.rs`,
    /// `OneDcfCell`): none of this changes while the world runs.
    fn one_dcf_cell(&self) -> bool {
        self.cells.one_dcf_cell() && self.k.insertion_order()
    }

    /// Handle the next event if it is due at or before `until`, and every
    /// cell output it led to; whether one was.
    #[inline(always)]
    fn step_one(&mut self, shape: impl Shape, until: SimTime) -> bool {
        match self.k.next_at() {
            Some(at) if at <= until => {
                let (now, ev) = self.k.pop(shape).expect("peeked");
                self.dispatch(shape, now, ev.ev());
                self.cells.drain_outputs(shape, &mut self.k, &mut self.nodes, &mut self.flows);
                true
            }
            _ => false,
        }
    }

    /// [`World::step_until`] handling at most `max` events; true if events
    /// due at or before `min(t, end)` are left (call again to go on: the
    /// events are handled in the same order as by one `step_until`).
    pub fn step_until_at_most(&mut self, t: SimTime, max: u64) -> bool {
        let until = t.min(self.k.end);
        let done = if self.one_dcf_cell() {
            (0..max).any(|_| !self.step_one(OneDcfCell, until))
        } else {
            (0..max).any(|_| !self.step_one(General, until))
        };
        !done && self.k.next_at().is_some_and(|at| at <= until)
    }

    /// Hand event `ev`, due at `now`, to the part it belongs to. (Each arm
    /// borrows the parts it passes on: splitting `self` once at the top
    /// costs every event the address of every part.)
    fn dispatch(&mut self, shape: impl Shape, now: SimTime, ev: Ev) {
        match ev {
            Ev::BssWake { cell } => self.cells.wake(shape, now, cell as usize),
            Ev::TxEnd { id, cell } => self.cells.tx_end(shape, now, id, cell as usize),
            Ev::FlowStart { fi } => {
                let (k, nodes, cells) = (&mut self.k, &mut self.nodes, &mut self.cells);
                self.flows.source_fires(shape, k, nodes, cells, fi as usize)
            }
            Ev::Timer { key, gen } => {
                let Some(owner) = self.k.due(key, gen, now) else {
                    return; // stale: re-armed or cancelled since
                };
                let (k, nodes, cells, flows) = (&mut self.k, &mut self.nodes, &mut self.cells, &mut self.flows);
                match owner {
                    TimerOwner::Flow(fi) => flows.source_fires(shape, k, nodes, cells, fi),
                    TimerOwner::FlowStop(fi) => flows.stop_fires(shape, k, nodes, cells, fi),
                    TimerOwner::Link { link, dir } => nodes.link_arrives(shape, k, cells, flows, link, dir),
                    TimerOwner::Tcp(ep) => flows.tcp_timer(shape, k, nodes, cells, ep),
                    TimerOwner::Qdisc(sta) => cells.qdisc_fires(shape, k, nodes, flows, sta),
                    TimerOwner::Agent { node, k: a } => nodes.agent_fires(shape, k, cells, flows, node, a),
                    TimerOwner::Roam(sta) => nodes.roam_fires(shape, k, cells, flows, sta),
                }
            }
            Ev::Ingress => self.nodes.ingress_due(shape, &mut self.k, &mut self.cells, &mut self.flows),
            Ev::Sample { part } => {
                // (one sampling instant is one event, whatever the
                // partitions: `Kernel::events`)
                if part == 0 {
                    self.k.samples += 1;
                } else {
                    self.k.more_samples += 1;
                }
                self.flows.sample(Some(part));
                if let Some(next) = self.k.sampling().next(now) {
                    self.k.push(shape, next, Ev::Sample { part });
                }
            }
        }
    }

    /// End the run at its end instant (events still queued after it are
    /// left undone), check its invariants and collect the metrics.
    pub fn finish(self, wall: std::time::Instant) -> Result<RunResult, String> {
        self.finish_with(wall, true, None, metrics::collect)
    }

    /// [`World::finish`], the result written to `out` as it is rendered
    /// with the top-level keys `extra` added (`metrics::write`).
    pub fn finish_to(
        self,
        wall: std::time::Instant,
        extra: &[(&str, serde_json::Value)],
        out: &mut dyn std::io::Write,
    ) -> Result<(), String> {
        self.finish_with(wall, true, None, |v| metrics::write(v, extra, out))?
    }

    /// End the run and hand its metrics to `emit` ([`World::finish`]),
    /// checking the packet ledger against the packets held if
    /// `check_ledger` (a partitioned run checks each partition's own,
    /// `part.rs`, before it merges their cells into this world).
    ///
    /// `parts`: a partitioned run's flows, each partition's with the global
    /// indices of its flows (`part.rs`), read in place; this world's own
    /// flows are then empty.
    fn finish_with<R>(
        self,
        wall: std::time::Instant,
        check_ledger: bool,
        mut parts: Option<Vec<Flows>>,
        emit: impl FnOnce(&metrics::RunView) -> R,
    ) -> Result<R, String> {
        let World { mut k, mut nodes, mut cells, mut flows } = self;
        if nodes.capturing() || k.trace.is_some() {
            cells.drop_taps();
        }
        nodes.finish_capture()?;
        if let Some(t) = k.trace.take() {
            t.finish()?;
        }
        flows.sample_end(&k.sampling());
        for f in parts.iter_mut().flatten() {
            f.sample_end(&k.sampling());
            f.check_end()?;
        }
        nodes.account_links(k.end);
        cells.ungroup_all();
        flows.check_end()?;
        // (the cells are read as `Bss<AnyMac>` from here on)
        let (cells, wq, at) = cells.into_parts();
        let queued: u64 = wq.iter().map(|q| q.len() as u64).sum();
        if check_ledger {
            let held = cells.iter().flat_map(|b| b.packets_in_service()).map(|p| p.id).chain(nodes.held());
            k.ledger.check(held, queued)?;
        }
        let cells: Vec<&Bss<AnyMac>> = cells.iter().collect();
        Ok(emit(&metrics::RunView {
            cells: &cells,
            at: at.as_deref(),
            handoffs: nodes.handoffs(),
            topo: nodes.topo(),
            flows: match &parts {
                None => metrics::FlowSeq::whole(flows.flows(), flows.name_table()),
                Some(p) => metrics::FlowSeq::parts(p.iter().map(|f| f.flows()).collect(), flows.name_table()),
            },
            eps: flows.eps(),
            wq: &wq,
            agents: nodes.agents(),
            links: nodes.links(),
            ledger: &k.ledger,
            sampling: k.sampling(),
            events: k.events(),
            wall_s: wall.elapsed().as_secs_f64(),
        }))
    }
}
