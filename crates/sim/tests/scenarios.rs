//! Whole-run scenario tests: determinism, the packet ledger and TCP stream
//! integrity (both checked inside every run, which fails if they break).
use serde_json::{json, Value};
use wifitcp_sim::api::{run_json, ApiError};

fn keceli(n: u32, secs: f64) -> Value {
    json!({
        "scenario": {"name": "k", "duration_s": secs},
        "phy": {"standard": "802.11g", "data_rate_mbps": 24},
        "wlan": {"stations": n},
        "ap": {"queue_packets": 50},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 100, "delay_ms": 15}],
        "tcp": {"rwnd_packets": 42, "delayed_ack": false, "sack": false, "window_scaling": false},
        "traffic": [{"name": "up", "kind": "tcp", "peer": "server", "start_stagger_s": 1.0}]
    })
}

fn run(s: &Value, seed: u64) -> Value {
    let mut r: Value = serde_json::from_str(&run_json(&s.to_string(), seed).expect("run")).unwrap();
    r.as_object_mut().unwrap().remove("wall_time_s");
    r
}

#[test]
fn same_seed_same_result_other_seed_differs() {
    let s = keceli(5, 8.0);
    let a = run(&s, 7);
    let b = run(&s, 7);
    let c = run(&s, 8);
    assert_eq!(a.to_string(), b.to_string());
    assert_ne!(a["flows"].to_string(), c["flows"].to_string());
}

#[test]
fn tcp_uplink_runs_balance_and_carry_data() {
    let r = run(&keceli(4, 10.0), 1);
    let l = &r["ledger"];
    let dropped: u64 = l["dropped"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(
        l["generated"].as_u64().unwrap(),
        l["delivered"].as_u64().unwrap() + dropped + l["in_flight"].as_u64().unwrap()
    );
    let agg = r["aggregate_mbps"].as_f64().unwrap();
    // 4 uploads over 802.11g at 24 Mbit/s: well above zero, below the PHY rate.
    assert!(agg > 8.0 && agg < 24.0, "aggregate {agg}");
}

#[test]
fn mixed_directions_show_upload_download_unfairness() {
    // Two uploads and two downloads sharing the AP's 50-packet queue: the
    // downloads' data is dropped at the full queue (timeouts) while the
    // uploads' cumulative ACKs survive drops, so uploads dominate (the
    // upload/download unfairness of the Pokhrel and Keceli papers).
    let mut s = keceli(2, 20.0);
    s["traffic"] = json!([
        {"name": "up", "kind": "tcp", "peer": "server", "direction": "uplink"},
        {"name": "down", "kind": "tcp", "peer": "server", "direction": "downlink"}
    ]);
    let r = run(&s, 3);
    let flows = r["flows"].as_array().unwrap();
    assert_eq!(flows.len(), 4);
    let sum = |dir: &str| -> f64 {
        flows
            .iter()
            .filter(|f| f["name"].as_str().unwrap().starts_with(dir))
            .map(|f| f["goodput_mbps"].as_f64().unwrap())
            .sum()
    };
    for f in flows {
        assert!(f["bytes_delivered"].as_u64().unwrap() > 0, "{f}");
    }
    assert!(sum("up") > 4.0 * sum("down"), "up {} down {}", sum("up"), sum("down"));
    assert!(r["queues"][0]["dropped"]["queue_full"].as_u64().unwrap() > 0);
}

#[test]
fn downloads_alone_share_the_ap() {
    let mut s = keceli(3, 20.0);
    s["traffic"][0]["direction"] = json!("downlink");
    let r = run(&s, 2);
    let j = r["jain_index"].as_f64().unwrap();
    assert!(j > 0.9, "downloads through one AP queue are fair: Jain {j}");
}

#[test]
fn finite_transfer_completes() {
    let mut s = keceli(1, 10.0);
    s["traffic"][0]["bytes"] = json!(1_000_000);
    let r = run(&s, 1);
    let f = &r["flows"][0];
    assert_eq!(f["bytes_delivered"].as_u64().unwrap(), 1_000_000);
    let t = f["tcp"]["completion_s"].as_f64().expect("completed");
    assert!(t > 0.3 && t < 5.0, "completion {t}");
}

#[test]
fn config_errors_name_the_field() {
    let mut s = keceli(1, 1.0);
    s["tcp"]["rwnd_packets"] = json!("many");
    match run_json(&s.to_string(), 1) {
        Err(ApiError::Config(m)) => assert!(m.to_string().starts_with("tcp.rwnd_packets:"), "{m}"),
        other => panic!("{other:?}"),
    }
    let mut s = keceli(1, 1.0);
    s["links"][0]["b"] = json!("nowhere");
    match run_json(&s.to_string(), 1) {
        Err(ApiError::Config(m)) => assert!(m.to_string().starts_with("links[0].b:"), "{m}"),
        other => panic!("{other:?}"),
    }
    // (a TCP flow that stops before it starts: refused, not a panic)
    for stop in [0.5, 1.0] {
        let mut s = keceli(1, 3.0);
        s["traffic"][0]["start_s"] = json!(1.0);
        s["traffic"][0]["stop_s"] = json!(stop);
        match run_json(&s.to_string(), 1) {
            Err(ApiError::Config(m)) => assert!(m.to_string().starts_with("traffic[0].stop_s:"), "{m}"),
            other => panic!("{other:?}"),
        }
    }
    let mut s = keceli(1, 1.0);
    s["wlan"]["colour"] = json!("blue");
    match run_json(&s.to_string(), 1) {
        Err(ApiError::Config(m)) => assert!(m.to_string().contains("colour"), "{m}"),
        other => panic!("{other:?}"),
    }
}

fn saturated(n: u32, secs: f64) -> Value {
    json!({
        "scenario": {"name": "sat", "duration_s": secs},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54},
        "wlan": {"stations": n},
        "traffic": [{"name": "sat", "kind": "udp", "pattern": "saturated"}]
    })
}

#[test]
fn snr_class_scope_all_hits_mac_acks_and_data_scope_spares_them() {
    // Saturated uplink; sta2 and sta3 receive with p_w = 0.3 (per_down).
    // Their traffic is uplink, so the only frames they receive are the AP's
    // MAC ACKs: with frames = "data" nothing is hit and the run equals the
    // error-free one draw for draw; with "all" 30 % of those ACKs are lost.
    let base = saturated(4, 5.0);
    let with = |frames: &str| {
        let mut s = base.clone();
        s["channel"] = json!({"model": "fixed", "frames": frames, "classes": [{"name": "bad", "per_down": 0.3, "stations": ["sta2", "sta3"]}]});
        run(&s, 1)
    };
    let clean = run(&base, 1);
    let data = with("data");
    assert_eq!(data["flows"].to_string(), clean["flows"].to_string());
    assert_eq!(data["stations"].to_string(), clean["stations"].to_string());
    let all = with("all");
    let st = all["stations"].as_array().unwrap();
    let u = |i: usize, k: &str| st[i][k].as_u64().unwrap();
    assert_eq!(u(0, "channel_errors"), 0);
    let lost = u(0, "control_errors");
    // ACKs the AP sent to sta2 and sta3: one per success, one per loss.
    let share = lost as f64 / (lost + u(3, "successes") + u(4, "successes")) as f64;
    assert!((share - 0.3).abs() < 0.02, "{share}");
    // Each lost ACK is a failed attempt at its station, and the retry a
    // duplicate at the AP (unless that MSDU was discarded meanwhile).
    assert!(u(0, "rx_duplicates") > 0 && u(0, "rx_duplicates") <= lost);
    let fail = |r: &Value, i: usize| {
        r["stations"][i]["failures"].as_f64().unwrap() / r["stations"][i]["attempts"].as_f64().unwrap()
    };
    assert!(fail(&all, 3) > fail(&clean, 3) + 0.2, "{} vs {}", fail(&all, 3), fail(&clean, 3));
}

#[test]
fn snr_classes_hit_their_members_only() {
    let mut s = saturated(4, 5.0);
    s["channel"] = json!({"model": "fixed", "classes": [{"name": "bad", "per_up": 0.3, "stations": ["sta2", "sta3"]}]});
    let r = run(&s, 1);
    let st = r["stations"].as_array().unwrap();
    let share = |i: usize| st[i]["channel_errors"].as_f64().unwrap() / st[i]["attempts"].as_f64().unwrap();
    assert_eq!(st[1]["channel_errors"].as_u64().unwrap(), 0);
    assert_eq!(st[2]["channel_errors"].as_u64().unwrap(), 0);
    // Errors only hit frames that did not collide: share of attempts ~ 0.3 * (1 - p_coll).
    for i in [3, 4] {
        let p = st[i]["collision_probability"].as_f64().unwrap();
        let expect = 0.3 * (1.0 - p);
        assert!((share(i) - expect).abs() < 0.03, "station {i}: {} vs {expect}", share(i));
    }
}

#[test]
fn snr_channel_throughput_falls_with_distance() {
    let mut near = saturated(1, 3.0);
    near["channel"] = json!({"model": "snr"});
    near["wlan"]["distance_m"] = json!(5.0);
    let mut far = near.clone();
    far["wlan"]["distance_m"] = json!(40.0);
    let a = run(&near, 1)["aggregate_msdu_mbps"].as_f64().unwrap();
    let b = run(&far, 1)["aggregate_msdu_mbps"].as_f64().unwrap();
    // 54 Mbit/s needs ~20 dB SNR: clean at 5 m, mostly lost at 40 m with the default radio.
    assert!(a > 25.0, "near {a}");
    assert!(b < 0.5 * a, "far {b} vs near {a}");
}

#[test]
fn station_ack_filter_removes_redundant_acks_of_a_download() {
    let mut s = keceli(1, 10.0);
    s["phy"]["data_rate_mbps"] = json!(54);
    s["traffic"][0]["direction"] = json!("downlink");
    let off = run(&s, 1);
    s["wlan"]["station_qdisc"] = json!({"kind": "ack-first"});
    let on = run(&s, 1);
    let g_off = off["aggregate_mbps"].as_f64().unwrap();
    let g_on = on["aggregate_mbps"].as_f64().unwrap();
    let filtered = on["ledger"]["dropped"]["ack_filtered"].as_u64().unwrap();
    assert_eq!(off["ledger"]["dropped"]["ack_filtered"].as_u64().unwrap(), 0);
    // One station rarely holds two ACKs at once at 54 Mbit/s: the filter acts, rarely.
    assert!(filtered > 10, "filtered {filtered}");
    assert!(g_on > 0.95 * g_off, "downlink unchanged: {g_on} vs {g_off}");
}

/// The bystander group is an engine optimisation: every result must be the
/// same as when each station is stepped at every busy/idle change.
#[test]
fn grouping_bystanders_changes_no_result() {
    let mut cases = vec![keceli(6, 10.0), saturated(12, 2.0)];
    let mut rts = saturated(6, 2.0);
    rts["mac"] = json!({"rts_threshold_bytes": 0});
    cases.push(rts);
    let mut bianchi = saturated(8, 2.0);
    bianchi["mac"] = json!({"backoff_rule": "busy-slot-counts", "collision_restart": "eifs"});
    cases.push(bianchi);
    let mut g = saturated(8, 2.0);
    g["phy"] = json!({"standard": "802.11g", "data_rate_mbps": 54});
    g["wlan"]["per_uplink"] = json!(0.2);
    cases.push(g);
    let mut mixed = keceli(3, 8.0);
    mixed["traffic"] = json!([
        {"name": "up", "kind": "tcp", "peer": "server", "direction": "uplink"},
        {"name": "down", "kind": "tcp", "peer": "server", "direction": "downlink"},
        {"name": "cbr", "kind": "udp", "pattern": "poisson", "rate_mbps": 0.5, "direction": "downlink"}
    ]);
    cases.push(mixed);
    // Sparse uplink frames: some arrive while a bystander's post-backoff is
    // still running (they wait in the group), others after it ran out
    // (the station acts alone).
    let mut sparse = keceli(4, 6.0);
    sparse["traffic"] = json!([
        {"name": "up", "kind": "udp", "pattern": "poisson", "rate_mbps": 2.0, "direction": "uplink"},
        {"name": "bulk", "kind": "tcp", "peer": "server", "direction": "uplink", "stations": [1]}
    ]);
    cases.push(sparse.clone());
    // ns-2's backoff on idle access (mac.idle_access = "backoff").
    sparse["mac"] = json!({"idle_access": "backoff"});
    cases.push(sparse);
    for (i, s) in cases.into_iter().enumerate() {
        for seed in [1, 2] {
            let grouped = run(&s, seed);
            let mut r = s.clone();
            if r.get("mac").is_none() {
                r["mac"] = json!({});
            }
            r["mac"]["group_bystanders"] = json!(false);
            let reference = run(&r, seed);
            assert_eq!(grouped.to_string(), reference.to_string(), "case {i} seed {seed}");
        }
    }
}

/// Janevski & Petrov's topology (Table 1): wired A0..A3, two base stations
/// on one channel behind A0, stations associated with either.
#[test]
fn two_aps_on_one_channel_with_a_wired_backbone() {
    let s = json!({
        "scenario": {"name": "janevski-topology", "duration_s": 10.0},
        "phy": {"standard": "802.11g", "data_rate_mbps": 24},
        "wlan": {"stations": 4, "aps": 2, "association": [0, 0, 0, 1]},
        "nodes": [{"name": "a0", "kind": "router"}, {"name": "a1"}, {"name": "a2"}, {"name": "a3"}],
        "links": [
            {"a": "a1", "b": "a0", "rate_mbps": 100, "delay_ms": 10},
            {"a": "a2", "b": "a0", "rate_mbps": 100, "delay_ms": 20},
            {"a": "a3", "b": "a0", "rate_mbps": 100, "delay_ms": 30},
            {"a": "a0", "b": "ap", "rate_mbps": 100, "delay_ms": 10},
            {"a": "a0", "b": "ap1", "rate_mbps": 100, "delay_ms": 10}
        ],
        "tcp": {"recovery": "newreno"},
        "traffic": [
            {"name": "ftp", "kind": "tcp", "direction": "downlink", "stations": [3], "peer": "a3", "start_s": 1.0},
            {"name": "game", "kind": "udp", "pattern": "cbr", "rate_mbps": 0.05, "msdu_bytes": 278, "direction": "downlink", "stations": [1], "peer": "a1"},
            {"name": "video", "kind": "udp", "pattern": "cbr", "rate_mbps": 1.0, "direction": "uplink", "stations": [2], "peer": "a2"}
        ]
    });
    let r = run(&s, 1);
    let flows = r["flows"].as_array().unwrap();
    let ftp = &flows[0];
    assert_eq!(ftp["src"], "a3");
    assert_eq!(ftp["dst"], "sta3");
    assert!(ftp["goodput_mbps"].as_f64().unwrap() > 3.0, "{ftp}");
    // sta3's frames go through ap1, the others' through ap.
    let st = r["stations"].as_array().unwrap();
    let name = |i: usize| st[i]["name"].as_str().unwrap().to_string();
    assert_eq!(name(5), "ap1");
    assert!(st[5]["successes"].as_u64().unwrap() > 100);
    // Game packets: one-way delay at least 10 (a1-a0) + 10 (a0-ap) ms.
    assert!(flows[1]["mean_delay_ms"].as_f64().unwrap() > 20.0);
    assert!(flows[2]["goodput_mbps"].as_f64().unwrap() > 0.9);
    assert_eq!(r["queues"].as_array().unwrap().len(), 2);
}

#[test]
fn queue_reports_cover_station_disciplines_and_window_rewriting() {
    let mut s = keceli(3, 5.0);
    s["ap"]["qdisc"] = json!({"kind": "pilosof"});
    s["wlan"]["station_qdisc"] = json!({"kind": "ack-first"});
    let r = run(&s, 1);
    let q = r["queues"].as_array().unwrap();
    assert_eq!(q.len(), 4, "the AP plus three stations with a non-default discipline");
    assert_eq!(q[0]["node"], "ap");
    assert!(q[0]["window_rewrites"]["rewritten"].as_u64().unwrap() > 0, "{}", q[0]);
    assert_eq!(q[1]["kind"], "ack-first");
}

/// Three downloads with cc = `cc` and `[tcp.<cc>]` = `params`: (AP mean
/// queue length, aggregate Mbit/s).
fn cc_downloads(cc: &str, params: Value) -> (f64, f64) {
    let mut s = keceli(3, 20.0);
    s["traffic"][0]["direction"] = json!("downlink");
    s["ap"]["queue_packets"] = json!(200);
    s["tcp"]["rwnd_packets"] = json!(400);
    s["tcp"]["window_scaling"] = json!(true);
    s["tcp"]["cc"] = json!(cc);
    s["tcp"][cc] = params;
    // Without beacons: an 802.11g beacon (1 Mbit/s, 0.8 ms every 102.4 ms)
    // delays the AP's frames, which Vegas reads as queueing (with them the
    // difference below is 36.7 packets instead of 28.3); this checks the
    // thresholds alone.
    s["ap"]["beacons"] = json!(false);
    let r = run(&s, 1);
    (r["queues"][0]["mean_len"].as_f64().unwrap(), r["aggregate_mbps"].as_f64().unwrap())
}

#[test]
fn vegas_thresholds_set_the_standing_queue() {
    // Vegas keeps between alpha and beta packets per flow queued at the
    // bottleneck (the AP): 3 flows x (2..4) by default, 3 x (10..12) with
    // alpha = 10, beta = 12, i.e. about 24 packets more.
    let (q_default, t_default) = cc_downloads("vegas", json!({}));
    let (q_big, t_big) = cc_downloads("vegas", json!({"alpha": 10.0, "beta": 12.0}));
    let d = q_big - q_default;
    assert!(d > 15.0 && d < 35.0, "queue {q_default} -> {q_big}");
    assert!(t_default > 5.0 && t_big > 5.0, "{t_default} {t_big}");
}

#[test]
fn compound_parameters_change_the_run() {
    // gamma = 1 packet: the delay window shrinks as soon as one packet per
    // flow is backlogged, alpha = 1 grows it by win^k - 1 per round.
    let base = cc_downloads("compound", json!({}));
    let same = cc_downloads("compound", json!({"alpha": 0.125, "k": 0.75}));
    let other = cc_downloads("compound", json!({"alpha": 1.0, "gamma": 1.0}));
    assert_eq!(base, same, "explicit defaults change nothing");
    assert_ne!(base, other);
}

#[test]
fn cc_parameter_errors_name_the_field() {
    for (cc, params, field) in [
        ("compound", json!({"beta": 1.0}), "tcp.compound.beta:"),
        ("compound", json!({"k": -0.5}), "tcp.compound.k:"),
        ("compound", json!({"gamma": 0.0}), "tcp.compound.gamma:"),
        ("vegas", json!({"alpha": 5.0}), "tcp.vegas.beta:"),
        ("vegas", json!({"gamma": -1.0}), "tcp.vegas.gamma:"),
    ] {
        let mut s = keceli(1, 1.0);
        s["tcp"]["cc"] = json!(cc);
        s["tcp"][cc] = params;
        match run_json(&s.to_string(), 1) {
            Err(ApiError::Config(m)) => assert!(m.to_string().starts_with(field), "{m}"),
            other => panic!("{other:?}"),
        }
    }
    let mut s = keceli(1, 1.0);
    s["tcp"]["compound"] = json!({"kappa": 0.5});
    match run_json(&s.to_string(), 1) {
        Err(ApiError::Config(m)) => assert!(m.to_string().contains("kappa"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn stepping_in_pieces_gives_the_same_result_as_one_run() {
    use wifitcp_core::{SimDur, SimTime};
    use wifitcp_sim::{world::World, Scenario};
    let s = Scenario::from_json(&keceli(3, 6.0).to_string()).expect("valid");
    let strip = |mut r: Value| {
        r.as_object_mut().unwrap().remove("wall_time_s");
        r.to_string()
    };
    let wall = std::time::Instant::now();
    let whole = strip(World::build(&s, 5).unwrap().run(wall).unwrap().into_value());
    let mut w = World::build(&s, 5).unwrap();
    let mut t = SimTime::ZERO;
    while w.next_wakeup().is_some() {
        t += SimDur::from_secs_f64(0.337);
        w.step_until(t);
        assert!(w.now() <= t);
    }
    assert_eq!(strip(w.finish(wall).unwrap().into_value()), whole);
}

#[test]
fn a_tcp_flow_stops_sending_at_stop_s() {
    // One upload (the client sends) and one download (the server sends)
    // for 8 s that stop at 3 s: each delivers about what 3 s of sending
    // give (plus what was in flight), far less than 8 s would.
    for dir in ["uplink", "downlink"] {
        let bytes = |stop: Option<f64>, secs: f64| -> f64 {
            let mut s = keceli(1, secs);
            s["traffic"][0]["direction"] = json!(dir);
            if let Some(t) = stop {
                s["traffic"][0]["stop_s"] = json!(t);
            }
            let r = run(&s, 1);
            r["flows"][0]["goodput_mbps"].as_f64().unwrap() * secs
        };
        let stopped = bytes(Some(3.0), 8.0);
        let three = bytes(None, 3.0);
        let eight = bytes(None, 8.0);
        assert!(stopped > 0.8 * three && stopped < 1.2 * three, "{dir}: stopped {stopped} vs 3 s {three}");
        assert!(stopped < 0.6 * eight, "{dir}: stopped {stopped} vs 8 s {eight}");
    }
}
