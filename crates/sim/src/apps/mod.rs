//! Applications that generate packets over UDP: one file per kind, each
//! declaring its own `[[traffic]]` keys as a table struct
//! (`wifitcp_core::config_table!`, rows derived from the declaration; keys
//! several applications read are one `config_group!`) and implementing
//! [`AppKind`] for it (its checks and its constructor), and one line in
//! [`AppConfig`]'s registration list. Building a flow's source
//! ([`build`]), checking an entry ([`check`]), the `[[traffic]]` key table
//! (`config::keys`) and the key reference of docs/scenarios.md all read
//! that list. The `[[traffic]]` section itself (the keys every entry has,
//! the split of an entry into them and its application's table) is
//! [`config`].
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
pub mod config;
pub mod echo;

pub use cbr::Cbr;
pub use game::Game;
pub use onoff::OnOff;
pub use ping::Ping;
pub use poisson::Poisson;
pub use saturated::Saturated;
pub use trace::TraceSource;

use crate::config::Traffic;
use wifitcp_core::config::ConfigError;
use wifitcp_core::{RngStream, SimDur, SimTime};

wifitcp_core::config_kinds! {
    /// The registered UDP applications (`traffic.pattern`), in the order
    /// docs and messages list them; the first is the default. Adding one:
    /// its file (table struct and [`AppKind`] impl) and one line here.
    pub enum AppConfig: tag "pattern", dyn AppKind {
        /// A datagram whenever the station's MAC can take one.
        "saturated" => Saturated(saturated::SaturatedTable) mod saturated,
        /// Constant bit rate.
        "cbr" => Cbr(cbr::CbrTable) mod cbr,
        /// Exponential gaps.
        "poisson" => Poisson(poisson::PoissonTable) mod poisson,
        /// Constant bit rate while on, silent while off.
        "on-off" => OnOff(onoff::OnOffTable) mod onoff,
        /// Paper 002's game traffic.
        "game" => Game(game::GameTable) mod game,
        /// Datagrams from a trace file.
        "trace" => Trace(trace::TraceTable) mod trace,
        /// UDP echo requests (ping(8)'s sizes and interval).
        "ping" => Ping(ping::PingTable) mod ping,
    }
}

/// One UDP application: its checks and its constructor.
pub trait AppKind {
    /// Checks of its keys (and of the entry as it needs it); paths are
    /// relative to the entry (`rate_mbps`).
    fn check(&self, _: &Traffic) -> Result<(), ConfigError> {
        Ok(())
    }
    /// The source of one flow of a checked entry, drawing from `rng`.
    fn build(&self, tr: &Traffic, rng: RngStream) -> Result<Box<dyn Source>, ConfigError>;
}

wifitcp_core::config_group! {
    /// The offered load, which the rate-driven applications need.
    macro rate_keys {
        /// Offered load per flow, at most 10 Gbit/s (a packet interval of at least 28.8 ns).
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::Ex(0.0), wifitcp_core::schema::B::In(1e4)), unit = "Mbit/s", default = "required")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub rate_mbps: Option<f64> = None,
    }
}

wifitcp_core::config_group! {
    /// Period and size of the periodic applications of a fixed datagram
    /// size (game, ping); their defaults are each application's.
    macro periodic_keys {
        /// Time between datagrams (game: paper 002; ping: ping(8)).
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::In(0.001), wifitcp_core::schema::B::In(1e9)), unit = "ms", default = "game 60 up / 50 down; ping 1000")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub interval_ms: Option<f64> = None,
        /// UDP payload (game: paper 002; ping: ping(8)).
        #[key(range = wifitcp_core::schema::r(wifitcp_core::schema::B::In(0.0), wifitcp_core::schema::B::In(2268.0)), unit = "bytes", default = "game 42 up / 200 down; ping 56")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub payload_bytes: Option<u32> = None,
    }
}

/// `rate_mbps` of a rate-driven application: given and positive.
fn required_rate(rate: Option<f64>, pattern: &str) -> Result<f64, ConfigError> {
    match rate {
        None => Err(ConfigError::new("rate_mbps", format!("required for pattern {pattern}"))),
        Some(r) if !(r.is_finite() && r > 0.0) => {
            Err(ConfigError::new("rate_mbps", format!("must be positive, got {r}")))
        }
        Some(r) => Ok(r),
    }
}

/// `interval_ms` and `payload_bytes` of a periodic application.
fn check_periodic(interval_ms: Option<f64>, payload_bytes: Option<u32>) -> Result<(), ConfigError> {
    if let Some(x) = interval_ms {
        if !(x.is_finite() && x > 0.0) {
            return Err(ConfigError::new("interval_ms", format!("must be positive, got {x}")));
        }
    }
    if let Some(b) = payload_bytes {
        if b + UDP_OVERHEAD > 2304 {
            return Err(ConfigError::new(
                "payload_bytes",
                format!("at most {} (an MSDU of at most 2304 bytes), got {b}", 2304 - UDP_OVERHEAD),
            ));
        }
    }
    Ok(())
}

/// Mean gap between datagrams of `msdu_bytes` at `rate_mbps`.
fn gap(msdu_bytes: u32, rate_mbps: f64) -> SimDur {
    SimDur::from_secs_f64(msdu_bytes as f64 * 8.0 / (rate_mbps * 1e6))
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
    /// True: the MAC asks for its packets (see the module docs), each of
    /// the traffic's `msdu_bytes` (which the station holds beside its
    /// flow, `Cells::feed`), and `fire` is not called. False: the source
    /// fires on its own schedule.
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

/// Check the application of a UDP `[[traffic]]` entry at `path`
/// (msdu_bytes is checked by the caller; a key of another application is
/// refused on the document, `crate::config::schema`).
pub fn check(tr: &Traffic, path: &str) -> Result<(), ConfigError> {
    tr.app.get().check(tr).map_err(|e| e.under(path))
}

/// The source of one flow of a `[[traffic]]` entry of kind `udp`
/// (checked by [`check`]).
pub fn build(tr: &Traffic, rng: RngStream) -> Result<Box<dyn Source>, ConfigError> {
    tr.app.get().build(tr, rng)
}
