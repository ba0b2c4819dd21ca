//! Constant bit rate: one datagram of a fixed size every `gap`.
use super::{App, Firing, Rate, Source};
use wifitcp_core::{SimDur, SimTime};

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

/// Registration: pattern "cbr", at `rate_mbps`.
pub const APP: App = App {
    name: "cbr",
    reads: &[],
    rate: Rate::Required,
    keys: &[],
    check: super::no_check,
    build: |tr, _| Ok(Box::new(Cbr { msdu_bytes: tr.msdu_bytes, gap: super::gap(tr) })),
};

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
