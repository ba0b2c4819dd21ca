//! The string-in, string-out API the Python bindings call. One call per run:
//! Python is never called per event.
use crate::config::Scenario;
use crate::world::World;
use serde_json::json;
use wifitcp_wire::wifi_frame::{data_mpdu_len, ACK_LEN, CTS_LEN, RTS_LEN};

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Why an API call failed.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// The configuration is invalid: "dotted.path: reason".
    Config(String),
    /// The run failed (for example the packet ledger did not balance).
    Run(String),
}

/// Validate a scenario (JSON of the TOML document without `[sweep]` and
/// `scenario.seeds`) and return it normalised, with every default filled in.
pub fn check_config_json(json: &str) -> Result<String, ApiError> {
    let s = Scenario::from_json(json).map_err(ApiError::Config)?;
    Ok(s.normalized_json())
}

/// Run one scenario with one seed; returns the result JSON.
pub fn run_json(json: &str, seed: u64) -> Result<String, ApiError> {
    let s = Scenario::from_json(json).map_err(ApiError::Config)?;
    let wall = std::time::Instant::now();
    let w = World::build(&s, seed).map_err(ApiError::Config)?;
    let mut r = w.run(wall).map_err(ApiError::Run)?;
    r.json["scenario"] = json!(s.scenario.name);
    r.json["seed"] = json!(seed);
    r.json["version"] = json!(VERSION);
    Ok(r.json.to_string())
}

/// Derived PHY/MAC timing of a scenario for data frames carrying
/// `msdu_bytes`, as the simulator uses it (for analytical models).
pub fn phy_timing_json(json: &str, msdu_bytes: u32) -> Result<String, ApiError> {
    let s = Scenario::from_json(json).map_err(ApiError::Config)?;
    let t = s.timing().map_err(ApiError::Config)?;
    let mpdu = data_mpdu_len(msdu_bytes);
    let ns = |d: wifitcp_core::SimDur| d.as_nanos();
    Ok(json!({
        "slot_ns": ns(t.slot), "sifs_ns": ns(t.sifs), "difs_ns": ns(t.difs), "eifs_ns": ns(t.eifs),
        "ack_timeout_ns": ns(t.ack_timeout()), "cts_timeout_ns": ns(t.ack_timeout()),
        "data_ns": ns(t.data_time(mpdu)),
        "ack_ns": ns(t.tx_time(ACK_LEN, t.control_rate)),
        "rts_ns": ns(t.tx_time(RTS_LEN, t.control_rate)),
        "cts_ns": ns(t.tx_time(CTS_LEN, t.control_rate)),
        "cw_min": s.mac.cw_min.unwrap_or(t.cw_min_default),
        "cw_max": s.mac.cw_max.unwrap_or(t.cw_max_default),
        "short_retry_limit": s.mac.short_retry_limit,
        "long_retry_limit": s.mac.long_retry_limit,
        "rts_threshold_bytes": s.mac.rts_threshold_bytes,
        "data_rate_mbps": t.data_rate.mbps(),
        "control_rate_mbps": t.control_rate.mbps(),
        "mpdu_bytes": mpdu,
        "msdu_bytes": msdu_bytes,
    })
    .to_string())
}
