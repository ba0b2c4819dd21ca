//! Applications that generate packets over UDP: one file per kind, each
//! exporting its descriptor ([`App`]: its `traffic.pattern` name, its own
//! key rows, its checks and its constructor), and one line in [`APPS`] to
//! register it. Building a flow's source ([`build`]), checking an entry
//! ([`check`]), the `[[traffic]]` key table (`config::keys`) and the key
//! reference of docs/scenarios.md all read [`APPS`]. The `[[traffic]]`
//! section itself (serde shape and checks) is [`config`].
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
//! echo responder bound at the flow's destination ([`echo`]) answers each
//! with a reply of the same size, and the source's flow records
//! round-trip times.
//!
//! TCP applications (bulk transfers of a size, such as paper 002's FTP, or
//! without end) live with the TCP endpoints (`crate::endpoints`).
mod cbr;
pub mod config;
pub mod echo;
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

use crate::config::Traffic;
use wifitcp_core::schema::Key;
use wifitcp_core::{RngStream, SimDur, SimTime};

/// The registered applications, in the order docs and messages list them.
/// Adding one: its file with a `pub const APP: App`, a `mod` line above
/// and one entry here.
pub static APPS: &[App] = &[saturated::APP, cbr::APP, poisson::APP, onoff::APP, game::APP, trace::APP, ping::APP];

/// How an application reads `rate_mbps`.
pub enum Rate {
    /// It needs the offered load.
    Required,
    /// It has none; the text is the error when one is given.
    Unused(&'static str),
}

/// An application's constructor: the source of one flow of a checked
/// entry, drawing from the stream given.
pub type Build = fn(&Traffic, RngStream) -> Result<Box<dyn Source>, String>;

/// One UDP application: everything the scenario layer needs to know of it.
pub struct App {
    /// Its `traffic.pattern` name.
    pub name: &'static str,
    /// The keys of [`config::app_keys_set`] it reads (others are errors).
    pub reads: &'static [&'static str],
    pub rate: Rate,
    /// Rows of its own keys (relative to `traffic[]`), for the key table.
    pub keys: &'static [Key],
    /// Checks of its keys; errors are "path.key: reason".
    pub check: fn(&Traffic, &str) -> Result<(), String>,
    pub build: Build,
}

/// An application with no keys of its own to check.
fn no_check(_: &Traffic, _: &str) -> Result<(), String> {
    Ok(())
}

/// Mean gap between datagrams at the entry's offered load (`rate_mbps`,
/// checked present and positive for the applications that need it; zero
/// without one).
fn gap(tr: &Traffic) -> SimDur {
    tr.rate_mbps.map(|r| SimDur::from_secs_f64(tr.msdu_bytes as f64 * 8.0 / (r * 1e6))).unwrap_or(SimDur::ZERO)
}

/// Milliseconds of a scenario key as a duration.
fn ms(x: f64) -> SimDur {
    SimDur::from_secs_f64(x / 1e3)
}

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
/// (msdu_bytes is checked by the caller): no key another application
/// reads, the application's own checks, then `rate_mbps`.
pub fn check(tr: &Traffic, path: &str) -> Result<(), String> {
    let app = tr.pattern.app();
    for (key, set) in config::app_keys_set(tr) {
        if set && !app.reads.contains(&key) {
            let users: Vec<&str> = APPS.iter().filter(|a| a.reads.contains(&key)).map(|a| a.name).collect();
            let list = match users.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("patterns {} and {last}", rest.join(", ")),
                _ => format!("pattern {}", users.join("")),
            };
            return Err(format!("{path}.{key}: used by {list} only"));
        }
    }
    (app.check)(tr, path)?;
    match (&app.rate, tr.rate_mbps) {
        (Rate::Unused(why), Some(_)) => Err(format!("{path}.rate_mbps: {why}")),
        (Rate::Required, None) => Err(format!("{path}.rate_mbps: required for pattern {}", app.name)),
        (_, Some(r)) if !(r.is_finite() && r > 0.0) => Err(format!("{path}.rate_mbps: must be positive, got {r}")),
        _ => Ok(()),
    }
}

/// A TCP `[[traffic]]` entry at `path` sets none of the UDP applications'
/// keys.
pub fn reject_udp_keys(tr: &Traffic, path: &str) -> Result<(), String> {
    match config::app_keys_set(tr).iter().find(|k| k.1) {
        Some((key, _)) => Err(format!("{path}.{key}: applies to UDP flows only")),
        None => Ok(()),
    }
}

/// The source of one flow of a `[[traffic]]` entry of kind `udp`
/// (checked by [`check`]).
pub fn build(tr: &Traffic, rng: RngStream) -> Result<Box<dyn Source>, String> {
    (tr.pattern.app().build)(tr, rng)
}
