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
//!   `CPThresh_` (10 dB) above the newcomer, else both are lost. Under
//!   reception per receiver (`Bss::set_per_receiver`,
//!   `channel.reception = "per_receiver"`) a station that is neither
//!   receiving nor transmitting locks on the next frame that reaches it
//!   even while it senses the medium busy with frames whose start it
//!   missed (it was sending), which count as interference: ns-3's PHY
//!   detects a new preamble whenever it is not receiving. Its MAC learns
//!   of such a lock by `Mac::on_rx_start` (PHY-RXSTART with no change of
//!   carrier sense; a wait for a response counts it). Model choice:
//!   the per-station view of hidden and distant nodes keeps the rule
//!   above (a station locks only from an idle medium);
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
//! channel error, as in the shared medium.
//!
//! Several channels in one cell ([`SenseMatrix::with_channels`],
//! adjacent-channel leakage, `channel::leakage`): a station senses a
//! frame of another channel by energy (at or above the energy-detect
//! threshold, not the carrier-sense one), never locks on it, and takes its
//! leaked power as interference at its own receptions. A station busy
//! only with such energy still locks on a frame of its own channel (its
//! receiver is synchronised to nothing); in a cell of one channel this is
//! the rule above.
//!
//! Propagation delay ([`SenseMatrix::with_delays`]): station `t` sees the
//! start and the end of a frame of `s` `delay_ns(s, t)` after `s` sends
//! them, and everything above happens at `t` at those instants: carrier
//! sense, the lock, the interference spans, the verdict and delivery at the
//! intended receiver (when the end reaches it), NAV and EIFS at third
//! parties. The sender's `on_tx_end` comes at its own end. A frame is a
//! `Flight` until its end has reached every station; each sender's
//! stations are sorted by delay once, so a frame's edges (its start or end
//! reaching a station) are handed out in order from two cursors, edges of
//! all frames in the order of their instants (at one instant ends before
//! starts, then frames in the order they started). An edge that reaches a
//! station hearing the sender, or the frame's receiver, is handed out at a
//! wake-up at its instant (`Bss::arrive_at`); the others only change the
//! interference at a reception in progress and are handed out, at their
//! own instants, before the next wake-up, frame start or frame end. The
//! world gives delays from positions (`propagation_delay_ns`, c = 299 792
//! 458 m/s, rounded to the nearest ns); with zero delays every edge is
//! handed out at once, as without them.
//!
//! Invariants: `heard[t]` equals the number of frames from stations other
//! than `t` that `t` hears whose start has reached `t` and whose end has
//! not, `own[t]` the number of those on `t`'s channel; a lock names one
//! of the latter; a transmitting station holds no lock;
//! every edge is handed out once, in the order of the instants, and no
//! edge that calls a MAC is handed out late.
use super::carrier::{AtReceiver, Heard, Sensed};
use super::{Bss, BssOutput, ON_AIR};
use crate::channel::leakage::ENERGY_DETECT_DBM;
use crate::mac::{Frame, Mac, MacAddr};
use crate::phy::ppdu::RuLink;
use wifitcp_core::{SimDur, SimTime};

/// Propagation speed of every link, m/s: the speed of light in vacuum
/// (ns-3's `ConstantSpeedPropagationDelayModel` default).
pub const LIGHT_SPEED_M_S: f64 = 299_792_458.0;

/// One-way propagation delay over `distance_m`, in nanoseconds, rounded to
/// the nearest nanosecond (an error of at most 0.5 ns, 15 cm).
pub fn propagation_delay_ns(distance_m: f64) -> u64 {
    if !(distance_m.is_finite() && distance_m > 0.0) {
        return 0;
    }
    (distance_m / LIGHT_SPEED_M_S * 1e9).round() as u64
}

/// Whether a station senses a frame that reaches it at `p_dbm`: from the
/// carrier-sense threshold `cs_dbm` on its own channel, from the
/// energy-detect threshold (802.11-2020 17.3.10.6) on another, at the
/// power its receiver takes of it (adjacent-channel leakage,
/// `channel::leakage`).
pub fn senses(p_dbm: f64, cs_dbm: f64, same_channel: bool) -> bool {
    p_dbm >= if same_channel { cs_dbm } else { ENERGY_DETECT_DBM }
}

/// Who hears whom in one cell, the mean received powers (mW) and the
/// propagation delays (ns).
#[derive(Clone, Debug, PartialEq)]
pub struct SenseMatrix {
    n: usize,
    /// `hears[s * n + t]`: `t` senses frames of `s`.
    hears: Vec<bool>,
    /// `rx_mw[s * n + t]`: mean power of a frame of `s` at `t`, mW.
    rx_mw: Vec<f64>,
    /// `delay[s * n + t]`: one-way propagation delay from `s` to `t`, ns.
    delay: Vec<u64>,
    /// `order[s * n..][..n - 1]`: the stations other than `s` by (delay
    /// from `s`, index): the order in which they see `s`'s frames.
    order: Vec<u32>,
    /// `rank[s * n + t]`: the position of `t` in `s`'s order.
    rank: Vec<u32>,
    /// `loud[s * n + k]`: the first position at or after `k` in `s`'s
    /// order of a station that hears `s` (`n - 1` if none).
    loud: Vec<u32>,
    max_delay: u64,
    /// Each station's channel, when the cell holds several
    /// ([`SenseMatrix::with_channels`]); empty: one channel.
    chan: Vec<u32>,
}

impl SenseMatrix {
    /// From the mean received power (dBm) of a frame of `s` at `t`
    /// (`rx_dbm(s, t)`) and the carrier-sense threshold (dBm); no
    /// propagation delay (see [`SenseMatrix::with_delays`]).
    pub fn from_rx_dbm(n: usize, cs_threshold_dbm: f64, rx_dbm: impl Fn(usize, usize) -> f64) -> SenseMatrix {
        let mut hears = vec![true; n * n];
        let mut rx_mw = vec![0.0; n * n];
        for s in 0..n {
            for t in 0..n {
                if s != t {
                    let p = rx_dbm(s, t);
                    hears[s * n + t] = senses(p, cs_threshold_dbm, true);
                    rx_mw[s * n + t] = 10f64.powf(p / 10.0);
                }
            }
        }
        let m = SenseMatrix {
            n,
            hears,
            rx_mw,
            delay: vec![0; n * n],
            order: vec![0; n * n],
            rank: vec![0; n * n],
            loud: vec![0; n * n],
            max_delay: 0,
            chan: Vec::new(),
        };
        m.with_delays(|_, _| 0)
    }

    /// The same matrix for a cell of several channels (adjacent-channel
    /// leakage, `channel::leakage`): station `t` is on channel `chan[t]`,
    /// and the received powers given were what a receiver takes of a frame
    /// on another channel. A station decodes only frames of its own
    /// channel; it senses those of another by energy ([`senses`]).
    pub fn with_channels(mut self, chan: Vec<u32>) -> SenseMatrix {
        let n = self.n;
        assert_eq!(chan.len(), n, "a channel per station");
        for s in 0..n {
            for t in 0..n {
                if s != t && chan[s] != chan[t] {
                    self.hears[s * n + t] = senses(10.0 * self.rx_mw[s * n + t].log10(), f64::NAN, false);
                }
            }
        }
        self.chan = chan;
        let delay = std::mem::take(&mut self.delay);
        self.delay = vec![0; n * n];
        self.with_delays(|s, t| delay[s * n + t])
    }

    /// From an explicit "who hears whom" (`hears(s, t)`), with every
    /// audible frame at 1 mW and inaudible ones at zero (tests; capture
    /// then never happens).
    pub fn from_fn(n: usize, hears: impl Fn(usize, usize) -> bool) -> SenseMatrix {
        SenseMatrix::from_rx_dbm(n, -1.0, |s, t| if hears(s, t) { 0.0 } else { f64::NEG_INFINITY })
    }

    /// The same matrix with one-way propagation delays `delay_ns(s, t)`
    /// (ns; `t` sees the start and the end of a frame of `s` that much
    /// after `s` sends them).
    pub fn with_delays(mut self, delay_ns: impl Fn(usize, usize) -> u64) -> SenseMatrix {
        let n = self.n;
        self.max_delay = 0;
        for s in 0..n {
            for t in 0..n {
                let d = if s == t { 0 } else { delay_ns(s, t) };
                self.delay[s * n + t] = d;
                self.max_delay = self.max_delay.max(d);
            }
            let mut others: Vec<u32> = (0..n as u32).filter(|&t| t as usize != s).collect();
            others.sort_by_key(|&t| (self.delay[s * n + t as usize], t));
            for (k, &t) in others.iter().enumerate() {
                self.order[s * n + k] = t;
                self.rank[s * n + t as usize] = k as u32;
            }
            let mut next = n.saturating_sub(1) as u32;
            for k in (0..n.saturating_sub(1)).rev() {
                if self.hears(s, self.order[s * n + k] as usize) {
                    next = k as u32;
                }
                self.loud[s * n + k] = next;
            }
        }
        self
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

    /// Whether `t` may decode frames of `s`: they share a channel.
    #[inline]
    pub fn decodes(&self, s: usize, t: usize) -> bool {
        self.chan.is_empty() || self.chan[s] == self.chan[t]
    }

    /// Mean power of a frame of `s` at `t`, mW.
    #[inline]
    pub fn rx_mw(&self, s: usize, t: usize) -> f64 {
        self.rx_mw[s * self.n + t]
    }

    /// One-way propagation delay from `s` to `t`, ns.
    #[inline]
    pub fn delay_ns(&self, s: usize, t: usize) -> u64 {
        self.delay[s * self.n + t]
    }

    /// The largest one-way delay between two stations, ns.
    pub fn max_delay_ns(&self) -> u64 {
        self.max_delay
    }

    /// The `k`-th station (by delay) to see frames of `s`.
    #[inline]
    fn nth(&self, s: usize, k: usize) -> usize {
        self.order[s * self.n + k] as usize
    }

    /// The first position at or after `k` of a station that hears `s`.
    #[inline]
    fn loud(&self, s: usize, k: usize) -> usize {
        self.loud[s * self.n + k] as usize
    }

    #[inline]
    fn rank(&self, s: usize, t: usize) -> usize {
        self.rank[s * self.n + t] as usize
    }

    /// When the `k`-th station of `s`'s order sees an edge sent at `at`.
    #[inline]
    fn seen_at(&self, s: usize, k: usize, at: SimTime) -> SimTime {
        at + SimDur::from_nanos(self.delay_ns(s, self.nth(s, k)))
    }

    /// Every station hears, and may decode, every other.
    pub fn all_hear(&self) -> bool {
        self.hears.iter().all(|&h| h) && self.chan.windows(2).all(|w| w[0] == w[1])
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

/// The interference a reception met: spans of (ns, mW) of constant
/// interference from the frame's start to its end, and where its data
/// field (the PSDU) begins, ns from the start.
#[derive(Clone, Copy, Debug)]
pub(super) struct Spans<'a> {
    pub(super) chunks: &'a [(u64, f64)],
    pub(super) data_ns: u64,
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

/// A frame from its start at its sender until its end has reached every
/// other station.
struct Flight {
    id: u32,
    sender: usize,
    /// Start and end at the sender.
    start: SimTime,
    end: SimTime,
    /// Preamble and PLCP header.
    plcp: SimDur,
    /// How many stations (in the sender's order) have seen its start, and
    /// its end.
    si: usize,
    ei: usize,
    /// The sender's transmission ended (`tx_end`).
    ended: bool,
    /// The position of its intended receiver in the sender's order (`None`:
    /// outside the cell).
    ra_rank: Option<usize>,
    /// Its intended receiver's verdict is in (`ok_at_ra`).
    judged: bool,
    ok_at_ra: bool,
    /// `None` only while its end is being handed out.
    frame: Option<Frame>,
}

/// The per-station carrier-sense state of a cell with hidden nodes or
/// propagation delay.
pub(super) struct SenseState {
    m: SenseMatrix,
    /// Per station: the frames on the air it senses (carrier sense)...
    heard: Vec<u32>,
    /// ...and of those the ones it may decode (its own channel's; equal
    /// to `heard` in a cell of one channel).
    own: Vec<u32>,
    lock: Vec<Option<Lock>>,
    pending_err: Vec<bool>,
    /// Per station: the spans of its reception so far (see `Lock`).
    chunks: Vec<Vec<(u64, f64)>>,
    scratch: Vec<usize>,
    /// Frames whose start or end has not reached every station yet, in
    /// the order they started.
    flights: Vec<Flight>,
    /// During `Bss::arrivals`: the solo stations' earliest instant, exact
    /// unless `rescan` (see `Bss::scall`).
    cur: SimTime,
    rescan: bool,
    /// Reception per receiver (`Bss::set_per_receiver`): a station neither
    /// receiving nor sending locks on a frame that reaches it also while
    /// frames whose start it missed are on the air (module docs).
    lock_when_busy: bool,
}

impl SenseState {
    pub(super) fn new(m: SenseMatrix, lock_when_busy: bool) -> SenseState {
        let n = m.len();
        SenseState {
            m,
            heard: vec![0; n],
            own: vec![0; n],
            lock: vec![None; n],
            pending_err: vec![false; n],
            chunks: vec![Vec::new(); n],
            scratch: Vec::new(),
            flights: Vec::new(),
            cur: SimTime::NEVER,
            rescan: false,
            lock_when_busy,
        }
    }

    fn flight(&self, id: u32) -> usize {
        self.flights.iter().position(|f| f.id == id).expect("unknown transmission")
    }

    /// Power at `t` of the frames other than `except` whose start has
    /// reached `t` and whose end has not, mW.
    fn present_mw(&self, t: usize, except: u32) -> f64 {
        let mut p = 0.0;
        for f in &self.flights {
            if f.id != except && f.sender != t {
                let r = self.m.rank(f.sender, t);
                if r < f.si && r >= f.ei {
                    p += self.m.rx_mw(f.sender, t);
                }
            }
        }
        p
    }

    /// The next edge still to reach a station: (instant, is an end,
    /// frame id); ends before starts at one instant, then frames in the
    /// order they started.
    fn next_edge(&self) -> Option<(SimTime, bool, u32)> {
        let last = self.m.len().saturating_sub(1);
        let mut best: Option<(SimTime, bool, u32)> = None;
        let mut take = |c: (SimTime, bool, u32)| {
            let better = match best {
                None => true,
                Some(b) => c.0 < b.0 || (c.0 == b.0 && c.1 && !b.1),
            };
            if better {
                best = Some(c);
            }
        };
        for f in &self.flights {
            if f.ended && f.ei < last {
                take((self.m.seen_at(f.sender, f.ei, f.end), true, f.id));
            }
            if f.si < last {
                take((self.m.seen_at(f.sender, f.si, f.start), false, f.id));
            }
        }
        best
    }

    /// The next instant an edge reaches a station that hears its sender
    /// or is its intended receiver: the next wake-up the edges need. Edges
    /// at stations that hear neither (silent: they change only the
    /// interference at a reception in progress, no MAC call) wait for the
    /// next wake-up or frame start or end, which hands them out first, at
    /// their own instants (`Bss::silent_until`).
    fn next_arrival(&self) -> SimTime {
        let last = self.m.len().saturating_sub(1);
        let loud = |f: &Flight, k: usize, at: SimTime| {
            let kl = self.m.loud(f.sender, k);
            let mut t = if kl < last { self.m.seen_at(f.sender, kl, at) } else { SimTime::NEVER };
            if let Some(r) = f.ra_rank.filter(|&r| r >= k && r < last) {
                t = t.min(self.m.seen_at(f.sender, r, at));
            }
            t
        };
        let mut at = SimTime::NEVER;
        for f in &self.flights {
            if f.ended && f.ei < last {
                at = at.min(loud(f, f.ei, f.end));
            }
            if f.si < last {
                at = at.min(loud(f, f.si, f.start));
            }
        }
        at
    }
}

/// Whether a frame of power `p` survives interference `i` (mW) by the
/// capture threshold.
#[inline]
fn captures(p: f64, i: f64) -> bool {
    i <= 0.0 || 10.0 * (p / i).log10() >= super::errors::CAPTURE_THRESHOLD_DB
}

impl<M: Mac> Bss<M> {
    /// Give the cell its "who hears whom" and propagation delays. If
    /// everyone hears everyone and every delay is zero the call changes
    /// nothing and returns false; else every station gets its own
    /// carrier-sense view (grouping off for good) and it returns true.
    pub fn set_sense(&mut self, m: SenseMatrix) -> bool {
        assert_eq!(m.len(), self.macs.len(), "a sense matrix per member");
        if m.all_hear() && m.max_delay_ns() == 0 {
            return false;
        }
        self.install_sense(m, false);
        true
    }

    /// Give the cell its "who hears whom" and delays, and every station its
    /// own carrier-sense view and reception whatever they are
    /// (`channel.reception = "per_receiver"`: capture in a cell where
    /// everyone hears everyone).
    pub fn set_per_receiver(&mut self, m: SenseMatrix) {
        self.install_sense(m, true);
    }

    fn install_sense(&mut self, m: SenseMatrix, lock_when_busy: bool) {
        assert_eq!(m.len(), self.macs.len(), "a sense matrix per member");
        self.set_grouping(false);
        self.groupable = false;
        self.grouping = false;
        self.sense = Some(Box::new(SenseState::new(m, lock_when_busy)));
    }

    #[inline]
    fn st(&mut self) -> &mut SenseState {
        self.sense.as_mut().expect("sensed medium")
    }

    /// `call` from the per-station medium, keeping `SenseState::cur` the
    /// solo stations' earliest instant: a wake-up that moves earlier
    /// lowers it; one that moves later from the earliest flags a rescan.
    #[inline]
    pub(super) fn scall(
        &mut self,
        now: SimTime,
        t: usize,
        out: &mut Vec<BssOutput>,
        f: impl FnOnce(&mut M, &mut super::Sink<'_>),
    ) {
        let old = self.track[t].wk;
        self.call(now, t, out, f);
        let new = self.track[t].wk;
        let st = self.st();
        if new <= old {
            st.cur = st.cur.min(new);
        } else if old <= st.cur {
            st.rescan = true;
        }
    }

    /// `start_tx` with per-station carrier sense: the frame is on the air
    /// from now at its sender; each other station sees its start after its
    /// delay (at once for a zero delay, else at a wake-up: `arrivals`).
    pub(super) fn start_tx_sensed(&mut self, now: SimTime, s: usize, f: Frame, out: &mut Vec<BssOutput>) {
        self.silent_until(now, out);
        let (id, end, _) = self.open_tx(now, s, f.airtime, f.contended);
        super::tap_frame(&mut self.tap, now, &f);
        let plcp = self.macs[s].timing().plcp_time(f.rate);
        let ra = f.ra.0 as usize;
        let st = self.st();
        let ra_rank = (ra < st.m.len() && ra != s).then(|| st.m.rank(s, ra));
        // A station cannot receive while it sends.
        st.lock[s] = None;
        st.pending_err[s] = false;
        st.flights.push(Flight {
            id,
            sender: s,
            start: now,
            end,
            plcp,
            si: 0,
            ei: 0,
            ended: false,
            ra_rank,
            judged: false,
            ok_at_ra: false,
            frame: Some(f),
        });
        super::push_tx_end(out, id, end);
        self.starts_at(now, now, id, out);
    }

    /// Hand out every edge due before `now` (silent ones: see
    /// `SenseState::next_arrival`), at their own instants.
    pub(super) fn silent_until(&mut self, now: SimTime, out: &mut Vec<BssOutput>) {
        while let Some((at, end, id)) = self.st().next_edge() {
            if at >= now {
                break;
            }
            if end {
                self.ends_at(at, now, id, out);
            } else {
                self.starts_at(at, now, id, out);
            }
        }
    }

    /// The start of frame `id` reaches the stations whose delay from its
    /// sender ends at `now` (handed out at `now`, or later if none of them
    /// hears it: see `silent_until`).
    fn starts_at(&mut self, now: SimTime, handed: SimTime, id: u32, out: &mut Vec<BssOutput>) {
        let n = self.macs.len();
        let mut st = self.sense.take().expect("sensed medium");
        let fi = st.flight(id);
        let (s, t0, header_end) = {
            let f = &st.flights[fi];
            (f.sender, f.start, now + f.plcp)
        };
        let mut busy = std::mem::take(&mut st.scratch);
        busy.clear();
        let mut rx_start = Vec::new();
        // The users of an HE TB PPDU are its senders (one transmission
        // here, `medium::mu`): none of them receives it.
        let tb_users = st.flights[fi].frame.as_ref().and_then(|f| f.mu.as_ref()).filter(|m| m.uplink);
        let sends = |t: usize| tb_users.is_some_and(|m| m.user(MacAddr(t as u32)).is_some());
        let mut k = st.flights[fi].si;
        while k + 1 < n && st.m.seen_at(s, k, t0) == now {
            let t = st.m.nth(s, k);
            k += 1;
            let p = st.m.rx_mw(s, t);
            let audible = st.m.hears(s, t);
            // (a frame of another channel is sensed, never decoded)
            let decodable = audible && st.m.decodes(s, t);
            if st.lock[t].is_some() {
                let l = st.lock[t].as_mut().expect("locked");
                if decodable && now == l.start && p > l.power_mw && !sends(t) {
                    // Frames reaching it together: the receiver locks on
                    // the strongest; the other becomes interference.
                    *l = Lock::new(id, now, header_end, p, l.cur_mw + l.power_mw, false);
                    st.chunks[t].clear();
                } else {
                    l.change(now, p, &mut st.chunks[t]);
                    if decodable && now < l.header_end {
                        l.header_ok = false;
                    }
                }
            } else if decodable
                && self.track[t].end_mark != ON_AIR
                && !sends(t)
                && (st.own[t] == 0 || st.lock_when_busy)
            {
                // Neither receiving nor sending (and, but under reception
                // per receiver, hearing no frame of its channel: energy of
                // other channels is none it could have locked on): `t`
                // locks on this frame, with the power already arriving at
                // it as interference (frames whose start it missed while
                // it sent or received another, other channels' frames).
                // Its PLCP header counts as decoded only if no frame of its
                // channel it hears was on the air (EIFS after a failure).
                let i0 = st.present_mw(t, id);
                st.lock[t] = Some(Lock::new(id, now, header_end, p, i0, st.own[t] == 0));
                st.chunks[t].clear();
                if st.heard[t] > 0 {
                    // PHY-RXSTART without a change of carrier sense.
                    rx_start.push(t);
                }
            }
            if audible {
                st.heard[t] += 1;
                if st.heard[t] == 1 {
                    busy.push(t);
                }
            }
            if decodable {
                st.own[t] += 1;
            }
        }
        st.flights[fi].si = k;
        self.sense = Some(st);
        debug_assert!(busy.is_empty() || now == handed, "a start handed out late reached a station that hears it");
        for &t in &busy {
            self.scall(now, t, out, |m, mo| m.on_cca(now, true, mo));
        }
        for t in rx_start {
            self.scall(now, t, out, |m, _| m.on_rx_start(now));
        }
        self.st().scratch = busy;
        self.arrive_at = self.st().next_arrival();
    }

    /// Frame `id` leaves the air at its sender (its end reaches the other
    /// stations later, `ends_at`): returns its sender and the frame, which
    /// `relaunch` gives back to the flight.
    pub(super) fn land(&mut self, id: u32) -> (usize, Frame) {
        let st = self.st();
        let fi = st.flight(id);
        st.flights[fi].ended = true;
        (st.flights[fi].sender, st.flights[fi].frame.take().expect("frame"))
    }

    /// Give frame `f` back to its flight `id` (see `land`; what is left
    /// in `f` is an empty frame, dropped by the caller).
    pub(super) fn relaunch(&mut self, id: u32, f: &mut Frame) {
        let st = self.st();
        let fi = st.flight(id);
        let empty = crate::mac::exchange::control_frame(f.kind, f.ta, f.ra, SimDur::ZERO, 0, f.rate, SimDur::ZERO);
        st.flights[fi].frame = Some(std::mem::replace(f, empty));
    }

    /// The end of frame `id` reaches the stations whose delay from its
    /// sender ends at `now` (after the sender's `tx_end`; handed out at
    /// `now`, or later if none of them hears it or is its receiver): their
    /// receptions are judged, their carrier sense may turn idle.
    pub(super) fn ends_at(&mut self, now: SimTime, handed: SimTime, id: u32, out: &mut Vec<BssOutput>) {
        let n = self.macs.len();
        let st = self.st();
        let fi = st.flight(id);
        let (s, k0, judged) = (st.flights[fi].sender, st.flights[fi].ei, st.flights[fi].judged);
        let data_ns = st.flights[fi].plcp.as_nanos();
        let mut k = k0;
        while k + 1 < n && st.m.seen_at(s, k, st.flights[fi].end) == now {
            k += 1;
        }
        let mut frame = st.flights[fi].frame.take().expect("frame");
        let ra = frame.ra.0 as usize;
        // Close the spans of the receptions at these stations; their other
        // receptions lose this frame's power from now on.
        for j in k0..k {
            let t = st.m.nth(s, j);
            if let Some(l) = st.lock[t].as_mut() {
                let delta = if l.id == id { 0.0 } else { -st.m.rx_mw(s, t) };
                l.change(now, delta, &mut st.chunks[t]);
            }
        }
        // The intended receiver's verdict, when the end reaches it (a
        // receiver outside the cell: at the sender's end).
        let judge_here = if ra < n && ra != s { (k0..k).contains(&st.m.rank(s, ra)) } else { k0 == 0 && !judged };
        if judge_here {
            debug_assert_eq!(now, handed, "a frame judged late");
            let lock_ra = if ra < n { self.st().lock[ra].filter(|l| l.id == id) } else { None };
            let chunks = if ra < n { std::mem::take(&mut self.st().chunks[ra]) } else { Vec::new() };
            let at = match lock_ra {
                None => AtReceiver::Lost,
                Some(l) if l.max_mw > 0.0 => AtReceiver::Interfered(Spans { chunks: &chunks, data_ns }),
                Some(_) => AtReceiver::Clear,
            };
            let ok = self.judge_at_ra(now, s, &mut frame, at, ra < n, out);
            if ra < n {
                self.st().chunks[ra] = chunks;
            }
            let st = self.st();
            let fi = st.flight(id);
            st.flights[fi].judged = true;
            st.flights[fi].ok_at_ra = ok;
        }
        let ok_at_ra = {
            let st = self.st();
            st.flights[st.flight(id)].ok_at_ra
        };
        let header_always = self.eifs_always;
        let mut deferred = std::mem::take(&mut self.st().scratch);
        deferred.clear();
        for j in k0..k {
            let st = self.st();
            let t = st.m.nth(s, j);
            let audible = st.m.hears(s, t);
            if audible {
                st.heard[t] -= 1;
                if st.m.decodes(s, t) {
                    st.own[t] -= 1;
                }
            }
            let quiet = st.heard[t] == 0;
            if let Some(l) = st.lock[t].filter(|l| l.id == id) {
                st.lock[t] = None;
                let ok = if t == ra {
                    ok_at_ra
                } else if l.max_mw > 0.0
                    && frame.mu.as_ref().is_some_and(|m| !m.uplink && m.user(MacAddr(t as u32)).is_some())
                {
                    // A user of a multi-user control frame (a Trigger) is
                    // one of its receivers: the error model decides under
                    // the interference it met, as at the RA.
                    let chunks = std::mem::take(&mut st.chunks[t]);
                    let mut g = frame.clone_header();
                    g.ra = MacAddr(t as u32);
                    let ok = self.judge_sensed(now, s, &mut g, None, Spans { chunks: &chunks, data_ns }, 0);
                    self.st().chunks[t] = chunks;
                    ok
                } else {
                    captures(l.power_mw, l.max_mw)
                };
                let st = self.st();
                if ok {
                    st.pending_err[t] = false;
                    self.end_at::<Sensed>(now, t, &mut frame, Heard::Received(true), quiet, out);
                    continue;
                }
                if l.header_ok || header_always {
                    st.pending_err[t] = true;
                }
            }
            if audible && quiet {
                let heard =
                    if std::mem::take(&mut self.st().pending_err[t]) { Heard::Received(false) } else { Heard::Not };
                if !self.end_at::<Sensed>(now, t, &mut frame, heard, true, out) {
                    deferred.push(t);
                }
            }
        }
        for &t in &deferred {
            if self.macs[t].idle_may_emit() && self.st().heard[t] == 0 {
                self.scall(now, t, out, |m, mo| m.on_cca(now, false, mo));
            }
        }
        let st = self.st();
        st.scratch = deferred;
        let fi = st.flight(id);
        st.flights[fi].ei = k;
        if k + 1 >= n && st.flights[fi].judged {
            st.flights.remove(fi);
        } else {
            st.flights[fi].frame = Some(frame);
        }
        self.arrive_at = self.st().next_arrival();
    }

    /// A wake-up at `now` with frame edges due: hand them to the stations
    /// they reach. Returns true if that was all the wake-up had to do (no
    /// station acts now; the next wake-up is armed), false if stations
    /// are due now as well (`solo_at` is then exact).
    pub(super) fn arrivals(&mut self, now: SimTime, out: &mut Vec<BssOutput>) -> bool {
        let base = self.solo_at;
        {
            let st = self.st();
            st.cur = base;
            st.rescan = false;
        }
        while let Some((at, end, id)) = self.st().next_edge() {
            if at > now {
                break;
            }
            if end {
                self.ends_at(at, now, id, out);
            } else {
                self.starts_at(at, now, id, out);
            }
        }
        let st = self.st();
        let solo_at = if st.rescan { self.solo_earliest() } else { st.cur };
        self.solo_at = solo_at;
        if solo_at != now && self.group_at != now {
            self.arm(solo_at, out);
            true
        } else {
            false
        }
    }

    /// `judge` with interference at the receiver (`n`): the error model
    /// decides with it (`success_prob_with_interference`; `ru`: one user's
    /// PSDU of an HE TB PPDU on its RU). A frame of one MPDU is judged on
    /// every span; in an A-MPDU each MPDU on the spans of its own stretch
    /// of the data field (MPDUs follow one another in the PSDU, which
    /// fills `psdu / psdu_max` of the data field from its start, all of it
    /// without `psdu_max`), so interference over part of the PPDU costs the
    /// MPDUs it overlaps (ns-3's InterferenceHelper judges each MPDU of an
    /// A-MPDU over its own time span, the same way); the PHY header before
    /// them on the spans it covers. A frame lost under
    /// interference counts as a collision, not as a channel error.
    pub(super) fn judge_sensed(
        &mut self,
        now: SimTime,
        s: usize,
        f: &mut Frame,
        ru: Option<RuLink>,
        n: Spans<'_>,
        psdu_max: u32,
    ) -> bool {
        let chunks = n.chunks;
        if chunks.iter().all(|c| c.1 <= 0.0) {
            return self.judge(now, s, f, ru);
        }
        let data = f.kind.carries_msdus();
        let rng = if data { &mut self.rng } else { &mut self.ctl_rng };
        if f.mpdus.len() <= 1 {
            let p = self.errors.success_prob_with_interference(now, f.ta, f.ra, f, ru, chunks, rng);
            let ok = p >= 1.0 || (p > 0.0 && rng.bernoulli(p));
            f.mpdus.as_mut_slice().iter_mut().for_each(|m| m.fcs_ok = ok);
            return ok;
        }
        let psdu = u64::from(f.mpdu_bytes.max(1));
        let total: u64 = chunks.iter().map(|c| c.0).sum();
        let start = n.data_ns.min(total);
        let field = total - start;
        let used = if psdu_max > 0 && u64::from(psdu_max) >= psdu { field * psdu / u64::from(psdu_max) } else { field };
        let mut one = f.clone_header();
        let mut sub: Vec<(u64, f64)> = Vec::new();
        // The PHY header first, on the spans before the data field (a PPDU
        // of no octets): lost, it takes every MPDU with it.
        spans_within(chunks, 0, start, &mut sub);
        let h = self.errors.header_prob_with_interference(now, f.ta, f.ra, &one, ru, &sub, rng);
        if !(h >= 1.0 || (h > 0.0 && rng.bernoulli(h))) {
            f.mpdus.set_fcs_all(false);
            return false;
        }
        let mut before = 0u64;
        let mut any = false;
        for m in f.mpdus.as_mut_slice() {
            let a = start + used * before.min(psdu) / psdu;
            before += u64::from(m.bytes);
            let b = start + used * before.min(psdu) / psdu;
            spans_within(chunks, a, b, &mut sub);
            one.mpdu_bytes = m.bytes;
            let q = self.errors.success_prob_with_interference(now, f.ta, f.ra, &one, ru, &sub, rng);
            m.fcs_ok = q >= 1.0 || (q > 0.0 && rng.bernoulli(q));
            any |= m.fcs_ok;
        }
        any
    }
}

/// The spans of `chunks` (ns, mW; from instant 0 on) within [a, b), into
/// `out`.
fn spans_within(chunks: &[(u64, f64)], a: u64, b: u64, out: &mut Vec<(u64, f64)>) {
    out.clear();
    let mut t = 0u64;
    for &(d, i) in chunks {
        let (lo, hi) = (t.max(a), (t + d).min(b));
        if hi > lo {
            out.push((hi - lo, i));
        }
        t += d;
        if t >= b {
            break;
        }
    }
}

#[cfg(test)]
mod tests;
