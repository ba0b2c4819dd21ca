//! Property tests (proptest, with shrinking) of every queue discipline:
//! random sequences of enqueues, dequeues and timer calls, checking
//!
//! - conservation: every offered packet leaves exactly once, through
//!   `dequeue` or the `dropped` vector, or is still queued (ids checked
//!   one by one, not only counted), and the counters agree;
//! - order: within one flow, packets of one kind (data or pure ACK) leave
//!   in the order they were offered (UDP apart from TCP) (no discipline here reorders a flow:
//!   per-flow and per-station queues are FIFO; ACK filtering only removes);
//! - sojourn: a dequeued item was enqueued no later than `now`.
use crate::config::build;
use crate::conformance::all_kinds;
use crate::disc::Queued;
use crate::tcpack::pure_ack;
use crate::testutil::*;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use wifitcp_core::{RngStream, SimDur, SimTime};
use wifitcp_wire::Packet;

#[derive(Clone, Debug)]
enum Op {
    /// Offer a packet: kind (0..=2 data, 3 UDP, else ACK), flow, an ACK
    /// advance of 0..=2 segments, SACK block or not. A flow's next-hop
    /// station (and buffer class) is `flow % 3`, as a flow has one station.
    Enqueue {
        kind: u8,
        flow: u8,
        advance: u8,
        sack: bool,
    },
    Dequeue,
    Timer,
    /// Let time pass (microseconds).
    Wait(u32),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..10, 0u8..4, 0u8..3, any::<bool>())
            .prop_map(|(kind, flow, advance, sack)| Op::Enqueue { kind, flow, advance, sack }),
        4 => Just(Op::Dequeue),
        1 => Just(Op::Timer),
        3 => (0u32..20_000).prop_map(Op::Wait),
    ]
}

fn make(kind: u8, flow: u8, advance: u8, sack: bool, acks: &mut [u32; 4], seqs: &mut [u32; 4]) -> Packet {
    let f = flow as usize;
    match kind {
        0..=2 => {
            seqs[f] += 1460;
            data(flow as u32, seqs[f])
        }
        3 => udp(flow as u32, 200),
        _ => {
            acks[f] += 1460 * advance as u32;
            let p = ack(flow as u32, acks[f]);
            if sack {
                with_sack(p, &[(acks[f] + 1460, acks[f] + 2920)])
            } else {
                p
            }
        }
    }
}

/// Order class of a packet: its flow and kind (0 TCP data, 1 pure ACK,
/// 2 UDP; a flow's UDP and TCP packets are different 5-tuples, which
/// flow-queueing disciplines may serve in any relative order).
fn class(p: &Packet) -> (u32, u8) {
    let kind = if p.tcp().is_none() {
        2
    } else if pure_ack(p).is_some() {
        1
    } else {
        0
    };
    (p.flow.0, kind)
}

fn check(cfg_index: usize, ops: &[Op]) -> Result<(), TestCaseError> {
    let cfg = &all_kinds()[cfg_index];
    let mut d = build(cfg, 12, &mut RngStream::derive(1, "prop")).unwrap();
    let (mut acks, mut seqs) = ([0u32; 4], [0u32; 4]);
    let mut now = SimTime::ZERO;
    let mut offered: BTreeMap<u64, usize> = BTreeMap::new(); // id -> offer order
    let mut gone: BTreeSet<u64> = BTreeSet::new();
    let mut last_out: BTreeMap<(u32, u8), usize> = BTreeMap::new();
    let mut dropped = Vec::new();
    for op in ops {
        match *op {
            Op::Enqueue { kind, flow, advance, sack } => {
                let p = make(kind, flow, advance, sack, &mut acks, &mut seqs);
                let dest = flow % 3;
                offered.insert(p.id.0, offered.len());
                d.enqueue(now, Queued::new(p, dest as u32, dest as u32), &mut dropped);
            }
            Op::Dequeue => {
                if let Some(x) = d.dequeue(now, &mut dropped) {
                    prop_assert!(x.enqueued_at <= now);
                    let id = x.pkt.id.0;
                    prop_assert!(offered.contains_key(&id), "{}: unknown packet out", cfg.kind());
                    prop_assert!(gone.insert(id), "{}: packet {id} left twice", cfg.kind());
                    let order = offered[&id];
                    let c = class(&x.pkt);
                    if let Some(&prev) = last_out.get(&c) {
                        prop_assert!(prev < order, "{}: flow {:?} reordered", cfg.kind(), c);
                    }
                    last_out.insert(c, order);
                    d.on_airtime(x.dest, SimDur::from_micros(100 + 50 * x.dest as u64));
                }
            }
            Op::Timer => {
                if d.next_wakeup().is_some_and(|t| t <= now) {
                    d.on_timer(now, &mut dropped);
                }
            }
            Op::Wait(us) => now += SimDur::from_micros(us as u64),
        }
        for (p, _) in dropped.drain(..) {
            prop_assert!(offered.contains_key(&p.id.0), "{}: unknown packet dropped", cfg.kind());
            prop_assert!(gone.insert(p.id.0), "{}: packet {} left twice", cfg.kind(), p.id.0);
        }
        let c = d.counters();
        prop_assert_eq!(c.enqueued as usize, offered.len());
        prop_assert!(c.balances(d.len()), "{}: counters {:?}, len {}", cfg.kind(), c, d.len());
        prop_assert_eq!(offered.len(), gone.len() + d.len(), "{}: conservation", cfg.kind());
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_discipline_conserves_packets_and_keeps_flow_order(
        cfg in 0..all_kinds().len(),
        ops in proptest::collection::vec(op(), 1..400),
    ) {
        check(cfg, &ops)?;
    }
}
