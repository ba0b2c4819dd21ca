//! Traffic classes: `traffic.dscp` marks a flow's packets, and under the
//! HCF (`mac.kind = "edca"`) the DSCP's class selector is the MSDUs' user
//! priority, which picks their access category (802.11-2020 Table 10-1).
//! Two saturated stations, one marked voice (CS6) and one best effort:
//! the voice station, with AIFSN 2 and CW 3-7 against AIFSN 3 and CW
//! 15-1023 (Table 9-155), takes most of the channel; both unmarked share
//! it evenly.
use serde_json::{json, Value};
use wifitcp_sim::api::run_json;

fn shares(dscp: [u8; 2]) -> [f64; 2] {
    let s = json!({
        "scenario": {"name": "prio", "duration_s": 3.0, "warmup_s": 0.5},
        "phy": {"standard": "802.11a", "data_rate_mbps": 24.0},
        "mac": {"kind": "edca", "block_ack": false},
        "wlan": {"stations": 2},
        "traffic": [
            {"name": "a", "kind": "udp", "stations": [0], "dscp": dscp[0]},
            {"name": "b", "kind": "udp", "stations": [1], "dscp": dscp[1]}
        ]
    });
    let r: Value = serde_json::from_str(&run_json(&s.to_string(), 1).expect("runs")).unwrap();
    let g: Vec<f64> = r["flows"].as_array().unwrap().iter().map(|f| f["goodput_mbps"].as_f64().unwrap()).collect();
    let total = g[0] + g[1];
    [g[0] / total, g[1] / total]
}

#[test]
fn a_voice_marked_flow_takes_most_of_the_channel() {
    let even = shares([0, 0]);
    assert!((even[0] - 0.5).abs() < 0.05, "unmarked: {even:?}");
    let voice = shares([48, 0]);
    assert!(voice[0] > 0.8, "CS6 (voice) against best effort: {voice:?}");
    let background = shares([8, 0]);
    assert!(background[0] < 0.3, "CS1 (background) against best effort: {background:?}");
}

#[test]
fn the_dscp_key_is_checked() {
    let s = json!({
        "scenario": {"name": "prio"}, "phy": {"standard": "802.11a", "data_rate_mbps": 24.0},
        "wlan": {"stations": 1}, "traffic": [{"name": "a", "kind": "udp", "dscp": 64}]
    });
    let e = run_json(&s.to_string(), 1).unwrap_err();
    assert!(e.to_string().contains("traffic[0].dscp: must be in [0, 63]"), "{e:?}");
}
