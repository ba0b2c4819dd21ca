//! The No Ack policy (`mac.ack_policy = "noack"`, 802.11-2020 9.2.4.5.4)
//! in whole runs: a saturated 802.11a 54 Mbit/s link reaches the analytical
//! throughput of DIFS + mean backoff + data frame per MSDU (against DIFS +
//! backoff + data + SIFS + ACK acknowledged); frames the channel loses are
//! not retransmitted and are accounted as `noack_lost`; NoAck with RTS/CTS
//! is a configuration error naming the key.
mod common;

use common::run;
use serde_json::{json, Value};
use wifitcp_sim::api::{run_json, ApiError};

fn scenario(policy: &str, per: f64) -> Value {
    json!({
        "scenario": {"name": "noack", "duration_s": 10.0, "warmup_s": 1.0},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54.0},
        "mac": {"ack_policy": policy},
        "wlan": {"stations": 1, "per_uplink": per},
        "traffic": [{"name": "sat", "kind": "udp", "pattern": "saturated", "direction": "uplink",
                     "stations": "all", "msdu_bytes": 1500}]
    })
}

/// 802.11a (17.3.2.4, Table 17-21): 20 us preamble + SIGNAL, 4 us symbols,
/// 16 service + 6 tail bits; slot 9, SIFS 16, DIFS 34 us, CWmin 15.
fn ofdm_us(bytes: u32, bits_per_symbol: u32) -> f64 {
    20.0 + 4.0 * ((16 + 8 * bytes + 6) as f64 / bits_per_symbol as f64).ceil()
}

#[test]
fn a_saturated_noack_link_reaches_the_analytical_throughput() {
    // MSDU 1500 bytes = LLC/SNAP 8 + IP 20 + UDP 8 + 1464 payload bytes.
    let payload_bits = 1464.0 * 8.0;
    let access = 34.0 + 7.5 * 9.0; // DIFS + mean backoff CWmin / 2 slots
    let acked = access + ofdm_us(24 + 1500 + 4, 216) + 16.0 + ofdm_us(14, 96); // ACK at 24 Mbit/s
    let noack = access + ofdm_us(26 + 1500 + 4, 216); // QoS header, no SIFS + ACK
    for (policy, per_frame_us) in [("normal", acked), ("noack", noack)] {
        let r = run(&scenario(policy, 0.0));
        let got = r["aggregate_mbps"].as_f64().unwrap();
        let want = payload_bits / per_frame_us;
        assert!((got / want - 1.0).abs() < 0.01, "{policy}: {got:.3} Mbit/s, analytical {want:.3}");
    }
}

#[test]
fn noack_frames_lost_on_the_channel_are_dropped_not_retransmitted() {
    let r = run(&scenario("noack", 0.1));
    let sta = &r["stations"][1];
    assert_eq!(sta["retries"], 0);
    assert_eq!(sta["failures"], 0);
    let lost = r["ledger"]["dropped"]["noack_lost"].as_f64().unwrap();
    let generated = r["ledger"]["generated"].as_f64().unwrap();
    // 10 % of the frames, over about 28,000 frames: 3 sigma is 0.5 %.
    assert!((lost / generated - 0.1).abs() < 0.006, "lost {lost} of {generated}");
    // Acknowledged, the same channel loses nothing at the retry limit.
    let r = run(&scenario("normal", 0.1));
    assert_eq!(r["ledger"]["dropped"].get("noack_lost"), None, "listed only when it occurs");
    assert!(r["stations"][1]["retries"].as_f64().unwrap() > 0.0);
}

#[test]
fn noack_with_rts_cts_is_a_config_error() {
    let mut s = scenario("noack", 0.0);
    s["mac"]["rts_threshold_bytes"] = json!(0);
    match run_json(&s.to_string(), 1) {
        Err(ApiError::Config(m)) => assert_eq!(m.path, "mac.ack_policy", "{m}"),
        other => panic!("{other:?}"),
    }
    let mut s = scenario("sometimes", 0.0);
    s["mac"]["rts_threshold_bytes"] = json!(65535);
    assert!(matches!(run_json(&s.to_string(), 1), Err(ApiError::Config(m)) if m.path.contains("ack_policy")));
}

/// The bystander group reproduces stations stepped one by one with No Ack
/// frames too (Duration 0, no response, exchanges that end with the frame),
/// with collisions and channel errors.
#[test]
fn noack_results_are_the_same_with_and_without_the_bystander_group() {
    let mut runs = vec![];
    for g in [true, false] {
        let s = json!({
            "scenario": {"name": "noack-group", "duration_s": 3.0},
            "phy": {"standard": "802.11b", "data_rate_mbps": 11.0},
            "mac": {"ack_policy": "noack", "group_bystanders": g},
            "wlan": {"stations": 8, "per_uplink": 0.05, "per_downlink": 0.05},
            "traffic": [
                {"name": "sat", "kind": "udp", "pattern": "saturated", "direction": "uplink", "peer": "ap"},
                {"name": "down", "kind": "udp", "pattern": "saturated", "direction": "downlink", "peer": "ap",
                 "stations": [1, 2]}
            ]
        });
        let mut r = run(&s);
        assert!(r["ledger"]["dropped"]["noack_lost"].as_u64().unwrap() > 100);
        r.as_object_mut().unwrap().remove("wall_time_s");
        runs.push(r.to_string());
    }
    assert_eq!(runs[0], runs[1], "grouping changed the results");
}
