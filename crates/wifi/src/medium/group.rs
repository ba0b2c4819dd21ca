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
use wifitcp_core::{SimDur, SimTime};

/// Bits of a heap key that hold the station index (the target takes the
/// rest: 2^40 slots, 114 days of 9 us slots).
const STA_BITS: u32 = 24;

/// A min-heap of `(target, station)` packed into one `u64` (target in the
/// high bits, so the packed order is the pair's lexicographic order), with
/// four children per node: half the depth of a binary heap and one compare
/// per key. Equal keys are interchangeable, so any correct min-heap pops
/// the same sequence.
#[derive(Default)]
struct TargetHeap {
    v: Vec<u64>,
}

impl TargetHeap {
    fn key(target: u64, s: usize) -> u64 {
        assert!(target < 1 << (64 - STA_BITS) && s < 1 << STA_BITS, "backoff target or station index out of range");
        target << STA_BITS | s as u64
    }
    fn peek(&self) -> Option<(u64, usize)> {
        self.v.first().map(|&k| (k >> STA_BITS, (k & ((1 << STA_BITS) - 1)) as usize))
    }
    fn push(&mut self, target: u64, s: usize) {
        let k = Self::key(target, s);
        let mut i = self.v.len();
        self.v.push(k);
        while i > 0 {
            let parent = (i - 1) / 4;
            if self.v[parent] <= k {
                break;
            }
            self.v[i] = self.v[parent];
            i = parent;
        }
        self.v[i] = k;
    }
    fn pop(&mut self) {
        let Some(last) = self.v.pop() else { return };
        let n = self.v.len();
        if n == 0 {
            return;
        }
        let v = self.v.as_mut_slice();
        let mut i = 0;
        loop {
            let first = 4 * i + 1;
            if first >= n {
                break;
            }
            // The smallest child: four at once when all exist (the common
            // case), else the ones that do.
            let (best, key) = if first + 4 <= n {
                let c: &[u64; 4] = v[first..first + 4].try_into().expect("four children");
                let (a, b) = if c[1] < c[0] { (first + 1, c[1]) } else { (first, c[0]) };
                let (x, y) = if c[3] < c[2] { (first + 3, c[3]) } else { (first + 2, c[2]) };
                if y < b {
                    (x, y)
                } else {
                    (a, b)
                }
            } else {
                let mut best = first;
                for c in first + 1..n {
                    if v[c] < v[best] {
                        best = c;
                    }
                }
                (best, v[best])
            };
            if key >= last {
                break;
            }
            v[i] = key;
            i = best;
        }
        v[i] = last;
    }
}

/// A member: its target (None: no backoff pending), whether it holds a
/// frame, and the group's error count when it joined (to hand back its
/// `rx_errors` counter).
#[derive(Clone, Copy, Debug)]
struct Member {
    target: Option<u64>,
    has_frame: bool,
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
    /// `DcfParams::backoff_on_idle_access` of every member.
    backoff_on_idle_access: bool,
    members: Vec<Option<Member>>,
    /// Members with a frame to send, by target (stale entries skipped).
    heap: TargetHeap,
    /// `next_tx` as last computed; cleared by every change of the group.
    next_cache: Option<SimTime>,
}

impl Group {
    pub fn new(n: usize, slot: SimDur, difs: SimDur, eifs: SimDur, busy_slot_counts: bool, backoff_on_idle_access: bool) -> Group {
        let view = CsView { cca_busy: false, cca_idle_at: SimTime::ZERO, nav_end: SimTime::ZERO, use_eifs: false, count_from: None };
        Group { view, c: 0, rx_errors: 0, slot, difs, eifs, busy_slot_counts, backoff_on_idle_access, members: vec![None; n], heap: TargetHeap::default(), next_cache: None }
    }

    pub fn is_member(&self, s: usize) -> bool {
        self.members[s].is_some()
    }

    /// Add station `s` with `backoff` slots left at the start of the current
    /// (or next) counting period; `has_frame` puts it in the heap.
    pub fn join(&mut self, s: usize, backoff: Option<u32>, has_frame: bool) {
        self.next_cache = None;
        let target = backoff.map(|k| self.c + k as u64);
        self.members[s] = Some(Member { target, has_frame, errors_at_join: self.rx_errors });
        if let (Some(t), true) = (target, has_frame) {
            self.heap.push(t, s);
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

    /// Member `s` got a frame at `now`. If the frame waits for the
    /// member's pending backoff to end (as `Dcf::shares_view` requires: the
    /// post-backoff has not finished before `now`), it enters the heap and
    /// `true` is returned;
    /// otherwise (no backoff pending, or it ran out before `now`) the
    /// station must act on its own: `false`, nothing changed.
    pub fn frame_arrives(&mut self, s: usize, now: SimTime) -> bool {
        let Some(Member { target: Some(t), .. }) = self.members[s] else { return false };
        let left = t.saturating_sub(self.c);
        if let Some(cs) = self.view.count_from {
            if now > cs + self.slot * left {
                return false;
            }
        }
        // With ns-2's idle access the member draws anew when its backoff
        // has run out (`Dcf::backoff_expired`): it acts on its own.
        if self.backoff_on_idle_access && (left == 0 || self.view.count_from.is_some_and(|cs| cs + self.slot * left <= now)) {
            return false;
        }
        self.heap.push(t, s);
        if let Some(m) = self.members[s].as_mut() {
            m.has_frame = true;
        }
        self.next_cache = None;
        true
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

    /// Earliest transmission of a member with a frame. Drops stale heap
    /// entries. (A member's "has a frame" changes only through
    /// `frame_arrives`: the medium takes a station out of the group before
    /// any MAC input.)
    #[inline]
    pub fn next_tx(&mut self) -> SimTime {
        if let Some(t) = self.next_cache {
            return t;
        }
        let t = self.compute_next_tx();
        self.next_cache = Some(t);
        t
    }

    fn compute_next_tx(&mut self) -> SimTime {
        let Some(cs) = self.view.count_from else { return SimTime::NEVER };
        while let Some((t, s)) = self.heap.peek() {
            let valid = matches!(self.members[s], Some(Member { target: Some(x), has_frame: true, .. }) if x == t);
            if valid {
                return cs + self.slot * t.saturating_sub(self.c);
            }
            self.heap.pop();
        }
        SimTime::NEVER
    }

    /// Members due to transmit at `now`, in index order, into `v` (cleared
    /// first; they leave the heap; the caller makes them act on their own).
    pub fn due(&mut self, now: SimTime, v: &mut Vec<usize>) {
        v.clear();
        if self.next_tx() != now {
            return;
        }
        while self.next_tx() == now {
            let (_, s) = self.heap.peek().expect("peeked");
            self.heap.pop();
            self.next_cache = None;
            if !v.contains(&s) {
                v.push(s);
            }
        }
        v.sort_unstable();
    }
}

#[cfg(test)]
mod tests {
    use super::TargetHeap;
    use wifitcp_core::RngStream;

    #[test]
    fn target_heap_pops_in_lexicographic_order() {
        let mut rng = RngStream::derive(7, "test/target-heap");
        let mut h = TargetHeap::default();
        let mut all = Vec::new();
        for round in 0..50 {
            for _ in 0..(round % 7 + 1) {
                let (t, s) = (rng.below(40) as u64, rng.below(1000) as usize);
                h.push(t, s);
                all.push((t, s));
            }
            // pop a few: always the smallest (target, station) pair
            for _ in 0..(round % 3) {
                all.sort_unstable();
                assert_eq!(h.peek(), all.first().copied());
                all.remove(0);
                h.pop();
            }
        }
        all.sort_unstable();
        for want in all {
            assert_eq!(h.peek(), Some(want));
            h.pop();
        }
        assert_eq!(h.peek(), None);
    }
}
