//! On-off source: constant bit rate while on, silent while off.
//!
//! Periods alternate on, off, on, ... from the flow's start; each is drawn
//! from `on_off_distribution`: exponential with means `on_s` and `off_s`
//! (the exponential on-off source of ns-2's `Application/Traffic/
//! Exponential` and ns-3's `OnOffApplication` with exponential variables),
//! or exactly `on_s` and `off_s` (`fixed`). While on, a datagram of
//! `msdu_bytes` leaves at the period's start and then every
//! `msdu_bytes * 8 / rate_mbps`, so the offered load averages
//! `rate_mbps * on_s / (on_s + off_s)`. A datagram is sent only if its
//! instant falls inside an on period (a gap that would end after the
//! period does not carry over into the next one).
use super::{rate_keys, required_rate, AppKind, Firing, Source};
use crate::config::{OnOffDistribution, Traffic};
use wifitcp_core::config::ConfigError;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::{RngStream, SimDur, SimTime};

wifitcp_core::config_table! {
    /// `pattern = "on-off"`: `rate_mbps` while on, periods `on_s` and
    /// `off_s` drawn from `on_off_distribution`.
    #[serde(deny_unknown_fields)]
    pub struct OnOffTable {
        use rate_keys;
        /// (Mean) on period.
        #[key(range = wifitcp_core::schema::r(Ex(0.0), In(1e6)), unit = "s", default = "required")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub on_s: Option<f64> = None,
        /// (Mean) off period.
        #[key(range = wifitcp_core::schema::r(Ex(0.0), In(1e6)), unit = "s", default = "required")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub off_s: Option<f64> = None,
        /// "exponential" (periods drawn with means on_s, off_s) or "fixed".
        pub on_off_distribution: OnOffDistribution = OnOffDistribution::Exponential,
    }
}

impl AppKind for OnOffTable {
    /// The rate, and both periods given and positive.
    fn check(&self, _: &Traffic) -> Result<(), ConfigError> {
        for (key, set) in [("on_s", self.on_s), ("off_s", self.off_s)] {
            match set {
                None => return Err(ConfigError::new(key, "required for pattern on-off")),
                Some(x) if !(x.is_finite() && x > 0.0) => {
                    return Err(ConfigError::new(key, format!("must be positive, got {x}")))
                }
                _ => {}
            }
        }
        required_rate(self.rate_mbps, "on-off").map(|_| ())
    }
    fn build(&self, tr: &Traffic, rng: RngStream) -> Result<Box<dyn Source>, ConfigError> {
        let msdu = tr.common.msdu_bytes;
        let gap = super::gap(msdu, self.rate_mbps.expect("checked"));
        let (on, off) = (self.on_s.expect("checked"), self.off_s.expect("checked"));
        Ok(Box::new(OnOff::new(msdu, gap, on, off, self.on_off_distribution, rng)))
    }
}

pub struct OnOff {
    msdu_bytes: u32,
    gap: SimDur,
    on_s: f64,
    off_s: f64,
    dist: OnOffDistribution,
    rng: RngStream,
    /// End of the current on period.
    on_until: SimTime,
}

impl OnOff {
    pub fn new(msdu_bytes: u32, gap: SimDur, on_s: f64, off_s: f64, dist: OnOffDistribution, rng: RngStream) -> Self {
        OnOff { msdu_bytes, gap, on_s, off_s, dist, rng, on_until: SimTime::ZERO }
    }
    fn draw(&mut self, mean: f64) -> SimDur {
        SimDur::from_secs_f64(match self.dist {
            OnOffDistribution::Exponential => self.rng.exponential(mean),
            OnOffDistribution::Fixed => mean,
        })
    }
}

impl Source for OnOff {
    fn kind(&self) -> &'static str {
        "on-off"
    }
    fn start(&mut self, start: SimTime) -> SimTime {
        self.on_until = start + self.draw(self.on_s);
        start
    }
    fn fire(&mut self, now: SimTime) -> Firing {
        let mut next = now + self.gap;
        // Skip whole off/on cycles until `next` falls in an on period (an
        // exponential on period may be shorter than one gap).
        while next >= self.on_until {
            let on_at = self.on_until + self.draw(self.off_s);
            self.on_until = on_at + self.draw(self.on_s);
            next = on_at;
        }
        Firing { msdu_bytes: self.msdu_bytes, next }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_periods_send_only_while_on() {
        // 1 ms gap, on 10 ms, off 30 ms: 10 datagrams at 0..9 ms, then
        // 10 at 40..49 ms, ...
        let mut s =
            OnOff::new(100, SimDur::from_millis(1), 0.010, 0.030, OnOffDistribution::Fixed, RngStream::derive(1, "o"));
        let mut t = s.start(SimTime::ZERO);
        let mut sent = Vec::new();
        while t < SimTime::from_millis(200) {
            sent.push(t.as_nanos() / 1_000_000);
            t = s.fire(t).next;
        }
        let want: Vec<u64> = (0..5).flat_map(|c| (0..10).map(move |k| c * 40 + k)).collect();
        assert_eq!(sent, want);
    }

    #[test]
    fn exponential_duty_cycle_matches_the_means() {
        // on 0.2 s, off 0.6 s mean: a quarter of the CBR count, within
        // about 3 standard errors of the alternating renewal process.
        let mut s = OnOff::new(
            100,
            SimDur::from_millis(1),
            0.2,
            0.6,
            OnOffDistribution::Exponential,
            RngStream::derive(7, "o"),
        );
        let end = SimTime::from_secs(4000);
        let (mut t, mut n) = (s.start(SimTime::ZERO), 0u64);
        while t < end {
            n += 1;
            t = s.fire(t).next;
        }
        let share = n as f64 / 4_000_000.0;
        assert!((share - 0.25).abs() < 0.012, "duty cycle {share}");
    }
}
