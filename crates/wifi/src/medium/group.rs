//! Bystanders of one collision domain, kept as one group.
//!
//! In a single collision domain every station that takes no part in the
//! current frame exchange sees the same medium: the same busy and idle
//! instants, the same NAV from the same decoded frames, the same EIFS
//! condition after the same corrupted frames. Their backoff counters then
//! advance in lockstep, so instead of stepping each of them at every busy or
//! idle transition the group keeps one carrier-sense state ([`CsView`]) and
//! one slot counter `c`; a member with `k` slots left is stored as the
//! target `c + k`, and the earliest member to transmit is the one with the
//! smallest target (a bucket queue, below). Cost per frame: O(1) per member
//! entering or leaving the queue, a scan of the queue's occupancy bitmap
//! from the counter to the next smallest target after members are served
//! (usually within one word), plus the few stations taking part in the
//! exchange, which act on their own.
//!
//! The group reproduces `Dcf` exactly (tests compare both): it defers and
//! counts with the channel access layer's rules (`mac/access`: the
//! [`Deferral`] of its shared view, [`Slotting`]'s count of the slots that
//! passed), applied to its one counter instead of each member's.
//!
//! # The target queue
//!
//! Members holding a frame wait in a [`TargetQueue`]. A member's
//! transmission depends on its target `t` only through `max(t, c)`: a
//! target at or below the counter (`frame_arrives` can add one) means "at
//! the start of counting". The counter never decreases, so the queue keeps
//! each entry under the key `max(t, c)` taken when it enters, which changes
//! no later `max(key, c)`; every key is then at least the counter at its
//! insertion.
//!
//! The queue is a ring of buckets, one per key modulo `R` (a power of two),
//! each a doubly linked list threaded through a per-station array of
//! `next`/`prev` links (O(1) insertion and removal), with an occupancy
//! bitmap (one bit per bucket). The links are 8 bytes a station, apart
//! from the stations' 32-byte slots: walking a bucket (the members due at
//! one instant, a few tens in a cell of thousands) reads that compact
//! array, mostly cached, not one rarely cached line per member, one after
//! another. Invariants: every key in the ring lies in
//! `[base, base + R)`, so a bucket holds a single key and the first set
//! bit at or after `base mod R` (wrapping around) is the smallest key; and
//! `base <= c`, so a new key fits whenever it is below `base + R`. `base`
//! moves up to `min(smallest key, c)` whenever the smallest key is looked
//! up. A backoff is at most the contention window, so `R` is at least
//! twice the largest one (the `cw_max` given to [`Group::new`], up to
//! 2^16 buckets): a key is then below `c + R / 2`, and fits unless `base`
//! lags more than `R / 2` behind `c` (entries left below the counter for
//! that long). Keys that do not fit go to an overflow list, scanned
//! linearly and moved into the ring once they fit: slower, never wrong.
//! Removal is eager (a member that leaves leaves the queue), so every entry
//! is a current member with a frame and needs no check when it comes first.
//! The smallest key is cached: a push can only lower it, serving the due
//! members finds the next one (the scan that shows where their keys end),
//! and only a removal that may take it away (the last entry of its bucket,
//! or an overflow entry with that key) makes the next look-up scan the
//! bitmap again.
use crate::mac::access::{Backoff, CsView, Deferral, IfsTimes, Slotting};
use crate::mac::GroupRules;
use wifitcp_core::{SimDur, SimTime};

/// "No station": the end of a bucket's list, or the `prev` of its head.
const NIL: u32 = u32::MAX;
/// The `prev` of an entry in the overflow list.
const OVER: u32 = u32::MAX - 1;
/// The key of a station that is not queued.
const ABSENT: u64 = u64::MAX;
/// Bucket count bounds: one bitmap word at least; at most 2^16 (256 KiB
/// of list heads), enough for a contention window up to 2^15 - 1, the
/// largest that EDCA's 4-bit ECWmax encodes.
const MIN_BUCKETS: u64 = 64;
const MAX_BUCKETS: u64 = 1 << 16;

/// A station's key in the queue, and its membership of the [`Group`]
/// (`None`: not a member; the queue itself never reads it). Both in one
/// 32-byte slot, aligned to its size, so within one cache line: joining,
/// leaving and being served touch one line of the group's per-station
/// state, not one line in each of two arrays (in a cell of thousands of
/// stations they are rarely cached).
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct Node {
    /// `max(target, counter at insertion)`, or [`ABSENT`].
    key: u64,
    member: Option<Member>,
}

/// A station's links in its bucket's list (module docs).
#[derive(Clone, Copy, Debug)]
struct Link {
    /// Next station in the bucket, or [`NIL`].
    next: u32,
    /// Previous station in the bucket, [`NIL`] at the head, [`OVER`] in the
    /// overflow list.
    prev: u32,
}

/// A station's place in the group, in bytes: its slot and its links.
pub(super) const STATION_BYTES: usize = std::mem::size_of::<Node>() + std::mem::size_of::<Link>();

/// Stations by key (see the module docs): the smallest key, and removal
/// of every station whose key is the smallest once clamped to the counter.
/// Entries with equal keys are interchangeable; a station is queued at most
/// once.
struct TargetQueue {
    nodes: Vec<Node>,
    /// The stations' links, by index.
    links: Vec<Link>,
    /// First station of each bucket, or [`NIL`].
    head: Vec<u32>,
    /// Bit `b` set iff bucket `b` is not empty.
    occ: Vec<u64>,
    /// `R - 1`.
    mask: u64,
    /// Lower bound of the keys in the ring, at most the counter.
    base: u64,
    /// Stations in the ring.
    ring_len: usize,
    /// Stations whose key did not fit the ring when they entered.
    over: Vec<u32>,
    /// The smallest key ([`ABSENT`]: the queue is empty) when `min_ok`;
    /// kept across pushes, recomputed after a removal that may have taken
    /// it away.
    min: u64,
    min_ok: bool,
}

impl TargetQueue {
    /// A queue for stations `0..n` whose keys exceed the counter by at most
    /// `window` (larger ones are slower but correct).
    fn new(n: usize, window: u64) -> TargetQueue {
        assert!(n < OVER as usize, "station index out of range");
        let buckets = window.saturating_add(1).saturating_mul(2).clamp(MIN_BUCKETS, MAX_BUCKETS).next_power_of_two();
        TargetQueue {
            nodes: vec![Node { key: ABSENT, member: None }; n],
            links: vec![Link { next: NIL, prev: NIL }; n],
            head: vec![NIL; buckets as usize],
            occ: vec![0; (buckets / 64) as usize],
            mask: buckets - 1,
            base: 0,
            ring_len: 0,
            over: Vec::new(),
            min: ABSENT,
            min_ok: true,
        }
    }

    /// Queue station `s` with target `target`, the counter being `c` (never
    /// less than at any earlier call); replaces its entry if it has one.
    #[inline]
    fn push(&mut self, s: usize, target: u64, c: u64) {
        debug_assert!(c >= self.base, "the counter went back");
        let key = target.max(c);
        if self.nodes[s].key != ABSENT {
            return self.repush(s, key, c);
        }
        self.insert(s, key, c);
    }

    /// `push` of a station that is queued already (rare). Out of line, as
    /// are the other rare paths, so that `push` itself saves no registers.
    #[cold]
    #[inline(never)]
    fn repush(&mut self, s: usize, key: u64, c: u64) {
        self.unlink(s);
        self.insert(s, key, c);
    }

    /// Queue station `s` (not queued) under `key` (at least `c`).
    #[inline]
    fn insert(&mut self, s: usize, key: u64, c: u64) {
        self.nodes[s].key = key;
        if key - self.base > self.mask {
            return self.insert_far(s, key, c);
        }
        self.min = self.min.min(key);
        self.ring_insert(s);
    }

    /// `insert` of a key beyond the window: move `base` up as far as the
    /// other keys and the counter allow, then into the ring if it fits now,
    /// else into the overflow list.
    #[cold]
    #[inline(never)]
    fn insert_far(&mut self, s: usize, key: u64, c: u64) {
        self.first(c);
        self.min = self.min.min(key);
        if key - self.base <= self.mask {
            self.ring_insert(s);
        } else {
            self.links[s].prev = OVER;
            self.over.push(s as u32);
        }
    }

    /// Put station `s` (key set, `key - base < R`) into its bucket.
    #[inline]
    fn ring_insert(&mut self, s: usize) {
        let b = (self.nodes[s].key & self.mask) as usize;
        let h = self.head[b];
        self.links[s] = Link { next: h, prev: NIL };
        if h == NIL {
            self.occ[b >> 6] |= 1 << (b & 63);
        } else {
            self.links[h as usize].prev = s as u32;
        }
        self.head[b] = s as u32;
        self.ring_len += 1;
    }

    /// Take station `s` out of the queue, if it is in.
    #[inline]
    fn remove(&mut self, s: usize) {
        if self.nodes[s].key != ABSENT {
            self.unlink(s);
        }
    }

    /// `remove` of a queued station (rare: members usually leave the queue
    /// by `pop_due`).
    #[cold]
    #[inline(never)]
    fn unlink(&mut self, s: usize) {
        let key = self.nodes[s].key;
        let Link { next, prev } = self.links[s];
        self.nodes[s].key = ABSENT;
        if prev == OVER {
            let i = self.over.iter().position(|&x| x as usize == s).expect("in the overflow list");
            self.over.swap_remove(i);
            self.min_ok &= key != self.min;
            return;
        }
        if prev == NIL {
            let b = (key & self.mask) as usize;
            self.head[b] = next;
            if next == NIL {
                self.occ[b >> 6] &= !(1 << (b & 63));
                self.min_ok &= key != self.min;
            }
        } else {
            self.links[prev as usize].next = next;
        }
        if next != NIL {
            self.links[next as usize].prev = prev;
        }
        self.ring_len -= 1;
    }

    /// The smallest key in the ring (which must not be empty): the first
    /// occupied bucket at or after `base`, wrapping around.
    #[inline]
    fn ring_first(&self) -> u64 {
        debug_assert!(self.ring_len > 0);
        let start = (self.base & self.mask) as usize;
        let last = self.occ.len() - 1;
        let mut w = start >> 6;
        let mut bits = self.occ[w] & (!0u64 << (start & 63));
        // Terminates: some bit is set; after a full turn the start word's
        // low bits (the top of the window) are looked at too.
        while bits == 0 {
            w = (w + 1) & last;
            bits = self.occ[w];
        }
        let b = (w << 6) | bits.trailing_zeros() as usize;
        self.base + ((b.wrapping_sub(start)) as u64 & self.mask)
    }

    /// The smallest key, the counter being `c`; moves `base` up to it (or
    /// to `c`, if that is smaller).
    #[inline]
    fn first(&mut self, c: u64) -> Option<u64> {
        debug_assert!(c >= self.base, "the counter went back");
        if !self.min_ok {
            self.min = if !self.over.is_empty() {
                self.first_with_overflow(c)
            } else if self.ring_len > 0 {
                self.ring_first()
            } else {
                ABSENT
            };
            self.min_ok = true;
        }
        self.base = self.min.min(c);
        (self.min != ABSENT).then_some(self.min)
    }

    /// The smallest key with a non-empty overflow list; moves the entries
    /// that fit the window from the new `base` into the ring.
    #[cold]
    fn first_with_overflow(&mut self, c: u64) -> u64 {
        let ring = if self.ring_len > 0 { self.ring_first() } else { ABSENT };
        let over = self.over.iter().map(|&s| self.nodes[s as usize].key).min().expect("overflow entries");
        let k = ring.min(over);
        self.base = k.min(c);
        let mut i = 0;
        while i < self.over.len() {
            let s = self.over[i] as usize;
            if self.nodes[s].key - self.base <= self.mask {
                self.over.swap_remove(i);
                self.ring_insert(s);
            } else {
                i += 1;
            }
        }
        k
    }

    /// Remove every station whose `max(key, c)` is the smallest, appending
    /// them to `v` in no particular order.
    fn pop_due(&mut self, c: u64, v: &mut Vec<usize>) {
        let Some(mut k) = self.first(c) else { return };
        let lim = k.max(c);
        if !self.over.is_empty() {
            return self.pop_due_with_overflow(lim, v);
        }
        // Every key is in the ring and `k` is the smallest. Keys at most
        // `lim`: one bucket when `k > c`, else every key up to `c`. The
        // first key left above `lim` is the new smallest.
        loop {
            self.pop_bucket(k, v);
            if self.ring_len == 0 {
                self.min = ABSENT;
                return;
            }
            k = self.ring_first();
            if k > lim {
                self.min = k;
                return;
            }
        }
    }

    /// `pop_due` with a non-empty overflow list: the ring's keys up to
    /// `lim`, then the list's; the smallest key is looked up again next.
    #[cold]
    fn pop_due_with_overflow(&mut self, lim: u64, v: &mut Vec<usize>) {
        self.min_ok = false;
        while self.ring_len > 0 {
            let k = self.ring_first();
            if k > lim {
                break;
            }
            self.pop_bucket(k, v);
        }
        self.pop_overflow(lim, v);
    }

    /// Empty the bucket of key `k` (in the ring), appending its stations
    /// to `v`.
    #[inline]
    fn pop_bucket(&mut self, k: u64, v: &mut Vec<usize>) {
        let b = (k & self.mask) as usize;
        let mut s = self.head[b];
        self.head[b] = NIL;
        self.occ[b >> 6] &= !(1 << (b & 63));
        while s != NIL {
            self.nodes[s as usize].key = ABSENT;
            v.push(s as usize);
            s = self.links[s as usize].next;
            self.ring_len -= 1;
        }
    }

    /// Every invariant, checked the slow way (tests).
    #[cfg(test)]
    fn check(&self) {
        let mut in_ring = 0;
        for b in 0..self.head.len() {
            assert_eq!(self.occ[b >> 6] >> (b & 63) & 1 == 1, self.head[b] != NIL, "bitmap of bucket {b}");
            let (mut prev, mut s) = (NIL, self.head[b]);
            while s != NIL {
                let (n, l) = (self.nodes[s as usize], self.links[s as usize]);
                assert_eq!(l.prev, prev, "links of bucket {b}");
                assert_eq!(n.key & self.mask, b as u64, "key in the wrong bucket");
                assert!(n.key >= self.base && n.key - self.base <= self.mask, "key outside the window");
                in_ring += 1;
                (prev, s) = (s, l.next);
            }
        }
        assert_eq!(in_ring, self.ring_len);
        assert!(self.over.iter().all(|&s| self.links[s as usize].prev == OVER && self.nodes[s as usize].key != ABSENT));
        assert_eq!(self.nodes.iter().filter(|n| n.key != ABSENT).count(), self.ring_len + self.over.len());
        if self.min_ok {
            assert_eq!(self.min, self.nodes.iter().map(|n| n.key).min().unwrap_or(ABSENT), "stale smallest key");
        }
    }

    /// `pop_due` of the overflow list: every entry with a key up to `lim`.
    #[cold]
    fn pop_overflow(&mut self, lim: u64, v: &mut Vec<usize>) {
        let nodes = &mut self.nodes;
        self.over.retain(|&s| {
            let n = &mut nodes[s as usize];
            if n.key <= lim {
                n.key = ABSENT;
                v.push(s as usize);
                false
            } else {
                true
            }
        });
    }
}

/// A member: its target ([`NO_TARGET`]: no backoff pending; a sentinel,
/// not an `Option`, so that a slot is 32 bytes), whether it holds a frame,
/// and the group's error count when it joined (to hand back its
/// `rx_errors` counter).
#[derive(Clone, Copy, Debug)]
struct Member {
    target: u64,
    has_frame: bool,
    errors_at_join: u64,
}

/// [`Member::target`] of a member with no backoff pending (no target is
/// that large: a target is the counter plus at most a contention window).
const NO_TARGET: u64 = u64::MAX;

impl Member {
    /// The target, if a backoff is pending.
    #[inline(always)]
    fn target(&self) -> Option<u64> {
        (self.target != NO_TARGET).then_some(self.target)
    }
}

pub(crate) struct Group {
    pub view: CsView,
    /// Slots credited to members before the current counting period.
    c: u64,
    /// Corrupted receptions the group has seen.
    rx_errors: u64,
    /// The members' slot time and counting rule, and their IFS.
    slotting: Slotting,
    ifs: IfsTimes,
    /// Members with a frame to send, by target; and the members (`Node::member`).
    queue: TargetQueue,
    /// `next_tx` as last computed; cleared by every change of the group.
    next_cache: Option<SimTime>,
}

impl Group {
    /// `r.cw_max`: the largest backoff a member can draw (sizes the target
    /// queue; larger backoffs are slower, not wrong).
    pub fn new(n: usize, r: &GroupRules) -> Group {
        let view = CsView { cs: Deferral::new(), count_from: None };
        let queue = TargetQueue::new(n, r.cw_max.into());
        Group { view, c: 0, rx_errors: 0, slotting: Slotting::new(r.slot, r.rule), ifs: r.ifs, queue, next_cache: None }
    }

    pub fn is_member(&self, s: usize) -> bool {
        self.queue.nodes[s].member.is_some()
    }

    /// Add station `s` with `backoff` slots left at the start of the current
    /// (or next) counting period; `has_frame` puts it in the queue.
    pub fn join(&mut self, s: usize, backoff: Option<u32>, has_frame: bool) {
        self.next_cache = None;
        debug_assert!(self.queue.nodes[s].member.is_none(), "station {s} joins twice");
        let target = backoff.map(|k| self.c + k as u64);
        let coded = target.unwrap_or(NO_TARGET);
        self.queue.nodes[s].member = Some(Member { target: coded, has_frame, errors_at_join: self.rx_errors });
        if let (Some(t), true) = (target, has_frame) {
            self.queue.push(s, t, self.c);
        }
    }

    /// Remove station `s`; returns its backoff as of the current counting
    /// period and the corrupted receptions it saw as a member.
    pub fn leave(&mut self, s: usize) -> (Option<u32>, u64) {
        self.next_cache = None;
        let m = self.queue.nodes[s].member.take().expect("not a member");
        self.queue.remove(s);
        let k = m.target().map(|t| t.saturating_sub(self.c) as u32);
        (k, self.rx_errors - m.errors_at_join)
    }

    /// Member `s` got a frame at `now`. If the frame waits for the
    /// member's pending backoff to end (a countdown not yet run out:
    /// `Backoff::expired` of the member's backoff in the group's view, as
    /// `Dcf::shares_view` requires), it enters the queue and `true` is
    /// returned; otherwise (no backoff pending: the frame goes at once,
    /// DIFS after the busy medium, or after a new draw, as
    /// `Backoff::frame_arrives` decides) the station must act on its own:
    /// `false`, nothing changed.
    pub fn frame_arrives(&mut self, s: usize, now: SimTime) -> bool {
        let Some(t) = self.queue.nodes[s].member.and_then(|m| m.target()) else { return false };
        let left = t.saturating_sub(self.c) as u32;
        let pending = Backoff::with(self.view.count_from, Some(left), 0);
        if pending.expired(now, &self.slotting) {
            return false;
        }
        self.queue.push(s, t, self.c);
        if let Some(m) = self.queue.nodes[s].member.as_mut() {
            m.has_frame = true;
        }
        self.next_cache = None;
        true
    }

    /// The medium turns busy at `now`: counting stops, and the slots that
    /// passed are credited to every member (`Backoff::freeze` for all).
    pub fn busy(&mut self, now: SimTime) {
        self.next_cache = None;
        if let Some(cs) = self.view.count_from.take() {
            self.c += self.slotting.passed(cs, now);
        }
        self.view.cs.cca(now, true);
    }

    /// A frame not addressed to the members ended (`Deferral::heard`).
    pub fn rx_end(&mut self, now: SimTime, ok: bool, duration: SimDur) {
        self.next_cache = None;
        self.view.cs.heard(now, ok, true, duration);
        self.rx_errors += u64::from(!ok);
    }

    /// The medium turns idle at `now`: counting starts one IFS after it is
    /// free (`Deferral::count_start`, the members' DIFS as their AIFS).
    pub fn idle(&mut self, now: SimTime) {
        self.next_cache = None;
        self.view.cs.cca(now, false);
        if self.view.count_from.is_none() {
            self.view.count_from = self.view.cs.count_start(self.ifs.difs, &self.ifs);
        }
    }

    /// Earliest transmission of a member with a frame. (A member's "has a
    /// frame" changes only through `frame_arrives`: the medium takes a
    /// station out of the group before any MAC input.)
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
        match self.queue.first(self.c) {
            Some(t) => self.slotting.end(cs, t.saturating_sub(self.c)),
            None => SimTime::NEVER,
        }
    }

    /// Members due to transmit at `now`, in index order, into `v` (cleared
    /// first; they leave the queue; the caller makes them act on their own).
    pub fn due(&mut self, now: SimTime, v: &mut Vec<usize>) {
        v.clear();
        if self.next_tx() != now {
            return;
        }
        // Due now: the members whose `max(target, c)` is the smallest.
        self.queue.pop_due(self.c, v);
        self.next_cache = None;
        v.sort_unstable();
        debug_assert!(v
            .iter()
            .all(|&s| matches!(self.queue.nodes[s].member, Some(m @ Member { has_frame: true, .. }) if m.target().is_some_and(|t| self.view.count_from.is_some_and(|cs| self.slotting.end(cs, t.saturating_sub(self.c)) == now)))));
        debug_assert!(self.next_tx() > now, "a member due now was left in the queue");
    }
}

#[cfg(test)]
mod tests {
    use super::TargetQueue;
    use std::collections::BTreeSet;
    use wifitcp_core::RngStream;

    /// A station's slot is 32 bytes, aligned to its size (two to a cache
    /// line, never across two), and its links 8.
    #[test]
    fn a_slot_is_half_a_line() {
        assert_eq!(std::mem::size_of::<super::Node>(), 32);
        assert_eq!(std::mem::align_of::<super::Node>(), 32);
        assert_eq!(std::mem::size_of::<super::Link>(), 8);
    }

    #[test]
    fn target_queue_pops_in_target_order() {
        let mut rng = RngStream::derive(7, "test/target-queue");
        let mut q = TargetQueue::new(1000, 63);
        let mut all = BTreeSet::new();
        let mut v = Vec::new();
        for round in 0..50 {
            for _ in 0..(round % 7 + 1) {
                let (t, s) = (rng.below(40), rng.below(1000) as usize);
                all.retain(|&(_, x)| x != s);
                q.push(s, t, 0);
                all.insert((t, s));
            }
            // pop a few: always every station with the smallest target
            for _ in 0..(round % 3) {
                let Some(&(t, _)) = all.first() else { break };
                assert_eq!(q.first(0), Some(t));
                let want: Vec<usize> = all.iter().take_while(|&&(x, _)| x == t).map(|&(_, s)| s).collect();
                all.retain(|&(x, _)| x != t);
                v.clear();
                q.pop_due(0, &mut v);
                v.sort_unstable();
                assert_eq!(v, want);
            }
        }
        while let Some(&(t, _)) = all.first() {
            assert_eq!(q.first(0), Some(t));
            all.retain(|&(x, _)| x != t);
            v.clear();
            q.pop_due(0, &mut v);
        }
        assert_eq!(q.first(0), None);
    }

    /// Random pushes (targets below the counter, within the window and far
    /// beyond it), removals, pops and counter steps (small, and large ones
    /// that leave entries far below the counter), against a `BTreeSet` of
    /// `(target, station)`: the smallest `max(target, c)` and the stations
    /// popped must agree.
    #[test]
    fn target_queue_matches_a_sorted_set() {
        for (seed, window, n) in [(1, 0, 8), (2, 15, 50), (3, 63, 300), (4, 1023, 1000), (5, 100, 5)] {
            let mut rng = RngStream::derive(seed, "test/target-queue-model");
            let mut q = TargetQueue::new(n, window);
            let r = q.mask + 1;
            let mut set: BTreeSet<(u64, usize)> = BTreeSet::new();
            let mut target_of = vec![None; n];
            let mut c = 0u64;
            let mut v = Vec::new();
            for step in 0..20_000 {
                if step % 8 == 0 {
                    q.check();
                }
                let s = rng.below(n as u64) as usize;
                match rng.below(10) {
                    0..=3 => {
                        let t = match rng.below(10) {
                            0 => c.saturating_sub(rng.below(3 * r)),
                            1 => c + r / 2 + rng.below(2 * r),
                            _ => c + rng.below(window + 1),
                        };
                        if let Some(old) = target_of[s].replace(t) {
                            set.remove(&(old, s));
                        }
                        set.insert((t, s));
                        q.push(s, t, c);
                    }
                    4 => {
                        if let Some(old) = target_of[s].take() {
                            set.remove(&(old, s));
                        }
                        q.remove(s);
                    }
                    5..=7 => {
                        let want = set.first().map(|&(t, _)| t.max(c));
                        assert_eq!(q.first(c).map(|k| k.max(c)), want, "seed {seed}, c {c}");
                        let Some(lim) = want else { continue };
                        let due: Vec<usize> = set.range(..=(lim, usize::MAX)).map(|&(_, s)| s).collect();
                        for &s in &due {
                            set.remove(&(target_of[s].take().expect("queued"), s));
                        }
                        let mut want_v: Vec<usize> = due;
                        want_v.sort_unstable();
                        v.clear();
                        q.pop_due(c, &mut v);
                        v.sort_unstable();
                        assert_eq!(v, want_v, "seed {seed}, c {c}");
                    }
                    8 => c += rng.below(window + 2),
                    _ => {
                        if rng.below(20) == 0 {
                            c += rng.below(3 * r);
                        }
                        let want = set.first().map(|&(t, _)| t.max(c));
                        assert_eq!(q.first(c).map(|k| k.max(c)), want, "seed {seed}, c {c}");
                    }
                }
                assert_eq!(q.ring_len + q.over.len(), set.len());
            }
        }
    }
}
