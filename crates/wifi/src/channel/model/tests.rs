use super::*;
use crate::channel::config::{ChannelConfig, SnrConfig};
use crate::channel::error_model::special::q;
use crate::channel::fixed::{FixedPer, FrameScope, SnrClass};
use crate::channel::presets;
use crate::channel::propagation::{thermal_noise_dbm, LogDistance};

fn no_station(_: &str) -> Option<NodeId> {
    None
}

fn snr_model(sigma_db: f64, mode: ShadowingMode) -> ChannelModel {
    let mut c = SnrConfig::default();
    c.propagation.shadowing_sigma_db = sigma_db;
    c.propagation.shadowing = mode;
    ChannelConfig::Snr(c).build(&no_station).unwrap()
}

fn frame(mode: Mode, distance_m: f64) -> FrameTx {
    FrameTx {
        tx: NodeId(0),
        rx: NodeId(1),
        tx_pos: Position::new(0.0, 0.0, 0.0),
        rx_pos: Position::new(distance_m, 0.0, 0.0),
        tx_power_dbm: 16.0206,
        mode,
        preamble: Preamble::Long,
        bits: mode.data_bits(1500),
        kind: FrameKind::Data,
        start: SimTime::ZERO,
    }
}

#[test]
fn snr_model_composes_budget_noise_and_error_model() {
    let m = snr_model(0.0, ShadowingMode::PerFrame);
    let mut ch = Channel::new(m.clone(), &mut RngStream::derive(1, "c"));
    let f = frame(Mode::Ofdm24, 60.0);
    // By hand: Pr = 16.0206 - (46.684 + 30 log10 60); N = -100.97 + 7.
    let pl = LogDistance::with_friis_reference(3.0, 1.0, 5.15e9).loss_db(60.0);
    let pr = 16.0206 - pl;
    let snr = pr - thermal_noise_dbm(20e6, 7.0);
    let want = UnionBoundModel::default().frame_success_prob(snr, Mode::Ofdm24, f.bits);
    let mut rng = RngStream::derive(2, "c");
    let got = ch.frame_success_prob(&f, &mut rng);
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    assert!((ch.rx_power_dbm(&f, &mut rng).unwrap() - pr).abs() < 1e-9);
    // Near: certain; far: hopeless.
    assert!(ch.frame_success_prob(&frame(Mode::Ofdm54, 2.0), &mut rng) > 0.999_999);
    assert!(ch.frame_success_prob(&frame(Mode::Ofdm6, 5_000.0), &mut rng) < 1e-9);
}

#[test]
fn interference_lowers_success() {
    let m = snr_model(0.0, ShadowingMode::PerFrame);
    let f = frame(Mode::Ofdm24, 40.0);
    let pr = m.radio().unwrap().mean_rx_power_dbm(&f);
    let clean = m.success_prob_from_rx_power(&f, pr, &[]);
    let hit = m.success_prob_from_rx_power(&f, pr, &[pr - 5.0]);
    assert!(clean > 0.99 && hit < 1e-6, "{clean} {hit}");
}

#[test]
fn per_frame_shadowing_average_matches_quadrature() {
    // Pick a distance in the 24 Mbit/s waterfall, then compare the
    // empirical mean of the per-frame success probability with the
    // Simpson average over N(0, sigma^2).
    let m = snr_model(4.0, ShadowingMode::PerFrame);
    let f = frame(Mode::Ofdm24, 45.0);
    let mean = m.mean_success_prob(&f).unwrap();
    assert!(mean > 0.2 && mean < 0.9, "choose a waterfall distance: {mean}");
    let mut ch = Channel::new(m, &mut RngStream::derive(3, "c"));
    let mut rng = RngStream::derive(4, "c");
    let n = 100_000;
    let emp = (0..n).filter(|_| ch.attempt_succeeds(&f, &mut rng)).count() as f64 / n as f64;
    assert!((emp - mean).abs() < 0.01, "{emp} vs {mean}");
}

#[test]
fn same_seed_same_draws() {
    let run = |seed: u64| {
        let m = snr_model(4.0, ShadowingMode::PerFrame);
        let mut ch = Channel::new(m, &mut RngStream::derive(seed, "channel"));
        let mut rng = RngStream::derive(seed, "rx");
        let f = frame(Mode::Ofdm24, 45.0);
        (0..100).map(|_| ch.attempt_succeeds(&f, &mut rng)).collect::<Vec<bool>>()
    };
    assert_eq!(run(10), run(10));
    assert_ne!(run(10), run(11));
}

#[test]
fn per_link_shadowing_keeps_a_links_power() {
    let m = snr_model(6.0, ShadowingMode::PerLink);
    let mut ch = Channel::new(m, &mut RngStream::derive(5, "c"));
    let mut rng = RngStream::derive(6, "c");
    let f = frame(Mode::Ofdm24, 45.0);
    let p1 = ch.rx_power_dbm(&f, &mut rng).unwrap();
    let p2 = ch.rx_power_dbm(&f, &mut rng).unwrap();
    assert_eq!(p1, p2);
    let back = FrameTx { tx: f.rx, rx: f.tx, ..f };
    assert_eq!(ch.rx_power_dbm(&back, &mut rng).unwrap(), p1);
}

#[test]
fn threshold_model_matches_ns2_reception_probability() {
    // Empirical reception over 100k attempts vs 1 - Q(margin / sigma).
    let m = presets::janevski_petrov().build(&no_station).unwrap();
    let mut f = frame(Mode::Dsss1, 100.0);
    f.tx_power_dbm = 24.5;
    let mean = m.mean_success_prob(&f).unwrap();
    let mut ch = Channel::new(m, &mut RngStream::derive(7, "c"));
    let mut rng = RngStream::derive(8, "c");
    let n = 100_000;
    let emp = (0..n).filter(|_| ch.attempt_succeeds(&f, &mut rng)).count() as f64 / n as f64;
    assert!((emp - mean).abs() < 0.01, "{emp} vs {mean}");
}

#[test]
fn range_snr_model_without_shadowing() {
    // Without shadowing, FER(d) crosses 10 % where the SNR crosses the
    // error model's 90 % success point: invert both steps by hand.
    let m = snr_model(0.0, ShadowingMode::PerFrame);
    let f = frame(Mode::Ofdm54, 0.0);
    let em = UnionBoundModel::default();
    let (mut lo, mut hi) = (0.0, 40.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if em.frame_success_prob(mid, Mode::Ofdm54, f.bits) < 0.9 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let snr90 = 0.5 * (lo + hi);
    let loss = 16.0206 - thermal_noise_dbm(20e6, 7.0) - snr90;
    let want = LogDistance::with_friis_reference(3.0, 1.0, 5.15e9).distance_for_loss(loss);
    let got = m.range_m(&f, 0.1).unwrap();
    assert!((got / want - 1.0).abs() < 1e-6, "{got} vs {want}");
    // Robust modes reach farther.
    let r6 = m.range_m(&frame(Mode::Ofdm6, 0.0), 0.1).unwrap();
    assert!(r6 > 2.0 * got, "{r6} vs {got}");
    // Fixed models have no range.
    let fixed = ChannelConfig::default().build(&no_station).unwrap();
    assert_eq!(fixed.range_m(&f, 0.1), None);
}

#[test]
fn range_with_shadowing_is_where_mean_fer_crosses() {
    let m = snr_model(4.0, ShadowingMode::PerFrame);
    let f = frame(Mode::Ofdm12, 0.0);
    let r = m.range_m(&f, 0.1).unwrap();
    let at = |d: f64| 1.0 - m.mean_success_prob(&FrameTx { rx_pos: Position::new(d, 0.0, 0.0), ..f }).unwrap();
    assert!((at(r) - 0.1).abs() < 1e-6, "{}", at(r));
    assert!(at(0.9 * r) < 0.1 && at(1.1 * r) > 0.1);
    // Shadowing shortens the 10 %-FER range (the tail of bad draws).
    let r0 = snr_model(0.0, ShadowingMode::PerFrame).range_m(&f, 0.1).unwrap();
    assert!(r < r0, "{r} vs {r0}");
}

#[test]
fn range_threshold_model_closed_form() {
    // sigma = 0: Pr(d) = thr at d = 10^((Pt - PL(d0) - thr) / (10 n)).
    let m = presets::ns2_shadowing(2.0, 0.0).build(&no_station).unwrap();
    let mut f = frame(Mode::Dsss1, 0.0);
    f.tx_power_dbm = 24.5;
    let thr = -64.3747;
    let want = 10f64.powf((24.5 - 31.6667 - thr) / 20.0);
    let got = m.range_m(&f, 0.5).unwrap();
    assert!((got / want - 1.0).abs() < 1e-3, "{got} vs {want}");
    // With sigma = 4 dB the 50 % point is the same (median), 10 % is closer.
    let m4 = presets::ns2_shadowing(2.0, 4.0).build(&no_station).unwrap();
    assert!((m4.range_m(&f, 0.5).unwrap() / want - 1.0).abs() < 1e-3);
    let r10 = m4.range_m(&f, 0.1).unwrap();
    let want10 = 10f64.powf((24.5 - 31.6667 - thr - 4.0 * 1.281_551_6) / 20.0);
    assert!((r10 / want10 - 1.0).abs() < 1e-3, "{r10} vs {want10}");
    assert!((q(1.281_551_6) - 0.1).abs() < 1e-7);
}

#[test]
fn fixed_model_through_channel() {
    let mut classes = SnrClasses::new(FixedPer::ZERO, FrameScope::Data);
    let c = classes.add_class(SnrClass {
        name: "c2".into(),
        per_down: FixedPer::new(0.2).unwrap(),
        per_up: FixedPer::ZERO,
    });
    classes.assign(NodeId(1), c).unwrap();
    let mut ch = Channel::new(ChannelModel::Fixed(classes), &mut RngStream::derive(1, "c"));
    let mut rng = RngStream::derive(2, "c");
    let f = frame(Mode::Ofdm36, 10.0);
    assert_eq!(ch.rx_power_dbm(&f, &mut rng), None);
    let n = 100_000;
    let fails = (0..n).filter(|_| !ch.attempt_succeeds(&f, &mut rng)).count() as f64 / n as f64;
    assert!((fails - 0.2).abs() < 0.01, "{fails}");
    let ack = FrameTx { kind: FrameKind::Control, ..f };
    assert_eq!(ch.frame_success_prob(&ack, &mut rng), 1.0);
}

#[test]
fn documented_ranges_of_the_default_snr_model() {
    // 10 % FER ranges of 1500-byte frames under the default SNR
    // configuration (16.02 dBm, n = 3, 5.15 GHz Friis reference, NF 7 dB,
    // no shadowing), as quoted in the module documentation (0.5 % tolerance).
    let m = snr_model(0.0, ShadowingMode::PerFrame);
    let documented = [
        (Mode::Dsss1, 157.5),
        (Mode::Dsss2, 110.4),
        (Mode::Cck5_5, 101.7),
        (Mode::Cck11, 78.5),
        (Mode::Ofdm6, 105.1),
        (Mode::Ofdm9, 85.8),
        (Mode::Ofdm12, 83.4),
        (Mode::Ofdm18, 68.1),
        (Mode::Ofdm24, 50.7),
        (Mode::Ofdm36, 40.7),
        (Mode::Ofdm48, 28.1),
        (Mode::Ofdm54, 25.7),
    ];
    for (mode, want) in documented {
        let got = m.range_m(&frame(mode, 0.0), 0.1).unwrap();
        assert!((got / want - 1.0).abs() < 0.005, "{mode:?}: {got:.1} m, documented {want}");
    }
}
