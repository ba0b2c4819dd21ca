//! Decoding a whole frame down the stack: radiotap, 802.11, LLC/SNAP (or
//! Ethernet II), IPv4, TCP/UDP. Used to read pcap records back and by the
//! stack fuzz target; each layer is checked as its own parser checks it
//! (FCS when radiotap says it is there, IPv4 header checksum, TCP/UDP
//! checksums over the pseudo-header).
use super::ethernet::{EthernetFrame, EthernetRepr, ETHERTYPE_IPV4};
use super::ieee80211::{strip_fcs, FcFlags, MacFrame, MacFrameRepr};
use super::ipv4::{Ipv4Packet, Ipv4Repr};
use super::llc::{SnapHeader, SnapRepr};
use super::radiotap::{flags, RadiotapHeader, RadiotapRepr};
use super::tcp::{TcpRepr, TcpSegment};
use super::udp::{UdpDatagram, UdpRepr};
use super::Result;
use crate::ip::{PROTO_TCP, PROTO_UDP};

/// A transport header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum L4Repr {
    Tcp(TcpRepr),
    Udp(UdpRepr),
}

/// Every layer that was present, outermost first.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Decoded {
    pub radiotap: Option<RadiotapRepr>,
    pub mac: Option<MacFrameRepr>,
    pub ethernet: Option<EthernetRepr>,
    pub snap: Option<SnapRepr>,
    pub ip: Option<Ipv4Repr>,
    /// Absent for a fragment other than the first-and-only one and for other
    /// protocols.
    pub l4: Option<L4Repr>,
}

fn ip_down(bytes: &[u8], d: &mut Decoded) -> Result<()> {
    let p = Ipv4Packet::new_checked(bytes)?;
    let ip = Ipv4Repr::parse(&p)?;
    if ip.frag_offset == 0 && !ip.more_frags {
        let addrs = Some((ip.src, ip.dst));
        d.l4 = match ip.protocol {
            PROTO_TCP => Some(L4Repr::Tcp(TcpRepr::parse(&TcpSegment::new_checked(p.payload())?, addrs)?)),
            PROTO_UDP => Some(L4Repr::Udp(UdpRepr::parse(&UdpDatagram::new_checked(p.payload())?, addrs)?)),
            _ => None,
        };
    }
    d.ip = Some(ip);
    Ok(())
}

/// Decode a LINKTYPE_IEEE802_11_RADIOTAP record.
pub fn decode_wlan(bytes: &[u8]) -> Result<Decoded> {
    let h = RadiotapHeader::new_checked(bytes)?;
    let rt = RadiotapRepr::parse(&h)?;
    let mut frame = h.payload();
    if rt.flags.is_some_and(|f| f & flags::FCS_AT_END != 0) {
        frame = strip_fcs(frame)?;
    }
    let mut d = Decoded { radiotap: Some(rt), ..Default::default() };
    let f = MacFrame::new_checked(frame)?;
    let mac = MacFrameRepr::parse(&f)?;
    let carries_msdu = match &mac {
        MacFrameRepr::Data(df) => df.payload_len > 0 && !df.flags.has(FcFlags::PROTECTED),
        _ => false,
    };
    d.mac = Some(mac);
    if carries_msdu {
        let s = SnapHeader::new_checked(f.body())?;
        let snap = SnapRepr::parse(&s)?;
        d.snap = Some(snap);
        if snap.protocol == ETHERTYPE_IPV4 {
            ip_down(s.payload(), &mut d)?;
        }
    }
    Ok(d)
}

/// Decode a LINKTYPE_ETHERNET record.
pub fn decode_ethernet(bytes: &[u8]) -> Result<Decoded> {
    let f = EthernetFrame::new_checked(bytes)?;
    let e = EthernetRepr::parse(&f)?;
    let mut d = Decoded { ethernet: Some(e), ..Default::default() };
    if e.ethertype == ETHERTYPE_IPV4 {
        ip_down(f.payload(), &mut d)?;
    }
    Ok(d)
}
