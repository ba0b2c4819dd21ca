//! PyO3 bindings: the Python module `wifitcp._core`.
//!
//! Only thin wrappers over `wifitcp_sim::api` live here: every call takes
//! and returns JSON text, and Python is never called back per event.
//! Error mapping: `ApiError::Config` -> `ValueError` (message is
//! "dotted.path: reason"), `ApiError::Run` -> `RuntimeError`.
//!
//! `run` steps the simulation in chunks of simulated time
//! (`api::run_json_chunked`, about 50 ms of wall time each) with the GIL
//! released; between chunks it takes the GIL to run pending signal
//! handlers (`Python::check_signals`: Ctrl-C raises `KeyboardInterrupt`
//! within a chunk's time, not at the end of the run) and to call the
//! optional progress callback.

// pyo3 0.22's `#[pyfunction]` expansion converts a returned `PyResult`'s
// error into `PyErr` again, which clippy reports at the call site.
#![allow(clippy::useless_conversion)]

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use wifitcp_sim::api::{self, ApiError};

mod emulate;
mod network;

fn to_py(err: ApiError) -> PyErr {
    match err {
        ApiError::Config(e) => PyValueError::new_err(e.to_string()),
        ApiError::Run(msg) => PyRuntimeError::new_err(msg),
    }
}

/// Version of the simulator core (the Rust workspace version).
#[pyfunction]
fn version() -> &'static str {
    api::VERSION
}

/// The git commit this extension was built from (full hash), or "unknown"
/// when it was built outside a git work tree (crates/py/build.rs).
#[pyfunction]
fn build_commit() -> &'static str {
    env!("WIFITCP_GIT_COMMIT")
}

/// Validate a scenario given as JSON; return it normalised with every
/// default filled in. Raises ValueError("dotted.path: reason") if invalid.
#[pyfunction]
fn check_config(py: Python<'_>, json: &str) -> PyResult<String> {
    py.allow_threads(|| api::check_config_json(json)).map_err(to_py)
}

/// Run one scenario (JSON) with one seed; returns the result JSON.
/// The GIL is released while the simulation runs; between chunks of about
/// 50 ms of wall time pending signals are handled (a KeyboardInterrupt
/// stops the run) and `progress(sim_s, end_s, events, wall_s)` is called
/// if given (an exception it raises stops the run and is re-raised).
/// `pcap`: a directory to write one pcap file per interface into;
/// `trace`: a directory to write the per-packet trace (`packets.parquet`) into.
#[pyfunction]
#[pyo3(signature = (json, seed, progress=None, pcap=None, trace=None))]
fn run(
    py: Python<'_>,
    json: &str,
    seed: u64,
    progress: Option<PyObject>,
    pcap: Option<String>,
    trace: Option<String>,
) -> PyResult<String> {
    let mut failure: Option<PyErr> = None;
    let opts = api::RunOptions {
        pcap_dir: pcap.map(std::path::PathBuf::from),
        trace_dir: trace.map(std::path::PathBuf::from),
    };
    let got = py.allow_threads(|| {
        api::run_json_with(json, seed, &opts, api::CHUNK_WALL, |p| {
            Python::with_gil(|py| {
                let step = py.check_signals().and_then(|()| match &progress {
                    Some(cb) => cb.call1(py, (p.sim_s, p.end_s, p.events, p.wall_s)).map(drop),
                    None => Ok(()),
                });
                match step {
                    Ok(()) => api::Control::Continue,
                    Err(e) => {
                        failure = Some(e);
                        api::Control::Stop
                    }
                }
            })
        })
    });
    match (got, failure) {
        (Ok(Some(text)), _) => Ok(text),
        (Ok(None), Some(e)) => Err(e),
        (Ok(None), None) => Err(PyRuntimeError::new_err("the run was stopped")),
        (Err(e), _) => Err(to_py(e)),
    }
}

/// The scenario schema (every key, type, default, range, unit) as JSON.
#[pyfunction]
fn schema() -> String {
    api::schema_json()
}

/// PHY/MAC timing the simulator uses for a data frame carrying
/// `msdu_bytes` (JSON), for analytical models.
#[pyfunction]
fn phy_timing(py: Python<'_>, json: &str, msdu_bytes: u32) -> PyResult<String> {
    py.allow_threads(|| api::phy_timing_json(json, msdu_bytes)).map_err(to_py)
}

/// Airtime of an 802.11n A-MPDU exchange (JSON in, JSON out), for the
/// aggregation model.
#[pyfunction]
fn ht_ampdu_timing(py: Python<'_>, json: &str) -> PyResult<String> {
    py.allow_threads(|| api::ht_ampdu_timing_json(json)).map_err(to_py)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(build_commit, m)?)?;
    m.add_function(wrap_pyfunction!(check_config, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(phy_timing, m)?)?;
    m.add_function(wrap_pyfunction!(ht_ampdu_timing, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_class::<network::Network>()?;
    m.add_function(wrap_pyfunction!(emulate::emulate, m)?)?;
    m.add_function(wrap_pyfunction!(emulate::emu_open_tun, m)?)?;
    m.add("__version__", api::VERSION)?;
    Ok(())
}
