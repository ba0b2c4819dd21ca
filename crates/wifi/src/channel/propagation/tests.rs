use super::*;

#[test]
fn distance() {
    let a = Position::new(0.0, 0.0, 0.0);
    let b = Position::new(3.0, 4.0, 12.0);
    assert_eq!(a.distance(&b), 13.0);
    assert_eq!(b.distance(&a), 13.0);
    assert_eq!(a.distance(&a), 0.0);
}

#[test]
fn friis_reference_values() {
    // 20 log10(4 pi f / c) at 1 m.
    assert!((friis_loss_db(1.0, 5.15e9) - 46.6839).abs() < 1e-3);
    assert!((friis_loss_db(1.0, 914e6) - 31.6667).abs() < 1e-3);
    assert!((friis_loss_db(1.0, 2.412e9) - 40.0953).abs() < 1e-3);
    // 6.02 dB per doubling of distance, 20 dB per decade.
    assert!((friis_loss_db(20.0, 2.4e9) - friis_loss_db(10.0, 2.4e9) - 6.0206).abs() < 1e-3);
    assert!((friis_loss_db(100.0, 2.4e9) - friis_loss_db(10.0, 2.4e9) - 20.0).abs() < 1e-9);
}

#[test]
fn log_distance_at_d0_and_slope() {
    let pl = LogDistance::with_friis_reference(2.7, 1.0, 914e6);
    assert!((pl.loss_db(1.0) - friis_loss_db(1.0, 914e6)).abs() < 1e-12);
    for d in [1.0, 5.0, 50.0] {
        let slope = pl.loss_db(10.0 * d) - pl.loss_db(d);
        assert!((slope - 27.0).abs() < 1e-9, "10 n per decade, got {slope}");
    }
    // Held at PL(d0) below d0 (and at d = 0).
    assert_eq!(pl.loss_db(0.5), pl.loss_db(1.0));
    assert_eq!(pl.loss_db(0.0), pl.loss_db(1.0));
    // Other reference distance.
    let pl = LogDistance { exponent: 3.0, reference_distance_m: 10.0, reference_loss_db: 60.0, breakpoint: None };
    assert_eq!(pl.loss_db(10.0), 60.0);
    assert!((pl.loss_db(100.0) - 90.0).abs() < 1e-12);
    // Inverse.
    assert!((pl.distance_for_loss(90.0) - 100.0).abs() < 1e-9);
    assert_eq!(pl.distance_for_loss(10.0), 10.0);
    // Free space equals Friis beyond 1 m.
    let fs = LogDistance::free_space(2.412e9);
    assert!((fs.loss_db(37.0) - friis_loss_db(37.0, 2.412e9)).abs() < 1e-9);
}

#[test]
fn noise_floor() {
    // k T0 = -173.98 dBm/Hz; at 20 MHz -100.97 dBm before the noise figure.
    let n20 = thermal_noise_dbm(20e6, 0.0);
    assert!((n20 - (-100.9649)).abs() < 1e-3, "{n20}");
    assert!((thermal_noise_dbm(20e6, 7.0) - (n20 + 7.0)).abs() < 1e-12);
    assert!((thermal_noise_dbm(1.0, 0.0) - (-173.975)).abs() < 1e-3);
    // 22 MHz is 0.41 dB more.
    assert!((thermal_noise_dbm(22e6, 0.0) - n20 - 0.4139).abs() < 1e-3);
}

#[test]
fn unit_conversions_and_sinr() {
    assert!((watts_to_dbm(0.28183815) - 24.5).abs() < 1e-5);
    assert!((watts_to_dbm(3.652e-10) - (-64.3747)).abs() < 1e-3);
    assert!((dbm_to_mw(mw_to_dbm(3.7)) - 3.7).abs() < 1e-12);
    assert_eq!(snr_db(-60.0, -95.0), 35.0);
    // An interferer as strong as the noise halves the SNR (-3.01 dB).
    let s = sinr_db(-60.0, -95.0, &[-95.0]);
    assert!((s - (35.0 - 3.0103)).abs() < 1e-3);
    assert_eq!(sinr_db(-60.0, -95.0, &[]), 35.0);
}

#[test]
fn link_budget() {
    let lb = LinkBudget {
        path_loss: LogDistance { exponent: 2.0, reference_distance_m: 1.0, reference_loss_db: 40.0, breakpoint: None },
        tx_antenna_gain_dbi: 2.0,
        rx_antenna_gain_dbi: 3.0,
        system_loss_db: 1.0,
    };
    assert!((lb.mean_rx_power_dbm(20.0, 100.0) - (20.0 + 2.0 + 3.0 - 1.0 - 80.0)).abs() < 1e-12);
}

#[test]
fn shadowing_per_frame_statistics() {
    let mut rng = RngStream::derive(42, "test/shadowing");
    let mut sh = Shadowing::new(4.0, ShadowingMode::PerFrame, &mut rng);
    let n = 200_000;
    let xs: Vec<f64> = (0..n).map(|_| sh.sample_db(NodeId(0), NodeId(1), 10.0, &mut rng)).collect();
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    // Standard error of the mean 4/sqrt(2e5) = 0.009 dB; of the sd ~0.006 dB.
    assert!(mean.abs() < 0.05, "mean {mean}");
    assert!((var.sqrt() / 4.0 - 1.0).abs() < 0.02, "sd {}", var.sqrt());
    // Tail check: P(|X| > 2 sigma) = 4.55 %.
    let tail = xs.iter().filter(|x| x.abs() > 8.0).count() as f64 / n as f64;
    assert!((tail - 0.0455).abs() < 0.003, "{tail}");
}

#[test]
fn shadowing_is_deterministic_per_seed() {
    let draw = |seed: u64| {
        let mut rng = RngStream::derive(seed, "test/shadowing");
        let mut sh = Shadowing::new(4.0, ShadowingMode::PerFrame, &mut rng);
        (0..16).map(|_| sh.sample_db(NodeId(1), NodeId(2), 10.0, &mut rng)).collect::<Vec<f64>>()
    };
    assert_eq!(draw(7), draw(7));
    assert_ne!(draw(7), draw(8));
}

#[test]
fn shadowing_per_link_is_fixed_reciprocal_and_order_independent() {
    let mut rng = RngStream::derive(9, "test/shadowing");
    let mut sh = Shadowing::new(6.0, ShadowingMode::PerLink, &mut rng);
    let after_new = rng.clone().next_u64();
    let x01 = sh.sample_db(NodeId(0), NodeId(1), 10.0, &mut rng);
    assert_eq!(sh.sample_db(NodeId(0), NodeId(1), 10.0, &mut rng), x01);
    assert_eq!(sh.sample_db(NodeId(1), NodeId(0), 10.0, &mut rng), x01);
    let x02 = sh.sample_db(NodeId(0), NodeId(2), 10.0, &mut rng);
    assert_ne!(x01, x02);
    // Per-link sampling does not consume the caller's stream.
    assert_eq!(rng.next_u64(), after_new);
    // Another instance from the same seed, links visited in another order.
    let mut rng2 = RngStream::derive(9, "test/shadowing");
    let mut sh2 = Shadowing::new(6.0, ShadowingMode::PerLink, &mut rng2);
    assert_eq!(sh2.sample_db(NodeId(2), NodeId(0), 10.0, &mut rng2), x02);
    assert_eq!(sh2.sample_db(NodeId(0), NodeId(1), 10.0, &mut rng2), x01);
    // Across many links the values have the configured spread.
    let n = 20_000u32;
    let xs: Vec<f64> = (0..n).map(|i| sh.sample_db(NodeId(1000 + i), NodeId(0), 10.0, &mut rng)).collect();
    let mean = xs.iter().sum::<f64>() / n as f64;
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    assert!(mean.abs() < 0.15 && (sd / 6.0 - 1.0).abs() < 0.03, "{mean} {sd}");
}

#[test]
fn zero_sigma_draws_nothing() {
    let mut rng = RngStream::derive(1, "x");
    let before = rng.clone().next_u64();
    let mut sh = Shadowing::none();
    assert_eq!(sh.sample_db(NodeId(0), NodeId(1), 10.0, &mut rng), 0.0);
    assert_eq!(rng.next_u64(), before);
}
