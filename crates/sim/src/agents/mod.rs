//! The agents a scenario installs at its nodes, and the registry that
//! builds them. An agent ([`wifitcp_net::Agent`]) sees every packet that
//! arrives at its node before the node forwards or delivers it.
//!
//! Adding an agent kind is one file here (or in a crate of its own) and one
//! line in [`build`].
mod rewriter;

pub use rewriter::RewriterAgent;

use crate::config::Scenario;
use crate::topology::Topology;
use wifitcp_net::Agent;
use wifitcp_queue::QdiscConfig;

/// The agents of every node of `topo`, in the order they see a packet.
pub fn build(s: &Scenario, topo: &Topology) -> Result<Vec<Vec<Box<dyn Agent>>>, String> {
    let mut all: Vec<Vec<Box<dyn Agent>>> = (0..topo.nodes.len()).map(|_| Vec::new()).collect();
    for (i, agents) in all.iter_mut().enumerate() {
        // Pilosof's advertised-window rewriting at an AP (paper 001
        // section IV), selected with the AP's queue discipline.
        if let (Some(c @ QdiscConfig::Pilosof(_)), true) = (&s.ap.qdisc, topo.is_ap(i)) {
            let r =
                wifitcp_queue::build_rewriter(c, s.ap_queue_packets() as usize).map_err(|e| format!("ap.qdisc.{e}"))?;
            agents.extend(r.map(|r| Box::new(RewriterAgent::new(r)) as Box<dyn Agent>));
        }
    }
    Ok(all)
}
