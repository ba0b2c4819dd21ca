//! MAC state machines (sans-I/O).
//!
//! A MAC takes `now` and an input (a frame to send, a carrier-sense change,
//! the end of a received frame, the end of its own transmission, a timer)
//! and pushes [`MacOutput`]s; `next_wakeup()` tells the caller when to call
//! `on_wake` next. The MAC never reads a clock and draws randomness only
//! from the [`RngStream`](wifitcp_core::RngStream) it was given.
//!
//! Invariants: a MAC transmits only at an instant the caller woke it for; it
//! holds at most one MSDU in service (head of line); every MSDU given to it
//! leaves as exactly one of `Acked`, `Dropped` or `Sent` (no ACK expected).
pub mod blockack;
pub mod dcf;
pub mod edca;
pub mod frame;

pub use dcf::{CsView, Dcf, DcfParams, MacCounters};
pub use frame::{Frame, FrameKind, MacAddr, MacOutput, MacSink};
