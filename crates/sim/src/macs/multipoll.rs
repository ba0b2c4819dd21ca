//! `mac.kind = "multipoll"`: the multi-poll hybrid of paper 000: PCF
//! (`pcf.rs`) whose polling list holds only the stations whose traffic is
//! above the `multipoll_*` thresholds (`wifitcp_wifi::mac::pcf::PollList`,
//! `by_activity`); the others contend under the DCF.
use super::{MacDescriptor, Member};
use crate::config::Scenario;
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{k, r, Key};
use wifitcp_core::SimDur;
use wifitcp_wifi::mac::pcf::{ActivityConfig, PollList};
use wifitcp_wifi::mac::AnyMac;
use wifitcp_wifi::phy::PhyTiming;

/// Registration: kind "multipoll".
pub const MAC: MacDescriptor = MacDescriptor {
    name: "multipoll",
    about: "paper 000",
    reads: &["cfp_period", "cfp_max_duration_tu"],
    keys: KEYS,
    foreign_key: None,
    ht: true,
    beacons: true,
    check,
    build,
};

/// Defaults of the multi-poll keys.
pub const D_MULTIPOLL_PPS: f64 = 100.0;
pub const D_MULTIPOLL_BPS: f64 = 12_500.0;
pub const D_MULTIPOLL_WINDOW_MS: f64 = 1000.0;
pub const D_MULTIPOLL_HYSTERESIS: f64 = 0.5;

/// The polling list's thresholds, relative to `mac`.
static KEYS: &[Key] = &[
    k("multipoll_pps", Float, "100.0", r(In(0.0), In(1e9)), "packets/s", "multipoll: rate to join the polling list."),
    k("multipoll_bps", Float, "12500.0", r(In(0.0), In(1e12)), "bytes/s", "multipoll: MSDU bytes/s to join the list."),
    k("multipoll_window_ms", Float, "1000.0", r(In(1.0), In(1e6)), "ms", "multipoll: activity measurement window."),
    k(
        "multipoll_hysteresis",
        Float,
        "0.5",
        r(In(0.0), Ex(1.0)),
        "",
        "multipoll: a member leaves below (1 - h) x a threshold.",
    ),
];

/// The PCF's checks, then the thresholds'.
fn check(s: &Scenario, t: &PhyTiming) -> Result<(), String> {
    super::pcf::check(s, t)?;
    check_thresholds(s)
}

/// The activity list's thresholds (also the HCF's, `mac.poll = "activity"`).
pub(super) fn check_thresholds(s: &Scenario) -> Result<(), String> {
    for (k, v) in [("multipoll_pps", s.mac.multipoll_pps), ("multipoll_bps", s.mac.multipoll_bps)] {
        if let Some(v) = v {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("mac.{k}: must be >= 0, got {v}"));
            }
        }
    }
    if let Some(w) = s.mac.multipoll_window_ms {
        if !(w.is_finite() && w >= 1.0) {
            return Err(format!("mac.multipoll_window_ms: must be at least 1 ms, got {w}"));
        }
    }
    if let Some(h) = s.mac.multipoll_hysteresis {
        if !(0.0..1.0).contains(&h) {
            return Err(format!("mac.multipoll_hysteresis: must be in [0, 1), got {h}"));
        }
    }
    Ok(())
}

fn build(m: &Member) -> AnyMac {
    let n = m.ap_of.len();
    super::pcf::build_with(m, |_| PollList::by_activity(n, activity(&m.s.mac)))
}

/// The activity list's thresholds from the `multipoll_*` keys (also read by
/// the HCF's polling, `mac.poll = "activity"`).
pub(super) fn activity(s: &crate::config::MacConfig) -> ActivityConfig {
    ActivityConfig {
        pps: s.multipoll_pps.unwrap_or(D_MULTIPOLL_PPS),
        bps: s.multipoll_bps.unwrap_or(D_MULTIPOLL_BPS),
        window: SimDur::from_micros_f64(1e3 * s.multipoll_window_ms.unwrap_or(D_MULTIPOLL_WINDOW_MS)),
        hysteresis: s.multipoll_hysteresis.unwrap_or(D_MULTIPOLL_HYSTERESIS),
    }
}
