//! Scenario configuration of the channel (the `[channel]` table), with
//! documented defaults, and its validation into a [`ChannelModel`].
//!
//! ```toml
//! # Error-free channel (the default when [channel] is absent):
//! [channel]
//! model = "fixed"
//! per = 0.0                 # default per-attempt error probability
//! frames = "data"           # "data" (default) or "all"
//!
//! # SNR classes (Pokhrel & Williamson): stations in class2 lose 30 % of the
//! # data frames they receive, each attempt independently.
//! [[channel.classes]]
//! name = "class2"
//! per_down = 0.3            # frames the station receives (default 0)
//! per_up = 0.0              # frames the station sends (default 0)
//! stations = ["sta5", "sta6", "sta7", "sta8", "sta9"]
//! ```
//!
//! ```toml
//! [channel]
//! model = "snr"
//! tx_power_dbm = 16.0206    # default node transmit power (40 mW)
//! error_model = "union_bound"
//! [channel.propagation]
//! frequency_hz = 5.15e9
//! exponent = 3.0
//! reference_distance_m = 1.0
//! # reference_loss_db = 46.68   # default: Friis at the reference distance
//! shadowing_sigma_db = 0.0
//! shadowing = "per_frame"   # or "per_link"
//! tx_antenna_gain_dbi = 0.0
//! rx_antenna_gain_dbi = 0.0
//! system_loss_db = 0.0
//! [channel.noise]
//! noise_figure_db = 7.0
//! ofdm_bandwidth_hz = 20e6
//! dsss_bandwidth_hz = 22e6
//! ```
//!
//! ```toml
//! [channel]
//! model = "threshold"       # ns-2 reception
//! tx_power_dbm = 24.5       # ns-2 Pt_ = 0.28183815 W
//! rx_threshold_dbm = -64.37 # ns-2 RXThresh_ = 3.652e-10 W
//! cs_threshold_dbm = -78.07 # ns-2 CSThresh_ = 1.559e-11 W
//! [channel.propagation]     # same table as above
//! ```
//!
//! ```toml
//! # Per-node radio, hidden nodes and power control (snr or threshold):
//! [channel]
//! model = "snr"
//! tx_power_dbm = 15.0           # stations
//! ap_tx_power_dbm = 25.0        # APs (default: tx_power_dbm)
//! ap_antenna_gain_dbi = 18.0    # on every AP link
//! sta_antenna_gain_dbi = 15.0
//! sta_antenna = "toward_ap"     # gain on AP links only ("omni": every link; "beam": by bearing)
//! cs_threshold_dbm = -82.0      # who hears whom (medium::sense); snr: none by default
//! power_control = "game"        # stations at the power game's equilibrium
//! power_cost_per_w = 0.2        # c_i
//! power_max_w = 4.0             # p_max (default: the station's tx_power_dbm)
//! ```
//!
//! ```toml
//! # Small-scale fading on every link (snr or threshold); absent: none.
//! [channel.fading]
//! model = "rayleigh"        # "none", "rayleigh", "rician", "nakagami",
//!                           # "block_rayleigh", "block_rician"
//! doppler_hz = 8.0          # max Doppler shift; default: from the nodes' motion
//! # k_db = 6.0              # Rician K factor (rician, block_rician: required)
//! # m = 1.5                 # Nakagami m (nakagami: required)
//! # sinusoids = 32          # sum-of-sinusoids terms (rayleigh, rician)
//! # los_angle_deg = 0.0     # LoS arrival angle against the motion (rician)
//! ```
//!
//! Defaults of the SNR model follow ns-3's (LogDistancePropagationLossModel:
//! exponent 3, 46.68 dB at 1 m for 5.15 GHz; YansWifiPhy: 16.0206 dBm,
//! 7 dB noise figure), the threshold model's follow ns-2's
//! `ns-default.tcl` (WaveLAN 914 MHz values). Unknown keys are errors.

use super::error_model::UnionBoundModel;
use super::fading::{Doppler, FadingModel, FadingSpec, DEFAULT_SINUSOIDS};
use super::fixed::{FixedPer, FrameScope, SnrClass, SnrClasses};
use super::model::{ChannelModel, Radio, SnrChannel, ThresholdChannel};
use super::propagation::{friis_loss_db, watts_to_dbm, Breakpoint, LinkBudget, LogDistance, ShadowingMode};
use serde::{Deserialize, Serialize};
use wifitcp_core::NodeId;

/// A configuration error: the key's dotted path and the reason.
pub use wifitcp_core::ConfigError;

fn err(field: impl Into<String>, reason: impl Into<String>) -> ConfigError {
    ConfigError::new(field, reason)
}

/// The `[channel]` table.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum ChannelConfig {
    Fixed(FixedConfig),
    Snr(SnrConfig),
    Threshold(ThresholdConfig),
}

impl Default for ChannelConfig {
    /// An error-free channel.
    fn default() -> Self {
        ChannelConfig::Fixed(FixedConfig::default())
    }
}

/// `model = "fixed"`.
#[derive(Clone, PartialEq, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FixedConfig {
    /// Per-attempt error probability of links with no class member; 0.
    pub per: f64,
    /// Which frames the probabilities hit; "data".
    pub frames: FrameScope,
    /// SNR classes; none.
    pub classes: Vec<SnrClassConfig>,
}

/// One `[[channel.classes]]` entry.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnrClassConfig {
    pub name: String,
    /// Error probability of frames members receive; 0.
    #[serde(default)]
    pub per_down: f64,
    /// Error probability of frames members send; 0.
    #[serde(default)]
    pub per_up: f64,
    /// Member station names.
    pub stations: Vec<String>,
}

/// `[channel.propagation]`.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PropagationConfig {
    /// Carrier frequency, Hz; 5.15e9.
    pub frequency_hz: f64,
    /// Path-loss exponent n; 3.0.
    pub exponent: f64,
    /// Reference distance d0, m; 1.0.
    pub reference_distance_m: f64,
    /// Loss at d0, dB; default Friis at d0 and `frequency_hz`.
    pub reference_loss_db: Option<f64>,
    /// Shadowing standard deviation, dB; 0 (none).
    pub shadowing_sigma_db: f64,
    /// "per_frame" (default, ns-2) or "per_link".
    pub shadowing: ShadowingMode,
    /// Breakpoint distance d_BP of a dual-slope path loss, m; none (one
    /// slope). Beyond it the exponent and the shadowing deviation may
    /// change (the TGn models, `channel.tgn_model`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breakpoint_m: Option<f64>,
    /// Path-loss exponent beyond `breakpoint_m`; `exponent`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exponent_after_breakpoint: Option<f64>,
    /// Shadowing deviation beyond `breakpoint_m`, dB; `shadowing_sigma_db`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadowing_sigma_after_breakpoint_db: Option<f64>,
    /// Antenna gains, dBi; 0.
    pub tx_antenna_gain_dbi: f64,
    pub rx_antenna_gain_dbi: f64,
    /// System loss, dB; 0 (ns-2 L_ = 1).
    pub system_loss_db: f64,
}

impl Default for PropagationConfig {
    fn default() -> Self {
        PropagationConfig {
            frequency_hz: 5.15e9,
            exponent: 3.0,
            reference_distance_m: 1.0,
            reference_loss_db: None,
            shadowing_sigma_db: 0.0,
            shadowing: ShadowingMode::PerFrame,
            breakpoint_m: None,
            exponent_after_breakpoint: None,
            shadowing_sigma_after_breakpoint_db: None,
            tx_antenna_gain_dbi: 0.0,
            rx_antenna_gain_dbi: 0.0,
            system_loss_db: 0.0,
        }
    }
}

/// `[channel.noise]`.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NoiseConfig {
    /// Receiver noise figure, dB; 7.
    pub noise_figure_db: f64,
    /// Noise bandwidth of OFDM modes, Hz; 20e6.
    pub ofdm_bandwidth_hz: f64,
    /// Noise bandwidth of DSSS modes, Hz; 22e6.
    pub dsss_bandwidth_hz: f64,
}

impl Default for NoiseConfig {
    fn default() -> Self {
        NoiseConfig { noise_figure_db: 7.0, ofdm_bandwidth_hz: 20e6, dsss_bandwidth_hz: 22e6 }
    }
}

/// `[channel.fading]`: small-scale fading of every link, one process per
/// unordered pair of nodes ([`super::fading::LinkFading`]). Every key but
/// `model` is optional and only allowed where the model reads it, so a
/// table never carries a parameter that does nothing.
#[derive(Clone, PartialEq, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FadingConfig {
    /// The model; "none".
    pub model: FadingKind,
    /// Maximum Doppler shift f_d, Hz (rayleigh, rician); default: from the
    /// relative speed of the link's nodes and `propagation.frequency_hz`
    /// (f_d = v f_c / c; 0, a frozen channel, for nodes that stand still).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doppler_hz: Option<f64>,
    /// Rician K factor, dB (rician, block_rician: required).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k_db: Option<f64>,
    /// Nakagami shape m, >= 0.5 (nakagami: required).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub m: Option<f64>,
    /// Sinusoids M of the sums of sinusoids (rayleigh, rician); 32.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sinusoids: Option<u32>,
    /// Line-of-sight arrival angle against the direction of motion, degrees
    /// (rician); 0 (the LoS has the full Doppler shift f_d).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub los_angle_deg: Option<f64>,
    /// Links longer than this at their first frame have no line of sight
    /// (K = 0: Rayleigh) (rician, block_rician), m; none (every link has
    /// the K factor). The TGn models' LoS ends at their breakpoint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub los_distance_m: Option<f64>,
}

/// The fading models (`channel.fading.model`, closed set).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FadingKind {
    #[default]
    None,
    /// Clarke/Jakes Rayleigh fading in time (sum of sinusoids).
    Rayleigh,
    /// Rice: a line-of-sight sinusoid over Clarke's diffuse part.
    Rician,
    /// Nakagami-m power gain, one draw per frame (ns-3's model).
    Nakagami,
    /// One independent Rayleigh draw per frame.
    BlockRayleigh,
    /// One independent Rician draw per frame.
    BlockRician,
}

impl FadingKind {
    /// The name a scenario gives the model.
    pub fn name(self) -> &'static str {
        match self {
            FadingKind::None => "none",
            FadingKind::Rayleigh => "rayleigh",
            FadingKind::Rician => "rician",
            FadingKind::Nakagami => "nakagami",
            FadingKind::BlockRayleigh => "block_rayleigh",
            FadingKind::BlockRician => "block_rician",
        }
    }
}

impl FadingConfig {
    /// Validates the table into a spec (`None` for model "none") at carrier
    /// `carrier_hz`.
    pub fn spec(&self, carrier_hz: f64) -> Result<Option<FadingSpec>, ConfigError> {
        use FadingKind as F;
        let at = |k: &str| format!("channel.fading.{k}");
        let name = self.model.name();
        let only = |k: &str, set: bool, allowed: &[FadingKind]| {
            if set && !allowed.contains(&self.model) {
                Err(err(at(k), format!("not a parameter of fading model \"{name}\"")))
            } else {
                Ok(())
            }
        };
        let sos = [F::Rayleigh, F::Rician];
        only("doppler_hz", self.doppler_hz.is_some(), &sos)?;
        only("sinusoids", self.sinusoids.is_some(), &sos)?;
        only("los_angle_deg", self.los_angle_deg.is_some(), &[F::Rician])?;
        only("k_db", self.k_db.is_some(), &[F::Rician, F::BlockRician])?;
        only("los_distance_m", self.los_distance_m.is_some(), &[F::Rician, F::BlockRician])?;
        only("m", self.m.is_some(), &[F::Nakagami])?;
        let required = |k: &str, v: Option<f64>| {
            let v = v.ok_or_else(|| err(at(k), format!("required with fading model \"{name}\"")))?;
            finite(&at(k), v)
        };
        let k_factor = || required("k_db", self.k_db).map(|k| 10f64.powf(k / 10.0));
        let sinusoids = self.sinusoids.map_or(DEFAULT_SINUSOIDS, |m| m as usize);
        let model = match self.model {
            F::None => return Ok(None),
            F::Rayleigh => FadingModel::Rayleigh { sinusoids },
            F::Rician => FadingModel::Rician {
                k_factor: k_factor()?,
                los_angle_rad: finite(&at("los_angle_deg"), self.los_angle_deg.unwrap_or(0.0))?.to_radians(),
                sinusoids,
            },
            F::Nakagami => FadingModel::Nakagami { m: required("m", self.m)? },
            F::BlockRayleigh => FadingModel::BlockRayleigh,
            F::BlockRician => FadingModel::BlockRician { k_factor: k_factor()? },
        };
        let doppler = match self.doppler_hz {
            Some(f) => Doppler::Fixed(f),
            None => Doppler::Motion { carrier_hz },
        };
        let los_distance_m = self.los_distance_m.map(|d| positive(&at("los_distance_m"), d)).transpose()?;
        let spec = FadingSpec { model, doppler, los_distance_m };
        spec.check().map_err(|e| {
            let key = match e {
                super::fading::FadingError::Doppler(_) => "doppler_hz",
                super::fading::FadingError::NoSinusoids => "sinusoids",
                super::fading::FadingError::KFactor(_) => "k_db",
                super::fading::FadingError::NakagamiM(_) => "m",
                super::fading::FadingError::LosAngle(_) => "los_angle_deg",
            };
            err(at(key), e.to_string())
        })?;
        Ok(Some(spec))
    }
}

/// The SNR error models (closed set).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorModelKind {
    /// [`UnionBoundModel`].
    #[default]
    UnionBound,
}

/// How a cell receives overlapping frames (`channel.reception`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reception {
    /// One collision domain while every station hears every other.
    #[default]
    Shared,
    /// Every receiver on its own: it locks on the first frame it hears and
    /// judges it against the interference of the others (`medium::sense`).
    PerReceiver,
}

/// Whether frames leak into cells on other channels
/// (`channel.adjacent_channel`, `channel::leakage`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdjacentChannel {
    /// Cells on different channels never meet.
    #[default]
    None,
    /// By the PHY's transmit spectrum mask: channels that leak into each
    /// other share one cell, whose stations sense frames of the other
    /// channels by energy and take their leaked power as interference.
    Mask,
}

/// Where a station's antenna gain applies (`channel.sta_antenna`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StaAntenna {
    #[default]
    Omni,
    TowardAp,
    /// Aimed at its AP, the gain toward any other node by its bearing
    /// (`channel::antenna`).
    Beam,
}

/// Transmit power control (`channel.power_control`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PowerControl {
    #[default]
    None,
    Game,
}

/// The per-node radio keys of a power-based model, validated.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct NodeKeys {
    pub tx_power_dbm: f64,
    pub ap_tx_power_dbm: f64,
    pub ap_antenna_gain_dbi: f64,
    pub sta_antenna_gain_dbi: f64,
    pub sta_antenna: StaAntenna,
    pub power_control: PowerControl,
    pub power_cost_per_w: f64,
    /// `None`: each station's own transmit power.
    pub power_max_w: Option<f64>,
}

impl NodeKeys {
    /// Whether every key is at its default (one power, no extra gains, no
    /// power control): the per-node radio is then not built at all.
    pub fn is_plain(&self) -> bool {
        self.ap_tx_power_dbm == self.tx_power_dbm
            && self.ap_antenna_gain_dbi == 0.0
            && self.sta_antenna_gain_dbi == 0.0
            && self.power_control == PowerControl::None
    }
}

/// Default power cost c_i of the power game, per W (the standalone
/// model's, `wifitcp.models.power_game`).
pub const GAME_DEFAULT_COST_PER_W: f64 = 0.2;

/// Default transmit power of the SNR model: 40 mW (ns-3 YansWifiPhy).
pub const SNR_DEFAULT_TX_POWER_DBM: f64 = 16.0206;
/// ns-2 `Phy/WirelessPhy set Pt_ 0.28183815` (W).
pub const NS2_PT_W: f64 = 0.281_838_15;
/// ns-2 `Phy/WirelessPhy set RXThresh_ 3.652e-10` (W).
pub const NS2_RX_THRESH_W: f64 = 3.652e-10;
/// ns-2 `Phy/WirelessPhy set CSThresh_ 1.559e-11` (W).
pub const NS2_CS_THRESH_W: f64 = 1.559e-11;

/// `model = "snr"`.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SnrConfig {
    /// Default node transmit power, dBm; 16.0206.
    pub tx_power_dbm: f64,
    pub error_model: ErrorModelKind,
    /// Carrier-sense threshold, dBm; none (every station senses every
    /// other). With it, `medium::sense` decides who hears whom.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cs_threshold_dbm: Option<f64>,
    /// How a cell in which every station hears every other, within the
    /// shared view's distance, receives overlapping frames: "shared"
    /// (default: one collision domain, an overlap loses every frame at
    /// every receiver) or "per_receiver" (each receiver on its own, with
    /// capture, `medium::sense`: what a cell with hidden nodes gets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reception: Option<Reception>,
    /// "none" (default) or "mask": adjacent-channel leakage by the PHY's
    /// transmit spectrum mask (`channel::leakage`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adjacent_channel: Option<AdjacentChannel>,
    /// Transmit power of APs, dBm; default `tx_power_dbm`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ap_tx_power_dbm: Option<f64>,
    /// AP antenna gain, dBi (on every link of an AP, a sector antenna
    /// covering the cell); 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ap_antenna_gain_dbi: Option<f64>,
    /// Station antenna gain, dBi; 0. Where it applies: `sta_antenna`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sta_antenna_gain_dbi: Option<f64>,
    /// "omni" (default: the gain on every link), "toward_ap" (a
    /// directional antenna aimed at the AP: the gain on links with an AP,
    /// 0 dBi toward other stations) or "beam" (aimed at the AP, the gain
    /// toward any node by its bearing off boresight: 3GPP TR 36.814's
    /// pattern, `channel::antenna`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sta_antenna: Option<StaAntenna>,
    /// "none" (default) or "game": stations send at the Nash-equilibrium
    /// power of the power game (paper 000 eqs. 1-3, `channel::power`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_control: Option<PowerControl>,
    /// Power cost c_i of the game, per W; 0.2.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_cost_per_w: Option<f64>,
    /// Power cap p_max of the game, W; the station's `tx_power_dbm`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_max_w: Option<f64>,
    pub propagation: PropagationConfig,
    pub noise: NoiseConfig,
    /// Small-scale fading (`[channel.fading]`); none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fading: Option<FadingConfig>,
    /// One of the IEEE 802.11 TGn channel models ("B" to "F",
    /// `channel::presets::tgn`): sets the dual-slope path loss, the
    /// shadowing on either side of the breakpoint and Rician/Rayleigh
    /// fading; none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tgn_model: Option<super::presets::TgnModel>,
}

impl Default for SnrConfig {
    fn default() -> Self {
        SnrConfig {
            tx_power_dbm: SNR_DEFAULT_TX_POWER_DBM,
            error_model: ErrorModelKind::UnionBound,
            cs_threshold_dbm: None,
            reception: None,
            adjacent_channel: None,
            ap_tx_power_dbm: None,
            ap_antenna_gain_dbi: None,
            sta_antenna_gain_dbi: None,
            sta_antenna: None,
            power_control: None,
            power_cost_per_w: None,
            power_max_w: None,
            propagation: PropagationConfig::default(),
            noise: NoiseConfig::default(),
            fading: None,
            tgn_model: None,
        }
    }
}

/// `model = "threshold"`.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ThresholdConfig {
    /// Default node transmit power, dBm; 24.5 (ns-2 Pt_).
    pub tx_power_dbm: f64,
    /// Reception threshold, dBm; -64.37 (ns-2 RXThresh_).
    pub rx_threshold_dbm: f64,
    /// Carrier-sense threshold, dBm; -78.07 (ns-2 CSThresh_).
    pub cs_threshold_dbm: Option<f64>,
    /// "none" (default) or "mask": adjacent-channel leakage by the PHY's
    /// transmit spectrum mask (`channel::leakage`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adjacent_channel: Option<AdjacentChannel>,
    /// Transmit power of APs, dBm; default `tx_power_dbm`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ap_tx_power_dbm: Option<f64>,
    /// AP antenna gain, dBi (on every link of an AP, a sector antenna
    /// covering the cell); 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ap_antenna_gain_dbi: Option<f64>,
    /// Station antenna gain, dBi; 0. Where it applies: `sta_antenna`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sta_antenna_gain_dbi: Option<f64>,
    /// "omni" (default: the gain on every link), "toward_ap" (a
    /// directional antenna aimed at the AP: the gain on links with an AP,
    /// 0 dBi toward other stations) or "beam" (aimed at the AP, the gain
    /// toward any node by its bearing off boresight: 3GPP TR 36.814's
    /// pattern, `channel::antenna`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sta_antenna: Option<StaAntenna>,
    /// "none" (default) or "game": stations send at the Nash-equilibrium
    /// power of the power game (paper 000 eqs. 1-3, `channel::power`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_control: Option<PowerControl>,
    /// Power cost c_i of the game, per W; 0.2.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_cost_per_w: Option<f64>,
    /// Power cap p_max of the game, W; the station's `tx_power_dbm`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_max_w: Option<f64>,
    pub propagation: PropagationConfig,
    /// Only used to report SNR; the threshold decides reception.
    pub noise: NoiseConfig,
    /// Small-scale fading (`[channel.fading]`): the threshold is applied
    /// to the faded received power; none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fading: Option<FadingConfig>,
}

impl Default for ThresholdConfig {
    fn default() -> Self {
        ThresholdConfig {
            tx_power_dbm: watts_to_dbm(NS2_PT_W),
            rx_threshold_dbm: watts_to_dbm(NS2_RX_THRESH_W),
            cs_threshold_dbm: Some(watts_to_dbm(NS2_CS_THRESH_W)),
            adjacent_channel: None,
            ap_tx_power_dbm: None,
            ap_antenna_gain_dbi: None,
            sta_antenna_gain_dbi: None,
            sta_antenna: None,
            power_control: None,
            power_cost_per_w: None,
            power_max_w: None,
            propagation: PropagationConfig::default(),
            noise: NoiseConfig::default(),
            fading: None,
        }
    }
}

fn finite(field: &str, v: f64) -> Result<f64, ConfigError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(err(field, format!("must be a finite number, got {v}")))
    }
}

fn positive(field: &str, v: f64) -> Result<f64, ConfigError> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(err(field, format!("must be a positive number, got {v}")))
    }
}

fn probability(field: &str, v: f64) -> Result<FixedPer, ConfigError> {
    FixedPer::new(v).map_err(|r| err(field, r))
}

fn radio(p: &PropagationConfig, n: &NoiseConfig) -> Result<Radio, ConfigError> {
    let f = positive("channel.propagation.frequency_hz", p.frequency_hz)?;
    let d0 = positive("channel.propagation.reference_distance_m", p.reference_distance_m)?;
    let exponent = positive("channel.propagation.exponent", p.exponent)?;
    let pl0 = match p.reference_loss_db {
        Some(v) => finite("channel.propagation.reference_loss_db", v)?,
        None => friis_loss_db(d0, f),
    };
    let sigma = p.shadowing_sigma_db;
    if !(sigma.is_finite() && sigma >= 0.0) {
        return Err(err("channel.propagation.shadowing_sigma_db", format!("must be >= 0, got {sigma}")));
    }
    let breakpoint = match p.breakpoint_m {
        None => {
            for (k, set) in [
                ("exponent_after_breakpoint", p.exponent_after_breakpoint.is_some()),
                ("shadowing_sigma_after_breakpoint_db", p.shadowing_sigma_after_breakpoint_db.is_some()),
            ] {
                if set {
                    return Err(err(format!("channel.propagation.{k}"), "needs channel.propagation.breakpoint_m"));
                }
            }
            None
        }
        Some(d) => {
            let d = positive("channel.propagation.breakpoint_m", d)?;
            if d <= d0 {
                return Err(err(
                    "channel.propagation.breakpoint_m",
                    format!("must exceed reference_distance_m ({d0} m), got {d}"),
                ));
            }
            let n2 = p.exponent_after_breakpoint.unwrap_or(exponent);
            Some(Breakpoint { distance_m: d, exponent: positive("channel.propagation.exponent_after_breakpoint", n2)? })
        }
    };
    let sigma_beyond = match p.shadowing_sigma_after_breakpoint_db {
        Some(v) if !(v.is_finite() && v >= 0.0) => {
            return Err(err(
                "channel.propagation.shadowing_sigma_after_breakpoint_db",
                format!("must be >= 0, got {v}"),
            ))
        }
        v => v,
    };
    Ok(Radio {
        budget: LinkBudget {
            path_loss: LogDistance { exponent, reference_distance_m: d0, reference_loss_db: pl0, breakpoint },
            tx_antenna_gain_dbi: finite("channel.propagation.tx_antenna_gain_dbi", p.tx_antenna_gain_dbi)?,
            rx_antenna_gain_dbi: finite("channel.propagation.rx_antenna_gain_dbi", p.rx_antenna_gain_dbi)?,
            system_loss_db: finite("channel.propagation.system_loss_db", p.system_loss_db)?,
        },
        shadowing_sigma_db: sigma,
        shadowing_sigma_beyond_db: sigma_beyond,
        shadowing: p.shadowing,
        noise_figure_db: finite("channel.noise.noise_figure_db", n.noise_figure_db)?,
        ofdm_noise_bandwidth_hz: positive("channel.noise.ofdm_bandwidth_hz", n.ofdm_bandwidth_hz)?,
        dsss_noise_bandwidth_hz: positive("channel.noise.dsss_bandwidth_hz", n.dsss_bandwidth_hz)?,
    })
}

impl ChannelConfig {
    /// Default transmit power of the power-based models, dBm.
    pub fn default_tx_power_dbm(&self) -> Option<f64> {
        match self {
            ChannelConfig::Fixed(_) => None,
            ChannelConfig::Snr(s) => Some(s.tx_power_dbm),
            ChannelConfig::Threshold(t) => Some(t.tx_power_dbm),
        }
    }

    /// `channel.reception = "per_receiver"` (SNR model only).
    pub fn per_receiver(&self) -> bool {
        matches!(self, ChannelConfig::Snr(s) if s.reception == Some(Reception::PerReceiver))
    }

    /// `channel.adjacent_channel = "mask"` (the power-based models).
    pub fn adjacent_leakage(&self) -> bool {
        let a = match self {
            ChannelConfig::Fixed(_) => None,
            ChannelConfig::Snr(s) => s.adjacent_channel,
            ChannelConfig::Threshold(t) => t.adjacent_channel,
        };
        a == Some(AdjacentChannel::Mask)
    }

    /// The per-node radio keys, validated (`None` for the fixed model).
    pub fn node_keys(&self) -> Result<Option<NodeKeys>, ConfigError> {
        let (p, ap_p, ap_g, sta_g, ant, pc, cost, pmax) = match self {
            ChannelConfig::Fixed(_) => return Ok(None),
            ChannelConfig::Snr(s) => (
                s.tx_power_dbm,
                s.ap_tx_power_dbm,
                s.ap_antenna_gain_dbi,
                s.sta_antenna_gain_dbi,
                s.sta_antenna,
                s.power_control,
                s.power_cost_per_w,
                s.power_max_w,
            ),
            ChannelConfig::Threshold(t) => (
                t.tx_power_dbm,
                t.ap_tx_power_dbm,
                t.ap_antenna_gain_dbi,
                t.sta_antenna_gain_dbi,
                t.sta_antenna,
                t.power_control,
                t.power_cost_per_w,
                t.power_max_w,
            ),
        };
        let opt = |f: &str, v: Option<f64>, d: f64| v.map(|x| finite(f, x)).transpose().map(|x| x.unwrap_or(d));
        Ok(Some(NodeKeys {
            tx_power_dbm: p,
            ap_tx_power_dbm: opt("channel.ap_tx_power_dbm", ap_p, p)?,
            ap_antenna_gain_dbi: opt("channel.ap_antenna_gain_dbi", ap_g, 0.0)?,
            sta_antenna_gain_dbi: opt("channel.sta_antenna_gain_dbi", sta_g, 0.0)?,
            sta_antenna: ant.unwrap_or_default(),
            power_control: pc.unwrap_or_default(),
            power_cost_per_w: cost
                .map(|c| positive("channel.power_cost_per_w", c))
                .transpose()?
                .unwrap_or(GAME_DEFAULT_COST_PER_W),
            power_max_w: pmax.map(|c| positive("channel.power_max_w", c)).transpose()?,
        }))
    }

    /// The small-scale fading of the power-based models, validated (`None`
    /// without a `[channel.fading]` table, for model "none", and for the
    /// fixed model).
    pub fn fading(&self) -> Result<Option<FadingSpec>, ConfigError> {
        let (f, p) = match self {
            ChannelConfig::Fixed(_) => return Ok(None),
            ChannelConfig::Snr(s) => match s.tgn_model {
                Some(m) => {
                    let (p, f) = super::presets::tgn(m, &s.propagation, s.fading.as_ref())?;
                    return f.spec(p.frequency_hz);
                }
                None => (&s.fading, &s.propagation),
            },
            ChannelConfig::Threshold(t) => (&t.fading, &t.propagation),
        };
        match f {
            None => Ok(None),
            Some(f) => f.spec(p.frequency_hz),
        }
    }

    /// Validates the table and builds the model; `station` resolves the
    /// station names of SNR classes to node ids.
    pub fn build(&self, station: &dyn Fn(&str) -> Option<NodeId>) -> Result<ChannelModel, ConfigError> {
        match self {
            ChannelConfig::Fixed(c) => build_fixed(c, station).map(ChannelModel::Fixed),
            ChannelConfig::Snr(s) => {
                finite("channel.tx_power_dbm", s.tx_power_dbm)?;
                let radio = match s.tgn_model {
                    Some(m) => radio(&super::presets::tgn(m, &s.propagation, s.fading.as_ref())?.0, &s.noise)?,
                    None => radio(&s.propagation, &s.noise)?,
                };
                let error = match s.error_model {
                    ErrorModelKind::UnionBound => UnionBoundModel {
                        ofdm_noise_bandwidth_hz: radio.ofdm_noise_bandwidth_hz,
                        dsss_noise_bandwidth_hz: radio.dsss_noise_bandwidth_hz,
                    },
                };
                let cs = match s.cs_threshold_dbm {
                    Some(v) => Some(finite("channel.cs_threshold_dbm", v)?),
                    None => None,
                };
                self.node_keys()?;
                self.fading()?;
                Ok(ChannelModel::Snr(SnrChannel { radio, error, cs_threshold_dbm: cs }))
            }
            ChannelConfig::Threshold(t) => {
                finite("channel.tx_power_dbm", t.tx_power_dbm)?;
                let rx = finite("channel.rx_threshold_dbm", t.rx_threshold_dbm)?;
                let cs = match t.cs_threshold_dbm {
                    Some(v) => Some(finite("channel.cs_threshold_dbm", v)?),
                    None => None,
                };
                let radio = radio(&t.propagation, &t.noise)?;
                self.node_keys()?;
                self.fading()?;
                Ok(ChannelModel::Threshold(ThresholdChannel { radio, rx_threshold_dbm: rx, cs_threshold_dbm: cs }))
            }
        }
    }
}

fn build_fixed(c: &FixedConfig, station: &dyn Fn(&str) -> Option<NodeId>) -> Result<SnrClasses, ConfigError> {
    let mut classes = SnrClasses::new(probability("channel.per", c.per)?, c.frames);
    for (i, k) in c.classes.iter().enumerate() {
        let at = |f: &str| format!("channel.classes[{i}].{f}");
        if k.name.is_empty() {
            return Err(err(at("name"), "must not be empty"));
        }
        if c.classes[..i].iter().any(|o| o.name == k.name) {
            return Err(err(at("name"), format!("duplicate class name '{}'", k.name)));
        }
        let idx = classes.add_class(SnrClass {
            name: k.name.clone(),
            per_down: probability(&at("per_down"), k.per_down)?,
            per_up: probability(&at("per_up"), k.per_up)?,
        });
        for (j, s) in k.stations.iter().enumerate() {
            let field = format!("channel.classes[{i}].stations[{j}]");
            let node = station(s).ok_or_else(|| err(&field, format!("unknown station '{s}'")))?;
            if let Some(other) = classes.class_of(node) {
                return Err(err(&field, format!("station '{s}' is already in class '{}'", other.name)));
            }
            classes.assign(node, idx).map_err(|r| err(&field, r))?;
        }
    }
    Ok(classes)
}

#[cfg(test)]
mod tests;
