//! IEEE 802.11 MAC frames (IEEE 802.11-2020 clause 9), without the FCS
//! (see [`append_fcs`] / [`strip_fcs`]).
//!
//! Modelled:
//! - Frame Control (9.2.4.1), Duration/ID (9.2.4.2), Sequence Control
//!   (9.2.4.4), QoS Control (9.2.4.5), HT Control (9.2.4.6, present in a
//!   QoS data frame whose Order bit is set, 9.2.4.1.10);
//! - every data-type subtype (9.3.2.1): Data, Null, QoS Data, QoS Null and
//!   the CF-Ack/CF-Poll variants, with Address 4 when To DS and From DS are
//!   both set. The non-QoS CF-Poll subtypes (0010 Data+CF-Poll, 0110 CF-Poll
//!   (no data)) are those of PCF, 802.11-2007 Table 7-1; 802.11-2020
//!   Table 9-1 keeps only the QoS CF-Poll subtypes. wifitcp models PCF, so
//!   they are kept (the subtype field is stored as sent);
//! - control frames: RTS (9.3.1.2), CTS (9.3.1.3), Ack (9.3.1.4), CF-End
//!   and CF-End+CF-Ack (9.3.1.6), BlockAckReq basic/compressed (9.3.1.7), BlockAck basic
//!   (9.3.1.8, 128-octet bitmap) and compressed (64-bit bitmap); other
//!   control subtypes and BlockAck variants (Multi-TID, GCR, extended
//!   compressed) are `Unsupported`;
//! - the Beacon frame (9.3.3.2) with its fixed fields (Timestamp 9.4.1.10,
//!   Beacon Interval 9.4.1.3, Capability Information 9.4.1.4) and elements
//!   (9.4.2.1): SSID (9.4.2.2), Supported Rates (9.4.2.3), DSSS Parameter
//!   Set (9.4.2.4), CF Parameter Set (9.4.2.5), TIM (9.4.2.6); any other
//!   element is kept as `Element::Unknown`. Other
//!   management subtypes are `Unsupported`.
//!
//! Canonical: `emit(parse(b)) == b` for every frame that parses (no field is
//! normalised; reserved bits are kept in the raw control words).
use super::{le16, le32, put_le16, put_le32, Error, MacAddress, Result};

/// Frame types (9.2.4.1.3, Table 9-1).
pub mod ftype {
    pub const MGMT: u8 = 0;
    pub const CTRL: u8 = 1;
    pub const DATA: u8 = 2;
}

/// Subtypes (Table 9-1).
pub mod subtype {
    pub const BEACON: u8 = 0b1000;
    pub const BLOCK_ACK_REQ: u8 = 0b1000;
    pub const BLOCK_ACK: u8 = 0b1001;
    pub const RTS: u8 = 0b1011;
    pub const CTS: u8 = 0b1100;
    pub const ACK: u8 = 0b1101;
    pub const CF_END: u8 = 0b1110;
    pub const CF_END_ACK: u8 = 0b1111;
    pub const DATA: u8 = 0b0000;
    pub const DATA_CF_POLL: u8 = 0b0010;
    pub const NULL: u8 = 0b0100;
    pub const CF_POLL: u8 = 0b0110;
    pub const QOS_DATA: u8 = 0b1000;
    pub const QOS_NULL: u8 = 0b1100;
    /// QoS CF-Poll (no data), sent by a hybrid coordinator.
    pub const QOS_CF_POLL: u8 = 0b1110;
    /// Data subtype bit: QoS Control present.
    pub const QOS_BIT: u8 = 0b1000;
}

/// The flags byte of Frame Control (9.2.4.1.1, Figure 9-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct FcFlags(pub u8);

impl FcFlags {
    pub const TO_DS: u8 = 0x01;
    pub const FROM_DS: u8 = 0x02;
    pub const MORE_FRAGMENTS: u8 = 0x04;
    pub const RETRY: u8 = 0x08;
    pub const POWER_MGMT: u8 = 0x10;
    pub const MORE_DATA: u8 = 0x20;
    pub const PROTECTED: u8 = 0x40;
    pub const ORDER: u8 = 0x80;
    pub fn has(self, f: u8) -> bool {
        self.0 & f != 0
    }
}

/// Sequence Control (9.2.4.4): 4-bit fragment number, 12-bit sequence number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SeqCtrl {
    pub frag: u8,
    pub seq: u16,
}

impl SeqCtrl {
    pub fn from_raw(v: u16) -> SeqCtrl {
        SeqCtrl { frag: (v & 0x0f) as u8, seq: v >> 4 }
    }
    pub fn to_raw(self) -> Result<u16> {
        if self.frag > 0x0f || self.seq > 0x0fff {
            return Err(Error::Invalid("sequence control out of range"));
        }
        Ok(self.seq << 4 | self.frag as u16)
    }
}

/// The FCS's length (9.2.4.8).
pub const FCS_LEN: usize = 4;
const BAR_LEN: usize = 20;
const BA_COMPRESSED_LEN: usize = 28;
/// Basic BlockAck: 16-octet header, BA Control, BA Starting Sequence
/// Control, 128-octet bitmap (9.3.1.8), without FCS.
const BA_BASIC_LEN: usize = 148;

/// BAR/BA Control bits (9.3.1.7.1 Figure 9-35, 9.3.1.8.1 Figure 9-39).
pub mod ba_control {
    pub const MULTI_TID: u16 = 0x0002;
    pub const COMPRESSED_BITMAP: u16 = 0x0004;
    pub const GCR: u16 = 0x0008;
    /// The three variant bits; all clear is the basic variant.
    pub const VARIANT: u16 = MULTI_TID | COMPRESSED_BITMAP | GCR;
    /// TID_INFO, bits 12-15.
    pub fn tid(control: u16) -> u8 {
        (control >> 12) as u8
    }
}

/// A view of an 802.11 MAC frame (FCS excluded) over a buffer.
#[derive(Debug, Clone)]
pub struct MacFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> MacFrame<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        MacFrame { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let f = MacFrame { buffer };
        f.check_len()?;
        Ok(f)
    }
    /// Frame Control readable, a protocol version of 0, a modelled type and
    /// subtype, and the whole header (for control frames: the whole frame)
    /// inside the buffer.
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < 2 {
            return Err(Error::Truncated);
        }
        let hl = self.header_len()?;
        if self.buffer.as_ref().len() < hl {
            return Err(Error::Truncated);
        }
        Ok(())
    }
    pub fn into_inner(self) -> T {
        self.buffer
    }
    pub fn protocol_version(&self) -> u8 {
        self.buffer.as_ref()[0] & 0b11
    }
    pub fn frame_type(&self) -> u8 {
        (self.buffer.as_ref()[0] >> 2) & 0b11
    }
    pub fn subtype(&self) -> u8 {
        self.buffer.as_ref()[0] >> 4
    }
    pub fn flags(&self) -> FcFlags {
        FcFlags(self.buffer.as_ref()[1])
    }
    /// Length of the MAC header (control frames: the fixed frame length
    /// without FCS), from Frame Control alone.
    pub fn header_len(&self) -> Result<usize> {
        if self.protocol_version() != 0 {
            return Err(Error::Unsupported("802.11 protocol version other than 0"));
        }
        let fl = self.flags();
        let st = self.subtype();
        match self.frame_type() {
            ftype::DATA => {
                let mut n = 24;
                if fl.has(FcFlags::TO_DS) && fl.has(FcFlags::FROM_DS) {
                    n += 6;
                }
                if st & subtype::QOS_BIT != 0 {
                    n += 2;
                    if fl.has(FcFlags::ORDER) {
                        n += 4;
                    }
                }
                Ok(n)
            }
            ftype::CTRL => match st {
                subtype::RTS | subtype::CF_END | subtype::CF_END_ACK => Ok(16),
                subtype::CTS | subtype::ACK => Ok(10),
                subtype::BLOCK_ACK_REQ => Ok(BAR_LEN),
                // The BlockAck variant is in BA Control (octets 16-17).
                subtype::BLOCK_ACK => Ok(match self.buffer.as_ref().get(16..18) {
                    Some(c) if u16::from_le_bytes([c[0], c[1]]) & ba_control::VARIANT == 0 => BA_BASIC_LEN,
                    _ => BA_COMPRESSED_LEN,
                }),
                _ => Err(Error::Unsupported("control frame subtype")),
            },
            ftype::MGMT => {
                if st != subtype::BEACON {
                    return Err(Error::Unsupported("management frame subtype other than Beacon"));
                }
                if fl.has(FcFlags::ORDER) {
                    return Err(Error::Unsupported("management frame with HT Control"));
                }
                Ok(24)
            }
            _ => Err(Error::Unsupported("extension frame type")),
        }
    }
    pub fn duration(&self) -> u16 {
        le16(self.buffer.as_ref(), 2)
    }
    pub fn addr1(&self) -> MacAddress {
        MacAddress::from_slice(&self.buffer.as_ref()[4..10])
    }
    /// Address 2 (TA/SA/BSSID); absent in CTS and Ack.
    pub fn addr2(&self) -> Option<MacAddress> {
        if self.frame_type() == ftype::CTRL && matches!(self.subtype(), subtype::CTS | subtype::ACK) {
            return None;
        }
        Some(MacAddress::from_slice(&self.buffer.as_ref()[10..16]))
    }
    fn has_seq(&self) -> bool {
        self.frame_type() != ftype::CTRL
    }
    pub fn addr3(&self) -> Option<MacAddress> {
        self.has_seq().then(|| MacAddress::from_slice(&self.buffer.as_ref()[16..22]))
    }
    pub fn seq_ctrl(&self) -> Option<SeqCtrl> {
        self.has_seq().then(|| SeqCtrl::from_raw(le16(self.buffer.as_ref(), 22)))
    }
    fn has_addr4(&self) -> bool {
        self.frame_type() == ftype::DATA && self.flags().has(FcFlags::TO_DS) && self.flags().has(FcFlags::FROM_DS)
    }
    pub fn addr4(&self) -> Option<MacAddress> {
        self.has_addr4().then(|| MacAddress::from_slice(&self.buffer.as_ref()[24..30]))
    }
    fn is_qos(&self) -> bool {
        self.frame_type() == ftype::DATA && self.subtype() & subtype::QOS_BIT != 0
    }
    pub fn qos_control(&self) -> Option<u16> {
        let at = if self.has_addr4() { 30 } else { 24 };
        self.is_qos().then(|| le16(self.buffer.as_ref(), at))
    }
    pub fn ht_control(&self) -> Option<u32> {
        let at = if self.has_addr4() { 32 } else { 26 };
        (self.is_qos() && self.flags().has(FcFlags::ORDER)).then(|| le32(self.buffer.as_ref(), at))
    }
    /// The frame body (after the header), empty for control frames.
    pub fn body(&self) -> &[u8] {
        let hl = self.header_len().unwrap_or(usize::MAX);
        self.buffer.as_ref().get(hl..).unwrap_or(&[])
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> MacFrame<T> {
    pub fn body_mut(&mut self) -> &mut [u8] {
        let hl = self.header_len().unwrap_or(usize::MAX);
        self.buffer.as_mut().get_mut(hl..).unwrap_or(&mut [])
    }
}

/// Append the FCS (CRC-32, 9.2.4.8) of `frame` to it.
pub fn append_fcs(frame: &mut Vec<u8>) {
    let c = super::crc32(frame);
    frame.extend_from_slice(&c.to_le_bytes());
}

/// Check and remove the FCS: the frame without it.
pub fn strip_fcs(frame_with_fcs: &[u8]) -> Result<&[u8]> {
    if frame_with_fcs.len() < FCS_LEN {
        return Err(Error::Truncated);
    }
    let (f, fcs) = frame_with_fcs.split_at(frame_with_fcs.len() - FCS_LEN);
    if super::crc32(f).to_le_bytes() != fcs {
        return Err(Error::Checksum);
    }
    Ok(f)
}

/// A data-type frame (9.3.2.1): Data, QoS Data, Null, CF-Poll, ...
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataFrameRepr {
    /// The 4-bit subtype (`subtype::DATA`, `QOS_DATA`, `CF_POLL`, ...);
    /// bit 3 set means QoS Control is present.
    pub subtype: u8,
    pub flags: FcFlags,
    pub duration: u16,
    pub addr1: MacAddress,
    pub addr2: MacAddress,
    pub addr3: MacAddress,
    pub seq_ctrl: SeqCtrl,
    /// Present exactly when To DS and From DS are both set.
    pub addr4: Option<MacAddress>,
    /// Present exactly when the subtype is a QoS subtype.
    pub qos_control: Option<u16>,
    /// Present exactly when QoS and the Order bit are set.
    pub ht_control: Option<u32>,
    /// Frame body length (an LLC/SNAP MSDU, or 0 for Null/CF-Poll).
    pub payload_len: usize,
}

impl DataFrameRepr {
    pub fn header_len(&self) -> usize {
        24 + 6 * self.addr4.is_some() as usize
            + 2 * self.qos_control.is_some() as usize
            + 4 * self.ht_control.is_some() as usize
    }
    fn check(&self) -> Result<()> {
        if self.subtype > 0x0f {
            return Err(Error::Invalid("subtype over 4 bits"));
        }
        let wds = self.flags.has(FcFlags::TO_DS) && self.flags.has(FcFlags::FROM_DS);
        let qos = self.subtype & subtype::QOS_BIT != 0;
        if wds != self.addr4.is_some() {
            return Err(Error::Invalid("Address 4 presence differs from To DS and From DS"));
        }
        if qos != self.qos_control.is_some() {
            return Err(Error::Invalid("QoS Control presence differs from the subtype"));
        }
        if (qos && self.flags.has(FcFlags::ORDER)) != self.ht_control.is_some() {
            return Err(Error::Invalid("HT Control presence differs from QoS and Order"));
        }
        Ok(())
    }
}

/// A BlockAckReq (9.3.1.7): basic or compressed (same layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockAckReqRepr {
    pub flags: FcFlags,
    pub duration: u16,
    pub ra: MacAddress,
    pub ta: MacAddress,
    /// BAR Control; Multi-TID and GCR clear.
    pub control: u16,
    pub start: SeqCtrl,
}

/// A compressed BlockAck (9.3.1.8.2): 64-bit bitmap, bit i acknowledges
/// sequence number `start.seq + i` (mod 4096).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockAckRepr {
    pub flags: FcFlags,
    pub duration: u16,
    pub ra: MacAddress,
    pub ta: MacAddress,
    /// BA Control; Compressed Bitmap set, Multi-TID and GCR clear.
    pub control: u16,
    pub start: SeqCtrl,
    pub bitmap: u64,
}

/// A basic BlockAck (9.3.1.8): a 128-octet bitmap, one 16-bit word per
/// MSDU (`start.seq + i`, mod 4096), bit j of a word acknowledging its
/// fragment j.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BasicBlockAckRepr {
    pub flags: FcFlags,
    pub duration: u16,
    pub ra: MacAddress,
    pub ta: MacAddress,
    /// BA Control; Multi-TID, Compressed Bitmap and GCR clear.
    pub control: u16,
    pub start: SeqCtrl,
    pub bitmap: [u16; 64],
}

/// A management frame element (9.4.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Element {
    /// SSID (ID 0, 0..=32 octets, 9.4.2.2).
    Ssid(Vec<u8>),
    /// Supported Rates and BSS Membership Selectors (ID 1, 1..=8 octets,
    /// 9.4.2.3): each in 500 kbit/s, top bit = basic rate.
    SupportedRates(Vec<u8>),
    /// DSSS Parameter Set (ID 3, 9.4.2.4): current channel.
    DsssParameterSet(u8),
    /// CF Parameter Set (ID 4, 6 octets, 9.4.2.5): CFP count, period,
    /// CFPMaxDuration and CFPDurRemaining (TU).
    CfParameterSet { count: u8, period: u8, max_duration: u16, dur_remaining: u16 },
    /// TIM (ID 5, 9.4.2.6): DTIM count, period, bitmap control, partial
    /// virtual bitmap (1..=251 octets).
    Tim { dtim_count: u8, dtim_period: u8, bitmap_control: u8, bitmap: Vec<u8> },
    /// Any other element: ID and body (0..=255 octets).
    Unknown { id: u8, data: Vec<u8> },
}

mod eid {
    pub const SSID: u8 = 0;
    pub const RATES: u8 = 1;
    pub const DSSS: u8 = 3;
    pub const CF: u8 = 4;
    pub const TIM: u8 = 5;
}

impl Element {
    fn body_len(&self) -> usize {
        match self {
            Element::Ssid(s) => s.len(),
            Element::SupportedRates(r) => r.len(),
            Element::DsssParameterSet(_) => 1,
            Element::CfParameterSet { .. } => 6,
            Element::Tim { bitmap, .. } => 3 + bitmap.len(),
            Element::Unknown { data, .. } => data.len(),
        }
    }
    /// Encoded length: ID, Length, body.
    pub fn len(&self) -> usize {
        2 + self.body_len()
    }
    pub fn is_empty(&self) -> bool {
        false
    }
    fn check(&self) -> Result<()> {
        let ok = match self {
            Element::Ssid(s) => s.len() <= 32,
            Element::SupportedRates(r) => (1..=8).contains(&r.len()),
            Element::Tim { bitmap, .. } => (1..=251).contains(&bitmap.len()),
            Element::Unknown { id, data } => {
                data.len() <= 255 && !matches!(*id, eid::SSID | eid::RATES | eid::DSSS | eid::CF | eid::TIM)
            }
            _ => true,
        };
        if ok {
            Ok(())
        } else {
            Err(Error::Invalid("element body length out of range or Unknown with a modelled ID"))
        }
    }
    fn parse(id: u8, d: &[u8]) -> Result<Element> {
        let bad = Error::Malformed("element of a modelled ID with a wrong length");
        Ok(match id {
            eid::SSID if d.len() <= 32 => Element::Ssid(d.to_vec()),
            eid::RATES if (1..=8).contains(&d.len()) => Element::SupportedRates(d.to_vec()),
            eid::DSSS if d.len() == 1 => Element::DsssParameterSet(d[0]),
            eid::CF if d.len() == 6 => Element::CfParameterSet {
                count: d[0],
                period: d[1],
                max_duration: le16(d, 2),
                dur_remaining: le16(d, 4),
            },
            eid::TIM if (4..=254).contains(&d.len()) => {
                Element::Tim { dtim_count: d[0], dtim_period: d[1], bitmap_control: d[2], bitmap: d[3..].to_vec() }
            }
            eid::SSID | eid::RATES | eid::DSSS | eid::CF | eid::TIM => return Err(bad),
            _ => Element::Unknown { id, data: d.to_vec() },
        })
    }
    fn write(&self, out: &mut [u8]) {
        out[1] = self.body_len() as u8;
        let d = &mut out[2..];
        out[0] = match self {
            Element::Ssid(s) => {
                d[..s.len()].copy_from_slice(s);
                eid::SSID
            }
            Element::SupportedRates(r) => {
                d[..r.len()].copy_from_slice(r);
                eid::RATES
            }
            Element::DsssParameterSet(c) => {
                d[0] = *c;
                eid::DSSS
            }
            Element::CfParameterSet { count, period, max_duration, dur_remaining } => {
                d[0] = *count;
                d[1] = *period;
                put_le16(d, 2, *max_duration);
                put_le16(d, 4, *dur_remaining);
                eid::CF
            }
            Element::Tim { dtim_count, dtim_period, bitmap_control, bitmap } => {
                d[..3].copy_from_slice(&[*dtim_count, *dtim_period, *bitmap_control]);
                d[3..3 + bitmap.len()].copy_from_slice(bitmap);
                eid::TIM
            }
            Element::Unknown { id, data } => {
                d[..data.len()].copy_from_slice(data);
                *id
            }
        };
    }
}

/// Parse a sequence of elements filling `b` exactly.
pub fn parse_elements(mut b: &[u8]) -> Result<Vec<Element>> {
    let mut out = Vec::new();
    while !b.is_empty() {
        if b.len() < 2 {
            return Err(Error::Malformed("element header cut short"));
        }
        let (id, len) = (b[0], b[1] as usize);
        if b.len() < 2 + len {
            return Err(Error::Malformed("element runs past the frame body"));
        }
        out.push(Element::parse(id, &b[2..2 + len])?);
        b = &b[2 + len..];
    }
    Ok(out)
}

/// A Beacon frame (9.3.3.2).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BeaconRepr {
    pub flags: FcFlags,
    pub duration: u16,
    /// Address 1: the broadcast address for beacons.
    pub da: MacAddress,
    pub sa: MacAddress,
    pub bssid: MacAddress,
    pub seq_ctrl: SeqCtrl,
    /// TSF timer value, microseconds (9.4.1.10).
    pub timestamp: u64,
    /// In time units of 1024 us (9.4.1.3).
    pub beacon_interval: u16,
    /// Capability Information (9.4.1.4): bit 0 ESS, bit 2 CF-Pollable,
    /// bit 3 CF-Poll Request, bit 4 Privacy, ...
    pub capability: u16,
    pub elements: Vec<Element>,
}

impl BeaconRepr {
    fn body_len(&self) -> usize {
        12 + self.elements.iter().map(Element::len).sum::<usize>()
    }
}

/// The meaning of one 802.11 MAC frame (FCS excluded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MacFrameRepr {
    Data(DataFrameRepr),
    Rts {
        flags: FcFlags,
        duration: u16,
        ra: MacAddress,
        ta: MacAddress,
    },
    Cts {
        flags: FcFlags,
        duration: u16,
        ra: MacAddress,
    },
    Ack {
        flags: FcFlags,
        duration: u16,
        ra: MacAddress,
    },
    CfEnd {
        flags: FcFlags,
        duration: u16,
        ra: MacAddress,
        bssid: MacAddress,
    },
    /// CF-End+CF-Ack (9.3.1.6, same layout as CF-End).
    CfEndAck {
        flags: FcFlags,
        duration: u16,
        ra: MacAddress,
        bssid: MacAddress,
    },
    BlockAckReq(BlockAckReqRepr),
    BlockAck(BlockAckRepr),
    BasicBlockAck(BasicBlockAckRepr),
    Beacon(BeaconRepr),
}

impl MacFrameRepr {
    pub fn parse<T: AsRef<[u8]> + ?Sized>(f: &MacFrame<&T>) -> Result<MacFrameRepr> {
        f.check_len()?;
        let b = f.buffer.as_ref();
        let flags = f.flags();
        let duration = f.duration();
        let ra = f.addr1();
        let ta = MacAddress::from_slice(b.get(10..16).unwrap_or(&[0; 6]));
        let exact =
            |n: usize| if b.len() == n { Ok(()) } else { Err(Error::Malformed("control frame of the wrong length")) };
        Ok(match (f.frame_type(), f.subtype()) {
            (ftype::DATA, st) => {
                let hl = f.header_len()?;
                MacFrameRepr::Data(DataFrameRepr {
                    subtype: st,
                    flags,
                    duration,
                    addr1: ra,
                    addr2: ta,
                    addr3: MacAddress::from_slice(&b[16..22]),
                    seq_ctrl: SeqCtrl::from_raw(le16(b, 22)),
                    addr4: f.addr4(),
                    qos_control: f.qos_control(),
                    ht_control: f.ht_control(),
                    payload_len: b.len() - hl,
                })
            }
            (ftype::CTRL, subtype::RTS) => {
                exact(16)?;
                MacFrameRepr::Rts { flags, duration, ra, ta }
            }
            (ftype::CTRL, subtype::CTS) => {
                exact(10)?;
                MacFrameRepr::Cts { flags, duration, ra }
            }
            (ftype::CTRL, subtype::ACK) => {
                exact(10)?;
                MacFrameRepr::Ack { flags, duration, ra }
            }
            (ftype::CTRL, subtype::CF_END) => {
                exact(16)?;
                MacFrameRepr::CfEnd { flags, duration, ra, bssid: ta }
            }
            (ftype::CTRL, subtype::CF_END_ACK) => {
                exact(16)?;
                MacFrameRepr::CfEndAck { flags, duration, ra, bssid: ta }
            }
            (ftype::CTRL, subtype::BLOCK_ACK_REQ) => {
                let control = le16(b, 16);
                if control & (ba_control::MULTI_TID | ba_control::GCR) != 0 {
                    return Err(Error::Unsupported("Multi-TID or GCR BlockAckReq"));
                }
                exact(BAR_LEN)?;
                MacFrameRepr::BlockAckReq(BlockAckReqRepr {
                    flags,
                    duration,
                    ra,
                    ta,
                    control,
                    start: SeqCtrl::from_raw(le16(b, 18)),
                })
            }
            (ftype::CTRL, subtype::BLOCK_ACK) if le16(b, 16) & ba_control::VARIANT == 0 => {
                exact(BA_BASIC_LEN)?;
                let mut bitmap = [0u16; 64];
                for (i, w) in bitmap.iter_mut().enumerate() {
                    *w = le16(b, 20 + 2 * i);
                }
                MacFrameRepr::BasicBlockAck(BasicBlockAckRepr {
                    flags,
                    duration,
                    ra,
                    ta,
                    control: le16(b, 16),
                    start: SeqCtrl::from_raw(le16(b, 18)),
                    bitmap,
                })
            }
            (ftype::CTRL, subtype::BLOCK_ACK) => {
                let control = le16(b, 16);
                if control & (ba_control::MULTI_TID | ba_control::GCR | ba_control::COMPRESSED_BITMAP)
                    != ba_control::COMPRESSED_BITMAP
                {
                    return Err(Error::Unsupported("BlockAck variant other than basic and compressed bitmap"));
                }
                exact(BA_COMPRESSED_LEN)?;
                MacFrameRepr::BlockAck(BlockAckRepr {
                    flags,
                    duration,
                    ra,
                    ta,
                    control,
                    start: SeqCtrl::from_raw(le16(b, 18)),
                    bitmap: u64::from_le_bytes(b[20..28].try_into().map_err(|_| Error::Truncated)?),
                })
            }
            (ftype::MGMT, subtype::BEACON) => {
                let body = &b[24..];
                if body.len() < 12 {
                    return Err(Error::Truncated);
                }
                MacFrameRepr::Beacon(BeaconRepr {
                    flags,
                    duration,
                    da: ra,
                    sa: ta,
                    bssid: MacAddress::from_slice(&b[16..22]),
                    seq_ctrl: SeqCtrl::from_raw(le16(b, 22)),
                    timestamp: u64::from_le_bytes(body[..8].try_into().map_err(|_| Error::Truncated)?),
                    beacon_interval: le16(body, 8),
                    capability: le16(body, 10),
                    elements: parse_elements(&body[12..])?,
                })
            }
            _ => return Err(Error::Unsupported("frame type/subtype")),
        })
    }

    /// Frame length without FCS (data frames: header + `payload_len`).
    pub fn buffer_len(&self) -> usize {
        match self {
            MacFrameRepr::Data(d) => d.header_len() + d.payload_len,
            MacFrameRepr::Rts { .. } | MacFrameRepr::CfEnd { .. } | MacFrameRepr::CfEndAck { .. } => 16,
            MacFrameRepr::Cts { .. } | MacFrameRepr::Ack { .. } => 10,
            MacFrameRepr::BlockAckReq(_) => BAR_LEN,
            MacFrameRepr::BlockAck(_) => BA_COMPRESSED_LEN,
            MacFrameRepr::BasicBlockAck(_) => BA_BASIC_LEN,
            MacFrameRepr::Beacon(b) => 24 + b.body_len(),
        }
    }

    /// Write the frame into a buffer of exactly `buffer_len()` bytes. A data
    /// frame's body is left as it is (write the MSDU with `body_mut`).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, f: &mut MacFrame<T>) -> Result<()> {
        let len = self.buffer_len();
        let b = f.buffer.as_mut();
        if b.len() != len {
            return Err(if b.len() < len { Error::Truncated } else { Error::Invalid("buffer longer than frame") });
        }
        let fc = |b: &mut [u8], t: u8, st: u8, fl: FcFlags, dur: u16, ra: MacAddress| {
            b[0] = st << 4 | t << 2;
            b[1] = fl.0;
            put_le16(b, 2, dur);
            b[4..10].copy_from_slice(&ra.0);
        };
        match self {
            MacFrameRepr::Data(d) => {
                d.check()?;
                let seq = d.seq_ctrl.to_raw()?;
                fc(b, ftype::DATA, d.subtype, d.flags, d.duration, d.addr1);
                b[10..16].copy_from_slice(&d.addr2.0);
                b[16..22].copy_from_slice(&d.addr3.0);
                put_le16(b, 22, seq);
                let mut at = 24;
                if let Some(a4) = d.addr4 {
                    b[24..30].copy_from_slice(&a4.0);
                    at = 30;
                }
                if let Some(q) = d.qos_control {
                    put_le16(b, at, q);
                    at += 2;
                }
                if let Some(h) = d.ht_control {
                    put_le32(b, at, h);
                }
            }
            MacFrameRepr::Rts { flags, duration, ra, ta } => {
                fc(b, ftype::CTRL, subtype::RTS, *flags, *duration, *ra);
                b[10..16].copy_from_slice(&ta.0);
            }
            MacFrameRepr::Cts { flags, duration, ra } => fc(b, ftype::CTRL, subtype::CTS, *flags, *duration, *ra),
            MacFrameRepr::Ack { flags, duration, ra } => fc(b, ftype::CTRL, subtype::ACK, *flags, *duration, *ra),
            MacFrameRepr::CfEnd { flags, duration, ra, bssid } => {
                fc(b, ftype::CTRL, subtype::CF_END, *flags, *duration, *ra);
                b[10..16].copy_from_slice(&bssid.0);
            }
            MacFrameRepr::CfEndAck { flags, duration, ra, bssid } => {
                fc(b, ftype::CTRL, subtype::CF_END_ACK, *flags, *duration, *ra);
                b[10..16].copy_from_slice(&bssid.0);
            }
            MacFrameRepr::BlockAckReq(r) => {
                if r.control & (ba_control::MULTI_TID | ba_control::GCR) != 0 {
                    return Err(Error::Invalid("BlockAckReq with Multi-TID or GCR"));
                }
                let s = r.start.to_raw()?;
                fc(b, ftype::CTRL, subtype::BLOCK_ACK_REQ, r.flags, r.duration, r.ra);
                b[10..16].copy_from_slice(&r.ta.0);
                put_le16(b, 16, r.control);
                put_le16(b, 18, s);
            }
            MacFrameRepr::BlockAck(r) => {
                if r.control & (ba_control::MULTI_TID | ba_control::GCR | ba_control::COMPRESSED_BITMAP)
                    != ba_control::COMPRESSED_BITMAP
                {
                    return Err(Error::Invalid("BlockAck that is not a compressed-bitmap BlockAck"));
                }
                let s = r.start.to_raw()?;
                fc(b, ftype::CTRL, subtype::BLOCK_ACK, r.flags, r.duration, r.ra);
                b[10..16].copy_from_slice(&r.ta.0);
                put_le16(b, 16, r.control);
                put_le16(b, 18, s);
                b[20..28].copy_from_slice(&r.bitmap.to_le_bytes());
            }
            MacFrameRepr::BasicBlockAck(r) => {
                if r.control & ba_control::VARIANT != 0 {
                    return Err(Error::Invalid("basic BlockAck with a variant bit set"));
                }
                let s = r.start.to_raw()?;
                fc(b, ftype::CTRL, subtype::BLOCK_ACK, r.flags, r.duration, r.ra);
                b[10..16].copy_from_slice(&r.ta.0);
                put_le16(b, 16, r.control);
                put_le16(b, 18, s);
                for (i, w) in r.bitmap.iter().enumerate() {
                    put_le16(b, 20 + 2 * i, *w);
                }
            }
            MacFrameRepr::Beacon(r) => {
                if r.flags.has(FcFlags::ORDER) {
                    return Err(Error::Invalid("Beacon with the Order bit (HT Control not modelled)"));
                }
                for e in &r.elements {
                    e.check()?;
                }
                let seq = r.seq_ctrl.to_raw()?;
                fc(b, ftype::MGMT, subtype::BEACON, r.flags, r.duration, r.da);
                b[10..16].copy_from_slice(&r.sa.0);
                b[16..22].copy_from_slice(&r.bssid.0);
                put_le16(b, 22, seq);
                b[24..32].copy_from_slice(&r.timestamp.to_le_bytes());
                put_le16(b, 32, r.beacon_interval);
                put_le16(b, 34, r.capability);
                let mut at = 36;
                for e in &r.elements {
                    e.write(&mut b[at..]);
                    at += e.len();
                }
            }
        }
        Ok(())
    }

    /// The frame with `payload` as a data frame's body (zeros when `None`;
    /// must be `None` or empty for other frames), and the FCS appended
    /// when `fcs`.
    pub fn to_bytes(&self, payload: Option<&[u8]>, fcs: bool) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        if let Some(pl) = payload {
            let body_len = match self {
                MacFrameRepr::Data(d) => d.payload_len,
                _ => 0,
            };
            if pl.len() != body_len {
                return Err(Error::Invalid("payload length differs from payload_len"));
            }
            let at = v.len() - pl.len();
            v[at..].copy_from_slice(pl);
        }
        self.emit(&mut MacFrame::new_unchecked(&mut v[..]))?;
        if fcs {
            append_fcs(&mut v);
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(i: u32) -> MacAddress {
        MacAddress::from_index(i)
    }

    #[test]
    fn ack_bytes_and_fcs() {
        let a = MacFrameRepr::Ack { flags: FcFlags(0), duration: 0, ra: m(1) };
        let b = a.to_bytes(None, true).unwrap();
        assert_eq!(b.len(), 14); // wifi_frame::ACK_LEN
        assert_eq!(&b[..2], &[0xd4, 0x00]);
        let f = strip_fcs(&b).unwrap();
        assert_eq!(MacFrameRepr::parse(&MacFrame::new_checked(f).unwrap()).unwrap(), a);
        let mut bad = b.clone();
        bad[5] ^= 1;
        assert_eq!(strip_fcs(&bad).err(), Some(Error::Checksum));
    }

    #[test]
    fn sizes_match_the_simulator_constants() {
        use crate::wifi_frame as wf;
        let f = FcFlags(0);
        let rts = MacFrameRepr::Rts { flags: f, duration: 0, ra: m(1), ta: m(2) };
        let cts = MacFrameRepr::Cts { flags: f, duration: 0, ra: m(1) };
        let bar = MacFrameRepr::BlockAckReq(BlockAckReqRepr {
            flags: f,
            duration: 0,
            ra: m(1),
            ta: m(2),
            control: ba_control::COMPRESSED_BITMAP,
            start: SeqCtrl::default(),
        });
        let ba = MacFrameRepr::BlockAck(BlockAckRepr {
            flags: f,
            duration: 0,
            ra: m(1),
            ta: m(2),
            control: ba_control::COMPRESSED_BITMAP,
            start: SeqCtrl { frag: 0, seq: 100 },
            bitmap: 0xff,
        });
        for (r, want) in [(rts, wf::RTS_LEN), (cts, wf::CTS_LEN), (bar, wf::BLOCK_ACK_REQ_LEN), (ba, wf::BLOCK_ACK_LEN)]
        {
            assert_eq!(r.buffer_len() + 4, want as usize, "{r:?}");
        }
        let poll = MacFrameRepr::Data(DataFrameRepr {
            subtype: subtype::CF_POLL,
            flags: FcFlags(FcFlags::FROM_DS),
            duration: 0,
            addr1: m(1),
            addr2: m(0),
            addr3: m(0),
            seq_ctrl: SeqCtrl::default(),
            addr4: None,
            qos_control: None,
            ht_control: None,
            payload_len: 0,
        });
        assert_eq!(poll.buffer_len() + 4, wf::CF_POLL_LEN as usize);
    }

    #[test]
    fn malformed_frames_are_errors() {
        assert_eq!(MacFrame::new_checked(&[0xd4][..]).err(), Some(Error::Truncated));
        assert_eq!(MacFrame::new_checked(&[0xd4, 0, 0, 0][..]).err(), Some(Error::Truncated));
        // Ack with extra bytes.
        let mut a = vec![0xd4, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7];
        assert!(MacFrameRepr::parse(&MacFrame::new_unchecked(&a[..])).is_err());
        a[0] = 0xd5; // protocol version 1
        assert!(matches!(MacFrame::new_checked(&a[..]), Err(Error::Unsupported(_))));
        // Beacon whose element runs past the body.
        let mut bcn = vec![0x80, 0, 0, 0];
        bcn.extend_from_slice(&[0; 20]);
        bcn.extend_from_slice(&[0; 12]);
        bcn.extend_from_slice(&[0, 5, b'a']);
        assert!(MacFrameRepr::parse(&MacFrame::new_unchecked(&bcn[..])).is_err());
        // DSSS Parameter Set of length 2.
        let n = bcn.len();
        bcn[n - 3..].copy_from_slice(&[3, 1, 6]);
        assert!(MacFrameRepr::parse(&MacFrame::new_unchecked(&bcn[..])).is_ok());
        bcn.push(0);
        bcn[n - 2] = 2;
        assert!(MacFrameRepr::parse(&MacFrame::new_unchecked(&bcn[..])).is_err());
    }
}
