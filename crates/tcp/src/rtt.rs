//! Round-trip time estimation and the retransmission timeout (RFC 6298).
//!
//! Invariants: the base RTO is always within [min_rto, max_rto]; the
//! effective RTO is `min(base << backoff, max_rto)`. Samples are supplied by
//! the connection, which applies Karn's rule (RFC 6298 section 3: no samples
//! from retransmitted segments unless timestamps disambiguate them).
//!
//! Arithmetic is in integer nanoseconds; alpha = 1/8 and beta = 1/4 are
//! applied as exact integer divisions (truncating, at most 1 ns error).
use wifitcp_core::SimDur;

/// RFC 6298 (2.2): K = 4.
const K: u64 = 4;

#[derive(Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<SimDur>,
    rttvar: SimDur,
    base_rto: SimDur,
    backoff: u32,
    min_rto: SimDur,
    max_rto: SimDur,
    granularity: SimDur,
    samples: u64,
}

impl RttEstimator {
    pub fn new(initial_rto: SimDur, min_rto: SimDur, max_rto: SimDur, granularity: SimDur) -> Self {
        // RFC 6298 (2.1): until a sample is made, RTO = 1 s (configurable).
        // The initial value is not subject to the min_rto floor, so a
        // scenario may choose e.g. initial 1 s with min 200 ms.
        RttEstimator {
            srtt: None,
            rttvar: SimDur::ZERO,
            base_rto: initial_rto.min(max_rto),
            backoff: 0,
            min_rto,
            max_rto,
            granularity,
            samples: 0,
        }
    }

    /// Feed one RTT measurement R (RFC 6298 (2.2) and (2.3)).
    pub fn on_sample(&mut self, r: SimDur) {
        match self.srtt {
            None => {
                // (2.2) SRTT <- R, RTTVAR <- R/2
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // (2.3) RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|, then
                //       SRTT <- 7/8 SRTT + 1/8 R' (RTTVAR uses the old SRTT).
                let err = srtt.as_nanos().abs_diff(r.as_nanos());
                self.rttvar = SimDur((3 * self.rttvar.as_nanos() + err) / 4);
                self.srtt = Some(SimDur((7 * srtt.as_nanos() + r.as_nanos()) / 8));
            }
        }
        self.samples += 1;
        let srtt = self.srtt.expect("set above");
        // (2.2)/(2.3): RTO <- SRTT + max(G, K*RTTVAR)
        let rto = srtt + self.granularity.max(self.rttvar * K);
        // (2.4) round up to min_rto; (2.5) cap at max_rto.
        self.base_rto = rto.max(self.min_rto).min(self.max_rto);
    }

    /// Effective RTO including exponential backoff (RFC 6298 (5.5)), capped
    /// at max_rto.
    pub fn rto(&self) -> SimDur {
        let shift = self.backoff.min(40);
        let ns = self.base_rto.as_nanos().saturating_mul(1u64 << shift);
        SimDur(ns).min(self.max_rto)
    }

    /// RTO without backoff.
    pub fn base_rto(&self) -> SimDur {
        self.base_rto
    }

    /// RFC 6298 (5.5): double the RTO ("back off the timer").
    pub fn back_off(&mut self) {
        self.backoff = self.backoff.saturating_add(1);
    }

    /// Forget the backoff. Called when a valid RTT sample arrives (Karn's
    /// algorithm: the backed-off RTO is kept until an ACK for a segment that
    /// was not retransmitted provides a sample; Linux does the same).
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }

    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// RFC 6298 section 5, last paragraph: if the timer expired while
    /// awaiting the ACK of a SYN and no sample has been taken, the RTO is
    /// re-initialised to 3 s when data transmission begins.
    pub fn reinit_after_syn_timeout(&mut self) {
        if self.srtt.is_none() && self.base_rto < SimDur::from_secs(3) {
            self.base_rto = SimDur::from_secs(3).min(self.max_rto);
        }
        self.backoff = 0;
    }

    pub fn srtt(&self) -> Option<SimDur> {
        self.srtt
    }
    pub fn rttvar(&self) -> SimDur {
        self.rttvar
    }
    pub fn samples(&self) -> u64 {
        self.samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(SimDur::from_secs(1), SimDur::from_millis(200), SimDur::from_secs(60), SimDur::from_millis(1))
    }

    #[test]
    fn first_and_later_samples_follow_rfc6298() {
        let mut e = est();
        assert_eq!(e.rto(), SimDur::from_secs(1));
        e.on_sample(SimDur::from_millis(100));
        assert_eq!(e.srtt(), Some(SimDur::from_millis(100)));
        assert_eq!(e.rttvar(), SimDur::from_millis(50));
        // 100 + 4*50 = 300 ms
        assert_eq!(e.rto(), SimDur::from_millis(300));
        e.on_sample(SimDur::from_millis(200));
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5 ms; SRTT = 7/8*100 + 1/8*200 = 112.5 ms
        assert_eq!(e.rttvar(), SimDur::from_micros(62_500));
        assert_eq!(e.srtt(), Some(SimDur::from_micros(112_500)));
        assert_eq!(e.rto(), SimDur::from_micros(112_500 + 250_000));
    }

    #[test]
    fn floor_granularity_and_cap() {
        let mut e = RttEstimator::new(
            SimDur::from_secs(1),
            SimDur::from_secs(1),
            SimDur::from_secs(60),
            SimDur::from_millis(1),
        );
        e.on_sample(SimDur::from_millis(10));
        assert_eq!(e.rto(), SimDur::from_secs(1), "RFC 6298 (2.4) floor");
        let mut e = RttEstimator::new(
            SimDur::from_secs(1),
            SimDur::from_micros(1),
            SimDur::from_secs(60),
            SimDur::from_millis(5),
        );
        for _ in 0..200 {
            e.on_sample(SimDur::from_millis(10));
        }
        // RTTVAR decays to ~0, G dominates
        assert_eq!(e.rto(), SimDur::from_millis(15));
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let mut e = RttEstimator::new(
            SimDur::from_secs(1),
            SimDur::from_secs(1),
            SimDur::from_secs(60),
            SimDur::from_millis(1),
        );
        let mut seen = vec![];
        for _ in 0..8 {
            seen.push(e.rto().as_nanos() / 1_000_000_000);
            e.back_off();
        }
        assert_eq!(seen, vec![1, 2, 4, 8, 16, 32, 60, 60]);
        e.reset_backoff();
        assert_eq!(e.rto(), SimDur::from_secs(1));
        for _ in 0..100 {
            e.back_off();
        }
        assert_eq!(e.rto(), SimDur::from_secs(60));
    }

    #[test]
    fn syn_timeout_reinit_to_three_seconds() {
        let mut e = est();
        e.back_off();
        e.reinit_after_syn_timeout();
        assert_eq!(e.rto(), SimDur::from_secs(3));
        let mut e = est();
        e.on_sample(SimDur::from_millis(10));
        e.reinit_after_syn_timeout();
        assert!(e.rto() < SimDur::from_secs(1), "a sample was taken: keep it");
    }
}
