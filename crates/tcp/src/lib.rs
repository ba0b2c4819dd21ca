//! TCP (sans-I/O): connection state machine, RTT/RTO, loss recovery, and
//! pluggable congestion control.
//!
//! A [`Connection`] is one endpoint. It never reads a clock and owns no
//! randomness: the caller passes `now` into every call, feeds arriving
//! segments with [`Connection::on_segment`], fires timers with
//! [`Connection::on_timer`] at [`Connection::next_wakeup`], and drains
//! outgoing segments with [`Connection::poll_transmit`]. The ISN comes from
//! the caller (e.g. [`random_isn`] over the connection's `RngStream`).
//!
//! Layer invariants:
//! - time never goes backwards across calls (asserted);
//! - sequence numbers are compared with serial arithmetic on the wire and
//!   kept as 64-bit offsets inside ([`seq`]);
//! - the receiver delivers one in-order byte stream without gaps or
//!   duplicates ([`Connection::check_stream_integrity`], debug-asserted on
//!   every delivery);
//! - the sender's scoreboard holds exactly the unacknowledged segments, and
//!   its pipe / SACKed / lost counters equal their recomputation;
//! - cwnd never drops below one SMSS; the RTO stays within
//!   [min_rto, max_rto] (RFC 6298 (2.4), (2.5));
//! - every mechanism cites its RFC clause where it is implemented, and every
//!   deviation from an RFC default is written next to the code and listed in
//!   [`config`].
//!
//! Module map: [`config`] (settings and defaults), [`seq`] (serial
//! arithmetic), [`rtt`] (RFC 6298), [`recv`] (reassembly, SACK generation,
//! window, delayed ACK), [`scoreboard`] (retransmission queue, RFC 6675
//! scoreboard), [`sender`] (ACK processing, what to send next),
//! [`recovery`] (Tahoe / Reno / NewReno / SACK loss recovery and the RTO),
//! [`connection`] (RFC 9293 state machine), [`cc`] (congestion-control trait
//! and algorithms).
pub mod cc;
pub mod config;
pub mod connection;
pub mod recovery;
pub mod recv;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod seq;
pub mod stats;

pub use cc::reno::Reno;
pub use cc::{AckInfo, CcEvent, CongestionControl, LossKind, Window};
pub use config::{DelayedAck, InitialWindow, RecoveryVariant, RecvBuffer, TcpConfig};
pub use connection::{random_isn, Connection, Segment, TcpState};
pub use sender::LossState;
pub use stats::{CwndSample, LossEvent, TcpStats};
