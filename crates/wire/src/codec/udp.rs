//! UDP header (RFC 768): ports, length, checksum over the IPv4 pseudo-header.
//!
//! A zero checksum means "none" (RFC 768) and is accepted; `emit` always
//! computes one (0 becomes 0xffff), so `emit(parse(b)) == b` holds for
//! datagrams that carry a checksum.
use super::{be16, put_be16, Error, Result};
use std::net::Ipv4Addr;

pub const HEADER_LEN: usize = 8;

/// A view of a UDP datagram over a buffer.
#[derive(Debug, Clone)]
pub struct UdpDatagram<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> UdpDatagram<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        UdpDatagram { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let d = UdpDatagram { buffer };
        d.check_len()?;
        Ok(d)
    }
    /// Header inside the buffer, 8 <= length field <= buffer length.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let l = self.len() as usize;
        if l < HEADER_LEN {
            return Err(Error::Malformed("UDP length below 8"));
        }
        if l > b.len() {
            return Err(Error::Truncated);
        }
        Ok(())
    }
    pub fn into_inner(self) -> T {
        self.buffer
    }
    pub fn src_port(&self) -> u16 {
        be16(self.buffer.as_ref(), 0)
    }
    pub fn dst_port(&self) -> u16 {
        be16(self.buffer.as_ref(), 2)
    }
    /// The length field: header plus payload.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u16 {
        be16(self.buffer.as_ref(), 4)
    }
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), 6)
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.len() as usize]
    }
    /// True when the checksum is absent (0) or verifies.
    pub fn verify_checksum(&self, src: Ipv4Addr, dst: Ipv4Addr) -> bool {
        self.checksum() == 0
            || super::pseudo_checksum(src, dst, crate::ip::PROTO_UDP, &self.buffer.as_ref()[..self.len() as usize]) == 0
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> UdpDatagram<T> {
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let l = self.len() as usize;
        &mut self.buffer.as_mut()[HEADER_LEN..l]
    }
    pub fn fill_checksum(&mut self, src: Ipv4Addr, dst: Ipv4Addr) {
        let l = self.len() as usize;
        let b = self.buffer.as_mut();
        put_be16(b, 6, 0);
        let c = match super::pseudo_checksum(src, dst, crate::ip::PROTO_UDP, &b[..l]) {
            0 => 0xffff,
            c => c,
        };
        put_be16(b, 6, c);
    }
}

/// The meaning of a UDP header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UdpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub payload_len: usize,
}

impl UdpRepr {
    /// Parse a datagram; with `addrs` a non-zero checksum must verify.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(d: &UdpDatagram<&T>, addrs: Option<(Ipv4Addr, Ipv4Addr)>) -> Result<UdpRepr> {
        d.check_len()?;
        if let Some((s, t)) = addrs {
            if !d.verify_checksum(s, t) {
                return Err(Error::Checksum);
            }
        }
        Ok(UdpRepr { src_port: d.src_port(), dst_port: d.dst_port(), payload_len: d.len() as usize - HEADER_LEN })
    }
    pub fn header_len(&self) -> usize {
        HEADER_LEN
    }
    pub fn buffer_len(&self) -> usize {
        HEADER_LEN + self.payload_len
    }
    /// Write the header and checksum into a buffer of at least `buffer_len()`.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        d: &mut UdpDatagram<T>,
        src: Ipv4Addr,
        dst: Ipv4Addr,
    ) -> Result<()> {
        let l = u16::try_from(self.buffer_len()).map_err(|_| Error::Invalid("UDP datagram over 65535 bytes"))?;
        let b = d.buffer.as_mut();
        if b.len() < l as usize {
            return Err(Error::Truncated);
        }
        put_be16(b, 0, self.src_port);
        put_be16(b, 2, self.dst_port);
        put_be16(b, 4, l);
        d.fill_checksum(src, dst);
        Ok(())
    }
    /// Write the header alone into `b`, exactly `header_len()` bytes, with
    /// the checksum of the whole datagram as if `payload_len` zero bytes
    /// followed (the simulator's payload): a capture that keeps headers only.
    pub fn emit_header(&self, b: &mut [u8], src: Ipv4Addr, dst: Ipv4Addr) -> Result<()> {
        let l = u16::try_from(self.buffer_len()).map_err(|_| Error::Invalid("UDP datagram over 65535 bytes"))?;
        if b.len() != HEADER_LEN {
            return Err(if b.len() < HEADER_LEN {
                Error::Truncated
            } else {
                Error::Invalid("buffer longer than header")
            });
        }
        put_be16(b, 0, self.src_port);
        put_be16(b, 2, self.dst_port);
        put_be16(b, 4, l);
        put_be16(b, 6, 0);
        let c = match super::pseudo_checksum_zero_padded(src, dst, crate::ip::PROTO_UDP, b, l as usize) {
            0 => 0xffff,
            c => c,
        };
        put_be16(b, 6, c);
        Ok(())
    }
    pub fn to_bytes(&self, src: Ipv4Addr, dst: Ipv4Addr, payload: Option<&[u8]>) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        if let Some(pl) = payload {
            if pl.len() != self.payload_len {
                return Err(Error::Invalid("payload length differs from payload_len"));
            }
            v[HEADER_LEN..].copy_from_slice(pl);
        }
        self.emit(&mut UdpDatagram::new_unchecked(&mut v[..]), src, dst)?;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_errors() {
        let (s, t) = (Ipv4Addr::new(1, 2, 3, 4), Ipv4Addr::new(5, 6, 7, 8));
        let r = UdpRepr { src_port: 53, dst_port: 4000, payload_len: 3 };
        let b = r.to_bytes(s, t, Some(b"abc")).unwrap();
        let d = UdpDatagram::new_checked(&b[..]).unwrap();
        assert_eq!(d.payload(), b"abc");
        assert_eq!(UdpRepr::parse(&d, Some((s, t))).unwrap(), r);
        assert_eq!(UdpRepr::parse(&d, Some((t, s))).ok(), Some(r.clone())); // the sum is symmetric in src/dst
        let mut bad = b.clone();
        bad[8] ^= 0xff;
        assert_eq!(UdpRepr::parse(&UdpDatagram::new_unchecked(&bad[..]), Some((s, t))), Err(Error::Checksum));
        assert_eq!(UdpDatagram::new_checked(&b[..7]).err(), Some(Error::Truncated));
        let mut short = b.clone();
        short[5] = 4;
        assert!(matches!(UdpDatagram::new_checked(&short[..]), Err(Error::Malformed(_))));
    }
}
