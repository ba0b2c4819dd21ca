//! Bit and PPDU error rates of the HT (802.11n) MCSs under the union-bound
//! AWGN model of [`super::ofdm`]: the same Gray-mapped constellations and
//! hard-decision BCC bound, with the HT subcarrier counts and the rate-5/6
//! code.
//!
//! Model choices (each a deviation from a real receiver, stated):
//! - Es/N0 per data subcarrier: the SNR over the channel width W (20 or 40
//!   MHz) spread over N_ST subcarriers of 312.5 kHz, 56 at 20 MHz (52 data
//!   and 4 pilots) and 114 at 40 MHz (108 and 6), Table 19-6; so Es/N0 =
//!   SNR x W / (N_ST x 312.5 kHz).
//! - N_SS spatial streams share the transmit power equally and are
//!   separated without loss or gain (one receive chain per stream, no
//!   diversity, no inter-stream interference): each stream sees SNR / N_SS.
//! - A PPDU succeeds when L-SIG (24 bits) and HT-SIG (48 bits), both BPSK
//!   rate 1/2 over 20 MHz (19.3.9.3.5, 19.3.9.4.3), and the data field
//!   (SERVICE 16 + 8 L + 6 N_ES tail bits) all succeed, bits failing
//!   independently (the interleaver). Training fields are not modelled.
//!
//! The medium judges an A-MPDU with [`ppdu_success_parts`]: the signal
//! fields once per PPDU, then each MPDU on its own share of the data bits
//! (each subframe has its own delimiter and FCS, 9.7.1, so a receiver
//! keeps the MPDUs whose FCS checks). [`ppdu_success_parts`] reads the
//! bit error rates from tables (`table.rs`, within 1e-3 relative of
//! [`ber`]; tested), so a frame costs two look-ups.
use super::bcc::CodeRate;
use super::ofdm::{coded_ber, uncoded_ber, Constellation};
use super::{chunk_success, OFDM_NOISE_BANDWIDTH_HZ};
use crate::phy::ht::{HtMcs, HtWidth};

/// Subcarriers carrying power (N_ST) at `width` (Table 19-6).
pub fn subcarriers(width: HtWidth) -> f64 {
    match width {
        HtWidth::Mhz20 => 56.0,
        HtWidth::Mhz40 => 114.0,
    }
}

fn bandwidth_hz(width: HtWidth) -> f64 {
    match width {
        HtWidth::Mhz20 => 20e6,
        HtWidth::Mhz40 => 40e6,
    }
}

fn code_rate(mcs: HtMcs) -> CodeRate {
    match mcs.code_rate() {
        (1, 2) => CodeRate::R1_2,
        (2, 3) => CodeRate::R2_3,
        (3, 4) => CodeRate::R3_4,
        _ => CodeRate::R5_6,
    }
}

/// Decoded bit error probability of `mcs` at linear `snr` over the
/// channel width.
pub fn ber(mcs: HtMcs, width: HtWidth, snr: f64) -> f64 {
    let per_stream = snr / f64::from(mcs.streams());
    let es_n0 = per_stream * bandwidth_hz(width) / (subcarriers(width) * 312_500.0);
    coded_ber(code_rate(mcs), uncoded_ber(mcs.constellation(), es_n0))
}

/// Probability that an HT-mixed PPDU with a PSDU of `bytes` octets is
/// received at `snr_db` (see the module docs).
pub fn ppdu_success_prob(mcs: HtMcs, width: HtWidth, snr_db: f64, bytes: u32) -> f64 {
    let snr = 10f64.powf(snr_db / 10.0);
    // The legacy and HT signal fields are sent on each 20 MHz half, where
    // the SNR is that of the whole channel.
    let sig = super::ofdm::ber(Constellation::Bpsk, CodeRate::R1_2, snr, OFDM_NOISE_BANDWIDTH_HZ);
    let data_bits = 16 + 8 * u64::from(bytes) + 6 * u64::from(mcs.encoders(width));
    chunk_success(sig, 24 + 48) * chunk_success(ber(mcs, width, snr), data_bits)
}

/// Es/N0 in dB of one data subcarrier of one spatial stream for an SNR of
/// `snr_db` over the channel width (module docs).
pub fn es_n0_db(mcs: HtMcs, width: HtWidth, snr_db: f64) -> f64 {
    snr_db - 10.0 * f64::from(mcs.streams()).log10()
        + 10.0 * (bandwidth_hz(width) / (subcarriers(width) * 312_500.0)).log10()
}

/// [`ber`] read from a table (within 1e-3 relative where 1e-100 < BER <=
/// 0.1, as the legacy modes' tables).
pub fn ber_tabulated(mcs: HtMcs, width: HtWidth, snr_db: f64) -> f64 {
    if snr_db.is_nan() {
        return 0.5;
    }
    let (c, r) = (mcs.constellation(), code_rate(mcs));
    let t = super::table::ht_table(mcs.index() % 8, |es_db| coded_ber(r, uncoded_ber(c, 10f64.powf(es_db / 10.0))));
    t.ber(es_n0_db(mcs, width, snr_db))
}

/// The two factors of [`ppdu_success_prob`], from the tables: (L-SIG and
/// HT-SIG received, the data field of a PSDU of `bytes` octets received).
/// `snr_db` is over the channel width; the signal fields see the same SNR
/// on each 20 MHz half (module docs).
pub fn ppdu_success_parts(mcs: HtMcs, width: HtWidth, snr_db: f64, bytes: u32) -> (f64, f64) {
    let sig = super::ErrorModel::ber(&super::UnionBoundModel::default(), snr_db, super::Mode::Ofdm6);
    let data_bits = 16 + 8 * u64::from(bytes) + 6 * u64::from(mcs.encoders(width));
    (chunk_success(sig, 24 + 48), chunk_success(ber_tabulated(mcs, width, snr_db), data_bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabulated_parts_match_the_formulas() {
        // Every MCS and width, SNR -5 to 45 dB in 0.37 dB steps: the table's
        // BER within 1e-3 relative of the formula wherever 1e-100 < BER <=
        // 0.1, and the product of the parts within 1e-3 (absolute) of the
        // exact PPDU success.
        for m in 0..32 {
            let mcs = HtMcs::new(m).unwrap();
            for width in [HtWidth::Mhz20, HtWidth::Mhz40] {
                let mut db = -5.0;
                while db < 45.0 {
                    let exact = ber(mcs, width, 10f64.powf(db / 10.0));
                    let tab = ber_tabulated(mcs, width, db);
                    if exact > 1e-100 && exact <= 0.1 {
                        assert!((tab / exact - 1.0).abs() < 1e-3, "MCS {m} {width:?} {db} dB: {tab} vs {exact}");
                    }
                    let (h, d) = ppdu_success_parts(mcs, width, db, 1500);
                    let p = ppdu_success_prob(mcs, width, db, 1500);
                    assert!((h * d - p).abs() < 1e-3, "MCS {m} {width:?} {db} dB: {} vs {p}", h * d);
                    db += 0.37;
                }
            }
        }
    }

    fn snr_at(mcs: u8, width: HtWidth, p: f64) -> f64 {
        let m = HtMcs::new(mcs).unwrap();
        let (mut lo, mut hi) = (-10.0, 60.0);
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            if ppdu_success_prob(m, width, mid, 1500) < p {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    #[test]
    fn thresholds_rise_with_the_mcs() {
        let t: Vec<f64> = (0..8).map(|m| snr_at(m, HtWidth::Mhz20, 0.9)).collect();
        assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
        // A second stream at the same per-stream modulation needs 3 dB more.
        let two = snr_at(8 + 4, HtWidth::Mhz20, 0.9);
        assert!((two - t[4] - 10f64.log10() * 10.0 * 2f64.log10()).abs() < 0.1, "{two} {}", t[4]);
    }

    #[test]
    fn ht_mcs_matches_the_legacy_mode_of_the_same_coding() {
        // MCS 0-7 at 20 MHz use the constellations and codes of 6, 12, 18,
        // 24, 36, 48, 54 Mbit/s (MCS 7's 5/6 code aside); with 56 instead of
        // 52 subcarriers, Es/N0 is 52/56 of the legacy value: 0.32 dB more
        // SNR for the same bit error rate.
        let pairs = [(0, 6.0), (1, 12.0), (2, 18.0), (3, 24.0), (4, 36.0), (5, 48.0), (6, 54.0)];
        for (m, mbps) in pairs {
            let mcs = HtMcs::new(m).unwrap();
            let (c, r) = (mcs.constellation(), code_rate(mcs));
            let ht = ber(mcs, HtWidth::Mhz20, 10f64.powf((3.0 + 3.0 * f64::from(m)) / 10.0));
            let snr = 10f64.powf((3.0 + 3.0 * f64::from(m)) / 10.0);
            let legacy = super::super::ofdm::ber(c, r, snr * 52.0 / 56.0, OFDM_NOISE_BANDWIDTH_HZ);
            assert!(ht > 1e-12 && ht < 0.4, "MCS {m}: {ht}");
            assert!((legacy / ht - 1.0).abs() < 1e-9, "MCS {m} ({mbps} Mbit/s): {legacy} {ht}");
        }
    }
}
