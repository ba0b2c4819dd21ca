//! Sums of sinusoids: Rayleigh (Clarke/Jakes spectrum) and Rician.

use std::f64::consts::PI;

use wifitcp_core::{RngStream, SimTime};

use super::{seconds, uniform_angle, ComplexGain};

/// Clarke's Rayleigh process by M sinusoids (see the module docs for the
/// formula): h(t) = sum_n (a_n + j b_n) cos(w_n t + phi_n).
#[derive(Clone, Debug)]
pub struct SumOfSinusoids {
    /// Angular Doppler frequency 2 pi f_d cos(alpha_n) of each term, rad/s.
    omega: Vec<f64>,
    /// Initial phase phi_n.
    phase: Vec<f64>,
    /// sqrt(2/M) cos(psi_n).
    re: Vec<f64>,
    /// sqrt(2/M) sin(psi_n).
    im: Vec<f64>,
}

impl SumOfSinusoids {
    /// M = `sinusoids` terms at maximum Doppler shift `doppler_hz`. Draws
    /// theta, then (psi_n, phi_n) for n = 1..M, from `rng`.
    pub fn new(sinusoids: usize, doppler_hz: f64, rng: &mut RngStream) -> Self {
        assert!(sinusoids > 0, "no sinusoids");
        let m = sinusoids as f64;
        let scale = (2.0 / m).sqrt();
        let theta = uniform_angle(rng);
        let mut p = SumOfSinusoids {
            omega: Vec::with_capacity(sinusoids),
            phase: Vec::with_capacity(sinusoids),
            re: Vec::with_capacity(sinusoids),
            im: Vec::with_capacity(sinusoids),
        };
        for n in 1..=sinusoids {
            let alpha = (2.0 * PI * n as f64 - PI + theta) / (4.0 * m);
            let psi = uniform_angle(rng);
            let phi = uniform_angle(rng);
            p.omega.push(2.0 * PI * doppler_hz * alpha.cos());
            p.phase.push(phi);
            p.re.push(scale * psi.cos());
            p.im.push(scale * psi.sin());
        }
        p
    }

    /// The number of sinusoids M.
    pub fn sinusoids(&self) -> usize {
        self.omega.len()
    }

    /// h(t).
    pub fn gain(&self, t: SimTime) -> ComplexGain {
        self.gain_at_seconds(seconds(t))
    }

    /// h at `s` seconds of the process's own clock: [`Self::gain`] at an
    /// instant given as a real number. A process built at the Doppler shift
    /// of 1 m/s and read at `s` = metres travelled follows the distance
    /// walked instead of the time (`super::links`).
    pub fn gain_at_seconds(&self, s: f64) -> ComplexGain {
        let (mut re, mut im) = (0.0, 0.0);
        for (((w, phi), a), b) in self.omega.iter().zip(&self.phase).zip(&self.re).zip(&self.im) {
            let c = (w * s + phi).cos();
            re += a * c;
            im += b * c;
        }
        ComplexGain { re, im }
    }
}

/// Rician fading: the diffuse [`SumOfSinusoids`] plus a line-of-sight
/// sinusoid with its own Doppler shift and random phase.
#[derive(Clone, Debug)]
pub struct RicianFading {
    diffuse: SumOfSinusoids,
    /// sqrt(1/(1+K)).
    diffuse_scale: f64,
    /// sqrt(K/(1+K)).
    los_amplitude: f64,
    /// 2 pi f_d cos(theta_0), rad/s.
    los_omega: f64,
    /// phi_0.
    los_phase: f64,
    k_factor: f64,
}

impl RicianFading {
    /// K factor `k_factor` (linear), LoS at `los_angle_rad` from the
    /// direction of motion. Draws the diffuse part, then phi_0, from `rng`.
    pub fn new(k_factor: f64, los_angle_rad: f64, sinusoids: usize, doppler_hz: f64, rng: &mut RngStream) -> Self {
        let diffuse = SumOfSinusoids::new(sinusoids, doppler_hz, rng);
        let los_phase = uniform_angle(rng);
        RicianFading {
            diffuse,
            diffuse_scale: (1.0 / (1.0 + k_factor)).sqrt(),
            los_amplitude: (k_factor / (1.0 + k_factor)).sqrt(),
            los_omega: 2.0 * PI * doppler_hz * los_angle_rad.cos(),
            los_phase,
            k_factor,
        }
    }

    /// The K factor (linear).
    pub fn k_factor(&self) -> f64 {
        self.k_factor
    }

    /// h(t).
    pub fn gain(&self, t: SimTime) -> ComplexGain {
        self.gain_at_seconds(seconds(t))
    }

    /// h at `s` seconds of the process's own clock (see
    /// [`SumOfSinusoids::gain_at_seconds`]).
    pub fn gain_at_seconds(&self, s: f64) -> ComplexGain {
        let x = self.diffuse.gain_at_seconds(s);
        let (sin, cos) = (self.los_omega * s + self.los_phase).sin_cos();
        ComplexGain {
            re: self.diffuse_scale * x.re + self.los_amplitude * cos,
            im: self.diffuse_scale * x.im + self.los_amplitude * sin,
        }
    }
}
