//! Whole runs over every frame exchange (basic access, RTS/CTS) with
//! channel errors on data frames only or on control frames too, behind a
//! wired bottleneck that drops: every run completes (no panic), its ledger
//! balances, no MSDU is delivered twice (802.11-2020 10.3.2.14 applies to
//! every exchange) and a TCP receiver's byte stream stays intact (both
//! checked inside every run, which fails if they break).
use serde_json::{json, Value};
use wifitcp_sim::api::run_json;

fn scenario(rts: bool, frames: &str, tcp: bool) -> Value {
    let traffic = if tcp {
        json!([{"name": "t", "kind": "tcp", "direction": "uplink", "peer": "server"},
               {"name": "d", "kind": "tcp", "direction": "downlink", "peer": "server"}])
    } else {
        json!([{"name": "u", "kind": "udp", "pattern": "cbr", "rate_mbps": 3.0,
                "direction": "uplink", "peer": "server"}])
    };
    json!({
        "scenario": {"name": "x", "duration_s": 5.0},
        "phy": {"standard": "802.11b", "data_rate_mbps": 11.0},
        "mac": {"rts_threshold_bytes": if rts { 0 } else { 65535 }},
        "wlan": {"stations": 2},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 1.0, "delay_ms": 5.0, "queue_packets": 5}],
        "channel": {"model": "fixed", "frames": frames,
                    "classes": [{"name": "bad", "per_down": 0.3, "per_up": 0.3, "stations": ["sta0", "sta1"]}]},
        "tcp": {"rwnd_packets": 42},
        "traffic": traffic
    })
}

fn run(s: &Value, seed: u64) -> Value {
    let r = run_json(&s.to_string(), seed).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
    serde_json::from_str(&r).unwrap()
}

#[test]
fn every_exchange_delivers_each_msdu_at_most_once() {
    for rts in [false, true] {
        for frames in ["data", "all"] {
            for seed in 1..=3 {
                let r = run(&scenario(rts, frames, false), seed);
                let ap = &r["stations"][0];
                let l = &r["ledger"];
                for f in r["flows"].as_array().unwrap() {
                    let (d, g) = (f["packets_delivered"].as_u64().unwrap(), f["packets_generated"].as_u64().unwrap());
                    assert!(d <= g, "rts {rts} frames {frames} seed {seed}: {d} delivered of {g}");
                }
                assert!(l["delivered"].as_u64().unwrap() > 0);
                // With control frames hit, lost ACKs make duplicates, which
                // the AP filters whatever the exchange.
                let dups = ap["rx_duplicates"].as_u64().unwrap();
                if frames == "all" {
                    assert!(dups > 0, "rts {rts} seed {seed}: no duplicate filtered");
                } else {
                    assert_eq!(dups, 0, "rts {rts} seed {seed}: ACKs are never lost");
                }
            }
        }
    }
}

#[test]
fn tcp_over_every_exchange_runs_clean() {
    for rts in [false, true] {
        for frames in ["data", "all"] {
            let r = run(&scenario(rts, frames, true), 4);
            assert!(r["aggregate_mbps"].as_f64().unwrap() > 0.0, "rts {rts} frames {frames}");
        }
    }
}

/// `mac.group_bystanders` is an engine option with the same results either
/// way; a zero `phy.slot_us` (where it was not) is a configuration error
/// naming the key, and the smallest slot accepted groups exactly.
#[test]
fn zero_slot_is_rejected_and_small_slots_group_exactly() {
    use wifitcp_sim::api::ApiError;
    let mut s = scenario(false, "data", false);
    s["phy"]["slot_us"] = json!(0.0);
    match run_json(&s.to_string(), 1) {
        Err(ApiError::Config(e)) => assert!(e.starts_with("phy.slot_us: "), "{e}"),
        other => panic!("zero slot accepted: {other:?}"),
    }
    for slot in [0.001, 0.5, 3.0] {
        let mut s = json!({
            "scenario": {"name": "sat", "duration_s": 2.0},
            "phy": {"standard": "802.11b", "data_rate_mbps": 11.0, "slot_us": slot},
            "wlan": {"stations": 8},
            "traffic": [{"name": "sat", "kind": "udp", "pattern": "saturated", "direction": "uplink", "peer": "ap"}]
        });
        let mut runs = vec![];
        for g in [true, false] {
            s["mac"] = json!({"group_bystanders": g});
            let mut r = run(&s, 3);
            r.as_object_mut().unwrap().remove("wall_time_s");
            runs.push(r.to_string());
        }
        assert_eq!(runs[0], runs[1], "slot {slot}: grouping changed the results");
    }
}
