//! The wired-partition probe: what windows of the wired links' latency
//! meet in a run whose cells are joined by wired links (`window.rs`;
//! `part.rs`'s module docs, "Cells joined by wired links"), measured on
//! the sequential engine.
//!
//! It runs the sequential engine (the events are the sequential run's,
//! in its order by partition: `kernel.rs`, "Same-instant order") and
//! notes, per event, the partition that handles it under the cut
//! `wired_cut` makes. It counts the arrivals over a cut link
//! (`cross_arrivals`, the messages a windowed run of one partition per
//! group exchanges at its barriers) and, over windows of the lookahead `L` (the least latency
//! of a cut link) on the fixed grid `[wL, (w + 1)L)`: the windows with
//! events (the barriers), the events per window, and the bounds on the
//! speed-up that per-window barriers allow: the total over the sum over
//! windows of the busiest partition's events (any number of threads) and
//! of `max(busiest, total / 2)` (two threads). Each partition samples its
//! own flows (a sampling instant counts once in `events`); a TCP flow's
//! start is its client's event and its stop its sender's.
//!
//! An event is counted as pushed by another partition when its tie-break
//! key names one: a link direction's arrival carries the key its sender
//! took at the offer (`Kernel::link_key`), whoever scheduled it, so the
//! lead measured is from the offer to the arrival.
use super::cut::WiredCut;
use super::events::{Ev, TimerOwner};
use super::kernel::Kernel;
use super::shape::General;
use super::World;
use serde_json::{json, Value};
use std::collections::HashMap;
use wifitcp_core::SimTime;

impl World {
    /// The cut of this world along its wired links (`WiredCut`).
    pub fn wired_cut(&self) -> WiredCut {
        super::cut::wired_cut(self.nodes.topo(), self.cells.members(), self.nodes.links())
    }

    /// Run to the end on the sequential engine and report what windows of
    /// the wired links' latency would meet (module docs). Errors: a world
    /// with agents, roaming or injected packets (never partitioned).
    pub fn probe_wired(mut self) -> Result<Value, String> {
        if !super::cut::orderable(&self.nodes) {
            return Err("agents and roaming are never partitioned".into());
        }
        let cut = self.wired_cut();
        let l_ns = cut.lookahead_ns.unwrap_or(u64::MAX);
        let parts = cut.parts;
        let end = self.k.end;
        let mut c = Counts { least_lead: u64::MAX, ..Counts::default() };
        let mut window = u64::MAX;
        let mut per_part = vec![0u64; parts];
        // the instant each queued event was pushed at, by key (the
        // build's pushes are not noted: each is its handler's own)
        let mut pushed_at: HashMap<u64, SimTime> = HashMap::new();
        while let Some(at) = self.k.next_at().filter(|&t| t <= end) {
            let key = self.k.peek_key().expect("an event is due");
            let (now, code) = self.k.pop(General).expect("peeked");
            let ev = code.ev();
            let cross = self.crosses(&cut, ev)?;
            // (the kernel's own map; a world of one partition has none)
            let part = self.k.part_of(ev).unwrap_or(0);
            let when = pushed_at.remove(&key);
            if self.k.pusher(key).is_some_and(|by| by != part) {
                c.foreign += 1;
                let lead = now.0 - when.expect("another partition's push is noted").0;
                c.least_lead = c.least_lead.min(lead);
                c.short += (lead < l_ns) as u64;
            }
            // (a sampling instant is one event: `Kernel::events`)
            c.events += !matches!(ev, Ev::Sample { part: 1.. }) as u64;
            c.cross += cross as u64;
            let w = if l_ns == u64::MAX { 0 } else { at.0 / l_ns };
            if w != window {
                c.window(&per_part);
                per_part.iter_mut().for_each(|x| *x = 0);
                window = w;
            }
            per_part[part] += 1;
            let before = self.k.pushes(part);
            self.dispatch(General, now, ev);
            self.cells.drain_outputs(General, &mut self.k, &mut self.nodes, &mut self.flows);
            for n in before..self.k.pushes(part) {
                pushed_at.insert(Kernel::key_of(part, n), now);
            }
        }
        c.window(&per_part);
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        Ok(json!({
            "partitions": parts,
            "ordered_by_partition": self.k.order_parts() == parts && parts > 1,
            "cut_links": cut.cut.iter().filter(|&&x| x).count(),
            "lookahead_s": cut.lookahead_ns.map(|x| x as f64 * 1e-9),
            "events": c.events,
            "cross_arrivals": c.cross,
            "pushed_by_another_partition": c.foreign,
            "least_lead_s": (c.foreign > 0).then_some(c.least_lead as f64 * 1e-9),
            "pushed_within_lookahead": c.short,
            "barriers": c.windows,
            "events_per_window": ratio(c.work, c.windows),
            "speedup_bound_any_threads": ratio(c.work, c.critical),
            "speedup_bound_two_threads": ratio(c.work, c.two),
        }))
    }

    /// Whether event `ev` is an arrival over a cut link.
    fn crosses(&self, cut: &WiredCut, ev: Ev) -> Result<bool, String> {
        Ok(match ev {
            Ev::Ingress => return Err("injected packets are never partitioned".into()),
            Ev::Timer { key, .. } => matches!(self.k.owner(key), TimerOwner::Link { link, .. } if cut.cut[link]),
            _ => false,
        })
    }
}

#[derive(Default)]
struct Counts {
    events: u64,
    cross: u64,
    /// Events pushed by another partition than theirs; the least time
    /// from such a push to its event (ns); those pushed less than the
    /// lookahead ahead.
    foreign: u64,
    least_lead: u64,
    short: u64,
    windows: u64,
    work: u64,
    critical: u64,
    two: u64,
}

impl Counts {
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
