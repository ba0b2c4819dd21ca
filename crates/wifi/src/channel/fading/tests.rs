//! The fading processes against closed forms. Every statistical check
//! states its tolerance as a multiple of the standard error measured from
//! independent batches (one realisation, i.e. one link, per batch, or a run
//! of independent draws), so the samples' correlation within a realisation
//! widens the tolerance as it should. `cargo test -p wifitcp-wifi fading --
//! --nocapture --test-threads=1` prints the tables of docs/validation.md.

use std::f64::consts::PI;
use std::fmt::Write;

use super::closed_form::*;
use super::*;

/// Mean and standard error of the mean of independent batch values.
fn mean_se(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// The process of realisation `i` of `model` (its own named stream).
fn realisation(model: FadingModel, doppler_hz: f64, tag: &str, i: usize) -> Fading {
    let mut rng = RngStream::derive(0x00fa_d1e5, &format!("test/fading/{tag}/{i}"));
    Fading::new(model, doppler_hz, &mut rng).unwrap()
}

fn at(s: f64) -> SimTime {
    SimTime::from_secs_f64(s)
}

/// Statistical agreement: |measured - expected| <= 4 standard errors
/// (a false alarm about once in 16,000 checks for a normal estimate).
fn assert_within(what: &str, measured: f64, se: f64, expected: f64) {
    assert!(
        (measured - expected).abs() <= 4.0 * se,
        "{what}: measured {measured:.5} +- {se:.5}, expected {expected:.5}"
    );
}

// ---------------------------------------------------------------- closed forms

#[test]
fn fading_closed_forms_bessel_gamma() {
    // J0 and I0 against their integral representations, evaluated by the
    // trapezoidal rule (exponentially accurate for periodic integrands):
    // J0(x) = (1/pi) int_0^pi cos(x sin t) dt, I0(x) = (1/pi) int_0^pi e^{x cos t} dt.
    let trap = |f: &dyn Fn(f64) -> f64| {
        let n = 4000;
        let h = PI / n as f64;
        (0..=n).map(|i| f(i as f64 * h) * if i == 0 || i == n { 0.5 } else { 1.0 }).sum::<f64>() * h / PI
    };
    for i in 0..=200 {
        let x = i as f64 * 0.25;
        let j = trap(&|t: f64| (x * t.sin()).cos());
        assert!((bessel_j0(x) - j).abs() < 1e-8, "J0({x}) = {} vs {j}", bessel_j0(x));
        if x <= 30.0 {
            let i0 = trap(&|t: f64| (x * t.cos()).exp());
            assert!((bessel_i0(x) / i0 - 1.0).abs() < 1e-12, "I0({x})");
        }
    }
    assert!((bessel_j0(1.0) - 0.765_197_686_557_966_6).abs() < 1e-14);
    assert!((bessel_j0(5.0) + 0.177_596_771_314_338_3).abs() < 1e-13);
    assert!((bessel_j0(10.0) + 0.245_935_764_451_348_3).abs() < 1e-12);
    assert!(bessel_j0(2.404_825_557_695_773).abs() < 1e-13);
    assert!((bessel_i0(1.0) - 1.266_065_877_752_008_4).abs() < 1e-14);
    // Both branches of J0 meet at 16.
    assert!((bessel_j0(16.0) - bessel_j0(16.0 + 1e-12)).abs() < 2e-9);

    assert!((ln_gamma(0.5) - PI.sqrt().ln()).abs() < 1e-12);
    assert!(ln_gamma(1.0).abs() < 1e-12 && ln_gamma(2.0).abs() < 1e-12);
    assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
    assert!((ln_gamma(2.5) - (0.75 * PI.sqrt()).ln()).abs() < 1e-12);
    for x in [0.01, 0.5, 1.0, 3.0, 10.0] {
        // P(1, x) = 1 - e^-x, P(2, x) = 1 - (1 + x) e^-x (ln Gamma's 1e-12
        // becomes a relative error of P).
        assert!((gamma_p(1.0, x) - (1.0 - (-x).exp())).abs() < 1e-11);
        assert!((gamma_p(2.0, x) - (1.0 - (1.0 + x) * (-x).exp())).abs() < 1e-11);
    }
    // Rician: K = 0 is Rayleigh; the density integrates to 1.
    for r in [0.1, 0.5, 1.0, 2.0] {
        assert!((rician_cdf(r, 0.0) - rayleigh_cdf(r)).abs() < 1e-10);
    }
    for k in [1.0, 3.0, 10.0] {
        assert!((rician_cdf(4.0, k) - 1.0).abs() < 1e-9, "K = {k}");
    }
    assert_eq!(rician_fourth_moment(0.0), 2.0);
    // Level crossings at the rms level: sqrt(2 pi) e^-1 f_d.
    assert!((rayleigh_level_crossing_rate(1.0, 1.0) - 0.922_137_9).abs() < 1e-6);
    assert!((rayleigh_average_fade_duration(1.0, 1.0) - (1f64.exp() - 1.0) / (2.0 * PI).sqrt()).abs() < 1e-15);
}

#[test]
fn fading_doppler_and_parameter_checks() {
    assert!((doppler_hz(1.0, 2.412e9) - 8.045_566).abs() < 1e-6);
    assert!((doppler_hz(3.0, 5.18e9) - 51.835_860).abs() < 1e-6);
    assert_eq!(doppler_hz(0.0, 5e9), 0.0);
    let mut rng = RngStream::derive(1, "x");
    assert_eq!(Fading::new(FadingModel::rayleigh(), -1.0, &mut rng).unwrap_err(), FadingError::Doppler(-1.0));
    assert_eq!(
        Fading::new(FadingModel::Rayleigh { sinusoids: 0 }, 5.0, &mut rng).unwrap_err(),
        FadingError::NoSinusoids
    );
    assert_eq!(Fading::new(FadingModel::rician(-0.5), 5.0, &mut rng).unwrap_err(), FadingError::KFactor(-0.5));
    assert_eq!(Fading::new(FadingModel::Nakagami { m: 0.4 }, 0.0, &mut rng).unwrap_err(), FadingError::NakagamiM(0.4));
    assert!(Fading::new(FadingModel::Nakagami { m: 0.5 }, 0.0, &mut rng).is_ok());
    assert_eq!(Fading::new(FadingModel::None, 0.0, &mut rng).unwrap().power_gain(at(3.0)), 1.0);
    assert_eq!(Fading::new(FadingModel::None, 0.0, &mut rng).unwrap().gain_db(at(3.0)), 0.0);
    // No Doppler: the sum of sinusoids is a constant draw.
    let f = Fading::new(FadingModel::rayleigh(), 0.0, &mut rng).unwrap();
    assert_eq!(f.gain(SimTime::ZERO), f.gain(at(1000.0)));
    // gain_db is 10 log10 of power_gain.
    let f = realisation(FadingModel::rician(2.0), 20.0, "db", 0);
    let t = at(0.123);
    assert!((f.gain_db(t) - 10.0 * f.power_gain(t).log10()).abs() < 1e-12);
}

// ---------------------------------------------------------------- determinism

fn all_models() -> Vec<FadingModel> {
    vec![
        FadingModel::None,
        FadingModel::rayleigh(),
        FadingModel::Rayleigh { sinusoids: 7 },
        FadingModel::Rician { k_factor: 4.0, los_angle_rad: 1.0, sinusoids: 16 },
        FadingModel::Nakagami { m: 0.7 },
        FadingModel::Nakagami { m: 3.0 },
        FadingModel::BlockRayleigh,
        FadingModel::BlockRician { k_factor: 2.0 },
    ]
}

#[test]
fn fading_determinism_in_any_order() {
    let instants: Vec<SimTime> = (0..200u64).map(|i| SimTime(i * i * 7_919_993 + i * 13)).collect();
    let mut shuffled = instants.clone();
    let mut r = RngStream::derive(9, "shuffle");
    for i in (1..shuffled.len()).rev() {
        shuffled.swap(i, r.below(i as u64 + 1) as usize);
    }
    for model in all_models() {
        let a = Fading::new(model, 30.0, &mut link_stream(42, NodeId(3), NodeId(8))).unwrap();
        // Built again from the same (reversed) link: the same process.
        let b = Fading::new(model, 30.0, &mut link_stream(42, NodeId(8), NodeId(3))).unwrap();
        let forward: Vec<(u64, u64)> =
            instants.iter().map(|&t| (a.gain(t).re.to_bits(), a.power_gain(t).to_bits())).collect();
        // Asked in a shuffled order, twice each, by another copy.
        let mut again = vec![(0, 0); instants.len()];
        for &t in shuffled.iter().chain(shuffled.iter()) {
            let i = instants.iter().position(|&u| u == t).unwrap();
            again[i] = (b.gain(t).re.to_bits(), b.power_gain(t).to_bits());
        }
        assert_eq!(forward, again, "{model:?}");
        if model != FadingModel::None {
            // Another link or seed: another process.
            let c = Fading::new(model, 30.0, &mut link_stream(42, NodeId(3), NodeId(9))).unwrap();
            let d = Fading::new(model, 30.0, &mut link_stream(43, NodeId(3), NodeId(8))).unwrap();
            let t = instants[17];
            assert_ne!(a.power_gain(t), c.power_gain(t), "{model:?}");
            assert_ne!(a.power_gain(t), d.power_gain(t), "{model:?}");
        }
    }
}

// ---------------------------------------------------------------- envelopes

/// Per-realisation batches of samples of |h| at well separated instants.
fn envelope_batches(model: FadingModel, tag: &str, realisations: usize, per: usize) -> Vec<Vec<f64>> {
    (0..realisations)
        .map(|i| {
            let f = realisation(model, 50.0, tag, i);
            // 0.3713 s apart at 50 Hz: 18.6 Doppler periods, |J0| < 0.04.
            (0..per).map(|k| f.gain(at(1.0 + 0.3713 * k as f64)).abs()).collect()
        })
        .collect()
}

/// Checks E|h|^2, E|h|^4 and the CDF at `levels`; returns the table rows.
fn check_envelope(
    name: &str,
    batches: &[Vec<f64>],
    fourth: f64,
    fourth_closed: f64,
    cdf: &dyn Fn(f64) -> f64,
    levels: &[f64],
) -> String {
    let mut out = String::new();
    let moment = |p: i32| -> (f64, f64) {
        let v: Vec<f64> = batches.iter().map(|b| b.iter().map(|r| r.powi(p)).sum::<f64>() / b.len() as f64).collect();
        mean_se(&v)
    };
    let (m2, se2) = moment(2);
    let (m4, se4) = moment(4);
    assert_within(&format!("{name} E|h|^2"), m2, se2, 1.0);
    assert_within(&format!("{name} E|h|^4"), m4, se4, fourth);
    writeln!(out, "{name}: E|h|^2 {m2:.4} +- {se2:.4} (1); E|h|^4 {m4:.4} +- {se4:.4} (model {fourth:.4}, closed form {fourth_closed:.4})").unwrap();
    let mut row = String::new();
    for &r in levels {
        let v: Vec<f64> =
            batches.iter().map(|b| b.iter().filter(|&&x| x <= r).count() as f64 / b.len() as f64).collect();
        let (p, se) = mean_se(&v);
        let expected = cdf(r);
        assert_within(&format!("{name} P(|h| <= {r})"), p, se, expected);
        write!(row, " r={r}: {p:.4} ({expected:.4})").unwrap();
    }
    writeln!(out, "  CDF measured (closed form):{row}").unwrap();
    out
}

const LEVELS: [f64; 8] = [0.1, 0.3, 0.5, 0.7, 1.0, 1.3, 1.6, 2.0];

#[test]
fn fading_envelope_rayleigh_rician() {
    let mut out = String::from("\nEnvelope distribution (2000 links x 50 instants; +- one standard error)\n");
    for m in [32, 4] {
        let model = FadingModel::Rayleigh { sinusoids: m };
        let batches = envelope_batches(model, &format!("rayleigh{m}"), 2000, 50);
        out += &check_envelope(
            &format!("Rayleigh, sum of {m} sinusoids"),
            &batches,
            sos_fourth_moment(m),
            2.0,
            &rayleigh_cdf,
            if m == 32 { &LEVELS } else { &[] },
        );
    }
    // M = 4 is far enough from Rayleigh for the check to tell: E|h|^4 =
    // 1.875, not 2.
    for k in [1.0, 3.0, 10.0] {
        let model = FadingModel::Rician { k_factor: k, los_angle_rad: PI / 4.0, sinusoids: DEFAULT_SINUSOIDS };
        let batches = envelope_batches(model, &format!("rician{k}"), 2000, 50);
        let fourth = (sos_fourth_moment(DEFAULT_SINUSOIDS) + 4.0 * k + k * k) / ((1.0 + k) * (1.0 + k));
        let levels: Vec<f64> = [0.2, 0.5, 0.7, 0.85, 1.0, 1.15, 1.3, 1.6].to_vec();
        out += &check_envelope(
            &format!("Rician K = {k}"),
            &batches,
            fourth,
            rician_fourth_moment(k),
            &|r| rician_cdf(r, k),
            &levels,
        );
    }
    println!("{out}");
}

#[test]
fn fading_envelope_block_and_nakagami() {
    let mut out = String::from("\nBlock fading and Nakagami-m (200 x 1000 independent draws; +- one standard error)\n");
    for (model, name) in [
        (FadingModel::BlockRayleigh, "Block Rayleigh"),
        (FadingModel::BlockRician { k_factor: 3.0 }, "Block Rician K = 3"),
    ] {
        let batches = envelope_batches(model, name, 200, 1000);
        let k = if let FadingModel::BlockRician { k_factor } = model { k_factor } else { 0.0 };
        out += &check_envelope(
            name,
            &batches,
            rician_fourth_moment(k),
            rician_fourth_moment(k),
            &|r| rician_cdf(r, k),
            &LEVELS,
        );
        // Independent from one instant to the next, even 1 ns apart.
        let f = realisation(model, 50.0, name, 999);
        let g: Vec<(f64, f64)> =
            (0..100_000u64).map(|i| (f.power_gain(SimTime(i)), f.power_gain(SimTime(i + 1)))).collect();
        let n = g.len() as f64;
        let cov = g.iter().map(|(a, b)| (a - 1.0) * (b - 1.0)).sum::<f64>() / n;
        let var = rician_fourth_moment(k) - 1.0;
        // Standard error of the lag-1 correlation of independent draws: 1/sqrt(n).
        assert_within(&format!("{name} lag-1 correlation"), cov / var, 1.0 / n.sqrt(), 0.0);
        writeln!(out, "  correlation of the power gains 1 ns apart: {:.4} (0)", cov / var).unwrap();
    }
    for m in [0.5, 1.0, 2.5, 4.0] {
        let f = realisation(FadingModel::Nakagami { m }, 0.0, "nakagami", (m * 10.0) as usize);
        let batches: Vec<Vec<f64>> = (0..200u64)
            .map(|b| (0..1000u64).map(|i| f.power_gain(SimTime::from_micros(b * 1000 + i))).collect())
            .collect();
        let (mean, se) = mean_se(&batches.iter().map(|b| b.iter().sum::<f64>() / b.len() as f64).collect::<Vec<_>>());
        let (var, se_var) = mean_se(
            &batches
                .iter()
                .map(|b| b.iter().map(|g| (g - 1.0) * (g - 1.0)).sum::<f64>() / b.len() as f64)
                .collect::<Vec<_>>(),
        );
        assert_within(&format!("Nakagami m = {m} mean"), mean, se, 1.0);
        assert_within(&format!("Nakagami m = {m} variance"), var, se_var, 1.0 / m);
        let mut row = String::new();
        for x in [0.05, 0.2, 0.5, 1.0, 1.5, 2.5] {
            let (p, se) = mean_se(
                &batches
                    .iter()
                    .map(|b| b.iter().filter(|&&g| g <= x).count() as f64 / b.len() as f64)
                    .collect::<Vec<_>>(),
            );
            let expected = nakagami_power_cdf(x, m);
            assert_within(&format!("Nakagami m = {m} P(g <= {x})"), p, se, expected);
            write!(row, " x={x}: {p:.4} ({expected:.4})").unwrap();
        }
        writeln!(
            out,
            "Nakagami m = {m}: mean {mean:.4} +- {se:.4} (1), variance {var:.4} +- {se_var:.4} ({:.4})",
            1.0 / m
        )
        .unwrap();
        writeln!(out, "  CDF of |h|^2 measured (Gamma(m, 1/m)):{row}").unwrap();
    }
    println!("{out}");
}

// ---------------------------------------------------------------- autocorrelation

#[test]
fn fading_autocorrelation_against_j0() {
    let mut out =
        String::from("\nAutocorrelation E[h(t+tau) h*(t)] (1000 links x 20 instants; +- one standard error)\n");
    let xs = [0.0, 0.5, 1.0, 2.0, 2.4048, 3.0, 3.8317, 5.0, 5.5201, 7.0, 8.6537, 10.0];
    // (model, LoS Doppler as a fraction of f_d, K)
    let cases = [
        (FadingModel::rayleigh(), 0.0, 0.0),
        (FadingModel::Rician { k_factor: 3.0, los_angle_rad: PI / 3.0, sinusoids: 32 }, 0.5, 3.0),
    ];
    for fd in [5.0f64, 50.0] {
        for (model, los, k) in cases {
            let mut re_rows = String::new();
            let mut sums = vec![Vec::new(); xs.len()];
            let mut sums_im = vec![Vec::new(); xs.len()];
            for i in 0..1000 {
                let f = realisation(model, fd, &format!("acf{fd}{k}"), i);
                let mut r = RngStream::derive(i as u64, "test/fading/acf/t0");
                let t0s: Vec<u64> = (0..20).map(|_| r.below(100_000_000_000)).collect();
                for (j, &x) in xs.iter().enumerate() {
                    let tau_ns = (x / (2.0 * PI * fd) * 1e9).round() as u64;
                    let (mut re, mut im) = (0.0, 0.0);
                    for &t0 in &t0s {
                        let a = f.gain(SimTime(t0 + tau_ns));
                        let b = f.gain(SimTime(t0));
                        // a * conj(b)
                        re += a.re * b.re + a.im * b.im;
                        im += a.im * b.re - a.re * b.im;
                    }
                    sums[j].push(re / t0s.len() as f64);
                    sums_im[j].push(im / t0s.len() as f64);
                }
            }
            for (j, &x) in xs.iter().enumerate() {
                let tau = (x / (2.0 * PI * fd) * 1e9).round() * 1e-9;
                let xt = 2.0 * PI * fd * tau;
                let (re, se) = mean_se(&sums[j]);
                let (im, se_im) = mean_se(&sums_im[j]);
                let want_re = (clarke_autocorrelation(fd, tau) + k * (los * xt).cos()) / (1.0 + k);
                let want_im = k * (los * xt).sin() / (1.0 + k);
                assert_within(&format!("f_d {fd} K {k} Re R({x})"), re, se, want_re);
                assert_within(&format!("f_d {fd} K {k} Im R({x})"), im, se_im, want_im);
                if [0.5, 2.4048, 5.0, 10.0].contains(&x) {
                    write!(re_rows, " x={x}: {re:.4}+-{se:.4} ({want_re:.4})").unwrap();
                }
            }
            writeln!(out, "f_d = {fd} Hz, K = {k}: Re R at x = 2 pi f_d tau, measured (closed form):{re_rows}")
                .unwrap();
        }
    }
    println!("{out}");
}

// ---------------------------------------------------------------- level crossings

/// Level crossings and fades of the envelope of `links` Rayleigh links of M
/// = `sinusoids`, each over 500 Doppler periods sampled 200 times a period
/// from a random start, against the closed forms within 4 standard errors
/// plus `allowance` (relative; the finite-M bias).
fn level_crossings(sinusoids: usize, links: usize, allowance: f64) -> String {
    let mut out = format!(
        "\nRayleigh level crossings and fades, {sinusoids} sinusoids ({links} links x 500 Doppler periods, 200 samples a period; +- one standard error; allowance {:.0} %)\n",
        allowance * 100.0
    );
    let rho_db = [-10.0, -3.0, 0.0, 3.0];
    for fd in [5.0f64, 50.0] {
        let dt_ns = (1e9 / (200.0 * fd)).round() as u64;
        let samples = 500 * 200;
        let mut lcr = vec![Vec::new(); rho_db.len()];
        let mut afd = vec![Vec::new(); rho_db.len()];
        let (mut ups, mut below, mut span) = (vec![0usize; rho_db.len()], vec![0usize; rho_db.len()], 0.0);
        for i in 0..links {
            let f = realisation(FadingModel::Rayleigh { sinusoids }, fd, &format!("lcr{sinusoids}-{fd}"), i);
            let start = RngStream::derive(i as u64, "test/fading/lcr/start").below(1_000_000_000_000);
            let env: Vec<f64> = (0..=samples).map(|s| f.gain(SimTime(start + s as u64 * dt_ns)).abs()).collect();
            let duration = samples as f64 * dt_ns as f64 * 1e-9;
            span += duration;
            for (j, db) in rho_db.iter().enumerate() {
                let level = 10f64.powf(db / 20.0);
                let up = env.windows(2).filter(|w| w[0] < level && w[1] >= level).count();
                let low = env[1..].iter().filter(|&&r| r < level).count();
                ups[j] += up;
                below[j] += low;
                lcr[j].push(up as f64 / duration);
                afd[j].push(low as f64 * dt_ns as f64 * 1e-9 / up.max(1) as f64);
            }
        }
        for (j, db) in rho_db.iter().enumerate() {
            let rho = 10f64.powf(db / 20.0);
            let (n, se_n) = mean_se(&lcr[j]);
            let (_, se_a) = mean_se(&afd[j]);
            // The fade duration as a ratio of totals (time below / fades).
            let a = below[j] as f64 * dt_ns as f64 * 1e-9 / ups[j] as f64;
            let n_closed = rayleigh_level_crossing_rate(rho, fd);
            let a_closed = rayleigh_average_fade_duration(rho, fd);
            let what = format!("M {sinusoids} f_d {fd} rho {db} dB");
            assert!(
                (n - n_closed).abs() <= 4.0 * se_n + allowance * n_closed,
                "{what} LCR {n} +- {se_n} vs {n_closed}"
            );
            assert!(
                (a - a_closed).abs() <= 4.0 * se_a + allowance * a_closed,
                "{what} AFD {a} +- {se_a} vs {a_closed}"
            );
            writeln!(
                out,
                "f_d = {fd} Hz, rho = {db:+} dB: LCR {n:.3} +- {se_n:.3} /s ({n_closed:.3}, {:+.1} %); AFD {:.3} +- {:.3} ms ({:.3}, {:+.1} %); {} fades in {span:.0} s",
                (n / n_closed - 1.0) * 100.0,
                a * 1e3,
                se_a * 1e3,
                a_closed * 1e3,
                (a / a_closed - 1.0) * 100.0,
                ups[j]
            )
            .unwrap();
        }
    }
    out
}

#[test]
fn fading_level_crossings_and_fade_durations() {
    // With M = 128 the sum of sinusoids is close enough to Gaussian for the
    // closed forms to hold within the sampling error alone (400 links of M =
    // 128 measured -0.04 .. +0.15 % on the LCR, -0.2 .. +0.4 % on the AFD).
    let mut out = level_crossings(128, 25, 0.0);
    // The default M = 32 crosses a little more often and fades a little
    // shorter than Rayleigh (400 links: LCR +0.1 .. +1.2 %, AFD -0.7 ..
    // -1.2 %), a finite-M bias of the order of E|h|^4's 1/(4M) = 0.8 %; the
    // check allows 2 % on top of the sampling error.
    out += &level_crossings(DEFAULT_SINUSOIDS, 60, 0.02);
    println!("{out}");
}

// ---------------------------------------------------------------- cost

#[test]
fn fading_cost_per_call() {
    // Not a check: the time per call under the test profile, printed for
    // docs/validation.md.
    let mut out = String::from("\nCost per call (this build's profile)\n");
    for model in all_models() {
        let f = realisation(model, 50.0, "cost", 0);
        let n = 200_000u64;
        let start = std::time::Instant::now();
        let mut acc = 0.0;
        for i in 0..n {
            acc += f.power_gain(SimTime(i * 1_000_003));
        }
        let ns = start.elapsed().as_nanos() as f64 / n as f64;
        assert!(acc.is_finite());
        writeln!(out, "{model:?}: {ns:.0} ns").unwrap();
    }
    println!("{out}");
}
