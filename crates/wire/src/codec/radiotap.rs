//! Radiotap header (the de-facto standard documented at radiotap.org; pcap
//! LINKTYPE_IEEE802_11_RADIOTAP = 127): version 0, pad, length (LE), the
//! `present` bitmap (LE, bit 31 = another bitmap word follows), then the
//! fields in bit order, each aligned to its natural size from the start of
//! the header. Modelled fields: Flags (bit 1, u8), Rate (bit 2, u8, in
//! 500 kbit/s), Channel (bit 3, u16 frequency in MHz + u16 flags, aligned 2),
//! dBm antenna signal (bit 5, i8) and A-MPDU status (bit 20: u32 reference
//! number, u16 flags, u8 delimiter CRC value, u8 reserved; aligned 4).
//!
//! Parsing skips the other defined fields of bits 0-19 (TSFT, FHSS, noise,
//! lock quality, TX attenuation and power, antenna, RX/TX flags, retries,
//! XChannel, MCS) by their sizes and alignments to reach the modelled
//! fields, and ignores every field after bit 20 and every further bitmap
//! word (their bytes lie inside the header length, which is all the 802.11
//! frame's position needs). So `emit(parse(b)) == b` holds for headers with
//! only the modelled fields, which is what `emit` writes.
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

/// A-MPDU status flags (radiotap field 20).
pub mod ampdu {
    /// The driver reports 0-length subframes.
    pub const REPORTS_ZERO_LEN: u16 = 0x0001;
    /// This is a 0-length subframe.
    pub const ZERO_LEN: u16 = 0x0002;
    /// Whether this is the last subframe is known.
    pub const LAST_KNOWN: u16 = 0x0004;
    /// This is the last subframe of the A-MPDU.
    pub const LAST: u16 = 0x0008;
    /// The delimiter CRC value is known (the `delimiter_crc` byte is valid).
    pub const DELIM_CRC_KNOWN: u16 = 0x0020;
}

const BIT_FLAGS: u32 = 1 << 1;
const BIT_RATE: u32 = 1 << 2;
const BIT_CHANNEL: u32 = 1 << 3;
const BIT_SIGNAL: u32 = 1 << 5;
const BIT_AMPDU: u32 = 1 << 20;
const BIT_EXT: u32 = 1 << 31;

/// (alignment, size) of the defined fields of bits 0-20 (radiotap.org's
/// field list): TSFT, Flags, Rate, Channel, FHSS, dBm antenna signal, dBm
/// antenna noise, Lock quality, TX attenuation, dB TX attenuation, dBm TX
/// power, Antenna, dB antenna signal, dB antenna noise, RX flags, TX flags,
/// RTS retries, data retries, XChannel, MCS, A-MPDU status.
const FIELDS: [(usize, usize); 21] = [
    (8, 8),
    (1, 1),
    (1, 1),
    (2, 4),
    (1, 2),
    (1, 1),
    (1, 1),
    (2, 2),
    (2, 2),
    (2, 2),
    (1, 1),
    (1, 1),
    (1, 1),
    (1, 1),
    (2, 2),
    (2, 2),
    (1, 1),
    (1, 1),
    (4, 8),
    (1, 3),
    (4, 8),
];

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
    /// The frame is one subframe of an A-MPDU (field 20).
    pub ampdu: Option<AmpduStatus>,
}

/// The A-MPDU status field (radiotap field 20): every subframe of one
/// A-MPDU carries the same reference number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AmpduStatus {
    pub reference: u32,
    /// [`ampdu`] flags.
    pub flags: u16,
    /// The delimiter CRC value (meaningful with `ampdu::DELIM_CRC_KNOWN`).
    pub delimiter_crc: u8,
    /// The reserved byte, kept as read.
    pub reserved: u8,
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
        for (bit, &(al, size)) in FIELDS.iter().enumerate() {
            if present & (1 << bit) == 0 {
                continue;
            }
            at = align(at, al);
            need(at, size)?;
            match 1u32 << bit {
                BIT_FLAGS => r.flags = Some(b[at]),
                BIT_RATE => r.rate_500kbps = Some(b[at]),
                BIT_CHANNEL => r.channel = Some((le16(b, at), le16(b, at + 2))),
                BIT_SIGNAL => r.antenna_signal_dbm = Some(b[at] as i8),
                BIT_AMPDU => {
                    r.ampdu = Some(AmpduStatus {
                        reference: le32(b, at),
                        flags: le16(b, at + 4),
                        delimiter_crc: b[at + 6],
                        reserved: b[at + 7],
                    })
                }
                _ => {}
            }
            at += size;
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
        if self.ampdu.is_some() {
            at = align(at, 4) + 8;
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
            at += 1;
        }
        if let Some(a) = self.ampdu {
            present |= BIT_AMPDU;
            at = align(at, 4);
            put_le32(b, at, a.reference);
            put_le16(b, at + 4, a.flags);
            b[at + 6] = a.delimiter_crc;
            b[at + 7] = a.reserved;
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
            ampdu: None,
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

    #[test]
    fn ampdu_status_is_aligned_and_found_past_other_fields() {
        let a = AmpduStatus { reference: 0x0102_0304, flags: ampdu::LAST_KNOWN | ampdu::LAST, ..Default::default() };
        let r = RadiotapRepr {
            flags: Some(flags::FCS_AT_END),
            rate_500kbps: Some(12),
            ampdu: Some(a),
            ..Default::default()
        };
        let b = r.to_bytes(&[]).unwrap();
        // flags@8, rate@9, pad to 12, A-MPDU status@12..20.
        assert_eq!(b, [0, 0, 20, 0, 0x06, 0, 0x10, 0, 0x10, 12, 0, 0, 4, 3, 2, 1, 0x0c, 0, 0, 0]);
        assert_eq!(RadiotapRepr::parse(&RadiotapHeader::new_checked(&b[..]).unwrap()).unwrap(), r);
        // Preceded by an MCS field (bit 19, 3 bytes at 8) and RX flags (bit
        // 14, u16 at 8): RX flags@8..10, MCS@10..13, pad, A-MPDU@16..24.
        let mut h = vec![0u8, 0, 24, 0];
        h.extend_from_slice(&((1u32 << 14) | (1 << 19) | (1 << 20)).to_le_bytes());
        h.extend_from_slice(&[0, 0, 7, 0, 5, 0, 0, 0]);
        h.extend_from_slice(&[9, 0, 0, 0, 0x04, 0, 0, 0]);
        let p = RadiotapRepr::parse(&RadiotapHeader::new_checked(&h[..]).unwrap()).unwrap();
        assert_eq!(p.ampdu, Some(AmpduStatus { reference: 9, flags: ampdu::LAST_KNOWN, ..Default::default() }));
    }
}
