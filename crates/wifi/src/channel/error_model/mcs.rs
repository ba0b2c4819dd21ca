//! Bit and PPDU error rates of the VHT (802.11ac) and HE (802.11ax) MCSs
//! under the union-bound AWGN model of [`super::ofdm`], the model of
//! [`super::ht`] carried to wider channels, 256-QAM and 1024-QAM: the
//! Gray-mapped square M-QAM bit error probability and the hard-decision
//! BCC bound of the MCS's code rate.
//!
//! Model choices (each a deviation from a real receiver, stated):
//! - Es/N0 per data subcarrier: the SNR over the channel width W spread
//!   over the N_ST powered subcarriers (data and pilots) of spacing Δf:
//!   VHT 56, 114, 242, 484 at 312.5 kHz (802.11-2020 Table 21-5); HE the
//!   full-band RU's 242, 484, 996, 1992 tones at 78.125 kHz (802.11ax-2021
//!   Table 27-12); Es/N0 = SNR x W / (N_ST x Δf).
//! - N_SS streams share the power equally and are separated without loss
//!   or gain: each sees SNR / N_SS (as for HT).
//! - Every data field is decoded as BCC, also where the standard requires
//!   LDPC (HE beyond 20 MHz or MCS 9, VHT optionally); LDPC's coding gain
//!   (about 2 dB) is not modelled, so the thresholds of the high MCSs lie
//!   higher than a real LDPC receiver's.
//! - A PPDU succeeds when its BPSK 1/2 signal fields (L-SIG 24 bits, then
//!   VHT-SIG-A 48 and VHT-SIG-B 26, or RL-SIG 24 and HE-SIG-A 52, twice
//!   that in the HE ER SU PPDU; `ErrorParams::sig_bits`), sent on each 20
//!   MHz subchannel where the SNR is that of the whole channel (power and
//!   noise split alike), and its data field (SERVICE 16 + 8 L + tail bits)
//!   succeed, bits failing independently. Training fields are not modelled.
//! - One user's PSDU of an HE MU or HE TB PPDU: the same with the
//!   parameters of its resource unit (`TxVector::ru_error_params`, the
//!   rule's one place): a station's share of an HE TB PPDU puts the
//!   station's whole power on its RU's tones (Es/N0 = SNR x W / (tones x
//!   78.125 kHz)) and its signal fields on the 20 MHz channels its RU
//!   overlaps (their SNR W / `sig_bandwidth_hz` times the channel's).
use super::bcc::CodeRate;
use super::chunk_success;
use super::ofdm::{coded_ber, uncoded_ber, Constellation};
use crate::phy::ppdu::ErrorParams;

fn code_rate(r: (u32, u32)) -> CodeRate {
    match r {
        (1, 2) => CodeRate::R1_2,
        (2, 3) => CodeRate::R2_3,
        (3, 4) => CodeRate::R3_4,
        _ => CodeRate::R5_6,
    }
}

/// The HE MCS index of a (constellation, code rate) pair: the table key.
fn pair_index(p: &ErrorParams) -> u8 {
    match (p.constellation, p.code_rate) {
        (Constellation::Bpsk, _) => 0,
        (Constellation::Qpsk, (1, 2)) => 1,
        (Constellation::Qpsk, _) => 2,
        (Constellation::Qam16, (1, 2)) => 3,
        (Constellation::Qam16, _) => 4,
        (Constellation::Qam64, (2, 3)) => 5,
        (Constellation::Qam64, (3, 4)) => 6,
        (Constellation::Qam64, _) => 7,
        (Constellation::Qam256, (3, 4)) => 8,
        (Constellation::Qam256, _) => 9,
        (Constellation::Qam1024, (3, 4)) => 10,
        (Constellation::Qam1024, _) => 11,
    }
}

/// Es/N0 in dB of one data subcarrier of one stream for an SNR of
/// `snr_db` over the channel width.
pub fn es_n0_db(p: &ErrorParams, snr_db: f64) -> f64 {
    snr_db - 10.0 * f64::from(p.streams).log10()
        + 10.0 * (p.bandwidth_hz / (p.powered_subcarriers * p.spacing_hz)).log10()
}

/// Decoded bit error probability of the data field at linear `snr` over
/// the channel width.
pub fn ber(p: &ErrorParams, snr: f64) -> f64 {
    let es_n0 = 10f64.powf(es_n0_db(p, 10.0 * snr.log10()) / 10.0);
    coded_ber(code_rate(p.code_rate), uncoded_ber(p.constellation, es_n0))
}

/// [`ber`] read from a table (within 1e-3 relative where 1e-100 < BER <=
/// 0.1; tested).
pub fn ber_tabulated(p: &ErrorParams, snr_db: f64) -> f64 {
    if snr_db.is_nan() {
        return 0.5;
    }
    let (c, r) = (p.constellation, code_rate(p.code_rate));
    let t = super::table::mcs_table(pair_index(p), |es_db| coded_ber(r, uncoded_ber(c, 10f64.powf(es_db / 10.0))));
    t.ber(es_n0_db(p, snr_db))
}

/// (signal fields received, data field of a PSDU of `bytes` octets
/// received) at `snr_db` over the channel width (module docs).
pub fn ppdu_success_parts(p: &ErrorParams, snr_db: f64, bytes: u32) -> (f64, f64) {
    let sig_snr = snr_db + 10.0 * (p.bandwidth_hz / p.sig_bandwidth_hz).log10();
    let sig = super::ErrorModel::ber(&super::UnionBoundModel::default(), sig_snr, super::Mode::Ofdm6);
    let data_bits = 16 + 8 * u64::from(bytes) + p.tail_bits;
    (chunk_success(sig, 24 + p.sig_bits), chunk_success(ber_tabulated(p, snr_db), data_bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::he::{HeBand, HeFormat, HeGi, HeTxVector};
    use crate::phy::ht::GuardInterval;
    use crate::phy::ppdu::{ChannelWidth, TxVector};
    use crate::phy::vht::VhtTxVector;

    fn he(mcs: u8, nss: u8, w: ChannelWidth) -> ErrorParams {
        TxVector::He(HeTxVector::new(HeFormat::Su, mcs, nss, w, HeGi::Ns800, HeBand::Ghz5, 0).unwrap()).error_params()
    }
    fn vht(mcs: u8, nss: u8, w: ChannelWidth) -> ErrorParams {
        TxVector::Vht(VhtTxVector::new(mcs, nss, w, GuardInterval::Long).unwrap()).error_params()
    }

    #[test]
    fn tabulated_ber_matches_the_formula() {
        for m in 0..12 {
            for w in [ChannelWidth::Mhz20, ChannelWidth::Mhz80] {
                let p = he(m, 1, w);
                let mut db = -5.0;
                while db < 50.0 {
                    let exact = ber(&p, 10f64.powf(db / 10.0));
                    let tab = ber_tabulated(&p, db);
                    if exact > 1e-100 && exact <= 0.1 {
                        assert!((tab / exact - 1.0).abs() < 1e-3, "HE MCS {m} {w:?} {db} dB: {tab} vs {exact}");
                    }
                    db += 0.37;
                }
            }
        }
    }

    fn snr_at(p: &ErrorParams, target: f64) -> f64 {
        let (mut lo, mut hi) = (-10.0, 70.0);
        for _ in 0..60 {
            let mid = (lo + hi) / 2.0;
            let (h, d) = ppdu_success_parts(p, mid, 1500);
            if h * d < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    fn ru(size: crate::phy::he_mu::RuSize, uplink: bool, w: ChannelWidth, mcs: u8) -> ErrorParams {
        let v = TxVector::He(HeTxVector::new(HeFormat::Su, mcs, 1, w, HeGi::Ns800, HeBand::Ghz5, 0).unwrap());
        v.ru_error_params(crate::phy::ppdu::RuLink { size, uplink })
    }

    #[test]
    fn an_uplink_ru_concentrates_the_station_power_on_its_tones() {
        use crate::phy::he_mu::RuSize;
        // A station's share on a 242-tone RU of 80 MHz carries its whole
        // power on 242 tones and its signal fields on one 20 MHz channel:
        // exactly an HE SU PPDU of 20 MHz at the same power, whose SNR
        // over 20 MHz is 10 log10(4) = 6.02 dB above the 80 MHz one.
        let up = ru(RuSize::Tones242, true, ChannelWidth::Mhz80, 11);
        let su20 = he(11, 1, ChannelWidth::Mhz20);
        for snr in [25.0, 28.0, 30.0, 33.0] {
            let (h, d) = ppdu_success_parts(&up, snr, 1500);
            let (h0, d0) = ppdu_success_parts(&su20, snr + 10.0 * 4f64.log10(), 1500);
            assert!((h - h0).abs() < 1e-12 && (d - d0).abs() < 1e-12, "{snr}: {h} {d} / {h0} {d0}");
        }
        // Where the whole 80 MHz channel fails MCS 11 (3 dB under its 50 %
        // point), a 26-tone RU of it gets through: 10 log10(996 / 26) =
        // 15.8 dB more per tone.
        let su80 = he(11, 1, ChannelWidth::Mhz80);
        let snr = snr_at(&su80, 0.5) - 3.0;
        let (h, d) = ppdu_success_parts(&su80, snr, 1500);
        assert!(h * d < 1e-6, "{}", h * d);
        let (h, d) = ppdu_success_parts(&ru(RuSize::Tones26, true, ChannelWidth::Mhz80, 11), snr, 1500);
        assert!(h * d > 0.999, "{}", h * d);
        // Downlink: the AP keeps an SU PPDU's power per tone, every RU
        // sees the channel's SNR (the SU parameters), on any RU.
        for size in [RuSize::Tones26, RuSize::Tones106, RuSize::Tones996] {
            assert_eq!(ru(size, false, ChannelWidth::Mhz80, 7), he(7, 1, ChannelWidth::Mhz80));
        }
        // The 90 % point of an uplink RU falls with its tone count as
        // 10 log10(tones) does (the data field dominates at 1500 octets).
        let t26 = snr_at(&ru(RuSize::Tones26, true, ChannelWidth::Mhz80, 7), 0.9);
        let t106 = snr_at(&ru(RuSize::Tones106, true, ChannelWidth::Mhz80, 7), 0.9);
        let want = 10.0 * (106.0f64 / 26.0).log10();
        assert!(((t106 - t26) - want).abs() < 0.05, "{t26} {t106} vs {want}");
    }

    #[test]
    fn thresholds_rise_with_the_mcs_and_the_width() {
        let t: Vec<f64> = (0..12).map(|m| snr_at(&he(m, 1, ChannelWidth::Mhz20), 0.9)).collect();
        assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
        // 80 MHz spreads the SNR over 996 tones, 20 MHz over 242: the
        // same Es/N0 needs 10 log10(996 / (4 x 242)) = 0.12 dB more SNR.
        let wide = snr_at(&he(7, 1, ChannelWidth::Mhz80), 0.9);
        let expect = t[7] + 10.0 * (996.0f64 / 968.0).log10();
        assert!((wide - expect).abs() < 0.1, "{wide} vs {expect}");
        // VHT MCS i and HE MCS i share constellation and code; at 20 MHz
        // VHT spreads the SNR over 56 tones of 312.5 kHz, HE over 242 of
        // 78.125 kHz: 10 log10(242 x 78.125 / (56 x 312.5)) = 0.33 dB apart.
        let v = snr_at(&vht(8, 1, ChannelWidth::Mhz20), 0.9);
        assert!((t[8] - v - 10.0 * (242.0 * 78.125 / (56.0 * 312.5f64)).log10()).abs() < 0.1, "{v} {}", t[8]);
    }
}
