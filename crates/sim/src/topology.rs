//! Nodes, addresses and static routes.
//!
//! Node ids: the WLAN members first, with the same index as in the BSS (0 is
//! AP 0, 1..=n the stations, then APs 1.., see `Scenario::ap_member`), then
//! the wired nodes in `[[nodes]]` order. Node `i` has address
//! 10.0.0.0 + i + 1. Stations reach everything through their own AP (an
//! infrastructure BSS); APs and wired nodes route by shortest hop count over
//! the links (ties broken by link order), computed once at build.
use crate::config::{NodeKind, Scenario};
use std::collections::VecDeque;
use wifitcp_wire::Ipv4Addr;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ap,
    Station,
    Host,
    Router,
}

pub struct Node {
    pub name: String,
    pub kind: Kind,
}

/// Where a node sends a packet for a destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// Deliver locally.
    Local,
    /// Over the WLAN to BSS member `ra`.
    Wlan {
        ra: usize,
    },
    /// Over wired link `link` in direction `dir` (0: a->b, 1: b->a).
    Link {
        link: usize,
        dir: usize,
    },
    Unreachable,
}

pub struct Topology {
    pub nodes: Vec<Node>,
    pub stations: usize,
    /// AP (BSS index) of every WLAN member; an AP maps to itself.
    pub ap_of: Vec<usize>,
    /// (a, b) node ids of each link.
    pub link_ends: Vec<(usize, usize)>,
    /// For core nodes (AP and wired): next hop towards each core node.
    core_next: Vec<Vec<Hop>>,
}

const BASE: u32 = 0x0a00_0000;

pub fn addr_of(node: usize) -> Ipv4Addr {
    Ipv4Addr::from(BASE + node as u32 + 1)
}

impl Topology {
    pub fn build(s: &Scenario) -> Topology {
        let n = s.wlan.stations as usize;
        let mut nodes: Vec<Node> = (0..s.wlan_members())
            .map(|i| Node { name: s.member_name(i), kind: if i >= 1 && i <= n { Kind::Station } else { Kind::Ap } })
            .collect();
        for nd in &s.nodes {
            let kind = match nd.kind {
                NodeKind::Host => Kind::Host,
                NodeKind::Router => Kind::Router,
            };
            nodes.push(Node { name: nd.name.clone(), kind });
        }
        let id = |name: &str| nodes.iter().position(|x| x.name == name).expect("validated node name");
        let link_ends: Vec<(usize, usize)> = s.links.iter().map(|l| (id(&l.a), id(&l.b))).collect();
        let mut t = Topology { nodes, stations: n, ap_of: s.ap_of_members(), link_ends, core_next: Vec::new() };
        t.core_next = (0..t.nodes.len()).map(|src| if t.is_core(src) { t.bfs(src) } else { Vec::new() }).collect();
        t
    }

    pub fn is_ap(&self, i: usize) -> bool {
        self.nodes[i].kind == Kind::Ap
    }

    fn is_core(&self, i: usize) -> bool {
        !matches!(self.nodes[i].kind, Kind::Station)
    }

    /// First hop from `src` to every core node (BFS by hop count).
    fn bfs(&self, src: usize) -> Vec<Hop> {
        let mut first = vec![Hop::Unreachable; self.nodes.len()];
        first[src] = Hop::Local;
        let mut q = VecDeque::from([src]);
        while let Some(u) = q.pop_front() {
            for (li, &(a, b)) in self.link_ends.iter().enumerate() {
                let (v, dir) = if a == u {
                    (b, 0)
                } else if b == u {
                    (a, 1)
                } else {
                    continue;
                };
                if first[v] != Hop::Unreachable {
                    continue;
                }
                first[v] = if u == src { Hop::Link { link: li, dir } } else { first[u] };
                // Routers and hosts forward; only reach through them.
                q.push_back(v);
            }
        }
        first
    }

    /// Node id of an address, if it is one of ours.
    pub fn node_of(&self, a: Ipv4Addr) -> Option<usize> {
        let v = u32::from(a).checked_sub(BASE + 1)? as usize;
        (v < self.nodes.len()).then_some(v)
    }

    pub fn is_station(&self, i: usize) -> bool {
        (1..=self.stations).contains(&i)
    }

    /// Next hop at node `at` for a packet to node `dst`.
    pub fn next_hop(&self, at: usize, dst: usize) -> Hop {
        if at == dst {
            return Hop::Local;
        }
        if self.is_station(at) {
            return Hop::Wlan { ra: self.ap_of[at] };
        }
        if self.is_station(dst) && self.ap_of[dst] == at {
            return Hop::Wlan { ra: dst };
        }
        let core_dst = if self.is_station(dst) { self.ap_of[dst] } else { dst };
        self.core_next[at][core_dst]
    }
}
