//! A Minstrel-like sampler: rate statistics by EWMA, a multi-rate retry
//! chain, and a fixed share of frames sent at another rate to sample it.
//! Written after the behaviour of Linux's mac80211 minstrel
//! (net/mac80211/rc80211_minstrel.c; minstrel_ht applies the same scheme to
//! groups of HT rates), whose facts it follows:
//!
//! - statistics are updated every 100 ms (`update_interval`): per rate the
//!   success ratio of the interval's attempts enters an EWMA with weight
//!   75 % on the old value (`EWMA_LEVEL` 75); a rate's first interval
//!   with attempts sets it to that interval's ratio (Linux 4.x
//!   `minstrel_calc_rate_stats`; Linux 3.x started the EWMA from 0, which
//!   leaves rarely sampled rates underrated for a second or more: a
//!   station at 50 km/h then sticks to failing rates);
//! - throughput of a rate = EWMA probability / time of a 1200-byte frame
//!   at that rate (minstrel_ht's `AVG_PKT_SIZE` 1200; legacy minstrel's
//!   `perfect_tx_time` of 1200 bytes), 0 below 10 % probability;
//! - the retry chain is max_tp[0], max_tp[1], max_prob, lowest rate; each
//!   rate's retry count is how many attempts fit in a 6 ms segment
//!   (`segment_size` 6000 us, with an ACK and half the contention window,
//!   CW doubling from 15 to 1023, slot 9 us) capped at 7 (`max_retry`);
//!   the lowest rate gets 7; a rate above 95 % or below 10 % success gets
//!   at most 2 (and then only 4 sample frames per interval);
//! - max_prob is the fastest rate above 95 % success, or the most reliable
//!   rate if none is;
//! - 10 % of frames sample (`lookaround_rate_mrr` 10): the sampled rate
//!   comes from a table of 10 random permutations of the rates, walked
//!   row by row; a sample slower than max_tp[0] goes second in the chain
//!   (it is used only if max_tp[0] fails, "[max_tp, sample, prob,
//!   lowest]") unless it has not been sampled for 20 intervals; a faster
//!   one goes first (then the chain is ours: sample, max_tp[0], max_prob,
//!   lowest). A sampling backlog larger than twice the rate count is
//!   forgiven, and the counters restart every 10 000 frames.
//!
//! Frames: the trait reports attempts, not frames. A frame's first
//! attempt is the first one after a success, after a failure of the
//! chain's last attempt, or at the start; a failure with `retry = r` makes
//! the next attempt the frame's r + 1-th. If the MAC gives a frame up
//! before the chain ends (its retry limit is below the chain's length),
//! the next frame's first attempt still follows the old chain; its failure
//! (`retry = 0`, below the count expected) ends the old chain, and the
//! frame's second attempt starts a new one.
use super::{Outcome, RateControl};
use crate::mac::MacAddr;
use crate::phy::Rate;
use wifitcp_core::{RngStream, SimDur, SimTime};

/// Minstrel's constants (Linux's defaults, see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MinstrelParams {
    pub update_interval: SimDur,
    /// Weight of the old value in the EWMA.
    pub ewma_level: f64,
    /// Share of frames that sample, percent.
    pub lookaround_pct: u64,
    pub segment_us: f64,
    pub max_retry: u32,
    pub cw_min: u32,
    pub cw_max: u32,
    pub slot_us: f64,
}

impl Default for MinstrelParams {
    fn default() -> Self {
        MinstrelParams {
            update_interval: SimDur::from_millis(100),
            ewma_level: 0.75,
            lookaround_pct: 10,
            segment_us: 6000.0,
            max_retry: 7,
            cw_min: 15,
            cw_max: 1023,
            slot_us: 9.0,
        }
    }
}

/// A rate with the durations Minstrel weighs it by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateInfo {
    pub rate: Rate,
    /// Airtime of a 1200-byte frame at this rate.
    pub frame_1200: SimDur,
    /// Airtime of an ACK answering at this rate.
    pub ack: SimDur,
}

const SAMPLE_COLUMNS: usize = 10;

#[derive(Clone, Debug, Default)]
struct RateStats {
    attempts: u32,
    success: u32,
    prob: f64,
    tp: f64,
    retry_count: u32,
    adjusted_retry: u32,
    /// Sample frames left this interval (-1: no limit).
    sample_limit: i32,
    /// Intervals without an attempt.
    sample_skipped: u32,
    /// An interval with attempts has been averaged in.
    seen: bool,
}

#[derive(Clone, Debug)]
struct Station {
    stats: Vec<RateStats>,
    max_tp: [usize; 2],
    max_prob: usize,
    packet_count: i64,
    sample_count: i64,
    sample_deferred: i64,
    /// `SAMPLE_COLUMNS` permutations of the rate indices.
    table: Vec<Vec<usize>>,
    row: usize,
    column: usize,
    next_update: SimTime,
    /// The current frame's chain: (rate index, attempts).
    chain: Vec<(usize, u32)>,
    /// The frame's chain carries a deferred sample.
    probe: bool,
    need_chain: bool,
    next_attempt: u32,
}

pub struct Minstrel {
    p: MinstrelParams,
    rates: Vec<RateInfo>,
    rng: RngStream,
    stations: Vec<Option<Station>>,
}

impl Minstrel {
    /// Minstrel over `rates` (sorted ascending here; the lowest is the
    /// chain's last resort). The sample tables draw from `rng`.
    pub fn new(rates: &[RateInfo], p: MinstrelParams, rng: RngStream) -> Minstrel {
        let mut rates = rates.to_vec();
        rates.sort_by_key(|r| r.rate);
        rates.dedup_by_key(|r| r.rate);
        assert!(!rates.is_empty(), "Minstrel needs at least one rate");
        Minstrel { p, rates, rng, stations: Vec::new() }
    }

    /// Attempts at rate `i` that fit in one segment (module docs).
    fn retry_count(&self, i: usize) -> u32 {
        let us = |d: SimDur| d.as_micros_f64();
        let r = &self.rates[i];
        let lowest_ack = us(self.rates[0].ack);
        let mut cw = self.p.cw_min;
        let mut tx_time = us(r.frame_1200) + lowest_ack;
        let mut count = 1;
        loop {
            tx_time += us(r.ack) + us(r.frame_1200) + self.p.slot_us * cw as f64 / 2.0;
            cw = (2 * cw + 1).min(self.p.cw_max);
            if tx_time >= self.p.segment_us {
                break;
            }
            count += 1;
            if count >= self.p.max_retry {
                break;
            }
        }
        count
    }

    fn station(&mut self, now: SimTime, ra: MacAddr) -> &mut Station {
        let i = ra.0 as usize;
        if self.stations.len() <= i {
            self.stations.resize_with(i + 1, || None);
        }
        if self.stations[i].is_none() {
            let n = self.rates.len();
            let stats = (0..n)
                .map(|k| {
                    let c = self.retry_count(k);
                    RateStats { retry_count: c, adjusted_retry: c, sample_limit: -1, ..Default::default() }
                })
                .collect();
            let mut table = Vec::with_capacity(SAMPLE_COLUMNS);
            for _ in 0..SAMPLE_COLUMNS {
                let mut col: Vec<usize> = (0..n).collect();
                for k in (1..n).rev() {
                    col.swap(k, self.rng.below(k as u64 + 1) as usize);
                }
                table.push(col);
            }
            self.stations[i] = Some(Station {
                stats,
                max_tp: [0, 0],
                max_prob: 0,
                packet_count: 0,
                sample_count: 0,
                sample_deferred: 0,
                table,
                row: 0,
                column: 0,
                next_update: now + self.p.update_interval,
                chain: Vec::new(),
                probe: false,
                need_chain: true,
                next_attempt: 0,
            });
        }
        self.stations[i].as_mut().expect("just made")
    }

    fn build_chain(&mut self, now: SimTime, ra: MacAddr) {
        let (n, pct, max_retry) = (self.rates.len(), self.p.lookaround_pct as i64, self.p.max_retry);
        let times: Vec<SimDur> = self.rates.iter().map(|r| r.frame_1200).collect();
        let st = self.station(now, ra);
        let adj = |st: &Station, k: usize| st.stats[k].adjusted_retry;
        let (tp0, tp1, pr) = (st.max_tp[0], st.max_tp[1], st.max_prob);
        let mut chain = vec![(tp0, adj(st, tp0)), (tp1, adj(st, tp1)), (pr, adj(st, pr)), (0, max_retry)];
        st.probe = false;
        st.packet_count += 1;
        let delta = st.packet_count * pct / 100 - (st.sample_count + st.sample_deferred / 2);
        if delta >= 0 {
            if st.packet_count >= 10_000 {
                st.sample_deferred = 0;
                st.sample_count = 0;
                st.packet_count = 0;
            } else if delta > 2 * n as i64 {
                st.sample_count += delta - 2 * n as i64;
            }
            let s = st.table[st.column][st.row];
            st.row += 1;
            if st.row >= n {
                st.row = 0;
                st.column = (st.column + 1) % SAMPLE_COLUMNS;
            }
            if times[s] > times[tp0] && st.stats[s].sample_skipped < 20 {
                chain[1] = (s, adj(st, s));
                st.probe = true;
                st.sample_deferred += 1;
            } else if st.stats[s].sample_limit != 0 {
                chain = vec![(s, adj(st, s)), (tp0, adj(st, tp0)), (pr, adj(st, pr)), (0, max_retry)];
                st.sample_count += 1;
                if st.stats[s].sample_limit > 0 {
                    st.stats[s].sample_limit -= 1;
                }
            }
        }
        st.chain = chain;
        st.need_chain = false;
        st.next_attempt = 0;
    }

    /// The end of a frame (acknowledged, or its chain spent).
    fn frame_done(st: &mut Station) {
        if st.probe {
            st.sample_count += 1;
        }
        if st.sample_deferred > 0 {
            st.sample_deferred -= 1;
        }
        st.need_chain = true;
        st.next_attempt = 0;
    }

    fn update_stats(&mut self, ra: MacAddr) {
        let w = self.p.ewma_level;
        let times: Vec<f64> = self.rates.iter().map(|r| r.frame_1200.as_secs_f64()).collect();
        let Some(st) = self.stations[ra.0 as usize].as_mut() else { return };
        let mut best = [0usize; 2];
        let mut prob_rate = 0usize;
        for (i, &time) in times.iter().enumerate() {
            let r = &mut st.stats[i];
            if r.attempts > 0 {
                r.sample_skipped = 0;
                let cur = r.success as f64 / r.attempts as f64;
                r.prob = if r.seen { r.prob * w + cur * (1.0 - w) } else { cur };
                r.seen = true;
            } else {
                r.sample_skipped += 1;
            }
            r.attempts = 0;
            r.success = 0;
            r.tp = if r.prob < 0.10 { 0.0 } else { r.prob / time.max(1e-9) };
            if r.prob > 0.95 || r.prob < 0.10 {
                r.adjusted_retry = (r.retry_count >> 1).min(2);
                r.sample_limit = 4;
            } else {
                r.sample_limit = -1;
                r.adjusted_retry = r.retry_count;
            }
            if r.adjusted_retry == 0 {
                r.adjusted_retry = 2;
            }
            // insert into the two best throughputs (ties: the earlier rate)
            let mut j = 2;
            while j > 0 && st.stats[i].tp > st.stats[best[j - 1]].tp {
                j -= 1;
            }
            if j < 1 {
                best[1] = best[0];
            }
            if j < 2 {
                best[j] = i;
            }
            let (r, pr) = (&st.stats[i], &st.stats[prob_rate]);
            if r.prob >= 0.95 {
                if r.tp >= pr.tp {
                    prob_rate = i;
                }
            } else if r.prob >= pr.prob {
                prob_rate = i;
            }
        }
        st.max_tp = best;
        st.max_prob = prob_rate;
    }

    /// (max_tp[0], max_tp[1], max_prob) towards `ra`, as rates.
    pub fn best(&self, ra: MacAddr) -> Option<(Rate, Rate, Rate)> {
        let st = self.stations.get(ra.0 as usize)?.as_ref()?;
        Some((self.rates[st.max_tp[0]].rate, self.rates[st.max_tp[1]].rate, self.rates[st.max_prob].rate))
    }

    /// The EWMA success probability of `rate` towards `ra`.
    pub fn prob(&self, ra: MacAddr, rate: Rate) -> Option<f64> {
        let st = self.stations.get(ra.0 as usize)?.as_ref()?;
        let i = self.rates.iter().position(|r| r.rate == rate)?;
        Some(st.stats[i].prob)
    }

    /// The retry chain of the frame in progress towards `ra`.
    pub fn chain(&self, ra: MacAddr) -> Vec<(Rate, u32)> {
        match self.stations.get(ra.0 as usize).and_then(|s| s.as_ref()) {
            Some(st) => st.chain.iter().map(|&(i, c)| (self.rates[i].rate, c)).collect(),
            None => Vec::new(),
        }
    }
}

impl RateControl for Minstrel {
    fn kind(&self) -> &'static str {
        "minstrel"
    }

    fn data_rate(&mut self, now: SimTime, ra: MacAddr, _bytes: u32) -> Rate {
        if self.station(now, ra).need_chain {
            self.build_chain(now, ra);
        }
        let st = self.station(now, ra);
        let mut k = st.next_attempt;
        for &(i, c) in &st.chain {
            if k < c {
                return self.rates[i].rate;
            }
            k -= c;
        }
        self.rates[0].rate
    }

    fn on_outcome(&mut self, now: SimTime, ra: MacAddr, o: Outcome) {
        let idx = self.rates.iter().position(|r| r.rate == o.rate);
        let interval = self.p.update_interval;
        let st = self.station(now, ra);
        if let Some(i) = idx {
            st.stats[i].attempts += o.sent;
            st.stats[i].success += o.acked.min(o.sent);
        }
        if o.acked > 0 {
            Minstrel::frame_done(st);
        } else {
            let total: u32 = st.chain.iter().map(|c| c.1).sum();
            if o.retry + 1 >= total || o.retry < st.next_attempt {
                // the chain is spent, or the MAC gave the last frame up
                // and this failure was a new frame's (module docs)
                Minstrel::frame_done(st);
            } else {
                st.next_attempt = o.retry + 1;
            }
        }
        if now >= st.next_update {
            st.next_update = now + interval;
            self.update_stats(ra);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 802.11a rates with their 1200-byte and ACK airtimes (17.3: 20 us
    /// preamble + SIGNAL, 4 us symbols of 16 + 8 L + 6 bits).
    fn ofdm() -> Vec<RateInfo> {
        [60u32, 90, 120, 180, 240, 360, 480, 540]
            .map(|r| {
                let ndbps = r * 4 / 10;
                let t = |bytes: u32| SimDur::from_micros(20 + 4 * (16 + 8 * bytes + 6).div_ceil(ndbps) as u64);
                RateInfo { rate: Rate(r), frame_1200: t(1200), ack: t(14) }
            })
            .to_vec()
    }

    fn minstrel() -> Minstrel {
        Minstrel::new(&ofdm(), MinstrelParams::default(), RngStream::derive(1, "rate/sta0"))
    }

    /// Sends `frames` frames, one per ms from `t0`, over a channel where
    /// an attempt at rate r succeeds iff `ok(r)`; each frame retries until
    /// success or 7 attempts. Returns the rate of every first attempt.
    fn run(m: &mut Minstrel, t0: u64, frames: u64, ok: impl Fn(Rate) -> bool) -> Vec<Rate> {
        let ra = MacAddr(1);
        let mut firsts = Vec::new();
        for f in 0..frames {
            let now = SimTime::from_millis(t0 + f);
            for retry in 0..7 {
                let r = m.data_rate(now, ra, 1500);
                if retry == 0 {
                    firsts.push(r);
                }
                let good = ok(r);
                m.on_outcome(now, ra, Outcome { rate: r, sent: 1, acked: good as u32, retry });
                if good {
                    break;
                }
            }
        }
        firsts
    }

    #[test]
    fn retry_counts_follow_the_6_ms_segment() {
        let m = minstrel();
        // 6 Mbit/s: a 1200-byte frame takes 1624 us, an ACK 44 us:
        // (1624 + 44) + (44 + 1624 + 67.5) + (44 + 1624 + 139.5) = 5211 us
        // after the second retransmission, the third crosses 6 ms: 3.
        assert_eq!(m.retry_count(0), 3);
        // 54 Mbit/s: 200 us frames, 24 us ACKs; the backoff term doubles
        // (67.5, 139.5, ... 2299.5 us) and the sixth retransmission
        // reaches 6097 us: 6, one below max_retry 7.
        assert_eq!(m.retry_count(7), 6);
        // 9.8 ms frames: one attempt already fills the segment
        let slow = [RateInfo { rate: Rate(10), frame_1200: SimDur::from_micros(9800), ack: SimDur::from_micros(304) }];
        let m = Minstrel::new(&slow, MinstrelParams::default(), RngStream::derive(1, "x"));
        assert_eq!(m.retry_count(0), 1);
    }

    #[test]
    fn ewma_weighs_the_old_value_75_percent() {
        let mut m = minstrel();
        let ra = MacAddr(1);
        // only the lowest rate gets through, every attempt there: its first
        // interval sets its probability to 1; then nothing gets through and
        // the EWMA falls to 0.75 and 0.5625
        run(&mut m, 0, 101, |r| r == Rate(60));
        let mut seen = vec![m.prob(ra, Rate(60)).unwrap()];
        for k in 1..=2u64 {
            run(&mut m, k * 101, 101, |_| false);
            seen.push(m.prob(ra, Rate(60)).unwrap());
        }
        for (s, e) in seen.iter().zip([1.0, 0.75, 0.5625]) {
            assert!((s - e).abs() < 1e-12, "{seen:?}");
        }
    }

    #[test]
    fn settles_on_the_fastest_working_rate_and_samples_a_tenth_of_frames() {
        // rates up to 24 Mbit/s always get through, faster ones never
        let mut m = minstrel();
        let ra = MacAddr(1);
        let firsts = run(&mut m, 0, 20_000, |r| r <= Rate(240));
        let (tp0, _, prob) = m.best(ra).unwrap();
        assert_eq!(tp0, Rate(240));
        assert_eq!(prob, Rate(240), "the fastest rate above 95 %");
        let late = &firsts[10_000..];
        let at_best = late.iter().filter(|&&r| r == Rate(240)).count() as f64 / late.len() as f64;
        let faster = late.iter().filter(|&&r| r > Rate(240)).count() as f64 / late.len() as f64;
        // direct samples go to the faster (failing) rates only; with
        // their sample limit of 4 per 100 ms at < 10 % success, at most
        // 3 rates x 4 = 12 frames in 100: the rest start at max_tp.
        assert!(at_best > 0.85, "{at_best}");
        assert!(faster > 0.0 && faster <= 0.12, "{faster}");
        // the chain after a failed sample: 24 Mbit/s next
        assert_eq!(m.chain(ra)[2].0, Rate(240));
    }

    #[test]
    fn follows_a_channel_that_gets_worse() {
        let mut m = minstrel();
        let ra = MacAddr(1);
        run(&mut m, 0, 5_000, |r| r <= Rate(360));
        assert_eq!(m.best(ra).unwrap().0, Rate(360));
        // the station walks away: only 12 Mbit/s and below work now
        let firsts = run(&mut m, 5_000, 3_000, |r| r <= Rate(120));
        assert_eq!(m.best(ra).unwrap().0, Rate(120));
        // within a second of the change most frames start at 12
        let tail = &firsts[1_000..];
        let at12 = tail.iter().filter(|&&r| r == Rate(120)).count() as f64 / tail.len() as f64;
        assert!(at12 > 0.8, "{at12}");
    }

    #[test]
    fn same_seed_same_choices() {
        let (mut a, mut b) = (minstrel(), minstrel());
        let ok = |r: Rate| r <= Rate(180);
        assert_eq!(run(&mut a, 0, 3000, ok), run(&mut b, 0, 3000, ok));
        let mut c = Minstrel::new(&ofdm(), MinstrelParams::default(), RngStream::derive(2, "rate/sta0"));
        assert_ne!(run(&mut a, 3000, 3000, ok), run(&mut c, 0, 3000, ok));
    }

    #[test]
    fn a_mac_retry_limit_below_the_chain_does_not_stall_it() {
        // The MAC gives a frame up after 2 attempts; only 6 Mbit/s works.
        // Frames must keep reaching the rate that works.
        let mut m = minstrel();
        let ra = MacAddr(1);
        let mut delivered = 0;
        for f in 0..5_000u64 {
            let now = SimTime::from_millis(f);
            for retry in 0..2 {
                let r = m.data_rate(now, ra, 1500);
                let good = r == Rate(60);
                m.on_outcome(now, ra, Outcome { rate: r, sent: 1, acked: good as u32, retry });
                if good {
                    delivered += 1;
                    break;
                }
            }
        }
        assert!(delivered > 4_000, "{delivered}");
        assert_eq!(m.best(ra).unwrap().0, Rate(60));
    }
}
