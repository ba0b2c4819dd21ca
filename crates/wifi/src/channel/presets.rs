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
    ChannelConfig, NoiseConfig, PropagationConfig, ThresholdConfig, NS2_CS_THRESH_W, NS2_PT_W, NS2_RX_THRESH_W,
};
use super::propagation::{watts_to_dbm, ShadowingMode};

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
    fn ns2_values() {
        let ChannelConfig::Threshold(t) = janevski_petrov() else { panic!() };
        assert_eq!(t.propagation.frequency_hz, 914e6);
        assert_eq!(t.propagation.exponent, 2.7);
        assert_eq!(t.propagation.shadowing_sigma_db, 4.0);
        assert!((t.tx_power_dbm - 24.5).abs() < 1e-5);
        assert!((t.rx_threshold_dbm + 64.3747).abs() < 1e-3);
    }
}
