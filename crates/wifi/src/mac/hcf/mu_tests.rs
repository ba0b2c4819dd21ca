//! Downlink OFDMA runs on the medium: an AP with MSDUs for n stations,
//! HE MCS 11 at 80 MHz.
use super::super::{harness, Hcf, HcfParams};
use super::MuConfig;
use crate::mac::edca::EdcaSet;
use crate::mac::hcf::mu::DlAck;
use crate::mac::MacAddr;
use crate::medium::{Bss, BssOutput, FixedPer};
use wifitcp_core::{DropReason, RngStream, SimDur, SimTime};
use wifitcp_wire::Packet;

fn he_params() -> HcfParams {
    harness::he_params(EdcaSet::default_for(15, 1023, false).for_ap())
}

fn pkt(id: u64) -> Packet {
    harness::udp_pkt(id, 1, 2)
}

/// What a saturated downlink run gave.
struct Run {
    /// MSDUs delivered per station (index = station).
    got: Vec<u64>,
    /// Events the run handled (wake-ups and transmission ends).
    events: u64,
    bss: Bss<Hcf>,
}

/// The AP (member 0) sends to stations 1..=n, round robin, for `ms`;
/// `per[i]`: the error rate of frames from the AP to station i.
fn downlink(n: usize, nsta: u32, ack: DlAck, per: &[f64], ms: u64) -> Run {
    let p = he_params();
    let mut macs: Vec<Hcf> =
        (0..=n).map(|i| Hcf::new(MacAddr(i as u32), p.clone(), RngStream::derive(5, &format!("mac/{i}")))).collect();
    macs[0].set_mu(MuConfig {
        dl: true,
        ul: false,
        access_req: SimDur::ZERO,
        max_stations: nsta,
        ack,
        bsr_lifetime: SimDur::from_millis(20),
        bsrp: false,
        trigger_rate: None,
        queue_size_in_data: false,
        stations: (1..=n as u32).map(MacAddr).collect(),
    });
    let mut down = vec![0.0; n + 1];
    down[..per.len()].copy_from_slice(per);
    let errors = FixedPer { uplink: vec![0.0; n + 1], downlink: down, is_ap: vec![] };
    let mut bss = Bss::new(macs, Box::new(errors), RngStream::derive(5, "medium"));
    let mut out = Vec::new();
    let mut next = 0u64;
    let mut feed = |bss: &mut Bss<Hcf>, now: SimTime, out: &mut Vec<BssOutput>| {
        while bss.demand(0).is_some() {
            bss.give_msdu(now, 0, pkt(next), 1 + (next as usize % n), out);
            next += 1;
        }
    };
    feed(&mut bss, SimTime::ZERO, &mut out);
    bss.reschedule_all(&mut out);
    let mut got = vec![0u64; n + 1];
    let mut seen = std::collections::HashSet::new();
    let d = harness::drive(&mut bss, out, SimTime::from_millis(ms), |bss, now, o, more| match o {
        BssOutput::Deliver { sta, pkt, .. } => {
            assert!(seen.insert(pkt.id), "delivered twice");
            got[sta as usize] += 1;
        }
        BssOutput::Dropped { reason: DropReason::RetryLimit, .. } => {}
        BssOutput::Ready { sta: 0 } => feed(bss, now, more),
        o => panic!("unexpected {o:?}"),
    });
    let events = d.events;
    Run { got, events, bss }
}

fn ap(r: &Run) -> &Hcf {
    &r.bss.macs[0]
}

/// Four stations on four 242-tone RUs, MU-BAR: every MU PPDU carries 42
/// MPDUs to each (65,535 octets), and the rate is the cycle arithmetic's
/// (`mu.rs`: 516.1 Mbit/s of MSDUs with a mean backoff of 7.5 slots).
#[test]
fn four_stations_share_each_mu_ppdu_at_the_cycle_rate() {
    let r = downlink(4, 4, DlAck::MuBar, &[], 1000);
    let s = &ap(&r).stats;
    assert!(s.mu_ppdus > 200, "{s:?}");
    assert_eq!(s.mu_users, 4 * s.mu_ppdus);
    assert_eq!(s.mpdus_per_ppdu[42], s.mu_users, "every user's A-MPDU holds 42 MPDUs");
    let mbps = r.got.iter().sum::<u64>() as f64 * 1508.0 * 8.0 / 1e6;
    assert!((mbps / 516.1 - 1.0).abs() < 0.02, "{mbps} Mbit/s");
    let (lo, hi) = (r.got[1..].iter().min().unwrap(), r.got[1..].iter().max().unwrap());
    assert!(hi - lo <= 42, "{:?}", r.got);
    assert_eq!(ap(&r).counters.failures, 0);
}

/// An MU PPDU is one transmission: the events per MU PPDU are the same
/// with 4 users and with 8 (its MU-BAR and HE TB PPDU included), so a
/// run's cost grows with PPDUs, not with RUs or MPDUs.
#[test]
fn events_per_mu_ppdu_do_not_grow_with_users() {
    let per = |n: usize| {
        let r = downlink(n, n as u32, DlAck::MuBar, &[], 300);
        assert_eq!(ap(&r).stats.mu_users, n as u64 * ap(&r).stats.mu_ppdus);
        r.events as f64 / ap(&r).stats.mu_ppdus as f64
    };
    let (four, eight) = (per(4), per(8));
    println!("events per MU PPDU: {four:.3} with 4 users, {eight:.3} with 8");
    // A wake-up to win access (and one to take the exchange's MSDUs), the
    // ends of the MU PPDU, the MU-BAR and the HE TB PPDU, and the wake-ups
    // that send the MU-BAR and the HE TB PPDU.
    assert!(four < 8.0 && (four - eight).abs() < 0.05, "{four} vs {eight} events per MU PPDU");
}

/// Each user's PSDU is judged at that user: with every frame to station 1
/// lost and none to the others, stations 2-4 get every MSDU, station 1
/// none (its MSDUs are dropped at the retry limit). Judged once for the
/// whole PPDU, the four would share one fate.
#[test]
fn each_user_is_judged_at_its_own_receiver() {
    let r = downlink(4, 4, DlAck::MuBar, &[0.0, 1.0, 0.0, 0.0, 0.0], 500);
    assert_eq!(r.got[1], 0, "{:?}", r.got);
    assert!(r.got[2..].iter().all(|&g| g > 1000), "{:?}", r.got);
    let a = ap(&r);
    assert!(a.counters.drops_retry_limit > 0 && a.stats.mu_ppdus > 100);
    // The users the AP scheduled each time include station 1; its
    // failures are its own.
    assert!(a.stats.bitmap_losses > 0);
}

/// The other acknowledgement sequences run too: SU-format BlockAcks (one
/// BlockAck, then BlockAckReq/BlockAck per other user) and the aggregated
/// MU-BAR, each slower / faster than MU-BAR as `mu.rs`'s arithmetic says.
#[test]
fn su_format_and_aggregated_mu_bar_acknowledge_every_user() {
    let rate = |ack| {
        let r = downlink(4, 4, ack, &[], 500);
        assert_eq!(ap(&r).counters.failures, 0);
        assert!(r.got[1..].iter().all(|&g| g > 1000), "{ack:?}: {:?}", r.got);
        r.got.iter().sum::<u64>()
    };
    let (bar, su, agg) = (rate(DlAck::MuBar), rate(DlAck::SuFormat), rate(DlAck::AggregatedMuBar));
    assert!(su < bar && bar < agg, "{su} {bar} {agg}");
}
