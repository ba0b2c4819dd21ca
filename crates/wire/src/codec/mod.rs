//! Wire codec: checked views over bytes, and the validated meaning of each
//! header (a `Repr`) with `parse` and `emit`.
//!
//! Two levels, one per header type:
//! - a *view* (`Ipv4Packet<T>`, `TcpSegment<T>`, `MacFrame<T>`, ...) over any
//!   buffer `T: AsRef<[u8]>` reads (and, over `AsMut<[u8]>`, writes) fields in
//!   place. `new_checked` runs the view's `check_len` once; after it every
//!   accessor stays inside the buffer, so no accessor panics;
//! - a *Repr* (`Ipv4Repr`, `TcpRepr`, `MacFrameRepr`, ...) is the compact,
//!   validated meaning: `Repr::parse(&view) -> Result<Repr>` and
//!   `repr.emit(&mut view) -> Result<()>`.
//!
//! Invariants:
//! - malformed bytes give an [`Error`], never a panic (fuzzed, see
//!   docs/validation.md); `emit` refuses a Repr it cannot encode (an
//!   `Error::Invalid`) instead of writing a wrong header;
//! - payload bytes are optional: a Repr carries the payload *length*
//!   (`payload_len`), the view gives the payload bytes when they are there.
//!   To emit, size the buffer with `buffer_len()`, write the payload bytes into
//!   the view's payload (or leave zeros, as the simulator does) and call
//!   `emit`; checksums cover whatever payload the buffer holds;
//! - `parse(emit(x)) == x` for every valid Repr, and `emit(parse(b)) == b`
//!   where the format is canonical (exceptions are written beside each
//!   parser: IPv4/TCP/UDP checksums are recomputed, TCP bytes after an
//!   end-of-option-list are emitted as zeros, radiotap fields other than the
//!   four modelled are dropped).

pub mod ethernet;
pub mod ieee80211;
pub mod ipv4;
pub mod llc;
pub mod radiotap;
#[doc(hidden)]
pub mod selfcheck;
pub mod stack;
pub mod tcp;
pub mod udp;

use std::fmt;

pub use stack::{decode_ethernet, decode_wlan, Decoded, L4Repr};

/// Why bytes could not be parsed, or a Repr could not be emitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The buffer is shorter than the header (or than a length field says).
    Truncated,
    /// A field holds a value the format forbids.
    Malformed(&'static str),
    /// A checksum (IPv4 header, TCP/UDP pseudo-header, 802.11 FCS) is wrong.
    Checksum,
    /// Well-formed, but a variant this codec does not model.
    Unsupported(&'static str),
    /// `emit`: the Repr violates its own invariants (e.g. a length over the
    /// field's range, an optional field that contradicts a flag).
    Invalid(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated => write!(f, "truncated"),
            Error::Malformed(w) => write!(f, "malformed: {w}"),
            Error::Checksum => write!(f, "bad checksum"),
            Error::Unsupported(w) => write!(f, "unsupported: {w}"),
            Error::Invalid(w) => write!(f, "cannot emit: {w}"),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// A 48-bit IEEE 802 MAC address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct MacAddress(pub [u8; 6]);

impl MacAddress {
    pub const BROADCAST: MacAddress = MacAddress([0xff; 6]);

    /// The address the simulator gives the station with dense index `i`: a
    /// locally administered unicast address (IEEE 802-2014 8.4: bit 1 of the
    /// first octet set, bit 0 clear), `02:00` followed by `i` big-endian.
    pub fn from_index(i: u32) -> MacAddress {
        let b = i.to_be_bytes();
        MacAddress([0x02, 0x00, b[0], b[1], b[2], b[3]])
    }
    pub fn is_broadcast(&self) -> bool {
        self.0 == [0xff; 6]
    }
    pub(crate) fn from_slice(b: &[u8]) -> MacAddress {
        let mut a = [0u8; 6];
        a.copy_from_slice(&b[..6]);
        MacAddress(a)
    }
}

impl fmt::Display for MacAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        write!(f, "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", b[0], b[1], b[2], b[3], b[4], b[5])
    }
}

// Big/little-endian field readers over a slice already length-checked by the
// caller's `check_len` (the index is always in range there).
#[inline]
pub(crate) fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}
#[inline]
pub(crate) fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
#[inline]
pub(crate) fn le16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
#[inline]
pub(crate) fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}
#[inline]
pub(crate) fn put_be16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}
#[inline]
pub(crate) fn put_be32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}
#[inline]
pub(crate) fn put_le16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
#[inline]
pub(crate) fn put_le32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Internet checksum over an IPv4 pseudo-header (RFC 9293 3.1, RFC 768) and
/// a transport segment: the value to store, computed with the checksum field
/// as it stands in `segment` (zero it first when filling).
pub(crate) fn pseudo_checksum(src: std::net::Ipv4Addr, dst: std::net::Ipv4Addr, proto: u8, segment: &[u8]) -> u16 {
    pseudo_checksum_zero_padded(src, dst, proto, segment, segment.len())
}

/// The same for a segment of `len` bytes whose first bytes are `head` and
/// the rest zeros (the simulator's payload): zeros add nothing to the
/// one's-complement sum, and `head` has an even length where it is used
/// (TCP and UDP headers), so the sum over `head` is the sum over the
/// segment; only the pseudo-header's length differs.
pub(crate) fn pseudo_checksum_zero_padded(
    src: std::net::Ipv4Addr,
    dst: std::net::Ipv4Addr,
    proto: u8,
    head: &[u8],
    len: usize,
) -> u16 {
    let mut acc = crate::csum_add(0, &src.octets());
    acc = crate::csum_add(acc, &dst.octets());
    acc += proto as u32 + len as u32;
    acc = crate::csum_add(acc, head);
    crate::csum_finish(acc)
}

/// CRC-32 of IEEE 802.3 (polynomial 0x04C11DB7, reflected, initial and final
/// complement), the 802.11 FCS (IEEE 802.11-2020 9.2.4.8). Eight bytes per
/// step with eight tables ("slicing by 8"; table k advances a byte's
/// remainder by k more zero bytes), the same value as one byte at a time
/// (tested), several times faster on a capture's 1,500-byte frames.
pub fn crc32(data: &[u8]) -> u32 {
    const TABLES: [[u32; 256]; 8] = {
        let mut t = [[0u32; 256]; 8];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                k += 1;
            }
            t[0][i] = c;
            i += 1;
        }
        let mut j = 1;
        while j < 8 {
            let mut i = 0;
            while i < 256 {
                let prev = t[j - 1][i];
                t[j][i] = t[0][(prev & 0xff) as usize] ^ (prev >> 8);
                i += 1;
            }
            j += 1;
        }
        t
    };
    let t = &TABLES;
    let mut c = 0xFFFF_FFFFu32;
    let mut chunks = data.chunks_exact(8);
    for ch in &mut chunks {
        let lo = c ^ u32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]);
        let hi = u32::from_le_bytes([ch[4], ch[5], ch[6], ch[7]]);
        c = t[7][(lo & 0xff) as usize]
            ^ t[6][((lo >> 8) & 0xff) as usize]
            ^ t[5][((lo >> 16) & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][(hi & 0xff) as usize]
            ^ t[2][((hi >> 8) & 0xff) as usize]
            ^ t[1][((hi >> 16) & 0xff) as usize]
            ^ t[0][(hi >> 24) as usize];
    }
    for &b in chunks.remainder() {
        c = t[0][((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        // The standard check value of CRC-32/ISO-HDLC over "123456789".
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn crc32_by_eight_equals_bit_by_bit() {
        let bitwise = |d: &[u8]| {
            let mut c = 0xFFFF_FFFFu32;
            for &b in d {
                c ^= b as u32;
                for _ in 0..8 {
                    c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                }
            }
            !c
        };
        let data: Vec<u8> = (0..3000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 100, 1499, 1500, 3000] {
            assert_eq!(crc32(&data[..len]), bitwise(&data[..len]), "length {len}");
        }
    }

    #[test]
    fn mac_from_index_is_local_unicast() {
        let a = MacAddress::from_index(0x0102_0304);
        assert_eq!(a.0, [2, 0, 1, 2, 3, 4]);
        assert_eq!(a.0[0] & 0b11, 0b10);
        assert_eq!(a.to_string(), "02:00:01:02:03:04");
    }
}
