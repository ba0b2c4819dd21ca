//! `mac.kind = "dcf"`: the distributed coordination function (802.11-2020
//! 10.3, `wifitcp_wifi::mac::dcf`) at every member; the AP also sends
//! beacons (`ap.beacons`, default on). It reads only the `[mac]` keys every
//! kind reads (`crate::config::mac::MacCommon`).
use super::{beaconing_ap, MacKind, Member};
use wifitcp_wifi::mac::AnyMac;

wifitcp_core::config_table! {
    /// `kind = "dcf"`: no keys of its own.
    #[serde(deny_unknown_fields)]
    pub struct DcfTable {}
}

impl MacKind for DcfTable {
    fn ht(&self) -> bool {
        false
    }
    fn beacons(&self) -> bool {
        true
    }
    /// A DCF; at an AP of this cell with beacons on, inside the beaconing
    /// AP.
    fn build(&self, m: &Member) -> AnyMac {
        let dcf = m.dcf();
        if m.is_ap() && !m.elsewhere && m.s.beacons_on() {
            beaconing_ap(m, dcf, None)
        } else {
            AnyMac::from(dcf)
        }
    }
}
