//! `mac.kind = "edca"`: the HCF's EDCA (802.11-2020 10.22.2) with QoS Data,
//! TXOPs, A-MPDU and immediate BlockAck (10.25) at every member
//! (`wifitcp_wifi::mac::hcf`); the only kind that runs on the 802.11n PHY.
//! Its APs send no beacons (the HCF has no beacon sender yet).
use super::multipoll::activity_keys;
use super::{MacKind, Member};
use crate::config::{AcName, BackoffRule, CollisionRestart, IdleAccess, PollMode, Scenario};
use wifitcp_core::config::ConfigError;
use wifitcp_core::SimDur;
use wifitcp_wifi::mac::access::MuEdcaParams;
use wifitcp_wifi::mac::edca::AccessCategory;
use wifitcp_wifi::mac::hcf::{MuConfig, PollConfig};
use wifitcp_wifi::mac::pcf::PollList;
use wifitcp_wifi::mac::sched::ListScheduler;
use wifitcp_wifi::mac::MacAddr;
use wifitcp_wifi::mac::{AckPolicy, AnyMac, DcfParams, Hcf, HcfParams};
use wifitcp_wifi::phy::{PhyTiming, Rate};

wifitcp_core::config_table! {
    /// `kind = "edca"`: the HCF's own keys.
    #[serde(deny_unknown_fields)]
    pub struct EdcaTable {
        /// Immediate BlockAck agreements (10.25) between every pair.
        pub block_ack: bool = true,
        /// The agreements' buffer size (at most 64; 256 under 802.11ax).
        #[key(range = wifitcp_core::schema::r(In(1.0), In(256.0)), unit = "MPDUs")]
        pub block_ack_window: u16 = 64,
        /// MPDUs per A-MPDU (HT, VHT, HE) or per block (a/g).
        #[key(range = wifitcp_core::schema::r(In(1.0), In(256.0)), unit = "MPDUs", default = "mac.block_ack_window")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub max_mpdus: Option<u16> = None,
        /// Octets per A-MPDU: up to 65535 (HT), 1048575 (VHT), 8388607 (HE).
        #[key(range = wifitcp_core::schema::r(In(1600.0), In(8388607.0)), unit = "bytes")]
        pub max_ampdu_bytes: u32 = 65_535,
        /// TXOP limit of every AC (0: one exchange).
        #[key(range = wifitcp_core::schema::r(In(0.0), In(2097120.0)), unit = "us", default = "Table 9-155 per AC")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub txop_limit_us: Option<f64> = None,
        /// Access categories ("bk", "be", "vi", "vo") sending No Ack.
        pub no_ack_acs: Vec<AcName> = Vec::new(),
        /// BlockAckReq after a missed BlockAck (ns-3) instead of retransmitting.
        pub bar_after_missed_ba: bool = false,
        /// MSDUs the MAC keeps in per-receiver queues, taken from the queue discipline whenever it holds fewer (ns-3's WifiMacQueue MaxSize, 500 there by default); 0: one to contend with and an exchange's worth, in arrival order, when it wins access.
        ///
        /// `wifitcp_wifi::mac::hcf` (`HcfParams::mac_queue`): with 0 an AP
        /// that serves several receivers fills each A-MPDU with the MSDUs
        /// of one receiver among the `max_mpdus` it took in arrival order;
        /// with a queue of its own it fills it from that receiver's
        /// backlog, as ns-3 does (docs/validation.md 23.5).
        #[key(range = wifitcp_core::schema::r(In(0.0), In(1e6)), unit = "packets")]
        pub mac_queue_packets: u32 = 0,
        /// AP-granted TXOPs: "off", "all" (round robin) or "activity" (multipoll_* thresholds).
        ///
        /// HCCA-style controlled access (`wifitcp_wifi::mac::hcf`, poll.rs).
        pub poll: PollMode = PollMode::Off,
        /// A polling service period every interval.
        #[key(range = wifitcp_core::schema::r(In(1.0), In(1e6)), unit = "ms")]
        pub poll_interval_ms: f64 = D_POLL_INTERVAL_MS,
        /// Longest service period.
        #[key(range = wifitcp_core::schema::r(Ex(0.0), In(1e6)), unit = "ms", default = "mac.poll_interval_ms")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub poll_max_period_ms: Option<f64> = None,
        /// The TXOP each poll grants.
        ///
        /// Checked to hold one frame exchange only when set: the default
        /// may be shorter than one exchange at the lowest rates, where a
        /// grant then carries one exchange.
        #[key(range = wifitcp_core::schema::r(In(0.0), In(1e9)), unit = "us", default = "3008.0")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub poll_txop_us: Option<f64> = None,
        /// Polled stations send best effort and background only when polled, until two intervals pass without a poll.
        ///
        /// The token of paper 000's polled list: a station the AP polls
        /// holds its best-effort and background traffic for the next poll
        /// instead of contending with EDCA (as HCCA traffic streams are
        /// served only in polled TXOPs, 10.23.3); voice and video keep
        /// contending (the paper's high-priority bypass). Two service
        /// intervals after its last grant without a new poll it contends
        /// again. `false`: polled stations contend between polls as well.
        pub poll_token: bool = false,
        use activity_keys;
        /// 802.11ax OFDMA at the AP: "off", "dl" (downlink MU PPDUs), "ul" or "dl+ul".
        ///
        /// `wifitcp_wifi::mac::hcf` (mu_exchange.rs, ul_exchange.rs): when
        /// the AP wins a TXOP, ns-3's round-robin multi-user scheduler may
        /// send one HE MU PPDU of per-station A-MPDUs on resource units
        /// ("dl"), or a Basic Trigger soliciting one HE TB PPDU of the
        /// stations' A-MPDUs, answered by a multi-STA BlockAck ("ul"); with
        /// "dl+ul" the two alternate under load as in ns-3. Needs
        /// phy.standard = "802.11ax".
        pub ofdma: OfdmaMode = OfdmaMode::Off,
        /// Stations per MU PPDU at most (ns-3 RrMultiUserScheduler's NStations).
        #[key(range = wifitcp_core::schema::r(In(1.0), In(74.0)), unit = "stations")]
        pub mu_n_stations: u32 = 4,
        /// How stations acknowledge a downlink MU PPDU: "mu_bar", "aggregated_mu_bar" or "su".
        pub mu_dl_ack: MuDlAckName = MuDlAckName::MuBar,
        /// The AP asks for channel access this often to trigger uplink transmissions (ns-3's AccessReqInterval); 0: only when it holds downlink data.
        #[key(range = wifitcp_core::schema::r(In(0.0), In(1e9)), unit = "us")]
        pub mu_access_req_interval_us: f64 = 0.0,
        /// How long the AP trusts a station's buffer status report (ns-3's BsrLifetime); older: unknown, and a Trigger asks for 500 octets.
        ///
        /// `wifitcp_wifi::mac::hcf` (ul_exchange.rs): the AP sizes each
        /// HE TB PPDU by the last Queue Size (9.2.4.5.6) the triggered
        /// stations sent; a report older than this counts as unknown, and
        /// the Trigger then asks for ns-3's UlPsduSize (500 octets: room
        /// for a QoS Null or a BlockAckReq, not a 1500-octet MSDU).
        #[key(range = wifitcp_core::schema::r(Ex(0.0), In(1e9)), unit = "us")]
        pub mu_bsr_lifetime_us: f64 = 20000.0,
        /// Stations put their Queue Size in QoS Data frames too (ns-3's SetQueueSize); false: only in QoS Null frames, as ns-3 by default.
        pub mu_queue_size_in_data: bool = false,
        /// A BSRP Trigger before a Basic Trigger when a station to trigger has no fresh buffer status report (ns-3 RrMultiUserScheduler's EnableBsrp analogue).
        ///
        /// `wifitcp_wifi::mac::sched::mu` and `hcf` (ul_exchange.rs),
        /// 802.11ax-2021 26.5.5: the stations answer in one HE TB PPDU of
        /// QoS Null frames carrying their Queue Size, and the AP contends
        /// again at once for the Basic Trigger those reports size. Unlike
        /// ns-3 3.37 a BSRP goes only when a report is missing or older
        /// than mac.mu_bsr_lifetime_us.
        pub mu_enable_bsrp: bool = false,
        /// Rate of the AP's Trigger frames (Basic and BSRP), a non-HT rate of the PHY; 0: the control rate (phy.control_rate_mbps). ns-3 3.37 sends them at its non-unicast mode, 6 Mbit/s.
        #[key(range = wifitcp_core::schema::r(In(0.0), In(54.0)), unit = "Mbit/s")]
        pub mu_trigger_rate_mbps: f64 = 0.0,
        /// MU AIFSN of AC_BE in the AP's MU EDCA Parameter Set (ns-3 HeConfiguration's MuBeAifsn); 0: EDCA disabled for the AC while its MU EDCA timer runs.
        #[key(range = wifitcp_core::schema::r(In(0.0), In(15.0)))]
        pub mu_be_aifsn: u32 = 0,
        /// MU CWmin of AC_BE (ns-3's MuBeCwMin).
        #[key(range = wifitcp_core::schema::r(In(0.0), In(32767.0)))]
        pub mu_be_cw_min: u32 = 15,
        /// MU CWmax of AC_BE (ns-3's MuBeCwMax).
        #[key(range = wifitcp_core::schema::r(In(0.0), In(32767.0)))]
        pub mu_be_cw_max: u32 = 1023,
        /// MU EDCA Timer of AC_BE (ns-3's BeMuEdcaTimer), a multiple of 8 TUs (8192 us) up to 255 of them; 0: MU EDCA off for the AC.
        #[key(range = wifitcp_core::schema::r(In(0.0), In(2088960.0)), unit = "us")]
        pub be_mu_edca_timer_us: f64 = 0.0,
        /// MU AIFSN of AC_BK in the AP's MU EDCA Parameter Set (ns-3 HeConfiguration's MuBkAifsn); 0: EDCA disabled for the AC while its MU EDCA timer runs.
        #[key(range = wifitcp_core::schema::r(In(0.0), In(15.0)))]
        pub mu_bk_aifsn: u32 = 0,
        /// MU CWmin of AC_BK (ns-3's MuBkCwMin).
        #[key(range = wifitcp_core::schema::r(In(0.0), In(32767.0)))]
        pub mu_bk_cw_min: u32 = 15,
        /// MU CWmax of AC_BK (ns-3's MuBkCwMax).
        #[key(range = wifitcp_core::schema::r(In(0.0), In(32767.0)))]
        pub mu_bk_cw_max: u32 = 1023,
        /// MU EDCA Timer of AC_BK (ns-3's BkMuEdcaTimer), a multiple of 8 TUs (8192 us) up to 255 of them; 0: MU EDCA off for the AC.
        #[key(range = wifitcp_core::schema::r(In(0.0), In(2088960.0)), unit = "us")]
        pub bk_mu_edca_timer_us: f64 = 0.0,
        /// MU AIFSN of AC_VI in the AP's MU EDCA Parameter Set (ns-3 HeConfiguration's MuViAifsn); 0: EDCA disabled for the AC while its MU EDCA timer runs.
        #[key(range = wifitcp_core::schema::r(In(0.0), In(15.0)))]
        pub mu_vi_aifsn: u32 = 0,
        /// MU CWmin of AC_VI (ns-3's MuViCwMin).
        #[key(range = wifitcp_core::schema::r(In(0.0), In(32767.0)))]
        pub mu_vi_cw_min: u32 = 15,
        /// MU CWmax of AC_VI (ns-3's MuViCwMax).
        #[key(range = wifitcp_core::schema::r(In(0.0), In(32767.0)))]
        pub mu_vi_cw_max: u32 = 1023,
        /// MU EDCA Timer of AC_VI (ns-3's ViMuEdcaTimer), a multiple of 8 TUs (8192 us) up to 255 of them; 0: MU EDCA off for the AC.
        #[key(range = wifitcp_core::schema::r(In(0.0), In(2088960.0)), unit = "us")]
        pub vi_mu_edca_timer_us: f64 = 0.0,
        /// MU AIFSN of AC_VO in the AP's MU EDCA Parameter Set (ns-3 HeConfiguration's MuVoAifsn); 0: EDCA disabled for the AC while its MU EDCA timer runs.
        #[key(range = wifitcp_core::schema::r(In(0.0), In(15.0)))]
        pub mu_vo_aifsn: u32 = 0,
        /// MU CWmin of AC_VO (ns-3's MuVoCwMin).
        #[key(range = wifitcp_core::schema::r(In(0.0), In(32767.0)))]
        pub mu_vo_cw_min: u32 = 15,
        /// MU CWmax of AC_VO (ns-3's MuVoCwMax).
        #[key(range = wifitcp_core::schema::r(In(0.0), In(32767.0)))]
        pub mu_vo_cw_max: u32 = 1023,
        /// MU EDCA Timer of AC_VO (ns-3's VoMuEdcaTimer), a multiple of 8 TUs (8192 us) up to 255 of them; 0: MU EDCA off for the AC.
        #[key(range = wifitcp_core::schema::r(In(0.0), In(2088960.0)), unit = "us")]
        pub vo_mu_edca_timer_us: f64 = 0.0,
    }
}

/// `mac.ofdma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum OfdmaMode {
    #[serde(rename = "off")]
    Off,
    #[serde(rename = "dl")]
    Dl,
    #[serde(rename = "ul")]
    Ul,
    #[serde(rename = "dl+ul")]
    DlUl,
}
impl wifitcp_core::config::KeyType for OfdmaMode {
    const TY: wifitcp_core::schema::Ty = wifitcp_core::schema::Ty::Str;
}

/// `mac.mu_dl_ack`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MuDlAckName {
    MuBar,
    AggregatedMuBar,
    Su,
}
impl wifitcp_core::config::KeyType for MuDlAckName {
    const TY: wifitcp_core::schema::Ty = wifitcp_core::schema::Ty::Str;
}

use wifitcp_core::schema::B::{Ex, In};

impl MacKind for EdcaTable {
    fn ht(&self) -> bool {
        true
    }
    /// The HCF has no beacon sender yet: its cells send none, whatever
    /// `ap.beacons` says.
    fn beacons(&self) -> bool {
        false
    }
    fn check(&self, s: &Scenario, t: &PhyTiming) -> Result<(), ConfigError> {
        check(self, s, t)
    }
    fn build(&self, m: &Member) -> AnyMac {
        build(self, m)
    }
}

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
fn check(h: &EdcaTable, s: &Scenario, t: &PhyTiming) -> Result<(), ConfigError> {
    let e = |path: &str, reason: String| Err(ConfigError::new(format!("mac.{path}"), reason));
    let m = &s.mac.common;
    if m.backoff_rule != BackoffRule::IdleSlots
        || m.collision_restart != CollisionRestart::AckTimeoutDifs
        || m.idle_access != IdleAccess::Immediate
    {
        return e(
            "backoff_rule",
            "backoff_rule, collision_restart and idle_access are DCF options; the HCF follows 10.22.2".into(),
        );
    }
    super::multipoll::check_thresholds(h.activity())?;
    let interval = h.poll_interval_ms;
    if !(interval.is_finite() && interval >= 1.0) {
        return e("poll_interval_ms", format!("must be at least 1 ms, got {interval}"));
    }
    if let Some(p) = h.poll_max_period_ms {
        if !(p.is_finite() && p > 0.0 && p <= interval) {
            return e("poll_max_period_ms", format!("must be in (0, mac.poll_interval_ms = {interval}], got {p}"));
        }
    }
    if let Some(x) = h.poll_txop_us {
        // A grant starts at the end of the poll: SIFS, then one exchange.
        let one = t.sifs + one_exchange(t);
        if !(x.is_finite() && x <= 1e3 * interval && SimDur::from_micros_f64(x.max(0.0)) >= one) {
            return e(
                "poll_txop_us",
                format!(
                    "must hold one frame exchange ({:.0} us: a 1500-octet datagram, SIFS, ACK) and fit the interval, got {x}",
                    one.as_micros_f64()
                ),
            );
        }
    }
    let win = h.block_ack_window;
    let max_win = t.ht.map_or(64, |v| v.max_ba_window());
    if !(1..=max_win).contains(&win) {
        let why = if max_win > 64 { "" } else { " (256 only under 802.11ax)" };
        return e("block_ack_window", format!("the compressed bitmap covers 1 to {max_win} MPDUs{why}, got {win}"));
    }
    let max = h.max_mpdus.unwrap_or(win);
    if max == 0 {
        return e("max_mpdus", "at least 1".into());
    }
    if max > win {
        return e(
            "max_mpdus",
            format!("{max} MPDUs exceed the BlockAck agreement's buffer (mac.block_ack_window = {win})"),
        );
    }
    let bytes = h.max_ampdu_bytes;
    let top = t.ht.map_or(65_535, |v| v.max_ampdu_bytes());
    if !(1600..=top).contains(&bytes) {
        let name = t.ht.map_or("HT", |v| v.standard_name());
        return e("max_ampdu_bytes", format!("must be 1600-{top} (the largest Maximum A-MPDU Length of {name}), got {bytes}"));
    }
    if let Some(x) = h.txop_limit_us {
        // 10.22.2.9: a nonzero TXOP limit must hold one frame exchange.
        let one = one_exchange(t);
        if !(x.is_finite() && (0.0..=65_535.0 * 32.0).contains(&x)) {
            return e("txop_limit_us", format!("must be 0 to 2097120 us (units of 32 us), got {x}"));
        }
        if x > 0.0 && SimDur::from_micros_f64(x) < one {
            return e(
                "txop_limit_us",
                format!(
                    "{x} us is shorter than one frame exchange ({:.0} us: a 1500-octet datagram, SIFS, ACK); 0 allows one exchange",
                    one.as_micros_f64()
                ),
            );
        }
    }
    check_ofdma(h, t)
}

/// `mac.ofdma` and its keys: the HE PHY, BlockAck, downlink only.
fn check_ofdma(h: &EdcaTable, t: &PhyTiming) -> Result<(), ConfigError> {
    if h.ofdma == OfdmaMode::Off {
        return Ok(());
    }
    let e = |path: &str, reason: &str| Err(ConfigError::new(format!("mac.{path}"), reason.to_string()));
    if !matches!(t.ht, Some(wifitcp_wifi::phy::TxVector::He(_))) {
        return e("ofdma", "OFDMA needs phy.standard = \"802.11ax\"");
    }
    if !h.block_ack {
        return e("ofdma", "MU PPDUs are acknowledged by BlockAck: needs mac.block_ack = true");
    }
    let x = h.mu_access_req_interval_us;
    if !(x.is_finite() && x >= 0.0) {
        return e("mu_access_req_interval_us", "must be 0 or more");
    }
    let x = h.mu_bsr_lifetime_us;
    if !(x.is_finite() && x > 0.0) {
        return e("mu_bsr_lifetime_us", "must be above 0");
    }
    if h.mu_n_stations == 0 {
        return e("mu_n_stations", "at least 1");
    }
    let x = h.mu_trigger_rate_mbps;
    if x != 0.0 && Rate::from_mbps(x).is_none_or(|r| t.standard.modulation_of(r).is_none()) {
        return e("mu_trigger_rate_mbps", "0 (the control rate) or a non-HT rate of the PHY (6, 9, 12, 18, 24, 36, 48, 54)");
    }
    for (ac, p) in AccessCategory::ALL.into_iter().zip(mu_edca_set(h)) {
        let name = ac.as_str();
        let x = p.timer.as_micros_f64();
        let units = x / 8192.0;
        if units.fract() != 0.0 || units > 255.0 {
            return Err(ConfigError::new(
                format!("mac.{name}_mu_edca_timer_us"),
                format!("the MU EDCA Timer counts units of 8 TUs (8192 us), 0 to 255 of them (802.11ax-2021 9.4.2.245), got {x}"),
            ));
        }
        if p.cw_min > p.cw_max {
            return Err(ConfigError::new(
                format!("mac.mu_{name}_cw_min"),
                format!("MU CWmin {} above MU CWmax {}", p.cw_min, p.cw_max),
            ));
        }
    }
    Ok(())
}

/// The AP's MU EDCA Parameter Set (9.4.2.245), indexed by
/// `AccessCategory as usize`.
fn mu_edca_set(h: &EdcaTable) -> [MuEdcaParams; 4] {
    let p = |aifsn, cw_min, cw_max, timer_us: f64| MuEdcaParams {
        aifsn,
        cw_min,
        cw_max,
        timer: SimDur::from_micros_f64(timer_us.max(0.0)),
    };
    [
        p(h.mu_bk_aifsn, h.mu_bk_cw_min, h.mu_bk_cw_max, h.bk_mu_edca_timer_us),
        p(h.mu_be_aifsn, h.mu_be_cw_min, h.mu_be_cw_max, h.be_mu_edca_timer_us),
        p(h.mu_vi_aifsn, h.mu_vi_cw_min, h.mu_vi_cw_max, h.vi_mu_edca_timer_us),
        p(h.mu_vo_aifsn, h.mu_vo_cw_min, h.mu_vo_cw_max, h.vo_mu_edca_timer_us),
    ]
}

/// `mac.ofdma` sends downlink HE MU PPDUs ("dl" or "dl+ul").
pub(crate) fn ofdma_dl(h: &EdcaTable) -> bool {
    matches!(h.ofdma, OfdmaMode::Dl | OfdmaMode::DlUl)
}

impl EdcaTable {
    fn activity(&self) -> [f64; 4] {
        [self.multipoll_pps, self.multipoll_bps, self.multipoll_window_ms, self.multipoll_hysteresis]
    }
}

fn build(h: &EdcaTable, m: &Member) -> AnyMac {
    let mut hcf = Hcf::new(m.addr(), hcf_params(h, m.params, m.is_ap()), m.rng());
    let mode = h.poll;
    if m.is_ap() && !m.elsewhere && mode != PollMode::Off {
        let list = match mode {
            PollMode::Activity => PollList::by_activity(m.ap_of.len(), super::multipoll::activity(h.activity())),
            _ => PollList::round_robin(
                (0..m.ap_of.len()).filter(|&k| k != m.i && m.ap_of[k] == m.i).map(|k| MacAddr(k as u32)).collect(),
            ),
        };
        let interval = h.poll_interval_ms;
        let cfg = PollConfig {
            interval: SimDur::from_micros_f64(1e3 * interval),
            max_period: SimDur::from_micros_f64(1e3 * h.poll_max_period_ms.unwrap_or(interval)),
        };
        let txop = SimDur::from_micros_f64(h.poll_txop_us.unwrap_or(D_POLL_TXOP_US));
        hcf.set_poller(Box::new(ListScheduler::new(list, txop)), cfg);
    }
    if m.is_ap() && !m.elsewhere && h.ofdma != OfdmaMode::Off {
        use wifitcp_wifi::mac::hcf::mu::DlAck;
        let stations = (0..m.ap_of.len()).filter(|&k| k != m.i && m.ap_of[k] == m.i).map(|k| MacAddr(k as u32)).collect();
        hcf.set_mu(MuConfig {
            dl: matches!(h.ofdma, OfdmaMode::Dl | OfdmaMode::DlUl),
            ul: matches!(h.ofdma, OfdmaMode::Ul | OfdmaMode::DlUl),
            max_stations: h.mu_n_stations,
            access_req: SimDur::from_micros_f64(h.mu_access_req_interval_us),
            bsr_lifetime: SimDur::from_micros_f64(h.mu_bsr_lifetime_us),
            queue_size_in_data: h.mu_queue_size_in_data,
            bsrp: h.mu_enable_bsrp,
            trigger_rate: (h.mu_trigger_rate_mbps > 0.0).then(|| Rate::from_mbps(h.mu_trigger_rate_mbps)).flatten(),
            ack: match h.mu_dl_ack {
                MuDlAckName::MuBar => DlAck::MuBar,
                MuDlAckName::AggregatedMuBar => DlAck::AggregatedMuBar,
                MuDlAckName::Su => DlAck::SuFormat,
            },
            stations,
        });
    }
    if !m.is_ap() && h.ofdma != OfdmaMode::Off {
        // The MU EDCA Parameter Set the AP advertises (9.4.2.245; every
        // timer 0, ns-3's default: none, MU EDCA off).
        let set = mu_edca_set(h);
        if set.iter().any(|p| p.timer > SimDur::ZERO) {
            hcf.set_mu_edca(set);
        }
    }
    AnyMac::from(hcf)
}

/// The HCF's parameters from its table and the DCF's: the EDCA set
/// of Table 9-155 from the PHY's aCWmin/aCWmax (or `mac.cw_min/cw_max`),
/// the AP's own set at APs; retry limit `mac.short_retry_limit`.
pub(crate) fn hcf_params(m: &EdcaTable, d: &DcfParams, is_ap: bool) -> HcfParams {
    use wifitcp_wifi::mac::edca::EdcaSet;
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
    for a in &m.no_ack_acs {
        let ac = match a {
            AcName::Bk => AccessCategory::Bk,
            AcName::Be => AccessCategory::Be,
            AcName::Vi => AccessCategory::Vi,
            AcName::Vo => AccessCategory::Vo,
        };
        no_ack[ac as usize] = true;
    }
    let window = m.block_ack_window;
    HcfParams {
        timing: d.timing.clone(),
        edca,
        retry_limit: d.short_retry_limit,
        block_ack: m.block_ack,
        ba_window: window,
        max_mpdus: m.max_mpdus.unwrap_or(window),
        max_ampdu_bytes: m.max_ampdu_bytes,
        no_ack,
        bar_after_missed_ba: m.bar_after_missed_ba,
        rts_threshold: d.rts_threshold,
        // A station learns the service interval from the AP's Schedule
        // element (9.4.2.34); two intervals without a poll end the hold.
        poll_hold: (!is_ap && m.poll != PollMode::Off && m.poll_token)
            .then(|| SimDur::from_micros_f64(2e3 * m.poll_interval_ms)),
        mac_queue: m.mac_queue_packets as usize,
    }
}
