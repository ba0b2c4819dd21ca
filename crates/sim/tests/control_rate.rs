//! Control responses at the rate 10.6.6.5.2 gives for the frame they
//! answer: a rate controller that sends at 54 Mbit/s near its AP gets its
//! ACKs at 24 Mbit/s, as a fixed 54 Mbit/s sender does (not at the lowest
//! basic rate, 1 Mbit/s DSSS on 802.11g: 304 us per ACK), and one that steps
//! down to 6 Mbit/s gets them at 6.
use serde_json::{json, Value};
use wifitcp_sim::api::run_json;
use wifitcp_wifi::phy::{PhyConfig, PhyStandard, PhyTiming, Rate};

fn goodput(rate_control: &str, distance_m: f64) -> f64 {
    let s = json!({
        "scenario": {"name": "ctl", "duration_s": 3.0, "warmup_s": 1.0},
        "phy": {"standard": "802.11g", "data_rate_mbps": 54.0, "rate_control": rate_control},
        "ap": {"beacons": false},
        "wlan": {"stations": 1, "distance_m": distance_m},
        "channel": {"model": "snr"},
        "traffic": [{"name": "d", "kind": "udp", "direction": "downlink"}]
    });
    let r: Value = serde_json::from_str(&run_json(&s.to_string(), 1).expect("runs")).unwrap();
    r["aggregate_mbps"].as_f64().unwrap()
}

#[test]
fn a_controller_at_54_near_its_ap_matches_fixed_54() {
    let fixed = goodput("fixed", 10.0);
    for rc in ["arf", "aarf"] {
        let g = goodput(rc, 10.0);
        assert!((g - fixed).abs() < 0.01 * fixed, "{rc}: {g} against fixed 54's {fixed}");
    }
    // Minstrel samples other rates (about 10 % of its frames)
    let m = goodput("minstrel", 10.0);
    assert!(m > 0.95 * fixed, "minstrel: {m} against {fixed}");
}

#[test]
fn the_response_rate_follows_the_eliciting_frame() {
    let mut c = PhyConfig::new(PhyStandard::Dot11g, 54.0);
    let t = PhyTiming::from_config(&c).unwrap();
    // 802.11g's basic rates are DSSS/CCK: ERP-OFDM frames are answered at
    // the highest mandatory OFDM rate not above theirs
    assert_eq!(t.response_rate(Rate::from_mbps(54.0).unwrap()), Rate::from_mbps(24.0).unwrap());
    assert_eq!(t.response_rate(Rate::from_mbps(18.0).unwrap()), Rate::from_mbps(12.0).unwrap());
    assert_eq!(t.response_rate(Rate::from_mbps(6.0).unwrap()), Rate::from_mbps(6.0).unwrap());
    // CCK frames at a basic rate are answered at it
    assert_eq!(t.response_rate(Rate::from_mbps(11.0).unwrap()), Rate::from_mbps(11.0).unwrap());
    // a fixed control rate answers everything
    c.control_rate_mbps = Some(1.0);
    let t = PhyTiming::from_config(&c).unwrap();
    assert_eq!(t.response_rate(Rate::from_mbps(6.0).unwrap()), Rate::from_mbps(1.0).unwrap());
}
