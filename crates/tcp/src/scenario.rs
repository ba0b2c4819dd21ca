//! The `[tcp]` section of a scenario (also `[traffic.tcp]`,
//! `ap.proxy.wired_tcp`, `ap.proxy.wireless_tcp`): its serde shape, its key
//! table, and the step from it to a [`TcpConfig`] and a congestion
//! controller. Unset keys fall back to the scenario's `[tcp]` (see
//! [`TcpSection::over`]), then to the crate's RFC defaults.
//!
//! The section is one table: the keys of [`TcpCommon`], then a table under
//! the name of each registered congestion controller that has keys
//! (`[tcp.vegas]`, `[tcp.compound]`), whatever `cc` selects. The
//! controllers, their names and their tables are registered in
//! [`crate::cc::CcConfig`] (one line each, beside their files); the key
//! rows of both parts derive from their declarations and [`keys`] mounts
//! them.
use crate::cc::{CcConfig, CcName};
use crate::{
    CongestionControl, DelayedAck, InitialWindow, RecoveryVariant, RecvBuffer, TcpConfig, UNSCALED_WINDOW_MAX,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use wifitcp_core::config::{read_table, ConfigError, ConfigTable, KeyType};
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{r, Key, Ty, PKTS, TIMER_MS};
use wifitcp_core::SimDur;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryKind {
    Tahoe,
    Reno,
    NewReno,
    Sack,
}

impl KeyType for RecoveryKind {
    const TY: Ty = Ty::Str;
}

wifitcp_core::config_table! {
    /// The keys of `[tcp]` and `[traffic.tcp]` but the controllers' tables.
    /// Unset keys fall back to the scenario's `[tcp]`, then to the TCP
    /// crate's RFC defaults (see [`TcpConfig`]: MSS 1460, RFC 5681 initial
    /// window, 64 KiB receive buffer, SACK and window scaling on,
    /// timestamps off, delayed ACK every 2nd segment / 200 ms, min RTO 1 s,
    /// NewReno).
    #[serde(deny_unknown_fields)]
    pub struct TcpCommon {
        /// "tahoe", "reno", "newreno" or "sack".
        #[key(default = "\"newreno\"")]
        pub recovery: Option<RecoveryKind> = None,
        /// The congestion controller (its row is [`CcConfig::keys`]'s).
        #[key(default = "the first registered")]
        pub cc: Option<CcName> = None,
        /// Maximum segment size.
        #[key(range = r(In(64.0), In(65495.0)), unit = "bytes", default = "1460")]
        pub mss: Option<u32> = None,
        /// Receive window in segments (ns-2 window_).
        ///
        /// In packets of `mss`, as ns-2's `window_`.
        #[key(range = PKTS, unit = "packets", default = "none")]
        pub rwnd_packets: Option<u32> = None,
        /// Receive window (RFC 7323: < 2^30).
        #[key(range = r(In(1.0), In(1073741824.0)), unit = "bytes", default = "6291456 (65535 without window_scaling)")]
        pub rwnd_bytes: Option<u64> = None,
        /// Initial window.
        #[key(range = r(In(1.0), In(1e4)), unit = "segments", default = "RFC 5681")]
        pub initial_window: Option<u32> = None,
        /// Delayed ACKs (RFC 1122).
        #[key(default = "true")]
        pub delayed_ack: Option<bool> = None,
        /// ACK every n-th segment.
        #[key(range = r(In(1.0), In(1000.0)), unit = "segments", default = "2")]
        pub delayed_ack_count: Option<u32> = None,
        /// Delayed-ACK timer (RFC 1122: <= 500 ms).
        #[key(range = r(Ex(0.0), In(500.0)), unit = "ms", default = "200.0")]
        pub delayed_ack_ms: Option<f64> = None,
        /// SACK (RFC 2018).
        #[key(default = "true")]
        pub sack: Option<bool> = None,
        /// Timestamps (RFC 7323).
        #[key(default = "false")]
        pub timestamps: Option<bool> = None,
        /// Window scaling (RFC 7323).
        #[key(default = "true")]
        pub window_scaling: Option<bool> = None,
        /// Limited transmit (RFC 3042).
        #[key(default = "true")]
        pub limited_transmit: Option<bool> = None,
        /// RACK-TLP loss detection (RFC 8985; Linux's default); needs recovery = "sack".
        #[key(default = "false")]
        pub rack_tlp: Option<bool> = None,
        /// Minimum RTO (RFC 6298).
        #[key(range = TIMER_MS, unit = "ms", default = "1000.0")]
        pub min_rto_ms: Option<f64> = None,
        /// Initial RTO.
        #[key(range = TIMER_MS, unit = "ms", default = "1000.0")]
        pub initial_rto_ms: Option<f64> = None,
        /// Maximum RTO.
        #[key(range = TIMER_MS, unit = "ms", default = "60000.0")]
        pub max_rto_ms: Option<f64> = None,
        /// Record cwnd/ssthresh and the congestion controller's state over time.
        #[key(default = "false")]
        pub trace_cwnd: Option<bool> = None,
        /// Pace data segments (Linux's default rate: 2 or 1.2 x cwnd / SRTT); BBR paces whatever this says.
        #[key(default = "false")]
        pub pacing: Option<bool> = None,
        /// ECN: "off", "classic" (RFC 3168) or "accurate" (RFC 8257 3.2 per-segment echo, for dctcp/prague).
        ///
        /// Both ends negotiate it on the SYN (RFC 3168 6.1.1); with
        /// "accurate" the receiver echoes each data segment's CE state
        /// (DCTCP's echo), not RFC 3168's ECE-until-CWR. New data is sent
        /// ECT(0), or ECT(1) under `cc = "prague"`; queues mark it with
        /// their `ecn` key.
        #[key(default = "\"off\"")]
        pub ecn: Option<crate::ecn::EcnMode> = None,
        /// SYN retransmissions before giving up.
        ///
        /// Default 6, Linux; ns-2 never gives up: use a large value to
        /// model it.
        #[key(range = r(In(0.0), In(1e9)), unit = "retries", default = "6")]
        pub syn_retries: Option<u32> = None,
        /// Consecutive RTOs before aborting.
        ///
        /// Default 15, Linux.
        #[key(range = r(In(1.0), In(1e9)), unit = "RTOs", default = "15")]
        pub max_retransmissions: Option<u32> = None,
    }
}

/// `[tcp]`, `[traffic.tcp]` and the proxies' TCP sections: the keys of
/// [`TcpCommon`] and, under each controller's name, the keys set in its
/// table (whatever `cc` selects), written as one table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpSection {
    pub common: TcpCommon,
    /// The keys set in each controller's table (`[tcp.vegas]`), by name,
    /// as its table struct reads and writes them.
    pub cc_tables: BTreeMap<CcName, Map<String, Value>>,
}

impl TcpCommon {
    fn over(&self, base: &TcpCommon) -> TcpCommon {
        macro_rules! pick {
            ($($f:ident),*) => { TcpCommon { $($f: self.$f.or(base.$f),)* } };
        }
        pick!(
            recovery,
            cc,
            mss,
            rwnd_packets,
            rwnd_bytes,
            initial_window,
            delayed_ack,
            delayed_ack_count,
            delayed_ack_ms,
            sack,
            timestamps,
            window_scaling,
            limited_transmit,
            rack_tlp,
            min_rto_ms,
            initial_rto_ms,
            max_rto_ms,
            trace_cwnd,
            pacing,
            ecn,
            syn_retries,
            max_retransmissions
        )
    }
}

impl TcpSection {
    /// `self` with unset keys taken from `base` (key by key, also inside
    /// the controllers' tables).
    pub fn over(&self, base: &TcpSection) -> TcpSection {
        let mut cc_tables = base.cc_tables.clone();
        for (name, table) in &self.cc_tables {
            let merged = cc_tables.entry(*name).or_default();
            for (k, v) in table {
                merged.insert(k.clone(), v.clone());
            }
        }
        TcpSection { common: self.common.over(&base.common), cc_tables }
    }

    /// The selected controller (`cc`, else the first registered) with its
    /// table: the keys set, the others at their defaults.
    pub fn cc(&self) -> Result<CcConfig, ConfigError> {
        let name = self.common.cc.unwrap_or_default();
        CcConfig::read(name, self.cc_tables.get(&name))
    }

    /// The section's table: its keys split into [`TcpCommon`] and the
    /// controllers' tables. Errors name the key (relative to the section).
    pub fn read(mut table: Map<String, Value>) -> Result<TcpSection, ConfigError> {
        let mut cc_tables = BTreeMap::new();
        for name in CcName::ALL.iter().filter_map(|n| CcName::parse(n)).filter(|n| n.has_table()) {
            match table.remove(name.as_str()) {
                None => {}
                Some(Value::Object(t)) => {
                    cc_tables.insert(name, CcConfig::set_keys(name, &t)?);
                }
                Some(v) => return Err(ConfigError::new(name.as_str(), format!("must be a table, got {v}"))),
            }
        }
        if let Some(key) = table.keys().find(|k| !TcpCommon::keys().iter().any(|c| c.path == k.as_str())) {
            return Err(ConfigError::new(
                "",
                <serde_json::Error as serde::de::Error>::unknown_field(key, section_keys()).to_string(),
            ));
        }
        Ok(TcpSection { common: read_table(Value::Object(table))?, cc_tables })
    }
}

/// The keys a section may hold: [`TcpCommon`]'s, then the names of the
/// controllers with tables.
fn section_keys() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let own = TcpCommon::keys().iter().map(|k| k.path);
        let tables = CcName::ALL.iter().copied().filter(|n| CcName::parse(n).is_some_and(CcName::has_table));
        own.chain(tables).collect()
    })
}

impl<'de> Deserialize<'de> for TcpSection {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        TcpSection::read(Map::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl Serialize for TcpSection {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error;
        let mut out = match serde_json::to_value(&self.common).map_err(S::Error::custom)? {
            Value::Object(m) => m,
            _ => unreachable!("a table"),
        };
        for (name, table) in &self.cc_tables {
            out.insert(name.as_str().to_string(), Value::Object(table.clone()));
        }
        out.serialize(s)
    }
}

/// Where in a TCP section (the document's table `t`) a deserialisation
/// error lies: (the key's path inside the section, the message).
pub fn locate_error(t: &Value) -> Option<(String, String)> {
    let e = TcpSection::read(t.as_object()?.clone()).err()?;
    Some((e.path, e.reason))
}

/// The key table of a TCP section, relative to it: [`TcpCommon`]'s rows,
/// `cc`'s being the registry's (listing the registered names), then each
/// controller's table and keys under its name (`vegas.alpha`).
pub fn keys() -> &'static [Key] {
    static ALL: std::sync::OnceLock<Vec<Key>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let choice = CcConfig::keys();
        let mut v: Vec<Key> =
            TcpCommon::keys().iter().map(|k| if k.path == choice[0].path { choice[0] } else { *k }).collect();
        v.extend_from_slice(&choice[1..]);
        v
    })
}

fn ms(field: &str, x: f64) -> Result<SimDur, ConfigError> {
    if !(x.is_finite() && x > 0.0 && x <= 1e7) {
        return Err(ConfigError::new(field, format!("must be a positive number of milliseconds, got {x}")));
    }
    Ok(SimDur::from_secs_f64(x / 1e3))
}

/// Build the endpoint configuration, checking every key of the section
/// (also the tables of the controllers `cc` does not select); errors name
/// the key relative to the section (`rwnd_bytes`, `vegas.beta`).
pub fn build(t: &TcpSection) -> Result<TcpConfig, ConfigError> {
    let o = &t.common;
    let mut c = TcpConfig::default();
    if let Some(m) = o.mss {
        c.mss = m;
    }
    if let Some(r) = o.recovery {
        c.recovery = match r {
            RecoveryKind::Tahoe => RecoveryVariant::Tahoe,
            RecoveryKind::Reno => RecoveryVariant::Reno,
            RecoveryKind::NewReno => RecoveryVariant::NewReno,
            RecoveryKind::Sack => RecoveryVariant::Sack,
        };
    }
    match (o.rwnd_packets, o.rwnd_bytes) {
        (Some(_), Some(_)) => return Err(ConfigError::new("rwnd_bytes", "set rwnd_packets or rwnd_bytes, not both")),
        (Some(p), None) => {
            if p == 0 {
                return Err(ConfigError::new("rwnd_packets", "must be at least 1"));
            }
            c.recv_buffer = RecvBuffer::Segments(p)
        }
        (None, Some(b)) => c.recv_buffer = RecvBuffer::Bytes(b),
        // The default: Linux's autotuning limit, or without window scaling
        // the largest window the header can carry (`TcpConfig`).
        (None, None) if o.window_scaling == Some(false) => c.recv_buffer = RecvBuffer::Bytes(UNSCALED_WINDOW_MAX),
        (None, None) => {}
    }
    if let Some(w) = o.initial_window {
        if w == 0 {
            return Err(ConfigError::new("initial_window", "must be at least 1 segment"));
        }
        c.initial_window = InitialWindow::Segments(w);
    }
    if o.delayed_ack == Some(false) {
        c.delayed_ack = None;
    } else {
        let mut d = DelayedAck::default();
        if let Some(k) = o.delayed_ack_count {
            d.count = k;
        }
        if let Some(x) = o.delayed_ack_ms {
            d.timeout = ms("delayed_ack_ms", x)?;
        }
        c.delayed_ack = Some(d);
    }
    if let Some(b) = o.sack {
        c.sack = b;
    }
    if let Some(b) = o.timestamps {
        c.timestamps = b;
    }
    if let Some(b) = o.window_scaling {
        c.window_scaling = b;
    }
    if let Some(b) = o.limited_transmit {
        c.limited_transmit = b;
    }
    if let Some(x) = o.min_rto_ms {
        c.min_rto = ms("min_rto_ms", x)?;
    }
    if let Some(x) = o.initial_rto_ms {
        c.initial_rto = ms("initial_rto_ms", x)?;
    }
    if let Some(x) = o.max_rto_ms {
        c.max_rto = ms("max_rto_ms", x)?;
    }
    if let Some(b) = o.trace_cwnd {
        c.trace = b;
    }
    if let Some(e) = o.ecn {
        c.ecn = e;
    }
    if let Some(b) = o.pacing {
        c.pacing = b;
    }
    if let Some(k) = o.syn_retries {
        c.syn_retries = k;
    }
    if let Some(k) = o.max_retransmissions {
        c.max_retransmissions = k;
    }
    for (name, table) in &t.cc_tables {
        CcConfig::read(*name, Some(table))?.get().check().map_err(|e| e.under(name.as_str()))?;
    }
    if let Some(b) = o.rack_tlp {
        c.rack_tlp = b;
    }
    if c.rack_tlp && c.recovery != RecoveryVariant::Sack {
        return Err(ConfigError::new(
            "rack_tlp",
            "RACK-TLP needs recovery = \"sack\" (RFC 8985 section 4: SACK-based)",
        ));
    }
    // Needed for SACK-based recovery to be meaningful.
    if c.recovery == RecoveryVariant::Sack && !c.sack {
        return Err(ConfigError::new("recovery", "\"sack\" needs sack = true"));
    }
    c.validate()?;
    Ok(c)
}

/// A fresh controller for one endpoint. `t` must have passed [`build`],
/// which checks the controllers' tables.
pub fn controller(t: &TcpSection) -> Box<dyn CongestionControl> {
    t.cc().expect("checked by build").get().build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::compound::CompoundConfig;
    use crate::cc::vegas::{VegasConfig, VegasLoss};
    use serde_json::json;
    use wifitcp_core::config::{explicit_defaults_agree, quoted_or};

    fn section(v: Value) -> TcpSection {
        serde_json::from_value(v).unwrap()
    }

    fn table<T: serde::de::DeserializeOwned>(t: &TcpSection, name: CcName) -> T {
        serde_json::from_value(Value::Object(t.cc_tables.get(&name).cloned().unwrap_or_default())).unwrap()
    }

    #[test]
    fn traffic_overrides_merge_key_by_key() {
        let base = section(json!({"compound": {"gamma": 10.0, "zeta": 0.5}, "vegas": {"alpha": 1}}));
        let own = section(json!({"cc": "compound", "compound": {"gamma": 20.0}}));
        let t = own.over(&base);
        let c: CompoundConfig = table(&t, CcName::Compound);
        assert_eq!((c.alpha, c.gamma, c.zeta), (0.125, 20.0, 0.5));
        assert_eq!(t.cc().unwrap(), CcConfig::Compound(c));
        let v: crate::cc::vegas::VegasTable = table(&t, CcName::Vegas);
        let v = VegasConfig::from(&v);
        assert_eq!((v.alpha, v.beta, v.gamma), (1.0, 4.0, 1.0));
        assert_eq!(section(json!({})).cc().unwrap(), CcConfig::default());
        assert_eq!(table::<CompoundConfig>(&section(json!({})), CcName::Compound), CompoundConfig::default());
        assert_eq!(t.common.cc, Some(CcName::Compound));
        assert_eq!(base.over(&own).common.cc, Some(CcName::Compound));
    }

    #[test]
    fn the_section_reads_back_what_it_writes() {
        let t = section(json!({"cc": "vegas", "mss": 1000, "vegas": {"alpha": 1, "loss_response": "brakmo"}}));
        let j = serde_json::to_value(&t).unwrap();
        assert_eq!(j["vegas"], json!({"alpha": 1.0, "loss_response": "brakmo"}));
        assert_eq!((j["cc"].as_str(), j["mss"].as_u64()), (Some("vegas"), Some(1000)));
        assert!(j.get("compound").is_none(), "unset: not written");
        assert_eq!(section(j), t);
        let CcConfig::Vegas(v) = t.cc().unwrap() else { panic!("vegas") };
        assert_eq!(VegasConfig::from(&v).loss_response, VegasLoss::Brakmo);
    }

    #[test]
    fn errors_name_the_key() {
        let err = |v: Value| TcpSection::read(v.as_object().unwrap().clone()).unwrap_err().to_string();
        assert_eq!(err(json!({"vegas": {"alpha": "x"}})), "vegas.alpha: invalid type: string \"x\", expected f64");
        assert!(err(json!({"vegas": {"loss_response": "x"}})).starts_with("vegas.loss_response: unknown variant `x`"));
        assert!(err(json!({"compound": {"kappa": 1}})).starts_with("compound: unknown field `kappa`"));
        assert_eq!(err(json!({"vegas": 3})), "vegas: must be a table, got 3");
        let e = err(json!({"reno": {}}));
        assert!(e.starts_with("unknown field `reno`, expected one of `recovery`, `cc`"), "{e}");
        assert!(e.contains("`vegas`, `cubic`, `compound`"), "{e}");
        assert!(err(json!({"cc": "hybla"})).starts_with("cc: unknown variant `hybla`, expected one of `reno`"));
        assert!(err(json!({"mss": "x"})).starts_with("mss: invalid type"));
        assert_eq!(locate_error(&json!({"vegas": {"gamma": true}})).unwrap().0, "vegas.gamma");
        let bad = |v: Value| build(&section(v)).unwrap_err().to_string();
        assert_eq!(bad(json!({"compound": {"beta": 1.0}})), "compound.beta: must be in (0, 1), got 1");
        assert_eq!(
            bad(json!({"cc": "vegas", "vegas": {"alpha": 5.0}})),
            "vegas.beta: must be at least alpha (5), got 4"
        );
        assert_eq!(bad(json!({"vegas": {"gamma": -1.0}})), "vegas.gamma: must be non-negative, got -1");
        assert_eq!(bad(json!({"rwnd_packets": 0})), "rwnd_packets: must be at least 1");
        assert_eq!(bad(json!({"mss": 10})), "mss: 10 is outside 64..=65495");
    }

    #[test]
    fn the_key_table_mounts_the_registry() {
        let rows = keys();
        let cc = rows.iter().find(|k| k.path == "cc").unwrap();
        assert_eq!((cc.default, cc.doc), ("\"reno\"", format!("{}.", quoted_or(CcName::ALL)).as_str()));
        for name in ["reno", "newreno", "vegas", "cubic", "compound"] {
            assert!(cc.doc.contains(&format!("{name:?}")), "{}", cc.doc);
        }
        let paths: Vec<&str> = rows.iter().map(|k| k.path).collect();
        assert_eq!(paths[..3], ["recovery", "cc", "mss"]);
        let tail = &paths[TcpCommon::keys().len()..];
        assert_eq!(tail[..2], ["vegas", "vegas.alpha"]);
        assert!(tail.contains(&"compound.zeta") && tail.contains(&"vegas.loss_response"));
        for name in CcName::ALL {
            let n = CcName::parse(name).unwrap();
            assert_eq!(paths.contains(name), n.has_table(), "{name}");
            assert_eq!(CcConfig::read(n, None).unwrap().name(), n);
        }
        explicit_defaults_agree::<TcpCommon>().unwrap();
        explicit_defaults_agree::<CompoundConfig>().unwrap();
        explicit_defaults_agree::<crate::cc::vegas::VegasTable>().unwrap();
    }

    #[test]
    fn newreno_is_reno_window_growth() {
        let t = section(json!({"cc": "newreno", "recovery": "sack"}));
        assert_eq!(t.cc().unwrap(), CcConfig::NewReno(crate::cc::reno::RenoTable {}));
        assert_eq!(controller(&t).name(), "reno");
        assert_eq!(build(&t).unwrap().recovery, RecoveryVariant::Sack);
        assert!(TcpSection::read(json!({"newreno": {}}).as_object().unwrap().clone()).is_err());
    }

    #[test]
    fn newreno_alone_is_reno_growth_with_newreno_recovery() {
        // `cc = "newreno"` names NewReno TCP: RFC 5681 window growth (the
        // Reno controller) and RFC 6582 loss recovery, the same endpoint as
        // `cc = "reno"` with `recovery = "newreno"`
        let t = section(json!({"cc": "newreno"}));
        assert_eq!(t.cc().unwrap(), CcConfig::NewReno(crate::cc::reno::RenoTable {}));
        assert_eq!(controller(&t).name(), "reno");
        assert_eq!(build(&t).unwrap().recovery, RecoveryVariant::NewReno);
        let spelled = section(json!({"cc": "reno", "recovery": "newreno"}));
        assert_eq!(build(&t).unwrap().recovery, build(&spelled).unwrap().recovery);
        assert_eq!(controller(&t).name(), controller(&spelled).name());
        // and is refused when misspelt, naming the key
        let bad = TcpSection::read(json!({"cc": "new-reno"}).as_object().unwrap().clone());
        assert!(bad.is_err() || bad.unwrap().cc().is_err());
    }

    #[test]
    fn every_controller_builds_with_its_defaults() {
        for name in CcName::ALL {
            let t = section(json!({ "cc": name }));
            build(&t).unwrap();
            let c = controller(&t);
            assert!(!c.name().is_empty(), "{name}");
        }
    }
}
