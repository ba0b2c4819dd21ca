//! SNR -> bit error rate -> frame success models for the 802.11a/b/g modes.
//!
//! The model provided, [`UnionBoundModel`] ("union-bound AWGN model"),
//! combines
//! - OFDM (802.11a clause 17, 802.11g ERP-OFDM clause 18): Gray-mapped
//!   BPSK/QPSK/16-QAM/64-QAM bit errors followed by the union bound of the
//!   hard-decision Viterbi decoder of the K = 7 BCC, whose distance
//!   spectrum is derived from the code's generators and puncturing patterns
//!   (see [`ofdm`], [`bcc`]);
//! - DSSS/HR-DSSS (802.11b, clauses 15 and 16): DBPSK and DQPSK with
//!   differential detection (exact expressions) and, for CCK, a union bound
//!   over noncoherent code-word selection plus differential detection of
//!   phi1 (see [`dsss`]).
//!
//! All channels are AWGN (no fading beyond the shadowing of the
//! propagation model). Per frame, the curves are read from tables built
//! once from the formulas (`table.rs`, < 1e-3 relative error).
//!
//! Model 50 % points for a 1500-byte frame (long preamble for DSSS), SNR in
//! dB over 20 MHz (OFDM) or 22 MHz (DSSS) with the default bandwidths:
//! 1 Mbit/s -3.85, 2: 0.67, 5.5: 1.70, 11: 5.14; 6 Mbit/s 2.09, 9: 4.76,
//! 12: 5.10, 18: 7.77, 24: 11.54, 36: 14.45, 48: 19.21, 54: 20.39
//! (`documented_transition_points` test).
//!
//! Bits are assumed to fail independently (the interleaver for OFDM), so a
//! chunk of n bits at bit error rate BER succeeds with probability
//! (1 - BER)^n. A frame succeeds when its PLCP header (at the header rate)
//! and its data bits (at the data rate) both succeed:
//! - OFDM: the SIGNAL field, 24 bits at BPSK 1/2 (6 Mbit/s), IEEE
//!   802.11-2020 17.3.4; the training preamble is not modelled.
//! - DSSS long preamble: the 48-bit PLCP header (SIGNAL, SERVICE, LENGTH,
//!   CRC) at 1 Mbit/s DBPSK (clause 15); short preamble (clause 16): the same
//!   48 bits at 2 Mbit/s DQPSK. SYNC/SFD are not modelled.
//!
//! Every function here is pure: same inputs, same outputs.

pub mod bcc;
pub mod dsss;
pub mod ht;
pub mod mcs;
pub mod ofdm;
pub mod special;
mod table;

pub use bcc::CodeRate;

use dsss::Cck;
use ofdm::Constellation;
use serde::{Deserialize, Serialize};

/// PHY family of a mode; it fixes the noise bandwidth and the header.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Family {
    /// DSSS (1, 2 Mbit/s, clause 15) and HR/DSSS (5.5, 11 Mbit/s, clause 16).
    Dsss,
    /// OFDM (clause 17) and ERP-OFDM (clause 18).
    Ofdm,
}

/// Modulation of a mode.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Modulation {
    Dbpsk,
    Dqpsk,
    /// Complementary code keying (5.5 and 11 Mbit/s).
    Cck,
    Bpsk,
    Qpsk,
    Qam16,
    Qam64,
}

/// The twelve 802.11a/b/g transmission modes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// 1 Mbit/s DBPSK (DSSS).
    Dsss1,
    /// 2 Mbit/s DQPSK (DSSS).
    Dsss2,
    /// 5.5 Mbit/s CCK (HR/DSSS).
    #[serde(rename = "cck5_5")]
    Cck5_5,
    /// 11 Mbit/s CCK (HR/DSSS).
    Cck11,
    /// 6 Mbit/s BPSK 1/2.
    Ofdm6,
    /// 9 Mbit/s BPSK 3/4.
    Ofdm9,
    /// 12 Mbit/s QPSK 1/2.
    Ofdm12,
    /// 18 Mbit/s QPSK 3/4.
    Ofdm18,
    /// 24 Mbit/s 16-QAM 1/2.
    Ofdm24,
    /// 36 Mbit/s 16-QAM 3/4.
    Ofdm36,
    /// 48 Mbit/s 64-QAM 2/3.
    Ofdm48,
    /// 54 Mbit/s 64-QAM 3/4.
    Ofdm54,
}

impl Mode {
    /// All modes, DSSS first, each family by increasing rate.
    pub const ALL: [Mode; 12] = [
        Mode::Dsss1,
        Mode::Dsss2,
        Mode::Cck5_5,
        Mode::Cck11,
        Mode::Ofdm6,
        Mode::Ofdm9,
        Mode::Ofdm12,
        Mode::Ofdm18,
        Mode::Ofdm24,
        Mode::Ofdm36,
        Mode::Ofdm48,
        Mode::Ofdm54,
    ];

    /// Data rate in kbit/s.
    pub fn kbps(self) -> u32 {
        match self {
            Mode::Dsss1 => 1_000,
            Mode::Dsss2 => 2_000,
            Mode::Cck5_5 => 5_500,
            Mode::Cck11 => 11_000,
            Mode::Ofdm6 => 6_000,
            Mode::Ofdm9 => 9_000,
            Mode::Ofdm12 => 12_000,
            Mode::Ofdm18 => 18_000,
            Mode::Ofdm24 => 24_000,
            Mode::Ofdm36 => 36_000,
            Mode::Ofdm48 => 48_000,
            Mode::Ofdm54 => 54_000,
        }
    }

    /// The PHY family.
    pub fn family(self) -> Family {
        match self {
            Mode::Dsss1 | Mode::Dsss2 | Mode::Cck5_5 | Mode::Cck11 => Family::Dsss,
            _ => Family::Ofdm,
        }
    }

    /// The modulation.
    pub fn modulation(self) -> Modulation {
        match self {
            Mode::Dsss1 => Modulation::Dbpsk,
            Mode::Dsss2 => Modulation::Dqpsk,
            Mode::Cck5_5 | Mode::Cck11 => Modulation::Cck,
            Mode::Ofdm6 | Mode::Ofdm9 => Modulation::Bpsk,
            Mode::Ofdm12 | Mode::Ofdm18 => Modulation::Qpsk,
            Mode::Ofdm24 | Mode::Ofdm36 => Modulation::Qam16,
            Mode::Ofdm48 | Mode::Ofdm54 => Modulation::Qam64,
        }
    }

    /// The convolutional code rate (OFDM modes only).
    pub fn code_rate(self) -> Option<CodeRate> {
        match self {
            Mode::Ofdm6 | Mode::Ofdm12 | Mode::Ofdm24 => Some(CodeRate::R1_2),
            Mode::Ofdm48 => Some(CodeRate::R2_3),
            Mode::Ofdm9 | Mode::Ofdm18 | Mode::Ofdm36 | Mode::Ofdm54 => Some(CodeRate::R3_4),
            _ => None,
        }
    }

    /// The mode whose data rate is `kbps`, if any.
    pub fn from_kbps(kbps: u32) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.kbps() == kbps)
    }

    /// Bits sent at the data rate for a PSDU of `psdu_bytes`: OFDM adds the
    /// 16-bit SERVICE field and 6 tail bits (17.3.5.2, 17.3.5.3; pad bits
    /// carry no information and are not counted); DSSS sends the PSDU only.
    pub fn data_bits(self, psdu_bytes: u32) -> u64 {
        let psdu = 8 * psdu_bytes as u64;
        match self.family() {
            Family::Ofdm => 16 + psdu + 6,
            Family::Dsss => psdu,
        }
    }
}

/// DSSS preamble format (ignored by OFDM modes).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preamble {
    /// Long PLCP preamble and header at 1 Mbit/s (clause 15).
    #[default]
    Long,
    /// Short preamble, header at 2 Mbit/s (clause 16).
    Short,
}

/// The PLCP header chunk of a frame sent in `mode`: (header mode, bits).
pub fn plcp_header(mode: Mode, preamble: Preamble) -> (Mode, u64) {
    match (mode.family(), preamble) {
        (Family::Ofdm, _) => (Mode::Ofdm6, 24),
        (Family::Dsss, Preamble::Long) => (Mode::Dsss1, 48),
        (Family::Dsss, Preamble::Short) => (Mode::Dsss2, 48),
    }
}

/// (1 - ber)^bits, computed as exp(bits * ln(1 - ber)) for accuracy at small
/// BER.
pub fn chunk_success(ber: f64, bits: u64) -> f64 {
    let ber = ber.clamp(0.0, 1.0);
    if bits == 0 {
        return 1.0;
    }
    if ber >= 1.0 {
        return 0.0;
    }
    (bits as f64 * (-ber).ln_1p()).exp()
}

/// An SNR-based error model. `snr_db` is the signal-to-noise (plus
/// interference) ratio in dB, with noise measured over the noise bandwidth
/// the model was built with for the mode's family.
pub trait ErrorModel {
    /// Bit error probability after demodulation and decoding.
    fn ber(&self, snr_db: f64, mode: Mode) -> f64;

    /// Probability that `bits` bits sent in `mode` are all received
    /// correctly: (1 - BER)^bits.
    fn chunk_success_prob(&self, snr_db: f64, mode: Mode, bits: u64) -> f64 {
        chunk_success(self.ber(snr_db, mode), bits)
    }

    /// Probability that a frame with `bits` data bits (see
    /// [`Mode::data_bits`]) sent in `mode` is received: PLCP header (long
    /// preamble for DSSS) times data.
    fn frame_success_prob(&self, snr_db: f64, mode: Mode, bits: u64) -> f64 {
        self.ppdu_success_prob(snr_db, mode, Preamble::Long, bits)
    }

    /// As [`ErrorModel::frame_success_prob`] with an explicit DSSS preamble.
    fn ppdu_success_prob(&self, snr_db: f64, mode: Mode, preamble: Preamble, bits: u64) -> f64 {
        let (hmode, hbits) = plcp_header(mode, preamble);
        self.chunk_success_prob(snr_db, hmode, hbits) * self.chunk_success_prob(snr_db, mode, bits)
    }
}

/// Default noise bandwidth of OFDM modes in Hz (20 MHz channel).
pub const OFDM_NOISE_BANDWIDTH_HZ: f64 = 20e6;
/// Default noise bandwidth of DSSS modes in Hz (22 MHz, the DSSS channel
/// width of clause 15).
pub const DSSS_NOISE_BANDWIDTH_HZ: f64 = 22e6;

/// The union-bound AWGN model described in the module documentation.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct UnionBoundModel {
    /// Noise bandwidth the SNR of OFDM modes refers to, Hz.
    pub ofdm_noise_bandwidth_hz: f64,
    /// Noise bandwidth the SNR of DSSS modes refers to, Hz.
    pub dsss_noise_bandwidth_hz: f64,
}

impl Default for UnionBoundModel {
    fn default() -> Self {
        UnionBoundModel {
            ofdm_noise_bandwidth_hz: OFDM_NOISE_BANDWIDTH_HZ,
            dsss_noise_bandwidth_hz: DSSS_NOISE_BANDWIDTH_HZ,
        }
    }
}

impl UnionBoundModel {
    /// SNR shift (dB) from this model's noise bandwidth to the reference
    /// bandwidth of the mode's family: the same signal over a wider noise
    /// bandwidth means proportionally more Es/N0 for the same SNR.
    fn shift_db(&self, mode: Mode) -> f64 {
        match mode.family() {
            Family::Ofdm => 10.0 * (self.ofdm_noise_bandwidth_hz / OFDM_NOISE_BANDWIDTH_HZ).log10(),
            Family::Dsss => 10.0 * (self.dsss_noise_bandwidth_hz / DSSS_NOISE_BANDWIDTH_HZ).log10(),
        }
    }

    /// The BER evaluated from the formulas, without the table (slow: use
    /// [`ErrorModel::ber`] per frame).
    pub fn ber_exact(&self, snr_db: f64, mode: Mode) -> f64 {
        if snr_db.is_nan() {
            return 0.5;
        }
        reference_ber(snr_db + self.shift_db(mode), mode)
    }
}

/// BER from the formulas at the reference noise bandwidths (20 MHz OFDM,
/// 22 MHz DSSS).
fn reference_ber(snr_db: f64, mode: Mode) -> f64 {
    let snr = 10f64.powf(snr_db / 10.0);
    let per_bit = |rate_bps: f64| snr * DSSS_NOISE_BANDWIDTH_HZ / rate_bps;
    let ofdm = |c: Constellation| {
        let rate = mode.code_rate().expect("OFDM modes have a code rate");
        ofdm::ber(c, rate, snr, OFDM_NOISE_BANDWIDTH_HZ)
    };
    match mode {
        Mode::Dsss1 => dsss::dbpsk_ber(per_bit(1e6)),
        Mode::Dsss2 => dsss::dqpsk_ber(per_bit(2e6)),
        Mode::Cck5_5 => dsss::cck_ber(Cck::Mbps5_5, per_bit(dsss::CHIP_RATE)),
        Mode::Cck11 => dsss::cck_ber(Cck::Mbps11, per_bit(dsss::CHIP_RATE)),
        Mode::Ofdm6 | Mode::Ofdm9 => ofdm(Constellation::Bpsk),
        Mode::Ofdm12 | Mode::Ofdm18 => ofdm(Constellation::Qpsk),
        Mode::Ofdm24 | Mode::Ofdm36 => ofdm(Constellation::Qam16),
        Mode::Ofdm48 | Mode::Ofdm54 => ofdm(Constellation::Qam64),
    }
}

impl ErrorModel for UnionBoundModel {
    /// Table look-up of the formulas (see `table.rs`; within 1e-3
    /// relative of [`UnionBoundModel::ber_exact`]).
    fn ber(&self, snr_db: f64, mode: Mode) -> f64 {
        if snr_db.is_nan() {
            return 0.5;
        }
        table::table(mode, |s| reference_ber(s, mode)).ber(snr_db + self.shift_db(mode))
    }
}

#[cfg(test)]
mod tests;
