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
    fn build(&self, _: &Traffic, _: RngStream) -> Result<Box<dyn Source>, ConfigError> {
        Ok(Box::new(Saturated))
    }
}

/// Zero-sized: its MSDU size is the traffic's (`traffic.msdu_bytes`), which
/// the station holds beside the flow, so boxing one allocates nothing (a
/// campus has one per station).
pub struct Saturated;

impl Source for Saturated {
    fn kind(&self) -> &'static str {
        "saturated"
    }
    fn saturated(&self) -> bool {
        true
    }
    fn fire(&mut self, _now: SimTime) -> Firing {
        unreachable!("a saturated source's packets are asked for (`saturated`), never fired")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_saturated_source_boxes_to_nothing() {
        // (a campus boxes one per station: a zero-sized box allocates nothing)
        assert_eq!(std::mem::size_of::<super::Saturated>(), 0);
    }
}
