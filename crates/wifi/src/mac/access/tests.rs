use super::*;
use wifitcp_core::{RngStream, SimDur, SimTime};

const SLOT: SimDur = SimDur::from_micros(9);

fn us(x: u64) -> SimTime {
    SimTime::ZERO + SimDur::from_micros(x)
}

#[test]
fn dcf_counts_whole_idle_slots_edca_counts_boundaries() {
    // Counting from 34 us; busy at 34 + 2.5 slots: two whole idle slots.
    let busy = us(34) + SimDur::from_nanos(22_500);
    for (rule, left) in [(CountRule::Dcf, 8), (CountRule::DcfBusySlotCounts, 7), (CountRule::Edca, 7)] {
        let s = Slotting::new(SLOT, rule);
        let mut b = Backoff::with(Some(us(34)), Some(10), 15);
        b.freeze(busy, &s, Some(SimTime::ZERO));
        assert_eq!((b.count_from(), b.slots()), (None, Some(left)), "{rule:?}");
    }
    // Busy inside the IFS (before counting starts): nothing passes, for
    // every rule.
    for rule in [CountRule::Dcf, CountRule::DcfBusySlotCounts, CountRule::Edca] {
        let s = Slotting::new(SLOT, rule);
        let mut b = Backoff::with(Some(us(34)), Some(10), 15);
        b.freeze(us(30), &s, Some(SimTime::ZERO));
        assert_eq!(b.slots(), Some(10));
    }
}

#[test]
fn a_countdown_ending_now_transmits_now() {
    let s = Slotting::new(SLOT, CountRule::Dcf);
    let mut b = Backoff::with(Some(us(34)), Some(3), 15);
    let at = b.tx_at(&s, Some(SimTime::ZERO)).unwrap();
    assert_eq!(at, us(34 + 27));
    b.freeze(at, &s, Some(SimTime::ZERO));
    assert_eq!(b.count_from(), Some(us(34)), "frozen at its own transmit instant");
    // Without a frame it freezes (post-backoff) and the slots pass.
    b.freeze(at, &s, None);
    assert_eq!((b.count_from(), b.slots()), (None, Some(0)));
    // A frame arriving after the countdown ended goes at its arrival.
    let b = Backoff::with(Some(us(34)), Some(3), 15);
    assert_eq!(b.tx_at(&s, Some(us(100))), Some(us(100)));
    assert!(b.expired(us(61), &s) && !b.expired(us(60), &s));
}

#[test]
fn deferral_eifs_and_nav() {
    let t = IfsTimes { difs: SimDur::from_micros(34), eifs: SimDur::from_micros(94) };
    let mut d = Deferral::new();
    d.cca(us(10), true);
    assert_eq!(d.free_since(), None);
    d.heard(us(100), false, true, SimDur::from_micros(500));
    assert!(d.use_eifs && d.nav_end == SimTime::ZERO, "an erroneous frame sets no NAV");
    d.cca(us(100), false);
    assert_eq!(d.free_since(), Some(us(100)));
    // DCF: EIFS; EDCA with AIFSN 7 (SIFS 16 + 7 x 9 = 79 us): EIFS - DIFS + AIFS.
    assert_eq!(d.ifs(t.difs, &t), SimDur::from_micros(94));
    assert_eq!(d.ifs(SimDur::from_micros(79), &t), SimDur::from_micros(139));
    d.heard(us(200), true, true, SimDur::from_micros(50));
    assert!(!d.use_eifs);
    assert_eq!(d.nav_end, us(250));
    assert_eq!(d.ifs(t.difs, &t), t.difs);
    d.heard(us(300), true, false, SimDur::from_micros(500));
    assert_eq!(d.nav_end, us(250), "a frame addressed to the station sets no NAV");
    d.self_busy_until = us(400);
    assert_eq!(d.free_since(), Some(us(400)));
}

#[test]
fn internal_collision_highest_priority_wins() {
    let mut rng = RngStream::derive(1, "test/internal");
    let mut e = [Backoff::with(Some(us(50)), Some(0), 15); 4];
    let due = [
        Due { index: 0, priority: 0, cw_max: 1023 },
        Due { index: 2, priority: 5, cw_max: 15 },
        Due { index: 3, priority: 6, cw_max: 7 },
    ];
    let (w, lost) = resolve_internal(&mut e, &due, &mut rng).unwrap();
    assert_eq!((w, lost), (3, 2));
    assert_eq!((e[3].slots(), e[3].count_from()), (None, None));
    assert_eq!((e[0].cw, e[2].cw), (31, 15), "losers' CW doubles up to CWmax");
    assert!(e[0].slots().unwrap() <= 31 && e[0].count_from().is_none());
    assert_eq!(e[1], Backoff::with(Some(us(50)), Some(0), 15), "not due: untouched");
    assert!(resolve_internal(&mut e, &[], &mut rng).is_none());
}

fn mu(aifsn: u32, timer_us: u64) -> MuEdca {
    MuEdca::new(MuEdcaParams { aifsn, cw_min: 31, cw_max: 63, timer: SimDur::from_micros(timer_us) })
}

#[test]
fn mu_edca_aifsn_zero_stops_counting_until_the_timer_runs_out() {
    // 802.11ax-2021 26.2.7: MU AIFSN 0 disables EDCA for the AC while
    // the MU EDCA timer runs; at expiry the entity defers its normal AIFS.
    let t = IfsTimes { difs: SimDur::from_micros(34), eifs: SimDur::from_micros(94) };
    let (sifs, slot) = (SimDur::from_micros(16), SLOT);
    let mut d = Deferral::new();
    d.cca(us(100), false);
    let mut m = mu(0, 8192);
    // Off before the switch: AIFSN 3 -> AIFS 43 us.
    assert_eq!(m.count_start(&d, 3, sifs, slot, &t), Some(us(143)));
    assert!(m.start(us(100)));
    assert!(m.disabled());
    assert_eq!(m.count_start(&d, 3, sifs, slot, &t), None, "no counting while EDCA is disabled");
    assert_eq!(m.expires_at(), us(8292));
    assert!(!m.expire(us(8291)));
    assert!(m.expire(us(8292)));
    assert!(!m.active());
    // The medium has been free since 100 us: AIFS counts from the expiry.
    assert_eq!(m.count_start(&d, 3, sifs, slot, &t), Some(us(8292 + 43)));
    // A later busy period: from its end as usual.
    d.cca(us(9000), false);
    assert_eq!(m.count_start(&d, 3, sifs, slot, &t), Some(us(9043)));
}

#[test]
fn mu_edca_parameters_while_the_timer_runs() {
    let t = IfsTimes { difs: SimDur::from_micros(34), eifs: SimDur::from_micros(94) };
    let (sifs, slot) = (SimDur::from_micros(16), SLOT);
    let mut d = Deferral::new();
    d.cca(us(0), false);
    let mut m = mu(7, 1000);
    assert_eq!((m.aifsn(3), m.cw_min(15), m.cw_max(1023)), (3, 15, 1023));
    m.start(us(0));
    assert_eq!((m.aifsn(3), m.cw_min(15), m.cw_max(1023)), (7, 31, 63));
    // AIFS = 16 + 7 x 9 = 79 us.
    assert_eq!(m.count_start(&d, 3, sifs, slot, &t), Some(us(79)));
    // Restarted by a later switch: the timer runs from then.
    m.start(us(500));
    assert!(!m.expire(us(1000)));
    assert!(m.expire(us(1500)));
    assert_eq!((m.aifsn(3), m.cw_min(15), m.cw_max(1023)), (3, 15, 1023));
    assert_eq!(m.count_start(&d, 3, sifs, slot, &t), Some(us(43)), "AIFSN > 0 adds no deferral at expiry");
    // Timer 0: MU EDCA off, no switch.
    let mut off = MuEdca::default();
    assert!(!off.start(us(0)));
    assert!(!off.active());
    assert_eq!(off.expires_at(), SimTime::NEVER);
}

#[test]
fn a_frame_finding_the_medium_busy_at_an_empty_queue_draws_a_backoff() {
    // 10.3.4.2 / 10.3.4.3 (10.22.2.2 a): with no backoff pending a frame
    // goes without one only if it finds the medium idle; a post-backoff
    // that ran out before the medium turned busy leaves none pending, and
    // a frame arriving at an empty queue then backs off like any other
    // that finds the medium busy. The next frame of a backlog does not.
    let s = Slotting::new(SLOT, CountRule::Dcf);
    let mut ran_out = Backoff::with(Some(us(34)), Some(3), 15);
    ran_out.freeze(us(200), &s, None);
    assert_eq!((ran_out.count_from(), ran_out.slots()), (None, Some(0)));
    let after = |busy: bool, empty: bool| -> Vec<Option<u32>> {
        (0..20u64)
            .map(|seed| {
                let mut b = ran_out;
                b.frame_arrives(us(210), &s, busy, empty, &mut RngStream::derive(seed, "test/arrival"));
                b.slots()
            })
            .collect()
    };
    let drawn = after(true, true);
    assert!(drawn.iter().all(|k| k.is_some_and(|k| k <= 15)) && drawn.iter().any(|&k| k > Some(0)), "{drawn:?}");
    for (busy, empty) in [(true, false), (false, true), (false, false)] {
        assert!(after(busy, empty).iter().all(|&k| k == Some(0)), "busy {busy} empty {empty}");
    }
    // No backoff ever drawn, medium idle: access after the IFS.
    let mut rng = RngStream::derive(1, "test/arrival");
    let mut fresh = Backoff::new(15);
    fresh.frame_arrives(us(210), &s, false, true, &mut rng);
    assert_eq!(fresh.slots(), Some(0));
    // A countdown still running is kept, busy or not.
    let mut running = Backoff::with(None, Some(5), 15);
    running.frame_arrives(us(210), &s, true, true, &mut rng);
    assert_eq!(running.slots(), Some(5));
    // Busy: physical CS, the NAV, or the station's own busy period.
    let mut d = Deferral::new();
    assert!(!d.busy_at(us(10)));
    d.cca(us(10), true);
    assert!(d.busy_at(us(10)));
    d.cca(us(20), false);
    d.heard(us(20), true, true, SimDur::from_micros(50));
    assert!(d.busy_at(us(69)) && !d.busy_at(us(70)));
    d.self_busy_until = us(100);
    assert!(d.busy_at(us(99)) && !d.busy_at(us(100)));
    // The queue: a frame handed over at the instant the MAC asked was
    // waiting; one handed over later found it empty.
    let mut q = Intake::new();
    q.asked(us(300));
    assert!(!q.queue_was_empty(us(300)) && q.queue_was_empty(us(301)));
}

#[test]
fn an_edcaf_sends_a_late_frame_at_a_slot_boundary_the_dcf_at_once() {
    // Counting from 100 us with 2 slots left: the countdown ends at 118.
    // A frame ready later goes at once under the DCF (10.3.4.2), at the
    // next slot boundary (127, 136, ...) under EDCA (10.22.2.4).
    let b = Backoff::with(Some(us(100)), Some(2), 15);
    let edca = Slotting::new(SLOT, CountRule::Edca);
    let dcf = Slotting::new(SLOT, CountRule::Dcf);
    for (ready, edca_at, dcf_at) in [(50, 118, 118), (118, 118, 118), (119, 127, 119), (127, 127, 127), (130, 136, 130)]
    {
        assert_eq!(b.tx_at(&edca, Some(us(ready))), Some(us(edca_at)), "EDCA, ready at {ready}");
        assert_eq!(b.tx_at(&dcf, Some(us(ready))), Some(us(dcf_at)), "DCF, ready at {ready}");
    }
    // The medium turns busy before that boundary: the frame waits for the
    // next idle period (no slot passes to a counter already at 0).
    let mut late = b;
    late.freeze(us(131), &edca, Some(us(130)));
    assert_eq!((late.count_from(), late.slots()), (None, Some(0)));
}
