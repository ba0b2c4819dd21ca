//! Real-time lag: how late, in wall-clock time, each simulated event was
//! handled (and each packet written out) after the instant it was due.
//!
//! Invariant: a sample is `wall - due >= 0` in nanoseconds (an event is
//! never handled before its instant: the loop steps only to the present).
//! Samples are kept exactly (4 bytes each, at most `MAX_SAMPLES`; past that
//! every other one is kept, doubling the stride), so p50/p99/max are exact
//! order statistics of what was kept; the maximum is always exact.
use serde_json::{json, Value};

/// At most this many samples are kept (64 MiB).
pub const MAX_SAMPLES: usize = 16 << 20;

#[derive(Default)]
pub struct Lag {
    samples: Vec<u32>,
    stride: u64,
    seen: u64,
    max: u64,
}

impl Lag {
    pub fn new() -> Lag {
        Lag { samples: Vec::new(), stride: 1, seen: 0, max: 0 }
    }

    pub fn record(&mut self, ns: u64) {
        self.max = self.max.max(ns);
        if self.seen.is_multiple_of(self.stride) {
            if self.samples.len() >= MAX_SAMPLES {
                let mut k = 0;
                self.samples.retain(|_| {
                    k += 1;
                    k % 2 == 1
                });
                self.stride *= 2;
            }
            self.samples.push(ns.min(u32::MAX as u64) as u32);
        }
        self.seen += 1;
    }

    pub fn count(&self) -> u64 {
        self.seen
    }

    /// The `q` quantile in nanoseconds (nearest rank), 0 with no samples.
    pub fn quantile(&self, q: f64) -> u64 {
        let mut v = self.samples.clone();
        if v.is_empty() {
            return 0;
        }
        let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
        let (_, x, _) = v.select_nth_unstable(rank);
        *x as u64
    }

    pub fn max(&self) -> u64 {
        self.max
    }

    pub fn json(&self) -> Value {
        let ms = |ns: u64| ns as f64 / 1e6;
        json!({
            "samples": self.seen,
            "p50_ms": ms(self.quantile(0.5)),
            "p99_ms": ms(self.quantile(0.99)),
            "max_ms": ms(self.max),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_order_statistics() {
        let mut l = Lag::new();
        for x in (1..=1000u64).rev() {
            l.record(x * 1000);
        }
        assert_eq!(l.quantile(0.5), 500_000);
        assert_eq!(l.quantile(0.99), 990_000);
        assert_eq!(l.max(), 1_000_000);
        assert_eq!(l.count(), 1000);
        assert_eq!(Lag::new().quantile(0.99), 0);
    }
}
