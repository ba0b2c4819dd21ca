use super::*;
use crate::testutil::*;
use wifitcp_wire::TcpFlags;

fn key(flow: u32) -> FlowKey {
    FlowKey::of(&ack(flow, 1)).unwrap()
}

fn sorted() -> Keceli {
    Keceli::new(KeceliParams::paper(false))
}

/// Feed flow `flow` ACKs `acks[i]` at times `times[i]` (ms).
fn feed(k: &mut Keceli, flow: u32, acks: &[(u64, u32)], dr: &mut Dropped) {
    for &(t, a) in acks {
        k.enqueue(ms(t), q(ack(flow, a)), dr);
    }
}

#[test]
fn ewma_of_ack_interarrival_eq2() {
    let mut k = sorted();
    let mut dr = Vec::new();
    // inter-arrivals 10 ms then 20 ms: avg = 10, then 0.8*10 + 0.2*20 = 12
    feed(&mut k, 1, &[(0, 1000), (10, 2000)], &mut dr);
    assert_eq!(k.avg_ack_interval(&key(1)), Some(SimDur::from_millis(10)));
    feed(&mut k, 1, &[(30, 3000)], &mut dr);
    assert_eq!(k.avg_ack_interval(&key(1)), Some(SimDur::from_millis(12)));
}

#[test]
fn new_flow_first_couple_pass_then_hold_replace_release() {
    let mut k = sorted();
    let mut dr = Vec::new();
    // first two ACKs of a new flow go straight to the IFQ
    feed(&mut k, 1, &[(0, 1000), (1, 2000)], &mut dr);
    assert_eq!((k.ready_len(), k.held()), (2, 0));
    // third is held (cum_cur = 0); single active flow: cum_thresh = c_srt = 1
    feed(&mut k, 1, &[(2, 3000)], &mut dr);
    assert_eq!((k.ready_len(), k.held()), (2, 1));
    assert_eq!(k.threshold(ms(2), &key(1)), 1);
    // fourth replaces it (cum_cur = 1 >= 1): released, the third is filtered
    feed(&mut k, 1, &[(3, 4000)], &mut dr);
    assert_eq!((k.ready_len(), k.held()), (3, 0));
    assert_eq!(dr.len(), 1);
    assert_eq!((ack_of(&dr[0].0), dr[0].1), (3000, DropReason::AckFiltered));
    let out: Vec<u32> = drain(&mut k, ms(3), &mut dr).iter().map(|x| ack_of(&x.pkt)).collect();
    assert_eq!(out, vec![1000, 2000, 4000]);
    assert!(k.counters().balances(k.len()));
}

#[test]
fn waiting_timer_releases_after_beta_avg() {
    let mut k = sorted();
    let mut dr = Vec::new();
    feed(&mut k, 1, &[(0, 1000), (4, 2000), (8, 3000)], &mut dr);
    // avg = 4 ms (two samples of 4 ms); held since t = 8 ms; wait = 2 * 4 ms
    assert_eq!(k.held(), 1);
    assert_eq!(k.next_wakeup(), Some(ms(16)));
    k.on_timer(ms(15), &mut dr);
    assert_eq!(k.held(), 1);
    k.on_timer(ms(16), &mut dr);
    assert_eq!((k.held(), k.ready_len()), (0, 3));
    assert_eq!(k.next_wakeup(), None);
    assert!(dr.is_empty());
}

#[test]
fn waiting_timer_restarts_on_replacement() {
    let mut p = KeceliParams::paper(false);
    p.assignment = Assignment::Sorted { c_srt: 5 };
    let mut k = Keceli::new(p);
    let mut dr = Vec::new();
    feed(&mut k, 1, &[(0, 1000), (4, 2000), (8, 3000), (12, 4000)], &mut dr);
    // replaced at 12 ms (cum 1 < 5): avg still 4 ms, deadline 12 + 8
    assert_eq!(k.next_wakeup(), Some(ms(20)));
    assert_eq!(count(&dr, DropReason::AckFiltered), 1);
}

#[test]
fn timeout_timer_bounds_holding_time() {
    let mut p = KeceliParams::paper(true);
    p.assignment = Assignment::Grouped { gamma: 0.5, c: vec![50] };
    p.timeout = SimDur::from_millis(30);
    let mut k = Keceli::new(p);
    let mut dr = Vec::new();
    // ACKs every ms: the waiting timer (2 ms) keeps restarting, threshold 50
    // is not reached by 30 ms, the timeout started at the first held ACK
    // (t = 2 ms) fires at 32 ms.
    for t in 0..32u64 {
        k.enqueue(ms(t), q(ack(1, 1000 * (t as u32 + 1))), &mut dr);
    }
    assert_eq!(k.held(), 1);
    assert_eq!(k.next_wakeup(), Some(ms(32)));
    k.on_timer(ms(32), &mut dr);
    assert_eq!(k.held(), 0);
    let out: Vec<u32> = drain(&mut k, ms(32), &mut dr).iter().map(|x| ack_of(&x.pkt)).collect();
    assert_eq!(out, vec![1000, 2000, 32000]);
    assert_eq!(count(&dr, DropReason::AckFiltered), 29);
    assert!(k.counters().balances(k.len()));
}

#[test]
fn duplicate_acks_bypass_flush_held_and_reopen_pass_phase() {
    let mut k = sorted();
    let mut dr = Vec::new();
    feed(&mut k, 1, &[(0, 1000), (1, 2000), (2, 3000)], &mut dr);
    assert_eq!(k.held(), 1);
    // three duplicates of 3000: the held 3000 goes first, then each dup
    feed(&mut k, 1, &[(3, 3000), (4, 3000), (5, 3000)], &mut dr);
    assert_eq!(k.held(), 0);
    // after three dupACKs the next couple of advancing ACKs pass directly
    feed(&mut k, 1, &[(6, 9000), (7, 10000)], &mut dr);
    assert_eq!(k.held(), 0);
    feed(&mut k, 1, &[(8, 11000)], &mut dr);
    assert_eq!(k.held(), 1);
    let out: Vec<u32> = drain(&mut k, ms(8), &mut dr).iter().map(|x| ack_of(&x.pkt)).collect();
    assert_eq!(out, vec![1000, 2000, 3000, 3000, 3000, 3000, 9000, 10000]);
    assert!(dr.is_empty());
}

#[test]
fn flagged_and_sack_acks_bypass() {
    let mut k = sorted();
    let mut dr = Vec::new();
    feed(&mut k, 1, &[(0, 1000), (1, 2000), (2, 3000)], &mut dr);
    assert_eq!(k.held(), 1);
    k.enqueue(ms(3), q(with_flags(ack(1, 4000), TcpFlags::ECE)), &mut dr);
    assert_eq!((k.held(), k.ready_len()), (0, 4));
    feed(&mut k, 1, &[(4, 5000)], &mut dr);
    assert_eq!(k.held(), 1);
    k.enqueue(ms(5), q(with_sack(ack(1, 6000), &[(7000, 8000)])), &mut dr);
    assert_eq!((k.held(), k.ready_len()), (0, 6));
    assert!(dr.is_empty());
}

#[test]
fn data_goes_to_ifq_with_tail_drop() {
    let mut p = KeceliParams::paper(false);
    p.ifq_capacity = 2;
    let mut k = Keceli::new(p);
    let mut dr = Vec::new();
    for i in 0..3 {
        k.enqueue(ms(0), q(data(1, 1 + 1460 * i)), &mut dr);
    }
    assert_eq!(count(&dr, DropReason::QueueFull), 1);
    assert_eq!(k.len(), 2);
}

#[test]
fn sorted_thresholds_follow_ack_rates() {
    let mut k = sorted();
    let mut dr = Vec::new();
    // flow 1 slow (an ACK every 10 ms), flow 2 fast (every 1 ms)
    for t in 0..=40u64 {
        if t % 10 == 0 {
            k.enqueue(ms(t), q(ack(1, 1000 * (t as u32 + 1))), &mut dr);
        }
        k.enqueue(ms(t), q(ack(2, 1000 * (t as u32 + 1))), &mut dr);
    }
    // highest AvgACKint -> c_srt = 1; lowest -> c_srt * n_act = 2
    assert_eq!(k.threshold(ms(40), &key(1)), 1);
    assert_eq!(k.threshold(ms(40), &key(2)), 2);
    // flows silent for more than ActiveThresh are not counted: flow 2 alone
    k.enqueue(ms(600), q(ack(2, 999_999)), &mut dr);
    assert_eq!(k.threshold(ms(600), &key(2)), 1);
}

#[test]
fn grouped_thresholds_use_c_set() {
    let mut k = Keceli::new(KeceliParams::paper(true));
    let mut dr = Vec::new();
    // flows 1 and 2 alike (every 2 ms), flow 3 ten times slower (20 ms)
    for t in (0..=100u64).step_by(2) {
        k.enqueue(ms(t), q(ack(1, 1000 * (t as u32 + 1))), &mut dr);
        k.enqueue(ms(t), q(ack(2, 1000 * (t as u32 + 1))), &mut dr);
        if t % 20 == 0 {
            k.enqueue(ms(t), q(ack(3, 1000 * (t as u32 + 1))), &mut dr);
        }
    }
    // groups: {3} then {1, 2}; G = 2, N = 5 -> c_3 = 12 and c_5 = 20
    assert_eq!(k.threshold(ms(100), &key(3)), 12);
    assert_eq!(k.threshold(ms(100), &key(1)), 20);
    assert_eq!(k.threshold(ms(100), &key(2)), 20);
}

#[test]
fn control_queue_capacity() {
    let mut p = KeceliParams::paper(false);
    p.control_capacity = 1;
    p.pass_first = 0;
    let mut k = Keceli::new(p);
    let mut dr = Vec::new();
    // pass_first = 0: the very first ACK has no estimate -> passes; the
    // second of flow 1 is held, the second of flow 2 finds the queue full
    feed(&mut k, 1, &[(0, 1000), (1, 2000)], &mut dr);
    feed(&mut k, 2, &[(1, 1000), (2, 2000)], &mut dr);
    assert_eq!(k.held(), 1);
    assert_eq!(count(&dr, DropReason::QueueFull), 1);
    assert!(k.counters().balances(k.len()));
}

#[test]
fn threshold_matches_the_reference_assignments() {
    // `Keceli::threshold` (no sort, no allocation) against
    // `threshold::sorted` / `threshold::grouped` on the active flows in key
    // order, with ties, inactive flows and flows without an estimate.
    let mut x = 0x2545F4914F6CDD1Du64;
    let mut draw = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    for grouped in [false, true] {
        for n in 1..18u32 {
            for _ in 0..20 {
                let mut k = Keceli::new(KeceliParams::paper(grouped));
                let now = ms(1000);
                for f in 0..n {
                    let key = key(f);
                    let avg = match draw(5) {
                        0 => None,
                        _ => Some((draw(16) + 1) as f64 * 250_000.0),
                    };
                    let last = if draw(6) == 0 { ms(100) } else { ms(900) };
                    let st = FlowState {
                        avg_ns: avg,
                        last_arr: last,
                        last_ack: 0,
                        dup_count: 0,
                        pass_left: 0,
                        held: None,
                        cum_cur: 0,
                        wait_deadline: SimTime::NEVER,
                        timeout_deadline: SimTime::NEVER,
                    };
                    let at = k.flows.binary_search_by(|(kk, _)| kk.cmp(&key)).unwrap_err();
                    k.flows.insert(at, (key, st.clone()));
                    k.rank_view.insert(at, (st.avg_ns.unwrap_or(f64::NAN), st.last_arr));
                }
                let active: Vec<(FlowKey, f64)> = k
                    .flows
                    .iter()
                    .filter(|(_, s)| now.saturating_since(s.last_arr) <= SimDur::from_millis(500))
                    .filter_map(|(kk, s)| s.avg_ns.map(|a| (*kk, a)))
                    .collect();
                let avgs: Vec<f64> = active.iter().map(|x| x.1).collect();
                let want = if grouped {
                    threshold::grouped(&avgs, 0.5, &[2, 6, 12, 16, 20])
                } else {
                    threshold::sorted(&avgs, 1)
                };
                for (i, (kk, _)) in active.iter().enumerate() {
                    assert_eq!(k.threshold(now, kk), want[i], "grouped {grouped} avgs {avgs:?} flow {i}");
                }
            }
        }
    }
}
