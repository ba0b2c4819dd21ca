//! Transmit power from the non-cooperative power game of Cuzanauskas &
//! Anskaitis (paper 000, sec. III, eqs. 1-3), computed once when a cell is
//! built (`channel.power_control = "game"`).
//!
//! Player `i` (a station, whose receiver is its AP) has utility
//! `u_i = ln(1 + h_ii p_i / (n_0 + I_i))` with `I_i = sum_j h_ji p_j` over
//! its interferers, payoff `u_i - c_i p_i`, and best response
//! `b_i = 1/c_i - (I_i + n_0) / h_ii` clipped to `[0, p_max]` (eq. 3; the
//! payoff is concave in `p_i`, so the clipped stationary point is the
//! constrained maximiser). Best responses are iterated player by player
//! (Gauss-Seidel) from zero until no power moves by more than 1e-12 W, as
//! the standalone model `wifitcp.models.power_game` does.
//!
//! Who interferes with whom is the simulator's choice, the paper's players
//! being independent transmitter-receiver pairs: in a CSMA cell a frame can
//! only meet, at its AP, frames of stations that did not sense it, so the
//! interferers of `i` are the stations that do not hear `i` (the hidden
//! ones, from the carrier-sense matrix at the configured powers). With
//! everyone in range the game reduces to `b_i = min(p_max, 1/c_i - n_0 /
//! h_ii)`: each station's power is set by its own link alone.

/// Iteration cap of the best-response iteration.
pub const MAX_ROUNDS: usize = 10_000;

/// Nash-equilibrium powers (W). `gain(j, i)`: linear power gain from
/// player `j` to player `i`'s receiver; `interferes(j, i)`: whether `j`'s
/// transmissions overlap `i`'s at its receiver; `n0_w`: noise (W);
/// `cost`: c_i per W; `p_max_w[i]`: each player's cap. Errors name the
/// reason (no equilibrium within [`MAX_ROUNDS`] rounds).
pub fn nash(
    n: usize,
    gain: impl Fn(usize, usize) -> f64,
    interferes: impl Fn(usize, usize) -> bool,
    n0_w: f64,
    cost: f64,
    p_max_w: &[f64],
) -> Result<Vec<f64>, String> {
    let mut p = vec![0.0; n];
    for _ in 0..MAX_ROUNDS {
        let mut moved: f64 = 0.0;
        for i in 0..n {
            let interference: f64 = (0..n).filter(|&j| j != i && interferes(j, i)).map(|j| gain(j, i) * p[j]).sum();
            let b = (1.0 / cost - (interference + n0_w) / gain(i, i)).clamp(0.0, p_max_w[i]);
            moved = moved.max((b - p[i]).abs());
            p[i] = b;
        }
        if moved < 1e-12 {
            return Ok(p);
        }
    }
    Err(format!("best responses did not settle in {MAX_ROUNDS} rounds"))
}

/// The most any single player gains in payoff (eq. 2) by moving alone from
/// `p` to one of `points` evenly spaced powers over `[0, p_max_w[i]]`:
/// `(gain, player, power)`. At a Nash equilibrium the gain is never
/// positive (up to rounding). Arguments as for [`nash`].
#[allow(clippy::too_many_arguments)]
pub fn max_deviation_gain(
    n: usize,
    gain: impl Fn(usize, usize) -> f64,
    interferes: impl Fn(usize, usize) -> bool,
    n0_w: f64,
    cost: f64,
    p: &[f64],
    p_max_w: &[f64],
    points: usize,
) -> (f64, usize, f64) {
    let mut best = (f64::NEG_INFINITY, 0, 0.0);
    for i in 0..n {
        let noise = n0_w + (0..n).filter(|&j| j != i && interferes(j, i)).map(|j| gain(j, i) * p[j]).sum::<f64>();
        let a = gain(i, i) / noise;
        let here = (a * p[i]).ln_1p() - cost * p[i];
        for k in 0..points.max(2) {
            let q = p_max_w[i] * k as f64 / (points.max(2) - 1) as f64;
            let g = (a * q).ln_1p() - cost * q - here;
            if g > best.0 {
                best = (g, i, q);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 30 stations of paper 000's cell (`scenarios/paper000-hidden.toml`,
    /// file order: its first 22 stations at 200-300 m and first 8 at 5-6
    /// km, the cell's 61:22), AP at the origin.
    const CELL30: [(f64, f64); 30] = [
        (183.1, 169.6),
        (202.1, -52.6),
        (194.9, 63.2),
        (201.6, -85.3),
        (167.9, -226.4),
        (197.0, -87.1),
        (280.8, -14.5),
        (175.3, 195.5),
        (221.6, -25.2),
        (180.1, 120.5),
        (173.4, 103.5),
        (232.1, 36.3),
        (135.2, 171.8),
        (230.7, -22.0),
        (287.9, 58.9),
        (196.0, -124.3),
        (261.4, 128.1),
        (261.2, 29.9),
        (207.7, -205.5),
        (187.9, 144.3),
        (257.3, 66.4),
        (265.3, -15.3),
        (3443.7, 4217.9),
        (3832.8, 3754.3),
        (5706.1, 310.8),
        (5583.2, 2142.5),
        (3049.6, 5036.3),
        (5658.7, -761.2),
        (3193.0, 4208.1),
        (3274.0, 4242.4),
    ];

    /// Free-space loss at 5.5 GHz (Friis at 1 m, exponent 2), dB.
    fn fspl_db(d: f64) -> f64 {
        20.0 * (4.0 * std::f64::consts::PI * 5.5e9 / 299_792_458.0).log10() + 20.0 * d.max(1.0).log10()
    }

    #[test]
    fn papers_cell_is_a_nash_equilibrium_on_a_fine_grid() {
        // Paper 000 sec. III-IV: 30 users, 4 W cap, 18 + 15 dBi on the
        // station-AP link, 0 dBi between stations; kTB noise at 20 MHz with
        // a 7 dB noise figure; c = 1 / cap (wifitcp.models.power_game).
        // Interferers of i at the AP: the stations that do not hear i
        // (below -82 dBm at 4 W), as in a CSMA cell.
        let d = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).hypot(a.1 - b.1);
        let up: Vec<f64> = CELL30.iter().map(|&s| 10f64.powf((33.0 - fspl_db(d(s, (0.0, 0.0)))) / 10.0)).collect();
        let gain = |j: usize, _i: usize| up[j];
        let hidden = |j: usize, i: usize| 10.0 * 4000f64.log10() - fspl_db(d(CELL30[j], CELL30[i])) < -82.0;
        let n0 = 1.380649e-23 * 290.0 * 20e6 * 10f64.powf(0.7);
        let (cap, cost) = ([4.0; 30], 0.25);
        let p = nash(30, gain, hidden, n0, cost, &cap).unwrap();
        // the near stations at the cap less n0/h (at most 0.4 mW), the far
        // ones silenced by the hidden near stations: mean 4 x 22/30 W
        assert!(p[..22].iter().all(|&x| x < 4.0 && x > 4.0 - 4e-4), "{p:?}");
        assert!(p[22..].iter().all(|&x| x == 0.0), "{p:?}");
        let mean = p.iter().sum::<f64>() / 30.0;
        assert!((mean - 4.0 * 22.0 / 30.0).abs() < 1e-5, "{mean}");
        let (g, who, q) = max_deviation_gain(30, gain, hidden, n0, cost, &p, &cap, 40_001);
        assert!(g <= 1e-12, "player {who} gains {g} by moving to {q} W");
    }

    #[test]
    fn interior_equilibrium_is_a_nash_equilibrium_on_a_fine_grid() {
        // 30 pairs, h_ii = 1, cross gains 0-0.05 from a fixed LCG, n0 = 0.01,
        // c = 1/4, cap 4 W: every player strictly inside (0, cap).
        let mut x: u64 = 12345;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        let a: Vec<Vec<f64>> = (0..30).map(|_| (0..30).map(|_| 0.05 * next()).collect()).collect();
        let gain = |j: usize, i: usize| if i == j { 1.0 } else { a[j][i] };
        let (cap, cost, n0) = ([4.0; 30], 0.25, 0.01);
        let p = nash(30, gain, |_, _| true, n0, cost, &cap).unwrap();
        assert!(p.iter().all(|&x| x > 0.5 && x < 3.5), "{p:?}");
        let (g, who, q) = max_deviation_gain(30, gain, |_, _| true, n0, cost, &p, &cap, 40_001);
        assert!(g <= 1e-12, "player {who} gains {g} by moving to {q} W");
        // and the check can fail: off the equilibrium someone gains
        let mut off = p.clone();
        off[7] += 0.5;
        let (g, who, _) = max_deviation_gain(30, gain, |_, _| true, n0, cost, &off, &cap, 40_001);
        assert!(g > 1e-3 && who == 7, "{g} {who}");
    }

    #[test]
    fn symmetric_pair_meets_the_closed_form() {
        // h_ii = 1, h_ji = a: the symmetric fixed point of b = 1/c - (a p +
        // n0) is p = (1/c - n0) / (1 + a).
        let (a, n0, c) = (0.25, 0.01, 0.5);
        let p = nash(2, |j, i| if i == j { 1.0 } else { a }, |_, _| true, n0, c, &[10.0, 10.0]).unwrap();
        let want = (1.0 / c - n0) / (1.0 + a);
        assert!((p[0] - want).abs() < 1e-9 && (p[1] - want).abs() < 1e-9, "{p:?} vs {want}");
    }

    #[test]
    fn cap_binds_and_weak_links_get_less() {
        // No interference: b_i = min(p_max, 1/c - n0/h_ii).
        let h = [1e-6, 1e-9];
        let p = nash(2, |j, _| h[j], |_, _| false, 4e-13, 0.2, &[4.0, 4.0]).unwrap();
        assert_eq!(p, vec![4.0, 4.0], "1/c = 5 W is above the cap for both");
        let p = nash(2, |j, _| h[j], |_, _| false, 4e-9, 0.2, &[10.0, 10.0]).unwrap();
        assert!((p[0] - (5.0 - 4e-3)).abs() < 1e-9, "{p:?}");
        assert!((p[1] - 1.0).abs() < 1e-9, "{p:?}");
    }
}
