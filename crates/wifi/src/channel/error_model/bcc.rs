//! Distance spectrum of the IEEE 802.11 binary convolutional code (BCC)
//! and its punctured rates, derived from the code definition.
//!
//! IEEE Std 802.11-2020, 17.3.5.6: the mother code has constraint length
//! K = 7 and generator polynomials g0 = 133 (octal) and g1 = 171 (octal),
//! rate 1/2. Rates 2/3 and 3/4 are obtained by puncturing (Figure 17-9):
//! - 2/3: per 2 input bits send A0 B0 A1 (B1 stolen);
//! - 3/4: per 3 input bits send A0 B0 A1 B2 (B1 and A2 stolen);
//! - 5/6 (HT, 19.3.11.6, Figure 19-9): per 5 input bits send A0 B0 A1 B2
//!   A3 B4 (B1, A2, B3 and A4 stolen).
//!
//! The spectrum {c_d} (total number of information-bit errors over all
//! error events of output weight d, summed over the puncturing phases) is
//! found by a breadth-first walk of the trellis from each phase: diverge
//! from the all-zero state with input 1, follow every path until it first
//! re-merges with the all-zero state, and drop paths heavier than the
//! largest weight kept. Haccoun & Begin (IEEE Trans. Commun. 37(11), 1989)
//! define the spectrum of punctured codes this way; the bit error bound is
//! then P_b <= (1/k) * sum_d c_d P_d, with k the number of input bits per
//! puncturing period.
//!
//! The first terms agree with the published values (d_free, c_dfree):
//! (10, 36) for rate 1/2, (6, 3) for 2/3 and (5, 42) for 3/4 (tested).

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Generator polynomials of the 802.11 mother code (octal 133 and 171).
const GENERATORS: [u32; 2] = [0o133, 0o171];
/// Number of distance terms kept in the union bound for each rate: the
/// bound is dominated by the first terms at the error rates of interest
/// and diverges at low SNR anyway (it is clamped to 1/2 there).
const TERMS: usize = 10;

/// A code rate of the 802.11 BCC.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum CodeRate {
    R1_2,
    R2_3,
    R3_4,
    R5_6,
}

impl CodeRate {
    /// The rate as a fraction.
    pub fn value(self) -> f64 {
        match self {
            CodeRate::R1_2 => 0.5,
            CodeRate::R2_3 => 2.0 / 3.0,
            CodeRate::R3_4 => 0.75,
            CodeRate::R5_6 => 5.0 / 6.0,
        }
    }

    /// Puncturing pattern (keep A, keep B) per input bit of one period.
    fn pattern(self) -> &'static [[bool; 2]] {
        match self {
            CodeRate::R1_2 => &[[true, true]],
            CodeRate::R2_3 => &[[true, true], [true, false]],
            CodeRate::R3_4 => &[[true, true], [true, false], [false, true]],
            CodeRate::R5_6 => &[[true, true], [true, false], [false, true], [true, false], [false, true]],
        }
    }

    /// Input bits per puncturing period (k in the bound).
    pub fn period(self) -> u32 {
        self.pattern().len() as u32
    }

    /// The first `TERMS` nonzero spectrum terms (d, c_d), cached.
    pub fn spectrum(self) -> &'static [(u32, f64)] {
        static CACHE: [OnceLock<Vec<(u32, f64)>>; 4] =
            [OnceLock::new(), OnceLock::new(), OnceLock::new(), OnceLock::new()];
        let slot = match self {
            CodeRate::R1_2 => &CACHE[0],
            CodeRate::R2_3 => &CACHE[1],
            CodeRate::R3_4 => &CACHE[2],
            CodeRate::R5_6 => &CACHE[3],
        };
        slot.get_or_init(|| first_terms(self, TERMS))
    }
}

/// The encoder's two output bits for `input` entering a register whose
/// previous six inputs are `state` (most recent in bit 5).
fn encode(state: u32, input: u32) -> (u32, [u32; 2]) {
    let reg = (input << 6) | state;
    let out = GENERATORS.map(|g| (reg & g).count_ones() & 1);
    (reg >> 1, out)
}

/// Output weight of one trellis branch under the puncturing pattern.
fn branch_weight(out: [u32; 2], keep: [bool; 2]) -> u32 {
    out[0] * keep[0] as u32 + out[1] * keep[1] as u32
}

/// Information-weight spectrum {d: c_d} of all error events of output
/// weight <= `dmax`, summed over the puncturing phases.
pub fn info_weight_spectrum(rate: CodeRate, dmax: u32) -> BTreeMap<u32, u128> {
    let pat = rate.pattern();
    let period = pat.len();
    let mut spectrum: BTreeMap<u32, u128> = BTreeMap::new();
    for phase0 in 0..period {
        // Key: (state, phase, weight so far); value: (paths, sum of input weights).
        let mut frontier: BTreeMap<(u32, usize, u32), (u128, u128)> = BTreeMap::new();
        let (s, out) = encode(0, 1);
        let w = branch_weight(out, pat[phase0]);
        frontier.insert((s, (phase0 + 1) % period, w), (1, 1));
        let mut steps = 0;
        while !frontier.is_empty() {
            steps += 1;
            // A non-catastrophic code gains weight along every loop that
            // avoids the zero state, so the walk ends; guard regardless.
            assert!(steps < 10_000, "BCC trellis walk did not terminate");
            let mut next: BTreeMap<(u32, usize, u32), (u128, u128)> = BTreeMap::new();
            for (&(state, phase, w), &(paths, iw)) in &frontier {
                for input in 0..2u32 {
                    let (ns, out) = encode(state, input);
                    let w2 = w + branch_weight(out, pat[phase]);
                    if w2 > dmax {
                        continue;
                    }
                    let iw2 = iw + input as u128 * paths;
                    if ns == 0 {
                        *spectrum.entry(w2).or_insert(0) += iw2;
                    } else {
                        let e = next.entry((ns, (phase + 1) % period, w2)).or_insert((0, 0));
                        e.0 += paths;
                        e.1 += iw2;
                    }
                }
            }
            frontier = next;
        }
    }
    spectrum
}

/// The first `n` nonzero terms of the spectrum.
fn first_terms(rate: CodeRate, n: usize) -> Vec<(u32, f64)> {
    let mut dmax = 12;
    loop {
        let s = info_weight_spectrum(rate, dmax);
        let terms: Vec<(u32, f64)> = s.into_iter().filter(|&(_, c)| c > 0).map(|(d, c)| (d, c as f64)).collect();
        if terms.len() >= n {
            return terms[..n].to_vec();
        }
        dmax += 4;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_distance_and_first_coefficient_match_published_values() {
        // (d_free, c_dfree) as tabulated by Haccoun & Begin (1989) for the
        // K = 7 mother code, (10, 36), and its punctured rates 2/3, (6, 3),
        // and 3/4, (5, 42).
        assert_eq!(CodeRate::R1_2.spectrum()[0], (10, 36.0));
        assert_eq!(CodeRate::R2_3.spectrum()[0], (6, 3.0));
        assert_eq!(CodeRate::R3_4.spectrum()[0], (5, 42.0));
        // The HT rate-5/6 puncturing of the same code has d_free = 4.
        assert_eq!(CodeRate::R5_6.spectrum()[0].0, 4);
    }

    #[test]
    fn rate_half_spectrum_has_the_known_even_terms() {
        // The unpunctured K=7 code has only even-weight paths; its
        // information weights 36, 211, 1404, 11633, 77433 are textbook values.
        let s = CodeRate::R1_2.spectrum();
        let want = [(10, 36.0), (12, 211.0), (14, 1404.0), (16, 11633.0), (18, 77433.0)];
        assert_eq!(&s[..5], &want);
        assert_eq!(s.len(), TERMS);
        assert!(s.iter().all(|&(d, _)| d % 2 == 0));
    }

    #[test]
    fn punctured_spectra_start_as_published() {
        let s23: Vec<f64> = CodeRate::R2_3.spectrum()[..4].iter().map(|t| t.1).collect();
        assert_eq!(s23, vec![3.0, 70.0, 285.0, 1276.0]);
        let s34: Vec<f64> = CodeRate::R3_4.spectrum()[..4].iter().map(|t| t.1).collect();
        assert_eq!(s34, vec![42.0, 201.0, 1492.0, 10469.0]);
    }

    #[test]
    fn periods() {
        assert_eq!(CodeRate::R1_2.period(), 1);
        assert_eq!(CodeRate::R2_3.period(), 2);
        assert_eq!(CodeRate::R3_4.period(), 3);
        assert_eq!(CodeRate::R5_6.period(), 5);
    }
}
