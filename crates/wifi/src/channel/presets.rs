//! Channel presets for the reference papers.
//!
//! # Janevski & Petrov, *Cross-layer Analysis of Transport Control Protocols over IEEE 802.11 Wireless Networks*
//!
//! What the paper states (sec. 3, Table 3): ns-2 ("NS2"), 802.11g with the
//! data rate set to 20 Mbit/s, the ns-2 *shadowing* propagation model with
//! shadowing deviation sigma = 4 dB and path-loss exponent beta = 2.7
//! ("common for urban environment"), user-BS distances 5, 10, 50 and
//! 100 m, base stations 20 m apart.
//!
//! What it does not state, so ns-2's defaults (`tcl/lib/ns-default.tcl`,
//! the 914 MHz Lucent WaveLAN values) apply: transmit power
//! Pt_ = 0.28183815 W (24.50 dBm), frequency freq_ = 914 MHz, system loss
//! L_ = 1 (0 dB), unit-gain omni antennas (0 dBi) at equal heights (Z_ =
//! 1.5 m, so the distance is the horizontal one), reference distance
//! dist0_ = 1 m with the Friis loss there (31.67 dB at 914 MHz), reception
//! threshold RXThresh_ = 3.652e-10 W (-64.37 dBm), carrier-sense threshold
//! CSThresh_ = 1.559e-11 W (-78.07 dBm), capture threshold CPThresh_ =
//! 10 dB (the medium's business). ns-2's Shadowing draws a new shadowing
//! value for every reception, and a frame is received iff its power is at
//! least RXThresh_: the `threshold` model with per-frame shadowing. There is
//! no SNR error model in that set-up, and no 20 Mbit/s 802.11g mode; ns-2's
//! 802.11 MAC simply times frames at dataRate_ = 20 Mbit/s (basicRate_
//! 1 Mbit/s by default).
//!
//! Implied reception probability per attempt, 1 - Q((mean Pr - RXThresh)/4):
//! mean Pr = 24.50 - 31.67 - 27 log10(d) dBm, i.e. -26.0 dBm at 5 m,
//! -34.2 dBm at 10 m, -53.0 dBm at 50 m (margin 11.3 dB, 0.9977) and
//! -61.2 dBm at 100 m (margin 3.2 dB, 0.79): errors only show at 100 m,
//! where MAC retries matter, as the paper's Figs. 3-5 report.
//!
//! ```toml
//! [channel]
//! model = "threshold"
//! tx_power_dbm = 24.5
//! rx_threshold_dbm = -64.3747
//! cs_threshold_dbm = -78.0715
//! [channel.propagation]
//! frequency_hz = 914e6
//! exponent = 2.7
//! reference_distance_m = 1.0
//! shadowing_sigma_db = 4.0
//! shadowing = "per_frame"
//! ```

use super::config::{
    ChannelConfig, ConfigError, FadingConfig, FadingKind, NoiseConfig, PropagationConfig, ThresholdConfig,
    NS2_CS_THRESH_W, NS2_PT_W, NS2_RX_THRESH_W,
};
use super::propagation::SPEED_OF_LIGHT;
use super::propagation::{watts_to_dbm, ShadowingMode};
use serde::{Deserialize, Serialize};

/// ns-2's WaveLAN frequency (`Phy/WirelessPhy set freq_ 914e+6`).
pub const NS2_FREQ_HZ: f64 = 914e6;

/// ns-2 shadowing reception with ns-2's default radio and the given
/// path-loss exponent and shadowing deviation.
pub fn ns2_shadowing(exponent: f64, sigma_db: f64) -> ChannelConfig {
    ChannelConfig::Threshold(ThresholdConfig {
        tx_power_dbm: watts_to_dbm(NS2_PT_W),
        rx_threshold_dbm: watts_to_dbm(NS2_RX_THRESH_W),
        cs_threshold_dbm: Some(watts_to_dbm(NS2_CS_THRESH_W)),
        propagation: PropagationConfig {
            frequency_hz: NS2_FREQ_HZ,
            exponent,
            reference_distance_m: 1.0,
            reference_loss_db: None,
            shadowing_sigma_db: sigma_db,
            shadowing: ShadowingMode::PerFrame,
            tx_antenna_gain_dbi: 0.0,
            rx_antenna_gain_dbi: 0.0,
            system_loss_db: 0.0,
            ..PropagationConfig::default()
        },
        noise: NoiseConfig::default(),
        ..ThresholdConfig::default()
    })
}

/// Janevski & Petrov's channel: ns-2 shadowing, beta = 2.7, sigma = 4 dB
/// (see the module documentation for every value and its source).
pub fn janevski_petrov() -> ChannelConfig {
    ns2_shadowing(2.7, 4.0)
}

/// The distances of Janevski & Petrov's Table 3, m.
pub const JANEVSKI_DISTANCES_M: [f64; 4] = [5.0, 10.0, 50.0, 100.0];

/// The IEEE 802.11 TGn channel models B to F (Erceg et al., "TGn Channel
/// Models", IEEE 802.11-03/940r4, 2004): residential (B), small office
/// (C), typical office (D), large office (E), large space indoors or
/// outdoors (F). `channel.tgn_model`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum TgnModel {
    B,
    C,
    D,
    E,
    F,
}

/// What a TGn model sets (Erceg et al. 2004, the path-loss table of sec.
/// 4.7 and the K factors of sec. 4.3): breakpoint distance d_BP, m;
/// shadowing deviation beyond d_BP, dB; Rician K of the line of sight
/// before d_BP, dB. Before d_BP every model has free-space loss (exponent
/// 2) and 3 dB shadowing; beyond it exponent 3.5 and no line of sight.
pub fn tgn_parameters(m: TgnModel) -> (f64, f64, f64) {
    match m {
        TgnModel::B => (5.0, 4.0, 0.0),
        TgnModel::C => (5.0, 5.0, 0.0),
        TgnModel::D => (10.0, 5.0, 3.0),
        TgnModel::E => (20.0, 6.0, 6.0),
        TgnModel::F => (30.0, 6.0, 6.0),
    }
}

/// The TGn models' environment speed (sec. 4.5), km/h: scatterers (people)
/// move while the stations stand still; its Doppler shift v f_c / c is the
/// fading's (5.8 Hz at 5.25 GHz).
pub const TGN_ENVIRONMENT_SPEED_KMH: f64 = 1.2;

/// The propagation and fading tables of TGn model `m` on carrier
/// `p.frequency_hz`, from the scenario's `[channel.propagation]` (whose
/// carrier, reference distance, antenna gains, system loss and shadowing
/// mode it keeps) and `[channel.fading]` (which must be absent: the model
/// sets it). A key the model sets and the scenario also set is an error
/// naming both.
///
/// What the flat, per-frame model keeps of TGn and what it leaves out:
/// - kept: the dual-slope path loss (2 before d_BP, 3.5 after), the
///   shadowing deviation on either side, a line of sight (Rician K of the
///   first tap) only before d_BP, and fading at the Doppler shift of
///   1.2 km/h;
/// - left out: the tapped delay line (clusters, RMS delay spread 15 ns to
///   150 ns; the frame error model is flat, so frequency selectivity,
///   which OFDM averages over its subcarriers, is not modelled), the
///   bell-shaped Doppler spectrum (Clarke's U-shaped one instead, same
///   maximum shift), MIMO correlation, and the fluorescent-light Doppler
///   components of models D and E. The K factor applies to the whole link,
///   where TGn gives it to the first tap only: the link's effective K is
///   therefore higher here than in a wideband TGn link.
pub fn tgn(
    m: TgnModel,
    p: &PropagationConfig,
    fading: Option<&FadingConfig>,
) -> Result<(PropagationConfig, FadingConfig), ConfigError> {
    let by = |k: &str| ConfigError::new(k, format!("set by channel.tgn_model = \"{m:?}\"; leave it out"));
    let d = PropagationConfig::default();
    if fading.is_some() {
        return Err(by("channel.fading"));
    }
    if p.exponent != d.exponent {
        return Err(by("channel.propagation.exponent"));
    }
    if p.shadowing_sigma_db != d.shadowing_sigma_db {
        return Err(by("channel.propagation.shadowing_sigma_db"));
    }
    for (k, set) in [
        ("breakpoint_m", p.breakpoint_m.is_some()),
        ("exponent_after_breakpoint", p.exponent_after_breakpoint.is_some()),
        ("shadowing_sigma_after_breakpoint_db", p.shadowing_sigma_after_breakpoint_db.is_some()),
    ] {
        if set {
            return Err(by(&format!("channel.propagation.{k}")));
        }
    }
    let (d_bp, sigma_after, k_db) = tgn_parameters(m);
    let prop = PropagationConfig {
        exponent: 2.0,
        shadowing_sigma_db: 3.0,
        breakpoint_m: Some(d_bp),
        exponent_after_breakpoint: Some(3.5),
        shadowing_sigma_after_breakpoint_db: Some(sigma_after),
        ..p.clone()
    };
    let doppler = TGN_ENVIRONMENT_SPEED_KMH / 3.6 * p.frequency_hz / SPEED_OF_LIGHT;
    let fading = FadingConfig {
        model: FadingKind::Rician,
        doppler_hz: Some(doppler),
        k_db: Some(k_db),
        los_distance_m: Some(d_bp),
        ..FadingConfig::default()
    };
    Ok((prop, fading))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::error_model::{Mode, Preamble};
    use crate::channel::fixed::FrameKind;
    use crate::channel::model::{ChannelModel, FrameTx};
    use crate::channel::propagation::Position;
    use wifitcp_core::NodeId;

    fn reception_prob(m: &ChannelModel, d: f64) -> f64 {
        let f = FrameTx {
            tx: NodeId(0),
            rx: NodeId(1),
            tx_pos: Position::new(0.0, 0.0, 1.5),
            rx_pos: Position::new(d, 0.0, 1.5),
            tx_power_dbm: janevski_petrov().default_tx_power_dbm().unwrap(),
            mode: Mode::Ofdm24,
            preamble: Preamble::Long,
            bits: 8 * 512,
            kind: FrameKind::Data,
            start: wifitcp_core::SimTime::ZERO,
        };
        m.mean_success_prob(&f).unwrap()
    }

    #[test]
    fn janevski_implied_reception_probabilities() {
        // By hand: mean Pr = 24.49999779 - 31.66670714 - 27 log10(d) dBm,
        // RXThresh = -64.37469231 dBm, P = Phi(margin / 4).
        // 100 m: margin 3.20798 dB, Phi(0.801996) = 0.788724.
        // 50 m: margin 11.33579 dB, Phi(2.833947) = 0.997701.
        let m = janevski_petrov().build(&|_| None).unwrap();
        let p100 = reception_prob(&m, 100.0);
        let p50 = reception_prob(&m, 50.0);
        assert!((p100 - 0.788_724).abs() < 1e-4, "{p100}");
        assert!((p50 - 0.997_701).abs() < 1e-4, "{p50}");
        for d in [5.0, 10.0] {
            assert!(reception_prob(&m, d) > 1.0 - 1e-12);
        }
        assert_eq!(JANEVSKI_DISTANCES_M, [5.0, 10.0, 50.0, 100.0]);
    }

    #[test]
    fn tgn_models_set_the_dual_slope_loss_shadowing_and_line_of_sight() {
        use crate::channel::propagation::friis_loss_db;
        let p = PropagationConfig { frequency_hz: 5.25e9, ..PropagationConfig::default() };
        for (m, d_bp, s2, k) in [
            (TgnModel::B, 5.0, 4.0, 0.0),
            (TgnModel::C, 5.0, 5.0, 0.0),
            (TgnModel::D, 10.0, 5.0, 3.0),
            (TgnModel::E, 20.0, 6.0, 6.0),
            (TgnModel::F, 30.0, 6.0, 6.0),
        ] {
            let (prop, f) = tgn(m, &p, None).unwrap();
            assert_eq!(
                (prop.breakpoint_m, prop.exponent, prop.exponent_after_breakpoint),
                (Some(d_bp), 2.0, Some(3.5))
            );
            assert_eq!((prop.shadowing_sigma_db, prop.shadowing_sigma_after_breakpoint_db), (3.0, Some(s2)));
            assert_eq!((f.k_db, f.los_distance_m), (Some(k), Some(d_bp)));
            // 1.2 km/h at 5.25 GHz: 5.837 Hz.
            assert!((f.doppler_hz.unwrap() - 5.837).abs() < 1e-3, "{:?}", f.doppler_hz);
            // The loss: free space to d_BP, then 35 dB per decade.
            let snr = ChannelConfig::Snr(crate::channel::config::SnrConfig {
                tgn_model: Some(m),
                propagation: p.clone(),
                ..Default::default()
            });
            let ChannelModel::Snr(c) = snr.build(&|_| None).unwrap() else { panic!() };
            let pl = c.radio.budget.path_loss;
            for x in [2.0, d_bp, 2.0 * d_bp, 10.0 * d_bp] {
                let want = if x <= d_bp {
                    friis_loss_db(x, 5.25e9)
                } else {
                    friis_loss_db(d_bp, 5.25e9) + 35.0 * (x / d_bp).log10()
                };
                assert!((pl.loss_db(x) - want).abs() < 1e-9, "{m:?} at {x} m");
                assert!((pl.distance_for_loss(want) - x).abs() < 1e-6 * x);
            }
            assert_eq!((c.radio.sigma_db_at(d_bp), c.radio.sigma_db_at(d_bp * 1.01)), (3.0, s2));
        }
        // Keys the model sets may not be set beside it.
        let e = tgn(TgnModel::D, &PropagationConfig { exponent: 3.5, ..p.clone() }, None).unwrap_err();
        assert!(e.to_string().contains("channel.propagation.exponent"), "{e}");
        let e = tgn(TgnModel::D, &p, Some(&FadingConfig::default())).unwrap_err();
        assert!(e.to_string().contains("channel.fading"), "{e}");
    }

    #[test]
    fn ns2_values() {
        let ChannelConfig::Threshold(t) = janevski_petrov() else { panic!() };
        assert_eq!(t.propagation.frequency_hz, 914e6);
        assert_eq!(t.propagation.exponent, 2.7);
        assert_eq!(t.propagation.shadowing_sigma_db, 4.0);
        assert!((t.tx_power_dbm - 24.5).abs() < 1e-5);
        assert!((t.rx_threshold_dbm + 64.3747).abs() < 1e-3);
    }
}
