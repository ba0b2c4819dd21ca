//! Scenario configuration of a queue discipline and the factory that builds
//! it.
//!
//! In a scenario TOML an interface selects its discipline with a table
//! tagged by `kind`; every other key is optional and defaults as documented
//! on the field. Unknown keys and kinds are errors. The interface's buffer
//! size (`capacity`, packets) is configured by the interface, not here.
//!
//! ```toml
//! [ap.qdisc]
//! kind = "keceli-grouped"      # drop-tail | ack-first | keceli-sorted |
//!                              # keceli-grouped | pilosof | vbs | cake-ack |
//!                              # codel | fq-codel | airtime
//! gamma = 0.5
//! ```
use crate::ack_first::AckFirst;
use crate::airtime::{Airtime, AirtimeParams};
use crate::cake_ack::{AckFilterMode, CakeAck};
use crate::codel::{Codel, CodelParams};
use crate::disc::QueueDisc;
use crate::droptail::DropTail;
use crate::fq_codel::{FqCodel, FqCodelParams};
use crate::keceli::{Assignment, Keceli, KeceliParams};
use crate::pilosof::{PacketRewriter, Pilosof, PilosofParams};
use crate::vbs::{ShareMeasure, Vbs, VbsParams, VbsUpdate};
use serde::{Deserialize, Serialize};
use wifitcp_core::{RngStream, SimDur};

/// A queue discipline selected by `kind`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum QdiscConfig {
    /// FIFO, `capacity` packets.
    DropTail(DropTailConfig),
    /// Paper 000 section V: ACK buffer served first, redundant ACKs removed.
    AckFirst(AckFirstConfig),
    /// Paper 001 section III with sorted threshold assignment.
    KeceliSorted(KeceliConfig),
    /// Paper 001 section III with grouped threshold assignment.
    KeceliGrouped(KeceliConfig),
    /// Drop-tail queue plus Pilosof advertised-window rewriting of the TCP
    /// packets the node forwards (see [`build_rewriter`]).
    Pilosof(PilosofConfig),
    /// Paper 004 section V, Algorithm 1.
    Vbs(VbsConfig),
    /// Drop-tail FIFO with the CAKE ACK filter.
    CakeAck(CakeAckConfig),
    /// Single-queue CoDel (RFC 8289).
    Codel(CodelConfig),
    /// FQ-CoDel (RFC 8290).
    FqCodel(FqCodelConfig),
    /// Per-station airtime DRR with FQ-CoDel per station.
    Airtime(AirtimeConfig),
}

impl Default for QdiscConfig {
    fn default() -> Self {
        QdiscConfig::DropTail(DropTailConfig::default())
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DropTailConfig {}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AckFirstConfig {
    /// Size of the separate ACK buffer in packets. Default: the interface
    /// capacity (the paper gives none).
    pub ack_capacity: Option<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KeceliConfig {
    /// EWMA weight of eq. (2). Default 0.8 (paper 001 section IV).
    pub alpha: f64,
    /// Waiting time = beta * AvgACKint. Default 2.
    pub beta: f64,
    /// Activity window. Default 500 ms.
    pub active_thresh_ms: f64,
    /// Timeout timer (not given by the paper). Default 100 ms.
    pub timeout_ms: f64,
    /// IFQ size. Default: capacity - capacity/2 (25 of 50).
    pub ifq_capacity: Option<usize>,
    /// Control queue size. Default: max(capacity/2, 1) (25 of 50).
    pub control_capacity: Option<usize>,
    /// ACKs passed directly for new flows and after three dupACKs
    /// ("the first couple"). Default 2.
    pub pass_first: u32,
    /// Sorted assignment constant c_srt. Default 1. (keceli-sorted only)
    pub c_srt: u32,
    /// Grouping tolerance gamma of eq. (3). Default 0.5. (keceli-grouped)
    pub gamma: f64,
    /// Threshold set C, strictly increasing, each > 1. Default
    /// [2, 6, 12, 16, 20]. (keceli-grouped only)
    pub c: Vec<u32>,
}

impl Default for KeceliConfig {
    fn default() -> Self {
        KeceliConfig {
            alpha: 0.8,
            beta: 2.0,
            active_thresh_ms: 500.0,
            timeout_ms: 100.0,
            ifq_capacity: None,
            control_capacity: None,
            pass_first: 2,
            c_srt: 1,
            gamma: 0.5,
            c: vec![2, 6, 12, 16, 20],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PilosofConfig {
    /// B in floor(B / n_act), packets. Default: the interface capacity.
    pub buffer: Option<u32>,
    /// MSS when a connection's SYN was not seen. Default 1460 bytes.
    pub mss: u32,
    /// Activity window for n_act. Default 500 ms.
    pub active_thresh_ms: f64,
}

impl Default for PilosofConfig {
    fn default() -> Self {
        PilosofConfig { buffer: None, mss: 1460, active_thresh_ms: 500.0 }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VbsConfig {
    /// Target occupancy fraction, 0.5 < c < 1. Default 0.6.
    pub c: f64,
    /// Tolerance on (Q - cB)^2. Default 1 / B^2.
    pub tol: Option<f64>,
    /// Desired service fractions h*_i by class index; empty: equal.
    pub shares: Vec<f64>,
    /// "service" (default), "occupancy" or "delivered" (see
    /// [`crate::vbs::ShareMeasure`]). A string checked by `validate`, as
    /// `update` is, so that a bad value is reported as
    /// `ap.qdisc.measure: ...`.
    pub measure: String,
    /// Measurement window. Default: B (the capacity).
    pub window: Option<usize>,
    /// "above-target" (default), "literal" or "partition" (see
    /// [`crate::vbs`]). A string checked by `validate`, so that a bad value
    /// is reported as `ap.qdisc.update: ...` (serde's tagged enums lose the
    /// field's path).
    pub update: String,
}

impl Default for VbsConfig {
    fn default() -> Self {
        VbsConfig {
            c: 0.6,
            tol: None,
            shares: Vec::new(),
            measure: "service".into(),
            window: None,
            update: "above-target".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CakeAckConfig {
    /// "conservative" (default, as CAKE's `ack-filter`), "aggressive"
    /// (`ack-filter-aggressive`) or "off".
    pub mode: AckFilterMode,
}

impl Default for CakeAckConfig {
    fn default() -> Self {
        CakeAckConfig { mode: AckFilterMode::Conservative }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CodelConfig {
    /// Default 5 ms (RFC 8289).
    pub target_ms: f64,
    /// Default 100 ms (RFC 8289).
    pub interval_ms: f64,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig { target_ms: 5.0, interval_ms: 100.0 }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelConfig {
    /// Hash buckets. Default 1024.
    pub flows: u32,
    /// DRR quantum, bytes. Default 1514.
    pub quantum: u32,
    /// Default 5 ms.
    pub target_ms: f64,
    /// Default 100 ms.
    pub interval_ms: f64,
    /// Byte limit over all queues. Default 33554432 (32 MiB). The packet
    /// limit is the interface capacity.
    pub memory_limit: u64,
    /// CAKE ACK filter in each flow queue: "off" (default),
    /// "conservative", "aggressive".
    pub ack_filter: AckFilterMode,
}

impl Default for FqCodelConfig {
    fn default() -> Self {
        FqCodelConfig {
            flows: 1024,
            quantum: 1514,
            target_ms: 5.0,
            interval_ms: 100.0,
            memory_limit: 32 << 20,
            ack_filter: AckFilterMode::Off,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AirtimeConfig {
    /// Airtime DRR quantum. Default 300 us.
    pub quantum_us: f64,
    /// Hash buckets of each station's FQ-CoDel. Default 1024.
    pub flows: u32,
    /// Byte quantum of each station's FQ-CoDel. Default 1514.
    pub fq_quantum: u32,
    pub target_ms: f64,
    pub interval_ms: f64,
    pub memory_limit: u64,
    pub ack_filter: AckFilterMode,
}

impl Default for AirtimeConfig {
    fn default() -> Self {
        let f = FqCodelConfig::default();
        AirtimeConfig {
            quantum_us: 300.0,
            flows: f.flows,
            fq_quantum: f.quantum,
            target_ms: f.target_ms,
            interval_ms: f.interval_ms,
            memory_limit: f.memory_limit,
            ack_filter: f.ack_filter,
        }
    }
}

/// A configuration error: `"field: reason"`.
pub type ConfigError = String;

fn dur_ms(field: &str, x: f64) -> Result<SimDur, ConfigError> {
    if !(x.is_finite() && x >= 0.0) {
        return Err(format!("{field}: must be a finite non-negative number of milliseconds, got {x}"));
    }
    Ok(SimDur::from_nanos((x * 1e6).round() as u64))
}

fn positive_ms(field: &str, x: f64) -> Result<SimDur, ConfigError> {
    let d = dur_ms(field, x)?;
    if d == SimDur::ZERO {
        return Err(format!("{field}: must be positive"));
    }
    Ok(d)
}

fn check(ok: bool, field: &str, reason: &str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(format!("{field}: {reason}"))
    }
}

fn fq_params(capacity: usize, c: &FqCodelConfig, quantum_field: &str) -> Result<FqCodelParams, ConfigError> {
    check(c.flows > 0, "flows", "must be positive")?;
    check(c.quantum > 0, quantum_field, "must be positive")?;
    check(c.memory_limit > 0, "memory_limit", "must be positive")?;
    Ok(FqCodelParams {
        flows: c.flows,
        quantum: c.quantum,
        codel: CodelParams {
            target: positive_ms("target_ms", c.target_ms)?,
            interval: positive_ms("interval_ms", c.interval_ms)?,
        },
        limit: capacity,
        memory_limit: c.memory_limit,
        ack_filter: c.ack_filter,
    })
}

impl AirtimeConfig {
    fn fq(&self) -> FqCodelConfig {
        FqCodelConfig {
            flows: self.flows,
            quantum: self.fq_quantum,
            target_ms: self.target_ms,
            interval_ms: self.interval_ms,
            memory_limit: self.memory_limit,
            ack_filter: self.ack_filter,
        }
    }
}

impl KeceliConfig {
    fn params(&self, capacity: usize, grouped: bool) -> Result<KeceliParams, ConfigError> {
        check((0.0..=1.0).contains(&self.alpha), "alpha", "must be in [0, 1]")?;
        check(self.beta.is_finite() && self.beta > 0.0, "beta", "must be positive")?;
        let assignment = if grouped {
            check((0.0..1.0).contains(&self.gamma), "gamma", "must be in [0, 1)")?;
            check(!self.c.is_empty(), "c", "must not be empty")?;
            check(self.c.windows(2).all(|w| w[0] < w[1]), "c", "must be strictly increasing")?;
            check(self.c[0] > 1, "c", "elements must be greater than 1 (paper 001: 1 < c_k)")?;
            Assignment::Grouped { gamma: self.gamma, c: self.c.clone() }
        } else {
            check(self.c_srt >= 1, "c_srt", "must be at least 1")?;
            Assignment::Sorted { c_srt: self.c_srt }
        };
        let ifq = self.ifq_capacity.unwrap_or(capacity - capacity / 2);
        let control = self.control_capacity.unwrap_or((capacity / 2).max(1));
        check(ifq > 0, "ifq_capacity", "must be positive")?;
        check(control > 0, "control_capacity", "must be positive")?;
        Ok(KeceliParams {
            alpha: self.alpha,
            beta: self.beta,
            active_thresh: positive_ms("active_thresh_ms", self.active_thresh_ms)?,
            timeout: positive_ms("timeout_ms", self.timeout_ms)?,
            ifq_capacity: ifq,
            control_capacity: control,
            pass_first: self.pass_first,
            assignment,
        })
    }
}

impl VbsConfig {
    fn params(&self, capacity: usize) -> Result<VbsParams, ConfigError> {
        check(self.c > 0.0 && self.c < 1.0, "c", "must be in (0, 1) (paper 004: 0.5 < c < 1)")?;
        let tol = self.tol.unwrap_or(1.0 / (capacity as f64 * capacity as f64));
        check(tol.is_finite() && tol >= 0.0, "tol", "must be a finite non-negative number")?;
        check(self.shares.iter().all(|s| s.is_finite() && *s >= 0.0), "shares", "must be non-negative")?;
        check(self.shares.is_empty() || self.shares.iter().sum::<f64>() > 0.0, "shares", "must not all be zero")?;
        let window = self.window.unwrap_or(capacity);
        check(window > 0, "window", "must be positive")?;
        let update = one_of(
            "update",
            &self.update,
            &[
                ("above-target", VbsUpdate::AboveTarget),
                ("literal", VbsUpdate::Literal),
                ("partition", VbsUpdate::Partition),
            ],
        )?;
        let measure = one_of(
            "measure",
            &self.measure,
            &[
                ("service", ShareMeasure::Service),
                ("occupancy", ShareMeasure::Occupancy),
                ("delivered", ShareMeasure::Delivered),
            ],
        )?;
        Ok(VbsParams { capacity, c: self.c, tol, shares: self.shares.clone(), measure, window, update })
    }
}

/// The value named `value` among `options`, or "field: unknown value ...,
/// expected ..." (string-valued fields whose errors keep their path).
fn one_of<T: Copy>(field: &str, value: &str, options: &[(&str, T)]) -> Result<T, ConfigError> {
    if let Some(&(_, v)) = options.iter().find(|(name, _)| *name == value) {
        return Ok(v);
    }
    let names: Vec<String> = options.iter().map(|(name, _)| format!("{name:?}")).collect();
    let expected = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    };
    Err(format!("{field}: unknown value {value:?}, expected {expected}"))
}

impl QdiscConfig {
    /// Every `kind` string, in the order of the enum (a new discipline adds
    /// itself here and in [`QdiscConfig::kind`]; a test checks they agree).
    pub const KINDS: [&'static str; 10] = [
        "drop-tail",
        "ack-first",
        "keceli-sorted",
        "keceli-grouped",
        "pilosof",
        "vbs",
        "cake-ack",
        "codel",
        "fq-codel",
        "airtime",
    ];

    /// The `kind` string of this configuration.
    pub fn kind(&self) -> &'static str {
        match self {
            QdiscConfig::DropTail(_) => "drop-tail",
            QdiscConfig::AckFirst(_) => "ack-first",
            QdiscConfig::KeceliSorted(_) => "keceli-sorted",
            QdiscConfig::KeceliGrouped(_) => "keceli-grouped",
            QdiscConfig::Pilosof(_) => "pilosof",
            QdiscConfig::Vbs(_) => "vbs",
            QdiscConfig::CakeAck(_) => "cake-ack",
            QdiscConfig::Codel(_) => "codel",
            QdiscConfig::FqCodel(_) => "fq-codel",
            QdiscConfig::Airtime(_) => "airtime",
        }
    }

    /// Check every value against `capacity` without building.
    pub fn validate(&self, capacity: usize) -> Result<(), ConfigError> {
        build(self, capacity, &mut RngStream::derive(0, "qdisc/validate"))?;
        build_rewriter(self, capacity)?;
        Ok(())
    }
}

/// Build the discipline of an interface holding at most `capacity` packets.
/// `rng` is the interface's own stream (e.g. derived from "qdisc/ap0"); it
/// is drawn from only by FQ-CoDel and airtime (hash perturbation).
pub fn build(cfg: &QdiscConfig, capacity: usize, rng: &mut RngStream) -> Result<Box<dyn QueueDisc>, ConfigError> {
    check(capacity > 0, "capacity", "must be positive")?;
    Ok(match cfg {
        QdiscConfig::DropTail(_) | QdiscConfig::Pilosof(_) => Box::new(DropTail::new(capacity)),
        QdiscConfig::AckFirst(c) => {
            let ack = c.ack_capacity.unwrap_or(capacity);
            check(ack > 0, "ack_capacity", "must be positive")?;
            Box::new(AckFirst::new(capacity, ack))
        }
        QdiscConfig::KeceliSorted(c) => Box::new(Keceli::new(c.params(capacity, false)?)),
        QdiscConfig::KeceliGrouped(c) => Box::new(Keceli::new(c.params(capacity, true)?)),
        QdiscConfig::Vbs(c) => Box::new(Vbs::new(c.params(capacity)?)),
        QdiscConfig::CakeAck(c) => Box::new(CakeAck::new(capacity, c.mode)),
        QdiscConfig::Codel(c) => Box::new(Codel::new(
            capacity,
            CodelParams {
                target: positive_ms("target_ms", c.target_ms)?,
                interval: positive_ms("interval_ms", c.interval_ms)?,
            },
        )),
        QdiscConfig::FqCodel(c) => {
            let p = fq_params(capacity, c, "quantum")?;
            Box::new(FqCodel::new(p, rng))
        }
        QdiscConfig::Airtime(c) => {
            let fq = fq_params(capacity, &c.fq(), "fq_quantum")?;
            let quantum = SimDur::from_nanos((c.quantum_us * 1e3).round().max(0.0) as u64);
            check(c.quantum_us.is_finite() && quantum > SimDur::ZERO, "quantum_us", "must be positive")?;
            Box::new(Airtime::new(AirtimeParams { quantum, fq }, rng))
        }
    })
}

/// The packet rewriter that goes with a discipline, if any: Pilosof's
/// window rewriting, to be applied by the simulator to every TCP packet the
/// node forwards in either direction (see [`crate::pilosof`]).
pub fn build_rewriter(cfg: &QdiscConfig, capacity: usize) -> Result<Option<Box<dyn PacketRewriter>>, ConfigError> {
    match cfg {
        QdiscConfig::Pilosof(c) => {
            let buffer = c.buffer.unwrap_or(capacity as u32);
            check(buffer > 0, "buffer", "must be positive")?;
            check(c.mss > 0, "mss", "must be positive")?;
            Ok(Some(Box::new(Pilosof::new(PilosofParams {
                buffer,
                default_mss: c.mss,
                active_thresh: positive_ms("active_thresh_ms", c.active_thresh_ms)?,
            }))))
        }
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<QdiscConfig, String> {
        serde_json::from_str(s).map_err(|e| e.to_string())
    }

    #[test]
    fn every_kind_parses_with_defaults_and_builds() {
        for kind in QdiscConfig::KINDS {
            let cfg = parse(&format!(r#"{{"kind": "{kind}"}}"#)).unwrap();
            assert_eq!(cfg.kind(), kind);
            let q = build(&cfg, 50, &mut RngStream::derive(1, "q")).unwrap();
            assert_eq!(q.kind(), if kind == "pilosof" { "drop-tail" } else { kind });
            assert_eq!(build_rewriter(&cfg, 50).unwrap().is_some(), kind == "pilosof");
            // round trip
            let back: QdiscConfig = parse(&serde_json::to_string(&cfg).unwrap()).unwrap();
            assert_eq!(back, cfg);
        }
    }

    #[test]
    fn defaults_are_the_papers_values() {
        let QdiscConfig::KeceliGrouped(k) = parse(r#"{"kind": "keceli-grouped"}"#).unwrap() else { panic!() };
        let p = k.params(50, true).unwrap();
        assert_eq!(p, KeceliParams::paper(true));
        let p = KeceliConfig::default().params(50, false).unwrap();
        assert_eq!(p, KeceliParams::paper(false));
        let QdiscConfig::Vbs(v) = parse(r#"{"kind": "vbs"}"#).unwrap() else { panic!() };
        assert_eq!(v.params(100).unwrap(), VbsParams::paper(100));
        let QdiscConfig::FqCodel(f) = parse(r#"{"kind": "fq-codel"}"#).unwrap() else { panic!() };
        assert_eq!(fq_params(64, &f, "quantum").unwrap(), FqCodelParams::rfc(64));
    }

    #[test]
    fn explicit_values_and_errors() {
        let cfg = parse(r#"{"kind": "keceli-grouped", "gamma": 0.25, "c": [3, 9], "timeout_ms": 50}"#).unwrap();
        let QdiscConfig::KeceliGrouped(k) = &cfg else { panic!() };
        assert_eq!((k.gamma, k.c.clone(), k.timeout_ms), (0.25, vec![3, 9], 50.0));
        // unknown key, unknown kind, bad values
        assert!(parse(r#"{"kind": "keceli-grouped", "gama": 0.5}"#).unwrap_err().contains("gama"));
        assert!(parse(r#"{"kind": "red"}"#).is_err());
        assert!(parse(r#"{"kind": "cake-ack", "mode": "wild"}"#).is_err());
        let bad = |s: &str| parse(s).unwrap().validate(50).unwrap_err();
        assert!(bad(r#"{"kind": "keceli-grouped", "c": [6, 2]}"#).starts_with("c:"));
        assert!(bad(r#"{"kind": "keceli-sorted", "alpha": 1.5}"#).starts_with("alpha:"));
        assert!(bad(r#"{"kind": "vbs", "c": 1.0}"#).starts_with("c:"));
        let e = bad(r#"{"kind": "vbs", "update": "always"}"#);
        assert!(e.starts_with("update: ") && e.contains("always") && e.contains("literal"), "{e}");
        let QdiscConfig::Vbs(v) = parse(r#"{"kind": "vbs", "update": "literal"}"#).unwrap() else { panic!() };
        assert_eq!(v.params(100).unwrap().update, VbsUpdate::Literal);
        for (name, m) in [
            ("service", ShareMeasure::Service),
            ("occupancy", ShareMeasure::Occupancy),
            ("delivered", ShareMeasure::Delivered),
        ] {
            let QdiscConfig::Vbs(v) = parse(&format!(r#"{{"kind": "vbs", "measure": "{name}"}}"#)).unwrap() else {
                panic!()
            };
            assert_eq!(v.params(100).unwrap().measure, m);
        }
        let e = bad(r#"{"kind": "vbs", "measure": "throughput"}"#);
        assert!(e.starts_with("measure: ") && e.contains("throughput") && e.contains("delivered"), "{e}");
        assert!(bad(r#"{"kind": "fq-codel", "interval_ms": 0}"#).starts_with("interval_ms:"));
        assert!(bad(r#"{"kind": "airtime", "quantum_us": -1}"#).starts_with("quantum_us:"));
        assert!(parse(r#"{"kind": "drop-tail"}"#).unwrap().validate(0).unwrap_err().starts_with("capacity:"));
    }
}
