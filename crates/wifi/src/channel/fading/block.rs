//! Block fading: an independent draw per frame (per distinct instant).

use wifitcp_core::{RngStream, SimTime};

use super::{uniform_angle, ComplexGain};

/// The SplitMix64 output function (a bijection of u64 that mixes every
/// input bit into every output bit).
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The generator of the draw at instant `t` of the link keyed `key`.
fn draw_stream(key: u64, t: SimTime) -> RngStream {
    RngStream::derive(mix64(key ^ mix64(t.as_nanos())), "channel/fading/block")
}

/// Independent Rayleigh (K = 0) or Rician draws, one per instant.
#[derive(Clone, Debug)]
pub struct BlockFading {
    key: u64,
    /// Standard deviation of each quadrature of the diffuse part,
    /// sqrt(1 / (2 (1+K))).
    sigma: f64,
    /// The LoS term sqrt(K/(1+K)) e^{j phi_0} (zero for Rayleigh).
    los: ComplexGain,
}

impl BlockFading {
    /// K factor `k_factor` (0: Rayleigh). Draws the key and phi_0 from `rng`.
    pub fn new(k_factor: f64, rng: &mut RngStream) -> Self {
        let key = rng.next_u64();
        let (sin, cos) = uniform_angle(rng).sin_cos();
        let a = (k_factor / (1.0 + k_factor)).sqrt();
        BlockFading { key, sigma: (0.5 / (1.0 + k_factor)).sqrt(), los: ComplexGain { re: a * cos, im: a * sin } }
    }

    /// h at instant `t`: independent of h at any other instant.
    pub fn gain(&self, t: SimTime) -> ComplexGain {
        let mut rng = draw_stream(self.key, t);
        let re = self.sigma * rng.normal();
        let im = self.sigma * rng.normal();
        ComplexGain { re: self.los.re + re, im: self.los.im + im }
    }
}

/// Nakagami-m power gain, Gamma(m, 1/m), one independent draw per instant.
#[derive(Clone, Debug)]
pub struct NakagamiFading {
    key: u64,
    m: f64,
}

impl NakagamiFading {
    /// Shape `m` (>= 1/2). Draws the key from `rng`.
    pub fn new(m: f64, rng: &mut RngStream) -> Self {
        NakagamiFading { key: rng.next_u64(), m }
    }

    /// The shape m.
    pub fn m(&self) -> f64 {
        self.m
    }

    /// |h|^2 at instant `t` (mean 1, variance 1/m).
    pub fn power_gain(&self, t: SimTime) -> f64 {
        let mut rng = draw_stream(self.key, t);
        gamma(self.m, &mut rng) / self.m
    }
}

/// A Gamma(shape, 1) variate: Marsaglia & Tsang's squeeze-and-reject method
/// for shape >= 1, and G(a) = G(a+1) U^{1/a} below.
pub(crate) fn gamma(shape: f64, rng: &mut RngStream) -> f64 {
    if shape < 1.0 {
        // 1 - unit() is in (0, 1]: never 0^(1/a) for a draw.
        let u = 1.0 - rng.unit();
        return gamma(shape + 1.0, rng) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = rng.normal();
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = 1.0 - rng.unit();
        let x2 = x * x;
        if u < 1.0 - 0.0331 * x2 * x2 || u.ln() < 0.5 * x2 + d * (1.0 - v + v.ln()) {
            return d * v;
        }
    }
}
