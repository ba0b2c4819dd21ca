//! The scenario schema: one typed description of a run. Unknown keys are
//! errors (`deny_unknown_fields`); every error names its dotted path.
//!
//! Python strips `scenario.seeds` and `[sweep]` (sweep expansion is its
//! job) and hands the rest here as JSON.
use serde::{Deserialize, Serialize};
use wifitcp_wifi::phy::{PhyConfig, PhyTiming};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub scenario: Meta,
    pub phy: PhyConfig,
    #[serde(default)]
    pub mac: MacConfig,
    pub wlan: WlanConfig,
    #[serde(default)]
    pub traffic: Vec<Traffic>,
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
        MacConfig { cw_min: None, cw_max: None, short_retry_limit: 7, long_retry_limit: 4, rts_threshold_bytes: 65535, queue_packets: 50, backoff_rule: BackoffRule::IdleSlots, collision_restart: CollisionRestart::AckTimeoutDifs }
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TrafficKind {
    Udp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Always a packet waiting at the MAC.
    Saturated,
    /// Constant bit rate.
    Cbr,
    /// Poisson arrivals.
    Poisson,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Station to AP.
    Uplink,
    /// AP to station.
    Downlink,
}

/// `[[traffic]]`: one flow per selected station.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Traffic {
    pub name: String,
    pub kind: TrafficKind,
    #[serde(default = "d_pattern")]
    pub pattern: Pattern,
    #[serde(default = "d_dir")]
    pub direction: Direction,
    /// "all" or a list of station indices (0-based).
    #[serde(default = "d_all")]
    pub stations: serde_json::Value,
    /// MSDU bytes: LLC/SNAP (8) + IPv4 (20) + UDP (8) + payload.
    #[serde(default = "d_msdu")]
    pub msdu_bytes: u32,
    /// Offered load per flow in MSDU Mbit/s (cbr, poisson).
    #[serde(default)]
    pub rate_mbps: Option<f64>,
    #[serde(default)]
    pub start_s: f64,
    #[serde(default)]
    pub stop_s: Option<f64>,
}
fn d_pattern() -> Pattern {
    Pattern::Saturated
}
fn d_dir() -> Direction {
    Direction::Uplink
}
fn d_all() -> serde_json::Value {
    serde_json::Value::String("all".into())
}
fn d_msdu() -> u32 {
    1500
}

/// Smallest MSDU that holds LLC/SNAP + IPv4 + UDP headers.
pub const MIN_UDP_MSDU: u32 = 8 + 20 + 8;

impl Traffic {
    /// Selected station indices (0-based), validated against `n`.
    pub fn station_list(&self, n: u32, path: &str) -> Result<Vec<u32>, String> {
        match &self.stations {
            serde_json::Value::String(s) if s == "all" => Ok((0..n).collect()),
            serde_json::Value::Array(a) => {
                let mut v = Vec::new();
                for (i, x) in a.iter().enumerate() {
                    let k = x.as_u64().ok_or_else(|| format!("{path}.stations[{i}]: expected a station index, got {x}"))?;
                    if k >= n as u64 {
                        return Err(format!("{path}.stations[{i}]: station {k} does not exist (wlan.stations = {n})"));
                    }
                    v.push(k as u32);
                }
                Ok(v)
            }
            other => Err(format!("{path}.stations: expected \"all\" or a list of station indices, got {other}")),
        }
    }
}

impl Scenario {
    /// Parse and validate; errors are "dotted.path: reason".
    pub fn from_json(json: &str) -> Result<Scenario, String> {
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

    pub fn timing(&self) -> Result<PhyTiming, String> {
        PhyTiming::from_config(&self.phy)
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
        if self.mac.short_retry_limit > 255 {
            return Err("mac.short_retry_limit: must be at most 255".into());
        }
        if self.mac.long_retry_limit > 255 {
            return Err("mac.long_retry_limit: must be at most 255".into());
        }
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
        let mut names = std::collections::HashSet::new();
        for (i, tr) in self.traffic.iter().enumerate() {
            let p = format!("traffic[{i}]");
            if tr.name.is_empty() || tr.name.contains('/') {
                return Err(format!("{p}.name: must be non-empty and contain no '/'"));
            }
            if !names.insert(tr.name.clone()) {
                return Err(format!("{p}.name: duplicate traffic name {:?}", tr.name));
            }
            tr.station_list(n, &p)?;
            if tr.msdu_bytes < MIN_UDP_MSDU || tr.msdu_bytes > 2304 {
                return Err(format!("{p}.msdu_bytes: must be in {MIN_UDP_MSDU}..=2304 (802.11 maximum MSDU), got {}", tr.msdu_bytes));
            }
            match (tr.pattern, tr.rate_mbps) {
                (Pattern::Saturated, Some(_)) => return Err(format!("{p}.rate_mbps: not used by a saturated source")),
                (Pattern::Cbr | Pattern::Poisson, None) => return Err(format!("{p}.rate_mbps: required for pattern {:?}", tr.pattern)),
                (_, Some(r)) if !(r.is_finite() && r > 0.0) => return Err(format!("{p}.rate_mbps: must be positive, got {r}")),
                _ => {}
            }
            if !(tr.start_s.is_finite() && tr.start_s >= 0.0) {
                return Err(format!("{p}.start_s: must be >= 0"));
            }
            if let Some(s) = tr.stop_s {
                if !(s.is_finite() && s > tr.start_s) {
                    return Err(format!("{p}.stop_s: must be after start_s"));
                }
            }
        }
        Ok(())
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
