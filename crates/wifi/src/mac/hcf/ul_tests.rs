//! Uplink trigger-based access (`ul_exchange.rs`) on the shared medium: n
//! saturated stations, the AP triggering every 1 ms (ns-3's
//! AccessReqInterval) with up to n users per Basic Trigger.
use super::super::{harness, Hcf, HcfParams};
use crate::mac::access::MuEdcaParams;
use crate::mac::edca::{AccessCategory, EdcaSet};
use crate::mac::hcf::mu::DlAck;
use crate::mac::hcf::MuConfig;
use crate::mac::MacAddr;
use crate::mac::{Frame, FrameKind};
use crate::medium::{Bss, BssOutput, FixedPer, FrameErrorModel, SenseMatrix};
use crate::phy::ppdu::RuLink;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use wifitcp_core::{DropReason, RngStream, SimDur, SimTime};
use wifitcp_wire::Packet;

fn he_params(quiet_stations: bool) -> HcfParams {
    let mut edca = EdcaSet::default_for(15, 1023, false);
    if quiet_stations {
        // An AIFS of 1,024 us: the stations never win access before the
        // AP, which contends at its next access-request tick (at most 1 ms
        // after each exchange) and sends at the slot boundary after it
        // (10.22.2.4), so only Triggers move their data.
        edca.0[AccessCategory::Be as usize].aifsn = 112;
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
    /// MSDUs the stations discarded at the retry limit after a copy
    /// reached the AP.
    after_receipt: usize,
    bss: Bss<Hcf>,
}

/// Stations 1..=n send saturated uplink for `ms`; `per[i]`: the error
/// rate of frames from station i. Every share reports its Queue Size and
/// the AP keeps it for the whole run.
fn uplink(n: usize, quiet_stations: bool, per: &[f64], ms: u64) -> Run {
    uplink_bsr(n, quiet_stations, per, ms, SimDur::from_millis(ms), true)
}

/// `uplink` with the AP trusting a report for `bsr_lifetime`, QoS Data
/// frames carrying a Queue Size when `queue_size_in_data`.
fn uplink_bsr(
    n: usize,
    quiet_stations: bool,
    per: &[f64],
    ms: u64,
    bsr_lifetime: SimDur,
    queue_size_in_data: bool,
) -> Run {
    uplink_with(n, quiet_stations, per, ms, bsr_lifetime, queue_size_in_data, None, false, 1000)
}

/// `uplink_bsr` with the stations using `mu_edca` for every AC after an
/// acknowledged HE TB share (`None`: MU EDCA off) and the AP sending BSRP
/// Triggers when `bsrp`.
#[allow(clippy::too_many_arguments)]
fn uplink_with(
    n: usize,
    quiet_stations: bool,
    per: &[f64],
    ms: u64,
    bsr_lifetime: SimDur,
    queue_size_in_data: bool,
    mu_edca: Option<MuEdcaParams>,
    bsrp: bool,
    access_req_us: u64,
) -> Run {
    let mut up = vec![0.0; n + 1];
    up[..per.len()].copy_from_slice(per);
    let errors = FixedPer { uplink: up, downlink: vec![0.0; n + 1], is_ap: vec![] };
    let medium = Medium { errors: Box::new(errors), per_receiver: None, retry_limit: 7 };
    uplink_on(n, quiet_stations, ms, bsr_lifetime, queue_size_in_data, mu_edca, bsrp, access_req_us, medium)
}

/// The medium of a run: its error model and, for reception per receiver
/// (`Bss::set_per_receiver`), who hears whom at what power; and the
/// stations' retry limit (transmissions of an MPDU).
struct Medium {
    errors: Box<dyn FrameErrorModel>,
    per_receiver: Option<SenseMatrix>,
    retry_limit: u32,
}

/// `uplink_with` on `medium`.
#[allow(clippy::too_many_arguments)]
fn uplink_on(
    n: usize,
    quiet_stations: bool,
    ms: u64,
    bsr_lifetime: SimDur,
    queue_size_in_data: bool,
    mu_edca: Option<MuEdcaParams>,
    bsrp: bool,
    access_req_us: u64,
    medium: Medium,
) -> Run {
    let ap_p = HcfParams { edca: EdcaSet::default_for(15, 1023, false).for_ap(), ..he_params(false) };
    let mut macs: Vec<Hcf> = (0..=n)
        .map(|i| {
            let p = if i == 0 {
                ap_p.clone()
            } else {
                HcfParams { retry_limit: medium.retry_limit, ..he_params(quiet_stations) }
            };
            Hcf::new(MacAddr(i as u32), p, RngStream::derive(7, &format!("mac/{i}")))
        })
        .collect();
    if let Some(p) = mu_edca {
        for m in &mut macs[1..] {
            m.set_mu_edca([p; 4]);
        }
    }
    macs[0].set_mu(MuConfig {
        dl: false,
        ul: true,
        access_req: SimDur::from_micros(access_req_us),
        max_stations: n as u32,
        ack: DlAck::MuBar,
        trigger_rate: None,
        bsr_lifetime,
        bsrp,
        queue_size_in_data,
        stations: (1..=n as u32).map(MacAddr).collect(),
    });
    let mut bss = Bss::new(macs, medium.errors, RngStream::derive(7, "medium"));
    if let Some(m) = medium.per_receiver {
        bss.set_per_receiver(m);
    }
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
    let mut after_receipt = Vec::new();
    let d = harness::drive(&mut bss, out, SimTime::from_millis(ms), |bss, now, o, more| match o {
        BssOutput::Deliver { sta: 0, from, pkt } => {
            assert!(seen.insert(pkt.id), "delivered twice");
            got[from as usize] += 1;
        }
        BssOutput::Dropped { reason: DropReason::RetryLimit, .. } => {}
        BssOutput::DiscardedAfterReceipt { id, .. } => after_receipt.push(id),
        BssOutput::Ready { sta } if sta > 0 => feed(bss, now, sta as usize, more),
        BssOutput::Ready { .. } => {}
        o => panic!("unexpected {o:?}"),
    });
    // The ledger: an MSDU a station discarded as having reached the AP
    // (its verdict said so) was passed up there, or waits in the AP's
    // reordering buffer.
    let held: std::collections::HashSet<_> = bss.macs[0].held_items().map(|p| p.id).collect();
    let lost: Vec<_> = after_receipt.iter().filter(|id| !seen.contains(id) && !held.contains(id)).collect();
    assert!(
        lost.is_empty(),
        "{} MSDUs discarded after a receipt, never passed up at the AP: {:?}",
        lost.len(),
        &lost[..lost.len().min(8)]
    );
    let (events, txs) = (d.events, d.txs);
    Run { got, events, txs, after_receipt: after_receipt.len(), bss }
}

/// Four stations reached only by Triggers: every HE TB PPDU carries 42
/// MPDUs from each (65,535 octets on its 242-tone RU; the report of 254
/// asks for aPPDUMaxTime, padded beyond them), three transmissions per
/// exchange (Trigger, HE TB PPDU, multi-STA BlockAck), no failure, every
/// station alike.
#[test]
fn triggered_stations_share_each_he_tb_ppdu() {
    let r = uplink(4, true, &[], 500);
    let ap = &r.bss.macs[0];
    let triggers = ap.counters.attempts;
    assert!(triggers > 60, "{triggers} Triggers");
    // Trigger + SIFS + 5,480 us HE TB PPDU + SIFS + BlockAck + AIFS and
    // backoff: at most 500 ms / 5.6 ms exchanges.
    assert!(triggers < 90, "{triggers} Triggers: HE TB PPDUs shorter than aPPDUMaxTime");
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
    assert!(four < 12.0 && eight < four + 0.1, "{four} vs {eight} events per Trigger");
    // 9 stations, 8 RUs of 106 tones: one station waits each time.
    assert!(nine < four + 0.1, "{four} vs {nine} events per Trigger");
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

/// ns-3 3.37's defaults: the stations put their Queue Size in QoS Null
/// frames only and the AP trusts a report for 20 ms. A Trigger after the
/// report expired asks for 500 octets (UlPsduSize): no 1500-octet MSDU
/// fits, every station answers with a QoS Null reporting 254, and the
/// next Triggers ask for aPPDUMaxTime again, until the report expires.
/// With reports in QoS Data frames too, only the run's first Trigger
/// finds no report.
#[test]
fn reports_in_qos_null_only_expire_after_their_lifetime() {
    let ms = 1000;
    // Triggers station 1 answered without data (it answers every one).
    let short = |r: &Run| r.bss.macs[0].counters.attempts - r.bss.macs[1].stats.mpdus_per_ppdu[42];
    let ns3 = uplink_bsr(4, true, &[], ms, SimDur::from_millis(20), false);
    let data = uplink_bsr(4, true, &[], ms, SimDur::from_millis(20), true);
    // One QoS Null round every 20 ms or a little more (a report is
    // refreshed only by the QoS Null round: 3-4 long exchanges of 5.6 ms).
    assert!((40..=50).contains(&short(&ns3)), "{} QoS Null shares in {ms} ms", short(&ns3));
    assert_eq!(short(&data), 1, "only the first Trigger finds no report");
    let (a, b) = (ns3.got[1..].iter().sum::<u64>(), data.got[1..].iter().sum::<u64>());
    println!(
        "QoS Null rounds in {ms} ms: {} (reports in QoS Null only), {} (in QoS Data too); MSDUs {a}, {b}",
        short(&ns3),
        short(&data)
    );
    assert!(a < b, "{a} MSDUs with QoS Null reports, {b} with reports in QoS Data too");
}

/// The stations' single-user data PPDUs: every data PPDU they sent less
/// their HE TB data shares.
fn su_ppdus(h: &Hcf) -> u64 {
    h.stats.mpdus_per_ppdu.iter().sum::<u64>() - h.stats.tb_data_shares
}

/// MU EDCA (802.11ax-2021 26.2.7) with MU AIFSN 0: once a multi-STA
/// BlockAck acknowledged a station's QoS Data in an HE TB PPDU, its
/// best-effort EDCAF does not contend until the MU EDCA timer runs out.
/// With a 16.384 ms timer restarted by each acknowledged share (the AP
/// triggers every exchange) contending stations send single-user
/// A-MPDUs before their first share only; with MU EDCA off they keep
/// contending between Triggers (`contending_and_triggered_stations_together`).
#[test]
fn mu_edca_aifsn_zero_keeps_triggered_stations_from_contending() {
    let life = SimDur::from_millis(500);
    let off = uplink_with(4, false, &[], 500, life, true, None, false, 1000);
    let p = MuEdcaParams { aifsn: 0, cw_min: 15, cw_max: 1023, timer: SimDur::from_micros(16_384) };
    let on = uplink_with(4, false, &[], 500, life, true, Some(p), false, 1000);
    let be = AccessCategory::Be as usize;
    for i in 1..=4 {
        let (s_off, s_on) = (&off.bss.macs[i], &on.bss.macs[i]);
        assert!(su_ppdus(s_off) > 20, "station {i}, MU EDCA off: {} SU PPDUs", su_ppdus(s_off));
        assert!(su_ppdus(s_on) <= 3, "station {i}, MU EDCA: {} SU PPDUs, {:?}", su_ppdus(s_on), s_on.stats);
        assert!(s_on.stats.mu_edca_switches > 50, "{:?}", s_on.stats);
        assert_eq!(s_off.stats.mu_edca_switches, 0);
        // Disabled at the end of the run (the AP triggers every ~5.6 ms).
        assert_eq!(s_on.ac_params_in_use(be), (0, 15, 1023, true));
        assert!(on.got[i] > 1000, "{:?}", on.got);
    }
}

/// The MU EDCA timer is a wake-up: a station whose AP stops triggering
/// contends again once it runs out. One saturated contending station, the
/// AP asking for access every 20 ms (at 20 ms a Trigger for UlPsduSize,
/// answered by a QoS Null; at 40 ms one sized by its report, answered
/// with data), MU AIFSN 0, timer 8.192 ms: from its switch the station
/// sends no SU A-MPDU until the timer ran out, then sends them again (one
/// every ~1.1 ms otherwise).
#[test]
fn mu_edca_timer_expiry_returns_the_station_to_edca() {
    let p = MuEdcaParams { aifsn: 0, cw_min: 15, cw_max: 1023, timer: SimDur::from_micros(8192) };
    let at = |ms: u64| {
        let r = uplink_with(1, false, &[], ms, SimDur::from_millis(100), true, Some(p), false, 20_000);
        let s = &r.bss.macs[1];
        (s.stats.mu_edca_switches, su_ppdus(s), s.ac_params_in_use(AccessCategory::Be as usize).3)
    };
    // The first millisecond that ends after the switch.
    let t = (40..50).find(|&ms| at(ms).0 == 1).expect("a switch after the Trigger at 40 ms");
    let (_, su0, disabled) = at(t);
    assert!(disabled && su0 > 10, "{:?}", at(t));
    // Disabled for the timer's whole 8.192 ms: not one SU A-MPDU.
    for ms in t..t + 8 {
        assert_eq!(at(ms), (1, su0, true), "{ms} ms");
    }
    // Then EDCA again: several SU A-MPDUs within 5 ms.
    let (sw, su, disabled) = at(t + 13);
    assert_eq!((sw, disabled), (1, false));
    assert!(su >= su0 + 3, "{su0} -> {su}");
}

/// BSRP (26.5.5): with reports kept for 20 ms in QoS Nulls only, the AP
/// asks with a BSRP Trigger when a report expired instead of a Basic
/// Trigger sized by UlPsduSize: no Basic Trigger is answered by QoS Nulls
/// alone after the first BSRP, the first Basic Trigger carries the sizes
/// reported (aPPDUMaxTime: every share 42 MPDUs), and the BSRP rounds
/// replace the QoS Null rounds of `reports_in_qos_null_only_expire_after_their_lifetime`.
#[test]
fn bsrp_sizes_the_basic_trigger_from_the_reports() {
    let ms = 1000;
    let r = uplink_with(4, true, &[], ms, SimDur::from_millis(20), false, None, true, 1000);
    let ap = &r.bss.macs[0];
    let bsrp = ap.stats.bsrp_triggers;
    // The first access and then one per expiry (about every 20 ms).
    assert!((40..=55).contains(&bsrp), "{bsrp} BSRP Triggers in {ms} ms");
    // Every Basic Trigger got 42-MPDU shares from every station: none
    // asked for UlPsduSize (which would bring QoS Nulls alone).
    let basic = ap.counters.attempts - bsrp;
    for i in 1..=4 {
        let s = &r.bss.macs[i];
        assert_eq!(s.stats.tb_data_shares, s.stats.mpdus_per_ppdu[42], "station {i}: {:?}", s.stats.mpdus_per_ppdu);
        assert!(
            s.stats.tb_data_shares + 1 >= basic,
            "station {i}: {} data shares, {basic} Basic Triggers",
            s.stats.tb_data_shares
        );
    }
    assert_eq!(ap.counters.failures, 0);
    let off = uplink_bsr(4, true, &[], ms, SimDur::from_millis(20), false);
    assert_eq!(off.bss.macs[0].stats.bsrp_triggers, 0);
    let (a, b) = (r.got[1..].iter().sum::<u64>(), off.got[1..].iter().sum::<u64>());
    println!("BSRP Triggers in {ms} ms: {bsrp}; MSDUs {a} with BSRP, {b} without");
    assert!(a > 1000 && b > 1000);
}

/// What `Sinr` saw: Triggers decoded under interference, and the MPDUs of
/// HE TB shares judged with interference in their own stretch of the PPDU
/// (lost) or without (received) while interference met the PPDU.
#[derive(Default)]
struct Seen {
    triggers_under_interference: AtomicU64,
    tb_mpdus_lost: AtomicU64,
    tb_mpdus_clear: AtomicU64,
    /// When Triggers were decoded under interference, and when HE TB
    /// PPDUs met interference at the AP (each instant once).
    trigger_times: Mutex<BTreeSet<u64>>,
    tb_times: Mutex<BTreeSet<u64>>,
}

/// An error model of SINR thresholds over `m`'s powers: a control frame
/// gets through when every span is at least 3 dB above its interference,
/// an MPDU of data at least 20 dB, a PHY header 3 dB; nothing fails
/// alone.
struct Sinr {
    m: SenseMatrix,
    seen: Arc<Seen>,
}

impl FrameErrorModel for Sinr {
    fn success_prob(&mut self, _: SimTime, _: MacAddr, _: MacAddr, _: &Frame, _: &mut RngStream) -> f64 {
        1.0
    }
    fn success_prob_with_interference(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        f: &Frame,
        ru: Option<RuLink>,
        chunks: &[(u64, f64)],
        _: &mut RngStream,
    ) -> f64 {
        let p = self.m.rx_mw(ta.0 as usize, ra.0 as usize);
        let need = if f.kind.carries_msdus() { 20.0 } else { 3.0 };
        let ok = chunks.iter().all(|c| c.1 <= 0.0 || 10.0 * (p / c.1).log10() >= need);
        let hit = chunks.iter().any(|c| c.1 > 0.0);
        if f.kind == FrameKind::Trigger && hit && ok {
            self.seen.triggers_under_interference.fetch_add(1, Relaxed);
            self.seen.trigger_times.lock().expect("lock").insert(now.as_nanos());
        }
        if ru.is_some() && f.kind.carries_msdus() {
            let n = if hit { &self.seen.tb_mpdus_lost } else { &self.seen.tb_mpdus_clear };
            n.fetch_add(1, Relaxed);
        }
        if ok {
            1.0
        } else {
            0.0
        }
    }
    /// The signal fields need 3 dB; an HE TB user's are on its RU's 20
    /// MHz, where its power is 6 dB above its share of an 80 MHz
    /// interferer's.
    fn header_prob_with_interference(
        &mut self,
        now: SimTime,
        ta: MacAddr,
        ra: MacAddr,
        _: &Frame,
        ru: Option<RuLink>,
        chunks: &[(u64, f64)],
        _: &mut RngStream,
    ) -> f64 {
        if ru.is_some_and(|r| r.uplink) && chunks.iter().any(|c| c.1 > 0.0) {
            self.seen.tb_times.lock().expect("lock").insert(now.as_nanos());
        }
        let p = self.m.rx_mw(ta.0 as usize, ra.0 as usize) * if ru.is_some() { 4.0 } else { 1.0 };
        if chunks.iter().all(|c| c.1 <= 0.0 || 10.0 * (p / c.1).log10() >= 3.0) {
            1.0
        } else {
            0.0
        }
    }
}

/// Reception per receiver (ns-3's PHY, `medium::sense`): a Basic Trigger
/// that starts in the same slot as a station's A-MPDU still reaches the
/// other stations, where the AP's power is 6 dB above the colliding
/// station's; they answer, and at the AP their HE TB PPDU meets the rest
/// of that A-MPDU (0 dB): the MPDUs it overlaps are lost, the later ones
/// received. On the shared medium such a Trigger reaches no one.
#[test]
fn a_trigger_that_collided_reaches_the_stronger_side_and_its_he_tb_ppdu_loses_the_overlap() {
    let n = 4;
    // The AP and each station 1 mW apart; two stations 0.25 mW (-6 dB).
    let m = SenseMatrix::from_rx_dbm(n + 1, -90.0, |s, t| if s == 0 || t == 0 { 0.0 } else { -6.02 });
    let seen = Arc::new(Seen::default());
    let errors = Box::new(Sinr { m: m.clone(), seen: seen.clone() });
    let life = SimDur::from_millis(1000);
    let r = uplink_on(
        n,
        false,
        1000,
        life,
        true,
        None,
        false,
        1000,
        Medium { errors, per_receiver: Some(m), retry_limit: 7 },
    );
    let (trig, lost, clear) = (
        seen.triggers_under_interference.load(Relaxed),
        seen.tb_mpdus_lost.load(Relaxed),
        seen.tb_mpdus_clear.load(Relaxed),
    );
    // Every such Trigger is answered, also when the colliding station is
    // its first user (the others send the HE TB PPDU, `medium::mu`).
    let (decoded, answered) =
        (seen.trigger_times.lock().expect("lock").len(), seen.tb_times.lock().expect("lock").len());
    eprintln!(
        "Triggers decoded under interference {trig} ({decoded} Triggers, {answered} HE TB PPDUs under interference); \
         HE TB MPDUs under interference: lost {lost}, clear {clear}"
    );
    assert!(trig >= 10, "{trig} Triggers decoded beside a colliding A-MPDU");
    assert_eq!(answered, decoded, "a Trigger decoded beside a colliding A-MPDU went unanswered");
    // (each such HE TB PPDU: the A-MPDU covers part of every share)
    assert!(lost >= 100 && clear >= 100, "lost {lost}, clear {clear}: MPDUs judged by their own stretch");
    let moved: u64 = r.got[1..].iter().sum();
    assert!(moved > 0);
    // The shared medium: no Trigger is judged under interference.
    let seen0 = Arc::new(Seen::default());
    let m0 = SenseMatrix::from_rx_dbm(n + 1, -90.0, |s, t| if s == 0 || t == 0 { 0.0 } else { -6.02 });
    let errors = Box::new(Sinr { m: m0, seen: seen0.clone() });
    uplink_on(n, false, 1000, life, true, None, false, 1000, Medium { errors, per_receiver: None, retry_limit: 7 });
    assert_eq!(seen0.triggers_under_interference.load(Relaxed), 0);
}

/// Reception per receiver: when a station's A-MPDU began while the AP
/// sent its Trigger, the AP's carrier sense is busy as its wait for the
/// HE TB PPDU starts, and the PPDU brings no change of it. The AP's PHY
/// synchronises on the PPDU all the same (PHY-RXSTART,
/// `Mac::on_rx_start`), so the wait lasts to its end and the AP answers
/// with the multi-STA BlockAck (as ns-3 3.37's AP does): it gives up
/// hardly an exchange, and with one transmission per MPDU no station
/// discards an MSDU that reached the AP unacknowledged (`uplink_on`
/// checks the ledger for every run). (Without the indication the wait
/// would time out on every such Trigger.)
#[test]
fn the_ap_answers_an_he_tb_ppdu_that_began_during_another_frame() {
    let n = 4;
    let m = SenseMatrix::from_rx_dbm(n + 1, -90.0, |s, t| if s == 0 || t == 0 { 0.0 } else { -6.02 });
    let seen = Arc::new(Seen::default());
    let errors = Box::new(Sinr { m: m.clone(), seen: seen.clone() });
    let life = SimDur::from_millis(1000);
    let medium = Medium { errors, per_receiver: Some(m), retry_limit: 1 };
    let r = uplink_on(n, false, 1000, life, true, None, false, 1000, medium);
    let ap = &r.bss.macs[0];
    let trig = seen.triggers_under_interference.load(Relaxed);
    eprintln!(
        "Triggers decoded under interference {trig}; AP failures {}; discarded after a receipt {}",
        ap.counters.failures, r.after_receipt
    );
    assert!(trig >= 10, "{trig} Triggers decoded beside a colliding A-MPDU");
    assert!(ap.counters.failures * 10 < trig, "the AP gave up {} exchanges", ap.counters.failures);
    assert!(r.after_receipt < 10, "{} MSDUs discarded after a receipt", r.after_receipt);
}
