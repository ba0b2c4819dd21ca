//! Waiting for a response (10.3.2.9): after a frame that solicits an ACK,
//! CTS or BlockAck, the transmitter waits for the ACK timeout (aSIFSTime +
//! aSlotTime + aRxPHYStartDelay, `PhyTiming::ack_timeout`). If no
//! PHY-RXSTART.indication occurs within it, the exchange fails at its end;
//! if one does, the station waits for the end of that reception, and the
//! exchange succeeds only if the frame received is the expected response.
use crate::mac::frame::FrameKind;
use wifitcp_core::{SimDur, SimTime};

/// An open wait for a response of kind `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResponseWait {
    pub kind: FrameKind,
    /// End of the ACK timeout.
    pub deadline: SimTime,
    /// A reception began during the timeout: the wait lasts until it ends.
    pub rx_started: bool,
    /// That reception's PHY-RXSTART (aRxPHYStartDelay after its energy
    /// arrived) fell after the deadline (only with propagation delay, over
    /// long distances): it is not accepted as the response, and the
    /// exchange fails when it ends, as for any other frame heard during the
    /// timeout (the medium is busy in between, so the deferral that follows
    /// is the same as if it had failed at the deadline).
    pub late: bool,
}

impl ResponseWait {
    /// A wait that starts at the end of our frame, `now`.
    #[inline]
    pub fn after(now: SimTime, kind: FrameKind, ack_timeout: SimDur) -> ResponseWait {
        ResponseWait { kind, deadline: now + ack_timeout, rx_started: false, late: false }
    }

    /// Energy of another frame arrived at `now` (PHY-CCA busy): the first
    /// one during the wait is the candidate response.
    #[inline]
    pub fn energy(&mut self, now: SimTime, rx_phy_start_delay: SimDur) {
        if !self.rx_started {
            self.late = now + rx_phy_start_delay > self.deadline;
            self.rx_started = true;
        }
    }

    /// The instant the wait times out, if no reception began.
    #[inline]
    pub fn timer(&self) -> Option<SimTime> {
        (!self.rx_started).then_some(self.deadline)
    }

    /// Whether the wait times out at `now`.
    #[inline]
    pub fn times_out(&self, now: SimTime) -> bool {
        !self.rx_started && self.deadline == now
    }

    /// Whether a correctly received frame of kind `kind` addressed to us is
    /// the response.
    #[inline]
    pub fn accepts(&self, kind: FrameKind) -> bool {
        kind == self.kind && !self.late
    }
}
