//! The per-packet trace of a run (`wifitcp run --trace DIR`): one row per
//! packet event in `DIR/packets.parquet` (docs/results.md, "Per-packet
//! trace"), columns
//!
//! `time_s DOUBLE, node VARCHAR, iface VARCHAR, event VARCHAR,
//! packet UBIGINT, flow INTEGER, size INTEGER, reason VARCHAR,
//! flow_name VARCHAR, tcp_seq BIGINT, tcp_ack BIGINT, tcp_flags INTEGER`
//!
//! Rows are kept in columns (numbers as numbers, strings as indices into
//! per-column dictionaries) and written as a Parquet row group every
//! `GROUP_ROWS` rows (`crate::parquet`), so memory stays bounded and no
//! text is formatted or parsed.
//!
//! - `enqueue` / `dequeue`: a packet enters / leaves an interface's queue
//!   (`wlan`: the queue discipline feeding the MAC; `link-<a>-<b>`: a wired
//!   link's transmit queue, where it is only entered);
//! - `transmit`: a data frame carrying the packet starts on the air (every
//!   attempt, retries included; one row per MPDU of an A-MPDU or block),
//!   `size` being the MPDU's bytes;
//! - `receive`: the packet reached `node` from `iface` (before the node
//!   forwards or delivers it);
//! - `drop`: the packet left the network for `reason` (a ledger drop
//!   reason). A MAC discard (retry limit, ...) reports only the packet id:
//!   its row takes the packet's columns from the packet's hand-over to the
//!   MAC (its `wlan` `dequeue`), which the trace keeps until the packet is
//!   received over the WLAN or dropped (so as many packets as the MACs
//!   hold); only a discard of a packet the trace no longer holds (a
//!   duplicate at a receiver) has null columns.
//!
//! `packet` is the ledger id, unique within the run; `flow` the index of
//! the flow in the result's `flows` (null for a packet of no flow) and
//! `flow_name` its name; `size` the IPv4 datagram's bytes unless said
//! otherwise; `tcp_seq`, `tcp_ack` and `tcp_flags` (the header's flags
//! octet: FIN 1, SYN 2, RST 4, PSH 8, ACK 16) the TCP header's, null for
//! other packets. Rows are in event order. Off by default: the run loop
//! tests one `Option` per hook.
use crate::parquet::{Kind, ParquetWriter, Values, NULL};
use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use wifitcp_core::{DropReason, SimTime};
use wifitcp_wifi::mac::Frame;
use wifitcp_wifi::medium::FrameTap;
use wifitcp_wire::Packet;

/// Rows per Parquet row group (about 10 MB of columns in memory).
const GROUP_ROWS: usize = 1 << 18;

const FIELDS: [(&str, Kind); 12] = [
    ("time_s", Kind::F64),
    ("node", Kind::Str),
    ("iface", Kind::Str),
    ("event", Kind::Str),
    ("packet", Kind::U64),
    ("flow", Kind::I32Opt),
    ("size", Kind::I32Opt),
    ("reason", Kind::StrOpt),
    ("flow_name", Kind::StrOpt),
    ("tcp_seq", Kind::I64Opt),
    ("tcp_ack", Kind::I64Opt),
    ("tcp_flags", Kind::I32Opt),
];

/// What a row says about its packet (beside time, node, interface, event
/// and reason).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketInfo {
    pub flow: Option<u32>,
    pub size: Option<u32>,
    /// (sequence number, acknowledgement number, flags) of a TCP segment.
    pub tcp: Option<(u32, u32, u8)>,
}

impl PacketInfo {
    /// The columns of `p`, its size being `size`.
    pub fn of(p: &Packet, size: u32) -> PacketInfo {
        PacketInfo {
            flow: (p.flow.0 != u32::MAX).then_some(p.flow.0),
            size: Some(size),
            tcp: p.tcp().map(|h| (h.seq, h.ack, h.flags.0)),
        }
    }
}

/// The rows of the row group being filled.
#[derive(Default)]
struct Columns {
    time: Vec<f64>,
    node: Vec<u32>,
    iface: Vec<u32>,
    event: Vec<u32>,
    packet: Vec<u64>,
    flow: Vec<Option<i32>>,
    size: Vec<Option<i32>>,
    reason: Vec<u32>,
    flow_name: Vec<u32>,
    tcp_seq: Vec<Option<i64>>,
    tcp_ack: Vec<Option<i64>>,
    tcp_flags: Vec<Option<i32>>,
}

struct Inner {
    out: Option<ParquetWriter<BufWriter<File>>>,
    path: PathBuf,
    /// Dictionaries: node names (index = node id, then "?"), interfaces
    /// and events as first seen, drop reasons (`DropReason::ALL` order).
    names: Vec<String>,
    ifaces: Vec<String>,
    events: Vec<String>,
    reasons: Vec<String>,
    /// Flow names, by flow index.
    flow_names: Vec<String>,
    /// The packets handed to a MAC and not yet received over the WLAN or
    /// dropped, by id: what a MAC discard's row says about its packet.
    at_mac: HashMap<u64, PacketInfo>,
    cols: Columns,
    error: Option<String>,
}

fn intern(dict: &mut Vec<String>, s: &str) -> u32 {
    match dict.iter().position(|d| d == s) {
        Some(i) => i as u32,
        None => {
            dict.push(s.to_string());
            (dict.len() - 1) as u32
        }
    }
}

impl Inner {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        t: SimTime,
        node: usize,
        iface: &str,
        event: &str,
        id: u64,
        info: PacketInfo,
        reason: Option<DropReason>,
    ) {
        if self.out.is_none() {
            return;
        }
        // The packets a MAC holds: from the hand-over to the MAC to the
        // receipt over the WLAN or a drop.
        match (iface, event) {
            ("wlan", "dequeue") => {
                self.at_mac.insert(id, info);
            }
            ("wlan", "receive") | (_, "drop") => {
                self.at_mac.remove(&id);
            }
            _ => {}
        }
        let unknown = self.names.len() - 1;
        let node = node.min(unknown) as u32;
        let iface = intern(&mut self.ifaces, iface);
        let event = intern(&mut self.events, event);
        let reason = match reason {
            Some(r) => intern(&mut self.reasons, r.as_str()),
            None => NULL,
        };
        let flow_name = match info.flow {
            Some(f) if (f as usize) < self.flow_names.len() => f,
            _ => NULL,
        };
        let c = &mut self.cols;
        // One correctly rounded division: the double nearest to the time in
        // seconds, as a decimal of 9 places would parse.
        c.time.push(t.as_nanos() as f64 / 1e9);
        c.node.push(node);
        c.iface.push(iface);
        c.event.push(event);
        c.packet.push(id);
        c.flow.push(info.flow.map(|v| v as i32));
        c.size.push(info.size.map(|v| v as i32));
        c.reason.push(reason);
        c.flow_name.push(flow_name);
        c.tcp_seq.push(info.tcp.map(|x| x.0 as i64));
        c.tcp_ack.push(info.tcp.map(|x| x.1 as i64));
        c.tcp_flags.push(info.tcp.map(|x| x.2 as i32));
        if c.time.len() >= GROUP_ROWS {
            self.flush_group();
        }
    }

    fn fail(&mut self, e: std::io::Error) {
        self.error.get_or_insert(format!("trace: {}: {e}", self.path.display()));
        self.out = None;
    }

    /// Write the rows gathered as one row group.
    fn flush_group(&mut self) {
        let n = self.cols.time.len();
        if n == 0 {
            return;
        }
        if let Some(w) = self.out.as_mut() {
            let c = &self.cols;
            let r = w.write_group(
                n,
                &[
                    Values::F64(&c.time),
                    Values::Dict { idx: &c.node, dict: &self.names },
                    Values::Dict { idx: &c.iface, dict: &self.ifaces },
                    Values::Dict { idx: &c.event, dict: &self.events },
                    Values::U64(&c.packet),
                    Values::I32(&c.flow),
                    Values::I32(&c.size),
                    Values::Dict { idx: &c.reason, dict: &self.reasons },
                    Values::Dict { idx: &c.flow_name, dict: &self.flow_names },
                    Values::I64(&c.tcp_seq),
                    Values::I64(&c.tcp_ack),
                    Values::I32(&c.tcp_flags),
                ],
            );
            if let Err(e) = r {
                self.fail(e);
            }
        }
        let c = &mut self.cols;
        for v in [&mut c.node, &mut c.iface, &mut c.event, &mut c.reason, &mut c.flow_name] {
            v.clear();
        }
        c.time.clear();
        c.packet.clear();
        c.flow.clear();
        c.size.clear();
        c.tcp_seq.clear();
        c.tcp_ack.clear();
        c.tcp_flags.clear();
    }
}

/// The trace of one run, shared by the run loop and the medium's tap.
#[derive(Clone)]
pub struct PacketTrace {
    inner: Arc<Mutex<Inner>>,
}

impl PacketTrace {
    /// Create `dir/packets.parquet` (and `dir`); `names` are the node
    /// names, `flow_names` the flows' (by index).
    pub fn create(dir: &Path, mut names: Vec<String>, flow_names: Vec<String>) -> Result<PacketTrace, String> {
        let fail = |e: std::io::Error| format!("trace: {}: {e}", dir.display());
        std::fs::create_dir_all(dir).map_err(fail)?;
        let path = dir.join("packets.parquet");
        let file = BufWriter::with_capacity(1 << 20, File::create(&path).map_err(fail)?);
        let out = ParquetWriter::new(file, &FIELDS).map_err(fail)?;
        names.push("?".into());
        let reasons = DropReason::ALL.iter().map(|r| r.as_str().to_string()).collect();
        Ok(PacketTrace {
            inner: Arc::new(Mutex::new(Inner {
                out: Some(out),
                path,
                names,
                ifaces: Vec::new(),
                events: Vec::new(),
                reasons,
                flow_names,
                at_mac: HashMap::new(),
                cols: Columns::default(),
                error: None,
            })),
        })
    }

    /// One row (see the module docs) of packet `id`, of which only the
    /// flow and size may be known (a MAC discard: both `None`, and the
    /// packet's hand-over to the MAC fills them in).
    #[allow(clippy::too_many_arguments)]
    pub fn row(
        &self,
        t: SimTime,
        node: usize,
        iface: &str,
        event: &str,
        id: u64,
        flow: Option<u32>,
        size: Option<u32>,
        reason: Option<DropReason>,
    ) {
        let mut s = self.inner.lock().expect("not poisoned");
        let known = s.at_mac.get(&id).copied();
        let info = match (flow, size, known) {
            (None, None, Some(k)) if event == "drop" => k,
            _ => PacketInfo { flow, size, tcp: None },
        };
        s.push(t, node, iface, event, id, info, reason);
    }

    /// A packet's row.
    pub fn packet(&self, t: SimTime, node: usize, iface: &str, event: &str, p: &Packet, reason: Option<DropReason>) {
        let info = PacketInfo::of(p, p.ip_len());
        let mut s = self.inner.lock().expect("not poisoned");
        s.push(t, node, iface, event, p.id.0, info, reason);
    }

    /// The medium's tap: a `transmit` row per data frame.
    pub fn wlan_tap(&self) -> Box<dyn FrameTap> {
        Box::new(TraceTap(self.clone()))
    }

    /// Write the last row group and the footer; the file written, or the
    /// first error of the run.
    pub fn finish(&self) -> Result<PathBuf, String> {
        let mut s = self.inner.lock().expect("not poisoned");
        s.flush_group();
        if let Some(w) = s.out.take() {
            let by = concat!("wifitcp ", env!("CARGO_PKG_VERSION"));
            if let Err(e) = w.finish(by) {
                s.fail(e);
            }
        }
        match s.error.take() {
            Some(e) => Err(e),
            None => Ok(s.path.clone()),
        }
    }
}

struct TraceTap(PacketTrace);

impl FrameTap for TraceTap {
    fn frame(&mut self, now: SimTime, f: &Frame, _msdu: Option<&Packet>) {
        if !f.kind.carries_msdus() {
            return;
        }
        let mut s = self.0.inner.lock().expect("not poisoned");
        for m in f.mpdus.iter() {
            if let Some(p) = m.msdu() {
                let info = PacketInfo::of(p, m.bytes);
                s.push(now, f.ta.0 as usize, "wlan", "transmit", p.id.0, info, None);
            }
        }
    }
}

/// Several frame taps as one (a capture and a trace together).
pub struct Taps(pub Vec<Box<dyn FrameTap>>);

impl FrameTap for Taps {
    fn frame(&mut self, now: SimTime, f: &Frame, msdu: Option<&Packet>) {
        for t in self.0.iter_mut() {
            t.frame(now, f, msdu);
        }
    }
}
