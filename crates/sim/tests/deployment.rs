//! Whole runs of `[deployment]` layouts: two saturated cells whose APs
//! share a channel contend for it (together they carry what one cell
//! carries), two on different channels do not (twice one cell); a bad key
//! is refused with one line naming it.
mod common;
use common::{err, run};
use serde_json::{json, Value};
use wifitcp_sim::config::deployment::DeploymentConfig;

/// `aps` APs 20 m apart on `plan`, `n` stations placed uniformly, each
/// sending saturated UDP (1500 bytes) to its AP; SNR channel (every
/// station in carrier-sense range of every other), 802.11a 54 Mbit/s.
fn campus(aps: u32, plan: &str, n: usize) -> Value {
    let d = json!({"layout": "grid", "aps": aps, "spacing_m": 20.0, "channels": plan});
    let cfg: DeploymentConfig = serde_json::from_value(d.clone()).unwrap();
    let assoc = cfg.derive(n, None).association;
    let peers: Vec<String> = assoc.iter().map(|&a| if a == 0 { "ap".into() } else { format!("ap{a}") }).collect();
    json!({
        "scenario": {"name": "campus", "duration_s": 3.0, "warmup_s": 0.5},
        "phy": {"standard": "802.11a", "data_rate_mbps": 54},
        "wlan": {"stations": n},
        "deployment": d,
        "channel": {"model": "snr"},
        "ap": {"beacons": false},
        "traffic": [{"name": "up", "kind": "udp", "pattern": "saturated", "msdu_bytes": 1500, "peer": peers}]
    })
}

fn mbps(r: &Value) -> f64 {
    r["aggregate_mbps"].as_f64().unwrap()
}

#[test]
fn co_channel_cells_share_separate_channels_add() {
    let one = mbps(&run(&campus(1, "single", 10)));
    let co = mbps(&run(&campus(2, "single", 10)));
    let apart = mbps(&run(&campus(2, "5ghz", 10)));
    // Bianchi: saturated DCF throughput barely depends on n (5 vs 10
    // stations: within a few per cent), so two co-channel cells carry one
    // cell's throughput between them and two channels twice that.
    eprintln!("one cell {one:.2}, co-channel {co:.2}, separate {apart:.2} Mbit/s");
    assert!(one > 20.0, "one cell of 10 stations: {one} Mbit/s");
    assert!((co / one - 1.0).abs() < 0.05, "co-channel {co} vs one cell {one}");
    assert!((apart / one - 2.0).abs() < 0.15, "separate channels {apart} vs one cell {one}");
}

#[test]
fn deployment_fills_the_wlan_keys_and_refuses_conflicts() {
    let mut s = campus(4, "2.4ghz", 8);
    s["scenario"]["duration_s"] = json!(0.2);
    s["scenario"]["warmup_s"] = json!(0.0);
    let r = run(&s);
    assert!(mbps(&r) > 0.0);
    let mut bad = s.clone();
    bad["wlan"]["ap_channels"] = json!([1, 1, 1, 1]);
    assert!(err(&bad).contains("wlan.ap_channels"), "{}", err(&bad));
    let mut bad = s.clone();
    bad["deployment"]["spacing_m"] = json!(-1.0);
    assert!(err(&bad).contains("deployment.spacing_m"), "{}", err(&bad));
    let mut bad = s.clone();
    bad["deployment"]["channels"] = json!("7ghz");
    assert!(err(&bad).contains("deployment.channels"), "{}", err(&bad));
}

/// A floor plan: the APs where `wlan.ap_positions` puts them, channels by
/// least co-channel interference. Two APs 3 m apart get different
/// channels and carry twice one cell (they do not contend); the plan's
/// count sets the APs; a plan without positions, or a count that
/// contradicts them, is refused naming the key.
#[test]
fn floor_plan_layout_places_the_aps_and_keeps_close_ones_apart() {
    let floor = json!([[0.0, 0.0], [3.0, 0.0]]);
    let d = json!({"layout": "plan", "channels": "2.4ghz", "spacing_m": 10.0});
    let cfg: DeploymentConfig = serde_json::from_value(d.clone()).unwrap();
    let aps: Vec<[f64; 2]> = serde_json::from_value(floor.clone()).unwrap();
    let assoc = cfg.derive(10, Some(&aps)).association;
    let peers: Vec<String> = assoc.iter().map(|&a| if a == 0 { "ap".into() } else { format!("ap{a}") }).collect();
    let mut s = campus(1, "single", 10);
    s["deployment"] = d;
    s["wlan"]["ap_positions"] = floor;
    s["traffic"][0]["peer"] = json!(peers);
    let r = run(&s);
    let one = mbps(&run(&campus(1, "single", 10)));
    assert!((mbps(&r) / one - 2.0).abs() < 0.15, "two channels: {} against one cell {one}", mbps(&r));
    let mut bad = s.clone();
    bad["wlan"].as_object_mut().unwrap().remove("ap_positions");
    assert!(err(&bad).contains("deployment.layout"), "{}", err(&bad));
    let mut bad = s.clone();
    bad["deployment"]["aps"] = json!(3);
    assert!(err(&bad).contains("deployment.aps"), "{}", err(&bad));
}

/// `peer = "own_ap"` sends each station's flow to the AP the deployment
/// associated it with: the run is the one with those APs listed by hand,
/// byte for byte; a TCP flow to an AP is refused naming the key.
#[test]
fn own_ap_peer_is_each_stations_ap() {
    let listed = campus(4, "5ghz", 12);
    let mut own = listed.clone();
    own["traffic"][0]["peer"] = json!("own_ap");
    let (mut a, mut b) = (run(&listed), run(&own));
    for r in [&mut a, &mut b] {
        r.as_object_mut().unwrap().remove("wall_time_s");
        r.as_object_mut().unwrap().remove("scenario");
    }
    assert_eq!(a, b);
    assert!(mbps(&a) > 3.0 * 20.0, "{}", mbps(&a));
    let mut tcp = own.clone();
    tcp["traffic"][0]["kind"] = json!("tcp");
    tcp["traffic"][0].as_object_mut().unwrap().remove("pattern");
    tcp["traffic"][0].as_object_mut().unwrap().remove("msdu_bytes");
    let e = err(&tcp);
    assert!(e.starts_with("traffic[0].peer: a TCP flow needs a wired host"), "{e}");
}

/// A traffic mix: two entries with adjacent shares of the stations
/// (`stations = "from..to"`) split them without gap or overlap, each class
/// with its own application; a share out of [0, 1] or an empty one is
/// refused naming the key.
#[test]
fn station_shares_make_a_traffic_mix() {
    let mut s = campus(4, "5ghz", 20);
    s["scenario"]["duration_s"] = json!(1.0);
    s["traffic"] = json!([
        {"name": "bulk", "kind": "udp", "pattern": "saturated", "msdu_bytes": 1500, "peer": "own_ap",
         "stations": "0.0..0.3"},
        {"name": "voice", "kind": "udp", "pattern": "cbr", "rate_mbps": 0.064, "msdu_bytes": 200, "peer": "own_ap",
         "stations": "0.3..1.0"}
    ]);
    let r = run(&s);
    let flows = r["flows"].as_array().unwrap();
    let names: Vec<&str> = flows.iter().map(|f| f["name"].as_str().unwrap()).collect();
    let bulk: Vec<&str> = names.iter().copied().filter(|n| n.starts_with("bulk/")).collect();
    let voice: Vec<&str> = names.iter().copied().filter(|n| n.starts_with("voice/")).collect();
    assert_eq!(bulk, (0..6).map(|i| format!("bulk/sta{i}")).collect::<Vec<_>>());
    assert_eq!(voice, (6..20).map(|i| format!("voice/sta{i}")).collect::<Vec<_>>());
    for f in flows.iter().filter(|f| f["name"].as_str().unwrap().starts_with("voice/")) {
        let g = f["goodput_mbps"].as_f64().unwrap();
        assert!((g - 0.064 * 164.0 / 200.0).abs() < 0.02, "{}: {g}", f["name"]);
    }
    for bad in ["0.5..0.5", "-0.1..0.5", "0.2..1.5", "a..b"] {
        let mut b = s.clone();
        b["traffic"][0]["stations"] = json!(bad);
        let e = err(&b);
        assert!(e.starts_with(&format!("traffic[0].stations: \"{bad}\"")), "{e}");
    }
}
