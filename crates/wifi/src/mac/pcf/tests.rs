//! PCF timelines through the medium: an AP (point coordinator) and
//! CF-pollable stations; every frame on the air is logged with its start
//! time, kind, transmitter and receiver, and the sequence and spacing are
//! checked against 10.4 (beacon after PIFS at TBTT, SIFS between the CFP's
//! frames, PIFS after an unanswered poll, CF-End, then the DCF).
use super::*;
use crate::mac::beacon::{beacon_bytes, BeaconClock, BeaconParams, TU};
use crate::mac::{AnyMac, Dcf, DcfParams, FrameKind, Mac, MacAddr};
use crate::medium::{Bss, BssOutput, FixedPer, FrameTap};
use crate::phy::{PhyConfig, PhyStandard, PhyTiming, Rate};
use std::sync::{Arc, Mutex};
use wifitcp_core::{EventQueue, FlowId, PacketId, RngStream, SimDur, SimTime};
use wifitcp_wire::ip::PROTO_UDP;
use wifitcp_wire::{Ipv4Addr, Ipv4Header, Packet, UdpHeader};

type Log = Arc<Mutex<Vec<(SimTime, FrameKind, u32, u32)>>>;
struct Tap(Log);
impl FrameTap for Tap {
    fn frame(&mut self, now: SimTime, f: &crate::mac::Frame, _: Option<&Packet>) {
        if std::env::var("PCF_LOG").is_ok() {
            eprintln!("{now:?} {:?} {} -> {} {:?}", f.kind, f.ta.0, f.ra.0, f.airtime);
        }
        self.0.lock().unwrap().push((now, f.kind, f.ta.0, f.ra.0));
    }
}

fn pkt(id: u64) -> Packet {
    let ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), PROTO_UDP);
    Packet::new_udp(PacketId(id), FlowId(0), SimTime::ZERO, ip, UdpHeader { src_port: 1, dst_port: 2 }, 500)
}

fn timing() -> PhyTiming {
    PhyTiming::from_config(&PhyConfig::new(PhyStandard::Dot11a, 24.0)).unwrap()
}

/// An AP with a CFP every beacon (CFPMaxDuration `cfp_tu` TU) and `n`
/// CF-pollable stations; the list is round robin, or `list` if given.
fn cell(n: u32, cfp_tu: u64, list: Option<PollList>) -> Bss<AnyMac> {
    cell_on(timing(), n, cfp_tu, list)
}

/// 802.11n, MCS 7, 20 MHz, long GI (65 Mbit/s), 5 GHz.
fn ht_timing() -> PhyTiming {
    let mut c = PhyConfig::new(PhyStandard::Dot11n, 0.0);
    c.ht_mcs = Some(7);
    PhyTiming::from_config(&c).unwrap()
}

/// `cell` on the PHY `t`.
fn cell_on(t: PhyTiming, n: u32, cfp_tu: u64, list: Option<PollList>) -> Bss<AnyMac> {
    let p = DcfParams {
        timing: t.clone(),
        cw_min: t.cw_min_default,
        cw_max: t.cw_max_default,
        short_retry_limit: 7,
        long_retry_limit: 4,
        rts_threshold: 65535,
        busy_slot_counts: false,
        eifs_after_timeout: false,
        backoff_on_idle_access: false,
        ack_policy: crate::mac::AckPolicy::Normal,
    };
    let clock = BeaconClock::new(
        BeaconParams {
            interval: TU * 100,
            first_tbtt: SimTime::ZERO + SimDur::from_millis(1),
            rate: Rate(60),
            bytes: beacon_bytes(t.standard, 8, true),
        },
        &t,
    );
    let list = list.unwrap_or_else(|| PollList::round_robin((1..=n).map(MacAddr).collect()));
    let cfp = CfpConfig { period: 1, max_duration: TU * cfp_tu, list };
    let ap = Coordinator::new(Dcf::new(MacAddr(0), p.clone(), RngStream::derive(1, "ap")), clock, Some(cfp));
    let mut macs = vec![AnyMac::from(ap)];
    for i in 1..=n {
        let d = Dcf::new(MacAddr(i), p.clone(), RngStream::derive(1, &format!("sta{i}")));
        macs.push(AnyMac::from(CfStation::new(d, MacAddr(0))));
    }
    let k = n as usize + 1;
    let errors = FixedPer { uplink: vec![0.0; k], downlink: vec![0.0; k], is_ap: (0..k).map(|i| i == 0).collect() };
    Bss::new(macs, Box::new(errors), RngStream::derive(1, "medium"))
}

/// Run until `end`, giving each member the packets of `queues[i]` (for
/// receiver `ra[i]`) whenever it is ready. Returns the delivered ids.
fn run(bss: &mut Bss<AnyMac>, queues: &mut [Vec<u64>], ra: &[usize], end: SimTime) -> Vec<(usize, u64)> {
    let (delivered, dropped) = run_counting(bss, queues, ra, end, false);
    assert_eq!(dropped, 0);
    delivered
}

/// `run`, counting the MSDUs dropped (at the retry limit) if `drops_ok`
/// (else a drop fails the test).
fn run_counting(
    bss: &mut Bss<AnyMac>,
    queues: &mut [Vec<u64>],
    ra: &[usize],
    end: SimTime,
    drops_ok: bool,
) -> (Vec<(usize, u64)>, usize) {
    let mut dropped = 0;
    let mut q = EventQueue::new();
    let mut out = Vec::new();
    let mut delivered = Vec::new();
    let feed = |bss: &mut Bss<AnyMac>, queues: &mut [Vec<u64>], sta: usize, now: SimTime, out: &mut Vec<BssOutput>| {
        if let Some(d) = bss.demand(sta) {
            let to = ra[sta];
            if d.ra.is_none_or(|r| r.0 as usize == to) {
                if let Some(id) = queues[sta].pop() {
                    bss.give_msdu(now, sta, pkt(id), to, out);
                }
            }
        }
    };
    for s in 0..queues.len() {
        feed(bss, queues, s, SimTime::ZERO, &mut out);
    }
    bss.reschedule_all(&mut out);
    loop {
        let mut i = 0;
        while i < out.len() {
            let now = q.now();
            match std::mem::replace(&mut out[i], BssOutput::Wake { at: SimTime::NEVER }) {
                BssOutput::Wake { at } if at != SimTime::NEVER => {
                    q.push(at, u32::MAX);
                }
                BssOutput::TxEnd { id, n, at } => {
                    for id in BssOutput::tx_ids(id, n) {
                        q.push(at, id);
                    }
                }
                BssOutput::Deliver { sta, pkt, .. } => delivered.push((sta as usize, pkt.id.0)),
                BssOutput::Ready { sta } => feed(bss, queues, sta as usize, now, &mut out),
                BssOutput::Dropped { id, reason, .. } => {
                    assert!(drops_ok, "{id:?} dropped: {reason:?}");
                    dropped += 1;
                }
                _ => {}
            }
            i += 1;
        }
        out.clear();
        let Some((now, ev)) = q.pop() else { break };
        if now > end {
            break;
        }
        if ev == u32::MAX {
            bss.wake(now, &mut out);
        } else {
            bss.tx_end(now, ev, &mut out);
        }
    }
    (delivered, dropped)
}

#[test]
fn beacon_cfp_polls_cf_end_then_dcf() {
    let mut bss = cell(2, 20, None);
    let log: Log = Arc::default();
    bss.set_tap(Some(Box::new(Tap(log.clone()))));
    // Station 1 has 20 packets for the AP, the AP 20 for station 2,
    // station 2 nothing: at the first TBTT (1 ms) both still have some.
    let mut queues = vec![(100..120).collect(), (0..20).collect(), vec![]];
    let end = SimTime::ZERO + SimDur::from_millis(50);
    let delivered = run(&mut bss, &mut queues, &[2, 0, 0], end);
    let log = log.lock().unwrap().clone();
    let t = timing();
    let pifs = t.sifs + t.slot;
    use FrameKind::*;
    let airtime = |k: FrameKind| -> SimDur {
        match k {
            Beacon => t.tx_time(beacon_bytes(PhyStandard::Dot11a, 8, true), Rate(60)),
            Data | DataCf { .. } => t.tx_time(
                wifitcp_wire::wifi_frame::data_mpdu_len(wifitcp_wire::wifi_frame::msdu_len(pkt(0).ip_len())),
                t.data_rate,
            ),
            Ack => t.ack_time(),
            CfEnd | CfEndAck => t.tx_time(20, t.control_rate),
            _ => t.tx_time(wifitcp_wire::wifi_frame::CF_POLL_LEN, t.data_rate),
        }
    };
    // The beacon: the first frame at or after TBTT, PIFS after the end of
    // the frame before it (the medium was busy at TBTT) or at TBTT + PIFS.
    let tbtt = SimTime::ZERO + SimDur::from_millis(1);
    let b = log.iter().position(|e| e.1 == Beacon).expect("a beacon");
    let prev_end = log[b - 1].0 + airtime(log[b - 1].1);
    assert_eq!(log[b].0, tbtt.max(prev_end) + pifs, "{log:?}");
    let e = b + log[b..].iter().position(|e| matches!(e.1, CfEnd | CfEndAck)).expect("a CF-End");
    let cfp = &log[b..=e];
    // SIFS between every frame of the CFP (every poll answered here).
    for i in 0..cfp.len() - 1 {
        assert_eq!(cfp[i + 1].0, cfp[i].0 + airtime(cfp[i].1) + t.sifs, "gap after {i}: {cfp:?}");
    }
    // The PC's frames alternate with the answers; polls go 2, 1, 2, 1 ...
    // (round robin in AID order, starting at the receiver of the MSDU the
    // AP's DCF held at the beacon: station 2).
    let pc: Vec<_> = cfp[1..].iter().step_by(2).collect();
    let answers: Vec<_> = cfp[2..].iter().step_by(2).collect();
    for (i, f) in pc[..pc.len() - 1].iter().enumerate() {
        assert!(f.1.cf_poll() && f.2 == 0 && f.3 == 2 - (i as u32 % 2), "{cfp:?}");
    }
    // Every poll of station 2 carried an MSDU for it (the AP's queue gives
    // the PC the polled station's next MSDU) until they ran out.
    let to2: Vec<bool> = pc.iter().filter(|f| f.3 == 2).map(|f| f.1.carries_msdus()).collect();
    assert!(to2.len() >= 10 && to2.iter().take(10).all(|&d| d), "{cfp:?}");
    // Station 1 answers with data, station 2 with CF-Ack for the data the
    // poll carried; the PC acknowledges station 1's data on its next frame.
    for (i, a) in answers.iter().enumerate() {
        let next_pc = pc[i + 1].1;
        match (a.2, a.1) {
            (1, DataCf { ack: false, poll: false }) => assert!(next_pc.cf_ack(), "{cfp:?}"),
            (1, Null) => assert!(!next_pc.cf_ack()),
            (2, CfAck) => assert!(pc[i].1 == DataCf { ack: pc[i].1.cf_ack(), poll: true }),
            (2, Null) => assert!(!pc[i].1.carries_msdus()),
            other => panic!("unexpected answer {other:?} in {cfp:?}"),
        }
    }
    assert!(answers.iter().any(|a| a.1 == DataCf { ack: false, poll: false }), "{cfp:?}");
    assert!(answers.iter().any(|a| a.1 == CfAck), "{cfp:?}");
    // After the CF-End the DCF: data frames answered by ACKs.
    assert!(log[e + 1..].iter().all(|f| matches!(f.1, Data | Ack)), "{log:?}");
    // Every packet arrived, once.
    let mut d = delivered.clone();
    d.sort();
    let want: Vec<_> = (0..20).map(|i| (0, i)).chain((100..120).map(|i| (2, i))).collect();
    assert_eq!(d, want);
    let AnyMac::Ap(ap) = &bss.macs[0] else { panic!() };
    assert!(!ap.in_cfp());
    assert_eq!((ap.stats.cfps, ap.stats.beacons), (1, 1));
}

#[test]
fn an_unanswered_poll_is_followed_after_pifs_and_the_dcf_resumes() {
    // An absent station: the poll list names address 3, which no member
    // has, so its poll gets no answer.
    let log: Log = Arc::default();
    let list = PollList::round_robin(vec![MacAddr(1), MacAddr(3)]);
    let mut bss2 = cell(2, 20, Some(list));
    bss2.set_tap(Some(Box::new(Tap(log.clone()))));
    let mut queues = vec![vec![], vec![], vec![]];
    let end = SimTime::ZERO + SimDur::from_millis(5);
    run(&mut bss2, &mut queues, &[1, 0, 0], end);
    let log = log.lock().unwrap().clone();
    let t = timing();
    let pifs = t.sifs + t.slot;
    let p3 = log.iter().position(|e| e.1 == FrameKind::CfPoll && e.3 == 3).expect("a poll to 3");
    let poll_end = log[p3].0 + t.tx_time(wifitcp_wire::wifi_frame::CF_POLL_LEN, t.data_rate);
    assert_eq!(log[p3 + 1].0, poll_end + pifs, "{log:?}");
    assert!(log.iter().any(|e| e.1 == FrameKind::CfEnd));
}

#[test]
fn the_dcf_sends_after_the_cf_end_and_the_nav_is_reset() {
    // A long CFP (80 TU) that ends early (nothing to poll for): station 1
    // gets a packet during the CFP and must send it by contention right
    // after the CF-End, not at the end of CFPMaxDuration.
    let mut bss = cell(1, 80, None);
    let log: Log = Arc::default();
    bss.set_tap(Some(Box::new(Tap(log.clone()))));
    let mut queues = vec![vec![], vec![]];
    let end = SimTime::ZERO + SimDur::from_millis(3);
    run(&mut bss, &mut queues, &[1, 0], end);
    // Hand station 1 a packet at 2 ms: the CFP has ended by then (one
    // quiet round) and the DCF sends it.
    let log = log.lock().unwrap().clone();
    let e = log.iter().position(|e| e.1 == FrameKind::CfEnd).expect("a CF-End");
    assert!(log[e].0 < SimTime::ZERO + SimDur::from_millis(2), "{log:?}");
    let mut out = Vec::new();
    let now = SimTime::ZERO + SimDur::from_millis(4);
    bss.give_msdu(now, 1, pkt(7), 0, &mut out);
    // The station's DCF must be free to send now (NAV reset by the CF-End).
    let AnyMac::CfSta(s) = &bss.macs[1] else { panic!() };
    assert!(Mac::next_wakeup(&**s) <= now + t_difs(), "NAV not reset");
}

fn t_difs() -> SimDur {
    timing().difs
}

#[test]
fn the_poll_list_of_the_multi_poll_hybrid_is_what_the_ap_polls() {
    let c = ActivityConfig { pps: 1.0, bps: 1.0, window: SimDur::from_millis(10), hysteresis: 0.0 };
    let list = PollList::by_activity(4, c);
    let mut bss = cell(3, 20, Some(list));
    let log: Log = Arc::default();
    bss.set_tap(Some(Box::new(Tap(log.clone()))));
    // Station 2 sends all the time (by contention, then also when polled);
    // stations 1 and 3 stay idle: only station 2 joins the list.
    let mut queues = vec![vec![], vec![], (10..400).collect(), vec![]];
    let end = SimTime::ZERO + SimDur::from_millis(250);
    run(&mut bss, &mut queues, &[1, 0, 0, 0], end);
    let log = log.lock().unwrap().clone();
    let polled: std::collections::BTreeSet<u32> = log.iter().filter(|e| e.1.cf_poll()).map(|e| e.3).collect();
    assert_eq!(polled.into_iter().collect::<Vec<_>>(), vec![2]);
    let AnyMac::Ap(ap) = &bss.macs[0] else { panic!() };
    // It joined once, and left once it fell silent (its packets ran out
    // at about 140 ms; the CFP at about 206 ms found its window empty).
    let l = ap.poll_scheduler().unwrap();
    assert_eq!(l.joins_leaves(), (1, 1));
    assert_eq!(l.listed(), 0);
}

#[test]
fn polling_in_a_cell_with_hidden_stations() {
    // Stations 1 and 2 hear the AP but not each other (per-station carrier
    // sense, `medium::sense`); both have a backlog for the AP. In the CP
    // their DCF frames collide at the AP; in the CFP the beacon set both
    // NAVs and only the polled station sends: every frame SIFS after the
    // one before, every answer received (the PC's next frame carries its
    // CF-Ack), and no DCF frame until the CF-End.
    let mut bss = cell(2, 40, None);
    assert!(bss.set_sense(crate::medium::SenseMatrix::from_fn(3, |s, t| s == 0 || t == 0)));
    let log: Log = Arc::default();
    bss.set_tap(Some(Box::new(Tap(log.clone()))));
    let mut queues = vec![vec![], (0..400).collect(), (1000..1400).collect()];
    let end = SimTime::ZERO + SimDur::from_millis(150);
    let (delivered, _) = run_counting(&mut bss, &mut queues, &[1, 0, 0], end, true);
    let log = log.lock().unwrap().clone();
    let t = timing();
    use FrameKind::*;
    let airtime = |k: FrameKind| -> SimDur {
        match k {
            Beacon => t.tx_time(beacon_bytes(PhyStandard::Dot11a, 8, true), Rate(60)),
            DataCf { .. } => t.tx_time(
                wifitcp_wire::wifi_frame::data_mpdu_len(wifitcp_wire::wifi_frame::msdu_len(pkt(0).ip_len())),
                t.data_rate,
            ),
            CfEnd | CfEndAck => t.tx_time(20, t.control_rate),
            _ => t.tx_time(wifitcp_wire::wifi_frame::CF_POLL_LEN, t.data_rate),
        }
    };
    let beacons: Vec<usize> = log.iter().enumerate().filter(|e| e.1 .1 == Beacon).map(|e| e.0).collect();
    assert_eq!(beacons.len(), 2, "TBTTs at 1 and 103.4 ms: {log:?}");
    let mut cf_answers = 0;
    for &b in &beacons {
        let e = b + log[b..].iter().position(|e| matches!(e.1, CfEnd | CfEndAck)).expect("a CF-End");
        let cfp = &log[b..=e];
        for i in 0..cfp.len() - 1 {
            assert_eq!(cfp[i + 1].0, cfp[i].0 + airtime(cfp[i].1) + t.sifs, "gap after {i}: {cfp:?}");
        }
        // PC frames and answers alternate; polls go 1, 2, 1, 2 ...
        let pc: Vec<_> = cfp[1..].iter().step_by(2).collect();
        let answers: Vec<_> = cfp[2..].iter().step_by(2).collect();
        for (i, a) in answers.iter().enumerate() {
            assert_eq!((a.1, a.2, a.3), (DataCf { ack: false, poll: false }, pc[i].3, 0), "{cfp:?}");
            assert!(pc[i + 1].1.cf_ack(), "answer {i} not acknowledged: {cfp:?}");
            assert_ne!(pc[i].3, pc[i + 1].3, "{cfp:?}");
        }
        cf_answers += answers.len();
        // The CFP ran to CFPMaxDuration (both stations always had data).
        assert!(cfp.len() > 60, "{}", cfp.len());
    }
    // In the CP the hidden stations' frames collide at the AP.
    let collided: u64 = bss.medium_all().skip(1).map(|m| m.collided).sum();
    assert!(collided > 0, "no collision in the CP");
    // Every packet delivered at most once; the CFP carried about half.
    let mut d = delivered.clone();
    d.sort();
    d.dedup();
    assert_eq!(d.len(), delivered.len());
    assert!(cf_answers * 3 > delivered.len(), "{cf_answers} of {}", delivered.len());
}

#[test]
fn polling_over_the_ht_phy_sends_data_frames_in_ht_ppdus() {
    // 802.11n without aggregation: the PC's polls, Data+CF-Poll and the
    // stations' answers (frames of type Data) are single MPDUs in HT-mixed
    // PPDUs at the MCS; the beacon (6 Mbit/s), CF-End and ACKs go at legacy
    // rates; the DCF's data frames after the CF-End are HT PPDUs too.
    let t = ht_timing();
    let mut bss = cell_on(t.clone(), 2, 20, None);
    let log: Log = Arc::default();
    bss.set_tap(Some(Box::new(Tap(log.clone()))));
    let mut queues = vec![(100..140).collect(), (0..40).collect(), vec![]];
    let end = SimTime::ZERO + SimDur::from_millis(40);
    let delivered = run(&mut bss, &mut queues, &[2, 0, 0], end);
    let log = log.lock().unwrap().clone();
    use wifitcp_wire::wifi_frame::{data_mpdu_len, msdu_len, CF_POLL_LEN};
    use FrameKind::*;
    let data_bytes = data_mpdu_len(msdu_len(pkt(0).ip_len()));
    let airtime = |k: FrameKind| -> SimDur {
        match k {
            Beacon => t.tx_time(beacon_bytes(PhyStandard::Dot11n, 8, true), Rate(60)),
            Data | DataCf { .. } => t.data_ppdu_time(data_bytes),
            Ack => t.ack_time(),
            CfEnd | CfEndAck => t.tx_time(20, t.control_rate),
            _ => t.data_ppdu_time(CF_POLL_LEN),
        }
    };
    // An HT-mixed PPDU: 36 us of preambles and HT-SIG (L-STF, L-LTF,
    // L-SIG, HT-SIG, HT-STF, one HT-LTF) + 4 us symbols of 260 bits.
    assert_eq!(
        t.data_ppdu_time(data_bytes),
        SimDur::from_micros(36 + 4 * (16 + 8 * data_bytes as u64 + 6).div_ceil(260))
    );
    let b = log.iter().position(|e| e.1 == Beacon).expect("a beacon");
    let e = b + log[b..].iter().position(|e| matches!(e.1, CfEnd | CfEndAck)).expect("a CF-End");
    let cfp = &log[b..=e];
    assert!(cfp.len() > 20, "{cfp:?}");
    for i in 0..cfp.len() - 1 {
        assert_eq!(cfp[i + 1].0, cfp[i].0 + airtime(cfp[i].1) + t.sifs, "gap after {i}: {cfp:?}");
    }
    // The DCF before and after the CFP: every ACK SIFS after the HT data
    // PPDU it answers (two data frames starting together collided).
    let mut dcf_data = 0;
    for w in log.windows(2).filter(|w| w[0].1 == Data && w[1].1 == Ack) {
        assert_eq!((w[1].2, w[1].0), (w[0].3, w[0].0 + t.data_ppdu_time(data_bytes) + t.sifs), "{w:?}");
        dcf_data += 1;
    }
    assert!(dcf_data > 0, "{log:?}");
    let mut d = delivered.clone();
    d.sort();
    let want: Vec<_> = (0..40).map(|i| (0, i)).chain((100..140).map(|i| (2, i))).collect();
    assert_eq!(d, want);
}
