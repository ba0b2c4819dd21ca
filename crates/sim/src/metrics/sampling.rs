//! The instants at which every flow's delivered bytes are sampled: from 0,
//! each multiple of the sampling interval and the warm-up, each once,
//! before the end; then the end. The run loop takes the samples at these
//! instants (`Ev::Sample`, then the end's at the end) and a flow's series
//! holds only the bytes, one per instant: the instants are computed again
//! here when the series is written.

use wifitcp_core::{SimDur, SimTime};

/// A run's sampling: interval, warm-up and end.
#[derive(Clone, Copy, Debug)]
pub struct Sampling {
    pub bin: SimDur,
    pub warmup: SimTime,
    pub end: SimTime,
}

impl Sampling {
    /// The sampling instant after `now`, if before the end: the next
    /// multiple of the interval, or the warm-up when it comes first.
    pub fn next(&self, now: SimTime) -> Option<SimTime> {
        let bin = self.bin.as_nanos().max(1);
        let mut next = SimTime::from_nanos((now.as_nanos() / bin + 1).saturating_mul(bin));
        if self.warmup > now && self.warmup < next {
            next = self.warmup;
        }
        (next < self.end).then_some(next)
    }

    /// The instants before the end (from 0, [`Sampling::next`] after each).
    pub fn before_end(&self) -> impl Iterator<Item = SimTime> + '_ {
        std::iter::successors((SimTime::ZERO < self.end).then_some(SimTime::ZERO), |&t| self.next(t))
    }

    /// Every instant of a flow's series: those before the end, then the end.
    pub fn instants(&self) -> impl Iterator<Item = SimTime> + '_ {
        self.before_end().chain(std::iter::once(self.end))
    }

    /// The index in [`Sampling::instants`] of the last instant at or
    /// before the warm-up (the first, 0, is at or before any warm-up): a
    /// series' sample there is what was delivered before the window.
    pub fn base_index(&self) -> usize {
        let bin = self.bin.as_nanos().max(1);
        let (w, e) = (self.warmup.as_nanos(), self.end.as_nanos());
        if e <= w {
            // every instant: the multiples of the interval before the end,
            // then the end
            return if e == 0 { 0 } else { ((e - 1) / bin + 1) as usize };
        }
        // the multiples at or before the warm-up (all before the end),
        // then the warm-up itself if it is off the grid
        (w / bin + u64::from(w % bin != 0)) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One chain of instants: the multiples of the interval and the
    /// warm-up, each once, before the end (a warm-up off the grid once
    /// started a second chain, halving the series' bins).
    #[test]
    fn the_grid_and_the_warmup_once_then_the_end() {
        let s = SimTime::from_secs_f64;
        let at = |end: f64, warmup: f64| {
            Sampling { bin: SimDur::from_secs(1), warmup: s(warmup), end: s(end) }.instants().collect::<Vec<_>>()
        };
        assert_eq!(at(3.5, 0.5), [0.0, 0.5, 1.0, 2.0, 3.0, 3.5].map(s));
        assert_eq!(at(3.0, 1.0), [0.0, 1.0, 2.0, 3.0].map(s));
        assert_eq!(at(0.2, 0.0), [0.0, 0.2].map(s));
        assert_eq!(at(0.0, 0.0), [0.0].map(s));
    }

    /// The warm-up's sample: the last instant at or before it, the end's
    /// when the run ends within the warm-up.
    #[test]
    fn the_base_is_the_last_instant_at_or_before_the_warmup() {
        let s = SimTime::from_secs_f64;
        let at =
            |end: f64, warmup: f64| Sampling { bin: SimDur::from_secs(1), warmup: s(warmup), end: s(end) }.base_index();
        assert_eq!(at(3.5, 0.5), 1);
        assert_eq!(at(3.5, 0.0), 0);
        assert_eq!(at(3.0, 1.0), 1);
        assert_eq!(at(3.0, 3.0), 3);
        assert_eq!(at(2.0, 5.0), 2);
        assert_eq!(at(0.0, 0.0), 0);
        // the same as counting the instants themselves
        let ns = SimTime::from_nanos;
        for bin in [1, 3, 7, 10] {
            for end in 0..40 {
                for warmup in 0..45 {
                    let s = Sampling { bin: SimDur::from_nanos(bin), warmup: ns(warmup), end: ns(end) };
                    let counted = s.instants().take_while(|&t| t <= s.warmup).count() - 1;
                    assert_eq!(s.base_index(), counted, "bin {bin}, end {end}, warm-up {warmup}");
                }
            }
        }
    }
}
