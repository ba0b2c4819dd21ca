//! PyO3 bindings: the Python module `wifitcp._core`.
//!
//! Only thin wrappers over `wifitcp_sim::api` live here: every call takes
//! and returns JSON text, and Python is never called back per event.
//! Error mapping: `ApiError::Config` -> `ValueError` (message is
//! "dotted.path: reason"), `ApiError::Run` -> `RuntimeError`.

// pyo3 0.22's `#[pyfunction]` expansion converts a returned `PyResult`'s
// error into `PyErr` again, which clippy reports at the call site.
#![allow(clippy::useless_conversion)]

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use wifitcp_sim::api::{self, ApiError};

mod network;

fn to_py(err: ApiError) -> PyErr {
    match err {
        ApiError::Config(msg) => PyValueError::new_err(msg),
        ApiError::Run(msg) => PyRuntimeError::new_err(msg),
    }
}

/// Version of the simulator core (the Rust workspace version).
#[pyfunction]
fn version() -> &'static str {
    api::VERSION
}

/// Validate a scenario given as JSON; return it normalised with every
/// default filled in. Raises ValueError("dotted.path: reason") if invalid.
#[pyfunction]
fn check_config(py: Python<'_>, json: &str) -> PyResult<String> {
    py.allow_threads(|| api::check_config_json(json)).map_err(to_py)
}

/// Run one scenario (JSON) with one seed; returns the result JSON.
/// The GIL is released for the whole run.
#[pyfunction]
fn run(py: Python<'_>, json: &str, seed: u64) -> PyResult<String> {
    py.allow_threads(|| api::run_json(json, seed)).map_err(to_py)
}

/// PHY/MAC timing the simulator uses for a data frame carrying
/// `msdu_bytes` (JSON), for analytical models.
#[pyfunction]
fn phy_timing(py: Python<'_>, json: &str, msdu_bytes: u32) -> PyResult<String> {
    py.allow_threads(|| api::phy_timing_json(json, msdu_bytes)).map_err(to_py)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(check_config, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(phy_timing, m)?)?;
    m.add_class::<network::Network>()?;
    m.add("__version__", api::VERSION)?;
    Ok(())
}
