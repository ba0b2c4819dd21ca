//! Ping: an echo request every `interval_ms` (default 1 s, as ping(8)),
//! `payload_bytes` of data each (default 56, ping(8)'s default data size).
//!
//! The requests are UDP datagrams to the echo port (RFC 862, port 7), not
//! ICMP echo messages (RFC 792): the packet model carries IPv4 with UDP or
//! TCP only. On the air and on the wire the two differ by the transport
//! header alone (UDP 8 bytes, ICMP echo 8 bytes), so a UDP echo of
//! `payload_bytes` has the size of an ICMP echo of the same data. The
//! destination answers each request with a reply of the same size, sent
//! through its own queues like any packet; the reply carries the request's
//! send time (ping(8) carries it in the echoed data), from which the
//! source's flow records the round-trip time.
use super::{check_periodic, periodic_keys, AppKind, Firing, Source, UDP_OVERHEAD};
use crate::config::Traffic;
use wifitcp_core::config::ConfigError;
use wifitcp_core::{RngStream, SimDur, SimTime};

/// ping(8)'s default interval.
pub const DEFAULT_INTERVAL: SimDur = SimDur::from_nanos(1_000_000_000);
/// ping(8)'s default data bytes.
pub const DEFAULT_PAYLOAD: u32 = 56;

wifitcp_core::config_table! {
    /// `pattern = "ping"`.
    #[serde(deny_unknown_fields)]
    pub struct PingTable {
        use periodic_keys;
    }
}

impl AppKind for PingTable {
    fn check(&self, _: &Traffic) -> Result<(), ConfigError> {
        check_periodic(self.interval_ms, self.payload_bytes)
    }
    fn build(&self, _: &Traffic, _: RngStream) -> Result<Box<dyn Source>, ConfigError> {
        Ok(Box::new(Ping::new(self.interval_ms.map(super::ms), self.payload_bytes)))
    }
}

pub struct Ping {
    pub msdu_bytes: u32,
    pub interval: SimDur,
}

impl Ping {
    pub fn new(interval: Option<SimDur>, payload: Option<u32>) -> Self {
        Ping {
            msdu_bytes: payload.unwrap_or(DEFAULT_PAYLOAD) + UDP_OVERHEAD,
            interval: interval.unwrap_or(DEFAULT_INTERVAL),
        }
    }
}

impl Source for Ping {
    fn kind(&self) -> &'static str {
        "ping"
    }
    fn echo(&self) -> bool {
        true
    }
    fn fire(&mut self, now: SimTime) -> Firing {
        Firing { msdu_bytes: self.msdu_bytes, next: now + self.interval }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_ping8s() {
        let mut p = Ping::new(None, None);
        assert!(p.echo());
        assert_eq!(p.fire(SimTime::ZERO), Firing { msdu_bytes: 92, next: SimTime::from_millis(1000) });
        let p = Ping::new(Some(SimDur::from_millis(200)), Some(0));
        assert_eq!((p.msdu_bytes, p.interval), (36, SimDur::from_millis(200)));
    }
}
