//! The agent trait: a packet hook at a node.
//!
//! The run loop calls [`Agent::on_packet`] for every packet that arrives
//! at the agent's node (from a wireless or wired interface, or handed down
//! by a local transport endpoint), in the order the agents were installed;
//! the first verdict other than [`Verdict::Pass`] ends the walk. Packets an
//! agent emits through [`AgentCtx::emit`] are routed from its node as if a
//! local endpoint had sent them (they do not pass the node's agents again),
//! each with a fresh packet id from the ledger. A copy of a packet the
//! agent saw (a cached segment replayed, a held segment handed on) goes
//! through [`AgentCtx::emit_copy`]: the run loop then knows what it copies,
//! and counts the data of an original and its copies at the flow's
//! receiver once.
use wifitcp_core::{DropReason, SimTime};
use wifitcp_wire::Packet;

/// How a packet reached the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrival {
    /// The node the agent sits at.
    pub node: usize,
    /// Whether the packet is addressed to this node (otherwise it is about
    /// to be forwarded).
    pub local: bool,
}

/// What happens to a packet after an agent saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Carry on: the next agent, then forwarding or local delivery.
    Pass,
    /// The agent took the packet (it ends here, counted as delivered at
    /// this node: a proxy terminating a connection).
    Consume,
    /// The agent discarded it, for this reason.
    Drop(DropReason),
}

/// What an agent may ask of the run loop while it handles an input.
#[derive(Debug, Default)]
pub struct AgentCtx {
    /// Each packet, and whether it is a copy (its `id` that of the packet
    /// it copies).
    emitted: Vec<(Packet, bool)>,
}

impl AgentCtx {
    /// Send `pkt` from the agent's node. Its `id` is replaced by a fresh
    /// one from the ledger.
    pub fn emit(&mut self, pkt: Packet) {
        self.emitted.push((pkt, false));
    }
    /// Send `pkt`, a copy of a packet this agent saw, whose `id` it still
    /// carries (the copied packet's, before the run loop replaces it). Its
    /// arrival at its flow's receiver counts as a delivery only if neither
    /// the original nor another copy of it arrived there before.
    pub fn emit_copy(&mut self, pkt: Packet) {
        self.emitted.push((pkt, true));
    }
    /// The packets emitted since the last call.
    pub fn take_emitted(&mut self) -> impl Iterator<Item = Packet> + '_ {
        self.emitted.drain(..).map(|(p, _)| p)
    }
    /// The packets emitted since the last call, each with whether it is a
    /// copy (for the run loop).
    pub fn take_emitted_marked(&mut self) -> std::vec::Drain<'_, (Packet, bool)> {
        self.emitted.drain(..)
    }
    pub fn has_emitted(&self) -> bool {
        !self.emitted.is_empty()
    }
}

/// A packet hook at a node: a proxy, a filter, a header rewriter, a tap.
pub trait Agent: Send {
    /// A short name (`pilosof`, `snoop`, ...), used in results.
    fn kind(&self) -> &'static str;
    /// A packet arrived at the node (see [`Arrival`]); it may be modified
    /// in place.
    fn on_packet(&mut self, now: SimTime, at: Arrival, pkt: &mut Packet, ctx: &mut AgentCtx) -> Verdict;
    /// The wake-up asked for by [`Agent::next_wakeup`] is due.
    fn on_timer(&mut self, _now: SimTime, _ctx: &mut AgentCtx) {}
    /// When the agent next needs [`Agent::on_timer`]; asked after every
    /// call into the agent.
    fn next_wakeup(&self) -> Option<SimTime> {
        None
    }
    /// The agent's counters for the results: a key of the node's record
    /// and its value.
    fn report(&self) -> Option<(&'static str, serde_json::Value)> {
        None
    }
}
