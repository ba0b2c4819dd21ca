//! Carrier sense from received power: hidden and exposed nodes, and
//! reception with capture, for a cell whose stations do not all hear each
//! other.
//!
//! Who hears whom is fixed when the cell is built ([`SenseMatrix`]): station
//! `t` senses a frame of station `s` iff the mean received power at `t`
//! (transmit power, antenna gains, path loss; no shadowing) is at least the
//! carrier-sense threshold `channel.cs_threshold_dbm`. This is the
//! energy/preamble detection of CCA (802.11-2020 17.3.10.6: a receiver
//! indicates busy for a valid OFDM preamble at or above -82 dBm in 20 MHz),
//! with the threshold as a key, as ns-2's `CSThresh_` (WirelessPhy::sendUp
//! drops frames below it) and ns-3's CCA sensitivity do. When every pair
//! hears every other, [`SenseMatrix::all_hear`] holds and the medium is not
//! told about the matrix at all: it behaves, and costs, exactly as before.
//!
//! Otherwise (`Bss::set_sense`) the medium gives each station its own view:
//! - a station senses busy while at least one frame it hears is on the air
//!   (`heard`); bystander grouping is off (its shared carrier-sense state
//!   assumes one view), so every station is stepped on its own: a frame
//!   costs O(N);
//! - a station that senses the medium idle and is not transmitting locks on
//!   the first frame it hears (frames that start at the same instant: the
//!   strongest), and keeps it to its end: later frames are interference
//!   only. This is preamble capture without frame-body capture: ns-3's PHY
//!   without a FrameCaptureModel (the default) stays on the first PPDU,
//!   and ns-2's `Mac802_11::capture` keeps the first frame if it is
//!   `CPThresh_` (10 dB) above the newcomer, else both are lost;
//! - interference at a locked receiver, at any instant, is the sum of the
//!   mean powers of every other frame then on the air (audible or not);
//!   the receiver keeps the spans of constant interference of its frame
//!   (`chunks`), as ns-3's InterferenceHelper does;
//! - at the intended receiver the channel's error model decides from those
//!   spans (`FrameErrorModel::success_prob_with_interference`: the SNR
//!   model span by span at each span's SINR, the threshold model with the
//!   10 dB capture rule against the strongest interference; without a
//!   power model any interference destroys the frame); third parties
//!   decode a frame if it met no interference or is at least
//!   [`CAPTURE_THRESHOLD_DB`](super::errors::CAPTURE_THRESHOLD_DB) above the
//!   strongest (no draw: they only update their NAV from it);
//! - a station whose locked frame failed after its PLCP header was decoded
//!   (no frame it hears began before the header ended) reports an
//!   erroneous reception (EIFS, 10.3.2.3.7) when the medium goes idle for
//!   it, as the shared medium does for a collision burst.
//!
//! A data frame or RTS that its receiver did not get counts as collided
//! (`MediumCounters::collided`) if the receiver was not locked on it or
//! met interference during it; one lost to the channel alone counts as a
//! channel error, as in the shared medium. Propagation delay stays zero
//! here (see `Bss` module docs).
//!
//! Invariants: `heard[t]` equals the number of frames on the air from
//! stations other than `t` that `t` hears; a lock names a frame on the air
//! whose sender `t` hears; a transmitting station holds no lock.
use super::{Bss, BssOutput, OnAir, ON_AIR};
use crate::mac::{AckPolicy, Frame, Mac};
use wifitcp_core::{DropReason, SimTime};

/// Who hears whom in one cell, and the mean received powers (mW).
#[derive(Clone, Debug, PartialEq)]
pub struct SenseMatrix {
    n: usize,
    /// `hears[s * n + t]`: `t` senses frames of `s`.
    hears: Vec<bool>,
    /// `rx_mw[s * n + t]`: mean power of a frame of `s` at `t`, mW.
    rx_mw: Vec<f64>,
}

impl SenseMatrix {
    /// From the mean received power (dBm) of a frame of `s` at `t`
    /// (`rx_dbm(s, t)`) and the carrier-sense threshold (dBm).
    pub fn from_rx_dbm(n: usize, cs_threshold_dbm: f64, rx_dbm: impl Fn(usize, usize) -> f64) -> SenseMatrix {
        let mut hears = vec![true; n * n];
        let mut rx_mw = vec![0.0; n * n];
        for s in 0..n {
            for t in 0..n {
                if s != t {
                    let p = rx_dbm(s, t);
                    hears[s * n + t] = p >= cs_threshold_dbm;
                    rx_mw[s * n + t] = 10f64.powf(p / 10.0);
                }
            }
        }
        SenseMatrix { n, hears, rx_mw }
    }

    /// From an explicit "who hears whom" (`hears(s, t)`), with every
    /// audible frame at 1 mW and inaudible ones at zero (tests; capture
    /// then never happens).
    pub fn from_fn(n: usize, hears: impl Fn(usize, usize) -> bool) -> SenseMatrix {
        SenseMatrix::from_rx_dbm(n, -1.0, |s, t| if hears(s, t) { 0.0 } else { f64::NEG_INFINITY })
    }

    pub fn len(&self) -> usize {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Whether `t` senses frames of `s`.
    #[inline]
    pub fn hears(&self, s: usize, t: usize) -> bool {
        self.hears[s * self.n + t]
    }

    /// Mean power of a frame of `s` at `t`, mW.
    #[inline]
    pub fn rx_mw(&self, s: usize, t: usize) -> f64 {
        self.rx_mw[s * self.n + t]
    }

    /// Every station hears every other (the medium then needs no matrix).
    pub fn all_hear(&self) -> bool {
        self.hears.iter().all(|&h| h)
    }

    /// Pairs (s, t), s < t, in which at least one does not hear the other.
    pub fn hidden_pairs(&self) -> usize {
        let mut k = 0;
        for s in 0..self.n {
            for t in s + 1..self.n {
                if !(self.hears(s, t) && self.hears(t, s)) {
                    k += 1;
                }
            }
        }
        k
    }
}

/// A station's reception in progress.
#[derive(Clone, Copy, Debug)]
pub(super) struct Lock {
    id: u32,
    start: SimTime,
    header_end: SimTime,
    power_mw: f64,
    /// Interference now, mW, since `since`.
    cur_mw: f64,
    since: SimTime,
    /// Strongest interference so far, mW.
    max_mw: f64,
    header_ok: bool,
}

impl Lock {
    fn new(id: u32, now: SimTime, header_end: SimTime, power_mw: f64, cur_mw: f64, header_ok: bool) -> Lock {
        Lock { id, start: now, header_end, power_mw, cur_mw, since: now, max_mw: cur_mw, header_ok }
    }

    /// The interference changes by `delta_mw` at `now`: close the span.
    fn change(&mut self, now: SimTime, delta_mw: f64, chunks: &mut Vec<(u64, f64)>) {
        if now > self.since {
            chunks.push(((now - self.since).as_nanos(), self.cur_mw));
            self.since = now;
        }
        self.cur_mw += delta_mw;
        // (sums and differences of powers: no negative residue)
        if self.cur_mw < self.max_mw * 1e-12 {
            self.cur_mw = 0.0;
        }
        self.max_mw = self.max_mw.max(self.cur_mw);
    }
}

/// The per-station carrier-sense state of a cell with hidden nodes.
pub(super) struct SenseState {
    m: SenseMatrix,
    heard: Vec<u32>,
    lock: Vec<Option<Lock>>,
    pending_err: Vec<bool>,
    /// Per station: the spans of its reception so far (see `Lock`).
    chunks: Vec<Vec<(u64, f64)>>,
    scratch: Vec<usize>,
}

impl SenseState {
    pub(super) fn new(m: SenseMatrix) -> SenseState {
        let n = m.len();
        SenseState {
            m,
            heard: vec![0; n],
            lock: vec![None; n],
            pending_err: vec![false; n],
            chunks: vec![Vec::new(); n],
            scratch: Vec::new(),
        }
    }
}

/// Whether a frame of power `p` survives interference `i` (mW) by the
/// capture threshold.
#[inline]
fn captures(p: f64, i: f64) -> bool {
    i <= 0.0 || 10.0 * (p / i).log10() >= super::errors::CAPTURE_THRESHOLD_DB
}

impl<M: Mac> Bss<M> {
    /// Give the cell its "who hears whom". If everyone hears everyone the
    /// call changes nothing and returns false; else every station gets
    /// its own carrier-sense view (grouping off for good) and it returns
    /// true.
    pub fn set_sense(&mut self, m: SenseMatrix) -> bool {
        assert_eq!(m.len(), self.macs.len(), "a sense matrix per member");
        if m.all_hear() {
            return false;
        }
        self.set_grouping(false);
        self.groupable = false;
        self.grouping = false;
        self.sense = Some(Box::new(SenseState::new(m)));
        true
    }

    #[inline]
    fn st(&mut self) -> &mut SenseState {
        self.sense.as_mut().expect("sensed medium")
    }

    /// `start_tx` with per-station carrier sense.
    pub(super) fn start_tx_sensed(&mut self, now: SimTime, s: usize, f: Frame, out: &mut Vec<BssOutput>) {
        let (id, end, seq) = self.open_tx(now, s, &f);
        let header_end = now + self.macs[s].timing().plcp_time(f.rate);
        let n = self.macs.len();
        // Power already on the air at each station, for a new lock.
        let mut st = self.sense.take().expect("sensed medium");
        // A station cannot receive while it sends.
        st.lock[s] = None;
        st.pending_err[s] = false;
        let mut busy = std::mem::take(&mut st.scratch);
        busy.clear();
        for t in 0..n {
            if t == s {
                continue;
            }
            let p = st.m.rx_mw(s, t);
            let audible = st.m.hears(s, t);
            match st.lock[t].as_mut() {
                Some(l) => {
                    if audible && now == l.start && p > l.power_mw {
                        // Frames starting together: the receiver locks on
                        // the strongest; the other becomes interference.
                        *l = Lock::new(id, now, header_end, p, l.cur_mw + l.power_mw, false);
                        st.chunks[t].clear();
                    } else {
                        l.change(now, p, &mut st.chunks[t]);
                        if audible && now < l.header_end {
                            l.header_ok = false;
                        }
                    }
                }
                None => {
                    if audible && st.heard[t] == 0 && self.end_mark[t] != ON_AIR {
                        let i0: f64 = self.air.iter().map(|a| st.m.rx_mw(a.sender, t)).sum();
                        st.lock[t] = Some(Lock::new(id, now, header_end, p, i0, true));
                        st.chunks[t].clear();
                    }
                }
            }
            if audible {
                st.heard[t] += 1;
                if st.heard[t] == 1 {
                    busy.push(t);
                }
            }
        }
        self.sense = Some(st);
        self.air.push(OnAir { id, seq, sender: s, frame: f, overlapped_at_start: false });
        out.push(BssOutput::TxEnd { id, at: end });
        for &t in &busy {
            self.call(now, t, out, |m, mo| m.on_cca(now, true, mo));
        }
        self.st().scratch = busy;
    }

    /// `tx_end` with per-station carrier sense and capture.
    pub(super) fn tx_end_sensed(&mut self, now: SimTime, id: u32, out: &mut Vec<BssOutput>) {
        let pos = self.air.iter().position(|t| t.id == id).expect("unknown transmission");
        let mut tx = self.air.swap_remove(pos);
        let s = tx.sender;
        self.end_mark[s] = self.starts;
        let n = self.macs.len();
        let ra = tx.frame.ra.0 as usize;
        self.call(now, s, out, |m, mo| m.on_tx_end(now, mo));
        let data = tx.frame.kind.carries_msdus();
        if self.report_airtime && data {
            out.push(BssOutput::Airtime { sta: s, peer: ra, airtime: tx.frame.airtime });
        }
        // Close every reception's spans at this instant; the others' lose
        // this frame's power from now on.
        {
            let st = self.st();
            for t in 0..n {
                if let Some(l) = st.lock[t].as_mut() {
                    let delta = if l.id == id { 0.0 } else { -st.m.rx_mw(s, t) };
                    l.change(now, delta, &mut st.chunks[t]);
                }
            }
        }
        let lock_ra = if ra < n { self.st().lock[ra].filter(|l| l.id == id) } else { None };
        let ok_at_ra = match lock_ra {
            Some(_) => {
                let chunks = std::mem::take(&mut self.st().chunks[ra]);
                let ok = self.judge_sensed(now, s, &mut tx.frame, &chunks);
                self.st().chunks[ra] = chunks;
                ok
            }
            None => false,
        };
        if !ok_at_ra {
            tx.frame.mpdus.as_mut_slice().iter_mut().for_each(|m| m.fcs_ok = false);
            // Lost to another frame at its receiver (not to the channel).
            if tx.frame.contended && lock_ra.is_none_or(|l| l.max_mw > 0.0) {
                self.medium[s].collided += 1;
            }
        }
        for m in tx.frame.mpdus.iter() {
            if m.ack == AckPolicy::NoAck && !(ok_at_ra && m.fcs_ok) {
                if let Some(mid) = m.msdu_id() {
                    out.push(BssOutput::Dropped { sta: s, id: mid, reason: DropReason::NoAckLost });
                }
            }
        }
        if ok_at_ra && data && ra < n {
            self.note_reached(s, &tx.frame);
        }
        let header_always = self.eifs_always;
        let mut deferred = std::mem::take(&mut self.st().scratch);
        deferred.clear();
        for t in 0..n {
            if t == s {
                continue;
            }
            let st = self.st();
            let audible = st.m.hears(s, t);
            if audible {
                st.heard[t] -= 1;
            }
            let quiet = st.heard[t] == 0;
            if let Some(l) = st.lock[t].filter(|l| l.id == id) {
                st.lock[t] = None;
                let ok = if t == ra { ok_at_ra } else { captures(l.power_mw, l.max_mw) };
                if ok {
                    st.pending_err[t] = false;
                    let frame = &mut tx.frame;
                    self.call(now, t, out, |m, mo| {
                        m.on_rx_end(now, frame, true, mo);
                        if quiet {
                            m.on_cca(now, false, mo);
                        }
                    });
                    continue;
                }
                if l.header_ok || header_always {
                    st.pending_err[t] = true;
                }
            }
            if audible && quiet {
                let st = self.st();
                if std::mem::take(&mut st.pending_err[t]) {
                    let frame = &mut tx.frame;
                    self.call(now, t, out, |m, mo| {
                        m.on_rx_end(now, frame, false, mo);
                        m.on_cca(now, false, mo);
                    });
                } else if self.macs[t].idle_may_emit() {
                    deferred.push(t);
                } else {
                    self.call(now, t, out, |m, mo| m.on_cca(now, false, mo));
                }
            }
        }
        for &t in &deferred {
            if self.macs[t].idle_may_emit() && self.st().heard[t] == 0 {
                self.call(now, t, out, |m, mo| m.on_cca(now, false, mo));
            }
        }
        self.st().scratch = deferred;
        self.settle(now, out);
    }

    /// `judge` with interference at the receiver: the error model decides
    /// with it (`success_prob_with_interference`). A frame lost under
    /// interference counts as a collision, not as a channel error.
    fn judge_sensed(&mut self, now: SimTime, s: usize, f: &mut Frame, chunks: &[(u64, f64)]) -> bool {
        if chunks.iter().all(|c| c.1 <= 0.0) {
            return self.judge(now, s, f);
        }
        let data = f.kind.carries_msdus();
        let rng = if data { &mut self.rng } else { &mut self.ctl_rng };
        let p = self.errors.success_prob_with_interference(now, f.ta, f.ra, f, chunks, rng);
        if f.mpdus.len() <= 1 {
            let ok = p >= 1.0 || (p > 0.0 && rng.bernoulli(p));
            f.mpdus.as_mut_slice().iter_mut().for_each(|m| m.fcs_ok = ok);
            ok
        } else {
            let psdu = f.mpdu_bytes.max(1) as f64;
            let mut any = false;
            for m in f.mpdus.as_mut_slice() {
                let q = if p >= 1.0 { 1.0 } else { p.powf(m.bytes as f64 / psdu) };
                m.fcs_ok = q >= 1.0 || (q > 0.0 && rng.bernoulli(q));
                any |= m.fcs_ok;
            }
            any
        }
    }
}

#[cfg(test)]
mod tests;
