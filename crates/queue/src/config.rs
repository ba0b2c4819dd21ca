//! Scenario configuration of a queue discipline and the factory that builds
//! it.
//!
//! In a scenario TOML an interface selects its discipline with a table
//! tagged by `kind`; every other key is optional and defaults as its
//! declaration says. Unknown keys and kinds are errors. The interface's
//! buffer size (`capacity`, packets) is configured by the interface, not
//! here.
//!
//! ```toml
//! [ap.qdisc]
//! kind = "keceli-grouped"
//! gamma = 0.5
//! ```
//!
//! Invariants of this layer:
//! - Each kind is one file holding its discipline, its table struct
//!   (declared with [`wifitcp_core::config_table!`]: the struct, its
//!   defaults and its key rows in one place) and its [`QdiscKind`] impl,
//!   plus one registration line in the crate root's
//!   [`wifitcp_core::config_kinds!`] list, from which [`QdiscConfig`], its
//!   `KINDS`, `kind()` and the mounted key rows ([`QdiscConfig::keys`])
//!   come.
//! - Errors are [`ConfigError`]s whose path is relative to the qdisc table
//!   (`gamma`, `capacity`); the interface that owns the table prefixes its
//!   own path (`ap.qdisc.gamma`).
//! - [`build`] draws from the interface's RNG stream only for disciplines
//!   that hash flows (FQ-CoDel, airtime).
use crate::disc::QueueDisc;
use crate::pilosof::PacketRewriter;
pub use crate::QdiscConfig;
pub use wifitcp_core::config::check;
pub use wifitcp_core::ConfigError;
use wifitcp_core::{RngStream, SimDur};

/// What each registered kind's table does: build its discipline.
pub trait QdiscKind {
    /// The discipline of an interface holding at most `capacity` (> 0)
    /// packets; `kind` is the registered kind string (two kinds may share
    /// a table); `rng` is the interface's own stream.
    fn build(
        &self,
        kind: &'static str,
        capacity: usize,
        rng: &mut RngStream,
    ) -> Result<Box<dyn QueueDisc>, ConfigError>;

    /// The packet rewriter that goes with the discipline, if any.
    fn rewriter(&self, _capacity: usize) -> Result<Option<Box<dyn PacketRewriter>>, ConfigError> {
        Ok(None)
    }
}

/// `x` milliseconds as a duration: finite and non-negative.
pub(crate) fn dur_ms(field: &str, x: f64) -> Result<SimDur, ConfigError> {
    if !(x.is_finite() && x >= 0.0) {
        return Err(ConfigError::new(field, format!("must be a finite non-negative number of milliseconds, got {x}")));
    }
    Ok(SimDur::from_nanos((x * 1e6).round() as u64))
}

/// `x` milliseconds as a positive duration.
pub(crate) fn positive_ms(field: &str, x: f64) -> Result<SimDur, ConfigError> {
    let d = dur_ms(field, x)?;
    check(d != SimDur::ZERO, field, "must be positive")?;
    Ok(d)
}

/// The value named `value` among `options`, or "field: unknown value ...,
/// expected ..." (string-valued fields whose errors keep their path).
pub(crate) fn one_of<T: Copy>(field: &str, value: &str, options: &[(&str, T)]) -> Result<T, ConfigError> {
    if let Some(&(_, v)) = options.iter().find(|(name, _)| *name == value) {
        return Ok(v);
    }
    let names: Vec<String> = options.iter().map(|(name, _)| format!("{name:?}")).collect();
    let expected = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    };
    Err(ConfigError::new(field, format!("unknown value {value:?}, expected {expected}")))
}

impl QdiscConfig {
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
    cfg.get().build(cfg.kind(), capacity, rng)
}

/// The packet rewriter that goes with a discipline, if any: Pilosof's
/// window rewriting, to be applied by the simulator to every TCP packet the
/// node forwards in either direction (see [`crate::pilosof`]).
pub fn build_rewriter(cfg: &QdiscConfig, capacity: usize) -> Result<Option<Box<dyn PacketRewriter>>, ConfigError> {
    cfg.get().rewriter(capacity)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fq_codel::FqCodelParams;
    use crate::keceli::{KeceliConfig, KeceliParams};
    use crate::vbs::{ShareMeasure, VbsParams, VbsUpdate};
    use wifitcp_core::config::{explicit_defaults_agree, ConfigTable};

    fn parse(s: &str) -> Result<QdiscConfig, String> {
        serde_json::from_str(s).map_err(|e| e.to_string())
    }

    #[test]
    fn every_kind_parses_with_defaults_and_builds() {
        for &kind in QdiscConfig::KINDS {
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
        assert_eq!(f.params(64, "quantum").unwrap(), FqCodelParams::rfc(64));
    }

    #[test]
    fn explicit_values_and_errors() {
        let cfg = parse(r#"{"kind": "keceli-grouped", "gamma": 0.25, "c": [3, 9], "timeout_ms": 50}"#).unwrap();
        let QdiscConfig::KeceliGrouped(k) = &cfg else { panic!() };
        assert_eq!((k.gamma, k.c.clone(), k.timeout_ms), (0.25, vec![3, 9], 50.0));
        // unknown key, unknown kind, bad values
        assert!(parse(r#"{"kind": "keceli-grouped", "gama": 0.5}"#).unwrap_err().contains("gama"));
        assert!(parse(r#"{"kind": "blue"}"#).is_err());
        assert!(parse(r#"{"kind": "cake-ack", "mode": "wild"}"#).is_err());
        let bad = |s: &str| parse(s).unwrap().validate(50).unwrap_err().to_string();
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
        let e = parse(r#"{"kind": "drop-tail"}"#).unwrap().validate(0).unwrap_err();
        assert_eq!(e.to_string(), "capacity: must be positive");
        assert_eq!(e.under("ap.qdisc").to_string(), "ap.qdisc.capacity: must be positive");
    }

    /// The rows of the qdisc table, as the key reference lists them: the
    /// tag, then each kind's keys; a key several kinds declare alike is one
    /// row naming them all.
    #[test]
    fn rows_are_derived_and_merged() {
        let rows = QdiscConfig::keys();
        assert_eq!(rows[0].path, "kind");
        assert_eq!(rows[0].default, "\"drop-tail\"");
        assert_eq!(rows[0].doc, format!("{}.", QdiscConfig::KINDS.join(", ")));
        let when = |path: &str| -> Vec<Vec<&str>> {
            rows.iter().filter(|k| k.path == path).map(|k| k.when.to_vec()).collect()
        };
        assert_eq!(when("target_ms"), [vec!["codel", "fq-codel", "airtime"], vec!["dualpi2"], vec!["cake"]]);
        assert_eq!(when("flows"), [vec!["fq-codel", "airtime"], vec!["cake"]]);
        assert_eq!(when("alpha"), [vec!["keceli-sorted", "keceli-grouped"], vec!["dualpi2"]]);
        assert_eq!(when("c"), [vec!["keceli-sorted", "keceli-grouped"], vec!["vbs"]]);
        // airtime's FQ-CoDel keys are fq-codel's rows (but the quantum)
        let fq = crate::fq_codel::FqCodelConfig::keys();
        for k in crate::airtime::AirtimeConfig::keys() {
            if let Some(f) = fq.iter().find(|f| f.path == k.path) {
                assert_eq!(format!("{f:?}"), format!("{k:?}"), "{}", k.path);
            }
        }
        let c = rows.iter().find(|k| k.path == "c" && k.when.contains(&"keceli-grouped")).unwrap();
        assert_eq!((c.ty, c.default), (wifitcp_core::schema::Ty::Ints, "[2,6,12,16,20]"));
    }

    /// Every explicit default text that is JSON agrees with the struct's
    /// default (derived texts agree by construction).
    #[test]
    fn explicit_default_texts_agree_with_the_defaults() {
        struct Check;
        impl wifitcp_core::config::KindVisitor for Check {
            type Out = Result<(), String>;
            fn visit<T: serde::de::DeserializeOwned + serde::Serialize + Default + ConfigTable>(self) -> Self::Out {
                explicit_defaults_agree::<T>()
            }
        }
        for &kind in QdiscConfig::KINDS {
            assert_eq!(QdiscConfig::visit(kind, Check), Some(Ok(())), "{kind}");
        }
    }
}
