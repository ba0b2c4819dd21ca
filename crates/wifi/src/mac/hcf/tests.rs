//! HCF timelines (802.11n MCS 7 at 5 GHz: SIFS 16 us, slot 9 us, AIFS[BE]
//! 43 us; 802.11a 54 Mbit/s for non-HT blocks) and a saturated run
//! against the cycle-time arithmetic of one station.
use super::*;
use crate::mac::edca::EdcaSet;
use crate::mac::sched::ListScheduler;
use crate::mac::sched::PollList;
use crate::medium::{Bss, BssOutput, FixedPer};
use crate::phy::ht::{ampdu_bytes, PPDU_MAX_TIME};
use crate::phy::{PhyConfig, PhyStandard};
use wifitcp_core::{DropReason, FlowId, PacketId};
use wifitcp_wire::ip::PROTO_UDP;
use wifitcp_wire::{Ipv4Addr, Ipv4Header, UdpHeader};

/// A UDP packet of 992 IP octets: MPDU 1030 octets (QoS header 26, LLC 8,
/// FCS 4).
fn pkt(id: u64, tos: u8) -> Packet {
    let mut ip = Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), PROTO_UDP);
    ip.tos = tos;
    Packet::new_udp(PacketId(id), FlowId(0), SimTime::ZERO, ip, UdpHeader { src_port: 1, dst_port: 2 }, 964)
}
const MPDU: u32 = 1030;

fn ht_params(max: u16) -> HcfParams {
    let mut c = PhyConfig::new(PhyStandard::Dot11n, 0.0);
    c.ht_mcs = Some(7);
    HcfParams {
        timing: PhyTiming::from_config(&c).unwrap(),
        edca: EdcaSet::default_for(15, 1023, false),
        retry_limit: 7,
        block_ack: true,
        ba_window: 64,
        max_mpdus: max,
        max_ampdu_bytes: 65_535,
        no_ack: [false; 4],
        bar_after_missed_ba: false,
        rts_threshold: 65535,
        poll_hold: None,
        mac_queue: 0,
    }
}

fn us(x: u64) -> SimTime {
    SimTime::from_micros(x)
}

fn pair(p: HcfParams) -> (Hcf, Hcf) {
    let ap = Hcf::new(MacAddr(0), p.clone(), RngStream::derive(1, "ap"));
    let sta = Hcf::new(MacAddr(1), p, RngStream::derive(1, "sta"));
    (ap, sta)
}

/// A pair whose station holds `n` MSDUs for the AP and wins access at
/// 43 us (AIFS[BE] on an idle medium); the outputs so far.
fn pair_won(p: HcfParams, n: u64) -> (Hcf, Hcf, Vec<MacOutput>) {
    let (ap, mut sta) = pair(p);
    let mut out = Vec::new();
    for i in 0..n {
        sta.give_msdu(SimTime::ZERO, pkt(i, 0), MacAddr(0), &mut out);
    }
    win(&mut sta, us(43), &mut out);
    (ap, sta, out)
}

/// Wake `m` at `t`; a station that wins access there asks its queue for
/// more MSDUs and transmits when woken again at `t` (module docs).
fn win(m: &mut Hcf, t: SimTime, out: &mut Vec<MacOutput>) {
    m.on_wake(t, out);
    if m.next_wakeup() == t && !out.iter().any(|o| matches!(o, MacOutput::StartTx(_))) {
        m.on_wake(t, out);
    }
}

fn started(out: &mut Vec<MacOutput>) -> Frame {
    let i = out.iter().position(|o| matches!(o, MacOutput::StartTx(_))).expect("a transmission");
    match out.remove(i) {
        MacOutput::StartTx(f) => f,
        _ => unreachable!(),
    }
}

fn delivered(out: &[MacOutput]) -> Vec<u64> {
    out.iter().filter_map(|o| if let MacOutput::Deliver { pkt, .. } = o { Some(pkt.id.0) } else { None }).collect()
}

fn acked(out: &[MacOutput]) -> Vec<u64> {
    out.iter().filter_map(|o| if let MacOutput::Acked(id) = o { Some(id.0) } else { None }).collect()
}

/// `f` from `tx` ends at `end` at `rx` (which sensed it from `start`),
/// MPDUs whose index is in `lost` failing their FCS.
fn air(tx: &mut Hcf, rx: &mut Hcf, f: &Frame, start: SimTime, lost: &[usize]) -> (SimTime, Vec<MacOutput>) {
    let mut out = Vec::new();
    rx.on_cca(start, true, &mut out);
    let end = start + f.airtime;
    tx.on_tx_end(end, &mut out);
    let mut g = f.clone();
    for (i, m) in g.mpdus.as_mut_slice().iter_mut().enumerate() {
        m.fcs_ok = !lost.contains(&i);
    }
    let ok = g.mpdus.iter().any(|m| m.fcs_ok) || g.mpdus.is_empty();
    rx.on_rx_end(end, &mut g, ok, &mut out);
    rx.on_cca(end, false, &mut out);
    (end, out)
}

#[test]
fn an_a_mpdu_and_its_block_ack() {
    let (mut ap, mut sta) = pair(ht_params(8));
    let mut out = Vec::new();
    for i in 0..8 {
        sta.give_msdu(SimTime::ZERO, pkt(i, 0), MacAddr(0), &mut out);
    }
    assert_eq!(sta.demand(), None, "one MSDU held to contend with");
    // Idle medium, no backoff pending: AIFS[BE] = 16 + 3 x 9 = 43 us.
    assert_eq!(sta.next_wakeup(), us(43));
    win(&mut sta, us(43), &mut out);
    let f = started(&mut out);
    // The aggregate took the MSDUs into the window: the MAC asks for one
    // more to contend with.
    assert!(out.iter().any(|o| matches!(o, MacOutput::Ready)) && sta.demand().is_some());
    assert_eq!(f.kind, FrameKind::QosData);
    assert_eq!(f.mpdus.len(), 8);
    let psdu = ampdu_bytes(&[MPDU; 8]);
    assert_eq!(f.mpdu_bytes, psdu);
    // 8 x (4 + 1030 + 2 pad) - 2 = 8286 octets: 256 symbols of 260 bits.
    assert_eq!(f.airtime, SimDur::from_micros(36 + 4 * 256));
    assert_eq!(f.duration, SimDur::from_micros(16 + 32));
    assert!(f.mpdus.iter().all(|m| m.ack == AckPolicy::Normal && m.tid == 0));
    let (end, out) = air(&mut sta, &mut ap, &f, us(43), &[]);
    assert_eq!(delivered(&out), (0..8).collect::<Vec<_>>());
    // Compressed BlockAck at 24 Mbit/s, SIFS later: 20 + 4 x 3 = 32 us.
    assert_eq!(ap.next_wakeup(), end + SimDur::from_micros(16));
    let mut out = Vec::new();
    win(&mut ap, end + SimDur::from_micros(16), &mut out);
    let ba = started(&mut out);
    assert_eq!((ba.kind, ba.mpdu_bytes, ba.airtime), (FrameKind::BlockAck, 32, SimDur::from_micros(32)));
    let (_, out) = air(&mut ap, &mut sta, &ba, end + SimDur::from_micros(16), &[]);
    assert_eq!(acked(&out), (0..8).collect::<Vec<_>>());
    assert_eq!(sta.stats.mpdus_per_ppdu[8], 1);
    assert_eq!((sta.stats.block_acks, sta.stats.bitmap_losses), (1, 0));
}

#[test]
fn winning_access_fills_the_exchange_from_the_queue_at_that_instant() {
    let (_, mut sta) = pair(ht_params(8));
    let mut out = Vec::new();
    sta.give_msdu(SimTime::ZERO, pkt(0, 0), MacAddr(0), &mut out);
    assert!(out.is_empty() && sta.demand().is_none(), "one MSDU to contend with");
    sta.on_wake(us(43), &mut out);
    // Access won at 43 us: no frame yet, a request for MSDUs, a wake-up now.
    assert!(matches!(out[..], [MacOutput::Ready]));
    assert_eq!((sta.demand(), sta.next_wakeup()), (Some(Demand::ANY), us(43)));
    let mut i = 1;
    while sta.demand().is_some() {
        sta.give_msdu(us(43), pkt(i, 0), MacAddr(0), &mut out);
        i += 1;
    }
    assert_eq!(i, 8, "seven more: an exchange's worth");
    let mut out = Vec::new();
    sta.on_wake(us(43), &mut out);
    let f = started(&mut out);
    assert_eq!(f.mpdus.len(), 8);
    assert!(f.contended);
}

#[test]
fn lost_mpdus_go_first_in_the_next_aggregate_and_pass_up_in_order() {
    let (mut ap, mut sta) = pair(ht_params(4));
    let mut out = Vec::new();
    for i in 0..4 {
        sta.give_msdu(SimTime::ZERO, pkt(i, 0), MacAddr(0), &mut out);
    }
    win(&mut sta, us(43), &mut out);
    let f = started(&mut out);
    let (end, out) = air(&mut sta, &mut ap, &f, us(43), &[1, 2]);
    // MPDU 0 passes up; 3 waits behind the holes.
    assert_eq!(delivered(&out), vec![0]);
    let mut out = Vec::new();
    let t_ba = end + SimDur::from_micros(16);
    win(&mut ap, t_ba, &mut out);
    let ba = started(&mut out);
    let Some(MpduBody::BlockAck { start_seq, bitmap, .. }) = ba.mpdus.first().map(|m| m.body.clone()) else { panic!() };
    assert_eq!((start_seq, bitmap.low() & 0b111), (1, 0b100));
    let (t, out) = air(&mut ap, &mut sta, &ba, t_ba, &[]);
    assert_eq!(acked(&out), vec![0, 3]);
    assert_eq!(sta.stats.bitmap_losses, 2);
    // New MSDUs arrive; the next aggregate leads with SN 1 and 2, retried.
    let mut out = Vec::new();
    for i in 4..6 {
        sta.give_msdu(t, pkt(i, 0), MacAddr(0), &mut out);
    }
    let at = sta.next_wakeup();
    assert!(at >= t + SimDur::from_micros(43) && at <= t + SimDur::from_micros(43 + 15 * 9), "{at:?}");
    win(&mut sta, at, &mut out);
    let f = started(&mut out);
    let seqs: Vec<(u16, bool)> = f.mpdus.iter().map(|m| (m.seq, m.retry)).collect();
    assert_eq!(seqs, vec![(1, true), (2, true), (4, false), (5, false)]);
    let (_, out) = air(&mut sta, &mut ap, &f, at, &[]);
    assert_eq!(delivered(&out), vec![1, 2, 3, 4, 5]);
    assert_eq!(sta.stats.mpdu_retransmissions, 2);
}

#[test]
fn a_missed_block_ack_means_retransmission_or_an_explicit_request() {
    for bar in [false, true] {
        let mut p = ht_params(4);
        p.bar_after_missed_ba = bar;
        let (_, mut sta) = pair(p);
        let mut out = Vec::new();
        for i in 0..4 {
            sta.give_msdu(SimTime::ZERO, pkt(i, 0), MacAddr(0), &mut out);
        }
        win(&mut sta, us(43), &mut out);
        let f = started(&mut out);
        let end = us(43) + f.airtime;
        sta.on_tx_end(end, &mut out);
        // BlockAck timeout: SIFS + slot + aRxPHYStartDelay = 50 us.
        let deadline = end + SimDur::from_micros(50);
        assert_eq!(sta.next_wakeup(), deadline);
        win(&mut sta, deadline, &mut out);
        assert_eq!(sta.counters.failures, 1);
        // CW doubled to 31: the next access within AIFS + 31 slots.
        let at = sta.next_wakeup();
        assert!(at >= deadline + SimDur::from_micros(43) && at <= deadline + SimDur::from_micros(43 + 31 * 9));
        win(&mut sta, at, &mut out);
        let g = started(&mut out);
        if bar {
            assert_eq!(g.kind, FrameKind::BlockAckReq);
            assert!(matches!(g.mpdus.first().unwrap().body, MpduBody::BlockAckReq { start_seq: 0, .. }));
            // 24 octets at 24 Mbit/s: 20 + 4 x 3 us.
            assert_eq!(g.airtime, SimDur::from_micros(32));
        } else {
            assert_eq!(g.kind, FrameKind::QosData);
            assert!(g.mpdus.iter().all(|m| m.retry));
            assert_eq!(g.mpdus.len(), 4);
        }
    }
}

#[test]
fn the_retry_limit_drops_and_a_block_ack_req_moves_the_window() {
    let mut p = ht_params(2);
    p.retry_limit = 1;
    let (mut ap, mut sta) = pair(p);
    let mut out = Vec::new();
    for i in 0..2 {
        sta.give_msdu(SimTime::ZERO, pkt(i, 0), MacAddr(0), &mut out);
    }
    win(&mut sta, us(43), &mut out);
    let f = started(&mut out);
    let (end, _) = air(&mut sta, &mut ap, &f, us(43), &[0]);
    let mut out = Vec::new();
    win(&mut ap, end + SimDur::from_micros(16), &mut out);
    let ba = started(&mut out);
    let (t, out) = air(&mut ap, &mut sta, &ba, end + SimDur::from_micros(16), &[]);
    assert_eq!(acked(&out), vec![1]);
    assert!(out.iter().any(|o| matches!(o, MacOutput::Dropped(PacketId(0), DropReason::RetryLimit))));
    // The recipient still holds MSDU 1 behind SN 0: the BlockAckReq (SSN
    // 2) releases it.
    let mut out = Vec::new();
    let at = sta.next_wakeup();
    assert!(at > t, "post-backoff then the BlockAckReq");
    win(&mut sta, at, &mut out);
    let bar = started(&mut out);
    assert!(matches!(bar.mpdus.first().unwrap().body, MpduBody::BlockAckReq { start_seq: 2, .. }));
    let (_, out) = air(&mut sta, &mut ap, &bar, at, &[]);
    assert_eq!(delivered(&out), vec![1]);
}

#[test]
fn the_higher_access_category_wins_an_internal_collision() {
    let mut p = ht_params(1);
    // BE and VO with equal AIFSN and CW so that both become due together.
    p.edca.0[AccessCategory::Vo as usize] = p.edca.0[AccessCategory::Be as usize];
    let (_, mut sta) = pair(p);
    let mut out = Vec::new();
    sta.give_msdu(SimTime::ZERO, pkt(0, 0), MacAddr(0), &mut out);
    // DSCP CS7 (ToS 0xe0): UP 7, AC_VO. (The MAC holds one MSDU per
    // exchange here; the second goes past `demand` on purpose.)
    assert_eq!(Hcf::tid_of(&pkt(1, 0xe0)), 7);
    sta.give(SimTime::ZERO, pkt(1, 0xe0), MacAddr(0), &mut out);
    assert_eq!(sta.next_wakeup(), us(43));
    let mut out = Vec::new();
    win(&mut sta, us(43), &mut out);
    let f = started(&mut out);
    assert_eq!(f.mpdus.first().unwrap().tid, 7);
    assert_eq!(sta.stats.internal_collisions, 1);
    assert_eq!(sta.acs[AccessCategory::Be as usize].bo.cw, 31);
    // A single MPDU: Normal Ack, answered by an ACK.
    assert_eq!(f.duration, SimDur::from_micros(16 + 28));
}

#[test]
fn a_non_ht_block_is_sifs_separated_and_closed_by_a_block_ack_req() {
    let p = HcfParams {
        timing: PhyTiming::from_config(&PhyConfig::new(PhyStandard::Dot11a, 54.0)).unwrap(),
        ..ht_params(3)
    };
    let (mut ap, mut sta) = pair(p);
    let mut out = Vec::new();
    for i in 0..3 {
        sta.give_msdu(SimTime::ZERO, pkt(i, 0), MacAddr(0), &mut out);
    }
    let mut t = us(43);
    win(&mut sta, t, &mut out);
    let mut kinds = Vec::new();
    let mut got = Vec::new();
    for k in 0..4 {
        let f = started(&mut out);
        assert_eq!(f.contended, k == 0);
        kinds.push((f.kind, f.mpdus.first().map(|m| m.ack)));
        if f.kind == FrameKind::QosData {
            // 1030 octets at 54 Mbit/s: 20 + 4 x ceil(8262 / 216) = 176 us.
            assert_eq!(f.airtime, SimDur::from_micros(176));
        }
        let (end, o) = air(&mut sta, &mut ap, &f, t, &[]);
        got.extend(delivered(&o));
        t = end + SimDur::from_micros(16);
        assert_eq!(sta.next_wakeup().min(ap.next_wakeup()), t);
        out = Vec::new();
        if k < 3 {
            win(&mut sta, t, &mut out);
        }
    }
    use AckPolicy::BlockAck as B;
    assert_eq!(
        kinds,
        vec![
            (FrameKind::QosData, Some(B)),
            (FrameKind::QosData, Some(B)),
            (FrameKind::QosData, Some(B)),
            (FrameKind::BlockAckReq, Some(AckPolicy::Normal)),
        ]
    );
    assert_eq!(got, vec![0, 1, 2]);
    // The basic BlockAck: 152 octets at 24 Mbit/s, 20 + 4 x 13 = 72 us.
    win(&mut ap, t, &mut out);
    let ba = started(&mut out);
    assert_eq!((ba.mpdu_bytes, ba.airtime), (152, SimDur::from_micros(72)));
    let (_, o) = air(&mut ap, &mut sta, &ba, t, &[]);
    assert_eq!(acked(&o), vec![0, 1, 2]);
}

#[test]
fn no_ack_sends_without_response_or_retransmission() {
    let mut p = ht_params(4);
    p.no_ack = [true; 4];
    let (mut ap, mut sta) = pair(p);
    let mut out = Vec::new();
    for i in 0..4 {
        sta.give_msdu(SimTime::ZERO, pkt(i, 0), MacAddr(0), &mut out);
    }
    win(&mut sta, us(43), &mut out);
    let f = started(&mut out);
    assert!(f.mpdus.iter().all(|m| m.ack == AckPolicy::NoAck));
    assert_eq!(f.duration, SimDur::ZERO);
    let (_, out) = air(&mut sta, &mut ap, &f, us(43), &[2]);
    assert_eq!(acked(&out), vec![0, 1, 2, 3]);
    assert_eq!(delivered(&out), vec![0, 1, 3]);
    assert_eq!(ap.next_wakeup(), SimTime::NEVER, "no response");
}

/// Without A-MPDU (802.11a) a No Ack exchange is one MPDU in one PPDU whose
/// airtime is that MPDU's, even under a BlockAck agreement: the next MSDU
/// waits for the next exchange.
#[test]
fn non_ht_no_ack_sends_one_mpdu_per_ppdu() {
    let p = HcfParams {
        timing: PhyTiming::from_config(&PhyConfig::new(PhyStandard::Dot11a, 54.0)).unwrap(),
        no_ack: [true; 4],
        ..ht_params(4)
    };
    let t = p.timing.clone();
    let (mut ap, mut sta, mut out) = pair_won(p, 4);
    let f = started(&mut out);
    assert_eq!((f.mpdus.len(), f.mpdu_bytes), (1, MPDU));
    assert_eq!(f.airtime, t.data_ppdu_time(MPDU));
    assert_eq!(f.mpdus.first().map(|m| m.ack), Some(AckPolicy::NoAck));
    let (_, out) = air(&mut sta, &mut ap, &f, us(43), &[]);
    assert_eq!((acked(&out), delivered(&out)), (vec![0], vec![0]));
}

/// `n` saturated stations send to the AP (station 0) through the medium
/// for `secs`; returns MSDUs delivered per second and the BSS.
fn saturated(p: HcfParams, n: usize, secs: u64) -> (f64, Bss<Hcf>) {
    saturated_polled(p, n, secs, None)
}

/// `saturated`, the AP polling every station round robin with grants of
/// `txop` (`poll`: the polling config and the TXOP).
fn saturated_polled(p: HcfParams, n: usize, secs: u64, poll: Option<(PollConfig, SimDur)>) -> (f64, Bss<Hcf>) {
    let mut macs: Vec<Hcf> =
        (0..=n).map(|i| Hcf::new(MacAddr(i as u32), p.clone(), RngStream::derive(3, &format!("mac/{i}")))).collect();
    if let Some((cfg, txop)) = poll {
        let list = PollList::round_robin((1..=n as u32).map(MacAddr).collect());
        macs[0].set_poller(Box::new(ListScheduler::new(list, txop)), cfg);
    }
    let errors = FixedPer { uplink: vec![0.0; n + 1], downlink: vec![0.0; n + 1], is_ap: vec![] };
    let mut bss = Bss::new(macs, Box::new(errors), RngStream::derive(3, "medium"));
    let mut out = Vec::new();
    let mut next_id = 0u64;
    let mut feed = |bss: &mut Bss<Hcf>, now: SimTime, s: usize, out: &mut Vec<BssOutput>| {
        while bss.demand(s).is_some() {
            bss.give_msdu(now, s, pkt(next_id, 0), 0, out);
            next_id += 1;
        }
    };
    for s in 1..=n {
        feed(&mut bss, SimTime::ZERO, s, &mut out);
    }
    bss.reschedule_all(&mut out);
    let mut got = 0u64;
    let mut seen = std::collections::HashSet::new();
    harness::drive(&mut bss, out, SimTime::from_secs(secs), |bss, now, o, more| match o {
        BssOutput::Deliver { sta, pkt, .. } => {
            assert_eq!(sta, 0);
            assert!(seen.insert(pkt.id), "delivered twice");
            got += 1;
        }
        // Counted by the MAC (`drops_retry_limit`), checked by the caller.
        BssOutput::Dropped { reason: DropReason::RetryLimit, .. } => {}
        BssOutput::Ready { sta } => feed(bss, now, sta as usize, more),
        o => panic!("unexpected {o:?}"),
    });
    (got as f64 / secs as f64, bss)
}

#[test]
fn one_saturated_station_matches_the_cycle_time() {
    // One station, up to 64-MPDU aggregates, no collisions: each cycle is
    // AIFS, a mean backoff of CWmin / 2 = 7.5 slots, the A-MPDU, SIFS and
    // the BlockAck (cycle arithmetic from phy::ht, no MAC code). At MCS 7
    // 20 MHz aPPDUMaxTime (5.484 ms) binds before 64 MPDUs or 65,535
    // octets: 42 subframes of 1036 octets last 5.392 ms, 43 would last
    // 5.520.
    let p = ht_params(64);
    let t = p.timing.clone();
    let ppdu = |n: usize| t.data_ppdu_time(ampdu_bytes(&vec![MPDU; n]));
    assert!(ppdu(42) <= PPDU_MAX_TIME && ppdu(43) > PPDU_MAX_TIME);
    assert_eq!(ppdu(42), SimDur::from_micros(5392));
    let cycle_ns = 43_000.0 + 7.5 * 9_000.0 + ppdu(42).as_nanos() as f64 + 16_000.0 + 32_000.0;
    let expect = 42.0 * 1e9 / cycle_ns;
    let (got, bss) = saturated(p, 1, 4);
    let s = &bss.macs[1].stats;
    assert!((got / expect - 1.0).abs() < 0.01, "{got:.0} MSDU/s, cycle arithmetic {expect:.0}");
    assert!(s.mpdus_per_ppdu[42] > 0 && s.mpdus_per_ppdu.iter().sum::<u64>() == s.mpdus_per_ppdu[42]);
}

#[test]
fn saturated_stations_collide_and_recover_every_msdu() {
    let (got, bss) = saturated(ht_params(16), 10, 2);
    assert!(got > 1000.0, "{got}");
    let failures: u64 = bss.macs.iter().map(|m| m.counters.failures).sum();
    assert!(failures > 0, "ten stations collide");
    // What the MACs acknowledged was delivered; at this load the retry
    // limit discards at most a few MSDUs (seven failed attempts in a row).
    let acked: u64 = bss.macs.iter().map(|m| m.counters.successes).sum();
    assert!(acked as f64 <= got * 2.0 + 16.0 * 10.0);
    let dropped: u64 = bss.macs.iter().map(|m| m.counters.drops_retry_limit).sum();
    assert!((dropped as f64) < got * 2.0 / 100.0, "{dropped} of {}", got * 2.0);
}

#[test]
fn a_txop_limit_bursts_exchanges_sifs_apart_and_bounds_the_aggregate() {
    let mut p = ht_params(4);
    // TXOP of 1.5 ms from 43 us (ends at 1543 us). Four MPDUs: 4 x 1036 - 2
    // = 4142 octets, 36 + 4 x 128 = 548 us, + SIFS + BlockAck = 596 us.
    // Exchange 1 at 43 us, exchange 2 SIFS after its BlockAck at 655 us;
    // exchange 3 at 1267 us has 276 us left: one MPDU (164 us + SIFS + ACK
    // 28 us) fits, two (292 us + 48) do not; after it 68 us remain, less
    // than any exchange: the TXOP ends.
    for e in p.edca.0.iter_mut() {
        e.txop_limit = SimDur::from_micros(1500);
    }
    // The octet limit allows exactly four subframes.
    p.max_ampdu_bytes = 4142;
    let (mut ap, mut sta) = pair(p);
    let mut out = Vec::new();
    for i in 0..12 {
        sta.give(SimTime::ZERO, pkt(i, 0), MacAddr(0), &mut out);
    }
    win(&mut sta, us(43), &mut out);
    let mut t = us(43);
    let mut seen = Vec::new();
    for _ in 0..3 {
        let f = started(&mut out);
        seen.push((t.as_nanos() / 1000, f.mpdus.len(), f.contended));
        let (end, _) = air(&mut sta, &mut ap, &f, t, &[]);
        let t_resp = end + SimDur::from_micros(16);
        out = Vec::new();
        ap.on_wake(t_resp, &mut out);
        let resp = started(&mut out);
        let (resp_end, o) = air(&mut ap, &mut sta, &resp, t_resp, &[]);
        assert_eq!(acked(&o).len(), f.mpdus.len());
        out = o;
        t = resp_end + SimDur::from_micros(16);
        if sta.next_wakeup() == t {
            sta.on_wake(t, &mut out);
        }
    }
    assert_eq!(seen, vec![(43, 4, true), (655, 4, false), (1267, 1, false)]);
    // The TXOP is over: no frame SIFS later, a new access after AIFS.
    assert!(!out.iter().any(|o| matches!(o, MacOutput::StartTx(_))));
    assert!(sta.next_wakeup() >= t - SimDur::from_micros(16) + SimDur::from_micros(43));
}

#[test]
fn a_busy_medium_takes_one_decrement_per_slot_boundary_passed_since_aifs() {
    // 10.22.2.4: slot boundaries at the end of AIFS and after each idle
    // slot, a decrement at each; the DCF's rule (j for j idle slots) would
    // leave 10, 10, 10, 9, 7.
    let mut sta = Hcf::new(MacAddr(1), ht_params(16), RngStream::derive(1, "t"));
    let aifs_end = SimTime::from_micros(100); // slot 9 us
    for (busy_at, left) in [(99, 10), (100, 9), (108, 9), (109, 8), (127, 6)] {
        for a in sta.acs.iter_mut() {
            a.bo.set_slots(Some(10));
            a.bo.set_count_from(Some(aifs_end));
        }
        sta.freeze(SimTime::from_micros(busy_at));
        for a in sta.acs.iter() {
            assert_eq!(a.bo.slots(), Some(left), "busy at {busy_at} us");
            assert_eq!(a.bo.count_from(), None);
        }
    }
}

/// RTS/CTS from the frame exchange layer: the threshold applies to the
/// whole A-MPDU (the PSDU), the RTS's Duration covers CTS, the A-MPDU and
/// its BlockAck, the CTS's the rest, and the A-MPDU follows SIFS after the
/// CTS.
#[test]
fn an_a_mpdu_longer_than_the_rts_threshold_goes_after_rts_cts() {
    let psdu = ampdu_bytes(&[MPDU; 8]);
    // Threshold between one MPDU and the aggregate: only the PSDU exceeds it.
    let p = HcfParams { rts_threshold: MPDU + 100, ..ht_params(8) };
    let (mut ap, mut sta, mut out) = pair_won(p, 8);
    let rts = started(&mut out);
    let t = sta.p.timing.clone();
    let (sifs, cts_t) = (t.sifs, t.cts_time());
    let data_air = SimDur::from_micros(36 + 4 * 256);
    let ba = SimDur::from_micros(32);
    assert_eq!((rts.kind, rts.ra, rts.contended), (FrameKind::Rts, MacAddr(0), true));
    assert_eq!(rts.duration, sifs * 3 + cts_t + data_air + ba);
    let (end, out) = air(&mut sta, &mut ap, &rts, us(43), &[]);
    assert!(out.is_empty());
    // The AP answers SIFS later with a CTS.
    assert_eq!(ap.next_wakeup(), end + sifs);
    let mut out = Vec::new();
    ap.on_wake(end + sifs, &mut out);
    let cts = started(&mut out);
    assert_eq!((cts.kind, cts.ra), (FrameKind::Cts, MacAddr(1)));
    assert_eq!(cts.duration, rts.duration - sifs - cts_t);
    let (end, _) = air(&mut ap, &mut sta, &cts, end + sifs, &[]);
    // The A-MPDU SIFS after the CTS, not contended, the whole PSDU.
    assert_eq!(sta.next_wakeup(), end + sifs);
    let mut out = Vec::new();
    sta.on_wake(end + sifs, &mut out);
    let f = started(&mut out);
    assert_eq!((f.kind, f.mpdus.len(), f.mpdu_bytes, f.contended), (FrameKind::QosData, 8, psdu, false));
    let (end, out) = air(&mut sta, &mut ap, &f, end + sifs, &[]);
    assert_eq!(delivered(&out), (0..8).collect::<Vec<_>>());
    let mut out = Vec::new();
    win(&mut ap, end + sifs, &mut out);
    let b = started(&mut out);
    let (_, out) = air(&mut ap, &mut sta, &b, end + sifs, &[]);
    assert_eq!(acked(&out), (0..8).collect::<Vec<_>>());
    assert_eq!((sta.stats.rts, sta.stats.cts_failures, sta.counters.failures), (1, 0, 0));
    assert_eq!(sta.stats.airtime_rts_cts_ns, rts.airtime.as_nanos());
    assert_eq!(ap.stats.airtime_rts_cts_ns, cts_t.as_nanos());
}

/// An RTS that gets no CTS fails the exchange at the CTS timeout: the
/// MPDUs stay for a retransmission, CW doubles, and the next access sends
/// an RTS again.
#[test]
fn an_rts_without_cts_fails_and_retries() {
    let p = HcfParams { rts_threshold: 0, ..ht_params(4) };
    let (_, mut sta, mut out) = pair_won(p, 4);
    let rts = started(&mut out);
    assert_eq!(rts.kind, FrameKind::Rts);
    let end = us(43) + rts.airtime;
    sta.on_tx_end(end, &mut out);
    let deadline = end + sta.p.timing.ack_timeout();
    assert_eq!(sta.next_wakeup(), deadline);
    let mut out = Vec::new();
    sta.on_wake(deadline, &mut out);
    assert!(out.iter().all(|o| !matches!(o, MacOutput::Dropped(..))));
    assert_eq!((sta.stats.rts, sta.stats.cts_failures, sta.counters.failures), (1, 1, 1));
    assert_eq!(sta.acs[AccessCategory::Be as usize].bo.cw, 31);
    // The next access: an RTS again, in front of the same four MPDUs.
    let at = sta.next_wakeup();
    let mut out = Vec::new();
    win(&mut sta, at, &mut out);
    assert_eq!(started(&mut out).kind, FrameKind::Rts);
    assert_eq!(sta.seq.protected().map(|f| (f.mpdus.len(), f.retry)), Some((4, true)));
}

/// AP-scheduled access: with the AP polling every station round robin
/// (service periods back to back), each saturated station sends its
/// A-MPDUs in polled TXOPs SIFS after the QoS CF-Poll, and the stations no
/// longer collide (the AP takes the medium after PIFS, before any AIFS).
#[test]
fn polled_txops_carry_a_mpdus_without_collisions() {
    let n = 10;
    let (edca, bss_e) = saturated(ht_params(16), n, 2);
    let cfg = PollConfig { interval: SimDur::from_millis(20), max_period: SimDur::from_millis(20) };
    let (polled, bss) = saturated_polled(ht_params(16), n, 2, Some((cfg, SimDur::from_micros(2000))));
    let ap = &bss.macs[0].stats;
    assert!(ap.service_periods >= 90 && ap.polls >= 900, "{ap:?}");
    assert_eq!(ap.poll_nulls, 0, "saturated stations always have data");
    let fail_e: u64 = bss_e.macs.iter().map(|m| m.counters.failures).sum();
    let fail_p: u64 = bss.macs.iter().map(|m| m.counters.failures).sum();
    for m in &bss.macs[1..] {
        assert!(m.stats.polled_txops >= 90, "{:?}", m.stats);
        assert_eq!(m.stats.null_answers, 0);
        // Most of its PPDUs are the aggregates its TXOP holds: the grant
        // (2 ms from the end of the poll) less the SIFS before the answer
        // leaves 1984 us for A-MPDU, SIFS and BlockAck: 14 MPDUs (1824 +
        // 16 + 32 = 1872 us); 15 take 2000 us.
        let t = &m.p.timing;
        let exchange = |k: usize| t.data_ppdu_time(ampdu_bytes(&vec![MPDU; k])) + t.sifs + SimDur::from_micros(32);
        let budget = SimDur::from_micros(2000) - t.sifs;
        assert!(exchange(14) <= budget && exchange(15) > budget);
        assert!(m.stats.mpdus_per_ppdu[14] * 2 > m.stats.mpdus_per_ppdu.iter().sum::<u64>(), "{:?}", m.stats);
    }
    eprintln!("n = {n}: EDCA {edca:.0} MSDU/s, {fail_e} failed exchanges; polled {polled:.0} MSDU/s, {fail_p} failed, {} polls", ap.polls);
    // Contention before the first period only: far fewer failures.
    assert!(fail_p * 10 < fail_e, "polled {fail_p} failures, EDCA {fail_e}");
    assert!(polled > edca, "polled {polled:.0} MSDU/s, EDCA {edca:.0}");
}

/// A polled station with nothing to send answers QoS Null SIFS after the
/// poll; the AP counts the empty grant and moves on after PIFS.
#[test]
fn an_empty_grant_is_answered_with_a_qos_null() {
    let (mut ap, mut sta) = pair(ht_params(8));
    let cfg = PollConfig { interval: SimDur::from_millis(1), max_period: SimDur::from_millis(1) };
    let list = PollList::round_robin(vec![MacAddr(1)]);
    ap.set_poller(Box::new(ListScheduler::new(list, SimDur::from_micros(500))), cfg);
    let t0 = SimTime::from_millis(1);
    assert_eq!(ap.next_wakeup(), t0);
    let mut out = Vec::new();
    ap.on_wake(t0, &mut out);
    let poll = started(&mut out);
    assert_eq!((poll.kind, poll.ra, poll.duration), (FrameKind::QosCfPoll, MacAddr(1), SimDur::from_micros(500)));
    assert_eq!(ap.stats.polls, 1);
    let (end, _) = air(&mut ap, &mut sta, &poll, t0, &[]);
    let sifs = ap.p.timing.sifs;
    assert_eq!(sta.next_wakeup(), end + sifs);
    let mut out = Vec::new();
    sta.on_wake(end + sifs, &mut out);
    let null = started(&mut out);
    assert_eq!((null.kind, null.ra, null.contended), (FrameKind::QosNull, MacAddr(0), false));
    let (end, _) = air(&mut sta, &mut ap, &null, end + sifs, &[]);
    // PIFS later the AP closes the grant; the list is done: the period ends.
    let pifs = sifs + ap.p.timing.slot;
    assert_eq!(ap.next_wakeup(), end + pifs);
    let mut out = Vec::new();
    ap.on_wake(end + pifs, &mut out);
    assert!(out.iter().all(|o| !matches!(o, MacOutput::StartTx(_))));
    assert_eq!((ap.stats.poll_nulls, ap.stats.service_periods, sta.stats.null_answers), (1, 1, 1));
    assert_eq!(ap.next_wakeup(), t0 + SimDur::from_millis(1), "the next period");
}

/// The AP's own downlink TXOP in a service period gets no BlockAck (the
/// station missed the A-MPDU): the exchange fails at the timeout, and the
/// AP, with the medium idle since, polls PIFS later instead of waiting for
/// an idle indication that never comes.
#[test]
fn a_failed_downlink_txop_in_a_period_goes_on_to_the_poll() {
    let (mut ap, _) = pair(ht_params(8));
    let cfg = PollConfig { interval: SimDur::from_millis(1), max_period: SimDur::from_millis(1) };
    let list = PollList::round_robin(vec![MacAddr(1)]);
    ap.set_poller(Box::new(ListScheduler::new(list, SimDur::from_micros(500))), cfg);
    let mut out = Vec::new();
    for i in 0..2 {
        ap.give_msdu(SimTime::ZERO, pkt(i, 0), MacAddr(1), &mut out);
    }
    // No contention win before the period: the AP's EDCAF would access at
    // AIFS, so give the downlink after it (still queued at the period).
    let t0 = SimTime::from_millis(1);
    let mut out = Vec::new();
    while ap.next_wakeup() < t0 {
        let t = ap.next_wakeup();
        ap.on_wake(t, &mut out);
        if let Some(i) = out.iter().position(|o| matches!(o, MacOutput::StartTx(_))) {
            let MacOutput::StartTx(f) = out.remove(i) else { unreachable!() };
            // Every EDCA frame of the AP is lost before the period.
            ap.on_tx_end(t + f.airtime, &mut out);
        }
    }
    ap.on_wake(t0, &mut out);
    let f = started(&mut out);
    assert_eq!((f.kind, f.ra, f.contended), (FrameKind::QosData, MacAddr(1), false), "the downlink TXOP");
    let end = t0 + f.airtime;
    ap.on_tx_end(end, &mut out);
    let deadline = end + ap.p.timing.ack_timeout();
    assert_eq!(ap.next_wakeup(), deadline);
    let mut out = Vec::new();
    ap.on_wake(deadline, &mut out);
    let pifs = ap.p.timing.sifs + ap.p.timing.slot;
    assert_eq!(ap.next_wakeup(), deadline + pifs, "the poll, PIFS after the failed exchange");
    ap.on_wake(deadline + pifs, &mut out);
    let poll = started(&mut out);
    assert_eq!((poll.kind, poll.ra), (FrameKind::QosCfPoll, MacAddr(1)));
}

/// The token of a polled list (`HcfParams::poll_hold`): once polled, a
/// saturated station sends only in its polled TXOPs (no contended frame
/// after the first poll), where without the hold it also contends between
/// the service periods.
#[test]
fn a_station_holding_for_polls_does_not_contend_between_them() {
    let cfg = PollConfig { interval: SimDur::from_millis(20), max_period: SimDur::from_millis(4) };
    let poll = Some((cfg, SimDur::from_micros(2000)));
    let (_, free) = saturated_polled(ht_params(16), 2, 2, poll);
    let held = HcfParams { poll_hold: Some(SimDur::from_millis(40)), ..ht_params(16) };
    let (_, bss) = saturated_polled(held, 2, 2, poll);
    for s in 1..=2 {
        let (f, h) = (&free.medium(s), &bss.medium(s));
        // Before the first period (20 ms) the stations contend either way.
        eprintln!("station {s}: contended frames {} without the hold, {} with it", f.initial_frames, h.initial_frames);
        assert!(f.initial_frames > 300, "without the hold: {f:?}");
        assert!(h.initial_frames < 30, "with the hold: {h:?}");
        assert!(bss.macs[s].stats.polled_txops >= 95, "{:?}", bss.macs[s].stats);
    }
}

/// The hold ends two service intervals after the last grant: a station
/// the AP stops polling contends again.
#[test]
fn the_hold_ends_when_the_polls_stop() {
    let hold = SimDur::from_millis(4);
    let (mut ap, mut sta) = pair(HcfParams { poll_hold: Some(hold), ..ht_params(8) });
    let cfg = PollConfig { interval: SimDur::from_millis(1), max_period: SimDur::from_millis(1) };
    ap.set_poller(Box::new(ListScheduler::new(PollList::round_robin(vec![MacAddr(1)]), SimDur::from_micros(500))), cfg);
    let t0 = SimTime::from_millis(1);
    let mut out = Vec::new();
    ap.on_wake(t0, &mut out);
    let poll = started(&mut out);
    let (end, _) = air(&mut ap, &mut sta, &poll, t0, &[]);
    assert_eq!(sta.held_until, end + poll.duration + hold);
    // The station's answer, then a frame arrives while it holds.
    let sifs = sta.p.timing.sifs;
    let mut out = Vec::new();
    sta.on_wake(end + sifs, &mut out);
    let null = started(&mut out);
    let (end2, _) = air(&mut sta, &mut ap, &null, end + sifs, &[]);
    let mut out = Vec::new();
    sta.give_msdu(end2, pkt(1, 0), MacAddr(0), &mut out);
    assert!(out.iter().all(|o| !matches!(o, MacOutput::StartTx(_))));
    assert_eq!(sta.earliest_access(), None, "it holds its frame for the next poll");
    assert_eq!(sta.next_wakeup(), sta.held_until);
    // A voice frame (DSCP EF) does not wait for the token: its EDCAF
    // contends at once, AIFS[VO] after the medium went idle.
    let mut voice = pair(HcfParams { poll_hold: Some(hold), ..ht_params(8) }).1;
    voice.held_until = sta.held_until;
    voice.give_msdu(end2, pkt(2, 46 << 2), MacAddr(0), &mut out);
    assert_eq!(voice.earliest_access(), voice.contention_wake(AccessCategory::Vo as usize));
    assert!(voice.earliest_access().is_some_and(|a| a < sta.held_until));
    // No poll comes: at the end of the hold it counts its backoff again,
    // from then on (it transmits at once only after zero slots).
    let t = sta.held_until;
    let k = sta.acs[AccessCategory::Be as usize].bo.slots().expect("a backoff drawn while it held");
    sta.on_wake(t, &mut out);
    assert_eq!(sta.held_until, SimTime::ZERO);
    let slot = sta.p.timing.slot;
    if k == 0 {
        assert!(sta.access_at.is_some() || out.iter().any(|o| matches!(o, MacOutput::StartTx(_))));
    } else {
        assert_eq!(sta.earliest_access(), Some(t + slot * k as u64), "{k} slots from the end of the hold");
    }
}

/// 10.22.2.2 a): a frame for an AC that holds none, reaching an empty
/// queue while another station's frame is on the air, invokes the
/// backoff even though the AC's post-backoff ran out before; the next
/// frame of a backlog, handed over at the instant the MAC asked for it,
/// does not, and goes AIFS after the busy period.
#[test]
fn a_frame_reaching_an_empty_ac_while_the_medium_is_busy_backs_off() {
    let be = AccessCategory::Be as usize;
    for backlog in [false, true] {
        let waits: Vec<u64> = (0..20u64)
            .map(|seed| {
                let mut sta = Hcf::new(MacAddr(1), ht_params(16), RngStream::derive(seed, "t"));
                let mut out = Vec::new();
                sta.acs[be].bo.set_slots(Some(0));
                sta.resume(); // idle since 0: the post-backoff ran out at 43 us
                sta.on_cca(us(500), true, &mut out);
                if backlog {
                    sta.ask(us(510), &mut out);
                }
                sta.give_msdu(us(510), pkt(1, 0), MacAddr(0), &mut out);
                sta.on_cca(us(600), false, &mut out);
                let at = sta.next_wakeup();
                let aifs_end = us(643);
                assert!(at >= aifs_end && at <= aifs_end + SimDur::from_micros(9 * 15), "{at:?}");
                (at - aifs_end).as_nanos() / 1000
            })
            .collect();
        if backlog {
            assert!(waits.iter().all(|&k| k == 0), "backlog: {waits:?}");
        } else {
            assert!(waits.iter().any(|&k| k > 0) && waits.iter().all(|k| k % 9 == 0), "{waits:?}");
        }
    }
}
