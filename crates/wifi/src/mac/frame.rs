//! Frames as the MAC and the medium exchange them.
//!
//! A [`Frame`] is one PPDU: its PHY-level fields (rate, airtime, the
//! Duration/ID of its first MPDU) and a list of MPDUs ([`Mpdus`]). A data
//! MPDU holds its MSDU through an owned, shared handle ([`Msdu`], an
//! `Rc<Packet>`): the transmitter keeps one handle for retransmissions and
//! puts another on the air (no packet copy per attempt), and the receiver
//! takes the handle out of the frame it received (the medium never reads a
//! packet back from a transmitter). Control frames carry no MPDU list entry, or one
//! with a control body (BlockAck, BlockAckReq). The medium sets each MPDU's
//! `fcs_ok` at the intended receiver (per-MPDU error outcomes, so an
//! aggregate can lose some MPDUs and keep others) before `on_rx_end`.
//!
//! Invariants: `mpdu_bytes` is the PSDU length (the sum of the MPDUs and,
//! in an A-MPDU, their delimiters and padding); `seq`/`retry` mirror the
//! first MPDU of a data frame; the medium's logic depends on
//! [`FrameKind::carries_msdus`] and the MPDU list only, never on a specific
//! kind, so a new MAC adds frame kinds without touching the medium.
use crate::phy::Rate;
use std::rc::Rc;
use wifitcp_core::{DropReason, PacketId, SimDur};
use wifitcp_wire::Packet;

/// An MSDU as MACs and frames hold it: a shared, immutable handle to the
/// packet (cloning it copies no packet). The receiver's caller gets its own
/// `Packet` with `Rc::unwrap_or_clone`.
///
/// The count is not atomic: every handle of a packet lives in one
/// simulated world, which runs on one thread (the world is not `Send`; the
/// emulator and the Python `Network` build it on the thread that runs it),
/// so MACs, frames and a medium holding MSDUs are not `Send` either. An
/// `Arc` would cost a locked instruction per attempt's handle and per
/// delivery.
pub type Msdu = Rc<Packet>;

/// A station's address within its BSS (dense index; the simulator maps it
/// to a node).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MacAddr(pub u32);

/// Frame type and subtype (802.11-2020 9.2.4.1.3, Table 9-1), the ones the
/// simulator's MACs use or will use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// Data (non-QoS, 24-byte header).
    Data,
    /// QoS Data (26-byte header with QoS Control, 9.2.4.5).
    QosData,
    /// QoS Null (no body).
    QosNull,
    /// QoS CF-Poll (no data, 9.2.4.1.3 Table 9-1 subtype 1110): the
    /// hybrid coordinator grants the addressed station a TXOP of the
    /// Duration it carries (10.23.3).
    QosCfPoll,
    Ack,
    Rts,
    Cts,
    /// BlockAck (9.3.1.8).
    BlockAck,
    /// BlockAckReq (9.3.1.7).
    BlockAckReq,
    /// CF-Poll (data subtype, PCF 11.4 of 802.11-2012).
    CfPoll,
    /// CF-End (9.3.1.6).
    CfEnd,
    /// Beacon (9.3.3.2).
    Beacon,
    /// Data with the CF-Ack and/or CF-Poll subfields of the data subtype
    /// (9.2.4.1.3, Table 9-1: Data+CF-Ack, Data+CF-Poll,
    /// Data+CF-Ack+CF-Poll), sent only in a contention-free period (PCF).
    DataCf {
        ack: bool,
        poll: bool,
    },
    /// Null (no data, 9.2.4.1.3): a polled station's answer with nothing to send.
    Null,
    /// CF-Ack (no data).
    CfAck,
    /// CF-Ack+CF-Poll (no data).
    CfAckPoll,
    /// CF-End+CF-Ack (9.3.1.6).
    CfEndAck,
    /// A Basic Trigger frame (802.11ax-2021 9.3.1.22.2) soliciting HE TB
    /// PPDUs of uplink data from the stations of its `mu` users
    /// (`mac::mu_frame`).
    Trigger,
}

impl FrameKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FrameKind::Data => "data",
            FrameKind::QosData => "qos-data",
            FrameKind::QosNull => "qos-null",
            FrameKind::QosCfPoll => "qos-cf-poll",
            FrameKind::Ack => "ack",
            FrameKind::Rts => "rts",
            FrameKind::Cts => "cts",
            FrameKind::BlockAck => "block-ack",
            FrameKind::BlockAckReq => "block-ack-req",
            FrameKind::CfPoll => "cf-poll",
            FrameKind::CfEnd => "cf-end",
            FrameKind::Beacon => "beacon",
            FrameKind::DataCf { ack: true, poll: true } => "data+cf-ack+cf-poll",
            FrameKind::DataCf { ack: true, poll: false } => "data+cf-ack",
            FrameKind::DataCf { ack: false, poll: true } => "data+cf-poll",
            FrameKind::DataCf { ack: false, poll: false } => "data",
            FrameKind::Null => "null",
            FrameKind::CfAck => "cf-ack",
            FrameKind::CfAckPoll => "cf-ack+cf-poll",
            FrameKind::CfEndAck => "cf-end+cf-ack",
            FrameKind::Trigger => "trigger",
        }
    }

    /// A frame that may carry MSDUs (Data, QoS Data): the medium reports its
    /// airtime, judges it with the data frames' error stream and shows its
    /// MSDU to a capture. Everything else is a control or management frame.
    #[inline]
    pub fn carries_msdus(self) -> bool {
        matches!(self, FrameKind::Data | FrameKind::QosData | FrameKind::DataCf { .. })
    }

    /// Whether the frame carries a CF-Ack (PCF, 10.4.4.1): it acknowledges
    /// the data frame that immediately preceded it.
    #[inline]
    pub fn cf_ack(self) -> bool {
        matches!(
            self,
            FrameKind::DataCf { ack: true, .. } | FrameKind::CfAck | FrameKind::CfAckPoll | FrameKind::CfEndAck
        )
    }

    /// Whether the frame carries a CF-Poll (PCF, 10.4.4.1).
    #[inline]
    pub fn cf_poll(self) -> bool {
        matches!(self, FrameKind::DataCf { poll: true, .. } | FrameKind::CfPoll | FrameKind::CfAckPoll)
    }
}

/// Ack Policy subfield of the QoS Control field (9.2.4.5.4, Table 9-11).
/// Non-QoS data frames are always acknowledged (`Normal`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AckPolicy {
    /// Normal Ack (or implicit BlockAckReq inside an A-MPDU): the receiver
    /// answers with an ACK (or BlockAck) after SIFS.
    #[default]
    Normal,
    /// No Ack: the receiver sends no response; the transmitter neither waits
    /// nor retransmits.
    NoAck,
    /// Block Ack: acknowledged later by a BlockAck answering a BlockAckReq.
    BlockAck,
}

/// What an MPDU carries.
#[derive(Clone, Debug, Default)]
pub enum MpduBody {
    /// No body (QoS Null, a control frame's single entry).
    #[default]
    Empty,
    /// An MSDU, owned by the frame.
    Msdu(Msdu),
    /// The MSDU its sender's MAC holds in service, not yet put in the
    /// frame (`Mac::lend_msdus` says when the medium has it lent). In a
    /// cell of thousands a station's packet is rarely in the nearest
    /// cache, and taking a handle writes its count: a collision of tens of
    /// frames would write tens of distant lines that only the receiver of
    /// an intact frame needs.
    AtSender,
    /// An MSDU the receiver took out of the frame (its id remains).
    Taken(PacketId),
    /// BlockAck: starting sequence number and the compressed bitmap
    /// (9.3.1.8.2), for traffic identifier `tid` (the bitmap boxed: its
    /// 256 bits would make every MPDU, and so every frame, 24 bytes
    /// larger for the one kind that carries it).
    BlockAck { tid: u8, start_seq: u16, bitmap: Box<crate::mac::blockack::Bitmap> },
    /// BlockAckReq: starting sequence number (9.3.1.7).
    BlockAckReq { tid: u8, start_seq: u16 },
}

/// One MPDU of a frame.
#[derive(Clone, Debug)]
pub struct Mpdu {
    /// Sequence number, modulo 4096 (9.2.4.4.2).
    pub seq: u16,
    /// Retry subfield of Frame Control (9.2.4.1.6).
    pub retry: bool,
    /// Traffic identifier (0 for non-QoS data).
    pub tid: u8,
    pub ack: AckPolicy,
    /// MPDU length including header and FCS, in bytes.
    pub bytes: u32,
    pub body: MpduBody,
    /// Whether the MPDU's FCS checked at the intended receiver: set by the
    /// medium before `on_rx_end` (meaningful only there).
    pub fcs_ok: bool,
}

impl Mpdu {
    /// The MSDU's id, whether still in the frame or taken.
    pub fn msdu_id(&self) -> Option<PacketId> {
        match &self.body {
            MpduBody::Msdu(p) => Some(p.id),
            MpduBody::Taken(id) => Some(*id),
            _ => None,
        }
    }

    /// The MSDU, if still in the frame.
    pub fn msdu(&self) -> Option<&Packet> {
        match &self.body {
            MpduBody::Msdu(p) => Some(p),
            _ => None,
        }
    }

    /// Take the MSDU out of the frame (the receiver's delivery).
    pub fn take_msdu(&mut self) -> Option<Msdu> {
        let MpduBody::Msdu(p) = &self.body else { return None };
        let id = p.id;
        match std::mem::replace(&mut self.body, MpduBody::Taken(id)) {
            MpduBody::Msdu(p) => Some(p),
            _ => unreachable!(),
        }
    }
}

/// The MPDUs of a frame: none, one (stored inline, the common case; no
/// allocation per frame), or several (an A-MPDU).
#[derive(Clone, Debug, Default)]
pub struct Mpdus(Inner);

#[allow(clippy::large_enum_variant)] // inline on purpose: no allocation per frame
#[derive(Clone, Debug, Default)]
enum Inner {
    #[default]
    None,
    One(Mpdu),
    Many(Vec<Mpdu>),
}

impl Mpdus {
    pub const fn none() -> Mpdus {
        Mpdus(Inner::None)
    }
    pub fn one(m: Mpdu) -> Mpdus {
        Mpdus(Inner::One(m))
    }
    pub fn many(v: Vec<Mpdu>) -> Mpdus {
        Mpdus(Inner::Many(v))
    }
    #[inline]
    pub fn as_slice(&self) -> &[Mpdu] {
        match &self.0 {
            Inner::None => &[],
            Inner::One(m) => std::slice::from_ref(m),
            Inner::Many(v) => v,
        }
    }
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Mpdu] {
        match &mut self.0 {
            Inner::None => &mut [],
            Inner::One(m) => std::slice::from_mut(m),
            Inner::Many(v) => v,
        }
    }
    #[inline]
    pub fn len(&self) -> usize {
        match &self.0 {
            Inner::None => 0,
            Inner::One(_) => 1,
            Inner::Many(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Mpdu> {
        self.as_slice().iter()
    }
    #[inline]
    pub fn first(&self) -> Option<&Mpdu> {
        match &self.0 {
            Inner::None => None,
            Inner::One(m) => Some(m),
            Inner::Many(v) => v.first(),
        }
    }
    #[inline]
    pub fn first_mut(&mut self) -> Option<&mut Mpdu> {
        match &mut self.0 {
            Inner::None => None,
            Inner::One(m) => Some(m),
            Inner::Many(v) => v.first_mut(),
        }
    }
    /// The MPDU of a frame that has exactly one (`None` for none or an
    /// aggregate): the common case, without building a slice.
    #[inline]
    pub fn single(&self) -> Option<&Mpdu> {
        match &self.0 {
            Inner::One(m) => Some(m),
            _ => None,
        }
    }
    /// The MPDUs as a vector (an MU PPDU's users are judged one by one).
    pub fn into_vec(self) -> Vec<Mpdu> {
        match self.0 {
            Inner::None => Vec::new(),
            Inner::One(m) => vec![m],
            Inner::Many(v) => v,
        }
    }
    /// Set every MPDU's FCS outcome.
    #[inline]
    pub fn set_fcs_all(&mut self, ok: bool) {
        match &mut self.0 {
            Inner::None => {}
            Inner::One(m) => m.fcs_ok = ok,
            Inner::Many(v) => v.iter_mut().for_each(|m| m.fcs_ok = ok),
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
    /// Sequence number of the first MPDU of a data frame, modulo 4096
    /// (9.2.4.4.2).
    pub seq: u16,
    /// Retry subfield of the first MPDU (9.2.4.1.6).
    pub retry: bool,
    /// PSDU length in bytes: the MPDU including header and FCS, or an
    /// A-MPDU's MPDUs with delimiters and padding.
    pub mpdu_bytes: u32,
    pub rate: Rate,
    pub airtime: SimDur,
    /// Sent after winning contention (an RTS, or a data frame without
    /// RTS/CTS): the frames whose collisions define the conditional
    /// collision probability. False for responses, data after a CTS, and
    /// frames sent without contention (PIFS, within a TXOP).
    pub contended: bool,
    /// The MPDUs (empty for control frames without a body).
    pub mpdus: Mpdus,
    /// The users of a multi-user frame (`mac::mu_frame`); `None`: the
    /// frame is for its RA alone.
    pub mu: Option<Box<crate::mac::mu_frame::MuInfo>>,
}

/// A frame kept boxed (the one an RTS protects) when its owner keeps
/// whole frames.
impl From<Box<Frame>> for Frame {
    fn from(f: Box<Frame>) -> Frame {
        *f
    }
}

impl Frame {
    /// The MSDU of the first MPDU, if the frame still holds one.
    pub fn first_msdu(&self) -> Option<&Packet> {
        self.mpdus.first().and_then(|m| m.msdu())
    }
}

/// What a MAC asks its caller to do or tells it.
#[derive(Debug)]
pub enum MacOutput {
    /// Put this frame on the medium now; the caller calls `on_tx_end` after
    /// `frame.airtime`, and gives the frame (with per-MPDU outcomes) to
    /// every station that receives it.
    StartTx(Frame),
    /// A new (non-duplicate) MSDU was received from `from` for the upper
    /// layer, taken out of the received frame.
    Deliver { from: MacAddr, pkt: Msdu },
    /// An MSDU's exchange ended successfully: acknowledged, or sent with
    /// the No Ack policy.
    Acked(PacketId),
    /// An MSDU was discarded: one in service (retry limit), one sent with
    /// the No Ack policy that its receiver did not get (`NoAckLost`), or,
    /// at a receiver, a new MSDU taken for a duplicate (`DuplicateFrame`).
    Dropped(PacketId, DropReason),
    /// An MSDU was discarded at the retry limit although a copy of it had
    /// reached its receiver (every acknowledgement of it was lost): the
    /// MAC counts the discard, the packet's fate is the receiver's copy's
    /// (`exchange::Receipts`).
    DiscardedAfterReceipt(PacketId),
    /// The MAC can take MSDUs again (see `Mac::demand`).
    Ready,
}

/// Where a MAC puts its outputs: a `Vec<MacOutput>` (tests, simple
/// callers), or a caller's own sink that handles each output as it is
/// produced (the medium translates them straight into its own outputs).
pub trait MacSink {
    fn push(&mut self, o: MacOutput);

    /// `push(MacOutput::StartTx(build()))`, and what `inspect` reads of
    /// the frame; a sink may instead build the frame where it keeps it and
    /// inspect it there (the medium does: the frame is not copied through
    /// the stack, which a caller reading it after building would force).
    #[inline(always)]
    fn start_tx_with<R>(&mut self, build: impl FnOnce() -> Frame, inspect: impl FnOnce(&Frame) -> R) -> R
    where
        Self: Sized,
    {
        let f = build();
        let r = inspect(&f);
        self.push(MacOutput::StartTx(f));
        r
    }
}

impl MacSink for Vec<MacOutput> {
    #[inline]
    fn push(&mut self, o: MacOutput) {
        Vec::push(self, o);
    }
}

#[cfg(test)]
mod tests {
    /// A frame is copied from its MAC to the medium's list of frames on
    /// the air and out again at its end, and at the start of a saturated
    /// run every station has one on the air: it stays at 80 bytes (the
    /// BlockAck bitmap boxed, an MPDU 32 bytes).
    #[test]
    fn a_frame_is_eighty_bytes() {
        assert_eq!(std::mem::size_of::<super::Mpdu>(), 32);
        assert_eq!(std::mem::size_of::<super::Mpdus>(), 32);
        assert_eq!(std::mem::size_of::<super::Frame>(), 80);
    }
}
