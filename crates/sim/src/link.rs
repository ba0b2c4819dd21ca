//! A wired point-to-point link direction: a drop-tail queue, a transmitter
//! that serialises one IP datagram at a time at the link rate, and a
//! propagation delay. Deliveries keep FIFO order.
use std::collections::VecDeque;
use wifitcp_core::{SimDur, SimTime};
use wifitcp_wire::Packet;

pub struct LinkDir {
    pub rate_bps: f64,
    pub delay: SimDur,
    pub cap: usize,
    pub queue: VecDeque<Packet>,
    /// Packet being serialised, if any.
    pub sending: Option<Packet>,
    /// Packets propagating, with their arrival times (increasing).
    pub flying: VecDeque<(SimTime, Packet)>,
    pub sent: u64,
    pub dropped: u64,
    pub max_queue: usize,
}

impl LinkDir {
    pub fn new(rate_bps: f64, delay: SimDur, cap: usize) -> Self {
        LinkDir { rate_bps, delay, cap, queue: VecDeque::new(), sending: None, flying: VecDeque::new(), sent: 0, dropped: 0, max_queue: 0 }
    }

    pub fn tx_time(&self, p: &Packet) -> SimDur {
        SimDur::from_secs_f64(p.ip_len() as f64 * 8.0 / self.rate_bps)
    }

    /// Offer a packet; returns it back if the queue is full. When the
    /// transmitter is idle the packet starts at once and its end time is
    /// returned in `Ok(Some(end))`.
    pub fn offer(&mut self, now: SimTime, p: Packet) -> Result<Option<SimTime>, Packet> {
        if self.sending.is_none() {
            let end = now + self.tx_time(&p);
            self.sending = Some(p);
            return Ok(Some(end));
        }
        if self.queue.len() >= self.cap {
            self.dropped += 1;
            return Err(p);
        }
        self.queue.push_back(p);
        self.max_queue = self.max_queue.max(self.queue.len());
        Ok(None)
    }

    /// Serialisation finished: the packet starts propagating (arrival time
    /// returned) and the next one starts (its end time returned).
    pub fn tx_done(&mut self, now: SimTime) -> (SimTime, Option<SimTime>) {
        let p = self.sending.take().expect("tx_done while idle");
        let arrive = now + self.delay;
        self.flying.push_back((arrive, p));
        self.sent += 1;
        let next = self.queue.pop_front().map(|q| {
            let end = now + self.tx_time(&q);
            self.sending = Some(q);
            end
        });
        (arrive, next)
    }

    /// The packet whose propagation ends now.
    pub fn arrive(&mut self, now: SimTime) -> Packet {
        let (t, p) = self.flying.pop_front().expect("arrival with nothing flying");
        debug_assert_eq!(t, now);
        p
    }

    pub fn held(&self) -> impl Iterator<Item = &Packet> {
        self.queue.iter().chain(self.sending.iter()).chain(self.flying.iter().map(|(_, p)| p))
    }
}
