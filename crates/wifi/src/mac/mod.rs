//! MAC state machines (sans-I/O) and the [`Mac`] trait the medium drives.
//!
//! A MAC takes `now` and an input (an MSDU to send, a carrier-sense change,
//! the end of a received frame, the end of its own transmission, a timer)
//! and pushes [`MacOutput`]s; `next_wakeup()` tells the caller when to call
//! `on_wake` next. The MAC never reads a clock and draws randomness only
//! from the [`RngStream`](wifitcp_core::RngStream) it was given.
//!
//! Invariants: a MAC transmits only at an instant the caller woke it for or
//! gave it an input at; every MSDU given to it leaves as exactly one of
//! `Acked` (acknowledged, or sent with the No Ack policy) or `Dropped`;
//! a receiver delivers the MSDU it takes out of a received frame (an owned
//! copy), never one read back from the transmitter.
pub mod access;
pub mod any;
pub mod api;
pub mod beacon;
pub mod blockack;
pub mod dcf;
pub mod edca;
pub mod exchange;
pub mod frame;
pub mod hcf;
pub mod mu_frame;
pub mod pcf;
pub mod sched;

pub use access::CsView;
pub use any::AnyMac;
pub use api::{Bystander, Demand, GroupRules, Mac};
pub use dcf::{Dcf, DcfParams, DcfShared, MacCounters};
pub use frame::{AckPolicy, Frame, FrameKind, MacAddr, MacOutput, MacSink, Mpdu, MpduBody, Mpdus, Msdu};
pub use hcf::{Hcf, HcfParams, HcfStats};
pub use mu_frame::{MuInfo, MuUserTx};
