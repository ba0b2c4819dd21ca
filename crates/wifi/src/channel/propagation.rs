//! Propagation: positions, free-space and log-distance path loss, log-normal
//! shadowing, thermal noise and SNR.
//!
//! Formulas:
//! - Friis free-space loss (Friis, Proc. IRE 34(5), 1946), isotropic
//!   antennas: FSPL(d) = 20 log10(4 pi d f / c) dB, c = 299 792 458 m/s.
//!   At d = 1 m this is 46.68 dB at 5.15 GHz (46.678 dB with c = 3e8 m/s,
//!   the value ns-3 quotes), 40.10 dB at 2.412 GHz, 31.67 dB at 914 MHz.
//! - Log-distance path loss (Rappaport, *Wireless Communications*, 2nd ed.,
//!   eq. 4.68): PL(d) = PL(d0) + 10 n log10(d/d0) dB for d >= d0. Below d0
//!   the model is undefined; we hold PL(d0), as ns-2's Shadowing model does.
//! - Dual-slope log-distance path loss (the breakpoint model of the IEEE
//!   802.11 TGn channel models, Erceg et al., IEEE 802.11-03/940r4, 2004,
//!   sec. 4.7): the exponent n up to the breakpoint distance d_BP, then
//!   n_2: PL(d) = PL(d_BP) + 10 n_2 log10(d/d_BP) for d > d_BP (TGn: free
//!   space, n = 2, before; n_2 = 3.5 after).
//! - Log-normal shadowing (Rappaport eq. 4.69a): PL(d) = mean PL(d) + X,
//!   X ~ N(0, sigma^2) in dB, drawn per frame (default; ns-2's
//!   Propagation/Shadowing draws a new X for every reception) or once per
//!   link for the whole run (X shared by both directions of a link: the
//!   obstacles are the same). With a breakpoint, sigma may differ beyond
//!   it (TGn: 3 dB before, 4-6 dB after); a per-link X is one standard
//!   normal draw per link scaled by the sigma at the frame's distance.
//! - Received power: Pr = Pt + Gt + Gr - L - PL(d) in dBm (gains in dBi,
//!   system loss L in dB; ns-2's L_, default 1 = 0 dB).
//! - Thermal noise (Johnson-Nyquist, k T0 B at the IEEE reference
//!   temperature T0 = 290 K): N = 10 log10(k T0 * 1000) + 10 log10(B) + NF
//!   dBm = -173.98 dBm/Hz + 10 log10(B) + NF, i.e. -100.97 dBm + NF at
//!   20 MHz (OFDM) and -100.55 dBm + NF at 22 MHz (DSSS). Default noise
//!   figure 7 dB (the ns-3 YansWifiPhy default RxNoiseFigure).
//! - SNR = Pr - N in dB.

use serde::{Deserialize, Serialize};
use wifitcp_core::{NodeId, RngStream};

use std::collections::BTreeMap;

/// Speed of light in vacuum, m/s (SI definition).
pub const SPEED_OF_LIGHT: f64 = 299_792_458.0;
/// Boltzmann constant, J/K (SI definition).
pub const BOLTZMANN: f64 = 1.380_649e-23;
/// Reference temperature for noise figures, K.
pub const T0_KELVIN: f64 = 290.0;
/// Default receiver noise figure, dB.
pub const DEFAULT_NOISE_FIGURE_DB: f64 = 7.0;

/// A point in metres.
#[derive(Clone, Copy, PartialEq, Debug, Default, Serialize, Deserialize)]
pub struct Position {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

impl Position {
    pub const fn new(x: f64, y: f64, z: f64) -> Self {
        Position { x, y, z }
    }

    /// Euclidean distance in metres.
    pub fn distance(&self, other: &Position) -> f64 {
        let (dx, dy, dz) = (self.x - other.x, self.y - other.y, self.z - other.z);
        (dx * dx + dy * dy + dz * dz).sqrt()
    }
}

/// dBm -> milliwatts.
pub fn dbm_to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

/// Milliwatts -> dBm.
pub fn mw_to_dbm(mw: f64) -> f64 {
    10.0 * mw.log10()
}

/// Watts -> dBm (ns-2 gives powers in W).
pub fn watts_to_dbm(w: f64) -> f64 {
    mw_to_dbm(w * 1000.0)
}

/// Friis free-space loss in dB at `distance_m` and `frequency_hz`.
pub fn friis_loss_db(distance_m: f64, frequency_hz: f64) -> f64 {
    20.0 * (4.0 * std::f64::consts::PI * distance_m * frequency_hz / SPEED_OF_LIGHT).log10()
}

/// Log-distance path loss, with an optional breakpoint (dual slope).
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct LogDistance {
    /// Path-loss exponent n.
    pub exponent: f64,
    /// Reference distance d0, m.
    pub reference_distance_m: f64,
    /// Loss at d0, dB.
    pub reference_loss_db: f64,
    /// A second slope beyond a breakpoint distance; `None`: one slope.
    pub breakpoint: Option<Breakpoint>,
}

/// The far slope of a dual-slope path loss.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Breakpoint {
    /// d_BP, m (greater than d0).
    pub distance_m: f64,
    /// Exponent n_2 beyond d_BP.
    pub exponent: f64,
}

impl LogDistance {
    /// Reference loss from Friis at d0 and `frequency_hz`.
    pub fn with_friis_reference(exponent: f64, reference_distance_m: f64, frequency_hz: f64) -> Self {
        LogDistance {
            exponent,
            reference_distance_m,
            reference_loss_db: friis_loss_db(reference_distance_m, frequency_hz),
            breakpoint: None,
        }
    }

    /// Free space: exponent 2 from a 1 m Friis reference (equals Friis for
    /// d >= 1 m).
    pub fn free_space(frequency_hz: f64) -> Self {
        Self::with_friis_reference(2.0, 1.0, frequency_hz)
    }

    /// The near slope alone (the loss up to the breakpoint).
    fn near(&self, d: f64) -> f64 {
        self.reference_loss_db + 10.0 * self.exponent * (d / self.reference_distance_m).log10()
    }

    /// Mean path loss in dB at `distance_m` (held at PL(d0) below d0).
    pub fn loss_db(&self, distance_m: f64) -> f64 {
        let d = distance_m.max(self.reference_distance_m);
        match self.breakpoint {
            Some(b) if d > b.distance_m => self.near(b.distance_m) + 10.0 * b.exponent * (d / b.distance_m).log10(),
            _ => self.near(d),
        }
    }

    /// Distance in metres at which the mean loss reaches `loss_db`
    /// (inverse of [`LogDistance::loss_db`]; d0 if `loss_db` <= PL(d0)).
    pub fn distance_for_loss(&self, loss_db: f64) -> f64 {
        if loss_db <= self.reference_loss_db {
            return self.reference_distance_m;
        }
        if let Some(b) = self.breakpoint {
            let at_bp = self.near(b.distance_m);
            if loss_db > at_bp {
                return b.distance_m * 10f64.powf((loss_db - at_bp) / (10.0 * b.exponent));
            }
        }
        self.reference_distance_m * 10f64.powf((loss_db - self.reference_loss_db) / (10.0 * self.exponent))
    }
}

/// When shadowing is drawn.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShadowingMode {
    /// A new X for every frame at every receiver (ns-2 Shadowing).
    #[default]
    PerFrame,
    /// One X per (unordered) node pair for the whole run.
    PerLink,
}

/// The shadowing deviation at `distance_m`: `sigma_db`, or beyond a
/// breakpoint (`beyond` = (d_BP, sigma)) the deviation there.
#[inline]
pub fn sigma_at(sigma_db: f64, beyond: Option<(f64, f64)>, distance_m: f64) -> f64 {
    match beyond {
        Some((d, s)) if distance_m > d => s,
        _ => sigma_db,
    }
}

/// Log-normal shadowing state: parameters plus the per-link draws.
#[derive(Clone, Debug)]
pub struct Shadowing {
    sigma_db: f64,
    /// (d_BP, sigma) beyond a breakpoint distance, if sigma changes there.
    beyond: Option<(f64, f64)>,
    mode: ShadowingMode,
    /// Seed of the per-link streams (taken from the caller's stream once).
    link_seed: u64,
    per_link: BTreeMap<(u32, u32), f64>,
}

impl Shadowing {
    /// Shadowing with deviation `sigma_db`. Per-link values come from
    /// streams derived from one seed drawn from `rng` now, so they do not
    /// depend on the order in which links are first used.
    pub fn new(sigma_db: f64, mode: ShadowingMode, rng: &mut RngStream) -> Self {
        Shadowing { sigma_db, beyond: None, mode, link_seed: rng.next_u64(), per_link: BTreeMap::new() }
    }

    /// Deviation `sigma_db` instead beyond `distance_m` (a breakpoint).
    pub fn beyond(mut self, distance_m: f64, sigma_db: f64) -> Self {
        self.beyond = Some((distance_m, sigma_db));
        self
    }

    /// The deviation at `distance_m`.
    #[inline]
    pub fn sigma_at(&self, distance_m: f64) -> f64 {
        sigma_at(self.sigma_db, self.beyond, distance_m)
    }

    /// No shadowing.
    pub fn none() -> Self {
        Shadowing {
            sigma_db: 0.0,
            beyond: None,
            mode: ShadowingMode::PerFrame,
            link_seed: 0,
            per_link: BTreeMap::new(),
        }
    }

    pub fn sigma_db(&self) -> f64 {
        self.sigma_db
    }

    pub fn mode(&self) -> ShadowingMode {
        self.mode
    }

    /// The shadowing loss X in dB for a frame from `a` to `b` at
    /// `distance_m`. Per frame it draws from `rng`; per link it reuses (or
    /// creates) the pair's standard normal value, scaled by the sigma at
    /// the distance, and leaves `rng` untouched. Zero sigma draws nothing.
    pub fn sample_db(&mut self, a: NodeId, b: NodeId, distance_m: f64, rng: &mut RngStream) -> f64 {
        let sigma = self.sigma_at(distance_m);
        if sigma == 0.0 {
            return 0.0;
        }
        match self.mode {
            ShadowingMode::PerFrame => sigma * rng.normal(),
            ShadowingMode::PerLink => {
                let key = (a.0.min(b.0), a.0.max(b.0));
                let seed = self.link_seed;
                let z = *self.per_link.entry(key).or_insert_with(|| {
                    let name = format!("channel/shadowing/{}-{}", key.0, key.1);
                    RngStream::derive(seed, &name).normal()
                });
                sigma * z
            }
        }
    }
}

/// Thermal noise power in dBm over `bandwidth_hz` with `noise_figure_db`.
pub fn thermal_noise_dbm(bandwidth_hz: f64, noise_figure_db: f64) -> f64 {
    mw_to_dbm(BOLTZMANN * T0_KELVIN * 1000.0 * bandwidth_hz) + noise_figure_db
}

/// SNR in dB from received power and noise power (both dBm).
pub fn snr_db(rx_power_dbm: f64, noise_dbm: f64) -> f64 {
    rx_power_dbm - noise_dbm
}

/// SINR in dB: signal over noise plus the sum of interferers (all dBm).
pub fn sinr_db(rx_power_dbm: f64, noise_dbm: f64, interferers_dbm: &[f64]) -> f64 {
    let n_mw = dbm_to_mw(noise_dbm) + interferers_dbm.iter().map(|&i| dbm_to_mw(i)).sum::<f64>();
    rx_power_dbm - mw_to_dbm(n_mw)
}

/// A link budget without shadowing: path loss and antenna/system terms.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct LinkBudget {
    pub path_loss: LogDistance,
    pub tx_antenna_gain_dbi: f64,
    pub rx_antenna_gain_dbi: f64,
    pub system_loss_db: f64,
}

impl LinkBudget {
    /// Mean received power in dBm (shadowing X = 0).
    pub fn mean_rx_power_dbm(&self, tx_power_dbm: f64, distance_m: f64) -> f64 {
        tx_power_dbm + self.tx_antenna_gain_dbi + self.rx_antenna_gain_dbi
            - self.system_loss_db
            - self.path_loss.loss_db(distance_m)
    }
}

#[cfg(test)]
mod tests;
