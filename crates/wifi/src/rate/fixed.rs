//! One rate for every frame (the `phy.data_rate_mbps` key): the model of
//! every reproduction that states its rate.
use super::{Outcome, RateControl};
use crate::mac::MacAddr;
use crate::phy::Rate;
use wifitcp_core::SimTime;

#[derive(Clone, Copy, Debug)]
pub struct FixedRate(pub Rate);

impl RateControl for FixedRate {
    fn kind(&self) -> &'static str {
        "fixed"
    }
    fn data_rate(&mut self, _now: SimTime, _ra: MacAddr, _bytes: u32) -> Rate {
        self.0
    }
    fn on_outcome(&mut self, _now: SimTime, _ra: MacAddr, _o: Outcome) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_rate_ignores_outcomes() {
        let mut f = FixedRate(Rate(540));
        let t = SimTime::ZERO;
        assert_eq!(f.data_rate(t, MacAddr(1), 1500), Rate(540));
        f.on_outcome(t, MacAddr(1), Outcome { rate: Rate(540), sent: 1, acked: 0, retry: 0 });
        assert_eq!(f.data_rate(t, MacAddr(1), 1500), Rate(540));
        assert_eq!(f.kind(), "fixed");
    }
}
