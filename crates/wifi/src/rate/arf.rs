//! ARF, Auto Rate Fallback (Kamerman & Monteban, "WaveLAN-II: a
//! high-performance wireless LAN for the unlicensed band", Bell Labs
//! Technical Journal 2(3), 1997), per receiver:
//!
//! - after `success_threshold` (10) consecutive acknowledged attempts, or
//!   when the timer expires, go one rate up; the first attempt at the new
//!   rate is a probe: if it fails, go straight back down;
//! - after 2 consecutive failed attempts (not a probe), go one rate down.
//!
//! Every attempt counts, first transmissions and retries alike (ARF keeps
//! no notion of frames). The timer is counted in attempts since the last
//! rate change, `timer_threshold` (15), as ns-3's ArfWifiManager does
//! (attributes SuccessThreshold 10, TimerThreshold 15); the paper's timer
//! is a wall-clock one and gives no value. The first rate is the lowest
//! (as ns-3).
//!
//! One difference from ns-3's ArfWifiManager, on purpose: after a failed
//! probe ns-3 stays in "recovery" until the next success and does not fall
//! back again however many attempts fail; here (as the paper describes) the
//! failed probe ends the probe, and two more consecutive failures fall back
//! one rate further. The two agree on every sequence in which a success
//! follows a failed probe before two more failures.
//!
//! The same state machine with thresholds that adapt is AARF
//! ([`super::Aarf`]).
use super::{Outcome, RateControl};
use crate::mac::MacAddr;
use crate::phy::Rate;
use wifitcp_core::SimTime;

/// AARF's adaptation of the thresholds (None: plain ARF).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Adapt {
    /// Factor on the success threshold after a failed probe (2).
    pub success_k: f64,
    /// Factor on the timer threshold after a failed probe (2).
    pub timer_k: f64,
    pub max_success: u32,
    pub min_success: u32,
    pub min_timer: u32,
}

/// Per-receiver state.
#[derive(Clone, Copy, Debug, Default)]
struct Link {
    /// Index into the rate list.
    rate: usize,
    /// Consecutive successes and failures.
    success: u32,
    failed: u32,
    /// Attempts since the last rate change.
    timer: u32,
    /// The last rate change was a step up and no attempt has followed.
    probing: bool,
    success_threshold: u32,
    timer_threshold: u32,
}

/// ARF (and, with thresholds that adapt, AARF).
#[derive(Clone, Debug)]
pub struct Arf {
    rates: Vec<Rate>,
    success_threshold: u32,
    timer_threshold: u32,
    adapt: Option<Adapt>,
    links: Vec<Link>,
}

impl Arf {
    /// ARF over `rates` (any order; sorted ascending here), with the
    /// thresholds of ns-3: 10 successes, 15 attempts.
    pub fn new(rates: &[Rate]) -> Arf {
        Arf::with_thresholds(rates, 10, 15)
    }

    pub fn with_thresholds(rates: &[Rate], success_threshold: u32, timer_threshold: u32) -> Arf {
        let mut rates = rates.to_vec();
        rates.sort();
        rates.dedup();
        assert!(!rates.is_empty(), "ARF needs at least one rate");
        Arf { rates, success_threshold, timer_threshold, adapt: None, links: Vec::new() }
    }

    pub(super) fn adaptive(mut self, a: Adapt) -> Arf {
        self.adapt = Some(a);
        self
    }

    fn link(&mut self, ra: MacAddr) -> &mut Link {
        let i = ra.0 as usize;
        if self.links.len() <= i {
            let fresh = Link {
                success_threshold: self.success_threshold,
                timer_threshold: self.timer_threshold,
                ..Link::default()
            };
            self.links.resize(i + 1, fresh);
        }
        &mut self.links[i]
    }

    /// The current success threshold towards `ra` (AARF's adapts).
    pub fn success_threshold(&mut self, ra: MacAddr) -> u32 {
        self.link(ra).success_threshold
    }

    /// The rate the next attempt to `ra` uses.
    pub fn current(&mut self, ra: MacAddr) -> Rate {
        let i = self.link(ra).rate;
        self.rates[i]
    }
}

impl RateControl for Arf {
    fn kind(&self) -> &'static str {
        if self.adapt.is_some() {
            "aarf"
        } else {
            "arf"
        }
    }

    fn data_rate(&mut self, _now: SimTime, ra: MacAddr, _bytes: u32) -> Rate {
        self.current(ra)
    }

    fn on_outcome(&mut self, _now: SimTime, ra: MacAddr, o: Outcome) {
        let top = self.rates.len() - 1;
        let adapt = self.adapt;
        let l = self.link(ra);
        l.timer += 1;
        if o.acked > 0 {
            l.success += 1;
            l.failed = 0;
            l.probing = false;
            if (l.success >= l.success_threshold || l.timer >= l.timer_threshold) && l.rate < top {
                l.rate += 1;
                l.success = 0;
                l.timer = 0;
                l.probing = true;
            }
            return;
        }
        l.success = 0;
        l.failed += 1;
        if l.probing {
            // failed probe: straight back down
            l.probing = false;
            l.failed = 0;
            l.timer = 0;
            l.rate = l.rate.saturating_sub(1);
            if let Some(a) = adapt {
                l.success_threshold = ((l.success_threshold as f64 * a.success_k) as u32).min(a.max_success);
                l.timer_threshold = ((l.timer_threshold as f64 * a.timer_k) as u32).max(a.min_success);
            }
        } else if l.failed >= 2 {
            l.failed = 0;
            l.timer = 0;
            l.rate = l.rate.saturating_sub(1);
            if let Some(a) = adapt {
                l.success_threshold = a.min_success;
                l.timer_threshold = a.min_timer;
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub fn ok(rate: Rate) -> Outcome {
        Outcome { rate, sent: 1, acked: 1, retry: 0 }
    }
    pub fn fail(rate: Rate) -> Outcome {
        Outcome { rate, sent: 1, acked: 0, retry: 0 }
    }
    /// 802.11a's rates.
    pub fn ofdm() -> Vec<Rate> {
        [60, 90, 120, 180, 240, 360, 480, 540].map(Rate).to_vec()
    }

    /// Feeds `script` ('s' success, 'f' failure) and returns the rate
    /// (Mbit/s x 10) before each attempt and after the last.
    pub fn drive(c: &mut dyn RateControl, script: &str) -> Vec<u32> {
        let ra = MacAddr(1);
        let mut out = Vec::new();
        for (i, ch) in script.chars().enumerate() {
            let t = SimTime::from_millis(i as u64);
            let r = c.data_rate(t, ra, 1500);
            out.push(r.0);
            c.on_outcome(t, ra, if ch == 's' { ok(r) } else { fail(r) });
        }
        out.push(c.data_rate(SimTime::from_secs(1000), ra, 1500).0);
        out
    }

    #[test]
    fn steps_up_after_10_successes_and_down_after_2_failures() {
        let mut a = Arf::new(&ofdm());
        let r = drive(&mut a, "ssssssssss");
        assert_eq!(r[..10], [60; 10]);
        assert_eq!(r[10], 90, "up after the 10th success");
        // one failure keeps the rate, the second in a row steps down
        let mut a = Arf::new(&ofdm());
        let r = drive(&mut a, &("s".repeat(10) + "s" + "f" + "s" + "ff"));
        assert_eq!(r[10..], [90, 90, 90, 90, 90, 60]);
    }

    #[test]
    fn a_failed_probe_falls_back_at_once() {
        let mut a = Arf::new(&ofdm());
        let r = drive(&mut a, &("s".repeat(10) + "f"));
        assert_eq!(r[10], 90, "the probe");
        assert_eq!(r[11], 60, "back after one failure");
        // and 10 more successes probe again (plain ARF does not adapt)
        let r = drive(&mut a, &"s".repeat(10));
        assert_eq!(r[10], 90);
        assert_eq!(a.kind(), "arf");
    }

    #[test]
    fn the_timer_steps_up_after_15_attempts_without_2_failures_in_a_row() {
        // s f s f ...: never 10 successes in a row, never 2 failures in a
        // row; the 15th attempt at a rate triggers the step (ns-3's
        // TimerThreshold counts attempts).
        let mut a = Arf::new(&ofdm());
        let r = drive(&mut a, &"sf".repeat(7));
        assert_eq!(r[..14], [60; 14]);
        assert_eq!(r[14], 60, "14 attempts: a failure last, no step");
        let r = drive(&mut a, "s");
        assert_eq!(r[1], 90, "the 15th attempt (a success) steps up");
    }

    #[test]
    fn stays_within_the_rate_set_and_keeps_receivers_apart() {
        let mut a = Arf::new(&ofdm());
        let r = drive(&mut a, &"f".repeat(20));
        assert!(r.iter().all(|&x| x == 60));
        let r = drive(&mut a, &"s".repeat(200));
        assert_eq!(*r.last().unwrap(), 540);
        assert!(r.iter().filter(|&&x| x == 540).count() > 100);
        // another receiver starts from the lowest rate
        assert_eq!(a.data_rate(SimTime::ZERO, MacAddr(7), 1500), Rate(60));
    }
}
