//! Airtime and interframe spaces.
//!
//! Sources (IEEE 802.11-2020):
//! - DSSS/HR-DSSS: PLCP long preamble 144 us + header 48 us at 1 Mbit/s;
//!   short preamble 72 us + header 24 us at 2 Mbit/s (16.2.2); TXTIME =
//!   preamble + header + ceil(8 L / rate) us (16.3.4); slot 20 us, SIFS 10 us,
//!   aCWmin 31, aCWmax 1023 (Table 16-4); aRxPHYStartDelay 192 / 96 us.
//! - OFDM (clause 17, 20 MHz): TXTIME = 16 us preamble + 4 us SIGNAL +
//!   4 us x ceil((16 + 8 L + 6) / N_DBPS) (17.4.3, eq. 17-29); slot 9 us,
//!   SIFS 16 us, aCWmin 15, aCWmax 1023, aRxPHYStartDelay 25 us (Table 17-21).
//! - ERP (clause 18): ERP-OFDM frames as OFDM plus a 6 us signal extension
//!   (18.3.2.4); SIFS 10 us; slot 9 us (short) or 20 us (long) (18.4.4);
//!   aCWmin 15 when the BSS is ERP-only (we assume so; 31 otherwise).
//!   aRxPHYStartDelay: 24 us is used for ERP-OFDM (deviation noted: the
//!   clause-18 table quotes the clause-17 value adjusted for the 20 us
//!   preamble+SIGNAL; we take 24 us).
//! - DIFS = SIFS + 2 x slot (10.3.2.3.5); EIFS = SIFS + AckTxTime + DIFS
//!   where AckTxTime is an Ack at the lowest mandatory PHY rate (10.3.2.3.7),
//!   with the long preamble for DSSS rates.
//! - ACKTimeout = CTSTimeout = SIFS + slot + aRxPHYStartDelay (10.3.2.9,
//!   10.3.2.7).
//! - Control-response rate: the highest rate of the BSSBasicRateSet that is
//!   at most the eliciting frame's rate and of the same modulation class; if
//!   none, the highest mandatory rate of that class at most that rate
//!   (10.6.6.5.2). Default BSSBasicRateSet (`PhyStandard::default_basic_rates`):
//!   802.11b {1, 2} Mbit/s, as 802.11b APs and ns-3 use it (so ACKs of
//!   11 Mbit/s data go at 2 Mbit/s); 802.11a and 802.11g the PHY's
//!   mandatory rates. `basic_rates_mbps` sets another.
//! - 802.11n (HT, clause 19): data frames are HT-mixed PPDUs of the MCS
//!   `ht_mcs` (`phy::ht`); the band decides the legacy PHY of everything
//!   else: 5 GHz as 802.11a (slot 9 us, SIFS 16 us, aRxPHYStartDelay 25
//!   us, OFDM control frames), 2.4 GHz as 802.11g (ERP: SIFS 10 us, slot
//!   9 or 20 us, ERP-OFDM control frames with the 6 us signal extension;
//!   19.4.4 takes these values from the band's legacy PHY). Control
//!   responses to an HT PPDU go at the highest basic rate not above the
//!   MCS's non-HT reference rate (10.6.6.5.2), e.g. 24 Mbit/s for MCS 7
//!   with the default basic rates {6, 12, 24}.
//! - 802.11ac (VHT, clause 21) and 802.11ax (HE SU, 802.11ax-2021 clause
//!   27): data frames are VHT SU or HE SU / HE ER SU PPDUs of `mcs` with
//!   `spatial_streams` streams (`phy::vht`, `phy::he`); everything else as
//!   802.11n at 5 GHz: 802.11a's interframe spaces and OFDM control
//!   frames (21.4.4 and 27.4.4 take them from clause 17; at 6 GHz too, where
//!   non-HT frames are the same OFDM PPDUs), the response rate by the non-HT
//!   reference rate of the MCS (256- and 1024-QAM: 54 Mbit/s).
use super::he::{HeBand, HeFormat, HeGi, HeTxVector};
use super::ht::{Band, GuardInterval, HtMcs, HtTxVector, HtWidth};
use super::ppdu::{ChannelWidth, TxVector};
use super::rates::{Modulation, PhyStandard, Rate};
use super::vht::VhtTxVector;
use serde::{Deserialize, Serialize};
use wifitcp_core::ConfigError;
use wifitcp_core::SimDur;
use wifitcp_wire::wifi_frame::{ACK_LEN, CTS_LEN, RTS_LEN};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Preamble {
    #[default]
    Long,
    Short,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SlotKind {
    #[default]
    Short,
    Long,
}

/// How frame airtime is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TimingModel {
    /// The standard's TXTIME equations (OFDM symbol rounding etc.).
    #[default]
    Standard,
    /// preamble + PLCP header + 8 L / rate, no symbol rounding: the model of
    /// ns-2's Mac/802_11, used by papers simulated in ns-2 (e.g. the
    /// Compound-TCP paper's Table II).
    Linear,
}

/// Timing overrides, all in microseconds. Any value set here replaces the
/// standard's value everywhere it is used.
#[derive(Clone, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhyOverrides {
    pub slot_us: Option<f64>,
    pub sifs_us: Option<f64>,
    pub difs_us: Option<f64>,
    pub eifs_us: Option<f64>,
    /// PLCP preamble duration.
    pub preamble_us: Option<f64>,
    /// PLCP header (SIGNAL) duration.
    pub plcp_header_us: Option<f64>,
    pub rx_phy_start_delay_us: Option<f64>,
}

/// Guard interval of HT and VHT data symbols ("long", "short") or of HE
/// data symbols ("0.8us", "1.6us", "3.2us") (`phy.guard_interval`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum GiConfig {
    /// 800 ns.
    #[default]
    Long,
    /// 400 ns.
    Short,
    /// HE: 0.8 us.
    #[serde(rename = "0.8us")]
    He800,
    /// HE: 1.6 us.
    #[serde(rename = "1.6us")]
    He1600,
    /// HE: 3.2 us.
    #[serde(rename = "3.2us")]
    He3200,
}

/// The HE PPDU format of the data frames (`phy.he_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum HeFormatConfig {
    /// HE SU PPDU.
    #[default]
    Su,
    /// HE extended range SU PPDU.
    ErSu,
}

/// The `[phy]` table of a scenario.

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhyConfig {
    pub standard: PhyStandard,
    /// Data rate of 802.11a/b/g (required there); 802.11n takes its rate
    /// from `ht_mcs` and must not set it (0: not set, and then not
    /// serialised, so that a normalised 802.11n scenario reads back).
    #[serde(default, skip_serializing_if = "is_unset")]
    pub data_rate_mbps: f64,
    /// 802.11n: the HT MCS (0-31) of the data frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ht_mcs: Option<u8>,
    /// 802.11ac and 802.11ax: the VHT (0-9) or HE (0-11) MCS of the data
    /// frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcs: Option<u8>,
    /// 802.11n: channel width, 20 or 40 MHz; 802.11ac and 802.11ax: 20,
    /// 40, 80 or 160 MHz (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel_width_mhz: Option<u32>,
    /// 802.11n and 802.11ac: guard interval, "long" (800 ns, default) or
    /// "short" (400 ns); 802.11ax: "0.8us" (default), "1.6us" or "3.2us".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard_interval: Option<GiConfig>,
    /// 802.11n: band, 2.4 or 5 GHz; 802.11ac: 5; 802.11ax: 5 or 6 (default 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band_ghz: Option<f64>,
    /// 802.11n: spatial streams the stations support (1-4; default: what
    /// the MCS needs). An MCS needing more is an error. 802.11ac and
    /// 802.11ax: the streams of the data frames (1-4, default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spatial_streams: Option<u32>,
    /// 802.11ax: the PPDU format of the data frames, "su" (default) or
    /// "er_su" (HE extended range SU: 20 MHz, 1 stream, MCS 0-2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub he_format: Option<HeFormatConfig>,
    /// 802.11ax: the packet extension after the data field, 0, 4, 8, 12 or
    /// 16 us (27.3.13; default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_extension_us: Option<u8>,
    /// Rate of control responses (ACK, CTS) and RTS; default by the rule above.
    #[serde(default)]
    pub control_rate_mbps: Option<f64>,
    /// BSSBasicRateSet; default: the PHY's mandatory rates.
    #[serde(default)]
    pub basic_rates_mbps: Option<Vec<f64>>,
    /// DSSS preamble (802.11b/g DSSS rates).
    #[serde(default)]
    pub preamble: Preamble,
    /// 802.11g slot time.
    #[serde(default)]
    pub slot: SlotKind,
    #[serde(default)]
    pub timing_model: TimingModel,
    #[serde(default)]
    pub slot_us: Option<f64>,
    #[serde(default)]
    pub sifs_us: Option<f64>,
    #[serde(default)]
    pub difs_us: Option<f64>,
    #[serde(default)]
    pub eifs_us: Option<f64>,
    #[serde(default)]
    pub preamble_us: Option<f64>,
    #[serde(default)]
    pub plcp_header_us: Option<f64>,
    #[serde(default)]
    pub rx_phy_start_delay_us: Option<f64>,
    /// dot11CoverageClass (802.11-2020 9.4.2.8 Country element, Table
    /// 9-85): aAirPropagationTime grows by 3 us per class, and aSlotTime
    /// with it (so DIFS, EIFS and ACKTimeout = SIFS + slot +
    /// aRxPHYStartDelay, 10.3.2.9, too), for links longer than the 150 m
    /// class 0 covers (its aAirPropagationTime, 1 us, is a round trip; each
    /// class adds 450 m); 0-31, not serialised when unset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage_class: Option<u32>,
    /// Rate adaptation (crates/wifi/src/rate); not serialised when fixed,
    /// so results of scenarios without it are unchanged.
    #[serde(default, skip_serializing_if = "crate::rate::RateControlKind::is_fixed")]
    pub rate_control: crate::rate::RateControlKind,
}

impl PhyConfig {
    /// A configuration with standard timing.
    pub fn new(standard: PhyStandard, data_rate_mbps: f64) -> PhyConfig {
        PhyConfig {
            standard,
            data_rate_mbps,
            ht_mcs: None,
            mcs: None,
            channel_width_mhz: None,
            guard_interval: None,
            band_ghz: None,
            spatial_streams: None,
            he_format: None,
            packet_extension_us: None,
            control_rate_mbps: None,
            basic_rates_mbps: None,
            preamble: Preamble::Long,
            slot: SlotKind::Short,
            timing_model: TimingModel::Standard,
            slot_us: None,
            sifs_us: None,
            difs_us: None,
            eifs_us: None,
            preamble_us: None,
            plcp_header_us: None,
            rx_phy_start_delay_us: None,
            coverage_class: None,
            rate_control: crate::rate::RateControlKind::Fixed,
        }
    }
    pub fn overrides(&self) -> PhyOverrides {
        PhyOverrides {
            slot_us: self.slot_us,
            sifs_us: self.sifs_us,
            difs_us: self.difs_us,
            eifs_us: self.eifs_us,
            preamble_us: self.preamble_us,
            plcp_header_us: self.plcp_header_us,
            rx_phy_start_delay_us: self.rx_phy_start_delay_us,
        }
    }
    pub fn set_overrides(&mut self, o: PhyOverrides) {
        self.slot_us = o.slot_us;
        self.sifs_us = o.sifs_us;
        self.difs_us = o.difs_us;
        self.eifs_us = o.eifs_us;
        self.preamble_us = o.preamble_us;
        self.plcp_header_us = o.plcp_header_us;
        self.rx_phy_start_delay_us = o.rx_phy_start_delay_us;
    }
}

/// Resolved timing of one BSS.
#[derive(Clone, Debug, PartialEq)]
pub struct PhyTiming {
    pub standard: PhyStandard,
    pub model: TimingModel,
    pub slot: SimDur,
    pub sifs: SimDur,
    pub difs: SimDur,
    pub eifs: SimDur,
    pub rx_phy_start_delay: SimDur,
    pub data_rate: Rate,
    pub control_rate: Rate,
    /// The basic rates the control response rule of 10.6.6.5.2 picks from
    /// ([`PhyTiming::response_rate`]); `None`: every control frame at
    /// `control_rate` (`phy.control_rate_mbps` set).
    pub response_basic: Option<Vec<Rate>>,
    pub cw_min_default: u32,
    pub cw_max_default: u32,
    /// 802.11n, 802.11ac, 802.11ax: the transmission vector of the data
    /// frames (`None`: a legacy PHY, data at `data_rate`).
    pub ht: Option<TxVector>,
    /// The PHY of non-HT frames: `standard`, or for 802.11n the band's
    /// (802.11a at 5 GHz, 802.11g at 2.4 GHz), 802.11a for 802.11ac and
    /// 802.11ax.
    legacy: PhyStandard,
    preamble: Preamble,
    preamble_override: Option<SimDur>,
    header_override: Option<SimDur>,
}

/// `data_rate_mbps` not given (802.11n, 802.11ac, 802.11ax).
fn is_unset(x: &f64) -> bool {
    *x == 0.0
}

fn us(x: f64) -> SimDur {
    SimDur::from_micros_f64(x)
}

impl PhyTiming {
    /// Resolve a configuration; errors are "field: reason".
    pub fn from_config(c: &PhyConfig) -> Result<PhyTiming, ConfigError> {
        let ht = tx_vector(c)?;
        if let Some(v) = ht {
            return Self::from_ht_config(c, v);
        }
        let std = c.standard;
        if c.data_rate_mbps == 0.0 {
            return Err(ConfigError::new("phy.data_rate_mbps", format!("required for {std:?}")));
        }
        // ns-2's linear timing takes any rate (e.g. Janevski's 802.11g at
        // 20 Mbit/s); the standard's equations only the PHY's own rates.
        let linear = c.timing_model == TimingModel::Linear;
        let data_rate = Rate::from_mbps(c.data_rate_mbps)
            .filter(|r| std.modulation_of(*r).is_some() || (linear && r.0 > 0))
            .ok_or_else(|| {
                let list: Vec<String> = std.rates().iter().map(|(r, _)| format!("{}", r.mbps())).collect();
                ConfigError::new(
                    "phy.data_rate_mbps",
                    format!("{} is not a rate of {:?} (one of {})", c.data_rate_mbps, std, list.join(", ")),
                )
            })?;
        let basic: Vec<Rate> = match &c.basic_rates_mbps {
            None => std.default_basic_rates(),
            Some(v) => {
                let mut out = Vec::new();
                for m in v {
                    let r = Rate::from_mbps(*m).filter(|r| std.modulation_of(*r).is_some()).ok_or_else(|| {
                        ConfigError::new("phy.basic_rates_mbps", format!("{m} is not a rate of {std:?}"))
                    })?;
                    out.push(r);
                }
                if out.is_empty() {
                    return Err(ConfigError::new("phy.basic_rates_mbps", "must not be empty"));
                }
                out
            }
        };
        let control_rate = match c.control_rate_mbps {
            Some(m) => Rate::from_mbps(m)
                .filter(|r| m > 0.0 && r.0 > 0)
                .ok_or_else(|| ConfigError::new("phy.control_rate_mbps", format!("invalid rate {m}")))?,
            None if std.modulation_of(data_rate).is_none() => {
                return Err(ConfigError::new(
                    "phy.control_rate_mbps",
                    format!("required when the data rate ({} Mbit/s) is not a rate of {std:?}", c.data_rate_mbps),
                ));
            }
            None => response_rate(std, &basic, data_rate),
        };
        if c.preamble == Preamble::Short && std == PhyStandard::Dot11a {
            return Err(ConfigError::new("phy.preamble", "802.11a has no short preamble"));
        }
        let o = &c.overrides();
        for (name, v) in [
            ("slot_us", o.slot_us),
            ("sifs_us", o.sifs_us),
            ("difs_us", o.difs_us),
            ("eifs_us", o.eifs_us),
            ("preamble_us", o.preamble_us),
            ("plcp_header_us", o.plcp_header_us),
            ("rx_phy_start_delay_us", o.rx_phy_start_delay_us),
        ] {
            if let Some(x) = v {
                if !(x.is_finite() && (0.0..=1e6).contains(&x)) {
                    return Err(ConfigError::new(
                        format!("phy.{name}"),
                        format!("must be between 0 and 1e6 us, got {x}"),
                    ));
                }
            }
        }
        let (slot_us, sifs_us, rx_start_us, cw_min, cw_max) = match std {
            PhyStandard::Dot11b => (20.0, 10.0, if c.preamble == Preamble::Short { 96.0 } else { 192.0 }, 31, 1023),
            PhyStandard::Dot11a | PhyStandard::Dot11n | PhyStandard::Dot11ac | PhyStandard::Dot11ax => {
                (9.0, 16.0, 25.0, 15, 1023)
            }
            PhyStandard::Dot11g => (if c.slot == SlotKind::Long { 20.0 } else { 9.0 }, 10.0, 24.0, 15, 1023),
        };
        let cc = c.coverage_class.unwrap_or(0);
        if cc > 31 {
            return Err(ConfigError::new("phy.coverage_class", format!("must be between 0 and 31, got {cc}")));
        }
        // aAirPropagationTime: 3 us per coverage class (Table 9-85).
        let slot = us(o.slot_us.unwrap_or(slot_us) + 3.0 * cc as f64);
        if slot == SimDur::ZERO {
            // The DCF counts backoff in idle slots (10.3.4.3): with a zero
            // aSlotTime every backoff ends the instant counting starts, and
            // "elapsed slots" (idle time / slot) is undefined. No PHY has
            // one; rejected rather than given a meaning.
            return Err(ConfigError::new(
                "phy.slot_us",
                format!(
                    "must be at least 0.001 us (1 ns), got {} (a zero slot leaves the backoff undefined)",
                    o.slot_us.unwrap_or(slot_us)
                ),
            ));
        }
        let sifs = us(o.sifs_us.unwrap_or(sifs_us));
        let difs = o.difs_us.map(us).unwrap_or(sifs + slot * 2);
        let mut t = PhyTiming {
            standard: std,
            model: c.timing_model,
            slot,
            sifs,
            difs,
            eifs: SimDur::ZERO,
            rx_phy_start_delay: us(o.rx_phy_start_delay_us.unwrap_or(rx_start_us)),
            data_rate,
            control_rate,
            response_basic: c.control_rate_mbps.is_none().then(|| basic.clone()),
            cw_min_default: cw_min,
            cw_max_default: cw_max,
            ht: None,
            legacy: std,
            preamble: c.preamble,
            preamble_override: o.preamble_us.map(us),
            header_override: o.plcp_header_us.map(us),
        };
        let lowest_mandatory = *std.mandatory_rates().iter().min().expect("mandatory rates");
        t.eifs = match o.eifs_us {
            Some(e) => us(e),
            None => t.sifs + t.tx_time_with(ACK_LEN, lowest_mandatory, Preamble::Long) + t.difs,
        };
        Ok(t)
    }

    /// 802.11n, 802.11ac, 802.11ax: the legacy PHY settles everything but
    /// the data frames' transmission vector and the control rate (module
    /// docs).
    fn from_ht_config(c: &PhyConfig, v: TxVector) -> Result<PhyTiming, ConfigError> {
        let name = v.standard_name();
        if c.data_rate_mbps != 0.0 {
            let key = if matches!(v, TxVector::Ht(_)) { "ht_mcs" } else { "mcs" };
            return Err(ConfigError::new(
                "phy.data_rate_mbps",
                format!(
                    "{name} takes its data rate from phy.{key} (MCS {} is {} Mbit/s); remove it",
                    v.mcs_index(),
                    v.rate_bps() / 1e6
                ),
            ));
        }
        if c.timing_model != TimingModel::Standard {
            return Err(ConfigError::new(
                "phy.timing_model",
                format!("{name} uses the standard's TXTIME (\"standard\")"),
            ));
        }
        if !c.rate_control.is_fixed() {
            return Err(ConfigError::new(
                "phy.rate_control",
                format!("rate adaptation over {name} MCSs is not modelled (\"fixed\" only)"),
            ));
        }
        let legacy = match v {
            TxVector::Ht(h) if h.band == Band::Ghz2_4 => PhyStandard::Dot11g,
            _ => PhyStandard::Dot11a,
        };
        // The legacy PHY with the MCS's non-HT reference rate as its data
        // rate: its interframe spaces, EIFS, and the response rate rule.
        let reference = Rate(v.non_ht_reference());
        let mut lc = c.clone();
        lc.standard = legacy;
        lc.data_rate_mbps = reference.mbps();
        lc.ht_mcs = None;
        lc.mcs = None;
        lc.channel_width_mhz = None;
        lc.guard_interval = None;
        lc.band_ghz = None;
        lc.spatial_streams = None;
        lc.he_format = None;
        lc.packet_extension_us = None;
        let mut t = PhyTiming::from_config(&lc)?;
        t.standard = c.standard;
        t.ht = Some(v);
        // `data_rate` names the MCS's rate (100 kbit/s units, rounded) for
        // results and the medium's PLCP-header time; airtimes come from `ht`.
        t.data_rate = Rate((v.rate_bps() / 1e5).round() as u32);
        Ok(t)
    }

    /// Airtime of an HT, VHT or HE data PPDU whose PSDU is `bytes` long, or
    /// of a legacy data frame at `data_rate`.
    pub fn data_ppdu_time(&self, bytes: u32) -> SimDur {
        match self.ht {
            Some(v) => v.txtime(bytes),
            None => self.tx_time(bytes, self.data_rate),
        }
    }

    /// Airtime of a PPDU carrying `bytes` (MPDU length incl. FCS) at `rate`.
    pub fn tx_time(&self, bytes: u32, rate: Rate) -> SimDur {
        self.tx_time_with(bytes, rate, self.preamble)
    }

    fn tx_time_with(&self, bytes: u32, rate: Rate, preamble: Preamble) -> SimDur {
        let bits = 8 * bytes as u64;
        if rate.is_dsss() {
            // 1 Mbit/s always uses the long preamble (16.2.2.3).
            let short = preamble == Preamble::Short && rate.0 != 10;
            let pre = self.preamble_override.unwrap_or(SimDur::from_micros(if short { 72 } else { 144 }));
            let hdr = self.header_override.unwrap_or(SimDur::from_micros(if short { 24 } else { 48 }));
            let payload = match self.model {
                // ceil(8 L / rate) microseconds (16.3.4); rate in 100 kbit/s.
                TimingModel::Standard => SimDur::from_micros((bits * 10).div_ceil(rate.0 as u64)),
                TimingModel::Linear => SimDur::from_nanos((bits * 10_000).div_ceil(rate.0 as u64)),
            };
            pre + hdr + payload
        } else {
            let pre = self.preamble_override.unwrap_or(SimDur::from_micros(16));
            let hdr = self.header_override.unwrap_or(SimDur::from_micros(4));
            let payload = match self.model {
                // SERVICE (16 bits) + PSDU + tail (6 bits) in 4 us symbols (17.4.3).
                TimingModel::Standard => {
                    let ndbps = rate.ofdm_ndbps().expect("OFDM rate") as u64;
                    SimDur::from_micros(4 * (16 + bits + 6).div_ceil(ndbps))
                }
                TimingModel::Linear => SimDur::from_nanos((bits * 10_000).div_ceil(rate.0 as u64)),
            };
            // ERP-OFDM signal extension (18.3.2.4).
            let ext = if self.legacy == PhyStandard::Dot11g && self.model == TimingModel::Standard {
                SimDur::from_micros(6)
            } else {
                SimDur::ZERO
            };
            pre + hdr + payload + ext
        }
    }

    /// Duration of the PLCP preamble and header of a PPDU sent at `rate`:
    /// the part a receiver must decode to issue PHY-RXSTART.
    pub fn plcp_time(&self, rate: Rate) -> SimDur {
        if rate.is_dsss() {
            let short = self.preamble == Preamble::Short && rate.0 != 10;
            self.preamble_override.unwrap_or(SimDur::from_micros(if short { 72 } else { 144 }))
                + self.header_override.unwrap_or(SimDur::from_micros(if short { 24 } else { 48 }))
        } else {
            self.preamble_override.unwrap_or(SimDur::from_micros(16))
                + self.header_override.unwrap_or(SimDur::from_micros(4))
        }
    }

    /// The rate of a control frame answering (or announcing) a frame sent
    /// at `eliciting`: 10.6.6.5.2's rule, the highest basic rate of the
    /// eliciting frame's modulation class not above its rate, else the
    /// highest such mandatory rate ([`response_rate`]); `control_rate`
    /// when `phy.control_rate_mbps` fixes it. At `data_rate` it is
    /// `control_rate`.
    pub fn response_rate(&self, eliciting: Rate) -> Rate {
        match &self.response_basic {
            Some(basic) if eliciting != self.data_rate => response_rate(self.standard, basic, eliciting),
            _ => self.control_rate,
        }
    }

    pub fn ack_time(&self) -> SimDur {
        self.tx_time(ACK_LEN, self.control_rate)
    }
    pub fn cts_time(&self) -> SimDur {
        self.tx_time(CTS_LEN, self.control_rate)
    }
    pub fn rts_time(&self) -> SimDur {
        self.tx_time(RTS_LEN, self.control_rate)
    }
    /// ACKTimeout (10.3.2.9); CTSTimeout has the same value (10.3.2.7).
    pub fn ack_timeout(&self) -> SimDur {
        self.sifs + self.slot + self.rx_phy_start_delay
    }
    pub fn data_time(&self, mpdu_bytes: u32) -> SimDur {
        self.tx_time(mpdu_bytes, self.data_rate)
    }
}

/// The transmission vector of an 802.11n, 802.11ac or 802.11ax
/// configuration (`None` for other PHYs, which must not set its keys).
fn tx_vector(c: &PhyConfig) -> Result<Option<TxVector>, ConfigError> {
    let std = c.standard;
    let ht_family = matches!(std, PhyStandard::Dot11n | PhyStandard::Dot11ac | PhyStandard::Dot11ax);
    for (name, set, ok) in [
        ("ht_mcs", c.ht_mcs.is_some(), std == PhyStandard::Dot11n),
        ("mcs", c.mcs.is_some(), matches!(std, PhyStandard::Dot11ac | PhyStandard::Dot11ax)),
        ("channel_width_mhz", c.channel_width_mhz.is_some(), ht_family),
        ("guard_interval", c.guard_interval.is_some(), ht_family),
        ("band_ghz", c.band_ghz.is_some(), ht_family),
        ("spatial_streams", c.spatial_streams.is_some(), ht_family),
        ("he_format", c.he_format.is_some(), std == PhyStandard::Dot11ax),
        ("packet_extension_us", c.packet_extension_us.is_some(), std == PhyStandard::Dot11ax),
    ] {
        if set && !ok {
            let owner = match name {
                "ht_mcs" => "an 802.11n key",
                "mcs" => "an 802.11ac/802.11ax key",
                "he_format" | "packet_extension_us" => "an 802.11ax key",
                _ => "an 802.11n/802.11ac/802.11ax key",
            };
            return Err(ConfigError::new(format!("phy.{name}"), format!("{owner}, but phy.standard is {std:?}")));
        }
    }
    match std {
        PhyStandard::Dot11n => ht_vector(c).map(|v| Some(v.into())),
        PhyStandard::Dot11ac | PhyStandard::Dot11ax => vht_he_vector(c).map(Some),
        _ => Ok(None),
    }
}

/// The HT transmission vector of an 802.11n configuration.
fn ht_vector(c: &PhyConfig) -> Result<HtTxVector, ConfigError> {
    let m = c.ht_mcs.ok_or_else(|| ConfigError::new("phy.ht_mcs", "required for 802.11n (0-31)"))?;
    let mcs = HtMcs::new(m).ok_or_else(|| ConfigError::new("phy.ht_mcs", format!("{m} is not an HT MCS (0-31)")))?;
    let width = match c.channel_width_mhz.unwrap_or(20) {
        20 => HtWidth::Mhz20,
        40 => HtWidth::Mhz40,
        w => return Err(ConfigError::new("phy.channel_width_mhz", format!("HT channels are 20 or 40 MHz, got {w}"))),
    };
    let b = c.band_ghz.unwrap_or(5.0);
    let band = if b == 5.0 {
        Band::Ghz5
    } else if b == 2.4 {
        Band::Ghz2_4
    } else {
        return Err(ConfigError::new("phy.band_ghz", format!("2.4 or 5, got {b}")));
    };
    if let Some(n) = c.spatial_streams {
        if !(1..=4).contains(&n) {
            return Err(ConfigError::new("phy.spatial_streams", format!("HT has 1 to 4 spatial streams, got {n}")));
        }
        if mcs.streams() > n {
            return Err(ConfigError::new(
                "phy.ht_mcs",
                format!("MCS {m} needs {} spatial streams, but phy.spatial_streams = {n}", mcs.streams()),
            ));
        }
    }
    let gi = match c.guard_interval.unwrap_or_default() {
        GiConfig::Long => GuardInterval::Long,
        GiConfig::Short => GuardInterval::Short,
        g => {
            return Err(ConfigError::new(
                "phy.guard_interval",
                format!("802.11n has \"long\" or \"short\", got {g:?} (an HE value)"),
            ))
        }
    };
    Ok(HtTxVector { mcs, width, gi, band })
}

/// The VHT or HE transmission vector of an 802.11ac or 802.11ax
/// configuration; an invalid combination is reported at `phy.mcs` with the
/// standard's reason.
fn vht_he_vector(c: &PhyConfig) -> Result<TxVector, ConfigError> {
    let he = c.standard == PhyStandard::Dot11ax;
    let name = if he { "802.11ax" } else { "802.11ac" };
    let top = if he { 11 } else { 9 };
    let m = c.mcs.ok_or_else(|| ConfigError::new("phy.mcs", format!("required for {name} (0-{top})")))?;
    if m > top {
        return Err(ConfigError::new(
            "phy.mcs",
            format!("{m} is not {} MCS (0-{top})", if he { "an HE" } else { "a VHT" }),
        ));
    }
    let w = c.channel_width_mhz.unwrap_or(20);
    let width = ChannelWidth::from_mhz(w).ok_or_else(|| {
        ConfigError::new("phy.channel_width_mhz", format!("{name} channels are 20, 40, 80 or 160 MHz, got {w}"))
    })?;
    let n = c.spatial_streams.unwrap_or(1);
    if !(1..=4).contains(&n) {
        return Err(ConfigError::new(
            "phy.spatial_streams",
            format!("{name} is modelled with 1 to 4 spatial streams, got {n}"),
        ));
    }
    let b = c.band_ghz.unwrap_or(5.0);
    if !he {
        if b != 5.0 {
            return Err(ConfigError::new("phy.band_ghz", format!("802.11ac is a 5 GHz PHY, got {b}")));
        }
        let gi = match c.guard_interval.unwrap_or_default() {
            GiConfig::Long => GuardInterval::Long,
            GiConfig::Short => GuardInterval::Short,
            g => {
                return Err(ConfigError::new(
                    "phy.guard_interval",
                    format!("802.11ac has \"long\" or \"short\", got {g:?} (an HE value)"),
                ))
            }
        };
        return VhtTxVector::new(m, n as u8, width, gi).map(TxVector::Vht).map_err(|e| ConfigError::new("phy.mcs", e));
    }
    let band = if b == 5.0 {
        HeBand::Ghz5
    } else if b == 6.0 {
        HeBand::Ghz6
    } else {
        return Err(ConfigError::new("phy.band_ghz", format!("802.11ax is modelled at 5 or 6 GHz, got {b}")));
    };
    let gi = match c.guard_interval.unwrap_or(GiConfig::He800) {
        GiConfig::He800 => HeGi::Ns800,
        GiConfig::He1600 => HeGi::Ns1600,
        GiConfig::He3200 => HeGi::Ns3200,
        g => {
            return Err(ConfigError::new(
                "phy.guard_interval",
                format!("802.11ax has \"0.8us\", \"1.6us\" or \"3.2us\", got {g:?}"),
            ));
        }
    };
    let format = match c.he_format.unwrap_or_default() {
        HeFormatConfig::Su => HeFormat::Su,
        HeFormatConfig::ErSu => HeFormat::ErSu,
    };
    let pe = c.packet_extension_us.unwrap_or(0);
    if pe > 16 || !pe.is_multiple_of(4) {
        return Err(ConfigError::new("phy.packet_extension_us", format!("0, 4, 8, 12 or 16 us (27.3.13), got {pe}")));
    }
    HeTxVector::new(format, m, n as u8, width, gi, band, pe).map(TxVector::He).map_err(|e| {
        let key = if format == HeFormat::ErSu { "he_format" } else { "mcs" };
        ConfigError::new(format!("phy.{key}"), e)
    })
}

/// Control-response rate rule of 10.6.6.5.2.
pub fn response_rate(std: PhyStandard, basic: &[Rate], eliciting: Rate) -> Rate {
    let class = std.modulation_of(eliciting).unwrap_or(Modulation::Ofdm);
    let same = |r: &&Rate| std.modulation_of(**r) == Some(class) && **r <= eliciting;
    let mandatory = std.mandatory_rates();
    basic.iter().filter(same).max().or_else(|| mandatory.iter().filter(same).max()).copied().unwrap_or(eliciting)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(std: PhyStandard, rate: f64) -> PhyConfig {
        PhyConfig::new(std, rate)
    }

    #[test]
    fn ofdm_54_frame_and_ack() {
        let t = PhyTiming::from_config(&cfg(PhyStandard::Dot11a, 54.0)).unwrap();
        // 1528-byte MPDU: ceil((16+12224+6)/216) = 57 symbols -> 20 + 228 us.
        assert_eq!(t.data_time(1528), SimDur::from_micros(248));
        assert_eq!(t.control_rate, Rate(240));
        // ACK at 24 Mbit/s: ceil((16+112+6)/96) = 2 symbols -> 28 us.
        assert_eq!(t.ack_time(), SimDur::from_micros(28));
        assert_eq!(t.difs, SimDur::from_micros(34));
        // EIFS = 16 + ACK@6 Mbit/s (44 us) + 34
        assert_eq!(t.eifs, SimDur::from_micros(94));
        assert_eq!(t.ack_timeout(), SimDur::from_micros(16 + 9 + 25));
    }

    #[test]
    fn coverage_class_lengthens_slot_and_ack_timeout() {
        // Class 7: 21 us more air propagation time (3 us per class), enough
        // for the round trip of a 3.1 km link; slot 9 + 21 = 30 us.
        let mut c = cfg(PhyStandard::Dot11a, 6.0);
        c.coverage_class = Some(7);
        let t = PhyTiming::from_config(&c).unwrap();
        assert_eq!(t.slot, SimDur::from_micros(30));
        assert_eq!(t.difs, SimDur::from_micros(16 + 60));
        assert_eq!(t.ack_timeout(), SimDur::from_micros(16 + 30 + 25));
        c.coverage_class = Some(32);
        assert_eq!(
            PhyTiming::from_config(&c).unwrap_err().to_string(),
            "phy.coverage_class: must be between 0 and 31, got 32"
        );
    }

    #[test]
    fn erp_adds_signal_extension_and_short_sifs() {
        let t = PhyTiming::from_config(&cfg(PhyStandard::Dot11g, 24.0)).unwrap();
        // 1528 B at 24: ceil(12246/96) = 128 symbols -> 20 + 512 + 6.
        assert_eq!(t.data_time(1528), SimDur::from_micros(538));
        assert_eq!(t.sifs, SimDur::from_micros(10));
        assert_eq!(t.difs, SimDur::from_micros(28));
        assert_eq!(t.control_rate, Rate(240));
        // EIFS uses the lowest mandatory rate, 1 Mbit/s DSSS long preamble: 304 us.
        assert_eq!(t.eifs, SimDur::from_micros(10 + 304 + 28));
    }

    #[test]
    fn dsss_11_with_long_and_short_preamble() {
        let mut c = cfg(PhyStandard::Dot11b, 11.0);
        let t = PhyTiming::from_config(&c).unwrap();
        // ceil(1528*8/11) = 1112 us + 192
        assert_eq!(t.data_time(1528), SimDur::from_micros(1304));
        // Default basic rates {1, 2}: the ACK of 11 Mbit/s data goes at
        // 2 Mbit/s (192 + ceil(112 / 2) = 248 us), as in ns-3.
        assert_eq!(t.control_rate, Rate(20));
        assert_eq!(t.ack_time(), SimDur::from_micros(248));
        assert_eq!(t.eifs, SimDur::from_micros(10 + 304 + 50));
        // Every HR/DSSS rate basic: the ACK at 11 Mbit/s (192 + 11 us).
        c.basic_rates_mbps = Some(vec![1.0, 2.0, 5.5, 11.0]);
        let all = PhyTiming::from_config(&c).unwrap();
        assert_eq!(all.control_rate, Rate(110));
        assert_eq!(all.ack_time(), SimDur::from_micros(192 + 11));
        c.basic_rates_mbps = None;
        c.preamble = Preamble::Short;
        let s = PhyTiming::from_config(&c).unwrap();
        assert_eq!(s.data_time(1528), SimDur::from_micros(1208));
    }

    #[test]
    fn zero_slot_is_rejected() {
        for x in [0.0, 0.0004] {
            let mut c = cfg(PhyStandard::Dot11b, 11.0);
            c.slot_us = Some(x);
            let e = PhyTiming::from_config(&c).unwrap_err().to_string();
            assert!(e.starts_with("phy.slot_us: must be at least 0.001 us"), "{e}");
        }
        let mut c = cfg(PhyStandard::Dot11b, 11.0);
        c.slot_us = Some(0.001);
        assert_eq!(PhyTiming::from_config(&c).unwrap().slot, SimDur::from_nanos(1));
    }

    #[test]
    fn response_rate_rule() {
        let std = PhyStandard::Dot11a;
        let basic = [Rate(60), Rate(120)];
        assert_eq!(response_rate(std, &basic, Rate(540)), Rate(120));
        assert_eq!(response_rate(std, &basic, Rate(90)), Rate(60));
        // 802.11g with only DSSS basic rates: ERP-OFDM data falls back to
        // the mandatory OFDM rates.
        let g = PhyStandard::Dot11g;
        assert_eq!(response_rate(g, &[Rate(10), Rate(20)], Rate(540)), Rate(240));
        assert_eq!(response_rate(g, &[Rate(10), Rate(20)], Rate(110)), Rate(20));
    }

    #[test]
    fn pokhrel_table_ii_overrides() {
        let mut c = cfg(PhyStandard::Dot11g, 36.0);
        c.control_rate_mbps = Some(2.0);
        c.timing_model = TimingModel::Linear;
        c.set_overrides(PhyOverrides {
            slot_us: Some(20.0),
            sifs_us: Some(10.0),
            difs_us: Some(50.0),
            eifs_us: Some(308.0),
            preamble_us: Some(144.0),
            plcp_header_us: Some(48.0),
            rx_phy_start_delay_us: None,
        });
        let t = PhyTiming::from_config(&c).unwrap();
        // ACK at 2 Mbit/s: 192 + 56 = 248 us, so EIFS = 10 + 248 + 50 = 308.
        assert_eq!(t.ack_time(), SimDur::from_micros(248));
        assert_eq!(t.eifs, SimDur::from_micros(308));
        assert_eq!(t.slot, SimDur::from_micros(20));
        assert_eq!(t.data_time(1500), SimDur::from_nanos(192_000 + 333_334));
    }

    #[test]
    fn linear_timing_takes_any_rate_with_a_control_rate() {
        let mut c = cfg(PhyStandard::Dot11g, 20.0);
        c.timing_model = TimingModel::Linear;
        assert!(PhyTiming::from_config(&c).unwrap_err().to_string().starts_with("phy.control_rate_mbps:"));
        c.control_rate_mbps = Some(1.0);
        let t = PhyTiming::from_config(&c).unwrap();
        // 1500 bytes at 20 Mbit/s = 600 us, plus the ERP-OFDM preamble and SIGNAL.
        assert_eq!(t.data_time(1500), SimDur::from_micros(620));
    }

    #[test]
    fn ht_mcs7_at_5_ghz() {
        let mut c = cfg(PhyStandard::Dot11n, 0.0);
        c.ht_mcs = Some(7);
        let t = PhyTiming::from_config(&c).unwrap();
        // 802.11a's interframe spaces; ACK/BlockAck at 24 Mbit/s (the
        // highest basic rate not above MCS 7's reference, 54).
        assert_eq!(
            (t.sifs, t.slot, t.difs),
            (SimDur::from_micros(16), SimDur::from_micros(9), SimDur::from_micros(34))
        );
        assert_eq!(t.control_rate, Rate(240));
        assert_eq!(t.ack_time(), SimDur::from_micros(28));
        assert_eq!(t.data_rate, Rate(650));
        // 1500-octet PSDU at MCS 7: 36 + 188 us (phy::ht).
        assert_eq!(t.data_ppdu_time(1500), SimDur::from_micros(224));
        // 2.4 GHz: ERP control frames (signal extension), SIFS 10.
        c.band_ghz = Some(2.4);
        let g = PhyTiming::from_config(&c).unwrap();
        assert_eq!(g.sifs, SimDur::from_micros(10));
        assert_eq!(g.ack_time(), SimDur::from_micros(34));
        assert_eq!(g.data_ppdu_time(1500), SimDur::from_micros(230));
    }

    #[test]
    fn ht_bad_input() {
        let mut c = cfg(PhyStandard::Dot11n, 0.0);
        let e = |c: &PhyConfig| PhyTiming::from_config(c).unwrap_err().to_string();
        assert!(e(&c).starts_with("phy.ht_mcs: required"));
        c.ht_mcs = Some(15);
        c.spatial_streams = Some(1);
        assert!(e(&c).starts_with("phy.ht_mcs: MCS 15 needs 2 spatial streams"), "{}", e(&c));
        c.spatial_streams = None;
        c.channel_width_mhz = Some(80);
        assert!(e(&c).starts_with("phy.channel_width_mhz:"));
        c.channel_width_mhz = None;
        c.data_rate_mbps = 54.0;
        assert!(e(&c).starts_with("phy.data_rate_mbps: 802.11n"));
        let mut a = cfg(PhyStandard::Dot11a, 54.0);
        a.ht_mcs = Some(7);
        assert!(e(&a).starts_with("phy.ht_mcs: an 802.11n key"));
    }

    #[test]
    fn vht_and_he_timing() {
        let mut c = cfg(PhyStandard::Dot11ac, 0.0);
        c.mcs = Some(9);
        c.spatial_streams = Some(2);
        c.channel_width_mhz = Some(80);
        c.guard_interval = Some(GiConfig::Short);
        let t = PhyTiming::from_config(&c).unwrap();
        // 802.11a's spaces; 256-QAM's reference rate is 54, so responses
        // go at 24 Mbit/s; 866.7 Mbit/s; a 1500-octet MPDU as an S-MPDU
        // (1504 octets) in 60 us (phy::vht).
        assert_eq!((t.sifs, t.slot), (SimDur::from_micros(16), SimDur::from_micros(9)));
        assert_eq!(t.control_rate, Rate(240));
        assert_eq!(t.data_rate, Rate(8667));
        assert_eq!(t.data_ppdu_time(1504), SimDur::from_micros(60));
        assert!(t.ht.unwrap().every_ppdu_ampdu());
        let mut h = cfg(PhyStandard::Dot11ax, 0.0);
        h.mcs = Some(11);
        h.spatial_streams = Some(2);
        h.channel_width_mhz = Some(80);
        let t = PhyTiming::from_config(&h).unwrap();
        // 0.8 us GI by default: 1201.0 Mbit/s; 50.4 + 13.6 us.
        assert_eq!(t.data_rate, Rate(12010));
        assert_eq!(t.data_ppdu_time(1504), SimDur::from_micros(64));
        h.band_ghz = Some(6.0);
        h.guard_interval = Some(GiConfig::He3200);
        let t6 = PhyTiming::from_config(&h).unwrap();
        assert_eq!(t6.data_ppdu_time(1504), SimDur::from_micros(84));
        assert_eq!(t6.control_rate, Rate(240));
        // HE ER SU, MCS 0, one 2x HE-LTF with the 0.8 us GI: 8 + 8 + 4 + 4
        // + 16 + 4 + 7.2 = 51.2 us, then ceil(12054 / 117) = 104 symbols.
        let mut er = cfg(PhyStandard::Dot11ax, 0.0);
        er.mcs = Some(0);
        er.he_format = Some(HeFormatConfig::ErSu);
        let t = PhyTiming::from_config(&er).unwrap();
        assert_eq!(t.data_ppdu_time(1504), SimDur::from_nanos(51_200 + 104 * 13_600));
    }

    #[test]
    fn vht_and_he_bad_input() {
        let e = |c: &PhyConfig| PhyTiming::from_config(c).unwrap_err().to_string();
        let mut c = cfg(PhyStandard::Dot11ac, 0.0);
        assert_eq!(e(&c), "phy.mcs: required for 802.11ac (0-9)");
        c.mcs = Some(9);
        assert!(e(&c).starts_with("phy.mcs: VHT MCS 9 with 1 spatial stream(s) at 20 MHz is not a valid combination"));
        c.spatial_streams = Some(3);
        assert!(PhyTiming::from_config(&c).is_ok());
        c.mcs = Some(10);
        assert_eq!(e(&c), "phy.mcs: 10 is not a VHT MCS (0-9)");
        c.mcs = Some(7);
        c.channel_width_mhz = Some(60);
        assert!(e(&c).starts_with("phy.channel_width_mhz: 802.11ac channels are 20, 40, 80 or 160 MHz"));
        c.channel_width_mhz = None;
        c.band_ghz = Some(2.4);
        assert!(e(&c).starts_with("phy.band_ghz: 802.11ac is a 5 GHz PHY"));
        c.band_ghz = None;
        c.guard_interval = Some(GiConfig::He1600);
        assert!(e(&c).starts_with("phy.guard_interval: 802.11ac has"));
        c.guard_interval = None;
        c.ht_mcs = Some(7);
        assert!(e(&c).starts_with("phy.ht_mcs: an 802.11n key"));
        c.ht_mcs = None;
        c.packet_extension_us = Some(4);
        assert!(e(&c).starts_with("phy.packet_extension_us: an 802.11ax key"));
        c.packet_extension_us = None;
        c.data_rate_mbps = 54.0;
        assert!(e(&c).starts_with("phy.data_rate_mbps: 802.11ac takes its data rate from phy.mcs"));
        let mut h = cfg(PhyStandard::Dot11ax, 0.0);
        h.mcs = Some(12);
        assert_eq!(e(&h), "phy.mcs: 12 is not an HE MCS (0-11)");
        h.mcs = Some(3);
        h.he_format = Some(HeFormatConfig::ErSu);
        assert!(e(&h).starts_with("phy.he_format: an HE ER SU PPDU is 20 MHz, one spatial stream, MCS 0-2"));
        h.he_format = None;
        h.guard_interval = Some(GiConfig::Short);
        assert!(e(&h).starts_with("phy.guard_interval: 802.11ax has"));
        h.guard_interval = None;
        h.packet_extension_us = Some(5);
        assert!(e(&h).starts_with("phy.packet_extension_us: 0, 4, 8, 12 or 16"));
        h.packet_extension_us = None;
        h.band_ghz = Some(2.4);
        assert!(e(&h).starts_with("phy.band_ghz: 802.11ax is modelled at 5 or 6 GHz"));
        let mut a = cfg(PhyStandard::Dot11a, 54.0);
        a.mcs = Some(7);
        assert!(e(&a).starts_with("phy.mcs: an 802.11ac/802.11ax key"));
    }

    #[test]
    fn bad_rate_is_a_field_error() {
        let e = PhyTiming::from_config(&cfg(PhyStandard::Dot11a, 11.0)).unwrap_err();
        assert_eq!(e.path, "phy.data_rate_mbps", "{e}");
    }
}
