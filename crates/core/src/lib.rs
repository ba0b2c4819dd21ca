//! wifitcp simulation core.
//!
//! Invariants of this layer:
//! - Time is integer nanoseconds. [`SimTime`] is an instant, [`SimDur`] a
//!   duration; mixing them up is a type error.
//! - The [`EventQueue`] pops events in a total order: time first, then the
//!   insertion sequence number. Popping or pushing an event earlier than the
//!   last popped time panics (time never goes backwards).
//! - Randomness comes only from [`RngStream`]s derived from one master seed
//!   and a stable component name; no global RNG exists.
//! - Nothing in this crate reads the wall clock.
//! - Configuration errors are [`ConfigError`]s (`path: reason`), and a
//!   table's scenario keys are derived from its declaration
//!   ([`config_table!`], [`config_kinds!`]; see [`config`]).

pub mod cache;
pub mod config;
pub mod drop;
pub mod event;
pub mod ids;
pub mod rng;
pub mod schema;
pub mod time;
pub mod trace;

pub use config::ConfigError;
pub use drop::DropReason;
pub use event::EventQueue;
pub use ids::*;
pub use rng::RngStream;
pub use time::{DurDivisor, SimDur, SimTime};
pub use trace::{NullSink, TraceEvent, TraceSink, VecSink};

/// A source of the current instant. Simulation uses virtual time; emulation
/// implements this over the wall clock (only in the emulation crate).
pub trait Clock {
    fn now(&self) -> SimTime;
}
