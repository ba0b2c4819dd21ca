//! Tabulated BER curves, so the per-frame cost is a table look-up.
//!
//! The exact model (see the parent module) costs several microseconds per
//! evaluation (numerical integrals for DQPSK/CCK, ten-term union bounds for
//! OFDM). Each mode's curve is tabulated once per process, on first use, as
//! ln(BER) on a 0.02 dB grid of SNR over [-30, 50] dB at the reference noise
//! bandwidth, and interpolated linearly in ln(BER). The interpolation error
//! is below h^2/8 * |d^2 ln BER / d SNR_dB^2| = 5e-5 * |...|, i.e. under
//! 1e-3 relative for every mode where 1e-100 < BER <= 0.1 (tested; above
//! 0.1 the corner where the bounds are clamped to 1/2 is rounded off by up
//! to 3 %, where no frame gets through anyway). Linear interpolation of a
//! monotone sequence is monotone. Outside the grid
//! the end values hold (BER is within 0.05 of 1/2 below -30 dB for every
//! mode, and below 1e-12 above 50 dB).

use super::Mode;
use std::sync::OnceLock;

/// Lowest tabulated SNR, dB.
const LO_DB: f64 = -30.0;
/// Highest tabulated SNR, dB.
const HI_DB: f64 = 50.0;
/// Grid step, dB.
const STEP_DB: f64 = 0.02;
/// ln(BER) floor: exp(-800) is 0 in f64, and a finite floor keeps the
/// interpolation free of infinities.
const LN_FLOOR: f64 = -800.0;

/// One mode's tabulated curve.
pub struct BerTable {
    ln_ber: Vec<f64>,
}

impl BerTable {
    fn build(exact: impl Fn(f64) -> f64) -> Self {
        let n = ((HI_DB - LO_DB) / STEP_DB).round() as usize + 1;
        let ln_ber = (0..n)
            .map(|i| {
                let b = exact(LO_DB + STEP_DB * i as f64);
                if b > 0.0 {
                    b.ln().max(LN_FLOOR)
                } else {
                    LN_FLOOR
                }
            })
            .collect();
        BerTable { ln_ber }
    }

    /// Interpolated BER at `snr_db` (reference bandwidth).
    pub fn ber(&self, snr_db: f64) -> f64 {
        let last = self.ln_ber.len() - 1;
        let x = ((snr_db - LO_DB) / STEP_DB).clamp(0.0, last as f64);
        let i = (x.floor() as usize).min(last - 1);
        let t = x - i as f64;
        let (a, b) = (self.ln_ber[i], self.ln_ber[i + 1]);
        (a + t * (b - a)).exp()
    }
}

/// The table of `mode`, built with `exact` (the BER at the reference
/// bandwidth) on first use.
pub fn table(mode: Mode, exact: impl Fn(f64) -> f64) -> &'static BerTable {
    static TABLES: [OnceLock<BerTable>; 12] = [const { OnceLock::new() }; 12];
    let i = Mode::ALL.iter().position(|&m| m == mode).expect("mode is in Mode::ALL");
    TABLES[i].get_or_init(|| BerTable::build(exact))
}

/// The table of the HT MCSs with `mcs % 8 == i` (one constellation and
/// code rate), indexed by the Es/N0 in dB of one data subcarrier of one
/// stream rather than by SNR (the streams and the width only shift it),
/// built with `exact` on first use.
pub fn ht_table(i: u8, exact: impl Fn(f64) -> f64) -> &'static BerTable {
    static TABLES: [OnceLock<BerTable>; 8] = [const { OnceLock::new() }; 8];
    TABLES[usize::from(i % 8)].get_or_init(|| BerTable::build(exact))
}

/// The table of the VHT and HE MCSs of one constellation and code rate,
/// `i` the HE MCS index of that pair (0-11; VHT MCS i has HE MCS i's),
/// indexed like [`ht_table`] by the Es/N0 in dB of one data subcarrier
/// of one stream, built with `exact` on first use.
pub fn mcs_table(i: u8, exact: impl Fn(f64) -> f64) -> &'static BerTable {
    static TABLES: [OnceLock<BerTable>; 12] = [const { OnceLock::new() }; 12];
    TABLES[usize::from(i.min(11))].get_or_init(|| BerTable::build(exact))
}
