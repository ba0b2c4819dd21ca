//! Applications in whole runs: ping's round-trip times against the sum of
//! the path's delays, and their growth when the pinging station's queue is
//! loaded; game traffic's datagram counts and sizes (paper 002); a
//! trace-driven source delivering its file's bytes; on-off's duty cycle;
//! malformed trace files reported with their line.
mod common;

use common::run;
use serde_json::{json, Value};
use wifitcp_sim::api::check_config_json;

fn scenario(traffic: Value, duration: f64) -> Value {
    json!({
        "scenario": {"name": "x", "duration_s": duration, "warmup_s": 2.0},
        "phy": {"standard": "802.11b", "data_rate_mbps": 11.0, "control_rate_mbps": 11.0, "preamble": "long"},
        "wlan": {"stations": 1},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 100.0, "delay_ms": 10.0, "queue_packets": 100}],
        "traffic": traffic
    })
}

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k}: {v}"))
}

fn ping(interval_ms: f64) -> Value {
    json!({"name": "ping", "kind": "udp", "pattern": "ping", "interval_ms": interval_ms,
           "direction": "uplink", "peer": "server"})
}

/// The round trip on an idle path: twice the wired delay and transmission
/// (84-byte IP packet at 100 Mbit/s), and twice an 802.11b data frame
/// sent at once (the medium has been idle for more than DIFS, 802.11-2016
/// 10.3.4.2), long preamble and PLCP header 192 us, MPDU = 24 header + 92
/// MSDU + 4 FCS = 120 bytes at 11 Mbit/s, rounded up to whole microseconds
/// (16.3.4.2's LENGTH field): 88 us. The ACK follows the delivery.
fn idle_rtt_ms() -> f64 {
    let wired = 10.0 + 84.0 * 8.0 / 100e6 * 1e3;
    let air = (192.0 + (120.0f64 * 8.0 / 11.0).ceil()) / 1e3;
    2.0 * (wired + air)
}

#[test]
fn idle_ping_rtt_is_the_paths_delay() {
    // Without beacons: one may hold up an echo (the sum has none).
    let mut s = scenario(json!([ping(100.0)]), 12.0);
    s["ap"] = json!({"beacons": false});
    let r = run(&s);
    let fl = &r["flows"][0];
    let p = &fl["ping"];
    assert_eq!(p["transport"], "udp-echo");
    let err = f(fl, "delay_relative_error");
    let want = idle_rtt_ms();
    // Every echo finds the path idle: each round trip is exactly the sum.
    assert!((f(p, "rtt_mean_ms") - want).abs() < 1e-6, "mean {} want {want}", p["rtt_mean_ms"]);
    assert!((f(p, "rtt_max_ms") - want).abs() < 1e-6, "max {} want {want}", p["rtt_max_ms"]);
    for k in ["rtt_p50_ms", "rtt_p99_ms", "rtt_p999_ms"] {
        assert!((f(p, k) - want).abs() <= want * err, "{k} {} want {want}", p[k]);
    }
    // 100 requests in the 10 s window, every one answered.
    assert_eq!(fl["window_generated_packets"], 100);
    assert_eq!(p["window_replies"], 100);
    assert_eq!(f(p, "rtt_loss_ratio"), 0.0);
    let h = p["rtt_histogram"].as_array().unwrap();
    assert_eq!(h.iter().map(|b| b[2].as_u64().unwrap()).sum::<u64>(), p["replies"].as_u64().unwrap());
    // The one-way delay of a request is half the round trip.
    assert!((f(fl, "delay_p50_ms") - want / 2.0).abs() <= want / 2.0 * err, "{}", fl["delay_p50_ms"]);
    // Requests and replies balance in the ledger.
    assert_eq!(r["ledger"]["in_flight"], 0);
    // Flows without ping have no "ping" key.
    let r = run(&scenario(
        json!([{"name": "u", "kind": "udp", "pattern": "cbr", "rate_mbps": 0.1,
                                   "peer": "server"}]),
        4.0,
    ));
    assert!(r["flows"][0].get("ping").is_none());
}

#[test]
fn ping_under_load_waits_behind_the_stations_queue() {
    // A 12 Mbit/s CBR uplink from the same station saturates its 802.11b
    // MAC; its drop-tail queue (mac.queue_packets, 50) stays full, so an
    // accepted request waits behind 49 frames of 1500 bytes, each DIFS +
    // backoff + PLCP + 1528 * 8 / 11 us + SIFS + ACK: 1.565 ms without
    // backoff, 1.875 ms with the mean CWmin backoff of 15.5 slots of 20 us.
    // Requests that find the queue full are dropped there. The reply
    // reaches the AP's empty queue while the station's next frame is on
    // the air, so it draws a backoff (10.3.4.3) and contends with the
    // station's backlog: up to two of the station's frames more.
    let mut s = scenario(
        json!([ping(100.0), {"name": "bulk", "kind": "udp", "pattern": "cbr", "rate_mbps": 12.0,
                             "direction": "uplink", "peer": "server"}]),
        12.0,
    );
    s["mac"] = json!({"queue_packets": 50});
    let r = run(&s);
    let p = &r["flows"][0]["ping"];
    let p50 = f(p, "rtt_p50_ms");
    let frame_ms =
        (50.0 + 192.0 + (1528.0f64 * 8.0 / 11.0).ceil() + 10.0 + 192.0 + (14.0f64 * 8.0 / 11.0).ceil()) / 1e3;
    let (lo, hi) = (idle_rtt_ms() + 48.0 * frame_ms, idle_rtt_ms() + 52.0 * (frame_ms + 0.31) + 2.0);
    assert!(lo < p50 && p50 < hi, "loaded p50 {p50} not in ({lo}, {hi})");
    assert!(f(p, "rtt_p50_ms") <= f(p, "rtt_p99_ms"));
    assert!(f(p, "rtt_loss_ratio") > 0.2, "{}", p["rtt_loss_ratio"]);
}

#[test]
fn game_streams_follow_paper_002() {
    let r = run(&scenario(
        json!([
            {"name": "down", "kind": "udp", "pattern": "game", "direction": "downlink", "peer": "server"},
            {"name": "up", "kind": "udp", "pattern": "game", "direction": "uplink", "peer": "server"}
        ]),
        14.0,
    ));
    // 12 s window: the server every 50 ms (240), the client every 60 ms (200).
    let (down, up) = (&r["flows"][0], &r["flows"][1]);
    assert_eq!(down["window_generated_packets"], 240);
    assert_eq!(up["window_generated_packets"], 200);
    // MSDU = LLC/SNAP 8 + IPv4 20 + UDP 8 + payload (200, 42 bytes).
    let msdu = |fl: &Value| f(fl, "msdu_mbps") * 1e6 / 8.0 * 12.0 / f(fl, "packets_delivered");
    assert!((msdu(down) - 236.0).abs() < 1e-6, "{}", msdu(down));
    assert!((msdu(up) - 78.0).abs() < 1e-6, "{}", msdu(up));
}

#[test]
fn a_trace_source_sends_its_files_bytes() {
    let dir = std::env::temp_dir().join(format!("wifitcp-apps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("t.txt");
    // 10 frames per second: 100, 2000 (two datagrams), 300 bytes, repeating
    // every 0.3 s: 2400 bytes per 0.3 s = 64 kbit/s.
    std::fs::write(&file, "# test\n0.0 100\n0.1 2000\n0.2 300\n").unwrap();
    let tr = json!([{"name": "v", "kind": "udp", "pattern": "trace", "trace_file": file.to_str().unwrap(),
                     "direction": "uplink", "peer": "server"}]);
    let r = run(&scenario(tr, 5.0));
    let fl = &r["flows"][0];
    // window [2, 5) s: 10 repetitions, 40 datagrams, 24,000 payload bytes
    assert_eq!(fl["window_generated_packets"], 40);
    assert!((f(fl, "goodput_mbps") - 0.064).abs() < 0.003, "{}", fl["goodput_mbps"]);

    std::fs::write(&file, "0.0 100\n0.1 x\n").unwrap();
    let e = check_config_json(&scenario(tr_with(&file), 5.0).to_string()).unwrap_err();
    let e = e.to_string();
    assert!(e.contains("traffic[0].trace_file: ") && e.contains("t.txt: line 2: size "), "{e}");
    let missing = dir.join("missing.txt");
    let e = check_config_json(&scenario(tr_with(&missing), 5.0).to_string()).unwrap_err();
    let e = e.to_string();
    assert!(e.contains("traffic[0].trace_file: ") && e.contains("missing.txt: cannot read"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}

fn tr_with(file: &std::path::Path) -> Value {
    json!([{"name": "v", "kind": "udp", "pattern": "trace", "trace_file": file.to_str().unwrap(), "peer": "server"}])
}

#[test]
fn on_off_offers_its_duty_cycle() {
    let tr = json!([{"name": "o", "kind": "udp", "pattern": "on-off", "rate_mbps": 1.0, "msdu_bytes": 1000,
                     "on_s": 0.5, "off_s": 1.5, "on_off_distribution": "fixed", "peer": "server"}]);
    let r = run(&scenario(tr, 10.0));
    // 8 s window = 4 cycles of 0.5 s on, 8 ms apart: at 0, 8, ..., 496 ms
    // of each on period, 63 datagrams.
    assert_eq!(r["flows"][0]["window_generated_packets"], 4 * 63);
    let bad = json!([{"name": "o", "kind": "udp", "pattern": "on-off", "rate_mbps": 1.0, "on_s": 0.5,
                      "peer": "server"}]);
    let e = check_config_json(&scenario(bad, 10.0).to_string()).unwrap_err();
    let e = e.to_string();
    assert!(e.contains("traffic[0].off_s: required for pattern on-off"), "{e}");
    let bad = json!([{"name": "t", "kind": "tcp", "peer": "server", "interval_ms": 5.0}]);
    let e = check_config_json(&scenario(bad, 10.0).to_string()).unwrap_err();
    let e = e.to_string();
    assert!(e.contains("traffic[0].interval_ms: applies to UDP flows only"), "{e}");
    let bad = json!([{"name": "u", "kind": "udp", "pattern": "cbr", "rate_mbps": 1.0, "peer": "server",
                      "trace_file": "x.txt"}]);
    let e = check_config_json(&scenario(bad, 10.0).to_string()).unwrap_err();
    let e = e.to_string();
    assert!(e.contains("traffic[0].trace_file: used by pattern trace only"), "{e}");
}
