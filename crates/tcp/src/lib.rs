//! TCP (sans-I/O): connection state machine, RTT/RTO, loss recovery, and
//! pluggable congestion control.
pub mod cc;
