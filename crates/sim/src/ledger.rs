//! The packet ledger: every packet generated in a run ends as exactly one of
//! delivered, dropped (with a typed reason) or still in flight. Checked at
//! the end of every run; a run whose ledger does not balance fails.
//!
//! The ledger never panics: a packet that would leave it twice (delivered
//! twice, dropped twice, delivered after being dropped) is a defect
//! upstream, recorded as a violation; the run goes on and `check` then
//! fails it with a message naming the first one (the process does not
//! abort, so the other runs of a sweep are kept).
//!
//! A group of a windowed run (`world/window.rs`) numbers its packets in
//! the bits below [`GROUP_SHIFT`] and puts its group above them; packets
//! another group made that leave the run here are logged (`Foreign`) and
//! applied to their own group's ledger when the groups are merged.
use std::collections::{BTreeMap, HashMap, HashSet};
use wifitcp_core::{DropReason, PacketId};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    InFlight,
    Delivered,
    Dropped,
}

/// Bits of a packet id below its group (a windowed run's, module docs).
pub const GROUP_SHIFT: u32 = 48;

/// What a group of a windowed run saw of other groups' packets: each one's
/// state here, the outcomes in the order they happened, and which reached
/// their flow's receiver.
#[derive(Default)]
struct Foreign {
    state: HashMap<u64, State>,
    log: Vec<(u64, Option<DropReason>)>,
    arrived: HashSet<u64>,
}

#[derive(Default)]
pub struct Ledger {
    /// The id of this ledger's first packet: its group's bits (0 but in a
    /// windowed run's groups).
    base: u64,
    state: Vec<State>,
    /// Other groups' packets (`None`: every packet is this ledger's).
    foreign: Option<Box<Foreign>>,
    pub delivered: u64,
    pub dropped: BTreeMap<DropReason, u64>,
    /// Drops of copies of a packet that had already been delivered, or
    /// whose copy had already reached the next hop (a MAC retry-limit
    /// discard after every ACK of it was lost): not packet losses.
    pub late_drops: u64,
    /// Packets agents made as copies of others (a proxy's replays and
    /// handed-on segments), each also counted in `generated`.
    pub copies: u64,
    /// The original of each copy (copy id -> original id; a copy of a
    /// copy maps to the first original).
    origin: HashMap<u64, u64>,
    /// One bit per original packet whose data reached its flow's receiver
    /// (`first_arrival`).
    arrived: Vec<u64>,
    /// Invariant violations seen (counted; the first described).
    violations: u64,
    /// (boxed: the kernel that holds the ledger keeps its size, and with
    /// it the layout of the run loop's state)
    #[allow(clippy::box_collection)]
    first_violation: Option<Box<String>>,
}

impl Ledger {
    /// The ledger of group `g` of a windowed run: its ids carry `g` above
    /// [`GROUP_SHIFT`], and it logs other groups' packets.
    pub fn of_group(g: u16) -> Ledger {
        Ledger { base: (g as u64) << GROUP_SHIFT, foreign: Some(Box::default()), ..Ledger::default() }
    }
    /// A new packet id; ids are dense from the ledger's base (0 but in a
    /// windowed run's groups).
    pub fn generate(&mut self) -> PacketId {
        self.state.push(State::InFlight);
        PacketId(self.base + self.state.len() as u64 - 1)
    }
    /// The state of another group's packet `id` as seen here (in flight
    /// until it leaves the run here).
    fn foreign_state(&mut self, id: PacketId) -> &mut State {
        let f = self.foreign.as_mut().unwrap_or_else(|| panic!("packet {} is not of this run", id.0));
        f.state.entry(id.0).or_insert(State::InFlight)
    }
    /// Log the outcome of another group's packet (`None`: delivered); its
    /// own group's ledger counts it (`apply`).
    fn log(&mut self, id: PacketId, outcome: Option<DropReason>) {
        if let Some(f) = &mut self.foreign {
            f.log.push((id.0, outcome));
        }
    }
    /// The outcomes this group logged of other groups' packets, in order.
    pub fn take_foreign(&mut self) -> Vec<(u64, Option<DropReason>)> {
        self.foreign.as_mut().map(|f| std::mem::take(&mut f.log)).unwrap_or_default()
    }
    /// Apply an outcome another group logged of one of this ledger's
    /// packets (`take_foreign`).
    pub fn apply(&mut self, id: u64, outcome: Option<DropReason>) {
        match outcome {
            None => {
                self.deliver(PacketId(id));
            }
            Some(r) => self.drop(PacketId(id), r),
        }
    }
    /// A new packet id for a copy of packet `of` (an agent's replay).
    pub fn generate_copy(&mut self, of: PacketId) -> PacketId {
        let id = self.generate();
        self.copies += 1;
        if of.0 < id.0 {
            let root = self.origin.get(&of.0).copied().unwrap_or(of.0);
            self.origin.insert(id.0, root);
        }
        id
    }
    /// Whether packet `id` is the first of its original and the copies
    /// made of it to reach its flow's receiver (and note that one did).
    pub fn first_arrival(&mut self, id: PacketId) -> bool {
        if let Some(f) = &mut self.foreign {
            if id.0.wrapping_sub(self.base) >= self.state.len() as u64 {
                return f.arrived.insert(id.0);
            }
        }
        let root = (self.origin.get(&id.0).copied().unwrap_or(id.0) - self.base) as usize;
        let (w, bit) = (root / 64, 1u64 << (root % 64));
        if self.arrived.len() <= w {
            self.arrived.resize(w + 1, 0);
        }
        let first = self.arrived[w] & bit == 0;
        self.arrived[w] |= bit;
        first
    }
    pub fn generated(&self) -> u64 {
        self.state.len() as u64
    }
    /// Record a delivery; false if the packet had already left the ledger
    /// (delivered or dropped before: a defect upstream, recorded as a
    /// violation that fails the run at `check`).
    pub fn deliver(&mut self, id: PacketId) -> bool {
        let i = id.0.wrapping_sub(self.base);
        if i >= self.state.len() as u64 {
            return self.deliver_foreign(id);
        }
        let s = &mut self.state[i as usize];
        match *s {
            State::InFlight => {
                *s = State::Delivered;
                self.delivered += 1;
                true
            }
            was => self.left_again(id, was, None),
        }
    }
    /// `deliver` of another group's packet: logged for its own ledger.
    #[cold]
    fn deliver_foreign(&mut self, id: PacketId) -> bool {
        let s = self.foreign_state(id);
        match *s {
            State::InFlight => {
                *s = State::Delivered;
                self.log(id, None);
                true
            }
            was => self.left_again(id, was, None),
        }
    }
    /// Packet `id`, which had left the run (`was`), leaves it again:
    /// delivered (`reason` `None`) or dropped; a violation (module docs).
    /// Returns false.
    fn left_again(&mut self, id: PacketId, was: State, reason: Option<DropReason>) -> bool {
        let what = match (was, reason) {
            (State::Delivered, None) => "delivered twice".to_string(),
            (_, None) => "delivered after being dropped".to_string(),
            (_, Some(r)) => format!("dropped twice ({})", r.as_str()),
        };
        self.violation(format!("packet {} {what}", id.0));
        false
    }
    fn violation(&mut self, what: String) {
        self.violations += 1;
        self.first_violation.get_or_insert(Box::new(what));
    }
    /// Number of invariant violations recorded (see the module docs).
    pub fn violations(&self) -> u64 {
        self.violations
    }
    pub fn drop(&mut self, id: PacketId, reason: DropReason) {
        let i = id.0.wrapping_sub(self.base);
        if i >= self.state.len() as u64 {
            return self.drop_foreign(id, reason);
        }
        let s = &mut self.state[i as usize];
        match *s {
            State::InFlight => {
                *s = State::Dropped;
                *self.dropped.entry(reason).or_default() += 1;
            }
            State::Delivered => self.late_drops += 1,
            State::Dropped => {
                self.left_again(id, State::Dropped, Some(reason));
            }
        }
    }
    /// `drop` of another group's packet: logged for its own ledger (which
    /// counts a drop after a delivery as a late drop).
    #[cold]
    fn drop_foreign(&mut self, id: PacketId, reason: DropReason) {
        let s = self.foreign_state(id);
        match *s {
            State::InFlight | State::Delivered => {
                if *s == State::InFlight {
                    *s = State::Dropped;
                }
                self.log(id, Some(reason));
            }
            State::Dropped => {
                self.left_again(id, State::Dropped, Some(reason));
            }
        }
    }
    pub fn is_in_flight(&self, id: PacketId) -> bool {
        self.state[(id.0 - self.base) as usize] == State::InFlight
    }
    pub fn in_flight(&self) -> u64 {
        self.state.iter().filter(|s| **s == State::InFlight).count() as u64
    }
    pub fn dropped_total(&self) -> u64 {
        self.dropped.values().sum()
    }
    /// Check the balance against the packets actually found in buffers:
    /// `held` are ids of packets a MAC or link still holds (some may have
    /// been delivered already, e.g. a frame whose ACK was lost), `queued`
    /// the number of packets in queue disciplines (never delivered yet).
    pub fn check(&self, held: impl Iterator<Item = PacketId>, queued: u64) -> Result<(), String> {
        if let Some(first) = &self.first_violation {
            return Err(format!(
                "packet ledger: {} invariant violation(s), the first: {first} (a packet left the run twice)",
                self.violations
            ));
        }
        // (a packet held in two places counts once: one bit per packet of
        // the ledger, an eighth of its own table, not a set of the held)
        let mut seen = vec![0u64; self.state.len().div_ceil(64)];
        let mut held_in_flight = queued;
        for id in held {
            let i = (id.0 - self.base) as usize;
            let (word, bit) = (i / 64, 1u64 << (i % 64));
            if seen[word] & bit == 0 {
                seen[word] |= bit;
                held_in_flight += u64::from(self.is_in_flight(id));
            }
        }
        let in_flight = self.in_flight();
        let total = self.delivered + self.dropped_total() + in_flight;
        if total != self.generated() {
            return Err(format!(
                "packet ledger does not balance: generated {} != delivered {} + dropped {} + in flight {}",
                self.generated(),
                self.delivered,
                self.dropped_total(),
                in_flight
            ));
        }
        if held_in_flight != in_flight {
            return Err(format!("packet ledger: {in_flight} packets are neither delivered nor dropped but {held_in_flight} are held in buffers (a packet was lost or duplicated without a reason)"));
        }
        Ok(())
    }

    /// The ledgers of a windowed run's groups (in group order) as one:
    /// each group's outcomes of other groups' packets applied to their own
    /// ledgers, then every group's packets numbered after the previous
    /// groups' (`absorb`). Returns the merged ledger and, per group, the
    /// number its first packet took (`merged_id`).
    pub fn merge_groups(mut groups: Vec<Ledger>) -> (Ledger, Vec<u64>) {
        let logs: Vec<_> = groups.iter_mut().map(|l| l.take_foreign()).collect();
        for (id, outcome) in logs.into_iter().flatten() {
            groups[(id >> GROUP_SHIFT) as usize].apply(id, outcome);
        }
        let mut merged = Ledger::default();
        let mut first = Vec::with_capacity(groups.len());
        for g in groups {
            first.push(merged.generated());
            merged.absorb(g);
        }
        (merged, first)
    }

    /// The id in `merge_groups`' ledger of a group's packet `id` (`first`:
    /// what `merge_groups` returned).
    pub fn merged_id(id: PacketId, first: &[u64]) -> PacketId {
        let g = (id.0 >> GROUP_SHIFT) as usize;
        PacketId(first[g] + (id.0 & ((1 << GROUP_SHIFT) - 1)))
    }

    /// Add the packets of `other`, a ledger of another part of the same
    /// run (a partition of a partitioned run, `world/part.rs`), as packets
    /// of this one: its ids follow this ledger's, its counts and
    /// violations add. The sum answers every count (`generated`,
    /// `delivered`, `dropped`, `in_flight`, ...) as one ledger of the whole
    /// run would; it no longer answers `first_arrival` for `other`'s
    /// packets (asked only while a run goes on).
    pub fn absorb(&mut self, other: Ledger) {
        self.state.extend(other.state);
        self.delivered += other.delivered;
        for (r, n) in other.dropped {
            *self.dropped.entry(r).or_default() += n;
        }
        self.late_drops += other.late_drops;
        self.copies += other.copies;
        self.violations += other.violations;
        if self.first_violation.is_none() {
            self.first_violation = other.first_violation;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn balances_and_detects_leaks() {
        let mut l = Ledger::default();
        let a = l.generate();
        let b = l.generate();
        let c = l.generate();
        l.deliver(a);
        l.drop(b, DropReason::QueueFull);
        assert!(l.check([c].into_iter(), 0).is_ok());
        assert!(l.check(std::iter::empty(), 1).is_ok(), "c counted as queued");
        assert!(l.check(std::iter::empty(), 0).is_err(), "c vanished");
        l.drop(a, DropReason::RetryLimit);
        assert_eq!(l.late_drops, 1);
        assert!(l.check([c].into_iter(), 0).is_ok(), "a late drop is no violation");
        assert!(!l.deliver(a));
        let e = l.check([c].into_iter(), 0).unwrap_err();
        assert!(e.contains("packet 0 delivered twice"), "{e}");
    }

    #[test]
    fn leaving_twice_fails_the_check_without_panicking() {
        let mut l = Ledger::default();
        let a = l.generate();
        let b = l.generate();
        l.drop(a, DropReason::LinkQueueFull);
        l.drop(a, DropReason::LinkQueueFull);
        assert!(!l.deliver(a));
        l.drop(b, DropReason::QueueFull);
        assert!(!l.deliver(b));
        assert_eq!(l.violations(), 3);
        let e = l.check(std::iter::empty(), 0).unwrap_err();
        assert!(e.contains("3 invariant violation(s)") && e.contains("packet 0 dropped twice"), "{e}");
    }

    #[test]
    fn groups_log_each_others_packets_and_merge_into_one_ledger() {
        let (mut g0, mut g1) = (Ledger::of_group(0), Ledger::of_group(1));
        let a = g0.generate();
        let b = g0.generate();
        let c = g1.generate();
        assert_eq!((a.0, c.0), (0, 1 << GROUP_SHIFT));
        // g1 delivers a (its receiver's first arrival), then a MAC copy of
        // it is dropped late; g0 drops c; b stays in flight
        assert!(g1.deliver(a) && g1.first_arrival(a) && !g1.first_arrival(a));
        g1.drop(a, DropReason::RetryLimit);
        g0.drop(c, DropReason::LinkQueueFull);
        // foreign outcomes count only in their own group's ledger
        assert_eq!((g1.delivered, g1.late_drops, g0.dropped_total()), (0, 0, 0));
        let (m, first) = Ledger::merge_groups(vec![g0, g1]);
        assert_eq!(first, [0, 2]);
        assert_eq!((m.generated(), m.delivered, m.late_drops, m.dropped_total()), (3, 1, 1, 1));
        assert_eq!(Ledger::merged_id(c, &first), PacketId(2));
        assert!(m.check([Ledger::merged_id(b, &first)].into_iter(), 0).is_ok());
        assert!(m.check(std::iter::empty(), 0).is_err(), "b vanished");
    }
}
