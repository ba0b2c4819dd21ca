//! Real datagrams in and out of the simulated network.
//!
//! In: the bytes a namespace sent are parsed with the wire codec (IPv4
//! header checksum, TCP/UDP checksum over the pseudo-header) into the
//! simulator's [`Packet`]: headers only, with the payload's length. Out: a
//! packet that reached an external node is written back with its real
//! bytes.
//!
//! The bytes are kept aside, not carried by the packet: [`Stash`] holds
//! each injected datagram under a key made of the header fields the
//! simulated network never changes (addresses, protocol, IP identification,
//! ports, sequence and acknowledgement numbers, payload length). This
//! leaves `Packet` (copied on every hop of every simulated packet) and the
//! driver API unchanged. On the way out the fields the network may change
//! are copied from the simulated packet into the real bytes and the
//! checksums refilled: the IP ECN bits (a CE mark by CoDel, RFC 3168) and
//! the TCP advertised window (window-rewriting queue disciplines such as
//! Pilosof's). A packet with no stashed bytes (one an agent created, e.g.
//! an ACK a proxy generated) is rendered from its headers
//! (`Packet::to_bytes`, zero payload).
//!
//! Invariants:
//! - the simulated packet has the real datagram's IP length whenever the
//!   real TCP options are the ones the simulator models (MSS, window scale,
//!   SACK-permitted, timestamps, SACK, in Linux's layout, which is what
//!   Linux sends); otherwise the difference is added to (or taken from) the
//!   payload length so that the airtime is the real datagram's, and
//!   counted in `Counters::length_adjusted`;
//! - a datagram of another protocol (ICMP for ping, IGMP, ...) or a
//!   fragment travels as a UDP packet of ports 0/0 and the real length;
//!   the qdisc sees ports 0/0 for it (documented deviation);
//! - a stashed datagram whose packet never comes out (dropped in the
//!   simulated network) is forgotten after [`STASH_TTL_NS`].
use std::collections::{HashMap, VecDeque};
use std::net::Ipv4Addr;
use wifitcp_core::{FlowId, PacketId, SimTime};
use wifitcp_wire::codec::ipv4::{Ipv4Packet, Ipv4Repr};
use wifitcp_wire::codec::tcp::{TcpOption, TcpRepr, TcpSegment};
use wifitcp_wire::codec::udp::{UdpDatagram, UdpRepr};
use wifitcp_wire::ip::{PROTO_TCP, PROTO_UDP};
use wifitcp_wire::tcp::{TcpFlags, TcpHeader, TcpOptions};
use wifitcp_wire::{Ipv4Header, Packet, Transport, UdpHeader};

/// Injected packets carry this flow id: they belong to no simulated flow.
pub const EXTERNAL_FLOW: FlowId = FlowId(u32::MAX);

/// A stashed datagram older than this (simulated time since injection)
/// is taken as dropped in the simulated network and forgotten: no packet
/// stays 30 s in a queue of the scenarios (a 1000-packet queue drains in
/// under 2 s at 6 Mbit/s).
pub const STASH_TTL_NS: u64 = 30_000_000_000;

/// Why a datagram was not injected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Not IPv4 (IPv6 router solicitations and the like).
    NotIpv4,
    /// The codec rejected it (truncated, bad checksum, ...).
    Malformed,
}

/// Counters of the translation, reported with the run.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub not_ipv4: u64,
    pub malformed: u64,
    pub other_protocol: u64,
    pub length_adjusted: u64,
    pub rendered_from_headers: u64,
    pub unrenderable: u64,
    pub stash_expired: u64,
}

/// The stash key: header fields the simulated network does not change.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Key {
    src: u32,
    dst: u32,
    ident: u16,
    protocol: u8,
    ports: (u16, u16),
    seq_ack: (u32, u32),
    payload_len: u32,
}

fn key_of(p: &Packet) -> Key {
    let (ports, seq_ack) = match &p.l4 {
        Transport::Tcp(t) => ((t.src_port, t.dst_port), (t.seq, t.ack)),
        Transport::Udp(u) => ((u.src_port, u.dst_port), (0, 0)),
    };
    Key {
        src: p.ip.src.into(),
        dst: p.ip.dst.into(),
        ident: p.ip.ident,
        protocol: p.ip.protocol,
        ports,
        seq_ack,
        payload_len: p.payload_len,
    }
}

/// Parse one real datagram into a simulated packet.
pub fn parse(bytes: &[u8], created: SimTime, c: &mut Counters) -> Result<Packet, Refused> {
    if bytes.first().map(|b| b >> 4) != Some(4) {
        c.not_ipv4 += 1;
        return Err(Refused::NotIpv4);
    }
    let bad = |c: &mut Counters| {
        c.malformed += 1;
        Refused::Malformed
    };
    let Ok(view) = Ipv4Packet::new_checked(bytes) else { return Err(bad(c)) };
    let Ok(ip) = Ipv4Repr::parse(&view) else { return Err(bad(c)) };
    let total = ip.buffer_len() as u32;
    let hdr = Ipv4Header { src: ip.src, dst: ip.dst, tos: ip.tos, ttl: ip.ttl, ident: ip.ident, protocol: ip.protocol };
    let whole = ip.frag_offset == 0 && !ip.more_frags && ip.options.is_empty();
    let addrs = Some((ip.src, ip.dst));
    let p = match ip.protocol {
        PROTO_TCP if whole => {
            let Ok(seg) = TcpSegment::new_checked(view.payload()) else { return Err(bad(c)) };
            let Ok(t) = TcpRepr::parse(&seg, addrs) else { return Err(bad(c)) };
            let h = tcp_header(&t);
            let mut p = Packet::new_tcp(PacketId(0), EXTERNAL_FLOW, created, hdr, h, t.payload_len as u32);
            fit_length(&mut p, total, c);
            p
        }
        PROTO_UDP if whole => {
            let Ok(d) = UdpDatagram::new_checked(view.payload()) else { return Err(bad(c)) };
            let Ok(u) = UdpRepr::parse(&d, addrs) else { return Err(bad(c)) };
            let h = UdpHeader { src_port: u.src_port, dst_port: u.dst_port };
            Packet::new_udp(PacketId(0), EXTERNAL_FLOW, created, hdr, h, u.payload_len as u32)
        }
        _ => {
            // ICMP, other protocols, fragments, IP options: a UDP packet of
            // the real length (the bytes go out as they came in).
            c.other_protocol += 1;
            let hdr = Ipv4Header { protocol: PROTO_UDP, ..hdr };
            let h = UdpHeader { src_port: 0, dst_port: 0 };
            let len = total.saturating_sub(28);
            Packet::new_udp(PacketId(0), EXTERNAL_FLOW, created, hdr, h, len)
        }
    };
    Ok(p)
}

/// Make the simulated packet's IP length the real one (see the module
/// invariants).
fn fit_length(p: &mut Packet, total: u32, c: &mut Counters) {
    let sim = p.ip_len();
    if sim != total {
        c.length_adjusted += 1;
        let diff = total as i64 - sim as i64;
        p.payload_len = (p.payload_len as i64 + diff).max(0) as u32;
    }
}

/// The simulator's TCP header of a parsed segment (options it does not
/// model are left out; their length is handled by `fit_length`).
fn tcp_header(t: &TcpRepr) -> TcpHeader {
    let mut o = TcpOptions::default();
    for opt in &t.options {
        match opt {
            TcpOption::Mss(m) => o.mss = Some(*m),
            TcpOption::WindowScale(s) => o.window_scale = Some(*s),
            TcpOption::SackPermitted => o.sack_permitted = true,
            TcpOption::Timestamps { tsval, tsecr } => o.timestamps = Some((*tsval, *tsecr)),
            TcpOption::Sack(b) => o.sack = b.iter().copied().collect(),
            TcpOption::Nop | TcpOption::Unknown { .. } => {}
        }
    }
    TcpHeader {
        src_port: t.src_port,
        dst_port: t.dst_port,
        seq: t.seq,
        ack: t.ack,
        flags: TcpFlags(t.flags.0),
        window: t.window,
        options: o,
    }
}

/// Real bytes of injected packets, until their packet comes out.
#[derive(Default)]
pub struct Stash {
    map: HashMap<Key, VecDeque<(u64, Vec<u8>)>>,
    /// Insertion order, for expiry: (instant in ns, key).
    order: VecDeque<(u64, Key)>,
    held: usize,
}

impl Stash {
    /// Keep `bytes` for the packet `p` injected at `at_ns`.
    pub fn put(&mut self, p: &Packet, at_ns: u64, bytes: Vec<u8>) {
        let k = key_of(p);
        self.map.entry(k).or_default().push_back((at_ns, bytes));
        self.order.push_back((at_ns, k));
        self.held += 1;
    }

    /// Datagrams held now.
    pub fn len(&self) -> usize {
        self.held
    }

    pub fn is_empty(&self) -> bool {
        self.held == 0
    }

    /// Forget datagrams stashed before `now_ns - STASH_TTL_NS`.
    pub fn expire(&mut self, now_ns: u64, c: &mut Counters) {
        let limit = now_ns.saturating_sub(STASH_TTL_NS);
        while let Some(&(t, k)) = self.order.front() {
            if t >= limit {
                break;
            }
            self.order.pop_front();
            if let Some(q) = self.map.get_mut(&k) {
                if q.front().is_some_and(|x| x.0 == t) {
                    q.pop_front();
                    self.held -= 1;
                    c.stash_expired += 1;
                }
                if q.is_empty() {
                    self.map.remove(&k);
                }
            }
        }
    }

    /// The real bytes for a packet that came out, with the fields the
    /// network may have changed copied from it.
    pub fn take(&mut self, p: &Packet, c: &mut Counters) -> Option<Vec<u8>> {
        let k = key_of(p);
        let got = match self.map.get_mut(&k) {
            Some(q) => {
                let b = q.pop_front().map(|x| x.1);
                if q.is_empty() {
                    self.map.remove(&k);
                }
                b
            }
            None => None,
        };
        match got {
            Some(mut b) => {
                self.held -= 1;
                patch(&mut b, p);
                Some(b)
            }
            None if matches!(&p.l4, Transport::Udp(u) if (u.src_port, u.dst_port) == (0, 0)) => {
                c.unrenderable += 1;
                None
            }
            None => {
                c.rendered_from_headers += 1;
                Some(p.to_bytes())
            }
        }
    }
}

/// Copy the ECN bits and the TCP window of `p` into the real datagram `b`
/// and refill the checksums they cover (only when one changed).
fn patch(b: &mut [u8], p: &Packet) {
    let ihl = ((b[0] & 0x0f) as usize) * 4;
    let ecn = p.ip.tos & 0b11;
    if b[1] & 0b11 != ecn {
        b[1] = (b[1] & !0b11) | ecn;
        let mut v = Ipv4Packet::new_unchecked(&mut b[..]);
        v.fill_checksum();
    }
    if let (Transport::Tcp(t), PROTO_TCP) = (&p.l4, b[9]) {
        if b.len() >= ihl + 20 {
            let w = u16::from_be_bytes([b[ihl + 14], b[ihl + 15]]);
            if w != t.window {
                b[ihl + 14..ihl + 16].copy_from_slice(&t.window.to_be_bytes());
                let src = Ipv4Addr::new(b[12], b[13], b[14], b[15]);
                let dst = Ipv4Addr::new(b[16], b[17], b[18], b[19]);
                let total = (u16::from_be_bytes([b[2], b[3]]) as usize).min(b.len());
                let mut s = TcpSegment::new_unchecked(&mut b[ihl..total]);
                s.fill_checksum(src, dst);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wifitcp_wire::tcp::SackBlock;

    fn tcp_bytes(window: u16, payload: &[u8], opts: &TcpOptions) -> Vec<u8> {
        let ip = Ipv4Header {
            src: Ipv4Addr::new(10, 0, 0, 2),
            dst: Ipv4Addr::new(10, 0, 0, 3),
            tos: 2,
            ttl: 64,
            ident: 77,
            protocol: PROTO_TCP,
        };
        let h = TcpHeader {
            src_port: 40000,
            dst_port: 5201,
            seq: 1000,
            ack: 5,
            flags: TcpFlags(TcpFlags::ACK),
            window,
            options: opts.clone(),
        };
        let p = Packet::new_tcp(PacketId(0), FlowId(0), SimTime::ZERO, ip, h, payload.len() as u32);
        let mut b = p.to_bytes();
        let n = b.len();
        b[n - payload.len()..].copy_from_slice(payload);
        // refill the TCP checksum over the real payload
        let mut s = TcpSegment::new_unchecked(&mut b[20..]);
        s.fill_checksum(Ipv4Addr::new(10, 0, 0, 2), Ipv4Addr::new(10, 0, 0, 3));
        b
    }

    #[test]
    fn a_real_segment_becomes_a_packet_of_its_length_and_comes_back_byte_for_byte() {
        let opts = TcpOptions {
            timestamps: Some((9, 8)),
            sack: vec![SackBlock { left: 1, right: 9 }].into(),
            ..Default::default()
        };
        let b = tcp_bytes(500, b"hello world", &opts);
        let mut c = Counters::default();
        let p = parse(&b, SimTime::ZERO, &mut c).unwrap();
        assert_eq!(p.ip_len() as usize, b.len());
        assert_eq!(p.payload_len, 11);
        assert_eq!(p.tcp().unwrap().options, opts);
        assert_eq!(c.length_adjusted, 0);
        let mut st = Stash::default();
        st.put(&p, 0, b.clone());
        assert_eq!(st.take(&p, &mut c).unwrap(), b);
        assert!(st.is_empty());
    }

    #[test]
    fn rewritten_window_and_ce_mark_reach_the_real_bytes_with_valid_checksums() {
        let b = tcp_bytes(500, b"xyz", &TcpOptions::default());
        let mut c = Counters::default();
        let mut p = parse(&b, SimTime::ZERO, &mut c).unwrap();
        let mut st = Stash::default();
        st.put(&p, 0, b.clone());
        p.tcp_mut().unwrap().window = 123;
        p.ip.tos |= 0b11;
        let out = st.take(&p, &mut c).unwrap();
        let q = parse(&out, SimTime::ZERO, &mut c).expect("checksums valid");
        assert_eq!(q.tcp().unwrap().window, 123);
        assert_eq!(q.ip.ecn(), 3);
        assert_eq!(&out[out.len() - 3..], b"xyz");
        assert_eq!(c.malformed, 0);
    }

    #[test]
    fn bad_checksums_and_ipv6_are_refused() {
        let mut b = tcp_bytes(500, b"abc", &TcpOptions::default());
        let mut c = Counters::default();
        let n = b.len();
        b[n - 1] ^= 1;
        assert_eq!(parse(&b, SimTime::ZERO, &mut c), Err(Refused::Malformed));
        assert_eq!(parse(&[0x60, 0, 0, 0], SimTime::ZERO, &mut c), Err(Refused::NotIpv4));
        assert_eq!((c.malformed, c.not_ipv4), (1, 1));
    }

    #[test]
    fn icmp_travels_as_a_udp_packet_of_the_real_length() {
        // An ICMP echo request of 84 bytes (ping's default).
        let ip = Ipv4Repr {
            src: Ipv4Addr::new(10, 0, 0, 2),
            dst: Ipv4Addr::new(10, 0, 0, 3),
            tos: 0,
            ident: 9,
            dont_frag: true,
            more_frags: false,
            frag_offset: 0,
            ttl: 64,
            protocol: 1,
            options: vec![],
            payload_len: 64,
        };
        let b = ip.to_bytes(Some(&[8u8; 64])).unwrap();
        let mut c = Counters::default();
        let p = parse(&b, SimTime::ZERO, &mut c).unwrap();
        assert_eq!(p.ip_len(), 84);
        let mut st = Stash::default();
        st.put(&p, 5, b.clone());
        assert_eq!(st.take(&p, &mut c).unwrap(), b);
        // never came out: expires
        st.put(&p, 5, b.clone());
        st.expire(5 + STASH_TTL_NS + 1, &mut c);
        assert!(st.is_empty());
        assert_eq!(c.stash_expired, 1);
        assert!(st.take(&p, &mut c).is_none(), "no bytes to render an ICMP packet from");
    }
}
