//! Flows and TCP endpoints as the run loop holds them.
use crate::metrics::FlowStats;
use wifitcp_core::{RngStream, SimTime};
use wifitcp_tcp::{random_isn, CongestionControl, Connection, TcpConfig};

pub enum FlowKind {
    /// A UDP flow: its source, active in [start, stop).
    Udp { source: Box<dyn crate::apps::Source>, start: SimTime, stop: SimTime, src_port: u16 },
    /// A TCP transfer (boxed: a flow record holds one kind, and most of
    /// a campus's flows are UDP, whose variant is half the size).
    Tcp(Box<TcpFlow>),
}

/// A TCP transfer: the station is the client (it opens the connection),
/// data goes from `sender` to `receiver` (endpoint indices).
pub struct TcpFlow {
    pub client: usize,
    pub sender: usize,
    pub receiver: usize,
    pub bytes: Option<u64>,
    pub start: SimTime,
    pub stop: SimTime,
    pub completed: Option<SimTime>,
}

/// Field order is layout (`repr(C)`): what a UDP source reads and counts
/// for every packet it makes (its kind's activity window and port, the
/// ends, the TOS octet, then the record's `generated` and
/// `window_generated`, `FlowStats`'s first fields) lies in 80 bytes, two
/// cache lines wherever a record starts in a flow table (records are 224
/// bytes, a multiple of 32): in a cell of thousands of saturated stations
/// a flow's record is rarely in the nearest cache.
#[repr(C)]
pub struct FlowRt {
    pub kind: FlowKind,
    /// Source and destination node ids (data direction), in 32 bits: a
    /// flow record is part of a campus's memory per station.
    src: u32,
    dst: u32,
    /// The IPv4 TOS octet of its packets, both directions (`traffic.dscp`
    /// in its upper six bits, ECN bits clear).
    pub tos: u8,
    pub stats: FlowStats,
}

impl FlowKind {
    /// The flow's kind as results name it (`"udp"`, `"tcp"`).
    pub fn name(&self) -> &'static str {
        match self {
            FlowKind::Udp { .. } => "udp",
            FlowKind::Tcp(_) => "tcp",
        }
    }
}

impl FlowRt {
    pub fn new(src: usize, dst: usize, tos: u8, kind: FlowKind, stats: FlowStats) -> FlowRt {
        let id = |n: usize| u32::try_from(n).expect("fewer than 2^32 nodes");
        FlowRt { kind, src: id(src), dst: id(dst), tos, stats }
    }
    /// The source node (data direction).
    #[inline]
    pub fn src(&self) -> usize {
        self.src as usize
    }
    /// The destination node (data direction).
    #[inline]
    pub fn dst(&self) -> usize {
        self.dst as usize
    }
    pub fn udp_active(&self, now: SimTime) -> bool {
        matches!(&self.kind, FlowKind::Udp { start, stop, .. } if now >= *start && now < *stop)
    }
    pub fn is_receiver(&self, ep: usize) -> bool {
        matches!(&self.kind, FlowKind::Tcp(t) if t.receiver == ep)
    }
}

/// One TCP endpoint bound to a node.
pub struct Endpoint {
    pub node: usize,
    pub remote: usize,
    pub flow: usize,
    pub conn: Connection,
    /// Active-open arguments of a client not yet started.
    pending: Option<ActiveOpen>,
}

/// Arguments of an active open: configuration, controller, local and
/// remote ports, initial sequence number.
type ActiveOpen = (TcpConfig, Box<dyn CongestionControl>, u16, u16, u32);

impl Endpoint {
    /// A client that opens at its flow's start time.
    #[allow(clippy::too_many_arguments)]
    pub fn client(
        node: usize,
        remote: usize,
        flow: usize,
        cfg: TcpConfig,
        cc: Box<dyn CongestionControl>,
        lport: u16,
        rport: u16,
        rng: &mut RngStream,
    ) -> Self {
        let isn = random_isn(rng);
        // Until it opens, the endpoint sits closed-listening on its port;
        // nothing is addressed to it before its SYN goes out.
        let placeholder = Connection::listen(cfg.clone(), Box::new(wifitcp_tcp::Reno::new()), lport, isn);
        Endpoint { node, remote, flow, conn: placeholder, pending: Some((cfg, cc, lport, rport, isn)) }
    }

    pub fn server(
        node: usize,
        remote: usize,
        flow: usize,
        cfg: TcpConfig,
        cc: Box<dyn CongestionControl>,
        lport: u16,
        rng: &mut RngStream,
    ) -> Self {
        let isn = random_isn(rng);
        Endpoint { node, remote, flow, conn: Connection::listen(cfg, cc, lport, isn), pending: None }
    }

    /// Active open (clients only; no-op otherwise).
    pub fn open(&mut self, now: SimTime) {
        if let Some((cfg, cc, l, r, isn)) = self.pending.take() {
            self.conn = Connection::connect(now, cfg, cc, l, r, isn);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn what_a_source_touches_per_packet_spans_two_lines() {
        // The activity window, the ends, the TOS and the two counts end
        // within 80 bytes of a record's start; records are a multiple of
        // 32 bytes apart in a table at least 16-byte aligned, so each
        // starts 0, 16, 32 or 48 bytes into a line, and 48 + 80 = 128.
        let end = offset_of!(FlowRt, stats) + offset_of!(FlowStats, window_generated) + size_of::<u64>();
        assert!(end <= 80, "{end}");
        assert_eq!(offset_of!(FlowRt, stats) + offset_of!(FlowStats, generated) + size_of::<u64>(), end - 8);
        assert!(offset_of!(FlowRt, src) < 64 && offset_of!(FlowRt, tos) < 64);
        assert_eq!(size_of::<FlowRt>() % 32, 0);
        assert_eq!(size_of::<FlowRt>(), 224, "a flow record's size is part of the memory per station");
        assert_eq!(align_of::<FlowRt>(), 8);
    }
}
