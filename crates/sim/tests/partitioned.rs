//! Partitioned runs (`world/part.rs`): cells on different channels run as
//! partitions on several threads, and the result JSON is the sequential
//! engine's byte for byte (but for `wall_time_s`), whatever the number of
//! threads, including the partitioned algorithm on one thread. A scenario
//! that cannot be partitioned (one cell, a wired link) runs
//! sequentially with the same result.
use serde_json::{json, Value};
use wifitcp_sim::api::run_json;
use wifitcp_sim::config::deployment::DeploymentConfig;
use wifitcp_sim::config::Scenario;
use wifitcp_sim::world::{Engine, World};

/// The result text without its wall time's value (the only one that may
/// differ).
fn strip_wall(text: &str) -> String {
    let key = "\"wall_time_s\":";
    let i = text.find(key).expect("a wall time");
    let rest = &text[i + key.len()..];
    let j = rest.find([',', '}']).expect("the end of the value");
    format!("{}{}", &text[..i], &rest[j..])
}

fn with_threads(s: &Value, threads: u32) -> String {
    let mut s = s.clone();
    s["scenario"]["threads"] = json!(threads);
    s.to_string()
}

/// The result of `s` by the partitioned engine on one thread (the same
/// algorithm as on several, stepped in partition order), and its number of
/// partitions.
fn partitioned_one_thread(s: &Value, seed: u64) -> (String, usize) {
    let sc = Scenario::from_json(&s.to_string()).unwrap();
    let e = World::build_partitioned(&sc, seed, 1).unwrap();
    let parts = e.partitions();
    let mut r = e.run(std::time::Instant::now()).unwrap();
    r.set("scenario", json!(sc.scenario.name));
    r.set("seed", json!(seed));
    r.set("version", json!(wifitcp_sim::api::VERSION));
    (r.to_json_string(), parts)
}

/// The result of the sequential engine (one event queue).
fn sequential(s: &Value, seed: u64) -> String {
    let sc = Scenario::from_json(&s.to_string()).unwrap();
    let e = Engine::sequential(&sc, seed).unwrap();
    assert_eq!(e.partitions(), 1);
    let mut r = e.run(std::time::Instant::now()).unwrap();
    r.set("scenario", json!(sc.scenario.name));
    r.set("seed", json!(seed));
    r.set("version", json!(wifitcp_sim::api::VERSION));
    r.to_json_string()
}

fn partitions(s: &Value, threads: usize) -> usize {
    let sc = Scenario::from_json(&s.to_string()).unwrap();
    Engine::build(&sc, 1, threads).unwrap().partitions()
}

/// Every engine gives `s` the same result bytes; returns the sequential
/// result and the number of partitions of the partitioned engine.
fn same_everywhere(s: &Value, seed: u64) -> (Value, usize) {
    let text = sequential(s, seed);
    let seq = strip_wall(&text);
    assert!(
        seq == strip_wall(&run_json(&with_threads(s, 1), seed).unwrap()),
        "threads = 1 differs from the sequential engine"
    );
    let two = strip_wall(&run_json(&with_threads(s, 2), seed).unwrap());
    let all = strip_wall(&run_json(&with_threads(s, 0), seed).unwrap());
    let (one, parts) = partitioned_one_thread(s, seed);
    let one = strip_wall(&one);
    assert!(seq == one, "partitioned on one thread differs from the sequential engine");
    assert!(seq == two, "partitioned on two threads differs from the sequential engine");
    assert!(seq == all, "partitioned on every core differs from the sequential engine");
    (serde_json::from_str(&text).unwrap(), parts)
}

/// `aps` APs on a hexagonal layout under `plan`, `n` stations in hotspots,
/// SNR channel; a third of the stations saturated uplink, a third
/// receiving CBR from their AP, a third pinging their AP; fq_codel at the
/// APs; warm-up and a short sampling interval.
fn mixed(aps: u32, plan: &str, n: usize) -> Value {
    let d = json!({"layout": "hex", "aps": aps, "spacing_m": 25.0, "channels": plan,
                   "placement": "hotspots", "hotspots": 5, "hotspot_radius_m": 10.0});
    let cfg: DeploymentConfig = serde_json::from_value(d.clone()).unwrap();
    let assoc = cfg.derive(n).association;
    let ap = |a: u32| if a == 0 { "ap".to_string() } else { format!("ap{a}") };
    let third = |k: usize| -> (Vec<u32>, Vec<String>) {
        (0..n).filter(|i| i % 3 == k).map(|i| (i as u32, ap(assoc[i]))).unzip()
    };
    let (up, up_peers) = third(0);
    let (down, down_peers) = third(1);
    let (ping, ping_peers) = third(2);
    json!({
        "scenario": {"name": "partitioned", "duration_s": 0.6, "warmup_s": 0.1, "sample_interval_s": 0.05},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54},
        "wlan": {"stations": n},
        "deployment": d,
        "channel": {"model": "snr"},
        "ap": {"beacons": false, "qdisc": {"kind": "fq-codel"}},
        "traffic": [
            {"name": "up", "kind": "udp", "pattern": "saturated", "msdu_bytes": 1500, "stations": up, "peer": up_peers},
            {"name": "down", "kind": "udp", "pattern": "cbr", "rate_mbps": 2.0, "direction": "downlink",
             "stations": down, "peer": down_peers},
            {"name": "ping", "kind": "udp", "pattern": "ping", "interval_ms": 20.0, "stations": ping, "peer": ping_peers}
        ]
    })
}

/// `bench/campus`'s case, smaller: `aps` APs on distinct channels, station
/// i with AP i mod `aps`, saturated uplink.
fn campus(aps: usize, per_ap: usize) -> Value {
    let n = aps * per_ap;
    let names: Vec<String> = (0..aps).map(|k| if k == 0 { "ap".into() } else { format!("ap{k}") }).collect();
    json!({
        "scenario": {"name": "campus", "duration_s": 0.3},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54},
        "wlan": {"stations": n, "aps": aps, "association": (0..n).map(|i| i % aps).collect::<Vec<_>>(),
                 "ap_channels": (0..aps).map(|k| 36 + 4 * k).collect::<Vec<_>>()},
        "ap": {"beacons": false},
        "traffic": [{"name": "sat", "kind": "udp", "pattern": "saturated", "msdu_bytes": 1500,
                     "peer": (0..n).map(|i| names[i % aps].clone()).collect::<Vec<_>>()}]
    })
}

#[test]
fn campus_cells_run_in_parallel_with_the_sequential_result() {
    let s = campus(16, 6);
    let (r, parts) = same_everywhere(&s, 3);
    assert_eq!(parts, 16, "one partition per channel");
    assert!(r["aggregate_mbps"].as_f64().unwrap() > 16.0 * 20.0, "16 saturated cells: {}", r["aggregate_mbps"]);
}

#[test]
fn shared_channels_mixed_traffic_same_result() {
    // 9 APs on 1/6/11: three cells of three APs each
    let s = mixed(9, "2.4ghz", 45);
    let (r, parts) = same_everywhere(&s, 7);
    assert_eq!(parts, 3, "one partition per channel");
    let flows = r["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 45);
    assert!(r["ledger"]["delivered"].as_u64().unwrap() > 0);
    for seed in [1, 2] {
        same_everywhere(&mixed(7, "5ghz", 30), seed);
    }
}

#[test]
fn scenarios_that_cannot_be_partitioned_run_sequentially() {
    // one channel: one cell
    let one = mixed(4, "single", 12);
    assert_eq!(partitions(&one, 2), 1);
    assert_eq!(same_everywhere(&one, 1).1, 1);
    // a wired server behind AP 0 with a TCP download (a TCP flow needs a
    // wired peer): packets may cross cells over the wire
    let mut tcp = mixed(4, "5ghz", 12);
    tcp["nodes"] = json!([{"name": "server"}]);
    tcp["links"] = json!([{"a": "ap", "b": "server", "rate_mbps": 100.0, "delay_ms": 1.0}]);
    tcp["traffic"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "bulk", "kind": "tcp", "direction": "downlink", "stations": [0], "peer": "server"}));
    assert_eq!(partitions(&tcp, 2), 1);
    same_everywhere(&tcp, 1);
    // a wired link between two APs
    let mut wired = mixed(4, "5ghz", 12);
    wired["links"] = json!([{"a": "ap", "b": "ap1", "rate_mbps": 100.0, "delay_ms": 1.0}]);
    assert_eq!(partitions(&wired, 2), 1);
    same_everywhere(&wired, 1);
    // several channels, nothing shared: partitioned
    assert_eq!(partitions(&mixed(4, "5ghz", 12), 2), 4);
    assert_eq!(partitions(&mixed(4, "5ghz", 12), 1), 4, "threads = 1: partitions on the caller's thread");
}

#[test]
fn threads_key_is_checked() {
    let mut s = campus(2, 1);
    s["scenario"]["threads"] = json!(5000);
    let e = run_json(&s.to_string(), 1).unwrap_err().to_string();
    assert!(e.contains("scenario.threads"), "{e}");
}

/// Partitions of several cells (the same code path: a partition's cells
/// renumbered from 0, its outputs drained in cell order) give the same
/// result too.
#[test]
fn groups_of_cells_same_result() {
    for (s, seed) in [(campus(16, 4), 1), (mixed(7, "5ghz", 30), 2), (mixed(9, "2.4ghz", 45), 3)] {
        let seq = strip_wall(&run_json(&with_threads(&s, 1), seed).unwrap());
        let sc = Scenario::from_json(&s.to_string()).unwrap();
        for (threads, groups) in [(1, 2), (2, 3), (2, 5)] {
            let e = World::build_partitioned_in(&sc, seed, threads, Some(groups)).unwrap();
            assert!(e.partitions() > 1);
            let mut r = e.run(std::time::Instant::now()).unwrap();
            r.set("scenario", json!(sc.scenario.name));
            r.set("seed", json!(seed));
            r.set("version", json!(wifitcp_sim::api::VERSION));
            assert!(strip_wall(&r.to_json_string()) == seq, "{groups} groups on {threads} threads differ");
        }
    }
}

/// Other MACs and AP queues: beacons, EDCA, PCF and multi-poll (point
/// coordinators in every cell), airtime fairness at the AP, RTS/CTS.
#[test]
fn other_macs_same_result() {
    let variants: [(&str, Value); 6] = [
        ("beacons", json!({"ap": {"beacons": true}})),
        ("edca", json!({"mac": {"kind": "edca"}})),
        ("pcf", json!({"mac": {"kind": "pcf"}, "ap": {"beacons": true}})),
        ("multipoll", json!({"mac": {"kind": "multipoll"}, "ap": {"beacons": true}})),
        ("airtime", json!({"ap": {"beacons": false, "qdisc": {"kind": "airtime"}}})),
        ("rts", json!({"mac": {"kind": "dcf", "rts_threshold_bytes": 500}})),
    ];
    for (name, v) in variants {
        let mut s = campus(6, 5);
        for (table, body) in v.as_object().unwrap() {
            s[table] = body.clone();
        }
        let (_, parts) = same_everywhere(&s, 2);
        assert_eq!(parts, 6, "{name}");
    }
}
