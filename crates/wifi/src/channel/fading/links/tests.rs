//! Fading wired into the frame error model: frame error rates against the
//! closed-form average over the fading distribution, burst errors at low
//! Doppler and none at high Doppler or per-frame draws, determinism, and
//! the Doppler of moving nodes. Frames are judged as the medium judges
//! them: `success_prob` of [`ChannelErrors`], then one Bernoulli draw.
//! `cargo test -p wifitcp-wifi fading_frame -- --nocapture
//! --test-threads=1` prints the figures of docs/validation.md (section 22).

use std::f64::consts::PI;
use std::fmt::Write;

use super::*;
use crate::channel::config::{ChannelConfig, FadingConfig, FadingKind, SnrConfig};
use crate::channel::{FrameKind as K, FrameTx, Mode, Preamble};
use crate::mac::{Frame, FrameKind, MacAddr};
use crate::medium::errors::two_nodes;
use crate::medium::{ChannelErrors, FrameErrorModel};
use crate::phy::Rate;
use wifitcp_core::{RngStream, SimDur};

/// Station-AP distance of the statistical checks: the default SNR channel
/// (16.02 dBm, exponent 3 from Friis at 1 m and 5.15 GHz, 7 dB noise
/// figure) gives a mean SNR of 21.36 dB at 25 m, where the frame below
/// never fails without fading and fails 10 % of the time under Rayleigh
/// fading (it needs 9.8 dB less than the mean).
const DISTANCE_M: f64 = 25.0;
/// The data frame: 1500 bytes at 24 Mbit/s (OFDM, 16-QAM rate 1/2).
const BYTES: u32 = 1500;
const MBPS: u32 = 24;
const AIRTIME: SimDur = SimDur::from_micros(540);

fn data() -> Frame {
    Frame {
        mu: None,
        kind: FrameKind::Data,
        ta: MacAddr(0),
        ra: MacAddr(1),
        duration: SimDur::ZERO,
        seq: 0,
        retry: false,
        mpdu_bytes: BYTES,
        rate: Rate(MBPS * 10),
        airtime: AIRTIME,
        contended: true,
        mpdus: crate::mac::Mpdus::none(),
    }
}

fn cfg(fading: Option<FadingConfig>) -> ChannelConfig {
    ChannelConfig::Snr(SnrConfig { fading, ..Default::default() })
}

fn fading(model: FadingKind, doppler_hz: Option<f64>) -> FadingConfig {
    FadingConfig { model, doppler_hz, ..Default::default() }
}

/// The two-node channel at `DISTANCE_M` with `f` on its link, drawn from
/// run seed `seed`.
fn link(f: &FadingConfig, seed: u64) -> ChannelErrors {
    let c = cfg(Some(f.clone()));
    let mut e = two_nodes(c.clone(), DISTANCE_M);
    if let Some(spec) = c.fading().unwrap() {
        e.channel = e.channel.with_fading(spec, seed).unwrap();
    }
    e
}

/// Outcomes (true: lost) of `n` frames sent `gap` apart from 1 s on, each
/// judged as the medium does (the frame ends `AIRTIME` after its start).
fn outcomes(e: &mut ChannelErrors, n: usize, gap: SimDur, rng: &mut RngStream) -> Vec<bool> {
    let f = data();
    (0..n)
        .map(|i| {
            let end = SimTime::from_secs(1) + gap * i as u64 + AIRTIME;
            let p = e.success_prob(end, f.ta, f.ra, &f, rng);
            !(p >= 1.0 || rng.bernoulli(p))
        })
        .collect()
}

/// Mean and standard error of the mean of independent batch values.
fn mean_se(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// The channel's view of the data frame (for the closed form).
fn frame_tx(e: &ChannelErrors) -> FrameTx {
    let mode = Mode::from_kbps(MBPS * 1000).unwrap();
    FrameTx {
        tx: NodeId(0),
        rx: NodeId(1),
        tx_pos: e.positions[0],
        rx_pos: e.positions[1],
        tx_power_dbm: e.tx_power_dbm,
        mode,
        preamble: Preamble::Long,
        bits: mode.data_bits(BYTES),
        kind: K::Data,
        start: SimTime::ZERO,
    }
}

/// Frame error rate at mean received power `mean_dbm` and power gain `g`.
fn fer_at(e: &ChannelErrors, mean_dbm: f64, g: f64) -> f64 {
    1.0 - e.channel.model().success_prob_from_rx_power(&frame_tx(e), mean_dbm + 10.0 * g.log10(), &[])
}

/// The closed-form Rayleigh average E[FER(g mean SNR)] over the power gain
/// g ~ Exp(1): int_0^inf FER(g) e^-g dg = int_0^1 FER(-ln(1-u)) du, by the
/// midpoint rule on 200,000 points of u (the integrand is a step in u,
/// smooth away from it; halving the points changes the value by < 1e-6).
fn rayleigh_average_fer(e: &ChannelErrors, mean_dbm: f64) -> f64 {
    let n = 200_000;
    (0..n).map(|i| fer_at(e, mean_dbm, -(1.0 - (i as f64 + 0.5) / n as f64).ln())).sum::<f64>() / n as f64
}

#[test]
fn fading_frame_error_rate_matches_the_rayleigh_average() {
    let plain = two_nodes(cfg(None), DISTANCE_M);
    let mean_dbm = plain.mean_rx_dbm(MacAddr(0), MacAddr(1)).unwrap();
    let noise = plain.channel.model().radio().unwrap().noise_dbm(Mode::Ofdm24);
    let fer0 = fer_at(&plain, mean_dbm, 1.0);
    let closed = rayleigh_average_fer(&plain, mean_dbm);
    // Where a frame fails: FER(g) = 1/2 at the gain g50.
    let (mut lo, mut hi) = (1e-6f64, 1.0f64);
    for _ in 0..80 {
        let mid = (lo * hi).sqrt();
        if fer_at(&plain, mean_dbm, mid) > 0.5 {
            lo = mid
        } else {
            hi = mid
        }
    }
    let mut out = String::new();
    writeln!(
        out,
        "{BYTES} B at {MBPS} Mbit/s, {DISTANCE_M} m: mean SNR {:.2} dB, FER without fading {fer0:.2e}; \
         FER(g) = 1/2 at g = {:.2} dB; Rayleigh average {closed:.4} (1 - exp(-g50) = {:.4})",
        mean_dbm - noise,
        10.0 * lo.log10(),
        1.0 - (-lo).exp()
    )
    .unwrap();
    assert!(fer0 < 1e-6, "no fading: FER {fer0}");
    assert!(closed > 0.02 && closed < 0.2, "{closed}");
    // 200 links (run seeds), 500 frames each 0.3713 s apart (18.6 Doppler
    // periods at 50 Hz: nearly independent); one batch per link. The sum
    // of 32 sinusoids puts slightly more mass near zero than Rayleigh (its
    // envelope CDF at r = 0.3 is 0.0873 against 0.0861, section 22), so it
    // is allowed 4 standard errors plus 3 % of the closed form; the block
    // model's draws are exactly Rayleigh and get 4 standard errors only.
    for (kind, fd, allowance) in [(FadingKind::Rayleigh, Some(50.0), 0.03), (FadingKind::BlockRayleigh, None, 0.0)] {
        let f = fading(kind, fd);
        let mut rng = RngStream::derive(11, "medium/errors");
        let batches: Vec<f64> = (0..200u64)
            .map(|seed| {
                let o = outcomes(&mut link(&f, seed), 500, SimDur::from_nanos(371_300_000), &mut rng);
                o.iter().filter(|&&x| x).count() as f64 / o.len() as f64
            })
            .collect();
        let (m, se) = mean_se(&batches);
        writeln!(out, "{:?}: measured FER {m:.4} +- {se:.4} over 100,000 frames, closed form {closed:.4}", kind)
            .unwrap();
        assert!((m - closed).abs() <= 4.0 * se + allowance * closed, "{kind:?}: {m} +- {se} vs {closed}");
    }
    println!("{out}");
}

/// Loss statistics of `links` links (run seeds) of `per` frames `gap`
/// apart: (pooled FER, pooled P(loss | previous frame lost), and over the
/// links the mean and standard error of P(loss | loss)_i - FER_i).
fn burstiness(f: &FadingConfig, links: u64, per: usize, gap: SimDur) -> (f64, f64, f64, f64) {
    let mut rng = RngStream::derive(12, "medium/errors");
    let (mut lost, mut pairs, mut both) = (0usize, 0usize, 0usize);
    let mut excess = Vec::new();
    for seed in 0..links {
        let o = outcomes(&mut link(f, 1000 + seed), per, gap, &mut rng);
        let l = o.iter().filter(|&&x| x).count();
        let (p, b) = o.windows(2).fold((0, 0), |(p, b), w| (p + w[0] as usize, b + (w[0] && w[1]) as usize));
        lost += l;
        pairs += p;
        both += b;
        if p > 0 {
            excess.push(b as f64 / p as f64 - l as f64 / per as f64);
        }
    }
    let (d, se) = mean_se(&excess);
    (lost as f64 / (links as usize * per) as f64, both as f64 / pairs as f64, d, se)
}

#[test]
fn fading_frame_errors_come_in_bursts_at_low_doppler_only() {
    // Frames 1 ms apart. At f_d = 5 Hz the channel barely changes between
    // two frames (J0(2 pi 5 Hz 1 ms) = 0.9990): a loss is followed by
    // another nearly always, far above the mean. At 382.7 Hz the lag is at
    // the first zero of J0 (2 pi f_d tau = 2.4048): consecutive gains are
    // uncorrelated complex Gaussians, so independent; block Rayleigh draws
    // per frame. There, P(loss | loss) must equal the mean within 4
    // standard errors (of the per-link conditional rates).
    let gap = SimDur::from_millis(1);
    let mut out = String::new();
    let cases = [
        ("Rayleigh, 5 Hz", fading(FadingKind::Rayleigh, Some(5.0)), 100, 2_000),
        (
            "Rayleigh, 382.7 Hz",
            fading(FadingKind::Rayleigh, Some(2.404_825_557_695_773 / (2.0 * PI * 1e-3))),
            200,
            1_000,
        ),
        ("block Rayleigh", fading(FadingKind::BlockRayleigh, None), 200, 1_000),
    ];
    for (name, f, links, per) in cases {
        let (mean, c, d, se) = burstiness(&f, links, per, gap);
        writeln!(
            out,
            "{name}: FER {mean:.4}, P(loss | loss before) {c:.4}; per link P(loss | loss) - FER {d:+.4} +- {se:.4}"
        )
        .unwrap();
        if name.ends_with(" 5 Hz") {
            assert!(c > 0.8 && c > 5.0 * mean, "{name}: {c} vs {mean}");
        } else {
            assert!(d.abs() <= 4.0 * se, "{name}: excess {d} +- {se}");
        }
    }
    println!("{out}");
}

#[test]
fn fading_frame_outcomes_are_deterministic_and_isolated() {
    let f = fading(FadingKind::Rayleigh, Some(20.0));
    let run = |seed: u64| {
        let mut rng = RngStream::derive(3, "medium/errors");
        let o = outcomes(&mut link(&f, seed), 5_000, SimDur::from_millis(2), &mut rng);
        (o, rng.next_u64())
    };
    let (a, ra) = run(7);
    let (b, rb) = run(7);
    let (c, _) = run(8);
    assert_eq!(a, b, "same seed, same outcomes");
    assert_eq!(ra, rb);
    assert_ne!(a, c, "another seed, other outcomes");
    assert!(a.iter().any(|&x| x) && a.iter().any(|&x| !x));
    // The medium's stream sees one Bernoulli draw per frame whose p < 1,
    // with or without fading: fading draws only from its link streams.
    let mut faded = link(&f, 7);
    let mut plain = two_nodes(cfg(None), DISTANCE_M);
    let frame = data();
    let (mut r1, mut r2) = (RngStream::derive(4, "m"), RngStream::derive(4, "m"));
    for i in 0..1000u64 {
        let t = SimTime::from_millis(i + 1);
        faded.success_prob(t, frame.ta, frame.ra, &frame, &mut r1);
        plain.success_prob(t, frame.ta, frame.ra, &frame, &mut r2);
    }
    assert_eq!(r1.next_u64(), r2.next_u64());
    // model = "none" is no fading at all: the same answers, bit for bit.
    let mut none = link(&fading(FadingKind::None, None), 7);
    assert!(none.channel.fading().spec().is_none());
    for i in 0..100u64 {
        let t = SimTime::from_millis(i + 1);
        assert_eq!(
            none.success_prob(t, frame.ta, frame.ra, &frame, &mut r1).to_bits(),
            plain.success_prob(t, frame.ta, frame.ra, &frame, &mut r2).to_bits()
        );
    }
}

#[test]
fn fading_frame_reciprocity_and_the_frames_start() {
    // Both directions of a link read one process, at the frame's start.
    let f = fading(FadingKind::Rayleigh, Some(30.0));
    let mut e = link(&f, 5);
    let spec = cfg(Some(f)).fading().unwrap().unwrap();
    let mut lf = LinkFading::new(spec, 5).unwrap();
    let (p0, p1) = (e.positions[0], e.positions[1]);
    let mut rng = RngStream::derive(1, "m");
    for i in 0..50u64 {
        let start = SimTime::from_micros(1_000 + 7_919 * i);
        let g = lf.gain_db(NodeId(0), NodeId(1), p0, p1, start).unwrap();
        assert_eq!(lf.gain_db(NodeId(1), NodeId(0), p1, p0, start), Some(g));
        let direct = Fading::new(spec.model, 30.0, &mut link_stream(5, NodeId(1), NodeId(0))).unwrap().gain_db(start);
        assert_eq!(g, direct);
        // the medium's answer for a frame ending AIRTIME after `start`
        let mean = e.mean_rx_dbm(MacAddr(0), MacAddr(1)).unwrap();
        let want = e.channel.model().success_prob_from_rx_power(&frame_tx(&e), mean + g, &[]);
        let frame = data();
        assert_eq!(e.success_prob(start + AIRTIME, frame.ta, frame.ra, &frame, &mut rng), want);
    }
}

#[test]
fn fading_frame_doppler_follows_the_nodes_motion() {
    use crate::channel::moving::MovingChannelErrors;
    use crate::mobility::{Waypoint, Waypoints};
    // Without doppler_hz, a station walking straight away from the AP at
    // 1.5 m/s from t = 0 sees the process of f_d = 1.5 f_c / c (25.77 Hz at
    // 5.15 GHz) in time: the gains agree with the fixed-Doppler ones to
    // rounding.
    let v = 1.5;
    let fd = crate::channel::fading::doppler_hz(v, 5.15e9);
    assert!((fd - 25.767).abs() < 1e-3, "{fd}");
    let walker = || -> Box<dyn crate::mobility::Mobility> {
        let wp =
            |s: u64, x: f64| Waypoint { time: SimTime::from_secs(s), pos: crate::channel::Position::new(x, 0.0, 0.0) };
        Box::new(Waypoints::new(vec![wp(0, DISTANCE_M), wp(100, DISTANCE_M + 100.0 * v)]).unwrap())
    };
    let motion = cfg(Some(fading(FadingKind::Rayleigh, None))).fading().unwrap().unwrap();
    assert_eq!(motion.doppler, Doppler::Motion { carrier_hz: 5.15e9 });
    let fixed = cfg(Some(fading(FadingKind::Rayleigh, Some(fd)))).fading().unwrap().unwrap();
    let mut moving = MovingChannelErrors::new(two_nodes(cfg(None), DISTANCE_M), vec![None, Some(walker())]);
    moving.inner.channel = moving.inner.channel.clone().with_fading(motion, 9).unwrap();
    let mut lf = LinkFading::new(fixed, 9).unwrap();
    let frame = Frame { airtime: SimDur::ZERO, ..data() };
    let mut rng = RngStream::derive(1, "m");
    let mut worst: f64 = 0.0;
    for i in 0..400u64 {
        let t = SimTime::from_micros(250_000 * i);
        let p = moving.success_prob(t, frame.ta, frame.ra, &frame, &mut rng);
        let pos = moving.inner.positions.clone();
        let g = lf.gain_db(NodeId(0), NodeId(1), pos[0], pos[1], t).unwrap();
        let mean = moving.inner.mean_rx_dbm(MacAddr(0), MacAddr(1)).unwrap();
        let mut tx = frame_tx(&moving.inner);
        tx.start = t;
        let q = moving.inner.channel.model().success_prob_from_rx_power(&tx, mean + g, &[]);
        worst = worst.max((p - q).abs());
    }
    assert!(worst < 1e-9, "{worst}");
    // Nodes that stand still: a frozen channel, one gain per link.
    let mut still = two_nodes(cfg(None), DISTANCE_M);
    still.channel = still.channel.with_fading(motion, 9).unwrap();
    let (p0, p1) = (still.positions[0], still.positions[1]);
    let mut lf = LinkFading::new(motion, 9).unwrap();
    let g0 = lf.gain_db(NodeId(0), NodeId(1), p0, p1, SimTime::ZERO).unwrap();
    for s in 1..50 {
        assert_eq!(lf.gain_db(NodeId(1), NodeId(0), p1, p0, SimTime::from_secs(s)), Some(g0));
    }
}

#[test]
fn fading_frame_config_errors_name_the_key() {
    let e = |f: FadingConfig| cfg(Some(f)).build(&|_| None).unwrap_err().to_string();
    let with = |model, k_db, m, doppler_hz| FadingConfig { model, k_db, m, doppler_hz, ..Default::default() };
    assert!(e(with(FadingKind::Rician, None, None, None)).starts_with("channel.fading.k_db: required"));
    assert!(e(with(FadingKind::Nakagami, None, None, None)).starts_with("channel.fading.m: required"));
    assert!(e(with(FadingKind::Rayleigh, Some(3.0), None, None)).starts_with("channel.fading.k_db: not a parameter"));
    assert!(e(with(FadingKind::BlockRayleigh, None, None, Some(5.0))).starts_with("channel.fading.doppler_hz: not a"));
    assert!(e(with(FadingKind::Nakagami, None, Some(0.3), None)).starts_with("channel.fading.m: Nakagami m 0.3"));
    assert!(e(with(FadingKind::Rayleigh, None, None, Some(-1.0))).starts_with("channel.fading.doppler_hz:"));
    // Rician K in dB: 6 dB is K = 3.98.
    let s = cfg(Some(with(FadingKind::BlockRician, Some(6.0), None, None))).fading().unwrap().unwrap();
    match s.model {
        FadingModel::BlockRician { k_factor } => assert!((k_factor - 3.981).abs() < 1e-3),
        m => panic!("{m:?}"),
    }
    assert_eq!(cfg(Some(FadingConfig::default())).fading().unwrap(), None);
    assert_eq!(ChannelConfig::default().fading().unwrap(), None);
}

/// A Rician spec with `los_distance_m` gives links within it the K factor
/// and longer ones none: the fourth moment of |h| over many links and
/// instants, E|h|^4 = (2 + 4K + K^2) / (1 + K)^2 (1.36 at K = 6 dB) within
/// and 2 (Rayleigh; 1.98 with 32 sinusoids) beyond.
#[test]
fn links_beyond_the_line_of_sight_distance_are_rayleigh() {
    let model = FadingModel::Rician { k_factor: 10f64.powf(0.6), los_angle_rad: 0.0, sinusoids: 32 };
    let spec = FadingSpec { model, doppler: Doppler::Fixed(50.0), los_distance_m: Some(20.0) };
    let mut lf = LinkFading::new(spec, 7).unwrap();
    let ap = Position::new(0.0, 0.0, 0.0);
    let m4 = |lf: &mut LinkFading, d: f64, first: u32| {
        let (mut s2, mut s4, mut n) = (0.0, 0.0, 0.0);
        for i in 0..300u32 {
            let sta = Position::new(d, 0.0, 0.0);
            for k in 0..20u64 {
                let t = SimTime::ZERO + SimDur::from_millis(37 * k);
                let g = 10f64.powf(lf.gain_db(NodeId(0), NodeId(first + i), ap, sta, t).unwrap() / 10.0);
                (s2, s4, n) = (s2 + g, s4 + g * g, n + 1.0);
            }
        }
        (s2 / n, s4 / n)
    };
    let (p_los, m4_los) = m4(&mut lf, 10.0, 1);
    let (p_nlos, m4_nlos) = m4(&mut lf, 30.0, 1001);
    let k = 10f64.powf(0.6);
    let want = (2.0 + 4.0 * k + k * k) / ((1.0 + k) * (1.0 + k));
    eprintln!(
        "los: E|h|^2 {p_los:.4} E|h|^4 {m4_los:.4} (Rice {want:.4}); nlos: E|h|^2 {p_nlos:.4} E|h|^4 {m4_nlos:.4}"
    );
    assert!((p_los - 1.0).abs() < 0.05 && (p_nlos - 1.0).abs() < 0.05, "{p_los} {p_nlos}");
    assert!((m4_los - want).abs() < 0.1, "within: E|h|^4 {m4_los}, Rice {want}");
    assert!((m4_nlos - 1.98).abs() < 0.15, "beyond: E|h|^4 {m4_nlos}, Rayleigh 1.98");
}
