//! The HE PHY (802.11ax, IEEE 802.11ax-2021 clause 27), single user: MCS
//! 0-11 on 20, 40, 80 and 160 MHz with 1-4 spatial streams, the 0.8, 1.6
//! and 3.2 us guard intervals, and the airtime of HE SU and HE extended
//! range SU PPDUs in the 5 and 6 GHz bands.
//!
//! Sources (IEEE 802.11ax-2021):
//! - MCSs (27.5, Tables 27-55 to 27-110): MCS 0-9 as VHT's, MCS 10 and 11
//!   are 1024-QAM 3/4 and 5/6. A full-band SU PPDU uses the 242-, 484-,
//!   996- or 2x996-tone RU with N_SD = 234, 468, 980, 1960 data
//!   subcarriers at 20, 40, 80, 160 MHz (Table 27-12); N_CBPS = N_SD x
//!   N_BPSCS x N_SS, N_DBPS = floor(N_CBPS x R) (the tables' values, e.g.
//!   8166 for MCS 11 on one stream at 80 MHz).
//! - Data symbols of 12.8 us plus the guard interval: 13.6, 14.4 or 16 us
//!   (Table 27-12).
//! - HE-LTF: the mandatory HE SU combinations of HE-LTF size and GI
//!   (27.3.11.10, 27.1.1): 2x HE-LTF (6.4 us) with the 0.8 or 1.6 us GI,
//!   4x HE-LTF (12.8 us) with the 3.2 us GI, the LTF symbol carrying the
//!   data field's GI: 7.2, 8.0 or 16.0 us. N_HE-LTF = 1, 2, 4, 4 for 1-4
//!   streams (Table 27-14). The optional 1x and 4x-with-0.8 us forms are
//!   not modelled.
//! - TXTIME (27.4.3, eq. 27-135): L-STF 8 + L-LTF 8 + L-SIG 4 + RL-SIG 4 +
//!   HE-SIG-A 8 (16 in the HE ER SU PPDU, whose HE-SIG-A is repeated,
//!   27.3.11.7) + HE-STF 4 + N_HE-LTF x T_HE-LTF, then N_SYM data symbols
//!   and the packet extension T_PE (0, 4, 8, 12 or 16 us, 27.3.13);
//!   no signal extension at 5 and 6 GHz. N_SYM = ceil((8 L + 16 + 6) /
//!   N_DBPS): the BCC form with one encoder (27.3.12.5.1), where the
//!   pre-FEC padding (27.3.12) gives the same count. Deviation: wider RUs,
//!   MCS 10-11 and more than 4 streams need LDPC, which has no tail bits and
//!   may add one symbol (the LDPC extra symbol segment, 27.3.12.5.2);
//!   every PPDU is timed here as BCC (as ns-3 3.37 does), at most one
//!   symbol off.
//! - HE ER SU PPDU (27.3.4): 20 MHz, one stream, MCS 0-2, on the 242-tone
//!   RU (the 106-tone RU option for MCS 0 is not modelled).
//! - ns-3 3.37 takes every HE-LTF as 8 us whatever the GI (a 2x HE-LTF with
//!   the 1.6 us GI): with the 0.8 us GI its PPDUs are 0.8 us shorter per
//!   HE-LTF than here, with the 3.2 us GI 8 us longer per HE-LTF; and it
//!   divides by the fractional N_CBPS x R where the tables floor it (MCS 9
//!   and 11 at 80 and 160 MHz), one symbol fewer for some very long PSDUs;
//!   tested in `tests/vht_he_txtime.rs`.
//! - A-MPDU: every HE PPDU carries an A-MPDU (a single MPDU as an S-MPDU);
//!   the Maximum A-MPDU Length is 2^(20 + e) - 1 octets for the HE
//!   Capabilities' Maximum A-MPDU Length Exponent Extension e = 0..3
//!   (9.4.2.248.2), 8,388,607 at most; aPPDUMaxTime 5.484 ms (Table
//!   27-51); BlockAck agreements up to 256 MPDUs (10.25.2), acknowledged
//!   by a compressed BlockAck with a 256-bit bitmap (9.3.1.8.2, 24 octets
//!   longer than the 64-bit one).
use super::ht::Constellation;
use super::ppdu::ChannelWidth;
use wifitcp_core::SimDur;

/// Largest Maximum A-MPDU Length of an HE STA (9.4.2.248.2).
pub const MAX_AMPDU_BYTES: u32 = (1 << 23) - 1;
/// Largest BlockAck buffer size of an HE agreement (10.25.2).
pub const MAX_BA_WINDOW: u16 = 256;

/// An HE MCS, 0-11.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HeMcs(u8);

impl HeMcs {
    /// MCS `i` if it is one of 0-11.
    pub fn new(i: u8) -> Option<HeMcs> {
        (i < 12).then_some(HeMcs(i))
    }
    pub fn index(self) -> u8 {
        self.0
    }
    pub fn constellation(self) -> Constellation {
        match self.0 {
            0 => Constellation::Bpsk,
            1 | 2 => Constellation::Qpsk,
            3 | 4 => Constellation::Qam16,
            5..=7 => Constellation::Qam64,
            8 | 9 => Constellation::Qam256,
            _ => Constellation::Qam1024,
        }
    }
    /// Code rate as (numerator, denominator).
    pub fn code_rate(self) -> (u32, u32) {
        match self.0 {
            0 | 1 | 3 => (1, 2),
            5 => (2, 3),
            7 | 9 | 11 => (5, 6),
            _ => (3, 4),
        }
    }
}

/// Guard interval of HE data symbols (27.3.11.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeGi {
    Ns800,
    Ns1600,
    Ns3200,
}

impl HeGi {
    pub fn nanos(self) -> u64 {
        match self {
            HeGi::Ns800 => 800,
            HeGi::Ns1600 => 1600,
            HeGi::Ns3200 => 3200,
        }
    }
    /// One OFDM symbol of the data field with this GI: 12.8 us plus the GI.
    pub fn symbol_nanos(self) -> u64 {
        12_800 + self.nanos()
    }
    /// The GI of the HE TB PPDUs that an AP using this GI solicits: a
    /// Trigger frame's GI And HE-LTF Type subfield offers 1.6 us (with a
    /// 1x or 2x HE-LTF) and 3.2 us (4x HE-LTF) only (802.11ax-2021
    /// 9.3.1.22.1; 27.3.11.10 lists no 0.8 us GI for the HE TB PPDU), so
    /// a BSS on 0.8 us asks for 1.6 us with the 2x HE-LTF, as ns-3 3.37's
    /// Trigger frames do.
    pub fn for_tb(self) -> HeGi {
        match self {
            HeGi::Ns800 => HeGi::Ns1600,
            g => g,
        }
    }
    /// One HE-LTF symbol with this GI (module docs): 2x HE-LTF for 0.8
    /// and 1.6 us, 4x HE-LTF for 3.2 us.
    pub fn ltf_nanos(self) -> u64 {
        match self {
            HeGi::Ns800 | HeGi::Ns1600 => 6400 + self.nanos(),
            HeGi::Ns3200 => 12_800 + self.nanos(),
        }
    }
}

/// The band of an HE BSS (decides the legacy PHY of control frames; no
/// signal extension in either).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeBand {
    Ghz5,
    Ghz6,
}

/// The HE PPDU format (27.3.4). The multi-user formats (HE MU PPDU with its
/// HE-SIG-B, HE TB PPDU with its trigger-set RU) are not modelled; they
/// would be variants here, each with its own RU allocation and preamble.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeFormat {
    /// HE SU PPDU.
    Su,
    /// HE extended range SU PPDU.
    ErSu,
}

/// Data subcarriers (N_SD) of the full-band RU of `width` (Table 27-12).
pub fn data_subcarriers(width: ChannelWidth) -> u32 {
    match width {
        ChannelWidth::Mhz20 => 234,
        ChannelWidth::Mhz40 => 468,
        ChannelWidth::Mhz80 => 980,
        ChannelWidth::Mhz160 => 1960,
    }
}

/// An HE single-user transmission vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HeTxVector {
    format: HeFormat,
    mcs: HeMcs,
    nss: u8,
    width: ChannelWidth,
    gi: HeGi,
    band: HeBand,
    /// Packet extension, 0-16 us in steps of 4 (27.3.13).
    pe_us: u8,
}

impl HeTxVector {
    /// The vector, or why 802.11ax has no such PPDU.
    pub fn new(
        format: HeFormat,
        mcs: u8,
        nss: u8,
        width: ChannelWidth,
        gi: HeGi,
        band: HeBand,
        pe_us: u8,
    ) -> Result<HeTxVector, String> {
        let m = HeMcs::new(mcs).ok_or_else(|| format!("{mcs} is not an HE MCS (0-11)"))?;
        if !(1..=4).contains(&nss) {
            return Err(format!("HE is modelled with 1 to 4 spatial streams, got {nss}"));
        }
        if format == HeFormat::ErSu && (mcs > 2 || nss != 1 || width != ChannelWidth::Mhz20) {
            return Err(format!(
                "an HE ER SU PPDU is 20 MHz, one spatial stream, MCS 0-2 (27.3.4), got MCS {mcs}, {nss} stream(s), {} MHz",
                width.mhz()
            ));
        }
        if pe_us > 16 || !pe_us.is_multiple_of(4) {
            return Err(format!("the packet extension is 0, 4, 8, 12 or 16 us (27.3.13), got {pe_us}"));
        }
        Ok(HeTxVector { format, mcs: m, nss, width, gi, band, pe_us })
    }
    pub fn format(self) -> HeFormat {
        self.format
    }
    pub fn mcs(self) -> HeMcs {
        self.mcs
    }
    pub fn streams(self) -> u32 {
        u32::from(self.nss)
    }
    pub fn width(self) -> ChannelWidth {
        self.width
    }
    pub fn gi(self) -> HeGi {
        self.gi
    }
    pub fn band(self) -> HeBand {
        self.band
    }
    /// Packet extension (us).
    pub fn pe_us(self) -> u8 {
        self.pe_us
    }
    /// Data bits per OFDM symbol over all streams (N_DBPS).
    pub fn ndbps(self) -> u32 {
        super::ht::data_bits_per_symbol(
            data_subcarriers(self.width),
            self.mcs.constellation(),
            self.streams(),
            self.mcs.code_rate(),
        )
    }
    /// Symbol time in ns: 12.8 us plus the GI.
    pub fn symbol_nanos(self) -> u64 {
        self.gi.symbol_nanos()
    }
    /// Data rate in bit/s.
    pub fn rate_bps(self) -> f64 {
        f64::from(self.ndbps()) * 1e9 / self.symbol_nanos() as f64
    }
    /// HE-LTFs in the preamble (Table 27-14).
    pub fn ltfs(self) -> u32 {
        match self.nss {
            1 => 1,
            2 => 2,
            _ => 4,
        }
    }
    /// L-STF, L-LTF, L-SIG, RL-SIG, HE-SIG-A, HE-STF and the HE-LTFs.
    pub fn preamble(self) -> SimDur {
        let sig_a = match self.format {
            HeFormat::Su => 8_000,
            HeFormat::ErSu => 16_000,
        };
        SimDur::from_nanos(8_000 + 8_000 + 4_000 + 4_000 + sig_a + 4_000 + u64::from(self.ltfs()) * self.gi.ltf_nanos())
    }
    /// Data symbols for a PSDU of `bytes` octets (N_SYM).
    pub fn symbols(self, bytes: u32) -> u64 {
        (8 * u64::from(bytes) + 16 + 6).div_ceil(u64::from(self.ndbps()))
    }
    /// TXTIME of the PPDU carrying a PSDU of `bytes` octets.
    pub fn txtime(self, bytes: u32) -> SimDur {
        let data = self.symbols(bytes) * self.symbol_nanos();
        self.preamble() + SimDur::from_nanos(data + 1000 * u64::from(self.pe_us))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ChannelWidth::*;

    fn su(mcs: u8, nss: u8, w: ChannelWidth, gi: HeGi) -> HeTxVector {
        HeTxVector::new(HeFormat::Su, mcs, nss, w, gi, HeBand::Ghz5, 0).unwrap()
    }

    #[test]
    fn rates_match_the_standard_tables() {
        // (MCS, streams, width, GI, Mbit/s) from Tables 27-55 to 27-110.
        let rows = [
            (0, 1, Mhz20, HeGi::Ns800, 8.6),
            (11, 1, Mhz20, HeGi::Ns800, 143.4),
            (11, 1, Mhz20, HeGi::Ns3200, 121.9),
            (11, 1, Mhz80, HeGi::Ns800, 600.5),
            (11, 2, Mhz80, HeGi::Ns800, 1201.0),
            (11, 2, Mhz80, HeGi::Ns1600, 1134.3),
            (11, 1, Mhz40, HeGi::Ns800, 286.8),
            (9, 1, Mhz40, HeGi::Ns800, 229.4),
            (11, 4, Mhz160, HeGi::Ns800, 4803.9),
        ];
        for (m, n, w, g, mbps) in rows {
            let r = su(m, n, w, g).rate_bps() / 1e6;
            assert!((r - mbps).abs() < 0.1, "MCS {m} x{n} {w:?} {g:?}: {r} vs {mbps}");
        }
        assert_eq!(su(11, 1, Mhz80, HeGi::Ns800).ndbps(), 8166);
    }

    #[test]
    fn bad_vectors_are_refused_with_a_reason() {
        let e = |f, m, n, w, pe| HeTxVector::new(f, m, n, w, HeGi::Ns800, HeBand::Ghz5, pe).unwrap_err();
        assert!(e(HeFormat::Su, 12, 1, Mhz20, 0).contains("not an HE MCS"));
        assert!(e(HeFormat::ErSu, 3, 1, Mhz20, 0).contains("HE ER SU"));
        assert!(e(HeFormat::ErSu, 0, 1, Mhz40, 0).contains("HE ER SU"));
        assert!(e(HeFormat::Su, 0, 1, Mhz20, 6).contains("packet extension"));
        assert!(e(HeFormat::Su, 0, 5, Mhz20, 0).contains("1 to 4"));
    }

    #[test]
    fn txtime_by_hand() {
        // 80 MHz, MCS 11, 2 streams, 0.8 us GI, 1504-octet PSDU (a
        // 1500-octet MPDU as an S-MPDU): N_DBPS = floor(980 x 10 x 2 x
        // 5/6) = 16333, N_SYM = ceil((12032 + 22) / 16333) = 1 of 13.6 us;
        // preamble 8 + 8 + 4 + 4 + 8 + 4 + 2 x 7.2 = 50.4 us.
        let t = su(11, 2, Mhz80, HeGi::Ns800);
        assert_eq!(t.ndbps(), 16_333);
        assert_eq!(t.symbols(1504), 1);
        assert_eq!(t.txtime(1504), SimDur::from_nanos(50_400 + 13_600));
        // 3.2 us GI: 4x HE-LTFs of 16 us, symbols of 16 us: 36 + 32 + 16.
        assert_eq!(su(11, 2, Mhz80, HeGi::Ns3200).txtime(1504), SimDur::from_micros(84));
        // 20000 octets: ceil(160022 / 16333) = 10 symbols.
        assert_eq!(t.txtime(20_000), SimDur::from_nanos(50_400 + 136_000));
        // A 16 us packet extension adds 16 us.
        let pe = HeTxVector::new(HeFormat::Su, 11, 2, Mhz80, HeGi::Ns800, HeBand::Ghz6, 16).unwrap();
        assert_eq!(pe.txtime(1504), t.txtime(1504) + SimDur::from_micros(16));
    }

    #[test]
    fn er_su_txtime_by_hand() {
        // HE ER SU, MCS 0, 1.6 us GI, 1500 octets: N_DBPS 117, N_SYM =
        // ceil(12022 / 117) = 103 of 14.4 us = 1483.2 us; preamble 8 + 8 +
        // 4 + 4 + 16 (repeated HE-SIG-A) + 4 + 8 (one 2x HE-LTF with 1.6 us)
        // = 52 us.
        let er = HeTxVector::new(HeFormat::ErSu, 0, 1, Mhz20, HeGi::Ns1600, HeBand::Ghz5, 0).unwrap();
        assert_eq!(er.preamble(), SimDur::from_micros(52));
        assert_eq!(er.txtime(1500), SimDur::from_nanos(52_000 + 1_483_200));
        // The SU PPDU of the same vector is 8 us shorter.
        let s = su(0, 1, Mhz20, HeGi::Ns1600);
        assert_eq!(er.txtime(1500) - s.txtime(1500), SimDur::from_micros(8));
    }
}
