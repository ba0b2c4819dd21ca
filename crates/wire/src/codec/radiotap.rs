//! Radiotap header (the de-facto standard documented at radiotap.org; pcap
//! LINKTYPE_IEEE802_11_RADIOTAP = 127): version 0, pad, length (LE), the
//! `present` bitmap (LE, bit 31 = another bitmap word follows), then the
//! fields in bit order, each aligned to its natural size from the start of
//! the header. Modelled fields: Flags (bit 1, u8), Rate (bit 2, u8, in
//! 500 kbit/s), Channel (bit 3, u16 frequency in MHz + u16 flags, aligned 2)
//! and dBm antenna signal (bit 5, i8).
//!
//! Parsing skips TSFT (bit 0, u64) and FHSS (bit 4, 2 bytes) to reach the
//! modelled fields and ignores every later field and bitmap word (their
//! bytes lie inside the header length, which is all the 802.11 frame's
//! position needs). So `emit(parse(b)) == b` holds for headers with only the
//! modelled fields, which is what `emit` writes.
use super::{le16, le32, put_le16, put_le32, Error, Result};

pub const FIXED_LEN: usize = 8;

/// Flags field bits.
pub mod flags {
    /// The frame includes the 4-byte FCS at its end.
    pub const FCS_AT_END: u8 = 0x10;
    /// The frame failed its FCS check.
    pub const BAD_FCS: u8 = 0x40;
    /// Short preamble (DSSS/CCK).
    pub const SHORT_PREAMBLE: u8 = 0x02;
}

/// Channel flags bits.
pub mod chan {
    pub const CCK: u16 = 0x0020;
    pub const OFDM: u16 = 0x0040;
    pub const GHZ2: u16 = 0x0080;
    pub const GHZ5: u16 = 0x0100;
}

const BIT_TSFT: u32 = 1 << 0;
const BIT_FLAGS: u32 = 1 << 1;
const BIT_RATE: u32 = 1 << 2;
const BIT_CHANNEL: u32 = 1 << 3;
const BIT_FHSS: u32 = 1 << 4;
const BIT_SIGNAL: u32 = 1 << 5;
const BIT_EXT: u32 = 1 << 31;

/// A view of a radiotap header followed by an 802.11 frame.
#[derive(Debug, Clone)]
pub struct RadiotapHeader<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> RadiotapHeader<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        RadiotapHeader { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let h = RadiotapHeader { buffer };
        h.check_len()?;
        Ok(h)
    }
    /// Fixed part present, version 0, 8 <= length <= buffer.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < FIXED_LEN {
            return Err(Error::Truncated);
        }
        if b[0] != 0 {
            return Err(Error::Unsupported("radiotap version other than 0"));
        }
        let l = self.header_len();
        if l < FIXED_LEN {
            return Err(Error::Malformed("radiotap length below 8"));
        }
        if l > b.len() {
            return Err(Error::Truncated);
        }
        Ok(())
    }
    pub fn header_len(&self) -> usize {
        le16(self.buffer.as_ref(), 2) as usize
    }
    /// The first `present` word.
    pub fn present(&self) -> u32 {
        le32(self.buffer.as_ref(), 4)
    }
    /// The 802.11 frame after the header.
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..]
    }
}

/// The modelled radiotap fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RadiotapRepr {
    pub flags: Option<u8>,
    /// Data rate in units of 500 kbit/s (e.g. 108 = 54 Mbit/s).
    pub rate_500kbps: Option<u8>,
    /// (centre frequency in MHz, channel flags).
    pub channel: Option<(u16, u16)>,
    /// RF signal power at the antenna, dBm.
    pub antenna_signal_dbm: Option<i8>,
}

fn align(at: usize, to: usize) -> usize {
    at.div_ceil(to) * to
}

impl RadiotapRepr {
    pub fn parse<T: AsRef<[u8]> + ?Sized>(h: &RadiotapHeader<&T>) -> Result<RadiotapRepr> {
        h.check_len()?;
        let b = &h.buffer.as_ref()[..h.header_len()];
        // Skip the extra bitmap words.
        let mut at = 4;
        loop {
            if at + 4 > b.len() {
                return Err(Error::Malformed("radiotap present bitmap runs past the header"));
            }
            let w = le32(b, at);
            at += 4;
            if w & BIT_EXT == 0 {
                break;
            }
        }
        let present = h.present();
        let mut r = RadiotapRepr::default();
        let need = |at: usize, n: usize| {
            if at + n > b.len() {
                Err(Error::Malformed("radiotap field runs past the header"))
            } else {
                Ok(())
            }
        };
        if present & BIT_TSFT != 0 {
            at = align(at, 8);
            need(at, 8)?;
            at += 8;
        }
        if present & BIT_FLAGS != 0 {
            need(at, 1)?;
            r.flags = Some(b[at]);
            at += 1;
        }
        if present & BIT_RATE != 0 {
            need(at, 1)?;
            r.rate_500kbps = Some(b[at]);
            at += 1;
        }
        if present & BIT_CHANNEL != 0 {
            at = align(at, 2);
            need(at, 4)?;
            r.channel = Some((le16(b, at), le16(b, at + 2)));
            at += 4;
        }
        if present & BIT_FHSS != 0 {
            need(at, 2)?;
            at += 2;
        }
        if present & BIT_SIGNAL != 0 {
            need(at, 1)?;
            r.antenna_signal_dbm = Some(b[at] as i8);
        }
        Ok(r)
    }
    pub fn header_len(&self) -> usize {
        let mut at = FIXED_LEN;
        if self.flags.is_some() {
            at += 1;
        }
        if self.rate_500kbps.is_some() {
            at += 1;
        }
        if self.channel.is_some() {
            at = align(at, 2) + 4;
        }
        if self.antenna_signal_dbm.is_some() {
            at += 1;
        }
        at
    }
    /// Write the header into a buffer of at least `header_len()` bytes
    /// (alignment padding is zeroed).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, h: &mut RadiotapHeader<T>) -> Result<()> {
        let len = self.header_len();
        let b = h.buffer.as_mut();
        if b.len() < len {
            return Err(Error::Truncated);
        }
        let b = &mut b[..len];
        b.fill(0);
        put_le16(b, 2, len as u16);
        let mut present = 0;
        let mut at = FIXED_LEN;
        if let Some(f) = self.flags {
            present |= BIT_FLAGS;
            b[at] = f;
            at += 1;
        }
        if let Some(r) = self.rate_500kbps {
            present |= BIT_RATE;
            b[at] = r;
            at += 1;
        }
        if let Some((freq, fl)) = self.channel {
            present |= BIT_CHANNEL;
            at = align(at, 2);
            put_le16(b, at, freq);
            put_le16(b, at + 2, fl);
            at += 4;
        }
        if let Some(s) = self.antenna_signal_dbm {
            present |= BIT_SIGNAL;
            b[at] = s as u8;
        }
        put_le32(b, 4, present);
        Ok(())
    }
    /// This header followed by `frame`.
    pub fn to_bytes(&self, frame: &[u8]) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.header_len() + frame.len()];
        let hl = self.header_len();
        self.emit(&mut RadiotapHeader::new_unchecked(&mut v[..]))?;
        v[hl..].copy_from_slice(frame);
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_radiotap_alignment() {
        let r = RadiotapRepr {
            flags: Some(flags::FCS_AT_END),
            rate_500kbps: Some(108),
            channel: Some((2437, chan::GHZ2 | chan::OFDM)),
            antenna_signal_dbm: Some(-42),
        };
        let b = r.to_bytes(&[]).unwrap();
        // 8 fixed + flags@8 + rate@9 + channel@10..14 + signal@14 = 15 bytes.
        assert_eq!(b, [0, 0, 15, 0, 0x2e, 0, 0, 0, 0x10, 108, 0x85, 0x09, 0xc0, 0x00, 0xd6]);
        assert_eq!(RadiotapRepr::parse(&RadiotapHeader::new_checked(&b[..]).unwrap()).unwrap(), r);
        // Only a channel: aligned at 8 with no padding.
        let c = RadiotapRepr { channel: Some((5180, chan::GHZ5 | chan::OFDM)), ..Default::default() };
        assert_eq!(c.header_len(), 12);
        // Rate only then channel: rate@8, pad@9, channel@10.
        let rc =
            RadiotapRepr { rate_500kbps: Some(2), channel: Some((2412, chan::GHZ2 | chan::CCK)), ..Default::default() };
        let b = rc.to_bytes(&[]).unwrap();
        assert_eq!(b.len(), 14);
        assert_eq!(RadiotapRepr::parse(&RadiotapHeader::new_unchecked(&b[..])).unwrap(), rc);
    }

    #[test]
    fn tsft_is_skipped_and_bad_lengths_are_errors() {
        // present = TSFT | Flags; TSFT at 8..16, flags at 16.
        let mut b = vec![0u8, 0, 17, 0, 0x03, 0, 0, 0];
        b.extend_from_slice(&[1; 8]);
        b.push(0x10);
        let r = RadiotapRepr::parse(&RadiotapHeader::new_checked(&b[..]).unwrap()).unwrap();
        assert_eq!(r.flags, Some(0x10));
        b[2] = 16; // the flags byte now lies past the header length
        assert!(RadiotapRepr::parse(&RadiotapHeader::new_checked(&b[..]).unwrap()).is_err());
        assert_eq!(RadiotapHeader::new_checked(&b[..5]).err(), Some(Error::Truncated));
        // An extended bitmap word that runs past the header.
        let e = [0u8, 0, 8, 0, 0, 0, 0, 0x80];
        assert!(RadiotapRepr::parse(&RadiotapHeader::new_checked(&e[..]).unwrap()).is_err());
    }
}
