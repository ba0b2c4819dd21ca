//! Network-layer extension points shared by the run loop (`wifitcp-sim`)
//! and whatever sits at a node: proxies, filters, taps.
//!
//! - [`agent`]: the [`Agent`] trait. An agent sees every packet that
//!   arrives at its node, before the node forwards it or delivers it
//!   locally, and returns a [`Verdict`]: pass it on (possibly modified in
//!   place), consume it, or drop it with a typed reason. It may emit new
//!   packets and ask for a wake-up. Agents are sans-I/O: `now` comes in,
//!   the next wake-up goes out; no clock, no global RNG.
//! - [`timers`]: the [`TimerRegistry`], one table of wake-ups keyed by
//!   component, so that a new timed component needs a registry slot, not a
//!   new event variant of the run loop.
//!
//! Invariants: an agent never loses a packet silently (a consumed packet is
//! counted as delivered at this node, a dropped one under its reason, and
//! an emitted packet enters the packet ledger as a new packet); a timer
//! fires only at the instant its owner last asked for (stale wake-ups are
//! recognised by a generation number and ignored).
pub mod agent;
pub mod timers;

pub use agent::{Agent, AgentCtx, Arrival, Verdict};
pub use timers::{TimerKey, TimerRegistry};
