//! `[wlan]`: the scenario section of the WLAN's members (stations, APs,
//! their channels and positions), its serde shape, its checks and the
//! numbering of its members.
use serde::{Deserialize, Serialize};
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{k, r, Key, POS_M, PROB};
use wifitcp_core::ConfigError;
use wifitcp_wifi::channel::leakage::Leakage;

use super::{mobility, roaming, Scenario, Traffic};
use crate::disjoint::{find, union};

/// `[wlan]`: one BSS: an AP and `stations` stations in one collision domain.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WlanConfig {
    pub stations: u32,
    /// Frame error rate of data frames from a station to the AP.
    #[serde(default)]
    pub per_uplink: f64,
    /// Frame error rate of data frames from the AP to a station.
    #[serde(default)]
    pub per_downlink: f64,
    /// Distance of every station from the AP (metres), for SNR-based
    /// channels; stations sit evenly on a circle around the AP.
    #[serde(default)]
    pub distance_m: Option<f64>,
    /// Explicit station positions [x, y] in metres (AP at the origin).
    #[serde(default)]
    pub positions: Option<Vec<[f64; 2]>>,
    /// Queue discipline of every station's WLAN interface (default
    /// drop-tail of `mac.queue_packets`).
    #[serde(default)]
    pub station_qdisc: Option<wifitcp_queue::QdiscConfig>,
    /// Access points, named "ap", "ap1", "ap2", ...; each is a node that
    /// links can attach to. They share one channel (one collision domain)
    /// unless `ap_channels` puts them on several.
    #[serde(default = "one")]
    pub aps: u32,
    /// AP index of each station (default: all on AP 0).
    #[serde(default)]
    pub association: Option<Vec<u32>>,
    /// AP positions [x, y] in metres (default: AP 0 at the origin, AP k at
    /// (20 k, 0)).
    #[serde(default)]
    pub ap_positions: Option<Vec<[f64; 2]>>,
    /// How stations move (`[[wlan.mobility]]`, config/mobility.rs); none:
    /// every station stands still (and the key is not serialised, so
    /// results of scenarios without it are unchanged).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mobility: Vec<mobility::MobilityConfig>,
    /// Channel of each AP (`wlan.ap_channels`, config/roaming.rs): APs on
    /// one channel share a cell (one collision domain), cells on different
    /// channels do not interfere. None: every AP on one channel (not
    /// serialised, so results without it are unchanged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ap_channels: Option<Vec<u32>>,
    /// Stations hand over between APs (`[wlan.roaming]`, config/roaming.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roaming: Option<roaming::RoamingConfig>,
}
fn one() -> u32 {
    1
}

impl Scenario {
    /// The station count and the fixed error rates.
    pub(super) fn validate_wlan(&self) -> Result<(), ConfigError> {
        let n = self.wlan.stations;
        if n == 0 || n > 100_000 {
            return Err(ConfigError::new("wlan.stations", format!("must be in 1..=100000, got {n}")));
        }
        for (k, v) in [("per_uplink", self.wlan.per_uplink), ("per_downlink", self.wlan.per_downlink)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(ConfigError::new(format!("wlan.{k}"), format!("must be a probability in [0, 1], got {v}")));
            }
        }
        Ok(())
    }

    pub(super) fn validate_wlan_layout(&self) -> Result<(), ConfigError> {
        let (n, m) = (self.wlan.stations as usize, self.wlan.aps as usize);
        if m == 0 || m > 64 {
            return Err(ConfigError::new("wlan.aps", format!("must be in 1..=64, got {m}")));
        }
        if let Some(a) = &self.wlan.association {
            if a.len() != n {
                return Err(ConfigError::new("wlan.association", format!("{} entries for {n} stations", a.len())));
            }
            if let Some((i, x)) = a.iter().enumerate().find(|(_, x)| **x as usize >= m) {
                return Err(ConfigError::new(
                    format!("wlan.association[{i}]"),
                    format!("AP {x} does not exist (wlan.aps = {m})"),
                ));
            }
        }
        if let Some(p) = &self.wlan.ap_positions {
            if p.len() != m {
                return Err(ConfigError::new("wlan.ap_positions", format!("{} positions for {m} APs", p.len())));
            }
        }
        if let Some(c) = &self.wlan.ap_channels {
            if c.len() != m {
                return Err(ConfigError::new(
                    "wlan.ap_channels",
                    format!("{} channels for {m} APs (wlan.aps)", c.len()),
                ));
            }
            if let Some((i, x)) = c.iter().enumerate().find(|(_, x)| !(1..=233).contains(*x)) {
                return Err(ConfigError::new(
                    format!("wlan.ap_channels[{i}]"),
                    format!("channel {x} is not in 1..=233"),
                ));
            }
        }
        if let Some(r) = &self.wlan.roaming {
            r.validate("wlan.roaming")?;
            if self.channel.as_ref().is_none_or(|c| c.default_tx_power_dbm().is_none()) {
                return Err(ConfigError::new(
                    "wlan.roaming",
                    "roaming compares received powers: it needs a [channel] with model \"snr\" or \"threshold\"",
                ));
            }
            if m < 2 {
                return Err(ConfigError::new(
                    "wlan.roaming",
                    format!("a station needs at least two APs to roam (wlan.aps = {m})"),
                ));
            }
        }
        if self.channel.as_ref().is_some_and(|c| c.adjacent_leakage()) {
            let why = if self.leakage().is_none() {
                Some("802.11b's DSSS transmit mask is not modelled (OFDM standards only)")
            } else if self.phy.channel_width_mhz.is_some_and(|w| w != 20) {
                Some("the transmit masks are those of 20 MHz channels (phy.channel_width_mhz = 20)")
            } else if self.wlan.roaming.is_some() {
                Some("not with wlan.roaming (roaming scans one channel per cell)")
            } else if !self.wlan.mobility.is_empty() {
                Some("not with wlan.mobility (who senses whom is fixed when the cells are built)")
            } else {
                None
            };
            if let Some(why) = why {
                return Err(ConfigError::new("channel.adjacent_channel", why));
            }
        }
        Ok(())
    }

    /// The leakage between channels, with `channel.adjacent_channel =
    /// "mask"` (`None` without it, or for a PHY without a modelled mask).
    pub fn leakage(&self) -> Option<Leakage> {
        self.channel.as_ref().filter(|c| c.adjacent_leakage()).and_then(|_| Leakage::new(self.phy.standard))
    }

    /// The channel of AP `k`.
    fn ap_channel(&self, k: usize) -> u32 {
        self.wlan.ap_channels.as_ref().map_or(1, |c| c[k])
    }

    /// The channels of every cell: each channel in order of first use by
    /// AP 0, 1, ... (cell 0 is AP 0's), one cell each; with adjacent-channel
    /// leakage, channels that leak into each other, directly or through
    /// others, in one cell (`channel::leakage`), in that order.
    pub fn cells(&self) -> Vec<Vec<u32>> {
        let mut chans: Vec<u32> = Vec::new();
        for k in 0..self.wlan.aps as usize {
            let ch = self.ap_channel(k);
            if !chans.contains(&ch) {
                chans.push(ch);
            }
        }
        let Some(l) = self.leakage() else {
            return chans.into_iter().map(|c| vec![c]).collect();
        };
        // each channel's cell: its set's first channel (`disjoint`)
        let mut cell: Vec<usize> = (0..chans.len()).collect();
        for a in 0..chans.len() {
            for b in a + 1..chans.len() {
                if l.leaks(chans[a], chans[b]) {
                    union(&mut cell, a, b);
                }
            }
        }
        let mut out: Vec<Vec<u32>> = Vec::new();
        let mut index = vec![usize::MAX; chans.len()];
        for (i, &ch) in chans.iter().enumerate() {
            let c = find(&mut cell, i);
            if index[c] == usize::MAX {
                index[c] = out.len();
                out.push(Vec::new());
            }
            out[index[c]].push(ch);
        }
        out
    }

    /// The first channel of every cell (`cells`): the channel of each cell
    /// without leakage.
    pub fn cell_channels(&self) -> Vec<u32> {
        self.cells().into_iter().map(|c| c[0]).collect()
    }

    /// Cell of every WLAN member that is an AP (indexed by member; 0 for
    /// stations).
    pub fn cell_of_aps(&self) -> Vec<usize> {
        let cells = self.cells();
        let mut v = vec![0; self.wlan_members()];
        for k in 0..self.wlan.aps as usize {
            let ch = self.ap_channel(k);
            v[self.ap_member(k)] = cells.iter().position(|c| c.contains(&ch)).expect("listed");
        }
        v
    }

    /// The channel of every WLAN member: its AP's.
    pub fn member_channels(&self) -> Vec<u32> {
        let ap_of = self.ap_of_members();
        let mut of_ap = vec![1; self.wlan_members()];
        for k in 0..self.wlan.aps as usize {
            of_ap[self.ap_member(k)] = self.ap_channel(k);
        }
        ap_of.iter().map(|&a| of_ap[a]).collect()
    }

    /// Number of BSS members: stations plus APs.
    pub fn wlan_members(&self) -> usize {
        self.wlan.stations as usize + self.wlan.aps as usize
    }

    /// BSS index of AP `k`: AP 0 is member 0, further APs follow the
    /// stations (so single-AP scenarios keep their indices).
    pub fn ap_member(&self, k: usize) -> usize {
        if k == 0 {
            0
        } else {
            self.wlan.stations as usize + k
        }
    }

    /// Name of BSS member `i`.
    pub fn member_name(&self, i: usize) -> String {
        let n = self.wlan.stations as usize;
        match i {
            0 => "ap".into(),
            i if i <= n => format!("sta{}", i - 1),
            i => format!("ap{}", i - n),
        }
    }

    /// BSS index of the AP each member is associated with (APs: itself).
    pub fn ap_of_members(&self) -> Vec<usize> {
        let n = self.wlan.stations as usize;
        (0..self.wlan_members())
            .map(|i| {
                if i >= 1 && i <= n {
                    let k = self.wlan.association.as_ref().map(|a| a[i - 1] as usize).unwrap_or(0);
                    self.ap_member(k)
                } else {
                    i
                }
            })
            .collect()
    }

    pub(super) fn validate_channel(&self) -> Result<(), ConfigError> {
        let n = self.wlan.stations as usize;
        if let Some(d) = self.wlan.distance_m {
            if !(d.is_finite() && d > 0.0 && d <= 1e6) {
                return Err(ConfigError::new("wlan.distance_m", format!("must be in (0, 1e6], got {d}")));
            }
            if self.wlan.positions.is_some() {
                return Err(ConfigError::new("wlan.positions", "give distance_m or positions, not both"));
            }
        }
        if let Some(p) = &self.wlan.positions {
            if p.len() != n {
                return Err(ConfigError::new("wlan.positions", format!("{} positions for {n} stations", p.len())));
            }
        }
        if let Some(c) = &self.channel {
            if self.wlan.per_uplink != 0.0 || self.wlan.per_downlink != 0.0 {
                return Err(ConfigError::new(
                    "wlan.per_uplink",
                    "use either wlan.per_* or a [channel] table, not both",
                ));
            }
            c.build(&|name| self.member_id(name))?;
            if c.default_tx_power_dbm().is_some() && self.wlan.distance_m.is_none() && self.wlan.positions.is_none() {
                return Err(ConfigError::new(
                    "wlan.distance_m",
                    "an SNR or threshold channel needs station positions (distance_m or positions)",
                ));
            }
        }
        Ok(())
    }

    pub(super) fn validate_mobility(&self) -> Result<(), ConfigError> {
        let n = self.wlan.stations;
        let mut moved = vec![None; n as usize];
        for (i, m) in self.wlan.mobility.iter().enumerate() {
            let p = format!("wlan.mobility[{i}]");
            if self.channel.as_ref().is_none_or(|c| c.default_tx_power_dbm().is_none()) {
                return Err(ConfigError::new(p.to_string(), "moving stations need a [channel] with model \"snr\" or \"threshold\" (positions matter only there)"));
            }
            let list = Traffic::stations_of(&m.stations, n, &p)?;
            for k in list {
                if let Some(j) = moved[k as usize].replace(i) {
                    return Err(ConfigError::new(
                        format!("{p}.stations"),
                        format!("station {k} already moves by wlan.mobility[{j}]"),
                    ));
                }
            }
            m.validate(&p, self.scenario.duration_s)?;
        }
        Ok(())
    }

    /// Channel node id (= BSS index) of a WLAN member's name.
    pub fn member_id(&self, name: &str) -> Option<wifitcp_core::NodeId> {
        (0..self.wlan_members()).find(|&i| self.member_name(i) == name).map(|i| wifitcp_core::NodeId(i as u32))
    }
}

/// The keys of `[wlan]` itself, relative to `wlan`.
static KEYS: &[Key] = &[
    k("stations", Int, "required", r(In(1.0), In(100000.0)), "stations", "Stations of the WLAN."),
    k("per_uplink", Float, "0.0", PROB, "", "Error probability of data frames to the AP."),
    k("per_downlink", Float, "0.0", PROB, "", "Error probability of data frames from the AP."),
    k("distance_m", Float, "none", r(Ex(0.0), In(1e6)), "m", "Every station's distance from the AP."),
    k("positions", Floats, "none", POS_M, "m", "Station positions [[x, y], ...]."),
    k("station_qdisc", Table, "drop-tail", None, "", "Queue discipline of the stations (a qdisc table)."),
    k("aps", Int, "1", r(In(1.0), In(64.0)), "APs", "Access points (one channel unless ap_channels)."),
    k("association", Ints, "all on AP 0", r(In(0.0), In(63.0)), "AP index", "AP of each station."),
    k("ap_positions", Floats, "AP k at (20 k, 0)", POS_M, "m", "AP positions [[x, y], ...]."),
    k("ap_channels", Ints, "all on one channel", r(In(1.0), In(233.0)), "channel", "Channel of each AP."),
    k("roaming", Table, "none", None, "", "Stations hand over between APs (needs an snr or threshold channel)."),
];

/// The `[[wlan.mobility]]` key, relative to `wlan`.
static MOBILITY: &[Key] = &[k(
    "mobility",
    Tables,
    "none",
    None,
    "",
    "How stations move (none: they stand still); needs an snr or threshold channel.",
)];

/// The key table of `[wlan]`, relative to `wlan`, in document order (mounted
/// by `super::schema`).
pub fn keys() -> &'static [Key] {
    static ALL: std::sync::OnceLock<Vec<Key>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let mut v = KEYS.to_vec();
        v.extend(super::schema::mounted("roaming", roaming::KEYS));
        v.extend_from_slice(MOBILITY);
        v.extend(super::schema::mounted("mobility[]", mobility::KEYS));
        v
    })
}
