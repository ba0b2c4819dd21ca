//! OFDM (IEEE 802.11a, clause 17; ERP-OFDM 802.11g, clause 18) bit error
//! model: uncoded Gray-mapped constellation BER followed by the union bound
//! of the hard-decision Viterbi decoder of the 802.11 BCC.
//!
//! Model ("BCC union bound, hard decision"), step by step:
//! 1. Energy per constellation symbol. The SNR is signal power over noise
//!    power in the noise bandwidth B (20 MHz by default). The signal is
//!    spread over N_ST = 52 subcarriers (48 data + 4 pilots) of spacing
//!    delta_f = 312.5 kHz, and the 0.8 us guard interval carries no
//!    decision energy (IEEE 802.11-2020 Table 17-5 timing parameters), so
//!    Es/N0 = SNR * B / (N_ST * delta_f) (= 1.2308 * SNR at 20 MHz).
//! 2. Uncoded bit error probability p of the code bits (Proakis, *Digital
//!    Communications*, 4th ed., sec. 5.2; Goldsmith, *Wireless
//!    Communications*, 2005, sec. 6.1):
//!    BPSK p = Q(sqrt(2 Es/N0)); square M-QAM with Gray mapping
//!    (QPSK = 4-QAM) p = 4/log2(M) * (1 - 1/sqrt(M)) * Q(sqrt(3 Es/N0 / (M-1))),
//!    exact for QPSK and the nearest-neighbour approximation for 16/64-QAM.
//!    The interleaver (17.3.5.7) is assumed to make code-bit errors
//!    independent.
//! 3. Decoded BER: P_b <= (1/k) * sum_d c_d * P_d(p) over the first ten
//!    terms of the code's distance spectrum (see `bcc.rs`), with P_d the
//!    exact hard-decision pairwise error probability (Proakis sec. 8.2),
//!    clamped to 1/2. Soft-decision decoding in real receivers
//!    is about 2 dB better; this model is the conservative hard-decision
//!    bound, as in the union-bound models of Lacage & Henderson (Yans,
//!    WNS2 2006) and Pei & Henderson (NIST model validation, 2010), which
//!    use the same structure with fewer terms or a Chernoff bound.

use super::bcc::CodeRate;
use super::special::{pairwise_error_hard, q};

/// Subcarriers carrying power: 48 data + 4 pilots (Table 17-5, N_ST).
pub const OFDM_SUBCARRIERS: f64 = 52.0;
/// Subcarrier spacing in Hz (Table 17-5, delta_F, 20 MHz channel).
pub const OFDM_SUBCARRIER_SPACING_HZ: f64 = 312_500.0;

pub use crate::phy::ht::Constellation;

/// Es/N0 (linear) of one subcarrier symbol for a linear SNR measured over
/// `noise_bandwidth_hz` (step 1 of the module doc).
pub fn es_n0(snr: f64, noise_bandwidth_hz: f64) -> f64 {
    snr * noise_bandwidth_hz / (OFDM_SUBCARRIERS * OFDM_SUBCARRIER_SPACING_HZ)
}

/// Uncoded Gray-mapped bit error probability at `es_n0` (step 2).
pub fn uncoded_ber(c: Constellation, es_n0: f64) -> f64 {
    let es_n0 = es_n0.max(0.0);
    let p = match c {
        Constellation::Bpsk => q((2.0 * es_n0).sqrt()),
        _ => {
            let m = c.points() as f64;
            4.0 / m.log2() * (1.0 - 1.0 / m.sqrt()) * q((3.0 * es_n0 / (m - 1.0)).sqrt())
        }
    };
    p.min(0.5)
}

/// Decoded bit error probability bound for code-bit error probability `p`
/// (step 3).
pub fn coded_ber(rate: CodeRate, p: f64) -> f64 {
    let sum: f64 = rate.spectrum().iter().map(|&(d, c)| c * pairwise_error_hard(p, d)).sum();
    (sum / rate.period() as f64).min(0.5)
}

/// Decoded BER of an OFDM mode at linear `snr` over `noise_bandwidth_hz`.
pub fn ber(c: Constellation, rate: CodeRate, snr: f64, noise_bandwidth_hz: f64) -> f64 {
    coded_ber(rate, uncoded_ber(c, es_n0(snr, noise_bandwidth_hz)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db(x: f64) -> f64 {
        10f64.powf(x / 10.0)
    }

    #[test]
    fn bpsk_reference_point() {
        // Textbook: uncoded BPSK needs Eb/N0 = 9.6 dB for BER 1e-5
        // (for BPSK Es = Eb). Q(4.265) = 1.0e-5.
        let p = uncoded_ber(Constellation::Bpsk, db(9.6));
        assert!((p / 1e-5 - 1.0).abs() < 0.05, "{p}");
    }

    #[test]
    fn qpsk_equals_bpsk_per_bit() {
        // Gray QPSK has the BER of BPSK at the same Eb/N0 (Es = 2 Eb).
        for eb in [1.0, 3.0, 10.0] {
            let a = uncoded_ber(Constellation::Qpsk, 2.0 * eb);
            let b = uncoded_ber(Constellation::Bpsk, eb);
            assert!((a - b).abs() <= 1e-15 + 1e-12 * b, "{a} {b}");
        }
    }

    #[test]
    fn es_n0_bandwidth_factor() {
        // 20 MHz / (52 * 312.5 kHz) = 64/52.
        assert!((es_n0(1.0, 20e6) - 64.0 / 52.0).abs() < 1e-12);
    }

    #[test]
    fn coded_ber_is_below_uncoded_at_moderate_error_rates() {
        for rate in [CodeRate::R1_2, CodeRate::R2_3, CodeRate::R3_4] {
            let p = 1e-3;
            assert!(coded_ber(rate, p) < p, "{rate:?}");
        }
        // Lower rate codes correct more.
        assert!(coded_ber(CodeRate::R1_2, 1e-2) < coded_ber(CodeRate::R2_3, 1e-2));
        assert!(coded_ber(CodeRate::R2_3, 1e-2) < coded_ber(CodeRate::R3_4, 1e-2));
    }

    #[test]
    fn coded_ber_first_terms_dominate_at_low_p() {
        // With hard decisions P_d ~ p^ceil(d/2): for rate 3/4 the d = 5 and
        // d = 6 terms are both O(p^3) and the rest O(p^4) or smaller.
        let p = 1e-5;
        let got = coded_ber(CodeRate::R3_4, p);
        let two = (42.0 * pairwise_error_hard(p, 5) + 201.0 * pairwise_error_hard(p, 6)) / 3.0;
        // d = 7, 8 add 1492 * 35 p^4 and 10469 * 35 p^4 (over 3): ~0.2 %.
        assert!(got >= two && (got / two - 1.0) < 1e-2, "{got} vs {two}");
    }
}
