//! The scenario schema: one typed description of a run. Unknown keys are
//! errors (`deny_unknown_fields`); every error names its dotted path.
//!
//! Python strips `scenario.seeds` and `[sweep]` (sweep expansion is its
//! job) and hands the rest here as JSON.
use serde::{Deserialize, Serialize};
pub use wifitcp_tcp::scenario::{CcKind, CompoundSection, RecoveryKind, TcpSection, VegasSection};
use wifitcp_wifi::phy::{PhyConfig, PhyTiming};

/// "all" stations (the default of a `stations` key).
pub(crate) use crate::apps::config::d_all;
pub use crate::apps::config::{Direction, OnOffDistribution, Pattern, Traffic, TrafficKind, MIN_UDP_MSDU};
pub use wifitcp_pep::config::{ProxyConfig, ProxyKind};

pub mod mobility;
pub mod roaming;
pub mod schema;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub scenario: Meta,
    pub phy: PhyConfig,
    #[serde(default)]
    pub mac: MacConfig,
    pub wlan: WlanConfig,
    #[serde(default)]
    pub ap: ApConfig,
    /// Channel/error model; default error-free (plus `wlan.per_*`).
    #[serde(default)]
    pub channel: Option<wifitcp_wifi::channel::ChannelConfig>,
    /// Wired hosts and routers.
    #[serde(default)]
    pub nodes: Vec<NodeConfig>,
    /// Wired point-to-point links.
    #[serde(default)]
    pub links: Vec<LinkConfig>,
    /// TCP defaults for every TCP flow (each `[[traffic]]` may override).
    #[serde(default)]
    pub tcp: TcpSection,
    #[serde(default)]
    pub traffic: Vec<Traffic>,
}

/// `[ap]`: the access point's WLAN interface.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApConfig {
    /// Transmit queue length in packets (default: `mac.queue_packets`).
    #[serde(default)]
    pub queue_packets: Option<u32>,
    /// Queue discipline of the AP's WLAN interface (default drop-tail).
    #[serde(default)]
    pub qdisc: Option<wifitcp_queue::QdiscConfig>,
    /// Class of a packet queued at the AP (for class-based disciplines such
    /// as VBS): "station" (its destination station, 1..n) or "channel" (the
    /// 1-based index of the destination's `[[channel.classes]]` entry, 0 if
    /// it belongs to none).
    #[serde(default)]
    pub classes: ClassKind,
    /// Beacons from every AP (default true; `mac.kind` "pcf"/"multipoll"
    /// need them). Scenarios reproducing a model without beacons set false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacons: Option<bool>,
    /// Beacon interval in TU of 1024 us (default 100 = 102.4 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon_interval_tu: Option<u32>,
    /// A performance-enhancing proxy at the AP (`[ap.proxy]`, absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proxy: Option<ProxyConfig>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ClassKind {
    #[default]
    Station,
    Channel,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    /// An end host (server): terminates TCP/UDP flows.
    #[default]
    Host,
    /// Forwards packets only.
    Router,
}

/// `[[nodes]]`: a wired node.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeConfig {
    pub name: String,
    #[serde(default)]
    pub kind: NodeKind,
}

/// `[[links]]`: a full-duplex point-to-point link with a drop-tail queue
/// per direction. Serialisation time counts the IP datagram.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Node names ("ap" or a `[[nodes]]` name).
    pub a: String,
    pub b: String,
    pub rate_mbps: f64,
    pub delay_ms: f64,
    #[serde(default = "d_link_queue")]
    pub queue_packets: u32,
}
fn d_link_queue() -> u32 {
    100
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Meta {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Simulated time, seconds.
    #[serde(default = "default_duration")]
    pub duration_s: f64,
    /// Deliveries before this time are not counted in throughput.
    #[serde(default)]
    pub warmup_s: f64,
    /// Bin of the per-flow goodput time series, seconds.
    #[serde(default = "d_bin")]
    pub sample_interval_s: f64,
}
fn d_bin() -> f64 {
    1.0
}
fn default_duration() -> f64 {
    10.0
}

/// `[mac]`: DCF parameters. Defaults: aCWmin/aCWmax of the PHY,
/// dot11ShortRetryLimit 7, dot11LongRetryLimit 4, dot11RTSThreshold 65535
/// (RTS/CTS off), interface queue 50 packets.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MacConfig {
    /// Which MAC every member of the cell runs (`MacKind`).
    #[serde(default)]
    pub kind: MacKind,
    #[serde(default)]
    pub cw_min: Option<u32>,
    #[serde(default)]
    pub cw_max: Option<u32>,
    #[serde(default = "d_short")]
    pub short_retry_limit: u32,
    #[serde(default = "d_long")]
    pub long_retry_limit: u32,
    #[serde(default = "d_rts")]
    pub rts_threshold_bytes: u32,
    #[serde(default = "d_queue")]
    pub queue_packets: u32,
    /// Backoff countdown rule: "idle-slots" (10.3.4.3, default) or
    /// "busy-slot-counts" (Bianchi's slotted model / EDCA slot boundaries).
    #[serde(default)]
    pub backoff_rule: BackoffRule,
    /// When a transmitter that got no ACK/CTS resumes: "ack-timeout-difs"
    /// (default) or "eifs" (with the bystanders, Bianchi's T_c assumption).
    #[serde(default)]
    pub collision_restart: CollisionRestart,
    /// A frame that finds the medium idle (for DIFS, no backoff pending):
    /// "immediate" (10.3.4.2, default; ns-3) sends it at once, "backoff"
    /// draws a backoff first, as ns-2.35's Mac802_11::send does (a random
    /// deferral of DIFS + rand(CW) slots even on an idle medium).
    #[serde(default)]
    pub idle_access: IdleAccess,
    /// Engine option, no effect on results: keep stations outside the
    /// current frame exchange in one group with a shared slot counter
    /// (true, default) or step every station at every busy/idle change
    /// (false: the reference the tests compare against).
    #[serde(default = "yes")]
    pub group_bystanders: bool,
    /// Ack policy of every station's data frames: "normal" (default:
    /// acknowledged non-QoS Data, retransmitted up to the retry limits) or
    /// "noack" (QoS Data with the No Ack policy, 9.2.4.5.4: no ACK, no
    /// retransmission, 26-byte header).
    #[serde(default)]
    pub ack_policy: AckPolicyConfig,
    // --- HCF keys (`kind = "edca"`), absent for the DCF (and then not
    // serialised, so results of DCF scenarios keep their form); see
    // `wifitcp_wifi::mac::hcf`. `None`: the default.
    /// Immediate BlockAck agreements between every pair (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_ack: Option<bool>,
    /// The agreements' buffer size, 1-64 (default 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_ack_window: Option<u16>,
    /// MPDUs per A-MPDU (HT) or per block of frames (non-HT), 1 to the
    /// window (default: the window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_mpdus: Option<u16>,
    /// Octets per A-MPDU (HT; default 65535).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ampdu_bytes: Option<u32>,
    /// TXOP limit of every access category in us (default Table 9-155's:
    /// 0 for BE and BK, 3008 for VI, 1504 for VO on OFDM/HT PHYs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txop_limit_us: Option<f64>,
    /// Access categories whose QoS Data use the No Ack policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_ack_acs: Option<Vec<AcName>>,
    /// WLAN members ("ap", "ap1", ..., "sta0", ...) whose data frames all
    /// use the No Ack policy, under any `kind` (`no_ack_member`); the others
    /// keep `ack_policy` / `no_ack_acs`. Not serialised when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_ack_nodes: Option<Vec<String>>,
    /// An explicit BlockAckReq after a missed BlockAck (default false:
    /// retransmit in the next A-MPDU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bar_after_missed_ba: Option<bool>,
    /// PCF (`kind` "pcf" or "multipoll"): a CFP starts at every
    /// `cfp_period`-th beacon (CFPPeriod, 10.4.1 of 802.11-2016; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cfp_period: Option<u32>,
    /// CFPMaxDuration in TU (default 50: half the default beacon interval;
    /// the standard leaves it to the AP). Shorter than the beacon interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cfp_max_duration_tu: Option<u32>,
    /// Multi-poll (paper 000): packets per second, both directions, for a
    /// station to join the polling list (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipoll_pps: Option<f64>,
    /// Multi-poll: MSDU bytes per second to join the list (default 12500,
    /// 100 kbit/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipoll_bps: Option<f64>,
    /// Multi-poll: measurement window in ms (default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipoll_window_ms: Option<f64>,
    /// Multi-poll: a member leaves below (1 - hysteresis) x a threshold
    /// (default 0.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipoll_hysteresis: Option<f64>,
}

impl MacConfig {
    /// The first HCF key set, if any.
    fn hcf_key_set(&self) -> Option<&'static str> {
        [
            ("block_ack", self.block_ack.is_some()),
            ("block_ack_window", self.block_ack_window.is_some()),
            ("max_mpdus", self.max_mpdus.is_some()),
            ("max_ampdu_bytes", self.max_ampdu_bytes.is_some()),
            ("txop_limit_us", self.txop_limit_us.is_some()),
            ("no_ack_acs", self.no_ack_acs.is_some()),
            ("bar_after_missed_ba", self.bar_after_missed_ba.is_some()),
        ]
        .into_iter()
        .find(|(_, set)| *set)
        .map(|(k, _)| k)
    }
}

/// An access category by name (`mac.no_ack_acs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AcName {
    Bk,
    Be,
    Vi,
    Vo,
}

/// Defaults of the PCF and multi-poll keys (see `MacConfig`).
pub const D_CFP_PERIOD: u32 = 1;
pub const D_CFP_MAX_DURATION_TU: u32 = 50;
pub const D_MULTIPOLL_PPS: f64 = 100.0;
pub const D_MULTIPOLL_BPS: f64 = 12_500.0;
pub const D_MULTIPOLL_WINDOW_MS: f64 = 1000.0;
pub const D_MULTIPOLL_HYSTERESIS: f64 = 0.5;
/// Beacon interval default: 100 TU = 102.4 ms.
pub const D_BEACON_INTERVAL_TU: u32 = 100;

fn yes() -> bool {
    true
}

/// The MAC of the cell (`mac.kind`): each kind is a variant of
/// `wifitcp_wifi::mac::AnyMac`, built in `world/wlan.rs` (`build_bss`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum MacKind {
    /// The distributed coordination function (802.11-2020 10.3), every member.
    #[default]
    Dcf,
    /// The HCF's EDCA (10.22.2) with QoS Data and immediate BlockAck
    /// (10.25), every member (`wifitcp_wifi::mac::hcf`).
    Edca,
    /// PCF (802.11-2016 10.4): the AP polls every station round robin in a
    /// contention-free period after the beacon; the DCF in the rest.
    Pcf,
    /// The multi-poll hybrid of paper 000: PCF whose polling list holds
    /// only the stations above the `multipoll_*` thresholds.
    Multipoll,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AckPolicyConfig {
    #[default]
    Normal,
    #[serde(rename = "noack")]
    NoAck,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum IdleAccess {
    #[default]
    Immediate,
    Backoff,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CollisionRestart {
    #[default]
    AckTimeoutDifs,
    Eifs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BackoffRule {
    #[default]
    IdleSlots,
    BusySlotCounts,
}
fn d_short() -> u32 {
    7
}
fn d_long() -> u32 {
    4
}
fn d_rts() -> u32 {
    65535
}
fn d_queue() -> u32 {
    50
}
impl Default for MacConfig {
    fn default() -> Self {
        MacConfig {
            kind: MacKind::Dcf,
            cw_min: None,
            cw_max: None,
            short_retry_limit: 7,
            long_retry_limit: 4,
            rts_threshold_bytes: 65535,
            queue_packets: 50,
            backoff_rule: BackoffRule::IdleSlots,
            collision_restart: CollisionRestart::AckTimeoutDifs,
            idle_access: IdleAccess::Immediate,
            group_bystanders: true,
            ack_policy: AckPolicyConfig::Normal,
            block_ack: None,
            block_ack_window: None,
            max_mpdus: None,
            max_ampdu_bytes: None,
            txop_limit_us: None,
            no_ack_acs: None,
            no_ack_nodes: None,
            bar_after_missed_ba: None,
            cfp_period: None,
            cfp_max_duration_tu: None,
            multipoll_pps: None,
            multipoll_bps: None,
            multipoll_window_ms: None,
            multipoll_hysteresis: None,
        }
    }
}

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

/// Most goodput samples of a run, over all its flows (`duration_s /
/// sample_interval_s` per flow): 2e6 samples make a result of about 36 MB
/// that the core writes in about 1.5 s; more (1e6 s sampled every 0.1 s:
/// 1e7 per flow) make a result of gigabytes that takes longer to write
/// than the run to simulate.
pub const MAX_SAMPLES: f64 = 2e6;

impl Scenario {
    /// Parse and validate; errors are "dotted.path: reason".
    pub fn from_json(json: &str) -> Result<Scenario, String> {
        // Ranges first (and unknown keys of qdisc/channel tables at the
        // key): a document that is not JSON is reported by the parse below.
        if let Ok(doc) = serde_json::from_str::<serde_json::Value>(json) {
            schema::check_ranges(&doc)?;
        }
        let de = &mut serde_json::Deserializer::from_str(json);
        let s: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner().to_string();
            // serde_json appends " at line L column C" which means nothing to a TOML user.
            let msg = match inner.find(" at line ") {
                Some(i) => inner[..i].to_string(),
                None => inner,
            };
            if path == "." || path.is_empty() {
                msg
            } else {
                format!("{path}: {msg}")
            }
        })?;
        s.validate()?;
        Ok(s)
    }

    /// The PHY timing. With rate adaptation and no `phy.control_rate_mbps`
    /// the control rate is the lowest basic rate: the DCF answers every
    /// frame at one control rate, and 10.6.6.5.2's rule applied to
    /// `data_rate_mbps` (the highest basic rate not above it) would send
    /// ACKs at, say, 24 Mbit/s to a station whose data frames already went
    /// down to 6, losing the exchange to the ACK. The lowest basic rate is
    /// what the rule gives for the slowest data frames; for faster ones it
    /// costs ACK airtime (an 802.11a ACK: 44 us at 6 Mbit/s, 28 us at 24).
    pub fn timing(&self) -> Result<PhyTiming, String> {
        if self.phy.rate_control.is_fixed() || self.phy.control_rate_mbps.is_some() {
            return PhyTiming::from_config(&self.phy);
        }
        let mut phy = self.phy.clone();
        let lowest = match &phy.basic_rates_mbps {
            Some(b) => b.iter().copied().fold(f64::INFINITY, f64::min),
            None => phy.standard.default_basic_rates().iter().map(|r| r.mbps()).fold(f64::INFINITY, f64::min),
        };
        if lowest.is_finite() {
            phy.control_rate_mbps = Some(lowest);
        }
        PhyTiming::from_config(&phy)
    }

    fn validate(&self) -> Result<(), String> {
        let m = &self.scenario;
        if m.name.trim().is_empty() {
            return Err("scenario.name: must not be empty".into());
        }
        if !(m.duration_s.is_finite() && m.duration_s > 0.0 && m.duration_s <= 1e6) {
            return Err(format!("scenario.duration_s: must be in (0, 1e6], got {}", m.duration_s));
        }
        if !(m.warmup_s.is_finite() && m.warmup_s >= 0.0 && m.warmup_s < m.duration_s) {
            return Err(format!("scenario.warmup_s: must be in [0, duration_s), got {}", m.warmup_s));
        }
        if !(m.sample_interval_s.is_finite() && m.sample_interval_s >= 1e-3) {
            return Err(format!("scenario.sample_interval_s: must be at least 0.001, got {}", m.sample_interval_s));
        }
        let t = self.timing()?;
        let cw_min = self.mac.cw_min.unwrap_or(t.cw_min_default);
        let cw_max = self.mac.cw_max.unwrap_or(t.cw_max_default);
        for (k, v) in [("cw_min", cw_min), ("cw_max", cw_max)] {
            if !(1..=32767).contains(&v) || !(v + 1).is_power_of_two() {
                return Err(format!("mac.{k}: must be 2^k - 1 between 1 and 32767, got {v}"));
            }
        }
        if cw_min > cw_max {
            return Err(format!("mac.cw_min: {cw_min} is larger than mac.cw_max {cw_max}"));
        }
        if self.mac.short_retry_limit == 0 || self.mac.short_retry_limit > 255 {
            return Err(format!(
                "mac.short_retry_limit: transmission attempts, must be 1..=255, got {}",
                self.mac.short_retry_limit
            ));
        }
        if self.mac.long_retry_limit == 0 || self.mac.long_retry_limit > 255 {
            return Err(format!(
                "mac.long_retry_limit: transmission attempts, must be 1..=255, got {}",
                self.mac.long_retry_limit
            ));
        }
        if self.mac.ack_policy == AckPolicyConfig::NoAck && self.mac.rts_threshold_bytes < 65535 {
            return Err(format!(
                "mac.ack_policy: \"noack\" sends no RTS/CTS, but mac.rts_threshold_bytes = {} requests it (65535: off)",
                self.mac.rts_threshold_bytes
            ));
        }
        self.validate_no_ack_nodes()?;
        self.validate_hcf(&t)?;
        if self.mac.queue_packets == 0 || self.mac.queue_packets > 1_000_000 {
            return Err(format!("mac.queue_packets: must be in 1..=1000000, got {}", self.mac.queue_packets));
        }
        let n = self.wlan.stations;
        if n == 0 || n > 100_000 {
            return Err(format!("wlan.stations: must be in 1..=100000, got {n}"));
        }
        for (k, v) in [("per_uplink", self.wlan.per_uplink), ("per_downlink", self.wlan.per_downlink)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(format!("wlan.{k}: must be a probability in [0, 1], got {v}"));
            }
        }
        self.validate_wlan_layout()?;
        self.validate_topology()?;
        self.validate_channel()?;
        self.validate_mobility()?;
        crate::apps::config::validate(self)?;
        self.validate_samples()
    }

    /// The goodput series of every flow fit in a result that takes seconds,
    /// not minutes, to write (`MAX_SAMPLES`).
    /// `mac.no_ack_nodes`: WLAN members by name, each once, and no RTS/CTS
    /// (a No Ack frame is not protected by RTS/CTS, 10.3.2.9 sends it
    /// alone, as for `mac.ack_policy = "noack"`).
    fn validate_no_ack_nodes(&self) -> Result<(), String> {
        let Some(names) = &self.mac.no_ack_nodes else { return Ok(()) };
        let members: Vec<String> = (0..self.wlan_members()).map(|i| self.member_name(i)).collect();
        for (k, name) in names.iter().enumerate() {
            if !members.contains(name) {
                return Err(format!(
                    "mac.no_ack_nodes[{k}]: \"{name}\" is not a WLAN member (\"ap\", \"ap1\", ..., \"sta0\" to \"sta{}\")",
                    self.wlan.stations.saturating_sub(1)
                ));
            }
            if names[..k].contains(name) {
                return Err(format!("mac.no_ack_nodes[{k}]: \"{name}\" is listed twice"));
            }
        }
        if !names.is_empty() && self.mac.rts_threshold_bytes < 65535 {
            return Err(format!(
                "mac.no_ack_nodes: No Ack frames are sent without RTS/CTS, but mac.rts_threshold_bytes = {} requests it (65535: off)",
                self.mac.rts_threshold_bytes
            ));
        }
        Ok(())
    }

    /// Whether WLAN member `i` sends its data frames with the No Ack
    /// policy because `mac.no_ack_nodes` names it.
    pub fn no_ack_member(&self, i: usize) -> bool {
        self.mac.no_ack_nodes.as_ref().is_some_and(|v| v.iter().any(|n| *n == self.member_name(i)))
    }

    /// Whether the APs send beacons (`ap.beacons`, default on).
    pub fn beacons_on(&self) -> bool {
        // The HCF (`mac.kind = "edca"`) has no beacon sender yet: its cells
        // send none whatever `ap.beacons` says (the key's documentation
        // says so).
        self.mac.kind != MacKind::Edca && self.ap.beacons.unwrap_or(true)
    }

    /// Beacons, the CFP and the multi-poll thresholds.
    fn validate_beacons_pcf(&self) -> Result<(), String> {
        let bi = self.ap.beacon_interval_tu.unwrap_or(D_BEACON_INTERVAL_TU);
        if bi == 0 || bi > 65535 {
            return Err(format!("ap.beacon_interval_tu: must be in 1..=65535 TU, got {bi}"));
        }
        let pcf = matches!(self.mac.kind, MacKind::Pcf | MacKind::Multipoll);
        if !pcf {
            for (k, set) in [
                ("cfp_period", self.mac.cfp_period.is_some()),
                ("cfp_max_duration_tu", self.mac.cfp_max_duration_tu.is_some()),
            ] {
                if set {
                    return Err(format!("mac.{k}: only for mac.kind \"pcf\" or \"multipoll\""));
                }
            }
        }
        if self.mac.kind != MacKind::Multipoll {
            for (k, set) in [
                ("multipoll_pps", self.mac.multipoll_pps.is_some()),
                ("multipoll_bps", self.mac.multipoll_bps.is_some()),
                ("multipoll_window_ms", self.mac.multipoll_window_ms.is_some()),
                ("multipoll_hysteresis", self.mac.multipoll_hysteresis.is_some()),
            ] {
                if set {
                    return Err(format!("mac.{k}: only for mac.kind \"multipoll\""));
                }
            }
        }
        if !pcf {
            return Ok(());
        }
        if !self.beacons_on() {
            return Err("ap.beacons: a point coordinator (mac.kind \"pcf\" or \"multipoll\") starts each CFP with a beacon; must be true".into());
        }
        let period = self.mac.cfp_period.unwrap_or(D_CFP_PERIOD);
        if period == 0 || period > 255 {
            return Err(format!("mac.cfp_period: must be in 1..=255 beacons, got {period}"));
        }
        let max = self.mac.cfp_max_duration_tu.unwrap_or(D_CFP_MAX_DURATION_TU);
        if max == 0 || max >= bi {
            return Err(format!(
                "mac.cfp_max_duration_tu: must be at least 1 and shorter than the beacon interval (ap.beacon_interval_tu = {bi}), got {max}"
            ));
        }
        for (k, v) in [("multipoll_pps", self.mac.multipoll_pps), ("multipoll_bps", self.mac.multipoll_bps)] {
            if let Some(v) = v {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(format!("mac.{k}: must be >= 0, got {v}"));
                }
            }
        }
        if let Some(w) = self.mac.multipoll_window_ms {
            if !(w.is_finite() && w >= 1.0) {
                return Err(format!("mac.multipoll_window_ms: must be at least 1 ms, got {w}"));
            }
        }
        if let Some(h) = self.mac.multipoll_hysteresis {
            if !(0.0..1.0).contains(&h) {
                return Err(format!("mac.multipoll_hysteresis: must be in [0, 1), got {h}"));
            }
        }
        Ok(())
    }

    fn validate_samples(&self) -> Result<(), String> {
        let m = &self.scenario;
        let n = self.wlan.stations;
        let flows: usize = self.traffic.iter().map(|t| t.station_list(n, "").map_or(0, |v| v.len())).sum();
        let flows = flows.max(1) as f64;
        let samples = m.duration_s / m.sample_interval_s * flows;
        if samples > MAX_SAMPLES {
            return Err(format!(
                "scenario.sample_interval_s: {} s over duration_s = {} s for {flows} flow{} gives {samples:.0} \
                 goodput samples, more than {MAX_SAMPLES:.0}: raise it to at least {} s",
                m.sample_interval_s,
                m.duration_s,
                if flows == 1.0 { "" } else { "s" },
                m.duration_s * flows / MAX_SAMPLES
            ));
        }
        Ok(())
    }

    /// None: no such node; Some(None): the AP; Some(Some(kind)): wired.
    pub fn node_kind(&self, name: &str) -> Option<Option<NodeKind>> {
        if name == "ap"
            || name.strip_prefix("ap").and_then(|k| k.parse::<u32>().ok()).is_some_and(|k| k >= 1 && k < self.wlan.aps)
        {
            return Some(None);
        }
        self.nodes.iter().find(|n| n.name == name).map(|n| Some(n.kind))
    }

    fn validate_topology(&self) -> Result<(), String> {
        let mut names = std::collections::HashSet::new();
        for (i, nd) in self.nodes.iter().enumerate() {
            let ok = !nd.name.is_empty() && nd.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !ok {
                return Err(format!("nodes[{i}].name: {:?} must be non-empty letters, digits, - or _", nd.name));
            }
            let reserved = |p: &str| nd.name.strip_prefix(p).is_some_and(|k| k.is_empty() || k.parse::<u32>().is_ok());
            if reserved("ap") || reserved("sta") {
                return Err(format!("nodes[{i}].name: {:?} is reserved for WLAN members", nd.name));
            }
            if !names.insert(nd.name.as_str()) {
                return Err(format!("nodes[{i}].name: duplicate node {:?}", nd.name));
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            for (k, end) in [("a", &l.a), ("b", &l.b)] {
                if self.node_kind(end).is_none() {
                    return Err(format!("links[{i}].{k}: no node named {end:?}"));
                }
            }
            if l.a == l.b {
                return Err(format!("links[{i}].b: a link needs two different nodes"));
            }
            if !(l.rate_mbps.is_finite() && l.rate_mbps > 0.0 && l.rate_mbps <= 1e6) {
                return Err(format!("links[{i}].rate_mbps: must be in (0, 1e6], got {}", l.rate_mbps));
            }
            if !(l.delay_ms.is_finite() && l.delay_ms >= 0.0 && l.delay_ms <= 1e5) {
                return Err(format!("links[{i}].delay_ms: must be in [0, 1e5], got {}", l.delay_ms));
            }
            if l.queue_packets == 0 || l.queue_packets > 1_000_000 {
                return Err(format!("links[{i}].queue_packets: must be in 1..=1000000"));
            }
        }
        if self.ap.classes == ClassKind::Channel
            && !matches!(self.channel, Some(wifitcp_wifi::channel::ChannelConfig::Fixed(_)))
        {
            return Err(
                "ap.classes: \"channel\" needs a [channel] table with model = \"fixed\" and [[channel.classes]]".into(),
            );
        }
        self.validate_beacons_pcf()?;
        if let Some(q) = self.ap.queue_packets {
            if q == 0 || q > 1_000_000 {
                return Err(format!("ap.queue_packets: must be in 1..=1000000, got {q}"));
            }
        }
        if let Some(qd) = &self.wlan.station_qdisc {
            qd.validate(self.mac.queue_packets as usize).map_err(|e| format!("wlan.station_qdisc.{e}"))?;
        }
        if let Some(qd) = &self.ap.qdisc {
            qd.validate(self.ap_queue_packets() as usize).map_err(|e| format!("ap.qdisc.{e}"))?;
        }
        if let Some(p) = &self.ap.proxy {
            use wifitcp_pep::config::Place;
            let place = |n: &str| match (0..self.wlan_members()).position(|i| self.member_name(i) == n) {
                Some(i) if (1..=self.wlan.stations as usize).contains(&i) => Place::Station,
                Some(_) => Place::Ap,
                None if self.nodes.iter().any(|x| x.name == n) => Place::Wired,
                None => Place::Unknown,
            };
            p.validate(&self.tcp, &place).map_err(|e| format!("ap.proxy.{e}"))?;
        }
        wifitcp_tcp::scenario::build(&self.tcp).map_err(|e| format!("tcp.{e}"))?;
        Ok(())
    }

    fn validate_wlan_layout(&self) -> Result<(), String> {
        let (n, m) = (self.wlan.stations as usize, self.wlan.aps as usize);
        if m == 0 || m > 64 {
            return Err(format!("wlan.aps: must be in 1..=64, got {m}"));
        }
        if let Some(a) = &self.wlan.association {
            if a.len() != n {
                return Err(format!("wlan.association: {} entries for {n} stations", a.len()));
            }
            if let Some((i, x)) = a.iter().enumerate().find(|(_, x)| **x as usize >= m) {
                return Err(format!("wlan.association[{i}]: AP {x} does not exist (wlan.aps = {m})"));
            }
        }
        if let Some(p) = &self.wlan.ap_positions {
            if p.len() != m {
                return Err(format!("wlan.ap_positions: {} positions for {m} APs", p.len()));
            }
        }
        if let Some(c) = &self.wlan.ap_channels {
            if c.len() != m {
                return Err(format!("wlan.ap_channels: {} channels for {m} APs (wlan.aps)", c.len()));
            }
            if let Some((i, x)) = c.iter().enumerate().find(|(_, x)| !(1..=233).contains(*x)) {
                return Err(format!("wlan.ap_channels[{i}]: channel {x} is not in 1..=233"));
            }
        }
        if let Some(r) = &self.wlan.roaming {
            r.validate("wlan.roaming")?;
            if self.channel.as_ref().is_none_or(|c| c.default_tx_power_dbm().is_none()) {
                return Err(
                    "wlan.roaming: roaming compares received powers: it needs a [channel] with model \"snr\" or \"threshold\""
                        .into(),
                );
            }
            if m < 2 {
                return Err(format!("wlan.roaming: a station needs at least two APs to roam (wlan.aps = {m})"));
            }
        }
        Ok(())
    }

    /// The channel of every cell, in order of first use by AP 0, 1, ...
    /// (cell 0 is AP 0's).
    pub fn cell_channels(&self) -> Vec<u32> {
        let mut v: Vec<u32> = Vec::new();
        for k in 0..self.wlan.aps as usize {
            let ch = self.wlan.ap_channels.as_ref().map_or(1, |c| c[k]);
            if !v.contains(&ch) {
                v.push(ch);
            }
        }
        v
    }

    /// Cell of every WLAN member that is an AP (indexed by member; 0 for
    /// stations).
    pub fn cell_of_aps(&self) -> Vec<usize> {
        let chans = self.cell_channels();
        let mut v = vec![0; self.wlan_members()];
        for k in 0..self.wlan.aps as usize {
            let ch = self.wlan.ap_channels.as_ref().map_or(1, |c| c[k]);
            v[self.ap_member(k)] = chans.iter().position(|&c| c == ch).expect("listed");
        }
        v
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

    /// The HCF's keys, and the PHY/MAC pairs that go together.
    fn validate_hcf(&self, t: &PhyTiming) -> Result<(), String> {
        let m = &self.mac;
        if m.kind != MacKind::Edca {
            if let Some(k) = m.hcf_key_set() {
                return Err(format!("mac.{k}: an HCF key, but mac.kind is \"dcf\" (set mac.kind = \"edca\")"));
            }
            if t.ht.is_some() {
                return Err("mac.kind: 802.11n sends QoS Data under the HCF; set mac.kind = \"edca\"".into());
            }
            return Ok(());
        }
        if m.rts_threshold_bytes < 65535 {
            return Err(format!(
                "mac.rts_threshold_bytes: RTS/CTS is not modelled by the HCF (got {}; 65535: off)",
                m.rts_threshold_bytes
            ));
        }
        if m.backoff_rule != BackoffRule::IdleSlots
            || m.collision_restart != CollisionRestart::AckTimeoutDifs
            || m.idle_access != IdleAccess::Immediate
        {
            return Err("mac.backoff_rule: backoff_rule, collision_restart and idle_access are DCF options; the HCF follows 10.22.2".into());
        }
        let h = m;
        let win = h.block_ack_window.unwrap_or(64);
        if !(1..=64).contains(&win) {
            return Err(format!("mac.block_ack_window: the compressed bitmap covers 1 to 64 MPDUs, got {win}"));
        }
        let max = h.max_mpdus.unwrap_or(win);
        if max == 0 {
            return Err("mac.max_mpdus: at least 1".into());
        }
        if max > win {
            return Err(format!(
                "mac.max_mpdus: {max} MPDUs exceed the BlockAck agreement's buffer (mac.block_ack_window = {win})"
            ));
        }
        let bytes = h.max_ampdu_bytes.unwrap_or(65_535);
        if !(1600..=65_535).contains(&bytes) {
            return Err(format!(
                "mac.max_ampdu_bytes: must be 1600-65535 (the HT maximum A-MPDU lengths are 8191 to 65535), got {bytes}"
            ));
        }
        if let Some(x) = h.txop_limit_us {
            // 10.22.2.9: a nonzero TXOP limit must hold one frame exchange:
            // the longest MPDU (a 1500-octet IP datagram in QoS Data), SIFS
            // and its ACK.
            let mpdu = wifitcp_wire::wifi_frame::data_mpdu_len(wifitcp_wire::wifi_frame::msdu_len(1500)) + 2;
            let one = t.data_ppdu_time(mpdu) + t.sifs + t.ack_time();
            if !(x.is_finite() && (0.0..=65_535.0 * 32.0).contains(&x)) {
                return Err(format!("mac.txop_limit_us: must be 0 to 2097120 us (units of 32 us), got {x}"));
            }
            if x > 0.0 && wifitcp_core::SimDur::from_micros_f64(x) < one {
                return Err(format!(
                    "mac.txop_limit_us: {x} us is shorter than one frame exchange ({:.0} us: a 1500-octet datagram, SIFS, ACK); 0 allows one exchange",
                    one.as_micros_f64()
                ));
            }
        }
        Ok(())
    }

    fn validate_channel(&self) -> Result<(), String> {
        let n = self.wlan.stations as usize;
        if let Some(d) = self.wlan.distance_m {
            if !(d.is_finite() && d > 0.0 && d <= 1e6) {
                return Err(format!("wlan.distance_m: must be in (0, 1e6], got {d}"));
            }
            if self.wlan.positions.is_some() {
                return Err("wlan.positions: give distance_m or positions, not both".into());
            }
        }
        if let Some(p) = &self.wlan.positions {
            if p.len() != n {
                return Err(format!("wlan.positions: {} positions for {n} stations", p.len()));
            }
        }
        if let Some(c) = &self.channel {
            if self.wlan.per_uplink != 0.0 || self.wlan.per_downlink != 0.0 {
                return Err("wlan.per_uplink: use either wlan.per_* or a [channel] table, not both".into());
            }
            c.build(&|name| self.member_id(name)).map_err(|e| e.to_string())?;
            if c.default_tx_power_dbm().is_some() && self.wlan.distance_m.is_none() && self.wlan.positions.is_none() {
                return Err(
                    "wlan.distance_m: an SNR or threshold channel needs station positions (distance_m or positions)"
                        .into(),
                );
            }
        }
        Ok(())
    }

    fn validate_mobility(&self) -> Result<(), String> {
        let n = self.wlan.stations;
        let mut moved = vec![None; n as usize];
        for (i, m) in self.wlan.mobility.iter().enumerate() {
            let p = format!("wlan.mobility[{i}]");
            if self.channel.as_ref().is_none_or(|c| c.default_tx_power_dbm().is_none()) {
                return Err(format!(
                    "{p}: moving stations need a [channel] with model \"snr\" or \"threshold\" (positions matter only there)"
                ));
            }
            let list = Traffic::stations_of(&m.stations, n, &p)?;
            for k in list {
                if let Some(j) = moved[k as usize].replace(i) {
                    return Err(format!("{p}.stations: station {k} already moves by wlan.mobility[{j}]"));
                }
            }
            m.validate(&p, self.scenario.duration_s)?;
        }
        Ok(())
    }

    /// Class of each BSS member for the APs' queue disciplines.
    pub fn ap_classes(&self) -> Vec<u32> {
        let members = self.wlan_members();
        match (self.ap.classes, &self.channel) {
            (ClassKind::Channel, Some(wifitcp_wifi::channel::ChannelConfig::Fixed(f))) => {
                let mut v = vec![0u32; members];
                for (ci, c) in f.classes.iter().enumerate() {
                    for name in &c.stations {
                        if let Some(id) = self.member_id(name) {
                            v[id.0 as usize] = ci as u32 + 1;
                        }
                    }
                }
                v
            }
            _ => (0..members as u32).collect(),
        }
    }

    /// Channel node id (= BSS index) of a WLAN member's name.
    pub fn member_id(&self, name: &str) -> Option<wifitcp_core::NodeId> {
        (0..self.wlan_members()).find(|&i| self.member_name(i) == name).map(|i| wifitcp_core::NodeId(i as u32))
    }

    pub fn ap_queue_packets(&self) -> u32 {
        self.ap.queue_packets.unwrap_or(self.mac.queue_packets)
    }

    /// The scenario with every default filled in, as JSON.
    pub fn normalized_json(&self) -> String {
        let mut s = self.clone();
        let t = self.timing().expect("validated");
        s.mac.cw_min = Some(self.mac.cw_min.unwrap_or(t.cw_min_default));
        s.mac.cw_max = Some(self.mac.cw_max.unwrap_or(t.cw_max_default));
        serde_json::to_string(&s).expect("serialisable")
    }
}
