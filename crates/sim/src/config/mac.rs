//! `[mac]`: the scenario section of the cell's MAC, its serde shape and its
//! checks.
use serde::{Deserialize, Serialize};
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::schema::{k, r, Key, PKTS};
use wifitcp_wifi::phy::PhyTiming;

use super::{Scenario, D_BEACON_INTERVAL_TU};

/// `[mac]`: DCF parameters. Defaults: aCWmin/aCWmax of the PHY,
/// dot11ShortRetryLimit 7, dot11LongRetryLimit 4, dot11RTSThreshold 65535
/// (RTS/CTS off), interface queue 50 packets.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MacConfig {
    /// Which MAC every member of the cell runs (`MacKind`).
    #[serde(default)]
    pub kind: MacKind,
    #[serde(default)]
    pub cw_min: Option<u32>,
    #[serde(default)]
    pub cw_max: Option<u32>,
    #[serde(default = "d_short")]
    pub short_retry_limit: u32,
    #[serde(default = "d_long")]
    pub long_retry_limit: u32,
    #[serde(default = "d_rts")]
    pub rts_threshold_bytes: u32,
    #[serde(default = "d_queue")]
    pub queue_packets: u32,
    /// Backoff countdown rule: "idle-slots" (10.3.4.3, default) or
    /// "busy-slot-counts" (Bianchi's slotted model / EDCA slot boundaries).
    #[serde(default)]
    pub backoff_rule: BackoffRule,
    /// When a transmitter that got no ACK/CTS resumes: "ack-timeout-difs"
    /// (default) or "eifs" (with the bystanders, Bianchi's T_c assumption).
    #[serde(default)]
    pub collision_restart: CollisionRestart,
    /// A frame that finds the medium idle (for DIFS, no backoff pending):
    /// "immediate" (10.3.4.2, default; ns-3) sends it at once, "backoff"
    /// draws a backoff first, as ns-2.35's Mac802_11::send does (a random
    /// deferral of DIFS + rand(CW) slots even on an idle medium).
    #[serde(default)]
    pub idle_access: IdleAccess,
    /// Engine option, no effect on results: keep stations outside the
    /// current frame exchange in one group with a shared slot counter
    /// (true, default) or step every station at every busy/idle change
    /// (false: the reference the tests compare against).
    #[serde(default = "yes")]
    pub group_bystanders: bool,
    /// Ack policy of every station's data frames: "normal" (default:
    /// acknowledged non-QoS Data, retransmitted up to the retry limits) or
    /// "noack" (QoS Data with the No Ack policy, 9.2.4.5.4: no ACK, no
    /// retransmission, 26-byte header).
    #[serde(default)]
    pub ack_policy: AckPolicyConfig,
    // --- HCF keys (`kind = "edca"`), absent for the DCF (and then not
    // serialised, so results of DCF scenarios keep their form); see
    // `wifitcp_wifi::mac::hcf`. `None`: the default.
    /// Immediate BlockAck agreements between every pair (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_ack: Option<bool>,
    /// The agreements' buffer size, 1-64 (default 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_ack_window: Option<u16>,
    /// MPDUs per A-MPDU (HT) or per block of frames (non-HT), 1 to the
    /// window (default: the window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_mpdus: Option<u16>,
    /// Octets per A-MPDU (HT; default 65535).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ampdu_bytes: Option<u32>,
    /// TXOP limit of every access category in us (default Table 9-155's:
    /// 0 for BE and BK, 3008 for VI, 1504 for VO on OFDM/HT PHYs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub txop_limit_us: Option<f64>,
    /// Access categories whose QoS Data use the No Ack policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_ack_acs: Option<Vec<AcName>>,
    /// An explicit BlockAckReq after a missed BlockAck (default false:
    /// retransmit in the next A-MPDU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bar_after_missed_ba: Option<bool>,
    /// PCF (`kind` "pcf" or "multipoll"): a CFP starts at every
    /// `cfp_period`-th beacon (CFPPeriod, 10.4.1 of 802.11-2016; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cfp_period: Option<u32>,
    /// CFPMaxDuration in TU (default 50: half the default beacon interval;
    /// the standard leaves it to the AP). Shorter than the beacon interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cfp_max_duration_tu: Option<u32>,
    /// Multi-poll (paper 000): packets per second, both directions, for a
    /// station to join the polling list (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipoll_pps: Option<f64>,
    /// Multi-poll: MSDU bytes per second to join the list (default 12500,
    /// 100 kbit/s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipoll_bps: Option<f64>,
    /// Multi-poll: measurement window in ms (default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipoll_window_ms: Option<f64>,
    /// Multi-poll: a member leaves below (1 - hysteresis) x a threshold
    /// (default 0.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multipoll_hysteresis: Option<f64>,
}

impl MacConfig {
    /// The first HCF key set, if any.
    fn hcf_key_set(&self) -> Option<&'static str> {
        [
            ("block_ack", self.block_ack.is_some()),
            ("block_ack_window", self.block_ack_window.is_some()),
            ("max_mpdus", self.max_mpdus.is_some()),
            ("max_ampdu_bytes", self.max_ampdu_bytes.is_some()),
            ("txop_limit_us", self.txop_limit_us.is_some()),
            ("no_ack_acs", self.no_ack_acs.is_some()),
            ("bar_after_missed_ba", self.bar_after_missed_ba.is_some()),
        ]
        .into_iter()
        .find(|(_, set)| *set)
        .map(|(k, _)| k)
    }
}

/// An access category by name (`mac.no_ack_acs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AcName {
    Bk,
    Be,
    Vi,
    Vo,
}

/// Defaults of the PCF and multi-poll keys (see `MacConfig`).
pub const D_CFP_PERIOD: u32 = 1;
pub const D_CFP_MAX_DURATION_TU: u32 = 50;
pub const D_MULTIPOLL_PPS: f64 = 100.0;
pub const D_MULTIPOLL_BPS: f64 = 12_500.0;
pub const D_MULTIPOLL_WINDOW_MS: f64 = 1000.0;
pub const D_MULTIPOLL_HYSTERESIS: f64 = 0.5;

fn yes() -> bool {
    true
}

/// The MAC of the cell (`mac.kind`): each kind is a variant of
/// `wifitcp_wifi::mac::AnyMac`, built in `world/wlan.rs` (`build_bss`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum MacKind {
    /// The distributed coordination function (802.11-2020 10.3), every member.
    #[default]
    Dcf,
    /// The HCF's EDCA (10.22.2) with QoS Data and immediate BlockAck
    /// (10.25), every member (`wifitcp_wifi::mac::hcf`).
    Edca,
    /// PCF (802.11-2016 10.4): the AP polls every station round robin in a
    /// contention-free period after the beacon; the DCF in the rest.
    Pcf,
    /// The multi-poll hybrid of paper 000: PCF whose polling list holds
    /// only the stations above the `multipoll_*` thresholds.
    Multipoll,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum AckPolicyConfig {
    #[default]
    Normal,
    #[serde(rename = "noack")]
    NoAck,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum IdleAccess {
    #[default]
    Immediate,
    Backoff,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CollisionRestart {
    #[default]
    AckTimeoutDifs,
    Eifs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum BackoffRule {
    #[default]
    IdleSlots,
    BusySlotCounts,
}
fn d_short() -> u32 {
    7
}
fn d_long() -> u32 {
    4
}
fn d_rts() -> u32 {
    65535
}
fn d_queue() -> u32 {
    50
}
impl Default for MacConfig {
    fn default() -> Self {
        MacConfig {
            kind: MacKind::Dcf,
            cw_min: None,
            cw_max: None,
            short_retry_limit: 7,
            long_retry_limit: 4,
            rts_threshold_bytes: 65535,
            queue_packets: 50,
            backoff_rule: BackoffRule::IdleSlots,
            collision_restart: CollisionRestart::AckTimeoutDifs,
            idle_access: IdleAccess::Immediate,
            group_bystanders: true,
            ack_policy: AckPolicyConfig::Normal,
            block_ack: None,
            block_ack_window: None,
            max_mpdus: None,
            max_ampdu_bytes: None,
            txop_limit_us: None,
            no_ack_acs: None,
            bar_after_missed_ba: None,
            cfp_period: None,
            cfp_max_duration_tu: None,
            multipoll_pps: None,
            multipoll_bps: None,
            multipoll_window_ms: None,
            multipoll_hysteresis: None,
        }
    }
}

impl Scenario {
    /// The `[mac]` keys every kind reads, then the HCF's.
    pub(super) fn validate_mac(&self, t: &PhyTiming) -> Result<(), String> {
        let cw_min = self.mac.cw_min.unwrap_or(t.cw_min_default);
        let cw_max = self.mac.cw_max.unwrap_or(t.cw_max_default);
        for (k, v) in [("cw_min", cw_min), ("cw_max", cw_max)] {
            if !(1..=32767).contains(&v) || !(v + 1).is_power_of_two() {
                return Err(format!("mac.{k}: must be 2^k - 1 between 1 and 32767, got {v}"));
            }
        }
        if cw_min > cw_max {
            return Err(format!("mac.cw_min: {cw_min} is larger than mac.cw_max {cw_max}"));
        }
        if self.mac.short_retry_limit == 0 || self.mac.short_retry_limit > 255 {
            return Err(format!(
                "mac.short_retry_limit: transmission attempts, must be 1..=255, got {}",
                self.mac.short_retry_limit
            ));
        }
        if self.mac.long_retry_limit == 0 || self.mac.long_retry_limit > 255 {
            return Err(format!(
                "mac.long_retry_limit: transmission attempts, must be 1..=255, got {}",
                self.mac.long_retry_limit
            ));
        }
        if self.mac.ack_policy == AckPolicyConfig::NoAck && self.mac.rts_threshold_bytes < 65535 {
            return Err(format!(
                "mac.ack_policy: \"noack\" sends no RTS/CTS, but mac.rts_threshold_bytes = {} requests it (65535: off)",
                self.mac.rts_threshold_bytes
            ));
        }
        self.validate_hcf(&t)?;
        if self.mac.queue_packets == 0 || self.mac.queue_packets > 1_000_000 {
            return Err(format!("mac.queue_packets: must be in 1..=1000000, got {}", self.mac.queue_packets));
        }
        Ok(())
    }

    /// Whether the APs send beacons (`ap.beacons`, default on).
    pub fn beacons_on(&self) -> bool {
        // The HCF (`mac.kind = "edca"`) has no beacon sender yet: its cells
        // send none whatever `ap.beacons` says (the key's documentation
        // says so).
        self.mac.kind != MacKind::Edca && self.ap.beacons.unwrap_or(true)
    }

    /// Beacons, the CFP and the multi-poll thresholds.
    pub(super) fn validate_beacons_pcf(&self) -> Result<(), String> {
        let bi = self.ap.beacon_interval_tu.unwrap_or(D_BEACON_INTERVAL_TU);
        if bi == 0 || bi > 65535 {
            return Err(format!("ap.beacon_interval_tu: must be in 1..=65535 TU, got {bi}"));
        }
        let pcf = matches!(self.mac.kind, MacKind::Pcf | MacKind::Multipoll);
        if !pcf {
            for (k, set) in [
                ("cfp_period", self.mac.cfp_period.is_some()),
                ("cfp_max_duration_tu", self.mac.cfp_max_duration_tu.is_some()),
            ] {
                if set {
                    return Err(format!("mac.{k}: only for mac.kind \"pcf\" or \"multipoll\""));
                }
            }
        }
        if self.mac.kind != MacKind::Multipoll {
            for (k, set) in [
                ("multipoll_pps", self.mac.multipoll_pps.is_some()),
                ("multipoll_bps", self.mac.multipoll_bps.is_some()),
                ("multipoll_window_ms", self.mac.multipoll_window_ms.is_some()),
                ("multipoll_hysteresis", self.mac.multipoll_hysteresis.is_some()),
            ] {
                if set {
                    return Err(format!("mac.{k}: only for mac.kind \"multipoll\""));
                }
            }
        }
        if !pcf {
            return Ok(());
        }
        if !self.beacons_on() {
            return Err("ap.beacons: a point coordinator (mac.kind \"pcf\" or \"multipoll\") starts each CFP with a beacon; must be true".into());
        }
        let period = self.mac.cfp_period.unwrap_or(D_CFP_PERIOD);
        if period == 0 || period > 255 {
            return Err(format!("mac.cfp_period: must be in 1..=255 beacons, got {period}"));
        }
        let max = self.mac.cfp_max_duration_tu.unwrap_or(D_CFP_MAX_DURATION_TU);
        if max == 0 || max >= bi {
            return Err(format!(
                "mac.cfp_max_duration_tu: must be at least 1 and shorter than the beacon interval (ap.beacon_interval_tu = {bi}), got {max}"
            ));
        }
        for (k, v) in [("multipoll_pps", self.mac.multipoll_pps), ("multipoll_bps", self.mac.multipoll_bps)] {
            if let Some(v) = v {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(format!("mac.{k}: must be >= 0, got {v}"));
                }
            }
        }
        if let Some(w) = self.mac.multipoll_window_ms {
            if !(w.is_finite() && w >= 1.0) {
                return Err(format!("mac.multipoll_window_ms: must be at least 1 ms, got {w}"));
            }
        }
        if let Some(h) = self.mac.multipoll_hysteresis {
            if !(0.0..1.0).contains(&h) {
                return Err(format!("mac.multipoll_hysteresis: must be in [0, 1), got {h}"));
            }
        }
        Ok(())
    }

    /// The HCF's keys, and the PHY/MAC pairs that go together.
    fn validate_hcf(&self, t: &PhyTiming) -> Result<(), String> {
        let m = &self.mac;
        if m.kind != MacKind::Edca {
            if let Some(k) = m.hcf_key_set() {
                return Err(format!("mac.{k}: an HCF key, but mac.kind is \"dcf\" (set mac.kind = \"edca\")"));
            }
            if t.ht.is_some() {
                return Err("mac.kind: 802.11n sends QoS Data under the HCF; set mac.kind = \"edca\"".into());
            }
            return Ok(());
        }
        if self.channel.is_some() && t.ht.is_some() {
            return Err("channel: the channel models judge legacy rates; 802.11n takes wlan.per_* only".into());
        }
        if m.rts_threshold_bytes < 65535 {
            return Err(format!(
                "mac.rts_threshold_bytes: RTS/CTS is not modelled by the HCF (got {}; 65535: off)",
                m.rts_threshold_bytes
            ));
        }
        if m.backoff_rule != BackoffRule::IdleSlots
            || m.collision_restart != CollisionRestart::AckTimeoutDifs
            || m.idle_access != IdleAccess::Immediate
        {
            return Err("mac.backoff_rule: backoff_rule, collision_restart and idle_access are DCF options; the HCF follows 10.22.2".into());
        }
        let h = m;
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
            // 10.22.2.9: a nonzero TXOP limit must hold one frame exchange:
            // the longest MPDU (a 1500-octet IP datagram in QoS Data), SIFS
            // and its ACK.
            let mpdu = wifitcp_wire::wifi_frame::data_mpdu_len(wifitcp_wire::wifi_frame::msdu_len(1500)) + 2;
            let one = t.data_ppdu_time(mpdu) + t.sifs + t.ack_time();
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
}

/// The keys of `[mac]`, relative to `mac` (mounted by `super::schema`).
pub static KEYS: &[Key] = &[
    k(
        "kind",
        Str,
        "\"dcf\"",
        None,
        "",
        "The cell's MAC: \"dcf\", \"edca\" (HCF: EDCA, QoS Data, BlockAck), \"pcf\" (802.11-2016 10.4, round-robin polling) or \"multipoll\" (paper 000).",
    ),
    k("cw_min", Int, "the PHY's aCWmin", r(In(1.0), In(32767.0)), "slots", "2^k - 1."),
    k("cw_max", Int, "the PHY's aCWmax", r(In(1.0), In(32767.0)), "slots", "2^k - 1, >= cw_min."),
    k("short_retry_limit", Int, "7", r(In(1.0), In(255.0)), "attempts", "dot11ShortRetryLimit."),
    k("long_retry_limit", Int, "4", r(In(1.0), In(255.0)), "attempts", "dot11LongRetryLimit."),
    k("rts_threshold_bytes", Int, "65535", r(In(0.0), In(65536.0)), "bytes", "dot11RTSThreshold (65535: off)."),
    k("queue_packets", Int, "50", PKTS, "packets", "Interface queue of every member."),
    k("backoff_rule", Str, "\"idle-slots\"", None, "", "\"idle-slots\" or \"busy-slot-counts\"."),
    k("collision_restart", Str, "\"ack-timeout-difs\"", None, "", "\"ack-timeout-difs\" or \"eifs\"."),
    k("idle_access", Str, "\"immediate\"", None, "", "\"immediate\" or \"backoff\" (ns-2)."),
    k("group_bystanders", Bool, "true", None, "", "Engine option; no effect on results."),
    k("ack_policy", Str, "\"normal\"", None, "", "\"normal\" or \"noack\" (QoS No Ack, no RTS/CTS)."),
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
    k(
        "no_ack_acs",
        Strs,
        "[]",
        None,
        "",
        "edca: access categories (\"bk\", \"be\", \"vi\", \"vo\") sending No Ack.",
    ),
    k(
        "bar_after_missed_ba",
        Bool,
        "false",
        None,
        "",
        "edca: BlockAckReq after a missed BlockAck (ns-3) instead of retransmitting.",
    ),
    k(
        "cfp_period",
        Int,
        "1",
        r(In(1.0), In(255.0)),
        "beacons",
        "pcf/multipoll: CFPPeriod, a CFP every k-th beacon.",
    ),
    k(
        "cfp_max_duration_tu",
        Int,
        "50",
        r(In(1.0), In(65535.0)),
        "TU",
        "pcf/multipoll: CFPMaxDuration from TBTT (1 TU = 1024 us); < ap.beacon_interval_tu.",
    ),
    k(
        "multipoll_pps",
        Float,
        "100.0",
        r(In(0.0), In(1e9)),
        "packets/s",
        "multipoll: rate to join the polling list.",
    ),
    k(
        "multipoll_bps",
        Float,
        "12500.0",
        r(In(0.0), In(1e12)),
        "bytes/s",
        "multipoll: MSDU bytes/s to join the list.",
    ),
    k("multipoll_window_ms", Float, "1000.0", r(In(1.0), In(1e6)), "ms", "multipoll: activity measurement window."),
    k(
        "multipoll_hysteresis",
        Float,
        "0.5",
        r(In(0.0), Ex(1.0)),
        "",
        "multipoll: a member leaves below (1 - h) x a threshold.",
    ),
];
