//! `[[traffic]]`: the scenario section of flows, its serde shape and its
//! checks, beside the applications that read it. A UDP entry's `pattern`
//! names one of the applications registered in [`super::APPS`]; the keys
//! every entry has are [`KEYS`], the keys of one application are in its
//! descriptor, and [`keys`] joins them into the section's key table
//! (mounted at `traffic[]` by `crate::config::schema`).
//!
//! Invariant: a pattern that deserialises names a registered application
//! (an unknown name is serde's "unknown variant" error listing them all).
use serde::{Deserialize, Serialize};
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{k, r, Key, SIM_S};

use super::{App, APPS};
use crate::config::{NodeKind, Scenario, TcpSection};

/// The application of a UDP flow (`traffic.pattern`): a registered
/// [`App`], written as its name.
#[derive(Clone, Copy)]
pub struct Pattern(&'static App);

impl Pattern {
    /// The registered application called `name`.
    pub fn named(name: &str) -> Option<Pattern> {
        APPS.iter().find(|a| a.name == name).map(Pattern)
    }
    /// The scenario's spelling.
    pub fn name(self) -> &'static str {
        self.0.name
    }
    /// The application's descriptor.
    pub fn app(self) -> &'static App {
        self.0
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.0.name == other.0.name
    }
}
impl Eq for Pattern {}

impl std::fmt::Debug for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pattern({:?})", self.0.name)
    }
}

impl Serialize for Pattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name)
    }
}

/// The registered names, in registration order (for serde's message).
fn names() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| APPS.iter().map(|a| a.name).collect())
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        // A name, or serde's externally tagged form of a unit variant
        // (`{"name": null}`, JSON only), which the derived enum accepted.
        let name = match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => s,
            serde_json::Value::Object(m) if m.len() == 1 => {
                let (s, v) = m.into_iter().next().expect("one entry");
                if Pattern::named(&s).is_some() && !v.is_null() {
                    return Err(D::Error::custom(format!("{s}: invalid type: {v}, expected unit")));
                }
                s
            }
            // serde_json's words for a non-string where it expects a unit variant
            _ => return Err(D::Error::custom("expected value")),
        };
        Pattern::named(&name).ok_or_else(|| D::Error::unknown_variant(&name, names()))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrafficKind {
    Udp,
    /// A bulk TCP transfer (infinite, or `bytes` long).
    Tcp,
}

/// Distribution of the on and off periods of an on-off source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnOffDistribution {
    /// Exponential with means `on_s`, `off_s`.
    Exponential,
    /// Exactly `on_s`, `off_s`.
    Fixed,
}
fn d_onoff() -> OnOffDistribution {
    OnOffDistribution::Exponential
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Station to peer.
    Uplink,
    /// Peer to station.
    Downlink,
}

/// `[[traffic]]`: one flow per selected station.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Traffic {
    pub name: String,
    pub kind: TrafficKind,
    #[serde(default = "d_pattern")]
    pub pattern: Pattern,
    #[serde(default = "d_dir")]
    pub direction: Direction,
    /// "all" or a list of station indices (0-based).
    #[serde(default = "d_all")]
    pub stations: serde_json::Value,
    /// MSDU bytes: LLC/SNAP (8) + IPv4 (20) + UDP (8) + payload.
    #[serde(default = "d_msdu")]
    pub msdu_bytes: u32,
    /// Offered load per flow in MSDU Mbit/s (cbr, poisson).
    #[serde(default)]
    pub rate_mbps: Option<f64>,
    #[serde(default)]
    pub start_s: f64,
    /// The k-th selected station's flow starts at start_s + k * start_stagger_s.
    #[serde(default)]
    pub start_stagger_s: f64,
    #[serde(default)]
    pub stop_s: Option<f64>,
    /// The other end: "ap" (default) or a wired host's name; or a list of
    /// names, the k-th for the k-th selected station (per-flow paths, e.g.
    /// unequal RTTs).
    #[serde(default)]
    pub peer: Option<serde_json::Value>,
    /// TCP: bytes to transfer (default: infinite).
    #[serde(default)]
    pub bytes: Option<u64>,
    /// TCP settings overriding `[tcp]`.
    #[serde(default)]
    pub tcp: Option<TcpSection>,
    /// on-off: mean (or fixed) on and off periods, seconds.
    #[serde(default)]
    pub on_s: Option<f64>,
    #[serde(default)]
    pub off_s: Option<f64>,
    #[serde(default = "d_onoff")]
    pub on_off_distribution: OnOffDistribution,
    /// game, ping: interval between datagrams (default: see `apps`).
    #[serde(default)]
    pub interval_ms: Option<f64>,
    /// game, ping: UDP payload bytes (default: see `apps`).
    #[serde(default)]
    pub payload_bytes: Option<u32>,
    /// trace: the file of (time, size) pairs (docs/scenarios.md).
    #[serde(default)]
    pub trace_file: Option<String>,
}
fn d_pattern() -> Pattern {
    Pattern::named("saturated").expect("registered")
}
fn d_dir() -> Direction {
    Direction::Uplink
}
pub(crate) fn d_all() -> serde_json::Value {
    serde_json::Value::String("all".into())
}
fn d_msdu() -> u32 {
    1500
}

/// Smallest MSDU that holds LLC/SNAP + IPv4 + UDP headers.
pub const MIN_UDP_MSDU: u32 = 8 + 20 + 8;

impl Traffic {
    /// The peer of each of `count` selected stations.
    pub fn peers(&self, count: usize, path: &str) -> Result<Vec<String>, String> {
        match &self.peer {
            None => Ok(vec!["ap".to_string(); count]),
            Some(serde_json::Value::String(s)) => Ok(vec![s.clone(); count]),
            Some(serde_json::Value::Array(a)) => {
                if a.len() < count {
                    return Err(format!("{path}.peer: {} peers listed for {count} stations", a.len()));
                }
                a.iter()
                    .take(count)
                    .enumerate()
                    .map(|(i, v)| {
                        v.as_str()
                            .map(str::to_string)
                            .ok_or_else(|| format!("{path}.peer[{i}]: expected a node name, got {v}"))
                    })
                    .collect()
            }
            Some(other) => Err(format!("{path}.peer: expected a node name or a list of names, got {other}")),
        }
    }

    /// Selected station indices (0-based), validated against `n`.
    pub fn station_list(&self, n: u32, path: &str) -> Result<Vec<u32>, String> {
        Self::stations_of(&self.stations, n, path)
    }

    /// The station indices of a `stations` key ("all" or indices).
    pub fn stations_of(stations: &serde_json::Value, n: u32, path: &str) -> Result<Vec<u32>, String> {
        match stations {
            serde_json::Value::String(s) if s == "all" => Ok((0..n).collect()),
            serde_json::Value::Array(a) => {
                let mut v = Vec::new();
                for (i, x) in a.iter().enumerate() {
                    let k =
                        x.as_u64().ok_or_else(|| format!("{path}.stations[{i}]: expected a station index, got {x}"))?;
                    if k >= n as u64 {
                        return Err(format!("{path}.stations[{i}]: station {k} does not exist (wlan.stations = {n})"));
                    }
                    v.push(k as u32);
                }
                Ok(v)
            }
            other => Err(format!("{path}.stations: expected \"all\" or a list of station indices, got {other}")),
        }
    }
}

/// Check the `[[traffic]]` entries of `s`; errors are "traffic[i].key: reason".
pub fn validate(s: &Scenario) -> Result<(), String> {
    let n = s.wlan.stations;
    let mut names = std::collections::HashSet::new();
    for (i, tr) in s.traffic.iter().enumerate() {
        let p = format!("traffic[{i}]");
        if tr.name.is_empty() || tr.name.contains('/') {
            return Err(format!("{p}.name: must be non-empty and contain no '/'"));
        }
        if !names.insert(tr.name.clone()) {
            return Err(format!("{p}.name: duplicate traffic name {:?}", tr.name));
        }
        tr.station_list(n, &p)?;
        let count = tr.station_list(n, &p)?.len();
        for peer in tr.peers(count, &p)? {
            match s.node_kind(&peer) {
                Some(None) | Some(Some(NodeKind::Host)) => {}
                Some(Some(NodeKind::Router)) => return Err(format!("{p}.peer: {peer:?} is a router, not a host")),
                None => return Err(format!("{p}.peer: no node named {peer:?} (\"ap\" or a [[nodes]] name)")),
            }
        }
        if !(tr.start_stagger_s.is_finite() && tr.start_stagger_s >= 0.0) {
            return Err(format!("{p}.start_stagger_s: must be >= 0"));
        }
        if let Some(stop) = tr.stop_s {
            // every flow of the entry starts before it stops (a flow
            // stopped before it starts has no meaning)
            let last = tr.start_s + count.saturating_sub(1) as f64 * tr.start_stagger_s;
            if stop <= last && count > 1 {
                return Err(format!(
                    "{p}.stop_s: {stop} s is not after the last flow's start, start_s + ({count} - 1) * \
                     start_stagger_s = {last} s"
                ));
            }
        }
        match tr.kind {
            TrafficKind::Tcp => {
                if tr.rate_mbps.is_some() {
                    return Err(format!("{p}.rate_mbps: TCP flows are window-limited; no rate"));
                }
                super::reject_udp_keys(tr, &p)?;
                if tr.peers(count, &p)?.iter().any(|x| x == "ap") {
                    return Err(format!("{p}.peer: a TCP flow needs a wired host as peer (the AP only bridges)"));
                }
                let t = tr.tcp.clone().unwrap_or_default().over(&s.tcp);
                wifitcp_tcp::scenario::build(&t).map_err(|e| format!("{p}.tcp.{e}"))?;
                continue;
            }
            TrafficKind::Udp => {
                if tr.tcp.is_some() || tr.bytes.is_some() {
                    return Err(format!("{p}: tcp settings and bytes apply to TCP flows only"));
                }
            }
        }
        if tr.msdu_bytes < MIN_UDP_MSDU || tr.msdu_bytes > 2304 {
            return Err(format!(
                "{p}.msdu_bytes: must be in {MIN_UDP_MSDU}..=2304 (802.11 maximum MSDU), got {}",
                tr.msdu_bytes
            ));
        }
        super::check(tr, &p)?;
        if !(tr.start_s.is_finite() && tr.start_s >= 0.0) {
            return Err(format!("{p}.start_s: must be >= 0"));
        }
        if let Some(s) = tr.stop_s {
            if !(s.is_finite() && s > tr.start_s) {
                return Err(format!("{p}.stop_s: must be after start_s"));
            }
        }
    }
    Ok(())
}

/// The keys of an entry that only some applications read, each with
/// whether `tr` sets it (a key set for an application that does not read
/// it is an error naming the applications that do; TCP entries set none).
pub fn app_keys_set(tr: &Traffic) -> [(&'static str, bool); 5] {
    [
        ("on_s", tr.on_s.is_some()),
        ("off_s", tr.off_s.is_some()),
        ("interval_ms", tr.interval_ms.is_some()),
        ("payload_bytes", tr.payload_bytes.is_some()),
        ("trace_file", tr.trace_file.is_some()),
    ]
}

/// `interval_ms` and `payload_bytes`, shared by the periodic applications
/// of a fixed datagram size (game, ping).
pub fn check_interval_payload(tr: &Traffic, path: &str) -> Result<(), String> {
    if let Some(x) = tr.interval_ms {
        if !(x.is_finite() && x > 0.0) {
            return Err(format!("{path}.interval_ms: must be positive, got {x}"));
        }
    }
    if let Some(b) = tr.payload_bytes {
        if b + super::UDP_OVERHEAD > 2304 {
            return Err(format!(
                "{path}.payload_bytes: at most {} (an MSDU of at most 2304 bytes), got {b}",
                2304 - super::UDP_OVERHEAD
            ));
        }
    }
    Ok(())
}

/// The keys of every entry (relative to `traffic[]`). The `pattern` row's
/// doc is written by [`keys`] from the registered names.
static KEYS: &[Key] = &[
    k("name", Str, "required", None, "", "Flow name (unique, no '/')."),
    k("kind", Str, "required", None, "", "\"udp\" or \"tcp\"."),
    k("pattern", Str, "\"saturated\"", None, "", ""),
    k("direction", Str, "\"uplink\"", None, "", "\"uplink\" or \"downlink\"."),
    k("stations", Any, "\"all\"", r(In(0.0), In(99999.0)), "station index", "\"all\" or 0-based indices."),
    k(
        "msdu_bytes",
        Int,
        "1500",
        r(In(36.0), In(2304.0)),
        "bytes",
        "UDP MSDU (802.11 maximum 2304); trace: the largest datagram; not read by game and ping.",
    ),
    k(
        "rate_mbps",
        Float,
        "required for cbr, poisson, on-off",
        r(Ex(0.0), In(1e4)),
        "Mbit/s",
        "Offered load per flow, at most 10 Gbit/s (a packet interval of at least 28.8 ns).",
    ),
    k("start_s", Float, "0.0", SIM_S, "s", "Start of the first flow."),
    k("start_stagger_s", Float, "0.0", SIM_S, "s", "k-th station's flow starts k * this later."),
    k("stop_s", Float, "none", r(Ex(0.0), In(1e6)), "s", "Stop; after start_s."),
    k("peer", Any, "\"ap\"", None, "", "Other end: a node name or one per station."),
    k("bytes", Int, "infinite", r(In(1.0), In(1e15)), "bytes", "TCP: bytes to transfer."),
    k("tcp", Table, "[tcp]", None, "", "TCP settings overriding [tcp] (the tcp.* keys)."),
];

/// Keys several applications read (listed in [`App::reads`]; checked by
/// [`check_interval_payload`]).
static SHARED: &[Key] = &[
    k(
        "interval_ms",
        Float,
        "game 60 up / 50 down; ping 1000",
        r(In(0.001), In(1e9)),
        "ms",
        "game, ping: time between datagrams (game: paper 002; ping: ping(8)).",
    ),
    k(
        "payload_bytes",
        Int,
        "game 42 up / 200 down; ping 56",
        r(In(0.0), In(2268.0)),
        "bytes",
        "game, ping: UDP payload (game: paper 002; ping: ping(8)).",
    ),
];

/// The key table of `[[traffic]]`, relative to `traffic[]`: [`KEYS`], then
/// for each registered application in order the [`SHARED`] keys it reads
/// that no earlier one did, and its own keys.
pub fn keys() -> &'static [Key] {
    static ALL: std::sync::OnceLock<Vec<Key>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let quoted: Vec<String> = names().iter().map(|n| format!("{n:?}")).collect();
        let list = match quoted.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => quoted.join(""),
        };
        let doc: &'static str =
            Box::leak(format!("UDP: {list} (docs/scenarios.md, \"Applications\").").into_boxed_str());
        let mut v: Vec<Key> =
            KEYS.iter().map(|key| if key.path == "pattern" { Key { doc, ..*key } } else { *key }).collect();
        for app in APPS {
            for key in SHARED.iter().filter(|k| app.reads.contains(&k.path)) {
                if !v.iter().any(|x| x.path == key.path) {
                    v.push(*key);
                }
            }
            v.extend(app.keys.iter().copied());
        }
        v
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
    }

    #[test]
    fn the_registry_is_consistent() {
        let mut seen = Vec::new();
        for app in APPS {
            assert!(!seen.contains(&app.name), "{} registered twice", app.name);
            seen.push(app.name);
            assert_eq!(Pattern::named(app.name).map(Pattern::name), Some(app.name));
            for key in app.reads {
                let row = SHARED.iter().chain(app.keys).any(|k| k.path == *key);
                assert!(row, "{}: reads {key} but no shared or own row lists it", app.name);
            }
        }
        for (key, _) in app_keys_set(&udp("").unwrap().traffic[0]) {
            assert!(APPS.iter().any(|a| a.reads.contains(&key)), "{key}: read by no application");
        }
        let doc = keys().iter().find(|k| k.path == "pattern").unwrap().doc;
        assert_eq!(
            doc,
            "UDP: \"saturated\", \"cbr\", \"poisson\", \"on-off\", \"game\", \"trace\" or \"ping\" \
             (docs/scenarios.md, \"Applications\")."
        );
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
        assert_eq!(e, "traffic[0].rate_mbps: not used by pattern ping");
        let e = udp(r#", "rate_mbps": 1"#).unwrap_err();
        assert_eq!(e, "traffic[0].rate_mbps: not used by a saturated source");
        let e = udp(r#", "pattern": "poisson""#).unwrap_err();
        assert_eq!(e, "traffic[0].rate_mbps: required for pattern poisson");
        let e = udp(r#", "pattern": "trace""#).unwrap_err();
        assert_eq!(e, "traffic[0].trace_file: required for pattern trace");
        let s = udp(r#", "pattern": "on-off", "rate_mbps": 1, "on_s": 1, "off_s": 2"#).unwrap();
        assert_eq!(s.traffic[0].pattern.name(), "on-off");
        assert!(s.normalized_json().contains(r#""pattern":"on-off""#));
    }
}
