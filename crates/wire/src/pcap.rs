//! Classic libpcap files (the format of libpcap's `pcap-savefile(5)`:
//! a 24-byte global header, then per record a 16-byte header and the bytes),
//! nanosecond-resolution magic 0xa1b23c4d, little-endian.
//!
//! - [`PcapWriter`] writes one file of one link type: LINKTYPE_RAW (101,
//!   one IPv4 datagram per record, [`PcapWriter::write`]),
//!   LINKTYPE_IEEE802_11_RADIOTAP (127) or LINKTYPE_ETHERNET (1)
//!   ([`PcapWriter::write_record`]);
//! - [`PcapTap`] is the per-run tap: one file per interface in a directory,
//!   fed with (time, interface, what was sent), keeping every byte or
//!   headers only ([`Snap`]: a record's captured length below its original
//!   length); see docs/wire.md;
//! - [`read_pcap`] reads such a file back (tests, tools).
//!
//! Nothing here runs unless a tap is created: the simulator's types and hot
//! path do not depend on it.
use crate::codec::radiotap::{RadiotapHeader, RadiotapRepr};
use crate::packet::Packet;
use crate::sim_bytes::{self, ControlFrame, Snap, WlanHop};
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use wifitcp_core::SimTime;

pub const LINKTYPE_ETHERNET: u32 = 1;
pub const LINKTYPE_RAW: u32 = 101;
pub const LINKTYPE_IEEE802_11_RADIOTAP: u32 = 127;
/// Nanosecond-resolution pcap magic.
pub const MAGIC_NS: u32 = 0xa1b2_3c4d;
pub const SNAPLEN: u32 = 65535;

pub struct PcapWriter<W: Write> {
    out: W,
    linktype: u32,
}

impl<W: Write> PcapWriter<W> {
    /// A LINKTYPE_RAW file (IPv4 datagrams).
    pub fn new(out: W) -> io::Result<Self> {
        Self::with_linktype(out, LINKTYPE_RAW)
    }
    /// A file of the given link type.
    pub fn with_linktype(mut out: W, linktype: u32) -> io::Result<Self> {
        out.write_all(&MAGIC_NS.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?; // version 2.4
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?; // thiszone
        out.write_all(&0u32.to_le_bytes())?; // sigfigs
        out.write_all(&SNAPLEN.to_le_bytes())?;
        out.write_all(&linktype.to_le_bytes())?;
        Ok(PcapWriter { out, linktype })
    }
    pub fn linktype(&self) -> u32 {
        self.linktype
    }
    /// Write the datagram of `p` (LINKTYPE_RAW files only).
    pub fn write(&mut self, at: SimTime, p: &Packet) -> io::Result<()> {
        if self.linktype != LINKTYPE_RAW {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "PcapWriter::write needs a LINKTYPE_RAW file"));
        }
        self.write_record(at, &p.to_bytes())
    }
    /// Write one record of this file's link type, stamped `at` (simulated
    /// time since the start of the run, so the capture starts at the epoch).
    pub fn write_record(&mut self, at: SimTime, bytes: &[u8]) -> io::Result<()> {
        self.write_record_of(at, bytes, bytes.len())
    }
    /// Write the first `bytes.len()` bytes of a frame of `orig_len` bytes
    /// (the record's captured length `incl_len` and original length
    /// `orig_len` of pcap-savefile(5); `incl_len < orig_len` is a frame cut
    /// by the snapshot, which readers show as such).
    pub fn write_record_of(&mut self, at: SimTime, bytes: &[u8], orig_len: usize) -> io::Result<()> {
        let ns = at.as_nanos();
        let big = || io::Error::new(io::ErrorKind::InvalidInput, "pcap record over the snapshot length");
        let len = u32::try_from(bytes.len()).ok().filter(|&l| l <= SNAPLEN).ok_or_else(big)?;
        let orig = u32::try_from(orig_len).ok().filter(|&l| l >= len).ok_or_else(big)?;
        let secs = u32::try_from(ns / 1_000_000_000)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "time past the pcap timestamp range"))?;
        let mut head = [0u8; 16];
        head[..4].copy_from_slice(&secs.to_le_bytes());
        head[4..8].copy_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        head[8..12].copy_from_slice(&len.to_le_bytes());
        head[12..].copy_from_slice(&orig.to_le_bytes());
        self.out.write_all(&head)?;
        self.out.write_all(bytes)
    }
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
    pub fn into_inner(self) -> W {
        self.out
    }
}

/// One record read back: (time in ns, bytes).
pub type Record = (u64, Vec<u8>);

/// One record read back with its original length: (time in ns, captured
/// bytes, original length).
pub type RecordOf = (u64, Vec<u8>, u32);

/// Read a pcap file written by [`PcapWriter`] (little-endian, either
/// resolution): its link type and records (the captured bytes; see
/// [`read_pcap_lens`] for the original lengths). Malformed files are an
/// `InvalidData` error.
pub fn read_pcap(bytes: &[u8]) -> io::Result<(u32, Vec<Record>)> {
    let (lt, recs) = read_pcap_lens(bytes)?;
    Ok((lt, recs.into_iter().map(|(t, b, _)| (t, b)).collect()))
}

/// As [`read_pcap`], each record with its original length (`orig_len`).
pub fn read_pcap_lens(bytes: &[u8]) -> io::Result<(u32, Vec<RecordOf>)> {
    let bad = |m: &str| io::Error::new(io::ErrorKind::InvalidData, m.to_string());
    if bytes.len() < 24 {
        return Err(bad("pcap global header cut short"));
    }
    let le = |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let scale = match le(0) {
        MAGIC_NS => 1,
        0xa1b2_c3d4 => 1000,
        _ => return Err(bad("not a little-endian pcap file")),
    };
    let linktype = le(20);
    let mut at = 24;
    let mut recs = Vec::new();
    while at < bytes.len() {
        if at + 16 > bytes.len() {
            return Err(bad("pcap record header cut short"));
        }
        let t = le(at) as u64 * 1_000_000_000 + le(at + 4) as u64 * scale;
        let n = le(at + 8) as usize;
        let orig = le(at + 12);
        if (orig as usize) < n {
            return Err(bad("pcap record longer than its original length"));
        }
        let end = at.checked_add(16 + n).filter(|&e| e <= bytes.len()).ok_or_else(|| bad("pcap record cut short"))?;
        recs.push((t, bytes[at + 16..end].to_vec(), orig));
        at = end;
    }
    Ok((linktype, recs))
}

/// The kind of link an interface is on, which fixes its file's link type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfaceKind {
    /// 802.11 with radiotap (LINKTYPE_IEEE802_11_RADIOTAP).
    Wlan,
    /// Wired point-to-point link, Ethernet II framing (LINKTYPE_ETHERNET).
    Wired,
}

impl IfaceKind {
    pub fn linktype(self) -> u32 {
        match self {
            IfaceKind::Wlan => LINKTYPE_IEEE802_11_RADIOTAP,
            IfaceKind::Wired => LINKTYPE_ETHERNET,
        }
    }
}

/// A pcap tap for one run: one file `DIR/<interface>.pcap` per interface,
/// created on the interface's first record. Every method returns the I/O
/// error (unwritable directory, full disk) for the caller to report; after
/// an error the tap should be dropped.
pub struct PcapTap {
    dir: PathBuf,
    files: BTreeMap<String, (IfaceKind, PcapWriter<BufWriter<File>>)>,
    snap: Snap,
    /// One record's bytes, reused (no allocation per record).
    buf: Vec<u8>,
}

/// The write buffer of each file: large writes, few system calls.
const FILE_BUFFER: usize = 1 << 20;

/// `name` with every character other than ASCII letters, digits, `-`, `_`
/// and `.` replaced by `_` (a file name on every platform).
fn file_stem(name: &str) -> String {
    let s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with('.') {
        format!("_{s}")
    } else {
        s
    }
}

impl PcapTap {
    /// Create `dir` (and parents) and check that a file can be written in
    /// it, so an unwritable directory is reported before the run starts.
    /// Every byte of every frame ([`Snap::Full`]).
    pub fn create(dir: &Path) -> io::Result<PcapTap> {
        Self::create_with(dir, Snap::Full)
    }

    /// As [`PcapTap::create`], keeping of each frame what `snap` says.
    pub fn create_with(dir: &Path, snap: Snap) -> io::Result<PcapTap> {
        std::fs::create_dir_all(dir)?;
        let probe = dir.join(".wifitcp-pcap-probe");
        File::create(&probe)?.write_all(b"")?;
        std::fs::remove_file(&probe)?;
        Ok(PcapTap { dir: dir.to_path_buf(), files: BTreeMap::new(), snap, buf: Vec::with_capacity(2048) })
    }

    fn file(&mut self, iface: &str, kind: IfaceKind) -> io::Result<&mut PcapWriter<BufWriter<File>>> {
        if !self.files.contains_key(iface) {
            let path = self.dir.join(format!("{}.pcap", file_stem(iface)));
            let w =
                PcapWriter::with_linktype(BufWriter::with_capacity(FILE_BUFFER, File::create(path)?), kind.linktype())?;
            self.files.insert(iface.to_string(), (kind, w));
        }
        let (k, w) = self.files.get_mut(iface).expect("inserted above");
        if *k != kind {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("interface {iface} used as {k:?} and {kind:?}"),
            ));
        }
        Ok(w)
    }

    /// Record raw link-layer bytes: for `Wlan` a radiotap header and an
    /// 802.11 frame, for `Wired` an Ethernet II frame.
    pub fn record(&mut self, at: SimTime, iface: &str, kind: IfaceKind, bytes: &[u8]) -> io::Result<()> {
        self.file(iface, kind)?.write_record(at, bytes)
    }

    /// Record the 802.11 data frame carrying `p`, sent as `hop` describes,
    /// with the radiotap header `radio` (see `sim_bytes::radiotap`).
    pub fn wlan_data(
        &mut self,
        at: SimTime,
        iface: &str,
        radio: &RadiotapRepr,
        hop: &WlanHop,
        p: &Packet,
    ) -> io::Result<()> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let rl = radio.header_len();
        buf.resize(rl, 0);
        let snap = self.snap;
        let r = radio
            .emit(&mut RadiotapHeader::new_unchecked(&mut buf[..]))
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))
            .and_then(|_| {
                let whole = rl + sim_bytes::wlan_data_frame_into(p, hop, snap, &mut buf);
                self.file(iface, IfaceKind::Wlan).and_then(|w| w.write_record_of(at, &buf, whole))
            });
        self.buf = buf;
        r
    }

    /// Record a data-type frame without a body (Null, CF-Poll, QoS Null,
    /// ...) sent as `hop` describes.
    pub fn wlan_empty(&mut self, at: SimTime, iface: &str, radio: &RadiotapRepr, hop: &WlanHop) -> io::Result<()> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let rl = radio.header_len();
        buf.resize(rl, 0);
        let r = radio
            .emit(&mut RadiotapHeader::new_unchecked(&mut buf[..]))
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))
            .and_then(|_| {
                sim_bytes::wlan_empty_frame_into(hop, &mut buf);
                self.file(iface, IfaceKind::Wlan)
            })
            .and_then(|w| w.write_record(at, &buf));
        self.buf = buf;
        r
    }

    /// Record a control frame (Ack, RTS, CTS, CF-End, BlockAckReq, BlockAck).
    pub fn wlan_control(&mut self, at: SimTime, iface: &str, radio: &RadiotapRepr, c: &ControlFrame) -> io::Result<()> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let rl = radio.header_len();
        buf.resize(rl, 0);
        let r = radio
            .emit(&mut RadiotapHeader::new_unchecked(&mut buf[..]))
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))
            .and_then(|_| {
                sim_bytes::wlan_control_frame_into(c, &mut buf);
                self.file(iface, IfaceKind::Wlan)
            })
            .and_then(|w| w.write_record(at, &buf));
        self.buf = buf;
        r
    }

    /// Record an 802.11 frame given as bytes (FCS included when `radio`'s
    /// flags say so), e.g. one built with `codec::ieee80211::MacFrameRepr`.
    pub fn wlan_bytes(&mut self, at: SimTime, iface: &str, radio: &RadiotapRepr, frame: &[u8]) -> io::Result<()> {
        let rec = radio.to_bytes(frame).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
        self.record(at, iface, IfaceKind::Wlan, &rec)
    }

    /// Record `p` on a wired interface, framed as Ethernet II from station
    /// index `src` to `dst`.
    pub fn wired(&mut self, at: SimTime, iface: &str, src: u32, dst: u32, p: &Packet) -> io::Result<()> {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        let whole = sim_bytes::ethernet_frame_into(p, src, dst, self.snap, &mut buf);
        let r = self.file(iface, IfaceKind::Wired).and_then(|w| w.write_record_of(at, &buf, whole));
        self.buf = buf;
        r
    }

    /// Flush every file; the paths written, in interface-name order.
    pub fn finish(mut self) -> io::Result<Vec<PathBuf>> {
        let mut out = Vec::new();
        for (name, (_, w)) in self.files.iter_mut() {
            w.flush()?;
            out.push(self.dir.join(format!("{}.pcap", file_stem(name))));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_record_layout() {
        let mut w = PcapWriter::with_linktype(Vec::new(), LINKTYPE_ETHERNET).unwrap();
        w.write_record(SimTime::from_nanos(1_500_000_123), &[1, 2, 3]).unwrap();
        let b = w.into_inner();
        assert_eq!(b.len(), 24 + 16 + 3);
        assert_eq!(&b[..4], &[0x4d, 0x3c, 0xb2, 0xa1]);
        let (lt, recs) = read_pcap(&b).unwrap();
        assert_eq!(lt, 1);
        assert_eq!(recs, vec![(1_500_000_123, vec![1, 2, 3])]);
        assert!(read_pcap(&b[..30]).is_err());
    }

    #[test]
    fn a_cut_record_keeps_its_original_length() {
        let mut w = PcapWriter::with_linktype(Vec::new(), LINKTYPE_ETHERNET).unwrap();
        w.write_record_of(SimTime::from_nanos(7), &[9, 8], 1514).unwrap();
        assert!(w.write_record_of(SimTime::ZERO, &[1, 2, 3], 2).is_err()); // orig < caplen
        let b = w.into_inner();
        assert_eq!(read_pcap_lens(&b).unwrap().1, vec![(7, vec![9, 8], 1514)]);
        let mut bad = b.clone();
        bad[24 + 12..24 + 16].copy_from_slice(&1u32.to_le_bytes());
        assert!(read_pcap(&bad).is_err());
    }

    #[test]
    fn raw_write_refused_on_other_linktypes() {
        use crate::ip::{Ipv4Header, PROTO_UDP};
        use crate::udp::UdpHeader;
        use wifitcp_core::{FlowId, PacketId};
        let ip = Ipv4Header::new(std::net::Ipv4Addr::LOCALHOST, std::net::Ipv4Addr::LOCALHOST, PROTO_UDP);
        let p = Packet::new_udp(PacketId(0), FlowId(0), SimTime::ZERO, ip, UdpHeader { src_port: 1, dst_port: 2 }, 0);
        let mut w = PcapWriter::with_linktype(Vec::new(), LINKTYPE_IEEE802_11_RADIOTAP).unwrap();
        assert!(w.write(SimTime::ZERO, &p).is_err());
        assert!(PcapWriter::new(Vec::new()).unwrap().write(SimTime::ZERO, &p).is_ok());
    }

    #[test]
    fn file_stems_are_safe() {
        assert_eq!(file_stem("wlan0"), "wlan0");
        assert_eq!(file_stem("ap/wired 1"), "ap_wired_1");
        assert_eq!(file_stem("../x"), "_.._x");
        assert_eq!(file_stem(""), "_");
    }

    #[test]
    fn unwritable_dir_is_an_error() {
        // A path under a regular file cannot be created.
        let f = std::env::temp_dir().join(format!("wifitcp-pcap-notadir-{}", std::process::id()));
        std::fs::write(&f, b"x").unwrap();
        assert!(PcapTap::create(&f.join("sub")).is_err());
        std::fs::remove_file(&f).unwrap();
    }
}
