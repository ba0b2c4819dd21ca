//! `wifitcp._core.Network`: a scenario's network stepped from Python (the
//! driver API of `wifitcp_sim::world`), with per-packet callbacks at a node
//! for notebooks. A callback is a Python call per packet at its node, so it
//! is for looking and experimenting, not for long campaigns.
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Arc, Mutex};
use wifitcp_core::{DropReason, SimTime};
use wifitcp_net::{Agent, AgentCtx, Arrival, Verdict};
use wifitcp_sim::world::World;
use wifitcp_sim::Scenario;
use wifitcp_wire::{Packet, Transport};

/// The first exception a callback raised, kept until `step_until` returns.
type Pending = Arc<Mutex<Option<PyErr>>>;

/// A packet as a dict: id, flow, created (s), src, dst, proto, size (IPv4
/// bytes), payload, ports, and for TCP seq, ack, flags, window, sack.
fn packet_dict<'py>(py: Python<'py>, p: &Packet) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new_bound(py);
    d.set_item("id", p.id.0)?;
    d.set_item("flow", p.flow.0)?;
    d.set_item("created", p.created.as_secs_f64())?;
    d.set_item("src", p.ip.src.to_string())?;
    d.set_item("dst", p.ip.dst.to_string())?;
    d.set_item("size", p.ip_len())?;
    d.set_item("payload", p.payload_len)?;
    match &p.l4 {
        Transport::Udp(u) => {
            d.set_item("proto", "udp")?;
            d.set_item("sport", u.src_port)?;
            d.set_item("dport", u.dst_port)?;
        }
        Transport::Tcp(t) => {
            d.set_item("proto", "tcp")?;
            d.set_item("sport", t.src_port)?;
            d.set_item("dport", t.dst_port)?;
            d.set_item("seq", t.seq)?;
            d.set_item("ack", t.ack)?;
            d.set_item("flags", format!("{:?}", t.flags))?;
            d.set_item("window", t.window)?;
            let sack: Vec<(u32, u32)> = t.options.sack.iter().map(|b| (b.left, b.right)).collect();
            d.set_item("sack", sack)?;
        }
    }
    Ok(d)
}

/// An agent that calls a Python function for every packet arriving at its
/// node: `callback(t, node, local, packet) -> None | "pass" | "drop" |
/// "consume"`.
struct PyAgent {
    callback: PyObject,
    pending: Pending,
}

impl Agent for PyAgent {
    fn kind(&self) -> &'static str {
        "python"
    }
    fn on_packet(&mut self, now: SimTime, at: Arrival, pkt: &mut Packet, _ctx: &mut AgentCtx) -> Verdict {
        Python::with_gil(|py| {
            let r = packet_dict(py, pkt).and_then(|d| {
                let v = self.callback.call1(py, (now.as_secs_f64(), at.node, at.local, d))?;
                let s: Option<String> = v.extract(py)?;
                match s.as_deref() {
                    None | Some("pass") => Ok(Verdict::Pass),
                    Some("drop") => Ok(Verdict::Drop(DropReason::Proxy)),
                    Some("consume") => Ok(Verdict::Consume),
                    Some(other) => Err(PyValueError::new_err(format!(
                        "packet callback returned {other:?}; expected None, 'pass', 'drop' or 'consume'"
                    ))),
                }
            });
            r.unwrap_or_else(|e| {
                self.pending.lock().expect("not poisoned").get_or_insert(e);
                Verdict::Pass
            })
        })
    }
}

/// A scenario's network, built from its JSON (one run: no sweep, no
/// seeds) and a seed, stepped in simulated seconds.
#[pyclass(unsendable, module = "wifitcp._core")]
pub struct Network {
    world: Option<World>,
    scenario: String,
    seed: u64,
    pending: Pending,
    wall: std::time::Instant,
}

impl Network {
    fn w(&mut self) -> PyResult<&mut World> {
        self.world.as_mut().ok_or_else(|| PyRuntimeError::new_err("the network has finished"))
    }
    fn raise_pending(&self) -> PyResult<()> {
        match self.pending.lock().expect("not poisoned").take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

#[pymethods]
impl Network {
    #[new]
    fn new(json: &str, seed: u64) -> PyResult<Self> {
        let s = Scenario::from_json(json).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let world = World::build(&s, seed).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Network {
            world: Some(world),
            scenario: s.scenario.name.clone(),
            seed,
            pending: Arc::default(),
            wall: std::time::Instant::now(),
        })
    }

    /// Handle every event due by `t` seconds (at most the scenario's end).
    fn step_until(&mut self, t: f64) -> PyResult<()> {
        if !t.is_finite() || t < 0.0 {
            return Err(PyValueError::new_err(format!("t: expected a non-negative number of seconds, got {t}")));
        }
        let w = self.w()?;
        let until = SimTime::from_secs_f64(t.min(w.end().as_secs_f64()));
        // The GIL stays held: packet callbacks run inside the step.
        w.step_until(until);
        self.raise_pending()
    }

    /// The instant of the last event handled, in seconds.
    #[getter]
    fn now(&mut self) -> PyResult<f64> {
        Ok(self.w()?.now().as_secs_f64())
    }

    /// The scenario's end, in seconds.
    #[getter]
    fn end(&mut self) -> PyResult<f64> {
        Ok(self.w()?.end().as_secs_f64())
    }

    /// When the next event is due (seconds), or None when none is left.
    #[getter]
    fn next_wakeup(&mut self) -> PyResult<Option<f64>> {
        Ok(self.w()?.next_wakeup().map(|t| t.as_secs_f64()))
    }

    /// The run's live state now (`World::state`) as JSON: each WLAN
    /// member's queue length and MAC counters, each TCP flow's sender state.
    fn state(&mut self) -> PyResult<String> {
        Ok(self.w()?.state().to_string())
    }

    /// The index of the node named `name` (None if there is none).
    fn node_index(&mut self, name: &str) -> PyResult<Option<usize>> {
        Ok(self.w()?.node_index(name))
    }

    /// Call `callback(t, node, local, packet)` for every packet arriving at
    /// node `name`, after its other agents; its return value decides the
    /// packet's fate (None or "pass", "drop", "consume").
    fn on_packet(&mut self, name: &str, callback: PyObject) -> PyResult<()> {
        let pending = self.pending.clone();
        let w = self.w()?;
        let node = w.node_index(name).ok_or_else(|| PyValueError::new_err(format!("node: no node named {name:?}")))?;
        w.add_agent(node, Box::new(PyAgent { callback, pending })).map_err(PyValueError::new_err)
    }

    /// End the run (events after the scenario's end are left undone),
    /// check its invariants and return the result JSON, as `run` does.
    fn finish(&mut self) -> PyResult<String> {
        let w = self.world.take().ok_or_else(|| PyRuntimeError::new_err("the network has finished"))?;
        let mut r = w.finish(self.wall).map_err(PyRuntimeError::new_err)?;
        r.set("scenario", self.scenario.clone().into());
        r.set("seed", self.seed.into());
        r.set("version", wifitcp_sim::api::VERSION.into());
        Ok(r.to_json_string())
    }
}
