//! A frame error model whose nodes move: [`ChannelErrors`] (the channel
//! model with node positions) with a [`Mobility`] model per moving node.
//!
//! Before judging a frame, the positions of its transmitter and receiver
//! are set to where their models put them at the frame's end (the `now`
//! the medium passes); nodes without a model keep their fixed positions.
//! Received power, SNR, error probability (and through them the outcomes a
//! rate controller learns from) therefore follow the nodes. Judging the
//! whole frame at its end position is exact to the distance walked during
//! one frame: at 50 km/h a 3 ms frame moves 4 cm, 0.002 dB of path loss
//! at 50 m with exponent 2.7.
//!
//! Invariant: with no moving node this model gives exactly the answers and
//! draws of the `ChannelErrors` it wraps (the World then builds the plain
//! model anyway, so nothing changes when nobody moves).
use crate::channel::Position;
use crate::mac::{Frame, MacAddr};
use crate::medium::{ChannelErrors, FrameErrorModel};
use crate::mobility::Mobility;
use wifitcp_core::{RngStream, SimTime};

pub struct MovingChannelErrors {
    pub inner: ChannelErrors,
    /// Mobility model of each BSS member (`None`: it stands still at
    /// `inner.positions[i]`).
    pub mobility: Vec<Option<Box<dyn Mobility>>>,
}

impl MovingChannelErrors {
    /// `mobility[i]` moves BSS member `i`; members past its end stand still.
    pub fn new(inner: ChannelErrors, mut mobility: Vec<Option<Box<dyn Mobility>>>) -> Self {
        mobility.resize_with(inner.positions.len(), || None);
        MovingChannelErrors { inner, mobility }
    }

    /// Position of member `i` at `now` (and remembers it).
    pub fn position_at(&mut self, now: SimTime, i: usize) -> Position {
        if let Some(m) = self.mobility[i].as_mut() {
            self.inner.positions[i] = m.position_at(now);
        }
        self.inner.positions[i]
    }
}

impl FrameErrorModel for MovingChannelErrors {
    fn success_prob(&mut self, now: SimTime, ta: MacAddr, ra: MacAddr, f: &Frame, rng: &mut RngStream) -> f64 {
        self.position_at(now, ta.0 as usize);
        self.position_at(now, ra.0 as usize);
        self.inner.success_prob(now, ta, ra, f, rng)
    }
    fn ppdu_success_parts(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        rng: &mut RngStream,
    ) -> (f64, f64) {
        self.position_at(now, ta.0 as usize);
        self.position_at(now, ra.0 as usize);
        self.inner.ppdu_success_parts(now, ta, ra, f, rng)
    }
    fn ru_success_parts(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        ru: crate::phy::ppdu::RuLink,
        rng: &mut RngStream,
    ) -> (f64, f64) {
        self.position_at(now, ta.0 as usize);
        self.position_at(now, ra.0 as usize);
        self.inner.ru_success_parts(now, ta, ra, f, ru, rng)
    }
    fn may_hit_control_frames(&self) -> bool {
        self.inner.may_hit_control_frames()
    }
    fn may_hit_data_frames(&self) -> bool {
        self.inner.may_hit_data_frames()
    }
    fn position_of(&mut self, now: SimTime, i: usize) -> Option<Position> {
        (i < self.mobility.len()).then(|| self.position_at(now, i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::channel::config::{ChannelConfig, PropagationConfig, SnrConfig};
    use crate::channel::presets;
    use crate::mac::FrameKind;
    use crate::medium::errors::two_nodes;
    use crate::mobility::{Waypoint, Waypoints};
    use crate::phy::Rate;
    use wifitcp_core::SimDur;

    fn data(bytes: u32, mbps: u32) -> Frame {
        Frame {
            mu: None,
            kind: FrameKind::Data,
            ta: MacAddr(0),
            ra: MacAddr(1),
            duration: SimDur::ZERO,
            seq: 0,
            retry: false,
            mpdu_bytes: bytes,
            rate: Rate(mbps * 10),
            airtime: SimDur::from_micros(100),
            contended: true,
            mpdus: crate::mac::Mpdus::none(),
        }
    }

    /// A station walking from 1 m to 1001 m in 1000 s (1 m/s).
    fn walker() -> Box<dyn Mobility> {
        let wp = |s: u64, x: f64| Waypoint { time: SimTime::from_secs(s), pos: Position::new(x, 0.0, 0.0) };
        Box::new(Waypoints::new(vec![wp(0, 1.0), wp(1000, 1001.0)]).unwrap())
    }

    #[test]
    fn success_follows_the_distance_of_the_moving_node() {
        // SNR model without shadowing: the walker's success probability at
        // time t equals the fixed model's at distance 1 + t, exactly.
        let cfg = ChannelConfig::Snr(SnrConfig::default());
        let mut moving = MovingChannelErrors::new(two_nodes(cfg.clone(), 1.0), vec![None, Some(walker())]);
        let f = data(1500, 24);
        let mut rng = RngStream::derive(3, "medium");
        let mut seen = Vec::new();
        for t in [0u64, 40, 50, 55, 60, 100] {
            let p = moving.success_prob(SimTime::from_secs(t), f.ta, f.ra, &f, &mut rng);
            let q = two_nodes(cfg.clone(), 1.0 + t as f64).success_prob(SimTime::ZERO, f.ta, f.ra, &f, &mut rng);
            assert_eq!(p, q, "t = {t}");
            seen.push(p);
        }
        // walking away: near 1 at 1 m, falling through the 24 Mbit/s range
        // (51 m at 10 % FER), 0 at 101 m
        assert!(seen[0] > 0.999999 && seen[5] < 1e-6, "{seen:?}");
        assert!(seen.windows(2).all(|w| w[1] <= w[0]), "{seen:?}");
    }

    #[test]
    fn threshold_model_at_the_walkers_distance() {
        // Janevski & Petrov's ns-2 channel (exponent 2.7, sigma 4 dB): at
        // 100 m P(fail) = 1 - Phi(3.208 / 4) = 0.2113; the walker is there
        // at t = 99 s. 40 000 frames: sd 0.002, tolerance 0.01.
        let mut moving =
            MovingChannelErrors::new(two_nodes(presets::janevski_petrov(), 1.0), vec![None, Some(walker())]);
        let f = data(552, 2);
        let mut rng = RngStream::derive(5, "medium");
        let t = SimTime::from_secs(99);
        let fails = (0..40_000)
            .filter(|_| {
                let p = moving.success_prob(t, f.ta, f.ra, &f, &mut rng);
                !rng.bernoulli(p)
            })
            .count();
        let per = fails as f64 / 40_000.0;
        assert!((per - 0.2113).abs() < 0.01, "{per}");
        assert_eq!(moving.position_at(t, 1), Position::new(100.0, 0.0, 0.0));
    }

    #[test]
    fn without_movers_the_answers_and_draws_are_the_wrapped_models() {
        let cfg = ChannelConfig::Snr(SnrConfig {
            propagation: PropagationConfig { shadowing_sigma_db: 4.0, ..Default::default() },
            ..Default::default()
        });
        let mut plain = two_nodes(cfg.clone(), 40.0);
        let mut moving = MovingChannelErrors::new(two_nodes(cfg, 40.0), vec![]);
        let (mut r1, mut r2) = (RngStream::derive(8, "m"), RngStream::derive(8, "m"));
        let f = data(1500, 24);
        for i in 0..1000u64 {
            let t = SimTime::from_millis(i);
            assert_eq!(plain.success_prob(t, f.ta, f.ra, &f, &mut r1), moving.success_prob(t, f.ta, f.ra, &f, &mut r2));
        }
        assert_eq!(r1.next_u64(), r2.next_u64());
    }
}
