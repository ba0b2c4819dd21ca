//! The DCF's counters as a station's state keeps them, and as the MAC
//! reports them ([`MacCounters`], 64 bits each).
//!
//! The six that exchanges and receptions in error move (attempts, retries,
//! successes, failures, retry-limit drops, receptions in error) are 32 bits
//! each in the MAC's own lines, 24 bytes where `MacCounters` takes 72; what
//! passes 2^32 - 1 is carried, in whole multiples of 2^32, into 64-bit
//! counters out of line, made at the first carry (at tens of thousands of
//! exchanges a second a station needs more than a day of simulated time
//! for one). The three that only data deliveries move (delivered,
//! duplicates, false duplicates) are kept out of line, beside the receive
//! cache every delivery reads (`Dcf`'s `Aside`): a station that never
//! receives data holds none.
//!
//! Invariant: each reported counter is the 32-bit part plus the carried
//! part, so it is exact to 2^64 - 1 as a `MacCounters` field is.
use super::MacCounters;

/// The counters kept in 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tally {
    Attempts,
    Retries,
    Successes,
    Failures,
    DropsRetryLimit,
    RxErrors,
}

/// The 32-bit counters, in the MAC's own lines, indexed by [`Tally`].
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Tallies([u32; TALLIES]);

/// How many counters are kept in 32 bits: the variants of [`Tally`].
const TALLIES: usize = 6;
const _: () = assert!(Tally::RxErrors as usize + 1 == TALLIES, "a Tally without a counter");

/// The counters out of line: the data deliveries' and what the 32-bit ones
/// carried.
#[derive(Clone, Debug, Default)]
pub(super) struct RxTallies {
    pub delivered: u64,
    pub duplicates: u64,
    pub false_duplicates: u64,
    /// Whole multiples of 2^32 carried from [`Tallies`], indexed by
    /// [`Tally`] (`None`: none yet).
    carried: Option<Box<[u64; TALLIES]>>,
}

impl Tallies {
    /// Add `n` to counter `t`; `more` gives the out-of-line counters, asked
    /// for only when the 32-bit part overflows.
    #[inline(always)]
    pub fn add<'a>(&mut self, t: Tally, n: u64, more: impl FnOnce() -> &'a mut RxTallies) {
        let lo = &mut self.0[t as usize];
        let sum = u64::from(*lo) + n;
        *lo = sum as u32;
        if sum > u64::from(u32::MAX) {
            carry(t, sum - u64::from(*lo), more());
        }
    }

    /// The counters as the MAC reports them: each the 32-bit part plus
    /// what it carried.
    pub fn report(&self, more: Option<&RxTallies>) -> MacCounters {
        let carried = more.and_then(|m| m.carried.as_deref());
        let at = |t: Tally| u64::from(self.0[t as usize]) + carried.map_or(0, |c| c[t as usize]);
        let mut c = MacCounters {
            attempts: at(Tally::Attempts),
            retries: at(Tally::Retries),
            successes: at(Tally::Successes),
            failures: at(Tally::Failures),
            drops_retry_limit: at(Tally::DropsRetryLimit),
            rx_errors: at(Tally::RxErrors),
            ..MacCounters::default()
        };
        if let Some(m) = more {
            c.rx_delivered = m.delivered;
            c.rx_duplicates = m.duplicates;
            c.rx_false_duplicates = m.false_duplicates;
        }
        c
    }
}

/// [`Tallies::add`]'s overflow: `hi` (a multiple of 2^32) to counter `t`'s
/// carried part.
#[cold]
#[inline(never)]
fn carry(t: Tally, hi: u64, more: &mut RxTallies) {
    more.carried.get_or_insert_with(Box::default)[t as usize] += hi;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A counter stays exact across the 32-bit boundary, by one and by a
    /// batch (the bystander group hands over receptions in error in one
    /// sum), and a carry is asked for only on overflow.
    #[test]
    fn counts_past_32_bits() {
        let mut t = Tallies::default();
        let mut more = RxTallies::default();
        t.add(Tally::Attempts, u64::from(u32::MAX) - 1, || unreachable!("no carry yet"));
        t.add(Tally::Attempts, 1, || unreachable!("no carry yet"));
        assert_eq!(t.report(None).attempts, u64::from(u32::MAX));
        t.add(Tally::Attempts, 1, || &mut more);
        assert_eq!(t.report(Some(&more)).attempts, 1 << 32);
        t.add(Tally::RxErrors, 3 << 32 | 5, || &mut more);
        t.add(Tally::RxErrors, u64::from(u32::MAX), || &mut more);
        let c = t.report(Some(&more));
        assert_eq!(c.rx_errors, (3 << 32 | 5) + u64::from(u32::MAX));
        assert_eq!(c.attempts, 1 << 32);
        assert_eq!((c.retries, c.successes, c.failures, c.drops_retry_limit), (0, 0, 0, 0));
        more.delivered = 7;
        assert_eq!(t.report(Some(&more)).rx_delivered, 7);
    }
}
