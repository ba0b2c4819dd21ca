//! The two carrier-sense models behind one frame end.
//!
//! [`Bss::tx_end`](super::Bss::tx_end) is one body, generic over a
//! [`Carrier`]: the frame leaves the air at its sender, the sender's MAC
//! learns of its end (`Bss::sender_end`), and the end reaches the other
//! stations. What the models decide is *who* learns of the end, and
//! *when*:
//! - [`Shared`], the one collision domain of the module docs of
//!   [`medium`](super): every station at once; stations outside the frame
//!   exchange are one group (`group`), the others are walked once.
//! - [`Sensed`], per-station carrier sense ([`sense`](super::sense)): each
//!   station after its propagation delay, in the sender's order of
//!   delays, with the reception each one locked on.
//!
//! What a frame's end does at one station is one rule for both
//! (`Bss::end_at`: PHY-RXEND with or without error, then the idle
//! indication, or the idle indication alone, 802.11-2020 10.3.2.3.7), as is
//! the verdict at the intended receiver (`Bss::judge_at_ra`: the channel's
//! error model, collision counters, `Mac::on_verdict`).
use super::{Bss, BssOutput, OnAir, Sink};
use crate::mac::{AckPolicy, Frame, Mac};
use wifitcp_core::SimTime;

/// A carrier-sense model: the model-specific steps of a frame's end.
/// Implemented by the markers [`Shared`] and [`Sensed`]; `Bss::tx_end`
/// picks one per cell, so each is compiled into its own copy of the one
/// body.
pub(super) trait Carrier<M: Mac> {
    /// What the model keeps of a frame between its leaving the air and its
    /// end reaching the other stations.
    type Gone;
    /// Frame `id` leaves the air at its sender: returns the sender, the
    /// frame and what the model keeps of it.
    fn leave(bss: &mut Bss<M>, now: SimTime, id: u32, out: &mut Vec<BssOutput>) -> (usize, Frame, Self::Gone);
    /// The end of the frame of `s` reaches the other stations (`s_was`:
    /// the sender's cached wake-up before its `on_tx_end`).
    fn reach(
        bss: &mut Bss<M>,
        now: SimTime,
        s: usize,
        s_was: SimTime,
        f: &mut Frame,
        g: Self::Gone,
        out: &mut Vec<BssOutput>,
    );
    /// One MAC input on station `t`, keeping the model's record of the
    /// stations' earliest instant.
    fn call(bss: &mut Bss<M>, now: SimTime, t: usize, out: &mut Vec<BssOutput>, f: impl FnOnce(&mut M, &mut Sink<'_>));
}

/// The shared medium: one view of the air for every station.
pub(super) enum Shared {}

/// Per-station carrier sense, capture and propagation delay.
pub(super) enum Sensed {}

/// What a frame's end at a station other than its sender gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Heard {
    /// It was receiving the frame: PHY-RXEND, the frame decoded or not.
    Received(bool),
    /// It was not receiving it (transmitting, locked on another frame, or
    /// out of range).
    Not,
}

/// How the frame met its intended receiver, for `Bss::judge_at_ra`.
pub(super) enum AtReceiver<'a> {
    /// Alone on the air for it: the channel's error model decides.
    Clear,
    /// Under interference, as spans of (ns, mW) with the PPDU's data field
    /// from `data_ns` on: the error model decides with it.
    Interfered(super::sense::Spans<'a>),
    /// Another frame kept the receiver from it (an overlap on the shared
    /// medium; a receiver locked elsewhere or transmitting).
    Lost,
}

impl<M: Mac> Bss<M> {
    /// A transmission ended: the frame leaves the air, its sender learns of
    /// it, and its end reaches the others, by the cell's carrier-sense
    /// model.
    pub fn tx_end(&mut self, now: SimTime, id: u32, out: &mut Vec<BssOutput>) {
        if self.sense.is_some() {
            self.end_of::<Sensed>(now, id, out)
        } else {
            self.end_of::<Shared>(now, id, out)
        }
    }

    #[inline(always)]
    fn end_of<C: Carrier<M>>(&mut self, now: SimTime, id: u32, out: &mut Vec<BssOutput>) {
        // (the frame stays in this one place until it is dropped: passed
        // on by reference, not moved from step to step)
        let (s, mut frame, gone) = C::leave(self, now, id, out);
        let s_was = self.track[s].wk;
        self.sender_end(now, s, &frame, out);
        C::reach(self, now, s, s_was, &mut frame, gone, out);
    }

    /// The end of a frame at station `t`, not its sender, whatever the
    /// model: PHY-RXEND if it was receiving the frame, then the idle
    /// indication if nothing else keeps the medium busy for it (`quiet`).
    /// Returns false if `t` is quiet and its idle indication may emit
    /// outputs (`Mac::idle_may_emit`): the caller serves it in a second
    /// pass, after every other station's outputs (the MAC contract).
    #[inline(always)]
    pub(super) fn end_at<C: Carrier<M>>(
        &mut self,
        now: SimTime,
        t: usize,
        frame: &mut Frame,
        heard: Heard,
        quiet: bool,
        out: &mut Vec<BssOutput>,
    ) -> bool {
        match heard {
            Heard::Received(ok) => C::call(self, now, t, out, |m, mo| {
                m.on_rx_end(now, frame, ok, mo);
                if quiet {
                    m.on_cca(now, false, mo);
                }
            }),
            Heard::Not if quiet => {
                if self.macs[t].idle_may_emit() {
                    return false;
                }
                C::call(self, now, t, out, |m, mo| m.on_cca(now, false, mo));
            }
            Heard::Not => {}
        }
        true
    }

    /// The verdict on frame `f` of `s` at its intended receiver, whatever
    /// the model: the error model decides a frame that reached it (`Clear`
    /// or `Interfered`; each MPDU's `fcs_ok` set); one that another frame
    /// took from it, or that failed under interference, counts as collided
    /// if it was contended; the sender's MAC gets the verdict on a data
    /// frame (`in_cell`: the receiver is a station of the cell).
    #[inline(always)]
    pub(super) fn judge_at_ra(
        &mut self,
        now: SimTime,
        s: usize,
        f: &mut Frame,
        at: AtReceiver<'_>,
        in_cell: bool,
        out: &mut Vec<BssOutput>,
    ) -> bool {
        let ok = match at {
            AtReceiver::Clear if f.is_mu_ppdu() => self.judge_mu(now, s, f, None, out),
            AtReceiver::Clear => self.judge(now, s, f, None),
            AtReceiver::Interfered(n) if f.is_mu_ppdu() => self.judge_mu(now, s, f, Some(n), out),
            AtReceiver::Interfered(n) => self.judge_sensed(now, s, f, None, n, 0),
            AtReceiver::Lost => false,
        };
        if !ok {
            f.mpdus.set_fcs_all(false);
            if let Some(mu) = f.mu.as_mut() {
                mu.users.iter_mut().for_each(|u| u.ok = false);
            }
            if f.contended && !matches!(at, AtReceiver::Clear) {
                self.track[s].counters.collided += 1;
            }
        }
        if f.mu.as_ref().is_some_and(|m| m.uplink) {
            // (each user's station got its verdict in `judge_mu`; a lost
            // HE TB PPDU carries Block Ack policy MPDUs only, for which no
            // verdict settles anything)
        } else if f.kind.carries_msdus() {
            self.verdict(now, s, f, ok && in_cell, out);
        } else {
            debug_assert!(f.mpdus.iter().all(|m| m.msdu_id().is_none()), "an MSDU in a frame of no data kind");
        }
        ok
    }
}

/// What the shared medium keeps of a frame that left the air.
pub(super) struct SharedGone {
    tx: OnAir,
    corrupted: bool,
    quiet_after: bool,
}

impl<M: Mac> Carrier<M> for Shared {
    type Gone = SharedGone;

    #[inline(always)]
    fn leave(bss: &mut Bss<M>, _now: SimTime, id: u32, _out: &mut Vec<BssOutput>) -> (usize, Frame, SharedGone) {
        let pos = bss.air_pos(id);
        let tx = bss.air.swap_remove(pos);
        let mut frame = bss.frames.swap_remove(pos);
        bss.air_hint = pos;
        let corrupted = tx.corrupted(bss.starts);
        // Its MSDUs go into it now (`Mac::lend_msdus`) unless it collided
        // (no receiver takes them) and names none in a No Ack loss.
        if !corrupted || frame.mpdus.iter().any(|m| m.ack == AckPolicy::NoAck) {
            bss.macs[tx.sender()].lend_msdus(&mut frame);
        }
        if bss.air.is_empty() {
            (bss.air_min_seq, bss.air_min_stale) = (u64::MAX, false);
        } else if tx.seq() == bss.air_min_seq {
            bss.air_min_stale = true;
        }
        let ra = frame.ra.0 as usize;
        let quiet_after = bss.air.is_empty();
        // (A frame that ends while others are still on the air collided:
        // its receiver gets nothing, see `burst_goes_on`.)
        if ra < bss.macs.len() && quiet_after {
            bss.take(ra);
            // (every user of a multi-user frame takes part, `medium::mu`)
            if let Some(mu) = &frame.mu {
                mu.users.iter().for_each(|u| bss.take(u.addr.0 as usize));
            }
        }
        (tx.sender(), frame, SharedGone { tx, corrupted, quiet_after })
    }

    #[inline(always)]
    fn reach(
        bss: &mut Bss<M>,
        now: SimTime,
        s: usize,
        s_was: SimTime,
        frame: &mut Frame,
        g: SharedGone,
        out: &mut Vec<BssOutput>,
    ) {
        let SharedGone { tx, corrupted, quiet_after } = g;
        let ra = frame.ra.0 as usize;
        let at = if corrupted { AtReceiver::Lost } else { AtReceiver::Clear };
        let ok_at_ra = bss.judge_at_ra(now, s, frame, at, ra < bss.macs.len(), out);
        if !quiet_after {
            return bss.burst_goes_on(now, s, s_was, out);
        }
        // Overlapping frames make one corrupted reception, reported when the
        // last of them ends, and only by receivers that decoded the PLCP
        // header of the first one (see the module docs).
        let header_ok = bss.burst_header_ok || bss.eifs_always;
        let reported = !corrupted || header_ok;
        // The group's view first (it takes part in no MAC call below).
        if reported {
            bss.group.rx_end(now, !corrupted, frame.duration);
        }
        bss.group.idle(now);
        // One walk over the solo stations. Every one but the sender gets
        // the end of reception (if it receives this frame), then the
        // medium's idle indication, in one call (`Bss::end_at`); then every
        // one, the sender included, may join the group (`try_join`). The
        // MAC contract orders all `on_rx_end` outputs before all `on_cca`
        // outputs; `on_cca(idle)` can emit only for a station whose
        // response timeout saw a reception start and that gets no
        // `on_rx_end` here (after `on_rx_end` no exchange awaits a
        // response): those few are served in a second pass
        // (`serve_deferred`).
        let view = bss.group.view;
        let mut deferred = std::mem::take(&mut bss.deferred);
        deferred.clear();
        let mut at = SimTime::NEVER;
        let mut kept = 0;
        for i in 0..bss.solo.len() {
            let t = bss.solo[i];
            if t != s {
                let rx = reported && !bss.sent_during(t, tx.seq());
                let heard = if !rx {
                    Heard::Not
                } else if let Some(ok) = frame.mu_outcome(t) {
                    Heard::Received(ok)
                } else if t == ra {
                    Heard::Received(ok_at_ra)
                } else {
                    Heard::Received(!corrupted)
                };
                if !bss.end_at::<Shared>(now, t, frame, heard, true, out) {
                    // Leaves the list until the second pass (it may join
                    // the group after it).
                    deferred.push(t);
                    continue;
                }
            }
            if let Some(next) = bss.try_join(t, now, &view) {
                at = at.min(next);
                bss.solo[kept] = t;
                kept += 1;
            }
        }
        bss.solo.truncate(kept);
        if deferred.is_empty() {
            bss.arm(at, out);
        } else {
            bss.serve_deferred(now, s, &mut deferred, at, out);
        }
        bss.deferred = deferred;
    }

    #[inline(always)]
    fn call(bss: &mut Bss<M>, now: SimTime, t: usize, out: &mut Vec<BssOutput>, f: impl FnOnce(&mut M, &mut Sink<'_>)) {
        bss.call(now, t, out, f)
    }
}

impl<M: Mac> Carrier<M> for Sensed {
    type Gone = u32;

    #[inline(always)]
    fn leave(bss: &mut Bss<M>, now: SimTime, id: u32, out: &mut Vec<BssOutput>) -> (usize, Frame, u32) {
        bss.silent_until(now, out);
        let (s, f) = bss.land(id);
        (s, f, id)
    }

    #[inline(always)]
    fn reach(
        bss: &mut Bss<M>,
        now: SimTime,
        _s: usize,
        _s_was: SimTime,
        f: &mut Frame,
        id: u32,
        out: &mut Vec<BssOutput>,
    ) {
        bss.relaunch(id, f);
        bss.ends_at(now, now, id, out);
        bss.settle(now, out);
    }

    #[inline(always)]
    fn call(bss: &mut Bss<M>, now: SimTime, t: usize, out: &mut Vec<BssOutput>, f: impl FnOnce(&mut M, &mut Sink<'_>)) {
        bss.scall(now, t, out, f)
    }
}
