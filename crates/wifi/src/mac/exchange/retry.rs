//! Retry counts and limits (802.11-2020 10.3.4.4; Annex C,
//! dot11ShortRetryLimit and dot11LongRetryLimit).
//!
//! A limit counts transmission attempts, as the MIB defines it ("the
//! maximum number of transmission attempts of a frame ... that are made
//! before a failure condition is indicated"): the retry procedure discards
//! when the count of failed attempts reaches the limit, so a limit of 7
//! gives at most 7 attempts (as ns-2.35's `Mac802_11::RetransmitDATA` and
//! ns-3's `NeedRetransmission`). Models written in retransmissions
//! (Bianchi's m, Pokhrel's k with k + 1 attempts) use limit = m + 1.
//!
//! The short count takes failed RTS attempts and failed data attempts of a
//! frame sent without RTS/CTS; a CTS resets it. The long count takes failed
//! data attempts after a CTS and only the end of the MSDU resets it, so an
//! MSDU whose RTS exchanges succeed but whose data frames fail is discarded
//! at the long limit. Counts are kept per MSDU (the standard also keeps
//! station-wide SSRC/SLRC; they coincide for a station that serves one
//! MSDU at a time). An MPDU under a BlockAck agreement counts its
//! transmissions against one limit (`blockack::Originator`).
//!
//! Invariant: a count never exceeds its limit; `fail` says "discard"
//! exactly once, when it reaches it.

/// A retry limit: transmission attempts before a failure is indicated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryLimit(pub u32);

impl RetryLimit {
    /// Whether `failed` failed attempts used the limit up.
    #[inline]
    pub fn reached(self, failed: u32) -> bool {
        failed >= self.0
    }
}

/// Which count a failed attempt goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// An RTS, or a data frame sent without RTS/CTS.
    Short,
    /// A data frame sent after a CTS.
    Long,
}

/// The short and long retry counts of one MSDU (16 bits each: a count
/// stops at its limit, at most 255, dot11ShortRetryLimit and
/// dot11LongRetryLimit, Annex C).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RetryCounts {
    short: u16,
    long: u16,
}

impl RetryCounts {
    /// A failed attempt counted against `count`; true if the MSDU is to be
    /// discarded (the count reached its limit).
    #[inline]
    pub fn fail(&mut self, count: Count, short: RetryLimit, long: RetryLimit) -> bool {
        match count {
            Count::Short => {
                self.short = self.short.saturating_add(1);
                short.reached(self.short.into())
            }
            Count::Long => {
                self.long = self.long.saturating_add(1);
                long.reached(self.long.into())
            }
        }
    }

    /// A CTS answered our RTS: the short count starts over (10.3.4.4).
    #[inline]
    pub fn cts_received(&mut self) {
        self.short = 0;
    }

    /// The short and long counts.
    #[inline]
    pub fn counts(&self) -> (u32, u32) {
        (self.short.into(), self.long.into())
    }

    /// Whether an attempt of the MSDU has failed since the counts last
    /// started over (the next one is a retry).
    #[inline]
    pub fn any(&self) -> bool {
        self.short > 0 || self.long > 0
    }
}
