//! Random waypoint (Johnson & Maltz 1996, as used by Broch et al. 1998 and
//! ns-3's RandomWaypointMobilityModel): from where it stands the node picks
//! a destination uniformly in a rectangle and a speed uniformly in
//! [speed_min, speed_max], walks there in a straight line, pauses for
//! `pause`, and repeats. The first leg starts at time 0 from the node's
//! initial position (ns-3 also starts walking at once).
//!
//! Each leg draws, in this order, the destination's x, its y and the speed
//! (three `unit()` draws), and only when a query reaches the leg: the legs
//! are the same whatever instants are asked for.
//!
//! Long-run (time-average) speed, the check of the tests: the legs are
//! i.i.d. with length L and speed V independent, so by renewal-reward the
//! fraction of time spent moving and the distance per unit time are
//!
//!   v_mean = E[L] / (E[L] E[1/V] + pause),  E[1/V] = ln(v_max/v_min) / (v_max - v_min)
//!
//! (Yoon, Liu & Noble, "Random waypoint considered harmful", INFOCOM 2003:
//! the mean over time is the harmonic, not arithmetic, mean of the speeds;
//! with v_min = 0 it decays to 0, so `speed_min` must be positive). For
//! two uniform points in an a x a square, E[L] = a (2 + sqrt 2 + 5 ln(1 +
//! sqrt 2)) / 15 = 0.5214 a (the square line picking constant).
use super::{on_leg, Mobility};
use crate::channel::Position;
use wifitcp_core::{RngStream, SimDur, SimTime};

/// The parameters of [`RandomWaypoint`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RandomWaypointParams {
    /// The rectangle destinations are drawn from: (x_min, y_min).
    pub min: (f64, f64),
    /// (x_max, y_max), each at least the minimum.
    pub max: (f64, f64),
    /// Speeds in m/s, 0 < speed_min <= speed_max.
    pub speed_min: f64,
    pub speed_max: f64,
    /// Pause at each destination.
    pub pause: SimDur,
}

impl RandomWaypointParams {
    /// Why the parameters cannot run (`None`: they can).
    pub fn check(&self) -> Option<&'static str> {
        let finite = [self.min.0, self.min.1, self.max.0, self.max.1, self.speed_min, self.speed_max];
        if finite.iter().any(|x| !x.is_finite()) {
            return Some("values must be finite");
        }
        if self.max.0 < self.min.0 || self.max.1 < self.min.1 {
            return Some("the area's maximum corner is below its minimum");
        }
        if self.speed_min <= 0.0 {
            return Some("speed_min must be positive (with 0 the mean speed decays to 0)");
        }
        if self.speed_max < self.speed_min {
            return Some("speed_max is below speed_min");
        }
        None
    }

    /// The long-run time-average speed (module docs), for a square or any
    /// rectangle given E[L].
    pub fn mean_speed(&self, mean_leg_m: f64) -> f64 {
        let inv = if self.speed_max == self.speed_min {
            1.0 / self.speed_min
        } else {
            (self.speed_max / self.speed_min).ln() / (self.speed_max - self.speed_min)
        };
        mean_leg_m / (mean_leg_m * inv + self.pause.as_secs_f64())
    }
}

pub struct RandomWaypoint {
    p: RandomWaypointParams,
    rng: RngStream,
    /// The current leg: leaves `from` at `depart`, reaches `to` at
    /// `arrive`, pauses there until `leave` (> `depart`).
    from: Position,
    to: Position,
    depart: SimTime,
    arrive: SimTime,
    leave: SimTime,
}

impl RandomWaypoint {
    /// A node starting at `start` (any point; later destinations are in
    /// the rectangle) at time 0. `p` must pass [`RandomWaypointParams::check`].
    pub fn new(p: RandomWaypointParams, start: Position, rng: RngStream) -> RandomWaypoint {
        debug_assert!(p.check().is_none());
        let mut m = RandomWaypoint {
            p,
            rng,
            from: start,
            to: start,
            depart: SimTime::ZERO,
            arrive: SimTime::ZERO,
            leave: SimTime::ZERO,
        };
        m.next_leg(SimTime::ZERO);
        m
    }

    /// Draws the leg leaving `to` at `t`.
    fn next_leg(&mut self, t: SimTime) {
        let p = &self.p;
        let x = p.min.0 + (p.max.0 - p.min.0) * self.rng.unit();
        let y = p.min.1 + (p.max.1 - p.min.1) * self.rng.unit();
        let v = p.speed_min + (p.speed_max - p.speed_min) * self.rng.unit();
        self.from = self.to;
        self.to = Position::new(x, y, self.from.z);
        self.depart = t;
        let walk = SimDur::from_secs_f64(self.from.distance(&self.to) / v);
        self.arrive = t + walk;
        // Time must advance with each leg (a zero-length leg without a
        // pause has probability 0, but must not loop).
        self.leave = (self.arrive + p.pause).max(t + SimDur(1));
    }

    fn seek(&mut self, now: SimTime) {
        while now >= self.leave {
            let t = self.leave;
            self.next_leg(t);
        }
    }
}

impl Mobility for RandomWaypoint {
    fn position_at(&mut self, now: SimTime) -> Position {
        self.seek(now);
        on_leg(self.from, self.depart, self.to, self.arrive, now)
    }
    fn next_change(&mut self, now: SimTime) -> SimTime {
        self.seek(now);
        if now < self.arrive {
            self.arrive
        } else {
            self.leave
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pause_s: f64) -> RandomWaypointParams {
        RandomWaypointParams {
            min: (0.0, 0.0),
            max: (100.0, 100.0),
            speed_min: 1.0,
            speed_max: 5.0,
            pause: SimDur::from_secs_f64(pause_s),
        }
    }

    /// Distance walked / time over `legs` legs, measured by following the
    /// velocity changes (exact: the path is straight between them).
    fn measured_mean_speed(m: &mut RandomWaypoint, changes: usize) -> f64 {
        let (mut t, mut pos, mut dist) = (SimTime::ZERO, m.position_at(SimTime::ZERO), 0.0);
        for _ in 0..changes {
            t = m.next_change(t);
            let p = m.position_at(t);
            dist += pos.distance(&p);
            pos = p;
        }
        dist / t.as_secs_f64()
    }

    #[test]
    fn long_run_mean_speed_matches_the_renewal_formula() {
        // E[L] of the 100 m square: 52.14 m. Without pause v_mean =
        // 4 / ln 5 = 2.4853 m/s (not the arithmetic 3 m/s); with 10 s
        // pauses 52.14 / (52.14 * 0.40236 + 10) = 1.6830 m/s. 40 000 legs
        // each: the ratio estimator's sd is about 0.4 %, tolerance 1.5 %.
        let el = 100.0 * (2.0 + 2f64.sqrt() + 5.0 * (1.0 + 2f64.sqrt()).ln()) / 15.0;
        assert!((el - 52.1405).abs() < 1e-3);
        for (pause, changes_per_leg, expect) in [(0.0, 1, 2.4853), (10.0, 2, 1.6830)] {
            let p = params(pause);
            assert!((p.mean_speed(el) - expect).abs() < 1e-3, "{}", p.mean_speed(el));
            let mut m = RandomWaypoint::new(p, Position::new(50.0, 50.0, 0.0), RngStream::derive(7, "rwp"));
            let v = measured_mean_speed(&mut m, 40_000 * changes_per_leg);
            assert!((v / expect - 1.0).abs() < 0.015, "pause {pause}: {v} vs {expect}");
        }
    }

    #[test]
    fn stays_in_the_area_and_moves_at_a_drawn_speed() {
        let p = params(2.0);
        let mut m = RandomWaypoint::new(p, Position::new(0.0, 0.0, 0.0), RngStream::derive(3, "rwp"));
        let (mut prev, mut t_prev) = (m.position_at(SimTime::ZERO), SimTime::ZERO);
        for i in 1..200_000u64 {
            let t = SimTime::from_millis(37 * i);
            let q = m.position_at(t);
            assert!((0.0..=100.0).contains(&q.x) && (0.0..=100.0).contains(&q.y), "{q:?} at {t}");
            // never faster than speed_max (plus rounding of ns times)
            let v = prev.distance(&q) / (t - t_prev).as_secs_f64();
            assert!(v <= 5.0 + 1e-6, "{v} m/s at {t}");
            (prev, t_prev) = (q, t);
        }
    }

    #[test]
    fn positions_do_not_depend_on_when_they_are_asked_for() {
        let p = params(1.0);
        let start = Position::new(10.0, 10.0, 0.0);
        let mut dense = RandomWaypoint::new(p, start, RngStream::derive(9, "rwp"));
        let mut sparse = RandomWaypoint::new(p, start, RngStream::derive(9, "rwp"));
        for i in 0..100_000u64 {
            let t = SimTime::from_millis(10 * i);
            let a = dense.position_at(t);
            if i % 997 == 0 {
                assert_eq!(a, sparse.position_at(t));
            }
        }
        // A different seed walks elsewhere.
        let mut other = RandomWaypoint::new(p, start, RngStream::derive(10, "rwp"));
        assert_ne!(other.position_at(SimTime::from_secs(100)), dense.position_at(SimTime::from_secs(1000)));
    }

    #[test]
    fn bad_parameters_are_named() {
        let mut p = params(0.0);
        assert!(p.check().is_none());
        p.speed_min = 0.0;
        assert!(p.check().unwrap().contains("speed_min"));
        p.speed_min = 6.0;
        assert!(p.check().unwrap().contains("speed_max"));
        p.speed_min = 1.0;
        p.max = (-1.0, 100.0);
        assert!(p.check().unwrap().contains("area"));
    }
}
