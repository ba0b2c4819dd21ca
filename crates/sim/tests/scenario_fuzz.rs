//! Scenario-level fuzzing: random valid scenarios over every feature, each
//! a short run (0.2-1 s simulated), from a seeded generator so that every
//! case is reproducible from its number.
//!
//! The generator covers every MAC kind of `macs::MacKindConfig` (with the keys of
//! the kind's own rows), every PHY standard, every queue discipline of
//! `QdiscConfig::KINDS` at the AP and at the stations, TCP (every
//! congestion controller and recovery) and every UDP pattern, uplink and
//! downlink, channel errors (fixed PER, the SNR and threshold channels),
//! RTS/CTS, No Ack (policy and per node), the proxies, several APs with
//! roaming, and moving stations. Where it can it draws from the schema
//! (`config::schema`): string values from the alternatives a key's
//! documentation quotes, numbers from a practical window per unit clipped
//! to the key's range, and the optional keys of a queue discipline, of the
//! `[tcp]` table and of a MAC kind from the keys the schema lists for them;
//! every key it writes must be in the schema.
//!
//! Every scenario must either be rejected with a configuration error or
//! run and
//! * never panic, never fail its end-of-run checks (`ApiError::Run`: the
//!   packet ledger balances, no packet leaves twice, every TCP receiver
//!   delivered one in-order byte stream);
//! * deliver no more packets than it generated, per flow, with the
//!   ledger's figures in the result adding up;
//! * give the same bytes again for the same seed.
//!
//! Cases: `WIFITCP_SCENARIO_CASES` (default 300; `make soak` runs
//! thousands); `WIFITCP_SCENARIO_CASE=17` runs case 17
//! alone and prints its scenario.
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use wifitcp_core::schema::{Ty, B};
use wifitcp_core::RngStream;
use wifitcp_sim::api::{self, ApiError, Control};
use wifitcp_sim::config::schema;
use wifitcp_sim::macs::{named, MacKindConfig};

const DEFAULT_CASES: u64 = 300;
/// Wall time after which a run is stopped (counted, not a failure).
const BUDGET: Duration = Duration::from_secs(20);
/// A run that does not come back to its progress callback this long after
/// the budget counts as hung.
const GRACE: Duration = Duration::from_secs(30);

struct Gen {
    rng: RngStream,
    /// Features the scenario uses (for the coverage count).
    features: Vec<String>,
}

/// The alternatives a string key's documentation quotes ("a", "b" or "c").
fn choices(path: &str, variant: Option<&str>) -> Vec<String> {
    let k = schema::lookup(path, variant).unwrap_or_else(|| panic!("{path} is not in the schema"));
    assert_eq!(k.ty, Ty::Str, "{path}");
    // a kind enum's tag row lists its kinds: "a, b, c."
    if !k.doc.contains('"') {
        return k.doc.trim_end_matches('.').split(", ").map(str::to_string).collect();
    }
    // (lower-case words only: a quoted section title is no value)
    k.doc
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|w| !w.is_empty() && !w.contains(' ') && !w.chars().any(|c| c.is_ascii_uppercase()))
        .map(str::to_string)
        .collect()
}

/// A practical window for a number of `unit`: the schema's ranges are
/// physical bounds, far wider than a short run can use.
fn window(path: &str, unit: &str) -> Option<(f64, f64)> {
    Some(match (path, unit) {
        ("tcp.mss", _) => (536.0, 1460.0),
        ("tcp.rwnd_bytes", _) => (4096.0, 1048576.0),
        ("tcp.rwnd_packets", _) => (2.0, 200.0),
        ("tcp.max_retransmissions", _) => (3.0, 15.0),
        ("tcp.min_rto_ms" | "tcp.initial_rto_ms", _) => (10.0, 1000.0),
        ("tcp.max_rto_ms", _) => (1000.0, 60000.0),
        ("qdisc.memory_limit", _) => (3e4, 3.3e7),
        ("qdisc.overhead_bytes", _) => (0.0, 64.0),
        ("mac.max_ampdu_bytes", _) => (1600.0, 65535.0),
        ("mac.poll_txop_us", _) => (0.0, 8000.0),
        ("mac.txop_limit_us", _) => (0.0, 6016.0),
        (_, "ms") => (1.0, 300.0),
        (_, "packets") => (1.0, 300.0),
        (_, "bytes") => (536.0, 65535.0),
        (_, "segments") => (1.0, 10.0),
        (_, "MPDUs") => (1.0, 64.0),
        (_, "us") => (50.0, 5000.0),
        (_, "beacons") => (1.0, 3.0),
        (_, "TU") => (5.0, 90.0),
        (_, "packets/s") => (1.0, 1000.0),
        (_, "bytes/s") => (1e3, 1e6),
        (_, "ACKs") => (0.0, 10.0),
        (_, "retries") => (0.0, 6.0),
        (_, "queues") => (1.0, 1024.0),
        (_, "attempts") => (1.0, 10.0),
        (_, "") => (0.0, 10.0),
        _ => return None,
    })
}

impl Gen {
    fn new(case: u64) -> Gen {
        Gen { rng: RngStream::derive(case, "scenario-fuzz"), features: Vec::new() }
    }
    fn below(&mut self, n: usize) -> usize {
        self.rng.below(n as u64) as usize
    }
    fn chance(&mut self, p: f64) -> bool {
        self.rng.unit() < p
    }
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + self.rng.unit() * (hi - lo)
    }
    fn feature(&mut self, f: impl Into<String>) {
        self.features.push(f.into());
    }
    /// One of the values the schema documents for a string key.
    fn choice(&mut self, path: &str) -> String {
        self.choice_in(path, None)
    }
    /// The same for a key of a tagged section (a channel `model`).
    fn choice_in(&mut self, path: &str, variant: Option<&str>) -> String {
        let c = choices(path, variant);
        assert!(!c.is_empty(), "{path}: no quoted alternatives in its documentation");
        self.pick(&c)
    }

    /// A number for key `path` (schema pattern; `variant` for a qdisc's or
    /// a channel's keys): in the practical window of its unit, clipped to
    /// its schema range; None for a key with no window.
    fn number(&mut self, path: &str, variant: Option<&str>) -> Option<Value> {
        let k = schema::lookup(path, variant).unwrap_or_else(|| panic!("{path} is not in the schema"));
        let (lo_b, hi_b) = k.range?;
        let (wlo, whi) = window(path, k.unit)?;
        let (B::In(a) | B::Ex(a)) = lo_b;
        let (B::In(b) | B::Ex(b)) = hi_b;
        // inside the range, away from an excluded bound
        let (mut lo, mut hi) = (wlo.max(a), whi.min(b));
        if matches!(lo_b, B::Ex(_)) && lo <= a {
            lo = a + (hi - a) * 1e-3;
        }
        if matches!(hi_b, B::Ex(_)) && hi >= b {
            hi = b - (b - lo) * 1e-3;
        }
        assert!(lo <= hi, "{path}: window [{wlo}, {whi}] outside its range");
        let x = if lo > 0.0 && hi / lo > 20.0 {
            (lo.ln() + self.rng.unit() * (hi.ln() - lo.ln())).exp()
        } else {
            self.uniform(lo, hi)
        };
        Some(match k.ty {
            Ty::Int => {
                let (lo_i, hi_i) = (lo.ceil(), hi.floor());
                json!(x.round().clamp(lo_i, hi_i) as i64)
            }
            Ty::Float => json!(x),
            _ => return None,
        })
    }

    /// Each optional key of `section` (schema prefix, e.g. "tcp" or
    /// "qdisc") with probability `p`, `variant` selecting a tagged
    /// section's keys; keys in `skip` are left to the caller.
    fn section(&mut self, section: &str, variant: Option<&str>, p: f64, skip: &[&str]) -> Value {
        let mut out = serde_json::Map::new();
        let prefix = format!("{section}.");
        let keys: Vec<_> = schema::keys()
            .iter()
            .filter(|k| k.path.starts_with(&prefix) && !k.path[prefix.len()..].contains('.'))
            .filter(|k| k.when.is_empty() || variant.is_some_and(|v| k.when.contains(&v)))
            .collect();
        for k in keys {
            let name = &k.path[prefix.len()..];
            if skip.contains(&name) || !self.chance(p) {
                continue;
            }
            let v = match k.ty {
                Ty::Bool => json!(self.chance(0.5)),
                Ty::Str => {
                    let c = choices(k.path, variant);
                    if c.len() < 2 {
                        continue;
                    }
                    json!(self.pick(&c))
                }
                Ty::Int | Ty::Float => match self.number(k.path, variant) {
                    Some(v) => v,
                    None => continue,
                },
                _ => continue,
            };
            out.insert(name.to_string(), v);
        }
        Value::Object(out)
    }

    fn qdisc(&mut self, at: &str) -> Value {
        let kind = self.pick(wifitcp_queue::QdiscConfig::KINDS);
        self.feature(format!("{at} qdisc {kind}"));
        let mut q = self.section("qdisc", Some(kind), 0.3, &["kind", "c", "shares"]);
        q["kind"] = json!(kind);
        q
    }

    fn phy(&mut self) -> Value {
        let std = self.choice("phy.standard");
        self.feature(format!("phy {std}"));
        let rates: &[f64] = match std.as_str() {
            "802.11b" => &[1.0, 2.0, 5.5, 11.0],
            "802.11a" => &[6.0, 9.0, 12.0, 18.0, 24.0, 36.0, 48.0, 54.0],
            "802.11g" => &[1.0, 2.0, 5.5, 11.0, 6.0, 9.0, 12.0, 18.0, 24.0, 36.0, 48.0, 54.0],
            _ => &[],
        };
        let mut p = json!({"standard": std});
        let he = matches!(std.as_str(), "802.11ax" | "he");
        if he || matches!(std.as_str(), "802.11ac" | "vht") {
            // VHT MCS 0-9 or HE MCS 0-11 (the few combinations 21.5
            // excludes are rejected with their reason).
            p["mcs"] = json!(self.below(if he { 12 } else { 10 }));
            p["channel_width_mhz"] = json!(self.pick(&[20, 40, 80, 160]));
            p["spatial_streams"] = json!(1 + self.below(4));
            p["guard_interval"] =
                json!(if he { self.pick(&["0.8us", "1.6us", "3.2us"]) } else { self.pick(&["long", "short"]) });
            if he {
                p["band_ghz"] = json!(self.pick(&[5.0, 6.0]));
            }
        } else if rates.is_empty() {
            p["ht_mcs"] = json!(self.below(16));
            p["channel_width_mhz"] = json!(self.pick(&[20, 40]));
            p["guard_interval"] = json!(self.pick(&["long", "short"]));
            p["band_ghz"] = json!(self.pick(&[2.4, 5.0]));
        } else {
            p["data_rate_mbps"] = json!(self.pick(rates));
            if std == "802.11b" && self.chance(0.3) {
                p["preamble"] = json!(self.choice("phy.preamble"));
            }
            if std == "802.11g" && self.chance(0.3) {
                p["slot"] = json!(self.choice("phy.slot"));
            }
        }
        // (rate adaptation over HT MCSs is not modelled)
        if !rates.is_empty() && self.chance(0.15) {
            let rc = self.choice("phy.rate_control");
            self.feature(format!("rate control {rc}"));
            p["rate_control"] = json!(rc);
        }
        p
    }

    /// The MAC: a registered kind, the common keys, and the kind's own
    /// keys from its schema rows.
    fn mac(&mut self, ht: bool, vht_he: bool, stations: usize) -> Value {
        // (VHT and HE PPDUs carry A-MPDUs: the HCF only)
        let kinds: Vec<&str> = MacKindConfig::KINDS
            .iter()
            .copied()
            .filter(|k| !ht || named(k).is_some_and(|m| m.get().ht()))
            .filter(|k| !vht_he || *k == "edca")
            .collect();
        let name = kinds[self.below(kinds.len())];
        self.feature(format!("mac {name}"));
        let mut mac = json!({"kind": name});
        if self.chance(0.3) {
            let a = 1 + self.below(6) as u32;
            let b = a + self.below(5) as u32;
            mac["cw_min"] = json!((1u32 << a) - 1);
            mac["cw_max"] = json!((1u32 << b) - 1);
        }
        for key in ["short_retry_limit", "long_retry_limit", "queue_packets"] {
            if self.chance(0.3) {
                mac[key] = self.number(&format!("mac.{key}"), None).unwrap();
            }
        }
        // (DCF options: the HCF follows 10.22.2)
        for key in ["backoff_rule", "collision_restart", "idle_access"] {
            if name != "edca" && self.chance(0.2) {
                mac[key] = json!(self.choice(&format!("mac.{key}")));
            }
        }
        let no_ack = self.chance(0.15);
        if no_ack {
            self.feature("no ack policy");
            mac["ack_policy"] = json!("noack");
        } else if self.chance(0.1) {
            self.feature("no ack nodes");
            let who = if self.chance(0.5) { "ap".to_string() } else { format!("sta{}", self.below(stations)) };
            mac["no_ack_nodes"] = json!([who]);
        } else if self.chance(0.3) {
            self.feature("rts/cts");
            mac["rts_threshold_bytes"] = json!(self.pick(&[0, 256, 1000]));
        }
        // the kind's own keys (also those it shares with other kinds)
        let own: Vec<&'static str> =
            MacKindConfig::keys().iter().skip(1).filter(|k| k.when.contains(&name)).map(|k| k.path).collect();
        for key in own {
            if !self.chance(0.3) {
                continue;
            }
            let path = format!("mac.{key}");
            let k = schema::lookup(&path, Some(name)).unwrap_or_else(|| panic!("{path} is not in the schema"));
            let v = match k.ty {
                Ty::Bool => json!(self.chance(0.5)),
                Ty::Str => json!(self.choice_in(&path, Some(name))),
                Ty::Int | Ty::Float => match self.number(&path, Some(name)) {
                    Some(v) => v,
                    None => continue,
                },
                Ty::Strs if key == "no_ack_acs" => {
                    json!([self.pick(&["bk", "be", "vi", "vo"])])
                }
                _ => continue,
            };
            if key == "poll" && v != json!("off") {
                self.feature(format!("edca poll {}", v.as_str().unwrap()));
            }
            mac[key] = v;
        }
        // a service period no longer than the polling interval
        if let Some(max) = mac.get("poll_max_period_ms").and_then(Value::as_f64) {
            let interval = mac.get("poll_interval_ms").and_then(Value::as_f64).unwrap_or(20.0);
            mac["poll_max_period_ms"] = json!(max.min(interval));
        }
        // one exchange (0) as often as a longer TXOP
        if mac.get("txop_limit_us").is_some() && self.chance(0.5) {
            mac["txop_limit_us"] = json!(0.0);
        }
        mac
    }

    fn tcp(&mut self, p: f64) -> Value {
        let mut t = self.section("tcp", None, p, &["trace_cwnd", "syn_retries", "rwnd_packets"]);
        if self.chance(0.5) {
            let cc = self.choice("tcp.cc");
            t["cc"] = json!(cc);
        }
        if self.chance(0.5) {
            t["recovery"] = json!(self.choice("tcp.recovery"));
        }
        if t.get("rack_tlp") == Some(&json!(true)) {
            t["recovery"] = json!("sack");
            t["sack"] = json!(true);
        } else if t.get("recovery").is_some_and(|r| r != "sack") {
            // (RACK-TLP needs SACK recovery, whatever the [tcp] table says)
            t["rack_tlp"] = json!(false);
        }
        if t.get("recovery") == Some(&json!("sack")) {
            t["sack"] = json!(true);
        }
        t
    }

    fn traffic(&mut self, i: usize, stations: usize, duration: f64, peers: &[&str]) -> Value {
        let name = format!("f{i}");
        let all = self.chance(0.5);
        let sel = if all { json!("all") } else { json!([self.below(stations)]) };
        let dir = self.choice("traffic[].direction");
        let peer = self.pick(peers);
        let mut t = if self.chance(0.45) {
            // (a TCP flow's peer is a wired host: the AP only bridges)
            let mut t = json!({"name": name, "kind": "tcp", "peer": "srv", "direction": dir, "stations": sel});
            if self.chance(0.3) {
                t["tcp"] = self.tcp(0.2);
            }
            if self.chance(0.3) {
                t["bytes"] = json!(self.pick(&[1, 1000, 50_000, 1_000_000]));
            }
            self.feature(format!("tcp {dir}"));
            t
        } else {
            let pattern = self.choice("traffic[].pattern");
            let mut t = json!({"name": name, "kind": "udp", "pattern": pattern, "direction": dir, "stations": sel,
                               "peer": peer});
            if self.chance(0.5) {
                t["msdu_bytes"] = json!(self.pick(&[36, 100, 576, 1500, 2304]));
            }
            match pattern.as_str() {
                "cbr" | "poisson" | "on-off" => {
                    t["rate_mbps"] = json!(self.uniform(0.01, 20.0));
                    if pattern == "on-off" {
                        t["on_s"] = json!(self.uniform(0.01, duration));
                        t["off_s"] = json!(self.uniform(0.01, duration));
                        if self.chance(0.5) {
                            t["on_off_distribution"] =
                                json!(self.choice_in("traffic[].on_off_distribution", Some("on-off")));
                        }
                    }
                }
                "game" | "ping" => {
                    if self.chance(0.5) {
                        t["interval_ms"] = json!(self.uniform(1.0, 200.0));
                    }
                    if self.chance(0.3) {
                        t["payload_bytes"] = json!(self.below(1400));
                    }
                }
                "trace" => {
                    let file = self.pick(&["movie-mpeg4-starwars-hq.txt", "chat-h263-lecture-vbr.txt"]);
                    t["trace_file"] = json!(format!("{}/../../scenarios/traces/{file}", env!("CARGO_MANIFEST_DIR")));
                }
                _ => {}
            }
            self.feature(format!("udp {pattern} {dir}"));
            t
        };
        if self.chance(0.2) {
            t["start_s"] = json!(self.uniform(0.0, duration * 0.5));
        }
        if self.chance(0.15) {
            t["start_stagger_s"] = json!(self.uniform(0.0, duration * 0.2));
        }
        if self.chance(0.15) {
            // after the last station's start
            let n = if all { stations } else { 1 };
            let last =
                t["start_s"].as_f64().unwrap_or(0.0) + (n - 1) as f64 * t["start_stagger_s"].as_f64().unwrap_or(0.0);
            t["stop_s"] = json!(last + self.uniform(0.01, duration));
        }
        t
    }

    /// The channel: none, PER per direction, a fixed-PER model, or the SNR
    /// or threshold channel with distances (which mobility and roaming
    /// need). Returns whether stations have positions in a radio channel.
    fn channel(&mut self, doc: &mut Value, want_radio: bool, ht: bool) -> bool {
        // (the channel models judge legacy rates; 802.11n takes wlan.per_*)
        let mode = if ht {
            self.below(2)
        } else if want_radio {
            3 + self.below(2)
        } else {
            self.below(5)
        };
        match mode {
            0 => false,
            1 => {
                self.feature("channel per");
                doc["wlan"]["per_uplink"] = json!(self.pick(&[0.0, 0.01, 0.1, 0.3]));
                doc["wlan"]["per_downlink"] = json!(self.pick(&[0.0, 0.01, 0.1, 0.3]));
                false
            }
            2 => {
                self.feature("channel fixed");
                let frames = self.choice_in("channel.frames", Some("fixed"));
                doc["channel"] = json!({"model": "fixed", "per": self.pick(&[0.01, 0.1, 0.3]), "frames": frames});
                false
            }
            _ => {
                let model = if mode == 3 { "snr" } else { "threshold" };
                self.feature(format!("channel {model}"));
                let mut c = json!({"model": model,
                                   "propagation": {"exponent": self.uniform(2.0, 4.0)}});
                if self.chance(0.3) {
                    c["propagation"]["shadowing_sigma_db"] = json!(self.uniform(0.0, 6.0));
                    c["propagation"]["shadowing"] = json!(self.choice_in("channel.propagation.shadowing", Some(model)));
                }
                doc["channel"] = c;
                doc["wlan"]["distance_m"] = json!(self.uniform(1.0, 60.0));
                true
            }
        }
    }
}

/// A random scenario of case `case`, and the features it uses.
fn scenario(case: u64) -> (Value, Vec<String>) {
    let g = &mut Gen::new(case);
    let duration = g.pick(&[0.2, 0.3, 0.5, 1.0]);
    let stations = 1 + g.below(6);
    let phy = g.phy();
    let vht_he = phy.get("mcs").is_some();
    let ht = phy.get("ht_mcs").is_some() || vht_he;
    let mac = g.mac(ht, vht_he, stations);
    let kind = mac["kind"].as_str().unwrap().to_string();
    let mut doc = json!({
        "scenario": {"name": format!("case-{case}"), "duration_s": duration,
                     "sample_interval_s": 0.1},
        "phy": phy,
        "mac": mac,
        "wlan": {"stations": stations},
        "nodes": [{"name": "srv"}],
        "links": [{"a": "ap", "b": "srv", "rate_mbps": g.pick(&[10.0, 100.0, 1000.0]),
                   "delay_ms": g.uniform(0.05, 20.0)}],
    });
    if g.chance(0.2) {
        doc["scenario"]["warmup_s"] = json!(duration * g.uniform(0.0, 0.5));
    }
    let mut ap = json!({});
    if g.chance(0.7) {
        ap["qdisc"] = g.qdisc("ap");
    }
    if g.chance(0.3) {
        doc["wlan"]["station_qdisc"] = g.qdisc("station");
    }
    if g.chance(0.3) {
        ap["queue_packets"] = g.number("ap.queue_packets", None).unwrap();
    }
    if kind != "pcf" && kind != "multipoll" && g.chance(0.3) {
        ap["beacons"] = json!(g.chance(0.5));
    }
    // several cells and roaming, or moving stations: a radio channel
    let roam = !ht && g.chance(0.12);
    let moving = !ht && g.chance(0.12);
    let radio = g.channel(&mut doc, roam || moving, ht);
    if roam {
        g.feature("roaming");
        doc["wlan"]["aps"] = json!(2);
        doc["wlan"]["ap_positions"] = json!([[0.0, 0.0], [60.0, 0.0]]);
        doc["wlan"].as_object_mut().unwrap().remove("distance_m");
        let pos: Vec<Value> = (0..stations).map(|_| json!([g.uniform(-10.0, 70.0), g.uniform(-10.0, 10.0)])).collect();
        doc["wlan"]["positions"] = json!(pos);
        doc["wlan"]["association"] = json!((0..stations).map(|_| g.below(2)).collect::<Vec<_>>());
        if g.chance(0.5) {
            doc["wlan"]["ap_channels"] = json!([1, 6]);
        }
        let mut r = json!({"threshold_dbm": g.uniform(-90.0, -30.0),
                           "hysteresis_db": g.uniform(0.0, 8.0),
                           "check_interval_ms": g.uniform(20.0, 200.0)});
        for key in ["scan", "queued", "reroute"] {
            if g.chance(0.5) {
                r[key] = json!(g.choice(&format!("wlan.roaming.{key}")));
            }
        }
        doc["wlan"]["roaming"] = r;
        doc["links"] = json!([
            {"a": "ap", "b": "sw", "rate_mbps": 100.0, "delay_ms": 0.5},
            {"a": "ap1", "b": "sw", "rate_mbps": 100.0, "delay_ms": 0.5},
            {"a": "sw", "b": "srv", "rate_mbps": 100.0, "delay_ms": g.uniform(0.1, 10.0)}
        ]);
        doc["nodes"] = json!([{"name": "sw", "kind": "router"}, {"name": "srv"}]);
    }
    if moving && radio {
        let model = g.choice("wlan.mobility[].model");
        g.feature(format!("mobility {model}"));
        let mut m = json!({"model": model, "stations": if g.chance(0.5) { json!("all") } else { json!([0]) }});
        match model.as_str() {
            "linear" => {
                m["speed_mps"] = json!(g.uniform(0.5, 30.0));
                if g.chance(0.5) {
                    m["heading_deg"] = json!(g.uniform(-180.0, 180.0));
                }
            }
            "waypoints" => {
                m["waypoints"] = json!([[0.0, 5.0, 0.0], [duration * 0.5, 40.0, 5.0], [duration, 10.0, -5.0]]);
            }
            _ => {
                m["area_m"] = json!([[-40.0, -40.0], [40.0, 40.0]]);
                m["speed_min_mps"] = json!(g.uniform(0.5, 5.0));
                m["speed_max_mps"] = json!(g.uniform(5.0, 30.0));
                if g.chance(0.5) {
                    m["pause_s"] = json!(g.uniform(0.0, 0.2));
                }
            }
        }
        doc["wlan"]["mobility"] = json!([m]);
    }
    if g.chance(0.2) {
        let pk = g.choice("ap.proxy.kind");
        g.feature(format!("proxy {pk}"));
        ap["proxy"] = json!({"kind": pk});
    }
    if ap.as_object().is_some_and(|m| !m.is_empty()) {
        doc["ap"] = ap;
    }
    if g.chance(0.5) {
        doc["tcp"] = g.tcp(0.25);
    }
    let flows = 1 + g.below(3);
    let peers: &[&str] = if g.chance(0.2) { &["srv", "ap"] } else { &["srv"] };
    doc["traffic"] = Value::Array((0..flows).map(|i| g.traffic(i, stations, duration, peers)).collect());
    (doc, std::mem::take(&mut g.features))
}

enum Outcome {
    Invalid(String),
    Finished(String),
    Stopped { sim_s: f64 },
    RunError(String),
    Panic(String),
}

/// Run `json` with `seed` in its own thread; None if it hung.
fn run(json: String, seed: u64) -> Option<Outcome> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let t0 = Instant::now();
        let mut sim = 0.0;
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            api::run_json_chunked(&json, seed, api::CHUNK_WALL, |p| {
                sim = p.sim_s;
                if t0.elapsed() > BUDGET {
                    Control::Stop
                } else {
                    Control::Continue
                }
            })
        }));
        let out = match got {
            Ok(Ok(Some(text))) => Outcome::Finished(text),
            Ok(Ok(None)) => Outcome::Stopped { sim_s: sim },
            Ok(Err(ApiError::Config(e))) => Outcome::Invalid(e.to_string()),
            Ok(Err(ApiError::Run(e))) => Outcome::RunError(e),
            Err(p) => Outcome::Panic(
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default(),
            ),
        };
        let _ = tx.send(out);
    });
    rx.recv_timeout(BUDGET + GRACE).ok()
}

fn without_wall(v: &Value) -> Value {
    let mut v = v.clone();
    v.as_object_mut().unwrap().remove("wall_time_s");
    v
}

/// The result's own figures: per flow delivered <= generated (with an
/// I-TCP proxy too: the AP's segments of a split flow are the flow's), and
/// the ledger adding up.
fn check_result(r: &Value) -> Result<(), String> {
    for f in r["flows"].as_array().ok_or("no flows")? {
        let (gen, del) = (f["packets_generated"].as_u64(), f["packets_delivered"].as_u64());
        let (Some(gen), Some(del)) = (gen, del) else { return Err(format!("flow {} without counts", f["name"])) };
        if del > gen {
            return Err(format!("flow {}: {del} packets delivered of {gen} generated", f["name"]));
        }
        let (wg, wd) = (f["window_generated_packets"].as_u64(), f["window_delivered_packets"].as_u64());
        if let (Some(wg), Some(wd)) = (wg, wd) {
            if wg > gen || wd > del {
                return Err(format!("flow {}: window counts above the run's", f["name"]));
            }
        }
    }
    let l = &r["ledger"];
    let dropped: u64 = l["dropped"].as_object().ok_or("no ledger")?.values().filter_map(Value::as_u64).sum();
    let (g, d, i) = (l["generated"].as_u64(), l["delivered"].as_u64(), l["in_flight"].as_u64());
    match (g, d, i) {
        (Some(g), Some(d), Some(i)) if g == d + dropped + i => Ok(()),
        _ => Err(format!("ledger does not add up: {l}")),
    }
}

#[test]
fn random_scenarios_over_every_feature_run_cleanly_and_reproducibly() {
    let cases: Vec<u64> = match (std::env::var("WIFITCP_SCENARIO_CASE"), std::env::var("WIFITCP_SCENARIO_CASES")) {
        (Ok(c), _) => vec![c.trim().parse().expect("a case number")],
        (_, Ok(n)) => (1..=n.trim().parse::<u64>().expect("a number of cases")).collect(),
        _ => (1..=DEFAULT_CASES).collect(),
    };
    let t0 = Instant::now();
    let (mut valid, mut finished, mut stopped) = (0usize, 0usize, 0usize);
    let mut invalid: BTreeMap<String, usize> = BTreeMap::new();
    let mut coverage: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for &case in &cases {
        let (doc, features) = scenario(case);
        let text = doc.to_string();
        if cases.len() == 1 {
            eprintln!("case {case}: {text}");
        }
        let seed = 1 + case % 7;
        match run(text.clone(), seed) {
            None => failures.push(format!("case {case}: no progress for {:?}: {text}", BUDGET + GRACE)),
            Some(Outcome::Invalid(e)) => {
                // the reason without its numbers, to count alike ones together
                let what: String = e.split(':').next().unwrap_or("").to_string();
                *invalid.entry(what).or_default() += 1;
                eprintln!("case {case}: rejected: {e}");
            }
            Some(Outcome::Panic(m)) => failures.push(format!("case {case}: panic: {m}: {text}")),
            Some(Outcome::RunError(m)) => failures.push(format!("case {case}: run failed: {m}: {text}")),
            Some(Outcome::Stopped { sim_s }) => {
                valid += 1;
                stopped += 1;
                eprintln!("case {case}: stopped after {BUDGET:?} at {sim_s:.3} s simulated");
            }
            Some(Outcome::Finished(out)) => {
                valid += 1;
                finished += 1;
                for f in features {
                    *coverage.entry(f).or_default() += 1;
                }
                let r: Value = serde_json::from_str(&out).expect("result JSON");
                if let Err(e) = check_result(&r) {
                    failures.push(format!("case {case}: {e}: {text}"));
                }
                match run(text.clone(), seed) {
                    Some(Outcome::Finished(again)) => {
                        let again: Value = serde_json::from_str(&again).unwrap();
                        if without_wall(&again) != without_wall(&r) {
                            failures.push(format!("case {case}: a second run with seed {seed} differs: {text}"));
                        }
                    }
                    _ => failures.push(format!("case {case}: a second run did not finish: {text}")),
                }
            }
        }
    }
    eprintln!(
        "{} scenarios in {:.1} s: {valid} valid ({finished} finished, {stopped} stopped), {} rejected",
        cases.len(),
        t0.elapsed().as_secs_f64(),
        invalid.values().sum::<usize>()
    );
    for (why, n) in &invalid {
        eprintln!("  rejected {n:4}: {why}");
    }
    for (f, n) in &coverage {
        eprintln!("  finished {n:4}: {f}");
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    if cases.len() >= 100 {
        // the generator must mostly produce valid scenarios, or it tests nothing
        assert!(valid * 10 >= cases.len() * 7, "only {valid} of {} scenarios valid", cases.len());
        for must in ["mac dcf", "mac edca", "mac pcf", "mac multipoll", "phy 802.11a", "phy 802.11b", "phy 802.11g"] {
            assert!(coverage.contains_key(must), "no finished run with {must}");
        }
    }
}

/// Found by the generator (reduced): an AP polling by activity whose
/// service period has no grant (no station active) ends the period where
/// it began, the medium idle all along; its EDCAFs then resumed counting
/// from AIFS after the medium had freed, an instant already past, and the
/// run panicked ("event scheduled in the past").
#[test]
fn an_empty_polling_period_resumes_contention_from_its_end() {
    let doc = json!({
        "scenario": {"name": "empty-period", "duration_s": 1.0},
        "phy": {"standard": "802.11g", "data_rate_mbps": 2.0},
        "mac": {"kind": "edca", "poll": "activity"},
        "wlan": {"stations": 6},
        "traffic": [{"name": "f1", "kind": "udp", "pattern": "poisson", "rate_mbps": 15.2, "msdu_bytes": 36,
                     "direction": "downlink", "stations": [3]}]
    });
    let r: Value = serde_json::from_str(&api::run_json(&doc.to_string(), 1).expect("runs")).unwrap();
    check_result(&r).unwrap();
    assert!(r["flows"][0]["packets_delivered"].as_u64().unwrap() > 1000, "{}", r["flows"][0]);
}
