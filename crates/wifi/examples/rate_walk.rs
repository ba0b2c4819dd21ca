//! Rate controllers on a station walking away from its AP: a link-level
//! harness (one sender, one receiver, no contention) over the default SNR
//! channel (ns-3's log-distance loss, exponent 3, 5.15 GHz, 16.02 dBm,
//! 7 dB noise figure, no shadowing; the union-bound OFDM error model) at
//! 802.11a. The AP sends 1500-byte MSDUs back to back; each attempt waits
//! DIFS and a backoff drawn from its CW (15 doubling to 1023), sends the
//! frame at the controller's rate, and gets an ACK (at the highest basic
//! rate not above it, 10.6.6.5.2) or times out; 7 attempts per frame.
//! The station's position is read at each frame's end.
//!
//! Printed per distance bin: the goodput each controller and each fixed
//! rate reached, and the analytical goodput of every fixed rate from the
//! channel's frame success probabilities at the bin's distances (the
//! renewal formula in `analytic`); "best" is their maximum, the envelope an
//! ideal controller would follow.
//!
//! `cargo run --release -p wifitcp-wifi --example rate_walk -- KMH`
use wifitcp_core::{NodeId, RngStream, SimDur, SimTime};
use wifitcp_wifi::channel::config::{ChannelConfig, SnrConfig};
use wifitcp_wifi::channel::{Channel, FrameKind, FrameTx, Mode, Position, Preamble};
use wifitcp_wifi::mac::MacAddr;
use wifitcp_wifi::phy::{PhyConfig, PhyStandard, PhyTiming, Rate};
use wifitcp_wifi::rate::{self, Outcome, RateControl, RateControlKind};

const MSDU: u32 = 1500;
/// MAC header + FCS.
const MPDU: u32 = MSDU + 28;
const ACK: u32 = 14;
const ATTEMPTS: u32 = 7;
const START_M: f64 = 5.0;
const END_M: f64 = 150.0;
const BIN_M: f64 = 10.0;

struct Link {
    channel: Channel,
    power: f64,
    timing: PhyTiming,
}

impl Link {
    fn p(&mut self, bytes: u32, rate: Rate, d: f64, rng: &mut RngStream) -> f64 {
        let mode = Mode::from_kbps(rate.0 * 100).expect("an 802.11a rate");
        let tx = FrameTx {
            tx: NodeId(0),
            rx: NodeId(1),
            tx_pos: Position::new(0.0, 0.0, 0.0),
            rx_pos: Position::new(d, 0.0, 0.0),
            tx_power_dbm: self.power,
            mode,
            preamble: Preamble::Long,
            bits: mode.data_bits(bytes),
            kind: if bytes == ACK { FrameKind::Control } else { FrameKind::Data },
            start: SimTime::ZERO,
        };
        self.channel.frame_success_prob(&tx, rng)
    }
    fn ack_rate(data: Rate) -> Rate {
        [Rate(240), Rate(120), Rate(60)].into_iter().find(|&b| b <= data).unwrap_or(Rate(60))
    }
    fn cw(k: u32) -> u64 {
        ((16u64 << k) - 1).min(1023)
    }
}

/// Goodput (Mbit/s) per distance bin of `rc` walking at `v` m/s.
fn walk(link: &mut Link, rc: &mut dyn RateControl, v: f64, seed: u64) -> Vec<f64> {
    let mut rng = RngStream::derive(seed, "harness");
    let ra = MacAddr(1);
    let t_end = (END_M - START_M) / v;
    let bins = ((END_M - START_M) / BIN_M).ceil() as usize;
    let mut bytes = vec![0.0; bins];
    let mut now = SimTime::ZERO;
    let tm = link.timing.clone();
    while now.as_secs_f64() < t_end {
        // a retransmission after a lost ACK is a duplicate: the receiver
        // counts the MSDU once, at its first data success
        let mut delivered = false;
        for k in 0..ATTEMPTS {
            let r = rc.data_rate(now, ra, MPDU);
            now += tm.difs + tm.slot * rng.below(Link::cw(k) + 1) + tm.tx_time(MPDU, r);
            let d = START_M + v * now.as_secs_f64();
            let pd = link.p(MPDU, r, d, &mut rng);
            let data_ok = rng.bernoulli(pd);
            let mut acked = false;
            if data_ok {
                let ar = Link::ack_rate(r);
                now += tm.sifs + tm.tx_time(ACK, ar);
                let pa = link.p(ACK, ar, d, &mut rng);
                acked = rng.bernoulli(pa);
                if !delivered {
                    delivered = true;
                    let bin = (((d - START_M) / BIN_M) as usize).min(bins - 1);
                    bytes[bin] += (MSDU - 36) as f64;
                }
            } else {
                now += tm.ack_timeout();
            }
            rc.on_outcome(now, ra, Outcome { rate: r, sent: 1, acked: acked as u32, retry: k });
            if acked {
                break;
            }
        }
    }
    let bin_s = BIN_M / v;
    bytes.iter().map(|b| b * 8.0 / bin_s / 1e6).collect()
}

/// Renewal-reward goodput of fixed rate `r` at distance `d`: attempts
/// continue until data and ACK both get through or 7 attempts; the MSDU
/// counts if any data attempt got through.
fn analytic(link: &mut Link, r: Rate, d: f64) -> f64 {
    let mut rng = RngStream::derive(0, "unused"); // no shadowing: no draws
    let tm = link.timing.clone();
    let pd = link.p(MPDU, r, d, &mut rng);
    let ar = Link::ack_rate(r);
    let pa = link.p(ACK, ar, d, &mut rng);
    let q = pd * pa;
    let us = |x: SimDur| x.as_micros_f64();
    let mut t = 0.0;
    for k in 0..ATTEMPTS {
        let reach = (1.0 - q).powi(k as i32);
        let attempt = us(tm.difs)
            + us(tm.slot) * Link::cw(k) as f64 / 2.0
            + us(tm.tx_time(MPDU, r))
            + pd * us(tm.sifs + tm.tx_time(ACK, ar))
            + (1.0 - pd) * us(tm.ack_timeout());
        t += reach * attempt;
    }
    let delivered = 1.0 - (1.0 - pd).powi(ATTEMPTS as i32);
    (MSDU - 36) as f64 * 8.0 * delivered / t
}

fn main() {
    let kmh: f64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(10.0);
    let v = kmh / 3.6;
    let cfg = ChannelConfig::Snr(SnrConfig::default());
    let model = cfg.build(&|_| None).expect("default channel");
    let timing = PhyTiming::from_config(&PhyConfig::new(PhyStandard::Dot11a, 54.0)).expect("802.11a");
    let mut link = Link {
        channel: Channel::new(model, &mut RngStream::derive(1, "shadowing")),
        power: cfg.default_tx_power_dbm().unwrap_or(16.0206),
        timing: timing.clone(),
    };
    let rates: Vec<Rate> = PhyStandard::Dot11a.rates().into_iter().map(|(r, _)| r).collect();
    let mut cols: Vec<(String, Vec<f64>)> = Vec::new();
    for kind in [RateControlKind::Arf, RateControlKind::Aarf, RateControlKind::Minstrel] {
        let mut rc = rate::build(kind, Rate(540), &rates, &timing, RngStream::derive(1, "rate/ap"));
        cols.push((kind.name().to_string(), walk(&mut link, rc.as_mut(), v, 1)));
    }
    for r in [Rate(60), Rate(240), Rate(540)] {
        let mut rc = rate::build(RateControlKind::Fixed, r, &rates, &timing, RngStream::derive(1, "x"));
        cols.push((format!("fixed {}", r.mbps()), walk(&mut link, rc.as_mut(), v, 1)));
    }
    println!("speed {kmh} km/h; goodput in Mbit/s (UDP payload) per {BIN_M} m of distance");
    print!("| distance (m) |");
    for (name, _) in &cols {
        print!(" {name} |");
    }
    println!(" analytic 6 | analytic 24 | analytic 54 | analytic best (rate) |");
    println!("|{}", "---|".repeat(cols.len() + 5));
    let bins = cols[0].1.len();
    for b in 0..bins {
        let (lo, hi) = (START_M + b as f64 * BIN_M, (START_M + (b + 1) as f64 * BIN_M).min(END_M));
        print!("| {lo:.0}-{hi:.0} |");
        for (_, g) in &cols {
            print!(" {:.2} |", g[b]);
        }
        // mean over the bin's distances (the walk is uniform in distance)
        let mean = |link: &mut Link, r: Rate| {
            let n = 20;
            (0..n).map(|i| analytic(link, r, lo + (hi - lo) * (i as f64 + 0.5) / n as f64)).sum::<f64>() / n as f64
        };
        for r in [Rate(60), Rate(240), Rate(540)] {
            print!(" {:.2} |", mean(&mut link, r));
        }
        let (best, br) =
            rates.iter().map(|&r| (mean(&mut link, r), r)).fold((0.0, Rate(60)), |a, b| if b.0 > a.0 { b } else { a });
        println!(" {best:.2} ({}) |", br.mbps());
    }
}
