//! Whole runs with moving stations and rate adaptation: positions reach
//! the channel, controllers reach the DCF, and a station that does not
//! move changes nothing.
use serde_json::{json, Value};
use wifitcp_sim::api::run_json;

/// A saturated UDP downlink to one station over the default SNR channel
/// (802.11a); the station walks from 5 m straight away from the AP at
/// `speed` m/s from t = 0.
fn walk(speed: f64, rate_control: &str, secs: f64) -> Value {
    json!({
        "scenario": {"name": "walk", "duration_s": secs},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54, "rate_control": rate_control},
        "wlan": {"stations": 1, "positions": [[5.0, 0.0]],
                 "mobility": [{"stations": [0], "model": "linear", "speed_mps": speed}]},
        "channel": {"model": "snr"},
        "traffic": [{"name": "down", "kind": "udp", "direction": "downlink"}]
    })
}

fn run(s: &Value, seed: u64) -> Value {
    let mut r: Value = serde_json::from_str(&run_json(&s.to_string(), seed).expect("run")).unwrap();
    r.as_object_mut().unwrap().remove("wall_time_s");
    r
}

/// Goodput (Mbit/s) of the first flow in each second.
fn series(r: &Value) -> Vec<f64> {
    r["flows"][0]["series"].as_array().unwrap().iter().map(|p| p[1].as_f64().unwrap()).collect()
}

#[test]
fn a_station_that_does_not_move_changes_nothing() {
    // speed 0: the moving channel is built and asked at every frame, and
    // gives the fixed channel's answers and draws exactly
    let mut still = walk(0.0, "fixed", 3.0);
    let moving_at_zero = run(&still, 3);
    still["wlan"].as_object_mut().unwrap().remove("mobility");
    let r = run(&still, 3);
    assert_eq!(r["flows"].to_string(), moving_at_zero["flows"].to_string());
    assert_eq!(r["events"], moving_at_zero["events"]);
}

#[test]
fn goodput_follows_the_walk_and_controllers_keep_the_link() {
    // 5 m -> 125 m in 20 s: 54 Mbit/s reaches 26 m (10 % FER), 6 Mbit/s
    // 105 m (channel::model docs)
    let fixed = series(&run(&walk(6.0, "fixed", 20.0), 1));
    assert!(fixed[0] > 25.0, "{fixed:?}");
    assert!(fixed[10..].iter().all(|&g| g == 0.0), "54 Mbit/s is out of reach beyond 65 m: {fixed:?}");
    for rc in ["arf", "aarf", "minstrel"] {
        let r = run(&walk(6.0, rc, 20.0), 1);
        assert_eq!(r["effective"]["phy"]["rate_control"], rc);
        let g = series(&r);
        assert!(g[0] > 20.0, "{rc}: {g:?}");
        // 65-95 m (t = 10-15 s): the controller has stepped down to rates
        // that still get through
        assert!(g[10..15].iter().all(|&x| x > 1.0), "{rc}: {g:?}");
        // and beyond 6 Mbit/s's reach (t = 19 s: 119 m) nothing gets through
        assert!(g[19] < 1.0, "{rc}: {g:?}");
    }
}

#[test]
fn random_waypoint_runs_are_reproducible() {
    let s = json!({
        "scenario": {"name": "rwp", "duration_s": 5.0},
        "phy": {"standard": "802.11a", "data_rate_mbps": 24, "rate_control": "minstrel"},
        "wlan": {"stations": 5, "distance_m": 10.0,
                 "mobility": [{"model": "random_waypoint", "area_m": [[-80.0, -80.0], [80.0, 80.0]],
                               "speed_min_mps": 5.0, "speed_max_mps": 14.0}]},
        "channel": {"model": "snr"},
        "traffic": [{"name": "up", "kind": "udp", "pattern": "cbr", "rate_mbps": 1.0}]
    });
    let (a, b, c) = (run(&s, 4), run(&s, 4), run(&s, 5));
    assert_eq!(a.to_string(), b.to_string());
    assert_ne!(a["flows"].to_string(), c["flows"].to_string());
}
