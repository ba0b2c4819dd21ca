//! The driver API: agents at nodes, external nodes, packets injected into
//! and drained from the network, capture and trace. `run` is the
//! virtual-clock driver; the emulator drives the same calls from
//! wall-clock time. The state these calls change belongs to the parts
//! (`Nodes` for agents, external nodes, ingress and egress; `Cells` for
//! the frame taps; the kernel for the trace and the run's end).
use super::World;
use wifitcp_core::SimTime;
use wifitcp_net::Agent;
use wifitcp_wire::Packet;

impl World {
    /// Capture every interface's packets into pcap files in `dir` (see
    /// `crate::capture`); call before stepping. An unwritable directory is
    /// an error now; a write error later fails the run at `finish`.
    pub fn capture_to(&mut self, dir: &std::path::Path) -> Result<(), String> {
        let c = crate::capture::Capture::create(dir)?;
        let is_ap = (0..self.cells.members()).map(|i| self.nodes.topo().is_ap(i)).collect();
        self.cells.add_frame_tap(c.wlan_tap(self.cells.standard(), is_ap));
        self.nodes.set_capture(c);
        Ok(())
    }

    /// Write the per-packet trace of the run into `dir/packets.parquet` (see
    /// `crate::trace`); call before stepping.
    pub fn trace_to(&mut self, dir: &std::path::Path) -> Result<(), String> {
        let t = crate::trace::PacketTrace::create(dir, self.node_names(), self.flows.names())?;
        self.cells.add_frame_tap(t.wlan_tap());
        self.k.trace = Some(t);
        Ok(())
    }

    /// Install `agent` at `node`, after the node's other agents (see
    /// `wifitcp_net::agent`). The index of nodes is the topology's: BSS
    /// members first (APs and stations), then wired nodes.
    pub fn add_agent(&mut self, node: usize, agent: Box<dyn Agent>) -> Result<(), String> {
        self.nodes.add_agent(&mut self.k, node, agent)
    }

    // ------------------------------------------------------------------
    // Driver API: a virtual-clock driver (`run`) and a wall-clock one (the
    // emulator) both step the network with `step_until` and exchange
    // packets with the outside through external nodes.

    /// Mark `node` external: packets addressed to it leave the simulation
    /// through [`World::drain_egress`] (counted as delivered), and it
    /// sends through [`World::inject`].
    pub fn set_external(&mut self, node: usize) -> Result<(), String> {
        self.nodes.set_external(node)
    }

    /// Send `packet` from `node` at instant `at` (no earlier than the last
    /// instant stepped to, nor than an earlier injection). It is handled
    /// when a step reaches `at`, as a new packet of the ledger (its id is
    /// replaced).
    pub fn inject(&mut self, at: SimTime, node: usize, packet: Packet) -> Result<(), String> {
        self.nodes.inject(&mut self.k, at, node, packet)
    }

    /// The packets that reached external nodes since the last call, in the
    /// order they arrived.
    pub fn drain_egress(&mut self) -> Vec<super::Egress> {
        self.nodes.drain_egress()
    }

    /// The names of the nodes, by index (BSS members first, then wired
    /// nodes); node `i` has address `topology::addr_of(i)`.
    pub fn node_names(&self) -> Vec<String> {
        self.nodes.topo().names().iter().map(String::from).collect()
    }

    /// Bring the run's end forward to `t` (never before the last instant
    /// handled, never after the scenario's end): for a driver whose run
    /// length is decided while it runs (the emulator ends when the command
    /// it runs exits). Events after the new end are left undone, as at
    /// the scenario's end.
    pub fn end_early(&mut self, t: SimTime) {
        self.k.end = t.max(self.k.now()).min(self.k.end);
    }

    /// The end of the warm-up (`scenario.warmup_s`).
    pub fn warmup(&self) -> SimTime {
        self.k.warmup
    }

    /// The index of the node named `name`.
    pub fn node_index(&self, name: &str) -> Option<usize> {
        self.nodes.topo().names().position(name)
    }
}
