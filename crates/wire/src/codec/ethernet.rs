//! Ethernet II framing (IEEE 802.3-2018 3.1.1 with the EtherType of
//! IEEE 802.3 3.2.6 >= 0x0600): destination, source, EtherType, payload;
//! the FCS is not carried (pcap LINKTYPE_ETHERNET frames omit it).
//! Canonical: `emit(parse(b)) == b`.
use super::{be16, put_be16, Error, MacAddress, Result};

pub const HEADER_LEN: usize = 14;
pub const ETHERTYPE_IPV4: u16 = 0x0800;

/// A view of an Ethernet II frame over a buffer.
#[derive(Debug, Clone)]
pub struct EthernetFrame<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> EthernetFrame<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        EthernetFrame { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let f = EthernetFrame { buffer };
        f.check_len()?;
        Ok(f)
    }
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    pub fn into_inner(self) -> T {
        self.buffer
    }
    pub fn dst_addr(&self) -> MacAddress {
        MacAddress::from_slice(&self.buffer.as_ref()[0..6])
    }
    pub fn src_addr(&self) -> MacAddress {
        MacAddress::from_slice(&self.buffer.as_ref()[6..12])
    }
    pub fn ethertype(&self) -> u16 {
        be16(self.buffer.as_ref(), 12)
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EthernetFrame<T> {
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[HEADER_LEN..]
    }
}

/// The meaning of an Ethernet II header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EthernetRepr {
    pub dst: MacAddress,
    pub src: MacAddress,
    /// At least 0x0600 (below that the field is an 802.3 length).
    pub ethertype: u16,
}

impl EthernetRepr {
    pub fn parse<T: AsRef<[u8]> + ?Sized>(f: &EthernetFrame<&T>) -> Result<EthernetRepr> {
        f.check_len()?;
        if f.ethertype() < 0x0600 {
            return Err(Error::Unsupported("802.3 length field (LLC framing) instead of an EtherType"));
        }
        Ok(EthernetRepr { dst: f.dst_addr(), src: f.src_addr(), ethertype: f.ethertype() })
    }
    pub fn header_len(&self) -> usize {
        HEADER_LEN
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, f: &mut EthernetFrame<T>) -> Result<()> {
        if self.ethertype < 0x0600 {
            return Err(Error::Invalid("EtherType below 0x0600"));
        }
        let b = f.buffer.as_mut();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        b[0..6].copy_from_slice(&self.dst.0);
        b[6..12].copy_from_slice(&self.src.0);
        put_be16(b, 12, self.ethertype);
        Ok(())
    }
    /// Header followed by `payload`.
    pub fn to_bytes(&self, payload: &[u8]) -> Result<Vec<u8>> {
        let mut v = vec![0u8; HEADER_LEN + payload.len()];
        self.emit(&mut EthernetFrame::new_unchecked(&mut v[..]))?;
        v[HEADER_LEN..].copy_from_slice(payload);
        Ok(v)
    }
}
