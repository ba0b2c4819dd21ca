//! DCF timeline tests on tiny integer timelines: slot 1 us, SIFS 3 us,
//! DIFS 5 us, EIFS 20 us, ACK timeout 4 us, 1 byte per us (8 Mbit/s with
//! linear timing and no preamble), so a 100-byte MPDU lasts 100 us and an
//! ACK 14 us.
use super::*;
use crate::medium::{Bss, BssOutput, FixedPer, FrameErrorModel};
use crate::phy::{PhyConfig, PhyOverrides, PhyStandard, PhyTiming, TimingModel};
use std::cell::RefCell;
use std::rc::Rc;
use wifitcp_core::{EventQueue, FlowId, PacketId};
use wifitcp_wire::ip::PROTO_UDP;
use wifitcp_wire::{Ipv4Addr, Ipv4Header, UdpHeader};

/// Deliver a copy of `f` to `d`, carrying `msdu` (a data frame addressed
/// to it) with the frame's sequence number and Retry bit.
fn rx(d: &mut Dcf, now: SimTime, f: &Frame, msdu: Option<Packet>, ok: bool, out: &mut Vec<MacOutput>) {
    let mut f = f.clone();
    if let Some(p) = msdu {
        f.mpdus = Mpdus::one(Mpdu {
            seq: f.seq,
            retry: f.retry,
            tid: 0,
            ack: AckPolicy::Normal,
            bytes: f.mpdu_bytes,
            body: MpduBody::Msdu(Msdu::new(p)),
            fcs_ok: ok,
        });
    }
    d.on_rx_end(now, &mut f, ok, out);
}

fn us(x: u64) -> SimTime {
    SimTime::from_micros(x)
}

fn timing() -> PhyTiming {
    let mut c = PhyConfig::new(PhyStandard::Dot11a, 6.0);
    c.control_rate_mbps = Some(8.0);
    c.timing_model = TimingModel::Linear;
    c.set_overrides(PhyOverrides {
        slot_us: Some(1.0),
        sifs_us: Some(3.0),
        difs_us: Some(5.0),
        eifs_us: Some(20.0),
        preamble_us: Some(0.0),
        plcp_header_us: Some(0.0),
        rx_phy_start_delay_us: Some(0.0),
    });
    PhyTiming::from_config(&c)
        .map(|mut t| {
            t.data_rate = crate::phy::Rate(80);
            t
        })
        .unwrap()
}

fn params(rts: u32) -> DcfParams {
    DcfParams {
        timing: timing(),
        cw_min: 15,
        cw_max: 63,
        short_retry_limit: 3,
        long_retry_limit: 2,
        rts_threshold: rts,
        busy_slot_counts: false,
        eifs_after_timeout: false,
        backoff_on_idle_access: false,
        ack_policy: AckPolicy::Normal,
    }
}

/// A UDP packet whose data MPDU is exactly 100 bytes.
fn pkt(id: u64) -> Packet {
    let ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 2), Ipv4Addr::new(10, 0, 0, 1), PROTO_UDP);
    // 24 + 8 + 20 + 8 + payload + 4 = 100
    Packet::new_udp(PacketId(id), FlowId(0), SimTime::ZERO, ip, UdpHeader { src_port: 1, dst_port: 2 }, 36)
}

fn sta(addr: u32, rts: u32) -> Dcf {
    Dcf::new(MacAddr(addr), params(rts), RngStream::derive(1, &format!("mac/{addr}")))
}

fn started(out: &[MacOutput]) -> Option<&Frame> {
    out.iter().find_map(|o| if let MacOutput::StartTx(f) = o { Some(f) } else { None })
}

#[test]
fn timing_fixture_is_integer() {
    let t = timing();
    assert_eq!(t.data_time(100), SimDur::from_micros(100));
    assert_eq!(t.ack_time(), SimDur::from_micros(14));
    assert_eq!(t.ack_timeout(), SimDur::from_micros(4));
}

#[test]
fn idle_medium_sends_after_difs_without_backoff() {
    let mut d = sta(1, u32::MAX);
    let mut out = vec![];
    d.start_msdu(us(0), pkt(1), MacAddr(0), &mut out);
    assert_eq!(d.next_wakeup(), us(5));
    d.on_wake(us(5), &mut out);
    let f = started(&out).expect("transmits at DIFS");
    assert_eq!(f.kind, FrameKind::Data);
    assert_eq!(f.duration, SimDur::from_micros(3 + 14));
    assert_eq!(f.airtime, SimDur::from_micros(100));
}

#[test]
fn ns2_idle_access_draws_a_backoff_first() {
    // backoff_on_idle_access (ns-2.35 Mac802_11::send): the same idle
    // medium, but the frame waits DIFS + k slots with k drawn from [0, CW].
    let mut d = sta(1, u32::MAX);
    d.edit_params(|p| p.backoff_on_idle_access = true);
    let mut out = vec![];
    d.start_msdu(us(0), pkt(1), MacAddr(0), &mut out);
    let k = d.bo.slots().expect("drawn") as u64;
    assert!(k <= 15);
    assert_eq!(d.next_wakeup(), us(5 + k));
    // the draw comes from the station's stream: over seeds it is not always 0
    let draws: Vec<u32> = (0..20u64)
        .map(|seed| {
            let mut e = Dcf::new(MacAddr(1), params(u32::MAX), RngStream::derive(seed, "mac/sta1"));
            e.edit_params(|p| p.backoff_on_idle_access = true);
            e.start_msdu(us(0), pkt(1), MacAddr(0), &mut vec![]);
            e.bo.slots().unwrap()
        })
        .collect();
    assert!(draws.iter().any(|&k| k > 0) && draws.iter().all(|&k| k <= 15), "{draws:?}");
    // a completed (post-)backoff does not give immediate access either
    let mut e = sta(1, u32::MAX);
    e.edit_params(|p| p.backoff_on_idle_access = true);
    let picks: Vec<Option<u32>> = (0..20)
        .map(|i| {
            e.cur = super::Service::Idle(None);
            e.bo.set_slots(Some(0));
            e.start_msdu(us(1000 * i), pkt(i), MacAddr(0), &mut vec![]);
            e.bo.slots()
        })
        .collect();
    assert!(picks.iter().any(|k| k.unwrap() > 0), "{picks:?}");
}

#[test]
fn backoff_freezes_on_busy_and_resumes_after_difs() {
    let mut d = sta(1, u32::MAX);
    let mut out = vec![];
    d.on_cca(us(0), true, &mut out); // someone else transmits
    d.start_msdu(us(1), pkt(1), MacAddr(0), &mut out);
    d.bo.set_slots(Some(7)); // force a known draw
    assert_eq!(d.next_wakeup(), SimTime::NEVER, "frozen while busy");
    d.on_cca(us(10), false, &mut out);
    // DIFS ends at 15, 7 slots -> 22
    assert_eq!(d.next_wakeup(), us(22));
    // busy again at 18.5: slots [15,16),[16,17),[17,18) counted -> 4 left
    d.on_cca(SimTime::from_nanos(18_500), true, &mut out);
    assert_eq!(d.bo.slots(), Some(4));
    assert_eq!(d.next_wakeup(), SimTime::NEVER);
    d.on_cca(us(30), false, &mut out);
    assert_eq!(d.next_wakeup(), us(30 + 5 + 4));
}

#[test]
fn eifs_after_error_and_cleared_by_good_frame() {
    let mut d = sta(1, u32::MAX);
    let mut out = vec![];
    d.on_cca(us(0), true, &mut out);
    d.start_msdu(us(0), pkt(1), MacAddr(0), &mut out);
    d.bo.set_slots(Some(2));
    let other = Frame {
        mu: None,
        kind: FrameKind::Data,
        ta: MacAddr(2),
        ra: MacAddr(0),
        duration: SimDur::ZERO,
        seq: 0,
        retry: false,
        mpdu_bytes: 100,
        rate: timing().data_rate,
        airtime: SimDur::from_micros(100),
        contended: true,
        mpdus: Mpdus::none(),
    };
    rx(&mut d, us(100), &other, None, false, &mut out);
    d.on_cca(us(100), false, &mut out);
    assert_eq!(d.next_wakeup(), us(100 + 20 + 2), "EIFS after an erroneous frame");
    // A correct frame before the EIFS ends switches back to DIFS.
    d.on_cca(us(105), true, &mut out);
    rx(&mut d, us(110), &other, None, true, &mut out);
    d.on_cca(us(110), false, &mut out);
    assert_eq!(d.next_wakeup(), us(110 + 5 + 2));
}

#[test]
fn nav_defers_until_duration_expires() {
    let mut d = sta(1, u32::MAX);
    let mut out = vec![];
    d.on_cca(us(0), true, &mut out);
    d.start_msdu(us(0), pkt(1), MacAddr(0), &mut out);
    d.bo.set_slots(Some(0));
    let rts = Frame {
        mu: None,
        kind: FrameKind::Rts,
        ta: MacAddr(2),
        ra: MacAddr(0),
        duration: SimDur::from_micros(200),
        seq: 0,
        retry: false,
        mpdu_bytes: 20,
        rate: timing().control_rate,
        airtime: SimDur::from_micros(20),
        contended: true,
        mpdus: Mpdus::none(),
    };
    rx(&mut d, us(20), &rts, None, true, &mut out);
    d.on_cca(us(20), false, &mut out);
    assert_eq!(d.next_wakeup(), us(220 + 5));
}

#[test]
fn ack_timeout_doubles_cw_and_drops_at_retry_limit() {
    let mut d = sta(1, u32::MAX);
    let mut out = vec![];
    d.start_msdu(us(0), pkt(1), MacAddr(0), &mut out);
    let mut t = d.next_wakeup();
    let mut cws = vec![];
    for attempt in 0..3 {
        out.clear();
        d.on_wake(t, &mut out);
        let f = started(&out).expect("transmits");
        assert_eq!(f.retry, attempt > 0);
        let end = t + f.airtime;
        d.on_tx_end(end, &mut out);
        assert_eq!(d.next_wakeup(), end + SimDur::from_micros(4), "ACK timeout");
        out.clear();
        d.on_wake(end + SimDur::from_micros(4), &mut out);
        cws.push(d.bo.cw);
        t = d.next_wakeup();
        if attempt < 2 {
            // Counting starts DIFS after the timeout.
            let k = d.bo.slots().unwrap() as u64;
            assert_eq!(t, end + SimDur::from_micros(4 + 5 + k));
        }
    }
    // short retry limit 3: three attempts, then a drop; CW 31, 63 then reset.
    assert_eq!(cws, vec![31, 63, 15]);
    assert!(out.iter().any(|o| matches!(o, MacOutput::Dropped(_, DropReason::RetryLimit))));
    assert_eq!(d.counters().attempts, 3);
    assert_eq!(d.counters().retries, 2);
    assert_eq!(d.counters().drops_retry_limit, 1);
    assert!(d.is_ready());
}

#[test]
fn retry_limit_counts_attempts() {
    // dot11ShortRetryLimit is a number of transmission attempts (Annex C;
    // ns-2 discards when the count reaches it, ns-3 retries while below it):
    // with limit 1 the frame is sent once and discarded at the ACK timeout,
    // with no retransmission.
    let mut d = sta(1, u32::MAX);
    d.edit_params(|p| p.short_retry_limit = 1);
    let mut out = vec![];
    d.start_msdu(us(0), pkt(1), MacAddr(0), &mut out);
    let t = d.next_wakeup();
    out.clear();
    d.on_wake(t, &mut out);
    let f = started(&out).expect("transmits");
    let end = t + f.airtime;
    d.on_tx_end(end, &mut out);
    out.clear();
    d.on_wake(end + SimDur::from_micros(4), &mut out);
    assert!(out.iter().any(|o| matches!(o, MacOutput::Dropped(_, DropReason::RetryLimit))));
    assert_eq!((d.counters().attempts, d.counters().retries, d.counters().drops_retry_limit), (1, 0, 1));
    assert_eq!(d.bo.cw, 15, "CW reset after the discard");
}

#[test]
fn receiver_acks_after_sifs_and_discards_duplicates() {
    let mut d = sta(0, u32::MAX);
    let mut out = vec![];
    let mut f = Frame {
        mu: None,
        kind: FrameKind::Data,
        ta: MacAddr(1),
        ra: MacAddr(0),
        duration: SimDur::from_micros(17),
        seq: 9,
        retry: false,
        mpdu_bytes: 100,
        rate: timing().data_rate,
        airtime: SimDur::from_micros(100),
        contended: true,
        mpdus: Mpdus::none(),
    };
    d.on_cca(us(0), true, &mut out);
    rx(&mut d, us(100), &f, Some(pkt(1)), true, &mut out);
    assert!(matches!(out[0], MacOutput::Deliver { .. }));
    assert_eq!(d.next_wakeup(), us(103));
    out.clear();
    d.on_cca(us(100), false, &mut out);
    d.on_wake(us(103), &mut out);
    assert_eq!(started(&out).unwrap().kind, FrameKind::Ack);
    d.on_tx_end(us(117), &mut out);
    out.clear();
    f.retry = true;
    d.on_cca(us(200), true, &mut out);
    rx(&mut d, us(300), &f, Some(pkt(1)), true, &mut out);
    assert!(out.iter().all(|o| !matches!(o, MacOutput::Deliver { .. })), "duplicate not delivered");
    assert_eq!(d.counters().rx_duplicates, 1);
    assert_eq!(d.next_wakeup(), us(303), "duplicate still acknowledged");
}

#[test]
fn false_duplicate_after_sequence_wrap_is_acked_and_reported_dropped() {
    // seq 5 from station 1 (packet 1); 4096 frames later a new MSDU
    // (packet 2) carries seq 5 again and its first attempt failed, so it
    // arrives with Retry set: the receiver discards it as the standard
    // says, acknowledges it, and reports the packet as dropped.
    let mut d = sta(0, u32::MAX);
    let mut out = vec![];
    let mut f = Frame {
        mu: None,
        kind: FrameKind::Data,
        ta: MacAddr(1),
        ra: MacAddr(0),
        duration: SimDur::from_micros(17),
        seq: 5,
        retry: false,
        mpdu_bytes: 100,
        rate: timing().data_rate,
        airtime: SimDur::from_micros(100),
        contended: true,
        mpdus: Mpdus::none(),
    };
    d.on_cca(us(0), true, &mut out);
    rx(&mut d, us(100), &f, Some(pkt(1)), true, &mut out);
    d.on_cca(us(100), false, &mut out);
    d.on_wake(us(103), &mut out);
    d.on_tx_end(us(117), &mut out);
    out.clear();
    f.retry = true;
    d.on_cca(us(200), true, &mut out);
    rx(&mut d, us(300), &f, Some(pkt(2)), true, &mut out);
    assert!(out.iter().all(|o| !matches!(o, MacOutput::Deliver { .. })), "not delivered");
    let dropped: Vec<_> =
        out.iter().filter_map(|o| if let MacOutput::Dropped(id, r) = o { Some((*id, *r)) } else { None }).collect();
    assert_eq!(dropped, vec![(PacketId(2), DropReason::DuplicateFrame)]);
    assert_eq!((d.counters().rx_duplicates, d.counters().rx_false_duplicates), (0, 1));
    assert_eq!(d.next_wakeup(), us(303), "acknowledged");
    // Its retransmission is a true duplicate: silent.
    out.clear();
    d.on_cca(us(303), false, &mut out);
    d.on_wake(us(303), &mut out);
    d.on_tx_end(us(317), &mut out);
    out.clear();
    d.on_cca(us(400), true, &mut out);
    rx(&mut d, us(500), &f, Some(pkt(2)), true, &mut out);
    assert!(out.iter().all(|o| !matches!(o, MacOutput::Deliver { .. } | MacOutput::Dropped(..))));
    assert_eq!((d.counters().rx_duplicates, d.counters().rx_false_duplicates), (1, 1));
}

#[test]
fn post_backoff_completed_allows_immediate_access() {
    let mut d = sta(1, u32::MAX);
    let mut out = vec![];
    d.bo.set_slots(Some(3));
    d.resume(); // idle since 0: counting from 5
                // The frame arrives long after the post-backoff ended.
    d.start_msdu(us(50), pkt(1), MacAddr(0), &mut out);
    assert_eq!(d.next_wakeup(), us(50));
}

/// Drive a whole BSS with an event queue; returns the discards it reported
/// (time in us, station, packet id, whether after receipt) and the BSS.
fn run_bss(macs: Vec<Dcf>, frames: Vec<(u64, usize, usize)>, until: u64) -> (Vec<(u64, usize, u64, bool)>, Bss) {
    run_bss_with(macs, Box::new(FixedPer::default()), frames, until)
}

/// `run_bss` with a given channel error model.
fn run_bss_with(
    macs: Vec<Dcf>,
    errors: Box<dyn FrameErrorModel>,
    frames: Vec<(u64, usize, usize)>,
    until: u64,
) -> (Vec<(u64, usize, u64, bool)>, Bss) {
    enum Ev {
        Give(usize, usize, u64),
        Wake,
        TxEnd(u32),
    }
    let mut bss = Bss::new(macs, errors, RngStream::derive(1, "medium"));
    let mut q = EventQueue::new();
    for (t, s, ra) in frames {
        q.push(us(t), Ev::Give(s, ra, t));
    }
    let mut log = vec![];
    let mut out = vec![];
    bss.reschedule_all(&mut out);
    for o in out.drain(..) {
        if let BssOutput::Wake { at } = o {
            q.push(at, Ev::Wake);
        }
    }
    while let Some((now, ev)) = q.pop() {
        if now > us(until) {
            break;
        }
        match ev {
            Ev::Give(s, ra, id) => bss.give_msdu(now, s, pkt(id), ra, &mut out),
            Ev::Wake => bss.wake(now, &mut out),
            Ev::TxEnd(id) => bss.tx_end(now, id, &mut out),
        }
        for o in out.drain(..) {
            match o {
                BssOutput::Wake { at } => {
                    q.push(at, Ev::Wake);
                }
                BssOutput::TxEnd { id, n, at } => {
                    for id in BssOutput::tx_ids(id, n) {
                        q.push(at, Ev::TxEnd(id));
                    }
                }
                BssOutput::Dropped { sta, id, .. } => log.push((now.as_nanos() / 1000, sta as usize, id.0, false)),
                BssOutput::DiscardedAfterReceipt { sta, id } => {
                    log.push((now.as_nanos() / 1000, sta as usize, id.0, true))
                }
                _ => {}
            }
        }
    }
    (log, bss)
}

/// An AP and two stations that got a frame each while the medium was
/// busy, with the same backoff: both transmit at 9 us and collide.
fn same_slot_pair() -> Vec<Dcf> {
    let mut a = sta(1, u32::MAX);
    let mut b = sta(2, u32::MAX);
    let mut out = vec![];
    a.on_cca(us(0), true, &mut out);
    b.on_cca(us(0), true, &mut out);
    a.start_msdu(us(0), pkt(1), MacAddr(0), &mut out);
    b.start_msdu(us(0), pkt(2), MacAddr(0), &mut out);
    a.bo.set_slots(Some(3));
    b.bo.set_slots(Some(3));
    a.on_cca(us(1), false, &mut out);
    b.on_cca(us(1), false, &mut out);
    assert_eq!((a.next_wakeup(), b.next_wakeup()), (us(9), us(9)));
    vec![sta(0, u32::MAX), a, b]
}

#[test]
fn same_slot_is_a_collision_and_both_retry() {
    let (_, bss) = run_bss(same_slot_pair(), vec![], 400);
    assert_eq!(bss.medium(1).collided, 1);
    assert_eq!(bss.medium(2).collided, 1);
    assert!(bss.macs[1].counters().failures >= 1 && bss.macs[2].counters().failures >= 1);
    // The AP saw an erroneous frame and used EIFS.
    assert_eq!(bss.macs[0].counters().rx_errors, 1);
    // Eventually both succeed (different draws after doubling).
    assert_eq!(bss.macs[1].counters().successes + bss.macs[2].counters().successes, 2);
}

#[test]
fn rts_cts_exchange_then_data() {
    let ap = sta(0, 50);
    let s1 = sta(1, 50);
    let s2 = sta(2, 50);
    let (_, bss) = run_bss(vec![ap, s1, s2], vec![(0, 1, 0)], 1000);
    assert_eq!(bss.macs[1].counters().successes, 1);
    assert_eq!(bss.macs[0].counters().rx_delivered, 1);
    // RTS (20) + SIFS + CTS (14) + SIFS + DATA (100) + SIFS + ACK (14)
    assert_eq!(bss.medium(1).airtime_ns, (20 + 100) * 1000);
    assert_eq!(bss.medium(0).airtime_ns, (14 + 14) * 1000);
}

#[test]
fn other_frame_during_ack_wait_fails_the_exchange() {
    let mut d = sta(1, u32::MAX);
    let mut out = vec![];
    d.start_msdu(us(0), pkt(1), MacAddr(0), &mut out);
    d.on_wake(us(5), &mut out);
    d.on_tx_end(us(105), &mut out);
    // The AP starts a data frame to us inside our ACK timeout.
    d.on_cca(us(107), true, &mut out);
    assert_eq!(d.next_wakeup(), SimTime::NEVER, "waits for the reception to end");
    let f = Frame {
        mu: None,
        kind: FrameKind::Data,
        ta: MacAddr(0),
        ra: MacAddr(1),
        duration: SimDur::from_micros(17),
        seq: 1,
        retry: false,
        mpdu_bytes: 100,
        rate: timing().data_rate,
        airtime: SimDur::from_micros(100),
        contended: true,
        mpdus: Mpdus::none(),
    };
    out.clear();
    rx(&mut d, us(207), &f, Some(pkt(2)), true, &mut out);
    assert_eq!(d.counters().failures, 1, "not the ACK: failure");
    assert!(out.iter().any(|o| matches!(o, MacOutput::Deliver { .. })), "the data frame is still received");
    assert_eq!(d.next_wakeup(), us(210), "and acknowledged after SIFS");
}

#[test]
fn reception_ending_without_response_fails_the_exchange() {
    let mut d = sta(1, u32::MAX);
    let mut out = vec![];
    d.start_msdu(us(0), pkt(1), MacAddr(0), &mut out);
    d.on_wake(us(5), &mut out);
    d.on_tx_end(us(105), &mut out);
    d.on_cca(us(107), true, &mut out);
    d.on_cca(us(150), false, &mut out);
    assert_eq!(d.counters().failures, 1);
    assert!(d.next_wakeup() < SimTime::NEVER, "retries");
}

fn sta_with_header(addr: u32) -> Dcf {
    let mut p = params(u32::MAX);
    let mut c = PhyConfig::new(PhyStandard::Dot11a, 6.0);
    c.control_rate_mbps = Some(8.0);
    c.timing_model = TimingModel::Linear;
    c.set_overrides(PhyOverrides {
        slot_us: Some(1.0),
        sifs_us: Some(3.0),
        difs_us: Some(5.0),
        eifs_us: Some(20.0),
        preamble_us: Some(2.0),
        plcp_header_us: Some(2.0),
        rx_phy_start_delay_us: Some(0.0),
    });
    let mut t = PhyTiming::from_config(&c).unwrap();
    t.data_rate = crate::phy::Rate(80);
    p.timing = t;
    Dcf::new(MacAddr(addr), p, RngStream::derive(1, &format!("mac/{addr}")))
}

/// Two stations whose backoffs end `gap_us` apart, with 4 us PLCP headers;
/// returns the AP's count of erroneous receptions.
fn collide_with_gap(gap_us: u32) -> u64 {
    let mut out = vec![];
    let mut a = sta_with_header(1);
    let mut b = sta_with_header(2);
    for (m, id) in [(&mut a, 1), (&mut b, 2)] {
        m.on_cca(us(0), true, &mut out);
        m.start_msdu(us(0), pkt(id), MacAddr(0), &mut out);
        m.on_cca(us(1), false, &mut out);
    }
    a.bo.set_slots(Some(3));
    b.bo.set_slots(Some(3 + gap_us));
    a.bo.set_count_from(None);
    b.bo.set_count_from(None);
    a.resume();
    b.resume();
    let (_, bss) = run_bss(vec![sta_with_header(0), a, b], vec![], 20);
    bss.macs[0].counters().rx_errors
}

#[test]
fn same_slot_collision_destroys_headers_so_no_eifs() {
    // 10.3.2.3.7: EIFS follows PHY-RXEND with an error, which needs a decoded
    // PLCP header (PHY-RXSTART). Frames starting together corrupt each
    // other's headers: bystanders see energy only and defer DIFS. (In one
    // collision domain with zero propagation delay stations collide only by
    // choosing the same slot; a later start is prevented by carrier sense.)
    assert_eq!(collide_with_gap(0), 0);
    // A later start never collides: the second station freezes.
    assert_eq!(collide_with_gap(5), 0);
}

/// A channel that corrupts the first `lose` frames of kind `kind` at their
/// receiver and spares every other frame; it logs (kind, ta, ra, lost) of
/// every frame the medium asks about.
struct LoseFirst {
    kind: FrameKind,
    lose: u32,
    asked: AskLog,
}

/// (kind, ta, ra, lost) of every frame the medium asked about.
type AskLog = Rc<RefCell<Vec<(FrameKind, u32, u32, bool)>>>;

impl FrameErrorModel for LoseFirst {
    fn success_prob(&mut self, _now: SimTime, ta: MacAddr, ra: MacAddr, f: &Frame, _rng: &mut RngStream) -> f64 {
        let lost = f.kind == self.kind && self.lose > 0;
        if lost {
            self.lose -= 1;
        }
        self.asked.borrow_mut().push((f.kind, ta.0, ra.0, lost));
        if lost {
            0.0
        } else {
            1.0
        }
    }
}

fn lose_first(kind: FrameKind, lose: u32) -> (Box<LoseFirst>, AskLog) {
    let asked = Rc::new(RefCell::new(Vec::new()));
    (Box::new(LoseFirst { kind, lose, asked: asked.clone() }), asked)
}

#[test]
fn lost_ack_fails_the_exchange_with_eifs_and_the_data_is_retried() {
    // sta1 sends one 100-us data frame to the AP at DIFS (5-105); the AP
    // acknowledges after SIFS (108-122); the channel corrupts that ACK at
    // sta1. The ACK's PHY-RXSTART came within the ACK timeout, so sta1
    // waits for PHY-RXEND (122): no valid ACK, the attempt failed
    // (10.3.2.9), and since the header decoded it defers EIFS, not DIFS
    // (10.3.2.3.7).
    let (ch, _) = lose_first(FrameKind::Ack, 1);
    let (_, mut bss) = run_bss_with(vec![sta(0, u32::MAX), sta(1, u32::MAX)], ch, vec![(0, 1, 0)], 123);
    bss.ungroup_all();
    let s1 = &bss.macs[1];
    assert_eq!(s1.counters().failures, 1, "a corrupted ACK is a failed attempt");
    assert_eq!(s1.counters().successes, 0);
    assert_eq!(s1.counters().rx_errors, 1);
    assert!(s1.cs.use_eifs);
    assert_eq!(s1.bo.cw, 31, "CW doubled");
    let k = s1.bo.slots().expect("a new backoff") as u64;
    assert_eq!(s1.next_wakeup(), us(122 + 20 + k), "EIFS after the bad ACK, then the backoff");
    assert_eq!(bss.macs[0].counters().rx_delivered, 1, "the AP got the data frame");
    assert_eq!(bss.medium(0).control_errors, 1, "counted at the ACK's sender");
    assert_eq!(bss.medium(0).channel_errors, 0);
    assert_eq!(bss.medium(1).channel_errors, 0);

    // Run on: the retransmission (Retry bit set) is a duplicate at the AP,
    // acknowledged again and not delivered twice.
    let (ch, asked) = lose_first(FrameKind::Ack, 1);
    let (_, bss) = run_bss_with(vec![sta(0, u32::MAX), sta(1, u32::MAX)], ch, vec![(0, 1, 0)], 1000);
    let s1 = &bss.macs[1];
    assert_eq!((s1.counters().attempts, s1.counters().retries, s1.counters().successes), (2, 1, 1));
    assert_eq!(bss.macs[0].counters().rx_delivered, 1);
    assert_eq!(bss.macs[0].counters().rx_duplicates, 1);
    assert_eq!(bss.medium(1).airtime_ns, 200_000);
    // The medium asked about every frame, data and control, at its receiver.
    let asked: Vec<_> = asked.borrow().clone();
    use FrameKind::{Ack, Data};
    assert_eq!(asked, vec![(Data, 1, 0, false), (Ack, 0, 1, true), (Data, 1, 0, false), (Ack, 0, 1, false)]);
}

/// A channel that would corrupt every frame but says it hits neither
/// data nor control frames; it logs every frame the medium asks about.
struct ClaimsNoErrors(AskLog);

impl FrameErrorModel for ClaimsNoErrors {
    fn success_prob(&mut self, _now: SimTime, ta: MacAddr, ra: MacAddr, f: &Frame, _rng: &mut RngStream) -> f64 {
        self.0.borrow_mut().push((f.kind, ta.0, ra.0, true));
        0.0
    }
    fn may_hit_control_frames(&self) -> bool {
        false
    }
    fn may_hit_data_frames(&self) -> bool {
        false
    }
}

#[test]
fn a_model_that_hits_no_frame_is_not_asked() {
    // The medium takes the model at its word: the data frame and its ACK
    // get through, and nothing is asked (a model that asked would have
    // lost both).
    let asked = Rc::new(RefCell::new(Vec::new()));
    let (_, bss) = run_bss_with(
        vec![sta(0, u32::MAX), sta(1, u32::MAX)],
        Box::new(ClaimsNoErrors(asked.clone())),
        vec![(0, 1, 0)],
        1000,
    );
    assert!(asked.borrow().is_empty(), "asked about {:?}", asked.borrow());
    assert_eq!(bss.macs[1].counters().successes, 1);
    assert_eq!(bss.macs[0].counters().rx_delivered, 1);
    // A fixed error rate hits data frames only if it has a rate above 0.
    assert!(!FixedPer::default().may_hit_data_frames());
    assert!(!FixedPer { uplink: vec![0.0; 3], downlink: vec![0.0; 3], is_ap: vec![] }.may_hit_data_frames());
    assert!(FixedPer { uplink: vec![0.0, 0.1], ..FixedPer::default() }.may_hit_data_frames());
}

#[test]
fn lost_cts_fails_the_rts_and_the_rts_is_retried() {
    // RTS/CTS (threshold 50 < 100 bytes): RTS 5-25, CTS 28-42 corrupted at
    // sta1, which fails the exchange at 42 (short retry count), defers EIFS,
    // and sends a new RTS.
    let (ch, _) = lose_first(FrameKind::Cts, 1);
    let (_, mut bss) = run_bss_with(vec![sta(0, 50), sta(1, 50)], ch, vec![(0, 1, 0)], 43);
    bss.ungroup_all();
    let s1 = &bss.macs[1];
    assert_eq!(s1.counters().failures, 1);
    assert_eq!(s1.cur.as_ref().unwrap().retry.counts(), (1, 0));
    let k = s1.bo.slots().expect("a new backoff") as u64;
    assert_eq!(s1.next_wakeup(), us(42 + 20 + k));
    assert_eq!(bss.medium(0).control_errors, 1);

    let (ch, asked) = lose_first(FrameKind::Cts, 1);
    let (_, bss) = run_bss_with(vec![sta(0, 50), sta(1, 50)], ch, vec![(0, 1, 0)], 1000);
    let s1 = &bss.macs[1];
    assert_eq!((s1.counters().attempts, s1.counters().failures, s1.counters().successes), (2, 1, 1));
    assert_eq!(bss.macs[0].counters().rx_delivered, 1);
    // Two RTS and one data frame from sta1; two CTS and one ACK from the AP.
    assert_eq!(bss.medium(1).airtime_ns, (20 + 20 + 100) * 1000);
    assert_eq!(bss.medium(0).airtime_ns, (14 + 14 + 14) * 1000);
    use FrameKind::{Ack, Cts, Data, Rts};
    let kinds: Vec<_> = asked.borrow().iter().map(|a| (a.0, a.3)).collect();
    assert_eq!(kinds, vec![(Rts, false), (Cts, true), (Rts, false), (Cts, false), (Data, false), (Ack, false)]);
}

#[test]
fn lost_rts_times_out_and_is_retried() {
    // The AP does not decode the RTS: no CTS comes, sta1 fails at the CTS
    // timeout (25 + 4) and retries; the AP saw a frame in error.
    let (ch, _) = lose_first(FrameKind::Rts, 1);
    let (_, bss) = run_bss_with(vec![sta(0, 50), sta(1, 50)], ch, vec![(0, 1, 0)], 1000);
    assert_eq!(bss.medium(1).control_errors, 1, "counted at the RTS's sender");
    assert_eq!(bss.macs[0].counters().rx_errors, 1);
    let s1 = &bss.macs[1];
    assert_eq!((s1.counters().attempts, s1.counters().failures, s1.counters().successes), (2, 1, 1));
}

#[test]
fn channel_errors_count_data_frames_and_control_errors_control_frames() {
    // Every data frame and every ACK of a 3-attempt exchange is judged
    // once: the first two ACKs lost, so three data frames, one delivery.
    let (ch, asked) = lose_first(FrameKind::Ack, 2);
    let (_, bss) = run_bss_with(vec![sta(0, u32::MAX), sta(1, u32::MAX)], ch, vec![(0, 1, 0)], 2000);
    assert_eq!(bss.medium(0).control_errors, 2);
    assert_eq!(bss.medium(0).channel_errors, 0);
    assert_eq!(bss.medium(1).channel_errors, 0);
    assert_eq!(bss.medium(1).control_errors, 0);
    assert_eq!(bss.macs[1].counters().failures, 2);
    assert_eq!(bss.macs[1].counters().successes, 1);
    assert_eq!(bss.macs[0].counters().rx_duplicates, 2);
    assert_eq!(asked.borrow().len(), 6);
    // And data frames lost count as channel errors of their sender.
    let (ch, _) = lose_first(FrameKind::Data, 2);
    let (_, bss) = run_bss_with(vec![sta(0, u32::MAX), sta(1, u32::MAX)], ch, vec![(0, 1, 0)], 2000);
    assert_eq!(bss.medium(1).channel_errors, 2);
    assert_eq!(bss.medium(0).control_errors, 0);
    assert_eq!(bss.macs[0].counters().rx_duplicates, 0);
    assert_eq!(bss.macs[1].counters().successes, 1);
}

#[test]
fn fixed_per_spares_control_frames() {
    // wlan.per_uplink / per_downlink hit data frames only (docs/scenarios.md).
    let mut m = FixedPer { uplink: vec![0.0, 0.4], downlink: vec![0.0, 0.3], is_ap: vec![true, false] };
    let mut rng = RngStream::derive(1, "t");
    let data = |ta: u32, ra: u32| Frame {
        mu: None,
        kind: FrameKind::Data,
        ta: MacAddr(ta),
        ra: MacAddr(ra),
        duration: SimDur::ZERO,
        seq: 0,
        retry: false,
        mpdu_bytes: 100,
        rate: timing().data_rate,
        airtime: SimDur::from_micros(100),
        contended: true,
        mpdus: Mpdus::none(),
    };
    let ctl = |kind, ta: u32, ra: u32| Frame { kind, mpdu_bytes: 14, contended: false, ..data(ta, ra) };
    assert!((m.success_prob(SimTime::ZERO, MacAddr(1), MacAddr(0), &data(1, 0), &mut rng) - 0.6).abs() < 1e-12);
    assert!((m.success_prob(SimTime::ZERO, MacAddr(0), MacAddr(1), &data(0, 1), &mut rng) - 0.7).abs() < 1e-12);
    for k in [FrameKind::Ack, FrameKind::Rts, FrameKind::Cts] {
        assert_eq!(m.success_prob(SimTime::ZERO, MacAddr(1), MacAddr(0), &ctl(k, 1, 0), &mut rng), 1.0);
        assert_eq!(m.success_prob(SimTime::ZERO, MacAddr(0), MacAddr(1), &ctl(k, 0, 1), &mut rng), 1.0);
    }
}

#[test]
fn discard_after_lost_acks_is_not_a_packet_loss() {
    // Every ACK lost: the AP receives the first attempt (and two duplicate
    // retries), sta1 discards the MSDU after 3 attempts (short retry limit
    // 3). The medium reports that discard apart from a loss, since a copy
    // reached the AP.
    let (ch, _) = lose_first(FrameKind::Ack, 99);
    let (discards, bss) = run_bss_with(vec![sta(0, u32::MAX), sta(1, u32::MAX)], ch, vec![(7, 1, 0)], 3000);
    assert_eq!(bss.macs[1].counters().drops_retry_limit, 1);
    assert_eq!(bss.macs[0].counters().rx_delivered, 1);
    assert_eq!(bss.macs[0].counters().rx_duplicates, 2);
    assert_eq!(discards.len(), 1);
    assert_eq!((discards[0].1, discards[0].2, discards[0].3), (1, 7, true));
    // Every data frame lost instead: nothing reached the AP, a real loss.
    let (ch, _) = lose_first(FrameKind::Data, 99);
    let (discards, _) = run_bss_with(vec![sta(0, u32::MAX), sta(1, u32::MAX)], ch, vec![(7, 1, 0)], 3000);
    assert_eq!(discards.len(), 1);
    assert_eq!((discards[0].1, discards[0].2, discards[0].3), (1, 7, false));
}

#[test]
fn rts_cts_retransmission_after_a_lost_ack_is_a_duplicate() {
    // RTS/CTS (threshold 50 < 100 bytes): RTS, CTS, data, the ACK lost at
    // sta1. sta1 retries with a new RTS; the CTS resets its retry count
    // (10.3.4.4), but the data frame after it is a retransmission: its
    // Retry bit is set (9.2.4.1.6) and the AP discards it as a duplicate
    // (10.3.2.14) instead of delivering the MSDU twice.
    let (ch, asked) = lose_first(FrameKind::Ack, 1);
    let (_, bss) = run_bss_with(vec![sta(0, 50), sta(1, 50)], ch, vec![(0, 1, 0)], 2000);
    let s1 = &bss.macs[1];
    assert_eq!((s1.counters().failures, s1.counters().successes), (1, 1));
    assert_eq!(bss.macs[0].counters().rx_delivered, 1, "delivered once");
    assert_eq!(bss.macs[0].counters().rx_duplicates, 1, "the retransmission is a duplicate");
    use FrameKind::{Ack, Cts, Data, Rts};
    let kinds: Vec<_> = asked.borrow().iter().map(|a| (a.0, a.3)).collect();
    assert_eq!(
        kinds,
        vec![
            (Rts, false),
            (Cts, false),
            (Data, false),
            (Ack, true),
            (Rts, false),
            (Cts, false),
            (Data, false),
            (Ack, false)
        ]
    );
}

#[test]
fn long_retry_count_survives_cts_and_discards() {
    // RTS/CTS every time, every data frame lost: a CTS resets the short
    // count but not the long one, so the MSDU goes after long_retry_limit
    // (2 here) data attempts (10.3.4.4), not never.
    let (ch, asked) = lose_first(FrameKind::Data, 99);
    let (discards, bss) = run_bss_with(vec![sta(0, 50), sta(1, 50)], ch, vec![(7, 1, 0)], 5000);
    assert_eq!(bss.macs[1].counters().drops_retry_limit, 1);
    assert_eq!(discards.len(), 1);
    assert_eq!((discards[0].1, discards[0].2, discards[0].3), (1, 7, false));
    let data = asked.borrow().iter().filter(|a| a.0 == FrameKind::Data).count();
    assert_eq!(data, 2, "long_retry_limit data attempts");
}

#[test]
fn retry_bit_marks_data_retransmissions_only() {
    // An RTS that failed twice before its first CTS: the data frame after
    // the CTS is the MSDU's first data frame, Retry clear (9.2.4.1.6).
    let (ch, _) = lose_first(FrameKind::Cts, 2);
    let (_, bss) = run_bss_with(vec![sta(0, 50), sta(1, 50)], ch, vec![(0, 1, 0)], 2000);
    assert_eq!(bss.macs[0].counters().rx_delivered, 1);
    assert_eq!(bss.macs[0].counters().rx_duplicates, 0);
    let mut d = sta(1, 50);
    let mut out = vec![];
    d.start_msdu(us(0), pkt(1), MacAddr(0), &mut out);
    let (short, long) = (d.p.short_limit(), d.p.long_limit());
    let retry = &mut d.cur.as_mut().unwrap().retry;
    retry.fail(Count::Short, short, long);
    retry.fail(Count::Short, short, long);
    assert!(!d.data_frame().retry, "no data frame sent yet");
    d.cur.as_mut().unwrap().data_sent = true;
    let retry = &mut d.cur.as_mut().unwrap().retry;
    retry.cts_received();
    retry.fail(Count::Long, short, long);
    assert!(d.data_frame().retry, "a CTS reset the count, the data frame is still a retransmission");
}

/// A channel that corrupts the frames a pattern says (in the order the
/// medium asks about them), then none.
struct Pattern {
    lost: Vec<bool>,
    next: usize,
}

impl FrameErrorModel for Pattern {
    fn success_prob(&mut self, _now: SimTime, _ta: MacAddr, _ra: MacAddr, _f: &Frame, _rng: &mut RngStream) -> f64 {
        let lost = self.lost.get(self.next).copied().unwrap_or(false);
        self.next += 1;
        if lost {
            0.0
        } else {
            1.0
        }
    }
}

/// Run a BSS (AP 0 and `rts.len() - 1` stations with the given RTS
/// thresholds) through `frames` (time us, sender, receiver) over a channel
/// losing the frames `lost` says; returns every (receiver, packet id)
/// delivered, every packet id the senders discarded, and the BSS.
fn run_pattern(
    rts: &[u32],
    frames: &[(u64, usize, usize)],
    lost: Vec<bool>,
    grouping: bool,
) -> (Vec<(usize, u64)>, Vec<u64>, Bss) {
    let macs = rts.iter().enumerate().map(|(i, &r)| sta(i as u32, r)).collect();
    let mut bss = Bss::new(macs, Box::new(Pattern { lost, next: 0 }), RngStream::derive(1, "medium"));
    bss.set_grouping(grouping);
    let mut q = EventQueue::new();
    let mut pending: Vec<std::collections::VecDeque<(u64, usize)>> = vec![Default::default(); rts.len()];
    for (id, &(t, s, ra)) in frames.iter().enumerate() {
        q.push(us(t), (0u8, s, id as u64, ra));
    }
    let (mut delivered, mut discarded, mut out) = (vec![], vec![], vec![]);
    let mut ready = vec![true; rts.len()];
    while let Some((now, (kind, s, id, ra))) = q.pop() {
        match kind {
            0 => pending[s].push_back((id, ra)),
            1 => bss.wake(now, &mut out),
            _ => bss.tx_end(now, id as u32, &mut out),
        }
        if kind == 0 && ready[s] {
            ready[s] = false;
            let (id, ra) = pending[s].pop_front().unwrap();
            bss.give_msdu(now, s, pkt(id), ra, &mut out);
        }
        let mut i = 0;
        while i < out.len() {
            match std::mem::replace(&mut out[i], BssOutput::Wake { at: SimTime::NEVER }) {
                BssOutput::Wake { at } => {
                    q.push(at, (1, 0, 0, 0));
                }
                BssOutput::TxEnd { id, n, at } => {
                    for id in BssOutput::tx_ids(id, n) {
                        q.push(at, (2, 0, id as u64, 0));
                    }
                }
                BssOutput::Deliver { sta, from, pkt } => {
                    assert_ne!(sta, from, "a station received its own frame");
                    delivered.push((sta as usize, pkt.id.0));
                }
                BssOutput::Dropped { id, .. } | BssOutput::DiscardedAfterReceipt { id, .. } => discarded.push(id.0),
                BssOutput::Ready { sta } => match pending[sta as usize].pop_front() {
                    Some((id, ra)) => bss.give_msdu(now, sta as usize, pkt(id), ra, &mut out),
                    None => ready[sta as usize] = true,
                },
                BssOutput::Airtime { .. } => {}
            }
            i += 1;
        }
        out.clear();
    }
    (delivered, discarded, bss)
}

mod duplicate_filter_props {
    use super::*;
    use proptest::prelude::*;

    /// Up to three stations besides the AP, each basic access or RTS/CTS;
    /// up to 12 MSDUs, up- and downlink, at random times; a random pattern
    /// of corrupted frames over data, ACK, RTS and CTS alike (the medium
    /// asks about every frame in turn).
    /// RTS thresholds per station, MSDUs (time us, sender, receiver), the
    /// loss pattern, and whether bystanders are grouped.
    type Case = (Vec<u32>, Vec<(u64, usize, usize)>, Vec<bool>, bool);

    fn scenario() -> impl Strategy<Value = Case> {
        (1usize..=3)
            .prop_flat_map(|n| {
                let rts = proptest::collection::vec(prop_oneof![Just(u32::MAX), Just(50u32)], n + 1);
                let frames = proptest::collection::vec((0u64..3000, 0..=n, 1..=n), 1..12);
                let lost = proptest::collection::vec(proptest::bool::weighted(0.4), 0..80);
                (rts, frames, lost, any::<bool>())
            })
            .prop_map(|(rts, frames, lost, grouping)| {
                // Station s sends to the AP; the AP (s = 0) to station `to`.
                let frames = frames.into_iter().map(|(t, s, to)| if s == 0 { (t, 0, to) } else { (t, s, 0) }).collect();
                (rts, frames, lost, grouping)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
        #[test]
        fn every_msdu_is_delivered_at_most_once((rts, frames, lost, grouping) in scenario()) {
            let (delivered, discarded, bss) = run_pattern(&rts, &frames, lost, grouping);
            let mut ids: Vec<u64> = delivered.iter().map(|d| d.1).collect();
            ids.sort_unstable();
            let n = ids.len();
            ids.dedup();
            prop_assert_eq!(ids.len(), n, "an MSDU delivered twice: {:?}", delivered);
            // Every MSDU ends delivered or discarded (the channel is clean
            // once the pattern runs out, so every exchange ends).
            for id in 0..frames.len() as u64 {
                prop_assert!(ids.binary_search(&id).is_ok() || discarded.contains(&id), "MSDU {} vanished", id);
            }
            prop_assert!(bss.packets_in_service().next().is_none());
            // Each delivery went to the MSDU's own receiver.
            for &(sta, id) in &delivered {
                prop_assert_eq!(sta, frames[id as usize].2);
            }
        }
    }
}

/// A rate control that answers from a list and records every question and
/// outcome.
struct Recorder {
    rates: Vec<crate::phy::Rate>,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl crate::rate::RateControl for Recorder {
    fn kind(&self) -> &'static str {
        "recorder"
    }
    fn data_rate(&mut self, now: SimTime, ra: MacAddr, bytes: u32) -> crate::phy::Rate {
        let r = self.rates.remove(0);
        self.log.lock().unwrap().push(format!("ask {} {} {} -> {}", now.as_nanos() / 1000, ra.0, bytes, r.0));
        r
    }
    fn on_outcome(&mut self, now: SimTime, ra: MacAddr, o: crate::rate::Outcome) {
        self.log.lock().unwrap().push(format!(
            "outcome {} {} rate {} sent {} acked {} retry {}",
            now.as_nanos() / 1000,
            ra.0,
            o.rate.0,
            o.sent,
            o.acked,
            o.retry
        ));
    }
}

#[test]
fn rate_control_chooses_each_attempts_rate_and_hears_its_outcome() {
    use crate::phy::Rate;
    let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut d = sta(1, u32::MAX);
    d.set_rate_control(Box::new(Recorder { rates: vec![Rate(40), Rate(80)], log: log.clone() }));
    assert_eq!(d.rate_control_kind(), "recorder");
    let mut out = vec![];
    d.start_msdu(us(0), pkt(1), MacAddr(0), &mut out);
    // First attempt at 4 Mbit/s (0.5 byte per us): 200 us, then no ACK.
    d.on_wake(us(5), &mut out);
    let f = started(&out).expect("transmits").clone();
    assert_eq!((f.rate, f.airtime), (Rate(40), SimDur::from_micros(200)));
    d.on_tx_end(us(205), &mut out);
    d.on_wake(us(209), &mut out);
    // Second attempt at the rate asked then (8 Mbit/s): ACKed.
    let t = d.next_wakeup();
    out.clear();
    d.on_wake(t, &mut out);
    let f = started(&out).expect("retransmits").clone();
    assert_eq!((f.rate, f.airtime, f.retry), (Rate(80), SimDur::from_micros(100), true));
    let end = t + f.airtime;
    d.on_tx_end(end, &mut out);
    let ack = Frame {
        mu: None,
        kind: FrameKind::Ack,
        ta: MacAddr(0),
        ra: MacAddr(1),
        duration: SimDur::ZERO,
        seq: 0,
        retry: false,
        mpdu_bytes: 14,
        rate: timing().control_rate,
        airtime: SimDur::from_micros(14),
        contended: false,
        mpdus: Mpdus::none(),
    };
    let ack_end = end + SimDur::from_micros(17);
    rx(&mut d, ack_end, &ack, None, true, &mut out);
    let t2 = (t + SimDur::from_micros(117)).as_nanos() / 1000;
    let t1 = t.as_nanos() / 1000;
    assert_eq!(
        *log.lock().unwrap(),
        vec![
            "ask 5 0 100 -> 40".to_string(),
            "outcome 209 0 rate 40 sent 1 acked 0 retry 0".to_string(),
            format!("ask {t1} 0 100 -> 80"),
            format!("outcome {t2} 0 rate 80 sent 1 acked 1 retry 1"),
        ]
    );
    assert!(out.iter().any(|o| matches!(o, MacOutput::Acked(PacketId(1)))));
}

#[test]
fn no_ack_frames_get_no_ack_and_the_next_frame_follows_difs_and_a_backoff() {
    let mut p = params(u32::MAX);
    p.ack_policy = AckPolicy::NoAck;
    let mut d = Dcf::new(MacAddr(1), p.clone(), RngStream::derive(1, "mac/1"));
    let mut out = vec![];
    d.start_msdu(us(0), pkt(1), MacAddr(0), &mut out);
    d.on_wake(us(5), &mut out);
    let mut f = started(&out).expect("transmits at DIFS").clone();
    // (the medium's part: the MSDU into the frame)
    d.lend_msdus(&mut f);
    // QoS Data, 2 bytes longer than the 100-byte Data frame (9.3.2.1).
    assert_eq!((f.kind, f.mpdu_bytes, f.airtime), (FrameKind::QosData, 102, SimDur::from_micros(102)));
    assert_eq!(f.duration, SimDur::ZERO, "no response follows");
    assert_eq!(f.mpdus.first().unwrap().ack, AckPolicy::NoAck);
    out.clear();
    d.on_tx_end(us(107), &mut out);
    assert!(matches!(out[..], [MacOutput::Acked(PacketId(1)), MacOutput::Ready]), "{out:?}");
    assert_eq!(d.counters().successes, 1);
    // The next MSDU waits DIFS and a fresh backoff from the frame's end, no
    // ACK timeout, no SIFS + ACK.
    let k = d.bo.slots().expect("post-backoff") as u64;
    d.start_msdu(us(107), pkt(2), MacAddr(0), &mut out);
    assert_eq!(d.next_wakeup(), us(107 + 5 + k));
    assert_eq!(d.bo.cw, 15);

    // The receiver delivers and schedules nothing.
    let mut r = Dcf::new(MacAddr(0), p, RngStream::derive(1, "mac/0"));
    let mut rout = vec![];
    r.on_cca(us(5), true, &mut rout);
    let mut g = f.clone();
    g.mpdus.first_mut().unwrap().fcs_ok = true;
    r.on_rx_end(us(107), &mut g, true, &mut rout);
    r.on_cca(us(107), false, &mut rout);
    assert!(matches!(&rout[..], [MacOutput::Deliver { pkt, .. }] if pkt.id == PacketId(1)), "{rout:?}");
    assert_eq!(r.next_wakeup(), SimTime::NEVER, "no ACK after SIFS");
    // A No Ack frame lost on the channel is simply lost: no retransmission.
    assert_eq!(d.counters().retries, 0);
}

/// The cache lines of `Dcf` its docs name (a field moved by a change of
/// its own size shows up here, not as a slower dense cell).
#[test]
fn hot_fields_keep_their_cache_lines() {
    use std::mem::{align_of, offset_of};
    assert_eq!(align_of::<Dcf>(), 64);
    let line = |o: usize| o / 64;
    let seq = offset_of!(Dcf, seq);
    // The backoff and the sequence's phase, timer and protected frame (32
    // bytes) share the first line; its due frame ends in the second.
    assert_eq!([line(offset_of!(Dcf, bo)), line(seq), line(seq + 31)], [0; 3]);
    assert_eq!(line(seq + 55), 1);
    let cs = offset_of!(Dcf, cs);
    assert_eq!(
        [
            line(cs),
            line(cs + 31),
            line(offset_of!(Dcf, addr)),
            line(offset_of!(Dcf, next_seq) + 1),
            line(offset_of!(Dcf, last_len) + 1),
            line(offset_of!(Dcf, cur))
        ],
        [1; 6]
    );
    assert_eq!(
        [line(offset_of!(Dcf, rng)), line(offset_of!(Dcf, rng) + 31), line(offset_of!(Dcf, intake) + 7)],
        [2; 3]
    );
    // The rate control's box beside the counters an access counts, the
    // parameters and the last data frame's rate and airtime.
    assert_eq!(
        [
            line(offset_of!(Dcf, aside)),
            line(offset_of!(Dcf, tallies)),
            line(offset_of!(Dcf, p)),
            line(offset_of!(Dcf, last_air) + 3)
        ],
        [3; 4]
    );
}

#[test]
fn a_frame_arriving_while_the_medium_is_busy_backs_off() {
    // The post-backoff ran out long before; another station's frame is on
    // the air (or its NAV runs) when the frame arrives at the empty queue:
    // 10.3.4.3's backoff, counted after DIFS once the medium is free
    // again, not access at DIFS (10.3.4.2 needs the medium idle at the
    // arrival). The next frame of a backlog, handed over at the instant
    // the MAC asks for it (`ask`), draws nothing more.
    for (nav, backlog) in [(false, false), (true, false), (false, true), (true, true)] {
        let waits: Vec<u64> = (0..20u64)
            .map(|seed| {
                let mut d = Dcf::new(MacAddr(1), params(u32::MAX), RngStream::derive(seed, "mac/sta1"));
                let mut out = vec![];
                d.bo.set_slots(Some(3));
                d.resume(); // idle since 0: the post-backoff runs out at 8
                d.on_cca(us(50), true, &mut out);
                if nav {
                    // an RTS to another station: NAV to 300
                    d.cs.heard(us(60), true, true, SimDur::from_micros(240));
                    d.on_cca(us(60), false, &mut out);
                }
                if backlog {
                    d.ask(us(70), &mut out);
                }
                d.start_msdu(us(70), pkt(1), MacAddr(0), &mut out);
                if !nav {
                    d.on_cca(us(160), false, &mut out);
                }
                let free = if nav { 300 } else { 160 };
                let difs = d.p.ifs.difs;
                let at = d.next_wakeup();
                let first = us(free) + difs;
                assert!(at >= first && at <= first + SimDur::from_micros(9 * 15), "{at:?}");
                (at - first).as_nanos() / 1000
            })
            .collect();
        if backlog {
            assert!(waits.iter().all(|&k| k == 0), "nav {nav}, backlog: {waits:?}");
        } else {
            assert!(waits.iter().any(|&k| k > 0), "nav {nav}: {waits:?}");
        }
    }
}

/// A data frame of the DCF stands for its MSDU until the medium has the
/// MAC lend it (`Mac::lend_msdus`): then it holds the MSDU in service, and
/// lending again changes nothing.
#[test]
fn a_data_frame_holds_its_msdu_once_lent() {
    let mut d = Dcf::new(MacAddr(1), params(u32::MAX), RngStream::derive(1, "mac/1"));
    let mut out = vec![];
    d.start_msdu(us(0), pkt(7), MacAddr(0), &mut out);
    d.on_wake(us(5), &mut out);
    let mut f = started(&out).expect("transmits at DIFS").clone();
    let m = f.mpdus.first().unwrap();
    assert!(matches!(m.body, MpduBody::AtSender) && m.msdu_id().is_none(), "{m:?}");
    d.lend_msdus(&mut f);
    assert_eq!(f.mpdus.first().unwrap().msdu_id(), Some(PacketId(7)));
    d.lend_msdus(&mut f);
    assert_eq!(f.mpdus.first().unwrap().msdu().map(|p| p.id), Some(PacketId(7)));
}

/// Frames on the air hold no handle of their senders' packets (nothing
/// has read them yet: `Mac::lend_msdus`), and a collision lends none.
#[test]
fn frames_on_the_air_and_collided_frames_hold_no_packet_handle() {
    let held = |bss: &Bss, s: usize| std::rc::Rc::strong_count(&bss.macs[s].cur.as_ref().expect("in service").pkt);
    for until in [50, 120] {
        // both on the air from 9 us; at 120 us their ends have passed
        let (_, bss) = run_bss(same_slot_pair(), vec![], until);
        assert_eq!((held(&bss, 1), held(&bss, 2)), (1, 1), "at {until} us");
        assert_eq!(bss.medium(1).collided, u64::from(until > 109), "at {until} us");
    }
}
