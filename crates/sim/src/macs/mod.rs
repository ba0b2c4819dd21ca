//! The MACs a scenario's cell may run (`mac.kind`): one file per kind,
//! each exporting its descriptor ([`MacDescriptor`]: its `mac.kind` name,
//! its own `[mac]` key rows, its checks, and the constructor of one
//! member's MAC), and one line in [`MACS`] to register it. Parsing
//! `mac.kind` (`crate::config::MacKind`), the checks of `[mac]`
//! (`crate::config::mac`), the key table (`wifitcp schema`,
//! docs/scenarios.md) and the cells' construction (`world/build.rs`) all
//! read [`MACS`].
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
//! Invariants: names are unique; every key a kind reads beyond the common
//! `[mac]` keys is a row of exactly one kind (tested below).
pub mod dcf;
pub mod edca;
pub mod multipoll;
pub mod pcf;

use crate::config::Scenario;
use wifitcp_core::schema::Key;
use wifitcp_core::{RngStream, SimDur, SimTime};
use wifitcp_wifi::mac::beacon::{beacon_bytes, BeaconClock, BeaconParams, TU};
use wifitcp_wifi::mac::pcf::{CfpConfig, Coordinator};
use wifitcp_wifi::mac::{AnyMac, Dcf, DcfParams, MacAddr};
use wifitcp_wifi::phy::{PhyTiming, Rate};

/// The registered MAC kinds, in the order docs and messages list them; the
/// first is the default. Adding one: its file with a `pub const MAC:
/// MacDescriptor`, a `mod` line above and one entry here.
pub static MACS: &[MacDescriptor] = &[dcf::MAC, edca::MAC, pcf::MAC, multipoll::MAC];

/// One MAC kind: everything the scenario layer needs to know of it.
pub struct MacDescriptor {
    /// Its `mac.kind` name.
    pub name: &'static str,
    /// What it is, in a few words, for the `mac.kind` row ("": nothing to
    /// add to the name).
    pub about: &'static str,
    /// Keys of other kinds' rows it reads too (the keys every kind reads
    /// are `crate::config::mac::KEYS`).
    pub reads: &'static [&'static str],
    /// Rows of its own keys, relative to `mac`: keys only it (and the kinds
    /// that list them in `reads`) reads; set under another kind they are
    /// errors.
    pub keys: &'static [Key],
    /// The reason given when one of its own keys is set under a kind that
    /// does not read it; `None`: "only for mac.kind ..." with the kinds
    /// that do.
    pub foreign_key: Option<&'static str>,
    /// Whether it runs on the 802.11n PHY (which sends QoS Data, 19.1).
    pub ht: bool,
    /// Whether the APs of its cells send beacons (`ap.beacons`).
    pub beacons: bool,
    /// Checks of its keys, and of the rest of the scenario as it needs it;
    /// errors are "dotted.key: reason".
    pub check: fn(&Scenario, &PhyTiming) -> Result<(), String>,
    /// The MAC of one member of a cell (of a checked scenario).
    pub build: fn(&Member) -> AnyMac,
}

/// A kind with no checks of its own.
fn no_check(_: &Scenario, _: &PhyTiming) -> Result<(), String> {
    Ok(())
}

/// The registered kind called `name`.
pub fn named(name: &str) -> Option<&'static MacDescriptor> {
    MACS.iter().find(|m| m.name == name)
}

/// What a kind's constructor knows of the member it builds a MAC for.
pub struct Member<'a> {
    pub s: &'a Scenario,
    pub seed: u64,
    /// Its index in the cell (its node id, `MacAddr`).
    pub i: usize,
    /// The index of the AP of every member (an AP's is its own).
    pub ap_of: &'a [usize],
    /// An AP whose own cell is another one: in this cell its MAC is never
    /// fed (roaming's gate), and sends no beacons.
    pub elsewhere: bool,
    /// Appended to the names of its random streams in this cell.
    pub suffix: &'a str,
    /// The DCF's parameters from `[mac]` and the PHY.
    pub params: &'a DcfParams,
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
        RngStream::derive(self.seed, &format!("mac/{}{}", self.s.member_name(self.i), self.suffix))
    }
    /// The member's DCF, adapting its rate per receiver under
    /// `phy.rate_control` (stream `rate/<name><suffix>`).
    pub fn dcf(&self) -> Dcf {
        let s = self.s;
        let mut mac = Dcf::new(self.addr(), self.params.clone(), self.rng());
        if !s.phy.rate_control.is_fixed() {
            let name = s.member_name(self.i);
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
    let mut rng = RngStream::derive(m.seed, &format!("beacon/{}", s.member_name(m.i)));
    let first_tbtt = SimTime::ZERO + SimDur::from_nanos(rng.below(interval.as_nanos()));
    let bytes = beacon_bytes(std, std.rates().len(), cfp.is_some());
    let clock = BeaconClock::new(BeaconParams { interval, first_tbtt, rate, bytes }, &dcf.params().timing);
    AnyMac::from(Coordinator::new(dcf, clock, cfp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_is_consistent() {
        let mut names = Vec::new();
        for mac in MACS {
            assert!(!names.contains(&mac.name), "{} registered twice", mac.name);
            names.push(mac.name);
            assert_eq!(named(mac.name).map(|m| m.name), Some(mac.name));
            for key in mac.reads {
                let owners = MACS.iter().filter(|o| o.keys.iter().any(|k| k.path == *key)).count();
                assert_eq!(owners, 1, "{}: reads {key}, a row of {owners} kinds", mac.name);
            }
        }
        let mut own: Vec<&str> = MACS.iter().flat_map(|m| m.keys.iter().map(|k| k.path)).collect();
        let n = own.len();
        own.sort_unstable();
        own.dedup();
        assert_eq!(own.len(), n, "a key is a row of two kinds");
        for key in &own {
            assert!(!crate::config::mac::KEYS.iter().any(|k| k.path == *key), "{key}: common and a kind's");
        }
        // every kind-specific field of `MacConfig` is a kind's row, and back
        let set: Vec<&str> = crate::config::mac::kind_keys_set(&Default::default()).iter().map(|k| k.0).collect();
        let mut fields = set.clone();
        fields.sort_unstable();
        assert_eq!(fields, own);
        assert_eq!(MACS[0].name, "dcf", "the default kind");
    }
}
