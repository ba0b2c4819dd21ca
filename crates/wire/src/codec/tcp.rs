//! TCP header (RFC 9293 3.1) and options: end of option list and no-operation
//! (RFC 9293 3.1), MSS (RFC 9293 3.7.1), window scale and timestamps
//! (RFC 7323 2.2, 3.2), SACK-permitted and SACK (RFC 2018 2, 3). Options of
//! any other kind are kept as `Unknown { kind, data }`; the checksum covers
//! the IPv4 pseudo-header (RFC 9293 3.1).
//!
//! Option list semantics: the list holds every option before the first
//! end-of-option-list (EOL, kind 0); the EOL and whatever follows it are
//! padding. `emit` writes the options in order and zero-fills (EOL) up to the
//! next multiple of 4. So `emit(parse(b)) == b` when the bytes after an EOL
//! are zero and the EOL falls in the last 4-byte word (RFC 9293 asks for
//! zero padding); otherwise the header is emitted shorter or with zeros.
use super::{be16, be32, put_be16, put_be32, Error, Result};
use crate::tcp::{SackBlock, TcpFlags};
use std::net::Ipv4Addr;

pub const HEADER_LEN: usize = 20;
pub const MAX_OPTIONS_LEN: usize = 40;

mod field {
    pub const SRC_PORT: usize = 0;
    pub const DST_PORT: usize = 2;
    pub const SEQ: usize = 4;
    pub const ACK: usize = 8;
    pub const OFF_RSV: usize = 12;
    pub const FLAGS: usize = 13;
    pub const WINDOW: usize = 14;
    pub const CHECKSUM: usize = 16;
    pub const URGENT: usize = 18;
}

mod kind {
    pub const EOL: u8 = 0;
    pub const NOP: u8 = 1;
    pub const MSS: u8 = 2;
    pub const WS: u8 = 3;
    pub const SACK_PERM: u8 = 4;
    pub const SACK: u8 = 5;
    pub const TS: u8 = 8;
}

/// A view of a TCP segment (header and payload) over a buffer.
#[derive(Debug, Clone)]
pub struct TcpSegment<T: AsRef<[u8]>> {
    buffer: T,
}

impl<T: AsRef<[u8]>> TcpSegment<T> {
    pub fn new_unchecked(buffer: T) -> Self {
        TcpSegment { buffer }
    }
    pub fn new_checked(buffer: T) -> Result<Self> {
        let s = TcpSegment { buffer };
        s.check_len()?;
        Ok(s)
    }
    /// The fixed header and the data offset's header inside the buffer, and
    /// a data offset of at least 5 words.
    pub fn check_len(&self) -> Result<()> {
        let b = self.buffer.as_ref();
        if b.len() < HEADER_LEN {
            return Err(Error::Truncated);
        }
        let hl = self.header_len();
        if hl < HEADER_LEN {
            return Err(Error::Malformed("TCP data offset below 5"));
        }
        if b.len() < hl {
            return Err(Error::Truncated);
        }
        Ok(())
    }
    pub fn into_inner(self) -> T {
        self.buffer
    }
    pub fn src_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::SRC_PORT)
    }
    pub fn dst_port(&self) -> u16 {
        be16(self.buffer.as_ref(), field::DST_PORT)
    }
    pub fn seq_number(&self) -> u32 {
        be32(self.buffer.as_ref(), field::SEQ)
    }
    pub fn ack_number(&self) -> u32 {
        be32(self.buffer.as_ref(), field::ACK)
    }
    pub fn header_len(&self) -> usize {
        (self.buffer.as_ref()[field::OFF_RSV] >> 4) as usize * 4
    }
    /// The 4 bits between the data offset and the flags (reserved in
    /// RFC 9293 3.1; the lowest was the ECN-nonce bit of the historic
    /// RFC 3540). Kept as sent.
    pub fn reserved(&self) -> u8 {
        self.buffer.as_ref()[field::OFF_RSV] & 0x0f
    }
    pub fn flags(&self) -> TcpFlags {
        TcpFlags(self.buffer.as_ref()[field::FLAGS])
    }
    pub fn window(&self) -> u16 {
        be16(self.buffer.as_ref(), field::WINDOW)
    }
    pub fn checksum(&self) -> u16 {
        be16(self.buffer.as_ref(), field::CHECKSUM)
    }
    pub fn urgent(&self) -> u16 {
        be16(self.buffer.as_ref(), field::URGENT)
    }
    pub fn options(&self) -> &[u8] {
        &self.buffer.as_ref()[HEADER_LEN..self.header_len()]
    }
    pub fn payload(&self) -> &[u8] {
        &self.buffer.as_ref()[self.header_len()..]
    }
    /// The checksum over pseudo-header, header and payload verifies.
    pub fn verify_checksum(&self, src: Ipv4Addr, dst: Ipv4Addr) -> bool {
        super::pseudo_checksum(src, dst, crate::ip::PROTO_TCP, self.buffer.as_ref()) == 0
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> TcpSegment<T> {
    pub fn payload_mut(&mut self) -> &mut [u8] {
        let h = self.header_len();
        &mut self.buffer.as_mut()[h..]
    }
    pub fn fill_checksum(&mut self, src: Ipv4Addr, dst: Ipv4Addr) {
        let b = self.buffer.as_mut();
        put_be16(b, field::CHECKSUM, 0);
        let c = super::pseudo_checksum(src, dst, crate::ip::PROTO_TCP, b);
        put_be16(b, field::CHECKSUM, c);
    }
}

/// One TCP option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TcpOption {
    /// No-operation (kind 1), used for alignment.
    Nop,
    /// Maximum segment size (kind 2, length 4).
    Mss(u16),
    /// Window scale shift count (kind 3, length 3). Values over 14 are kept
    /// as sent (RFC 7323 2.3 says a receiver uses 14 instead).
    WindowScale(u8),
    /// SACK-permitted (kind 4, length 2).
    SackPermitted,
    /// SACK blocks (kind 5, length 2 + 8n, n in 1..=4).
    Sack(Vec<SackBlock>),
    /// Timestamps (kind 8, length 10).
    Timestamps { tsval: u32, tsecr: u32 },
    /// Any other kind, with its data (the bytes after kind and length).
    Unknown { kind: u8, data: Vec<u8> },
}

impl TcpOption {
    /// Encoded length in bytes.
    pub fn len(&self) -> usize {
        match self {
            TcpOption::Nop => 1,
            TcpOption::Mss(_) => 4,
            TcpOption::WindowScale(_) => 3,
            TcpOption::SackPermitted => 2,
            TcpOption::Sack(b) => 2 + 8 * b.len(),
            TcpOption::Timestamps { .. } => 10,
            TcpOption::Unknown { data, .. } => 2 + data.len(),
        }
    }
    /// Never empty: every option has at least its kind byte.
    pub fn is_empty(&self) -> bool {
        false
    }
    fn check(&self) -> Result<()> {
        match self {
            TcpOption::Sack(b) if b.is_empty() || b.len() > 4 => {
                Err(Error::Invalid("SACK option with 0 or over 4 blocks"))
            }
            TcpOption::Unknown { kind, data } => {
                if matches!(
                    *kind,
                    kind::EOL | kind::NOP | kind::MSS | kind::WS | kind::SACK_PERM | kind::SACK | kind::TS
                ) {
                    Err(Error::Invalid("Unknown option with a known kind"))
                } else if data.len() > 38 {
                    Err(Error::Invalid("option over 40 bytes"))
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }
    fn write(&self, out: &mut [u8]) {
        match self {
            TcpOption::Nop => out[0] = kind::NOP,
            TcpOption::Mss(m) => {
                out[..2].copy_from_slice(&[kind::MSS, 4]);
                put_be16(out, 2, *m);
            }
            TcpOption::WindowScale(s) => out[..3].copy_from_slice(&[kind::WS, 3, *s]),
            TcpOption::SackPermitted => out[..2].copy_from_slice(&[kind::SACK_PERM, 2]),
            TcpOption::Sack(blocks) => {
                out[..2].copy_from_slice(&[kind::SACK, (2 + 8 * blocks.len()) as u8]);
                for (i, b) in blocks.iter().enumerate() {
                    put_be32(out, 2 + 8 * i, b.left);
                    put_be32(out, 6 + 8 * i, b.right);
                }
            }
            TcpOption::Timestamps { tsval, tsecr } => {
                out[..2].copy_from_slice(&[kind::TS, 10]);
                put_be32(out, 2, *tsval);
                put_be32(out, 6, *tsecr);
            }
            TcpOption::Unknown { kind, data } => {
                out[0] = *kind;
                out[1] = (2 + data.len()) as u8;
                out[2..2 + data.len()].copy_from_slice(data);
            }
        }
    }
}

/// Parse an option area (RFC 9293 3.1): options up to the first EOL or the
/// end. A known kind with a wrong length, a length below 2 or one running
/// past the area is an error.
pub fn parse_options(mut b: &[u8]) -> Result<Vec<TcpOption>> {
    let mut out = Vec::new();
    while let Some(&k) = b.first() {
        match k {
            kind::EOL => break,
            kind::NOP => {
                out.push(TcpOption::Nop);
                b = &b[1..];
                continue;
            }
            _ => {}
        }
        let len = *b.get(1).ok_or(Error::Malformed("TCP option without length"))? as usize;
        if len < 2 {
            return Err(Error::Malformed("TCP option length below 2"));
        }
        if len > b.len() {
            return Err(Error::Malformed("TCP option runs past the header"));
        }
        let d = &b[2..len];
        let opt = match (k, len) {
            (kind::MSS, 4) => TcpOption::Mss(be16(d, 0)),
            (kind::WS, 3) => TcpOption::WindowScale(d[0]),
            (kind::SACK_PERM, 2) => TcpOption::SackPermitted,
            (kind::SACK, _) if len >= 10 && (len - 2) & 7 == 0 => {
                TcpOption::Sack(d.chunks_exact(8).map(|c| SackBlock { left: be32(c, 0), right: be32(c, 4) }).collect())
            }
            (kind::TS, 10) => TcpOption::Timestamps { tsval: be32(d, 0), tsecr: be32(d, 4) },
            (kind::MSS | kind::WS | kind::SACK_PERM | kind::SACK | kind::TS, _) => {
                return Err(Error::Malformed("TCP option of a known kind with a wrong length"))
            }
            _ => TcpOption::Unknown { kind: k, data: d.to_vec() },
        };
        out.push(opt);
        b = &b[len..];
    }
    Ok(out)
}

/// Encoded length of an option list, padded to a multiple of 4.
pub fn options_len(opts: &[TcpOption]) -> usize {
    opts.iter().map(TcpOption::len).sum::<usize>().div_ceil(4) * 4
}

/// The meaning of a TCP header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpRepr {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    /// The 4 reserved bits after the data offset (normally 0).
    pub reserved: u8,
    pub flags: TcpFlags,
    pub window: u16,
    pub urgent: u16,
    pub options: Vec<TcpOption>,
    pub payload_len: usize,
}

impl TcpRepr {
    /// Parse a segment; with `addrs = Some((src, dst))` the checksum must
    /// verify against that pseudo-header.
    pub fn parse<T: AsRef<[u8]> + ?Sized>(s: &TcpSegment<&T>, addrs: Option<(Ipv4Addr, Ipv4Addr)>) -> Result<TcpRepr> {
        s.check_len()?;
        if let Some((src, dst)) = addrs {
            if !s.verify_checksum(src, dst) {
                return Err(Error::Checksum);
            }
        }
        Ok(TcpRepr {
            src_port: s.src_port(),
            dst_port: s.dst_port(),
            seq: s.seq_number(),
            ack: s.ack_number(),
            reserved: s.reserved(),
            flags: s.flags(),
            window: s.window(),
            urgent: s.urgent(),
            options: parse_options(s.options())?,
            payload_len: s.payload().len(),
        })
    }
    pub fn header_len(&self) -> usize {
        HEADER_LEN + options_len(&self.options)
    }
    pub fn buffer_len(&self) -> usize {
        self.header_len() + self.payload_len
    }
    /// Write the header into `s` (whose buffer is exactly `buffer_len()`
    /// bytes: the checksum covers the whole buffer) and fill the checksum for
    /// the pseudo-header `src`, `dst`.
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(
        &self,
        s: &mut TcpSegment<T>,
        src: Ipv4Addr,
        dst: Ipv4Addr,
    ) -> Result<()> {
        let b = s.buffer.as_mut();
        if b.len() != self.buffer_len() {
            return Err(if b.len() < self.buffer_len() {
                Error::Truncated
            } else {
                Error::Invalid("buffer longer than segment")
            });
        }
        self.write_header(&mut b[..self.header_len()])?;
        s.fill_checksum(src, dst);
        Ok(())
    }
    /// Write the header alone into `b`, exactly `header_len()` bytes, with
    /// the checksum of the whole segment as if `payload_len` zero bytes
    /// followed (the simulator's payload): a capture that keeps headers only.
    pub fn emit_header(&self, b: &mut [u8], src: Ipv4Addr, dst: Ipv4Addr) -> Result<()> {
        if b.len() != self.header_len() {
            return Err(if b.len() < self.header_len() {
                Error::Truncated
            } else {
                Error::Invalid("buffer longer than header")
            });
        }
        self.write_header(b)?;
        put_be16(b, field::CHECKSUM, 0);
        let c = super::pseudo_checksum_zero_padded(src, dst, crate::ip::PROTO_TCP, b, self.buffer_len());
        put_be16(b, field::CHECKSUM, c);
        Ok(())
    }
    /// The header's fields and options (checksum not filled) into `b`, at
    /// least `header_len()` bytes.
    fn write_header(&self, b: &mut [u8]) -> Result<()> {
        for o in &self.options {
            o.check()?;
        }
        let ol = options_len(&self.options);
        if ol > MAX_OPTIONS_LEN {
            return Err(Error::Invalid("TCP options over 40 bytes"));
        }
        if self.reserved > 0x0f {
            return Err(Error::Invalid("TCP reserved bits over 4 bits"));
        }
        put_be16(b, field::SRC_PORT, self.src_port);
        put_be16(b, field::DST_PORT, self.dst_port);
        put_be32(b, field::SEQ, self.seq);
        put_be32(b, field::ACK, self.ack);
        b[field::OFF_RSV] = (((HEADER_LEN + ol) / 4) as u8) << 4 | self.reserved;
        b[field::FLAGS] = self.flags.0;
        put_be16(b, field::WINDOW, self.window);
        put_be16(b, field::URGENT, self.urgent);
        let area = &mut b[HEADER_LEN..HEADER_LEN + ol];
        area.fill(0);
        let mut at = 0;
        for o in &self.options {
            o.write(&mut area[at..]);
            at += o.len();
        }
        Ok(())
    }
    /// Header, then `payload` or zeros, checksum filled.
    pub fn to_bytes(&self, src: Ipv4Addr, dst: Ipv4Addr, payload: Option<&[u8]>) -> Result<Vec<u8>> {
        let mut v = vec![0u8; self.buffer_len()];
        if let Some(pl) = payload {
            if pl.len() != self.payload_len {
                return Err(Error::Invalid("payload length differs from payload_len"));
            }
            v[self.header_len()..].copy_from_slice(pl);
        }
        self.emit(&mut TcpSegment::new_unchecked(&mut v[..]), src, dst)?;
        Ok(v)
    }
    /// The SACK blocks of the first SACK option, if any.
    pub fn sack_blocks(&self) -> &[SackBlock] {
        self.options
            .iter()
            .find_map(|o| match o {
                TcpOption::Sack(b) => Some(&b[..]),
                _ => None,
            })
            .unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(x: u8) -> Ipv4Addr {
        Ipv4Addr::new(10, 0, 0, x)
    }

    #[test]
    fn linux_syn_options_roundtrip() {
        // A SYN's option area as Linux lays it out: MSS 1460, SACK-permitted,
        // timestamps, NOP, window scale 7 (20 bytes).
        let opts = [2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7];
        let parsed = parse_options(&opts).unwrap();
        assert_eq!(
            parsed,
            vec![
                TcpOption::Mss(1460),
                TcpOption::SackPermitted,
                TcpOption::Timestamps { tsval: 1, tsecr: 0 },
                TcpOption::Nop,
                TcpOption::WindowScale(7)
            ]
        );
        let r = TcpRepr {
            src_port: 1,
            dst_port: 2,
            seq: 3,
            ack: 0,
            reserved: 0,
            flags: TcpFlags(TcpFlags::SYN),
            window: 64240,
            urgent: 0,
            options: parsed,
            payload_len: 0,
        };
        let b = r.to_bytes(a(1), a(2), None).unwrap();
        assert_eq!(&b[20..], &opts);
        let s = TcpSegment::new_checked(&b[..]).unwrap();
        assert!(s.verify_checksum(a(1), a(2)));
        assert_eq!(TcpRepr::parse(&s, Some((a(1), a(2)))).unwrap(), r);
        assert_eq!(TcpRepr::parse(&s, Some((a(1), a(3)))), Err(Error::Checksum));
    }

    #[test]
    fn malformed_options_are_errors_unknown_kept() {
        assert!(parse_options(&[2, 3, 0]).is_err()); // MSS with length 3
        assert!(parse_options(&[5, 6, 0, 0, 0, 0]).is_err()); // SACK without a full block
        assert!(parse_options(&[30, 1]).is_err()); // length below 2
        assert!(parse_options(&[30, 9, 0]).is_err()); // past the end
        assert!(parse_options(&[30]).is_err()); // no length byte
        assert_eq!(
            parse_options(&[30, 4, 7, 8, 0, 99]).unwrap(),
            vec![TcpOption::Unknown { kind: 30, data: vec![7, 8] }]
        );
    }
}
