//! Small-scale fading in time: the complex gain h(t) of one link.
//!
//! A [`Fading`] process maps an instant `t` ([`SimTime`], integer
//! nanoseconds) to a complex channel gain h(t) and its power gain |h(t)|^2,
//! which multiplies the received power given by path loss and shadowing
//! ([`super::propagation`]). [`links::LinkFading`] holds one process per
//! link for [`super::Channel`], which adds its gain in dB to a frame's
//! received power (the `[channel.fading]` table, [`super::config`]).
//!
//! Invariants:
//! - Mean power 1: E|h(t)|^2 = 1 for every model, so fading adds no mean
//!   loss or gain to the link budget (the SNR is scaled by |h|^2).
//! - Deterministic: all randomness comes from the [`RngStream`] given to
//!   [`Fading::new`] (derive one per link, e.g. with [`link_stream`]); the
//!   same stream and instant give the same gain, bit for bit.
//! - Pure in time: [`Fading::gain`] takes `&self`, so the gain at `t` never
//!   depends on which other instants were asked for, or in what order. There
//!   is no per-time-step state and nothing to advance: the cost grows with
//!   the frames judged, not with simulated time.
//!
//! Models ([`FadingModel`]):
//! - `Rayleigh`: Clarke's isotropic scattering (Clarke, Bell Syst. Tech. J.
//!   47(6), 1968), whose Doppler spectrum is Jakes' U-shaped one (Jakes,
//!   *Microwave Mobile Communications*, 1974, ch. 1), by a sum of M
//!   sinusoids with random phases and random arrival angles in the manner of
//!   Zheng & Xiao (IEEE Commun. Lett. 6(6), 2002; IEEE Trans. Commun. 51(6),
//!   2003):
//!
//!   h(t) = sqrt(2/M) sum_{n=1..M} e^{j psi_n} cos(2 pi f_d cos(alpha_n) t + phi_n),
//!   alpha_n = (2 pi n - pi + theta) / (4M),
//!
//!   with psi_n, phi_n (one per sinusoid) and theta (one per link)
//!   independent and uniform on [-pi, pi). The common rotation theta puts one
//!   arrival angle in each of M equal sub-sectors of [0, pi/2), so the
//!   ensemble autocorrelation is exactly Clarke's: E[h(t+tau) h*(t)] =
//!   J0(2 pi f_d tau) for any M, and E|h|^2 = 1. At a fixed instant h is a
//!   sum of M independent circular terms, so the envelope is Rayleigh only
//!   as M grows: E|h|^4 = 2 - 1/(2M) (2 for Rayleigh), 1.6 % low at M = 32.
//!   Averaged over time, one realisation's power is exactly 1 (the
//!   frequencies are distinct), but its other time averages (autocorrelation,
//!   level crossings) scatter around the ensemble values by O(1/sqrt(M)).
//! - `Rician`: a line-of-sight sinusoid on top of the diffuse part (Xiao,
//!   Zheng & Beaulieu, IEEE Trans. Wireless Commun. 5(12), 2006):
//!   h(t) = (X(t) + sqrt(K) e^{j(2 pi f_d cos(theta_0) t + phi_0)}) / sqrt(1+K),
//!   X the Rayleigh process above, theta_0 the LoS arrival angle against the
//!   direction of motion (a parameter), phi_0 uniform. E|h|^4 = (E|X|^4 +
//!   4K + K^2) / (1+K)^2, which is (2 + 4K + K^2) / (1+K)^2 for M -> inf.
//! - `Nakagami`: the power gain as in ns-3's NakagamiPropagationLossModel
//!   with one m for every distance: a Gamma(m, 1/m) draw per frame (mean 1,
//!   variance 1/m), independent from frame to frame (block fading, no
//!   Doppler); m = 1 is Rayleigh power (exponential), m -> inf no fading.
//!   Gamma variates by Marsaglia & Tsang (ACM TOMS 26(3), 2000), with
//!   G(m) = G(m+1) U^{1/m} for m < 1. The phase of h is not modelled (0).
//! - `BlockRayleigh`, `BlockRician`: a fresh independent complex Gaussian
//!   (plus the LoS term at the link's fixed phase for Rician) per frame, no
//!   correlation in time; cheaper than the sums of sinusoids.
//!
//! "Per frame" for the block models means per distinct instant: the draw at
//! `t` comes from a generator keyed by (the link's key, t), so it is
//! independent of the draw at any other instant and the same at the same
//! instant (no stream is consumed by a call). The channel judges a frame at
//! one instant, its start ([`links`]), so each frame gets its own draw.
//!
//! Cost per call (see docs/validation.md): the sums of sinusoids evaluate M
//! cosines and 2M multiply-adds (Rician adds one sine and cosine); they hold
//! 4M f64 (1 KiB at M = 32) per link. The block models seed a xoshiro256**
//! state by SplitMix64 from the key and draw two normals (Rayleigh, Rician)
//! or a Gamma variate (usually one normal and one uniform); they hold a few
//! words.
//!
//! [`closed_form`] has the reference formulas the tests check against
//! (Bessel J0 and I0, the Rayleigh and Rician CDFs, level-crossing rate and
//! average fade duration).

use wifitcp_core::{NodeId, RngStream, SimTime};

use super::propagation::SPEED_OF_LIGHT;

mod block;
pub mod closed_form;
pub mod links;
mod sos;

pub use block::{BlockFading, NakagamiFading};
pub use links::{Doppler, FadingSpec, LinkFading};
pub use sos::{RicianFading, SumOfSinusoids};

/// Default number of sinusoids M of the sum-of-sinusoids models.
pub const DEFAULT_SINUSOIDS: usize = 32;

/// Maximum Doppler shift f_d = v f_c / c in Hz, for relative speed
/// `speed_mps` (m/s) and carrier `carrier_hz` (c = 299 792 458 m/s).
/// 1 m/s at 2.412 GHz is 8.05 Hz; 3 m/s at 5.18 GHz is 51.8 Hz.
pub fn doppler_hz(speed_mps: f64, carrier_hz: f64) -> f64 {
    speed_mps * carrier_hz / SPEED_OF_LIGHT
}

/// The stream of the fading process of the link between `a` and `b`: the
/// same for both directions (the channel is reciprocal), named
/// `channel/fading/{lo}-{hi}` by the two node indices.
pub fn link_stream(master_seed: u64, a: NodeId, b: NodeId) -> RngStream {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    RngStream::derive(master_seed, &format!("channel/fading/{}-{}", lo.0, hi.0))
}

/// A complex amplitude gain.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct ComplexGain {
    pub re: f64,
    pub im: f64,
}

impl ComplexGain {
    pub const ONE: ComplexGain = ComplexGain { re: 1.0, im: 0.0 };

    /// |h|^2, the power gain.
    pub fn norm_sqr(self) -> f64 {
        self.re * self.re + self.im * self.im
    }

    /// |h|, the envelope.
    pub fn abs(self) -> f64 {
        self.norm_sqr().sqrt()
    }
}

/// The parameters of a fading model (one per link or per channel).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FadingModel {
    /// No fading: h = 1.
    None,
    /// Rayleigh with Clarke's Doppler spectrum, `sinusoids` = M terms.
    Rayleigh { sinusoids: usize },
    /// Rician with K factor `k_factor` (linear, LoS to diffuse power) and
    /// the LoS arriving at `los_angle_rad` from the direction of motion
    /// (its Doppler shift is f_d cos(los_angle_rad)).
    Rician { k_factor: f64, los_angle_rad: f64, sinusoids: usize },
    /// Nakagami-m power gain, independent per frame (ns-3's model).
    Nakagami { m: f64 },
    /// Independent Rayleigh draw per frame.
    BlockRayleigh,
    /// Independent Rician draw per frame, K factor `k_factor` (linear).
    BlockRician { k_factor: f64 },
}

impl FadingModel {
    /// The model on a link without line of sight: a Rician model's K
    /// becomes 0 (its diffuse part alone, Rayleigh); others unchanged.
    pub fn without_los(self) -> FadingModel {
        match self {
            FadingModel::Rician { los_angle_rad, sinusoids, .. } => {
                FadingModel::Rician { k_factor: 0.0, los_angle_rad, sinusoids }
            }
            FadingModel::BlockRician { .. } => FadingModel::BlockRician { k_factor: 0.0 },
            m => m,
        }
    }
}

/// A parameter out of its domain.
#[derive(Clone, Debug, PartialEq)]
pub enum FadingError {
    /// The maximum Doppler shift is negative or not finite.
    Doppler(f64),
    /// M = 0 sinusoids.
    NoSinusoids,
    /// The K factor is negative or not finite.
    KFactor(f64),
    /// Nakagami's m is below 1/2 (its domain) or not finite.
    NakagamiM(f64),
    /// The LoS angle is not finite.
    LosAngle(f64),
}

impl std::fmt::Display for FadingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FadingError::Doppler(v) => write!(f, "maximum Doppler shift {v} Hz: must be finite and >= 0"),
            FadingError::NoSinusoids => write!(f, "the sum of sinusoids needs at least one sinusoid"),
            FadingError::KFactor(v) => write!(f, "Rician K factor {v}: must be finite and >= 0"),
            FadingError::NakagamiM(v) => write!(f, "Nakagami m {v}: must be finite and >= 0.5"),
            FadingError::LosAngle(v) => write!(f, "line-of-sight angle {v} rad: must be finite"),
        }
    }
}

impl std::error::Error for FadingError {}

impl FadingModel {
    /// Rayleigh with [`DEFAULT_SINUSOIDS`] sinusoids.
    pub const fn rayleigh() -> Self {
        FadingModel::Rayleigh { sinusoids: DEFAULT_SINUSOIDS }
    }

    /// Rician with K factor `k_factor`, the LoS along the direction of
    /// motion (Doppler shift f_d), [`DEFAULT_SINUSOIDS`] sinusoids.
    pub const fn rician(k_factor: f64) -> Self {
        FadingModel::Rician { k_factor, los_angle_rad: 0.0, sinusoids: DEFAULT_SINUSOIDS }
    }

    /// Whether the parameters are in their domains, with maximum Doppler
    /// shift `doppler_hz` (ignored by the block models).
    pub fn check(&self, doppler_hz: f64) -> Result<(), FadingError> {
        let sos = |m: usize| {
            if !(doppler_hz.is_finite() && doppler_hz >= 0.0) {
                Err(FadingError::Doppler(doppler_hz))
            } else if m == 0 {
                Err(FadingError::NoSinusoids)
            } else {
                Ok(())
            }
        };
        let k = |k: f64| if k.is_finite() && k >= 0.0 { Ok(()) } else { Err(FadingError::KFactor(k)) };
        match *self {
            FadingModel::None | FadingModel::BlockRayleigh => Ok(()),
            FadingModel::Rayleigh { sinusoids } => sos(sinusoids),
            FadingModel::Rician { k_factor, los_angle_rad, sinusoids } => {
                sos(sinusoids)?;
                k(k_factor)?;
                if los_angle_rad.is_finite() {
                    Ok(())
                } else {
                    Err(FadingError::LosAngle(los_angle_rad))
                }
            }
            FadingModel::Nakagami { m } => {
                if m.is_finite() && m >= 0.5 {
                    Ok(())
                } else {
                    Err(FadingError::NakagamiM(m))
                }
            }
            FadingModel::BlockRician { k_factor } => k(k_factor),
        }
    }
}

/// The fading process of one link: a realisation of a [`FadingModel`].
#[derive(Clone, Debug)]
pub enum Fading {
    None,
    Rayleigh(SumOfSinusoids),
    Rician(RicianFading),
    Nakagami(NakagamiFading),
    Block(BlockFading),
}

impl Fading {
    /// The process of `model` at maximum Doppler shift `doppler_hz` (see
    /// [`doppler_hz`]), its random parameters drawn from `rng` (the link's
    /// own stream). `None` draws nothing.
    pub fn new(model: FadingModel, doppler_hz: f64, rng: &mut RngStream) -> Result<Self, FadingError> {
        model.check(doppler_hz)?;
        Ok(match model {
            FadingModel::None => Fading::None,
            FadingModel::Rayleigh { sinusoids } => Fading::Rayleigh(SumOfSinusoids::new(sinusoids, doppler_hz, rng)),
            FadingModel::Rician { k_factor, los_angle_rad, sinusoids } => {
                Fading::Rician(RicianFading::new(k_factor, los_angle_rad, sinusoids, doppler_hz, rng))
            }
            FadingModel::Nakagami { m } => Fading::Nakagami(NakagamiFading::new(m, rng)),
            FadingModel::BlockRayleigh => Fading::Block(BlockFading::new(0.0, rng)),
            FadingModel::BlockRician { k_factor } => Fading::Block(BlockFading::new(k_factor, rng)),
        })
    }

    /// The complex gain h(t). Nakagami has no phase: its h is real, >= 0.
    pub fn gain(&self, t: SimTime) -> ComplexGain {
        match self {
            Fading::None => ComplexGain::ONE,
            Fading::Rayleigh(p) => p.gain(t),
            Fading::Rician(p) => p.gain(t),
            Fading::Nakagami(p) => ComplexGain { re: p.power_gain(t).sqrt(), im: 0.0 },
            Fading::Block(p) => p.gain(t),
        }
    }

    /// The power gain |h(t)|^2 (mean 1).
    pub fn power_gain(&self, t: SimTime) -> f64 {
        match self {
            Fading::Nakagami(p) => p.power_gain(t),
            _ => self.gain(t).norm_sqr(),
        }
    }

    /// The power gain in dB, 10 log10 |h(t)|^2 (to add to the received
    /// power in dBm); -inf for an exact zero.
    pub fn gain_db(&self, t: SimTime) -> f64 {
        10.0 * self.power_gain(t).log10()
    }
}

/// Seconds since time zero, as the sinusoids take them (exact to the
/// nanosecond below 2^53 ns, 104 days).
fn seconds(t: SimTime) -> f64 {
    t.as_nanos() as f64 * 1e-9
}

/// A uniform angle in [-pi, pi).
fn uniform_angle(rng: &mut RngStream) -> f64 {
    std::f64::consts::PI * (2.0 * rng.unit() - 1.0)
}

#[cfg(test)]
mod tests;
