//! Fuzz target: random valid scenarios pushed to the schema's limits
//! (`config::schema::KEYS`: the smallest and largest value of a key, or a
//! value between), run from a fixed list of seeds so that CI is
//! reproducible and bounded in time.
//!
//! For every scenario the core must either reject it with a configuration
//! error, or run it and
//! * never panic (a panic anywhere, the ledger's included, is a failure);
//! * never hang: each run gets `BUDGET` of wall time, after which the
//!   progress callback stops it; a run that does not come back to its
//!   callback within `BUDGET + GRACE` (simulated time stuck inside one
//!   chunk) is a failure;
//! * never fail its end-of-run checks (`ApiError::Run`: a packet delivered
//!   twice, dropped after delivery, a ledger that does not balance, a TCP
//!   stream with gaps);
//! * give the same bytes again for the same seed (for runs that end).
//!
//! More seeds: `WIFITCP_FUZZ_SEEDS=1000 cargo test -p wifitcp-sim --test
//! fuzz_limits -- --nocapture` (seeds 1..=N instead of the fixed list;
//! `WIFITCP_FUZZ_SEEDS=140,205` runs those seeds).
use serde_json::{json, Value};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use wifitcp_core::RngStream;
use wifitcp_sim::api::{self, ApiError, Control};

/// The seeds CI runs (fixed; extend, do not reorder).
const SEEDS: &[u64] = &[
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    32, 33, 34, 35, 36, 37, 38, 39, 40,
];
/// Wall time a run may take before it is stopped (it is not a failure).
const BUDGET: Duration = Duration::from_secs(3);
/// Time beyond the budget after which a run that has not come back to its
/// progress callback counts as hung.
const GRACE: Duration = Duration::from_secs(20);

struct G(RngStream);

impl G {
    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }
    fn chance(&mut self, p: f64) -> bool {
        self.0.unit() < p
    }
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
    /// A float at one of its limits or between them (log-uniform when both
    /// are positive).
    fn edge(&mut self, lo: f64, hi: f64) -> f64 {
        match self.below(4) {
            0 => lo,
            1 => hi,
            _ if lo > 0.0 => (lo.ln() + self.0.unit() * (hi.ln() - lo.ln())).exp(),
            _ => lo + self.0.unit() * (hi - lo),
        }
    }
    fn edge_int(&mut self, lo: u64, hi: u64, usual: u64) -> u64 {
        match self.below(4) {
            0 => lo,
            1 => hi,
            2 => usual,
            _ => self.0.range_inclusive(lo, hi.min(lo.saturating_add(1000))),
        }
    }
}

fn phy(g: &mut G) -> Value {
    let (std, rates): (&str, &[f64]) = match g.below(3) {
        0 => ("802.11b", &[1.0, 2.0, 5.5, 11.0]),
        1 => ("802.11a", &[6.0, 9.0, 12.0, 18.0, 24.0, 36.0, 48.0, 54.0]),
        _ => ("802.11g", &[1.0, 2.0, 5.5, 11.0, 6.0, 12.0, 24.0, 54.0]),
    };
    let mut p = json!({"standard": std, "data_rate_mbps": g.pick(rates)});
    if g.chance(0.2) {
        p["slot_us"] = json!(g.edge(1.0, 1e4));
    }
    if g.chance(0.1) {
        p["sifs_us"] = json!(g.edge(0.0, 1e4));
    }
    p
}

fn mac(g: &mut G) -> Value {
    let a = g.below(16) as u32;
    let b = a + g.below((16 - a) as usize) as u32;
    json!({
        "cw_min": (1u32 << (a.max(1))) - 1,
        "cw_max": (1u32 << (b.max(a.max(1)))) - 1,
        "short_retry_limit": g.edge_int(1, 255, 7),
        "long_retry_limit": g.edge_int(1, 255, 4),
        "rts_threshold_bytes": g.pick(&[0, 1, 500, 2347, 65535, 65536]),
        "queue_packets": g.edge_int(1, 1_000_000, 50),
        "backoff_rule": g.pick(&["idle-slots", "busy-slot-counts"]),
        "collision_restart": g.pick(&["ack-timeout-difs", "eifs"]),
        "idle_access": g.pick(&["immediate", "backoff"]),
        "group_bystanders": g.chance(0.5),
    })
}

fn qdisc(g: &mut G) -> Value {
    let kind = g.pick(wifitcp_queue::QdiscConfig::KINDS);
    let mut q = json!({ "kind": kind });
    let ms = |g: &mut G| g.edge(1e-3, 1e7);
    match kind {
        "ack-first" => q["ack_capacity"] = json!(g.edge_int(1, 1_000_000, 50)),
        "keceli-sorted" | "keceli-grouped" => {
            q["alpha"] = json!(g.edge(0.0, 1.0));
            q["beta"] = json!(g.edge(1e-3, 1e3));
            q["active_thresh_ms"] = json!(ms(g));
            q["timeout_ms"] = json!(ms(g));
            q["pass_first"] = json!(g.edge_int(0, 1_000_000, 2));
            if kind == "keceli-grouped" {
                q["gamma"] = json!(g.edge(0.0, 0.999));
            }
        }
        "pilosof" => {
            q["mss"] = json!(g.edge_int(64, 65495, 1460));
            q["active_thresh_ms"] = json!(ms(g));
        }
        "vbs" => q["c"] = json!(g.edge(0.01, 0.99)),
        "cake-ack" => q["mode"] = json!(g.pick(&["conservative", "aggressive", "off"])),
        "codel" => {
            q["target_ms"] = json!(ms(g));
            q["interval_ms"] = json!(ms(g));
        }
        "fq-codel" | "airtime" => {
            q["flows"] = json!(g.edge_int(1, 65536, 1024));
            q["target_ms"] = json!(ms(g));
            q["memory_limit"] = json!(g.edge_int(1, 1 << 40, 32 << 20));
            q["ack_filter"] = json!(g.pick(&["off", "conservative", "aggressive"]));
            if kind == "airtime" {
                q["quantum_us"] = json!(g.edge(1.0, 1e6));
                q["fq_quantum"] = json!(g.edge_int(1, 1_000_000, 1514));
            } else {
                q["quantum"] = json!(g.edge_int(1, 1_000_000, 1514));
            }
        }
        _ => {}
    }
    q
}

fn tcp(g: &mut G) -> Value {
    let mut t = json!({});
    let sack = g.chance(0.7);
    t["sack"] = json!(sack);
    t["recovery"] = json!(if sack { g.pick(&["tahoe", "reno", "newreno", "sack"]) } else { "newreno" });
    t["cc"] = json!(g.pick(&["reno", "vegas", "cubic", "compound"]));
    if g.chance(0.5) {
        t["mss"] = json!(g.edge_int(100, 65495, 1460));
    }
    if g.chance(0.5) {
        t["window_scaling"] = json!(true);
        t["rwnd_packets"] = json!(g.edge_int(1, 100_000, 42));
    }
    if g.chance(0.3) {
        t["initial_window"] = json!(g.edge_int(1, 10_000, 2));
    }
    if g.chance(0.3) {
        t["delayed_ack_count"] = json!(g.edge_int(1, 1000, 2));
        t["delayed_ack_ms"] = json!(g.edge(1e-3, 500.0));
    }
    if g.chance(0.3) {
        t["min_rto_ms"] = json!(g.edge(1e-3, 1e3));
        t["initial_rto_ms"] = json!(g.edge(1e-3, 1e4));
        t["max_rto_ms"] = json!(1e7);
    }
    t["timestamps"] = json!(g.chance(0.3));
    t["limited_transmit"] = json!(g.chance(0.5));
    t["trace_cwnd"] = json!(g.chance(0.2));
    if g.chance(0.3) {
        t["syn_retries"] = json!(g.edge_int(0, 1_000_000_000, 6));
        t["max_retransmissions"] = json!(g.edge_int(1, 1_000_000_000, 15));
    }
    t
}

fn traffic(g: &mut G, i: usize, stations: u64, duration: f64) -> Value {
    let name = format!("f{i}");
    let n = g.below(stations as usize) as u64;
    let sel = if g.chance(0.5) { json!("all") } else { json!([n]) };
    let dir = g.pick(&["uplink", "downlink"]);
    let mut t = if g.chance(0.5) {
        let mut t = json!({"name": name, "kind": "tcp", "peer": "srv", "direction": dir, "stations": sel,
                           "tcp": tcp(g)});
        if g.chance(0.3) {
            t["bytes"] = json!(g.edge_int(1, 1_000_000_000_000_000, 100_000));
        }
        t
    } else {
        let pattern = g.pick(&["saturated", "cbr", "poisson"]);
        let mut t = json!({"name": name, "kind": "udp", "pattern": pattern, "direction": dir, "stations": sel,
                           "msdu_bytes": g.edge_int(36, 2304, 1500),
                           "peer": if g.chance(0.5) { "srv" } else { "ap" }});
        if pattern != "saturated" {
            // the top of the range only for short runs: 1e4 Mbit/s of 36-byte
            // packets is 3.5e7 packets per simulated second
            t["rate_mbps"] = json!(g.edge(1e-6, if duration <= 0.05 { 1e4 } else { 100.0 }));
        }
        t
    };
    if g.chance(0.3) {
        t["start_s"] = json!(g.edge(0.0, duration));
    }
    if g.chance(0.2) {
        t["start_stagger_s"] = json!(g.edge(0.0, duration));
    }
    if g.chance(0.2) {
        t["stop_s"] = json!(t["start_s"].as_f64().unwrap_or(0.0) + g.edge(1e-6, duration));
    }
    t
}

fn channel(g: &mut G, doc: &mut Value) {
    match g.below(4) {
        0 => {}
        1 => {
            doc["wlan"]["per_uplink"] = json!(g.edge(0.0, 1.0));
            doc["wlan"]["per_downlink"] = json!(g.edge(0.0, 1.0));
        }
        2 => {
            doc["channel"] = json!({"model": "fixed", "per": g.edge(0.0, 1.0), "frames": g.pick(&["data", "all"])});
        }
        _ => {
            doc["channel"] = json!({"model": g.pick(&["snr", "threshold"]),
                                    "propagation": {"exponent": g.edge(1.0, 10.0),
                                                    "shadowing_sigma_db": g.edge(0.0, 100.0)}});
            doc["wlan"]["distance_m"] = json!(g.edge(1e-3, 1e6));
        }
    }
}

/// A random scenario of seed `seed`.
fn scenario(seed: u64) -> Value {
    let g = &mut G(RngStream::derive(seed, "fuzz/scenario"));
    let duration = g.pick(&[1e-3, 0.05, 0.3, 1.0, 3.0, 1e6]);
    let stations = g.edge_int(1, 30, 5);
    let mut doc = json!({
        "scenario": {"name": format!("fuzz-{seed}"), "duration_s": duration,
                     "warmup_s": if g.chance(0.3) { duration * 0.999 } else { 0.0 },
                     "sample_interval_s": g.pick(&[1e-3_f64, 0.1, 1e6]).max(duration * 90.0 / 2e6)},
        "phy": phy(g),
        "mac": mac(g),
        "wlan": {"stations": stations},
        "nodes": [{"name": "srv"}],
        "links": [{"a": "ap", "b": "srv", "rate_mbps": g.edge(1e-3, 1e6), "delay_ms": g.edge(0.0, 1e5),
                   "queue_packets": g.edge_int(1, 1_000_000, 100)}],
    });
    if g.chance(0.7) {
        doc["ap"] = json!({"qdisc": qdisc(g)});
    }
    if g.chance(0.3) {
        doc["wlan"]["station_qdisc"] = qdisc(g);
    }
    channel(g, &mut doc);
    let flows = 1 + g.below(3);
    doc["traffic"] = Value::Array((0..flows).map(|i| traffic(g, i, stations, duration)).collect());
    doc
}

enum Outcome {
    Invalid(String),
    Finished(String, Duration),
    Stopped { sim_s: f64 },
    RunError(String),
    Panic(String),
}

/// Run `json` with seed 1 in its own thread; None if it hung.
fn run(json: String) -> Option<Outcome> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let t0 = Instant::now();
        let mut sim = 0.0;
        let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            api::run_json_chunked(&json, 1, api::CHUNK_WALL, |p| {
                sim = p.sim_s;
                if t0.elapsed() > BUDGET {
                    Control::Stop
                } else {
                    Control::Continue
                }
            })
        }));
        let out = match got {
            Ok(Ok(Some(text))) => Outcome::Finished(text, t0.elapsed()),
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

fn without_wall(text: &str) -> String {
    let mut v: Value = serde_json::from_str(text).unwrap();
    v.as_object_mut().unwrap().remove("wall_time_s");
    v.to_string()
}

#[test]
fn random_scenarios_at_the_limits_never_panic_hang_or_fail_their_checks() {
    let seeds: Vec<u64> = match std::env::var("WIFITCP_FUZZ_SEEDS") {
        Ok(v) if v.contains(',') => v.split(',').map(|x| x.trim().parse().expect("a seed")).collect(),
        Ok(v) => (1..=v.trim().parse::<u64>().expect("a number of seeds")).collect(),
        Err(_) => SEEDS.to_vec(),
    };
    let (mut valid, mut finished, mut failures) = (0, 0, Vec::new());
    for &seed in &seeds {
        let doc = scenario(seed).to_string();
        match run(doc.clone()) {
            None => failures.push(format!("seed {seed}: no progress for {:?}: {doc}", BUDGET + GRACE)),
            Some(Outcome::Invalid(e)) => eprintln!("seed {seed}: invalid: {e}"),
            Some(Outcome::Panic(m)) => failures.push(format!("seed {seed}: panic: {m}: {doc}")),
            Some(Outcome::RunError(m)) => failures.push(format!("seed {seed}: run failed: {m}: {doc}")),
            Some(Outcome::Stopped { sim_s }) => {
                valid += 1;
                eprintln!("seed {seed}: stopped after {BUDGET:?} at {sim_s:.3} s simulated");
            }
            Some(Outcome::Finished(text, took)) => {
                valid += 1;
                finished += 1;
                if took < Duration::from_millis(500) {
                    match run(doc.clone()) {
                        Some(Outcome::Finished(again, _)) if without_wall(&again) == without_wall(&text) => {}
                        _ => failures.push(format!("seed {seed}: a second run differs: {doc}")),
                    }
                }
            }
        }
    }
    eprintln!("{} scenarios: {valid} valid, {finished} finished", seeds.len());
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    // the generator must mostly produce valid scenarios, or it tests nothing
    assert!(valid * 2 >= seeds.len(), "only {valid} of {} scenarios valid", seeds.len());
    assert!(finished * 4 >= seeds.len(), "only {finished} of {} runs finished", seeds.len());
}
