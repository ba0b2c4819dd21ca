//! One collision domain (a BSS whose stations all hear each other).
//!
//! [`Bss`] owns the station MACs and the transmissions on the air, and is
//! itself sans-I/O: the caller feeds it `now` plus an input (a station's
//! wake-up, the end of a transmission, an MSDU for a station) and receives
//! [`BssOutput`]s, including the wake-ups and transmission ends it must
//! schedule. Model, with its deviations from a radio:
//! - Any overlap of two transmissions destroys every frame involved; a
//!   station that transmits during a frame does not receive that frame.
//! - Propagation delay is zero: stations that choose the same slot start at
//!   the same nanosecond and collide. A cell that knows its stations'
//!   positions and spans more than the slot's aAirPropagationTime gets
//!   the per-station view with delays instead ([`sense`]).
//! - Physical carrier sense is busy at a station while any other station
//!   transmits (no capture, no hidden nodes in one domain). A cell whose
//!   stations do not all hear each other gets per-station carrier sense
//!   and capture instead ([`sense`], `Bss::set_sense`).
//! - A receiver locks on the first frame of a busy period. It reports an
//!   erroneous reception (PHY-RXEND with error, hence EIFS, 10.3.2.3.7) only
//!   if it decoded that frame's PLCP preamble and header, i.e. no other
//!   frame began before the header ended; stations that start in the same
//!   slot destroy each other's headers, so bystanders see only energy and
//!   defer DIFS (as in ns-3). With `collision_restart = "eifs"` (Bianchi's
//!   single collision duration) every collision counts as an error.
//! - Channel errors come from a [`FrameErrorModel`], asked about every
//!   frame that did not collide, data and control (ACK, RTS, CTS) alike,
//!   and affect its intended receiver only; third parties decode the frame
//!   (so they set their NAV and use DIFS, not EIFS). The model decides
//!   which frames it hits: [`FixedPer`] (`wlan.per_uplink/per_downlink`)
//!   and SNR classes with `channel.frames = "data"` spare control frames,
//!   and a model that says it spares a kind of frame is not asked about
//!   it (`may_hit_control_frames`, `may_hit_data_frames`: a [`FixedPer`]
//!   without a rate above 0 is asked about nothing); with `"all"` classes
//!   hit every frame; the SNR/BER model uses the frame's own length and
//!   rate (a 14-byte ACK at the control-response rate fails far less
//!   often than a 1500-byte data frame); the ns-2
//!   threshold model compares received power with RXThresh, shadowing
//!   drawn per frame, so an ACK fails exactly as often as a data frame on
//!   the same link (ns-2's WirelessPhy draws shadowing for every received
//!   packet, MAC ACKs included; ns-3's error-rate models likewise judge
//!   every PPDU). A corrupted ACK or CTS is a reception in error at the
//!   waiting station: the exchange fails at its end and the station defers
//!   EIFS (10.3.2.9, 10.3.2.3.7). Control frames draw from their own
//!   stream, and only when their success probability is below 1, so the
//!   data frames' draws do not depend on whether control frames are hit.
//!
//! The medium drives any MAC through the [`Mac`] trait (`Bss<M: Mac>`,
//! the DCF by default) and never matches on frame kinds for a MAC's rules:
//! it asks only whether a frame carries MSDUs (`FrameKind::carries_msdus`:
//! airtime reports, the data frames' error stream, captures). It sets each
//! MPDU's FCS outcome at the intended receiver: a single-MPDU frame with one
//! draw of the error model, an aggregate with one draw per MPDU (see
//! `judge`). A receiver takes its MSDUs out of the frame it receives; the
//! medium forwards them to its caller (`BssOutput::Deliver`). It tells the
//! sender's MAC its verdict on every data frame at the intended receiver
//! (`Mac::on_verdict`, one function for both carrier-sense models): what
//! follows from it (No Ack losses, MSDUs that reached the receiver though
//! their ACKs were lost) is the MAC's (`mac::exchange::Receipts`), the
//! medium only translates the MAC's outputs. A frame's end is one
//! `Bss::tx_end`, generic over the carrier-sense model (`carrier.rs`): the
//! end at the sender (`sender_end`), at each other station (`end_at`) and
//! the verdict at the receiver (`judge_at_ra`) are written once; what
//! differs between the two models is who learns of a frame's start and
//! end, and when (every station at once here, each after its propagation
//! delay in [`sense`]).
//!
//! Cost: if every MAC of the cell offers the [`Bystander`] capability (the
//! DCF does) with equal rules, stations outside the current frame exchange
//! are kept in one [`group`] with a shared carrier-sense state and slot
//! counter, so a frame costs O(1) per station entering or leaving the
//! group's target queue (plus a bitmap scan for the next target) and the
//! stations taking part in it, not O(N). Set `Bss::set_grouping(false)` to
//! step every station individually (the reference the tests compare
//! against).
mod carrier;
pub(crate) mod errors;
mod group;
mod mu;
pub mod sense;
#[cfg(test)]
mod trait_tests;

pub use errors::{ChannelErrors, FixedPer, FrameErrorModel, NodeRadio};
pub use sense::SenseMatrix;

use crate::mac::{
    access::{CountRule, IfsTimes},
    Bystander, CsView, Dcf, Demand, Frame, GroupRules, Mac, MacAddr, MacOutput, MacSink, Msdu,
};
use group::Group;
use wifitcp_core::cache::prefetch;
use wifitcp_core::{DropReason, PacketId, RngStream, SimDur, SimTime};
use wifitcp_wire::Packet;

/// Medium-level counters of one station.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MediumCounters {
    /// Frames this station sent after winning contention (data without
    /// RTS/CTS, or RTS).
    pub initial_frames: u64,
    /// Of those, frames that overlapped another transmission.
    pub collided: u64,
    /// Data frames this station sent that the channel error model
    /// corrupted at their receiver.
    pub channel_errors: u64,
    /// Control frames (ACK, RTS, CTS) this station sent that the channel
    /// error model corrupted at their receiver.
    pub control_errors: u64,
    /// Airtime used by this station's transmissions, in ns.
    pub airtime_ns: u64,
}

impl MediumCounters {
    /// Add `x`'s counts (one member in several cells).
    pub fn add(&mut self, x: &MediumCounters) {
        self.initial_frames += x.initial_frames;
        self.collided += x.collided;
        self.channel_errors += x.channel_errors;
        self.control_errors += x.control_errors;
        self.airtime_ns += x.airtime_ns;
    }
}

/// A frame on the air (its `Frame` is the entry of `Bss::frames` at the
/// same index), in 16 bytes: a cell whose stations all start a frame at one
/// instant holds an entry per station.
#[derive(Debug)]
struct OnAir {
    id: u32,
    sender: u32,
    /// Start sequence number (`Bss::starts` when it started) in the low 63
    /// bits; the top bit: another frame was on the air when it started (a
    /// frame that starts later while it is on the air is known from
    /// `Bss::starts`, which never reaches 2^63).
    start: u64,
}

const OVERLAPPED_AT_START: u64 = 1 << 63;

impl OnAir {
    fn new(id: u32, seq: u64, sender: usize, overlapped_at_start: bool) -> OnAir {
        debug_assert!(seq < OVERLAPPED_AT_START);
        let sender = u32::try_from(sender).expect("fewer than 2^32 stations");
        OnAir { id, sender, start: seq | if overlapped_at_start { OVERLAPPED_AT_START } else { 0 } }
    }
    /// Its start sequence number.
    #[inline]
    fn seq(&self) -> u64 {
        self.start & !OVERLAPPED_AT_START
    }
    #[inline]
    fn sender(&self) -> usize {
        self.sender as usize
    }
    /// Whether another transmission overlapped this one, as of `starts`
    /// frames started so far (while it is on the air, or at its end).
    #[inline]
    fn corrupted(&self, starts: u64) -> bool {
        self.start & OVERLAPPED_AT_START != 0 || starts > self.seq() + 1
    }
}

/// `Bss::end_mark` of a station whose latest frame is on the air.
const ON_AIR: u64 = u64::MAX;
/// `Bss::last_start` of a station that never transmitted.
const NEVER_SENT: u64 = u64::MAX;

/// The medium's per-station state that frame starts and ends read and
/// write, with the station's counters, in one place (one cache line): a
/// frame's start, its end and the walk over the stations acting alone
/// each touch one line per station, not one in each of two arrays (in a
/// cell of thousands of stations they are rarely cached).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
struct Track {
    /// Number of the station's latest frame (`Bss::starts`), or
    /// [`NEVER_SENT`].
    last_start: u64,
    /// `Bss::starts` when that frame ended, or [`ON_AIR`].
    end_mark: u64,
    /// The MAC's `next_wakeup()` after its latest input (kept for solo
    /// stations, refreshed by every `call` and by `take`; stale for
    /// members). Reading it costs one load, where asking the MAC costs a
    /// computation, and the solo stations are scanned for their earliest
    /// instant after every input.
    wk: SimTime,
    counters: MediumCounters,
}

/// A station's state that its wake-up reads and writes, in bytes: its
/// MAC, its [`Track`] and its place in the group (`group::STATION_BYTES`).
/// A cell asks for the state of the members due at a wake-up before it
/// serves them (`Bss::wake`) only if its stations' state is beyond the
/// second-level cache (`wifitcp_core::cache::beyond_l2`).
fn station_bytes<M>() -> usize {
    std::mem::size_of::<M>() + std::mem::size_of::<Track>() + group::STATION_BYTES
}

/// Sees every frame the moment it starts on the air, with the MSDU a data
/// frame carries (a packet capture). Whether it is then received is not
/// known yet: a capture shows what was sent, as a monitor beside the
/// transmitter would.
pub trait FrameTap: Send {
    fn frame(&mut self, now: SimTime, frame: &Frame, msdu: Option<&Packet>);
}

/// What the BSS tells its caller. Stations are indices in 32 bits: an
/// output is 24 bytes.
#[derive(Debug)]
pub enum BssOutput {
    /// Call `wake` at `at`. Only wake-ups earlier than every pending one
    /// are emitted; `wake` at a time with nothing due re-arms itself.
    Wake { at: SimTime },
    /// Call `tx_end` at `at` for each of the `n` frames `id`, `id + 1`,
    /// ... in that order ([`BssOutput::tx_ids`]). Ids are unique among the
    /// frames on the air (they count transmissions and wrap after 2^32).
    /// Frames started one after another in one call, with no other output
    /// between them, that end at one instant are one output (at the start
    /// of a run every station of a cell starts a frame in one wake-up, all
    /// ending together: one output, not one per station).
    TxEnd { id: u32, n: u32, at: SimTime },
    /// Station `sta` received MSDU `pkt` from `from` (the handle taken out
    /// of the frame it received; the transmitter may still hold another).
    Deliver { sta: u32, from: u32, pkt: Msdu },
    /// Station `sta` discarded MSDU `id`.
    Dropped { sta: u32, id: PacketId, reason: DropReason },
    /// Station `sta` discarded MSDU `id` at the retry limit although a copy
    /// of it had reached its receiver (every ACK of it was lost): the MAC
    /// counts the discard, but the packet's fate is the receiver's copy's.
    DiscardedAfterReceipt { sta: u32, id: PacketId },
    /// Station `sta` can take its next MSDU.
    Ready { sta: u32 },
    /// A data frame from `sta` to `peer` used `airtime` (for airtime-fair
    /// scheduling; reported whatever the frame's fate, and only after
    /// `Bss::set_report_airtime(true)`).
    Airtime { sta: u32, peer: u32, airtime: wifitcp_core::SimDur },
}

impl BssOutput {
    /// The ids of the frames of a [`BssOutput::TxEnd`] `{ id, n, .. }`, in
    /// order.
    pub fn tx_ids(id: u32, n: u32) -> impl Iterator<Item = u32> {
        (0..n).map(move |k| id.wrapping_add(k))
    }
}

/// Output the end of frame `id` at `at`: merged into the last output if
/// that is the end of the frames just before it at the same instant.
fn push_tx_end(out: &mut Vec<BssOutput>, id: u32, at: SimTime) {
    if let Some(BssOutput::TxEnd { id: first, n, at: when }) = out.last_mut() {
        if *when == at && first.wrapping_add(*n) == id {
            *n += 1;
            return;
        }
    }
    out.push(BssOutput::TxEnd { id, n: 1, at });
}

pub struct Bss<M: Mac = Dcf> {
    pub macs: Vec<M>,
    errors: Box<dyn FrameErrorModel>,
    /// Channel-error draws of data frames.
    rng: RngStream,
    /// Channel-error draws of control frames (see the module docs).
    ctl_rng: RngStream,
    /// Whether the error model can hit control frames at all.
    control_errors: bool,
    /// Whether the error model can hit data frames at all.
    data_errors: bool,
    air: Vec<OnAir>,
    /// The frames of `air`, index for index (kept apart so that a MAC's
    /// frame is moved once, straight from the MAC call to here, and the
    /// bookkeeping entry is written whole: see [`Sink`]).
    frames: Vec<Frame>,
    next_tx: u32,
    /// Earliest instant a station must act at.
    wake_at: SimTime,
    /// Earliest `Wake` emitted and not yet fired.
    armed: SimTime,
    /// The group's earliest transmission, as of the last `arm`.
    group_at: SimTime,
    /// The solo stations' earliest instant, as of the last `arm` (every
    /// input that changes a solo MAC ends in `arm`).
    solo_at: SimTime,
    /// Whether receivers decoded the PLCP header of the first frame of the
    /// current busy period, and when that header ends.
    burst_header_ok: bool,
    burst_header_end: SimTime,
    /// Every corrupted reception counts as an error (Bianchi's T_c).
    eifs_always: bool,
    /// Overlaps in the order of events, without per-frame lists (so a burst
    /// of k colliding frames costs O(k) bookkeeping, not O(k^2)): frames
    /// are numbered as they start (`starts` counts them); per station, the
    /// number of its latest frame (`Track::last_start`) and the value of
    /// `starts` when that frame ended (`Track::end_mark`, `ON_AIR` while it
    /// is on the air). A station transmitted during frame A (number a) iff
    /// its latest frame started after A (while A was on the air), or
    /// started before A and had not ended when A started (`end_mark > a`);
    /// earlier frames of the station ended before its latest one began, so
    /// they never decide.
    starts: u64,
    /// The smallest start number among the frames on the air (`u64::MAX`
    /// when the medium is quiet), exact unless `air_min_stale`.
    air_min_seq: u64,
    /// The frame that held `air_min_seq` left the air since it was last
    /// found: it is found again when it is next read (`overlaps_air`,
    /// through `fresh_air_min`), not at every frame end: a burst of n
    /// frames that end one after another in start order would rescan the
    /// list at each end, O(n^2) in all.
    air_min_stale: bool,
    /// Where the last frame to leave `air` was: the search for the next one
    /// starts there (`air_pos`).
    air_hint: usize,
    /// Stations acting on their own (not in the group), in index order.
    solo: Vec<usize>,
    /// Per station, the medium's own state of it (see [`Track`]).
    track: Vec<Track>,
    group: Group,
    grouping: bool,
    /// Every MAC offers the bystander capability with equal rules.
    groupable: bool,
    /// Emit `BssOutput::Airtime` (off unless a queue discipline uses it).
    report_airtime: bool,
    /// Told of every frame that starts (packet captures); `None` costs one
    /// test per frame.
    tap: Option<Box<dyn FrameTap>>,
    /// Scratch list of the group members due at a wake-up.
    due: Vec<usize>,
    /// Ask for the state of the members due at a wake-up before serving
    /// them (`prefetch_due`; [`station_bytes`]).
    prefetch: bool,
    /// Scratch list of `tx_end`'s second pass (see `serve_deferred`).
    deferred: Vec<usize>,
    /// Per-station carrier sense when not every station hears every other
    /// or frames take time to reach stations (`sense`; `None`: one shared
    /// view, the model above).
    sense: Option<Box<sense::SenseState>>,
    /// The next instant a frame's start or end reaches a station
    /// (`sense`; `SimTime::NEVER` without propagation delay).
    arrive_at: SimTime,
}

/// The medium's [`MacSink`] for one MAC call: outputs become
/// [`BssOutput`]s at once; a transmission's frame goes straight onto the
/// end of `Bss::frames` (`start_tx` adds its entry to `Bss::air` after the
/// call: the frame is moved once, not through the sink, the call and
/// `start_tx` in turn). A MAC starts at most one per input; a second would
/// be a MAC defect and panics.
struct Sink<'a> {
    sta: usize,
    /// `Bss::frames`; a frame started in the call is its last entry.
    frames: &'a mut Vec<Frame>,
    /// The cell's stations (the bound of `frames`, see [`reserve_on_air`]).
    stations: usize,
    started: bool,
    out: &'a mut Vec<BssOutput>,
}

/// Room for one more entry in `v`, a list with an entry per frame on the
/// air (`Bss::air`, `Bss::frames`). A station has at most one frame on the
/// air, so such a list holds at most `stations` entries: it grows by
/// doubling as any `Vec` does, but not past `stations`, so a cell whose
/// every station transmits at once (all of them at t = 0 when saturated)
/// holds one slot per station, not up to twice that. (Past `stations`,
/// which no MAC reaches, it doubles again.)
#[inline(always)]
fn reserve_on_air<T>(v: &mut Vec<T>, stations: usize) {
    if v.len() == v.capacity() {
        grow_on_air(v, stations);
    }
}

/// [`reserve_on_air`]'s growth, out of the per-frame path.
#[cold]
#[inline(never)]
fn grow_on_air<T>(v: &mut Vec<T>, stations: usize) {
    let doubled = (2 * v.capacity()).max(4);
    let target = if v.capacity() < stations { doubled.min(stations) } else { doubled };
    v.reserve_exact(target.max(v.len() + 1) - v.len());
}

impl MacSink for Sink<'_> {
    #[inline(always)]
    fn start_tx_with<R>(&mut self, build: impl FnOnce() -> Frame, inspect: impl FnOnce(&Frame) -> R) -> R {
        assert!(!self.started, "a MAC started two transmissions in one call");
        self.started = true;
        // The frame is written straight into the vector's free slot and
        // inspected there: built in place rather than on the stack and
        // copied (its fields are written one by one, and reading them back
        // as wide words right after stalls on store forwarding).
        reserve_on_air(self.frames, self.stations);
        let len = self.frames.len();
        let r = inspect(self.frames.spare_capacity_mut()[0].write(build()));
        // SAFETY: the slot at `len` was just initialised, and `reserve_on_air`
        // made it part of the allocation.
        unsafe { self.frames.set_len(len + 1) };
        r
    }

    #[inline(always)]
    fn push(&mut self, o: MacOutput) {
        let sta = self.sta as u32;
        match o {
            MacOutput::StartTx(frame) => self.start_tx_with(|| frame, |_| ()),
            MacOutput::Deliver { from, pkt } => self.out.push(BssOutput::Deliver { sta, from: from.0, pkt }),
            // The caller learns of an acknowledged MSDU through `Ready`.
            MacOutput::Acked(_) => {}
            MacOutput::DiscardedAfterReceipt(id) => self.out.push(BssOutput::DiscardedAfterReceipt { sta, id }),
            MacOutput::Dropped(id, reason) => self.out.push(BssOutput::Dropped { sta, id, reason }),
            MacOutput::Ready => self.out.push(BssOutput::Ready { sta }),
        }
    }
}

/// The bystander capability of a MAC the medium groups (only called while
/// grouping, which requires it of every MAC).
#[inline(always)]
fn by<M: Mac>(m: &M) -> &dyn Bystander {
    m.bystander().expect("a grouped MAC without the bystander capability")
}

/// Show frame `f`, starting now, to the tap (if any).
#[inline(always)]
fn tap_frame(tap: &mut Option<Box<dyn FrameTap>>, now: SimTime, f: &Frame) {
    if let Some(tap) = tap.as_mut() {
        let msdu = if f.kind.carries_msdus() { f.first_msdu() } else { None };
        tap.frame(now, f, msdu);
    }
}

/// The rules every MAC's bystander capability shares, the largest
/// contention window among them; `None` if a MAC lacks the capability or
/// the rules differ.
fn group_rules<M: Mac>(macs: &[M]) -> Option<GroupRules> {
    let mut rules: Option<GroupRules> = None;
    for m in macs {
        let r = m.bystander()?.group_rules();
        match rules.as_mut() {
            None => rules = Some(r),
            Some(g) => {
                if (GroupRules { cw_max: g.cw_max, ..r }) != *g {
                    return None;
                }
                // The largest contention window sizes the group's target queue.
                g.cw_max = g.cw_max.max(r.cw_max);
            }
        }
    }
    rules
}

impl<M: Mac> Bss<M> {
    /// Station `s`'s medium counters.
    #[inline]
    pub fn medium(&self, s: usize) -> &MediumCounters {
        &self.track[s].counters
    }

    /// Every station's medium counters, in station order.
    pub fn medium_all(&self) -> impl Iterator<Item = &MediumCounters> + '_ {
        self.track.iter().map(|t| &t.counters)
    }

    /// `rng` draws the channel errors of data frames; control frames get a
    /// stream derived from its first value (without consuming it) until
    /// [`Bss::set_control_rng`] gives them a named one.
    pub fn new(macs: Vec<M>, errors: Box<dyn FrameErrorModel>, rng: RngStream) -> Bss<M> {
        let n = macs.len();
        for (i, m) in macs.iter().enumerate() {
            assert_eq!(m.addr(), MacAddr(i as u32), "MAC addresses must be their index");
        }
        let rules = group_rules(&macs);
        let groupable = rules.is_some();
        // Without the capability the group stays empty (its rules unused).
        let g = rules.unwrap_or(GroupRules {
            slot: macs[0].timing().slot,
            rule: CountRule::Dcf,
            ifs: IfsTimes { difs: macs[0].timing().difs, eifs: macs[0].timing().eifs },
            cw_max: 0,
        });
        let group = Group::new(n, &g);
        let eifs_always = macs[0].eifs_after_collision();
        let control_errors = errors.may_hit_control_frames();
        let data_errors = errors.may_hit_data_frames();
        let track: Vec<Track> = macs
            .iter()
            .map(|m| Track {
                last_start: NEVER_SENT,
                end_mark: 0,
                wk: m.next_wakeup(),
                counters: MediumCounters::default(),
            })
            .collect();
        // Every station starts solo; most MACs have nothing to do before
        // their first input, but one may (an AP's access-request ticks).
        let solo_at = track.iter().map(|t| t.wk).min().unwrap_or(SimTime::NEVER);
        Bss {
            macs,
            errors,
            ctl_rng: RngStream::derive(rng.clone().next_u64(), "medium/control-errors"),
            control_errors,
            data_errors,
            rng,
            air: Vec::new(),
            frames: Vec::new(),
            next_tx: 0,
            wake_at: SimTime::NEVER,
            armed: SimTime::NEVER,
            group_at: SimTime::NEVER,
            solo_at,
            burst_header_ok: false,
            burst_header_end: SimTime::ZERO,
            eifs_always,
            starts: 0,
            air_min_seq: u64::MAX,
            air_min_stale: false,
            air_hint: 0,
            solo: (0..n).collect(),
            track,
            group,
            grouping: groupable,
            groupable,
            report_airtime: false,
            tap: None,
            due: Vec::new(),
            prefetch: wifitcp_core::cache::beyond_l2(n, station_bytes::<M>()),
            deferred: Vec::new(),
            sense: None,
            arrive_at: SimTime::NEVER,
        }
    }

    /// The same medium with each station's MAC converted by `f` (the
    /// state of the medium, the group and the frames on the air is kept
    /// as is). `f` must keep each MAC's behaviour: the world holds a cell
    /// whose every MAC is a DCF as a `Bss<Dcf>` (static dispatch on the hot
    /// path) and hands it to the metrics as a `Bss<AnyMac>`.
    pub fn map_macs<N: Mac>(self, f: impl FnMut(M) -> N) -> Bss<N> {
        // Every field but `macs` moves over unchanged; the one list names
        // them for both the destructuring and the rebuilding.
        macro_rules! moved {
            ($($x:ident),* $(,)?) => {{
                let Bss { macs, $($x),* } = self;
                Bss { macs: macs.into_iter().map(f).collect(), $($x),* }
            }};
        }
        moved!(
            errors,
            rng,
            ctl_rng,
            control_errors,
            data_errors,
            air,
            frames,
            next_tx,
            wake_at,
            armed,
            group_at,
            solo_at,
            burst_header_ok,
            burst_header_end,
            eifs_always,
            starts,
            air_min_seq,
            air_min_stale,
            air_hint,
            solo,
            track,
            group,
            grouping,
            groupable,
            report_airtime,
            tap,
            due,
            prefetch,
            sense,
            deferred,
            arrive_at,
        )
    }

    /// The stream of control frames' channel-error draws.
    pub fn set_control_rng(&mut self, rng: RngStream) {
        self.ctl_rng = rng;
    }

    /// Keep bystanders in a group (default, if every MAC offers the
    /// capability) or step every station alone.
    pub fn set_grouping(&mut self, on: bool) {
        if !on {
            self.ungroup_all();
        }
        self.grouping = on && self.groupable;
    }

    /// Report every data frame's airtime (`BssOutput::Airtime`).
    pub fn set_tap(&mut self, tap: Option<Box<dyn FrameTap>>) {
        self.tap = tap;
    }

    /// Give back the frame tap (at the end of a run).
    pub fn take_tap(&mut self) -> Option<Box<dyn FrameTap>> {
        self.tap.take()
    }

    pub fn set_report_airtime(&mut self, on: bool) {
        self.report_airtime = on;
    }

    pub fn len(&self) -> usize {
        self.macs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.macs.is_empty()
    }

    /// Where member `i` is at `now`, if the error model has positions
    /// (`FrameErrorModel::position_of`).
    pub fn position_of(&mut self, now: SimTime, i: usize) -> Option<crate::channel::Position> {
        self.errors.position_of(now, i)
    }

    /// What station `sta`'s MAC asks of its queue (`None`: nothing now).
    #[inline]
    pub fn demand(&self, sta: usize) -> Option<Demand> {
        self.macs[sta].demand()
    }

    /// Packets held by the MACs (end-of-run ledger; copies on the air are
    /// copies of these).
    pub fn packets_in_service(&self) -> impl Iterator<Item = &Packet> {
        self.macs.iter().flat_map(|m| m.held())
    }

    /// Hand every grouped station its own state back (before reading the
    /// MACs' counters).
    pub fn ungroup_all(&mut self) {
        for s in 0..self.macs.len() {
            self.take(s);
        }
        // Every station is solo now: their earliest instant (for `arm`).
        self.solo_at = self.solo_earliest();
    }

    /// Schedule the BSS's wake-up (call once at start, or after changing
    /// MAC state from outside).
    pub fn reschedule_all(&mut self, out: &mut Vec<BssOutput>) {
        for &t in &self.solo {
            self.track[t].wk = self.macs[t].next_wakeup();
        }
        self.reschedule(out);
    }

    /// Give station `sta` an MSDU for station `ra`.
    pub fn give_msdu(&mut self, now: SimTime, sta: usize, msdu: Packet, ra: usize, out: &mut Vec<BssOutput>) {
        // A bystander whose post-backoff is still running keeps waiting in
        // the group: the frame goes out when that backoff ends, which is
        // what `Dcf::start_msdu` would do with the group's view.
        if self.group.is_member(sta) && self.group.frame_arrives(sta, now) {
            let b = self.macs[sta].bystander_mut().expect("a grouped MAC without the bystander capability");
            b.install_msdu(now, msdu, MacAddr(ra as u32));
            // Only the group changed: the solo stations' instant holds.
            self.arm(self.solo_at, out);
            return;
        }
        // The solo stations' earliest instant follows from `sta`'s alone
        // when `sta` starts no frame (no other station hears anything):
        // no walk over the solo stations, unless `sta` held that instant
        // (handing n stations their first MSDUs costs O(n), not O(n^2)).
        let was = if self.group.is_member(sta) { SimTime::NEVER } else { self.track[sta].wk };
        let starts = self.starts;
        self.take(sta);
        self.call(now, sta, out, |m, mo| m.give_msdu(now, msdu, MacAddr(ra as u32), mo));
        if self.starts != starts {
            return self.reschedule(out);
        }
        let at = earliest_after(self.solo_at, was, self.track[sta].wk).unwrap_or_else(|| self.solo_earliest());
        self.arm(at, out);
    }

    /// A wake-up fired: serve every station due now, in index order
    /// (stations due at the same instant transmit together and collide).
    pub fn wake(&mut self, now: SimTime, out: &mut Vec<BssOutput>) {
        if now != self.armed {
            return; // an earlier wake-up superseded this one
        }
        self.armed = SimTime::NEVER;
        if self.wake_at != now {
            self.reschedule(out); // nothing due yet: re-arm
            return;
        }
        // Frame edges reaching stations now (propagation delay, `sense`).
        if self.arrive_at == now && self.arrivals(now, out) {
            return;
        }
        // Members due now (`group_at` is exact: the group and the MACs
        // changed only through inputs that ended in `arm`).
        let mut due = std::mem::take(&mut self.due);
        due.clear();
        if self.group_at == now {
            self.group.due(now, &mut due);
            if self.prefetch {
                self.prefetch_due(&due);
            }
            self.take_sorted(&due);
        }
        // Stations due now stay due while others start transmitting at the
        // same instant (Dcf::freeze), and nobody becomes due now while we
        // serve them, so one pass in index order serves all. `solo_at` is
        // exact too: if no solo station was due, the members just taken
        // (in index order) are the only ones to serve.
        if self.solo_at == now {
            for i in 0..self.solo.len() {
                let s = self.solo[i];
                if self.track[s].wk == now {
                    self.call(now, s, out, |m, mo| m.on_wake(now, mo));
                }
            }
        } else {
            for &s in &due {
                debug_assert_eq!(self.macs[s].next_wakeup(), now, "a due member is not due");
                self.call(now, s, out, |m, mo| m.on_wake(now, mo));
            }
        }
        self.due = due;
        self.reschedule(out);
    }

    /// Ask for the state of the members `due` at a wake-up: each of them
    /// is about to leave the group, take its backoff's end and transmit,
    /// so every line of its MAC, its `Track` and its counters is read or
    /// written next. Asked for at once, their misses overlap, where the
    /// code reaching one field after another would wait for each in turn.
    /// Only in a cell whose stations' state is beyond the second-level
    /// cache (`Bss::prefetch`); out of line, so that a smaller cell's
    /// `wake` is as it was.
    #[inline(never)]
    fn prefetch_due(&self, due: &[usize]) {
        for &s in due {
            self.prefetch_station(s);
        }
    }

    /// Ask for every line of station `s`'s state: its MAC and its `Track`
    /// (with its counters).
    #[inline(always)]
    fn prefetch_station(&self, s: usize) {
        prefetch(&self.macs[s]);
        prefetch(&self.track[s]);
    }

    /// The second pass of `tx_end` (the medium is quiet): the idle
    /// indication to the stations whose `on_cca(idle)` may emit outputs
    /// (`deferred`, in index order, taken out of `solo` by the first pass),
    /// after every other station's outputs. `at` is the earliest instant of
    /// the stations left in `solo`. Only the deferred stations change here
    /// (an idle indication starts no transmission), so only they may now
    /// join the group: the others' state, the group's view and the medium
    /// are as the first pass left them, and the first pass tried them
    /// already. Those that stay solo go back into `solo` in index order.
    /// (If a MAC of the first pass started a transmission at once, the
    /// medium is busy again: every solo station is served and settled as
    /// without the shortcut; the DCF never does, its responses wait SIFS.)
    fn serve_deferred(
        &mut self,
        now: SimTime,
        s: usize,
        deferred: &mut Vec<usize>,
        mut at: SimTime,
        out: &mut Vec<BssOutput>,
    ) {
        if !self.air.is_empty() {
            return self.serve_deferred_busy(now, s, deferred, out);
        }
        for &t in deferred.iter() {
            // (Not in `solo` during the call: `call` keeps `Track::wk` only.)
            if self.air.is_empty() {
                self.call(now, t, out, |m, mo| m.on_cca(now, false, mo));
            }
        }
        if !self.air.is_empty() {
            // An idle indication started a transmission (not the DCF):
            // settle every solo station, as without the shortcut.
            self.solo_merge(deferred);
            return self.settle(now, out);
        }
        let view = self.group.view;
        // `try_join` joins, or returns the station's next instant; those
        // that stay solo are kept (in order) and go back in one merge.
        deferred.retain(|&t| match self.try_join(t, now, &view) {
            Some(next) => {
                at = at.min(next);
                true
            }
            None => false,
        });
        self.solo_merge(deferred);
        self.arm(at, out);
    }

    /// `serve_deferred` after a MAC of the first pass started a
    /// transmission: the second pass over every solo station, then `settle`.
    #[cold]
    fn serve_deferred_busy(&mut self, now: SimTime, s: usize, deferred: &[usize], out: &mut Vec<BssOutput>) {
        self.solo_merge(deferred);
        for i in 0..self.solo.len() {
            let t = self.solo[i];
            if t != s && self.macs[t].idle_may_emit() && !self.busy_for(t) {
                self.call(now, t, out, |m, mo| m.on_cca(now, false, mo));
            }
        }
        self.settle(now, out);
    }

    /// Put station `s` (not in it) into `solo`, in index order.
    #[inline]
    fn solo_insert(&mut self, s: usize) {
        // A binary search and one move of the tail: in a dense cell the
        // station inserted most often is the receiver of the uplink
        // frames, taken at each frame's end (the AP, a cell's first
        // station), in front of the tens of stations in an exchange.
        let i = self.solo.partition_point(|&x| x < s);
        debug_assert!(self.solo.get(i) != Some(&s), "station {s} is solo twice");
        self.solo.insert(i, s);
    }

    /// `tx_end` of a frame of station `s` while other frames are still on
    /// the air (so it collided, and no station receives it; the group sees
    /// no change). Of the solo stations, only one whose own frame is now
    /// alone on the air changes state: the medium turns idle for it
    /// (`on_cca`, as `start_tx` turned it busy). Every other station is left
    /// untouched: this costs O(1), not O(solo stations), so the k ends of a
    /// burst of k colliding frames cost O(k) plus one walk at the last end,
    /// which then also lets quiet stations join the group.
    ///
    /// The solo stations' earliest instant is updated from the two that
    /// changed (`s`, whose cached wake-up was `s_was` before its
    /// `on_tx_end`, and the one told of the idle medium) with
    /// [`earliest_after`]: no scan of the solo stations unless one of them
    /// held the earliest instant and moved later.
    fn burst_goes_on(&mut self, now: SimTime, s: usize, s_was: SimTime, out: &mut Vec<BssOutput>) {
        // What the walk of `tx_end` does for each solo station `t != s`
        // here: a frame still on the air that is not `t`'s own keeps the
        // medium busy for `t` (no reception, no idle indication); if `t`'s
        // own frame is the only one left, `t` transmitted during this frame
        // (no reception) and now senses the medium idle. No station gets
        // `on_rx_end`, so the order of `on_cca` outputs needs no second pass.
        // (`solo_at` is exact here: since the last `arm` only `s` changed.)
        let mut at = earliest_after(self.solo_at, s_was, self.track[s].wk);
        if self.air.len() == 1 {
            let u = self.air[0].sender();
            if u != s && !self.group.is_member(u) {
                debug_assert!(self.solo.contains(&u), "a transmitting station is solo");
                let u_was = self.track[u].wk;
                self.call(now, u, out, |m, mo| m.on_cca(now, false, mo));
                at = at.and_then(|a| earliest_after(a, u_was, self.track[u].wk));
            }
        }
        let at = at.unwrap_or_else(|| self.solo_earliest());
        self.arm(at, out);
    }

    /// The channel error model's verdict on a frame that did not collide,
    /// at its intended receiver: sets each MPDU's `fcs_ok` and returns
    /// whether the PPDU is received (some MPDU, or the frame without MPDUs,
    /// got through). A probability of 1 draws nothing, and a kind of frame
    /// the model spares (`data_errors`, `control_errors`) is not asked
    /// about. A frame with at most one MPDU is judged whole (one draw,
    /// `success_prob` of its PSDU);
    /// an aggregate's PHY header once (`ppdu_success_parts`: no draw for
    /// models without a header part), then MPDU by MPDU, MPDU `i` with probability
    /// `p^(bytes_i / psdu_bytes)` where `p` is the whole PSDU's: exact for
    /// models whose bit errors are independent (the SNR/BER model, where
    /// `p = (1 - BER)^bits`), and for a fixed frame error rate the rate of
    /// an MPDU of the PSDU's length. `ru`: `f` is one user's PSDU of a
    /// multi-user PPDU, judged on its resource unit (`ru_success_parts`,
    /// the header and PSDU parts multiplied for a single MPDU).
    fn judge(&mut self, now: SimTime, s: usize, f: &mut Frame, ru: Option<crate::phy::ppdu::RuLink>) -> bool {
        let data = f.kind.carries_msdus();
        let may_hit = if data { self.data_errors } else { self.control_errors };
        if !may_hit {
            f.mpdus.set_fcs_all(true);
            return true;
        }
        let rng = if data { &mut self.rng } else { &mut self.ctl_rng };
        let ok = if f.mpdus.len() <= 1 {
            let p = match ru {
                None => self.errors.success_prob(now, f.ta, f.ra, f, rng),
                Some(ru) => {
                    let (h, d) = self.errors.ru_success_parts(now, f.ta, f.ra, f, ru, rng);
                    h * d
                }
            };
            let ok = p >= 1.0 || rng.bernoulli(p);
            f.mpdus.set_fcs_all(ok);
            ok
        } else {
            // The PHY header once per PPDU (a model without one draws
            // nothing here), then each MPDU on its share of the PSDU.
            let (h, p) = match ru {
                None => self.errors.ppdu_success_parts(now, f.ta, f.ra, f, rng),
                Some(ru) => self.errors.ru_success_parts(now, f.ta, f.ra, f, ru, rng),
            };
            let header = h >= 1.0 || rng.bernoulli(h);
            let psdu = f.mpdu_bytes.max(1) as f64;
            let mut any = false;
            for m in f.mpdus.as_mut_slice() {
                let q = if p >= 1.0 { 1.0 } else { p.powf(m.bytes as f64 / psdu) };
                m.fcs_ok = header && (q >= 1.0 || rng.bernoulli(q));
                any |= m.fcs_ok;
            }
            any
        };
        if !ok {
            if data {
                self.track[s].counters.channel_errors += 1;
            } else {
                self.track[s].counters.control_errors += 1;
            }
        }
        ok
    }

    // ------------------------------------------------------------------
    // Grouping

    /// Make station `s` act on its own, with the state it would have had.
    fn take(&mut self, s: usize) {
        if self.group.is_member(s) {
            self.hand_back(s);
            self.solo_insert(s);
        }
    }

    /// `take` of members `v` (in index order, members all), into `solo`
    /// by one merge (`solo_merge`).
    fn take_sorted(&mut self, v: &[usize]) {
        debug_assert!(v.windows(2).all(|w| w[0] < w[1]), "members not in index order");
        for &s in v {
            self.hand_back(s);
        }
        self.solo_merge(v);
    }

    /// Put stations `v` (in index order, none of them in `solo`) into
    /// `solo`: one merge, O(k + solo stations), not k sorted insertions
    /// (a wake-up at which k members collide would cost O(k x solo)).
    fn solo_merge(&mut self, v: &[usize]) {
        if let [s] = *v {
            return self.solo_insert(s);
        }
        merge_sorted(&mut self.solo, v);
        debug_assert!(self.solo.windows(2).all(|w| w[0] < w[1]), "solo list not in index order");
    }

    /// Member `s` leaves the group with the state it would have had (the
    /// caller puts it into `solo`).
    #[inline]
    fn hand_back(&mut self, s: usize) {
        let (k, errors) = self.group.leave(s);
        let b = self.macs[s].bystander_mut().expect("a grouped MAC without the bystander capability");
        b.adopt_view(&self.group.view, k, errors);
        self.track[s].wk = self.macs[s].next_wakeup();
    }

    /// After a transmission ends: let quiet stations whose view equals the
    /// group's join it, then reschedule (one walk over the solo stations
    /// does both). Other inputs only reschedule: joining is an optimisation
    /// (a solo station behaves exactly as a member would), and stations
    /// become quiet with the group's view when an exchange ends.
    fn settle(&mut self, now: SimTime, out: &mut Vec<BssOutput>) {
        let view = self.group.view;
        let mut at = SimTime::NEVER;
        // Compact the list in place: stations that stay solo move down to
        // `kept` (order kept), joiners drop out.
        let mut kept = 0;
        for i in 0..self.solo.len() {
            let s = self.solo[i];
            if let Some(next) = self.try_join(s, now, &view) {
                at = at.min(next);
                self.solo[kept] = s;
                kept += 1;
            }
        }
        self.solo.truncate(kept);
        self.arm(at, out);
    }

    /// Solo station `s` joins the group if it is quiet with the group's
    /// `view` (and grouping is on): `None`; else it stays solo and its next
    /// instant is returned. The caller removes joiners from `solo`.
    #[inline(always)]
    fn try_join(&mut self, s: usize, now: SimTime, view: &CsView) -> Option<SimTime> {
        self.fresh_air_min();
        let m = &self.macs[s];
        let next = self.track[s].wk;
        // A station that transmitted during a frame still on the air will
        // not receive it, unlike the group: not yet.
        if self.grouping && !self.overlaps_air(s) && next != now && by(m).shares_view(view, now) {
            let b = by(m);
            self.group.join(s, b.backoff(), b.has_frame());
            None
        } else {
            Some(next)
        }
    }

    // ------------------------------------------------------------------
    // MAC calls and their outputs

    /// Run one MAC input on station `t`. Its outputs go straight into
    /// `out` as they are produced (see [`Sink`]); the frame it starts, if
    /// any, is put on the air when the call returns.
    #[inline]
    fn call(&mut self, now: SimTime, t: usize, out: &mut Vec<BssOutput>, f: impl FnOnce(&mut M, &mut Sink<'_>)) {
        let mut sink = Sink { sta: t, frames: &mut self.frames, stations: self.macs.len(), started: false, out };
        // (the station's MAC and track looked up once each)
        let m = &mut self.macs[t];
        f(m, &mut sink);
        let started = sink.started;
        let wk = m.next_wakeup();
        self.track[t].wk = wk;
        if started {
            self.start_tx(now, t, out);
        }
    }

    /// The end of station `s`'s frame `f` at the sender, whatever the
    /// carrier-sense model: the frame's end mark, the MAC's `on_tx_end`
    /// and the frame's airtime report.
    #[inline]
    fn sender_end(&mut self, now: SimTime, s: usize, f: &Frame, out: &mut Vec<BssOutput>) {
        self.track[s].end_mark = self.starts;
        self.call(now, s, out, |m, mo| m.on_tx_end(now, mo));
        if self.report_airtime && f.kind.carries_msdus() {
            out.push(BssOutput::Airtime { sta: s as u32, peer: f.ra.0, airtime: f.airtime });
        }
    }

    /// The verdict on data frame `f` of station `s` at its intended
    /// receiver (`received`: a station of the cell received the PPDU; the
    /// MPDUs' `fcs_ok` hold their outcomes), told to the sender's MAC
    /// (`Mac::on_verdict`), whatever the carrier-sense model. The MAC's
    /// timing does not change, so its cached wake-up holds.
    #[inline]
    fn verdict(&mut self, now: SimTime, s: usize, f: &Frame, received: bool, out: &mut Vec<BssOutput>) {
        let mut sink = Sink { sta: s, frames: &mut self.frames, stations: self.macs.len(), started: false, out };
        self.macs[s].on_verdict(now, f, received, &mut sink);
        debug_assert!(!sink.started, "a MAC transmitted on a verdict");
        debug_assert_eq!(self.track[s].wk, self.macs[s].next_wakeup(), "a verdict changed a MAC's timing");
    }

    /// What every frame start does, whatever the carrier-sense model: a
    /// fresh frame id, the transmitter's counters and the frame's start
    /// number (the tap is told by the caller, see `tap_frame`). Returns
    /// (id, end, start number).
    #[inline(always)]
    fn open_tx(&mut self, now: SimTime, s: usize, airtime: SimDur, contended: bool) -> (u32, SimTime, u64) {
        let id = self.next_tx;
        self.next_tx = self.next_tx.wrapping_add(1);
        let end = now + airtime;
        if contended {
            self.track[s].counters.initial_frames += 1;
        }
        self.track[s].counters.airtime_ns += airtime.as_nanos();
        let seq = self.starts;
        self.starts += 1;
        self.track[s].last_start = seq;
        self.track[s].end_mark = ON_AIR;
        (id, end, seq)
    }

    /// Station `s` started the frame that is the last entry of `frames`
    /// (put there by its MAC through the [`Sink`]).
    fn start_tx(&mut self, now: SimTime, s: usize, out: &mut Vec<BssOutput>) {
        if self.frames.last().and_then(|f| f.mu.as_ref()).is_some_and(|m| m.uplink) {
            self.gather_tb(now, s, out);
        }
        if self.sense.is_some() {
            // (each station's reception is decided as the frame's end
            // reaches it: its MSDUs are lent at once, `Mac::lend_msdus`)
            let mut f = self.frames.pop().expect("a started frame");
            self.macs[s].lend_msdus(&mut f);
            return self.start_tx_sensed(now, s, f, out);
        }
        let last = self.air.len();
        debug_assert_eq!(self.frames.len(), last + 1, "frames and their entries out of step");
        let (airtime, contended, rate) = {
            let f = &self.frames[last];
            (f.airtime, f.contended, f.rate)
        };
        let (id, end, seq) = self.open_tx(now, s, airtime, contended);
        if self.tap.is_some() {
            self.macs[s].lend_msdus(&mut self.frames[last]);
            tap_frame(&mut self.tap, now, &self.frames[last]);
        }
        // (`last` frames were on the air before this one)
        let was_quiet = last == 0;
        // Its entry goes on at once, index for index with its frame (a MAC
        // that started a frame on the busy indications below would find
        // this one on the air).
        reserve_on_air(&mut self.air, self.macs.len());
        self.air.push(OnAir::new(id, seq, s, !was_quiet));
        if was_quiet {
            self.air_min_seq = seq;
            self.air_min_stale = false;
            self.burst_header_ok = true;
            self.burst_header_end = now + self.macs[s].timing().plcp_time(rate);
        } else if now < self.burst_header_end {
            self.burst_header_ok = false;
        }
        // Stations that saw an idle medium (no transmission by anyone else)
        // now sense it busy. On a quiet medium that is every solo station
        // but the sender; on a busy one only a station whose own frame is
        // all that is on the air (any other already senses it busy), so a
        // burst of k colliding frames costs O(k), not O(k x solo stations).
        if was_quiet {
            for i in 0..self.solo.len() {
                let t = self.solo[i];
                if t != s {
                    self.call(now, t, out, |m, mo| m.on_cca(now, true, mo));
                }
            }
        } else if last == 1 {
            // (one frame per station: a single frame is a single sender)
            let u = self.air[0].sender();
            if u != s && !self.group.is_member(u) {
                debug_assert!(self.solo.contains(&u), "a transmitting station is solo");
                self.call(now, u, out, |m, mo| m.on_cca(now, true, mo));
            }
        }
        if was_quiet {
            self.group.busy(now);
            // (no frame started before it at this instant to merge with)
            out.push(BssOutput::TxEnd { id, n: 1, at: end });
        } else {
            push_tx_end(out, id, end);
        }
    }

    /// Whether a frame of a station other than `t` is on the air (the
    /// medium is then busy for `t`; its own frames do not count). A
    /// station has at most one frame on the air, so the count decides.
    #[inline]
    fn busy_for(&self, t: usize) -> bool {
        self.air.len() > (self.track[t].end_mark == ON_AIR) as usize
    }

    /// Whether station `t` transmitted during the frame numbered `a` (see
    /// `Bss::starts`; `t` is not that frame's sender).
    #[inline]
    fn sent_during(&self, t: usize, a: u64) -> bool {
        match self.track[t].last_start {
            NEVER_SENT => false,
            b if b > a => true,
            _ => self.track[t].end_mark > a, // ON_AIR is the largest value
        }
    }

    /// Whether station `t` transmitted during a frame of another station
    /// that is still on the air (it will not receive that frame, unlike
    /// the group, so it cannot join the group yet). (`air_min_seq` must be
    /// fresh: `fresh_air_min`.)
    #[inline]
    fn overlaps_air(&self, t: usize) -> bool {
        debug_assert!(!self.air_min_stale, "overlaps_air with a stale air_min_seq");
        if self.track[t].end_mark == ON_AIR {
            self.air.len() > 1
        } else {
            self.air_min_seq < self.track[t].end_mark
        }
    }

    /// Track the earliest instant any station must act at; emit a wake-up
    /// only if it is earlier than the earliest one pending.
    fn reschedule(&mut self, out: &mut Vec<BssOutput>) {
        let at = self.solo_earliest();
        self.arm(at, out);
    }

    /// Find `air_min_seq` again if the frame that held it left the air.
    #[inline(always)]
    fn fresh_air_min(&mut self) {
        if self.air_min_stale {
            self.air_min_seq = self.air.iter().map(|a| a.seq()).min().unwrap_or(u64::MAX);
            self.air_min_stale = false;
        }
    }

    /// The position of transmission `id` in `air`, searched forward from
    /// where the last frame left it, then back from there: frames ending
    /// one after another in start order (the frames of a collision, or
    /// every station of a cell at the start of a run) are then found at
    /// once; from the front, the search would cost O(n^2) for a burst of n
    /// frames. (Frames leave by `swap_remove`, which puts the last entry
    /// where the leaver was: once the leavers reach the entries moved
    /// there, the rest lie before the hint in reverse start order, the
    /// next to end last.)
    #[inline]
    fn air_pos(&self, id: u32) -> usize {
        let h = self.air_hint.min(self.air.len());
        let (after, before) = (&self.air[h..], &self.air[..h]);
        match after.iter().position(|t| t.id == id) {
            Some(i) => h + i,
            None => before.iter().rposition(|t| t.id == id).expect("unknown transmission"),
        }
    }

    /// The earliest instant any solo station must act at.
    fn solo_earliest(&self) -> SimTime {
        debug_assert!(
            self.solo.iter().all(|&s| self.track[s].wk == self.macs[s].next_wakeup()),
            "stale cached wake-up"
        );
        let mut at = SimTime::NEVER;
        for &s in &self.solo {
            at = at.min(self.track[s].wk);
        }
        at
    }

    /// `reschedule` given the solo stations' earliest instant `solo_at`.
    fn arm(&mut self, solo_at: SimTime, out: &mut Vec<BssOutput>) {
        debug_assert_eq!(solo_at, self.solo_earliest(), "stale solo instant");
        self.solo_at = solo_at;
        self.group_at = self.group.next_tx();
        let at = solo_at.min(self.group_at).min(self.arrive_at);
        self.wake_at = at;
        if at < self.armed {
            self.armed = at;
            out.push(BssOutput::Wake { at });
        }
    }
}

/// Merge `v` into `dst`, both in increasing order, keeping it. From the
/// back: each step moves the larger of the two last elements left to
/// place, a choice between two values rather than a branch (which list
/// it comes from is as random as the stations' backoff draws).
fn merge_sorted(dst: &mut Vec<usize>, v: &[usize]) {
    let (mut i, mut j) = (dst.len(), v.len());
    dst.resize(i + j, 0);
    while i > 0 && j > 0 {
        let (x, y) = (dst[i - 1], v[j - 1]);
        let from_dst = x > y;
        dst[i + j - 1] = if from_dst { x } else { y };
        i -= usize::from(from_dst);
        j -= usize::from(!from_dst);
    }
    // (what is left of `dst` is in place)
    dst[..j].copy_from_slice(&v[..j]);
}

/// The solo stations' earliest instant after one of them changed its
/// cached wake-up from `was` to `wk` (`SimTime::NEVER` for `was`: it was
/// not solo), `cur` being the earliest instant before: without a walk over
/// the solo stations, unless the station held `cur` and moved later
/// (`None`: walk them).
fn earliest_after(cur: SimTime, was: SimTime, wk: SimTime) -> Option<SimTime> {
    if wk <= cur {
        Some(wk)
    } else if was > cur {
        Some(cur)
    } else {
        None
    }
}

#[cfg(test)]
mod layout {
    /// A cell whose stations all start a frame at one instant holds an
    /// output per frame: its size is part of a campus's memory per station.
    #[test]
    fn an_output_is_24_bytes() {
        assert_eq!(std::mem::size_of::<super::BssOutput>(), 24);
    }
    #[test]
    fn a_dcf_stations_state_is_360_bytes() {
        // (docs/performance.md, "Dense cells", states it)
        assert_eq!(super::station_bytes::<crate::mac::Dcf>(), 360);
    }

    #[test]
    fn a_frame_on_the_air_is_16_bytes() {
        assert_eq!(std::mem::size_of::<super::OnAir>(), 16);
        let a = super::OnAir::new(7, 5, 3, true);
        assert_eq!((a.seq(), a.sender(), a.corrupted(6)), (5, 3, true));
        let a = super::OnAir::new(7, 5, 3, false);
        assert_eq!((a.seq(), a.corrupted(6), a.corrupted(7)), (5, false, true));
    }
}

#[cfg(test)]
mod merge {
    use super::merge_sorted;

    #[test]
    fn merging_two_sorted_lists_gives_their_sorted_union() {
        // Disjoint random subsets of 0..64 (as `solo` and the stations
        // joining it are), every size from empty up, against a sort.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..2_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (mut dst, mut v) = (Vec::new(), Vec::new());
            for s in 0..64usize {
                match (x >> s) & 3 {
                    0 => dst.push(s),
                    1 => v.push(s),
                    _ => {}
                }
            }
            let mut want = [dst.clone(), v.clone()].concat();
            want.sort_unstable();
            merge_sorted(&mut dst, &v);
            assert_eq!(dst, want);
        }
    }
}
