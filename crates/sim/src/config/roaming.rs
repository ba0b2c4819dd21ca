//! `[wlan.roaming]`: stations that leave a weakening AP for a stronger one
//! (the run-time side is `world/roam.rs`), and `wlan.ap_channels`, which
//! puts APs on channels (one cell per channel).
//!
//! ```toml
//! [wlan]
//! aps = 2
//! ap_channels = [1, 6]          # default: every AP on one channel (one cell)
//!
//! [wlan.roaming]
//! threshold_dbm = -50.0          # required: look for another AP below this
//! hysteresis_db = 5.0            # default 5: the new AP must be this much stronger
//! check_interval_ms = 102.4      # default: the beacon interval, 100 TU
//! scan = "passive"               # or "active" (probe requests)
//! # scan_time_ms = 204.8         # default: passive 102.4 ms per channel, active 20 ms per channel
//! queued = "drop"                # frames queued at the old AP: "drop" or "forward"
//! reroute = "l2_update"          # or "home_agent" (Mobile IPv4-like tunnel)
//! ```
//!
//! Which IEEE 802.11 rules these follow, and where they deviate, is written
//! beside the run-time code (`world/roam.rs`).
use serde::{Deserialize, Serialize};
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::In;
use wifitcp_core::schema::{k, r, Key};
use wifitcp_core::ConfigError;

/// How a station looks for APs (802.11-2020 11.1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScanKind {
    /// Listen for beacons on every channel (11.1.4.2).
    Passive,
    /// Send probe requests on every channel and wait for responses (11.1.4.3).
    Active,
}

/// What becomes of the frames the old AP still queues for a station that
/// reassociated elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueuedAtOldAp {
    /// Discarded, counted as `DropReason::Handoff` (ns-2's Mobile IP: the
    /// old base station's interface queue is lost).
    Drop,
    /// Sent on over the wired network to the new AP (an IAPP-like move of
    /// the buffered frames, as 802.11F proposed).
    Forward,
}

/// How the wired side learns where a station went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reroute {
    /// The new AP announces the station on the wire (a layer-2 update
    /// frame, 802.11F / IEEE 802.1D learning): from the reassociation on,
    /// every wired node's route to the station leads to the new AP.
    L2Update,
    /// Mobile IPv4-like (RFC 5944): the station's first AP is its home
    /// agent; wired nodes keep routing to it, and from the reassociation
    /// on it tunnels the station's packets over the wired network to the
    /// AP it is with (the foreign agent). The station's own packets go
    /// straight from the foreign AP (no reverse tunnel).
    HomeAgent,
}

/// `[wlan.roaming]`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoamingConfig {
    /// Beacon power (dBm) of the serving AP below which a station scans.
    pub threshold_dbm: f64,
    #[serde(default = "d_hysteresis")]
    pub hysteresis_db: f64,
    #[serde(default = "d_interval")]
    pub check_interval_ms: f64,
    #[serde(default = "d_scan")]
    pub scan: ScanKind,
    #[serde(default)]
    pub scan_time_ms: Option<f64>,
    #[serde(default = "d_queued")]
    pub queued: QueuedAtOldAp,
    #[serde(default = "d_reroute")]
    pub reroute: Reroute,
}

fn d_hysteresis() -> f64 {
    5.0
}
/// dot11BeaconPeriod's usual 100 TU (1 TU = 1024 us).
fn d_interval() -> f64 {
    102.4
}
fn d_scan() -> ScanKind {
    ScanKind::Passive
}
fn d_queued() -> QueuedAtOldAp {
    QueuedAtOldAp::Drop
}
fn d_reroute() -> Reroute {
    Reroute::L2Update
}

impl RoamingConfig {
    /// Time a station is away from any AP while it scans `channels`
    /// channels and reassociates: `scan_time_ms`, or by default one beacon
    /// interval per channel (passive: a beacon is heard at most one beacon
    /// interval after arriving on a channel) or 20 ms per channel (active:
    /// ProbeDelay + MaxChannelTime, an implementation's choice the standard
    /// leaves open; 20 ms is ours).
    pub fn scan_time_s(&self, channels: usize) -> f64 {
        let per = match self.scan {
            ScanKind::Passive => self.check_interval_ms,
            ScanKind::Active => 20.0,
        };
        self.scan_time_ms.unwrap_or(per * channels as f64) / 1e3
    }

    pub fn validate(&self, p: &str) -> Result<(), ConfigError> {
        if !(self.threshold_dbm.is_finite() && (-200.0..=100.0).contains(&self.threshold_dbm)) {
            return Err(ConfigError::new(
                format!("{p}.threshold_dbm"),
                format!("must be in [-200, 100] dBm, got {}", self.threshold_dbm),
            ));
        }
        if !(self.hysteresis_db.is_finite() && (0.0..=100.0).contains(&self.hysteresis_db)) {
            return Err(ConfigError::new(
                format!("{p}.hysteresis_db"),
                format!("must be in [0, 100] dB, got {}", self.hysteresis_db),
            ));
        }
        if !(self.check_interval_ms.is_finite() && self.check_interval_ms >= 1.0 && self.check_interval_ms <= 1e6) {
            return Err(ConfigError::new(
                format!("{p}.check_interval_ms"),
                format!("must be in [1, 1e6] ms, got {}", self.check_interval_ms),
            ));
        }
        if let Some(t) = self.scan_time_ms {
            if !(t.is_finite() && (0.0..=1e6).contains(&t)) {
                return Err(ConfigError::new(format!("{p}.scan_time_ms"), format!("must be in [0, 1e6] ms, got {t}")));
            }
        }
        Ok(())
    }
}

/// The `[wlan.roaming]` table's keys, relative to it (mounted by
/// `super::wlan::keys`).
pub static KEYS: &[Key] = &[
    k("threshold_dbm", Float, "required", r(In(-200.0), In(100.0)), "dBm", "Scan below this AP power."),
    k("hysteresis_db", Float, "5.0", r(In(0.0), In(100.0)), "dB", "New AP stronger by at least this."),
    k("check_interval_ms", Float, "102.4", r(In(1.0), In(1e6)), "ms", "Signal check (beacon) interval."),
    k("scan", Str, "\"passive\"", None, "", "\"passive\" (beacons) or \"active\" (probes)."),
    k(
        "scan_time_ms",
        Float,
        "passive 102.4, active 20 per channel",
        r(In(0.0), In(1e6)),
        "ms",
        "Time without an AP per hand-off.",
    ),
    k("queued", Str, "\"drop\"", None, "", "Frames left at the old AP: \"drop\" or \"forward\"."),
    k("reroute", Str, "\"l2_update\"", None, "", "Wired side: \"l2_update\" or \"home_agent\"."),
];
