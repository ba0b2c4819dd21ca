//! The driver API: agents at nodes, external nodes, packets injected into
//! and drained from the network. `run` is the virtual-clock driver; the
//! emulator drives the same calls from wall-clock time.
use super::*;

/// A packet that reached an external node (see [`World::set_external`]).
#[derive(Debug, Clone)]
pub struct Egress {
    pub at: SimTime,
    pub node: usize,
    pub packet: Packet,
}

impl World {
    /// Capture every interface's packets into pcap files in `dir` (see
    /// `crate::capture`); call before stepping. An unwritable directory is
    /// an error now; a write error later fails the run at `finish`.
    pub fn capture_to(&mut self, dir: &std::path::Path) -> Result<(), String> {
        let c = crate::capture::Capture::create(dir)?;
        let is_ap = (0..self.cell0.bss.len()).map(|i| self.topo.is_ap(i)).collect();
        self.add_frame_tap(c.wlan_tap(self.standard, is_ap));
        self.capture = Some(c);
        Ok(())
    }

    /// Write the per-packet trace of the run into `dir/packets.parquet` (see
    /// `crate::trace`); call before stepping.
    pub fn trace_to(&mut self, dir: &std::path::Path) -> Result<(), String> {
        let names = self.topo.nodes.iter().map(|n| n.name.clone()).collect();
        let flow_names = self.flows.iter().map(|f| f.stats.name.clone()).collect();
        let t = crate::trace::PacketTrace::create(dir, names, flow_names)?;
        self.add_frame_tap(t.wlan_tap());
        self.trace = Some(t);
        Ok(())
    }

    /// Add a tap to the medium's (a capture and a trace may both listen).
    /// With several cells the tap sees cell 0's frames (AP 0's channel)
    /// only: a monitor radio listens on one channel.
    fn add_frame_tap(&mut self, tap: Box<dyn wifitcp_wifi::medium::FrameTap>) {
        let tap = match with_bss!(&mut self.cell0.bss, b => b.take_tap()) {
            None => tap,
            Some(old) => Box::new(crate::trace::Taps(vec![old, tap])),
        };
        with_bss!(&mut self.cell0.bss, b => b.set_tap(Some(tap)));
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
        self.arm_agent(node, k);
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

    pub(super) fn update_hooked(&mut self) {
        self.hooked = (0..self.topo.nodes.len()).map(|i| self.external[i] || !self.agents[i].is_empty()).collect();
    }

    /// The names of the nodes, by index (BSS members first, then wired
    /// nodes); node `i` has address `topology::addr_of(i)`.
    pub fn node_names(&self) -> Vec<String> {
        self.topo.nodes.iter().map(|n| n.name.clone()).collect()
    }

    /// Bring the run's end forward to `t` (never before the last instant
    /// handled, never after the scenario's end): for a driver whose run
    /// length is decided while it runs (the emulator ends when the command
    /// it runs exits). Events after the new end are left undone, as at
    /// the scenario's end.
    pub fn end_early(&mut self, t: SimTime) {
        self.end = t.max(self.q.now()).min(self.end);
    }

    /// The end of the warm-up (`scenario.warmup_s`).
    pub fn warmup(&self) -> SimTime {
        self.warmup
    }

    /// The index of the node named `name`.
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.topo.nodes.iter().position(|n| n.name == name)
    }
}
