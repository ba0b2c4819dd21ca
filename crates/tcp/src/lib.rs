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
//!   deviation from an RFC default is written next to the code; default
//!   values are documented in [`config`].
//!
//! Deviations from RFC defaults or common practice (each is also commented
//! where it is implemented):
//! - Advertised window = receive buffer minus delivered-but-unread bytes.
//!   Out-of-order bytes are *not* subtracted: they lie inside
//!   `[rcv_nxt, right edge)` already (ns-2's fixed-window semantics).
//! - Delayed ACK counts every in-order segment, not only full-sized ones.
//! - Without timestamps an RTT sample is taken from every ACK that advances
//!   `snd_una` (newest newly-acked segment), skipped when any newly acked
//!   segment was retransmitted (Karn). RFC 6298 needs one per RTT at least.
//!   The RTO backoff ends at the next valid sample, not at any new ACK.
//! - With timestamps, the payload per segment is MSS - 12 (RFC 6691); SACK
//!   blocks piggybacked on data do not shrink the payload.
//! - NewReno full ACK sets cwnd = ssthresh (RFC 6582 option 2); only the
//!   first partial ACK restarts the RTO timer.
//! - SACK recovery works on whole segments; NextSeg rule 4 (rescue
//!   retransmission, a MAY) is not implemented; SACK information is cleared
//!   on an RTO (RFC 2018 section 8).
//! - Tahoe is go-back-N after DupThresh duplicate ACKs (ns-2 / Fall & Floyd).
//! - Classic Reno keeps no `recover` point of its own, but like every
//!   variant ignores duplicate ACKs below the highest sequence sent before
//!   an RTO (ns-2's `bugfix`; RFC 6582 section 4).
//! - [`Reno`] does not grow cwnd while not cwnd-limited (RFC 7661 spirit,
//!   Linux); `validate = false` restores plain RFC 5681.
//! - Zero-window probes are segments with sequence `snd_una - 1` and no data
//!   (Linux style); the persist timer also covers windows too small to use.
//! - `close()` in SYN-SENT defers the FIN until the connection is
//!   established.
//! - Not modelled: simultaneous open, RST generation, urgent data, PAWS,
//!   D-SACK, F-RTO/Eifel, PRR (RFC 6937), RACK-TLP, TCP Fast Open,
//!   keep-alives, ECN.
//!
//! Module map: [`config`] (settings and defaults), [`seq`] (serial
//! arithmetic), [`rtt`] (RFC 6298), [`recv`] (reassembly, SACK generation,
//! window, delayed ACK), [`scoreboard`] (retransmission queue, RFC 6675
//! scoreboard), [`sender`] (ACK processing, what to send next),
//! [`recovery`] (Tahoe / Reno / NewReno / SACK loss recovery and the RTO),
//! [`rate`] (delivery-rate samples for rate-based controllers),
//! [`connection`] (RFC 9293 state machine), [`cc`] (congestion-control trait
//! and algorithms).
pub mod cc;
pub mod config;
pub mod connection;
pub mod ecn;
pub mod rack;
pub mod rate;
pub mod recovery;
pub mod recv;
pub mod rtt;
pub mod scenario;
pub mod scoreboard;
pub mod sender;
pub mod seq;
pub mod stats;

pub use cc::reno::Reno;
pub use cc::{AckInfo, CcEvent, CongestionControl, EcnFeedback, LossKind, Window};
pub use config::{
    DelayedAck, InitialWindow, RecoveryVariant, RecvBuffer, TcpConfig, LINUX_RMEM_MAX, UNSCALED_WINDOW_MAX,
};
pub use connection::{random_isn, Connection, Segment, TcpState};
pub use ecn::{Ecn, EcnMode};
pub use sender::LossState;
pub use stats::{CwndSample, LossEvent, TcpStats};

/// `[tcp]` and `[traffic.tcp]` are tables in a scenario's key rows.
impl wifitcp_core::config::KeyType for scenario::TcpSection {
    const TY: wifitcp_core::schema::Ty = wifitcp_core::schema::Ty::Table;
}
