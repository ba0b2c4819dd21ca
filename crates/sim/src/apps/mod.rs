//! Applications that generate packets over UDP: one file per kind, one
//! line in [`build`] to register it.
//!
//! A [`Source`] is a sans-I/O state machine. The run loop fires it at the
//! instants it asks for and sends one datagram per firing; a saturated
//! source is instead asked for a datagram whenever its station's MAC is
//! ready and its queue empty, so the station always has a frame to send.
//! Sources draw randomness only from the stream they are built with
//! (`traffic/<flow name>`).
//!
//! TCP applications (bulk transfers of a size or without end) live with
//! the TCP endpoints (`crate::endpoints`).
mod cbr;
mod poisson;
mod saturated;

pub use cbr::Cbr;
pub use poisson::Poisson;
pub use saturated::Saturated;

use crate::config::{Pattern, Traffic};
use wifitcp_core::{RngStream, SimDur, SimTime};

/// A datagram due now, and when the source fires next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Firing {
    /// MSDU bytes of the datagram: LLC/SNAP (8) + IPv4 (20) + UDP (8) +
    /// payload.
    pub msdu_bytes: u32,
    /// The next firing (`SimTime::NEVER`: none, or asked for by the MAC).
    pub next: SimTime,
}

/// A UDP traffic source.
pub trait Source: Send {
    /// The scenario's name for this kind (`traffic.pattern`).
    fn kind(&self) -> &'static str;
    /// Whether the MAC asks for its packets (see the module docs).
    fn saturated(&self) -> bool {
        false
    }
    /// A datagram is due at `now`.
    fn fire(&mut self, now: SimTime) -> Firing;
}

/// The source of one flow of a `[[traffic]]` entry of kind `udp`.
pub fn build(tr: &Traffic, rng: RngStream) -> Box<dyn Source> {
    // Mean gap between datagrams at the offered load (rate_mbps is
    // validated present and positive for the patterns that need it).
    let gap =
        tr.rate_mbps.map(|r| SimDur::from_secs_f64(tr.msdu_bytes as f64 * 8.0 / (r * 1e6))).unwrap_or(SimDur::ZERO);
    match tr.pattern {
        Pattern::Saturated => Box::new(Saturated { msdu_bytes: tr.msdu_bytes }),
        Pattern::Cbr => Box::new(Cbr { msdu_bytes: tr.msdu_bytes, gap }),
        Pattern::Poisson => Box::new(Poisson { msdu_bytes: tr.msdu_bytes, mean_gap: gap, rng }),
    }
}
