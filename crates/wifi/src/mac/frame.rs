//! Frames as the MAC and the medium exchange them.
use crate::phy::Rate;
use wifitcp_core::{DropReason, PacketId, SimDur};
use wifitcp_wire::Packet;

/// A station's address within its BSS (dense index; the simulator maps it
/// to a node).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MacAddr(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Data,
    Ack,
    Rts,
    Cts,
}

impl FrameKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FrameKind::Data => "data",
            FrameKind::Ack => "ack",
            FrameKind::Rts => "rts",
            FrameKind::Cts => "cts",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Frame {
    pub kind: FrameKind,
    /// Transmitter address.
    pub ta: MacAddr,
    /// Receiver address.
    pub ra: MacAddr,
    /// Duration/ID field: NAV set by third parties that decode the frame
    /// (9.2.5, 10.3.2.4), counted from the end of the frame.
    pub duration: SimDur,
    /// Sequence number (data frames), modulo 4096 (9.2.4.4.2).
    pub seq: u16,
    /// Retry subfield of Frame Control (9.2.4.1.6).
    pub retry: bool,
    /// MPDU length including header and FCS, in bytes.
    pub mpdu_bytes: u32,
    pub rate: Rate,
    pub airtime: SimDur,
    /// Sent after winning contention (an RTS, or a data frame without
    /// RTS/CTS): the frames whose collisions define the conditional
    /// collision probability. False for responses and data after a CTS.
    pub contended: bool,
}

/// What a MAC asks its caller to do or tells it.
#[derive(Debug)]
pub enum MacOutput {
    /// Put this frame on the medium now; the caller calls `on_tx_end` after
    /// `frame.airtime`. A data frame carries the MSDU in service
    /// (`Dcf::in_service`); the medium tells the receiver its id
    /// (`on_rx_end`), so frames stay small and no MSDU is copied per attempt.
    StartTx(Frame),
    /// A new (non-duplicate) MSDU was received for the upper layer: the
    /// one with id `id` in service at the transmitter `from` (which keeps it
    /// until its exchange ends; the caller copies it from there).
    Deliver { from: MacAddr, id: PacketId },
    /// The MSDU in service was acknowledged.
    Acked(Packet),
    /// An MSDU was discarded: the one in service (retry limit), or, at a
    /// receiver, a new MSDU taken for a duplicate (`DuplicateFrame`).
    Dropped(PacketId, DropReason),
    /// The MAC has no MSDU in service and can take one (`start_msdu`).
    Ready,
}

/// Where a MAC puts its outputs: a `Vec<MacOutput>` (tests, simple
/// callers), or a caller's own sink that handles each output as it is
/// produced (the medium translates them straight into its own outputs).
pub trait MacSink {
    fn push(&mut self, o: MacOutput);
}

impl MacSink for Vec<MacOutput> {
    #[inline]
    fn push(&mut self, o: MacOutput) {
        Vec::push(self, o);
    }
}
