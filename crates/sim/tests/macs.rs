//! The MAC registry's boxed path: a kind whose constructor puts its MAC
//! behind a trait object (`AnyMac::boxed`, what a new kind that is not on
//! a hot path does) runs exactly as the static variants do. Every
//! registered kind is run both ways on a scenario that exercises it (TCP
//! both ways, beacons, rate adaptation, the CFP, A-MPDUs) and the result
//! JSON must be byte-identical; a boxed DCF drawing from another stream
//! must not be, so the comparison sees a MAC that behaves differently.
use serde_json::{json, Value};
use std::cell::Cell;
use wifitcp_sim::config::Scenario;
use wifitcp_sim::macs::Member;
use wifitcp_sim::world::World;
use wifitcp_wifi::mac::AnyMac;

thread_local! {
    /// MACs built through the boxed path by this test thread.
    static BOXED: Cell<usize> = const { Cell::new(0) };
}

fn boxed_so_far() -> usize {
    BOXED.with(Cell::get)
}

/// The same MAC behind a trait object.
fn rebox(kind: &'static str, m: AnyMac) -> AnyMac {
    BOXED.with(|b| b.set(b.get() + 1));
    match m {
        AnyMac::Dcf(d) => AnyMac::boxed(kind, d),
        AnyMac::Hcf(h) => AnyMac::boxed(kind, *h),
        AnyMac::Ap(c) => AnyMac::boxed(kind, *c),
        AnyMac::CfSta(s) => AnyMac::boxed(kind, *s),
        AnyMac::Boxed { .. } => panic!("already boxed"),
    }
}

/// The scenario's kind's MAC behind a trait object: what a new kind's
/// constructor returns when it is not on a hot path.
fn boxed(s: &Scenario, m: &Member) -> AnyMac {
    rebox(s.mac.kind.kind(), s.mac.kind.get().build(m))
}

/// The same, but drawing from other random streams (another seed).
fn boxed_other(s: &Scenario, m: &Member) -> AnyMac {
    boxed(s, &Member { seed: m.seed ^ 0x5eed, ..*m })
}

fn cell(kind: &str) -> Value {
    let mut s = json!({
        "scenario": {"name": "macs", "duration_s": 2.0},
        "phy": {"standard": "802.11a", "data_rate_mbps": 24.0, "rate_control": "arf"},
        "mac": {"kind": kind},
        "wlan": {"stations": 4, "per_uplink": 0.05, "per_downlink": 0.05},
        "nodes": [{"name": "server"}],
        "links": [{"a": "ap", "b": "server", "rate_mbps": 100.0, "delay_ms": 2.0}],
        "traffic": [
            {"name": "up", "kind": "tcp", "direction": "uplink", "peer": "server", "stations": [0, 1]},
            {"name": "down", "kind": "tcp", "direction": "downlink", "peer": "server", "stations": [2]},
            {"name": "ping", "kind": "udp", "pattern": "ping", "interval_ms": 50.0, "direction": "uplink",
             "peer": "server", "stations": [3]}
        ]
    });
    match kind {
        "edca" => {
            s["phy"] = json!({"standard": "802.11n", "ht_mcs": 7});
            s["mac"]["max_mpdus"] = json!(16);
        }
        "multipoll" => s["mac"]["multipoll_window_ms"] = json!(200.0),
        _ => {}
    }
    s
}

/// The result JSON of `s` run with its kind's MACs, or with `macs`
/// building them (without the wall time).
fn run(s: &Scenario, macs: Option<fn(&Scenario, &Member) -> AnyMac>) -> String {
    let w = match macs {
        None => World::build(s, 7),
        Some(f) => World::build_with_macs(s, 7, &|m| f(s, m)),
    }
    .expect("builds");
    let mut r = w.run(std::time::Instant::now()).expect("runs").into_value();
    r.as_object_mut().unwrap().remove("wall_time_s");
    r.to_string()
}

#[test]
fn every_kind_boxed_gives_the_static_result_byte_for_byte() {
    let kinds = [("dcf", true), ("dcf", false), ("edca", true), ("pcf", true), ("multipoll", true)];
    for (kind, beacons) in kinds {
        // without beacons the DCF's AP is a plain DCF, with them a
        // beaconing AP around one (the result reads the first member's)
        let mut doc = cell(kind);
        doc["ap"] = json!({"beacons": beacons});
        let s = Scenario::from_json(&doc.to_string()).expect("valid");
        let before = boxed_so_far();
        let fixed = run(&s, None);
        assert_eq!(boxed_so_far(), before, "the static run boxes nothing");
        let dynamic = run(&s, Some(boxed));
        // one boxed MAC per member (AP and four stations)
        assert_eq!(boxed_so_far() - before, 5, "{kind}");
        // the result reads the MAC's parameters through the variant
        let r: Value = serde_json::from_str(&fixed).unwrap();
        assert!(r["effective"]["mac"].is_object(), "{}", r["effective"]);
        assert_eq!(fixed, dynamic, "{kind} (beacons {beacons}): boxed and static runs differ");
    }
}

#[test]
fn a_boxed_mac_that_behaves_differently_is_seen() {
    let s = Scenario::from_json(&cell("dcf").to_string()).expect("valid");
    assert_eq!(run(&s, Some(boxed)), run(&s, None));
    assert_ne!(run(&s, Some(boxed_other)), run(&s, None));
}
