//! The DCF's use of the channel access layer (`mac/access`): one backoff
//! entity, DIFS as its arbitration IFS, and the DCF's counting rule
//! (10.3.4.3, or the slotted model's with `busy_slot_counts`).
use super::Dcf;
use wifitcp_core::SimTime;

impl Dcf {
    /// Start (or keep) counting if the medium is free.
    #[inline]
    pub(super) fn resume(&mut self) {
        if self.bo.count_from().is_none() && !self.seq.under_way() {
            self.bo.resume(self.cs.count_start(self.p.ifs.difs, &self.p.ifs));
        }
    }

    /// The medium turns busy for this station at `now`: stop counting.
    #[inline]
    pub(super) fn freeze(&mut self, now: SimTime) {
        let ready = self.cur.as_ref().map(|c| c.ready_at);
        self.bo.freeze(now, &self.p.slotting, ready);
    }

    /// No backoff pending at `now` (see `Backoff::expired`).
    pub(super) fn backoff_expired(&self, now: SimTime) -> bool {
        self.bo.expired(now, &self.p.slotting)
    }

    /// When this station's backoff ends and it may transmit, if it has an
    /// MSDU and the medium is free (see `Backoff::tx_at`).
    #[inline]
    pub(super) fn contention_wake(&self) -> Option<SimTime> {
        let ready = self.cur.as_ref().map(|c| c.ready_at);
        self.bo.tx_at(&self.p.slotting, ready)
    }
}
