//! Per-run metrics and their JSON form (see docs/results.md).
//!
//! Per-flow delay statistics are streaming: a bounded [`sketch::DelaySketch`]
//! and an RFC 3550 [`sketch::Jitter`] estimator take one update per
//! delivered data packet; nothing is kept per packet.
mod effective;
mod obj;
pub mod sampling;
pub mod sketch;
use crate::endpoints::{Endpoint, FlowKind, FlowRt, TcpFlow};
use crate::ledger::Ledger;
use crate::link::LinkDir;
use crate::names::Names;
use crate::topology::Topology;
use obj::Obj;
use sampling::Sampling;
use serde_json::{json, Value};
use std::io::Write;
use wifitcp_core::{DropReason, SimTime};
use wifitcp_wifi::mac::{AnyMac, Mac};
use wifitcp_wifi::medium::Bss;
use wifitcp_wire::wifi_frame::LLC_SNAP_LEN;
use wifitcp_wire::Packet;

/// A flow's statistics. Its kind and its ends' names are not held here:
/// the result renders them from the flow (`FlowKind::name`) and the
/// topology's node names, once per flow, when it is written.
///
/// Field order is layout (`repr(C)`): the counts a source makes per packet
/// first, then what the sampling reads (the delivered bytes and the
/// series), then the delivery side; the name, read once at the end, last
/// (`FlowRt`).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct FlowStats {
    /// Data packets generated (UDP datagrams, TCP data segments incl.
    /// retransmissions).
    pub generated: u64,
    /// Data packets created at or after the warm-up.
    pub window_generated: u64,
    /// UDP: payload bytes delivered since the start.
    pub payload_bytes_total: u64,
    /// Cumulative application bytes at each sampling instant
    /// ([`sampling::Sampling::instants`], computed again when the series
    /// is written; the bytes at the warm-up are the sample of the last
    /// instant at or before it, [`Sampling::base_index`]).
    samples: Vec<u64>,
    /// Data packets that reached the destination after the warm-up.
    pub delivered: u64,
    /// Of those, the ones delivered (counted once per arrival).
    pub window_delivered: u64,
    /// MSDU bytes of delivered data packets after the warm-up.
    pub msdu_bytes: u64,
    /// The sum of the delays counted in `delivered`, in nanoseconds: the
    /// low and high words of a 128-bit sum (a `u128` field would align the
    /// record to 16 bytes and pad it).
    delay_sum_ns: (u64, u64),
    delay_max_ns: u64,
    /// RFC 3550 interarrival jitter over the same packets.
    jitter: sketch::Jitter,
    /// One-way delays of the packets counted in `delivered`.
    delay: sketch::DelaySketch,
    /// A ping flow's round-trip times (`None` for other flows).
    echo: Option<Box<EchoStats>>,
}

/// Round-trip times of a ping flow's echo replies that arrived at or after
/// the warm-up (the same window as `delivered`).
#[derive(Clone, Debug, Default)]
pub struct EchoStats {
    pub replies: u64,
    /// Replies to requests created at or after the warm-up (the numerator
    /// of the round-trip loss ratio, over `window_generated`).
    pub window_replies: u64,
    rtt_sum_ns: u128,
    rtt_max_ns: u64,
    pub rtt: sketch::DelaySketch,
}

impl FlowStats {
    /// This flow's datagrams are echo requests: keep round-trip times.
    pub fn enable_echo(&mut self) {
        self.echo = Some(Box::default());
    }
    /// The echo reply `p` (carrying its request's send time as `created`)
    /// reached the requester at `now`.
    pub fn on_echo_reply(&mut self, p: &Packet, now: SimTime, warmup: SimTime) {
        let Some(e) = self.echo.as_deref_mut() else { return };
        if now < warmup {
            return;
        }
        e.replies += 1;
        if p.created >= warmup {
            e.window_replies += 1;
        }
        let d = now.saturating_since(p.created).as_nanos();
        e.rtt_sum_ns += d as u128;
        e.rtt_max_ns = e.rtt_max_ns.max(d);
        e.rtt.insert(d);
    }
    /// A ping flow's round-trip statistics.
    pub fn echo(&self) -> Option<&EchoStats> {
        self.echo.as_deref()
    }
    /// A data packet (UDP datagram, TCP segment with payload) was created
    /// at `now`; the loss window starts at `warmup`.
    pub fn on_generated(&mut self, now: SimTime, warmup: SimTime) {
        self.generated += 1;
        if now >= warmup {
            self.window_generated += 1;
        }
    }
    /// Take what a flow's source counts (packets generated, a ping's
    /// round trips) from `source`, the record its source's group of a
    /// windowed run kept; the rest of this record is its destination's.
    pub fn take_source_counts(&mut self, source: &mut FlowStats) {
        self.generated = source.generated;
        self.window_generated = source.window_generated;
        self.echo = source.echo.take();
    }
    /// A UDP datagram was delivered (counted in rates if after warm-up).
    pub fn on_delivered(&mut self, p: &Packet, now: SimTime, warmup: SimTime) {
        self.payload_bytes_total += p.payload_len as u64;
        if now >= warmup {
            self.on_data_arrival(p, now, warmup);
        }
    }
    /// The sum of the one-way delays counted in `delivered`, in
    /// nanoseconds.
    pub fn delay_sum(&self) -> u128 {
        (self.delay_sum_ns.1 as u128) << 64 | self.delay_sum_ns.0 as u128
    }
    /// A data packet reached its destination at or after the warm-up
    /// (one-way delay sample).
    pub fn on_data_arrival(&mut self, p: &Packet, now: SimTime, warmup: SimTime) {
        self.delivered += 1;
        if p.created >= warmup {
            self.window_delivered += 1;
        }
        self.msdu_bytes += (LLC_SNAP_LEN + p.ip_len()) as u64;
        let d = now.saturating_since(p.created).as_nanos();
        let (lo, carry) = self.delay_sum_ns.0.overflowing_add(d);
        self.delay_sum_ns = (lo, self.delay_sum_ns.1 + carry as u64);
        self.delay_max_ns = self.delay_max_ns.max(d);
        self.delay.insert(d);
        self.jitter.on_arrival(p.created.as_nanos(), now.as_nanos());
    }
    /// The delay sketch (quantiles, histogram).
    pub fn delay(&self) -> &sketch::DelaySketch {
        &self.delay
    }
    /// `1 - window_delivered / window_generated`; `None` before any packet
    /// of the window.
    pub fn loss_ratio(&self) -> Option<f64> {
        (self.window_generated > 0).then(|| 1.0 - self.window_delivered as f64 / self.window_generated as f64)
    }
    /// Room for `n` samples, so the series is held at its exact size (a
    /// series grown by pushes is up to half spare capacity).
    pub fn reserve_samples(&mut self, n: usize) {
        self.samples.reserve_exact(n);
    }
    /// The delivered bytes `cum` at the next sampling instant.
    pub fn sample(&mut self, cum: u64) {
        self.samples.push(cum);
    }
    /// The delivered bytes at the end, the series' last instant, after
    /// `before` samples at the instants before it (a run ended early, at
    /// an instant already sampled, replaces that sample).
    pub fn sample_end(&mut self, cum: u64, before: usize) {
        self.samples.truncate(before);
        self.sample(cum);
    }
    fn final_bytes(&self) -> u64 {
        self.samples.last().copied().unwrap_or(0)
    }
    /// Application bytes delivered over [warm-up, end] of the run sampled
    /// at `s`'s instants.
    pub fn bytes_after_warmup(&self, s: &Sampling) -> u64 {
        self.final_bytes() - self.samples.get(s.base_index()).copied().unwrap_or(0)
    }
    /// Application goodput over [warm-up, end] (`secs` long) of the run
    /// sampled at `s`'s instants.
    pub fn goodput_mbps(&self, s: &Sampling, secs: f64) -> f64 {
        mbps(self.bytes_after_warmup(s), secs)
    }
    /// [time s, Mbit/s over the bin ending then] per sample after the
    /// first, the samples taken at `instants`.
    fn series<'a>(&'a self, instants: impl Iterator<Item = SimTime> + 'a) -> impl Iterator<Item = (f64, f64)> + 'a {
        let mut at = instants.zip(self.samples.iter().copied());
        let first = at.next();
        at.scan(first, |prev, (t, b)| {
            let (t0, b0) = prev.replace((t, b))?;
            let dt = t.since(t0).as_secs_f64().max(1e-12);
            Some((t.as_secs_f64(), mbps(b - b0, dt)))
        })
    }
}

/// The result of a run. Its largest parts, the per-flow, per-station and
/// per-queue arrays (O(stations) objects each), are rendered as JSON text
/// element by element while the result is collected, so no tree of every
/// station's and flow's objects is ever held (at thousands of stations
/// that tree, not the run, set the process's peak memory); the rest is a
/// `Value` (`head`) holding a placeholder at each rendered key. The text
/// of [`RunResult::to_json_string`] is byte for byte what serialising the
/// whole tree gives (`serde_json` writes an object's keys in sorted order
/// and an array as its elements' texts joined by commas).
///
/// [`write`] writes the same text to a writer as it renders it, without
/// holding the arrays' text (what `run_file` and the API's runs use).
pub struct RunResult {
    head: Value,
    /// (key, JSON text of its array) for the rendered top-level keys.
    rendered: Vec<(&'static str, String)>,
}

impl RunResult {
    /// The placeholder `head` holds at rendered key `key` (a string no
    /// result holds: it starts with NUL).
    fn placeholder(key: &str) -> String {
        format!("\u{0}{key}")
    }

    /// Set a top-level key (the runner's `scenario`, `seed`, `version`).
    pub fn set(&mut self, key: &str, v: Value) {
        self.head[key] = v;
    }

    /// A top-level value that is not a rendered array (`ledger`,
    /// `aggregate_mbps`, ...); `Null` if absent.
    pub fn get(&self, key: &str) -> &Value {
        &self.head[key]
    }

    /// The result as JSON text.
    pub fn to_json_string(&self) -> String {
        let mut out = Vec::with_capacity(self.rendered.iter().map(|(_, t)| t.len()).sum::<usize>() + 4096);
        splice(&self.head, &mut out, |k, out| {
            let (_, text) = self.rendered.iter().find(|(r, _)| *r == k).expect("each placeholder is rendered");
            out.write_all(text.as_bytes())
        })
        .expect("a Vec takes every write");
        String::from_utf8(out).expect("serde_json writes UTF-8")
    }

    /// The whole result as a `Value` (parsed from its text: for tests and
    /// callers that add to it).
    pub fn into_value(self) -> Value {
        serde_json::from_str(&self.to_json_string()).expect("the result is JSON")
    }
}

/// Write `head`'s text to `out` with each rendered key's placeholder
/// replaced by what `array(key, out)` writes. The placeholders appear in
/// `head`'s text in key order, each once.
fn splice<W: std::io::Write + ?Sized>(
    head: &Value,
    out: &mut W,
    mut array: impl FnMut(&'static str, &mut W) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let head = head.to_string();
    let mut rest = head.as_str();
    let mut keys = RENDERED;
    keys.sort();
    for k in keys {
        let mark = serde_json::to_string(&RunResult::placeholder(k)).expect("a string");
        let Some(at) = rest.find(&mark) else { continue };
        out.write_all(&rest.as_bytes()[..at])?;
        array(k, out)?;
        rest = &rest[at + mark.len()..];
    }
    out.write_all(rest.as_bytes())
}

/// The top-level keys whose values are rendered as text, not held in the
/// head.
const RENDERED: [&str; 4] = ["flows", "stations", "queues", "effective"];

/// The buffer an array is rendered into: handed to `out` whenever it holds
/// [`FLUSH_BYTES`] (`None`: kept whole, for [`RunResult`]).
struct Sink<'a> {
    buf: Vec<u8>,
    out: Option<&'a mut dyn Write>,
}

/// Bytes a [`Sink`] gathers before it writes them out.
const FLUSH_BYTES: usize = 1 << 16;

impl Sink<'_> {
    fn flush_if_full(&mut self) -> std::io::Result<()> {
        if let Some(out) = self.out.as_deref_mut() {
            if self.buf.len() >= FLUSH_BYTES {
                out.write_all(&self.buf)?;
                self.buf.clear();
            }
        }
        Ok(())
    }
    /// An array of `n` objects, the `k`th written by `fill(k, obj)` into
    /// one [`Obj`] reused for each, handed out as the buffer fills.
    fn objs(&mut self, n: usize, mut fill: impl FnMut(usize, &mut Obj)) -> std::io::Result<()> {
        let mut obj = Obj::default();
        self.buf.push(b'[');
        for k in 0..n {
            if k > 0 {
                self.buf.push(b',');
            }
            obj.clear();
            fill(k, &mut obj);
            obj.write_to(&mut self.buf);
            self.flush_if_full()?;
        }
        self.buf.push(b']');
        Ok(())
    }
    fn finish(mut self) -> std::io::Result<Vec<u8>> {
        if let Some(out) = self.out.as_deref_mut() {
            out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(self.buf)
    }
}

/// The JSON text of an array of `items`, each built and serialised in turn.
fn render(items: impl Iterator<Item = Value>, mut sink: Sink) -> std::io::Result<Vec<u8>> {
    sink.buf.push(b'[');
    for (k, v) in items.enumerate() {
        if k > 0 {
            sink.buf.push(b',');
        }
        serde_json::to_writer(&mut sink.buf, &v).expect("a Value serialises");
        sink.flush_if_full()?;
    }
    sink.buf.push(b']');
    sink.finish()
}

/// The JSON text of an array of `n` objects, the `k`th written by
/// `fill(k, obj)` into one [`Obj`] reused for each (the per-station and
/// per-flow arrays: no `Value` tree per element).
fn render_objs(n: usize, fill: impl FnMut(usize, &mut Obj), mut sink: Sink) -> std::io::Result<Vec<u8>> {
    sink.objs(n, fill)?;
    sink.finish()
}

fn mbps(bytes: u64, secs: f64) -> f64 {
    bytes as f64 * 8.0 / secs / 1e6
}

/// Jain's fairness index (sum x)^2 / (n sum x^2); 1 for no flows.
pub fn jain(xs: &[f64]) -> f64 {
    let s: f64 = xs.iter().sum();
    let s2: f64 = xs.iter().map(|x| x * x).sum();
    if xs.is_empty() || s2 == 0.0 {
        1.0
    } else {
        s * s / (xs.len() as f64 * s2)
    }
}

/// The run's flows in flow order: one slice, or the partitions' own
/// (a partitioned run, read in place rather than merged into a copy: with
/// thousands of flows the copy set the run's peak memory).
#[derive(Clone)]
pub struct FlowSeq<'a> {
    parts: Vec<&'a [FlowRt]>,
    /// Flow `k` is `parts[at[k].0][at[k].1]` (`None`: `parts[0][k]`).
    at: Option<Vec<(u32, u32)>>,
    /// Every flow's name, by flow index.
    names: &'a Names,
}

impl<'a> FlowSeq<'a> {
    /// The flows of one slice.
    pub fn whole(flows: &'a [FlowRt], names: &'a Names) -> FlowSeq<'a> {
        FlowSeq { parts: vec![flows], at: None, names }
    }

    /// Flows held by parts (each flow once, found by its index in the
    /// run, `FlowRt::index`).
    pub fn parts(parts: Vec<&'a [FlowRt]>, names: &'a Names) -> FlowSeq<'a> {
        let n: usize = parts.iter().map(|p| p.len()).sum();
        let mut at = vec![(u32::MAX, 0); n];
        for (p, flows) in parts.iter().enumerate() {
            for (l, f) in flows.iter().enumerate() {
                at[f.index()] = (p as u32, l as u32);
            }
        }
        debug_assert!(at.iter().all(|a| a.0 != u32::MAX), "every flow in one part");
        FlowSeq { parts, at: Some(at), names }
    }

    pub fn len(&self) -> usize {
        match &self.at {
            None => self.parts[0].len(),
            Some(at) => at.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Flow `k`.
    pub fn get(&self, k: usize) -> &'a FlowRt {
        match &self.at {
            None => &self.parts[0][k],
            Some(at) => &self.parts[at[k].0 as usize][at[k].1 as usize],
        }
    }

    /// Flow `k`'s name.
    pub fn name(&self, k: usize) -> &'a str {
        self.names.get(k)
    }

    /// The flows in flow order.
    pub fn iter(&self) -> impl Iterator<Item = &'a FlowRt> + '_ {
        (0..self.len()).map(|k| self.get(k))
    }
}

pub struct RunView<'a> {
    /// The cells (one per channel); a member's counters are summed over
    /// them (a member acts only in the cell it is in).
    pub cells: &'a [&'a Bss<AnyMac>],
    /// When each cell holds MACs only for its own members: the cell and
    /// the index there of each member's MAC, by node id (`None`: every
    /// cell holds every member at its node id).
    pub at: Option<&'a [(u32, u32)]>,
    /// The hand-offs (`"handoffs"` in the result), only with roaming on.
    pub handoffs: Option<Value>,
    pub topo: &'a Topology,
    pub flows: FlowSeq<'a>,
    pub eps: &'a [Endpoint],
    pub wq: &'a crate::world::queues::Queues,
    /// Agents of each node, with their timer keys.
    pub(crate) agents: &'a crate::world::Agents,
    pub links: &'a [[LinkDir; 2]],
    pub ledger: &'a Ledger,
    /// The run's end, warm-up and sampling interval (the series'
    /// instants).
    pub sampling: Sampling,
    pub events: u64,
    pub wall_s: f64,
}

impl RunView<'_> {
    /// The cell and the index there of member `i`'s MAC when each cell
    /// holds only its own members (`at`).
    fn member_at(&self, i: usize) -> Option<(usize, usize)> {
        self.at.map(|at| (at[i].0 as usize, at[i].1 as usize))
    }
}

/// A sender's ssthresh for the results: `null` while it is unbounded.
///
/// RFC 5681 section 3.1 lets the initial ssthresh be "arbitrarily high"; the
/// sender holds that as `u64::MAX >> 2` (crates/tcp/src/sender.rs), a number
/// that would read as a real threshold of 4.6e18 bytes. Any value at or above
/// it is written as JSON `null` (docs/results.md, "flows").
pub(crate) fn ssthresh_json(ssthresh: u64) -> Value {
    if ssthresh >= u64::MAX >> 2 {
        Value::Null
    } else {
        json!(ssthresh)
    }
}

/// The stored histogram merges 4 sketch buckets into one: 16 per octave
/// (each at most 1/16 of its lower bound wide), enough for a CDF and
/// small beside the series.
const HISTOGRAM_MERGE_BITS: u32 = 2;

fn ms(ns: Option<f64>) -> Option<f64> {
    ns.map(|x| x / 1e6)
}

/// Flow `f`'s object (docs/results.md, "flows") into `j`.
fn flow_json(v: &RunView, k: usize, secs: f64, j: &mut Obj) {
    let f = v.flows.get(k);
    let s = &f.stats;
    let [p50, p90, p99, p999] = s.delay.quantiles([0.5, 0.9, 0.99, 0.999]);
    j.put("name", v.flows.name(k))
        .put("kind", f.kind.name())
        .put("src", &v.topo.name(f.src()))
        .put("dst", &v.topo.name(f.dst()))
        .put("goodput_mbps", &s.goodput_mbps(&v.sampling, secs))
        .put("msdu_mbps", &mbps(s.msdu_bytes, secs))
        .put("packets_generated", &s.generated)
        .put("packets_delivered", &s.delivered)
        .put("bytes_delivered", &s.bytes_after_warmup(&v.sampling))
        .put("mean_delay_ms", &if s.delivered > 0 { s.delay_sum() as f64 / s.delivered as f64 / 1e6 } else { 0.0 })
        .put("max_delay_ms", &(s.delay_max_ns as f64 / 1e6))
        .put("window_generated_packets", &s.window_generated)
        .put("window_delivered_packets", &s.window_delivered)
        .put("loss_ratio", &s.loss_ratio())
        .put("delay_p50_ms", &ms(p50))
        .put("delay_p90_ms", &ms(p90))
        .put("delay_p99_ms", &ms(p99))
        .put("delay_p999_ms", &ms(p999))
        .put("delay_relative_error", &sketch::RELATIVE_ERROR)
        .put("jitter_ms", &(s.jitter.value_ns() / 1e6))
        .put_seq(
            "delay_histogram",
            s.delay.histogram(HISTOGRAM_MERGE_BITS).iter().map(|&(lo, hi, n)| (lo as f64 / 1e6, hi as f64 / 1e6, n)),
        )
        .put_seq("series", s.series(v.sampling.instants()));
    if let Some(e) = s.echo() {
        let [r50, r90, r99, r999] = e.rtt.quantiles([0.5, 0.9, 0.99, 0.999]);
        j.put(
            "ping",
            &json!({
                "transport": "udp-echo",
                "replies": e.replies,
                "window_replies": e.window_replies,
                "rtt_loss_ratio": (s.window_generated > 0)
                    .then(|| 1.0 - e.window_replies as f64 / s.window_generated as f64),
                "rtt_mean_ms": (e.replies > 0).then(|| e.rtt_sum_ns as f64 / e.replies as f64 / 1e6),
                "rtt_max_ms": (e.replies > 0).then(|| e.rtt_max_ns as f64 / 1e6),
                "rtt_p50_ms": ms(r50), "rtt_p90_ms": ms(r90), "rtt_p99_ms": ms(r99), "rtt_p999_ms": ms(r999),
                "rtt_histogram": e.rtt.histogram(HISTOGRAM_MERGE_BITS).iter()
                    .map(|&(lo, hi, n)| json!([lo as f64 / 1e6, hi as f64 / 1e6, n])).collect::<Vec<_>>(),
            }),
        );
    }
    if let FlowKind::Tcp(tcp) = &f.kind {
        let TcpFlow { sender, receiver, completed, .. } = &**tcp;
        let c = &v.eps[*sender].conn;
        let st = c.stats();
        let mut t = json!({
            "state": format!("{:?}", c.state()),
            "receiver_state": format!("{:?}", v.eps[*receiver].conn.state()),
            "segments_retransmitted": st.segments_retransmitted,
            "fast_retransmits": st.fast_retransmits,
            "timeouts": st.timeouts,
            "syn_retransmits": st.syn_retransmits + v.eps[*receiver].conn.stats().syn_retransmits,
            "cwnd_bytes": c.cwnd(),
            "ssthresh_bytes": ssthresh_json(c.ssthresh()),
            "srtt_ms": c.srtt().map(|d| d.as_secs_f64() * 1e3),
            "completion_s": completed.map(|t| t.since(f.start).as_secs_f64()),
        });
        if c.config().ecn != wifitcp_tcp::EcnMode::Off {
            t["ecn"] = json!({
                "negotiated": c.ecn_negotiated(),
                "ece_received": st.ece_received,
                "reductions": st.ecn_reductions,
                "ce_received": v.eps[*receiver].conn.stats().ce_received,
            });
        }
        if c.config().rack_tlp {
            t["rack_marked_lost"] = json!(st.rack_marked_lost);
            t["tlp_probes"] = json!(st.tlp_probes);
        }
        if c.config().trace {
            t["cwnd_trace"] = Value::Array(
                st.cwnd_trace
                    .iter()
                    .map(|x| json!([x.time.as_secs_f64(), x.cwnd, ssthresh_json(x.ssthresh)]))
                    .collect(),
            );
            // [t s, "FastRetransmit" | "Timeout", flight bytes, cwnd after]
            t["loss_events"] = Value::Array(
                st.loss_events
                    .iter()
                    .map(|e| json!([e.time.as_secs_f64(), format!("{:?}", e.kind), e.flight, e.cwnd_after]))
                    .collect(),
            );
            t["rtt_samples"] = json!(st.rtt_samples);
            t["rtt_mean_ms"] = json!((st.rtt_samples > 0).then(|| st.rtt_sum_ns as f64 / st.rtt_samples as f64 / 1e6));
            if let Some(first) = st.cc_trace.first() {
                // [t s, cwnd bytes, mode, the controller's estimates...],
                // the estimates named by `cc_trace_fields`
                let mut fields = vec![json!("time_s"), json!("cwnd_bytes"), json!("mode")];
                fields.extend(first.state.names.iter().map(|n| json!(n)));
                t["cc_trace_fields"] = Value::Array(fields);
                t["cc_trace"] = Value::Array(
                    st.cc_trace
                        .iter()
                        .map(|x| {
                            let mut row = vec![json!(x.time.as_secs_f64()), json!(x.cwnd), json!(x.state.mode)];
                            row.extend(x.state.named().iter().map(|v| json!(v)));
                            Value::Array(row)
                        })
                        .collect(),
                );
            }
        }
        j.put("tcp", &t);
    }
}

/// MAC and medium counters of member `i`, summed over the cells.
fn member_counters(v: &RunView, i: usize) -> (wifitcp_wifi::mac::MacCounters, wifitcp_wifi::medium::MediumCounters) {
    if let Some((c, l)) = v.member_at(i) {
        return (v.cells[c].macs[l].counters(), v.cells[c].medium(l).clone());
    }
    if let [only] = v.cells {
        return (only.macs[i].counters(), only.medium(i).clone());
    }
    let (mut c, mut m) = (wifitcp_wifi::mac::MacCounters::default(), wifitcp_wifi::medium::MediumCounters::default());
    for b in v.cells {
        c.add(&b.macs[i].counters());
        m.add(b.medium(i));
    }
    (c, m)
}

/// Member `i`'s object (docs/results.md, "stations") into `j`.
fn station_json(v: &RunView, i: usize, j: &mut Obj) {
    let (c, m) = member_counters(v, i);
    let (c, m) = (&c, &m);
    j.put("name", &v.topo.name(i))
        .put("attempts", &c.attempts)
        .put("successes", &c.successes)
        .put("failures", &c.failures)
        .put("collisions", &m.collided)
        .put("retries", &c.retries)
        .put("channel_errors", &m.channel_errors)
        .put("control_errors", &m.control_errors)
        .put("rx_errors", &c.rx_errors)
        .put("rx_duplicates", &c.rx_duplicates)
        .put("rx_false_duplicates", &c.rx_false_duplicates)
        .put("airtime_s", &(m.airtime_ns as f64 * 1e-9))
        .put(
            "collision_probability",
            &if m.initial_frames > 0 { m.collided as f64 / m.initial_frames as f64 } else { 0.0 },
        )
        .put("drops", &DropsJson { retry_limit: c.drops_retry_limit });
    // The HCF's own counters, only at stations that run it (results of
    // DCF cells keep their form).
    let (c, l) = v.member_at(i).unwrap_or((0, i));
    if let Some(h) = v.cells[c].macs[l].as_hcf() {
        let mut hcf = hcf_json(&h.stats);
        hcf["polling"]["listed"] = json!(h.poll_listed().unwrap_or(0));
        j.put("hcf", &hcf);
    }
    // The point coordinator's (PCF, multi-poll) and its CF-pollable
    // stations', in the HCF polling's form (docs/results.md).
    let mac = &v.cells[c].macs[l];
    if let Some(ap) = mac.as_ap().filter(|a| a.has_cfp()) {
        let (joins, leaves) = ap.poll_scheduler().map_or((0, 0), |s| s.joins_leaves());
        let listed = ap.poll_scheduler().map_or(0, |s| s.listed());
        j.put("pcf", &json!({ "polling": pcf_polling_json(&ap.stats, (joins, leaves, listed), (0, 0)) }));
    } else if let Some(s) = mac.as_cf_sta() {
        j.put(
            "pcf",
            &json!({ "polling": pcf_polling_json(&Default::default(), (0, 0, 0), (s.polls, s.null_answers)) }),
        );
    }
}

/// A station's `"drops"` object.
#[derive(serde::Serialize)]
struct DropsJson {
    retry_limit: u64,
}

/// The polling counters of a PCF member: the point coordinator's `s` and
/// its list's joins, leaves and stations listed at the end; a polled
/// station's polls answered and answers without an MSDU.
fn pcf_polling_json(s: &wifitcp_wifi::mac::pcf::PcfStats, list: (u64, u64, usize), sta: (u64, u64)) -> Value {
    json!({
        "service_periods": s.cfps,
        "period_s": s.cfp_ns as f64 * 1e-9,
        "polls": s.polls,
        "null_answers_received": s.null_answers,
        "no_answers": s.no_answer,
        "answer_errors": s.answer_errors,
        "data_answers": s.cf_data_up,
        "downlink_txops": s.cf_data_down,
        "list_joins": list.0,
        "list_leaves": list.1,
        "listed": list.2,
        "beacons": s.beacons,
        "polled_txops": sta.0,
        "null_answers_sent": sta.1,
    })
}

/// A station's HCF counters (whole run): data PPDUs by MPDU count (index
/// = MPDUs, from 1), BlockAcks received and the MPDUs they reported
/// missing, explicit BlockAckReqs, MPDU retransmissions, internal
/// collisions, and airtime by frame type.
fn hcf_json(s: &wifitcp_wifi::mac::HcfStats) -> Value {
    let mut v = hcf_su_json(s);
    if s.mu_ppdus > 0 {
        // (an OFDMA AP: its data PPDUs above count each user's A-MPDU)
        v["mu_ppdus"] = json!(s.mu_ppdus);
        v["mu_users"] = json!(s.mu_users);
    }
    if s.tb_data_shares > 0 {
        // (a triggered station: its data PPDUs above count these HE TB
        // shares beside its own single-user PPDUs)
        v["tb_data_shares"] = json!(s.tb_data_shares);
    }
    if s.mu_edca_switches > 0 {
        // (a station under MU EDCA, 802.11ax-2021 26.2.7)
        v["mu_edca_switches"] = json!(s.mu_edca_switches);
    }
    if s.basic_triggers > 0 {
        v["basic_triggers"] = json!(s.basic_triggers);
    }
    if s.bsrp_triggers > 0 {
        v["bsrp_triggers"] = json!(s.bsrp_triggers);
    }
    v
}

fn hcf_su_json(s: &wifitcp_wifi::mac::HcfStats) -> Value {
    let ppdus: u64 = s.mpdus_per_ppdu.iter().sum();
    let mpdus: u64 = s.mpdus_per_ppdu.iter().enumerate().map(|(k, n)| k as u64 * n).sum();
    let last = s.mpdus_per_ppdu.iter().rposition(|&n| n > 0).unwrap_or(0);
    json!({
        "data_ppdus": ppdus,
        "mean_mpdus_per_ppdu": if ppdus > 0 { mpdus as f64 / ppdus as f64 } else { 0.0 },
        "mpdus_per_ppdu": s.mpdus_per_ppdu.get(1..=last.max(1)).unwrap_or(&[]),
        "block_acks": s.block_acks,
        "bitmap_losses": s.bitmap_losses,
        "block_ack_reqs": s.block_ack_reqs,
        "mpdu_retransmissions": s.mpdu_retransmissions,
        "internal_collisions": s.internal_collisions,
        "rts": s.rts,
        "cts_failures": s.cts_failures,
        "polling": {
            "service_periods": s.service_periods,
            "period_s": s.period_ns as f64 * 1e-9,
            "polls": s.polls,
            "null_answers_received": s.poll_nulls,
            "no_answers": s.poll_no_answers,
            "downlink_txops": s.scheduled_txops,
            "list_joins": s.list_joins,
            "list_leaves": s.list_leaves,
            "polled_txops": s.polled_txops,
            "null_answers_sent": s.null_answers,
        },
        "airtime_s": {
            "data": s.airtime_data_ns as f64 * 1e-9,
            "ack": s.airtime_ack_ns as f64 * 1e-9,
            "block_ack": s.airtime_block_ack_ns as f64 * 1e-9,
            "block_ack_req": s.airtime_bar_ns as f64 * 1e-9,
            "rts_cts": s.airtime_rts_cts_ns as f64 * 1e-9,
        },
    })
}

fn queue_json(v: &RunView, i: usize) -> Value {
    let q = v.wq.get(i);
    let c = q.counters();
    let occ = q.occupancy();
    let dropped: serde_json::Map<String, Value> = DropReason::ALL
        .iter()
        .map(|&r| (r, c.dropped(r)))
        .filter(|&(_, n)| n > 0)
        .map(|(r, n)| (r.as_str().to_string(), json!(n)))
        .collect();
    let mut j = json!({
        "node": v.topo.name(i), "iface": "wlan", "kind": q.kind(),
        "enqueued": c.enqueued, "dequeued": c.dequeued, "dropped": dropped,
        "filtered_share": c.filtered_share(), "rewritten": c.rewritten,
        "mean_len": occ.mean_len(v.sampling.end), "max_len": occ.max_len(),
        // (null unless a window-rewriting agent sits at this node)
        "window_rewrites": null,
        "series": occ.series().iter().map(|(t, n)| json!([t.as_secs_f64(), n])).collect::<Vec<_>>(),
    });
    if c.ce_marked > 0 {
        j["ce_marked"] = json!(c.ce_marked);
    }
    // Paper 000's ACK filter: its removals and keeps by reason.
    if let Some(a) = q.ack_filter() {
        j["ack_filter"] = serde_json::to_value(a).expect("plain counters");
    }
    // Each agent at the node adds its counters under its own key.
    for (a, _) in v.agents.at(i) {
        if let Some((key, value)) = a.report() {
            j[key] = value;
        }
    }
    j
}

/// Assemble the result of a run.
pub fn collect(v: &RunView) -> RunResult {
    let rendered = RENDERED
        .iter()
        .map(|&k| {
            let text = render_key(v, k, Sink { buf: Vec::new(), out: None }).expect("a Vec takes every write");
            (k, String::from_utf8(text).expect("serde_json writes UTF-8"))
        })
        .collect();
    RunResult { head: head(v), rendered }
}

/// Write the result of a run to `out`, with the top-level keys `extra`
/// added (the runner's `scenario`, `seed`, `version`): the text of
/// [`collect`]'s [`RunResult::to_json_string`] after the same `set`s,
/// written as it is rendered (no array's text is held whole). A write
/// error is `result: <reason>`.
pub fn write(v: &RunView, extra: &[(&str, Value)], out: &mut dyn Write) -> Result<(), String> {
    let mut head = head(v);
    for (k, x) in extra {
        head[*k] = x.clone();
    }
    splice(&head, out, |k, out| {
        render_key(v, k, Sink { buf: Vec::with_capacity(FLUSH_BYTES), out: Some(out) }).map(drop)
    })
    .map_err(|e| format!("result: {e}"))
}

/// The rendered top-level value `key` (one of [`RENDERED`]) into `sink`.
fn render_key(v: &RunView, key: &str, sink: Sink) -> std::io::Result<Vec<u8>> {
    let members = v.wq.len();
    match key {
        "flows" => {
            let secs = secs(v);
            render_objs(v.flows.len(), |k, j| flow_json(v, k, secs, j), sink)
        }
        "stations" => render_objs(members, |i, j| station_json(v, i, j), sink),
        // APs' queues, then stations' queues that are not plain drop-tail or
        // whose agents report (a proxy's station half).
        "queues" => render(
            (0..members)
                .filter(|&i| {
                    v.topo.is_ap(i)
                        || v.wq.get(i).kind() != "drop-tail"
                        || v.agents.at(i).iter().any(|(x, _)| x.report().is_some())
                })
                .map(|i| queue_json(v, i)),
            sink,
        ),
        "effective" => {
            let mut sink = sink;
            effective::write_effective(v, &mut sink)?;
            sink.finish()
        }
        _ => unreachable!("not a rendered key: {key}"),
    }
}

/// Seconds over which rates are measured: from the warm-up to the end.
fn secs(v: &RunView) -> f64 {
    (v.sampling.end.as_secs_f64() - v.sampling.warmup.as_secs_f64()).max(1e-12)
}

/// The result but for the rendered keys, each a placeholder.
fn head(v: &RunView) -> Value {
    let secs = secs(v);
    let (mut att, mut col) = (0u64, 0u64);
    for m in v.cells.iter().flat_map(|b| b.medium_all()) {
        att += m.initial_frames;
        col += m.collided;
    }
    let dropped: serde_json::Map<String, Value> = DropReason::ALL
        .iter()
        .map(|r| (r, v.ledger.dropped.get(r).copied().unwrap_or(0)))
        // (an optional feature's reason only when it occurs, see DropReason)
        .filter(|&(r, n)| n > 0 || !r.optional())
        .map(|(r, n)| (r.as_str().to_string(), json!(n)))
        .collect();
    let goodputs: Vec<f64> = v.flows.iter().map(|f| f.stats.goodput_mbps(&v.sampling, secs)).collect();
    let links: Vec<Value> = v
        .links
        .iter()
        .enumerate()
        .flat_map(|(li, l)| {
            let (a, b) = v.topo.link_ends[li];
            l.iter().enumerate().map(move |(d, x)| {
                let (f, t) = if d == 0 { (a, b) } else { (b, a) };
                json!({"from": v.topo.name(f), "to": v.topo.name(t), "sent": x.sent, "dropped": x.dropped, "max_queue": x.max_queue})
            })
        })
        .collect();
    let ph = |k: &str| Value::String(RunResult::placeholder(k));
    let mut head = json!({
        "duration_s": v.sampling.end.as_secs_f64(),
        "warmup_s": v.sampling.warmup.as_secs_f64(),
        "sample_interval_s": v.sampling.bin.as_secs_f64(),
        "events": v.events,
        "wall_time_s": v.wall_s,
        "aggregate_mbps": goodputs.iter().sum::<f64>(),
        "aggregate_msdu_mbps": v.flows.iter().map(|f| mbps(f.stats.msdu_bytes, secs)).sum::<f64>(),
        "jain_index": jain(&goodputs),
        "collision_probability": if att > 0 { col as f64 / att as f64 } else { 0.0 },
        "links": links,
        "ledger": {
            "generated": v.ledger.generated(),
            "delivered": v.ledger.delivered,
            "in_flight": v.ledger.in_flight(),
            "late_drops": v.ledger.late_drops,
            "dropped": dropped,
        },
    });
    for k in RENDERED {
        head[k] = ph(k);
    }
    if v.ledger.copies > 0 {
        // Only where agents copied packets: results without them keep
        // their exact form.
        head["ledger"]["copies"] = json!(v.ledger.copies);
    }
    if let Some(h) = &v.handoffs {
        head["handoffs"] = h.clone();
    }
    head
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(items: impl Iterator<Item = Value>) -> String {
        String::from_utf8(render(items, Sink { buf: Vec::new(), out: None }).unwrap()).unwrap()
    }

    #[test]
    fn a_flow_record_sums_delays_past_two_to_the_64_and_packs_to_eight_bytes() {
        use wifitcp_core::{FlowId, PacketId};
        use wifitcp_wire::{ip::PROTO_UDP, Ipv4Addr, Ipv4Header, UdpHeader};
        let ip = Ipv4Header::new(Ipv4Addr::from(1), Ipv4Addr::from(2), PROTO_UDP);
        let p = Packet::new_udp(PacketId(1), FlowId(0), SimTime::ZERO, ip, UdpHeader { src_port: 1, dst_port: 2 }, 10);
        let mut f = FlowStats::default();
        let d = (1u64 << 63) - 1;
        for _ in 0..5 {
            f.on_data_arrival(&p, SimTime::from_nanos(d), SimTime::ZERO);
        }
        assert_eq!(f.delay_sum(), 5 * d as u128);
        assert_eq!(std::mem::align_of::<FlowStats>(), 8);
        assert_eq!(std::mem::size_of::<sketch::Jitter>(), 16);
    }

    #[test]
    fn rendered_arrays_give_the_text_of_the_whole_tree() {
        let flows = vec![json!({"name": "a", "x": 1.5e-7, "s": [[0.1, 2]]}), json!({"name": "b\u{0}", "x": null})];
        let stations = vec![json!({"z": 1, "a": {"q": [1, 2]}})];
        let whole = json!({"aggregate_mbps": 1.25, "flows": flows, "queues": [], "stations": stations,
            "zeta": {"queues": "inner"}, "effective": {"flows": 3}});
        let ph = |k: &str| Value::String(RunResult::placeholder(k));
        let mut r = RunResult {
            head: json!({"aggregate_mbps": 1.25, "flows": ph("flows"), "queues": ph("queues"),
                "stations": ph("stations"), "effective": {"flows": 3}}),
            rendered: vec![
                ("stations", text(stations.iter().cloned())),
                ("flows", text(flows.iter().cloned())),
                ("queues", text(std::iter::empty())),
            ],
        };
        r.set("zeta", json!({"queues": "inner"}));
        assert_eq!(r.to_json_string(), whole.to_string());
        assert_eq!(r.get("aggregate_mbps"), &json!(1.25));
        assert_eq!(r.into_value(), whole);
    }

    #[test]
    fn a_sink_that_writes_out_gives_the_same_text() {
        let items: Vec<Value> = (0..5000).map(|k| json!({"k": k, "s": "x".repeat(k % 40)})).collect();
        let mut out = Vec::new();
        let left = render(items.iter().cloned(), Sink { buf: Vec::new(), out: Some(&mut out) }).unwrap();
        assert!(left.is_empty());
        assert!(out.len() > 2 * FLUSH_BYTES, "the test crosses several flushes");
        assert_eq!(String::from_utf8(out).unwrap(), text(items.into_iter()));
    }

    #[test]
    fn unbounded_ssthresh_is_null() {
        assert_eq!(ssthresh_json(u64::MAX >> 2), Value::Null);
        assert_eq!(ssthresh_json(u64::MAX), Value::Null);
        assert_eq!(ssthresh_json(4380), json!(4380));
        assert_eq!(ssthresh_json((u64::MAX >> 2) - 1), json!((u64::MAX >> 2) - 1));
    }
}
