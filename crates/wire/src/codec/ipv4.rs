//! IPv4 header (RFC 791 3.1) with its header checksum (RFC 791, computed as
//! in RFC 1071). Options are kept as raw bytes (a multiple of 4, at most 40).
//!
//! Canonical form: `emit(parse(b)) == b` for every datagram that parses (the
//! checksum is verified on parse, so the recomputed one is the same).
use super::{be16, put_be16, Error, Result};
use std::net::Ipv4Addr;

pub const HEADER_LEN: usize = 20;
pub const MAX_OPTIONS_LEN: usize = 40;

mod field {
    pub const VER_IHL: usize = 0;
    pub const TOS: usize = 1;
    pub const LENGTH: usize = 2;
    pub const IDENT: usize = 4;
    pub const FLG_OFF: usize = 6;
    pub const TTL: usize = 8;
    pub const PROTOCOL: usize = 9;
    pub const CHECKSUM: usize = 10;
    pub const SRC: usize = 12;
    pub const DST: usize = 16;
}

/// A view of an IPv4 datagram over a buffer.
#[derive(Debug, Clone)]
pub struct Ipv4Packet<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> Ipv4Packet<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        Ipv4Packet { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let p = Ipv4Packet { buffer };
        p.check_len()?;
        Ok(p)
    }
    /// Version 4, IHL >= 5, the header and the total length inside the
    /// buffer, total length >= header length. After this, no accessor
    /// panics. Bytes past the total length (link padding) are allowed.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        if b[field::VER_IHL] >> 4 != 4 {
            return Err(Error::Malformed("IPv4 version is not 4"));
        }
        let hl = self.header_len();
        if hl < HEADER_LEN {
            return Err(Error::Malformed("IPv4 IHL below 5"));
        }
        let total = self.total_len() as usize;
        if total < hl {
            return Err(Error::Malformed("IPv4 total length below header length"));
        }
        if b.len() < total {
            return Err(Error::Truncated);
        }
        Ok(())
    }
    pub fn into_inner(self) -> T {
        self.buffer
    }
    pub fn header_len(&self) -> usize {
        (self.buffer.as_ref()[field::VER_IHL] & 0x0f) as usize * 4
    }
    pub fn tos(&self) -> u8 {
        self.buffer.as_ref()[field::TOS]
    }
    pub fn total_len(&self) -> u16 {
        be16(self.buffer.as_ref(), field::LENGTH)
    }
    pub fn ident(&self) -> u16 {
        be16(self.buffer.as_ref(), field::IDENT)
    }
    fn flg_off(&self) -> u16 {
        be16(self.buffer.as_ref(), field::FLG_OFF)
    }
    /// The reserved flag bit (must be zero, RFC 791 3.1).
    pub fn reserved_flag(&self) -> bool {
        self.flg_off() & 0x8000 != 0
    }
    pub fn dont_frag(&self) -> bool {
        self.flg_off() & 0x4000 != 0
    }
    pub fn more_frags(&self) -> bool {
        self.flg_off() & 0x2000 != 0
    }
    /// Fragment offset in 8-byte units.
    pub fn frag_offset(&self) -> u16 {
        self.flg_off() & 0x1fff
    }
    pub fn ttl(&self) -> u8 {
        self.buffer.as_ref()[field::TTL]
    }
    pub fn protocol(&self) -> u8 {
        self.buffer.as_ref()[field::PROTOCOL]
    }
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), field::CHECKSUM)
    }
    pub fn src_addr(&self) -> Ipv4Addr {
        let b = self.buffer.as_ref();
        Ipv4Addr::new(b[field::SRC], b[field::SRC + 1], b[field::SRC + 2], b[field::SRC + 3])
    }
    pub fn dst_addr(&self) -> Ipv4Addr {
        let b = self.buffer.as_ref();
        Ipv4Addr::new(b[field::DST], b[field::DST + 1], b[field::DST + 2], b[field::DST + 3])
    }
    pub fn options(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.header_len()]
    }
    /// The bytes between the header and the total length.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..self.total_len() as usize]
    }
    /// The header's one's-complement sum folds to zero (RFC 1071).
    pub fn verify_checksum(&self) -> bool {
        let h = &self.buffer.as_ref()[..self.header_len()];
        crate::csum_finish(crate::csum_add(0, h)) == 0
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> Ipv4Packet<T> {
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let (h, t) = (self.header_len(), self.total_len() as usize);
        &mut self.buffer.as_mut()[h..t]
    }
    /// Recompute the header checksum over the header as it stands.
    pub fn fill_checksum(&mut self) {
        let hl = self.header_len();
        let b = self.buffer.as_mut();
        put_be16(b, field::CHECKSUM, 0);
        let c = crate::csum_finish(crate::csum_add(0, &b[..hl]));
        put_be16(b, field::CHECKSUM, c);
    }
}

/// The meaning of an IPv4 header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipv4Repr {
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    /// DSCP (upper 6 bits) and ECN (lower 2 bits, RFC 3168).
    pub tos: u8,
    pub ident: u16,
    pub dont_frag: bool,
    pub more_frags: bool,
    /// In 8-byte units, below 8192.
    pub frag_offset: u16,
    pub ttl: u8,
    pub protocol: u8,
    /// Raw option bytes, a multiple of 4, at most 40.
    pub options: Vec<u8>,
    pub payload_len: usize,
}

impl Ipv4Repr {
    /// Parse a checked view; the header checksum must verify and the
    /// reserved flag be clear.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(p: &Ipv4Packet<&T>) -> Result<Ipv4Repr> {
        p.check_len()?;
        if !p.verify_checksum() {
            return Err(Error::Checksum);
        }
        if p.reserved_flag() {
            return Err(Error::Malformed("IPv4 reserved flag set"));
        }
        Ok(Ipv4Repr {
            src: p.src_addr(),
            dst: p.dst_addr(),
            tos: p.tos(),
            ident: p.ident(),
            dont_frag: p.dont_frag(),
            more_frags: p.more_frags(),
            frag_offset: p.frag_offset(),
            ttl: p.ttl(),
            protocol: p.protocol(),
            options: p.options().to_vec(),
            payload_len: p.total_len() as usize - p.header_len(),
        })
    }
    pub fn header_len(&self) -> usize {
        HEADER_LEN + self.options.len()
    }
    /// Header plus payload: the total-length field.
    pub fn buffer_len(&self) -> usize {
        self.header_len() + self.payload_len
    }
    /// Write the header (checksum included) into `p`, whose buffer holds at
    /// least `buffer_len()` bytes; the payload area is left as it is.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, p: &mut Ipv4Packet<T>) -> Result<()> {
        if self.options.len() & 3 != 0 || self.options.len() > MAX_OPTIONS_LEN {
            return Err(Error::Invalid("IPv4 options not a multiple of 4 or over 40 bytes"));
        }
        if self.frag_offset > 0x1fff {
            return Err(Error::Invalid("IPv4 fragment offset over 13 bits"));
        }
        let total = u16::try_from(self.buffer_len()).map_err(|_| Error::Invalid("IPv4 datagram over 65535 bytes"))?;
        let b = p.buffer.as_mut();
        if b.len() < total as usize {
            return Err(Error::Truncated);
        }
        self.emit_header(&mut b[..self.header_len()])
    }
    /// Write the header alone (checksum included, total length
    /// `buffer_len()`) into `b`, exactly `header_len()` bytes: a capture
    /// that keeps headers only (the payload is not needed for any field).
    pub fn emit_header(&self, b: &mut [u8]) -> Result<()> {
        if self.options.len() & 3 != 0 || self.options.len() > MAX_OPTIONS_LEN {
            return Err(Error::Invalid("IPv4 options not a multiple of 4 or over 40 bytes"));
        }
        if self.frag_offset > 0x1fff {
            return Err(Error::Invalid("IPv4 fragment offset over 13 bits"));
        }
        let total = u16::try_from(self.buffer_len()).map_err(|_| Error::Invalid("IPv4 datagram over 65535 bytes"))?;
        if b.len() != self.header_len() {
            return Err(if b.len() < self.header_len() {
                Error::Truncated
            } else {
                Error::Invalid("buffer longer than header")
            });
        }
        b[field::VER_IHL] = 0x40 | (self.header_len() / 4) as u8;
        b[field::TOS] = self.tos;
        put_be16(b, field::LENGTH, total);
        put_be16(b, field::IDENT, self.ident);
        let fo = (self.dont_frag as u16) << 14 | (self.more_frags as u16) << 13 | self.frag_offset;
        put_be16(b, field::FLG_OFF, fo);
        b[field::TTL] = self.ttl;
        b[field::PROTOCOL] = self.protocol;
        b[field::SRC..field::SRC + 4].copy_from_slice(&self.src.octets());
        b[field::DST..field::DST + 4].copy_from_slice(&self.dst.octets());
        b[HEADER_LEN..HEADER_LEN + self.options.len()].copy_from_slice(&self.options);
        Ipv4Packet::new_unchecked(b).fill_checksum();
        Ok(())
    }
    /// A datagram of `buffer_len()` bytes: this header, then `payload` (its
    /// length must be `payload_len`) or zeros when `None`.
    pub fn to_bytes(&self, payload: Option<&[u8]>) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        if let Some(pl) = payload {
            if pl.len() != self.payload_len {
                return Err(Error::Invalid("payload length differs from payload_len"));
            }
            v[self.header_len()..].copy_from_slice(pl);
        }
        self.emit(&mut Ipv4Packet::new_unchecked(&mut v[..]))?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 1071-style worked example widely used for the IPv4 checksum: the
    // header 4500 0073 0000 4000 4011 ---- c0a8 0001 c0a8 00c7 has checksum
    // 0xb861.
    const HDR: [u8; 20] = [
        0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8,
        0x00, 0xc7,
    ];

    #[test]
    fn known_checksum_parses_and_reemits() {
        let mut buf = HDR.to_vec();
        buf.resize(0x73, 0);
        let p = Ipv4Packet::new_checked(&buf[..]).unwrap();
        let r = Ipv4Repr::parse(&p).unwrap();
        assert_eq!(r.protocol, 17);
        assert!(r.dont_frag);
        assert_eq!(r.payload_len, 0x73 - 20);
        assert_eq!(r.to_bytes(None).unwrap()[..20], HDR);
    }

    #[test]
    fn bad_checksum_and_truncation_are_errors() {
        let mut buf = HDR.to_vec();
        buf.resize(0x73, 0);
        buf[11] ^= 1;
        assert_eq!(Ipv4Repr::parse(&Ipv4Packet::new_unchecked(&buf[..])), Err(Error::Checksum));
        assert_eq!(Ipv4Packet::new_checked(&HDR[..]).err(), Some(Error::Truncated));
        assert_eq!(Ipv4Packet::new_checked(&HDR[..10]).err(), Some(Error::Truncated));
        let mut v6 = HDR.to_vec();
        v6[0] = 0x65;
        assert!(matches!(Ipv4Packet::new_checked(&v6[..]), Err(Error::Malformed(_))));
    }
}
