//! A frame reaching a backoff entity that held none (802.11-2020
//! 10.3.4.2 and 10.3.4.3; 10.22.2.2 a) for an EDCAF): it goes without
//! backoff once the medium has been idle for the IFS only if it finds the
//! medium idle; one that arrives at an empty transmit queue while the
//! medium is busy invokes the backoff procedure, whether or not a
//! post-backoff ran out before ([`super::Backoff::frame_arrives`]).
//!
//! "Arrives at an empty transmit queue" is the MAC's and its queue
//! discipline's queue together: the MAC asks for a frame (its `Ready`
//! output) when it can take one, and the queue hands over a waiting frame
//! at that same instant. A frame handed over later found both empty (a
//! backlog's next frame draws nothing more: 10.22.2.2 a) names a queue
//! that "has now become non-empty"; ns-3 3.37's `NeedBackoffUponAccess`
//! asks the same of `HasFramesToTransmit`).
use wifitcp_core::SimTime;

/// When the MAC last asked its queue for a frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Intake {
    asked_at: SimTime,
}

impl Intake {
    pub const fn new() -> Intake {
        Intake { asked_at: SimTime::ZERO }
    }

    /// The MAC asks for a frame at `now` (its `Ready` output).
    #[inline]
    pub fn asked(&mut self, now: SimTime) {
        self.asked_at = now;
    }

    /// Whether a frame handed over at `now` found the transmit queue
    /// empty: it came after the instant the MAC last asked (module docs).
    /// A frame handed over at that instant was waiting (a backlog).
    #[inline]
    pub fn queue_was_empty(&self, now: SimTime) -> bool {
        now > self.asked_at
    }
}
