//! Per-run metrics and their JSON form (see docs/results.md).
use crate::ledger::Ledger;
use serde_json::{json, Value};
use wifitcp_core::{DropReason, SimTime};
use wifitcp_wifi::medium::Bss;
use wifitcp_wire::wifi_frame::LLC_SNAP_LEN;
use wifitcp_wire::Packet;

#[derive(Clone, Debug)]
pub struct FlowStats {
    pub name: String,
    pub kind: &'static str,
    pub src: String,
    pub dst: String,
    pub generated: u64,
    /// Counted after the warm-up only.
    pub delivered: u64,
    pub payload_bytes: u64,
    pub msdu_bytes: u64,
    pub delay_sum_ns: u128,
}

impl FlowStats {
    pub fn new(name: String, kind: &'static str, src: String, dst: String) -> Self {
        FlowStats { name, kind, src, dst, generated: 0, delivered: 0, payload_bytes: 0, msdu_bytes: 0, delay_sum_ns: 0 }
    }
    pub fn on_delivered(&mut self, p: &Packet, now: SimTime) {
        self.delivered += 1;
        self.payload_bytes += p.payload_len as u64;
        self.msdu_bytes += (LLC_SNAP_LEN + p.ip_len()) as u64;
        self.delay_sum_ns += now.saturating_since(p.created).as_nanos() as u128;
    }
}

pub struct RunResult {
    pub json: Value,
}

fn mbps(bytes: u64, secs: f64) -> f64 {
    bytes as f64 * 8.0 / secs / 1e6
}

/// Assemble the result of a run.
pub fn collect(bss: &Bss, flows: Vec<FlowStats>, ledger: &Ledger, end: SimTime, warmup: SimTime, events: u64, wall_s: f64) -> RunResult {
    let secs = (end.as_secs_f64() - warmup.as_secs_f64()).max(1e-12);
    let flows_json: Vec<Value> = flows
        .iter()
        .map(|f| {
            json!({
                "name": f.name, "kind": f.kind, "src": f.src, "dst": f.dst,
                "goodput_mbps": mbps(f.payload_bytes, secs),
                "msdu_mbps": mbps(f.msdu_bytes, secs),
                "packets_generated": f.generated,
                "packets_delivered": f.delivered,
                "bytes_delivered": f.payload_bytes,
                "mean_delay_ms": if f.delivered > 0 { f.delay_sum_ns as f64 / f.delivered as f64 / 1e6 } else { 0.0 },
            })
        })
        .collect();
    let (mut att, mut col) = (0u64, 0u64);
    let stations: Vec<Value> = (0..bss.len())
        .map(|i| {
            let c = &bss.macs[i].counters;
            let m = &bss.medium[i];
            att += m.initial_frames;
            col += m.collided;
            json!({
                "name": crate::world::name_of(i),
                "attempts": c.attempts, "successes": c.successes, "failures": c.failures,
                "collisions": m.collided, "retries": c.retries,
                "channel_errors": m.channel_errors,
                "rx_errors": c.rx_errors, "rx_duplicates": c.rx_duplicates,
                "airtime_s": m.airtime_ns as f64 * 1e-9,
                "collision_probability": if m.initial_frames > 0 { m.collided as f64 / m.initial_frames as f64 } else { 0.0 },
                "drops": { "retry_limit": c.drops_retry_limit },
            })
        })
        .collect();
    let dropped: serde_json::Map<String, Value> = DropReason::ALL.iter().map(|r| (r.as_str().to_string(), json!(ledger.dropped.get(r).copied().unwrap_or(0)))).collect();
    let aggregate: f64 = flows.iter().map(|f| mbps(f.payload_bytes, secs)).sum();
    let aggregate_msdu: f64 = flows.iter().map(|f| mbps(f.msdu_bytes, secs)).sum();
    RunResult {
        json: json!({
            "duration_s": end.as_secs_f64(),
            "warmup_s": warmup.as_secs_f64(),
            "events": events,
            "wall_time_s": wall_s,
            "aggregate_mbps": aggregate,
            "aggregate_msdu_mbps": aggregate_msdu,
            "collision_probability": if att > 0 { col as f64 / att as f64 } else { 0.0 },
            "flows": flows_json,
            "stations": stations,
            "ledger": {
                "generated": ledger.generated(),
                "delivered": ledger.delivered,
                "in_flight": ledger.in_flight(),
                "late_drops": ledger.late_drops,
                "dropped": dropped,
            },
        }),
    }
}
