//! The key table of the scenario schema: every key a scenario may set, with
//! its type, default, physical range and unit.
//!
//! One table serves two purposes:
//!
//! * **Validation.** [`check_ranges`] walks the scenario document (before
//!   it is deserialised) and checks every number against its key's range,
//!   so that a value the core cannot run (a link of 1e-300 Mbit/s, a CBR
//!   source whose packet interval rounds to 0 ns, an airtime quantum of
//!   1e300 us) is one error naming the key, never a panic or a run that
//!   does not end. Inside a queue discipline (`kind`) or a channel
//!   (`model`) table it also reports an unknown key at the key itself.
//! * **Documentation.** [`schema_json`] gives the table as JSON, from which
//!   docs/scenarios.md's key reference is generated (`wifitcp schema
//!   --markdown`), so the reference cannot drift from the validator.
//!
//! Invariants (tested below): every key the deserialised structs serialise
//! is in the table and every table key is one of them; every literal
//! default equals the struct's default; every numeric key has a finite
//! range.
//!
//! Ranges are physical bounds (what the quantity can be in a real network,
//! widened generously), not the papers' values; where a bound protects the
//! engine (integer nanoseconds, events per second) the entry says so.
use serde_json::Value;

/// Type of a key's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Float,
    Int,
    Bool,
    Str,
    /// An array of numbers (nested arrays allowed, e.g. positions).
    Floats,
    Ints,
    /// An array of strings.
    Strs,
    /// A table (its keys are listed under its own path).
    Table,
    /// An array of tables.
    Tables,
    /// A string or an array (see the key's description).
    Any,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Float => "float",
            Ty::Int => "integer",
            Ty::Bool => "boolean",
            Ty::Str => "string",
            Ty::Floats => "array of floats",
            Ty::Ints => "array of integers",
            Ty::Strs => "array of strings",
            Ty::Table => "table",
            Ty::Tables => "array of tables",
            Ty::Any => "string or array",
        }
    }
    fn numeric(self) -> bool {
        matches!(self, Ty::Float | Ty::Int | Ty::Floats | Ty::Ints)
    }
}

/// A bound of a range: inclusive or exclusive.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum B {
    In(f64),
    Ex(f64),
}

/// One key of the schema.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// Dotted pattern: `[]` stands for any array index; the sections
    /// mounted in several places are written once: `qdisc.*` (for
    /// `ap.qdisc` and `wlan.station_qdisc`), `tcp.*` (for `[tcp]` and
    /// `traffic[].tcp`).
    pub path: &'static str,
    /// The `kind` (qdisc) or `model` (channel) values the key belongs to;
    /// empty: every one.
    pub when: &'static [&'static str],
    pub ty: Ty,
    /// JSON text of the default, or a description of how it is derived.
    pub default: &'static str,
    /// Range of numbers (of each element for arrays); `None` for
    /// non-numeric keys.
    pub range: Option<(B, B)>,
    pub unit: &'static str,
    pub doc: &'static str,
}

const fn k(
    path: &'static str,
    ty: Ty,
    default: &'static str,
    range: Option<(B, B)>,
    unit: &'static str,
    doc: &'static str,
) -> Key {
    Key { path, when: &[], ty, default, range, unit, doc }
}
const fn kw(
    path: &'static str,
    when: &'static [&'static str],
    ty: Ty,
    default: &'static str,
    range: Option<(B, B)>,
    unit: &'static str,
    doc: &'static str,
) -> Key {
    Key { path, when, ty, default, range, unit, doc }
}
const fn r(lo: B, hi: B) -> Option<(B, B)> {
    Some((lo, hi))
}
use Ty::*;
use B::{Ex, In};

/// Largest packet count of any buffer (packets).
const PKTS: Option<(B, B)> = r(In(1.0), In(1e6));
/// Simulated times (s): the run length is at most 1e6 s.
const SIM_S: Option<(B, B)> = r(In(0.0), In(1e6));
/// Timer values in ms: positive, at most 1e7 ms (2.8 h).
const TIMER_MS: Option<(B, B)> = r(Ex(0.0), In(1e7));
const PROB: Option<(B, B)> = r(In(0.0), In(1.0));
/// Positions in metres.
const POS_M: Option<(B, B)> = r(In(-1e6), In(1e6));
/// WLAN rates: 802.11a/b/g rates are 1..54 Mbit/s; the PHY checks the rate
/// set itself.
const WLAN_RATE: Option<(B, B)> = r(Ex(0.0), In(1e4));
/// PHY timing overrides in us: 802.11 values are tens of us.
const PHY_US: Option<(B, B)> = r(In(0.0), In(1e4));
/// Node speeds in m/s: walking to aircraft, generously (0 stands still).
const SPEED: Option<(B, B)> = r(In(0.0), In(1e3));
const DB: Option<(B, B)> = r(In(-300.0), In(300.0));
const DBM: Option<(B, B)> = r(In(-200.0), In(90.0));

/// Every `model` of a channel (the queue disciplines' kinds are
/// `QdiscConfig::KINDS`).
pub const CHANNEL_MODELS: [&str; 3] = ["fixed", "snr", "threshold"];

/// Whether `v` is a queue discipline's `kind` or a channel's `model`.
fn is_variant(v: &str) -> bool {
    wifitcp_queue::QdiscConfig::KINDS.contains(&v) || CHANNEL_MODELS.contains(&v)
}

const FQ: &[&str] = &["fq-codel", "airtime"];
const CODEL_LIKE: &[&str] = &["codel", "fq-codel", "airtime"];
const KECELI: &[&str] = &["keceli-sorted", "keceli-grouped"];
const RADIO: &[&str] = &["snr", "threshold"];

/// Every key of a scenario, in document order.
pub static KEYS: &[Key] = &[
    // [scenario]
    k("scenario.name", Str, "required", None, "", "Name of the scenario (results are stored under it)."),
    k("scenario.description", Str, "\"\"", None, "", "Free text."),
    k("scenario.duration_s", Float, "10.0", r(Ex(0.0), In(1e6)), "s", "Simulated time."),
    k("scenario.warmup_s", Float, "0.0", SIM_S, "s", "Deliveries before this time are not counted; < duration_s."),
    k("scenario.sample_interval_s", Float, "1.0", r(In(1e-3), In(1e6)), "s", "Bin of the per-flow time series."),
    // [phy]
    k("phy.standard", Str, "required", None, "", "\"802.11a\", \"802.11b\" or \"802.11g\"."),
    k("phy.data_rate_mbps", Float, "required", WLAN_RATE, "Mbit/s", "Data rate (one of the standard's rates)."),
    k(
        "phy.control_rate_mbps",
        Float,
        "by 10.6.6.5.2 from the basic rate set",
        WLAN_RATE,
        "Mbit/s",
        "Rate of ACK, CTS and RTS.",
    ),
    k("phy.basic_rates_mbps", Floats, "the PHY's mandatory rates", WLAN_RATE, "Mbit/s", "BSSBasicRateSet."),
    k(
        "phy.rate_control",
        Str,
        "\"fixed\"",
        None,
        "",
        "Rate adaptation: \"fixed\" (data_rate_mbps), \"arf\", \"aarf\" or \"minstrel\".",
    ),
    k("phy.preamble", Str, "\"long\"", None, "", "DSSS preamble: \"long\" or \"short\"."),
    k("phy.slot", Str, "\"short\"", None, "", "802.11g slot: \"short\" or \"long\"."),
    k("phy.timing_model", Str, "\"standard\"", None, "", "Frame-time model (see the PHY section)."),
    k("phy.slot_us", Float, "the PHY's aSlotTime", PHY_US, "us", "Slot time override."),
    k("phy.sifs_us", Float, "the PHY's aSIFSTime", PHY_US, "us", "SIFS override."),
    k("phy.difs_us", Float, "SIFS + 2 slots", r(In(0.0), In(1e5)), "us", "DIFS override."),
    k("phy.eifs_us", Float, "SIFS + ACK time + DIFS", r(In(0.0), In(1e5)), "us", "EIFS override."),
    k("phy.preamble_us", Float, "the PHY's", PHY_US, "us", "PLCP preamble duration override."),
    k("phy.plcp_header_us", Float, "the PHY's", PHY_US, "us", "PLCP header duration override."),
    k("phy.rx_phy_start_delay_us", Float, "the PHY's", PHY_US, "us", "Receiver start-up delay override."),
    // [mac]
    k("mac.cw_min", Int, "the PHY's aCWmin", r(In(1.0), In(32767.0)), "slots", "2^k - 1."),
    k("mac.cw_max", Int, "the PHY's aCWmax", r(In(1.0), In(32767.0)), "slots", "2^k - 1, >= cw_min."),
    k("mac.short_retry_limit", Int, "7", r(In(1.0), In(255.0)), "attempts", "dot11ShortRetryLimit."),
    k("mac.long_retry_limit", Int, "4", r(In(1.0), In(255.0)), "attempts", "dot11LongRetryLimit."),
    k("mac.rts_threshold_bytes", Int, "65535", r(In(0.0), In(65536.0)), "bytes", "dot11RTSThreshold (65535: off)."),
    k("mac.queue_packets", Int, "50", PKTS, "packets", "Interface queue of every member."),
    k("mac.backoff_rule", Str, "\"idle-slots\"", None, "", "\"idle-slots\" or \"busy-slot-counts\"."),
    k("mac.collision_restart", Str, "\"ack-timeout-difs\"", None, "", "\"ack-timeout-difs\" or \"eifs\"."),
    k("mac.idle_access", Str, "\"immediate\"", None, "", "\"immediate\" or \"backoff\" (ns-2)."),
    k("mac.group_bystanders", Bool, "true", None, "", "Engine option; no effect on results."),
    // [wlan]
    k("wlan.stations", Int, "required", r(In(1.0), In(100000.0)), "stations", "Stations of the WLAN."),
    k("wlan.per_uplink", Float, "0.0", PROB, "", "Error probability of data frames to the AP."),
    k("wlan.per_downlink", Float, "0.0", PROB, "", "Error probability of data frames from the AP."),
    k("wlan.distance_m", Float, "none", r(Ex(0.0), In(1e6)), "m", "Every station's distance from the AP."),
    k("wlan.positions", Floats, "none", POS_M, "m", "Station positions [[x, y], ...]."),
    k("wlan.station_qdisc", Table, "drop-tail", None, "", "Queue discipline of the stations (a qdisc table)."),
    k("wlan.aps", Int, "1", r(In(1.0), In(64.0)), "APs", "Access points sharing the channel."),
    k("wlan.association", Ints, "all on AP 0", r(In(0.0), In(63.0)), "AP index", "AP of each station."),
    k("wlan.ap_positions", Floats, "AP k at (20 k, 0)", POS_M, "m", "AP positions [[x, y], ...]."),
    k(
        "wlan.mobility",
        Tables,
        "none",
        None,
        "",
        "How stations move (none: they stand still); needs an snr or threshold channel.",
    ),
    k(
        "wlan.mobility[].stations",
        Any,
        "\"all\"",
        r(In(0.0), In(99999.0)),
        "station index",
        "\"all\" or 0-based indices.",
    ),
    k("wlan.mobility[].model", Str, "required", None, "", "\"linear\", \"waypoints\" or \"random_waypoint\"."),
    k("wlan.mobility[].waypoints", Floats, "none", POS_M, "s, m", "waypoints: [[t_s, x, y], ...], times increasing."),
    k("wlan.mobility[].speed_mps", Float, "none", SPEED, "m/s", "linear: speed (2-50 km/h = 0.56-13.89 m/s)."),
    k(
        "wlan.mobility[].heading_deg",
        Float,
        "away from the AP",
        r(In(-360.0), In(360.0)),
        "deg",
        "linear: direction from +x.",
    ),
    k("wlan.mobility[].start_s", Float, "0.0", SIM_S, "s", "linear: when the walk starts; < duration_s."),
    k("wlan.mobility[].stop_s", Float, "the run's end", r(Ex(0.0), In(1e6)), "s", "linear: when it stops."),
    k("wlan.mobility[].area_m", Floats, "none", POS_M, "m", "random_waypoint: [[x_min, y_min], [x_max, y_max]]."),
    k(
        "wlan.mobility[].speed_min_mps",
        Float,
        "none",
        r(Ex(0.0), In(1e3)),
        "m/s",
        "random_waypoint: lowest speed (> 0).",
    ),
    k("wlan.mobility[].speed_max_mps", Float, "none", r(Ex(0.0), In(1e3)), "m/s", "random_waypoint: highest speed."),
    k("wlan.mobility[].pause_s", Float, "0.0", SIM_S, "s", "random_waypoint: pause at each destination."),
    // [ap]
    k("ap.queue_packets", Int, "mac.queue_packets", PKTS, "packets", "The AP's transmit queue."),
    k("ap.qdisc", Table, "drop-tail", None, "", "Queue discipline of the AP (a qdisc table)."),
    k("ap.classes", Str, "\"station\"", None, "", "Class of a queued packet: \"station\" or \"channel\"."),
    // [[nodes]]
    k("nodes[].name", Str, "required", None, "", "Name of a wired node."),
    k("nodes[].kind", Str, "\"host\"", None, "", "\"host\" or \"router\"."),
    // [[links]]
    k("links[].a", Str, "required", None, "", "One end: \"ap\" or a node name."),
    k("links[].b", Str, "required", None, "", "The other end."),
    k(
        "links[].rate_mbps",
        Float,
        "required",
        r(In(1e-3), In(1e6)),
        "Mbit/s",
        "Link rate, 1 kbit/s to 1 Tbit/s (a slower link's frame time overflows nothing, but is no network).",
    ),
    k("links[].delay_ms", Float, "required", r(In(0.0), In(1e5)), "ms", "Propagation delay."),
    k("links[].queue_packets", Int, "100", PKTS, "packets", "Drop-tail queue per direction."),
    // [tcp] (also [traffic.tcp])
    k("tcp.recovery", Str, "\"newreno\"", None, "", "\"tahoe\", \"reno\", \"newreno\" or \"sack\"."),
    k("tcp.cc", Str, "\"reno\"", None, "", "\"reno\", \"vegas\", \"cubic\" or \"compound\"."),
    k("tcp.mss", Int, "1460", r(In(64.0), In(65495.0)), "bytes", "Maximum segment size."),
    k("tcp.rwnd_packets", Int, "none", PKTS, "packets", "Receive window in segments (ns-2 window_)."),
    k("tcp.rwnd_bytes", Int, "65535", r(In(1.0), In(1073741824.0)), "bytes", "Receive window (RFC 7323: < 2^30)."),
    k("tcp.initial_window", Int, "RFC 5681", r(In(1.0), In(1e4)), "segments", "Initial window."),
    k("tcp.delayed_ack", Bool, "true", None, "", "Delayed ACKs (RFC 1122)."),
    k("tcp.delayed_ack_count", Int, "2", r(In(1.0), In(1000.0)), "segments", "ACK every n-th segment."),
    k("tcp.delayed_ack_ms", Float, "200.0", r(Ex(0.0), In(500.0)), "ms", "Delayed-ACK timer (RFC 1122: <= 500 ms)."),
    k("tcp.sack", Bool, "true", None, "", "SACK (RFC 2018)."),
    k("tcp.timestamps", Bool, "false", None, "", "Timestamps (RFC 7323)."),
    k("tcp.window_scaling", Bool, "true", None, "", "Window scaling (RFC 7323)."),
    k("tcp.limited_transmit", Bool, "true", None, "", "Limited transmit (RFC 3042)."),
    k("tcp.min_rto_ms", Float, "1000.0", TIMER_MS, "ms", "Minimum RTO (RFC 6298)."),
    k("tcp.initial_rto_ms", Float, "1000.0", TIMER_MS, "ms", "Initial RTO."),
    k("tcp.max_rto_ms", Float, "60000.0", TIMER_MS, "ms", "Maximum RTO."),
    k("tcp.trace_cwnd", Bool, "false", None, "", "Record cwnd/ssthresh over time."),
    k("tcp.syn_retries", Int, "6", r(In(0.0), In(1e9)), "retries", "SYN retransmissions before giving up."),
    k("tcp.max_retransmissions", Int, "15", r(In(1.0), In(1e9)), "RTOs", "Consecutive RTOs before aborting."),
    k("tcp.compound", Table, "each key's default", None, "", "Compound TCP's parameters (cc = \"compound\")."),
    k("tcp.compound.alpha", Float, "0.125", r(Ex(0.0), In(100.0)), "", "dwnd growth alpha * win^k per round."),
    k("tcp.compound.beta", Float, "0.5", r(Ex(0.0), Ex(1.0)), "", "Window decrease on loss."),
    k("tcp.compound.k", Float, "0.75", r(In(0.0), In(1.0)), "", "Exponent of the delay window's growth."),
    k("tcp.compound.gamma", Float, "30.0", r(Ex(0.0), In(1e6)), "packets", "Backlog threshold."),
    k("tcp.compound.zeta", Float, "1.0", r(Ex(0.0), In(100.0)), "", "dwnd reduction per packet above gamma."),
    k("tcp.vegas", Table, "each key's default", None, "", "Vegas's thresholds (cc = \"vegas\")."),
    k("tcp.vegas.alpha", Float, "2.0", r(In(0.0), In(1e6)), "packets", "Grow while Diff < alpha."),
    k("tcp.vegas.beta", Float, "4.0", r(In(0.0), In(1e6)), "packets", "Shrink while Diff > beta; >= alpha."),
    k("tcp.vegas.gamma", Float, "1.0", r(In(0.0), In(1e6)), "packets", "Leave slow start when Diff > gamma."),
    k(
        "tcp.vegas.loss_response",
        Str,
        "\"reno\"",
        None,
        "",
        "\"reno\" (as ns-3 and Linux) or \"brakmo\" (Brakmo & Peterson 3.1, as ns-2).",
    ),
    // [[traffic]]
    k("traffic[].name", Str, "required", None, "", "Flow name (unique, no '/')."),
    k("traffic[].kind", Str, "required", None, "", "\"udp\" or \"tcp\"."),
    k("traffic[].pattern", Str, "\"saturated\"", None, "", "UDP: \"saturated\", \"cbr\" or \"poisson\"."),
    k("traffic[].direction", Str, "\"uplink\"", None, "", "\"uplink\" or \"downlink\"."),
    k("traffic[].stations", Any, "\"all\"", r(In(0.0), In(99999.0)), "station index", "\"all\" or 0-based indices."),
    k("traffic[].msdu_bytes", Int, "1500", r(In(36.0), In(2304.0)), "bytes", "UDP MSDU (802.11 maximum 2304)."),
    k(
        "traffic[].rate_mbps",
        Float,
        "required for cbr, poisson",
        r(Ex(0.0), In(1e4)),
        "Mbit/s",
        "Offered load per flow, at most 10 Gbit/s (a packet interval of at least 28.8 ns).",
    ),
    k("traffic[].start_s", Float, "0.0", SIM_S, "s", "Start of the first flow."),
    k("traffic[].start_stagger_s", Float, "0.0", SIM_S, "s", "k-th station's flow starts k * this later."),
    k("traffic[].stop_s", Float, "none", r(Ex(0.0), In(1e6)), "s", "Stop; after start_s."),
    k("traffic[].peer", Any, "\"ap\"", None, "", "Other end: a node name or one per station."),
    k("traffic[].bytes", Int, "infinite", r(In(1.0), In(1e15)), "bytes", "TCP: bytes to transfer."),
    k("traffic[].tcp", Table, "[tcp]", None, "", "TCP settings overriding [tcp] (the tcp.* keys)."),
    // queue disciplines: `ap.qdisc` and `wlan.station_qdisc`
    k(
        "qdisc.kind",
        Str,
        "\"drop-tail\"",
        None,
        "",
        "drop-tail, ack-first, keceli-sorted, keceli-grouped, pilosof, vbs, cake-ack, codel, fq-codel, airtime.",
    ),
    kw("qdisc.ack_capacity", &["ack-first"], Int, "the interface capacity", PKTS, "packets", "ACK buffer."),
    kw("qdisc.alpha", KECELI, Float, "0.8", PROB, "", "EWMA weight of eq. (2), paper 001."),
    kw("qdisc.beta", KECELI, Float, "2.0", r(Ex(0.0), In(1e3)), "", "Waiting time = beta * AvgACKint."),
    kw("qdisc.active_thresh_ms", KECELI, Float, "500.0", TIMER_MS, "ms", "Activity window."),
    kw("qdisc.timeout_ms", KECELI, Float, "100.0", TIMER_MS, "ms", "Timeout timer."),
    kw("qdisc.ifq_capacity", KECELI, Int, "capacity - capacity/2", PKTS, "packets", "IFQ size."),
    kw("qdisc.control_capacity", KECELI, Int, "max(capacity/2, 1)", PKTS, "packets", "Control queue size."),
    kw("qdisc.pass_first", KECELI, Int, "2", r(In(0.0), In(1e6)), "ACKs", "ACKs passed directly for new flows."),
    kw("qdisc.c_srt", KECELI, Int, "1", r(In(1.0), In(1e6)), "", "Sorted assignment constant (keceli-sorted)."),
    kw("qdisc.gamma", KECELI, Float, "0.5", r(In(0.0), Ex(1.0)), "", "Grouping tolerance (keceli-grouped)."),
    kw("qdisc.c", KECELI, Ints, "[2,6,12,16,20]", r(In(2.0), In(1e6)), "", "Thresholds (keceli-grouped)."),
    kw("qdisc.buffer", &["pilosof"], Int, "the interface capacity", PKTS, "packets", "B of floor(B / n_act)."),
    kw("qdisc.mss", &["pilosof"], Int, "1460", r(In(64.0), In(65495.0)), "bytes", "MSS if no SYN was seen."),
    kw("qdisc.active_thresh_ms", &["pilosof"], Float, "500.0", TIMER_MS, "ms", "Activity window for n_act."),
    kw("qdisc.c", &["vbs"], Float, "0.6", r(Ex(0.0), Ex(1.0)), "", "Target occupancy fraction."),
    kw("qdisc.tol", &["vbs"], Float, "1 / capacity^2", r(In(0.0), In(1e6)), "", "Tolerance on (Q - cB)^2."),
    kw("qdisc.shares", &["vbs"], Floats, "[] (equal)", r(In(0.0), In(1e6)), "", "Service shares by class."),
    kw("qdisc.measure", &["vbs"], Str, "\"service\"", None, "", "\"service\", \"occupancy\" or \"delivered\"."),
    kw("qdisc.window", &["vbs"], Int, "the interface capacity", PKTS, "packets", "Measurement window."),
    kw("qdisc.update", &["vbs"], Str, "\"above-target\"", None, "", "\"above-target\", \"literal\", \"partition\"."),
    kw("qdisc.mode", &["cake-ack"], Str, "\"conservative\"", None, "", "\"conservative\", \"aggressive\", \"off\"."),
    kw("qdisc.target_ms", CODEL_LIKE, Float, "5.0", TIMER_MS, "ms", "CoDel target (RFC 8289)."),
    kw("qdisc.interval_ms", CODEL_LIKE, Float, "100.0", TIMER_MS, "ms", "CoDel interval (RFC 8289)."),
    kw("qdisc.flows", FQ, Int, "1024", r(In(1.0), In(65536.0)), "queues", "Hash buckets (RFC 8290)."),
    kw("qdisc.quantum", &["fq-codel"], Int, "1514", r(In(1.0), In(1e6)), "bytes", "DRR quantum."),
    kw("qdisc.memory_limit", FQ, Int, "33554432", r(In(1.0), In(1099511627776.0)), "bytes", "Byte limit."),
    kw("qdisc.ack_filter", FQ, Str, "\"off\"", None, "", "CAKE ACK filter per flow queue."),
    kw(
        "qdisc.quantum_us",
        &["airtime"],
        Float,
        "300.0",
        r(In(1.0), In(1e6)),
        "us",
        "Airtime DRR quantum (1 us to 1 s: the deficit is integer nanoseconds).",
    ),
    kw("qdisc.fq_quantum", &["airtime"], Int, "1514", r(In(1.0), In(1e6)), "bytes", "Per-station FQ-CoDel quantum."),
    // [channel]
    k("channel.model", Str, "\"fixed\"", None, "", "\"fixed\", \"snr\" or \"threshold\"."),
    kw("channel.per", &["fixed"], Float, "0.0", PROB, "", "Error probability of links with no class member."),
    kw("channel.frames", &["fixed"], Str, "\"data\"", None, "", "Frames hit: \"data\" or \"all\"."),
    kw("channel.classes", &["fixed"], Tables, "[]", None, "", "SNR classes (tables)."),
    kw("channel.classes[].name", &["fixed"], Str, "required", None, "", "Class name."),
    kw("channel.classes[].per_down", &["fixed"], Float, "0.0", PROB, "", "Error probability of frames received."),
    kw("channel.classes[].per_up", &["fixed"], Float, "0.0", PROB, "", "Error probability of frames sent."),
    kw("channel.classes[].stations", &["fixed"], Strs, "required", None, "", "Member station names."),
    kw("channel.tx_power_dbm", &["snr"], Float, "16.0206", DBM, "dBm", "Transmit power (40 mW, ns-3)."),
    kw("channel.tx_power_dbm", &["threshold"], Float, "24.5", DBM, "dBm", "Transmit power (ns-2 Pt_)."),
    kw("channel.error_model", &["snr"], Str, "\"union_bound\"", None, "", "SNR error model."),
    kw("channel.rx_threshold_dbm", &["threshold"], Float, "-64.3747", DBM, "dBm", "ns-2 RXThresh_."),
    kw("channel.cs_threshold_dbm", &["threshold"], Float, "-78.0715", DBM, "dBm", "ns-2 CSThresh_."),
    kw("channel.propagation", RADIO, Table, "each key's default", None, "", "Log-distance propagation."),
    kw("channel.propagation.frequency_hz", RADIO, Float, "5150000000.0", r(In(1e6), In(1e12)), "Hz", "Carrier."),
    kw("channel.propagation.exponent", RADIO, Float, "3.0", r(Ex(0.0), In(10.0)), "", "Path-loss exponent."),
    kw("channel.propagation.reference_distance_m", RADIO, Float, "1.0", r(Ex(0.0), In(1e4)), "m", "d0."),
    kw("channel.propagation.reference_loss_db", RADIO, Float, "Friis at d0", DB, "dB", "Loss at d0."),
    kw("channel.propagation.shadowing_sigma_db", RADIO, Float, "0.0", r(In(0.0), In(100.0)), "dB", "Shadowing."),
    kw("channel.propagation.shadowing", RADIO, Str, "\"per_frame\"", None, "", "\"per_frame\" or \"per_link\"."),
    kw("channel.propagation.tx_antenna_gain_dbi", RADIO, Float, "0.0", DB, "dBi", "Transmit antenna gain."),
    kw("channel.propagation.rx_antenna_gain_dbi", RADIO, Float, "0.0", DB, "dBi", "Receive antenna gain."),
    kw("channel.propagation.system_loss_db", RADIO, Float, "0.0", DB, "dB", "System loss (ns-2 L_)."),
    kw("channel.noise", RADIO, Table, "each key's default", None, "", "Receiver noise."),
    kw("channel.noise.noise_figure_db", RADIO, Float, "7.0", r(In(0.0), In(100.0)), "dB", "Noise figure."),
    kw("channel.noise.ofdm_bandwidth_hz", RADIO, Float, "20000000.0", r(In(1e3), In(1e10)), "Hz", "OFDM."),
    kw("channel.noise.dsss_bandwidth_hz", RADIO, Float, "22000000.0", r(In(1e3), In(1e10)), "Hz", "DSSS."),
];

/// Text of a range with its unit: `[1, 255] attempts`, `(0, 1e6] s`.
pub fn range_text(range: (B, B), unit: &str) -> String {
    let (lo, hi) = range;
    let (l, a) = match lo {
        In(x) => ("[", x),
        Ex(x) => ("(", x),
    };
    let (h, b) = match hi {
        In(x) => ("]", x),
        Ex(x) => (")", x),
    };
    let t = format!("{l}{}, {}{h}", num(a), num(b));
    if unit.is_empty() {
        t
    } else {
        format!("{t} {unit}")
    }
}

/// A bound as people write it: 1e6, 1e-3, 32767, 0.5.
fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        let s = format!("{}", x as i64);
        if s.ends_with("0000") {
            format!("{x:e}")
        } else {
            s
        }
    } else if x.abs() < 1e-2 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

fn inside(x: f64, (lo, hi): (B, B)) -> bool {
    let lo_ok = match lo {
        In(a) => x >= a,
        Ex(a) => x > a,
    };
    let hi_ok = match hi {
        In(b) => x <= b,
        Ex(b) => x < b,
    };
    lo_ok && hi_ok
}

/// The table key of `pattern` (with `[]` for indices) under `variant`.
pub fn lookup(pattern: &str, variant: Option<&str>) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.path == pattern && (k.when.is_empty() || variant.is_some_and(|v| k.when.contains(&v))))
}

/// Where a tagged or shared section is mounted: (pattern of the section,
/// name of its tag key).
fn mount(pattern: &str) -> Option<(&'static str, Option<&'static str>)> {
    match pattern {
        "ap.qdisc" | "wlan.station_qdisc" => Some(("qdisc", Some("kind"))),
        "traffic[].tcp" | "tcp" => Some(("tcp", None)),
        "channel" => Some(("channel", Some("model"))),
        _ => None,
    }
}

/// Check every number of a scenario document (JSON, before it is
/// deserialised) against its key's range, and every key of a tagged
/// section (qdisc, channel) against the keys of its kind. Errors are
/// "dotted.path: reason". Keys the table does not know outside tagged
/// sections are left to the deserialiser (which rejects them).
pub fn check_ranges(doc: &Value) -> Result<(), String> {
    walk(doc, "", "", None, None)
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// `tagged`: the tag key of the enclosing tagged section (its keys are
/// checked for membership).
fn walk(v: &Value, path: &str, pattern: &str, variant: Option<&str>, tagged: Option<&str>) -> Result<(), String> {
    match v {
        Value::Object(map) => {
            for (key, child) in map {
                let p = join(path, key);
                let mut pat = join(pattern, key);
                let (mut var, mut tag) = (variant, tagged);
                if let Some((section, tag_key)) = mount(&pat) {
                    pat = section.to_string();
                    if let Some(t) = tag_key {
                        var = child.get(t).and_then(Value::as_str);
                        tag = Some(t);
                    }
                }
                let known = lookup(&pat, var);
                if known.is_none() && tagged.is_some() {
                    if let Some(kind) = variant.filter(|v| is_variant(v)) {
                        let keys = section_keys(pattern, kind);
                        let t = tagged.unwrap_or("kind");
                        return Err(if keys.len() <= 1 {
                            format!("{p}: unknown key: {t} {kind:?} takes no other keys")
                        } else {
                            format!("{p}: unknown key for {t} {kind:?} (expected {})", keys.join(", "))
                        });
                    }
                }
                match (known, child) {
                    (Some(k), Value::Number(_)) | (Some(k), Value::Array(_)) if k.ty.numeric() || k.range.is_some() => {
                        check_numbers(child, &p, k)?
                    }
                    _ => walk(child, &p, &pat, var, tag)?,
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &format!("{path}[{i}]"), &format!("{pattern}[]"), variant, tagged)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Keys (last segment) directly under section `pattern` for `variant`.
fn section_keys(pattern: &str, variant: &str) -> Vec<&'static str> {
    let prefix = format!("{pattern}.");
    let mut out: Vec<&'static str> = Vec::new();
    for k in KEYS {
        if let Some(rest) = k.path.strip_prefix(&prefix) {
            let direct = !rest.contains('.') && !rest.contains('[');
            if direct && (k.when.is_empty() || k.when.contains(&variant)) && !out.contains(&rest) {
                out.push(rest);
            }
        }
    }
    out
}

fn check_numbers(v: &Value, path: &str, k: &Key) -> Result<(), String> {
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                check_numbers(item, &format!("{path}[{i}]"), k)?;
            }
            Ok(())
        }
        Value::Number(n) => {
            let Some(range) = k.range else { return Ok(()) };
            let x = n.as_f64().unwrap_or(f64::NAN);
            if x.is_nan() {
                return Err(format!("{path}: NaN is not a number; must be in {}", range_text(range, k.unit)));
            }
            if x.is_infinite() {
                return Err(format!("{path}: {x} is not finite; must be in {}", range_text(range, k.unit)));
            }
            if !inside(x, range) {
                return Err(format!("{path}: must be in {}, got {n}", range_text(range, k.unit)));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The table as JSON: `[{key, when, type, default, range, min, max, unit,
/// doc}, ...]` (`range`, `min`, `max` null for non-numeric keys).
pub fn schema_json() -> Value {
    let rows: Vec<Value> = KEYS
        .iter()
        .map(|k| {
            let bound = |b: B| match b {
                In(x) => serde_json::json!({"value": x, "inclusive": true}),
                Ex(x) => serde_json::json!({"value": x, "inclusive": false}),
            };
            serde_json::json!({
                "key": k.path,
                "when": k.when,
                "type": k.ty.name(),
                "default": k.default,
                "range": k.range.map(|r| range_text(r, "")),
                "min": k.range.map(|r| bound(r.0)),
                "max": k.range.map(|r| bound(r.1)),
                "unit": k.unit,
                "doc": k.doc,
            })
        })
        .collect();
    Value::Array(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_text_reads_well() {
        assert_eq!(range_text((Ex(0.0), In(1e6)), "s"), "(0, 1e6] s");
        assert_eq!(range_text((In(1.0), In(255.0)), "attempts"), "[1, 255] attempts");
        assert_eq!(range_text((In(1e-3), In(1e6)), "Mbit/s"), "[1e-3, 1e6] Mbit/s");
        assert_eq!(range_text((In(0.0), Ex(1.0)), ""), "[0, 1)");
    }

    #[test]
    fn every_numeric_key_has_a_finite_range_and_a_unit_or_none() {
        for k in KEYS {
            if matches!(k.ty, Float | Int | Floats | Ints) {
                let (lo, hi) = k.range.unwrap_or_else(|| panic!("{} has no range", k.path));
                for b in [lo, hi] {
                    let (In(x) | Ex(x)) = b;
                    assert!(x.is_finite(), "{}", k.path);
                }
            }
        }
    }

    /// (pattern, variant, serialised default) of every key the structs
    /// serialise.
    fn struct_keys() -> Vec<(String, Option<String>, Value)> {
        use crate::config::*;
        use wifitcp_queue::QdiscConfig;
        use wifitcp_wifi::channel::ChannelConfig;
        let mut out = Vec::new();
        let mut add = |prefix: &str, variant: Option<&str>, v: Value| {
            for (key, val) in v.as_object().expect("a table") {
                out.push((format!("{prefix}.{key}"), variant.map(str::to_string), val.clone()));
                if let Value::Object(inner) = val {
                    for (k2, v2) in inner {
                        out.push((format!("{prefix}.{key}.{k2}"), variant.map(str::to_string), v2.clone()));
                    }
                }
            }
        };
        let j = |x: &dyn erased::Ser| x.json();
        let s = Scenario::from_json(
            r#"{"scenario": {"name": "x"}, "phy": {"standard": "802.11b", "data_rate_mbps": 11},
                "wlan": {"stations": 1}, "nodes": [{"name": "h"}],
                "links": [{"a": "ap", "b": "h", "rate_mbps": 100, "delay_ms": 1}],
                "traffic": [{"name": "t", "kind": "udp"}]}"#,
        )
        .unwrap();
        add("scenario", None, j(&s.scenario));
        add("phy", None, j(&s.phy));
        add("mac", None, j(&s.mac));
        add("wlan", None, j(&s.wlan));
        add("ap", None, j(&s.ap));
        add("nodes[]", None, j(&s.nodes[0]));
        add("links[]", None, j(&s.links[0]));
        add("traffic[]", None, j(&s.traffic[0]));
        let tcp = TcpSection {
            compound: Some(CompoundSection::default()),
            vegas: Some(VegasSection::default()),
            ..Default::default()
        };
        add("tcp", None, j(&tcp));
        for kind in &QdiscConfig::KINDS {
            let q: QdiscConfig = serde_json::from_value(serde_json::json!({ "kind": kind })).unwrap();
            add("qdisc", Some(kind), j(&q));
        }
        for model in &CHANNEL_MODELS {
            let c: ChannelConfig = serde_json::from_value(serde_json::json!({ "model": model })).unwrap();
            add("channel", Some(model), j(&c));
        }
        let class = wifitcp_wifi::channel::config::SnrClassConfig {
            name: "c".into(),
            per_down: 0.0,
            per_up: 0.0,
            stations: vec![],
        };
        add("channel.classes[]", Some("fixed"), j(&class));
        // keys serialised only when set (results without them are unchanged)
        let mut phy = s.phy.clone();
        phy.rate_control = wifitcp_wifi::rate::RateControlKind::Arf;
        out.push(("phy.rate_control".into(), None, Value::String("fixed".into())));
        assert!(j(&phy).get("rate_control").is_some() && j(&s.phy).get("rate_control").is_none());
        let mut wlan = s.wlan.clone();
        let m: mobility::MobilityConfig = serde_json::from_value(serde_json::json!({"model": "linear"})).unwrap();
        wlan.mobility = vec![m.clone()];
        out.push(("wlan.mobility".into(), None, Value::Null));
        assert!(j(&wlan).get("mobility").is_some() && j(&s.wlan).get("mobility").is_none());
        let mut add = |prefix: &str, v: Value| {
            for (key, val) in v.as_object().expect("a table") {
                out.push((format!("{prefix}.{key}"), None, val.clone()));
            }
        };
        add("wlan.mobility[]", j(&m));
        out
    }

    /// serde::Serialize is not object safe; this is.
    mod erased {
        pub trait Ser {
            fn json(&self) -> serde_json::Value;
        }
        impl<T: serde::Serialize> Ser for T {
            fn json(&self) -> serde_json::Value {
                serde_json::to_value(self).unwrap()
            }
        }
    }

    #[test]
    fn the_table_lists_exactly_the_keys_of_the_structs_with_their_defaults() {
        let keys = struct_keys();
        // every serialised key is in the table (compound/vegas/propagation/
        // noise sub-tables are listed key by key)
        for (path, variant, default) in &keys {
            let k = lookup(path, variant.as_deref()).unwrap_or_else(|| panic!("{path} ({variant:?}) not in KEYS"));
            if let Ok(lit) = serde_json::from_str::<Value>(k.default) {
                let tag = path.ends_with(".kind") || path.ends_with(".model");
                if !default.is_null() && !default.is_object() && !tag {
                    let same = match (lit.as_f64(), default.as_f64()) {
                        (Some(a), Some(b)) => (a - b).abs() <= 1e-4 * b.abs().max(1.0),
                        _ => lit == *default,
                    };
                    assert!(same, "{path} ({variant:?}): table default {} but the struct's is {default}", k.default);
                }
            }
        }
        // every table key is serialised by some struct
        for k in KEYS {
            let found = keys.iter().any(|(p, v, _)| {
                p == k.path && (k.when.is_empty() || v.as_deref().is_some_and(|v| k.when.contains(&v)))
            });
            assert!(found, "{} in KEYS but in no struct", k.path);
        }
    }

    #[test]
    fn tcp_defaults_are_the_tcp_crates() {
        let t = wifitcp_tcp::TcpConfig::default();
        let d = |p: &str| lookup(p, None).unwrap().default;
        assert_eq!(d("tcp.mss"), t.mss.to_string());
        assert_eq!(d("tcp.syn_retries"), t.syn_retries.to_string());
        assert_eq!(d("tcp.max_retransmissions"), t.max_retransmissions.to_string());
        let ms = |x: wifitcp_core::SimDur| format!("{:.1}", x.as_nanos() as f64 / 1e6);
        assert_eq!(d("tcp.min_rto_ms"), ms(t.min_rto));
        assert_eq!(d("tcp.max_rto_ms"), ms(t.max_rto));
        assert_eq!(d("tcp.initial_rto_ms"), ms(t.initial_rto));
        let da = t.delayed_ack.unwrap();
        assert_eq!(d("tcp.delayed_ack_ms"), ms(da.timeout));
        assert_eq!(d("tcp.delayed_ack_count"), da.count.to_string());
        for (k, v) in [
            ("tcp.sack", t.sack),
            ("tcp.timestamps", t.timestamps),
            ("tcp.window_scaling", t.window_scaling),
            ("tcp.limited_transmit", t.limited_transmit),
            ("tcp.trace_cwnd", t.trace),
        ] {
            assert_eq!(d(k), v.to_string(), "{k}");
        }
    }

    fn doc(extra: &str) -> String {
        format!(
            r#"{{"scenario": {{"name": "x"}}, "phy": {{"standard": "802.11b", "data_rate_mbps": 11}},
                "wlan": {{"stations": 1}}, "nodes": [{{"name": "h"}}],
                "links": [{{"a": "ap", "b": "h", "rate_mbps": 100, "delay_ms": 1}}]{extra}}}"#
        )
    }

    #[test]
    fn values_the_core_cannot_run_are_errors_naming_the_key() {
        let bad = |extra: &str| crate::config::Scenario::from_json(&doc(extra)).unwrap_err();
        let e = bad(r#", "links": [{"a": "ap", "b": "h", "rate_mbps": 1e-300, "delay_ms": 1}]"#);
        assert_eq!(e, "links[0].rate_mbps: must be in [1e-3, 1e6] Mbit/s, got 1e-300");
        let e = bad(r#", "traffic": [{"name": "t", "kind": "udp", "pattern": "cbr", "rate_mbps": 3e7}]"#);
        assert!(e.starts_with("traffic[0].rate_mbps: must be in (0, 1e4] Mbit/s"), "{e}");
        let e = bad(r#", "ap": {"qdisc": {"kind": "airtime", "quantum_us": 1e300}}"#);
        assert!(e.starts_with("ap.qdisc.quantum_us: must be in [1, 1e6] us"), "{e}");
        // 1e7 goodput samples: a result the run would spend minutes writing
        let long = doc(r#", "traffic": [{"name": "u", "kind": "udp"}]"#)
            .replace(r#""name": "x"}"#, r#""name": "x", "duration_s": 1e6, "sample_interval_s": 0.1}"#);
        let e = crate::config::Scenario::from_json(&long).unwrap_err();
        assert_eq!(
            e,
            "scenario.sample_interval_s: 0.1 s over duration_s = 1000000 s for 1 flow gives 10000000 goodput \
             samples, more than 2000000: raise it to at least 0.5 s"
        );
        let e = bad(r#", "wlan": {"stations": 1, "positions": [[0, 2e6]]}"#);
        assert!(e.starts_with("wlan.positions[0][1]: must be in"), "{e}");
        let e = bad(r#", "tcp": {"compound": {"beta": 1.0}}"#);
        assert!(e.starts_with("tcp.compound.beta: must be in (0, 1)"), "{e}");
        let e = bad(r#", "traffic": [{"name": "t", "kind": "tcp", "peer": "h", "tcp": {"mss": 10}}]"#);
        assert!(e.starts_with("traffic[0].tcp.mss: must be in [64, 65495] bytes"), "{e}");
    }

    #[test]
    fn unknown_keys_of_a_qdisc_or_channel_are_reported_at_the_key() {
        let bad = |extra: &str| crate::config::Scenario::from_json(&doc(extra)).unwrap_err();
        let e = bad(r#", "ap": {"qdisc": {"kind": "keceli-grouped", "gama": 0.5}}"#);
        assert!(e.starts_with("ap.qdisc.gama: unknown key for kind \"keceli-grouped\" (expected kind, alpha"), "{e}");
        let e = bad(r#", "wlan": {"stations": 1, "station_qdisc": {"kind": "codel", "quantum_us": 5}}"#);
        assert!(e.starts_with("wlan.station_qdisc.quantum_us: unknown key for kind \"codel\""), "{e}");
        let e = bad(r#", "channel": {"model": "snr", "propagation": {"exponentt": 3}}"#);
        assert!(e.starts_with("channel.propagation.exponentt: unknown key for model \"snr\""), "{e}");
        let e = bad(r#", "ap": {"qdisc": {"kind": "drop-tail", "target": 5}}"#);
        assert_eq!(e, "ap.qdisc.target: unknown key: kind \"drop-tail\" takes no other keys");
        // an unknown kind is the deserialiser's to report
        let e = bad(r#", "ap": {"qdisc": {"kind": "red", "x": 1}}"#);
        assert!(e.contains("red"), "{e}");
    }
}
