//! Node mobility: where a node is at a given instant.
//!
//! A [`Mobility`] model is a sans-I/O function of time: the channel asks
//! [`Mobility::position_at`] when a frame needs a node's position (at the
//! frame's end) and nothing else happens. There is no event per metre or
//! per leg; a node that never moves has no model at all (the channel keeps
//! its fixed position), so standing still costs nothing.
//!
//! Invariants:
//! - Positions are continuous in time (nodes walk, they do not jump): each
//!   model is piecewise linear between the instants of
//!   [`Mobility::next_change`].
//! - Queries come in non-decreasing time (simulated time never goes
//!   backwards); a model may forget the legs it has left behind.
//! - Randomness comes only from the [`wifitcp_core::RngStream`] a model was
//!   built with, drawn lazily one leg at a time in a fixed order, so the
//!   positions depend on the seed only, not on when or how often they are
//!   asked for.
//!
//! Models (one file each): [`ConstantPosition`], [`Waypoints`] (constant
//! velocity along timed waypoints, ns-3's WaypointMobilityModel in
//! behaviour), [`RandomWaypoint`] (Johnson & Maltz 1996; Broch et al. 1998;
//! ns-3's RandomWaypointMobilityModel in behaviour).
mod constant;
mod random_waypoint;
mod waypoints;

pub use constant::ConstantPosition;
pub use random_waypoint::{RandomWaypoint, RandomWaypointParams};
pub use waypoints::{Waypoint, Waypoints};

use crate::channel::Position;
use wifitcp_core::SimTime;

/// Where a node is over time.
pub trait Mobility: Send {
    /// The node's position at `now` (non-decreasing across calls).
    fn position_at(&mut self, now: SimTime) -> Position;
    /// The first instant after `now` at which the node's velocity changes
    /// (a waypoint, the end of a pause); `SimTime::NEVER` if it never does.
    fn next_change(&mut self, now: SimTime) -> SimTime;
}

/// The point a fraction `f` (0..=1) of the way from `a` to `b`.
fn lerp(a: Position, b: Position, f: f64) -> Position {
    Position::new(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f, a.z + (b.z - a.z) * f)
}

/// Position at `now` on the leg leaving `a` at `t0` and reaching `b` at
/// `t1` (at `a` before `t0`, at `b` from `t1` on).
fn on_leg(a: Position, t0: SimTime, b: Position, t1: SimTime, now: SimTime) -> Position {
    if now <= t0 {
        a
    } else if now >= t1 {
        b
    } else {
        // Fractions of integer nanoseconds: exact at both ends.
        lerp(a, b, (now.0 - t0.0) as f64 / (t1.0 - t0.0) as f64)
    }
}
