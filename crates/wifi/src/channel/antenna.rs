//! A directional antenna's gain by bearing: the horizontal pattern of 3GPP
//! TR 36.814 (Table A.2.1.1-2), A(theta) = -min(12 (theta / theta_3dB)^2,
//! A_m), with A_m = 25 dB (its front-to-back ratio) and the half-power
//! beamwidth of a symmetric beam from the peak gain by Kraus's
//! approximation, G = 41 253 / theta_3dB^2 (degrees; a lossless antenna,
//! so the beam is the narrowest that gain allows: 36.1 degrees at 15 dBi).
//! Bearings are azimuths in the horizontal plane (x east, y north); the
//! vertical pattern is not modelled (every node at one height).
//!
//! Invariants: the gain is the peak on boresight, falls monotonically with
//! the angle off it, and never goes below peak - A_m.
use super::propagation::Position;

/// A_m of TR 36.814, dB.
pub const FRONT_TO_BACK_DB: f64 = 25.0;

/// Kraus's beam-solid-angle constant, square degrees (4 pi sr).
const KRAUS_DEG2: f64 = 41_253.0;

/// A directional antenna aimed along an azimuth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Beam {
    /// Boresight azimuth, degrees.
    pub aim_deg: f64,
    /// Gain on boresight, dBi.
    pub peak_dbi: f64,
    /// Half-power beamwidth, degrees.
    pub half_power_deg: f64,
}

impl Beam {
    /// An antenna of `peak_dbi` at `from` aimed at `at`.
    pub fn aimed(peak_dbi: f64, from: Position, at: Position) -> Beam {
        let g = 10f64.powf(peak_dbi / 10.0).max(1.0);
        Beam { aim_deg: bearing_deg(from, at), peak_dbi, half_power_deg: (KRAUS_DEG2 / g).sqrt().min(360.0) }
    }

    /// Gain toward azimuth `toward_deg`, dBi.
    pub fn gain_dbi(&self, toward_deg: f64) -> f64 {
        let off = (toward_deg - self.aim_deg).rem_euclid(360.0);
        let off = off.min(360.0 - off);
        self.peak_dbi - (12.0 * (off / self.half_power_deg).powi(2)).min(FRONT_TO_BACK_DB)
    }

    /// Gain toward the node at `to` from the antenna at `from`, dBi (the
    /// peak if the two coincide).
    pub fn gain_toward(&self, from: Position, to: Position) -> f64 {
        if from.x == to.x && from.y == to.y {
            return self.peak_dbi;
        }
        self.gain_dbi(bearing_deg(from, to))
    }
}

/// Azimuth from `a` to `b`, degrees counter-clockwise from the x axis.
pub fn bearing_deg(a: Position, b: Position) -> f64 {
    (b.y - a.y).atan2(b.x - a.x).to_degrees()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: f64, y: f64) -> Position {
        Position::new(x, y, 0.0)
    }

    #[test]
    fn a_15_dbi_beam_is_36_degrees_wide_and_25_db_down_at_the_back() {
        let b = Beam::aimed(15.0, p(0.0, 0.0), p(100.0, 0.0));
        assert!((b.half_power_deg - 36.12).abs() < 0.01, "{}", b.half_power_deg);
        assert_eq!(b.gain_dbi(0.0), 15.0);
        // Half the beamwidth off boresight: 3 dB down (12 x 0.25).
        assert!((b.gain_dbi(b.half_power_deg / 2.0) - 12.0).abs() < 1e-9);
        assert!((b.gain_dbi(-b.half_power_deg / 2.0) - 12.0).abs() < 1e-9);
        assert_eq!(b.gain_dbi(180.0), 15.0 - FRONT_TO_BACK_DB);
        assert_eq!(b.gain_dbi(90.0), 15.0 - FRONT_TO_BACK_DB);
        let mut last = f64::INFINITY;
        for d in 0..=180 {
            let g = b.gain_dbi(d as f64);
            assert!(g <= last && g >= 15.0 - FRONT_TO_BACK_DB);
            last = g;
        }
    }

    /// Two stations on opposite sides of their AP, each aimed at it: each
    /// is in the other's main lobe; two on the same side, one behind the
    /// other, likewise; two at right angles are 25 dB down each way.
    #[test]
    fn stations_on_a_line_through_the_ap_face_each_other() {
        let ap = p(0.0, 0.0);
        let (w, e, n) = (p(-250.0, 0.0), p(300.0, 0.0), p(0.0, 200.0));
        let (bw, be, bn) = (Beam::aimed(15.0, w, ap), Beam::aimed(15.0, e, ap), Beam::aimed(15.0, n, ap));
        assert_eq!(bw.gain_toward(w, e), 15.0);
        assert_eq!(be.gain_toward(e, w), 15.0);
        assert_eq!(bw.gain_toward(w, n), 15.0 - 12.0 * (bearing_deg(w, n) / bw.half_power_deg).powi(2));
        assert_eq!(bn.gain_toward(n, e), 15.0 - FRONT_TO_BACK_DB);
        let far = p(-400.0, 0.0);
        assert_eq!(Beam::aimed(15.0, far, ap).gain_toward(far, w), 15.0);
    }
}
