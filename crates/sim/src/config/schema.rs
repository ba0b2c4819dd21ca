//! The key table of the scenario schema: every key a scenario may set, with
//! its type, default, physical range and unit.
//!
//! One table serves two purposes:
//!
//! * **Validation.** [`check_ranges`] walks the scenario document (before
//!   it is deserialised) and checks every number against its key's range,
//!   so that a value the core cannot run (a link of 1e-300 Mbit/s, a CBR
//!   source whose packet interval rounds to 0 ns, an airtime quantum of
//!   1e300 us) is one error naming the key, never a panic or a run that
//!   does not end. Inside a queue discipline (`kind`) or a channel
//!   (`model`) table it also reports an unknown key at the key itself.
//! * **Documentation.** [`schema_json`] gives the table as JSON, from which
//!   docs/scenarios.md's key reference is generated (`wifitcp schema
//!   --markdown`), so the reference cannot drift from the validator.
//!
//! Invariants (tested below): every key the deserialised structs serialise
//! is in the table and every table key is one of them; every literal
//! default equals the struct's default; every numeric key has a finite
//! range.
//!
//! Ranges are physical bounds (what the quantity can be in a real network,
//! widened generously), not the papers' values; where a bound protects the
//! engine (integer nanoseconds, events per second) the entry says so.
use serde_json::Value;
use wifitcp_core::ConfigError;

use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::{Ex, In};
pub use wifitcp_core::schema::*;

pub use wifitcp_wifi::channel::keys::CHANNEL_MODELS;

/// The scenario's own keys before `[mac]`, in document order.
static HEAD: &[Key] = &[
    // [scenario]
    k("scenario.name", Str, "required", None, "", "Name of the scenario (results are stored under it)."),
    k("scenario.description", Str, "\"\"", None, "", "Free text."),
    k("scenario.duration_s", Float, "10.0", r(Ex(0.0), In(1e6)), "s", "Simulated time."),
    k("scenario.warmup_s", Float, "0.0", SIM_S, "s", "Deliveries before this time are not counted; < duration_s."),
    k("scenario.sample_interval_s", Float, "1.0", r(In(1e-3), In(1e6)), "s", "Bin of the per-flow time series."),
    k(
        "scenario.threads",
        Int,
        "1",
        r(In(0.0), In(1024.0)),
        "threads",
        "Threads of the run: 1 (one thread), 0 (every core) or N. Cells that share nothing run as partitions, on one thread too; cells joined by wired links run in windows of the links' latency, one group of cells per thread, on 2 or more (same results).",
    ),
    // [phy]
    k(
        "phy.standard",
        Str,
        "required",
        None,
        "",
        "\"802.11a\", \"802.11b\", \"802.11g\", \"802.11n\" (alias \"ht\"), \"802.11ac\" (\"vht\") or \"802.11ax\" (\"he\", single user).",
    ),
    k(
        "phy.data_rate_mbps",
        Float,
        "required (not for 802.11n/ac/ax)",
        WLAN_RATE,
        "Mbit/s",
        "Data rate (one of the standard's rates).",
    ),
    k(
        "phy.ht_mcs",
        Int,
        "required for 802.11n",
        r(In(0.0), In(31.0)),
        "",
        "HT MCS of the data frames (19.5, Tables 19-27 to 19-34).",
    ),
    k(
        "phy.mcs",
        Int,
        "required for 802.11ac/ax",
        r(In(0.0), In(11.0)),
        "",
        "VHT MCS 0-9 (21.5) or HE MCS 0-11 (27.5) of the data frames; invalid VHT combinations are refused.",
    ),
    k(
        "phy.channel_width_mhz",
        Int,
        "20",
        r(In(20.0), In(160.0)),
        "MHz",
        "Channel width: 20 or 40 (802.11n); 20, 40, 80 or 160 (802.11ac/ax).",
    ),
    k(
        "phy.guard_interval",
        Str,
        "\"long\" (802.11ax: \"0.8us\")",
        None,
        "",
        "802.11n/ac: \"long\" (800 ns) or \"short\" (400 ns); 802.11ax: \"0.8us\", \"1.6us\" or \"3.2us\".",
    ),
    k(
        "phy.band_ghz",
        Float,
        "5",
        r(In(2.4), In(6.0)),
        "GHz",
        "Band: 2.4 or 5 (802.11n; the legacy PHY of control frames), 5 (802.11ac), 5 or 6 (802.11ax).",
    ),
    k(
        "phy.spatial_streams",
        Int,
        "the MCS's (802.11n), 1 (802.11ac/ax)",
        r(In(1.0), In(4.0)),
        "",
        "802.11n: streams the stations support; 802.11ac/ax: streams of the data frames.",
    ),
    k(
        "phy.he_format",
        Str,
        "\"su\"",
        None,
        "",
        "802.11ax PPDU format: \"su\" (HE SU) or \"er_su\" (HE ER SU: 20 MHz, 1 stream, MCS 0-2).",
    ),
    k(
        "phy.packet_extension_us",
        Int,
        "0",
        r(In(0.0), In(16.0)),
        "us",
        "802.11ax packet extension after the data field: 0, 4, 8, 12 or 16 (27.3.13).",
    ),
    k(
        "phy.control_rate_mbps",
        Float,
        "by 10.6.6.5.2 from the basic rate set",
        WLAN_RATE,
        "Mbit/s",
        "Rate of ACK, CTS and RTS.",
    ),
    k("phy.basic_rates_mbps", Floats, "the PHY's mandatory rates", WLAN_RATE, "Mbit/s", "BSSBasicRateSet."),
    k(
        "phy.rate_control",
        Str,
        "\"fixed\"",
        None,
        "",
        "Rate adaptation: \"fixed\" (data_rate_mbps), \"arf\", \"aarf\" or \"minstrel\".",
    ),
    k("phy.preamble", Str, "\"long\"", None, "", "DSSS preamble: \"long\" or \"short\"."),
    k("phy.slot", Str, "\"short\"", None, "", "802.11g slot: \"short\" or \"long\"."),
    k("phy.timing_model", Str, "\"standard\"", None, "", "Frame-time model (see the PHY section)."),
    k("phy.coverage_class", Int, "0", r(In(0.0), In(31.0)), "", "dot11CoverageClass: slot + 3 us per class."),
    k("phy.slot_us", Float, "the PHY's aSlotTime", PHY_US, "us", "Slot time override."),
    k("phy.sifs_us", Float, "the PHY's aSIFSTime", PHY_US, "us", "SIFS override."),
    k("phy.difs_us", Float, "SIFS + 2 slots", r(In(0.0), In(1e5)), "us", "DIFS override."),
    k("phy.eifs_us", Float, "SIFS + ACK time + DIFS", r(In(0.0), In(1e5)), "us", "EIFS override."),
    k("phy.preamble_us", Float, "the PHY's", PHY_US, "us", "PLCP preamble duration override."),
    k("phy.plcp_header_us", Float, "the PHY's", PHY_US, "us", "PLCP header duration override."),
    k("phy.rx_phy_start_delay_us", Float, "the PHY's", PHY_US, "us", "Receiver start-up delay override."),
];

/// `[ap]`'s own keys, after `[wlan]`.
static AP: &[Key] = &[
    k("ap.queue_packets", Int, "mac.queue_packets", PKTS, "packets", "The AP's transmit queue."),
    k("ap.qdisc", Table, "drop-tail", None, "", "Queue discipline of the AP (a qdisc table)."),
    k("ap.classes", Str, "\"station\"", None, "", "Class of a queued packet: \"station\" or \"channel\"."),
    k(
        "ap.beacons",
        Bool,
        "true",
        None,
        "",
        "Beacons at every TBTT (lowest basic rate, after PIFS); none in an edca cell (not yet sent by the HCF).",
    ),
    k("ap.beacon_interval_tu", Int, "100", r(In(1.0), In(65535.0)), "TU", "Beacon interval (100 TU = 102.4 ms)."),
    // [ap.proxy] (crates/pep; paper 003 section III)
    k("ap.proxy", Table, "none", None, "", "A performance-enhancing proxy at the AP."),
];

/// The wired topology's keys, after `[ap.proxy]`.
static WIRED: &[Key] = &[
    // [[nodes]]
    k("nodes[].name", Str, "required", None, "", "Name of a wired node."),
    k("nodes[].kind", Str, "\"host\"", None, "", "\"host\" or \"router\"."),
    // [[links]]
    k("links[].a", Str, "required", None, "", "One end: \"ap\" or a node name."),
    k("links[].b", Str, "required", None, "", "The other end."),
    k(
        "links[].rate_mbps",
        Float,
        "required",
        r(In(1e-3), In(1e6)),
        "Mbit/s",
        "Link rate, 1 kbit/s to 1 Tbit/s (a slower link's frame time overflows nothing, but is no network).",
    ),
    k("links[].delay_ms", Float, "required", r(In(0.0), In(1e5)), "ms", "Propagation delay."),
    k("links[].queue_packets", Int, "100", PKTS, "packets", "Drop-tail queue per direction."),
];

/// Every key of a scenario, in document order: the scenario's own keys with
/// the sections other crates own mounted at their place: `[tcp]`
/// (`wifitcp_tcp::scenario::keys()`), `[ap.proxy]` (`wifitcp_pep::config::ProxyConfig::keys()`), `[[traffic]]` (`crate::apps::config::keys`), the queue disciplines of `ap.qdisc` and
/// `wlan.station_qdisc` (`wifitcp_queue::QdiscConfig::keys()`, mounted once as
/// `qdisc.*`) and `[channel]` (`wifitcp_wifi::channel::keys::KEYS`). Built once; the mounted paths live as
/// long as the process, like the tables they come from.
pub fn keys() -> &'static [Key] {
    static ALL: std::sync::OnceLock<Vec<Key>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut v = HEAD.to_vec();
        v.extend(mounted("mac", super::mac::keys()));
        v.extend(mounted("wlan", super::wlan::keys()));
        v.push(wifitcp_core::schema::k(
            "deployment",
            wifitcp_core::schema::Ty::Table,
            "none",
            None,
            "",
            "Campus layout: derives wlan.aps, ap_positions, ap_channels, positions and association.",
        ));
        v.extend(mounted(
            "deployment",
            <super::deployment::DeploymentConfig as wifitcp_core::config::ConfigTable>::keys(),
        ));
        v.extend_from_slice(AP);
        v.extend(mounted("ap.proxy", wifitcp_pep::config::ProxyConfig::keys()));
        v.extend_from_slice(WIRED);
        v.extend(mounted("tcp", wifitcp_tcp::scenario::keys()));
        v.extend(mounted("traffic[]", crate::apps::config::keys()));
        v.extend(mounted("qdisc", wifitcp_queue::QdiscConfig::keys()));
        v.extend(mounted("channel", wifitcp_wifi::channel::keys::KEYS));
        v
    })
}

/// `keys` under `section`: paths prefixed with `section.`.
pub(crate) fn mounted<'a>(section: &'a str, keys: &'a [Key]) -> impl Iterator<Item = Key> + 'a {
    keys.iter().map(move |k| Key { path: Box::leak(format!("{section}.{}", k.path).into_boxed_str()), ..*k })
}

/// Text of a range with its unit: `[1, 255] attempts`, `(0, 1e6] s`.
pub fn range_text(range: (B, B), unit: &str) -> String {
    let (lo, hi) = range;
    let (l, a) = match lo {
        In(x) => ("[", x),
        Ex(x) => ("(", x),
    };
    let (h, b) = match hi {
        In(x) => ("]", x),
        Ex(x) => (")", x),
    };
    let t = format!("{l}{}, {}{h}", num(a), num(b));
    if unit.is_empty() {
        t
    } else {
        format!("{t} {unit}")
    }
}

/// A bound as people write it: 1e6, 1e-3, 32767, 0.5.
fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        let s = format!("{}", x as i64);
        if s.ends_with("0000") {
            format!("{x:e}")
        } else {
            s
        }
    } else if x.abs() < 1e-2 {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

fn inside(x: f64, (lo, hi): (B, B)) -> bool {
    let lo_ok = match lo {
        In(a) => x >= a,
        Ex(a) => x > a,
    };
    let hi_ok = match hi {
        In(b) => x <= b,
        Ex(b) => x < b,
    };
    lo_ok && hi_ok
}

/// The table key of `pattern` (with `[]` for indices) under `variant`.
pub fn lookup(pattern: &str, variant: Option<&str>) -> Option<&'static Key> {
    keys().iter().find(|k| k.path == pattern && (k.when.is_empty() || variant.is_some_and(|v| k.when.contains(&v))))
}

/// A section the key table lists once, whatever its place in a document.
#[derive(Clone, Copy)]
struct Section {
    /// Its pattern in the key table.
    name: &'static str,
    /// The key naming its kind (a tagged section).
    tag: Option<&'static str>,
    /// Its kinds, the first the default.
    kinds: fn() -> &'static [&'static str],
    /// Whether a table without the tag is the first kind's.
    default_kind: bool,
    /// Why a key the table's kind does not read is refused, given the
    /// table (`None` here or from it: "unknown key for kind ...").
    foreign: Option<ForeignKey>,
}

/// Why a key of another kind is refused: (the key, the table holding it).
type ForeignKey = fn(&str, &serde_json::Map<String, Value>) -> Option<String>;

/// The section called `name` in the key table.
fn section(name: &str) -> Option<Section> {
    let tagged = |name, tag, kinds, default_kind| Section { name, tag: Some(tag), kinds, default_kind, foreign: None };
    Some(match name {
        "qdisc" => tagged("qdisc", "kind", || wifitcp_queue::QdiscConfig::KINDS, false),
        "channel" => tagged("channel", "model", || &CHANNEL_MODELS, false),
        "ap.proxy" => tagged("ap.proxy", "kind", || wifitcp_pep::config::ProxyConfig::KINDS, false),
        "mac" => Section {
            foreign: Some(|key, _| super::mac::foreign_key_reason(key)),
            ..tagged("mac", "kind", || crate::macs::MacKindConfig::KINDS, true)
        },
        "traffic[]" => Section {
            foreign: Some(|key, entry| {
                crate::apps::config::foreign_key_reason(key, entry.get("kind").and_then(Value::as_str))
            }),
            ..tagged("traffic[]", "pattern", || crate::apps::AppConfig::KINDS, true)
        },
        "tcp" => Section { name: "tcp", tag: None, kinds: || &[], default_kind: false, foreign: None },
        _ => return None,
    })
}

/// The section mounted at the document pattern `pattern` (a table listed
/// once and used in several places: the queue disciplines, the TCP
/// sections; or a tagged section at its own place).
fn mount(pattern: &str) -> Option<Section> {
    section(match pattern {
        "ap.qdisc" | "wlan.station_qdisc" => "qdisc",
        "traffic[].tcp" | "tcp" | "ap.proxy.wired_tcp" | "ap.proxy.wireless_tcp" => "tcp",
        "channel" | "mac" | "ap.proxy" | "traffic[]" => pattern,
        _ => return None,
    })
}

/// Whether `v` is a kind of a tagged section (the enclosing table's kind
/// also rules its sub-tables, e.g. `channel.propagation`).
fn is_kind(v: &str) -> bool {
    ["qdisc", "channel", "ap.proxy", "mac", "traffic[]"]
        .iter()
        .filter_map(|n| section(n))
        .any(|s| (s.kinds)().contains(&v))
}

impl Section {
    /// The kind of its table `node`: the tag's value, or the default kind
    /// when the tag is absent and the section has one.
    fn variant_of<'a>(&self, node: &'a Value) -> Option<&'a str> {
        let tag = self.tag?;
        match node.get(tag) {
            Some(v) => v.as_str(),
            None if self.default_kind => (self.kinds)().first().copied(),
            None => None,
        }
    }
}

/// Check every number of a scenario document (JSON, before it is
/// deserialised) against its key's range, and every key of a tagged
/// section (qdisc, channel) against the keys of its kind. Errors are
/// "dotted.path: reason". Keys the table does not know outside tagged
/// sections are left to the deserialiser (which rejects them).
pub fn check_ranges(doc: &Value) -> Result<(), ConfigError> {
    walk(doc, "", "", None, None)
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// `tagged`: the tag key of the enclosing tagged section (its keys are
/// checked for membership).
fn walk(v: &Value, path: &str, pattern: &str, variant: Option<&str>, tagged: Option<&str>) -> Result<(), ConfigError> {
    match v {
        Value::Object(map) => {
            for (key, child) in map {
                let p = join(path, key);
                let mut pat = join(pattern, key);
                let (mut var, mut tag) = (variant, tagged);
                if let Some(sec) = mount(&pat) {
                    pat = sec.name.to_string();
                    (var, tag) = (sec.variant_of(child), sec.tag);
                }
                // the key's own row in its parent section, else its row as
                // a mounted section
                let known = lookup(&join(pattern, key), variant).or_else(|| lookup(&pat, var));
                if known.is_none() && tagged.is_some() {
                    let sec = section(pattern);
                    if let Some(why) = sec.and_then(|s| s.foreign).and_then(|f| f(key, map)) {
                        return Err(ConfigError::new(p.to_string(), why.to_string()));
                    }
                    if let Some(kind) = variant.filter(|v| is_kind(v)) {
                        let keys = section_keys(pattern, kind);
                        let t = tagged.unwrap_or("kind");
                        return Err(if keys.len() <= 1 {
                            ConfigError::new(p, format!("unknown key: {t} {kind:?} takes no other keys"))
                        } else {
                            ConfigError::new(p, format!("unknown key for {t} {kind:?} (expected {})", keys.join(", ")))
                        });
                    }
                }
                match (known, child) {
                    (Some(k), Value::Number(_)) | (Some(k), Value::Array(_)) if k.ty.numeric() || k.range.is_some() => {
                        check_numbers(child, &p, k)?
                    }
                    _ => walk(child, &p, &pat, var, tag)?,
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            let pat = format!("{pattern}[]");
            let sec = mount(&pat).filter(|s| s.tag.is_some());
            for (i, item) in items.iter().enumerate() {
                let (var, tag) = match sec {
                    Some(s) => (s.variant_of(item), s.tag),
                    None => (variant, tagged),
                };
                walk(item, &format!("{path}[{i}]"), &pat, var, tag)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Keys (last segment) directly under section `pattern` for `variant`.
fn section_keys(pattern: &str, variant: &str) -> Vec<&'static str> {
    let prefix = format!("{pattern}.");
    let mut out: Vec<&'static str> = Vec::new();
    for k in keys() {
        if let Some(rest) = k.path.strip_prefix(&prefix) {
            let direct = !rest.contains('.') && !rest.contains('[');
            if direct && (k.when.is_empty() || k.when.contains(&variant)) && !out.contains(&rest) {
                out.push(rest);
            }
        }
    }
    out
}

fn check_numbers(v: &Value, path: &str, k: &Key) -> Result<(), ConfigError> {
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_numbers(item, &format!("{path}[{i}]"), k)?;
            }
            Ok(())
        }
        Value::Number(n) => {
            let Some(range) = k.range else { return Ok(()) };
            let x = n.as_f64().unwrap_or(f64::NAN);
            if x.is_nan() {
                return Err(ConfigError::new(
                    path.to_string(),
                    format!("NaN is not a number; must be in {}", range_text(range, k.unit)),
                ));
            }
            if x.is_infinite() {
                return Err(ConfigError::new(
                    path.to_string(),
                    format!("{x} is not finite; must be in {}", range_text(range, k.unit)),
                ));
            }
            if !inside(x, range) {
                return Err(ConfigError::new(
                    path.to_string(),
                    format!("must be in {}, got {n}", range_text(range, k.unit)),
                ));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The table as JSON: `[{key, when, type, default, range, min, max, unit,
/// doc}, ...]` (`range`, `min`, `max` null for non-numeric keys).
pub fn schema_json() -> Value {
    let rows: Vec<Value> = keys()
        .iter()
        .map(|k| {
            let bound = |b: B| match b {
                In(x) => serde_json::json!({"value": x, "inclusive": true}),
                Ex(x) => serde_json::json!({"value": x, "inclusive": false}),
            };
            serde_json::json!({
                "key": k.path,
                "when": k.when,
                "type": k.ty.name(),
                "default": k.default,
                "range": k.range.map(|r| range_text(r, "")),
                "min": k.range.map(|r| bound(r.0)),
                "max": k.range.map(|r| bound(r.1)),
                "unit": k.unit,
                "doc": k.doc,
            })
        })
        .collect();
    Value::Array(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_text_reads_well() {
        assert_eq!(range_text((Ex(0.0), In(1e6)), "s"), "(0, 1e6] s");
        assert_eq!(range_text((In(1.0), In(255.0)), "attempts"), "[1, 255] attempts");
        assert_eq!(range_text((In(1e-3), In(1e6)), "Mbit/s"), "[1e-3, 1e6] Mbit/s");
        assert_eq!(range_text((In(0.0), Ex(1.0)), ""), "[0, 1)");
    }

    #[test]
    fn every_numeric_key_has_a_finite_range_and_a_unit_or_none() {
        for k in keys() {
            if matches!(k.ty, Float | Int | Floats | Ints) {
                let (lo, hi) = k.range.unwrap_or_else(|| panic!("{} has no range", k.path));
                for b in [lo, hi] {
                    let (In(x) | Ex(x)) = b;
                    assert!(x.is_finite(), "{}", k.path);
                }
            }
        }
    }

    /// (pattern, variant, serialised default) of every key the structs
    /// serialise.
    fn struct_keys() -> Vec<(String, Option<String>, Value)> {
        use crate::config::*;
        use wifitcp_queue::QdiscConfig;
        use wifitcp_wifi::channel::ChannelConfig;
        let mut out = Vec::new();
        let mut add = |prefix: &str, variant: Option<&str>, v: Value| {
            for (key, val) in v.as_object().expect("a table") {
                out.push((format!("{prefix}.{key}"), variant.map(str::to_string), val.clone()));
                if let Value::Object(inner) = val {
                    for (k2, v2) in inner {
                        out.push((format!("{prefix}.{key}.{k2}"), variant.map(str::to_string), v2.clone()));
                    }
                }
            }
        };
        let j = |x: &dyn erased::Ser| x.json();
        let mut s = Scenario::from_json(
            r#"{"scenario": {"name": "x"}, "phy": {"standard": "802.11b", "data_rate_mbps": 11},
                "wlan": {"stations": 1}, "nodes": [{"name": "h"}],
                "links": [{"a": "ap", "b": "h", "rate_mbps": 100, "delay_ms": 1}],
                "traffic": [{"name": "t", "kind": "udp"}]}"#,
        )
        .unwrap();
        s.ap.beacons = Some(true);
        s.scenario.threads = Some(1);
        s.ap.beacon_interval_tu = Some(crate::config::D_BEACON_INTERVAL_TU);
        add("scenario", None, j(&s.scenario));
        add("phy", None, j(&s.phy));
        add("mac", None, j(&s.mac.common));
        for kind in crate::macs::MacKindConfig::KINDS {
            add("mac", Some(kind), j(&crate::macs::named(kind).expect("registered")));
        }
        add("wlan", None, j(&s.wlan));
        add("ap", None, j(&s.ap));
        add("nodes[]", None, j(&s.nodes[0]));
        add("links[]", None, j(&s.links[0]));
        add("traffic[]", None, j(&s.traffic[0].common));
        for kind in crate::apps::AppConfig::KINDS {
            let app: crate::apps::AppConfig = serde_json::from_value(serde_json::json!({ "pattern": kind })).unwrap();
            add("traffic[]", Some(kind), j(&app));
        }
        // application keys serialised only when set
        for (key, kind) in [
            ("rate_mbps", "cbr"),
            ("on_s", "on-off"),
            ("off_s", "on-off"),
            ("interval_ms", "game"),
            ("payload_bytes", "game"),
            ("trace_file", "trace"),
        ] {
            add("traffic[]", Some(kind), serde_json::json!({ key: Value::Null }));
        }
        let mut tcp = TcpSection::default();
        for name in CcName::ALL.iter().filter_map(|n| CcName::parse(n)).filter(|n| n.has_table()) {
            tcp.cc_tables.insert(name, CcConfig::defaults(name));
        }
        add("tcp", None, j(&tcp));
        for kind in QdiscConfig::KINDS {
            let q: QdiscConfig = serde_json::from_value(serde_json::json!({ "kind": kind })).unwrap();
            add("qdisc", Some(kind), j(&q));
        }
        for model in &CHANNEL_MODELS {
            let c: ChannelConfig = serde_json::from_value(serde_json::json!({ "model": model })).unwrap();
            add("channel", Some(model), j(&c));
        }
        let class = wifitcp_wifi::channel::config::SnrClassConfig {
            name: "c".into(),
            per_down: 0.0,
            per_up: 0.0,
            stations: vec![],
        };
        add("channel.classes[]", Some("fixed"), j(&class));
        out.push(("ap.proxy".into(), None, Value::Null));
        for kind in ProxyConfig::KINDS {
            let p: ProxyConfig = serde_json::from_value(serde_json::json!({ "kind": kind })).unwrap();
            for (key, val) in j(&p).as_object().expect("a table") {
                let v = if val.is_object() { Value::Null } else { val.clone() };
                out.push((format!("ap.proxy.{key}"), Some(kind.to_string()), v));
            }
        }
        // proxy keys serialised only when set
        for (key, kind) in [("node", "none"), ("wired_tcp", "itcp"), ("wireless_tcp", "itcp")] {
            out.push((format!("ap.proxy.{key}"), Some(kind.into()), Value::Null));
        }
        // keys serialised only when set (results without them are unchanged)
        let mut phy = s.phy.clone();
        phy.rate_control = wifitcp_wifi::rate::RateControlKind::Arf;
        out.push(("phy.rate_control".into(), None, Value::String("fixed".into())));
        phy.coverage_class = Some(3);
        out.push(("phy.coverage_class".into(), None, Value::Null));
        assert!(j(&phy).get("coverage_class").is_some() && j(&s.phy).get("coverage_class").is_none());
        assert!(j(&phy).get("rate_control").is_some() && j(&s.phy).get("rate_control").is_none());
        // 802.11n and HCF keys, serialised only when set.
        let mut phy = s.phy.clone();
        phy.ht_mcs = Some(7);
        phy.channel_width_mhz = Some(20);
        phy.guard_interval = Some(wifitcp_wifi::phy::GiConfig::Long);
        phy.band_ghz = Some(5.0);
        phy.spatial_streams = Some(1);
        phy.mcs = Some(7);
        phy.he_format = Some(wifitcp_wifi::phy::HeFormatConfig::Su);
        phy.packet_extension_us = Some(0);
        for key in [
            "ht_mcs",
            "mcs",
            "channel_width_mhz",
            "guard_interval",
            "band_ghz",
            "spatial_streams",
            "he_format",
            "packet_extension_us",
        ] {
            assert!(j(&phy).get(key).is_some() && j(&s.phy).get(key).is_none(), "{key}");
            out.push((format!("phy.{key}"), None, Value::Null));
        }
        // [mac] keys serialised only when set
        for key in ["max_mpdus", "txop_limit_us", "poll_max_period_ms", "poll_txop_us"] {
            out.push((format!("mac.{key}"), Some("edca".into()), Value::Null));
        }
        out.push(("mac.no_ack_nodes".into(), None, Value::Null));
        let mut wlan = s.wlan.clone();
        let m: mobility::MobilityConfig = serde_json::from_value(serde_json::json!({"model": "linear"})).unwrap();
        wlan.mobility = vec![m.clone()];
        out.push(("wlan.mobility".into(), None, Value::Null));
        assert!(j(&wlan).get("mobility").is_some() && j(&s.wlan).get("mobility").is_none());
        let mut add = |prefix: &str, v: Value| {
            for (key, val) in v.as_object().expect("a table") {
                out.push((format!("{prefix}.{key}"), None, val.clone()));
            }
        };
        add("wlan.mobility[]", j(&m));
        // per-node radio, carrier sense and power-control keys of the
        // power models: serialised only when set
        let set: Value = serde_json::json!({
            "ap_tx_power_dbm": 25.0, "ap_antenna_gain_dbi": 18.0, "sta_antenna_gain_dbi": 15.0,
            "sta_antenna": "toward_ap", "power_control": "game", "power_cost_per_w": 0.2, "power_max_w": 4.0,
            "adjacent_channel": "mask",
        });
        for model in ["snr", "threshold"] {
            let mut v = set.clone();
            v["model"] = Value::String(model.into());
            let c: ChannelConfig = serde_json::from_value(v).unwrap();
            let plain: ChannelConfig = serde_json::from_value(serde_json::json!({ "model": model })).unwrap();
            for key in set.as_object().unwrap().keys() {
                assert!(j(&c).get(key).is_some() && j(&plain).get(key).is_none(), "{key}");
                out.push((format!("channel.{key}"), Some(model.into()), Value::Null));
            }
        }
        out.push(("channel.cs_threshold_dbm".into(), Some("snr".into()), Value::Null));
        out.push(("channel.reception".into(), Some("snr".into()), Value::Null));
        // The TGn preset (snr) and the dual-slope keys: serialised only when set.
        let c: ChannelConfig = serde_json::from_value(serde_json::json!({"model": "snr", "tgn_model": "D"})).unwrap();
        assert!(j(&c).get("tgn_model").is_some());
        out.push(("channel.tgn_model".into(), Some("snr".into()), Value::Null));
        let dual = serde_json::json!({
            "breakpoint_m": 10.0, "exponent_after_breakpoint": 3.5, "shadowing_sigma_after_breakpoint_db": 5.0,
        });
        for model in ["snr", "threshold"] {
            let c: ChannelConfig =
                serde_json::from_value(serde_json::json!({ "model": model, "propagation": dual })).unwrap();
            for key in dual.as_object().unwrap().keys() {
                assert!(j(&c)["propagation"].get(key).is_some(), "{key}");
                out.push((format!("channel.propagation.{key}"), Some(model.into()), Value::Null));
            }
        }
        // `[channel.fading]`: serialised only when set, every key optional
        let fading = serde_json::json!({
            "model": "rician", "doppler_hz": 5.0, "k_db": 6.0, "m": 1.0, "sinusoids": 32, "los_angle_deg": 0.0,
            "los_distance_m": 10.0,
        });
        for model in ["snr", "threshold"] {
            let c: ChannelConfig =
                serde_json::from_value(serde_json::json!({ "model": model, "fading": fading })).unwrap();
            let plain: ChannelConfig = serde_json::from_value(serde_json::json!({ "model": model })).unwrap();
            assert!(j(&c).get("fading").is_some() && j(&plain).get("fading").is_none(), "{model}");
            out.push(("channel.fading".into(), Some(model.into()), Value::Null));
            for key in fading.as_object().unwrap().keys() {
                assert!(j(&c)["fading"].get(key).is_some(), "{key}");
                out.push((format!("channel.fading.{key}"), Some(model.into()), Value::Null));
            }
        }
        wlan.ap_channels = Some(vec![1]);
        let r: roaming::RoamingConfig = serde_json::from_value(serde_json::json!({"threshold_dbm": -50.0})).unwrap();
        wlan.roaming = Some(r.clone());
        assert!(j(&wlan).get("ap_channels").is_some() && j(&s.wlan).get("ap_channels").is_none());
        assert!(j(&wlan).get("roaming").is_some() && j(&s.wlan).get("roaming").is_none());
        out.push(("wlan.ap_channels".into(), None, Value::Null));
        out.push(("wlan.roaming".into(), None, Value::Null));
        for (key, val) in j(&r).as_object().expect("a table") {
            out.push((format!("wlan.roaming.{key}"), None, val.clone()));
        }
        // `[deployment]`: serialised only when set
        let d = super::super::deployment::DeploymentConfig { ap_tx_power_dbm: Some(20.0), ..Default::default() };
        assert!(j(&s).get("deployment").is_none());
        out.push(("deployment".into(), None, Value::Null));
        for (key, val) in j(&d).as_object().expect("a table") {
            let val = if key == "ap_tx_power_dbm" { Value::Null } else { val.clone() };
            out.push((format!("deployment.{key}"), None, val));
        }

        out
    }

    /// serde::Serialize is not object safe; this is.
    mod erased {
        pub trait Ser {
            fn json(&self) -> serde_json::Value;
        }
        impl<T: serde::Serialize> Ser for T {
            fn json(&self) -> serde_json::Value {
                serde_json::to_value(self).unwrap()
            }
        }
    }

    #[test]
    fn the_table_lists_exactly_the_keys_of_the_structs_with_their_defaults() {
        let serialised = struct_keys();
        // every serialised key is in the table (controllers' tables/propagation/
        // noise sub-tables are listed key by key)
        for (path, variant, default) in &serialised {
            let k = lookup(path, variant.as_deref()).unwrap_or_else(|| panic!("{path} ({variant:?}) not in KEYS"));
            if let Ok(lit) = serde_json::from_str::<Value>(k.default) {
                let tag = path.ends_with(".kind") || path.ends_with(".model") || path.ends_with(".pattern");
                if !default.is_null() && !default.is_object() && !tag {
                    let same = match (lit.as_f64(), default.as_f64()) {
                        (Some(a), Some(b)) => (a - b).abs() <= 1e-4 * b.abs().max(1.0),
                        _ => lit == *default,
                    };
                    assert!(same, "{path} ({variant:?}): table default {} but the struct's is {default}", k.default);
                }
            }
        }
        // every table key is serialised by some struct
        for k in keys() {
            let found = serialised.iter().any(|(p, v, _)| {
                p == k.path && (k.when.is_empty() || v.as_deref().is_some_and(|v| k.when.contains(&v)))
            });
            assert!(found, "{} in KEYS but in no struct", k.path);
        }
    }

    #[test]
    fn tcp_defaults_are_the_tcp_crates() {
        let t = wifitcp_tcp::TcpConfig::default();
        let d = |p: &str| lookup(p, None).unwrap().default;
        assert_eq!(d("tcp.mss"), t.mss.to_string());
        assert_eq!(d("tcp.syn_retries"), t.syn_retries.to_string());
        assert_eq!(d("tcp.max_retransmissions"), t.max_retransmissions.to_string());
        let ms = |x: wifitcp_core::SimDur| format!("{:.1}", x.as_nanos() as f64 / 1e6);
        assert_eq!(d("tcp.min_rto_ms"), ms(t.min_rto));
        assert_eq!(d("tcp.max_rto_ms"), ms(t.max_rto));
        assert_eq!(d("tcp.initial_rto_ms"), ms(t.initial_rto));
        let da = t.delayed_ack.unwrap();
        assert_eq!(d("tcp.delayed_ack_ms"), ms(da.timeout));
        assert_eq!(d("tcp.delayed_ack_count"), da.count.to_string());
        for (k, v) in [
            ("tcp.sack", t.sack),
            ("tcp.timestamps", t.timestamps),
            ("tcp.window_scaling", t.window_scaling),
            ("tcp.limited_transmit", t.limited_transmit),
            ("tcp.trace_cwnd", t.trace),
        ] {
            assert_eq!(d(k), v.to_string(), "{k}");
        }
    }

    fn doc(extra: &str) -> String {
        format!(
            r#"{{"scenario": {{"name": "x"}}, "phy": {{"standard": "802.11b", "data_rate_mbps": 11}},
                "wlan": {{"stations": 1}}, "nodes": [{{"name": "h"}}],
                "links": [{{"a": "ap", "b": "h", "rate_mbps": 100, "delay_ms": 1}}]{extra}}}"#
        )
    }

    #[test]
    fn values_the_core_cannot_run_are_errors_naming_the_key() {
        let bad = |extra: &str| crate::config::Scenario::from_json(&doc(extra)).unwrap_err().to_string();
        let e = bad(r#", "links": [{"a": "ap", "b": "h", "rate_mbps": 1e-300, "delay_ms": 1}]"#);
        assert_eq!(e, "links[0].rate_mbps: must be in [1e-3, 1e6] Mbit/s, got 1e-300");
        let e = bad(r#", "traffic": [{"name": "t", "kind": "udp", "pattern": "cbr", "rate_mbps": 3e7}]"#);
        assert!(e.starts_with("traffic[0].rate_mbps: must be in (0, 1e4] Mbit/s"), "{e}");
        let e = bad(r#", "ap": {"qdisc": {"kind": "airtime", "quantum_us": 1e300}}"#);
        assert!(e.starts_with("ap.qdisc.quantum_us: must be in [1, 1e6] us"), "{e}");
        // 1e7 goodput samples: a result the run would spend minutes writing
        let long = doc(r#", "traffic": [{"name": "u", "kind": "udp"}]"#)
            .replace(r#""name": "x"}"#, r#""name": "x", "duration_s": 1e6, "sample_interval_s": 0.1}"#);
        let e = crate::config::Scenario::from_json(&long).unwrap_err().to_string();
        assert_eq!(
            e,
            "scenario.sample_interval_s: 0.1 s over duration_s = 1000000 s for 1 flow gives 10000000 goodput \
             samples, more than 2000000: raise it to at least 0.5 s"
        );
        let e = bad(r#", "wlan": {"stations": 1, "positions": [[0, 2e6]]}"#);
        assert!(e.starts_with("wlan.positions[0][1]: must be in"), "{e}");
        let e = bad(r#", "tcp": {"compound": {"beta": 1.0}}"#);
        assert!(e.starts_with("tcp.compound.beta: must be in (0, 1)"), "{e}");
        let e = bad(r#", "traffic": [{"name": "t", "kind": "tcp", "peer": "h", "tcp": {"mss": 10}}]"#);
        assert!(e.starts_with("traffic[0].tcp.mss: must be in [64, 65495] bytes"), "{e}");
    }

    #[test]
    fn unknown_keys_of_a_qdisc_or_channel_are_reported_at_the_key() {
        let bad = |extra: &str| crate::config::Scenario::from_json(&doc(extra)).unwrap_err().to_string();
        let e = bad(r#", "ap": {"qdisc": {"kind": "keceli-grouped", "gama": 0.5}}"#);
        assert!(e.starts_with("ap.qdisc.gama: unknown key for kind \"keceli-grouped\" (expected kind, alpha"), "{e}");
        let e = bad(r#", "wlan": {"stations": 1, "station_qdisc": {"kind": "codel", "quantum_us": 5}}"#);
        assert!(e.starts_with("wlan.station_qdisc.quantum_us: unknown key for kind \"codel\""), "{e}");
        let e = bad(r#", "channel": {"model": "snr", "propagation": {"exponentt": 3}}"#);
        assert!(e.starts_with("channel.propagation.exponentt: unknown key for model \"snr\""), "{e}");
        let e = bad(r#", "ap": {"qdisc": {"kind": "drop-tail", "target": 5}}"#);
        assert_eq!(e, "ap.qdisc.target: unknown key: kind \"drop-tail\" takes no other keys");
        // an unknown kind is the deserialiser's to report
        let e = bad(r#", "ap": {"qdisc": {"kind": "red", "x": 1}}"#);
        assert!(e.contains("red"), "{e}");
    }
}
