//! Game traffic as Janevski & Petrov model it (paper 002, section 3,
//! after Palazzi et al., their ref. [11]): the client sends an event every
//! 60 ms with a 42-byte payload, the server an update every 50 ms with a
//! 200-byte payload, both at a fixed period. A `[[traffic]]` entry of
//! pattern `game` is the client's stream when its direction is `uplink`
//! (station to peer) and the server's when `downlink`; paper 002's Table 2
//! lists them as two rows (A1 -> n1 from 10 s, n1 -> A1 from 10.1 s), and
//! the scenarios do the same. `interval_ms` and `payload_bytes` override
//! the paper's values.
use super::{check_periodic, periodic_keys, AppKind, Firing, Source, UDP_OVERHEAD};
use crate::config::{Direction, Traffic};
use wifitcp_core::config::ConfigError;
use wifitcp_core::{RngStream, SimDur, SimTime};

/// Client event period (paper 002: "every 60ms").
pub const CLIENT_INTERVAL: SimDur = SimDur::from_nanos(60_000_000);
/// Client event payload (paper 002: "42Bytes").
pub const CLIENT_PAYLOAD: u32 = 42;
/// Server update period (paper 002: "every 50ms").
pub const SERVER_INTERVAL: SimDur = SimDur::from_nanos(50_000_000);
/// Server update payload (paper 002: "200Bytes").
pub const SERVER_PAYLOAD: u32 = 200;

wifitcp_core::config_table! {
    /// `pattern = "game"`: the server's stream downlink and the client's
    /// uplink.
    #[serde(deny_unknown_fields)]
    pub struct GameTable {
        use periodic_keys;
    }
}

impl AppKind for GameTable {
    fn check(&self, _: &Traffic) -> Result<(), ConfigError> {
        check_periodic(self.interval_ms, self.payload_bytes)
    }
    fn build(&self, tr: &Traffic, _: RngStream) -> Result<Box<dyn Source>, ConfigError> {
        let server = tr.common.direction == Direction::Downlink;
        Ok(Box::new(Game::new(server, self.interval_ms.map(super::ms), self.payload_bytes)))
    }
}

pub struct Game {
    pub msdu_bytes: u32,
    pub interval: SimDur,
}

impl Game {
    /// The server's (`server`) or the client's stream, with the paper's
    /// period and payload unless given.
    pub fn new(server: bool, interval: Option<SimDur>, payload: Option<u32>) -> Self {
        let (i, b) = if server { (SERVER_INTERVAL, SERVER_PAYLOAD) } else { (CLIENT_INTERVAL, CLIENT_PAYLOAD) };
        Game { msdu_bytes: payload.unwrap_or(b) + UDP_OVERHEAD, interval: interval.unwrap_or(i) }
    }
}

impl Source for Game {
    fn kind(&self) -> &'static str {
        "game"
    }
    fn fire(&mut self, now: SimTime) -> Firing {
        Firing { msdu_bytes: self.msdu_bytes, next: now + self.interval }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_002_defaults() {
        let mut c = Game::new(false, None, None);
        let f = c.fire(SimTime::from_millis(10));
        assert_eq!(f, Firing { msdu_bytes: 42 + 36, next: SimTime::from_millis(70) });
        let mut s = Game::new(true, None, None);
        let f = s.fire(SimTime::from_millis(10));
        assert_eq!(f, Firing { msdu_bytes: 200 + 36, next: SimTime::from_millis(60) });
        let o = Game::new(true, Some(SimDur::from_millis(20)), Some(100));
        assert_eq!((o.msdu_bytes, o.interval), (136, SimDur::from_millis(20)));
    }
}
