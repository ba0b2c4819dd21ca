//! Whole runs with several cells and roaming stations: a station crossing
//! from one AP's cell to another's hands over once, where the configured
//! hysteresis puts the boundary; frames left at the old AP are dropped
//! with a reason or forwarded (the ledger balances either way); stations
//! that stand still cost no roaming events.
use serde_json::{json, Value};
use wifitcp_sim::api::run_json;

/// Two APs 100 m apart on channels 1 and 6 behind a switch, a server
/// behind the switch; station 0 walks from (5, 0) along +x at 8 m/s from
/// t = 0, with a CBR downlink from the server and a CBR uplink to it. SNR
/// channel with path-loss exponent 3, 802.11a at 6 Mbit/s (reaches over
/// 100 m); roaming whenever the other AP is `hyst` dB stronger
/// (threshold 0 dBm: the serving AP is always "weak").
fn crossing(hyst: f64, queued: &str, secs: f64) -> Value {
    json!({
        "scenario": {"name": "crossing", "duration_s": secs},
        "phy": {"standard": "802.11a", "data_rate_mbps": 6},
        "wlan": {"stations": 2, "aps": 2, "association": [0, 1],
                 "ap_positions": [[0.0, 0.0], [100.0, 0.0]], "ap_channels": [1, 6],
                 "positions": [[5.0, 0.0], [100.0, 5.0]],
                 "mobility": [{"stations": [0], "model": "linear", "speed_mps": 8.0, "heading_deg": 0.0}],
                 "roaming": {"threshold_dbm": 0.0, "hysteresis_db": hyst, "queued": queued}},
        "channel": {"model": "snr", "propagation": {"exponent": 3.0}},
        "nodes": [{"name": "sw", "kind": "router"}, {"name": "server"}],
        "links": [{"a": "ap", "b": "sw", "rate_mbps": 100, "delay_ms": 1},
                  {"a": "ap1", "b": "sw", "rate_mbps": 100, "delay_ms": 1},
                  {"a": "sw", "b": "server", "rate_mbps": 100, "delay_ms": 5}],
        "traffic": [
            {"name": "down", "kind": "udp", "pattern": "cbr", "rate_mbps": 2.0, "direction": "downlink",
             "stations": [0], "peer": "server"},
            {"name": "up", "kind": "udp", "pattern": "cbr", "rate_mbps": 0.5, "direction": "uplink",
             "stations": [0], "peer": "server"},
            {"name": "other", "kind": "udp", "pattern": "cbr", "rate_mbps": 1.0, "direction": "downlink",
             "stations": [1], "peer": "server"}
        ]
    })
}

fn run(s: &Value, seed: u64) -> Value {
    let mut r: Value = serde_json::from_str(&run_json(&s.to_string(), seed).expect("run")).unwrap();
    r.as_object_mut().unwrap().remove("wall_time_s");
    r
}

/// Where the station is `hyst` dB closer (in received power) to AP 1 than
/// to AP 0 with path-loss exponent 3: d0 / d1 = 10^(hyst / 30), on the
/// line between them; and when the walk (from x = 5 m at 8 m/s) gets there.
fn boundary_time(hyst: f64) -> f64 {
    let k = 10f64.powf(hyst / 30.0);
    let x = 100.0 * k / (1.0 + k);
    (x - 5.0) / 8.0
}

#[test]
fn a_station_crossing_the_boundary_hands_over_once_where_the_hysteresis_puts_it() {
    for hyst in [0.0, 6.0] {
        let r = run(&crossing(hyst, "drop", 10.0), 1);
        let h = &r["handoffs"];
        assert_eq!(h["count"], 1, "hysteresis {hyst}: {h}");
        let one = &h["list"][0];
        assert_eq!((&one["station"], &one["from"], &one["to"]), (&json!("sta0"), &json!("ap"), &json!("ap1")));
        // checked once per beacon interval (102.4 ms): the first check at
        // or after the crossing starts the hand-off
        let (start, t) = (one["start_s"].as_f64().unwrap(), boundary_time(hyst));
        assert!(start >= t && start < t + 0.1024 + 1e-9, "hysteresis {hyst}: start {start} s, boundary {t} s");
        // passive scan of two channels: one beacon interval each
        assert!((one["latency_s"].as_f64().unwrap() - 0.2048).abs() < 1e-9, "{one}");
        // the downlink goes on through the new AP after the hand-off
        let series: Vec<f64> =
            r["flows"][0]["series"].as_array().unwrap().iter().map(|p| p[1].as_f64().unwrap()).collect();
        assert!(series[9] > 1.5, "no downlink after the hand-off: {series:?}");
    }
    // without hysteresis the hand-off comes earlier (50 m, not 61 m)
    assert!(boundary_time(0.0) + 1.0 < boundary_time(6.0));
}

#[test]
fn frames_left_at_the_old_ap_are_dropped_with_a_reason_or_forwarded() {
    let drop = run(&crossing(3.0, "drop", 8.0), 2);
    let fwd = run(&crossing(3.0, "forward", 8.0), 2);
    // (both runs passed the ledger check: every packet delivered, dropped
    // with a reason or in flight at the end)
    let (hd, hf) = (&drop["handoffs"]["list"][0], &fwd["handoffs"]["list"][0]);
    let left = hd["dropped_at_old_ap"].as_u64().unwrap();
    assert!(left > 0, "the old AP's queue held frames for the station: {hd}");
    assert_eq!(drop["ledger"]["dropped"]["handoff"].as_u64(), Some(left));
    assert_eq!(hf["dropped_at_old_ap"], 0);
    assert!(hf["forwarded"].as_u64().unwrap() > 0, "{hf}");
    assert!(fwd["ledger"]["dropped"].get("handoff").is_none(), "{}", fwd["ledger"]);
    // forwarding delivers more of the downlink
    let got = |r: &Value| r["flows"][0]["packets_delivered"].as_u64().unwrap();
    assert!(got(&fwd) > got(&drop), "forward {} vs drop {}", got(&fwd), got(&drop));
    // lost in the hand-off: the old AP's and the station's retries in the
    // scan, and the queue left behind
    assert!(drop["handoffs"]["frames_lost"].as_u64().unwrap() >= left);
}

#[test]
fn stations_that_stand_still_cost_no_roaming_events_and_change_nothing() {
    let mut s = crossing(3.0, "drop", 3.0);
    s["wlan"].as_object_mut().unwrap().remove("mobility");
    let with = run(&s, 1);
    assert_eq!(with["handoffs"]["checks"], 0);
    s["wlan"].as_object_mut().unwrap().remove("roaming");
    let without = run(&s, 1);
    assert_eq!(with["events"], without["events"]);
    assert_eq!(with["flows"].to_string(), without["flows"].to_string());
    assert!(without.get("handoffs").is_none());
}

#[test]
fn cells_on_different_channels_do_not_interfere() {
    // Two saturated uplinks, one per AP: on one channel they share the
    // air (about half each); on two channels each has a cell to itself.
    let s = |chans: Value| {
        json!({
            "scenario": {"name": "cells", "duration_s": 2.0},
            "phy": {"standard": "802.11a", "data_rate_mbps": 54},
            "wlan": {"stations": 2, "aps": 2, "association": [0, 1], "ap_channels": chans},
            "traffic": [{"name": "up", "kind": "udp", "direction": "uplink"}]
        })
    };
    let one = run(&s(json!([1, 1])), 1);
    let two = run(&s(json!([1, 11])), 1);
    let agg = |r: &Value| r["aggregate_mbps"].as_f64().unwrap();
    assert!(agg(&two) > 1.8 * agg(&one), "one channel {} Mbit/s, two {}", agg(&one), agg(&two));
    assert_eq!(two["collision_probability"], 0.0);
    // one channel listed twice is today's single cell
    let mut plain = s(json!([1, 1]));
    plain["wlan"].as_object_mut().unwrap().remove("ap_channels");
    assert_eq!(run(&plain, 1)["flows"].to_string(), one["flows"].to_string());
}

#[test]
fn bad_cell_and_roaming_input_names_the_key() {
    let base = crossing(3.0, "drop", 1.0);
    type Edit = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(Edit, &str)> = vec![
        (Box::new(|s| s["wlan"]["ap_channels"] = json!([1, 6, 11])), "wlan.ap_channels: 3 channels for 2 APs"),
        (Box::new(|s| s["wlan"]["ap_channels"] = json!([1, 0])), "wlan.ap_channels"),
        (Box::new(|s| s["wlan"]["association"] = json!([0, 2])), "wlan.association[1]: AP 2 does not exist"),
        (Box::new(|s| s["wlan"]["roaming"]["scan"] = json!("loud")), "wlan.roaming"),
        (Box::new(|s| s["wlan"]["roaming"]["hysteresis_db"] = json!(-1.0)), "wlan.roaming.hysteresis_db"),
        (Box::new(|s| s["wlan"]["roaming"]["check_interval_ms"] = json!(0.0)), "wlan.roaming.check_interval_ms"),
        (Box::new(|s| s["wlan"]["roaming"]["threshhold"] = json!(1.0)), "wlan.roaming"),
        (
            Box::new(|s| {
                s["wlan"]["roaming"].as_object_mut().unwrap().remove("threshold_dbm");
            }),
            "wlan.roaming",
        ),
        (
            Box::new(|s| {
                let w = s["wlan"].as_object_mut().unwrap();
                w.remove("mobility");
                s.as_object_mut().unwrap().remove("channel");
            }),
            "wlan.roaming: roaming compares received powers",
        ),
        (
            Box::new(|s| {
                s["wlan"]["aps"] = json!(1);
                for k in ["ap_channels", "ap_positions"] {
                    s["wlan"].as_object_mut().unwrap().remove(k);
                }
                s["wlan"]["association"] = json!([0, 0]);
                s["links"] = json!([{"a": "ap", "b": "sw", "rate_mbps": 100, "delay_ms": 1},
                                    {"a": "sw", "b": "server", "rate_mbps": 100, "delay_ms": 5}]);
            }),
            "wlan.roaming: a station needs at least two APs",
        ),
    ];
    for (edit, want) in cases {
        let mut s = base.clone();
        edit(&mut s);
        let e = wifitcp_sim::Scenario::from_json(&s.to_string())
            .err()
            .unwrap_or_else(|| panic!("accepted: {want}"))
            .to_string();
        assert!(e.starts_with(want), "{e:?} does not start with {want:?}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}

#[test]
fn a_home_agent_tunnels_to_the_foreign_ap_and_the_path_grows() {
    // With a layer-2 update the server's packets go server -> sw -> ap1
    // after the hand-off; through the home agent (ap, the station's first
    // AP) they go server -> sw -> ap -> sw -> ap1: 2 ms more of link delay.
    let l2 = run(&crossing(3.0, "forward", 10.0), 3);
    let mut s = crossing(3.0, "forward", 10.0);
    s["wlan"]["roaming"]["reroute"] = json!("home_agent");
    let ha = run(&s, 3);
    assert_eq!(ha["handoffs"]["count"], 1);
    let series: Vec<f64> =
        ha["flows"][0]["series"].as_array().unwrap().iter().map(|p| p[1].as_f64().unwrap()).collect();
    assert!(series[9] > 1.5, "no downlink through the tunnel: {series:?}");
    // the tunnel: every downlink packet after the hand-off crosses the
    // ap -> sw link as well (2 Mbit/s of 1500-byte datagrams for the 3.3 s
    // after the hand-off at 6.7 s: some 550 packets)
    let sent = |r: &Value, from: &str, to: &str| {
        let l = r["links"].as_array().unwrap().iter().find(|l| l["from"] == from && l["to"] == to).unwrap();
        l["sent"].as_u64().unwrap()
    };
    let extra = sent(&ha, "ap", "sw") - sent(&l2, "ap", "sw");
    assert!(extra > 400, "{extra} packets through the tunnel");
    // and the home agent's side of the switch carries the whole downlink
    assert!(sent(&ha, "sw", "ap") > sent(&l2, "sw", "ap") + 400);
    assert_eq!(
        sent(&ha, "sw", "ap1") - sent(&l2, "sw", "ap1"),
        0,
        "each downlink packet after the hand-off crosses sw -> ap1 once either way"
    );
    // the station's uplink is not tunnelled (triangular routing)
    let up = |r: &Value| r["flows"][1]["delay_p90_ms"].as_f64().unwrap();
    assert!((up(&ha) - up(&l2)).abs() < 1.0, "uplink p90 {} vs {}", up(&ha), up(&l2));
}
