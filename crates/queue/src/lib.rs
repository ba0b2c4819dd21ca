//! Queue disciplines of wifitcp.
//!
//! Every discipline implements [`QueueDisc`], a sans-I/O state machine:
//! the simulator passes `now` and packets in, gets packets (and drops) out,
//! and asks `next_wakeup()` for timer work. No discipline reads a clock or
//! a global RNG. A scenario selects one per interface with a
//! [`QdiscConfig`] (tagged by `kind`) and [`build`] makes it.
//!
//! | kind | file | source |
//! |---|---|---|
//! | `drop-tail` | `droptail.rs` | ns-2 IFQ |
//! | `ack-first` | `ack_first.rs` | paper 000 section V |
//! | `keceli-sorted`, `keceli-grouped` | `keceli/` | paper 001 section III |
//! | `pilosof` | `pilosof.rs` ([`PacketRewriter`]) | paper 001 section IV (Pilosof et al.) |
//! | `vbs` | `vbs.rs` | paper 004 section V, Algorithm 1 |
//! | `cake-ack` | `cake_ack.rs` | Linux sch_cake ACK filter (documented rules) |
//! | `codel` | `codel.rs` | RFC 8289 |
//! | `fq-codel` | `fq_codel.rs` | RFC 8290 |
//! | `airtime` | `airtime.rs` | Høiland-Jørgensen et al., USENIX ATC 2017 |
//!
//! Invariants of this layer:
//! - Ledger: `enqueued == dequeued + dropped + len()` at every instant, for
//!   every discipline ([`QueueCounters::balances`]). Every packet that
//!   leaves other than by `dequeue` is handed back in `dropped` with a typed
//!   [`wifitcp_core::DropReason`] (`QueueFull`, `QueueAqm`,
//!   `QueueAdmission`, `AckFiltered`).
//! - No ACK filter ever removes a duplicate ACK or the ACK it duplicates.
//! - Deterministic: iteration over flows uses ordered maps; randomness
//!   (FQ-CoDel hash perturbation) comes from an [`wifitcp_core::RngStream`]
//!   passed to [`build`].
//! - Memory is bounded by the packets held plus per-flow state; occupancy
//!   series are thinned to a fixed maximum length.
pub mod ack_first;
pub mod airtime;
pub mod cake_ack;
pub mod codel;
pub mod config;
mod conformance;
pub mod disc;
pub mod droptail;
pub mod fq_codel;
pub mod keceli;
pub mod keys;
pub mod occupancy;
pub mod pilosof;
#[cfg(test)]
mod proptests;
pub mod tcpack;
mod testutil;
pub mod vbs;

pub use cake_ack::AckFilterMode;
pub use config::{build, build_rewriter, ConfigError, QdiscConfig};
pub use disc::{Dropped, QueueCounters, QueueDisc, Queued};
pub use occupancy::Occupancy;
pub use pilosof::{PacketRewriter, RewriteCounters};
