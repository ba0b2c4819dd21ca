//! Typed trace events and the sink they go to. Tracing is off (a
//! [`NullSink`]) unless a run asks for it.
use crate::drop::DropReason;
use crate::ids::{FlowId, NodeId, PacketId};
use crate::time::SimTime;

#[derive(Clone, Debug, PartialEq)]
pub enum TraceEvent {
    /// A packet entered the network at its source.
    Generated { node: NodeId, flow: FlowId, packet: PacketId, bytes: u32 },
    /// A packet reached its final receiver.
    Delivered { node: NodeId, flow: FlowId, packet: PacketId, bytes: u32 },
    /// A packet was dropped.
    Dropped { node: NodeId, packet: PacketId, reason: DropReason },
    /// A frame transmission started on the wireless medium.
    TxStart { node: NodeId, kind: &'static str, retry: u32, end: SimTime },
    /// Two or more transmissions overlapped.
    Collision { nodes: Vec<NodeId> },
    /// A frame was received with errors (channel error model).
    RxError { node: NodeId, from: NodeId },
    /// Congestion window sample.
    Cwnd { flow: FlowId, cwnd_bytes: u64, ssthresh_bytes: u64 },
    /// Free-form note for debugging.
    Note(String),
}

pub trait TraceSink {
    fn record(&mut self, at: SimTime, ev: TraceEvent);
    /// Whether records are kept; callers may skip building events if not.
    fn enabled(&self) -> bool {
        true
    }
}

/// Discards everything.
#[derive(Default)]
pub struct NullSink;
impl TraceSink for NullSink {
    fn record(&mut self, _at: SimTime, _ev: TraceEvent) {}
    fn enabled(&self) -> bool {
        false
    }
}

/// Keeps every record in memory (tests, small runs).
#[derive(Default)]
pub struct VecSink {
    pub records: Vec<(SimTime, TraceEvent)>,
}
impl TraceSink for VecSink {
    fn record(&mut self, at: SimTime, ev: TraceEvent) {
        self.records.push((at, ev));
    }
}
