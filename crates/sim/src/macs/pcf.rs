//! `mac.kind = "pcf"`: the point coordination function (802.11-2016 10.4):
//! the AP (`wifitcp_wifi::mac::pcf::Coordinator`) polls every station of
//! its BSS round robin in a contention-free period after the beacon, and
//! every member runs the DCF in the rest; the stations are CF-pollable
//! (`CfStation`). Multi-poll (`multipoll.rs`) is this with another polling
//! list.
use super::{beaconing_ap, MacDescriptor, Member};
use crate::config::{Scenario, D_BEACON_INTERVAL_TU};
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::In;
use wifitcp_core::schema::{k, r, Key};
use wifitcp_wifi::mac::beacon::TU;
use wifitcp_wifi::mac::pcf::{CfStation, CfpConfig, PollList};
use wifitcp_wifi::mac::{AnyMac, MacAddr};
use wifitcp_wifi::phy::PhyTiming;

/// Registration: kind "pcf".
pub const MAC: MacDescriptor = MacDescriptor {
    name: "pcf",
    about: "802.11-2016 10.4, round-robin polling",
    reads: &[],
    keys: KEYS,
    foreign_key: None,
    ht: true,
    beacons: true,
    check,
    build,
};

/// Defaults of the CFP keys.
pub const D_CFP_PERIOD: u32 = 1;
pub const D_CFP_MAX_DURATION_TU: u32 = 50;

/// The CFP's keys, relative to `mac` (multi-poll reads them too).
static KEYS: &[Key] = &[
    k("cfp_period", Int, "1", r(In(1.0), In(255.0)), "beacons", "pcf/multipoll: CFPPeriod, a CFP every k-th beacon."),
    k(
        "cfp_max_duration_tu",
        Int,
        "50",
        r(In(1.0), In(65535.0)),
        "TU",
        "pcf/multipoll: CFPMaxDuration from TBTT (1 TU = 1024 us); < ap.beacon_interval_tu.",
    ),
];

/// Beacons on, the CFP inside the beacon interval, and 802.11n only
/// without a channel model.
///
/// Over 802.11n the polling MACs send every data frame as one MPDU in an
/// HT-mixed PPDU (no A-MPDU: aggregation needs QoS Data under a BlockAck
/// agreement, which polling here does not make), control and management
/// frames at legacy rates.
pub(super) fn check(s: &Scenario, t: &PhyTiming) -> Result<(), String> {
    if t.ht.is_some() && s.channel.is_some() {
        return Err("channel: the channel models judge legacy rates; 802.11n takes wlan.per_* only".into());
    }
    let bi = s.ap.beacon_interval_tu.unwrap_or(D_BEACON_INTERVAL_TU);
    if !s.beacons_on() {
        return Err("ap.beacons: a point coordinator (mac.kind \"pcf\" or \"multipoll\") starts each CFP with a beacon; must be true".into());
    }
    let period = s.mac.cfp_period.unwrap_or(D_CFP_PERIOD);
    if period == 0 || period > 255 {
        return Err(format!("mac.cfp_period: must be in 1..=255 beacons, got {period}"));
    }
    let max = s.mac.cfp_max_duration_tu.unwrap_or(D_CFP_MAX_DURATION_TU);
    if max == 0 || max >= bi {
        return Err(format!(
            "mac.cfp_max_duration_tu: must be at least 1 and shorter than the beacon interval (ap.beacon_interval_tu = {bi}), got {max}"
        ));
    }
    Ok(())
}

fn build(m: &Member) -> AnyMac {
    build_with(m, PollList::round_robin)
}

/// A CF-pollable station, or the point coordinator polling the list
/// `list` makes of its stations (the AP of another cell: a plain DCF).
pub(super) fn build_with(m: &Member, list: impl FnOnce(Vec<MacAddr>) -> PollList) -> AnyMac {
    let dcf = m.dcf();
    if !m.is_ap() {
        return AnyMac::from(CfStation::new(dcf, MacAddr(m.ap() as u32)));
    }
    if m.elsewhere {
        return AnyMac::from(dcf);
    }
    let stations: Vec<MacAddr> =
        (0..m.ap_of.len()).filter(|&k| k != m.i && m.ap_of[k] == m.i).map(|k| MacAddr(k as u32)).collect();
    let s = &m.s.mac;
    let cfp = CfpConfig {
        period: s.cfp_period.unwrap_or(D_CFP_PERIOD),
        max_duration: TU * u64::from(s.cfp_max_duration_tu.unwrap_or(D_CFP_MAX_DURATION_TU)),
        list: list(stations),
    };
    beaconing_ap(m, dcf, Some(cfp))
}
