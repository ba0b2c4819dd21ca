//! The frame exchange sequence in progress at one station (10.3.2.9,
//! 10.3.2.7, 10.22.2.9): which of its frames is on the air and what follows
//! it, the response it waits for, the frame due SIFS after an event (a
//! response, the data frame after a CTS, the next frame of a block or of a
//! TXOP), and the frame an RTS protects. Every MAC runs its exchanges
//! through one [`Sequence`]; the MAC decides what to send (its channel
//! access or a coordinator's grant) and what an outcome means for its MSDUs
//! (retry counts, BlockAck scoreboard).
//!
//! Invariants: at most one frame of the station is on the air; a response
//! is awaited only after a frame that solicits one ended; the wait ends
//! exactly once (`close`); at most one frame is due; a protected frame is
//! sent only after its CTS arrived and is dropped when the exchange fails;
//! `timer()` is always the earlier of the due frame's instant and the
//! wait's timeout (kept on every change, so reading it costs nothing).
use super::protect::rts_duration;
use super::wait::ResponseWait;
use crate::mac::frame::{AckPolicy, Frame, FrameKind, Mpdus};
use crate::phy::Rate;
use wifitcp_core::{SimDur, SimTime};
use wifitcp_wire::wifi_frame::RTS_LEN;

/// What follows a frame of ours when it ends: the rules of the frame
/// itself (the response its kind and Ack Policy solicit, 10.3.2.9,
/// 9.2.4.5.4, 10.25.6), so every MAC reads them from one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum After {
    /// Nothing: a response we sent, a poll, a QoS Null.
    Nothing,
    /// A response of this kind (ACK, CTS, BlockAck).
    Await(FrameKind),
    /// The frame carried MSDUs with the No Ack policy: the exchange is over.
    NoAckDone,
    /// A frame of a block (Block Ack policy, 802.11e): the next frame of the
    /// block is due SIFS after it.
    Block,
}

impl After {
    /// The rule for frame `f`: an RTS solicits a CTS, a BlockAckReq a
    /// BlockAck; data solicits an ACK (one MPDU) or a BlockAck (an A-MPDU,
    /// the implicit BlockAckReq of 10.25.6.4) under Normal Ack, nothing
    /// under No Ack, and the next frame of its block under Block Ack.
    #[inline]
    pub fn of(f: &Frame) -> After {
        match f.kind {
            FrameKind::Rts => After::Await(FrameKind::Cts),
            FrameKind::BlockAckReq => After::Await(FrameKind::BlockAck),
            // A Basic Trigger solicits the HE TB PPDU of uplink data; that
            // PPDU's multi-STA BlockAck is awaited by the HCF's uplink
            // state, not here (`hcf::ul_exchange`).
            FrameKind::Trigger => After::Await(FrameKind::QosData),
            k if k.carries_msdus() && f.mu.as_ref().is_some_and(|m| m.uplink) => After::Nothing,
            k if k.carries_msdus() => match f.mpdus.first().map(|m| m.ack) {
                Some(AckPolicy::NoAck) => After::NoAckDone,
                Some(AckPolicy::BlockAck) => After::Block,
                _ if f.mpdus.len() > 1 => After::Await(FrameKind::BlockAck),
                _ => After::Await(FrameKind::Ack),
            },
            _ => After::Nothing,
        }
    }

    /// Whether the medium is free of this station once the frame ended
    /// (nothing of its exchange follows at SIFS).
    #[inline]
    pub fn frees_medium(self) -> bool {
        matches!(self, After::Nothing | After::NoAckDone)
    }
}

/// Where the exchange stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// No frame of ours on the air, no response awaited (a frame may be due).
    Idle,
    /// Our frame is on the air; this follows when it ends.
    Transmitting(After),
    /// Waiting for a response (10.3.2.9, `ResponseWait`).
    AwaitResponse(ResponseWait),
}

/// One station's exchange in progress; `P` is what the MAC keeps for a
/// frame due later (a whole frame, or what it needs to build one when due).
/// Field order is layout: what every input reads first (a MAC may place
/// the sequence so that these share a cache line with its backoff).
#[repr(C)]
#[derive(Debug)]
pub struct Sequence<P> {
    phase: Phase,
    /// The earlier of the due frame's instant and the wait's timeout
    /// (`NEVER`: neither).
    timer_at: SimTime,
    /// The frame an RTS on the air or awaiting its CTS protects (boxed:
    /// most exchanges are unprotected, and a station's state stays small).
    protected: Option<Box<Frame>>,
    due: Option<(SimTime, P)>,
}

impl<P> Default for Sequence<P> {
    fn default() -> Self {
        Sequence { phase: Phase::Idle, timer_at: SimTime::NEVER, due: None, protected: None }
    }
}

impl<P> Sequence<P> {
    #[inline]
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// When the MAC must be woken for its exchange (a due frame, a
    /// response timeout), `NEVER` if not.
    #[inline]
    pub fn timer(&self) -> SimTime {
        debug_assert_eq!(self.timer_at, self.timer_from_state(), "stale exchange timer");
        self.timer_at
    }

    fn timer_from_state(&self) -> SimTime {
        let mut t = self.due.as_ref().map_or(SimTime::NEVER, |d| d.0);
        if let Phase::AwaitResponse(w) = &self.phase {
            if let Some(d) = w.timer() {
                t = t.min(d);
            }
        }
        t
    }

    #[inline]
    fn sync(&mut self) {
        self.timer_at = self.timer_from_state();
    }

    /// Whether an exchange is under way (a frame of ours on the air, a
    /// response awaited, or a frame due).
    #[inline]
    pub fn under_way(&self) -> bool {
        self.phase != Phase::Idle || self.due.is_some()
    }

    /// A frame of ours starts, followed by `after` when it ends.
    #[inline]
    pub fn started(&mut self, after: After) {
        self.phase = Phase::Transmitting(after);
        self.sync();
    }

    /// Our frame ended at `now`: what follows it. A response it solicits is
    /// awaited from now for `ack_timeout` (10.3.2.9).
    #[inline]
    pub fn ended(&mut self, now: SimTime, ack_timeout: SimDur) -> After {
        let Phase::Transmitting(after) = self.phase else {
            panic!("a transmission ended that never started");
        };
        self.phase = match after {
            After::Await(kind) => Phase::AwaitResponse(ResponseWait::after(now, kind, ack_timeout)),
            _ => Phase::Idle,
        };
        self.sync();
        after
    }

    /// The open wait, if a response is awaited.
    #[inline]
    pub fn awaiting(&self) -> Option<ResponseWait> {
        match self.phase {
            Phase::AwaitResponse(w) => Some(w),
            _ => None,
        }
    }

    /// Energy of another frame arrived at `now` (PHY-CCA busy): during a
    /// wait the first one is the candidate response (10.3.2.9).
    #[inline]
    pub fn energy(&mut self, now: SimTime, rx_phy_start_delay: SimDur) {
        if let Phase::AwaitResponse(w) = &mut self.phase {
            w.energy(now, rx_phy_start_delay);
            self.sync();
        }
    }

    /// Whether the medium turning idle now fails the exchange: a reception
    /// began during the wait and ended without delivering the response.
    #[inline]
    pub fn reception_ended_without_response(&self) -> bool {
        matches!(self.phase, Phase::AwaitResponse(ResponseWait { rx_started: true, .. }))
    }

    /// The wait times out at `now` (no reception began): the kind awaited.
    #[inline]
    pub fn times_out(&self, now: SimTime) -> Option<FrameKind> {
        match self.phase {
            Phase::AwaitResponse(w) if w.times_out(now) => Some(w.kind),
            _ => None,
        }
    }

    /// End the wait or the exchange (the response arrived, or it failed).
    #[inline]
    pub fn close(&mut self) {
        self.phase = Phase::Idle;
        self.sync();
    }

    /// A frame is due at `at`.
    #[inline]
    pub fn schedule(&mut self, at: SimTime, p: P) {
        self.due = Some((at, p));
        self.sync();
    }

    /// Whether a frame is due.
    #[inline]
    pub fn has_due(&self) -> bool {
        self.due.is_some()
    }

    /// The frame due at `now`, taken out.
    #[inline]
    pub fn take_due(&mut self, now: SimTime) -> Option<P> {
        match &self.due {
            Some((at, _)) if *at == now => {
                let (_, p) = self.due.take().expect("due");
                self.sync();
                Some(p)
            }
            _ => None,
        }
    }

    /// Protect `f` with `rts` (10.3.2.7): `f` waits for the CTS, the RTS
    /// is returned to be sent now.
    #[inline]
    pub fn protect(&mut self, f: Frame, rts: Frame) -> Frame {
        self.protected = Some(Box::new(Frame { contended: false, ..f }));
        rts
    }

    /// The frame that waits for its CTS, if any.
    #[inline]
    pub fn protected(&self) -> Option<&Frame> {
        self.protected.as_deref()
    }

    /// The CTS arrived at `now`: the wait ends, and the protected frame is
    /// due SIFS later (10.3.2.7).
    #[inline]
    pub fn cts_arrived(&mut self, now: SimTime, sifs: SimDur)
    where
        P: From<Box<Frame>>,
    {
        let f = self.protected.take().expect("a CTS without a protected frame");
        self.phase = Phase::Idle;
        self.due = Some((now + sifs, P::from(f)));
        self.sync();
    }

    /// The exchange failed: the protected frame, if any, is not sent.
    /// Returns whether there was one (the RTS got no CTS).
    #[inline]
    pub fn drop_protected(&mut self) -> bool {
        self.protected.take().is_some()
    }
}

/// A control frame without a body (ACK, CTS, RTS; 9.3.1) from `ta` to
/// `ra` of `bytes` octets at `rate`, on the air for `airtime`.
#[inline]
pub fn control_frame(
    kind: FrameKind,
    ta: crate::mac::frame::MacAddr,
    ra: crate::mac::frame::MacAddr,
    duration: SimDur,
    bytes: u32,
    rate: Rate,
    airtime: SimDur,
) -> Frame {
    Frame {
        mu: None,
        kind,
        ta,
        ra,
        duration,
        seq: 0,
        retry: false,
        mpdu_bytes: bytes,
        rate,
        airtime,
        contended: false,
        mpdus: Mpdus::none(),
    }
}

/// The RTS protecting frame `f` (10.3.2.7; Duration 9.3.1.2: SIFS, CTS,
/// SIFS, the frame, and what the frame's own Duration covers after it),
/// sent at `rate` for `airtime`, contended if `f` would have been.
#[inline]
pub fn rts_for(f: &Frame, sifs: SimDur, cts: SimDur, rate: Rate, airtime: SimDur) -> Frame {
    let duration = rts_duration(sifs, cts, f.airtime, f.duration.saturating_sub(sifs));
    Frame { contended: f.contended, ..control_frame(FrameKind::Rts, f.ta, f.ra, duration, RTS_LEN, rate, airtime) }
}
