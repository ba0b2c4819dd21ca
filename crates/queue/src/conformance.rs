//! Tests every discipline must pass: the packet ledger under random
//! operations, and the duplicate-ACK rule for every ACK-filtering one.
#![cfg(test)]
use crate::ack_first::AckFirstConfig;
use crate::airtime::AirtimeConfig;
use crate::cake::CakeConfig;
use crate::cake_ack::AckFilterMode;
use crate::cake_ack::CakeAckConfig;
use crate::codel::CodelConfig;
use crate::config::*;
use crate::disc::{Dropped, QueueDisc};
use crate::droptail::DropTailConfig;
use crate::dualpi2::DualPi2Config;
use crate::fq_codel::FqCodelConfig;
use crate::keceli::KeceliConfig;
use crate::pilosof::PilosofConfig;
use crate::red::RedConfig;
use crate::testutil::*;
use crate::vbs::VbsConfig;
use crate::QdiscConfig;
use wifitcp_core::{DropReason, RngStream, SimDur, SimTime};
use wifitcp_wire::Packet;

/// Every registered kind with its defaults, then variants of some.
pub(crate) fn all_kinds() -> Vec<QdiscConfig> {
    let defaults = QdiscConfig::KINDS.iter().map(|kind| {
        serde_json::from_value(serde_json::json!({ "kind": kind })).expect("every kind parses with its defaults")
    });
    defaults
        .chain([
            QdiscConfig::DropTail(DropTailConfig::default()),
            QdiscConfig::AckFirst(AckFirstConfig { ack_capacity: Some(10) }),
            QdiscConfig::KeceliSorted(KeceliConfig::default()),
            QdiscConfig::KeceliGrouped(KeceliConfig::default()),
            QdiscConfig::Pilosof(PilosofConfig::default()),
            QdiscConfig::Vbs(VbsConfig { shares: vec![0.5, 0.3, 0.2], ..Default::default() }),
            QdiscConfig::Vbs(VbsConfig { measure: "delivered".into(), window: Some(20), ..Default::default() }),
            QdiscConfig::CakeAck(CakeAckConfig { mode: AckFilterMode::Conservative }),
            QdiscConfig::CakeAck(CakeAckConfig { mode: AckFilterMode::Aggressive }),
            QdiscConfig::Codel(CodelConfig { target_ms: 1.0, interval_ms: 10.0, ecn: false }),
            QdiscConfig::Codel(CodelConfig { target_ms: 1.0, interval_ms: 10.0, ecn: true }),
            QdiscConfig::FqCodel(FqCodelConfig { target_ms: 1.0, interval_ms: 10.0, ecn: true, ..Default::default() }),
            QdiscConfig::Red(RedConfig::default()),
            QdiscConfig::Red(RedConfig { ecn: true, gentle: false, min_th: 2.0, max_th: 6.0, ..Default::default() }),
            QdiscConfig::DualPi2(DualPi2Config::default()),
            QdiscConfig::FqCodel(FqCodelConfig { target_ms: 1.0, interval_ms: 10.0, ..Default::default() }),
            QdiscConfig::FqCodel(FqCodelConfig { ack_filter: AckFilterMode::Aggressive, ..Default::default() }),
            QdiscConfig::Airtime(AirtimeConfig { target_ms: 1.0, interval_ms: 10.0, ..Default::default() }),
            QdiscConfig::Airtime(AirtimeConfig { ack_filter: AckFilterMode::Conservative, ..Default::default() }),
            // (a shaper: CAKE's wake-ups, which its defaults never have)
            QdiscConfig::Cake(CakeConfig { bandwidth_mbps: 2.0, ..Default::default() }),
        ])
        .collect()
}

/// The ACK-filtering disciplines.
fn ack_filters() -> Vec<QdiscConfig> {
    vec![
        QdiscConfig::AckFirst(AckFirstConfig::default()),
        QdiscConfig::KeceliSorted(KeceliConfig::default()),
        QdiscConfig::KeceliGrouped(KeceliConfig::default()),
        QdiscConfig::CakeAck(CakeAckConfig { mode: AckFilterMode::Conservative }),
        QdiscConfig::CakeAck(CakeAckConfig { mode: AckFilterMode::Aggressive }),
        QdiscConfig::FqCodel(FqCodelConfig { ack_filter: AckFilterMode::Conservative, ..Default::default() }),
        QdiscConfig::FqCodel(FqCodelConfig { ack_filter: AckFilterMode::Aggressive, ..Default::default() }),
        QdiscConfig::Airtime(AirtimeConfig { ack_filter: AckFilterMode::Aggressive, ..Default::default() }),
    ]
}

/// Run every timer and dequeue until the discipline is empty.
fn flush(d: &mut dyn QueueDisc, mut now: SimTime, dropped: &mut Dropped) -> Vec<Packet> {
    let mut out = Vec::new();
    loop {
        while let Some(x) = d.dequeue(now, dropped) {
            out.push(x.pkt);
        }
        match d.next_wakeup() {
            Some(t) => {
                now = now.max(t);
                d.on_timer(now, dropped);
            }
            None => break,
        }
    }
    assert_eq!(d.len(), 0, "{} not empty after flush", d.kind());
    out
}

#[test]
fn duplicate_acks_are_never_filtered_by_any_filter() {
    // Flow 1's ACK stream: two duplicate series (3000 x4, 6000 x2) mixed
    // with advancing ACKs, 1 ms apart, nothing dequeued in between (the
    // most filtering opportunity), then again with dequeues interleaved.
    let stream = [1000, 2000, 3000, 3000, 3000, 3000, 4000, 5000, 6000, 6000, 7000, 8000];
    for interleave in [false, true] {
        for cfg in ack_filters() {
            let mut d = build(&cfg, 50, &mut RngStream::derive(7, "dup")).unwrap();
            let mut dropped = Vec::new();
            let mut out = Vec::new();
            for (i, &a) in stream.iter().enumerate() {
                let t = SimTime::from_millis(i as u64);
                d.enqueue(t, q(ack(1, a)), &mut dropped);
                d.enqueue(t, q(ack(2, 100 * (i as u32 + 1))), &mut dropped); // another flow
                if interleave && i % 3 == 2 {
                    out.extend(d.dequeue(t, &mut dropped).map(|x| x.pkt));
                }
            }
            out.extend(flush(d.as_mut(), SimTime::from_millis(20), &mut dropped));
            let sent = |a: u32| out.iter().filter(|p| p.flow.0 == 1 && ack_of(p) == a).count();
            assert_eq!(
                sent(3000),
                4,
                "{} interleave={interleave}: {:?}",
                cfg.kind(),
                out.iter().map(ack_of).collect::<Vec<_>>()
            );
            assert_eq!(sent(6000), 2, "{} interleave={interleave}", cfg.kind());
            assert!(dropped.iter().all(|(p, _)| ![3000, 6000].contains(&ack_of(p)) || p.flow.0 != 1));
            // the newest ACK always gets through
            assert_eq!(sent(8000), 1, "{}", cfg.kind());
            assert!(dropped.iter().all(|(_, r)| *r == DropReason::AckFiltered));
            assert!(d.counters().balances(d.len()));
        }
    }
}

#[test]
fn every_ack_filter_removes_something_from_a_plain_ack_stream() {
    // guards the test above against filters that never filter at all
    for cfg in ack_filters() {
        let mut d = build(&cfg, 50, &mut RngStream::derive(7, "plain")).unwrap();
        let mut dropped = Vec::new();
        for i in 0..40u32 {
            d.enqueue(SimTime::from_micros(100 * i as u64), q(ack(1, 1000 * (i + 1))), &mut dropped);
        }
        let out = flush(d.as_mut(), SimTime::from_millis(10), &mut dropped);
        assert!(d.counters().filtered() > 0, "{}", cfg.kind());
        assert_eq!(out.last().map(ack_of), Some(40_000), "{}", cfg.kind());
    }
}

/// A random packet: data, pure ACKs (advancing or duplicate, some with
/// SACK or flags) of a few TCP flows, or UDP.
fn random_packet(rng: &mut RngStream, acks: &mut [u32; 6]) -> Packet {
    let flow = rng.below(6) as u32;
    match rng.below(10) {
        0..=2 => data(flow, rng.next_u64() as u32),
        3 => udp(flow, 20 + rng.below(1400) as u32),
        _ => {
            if !rng.bernoulli(0.15) {
                acks[flow as usize] += 1460 * (1 + rng.below(3) as u32);
            }
            let mut p = ack(flow, acks[flow as usize]);
            if rng.bernoulli(0.1) {
                let a = acks[flow as usize];
                p = with_sack(p, &[(a + 1460, a + 2920)]);
            }
            if rng.bernoulli(0.05) {
                p = with_flags(p, wifitcp_wire::TcpFlags::ECE);
            }
            p
        }
    }
}

#[test]
fn ledger_balances_under_random_operations() {
    let mut idle_seen = 0;
    for (n, cfg) in all_kinds().into_iter().enumerate() {
        for seed in 0..4u64 {
            let mut rng = RngStream::derive(seed, &format!("ledger/{n}"));
            let mut d = build(&cfg, 20, &mut RngStream::derive(seed, "qdisc")).unwrap();
            let mut now = SimTime::ZERO;
            let mut acks = [0u32; 6];
            let (mut in_bytes, mut out_bytes, mut drop_bytes) = (0u64, 0u64, 0u64);
            let (mut n_out, mut n_drop) = (0u64, 0u64);
            for _ in 0..3000 {
                now += SimDur::from_micros(rng.below(3000));
                let mut dropped = Vec::new();
                if d.next_wakeup().is_some_and(|t| t <= now) {
                    d.on_timer(now, &mut dropped);
                }
                match rng.below(10) {
                    0..=5 => {
                        let p = random_packet(&mut rng, &mut acks);
                        in_bytes += p.ip_len() as u64;
                        let dest = rng.below(3) as u32;
                        d.enqueue(now, crate::disc::Queued::new(p, dest, dest), &mut dropped);
                    }
                    6..=8 => {
                        if let Some(x) = d.dequeue(now, &mut dropped) {
                            assert!(x.enqueued_at <= now);
                            out_bytes += x.size();
                            n_out += 1;
                            d.on_airtime(x.dest, SimDur::from_micros(50 + 200 * x.dest as u64));
                        }
                    }
                    _ => d.on_timer(now, &mut dropped),
                }
                n_drop += dropped.len() as u64;
                drop_bytes += dropped.iter().map(|(p, _)| p.ip_len() as u64).sum::<u64>();
                let c = d.counters();
                assert!(c.balances(d.len()), "{} seed {seed}: {c:?} len {}", cfg.kind(), d.len());
                assert_eq!((c.dequeued, c.dropped_total()), (n_out, n_drop), "{}", cfg.kind());
                assert_eq!(in_bytes, out_bytes + drop_bytes + d.bytes(), "{} bytes", cfg.kind());
                assert!(d.ready_len() <= d.len());
                assert!(d.timed() || d.next_wakeup().is_none(), "{}: untimed, with a wake-up", cfg.kind());
                assert!(d.occupancy().max_len() as usize >= d.len());
                if d.idle() {
                    // idle: empty, and asking it changes nothing
                    let before = (format!("{:?}", d.counters()), d.occupancy().max_len(), d.next_wakeup());
                    assert_eq!((d.len(), d.bytes()), (0, 0), "{}", cfg.kind());
                    let mut none = Vec::new();
                    assert!(d.dequeue(now, &mut none).is_none(), "{}", cfg.kind());
                    assert!(d.dequeue_for(now, Some(1), None, &mut none).is_none(), "{}", cfg.kind());
                    assert!(none.is_empty(), "{}", cfg.kind());
                    idle_seen += 1;
                    let after = (format!("{:?}", d.counters()), d.occupancy().max_len(), d.next_wakeup());
                    assert_eq!(before, after, "{}", cfg.kind());
                }
            }
            let mut dropped = Vec::new();
            let rest = flush(d.as_mut(), now, &mut dropped);
            assert_eq!(d.counters().dequeued, n_out + rest.len() as u64);
            assert!(d.counters().balances(0));
        }
    }
    assert!(idle_seen > 0, "no discipline was ever idle");
}

#[test]
fn same_seed_same_behaviour() {
    // determinism: two runs with the same seeds produce identical outputs
    let run = |cfg: &QdiscConfig| {
        let mut rng = RngStream::derive(3, "det");
        let mut d = build(cfg, 20, &mut RngStream::derive(3, "qdisc")).unwrap();
        let mut acks = [0u32; 6];
        let mut trace = Vec::new();
        let mut now = SimTime::ZERO;
        for _ in 0..500 {
            now += SimDur::from_micros(rng.below(2000));
            let mut dropped = Vec::new();
            if rng.bernoulli(0.6) {
                let p = random_packet(&mut rng, &mut acks);
                let dest = rng.below(3) as u32;
                d.enqueue(now, crate::disc::Queued::new(p, dest, dest), &mut dropped);
            } else if let Some(x) = d.dequeue(now, &mut dropped) {
                trace.push((x.pkt.flow.0, x.pkt.ip_len(), now));
            }
            trace.extend(dropped.iter().map(|(p, _)| (p.flow.0 + 100, p.ip_len(), now)));
        }
        trace
    };
    for cfg in all_kinds() {
        assert_eq!(run(&cfg), run(&cfg), "{}", cfg.kind());
    }
}
