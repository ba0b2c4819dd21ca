//! `mac.kind = "pcf"`: the point coordination function (802.11-2016 10.4):
//! the AP (`wifitcp_wifi::mac::pcf::Coordinator`) polls every station of
//! its BSS round robin in a contention-free period after the beacon, and
//! every member runs the DCF in the rest; the stations are CF-pollable
//! (`CfStation`). Multi-poll (`multipoll.rs`) is this with another polling
//! list.
use super::{beaconing_ap, MacKind, Member};
use crate::config::{Scenario, D_BEACON_INTERVAL_TU};
use wifitcp_core::config::ConfigError;
use wifitcp_wifi::mac::beacon::TU;
use wifitcp_wifi::mac::pcf::{CfStation, CfpConfig, PollList};
use wifitcp_wifi::mac::{AnyMac, MacAddr};
use wifitcp_wifi::phy::PhyTiming;

wifitcp_core::config_group! {
    /// The CFP's keys (multi-poll holds them too).
    macro cfp_keys {
        /// CFPPeriod: a CFP every k-th beacon.
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::In(1.0), wifitcp_core::schema::B::In(255.0)), unit = "beacons")]
        pub cfp_period: u32 = 1,
        /// CFPMaxDuration from TBTT (1 TU = 1024 us); < ap.beacon_interval_tu.
        ///
        /// The standard leaves it to the AP; the default is half the
        /// default beacon interval.
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::In(1.0), wifitcp_core::schema::B::In(65535.0)), unit = "TU")]
        pub cfp_max_duration_tu: u32 = 50,
    }
}

wifitcp_core::config_table! {
    /// `kind = "pcf"`.
    #[serde(deny_unknown_fields)]
    pub struct PcfTable {
        use cfp_keys;
    }
}

impl MacKind for PcfTable {
    fn ht(&self) -> bool {
        true
    }
    fn beacons(&self) -> bool {
        true
    }
    fn check(&self, s: &Scenario, t: &PhyTiming) -> Result<(), ConfigError> {
        check(s, t, self.cfp_period, self.cfp_max_duration_tu)
    }
    fn build(&self, m: &Member) -> AnyMac {
        build_with(m, self.cfp_period, self.cfp_max_duration_tu, PollList::round_robin)
    }
}

/// Beacons on, the CFP inside the beacon interval, and 802.11n only
/// without a channel model.
///
/// Over 802.11n the polling MACs send every data frame as one MPDU in an
/// HT-mixed PPDU (no A-MPDU: aggregation needs QoS Data under a BlockAck
/// agreement, which polling here does not make), control and management
/// frames at legacy rates.
pub(super) fn check(s: &Scenario, t: &PhyTiming, period: u32, max: u32) -> Result<(), ConfigError> {
    // VHT and HE PPDUs always carry an A-MPDU (10.12.8), which the polling
    // MACs' DCF does not build.
    if let Some(v) = t.ht.filter(|v| v.every_ppdu_ampdu()) {
        return Err(ConfigError::new(
            "mac.kind",
            format!("{} sends every data frame in an A-MPDU under the HCF; set mac.kind = \"edca\"", v.standard_name()),
        ));
    }
    if t.ht.is_some() && s.channel.is_some() {
        return Err(ConfigError::new("channel", "the channel models judge legacy rates; 802.11n takes wlan.per_* only"));
    }
    let bi = s.ap.beacon_interval_tu.unwrap_or(D_BEACON_INTERVAL_TU);
    if !s.beacons_on() {
        return Err(ConfigError::new(
            "ap.beacons",
            "a point coordinator (mac.kind \"pcf\" or \"multipoll\") starts each CFP with a beacon; must be true",
        ));
    }
    if period == 0 || period > 255 {
        return Err(ConfigError::new("mac.cfp_period", format!("must be in 1..=255 beacons, got {period}")));
    }
    if max == 0 || max >= bi {
        return Err(ConfigError::new(
            "mac.cfp_max_duration_tu",
            format!("must be at least 1 and shorter than the beacon interval (ap.beacon_interval_tu = {bi}), got {max}"),
        ));
    }
    Ok(())
}

/// A CF-pollable station, or the point coordinator (a CFP every `period`
/// beacons, at most `max_tu` long) polling the list `list` makes of its
/// stations (the AP of another cell: a plain DCF).
pub(super) fn build_with(
    m: &Member,
    period: u32,
    max_tu: u32,
    list: impl FnOnce(Vec<MacAddr>) -> PollList,
) -> AnyMac {
    let dcf = m.dcf();
    if !m.is_ap() {
        return AnyMac::from(CfStation::new(dcf, MacAddr(m.ap() as u32)));
    }
    if m.elsewhere {
        return AnyMac::from(dcf);
    }
    let stations: Vec<MacAddr> =
        (0..m.ap_of.len()).filter(|&k| k != m.i && m.ap_of[k] == m.i).map(|k| MacAddr(k as u32)).collect();
    let cfp = CfpConfig {
        period,
        max_duration: TU * u64::from(max_tu),
        list: list(stations),
    };
    beaconing_ap(m, dcf, Some(cfp))
}
