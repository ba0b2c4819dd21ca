//! Carrier sense and the backoff countdown, derived from timestamps.
//!
//! While the medium is free the station holds `count_from` (the instant its
//! DIFS or EIFS ends) and `backoff` (slots left at that instant); it will
//! transmit at `count_from + backoff * slot`. When the medium turns busy at
//! `t`, the whole slots that elapsed in `[count_from, t)` are subtracted
//! (10.3.4.3: the counter decrements only for slots during which the medium
//! was idle) and counting stops until the medium is free again.
use super::{Dcf, Exchange};
use wifitcp_core::{SimDur, SimTime};

impl Dcf {
    /// The instant from which the medium has been free for this station
    /// (physical CCA idle, NAV expired, not in its own exchange), or `None`
    /// if it is busy now. May lie in the future when the NAV runs beyond now.
    pub(super) fn medium_free_since(&self) -> Option<SimTime> {
        if self.cca_busy || self.ex != Exchange::Idle || self.scheduled.is_some() {
            return None;
        }
        Some(self.cca_idle_at.max(self.nav_end).max(self.self_busy_until))
    }

    /// DIFS, or EIFS after an erroneous reception (10.3.2.3.7).
    fn ifs(&self) -> SimDur {
        if self.use_eifs {
            self.p.timing.eifs
        } else {
            self.p.timing.difs
        }
    }

    /// Start (or keep) counting if the medium is free.
    pub(super) fn resume(&mut self) {
        if self.count_from.is_none() {
            if let Some(free) = self.medium_free_since() {
                self.count_from = Some(free + self.ifs());
            }
        }
    }

    /// The medium turns busy for this station at `now`: stop counting.
    #[inline]
    pub(super) fn freeze(&mut self, now: SimTime) {
        let Some(cs) = self.count_from else { return };
        // A station whose backoff ends exactly now still transmits now
        // (both stations chose the same slot: a collision, 10.3.4.3).
        if self.contention_wake() == Some(now) {
            return;
        }
        self.count_from = None;
        let busy_slot_counts = self.p.busy_slot_counts;
        if let Some(k) = self.backoff.as_mut() {
            if now >= cs {
                let elapsed = self.slot_div.whole(now - cs) as u32;
                // Optional slotted-model rule: the slot in which the medium
                // turns busy also counts (see DcfParams::busy_slot_counts).
                let extra = u32::from(busy_slot_counts);
                *k = k.saturating_sub(elapsed + extra);
            }
        }
    }

    /// No backoff pending at `now`: none, zero slots left, or a countdown
    /// that ended at or before `now`.
    pub(super) fn backoff_expired(&self, now: SimTime) -> bool {
        match (self.backoff, self.count_from) {
            (None, _) | (Some(0), _) => true,
            (Some(k), Some(cs)) => cs + self.p.timing.slot * k as u64 <= now,
            (Some(_), None) => false,
        }
    }

    /// When this station's backoff ends and it may transmit, if it has an
    /// MSDU and the medium is free. An MSDU that arrives after a completed
    /// post-backoff is sent at its arrival (10.3.4.2).
    #[inline]
    pub(super) fn contention_wake(&self) -> Option<SimTime> {
        // `count_from` first: it is unset whenever the medium is busy for
        // the station, the most frequent reason for no wake-up.
        let cs = self.count_from?;
        let k = self.backoff?;
        let cur = self.cur.as_ref()?;
        let slot = self.p.timing.slot;
        Some((cs + slot * k as u64).max(cur.ready_at))
    }
}
