//! Constant velocity along timed waypoints: the node is at waypoint k's
//! position at its time and moves in a straight line at constant speed to
//! waypoint k + 1. Before the first waypoint it waits at the first, after
//! the last it stays at the last (ns-3's WaypointMobilityModel behaves the
//! same way with its default of no lazy notification).
//!
//! A path "walk from p at v m/s along heading h from t0 to t1" is two
//! waypoints: (t0, p) and (t1, p + v (t1 - t0) (cos h, sin h)).
use super::{on_leg, Mobility};
use crate::channel::Position;
use wifitcp_core::SimTime;

/// One waypoint: where the node is at `time`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waypoint {
    pub time: SimTime,
    pub pos: Position,
}

#[derive(Clone, Debug)]
pub struct Waypoints {
    points: Vec<Waypoint>,
    /// Index of the leg's start waypoint for the last query (queries are
    /// non-decreasing, so the search moves forward a step at a time).
    cursor: usize,
}

impl Waypoints {
    /// At least one waypoint, times strictly increasing; otherwise the
    /// index of the first waypoint out of order (or 0 for an empty list).
    pub fn new(points: Vec<Waypoint>) -> Result<Waypoints, usize> {
        if points.is_empty() {
            return Err(0);
        }
        if let Some(i) = (1..points.len()).find(|&i| points[i].time <= points[i - 1].time) {
            return Err(i);
        }
        Ok(Waypoints { points, cursor: 0 })
    }

    pub fn points(&self) -> &[Waypoint] {
        &self.points
    }

    /// Moves the cursor to the leg holding `now` (forward in the normal
    /// case; backward too, so an out-of-order query is still exact).
    fn seek(&mut self, now: SimTime) {
        while self.cursor > 0 && self.points[self.cursor].time > now {
            self.cursor -= 1;
        }
        while self.cursor + 1 < self.points.len() && self.points[self.cursor + 1].time <= now {
            self.cursor += 1;
        }
    }
}

impl Mobility for Waypoints {
    fn position_at(&mut self, now: SimTime) -> Position {
        self.seek(now);
        let a = self.points[self.cursor];
        match self.points.get(self.cursor + 1) {
            Some(b) => on_leg(a.pos, a.time, b.pos, b.time, now),
            None => a.pos,
        }
    }
    fn next_change(&mut self, now: SimTime) -> SimTime {
        self.seek(now);
        self.points[self.cursor..].iter().map(|w| w.time).find(|&t| t > now).unwrap_or(SimTime::NEVER)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wp(t: f64, x: f64, y: f64) -> Waypoint {
        Waypoint { time: SimTime::from_secs_f64(t), pos: Position::new(x, y, 0.0) }
    }

    #[test]
    fn positions_at_known_instants() {
        // 10 m/s east for 10 s, pause 5 s, then 5 m/s north for 4 s.
        let mut m =
            Waypoints::new(vec![wp(1.0, 0.0, 0.0), wp(11.0, 100.0, 0.0), wp(16.0, 100.0, 0.0), wp(20.0, 100.0, 20.0)])
                .unwrap();
        let at = |m: &mut Waypoints, t: f64| m.position_at(SimTime::from_secs_f64(t));
        assert_eq!(at(&mut m, 0.0), Position::new(0.0, 0.0, 0.0)); // waits at the first
        assert_eq!(at(&mut m, 1.0), Position::new(0.0, 0.0, 0.0));
        assert_eq!(at(&mut m, 3.5), Position::new(25.0, 0.0, 0.0));
        assert_eq!(at(&mut m, 11.0), Position::new(100.0, 0.0, 0.0));
        assert_eq!(at(&mut m, 13.0), Position::new(100.0, 0.0, 0.0)); // pause
        assert_eq!(at(&mut m, 18.0), Position::new(100.0, 10.0, 0.0));
        assert_eq!(at(&mut m, 20.0), Position::new(100.0, 20.0, 0.0));
        assert_eq!(at(&mut m, 1e5), Position::new(100.0, 20.0, 0.0)); // stays at the last
                                                                      // A nanosecond-resolution instant: 1 ns at 10 m/s is 10 nm.
        let mut m = Waypoints::new(vec![wp(0.0, 0.0, 0.0), wp(1.0, 10.0, 0.0)]).unwrap();
        let x = m.position_at(SimTime::from_nanos(1)).x;
        assert!((x - 1e-8).abs() < 1e-20, "{x}");
    }

    #[test]
    fn next_change_lists_the_waypoints_after_now() {
        let mut m = Waypoints::new(vec![wp(1.0, 0.0, 0.0), wp(11.0, 100.0, 0.0), wp(16.0, 100.0, 0.0)]).unwrap();
        assert_eq!(m.next_change(SimTime::ZERO), SimTime::from_secs(1));
        assert_eq!(m.next_change(SimTime::from_secs(1)), SimTime::from_secs(11));
        assert_eq!(m.next_change(SimTime::from_secs(12)), SimTime::from_secs(16));
        assert_eq!(m.next_change(SimTime::from_secs(16)), SimTime::NEVER);
    }

    #[test]
    fn waypoints_out_of_order_are_refused_with_their_index() {
        assert_eq!(Waypoints::new(vec![]).unwrap_err(), 0);
        assert_eq!(Waypoints::new(vec![wp(0.0, 0.0, 0.0), wp(2.0, 1.0, 0.0), wp(1.0, 2.0, 0.0)]).unwrap_err(), 2);
        // Two waypoints at one instant would be a jump.
        assert_eq!(Waypoints::new(vec![wp(0.0, 0.0, 0.0), wp(0.0, 1.0, 0.0)]).unwrap_err(), 1);
        assert!(Waypoints::new(vec![wp(5.0, 0.0, 0.0)]).is_ok());
    }
}
