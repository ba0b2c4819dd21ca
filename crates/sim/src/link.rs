//! A wired point-to-point link direction: a drop-tail queue, a transmitter
//! that serialises one IP datagram at a time at the link rate, and a
//! propagation delay. Deliveries keep FIFO order.
//!
//! The transmitter is not driven by events: a packet's serialisation
//! start and end follow from the link's state when it is offered (it
//! starts at the end of the previous packet's, or at once if the link is
//! idle), so the only event per packet is its arrival at the far end, and
//! only the earliest arrival of a direction is ever scheduled (arrivals
//! are in FIFO order). Each packet carries the tie-break key its sender
//! took when it was offered (`Kernel::link_key`), and its arrival is
//! scheduled under that key whoever schedules it (the sender, for a packet
//! offered to an empty pipe, or the receiver's previous arrival): an
//! arrival's place among the events of its instant then depends only on
//! its sender's history (`kernel.rs`, "Same-instant order"). Queue
//! occupancy at an instant `t` is the number of
//! accepted packets whose serialisation starts after `t`; a packet whose
//! predecessor ends exactly at `t` is already being sent (it is not counted
//! against the queue limit).
use std::collections::VecDeque;
use wifitcp_core::{SimDur, SimTime};
use wifitcp_wire::Packet;

/// An accepted packet: serialisation start and end, the tie-break key of
/// its arrival, and the packet. (Also what crosses from the sending group
/// to the receiving one in a windowed run, `LinkDir::ship`.)
pub struct InPipe {
    start: SimTime,
    end: SimTime,
    key: u64,
    pkt: Packet,
}

/// An arrival to schedule: its instant and its tie-break key.
pub type Arrival = (SimTime, u64);

pub struct LinkDir {
    pub rate_bps: f64,
    pub delay: SimDur,
    /// Queue limit: packets waiting for the transmitter (the one being
    /// serialised not included).
    pub cap: usize,
    /// Accepted packets not yet arrived, in FIFO order (waiting, being
    /// serialised, or propagating).
    pipe: VecDeque<InPipe>,
    /// Packets whose serialisation ended (updated by `account`).
    pub sent: u64,
    pub dropped: u64,
    pub max_queue: usize,
    /// Packets that left the pipe (arrived).
    arrived: u64,
    /// The last serialisation time computed and its IP length: a direction
    /// mostly carries one size (full segments one way, ACKs the other),
    /// and the float conversion costs more than the rest of `offer`.
    last_tx: (u32, SimDur),
    /// Packets at the front of the pipe already shipped to the receiving
    /// group (`ship`; a windowed run's sending side only).
    shipped: usize,
}

impl LinkDir {
    pub fn new(rate_bps: f64, delay: SimDur, cap: usize) -> Self {
        LinkDir {
            rate_bps,
            delay,
            cap,
            pipe: VecDeque::new(),
            sent: 0,
            dropped: 0,
            max_queue: 0,
            arrived: 0,
            last_tx: (0, Self::tx_time_of(0, rate_bps)),
            shipped: 0,
        }
    }

    pub fn tx_time(&self, p: &Packet) -> SimDur {
        Self::tx_time_of(p.ip_len(), self.rate_bps)
    }

    fn tx_time_of(ip_len: u32, rate_bps: f64) -> SimDur {
        SimDur::from_secs_f64(ip_len as f64 * 8.0 / rate_bps)
    }

    /// Packets waiting for the transmitter at `now`.
    fn waiting(&self, now: SimTime) -> usize {
        self.pipe.len() - self.pipe.partition_point(|x| x.start <= now)
    }

    /// Offer a packet at `now`, its arrival to be scheduled under the
    /// tie-break key `key`; returns it back if the queue is full.
    /// `Ok(Some(a))`: the pipe was empty, so this packet's arrival `a` is
    /// the direction's next one and the caller must schedule it.
    pub fn offer(&mut self, now: SimTime, p: Packet, key: u64) -> Result<Option<Arrival>, Packet> {
        let busy_until = self.pipe.back().map_or(SimTime::ZERO, |x| x.end);
        let start = if busy_until <= now {
            now
        } else {
            let waiting = self.waiting(now);
            if waiting >= self.cap {
                self.dropped += 1;
                return Err(p);
            }
            self.max_queue = self.max_queue.max(waiting + 1);
            busy_until
        };
        let len = p.ip_len();
        if len != self.last_tx.0 {
            self.last_tx = (len, Self::tx_time_of(len, self.rate_bps));
        }
        let end = start + self.last_tx.1;
        let first = self.pipe.is_empty();
        self.pipe.push_back(InPipe { start, end, key, pkt: p });
        Ok(first.then_some((end + self.delay, key)))
    }

    /// The packet whose propagation ends now, and the arrival of the next
    /// one (to be scheduled), if any.
    pub fn arrive(&mut self, now: SimTime) -> (Packet, Option<Arrival>) {
        let x = self.pipe.pop_front().expect("arrival with nothing in the pipe");
        debug_assert_eq!(x.end + self.delay, now);
        self.arrived += 1;
        (x.pkt, self.pipe.front().map(|n| (n.end + self.delay, n.key)))
    }

    /// The sending side of a direction whose far end another group of a
    /// windowed run holds (`world/window.rs`): the packets offered since
    /// the last call, copied to `out` in offer order for the receiving
    /// side (`inject`), and those whose serialisation ended by `before`
    /// (the barrier's instant, no later than any offer to come) forgotten.
    /// The queue limit, drops and `sent` stay this side's; no arrival is
    /// scheduled here.
    pub fn ship(&mut self, before: SimTime, mut out: impl FnMut(InPipe)) {
        for x in self.pipe.range(self.shipped..) {
            out(InPipe { start: x.start, end: x.end, key: x.key, pkt: x.pkt.clone() });
        }
        self.shipped = self.pipe.len();
        while self.pipe.front().is_some_and(|x| x.end <= before) {
            self.pipe.pop_front();
            self.arrived += 1;
            self.shipped -= 1;
        }
    }

    /// The receiving side of such a direction: a packet the sending side
    /// shipped, in offer order; `Some(a)`: the pipe was empty, so its
    /// arrival `a` is the direction's next one and the caller must
    /// schedule it.
    pub fn inject(&mut self, x: InPipe) -> Option<Arrival> {
        let first = self.pipe.is_empty();
        let a = (x.end + self.delay, x.key);
        self.pipe.push_back(x);
        first.then_some(a)
    }

    /// Bring `sent` up to date at `now` (serialisations ended by then).
    pub fn account(&mut self, now: SimTime) {
        self.sent = self.arrived + self.pipe.partition_point(|x| x.end <= now) as u64;
    }

    /// Packets in the link: waiting, being serialised or propagating.
    pub fn held(&self) -> impl Iterator<Item = &Packet> {
        self.pipe.iter().map(|x| &x.pkt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wifitcp_core::{FlowId, PacketId};
    use wifitcp_wire::{ip::PROTO_UDP, Ipv4Header, UdpHeader};

    /// A 1000-byte IP datagram (8 us at 1 Gbit/s).
    fn pkt(id: u64) -> Packet {
        let ip = Ipv4Header::new(std::net::Ipv4Addr::new(10, 0, 0, 1), std::net::Ipv4Addr::new(10, 0, 0, 2), PROTO_UDP);
        Packet::new_udp(PacketId(id), FlowId(0), SimTime::ZERO, ip, UdpHeader { src_port: 1, dst_port: 2 }, 1000 - 28)
    }
    fn us(x: u64) -> SimTime {
        SimTime(x * 1000)
    }

    #[test]
    fn serialises_back_to_back_and_limits_the_queue() {
        // 1 Gbit/s, 100 us delay, queue of 2.
        let mut l = LinkDir::new(1e9, SimDur::from_micros(100), 2);
        assert_eq!(l.tx_time(&pkt(0)), SimDur::from_micros(8));
        // idle: starts at once, arrival 8 + 100 us is the one to schedule
        assert_eq!(l.offer(us(0), pkt(0), 0).ok().unwrap(), Some((us(108), 0)));
        // busy: queued behind it (start 8, 16), not the first arrival
        assert_eq!(l.offer(us(1), pkt(1), 1).ok().unwrap(), None);
        assert_eq!(l.offer(us(2), pkt(2), 2).ok().unwrap(), None);
        // two waiting: the fourth is dropped
        assert!(l.offer(us(3), pkt(3), 3).is_err());
        assert_eq!((l.dropped, l.max_queue), (1, 2));
        // at 8 us packet 1 is in service, so one waits: room again
        assert_eq!(l.offer(us(8), pkt(4), 4).ok().unwrap(), None);
        // arrivals in FIFO order, 8 us apart
        let (p, next) = l.arrive(us(108));
        assert_eq!((p.id, next), (PacketId(0), Some((us(116), 1))));
        l.account(us(20));
        assert_eq!(l.sent, 2); // packets 0 (end 8) and 1 (end 16)
        assert_eq!(l.held().count(), 3);
        for (t, id) in [(116, 1), (124, 2)] {
            assert_eq!(l.arrive(us(t)).0.id, PacketId(id));
        }
        let (p, next) = l.arrive(us(132));
        assert_eq!((p.id, next), (PacketId(4), None));
        l.account(us(200));
        assert_eq!(l.sent, 4);
        // idle again: starts at once
        assert_eq!(l.offer(us(300), pkt(5), 5).ok().unwrap(), Some((us(408), 5)));
    }

    #[test]
    fn a_cut_direction_ships_what_its_sender_accepts() {
        // the sending group's copy: queue limit 1 at 1 Gbit/s, 100 us delay
        let mut tx = LinkDir::new(1e9, SimDur::from_micros(100), 1);
        let mut rx = LinkDir::new(1e9, SimDur::from_micros(100), 1);
        assert_eq!(tx.offer(us(0), pkt(0), 7).ok().unwrap(), Some((us(108), 7)));
        assert!(tx.offer(us(1), pkt(1), 8).is_ok());
        assert!(tx.offer(us(2), pkt(2), 9).is_err(), "the sender's queue limit holds");
        let mut out = Vec::new();
        tx.ship(us(10), |x| out.push(x));
        assert_eq!(out.len(), 2);
        // packet 0 (serialised by 8 us) is forgotten, packet 1 kept for the queue
        assert_eq!(tx.held().count(), 1);
        let mut it = out.into_iter();
        assert_eq!(rx.inject(it.next().unwrap()), Some((us(108), 7)));
        assert_eq!(rx.inject(it.next().unwrap()), None);
        let (p, next) = rx.arrive(us(108));
        assert_eq!((p.id, next), (PacketId(0), Some((us(116), 8))));
        // nothing new: nothing shipped twice
        let mut again = Vec::new();
        tx.ship(us(20), |x| again.push(x));
        assert!(again.is_empty() && tx.held().count() == 0);
        tx.account(us(20));
        assert_eq!((tx.sent, tx.dropped), (2, 1));
    }
}
