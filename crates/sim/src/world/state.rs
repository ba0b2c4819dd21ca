//! The live state of a run between two events (`World::state`), for the
//! drivers that step a run (the Python `Network` of a notebook): each WLAN
//! member's position (moving stations where they are now, from the
//! channel's mobility models; null without a channel with positions),
//! transmit queue length and MAC counters, and each TCP flow's sender state
//! (cwnd, ssthresh, smoothed RTT, bytes in flight). It changes no result:
//! the mobility models' positions do not depend on when they are asked for.
//!
//! A member's MAC counters are summed over the cells it has a MAC in (one
//! per channel; it exchanges frames only in the cell it is in). A grouped
//! bystander's receive-error count lags until it next acts alone
//! (`medium::group`); every other counter is current.
use super::World;
use crate::endpoints::FlowKind;
use serde_json::{json, Value};

impl World {
    /// The run's live state (module docs) as JSON.
    pub fn state(&mut self) -> Value {
        let names = self.node_names();
        let now = self.k.now();
        let stations: Vec<Value> = (0..self.cells.members())
            .map(|i| {
                let c = self.cells.counters(i);
                let at = self.cells.position_of(now, i).map(|p| json!([p.x, p.y, p.z]));
                json!({
                    "position_m": at,
                    "name": names[i],
                    "queue_len": self.cells.queue_len(i),
                    "attempts": c.attempts, "retries": c.retries, "successes": c.successes,
                    "failures": c.failures, "drops_retry_limit": c.drops_retry_limit,
                    "rx_errors": c.rx_errors, "rx_delivered": c.rx_delivered,
                })
            })
            .collect();
        let eps = self.flows.eps();
        let tcp: Vec<Value> = self
            .flows
            .flows()
            .iter()
            .enumerate()
            .filter_map(|(fi, f)| match &f.kind {
                FlowKind::Tcp(t) => {
                    let c = &eps[t.sender].conn;
                    Some(json!({
                        "flow": self.flows.name(fi),
                        "sender": names.get(eps[t.sender].node),
                        "state": format!("{:?}", c.state()),
                        "cwnd_bytes": c.cwnd(),
                        "ssthresh_bytes": crate::metrics::ssthresh_json(c.ssthresh()),
                        "srtt_ms": c.srtt().map(|d| d.as_secs_f64() * 1e3),
                        "in_flight_bytes": c.in_flight(),
                        "segments_retransmitted": c.stats().segments_retransmitted,
                    }))
                }
                FlowKind::Udp(_) => None,
            })
            .collect();
        json!({ "time_s": self.k.now().as_secs_f64(), "stations": stations, "tcp": tcp })
    }
}
