//! A saturated source: a datagram whenever its station's MAC can take one
//! and its queue is empty (the run loop asks; the source never fires on
//! its own). A wired saturated source is not modelled (use cbr above the
//! link rate).
use super::{Firing, Source};
use wifitcp_core::SimTime;

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
