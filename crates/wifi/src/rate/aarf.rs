//! AARF, Adaptive ARF (Lacage, Manshaei & Turletti, "IEEE 802.11 rate
//! adaptation: a practical approach", MSWiM 2004): ARF ([`super::Arf`])
//! whose thresholds adapt to how long a higher rate keeps failing:
//!
//! - a failed probe (the first attempt after a step up) multiplies the
//!   success threshold by 2 (bounded by 50, the paper's bound) and the
//!   timer threshold by 2 (at least the minimum success threshold, as
//!   ns-3's AarfWifiManager);
//! - a fallback after 2 consecutive failures resets them to 10 and 15.
//!
//! ns-3's AarfWifiManager has the same rules with attributes SuccessK 2,
//! TimerK 2, MinSuccessThreshold 10, MinTimerThreshold 15 and
//! MaxSuccessThreshold 60 (where the paper bounds the threshold at 50; the
//! bound is [`Aarf::with_max_success`]). The difference from ns-3 after a
//! failed probe is ARF's (see arf.rs).
use super::arf::Adapt;
use super::{Arf, Outcome, RateControl};
use crate::mac::MacAddr;
use crate::phy::Rate;
use wifitcp_core::SimTime;

#[derive(Clone, Debug)]
pub struct Aarf(Arf);

impl Aarf {
    pub fn new(rates: &[Rate]) -> Aarf {
        Aarf::with_max_success(rates, 50)
    }

    pub fn with_max_success(rates: &[Rate], max_success: u32) -> Aarf {
        let adapt = Adapt { success_k: 2.0, timer_k: 2.0, max_success, min_success: 10, min_timer: 15 };
        Aarf(Arf::with_thresholds(rates, 10, 15).adaptive(adapt))
    }

    /// The current success threshold towards `ra`.
    pub fn success_threshold(&mut self, ra: MacAddr) -> u32 {
        self.0.success_threshold(ra)
    }
}

impl RateControl for Aarf {
    fn kind(&self) -> &'static str {
        self.0.kind()
    }
    fn data_rate(&mut self, now: SimTime, ra: MacAddr, bytes: u32) -> Rate {
        self.0.data_rate(now, ra, bytes)
    }
    fn on_outcome(&mut self, now: SimTime, ra: MacAddr, o: Outcome) {
        self.0.on_outcome(now, ra, o)
    }
}

#[cfg(test)]
mod tests {
    use super::super::arf::tests::{drive, ofdm};
    use super::*;

    #[test]
    fn a_failed_probe_doubles_the_threshold_up_to_the_bound() {
        let mut a = Aarf::new(&ofdm());
        let ra = MacAddr(1);
        assert_eq!(a.kind(), "aarf");
        let r = drive(&mut a, &("s".repeat(10) + "f"));
        assert_eq!((r[10], r[11]), (90, 60), "probe at 9, back to 6");
        assert_eq!(a.success_threshold(ra), 20);
        // now 19 successes are not enough (ARF would have probed after 10)
        let r = drive(&mut a, &"s".repeat(19));
        assert!(r.iter().all(|&x| x == 60), "{r:?}");
        let r = drive(&mut a, &("s".to_string() + "f"));
        assert_eq!((r[1], r[2]), (90, 60), "the 20th success probes; it fails");
        assert_eq!(a.success_threshold(ra), 40);
        drive(&mut a, &("s".repeat(40) + "f"));
        assert_eq!(a.success_threshold(ra), 50, "bounded by 50");
        drive(&mut a, &("s".repeat(50) + "f"));
        assert_eq!(a.success_threshold(ra), 50);
    }

    #[test]
    fn two_failures_reset_the_thresholds() {
        let mut a = Aarf::new(&ofdm());
        let ra = MacAddr(1);
        drive(&mut a, &("s".repeat(10) + "f")); // threshold 20
                                                // the probe that succeeds (at the 20th) keeps the rate up; two
                                                // failures in a row there fall back and reset the threshold
        let r = drive(&mut a, &("s".repeat(20) + "s" + "ff"));
        assert_eq!(r[20], 90);
        assert_eq!(r[23], 60);
        assert_eq!(a.success_threshold(ra), 10);
        // ns-3's bound of 60 instead of the paper's 50
        let mut b = Aarf::with_max_success(&ofdm(), 60);
        for _ in 0..4 {
            let n = b.success_threshold(ra) as usize;
            drive(&mut b, &("s".repeat(n) + "f"));
        }
        assert_eq!(b.success_threshold(ra), 60);
    }
}
