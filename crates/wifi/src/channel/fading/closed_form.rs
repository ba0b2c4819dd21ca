//! Closed forms of the fading statistics, for the tests and for analytical
//! models. Envelopes r = |h| are normalised to mean power E[r^2] = 1 and
//! levels `rho` are relative to that rms value (rho = R / sqrt(E[r^2])).

use std::f64::consts::PI;

/// Bessel function of the first kind of order 0: the power series
/// sum_k (-x^2/4)^k / (k!)^2 for |x| <= 16 (absolute error below 1e-10,
/// from cancellation), Hankel's asymptotic expansion (Abramowitz & Stegun
/// 9.2.5, terms to x^-6) beyond (error below 2e-9).
pub fn bessel_j0(x: f64) -> f64 {
    let x = x.abs();
    if x <= 16.0 {
        let q = -0.25 * x * x;
        let (mut term, mut sum, mut k) = (1.0, 1.0, 0.0);
        loop {
            k += 1.0;
            term *= q / (k * k);
            sum += term;
            if term.abs() < 1e-17 * sum.abs().max(1e-3) {
                return sum;
            }
        }
    }
    let y = 1.0 / (x * x);
    let p = 1.0 - y * (9.0 / 128.0 - y * (3675.0 / 32768.0 - y * 0.572_501_420_974_731_4));
    let q = -(1.0 / (8.0 * x)) * (1.0 - y * (75.0 / 128.0 - y * (59535.0 / 32768.0)));
    let chi = x - 0.25 * PI;
    (2.0 / (PI * x)).sqrt() * (p * chi.cos() - q * chi.sin())
}

/// Modified Bessel function of the first kind of order 0, by its power
/// series sum_k (x^2/4)^k / (k!)^2 (positive terms; relative error ~1e-15).
pub fn bessel_i0(x: f64) -> f64 {
    let q = 0.25 * x * x;
    let (mut term, mut sum, mut k) = (1.0, 1.0, 0.0);
    loop {
        k += 1.0;
        term *= q / (k * k);
        sum += term;
        if term < 1e-17 * sum {
            return sum;
        }
    }
}

/// Clarke's autocorrelation of h at lag `tau_s`: J0(2 pi f_d tau).
pub fn clarke_autocorrelation(doppler_hz: f64, tau_s: f64) -> f64 {
    bessel_j0(2.0 * PI * doppler_hz * tau_s)
}

/// Rayleigh envelope CDF, P(|h| <= r) = 1 - exp(-r^2).
pub fn rayleigh_cdf(r: f64) -> f64 {
    1.0 - (-r * r).exp()
}

/// Rician envelope density with K factor `k`:
/// 2 (K+1) r exp(-K - (K+1) r^2) I0(2 r sqrt(K (K+1))).
pub fn rician_pdf(r: f64, k: f64) -> f64 {
    if r <= 0.0 {
        return 0.0;
    }
    2.0 * (k + 1.0) * r * (-k - (k + 1.0) * r * r).exp() * bessel_i0(2.0 * r * (k * (k + 1.0)).sqrt())
}

/// Rician envelope CDF (1 - Q1(sqrt(2K), r sqrt(2(K+1))), Marcum's Q), by
/// Simpson's rule on [`rician_pdf`] with 4000 intervals (error ~1e-10).
pub fn rician_cdf(r: f64, k: f64) -> f64 {
    if r <= 0.0 {
        return 0.0;
    }
    let n = 4000;
    let h = r / n as f64;
    let mut sum = rician_pdf(0.0, k) + rician_pdf(r, k);
    for i in 1..n {
        sum += if i % 2 == 1 { 4.0 } else { 2.0 } * rician_pdf(i as f64 * h, k);
    }
    sum * h / 3.0
}

/// E|h|^4 of Rician fading with K factor `k` (Rayleigh: K = 0, 2):
/// (2 + 4K + K^2) / (1+K)^2.
pub fn rician_fourth_moment(k: f64) -> f64 {
    (2.0 + 4.0 * k + k * k) / ((1.0 + k) * (1.0 + k))
}

/// E|h|^4 of the sum of M sinusoids at one instant: 2 - 1/(2M) (each term
/// e^{j psi} cos(phi) scaled by sqrt(2/M) has E|.|^2 = 1/M and
/// E|.|^4 = (4/M^2)(3/8)).
pub fn sos_fourth_moment(sinusoids: usize) -> f64 {
    2.0 - 0.5 / sinusoids as f64
}

/// Level-crossing rate of a Rayleigh envelope at rho (relative to rms),
/// crossings per second in one direction (Jakes 1974, ch. 1):
/// sqrt(2 pi) f_d rho exp(-rho^2).
pub fn rayleigh_level_crossing_rate(rho: f64, doppler_hz: f64) -> f64 {
    (2.0 * PI).sqrt() * doppler_hz * rho * (-rho * rho).exp()
}

/// Average fade duration below rho, seconds: P(r < rho) / N_R =
/// (exp(rho^2) - 1) / (rho f_d sqrt(2 pi)).
pub fn rayleigh_average_fade_duration(rho: f64, doppler_hz: f64) -> f64 {
    ((rho * rho).exp() - 1.0) / (rho * doppler_hz * (2.0 * PI).sqrt())
}

/// ln Gamma(x), x > 0: Stirling's series to x^-7 after shifting x to >= 10
/// by the recurrence (error below 1e-12).
pub fn ln_gamma(mut x: f64) -> f64 {
    let mut shift = 0.0;
    while x < 10.0 {
        shift += x.ln();
        x += 1.0;
    }
    let y = 1.0 / (x * x);
    let series = (1.0 / 12.0 - y * (1.0 / 360.0 - y * (1.0 / 1260.0 - y / 1680.0))) / x;
    (x - 0.5) * x.ln() - x + 0.5 * (2.0 * PI).ln() + series - shift
}

/// Regularised lower incomplete gamma function P(a, x), by its series
/// x^a e^-x sum_n x^n / Gamma(a+n+1) (fine for the x up to ~50 used here).
pub fn gamma_p(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let (mut term, mut sum, mut n) = (1.0 / a, 1.0 / a, 0.0);
    loop {
        n += 1.0;
        term *= x / (a + n);
        sum += term;
        if term < 1e-17 * sum {
            break;
        }
    }
    (a * x.ln() - x - ln_gamma(a) + sum.ln()).exp()
}

/// CDF of the Nakagami-m power gain Gamma(m, 1/m): P(m, m x).
pub fn nakagami_power_cdf(x: f64, m: f64) -> f64 {
    gamma_p(m, m * x)
}
