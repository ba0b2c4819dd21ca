//! A saturated source: a datagram whenever its station's MAC can take one
//! and its queue is empty (the run loop asks; the source never fires on
//! its own). A wired saturated source is not modelled (use cbr above the
//! link rate).
use wifitcp_core::ConfigError;
use super::{AppKind, Firing, Source};
use crate::config::Traffic;
use wifitcp_core::RngStream;
use wifitcp_core::SimTime;

wifitcp_core::config_table! {
    /// `pattern = "saturated"`: no keys of its own, no rate.
    #[serde(deny_unknown_fields)]
    pub struct SaturatedTable {}
}

impl AppKind for SaturatedTable {
    fn build(&self, tr: &Traffic, _: RngStream) -> Result<Box<dyn Source>, ConfigError> {
        Ok(Box::new(Saturated { msdu_bytes: tr.common.msdu_bytes }))
    }
}

pub struct Saturated {
    pub msdu_bytes: u32,
}

impl Source for Saturated {
    fn kind(&self) -> &'static str {
        "saturated"
    }
    fn saturated(&self) -> Option<u32> {
        Some(self.msdu_bytes)
    }
    fn fire(&mut self, _now: SimTime) -> Firing {
        unreachable!("a saturated source's packets are asked for (`saturated`), never fired")
    }
}
