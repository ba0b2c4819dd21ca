//! The transmit queue discipline of each WLAN member's interface.
//!
//! A member whose discipline is the default drop-tail FIFO of the
//! stations' capacity gets it with its first packet: until then its slot
//! holds none and reads as such a queue that has held nothing. A saturated
//! station, which its source feeds on demand, never queues a packet: in a
//! cell of thousands that is a 16-byte allocation a station not made (a
//! drop-tail that was never offered a packet is itself 16 bytes,
//! `wifitcp_queue::droptail`).
//!
//! A slot is a 32-bit index into the built disciplines (`EMPTY`: none
//! built): 4 bytes a member where a boxed discipline's pointer takes 16,
//! in a cell of thousands of saturated stations whose slots stay empty,
//! and in the copies a partitioned run's split and merge make.
//!
//! Invariants: an empty slot is a drop-tail of `capacity` packets that has
//! counted nothing (so reading it or building it gives the same answers);
//! a slot is built only to take a packet; slots move between a run and its
//! partitions whole; a slot's index names an entry of `built` that holds a
//! discipline, and no two slots name one entry.
use wifitcp_queue::{DropTail, QueueDisc};

/// The index of a slot whose discipline is not built.
const EMPTY: u32 = u32::MAX;

pub struct Queues {
    /// Each slot's discipline: its index in `built`, or `EMPTY`.
    slots: Vec<u32>,
    /// The disciplines built or put in (`None`: one taken out since).
    built: Vec<Option<Box<dyn QueueDisc>>>,
    /// What an empty slot reads as: a fresh drop-tail of the capacity an
    /// empty slot is built with.
    empty: DropTail,
    capacity: usize,
}

impl Queues {
    /// `slots` (`None`: a drop-tail of `capacity` packets, built with its
    /// first packet).
    pub(super) fn new(slots: Vec<Option<Box<dyn QueueDisc>>>, capacity: usize) -> Queues {
        let mut q =
            Queues { slots: vec![EMPTY; slots.len()], built: Vec::new(), empty: DropTail::new(capacity), capacity };
        for (i, d) in slots.into_iter().enumerate() {
            q.put(i, d);
        }
        q
    }

    /// `n` empty slots of the same capacity (a partition's, a merge's).
    pub(super) fn empty_like(&self, n: usize) -> Queues {
        Queues {
            slots: vec![EMPTY; n],
            built: Vec::new(),
            empty: DropTail::new(self.capacity),
            capacity: self.capacity,
        }
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Member slot `i`'s discipline (an empty slot's fresh drop-tail).
    #[inline(always)]
    pub fn get(&self, i: usize) -> &dyn QueueDisc {
        match self.slots[i] {
            EMPTY => &self.empty,
            b => self.built[b as usize].as_deref().expect("a slot names a built discipline"),
        }
    }

    /// Slot `i`'s discipline to give a packet, built if empty.
    #[inline(always)]
    pub(super) fn get_mut(&mut self, i: usize) -> &mut dyn QueueDisc {
        if self.slots[i] == EMPTY {
            self.build(i);
        }
        let b = self.slots[i] as usize;
        self.built[b].as_deref_mut().expect("a slot names a built discipline")
    }

    /// Slot `i`'s discipline if built (an empty one has nothing to give
    /// and ignores airtime and timers).
    #[inline(always)]
    pub(super) fn built_mut(&mut self, i: usize) -> Option<&mut (dyn QueueDisc + 'static)> {
        match self.slots[i] {
            EMPTY => None,
            b => self.built[b as usize].as_deref_mut(),
        }
    }

    /// The disciplines in slot order.
    pub fn iter(&self) -> impl Iterator<Item = &dyn QueueDisc> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Take slot `i`'s discipline, leaving it empty (to another Queues).
    pub(super) fn take(&mut self, i: usize) -> Option<Box<dyn QueueDisc>> {
        match std::mem::replace(&mut self.slots[i], EMPTY) {
            EMPTY => None,
            b => self.built[b as usize].take(),
        }
    }

    /// Put `q` (taken by `take`) in slot `i`, empty.
    pub(super) fn put(&mut self, i: usize, q: Option<Box<dyn QueueDisc>>) {
        debug_assert_eq!(self.slots[i], EMPTY, "a slot is put once");
        if let Some(q) = q {
            self.slots[i] = u32::try_from(self.built.len()).expect("fewer than 2^32 - 1 disciplines");
            self.built.push(Some(q));
        }
    }

    /// Exchange slot `i` with `other`'s slot `i`.
    pub(super) fn swap(&mut self, other: &mut Queues, i: usize) {
        match (self.slots[i], other.slots[i]) {
            (EMPTY, EMPTY) => {}
            (EMPTY, _) | (_, EMPTY) => {
                let (mine, theirs) = (self.take(i), other.take(i));
                self.put(i, theirs);
                other.put(i, mine);
            }
            (a, b) => std::mem::swap(&mut self.built[a as usize], &mut other.built[b as usize]),
        }
    }

    /// Build empty slot `i`'s drop-tail (once a member's, out of the
    /// per-packet path).
    #[cold]
    #[inline(never)]
    fn build(&mut self, i: usize) {
        self.put(i, Some(Box::new(DropTail::new(self.capacity))));
    }
}

#[cfg(test)]
mod tests {
    use super::Queues;
    use wifitcp_core::{FlowId, PacketId, SimTime};
    use wifitcp_queue::{DropTail, QueueDisc, Queued};
    use wifitcp_wire::{Ipv4Addr, Ipv4Header, Packet, UdpHeader};

    fn pkt(i: u64) -> Packet {
        let ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), wifitcp_wire::ip::PROTO_UDP);
        Packet::new_udp(PacketId(i), FlowId(0), SimTime::ZERO, ip, UdpHeader { src_port: 1, dst_port: 2 }, 100)
    }

    #[test]
    fn an_empty_slot_reads_and_fills_as_a_fresh_drop_tail() {
        let mut q = Queues::new(vec![None, None], 2);
        let mut built = DropTail::new(2);
        let view =
            |d: &dyn QueueDisc| (d.kind(), d.len(), d.idle(), d.timed(), d.counters().clone(), d.occupancy().max_len());
        assert_eq!(view(q.get(0)), view(&built));
        assert!(q.built_mut(0).is_none(), "reading an empty slot builds nothing");
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for i in 0..3 {
            let t = SimTime::from_nanos(i);
            q.get_mut(0).enqueue(t, Queued::new(pkt(i), 0, 0), &mut a);
            built.enqueue(t, Queued::new(pkt(i), 0, 0), &mut b);
        }
        assert_eq!((a.len(), b.len()), (1, 1), "the capacity is the empty slot's");
        assert_eq!(view(q.get(0)), view(&built));
        assert!(q.built_mut(1).is_none());
        let mut other = q.empty_like(2);
        q.swap(&mut other, 0);
        assert_eq!((q.get(0).len(), other.get(0).len()), (0, 2));
    }
}
