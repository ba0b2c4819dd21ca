//! Deterministic "test sender" for congestion controllers (test-only).
//!
//! It drives a [`CongestionControl`] with a synthetic ACK clock, without a
//! connection, a network or an event queue:
//! - time advances in rounds; a round lasts one RTT and delivers
//!   `floor(cwnd / MSS)` ACKs (at least one), cwnd read at the start of the
//!   round, evenly spaced over the RTT, each acknowledging one MSS and
//!   carrying that RTT as its sample (`on_rtt_sample` is called before
//!   `on_ack`, as the connection does);
//! - the sender is window-limited: `prior_in_flight` is the current cwnd;
//! - the RTT of a round is fixed, or comes from a single-bottleneck queue
//!   model: with a bottleneck of `rate_pps` packets/s and propagation RTT
//!   `base`, a window of `W` packets keeps `max(0, W - rate * base)` packets
//!   queued, so `RTT = base + queued / rate` (fluid model of a FIFO
//!   bottleneck: the packets beyond the bandwidth-delay product wait);
//! - losses are injected at chosen times: the first ACK due at or after the
//!   loss time is replaced by the loss, the round ends there, and the next
//!   round starts at the loss time. Loss recovery itself is not simulated
//!   (it is the connection's job): after a fast retransmit the window is set
//!   straight to the returned ssthresh and `RecoveryExit` is signalled
//!   (RFC 5681 section 3.2 step 6 without the inflation phase); after a
//!   timeout cwnd becomes 1 MSS (RFC 5681 section 3.1, loss window).
//!
//! Every round's starting state is recorded, and the window after every ACK
//! is kept in a trace so tests can read `cwnd(t)`.
use super::{AckInfo, CcEvent, CongestionControl, LossKind, Window};
use std::collections::VecDeque;
use wifitcp_core::{SimDur, SimTime};

/// How the RTT of a round is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RttModel {
    /// Every round has this RTT.
    Fixed(SimDur),
    /// One FIFO bottleneck of `rate_pps` packets/s behind a propagation
    /// round-trip `base`: `RTT = base + max(0, W - rate*base) / rate`.
    Bottleneck { base: SimDur, rate_pps: f64 },
}

impl RttModel {
    /// RTT seen by a round that has `window_pkts` packets in flight.
    pub fn rtt(&self, window_pkts: f64) -> SimDur {
        match *self {
            RttModel::Fixed(d) => d,
            RttModel::Bottleneck { base, rate_pps } => {
                let bdp = rate_pps * base.as_secs_f64();
                let queued = (window_pkts - bdp).max(0.0);
                base + SimDur::from_secs_f64(queued / rate_pps)
            }
        }
    }
    /// Packets queued at the bottleneck for a window (0 for `Fixed`).
    pub fn queued(&self, window_pkts: f64) -> f64 {
        match *self {
            RttModel::Fixed(_) => 0.0,
            RttModel::Bottleneck { base, rate_pps } => (window_pkts - rate_pps * base.as_secs_f64()).max(0.0),
        }
    }
}

/// State at the start of one round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundRecord {
    pub round: u64,
    pub start: SimTime,
    pub rtt: SimDur,
    pub cwnd: u64,
    pub ssthresh: u64,
    /// ACKs delivered in the round (fewer than planned if a loss cut it).
    pub acks: u32,
    /// A loss was injected in this round.
    pub loss: bool,
}

/// The synthetic sender. Fields are public so tests can poke at them.
#[derive(Debug)]
pub struct TestSender<C: CongestionControl> {
    pub cc: C,
    pub win: Window,
    pub now: SimTime,
    pub model: RttModel,
    /// ACKs are flagged application/rwnd-limited while this is set.
    pub app_limited: bool,
    pub records: Vec<RoundRecord>,
    /// (time, cwnd) after every ACK or loss.
    pub trace: Vec<(SimTime, u64)>,
    losses: VecDeque<(SimTime, LossKind)>,
    round: u64,
}

impl<C: CongestionControl> TestSender<C> {
    /// A sender with `cwnd_pkts` segments of `mss` bytes and the given
    /// ssthresh (bytes), at time zero.
    pub fn new(cc: C, mss: u32, cwnd_pkts: u64, ssthresh: u64, model: RttModel) -> Self {
        let win = Window { cwnd: cwnd_pkts * mss as u64, ssthresh, mss };
        TestSender {
            cc,
            win,
            now: SimTime::ZERO,
            model,
            app_limited: false,
            records: Vec::new(),
            trace: vec![(SimTime::ZERO, win.cwnd)],
            losses: VecDeque::new(),
            round: 0,
        }
    }

    /// Inject a loss at `at` (losses must be scheduled in time order).
    pub fn schedule_loss(&mut self, at: SimTime, kind: LossKind) {
        assert!(self.losses.back().is_none_or(|&(t, _)| t <= at), "losses out of order");
        self.losses.push_back((at, kind));
    }

    /// Apply a loss right now (outside any round).
    pub fn loss_now(&mut self, kind: LossKind) -> u64 {
        let in_flight = self.win.cwnd;
        let th = self.cc.ssthresh_after_loss(self.now, &self.win, in_flight, kind);
        self.win.ssthresh = th;
        match kind {
            LossKind::FastRetransmit => {
                self.win.cwnd = th;
                self.cc.on_event(self.now, &mut self.win, CcEvent::RecoveryExit);
            }
            LossKind::Timeout => self.win.cwnd = self.win.mss as u64,
        }
        self.trace.push((self.now, self.win.cwnd));
        th
    }

    /// Run one round; returns its record.
    pub fn run_round(&mut self) -> RoundRecord {
        let mss = self.win.mss as u64;
        let n = (self.win.cwnd / mss).max(1);
        let rtt = self.model.rtt(self.win.cwnd as f64 / mss as f64);
        let start = self.now;
        let mut rec = RoundRecord {
            round: self.round,
            start,
            rtt,
            cwnd: self.win.cwnd,
            ssthresh: self.win.ssthresh,
            acks: 0,
            loss: false,
        };
        self.round += 1;
        let mut ended_by_loss = false;
        for j in 0..n {
            let t = start + SimDur::from_nanos(rtt.as_nanos() * (j + 1) / n);
            if let Some(&(lt, kind)) = self.losses.front().filter(|&&(lt, _)| lt <= t) {
                self.losses.pop_front();
                self.now = lt.max(start);
                self.loss_now(kind);
                rec.loss = true;
                ended_by_loss = true;
                break;
            }
            self.now = t;
            self.cc.on_rtt_sample(t, rtt);
            let ack = AckInfo {
                now: t,
                acked_bytes: mss,
                rtt: Some(rtt),
                prior_in_flight: self.win.cwnd,
                app_or_rwnd_limited: self.app_limited,
            };
            self.cc.on_ack(&mut self.win, &ack);
            assert!(self.win.cwnd >= mss, "cwnd fell below 1 MSS");
            self.trace.push((t, self.win.cwnd));
            rec.acks += 1;
        }
        if !ended_by_loss {
            self.now = start + rtt;
        }
        self.records.push(rec);
        rec
    }

    pub fn run_rounds(&mut self, n: usize) {
        for _ in 0..n {
            self.run_round();
        }
    }

    /// Run rounds until `now >= t`.
    pub fn run_until(&mut self, t: SimTime) {
        while self.now < t {
            self.run_round();
        }
    }

    /// cwnd (bytes) in force at time `t` (after the last ACK at or before it).
    pub fn cwnd_at(&self, t: SimTime) -> u64 {
        let i = self.trace.partition_point(|&(tt, _)| tt <= t);
        self.trace[i.saturating_sub(1)].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A controller that never changes the window: checks the clock itself.
    #[derive(Debug, Default)]
    struct Frozen {
        acks: u64,
        samples: Vec<SimDur>,
    }
    impl CongestionControl for Frozen {
        fn name(&self) -> &'static str {
            "frozen"
        }
        fn on_ack(&mut self, _win: &mut Window, _ack: &AckInfo) {
            self.acks += 1;
        }
        fn on_rtt_sample(&mut self, _now: SimTime, rtt: SimDur) {
            self.samples.push(rtt);
        }
        fn ssthresh_after_loss(&mut self, _now: SimTime, win: &Window, in_flight: u64, _kind: LossKind) -> u64 {
            super::super::half_flight(in_flight, win.mss)
        }
    }

    #[test]
    fn ack_clock_and_queue_model() {
        let model = RttModel::Bottleneck { base: SimDur::from_millis(100), rate_pps: 200.0 };
        assert_eq!(model.rtt(10.0), SimDur::from_millis(100));
        assert_eq!(model.rtt(30.0), SimDur::from_millis(150));
        assert!((model.queued(30.0) - 10.0).abs() < 1e-9);
        let mut s = TestSender::new(Frozen::default(), 1000, 30, 0, model);
        s.run_rounds(3);
        assert_eq!(s.cc.acks, 90);
        assert!(s.cc.samples.iter().all(|&r| r == SimDur::from_millis(150)));
        assert_eq!(s.now, SimTime::from_millis(450));
        assert_eq!(s.cwnd_at(SimTime::from_millis(10)), 30_000);
    }

    #[test]
    fn loss_cuts_round_and_sets_window() {
        let mut s = TestSender::new(Frozen::default(), 1000, 10, 100_000, RttModel::Fixed(SimDur::from_millis(100)));
        s.schedule_loss(SimTime::from_millis(150), LossKind::FastRetransmit);
        s.run_rounds(2);
        assert!(s.records[1].loss);
        assert_eq!(s.records[1].acks, 4); // ACKs at 110..140 ms, loss at 150 ms
        assert_eq!(s.now, SimTime::from_millis(150));
        assert_eq!(s.win.cwnd, 5000);
        assert_eq!(s.win.ssthresh, 5000);
        s.schedule_loss(s.now, LossKind::Timeout);
        s.run_round();
        assert_eq!(s.win.cwnd, 1000);
    }

    /// Same inputs, same trace: the controllers are pure functions of their
    /// inputs (no clock, no RNG).
    #[test]
    fn controllers_are_deterministic() {
        fn run<C: CongestionControl>(mk: fn() -> C) -> Vec<(SimTime, u64)> {
            let model = RttModel::Bottleneck { base: SimDur::from_millis(20), rate_pps: 1000.0 };
            let mut s = TestSender::new(mk(), 1448, 2, u64::MAX / 2, model);
            s.schedule_loss(SimTime::from_millis(700), LossKind::FastRetransmit);
            s.schedule_loss(SimTime::from_millis(1500), LossKind::Timeout);
            s.run_until(SimTime::from_secs(3));
            s.trace
        }
        use super::super::{compound::Compound, cubic::Cubic, vegas::Vegas};
        assert_eq!(run(Vegas::default), run(Vegas::default));
        assert_eq!(run(Cubic::default), run(Cubic::default));
        assert_eq!(run(Compound::default), run(Compound::default));
        assert!(run(Cubic::default).len() > 100);
    }
}
