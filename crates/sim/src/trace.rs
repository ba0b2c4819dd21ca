//! The per-packet trace of a run (`wifitcp run --trace DIR`): one row per
//! packet event in `DIR/packets.parquet` (docs/results.md, "Per-packet
//! trace"), columns
//!
//! `time_s DOUBLE, node VARCHAR, iface VARCHAR, event VARCHAR,
//! packet UBIGINT, flow INTEGER, size INTEGER, reason VARCHAR`
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
//!   attempt, retries included), `size` being the MPDU's bytes;
//! - `receive`: the packet reached `node` from `iface` (before the node
//!   forwards or delivers it);
//! - `drop`: the packet left the network for `reason` (a ledger drop
//!   reason); `flow` and `size` are null where only the packet id is
//!   known (a MAC discard).
//!
//! `packet` is the ledger id, unique within the run; `flow` the index of
//! the flow in the result's `flows` (null for a packet of no flow);
//! `size` the IPv4 datagram's bytes unless said otherwise. Rows are in
//! event order. Off by default: the run loop tests one `Option` per hook.
use crate::parquet::{Kind, ParquetWriter, Values, NULL};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use wifitcp_core::{DropReason, SimTime};
use wifitcp_wifi::mac::{Frame, FrameKind};
use wifitcp_wifi::medium::FrameTap;
use wifitcp_wire::Packet;

/// Rows per Parquet row group (about 10 MB of columns in memory).
const GROUP_ROWS: usize = 1 << 18;

const FIELDS: [(&str, Kind); 8] = [
    ("time_s", Kind::F64),
    ("node", Kind::Str),
    ("iface", Kind::Str),
    ("event", Kind::Str),
    ("packet", Kind::U64),
    ("flow", Kind::I32Opt),
    ("size", Kind::I32Opt),
    ("reason", Kind::StrOpt),
];

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
                ],
            );
            if let Err(e) = r {
                self.fail(e);
            }
        }
        let c = &mut self.cols;
        for v in [&mut c.node, &mut c.iface, &mut c.event, &mut c.reason] {
            v.clear();
        }
        c.time.clear();
        c.packet.clear();
        c.flow.clear();
        c.size.clear();
    }
}

/// The trace of one run, shared by the run loop and the medium's tap.
#[derive(Clone)]
pub struct PacketTrace {
    inner: Arc<Mutex<Inner>>,
}

impl PacketTrace {
    /// Create `dir/packets.parquet` (and `dir`).
    pub fn create(dir: &Path, mut names: Vec<String>) -> Result<PacketTrace, String> {
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
                cols: Columns::default(),
                error: None,
            })),
        })
    }

    /// One row (see the module docs).
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
        if s.out.is_none() {
            return;
        }
        let unknown = s.names.len() - 1;
        let node = node.min(unknown) as u32;
        let iface = intern(&mut s.ifaces, iface);
        let event = intern(&mut s.events, event);
        let reason = match reason {
            Some(r) => {
                let name = r.as_str();
                intern(&mut s.reasons, name)
            }
            None => NULL,
        };
        let c = &mut s.cols;
        // One correctly rounded division: the double nearest to the time in
        // seconds, as a decimal of 9 places would parse.
        c.time.push(t.as_nanos() as f64 / 1e9);
        c.node.push(node);
        c.iface.push(iface);
        c.event.push(event);
        c.packet.push(id);
        c.flow.push(flow.map(|v| v as i32));
        c.size.push(size.map(|v| v as i32));
        c.reason.push(reason);
        if c.time.len() >= GROUP_ROWS {
            s.flush_group();
        }
    }

    /// A packet's row.
    pub fn packet(&self, t: SimTime, node: usize, iface: &str, event: &str, p: &Packet, reason: Option<DropReason>) {
        let flow = (p.flow.0 != u32::MAX).then_some(p.flow.0);
        self.row(t, node, iface, event, p.id.0, flow, Some(p.ip_len()), reason);
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
    fn frame(&mut self, now: SimTime, f: &Frame, msdu: Option<&Packet>) {
        if let (FrameKind::Data | FrameKind::QosData, Some(p)) = (f.kind, msdu) {
            let flow = (p.flow.0 != u32::MAX).then_some(p.flow.0);
            self.0.row(now, f.ta.0 as usize, "wlan", "transmit", p.id.0, flow, Some(f.mpdu_bytes), None);
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
