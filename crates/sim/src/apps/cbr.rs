//! Constant bit rate: one datagram of a fixed size every `gap`.
use super::{rate_keys, required_rate, AppKind, Firing, Source};
use crate::config::Traffic;
use wifitcp_core::config::ConfigError;
use wifitcp_core::{RngStream, SimDur, SimTime};

pub struct Cbr {
    pub msdu_bytes: u32,
    pub gap: SimDur,
}

impl Source for Cbr {
    fn kind(&self) -> &'static str {
        "cbr"
    }
    fn fire(&mut self, now: SimTime) -> Firing {
        Firing { msdu_bytes: self.msdu_bytes, next: now + self.gap }
    }
}

wifitcp_core::config_table! {
    /// `pattern = "cbr"`, at `rate_mbps`.
    #[serde(deny_unknown_fields)]
    pub struct CbrTable {
        use rate_keys;
    }
}

impl AppKind for CbrTable {
    fn check(&self, _: &Traffic) -> Result<(), ConfigError> {
        required_rate(self.rate_mbps, "cbr").map(|_| ())
    }
    fn build(&self, tr: &Traffic, _: RngStream) -> Result<Box<dyn Source>, ConfigError> {
        let msdu_bytes = tr.common.msdu_bytes;
        Ok(Box::new(Cbr { msdu_bytes, gap: super::gap(msdu_bytes, self.rate_mbps.expect("checked")) }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_every_gap() {
        let mut c = Cbr { msdu_bytes: 1000, gap: SimDur::from_millis(4) };
        let f = c.fire(SimTime::from_millis(10));
        assert_eq!(f, Firing { msdu_bytes: 1000, next: SimTime::from_millis(14) });
    }
}
