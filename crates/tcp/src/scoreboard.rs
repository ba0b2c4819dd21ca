//! The sender's retransmission queue and SACK scoreboard (RFC 6675 section 4).
//!
//! Every segment sent and not yet cumulatively acknowledged is kept, in
//! sequence order, with three flags:
//! - `sacked`: covered by a SACK block (RFC 2018);
//! - `lost`: presumed lost (RFC 6675 IsLost, the first segment at a fast
//!   retransmit, or every outstanding segment after an RTO / Tahoe's
//!   go-back-N);
//! - `retrans`: retransmitted during the current loss episode (these are the
//!   segments at or below RFC 6675's HighRxt).
//!
//! RFC 6675 works on octets; this implementation works on whole segments,
//! which is exact because segments are never split or merged once sent and
//! receivers SACK whole segments.
//!
//! Invariants (checked by [`Scoreboard::check`] in tests and debug builds):
//! - segments are contiguous: each starts where the previous one ends;
//! - `pipe` equals RFC 6675 SetPipe() evaluated over all segments: an
//!   unSACKed segment counts once if it is not lost and once more if it was
//!   retransmitted; SACKed segments do not count;
//! - `lost_pending` counts segments that are lost, unSACKed and not yet
//!   retransmitted (RFC 6675 NextSeg rule 1 candidates).
use crate::rate::{RateSampler, TxStamp};
use std::collections::VecDeque;
use wifitcp_core::SimTime;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentSeg {
    /// First sequence offset.
    pub start: u64,
    /// One past the last sequence offset (a FIN occupies one).
    pub end: u64,
    pub fin: bool,
    pub last_sent: SimTime,
    pub tx_count: u32,
    pub sacked: bool,
    pub lost: bool,
    pub retrans: bool,
    /// Retransmitted at least once (Karn's rule, RFC 6298 section 3).
    pub ever_rtx: bool,
    /// Delivery-rate stamp of the last transmission ([`crate::rate`]; only
    /// written when the connection samples delivery rates).
    pub tx: TxStamp,
}

impl SentSeg {
    pub fn new(start: u64, end: u64, fin: bool, now: SimTime) -> Self {
        SentSeg {
            start,
            end,
            fin,
            last_sent: now,
            tx_count: 1,
            sacked: false,
            lost: false,
            retrans: false,
            ever_rtx: false,
            tx: TxStamp::default(),
        }
    }
    /// Sequence-space length (payload plus FIN).
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn payload(&self) -> u64 {
        self.len() - self.fin as u64
    }
    fn weight(&self) -> u64 {
        if self.sacked {
            0
        } else {
            (!self.lost as u64 + self.retrans as u64) * self.len()
        }
    }
    fn pending(&self) -> bool {
        self.lost && !self.retrans && !self.sacked
    }
    fn sacked_len(&self) -> u64 {
        if self.sacked {
            self.len()
        } else {
            0
        }
    }
}

/// What a cumulative ACK removed from the queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acked {
    pub segments: u32,
    /// Some removed segment had been retransmitted (Karn: no RTT sample).
    pub any_retransmitted: bool,
    /// Send time of the newest fully acknowledged segment.
    pub newest_sent: Option<SimTime>,
    /// A FIN was acknowledged.
    pub fin: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<SentSeg>,
    pipe: u64,
    sacked_bytes: u64,
    lost_pending: usize,
    /// End of the highest SACKed segment (0 = none).
    high_sacked: u64,
    /// Segments ending at or below this offset were already evaluated by
    /// the IsLost scan.
    lost_scanned_to: u64,
    /// No pending (lost, unretransmitted) segment starts below this offset;
    /// keeps the go-back-N scan linear over a whole episode.
    pending_hint: u64,
    /// Bytes ever marked lost (a controller reads the difference over one
    /// ACK as that ACK's losses).
    lost_marked: u64,
    /// The delivery-rate sampler, when the controller reads rate samples:
    /// every segment delivered (cumulatively acknowledged without having
    /// been SACKed, or newly SACKed) is counted in it.
    pub(crate) rate: Option<RateSampler>,
}

impl Scoreboard {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn len(&self) -> usize {
        self.segs.len()
    }
    pub fn get(&self, i: usize) -> &SentSeg {
        &self.segs[i]
    }
    pub fn front(&self) -> Option<&SentSeg> {
        self.segs.front()
    }
    pub fn back(&self) -> Option<&SentSeg> {
        self.segs.back()
    }
    /// RFC 6675 "pipe": the sender's estimate of bytes in the network.
    pub fn pipe(&self) -> u64 {
        self.pipe
    }
    pub fn sacked_bytes(&self) -> u64 {
        self.sacked_bytes
    }
    pub fn lost_pending(&self) -> usize {
        self.lost_pending
    }
    pub fn high_sacked(&self) -> u64 {
        self.high_sacked
    }
    /// Bytes marked lost over the connection's life (each marking counts).
    pub fn lost_marked(&self) -> u64 {
        self.lost_marked
    }
    /// Set segment `i`'s delivery-rate stamp.
    pub fn stamp(&mut self, i: usize, tx: TxStamp) {
        self.segs[i].tx = tx;
    }

    /// Index of the segment containing offset `seq`.
    pub fn find(&self, seq: u64) -> Option<usize> {
        let i = self.segs.partition_point(|s| s.end <= seq);
        (i < self.segs.len() && self.segs[i].start <= seq).then_some(i)
    }

    /// Change segment `i` through `f`, keeping the counters exact.
    fn modify(&mut self, i: usize, f: impl FnOnce(&mut SentSeg)) {
        let s = &mut self.segs[i];
        let (w0, p0, k0, lost0) = (s.weight(), s.pending(), s.sacked_len(), s.lost);
        f(s);
        let (w1, p1, k1) = (s.weight(), s.pending(), s.sacked_len());
        if s.lost && !lost0 {
            self.lost_marked += s.len();
        }
        if p1 && !p0 {
            self.pending_hint = self.pending_hint.min(s.start);
        }
        self.pipe = self.pipe + w1 - w0;
        self.sacked_bytes = self.sacked_bytes + k1 - k0;
        self.lost_pending = self.lost_pending + p1 as usize - p0 as usize;
    }

    /// Append a newly transmitted segment.
    pub fn push(&mut self, seg: SentSeg) {
        if let Some(b) = self.segs.back() {
            assert_eq!(b.end, seg.start, "scoreboard segments must be contiguous");
        }
        debug_assert!(!seg.sacked && !seg.lost && !seg.retrans);
        self.pipe += seg.len();
        self.segs.push_back(seg);
    }

    /// Remove everything below the cumulative ACK `ack`.
    pub fn ack_to(&mut self, ack: u64) -> Acked {
        let mut a = Acked::default();
        while let Some(s) = self.segs.front() {
            if s.end <= ack {
                let s = self.segs.pop_front().expect("front exists");
                self.pipe -= s.weight();
                self.sacked_bytes -= s.sacked_len();
                self.lost_pending -= s.pending() as usize;
                if let Some(r) = &mut self.rate {
                    let mut tx = s.tx;
                    r.on_delivered(&mut tx, s.last_sent, s.payload());
                }
                a.segments += 1;
                a.any_retransmitted |= s.ever_rtx;
                a.fin |= s.fin;
                a.newest_sent = Some(s.last_sent);
            } else {
                if s.start < ack {
                    // Partial acknowledgement of a segment (the peer trimmed
                    // it at its window edge): keep the rest.
                    self.modify(0, |s| s.start = ack);
                }
                break;
            }
        }
        if self.segs.is_empty() {
            self.high_sacked = 0;
        }
        a
    }

    /// Record SACK blocks `[left, right)`; returns the bytes newly SACKed.
    /// Only whole segments are marked.
    pub fn apply_sack(&mut self, blocks: &[(u64, u64)]) -> u64 {
        let before = self.sacked_bytes;
        for &(l, r) in blocks {
            let mut i = self.segs.partition_point(|s| s.start < l);
            while i < self.segs.len() && self.segs[i].end <= r {
                if !self.segs[i].sacked {
                    self.modify(i, |s| s.sacked = true);
                    let s = &mut self.segs[i];
                    self.high_sacked = self.high_sacked.max(s.end);
                    if let Some(r) = &mut self.rate {
                        let (sent, len) = (s.last_sent, s.payload());
                        r.on_delivered(&mut s.tx, sent, len);
                    }
                }
                i += 1;
            }
        }
        self.sacked_bytes - before
    }

    /// RFC 6675 IsLost(seq) for the segment starting at `seq`: DupThresh
    /// SACKed segments above it, or more than (DupThresh - 1) * SMSS SACKed
    /// bytes above it.
    pub fn is_lost(&self, seq: u64, dupthresh: u32, smss: u32) -> bool {
        let (mut cnt, mut bytes) = (0u32, 0u64);
        let from = self.segs.partition_point(|s| s.start <= seq);
        for s in self.segs.iter().skip(from) {
            if s.sacked {
                cnt += 1;
                bytes += s.len();
                if cnt >= dupthresh || bytes > (dupthresh as u64 - 1) * smss as u64 {
                    return true;
                }
            }
        }
        false
    }

    /// Mark every unSACKed segment for which IsLost() holds as lost. Since
    /// IsLost is monotone (a lower segment has at least as much SACKed data
    /// above it), one scan down from the highest SACKed segment finds the
    /// boundary, and only segments not marked before are touched.
    pub fn mark_lost_by_sack(&mut self, dupthresh: u32, smss: u32) {
        if self.high_sacked == 0 || self.segs.is_empty() {
            return;
        }
        let top = self.segs.partition_point(|s| s.end <= self.high_sacked);
        let (mut cnt, mut bytes) = (0u32, 0u64);
        let mut boundary = None;
        for i in (0..top).rev() {
            let s = &self.segs[i];
            if s.sacked {
                cnt += 1;
                bytes += s.len();
            } else if cnt >= dupthresh || bytes > (dupthresh as u64 - 1) * smss as u64 {
                boundary = Some(i);
                break;
            }
        }
        let Some(b) = boundary else { return };
        let from = self.segs.partition_point(|s| s.end <= self.lost_scanned_to);
        for i in from..=b {
            let s = &self.segs[i];
            if !s.sacked && !s.lost {
                self.modify(i, |s| s.lost = true);
            }
        }
        self.lost_scanned_to = self.lost_scanned_to.max(self.segs[b].end);
    }

    /// Mark segment `i` lost (fast retransmit of the first segment, NewReno
    /// partial ACK). It becomes a NextSeg rule-1 candidate again if it had
    /// been retransmitted.
    pub fn mark_lost(&mut self, i: usize) {
        self.modify(i, |s| {
            s.lost = true;
            s.retrans = false;
        });
    }

    /// Go-back-N: every outstanding segment is lost and due for
    /// retransmission (RTO, RFC 6298 5.4 / RFC 5681 3.1; Tahoe). With
    /// `clear_sack`, SACK information is discarded as RFC 2018 section 8
    /// asks after a timeout (the receiver may have reneged); SACK blocks
    /// arriving afterwards mark segments again.
    pub fn mark_all_lost(&mut self, clear_sack: bool) {
        for i in 0..self.segs.len() {
            self.modify(i, |s| {
                s.lost = true;
                s.retrans = false;
                if clear_sack {
                    s.sacked = false;
                }
            });
        }
        if clear_sack {
            self.high_sacked = 0;
        }
        self.lost_scanned_to = self.segs.back().map_or(0, |s| s.end);
    }

    /// Start of a new loss episode: forget which segments were retransmitted
    /// in the previous one (HighRxt restarts at HighACK).
    pub fn new_episode(&mut self) {
        for i in 0..self.segs.len() {
            if self.segs[i].retrans {
                self.modify(i, |s| s.retrans = false);
            }
        }
        self.lost_scanned_to = 0;
    }

    /// The lowest lost, unSACKed, not yet retransmitted segment (RFC 6675
    /// NextSeg rule 1; go-back-N order after an RTO).
    pub fn first_lost_pending(&mut self) -> Option<usize> {
        if self.lost_pending == 0 {
            return None;
        }
        let from = self.segs.partition_point(|s| s.start < self.pending_hint);
        let i = (from..self.segs.len()).find(|&i| self.segs[i].pending());
        debug_assert!(i.is_some(), "lost_pending > 0 but no pending segment at or above the hint");
        if let Some(i) = i {
            self.pending_hint = self.segs[i].start;
        }
        i
    }

    /// RFC 6675 NextSeg rule 3: the lowest unSACKed segment above HighRxt
    /// that is below the highest SACKed octet and not yet retransmitted.
    pub fn rule3_candidate(&self, high_rxt: u64) -> Option<usize> {
        let from = self.segs.partition_point(|s| s.start < high_rxt);
        (from..self.segs.len())
            .take_while(|&i| self.segs[i].end <= self.high_sacked)
            .find(|&i| !self.segs[i].sacked && !self.segs[i].retrans && !self.segs[i].lost)
    }

    /// Segment `i` is being retransmitted at `now`.
    pub fn on_retransmit(&mut self, i: usize, now: SimTime) {
        self.modify(i, |s| {
            s.retrans = true;
            s.ever_rtx = true;
            s.tx_count += 1;
            s.last_sent = now;
        });
    }

    /// Recompute every counter from scratch and compare (invariant check).
    pub fn check(&self) -> Result<(), String> {
        let pipe: u64 = self.segs.iter().map(|s| s.weight()).sum();
        let sacked: u64 = self.segs.iter().map(|s| s.sacked_len()).sum();
        let pending = self.segs.iter().filter(|s| s.pending()).count();
        if (pipe, sacked, pending) != (self.pipe, self.sacked_bytes, self.lost_pending) {
            return Err(format!(
                "scoreboard counters pipe/sacked/pending {}/{}/{} != recomputed {pipe}/{sacked}/{pending}",
                self.pipe, self.sacked_bytes, self.lost_pending
            ));
        }
        for w in self.segs.iter().collect::<Vec<_>>().windows(2) {
            if w[0].end != w[1].start {
                return Err(format!("scoreboard gap between {} and {}", w[0].end, w[1].start));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    const T: SimTime = SimTime::ZERO;
    const M: u64 = 1000;

    /// Ten 1000-byte segments starting at offset 1.
    fn board() -> Scoreboard {
        let mut b = Scoreboard::new();
        for k in 0..10 {
            b.push(SentSeg::new(1 + k * M, 1 + (k + 1) * M, false, T));
        }
        b
    }

    #[test]
    fn cumulative_ack_removes_and_reports_karn() {
        let mut b = board();
        b.on_retransmit(1, SimTime::from_millis(5));
        let a = b.ack_to(1 + 2 * M);
        assert_eq!(a.segments, 2);
        assert!(a.any_retransmitted);
        assert_eq!(a.newest_sent, Some(SimTime::from_millis(5)));
        assert_eq!(b.pipe(), 8 * M);
        b.check().unwrap();
        // partial ack of a segment trims it
        b.ack_to(1 + 2 * M + 300);
        assert_eq!(b.front().unwrap().start, 1 + 2 * M + 300);
        assert_eq!(b.pipe(), 8 * M - 300);
        b.check().unwrap();
    }

    #[test]
    fn sack_islost_and_pipe_follow_rfc6675() {
        let mut b = board();
        // segments 0 and 2 lost; 1, 3, 4, 5 SACKed
        let newly = b.apply_sack(&[(1 + M, 1 + 2 * M), (1 + 3 * M, 1 + 6 * M)]);
        assert_eq!(newly, 4 * M);
        assert_eq!(b.high_sacked(), 1 + 6 * M);
        // seg 0: 4 SACKed segments above -> lost; seg 2: 3 above -> lost;
        // seg 6: none above -> not lost
        assert!(b.is_lost(1, 3, 1000));
        assert!(b.is_lost(1 + 2 * M, 3, 1000));
        assert!(!b.is_lost(1 + 6 * M, 3, 1000));
        b.mark_lost_by_sack(3, 1000);
        assert_eq!(b.lost_pending(), 2);
        // pipe: 10 - 4 sacked - 2 lost = 4 segments
        assert_eq!(b.pipe(), 4 * M);
        assert_eq!(b.first_lost_pending(), Some(0));
        b.on_retransmit(0, T);
        assert_eq!(b.pipe(), 5 * M);
        assert_eq!(b.first_lost_pending(), Some(2));
        b.on_retransmit(2, T);
        assert_eq!(b.first_lost_pending(), None);
        // rule 3: nothing unSACKed below HighSACK above HighRxt = seg 2's end
        assert_eq!(b.rule3_candidate(1 + 3 * M), None);
        b.check().unwrap();
    }

    #[test]
    fn bytes_criterion_marks_with_two_large_sacked_segments() {
        let mut b = Scoreboard::new();
        b.push(SentSeg::new(1, 1001, false, T));
        b.push(SentSeg::new(1001, 3001, false, T));
        b.push(SentSeg::new(3001, 5001, false, T));
        b.apply_sack(&[(1001, 5001)]);
        // 4000 SACKed bytes > (3-1) * 1000
        assert!(b.is_lost(1, 3, 1000));
    }

    #[test]
    fn rule3_picks_unsacked_below_highest_sack() {
        let mut b = board();
        b.apply_sack(&[(1 + 4 * M, 1 + 5 * M)]);
        b.mark_lost_by_sack(3, 1000);
        assert_eq!(b.lost_pending(), 0, "one SACKed segment proves nothing");
        assert_eq!(b.rule3_candidate(1), Some(0));
        b.on_retransmit(0, T);
        assert_eq!(b.pipe(), 10 * M, "rule-3 retransmission counts twice");
        assert_eq!(b.rule3_candidate(1 + M), Some(1));
        b.check().unwrap();
    }

    #[test]
    fn go_back_n_clears_sack_and_marks_everything() {
        let mut b = board();
        b.apply_sack(&[(1 + 5 * M, 1 + 7 * M)]);
        b.mark_all_lost(true);
        assert_eq!(b.pipe(), 0);
        assert_eq!(b.lost_pending(), 10);
        assert_eq!(b.sacked_bytes(), 0);
        b.apply_sack(&[(1 + 5 * M, 1 + 7 * M)]);
        assert_eq!(b.lost_pending(), 8);
        let a = b.ack_to(1 + 10 * M);
        assert_eq!(a.segments, 10);
        assert_eq!((b.pipe(), b.lost_pending(), b.sacked_bytes()), (0, 0, 0));
        b.check().unwrap();
    }
}
