//! Trace-driven source: datagrams at the instants and of the sizes listed
//! in a text file (the format of docs/scenarios.md, "Trace files").
//!
//! One line per frame, `TIME SIZE`: the frame's send time in seconds from
//! the flow's start (non-decreasing) and its size in bytes of UDP payload
//! (a positive integer), separated by blanks; text after `#` and blank
//! lines are ignored. A frame larger than the largest payload of one
//! datagram (`msdu_bytes - 36`) leaves as several datagrams at the same
//! instant, all full but the last (as ns-2's UDP agent splits a message
//! larger than its packet size). At the end of the file the trace starts
//! over, shifted by its period: the last time plus the mean gap between
//! frames, `t_last * n / (n - 1)` for `n` frames (a trace of frames at a
//! fixed rate repeats at that rate).
//!
//! Invariant: the source never asks for an instant before the one it is
//! fired at, and the file is read once, when the scenario is checked and
//! when the source is built.
use super::{AppKind, Firing, Source, UDP_OVERHEAD};
use crate::config::Traffic;
use wifitcp_core::config::ConfigError;
use wifitcp_core::{RngStream, SimDur, SimTime};

wifitcp_core::config_table! {
    /// `pattern = "trace"`.
    #[serde(deny_unknown_fields)]
    pub struct TraceTable {
        /// File of TIME SIZE lines, relative to the scenario file (docs/scenarios.md, "Trace files").
        #[key(default = "required")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub trace_file: Option<String> = None,
    }
}

impl AppKind for TraceTable {
    /// The file is given and parses.
    fn check(&self, _: &Traffic) -> Result<(), ConfigError> {
        match &self.trace_file {
            None => Err(ConfigError::new("trace_file", "required for pattern trace")),
            Some(f) => load(f).map(|_| ()).map_err(|e| ConfigError::new("trace_file", e)),
        }
    }
    fn build(&self, tr: &Traffic, _: RngStream) -> Result<Box<dyn Source>, ConfigError> {
        let file = self.trace_file.as_deref().expect("checked: trace_file");
        let frames = load(file).map_err(|e| ConfigError::new("trace_file", e))?;
        Ok(Box::new(TraceSource::new(frames, tr.common.msdu_bytes - UDP_OVERHEAD)))
    }
}

/// Most frames a trace may hold (10^7 lines: days of 25 frame/s video).
pub const MAX_FRAMES: usize = 10_000_000;

/// The frames of a trace: (offset from the flow's start, payload bytes).
#[derive(Clone, Debug, PartialEq)]
pub struct Frames {
    pub frames: Vec<(SimDur, u32)>,
    /// The trace repeats every `period`.
    pub period: SimDur,
}

impl Frames {
    /// Mean payload rate, bit/s.
    pub fn mean_rate_bps(&self) -> f64 {
        let bytes: u64 = self.frames.iter().map(|f| f.1 as u64).sum();
        bytes as f64 * 8.0 / self.period.as_secs_f64()
    }
}

/// Parse a trace file's text; errors name the line (1-based).
pub fn parse(text: &str) -> Result<Frames, String> {
    let mut frames: Vec<(SimDur, u32)> = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let no = k + 1;
        let mut it = line.split_whitespace();
        let (Some(t), Some(b), None) = (it.next(), it.next(), it.next()) else {
            return Err(format!("line {no}: expected TIME SIZE (two numbers), got {line:?}"));
        };
        let t: f64 = t.parse().map_err(|_| format!("line {no}: time {t:?} is not a number"))?;
        if !(t.is_finite() && (0.0..=1e6).contains(&t)) {
            return Err(format!("line {no}: time {t} s is not in [0, 1e6] s"));
        }
        let b: u32 = b.parse().map_err(|_| format!("line {no}: size {b:?} is not a whole number of bytes"))?;
        if b == 0 || b > 100_000_000 {
            return Err(format!("line {no}: size {b} is not in [1, 1e8] bytes"));
        }
        let at = SimDur::from_secs_f64(t);
        if let Some(&(prev, _)) = frames.last() {
            if at < prev {
                return Err(format!("line {no}: time {t} s is before the previous line's {} s", prev.as_secs_f64()));
            }
        }
        if frames.len() == MAX_FRAMES {
            return Err(format!("line {no}: more than {MAX_FRAMES} frames"));
        }
        frames.push((at, b));
    }
    let n = frames.len();
    let last = frames.last().map(|f| f.0).ok_or("no frames (every line blank or a comment)")?;
    if n < 2 || last == frames[0].0 {
        return Err("a trace needs frames at two different times at least (it repeats with its span)".into());
    }
    let period = SimDur::from_nanos((last.as_nanos() as u128 * n as u128 / (n as u128 - 1)) as u64);
    Ok(Frames { frames, period })
}

/// Read and parse the trace file at `path`: errors are `PATH: line N:
/// reason` or `PATH: reason`.
pub fn load(path: &str) -> Result<Frames, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: cannot read: {e}"))?;
    parse(&text).map_err(|e| format!("{path}: {e}"))
}

pub struct TraceSource {
    frames: Vec<(SimDur, u32)>,
    period: SimDur,
    /// Largest payload of one datagram.
    max_payload: u32,
    /// Instant of the current repetition's time zero.
    origin: SimTime,
    /// Next frame, and the bytes of it not yet sent.
    idx: usize,
    left: u32,
}

impl TraceSource {
    pub fn new(f: Frames, max_payload: u32) -> Self {
        let left = f.frames[0].1;
        TraceSource {
            frames: f.frames,
            period: f.period,
            max_payload: max_payload.max(1),
            origin: SimTime::ZERO,
            idx: 0,
            left,
        }
    }
}

impl Source for TraceSource {
    fn kind(&self) -> &'static str {
        "trace"
    }
    fn start(&mut self, start: SimTime) -> SimTime {
        self.origin = start;
        start + self.frames[0].0
    }
    fn fire(&mut self, now: SimTime) -> Firing {
        let part = self.left.min(self.max_payload);
        self.left -= part;
        let next = if self.left > 0 {
            now
        } else {
            self.idx += 1;
            if self.idx == self.frames.len() {
                self.idx = 0;
                self.origin += self.period;
            }
            self.left = self.frames[self.idx].1;
            (self.origin + self.frames[self.idx].0).max(now)
        };
        Firing { msdu_bytes: part + UDP_OVERHEAD, next }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_splits_and_repeats() {
        let f = parse("# t size\n0.0 100\n\n0.04 3000  # I frame\n0.08 10\n").unwrap();
        assert_eq!(f.frames.len(), 3);
        assert_eq!(f.period, SimDur::from_millis(120));
        assert!((f.mean_rate_bps() - 3110.0 * 8.0 / 0.12).abs() < 1e-6);
        let mut s = TraceSource::new(f, 1464);
        let mut t = s.start(SimTime::from_secs(1));
        let mut out = Vec::new();
        for _ in 0..7 {
            let fi = s.fire(t);
            out.push((t.as_nanos() / 1_000_000, fi.msdu_bytes - 36));
            t = fi.next;
        }
        assert_eq!(
            out,
            vec![(1000, 100), (1040, 1464), (1040, 1464), (1040, 72), (1080, 10), (1120, 100), (1160, 1464)]
        );
    }

    #[test]
    fn errors_name_the_line() {
        let e = |t: &str| parse(t).unwrap_err();
        assert_eq!(e("0 10\n1 x\n"), "line 2: size \"x\" is not a whole number of bytes");
        assert_eq!(e("0 10\n\n0.5\n"), "line 3: expected TIME SIZE (two numbers), got \"0.5\"");
        assert_eq!(e("1 10\n0.5 10\n"), "line 2: time 0.5 s is before the previous line's 1 s");
        assert_eq!(e("0 10\nnan 10\n"), "line 2: time NaN s is not in [0, 1e6] s");
        assert_eq!(e("0 0\n"), "line 1: size 0 is not in [1, 1e8] bytes");
        assert!(e("# nothing\n").starts_with("no frames"));
        assert!(e("0 10\n0 20\n").starts_with("a trace needs frames at two different times"));
        assert!(e("0.5 10\n0.5 20\n0.5 30\n").starts_with("a trace needs frames at two different times"));
        assert!(load("/nonexistent/x.txt").unwrap_err().starts_with("/nonexistent/x.txt: cannot read"));
    }
}
