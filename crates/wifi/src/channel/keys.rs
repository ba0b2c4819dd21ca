//! The keys of the `[channel]` table of a scenario, relative to it:
//! `model` and each model's parameters, with types, defaults and physical
//! ranges. The simulator mounts them into its scenario schema. A new
//! channel model adds its name to [`CHANNEL_MODELS`] and its rows here.
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{k, kw, r, Key, DB, DBM, PROB};

/// Every `model` of a channel.
pub const CHANNEL_MODELS: [&str; 3] = ["fixed", "snr", "threshold"];

const RADIO: &[&str] = &["snr", "threshold"];

const FADING_MODELS: &str = "\"none\"; in time (Clarke/Jakes): \"rayleigh\", \"rician\"; per frame: \"nakagami\", \"block_rayleigh\", \"block_rician\".";
const DOPPLER: &str = "Max Doppler shift (rayleigh, rician); default v f_c / c of the nodes' relative speed.";

pub static KEYS: &[Key] = &[
    k("model", Str, "\"fixed\"", None, "", "\"fixed\", \"snr\" or \"threshold\"."),
    kw("per", &["fixed"], Float, "0.0", PROB, "", "Error probability of links with no class member."),
    kw("frames", &["fixed"], Str, "\"data\"", None, "", "Frames hit: \"data\" or \"all\"."),
    kw("classes", &["fixed"], Tables, "[]", None, "", "SNR classes (tables)."),
    kw("classes[].name", &["fixed"], Str, "required", None, "", "Class name."),
    kw("classes[].per_down", &["fixed"], Float, "0.0", PROB, "", "Error probability of frames received."),
    kw("classes[].per_up", &["fixed"], Float, "0.0", PROB, "", "Error probability of frames sent."),
    kw("classes[].stations", &["fixed"], Strs, "required", None, "", "Member station names."),
    kw("tx_power_dbm", &["snr"], Float, "16.0206", DBM, "dBm", "Transmit power (40 mW, ns-3)."),
    kw("tx_power_dbm", &["threshold"], Float, "24.5", DBM, "dBm", "Transmit power (ns-2 Pt_)."),
    kw("error_model", &["snr"], Str, "\"union_bound\"", None, "", "SNR error model."),
    kw("rx_threshold_dbm", &["threshold"], Float, "-64.3747", DBM, "dBm", "ns-2 RXThresh_."),
    kw("cs_threshold_dbm", &["threshold"], Float, "-78.0715", DBM, "dBm", "ns-2 CSThresh_."),
    kw("cs_threshold_dbm", &["snr"], Float, "none", DBM, "dBm", "Carrier-sense threshold (hidden nodes)."),
    kw(
        "reception",
        &["snr"],
        Str,
        "\"shared\"",
        None,
        "",
        "\"shared\" (one collision domain when all hear all) or \"per_receiver\" (each receiver locks and captures).",
    ),
    kw(
        "adjacent_channel",
        RADIO,
        Str,
        "\"none\"",
        None,
        "",
        "\"none\" or \"mask\": frames leak into cells on channels under 40 MHz away by the PHY's transmit mask.",
    ),
    kw("ap_tx_power_dbm", RADIO, Float, "tx_power_dbm", DBM, "dBm", "Transmit power of APs."),
    kw("ap_antenna_gain_dbi", RADIO, Float, "0.0", DB, "dBi", "AP antenna gain (every AP link)."),
    kw("sta_antenna_gain_dbi", RADIO, Float, "0.0", DB, "dBi", "Station antenna gain."),
    kw(
        "sta_antenna",
        RADIO,
        Str,
        "\"omni\"",
        None,
        "",
        "\"omni\", \"toward_ap\" (gain on AP links only) or \"beam\" (aimed at the AP, gain by bearing).",
    ),
    kw("power_control", RADIO, Str, "\"none\"", None, "", "\"none\" or \"game\" (power-game equilibrium)."),
    kw("power_cost_per_w", RADIO, Float, "0.2", r(Ex(0.0), In(1e6)), "1/W", "Power cost c_i of the game."),
    kw("power_max_w", RADIO, Float, "tx_power_dbm", r(Ex(0.0), In(1e3)), "W", "Power cap p_max of the game."),
    kw("propagation", RADIO, Table, "each key's default", None, "", "Log-distance propagation."),
    kw("propagation.frequency_hz", RADIO, Float, "5150000000.0", r(In(1e6), In(1e12)), "Hz", "Carrier."),
    kw("propagation.exponent", RADIO, Float, "3.0", r(Ex(0.0), In(10.0)), "", "Path-loss exponent."),
    kw("propagation.reference_distance_m", RADIO, Float, "1.0", r(Ex(0.0), In(1e4)), "m", "d0."),
    kw("propagation.reference_loss_db", RADIO, Float, "Friis at d0", DB, "dB", "Loss at d0."),
    kw("propagation.shadowing_sigma_db", RADIO, Float, "0.0", r(In(0.0), In(100.0)), "dB", "Shadowing."),
    kw("propagation.shadowing", RADIO, Str, "\"per_frame\"", None, "", "\"per_frame\" or \"per_link\"."),
    kw("propagation.breakpoint_m", RADIO, Float, "none", r(Ex(0.0), In(1e5)), "m", "Dual-slope loss: d_BP."),
    kw("propagation.exponent_after_breakpoint", RADIO, Float, "exponent", r(Ex(0.0), In(10.0)), "", "Beyond d_BP."),
    kw(
        "propagation.shadowing_sigma_after_breakpoint_db",
        RADIO,
        Float,
        "shadowing_sigma_db",
        r(In(0.0), In(100.0)),
        "dB",
        "Shadowing beyond d_BP.",
    ),
    kw("propagation.tx_antenna_gain_dbi", RADIO, Float, "0.0", DB, "dBi", "Transmit antenna gain."),
    kw("propagation.rx_antenna_gain_dbi", RADIO, Float, "0.0", DB, "dBi", "Receive antenna gain."),
    kw("propagation.system_loss_db", RADIO, Float, "0.0", DB, "dB", "System loss (ns-2 L_)."),
    kw("fading", RADIO, Table, "none", None, "", "Small-scale fading of every link (one process per node pair)."),
    kw("fading.model", RADIO, Str, "\"none\"", None, "", FADING_MODELS),
    kw("fading.doppler_hz", RADIO, Float, "from the nodes' motion", r(In(0.0), In(1e5)), "Hz", DOPPLER),
    kw(
        "fading.k_db",
        RADIO,
        Float,
        "required (rician)",
        r(In(-100.0), In(100.0)),
        "dB",
        "Rician K factor (LoS/diffuse).",
    ),
    kw("fading.m", RADIO, Float, "required (nakagami)", r(In(0.5), In(1e6)), "", "Nakagami shape m (1: Rayleigh)."),
    kw("fading.sinusoids", RADIO, Int, "32", r(In(1.0), In(4096.0)), "", "Sinusoids M (rayleigh, rician)."),
    kw(
        "fading.los_angle_deg",
        RADIO,
        Float,
        "0.0",
        r(In(-360.0), In(360.0)),
        "deg",
        "LoS angle to the motion (rician).",
    ),
    kw(
        "fading.los_distance_m",
        RADIO,
        Float,
        "none",
        r(Ex(0.0), In(1e5)),
        "m",
        "Longer links have no LoS (K = 0) (rician).",
    ),
    kw(
        "tgn_model",
        &["snr"],
        Str,
        "none",
        None,
        "",
        "TGn channel model \"B\"-\"F\": sets the dual-slope loss, its shadowing and the fading.",
    ),
    kw("noise", RADIO, Table, "each key's default", None, "", "Receiver noise."),
    kw("noise.noise_figure_db", RADIO, Float, "7.0", r(In(0.0), In(100.0)), "dB", "Noise figure."),
    kw("noise.ofdm_bandwidth_hz", RADIO, Float, "20000000.0", r(In(1e3), In(1e10)), "Hz", "OFDM."),
    kw("noise.dsss_bandwidth_hz", RADIO, Float, "22000000.0", r(In(1e3), In(1e10)), "Hz", "DSSS."),
];
