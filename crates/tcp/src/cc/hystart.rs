//! HyStart: leaving slow start before the first loss (Ha & Rhee, "Taming
//! the elephants: New TCP slow start", Computer Networks 55(9), 2011; the
//! hybrid slow start of Linux's `tcp_cubic` and of ns-3 3.37's `TcpCubic`).
//! Used by [`super::cubic`]. Facts only; no code was copied.
//!
//! # Rules (one rule set, two published threshold sets)
//! In slow start, once cwnd is at least `low_window` segments (16 in Linux
//! and ns-3), every ACK with an RTT sample is checked against two signals;
//! the first that fires ends slow start by setting `ssthresh = cwnd`
//! (Linux and ns-3 alike), and HyStart stays silent until the next
//! retransmission timeout (both reset it, and the minimum delay, on
//! entering the Loss state).
//! - **ACK train**: ACKs of one round that arrive at most `ack_delta`
//!   (2 ms) after the previous one form a train; if the train has lasted
//!   longer than `train_threshold` since the round began, the window fills
//!   the path. An ACK more than 2 ms after the previous one breaks the
//!   train for the rest of the round.
//! - **Delay increase**: `curr_rtt` is the minimum RTT of the round's
//!   samples; from the `min_samples`-th sample (8) on, slow start ends if
//!   `curr_rtt > delay_min + delay_threshold`, `delay_min` being the
//!   minimum RTT of the connection.
//! - A round starts at the first ACK beyond the `snd_nxt` of the previous
//!   round's start (Linux: `after(ack, end_seq)`); the ACK that completes a
//!   round is still checked against the round it completes (both check in
//!   `pkts_acked` before `cong_avoid` resets the round).
//!
//! Thresholds ([`HyStartThresholds`]):
//! - `Linux` (tcp_cubic.c as of Linux 5.x-6.x, the default): delay
//!   threshold `clamp(delay_min / 8, 4 ms, 16 ms)`; ACK-train threshold
//!   `(delay_min + ack_delay) / 2` for a sender that does not pace, with
//!   `ack_delay = min(1 ms, 4 x 64 KB / pacing rate)`, which is 1 ms at the
//!   rates of a Wi-Fi path (the pacing rate would have to exceed 262 MB/s);
//!   `min_samples` counts samples but `curr_rtt` keeps taking the minimum
//!   of all the round's samples.
//! - `Ns3` (ns-3 3.37 `TcpCubic`'s defaults): delay threshold
//!   `clamp(delay_min, HyStartDelayMin 4 ms, HyStartDelayMax 1000 ms)`
//!   (the whole minimum delay, not an eighth of it); ACK-train threshold
//!   `delay_min`; `curr_rtt` is the minimum of the round's first 8 samples
//!   only; and its samples are not the ACK's RTT measurement but the
//!   socket's smoothed RTT after it (ns-3's `PktsAcked` receives
//!   `m_lastRtt`, which `TcpSocketBase` sets to its `RttEstimator`'s
//!   estimate), so `delay_min` is the least smoothed RTT and a rise shows
//!   a few ACKs later. [`super::cubic`] hands HyStart the RFC 6298 SRTT in
//!   this mode.
//!
//! RFC 9406's HyStart++ (Conservative Slow Start after the exit) is a
//! different rule set and is not modelled.
//!
//! # Round detection
//! The controller trait gives no sequence numbers; rounds are tracked in
//! acknowledged-bytes coordinates by [`super::vegas::RoundTracker`] (its
//! `snd_nxt` is `snd_una + prior_in_flight` at the round's first ACK).
use super::vegas::RoundTracker;
use wifitcp_core::config::KeyType;
use wifitcp_core::schema::Ty;
use wifitcp_core::{SimDur, SimTime};

/// Which HyStart signals may end slow start (`[tcp.cubic] hystart`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HyStartMode {
    /// ACK train and delay increase (Linux's `hystart_detect` 3, ns-3's
    /// `HyStartDetect` BOTH: the default of both).
    #[default]
    Both,
    /// Delay increase only.
    Delay,
    /// ACK train only.
    AckTrain,
    /// No HyStart: slow start ends at ssthresh or the first loss.
    Off,
}

impl KeyType for HyStartMode {
    const TY: Ty = Ty::Str;
}

impl HyStartMode {
    fn train(self) -> bool {
        matches!(self, HyStartMode::Both | HyStartMode::AckTrain)
    }
    fn delay(self) -> bool {
        matches!(self, HyStartMode::Both | HyStartMode::Delay)
    }
}

/// The threshold set (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HyStartThresholds {
    /// Linux's `tcp_cubic` (delay_min / 8 within 4-16 ms; train half the minimum delay).
    #[default]
    Linux,
    /// ns-3 3.37 `TcpCubic` (delay_min within 4-1000 ms; train the minimum delay).
    Ns3,
}

impl KeyType for HyStartThresholds {
    const TY: Ty = Ty::Str;
}

/// ACKs at most this far apart form a train (Linux `hystart_ack_delta_us`
/// 2000, ns-3 `HyStartAckDelta` 2 ms).
pub const ACK_DELTA: SimDur = SimDur::from_millis(2);
/// Samples before the delay check (Linux `HYSTART_MIN_SAMPLES`, ns-3
/// `HyStartMinSamples`).
pub const MIN_SAMPLES: u32 = 8;

impl HyStartThresholds {
    /// The delay-increase threshold added to `delay_min`.
    pub fn delay_threshold(self, delay_min: SimDur) -> SimDur {
        let (t, lo, hi) = match self {
            HyStartThresholds::Linux => (delay_min.as_nanos() / 8, 4_000_000, 16_000_000),
            HyStartThresholds::Ns3 => (delay_min.as_nanos(), 4_000_000, 1_000_000_000),
        };
        SimDur::from_nanos(t.clamp(lo, hi))
    }
    /// How long the round's ACK train must last to end slow start.
    pub fn train_threshold(self, delay_min: SimDur) -> SimDur {
        match self {
            // (delay_min + ack_delay) / 2, ack_delay = 1 ms (module docs).
            HyStartThresholds::Linux => SimDur::from_nanos((delay_min.as_nanos() + 1_000_000) / 2),
            HyStartThresholds::Ns3 => delay_min,
        }
    }
}

/// Why HyStart ended slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStartExit {
    AckTrain,
    Delay,
}

/// HyStart state of one connection.
#[derive(Clone, Debug)]
pub struct HyStart {
    mode: HyStartMode,
    thresholds: HyStartThresholds,
    /// Segments.
    low_window: u32,
    found: Option<HyStartExit>,
    /// The cwnd (bytes) at the exit.
    exit_cwnd: Option<u64>,
    delay_min: Option<SimDur>,
    rounds: RoundTracker,
    round_start: SimTime,
    last_ack: SimTime,
    curr_rtt: Option<SimDur>,
    samples: u32,
}

impl HyStart {
    pub fn new(mode: HyStartMode, thresholds: HyStartThresholds, low_window: u32) -> Self {
        HyStart {
            mode,
            thresholds,
            low_window,
            found: None,
            exit_cwnd: None,
            delay_min: None,
            rounds: RoundTracker::new(),
            round_start: SimTime::ZERO,
            last_ack: SimTime::ZERO,
            curr_rtt: None,
            samples: 0,
        }
    }

    /// Why slow start was left, if HyStart ended it (since the last timeout).
    pub fn found(&self) -> Option<HyStartExit> {
        self.found
    }
    /// cwnd (bytes) when HyStart last ended slow start.
    pub fn exit_cwnd(&self) -> Option<u64> {
        self.exit_cwnd
    }
    /// Minimum RTT since the start or the last timeout.
    pub fn delay_min(&self) -> Option<SimDur> {
        self.delay_min
    }

    /// Every RTT sample of the connection (the minimum delay).
    pub fn on_rtt_sample(&mut self, rtt: SimDur) {
        self.delay_min = Some(self.delay_min.map_or(rtt, |m| m.min(rtt)));
    }

    /// A retransmission timeout: HyStart and the minimum delay start over
    /// (Linux `bictcp_reset` + `bictcp_hystart_reset` on `TCP_CA_Loss`,
    /// ns-3 `CubicReset` + `HystartReset` on `CA_LOSS`).
    pub fn on_timeout(&mut self) {
        self.found = None;
        self.delay_min = None;
        self.rounds.restart();
    }

    /// An ACK in slow start (cwnd < ssthresh, cwnd-limited), before the
    /// window grows. Returns the exit if this ACK ends slow start; the
    /// caller then sets `ssthresh = cwnd`.
    pub fn on_slow_start_ack(
        &mut self,
        now: SimTime,
        cwnd: u64,
        mss: u32,
        acked_bytes: u64,
        prior_in_flight: u64,
        rtt: Option<SimDur>,
    ) -> Option<HyStartExit> {
        let mut exit = None;
        if self.mode != HyStartMode::Off && self.found.is_none() && cwnd >= self.low_window as u64 * mss as u64 {
            if let (Some(rtt), Some(dmin)) = (rtt, self.delay_min) {
                exit = self.check(now, rtt, dmin);
            }
        }
        if let Some(e) = exit {
            self.found = Some(e);
            self.exit_cwnd = Some(cwnd);
        }
        // The round boundary after the check (module docs).
        if self.rounds.on_ack(acked_bytes, prior_in_flight).is_some() {
            self.round_start = now;
            self.last_ack = now;
            self.curr_rtt = None;
            self.samples = 0;
        }
        exit
    }

    fn check(&mut self, now: SimTime, rtt: SimDur, dmin: SimDur) -> Option<HyStartExit> {
        if self.mode.train() && now.saturating_since(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            if now.saturating_since(self.round_start) > self.thresholds.train_threshold(dmin) {
                return Some(HyStartExit::AckTrain);
            }
        }
        let take = match self.thresholds {
            HyStartThresholds::Linux => true,
            HyStartThresholds::Ns3 => self.samples < MIN_SAMPLES,
        };
        if take {
            self.curr_rtt = Some(self.curr_rtt.map_or(rtt, |c| c.min(rtt)));
        }
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else if self.mode.delay() {
            let c = self.curr_rtt.expect("a sample was taken");
            if c > dmin + self.thresholds.delay_threshold(dmin) {
                return Some(HyStartExit::Delay);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn ms(x: u64) -> SimDur {
        SimDur::from_millis(x)
    }

    #[test]
    fn thresholds_of_both_sets() {
        let l = HyStartThresholds::Linux;
        let n = HyStartThresholds::Ns3;
        // Linux: delay_min / 8 within 4..16 ms.
        assert_eq!(l.delay_threshold(ms(20)), ms(4));
        assert_eq!(l.delay_threshold(ms(80)), ms(10));
        assert_eq!(l.delay_threshold(ms(400)), ms(16));
        // ns-3: delay_min within 4..1000 ms.
        assert_eq!(n.delay_threshold(ms(2)), ms(4));
        assert_eq!(n.delay_threshold(ms(80)), ms(80));
        assert_eq!(l.train_threshold(ms(30)), SimDur::from_micros(15_500));
        assert_eq!(n.train_threshold(ms(30)), ms(30));
    }

    /// Feeds one round of `n` ACKs spaced `gap`, each with RTT `rtt`, at
    /// cwnd `cwnd` segments; returns the exit and the ACK index it came at.
    fn round(h: &mut HyStart, t0: &mut SimTime, n: u64, gap: SimDur, rtt: SimDur) -> Option<(HyStartExit, u64)> {
        for i in 0..n {
            *t0 += gap;
            h.on_rtt_sample(rtt);
            if let Some(e) = h.on_slow_start_ack(*t0, n * MSS as u64, MSS, MSS as u64, n * MSS as u64, Some(rtt)) {
                return Some((e, i));
            }
        }
        None
    }

    /// Delay increase: a round whose every sample is more than
    /// delay_min + 4 ms ends slow start at its ninth sample, the tenth ACK
    /// (the first completes the previous round; Linux thresholds,
    /// delay_min 30 ms); 3 ms more does not.
    #[test]
    fn delay_increase_ends_at_ninth_sample() {
        for (extra, want) in [(3, None), (5, Some((HyStartExit::Delay, 9)))] {
            let mut h = HyStart::new(HyStartMode::Delay, HyStartThresholds::Linux, 16);
            h.on_rtt_sample(ms(30));
            let mut t = SimTime::ZERO;
            // A first round sets the boundary; ACKs 5 ms apart (no train).
            assert_eq!(round(&mut h, &mut t, 20, ms(5), ms(30)), None);
            assert_eq!(round(&mut h, &mut t, 20, ms(5), ms(30 + extra)), want, "extra {extra} ms");
        }
    }

    /// ns-3's threshold is the whole minimum delay: 5 ms more is not enough,
    /// 31 ms more is.
    #[test]
    fn ns3_delay_threshold_is_delay_min() {
        for (extra, exit) in [(5, false), (31, true)] {
            let mut h = HyStart::new(HyStartMode::Delay, HyStartThresholds::Ns3, 16);
            h.on_rtt_sample(ms(30));
            let mut t = SimTime::ZERO;
            round(&mut h, &mut t, 20, ms(5), ms(30));
            assert_eq!(round(&mut h, &mut t, 20, ms(5), ms(30 + extra)).is_some(), exit, "extra {extra}");
        }
    }

    /// ACK train: ACKs 1 ms apart at delay_min 30 ms end slow start once the
    /// train is longer than 15.5 ms (Linux) or 30 ms (ns-3); ACKs 3 ms apart
    /// never form a train.
    #[test]
    fn ack_train_length() {
        for (th, gap, want) in [
            (HyStartThresholds::Linux, 1, Some(15)),
            (HyStartThresholds::Ns3, 1, Some(30)),
            (HyStartThresholds::Linux, 3, None),
        ] {
            let mut h = HyStart::new(HyStartMode::AckTrain, th, 16);
            h.on_rtt_sample(ms(30));
            let mut t = SimTime::ZERO;
            // The first ACK starts the round (at 1 gap), then 40 ACKs.
            h.on_slow_start_ack(t, 40 * MSS as u64, MSS, MSS as u64, 40 * MSS as u64, Some(ms(30)));
            let got = round(&mut h, &mut t, 40, ms(gap), ms(30)).map(|(e, i)| {
                assert_eq!(e, HyStartExit::AckTrain);
                i
            });
            // The i-th ACK (0-based) comes (i + 1) gaps after the round start.
            assert_eq!(got, want.map(|ms_len: u64| ms_len / gap), "{th:?} gap {gap}");
        }
    }

    /// Below low_window, with the mode off, and after an exit nothing fires;
    /// a timeout re-arms it.
    #[test]
    fn low_window_off_and_rearm() {
        let mut off = HyStart::new(HyStartMode::Off, HyStartThresholds::Linux, 16);
        let mut low = HyStart::new(HyStartMode::Both, HyStartThresholds::Linux, 50);
        for h in [&mut off, &mut low] {
            h.on_rtt_sample(ms(30));
            let mut t = SimTime::ZERO;
            round(h, &mut t, 20, ms(1), ms(30));
            assert_eq!(round(h, &mut t, 20, ms(1), ms(60)), None);
        }
        let mut h = HyStart::new(HyStartMode::Both, HyStartThresholds::Linux, 16);
        h.on_rtt_sample(ms(30));
        let mut t = SimTime::ZERO;
        round(&mut h, &mut t, 20, ms(5), ms(30));
        assert!(round(&mut h, &mut t, 20, ms(5), ms(60)).is_some());
        assert!(round(&mut h, &mut t, 20, ms(5), ms(60)).is_none(), "silent after the exit");
        h.on_timeout();
        assert_eq!(h.delay_min(), None);
        h.on_rtt_sample(ms(30));
        round(&mut h, &mut t, 20, ms(5), ms(30));
        assert!(round(&mut h, &mut t, 20, ms(5), ms(60)).is_some(), "re-armed by the timeout");
    }
}
