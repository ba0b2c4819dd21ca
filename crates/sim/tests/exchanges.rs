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
        Err(ApiError::Config(e)) => assert_eq!(e.path, "phy.slot_us", "{e}"),
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

/// Timing of a scenario as the core derives it (`phy_timing_json`), ns.
struct Tm {
    slot: f64,
    sifs: f64,
    difs: f64,
    eifs: f64,
    timeout: f64,
    data: f64,
    ack: f64,
    rts: f64,
    cts: f64,
    cw_min: u32,
    cw_max: u32,
    short: u32,
    long: u32,
}

/// Renewal model of one saturated station sending to its AP over a
/// channel that corrupts each frame independently (no collisions: one
/// contender): the expected time per MSDU and the probability that it
/// reaches the AP, by exact recursion over the 802.11-2020 retry
/// procedure (10.3.4.4: CW doubles after every failure and resets after a
/// success or a discard; RTS failures count against the short limit, data
/// failures after a CTS against the long one, the CTS resets the count;
/// after a corrupted response the station defers EIFS until it next
/// receives a frame correctly, 10.3.2.3.7, otherwise DIFS). `e_data` hits data frames, `e_up` RTS frames
/// and `e_dn` ACK and CTS frames. Returns (E[time] ns, P(delivered)).
fn renewal(t: &Tm, rts: bool, e_data: f64, e_up: f64, e_dn: f64) -> (f64, f64) {
    /// From the start of an attempt with short count `r`, long count `l`,
    /// `c` failures so far, after a corrupted frame (`eifs`) or not, and
    /// whether the AP already has the MSDU: (E[remaining time], P(delivered)).
    /// (short count, long count, failures, EIFS pending, delivered)
    type Key = (u32, u32, u32, bool, bool);
    struct S<'a> {
        t: &'a Tm,
        rts: bool,
        e: (f64, f64, f64),
        memo: std::cell::RefCell<std::collections::HashMap<Key, (f64, f64)>>,
    }
    impl S<'_> {
        fn f(&self, r: u32, l: u32, c: u32, eifs: bool, d: bool) -> (f64, f64) {
            if let Some(&v) = self.memo.borrow().get(&(r, l, c, eifs, d)) {
                return v;
            }
            let v = self.g(r, l, c, eifs, d);
            self.memo.borrow_mut().insert((r, l, c, eifs, d), v);
            v
        }
        fn g(&self, r: u32, l: u32, c: u32, eifs: bool, d: bool) -> (f64, f64) {
            let (t, (e_data, e_up, e_dn)) = (self.t, self.e);
            let cw = (((t.cw_min as u64 + 1) << c.min(20)) - 1).min(t.cw_max as u64) as f64;
            let mut time = if eifs { t.eifs } else { t.difs } + t.slot * cw / 2.0;
            let mut pdel = 0.0;
            // A failure: discard at the limit, else the next attempt.
            let fail = |count: u32, limit: u32, r2: u32, l2: u32, eifs2: bool, d2: bool| -> (f64, f64) {
                if count >= limit {
                    (0.0, if d2 { 1.0 } else { 0.0 })
                } else {
                    self.f(r2, l2, c + 1, eifs2, d2)
                }
            };
            let mut add = |p: f64, dt: f64, next: (f64, f64)| {
                if p > 0.0 {
                    time += p * (dt + next.0);
                    pdel += p * next.1;
                }
            };
            let (p0, t0) = if self.rts {
                if e_up > 0.0 {
                    add(e_up, t.rts + t.timeout, fail(r + 1, t.short, r + 1, l, eifs, d));
                }
                if e_dn > 0.0 {
                    add((1.0 - e_up) * e_dn, t.rts + t.sifs + t.cts, fail(r + 1, t.short, r + 1, l, true, d));
                }
                ((1.0 - e_up) * (1.0 - e_dn), t.rts + t.sifs + t.cts + t.sifs)
            } else {
                (1.0, 0.0)
            };
            // The data frame: lost (response timeout), its ACK lost (the AP
            // has the MSDU; EIFS), or success. A timeout leaves the EIFS
            // condition as it was: only a correct reception ends it
            // (10.3.2.3.7), so a timeout after a corrupted ACK or CTS is
            // followed by EIFS, not DIFS (after a correct CTS, by DIFS). After a CTS the short
            // count is 0 and data failures count against the long limit.
            let (r1, l1, limit) = if self.rts { (0, l + 1, t.long) } else { (r + 1, l, t.short) };
            let count = if self.rts { l1 } else { r1 };
            if e_data > 0.0 {
                add(p0 * e_data, t0 + t.data + t.timeout, fail(count, limit, r1, l1, eifs && !self.rts, d));
            }
            if e_dn > 0.0 {
                add(p0 * (1.0 - e_data) * e_dn, t0 + t.data + t.sifs + t.ack, fail(count, limit, r1, l1, true, true));
            }
            add(p0 * (1.0 - e_data) * (1.0 - e_dn), t0 + t.data + t.sifs + t.ack, (0.0, 1.0));
            (time, pdel)
        }
    }
    S { t, rts, e: (e_data, e_up, e_dn), memo: Default::default() }.f(0, 0, 0, false, false)
}

/// Every exchange (basic access, RTS/CTS) with no channel errors, errors
/// on data frames only, and errors on control frames too, against the
/// renewal model above: one saturated UDP station, 20 seeds of 20 s; the
/// mean goodput must lie within three standard errors of the model (at
/// least 0.5 %; the standard error is 0.05-0.6 % depending on how much
/// the errors spread the time per MSDU).
#[test]
fn exchanges_with_channel_errors_match_the_renewal_model() {
    const SEEDS: u64 = 20;
    use wifitcp_sim::api::phy_timing_json;
    let mut worst: f64 = 0.0;
    for (std, rate) in [("802.11b", 11.0), ("802.11g", 54.0)] {
        for rts in [false, true] {
            for (frames, up, dn) in [("data", 0.0, 0.0), ("data", 0.3, 0.0), ("all", 0.2, 0.2), ("all", 0.0, 0.3)] {
                let s = json!({
                    "scenario": {"name": "renewal", "duration_s": 20.0},
                    "phy": {"standard": std, "data_rate_mbps": rate},
                    "mac": {"rts_threshold_bytes": if rts { 0 } else { 65535 }},
                    "wlan": {"stations": 1},
                    // The renewal model has no beacons.
                    "ap": {"beacons": false},
                    "channel": {"model": "fixed", "frames": frames,
                                "classes": [{"name": "c", "per_up": up, "per_down": dn, "stations": ["sta0"]}]},
                    "traffic": [{"name": "sat", "kind": "udp", "pattern": "saturated", "direction": "uplink",
                                 "peer": "ap", "msdu_bytes": 1500}]
                });
                let tj: Value = serde_json::from_str(&phy_timing_json(&s.to_string(), 1500).unwrap()).unwrap();
                let g = |k: &str| tj[k].as_f64().unwrap();
                let t = Tm {
                    slot: g("slot_ns"),
                    sifs: g("sifs_ns"),
                    difs: g("difs_ns"),
                    eifs: g("eifs_ns"),
                    timeout: g("ack_timeout_ns"),
                    data: g("data_ns"),
                    ack: g("ack_ns"),
                    rts: g("rts_ns"),
                    cts: g("cts_ns"),
                    cw_min: g("cw_min") as u32,
                    cw_max: g("cw_max") as u32,
                    short: g("short_retry_limit") as u32,
                    long: g("long_retry_limit") as u32,
                };
                let (e_data, e_up, e_dn) = if frames == "all" { (up, up, dn) } else { (up, 0.0, 0.0) };
                let (et, pd) = renewal(&t, rts, e_data, e_up, e_dn);
                let model = pd * 1500.0 * 8.0 / et * 1e3; // Mbit/s of MSDUs
                let xs: Vec<f64> =
                    (1..=SEEDS).map(|seed| run(&s, seed)["aggregate_msdu_mbps"].as_f64().unwrap()).collect();
                let sim = xs.iter().sum::<f64>() / SEEDS as f64;
                let var = xs.iter().map(|x| (x - sim).powi(2)).sum::<f64>() / (SEEDS - 1) as f64;
                let se = (var / SEEDS as f64).sqrt() / model;
                let tol = (3.0 * se).max(0.005);
                let err = sim / model - 1.0;
                eprintln!(
                    "renewal {std} {rate} rts {rts} frames {frames} per_up {up} per_down {dn}: \
                     sim {sim:.3} model {model:.3} Mbit/s ({:+.2} %, tolerance {:.2} %)",
                    100.0 * err,
                    100.0 * tol
                );
                worst = worst.max(err.abs());
                assert!(err.abs() < tol, "{std} rts {rts} {frames} {up}/{dn}: sim {sim} model {model}");
            }
        }
    }
    eprintln!("renewal: worst {:.2} %", 100.0 * worst);
}
