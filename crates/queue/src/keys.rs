//! The keys of a queue-discipline table (`ap.qdisc`, `wlan.station_qdisc`
//! in a scenario), relative to the table: `kind` and each kind's
//! parameters, with their types, defaults and physical ranges. The
//! simulator mounts them into its scenario schema (validation and the key
//! reference in docs/scenarios.md). A new queue discipline adds its rows
//! here next to its `QdiscConfig` variant.
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{k, kw, r, Key, PKTS, PROB, TIMER_MS};

const FQ: &[&str] = &["fq-codel", "airtime"];
const CODEL_LIKE: &[&str] = &["codel", "fq-codel", "airtime"];
const KECELI: &[&str] = &["keceli-sorted", "keceli-grouped"];

pub static KEYS: &[Key] = &[
    k(
        "kind",
        Str,
        "\"drop-tail\"",
        None,
        "",
        "drop-tail, ack-first, keceli-sorted, keceli-grouped, pilosof, vbs, cake-ack, codel, fq-codel, airtime.",
    ),
    kw("ack_capacity", &["ack-first"], Int, "the interface capacity", PKTS, "packets", "ACK buffer."),
    kw("alpha", KECELI, Float, "0.8", PROB, "", "EWMA weight of eq. (2), paper 001."),
    kw("beta", KECELI, Float, "2.0", r(Ex(0.0), In(1e3)), "", "Waiting time = beta * AvgACKint."),
    kw("active_thresh_ms", KECELI, Float, "500.0", TIMER_MS, "ms", "Activity window."),
    kw("timeout_ms", KECELI, Float, "100.0", TIMER_MS, "ms", "Timeout timer."),
    kw("ifq_capacity", KECELI, Int, "capacity - capacity/2", PKTS, "packets", "IFQ size."),
    kw("control_capacity", KECELI, Int, "max(capacity/2, 1)", PKTS, "packets", "Control queue size."),
    kw("pass_first", KECELI, Int, "2", r(In(0.0), In(1e6)), "ACKs", "ACKs passed directly for new flows."),
    kw("c_srt", KECELI, Int, "1", r(In(1.0), In(1e6)), "", "Sorted assignment constant (keceli-sorted)."),
    kw("gamma", KECELI, Float, "0.5", r(In(0.0), Ex(1.0)), "", "Grouping tolerance (keceli-grouped)."),
    kw("c", KECELI, Ints, "[2,6,12,16,20]", r(In(2.0), In(1e6)), "", "Thresholds (keceli-grouped)."),
    kw("buffer", &["pilosof"], Int, "the interface capacity", PKTS, "packets", "B of floor(B / n_act)."),
    kw("mss", &["pilosof"], Int, "1460", r(In(64.0), In(65495.0)), "bytes", "MSS if no SYN was seen."),
    kw("active_thresh_ms", &["pilosof"], Float, "500.0", TIMER_MS, "ms", "Activity window for n_act."),
    kw("c", &["vbs"], Float, "0.6", r(Ex(0.0), Ex(1.0)), "", "Target occupancy fraction."),
    kw("tol", &["vbs"], Float, "1 / capacity^2", r(In(0.0), In(1e6)), "", "Tolerance on (Q - cB)^2."),
    kw("shares", &["vbs"], Floats, "[] (equal)", r(In(0.0), In(1e6)), "", "Service shares by class."),
    kw("measure", &["vbs"], Str, "\"service\"", None, "", "\"service\", \"occupancy\" or \"delivered\"."),
    kw("window", &["vbs"], Int, "the interface capacity", PKTS, "packets", "Measurement window."),
    kw("update", &["vbs"], Str, "\"above-target\"", None, "", "\"above-target\", \"literal\", \"partition\"."),
    kw("mode", &["cake-ack"], Str, "\"conservative\"", None, "", "\"conservative\", \"aggressive\", \"off\"."),
    kw("target_ms", CODEL_LIKE, Float, "5.0", TIMER_MS, "ms", "CoDel target (RFC 8289)."),
    kw("interval_ms", CODEL_LIKE, Float, "100.0", TIMER_MS, "ms", "CoDel interval (RFC 8289)."),
    kw("flows", FQ, Int, "1024", r(In(1.0), In(65536.0)), "queues", "Hash buckets (RFC 8290)."),
    kw("quantum", &["fq-codel"], Int, "1514", r(In(1.0), In(1e6)), "bytes", "DRR quantum."),
    kw("memory_limit", FQ, Int, "33554432", r(In(1.0), In(1099511627776.0)), "bytes", "Byte limit."),
    kw("ack_filter", FQ, Str, "\"off\"", None, "", "CAKE ACK filter per flow queue."),
    kw(
        "quantum_us",
        &["airtime"],
        Float,
        "300.0",
        r(In(1.0), In(1e6)),
        "us",
        "Airtime DRR quantum (1 us to 1 s: the deficit is integer nanoseconds).",
    ),
    kw("fq_quantum", &["airtime"], Int, "1514", r(In(1.0), In(1e6)), "bytes", "Per-station FQ-CoDel quantum."),
];
