//! Uplink trigger-based access (`ul_exchange.rs`) on the shared medium: n
//! saturated stations, the AP triggering every 1 ms (ns-3's
//! AccessReqInterval) with up to n users per Basic Trigger.
use super::super::{harness, Hcf, HcfParams};
use crate::mac::edca::{AccessCategory, EdcaSet};
use crate::mac::hcf::mu::DlAck;
use crate::mac::hcf::MuConfig;
use crate::mac::MacAddr;
use crate::medium::{Bss, BssOutput, FixedPer};
use wifitcp_core::{DropReason, RngStream, SimDur, SimTime};
use wifitcp_wire::Packet;

fn he_params(quiet_stations: bool) -> HcfParams {
    let mut edca = EdcaSet::default_for(15, 1023, false);
    if quiet_stations {
        // An AIFS of 1 ms: the stations never win access before the AP
        // (which contends again at once after each exchange), so only
        // Triggers move their data.
        edca.0[AccessCategory::Be as usize].aifsn = 110;
    }
    harness::he_params(edca)
}

fn pkt(id: u64) -> Packet {
    harness::udp_pkt(id, 2, 1)
}

struct Run {
    /// MSDUs the AP received from each station.
    got: Vec<u64>,
    events: u64,
    /// Transmissions on the medium.
    txs: u64,
    bss: Bss<Hcf>,
}

/// Stations 1..=n send saturated uplink for `ms`; `per[i]`: the error
/// rate of frames from station i.
fn uplink(n: usize, quiet_stations: bool, per: &[f64], ms: u64) -> Run {
    let ap_p = HcfParams { edca: EdcaSet::default_for(15, 1023, false).for_ap(), ..he_params(false) };
    let mut macs: Vec<Hcf> = (0..=n)
        .map(|i| {
            let p = if i == 0 { ap_p.clone() } else { he_params(quiet_stations) };
            Hcf::new(MacAddr(i as u32), p, RngStream::derive(7, &format!("mac/{i}")))
        })
        .collect();
    macs[0].set_mu(MuConfig {
        dl: false,
        ul: true,
        access_req: SimDur::from_micros(1000),
        max_stations: n as u32,
        ack: DlAck::MuBar,
        stations: (1..=n as u32).map(MacAddr).collect(),
    });
    let mut up = vec![0.0; n + 1];
    up[..per.len()].copy_from_slice(per);
    let errors = FixedPer { uplink: up, downlink: vec![0.0; n + 1], is_ap: vec![] };
    let mut bss = Bss::new(macs, Box::new(errors), RngStream::derive(7, "medium"));
    let mut out = Vec::new();
    let mut next = 0u64;
    let mut feed = |bss: &mut Bss<Hcf>, now: SimTime, sta: usize, out: &mut Vec<BssOutput>| {
        while bss.demand(sta).is_some() {
            bss.give_msdu(now, sta, pkt(next), 0, out);
            next += 1;
        }
    };
    for s in 1..=n {
        feed(&mut bss, SimTime::ZERO, s, &mut out);
    }
    bss.reschedule_all(&mut out);
    let mut got = vec![0u64; n + 1];
    let mut seen = std::collections::HashSet::new();
    let d = harness::drive(&mut bss, out, SimTime::from_millis(ms), |bss, now, o, more| match o {
        BssOutput::Deliver { sta: 0, from, pkt } => {
            assert!(seen.insert(pkt.id), "delivered twice");
            got[from] += 1;
        }
        BssOutput::Dropped { reason: DropReason::RetryLimit, .. } => {}
        BssOutput::DiscardedAfterReceipt { .. } => {}
        BssOutput::Ready { sta } if sta > 0 => feed(bss, now, sta, more),
        BssOutput::Ready { .. } => {}
        o => panic!("unexpected {o:?}"),
    });
    let (events, txs) = (d.events, d.txs);
    Run { got, events, txs, bss }
}

/// Four stations reached only by Triggers: every HE TB PPDU carries 42
/// MPDUs from each (65,535 octets on its 242-tone RU, within
/// aPPDUMaxTime), three transmissions per exchange (Trigger, HE TB PPDU,
/// multi-STA BlockAck), no failure, every station alike.
#[test]
fn triggered_stations_share_each_he_tb_ppdu() {
    let r = uplink(4, true, &[], 500);
    let ap = &r.bss.macs[0];
    let triggers = ap.counters.attempts;
    assert!(triggers > 60, "{triggers} Triggers");
    assert_eq!(ap.counters.failures, 0);
    // (the first Trigger's answer is QoS Nulls alone, not acknowledged; the
    // run may end within the last exchange)
    assert!(r.txs <= 3 * triggers && r.txs + 3 >= 3 * triggers, "Trigger, HE TB PPDU, multi-STA BlockAck: {}", r.txs);
    for s in &r.bss.macs[1..] {
        assert_eq!(s.counters.failures, 0);
        // (the first Trigger finds no buffer status: QoS Null only)
        assert!(s.stats.mpdus_per_ppdu[42] + 1 >= triggers, "{:?}", s.stats.mpdus_per_ppdu);
    }
    let (lo, hi) = (r.got[1..].iter().min().unwrap(), r.got[1..].iter().max().unwrap());
    assert!(hi - lo <= 42, "{:?}", r.got);
}

/// The HE TB PPDU is one transmission: the events per Trigger exchange
/// are the same with 4 users, with 8, and with 9 stations on 8 RUs, so
/// the cost grows with PPDUs, not with RUs or MPDUs.
#[test]
fn events_per_trigger_do_not_grow_with_users() {
    let per = |n: usize| {
        let r = uplink(n, true, &[], 300);
        let triggers = r.bss.macs[0].counters.attempts;
        assert!(r.txs <= 3 * triggers && r.txs + 3 >= 3 * triggers);
        r.events as f64 / triggers as f64
    };
    let (four, eight, nine) = (per(4), per(8), per(9));
    println!("events per Trigger exchange: {four:.3} with 4 users, {eight:.3} with 8, {nine:.3} with 9 stations");
    assert!(four < 12.0 && (four - eight).abs() < 0.1, "{four} vs {eight} events per Trigger");
    // 9 stations, 8 RUs of 106 tones: one station waits each time.
    assert!((four - nine).abs() < 0.1, "{four} vs {nine} events per Trigger");
}

/// Each user's share is judged on its own link: with every frame from
/// station 1 lost and none from the others, the AP gets nothing from
/// station 1 (its MSDUs dropped at the retry limit) and everything from
/// stations 2-4, in the same HE TB PPDUs. Judged once for the whole PPDU
/// the four would share one fate.
#[test]
fn each_share_is_judged_on_its_own_link() {
    let r = uplink(4, true, &[0.0, 1.0, 0.0, 0.0, 0.0], 500);
    assert_eq!(r.got[1], 0, "{:?}", r.got);
    assert!(r.got[2..].iter().all(|&g| g > 2000), "{:?}", r.got);
    assert!(r.bss.macs[1].counters.drops_retry_limit > 0);
    assert_eq!(r.bss.macs[0].counters.failures, 0, "the others' shares answer each Trigger");
}

/// With the stations contending as well (the setting of ns-3's uplink
/// run), every MSDU is delivered at most once and both kinds of access
/// carry data.
#[test]
fn contending_and_triggered_stations_together() {
    let r = uplink(4, false, &[], 500);
    assert!(r.got[1..].iter().all(|&g| g > 1000), "{:?}", r.got);
    let sta = &r.bss.macs[1];
    assert!(sta.counters.attempts > sta.stats.block_acks / 2);
    assert!(r.bss.macs[0].counters.attempts > 20);
}

/// A station that gave up on MPDUs owes a BlockAckReq (its recipient
/// still waits for them): it sends it alone in its next HE TB share, the
/// multi-STA BlockAck answers it, and its MSDUs keep flowing in order.
#[test]
fn a_block_ack_req_owed_goes_in_the_share() {
    let r = uplink(4, true, &[0.0, 0.9, 0.0, 0.0, 0.0], 1000);
    let s1 = &r.bss.macs[1];
    assert!(s1.counters.drops_retry_limit > 0, "{:?}", s1.counters);
    assert!(s1.stats.block_ack_reqs > 0, "{:?}", s1.stats);
    assert!(r.got[1] > 100, "{:?}", r.got);
    assert_eq!(r.bss.macs[0].counters.failures, 0);
}
