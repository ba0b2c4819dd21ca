//! The [`Mac`] trait: what the medium drives, for any MAC.
//!
//! The split follows the usual decomposition of an 802.11 MAC (channel
//! access, the transmit opportunity, the frame exchange), but the medium
//! sees only one sans-I/O state machine per station:
//!
//! - Inputs: `now` and one event: the MAC's own wake-up (`on_wake`, at
//!   `next_wakeup()`), a carrier-sense change (`on_cca`: another station's
//!   energy starts or the medium turns idle), the end of a frame it
//!   received (`on_rx_end`, the frame with its per-MPDU outcomes), the end
//!   of its own transmission (`on_tx_end`), the verdict on its own data
//!   frame at the receiver (`on_verdict`), and an MSDU from its queue
//!   (`give_msdu`, offered while `demand()` asks for one).
//! - Outputs ([`MacOutput`] through a [`MacSink`]): start a frame now,
//!   deliver an MSDU (an owned [`Packet`] taken from the received frame),
//!   an MSDU's exchange ended (acknowledged or sent without
//!   acknowledgement), drop with a typed reason (or a discard after the
//!   receiver got the MSDU), ready for more MSDUs; and
//!   the next wake-up, read with `next_wakeup()` after every input.
//!
//! What other MACs need is expressible with these: a point coordinator
//! that sends after PIFS without contention sets its wake-up at the end of
//! PIFS and emits `StartTx` there (`Frame::contended` false); a TXOP of
//! several frames is a sequence of wake-ups SIFS after each `on_tx_end` or
//! response; a BlockAck response is a frame of kind `BlockAck` with an
//! [`MpduBody::BlockAck`](super::MpduBody) body scheduled SIFS after the
//! received aggregate, whose MPDUs each carry the medium's error outcome; a
//! MAC that serves several receivers or traffic identifiers says which it
//! wants through [`Demand`].
//!
//! The medium is generic over its MAC type (static dispatch: one MAC call
//! per station per event is on the hot path); a scenario's cell is a
//! `Bss<AnyMac>` (`mac/any.rs`), the enum of every MAC kind.
//!
//! Invariants every implementation keeps: it transmits only during a call
//! for an instant the caller woke it for or an input at that instant, at
//! most one frame per call; it never reads a clock; every MSDU given to it
//! leaves as exactly one of `Acked`, `Dropped` (or a receiver's `Deliver`
//! of its copy and then `Acked` or `DiscardedAfterReceipt` at the
//! transmitter); `next_wakeup`
//! is exact after every input.
use super::access::{CountRule, CsView, IfsTimes};
use super::dcf::MacCounters;
use super::frame::{Frame, MacAddr, MacSink};
use crate::phy::PhyTiming;
use wifitcp_core::{SimDur, SimTime};
use wifitcp_wire::Packet;

/// Which MSDU a MAC asks its queue for: any, or one for a receiver and/or
/// a traffic identifier (an aggregating MAC filling an A-MPDU for one
/// receiver and TID, EDCA serving one access category).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Demand {
    pub ra: Option<MacAddr>,
    pub tid: Option<u8>,
}

impl Demand {
    /// The next MSDU, whatever its receiver and TID (the DCF).
    pub const ANY: Demand = Demand { ra: None, tid: None };
}

pub trait Mac {
    fn addr(&self) -> MacAddr;
    /// The PHY timing of the station (slot, PLCP header length).
    fn timing(&self) -> &PhyTiming;
    /// Whether the MAC takes an MSDU now, and which.
    fn demand(&self) -> Option<Demand>;
    /// An MSDU for receiver `ra`, matching the current `demand()`.
    fn give_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr, out: &mut impl MacSink);
    /// Physical carrier sense changed (another station's energy).
    fn on_cca(&mut self, now: SimTime, busy: bool, out: &mut impl MacSink);
    /// PHY-RXSTART.indication while carrier sense was already busy: under
    /// reception per receiver the PHY synchronised on a frame that began
    /// during another (`medium::sense`). A wait for a response counts it
    /// as the candidate response (10.3.2.9), as a busy indication. (Every
    /// other reception starts with `on_cca(now, true)`.)
    fn on_rx_start(&mut self, now: SimTime) {
        let _ = now;
    }
    /// Whether `on_cca(now, false)` may emit outputs (the medium then calls
    /// it after the receptions of the same instant, see `on_rx_end`).
    fn idle_may_emit(&self) -> bool;
    /// A frame ended at this station. `ok` is whether the PPDU was
    /// received (no collision; at the intended receiver, at least the
    /// channel error model's verdict on the frame); at the intended
    /// receiver each MPDU's `fcs_ok` holds its own outcome and the MAC may
    /// take MSDUs out of the frame. Called before `on_cca(now, false)`.
    fn on_rx_end(&mut self, now: SimTime, f: &mut Frame, ok: bool, out: &mut impl MacSink);
    /// Our own transmission ended.
    fn on_tx_end(&mut self, now: SimTime, out: &mut impl MacSink);
    /// The medium's verdict on our last data frame at its intended
    /// receiver: `received` is whether a station of the cell received the
    /// PPDU, each MPDU's `fcs_ok` its own outcome there. Given once per
    /// frame that carries MSDUs, after `on_tx_end` (with per-station
    /// carrier sense when the frame's end reaches the receiver, possibly
    /// later). It settles what no response tells (`exchange::Receipts`:
    /// No Ack losses, MSDUs that reached the receiver) and changes neither
    /// the MAC's timing nor its transmissions.
    fn on_verdict(&mut self, now: SimTime, f: &Frame, received: bool, out: &mut impl MacSink);
    /// Put the MSDU this MAC holds in service in the MPDUs of its frame `f`
    /// that stand for it (`MpduBody::AtSender`), while `f` is its frame on
    /// the air or just ended (before `on_tx_end`). The medium calls it
    /// before anything reads the frame's MSDUs: at the frame's start if a
    /// tap or per-station carrier sense looks at it, else at its end
    /// unless the frame collided and carries no MPDU of the No Ack policy
    /// (whose loss names its MSDU). MACs whose frames carry their MSDUs
    /// from the start need not implement it.
    fn lend_msdus(&self, f: &mut Frame) {
        let _ = f;
    }
    /// The caller woke us at `next_wakeup()`.
    fn on_wake(&mut self, now: SimTime, out: &mut impl MacSink);
    /// When the caller must call `on_wake` next (`SimTime::NEVER` if not).
    fn next_wakeup(&self) -> SimTime;
    /// The MSDUs the MAC holds (end-of-run accounting).
    fn held(&self) -> impl Iterator<Item = &Packet>;
    /// The station's MAC counters (attempts, retries, deliveries...), for
    /// the run's result.
    fn counters(&self) -> MacCounters;
    /// A station triggered for an HE TB PPDU of uplink data gives its
    /// share when the PPDU starts (`mac::mu_frame`); `None`: it has none.
    /// Starts no transmission.
    fn take_tb_share(&mut self, now: SimTime, out: &mut impl MacSink) -> Option<crate::mac::mu_frame::TbShare> {
        let _ = (now, out);
        None
    }
    /// The medium's collision rule of Bianchi's model (every collision
    /// makes bystanders defer EIFS); false by default.
    fn eifs_after_collision(&self) -> bool {
        false
    }
    /// The optional bystander capability (see [`Bystander`]).
    #[inline]
    fn bystander(&self) -> Option<&dyn Bystander> {
        None
    }
    #[inline]
    fn bystander_mut(&mut self) -> Option<&mut dyn Bystander> {
        None
    }
}

/// The rules a group of bystanders shares (they must be equal for every
/// member of a cell).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GroupRules {
    pub slot: SimDur,
    /// Which slot boundaries decrement a counter.
    pub rule: CountRule,
    pub ifs: IfsTimes,
    /// The largest contention window (sizes the target queue).
    pub cw_max: u32,
}

/// A MAC whose stations, while outside any frame exchange, only defer and
/// count a backoff from the shared medium state: the medium may then keep
/// them in one group with a shared carrier-sense state and slot counter
/// (`crate::medium`'s group) instead of calling each at every busy/idle
/// change, and hand a station its exact state back when it must act alone.
/// The group reproduces the MAC's deferral rules exactly; a MAC offers the
/// capability only if that holds for it. The medium groups only when every
/// MAC of the cell offers it with equal [`GroupRules`].
pub trait Bystander {
    fn group_rules(&self) -> GroupRules;
    /// Not in a frame exchange, nothing scheduled.
    fn is_quiet(&self) -> bool;
    /// Whether the MAC holds an MSDU it waits to send.
    fn has_frame(&self) -> bool;
    /// Whether this station's future behaviour equals that of a station
    /// with carrier-sense state `v` and the same backoff, as of `now`.
    fn shares_view(&self, v: &CsView, now: SimTime) -> bool;
    /// Remaining backoff slots (see `Dcf::backoff`).
    fn backoff(&self) -> Option<u32>;
    /// Take over a shared carrier-sense state and a backoff count, and the
    /// receptions in error counted while grouped.
    fn adopt_view(&mut self, v: &CsView, backoff: Option<u32>, rx_errors: u64);
    /// Take an MSDU without acting on it (its backoff is kept by the group).
    fn install_msdu(&mut self, now: SimTime, pkt: Packet, ra: MacAddr);
}
