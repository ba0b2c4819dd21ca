//! The transmission vector of a data PPDU of the HT family (HT, VHT, HE):
//! one enum over the PPDU formats, so that MAC, medium and error model ask
//! the same questions of each (airtime, A-MPDU limits, BlockAck window,
//! non-HT reference rate, the parameters of the error model).
//!
//! Invariant: a `TxVector` is a combination the standard allows (each
//! format's constructor refuses the others with a reason).
use super::he::{HeFormat, HeTxVector};
use super::ht::{Constellation, HtTxVector, HtWidth};
use super::vht::VhtTxVector;
use wifitcp_core::SimDur;

/// aPPDUMaxTime of HT-mixed, VHT and HE PPDUs: 5.484 ms (Tables 19-25,
/// 21-28, 27-51; the limit L-SIG's LENGTH can announce).
pub const PPDU_MAX_TIME: SimDur = SimDur::from_nanos(5_484_000);

/// Channel width of a VHT or HE transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChannelWidth {
    Mhz20,
    Mhz40,
    Mhz80,
    Mhz160,
}

impl ChannelWidth {
    pub fn from_mhz(w: u32) -> Option<ChannelWidth> {
        Some(match w {
            20 => ChannelWidth::Mhz20,
            40 => ChannelWidth::Mhz40,
            80 => ChannelWidth::Mhz80,
            160 => ChannelWidth::Mhz160,
            _ => return None,
        })
    }
    pub fn mhz(self) -> u32 {
        match self {
            ChannelWidth::Mhz20 => 20,
            ChannelWidth::Mhz40 => 40,
            ChannelWidth::Mhz80 => 80,
            ChannelWidth::Mhz160 => 160,
        }
    }
}

/// The data PPDU's format and transmission vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TxVector {
    /// HT-mixed PPDU (clause 19).
    Ht(HtTxVector),
    /// VHT SU PPDU (clause 21).
    Vht(VhtTxVector),
    /// HE SU or HE ER SU PPDU (802.11ax clause 27).
    He(HeTxVector),
}

impl From<HtTxVector> for TxVector {
    fn from(v: HtTxVector) -> TxVector {
        TxVector::Ht(v)
    }
}

/// What the error model needs of a PPDU's data field and signal fields.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorParams {
    pub constellation: Constellation,
    /// (numerator, denominator).
    pub code_rate: (u32, u32),
    pub streams: u32,
    /// Channel width in Hz.
    pub bandwidth_hz: f64,
    /// Subcarriers carrying power (data and pilots) over the width.
    pub powered_subcarriers: f64,
    /// Subcarrier spacing in Hz (312.5 kHz, 78.125 kHz for HE).
    pub spacing_hz: f64,
    /// Tail bits of the data field (6 per BCC encoder).
    pub tail_bits: u64,
    /// Bits of the BPSK 1/2 signal fields after L-SIG's 24 (HT-SIG 48;
    /// VHT-SIG-A 48 and VHT-SIG-B 26; RL-SIG 24 and HE-SIG-A 52).
    pub sig_bits: u64,
    /// Width in Hz the signal fields' power spreads over: the channel's
    /// (`bandwidth_hz`), or for an HE TB PPDU the 20 MHz channels its RU
    /// overlaps ([`TxVector::ru_error_params`]).
    pub sig_bandwidth_hz: f64,
}

/// One user's PSDU in a multi-user PPDU: the size of its RU and whether
/// it is a station's share of an HE TB PPDU (uplink) or the AP's user of
/// an HE MU PPDU (downlink) ([`TxVector::ru_error_params`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuLink {
    pub size: super::he_mu::RuSize,
    pub uplink: bool,
}

impl TxVector {
    /// TXTIME of the PPDU carrying a PSDU of `bytes` octets.
    pub fn txtime(self, bytes: u32) -> SimDur {
        match self {
            TxVector::Ht(v) => v.txtime(bytes),
            TxVector::Vht(v) => v.txtime(bytes),
            TxVector::He(v) => v.txtime(bytes),
        }
    }
    /// Data rate in bit/s.
    pub fn rate_bps(self) -> f64 {
        match self {
            TxVector::Ht(v) => v.mcs.rate_bps(v.width, v.gi),
            TxVector::Vht(v) => v.rate_bps(),
            TxVector::He(v) => v.rate_bps(),
        }
    }
    /// The MCS index (HT 0-31, VHT 0-9, HE 0-11).
    pub fn mcs_index(self) -> u8 {
        match self {
            TxVector::Ht(v) => v.mcs.index(),
            TxVector::Vht(v) => v.mcs().index(),
            TxVector::He(v) => v.mcs().index(),
        }
    }
    pub fn constellation(self) -> Constellation {
        match self {
            TxVector::Ht(v) => v.mcs.constellation(),
            TxVector::Vht(v) => v.mcs().constellation(),
            TxVector::He(v) => v.mcs().constellation(),
        }
    }
    pub fn code_rate(self) -> (u32, u32) {
        match self {
            TxVector::Ht(v) => v.mcs.code_rate(),
            TxVector::Vht(v) => v.mcs().code_rate(),
            TxVector::He(v) => v.mcs().code_rate(),
        }
    }
    pub fn streams(self) -> u32 {
        match self {
            TxVector::Ht(v) => v.mcs.streams(),
            TxVector::Vht(v) => v.streams(),
            TxVector::He(v) => v.streams(),
        }
    }
    pub fn width_mhz(self) -> u32 {
        match self {
            TxVector::Ht(v) => match v.width {
                HtWidth::Mhz20 => 20,
                HtWidth::Mhz40 => 40,
            },
            TxVector::Vht(v) => v.width().mhz(),
            TxVector::He(v) => v.width().mhz(),
        }
    }
    /// The non-HT reference rate (100 kbit/s) the control-response rule
    /// compares with the basic rates (10.6.6.5.2).
    pub fn non_ht_reference(self) -> u32 {
        super::ht::non_ht_reference(self.constellation(), self.code_rate())
    }
    /// Whether every PPDU carries an A-MPDU, a single MPDU as a single
    /// MPDU A-MPDU with its delimiter (VHT and HE: 10.12.8, 21.3.2,
    /// 27.3.2), rather than a bare MPDU (HT).
    pub fn every_ppdu_ampdu(self) -> bool {
        !matches!(self, TxVector::Ht(_))
    }
    /// The largest Maximum A-MPDU Length of the format, in octets
    /// (9.4.2.55.3, 9.4.2.157.2, 9.4.2.248.2).
    pub fn max_ampdu_bytes(self) -> u32 {
        match self {
            TxVector::Ht(_) => 65_535,
            TxVector::Vht(_) => super::vht::MAX_AMPDU_BYTES,
            TxVector::He(_) => super::he::MAX_AMPDU_BYTES,
        }
    }
    /// The largest BlockAck buffer size (10.25.2): 64 before HE, 256 for
    /// HE (its 256-bit compressed BlockAck bitmap, `mac::blockack::Bitmap`).
    pub fn max_ba_window(self) -> u16 {
        match self {
            TxVector::He(_) => super::he::MAX_BA_WINDOW,
            _ => 64,
        }
    }
    /// The PHY's name as the scenario spells it.
    pub fn standard_name(self) -> &'static str {
        match self {
            TxVector::Ht(_) => "802.11n",
            TxVector::Vht(_) => "802.11ac",
            TxVector::He(_) => "802.11ax",
        }
    }
    /// The error model's parameters (module `channel::error_model::mcs`).
    pub fn error_params(self) -> ErrorParams {
        let (bandwidth_hz, powered, spacing, tail, sig) = match self {
            TxVector::Ht(v) => {
                let n = match v.width {
                    HtWidth::Mhz20 => 56.0,
                    HtWidth::Mhz40 => 114.0,
                };
                (1e6 * f64::from(self.width_mhz()), n, 312_500.0, 6 * v.mcs.encoders(v.width), 48)
            }
            TxVector::Vht(v) => {
                // N_ST (data and pilots): 56, 114, 242, 484 (Table 21-5).
                let n = match v.width() {
                    ChannelWidth::Mhz20 => 56.0,
                    ChannelWidth::Mhz40 => 114.0,
                    ChannelWidth::Mhz80 => 242.0,
                    ChannelWidth::Mhz160 => 484.0,
                };
                (1e6 * f64::from(self.width_mhz()), n, 312_500.0, 6 * v.encoders(), 48 + 26)
            }
            TxVector::He(v) => {
                // The full-band RU's tones: 242, 484, 996, 2x996 (Table 27-12).
                let n = match v.width() {
                    ChannelWidth::Mhz20 => 242.0,
                    ChannelWidth::Mhz40 => 484.0,
                    ChannelWidth::Mhz80 => 996.0,
                    ChannelWidth::Mhz160 => 1992.0,
                };
                let sig = match v.format() {
                    HeFormat::Su => 24 + 52,
                    HeFormat::ErSu => 24 + 2 * 52,
                };
                (1e6 * f64::from(self.width_mhz()), n, 78_125.0, 6, sig)
            }
        };
        ErrorParams {
            constellation: self.constellation(),
            code_rate: self.code_rate(),
            streams: self.streams(),
            bandwidth_hz,
            powered_subcarriers: powered,
            spacing_hz: spacing,
            tail_bits: u64::from(tail),
            sig_bits: sig,
            sig_bandwidth_hz: bandwidth_hz,
        }
    }

    /// The error model's parameters for one user's PSDU on its RU in an
    /// HE MU or HE TB PPDU of this vector's width, MCS, streams and GI
    /// (IEEE 802.11ax-2021 27.3.2.2, Tables 27-7 to 27-9: the RU's tones).
    /// The SNR the error model takes stays the link's over the channel
    /// width at the transmitter's whole power (module
    /// `channel::error_model::mcs`); what changes is how many tones that
    /// power feeds:
    /// - Uplink (HE TB PPDU, 27.3.4): the station puts its whole transmit
    ///   power on its RU's tones (data and pilots, `RuSize::tones`), so
    ///   each tone carries W / (tones x 78.125 kHz) times the channel's
    ///   SNR: 10 log10(996 / 26) = 15.8 dB more per tone on a 26-tone RU
    ///   of 80 MHz than an SU PPDU's. Its pre-HE signal fields (L-SIG,
    ///   RL-SIG, HE-SIG-A; no HE-SIG-B) go on the 20 MHz channels its RU
    ///   overlaps (27.3.10), the 20 MHz channel for RUs up to 242 tones, 40
    ///   and 80 MHz for the 484- and 996-tone RUs. Model choices: no uplink
    ///   power control (the Trigger's UL Target RSSI, 9.3.1.22, is not acted
    ///   on: every station at its own transmit power, as ns-3 3.37); the
    ///   other users' copies of the
    ///   common signal fields neither help nor hurt; the centre 26-tone RU
    ///   of 80 MHz, which straddles two 20 MHz channels, counts as in one.
    /// - Downlink (HE MU PPDU, 27.3.3): model choice: the AP keeps the
    ///   power per tone of an SU PPDU of the channel (its power spread over
    ///   the full-band N_ST, as ns-3 3.37's transmit spectrum), so a user's
    ///   RU sees the channel's SNR per tone and the parameters are
    ///   [`Self::error_params`]'s. An AP spreading the same total power
    ///   over the allocated RUs' tones only would give its users up to 10
    ///   log10(996 / 848) = 0.7 dB more (eight 106-tone RUs of 80 MHz).
    ///   HE-SIG-B is not judged (its bits are sent at the HE-SIG-B MCS,
    ///   module `phy::he_mu`).
    ///
    /// ns-3 3.37 takes the SNR of an RU as the power in the RU's
    /// subcarriers over the noise of the RU's nominal width (2, 4, 8, 20,
    /// 40, 80, 160 MHz); the tone count here differs from that by at most
    /// 10 log10(26 / 25.6) = 0.07 dB (26 tones against 2 MHz). Non-HE
    /// vectors have no RUs: [`Self::error_params`].
    pub fn ru_error_params(self, ru: RuLink) -> ErrorParams {
        let p = self.error_params();
        if !ru.uplink || !matches!(self, TxVector::He(_)) {
            return p;
        }
        use super::he_mu::RuSize as S;
        let sig_mhz = match ru.size {
            S::Tones26 | S::Tones52 | S::Tones106 | S::Tones242 => 20,
            S::Tones484 => 40,
            S::Tones996 => 80,
            S::Tones2x996 => 160,
        };
        ErrorParams {
            powered_subcarriers: f64::from(ru.size.tones()),
            sig_bits: 24 + 52,
            sig_bandwidth_hz: 1e6 * f64::from(sig_mhz),
            ..p
        }
    }
}
