//! LLC/SNAP encapsulation of an MSDU (IEEE 802.2 LLC header with DSAP = SSAP
//! = 0xAA and UI control 0x03, then the SNAP header: 3-byte OUI and 2-byte
//! protocol id), as RFC 1042 (OUI 00-00-00, EtherType) and IEEE 802.1H
//! (OUI 00-00-F8) use it for IP over 802.11. Other LLC SAPs are
//! `Unsupported`. Canonical: `emit(parse(b)) == b`.
use super::{be16, put_be16, Error, Result};

pub const HEADER_LEN: usize = 8;
/// RFC 1042 encapsulation OUI.
pub const OUI_RFC1042: [u8; 3] = [0, 0, 0];

/// A view of an LLC/SNAP header and the MSDU payload after it.
#[derive(Debug, Clone)]
pub struct SnapHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> SnapHeader<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        SnapHeader { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let h = SnapHeader { buffer };
        h.check_len()?;
        Ok(h)
    }
    pub fn check_len(&self) -> Result<()> {
        if self.buffer.as_ref().len() < HEADER_LEN {
            Err(Error::Truncated)
        } else {
            Ok(())
        }
    }
    pub fn dsap(&self) -> u8 {
        self.buffer.as_ref()[0]
    }
    pub fn ssap(&self) -> u8 {
        self.buffer.as_ref()[1]
    }
    pub fn control(&self) -> u8 {
        self.buffer.as_ref()[2]
    }
    pub fn oui(&self) -> [u8; 3] {
        let b = self.buffer.as_ref();
        [b[3], b[4], b[5]]
    }
    pub fn protocol(&self) -> u16 {
        be16(self.buffer.as_ref(), 6)
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..]
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> SnapHeader<T> {
    pub fn payload_mut(&mut self) -> &mut [u8] {
        &mut self.buffer.as_mut()[HEADER_LEN..]
    }
}

/// The meaning of an LLC/SNAP header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SnapRepr {
    pub oui: [u8; 3],
    /// EtherType when `oui` is 00-00-00 or 00-00-F8.
    pub protocol: u16,
}

impl SnapRepr {
    pub const IPV4: SnapRepr = SnapRepr { oui: OUI_RFC1042, protocol: super::ethernet::ETHERTYPE_IPV4 };

    pub fn parse<T: AsRef<[u8]> + ?Sized>(h: &SnapHeader<&T>) -> Result<SnapRepr> {
        h.check_len()?;
        if h.dsap() != 0xAA || h.ssap() != 0xAA || h.control() != 0x03 {
            return Err(Error::Unsupported("LLC header that is not SNAP (AA-AA-03)"));
        }
        Ok(SnapRepr { oui: h.oui(), protocol: h.protocol() })
    }
    pub fn header_len(&self) -> usize {
        HEADER_LEN
    }
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, h: &mut SnapHeader<T>) -> Result<()> {
        let b = h.buffer.as_mut();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        b[..3].copy_from_slice(&[0xAA, 0xAA, 0x03]);
        b[3..6].copy_from_slice(&self.oui);
        put_be16(b, 6, self.protocol);
        Ok(())
    }
}
