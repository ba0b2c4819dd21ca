//! Mode-level tests of the union-bound error model.

use super::*;

const FRAME_1500: u32 = 1500;

fn model() -> UnionBoundModel {
    UnionBoundModel::default()
}

/// SNR (dB) at which the success probability of a `psdu`-byte frame in
/// `mode` crosses `target`, by bisection (success is monotone in SNR).
fn crossing(mode: Mode, psdu: u32, target: f64) -> f64 {
    let m = model();
    let bits = mode.data_bits(psdu);
    let (mut lo, mut hi) = (-20.0, 60.0);
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if m.frame_success_prob(mid, mode, bits) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[test]
fn mode_table() {
    let kbps: Vec<u32> = Mode::ALL.iter().map(|m| m.kbps()).collect();
    assert_eq!(kbps, vec![1000, 2000, 5500, 11000, 6000, 9000, 12000, 18000, 24000, 36000, 48000, 54000]);
    for m in Mode::ALL {
        assert_eq!(Mode::from_kbps(m.kbps()), Some(m));
        assert_eq!(m.code_rate().is_some(), m.family() == Family::Ofdm);
    }
    assert_eq!(Mode::Ofdm48.code_rate(), Some(CodeRate::R2_3));
    assert_eq!(Mode::Ofdm54.modulation(), Modulation::Qam64);
    assert_eq!(Mode::Cck5_5.modulation(), Modulation::Cck);
    assert_eq!(Mode::from_kbps(20_000), None);
}

#[test]
fn data_bits_and_headers() {
    // OFDM: SERVICE 16 + 8 * PSDU + tail 6.
    assert_eq!(Mode::Ofdm54.data_bits(1500), 16 + 12_000 + 6);
    assert_eq!(Mode::Cck11.data_bits(1500), 12_000);
    assert_eq!(plcp_header(Mode::Ofdm54, Preamble::Short), (Mode::Ofdm6, 24));
    assert_eq!(plcp_header(Mode::Cck11, Preamble::Long), (Mode::Dsss1, 48));
    assert_eq!(plcp_header(Mode::Cck11, Preamble::Short), (Mode::Dsss2, 48));
}

#[test]
fn fer_formula() {
    // FER = 1 - (1 - BER)^bits.
    let ber: f64 = 1e-4;
    let bits = 8 * 1500;
    let want = 1.0 - (1.0 - ber).powi(bits as i32);
    assert!(((1.0 - chunk_success(ber, bits)) - want).abs() < 1e-12);
    assert_eq!(chunk_success(0.3, 0), 1.0);
    assert_eq!(chunk_success(0.0, 1_000_000), 1.0);
    assert_eq!(chunk_success(1.0, 1), 0.0);
    // Frame success = header success * data success.
    let m = model();
    let snr = 3.0;
    let got = m.frame_success_prob(snr, Mode::Ofdm6, 1000);
    let want = chunk_success(m.ber(snr, Mode::Ofdm6), 24) * chunk_success(m.ber(snr, Mode::Ofdm6), 1000);
    assert!((got - want).abs() < 1e-15);
    let got = m.ppdu_success_prob(snr, Mode::Cck11, Preamble::Short, 1000);
    let want = chunk_success(m.ber(snr, Mode::Dsss2), 48) * chunk_success(m.ber(snr, Mode::Cck11), 1000);
    assert!((got - want).abs() < 1e-15);
}

#[test]
fn ber_is_monotone_decreasing_in_snr() {
    let m = model();
    for mode in Mode::ALL {
        let mut prev = 0.5;
        let mut strictly = 0;
        for i in 0..=200 {
            let snr = -10.0 + 0.25 * i as f64;
            let b = m.ber(snr, mode);
            assert!((0.0..=0.5).contains(&b), "{mode:?} {snr}: {b}");
            assert!(b <= prev, "{mode:?}: BER rises from {prev} to {b} at {snr} dB");
            if b < prev && b > 1e-300 {
                strictly += 1;
            }
            prev = b;
        }
        assert!(strictly > 20, "{mode:?} BER curve is flat");
        assert!(m.ber(-10.0, mode) > 1e-2, "{mode:?} too good at -10 dB");
        assert!(m.ber(50.0, mode) < 1e-12, "{mode:?} too bad at 50 dB");
    }
}

#[test]
fn faster_modes_need_more_snr() {
    // Order of SNR needed for a 1500-byte frame to get through half the
    // time, within each family.
    let ofdm =
        [Mode::Ofdm6, Mode::Ofdm9, Mode::Ofdm12, Mode::Ofdm18, Mode::Ofdm24, Mode::Ofdm36, Mode::Ofdm48, Mode::Ofdm54];
    let dsss = [Mode::Dsss1, Mode::Dsss2, Mode::Cck5_5, Mode::Cck11];
    for family in [&ofdm[..], &dsss[..]] {
        let need: Vec<f64> = family.iter().map(|&m| crossing(m, FRAME_1500, 0.5)).collect();
        for w in need.windows(2) {
            assert!(w[1] > w[0] + 0.2, "{family:?}: {need:?}");
        }
    }
    // Same BER (1e-5) ordering, directly on the BER curves.
    let m = model();
    let need_ber = |mode: Mode| {
        let mut s = -10.0;
        while m.ber(s, mode) > 1e-5 {
            s += 0.01;
        }
        s
    };
    let v: Vec<f64> = ofdm.iter().map(|&md| need_ber(md)).collect();
    assert!(v.windows(2).all(|w| w[1] > w[0]), "{v:?}");
}

#[test]
fn ofdm6_transition_band() {
    // Derivation of the band: the frame (12 022 data bits) succeeds half the
    // time when BER = ln 2 / 12 022 = 5.8e-5. With the first spectrum term
    // alone, 36 * P_10(p) = 5.8e-5; P_10 ~ C(10,5)/2 p^5 gives p = 0.026,
    // BPSK p = Q(sqrt(2 Es/N0)) gives Es/N0 = 2.7 dB, i.e. SNR = 2.7 - 0.9
    // = 1.8 dB (Es/N0 = SNR * 64/52). Further terms add up to ~1 dB.
    let s50 = crossing(Mode::Ofdm6, FRAME_1500, 0.5);
    assert!((1.8..3.3).contains(&s50), "6 Mbit/s 50 % point at {s50} dB");
    // A waterfall: 10 % -> 90 % within 1.5 dB.
    let width = crossing(Mode::Ofdm6, FRAME_1500, 0.9) - crossing(Mode::Ofdm6, FRAME_1500, 0.1);
    assert!(width > 0.0 && width < 1.5, "{width}");
}

#[test]
fn ofdm54_transition_band() {
    // Same derivation: hard-decision P_5 and P_6 are both ~10 p^3, so
    // (42 + 201)/3 * 10 p^3 = 5.8e-5 gives p = 4.2e-3; 64-QAM
    // p = (7/12) Q(sqrt(Es/N0 / 21)) gives Es/N0 = 21.0 dB, SNR = 20.1 dB;
    // the O(p^4) terms add a few tenths of a dB.
    let s50 = crossing(Mode::Ofdm54, FRAME_1500, 0.5);
    assert!((20.0..21.5).contains(&s50), "54 Mbit/s 50 % point at {s50} dB");
    let width = crossing(Mode::Ofdm54, FRAME_1500, 0.9) - crossing(Mode::Ofdm54, FRAME_1500, 0.1);
    assert!(width > 0.0 && width < 1.5, "{width}");
}

#[test]
fn dsss1_transition_is_exact() {
    // DBPSK is exact: BER = exp(-22 SNR)/2 = ln 2 / 12 000 gives
    // 22 SNR = ln(0.5 * 12 000 / ln 2) = 9.066, SNR = -3.85 dB. The 48-bit
    // header at the same rate moves it by < 0.02 dB.
    let s50 = crossing(Mode::Dsss1, FRAME_1500, 0.5);
    let want = 10.0 * (f64::ln(0.5 * 12_000.0 / std::f64::consts::LN_2) / 22.0).log10();
    assert!((s50 - want).abs() < 0.03, "{s50} vs {want}");
}

#[test]
fn cck11_transition_band() {
    // 11 Mbit/s CCK: the phi1 DQPSK term alone (Eb/N0 = Es/(2 N0) =
    // 8 SNR) needs about 4.7 dB for BER 5.8e-5, and the word selection
    // adds the rest; the model puts the 50 % point between 4 and 7 dB.
    let s50 = crossing(Mode::Cck11, FRAME_1500, 0.5);
    assert!((4.0..7.0).contains(&s50), "{s50}");
}

#[test]
fn documented_transition_points() {
    // The 50 % points quoted in the module documentation (regression guard
    // for the model; 0.02 dB tolerance).
    let documented = [
        (Mode::Dsss1, -3.85),
        (Mode::Dsss2, 0.67),
        (Mode::Cck5_5, 1.70),
        (Mode::Cck11, 5.14),
        (Mode::Ofdm6, 2.09),
        (Mode::Ofdm9, 4.76),
        (Mode::Ofdm12, 5.10),
        (Mode::Ofdm18, 7.77),
        (Mode::Ofdm24, 11.54),
        (Mode::Ofdm36, 14.45),
        (Mode::Ofdm48, 19.21),
        (Mode::Ofdm54, 20.39),
    ];
    for (m, want) in documented {
        let got = crossing(m, FRAME_1500, 0.5);
        assert!((got - want).abs() < 0.02, "{m:?}: {got:.3} dB, documented {want}");
    }
}

#[test]
fn nan_snr_is_a_failure_not_a_panic() {
    assert_eq!(model().ber(f64::NAN, Mode::Ofdm6), 0.5);
}

#[test]
fn table_matches_the_formulas() {
    // Off-grid points (0.0137 dB offset) across the whole range, both
    // bandwidth settings: relative error < 1e-3 wherever 1e-100 < BER <= 0.1,
    // and < 3 % above (the corner where the bounds are clamped to 1/2).
    for bw in [20e6, 16.6e6] {
        let m = UnionBoundModel { ofdm_noise_bandwidth_hz: bw, dsss_noise_bandwidth_hz: bw * 1.1 };
        for mode in Mode::ALL {
            let (mut worst, mut worst_high): (f64, f64) = (0.0, 0.0);
            for i in 0..1600 {
                let snr = -29.0 + 0.05 * i as f64 + 0.0137;
                let exact = m.ber_exact(snr, mode);
                if exact < 1e-100 {
                    continue;
                }
                let e = (m.ber(snr, mode) / exact - 1.0).abs();
                if exact > 0.1 {
                    worst_high = worst_high.max(e);
                } else {
                    worst = worst.max(e);
                }
            }
            assert!(worst < 1e-3, "{mode:?} at {bw} Hz: worst relative error {worst}");
            assert!(worst_high < 0.03, "{mode:?} at {bw} Hz: {worst_high} above BER 0.1");
        }
    }
}

#[test]
fn bandwidth_shift() {
    // Halving the noise bandwidth at equal SNR halves Es/N0: the curve
    // moves 3.01 dB to the right.
    let narrow = UnionBoundModel { ofdm_noise_bandwidth_hz: 10e6, ..UnionBoundModel::default() };
    let wide = UnionBoundModel::default();
    let shift = 10.0 * 2f64.log10();
    for snr in [2.0, 8.0, 15.0] {
        let a = narrow.ber_exact(snr + shift, Mode::Ofdm24);
        let b = wide.ber_exact(snr, Mode::Ofdm24);
        assert!((a / b - 1.0).abs() < 1e-9, "{a} {b}");
    }
}
