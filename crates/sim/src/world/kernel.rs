//! The kernel of the run loop: what every part's per-event code shares.
//!
//! It holds the event queue (and with it the clock: the instant of the
//! event being handled), the timer registry with the owner of every key,
//! the packet ledger, the per-packet trace, and the run's end, warm-up and
//! sampling interval. The parts (`Nodes`, `Cells`, `Flows`) each take it
//! as a `&mut` argument.
//!
//! Same-instant order. Events pop by instant; events of one instant pop
//! in insertion order in a world of one partition. In a world whose cells
//! are joined only by wired links (`Order`, set by `World::build_parts`
//! from the cut of `cut.rs`), they pop by (partition, that partition's
//! pushes): an event is keyed by the partition whose event pushed it (at
//! the build: the partition that will handle it) and by how many pushes
//! that partition had made before. A packet's arrival at the far end of a
//! wired link is keyed at its offer instead (`link_key`: a push of the
//! sender's partition, taken whether or not the offer schedules the
//! arrival), so it has the same key whoever schedules it. A partition's
//! pushes depend only on the events it handles, so the order is one a run
//! split into partitions reproduces in each of them without knowing the
//! others' histories (`window.rs`). Within one partition it is insertion
//! order.
//!
//! Invariants: time never goes backwards (`EventQueue`); every key of the
//! registry has exactly one owner, recorded when it is registered; an
//! armed key has exactly one current `Ev::Timer` in the queue (older ones
//! are stale and are dropped at `due`); with an `Order`, no two queued
//! events have the same (instant, key). A queued code of a run (the ends
//! of several frames of one cell, or the starts of several flows, at one
//! instant: `EvCode::more`) stands for them all, in order, under
//! consecutive keys from its own (the later ones reserved when it was
//! pushed), all of one partition; each next one is queued, first of all,
//! when the one before it pops.
use super::events::{Ev, EvCode, PackedOwner, TimerOwner, MAX_RUN};
use super::shape::{General, Shape};
use crate::ledger::Ledger;
use crate::metrics::sampling::Sampling;
use crate::trace::PacketTrace;
use wifitcp_core::{DropReason, EventQueue, SimDur, SimTime};
use wifitcp_net::{TimerKey, TimerRegistry};
use wifitcp_wire::Packet;

/// The most samples reserved for a flow's series before the run: a run
/// whose length is only an upper bound (an emulator's, ended early) must
/// not hold its whole length's series up front; a longer series grows by
/// doubling from here.
const SAMPLES_RESERVED_MAX: usize = 1 << 12;

/// The timer key of a component that registered none (a queue discipline
/// that never asks for a wake-up, a flow that starts and never fires
/// again).
pub(super) const NO_TIMER: TimerKey = TimerKey(u32::MAX);

/// Bits of an event's tie-break key below its partition (`Order`).
const PUSH_BITS: u32 = 48;

/// The same-instant order of a world of several partitions (module docs).
pub(super) struct Order {
    /// The partition of each cell, of each timer key and of each flow's
    /// start.
    cell: Vec<u16>,
    key: Vec<u16>,
    flow: Vec<u16>,
    /// Pushes made by each partition's events (and by the build, counted
    /// in the partition that handles what it pushed).
    pushes: Vec<u64>,
    /// The partition of the event being handled; `None` until the first
    /// event is handled (a push is then counted in the partition that will
    /// handle it).
    cur: Option<u16>,
}

impl Order {
    /// The partitions of the cells, of the timer keys and of the flows'
    /// starts.
    pub(super) fn new(cell: Vec<u16>, key: Vec<u16>, flow: Vec<u16>, parts: usize) -> Order {
        Order { cell, key, flow, pushes: vec![0; parts], cur: None }
    }

    /// The partition that handles `ev`.
    #[inline]
    fn of(&self, ev: Ev) -> u16 {
        match ev {
            Ev::BssWake { cell } | Ev::TxEnd { cell, .. } => self.cell[cell as usize],
            // (a key registered after the order was set: partition 0)
            Ev::Timer { key, .. } => self.key.get(key as usize).copied().unwrap_or(0),
            Ev::FlowStart { fi } => self.flow[fi as usize],
            Ev::Sample { part } => part,
            Ev::Ingress => 0,
        }
    }

    /// The tie-break key of `ev`, pushed now.
    #[inline]
    fn key(&mut self, ev: Ev) -> u64 {
        self.keys(ev, 1)
    }

    /// The first of the tie-break keys of `n` events like `ev` pushed now
    /// one after another (the others follow it: `Kernel::push_tx_ends`).
    #[inline]
    fn keys(&mut self, ev: Ev, n: u64) -> u64 {
        let p = self.cur.unwrap_or_else(|| self.of(ev));
        let pushes = &mut self.pushes[p as usize];
        let k = (p as u64) << PUSH_BITS | *pushes;
        *pushes += n;
        k
    }
}

/// `events` as the codes that hold them: each event that continues the
/// run of the one before it (`EvCode::continued_by`: the next flow's start,
/// or the next frame's end, at the same instant) and that `one_part`
/// finds handled by the same partition joins that run's code.
fn runs(
    events: impl IntoIterator<Item = (SimTime, Ev)>,
    one_part: impl Fn(Ev, Ev) -> bool,
) -> impl Iterator<Item = (SimTime, EvCode)> {
    let mut it = events.into_iter().peekable();
    std::iter::from_fn(move || {
        let (at, ev) = it.next()?;
        let mut code = ev.code();
        while let Some(&(t, next)) = it.peek() {
            if t != at || !code.continued_by(next) || !one_part(ev, next) {
                break;
            }
            code = EvCode::run(ev, code.more() + 1);
            it.next();
        }
        Some((at, code))
    })
}

/// Whether `a` and `b` are handled by one partition (always, without an
/// order by partition).
fn one_partition(order: Option<&Order>, a: Ev, b: Ev) -> bool {
    order.is_none_or(|o| o.of(a) == o.of(b))
}

pub(super) struct Kernel {
    q: EventQueue<EvCode>,
    /// `None`: one partition, insertion order (module docs).
    order: Option<Box<Order>>,
    /// Every component wake-up other than the MACs', and who owns each key.
    timers: TimerRegistry,
    timer_owner: Vec<PackedOwner>,
    pub(super) ledger: Ledger,
    /// Per-packet trace (`World::trace_to`), off by default.
    pub(super) trace: Option<PacketTrace>,
    /// The run's end (`scenario.duration_s`, or earlier by `end_early`).
    pub(super) end: SimTime,
    pub(super) warmup: SimTime,
    /// Statistics sampling interval.
    pub(super) bin: SimDur,
    /// Sampling events handled (`Ev::Sample`) of partition 0, and of the
    /// others (not counted as events: a sampling instant is one event).
    pub(super) samples: u64,
    pub(super) more_samples: u64,
    /// Events handled elsewhere and counted here: by the partitions of a
    /// partitioned run, once merged back (`part.rs`).
    pub(super) events_elsewhere: u64,
}

impl Kernel {
    pub(super) fn new(end: SimTime, warmup: SimTime, bin: SimDur) -> Kernel {
        Kernel {
            q: EventQueue::with_capacity(64),
            order: None,
            timers: TimerRegistry::new(),
            timer_owner: Vec::new(),
            ledger: Ledger::default(),
            trace: None,
            end,
            warmup,
            bin,
            samples: 0,
            more_samples: 0,
            events_elsewhere: 0,
        }
    }

    /// A partition's kernel (`part.rs`): an empty event queue, timer
    /// registry (its components register their keys again) and ledger,
    /// the same end, warm-up and sampling.
    pub(super) fn part(&self) -> Kernel {
        Kernel::new(self.end, self.warmup, self.bin)
    }

    /// Take every queued event, in the order they would pop (to queue them
    /// again: under the order by partition, or in the partitions of a
    /// partitioned run); the clock and the count of events handled stay.
    pub(super) fn take_events(&mut self) -> Vec<(SimTime, Ev)> {
        self.q.drain().into_iter().flat_map(|(t, e)| e.events().map(move |ev| (t, ev))).collect()
    }

    /// Order same-instant events by partition (`Order`, module docs):
    /// the events queued so far (the build's) are keyed again, in their
    /// insertion order, as pushed by the partitions that handle them.
    pub(super) fn set_order(&mut self, order: Order) {
        let room = self.q.capacity();
        let queued = self.take_events();
        // (the room reserved at build, `reserve_events`, kept)
        self.q.reserve_total(room);
        self.order = Some(Box::new(order));
        self.push_events(General, queued);
    }

    /// Keep only the queued events that partitions `mine` handle, under
    /// their keys (a group of a windowed run, `window.rs`); needs the
    /// order by partition.
    pub(super) fn keep_events_of(&mut self, mine: &[bool]) {
        let o = self.order.as_ref().expect("an order by partition");
        let kept: Vec<_> =
            self.q.drain_keyed().into_iter().filter(|&(_, _, code)| mine[o.of(code.ev()) as usize]).collect();
        for (at, key, code) in kept {
            // (a run's events are of one partition: it goes back whole,
            // its keys still reserved)
            self.q.push_keyed(at, key, code);
            self.q.skip(code.more() as u64);
        }
    }

    /// Whether events of one instant pop in insertion order (no order by
    /// partition).
    pub(super) fn insertion_order(&self) -> bool {
        self.order.is_none()
    }

    /// The number of partitions of the same-instant order (1: insertion
    /// order).
    pub(super) fn order_parts(&self) -> usize {
        self.order.as_ref().map_or(1, |o| o.pushes.len())
    }

    /// The number of timer keys registered.
    pub(super) fn timer_keys(&self) -> usize {
        self.timer_owner.len()
    }

    /// The owner of timer `key`.
    pub(super) fn owner(&self, key: u32) -> TimerOwner {
        self.timer_owner[key as usize].unpack()
    }

    /// The instant of the event being handled (of the last one handled
    /// between events; zero before the first).
    #[inline(always)]
    pub(super) fn now(&self) -> SimTime {
        self.q.now()
    }

    /// The order by partition, if the world has one (never in the code for
    /// a one-cell shape, `shape.rs`).
    #[inline(always)]
    fn order(&mut self, shape: impl Shape) -> Option<&mut Order> {
        shape.general(self.order.as_deref_mut())
    }

    /// Schedule `ev` at `at` (no earlier than now).
    #[inline(always)]
    pub(super) fn push(&mut self, shape: impl Shape, at: SimTime, ev: Ev) {
        self.push_tied(shape, at, ev, None);
    }

    /// Schedule `ev` at `at`: in insertion order, or under the order by
    /// partition with the tie-break key `tie` (a link arrival's, taken at
    /// its offer: `link_key`) or a new push of the current partition.
    #[inline(always)]
    fn push_tied(&mut self, shape: impl Shape, at: SimTime, ev: Ev, tie: Option<u64>) {
        match self.order(shape) {
            None => {
                self.q.push(at, ev.code());
            }
            Some(o) => {
                let key = tie.unwrap_or_else(|| o.key(ev));
                self.q.push_keyed(at, key, ev.code())
            }
        }
    }

    /// Schedule the ends of frames `id`, `id + 1`, ... (`n` of them) of
    /// cell `cell`, all at `at`: in the order, and under the tie-break keys,
    /// of `n` pushes of one `Ev::TxEnd` each, but queued as one entry per
    /// `MAX_RUN` (`EvCode::run`), the keys of the ends after its first
    /// reserved; `pop` queues each next end when the one before it pops.
    /// The k ends of a collision's frames then cost the heap one push and
    /// one pop, not k.
    #[inline(always)]
    pub(super) fn push_tx_ends(&mut self, shape: impl Shape, at: SimTime, id: u32, cell: u16, n: u32) {
        if n == 1 {
            self.push(shape, at, Ev::TxEnd { id, cell });
        } else {
            self.push_tx_end_runs(shape, at, id, cell, n);
        }
    }

    /// `push_tx_ends` of several frames, out of the common path.
    #[cold]
    #[inline(never)]
    fn push_tx_end_runs(&mut self, shape: impl Shape, at: SimTime, id: u32, cell: u16, n: u32) {
        let (mut id, mut left) = (id, n);
        while left > 0 {
            let more = left.min(MAX_RUN) - 1;
            self.push_code(shape, at, EvCode::run(Ev::TxEnd { id, cell }, more));
            id = id.wrapping_add(more + 1);
            left -= more + 1;
        }
    }

    /// Schedule `events`, in order, as `push` would one at a time (same
    /// order, same keys), each that continues the run of the one before it
    /// queued in that run's entry (`runs`): the flows' starts at the build,
    /// the events queued again under an order by partition.
    pub(super) fn push_events(&mut self, shape: impl Shape, events: impl IntoIterator<Item = (SimTime, Ev)>) {
        let order = self.order.as_deref();
        let codes: Vec<(SimTime, EvCode)> = runs(events, |a, b| one_partition(order, a, b)).collect();
        for (at, code) in codes {
            self.push_code(shape, at, code);
        }
    }

    /// The queue entries `push_events` makes of `events` (room to reserve).
    pub(super) fn entries_of(&self, events: &[(SimTime, Ev)]) -> usize {
        let order = self.order.as_deref();
        runs(events.iter().copied(), |a, b| one_partition(order, a, b)).count()
    }

    /// Queue `code` and the events of its run (`EvCode::more`) under the
    /// keys `more() + 1` pushes would take, in its entry.
    #[inline]
    fn push_code(&mut self, shape: impl Shape, at: SimTime, code: EvCode) {
        let more = code.more();
        match self.order(shape) {
            None => {
                self.q.push(at, code);
            }
            Some(o) => {
                let key = o.keys(code.ev(), more as u64 + 1);
                self.q.push_keyed(at, key, code);
            }
        }
        self.q.skip(more as u64);
    }

    /// The instant of the next event, if any.
    #[inline(always)]
    pub(super) fn next_at(&self) -> Option<SimTime> {
        self.q.peek_time()
    }

    /// Take the next event (encoded: it is decoded where it is matched).
    #[inline(always)]
    pub(super) fn pop(&mut self, shape: impl Shape) -> Option<(SimTime, EvCode)> {
        let next = self.q.pop();
        if let Some((at, code)) = next {
            if code.more() > 0 {
                self.queue_next_in_run(at, code);
            }
        }
        if let (Some(o), Some((_, code))) = (self.order(shape), next) {
            o.cur = Some(o.of(code.ev()));
        }
        next
    }

    /// Queue the rest of the run of `code` (just popped), under the key
    /// reserved for its next event, which precedes every queued event
    /// (`push_code`).
    #[cold]
    #[inline(never)]
    fn queue_next_in_run(&mut self, at: SimTime, code: EvCode) {
        let key = self.q.popped_key() + 1;
        self.q.push_first(at, key, code.next_in_run());
    }

    /// The partition that handles `ev` under the order by partition
    /// (`None` without one).
    pub(super) fn part_of(&self, ev: Ev) -> Option<usize> {
        self.order.as_ref().map(|o| o.of(ev) as usize)
    }

    /// The tie-break key of the next event (`probe.rs`): with an order by
    /// partition, the pushing partition in the bits from `PUSH_BITS` up.
    pub(super) fn peek_key(&self) -> Option<u64> {
        self.q.peek_seq()
    }

    /// The partition that pushed an event of key `key`, and the pushes
    /// partition `p` has made so far (`probe.rs`); `None` without an order
    /// by partition.
    pub(super) fn pusher(&self, key: u64) -> Option<usize> {
        self.order.as_ref().map(|_| (key >> PUSH_BITS) as usize)
    }

    pub(super) fn pushes(&self, p: usize) -> u64 {
        self.order.as_ref().map_or(0, |o| o.pushes[p])
    }

    /// The key partition `p`'s `n`-th push took (`probe.rs`).
    pub(super) fn key_of(p: usize, n: u64) -> u64 {
        (p as u64) << PUSH_BITS | n
    }

    /// Events handled so far.
    pub(super) fn events(&self) -> u64 {
        self.q.popped() + self.events_elsewhere - self.more_samples
    }

    /// The run's sampling instants (interval, warm-up, end).
    #[inline]
    pub(super) fn sampling(&self) -> Sampling {
        Sampling { bin: self.bin, warmup: self.warmup, end: self.end }
    }

    /// The samples to reserve for each flow's series at build: one per
    /// sampling instant, but no more than [`SAMPLES_RESERVED_MAX`].
    pub(super) fn samples_to_reserve(&self) -> usize {
        self.sampling().instants().take(SAMPLES_RESERVED_MAX).count()
    }

    /// Drop the timer tables' spare capacity, once the world is built
    /// (they grow by pushes, a key or more per flow and per member: at
    /// thousands of stations, up to half of them would be spare). A key
    /// registered later grows them again.
    pub(super) fn shrink_timers(&mut self) {
        self.timers.shrink_to_fit();
        self.timer_owner.shrink_to_fit();
    }

    /// Drop the timer tables: a partitioned run's own kernel, once its
    /// partitions hold their keys (`part.rs`), arms no timer again.
    pub(super) fn drop_timers(&mut self) {
        self.timers = TimerRegistry::new();
        self.timer_owner = Vec::new();
    }

    /// Room for `n` more keys of the timer registry without growing it
    /// (a flow's timer each, at build).
    pub(super) fn reserve_timers(&mut self, n: usize) {
        self.timers.reserve_exact(n);
        self.timer_owner.reserve_exact(n);
    }

    /// Room for `n` queued events in all without growing the queue (at
    /// build, `build_flows`, `part.rs`).
    pub(super) fn reserve_events(&mut self, n: usize) {
        self.q.reserve_total(n);
    }

    /// A new key of the timer registry, owned by `owner`.
    pub(super) fn new_timer(&mut self, owner: TimerOwner) -> TimerKey {
        self.timer_owner.push(PackedOwner::pack(owner));
        self.timers.register()
    }

    /// Arm `key` for `at` (exactly; `None` cancels).
    #[inline]
    pub(super) fn arm(&mut self, shape: impl Shape, key: TimerKey, at: Option<SimTime>) {
        if let Some((at, gen)) = self.timers.set(key, at) {
            self.push(shape, at, Ev::Timer { key: key.0, gen });
        }
    }

    /// The tie-break key of the arrival of a packet offered now to the
    /// link direction whose arrivals timer `timer` schedules (`link.rs`):
    /// under the order by partition, a push of the partition of the event
    /// being handled (the sender's), taken at the offer whoever schedules
    /// the arrival; 0, unused, in insertion order.
    #[inline]
    pub(super) fn link_key(&mut self, shape: impl Shape, timer: TimerKey) -> u64 {
        match self.order(shape) {
            None => 0,
            Some(o) => o.key(Ev::Timer { key: timer.0, gen: 0 }),
        }
    }

    /// Arm link timer `key` for arrival `next` (`None` cancels): at its
    /// instant, under its own tie-break key with an order by partition
    /// (`link_key`), in insertion order without one.
    #[inline]
    pub(super) fn arm_link(&mut self, shape: impl Shape, key: TimerKey, next: Option<crate::link::Arrival>) {
        let Some((at, tie)) = next else { return self.arm(shape, key, None) };
        if let Some((at, gen)) = self.timers.set(key, Some(at)) {
            self.push_tied(shape, at, Ev::Timer { key: key.0, gen }, Some(tie));
        }
    }

    /// Arm `key` for `at` lazily: only if that is earlier than its armed
    /// instant (see `TimerRegistry::arm_earliest`; TCP endpoints).
    #[inline]
    pub(super) fn arm_earliest(&mut self, shape: impl Shape, key: TimerKey, at: Option<SimTime>) {
        if let Some((at, gen)) = self.timers.arm_earliest(key, at) {
            self.push(shape, at, Ev::Timer { key: key.0, gen });
        }
    }

    /// The owner of timer `key` if its event of generation `gen` is due
    /// at `now`; `None` if it is stale (re-armed or cancelled since).
    #[inline(always)]
    pub(super) fn due(&mut self, key: u32, gen: u16, now: SimTime) -> Option<TimerOwner> {
        let owner = self.timer_owner[key as usize];
        let due = if owner.is_tcp() {
            self.timers.fire_at(TimerKey(key), now)
        } else {
            self.timers.fire(TimerKey(key), gen, now)
        };
        due.then(|| owner.unpack())
    }

    /// Drop `p` at `node` (on `iface`, "" if none) for `reason`.
    pub(super) fn drop_packet(&mut self, node: usize, iface: &str, p: &Packet, reason: DropReason) {
        if let Some(t) = &self.trace {
            t.packet(self.now(), node, iface, "drop", p, Some(reason));
        }
        self.ledger.drop(p.id, reason);
    }
}
