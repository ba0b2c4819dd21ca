//! Whole-run checks of the congestion controllers with SACK recovery over
//! one 802.11g download (scenarios/download.toml with one station, a
//! 1000-packet receive window with window scaling and a 100-packet
//! drop-tail AP buffer).
use serde_json::{json, Value};
use wifitcp_sim::api::run_json;

fn download(cc: &str, secs: f64) -> Value {
    download_with(cc, secs, json!({}))
}

/// The download with `tcp` keys added and the AP buffer `ap_queue` (if set).
fn download_with(cc: &str, secs: f64, extra: Value) -> Value {
    let mut s = json!({
        "scenario": {"name": "download", "duration_s": secs},
        "phy": {"standard": "802.11g", "data_rate_mbps": 24.0},
        "wlan": {"stations": 1},
        "ap": {"queue_packets": 100},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 100.0, "delay_ms": 15.0, "queue_packets": 1000}],
        "tcp": {"cc": cc, "recovery": "sack", "sack": true, "rwnd_packets": 1000, "window_scaling": true,
                "delayed_ack": false, "initial_window": 2},
        "traffic": [{"name": "down", "kind": "tcp", "direction": "downlink", "peer": "server"}]
    });
    for (k, v) in extra.as_object().unwrap() {
        if k == "ap_queue" {
            s["ap"]["queue_packets"] = v.clone();
        } else if k == "qdisc" {
            s["ap"]["qdisc"] = v.clone();
        } else {
            s["tcp"][k] = v.clone();
        }
    }
    serde_json::from_str(&run_json(&s.to_string(), 1).expect("run")).unwrap()
}

/// An RTO during SACK recovery used to set ssthresh from `snd_max -
/// snd_una` (about 0.7 x 1000 segments for CUBIC), far above the window
/// the path holds: CUBIC then overflowed the AP buffer every few seconds
/// (8.75 Mbit/s, 32 timeouts, about 9,200 queue drops in 60 s). Every
/// controller now fills the link as Reno does, with at most the one
/// timeout of the slow-start overshoot.
#[test]
fn sack_download_does_not_collapse_for_any_controller() {
    let reno = download("reno", 60.0);
    let base = reno["aggregate_mbps"].as_f64().unwrap();
    assert!(base > 12.0, "reno {base}");
    for cc in ["cubic", "compound", "vegas", "bbr"] {
        let r = download(cc, 60.0);
        let g = r["aggregate_mbps"].as_f64().unwrap();
        let t = &r["flows"][0]["tcp"];
        let timeouts = t["timeouts"].as_u64().unwrap();
        let drops = r["ledger"]["dropped"]["queue_full"].as_u64().unwrap();
        assert!(g > 0.95 * base, "{cc}: {g} Mbit/s against reno {base}");
        assert!(timeouts <= 2, "{cc}: {timeouts} timeouts");
        assert!(drops < 1000, "{cc}: {drops} AP queue drops");
        // no second-long stall after the start
        let series = r["flows"][0]["series"].as_array().unwrap();
        let worst = series[5..].iter().map(|p| p[1].as_f64().unwrap()).fold(f64::MAX, f64::min);
        assert!(worst > 0.5 * base, "{cc}: a second at {worst} Mbit/s");
    }
}

/// BBR v1 paces at its bandwidth estimate and caps cwnd at twice the
/// estimated BDP, so behind a 300-packet drop-tail buffer it keeps about one
/// BDP queued (mean RTT about twice the 31 ms path RTT) where CUBIC fills the
/// buffer (mean RTT above 200 ms); both fill the link. Its state trace goes
/// through Startup, Drain, ProbeBW and, every 10 s, ProbeRTT.
#[test]
fn bbr_fills_the_link_with_a_short_queue() {
    let trace = json!({"trace_cwnd": true, "ap_queue": 300});
    let bbr = download_with("bbr", 25.0, trace.clone());
    let cubic = download_with("cubic", 25.0, trace);
    let rtt = |r: &Value| r["flows"][0]["tcp"]["rtt_mean_ms"].as_f64().unwrap();
    let g = |r: &Value| r["aggregate_mbps"].as_f64().unwrap();
    assert!(g(&bbr) > 0.97 * g(&cubic), "bbr {} against cubic {}", g(&bbr), g(&cubic));
    assert!(rtt(&bbr) < 80.0 && rtt(&cubic) > 200.0, "mean RTT bbr {} cubic {}", rtt(&bbr), rtt(&cubic));
    assert_eq!(bbr["flows"][0]["tcp"]["segments_retransmitted"], 0);
    let tr = bbr["flows"][0]["tcp"]["cc_trace"].as_array().unwrap();
    let mut modes: Vec<&str> = vec![];
    for p in tr {
        let m = p[2].as_str().unwrap();
        if modes.last() != Some(&m) {
            modes.push(m);
        }
    }
    assert_eq!(&modes[..4], ["startup", "drain", "probe_bw", "probe_rtt"]);
    assert_eq!(modes.iter().filter(|m| **m == "probe_rtt").count(), 2, "ProbeRTT at about 10 s and 20 s: {modes:?}");
    let fields = |r: &Value| r["flows"][0]["tcp"]["cc_trace_fields"].clone();
    assert_eq!(fields(&bbr), json!(["time_s", "cwnd_bytes", "mode", "pacing_rate_bps", "btlbw_bps", "min_rtt_ms"]));
    // CUBIC's trace: RFC 9438's regions and W_max, K, W_est.
    assert_eq!(fields(&cubic), json!(["time_s", "cwnd_bytes", "mode", "w_max_segments", "k_s", "w_est_segments"]));
    let tr = cubic["flows"][0]["tcp"]["cc_trace"].as_array().unwrap();
    assert_eq!(tr[0][2], "slow_start");
    let seen = |m: &str| tr.iter().any(|p| p[2] == m);
    assert!(seen("concave") && seen("convex"), "CUBIC's concave and convex regions");
    assert!(tr.iter().all(|p| p.as_array().unwrap().len() == 6));
    let w_max_after_loss = tr.iter().find(|p| p[2] == "concave").map(|p| p[3].as_f64().unwrap()).unwrap();
    assert!(w_max_after_loss > 100.0, "W_max is the window at the first loss, segments: {w_max_after_loss}");
}

/// `[tcp] pacing` paces a Reno sender at Linux's rate (2 or 1.2 x cwnd /
/// SRTT, which exceeds the delivery rate): the link stays nearly full (the
/// paced run here has one RTO the unpaced one does not: 12.37 against
/// 12.89 Mbit/s) and the run changes.
#[test]
fn pacing_key_paces_a_reno_download() {
    let plain = download_with("reno", 20.0, json!({"ap_queue": 50}));
    let paced = download_with("reno", 20.0, json!({"ap_queue": 50, "pacing": true}));
    let g = |r: &Value| r["aggregate_mbps"].as_f64().unwrap();
    let drops = |r: &Value| r["ledger"]["dropped"]["queue_full"].as_u64().unwrap();
    assert!(g(&paced) > 0.9 * g(&plain), "paced {} plain {}", g(&paced), g(&plain));
    assert_ne!(drops(&paced), drops(&plain), "pacing changes the run");
}

/// `[tcp.vegas] loss_response`: "reno" (default, as ns-3 and Linux) or
/// "brakmo" (Brakmo & Peterson's fine-grained loss detection, as ns-2);
/// anything else is a configuration error naming the key.
#[test]
fn vegas_loss_response_key() {
    let mut s = json!({
        "scenario": {"name": "v", "duration_s": 10.0},
        "phy": {"standard": "802.11b", "data_rate_mbps": 11.0},
        "wlan": {"stations": 1, "per_downlink": 0.3},
        "mac": {"short_retry_limit": 2},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 100.0, "delay_ms": 15.0}],
        "tcp": {"cc": "vegas", "recovery": "reno", "sack": false},
        "traffic": [{"name": "down", "kind": "tcp", "direction": "downlink", "peer": "server"}]
    });
    let run = |s: &Value| -> Value { serde_json::from_str(&run_json(&s.to_string(), 1).expect("run")).unwrap() };
    let default = run(&s);
    s["tcp"]["vegas"] = json!({"loss_response": "reno"});
    assert_eq!(run(&s)["flows"].to_string(), default["flows"].to_string(), "reno is the default");
    s["tcp"]["vegas"] = json!({"loss_response": "brakmo"});
    let b = run(&s);
    assert_ne!(b["flows"].to_string(), default["flows"].to_string(), "brakmo changes the loss response");
    let (gb, gr) = (b["aggregate_mbps"].as_f64().unwrap(), default["aggregate_mbps"].as_f64().unwrap());
    assert!(gb > 0.1 && gr > 0.1, "brakmo {gb} reno {gr} Mbit/s");
    s["tcp"]["vegas"] = json!({"loss_response": "ns2"});
    let e = run_json(&s.to_string(), 1).unwrap_err();
    assert!(e.to_string().contains("vegas.loss_response"), "{e:?}");
}

/// ECN end to end: DCTCP with the per-segment echo behind a marking RED AP
/// queue and a marking CoDel: the queue marks instead of dropping, the
/// sender reduces without retransmitting, and the link stays full; the same
/// RED without ECN drops instead. Prague's ECT(1) segments reach DualPI2's
/// L queue and keep its delay near the 1 ms step.
#[test]
fn ecn_marks_replace_drops_end_to_end() {
    let red = json!({"kind": "red", "ecn": true, "idle_pkt_us": 500.0});
    let r = download_with("dctcp", 20.0, json!({"ecn": "accurate", "qdisc": red}));
    let t = &r["flows"][0]["tcp"];
    assert_eq!(t["ecn"]["negotiated"], true);
    let marks = r["queues"][0]["ce_marked"].as_u64().unwrap_or(0);
    assert!(marks > 10, "{marks} marks; {}", r["queues"][0]);
    assert!(t["ecn"]["reductions"].as_u64().unwrap() > 5, "{}", t["ecn"]);
    // marked packets the MAC loses after its retries never arrive
    let ce = t["ecn"]["ce_received"].as_u64().unwrap();
    assert!(ce <= marks && ce as f64 > 0.9 * marks as f64, "{ce} CE received of {marks} marked");
    let g = r["aggregate_mbps"].as_f64().unwrap();
    assert!(g > 11.0, "{g} Mbit/s");
    let plain = download_with("reno", 20.0, json!({"qdisc": {"kind": "red"}}));
    assert!(plain["queues"][0]["ce_marked"].is_null(), "no ECN: no marks");
    assert!(plain["flows"][0]["tcp"]["segments_retransmitted"].as_u64().unwrap() > 0);
    let codel = download_with("reno", 20.0, json!({"ecn": "classic", "qdisc": {"kind": "codel", "ecn": true}}));
    let ct = &codel["flows"][0]["tcp"];
    assert!(codel["queues"][0]["ce_marked"].as_u64().unwrap_or(0) > 0);
    // CoDel never drops an ECT segment; the only losses are the slow-start
    // overshoot of the 100-packet buffer (queue_full)
    assert!(codel["queues"][0]["dropped"]["queue_aqm"].is_null(), "{}", codel["queues"][0]["dropped"]);
    assert_eq!(ct["fast_retransmits"], 1, "{ct}");
    let dq = download_with("prague", 20.0, json!({"ecn": "accurate", "qdisc": {"kind": "dualpi2"}}));
    let pt = &dq["flows"][0]["tcp"];
    assert!(pt["ecn"]["reductions"].as_u64().unwrap() > 5, "{pt}");
    assert!(dq["aggregate_mbps"].as_f64().unwrap() > 10.0, "{}", dq["aggregate_mbps"]);
}

/// CAKE at the AP in a whole run: its shaper, through the qdisc timer and
/// the MAC, caps a CUBIC download at the shaped rate less the TCP/IP
/// headers (5 Mbit/s x 1460/1500 = 4.87 Mbit/s) and keeps the AP's queue
/// short; unshaped, the 24 Mbit/s link is the bottleneck and COBALT keeps
/// the queue below drop-tail's.
#[test]
fn cake_shapes_a_download_and_keeps_the_queue_short() {
    let shaped = download_with("cubic", 20.0, json!({"qdisc": {"kind": "cake", "bandwidth_mbps": 5.0}}));
    let g = shaped["aggregate_mbps"].as_f64().unwrap();
    assert!((4.5..=4.9).contains(&g), "shaped goodput {g}");
    let q = &shaped["queues"][0];
    assert_eq!(q["kind"], "cake");
    assert!(q["mean_len"].as_f64().unwrap() < 20.0, "{q}");
    let open = download_with("cubic", 20.0, json!({"qdisc": {"kind": "cake"}}));
    let fifo = download_with("cubic", 20.0, json!({}));
    let (qc, qf) = (open["queues"][0]["mean_len"].as_f64().unwrap(), fifo["queues"][0]["mean_len"].as_f64().unwrap());
    assert!(qc < qf / 2.0, "cake {qc} against drop-tail {qf} packets");
    assert!(open["aggregate_mbps"].as_f64().unwrap() > 8.0, "{}", open["aggregate_mbps"]);
}

/// BBR v3 (draft-ietf-ccwg-bbr) against BBR v1 over the download with a
/// 50-packet AP buffer: v3's loss response (inflight_hi, inflight_lo)
/// keeps the buffer from overflowing where v1, deaf to loss, overflows it
/// at every probe, for about the same goodput.
#[test]
fn bbr3_matches_bbr_goodput_with_far_fewer_drops() {
    let extra = json!({"ap_queue": 50, "trace_cwnd": true});
    let v1 = download_with("bbr", 60.0, extra.clone());
    let v3 = download_with("bbr3", 60.0, extra);
    let g = |r: &Value| r["aggregate_mbps"].as_f64().unwrap();
    let drops = |r: &Value| r["ledger"]["dropped"]["queue_full"].as_u64().unwrap();
    let rtx = |r: &Value| r["flows"][0]["tcp"]["segments_retransmitted"].as_u64().unwrap();
    eprintln!(
        "bbr: {} Mbit/s, {} drops, {} rtx; bbr3: {} Mbit/s, {} drops, {} rtx",
        g(&v1),
        drops(&v1),
        rtx(&v1),
        g(&v3),
        drops(&v3),
        rtx(&v3)
    );
    let tr = v3["flows"][0]["tcp"]["cc_trace"].as_array().unwrap();
    let mut modes: Vec<&str> = vec![];
    for p in tr {
        let m = p[2].as_str().unwrap();
        if modes.last() != Some(&m) {
            modes.push(m);
        }
    }
    assert!((g(&v3) - g(&v1)).abs() < 0.1 * g(&v1), "bbr3 {} against bbr {}", g(&v3), g(&v1));
    assert!(drops(&v3) * 3 < drops(&v1), "drops bbr3 {} bbr {}", drops(&v3), drops(&v1));
    for m in ["startup", "drain", "probe_bw_down", "probe_bw_cruise", "probe_bw_refill", "probe_bw_up", "probe_rtt"] {
        assert!(modes.contains(&m), "{m} never entered: {modes:?}");
    }
}
