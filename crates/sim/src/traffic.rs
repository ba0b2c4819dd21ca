//! Traffic sources. A source is a small state machine: it says when it next
//! generates a packet; the run loop asks it for packets at those times.
//! Saturated sources instead refill their station whenever its MAC is ready
//! and its queue is empty, so the station always has a frame to send.
use crate::config::Pattern;
use wifitcp_core::{RngStream, SimDur, SimTime};

pub struct UdpSource {
    pub pattern: Pattern,
    pub msdu_bytes: u32,
    /// Mean inter-packet time (cbr, poisson).
    pub interval: SimDur,
    pub start: SimTime,
    pub stop: SimTime,
    pub rng: RngStream,
}

impl UdpSource {
    /// Time of the first packet.
    pub fn first(&self) -> SimTime {
        self.start
    }
    /// Time of the packet after one generated at `now`.
    pub fn next_after(&mut self, now: SimTime) -> SimTime {
        let gap = match self.pattern {
            Pattern::Cbr => self.interval,
            Pattern::Poisson => SimDur::from_secs_f64(self.rng.exponential(self.interval.as_secs_f64())),
            Pattern::Saturated => return SimTime::NEVER,
        };
        let t = now + gap;
        if t >= self.stop {
            SimTime::NEVER
        } else {
            t
        }
    }
    pub fn active(&self, now: SimTime) -> bool {
        now >= self.start && now < self.stop
    }
}
