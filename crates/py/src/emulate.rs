//! `wifitcp._core.emu_open_tun` and `wifitcp._core.emulate`: the real-time
//! emulator (crates/emu) for `wifitcp emulate` (python/wifitcp/emulate.py,
//! which creates the namespaces and runs the commands).
//!
//! The loop runs in the calling thread with the GIL released; it stops at
//! the scenario's end or when `stop_fd` becomes readable (Python writes to
//! it on a signal or when it must abort).
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::os::fd::{FromRawFd, IntoRawFd, OwnedFd};
use wifitcp_core::SimDur;
use wifitcp_emu::{sys::Tun, Options, Port};
use wifitcp_sim::world::World;
use wifitcp_sim::Scenario;

/// Create TUN interface `name` (layer 3, no packet information) in the
/// caller's network namespace; returns its descriptor (close-on-exec). The
/// interface disappears when the last descriptor is closed.
#[pyfunction]
pub fn emu_open_tun(name: &str) -> PyResult<i32> {
    let t = Tun::create(name).map_err(|e| PyOSError::new_err(format!("{name}: {e}")))?;
    Ok(t.into_fd().into_raw_fd())
}

/// Run the emulation of scenario `json` (seed `seed`); `ports` lists
/// (node name, interface name, TUN descriptor), the descriptors are taken
/// over (closed when the run ends); `realtime`: run the loop under
/// SCHED_FIFO when permitted; `measure_until_s`: the flows' goodput counts
/// deliveries up to this instant (default the end); `end_fd`: a descriptor
/// that becomes readable when the run is to end now, normally (the run
/// stays valid; its end is brought forward). Returns the result JSON.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (json, seed, ports, stop_fd=None, max_lag_ms=None, log_dir=None, pcap=None, realtime=true, measure_until_s=None, end_fd=None))]
pub fn emulate(
    py: Python<'_>,
    json: &str,
    seed: u64,
    ports: Vec<(String, String, i32)>,
    stop_fd: Option<i32>,
    max_lag_ms: Option<f64>,
    log_dir: Option<String>,
    pcap: Option<String>,
    realtime: bool,
    measure_until_s: Option<f64>,
    end_fd: Option<i32>,
) -> PyResult<String> {
    // Take ownership of the descriptors first, so that they are closed on
    // every path out of here.
    let owned: Vec<(String, String, OwnedFd)> = ports
        .into_iter()
        // SAFETY: the caller hands these descriptors over (documented).
        .map(|(n, i, fd)| (n, i, unsafe { OwnedFd::from_raw_fd(fd) }))
        .collect();
    // Durations from Python: positive and finite, or the conversion to
    // `SimDur` would panic (a negative or NaN number of seconds).
    for (name, v) in [("max_lag_ms", max_lag_ms), ("measure_until_s", measure_until_s)] {
        if let Some(x) = v.filter(|x| !(x.is_finite() && *x > 0.0 && *x <= 1e9)) {
            return Err(PyValueError::new_err(format!("{name}: {x}: must be a positive number")));
        }
    }
    let opts = Options {
        max_lag_p99: max_lag_ms.map(|ms| SimDur::from_secs_f64(ms / 1e3)).unwrap_or(wifitcp_emu::DEFAULT_MAX_LAG_P99),
        log_dir: log_dir.map(std::path::PathBuf::from),
        stop_fd,
        realtime,
        measure_until: measure_until_s.map(wifitcp_core::SimTime::from_secs_f64),
        end_fd,
    };
    // The world is built in the loop's thread (it is not `Send`).
    let res = py
        .allow_threads(|| -> Result<serde_json::Value, (bool, String)> {
            let s = Scenario::from_json(json).map_err(|e| (true, e.to_string()))?;
            let mut world = World::build(&s, seed).map_err(|e| (true, e.to_string()))?;
            if let Some(dir) = &pcap {
                world.capture_to(std::path::Path::new(dir)).map_err(|e| (false, e))?;
            }
            let mut list = Vec::new();
            for (node, ifname, fd) in owned {
                let idx = world.node_index(&node).ok_or_else(|| (true, format!("no node {node:?}")))?;
                let tun = Tun::from_fd(fd, &ifname).map_err(|e| (false, format!("{ifname}: {e}")))?;
                list.push(Port { node: idx, tun });
            }
            wifitcp_emu::run(world, list, &opts).map_err(|e| (false, e))
        })
        .map_err(|(input, e)| if input { PyValueError::new_err(e) } else { PyRuntimeError::new_err(e) })?;
    Ok(res.to_string())
}
