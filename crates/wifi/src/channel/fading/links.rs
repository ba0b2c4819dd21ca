//! The fading of every link of a channel, as the frame error model reads
//! it: one [`Fading`] process per unordered pair of nodes, created the
//! first time a frame crosses the link.
//!
//! Invariants:
//! - Reciprocal: the frames a -> b and b -> a see the same process (one
//!   per unordered pair, from [`link_stream`]), so a data frame and the
//!   ACK that follows it a SIFS later see nearly the same gain under the
//!   time-correlated models.
//! - Deterministic and isolated: a link's process draws only from its own
//!   stream `channel/fading/{lo}-{hi}` of the run seed, created lazily, so
//!   no other draw of the run (shadowing, the medium's Bernoulli trials)
//!   moves when fading is switched on, off, or meets links in another
//!   order; with [`LinkFading::none`] nothing is drawn or added at all.
//! - A frame is judged at one instant, its start (the caller's choice; the
//!   gain is flat over the frame, as in the block-fading assumption of
//!   802.11 link simulations: at f_d = 50 Hz a 1.5 ms frame spans 0.075
//!   Doppler periods, a correlation J0(2 pi 0.075) = 0.95 from start to end).
//!
//! Doppler ([`Doppler`]): either a fixed maximum Doppler shift f_d (the
//! scatterers or the nodes move at a speed the scenario does not model,
//! e.g. people walking in an office), or derived from the nodes' own motion:
//! Clarke's process is a function of the distance travelled, h(x) with
//! phases 2 pi x cos(alpha_n) / lambda (Clarke 1968 derives it in space;
//! f_d = v / lambda turns it into time at constant speed v). The link's
//! process is therefore built at the Doppler shift of 1 m/s and read at
//! x = the length of the path of the relative position p_a - p_b, summed
//! over the straight chords between the instants its frames were judged:
//! exact while the velocities are constant between two frames of the link,
//! a chord for a turn between them (a fading phase that is still uniform,
//! only decorrelated slightly less). Using the relative speed for two
//! moving ends is an approximation: the mobile-to-mobile channel of Akki &
//! Haber (IEEE Trans. Veh. Technol. 35(1), 1986) has a different Doppler
//! spectrum (J0(2 pi f_1 tau) J0(2 pi f_2 tau) instead of J0 of the
//! relative speed); for an AP and one moving station it is exact. Nodes
//! that stand still give a frozen channel: one Rayleigh (or Rician) draw per
//! link, constant in time.
use std::collections::BTreeMap;

use wifitcp_core::{NodeId, SimTime};

use super::{link_stream, Fading, FadingError, FadingModel};
use crate::channel::propagation::{Position, SPEED_OF_LIGHT};

/// Where the maximum Doppler shift of a link comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Doppler {
    /// A fixed f_d in Hz for every link; the process follows time.
    Fixed(f64),
    /// From the relative motion of the link's two nodes at carrier
    /// `carrier_hz`: the process follows the distance travelled.
    Motion { carrier_hz: f64 },
}

/// A fading model with its Doppler: what the `[channel.fading]` table
/// asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FadingSpec {
    pub model: FadingModel,
    pub doppler: Doppler,
    /// Links longer than this (m) at their first frame have no line of
    /// sight: a Rician model runs with K = 0 (Rayleigh) on them; `None`:
    /// every link has the model's K.
    pub los_distance_m: Option<f64>,
}

impl FadingSpec {
    /// Whether the parameters are in their domains.
    pub fn check(&self) -> Result<(), FadingError> {
        let fd = match self.doppler {
            Doppler::Fixed(f) => f,
            Doppler::Motion { carrier_hz } => carrier_hz / SPEED_OF_LIGHT,
        };
        self.model.check(fd)
    }

    /// Whether the model is time- (or distance-) correlated, i.e. a sum of
    /// sinusoids; the block models and Nakagami draw per frame.
    fn correlated(&self) -> bool {
        matches!(self.model, FadingModel::Rayleigh { .. } | FadingModel::Rician { .. })
    }
}

/// One link's process and, for [`Doppler::Motion`], its travelled path.
#[derive(Clone, Debug)]
struct Link {
    fading: Fading,
    /// Relative position p_lo - p_hi at the last frame judged.
    last: Option<Position>,
    /// Length of the path of the relative position so far, m.
    travelled_m: f64,
}

/// The fading processes of the links of one channel.
#[derive(Clone, Debug)]
pub struct LinkFading {
    spec: Option<FadingSpec>,
    seed: u64,
    links: BTreeMap<(u32, u32), Link>,
}

impl LinkFading {
    /// No fading: [`LinkFading::gain_db`] is `None` and draws nothing.
    pub fn none() -> Self {
        LinkFading { spec: None, seed: 0, links: BTreeMap::new() }
    }

    /// `spec` on every link, the processes drawn from streams of the run
    /// seed `seed`. Checks the parameters.
    pub fn new(spec: FadingSpec, seed: u64) -> Result<Self, FadingError> {
        spec.check()?;
        Ok(LinkFading { spec: Some(spec), seed, links: BTreeMap::new() })
    }

    /// The spec, if any.
    pub fn spec(&self) -> Option<&FadingSpec> {
        self.spec.as_ref()
    }

    /// The power gain in dB of the link `tx`-`rx` for a frame starting at
    /// `start` with the nodes at `tx_pos` and `rx_pos` (read only under
    /// [`Doppler::Motion`]); `None` without fading. Creates the link's
    /// process on first use.
    pub fn gain_db(
        &mut self,
        tx: NodeId,
        rx: NodeId,
        tx_pos: Position,
        rx_pos: Position,
        start: SimTime,
    ) -> Option<f64> {
        let spec = self.spec?;
        let (lo, hi, rel) = if tx <= rx {
            (tx, rx, Position::new(tx_pos.x - rx_pos.x, tx_pos.y - rx_pos.y, tx_pos.z - rx_pos.z))
        } else {
            (rx, tx, Position::new(rx_pos.x - tx_pos.x, rx_pos.y - tx_pos.y, rx_pos.z - tx_pos.z))
        };
        let seed = self.seed;
        let link = self.links.entry((lo.0, hi.0)).or_insert_with(|| {
            let fd = match spec.doppler {
                Doppler::Fixed(f) => f,
                // f_d at 1 m/s: the process's "seconds" are metres travelled.
                Doppler::Motion { carrier_hz } => carrier_hz / SPEED_OF_LIGHT,
            };
            // Line of sight by the link's length at its first frame (a
            // link that later crosses `los_distance_m` keeps its state).
            let nlos = spec.los_distance_m.is_some_and(|d| tx_pos.distance(&rx_pos) > d);
            let model = if nlos { spec.model.without_los() } else { spec.model };
            let mut rng = link_stream(seed, lo, hi);
            let fading = Fading::new(model, fd, &mut rng).expect("checked in LinkFading::new");
            Link { fading, last: None, travelled_m: 0.0 }
        });
        let g = match (spec.doppler, &link.fading) {
            (Doppler::Motion { .. }, f) if spec.correlated() => {
                if let Some(p) = link.last {
                    link.travelled_m += p.distance(&rel);
                }
                link.last = Some(rel);
                let x = link.travelled_m;
                match f {
                    Fading::Rayleigh(p) => p.gain_at_seconds(x).norm_sqr(),
                    Fading::Rician(p) => p.gain_at_seconds(x).norm_sqr(),
                    _ => unreachable!("correlated models are sums of sinusoids"),
                }
            }
            // Fixed Doppler: Clarke/Jakes (Rayleigh) or Rice (Rician) in
            // time at f_d. Block models and Nakagami: one independent draw
            // per frame, keyed by the frame's start. ns-3's
            // NakagamiPropagationLossModel also draws a new Gamma(m, 1/m)
            // power gain for every packet with no time correlation; ours has
            // the same distribution per frame (one m for all distances where
            // ns-3 has three ranges) but is keyed by (link, instant) instead
            // of consuming a stream, so a frame's gain does not depend on
            // which other frames were judged before it. Its retransmissions
            // start later and draw afresh, as in ns-3.
            (_, f) => f.power_gain(start),
        };
        Some(10.0 * g.log10())
    }
}

#[cfg(test)]
mod tests;
