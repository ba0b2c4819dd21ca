//! The scenario schema: one typed description of a run. Unknown keys are
//! errors (`deny_unknown_fields`); every error names its dotted path.
//!
//! Python strips `scenario.seeds` and `[sweep]` (sweep expansion is its
//! job) and hands the rest here as JSON.
use serde::{Deserialize, Serialize};
use wifitcp_core::ConfigError;
pub use wifitcp_tcp::cc::{CcConfig, CcName};
pub use wifitcp_tcp::scenario::{RecoveryKind, TcpCommon, TcpSection};
use wifitcp_wifi::phy::{PhyConfig, PhyTiming};

/// "all" stations (the default of a `stations` key).
pub(crate) use crate::apps::config::d_all;
pub use crate::apps::config::{Direction, OnOffDistribution, Traffic, TrafficCommon, TrafficKind, MIN_UDP_MSDU};
pub use wifitcp_pep::config::{ProxyConfig, ProxyKind};

pub mod deployment;
mod errpath;
pub(crate) mod flat;
pub mod mac;
pub mod mobility;
pub mod roaming;
pub mod schema;
pub mod wlan;

pub use mac::{AcName, AckPolicyConfig, BackoffRule, CollisionRestart, IdleAccess, MacCommon, MacConfig, PollMode};
pub use wlan::WlanConfig;

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub scenario: Meta,
    pub phy: PhyConfig,
    #[serde(default)]
    pub mac: MacConfig,
    pub wlan: WlanConfig,
    /// A campus layout that derives the `wlan` keys of APs, channels and
    /// stations (`[deployment]`, config/deployment.rs); not serialised
    /// when absent, so results without it are unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployment: Option<deployment::DeploymentConfig>,
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
    /// Threads of the run (`world::part`, `world::window`): 1, the
    /// caller's; 0, one per core; N, N threads. Cells that share nothing
    /// run as partitions whatever the value; cells joined by wired links
    /// run in windows on 2 threads or more. Results are the same for
    /// every value.
    /// (`None`: 1; not written out then, so a normalised scenario without
    /// the key is what it was before the key existed.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
}
fn d_bin() -> f64 {
    1.0
}
fn default_duration() -> f64 {
    10.0
}

/// Beacon interval default: 100 TU = 102.4 ms.
pub const D_BEACON_INTERVAL_TU: u32 = 100;

/// Most goodput samples of a run, over all its flows (`duration_s /
/// sample_interval_s` per flow): 2e6 samples make a result of about 36 MB
/// that the core writes in about 1.5 s; more (1e6 s sampled every 0.1 s:
/// 1e7 per flow) make a result of gigabytes that takes longer to write
/// than the run to simulate.
pub const MAX_SAMPLES: f64 = 2e6;

impl Scenario {
    /// Parse and validate; errors are "dotted.path: reason".
    pub fn from_json(json: &str) -> Result<Scenario, ConfigError> {
        // Ranges first (and unknown keys of qdisc/channel tables at the
        // key): a document that is not JSON is reported by the parse below.
        let doc = serde_json::from_str::<serde_json::Value>(json).ok();
        if let Some(doc) = &doc {
            schema::check_ranges(doc)?;
        }
        let de = &mut serde_json::Deserializer::from_str(json);
        let mut s: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner().to_string();
            // serde_json appends " at line L column C" which means nothing to a TOML user.
            let msg = match inner.find(" at line ") {
                Some(i) => inner[..i].to_string(),
                None => inner,
            };
            let (path, msg) = match &doc {
                Some(doc) => errpath::refine(doc, path, msg),
                None => (path, msg),
            };
            if path == "." {
                ConfigError::new("", msg)
            } else {
                ConfigError::new(path, msg)
            }
        })?;
        s.apply_deployment()?;
        s.validate()?;
        Ok(s)
    }

    /// The PHY timing. Without `phy.control_rate_mbps` each control
    /// response goes at 10.6.6.5.2's rate for the frame that elicits it
    /// (`PhyTiming::response_rate`), also under rate adaptation, where the
    /// data frames' rates vary.
    pub fn timing(&self) -> Result<PhyTiming, ConfigError> {
        PhyTiming::from_config(&self.phy)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        let m = &self.scenario;
        if m.name.trim().is_empty() {
            return Err(ConfigError::new("scenario.name", "must not be empty"));
        }
        if !(m.duration_s.is_finite() && m.duration_s > 0.0 && m.duration_s <= 1e6) {
            return Err(ConfigError::new("scenario.duration_s", format!("must be in (0, 1e6], got {}", m.duration_s)));
        }
        if !(m.warmup_s.is_finite() && m.warmup_s >= 0.0 && m.warmup_s < m.duration_s) {
            return Err(ConfigError::new(
                "scenario.warmup_s",
                format!("must be in [0, duration_s), got {}", m.warmup_s),
            ));
        }
        if !(m.sample_interval_s.is_finite() && m.sample_interval_s >= 1e-3) {
            return Err(ConfigError::new(
                "scenario.sample_interval_s",
                format!("must be at least 0.001, got {}", m.sample_interval_s),
            ));
        }
        if let Some(t) = m.threads.filter(|&t| t > 1024) {
            return Err(ConfigError::new("scenario.threads", format!("must be in [0, 1024], got {t}")));
        }
        let t = self.timing()?;
        self.validate_mac(&t)?;
        self.validate_wlan()?;
        self.validate_wlan_layout()?;
        self.validate_topology()?;
        self.validate_channel()?;
        self.validate_mobility()?;
        crate::apps::config::validate(self)?;
        self.validate_samples()
    }

    /// The goodput series of every flow fit in a result that takes seconds,
    /// not minutes, to write (`MAX_SAMPLES`).
    fn validate_samples(&self) -> Result<(), ConfigError> {
        let m = &self.scenario;
        let n = self.wlan.stations;
        let flows: usize = self.traffic.iter().map(|t| t.station_list(n, "").map_or(0, |v| v.len())).sum();
        let flows = flows.max(1) as f64;
        let samples = m.duration_s / m.sample_interval_s * flows;
        if samples > MAX_SAMPLES {
            return Err(ConfigError::new(
                "scenario.sample_interval_s",
                format!(
                    "{} s over duration_s = {} s for {flows} flow{} gives {samples:.0} \
                 goodput samples, more than {MAX_SAMPLES:.0}: raise it to at least {} s",
                    m.sample_interval_s,
                    m.duration_s,
                    if flows == 1.0 { "" } else { "s" },
                    m.duration_s * flows / MAX_SAMPLES
                ),
            ));
        }
        Ok(())
    }

    /// Each flow of traffic entry `t` (at `path`) as (station index, peer
    /// name), `peer = "own_ap"` resolved to the station's own AP.
    pub fn flow_peers(&self, t: &Traffic, path: &str) -> Result<Vec<(u32, String)>, ConfigError> {
        let list = t.station_list(self.wlan.stations, path)?;
        let peers = t.peers(list.len(), path)?;
        let ap_of = peers.iter().any(|x| x == crate::apps::config::OWN_AP).then(|| self.ap_of_members());
        Ok(list
            .into_iter()
            .zip(peers)
            .map(|(st, peer)| match &ap_of {
                Some(a) if peer == crate::apps::config::OWN_AP => (st, self.member_name(a[st as usize + 1])),
                _ => (st, peer),
            })
            .collect())
    }

    /// What a node name names: `Some(None)` an AP, `Some(Some(kind))` a
    /// `[[nodes]]` entry, `None` nothing.
    pub fn node_kind(&self, name: &str) -> Option<Option<NodeKind>> {
        if name == "ap"
            || name.strip_prefix("ap").and_then(|k| k.parse::<u32>().ok()).is_some_and(|k| k >= 1 && k < self.wlan.aps)
        {
            return Some(None);
        }
        self.nodes.iter().find(|n| n.name == name).map(|n| Some(n.kind))
    }

    fn validate_topology(&self) -> Result<(), ConfigError> {
        let mut names = std::collections::HashSet::new();
        for (i, nd) in self.nodes.iter().enumerate() {
            let ok = !nd.name.is_empty() && nd.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !ok {
                return Err(ConfigError::new(
                    format!("nodes[{i}].name"),
                    format!("{:?} must be non-empty letters, digits, - or _", nd.name),
                ));
            }
            let reserved = |p: &str| nd.name.strip_prefix(p).is_some_and(|k| k.is_empty() || k.parse::<u32>().is_ok());
            if reserved("ap") || reserved("sta") {
                return Err(ConfigError::new(
                    format!("nodes[{i}].name"),
                    format!("{:?} is reserved for WLAN members", nd.name),
                ));
            }
            if !names.insert(nd.name.as_str()) {
                return Err(ConfigError::new(format!("nodes[{i}].name"), format!("duplicate node {:?}", nd.name)));
            }
        }
        for (i, l) in self.links.iter().enumerate() {
            for (k, end) in [("a", &l.a), ("b", &l.b)] {
                if self.node_kind(end).is_none() {
                    return Err(ConfigError::new(format!("links[{i}].{k}"), format!("no node named {end:?}")));
                }
            }
            if l.a == l.b {
                return Err(ConfigError::new(format!("links[{i}].b"), "a link needs two different nodes"));
            }
            if !(l.rate_mbps.is_finite() && l.rate_mbps > 0.0 && l.rate_mbps <= 1e6) {
                return Err(ConfigError::new(
                    format!("links[{i}].rate_mbps"),
                    format!("must be in (0, 1e6], got {}", l.rate_mbps),
                ));
            }
            if !(l.delay_ms.is_finite() && l.delay_ms >= 0.0 && l.delay_ms <= 1e5) {
                return Err(ConfigError::new(
                    format!("links[{i}].delay_ms"),
                    format!("must be in [0, 1e5], got {}", l.delay_ms),
                ));
            }
            if l.queue_packets == 0 || l.queue_packets > 1_000_000 {
                return Err(ConfigError::new(format!("links[{i}].queue_packets"), "must be in 1..=1000000"));
            }
        }
        if self.ap.classes == ClassKind::Channel
            && !matches!(self.channel, Some(wifitcp_wifi::channel::ChannelConfig::Fixed(_)))
        {
            return Err(ConfigError::new(
                "ap.classes",
                "\"channel\" needs a [channel] table with model = \"fixed\" and [[channel.classes]]",
            ));
        }
        let bi = self.ap.beacon_interval_tu.unwrap_or(D_BEACON_INTERVAL_TU);
        if bi == 0 || bi > 65535 {
            return Err(ConfigError::new("ap.beacon_interval_tu", format!("must be in 1..=65535 TU, got {bi}")));
        }
        if let Some(q) = self.ap.queue_packets {
            if q == 0 || q > 1_000_000 {
                return Err(ConfigError::new("ap.queue_packets", format!("must be in 1..=1000000, got {q}")));
            }
        }
        if let Some(qd) = &self.wlan.station_qdisc {
            qd.validate(self.mac.common.queue_packets as usize).map_err(|e| e.under("wlan.station_qdisc"))?;
        }
        if let Some(qd) = &self.ap.qdisc {
            qd.validate(self.ap_queue_packets() as usize).map_err(|e| e.under("ap.qdisc"))?;
        }
        if let Some(p) = &self.ap.proxy {
            use wifitcp_pep::config::Place;
            let place = |n: &str| match (0..self.wlan_members()).position(|i| self.member_name(i) == n) {
                Some(i) if (1..=self.wlan.stations as usize).contains(&i) => Place::Station,
                Some(_) => Place::Ap,
                None if self.nodes.iter().any(|x| x.name == n) => Place::Wired,
                None => Place::Unknown,
            };
            p.validate(&self.tcp, &place).map_err(|e| e.under("ap.proxy"))?;
        }
        wifitcp_tcp::scenario::build(&self.tcp).map_err(|e| e.under("tcp"))?;
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

    pub fn ap_queue_packets(&self) -> u32 {
        self.ap.queue_packets.unwrap_or(self.mac.common.queue_packets)
    }

    /// The scenario with every default filled in, as JSON.
    pub fn normalized_json(&self) -> String {
        let mut s = self.clone();
        let t = self.timing().expect("validated");
        s.mac.common.cw_min = Some(self.mac.common.cw_min.unwrap_or(t.cw_min_default));
        s.mac.common.cw_max = Some(self.mac.common.cw_max.unwrap_or(t.cw_max_default));
        serde_json::to_string(&s).expect("serialisable")
    }
}
