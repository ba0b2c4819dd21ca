//! IPv4 header (RFC 791), without options: 20 bytes.
use std::net::Ipv4Addr;

pub const IPV4_HEADER_LEN: u32 = 20;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipv4Header {
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    /// DSCP (upper 6 bits) and ECN (lower 2 bits).
    pub tos: u8,
    pub ttl: u8,
    pub ident: u16,
    pub protocol: u8,
}

impl Ipv4Header {
    pub fn new(src: Ipv4Addr, dst: Ipv4Addr, protocol: u8) -> Self {
        Ipv4Header { src, dst, tos: 0, ttl: 64, ident: 0, protocol }
    }
    /// ECN field (RFC 3168): 0 not-ECT, 1 ECT(1), 2 ECT(0), 3 CE.
    pub fn ecn(&self) -> u8 {
        self.tos & 0b11
    }
    pub fn write(&self, total_len: u16, out: &mut Vec<u8>) {
        let start = out.len();
        out.extend_from_slice(&[0x45, self.tos]);
        out.extend_from_slice(&total_len.to_be_bytes());
        out.extend_from_slice(&self.ident.to_be_bytes());
        out.extend_from_slice(&[0x40, 0x00]); // DF, no fragment offset
        out.extend_from_slice(&[self.ttl, self.protocol, 0, 0]);
        out.extend_from_slice(&self.src.octets());
        out.extend_from_slice(&self.dst.octets());
        let c = crate::csum_finish(crate::csum_add(0, &out[start..start + 20]));
        out[start + 10..start + 12].copy_from_slice(&c.to_be_bytes());
    }
}
