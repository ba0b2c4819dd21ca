//! One registry of component wake-ups.
//!
//! A component (an agent, a queue discipline, ...) owns a [`TimerKey`]. It
//! tells the registry the instant it next needs to run with
//! [`TimerRegistry::set`]; when that instant differs from the one already
//! armed, the registry bumps the key's generation and returns
//! `(instant, generation)` for the caller to schedule as a single
//! event kind carrying `(key, generation)`. When such an event fires,
//! [`TimerRegistry::fire`] says whether it is still the current one (a
//! re-armed or cancelled timer leaves stale events in the queue, which are
//! ignored). The generation is 16 bits and wraps; a stale event matches
//! only if it also carries the same instant, so a wrap is harmless.
use wifitcp_core::SimTime;

/// A component's slot in the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimerKey(pub u32);

#[derive(Clone, Debug, Default)]
pub struct TimerRegistry {
    /// Per key: the armed instant (`NEVER` when none) and its generation.
    slots: Vec<(SimTime, u16)>,
}

impl TimerRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// A new key, with no wake-up armed.
    pub fn register(&mut self) -> TimerKey {
        self.slots.push((SimTime::NEVER, 0));
        TimerKey(self.slots.len() as u32 - 1)
    }

    /// Room for `n` more keys without growing.
    pub fn reserve_exact(&mut self, n: usize) {
        self.slots.reserve_exact(n);
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Drop the table's spare capacity (keys are registered by pushes: once
    /// every key of a run is registered, up to half the table is spare).
    pub fn shrink_to_fit(&mut self) {
        self.slots.shrink_to_fit();
    }

    /// Arm `key` for `at` (`None` cancels). Returns the event to schedule,
    /// `(instant, generation)`, when the armed instant changed to a real
    /// one; `None` when nothing needs scheduling.
    #[inline]
    pub fn set(&mut self, key: TimerKey, at: Option<SimTime>) -> Option<(SimTime, u16)> {
        let at = at.unwrap_or(SimTime::NEVER);
        let slot = &mut self.slots[key.0 as usize];
        if at == slot.0 {
            return None;
        }
        let gen = slot.1.wrapping_add(1);
        *slot = (at, gen);
        (!at.is_never()).then_some((at, gen))
    }

    /// An event `(key, gen)` fired at `now`: whether it is the current
    /// wake-up of `key` (then the slot is disarmed, and the owner must be
    /// run and re-armed with [`TimerRegistry::set`]).
    #[inline]
    pub fn fire(&mut self, key: TimerKey, gen: u16, now: SimTime) -> bool {
        let slot = &mut self.slots[key.0 as usize];
        if *slot == (now, gen) {
            slot.0 = SimTime::NEVER;
            true
        } else {
            false
        }
    }

    /// Arm `key` for `at` unless a wake-up no later than `at` is armed
    /// ("lazy" timers, for owners whose deadline moves often: a TCP
    /// connection's retransmission and delayed-ACK timers). Returns the
    /// instant to schedule (with generation 0) when it is earlier than the
    /// armed one. The owner then runs at the earliest instant it ever
    /// asked for, and must tolerate a wake-up with nothing due (it re-arms
    /// for its current deadline). Match lazy events with
    /// [`TimerRegistry::fire_at`].
    #[inline]
    pub fn arm_earliest(&mut self, key: TimerKey, at: Option<SimTime>) -> Option<(SimTime, u16)> {
        let at = at.unwrap_or(SimTime::NEVER);
        let slot = &mut self.slots[key.0 as usize];
        if at < slot.0 {
            slot.0 = at;
            Some((at, 0))
        } else {
            None
        }
    }

    /// A lazy event of `key` fired at `now`: whether `now` is the armed
    /// instant (then the slot is disarmed). Of two events for one instant
    /// the first acts.
    #[inline]
    pub fn fire_at(&mut self, key: TimerKey, now: SimTime) -> bool {
        let slot = &mut self.slots[key.0 as usize];
        if slot.0 == now {
            slot.0 = SimTime::NEVER;
            true
        } else {
            false
        }
    }

    /// The instant armed for `key`, if any.
    pub fn armed(&self, key: TimerKey) -> Option<SimTime> {
        let t = self.slots[key.0 as usize].0;
        (!t.is_never()).then_some(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rearming_makes_earlier_events_stale() {
        let mut r = TimerRegistry::new();
        let k = r.register();
        let t = |us| SimTime::from_micros(us);
        let (a, ga) = r.set(k, Some(t(10))).unwrap();
        assert_eq!(r.set(k, Some(t(10))), None, "same instant: nothing new to schedule");
        let (b, gb) = r.set(k, Some(t(20))).unwrap();
        assert_ne!(ga, gb);
        assert!(!r.fire(k, ga, a), "the event for 10 us is stale");
        assert!(r.fire(k, gb, b));
        assert!(!r.fire(k, gb, b), "fires once");
        assert_eq!(r.armed(k), None);
    }

    #[test]
    fn lazy_timers_keep_the_earliest_instant() {
        let mut r = TimerRegistry::new();
        let k = r.register();
        let t = |us| SimTime::from_micros(us);
        assert_eq!(r.arm_earliest(k, Some(t(30))), Some((t(30), 0)));
        assert_eq!(r.arm_earliest(k, Some(t(40))), None, "later: the armed event will do");
        assert_eq!(r.arm_earliest(k, Some(t(20))), Some((t(20), 0)));
        assert!(!r.fire_at(k, t(30)), "stale once 20 us is armed");
        assert!(r.fire_at(k, t(20)));
        assert!(!r.fire_at(k, t(20)), "the first event of an instant acts");
        assert!(!r.fire_at(k, t(30)), "nothing armed any more");
    }

    #[test]
    fn cancel_and_keys_are_independent() {
        let mut r = TimerRegistry::new();
        let (k1, k2) = (r.register(), r.register());
        let (a, g1) = r.set(k1, Some(SimTime::from_micros(5))).unwrap();
        let (b, g2) = r.set(k2, Some(SimTime::from_micros(5))).unwrap();
        assert_eq!(r.set(k1, None), None);
        assert!(!r.fire(k1, g1, a), "cancelled");
        assert!(r.fire(k2, g2, b));
        assert_eq!(r.len(), 2);
    }
}
