//! The kernel of the run loop: what every part's per-event code shares.
//!
//! It holds the event queue (and with it the clock: the instant of the
//! event being handled), the timer registry with the owner of every key,
//! the packet ledger, the per-packet trace, and the run's end, warm-up and
//! sampling interval. The parts (`Nodes`, `Cells`, `Flows`) each take it
//! as a `&mut` argument.
//!
//! Invariants: time never goes backwards (`EventQueue`); every key of the
//! registry has exactly one owner, recorded when it is registered; an
//! armed key has exactly one current `Ev::Timer` in the queue (older ones
//! are stale and are dropped at `due`).
use super::events::{Ev, EvCode, TimerOwner};
use crate::ledger::Ledger;
use crate::trace::PacketTrace;
use wifitcp_core::{DropReason, EventQueue, SimDur, SimTime};
use wifitcp_net::{TimerKey, TimerRegistry};
use wifitcp_wire::Packet;

/// The most samples reserved for a flow's series before the run: a run
/// whose length is only an upper bound (an emulator's, ended early) must
/// not hold its whole length's series up front; a longer series grows by
/// doubling from here.
const SAMPLES_RESERVED_MAX: usize = 1 << 12;

pub(super) struct Kernel {
    q: EventQueue<EvCode>,
    /// Every component wake-up other than the MACs', and who owns each key.
    timers: TimerRegistry,
    timer_owner: Vec<TimerOwner>,
    pub(super) ledger: Ledger,
    /// Per-packet trace (`World::trace_to`), off by default.
    pub(super) trace: Option<PacketTrace>,
    /// The run's end (`scenario.duration_s`, or earlier by `end_early`).
    pub(super) end: SimTime,
    pub(super) warmup: SimTime,
    /// Statistics sampling interval.
    pub(super) bin: SimDur,
    /// Sampling events handled (`Ev::Sample`).
    pub(super) samples: u64,
    /// Events handled elsewhere and counted here: by the partitions of a
    /// partitioned run, once merged back (`part.rs`).
    pub(super) events_elsewhere: u64,
}

impl Kernel {
    pub(super) fn new(end: SimTime, warmup: SimTime, bin: SimDur) -> Kernel {
        Kernel {
            q: EventQueue::with_capacity(64),
            timers: TimerRegistry::new(),
            timer_owner: Vec::new(),
            ledger: Ledger::default(),
            trace: None,
            end,
            warmup,
            bin,
            samples: 0,
            events_elsewhere: 0,
        }
    }

    /// A partition's kernel (`part.rs`): an empty event queue, timer
    /// registry (its components register their keys again) and ledger,
    /// the same end, warm-up and sampling.
    pub(super) fn part(&self) -> Kernel {
        Kernel::new(self.end, self.warmup, self.bin)
    }

    /// Take every queued event, in (time, insertion) order (to hand them
    /// to the partitions; the queue's clock moves with them).
    pub(super) fn take_events(&mut self) -> Vec<(SimTime, Ev)> {
        std::iter::from_fn(|| self.q.pop()).map(|(t, e)| (t, e.ev())).collect()
    }

    /// The owner of timer `key`.
    pub(super) fn owner(&self, key: u32) -> TimerOwner {
        self.timer_owner[key as usize]
    }

    /// The instant of the event being handled (of the last one handled
    /// between events; zero before the first).
    #[inline(always)]
    pub(super) fn now(&self) -> SimTime {
        self.q.now()
    }

    /// Schedule `ev` at `at` (no earlier than now).
    #[inline(always)]
    pub(super) fn push(&mut self, at: SimTime, ev: Ev) {
        self.q.push(at, ev.code());
    }

    /// The instant of the next event, if any.
    #[inline(always)]
    pub(super) fn next_at(&self) -> Option<SimTime> {
        self.q.peek_time()
    }

    /// Take the next event (encoded: it is decoded where it is matched).
    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<(SimTime, EvCode)> {
        self.q.pop()
    }

    /// The insertion sequence number of the next event and the one the
    /// next push takes (`world/probe.rs`).
    pub(super) fn peek_seq(&self) -> Option<u64> {
        self.q.peek_seq()
    }

    pub(super) fn next_seq(&self) -> u64 {
        self.q.next_seq()
    }

    /// Events handled so far.
    pub(super) fn events(&self) -> u64 {
        self.q.popped() + self.events_elsewhere
    }

    /// The samples to reserve for each flow's series at build: the most a
    /// flow takes in the run (`Ev::Sample`: one at each multiple of the
    /// sampling interval before the end, one at the warm-up and one at the
    /// end), but no more than [`SAMPLES_RESERVED_MAX`].
    pub(super) fn samples_to_reserve(&self) -> usize {
        let most = self.end.as_nanos().div_ceil(self.bin.as_nanos().max(1)).saturating_add(2);
        most.min(SAMPLES_RESERVED_MAX as u64) as usize
    }

    /// Drop the timer tables' spare capacity, once the world is built
    /// (they grow by pushes, a key or more per flow and per member: at
    /// thousands of stations, up to half of them would be spare). A key
    /// registered later grows them again.
    pub(super) fn shrink_timers(&mut self) {
        self.timers.shrink_to_fit();
        self.timer_owner.shrink_to_fit();
    }

    /// A new key of the timer registry, owned by `owner`.
    pub(super) fn new_timer(&mut self, owner: TimerOwner) -> TimerKey {
        self.timer_owner.push(owner);
        self.timers.register()
    }

    /// Arm `key` for `at` (exactly; `None` cancels).
    #[inline]
    pub(super) fn arm(&mut self, key: TimerKey, at: Option<SimTime>) {
        if let Some((at, gen)) = self.timers.set(key, at) {
            self.q.push(at, Ev::Timer { key: key.0, gen }.code());
        }
    }

    /// Arm `key` for `at` lazily: only if that is earlier than its armed
    /// instant (see `TimerRegistry::arm_earliest`; TCP endpoints).
    #[inline]
    pub(super) fn arm_earliest(&mut self, key: TimerKey, at: Option<SimTime>) {
        if let Some((at, gen)) = self.timers.arm_earliest(key, at) {
            self.q.push(at, Ev::Timer { key: key.0, gen }.code());
        }
    }

    /// The owner of timer `key` if its event of generation `gen` is due
    /// at `now`; `None` if it is stale (re-armed or cancelled since).
    #[inline(always)]
    pub(super) fn due(&mut self, key: u32, gen: u16, now: SimTime) -> Option<TimerOwner> {
        let owner = self.timer_owner[key as usize];
        let due = match owner {
            TimerOwner::Tcp(_) => self.timers.fire_at(TimerKey(key), now),
            _ => self.timers.fire(TimerKey(key), gen, now),
        };
        due.then_some(owner)
    }

    /// Drop `p` at `node` (on `iface`, "" if none) for `reason`.
    pub(super) fn drop_packet(&mut self, node: usize, iface: &str, p: &Packet, reason: DropReason) {
        if let Some(t) = &self.trace {
            t.packet(self.now(), node, iface, "drop", p, Some(reason));
        }
        self.ledger.drop(p.id, reason);
    }
}
