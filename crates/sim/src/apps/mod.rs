//! Applications that generate packets over UDP: one file per kind, one
//! line in [`build`] to register it (and its keys checked in
//! [`validate`]).
//!
//! A [`Source`] is a sans-I/O state machine. The run loop asks it for its
//! first instant at the flow's start ([`Source::start`]), then fires it at
//! the instants it asks for and sends one datagram per firing; a saturated
//! source is instead asked for a datagram whenever its station's MAC is
//! ready and its queue empty, so the station always has a frame to send.
//! Sources draw randomness only from the stream they are built with
//! (`traffic/<flow name>`).
//!
//! A ping source's datagrams are UDP echo requests (RFC 862, port 7): the
//! destination node answers each with a reply of the same size
//! (`crate::world`, transport), and the source's flow records round-trip
//! times.
//!
//! TCP applications (bulk transfers of a size, such as paper 002's FTP, or
//! without end) live with the TCP endpoints (`crate::endpoints`).
mod cbr;
mod game;
mod onoff;
mod ping;
mod poisson;
mod saturated;
pub mod trace;

pub use cbr::Cbr;
pub use game::Game;
pub use onoff::OnOff;
pub use ping::Ping;
pub use poisson::Poisson;
pub use saturated::Saturated;
pub use trace::TraceSource;

use crate::config::{Direction, Pattern, Traffic};
use wifitcp_core::{RngStream, SimDur, SimTime};

/// LLC/SNAP (8) + IPv4 (20) + UDP (8): an MSDU's bytes besides a UDP
/// payload.
pub const UDP_OVERHEAD: u32 = 8 + 20 + 8;

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
    /// Whether its datagrams are echo requests the destination answers.
    fn echo(&self) -> bool {
        false
    }
    /// The flow starts at `start`: the instant of the first firing.
    fn start(&mut self, start: SimTime) -> SimTime {
        start
    }
    /// A datagram is due at `now`.
    fn fire(&mut self, now: SimTime) -> Firing;
}

/// Check the application keys of a UDP `[[traffic]]` entry at `path`
/// (rate_mbps and msdu_bytes are checked by the caller).
pub fn validate(tr: &Traffic, path: &str) -> Result<(), String> {
    let on_off = tr.pattern == Pattern::OnOff;
    for (key, set) in [("on_s", tr.on_s), ("off_s", tr.off_s)] {
        match (on_off, set) {
            (true, None) => return Err(format!("{path}.{key}: required for pattern on-off")),
            (false, Some(_)) => return Err(format!("{path}.{key}: used by pattern on-off only")),
            (true, Some(x)) if !(x.is_finite() && x > 0.0) => {
                return Err(format!("{path}.{key}: must be positive, got {x}"))
            }
            _ => {}
        }
    }
    let sized = matches!(tr.pattern, Pattern::Game | Pattern::Ping);
    if !sized && tr.interval_ms.is_some() {
        return Err(format!("{path}.interval_ms: used by patterns game and ping only"));
    }
    if !sized && tr.payload_bytes.is_some() {
        return Err(format!("{path}.payload_bytes: used by patterns game and ping only"));
    }
    if let Some(x) = tr.interval_ms {
        if !(x.is_finite() && x > 0.0) {
            return Err(format!("{path}.interval_ms: must be positive, got {x}"));
        }
    }
    if let Some(b) = tr.payload_bytes {
        if b + UDP_OVERHEAD > 2304 {
            return Err(format!(
                "{path}.payload_bytes: at most {} (an MSDU of at most 2304 bytes), got {b}",
                2304 - UDP_OVERHEAD
            ));
        }
    }
    match (tr.pattern, &tr.trace_file) {
        (Pattern::Trace, None) => Err(format!("{path}.trace_file: required for pattern trace")),
        (Pattern::Trace, Some(f)) => trace::load(f).map(|_| ()).map_err(|e| format!("{path}.trace_file: {e}")),
        (_, Some(_)) => Err(format!("{path}.trace_file: used by pattern trace only")),
        _ => Ok(()),
    }
}

/// A TCP `[[traffic]]` entry at `path` sets none of the UDP applications'
/// keys.
pub fn reject_udp_keys(tr: &Traffic, path: &str) -> Result<(), String> {
    let set = [
        ("on_s", tr.on_s.is_some()),
        ("off_s", tr.off_s.is_some()),
        ("interval_ms", tr.interval_ms.is_some()),
        ("payload_bytes", tr.payload_bytes.is_some()),
        ("trace_file", tr.trace_file.is_some()),
    ];
    match set.iter().find(|k| k.1) {
        Some((key, _)) => Err(format!("{path}.{key}: applies to UDP flows only")),
        None => Ok(()),
    }
}

/// The source of one flow of a `[[traffic]]` entry of kind `udp`
/// (validated by [`validate`]).
pub fn build(tr: &Traffic, rng: RngStream) -> Result<Box<dyn Source>, String> {
    // Mean gap between datagrams at the offered load (rate_mbps is
    // validated present and positive for the patterns that need it).
    let gap =
        tr.rate_mbps.map(|r| SimDur::from_secs_f64(tr.msdu_bytes as f64 * 8.0 / (r * 1e6))).unwrap_or(SimDur::ZERO);
    let ms = |x: f64| SimDur::from_secs_f64(x / 1e3);
    Ok(match tr.pattern {
        Pattern::Saturated => Box::new(Saturated { msdu_bytes: tr.msdu_bytes }),
        Pattern::Cbr => Box::new(Cbr { msdu_bytes: tr.msdu_bytes, gap }),
        Pattern::Poisson => Box::new(Poisson { msdu_bytes: tr.msdu_bytes, mean_gap: gap, rng }),
        Pattern::OnOff => Box::new(OnOff::new(
            tr.msdu_bytes,
            gap,
            tr.on_s.unwrap_or(1.0),
            tr.off_s.unwrap_or(1.0),
            tr.on_off_distribution,
            rng,
        )),
        Pattern::Game => {
            let server = tr.direction == Direction::Downlink;
            Box::new(Game::new(server, tr.interval_ms.map(ms), tr.payload_bytes))
        }
        Pattern::Ping => Box::new(Ping::new(tr.interval_ms.map(ms), tr.payload_bytes)),
        Pattern::Trace => {
            let file = tr.trace_file.as_deref().expect("validated: trace_file");
            let frames = trace::load(file).map_err(|e| format!("trace_file: {e}"))?;
            Box::new(TraceSource::new(frames, tr.msdu_bytes - UDP_OVERHEAD))
        }
    })
}
