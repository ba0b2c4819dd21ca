//! A deterministic two-endpoint test harness: endpoint `a` (active opener,
//! usually the data sender) and `b` (passive opener) joined by two one-way
//! pipes with a fixed propagation delay, an optional bottleneck rate
//! (serialisation at `rate_bps`, FIFO, optional drop-tail limit) and a
//! script of drops. A tiny event loop advances time to the earliest of the
//! endpoints' `next_wakeup` and the pipes' next arrival.
#![allow(dead_code)]

use std::collections::VecDeque;
use wifitcp_core::{RngStream, SimDur, SimTime};
use wifitcp_tcp::{Connection, Reno, Segment, TcpConfig};
use wifitcp_wire::{TcpFlags, TcpHeader};

pub const PORT_A: u16 = 40_000;
pub const PORT_B: u16 = 80;

/// Which way a segment travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    AtoB,
    BtoA,
}

/// One scripted drop rule for one direction.
#[derive(Clone, Debug)]
pub enum Rule {
    /// Drop the n-th (1-based) segment carrying payload, counting
    /// retransmissions too.
    NthData(u64),
    /// Drop the first `times` transmissions of the segment whose payload
    /// starts at byte offset `off` of the stream (0 = first data byte).
    Offset { off: u64, times: u32 },
    /// Drop the first `n` segments with SYN set.
    Syn(u32),
    /// Drop the first `n` pure ACKs (no payload, no SYN/FIN) sent at or
    /// after `from`.
    AcksAfter { from: SimTime, n: u32 },
}

/// A record of every segment handed to a pipe.
#[derive(Clone, Debug)]
pub struct LogEntry {
    pub t: SimTime,
    pub dir: Dir,
    pub hdr: TcpHeader,
    pub len: u32,
    pub rtx: bool,
    pub dropped: bool,
    /// Arrival time at the other end (if not dropped).
    pub arrival: Option<SimTime>,
}

/// A one-way pipe.
pub struct Pipe {
    pub delay: SimDur,
    pub rate_bps: Option<u64>,
    /// Drop-tail limit on segments waiting for the bottleneck.
    pub queue_limit: Option<usize>,
    busy_until: SimTime,
    departures: VecDeque<SimTime>,
    in_flight: VecDeque<(SimTime, Segment)>,
    rules: Vec<Rule>,
    data_count: u64,
    random: Option<(RngStream, f64)>,
    pub queue_drops: u64,
}

impl Pipe {
    pub fn new(delay: SimDur) -> Self {
        Pipe {
            delay,
            rate_bps: None,
            queue_limit: None,
            busy_until: SimTime::ZERO,
            departures: VecDeque::new(),
            in_flight: VecDeque::new(),
            rules: Vec::new(),
            data_count: 0,
            random: None,
            queue_drops: 0,
        }
    }

    fn next_arrival(&self) -> Option<SimTime> {
        self.in_flight.front().map(|x| x.0)
    }

    /// Whether the scripted rules or random loss drop `seg`.
    fn scripted_drop(&mut self, now: SimTime, seg: &Segment, isn: u32) -> bool {
        let h = &seg.header;
        let is_data = seg.payload_len > 0;
        if is_data {
            self.data_count += 1;
        }
        let pure_ack = !is_data && !h.flags.has(TcpFlags::SYN | TcpFlags::FIN);
        let mut drop = false;
        for r in self.rules.iter_mut() {
            let hit = match r {
                Rule::NthData(n) => is_data && self.data_count == *n,
                Rule::Offset { off, times } => {
                    let o = h.seq.wrapping_sub(isn.wrapping_add(1)) as u64;
                    if is_data && o == *off && *times > 0 {
                        *times -= 1;
                        true
                    } else {
                        false
                    }
                }
                Rule::Syn(n) => {
                    if h.flags.has(TcpFlags::SYN) && *n > 0 {
                        *n -= 1;
                        true
                    } else {
                        false
                    }
                }
                Rule::AcksAfter { from, n } => {
                    if pure_ack && now >= *from && *n > 0 {
                        *n -= 1;
                        true
                    } else {
                        false
                    }
                }
            };
            drop |= hit;
        }
        if let Some((rng, p)) = self.random.as_mut() {
            // Always draw, so the loss pattern does not depend on the rules.
            drop |= rng.bernoulli(*p);
        }
        drop
    }

    /// Hand `seg` to the pipe at `now`; returns its arrival time or `None`
    /// if it was dropped.
    fn send(&mut self, now: SimTime, seg: Segment, isn: u32) -> Option<SimTime> {
        if self.scripted_drop(now, &seg, isn) {
            return None;
        }
        let depart = match self.rate_bps {
            None => now,
            Some(rate) => {
                while self.departures.front().is_some_and(|&d| d <= now) {
                    self.departures.pop_front();
                }
                if self.queue_limit.is_some_and(|l| self.departures.len() > l) {
                    self.queue_drops += 1;
                    return None;
                }
                let bytes = 20 + seg.header.header_len() as u64 + seg.payload_len as u64;
                let tx = SimDur(bytes * 8 * 1_000_000_000 / rate);
                let d = now.max(self.busy_until) + tx;
                self.busy_until = d;
                self.departures.push_back(d);
                d
            }
        };
        let arrival = depart + self.delay;
        if let Some(last) = self.in_flight.back() {
            debug_assert!(last.0 <= arrival, "FIFO pipe");
        }
        self.in_flight.push_back((arrival, seg));
        Some(arrival)
    }
}

pub struct Harness {
    pub now: SimTime,
    pub a: Connection,
    pub b: Connection,
    pub ab: Pipe,
    pub ba: Pipe,
    pub isn_a: u32,
    pub isn_b: u32,
    pub log: Vec<LogEntry>,
    pub events: u64,
}

/// Builder-style setup.
pub struct Setup {
    pub cfg_a: TcpConfig,
    pub cfg_b: TcpConfig,
    pub delay: SimDur,
    pub rate_bps: Option<u64>,
    pub queue_limit: Option<usize>,
    pub isn_a: u32,
    pub isn_b: u32,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            cfg_a: TcpConfig { trace: true, ..TcpConfig::default() },
            cfg_b: TcpConfig::default(),
            delay: SimDur::from_millis(20),
            rate_bps: None,
            queue_limit: None,
            isn_a: 1_000,
            isn_b: 900_000,
        }
    }
}

impl Setup {
    pub fn build(self) -> Harness {
        let now = SimTime::ZERO;
        let a = Connection::connect(now, self.cfg_a, Box::new(Reno::new()), PORT_A, PORT_B, self.isn_a);
        let b = Connection::listen(self.cfg_b, Box::new(Reno::new()), PORT_B, self.isn_b);
        let mut ab = Pipe::new(self.delay);
        let mut ba = Pipe::new(self.delay);
        ab.rate_bps = self.rate_bps;
        ab.queue_limit = self.queue_limit;
        ba.rate_bps = self.rate_bps;
        Harness { now, a, b, ab, ba, isn_a: self.isn_a, isn_b: self.isn_b, log: Vec::new(), events: 0 }
    }
}

impl Harness {
    pub fn rule(&mut self, dir: Dir, r: Rule) {
        match dir {
            Dir::AtoB => self.ab.rules.push(r),
            Dir::BtoA => self.ba.rules.push(r),
        }
    }

    pub fn random_loss(&mut self, dir: Dir, seed: u64, p: f64) {
        let name = match dir {
            Dir::AtoB => "test/loss/ab",
            Dir::BtoA => "test/loss/ba",
        };
        let r = Some((RngStream::derive(seed, name), p));
        match dir {
            Dir::AtoB => self.ab.random = r,
            Dir::BtoA => self.ba.random = r,
        }
    }

    /// Drain both endpoints' output into the pipes.
    fn drain(&mut self) {
        while let Some(s) = self.a.poll_transmit(self.now) {
            self.put(Dir::AtoB, s);
        }
        while let Some(s) = self.b.poll_transmit(self.now) {
            self.put(Dir::BtoA, s);
        }
    }

    fn put(&mut self, dir: Dir, s: Segment) {
        let (hdr, len, rtx) = (s.header.clone(), s.payload_len, s.retransmission);
        let arrival = match dir {
            Dir::AtoB => self.ab.send(self.now, s, self.isn_a),
            Dir::BtoA => self.ba.send(self.now, s, self.isn_b),
        };
        self.log.push(LogEntry { t: self.now, dir, hdr, len, rtx, dropped: arrival.is_none(), arrival });
    }

    fn next_event(&self) -> Option<SimTime> {
        [self.a.next_wakeup(), self.b.next_wakeup(), self.ab.next_arrival(), self.ba.next_arrival()]
            .into_iter()
            .flatten()
            .min()
    }

    /// Process one instant: arrivals, then timers. Returns false if no
    /// event is left before `deadline`.
    pub fn step(&mut self, deadline: SimTime) -> bool {
        self.drain();
        let Some(t) = self.next_event() else { return false };
        if t > deadline {
            self.now = deadline.max(self.now);
            return false;
        }
        assert!(t >= self.now);
        self.now = t;
        self.events += 1;
        while self.ab.next_arrival().is_some_and(|x| x <= t) {
            let (_, s) = self.ab.in_flight.pop_front().expect("arrival");
            self.b.on_segment(t, &s.header, s.payload_len);
            self.drain();
        }
        while self.ba.next_arrival().is_some_and(|x| x <= t) {
            let (_, s) = self.ba.in_flight.pop_front().expect("arrival");
            self.a.on_segment(t, &s.header, s.payload_len);
            self.drain();
        }
        if self.a.next_wakeup().is_some_and(|w| w <= t) {
            self.a.on_timer(t);
        }
        if self.b.next_wakeup().is_some_and(|w| w <= t) {
            self.b.on_timer(t);
        }
        self.drain();
        true
    }

    /// Run until `stop` holds (checked after every instant) or `deadline`.
    /// Returns whether `stop` held.
    pub fn run_until(&mut self, deadline: SimTime, mut stop: impl FnMut(&Harness) -> bool) -> bool {
        loop {
            if stop(self) {
                return true;
            }
            if !self.step(deadline) {
                return stop(self);
            }
        }
    }

    /// Run until time `t` (all events at or before `t` processed).
    pub fn run_to(&mut self, t: SimTime) {
        while self.step(t) {}
        self.now = self.now.max(t);
    }

    /// Data segments sent by `a` (payload > 0), in order.
    pub fn data_log(&self) -> impl Iterator<Item = &LogEntry> {
        self.log.iter().filter(|e| e.dir == Dir::AtoB && e.len > 0)
    }

    /// Stream offset of a segment sent by `a`.
    pub fn off_a(&self, seq: u32) -> u64 {
        seq.wrapping_sub(self.isn_a.wrapping_add(1)) as u64
    }

    /// Pure ACKs sent by `b`.
    pub fn acks_b(&self) -> impl Iterator<Item = &LogEntry> {
        self.log.iter().filter(|e| e.dir == Dir::BtoA && e.len == 0 && !e.hdr.flags.has(TcpFlags::SYN | TcpFlags::FIN))
    }

    /// `a`'s outstanding data just before log entry `idx` was sent,
    /// reconstructed from the log: highest offset sent by `a` in earlier
    /// entries minus the highest cumulative ACK that had arrived at `a` by
    /// then (ACKs arriving at the same instant later carry no new value in
    /// the scenarios that use this).
    pub fn outstanding_before(&self, idx: usize) -> u64 {
        let t = self.log[idx].t;
        let snd_max = self.log[..idx]
            .iter()
            .filter(|e| e.dir == Dir::AtoB && e.len > 0)
            .map(|e| self.off_a(e.hdr.seq) + e.len as u64)
            .max()
            .unwrap_or(0);
        let una = self
            .log
            .iter()
            .filter(|e| e.dir == Dir::BtoA && e.arrival.is_some_and(|x| x <= t) && e.hdr.flags.has(TcpFlags::ACK))
            .map(|e| self.off_a(e.hdr.ack))
            .filter(|&o| o < (1 << 31))
            .max()
            .unwrap_or(0);
        snd_max - una.min(snd_max)
    }

    /// Index in the log of `a`'s first retransmitted data segment.
    pub fn first_rtx_index(&self) -> Option<usize> {
        self.log.iter().position(|e| e.dir == Dir::AtoB && e.len > 0 && e.rtx)
    }
}
