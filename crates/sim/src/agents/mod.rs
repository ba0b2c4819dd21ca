//! The agents a scenario installs at its nodes, and the registry that
//! builds them. An agent ([`wifitcp_net::Agent`]) sees every packet that
//! arrives at its node before the node forwards or delivers it.
//!
//! Adding an agent kind is one file here (or in a crate of its own) and one
//! line in [`build`].
mod rewriter;

pub use rewriter::RewriterAgent;

use crate::config::{ProxyConfig, Scenario};
use crate::topology::{addr_of, Topology};
use wifitcp_core::ConfigError;
use wifitcp_net::Agent;

/// The agents of every node of `topo`, in the order they see a packet.
/// `seed`: the run's master seed (for agents that draw numbers).
pub fn build(s: &Scenario, topo: &Topology, seed: u64) -> Result<Vec<Vec<Box<dyn Agent>>>, ConfigError> {
    let mut all: Vec<Vec<Box<dyn Agent>>> = (0..topo.nodes.len()).map(|_| Vec::new()).collect();
    for (i, agents) in all.iter_mut().enumerate() {
        // The packet rewriter of the AP's queue discipline, if it has one
        // (Pilosof's advertised-window rewriting, paper 001 section IV).
        if let (Some(c), true) = (&s.ap.qdisc, topo.is_ap(i)) {
            let r = wifitcp_queue::build_rewriter(c, s.ap_queue_packets() as usize).map_err(|e| e.under("ap.qdisc"))?;
            agents.extend(r.map(|r| Box::new(RewriterAgent::new(r)) as Box<dyn Agent>));
        }
    }
    if let Some(p) = &s.ap.proxy {
        proxies(s, p, topo, seed, &mut all)?;
    }
    Ok(all)
}

/// `[ap.proxy]`: the proxy at its AP(s) (paper 003 section III), after the
/// AP's other agents, and its station agents (D-Proxy's station half) at
/// each of their stations; the kind's descriptor
/// (`wifitcp_pep::config::ProxyConfig`) builds them.
fn proxies(
    s: &Scenario,
    p: &ProxyConfig,
    topo: &Topology,
    seed: u64,
    all: &mut [Vec<Box<dyn Agent>>],
) -> Result<(), ConfigError> {
    for ap in (0..topo.nodes.len()).filter(|&i| topo.is_ap(i)) {
        if p.node().is_some_and(|n| n != topo.name(ap)) {
            continue;
        }
        let stations: Vec<usize> =
            (0..topo.nodes.len()).filter(|&j| topo.is_station(j) && topo.ap_of(j) == ap).collect();
        let addrs: Vec<_> = stations.iter().map(|&j| addr_of(j)).collect();
        let site = wifitcp_pep::config::Site {
            ap: addr_of(ap),
            stations: &addrs,
            tcp: &s.tcp,
            rng: wifitcp_core::RngStream::derive(seed, &format!("proxy/{}", topo.name(ap))),
        };
        let Some(installed) = p.build(&site) else { continue };
        for (&j, agent) in stations.iter().zip(installed.stations) {
            all[j].push(agent);
        }
        all[ap].push(installed.ap);
    }
    Ok(())
}
