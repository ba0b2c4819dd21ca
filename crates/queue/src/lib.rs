//! Queue disciplines of wifitcp.
//!
//! Every discipline implements [`QueueDisc`], a sans-I/O state machine:
//! the simulator passes `now` and packets in, gets packets (and drops) out,
//! and asks `next_wakeup()` for timer work. No discipline reads a clock or
//! a global RNG. A scenario selects one per interface with a
//! [`QdiscConfig`] (tagged by `kind`) and [`build`] makes it. Each kind is
//! one file (its discipline, its table struct and key rows, its build) and
//! one line of the [`QdiscConfig`] registration below ([`config`]).
//!
//! The registration below names every kind, its table struct and its file;
//! each variant's doc names its source.
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
pub mod config;
mod conformance;
pub mod disc;
pub mod occupancy;
#[cfg(test)]
mod proptests;
pub mod tcpack;
mod testutil;

use config::QdiscKind;

wifitcp_core::config_kinds! {
    /// A queue discipline selected by `kind`: one line per kind, naming its
    /// table struct and the module of its file.
    pub enum QdiscConfig: tag "kind", dyn QdiscKind {
        /// FIFO, `capacity` packets (the ns-2 IFQ).
        "drop-tail" => DropTail(droptail::DropTailConfig) mod droptail,
        /// Paper 000 section V: ACK buffer served first, redundant ACKs removed.
        "ack-first" => AckFirst(ack_first::AckFirstConfig) mod ack_first,
        /// Paper 001 section III with sorted threshold assignment.
        "keceli-sorted" => KeceliSorted(keceli::KeceliConfig) mod keceli,
        /// Paper 001 section III with grouped threshold assignment.
        "keceli-grouped" => KeceliGrouped(keceli::KeceliConfig),
        /// Drop-tail queue plus Pilosof advertised-window rewriting of the
        /// TCP packets the node forwards (paper 001 section IV; see
        /// [`build_rewriter`]).
        "pilosof" => Pilosof(pilosof::PilosofConfig) mod pilosof,
        /// Paper 004 section V, Algorithm 1.
        "vbs" => Vbs(vbs::VbsConfig) mod vbs,
        /// Drop-tail FIFO with the CAKE ACK filter (Linux sch_cake, documented
        /// rules).
        "cake-ack" => CakeAck(cake_ack::CakeAckConfig) mod cake_ack,
        /// Single-queue CoDel (RFC 8289).
        "codel" => Codel(codel::CodelConfig) mod codel,
        /// FQ-CoDel (RFC 8290).
        "fq-codel" => FqCodel(fq_codel::FqCodelConfig) mod fq_codel,
        /// Per-station airtime DRR with FQ-CoDel per station (Høiland-Jørgensen
        /// et al., USENIX ATC 2017).
        "airtime" => Airtime(airtime::AirtimeConfig) mod airtime,
        /// FIFO that drops its oldest packet when full (Linux pfifo_head_drop).
        "head-drop" => HeadDrop(head_drop::HeadDropConfig) mod head_drop,
        /// RED (Floyd & Jacobson 1993; RFC 2309), gentle option, ECN marking (RFC 3168).
        "red" => Red(red::RedConfig) mod red,
        /// DualPI2, the Dual-Queue Coupled AQM (RFC 9332).
        "dualpi2" => DualPi2(dualpi2::DualPi2Config) mod dualpi2,
        /// CAKE (Høiland-Jørgensen, Täht & Morton, LANMAN 2018): DRR++ with COBALT, host isolation, shaper.
        "cake" => Cake(cake::CakeConfig) mod cake,
    }
}

pub use ack_first::AckFilterStats;
pub use cake_ack::AckFilterMode;
pub use config::{build, build_rewriter, ConfigError};
pub use disc::{DropCounts, Dropped, QueueCounters, QueueDisc, Queued};
pub use droptail::DropTail;
pub use occupancy::Occupancy;
pub use pilosof::{PacketRewriter, RewriteCounters};
