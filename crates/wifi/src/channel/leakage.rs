//! Adjacent-channel leakage: how much of a frame sent on one 20 MHz
//! channel reaches a receiver tuned to another, and which channels leak
//! into each other at all.
//!
//! A transmitter's power spectral density outside its channel is bounded
//! by the PHY's transmit spectrum mask, in dB relative to the maximum
//! in-band density (dBr) against the offset from the centre:
//!
//! | PHY (20 MHz) | clause (802.11-2020; HE: 802.11ax-2021) | 0 dBr to | -20 dBr at | -28 dBr at | floor from 30 MHz |
//! |---|---|---|---|---|---|
//! | OFDM (a), ERP-OFDM (g, whose clause 18 takes clause 17's mask) | 17.3.9.3 | 9 MHz | 11 MHz | 20 MHz | -40 dBr |
//! | HT (n) | 19.3.18.1 | 9 MHz | 11 MHz | 20 MHz | -45 dBr |
//! | VHT (ac) | 21.3.17.1 | 9 MHz | 11 MHz | 20 MHz | -40 dBr |
//! | HE (ax) | 27.3.19.1 | 9.75 MHz | 10.25 MHz | 20 MHz | -40 dBr |
//!
//! (linear in dB between the points, as the clauses draw them; ns-3's
//! `WifiSpectrumValueHelper` builds its OFDM transmit densities from the
//! same points.) The model's transmitter sits exactly on its mask: the
//! most a compliant radio may leak. Its receiver takes what falls within
//! its own 20 MHz channel, with an ideal filter (no further selectivity):
//! the leakage ratio of a channel `df` MHz away is
//!
//! ```text
//! L(df) = integral over [df - 10, df + 10] of mask / integral over [-10, 10] of mask
//! ```
//!
//! in linear power, which this module integrates numerically
//! ([`leakage_db`]). Channel centres are 5 MHz x channel number apart
//! (802.11-2020 annex E; at 2.4 GHz channel 14 is at 2,484 MHz,
//! [`offset_mhz`]).
//!
//! Two channels *leak into each other* ([`leaks`]) when the receiver's band
//! reaches above the mask's floor, i.e. their centres are less than 40
//! MHz apart (30 MHz to the floor plus half the receiver's band). Leakage
//! at the floor itself (-40 or -45 dB, channels 40 MHz or more apart) is
//! not modelled: a deviation that matters only for radios a few metres
//! apart.
//!
//! A receiver does not decode a frame of another channel; it senses it by
//! energy alone, busy from [`ENERGY_DETECT_DBM`] (17.3.10.6: CCA busy for
//! any signal 20 dB above the minimum sensitivity of -82 dBm in a 20 MHz
//! channel; the HT, VHT and HE PHYs keep it for a 20 MHz channel).
use crate::phy::PhyStandard;

/// Energy-detect threshold of a 20 MHz channel, dBm (17.3.10.6).
pub const ENERGY_DETECT_DBM: f64 = -62.0;

/// Half the receiver's band, MHz (a 20 MHz channel).
const HALF_BAND_MHZ: f64 = 10.0;

/// Offset beyond which every mask is at its floor, MHz.
const FLOOR_FROM_MHZ: f64 = 30.0;

/// A transmit spectrum mask: (offset MHz, dBr) points, linear in dB
/// between them, flat at the last point's level beyond it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mask(&'static [(f64, f64)]);

const OFDM: Mask = Mask(&[(0.0, 0.0), (9.0, 0.0), (11.0, -20.0), (20.0, -28.0), (FLOOR_FROM_MHZ, -40.0)]);
const HT: Mask = Mask(&[(0.0, 0.0), (9.0, 0.0), (11.0, -20.0), (20.0, -28.0), (FLOOR_FROM_MHZ, -45.0)]);
const HE: Mask = Mask(&[(0.0, 0.0), (9.75, 0.0), (10.25, -20.0), (20.0, -28.0), (FLOOR_FROM_MHZ, -40.0)]);

impl Mask {
    /// The 20 MHz mask of `standard`; `None` for 802.11b, whose DSSS mask
    /// (16.3.7.5) is not modelled.
    pub fn of(standard: PhyStandard) -> Option<Mask> {
        match standard {
            PhyStandard::Dot11b => None,
            PhyStandard::Dot11a | PhyStandard::Dot11g | PhyStandard::Dot11ac => Some(OFDM),
            PhyStandard::Dot11n => Some(HT),
            PhyStandard::Dot11ax => Some(HE),
        }
    }

    /// The mask at `f` MHz off the centre, dBr.
    pub fn dbr(&self, f: f64) -> f64 {
        let f = f.abs();
        let p = self.0;
        for w in p.windows(2) {
            let ((f0, d0), (f1, d1)) = (w[0], w[1]);
            if f <= f1 {
                return d0 + (d1 - d0) * (f - f0) / (f1 - f0);
            }
        }
        p[p.len() - 1].1
    }

    /// The mask's power over [a, b] MHz, linear (dBr as a ratio) x MHz, by
    /// the midpoint rule on 1 kHz steps (the mask is piecewise smooth; the
    /// error is far below a hundredth of a dB).
    fn power(&self, a: f64, b: f64) -> f64 {
        const STEP: f64 = 0.001;
        let n = ((b - a) / STEP).round() as usize;
        (0..n).map(|i| 10f64.powf(self.dbr(a + (i as f64 + 0.5) * STEP) / 10.0) * STEP).sum()
    }
}

/// Centre frequency offset between channels `a` and `b`, MHz: 5 MHz per
/// channel number (802.11-2020 annex E), channel 14 of the 2.4 GHz band
/// (`band_2_4`) at 2,484 MHz, 12 MHz above channel 13.
pub fn offset_mhz(a: u32, b: u32, band_2_4: bool) -> f64 {
    let centre = |c: u32| match (band_2_4, c) {
        (true, 14) => 2484.0,
        (true, _) => 2407.0 + 5.0 * f64::from(c),
        (false, _) => 5.0 * f64::from(c),
    };
    (centre(a) - centre(b)).abs()
}

/// Power a receiver tuned `df` MHz away from a frame's channel takes of it
/// (above), dB (0 for `df` = 0, negative otherwise).
pub fn leakage_db(mask: Mask, df: f64) -> f64 {
    let inband = mask.power(-HALF_BAND_MHZ, HALF_BAND_MHZ);
    10.0 * (mask.power(df - HALF_BAND_MHZ, df + HALF_BAND_MHZ) / inband).log10()
}

/// Whether channels `df` MHz apart leak into each other (module docs):
/// the receiver's band reaches above the mask's floor.
pub fn leaks(df: f64) -> bool {
    df.abs() - HALF_BAND_MHZ < FLOOR_FROM_MHZ
}

/// The leakage between every two channels of a cell, by the PHY's mask.
#[derive(Clone, Debug, PartialEq)]
pub struct Leakage {
    mask: Mask,
    band_2_4: bool,
}

impl Leakage {
    /// For `standard`'s mask (`None` for 802.11b: see [`Mask::of`]).
    pub fn new(standard: PhyStandard) -> Option<Leakage> {
        let band_2_4 = matches!(standard, PhyStandard::Dot11b | PhyStandard::Dot11g);
        Mask::of(standard).map(|mask| Leakage { mask, band_2_4 })
    }

    /// Whether channels `a` and `b` leak into each other.
    pub fn leaks(&self, a: u32, b: u32) -> bool {
        a != b && leaks(offset_mhz(a, b, self.band_2_4))
    }

    /// What a receiver on channel `rx` takes of a frame sent on channel
    /// `tx`, dB (0 on one channel; `-inf` between channels that do not
    /// leak into each other).
    pub fn db(&self, tx: u32, rx: u32) -> f64 {
        if tx == rx {
            0.0
        } else if self.leaks(tx, rx) {
            leakage_db(self.mask, offset_mhz(tx, rx, self.band_2_4))
        } else {
            f64::NEG_INFINITY
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_points_are_the_clauses() {
        assert_eq!(OFDM.dbr(0.0), 0.0);
        assert_eq!(OFDM.dbr(9.0), 0.0);
        assert_eq!(OFDM.dbr(-11.0), -20.0);
        assert_eq!(OFDM.dbr(15.5), -24.0);
        assert_eq!(OFDM.dbr(25.0), -34.0);
        assert_eq!(OFDM.dbr(45.0), -40.0);
        assert_eq!(HT.dbr(40.0), -45.0);
        assert_eq!(HE.dbr(10.25), -20.0);
    }

    /// The mask's power over [a, b] in closed form: on a piece where the
    /// mask falls k dB per MHz from d0 at f0, 10^(d0/10) 10^(k (f - f0)/10)
    /// integrates to 10^(d(f)/10) / (k ln 10 / 10).
    fn exact(m: Mask, a: f64, b: f64) -> f64 {
        // the mask's corners, mirrored, and the floor out to 1 GHz
        let mut pts: Vec<(f64, f64)> = m.0.iter().rev().map(|&(f, d)| (-f, d)).collect();
        pts.extend(m.0.iter().skip(1).copied());
        pts.insert(0, (-1000.0, pts[0].1));
        pts.push((1000.0, pts[pts.len() - 1].1));
        let lin = |d: f64| 10f64.powf(d / 10.0);
        let mut sum = 0.0;
        for w in pts.windows(2) {
            let (lo, hi) = (w[0].0.max(a), w[1].0.min(b));
            if hi <= lo {
                continue;
            }
            let k = (w[1].1 - w[0].1) / (w[1].0 - w[0].0);
            let d = |f: f64| w[0].1 + k * (f - w[0].0);
            sum += if k == 0.0 { lin(w[0].1) * (hi - lo) } else { (lin(d(hi)) - lin(d(lo))) / (k * 10f64.ln() / 10.0) };
        }
        sum
    }

    /// Leakage ratios of the mask against the closed form, and the shape:
    /// none lost on one channel, more the closer the channels.
    #[test]
    fn leakage_of_the_ofdm_mask() {
        assert!(leakage_db(OFDM, 0.0).abs() < 1e-9);
        for m in [OFDM, HT, HE] {
            for df in [5.0, 10.0, 20.0, 25.0, 30.0, 35.0, 45.0] {
                let want = 10.0 * (exact(m, df - 10.0, df + 10.0) / exact(m, -10.0, 10.0)).log10();
                let l = leakage_db(m, df);
                eprintln!("mask {:?} df {df} MHz: {l:.2} dB", m.0.last().map(|p| p.1));
                assert!((l - want).abs() < 0.001, "df {df}: {l} against {want}");
            }
        }
        // 5 GHz neighbours (20 MHz apart) and 2.4 GHz channels 1 and 6
        // (25 MHz apart)
        let (l20, l25, l40) = (leakage_db(OFDM, 20.0), leakage_db(OFDM, 25.0), leakage_db(OFDM, 40.0));
        assert!((-25.0..-22.0).contains(&l20), "{l20}");
        assert!((-31.0..-28.0).contains(&l25), "{l25}");
        // the floor: the in-band power over 20 MHz at -40 dBr
        assert!((l40 - (-40.0 - 10.0 * (leakage_in_band() / 20.0).log10())).abs() < 1e-6, "{l40}");
        let mut last = 1.0;
        for i in 0..40 {
            let l = leakage_db(OFDM, i as f64);
            assert!(l < last + 1e-12, "not falling at {i} MHz");
            last = l;
        }
    }

    /// The in-band power of the OFDM mask, MHz at 0 dBr.
    fn leakage_in_band() -> f64 {
        OFDM.power(-10.0, 10.0)
    }

    #[test]
    fn which_channels_leak() {
        let g = Leakage::new(PhyStandard::Dot11g).unwrap();
        assert!(g.leaks(1, 6) && g.leaks(6, 11) && !g.leaks(1, 11) && !g.leaks(1, 1));
        assert!(g.leaks(1, 2));
        assert_eq!(offset_mhz(13, 14, true), 12.0);
        let a = Leakage::new(PhyStandard::Dot11a).unwrap();
        assert!(a.leaks(36, 40) && a.leaks(40, 36) && !a.leaks(36, 44));
        assert_eq!(a.db(36, 36), 0.0);
        assert_eq!(a.db(36, 44), f64::NEG_INFINITY);
        assert!((a.db(36, 40) - leakage_db(OFDM, 20.0)).abs() < 1e-12);
        assert!(Leakage::new(PhyStandard::Dot11b).is_none());
    }
}
