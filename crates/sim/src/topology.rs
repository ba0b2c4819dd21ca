//! Nodes, their interfaces, addresses and routes.
//!
//! A [`Node`] owns its interfaces (a WLAN interface: which cell and which
//! member index in it; wired interfaces: which link and direction), its
//! forwarding table and its port tables (TCP port -> endpoint, UDP port ->
//! application socket).
//!
//! Node ids: the WLAN members first, with the same index as their member
//! index in every cell (0 is AP 0, 1..=n the stations, then APs 1.., see
//! `Scenario::ap_member`), then the wired nodes in `[[nodes]]` order. Node
//! `i` has address 10.0.0.0 + i + 1. Stations reach everything through the
//! AP they are associated with (an infrastructure BSS); APs and wired nodes
//! route by shortest hop count over the links (ties broken by link order),
//! computed once at build, to the AP that serves a station (`ap_of`, which
//! a hand-off changes: the layer-2 update of `world/roam.rs`).
//!
//! Invariants: a station's cell (`cell_of`) is the cell of
//! `ap_of(station)`, or [`DETACHED`] while it scans; only APs and wired
//! nodes have a forwarding table; node `i`'s name is `names.get(i)`.
use crate::apps::echo::UdpSocket;
use crate::config::{NodeKind, Scenario};
use crate::names::Names;
use crate::world::demux::DemuxHash;
use std::collections::{HashMap, VecDeque};
use std::num::NonZeroU32;
use wifitcp_wire::Ipv4Addr;

/// `WlanIface::cell` of a station between leaving its AP and reassociating.
pub const DETACHED: usize = usize::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ap,
    Station,
    Host,
    Router,
}

/// A node's interface to a cell (one channel's collision domain); its
/// MAC's member index in every cell is its node id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WlanIface {
    /// Index of the cell (`world::cells`) plus one, `u32::MAX`
    /// ([`DETACHED`] to `Topology::cell_of`) while scanning: 32 bits, never
    /// 0, so a node without an interface costs no more (a node is a few
    /// bytes of a campus's memory per station; cells number far fewer).
    cell: NonZeroU32,
}

impl WlanIface {
    fn new(cell: usize) -> WlanIface {
        let v = if cell == DETACHED {
            u32::MAX
        } else {
            u32::try_from(cell).ok().filter(|&c| c < u32::MAX - 1).expect("fewer than 2^32 - 2 cells") + 1
        };
        WlanIface { cell: NonZeroU32::new(v).expect("at least 1") }
    }
    fn cell(self) -> usize {
        match self.cell.get() {
            u32::MAX => DETACHED,
            v => v as usize - 1,
        }
    }
}

/// A node's interface to a wired link: packets it sends go out in `dir`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WiredIface {
    pub link: usize,
    /// 0: the node is the link's `a` end (sends a -> b), 1: its `b` end.
    pub dir: usize,
}

pub struct Node {
    pub kind: Kind,
    /// The WLAN interface of an AP or a station.
    wlan: Option<WlanIface>,
    /// Its links, forwarding table and bound sockets, if it has any (an AP,
    /// a wired node, a station with a TCP endpoint or a UDP socket); a
    /// station with none holds no tables (in a cell of thousands, 112
    /// bytes a station). A node is 16 bytes.
    tables: Option<Box<NodeTables>>,
}

#[derive(Default)]
struct NodeTables {
    /// Wired interfaces, in link order.
    wired: Vec<WiredIface>,
    /// Forwarding table of an AP or wired node: first hop towards every
    /// core node (APs and wired nodes), indexed by the core node's
    /// [`Topology::core_index`] (a table by node id would hold a slot for
    /// every station at every AP: 64 APs of 100 stations, 6,464 slots
    /// each); empty for a station (which sends everything to its AP).
    fwd: Vec<Hop>,
    /// TCP endpoints bound here: local port -> endpoint index.
    ports: HashMap<u16, usize, DemuxHash>,
    /// UDP sockets bound here (ping and its echo responder); a datagram
    /// for any other port is its flow's delivery.
    udp: HashMap<u16, UdpSocket, DemuxHash>,
}

impl Node {
    fn new(kind: Kind, wlan: Option<WlanIface>) -> Node {
        Node { kind, wlan, tables: None }
    }
    fn tables_mut(&mut self) -> &mut NodeTables {
        self.tables.get_or_insert_with(Box::default)
    }
    /// Wired interfaces, in link order.
    pub fn wired(&self) -> &[WiredIface] {
        self.tables.as_ref().map_or(&[], |t| &t.wired)
    }
    /// Forwarding table (empty at a station).
    fn fwd(&self) -> &[Hop] {
        self.tables.as_ref().map_or(&[], |t| &t.fwd)
    }
    /// The TCP endpoint bound to `port`.
    pub(crate) fn tcp_endpoint(&self, port: u16) -> Option<usize> {
        self.tables.as_ref()?.ports.get(&port).copied()
    }
    /// The UDP socket bound to `port` (`None` quickly at a node with none).
    #[inline]
    pub(crate) fn udp_socket(&self, port: u16) -> Option<UdpSocket> {
        let udp = &self.tables.as_ref()?.udp;
        if udp.is_empty() {
            None
        } else {
            udp.get(&port).copied()
        }
    }
    /// Whether a UDP socket is bound here.
    pub(crate) fn has_udp(&self) -> bool {
        self.tables.as_ref().is_some_and(|t| !t.udp.is_empty())
    }
    pub(crate) fn bind_tcp(&mut self, port: u16, ep: usize) {
        self.tables_mut().ports.insert(port, ep);
    }
    pub(crate) fn bind_udp(&mut self, port: u16, socket: UdpSocket) {
        self.tables_mut().udp.insert(port, socket);
    }
}

/// Where a node sends a packet for a destination (node and link indices
/// in 32 bits, a direction in 8: 8 bytes, held in every saturated
/// source's slot and forwarding table entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    /// Deliver locally.
    Local,
    /// Over the WLAN to BSS member `ra`.
    Wlan {
        ra: u32,
    },
    /// Over wired link `link` in direction `dir` (0: a->b, 1: b->a).
    Link {
        link: u32,
        dir: u8,
    },
    Unreachable,
}

impl Hop {
    fn wlan(ra: usize) -> Hop {
        Hop::Wlan { ra: u32::try_from(ra).expect("fewer than 2^32 nodes") }
    }
}

pub struct Topology {
    pub nodes: Vec<Node>,
    /// Every node's name, by node id.
    names: Names,
    pub stations: usize,
    /// AP (BSS index) of every WLAN member; an AP maps to itself (32 bits:
    /// part of a campus's memory per station; `ap_of`).
    ap_of: Vec<u32>,
    /// (a, b) node ids of each link.
    pub link_ends: Vec<(usize, usize)>,
    /// With a home agent (`wlan.roaming.reroute = "home_agent"`): each
    /// station's home AP, where every wired route to it leads; the home AP
    /// sends on to `ap_of` (the tunnel to the foreign AP).
    pub home: Option<Vec<usize>>,
}

const BASE: u32 = 0x0a00_0000;

pub fn addr_of(node: usize) -> Ipv4Addr {
    Ipv4Addr::from(BASE + node as u32 + 1)
}

impl Topology {
    pub fn build(s: &Scenario) -> Topology {
        let n = s.wlan.stations as usize;
        let ap_of = s.ap_of_members();
        let cell_of_ap = s.cell_of_aps();
        let mut nodes: Vec<Node> = Vec::with_capacity(s.wlan_members() + s.nodes.len());
        let mut names = Names::default();
        for i in 0..s.wlan_members() {
            let kind = if i >= 1 && i <= n { Kind::Station } else { Kind::Ap };
            nodes.push(Node::new(kind, Some(WlanIface::new(cell_of_ap[ap_of[i]]))));
            names.push(&s.member_name(i));
        }
        for nd in &s.nodes {
            let kind = match nd.kind {
                NodeKind::Host => Kind::Host,
                NodeKind::Router => Kind::Router,
            };
            nodes.push(Node::new(kind, None));
            names.push(&nd.name);
        }
        names.shrink_to_fit();
        let id = |name: &str| names.position(name).expect("validated node name");
        let link_ends: Vec<(usize, usize)> = s.links.iter().map(|l| (id(&l.a), id(&l.b))).collect();
        for (link, &(a, b)) in link_ends.iter().enumerate() {
            nodes[a].tables_mut().wired.push(WiredIface { link, dir: 0 });
            nodes[b].tables_mut().wired.push(WiredIface { link, dir: 1 });
        }
        let home = s
            .wlan
            .roaming
            .as_ref()
            .is_some_and(|r| r.reroute == crate::config::roaming::Reroute::HomeAgent)
            .then(|| ap_of.clone());
        let ap_of = ap_of.iter().map(|&a| u32::try_from(a).expect("fewer than 2^32 members")).collect();
        let mut t = Topology { nodes, names, stations: n, ap_of, link_ends, home };
        for src in 0..t.nodes.len() {
            if t.is_core(src) {
                let first = t.bfs(src);
                t.nodes[src].tables_mut().fwd = (0..first.len()).filter(|&v| t.is_core(v)).map(|v| first[v]).collect();
            }
        }
        t
    }

    /// The index of core node `i` (an AP or a wired node) among the core
    /// nodes, in node id order: node ids are AP 0, the stations
    /// `1..=stations`, then the other APs and the wired nodes.
    #[inline]
    fn core_index(&self, i: usize) -> usize {
        debug_assert!(!self.is_station(i));
        if i == 0 {
            0
        } else {
            i - self.stations
        }
    }

    /// Node `i`'s name.
    pub fn name(&self, i: usize) -> &str {
        self.names.get(i)
    }

    /// Every node's name, by node id.
    pub fn names(&self) -> &Names {
        &self.names
    }

    /// Put WLAN member `i`'s interface into `cell` (or [`DETACHED`]).
    pub(crate) fn set_cell(&mut self, i: usize, cell: usize) {
        if let Some(w) = self.nodes[i].wlan.as_mut() {
            *w = WlanIface::new(cell);
        }
    }

    /// The AP (BSS index) WLAN member `i` is associated with (an AP: itself).
    #[inline]
    pub fn ap_of(&self, i: usize) -> usize {
        self.ap_of[i] as usize
    }

    /// WLAN member `i` is now associated with AP `ap` (a hand-off).
    pub(crate) fn set_ap_of(&mut self, i: usize, ap: usize) {
        self.ap_of[i] = u32::try_from(ap).expect("fewer than 2^32 members");
    }

    /// The cell of WLAN member `i`'s interface ([`DETACHED`] while it scans).
    #[inline]
    pub fn cell_of(&self, i: usize) -> usize {
        self.nodes[i].wlan.map_or(DETACHED, WlanIface::cell)
    }

    pub fn is_ap(&self, i: usize) -> bool {
        self.nodes[i].kind == Kind::Ap
    }

    fn is_core(&self, i: usize) -> bool {
        !matches!(self.nodes[i].kind, Kind::Station)
    }

    /// First hop from `src` to every core node (BFS by hop count over the
    /// nodes' wired interfaces, ties broken by link order).
    fn bfs(&self, src: usize) -> Vec<Hop> {
        let mut first = vec![Hop::Unreachable; self.nodes.len()];
        first[src] = Hop::Local;
        let mut q = VecDeque::from([src]);
        while let Some(u) = q.pop_front() {
            for &WiredIface { link, dir } in self.nodes[u].wired() {
                let (a, b) = self.link_ends[link];
                let v = if dir == 0 { b } else { a };
                if first[v] != Hop::Unreachable {
                    continue;
                }
                first[v] = if u == src { Hop::Link { link: link as u32, dir: dir as u8 } } else { first[u] };
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
        if self.is_station(dst) && self.ap_of(dst) == at {
            return Hop::wlan(dst);
        }
        let core_dst = if !self.is_station(dst) {
            dst
        } else {
            match &self.home {
                // (to the home agent, which tunnels on to the foreign AP)
                Some(home) if home[dst] != at => home[dst],
                _ => self.ap_of(dst),
            }
        };
        self.nodes[at].fwd()[self.core_index(core_dst)]
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_node_is_16_bytes() {
        // (part of the memory per station of a campus: its name is in
        // the topology's `Names`, its cell in 32 bits that are never 0)
        assert_eq!(std::mem::size_of::<super::Node>(), 16);
    }

    #[test]
    fn an_interface_keeps_its_cell_or_its_detachment() {
        use super::{WlanIface, DETACHED};
        for c in [0, 1, 63, u32::MAX as usize - 2, DETACHED] {
            assert_eq!(WlanIface::new(c).cell(), c);
        }
    }

    #[test]
    fn a_hop_is_8_bytes() {
        // (in every saturated source's slot and forwarding table entry)
        assert_eq!(std::mem::size_of::<super::Hop>(), 8);
    }
}
