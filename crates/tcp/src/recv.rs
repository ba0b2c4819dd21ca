//! The receiving half of a connection: reassembly, cumulative ACK, SACK block
//! generation, advertised window and the delayed-ACK decision.
//!
//! Positions are absolute offsets in the peer's sequence space (the peer's
//! SYN is offset 0, its first data byte offset 1; see [`crate::seq`]).
//!
//! Invariants:
//! - `rcv_nxt` only grows; every out-of-order range lies strictly above it;
//!   the ranges are sorted, disjoint and not adjacent (adjacent ones merge).
//! - The application receives an in-order byte stream without gaps or
//!   duplicates: each delivered range starts exactly where the previous one
//!   ended (checked on every delivery; see [`Receiver::check_stream_integrity`]).
//! - The right edge of the advertised window never moves left (RFC 9293
//!   3.8.6.2.2 / RFC 7323 2.4: a receiver should not shrink the window).
use crate::config::DelayedAck;
use crate::seq::seq_ge;
use wifitcp_core::SimTime;

/// A contiguous block of out-of-order data held by the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OooRange {
    start: u64,
    end: u64,
    /// Recency stamp: larger = touched by a more recent segment (RFC 2018
    /// section 4 block ordering).
    touched: u64,
}

/// How urgently an arriving segment must be acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckNeed {
    /// Nothing to acknowledge (e.g. a pure ACK arrived).
    None,
    /// Acknowledge within the delayed-ACK timer.
    Delayed,
    /// Acknowledge now.
    Now,
}

/// What one arriving segment did to the receive side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxOutcome {
    pub ack: AckNeed,
    /// In-order payload bytes handed to the application by this segment.
    pub delivered: u64,
    /// The peer's FIN was consumed by this segment (in order).
    pub fin_consumed: bool,
}

#[derive(Clone, Debug)]
pub struct Receiver {
    rcv_nxt: u64,
    ooo: Vec<OooRange>,
    ooo_bytes: u64,
    touch: u64,
    fin_at: Option<u64>,
    fin_consumed: bool,
    buf: u64,
    auto_consume: bool,
    unread: u64,
    delivered_end: u64,
    delivered_bytes: u64,
    integrity_error: Option<String>,
    adv_right: u64,
    wscale: u8,
    mss: u32,
    delack: Option<DelayedAck>,
    unacked_segs: u32,
    delack_deadline: Option<SimTime>,
    ts_recent: Option<u32>,
    last_ack_sent: u64,
    /// Payload bytes received that had already been received (duplicates).
    pub dup_bytes: u64,
    /// Segments that arrived above `rcv_nxt`.
    pub ooo_segments: u64,
}

impl Receiver {
    /// A receiver whose peer's SYN (offset 0) has been consumed.
    pub fn new(buf: u64, mss: u32, auto_consume: bool, delack: Option<DelayedAck>) -> Self {
        Receiver {
            rcv_nxt: 1,
            ooo: Vec::new(),
            ooo_bytes: 0,
            touch: 0,
            fin_at: None,
            fin_consumed: false,
            buf,
            auto_consume,
            unread: 0,
            delivered_end: 1,
            delivered_bytes: 0,
            integrity_error: None,
            adv_right: 1,
            wscale: 0,
            mss,
            delack,
            unacked_segs: 0,
            delack_deadline: None,
            ts_recent: None,
            last_ack_sent: 0,
            dup_bytes: 0,
            ooo_segments: 0,
        }
    }

    /// Window-scale shift we apply to our advertised window (RFC 7323 2.3).
    pub fn set_wscale(&mut self, shift: u8) {
        self.wscale = shift.min(14);
    }
    pub fn wscale(&self) -> u8 {
        self.wscale
    }
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
    pub fn delivered_bytes(&self) -> u64 {
        self.delivered_bytes
    }
    pub fn unread(&self) -> u64 {
        self.unread
    }
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo_bytes
    }
    pub fn fin_consumed(&self) -> bool {
        self.fin_consumed
    }
    pub fn delack_deadline(&self) -> Option<SimTime> {
        self.delack_deadline
    }
    pub fn ts_recent(&self) -> Option<u32> {
        self.ts_recent
    }

    /// RFC 7323 section 4.3 (3): if SEG.TSval >= TS.Recent and SEG.SEQ <=
    /// Last.ACK.sent, remember SEG.TSval as TS.Recent (to be echoed).
    pub fn note_tsval(&mut self, seg_seq: u64, tsval: u32) {
        let newer = match self.ts_recent {
            None => true,
            Some(r) => seq_ge(tsval, r),
        };
        if newer && seg_seq <= self.last_ack_sent {
            self.ts_recent = Some(tsval);
        }
    }

    /// The first TSval seen (from the SYN) initialises TS.Recent.
    pub fn init_ts_recent(&mut self, tsval: u32) {
        self.ts_recent = Some(tsval);
    }

    /// An ACK carrying `ack` (absolute) was sent: the delayed-ACK state is
    /// cleared (any ACK, piggybacked or not, acknowledges everything).
    pub fn on_ack_sent(&mut self, ack: u64) {
        self.unacked_segs = 0;
        self.delack_deadline = None;
        self.last_ack_sent = self.last_ack_sent.max(ack);
    }

    /// Process the sequence-space part of an arriving segment: payload
    /// `[start, start + len)` and, if `fin`, the FIN right after it.
    pub fn on_data(&mut self, now: SimTime, start: u64, len: u64, fin: bool) -> RxOutcome {
        let mut out = RxOutcome { ack: AckNeed::None, delivered: 0, fin_consumed: false };
        if len == 0 && !fin {
            // A pure ACK is not acknowledged; a zero-length probe below the
            // window (keep-alive / zero-window probe) gets an immediate ACK
            // (RFC 9293 3.10.7.4: unacceptable segment -> send ACK).
            if start < self.rcv_nxt {
                out.ack = AckNeed::Now;
            }
            return out;
        }
        let end = start + len;
        let right = self.adv_right.max(self.rcv_nxt);
        // Duplicate (entirely old) segment: immediate ACK (RFC 5681 4.2 says
        // an out-of-order segment must be acked at once; an old duplicate
        // is one, and it lets the sender see the cumulative point).
        let fin_old = fin && self.fin_consumed;
        if end <= self.rcv_nxt && (!fin || fin_old) {
            self.dup_bytes += len;
            out.ack = AckNeed::Now;
            return out;
        }
        // Trim to the window (RFC 9293 3.10.7.4); data beyond it is dropped
        // and so is a FIN that follows dropped data.
        let s = start.max(self.rcv_nxt);
        // (A bare FIN exactly at rcv_nxt is accepted even with a zero window.)
        if s >= right && !(len == 0 && s == self.rcv_nxt) {
            out.ack = AckNeed::Now;
            return out;
        }
        self.dup_bytes += s - start;
        let e = end.min(right);
        let fin = fin && e == end;
        let had_gap = !self.ooo.is_empty();
        if s == self.rcv_nxt {
            let old = self.rcv_nxt;
            self.rcv_nxt = e;
            self.absorb_ooo();
            out.delivered = self.deliver(old, self.rcv_nxt);
            out.ack = if had_gap { AckNeed::Now } else { self.in_order_ack_need(now) };
        } else {
            if e > s {
                self.insert_ooo(s, e);
            }
            self.ooo_segments += 1;
            out.ack = AckNeed::Now;
        }
        if fin {
            self.fin_at = Some(e);
        }
        if let Some(f) = self.fin_at {
            if !self.fin_consumed && f == self.rcv_nxt {
                self.fin_consumed = true;
                self.rcv_nxt += 1;
                out.fin_consumed = true;
                // RFC 9293 3.10.7.4 eighth: the FIN is acknowledged at once.
                out.ack = AckNeed::Now;
            }
        }
        out
    }

    /// Delayed-ACK decision for an in-order segment that filled no gap
    /// (RFC 1122 4.2.3.2, RFC 5681 4.2). Every segment counts, full-sized
    /// or not (ns-2 behaviour; Linux counts bytes instead).
    fn in_order_ack_need(&mut self, now: SimTime) -> AckNeed {
        let Some(d) = self.delack else { return AckNeed::Now };
        self.unacked_segs += 1;
        if self.unacked_segs >= d.count {
            return AckNeed::Now;
        }
        if self.delack_deadline.is_none() {
            self.delack_deadline = Some(now + d.timeout);
        }
        AckNeed::Delayed
    }

    fn insert_ooo(&mut self, s: u64, e: u64) {
        self.touch += 1;
        // Ranges that overlap or touch [s, e) merge with it.
        let lo = self.ooo.partition_point(|r| r.end < s);
        let hi = self.ooo.partition_point(|r| r.start <= e);
        let mut merged = OooRange { start: s, end: e, touched: self.touch };
        for r in &self.ooo[lo..hi] {
            merged.start = merged.start.min(r.start);
            merged.end = merged.end.max(r.end);
            self.ooo_bytes -= r.end - r.start;
        }
        self.ooo_bytes += merged.end - merged.start;
        self.ooo.splice(lo..hi, std::iter::once(merged));
    }

    /// Move ranges that `rcv_nxt` has reached into the in-order stream.
    fn absorb_ooo(&mut self) {
        while let Some(r) = self.ooo.first().copied() {
            if r.start > self.rcv_nxt {
                break;
            }
            self.ooo.remove(0);
            self.ooo_bytes -= r.end - r.start;
            self.rcv_nxt = self.rcv_nxt.max(r.end);
        }
    }

    fn deliver(&mut self, from: u64, to: u64) -> u64 {
        if from != self.delivered_end && self.integrity_error.is_none() {
            self.integrity_error =
                Some(format!("delivered range starts at {from}, previous ended at {}", self.delivered_end));
        }
        debug_assert_eq!(from, self.delivered_end, "receiver delivered a gap or a duplicate");
        debug_assert!(to >= from);
        self.delivered_end = to;
        let n = to - from;
        self.delivered_bytes += n;
        if !self.auto_consume {
            self.unread += n;
        }
        n
    }

    /// The application reads up to `max` bytes (only when `auto_consume`
    /// is off). Returns the bytes read and whether the window opened enough
    /// to warrant a window update (RFC 9293 3.8.6.2.2).
    pub fn read(&mut self, max: u64) -> (u64, bool) {
        // (`unread` may exceed the buffer by less than one window-scale
        // unit: `window` rounds a kept right edge up.)
        let n = self.unread.min(max);
        self.unread -= n;
        let avail = self.buf.saturating_sub(self.unread);
        let cur = self.adv_right.saturating_sub(self.rcv_nxt);
        (n, n > 0 && avail >= cur + self.sws_threshold())
    }

    fn sws_threshold(&self) -> u64 {
        (self.buf / 2).min(self.mss as u64).max(1)
    }

    /// The window to advertise now, in bytes, before scaling; records the
    /// new right edge. Receiver silly-window-syndrome avoidance (RFC 9293
    /// 3.8.6.2.2): the right edge moves only when it can move by at least
    /// min(buffer/2, MSS), and never moves left.
    ///
    /// The window is the free buffer *including* the space that out-of-order
    /// data already occupies: those bytes lie inside [rcv_nxt, right edge),
    /// so subtracting them again would double-count and shrink the window
    /// (the sender may always fill the holes below them).
    pub fn window(&mut self) -> u64 {
        let avail = self.buf.saturating_sub(self.unread);
        let cur = self.adv_right.saturating_sub(self.rcv_nxt);
        let mut w = if avail >= cur + self.sws_threshold() || avail == self.buf { avail } else { cur };
        // Rounding to the scale unit must not move the right edge left:
        // round up when keeping the old edge (Linux does the same); at most
        // 2^wscale - 1 bytes beyond the buffer.
        let unit = 1u64 << self.wscale;
        let max = 65_535u64 << self.wscale;
        if w < cur {
            w = cur;
        }
        w = w.min(max);
        let rounded = if w == cur { w.div_ceil(unit) * unit } else { w / unit * unit };
        let rounded = rounded.min(max);
        self.adv_right = self.adv_right.max(self.rcv_nxt + rounded);
        rounded
    }

    /// The 16-bit window field value for the window just computed.
    pub fn window_field(&mut self) -> u16 {
        let w = self.window();
        (w >> self.wscale).min(65_535) as u16
    }

    /// The unscaled window for SYN segments (RFC 7323 2.2: the window field
    /// of a SYN is never scaled).
    pub fn syn_window_field(&mut self) -> u16 {
        let w = self.buf.min(65_535);
        self.adv_right = self.adv_right.max(self.rcv_nxt + w);
        w as u16
    }

    /// SACK blocks to report, most recent first (RFC 2018 section 4: the
    /// first block holds the most recently received segment, the others
    /// repeat the most recently reported ones), at most `max`.
    pub fn sack_blocks(&self, max: usize) -> Vec<(u64, u64)> {
        let mut v: Vec<&OooRange> = self.ooo.iter().collect();
        v.sort_by_key(|r| std::cmp::Reverse(r.touched));
        v.into_iter().take(max).map(|r| (r.start, r.end)).collect()
    }

    /// Verify that delivery was one gap-free, duplicate-free in-order stream
    /// ending at the cumulative acknowledgement point.
    pub fn check_stream_integrity(&self) -> Result<(), String> {
        if let Some(e) = &self.integrity_error {
            return Err(e.clone());
        }
        let data_end = self.rcv_nxt - self.fin_consumed as u64;
        if self.delivered_end != data_end {
            return Err(format!("delivered up to {} but rcv_nxt data end is {}", self.delivered_end, data_end));
        }
        if self.delivered_bytes != self.delivered_end - 1 {
            return Err(format!("delivered {} bytes, stream end {}", self.delivered_bytes, self.delivered_end));
        }
        let sum: u64 = self.ooo.iter().map(|r| r.end - r.start).sum();
        if sum != self.ooo_bytes {
            return Err(format!("out-of-order byte count {} != {}", self.ooo_bytes, sum));
        }
        for w in self.ooo.windows(2) {
            if w[0].end >= w[1].start {
                return Err("out-of-order ranges overlap or touch".into());
            }
        }
        if self.ooo.first().is_some_and(|r| r.start <= self.rcv_nxt) {
            return Err("out-of-order range at or below rcv_nxt".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx() -> Receiver {
        let mut r = Receiver::new(100_000, 1000, true, Some(DelayedAck::default()));
        r.window();
        r
    }
    const T: SimTime = SimTime::ZERO;

    #[test]
    fn in_order_delivery_and_delayed_ack() {
        let mut r = rx();
        let o = r.on_data(T, 1, 1000, false);
        assert_eq!(o.delivered, 1000);
        assert_eq!(o.ack, AckNeed::Delayed);
        assert_eq!(r.delack_deadline(), Some(SimTime::from_millis(200)));
        let o = r.on_data(T, 1001, 1000, false);
        assert_eq!(o.ack, AckNeed::Now, "every second segment");
        r.on_ack_sent(r.rcv_nxt());
        assert_eq!(r.delack_deadline(), None);
        assert_eq!(r.rcv_nxt(), 2001);
        r.check_stream_integrity().unwrap();
    }

    #[test]
    fn out_of_order_gap_fill_and_sack_order() {
        let mut r = rx();
        // segments 1..=5 of 1000 bytes; 2 and 4 missing
        assert_eq!(r.on_data(T, 1, 1000, false).ack, AckNeed::Delayed);
        assert_eq!(r.on_data(T, 2001, 1000, false).ack, AckNeed::Now);
        assert_eq!(r.sack_blocks(4), vec![(2001, 3001)]);
        assert_eq!(r.on_data(T, 4001, 1000, false).ack, AckNeed::Now);
        // most recent first (RFC 2018 4)
        assert_eq!(r.sack_blocks(4), vec![(4001, 5001), (2001, 3001)]);
        // re-touching the older block moves it first
        assert_eq!(r.on_data(T, 3001, 500, false).ack, AckNeed::Now);
        assert_eq!(r.sack_blocks(4), vec![(2001, 3501), (4001, 5001)]);
        assert_eq!(r.ooo_bytes(), 2500);
        // filling the first gap: immediate ACK, absorbs the first block
        let o = r.on_data(T, 1001, 1000, false);
        assert_eq!(o.ack, AckNeed::Now);
        assert_eq!(o.delivered, 2500);
        assert_eq!(r.rcv_nxt(), 3501);
        assert_eq!(r.sack_blocks(4), vec![(4001, 5001)]);
        // duplicate: immediate ACK, counted, nothing delivered
        let o = r.on_data(T, 1001, 1000, false);
        assert_eq!((o.ack, o.delivered), (AckNeed::Now, 0));
        assert_eq!(r.dup_bytes, 1000);
        // partial overlap is trimmed
        let o = r.on_data(T, 3001, 1000, false);
        assert_eq!(o.delivered, 1500);
        assert_eq!(r.rcv_nxt(), 5001);
        assert_eq!(r.delivered_bytes(), 5000);
        r.check_stream_integrity().unwrap();
    }

    #[test]
    fn sack_block_limit_keeps_most_recent() {
        let mut r = rx();
        for k in 0..6u64 {
            r.on_data(T, 1 + 2000 * (k + 1), 1000, false);
        }
        let b = r.sack_blocks(3);
        assert_eq!(b, vec![(12_001, 13_001), (10_001, 11_001), (8001, 9001)]);
    }

    #[test]
    fn fin_out_of_order_is_consumed_when_reached() {
        let mut r = rx();
        let o = r.on_data(T, 1001, 500, true);
        assert!(!o.fin_consumed);
        let o = r.on_data(T, 1, 1000, false);
        assert!(o.fin_consumed);
        assert_eq!(r.rcv_nxt(), 1502);
        assert_eq!(r.delivered_bytes(), 1500);
        r.check_stream_integrity().unwrap();
        // retransmitted FIN is an old duplicate
        assert_eq!(r.on_data(T, 1501, 0, true).ack, AckNeed::Now);
    }

    #[test]
    fn window_is_buffer_minus_unread_and_never_shrinks() {
        let mut r = Receiver::new(4000, 1000, false, None);
        assert_eq!(r.window(), 4000);
        r.on_data(T, 1, 1000, false);
        // unread 1000: right edge stays at 4001
        assert_eq!(r.window(), 3000);
        // out-of-order data does not shrink the window
        r.on_data(T, 2001, 1000, false);
        assert_eq!(r.window(), 3000);
        r.on_data(T, 1001, 1000, false);
        assert_eq!(r.window(), 1000);
        let (n, update) = r.read(300);
        assert_eq!((n, update), (300, false), "below SWS threshold");
        assert_eq!(r.window(), 1000);
        let (_, update) = r.read(2700);
        assert!(update);
        assert_eq!(r.window(), 4000);
        assert_eq!(r.delivered_bytes(), 3000);
        r.check_stream_integrity().unwrap();
    }

    #[test]
    fn data_beyond_window_is_trimmed() {
        let mut r = Receiver::new(2000, 1000, true, None);
        r.window();
        let o = r.on_data(T, 3001, 1000, false);
        assert_eq!(o.ack, AckNeed::Now);
        assert_eq!(r.ooo_bytes(), 0);
        r.on_data(T, 1501, 1000, false);
        assert_eq!(r.ooo_bytes(), 500, "trimmed at the right edge 2001");
    }

    #[test]
    fn scaled_window_rounds_without_shrinking() {
        let mut r = Receiver::new(1 << 20, 1460, true, None);
        r.set_wscale(5);
        let w = r.window_field();
        assert_eq!(w as u64, (1 << 20) >> 5);
        r.on_data(T, 1, 100, false);
        let w2 = r.window();
        assert!(r.rcv_nxt() + w2 > (1 << 20), "right edge kept");
    }
}
