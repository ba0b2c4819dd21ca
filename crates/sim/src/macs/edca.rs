//! `mac.kind = "edca"`: the HCF's EDCA (802.11-2020 10.22.2) with QoS Data,
//! TXOPs, A-MPDU and immediate BlockAck (10.25) at every member
//! (`wifitcp_wifi::mac::hcf`); the only kind that runs on the 802.11n PHY.
//! Its APs send no beacons (the HCF has no beacon sender yet).
use super::{MacDescriptor, Member};
use crate::config::{AcName, BackoffRule, CollisionRestart, IdleAccess, PollMode, Scenario};
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{k, r, Key};
use wifitcp_core::SimDur;
use wifitcp_wifi::mac::hcf::PollConfig;
use wifitcp_wifi::mac::pcf::PollList;
use wifitcp_wifi::mac::sched::ListScheduler;
use wifitcp_wifi::mac::MacAddr;
use wifitcp_wifi::mac::{AckPolicy, AnyMac, DcfParams, Hcf, HcfParams};
use wifitcp_wifi::phy::PhyTiming;

/// Registration: kind "edca".
pub const MAC: MacDescriptor = MacDescriptor {
    name: "edca",
    about: "HCF: EDCA, QoS Data, BlockAck",
    reads: &["multipoll_pps", "multipoll_bps", "multipoll_window_ms", "multipoll_hysteresis"],
    keys: KEYS,
    foreign_key: Some("an HCF key, but mac.kind is \"dcf\" (set mac.kind = \"edca\")"),
    ht: true,
    beacons: false,
    check,
    build,
};

/// The HCF's own `[mac]` keys, relative to `mac`.
static KEYS: &[Key] = &[
    k("block_ack", Bool, "true", None, "", "edca: immediate BlockAck agreements (10.25) between every pair."),
    k("block_ack_window", Int, "64", r(In(1.0), In(64.0)), "MPDUs", "edca: the agreements' buffer size."),
    k(
        "max_mpdus",
        Int,
        "mac.block_ack_window",
        r(In(1.0), In(64.0)),
        "MPDUs",
        "edca: MPDUs per A-MPDU (HT) or per block (a/g).",
    ),
    k("max_ampdu_bytes", Int, "65535", r(In(1600.0), In(65535.0)), "bytes", "edca: octets per A-MPDU (HT)."),
    k(
        "txop_limit_us",
        Float,
        "Table 9-155 per AC",
        r(In(0.0), In(2097120.0)),
        "us",
        "edca: TXOP limit of every AC (0: one exchange).",
    ),
    k("no_ack_acs", Strs, "[]", None, "", "edca: access categories (\"bk\", \"be\", \"vi\", \"vo\") sending No Ack."),
    k(
        "bar_after_missed_ba",
        Bool,
        "false",
        None,
        "",
        "edca: BlockAckReq after a missed BlockAck (ns-3) instead of retransmitting.",
    ),
    k(
        "poll",
        Str,
        "\"off\"",
        None,
        "",
        "edca: AP-granted TXOPs: \"off\", \"all\" (round robin) or \"activity\" (multipoll_* thresholds).",
    ),
    k("poll_interval_ms", Float, "20.0", r(In(1.0), In(1e6)), "ms", "edca: a polling service period every interval."),
    k("poll_max_period_ms", Float, "mac.poll_interval_ms", r(Ex(0.0), In(1e6)), "ms", "edca: longest service period."),
    k("poll_txop_us", Float, "3008.0", r(In(0.0), In(1e9)), "us", "edca: the TXOP each poll grants."),
];

/// Polling defaults (`mac.poll*`): a 20 ms service interval, the service
/// interval of the voice and video streams HCCA was designed for (the
/// standard leaves the schedule to the hybrid coordinator, 10.23.4.3), and
/// a TXOP of 3008 us, the largest TXOP limit of Table 9-155's defaults
/// (AC_VI), enough for one A-MPDU of aPPDUMaxTime's share and its BlockAck
/// at 802.11n rates.
pub const D_POLL_INTERVAL_MS: f64 = 20.0;
pub const D_POLL_TXOP_US: f64 = 3008.0;

/// One frame exchange: the longest MPDU (a 1500-octet IP datagram in QoS
/// Data), SIFS and its ACK; the least a TXOP must hold.
fn one_exchange(t: &PhyTiming) -> SimDur {
    let mpdu = wifitcp_wire::wifi_frame::data_mpdu_len(wifitcp_wire::wifi_frame::msdu_len(1500)) + 2;
    t.data_ppdu_time(mpdu) + t.sifs + t.ack_time()
}

/// The HCF's keys, and the PHY/MAC pairs that go together.
fn check(s: &Scenario, t: &PhyTiming) -> Result<(), String> {
    let m = &s.mac;
    if m.backoff_rule != BackoffRule::IdleSlots
        || m.collision_restart != CollisionRestart::AckTimeoutDifs
        || m.idle_access != IdleAccess::Immediate
    {
        return Err("mac.backoff_rule: backoff_rule, collision_restart and idle_access are DCF options; the HCF follows 10.22.2".into());
    }
    let h = m;
    super::multipoll::check_thresholds(s)?;
    if let Some(i) = m.poll_interval_ms {
        if !(i.is_finite() && i >= 1.0) {
            return Err(format!("mac.poll_interval_ms: must be at least 1 ms, got {i}"));
        }
    }
    let interval = m.poll_interval_ms.unwrap_or(D_POLL_INTERVAL_MS);
    if let Some(p) = m.poll_max_period_ms {
        if !(p.is_finite() && p > 0.0 && p <= interval) {
            return Err(format!("mac.poll_max_period_ms: must be in (0, mac.poll_interval_ms = {interval}], got {p}"));
        }
    }
    if let Some(x) = m.poll_txop_us {
        // A grant starts at the end of the poll: SIFS, then one exchange.
        let one = t.sifs + one_exchange(t);
        if !(x.is_finite() && x <= 1e3 * interval && SimDur::from_micros_f64(x.max(0.0)) >= one) {
            return Err(format!(
                "mac.poll_txop_us: must hold one frame exchange ({:.0} us: a 1500-octet datagram, SIFS, ACK) and fit the interval, got {x}",
                one.as_micros_f64()
            ));
        }
    }
    let win = h.block_ack_window.unwrap_or(64);
    if !(1..=64).contains(&win) {
        return Err(format!("mac.block_ack_window: the compressed bitmap covers 1 to 64 MPDUs, got {win}"));
    }
    let max = h.max_mpdus.unwrap_or(win);
    if max == 0 {
        return Err("mac.max_mpdus: at least 1".into());
    }
    if max > win {
        return Err(format!(
            "mac.max_mpdus: {max} MPDUs exceed the BlockAck agreement's buffer (mac.block_ack_window = {win})"
        ));
    }
    let bytes = h.max_ampdu_bytes.unwrap_or(65_535);
    if !(1600..=65_535).contains(&bytes) {
        return Err(format!(
            "mac.max_ampdu_bytes: must be 1600-65535 (the HT maximum A-MPDU lengths are 8191 to 65535), got {bytes}"
        ));
    }
    if let Some(x) = h.txop_limit_us {
        // 10.22.2.9: a nonzero TXOP limit must hold one frame exchange.
        let one = one_exchange(t);
        if !(x.is_finite() && (0.0..=65_535.0 * 32.0).contains(&x)) {
            return Err(format!("mac.txop_limit_us: must be 0 to 2097120 us (units of 32 us), got {x}"));
        }
        if x > 0.0 && wifitcp_core::SimDur::from_micros_f64(x) < one {
            return Err(format!(
                "mac.txop_limit_us: {x} us is shorter than one frame exchange ({:.0} us: a 1500-octet datagram, SIFS, ACK); 0 allows one exchange",
                one.as_micros_f64()
            ));
        }
    }
    Ok(())
}

fn build(m: &Member) -> AnyMac {
    let mut hcf = Hcf::new(m.addr(), hcf_params(m.s, m.params, m.is_ap()), m.rng());
    let s = &m.s.mac;
    let mode = s.poll.unwrap_or(PollMode::Off);
    if m.is_ap() && !m.elsewhere && mode != PollMode::Off {
        let list = match mode {
            PollMode::Activity => PollList::by_activity(m.ap_of.len(), super::multipoll::activity(s)),
            _ => PollList::round_robin(
                (0..m.ap_of.len()).filter(|&k| k != m.i && m.ap_of[k] == m.i).map(|k| MacAddr(k as u32)).collect(),
            ),
        };
        let interval = s.poll_interval_ms.unwrap_or(D_POLL_INTERVAL_MS);
        let cfg = PollConfig {
            interval: SimDur::from_micros_f64(1e3 * interval),
            max_period: SimDur::from_micros_f64(1e3 * s.poll_max_period_ms.unwrap_or(interval)),
        };
        let txop = SimDur::from_micros_f64(s.poll_txop_us.unwrap_or(D_POLL_TXOP_US));
        hcf.set_poller(Box::new(ListScheduler::new(list, txop)), cfg);
    }
    AnyMac::from(hcf)
}

/// The HCF's parameters from `[mac]` (`mac.kind = "edca"`): the EDCA set
/// of Table 9-155 from the PHY's aCWmin/aCWmax (or `mac.cw_min/cw_max`),
/// the AP's own set at APs; retry limit `mac.short_retry_limit`.
pub(crate) fn hcf_params(s: &Scenario, d: &DcfParams, is_ap: bool) -> HcfParams {
    use wifitcp_wifi::mac::edca::{AccessCategory, EdcaSet};
    let m = &s.mac;
    let dsss = d.timing.standard == wifitcp_wifi::phy::PhyStandard::Dot11b;
    let mut edca = EdcaSet::default_for(d.cw_min, d.cw_max, dsss);
    if is_ap {
        edca = edca.for_ap();
    }
    if let Some(x) = m.txop_limit_us {
        for e in edca.0.iter_mut() {
            e.txop_limit = wifitcp_core::SimDur::from_micros_f64(x);
        }
    }
    let mut no_ack = [d.ack_policy == AckPolicy::NoAck; 4];
    for a in m.no_ack_acs.iter().flatten() {
        let ac = match a {
            AcName::Bk => AccessCategory::Bk,
            AcName::Be => AccessCategory::Be,
            AcName::Vi => AccessCategory::Vi,
            AcName::Vo => AccessCategory::Vo,
        };
        no_ack[ac as usize] = true;
    }
    let window = m.block_ack_window.unwrap_or(64);
    HcfParams {
        timing: d.timing.clone(),
        edca,
        retry_limit: d.short_retry_limit,
        block_ack: m.block_ack.unwrap_or(true),
        ba_window: window,
        max_mpdus: m.max_mpdus.unwrap_or(window),
        max_ampdu_bytes: m.max_ampdu_bytes.unwrap_or(65_535),
        no_ack,
        bar_after_missed_ba: m.bar_after_missed_ba.unwrap_or(false),
        rts_threshold: d.rts_threshold,
    }
}
