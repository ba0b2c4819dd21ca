//! Scenario schema, topology wiring, run loop and metrics.
//!
//! Invariants: one master seed per run, from which every component derives
//! its RNG stream by a stable name; a run's packet ledger balances or the
//! run fails; Python is called once per run, never per event.
pub mod agents;
pub mod api;
pub mod apps;
pub mod capture;
pub mod config;
mod disjoint;
pub mod endpoints;
pub mod ledger;
pub mod link;
pub mod macs;
pub mod metrics;
pub mod names;
pub mod parquet;
pub mod topology;
pub mod trace;
pub mod world;

pub use config::Scenario;
