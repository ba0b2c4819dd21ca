//! IPv4 header (RFC 791), without options: 20 bytes.
use std::net::Ipv4Addr;

pub const IPV4_HEADER_LEN: u32 = 20;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;

/// The two-bit ECN field of the IP header (RFC 3168 section 5, RFC 8311,
/// RFC 9331 for ECT(1) as the L4S identifier).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Ecn {
    /// 00: not ECN-capable transport.
    #[default]
    NotEct = 0,
    /// 01: ECT(1), the L4S identifier (RFC 9331 section 4).
    Ect1 = 1,
    /// 10: ECT(0), classic ECN-capable transport.
    Ect0 = 2,
    /// 11: congestion experienced.
    Ce = 3,
}

impl Ecn {
    /// The codepoint of the low two bits of `tos`.
    pub fn from_bits(tos: u8) -> Ecn {
        match tos & 0b11 {
            0 => Ecn::NotEct,
            1 => Ecn::Ect1,
            2 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }
}

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
    /// The ECN field as a codepoint.
    pub fn ecn_codepoint(&self) -> Ecn {
        Ecn::from_bits(self.tos)
    }
    /// Set the ECN field, keeping the DSCP.
    pub fn set_ecn(&mut self, e: Ecn) {
        self.tos = (self.tos & !0b11) | e as u8;
    }
    /// Packets of an ECN-capable transport (ECT(0), ECT(1) or CE).
    pub fn is_ect(&self) -> bool {
        self.ecn_codepoint() != Ecn::NotEct
    }
    /// A queue's "mark instead of drop" (RFC 3168 section 5; RFC 8311):
    /// an ECT packet becomes CE and true is returned; a Not-ECT packet is
    /// left alone (false: the queue drops it instead).
    pub fn mark_ce(&mut self) -> bool {
        if self.is_ect() {
            self.set_ecn(Ecn::Ce);
            true
        } else {
            false
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ecn_field_round_trips_and_keeps_dscp() {
        let mut h = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), PROTO_TCP);
        h.tos = 46 << 2; // EF
        assert!(!h.is_ect() && !h.mark_ce(), "Not-ECT is never marked");
        for e in [Ecn::Ect1, Ecn::Ect0, Ecn::Ce, Ecn::NotEct] {
            h.set_ecn(e);
            assert_eq!(h.ecn_codepoint(), e);
            assert_eq!(h.tos >> 2, 46);
            let mut b = Vec::new();
            h.write(40, &mut b);
            assert_eq!(b[1] & 3, e as u8, "RFC 3168 5: the low two bits of the TOS octet");
        }
        h.set_ecn(Ecn::Ect1);
        assert!(h.mark_ce());
        assert_eq!(h.ecn(), 3);
    }
}
