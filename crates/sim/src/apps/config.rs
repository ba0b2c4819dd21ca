//! `[[traffic]]`: the scenario section of flows. An entry's keys are those
//! every entry has ([`TrafficCommon`]), then `pattern` and the keys of the
//! UDP application it names, one flat table: `pattern` selects one of the
//! applications registered in [`super::AppConfig`], each with its table
//! struct in its file. Both parts derive their key rows from their
//! declarations; [`keys`] joins them into the section's key table (mounted
//! at `traffic[]` by `crate::config::schema`).
//!
//! Invariants: a pattern that deserialises names a registered application
//! (an unknown name is serde's "unknown variant" error listing them all);
//! each key is read into exactly one of the two parts; a key of another
//! application (or any application's key in a TCP entry) is an error
//! naming who reads it, checked on the document by `crate::config::schema`
//! before serde reads it.
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wifitcp_core::config::{ConfigTable, KeyType};
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{r, Key, Ty, SIM_S};
use wifitcp_core::ConfigError;

use super::AppConfig;
use crate::config::{NodeKind, Scenario, TcpSection};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrafficKind {
    Udp,
    /// A bulk TCP transfer (infinite, or `bytes` long).
    Tcp,
}

/// Distribution of the on and off periods of an on-off source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum OnOffDistribution {
    /// Exponential with means `on_s`, `off_s`.
    #[default]
    Exponential,
    /// Exactly `on_s`, `off_s`.
    Fixed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Station to peer.
    Uplink,
    /// Peer to station.
    Downlink,
}

wifitcp_core::config_table! {
    /// The keys of every `[[traffic]]` entry: one flow per selected
    /// station.
    #[serde(deny_unknown_fields)]
    pub struct TrafficCommon {
        /// Flow name (unique, no '/').
        #[key(default = "required")]
        pub name: String = String::new(),
        /// "udp" or "tcp".
        #[key(default = "required")]
        pub kind: TrafficKind = TrafficKind::Udp,
        /// "uplink" or "downlink".
        pub direction: Direction = Direction::Uplink,
        /// "all", 0-based indices, or a share "from..to" of the stations.
        ///
        /// `"0.0..0.3"`: the stations of index round(from n) up to
        /// round(to n) (excluded), n = `wlan.stations`: a class of
        /// stations; entries with adjacent shares split the stations
        /// without gap or overlap (a traffic mix). A `[deployment]` places
        /// stations independently of their index, so a share of them is
        /// spread over the whole floor.
        #[key(range = r(In(0.0), In(99999.0)), unit = "station index")]
        pub stations: Value = d_all(),
        /// UDP MSDU (802.11 maximum 2304); trace: the largest datagram; not read by game and ping.
        ///
        /// LLC/SNAP (8) + IPv4 (20) + UDP (8) + payload.
        #[key(range = r(In(36.0), In(2304.0)), unit = "bytes")]
        pub msdu_bytes: u32 = 1500,
        /// Start of the first flow.
        #[key(range = SIM_S, unit = "s")]
        pub start_s: f64 = 0.0,
        /// k-th station's flow starts k * this later.
        #[key(range = SIM_S, unit = "s")]
        pub start_stagger_s: f64 = 0.0,
        /// Stop; after start_s.
        #[key(range = r(Ex(0.0), In(1e6)), unit = "s", default = "none")]
        pub stop_s: Option<f64> = None,
        /// Other end: a node name or one per station.
        ///
        /// "ap" (default: AP 0, named "ap"), another AP ("ap1", ...), a
        /// wired host's name, or "own_ap" (each station's own AP, the one
        /// `wlan.association` or a `[deployment]` gives it); or a list of
        /// names, the k-th for the k-th selected station (per-flow paths,
        /// e.g. unequal RTTs).
        #[key(default = "\"ap\"")]
        pub peer: Option<Value> = None,
        /// TCP: bytes to transfer.
        #[key(range = r(In(1.0), In(1e15)), unit = "bytes", default = "infinite")]
        pub bytes: Option<u64> = None,
        /// DSCP of the flow's packets, both directions (RFC 2474; 0: best effort).
        ///
        /// Under `mac.kind = "edca"` RFC 8325 maps it to the MSDUs' user
        /// priority (EF 6, AF4x 4, CS1 1, ...), which picks their TID and
        /// access category (802.11-2020 Table 10-1: 1, 2 background; 0, 3
        /// best effort; 4, 5 video; 6, 7 voice); the DCF has one queue.
        #[key(range = r(In(0.0), In(63.0)))]
        pub dscp: u8 = 0,
        /// TCP settings overriding [tcp] (the tcp.* keys).
        #[key(default = "[tcp]")]
        pub tcp: Option<TcpSection> = None,
    }
}

/// `[[traffic]]`: the keys every entry has, then its application (`pattern`
/// with the application's keys; a TCP entry's is the default, unread),
/// written as one flat table.
#[derive(Clone, Debug, PartialEq)]
pub struct Traffic {
    pub common: TrafficCommon,
    pub app: AppConfig,
}

impl crate::config::flat::Kinds for AppConfig {
    const TAG: &'static str = "pattern";
    fn kinds() -> &'static [&'static str] {
        AppConfig::KINDS
    }
    fn reread(kind: &str, table: Value) -> Option<(String, String)> {
        AppConfig::visit(kind, crate::config::flat::Reread(table)).flatten()
    }
}

impl<'de> Deserialize<'de> for Traffic {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (common, app) = crate::config::flat::deserialize(d, &["name", "kind"])?;
        Ok(Traffic { common, app })
    }
}

impl Serialize for Traffic {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::config::flat::serialize(&self.common, &self.app, s)
    }
}

/// Where in a `[[traffic]]` entry (the document's table `t`) a
/// deserialisation error lies: (the key's path inside the entry, the
/// message).
pub(crate) fn locate_error(t: &Value) -> Option<(String, String)> {
    crate::config::flat::locate_error::<TrafficCommon, AppConfig>(t)
}

pub(crate) fn d_all() -> Value {
    Value::String("all".into())
}

impl KeyType for TrafficKind {
    const TY: Ty = Ty::Str;
}
impl KeyType for Direction {
    const TY: Ty = Ty::Str;
}
impl KeyType for OnOffDistribution {
    const TY: Ty = Ty::Str;
}

/// Smallest MSDU that holds LLC/SNAP + IPv4 + UDP headers.
pub const MIN_UDP_MSDU: u32 = 8 + 20 + 8;

impl Traffic {
    /// The peer of each of `count` selected stations, as written
    /// ([`OWN_AP`] not yet resolved: `Scenario::flow_peers`).
    pub fn peers(&self, count: usize, path: &str) -> Result<Vec<String>, ConfigError> {
        match &self.common.peer {
            None => Ok(vec!["ap".to_string(); count]),
            Some(serde_json::Value::String(s)) => Ok(vec![s.clone(); count]),
            Some(serde_json::Value::Array(a)) => {
                if a.len() < count {
                    return Err(ConfigError::new(
                        format!("{path}.peer"),
                        format!("{} peers listed for {count} stations", a.len()),
                    ));
                }
                // (sized up front: a `Result` collect would grow the list by
                // doubling, and a campus's lists are tens of thousands long)
                let mut names = Vec::with_capacity(count);
                for (i, v) in a.iter().take(count).enumerate() {
                    names.push(v.as_str().map(str::to_string).ok_or_else(|| {
                        ConfigError::new(format!("{path}.peer[{i}]"), format!("expected a node name, got {v}"))
                    })?);
                }
                Ok(names)
            }
            Some(other) => Err(ConfigError::new(
                format!("{path}.peer"),
                format!("expected a node name or a list of names, got {other}"),
            )),
        }
    }

    /// Selected station indices (0-based), validated against `n`.
    pub fn station_list(&self, n: u32, path: &str) -> Result<Vec<u32>, ConfigError> {
        Self::stations_of(&self.common.stations, n, path)
    }

    /// The station indices of a `stations` key ("all", indices, or a share
    /// "from..to").
    pub fn stations_of(stations: &serde_json::Value, n: u32, path: &str) -> Result<Vec<u32>, ConfigError> {
        match stations {
            serde_json::Value::String(s) if s == "all" => Ok((0..n).collect()),
            // a share of the stations, "from..to"
            serde_json::Value::String(x) if x.contains("..") => {
                let bad = |why: String| ConfigError::new(format!("{path}.stations"), why);
                let (from, to) = x.split_once("..").expect("contains ..");
                let share =
                    |t: &str| {
                        t.trim().parse::<f64>().ok().filter(|v| (0.0..=1.0).contains(v)).ok_or_else(|| {
                            bad(format!("{x:?}: expected \"from..to\" with shares in [0, 1], got {t:?}"))
                        })
                    };
                let (from, to) = (share(from)?, share(to)?);
                if from >= to {
                    return Err(bad(format!("{x:?}: the share is empty ({from} is not below {to})")));
                }
                let at = |v: f64| (v * f64::from(n)).round() as u32;
                Ok((at(from)..at(to)).collect())
            }
            serde_json::Value::Array(a) => {
                let mut v = Vec::new();
                for (i, x) in a.iter().enumerate() {
                    let k = x.as_u64().ok_or_else(|| {
                        ConfigError::new(format!("{path}.stations[{i}]"), format!("expected a station index, got {x}"))
                    })?;
                    if k >= n as u64 {
                        return Err(ConfigError::new(
                            format!("{path}.stations[{i}]"),
                            format!("station {k} does not exist (wlan.stations = {n})"),
                        ));
                    }
                    v.push(k as u32);
                }
                Ok(v)
            }
            other => Err(ConfigError::new(
                format!("{path}.stations"),
                format!("expected \"all\", a list of station indices or a share \"from..to\", got {other}"),
            )),
        }
    }
}

/// `traffic.peer = "own_ap"`: each selected station's own AP.
pub const OWN_AP: &str = "own_ap";

/// Check the `[[traffic]]` entries of `s`; errors are "traffic[i].key: reason".
pub fn validate(s: &Scenario) -> Result<(), ConfigError> {
    let mut names = std::collections::HashSet::new();
    for (i, entry) in s.traffic.iter().enumerate() {
        let p = format!("traffic[{i}]");
        let tr = &entry.common;
        if tr.name.is_empty() || tr.name.contains('/') {
            return Err(ConfigError::new(format!("{p}.name"), "must be non-empty and contain no '/'"));
        }
        if !names.insert(tr.name.clone()) {
            return Err(ConfigError::new(format!("{p}.name"), format!("duplicate traffic name {:?}", tr.name)));
        }
        let peers = s.flow_peers(entry, &p)?;
        let count = peers.len();
        for peer in peers.iter().map(|(_, x)| x) {
            match s.node_kind(peer) {
                Some(None) | Some(Some(NodeKind::Host)) => {}
                Some(Some(NodeKind::Router)) => {
                    return Err(ConfigError::new(format!("{p}.peer"), format!("{peer:?} is a router, not a host")))
                }
                None => {
                    return Err(ConfigError::new(
                        format!("{p}.peer"),
                        format!("no node named {peer:?} (\"ap\" or a [[nodes]] name)"),
                    ))
                }
            }
        }
        if !(tr.start_stagger_s.is_finite() && tr.start_stagger_s >= 0.0) {
            return Err(ConfigError::new(format!("{p}.start_stagger_s"), "must be >= 0"));
        }
        if !(tr.start_s.is_finite() && tr.start_s >= 0.0) {
            return Err(ConfigError::new(format!("{p}.start_s"), "must be >= 0"));
        }
        if let Some(stop) = tr.stop_s {
            if !(stop.is_finite() && stop > tr.start_s) {
                return Err(ConfigError::new(format!("{p}.stop_s"), "must be after start_s"));
            }
            // every flow of the entry starts before it stops (a flow
            // stopped before it starts has no meaning)
            let last = tr.start_s + count.saturating_sub(1) as f64 * tr.start_stagger_s;
            if stop <= last && count > 1 {
                return Err(ConfigError::new(
                    format!("{p}.stop_s"),
                    format!(
                        "{stop} s is not after the last flow's start, start_s + ({count} - 1) * \
                     start_stagger_s = {last} s"
                    ),
                ));
            }
        }
        match tr.kind {
            TrafficKind::Tcp => {
                if entry.app != AppConfig::default() {
                    return Err(ConfigError::new(format!("{p}.pattern"), "applies to UDP flows only"));
                }
                if peers.iter().any(|(_, x)| s.node_kind(x) == Some(None)) {
                    return Err(ConfigError::new(
                        format!("{p}.peer"),
                        "a TCP flow needs a wired host as peer (the AP only bridges)",
                    ));
                }
                let t = tr.tcp.clone().unwrap_or_default().over(&s.tcp);
                wifitcp_tcp::scenario::build(&t).map_err(|e| e.under(&format!("{p}.tcp")))?;
                continue;
            }
            TrafficKind::Udp => {
                if tr.tcp.is_some() || tr.bytes.is_some() {
                    return Err(ConfigError::new(p.to_string(), "tcp settings and bytes apply to TCP flows only"));
                }
            }
        }
        if tr.msdu_bytes < MIN_UDP_MSDU || tr.msdu_bytes > 2304 {
            return Err(ConfigError::new(
                format!("{p}.msdu_bytes"),
                format!("must be in {MIN_UDP_MSDU}..=2304 (802.11 maximum MSDU), got {}", tr.msdu_bytes),
            ));
        }
        super::check(entry, &p)?;
    }
    Ok(())
}

/// The key table of `[[traffic]]`, relative to `traffic[]`: `pattern`
/// (its text lists the registered applications), the keys every entry has
/// ([`TrafficCommon`]), then each application's rows (`when` names the
/// applications that read a row).
pub fn keys() -> &'static [Key] {
    static ALL: std::sync::OnceLock<Vec<Key>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let rows = AppConfig::keys();
        let mut v: Vec<Key> = TrafficCommon::keys().to_vec();
        v.insert(2, rows[0]);
        v.extend_from_slice(&rows[1..]);
        v
    })
}

/// The reason an application's key is refused in an entry of kind `kind`
/// ("udp" or "tcp") whose pattern does not read it: "applies to UDP flows
/// only" in a TCP entry, else "used by pattern(s) ... only"; `None` for a
/// key no application reads.
pub fn foreign_key_reason(key: &str, kind: Option<&str>) -> Option<String> {
    let users = AppConfig::keys().iter().skip(1).find(|k| k.path == key)?.when;
    if kind == Some("tcp") {
        return Some(if key == "rate_mbps" {
            "TCP flows are window-limited; no rate".into()
        } else {
            "applies to UDP flows only".into()
        });
    }
    Some(match users.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("used by patterns {} and {last} only", rest.join(", ")),
        _ => format!("used by pattern {} only", users.join("")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn udp(extra: &str) -> Result<Scenario, String> {
        Scenario::from_json(&format!(
            r#"{{"scenario": {{"name": "x"}}, "phy": {{"standard": "802.11b", "data_rate_mbps": 11}},
                "wlan": {{"stations": 1}}, "traffic": [{{"name": "t", "kind": "udp"{extra}}}]}}"#
        ))
        .map_err(|e| e.to_string())
    }

    #[test]
    fn the_registry_is_consistent() {
        assert_eq!(AppConfig::KINDS, ["saturated", "cbr", "poisson", "on-off", "game", "trace", "ping"]);
        assert_eq!(AppConfig::default().kind(), "saturated");
        let doc = keys().iter().find(|k| k.path == "pattern").unwrap().doc;
        assert_eq!(doc, "saturated, cbr, poisson, on-off, game, trace, ping.");
        let row = |p: &str| AppConfig::keys().iter().find(|k| k.path == p).unwrap().when;
        assert_eq!(row("rate_mbps"), ["cbr", "poisson", "on-off"]);
        assert_eq!(row("interval_ms"), ["game", "ping"]);
        for k in AppConfig::keys().iter().skip(1) {
            assert!(!TrafficCommon::keys().iter().any(|c| c.path == k.path), "{}: common and an application's", k.path);
        }
    }

    #[test]
    fn patterns_and_their_keys_are_checked_by_the_registry() {
        let e = udp(r#", "pattern": "video""#).unwrap_err();
        assert_eq!(
            e,
            "traffic[0].pattern: unknown variant `video`, expected one of `saturated`, `cbr`, `poisson`, `on-off`, \
             `game`, `trace`, `ping`"
        );
        let e = udp(r#", "pattern": "cbr", "rate_mbps": 1, "interval_ms": 5"#).unwrap_err();
        assert_eq!(e, "traffic[0].interval_ms: used by patterns game and ping only");
        let e = udp(r#", "pattern": "game", "on_s": 1"#).unwrap_err();
        assert_eq!(e, "traffic[0].on_s: used by pattern on-off only");
        let e = udp(r#", "pattern": "on-off", "rate_mbps": 1, "on_s": 1"#).unwrap_err();
        assert_eq!(e, "traffic[0].off_s: required for pattern on-off");
        let e = udp(r#", "pattern": "ping", "rate_mbps": 1"#).unwrap_err();
        assert_eq!(e, "traffic[0].rate_mbps: used by patterns cbr, poisson and on-off only");
        let e = udp(r#", "pattern": "poisson""#).unwrap_err();
        assert_eq!(e, "traffic[0].rate_mbps: required for pattern poisson");
        let e = udp(r#", "pattern": "trace""#).unwrap_err();
        assert_eq!(e, "traffic[0].trace_file: required for pattern trace");
        let e = udp(r#", "pattern": "cbr", "rate_mbps": "x""#).unwrap_err();
        assert_eq!(e, "traffic[0].rate_mbps: invalid type: string \"x\", expected f64");
        let e = udp(r#", "direction": "sideways""#).unwrap_err();
        assert!(e.starts_with("traffic[0].direction: unknown variant `sideways`"), "{e}");
        let s = udp(r#", "pattern": "on-off", "rate_mbps": 1, "on_s": 1, "off_s": 2"#).unwrap();
        assert_eq!(s.traffic[0].app.kind(), "on-off");
        assert!(s.normalized_json().contains(r#""pattern":"on-off""#));
        let e = Scenario::from_json(
            r#"{"scenario": {"name": "x"}, "phy": {"standard": "802.11b", "data_rate_mbps": 11},
                "wlan": {"stations": 1}, "traffic": [{"kind": "udp"}]}"#,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(e, "traffic[0]: missing field `name`");
        let back: Traffic = serde_json::from_value(serde_json::to_value(&s.traffic[0]).unwrap()).unwrap();
        assert_eq!(back, s.traffic[0]);
    }

    #[test]
    fn a_tcp_entry_takes_no_application_keys() {
        let tcp = |extra: &str| {
            Scenario::from_json(&format!(
                r#"{{"scenario": {{"name": "x"}}, "phy": {{"standard": "802.11b", "data_rate_mbps": 11}},
                    "wlan": {{"stations": 1}}, "nodes": [{{"name": "h"}}],
                    "links": [{{"a": "ap", "b": "h", "rate_mbps": 100, "delay_ms": 1}}],
                    "traffic": [{{"name": "t", "kind": "tcp", "peer": "h"{extra}}}]}}"#
            ))
            .map_err(|e| e.to_string())
        };
        assert!(tcp("").is_ok());
        assert_eq!(
            tcp(r#", "rate_mbps": 1"#).unwrap_err(),
            "traffic[0].rate_mbps: TCP flows are window-limited; no rate"
        );
        assert_eq!(tcp(r#", "on_s": 1"#).unwrap_err(), "traffic[0].on_s: applies to UDP flows only");
        assert_eq!(
            tcp(r#", "pattern": "cbr", "rate_mbps": 1"#).unwrap_err(),
            "traffic[0].pattern: applies to UDP flows only"
        );
    }
}
