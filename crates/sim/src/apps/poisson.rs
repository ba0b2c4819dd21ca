//! Poisson arrivals: exponentially distributed gaps with a given mean,
//! fixed-size datagrams.
use super::{App, Firing, Rate, Source};
use wifitcp_core::{RngStream, SimDur, SimTime};

/// Registration: pattern "poisson", at a mean of `rate_mbps`.
pub const APP: App = App {
    name: "poisson",
    reads: &[],
    rate: Rate::Required,
    keys: &[],
    check: super::no_check,
    build: |tr, rng| Ok(Box::new(Poisson { msdu_bytes: tr.msdu_bytes, mean_gap: super::gap(tr), rng })),
};

pub struct Poisson {
    pub msdu_bytes: u32,
    pub mean_gap: SimDur,
    pub rng: RngStream,
}

impl Source for Poisson {
    fn kind(&self) -> &'static str {
        "poisson"
    }
    fn fire(&mut self, now: SimTime) -> Firing {
        let gap = SimDur::from_secs_f64(self.rng.exponential(self.mean_gap.as_secs_f64()));
        Firing { msdu_bytes: self.msdu_bytes, next: now + gap }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_gap_within_three_standard_errors() {
        let mut p = Poisson { msdu_bytes: 100, mean_gap: SimDur::from_millis(2), rng: RngStream::derive(1, "p") };
        let (n, mut t) = (20_000u64, SimTime::ZERO);
        for _ in 0..n {
            t = p.fire(t).next;
        }
        // exponential gaps: standard deviation = mean, so the mean of n
        // gaps has a standard error of mean / sqrt(n)
        let mean = t.as_secs_f64() / n as f64;
        assert!((mean - 0.002).abs() < 3.0 * 0.002 / (n as f64).sqrt(), "mean gap {mean}");
    }
}
