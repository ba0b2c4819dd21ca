//! A network-layer packet as it travels through the simulator.
use crate::ip::{Ipv4Header, IPV4_HEADER_LEN, PROTO_TCP, PROTO_UDP};
use crate::tcp::{TcpFlags, TcpHeader};
use crate::udp::{UdpHeader, UDP_HEADER_LEN};
use wifitcp_core::{FlowId, PacketId, SimTime};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    Tcp(TcpHeader),
    Udp(UdpHeader),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Unique within a run; a retransmitted TCP segment is a new packet.
    pub id: PacketId,
    /// The flow (UDP source or TCP connection) this packet belongs to.
    pub flow: FlowId,
    /// When the packet was generated at its source.
    pub created: SimTime,
    pub ip: Ipv4Header,
    pub l4: Transport,
    /// Transport payload length in bytes (the bytes themselves are not kept).
    pub payload_len: u32,
}

impl Packet {
    pub fn new_udp(
        id: PacketId,
        flow: FlowId,
        created: SimTime,
        ip: Ipv4Header,
        udp: UdpHeader,
        payload_len: u32,
    ) -> Self {
        debug_assert_eq!(ip.protocol, PROTO_UDP);
        Packet { id, flow, created, ip, l4: Transport::Udp(udp), payload_len }
    }
    pub fn new_tcp(
        id: PacketId,
        flow: FlowId,
        created: SimTime,
        ip: Ipv4Header,
        tcp: TcpHeader,
        payload_len: u32,
    ) -> Self {
        debug_assert_eq!(ip.protocol, PROTO_TCP);
        Packet { id, flow, created, ip, l4: Transport::Tcp(tcp), payload_len }
    }
    /// Transport header length in bytes.
    pub fn l4_header_len(&self) -> u32 {
        match &self.l4 {
            Transport::Tcp(t) => t.header_len(),
            Transport::Udp(_) => UDP_HEADER_LEN,
        }
    }
    /// IPv4 total length: IP header + transport header + payload.
    pub fn ip_len(&self) -> u32 {
        IPV4_HEADER_LEN + self.l4_header_len() + self.payload_len
    }
    pub fn tcp(&self) -> Option<&TcpHeader> {
        match &self.l4 {
            Transport::Tcp(t) => Some(t),
            _ => None,
        }
    }
    pub fn tcp_mut(&mut self) -> Option<&mut TcpHeader> {
        match &mut self.l4 {
            Transport::Tcp(t) => Some(t),
            _ => None,
        }
    }
    /// A TCP segment with ACK set, no payload and none of SYN/FIN/RST.
    pub fn is_pure_tcp_ack(&self) -> bool {
        match &self.l4 {
            Transport::Tcp(t) => {
                self.payload_len == 0
                    && t.flags.has(TcpFlags::ACK)
                    && !t.flags.has(TcpFlags::SYN | TcpFlags::FIN | TcpFlags::RST)
            }
            _ => false,
        }
    }
    /// Render the real IPv4 datagram: headers with checksums, zero payload.
    pub fn to_bytes(&self) -> Vec<u8> {
        let total = self.ip_len();
        let mut out = Vec::with_capacity(total as usize);
        self.ip.write(u16::try_from(total).expect("datagram over 65535 bytes"), &mut out);
        let l4_start = out.len();
        match &self.l4 {
            Transport::Udp(u) => {
                let len = (UDP_HEADER_LEN + self.payload_len) as u16;
                out.extend_from_slice(&u.src_port.to_be_bytes());
                out.extend_from_slice(&u.dst_port.to_be_bytes());
                out.extend_from_slice(&len.to_be_bytes());
                out.extend_from_slice(&[0, 0]);
            }
            Transport::Tcp(t) => {
                out.extend_from_slice(&t.src_port.to_be_bytes());
                out.extend_from_slice(&t.dst_port.to_be_bytes());
                out.extend_from_slice(&t.seq.to_be_bytes());
                out.extend_from_slice(&t.ack.to_be_bytes());
                let data_off = (t.header_len() / 4) as u8;
                out.extend_from_slice(&[data_off << 4, t.flags.0]);
                out.extend_from_slice(&t.window.to_be_bytes());
                out.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
                t.options.write(&mut out);
            }
        }
        out.resize(total as usize, 0);
        // Transport checksum over the pseudo-header (RFC 768 / RFC 9293).
        let l4_len = total - IPV4_HEADER_LEN;
        let mut acc = crate::csum_add(0, &self.ip.src.octets());
        acc = crate::csum_add(acc, &self.ip.dst.octets());
        acc += self.ip.protocol as u32 + l4_len;
        acc = crate::csum_add(acc, &out[l4_start..]);
        let mut c = crate::csum_finish(acc);
        let off = match self.l4 {
            Transport::Udp(_) => {
                if c == 0 {
                    c = 0xffff;
                }
                6
            }
            Transport::Tcp(_) => 16,
        };
        out[l4_start + off..l4_start + off + 2].copy_from_slice(&c.to_be_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::{SackBlock, TcpOptions};
    use std::net::Ipv4Addr;

    /// Every MSDU a MAC holds is a packet: its size is part of a campus's
    /// memory per station (SACK blocks out of line, `SackBlocks`).
    #[test]
    fn a_packet_is_88_bytes() {
        assert_eq!(std::mem::size_of::<Packet>(), 88);
    }

    fn ack_pkt(opts: TcpOptions) -> Packet {
        let ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), PROTO_TCP);
        let t = TcpHeader {
            src_port: 5000,
            dst_port: 80,
            seq: 1,
            ack: 1461,
            flags: TcpFlags(TcpFlags::ACK),
            window: 65535,
            options: opts,
        };
        Packet::new_tcp(PacketId(1), FlowId(0), SimTime::ZERO, ip, t, 0)
    }

    #[test]
    fn lengths_match_rendered_bytes() {
        let p = ack_pkt(TcpOptions::default());
        assert_eq!(p.ip_len(), 40);
        assert_eq!(p.to_bytes().len(), 40);
        let q = ack_pkt(TcpOptions {
            timestamps: Some((1, 2)),
            sack: vec![SackBlock { left: 10, right: 20 }].into(),
            ..Default::default()
        });
        assert_eq!(q.ip_len(), 40 + 12 + 12);
        assert_eq!(q.to_bytes().len() as u32, q.ip_len());
        assert!(q.is_pure_tcp_ack());
    }

    #[test]
    fn checksums_verify() {
        let p = ack_pkt(TcpOptions { mss: Some(1460), sack_permitted: true, ..Default::default() });
        let b = p.to_bytes();
        // IP header sums to 0xffff
        assert_eq!(crate::csum_finish(crate::csum_add(0, &b[..20])), 0);
        // TCP checksum over pseudo-header verifies
        let mut acc = crate::csum_add(0, &b[12..20]);
        acc += 6 + (b.len() as u32 - 20);
        acc = crate::csum_add(acc, &b[20..]);
        assert_eq!(crate::csum_finish(acc), 0);
    }
}
