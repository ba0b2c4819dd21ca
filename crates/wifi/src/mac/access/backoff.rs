//! One backoff entity: its contention window and the countdown, derived
//! from timestamps (module docs of `access`).
use wifitcp_core::{DurDivisor, RngStream, SimDur, SimTime};

/// Which slot boundaries decrement a counter while the medium is idle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CountRule {
    /// The DCF (10.3.4.3): the counter decrements at the end of each slot
    /// during which the medium was idle for the whole slot. A countdown
    /// interrupted after `j` whole idle slots has dropped by `j`.
    Dcf,
    /// The slotted model of Bianchi (2000), optional for the DCF
    /// (`DcfParams::busy_slot_counts`): the slot in which the medium turns
    /// busy counts too, `j + 1`. A deviation from 10.3.4.3, for
    /// reproducing the model's assumptions.
    DcfBusySlotCounts,
    /// EDCA (10.22.2.4): an EDCAF acts at each slot boundary, the first at
    /// the end of AIFS, then one per idle slot; at each it transmits if its
    /// counter is 0, else decrements it. Interrupted after `j` whole idle
    /// slots past the end of AIFS, `j + 1` boundaries have passed (ns-3's
    /// `ChannelAccessManager::UpdateBackoff` applies the same rule to QoS
    /// stations).
    Edca,
}

impl CountRule {
    /// Slots credited to a counter that started counting at `count_from`
    /// when the medium turns busy at `now` (none if `now` is still in the
    /// IFS).
    #[inline(always)]
    pub fn passed(self, count_from: SimTime, now: SimTime, div: &DurDivisor) -> u64 {
        if now < count_from {
            return 0;
        }
        let whole = div.whole(now - count_from);
        match self {
            CountRule::Dcf => whole,
            CountRule::DcfBusySlotCounts | CountRule::Edca => whole + 1,
        }
    }
}

/// The slot time and how slots count: what the entities of a station (and
/// of a bystander group) share.
#[derive(Clone, Copy, Debug)]
pub struct Slotting {
    pub slot: SimDur,
    pub rule: CountRule,
    /// Division by the slot time (elapsed slots at every freeze).
    div: DurDivisor,
}

impl Slotting {
    pub fn new(slot: SimDur, rule: CountRule) -> Slotting {
        Slotting { slot, rule, div: DurDivisor::new(slot) }
    }

    /// See [`CountRule::passed`].
    #[inline(always)]
    pub fn passed(&self, count_from: SimTime, now: SimTime) -> u64 {
        self.rule.passed(count_from, now, &self.div)
    }

    /// When a countdown of `slots` from `count_from` ends.
    #[inline(always)]
    pub fn end(&self, count_from: SimTime, slots: u64) -> SimTime {
        count_from + self.slot * slots
    }

    /// When an entity counting from `count_from` whose countdown has run
    /// out may send a frame that became ready at `ready` (after that):
    /// the DCF at once (10.3.4.2, Figure 10-4: "immediate access when
    /// medium is free >= DIFS"); an EDCAF only at a slot boundary, the
    /// first at or after `ready` (10.22.2.4: an EDCAF initiates a
    /// transmission at the end of AIFS or at a later slot boundary).
    ///
    /// ns-3 3.37 aligns an EDCAF the same way (the next boundary, strictly
    /// after an arrival that falls on one); its non-QoS DCF waits DIFS
    /// after a frame that arrives at an idle medium, where the DCF here
    /// sends it at once if the medium has already been idle for DIFS.
    #[inline(always)]
    fn late_access(&self, count_from: SimTime, ready: SimTime) -> SimTime {
        match self.rule {
            CountRule::Edca => {
                let past = ready - count_from;
                count_from + self.slot * self.div.whole(past + self.slot - SimDur::from_nanos(1))
            }
            CountRule::Dcf | CountRule::DcfBusySlotCounts => ready,
        }
    }
}

/// One backoff entity: the DCF of a station, or one EDCAF.
///
/// 16 bytes: "none" is a sentinel in each field (`SimTime::NEVER`, no
/// slots), not an `Option`'s second word (every MAC of a cell of
/// thousands holds one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Backoff {
    /// Instant counting started in the current idle period (the end of the
    /// IFS); `NEVER` while the medium is busy for the station.
    from: SimTime,
    /// Slots left at `from` (or at the start of the next counting period,
    /// while frozen); `NO_SLOTS`: no backoff pending.
    left: u32,
    /// Contention window (10.3.3).
    pub cw: u32,
}

/// No backoff pending (a backoff is at most aCWmax = 1,023 slots, 10.3.3,
/// or 32,767 for an EDCAF, 9.4.2.28).
const NO_SLOTS: u32 = u32::MAX;

impl Backoff {
    pub const fn new(cw_min: u32) -> Backoff {
        Backoff { from: SimTime::NEVER, left: NO_SLOTS, cw: cw_min }
    }

    /// A backoff counting from `count_from` with `slots` left.
    pub fn with(count_from: Option<SimTime>, slots: Option<u32>, cw: u32) -> Backoff {
        let mut b = Backoff::new(cw);
        b.set_count_from(count_from);
        b.set_slots(slots);
        b
    }

    /// Instant counting started in the current idle period (the end of
    /// the IFS); `None` while the medium is busy for the station.
    #[inline(always)]
    pub fn count_from(&self) -> Option<SimTime> {
        (self.from != SimTime::NEVER).then_some(self.from)
    }

    #[inline(always)]
    pub fn set_count_from(&mut self, t: Option<SimTime>) {
        debug_assert!(t != Some(SimTime::NEVER), "counting from a finite instant");
        self.from = t.unwrap_or(SimTime::NEVER);
    }

    /// [`Backoff::count_from`], now unset.
    #[inline(always)]
    pub fn take_count_from(&mut self) -> Option<SimTime> {
        let t = self.count_from();
        self.from = SimTime::NEVER;
        t
    }

    /// Slots left at `count_from` (or at the start of the next counting
    /// period, while frozen); `None`: no backoff pending.
    #[inline(always)]
    pub fn slots(&self) -> Option<u32> {
        (self.left != NO_SLOTS).then_some(self.left)
    }

    #[inline(always)]
    pub fn set_slots(&mut self, k: Option<u32>) {
        debug_assert!(k != Some(NO_SLOTS), "a backoff below 2^32 - 1 slots");
        self.left = k.unwrap_or(NO_SLOTS);
    }

    /// When the entity may transmit: its countdown runs and it has a frame
    /// ready since `ready` (`None`: no frame). A frame that arrives after
    /// the countdown ended goes at its arrival (10.3.4.2), or for an EDCAF
    /// at the next slot boundary (10.22.2.4; `Slotting::late_access`).
    #[inline(always)]
    pub fn tx_at(&self, s: &Slotting, ready: Option<SimTime>) -> Option<SimTime> {
        // `count_from` first: it is unset whenever the medium is busy for
        // the station, the most frequent reason for no transmission.
        let cs = self.count_from()?;
        let k = self.slots()?;
        let ready = ready?;
        let end = s.end(cs, k as u64);
        Some(if ready <= end { end } else { s.late_access(cs, ready) })
    }

    /// Start counting at `start` (`Deferral::count_start`) if not
    /// counting already.
    #[inline(always)]
    pub fn resume(&mut self, start: Option<SimTime>) {
        if self.count_from().is_none() {
            self.set_count_from(start);
        }
    }

    /// The medium turns busy for the station at `now`: stop counting, less
    /// the slots that passed. An entity whose countdown ends exactly now
    /// still transmits now (two stations that chose the same slot collide,
    /// 10.3.4.3), so it keeps its state.
    #[inline(always)]
    pub fn freeze(&mut self, now: SimTime, s: &Slotting, ready: Option<SimTime>) {
        let Some(cs) = self.count_from() else { return };
        if self.tx_at(s, ready) == Some(now) {
            return;
        }
        self.from = SimTime::NEVER;
        if let Some(k) = self.slots() {
            let passed = s.passed(cs, now);
            self.left = (k as u64).saturating_sub(passed) as u32;
        }
    }

    /// No backoff pending at `now`: none, zero slots left, or a countdown
    /// that ended at or before `now`.
    #[inline]
    pub fn expired(&self, now: SimTime, s: &Slotting) -> bool {
        match (self.slots(), self.count_from()) {
            (None, _) | (Some(0), _) => true,
            (Some(k), Some(cs)) => s.end(cs, k as u64) <= now,
            (Some(_), None) => false,
        }
    }

    /// A frame is queued at `now` for the entity, which held none
    /// (10.3.4.2, 10.3.4.3; 10.22.2.2 a) for an EDCAF; `arrival.rs`). A
    /// countdown still running goes on and the frame waits for it. With
    /// none pending (none drawn, or one that has run out) the frame goes
    /// once the medium has been idle for the IFS, unless it arrived at an
    /// empty queue (`queue_was_empty`, [`super::Intake`]) while the medium
    /// is busy (`medium_busy`, [`super::Deferral::busy_at`]): then the
    /// entity draws a backoff, counted from the next idle period.
    #[inline]
    pub fn frame_arrives(
        &mut self,
        now: SimTime,
        s: &Slotting,
        medium_busy: bool,
        queue_was_empty: bool,
        rng: &mut RngStream,
    ) {
        if !self.expired(now, s) {
            return;
        }
        if medium_busy && queue_was_empty {
            self.redraw(rng);
        } else if self.slots().is_none() {
            self.left = 0;
        }
    }

    /// A backoff uniform over [0, CW] (10.3.3; 10.22.2.6 for an EDCAF).
    #[inline]
    pub fn draw(&self, rng: &mut RngStream) -> u32 {
        rng.below(self.cw as u64 + 1) as u32
    }

    /// Draw a new backoff (counted from `count_from`, unchanged: after a
    /// transmission it is unset, and the count starts with the next idle
    /// period).
    #[inline]
    pub fn redraw(&mut self, rng: &mut RngStream) {
        self.left = self.draw(rng);
    }

    /// A new backoff of `k` slots, counted from the next idle period
    /// (after its IFS), whatever the count in progress.
    #[inline]
    pub fn restart(&mut self, k: u32) {
        self.set_slots(Some(k));
        self.from = SimTime::NEVER;
    }

    /// After a failed attempt: CW = min(2 (CW + 1) - 1, CWmax) (10.3.4.3,
    /// 10.22.2.6).
    #[inline]
    pub fn grow_cw(&mut self, cw_max: u32) {
        self.cw = (2 * (self.cw + 1) - 1).min(cw_max);
    }

    /// The countdown ended and the entity transmits: nothing pending.
    #[inline]
    pub fn consume(&mut self) {
        self.left = NO_SLOTS;
        self.from = SimTime::NEVER;
    }
}
