//! Export and import of a station's carrier-sense state, so that the medium
//! can keep stations whose view of the medium is identical in one group with
//! a shared slot counter (see `crate::medium`), and hand a station back its
//! exact state when it has to act on its own.
use super::{Bystander, Dcf, GroupRules, MacAddr, Packet};
use crate::mac::access::CsView;
use wifitcp_core::SimTime;

impl Dcf {
    /// Not in a frame exchange, nothing scheduled: the station only defers
    /// and counts.
    #[inline]
    pub fn is_quiet(&self) -> bool {
        !self.seq.under_way()
    }

    /// Whether this station's future behaviour equals that of a station
    /// with carrier-sense state `v` and the same backoff, as of `now`.
    #[inline]
    pub fn shares_view(&self, v: &CsView, now: SimTime) -> bool {
        if !self.is_quiet()
            || self.cs.cca_busy != v.cs.cca_busy
            || self.cs.use_eifs != v.cs.use_eifs
            || self.bo.count_from() != v.count_from
        {
            return false;
        }
        if self.cs.nav_end.max(now) != v.cs.nav_end.max(now) || self.cs.self_busy_until > now {
            return false;
        }
        if !v.cs.cca_busy && self.cs.cca_idle_at != v.cs.cca_idle_at {
            return false;
        }
        // A frame that arrived after a finished post-backoff is sent at its
        // arrival, not at a slot boundary: such a station acts alone.
        match (self.cur.as_ref(), self.bo.count_from(), self.bo.slots()) {
            (Some(c), Some(cs), Some(k)) => c.ready_at <= self.p.slotting.end(cs, k as u64),
            _ => true,
        }
    }

    /// Remaining backoff slots as of the start of the current counting
    /// period (or of the next one, while frozen).
    pub fn backoff(&self) -> Option<u32> {
        self.bo.slots()
    }

    /// Take over a shared carrier-sense state and a backoff count.
    #[inline]
    pub fn adopt_view(&mut self, v: &CsView, backoff: Option<u32>) {
        self.cs.cca_busy = v.cs.cca_busy;
        self.cs.cca_idle_at = v.cs.cca_idle_at;
        self.cs.nav_end = self.cs.nav_end.max(v.cs.nav_end);
        self.cs.use_eifs = v.cs.use_eifs;
        self.bo.set_count_from(v.count_from);
        self.bo.set_slots(backoff);
    }
}

impl Bystander for Dcf {
    fn group_rules(&self) -> GroupRules {
        let p = &self.p;
        GroupRules { slot: p.timing.slot, rule: self.p.slotting.rule, ifs: self.p.ifs, cw_max: p.cw_max.max(p.cw_min) }
    }
    #[inline]
    fn is_quiet(&self) -> bool {
        Dcf::is_quiet(self)
    }
    #[inline]
    fn has_frame(&self) -> bool {
        self.cur.is_some()
    }
    #[inline]
    fn shares_view(&self, v: &CsView, now: SimTime) -> bool {
        Dcf::shares_view(self, v, now)
    }
    #[inline]
    fn backoff(&self) -> Option<u32> {
        self.bo.slots()
    }
    #[inline]
    fn adopt_view(&mut self, v: &CsView, backoff: Option<u32>, rx_errors: u64) {
        Dcf::adopt_view(self, v, backoff);
        // (Mostly none: the counters' line is then left alone.)
        if rx_errors != 0 {
            self.count(super::Tally::RxErrors, rx_errors);
        }
    }
    #[inline]
    fn install_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr) {
        Dcf::install_msdu(self, now, pkt, ra)
    }
}
