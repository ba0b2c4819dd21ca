//! The HT PHY (802.11n, IEEE 802.11-2020 clause 19): modulation and coding
//! schemes 0-31, data rates, and the airtime of HT-mixed PPDUs, with the
//! A-MPDU subframe arithmetic the aggregating MAC needs.
//!
//! Sources (IEEE 802.11-2020):
//! - MCS 0-31 are the equal-modulation MCSs of Tables 19-27 to 19-34:
//!   N_SS = MCS / 8 + 1 spatial streams and, for MCS mod 8 = 0..7, BPSK 1/2,
//!   QPSK 1/2, QPSK 3/4, 16-QAM 1/2, 16-QAM 3/4, 64-QAM 2/3, 64-QAM 3/4,
//!   64-QAM 5/6. N_SD = 52 data subcarriers at 20 MHz, 108 at 40 MHz
//!   (Table 19-6). N_DBPS = N_SD x N_BPSCS x R x N_SS.
//! - Symbol time T_SYM = 4 us with the long (800 ns) guard interval, T_SYMS
//!   = 3.6 us with the short (400 ns) one (Table 19-6).
//! - N_ES, the number of BCC encoders: one per started 300 Mbit/s of the
//!   MCS's long-GI data rate (the N_ES column of Tables 19-27 to 19-34
//!   follows this rule for every equal-modulation MCS; checked against
//!   ns-3's tables by `ht_txtime_matches_ns3`).
//! - HT-mixed TXTIME (19.4.3): the sum of T_LEG_PREAMBLE (L-STF 8 us and
//!   L-LTF 8 us), T_L-SIG (4), T_HT-SIG (8), T_HT-STF (4) and N_LTF times
//!   T_HT-LTF (4), N_LTF = 1, 2, 4, 4 for 1-4 streams (Table 19-13, no
//!   extension LTFs, no STBC); then N_SYM = ceil((8 L + 16 + 6 N_ES) /
//!   N_DBPS) data symbols of T_SYM; with the short GI the data field lasts
//!   T_SYM x ceil(T_SYMS x N_SYM / T_SYM); in the 2.4 GHz band a 6 us
//!   signal extension follows (19.3.2, aSignalExtension). The rounding of
//!   the short-GI data field to 4 us is what L-SIG announces and legacy
//!   stations defer for; ns-3 3.37 omits it (N_SYM x 3.6 us), so short-GI
//!   frames here last up to 3.6 us longer than in ns-3 (tested against
//!   ns-3's table in `tests/ht_txtime.rs`).
//! - A-MPDU (9.7): each subframe is a 4-octet MPDU delimiter, the MPDU and
//!   a pad to a multiple of 4 octets; the last subframe of an HT PPDU
//!   carries no pad (9.7.1). The maximum A-MPDU length is 2^(13 + e) - 1
//!   octets for the Maximum A-MPDU Length Exponent e = 0..3 (9.4.2.55.3),
//!   65,535 at most; an HT-mixed PPDU lasts at most aPPDUMaxTime = 5.484 ms
//!   (Table 19-25, the limit set by L-SIG's LENGTH).
use wifitcp_core::SimDur;

/// Channel width of an HT transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HtWidth {
    Mhz20,
    Mhz40,
}

/// Guard interval of the HT data symbols.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GuardInterval {
    /// 800 ns (T_SYM = 4 us).
    Long,
    /// 400 ns (T_SYMS = 3.6 us).
    Short,
}

/// Frequency band (decides the signal extension).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Band {
    Ghz2_4,
    Ghz5,
}

/// Data bits per OFDM symbol over all spatial streams, N_DBPS = N_SD x
/// N_BPSCS x N_SS x R, the rule of every format of the HT family
/// (802.11-2020 19.3.5, 21.4.3; 802.11ax-2021 27.3.12): `subcarriers` data
/// subcarriers (N_SD) of the format and width, `rate` the code rate R.
pub(crate) fn data_bits_per_symbol(subcarriers: u32, c: Constellation, streams: u32, rate: (u32, u32)) -> u32 {
    subcarriers * c.bits() * streams * rate.0 / rate.1
}

/// Constellation of an OFDM subcarrier (legacy OFDM, HT, VHT and HE
/// MCSs alike; 256-QAM from VHT, 21.3.10.9, 1024-QAM from HE, 27.3.12.9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Constellation {
    Bpsk,
    Qpsk,
    Qam16,
    Qam64,
    Qam256,
    Qam1024,
}

impl Constellation {
    /// Number of points M.
    pub fn points(self) -> u32 {
        1 << self.bits()
    }
    /// Coded bits per subcarrier per stream (N_BPSCS).
    pub fn bits(self) -> u32 {
        match self {
            Constellation::Bpsk => 1,
            Constellation::Qpsk => 2,
            Constellation::Qam16 => 4,
            Constellation::Qam64 => 6,
            Constellation::Qam256 => 8,
            Constellation::Qam1024 => 10,
        }
    }
}

/// An equal-modulation HT MCS, 0-31.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HtMcs(u8);

/// An HT transmission vector: what decides a PPDU's airtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HtTxVector {
    pub mcs: HtMcs,
    pub width: HtWidth,
    pub gi: GuardInterval,
    pub band: Band,
}

/// Most MPDUs in one A-MPDU under an HT immediate BlockAck agreement: the
/// compressed BlockAck bitmap has 64 bits (9.3.1.8.3).
pub const MAX_AMPDU_SUBFRAMES: u32 = 64;
/// aPPDUMaxTime for HT-mixed PPDUs (Table 19-25; VHT's and HE's are the
/// same).
pub const PPDU_MAX_TIME: SimDur = super::ppdu::PPDU_MAX_TIME;
/// Length of the MPDU delimiter (9.7.1).
pub const DELIMITER_BYTES: u32 = 4;

impl HtMcs {
    /// MCS `i` if it is one of 0-31.
    pub fn new(i: u8) -> Option<HtMcs> {
        (i < 32).then_some(HtMcs(i))
    }
    pub fn index(self) -> u8 {
        self.0
    }
    /// Spatial streams, 1-4.
    pub fn streams(self) -> u32 {
        u32::from(self.0 / 8) + 1
    }
    pub fn constellation(self) -> Constellation {
        match self.0 % 8 {
            0 => Constellation::Bpsk,
            1 | 2 => Constellation::Qpsk,
            3 | 4 => Constellation::Qam16,
            _ => Constellation::Qam64,
        }
    }
    /// Code rate as (numerator, denominator).
    pub fn code_rate(self) -> (u32, u32) {
        match self.0 % 8 {
            0 | 1 | 3 => (1, 2),
            2 | 4 | 6 => (3, 4),
            5 => (2, 3),
            _ => (5, 6),
        }
    }
    /// Data bits per OFDM symbol over all streams (N_DBPS).
    pub fn ndbps(self, width: HtWidth) -> u32 {
        let nsd = match width {
            HtWidth::Mhz20 => 52,
            HtWidth::Mhz40 => 108,
        };
        data_bits_per_symbol(nsd, self.constellation(), self.streams(), self.code_rate())
    }
    /// Data rate in bit/s.
    pub fn rate_bps(self, width: HtWidth, gi: GuardInterval) -> f64 {
        let tsym_ns = match gi {
            GuardInterval::Long => 4000.0,
            GuardInterval::Short => 3600.0,
        };
        f64::from(self.ndbps(width)) * 1e9 / tsym_ns
    }
    /// The non-HT reference rate of the MCS in units of 100 kbit/s: the
    /// legacy OFDM rate of the same constellation and code rate (64-QAM
    /// 5/6 has none and maps to 54 Mbit/s), which the control-response
    /// rate rule compares with the basic rates (10.6.6.5.2).
    pub fn non_ht_reference(self) -> u32 {
        non_ht_reference(self.constellation(), self.code_rate())
    }
    /// Number of BCC encoders (N_ES): one per started 300 Mbit/s of the
    /// long-GI rate.
    pub fn encoders(self, width: HtWidth) -> u32 {
        let long = self.ndbps(width) as f64 / 4.0; // Mbit/s
        (long / 300.0).ceil().max(1.0) as u32
    }
}

/// The non-HT reference rate (100 kbit/s units) of an HT, VHT or HE MCS of
/// constellation `c` and code rate `r` (10.6.6.5.2, Table 10-10 and its
/// VHT and HE rows): the legacy OFDM rate of the same modulation and code
/// rate; 64-QAM 5/6, 256-QAM and 1024-QAM have none and map to 54 Mbit/s.
pub fn non_ht_reference(c: Constellation, r: (u32, u32)) -> u32 {
    match (c, r) {
        (Constellation::Bpsk, (1, 2)) => 60,
        (Constellation::Bpsk, _) => 90,
        (Constellation::Qpsk, (1, 2)) => 120,
        (Constellation::Qpsk, _) => 180,
        (Constellation::Qam16, (1, 2)) => 240,
        (Constellation::Qam16, _) => 360,
        (Constellation::Qam64, (2, 3)) => 480,
        (Constellation::Qam64, _) => 540,
        (Constellation::Qam256 | Constellation::Qam1024, _) => 540,
    }
}

impl HtTxVector {
    /// HT-LTFs in the preamble (Table 19-13, no STBC, no extension LTFs).
    pub fn ltfs(self) -> u32 {
        match self.mcs.streams() {
            1 => 1,
            2 => 2,
            _ => 4,
        }
    }
    /// Duration of the preamble and signal fields before the data symbols:
    /// L-STF, L-LTF, L-SIG, HT-SIG, HT-STF and the HT-LTFs.
    pub fn preamble(self) -> SimDur {
        SimDur::from_micros(u64::from(16 + 4 + 8 + 4 + 4 * self.ltfs()))
    }
    /// Data symbols for a PSDU of `bytes` octets (N_SYM).
    pub fn symbols(self, bytes: u32) -> u64 {
        let bits = 8 * u64::from(bytes) + 16 + 6 * u64::from(self.mcs.encoders(self.width));
        bits.div_ceil(u64::from(self.mcs.ndbps(self.width)))
    }
    /// TXTIME of an HT-mixed PPDU carrying a PSDU of `bytes` octets.
    pub fn txtime(self, bytes: u32) -> SimDur {
        let nsym = self.symbols(bytes);
        let data_ns = match self.gi {
            GuardInterval::Long => 4000 * nsym,
            // T_SYM x ceil(T_SYMS x N_SYM / T_SYM) = 4 us x ceil(0.9 N_SYM).
            GuardInterval::Short => 4000 * (9 * nsym).div_ceil(10),
        };
        let ext = match self.band {
            Band::Ghz2_4 => 6000,
            Band::Ghz5 => 0,
        };
        self.preamble() + SimDur::from_nanos(data_ns + ext)
    }
}

/// Octets of an A-MPDU made of MPDUs of the given lengths: a delimiter
/// before each, a pad to 4 octets after each but the last.
pub fn ampdu_bytes(mpdus: &[u32]) -> u32 {
    let n = mpdus.len();
    mpdus.iter().enumerate().map(|(i, &m)| subframe_bytes(m, i + 1 == n)).sum()
}

/// Octets of one A-MPDU subframe carrying an MPDU of `mpdu` octets.
pub fn subframe_bytes(mpdu: u32, last: bool) -> u32 {
    let s = DELIMITER_BYTES + mpdu;
    if last {
        s
    } else {
        s.next_multiple_of(4)
    }
}

/// Maximum A-MPDU length for the Maximum A-MPDU Length Exponent `e`
/// (0-3), in octets.
pub fn max_ampdu_bytes(e: u8) -> Option<u32> {
    (e <= 3).then(|| (1u32 << (13 + e)) - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(mcs: u8, width: HtWidth, gi: GuardInterval) -> HtTxVector {
        HtTxVector { mcs: HtMcs::new(mcs).unwrap(), width, gi, band: Band::Ghz5 }
    }

    #[test]
    fn rates_match_the_standard_tables() {
        use GuardInterval::*;
        use HtWidth::*;
        // (MCS, width, GI, Mbit/s) from Tables 19-27 to 19-34.
        let rows = [
            (0, Mhz20, Long, 6.5),
            (7, Mhz20, Long, 65.0),
            (7, Mhz20, Short, 72.2),
            (7, Mhz40, Long, 135.0),
            (7, Mhz40, Short, 150.0),
            (15, Mhz20, Long, 130.0),
            (15, Mhz40, Short, 300.0),
            (23, Mhz40, Long, 405.0),
            (31, Mhz40, Short, 600.0),
            (12, Mhz20, Long, 78.0),
        ];
        for (m, w, g, mbps) in rows {
            let r = HtMcs::new(m).unwrap().rate_bps(w, g) / 1e6;
            assert!((r - mbps).abs() < 0.05, "MCS {m} {w:?} {g:?}: {r} vs {mbps}");
        }
        assert!(HtMcs::new(32).is_none());
    }

    #[test]
    fn non_ht_reference_rates() {
        let r = |m: u8| HtMcs::new(m).unwrap().non_ht_reference();
        assert_eq!([r(0), r(1), r(2), r(3), r(4), r(5), r(6), r(7)], [60, 120, 180, 240, 360, 480, 540, 540]);
        assert_eq!(r(15), 540);
        assert_eq!(r(8), 60);
    }

    #[test]
    fn encoders_follow_the_tables() {
        // One encoder per started 300 Mbit/s of the long-GI rate: two from
        // 324 Mbit/s (MCS 21 and 29 at 40 MHz); ns-3's table agrees for
        // every MCS (tests/ht_txtime.rs).
        let e = |m: u8, w| HtMcs::new(m).unwrap().encoders(w);
        assert_eq!(e(7, HtWidth::Mhz40), 1);
        assert_eq!(e(15, HtWidth::Mhz40), 1);
        assert_eq!(e(21, HtWidth::Mhz40), 2);
        assert_eq!(e(20, HtWidth::Mhz40), 1);
        assert_eq!(e(31, HtWidth::Mhz40), 2);
        assert_eq!(e(31, HtWidth::Mhz20), 1);
    }

    #[test]
    fn txtime_by_hand() {
        // MCS 7, 20 MHz, long GI, 1500-octet PSDU: N_DBPS 260,
        // N_SYM = ceil((12000 + 16 + 6) / 260) = 47; 36 us + 188 us.
        let t = v(7, HtWidth::Mhz20, GuardInterval::Long);
        assert_eq!(t.symbols(1500), 47);
        assert_eq!(t.txtime(1500), SimDur::from_micros(36 + 188));
        // Short GI: 4 x ceil(0.9 x 47) = 4 x 43 = 172 us.
        let s = v(7, HtWidth::Mhz20, GuardInterval::Short);
        assert_eq!(s.txtime(1500), SimDur::from_micros(36 + 172));
        // Two streams: one more HT-LTF.
        assert_eq!(v(15, HtWidth::Mhz20, GuardInterval::Long).preamble(), SimDur::from_micros(40));
        // 2.4 GHz adds the 6 us signal extension.
        let g = HtTxVector { band: Band::Ghz2_4, ..t };
        assert_eq!(g.txtime(1500), t.txtime(1500) + SimDur::from_micros(6));
    }

    #[test]
    fn ampdu_subframes_are_padded_but_the_last() {
        assert_eq!(subframe_bytes(1538, false), 1544);
        assert_eq!(subframe_bytes(1538, true), 1542);
        assert_eq!(ampdu_bytes(&[1538, 1538]), 1544 + 1542);
        assert_eq!(ampdu_bytes(&[]), 0);
        assert_eq!(max_ampdu_bytes(3), Some(65_535));
        assert_eq!(max_ampdu_bytes(0), Some(8_191));
        assert_eq!(max_ampdu_bytes(4), None);
    }
}
