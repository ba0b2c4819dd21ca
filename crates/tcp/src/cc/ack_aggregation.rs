//! BBR's ACK-aggregation allowance ("extra_acked"): the data ACKs deliver
//! beyond what the bandwidth estimate predicts over an epoch, added to the
//! cwnd target so that bursts of ACKs (Wi-Fi's shared medium, ACK
//! thinning, delayed ACKs) do not starve the sender between them. Not in
//! BBR v1's draft (draft-cardwell-iccrg-bbr-congestion-control-00); Linux
//! added it to `tcp_bbr` in 4.19 and ns-3 3.37's `TcpBbr` has it
//! (`ExtraAcked`); draft-ietf-ccwg-bbr specifies the same estimator as
//! BBRUpdateACKAggregation. Facts only; no code was copied.
//!
//! Rules (Linux `tcp_bbr`'s constants):
//! - An epoch starts at an ACK; `expected = BtlBw x (now - epoch start)`.
//!   If the data acknowledged in the epoch so far is at most `expected`
//!   (the ACKs are not ahead of the estimate) the epoch restarts at this
//!   ACK with nothing counted; so it does when the epoch has counted
//!   2^20 segments (Linux), or a number of bytes set instead
//!   ([`AckAggregation::with_reset_bytes`]: ns-3 3.37's `TcpBbr` restarts
//!   at its `AckEpochAckedResetThresh`, 4096 bytes by default, so its
//!   allowance never exceeds about three segments).
//! - The ACK's newly delivered data (cumulative and SACKed) is added;
//!   `extra = acked in epoch - expected`, at most cwnd.
//! - The allowance is the maximum `extra` over two slots of 5 round trips
//!   each (a slot is cleared when it is reused: a window of 5 to 10 round
//!   trips).
//! - It enters the cwnd target only once the pipe is full (BtlBw found),
//!   with gain 1 and at most 100 ms of BtlBw.
use crate::rate::RateSample;
use wifitcp_core::{SimDur, SimTime};

/// Round trips per slot (Linux `bbr_extra_acked_win_rtts`).
pub const WIN_RTTS: u32 = 5;
/// Cap of the allowance, as time at BtlBw (Linux `bbr_extra_acked_max_us`).
pub const MAX_AGGR: SimDur = SimDur::from_millis(100);
/// An epoch that has counted this many segments restarts (Linux
/// `bbr_ack_epoch_acked_reset_thresh`).
pub const EPOCH_RESET_SEGMENTS: u64 = 1 << 20;

/// The estimator's state.
#[derive(Clone, Debug, Default)]
pub struct AckAggregation {
    /// An epoch restarts once it has counted this many bytes; 0: Linux's
    /// [`EPOCH_RESET_SEGMENTS`] segments.
    reset_bytes: u64,
    epoch_start: SimTime,
    epoch_acked: u64,
    slots: [u64; 2],
    slot: usize,
    win_rtts: u32,
}

impl AckAggregation {
    /// The estimator with epochs that restart at `reset_bytes` counted
    /// (0: Linux's 2^20 segments, as [`AckAggregation::default`]).
    pub fn with_reset_bytes(reset_bytes: u64) -> AckAggregation {
        AckAggregation { reset_bytes, ..AckAggregation::default() }
    }

    /// Account one ACK's rate sample; `round_start` is true on the first ACK
    /// of a round trip; `btlbw` in bytes per second; `cwnd` and `mss` in
    /// bytes.
    pub fn update(&mut self, rs: &RateSample, round_start: bool, btlbw: f64, cwnd: u64, mss: u64) {
        if rs.newly_delivered == 0 {
            return;
        }
        if round_start {
            self.win_rtts = (self.win_rtts + 1).min(31);
            if self.win_rtts >= WIN_RTTS {
                self.win_rtts = 0;
                self.slot ^= 1;
                self.slots[self.slot] = 0;
            }
        }
        let mut expected = (btlbw * rs.now.saturating_since(self.epoch_start).as_secs_f64()) as u64;
        let reset = if self.reset_bytes == 0 { EPOCH_RESET_SEGMENTS * mss } else { self.reset_bytes };
        if self.epoch_acked <= expected || self.epoch_acked + rs.newly_delivered >= reset {
            self.epoch_acked = 0;
            self.epoch_start = rs.now;
            expected = 0;
        }
        self.epoch_acked += rs.newly_delivered;
        let extra = (self.epoch_acked - expected.min(self.epoch_acked)).min(cwnd);
        self.slots[self.slot] = self.slots[self.slot].max(extra);
    }

    /// The allowance, bytes (before the 100 ms cap).
    pub fn extra_acked(&self) -> u64 {
        self.slots[0].max(self.slots[1])
    }

    /// What enters the cwnd target: the allowance within 100 ms of `btlbw`.
    pub fn cwnd_allowance(&self, btlbw: f64) -> u64 {
        self.extra_acked().min((btlbw * MAX_AGGR.as_secs_f64()) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sender::LossState;

    fn rs(now_us: u64, newly: u64) -> RateSample {
        RateSample {
            now: SimTime::from_micros(now_us),
            delivered_total: 0,
            prior_delivered: 0,
            delivered: 0,
            interval: SimDur::ZERO,
            is_app_limited: false,
            rtt: None,
            newly_delivered: newly,
            newly_lost: 0,
            prior_in_flight: 0,
            in_flight: 0,
            phase: LossState::Open,
        }
    }

    /// ACKs at exactly BtlBw leave one segment (each ACK restarts the
    /// epoch and counts whole); a stretch ACK of 10 segments after 10 ms of
    /// silence counts whole too (10), and ten more ACKs at the same instant
    /// are all ahead of the estimate (20).
    #[test]
    fn burst_beyond_the_estimate() {
        const MSS: u64 = 1000;
        let bw = 1e6; // 1 segment per ms
        let mut a = AckAggregation::default();
        for i in 1..=50 {
            a.update(&rs(i * 1000, MSS), false, bw, 100 * MSS, MSS);
        }
        assert_eq!(a.extra_acked(), MSS, "steady ACK clock");
        a.update(&rs(60_000, 10 * MSS), false, bw, 100 * MSS, MSS);
        assert_eq!(a.extra_acked(), 10 * MSS);
        for _ in 0..10 {
            a.update(&rs(60_000, MSS), false, bw, 100 * MSS, MSS);
        }
        assert_eq!(a.extra_acked(), 20 * MSS);
        // Capped at cwnd and at 100 ms of BtlBw.
        let mut b = AckAggregation::default();
        b.update(&rs(1000, MSS), false, bw, 100 * MSS, MSS);
        b.update(&rs(1000, 500 * MSS), false, bw, 300 * MSS, MSS);
        assert_eq!(b.extra_acked(), 300 * MSS);
        assert_eq!(b.cwnd_allowance(bw), 100 * MSS);
    }

    /// The maximum is forgotten after two slots of 5 round trips.
    #[test]
    fn window_of_five_to_ten_rounds() {
        const MSS: u64 = 1000;
        let bw = 1e6;
        let mut a = AckAggregation::default();
        a.update(&rs(1000, MSS), false, bw, 100 * MSS, MSS);
        a.update(&rs(1000, 20 * MSS), false, bw, 100 * MSS, MSS);
        assert!(a.extra_acked() >= 20 * MSS);
        let mut t = 1000;
        let mut rounds = 0;
        while a.extra_acked() >= 20 * MSS {
            t += 30_000; // later than the estimate: the epoch restarts
            a.update(&rs(t, MSS), true, bw, 100 * MSS, MSS);
            rounds += 1;
            assert!(rounds <= 10, "kept for more than 10 rounds");
        }
        assert_eq!(rounds, 10, "the slot is reused at the tenth round");
    }

    /// A byte threshold (ns-3's 4096) restarts the epoch before a burst
    /// can count more than it: ten segments at one instant leave 4 (the
    /// fifth would reach 4096) where Linux's rule leaves 10.
    #[test]
    fn byte_reset_threshold_bounds_the_allowance() {
        const MSS: u64 = 1000;
        let bw = 1e6;
        let burst = |mut a: AckAggregation| {
            a.update(&rs(1000, MSS), false, bw, 100 * MSS, MSS);
            for _ in 0..9 {
                a.update(&rs(1000, MSS), false, bw, 100 * MSS, MSS);
            }
            a.extra_acked()
        };
        assert_eq!(burst(AckAggregation::default()), 10 * MSS);
        assert_eq!(burst(AckAggregation::with_reset_bytes(0)), 10 * MSS);
        assert_eq!(burst(AckAggregation::with_reset_bytes(4096)), 4 * MSS);
    }
}
