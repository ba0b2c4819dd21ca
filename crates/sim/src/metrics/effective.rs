//! The configuration a run actually used, every default resolved: the
//! PHY timing and MAC parameters of the BSS, each WLAN interface's queue
//! discipline, and each TCP flow's connection settings as built (both
//! ends). Written into the result as `effective`, so a stored run records
//! the values behind its numbers even where the scenario left a key to its
//! default (the scenario's own normalised form keeps such keys empty, as
//! written; see docs/results.md).
use super::RunView;
use super::Sink;
use serde_json::{json, Value};
use wifitcp_core::SimDur;
use wifitcp_tcp::{DelayedAck, InitialWindow, RecvBuffer, TcpConfig};
use wifitcp_wifi::mac::edca::AccessCategory;
use wifitcp_wifi::mac::Mac;

fn us(d: SimDur) -> f64 {
    d.as_micros_f64()
}

fn ms(d: SimDur) -> f64 {
    d.as_micros_f64() / 1e3
}

fn tcp_json(c: &TcpConfig, cc: &str) -> Value {
    let iw = match c.initial_window {
        InitialWindow::Rfc5681 => json!("rfc5681"),
        InitialWindow::Rfc6928 => json!("rfc6928"),
        InitialWindow::Segments(n) => json!(n),
    };
    let rwnd_bytes = match c.recv_buffer {
        RecvBuffer::Bytes(b) => b,
        RecvBuffer::Segments(n) => n as u64 * c.mss as u64,
    };
    let (dack_count, dack_ms) = match c.delayed_ack {
        Some(DelayedAck { count, timeout, .. }) => (json!(count), json!(ms(timeout))),
        None => (Value::Null, Value::Null),
    };
    let mut t = json!({
        "cc": cc,
        "recovery": format!("{:?}", c.recovery).to_lowercase(),
        "mss": c.mss,
        "initial_window": iw,
        "rwnd_bytes": rwnd_bytes,
        "window_scaling": c.window_scaling,
        "sack": c.sack,
        "timestamps": c.timestamps,
        "delayed_ack": c.delayed_ack.is_some(),
        "delayed_ack_count": dack_count,
        "delayed_ack_ms": dack_ms,
        "min_rto_ms": ms(c.min_rto),
        "max_rto_ms": ms(c.max_rto),
        "initial_rto_ms": ms(c.initial_rto),
        "clock_granularity_ms": ms(c.clock_granularity),
        "syn_retries": c.syn_retries,
        "max_retransmissions": c.max_retransmissions,
        "dupthresh": c.dupthresh,
        "limited_transmit": c.limited_transmit,
        "nagle": c.nagle,
    });
    // (only when on: results of runs without it keep their keys)
    if c.rack_tlp {
        t["rack_tlp"] = json!(true);
    }
    t
}

/// The JSON text of the `effective` object of a run's result (see the
/// module docs; with `delayed_ack` off, its count and timer are null: they
/// do not apply), written into `sink` as it is rendered: its per-member
/// array is as long as the run has WLAN members, so it is not held whole.
/// Members in the order of a `BTreeMap` of their keys (`mac`, `phy`,
/// `tcp`, `wlan_queues`), as serialising the equivalent tree writes them.
pub(super) fn write_effective(v: &RunView, sink: &mut Sink) -> std::io::Result<()> {
    let t = Mac::timing(&v.cells[0].macs[0]);
    let mut phy = json!({
        "standard": serde_json::to_value(t.standard).unwrap_or(Value::Null),
        "data_rate_mbps": t.data_rate.mbps(),
        "control_rate_mbps": t.control_rate.mbps(),
        "slot_us": us(t.slot),
        "sifs_us": us(t.sifs),
        "difs_us": us(t.difs),
        "eifs_us": us(t.eifs),
        "rx_phy_start_delay_us": us(t.rx_phy_start_delay),
        "plcp_us_at_data_rate": us(t.plcp_time(t.data_rate)),
        "ack_timeout_us": us(t.ack_timeout()),
    });
    // only when it adapts (results of fixed-rate runs keep their keys)
    let rc = v.cells[0].macs.iter().find_map(|m| m.as_dcf()).map_or("fixed", |d| d.rate_control_kind());
    if rc != "fixed" {
        phy["rate_control"] = json!(rc);
    }
    // The DCF's parameters (of the first member that runs one), else the
    // HCF's (of the first member that runs it: in a scenario's cell the AP,
    // with the AP's EDCA set); null for neither.
    let mac = match v.cells[0].macs.iter().find_map(|m| m.as_dcf()).map(|d| d.params()) {
        Some(p) => json!({
            "cw_min": p.cw_min,
            "cw_max": p.cw_max,
            "short_retry_limit": p.short_retry_limit,
            "long_retry_limit": p.long_retry_limit,
            "rts_threshold_bytes": p.rts_threshold,
        }),
        None => match v.cells[0].macs.iter().find_map(|m| m.as_hcf()).map(|h| h.params()) {
            Some(p) => json!({
                "kind": "edca",
                // AC_BE's (the access category of untagged traffic; the PHY's
                // aCWmin and aCWmax unless mac.cw_min/cw_max set them)
                "cw_min": p.edca.get(AccessCategory::Be).cw_min,
                "cw_max": p.edca.get(AccessCategory::Be).cw_max,
                "retry_limit": p.retry_limit,
                "block_ack": p.block_ack,
                "block_ack_window": p.ba_window,
                "max_mpdus": p.max_mpdus,
                "max_ampdu_bytes": p.max_ampdu_bytes,
                "bar_after_missed_ba": p.bar_after_missed_ba,
                "mac_queue_packets": p.mac_queue,
                "no_ack": p.no_ack,
                "edca": p.edca.0.iter().map(|e| json!({
                    "aifsn": e.aifsn, "cw_min": e.cw_min, "cw_max": e.cw_max,
                    "txop_limit_us": e.txop_limit.as_micros_f64(),
                })).collect::<Vec<_>>(),
            }),
            None => Value::Null,
        },
    };
    let tcp: Vec<_> = v
        .flows
        .iter()
        .enumerate()
        .filter_map(|(k, f)| match &f.kind {
            crate::endpoints::FlowKind::Tcp(t) => Some((k, &v.eps[t.sender].conn, &v.eps[t.receiver].conn)),
            _ => None,
        })
        .collect();
    let value = |sink: &mut Sink, x: &Value| serde_json::to_writer(&mut sink.buf, x).expect("a Value serialises");
    sink.buf.extend_from_slice(b"{\"mac\":");
    value(sink, &mac);
    sink.buf.extend_from_slice(b",\"phy\":");
    value(sink, &phy);
    sink.buf.extend_from_slice(b",\"tcp\":");
    sink.objs(tcp.len(), |k, t| {
        let (fi, s, r) = tcp[k];
        t.put("flow", v.flows.name(fi))
            .put("sender", &tcp_json(s.config(), s.cc_name()))
            .put("receiver", &tcp_json(r.config(), r.cc_name()));
    })?;
    sink.buf.extend_from_slice(b",\"wlan_queues\":");
    sink.objs(v.wq.len(), |i, q| {
        q.put("node", &v.topo.name(i)).put("kind", v.wq.get(i).kind());
    })?;
    sink.buf.push(b'}');
    Ok(())
}
