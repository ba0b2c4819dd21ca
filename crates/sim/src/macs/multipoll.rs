//! `mac.kind = "multipoll"`: the multi-poll hybrid of paper 000: PCF
//! (`pcf.rs`) whose polling list holds only the stations whose traffic is
//! above the `multipoll_*` thresholds (`wifitcp_wifi::mac::pcf::PollList`,
//! `by_activity`); the others contend under the DCF.
use super::pcf::cfp_keys;
use super::{MacKind, Member};
use crate::config::Scenario;
use wifitcp_core::config::ConfigError;
use wifitcp_core::SimDur;
use wifitcp_wifi::mac::pcf::{ActivityConfig, PollList};
use wifitcp_wifi::mac::AnyMac;
use wifitcp_wifi::phy::PhyTiming;

wifitcp_core::config_group! {
    /// The activity list's thresholds (the HCF's polling holds them too,
    /// `mac.poll = "activity"`).
    macro activity_keys {
        /// Packets per second, both directions, to join the polling list.
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::In(0.0), wifitcp_core::schema::B::In(1e9)), unit = "packets/s")]
        pub multipoll_pps: f64 = 100.0,
        /// MSDU bytes per second to join the list (12500: 100 kbit/s).
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::In(0.0), wifitcp_core::schema::B::In(1e12)), unit = "bytes/s")]
        pub multipoll_bps: f64 = 12_500.0,
        /// Activity measurement window.
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::In(1.0), wifitcp_core::schema::B::In(1e6)), unit = "ms")]
        pub multipoll_window_ms: f64 = 1000.0,
        /// A member leaves below (1 - h) x a threshold.
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::In(0.0), wifitcp_core::schema::B::Ex(1.0)))]
        pub multipoll_hysteresis: f64 = 0.5,
    }
}

wifitcp_core::config_table! {
    /// `kind = "multipoll"`.
    #[serde(deny_unknown_fields)]
    pub struct MultipollTable {
        use cfp_keys;
        use activity_keys;
    }
}

impl MacKind for MultipollTable {
    fn ht(&self) -> bool {
        true
    }
    fn beacons(&self) -> bool {
        true
    }
    /// The PCF's checks, then the thresholds'.
    fn check(&self, s: &Scenario, t: &PhyTiming) -> Result<(), ConfigError> {
        super::pcf::check(s, t, self.cfp_period, self.cfp_max_duration_tu)?;
        check_thresholds(self.activity())
    }
    fn build(&self, m: &Member) -> AnyMac {
        let n = m.ap_of.len();
        let act = self.activity();
        super::pcf::build_with(m, self.cfp_period, self.cfp_max_duration_tu, |_| {
            PollList::by_activity(n, activity(act))
        })
    }
}

impl MultipollTable {
    fn activity(&self) -> [f64; 4] {
        [self.multipoll_pps, self.multipoll_bps, self.multipoll_window_ms, self.multipoll_hysteresis]
    }
}

/// The activity list's thresholds `[pps, bps, window_ms, hysteresis]`
/// (also the HCF's, `mac.poll = "activity"`).
pub(super) fn check_thresholds([pps, bps, window, h]: [f64; 4]) -> Result<(), ConfigError> {
    for (k, v) in [("multipoll_pps", pps), ("multipoll_bps", bps)] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(ConfigError::new(format!("mac.{k}"), format!("must be >= 0, got {v}")));
        }
    }
    if !(window.is_finite() && window >= 1.0) {
        return Err(ConfigError::new("mac.multipoll_window_ms", format!("must be at least 1 ms, got {window}")));
    }
    if !(0.0..1.0).contains(&h) {
        return Err(ConfigError::new("mac.multipoll_hysteresis", format!("must be in [0, 1), got {h}")));
    }
    Ok(())
}

/// The activity list's thresholds from `[pps, bps, window_ms, hysteresis]`.
pub(super) fn activity([pps, bps, window_ms, hysteresis]: [f64; 4]) -> ActivityConfig {
    ActivityConfig { pps, bps, window: SimDur::from_micros_f64(1e3 * window_ms), hysteresis }
}
