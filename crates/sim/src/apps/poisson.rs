//! Poisson arrivals: exponentially distributed gaps with a given mean,
//! fixed-size datagrams.
use super::{rate_keys, required_rate, AppKind, Firing, Source};
use crate::config::Traffic;
use wifitcp_core::config::ConfigError;
use wifitcp_core::{RngStream, SimDur, SimTime};

wifitcp_core::config_table! {
    /// `pattern = "poisson"`, at a mean of `rate_mbps`.
    #[serde(deny_unknown_fields)]
    pub struct PoissonTable {
        use rate_keys;
    }
}

impl AppKind for PoissonTable {
    fn check(&self, _: &Traffic) -> Result<(), ConfigError> {
        required_rate(self.rate_mbps, "poisson").map(|_| ())
    }
    fn build(&self, tr: &Traffic, rng: RngStream) -> Result<Box<dyn Source>, ConfigError> {
        let msdu_bytes = tr.common.msdu_bytes;
        let mean_gap = super::gap(msdu_bytes, self.rate_mbps.expect("checked"));
        Ok(Box::new(Poisson { msdu_bytes, mean_gap, rng }))
    }
}

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
