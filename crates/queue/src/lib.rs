//! Queue disciplines of wifitcp.
//!
//! Every discipline implements [`QueueDisc`], a sans-I/O state machine:
//! the simulator passes `now` and packets in, gets packets (and drops) out,
//! and asks `next_wakeup()` for timer work. No discipline reads a clock or
//! a global RNG.
//!
//! Invariants of this layer:
//! - Ledger: `enqueued == dequeued + dropped + len()` at every instant, for
//!   every discipline ([`QueueCounters::balances`]). Every packet that
//!   leaves other than by `dequeue` is handed back in `dropped` with a typed
//!   [`wifitcp_core::DropReason`].
//! - Deterministic: iteration over flows uses ordered maps; randomness
//!   (FQ-CoDel hash perturbation) comes from an [`wifitcp_core::RngStream`]
//!   passed to [`build`].
//! - Memory is bounded by the packets held plus per-flow state; occupancy
//!   series are thinned to a fixed maximum length.
pub mod ack_first;
pub mod disc;
pub mod droptail;
pub mod keceli;
pub mod occupancy;
pub mod tcpack;
mod testutil;

pub use disc::{Dropped, QueueCounters, QueueDisc, Queued};
pub use occupancy::Occupancy;
