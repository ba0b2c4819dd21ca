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
    result(&sc, seed, World::build_partitioned(&sc, seed, 1).unwrap())
}

/// The result text of engine `e` run to the end on `sc` with `seed` (with
/// the keys the API adds), and its number of partitions.
fn result(sc: &Scenario, seed: u64, e: Engine) -> (String, usize) {
    let parts = e.partitions();
    let mut r = e.run(std::time::Instant::now()).unwrap();
    r.set("scenario", json!(sc.scenario.name));
    r.set("seed", json!(seed));
    r.set("version", json!(wifitcp_sim::api::VERSION));
    let text = r.to_json_string();
    assert_keys_in_order(&text);
    (text, parts)
}

/// Every object of `text` has its keys in increasing byte order, as a
/// serialised tree of `BTreeMap`s has them: the result is rendered piece by
/// piece (the per-member arrays as they are written), not from a tree.
fn assert_keys_in_order(text: &str) {
    // per open bracket: for an object, its last key and whether a key comes next
    let mut stack: Vec<Option<(String, bool)>> = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => stack.push(Some((String::new(), true))),
            b'[' => stack.push(None),
            b'}' | b']' => drop(stack.pop()),
            b',' => {
                if let Some(Some((_, next_is_key))) = stack.last_mut() {
                    *next_is_key = true;
                }
            }
            b'"' => {
                let start = i;
                i += 1;
                while b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                if let Some(Some((last, next_is_key))) = stack.last_mut() {
                    if *next_is_key {
                        let key = &text[start + 1..i];
                        assert!(last.is_empty() || last.as_str() < key, "key {key} after {last} in the result text");
                        *last = key.to_string();
                        *next_is_key = false;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    assert!(stack.is_empty(), "unbalanced result text");
}

/// The result of the sequential engine (one event queue).
fn sequential(s: &Value, seed: u64) -> String {
    let sc = Scenario::from_json(&s.to_string()).unwrap();
    let (r, parts) = result(&sc, seed, Engine::sequential(&sc, seed).unwrap());
    assert_eq!(parts, 1);
    r
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
    let assoc = cfg.derive(n, None).association;
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
fn stations_with_several_saturated_flows_same_result() {
    // every station sends two saturated flows to its AP, the second active
    // for part of the run only (the round robin over the active ones, with
    // the flows renumbered in each partition)
    let mut s = campus(4, 3);
    let peers = s["traffic"][0]["peer"].clone();
    s["traffic"].as_array_mut().unwrap().push(json!({"name": "small", "kind": "udp", "pattern": "saturated",
                                                     "msdu_bytes": 500, "peer": peers, "start_s": 0.1, "stop_s": 0.2}));
    let (r, parts) = same_everywhere(&s, 2);
    assert_eq!(parts, 4);
    let flows = r["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 24);
    assert!(flows.iter().all(|f| f["packets_delivered"].as_u64().unwrap() > 0), "every flow carries");
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
    // wired peer): packets may cross cells over the wire; the server joins
    // AP 0's cell, no link is cut, so there is nothing to window
    let mut tcp = mixed(4, "5ghz", 12);
    tcp["nodes"] = json!([{"name": "server"}]);
    tcp["links"] = json!([{"a": "ap", "b": "server", "rate_mbps": 100.0, "delay_ms": 1.0}]);
    tcp["traffic"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "bulk", "kind": "tcp", "direction": "downlink", "stations": [0], "peer": "server"}));
    assert_eq!(partitions(&tcp, 2), 1);
    same_everywhere(&tcp, 1);
    // a wired link between two APs: on one thread sequential, on two in
    // windows of the link's latency
    let mut wired = mixed(4, "5ghz", 12);
    wired["links"] = json!([{"a": "ap", "b": "ap1", "rate_mbps": 100.0, "delay_ms": 1.0}]);
    assert_eq!(partitions(&wired, 1), 1);
    assert_eq!(partitions(&wired, 2), 2);
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

// ----------------------------------------------------------------------
// Cells joined by wired links (`world/part.rs`, "Cells joined by wired
// links"; `world/probe.rs`): they run on the sequential engine, and the
// probe measures what windows of the links' latency would meet.

/// `scenarios/pokhrel-campus.toml` (four APs on their own channels, each
/// on a 1 ms link to the server, 40 Compound TCP flows) for `duration` s,
/// its sweep dropped.
fn pokhrel_campus(duration: f64) -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/pokhrel-campus.toml");
    let t: toml::Value = std::fs::read_to_string(path).unwrap().parse().unwrap();
    let mut s = serde_json::to_value(t).unwrap();
    s.as_object_mut().unwrap().remove("sweep");
    s["scenario"].as_object_mut().unwrap().remove("seeds");
    s["scenario"]["duration_s"] = json!(duration);
    s["scenario"]["warmup_s"] = json!(duration / 10.0);
    s
}

/// `bench/campus --tcp`'s case: `aps` APs on their own channels, each on
/// a 1 Gbit/s, 0.5 ms link to a router, the router on a 10 Gbit/s, 5 ms
/// link to the server; every station downloads a bulk TCP flow.
fn campus_tcp(aps: usize, per_ap: usize, duration: f64) -> Value {
    let mut s = campus(aps, per_ap);
    let names: Vec<String> = (0..aps).map(|k| if k == 0 { "ap".into() } else { format!("ap{k}") }).collect();
    s["scenario"]["duration_s"] = json!(duration);
    s["nodes"] = json!([{"name": "router"}, {"name": "server"}]);
    let mut links: Vec<Value> =
        names.iter().map(|a| json!({"a": a, "b": "router", "rate_mbps": 1000.0, "delay_ms": 0.5})).collect();
    links.push(json!({"a": "router", "b": "server", "rate_mbps": 10000.0, "delay_ms": 5.0}));
    s["links"] = json!(links);
    s["traffic"] = json!([{"name": "dl", "kind": "tcp", "direction": "downlink", "peer": "server"}]);
    s
}

fn cut(s: &Value) -> wifitcp_sim::world::WiredCut {
    let sc = Scenario::from_json(&s.to_string()).unwrap();
    World::build(&sc, 1).unwrap().wired_cut()
}

fn probe(s: &Value, seed: u64) -> Value {
    let sc = Scenario::from_json(&s.to_string()).unwrap();
    World::build(&sc, seed).unwrap().probe_wired().unwrap()
}

#[test]
fn wired_cut_follows_the_links() {
    // four cells and the server (linked to all four): five partitions,
    // the four 1 ms links cut
    let c = cut(&pokhrel_campus(1.0));
    assert_eq!((c.parts, c.cut.iter().filter(|&&x| x).count()), (5, 4));
    assert_eq!(c.lookahead_ns, Some(1_000_000));
    assert_eq!(c.part_of_node.last(), Some(&4)); // the server, after the 44 members
                                                 // one channel: one cell, the server with it, nothing cut
    let mut one = pokhrel_campus(1.0);
    one["wlan"]["ap_channels"] = json!([1, 1, 1, 1]);
    let c = cut(&one);
    assert_eq!((c.parts, c.lookahead_ns), (1, None));
    // the router and the server stay together with their 5 ms link; the
    // APs' 0.5 ms links are cut
    let c = cut(&campus_tcp(3, 2, 1.0));
    assert_eq!((c.parts, c.lookahead_ns), (4, Some(500_000)));
    assert_eq!(c.cut, [true, true, true, false]);
    // a server linked to one AP only joins that AP's cell
    let mut s = campus(4, 2);
    s["nodes"] = json!([{"name": "server"}]);
    s["links"] = json!([{"a": "ap1", "b": "server", "rate_mbps": 100.0, "delay_ms": 1.0}]);
    let c = cut(&s);
    assert_eq!((c.parts, c.lookahead_ns), (4, None));
    assert_eq!(c.part_of_node[c.part_of_node.len() - 1], c.part_of_cell[1]);
    // a link without latency joins the cells it links
    s["links"] = json!([{"a": "ap1", "b": "ap2", "rate_mbps": 100.0, "delay_ms": 0.0}]);
    let c = cut(&s);
    assert_eq!(c.parts, 3, "{:?}", c.part_of_node);
    assert_eq!(c.part_of_cell[1], c.part_of_cell[2]);
    // (the server, now linked to nothing, joins the first cell)
    assert_eq!(c.part_of_node.last(), Some(&c.part_of_cell[0]));
}

/// The result of `s` by the windowed engine in `groups` groups on
/// `threads` threads (`world/window.rs`), and its number of groups.
fn windowed(s: &Value, seed: u64, threads: usize, groups: usize) -> (String, usize) {
    let sc = Scenario::from_json(&s.to_string()).unwrap();
    result(&sc, seed, World::build_windowed_in(&sc, seed, threads, groups).unwrap())
}

/// Windowed runs give the sequential result for any number of groups and
/// threads (the groups in turn on one thread, or each on its own).
fn same_in_windows(s: &Value, seed: u64, groups: &[usize]) -> Value {
    let text = sequential(s, seed);
    let seq = strip_wall(&text);
    assert!(seq == strip_wall(&run_json(&with_threads(s, 1), seed).unwrap()), "threads = 1 differs");
    assert!(seq == strip_wall(&run_json(&with_threads(s, 2), seed).unwrap()), "threads = 2 differs");
    for &g in groups {
        for threads in [1, g] {
            let (r, n) = windowed(s, seed, threads, g);
            assert!(n > 1, "{g} groups: not windowed");
            assert!(seq == strip_wall(&r), "{g} groups on {threads} threads differ from the sequential engine");
        }
    }
    serde_json::from_str(&text).unwrap()
}

#[test]
fn tcp_over_wired_links_runs_in_windows_with_the_sequential_result() {
    for (s, seed) in [(pokhrel_campus(3.0), 1), (campus_tcp(3, 3, 2.0), 2)] {
        assert_eq!(partitions(&s, 1), 1);
        assert_eq!(partitions(&s, 2), 2);
        let r = same_in_windows(&s, seed, &[2, 3]);
        assert!(r["aggregate_mbps"].as_f64().unwrap() > 1.0, "{}", r["aggregate_mbps"]);
    }
}

/// The TCP campus under the other MACs, beacons, RTS/CTS and an AP
/// discipline with timers of its own, in windows.
#[test]
fn other_macs_over_wired_links_same_result_in_windows() {
    let variants: [(&str, Value); 5] = [
        ("edca", json!({"mac": {"kind": "edca"}, "ap": {"beacons": true}})),
        ("pcf", json!({"mac": {"kind": "pcf"}, "ap": {"beacons": true}})),
        ("multipoll", json!({"mac": {"kind": "multipoll"}, "ap": {"beacons": true}})),
        ("codel", json!({"ap": {"beacons": false, "qdisc": {"kind": "fq-codel"}}})),
        ("rts", json!({"mac": {"kind": "dcf", "rts_threshold_bytes": 500}})),
    ];
    for (name, v) in variants {
        let mut s = campus_tcp(3, 2, 0.8);
        for (table, body) in v.as_object().unwrap() {
            s[table] = body.clone();
        }
        let r = same_in_windows(&s, 2, &[2]);
        assert!(r["aggregate_mbps"].as_f64().unwrap() > 1.0, "{name}: {}", r["aggregate_mbps"]);
    }
}

/// Traffic that crosses groups every way: uplink TCP to the server,
/// download TCP that stops early, a fixed-size transfer, UDP both ways,
/// pings of the server, and a router-to-server link short enough to drop
/// packets made in other groups.
#[test]
fn every_kind_of_crossing_same_result_in_windows() {
    let mut s = campus_tcp(4, 3, 1.5);
    s["scenario"]["warmup_s"] = json!(0.2);
    s["scenario"]["sample_interval_s"] = json!(0.05);
    let n = 12;
    s["links"][4]["queue_packets"] = json!(3);
    s["links"][4]["rate_mbps"] = json!(20.0);
    s["traffic"] = json!([
        {"name": "up", "kind": "tcp", "stations": [0, 5], "peer": "server"},
        {"name": "dl", "kind": "tcp", "direction": "downlink", "stations": [1, 6], "peer": "server", "stop_s": 0.9},
        {"name": "file", "kind": "tcp", "direction": "downlink", "stations": [2], "peer": "server", "bytes": 200000},
        {"name": "x", "kind": "udp", "pattern": "cbr", "rate_mbps": 3.0, "stations": [3, 4], "peer": "server"},
        {"name": "y", "kind": "udp", "pattern": "cbr", "rate_mbps": 3.0, "direction": "downlink", "stations": [8, 9],
         "peer": "server"},
        {"name": "ping", "kind": "udp", "pattern": "ping", "interval_ms": 10.0, "stations": [7, 11], "peer": "server"}
    ]);
    assert_eq!(s["wlan"]["stations"], json!(n));
    let r = same_in_windows(&s, 3, &[2, 3, 5]);
    let drops = &r["ledger"]["dropped"];
    assert!(drops.to_string().contains("link"), "no link drop: {drops}");
}

/// The probe on a 2-AP TCP download: its events are the sequential run's,
/// it is deterministic, and under the order by partition the events keyed
/// by another partition are exactly the arrivals over cut links (a link
/// direction's arrival carries the key its sender took at the offer,
/// whoever schedules it), each keyed at least the lookahead ahead (what
/// lets a partition run a window without the others' histories).
#[test]
fn probe_finds_every_crossing_push_a_lookahead_ahead() {
    let s = campus_tcp(2, 5, 4.0);
    let p = probe(&s, 1);
    assert_eq!(p, probe(&s, 1));
    let seq: Value = serde_json::from_str(&sequential(&s, 1)).unwrap();
    assert_eq!(p["events"], seq["events"]);
    assert_eq!((p["partitions"].as_u64(), p["cut_links"].as_u64()), (Some(3), Some(2)));
    assert_eq!(p["ordered_by_partition"], json!(true));
    let cross = p["cross_arrivals"].as_u64().unwrap();
    assert!(cross > 10_000, "{p}");
    assert_eq!(p["pushed_by_another_partition"].as_u64(), Some(cross), "{p}");
    assert_eq!(p["pushed_within_lookahead"].as_u64(), Some(0), "{p}");
    let bound = p["speedup_bound_two_threads"].as_f64().unwrap();
    assert!(bound > 1.0 && bound <= 2.0, "{p}");
    // no cut link: nothing crosses
    let q = probe(&campus(3, 2), 1);
    assert_eq!((q["cut_links"].as_u64(), q["cross_arrivals"].as_u64()), (Some(0), Some(0)));
    assert_eq!(q["pushed_by_another_partition"].as_u64(), Some(0));
}
