//! The MACs a scenario's cell may run (`mac.kind`): one file per kind,
//! each declaring its own `[mac]` keys as a table struct
//! (`wifitcp_core::config_table!`, rows derived from the declaration) and
//! implementing [`MacKind`] for it (its checks and the constructor of one
//! member's MAC), and one line in [`MacKindConfig`]'s registration list.
//! Parsing `[mac]` (`crate::config::mac`), the key table (`wifitcp
//! schema`, docs/scenarios.md) and the cells' construction
//! (`world/build.rs`) all read that list.
//!
//! The MAC state machines themselves live in `wifitcp_wifi::mac`; a
//! member's MAC is an `AnyMac`. The kinds registered here use its static
//! variants (the DCF inline, the others boxed concrete types: one `match`
//! per call, the DCF's calls inlined); a new kind that is not on a hot
//! path needs no variant: its constructor returns `AnyMac::boxed(name,
//! mac)` for any type implementing `wifitcp_wifi::mac::Mac`
//! (`crates/sim/tests/macs.rs` runs every kind through that path and gets
//! the same results).
//!
//! Invariants: names are unique; keys that several kinds read are one
//! declaration (a `config_group!`), so their rows are one row naming the
//! kinds; a kind's key set under another kind is an error naming the kinds
//! that read it (`crate::config::schema`).
use crate::config::Scenario;
use std::sync::Arc;
use wifitcp_core::config::ConfigError;
use wifitcp_core::{RngStream, SimDur, SimTime};
use wifitcp_wifi::mac::beacon::{beacon_bytes, BeaconClock, BeaconParams, TU};
use wifitcp_wifi::mac::pcf::{CfpConfig, Coordinator};
use wifitcp_wifi::mac::{AnyMac, Dcf, DcfShared, MacAddr};
use wifitcp_wifi::phy::{PhyTiming, Rate};

wifitcp_core::config_kinds! {
    /// The registered MAC kinds (`mac.kind`), in the order docs and
    /// messages list them; the first is the default. Each kind's own
    /// `[mac]` keys are its table struct, declared in its file with its
    /// [`MacKind`] impl; adding a kind is its file and one line here.
    pub enum MacKindConfig: tag "kind", dyn MacKind {
        /// The DCF (802.11-2020 10.3).
        "dcf" => Dcf(dcf::DcfTable) mod dcf,
        /// The HCF's EDCA with QoS Data, TXOPs, A-MPDU and BlockAck.
        "edca" => Edca(edca::EdcaTable) mod edca,
        /// The PCF (802.11-2016 10.4), round-robin polling.
        "pcf" => Pcf(pcf::PcfTable) mod pcf,
        /// Paper 000's multi-poll hybrid: PCF polling the active stations.
        "multipoll" => Multipoll(multipoll::MultipollTable) mod multipoll,
    }
}

/// One MAC kind: what the scenario layer needs of it beyond its table.
pub trait MacKind {
    /// Whether it runs on the 802.11n PHY (which sends QoS Data, 19.1).
    fn ht(&self) -> bool;
    /// Whether the APs of its cells send beacons (`ap.beacons`).
    fn beacons(&self) -> bool;
    /// Checks of its keys, and of the rest of the scenario as it needs it;
    /// paths are the scenario's (`mac.cfp_period`, `ap.beacons`).
    fn check(&self, _: &Scenario, _: &PhyTiming) -> Result<(), ConfigError> {
        Ok(())
    }
    /// The MAC of one member of a cell (of a checked scenario).
    fn build(&self, m: &Member) -> AnyMac;
}

/// The registered kind called `name`, with every key at its default.
pub fn named(name: &str) -> Option<MacKindConfig> {
    serde_json::from_value(serde_json::json!({ "kind": name })).ok()
}

/// What a kind's constructor knows of the member it builds a MAC for.
pub struct Member<'a> {
    pub s: &'a Scenario,
    pub seed: u64,
    /// Its index in the cell (its `MacAddr`): its node id in a cell that
    /// holds every WLAN member, its rank among the cell's members in one
    /// that holds only its own (`world/cells.rs`).
    pub i: usize,
    /// Its node id (names its random streams whatever its index).
    pub node: usize,
    /// The index in the cell of the AP of every member of the cell (an
    /// AP's is its own).
    pub ap_of: &'a [usize],
    /// An AP whose own cell is another one: in this cell its MAC is never
    /// fed (roaming's gate), and sends no beacons.
    pub elsewhere: bool,
    /// Appended to the names of its random streams in this cell.
    pub suffix: &'a str,
    /// The DCF's parameters from `[mac]` and the PHY.
    pub params: &'a Arc<DcfShared>,
    /// The PHY's rates (for rate control).
    pub rates: &'a [Rate],
}

impl Member<'_> {
    pub fn addr(&self) -> MacAddr {
        MacAddr(self.i as u32)
    }
    /// The member's AP (itself for an AP).
    pub fn ap(&self) -> usize {
        self.ap_of[self.i]
    }
    pub fn is_ap(&self) -> bool {
        self.ap() == self.i
    }
    /// The member's MAC stream, `mac/<name><suffix>`.
    pub fn rng(&self) -> RngStream {
        RngStream::derive(self.seed, &format!("mac/{}{}", self.s.member_name(self.node), self.suffix))
    }
    /// The member's DCF, adapting its rate per receiver under
    /// `phy.rate_control` (stream `rate/<name><suffix>`).
    pub fn dcf(&self) -> Dcf {
        let s = self.s;
        let mut mac = Dcf::new(self.addr(), self.params.clone(), self.rng());
        if !s.phy.rate_control.is_fixed() {
            let name = s.member_name(self.node);
            let rng = RngStream::derive(self.seed, &format!("rate/{name}{}", self.suffix));
            let t = &self.params.timing;
            mac.set_rate_control(wifitcp_wifi::rate::build(s.phy.rate_control, t.data_rate, self.rates, t, rng));
        }
        mac
    }
}

/// An AP around its DCF that sends beacons (`ap.beacons`,
/// `ap.beacon_interval_tu`; 10.1.3.2 of 802.11-2016) and, with `cfp`, is
/// the point coordinator.
pub(crate) fn beaconing_ap(m: &Member, dcf: Dcf, cfp: Option<CfpConfig>) -> AnyMac {
    let s = m.s;
    let std = s.phy.standard;
    // 10.6.6.2: group-addressed frames at a basic rate; the lowest one.
    let basic: Vec<f64> = match &s.phy.basic_rates_mbps {
        Some(b) => b.clone(),
        None => std.default_basic_rates().iter().map(|r| r.mbps()).collect(),
    };
    let lowest = basic.iter().copied().fold(f64::INFINITY, f64::min);
    let rate = std
        .rates()
        .into_iter()
        .map(|(r, _)| r)
        .find(|r| (r.mbps() - lowest).abs() < 1e-9)
        .unwrap_or(dcf.params().timing.control_rate);
    let interval = TU * u64::from(s.ap.beacon_interval_tu.unwrap_or(crate::config::D_BEACON_INTERVAL_TU));
    // The first TBTT uniform in [0, interval), as ns-3's beacon jitter.
    let mut rng = RngStream::derive(m.seed, &format!("beacon/{}", s.member_name(m.node)));
    let first_tbtt = SimTime::ZERO + SimDur::from_nanos(rng.below(interval.as_nanos()));
    let bytes = beacon_bytes(std, std.rates().len(), cfp.is_some());
    let clock = BeaconClock::new(BeaconParams { interval, first_tbtt, rate, bytes }, &dcf.params().timing);
    AnyMac::from(Coordinator::new(dcf, clock, cfp))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wifitcp_core::config::{explicit_defaults_agree, ConfigTable};

    #[test]
    fn the_registry_is_consistent() {
        assert_eq!(MacKindConfig::KINDS, ["dcf", "edca", "pcf", "multipoll"]);
        assert_eq!(MacKindConfig::default().kind(), "dcf", "the default kind");
        for kind in MacKindConfig::KINDS {
            assert_eq!(named(kind).map(|k| k.kind()), Some(*kind));
        }
        assert!(named("foo").is_none());
        // no kind's key is a common key
        for row in MacKindConfig::keys().iter().skip(1) {
            assert!(!crate::config::mac::MacCommon::keys().iter().any(|k| k.path == row.path), "{}", row.path);
        }
        explicit_defaults_agree::<dcf::DcfTable>().unwrap();
        explicit_defaults_agree::<edca::EdcaTable>().unwrap();
        explicit_defaults_agree::<pcf::PcfTable>().unwrap();
        explicit_defaults_agree::<multipoll::MultipollTable>().unwrap();
    }

    #[test]
    fn shared_keys_are_one_row_naming_their_kinds() {
        let row = |p: &str| MacKindConfig::keys().iter().find(|k| k.path == p).unwrap();
        assert_eq!(row("cfp_period").when, ["pcf", "multipoll"]);
        assert_eq!(row("multipoll_pps").when, ["edca", "multipoll"]);
        assert_eq!(row("block_ack").when, ["edca"]);
    }
}
