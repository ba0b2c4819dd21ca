//! The agents a scenario installs at its nodes, and the registry that
//! builds them. An agent ([`wifitcp_net::Agent`]) sees every packet that
//! arrives at its node before the node forwards or delivers it.
//!
//! Adding an agent kind is one file here (or in a crate of its own) and one
//! line in [`build`].
mod rewriter;

pub use rewriter::RewriterAgent;

use crate::config::{ProxyConfig, ProxyKind, Scenario};
use crate::topology::{addr_of, Topology};
use wifitcp_net::Agent;
use wifitcp_queue::QdiscConfig;

/// The agents of every node of `topo`, in the order they see a packet.
/// `seed`: the run's master seed (for agents that draw numbers).
pub fn build(s: &Scenario, topo: &Topology, seed: u64) -> Result<Vec<Vec<Box<dyn Agent>>>, String> {
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
    if let Some(p) = &s.ap.proxy {
        proxies(s, p, topo, seed, &mut all)?;
    }
    Ok(all)
}

/// `[ap.proxy]`: the proxy at its AP(s) (paper 003 section III), after the
/// AP's other agents; D-Proxy's station half at each of their stations.
fn proxies(
    s: &Scenario,
    p: &ProxyConfig,
    topo: &Topology,
    seed: u64,
    all: &mut [Vec<Box<dyn Agent>>],
) -> Result<(), String> {
    use wifitcp_core::SimDur;
    let ms = |x: f64| SimDur::from_secs_f64(x / 1e3);
    for ap in (0..topo.nodes.len()).filter(|&i| topo.is_ap(i)) {
        if p.node.as_ref().is_some_and(|n| *n != topo.nodes[ap].name) {
            continue;
        }
        let stations: Vec<usize> =
            (0..topo.nodes.len()).filter(|&j| topo.is_station(j) && topo.ap_of[j] == ap).collect();
        let sides = wifitcp_pep::Sides::new(stations.iter().map(|&j| addr_of(j)).collect());
        let agent: Box<dyn Agent> = match p.kind {
            ProxyKind::None => continue,
            ProxyKind::Snoop => {
                let d = wifitcp_pep::snoop::SnoopConfig::default();
                let c = wifitcp_pep::snoop::SnoopConfig {
                    cache_packets: p.cache_packets.map_or(d.cache_packets, |x| x as usize),
                    local_rto_min: p.local_rto_min_ms.map_or(d.local_rto_min, ms),
                    local_rto_initial: p.local_rto_initial_ms.map_or(d.local_rto_initial, ms),
                    max_local_retransmissions: p.max_local_retransmissions.unwrap_or(d.max_local_retransmissions),
                };
                Box::new(wifitcp_pep::snoop::Snoop::new(c, sides))
            }
            ProxyKind::Itcp => {
                let d = wifitcp_pep::itcp::ItcpConfig::default();
                let c = wifitcp_pep::itcp::ItcpConfig {
                    relay_buffer_bytes: p.relay_buffer_bytes.unwrap_or(d.relay_buffer_bytes),
                };
                let side = |o: &Option<crate::config::TcpSection>| -> wifitcp_pep::itcp::SideFactory {
                    let t = o.clone().unwrap_or_default().over(&s.tcp);
                    Box::new(move || {
                        (
                            wifitcp_tcp::scenario::build(&t).expect("checked by ProxyConfig::validate"),
                            wifitcp_tcp::scenario::controller(&t),
                        )
                    })
                };
                let rng = wifitcp_core::RngStream::derive(seed, &format!("proxy/{}", topo.nodes[ap].name));
                Box::new(wifitcp_pep::itcp::Itcp::new(c, sides, side(&p.wired_tcp), side(&p.wireless_tcp), rng))
            }
            ProxyKind::Dproxy => {
                let d = wifitcp_pep::dproxy::DProxyApConfig::default();
                let port = p.request_port.unwrap_or(d.request_port);
                let c = wifitcp_pep::dproxy::DProxyApConfig {
                    cache_packets: p.cache_packets.map_or(d.cache_packets, |x| x as usize),
                    request_port: port,
                };
                let ds = wifitcp_pep::dproxy_sta::DProxyStaConfig::default();
                let sc = wifitcp_pep::dproxy_sta::DProxyStaConfig {
                    buffer_packets: p.buffer_packets.map_or(ds.buffer_packets, |x| x as usize),
                    rerequest_multipliers: p.rerequest_multipliers.clone().unwrap_or(ds.rerequest_multipliers),
                    catchup_packets: p.catchup_packets.map_or(ds.catchup_packets, |x| x as usize),
                    initial_rtx_time: p.initial_rtx_time_ms.map_or(ds.initial_rtx_time, ms),
                    request_port: port,
                };
                for &j in &stations {
                    let half = wifitcp_pep::dproxy_sta::DProxySta::new(sc.clone(), addr_of(j), addr_of(ap));
                    all[j].push(Box::new(half));
                }
                Box::new(wifitcp_pep::dproxy::DProxyAp::new(c, addr_of(ap), sides))
            }
        };
        all[ap].push(agent);
    }
    Ok(())
}
