//! `[deployment]`: a campus-style WLAN laid out from a few numbers instead
//! of listing every AP and station. It derives `wlan.aps`,
//! `wlan.ap_positions`, `wlan.ap_channels`, `wlan.positions` and
//! `wlan.association` (and, if given, `channel.ap_tx_power_dbm`); the rest
//! of the scenario reads those keys as if they had been written out.
//!
//! ```toml
//! [wlan]
//! stations = 200
//!
//! [deployment]
//! layout = "hex"            # "grid" (square), "hex" (triangular lattice: hexagonal cells)
//!                           # or "plan" (the APs where wlan.ap_positions puts them)
//! aps = 16
//! spacing_m = 30.0          # distance between neighbouring APs
//! channels = "2.4ghz"       # "single", "2.4ghz" (1/6/11), "5ghz", "6ghz" (20 MHz channels)
//! placement = "hotspots"    # or "uniform" over the APs' area
//! hotspots = 4
//! hotspot_radius_m = 8.0
//! seed = 1                  # the floor plan's own stream (not the run's seed)
//! # ap_tx_power_dbm = 20.0  # sets channel.ap_tx_power_dbm (needs an snr or threshold channel)
//!
//! [[traffic]]
//! name = "up"
//! kind = "udp"
//! peer = "own_ap"           # each station's flow to the AP it is associated with
//! ```
//!
//! Layouts: "grid" puts AP k at column k mod c, row k div c (c = ceil of
//! the square root of the count), `spacing_m` apart; "hex" shifts every
//! odd row by half a spacing and puts rows spacing x sqrt(3)/2 apart, so
//! each AP's six nearest neighbours are `spacing_m` away (the hexagonal
//! cell layout of cellular planning, e.g. 3GPP TR 36.814 A.2.1.1);
//! "plan" takes a floor plan's AP positions from `wlan.ap_positions`
//! (`deployment.aps` is their count; walls are not modelled: the channel
//! model's path loss applies as in open space).
//!
//! Channel plans (IEEE 802.11-2020 annex E, 20 MHz channels): "2.4ghz"
//! reuses the three non-overlapping channels 1, 6 and 11 (a reuse-3 plan:
//! on the hex lattice no two neighbours share a channel, colour (q - r)
//! mod 3 in axial coordinates; on the grid, colour (column + 2 row) mod 3
//! keeps row and column neighbours apart and lets diagonal neighbours
//! share); "5ghz" takes the 25 channels 36-64, 100-144 and 149-165 in AP
//! order, "6ghz" the 59 channels 1, 5, ..., 233 (more APs than channels:
//! AP k gets channel k mod the count). On a floor plan the channels go
//! by least co-channel interference (`DeploymentConfig::plan_channels`:
//! the sum of d^-3 over the other APs on a channel, the most constrained
//! AP first, then sweeps while an AP's own sum falls). APs on one channel
//! share a cell (one collision domain: they hear and interfere with each
//! other through the channel's carrier-sense and capture model). Cells on
//! different channels do not interfere, unless `channel.adjacent_channel
//! = "mask"`: then channels that leak into each other by the PHY's
//! transmit mask (2.4 GHz channels 1/6/11, 5 GHz neighbours 20 MHz apart;
//! `wifitcp_wifi::channel::leakage`) share a cell, whose stations sense
//! the other channels' frames by energy and take their leaked power as
//! interference.
//!
//! Stations: "uniform" over the APs' bounding box widened by half a
//! spacing on every side; "hotspots": `hotspots` centres drawn uniformly
//! over the same area, station i uniform in the disc of `hotspot_radius_m`
//! around centre i mod `hotspots`. Each station is associated with the AP
//! whose signal it receives strongest: every AP sends at the same power
//! and the channel's path loss grows with distance, so that is the
//! nearest AP (the lower index on a tie).
use serde::{Deserialize, Serialize};
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::ConfigError;
use wifitcp_core::RngStream;

use super::Scenario;

/// `deployment.layout`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    Grid,
    Hex,
    Plan,
}

/// `deployment.channels`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChannelPlan {
    Single,
    #[serde(rename = "2.4ghz")]
    Ghz2_4,
    #[serde(rename = "5ghz")]
    Ghz5,
    #[serde(rename = "6ghz")]
    Ghz6,
}

/// `deployment.placement`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    Uniform,
    Hotspots,
}

impl wifitcp_core::config::KeyType for Layout {
    const TY: wifitcp_core::schema::Ty = wifitcp_core::schema::Ty::Str;
}
impl wifitcp_core::config::KeyType for ChannelPlan {
    const TY: wifitcp_core::schema::Ty = wifitcp_core::schema::Ty::Str;
}
impl wifitcp_core::config::KeyType for Placement {
    const TY: wifitcp_core::schema::Ty = wifitcp_core::schema::Ty::Str;
}

wifitcp_core::config_table! {
    /// `[deployment]`: APs on a grid or hexagonal layout with a channel plan, stations placed and associated.
    #[serde(deny_unknown_fields)]
    pub struct DeploymentConfig {
        /// AP layout: "grid", "hex" or "plan" (the APs at wlan.ap_positions).
        pub layout: Layout = Layout::Grid,
        /// Access points (sets wlan.aps; with layout = "plan", the count of wlan.ap_positions).
        #[key(range = wifitcp_core::schema::r(In(1.0), In(64.0)), unit = "APs")]
        pub aps: u32 = 1,
        /// Distance between neighbouring APs.
        #[key(range = wifitcp_core::schema::r(Ex(0.0), In(1e5)), unit = "m")]
        pub spacing_m: f64 = 20.0,
        /// Channel plan: "single", "2.4ghz" (1/6/11), "5ghz" or "6ghz" (20 MHz channels).
        pub channels: ChannelPlan = ChannelPlan::Single,
        /// Station placement: "uniform" or "hotspots".
        pub placement: Placement = Placement::Uniform,
        /// Hotspots (placement = "hotspots").
        #[key(range = wifitcp_core::schema::r(In(1.0), In(1e4)), unit = "hotspots")]
        pub hotspots: u32 = 4,
        /// Radius of a hotspot.
        #[key(range = wifitcp_core::schema::r(Ex(0.0), In(1e5)), unit = "m")]
        pub hotspot_radius_m: f64 = 5.0,
        /// Seed of the floor plan's stream (the layout does not change with the run's seed).
        #[key(range = wifitcp_core::schema::r(In(0.0), In(9.007199254740992e15)))]
        pub seed: u64 = 1,
        /// Transmit power of the APs (sets channel.ap_tx_power_dbm).
        #[key(range = wifitcp_core::schema::r(In(-200.0), In(100.0)), unit = "dBm", default = "channel.ap_tx_power_dbm")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub ap_tx_power_dbm: Option<f64> = None,
    }
}

/// 20 MHz channels of the 5 GHz band (IEEE 802.11-2020 E.1, the channels
/// usable in the US and most of Europe).
pub const CHANNELS_5GHZ: [u32; 25] = [
    36, 40, 44, 48, 52, 56, 60, 64, 100, 104, 108, 112, 116, 120, 124, 128, 132, 136, 140, 144, 149, 153, 157, 161, 165,
];

/// What a deployment derives: the `wlan` keys it fills.
#[derive(Clone, Debug, PartialEq)]
pub struct Derived {
    pub ap_positions: Vec<[f64; 2]>,
    pub ap_channels: Vec<u32>,
    pub positions: Vec<[f64; 2]>,
    pub association: Vec<u32>,
}

impl DeploymentConfig {
    /// Column and row of AP `k` (row-major, ceil(sqrt(aps)) columns).
    fn cell_of(&self, k: usize) -> (i64, i64) {
        let cols = (self.aps as f64).sqrt().ceil().max(1.0) as usize;
        ((k % cols) as i64, (k / cols) as i64)
    }

    /// Position of AP `k` on a lattice (`Layout::Grid` or `Layout::Hex`).
    pub fn ap_position(&self, k: usize) -> [f64; 2] {
        let (c, r) = self.cell_of(k);
        let s = self.spacing_m;
        match self.layout {
            Layout::Grid | Layout::Plan => [c as f64 * s, r as f64 * s],
            Layout::Hex => [(c as f64 + 0.5 * (r & 1) as f64) * s, r as f64 * s * 3f64.sqrt() / 2.0],
        }
    }

    /// The plan's channels, in its order.
    fn plan(&self) -> Vec<u32> {
        match self.channels {
            ChannelPlan::Single => vec![1],
            ChannelPlan::Ghz2_4 => vec![1, 6, 11],
            ChannelPlan::Ghz5 => CHANNELS_5GHZ.to_vec(),
            ChannelPlan::Ghz6 => (0..59).map(|i| 1 + 4 * i).collect(),
        }
    }

    /// Channel of AP `k` under the plan, on a lattice.
    pub fn ap_channel(&self, k: usize) -> u32 {
        let (c, r) = self.cell_of(k);
        let plan = self.plan();
        match self.channels {
            ChannelPlan::Ghz2_4 => {
                let colour = match self.layout {
                    Layout::Grid | Layout::Plan => c + 2 * r,
                    // "odd-r" offset to axial q; colour (q - r) mod 3
                    Layout::Hex => (c - (r - (r & 1)) / 2) - r,
                };
                plan[colour.rem_euclid(3) as usize]
            }
            _ => plan[k % plan.len()],
        }
    }

    /// Channels for APs at `aps` (a floor plan), least co-channel
    /// interference first: AP k's interference on channel c is the sum of
    /// d^-3 over the other APs on c (received power under log-distance
    /// path loss with exponent 3, every AP at one power). The most
    /// constrained AP goes next (the one whose least interference from the
    /// APs placed so far is highest, the lower index on a tie: the order of
    /// DSATUR graph colouring, Brelaz 1979) and takes the channel of least
    /// interference (the earlier channel of the plan on a tie); then, in sweeps
    /// over the APs in order until none moves (at most 16), each moves to
    /// the channel of least interference from all the others if that is
    /// strictly less than on its own: the iterative assignment of WLAN
    /// controllers' dynamic channel assignment, with distance standing for
    /// measured power.
    pub fn plan_channels(&self, aps: &[[f64; 2]]) -> Vec<u32> {
        let plan = self.plan();
        let mut out: Vec<u32> = Vec::with_capacity(aps.len());
        let load = |out: &[u32], k: usize, ch: u32| -> f64 {
            (0..out.len())
                .filter(|&j| j != k && out[j] == ch)
                .map(|j| (aps[j][0] - aps[k][0]).hypot(aps[j][1] - aps[k][1]).max(1e-3).powi(-3))
                .sum()
        };
        let best = |out: &[u32], k: usize| {
            let mut b = (plan[0], load(out, k, plan[0]));
            for &ch in &plan[1..] {
                let x = load(out, k, ch);
                if x < b.1 {
                    b = (ch, x);
                }
            }
            b
        };
        // (unassigned: u32::MAX, on no channel of the plan)
        out.resize(aps.len(), u32::MAX);
        for _ in 0..aps.len() {
            // the most constrained AP next: the one whose least interference
            // over the channels is highest (the lower index on a tie)
            let mut pick: Option<(usize, u32, f64)> = None;
            for k in (0..aps.len()).filter(|&k| out[k] == u32::MAX) {
                let (ch, x) = best(&out, k);
                if pick.is_none_or(|(_, _, px)| x > px) {
                    pick = Some((k, ch, x));
                }
            }
            let (k, ch, _) = pick.expect("an AP is left");
            out[k] = ch;
        }
        for _ in 0..16 {
            let mut moved = false;
            for k in 0..aps.len() {
                let (ch, x) = best(&out, k);
                if ch != out[k] && x < load(&out, k, out[k]) {
                    out[k] = ch;
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
        out
    }

    /// The layout for `stations` stations; `plan`: the APs of a floor
    /// plan (`Layout::Plan`; the lattices ignore it).
    pub fn derive(&self, stations: usize, plan: Option<&[[f64; 2]]>) -> Derived {
        let m = self.aps as usize;
        let (ap_positions, ap_channels): (Vec<[f64; 2]>, Vec<u32>) = match (self.layout, plan) {
            (Layout::Plan, Some(aps)) => (aps.to_vec(), self.plan_channels(aps)),
            _ => ((0..m).map(|k| self.ap_position(k)).collect(), (0..m).map(|k| self.ap_channel(k)).collect()),
        };
        let half = self.spacing_m / 2.0;
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for p in &ap_positions {
            for d in 0..2 {
                lo[d] = lo[d].min(p[d] - half);
                hi[d] = hi[d].max(p[d] + half);
            }
        }
        let mut rng = RngStream::derive(self.seed, "deployment");
        let in_area =
            |rng: &mut RngStream| [lo[0] + rng.unit() * (hi[0] - lo[0]), lo[1] + rng.unit() * (hi[1] - lo[1])];
        let positions: Vec<[f64; 2]> = match self.placement {
            Placement::Uniform => (0..stations).map(|_| in_area(&mut rng)).collect(),
            Placement::Hotspots => {
                let centres: Vec<[f64; 2]> = (0..self.hotspots).map(|_| in_area(&mut rng)).collect();
                (0..stations)
                    .map(|i| {
                        let c = centres[i % centres.len()];
                        // uniform in the disc: radius R sqrt(u)
                        let (u, a) = (rng.unit(), rng.unit() * std::f64::consts::TAU);
                        let d = self.hotspot_radius_m * u.sqrt();
                        [c[0] + d * a.cos(), c[1] + d * a.sin()]
                    })
                    .collect()
            }
        };
        let association = positions.iter().map(|p| nearest(p, &ap_positions) as u32).collect();
        Derived { ap_positions, ap_channels, positions, association }
    }
}

/// Index of the point of `aps` nearest `p` (the lower on a tie).
pub fn nearest(p: &[f64; 2], aps: &[[f64; 2]]) -> usize {
    let d2 = |a: &[f64; 2]| (a[0] - p[0]).powi(2) + (a[1] - p[1]).powi(2);
    let mut best = 0;
    for (k, a) in aps.iter().enumerate() {
        if d2(a) < d2(&aps[best]) {
            best = k;
        }
    }
    best
}

impl Scenario {
    /// Fill the `wlan` keys a `[deployment]` derives. A key also written
    /// out must hold what the deployment derives (a scenario echoed with
    /// its derived keys parses again); anything else is an error.
    pub(super) fn apply_deployment(&mut self) -> Result<(), ConfigError> {
        let Some(d) = self.deployment.clone() else { return Ok(()) };
        let n = self.wlan.stations as usize;
        if n == 0 || n > 100_000 {
            return Ok(()); // validate_wlan reports it
        }
        let mut d = d;
        let plan = if d.layout == Layout::Plan {
            let Some(aps) = self.wlan.ap_positions.clone() else {
                return Err(ConfigError::new(
                    "deployment.layout",
                    "\"plan\" places the APs at wlan.ap_positions; give them there",
                ));
            };
            if aps.is_empty() || aps.len() > 64 {
                return Err(ConfigError::new(
                    "wlan.ap_positions",
                    format!("a floor plan of 1 to 64 APs, got {}", aps.len()),
                ));
            }
            if d.aps != 1 && d.aps as usize != aps.len() {
                return Err(ConfigError::new(
                    "deployment.aps",
                    format!("{} APs, but wlan.ap_positions holds {}; remove one", d.aps, aps.len()),
                ));
            }
            d.aps = aps.len() as u32;
            Some(aps)
        } else {
            None
        };
        let x = d.derive(n, plan.as_deref());
        let w = &mut self.wlan;
        if w.aps != 1 && w.aps != d.aps {
            return Err(ConfigError::new("wlan.aps", format!("set by deployment.aps ({}); remove one", d.aps)));
        }
        if w.distance_m.is_some() {
            return Err(ConfigError::new("wlan.distance_m", "[deployment] places the stations; remove one"));
        }
        fn fill<T: PartialEq>(key: &str, slot: &mut Option<T>, v: T) -> Result<(), ConfigError> {
            match slot {
                Some(old) if *old != v => {
                    Err(ConfigError::new(format!("wlan.{key}"), "[deployment] derives it; remove one"))
                }
                _ => {
                    *slot = Some(v);
                    Ok(())
                }
            }
        }
        w.aps = d.aps;
        fill("ap_positions", &mut w.ap_positions, x.ap_positions)?;
        fill("ap_channels", &mut w.ap_channels, x.ap_channels)?;
        fill("positions", &mut w.positions, x.positions)?;
        fill("association", &mut w.association, x.association)?;
        if let Some(p) = d.ap_tx_power_dbm {
            use wifitcp_wifi::channel::ChannelConfig as C;
            let slot = match &mut self.channel {
                Some(C::Snr(c)) => &mut c.ap_tx_power_dbm,
                Some(C::Threshold(c)) => &mut c.ap_tx_power_dbm,
                _ => {
                    return Err(ConfigError::new(
                        "deployment.ap_tx_power_dbm",
                        "transmit powers need a [channel] with model \"snr\" or \"threshold\"",
                    ))
                }
            };
            match slot {
                Some(old) if *old != p => {
                    return Err(ConfigError::new(
                        "channel.ap_tx_power_dbm",
                        "set by deployment.ap_tx_power_dbm; remove one",
                    ))
                }
                _ => *slot = Some(p),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dep(layout: Layout, aps: u32, channels: ChannelPlan) -> DeploymentConfig {
        DeploymentConfig { layout, aps, channels, spacing_m: 30.0, ..Default::default() }
    }

    /// Stations associate with the AP they receive strongest under
    /// log-distance path loss (PL = PL0 + 10 n log10 d, n = 3), which with
    /// one AP power is the nearest.
    #[test]
    fn stations_associate_with_the_strongest_ap() {
        for (layout, placement) in
            [(Layout::Grid, Placement::Uniform), (Layout::Hex, Placement::Uniform), (Layout::Hex, Placement::Hotspots)]
        {
            let d = DeploymentConfig { placement, ..dep(layout, 9, ChannelPlan::Ghz2_4) };
            let x = d.derive(500, None);
            let rx = |p: &[f64; 2], a: &[f64; 2]| {
                let dist = ((a[0] - p[0]).hypot(a[1] - p[1])).max(1.0);
                20.0 - (46.68 + 30.0 * dist.log10())
            };
            let mut used = [0; 9];
            for (p, &a) in x.positions.iter().zip(&x.association) {
                let mine = rx(p, &x.ap_positions[a as usize]);
                for ap in &x.ap_positions {
                    assert!(mine >= rx(p, ap), "{layout:?}: station at {p:?} hears another AP stronger");
                }
                used[a as usize] += 1;
            }
            if placement == Placement::Uniform {
                assert!(used.iter().all(|&u| u > 0), "uniform placement leaves no AP empty: {used:?}");
            }
        }
    }

    /// Reuse-3 over 1/6/11: on the hex lattice no two APs one spacing
    /// apart share a channel; on the grid no row or column neighbours do.
    #[test]
    fn reuse_plan_keeps_neighbours_apart() {
        for layout in [Layout::Hex, Layout::Grid] {
            let d = dep(layout, 64, ChannelPlan::Ghz2_4);
            let x = d.derive(1, None);
            assert!(x.ap_channels.iter().all(|c| [1, 6, 11].contains(c)));
            for c in [1, 6, 11] {
                let k = x.ap_channels.iter().filter(|&&x| x == c).count();
                assert!((19..=24).contains(&k), "{layout:?}: channel {c} on {k} of 64 APs");
            }
            for i in 0..64 {
                for j in 0..i {
                    let (a, b) = (x.ap_positions[i], x.ap_positions[j]);
                    if (a[0] - b[0]).hypot(a[1] - b[1]) < 30.0 * 1.01 {
                        assert_ne!(x.ap_channels[i], x.ap_channels[j], "{layout:?}: neighbours {i} and {j}");
                    }
                }
            }
        }
        let five = dep(Layout::Grid, 30, ChannelPlan::Ghz5).derive(1, None).ap_channels;
        assert_eq!(&five[..3], &[36, 40, 44]);
        assert_eq!(five[25], 36, "more APs than channels: reuse in order");
        let six = dep(Layout::Grid, 64, ChannelPlan::Ghz6).derive(1, None).ap_channels;
        assert_eq!((six[0], six[58], six[59]), (1, 233, 1));
        assert!(dep(Layout::Hex, 7, ChannelPlan::Single).derive(1, None).ap_channels.iter().all(|&c| c == 1));
    }

    #[test]
    fn placement_is_seeded_and_hotspots_are_tight() {
        let d = DeploymentConfig {
            placement: Placement::Hotspots,
            hotspots: 3,
            hotspot_radius_m: 4.0,
            ..dep(Layout::Grid, 4, ChannelPlan::Single)
        };
        assert_eq!(d.derive(50, None), d.derive(50, None));
        assert_ne!(d.derive(50, None).positions, DeploymentConfig { seed: 2, ..d.clone() }.derive(50, None).positions);
        let p = d.derive(60, None).positions;
        for i in 3..60 {
            let c = &p[i % 3];
            let _ = c;
            // stations of one hotspot are within two radii of each other
            let (a, b) = (p[i], p[i - 3]);
            assert!((a[0] - b[0]).hypot(a[1] - b[1]) <= 8.0 + 1e-9);
        }
    }

    /// A floor plan's channels: each AP on the channel whose nearest
    /// co-channel AP is farthest. On a hexagonal lattice that is a reuse-3
    /// plan (no neighbours one spacing apart share a channel), in the
    /// 5 GHz band every AP of a small plan gets its own channel, and an
    /// irregular plan keeps the two closest APs apart.
    #[test]
    fn floor_plan_channels_keep_co_channel_aps_far_apart() {
        let hex = dep(Layout::Hex, 36, ChannelPlan::Ghz2_4);
        let aps: Vec<[f64; 2]> = (0..36).map(|k| hex.ap_position(k)).collect();
        let plan = DeploymentConfig { layout: Layout::Plan, ..hex.clone() };
        let ch = plan.plan_channels(&aps);
        let lattice: Vec<u32> = (0..36).map(|k| hex.ap_channel(k)).collect();
        let total = |c: &[u32]| -> (f64, usize) {
            let mut t = (0.0, 0);
            for i in 0..36 {
                for j in 0..i {
                    let d = (aps[i][0] - aps[j][0]).hypot(aps[i][1] - aps[j][1]);
                    if c[i] == c[j] {
                        t.0 += d.powi(-3);
                        t.1 += (d < 30.0 * 1.01) as usize;
                    }
                }
            }
            t
        };
        assert_eq!(total(&ch).1, 0, "hex: no neighbours share a channel");
        assert!(total(&ch).0 <= total(&lattice).0 * (1.0 + 1e-9), "{:?} against {:?}", total(&ch), total(&lattice));
        for i in 0..36 {
            for j in 0..i {
                if (aps[i][0] - aps[j][0]).hypot(aps[i][1] - aps[j][1]) < 30.0 * 1.01 {
                    assert_ne!(ch[i], ch[j], "neighbours {i} and {j} share channel {}", ch[i]);
                }
            }
        }
        let five = DeploymentConfig { layout: Layout::Plan, channels: ChannelPlan::Ghz5, ..Default::default() };
        let mut c = five.plan_channels(&aps[..10]);
        c.sort_unstable();
        c.dedup();
        assert_eq!(c.len(), 10);
        // an office floor: two APs 3 m apart, two others far from both
        let floor = [[0.0, 0.0], [3.0, 0.0], [40.0, 5.0], [80.0, 0.0]];
        let two = DeploymentConfig { layout: Layout::Plan, channels: ChannelPlan::Ghz2_4, ..Default::default() };
        let c = two.plan_channels(&floor);
        assert_eq!(c, [1, 6, 11, 1], "the fourth AP reuses the farthest channel");
        let x = two.derive(20, Some(&floor));
        assert_eq!((x.ap_positions.len(), x.ap_channels, x.association.len()), (4, c.to_vec(), 20));
    }
}
