//! Rates and their modulation classes.
use serde::{Deserialize, Serialize};

/// The PHY of a BSS.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PhyStandard {
    /// 802.11b: HR/DSSS, clause 16 (DSSS clause 15).
    #[serde(rename = "802.11b")]
    Dot11b,
    /// 802.11a: OFDM, clause 17, 20 MHz channels.
    #[serde(rename = "802.11a")]
    Dot11a,
    /// 802.11g: ERP, clause 18 (ERP-OFDM plus the DSSS/CCK rates).
    #[serde(rename = "802.11g")]
    Dot11g,
    /// 802.11n: HT, clause 19 (`phy::ht`); its data frames use an HT MCS
    /// (`phy.ht_mcs`), its control frames the legacy rates of its band:
    /// OFDM (clause 17) at 5 GHz, ERP (clause 18) at 2.4 GHz.
    #[serde(rename = "802.11n", alias = "ht")]
    Dot11n,
    /// 802.11ac: VHT, clause 21 (`phy::vht`); data frames at a VHT MCS
    /// (`phy.mcs`), control frames at the OFDM rates of 5 GHz (clause 17).
    #[serde(rename = "802.11ac", alias = "vht")]
    Dot11ac,
    /// 802.11ax: HE single user, 802.11ax-2021 clause 27 (`phy::he`); data
    /// frames at an HE MCS (`phy.mcs`), control frames at the OFDM rates
    /// (clause 17) of the 5 or 6 GHz band.
    #[serde(rename = "802.11ax", alias = "he")]
    Dot11ax,
}

/// Modulation class, for the control-response rate rule (10.6.6.5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modulation {
    /// DSSS and HR/DSSS (clauses 15, 16): 1, 2, 5.5, 11 Mbit/s.
    Dsss,
    /// OFDM or ERP-OFDM (clauses 17, 18): 6..54 Mbit/s.
    Ofdm,
}

/// A data rate in units of 100 kbit/s (so 5.5 Mbit/s is exact).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u32);

impl Rate {
    pub fn from_mbps(mbps: f64) -> Option<Rate> {
        let r = (mbps * 10.0).round();
        if (r / 10.0 - mbps).abs() > 1e-9 || r <= 0.0 {
            return None;
        }
        Some(Rate(r as u32))
    }
    pub fn mbps(self) -> f64 {
        self.0 as f64 / 10.0
    }
    pub fn bits_per_us(self) -> f64 {
        self.mbps()
    }
    /// OFDM data bits per 4 us symbol (Table 17-4), for 20 MHz channels.
    pub fn ofdm_ndbps(self) -> Option<u32> {
        Some(match self.0 {
            60 => 24,
            90 => 36,
            120 => 48,
            180 => 72,
            240 => 96,
            360 => 144,
            480 => 192,
            540 => 216,
            _ => return None,
        })
    }
    pub fn is_dsss(self) -> bool {
        matches!(self.0, 10 | 20 | 55 | 110)
    }
}

impl PhyStandard {
    /// Rates the PHY supports, with their modulation class (802.11n,
    /// 802.11ac, 802.11ax: the legacy OFDM rates of their control frames at
    /// 5 (and 6) GHz; for 802.11n at 2.4 GHz `PhyTiming` uses 802.11g's).
    pub fn rates(self) -> Vec<(Rate, Modulation)> {
        let dsss = [10, 20, 55, 110].map(|r| (Rate(r), Modulation::Dsss));
        let ofdm = [60, 90, 120, 180, 240, 360, 480, 540].map(|r| (Rate(r), Modulation::Ofdm));
        match self {
            PhyStandard::Dot11b => dsss.to_vec(),
            PhyStandard::Dot11a | PhyStandard::Dot11n | PhyStandard::Dot11ac | PhyStandard::Dot11ax => ofdm.to_vec(),
            PhyStandard::Dot11g => dsss.iter().chain(ofdm.iter()).copied().collect(),
        }
    }
    /// Mandatory rates: 16.3.? (HR/DSSS: 1, 2, 5.5, 11), 17.3.? (OFDM: 6,
    /// 12, 24), 18.? (ERP: both sets).
    pub fn mandatory_rates(self) -> Vec<Rate> {
        match self {
            PhyStandard::Dot11b => vec![Rate(10), Rate(20), Rate(55), Rate(110)],
            PhyStandard::Dot11a | PhyStandard::Dot11n | PhyStandard::Dot11ac | PhyStandard::Dot11ax => {
                vec![Rate(60), Rate(120), Rate(240)]
            }
            PhyStandard::Dot11g => {
                vec![Rate(10), Rate(20), Rate(55), Rate(110), Rate(60), Rate(120), Rate(240)]
            }
        }
    }
    /// Default BSSBasicRateSet, used when `phy.basic_rates_mbps` is not
    /// given. The standard leaves the set to the AP (MLME-START.request,
    /// 6.3.4.2.2); these are what APs of each PHY and ns-3 use:
    /// - 802.11b: {1, 2} Mbit/s, the DSSS rates (clause 15) every
    ///   HR/DSSS station decodes; 5.5 and 11 Mbit/s are operational but
    ///   not basic. Control responses to 11 Mbit/s data then go at
    ///   2 Mbit/s (10.6.6.5.2), as in ns-3 3.37.
    /// - 802.11a: the mandatory OFDM rates {6, 12, 24} (17.3.5.6).
    /// - 802.11g: the mandatory ERP rates {1, 2, 5.5, 11, 6, 12, 24}
    ///   (18.1; ERP-only BSS).
    pub fn default_basic_rates(self) -> Vec<Rate> {
        match self {
            PhyStandard::Dot11b => vec![Rate(10), Rate(20)],
            _ => self.mandatory_rates(),
        }
    }
    pub fn modulation_of(self, r: Rate) -> Option<Modulation> {
        self.rates().into_iter().find(|(x, _)| *x == r).map(|(_, m)| m)
    }
}
