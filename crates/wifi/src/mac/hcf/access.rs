//! EDCA's use of the channel access layer (`mac/access`, IEEE 802.11-2020
//! 10.22.2): one backoff entity (EDCAF) per access category, each deferring
//! AIFS[AC] = SIFS + AIFSN[AC] x slot (10.22.2.4), or EIFS - DIFS +
//! AIFS[AC] after an erroneous reception, counting with EDCA's slot-boundary
//! rule (`CountRule::Edca`), and internal collisions resolved by priority
//! (`access::resolve_internal`).
use super::Hcf;
use crate::mac::access::{resolve_internal, Due};
use crate::mac::edca::AccessCategory;
use crate::mac::frame::{MacOutput, MacSink};
use wifitcp_core::SimTime;

impl Hcf {
    /// In a frame exchange or TXOP of its own, about to transmit, or in a
    /// scheduled period (polling AP, polled station).
    fn engaged(&self) -> bool {
        self.engaged_apart_from_polling() || self.polling()
    }

    /// EDCAF `i` holds its traffic for the polls (`HcfParams::poll_hold`,
    /// `poll.rs`): best effort and background do; video and voice keep
    /// contending (the paper's high-priority bypass of the token).
    #[inline]
    pub(super) fn holds(&self, i: usize) -> bool {
        self.held_until != SimTime::ZERO && self.acs[i].ac < AccessCategory::Vi
    }

    /// In a frame exchange or TXOP of its own, about to transmit, or
    /// granted a TXOP.
    pub(super) fn engaged_apart_from_polling(&self) -> bool {
        self.seq.under_way() || self.txop.is_some() || self.access_at.is_some() || self.grant.is_some()
    }

    /// Start counting for every EDCAF if the medium is free.
    pub(super) fn resume(&mut self) {
        self.resume_not_before(SimTime::ZERO);
    }

    /// `resume`, counting from `from` at the earliest: after a pause of
    /// the AP's own (a service period) frozen at or before `from`, while
    /// the medium may have been free since before it (the slots up to the
    /// freeze are already counted).
    pub(super) fn resume_not_before(&mut self, from: SimTime) {
        if self.engaged() {
            return;
        }
        let t = &self.p.timing;
        let held = self.held_until != SimTime::ZERO;
        for a in self.acs.iter_mut() {
            if held && a.ac < AccessCategory::Vi {
                continue; // (`holds`)
            }
            if a.bo.count_from().is_none() {
                // (the AIFS in use: EDCA's, or MU EDCA's after trigger-based
                // uplink, none while MU EDCA disables the AC, 26.2.7)
                let start = a.mu.count_start(&self.cs, a.p.aifsn, t.sifs, t.slot, &self.ifs_times);
                a.bo.resume(start.map(|s| s.max(from)));
            }
        }
    }

    /// The medium turns busy at `now`: every EDCAF stops counting (one
    /// whose backoff ends exactly now still transmits now).
    pub(super) fn freeze(&mut self, now: SimTime) {
        for a in self.acs.iter_mut() {
            let ready = a.has_frame.then_some(a.ready_at);
            a.bo.freeze(now, &self.slotting, ready);
        }
    }

    /// When EDCAF `i` may transmit: it has a frame, its backoff runs and
    /// the medium is free.
    pub(super) fn contention_wake(&self, i: usize) -> Option<SimTime> {
        let a = &self.acs[i];
        a.bo.tx_at(&self.slotting, a.has_frame.then_some(a.ready_at))
    }

    /// The earliest instant any EDCAF may transmit.
    pub(super) fn earliest_access(&self) -> Option<SimTime> {
        (0..4).filter_map(|i| self.contention_wake(i)).min()
    }

    /// A frame arrived for EDCAF `i`, which had none: with no backoff
    /// pending it may transmit once the medium has been idle for AIFS,
    /// unless it arrived at an empty queue while the medium is busy, which
    /// invokes the backoff procedure (10.22.2.2 a), `Backoff::frame_arrives`).
    /// Busy here: carrier sense (`Deferral::busy_at`: physical, the NAV,
    /// the station's own transmission), as for the DCF; the SIFS before a
    /// response of its own, or between the frames of its TXOP, is idle
    /// medium (as in ns-3 3.37's `ChannelAccessManager::IsBusy`). The
    /// scheduled access of HCCA-style polling counts as busy too: an AP in
    /// its polling period, a station in a granted TXOP or holding its
    /// traffic for the polls.
    pub(super) fn frame_arrived(&mut self, now: SimTime, i: usize) {
        let scheduled = self.polling() || self.grant.is_some() || self.holds(i);
        let busy = scheduled || self.cs.busy_at(now);
        let empty = self.intake.queue_was_empty(now);
        self.acs[i].bo.frame_arrives(now, &self.slotting, busy, empty, &mut self.rng);
        self.acs[i].ready_at = now;
        self.acs[i].has_frame = true;
    }

    /// The EDCAFs due at `now`: the highest-priority one wins, the others
    /// collide internally. Returns the winner.
    pub(super) fn resolve_internal(&mut self, now: SimTime) -> Option<usize> {
        let mut due = [Due { index: 0, priority: 0, cw_max: 0 }; 4];
        let mut n = 0;
        for i in 0..4 {
            if self.contention_wake(i) == Some(now) {
                let a = &self.acs[i];
                due[n] = Due { index: i, priority: a.ac as u8, cw_max: a.mu.cw_max(a.p.cw_max) };
                n += 1;
            }
        }
        let mut bo = self.acs.each_ref().map(|a| a.bo);
        let (winner, lost) = resolve_internal(&mut bo, &due[..n], &mut self.rng)?;
        for (a, b) in self.acs.iter_mut().zip(bo) {
            a.bo = b;
        }
        self.stats.internal_collisions += u64::from(lost);
        Some(winner)
    }

    /// CW[AC] = min(2 (CW + 1) - 1, CWmax[AC]) (10.22.2.6; the MU EDCA
    /// CWmax while its timer runs, 26.2.7).
    pub(super) fn grow_cw(&mut self, i: usize) {
        let a = &mut self.acs[i];
        a.bo.grow_cw(a.mu.cw_max(a.p.cw_max));
    }

    /// Ask the queue for MSDUs (`MacOutput::Ready`), noting when
    /// (`Intake`: a frame handed over at this instant was waiting).
    pub(super) fn ask(&mut self, now: SimTime, out: &mut impl MacSink) {
        self.intake.asked(now);
        out.push(MacOutput::Ready);
    }

    /// A backoff uniform over [0, CW[AC]] (10.22.2.6).
    pub(super) fn draw(&mut self, i: usize) -> u32 {
        self.acs[i].bo.draw(&mut self.rng)
    }
}
