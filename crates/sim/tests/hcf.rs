//! The HCF (`mac.kind = "edca"`) in whole runs: 802.11n A-MPDU saturation
//! against the cycle-time arithmetic of one station; TCP over A-MPDUs with
//! channel losses (a PSDU error rate the medium spreads over the MPDUs),
//! every packet accounted; the HCF metrics in the result; the bad-input
//! errors of the HT and HCF keys.
mod common;

use common::{err, run};
use serde_json::{json, Value};

fn ht(stations: u32, max_mpdus: u32, per: f64, kind: &str) -> Value {
    json!({
        "scenario": {"name": "hcf", "duration_s": 6.0, "warmup_s": 1.0},
        "phy": {"standard": "802.11n", "ht_mcs": 7},
        "mac": {"kind": "edca", "max_mpdus": max_mpdus},
        "wlan": {"stations": stations, "per_uplink": per, "per_downlink": per},
        "traffic": [{"name": "t", "kind": kind, "pattern": "saturated", "direction": "uplink",
                     "stations": "all", "msdu_bytes": 1500}]
    })
}

/// HT-mixed MCS 7 20 MHz long GI (19.4.3): 36 us preamble, 260 data bits
/// per 4 us symbol, 16 service + 6 tail bits.
fn ht_us(psdu: u32) -> f64 {
    36.0 + 4.0 * ((8 * psdu + 22) as f64 / 260.0).ceil()
}

#[test]
fn one_station_a_mpdu_saturation_matches_the_cycle_time() {
    // MSDU 1500 = LLC 8 + IP 1492; MPDU = 26 + 1500 + 4 = 1530; subframe
    // 4 + 1530 + 2 pad = 1536. aPPDUMaxTime (5484 us) admits 28 subframes
    // (27 x 1536 + 1534 = 43006 octets: 36 + 4 x 1324 = 5332 us; 29 would
    // take 5520 us): the count limit 32 does not bind.
    for (max, n) in [(1u32, 1u32), (8, 8), (32, 28)] {
        let psdu = if n == 1 { 1530 } else { (n - 1) * 1536 + 1534 };
        let resp = if n == 1 { 28.0 } else { 32.0 }; // ACK or BlockAck at 24 Mbit/s
        let cycle = 43.0 + 7.5 * 9.0 + ht_us(psdu) + 16.0 + resp;
        let want = (n * 1464 * 8) as f64 / cycle;
        let r = run(&ht(1, max, 0.0, "udp"));
        let got = r["aggregate_mbps"].as_f64().unwrap();
        assert!((got / want - 1.0).abs() < 0.01, "max {max}: {got:.2} Mbit/s, cycle arithmetic {want:.2}");
        let h = &r["stations"][1]["hcf"];
        assert_eq!(h["mean_mpdus_per_ppdu"].as_f64().unwrap(), n as f64, "{h}");
    }
}

/// RTS/CTS under the HCF (`mac/exchange`): with the threshold below the
/// A-MPDU's PSDU every exchange starts with RTS (20 octets) and CTS (14),
/// each 28 us at 24 Mbit/s (20 us preamble + 2 symbols), SIFS apart.
#[test]
fn rts_cts_in_front_of_every_a_mpdu_matches_the_cycle_time() {
    let mut s = ht(1, 8, 0.0, "udp");
    s["mac"]["rts_threshold_bytes"] = json!(2000);
    let psdu = 7 * 1536 + 1534;
    let cycle = 43.0 + 7.5 * 9.0 + 28.0 + 16.0 + 28.0 + 16.0 + ht_us(psdu) + 16.0 + 32.0;
    let want = (8 * 1464 * 8) as f64 / cycle;
    let r = run(&s);
    let got = r["aggregate_mbps"].as_f64().unwrap();
    assert!((got / want - 1.0).abs() < 0.01, "{got:.2} Mbit/s, cycle arithmetic {want:.2}");
    let h = &r["stations"][1]["hcf"];
    let ppdus = h["data_ppdus"].as_u64().unwrap();
    assert_eq!(h["rts"].as_u64().unwrap(), ppdus, "{h}");
    assert_eq!(h["cts_failures"].as_u64().unwrap(), 0, "{h}");
    let ap = &r["stations"][0]["hcf"];
    let cts_s = ap["airtime_s"]["rts_cts"].as_f64().unwrap();
    assert!((cts_s / (ppdus as f64 * 28e-6) - 1.0).abs() < 0.01, "{ap}");
    // A threshold above the PSDU: no RTS.
    s["mac"]["rts_threshold_bytes"] = json!(psdu + 1);
    assert_eq!(run(&s)["stations"][1]["hcf"]["rts"].as_u64(), Some(0));
}

/// AP-scheduled access (`mac.poll`): with every station polled in service
/// periods back to back, ten saturated stations send their A-MPDUs in
/// granted TXOPs instead of colliding; every packet is accounted (the run
/// checks the ledger) and the polling counters are in the result.
#[test]
fn polled_txops_replace_contention_for_saturated_stations() {
    let edca = run(&ht(10, 16, 0.0, "udp"));
    let mut s = ht(10, 16, 0.0, "udp");
    s["mac"]["poll"] = json!("all");
    s["mac"]["poll_txop_us"] = json!(2000.0);
    let polled = run(&s);
    let fails = |r: &Value| -> u64 {
        r["stations"].as_array().unwrap().iter().map(|m| m["failures"].as_u64().unwrap_or(0)).sum()
    };
    let (ge, gp) = (edca["aggregate_mbps"].as_f64().unwrap(), polled["aggregate_mbps"].as_f64().unwrap());
    assert!(gp > ge, "polled {gp:.2} Mbit/s, EDCA {ge:.2}");
    assert!(fails(&polled) * 10 < fails(&edca), "failures polled {}, EDCA {}", fails(&polled), fails(&edca));
    let ap = &polled["stations"][0]["hcf"]["polling"];
    // 6 s of back-to-back periods of ten 2 ms grants (~21 ms each).
    assert!(ap["polls"].as_u64().unwrap() > 2000 && ap["null_answers_received"] == 0, "{ap}");
    let sta = &polled["stations"][3]["hcf"]["polling"];
    assert!(sta["polled_txops"].as_u64().unwrap() > 200, "{sta}");
    // Bad input names the key.
    s["mac"]["poll_max_period_ms"] = json!(50.0);
    assert!(err(&s).contains("mac.poll_max_period_ms"), "{}", err(&s));
    s["mac"]["poll_max_period_ms"] = json!(10.0);
    s["mac"]["poll_txop_us"] = json!(50.0);
    assert!(err(&s).contains("mac.poll_txop_us"), "{}", err(&s));
    s["mac"]["poll"] = json!("sometimes");
    assert!(err(&s).contains("mac.poll"), "{}", err(&s));
}

/// Back-to-back grants against their cycle arithmetic: with a 2 ms
/// service interval as long as its period and a 2 ms grant, the AP polls
/// one station per period and the next period is due when the grant
/// ends. Each cycle is PIFS (25 us), the QoS CF-Poll (30 octets: 36 + 4 x 2
/// = 44 us), SIFS, the A-MPDU the grant holds (1984 us left after SIFS:
/// 10 subframes, 15,358 octets, 36 + 4 x 473 = 1928 us), SIFS and the
/// BlockAck (32 us): 2061 us for 10 x 1464 payload octets.
#[test]
fn back_to_back_grants_match_the_cycle_time() {
    let mut s = ht(10, 64, 0.0, "udp");
    s["mac"]["poll"] = json!("all");
    s["mac"]["poll_txop_us"] = json!(2000.0);
    s["mac"]["poll_interval_ms"] = json!(2.0);
    let psdu = 9 * 1536 + 1534;
    let cycle = 25.0 + 44.0 + 16.0 + ht_us(psdu) + 16.0 + 32.0;
    assert_eq!(cycle, 2061.0);
    let want = (10 * 1464 * 8) as f64 / cycle;
    let r = run(&s);
    let got = r["aggregate_mbps"].as_f64().unwrap();
    assert!((got / want - 1.0).abs() < 0.005, "{got:.3} Mbit/s, cycle arithmetic {want:.3}");
    assert!(r["jain_index"].as_f64().unwrap() > 0.999);
}

/// `mac.poll = "activity"`: the AP polls only the stations whose traffic
/// crosses the multi-poll thresholds (here 100 packets/s over a 1 s
/// window): the one saturated station of three joins the list, the idle
/// ones are never polled, so no grant comes back empty.
#[test]
fn the_activity_list_polls_only_active_stations() {
    let mut s = ht(3, 16, 0.0, "udp");
    s["traffic"][0]["stations"] = json!([1]);
    s["mac"]["poll"] = json!("activity");
    s["mac"]["poll_txop_us"] = json!(2000.0);
    let r = run(&s);
    let ap = &r["stations"][0]["hcf"]["polling"];
    assert_eq!((ap["list_joins"].as_u64(), ap["list_leaves"].as_u64()), (Some(1), Some(0)), "{ap}");
    assert!(ap["polls"].as_u64().unwrap() > 100 && ap["null_answers_received"] == 0, "{ap}");
    let polled: Vec<u64> =
        (1..=3).map(|i| r["stations"][i]["hcf"]["polling"]["polled_txops"].as_u64().unwrap()).collect();
    assert!(polled[0] == 0 && polled[1] > 100 && polled[2] == 0, "{polled:?}");
    // every grant answered with data on an error-free channel, one station
    // listed at the end; the period time within the run
    assert_eq!((ap["no_answers"].as_u64(), ap["listed"].as_u64()), (Some(0), Some(1)), "{ap}");
    let polls = ap["polls"].as_u64().unwrap();
    assert!(polls - polled[1] <= 1, "{polls} polls, {} answered", polled[1]);
}

#[test]
fn tcp_over_lossy_a_mpdus_is_accounted_and_in_order() {
    let mut s = ht(2, 64, 0.1, "tcp");
    s["traffic"][0].as_object_mut().unwrap().remove("pattern");
    s["traffic"][0].as_object_mut().unwrap().remove("msdu_bytes");
    s["traffic"][0]["peer"] = json!("server");
    s["traffic"][0]["direction"] = json!("downlink");
    s["nodes"] = json!([{"name": "server"}]);
    s["links"] = json!([{"a": "ap", "b": "server", "rate_mbps": 1000.0, "delay_ms": 1.0, "queue_packets": 1000}]);
    let r = run(&s);
    assert!(r["aggregate_mbps"].as_f64().unwrap() > 20.0, "{}", r["aggregate_mbps"]);
    let h = &r["stations"][0]["hcf"];
    assert!(h["bitmap_losses"].as_f64().unwrap() > 0.0 && h["mpdu_retransmissions"].as_f64().unwrap() > 0.0);
    // The stations answer with BlockAcks and send TCP ACKs in aggregates.
    let sta = &r["stations"][1]["hcf"];
    assert!(sta["airtime_s"]["block_ack"].as_f64().unwrap() > 0.0, "{sta}");
    assert!(sta["mean_mpdus_per_ppdu"].as_f64().unwrap() > 1.0, "{sta}");
    assert_eq!(
        r["ledger"]["dropped"]["retry_limit"], 0,
        "a 10 % PSDU error rate, 7 attempts: no MPDU reaches the limit"
    );
}

#[test]
fn dcf_results_carry_no_hcf_fields() {
    let r = run(&json!({
        "scenario": {"name": "dcf", "duration_s": 1.0},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54.0},
        "wlan": {"stations": 1},
        "traffic": [{"name": "t", "kind": "udp", "pattern": "saturated", "direction": "uplink", "stations": "all"}]
    }));
    assert!(r["stations"][1].get("hcf").is_none());
}

#[test]
fn bad_ht_and_hcf_input_names_the_key() {
    let cases: Vec<(Value, &str)> = vec![
        (json!({"phy": {"standard": "802.11n", "ht_mcs": 15, "spatial_streams": 1}}), "phy.ht_mcs: MCS 15 needs 2"),
        (json!({"mac": {"kind": "edca", "max_mpdus": 64, "block_ack_window": 32}}), "mac.max_mpdus: 64 MPDUs exceed"),
        (json!({"mac": {"kind": "edca", "txop_limit_us": 100.0}}), "mac.txop_limit_us: 100 us is shorter"),
        (json!({"mac": {"kind": "edca", "ack_policy": "noack", "rts_threshold_bytes": 500}}), "mac.ack_policy:"),
        (json!({"mac": {"kind": "dcf"}}), "mac.kind: 802.11n"),
        (
            json!({"mac": {"kind": "dcf", "max_mpdus": 4}, "phy": {"standard": "802.11a", "data_rate_mbps": 54.0}}),
            "mac.max_mpdus: only for mac.kind",
        ),
    ];
    for (patch, want) in cases {
        let mut s = ht(1, 8, 0.0, "udp");
        for (sec, v) in patch.as_object().unwrap() {
            for (k, x) in v.as_object().unwrap() {
                s[sec][k] = x.clone();
            }
            if sec == "phy" && v.get("standard") == Some(&json!("802.11a")) {
                s["phy"].as_object_mut().unwrap().remove("ht_mcs");
            }
        }
        if s["mac"]["kind"] == json!("dcf") {
            s["mac"].as_object_mut().unwrap().remove("max_mpdus");
            if patch["mac"].get("max_mpdus").is_some() {
                s["mac"]["max_mpdus"] = json!(4);
            }
        }
        let e = err(&s);
        assert!(e.contains(want), "{patch}: {e}");
    }
}
