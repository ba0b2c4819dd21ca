//! TCP header (RFC 9293) with the options wifitcp models: MSS (RFC 9293),
//! window scale and timestamps (RFC 7323), SACK-permitted and SACK blocks
//! (RFC 2018).
use std::fmt;

pub const TCP_BASE_HEADER_LEN: u32 = 20;
/// RFC 2018: at most 4 SACK blocks fit (3 with timestamps).
pub const MAX_SACK_BLOCKS: usize = 4;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
    pub const URG: u8 = 0x20;
    pub const ECE: u8 = 0x40;
    pub const CWR: u8 = 0x80;
    pub fn has(self, f: u8) -> bool {
        self.0 & f != 0
    }
    pub fn with(self, f: u8) -> Self {
        TcpFlags(self.0 | f)
    }
}

impl fmt::Debug for TcpFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = ["FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR"];
        let set: Vec<&str> = (0..8).filter(|i| self.0 & (1 << i) != 0).map(|i| names[i]).collect();
        write!(f, "[{}]", set.join("|"))
    }
}

/// A SACK block: bytes `[left, right)` received (RFC 2018 section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SackBlock {
    pub left: u32,
    pub right: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TcpOptions {
    pub mss: Option<u16>,
    pub window_scale: Option<u8>,
    pub sack_permitted: bool,
    /// (TSval, TSecr)
    pub timestamps: Option<(u32, u32)>,
    pub sack: SackBlocks,
}

/// A segment's SACK blocks (RFC 2018 section 3), at most
/// [`MAX_SACK_BLOCKS`] (all that 40 bytes of options hold), out of line
/// behind one thin pointer: most segments carry none, and every packet is
/// as large as its largest transport header (8 bytes where a `Vec` is 24:
/// a packet is 88 bytes instead of 104, part of a campus's memory per
/// station). Reads as a slice; built from a `Vec` or an iterator of blocks.
#[derive(Clone, Debug, PartialEq, Eq, Default, Hash)]
pub struct SackBlocks(Option<Box<SackList>>);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct SackList {
    len: u8,
    blocks: [SackBlock; MAX_SACK_BLOCKS],
}

impl std::ops::Deref for SackBlocks {
    type Target = [SackBlock];
    #[inline]
    fn deref(&self) -> &[SackBlock] {
        match &self.0 {
            Some(l) => &l.blocks[..l.len as usize],
            None => &[],
        }
    }
}

impl From<Vec<SackBlock>> for SackBlocks {
    fn from(v: Vec<SackBlock>) -> SackBlocks {
        v.into_iter().collect()
    }
}

impl FromIterator<SackBlock> for SackBlocks {
    /// The first [`MAX_SACK_BLOCKS`] blocks: all that 40 bytes of options
    /// hold (a parsed option list or a longer `Vec` gives no more).
    fn from_iter<I: IntoIterator<Item = SackBlock>>(it: I) -> SackBlocks {
        let mut l = SackList { len: 0, blocks: [SackBlock { left: 0, right: 0 }; MAX_SACK_BLOCKS] };
        for b in it.into_iter().take(MAX_SACK_BLOCKS) {
            l.blocks[l.len as usize] = b;
            l.len += 1;
        }
        SackBlocks((l.len > 0).then(|| Box::new(l)))
    }
}

impl<'a> IntoIterator for &'a SackBlocks {
    type Item = &'a SackBlock;
    type IntoIter = std::slice::Iter<'a, SackBlock>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl TcpOptions {
    /// Encoded length in bytes. Options are laid out as Linux does, each
    /// aligned to 4 bytes with leading NOPs: MSS 4, SACK-permitted and
    /// timestamps together 12 (either alone: 4 and 12), NOP + window scale
    /// 4, NOP NOP + SACK 4 + 8 per block.
    pub fn encoded_len(&self) -> u32 {
        let mut n = 0u32;
        if self.mss.is_some() {
            n += 4;
        }
        n += match (self.sack_permitted, self.timestamps.is_some()) {
            (true, true) | (false, true) => 12,
            (true, false) => 4,
            (false, false) => 0,
        };
        if self.window_scale.is_some() {
            n += 4;
        }
        if !self.sack.is_empty() {
            n += 4 + 8 * self.sack.len() as u32;
        }
        n
    }
    pub fn is_empty(&self) -> bool {
        self.encoded_len() == 0
    }
    pub fn write(&self, out: &mut Vec<u8>) {
        let start = out.len();
        if let Some(m) = self.mss {
            out.extend_from_slice(&[2, 4]);
            out.extend_from_slice(&m.to_be_bytes());
        }
        match (self.sack_permitted, self.timestamps) {
            (sp, Some((v, e))) => {
                out.extend_from_slice(if sp { &[4, 2] } else { &[1, 1] });
                out.extend_from_slice(&[8, 10]);
                out.extend_from_slice(&v.to_be_bytes());
                out.extend_from_slice(&e.to_be_bytes());
            }
            (true, None) => out.extend_from_slice(&[1, 1, 4, 2]),
            (false, None) => {}
        }
        if let Some(s) = self.window_scale {
            out.extend_from_slice(&[1, 3, 3, s]);
        }
        if !self.sack.is_empty() {
            out.extend_from_slice(&[1, 1, 5, 2 + 8 * self.sack.len() as u8]);
            for b in &self.sack {
                out.extend_from_slice(&b.left.to_be_bytes());
                out.extend_from_slice(&b.right.to_be_bytes());
            }
        }
        debug_assert_eq!((out.len() - start) as u32, self.encoded_len());
        assert!(out.len() - start <= 40, "TCP options exceed 40 bytes");
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpHeader {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: TcpFlags,
    /// Raw 16-bit window field (scaled by the peer's window-scale shift).
    pub window: u16,
    pub options: TcpOptions,
}

impl TcpHeader {
    pub fn header_len(&self) -> u32 {
        TCP_BASE_HEADER_LEN + self.options.encoded_len()
    }
}
