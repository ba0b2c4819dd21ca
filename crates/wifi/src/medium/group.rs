//! Bystanders of one collision domain, kept as one group.
//!
//! In a single collision domain every station that takes no part in the
//! current frame exchange sees the same medium: the same busy and idle
//! instants, the same NAV from the same decoded frames, the same EIFS
//! condition after the same corrupted frames. Their backoff counters then
//! advance in lockstep, so instead of stepping each of them at every busy or
//! idle transition the group keeps one carrier-sense state ([`CsView`]) and
//! one slot counter `c`; a member with `k` slots left is stored as the
//! target `c + k`, and the earliest member to transmit is the smallest
//! target (a heap). Cost per frame: O(log N) for the group, plus the few
//! stations taking part in the exchange, which act on their own.
//!
//! The group reproduces `Dcf` exactly (tests compare both); the rules below
//! mirror `Dcf::freeze`, `Dcf::resume` and `Dcf::on_rx_end`.
use crate::mac::CsView;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use wifitcp_core::{SimDur, SimTime};

/// A member: its target (None: no backoff pending) and the group's error
/// count when it joined (to hand back its `rx_errors` counter).
#[derive(Clone, Copy, Debug)]
struct Member {
    target: Option<u64>,
    errors_at_join: u64,
}

pub(crate) struct Group {
    pub view: CsView,
    /// Slots credited to members before the current counting period.
    c: u64,
    /// Corrupted receptions the group has seen.
    rx_errors: u64,
    slot: SimDur,
    difs: SimDur,
    eifs: SimDur,
    busy_slot_counts: bool,
    members: Vec<Option<Member>>,
    /// Members with a frame to send, by target (stale entries skipped).
    heap: BinaryHeap<Reverse<(u64, usize)>>,
    /// `next_tx` as last computed; cleared by every change of the group.
    /// (A member's "has a frame" cannot change while it is a member: the
    /// medium takes a station out of the group before any MAC input.)
    next_cache: Option<SimTime>,
}

impl Group {
    pub fn new(n: usize, slot: SimDur, difs: SimDur, eifs: SimDur, busy_slot_counts: bool) -> Group {
        let view = CsView { cca_busy: false, cca_idle_at: SimTime::ZERO, nav_end: SimTime::ZERO, use_eifs: false, count_from: None };
        Group { view, c: 0, rx_errors: 0, slot, difs, eifs, busy_slot_counts, members: vec![None; n], heap: BinaryHeap::new(), next_cache: None }
    }

    pub fn is_member(&self, s: usize) -> bool {
        self.members[s].is_some()
    }

    /// Add station `s` with `backoff` slots left at the start of the current
    /// (or next) counting period; `has_frame` puts it in the heap.
    pub fn join(&mut self, s: usize, backoff: Option<u32>, has_frame: bool) {
        self.next_cache = None;
        let target = backoff.map(|k| self.c + k as u64);
        self.members[s] = Some(Member { target, errors_at_join: self.rx_errors });
        if let (Some(t), true) = (target, has_frame) {
            self.heap.push(Reverse((t, s)));
        }
    }

    /// Remove station `s`; returns its backoff as of the current counting
    /// period and the corrupted receptions it saw as a member.
    pub fn leave(&mut self, s: usize) -> (Option<u32>, u64) {
        self.next_cache = None;
        let m = self.members[s].take().expect("not a member");
        let k = m.target.map(|t| t.saturating_sub(self.c) as u32);
        (k, self.rx_errors - m.errors_at_join)
    }

    /// Dcf::freeze + cca busy: the medium turns busy at `now`.
    pub fn busy(&mut self, now: SimTime) {
        self.next_cache = None;
        if let Some(cs) = self.view.count_from.take() {
            if now >= cs {
                let elapsed = (now - cs).as_nanos() / self.slot.as_nanos().max(1);
                self.c += elapsed + u64::from(self.busy_slot_counts);
            }
        }
        self.view.cca_busy = true;
    }

    /// Dcf::on_rx_end for a frame not addressed to the members.
    pub fn rx_end(&mut self, now: SimTime, ok: bool, duration: SimDur) {
        self.next_cache = None;
        if ok {
            self.view.use_eifs = false;
            self.view.nav_end = self.view.nav_end.max(now + duration);
        } else {
            self.view.use_eifs = true;
            self.rx_errors += 1;
        }
    }

    /// Dcf::on_cca(idle) + resume.
    pub fn idle(&mut self, now: SimTime) {
        self.next_cache = None;
        self.view.cca_busy = false;
        self.view.cca_idle_at = now;
        if self.view.count_from.is_none() {
            let ifs = if self.view.use_eifs { self.eifs } else { self.difs };
            self.view.count_from = Some(self.view.cca_idle_at.max(self.view.nav_end) + ifs);
        }
    }

    /// Earliest transmission of a member with a frame; `has_frame(s)` says
    /// whether station `s` still holds one. Drops stale heap entries.
    pub fn next_tx(&mut self, has_frame: impl Fn(usize) -> bool) -> SimTime {
        if let Some(t) = self.next_cache {
            return t;
        }
        let t = self.compute_next_tx(has_frame);
        self.next_cache = Some(t);
        t
    }

    fn compute_next_tx(&mut self, has_frame: impl Fn(usize) -> bool) -> SimTime {
        let Some(cs) = self.view.count_from else { return SimTime::NEVER };
        while let Some(&Reverse((t, s))) = self.heap.peek() {
            let valid = matches!(self.members[s], Some(Member { target: Some(x), .. }) if x == t) && has_frame(s);
            if valid {
                return cs + self.slot * t.saturating_sub(self.c);
            }
            self.heap.pop();
        }
        SimTime::NEVER
    }

    /// Members due to transmit at `now`, in index order, into `v` (cleared
    /// first; they leave the heap; the caller makes them act on their own).
    pub fn due(&mut self, now: SimTime, has_frame: impl Fn(usize) -> bool + Copy, v: &mut Vec<usize>) {
        v.clear();
        if self.next_tx(has_frame) != now {
            return;
        }
        while self.next_tx(has_frame) == now {
            let Reverse((_, s)) = self.heap.pop().expect("peeked");
            self.next_cache = None;
            if !v.contains(&s) {
                v.push(s);
            }
        }
        v.sort_unstable();
    }
}
