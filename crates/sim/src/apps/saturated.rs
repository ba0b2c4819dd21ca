//! A saturated source: a datagram whenever its station's MAC can take one
//! and its queue is empty (the run loop asks; the source never fires on
//! its own). A wired saturated source is not modelled (use cbr above the
//! link rate).
use super::{App, Firing, Rate, Source};
use wifitcp_core::SimTime;

/// Registration: pattern "saturated", no keys of its own, no rate.
pub const APP: App = App {
    name: "saturated",
    reads: &[],
    rate: Rate::Unused("not used by a saturated source"),
    keys: &[],
    check: super::no_check,
    build: |tr, _| Ok(Box::new(Saturated { msdu_bytes: tr.msdu_bytes })),
};

pub struct Saturated {
    pub msdu_bytes: u32,
}

impl Source for Saturated {
    fn kind(&self) -> &'static str {
        "saturated"
    }
    fn saturated(&self) -> bool {
        true
    }
    fn fire(&mut self, _now: SimTime) -> Firing {
        Firing { msdu_bytes: self.msdu_bytes, next: SimTime::NEVER }
    }
}
