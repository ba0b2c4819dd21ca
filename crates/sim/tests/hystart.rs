//! CUBIC's HyStart over one 802.11g download (scenarios/download.toml's
//! network: 24 Mbit/s, a 300-packet drop-tail AP buffer, a 15 ms wired
//! hop, a 1000-packet receive window): slow start ends by the delay signal
//! before the buffer overflows, near Linux's exit (133-136 segments,
//! docs/validation.md 16.13); without HyStart it runs into the buffer.
use serde_json::{json, Value};
use wifitcp_sim::api::run_json;

fn cubic_download(hystart: &str, thresholds: &str) -> Value {
    let s = json!({
        "scenario": {"name": "download", "duration_s": 3.0},
        "phy": {"standard": "802.11g", "data_rate_mbps": 24.0},
        "wlan": {"stations": 1},
        "ap": {"queue_packets": 300},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 100.0, "delay_ms": 15.0, "queue_packets": 1000}],
        "tcp": {"cc": "cubic", "recovery": "sack", "sack": true, "rwnd_packets": 1000, "window_scaling": true,
                "delayed_ack": false, "initial_window": 2,
                "cubic": {"hystart": hystart, "hystart_thresholds": thresholds}},
        "traffic": [{"name": "down", "kind": "tcp", "direction": "downlink", "peer": "server"}]
    });
    serde_json::from_str(&run_json(&s.to_string(), 1).expect("run")).unwrap()
}

#[test]
fn hystart_ends_slow_start_before_the_buffer_overflows() {
    for thresholds in ["linux", "ns3"] {
        let r = cubic_download("both", thresholds);
        let t = &r["flows"][0]["tcp"];
        let drops = r["ledger"]["dropped"]["queue_full"].as_u64().unwrap();
        let ssthresh = t["ssthresh_bytes"].as_f64().unwrap() / 1460.0;
        assert_eq!(drops, 0, "{thresholds}");
        assert_eq!(t["timeouts"].as_u64().unwrap(), 0, "{thresholds}");
        // ssthresh = cwnd at the exit: 137 segments here (Linux: 133-136)
        assert!((120.0..160.0).contains(&ssthresh), "{thresholds}: exit at {ssthresh} segments");
    }
    let off = cubic_download("off", "linux");
    let drops = off["ledger"]["dropped"]["queue_full"].as_u64().unwrap();
    assert!(drops > 400, "without HyStart slow start overflows the buffer: {drops} drops");
    // the ACK train alone never completes on this path (docs/validation.md 16.13)
    let train = cubic_download("ack-train", "linux");
    assert!(train["ledger"]["dropped"]["queue_full"].as_u64().unwrap() > 400);
}
