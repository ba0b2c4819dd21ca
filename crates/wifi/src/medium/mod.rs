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
//!   the same nanosecond and collide.
//! - Physical carrier sense is busy at a station while any other station
//!   transmits (no capture, no hidden nodes in one domain).
//! - Channel errors come from a [`FrameErrorModel`] and affect the intended
//!   receiver of data frames only; third parties decode the frame (so they
//!   set their NAV and use DIFS, not EIFS). Control frames are error-free.
use crate::mac::{Dcf, Frame, FrameKind, MacAddr, MacOutput};
use wifitcp_core::{DropReason, RngStream, SimTime};
use wifitcp_wire::Packet;

/// Probability that a data frame from `ta` to `ra` is received correctly
/// when no collision occurs. May draw from `rng` (e.g. shadowing).
pub trait FrameErrorModel {
    fn success_prob(&mut self, ta: MacAddr, ra: MacAddr, frame: &Frame, rng: &mut RngStream) -> f64;
}

/// A [`Channel`](crate::channel::Channel) model with node positions: SNR
/// classes, SNR-based or ns-2 threshold reception. BSS member `i` is
/// `NodeId(i)` for the channel (0 = AP).
pub struct ChannelErrors {
    pub channel: crate::channel::Channel,
    pub positions: Vec<crate::channel::Position>,
    pub tx_power_dbm: f64,
    pub preamble: crate::channel::Preamble,
}

impl FrameErrorModel for ChannelErrors {
    fn success_prob(&mut self, ta: MacAddr, ra: MacAddr, f: &Frame, rng: &mut RngStream) -> f64 {
        use crate::channel::{FrameKind as K, FrameTx, Mode};
        let mode = Mode::from_kbps(f.rate.0 * 100).unwrap_or(Mode::Ofdm6);
        let tx = FrameTx {
            tx: wifitcp_core::NodeId(ta.0),
            rx: wifitcp_core::NodeId(ra.0),
            tx_pos: self.positions[ta.0 as usize],
            rx_pos: self.positions[ra.0 as usize],
            tx_power_dbm: self.tx_power_dbm,
            mode,
            preamble: self.preamble,
            bits: mode.data_bits(f.mpdu_bytes),
            kind: if f.kind == FrameKind::Data { K::Data } else { K::Control },
        };
        self.channel.frame_success_prob(&tx, rng)
    }
}

/// A fixed frame error rate per station and direction; station 0 is the AP.
#[derive(Clone, Debug, Default)]
pub struct FixedPer {
    /// Error rate of frames from station i to the AP.
    pub uplink: Vec<f64>,
    /// Error rate of frames from the AP to station i.
    pub downlink: Vec<f64>,
}

impl FrameErrorModel for FixedPer {
    fn success_prob(&mut self, ta: MacAddr, ra: MacAddr, _f: &Frame, _rng: &mut RngStream) -> f64 {
        let per = if ra.0 == 0 {
            self.uplink.get(ta.0 as usize).copied().unwrap_or(0.0)
        } else if ta.0 == 0 {
            self.downlink.get(ra.0 as usize).copied().unwrap_or(0.0)
        } else {
            0.0
        };
        1.0 - per
    }
}

/// Medium-level counters of one station.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MediumCounters {
    /// Frames this station sent after winning contention (data without
    /// RTS/CTS, or RTS).
    pub initial_frames: u64,
    /// Of those, frames that overlapped another transmission.
    pub collided: u64,
    /// Data frames lost to the channel error model.
    pub channel_errors: u64,
    /// Airtime used by this station's transmissions, in ns.
    pub airtime_ns: u64,
}

#[derive(Debug)]
struct OnAir {
    id: u64,
    sender: usize,
    frame: Frame,
    corrupted: bool,
    /// Stations (other than the sender) that transmitted during this frame.
    overlapped_by: Vec<usize>,
}

#[derive(Debug)]
pub enum BssOutput {
    /// Call `wake(gen)` at `at`; a newer `Wake` supersedes older ones.
    Wake { at: SimTime, gen: u64 },
    /// Call `tx_end(id)` at `at`.
    TxEnd { id: u64, at: SimTime },
    /// Station `sta` received a new MSDU from `from`.
    Deliver { sta: usize, from: usize, msdu: Packet },
    /// Station `sta`'s MSDU was acknowledged.
    Acked { sta: usize, msdu: Packet },
    /// Station `sta` discarded an MSDU.
    Dropped { sta: usize, msdu: Packet, reason: DropReason },
    /// Station `sta` can take its next MSDU.
    Ready { sta: usize },
    /// A data frame from `sta` to `peer` used `airtime` (for airtime-fair
    /// scheduling; reported whatever the frame's fate).
    Airtime { sta: usize, peer: usize, airtime: wifitcp_core::SimDur },
}

pub struct Bss {
    pub macs: Vec<Dcf>,
    pub medium: Vec<MediumCounters>,
    errors: Box<dyn FrameErrorModel>,
    rng: RngStream,
    air: Vec<OnAir>,
    next_tx: u64,
    /// The one wake-up the caller holds for this BSS.
    wake_at: SimTime,
    /// Each station's next wake-up as of the last `reschedule`.
    due: Vec<SimTime>,
    wake_gen: u64,
    /// Output buffer of the MAC call in progress; `pool` holds more for
    /// nested calls (`start_tx` runs inside `apply`).
    scratch: Vec<MacOutput>,
    pool: Vec<Vec<MacOutput>>,
}

impl Bss {
    pub fn new(macs: Vec<Dcf>, errors: Box<dyn FrameErrorModel>, rng: RngStream) -> Bss {
        let n = macs.len();
        for (i, m) in macs.iter().enumerate() {
            assert_eq!(m.addr, MacAddr(i as u32), "MAC addresses must be their index");
        }
        Bss {
            macs,
            medium: vec![MediumCounters::default(); n],
            errors,
            rng,
            air: Vec::new(),
            next_tx: 0,
            wake_at: SimTime::NEVER,
            due: vec![SimTime::NEVER; n],
            wake_gen: 0,
            scratch: Vec::new(),
            pool: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.macs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.macs.is_empty()
    }

    /// Packets on the air or in service at the MACs (end-of-run ledger).
    pub fn packets_in_service(&self) -> impl Iterator<Item = &Packet> {
        self.macs.iter().filter_map(|m| m.in_service())
    }

    /// Schedule the BSS's wake-up (call once at start, or after changing
    /// MAC state from outside).
    pub fn reschedule_all(&mut self, out: &mut Vec<BssOutput>) {
        self.reschedule(out);
    }

    /// Give station `sta` an MSDU for station `ra`.
    pub fn give_msdu(&mut self, now: SimTime, sta: usize, msdu: Packet, ra: usize, out: &mut Vec<BssOutput>) {
        self.call(now, sta, out, |m, mo| m.start_msdu(now, msdu, MacAddr(ra as u32), mo));
        self.reschedule(out);
    }

    /// The BSS wake-up fired: serve every station due now, in index order
    /// (stations due at the same instant transmit together and collide).
    pub fn wake(&mut self, now: SimTime, gen: u64, out: &mut Vec<BssOutput>) {
        if self.wake_gen != gen || self.wake_at != now {
            return; // superseded
        }
        self.wake_at = SimTime::NEVER;
        // Stations due now stay due while others start transmitting at the
        // same instant (Dcf::freeze), so one pass in index order serves all.
        for s in 0..self.macs.len() {
            if self.due[s] == now && self.macs[s].next_wakeup() == now {
                self.call(now, s, out, |m, mo| m.on_wake(now, mo));
            }
        }
        self.reschedule(out);
    }

    /// A transmission ended.
    pub fn tx_end(&mut self, now: SimTime, id: u64, out: &mut Vec<BssOutput>) {
        let pos = self.air.iter().position(|t| t.id == id).expect("unknown transmission");
        let tx = self.air.swap_remove(pos);
        let s = tx.sender;
        self.call(now, s, out, |m, mo| m.on_tx_end(now, mo));
        if tx.corrupted && tx.frame.contended {
            self.medium[s].collided += 1;
        }
        if tx.frame.kind == FrameKind::Data {
            out.push(BssOutput::Airtime { sta: s, peer: tx.frame.ra.0 as usize, airtime: tx.frame.airtime });
        }
        let ra = tx.frame.ra.0 as usize;
        let mut ok_at_ra = !tx.corrupted;
        if ok_at_ra && tx.frame.kind == FrameKind::Data {
            let p = self.errors.success_prob(tx.frame.ta, tx.frame.ra, &tx.frame, &mut self.rng);
            if p < 1.0 && !self.rng.bernoulli(p) {
                ok_at_ra = false;
                self.medium[s].channel_errors += 1;
            }
        }
        let quiet_after = self.air.is_empty();
        for t in 0..self.macs.len() {
            if t == s || tx.overlapped_by.contains(&t) {
                continue;
            }
            if tx.corrupted && !quiet_after && self.air.iter().any(|a| a.sender != t) {
                // Overlapping frames make one corrupted reception, reported
                // when the last of them ends.
                continue;
            }
            let ok = if t == ra { ok_at_ra } else { !tx.corrupted };
            self.call(now, t, out, |m, mo| m.on_rx_end(now, &tx.frame, ok, mo));
        }
        let quiet = self.air.is_empty();
        for t in 0..self.macs.len() {
            if t != s && (quiet || !self.air.iter().any(|a| a.sender != t)) {
                self.call(now, t, out, |m, mo| m.on_cca(now, false, mo));
            }
        }
        self.reschedule(out);
    }

    /// Run one MAC input on station `t`; translate its outputs, if any.
    #[inline]
    fn call(&mut self, now: SimTime, t: usize, out: &mut Vec<BssOutput>, f: impl FnOnce(&mut Dcf, &mut Vec<MacOutput>)) {
        let mut mo = std::mem::take(&mut self.scratch);
        f(&mut self.macs[t], &mut mo);
        if mo.is_empty() {
            self.scratch = mo;
        } else {
            self.apply(now, t, mo, out);
        }
    }

    /// Translate MAC outputs of station `sta`; returns the buffer to the pool.
    fn apply(&mut self, now: SimTime, sta: usize, mut mo: Vec<MacOutput>, out: &mut Vec<BssOutput>) {
        if self.scratch.capacity() == 0 {
            // Lend the nested calls of start_tx a buffer with capacity.
            self.scratch = self.pool.pop().unwrap_or_default();
        }
        for o in mo.drain(..) {
            match o {
                MacOutput::StartTx(f) => self.start_tx(now, sta, f, out),
                MacOutput::Deliver { from, msdu } => out.push(BssOutput::Deliver { sta, from: from.0 as usize, msdu }),
                MacOutput::Acked(msdu) => out.push(BssOutput::Acked { sta, msdu }),
                MacOutput::Dropped(msdu, reason) => out.push(BssOutput::Dropped { sta, msdu, reason }),
                MacOutput::Ready => out.push(BssOutput::Ready { sta }),
            }
        }
        self.pool.push(mo);
    }

    fn start_tx(&mut self, now: SimTime, s: usize, f: Frame, out: &mut Vec<BssOutput>) {
        let id = self.next_tx;
        self.next_tx += 1;
        let end = now + f.airtime;
        if f.contended {
            self.medium[s].initial_frames += 1;
        }
        self.medium[s].airtime_ns += f.airtime.as_nanos();
        let corrupted = !self.air.is_empty();
        for a in self.air.iter_mut() {
            a.corrupted = true;
            a.overlapped_by.push(s);
        }
        // Stations that saw an idle medium (no transmission by anyone else)
        // now sense it busy.
        for t in 0..self.macs.len() {
            if t != s && !self.air.iter().any(|a| a.sender != t) {
                self.call(now, t, out, |m, mo| m.on_cca(now, true, mo));
            }
        }
        let overlapped_by = self.air.iter().map(|a| a.sender).collect();
        self.air.push(OnAir { id, sender: s, frame: f, corrupted, overlapped_by });
        out.push(BssOutput::TxEnd { id, at: end });
    }

    /// Keep exactly one pending wake-up: the earliest of all stations.
    fn reschedule(&mut self, out: &mut Vec<BssOutput>) {
        let mut at = SimTime::NEVER;
        for (d, m) in self.due.iter_mut().zip(&self.macs) {
            *d = m.next_wakeup();
            at = at.min(*d);
        }
        if at != self.wake_at {
            self.wake_at = at;
            self.wake_gen += 1;
            if !at.is_never() {
                out.push(BssOutput::Wake { at, gen: self.wake_gen });
            }
        }
    }
}
