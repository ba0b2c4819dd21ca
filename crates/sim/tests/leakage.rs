//! Adjacent-channel leakage (`channel.adjacent_channel = "mask"`) on whole
//! runs: two BSSs on 5 GHz channels 36 and 40, APs `d` metres apart, each
//! with one station `r` metres from it sending saturated UDP (802.11a, 54
//! Mbit/s, the SNR channel's defaults: 16.02 dBm, exponent 3, 46.68 dB at
//! 1 m, 7 dB noise figure). The mask leaks 23.41 dB between channels 20
//! MHz apart (`channel::leakage`), so another channel's frame crosses the
//! energy-detect threshold (-62 dBm) within 1.84 m.
mod common;
use common::{err, run};
use serde_json::{json, Value};

fn pair(d: f64, r: f64, chans: [u32; 2], leak: &str) -> Value {
    json!({
        "scenario": {"name": "leak", "duration_s": 3.0, "warmup_s": 0.5},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54},
        "wlan": {"stations": 2, "aps": 2, "ap_positions": [[0.0, 0.0], [d, 0.0]], "ap_channels": chans,
                 "positions": [[0.0, r], [d, r]], "association": [0, 1]},
        "channel": {"model": "snr", "adjacent_channel": leak},
        "ap": {"beacons": false},
        "traffic": [{"name": "up", "kind": "udp", "pattern": "saturated", "msdu_bytes": 1500, "peer": ["ap", "ap1"]}]
    })
}

fn mbps(r: &Value) -> f64 {
    r["aggregate_mbps"].as_f64().unwrap()
}

/// Within energy-detect range the two channels take turns, as one channel
/// would (they do not decode each other, so a same-slot start costs
/// neither frame: a little more than one channel); far apart they add up.
#[test]
fn close_cells_defer_by_energy_far_ones_add() {
    let close = mbps(&run(&pair(1.0, 2.0, [36, 40], "mask")));
    let co = mbps(&run(&pair(1.0, 2.0, [36, 36], "none")));
    let apart = mbps(&run(&pair(1.0, 2.0, [36, 40], "none")));
    let far = mbps(&run(&pair(40.0, 2.0, [36, 40], "mask")));
    eprintln!("1 m: leaking {close:.2}, one channel {co:.2}, no leakage {apart:.2}; 40 m leaking {far:.2} Mbit/s");
    assert!(close > co && close < 1.1 * co, "{close} vs one channel {co}");
    assert!((far / apart - 1.0).abs() < 0.01, "{far} vs {apart}");
    assert!(apart > 1.9 * co, "{apart} vs {co}");
}

/// Links at 20 m (24 dB SNR, near 54 Mbit/s's need) with the other cell's
/// station 3 m from this one: below energy detection, so neither defers,
/// yet the leaked power (about 23 dB below the wanted frame at the AP)
/// corrupts overlapping frames: the two channels carry less than one
/// shared channel does, the effect that makes adjacent channels worse
/// neighbours than co-channel ones.
#[test]
fn leaked_power_below_energy_detection_corrupts_instead_of_deferring() {
    let adj = mbps(&run(&pair(3.0, 20.0, [36, 40], "mask")));
    let co = mbps(&run(&pair(3.0, 20.0, [36, 36], "none")));
    let apart = mbps(&run(&pair(3.0, 20.0, [36, 40], "none")));
    eprintln!("3 m apart, 20 m links: adjacent {adj:.2}, one channel {co:.2}, no leakage {apart:.2} Mbit/s");
    assert!(adj < 0.85 * co, "{adj} vs {co}");
    assert!(apart > 1.9 * co, "{apart} vs {co}");
}

/// Channels 40 MHz apart do not leak into each other (module docs): the
/// cells stay apart and the run is the run without leakage, byte for byte.
#[test]
fn channels_that_do_not_leak_keep_separate_cells() {
    let mut a = run(&pair(1.0, 2.0, [36, 44], "mask"));
    let mut b = run(&pair(1.0, 2.0, [36, 44], "none"));
    for r in [&mut a, &mut b] {
        r.as_object_mut().unwrap().remove("wall_time_s");
        r.as_object_mut().unwrap().remove("scenario");
    }
    // (the scenario echo differs by the key itself)
    assert_eq!(a, b);
}

#[test]
fn leakage_is_refused_where_it_is_not_modelled() {
    let mut b = pair(1.0, 2.0, [1, 6], "mask");
    b["phy"] = json!({"standard": "802.11b", "data_rate_mbps": 11});
    let e = err(&b);
    assert!(e.starts_with("channel.adjacent_channel: 802.11b"), "{e}");
    let mut m = pair(1.0, 2.0, [36, 40], "mask");
    m["wlan"]["mobility"] =
        json!([{"stations": ["sta1"], "model": "waypoints", "waypoints": [[0.0, 0.0, 2.0], [1.0, 1.0, 2.0]]}]);
    let e = err(&m);
    eprintln!("{e}");
    assert!(e.starts_with("channel.adjacent_channel: not with wlan.mobility"), "{e}");
    let mut w = pair(1.0, 2.0, [36, 44], "mask");
    w["phy"] = json!({"standard": "802.11n", "ht_mcs": 7, "channel_width_mhz": 40});
    w["mac"] = json!({"kind": "edca"});
    let e = err(&w);
    assert!(e.starts_with("channel.adjacent_channel: the transmit masks are those of 20 MHz"), "{e}");
    let mut f = pair(1.0, 2.0, [36, 40], "mask");
    f["channel"] = json!({"model": "fixed", "adjacent_channel": "mask"});
    assert!(err(&f).contains("adjacent_channel"), "{}", err(&f));
}

/// Cells of several channels are cells like any other for the partitioned
/// engine: 36/40 and 100/104 make two cells, and two threads give the
/// sequential run's result byte for byte.
#[test]
fn leaking_cells_run_as_partitions_with_the_same_result() {
    let mut s = pair(1.0, 2.0, [36, 40], "mask");
    s["wlan"]["stations"] = json!(4);
    s["wlan"]["aps"] = json!(4);
    s["wlan"]["ap_positions"] = json!([[0.0, 0.0], [1.0, 0.0], [50.0, 0.0], [51.0, 0.0]]);
    s["wlan"]["ap_channels"] = json!([36, 40, 100, 104]);
    s["wlan"]["positions"] = json!([[0.0, 2.0], [1.0, 2.0], [50.0, 2.0], [51.0, 2.0]]);
    s["wlan"]["association"] = json!([0, 1, 2, 3]);
    s["traffic"][0]["peer"] = json!(["ap", "ap1", "ap2", "ap3"]);
    s["scenario"]["duration_s"] = json!(1.0);
    let mut seq = run(&s);
    s["scenario"]["threads"] = json!(2);
    let mut par = run(&s);
    for r in [&mut seq, &mut par] {
        r.as_object_mut().unwrap().remove("wall_time_s");
        r.as_object_mut().unwrap().remove("scenario");
    }
    assert!(mbps(&seq) > 50.0, "{}", mbps(&seq));
    assert_eq!(seq, par);
}

/// Which channels share a cell: those under 40 MHz apart, directly or
/// through others, in order of first use; without leakage, one channel
/// each.
#[test]
fn cells_group_the_channels_that_leak_into_each_other() {
    use wifitcp_sim::config::Scenario;
    let cells = |std: &str, chans: &[u32], leak: &str| {
        let mut s = pair(1.0, 2.0, [36, 40], leak);
        s["phy"]["standard"] = json!(std);
        let n = chans.len();
        s["wlan"]["stations"] = json!(1);
        s["wlan"]["aps"] = json!(n);
        s["wlan"]["ap_channels"] = json!(chans);
        s["wlan"]["ap_positions"] = json!((0..n).map(|k| [k as f64 * 10.0, 0.0]).collect::<Vec<_>>());
        s["wlan"]["positions"] = json!([[0.0, 2.0]]);
        s["wlan"]["association"] = json!([0]);
        s["traffic"][0]["peer"] = json!(["ap"]);
        Scenario::from_json(&s.to_string()).unwrap().cells()
    };
    assert_eq!(cells("802.11g", &[1, 6, 11, 1], "mask"), vec![vec![1, 6, 11]]);
    assert_eq!(cells("802.11g", &[1, 11, 6], "mask"), vec![vec![1, 11, 6]]);
    assert_eq!(cells("802.11g", &[1, 11], "mask"), vec![vec![1], vec![11]]);
    assert_eq!(cells("802.11a", &[36, 44, 40, 100], "mask"), vec![vec![36, 44, 40], vec![100]]);
    assert_eq!(cells("802.11a", &[36, 44, 40, 100], "none"), vec![vec![36], vec![44], vec![40], vec![100]]);
}

/// The power game (`channel.power_control = "game"`) sees a station on
/// another channel only through what leaks. On channels 40 MHz apart
/// (nothing leaks) a cell's flow is the same whether the other channel's
/// station is 100 m or 1 km away (counted at its full gain, the 100 m one
/// would move the equilibrium, and the flow with it); on adjacent
/// channels 3 m apart the leaked interference moves it.
#[test]
fn the_power_game_counts_other_channels_by_their_leakage() {
    let game = |chans: [u32; 2], d: f64| {
        let mut s = pair(d, 30.0, chans, "mask");
        s["channel"]["cs_threshold_dbm"] = json!(-82.0);
        s["channel"]["power_control"] = json!("game");
        s["channel"]["tx_power_dbm"] = json!(20.0);
        // (an equilibrium below the cap: 1/c = 50 mW, less what the
        // interference and the noise ask for)
        s["channel"]["power_cost_per_w"] = json!(20.0);
        s["scenario"]["duration_s"] = json!(1.0);
        run(&s)
    };
    let far = game([36, 44], 1000.0);
    assert_eq!(game([36, 44], 100.0)["flows"][0], far["flows"][0]);
    assert_ne!(game([36, 40], 3.0)["flows"][0], game([36, 40], 1000.0)["flows"][0]);
}
