//! The per-packet trace of a run (`wifitcp run --trace DIR`): one CSV row
//! per packet event, which the Python side turns into `packets.parquet`
//! (docs/results.md, "Per-packet trace"):
//!
//! `time_s, node, iface, event, packet, flow, size, reason`
//!
//! - `enqueue` / `dequeue`: a packet enters / leaves an interface's queue
//!   (`wlan`: the queue discipline feeding the MAC; `link-<a>-<b>`: a wired
//!   link's transmit queue, where it is only entered);
//! - `transmit`: a data frame carrying the packet starts on the air (every
//!   attempt, retries included), `size` being the MPDU's bytes;
//! - `receive`: the packet reached `node` from `iface` (before the node
//!   forwards or delivers it);
//! - `drop`: the packet left the network for `reason` (a ledger drop
//!   reason); `flow` and `size` are empty where only the packet id is
//!   known (a MAC discard).
//!
//! `packet` is the ledger id, unique within the run; `flow` the index of
//! the flow in the result's `flows` (empty for a packet of no flow);
//! `size` the IPv4 datagram's bytes unless said otherwise. Rows are in
//! event order. Off by default: the run loop tests one `Option` per hook.
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use wifitcp_core::{DropReason, SimTime};
use wifitcp_wifi::mac::{Frame, FrameKind};
use wifitcp_wifi::medium::FrameTap;
use wifitcp_wire::Packet;

struct Inner {
    out: Option<BufWriter<File>>,
    path: PathBuf,
    names: Vec<String>,
    error: Option<String>,
}

/// The trace of one run, shared by the run loop and the medium's tap.
#[derive(Clone)]
pub struct PacketTrace {
    inner: Arc<Mutex<Inner>>,
}

impl PacketTrace {
    /// Create `dir/packets.csv` (and `dir`), header written.
    pub fn create(dir: &Path, names: Vec<String>) -> Result<PacketTrace, String> {
        let fail = |e: std::io::Error| format!("trace: {}: {e}", dir.display());
        std::fs::create_dir_all(dir).map_err(fail)?;
        let path = dir.join("packets.csv");
        let mut out = BufWriter::new(File::create(&path).map_err(fail)?);
        out.write_all(b"time_s,node,iface,event,packet,flow,size,reason\n").map_err(fail)?;
        Ok(PacketTrace { inner: Arc::new(Mutex::new(Inner { out: Some(out), path, names, error: None })) })
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
        let Inner { out, names, error, path } = &mut *s;
        let Some(w) = out.as_mut() else { return };
        let opt = |x: Option<u32>| x.map_or(String::new(), |v| v.to_string());
        let r = writeln!(
            w,
            "{:.9},{},{},{},{},{},{},{}",
            t.as_secs_f64(),
            names.get(node).map_or("?", |n| n.as_str()),
            iface,
            event,
            id,
            opt(flow),
            opt(size),
            reason.map_or("", |r| r.as_str())
        );
        if let Err(e) = r {
            *error = Some(format!("trace: {}: {e}", path.display()));
            *out = None;
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

    /// Flush; the file written, or the first error of the run.
    pub fn finish(&self) -> Result<PathBuf, String> {
        let mut s = self.inner.lock().expect("not poisoned");
        if let Some(mut w) = s.out.take() {
            if let Err(e) = w.flush() {
                let msg = format!("trace: {}: {e}", s.path.display());
                s.error.get_or_insert(msg);
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
