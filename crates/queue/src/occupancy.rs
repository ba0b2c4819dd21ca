//! Queue occupancy summary with bounded memory.
//!
//! Exact statistics: time-weighted mean of packets and bytes held since the
//! first update, and the maxima. Approximate picture: a time series of
//! `(instant, packets)` sampled on change, at most one sample per
//! `min_interval`; when it reaches `max_samples` entries every second sample
//! is discarded and the interval doubles, so memory stays below
//! `max_samples` entries whatever the run length.
//!
//! Invariant: the series' first sample is the first update (the first
//! update always samples, and thinning keeps every other sample from the
//! first on), so it also marks where the time-weighted means start.
use serde::Serialize;
use wifitcp_core::{SimDur, SimTime};

/// Default minimum spacing of series samples.
pub const DEFAULT_SAMPLE_INTERVAL: SimDur = SimDur::from_millis(1);
/// Default bound on the number of series samples.
pub const DEFAULT_MAX_SAMPLES: usize = 4096;

#[derive(Clone, Debug, Serialize)]
pub struct Occupancy {
    last_t: SimTime,
    last_len: u32,
    last_bytes: u64,
    /// Integral of packets held over time (packet-nanoseconds).
    area_pkts: u128,
    area_bytes: u128,
    max_len: u32,
    max_bytes: u64,
    series: Vec<(SimTime, u32)>,
    interval: SimDur,
    max_samples: usize,
}

impl Default for Occupancy {
    fn default() -> Self {
        Occupancy::new(DEFAULT_SAMPLE_INTERVAL, DEFAULT_MAX_SAMPLES)
    }
}

impl Occupancy {
    pub fn new(min_interval: SimDur, max_samples: usize) -> Self {
        assert!(max_samples >= 2, "occupancy series needs at least 2 samples");
        Occupancy {
            last_t: SimTime::ZERO,
            last_len: 0,
            last_bytes: 0,
            area_pkts: 0,
            area_bytes: 0,
            max_len: 0,
            max_bytes: 0,
            series: Vec::new(),
            interval: min_interval,
            max_samples,
        }
    }

    /// Record that the discipline holds `len` packets / `bytes` bytes from
    /// `now` on. Call after every operation that may change them.
    #[inline]
    pub fn update(&mut self, now: SimTime, len: usize, bytes: u64) {
        let len = len as u32;
        // (before the first update nothing was held: the areas gain 0)
        let dt = now.since(self.last_t).as_nanos() as u128;
        self.area_pkts += dt * self.last_len as u128;
        self.area_bytes += dt * self.last_bytes as u128;
        self.last_t = now;
        self.max_bytes = self.max_bytes.max(bytes);
        self.last_bytes = bytes;
        if len != self.last_len || self.series.is_empty() {
            self.max_len = self.max_len.max(len);
            self.last_len = len;
            self.sample(now, len);
        }
    }

    /// The held count changed to `len` at `now` (or this is the first
    /// update): a series sample if one is due, thinning a full series.
    fn sample(&mut self, now: SimTime, len: u32) {
        let due = match self.series.last() {
            None => true,
            Some(&(t, _)) => now >= t + self.interval,
        };
        if due {
            self.series.push((now, len));
            if self.series.len() >= self.max_samples {
                let kept: Vec<_> = self.series.iter().copied().step_by(2).collect();
                self.series = kept;
                self.interval = self.interval * 2;
            }
        }
    }

    /// Time-weighted mean packets held over `[first update, now]`.
    pub fn mean_len(&self, now: SimTime) -> f64 {
        self.mean(now, self.area_pkts, self.last_len as u128)
    }
    /// Time-weighted mean bytes held over `[first update, now]`.
    pub fn mean_bytes(&self, now: SimTime) -> f64 {
        self.mean(now, self.area_bytes, self.last_bytes as u128)
    }
    fn mean(&self, now: SimTime, area: u128, last: u128) -> f64 {
        let Some(&(first, _)) = self.series.first() else { return 0.0 };
        let total = now.saturating_since(first).as_nanos() as u128;
        if total == 0 {
            return last as f64;
        }
        let tail = now.saturating_since(self.last_t).as_nanos() as u128;
        (area + tail * last) as f64 / total as f64
    }
    pub fn max_len(&self) -> u32 {
        self.max_len
    }
    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }
    pub fn current_len(&self) -> u32 {
        self.last_len
    }
    /// Sampled `(instant, packets)` series (see the module docs).
    pub fn series(&self) -> &[(SimTime, u32)] {
        &self.series
    }
    /// Current spacing of series samples (grows when the series is thinned).
    pub fn sample_interval(&self) -> SimDur {
        self.interval
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_weighted_mean_and_max() {
        let mut o = Occupancy::default();
        o.update(SimTime::from_millis(0), 0, 0);
        o.update(SimTime::from_millis(10), 4, 400); // 0 for 10 ms
        o.update(SimTime::from_millis(20), 2, 200); // 4 for 10 ms
                                                    // 2 for 20 ms up to t = 40 ms: (0*10 + 4*10 + 2*20) / 40 = 2
        assert!((o.mean_len(SimTime::from_millis(40)) - 2.0).abs() < 1e-12);
        assert!((o.mean_bytes(SimTime::from_millis(40)) - 200.0).abs() < 1e-9);
        assert_eq!(o.max_len(), 4);
        assert_eq!(o.max_bytes(), 400);
    }

    #[test]
    fn series_memory_is_bounded() {
        let mut o = Occupancy::new(SimDur::from_micros(1), 64);
        for i in 0..100_000u64 {
            o.update(SimTime::from_micros(i * 10), (i % 7) as usize, 0);
        }
        assert!(o.series().len() < 64);
        assert!(o.sample_interval() > SimDur::from_micros(1));
        // samples stay in time order
        assert!(o.series().windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn samples_respect_min_interval() {
        let mut o = Occupancy::new(SimDur::from_millis(1), 1000);
        for i in 0..100u64 {
            o.update(SimTime::from_micros(i * 100), (i % 2) as usize, 0);
        }
        // 10 ms of changes every 100 us -> about one sample per ms
        assert!(o.series().len() <= 11, "{}", o.series().len());
        assert!(o.series().windows(2).all(|w| w[1].0 - w[0].0 >= SimDur::from_millis(1)));
    }
}
