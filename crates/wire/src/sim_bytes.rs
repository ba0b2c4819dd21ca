//! Real bytes for the simulator's packets: the IPv4 + TCP/UDP headers a
//! [`Packet`] describes (zero-filled payload of `payload_len` bytes), the
//! 802.11 data frame around it, Ethernet framing, and the control frames, so
//! that a pcap of a simulation is what a capture of real traffic would be.
//!
//! Only the pcap tap uses this; the simulator keeps header structs, never
//! bytes, so none of this runs when no tap is attached.
//!
//! Invariants (tested): `datagram(p) == p.to_bytes()` (two independent
//! encoders agree byte for byte), and the data frame of a packet is
//! `wifi_frame::data_mpdu_len(msdu_len(p.ip_len()))` bytes long (QoS: 2 more),
//! the length the MAC times on the air.
use crate::codec::ieee80211::{self as w, DataFrameRepr};
use crate::codec::ieee80211::{FcFlags, MacFrameRepr, SeqCtrl};
use crate::codec::ipv4::Ipv4Repr;
use crate::codec::llc::{SnapHeader, SnapRepr};
use crate::codec::radiotap::{chan, flags, RadiotapRepr};
use crate::codec::tcp::{TcpOption, TcpRepr};
use crate::codec::udp::UdpRepr;
use crate::codec::{ethernet, L4Repr, MacAddress};
use crate::packet::{Packet, Transport};
use crate::tcp::TcpOptions;
use wifitcp_core::SimDur;

/// The option list `TcpOptions::write` lays out (Linux's order and NOP
/// alignment): MSS; SACK-permitted + timestamps (or NOP NOP before either
/// alone); NOP + window scale; NOP NOP + SACK blocks.
pub fn tcp_option_list(o: &TcpOptions) -> Vec<TcpOption> {
    let mut v = Vec::new();
    if let Some(m) = o.mss {
        v.push(TcpOption::Mss(m));
    }
    match (o.sack_permitted, o.timestamps) {
        (sp, Some((tsval, tsecr))) => {
            if sp {
                v.push(TcpOption::SackPermitted);
            } else {
                v.extend([TcpOption::Nop, TcpOption::Nop]);
            }
            v.push(TcpOption::Timestamps { tsval, tsecr });
        }
        (true, None) => v.extend([TcpOption::Nop, TcpOption::Nop, TcpOption::SackPermitted]),
        (false, None) => {}
    }
    if let Some(s) = o.window_scale {
        v.extend([TcpOption::Nop, TcpOption::WindowScale(s)]);
    }
    if !o.sack.is_empty() {
        v.extend([TcpOption::Nop, TcpOption::Nop, TcpOption::Sack(o.sack.to_vec())]);
    }
    v
}

/// The IPv4 and transport Reprs of a simulated packet (DF set, no options,
/// as `Ipv4Header::write` renders them).
pub fn reprs(p: &Packet) -> (Ipv4Repr, L4Repr) {
    let l4 = match &p.l4 {
        Transport::Tcp(t) => L4Repr::Tcp(TcpRepr {
            src_port: t.src_port,
            dst_port: t.dst_port,
            seq: t.seq,
            ack: t.ack,
            reserved: 0,
            flags: t.flags,
            window: t.window,
            urgent: 0,
            options: tcp_option_list(&t.options),
            payload_len: p.payload_len as usize,
        }),
        Transport::Udp(u) => {
            L4Repr::Udp(UdpRepr { src_port: u.src_port, dst_port: u.dst_port, payload_len: p.payload_len as usize })
        }
    };
    let l4_len = match &l4 {
        L4Repr::Tcp(t) => t.buffer_len(),
        L4Repr::Udp(u) => u.buffer_len(),
    };
    let ip = Ipv4Repr {
        src: p.ip.src,
        dst: p.ip.dst,
        tos: p.ip.tos,
        ident: p.ip.ident,
        dont_frag: true,
        more_frags: false,
        frag_offset: 0,
        ttl: p.ip.ttl,
        protocol: p.ip.protocol,
        options: Vec::new(),
        payload_len: l4_len,
    };
    (ip, l4)
}

/// Write the datagram of `p` into `out` (exactly `p.ip_len()` bytes).
fn write_datagram(p: &Packet, out: &mut [u8]) -> crate::codec::Result<()> {
    use crate::codec::ipv4::Ipv4Packet;
    use crate::codec::tcp::TcpSegment;
    use crate::codec::udp::UdpDatagram;
    let (ip, l4) = reprs(p);
    let hl = ip.header_len();
    match &l4 {
        L4Repr::Tcp(t) => t.emit(&mut TcpSegment::new_unchecked(&mut out[hl..]), ip.src, ip.dst)?,
        L4Repr::Udp(u) => u.emit(&mut UdpDatagram::new_unchecked(&mut out[hl..]), ip.src, ip.dst)?,
    }
    ip.emit(&mut Ipv4Packet::new_unchecked(out))
}

/// The IPv4 datagram of `p`: headers with checksums, zero payload.
/// Panics only for a packet the simulator cannot build (over 65535 bytes,
/// options over 40 bytes), as `Packet::to_bytes` does.
pub fn datagram(p: &Packet) -> Vec<u8> {
    let mut v = vec![0u8; p.ip_len() as usize];
    write_datagram(p, &mut v).expect("a simulated packet encodes");
    v
}

/// Append the IPv4 and transport headers of `p` to `out`, exactly as they
/// begin [`datagram`]`(p)` (lengths and checksums of the whole datagram;
/// the zero payload left out). Returns the headers' length.
pub fn datagram_headers(p: &Packet, out: &mut Vec<u8>) -> usize {
    let (ip, l4) = reprs(p);
    let (hl, at) = (ip.header_len(), out.len());
    let l4l = match &l4 {
        L4Repr::Tcp(t) => t.header_len(),
        L4Repr::Udp(u) => u.header_len(),
    };
    out.resize(at + hl + l4l, 0);
    let b = &mut out[at..];
    ip.emit_header(&mut b[..hl]).expect("a simulated packet encodes");
    match &l4 {
        L4Repr::Tcp(t) => t.emit_header(&mut b[hl..], ip.src, ip.dst),
        L4Repr::Udp(u) => u.emit_header(&mut b[hl..], ip.src, ip.dst),
    }
    .expect("a simulated packet encodes");
    hl + l4l
}

/// How much of a frame a capture keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Snap {
    /// Every byte: headers, the zero payload and (802.11) the FCS.
    Full,
    /// Headers only when the packet has payload bytes: link, LLC/SNAP,
    /// IPv4 and TCP/UDP headers, no payload and no FCS (the record keeps
    /// the frame's full length, pcap's caplen < len); frames without
    /// payload (TCP ACKs, control frames) are kept whole, FCS included.
    /// The simulator's payload is zeros, so nothing is lost but bytes.
    Headers,
}

/// Append the 802.11 data frame carrying `p` (as [`wlan_data_frame`]) to
/// `out`, whole or, with [`Snap::Headers`] and a payload, up to the end of
/// the TCP/UDP header. Returns the whole frame's length (FCS included).
pub fn wlan_data_frame_into(p: &Packet, hop: &WlanHop, snap: Snap, out: &mut Vec<u8>) -> usize {
    let full = data_frame_repr(hop, SnapRepr::IPV4.header_len() + p.ip_len() as usize);
    let hl = full.header_len();
    let whole = hl + full.payload_len + w::FCS_LEN;
    if snap == Snap::Full || p.payload_len == 0 {
        let at = out.len();
        out.resize(at + hl + full.payload_len, 0);
        let b = &mut out[at..];
        b.fill(0);
        MacFrameRepr::Data(full).emit(&mut w::MacFrame::new_unchecked(&mut b[..])).expect("data frame encodes");
        SnapRepr::IPV4.emit(&mut SnapHeader::new_unchecked(&mut b[hl..])).expect("SNAP encodes");
        write_datagram(p, &mut b[hl + 8..]).expect("a simulated packet encodes");
        let c = crate::codec::crc32(&out[at..]);
        out.extend_from_slice(&c.to_le_bytes());
        return whole;
    }
    // The MAC header does not depend on the body's length: emit it for an
    // empty body, then SNAP and the IP/transport headers.
    let at = out.len();
    out.resize(at + hl + 8, 0);
    let head = DataFrameRepr { payload_len: 0, ..full };
    MacFrameRepr::Data(head).emit(&mut w::MacFrame::new_unchecked(&mut out[at..at + hl])).expect("data frame encodes");
    SnapRepr::IPV4.emit(&mut SnapHeader::new_unchecked(&mut out[at + hl..])).expect("SNAP encodes");
    datagram_headers(p, out);
    whole
}

/// Append the Ethernet II frame carrying `p` (as [`ethernet_frame`]) to
/// `out`, whole or, with [`Snap::Headers`] and a payload, up to the end of
/// the TCP/UDP header. Returns the whole frame's length.
pub fn ethernet_frame_into(p: &Packet, src: u32, dst: u32, snap: Snap, out: &mut Vec<u8>) -> usize {
    let e = ethernet::EthernetRepr {
        dst: MacAddress::from_index(dst),
        src: MacAddress::from_index(src),
        ethertype: ethernet::ETHERTYPE_IPV4,
    };
    let whole = ethernet::HEADER_LEN + p.ip_len() as usize;
    let at = out.len();
    out.resize(at + ethernet::HEADER_LEN, 0);
    e.emit(&mut ethernet::EthernetFrame::new_unchecked(&mut out[at..])).expect("Ethernet header encodes");
    if snap == Snap::Full || p.payload_len == 0 {
        let d = out.len();
        out.resize(d + p.ip_len() as usize, 0);
        out[d..].fill(0);
        write_datagram(p, &mut out[d..]).expect("a simulated packet encodes");
    } else {
        datagram_headers(p, out);
    }
    whole
}

/// The simulator's option struct for an option list: the modelled options
/// (the first of each kind; of a SACK option, the blocks `SackBlocks`
/// keeps); NOPs and unknown kinds are dropped.
pub fn tcp_options_from_list(list: &[TcpOption]) -> TcpOptions {
    let mut o = TcpOptions::default();
    for opt in list {
        match opt {
            TcpOption::Mss(m) => o.mss = o.mss.or(Some(*m)),
            TcpOption::WindowScale(s) => o.window_scale = o.window_scale.or(Some(*s)),
            TcpOption::SackPermitted => o.sack_permitted = true,
            TcpOption::Timestamps { tsval, tsecr } => o.timestamps = o.timestamps.or(Some((*tsval, *tsecr))),
            TcpOption::Sack(b) if o.sack.is_empty() => o.sack = b.iter().copied().collect(),
            _ => {}
        }
    }
    o
}

/// A simulator packet for a real IPv4 datagram carrying TCP or UDP (the
/// emulator's way in): headers parsed and checksums verified; the payload
/// bytes are dropped and only their length kept; IP options, fragments and
/// other protocols are `Unsupported`. `from_datagram(&datagram(p), ..) == p`
/// for every packet the simulator builds (property-tested).
pub fn from_datagram(
    bytes: &[u8],
    id: wifitcp_core::PacketId,
    flow: wifitcp_core::FlowId,
    created: wifitcp_core::SimTime,
) -> crate::codec::Result<Packet> {
    use crate::codec::{ipv4::Ipv4Packet, tcp::TcpSegment, udp::UdpDatagram, Error};
    use crate::ip::{Ipv4Header, PROTO_TCP, PROTO_UDP};
    let p = Ipv4Packet::new_checked(bytes)?;
    let ip = Ipv4Repr::parse(&p)?;
    if !ip.options.is_empty() {
        return Err(Error::Unsupported("IPv4 options in a simulated packet"));
    }
    if ip.more_frags || ip.frag_offset != 0 {
        return Err(Error::Unsupported("IPv4 fragment"));
    }
    let hdr = Ipv4Header { src: ip.src, dst: ip.dst, tos: ip.tos, ttl: ip.ttl, ident: ip.ident, protocol: ip.protocol };
    let addrs = Some((ip.src, ip.dst));
    match ip.protocol {
        PROTO_TCP => {
            let t = TcpRepr::parse(&TcpSegment::new_checked(p.payload())?, addrs)?;
            let h = crate::tcp::TcpHeader {
                src_port: t.src_port,
                dst_port: t.dst_port,
                seq: t.seq,
                ack: t.ack,
                flags: t.flags,
                window: t.window,
                options: tcp_options_from_list(&t.options),
            };
            Ok(Packet::new_tcp(id, flow, created, hdr, h, t.payload_len as u32))
        }
        PROTO_UDP => {
            let u = UdpRepr::parse(&UdpDatagram::new_checked(p.payload())?, addrs)?;
            let h = crate::udp::UdpHeader { src_port: u.src_port, dst_port: u.dst_port };
            Ok(Packet::new_udp(id, flow, created, hdr, h, u.payload_len as u32))
        }
        _ => Err(Error::Unsupported("transport other than TCP and UDP")),
    }
}

/// How one 802.11 transmission of a data frame is addressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WlanHop {
    /// Transmitter and receiver, as the MAC's dense station indices.
    pub ta: u32,
    pub ra: u32,
    /// The AP of the BSS (its index is the BSSID), or `None` in an IBSS.
    pub ap: Option<u32>,
    /// Sequence number, modulo 4096 (9.2.4.4.2).
    pub seq: u16,
    /// Retry bit (9.2.4.1.6).
    pub retry: bool,
    /// Duration/ID value (9.2.5), rounded up to whole microseconds.
    pub duration: SimDur,
    /// The data subtype (9.2.4.1.3) and, for QoS subtypes, QoS Control.
    pub kind: DataKind,
}

/// The Ack Policy subfield of QoS Control (9.2.4.5.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum QosAck {
    /// 0 (00): Normal Ack, or the implicit BlockAckReq of an MPDU inside an
    /// A-MPDU.
    #[default]
    Normal,
    /// 1 (01): No Ack.
    NoAck,
    /// 3 (11): Block Ack, acknowledged later by the BlockAck that answers
    /// a BlockAckReq.
    BlockAck,
}

impl QosAck {
    /// The subfield's value (bits 5-6 of QoS Control).
    pub fn value(self) -> u16 {
        match self {
            QosAck::Normal => 0,
            QosAck::NoAck => 1,
            QosAck::BlockAck => 3,
        }
    }
}

/// The data-type subtype of a frame (9.2.4.1.3, Table 9-1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DataKind {
    /// Data (0000).
    #[default]
    Data,
    /// Data+CF-Ack (0001), Data+CF-Poll (0010), Data+CF-Ack+CF-Poll
    /// (0011): PCF, subtypes of 802.11-2007 Table 7-1 (see
    /// `codec::ieee80211`).
    DataCf { ack: bool, poll: bool },
    /// No data: Null (0100), CF-Ack (0101), CF-Poll (0110), CF-Ack+CF-Poll
    /// (0111); no frame body.
    NoData { ack: bool, poll: bool },
    /// QoS Data (1000) of traffic identifier `tid` (0..=7).
    Qos { tid: u8, ack: QosAck },
    /// QoS Null (1100): no frame body.
    QosNull { tid: u8, ack: QosAck },
    /// QoS CF-Poll (1110, no data): a hybrid coordinator's poll granting a
    /// TXOP of `txop_32us` x 32 us (the QoS Control's TXOP Limit subfield,
    /// 9.2.4.5.3); no frame body.
    QosCfPoll { tid: u8, txop_32us: u8 },
}

impl DataKind {
    fn subtype(self) -> u8 {
        let cf = |ack: bool, poll: bool| ack as u8 | (poll as u8) << 1;
        match self {
            DataKind::Data => w::subtype::DATA,
            DataKind::DataCf { ack, poll } => w::subtype::DATA | cf(ack, poll),
            DataKind::NoData { ack, poll } => w::subtype::NULL | cf(ack, poll),
            DataKind::Qos { .. } => w::subtype::QOS_DATA,
            DataKind::QosNull { .. } => w::subtype::QOS_NULL,
            DataKind::QosCfPoll { .. } => w::subtype::QOS_CF_POLL,
        }
    }

    /// QoS Control (9.2.4.5): TID in bits 0-3, Ack Policy in bits 5-6;
    /// EOSP, A-MSDU Present and the TXOP/queue octet are 0.
    fn qos_control(self) -> Option<u16> {
        match self {
            DataKind::Qos { tid, ack } | DataKind::QosNull { tid, ack } => Some((tid & 0x0f) as u16 | ack.value() << 5),
            DataKind::QosCfPoll { tid, txop_32us } => Some((tid & 0x0f) as u16 | u16::from(txop_32us) << 8),
            _ => None,
        }
    }
}

fn duration_field(d: SimDur) -> u16 {
    // 9.2.4.2: a duration in microseconds, 0..=32767.
    d.as_nanos().div_ceil(1000).min(32767) as u16
}

/// The 802.11 data frame (with FCS) carrying `p` in an LLC/SNAP MSDU.
///
/// Addresses (9.3.2.1, Table 9-30): from the AP, From DS = 1 and
/// A1 = RA, A2 = BSSID, A3 = SA; to the AP, To DS = 1 and A1 = BSSID,
/// A2 = TA, A3 = DA; in an IBSS neither bit, A3 = BSSID. The simulated AP
/// is also the IP router of its BSS, so SA/DA beyond it are the AP's own
/// address. The simulator models no BSSID for an IBSS; A3 there is the
/// address of the lower of the two station indices.
pub fn wlan_data_frame(p: &Packet, hop: &WlanHop) -> Vec<u8> {
    let mut v = Vec::new();
    wlan_data_frame_into(p, hop, Snap::Full, &mut v);
    v
}

/// Append the 802.11 data-type frame of `hop` without a body (Null,
/// CF-Ack, CF-Poll, QoS Null, ..., addressed as [`wlan_data_frame`]),
/// FCS included; returns its length.
pub fn wlan_empty_frame_into(hop: &WlanHop, out: &mut Vec<u8>) -> usize {
    let r = MacFrameRepr::Data(data_frame_repr(hop, 0));
    let at = out.len();
    out.resize(at + r.buffer_len(), 0);
    r.emit(&mut w::MacFrame::new_unchecked(&mut out[at..])).expect("data frame encodes");
    let c = crate::codec::crc32(&out[at..]);
    out.extend_from_slice(&c.to_le_bytes());
    out.len() - at
}

/// The MAC header's meaning for the data frame of `hop` with a body of
/// `msdu_len` bytes (see [`wlan_data_frame`]).
fn data_frame_repr(hop: &WlanHop, msdu_len: usize) -> DataFrameRepr {
    let (ta, ra) = (MacAddress::from_index(hop.ta), MacAddress::from_index(hop.ra));
    let (fl, a1, a2, a3) = match hop.ap {
        Some(ap) if ap == hop.ta => (FcFlags::FROM_DS, ra, ta, ta),
        Some(ap) if ap == hop.ra => (FcFlags::TO_DS, ra, ta, ra),
        Some(ap) => (0, ra, ta, MacAddress::from_index(ap)),
        None => (0, ra, ta, MacAddress::from_index(hop.ta.min(hop.ra))),
    };
    DataFrameRepr {
        subtype: hop.kind.subtype(),
        flags: FcFlags(fl | if hop.retry { FcFlags::RETRY } else { 0 }),
        duration: duration_field(hop.duration),
        addr1: a1,
        addr2: a2,
        addr3: a3,
        seq_ctrl: SeqCtrl { frag: 0, seq: hop.seq % 4096 },
        addr4: None,
        qos_control: hop.kind.qos_control(),
        ht_control: None,
        payload_len: msdu_len,
    }
}

/// A control frame the simulator sends (with FCS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Ack,
    Rts,
    Cts,
    /// CF-End (9.3.1.6): RA broadcast, TA = BSSID = the transmitter.
    CfEnd,
    /// CF-End+CF-Ack (9.3.1.6): as CF-End.
    CfEndAck,
    /// BlockAckReq (9.3.1.7) for `tid`, starting sequence number
    /// `start_seq`: the compressed variant, or the basic one.
    BlockAckReq {
        tid: u8,
        start_seq: u16,
        compressed: bool,
    },
    /// BlockAck (9.3.1.8) for `tid`: bit i of `bitmap` acknowledges MSDU
    /// `start_seq + i` (mod 4096). Compressed: the 64-bit bitmap as it is;
    /// basic: a 128-octet bitmap whose word i has bit 0 (fragment 0) set
    /// for bit i (the simulator does not fragment).
    BlockAck {
        tid: u8,
        start_seq: u16,
        bitmap: u64,
        compressed: bool,
    },
}

/// One control frame: kind, transmitter and receiver (station indices) and
/// the Duration/ID value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControlFrame {
    pub kind: Control,
    pub ta: u32,
    pub ra: u32,
    pub duration: SimDur,
}

/// The bytes (with FCS) of a control frame.
pub fn wlan_control_frame(c: &ControlFrame) -> Vec<u8> {
    let mut v = Vec::new();
    wlan_control_frame_into(c, &mut v);
    v
}

/// Append the bytes (with FCS) of a control frame to `out`; returns their
/// length.
pub fn wlan_control_frame_into(c: &ControlFrame, out: &mut Vec<u8>) -> usize {
    let r = control_repr(c);
    let at = out.len();
    out.resize(at + r.buffer_len(), 0);
    r.emit(&mut w::MacFrame::new_unchecked(&mut out[at..])).expect("control frame encodes");
    let c = crate::codec::crc32(&out[at..]);
    out.extend_from_slice(&c.to_le_bytes());
    out.len() - at
}

fn control_repr(c: &ControlFrame) -> MacFrameRepr {
    let (f, dur) = (FcFlags(0), duration_field(c.duration));
    let (ta, ra) = (MacAddress::from_index(c.ta), MacAddress::from_index(c.ra));
    match c.kind {
        Control::Ack => MacFrameRepr::Ack { flags: f, duration: dur, ra },
        Control::Cts => MacFrameRepr::Cts { flags: f, duration: dur, ra },
        Control::Rts => MacFrameRepr::Rts { flags: f, duration: dur, ra, ta },
        Control::CfEnd => MacFrameRepr::CfEnd { flags: f, duration: 0, ra: MacAddress::BROADCAST, bssid: ta },
        Control::CfEndAck => MacFrameRepr::CfEndAck { flags: f, duration: 0, ra: MacAddress::BROADCAST, bssid: ta },
        // BAR/BA Control (9.3.1.7.1, 9.3.1.8.1): Ack Policy bit 0 = 0
        // (the immediate BlockAck exchange the MACs model), the variant
        // bits (compressed or none: basic), TID_INFO in bits 12-15.
        Control::BlockAckReq { tid, start_seq, compressed } => MacFrameRepr::BlockAckReq(w::BlockAckReqRepr {
            flags: f,
            duration: dur,
            ra,
            ta,
            control: ba_control_of(tid, compressed),
            start: SeqCtrl { frag: 0, seq: start_seq % 4096 },
        }),
        Control::BlockAck { tid, start_seq, bitmap, compressed: true } => MacFrameRepr::BlockAck(w::BlockAckRepr {
            flags: f,
            duration: dur,
            ra,
            ta,
            control: ba_control_of(tid, true),
            start: SeqCtrl { frag: 0, seq: start_seq % 4096 },
            bitmap,
        }),
        Control::BlockAck { tid, start_seq, bitmap, compressed: false } => {
            let mut words = [0u16; 64];
            for (i, wd) in words.iter_mut().enumerate() {
                *wd = (bitmap >> i & 1) as u16;
            }
            MacFrameRepr::BasicBlockAck(w::BasicBlockAckRepr {
                flags: f,
                duration: dur,
                ra,
                ta,
                control: ba_control_of(tid, false),
                start: SeqCtrl { frag: 0, seq: start_seq % 4096 },
                bitmap: words,
            })
        }
    }
}

fn ba_control_of(tid: u8, compressed: bool) -> u16 {
    let variant = if compressed { w::ba_control::COMPRESSED_BITMAP } else { 0 };
    variant | ((tid & 0x0f) as u16) << 12
}

/// An Ethernet II frame carrying `p` between stations `src` and `dst`
/// (indices mapped as `MacAddress::from_index`).
pub fn ethernet_frame(p: &Packet, src: u32, dst: u32) -> Vec<u8> {
    let mut v = Vec::new();
    ethernet_frame_into(p, src, dst, Snap::Full, &mut v);
    v
}

/// The radiotap header for a frame sent at `rate_kbps` on the channel of
/// centre frequency `freq_mhz`, received at `signal_dbm` (if known); the FCS
/// flag is set because the frames above carry their FCS. The channel flags
/// say OFDM for rates other than the DSSS/CCK ones (1, 2, 5.5, 11 Mbit/s).
/// The rate field counts 500 kbit/s in one byte: rates above 127.5 Mbit/s
/// (802.11n MCS) are left out, since radiotap's MCS field is not modelled.
pub fn radiotap(rate_kbps: u32, freq_mhz: u16, signal_dbm: Option<i8>) -> RadiotapRepr {
    let band = if freq_mhz >= 4900 { chan::GHZ5 } else { chan::GHZ2 };
    let modulation = if matches!(rate_kbps, 1000 | 2000 | 5500 | 11000) { chan::CCK } else { chan::OFDM };
    RadiotapRepr {
        flags: Some(flags::FCS_AT_END),
        rate_500kbps: u8::try_from(rate_kbps / 500).ok(),
        channel: Some((freq_mhz, band | modulation)),
        antenna_signal_dbm: signal_dbm,
        ampdu: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{decode_ethernet, decode_wlan};
    use crate::ip::{Ipv4Header, PROTO_TCP, PROTO_UDP};
    use crate::tcp::{SackBlock, TcpFlags, TcpHeader};
    use crate::udp::UdpHeader;
    use crate::wifi_frame::{data_mpdu_len, msdu_len};
    use std::net::Ipv4Addr;
    use wifitcp_core::{FlowId, PacketId, SimTime};

    fn tcp_pkt(opts: TcpOptions, len: u32) -> Packet {
        let mut ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 1, 2), PROTO_TCP);
        ip.ident = 77;
        ip.tos = 2;
        let t = TcpHeader {
            src_port: 5000,
            dst_port: 80,
            seq: 12345,
            ack: 999,
            flags: TcpFlags(TcpFlags::ACK | TcpFlags::PSH),
            window: 1000,
            options: opts,
        };
        Packet::new_tcp(PacketId(1), FlowId(0), SimTime::ZERO, ip, t, len)
    }

    fn all_option_sets() -> Vec<TcpOptions> {
        let mut v = Vec::new();
        for mss in [None, Some(1460)] {
            for ws in [None, Some(7)] {
                for sp in [false, true] {
                    for ts in [None, Some((1, 2))] {
                        for n in 0..=3 {
                            let sack = (0..n).map(|i| SackBlock { left: 100 * i, right: 100 * i + 50 }).collect();
                            let o = TcpOptions { mss, window_scale: ws, sack_permitted: sp, timestamps: ts, sack };
                            if o.encoded_len() <= 40 {
                                v.push(o);
                            }
                        }
                    }
                }
            }
        }
        v
    }

    #[test]
    fn ecn_codepoints_and_ece_cwr_survive_bytes_and_pcap() {
        use crate::ip::Ecn;
        use crate::pcap::{read_pcap, PcapWriter, LINKTYPE_RAW};
        for e in [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce] {
            for f in [TcpFlags::ECE, TcpFlags::CWR, TcpFlags::ECE | TcpFlags::CWR | TcpFlags::SYN] {
                let mut p = tcp_pkt(TcpOptions::default(), 100);
                p.ip.set_ecn(e);
                p.tcp_mut().unwrap().flags = TcpFlags(TcpFlags::ACK | f);
                let b = datagram(&p);
                assert_eq!(b[1] & 3, e as u8, "IP ECN field (RFC 3168 5)");
                assert_eq!(
                    b[33] & (TcpFlags::ECE | TcpFlags::CWR),
                    f & (TcpFlags::ECE | TcpFlags::CWR),
                    "TCP flags octet"
                );
                let back = from_datagram(&b, p.id, p.flow, p.created).unwrap();
                assert_eq!(back, p);
                assert_eq!(back.ip.ecn_codepoint(), e);
                let mut w = PcapWriter::with_linktype(Vec::new(), LINKTYPE_RAW).unwrap();
                w.write(SimTime::ZERO, &p).unwrap();
                let (_, recs) = read_pcap(&w.into_inner()).unwrap();
                assert_eq!(recs[0].1, b, "the pcap record is the datagram with its ECN bits");
            }
        }
    }

    #[test]
    fn datagram_equals_packet_to_bytes() {
        for o in all_option_sets() {
            for len in [0, 1, 1448] {
                let p = tcp_pkt(o.clone(), len);
                assert_eq!(datagram(&p), p.to_bytes(), "{o:?}");
            }
        }
        let ip = Ipv4Header::new(Ipv4Addr::new(1, 1, 1, 1), Ipv4Addr::new(2, 2, 2, 2), PROTO_UDP);
        let u =
            Packet::new_udp(PacketId(2), FlowId(1), SimTime::ZERO, ip, UdpHeader { src_port: 9, dst_port: 10 }, 1000);
        assert_eq!(datagram(&u), u.to_bytes());
    }

    #[test]
    fn data_frame_length_and_decode() {
        let o = TcpOptions {
            timestamps: Some((5, 6)),
            sack: vec![SackBlock { left: 1, right: 9 }].into(),
            ..Default::default()
        };
        let p = tcp_pkt(o, 1448);
        let hop = WlanHop {
            ta: 0,
            ra: 3,
            ap: Some(0),
            seq: 4097,
            retry: true,
            duration: SimDur::from_micros(44),
            kind: DataKind::Data,
        };
        let f = wlan_data_frame(&p, &hop);
        assert_eq!(f.len() as u32, data_mpdu_len(msdu_len(p.ip_len())));
        let rt = radiotap(54_000, 2437, Some(-50));
        let d = decode_wlan(&rt.to_bytes(&f).unwrap()).unwrap();
        let Some(MacFrameRepr::Data(df)) = &d.mac else { panic!("{d:?}") };
        assert_eq!(df.seq_ctrl.seq, 1);
        assert_eq!(df.duration, 44);
        assert!(df.flags.has(FcFlags::RETRY) && df.flags.has(FcFlags::FROM_DS));
        assert_eq!(df.addr1, MacAddress::from_index(3));
        let (ip, l4) = reprs(&p);
        assert_eq!(d.ip, Some(ip));
        assert_eq!(d.l4, Some(l4));
        let q = wlan_data_frame(&p, &WlanHop { kind: DataKind::Qos { tid: 5, ack: QosAck::Normal }, ..hop });
        assert_eq!(q.len(), f.len() + 2);
        assert!(decode_wlan(&rt.to_bytes(&q).unwrap()).is_ok());
        let e = ethernet_frame(&p, 1, 2);
        assert_eq!(decode_ethernet(&e).unwrap().ip.unwrap().payload_len as u32, p.ip_len() - 20);
    }

    #[test]
    fn header_only_frames_are_the_whole_frames_cut_after_the_transport_header() {
        let hop = WlanHop {
            ta: 2,
            ra: 0,
            ap: Some(0),
            seq: 9,
            retry: false,
            duration: SimDur::from_micros(44),
            kind: DataKind::Data,
        };
        let udp = {
            let ip = Ipv4Header::new(Ipv4Addr::new(1, 1, 1, 1), Ipv4Addr::new(2, 2, 2, 2), PROTO_UDP);
            Packet::new_udp(PacketId(2), FlowId(1), SimTime::ZERO, ip, UdpHeader { src_port: 9, dst_port: 10 }, 999)
        };
        let mut pkts: Vec<Packet> = all_option_sets().into_iter().map(|o| tcp_pkt(o, 1448)).collect();
        pkts.extend([tcp_pkt(TcpOptions::default(), 1), udp]);
        for p in pkts {
            let whole = datagram(&p);
            let mut h = vec![0xAA]; // appended after what is there
            let n = datagram_headers(&p, &mut h);
            assert_eq!(&h[1..], &whole[..n]);
            assert_eq!(n as u32, p.ip_len() - p.payload_len);
            for kind in [DataKind::Data, DataKind::Qos { tid: 3, ack: QosAck::NoAck }] {
                let hop = WlanHop { kind, ..hop };
                let f = wlan_data_frame(&p, &hop);
                let mut cut = Vec::new();
                assert_eq!(wlan_data_frame_into(&p, &hop, Snap::Headers, &mut cut), f.len());
                assert_eq!(cut.len(), f.len() - p.payload_len as usize - 4);
                assert_eq!(&cut[..], &f[..cut.len()]);
            }
            let e = ethernet_frame(&p, 1, 2);
            let mut cut = Vec::new();
            assert_eq!(ethernet_frame_into(&p, 1, 2, Snap::Headers, &mut cut), e.len());
            assert_eq!(&cut[..], &e[..e.len() - p.payload_len as usize]);
        }
        // Without payload the frame is kept whole, FCS included.
        let ack = tcp_pkt(TcpOptions::default(), 0);
        let mut cut = Vec::new();
        assert_eq!(wlan_data_frame_into(&ack, &hop, Snap::Headers, &mut cut), cut.len());
        assert_eq!(cut, wlan_data_frame(&ack, &hop));
    }

    #[test]
    fn control_frames_have_the_simulated_lengths() {
        use crate::wifi_frame::{ACK_LEN, CTS_LEN, RTS_LEN};
        let d = SimDur::from_micros(10);
        assert_eq!(
            wlan_control_frame(&ControlFrame { kind: Control::Ack, ta: 1, ra: 0, duration: d }).len() as u32,
            ACK_LEN
        );
        assert_eq!(
            wlan_control_frame(&ControlFrame { kind: Control::Cts, ta: 1, ra: 0, duration: d }).len() as u32,
            CTS_LEN
        );
        assert_eq!(
            wlan_control_frame(&ControlFrame { kind: Control::Rts, ta: 1, ra: 0, duration: d }).len() as u32,
            RTS_LEN
        );
        assert_eq!(wlan_control_frame(&ControlFrame { kind: Control::CfEnd, ta: 0, ra: 0, duration: d }).len(), 20);
    }
}
