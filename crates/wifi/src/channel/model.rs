//! The channel models and the per-frame success computation.
//!
//! [`ChannelModel`] is the closed set of models; [`Channel`] adds the
//! shadowing state (per-link draws) and is what a medium holds. Both are
//! pure: randomness comes only from the [`RngStream`] passed in.
//!
//! For orientation, [`ChannelModel::range_m`] of the default SNR
//! configuration (16.02 dBm, exponent 3 from the 5.15 GHz Friis loss at
//! 1 m, noise figure 7 dB, no shadowing) for 1500-byte frames at 10 % FER:
//! 1 Mbit/s 157 m, 2: 110 m, 5.5: 102 m, 11: 78 m; 6 Mbit/s 105 m,
//! 9: 86 m, 12: 83 m, 18: 68 m, 24: 51 m, 36: 41 m, 48: 28 m, 54: 26 m.

use super::error_model::{ErrorModel, Family, Mode, Preamble, UnionBoundModel};
use super::fading::{FadingSpec, LinkFading};
use super::fixed::{FrameKind, SnrClasses};
use super::propagation::{sinr_db, thermal_noise_dbm, LinkBudget, Position, Shadowing, ShadowingMode};
use crate::phy::ppdu::TxVector;
use wifitcp_core::{NodeId, RngStream, SimTime};

/// One transmission attempt of one frame, as the channel sees it.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct FrameTx {
    pub tx: NodeId,
    pub rx: NodeId,
    pub tx_pos: Position,
    pub rx_pos: Position,
    pub tx_power_dbm: f64,
    pub mode: Mode,
    /// DSSS preamble (ignored by OFDM modes).
    pub preamble: Preamble,
    /// Bits sent at the data rate, see [`Mode::data_bits`].
    pub bits: u64,
    pub kind: FrameKind,
    /// The instant the frame starts on the air: where small-scale fading
    /// reads the link's gain ([`Channel::rx_power_dbm`]).
    pub start: SimTime,
}

/// Radio part shared by the power-based models.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Radio {
    pub budget: LinkBudget,
    pub shadowing_sigma_db: f64,
    /// Shadowing deviation beyond the path loss's breakpoint, dB, if it
    /// differs there (TGn).
    pub shadowing_sigma_beyond_db: Option<f64>,
    pub shadowing: ShadowingMode,
    pub noise_figure_db: f64,
    pub ofdm_noise_bandwidth_hz: f64,
    pub dsss_noise_bandwidth_hz: f64,
}

impl Radio {
    /// Noise power in dBm for a mode's family.
    pub fn noise_dbm(&self, mode: Mode) -> f64 {
        let b = match mode.family() {
            Family::Ofdm => self.ofdm_noise_bandwidth_hz,
            Family::Dsss => self.dsss_noise_bandwidth_hz,
        };
        thermal_noise_dbm(b, self.noise_figure_db)
    }

    /// The breakpoint and the shadowing deviation beyond it, if it
    /// differs there: (d_BP, sigma).
    pub fn sigma_beyond(&self) -> Option<(f64, f64)> {
        Some((self.budget.path_loss.breakpoint?.distance_m, self.shadowing_sigma_beyond_db?))
    }

    /// The shadowing deviation at `distance_m` (dB).
    pub fn sigma_db_at(&self, distance_m: f64) -> f64 {
        super::propagation::sigma_at(self.shadowing_sigma_db, self.sigma_beyond(), distance_m)
    }

    /// Mean received power (no shadowing) of a frame.
    pub fn mean_rx_power_dbm(&self, f: &FrameTx) -> f64 {
        self.budget.mean_rx_power_dbm(f.tx_power_dbm, f.tx_pos.distance(&f.rx_pos))
    }
}

/// SNR-based reception: received power -> SINR -> [`UnionBoundModel`].
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct SnrChannel {
    pub radio: Radio,
    pub error: UnionBoundModel,
    /// Carrier-sense threshold (dBm) for `medium::sense`; `None`: every
    /// station senses every other.
    pub cs_threshold_dbm: Option<f64>,
}

/// ns-2 reception (WirelessPhy::sendUp): a frame is received error-free
/// iff its received power is at least `rx_threshold_dbm` (ns-2 RXThresh_);
/// frames below `cs_threshold_dbm` (CSThresh_) are not even sensed.
/// Collisions and capture (CPThresh_) belong to the medium.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct ThresholdChannel {
    pub radio: Radio,
    pub rx_threshold_dbm: f64,
    pub cs_threshold_dbm: Option<f64>,
}

/// The channel models (closed set).
#[derive(Clone, PartialEq, Debug)]
pub enum ChannelModel {
    /// Fixed per-attempt error probabilities by SNR class and direction.
    Fixed(SnrClasses),
    /// Path loss, shadowing, noise and an SNR error model.
    Snr(SnrChannel),
    /// Path loss, shadowing and a received-power threshold (ns-2).
    Threshold(ThresholdChannel),
}

/// Points of the Simpson rule over z in [-8, 8] for shadowing averages.
const SHADOW_POINTS: usize = 401;
/// Extra path loss (dB above PL(d0)) beyond which nothing gets through,
/// for [`ChannelModel::range_m`].
const RANGE_SEARCH_DB: f64 = 400.0;

impl ChannelModel {
    /// The radio parameters of power-based models.
    pub fn radio(&self) -> Option<&Radio> {
        match self {
            ChannelModel::Fixed(_) => None,
            ChannelModel::Snr(s) => Some(&s.radio),
            ChannelModel::Threshold(t) => Some(&t.radio),
        }
    }

    /// Success probability of one attempt of `f` given its received power
    /// (which includes any shadowing draw) and the power of concurrent
    /// interferers at the receiver (all dBm). Fixed models ignore the powers;
    /// the threshold model ignores interference (ns-2 leaves it to capture).
    pub fn success_prob_from_rx_power(&self, f: &FrameTx, rx_power_dbm: f64, interferers_dbm: &[f64]) -> f64 {
        match self {
            ChannelModel::Fixed(c) => c.frame_success_prob(f.tx, f.rx, f.kind),
            ChannelModel::Snr(s) => {
                let sinr = sinr_db(rx_power_dbm, s.radio.noise_dbm(f.mode), interferers_dbm);
                s.error.ppdu_success_prob(sinr, f.mode, f.preamble, f.bits)
            }
            ChannelModel::Threshold(t) => {
                if rx_power_dbm >= t.rx_threshold_dbm {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// An HT-mixed, VHT or HE PPDU carrying a PSDU of `psdu_bytes` sent
    /// with `v`: (its signal fields received, its data field received),
    /// given the received power and interferers as in
    /// [`ChannelModel::success_prob_from_rx_power`]. The SNR model judges
    /// it with [`super::error_model::ht`] (HT) or
    /// [`super::error_model::mcs`] (VHT, HE) at the SINR over the channel
    /// width: the noise of `ofdm_noise_bandwidth_hz` (20 MHz by default)
    /// scaled to the width, 3 dB more per doubling (the same power spread over
    /// twice the band; 19.3.9.3.5 duplicates the signal fields on each 20
    /// MHz half, which therefore see the same SINR). The other models have
    /// no MCS-dependent part: (1, their frame success), with `f`'s fields
    /// as for any frame. With `ru`, the PSDU is one user's of an HE MU or
    /// HE TB PPDU of `v`, judged on its resource unit
    /// (`TxVector::ru_error_params`; the SNR stays the one over `v`'s
    /// width).
    pub fn ht_success_parts(
        &self,
        f: &FrameTx,
        v: TxVector,
        ru: Option<crate::phy::ppdu::RuLink>,
        psdu_bytes: u32,
        rx_power_dbm: f64,
        interferers_dbm: &[f64],
    ) -> (f64, f64) {
        match self {
            ChannelModel::Snr(s) => {
                let r = &s.radio;
                let widths = f64::from(v.width_mhz()) / 20.0;
                let noise = thermal_noise_dbm(r.ofdm_noise_bandwidth_hz * widths, r.noise_figure_db);
                // The HT model takes the SNR over the channel width itself;
                // a noise bandwidth other than 20 MHz per 20 MHz shifts it
                // as the legacy model's `shift_db` does.
                let shift = 10.0 * (r.ofdm_noise_bandwidth_hz / super::error_model::OFDM_NOISE_BANDWIDTH_HZ).log10();
                let snr = sinr_db(rx_power_dbm, noise, interferers_dbm) + shift;
                if snr.is_nan() {
                    return (0.0, 0.0);
                }
                match v {
                    TxVector::Ht(h) => super::error_model::ht::ppdu_success_parts(h.mcs, h.width, snr, psdu_bytes),
                    _ => {
                        let p = ru.map_or_else(|| v.error_params(), |ru| v.ru_error_params(ru));
                        super::error_model::mcs::ppdu_success_parts(&p, snr, psdu_bytes)
                    }
                }
            }
            _ => (1.0, self.success_prob_from_rx_power(f, rx_power_dbm, interferers_dbm)),
        }
    }

    /// Success probability averaged over the shadowing distribution for a
    /// mean received power `mean_rx_dbm` (no interference). `None` for the
    /// fixed model, which has no power.
    pub fn mean_success_prob_at_power(&self, mean_rx_dbm: f64, f: &FrameTx) -> Option<f64> {
        let radio = self.radio()?;
        self.mean_success_prob_with_sigma(mean_rx_dbm, radio.sigma_db_at(f.tx_pos.distance(&f.rx_pos)), f)
    }

    /// `mean_success_prob_at_power` with shadowing deviation `sigma` (dB).
    fn mean_success_prob_with_sigma(&self, mean_rx_dbm: f64, sigma: f64, f: &FrameTx) -> Option<f64> {
        if let ChannelModel::Threshold(t) = self {
            // P(mean - X >= thr) = Phi((mean - thr) / sigma).
            let margin = mean_rx_dbm - t.rx_threshold_dbm;
            if sigma == 0.0 {
                return Some(if margin >= 0.0 { 1.0 } else { 0.0 });
            }
            return Some(1.0 - super::error_model::special::q(margin / sigma));
        }
        if sigma == 0.0 {
            return Some(self.success_prob_from_rx_power(f, mean_rx_dbm, &[]));
        }
        // Simpson's rule over the standard normal density on [-8, 8].
        let n = SHADOW_POINTS - 1;
        let h = 16.0 / n as f64;
        let mut sum = 0.0;
        for i in 0..=n {
            let z = -8.0 + h * i as f64;
            let w = if i == 0 || i == n {
                1.0
            } else if i % 2 == 1 {
                4.0
            } else {
                2.0
            };
            let pdf = (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt();
            sum += w * pdf * self.success_prob_from_rx_power(f, mean_rx_dbm - sigma * z, &[]);
        }
        Some((sum * h / 3.0).clamp(0.0, 1.0))
    }

    /// Success probability of `f` averaged over shadowing, at the frame's
    /// own positions.
    pub fn mean_success_prob(&self, f: &FrameTx) -> Option<f64> {
        let radio = self.radio()?;
        self.mean_success_prob_at_power(radio.mean_rx_power_dbm(f), f)
    }

    /// Largest distance (m) at which the shadowing-averaged frame error
    /// rate of `f`'s mode, bits and power stays at or below `max_fer`.
    /// `None` for the fixed model, or if even at the reference distance the
    /// error rate is above `max_fer`. Positions in `f` are ignored.
    pub fn range_m(&self, f: &FrameTx, max_fer: f64) -> Option<f64> {
        let radio = self.radio()?;
        let budget = radio.budget;
        let pl0 = budget.path_loss.reference_loss_db;
        let fer_at_loss = |extra_db: f64| {
            let mean_rx = budget.mean_rx_power_dbm(f.tx_power_dbm, 0.0) - extra_db;
            let sigma = radio.sigma_db_at(budget.path_loss.distance_for_loss(pl0 + extra_db));
            1.0 - self.mean_success_prob_with_sigma(mean_rx, sigma, f).unwrap_or(0.0)
        };
        if fer_at_loss(0.0) > max_fer {
            return None;
        }
        let (mut lo, mut hi) = (0.0, RANGE_SEARCH_DB);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if fer_at_loss(mid) <= max_fer {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(budget.path_loss.distance_for_loss(pl0 + lo))
    }
}

/// A channel model with its shadowing and fading state.
#[derive(Clone, Debug)]
pub struct Channel {
    model: ChannelModel,
    shadowing: Shadowing,
    fading: LinkFading,
}

impl Channel {
    /// Takes one value from `rng` to seed per-link shadowing (only if the
    /// model shadows per link).
    pub fn new(model: ChannelModel, rng: &mut RngStream) -> Self {
        let shadowing = match model.radio() {
            Some(r) if r.shadowing_sigma_db > 0.0 || r.sigma_beyond().is_some_and(|(_, s)| s > 0.0) => {
                let sh = Shadowing::new(r.shadowing_sigma_db, r.shadowing, rng);
                match r.sigma_beyond() {
                    Some((d, s)) => sh.beyond(d, s),
                    None => sh,
                }
            }
            _ => Shadowing::none(),
        };
        Channel { model, shadowing, fading: LinkFading::none() }
    }

    /// Small-scale fading `spec` on every link, each link's process from
    /// its own stream of the run seed `seed` ([`LinkFading`]); ignored by
    /// the fixed model, which has no received power. Draws nothing here.
    pub fn with_fading(mut self, spec: FadingSpec, seed: u64) -> Result<Self, super::fading::FadingError> {
        self.fading = LinkFading::new(spec, seed)?;
        Ok(self)
    }

    /// The fading of the links (for inspection).
    pub fn fading(&self) -> &LinkFading {
        &self.fading
    }

    pub fn model(&self) -> &ChannelModel {
        &self.model
    }

    /// Received power of `f` in dBm including shadowing (drawn from `rng`
    /// when per-frame) and small-scale fading at `f.start` (from the link's
    /// own stream, never from `rng`); `None` for the fixed model. The SNR
    /// the error model sees is thus the mean SNR plus 10 log10 |h(start)|^2
    /// (E|h|^2 = 1: fading adds no mean loss): the frame-level
    /// quasi-static fading of link simulations, one gain per frame.
    pub fn rx_power_dbm(&mut self, f: &FrameTx, rng: &mut RngStream) -> Option<f64> {
        let radio = *self.model.radio()?;
        let x = self.shadowing.sample_db(f.tx, f.rx, f.tx_pos.distance(&f.rx_pos), rng);
        let pr = radio.mean_rx_power_dbm(f) - x;
        Some(match self.fading.gain_db(f.tx, f.rx, f.tx_pos, f.rx_pos, f.start) {
            Some(g) => pr + g,
            None => pr,
        })
    }

    /// Success probability of one attempt of `f` without interference
    /// (draws the shadowing of this frame).
    pub fn frame_success_prob(&mut self, f: &FrameTx, rng: &mut RngStream) -> f64 {
        let pr = self.rx_power_dbm(f, rng).unwrap_or(f64::NAN);
        self.model.success_prob_from_rx_power(f, pr, &[])
    }

    /// Draws whether one attempt of `f` gets through.
    pub fn attempt_succeeds(&mut self, f: &FrameTx, rng: &mut RngStream) -> bool {
        let p = self.frame_success_prob(f, rng);
        rng.bernoulli(p)
    }
}

#[cfg(test)]
mod tests;
