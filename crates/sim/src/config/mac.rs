//! `[mac]`: the scenario section of the cells' MAC: its serde shape, the
//! checks of the keys every kind reads, and the step to the DCF's
//! parameters. `mac.kind` names one of the kinds registered in
//! [`crate::macs::MACS`] ([`MacKind`]); a kind's own keys are fields of
//! [`MacConfig`] (one flat table, unknown keys are errors) whose rows,
//! checks and use are in the kind's file (`crate::macs::<kind>`). The key
//! table is [`keys`] (the common [`KEYS`], then each kind's rows).
//!
//! Invariant: a `mac.kind` that deserialises names a registered kind (an
//! unknown name is serde's "unknown variant" error listing them all).
use serde::{Deserialize, Serialize};
use wifitcp_core::schema::Ty::*;
use wifitcp_core::schema::B::In;
use wifitcp_core::schema::{k, r, Key, PKTS};
use wifitcp_wifi::phy::PhyTiming;

use super::Scenario;
use crate::macs::{MacDescriptor, MACS};
use wifitcp_wifi::mac::{AckPolicy, DcfParams};

/// `[mac]`: the kind of MAC and the DCF parameters every kind starts from,
/// then the kinds' own keys. Defaults: aCWmin/aCWmax of the PHY,
/// dot11ShortRetryLimit 7, dot11LongRetryLimit 4, dot11RTSThreshold 65535
/// (RTS/CTS off), interface queue 50 packets.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MacConfig {
    /// Which MAC every member of the cell runs (a kind of `macs::MACS`).
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
    // --- The kinds' own keys (rows, checks and use in
    // `crate::macs::<kind>`; each listed in `kind_keys_set`), absent unless
    // set (and then not serialised, so results of scenarios without them
    // keep their form). `None`: the default. First the HCF's
    // (`kind = "edca"`, `wifitcp_wifi::mac::hcf`).
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
    /// WLAN members ("ap", "ap1", ..., "sta0", ...) whose data frames all
    /// use the No Ack policy, under any `kind` (`no_ack_member`); the others
    /// keep `ack_policy` / `no_ack_acs`. Not serialised when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_ack_nodes: Option<Vec<String>>,
    /// An explicit BlockAckReq after a missed BlockAck (default false:
    /// retransmit in the next A-MPDU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bar_after_missed_ba: Option<bool>,
    /// HCF (`kind` "edca"): the AP grants polled TXOPs (HCCA-style
    /// controlled access, `wifitcp_wifi::mac::hcf` poll.rs): "off"
    /// (default), "all" (every associated station, round robin) or
    /// "activity" (the stations above the `multipoll_*` thresholds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll: Option<PollMode>,
    /// A service period starts every `poll_interval_ms` (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_interval_ms: Option<f64>,
    /// Most time a service period takes (default: the interval).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_max_period_ms: Option<f64>,
    /// The TXOP each grant carries, us (default 3008).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poll_txop_us: Option<f64>,
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

/// Whether each key of a kind's own rows (`MacDescriptor::keys`) is set,
/// in the order of `MACS` and their rows.
pub fn kind_keys_set(m: &MacConfig) -> [(&'static str, bool); 17] {
    [
        ("block_ack", m.block_ack.is_some()),
        ("block_ack_window", m.block_ack_window.is_some()),
        ("max_mpdus", m.max_mpdus.is_some()),
        ("max_ampdu_bytes", m.max_ampdu_bytes.is_some()),
        ("txop_limit_us", m.txop_limit_us.is_some()),
        ("no_ack_acs", m.no_ack_acs.is_some()),
        ("bar_after_missed_ba", m.bar_after_missed_ba.is_some()),
        ("poll", m.poll.is_some()),
        ("poll_interval_ms", m.poll_interval_ms.is_some()),
        ("poll_max_period_ms", m.poll_max_period_ms.is_some()),
        ("poll_txop_us", m.poll_txop_us.is_some()),
        ("cfp_period", m.cfp_period.is_some()),
        ("cfp_max_duration_tu", m.cfp_max_duration_tu.is_some()),
        ("multipoll_pps", m.multipoll_pps.is_some()),
        ("multipoll_bps", m.multipoll_bps.is_some()),
        ("multipoll_window_ms", m.multipoll_window_ms.is_some()),
        ("multipoll_hysteresis", m.multipoll_hysteresis.is_some()),
    ]
}
/// Whom an HCF AP polls (`mac.poll`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PollMode {
    Off,
    All,
    Activity,
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

fn yes() -> bool {
    true
}

/// The MAC of the cells (`mac.kind`): a kind registered in
/// [`crate::macs::MACS`], written as its name.
#[derive(Clone, Copy)]
pub struct MacKind(&'static MacDescriptor);

impl MacKind {
    /// The registered kind called `name`.
    pub fn named(name: &str) -> Option<MacKind> {
        crate::macs::named(name).map(MacKind)
    }
    /// A kind from its descriptor, registered in `MACS` or not (code that
    /// builds a scenario itself may run a kind the table does not list).
    pub const fn new(mac: &'static MacDescriptor) -> MacKind {
        MacKind(mac)
    }
    /// The scenario's spelling.
    pub fn name(self) -> &'static str {
        self.0.name
    }
    /// The kind's descriptor.
    pub fn mac(self) -> &'static MacDescriptor {
        self.0
    }
}

impl Default for MacKind {
    fn default() -> Self {
        MacKind(&MACS[0])
    }
}

impl PartialEq for MacKind {
    fn eq(&self, other: &Self) -> bool {
        self.0.name == other.0.name
    }
}
impl Eq for MacKind {}

impl std::fmt::Debug for MacKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MacKind({:?})", self.0.name)
    }
}

impl Serialize for MacKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name)
    }
}

/// The registered names, in registration order (for serde's message).
fn names() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| MACS.iter().map(|m| m.name).collect())
}

/// Read as serde reads a unit-only enum (a name, or in JSON `{"name":
/// null}`), so that every error reads as it did when the kinds were one.
impl<'de> Deserialize<'de> for MacKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{EnumAccess, Error, VariantAccess};
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = MacKind;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a MAC kind")
            }
            fn visit_enum<A: EnumAccess<'de>>(self, a: A) -> Result<MacKind, A::Error> {
                let (name, rest): (String, _) = a.variant()?;
                let kind = MacKind::named(&name).ok_or_else(|| A::Error::unknown_variant(&name, names()))?;
                rest.unit_variant()?;
                Ok(kind)
            }
        }
        d.deserialize_enum("MacKind", names(), V)
    }
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
            kind: MacKind::default(),
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
            no_ack_nodes: None,
            bar_after_missed_ba: None,
            cfp_period: None,
            cfp_max_duration_tu: None,
            multipoll_pps: None,
            multipoll_bps: None,
            multipoll_window_ms: None,
            multipoll_hysteresis: None,
            poll: None,
            poll_interval_ms: None,
            poll_max_period_ms: None,
            poll_txop_us: None,
        }
    }
}

impl Scenario {
    /// The `[mac]` keys every kind reads, and the kind's.
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
        self.validate_no_ack_nodes()?;
        self.validate_mac_kind(t)?;
        if self.mac.queue_packets == 0 || self.mac.queue_packets > 1_000_000 {
            return Err(format!("mac.queue_packets: must be in 1..=1000000, got {}", self.mac.queue_packets));
        }
        Ok(())
    }

    /// `mac.no_ack_nodes`: WLAN members by name, each once, and no RTS/CTS
    /// (a No Ack frame is not protected by RTS/CTS, 10.3.2.9 sends it
    /// alone, as for `mac.ack_policy = "noack"`).
    fn validate_no_ack_nodes(&self) -> Result<(), String> {
        let Some(names) = &self.mac.no_ack_nodes else { return Ok(()) };
        let members: Vec<String> = (0..self.wlan_members()).map(|i| self.member_name(i)).collect();
        for (k, name) in names.iter().enumerate() {
            if !members.contains(name) {
                return Err(format!(
                    "mac.no_ack_nodes[{k}]: \"{name}\" is not a WLAN member (\"ap\", \"ap1\", ..., \"sta0\" to \"sta{}\")",
                    self.wlan.stations.saturating_sub(1)
                ));
            }
            if names[..k].contains(name) {
                return Err(format!("mac.no_ack_nodes[{k}]: \"{name}\" is listed twice"));
            }
        }
        if !names.is_empty() && self.mac.rts_threshold_bytes < 65535 {
            return Err(format!(
                "mac.no_ack_nodes: No Ack frames are sent without RTS/CTS, but mac.rts_threshold_bytes = {} requests it (65535: off)",
                self.mac.rts_threshold_bytes
            ));
        }
        Ok(())
    }

    /// Whether WLAN member `i` sends its data frames with the No Ack
    /// policy because `mac.no_ack_nodes` names it.
    pub fn no_ack_member(&self, i: usize) -> bool {
        self.mac.no_ack_nodes.as_ref().is_some_and(|v| v.iter().any(|n| *n == self.member_name(i)))
    }

    /// No key of another kind, the PHY the kind runs on, and the kind's
    /// own checks.
    fn validate_mac_kind(&self, t: &PhyTiming) -> Result<(), String> {
        let kind = self.mac.kind.mac();
        for (key, set) in kind_keys_set(&self.mac) {
            let reads = |m: &MacDescriptor| m.keys.iter().any(|k| k.path == key) || m.reads.contains(&key);
            if !set || reads(kind) {
                continue;
            }
            let owner = MACS.iter().find(|m| m.keys.iter().any(|k| k.path == key)).expect("a kind's row");
            if let Some(why) = owner.foreign_key {
                return Err(format!("mac.{key}: {why}"));
            }
            let users: Vec<String> = MACS.iter().filter(|m| reads(m)).map(|m| format!("{:?}", m.name)).collect();
            return Err(format!("mac.{key}: only for mac.kind {}", or_list(&users)));
        }
        if t.ht.is_some() && !kind.ht {
            let ht: Vec<String> = MACS.iter().filter(|m| m.ht).map(|m| format!("{:?}", m.name)).collect();
            return Err(format!("mac.kind: 802.11n sends QoS Data under the HCF; set mac.kind = {}", or_list(&ht)));
        }
        (kind.check)(self, t)
    }

    /// Whether the APs send beacons (`ap.beacons`, default on, and the
    /// kind's APs send them: the HCF (`mac.kind = "edca"`) has no beacon
    /// sender yet, its cells send none whatever `ap.beacons` says, as the
    /// key's documentation says).
    pub fn beacons_on(&self) -> bool {
        self.mac.kind.mac().beacons && self.ap.beacons.unwrap_or(true)
    }
}

impl MacConfig {
    /// The DCF's parameters (every kind's stations run a DCF or start from
    /// its parameters), with the PHY's aCWmin/aCWmax unless
    /// `cw_min`/`cw_max` are set.
    pub fn dcf_params(&self, timing: PhyTiming) -> DcfParams {
        DcfParams {
            cw_min: self.cw_min.unwrap_or(timing.cw_min_default),
            cw_max: self.cw_max.unwrap_or(timing.cw_max_default),
            short_retry_limit: self.short_retry_limit,
            long_retry_limit: self.long_retry_limit,
            rts_threshold: self.rts_threshold_bytes,
            busy_slot_counts: self.backoff_rule == BackoffRule::BusySlotCounts,
            eifs_after_timeout: self.collision_restart == CollisionRestart::Eifs,
            backoff_on_idle_access: self.idle_access == IdleAccess::Backoff,
            ack_policy: match self.ack_policy {
                AckPolicyConfig::Normal => AckPolicy::Normal,
                AckPolicyConfig::NoAck => AckPolicy::NoAck,
            },
            timing,
        }
    }
}

/// `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
fn or_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => items.join(""),
    }
}

/// The keys every kind reads, relative to `mac` (the `kind` row's text is
/// completed from the registry by [`keys`]).
pub static KEYS: &[Key] = &[
    k("kind", Str, "\"dcf\"", None, "", "The cell's MAC: a kind of `crate::macs::MACS`."),
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
    k(
        "no_ack_nodes",
        Strs,
        "[]",
        None,
        "",
        "Members (\"ap\", \"ap1\", \"sta0\", ...) whose data frames all use No Ack, under any mac.kind (no RTS/CTS).",
    ),
];

/// The key table of `[mac]`, relative to `mac` (mounted by
/// `super::schema`): [`KEYS`], then each registered kind's own rows.
pub fn keys() -> &'static [Key] {
    static ALL: std::sync::OnceLock<Vec<Key>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let kinds: Vec<String> = MACS
            .iter()
            .map(|m| if m.about.is_empty() { format!("{:?}", m.name) } else { format!("{:?} ({})", m.name, m.about) })
            .collect();
        let doc: &'static str = Box::leak(format!("The cell's MAC: {}.", or_list(&kinds)).into_boxed_str());
        let mut v: Vec<Key> = KEYS.iter().map(|k| if k.path == "kind" { Key { doc, ..*k } } else { *k }).collect();
        for m in MACS {
            v.extend_from_slice(m.keys);
        }
        v
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_mac(mac: &str) -> Result<Scenario, String> {
        Scenario::from_json(&format!(
            r#"{{"scenario": {{"name": "x"}}, "phy": {{"standard": "802.11b", "data_rate_mbps": 11}},
                "mac": {mac}, "wlan": {{"stations": 1}}}}"#
        ))
    }

    #[test]
    fn kinds_read_as_the_unit_enum_they_were() {
        // (value of mac.kind, what the derived enum of the four kinds gave)
        let cases = [
            (r#""foo""#, "mac.kind: unknown variant `foo`, expected one of `dcf`, `edca`, `pcf`, `multipoll`"),
            ("3", "mac.kind: expected value"),
            (r#"{"dcf": 1}"#, "mac.kind.dcf: invalid type: integer `1`, expected unit"),
            (r#"["dcf"]"#, "mac.kind: expected value"),
            ("true", "mac.kind: expected value"),
            (r#"{"foo": null}"#, "mac.kind: unknown variant `foo`, expected one of `dcf`, `edca`, `pcf`, `multipoll`"),
            (r#"{"dcf": null, "x": 1}"#, "mac.kind: expected value"),
            ("null", "mac.kind: expected value"),
        ];
        for (v, e) in cases {
            assert_eq!(with_mac(&format!(r#"{{"kind": {v}}}"#)).unwrap_err(), e, "{v}");
        }
        for m in MACS {
            let kind = |v: &str| with_mac(&format!(r#"{{"kind": {v}}}"#)).map(|s| s.mac.kind.name());
            if m.name == "edca" {
                continue; // 802.11b
            }
            assert_eq!(kind(&format!("{:?}", m.name)), Ok(m.name));
            assert_eq!(kind(&format!(r#"{{"{}": null}}"#, m.name)), Ok(m.name));
        }
        assert_eq!(with_mac("{}").unwrap().mac.kind, MacKind::named("dcf").unwrap());
        let s = with_mac(r#"{"kind": "pcf"}"#).unwrap();
        assert!(s.normalized_json().contains(r#""kind":"pcf""#));
    }

    #[test]
    fn a_kinds_keys_under_another_kind_are_errors_naming_who_reads_them() {
        let e = with_mac(r#"{"kind": "pcf", "multipoll_bps": 5}"#).unwrap_err();
        assert_eq!(e, "mac.multipoll_bps: only for mac.kind \"edca\" or \"multipoll\"");
        let e = with_mac(r#"{"kind": "edca", "cfp_period": 2}"#).unwrap_err();
        assert_eq!(e, "mac.cfp_period: only for mac.kind \"pcf\" or \"multipoll\"");
        let e = with_mac(r#"{"block_ack": false}"#).unwrap_err();
        assert_eq!(e, "mac.block_ack: an HCF key, but mac.kind is \"dcf\" (set mac.kind = \"edca\")");
        assert!(with_mac(r#"{"kind": "multipoll", "cfp_period": 2, "multipoll_pps": 5}"#).is_ok());
    }

    #[test]
    fn the_kind_row_lists_the_registered_kinds() {
        let doc = keys().iter().find(|k| k.path == "kind").unwrap().doc;
        assert_eq!(
            doc,
            "The cell's MAC: \"dcf\", \"edca\" (HCF: EDCA, QoS Data, BlockAck), \"pcf\" (802.11-2016 10.4, \
             round-robin polling) or \"multipoll\" (paper 000)."
        );
        let paths: Vec<&str> = keys().iter().map(|k| k.path).collect();
        assert_eq!(paths.len(), KEYS.len() + 17);
        assert_eq!(&paths[KEYS.len()..KEYS.len() + 2], ["block_ack", "block_ack_window"]);
    }
}
