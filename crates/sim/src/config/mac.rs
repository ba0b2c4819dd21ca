//! `[mac]`: the scenario section of the cells' MAC. Its keys are those
//! every kind reads ([`MacCommon`]: the DCF's parameters, the interface
//! queue, the Ack policy), then `kind` and the kind's own keys, one flat
//! table: `kind` selects one of the kinds registered in
//! [`crate::macs::MacKindConfig`], each with its table struct in its file
//! (`crate::macs::<kind>`). Both parts derive their key rows from their
//! declarations; [`keys`] mounts them.
//!
//! Invariants: a `[mac]` that deserialises names a registered kind (an
//! unknown name is serde's "unknown variant" error listing them all); each
//! key is read into exactly one of the two parts (the common keys are never
//! a kind's); a key of another kind is an error naming the kinds that read
//! it (checked on the document by `super::schema` before serde reads it).
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wifitcp_core::config::{ConfigError, ConfigTable, KeyType};
use wifitcp_core::schema::B::In;
use wifitcp_core::schema::{r, Key, Ty, PKTS};
use wifitcp_wifi::phy::PhyTiming;

use super::Scenario;
use crate::macs::MacKindConfig;
use wifitcp_wifi::mac::{AckPolicy, DcfParams};

wifitcp_core::config_table! {
    /// The `[mac]` keys every kind reads: the DCF parameters every kind
    /// starts from. Defaults: aCWmin/aCWmax of the PHY,
    /// dot11ShortRetryLimit 7, dot11LongRetryLimit 4, dot11RTSThreshold
    /// 65535 (RTS/CTS off), interface queue 50 packets.
    #[serde(deny_unknown_fields)]
    pub struct MacCommon {
        /// 2^k - 1.
        #[key(range = r(In(1.0), In(32767.0)), unit = "slots", default = "the PHY's aCWmin")]
        pub cw_min: Option<u32> = None,
        /// 2^k - 1, >= cw_min.
        #[key(range = r(In(1.0), In(32767.0)), unit = "slots", default = "the PHY's aCWmax")]
        pub cw_max: Option<u32> = None,
        /// dot11ShortRetryLimit.
        #[key(range = r(In(1.0), In(255.0)), unit = "attempts")]
        pub short_retry_limit: u32 = 7,
        /// dot11LongRetryLimit.
        #[key(range = r(In(1.0), In(255.0)), unit = "attempts")]
        pub long_retry_limit: u32 = 4,
        /// dot11RTSThreshold (65535: off).
        #[key(range = r(In(0.0), In(65536.0)), unit = "bytes")]
        pub rts_threshold_bytes: u32 = 65535,
        /// Interface queue of every member.
        #[key(range = PKTS, unit = "packets")]
        pub queue_packets: u32 = 50,
        /// "idle-slots" or "busy-slot-counts".
        ///
        /// Backoff countdown rule: "idle-slots" (10.3.4.3) or
        /// "busy-slot-counts" (Bianchi's slotted model / EDCA slot
        /// boundaries).
        pub backoff_rule: BackoffRule = BackoffRule::IdleSlots,
        /// "ack-timeout-difs" or "eifs".
        ///
        /// When a transmitter that got no ACK/CTS resumes: after the ACK
        /// timeout and DIFS, or after EIFS with the bystanders (Bianchi's
        /// T_c assumption).
        pub collision_restart: CollisionRestart = CollisionRestart::AckTimeoutDifs,
        /// "immediate" or "backoff" (ns-2).
        ///
        /// A frame that finds the medium idle (for DIFS, no backoff
        /// pending): "immediate" (10.3.4.2; ns-3) sends it at once,
        /// "backoff" draws a backoff first, as ns-2.35's Mac802_11::send
        /// does (a random deferral of DIFS + rand(CW) slots even on an
        /// idle medium).
        pub idle_access: IdleAccess = IdleAccess::Immediate,
        /// Engine option; no effect on results.
        ///
        /// Keep stations outside the current frame exchange in one group
        /// with a shared slot counter (true) or step every station at every
        /// busy/idle change (false: the reference the tests compare
        /// against).
        pub group_bystanders: bool = true,
        /// "normal" or "noack" (QoS No Ack, no RTS/CTS).
        ///
        /// "normal": acknowledged non-QoS Data, retransmitted up to the
        /// retry limits; "noack": QoS Data with the No Ack policy,
        /// 9.2.4.5.4: no ACK, no retransmission, 26-byte header.
        pub ack_policy: AckPolicyConfig = AckPolicyConfig::Normal,
        /// Members ("ap", "ap1", "sta0", ...) whose data frames all use No Ack, under any mac.kind (no RTS/CTS).
        ///
        /// The others keep `ack_policy` (and the HCF's `no_ack_acs`). Not
        /// serialised when absent.
        #[key(default = "[]")]
        #[serde(skip_serializing_if = "Option::is_none")]
        pub no_ack_nodes: Option<Vec<String>> = None,
    }
}

/// `[mac]`: the keys every kind reads, then the kind (`kind`) with its own
/// keys, written as one flat table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MacConfig {
    pub common: MacCommon,
    pub kind: MacKindConfig,
}

impl super::flat::Kinds for MacKindConfig {
    const TAG: &'static str = "kind";
    fn kinds() -> &'static [&'static str] {
        MacKindConfig::KINDS
    }
    fn reread(kind: &str, table: Value) -> Option<(String, String)> {
        MacKindConfig::visit(kind, super::flat::Reread(table)).flatten()
    }
}

impl<'de> Deserialize<'de> for MacConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (common, kind) = super::flat::deserialize(d, &[])?;
        Ok(MacConfig { common, kind })
    }
}

impl Serialize for MacConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        super::flat::serialize(&self.common, &self.kind, s)
    }
}

/// Where in `[mac]` (the document's table `t`) a deserialisation error
/// lies: (the key's path inside `mac`, the message).
pub(crate) fn locate_error(t: &Value) -> Option<(String, String)> {
    super::flat::locate_error::<MacCommon, MacKindConfig>(t)
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
impl KeyType for PollMode {
    const TY: Ty = Ty::Str;
}
impl KeyType for AcName {
    const TY: Ty = Ty::Str;
}
impl KeyType for AckPolicyConfig {
    const TY: Ty = Ty::Str;
}
impl KeyType for IdleAccess {
    const TY: Ty = Ty::Str;
}
impl KeyType for CollisionRestart {
    const TY: Ty = Ty::Str;
}
impl KeyType for BackoffRule {
    const TY: Ty = Ty::Str;
}

impl Scenario {
    /// The `[mac]` keys every kind reads, and the kind's.
    pub(super) fn validate_mac(&self, t: &PhyTiming) -> Result<(), ConfigError> {
        let cw_min = self.mac.common.cw_min.unwrap_or(t.cw_min_default);
        let cw_max = self.mac.common.cw_max.unwrap_or(t.cw_max_default);
        for (k, v) in [("cw_min", cw_min), ("cw_max", cw_max)] {
            if !(1..=32767).contains(&v) || !(v + 1).is_power_of_two() {
                return Err(ConfigError::new(
                    format!("mac.{k}"),
                    format!("must be 2^k - 1 between 1 and 32767, got {v}"),
                ));
            }
        }
        if cw_min > cw_max {
            return Err(ConfigError::new("mac.cw_min", format!("{cw_min} is larger than mac.cw_max {cw_max}")));
        }
        if self.mac.common.short_retry_limit == 0 || self.mac.common.short_retry_limit > 255 {
            return Err(ConfigError::new(
                "mac.short_retry_limit",
                format!("transmission attempts, must be 1..=255, got {}", self.mac.common.short_retry_limit),
            ));
        }
        if self.mac.common.long_retry_limit == 0 || self.mac.common.long_retry_limit > 255 {
            return Err(ConfigError::new(
                "mac.long_retry_limit",
                format!("transmission attempts, must be 1..=255, got {}", self.mac.common.long_retry_limit),
            ));
        }
        if self.mac.common.ack_policy == AckPolicyConfig::NoAck && self.mac.common.rts_threshold_bytes < 65535 {
            return Err(ConfigError::new(
                "mac.ack_policy",
                format!(
                    "\"noack\" sends no RTS/CTS, but mac.rts_threshold_bytes = {} requests it (65535: off)",
                    self.mac.common.rts_threshold_bytes
                ),
            ));
        }
        self.validate_no_ack_nodes()?;
        self.validate_mac_kind(t)?;
        if self.mac.common.queue_packets == 0 || self.mac.common.queue_packets > 1_000_000 {
            return Err(ConfigError::new(
                "mac.queue_packets",
                format!("must be in 1..=1000000, got {}", self.mac.common.queue_packets),
            ));
        }
        Ok(())
    }

    /// `mac.no_ack_nodes`: WLAN members by name, each once, and no RTS/CTS
    /// (a No Ack frame is not protected by RTS/CTS, 10.3.2.9 sends it
    /// alone, as for `mac.ack_policy = "noack"`).
    fn validate_no_ack_nodes(&self) -> Result<(), ConfigError> {
        let Some(names) = &self.mac.common.no_ack_nodes else { return Ok(()) };
        let members: Vec<String> = (0..self.wlan_members()).map(|i| self.member_name(i)).collect();
        for (k, name) in names.iter().enumerate() {
            if !members.contains(name) {
                return Err(ConfigError::new(
                    format!("mac.no_ack_nodes[{k}]"),
                    format!(
                        "\"{name}\" is not a WLAN member (\"ap\", \"ap1\", ..., \"sta0\" to \"sta{}\")",
                        self.wlan.stations.saturating_sub(1)
                    ),
                ));
            }
            if names[..k].contains(name) {
                return Err(ConfigError::new(format!("mac.no_ack_nodes[{k}]"), format!("\"{name}\" is listed twice")));
            }
        }
        if !names.is_empty() && self.mac.common.rts_threshold_bytes < 65535 {
            return Err(ConfigError::new(
                "mac.no_ack_nodes",
                format!(
                    "No Ack frames are sent without RTS/CTS, but mac.rts_threshold_bytes = {} requests it (65535: off)",
                    self.mac.common.rts_threshold_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Whether WLAN member `i` sends its data frames with the No Ack
    /// policy because `mac.no_ack_nodes` names it.
    pub fn no_ack_member(&self, i: usize) -> bool {
        self.mac.common.no_ack_nodes.as_ref().is_some_and(|v| v.iter().any(|n| *n == self.member_name(i)))
    }

    /// The PHY the kind runs on, and the kind's own checks (a key of
    /// another kind is refused on the document, `super::schema`).
    fn validate_mac_kind(&self, t: &PhyTiming) -> Result<(), ConfigError> {
        let kind = self.mac.kind.get();
        if t.ht.is_some() && !kind.ht() {
            let ht: Vec<String> = MacKindConfig::KINDS
                .iter()
                .filter(|k| crate::macs::named(k).is_some_and(|m| m.get().ht()))
                .map(|k| format!("{k:?}"))
                .collect();
            let name = t.ht.map_or("802.11n", |v| v.standard_name());
            return Err(ConfigError::new(
                "mac.kind",
                format!("{name} sends QoS Data under the HCF; set mac.kind = {}", or_list(&ht)),
            ));
        }
        kind.check(self, t)
    }

    /// Whether the APs send beacons (`ap.beacons`, default on, and the
    /// kind's APs send them: the HCF (`mac.kind = "edca"`) has no beacon
    /// sender yet, its cells send none whatever `ap.beacons` says, as the
    /// key's documentation says).
    pub fn beacons_on(&self) -> bool {
        self.mac.kind.get().beacons() && self.ap.beacons.unwrap_or(true)
    }
}

impl MacConfig {
    /// The DCF's parameters (every kind's stations run a DCF or start from
    /// its parameters), with the PHY's aCWmin/aCWmax unless
    /// `cw_min`/`cw_max` are set.
    pub fn dcf_params(&self, timing: PhyTiming) -> DcfParams {
        let c = &self.common;
        DcfParams {
            cw_min: c.cw_min.unwrap_or(timing.cw_min_default),
            cw_max: c.cw_max.unwrap_or(timing.cw_max_default),
            short_retry_limit: c.short_retry_limit,
            long_retry_limit: c.long_retry_limit,
            rts_threshold: c.rts_threshold_bytes,
            busy_slot_counts: c.backoff_rule == BackoffRule::BusySlotCounts,
            eifs_after_timeout: c.collision_restart == CollisionRestart::Eifs,
            backoff_on_idle_access: c.idle_access == IdleAccess::Backoff,
            ack_policy: match c.ack_policy {
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

/// The key table of `[mac]`, relative to `mac` (mounted by
/// `super::schema`): `kind` (its text lists the registered kinds), the
/// common keys ([`MacCommon`]), then each kind's rows (`when` names the
/// kinds that read a row).
pub fn keys() -> &'static [Key] {
    static ALL: std::sync::OnceLock<Vec<Key>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        let rows = MacKindConfig::keys();
        let mut v = vec![rows[0]];
        v.extend_from_slice(MacCommon::keys());
        v.extend_from_slice(&rows[1..]);
        v
    })
}

/// The kinds that read the `[mac]` key `key` (none for a common key or an
/// unknown one).
pub fn kinds_reading(key: &str) -> &'static [&'static str] {
    MacKindConfig::keys().iter().skip(1).find(|k| k.path == key).map_or(&[], |k| k.when)
}

/// The reason a key of other kinds is refused under `kind`: "only for
/// mac.kind ..." naming the kinds that read it.
pub fn foreign_key_reason(key: &str) -> Option<String> {
    let users = kinds_reading(key);
    if users.is_empty() {
        return None;
    }
    let names: Vec<String> = users.iter().map(|k| format!("{k:?}")).collect();
    Some(format!("only for mac.kind {}", or_list(&names)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_mac(mac: &str) -> Result<Scenario, String> {
        Scenario::from_json(&format!(
            r#"{{"scenario": {{"name": "x"}}, "phy": {{"standard": "802.11b", "data_rate_mbps": 11}},
                "mac": {mac}, "wlan": {{"stations": 1}}}}"#
        ))
        .map_err(|e| e.to_string())
    }

    #[test]
    fn the_kind_is_a_registered_name() {
        let cases = [
            (r#""foo""#, "mac.kind: unknown variant `foo`, expected one of `dcf`, `edca`, `pcf`, `multipoll`"),
            ("3", "mac.kind: invalid type: integer `3`, expected variant identifier"),
            (r#"["dcf"]"#, "mac.kind: invalid type: sequence, expected variant identifier"),
        ];
        for (v, e) in cases {
            assert_eq!(with_mac(&format!(r#"{{"kind": {v}}}"#)).unwrap_err(), e, "{v}");
        }
        for kind in MacKindConfig::KINDS {
            let read = |v: &str| with_mac(&format!(r#"{{"kind": {v}}}"#)).map(|s| s.mac.kind.kind());
            if *kind != "edca" {
                assert_eq!(read(&format!("{kind:?}")), Ok(*kind)); // edca: not on 802.11b
            }
        }
        assert_eq!(with_mac("{}").unwrap().mac.kind.kind(), "dcf");
        let s = with_mac(r#"{"kind": "pcf"}"#).unwrap();
        assert!(s.normalized_json().contains(r#""kind":"pcf""#));
    }

    #[test]
    fn the_table_reads_back_what_it_writes() {
        let s = with_mac(r#"{"kind": "multipoll", "cfp_period": 2, "multipoll_pps": 5, "queue_packets": 20}"#).unwrap();
        let j = serde_json::to_value(&s.mac).unwrap();
        assert_eq!(
            (j["kind"].as_str(), j["cfp_period"].as_u64(), j["queue_packets"].as_u64()),
            (Some("multipoll"), Some(2), Some(20))
        );
        assert!(j.get("block_ack").is_none(), "another kind's key: {j}");
        assert!(j.get("no_ack_nodes").is_none(), "unset: not written");
        let back: MacConfig = serde_json::from_value(j).unwrap();
        assert_eq!(back, s.mac);
    }

    #[test]
    fn a_kinds_keys_under_another_kind_are_errors_naming_who_reads_them() {
        let e = with_mac(r#"{"kind": "pcf", "multipoll_bps": 5}"#).unwrap_err();
        assert_eq!(e, "mac.multipoll_bps: only for mac.kind \"edca\" or \"multipoll\"");
        let e = with_mac(r#"{"kind": "edca", "cfp_period": 2}"#).unwrap_err();
        assert_eq!(e, "mac.cfp_period: only for mac.kind \"pcf\" or \"multipoll\"");
        let e = with_mac(r#"{"block_ack": false}"#).unwrap_err();
        assert_eq!(e, "mac.block_ack: only for mac.kind \"edca\"");
        let e = with_mac(r#"{"kind": "pcf", "nonsense": 1}"#).unwrap_err();
        assert!(e.starts_with("mac.nonsense: unknown key"), "{e}");
        assert!(with_mac(r#"{"kind": "multipoll", "cfp_period": 2, "multipoll_pps": 5}"#).is_ok());
    }

    #[test]
    fn errors_inside_the_table_name_the_key() {
        let e = with_mac(r#"{"kind": "pcf", "cfp_period": "x"}"#).unwrap_err();
        assert_eq!(e, "mac.cfp_period: invalid type: string \"x\", expected u32");
        let e = with_mac(r#"{"ack_policy": "maybe"}"#).unwrap_err();
        assert!(e.starts_with("mac.ack_policy: unknown variant `maybe`"), "{e}");
        let e = with_mac(r#"{"no_ack_nodes": ["ap", 3]}"#).unwrap_err();
        assert!(e.starts_with("mac.no_ack_nodes[1]: invalid type"), "{e}");
    }

    #[test]
    fn the_kind_row_lists_the_registered_kinds() {
        let doc = keys().iter().find(|k| k.path == "kind").unwrap().doc;
        assert_eq!(doc, "dcf, edca, pcf, multipoll.");
        let paths: Vec<&str> = keys().iter().map(|k| k.path).collect();
        assert_eq!(paths.len(), 1 + MacCommon::keys().len() + 43);
        assert_eq!(paths[0], "kind");
        assert_eq!(&paths[1 + MacCommon::keys().len()..][..2], ["block_ack", "block_ack_window"]);
        assert_eq!(kinds_reading("multipoll_pps"), ["edca", "multipoll"]);
        assert!(kinds_reading("queue_packets").is_empty());
    }
}
