//! The packet ledger: every packet generated in a run ends as exactly one of
//! delivered, dropped (with a typed reason) or still in flight. Checked at
//! the end of every run; a run whose ledger does not balance fails.
use std::collections::BTreeMap;
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
}

impl Ledger {
    /// A new packet id; ids are dense from 0.
    pub fn generate(&mut self) -> PacketId {
        self.state.push(State::InFlight);
        PacketId(self.state.len() as u64 - 1)
    }
    pub fn generated(&self) -> u64 {
        self.state.len() as u64
    }
    /// Record a delivery; false if the packet had already been delivered
    /// (a duplicate delivery, which is a bug upstream).
    pub fn deliver(&mut self, id: PacketId) -> bool {
        let s = &mut self.state[id.0 as usize];
        match *s {
            State::InFlight => {
                *s = State::Delivered;
                self.delivered += 1;
                true
            }
            State::Delivered => false,
            State::Dropped => panic!("packet {id:?} delivered after being dropped"),
        }
    }
    pub fn drop(&mut self, id: PacketId, reason: DropReason) {
        let s = &mut self.state[id.0 as usize];
        match *s {
            State::InFlight => {
                *s = State::Dropped;
                *self.dropped.entry(reason).or_default() += 1;
            }
            State::Delivered => self.late_drops += 1,
            State::Dropped => panic!("packet {id:?} dropped twice"),
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
        assert!(!l.deliver(a));
    }
}
