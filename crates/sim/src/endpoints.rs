//! Flows and TCP endpoints as the run loop holds them.
use crate::metrics::FlowStats;
use wifitcp_core::{RngStream, SimTime};
use wifitcp_tcp::{random_isn, CongestionControl, Connection, TcpConfig};

/// What a flow is beyond its record's common fields: 16 bytes (the TCP
/// transfer boxed: most of a campus's flows are UDP).
pub enum FlowKind {
    /// A UDP flow: its source.
    Udp(Box<dyn crate::apps::Source>),
    /// A TCP transfer.
    Tcp(Box<TcpFlow>),
}

/// A TCP transfer: the station is the client (it opens the connection),
/// data goes from `sender` to `receiver` (endpoint indices).
pub struct TcpFlow {
    pub client: usize,
    pub sender: usize,
    pub receiver: usize,
    pub bytes: Option<u64>,
    pub completed: Option<SimTime>,
}

/// Field order is layout (`repr(C)`): what a UDP source reads and counts
/// for every packet it makes (its kind, activity window, ends, port and
/// TOS octet, then the record's `generated` and `window_generated`,
/// `FlowStats`'s first fields) lies in its first 64 bytes, two cache lines
/// at most wherever a record starts in a flow table: in a cell of
/// thousands of saturated stations a flow's record is rarely in the
/// nearest cache.
#[repr(C)]
pub struct FlowRt {
    pub kind: FlowKind,
    /// Active in [start, stop) (`traffic.start_s`, `traffic.stop_s`): a
    /// UDP source fires only within it; a TCP client opens at `start`
    /// and the sender closes at `stop`.
    pub start: SimTime,
    pub stop: SimTime,
    /// Source and destination node ids (data direction), in 32 bits: a
    /// flow record is part of a campus's memory per station.
    src: u32,
    dst: u32,
    /// The source port of a UDP flow's datagrams (0 for TCP: its
    /// endpoints hold their ports).
    pub src_port: u16,
    /// The IPv4 TOS octet of its packets, both directions (`traffic.dscp`
    /// in its upper six bits, ECN bits clear).
    pub tos: u8,
    /// The flow's index in the run (a partition numbers its own flows from
    /// 0; the run's results list them by this).
    index: u32,
    pub stats: FlowStats,
}

impl FlowKind {
    /// The flow's kind as results name it (`"udp"`, `"tcp"`).
    pub fn name(&self) -> &'static str {
        match self {
            FlowKind::Udp(_) => "udp",
            FlowKind::Tcp(_) => "tcp",
        }
    }
}

impl FlowRt {
    /// Flow `kind` from node `ends[0]` to `ends[1]`, active in
    /// `[window[0], window[1])`.
    /// The run's flow `index`.
    pub fn new(
        index: usize,
        kind: FlowKind,
        window: [SimTime; 2],
        ends: [usize; 2],
        src_port: u16,
        tos: u8,
        stats: FlowStats,
    ) -> FlowRt {
        let id = |n: usize| u32::try_from(n).expect("fewer than 2^32 nodes");
        let [start, stop] = window;
        let index = u32::try_from(index).expect("fewer than 2^32 flows");
        FlowRt { kind, start, stop, src: id(ends[0]), dst: id(ends[1]), src_port, tos, index, stats }
    }
    /// The flow's index in the run.
    #[inline]
    pub fn index(&self) -> usize {
        self.index as usize
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
        matches!(&self.kind, FlowKind::Udp(_)) && now >= self.start && now < self.stop
    }
    /// Whether its source fires after its start (a UDP source that is not
    /// saturated): only such a flow has a key in the timer registry.
    pub fn fires_again(&self) -> bool {
        matches!(&self.kind, FlowKind::Udp(source) if !source.saturated())
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
        // The kind, the activity window, the ends, the port, the TOS and
        // the two counts end within 64 bytes of a record's start: two
        // lines at most, wherever it starts.
        let end = offset_of!(FlowRt, stats) + offset_of!(FlowStats, window_generated) + size_of::<u64>();
        assert!(end <= 64, "{end}");
        assert_eq!(offset_of!(FlowRt, stats) + offset_of!(FlowStats, generated) + size_of::<u64>(), end - 8);
        assert!(offset_of!(FlowRt, tos) < offset_of!(FlowRt, stats));
        assert_eq!(size_of::<FlowKind>(), 16);
        assert_eq!(size_of::<FlowRt>(), 208, "a flow record's size is part of the memory per station");
        assert_eq!(align_of::<FlowRt>(), 8);
    }
}
