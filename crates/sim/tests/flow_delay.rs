//! Per-flow delay percentiles, RFC 3550 jitter and loss over the counted
//! window, in whole runs: the percentiles are ordered and bounded by the
//! exact mean and maximum, the stored histogram holds every counted packet,
//! and a UDP flow three times faster than its wired bottleneck loses about
//! two thirds of the packets it sends after the warm-up.
use serde_json::{json, Value};
use wifitcp_sim::api::run_json;

fn run(rate_mbps: f64, link_mbps: f64, tcp: bool) -> Value {
    let traffic = if tcp {
        json!([{"name": "t", "kind": "tcp", "direction": "uplink", "peer": "server"}])
    } else {
        json!([{"name": "u", "kind": "udp", "pattern": "cbr", "rate_mbps": rate_mbps,
                "direction": "uplink", "peer": "server"}])
    };
    let s = json!({
        "scenario": {"name": "x", "duration_s": 20.0, "warmup_s": 5.0},
        "phy": {"standard": "802.11b", "data_rate_mbps": 11.0},
        "wlan": {"stations": 1},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": link_mbps, "delay_ms": 10.0, "queue_packets": 20}],
        "traffic": traffic
    });
    serde_json::from_str(&run_json(&s.to_string(), 1).expect("run")).unwrap()
}

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or_else(|| panic!("{k}: {v}"))
}

fn check_consistent(fl: &Value) {
    let err = f(fl, "delay_relative_error");
    assert!(err > 0.0 && err <= 0.01);
    let ps: Vec<f64> =
        ["delay_p50_ms", "delay_p90_ms", "delay_p99_ms", "delay_p999_ms"].iter().map(|k| f(fl, k)).collect();
    assert!(ps.windows(2).all(|w| w[0] <= w[1]), "{ps:?}");
    // Every delay includes the 10 ms propagation delay of the wired link.
    assert!(ps[0] >= 10.0 * (1.0 - err), "{ps:?}");
    assert!(ps[3] <= f(fl, "max_delay_ms") * (1.0 + err));
    let h = fl["delay_histogram"].as_array().unwrap();
    let n: u64 = h.iter().map(|b| b[2].as_u64().unwrap()).sum();
    assert_eq!(n, fl["packets_delivered"].as_u64().unwrap());
    assert!(h.windows(2).all(|w| w[0][1].as_f64() <= w[1][0].as_f64()));
    // The mean lies within the histogram's range.
    let mean = f(fl, "mean_delay_ms");
    assert!(h[0][0].as_f64().unwrap() <= mean && mean <= h[h.len() - 1][1].as_f64().unwrap());
    assert!(fl["window_delivered_packets"].as_u64() <= fl["window_generated_packets"].as_u64());
    assert!(fl["window_generated_packets"].as_u64() <= fl["packets_generated"].as_u64());
    let jit = f(fl, "jitter_ms");
    assert!(jit >= 0.0 && jit <= f(fl, "max_delay_ms"));
}

#[test]
fn an_overloaded_bottleneck_loses_the_excess_over_the_window() {
    let r = run(3.0, 1.0, false);
    let fl = &r["flows"][0];
    check_consistent(fl);
    // Fluid bound: a 1 Mbit/s link passes 1/3 of a 3 Mbit/s stream (the
    // link carries IP packets, the source's rate counts MSDUs: within 3 %).
    let loss = f(fl, "loss_ratio");
    assert!((loss - 2.0 / 3.0).abs() < 0.03, "loss {loss}");
    // The generated count of the window is 15/20 of the run's.
    let (w, all) = (f(fl, "window_generated_packets"), f(fl, "packets_generated"));
    assert!((w / all - 0.75).abs() < 0.01, "{w} of {all}");
    // A full 20-packet drop-tail queue ahead of a 1 Mbit/s link: about
    // 20 x 12 ms of queueing for most packets.
    assert!(f(fl, "delay_p50_ms") > 200.0, "{fl}");
}

#[test]
fn an_uncongested_flow_loses_nothing_and_has_little_jitter() {
    let r = run(0.5, 100.0, false);
    let fl = &r["flows"][0];
    check_consistent(fl);
    // Only packets in flight at the end are missing from the window.
    let lost = f(fl, "window_generated_packets") - f(fl, "window_delivered_packets");
    assert!(lost <= 2.0, "{lost}");
    // Transit varies only by the DCF backoff (at most 31 slots of 20 us).
    assert!(f(fl, "jitter_ms") < 0.62, "{}", f(fl, "jitter_ms"));
    assert!(f(fl, "delay_p999_ms") - f(fl, "delay_p50_ms") < 1.0);
}

#[test]
fn tcp_flows_report_the_same_keys() {
    let r = run(0.0, 5.0, true);
    check_consistent(&r["flows"][0]);
}
