//! Performance-enhancing proxies (RFC 3135) as agents
//! ([`wifitcp_net::Agent`]), one file per proxy:
//!
//! * [`snoop`]: Balakrishnan et al.'s Snoop agent at the AP (a per-flow
//!   cache of unacknowledged segments, local retransmission on duplicate
//!   ACKs and on a local timer, suppression of the duplicate ACKs it acted
//!   on).
//! * [`itcp`]: split TCP (I-TCP, Bakre & Badrinath): the AP terminates the
//!   wired connection and runs its own to the station, relaying bytes
//!   through a bounded buffer.
//! * [`dproxy`] and [`dproxy_sta`]: D-Proxy (Murray, Koziniec & Dixon,
//!   paper 003 section III-C): the AP half caches segments and replays them
//!   on request; the station half detects sequence gaps, requests the
//!   missing segments over UDP and re-sequences.
//!
//! Invariants: a proxy never holds a packet of the ledger past the call
//! that handed it over: it passes it, consumes it (delivered at the proxy)
//! or drops it with [`wifitcp_core::DropReason::Proxy`]; what it caches is a
//! copy of the headers, and every packet it sends is a new one with a
//! fresh ledger id. Every cache and buffer is bounded by a scenario key.
//! Per-flow state is keyed by the TCP 4-tuple as seen from the wired side
//! ([`FlowKey`]).
pub mod config;
pub mod dproxy;
pub mod dproxy_sta;
pub mod itcp;
pub mod snoop;

use wifitcp_wire::{Ipv4Addr, Packet, TcpHeader};

/// A TCP flow through the proxy: the wired end (server) and the wireless
/// end (station), each an address and port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowKey {
    pub wired: (Ipv4Addr, u16),
    pub wireless: (Ipv4Addr, u16),
}

impl FlowKey {
    /// The flow of a TCP packet going to the wireless side.
    pub fn downstream(p: &Packet, h: &TcpHeader) -> FlowKey {
        FlowKey { wired: (p.ip.src, h.src_port), wireless: (p.ip.dst, h.dst_port) }
    }
    /// The flow of a TCP packet coming from the wireless side.
    pub fn upstream(p: &Packet, h: &TcpHeader) -> FlowKey {
        FlowKey { wired: (p.ip.dst, h.dst_port), wireless: (p.ip.src, h.src_port) }
    }
}

/// Which side of the proxy a packet comes from, by its addresses: the
/// wireless side is the set of station addresses the proxy serves.
#[derive(Clone, Debug, Default)]
pub struct Sides {
    wireless: Vec<Ipv4Addr>,
}

impl Sides {
    pub fn new(mut wireless: Vec<Ipv4Addr>) -> Self {
        wireless.sort();
        Sides { wireless }
    }
    pub fn is_wireless(&self, a: Ipv4Addr) -> bool {
        self.wireless.binary_search(&a).is_ok()
    }
    /// A packet from the wired side to a station.
    pub fn is_downstream(&self, p: &Packet) -> bool {
        self.is_wireless(p.ip.dst) && !self.is_wireless(p.ip.src)
    }
    /// A packet from a station to the wired side.
    pub fn is_upstream(&self, p: &Packet) -> bool {
        self.is_wireless(p.ip.src) && !self.is_wireless(p.ip.dst)
    }
}

/// Sequence comparison modulo 2^32 (RFC 9293 3.4).
pub(crate) use wifitcp_tcp::seq::{seq_ge, seq_gt, seq_le, seq_lt};

/// A pure ACK: no payload, no SYN, FIN or RST.
pub(crate) fn pure_ack(p: &Packet, h: &TcpHeader) -> bool {
    use wifitcp_wire::TcpFlags;
    p.payload_len == 0
        && h.flags.has(TcpFlags::ACK)
        && !h.flags.has(TcpFlags::SYN)
        && !h.flags.has(TcpFlags::FIN)
        && !h.flags.has(TcpFlags::RST)
}

#[cfg(test)]
pub(crate) mod testutil;
