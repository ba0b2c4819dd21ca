//! `mac.no_ack_nodes`: the No Ack policy (9.2.4.5.4) per AP and per
//! station, under the DCF and the HCF: a listed member's data frames get
//! no ACK (or BlockAck) and are never retransmitted; the other members of
//! the same cell keep acknowledged delivery; the bad-input errors.
mod common;

use common::{err, run};
use serde_json::{json, Value};

/// Two stations and their AP on 802.11a at 54 Mbit/s with a 10 % frame
/// error rate both ways, saturated UDP in `direction`.
fn cell(no_ack: &[&str], direction: &str) -> Value {
    json!({
        "scenario": {"name": "noack-nodes", "duration_s": 2.0, "warmup_s": 0.5},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54.0},
        "mac": {"no_ack_nodes": no_ack},
        "ap": {"beacons": false},
        "wlan": {"stations": 2, "per_uplink": 0.1, "per_downlink": 0.1},
        "traffic": [{"name": "t", "kind": "udp", "pattern": "saturated", "direction": direction,
                     "stations": "all", "msdu_bytes": 1500}]
    })
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// An 802.11a ACK: 14 octets at 24 Mbit/s, 20 + 4 x ceil(134 / 96) us.
const ACK_S: f64 = 28e-6;

#[test]
fn a_no_ack_station_gets_no_acks_and_no_retries_beside_an_acknowledged_one() {
    let r = run(&cell(&["sta0"], "uplink"));
    let (ap, s0, s1) = (&r["stations"][0], &r["stations"][1], &r["stations"][2]);
    // sta0: frames lost to the channel and to collisions, yet every attempt
    // is a first attempt that counts as done (10.22.2.7).
    assert!(u(&s0["channel_errors"]) > 100 && u(&s0["collisions"]) > 50, "{s0}");
    assert_eq!((u(&s0["retries"]), u(&s0["failures"])), (0, 0), "{s0}");
    assert_eq!(u(&s0["attempts"]), u(&s0["successes"]) + 1, "{s0}"); // one on the air at the end
                                                                     // sta1, same cell, same channel: acknowledged, retried.
    assert!(u(&s1["retries"]) > 100 && u(&s1["failures"]) == u(&s1["retries"]), "{s1}");
    // The AP's airtime (no beacons) is its ACKs, to sta1 only: one per
    // success of sta1, none for sta0's 3,000-odd frames.
    let acks = ap["airtime_s"].as_f64().unwrap() / ACK_S;
    let ok1 = u(&s1["successes"]) as f64;
    assert!((acks - ok1).abs() < 1.5, "{acks} ACKs, {ok1} frames of sta1 acknowledged");
    assert!(u(&s0["successes"]) as f64 > 0.5 * acks, "{s0}");
    // Every frame of sta0 lost on the air is a typed drop.
    let lost = u(&s0["channel_errors"]) + u(&s0["collisions"]);
    assert_eq!(u(&r["ledger"]["dropped"]["noack_lost"]), lost, "{}", r["ledger"]);
}

#[test]
fn a_no_ack_ap_gets_no_acks_and_its_stations_send_none() {
    let r = run(&cell(&["ap"], "downlink"));
    let ap = &r["stations"][0];
    assert!(u(&ap["channel_errors"]) > 100, "{ap}");
    assert_eq!((u(&ap["retries"]), u(&ap["failures"])), (0, 0), "{ap}");
    for s in [&r["stations"][1], &r["stations"][2]] {
        assert_eq!(s["airtime_s"].as_f64(), Some(0.0), "a station answered: {s}");
    }
    // Uplink stations in the same cell still get their ACKs.
    let mut up = cell(&["ap"], "downlink");
    up["traffic"][0]["direction"] = json!("uplink");
    let r = run(&up);
    assert!(u(&r["stations"][1]["retries"]) > 0 && r["stations"][0]["airtime_s"].as_f64().unwrap() > 0.0);
}

#[test]
fn bystander_grouping_leaves_mixed_ack_policies_unchanged() {
    // The engine's grouping of bystanders must not change results when
    // members of one cell end their exchanges differently.
    let mut a = cell(&["sta0"], "uplink");
    let r1 = run(&a);
    a["mac"]["group_bystanders"] = json!(false);
    let r2 = run(&a);
    assert_eq!(r1["stations"], r2["stations"]);
    assert_eq!(r1["ledger"], r2["ledger"]);
}

#[test]
fn under_the_hcf_a_no_ack_station_gets_no_block_acks() {
    // 802.11n, A-MPDUs, 10 % PSDU error rate: sta0's aggregates go
    // unanswered and unrepeated, sta1's are answered by BlockAcks.
    let r = run(&json!({
        "scenario": {"name": "noack-nodes-ht", "duration_s": 2.0, "warmup_s": 0.5},
        "phy": {"standard": "802.11n", "ht_mcs": 7},
        "mac": {"kind": "edca", "no_ack_nodes": ["sta0"]},
        "wlan": {"stations": 2, "per_uplink": 0.1},
        "traffic": [{"name": "t", "kind": "udp", "pattern": "saturated", "direction": "uplink",
                     "stations": "all", "msdu_bytes": 1500}]
    }));
    let (h0, h1) = (&r["stations"][1]["hcf"], &r["stations"][2]["hcf"]);
    assert!(u(&h0["data_ppdus"]) > 100 && h0["mean_mpdus_per_ppdu"].as_f64().unwrap() > 1.0, "{h0}");
    assert_eq!((u(&h0["block_acks"]), u(&h0["mpdu_retransmissions"]), u(&h0["bitmap_losses"])), (0, 0, 0), "{h0}");
    assert!(u(&h1["block_acks"]) > 100 && u(&h1["mpdu_retransmissions"]) > 0, "{h1}");
    assert!(u(&r["ledger"]["dropped"]["noack_lost"]) > 0);
}

#[test]
fn bad_no_ack_nodes_name_the_key() {
    let mut s = cell(&["sta2"], "uplink");
    assert!(err(&s).contains("mac.no_ack_nodes[0]: \"sta2\" is not a WLAN member"), "{}", err(&s));
    s["mac"]["no_ack_nodes"] = json!(["ap", "ap"]);
    assert!(err(&s).contains("mac.no_ack_nodes[1]: \"ap\" is listed twice"), "{}", err(&s));
    s["mac"]["no_ack_nodes"] = json!(["sta1"]);
    s["mac"]["rts_threshold_bytes"] = json!(500);
    assert!(err(&s).contains("mac.no_ack_nodes: No Ack frames are sent without RTS/CTS"), "{}", err(&s));
}
