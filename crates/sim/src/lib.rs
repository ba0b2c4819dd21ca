//! Scenario schema, topology wiring, run loop and metrics.
pub mod api;
