//! The string-in, string-out API the Python bindings call. One call per run:
//! Python is never called per event.

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
    let _ = json;
    Err(ApiError::Run("not implemented yet".into()))
}

/// Run one scenario with one seed; returns the result JSON.
pub fn run_json(json: &str, seed: u64) -> Result<String, ApiError> {
    let _ = (json, seed);
    Err(ApiError::Run("not implemented yet".into()))
}

/// Derived PHY/MAC timing of a scenario for data frames carrying
/// `msdu_bytes`, as the simulator uses it (for analytical models).
pub fn phy_timing_json(json: &str, msdu_bytes: u32) -> Result<String, ApiError> {
    let _ = (json, msdu_bytes);
    Err(ApiError::Run("not implemented yet".into()))
}
