//! EDCA channel access (IEEE 802.11-2020 10.22.2): one backoff entity
//! (EDCAF) per access category, each deferring AIFS[AC] = SIFS +
//! AIFSN[AC] x slot (10.22.2.4), or EIFS - DIFS + AIFS[AC] after an
//! erroneous reception (10.3.2.3.7), then counting down its own backoff
//! drawn from [0, CW[AC]].
//!
//! As in the DCF (`dcf/backoff.rs`) nothing runs per slot: while the
//! medium is free an EDCAF holds the instant its counting starts
//! (`count_from`, the end of its AIFS) and its remaining slots, so it
//! transmits at `count_from + slots x slot`. 10.22.2.4 names the slot
//! boundaries: the first at the end of AIFS, then one per idle slot; at
//! each the EDCAF transmits if its counter is 0, else decrements it. So a
//! counter b on an idle medium transmits at AIFS + b slots (as the DCF's
//! DIFS + b), but when the medium turns busy after j whole idle slots
//! past the end of AIFS, j + 1 boundaries have passed (the one at the end
//! of AIFS included) and the counter has dropped by j + 1, not j as in
//! the DCF (10.3.4.3 decrements only at the end of each idle slot). The
//! extra decrement comes once per idle period that reached the end of
//! AIFS; under heavy contention, where a countdown is interrupted many
//! times, it shortens every backoff by the number of interruptions
//! (ns-3's `ChannelAccessManager::UpdateBackoff` applies the same rule to
//! QoS stations).
//!
//! Internal collisions (10.22.2.4): when the backoffs of several EDCAFs of
//! the station end at one instant, the highest-priority one transmits;
//! each other one doubles its CW and draws a new backoff as after an
//! external collision. Deviation: the retry counts of its MPDUs are not
//! incremented (10.22.2.4 says the lower-priority EDCAF acts "as if" it
//! had collided, which includes the retry count; here only CW grows, so no
//! MPDU is discarded for an internal collision).
use super::{AcState, Exchange, Hcf};
use wifitcp_core::{SimDur, SimTime};

impl Hcf {
    /// The instant from which the medium has been free for this station
    /// (CCA idle, NAV expired, no exchange of its own), `None` if busy.
    pub(super) fn medium_free_since(&self) -> Option<SimTime> {
        if self.cca_busy
            || self.ex != Exchange::Idle
            || self.scheduled.is_some()
            || self.txop.is_some()
            || self.access_at.is_some()
        {
            return None;
        }
        Some(self.cca_idle_at.max(self.nav_end).max(self.self_busy_until))
    }

    /// AIFS[AC], or EIFS - DIFS + AIFS[AC] after an erroneous reception.
    fn ifs(&self, ac: &AcState) -> SimDur {
        let t = &self.p.timing;
        let aifs = ac.p.aifs(t.sifs, t.slot);
        if self.use_eifs {
            t.eifs.saturating_sub(t.difs) + aifs
        } else {
            aifs
        }
    }

    /// Start counting for every EDCAF if the medium is free.
    pub(super) fn resume(&mut self) {
        let Some(free) = self.medium_free_since() else { return };
        for i in 0..4 {
            if self.acs[i].count_from.is_none() {
                let ifs = self.ifs(&self.acs[i]);
                self.acs[i].count_from = Some(free + ifs);
            }
        }
    }

    /// The medium turns busy at `now`: every EDCAF stops counting (one
    /// whose backoff ends exactly now still transmits now). One that
    /// reached the end of its AIFS has passed j + 1 slot boundaries for j
    /// whole idle slots and decremented at each (10.22.2.4, module docs).
    pub(super) fn freeze(&mut self, now: SimTime) {
        let slot = self.p.timing.slot;
        for i in 0..4 {
            if self.contention_wake(i) == Some(now) {
                continue;
            }
            let a = &mut self.acs[i];
            let Some(cs) = a.count_from.take() else { continue };
            if let Some(k) = a.backoff.as_mut() {
                if now >= cs {
                    let boundaries = ((now - cs).as_nanos() / slot.as_nanos()) as u32 + 1;
                    *k = k.saturating_sub(boundaries);
                }
            }
        }
    }

    /// When EDCAF `i` may transmit: it has a frame, its backoff runs and
    /// the medium is free. A frame that arrives after a finished backoff
    /// goes at its arrival (10.3.4.2).
    pub(super) fn contention_wake(&self, i: usize) -> Option<SimTime> {
        let a = &self.acs[i];
        let cs = a.count_from?;
        let k = a.backoff?;
        if !a.has_frame {
            return None;
        }
        Some((cs + self.p.timing.slot * k as u64).max(a.ready_at))
    }

    /// The earliest instant any EDCAF may transmit.
    pub(super) fn earliest_access(&self) -> Option<SimTime> {
        (0..4).filter_map(|i| self.contention_wake(i)).min()
    }

    /// A frame arrived for EDCAF `i`, which had none: with no backoff
    /// pending it may transmit once the medium has been free for AIFS
    /// (10.3.4.2 via 10.22.2.2), else it defers and backs off.
    pub(super) fn frame_arrived(&mut self, now: SimTime, i: usize) {
        let free = self.medium_free_since().is_some();
        if self.acs[i].backoff.is_none() {
            let k = if free { 0 } else { self.draw(i) };
            self.acs[i].backoff = Some(k);
        }
        self.acs[i].ready_at = now;
        self.acs[i].has_frame = true;
    }

    /// The EDCAFs due at `now`: the highest-priority one wins; the others
    /// back off as after a collision (module docs). Returns the winner.
    pub(super) fn resolve_internal(&mut self, now: SimTime) -> Option<usize> {
        let due: Vec<usize> = (0..4).filter(|&i| self.contention_wake(i) == Some(now)).collect();
        let winner = *due.iter().max_by_key(|&&i| self.acs[i].ac)?;
        for &i in &due {
            if i != winner {
                self.stats.internal_collisions += 1;
                self.grow_cw(i);
                let k = self.draw(i);
                self.acs[i].backoff = Some(k);
                // The new backoff counts from the next idle period.
                self.acs[i].count_from = None;
            }
        }
        let w = &mut self.acs[winner];
        w.backoff = None;
        w.count_from = None;
        Some(winner)
    }

    /// CW[AC] = min(2 (CW + 1) - 1, CWmax[AC]) (10.22.2.6).
    pub(super) fn grow_cw(&mut self, i: usize) {
        let a = &mut self.acs[i];
        a.cw = (2 * (a.cw + 1) - 1).min(a.p.cw_max);
    }

    /// A backoff uniform over [0, CW[AC]] (10.22.2.6).
    pub(super) fn draw(&mut self, i: usize) -> u32 {
        self.rng.below(self.acs[i].cw as u64 + 1) as u32
    }
}
