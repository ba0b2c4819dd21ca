//! The packet ledger: every packet generated in a run ends as exactly one of
//! delivered, dropped (with a typed reason) or still in flight. Checked at
//! the end of every run; a run whose ledger does not balance fails.
//!
//! The ledger never panics: a packet that would leave it twice (delivered
//! twice, dropped twice, delivered after being dropped) is a defect
//! upstream, recorded as a violation; the run goes on and `check` then
//! fails it with a message naming the first one (the process does not
//! abort, so the other runs of a sweep are kept).
use std::collections::{BTreeMap, HashMap};
use wifitcp_core::{DropReason, PacketId};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    InFlight,
    Delivered,
    Dropped,
}

#[derive(Default)]
pub struct Ledger {
    state: Vec<State>,
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
    first_violation: Option<String>,
}

impl Ledger {
    /// A new packet id; ids are dense from 0.
    pub fn generate(&mut self) -> PacketId {
        self.state.push(State::InFlight);
        PacketId(self.state.len() as u64 - 1)
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
        let root = self.origin.get(&id.0).copied().unwrap_or(id.0) as usize;
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
        let s = &mut self.state[id.0 as usize];
        match *s {
            State::InFlight => {
                *s = State::Delivered;
                self.delivered += 1;
                true
            }
            State::Delivered => {
                self.violation(format!("packet {} delivered twice", id.0));
                false
            }
            State::Dropped => {
                self.violation(format!("packet {} delivered after being dropped", id.0));
                false
            }
        }
    }
    fn violation(&mut self, what: String) {
        self.violations += 1;
        self.first_violation.get_or_insert(what);
    }
    /// Number of invariant violations recorded (see the module docs).
    pub fn violations(&self) -> u64 {
        self.violations
    }
    pub fn drop(&mut self, id: PacketId, reason: DropReason) {
        let s = &mut self.state[id.0 as usize];
        match *s {
            State::InFlight => {
                *s = State::Dropped;
                *self.dropped.entry(reason).or_default() += 1;
            }
            State::Delivered => self.late_drops += 1,
            State::Dropped => self.violation(format!("packet {} dropped twice ({})", id.0, reason.as_str())),
        }
    }
    pub fn is_in_flight(&self, id: PacketId) -> bool {
        self.state[id.0 as usize] == State::InFlight
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
        let mut seen = std::collections::HashSet::new();
        let mut held_in_flight = queued;
        for id in held {
            if seen.insert(id) && self.is_in_flight(id) {
                held_in_flight += 1;
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
}
