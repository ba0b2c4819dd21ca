//! `mac.kind = "dcf"`: the distributed coordination function (802.11-2020
//! 10.3, `wifitcp_wifi::mac::dcf`) at every member; the AP also sends
//! beacons (`ap.beacons`, default on). It reads only the `[mac]` keys every
//! kind reads (`crate::config::mac::KEYS`).
use super::{beaconing_ap, MacDescriptor, Member};
use wifitcp_wifi::mac::AnyMac;

/// Registration: kind "dcf" (the default).
pub const MAC: MacDescriptor = MacDescriptor {
    name: "dcf",
    about: "",
    reads: &[],
    keys: &[],
    foreign_key: None,
    ht: false,
    beacons: true,
    check: super::no_check,
    build,
};

/// A DCF; at an AP of this cell with beacons on, inside the beaconing AP.
fn build(m: &Member) -> AnyMac {
    let dcf = m.dcf();
    if m.is_ap() && !m.elsewhere && m.s.beacons_on() {
        beaconing_ap(m, dcf, None)
    } else {
        AnyMac::from(dcf)
    }
}
