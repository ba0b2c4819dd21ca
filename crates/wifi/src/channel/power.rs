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

#[cfg(test)]
mod tests {
    use super::*;

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
