//! Delivery-rate estimation (Cheng, Cardwell, Yeganeh, Jacobson,
//! draft-cheng-iccrg-delivery-rate-estimation-00, "Delivery Rate
//! Estimation"; the mechanism of Linux's `tcp_rate.c`), which BBR
//! (Cardwell et al., ACM Queue 2016, "Delivery rate") reads as its
//! bandwidth samples.
//!
//! The connection keeps `delivered` (bytes delivered so far, cumulatively
//! acknowledged or SACKed), `delivered_time` (when `delivered` last grew)
//! and `first_sent_time` (send time of the newest packet whose delivery was
//! last counted). Every transmission stamps its packet with these three
//! values and whether the sender was application-limited (draft section
//! 3.2, "Transmitting a data packet"). When packets are delivered, the
//! packet sent last among them gives the sample (3.3, "Upon receiving an
//! ACK"): `delivered` over the larger of its send interval
//! (`P.sent_time - P.first_sent_time`) and its ACK interval
//! (`now - P.delivered_time`). A sample whose interval is shorter than the
//! connection's minimum RTT is discarded (3.3, as Linux does: a shorter
//! interval cannot span a round trip and overestimates).
//!
//! Application-limited marking (draft 3.4): when the sender has nothing to
//! send while cwnd would allow it, `app_limited` becomes the delivered
//! count at which the bubble leaves the pipe (`delivered + in_flight`, at
//! least 1); packets sent meanwhile carry the mark, and it clears once
//! `delivered` passes it.
//!
//! Deviations: byte counts, not packet counts (the simulator's window is in
//! bytes); the minimum RTT used for the validity check is the smallest RTT
//! sample of the connection's life (Linux keeps a 5-minute windowed
//! minimum; runs here are shorter). A packet counts once in `delivered`
//! even if an RTO forgets its SACK (RFC 2018 section 8, which Linux does
//! only on evidence of reneging) and it is retransmitted and acknowledged
//! again: counting it twice gave bandwidth samples three times the
//! bottleneck's after an RTO.
use wifitcp_core::{SimDur, SimTime};

/// What a transmission stamps on its packet (draft 3.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxStamp {
    /// `C.delivered` when the packet was sent.
    pub delivered: u64,
    /// `C.delivered_time` when the packet was sent.
    pub delivered_time: SimTime,
    /// `C.first_sent_time` when the packet was sent.
    pub first_sent_time: SimTime,
    /// Sent while the connection was application-limited.
    pub app_limited: bool,
    /// The packet's delivery has been counted (it was SACKed): it counts
    /// once, whatever happens to it later (Linux clears the stamp of a
    /// SACKed packet for the same reason).
    pub counted: bool,
}

/// One delivery-rate sample and what the ACK did, as the connection hands
/// it to a controller that reads rate samples
/// ([`crate::cc::CongestionControl::on_rate_sample`]); Linux's `struct
/// rate_sample` with byte counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateSample {
    pub now: SimTime,
    /// `C.delivered` after this ACK (bytes delivered in the connection's
    /// life).
    pub delivered_total: u64,
    /// `C.delivered` when the sampled packet was sent (`P.delivered`):
    /// round trips are counted on it (BBR's round counting).
    pub prior_delivered: u64,
    /// Bytes delivered over `interval` (0 when there is no valid sample).
    pub delivered: u64,
    /// The sampling interval; zero when there is no valid sample.
    pub interval: SimDur,
    /// The sampled packet was sent while application-limited.
    pub is_app_limited: bool,
    /// The RTT sample of this ACK, if any (Karn's rule or timestamps).
    pub rtt: Option<SimDur>,
    /// Bytes newly delivered by this ACK (cumulatively acknowledged or
    /// SACKed: Linux's `acked_sacked`).
    pub newly_delivered: u64,
    /// Bytes newly marked lost while this ACK was processed.
    pub newly_lost: u64,
    /// Bytes in the network before and after the ACK (RFC 6675 pipe).
    pub prior_in_flight: u64,
    pub in_flight: u64,
    /// The sender's loss-recovery state after the ACK.
    pub phase: crate::sender::LossState,
}

impl RateSample {
    /// Delivery rate in bytes per second, if the sample is valid.
    pub fn rate_bps(&self) -> Option<f64> {
        (self.interval.as_nanos() > 0 && self.delivered > 0)
            .then(|| self.delivered as f64 * 1e9 / self.interval.as_nanos() as f64)
    }
}

/// The connection's delivery-rate state (`C.*` of the draft) and the
/// sample being built from one ACK.
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    pub delivered: u64,
    pub delivered_time: SimTime,
    pub first_sent_time: SimTime,
    /// 0, or the `delivered` count at which application-limited marking ends.
    pub app_limited: u64,
    min_rtt: Option<SimDur>,
    // the sample under construction (draft 3.3 UpdateRateSample)
    has_prior: bool,
    prior_delivered: u64,
    prior_time: SimTime,
    send_elapsed: SimDur,
    is_app_limited: bool,
    newly: u64,
}

impl RateSampler {
    /// A packet is (re)transmitted at `now`; `idle`: nothing was in flight
    /// before it (draft 3.2: the send and ACK intervals restart).
    /// `counted`: the packet's earlier transmission was already counted
    /// as delivered.
    pub fn on_send(&mut self, now: SimTime, idle: bool, counted: bool) -> TxStamp {
        if idle {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        TxStamp {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            app_limited: self.app_limited != 0,
            counted,
        }
    }

    /// A packet of `len` bytes, last sent at `sent`, is delivered (draft
    /// 3.3: the most recently sent of an ACK's packets gives the sample).
    /// A packet already counted is skipped (see [`TxStamp::counted`]).
    pub fn on_delivered(&mut self, tx: &mut TxStamp, sent: SimTime, len: u64) {
        if std::mem::replace(&mut tx.counted, true) {
            return;
        }
        self.delivered += len;
        self.newly += len;
        if !self.has_prior || tx.delivered > self.prior_delivered {
            self.has_prior = true;
            self.prior_delivered = tx.delivered;
            self.prior_time = tx.delivered_time;
            self.is_app_limited = tx.app_limited;
            self.send_elapsed = sent.saturating_since(tx.first_sent_time);
            self.first_sent_time = sent;
        }
    }

    /// An RTT sample (for the validity check's minimum RTT).
    pub fn on_rtt(&mut self, rtt: SimDur) {
        self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
    }

    /// The sender has nothing to send although cwnd allows it (draft 3.4).
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    /// Close the ACK's sample (draft 3.3, GenerateRateSample): returns
    /// (prior_delivered, delivered over the interval, interval,
    /// app-limited, bytes newly delivered) and resets the construction.
    pub fn generate(&mut self, now: SimTime) -> (u64, u64, SimDur, bool, u64) {
        let newly = std::mem::take(&mut self.newly);
        if newly > 0 {
            self.delivered_time = now;
        }
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        if !std::mem::take(&mut self.has_prior) {
            return (self.prior_delivered, 0, SimDur::ZERO, self.is_app_limited, newly);
        }
        let ack_elapsed = now.saturating_since(self.prior_time);
        let interval = self.send_elapsed.max(ack_elapsed);
        let delivered = self.delivered - self.prior_delivered;
        if interval.as_nanos() == 0 || self.min_rtt.is_some_and(|m| interval < m) {
            return (self.prior_delivered, 0, SimDur::ZERO, self.is_app_limited, newly);
        }
        (self.prior_delivered, delivered, interval, self.is_app_limited, newly)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    /// A synthetic ACK sequence: an idle connection sends a window of 10
    /// packets of 1000 bytes at t = 0..9 ms; the path returns their ACKs
    /// 100 ms after sending, and every ACK releases one new packet (an ACK
    /// clock). Every packet of the second window, sent at 100 + j ms with
    /// delivered = 1000 (j + 1), is acknowledged at 200 + j ms when
    /// delivered has grown by 10 packets: 10 000 bytes over max(send
    /// interval 100 ms, ACK interval 100 ms), the window-limited rate
    /// cwnd / RTT = 100 kB/s. The first window's samples start from the
    /// idle restart (delivered 0 at t = 0).
    #[test]
    fn a_synthetic_ack_sequence_gives_cwnd_over_rtt() {
        let mut r = RateSampler::default();
        let mut inflight: std::collections::VecDeque<(TxStamp, SimTime)> =
            (0..10).map(|i| (r.on_send(ms(i), i == 0, false), ms(i))).collect();
        assert!(inflight.iter().all(|(s, _)| s.delivered == 0 && s.first_sent_time == ms(0)));
        let mut samples = vec![];
        for k in 0..30u64 {
            let (mut tx, sent) = inflight.pop_front().unwrap();
            let now = sent + SimDur::from_millis(100);
            r.on_rtt(SimDur::from_millis(100));
            r.on_delivered(&mut tx, sent, 1000);
            let (prior, d, iv, app, newly) = r.generate(now);
            assert_eq!((prior, newly, app), (tx.delivered, 1000, false), "ACK {k}");
            samples.push(d as f64 * 1e9 / iv.as_nanos() as f64);
            inflight.push_back((r.on_send(now, false, false), now));
        }
        // first window: 1000 (k + 1) bytes since t = 0, over 100 + k ms
        assert_eq!(samples[0], 1000.0 * 1e9 / 100e6);
        assert!((samples[9] - 10_000.0 * 1e9 / 109e6).abs() < 1e-6, "{}", samples[9]);
        for (k, s) in samples.iter().enumerate().skip(10) {
            assert!((s - 100_000.0).abs() < 1e-6, "ACK {k}: {s}");
        }
    }

    #[test]
    fn short_intervals_are_discarded_and_app_limited_marks_clear() {
        let mut r = RateSampler::default();
        r.on_rtt(SimDur::from_millis(50));
        let mut tx = r.on_send(ms(0), true, false);
        r.on_delivered(&mut tx, ms(0), 1000);
        let (_, d, iv, _, newly) = r.generate(ms(10));
        assert_eq!((d, iv, newly), (0, SimDur::ZERO, 1000), "10 ms < min RTT 50 ms: no sample");
        r.mark_app_limited(3000);
        assert_eq!(r.app_limited, 4000);
        let tx = r.on_send(ms(20), false, false);
        assert!(tx.app_limited);
        r.on_delivered(&mut tx.clone(), ms(20), 1000);
        let (_, _, _, app, _) = r.generate(ms(100));
        assert!(app, "a packet sent while app-limited gives an app-limited sample");
        assert_eq!(r.app_limited, 4000, "delivered 2000 <= 4000: the mark holds");
        let mut again = tx;
        r.on_delivered(&mut again, ms(20), 1000);
        r.on_delivered(&mut again, ms(20), 1000);
        r.generate(ms(105));
        assert_eq!(r.delivered, 3000, "a packet counts once");
        for _ in 0..2 {
            r.on_delivered(&mut tx.clone(), ms(20), 1000);
        }
        r.generate(ms(110));
        assert_eq!(r.app_limited, 0, "delivered 5000 > 4000: the bubble has left");
    }
}
