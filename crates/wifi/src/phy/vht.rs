//! The VHT PHY (802.11ac, IEEE 802.11-2020 clause 21), single user: MCS
//! 0-9 on 20, 40, 80 and 160 MHz channels with 1-4 spatial streams, long
//! and short guard interval, and the airtime of VHT SU PPDUs.
//!
//! Sources (IEEE 802.11-2020):
//! - MCSs (21.5, Tables 21-30 to 21-61): MCS 0-9 are BPSK 1/2, QPSK 1/2,
//!   QPSK 3/4, 16-QAM 1/2, 16-QAM 3/4, 64-QAM 2/3, 64-QAM 3/4, 64-QAM 5/6,
//!   256-QAM 3/4, 256-QAM 5/6 on every stream. N_SD = 52, 108, 234, 468
//!   data subcarriers at 20, 40, 80, 160 MHz (Table 21-5); N_DBPS = N_SD x
//!   N_BPSCS x R x N_SS.
//! - Combinations the tables leave out (N_DBPS or N_DBPS / N_ES not an
//!   integer, 21.5): MCS 9 at 20 MHz with 1, 2 or 4 streams, MCS 6 at 80
//!   MHz with 3 streams, MCS 9 at 160 MHz with 3 streams. They are refused
//!   with that reason ([`VhtTxVector::new`]).
//! - N_ES, the BCC encoders: one per started 600 Mbit/s of the short-GI
//!   data rate (the N_ES columns of Tables 21-30 to 21-61 follow this for
//!   1-4 streams; checked against ns-3's table by `vht_he_txtime_matches_ns3`).
//!   LDPC (no tail bits, possibly an extra symbol, 21.3.10.5.4) is not
//!   modelled: every PPDU is timed as BCC-coded.
//! - TXTIME of a VHT SU PPDU (21.4.3, eq. 21-107): T_LEG_PREAMBLE (L-STF 8
//!   us, L-LTF 8 us) + T_L-SIG 4 + T_VHT-SIG-A 8 + T_VHT-STF 4 + N_VHTLTF x
//!   T_VHT-LTF 4 + T_VHT-SIG-B 4, then N_SYM data symbols, N_SYM =
//!   ceil((8 L + 16 + 6 N_ES) / N_DBPS) (eq. 21-109, no STBC); with the
//!   short GI the data field lasts T_SYML x ceil(T_SYMS x N_SYM / T_SYML),
//!   T_SYML 4 us and T_SYMS 3.6 us, as for HT. N_VHTLTF = 1, 2, 4, 4 for
//!   1-4 streams (Table 21-13). VHT is a 5 GHz PHY: no signal extension.
//! - ns-3 3.37 differs in two places, both tested in `tests/vht_he_txtime.rs`:
//!   it counts VHT-SIG-B only for VHT MU PPDUs (the standard sends it in
//!   SU PPDUs too, 21.3.8.3.6), so its SU PPDUs are 4 us shorter; and, as
//!   for HT, it takes N_SYM x 3.6 us for the short-GI data field.
//! - Every VHT PPDU carries an A-MPDU, a single MPDU as a VHT single MPDU
//!   (S-MPDU, 10.12.8, 21.3.2: the PSDU is an A-MPDU); the maximum A-MPDU
//!   length is 2^(13 + e) - 1 octets for the Maximum A-MPDU Length Exponent
//!   e = 0..7 of the VHT Capabilities element (9.4.2.157.2), 1,048,575 at
//!   e = 7; a VHT PPDU lasts at most aPPDUMaxTime = 5.484 ms (Table 21-28).
use super::ht::{Constellation, GuardInterval};
use super::ppdu::ChannelWidth;
use wifitcp_core::SimDur;

/// Largest Maximum A-MPDU Length of a VHT STA (exponent 7, 9.4.2.157.2).
pub const MAX_AMPDU_BYTES: u32 = (1 << 20) - 1;

/// A VHT MCS, 0-9 (the same on every stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VhtMcs(u8);

impl VhtMcs {
    /// MCS `i` if it is one of 0-9.
    pub fn new(i: u8) -> Option<VhtMcs> {
        (i < 10).then_some(VhtMcs(i))
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
            _ => Constellation::Qam256,
        }
    }
    /// Code rate as (numerator, denominator).
    pub fn code_rate(self) -> (u32, u32) {
        match self.0 {
            0 | 1 | 3 => (1, 2),
            5 => (2, 3),
            7 | 9 => (5, 6),
            _ => (3, 4),
        }
    }
}

/// Data subcarriers (N_SD) of a VHT PPDU (Table 21-5).
pub fn data_subcarriers(width: ChannelWidth) -> u32 {
    match width {
        ChannelWidth::Mhz20 => 52,
        ChannelWidth::Mhz40 => 108,
        ChannelWidth::Mhz80 => 234,
        ChannelWidth::Mhz160 => 468,
    }
}

/// A VHT SU transmission vector: what decides a PPDU's airtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VhtTxVector {
    mcs: VhtMcs,
    nss: u8,
    width: ChannelWidth,
    gi: GuardInterval,
}

impl VhtTxVector {
    /// The vector of `mcs` with `nss` streams on `width`, or why the
    /// standard has no such combination.
    pub fn new(mcs: u8, nss: u8, width: ChannelWidth, gi: GuardInterval) -> Result<VhtTxVector, String> {
        let m = VhtMcs::new(mcs).ok_or_else(|| format!("{mcs} is not a VHT MCS (0-9)"))?;
        if !(1..=4).contains(&nss) {
            return Err(format!("VHT is modelled with 1 to 4 spatial streams, got {nss}"));
        }
        let excluded = matches!(
            (width, mcs, nss),
            (ChannelWidth::Mhz20, 9, 1 | 2 | 4) | (ChannelWidth::Mhz80, 6, 3) | (ChannelWidth::Mhz160, 9, 3)
        );
        if excluded {
            return Err(format!(
                "VHT MCS {mcs} with {nss} spatial stream(s) at {} MHz is not a valid combination (21.5: N_DBPS or N_DBPS / N_ES is not an integer)",
                width.mhz()
            ));
        }
        Ok(VhtTxVector { mcs: m, nss, width, gi })
    }
    pub fn mcs(self) -> VhtMcs {
        self.mcs
    }
    pub fn streams(self) -> u32 {
        u32::from(self.nss)
    }
    pub fn width(self) -> ChannelWidth {
        self.width
    }
    pub fn gi(self) -> GuardInterval {
        self.gi
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
    /// Data rate in bit/s.
    pub fn rate_bps(self) -> f64 {
        let tsym_ns = match self.gi {
            GuardInterval::Long => 4000.0,
            GuardInterval::Short => 3600.0,
        };
        f64::from(self.ndbps()) * 1e9 / tsym_ns
    }
    /// BCC encoders (N_ES): one per started 600 Mbit/s of the short-GI rate.
    pub fn encoders(self) -> u32 {
        // Short-GI rate in Mbit/s = N_DBPS / 3.6 us; compared in integers.
        (u64::from(self.ndbps()) * 10).div_ceil(36 * 600).max(1) as u32
    }
    /// VHT-LTFs in the preamble (Table 21-13, no STBC).
    pub fn ltfs(self) -> u32 {
        match self.nss {
            1 => 1,
            2 => 2,
            _ => 4,
        }
    }
    /// L-STF, L-LTF, L-SIG, VHT-SIG-A, VHT-STF, the VHT-LTFs and VHT-SIG-B.
    pub fn preamble(self) -> SimDur {
        SimDur::from_micros(u64::from(8 + 8 + 4 + 8 + 4 + 4 * self.ltfs() + 4))
    }
    /// Data symbols for a PSDU of `bytes` octets (N_SYM).
    pub fn symbols(self, bytes: u32) -> u64 {
        let bits = 8 * u64::from(bytes) + 16 + 6 * u64::from(self.encoders());
        bits.div_ceil(u64::from(self.ndbps()))
    }
    /// TXTIME of a VHT SU PPDU carrying a PSDU of `bytes` octets.
    pub fn txtime(self, bytes: u32) -> SimDur {
        let nsym = self.symbols(bytes);
        let data_ns = match self.gi {
            GuardInterval::Long => 4000 * nsym,
            GuardInterval::Short => 4000 * (9 * nsym).div_ceil(10),
        };
        self.preamble() + SimDur::from_nanos(data_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ChannelWidth::*;
    use GuardInterval::*;

    fn v(mcs: u8, nss: u8, w: ChannelWidth, gi: GuardInterval) -> VhtTxVector {
        VhtTxVector::new(mcs, nss, w, gi).unwrap()
    }

    #[test]
    fn rates_match_the_standard_tables() {
        // (MCS, streams, width, GI, Mbit/s) from Tables 21-30 to 21-61.
        let rows = [
            (0, 1, Mhz20, Long, 6.5),
            (8, 1, Mhz20, Long, 78.0),
            (9, 3, Mhz20, Short, 288.9),
            (9, 1, Mhz40, Long, 180.0),
            (9, 1, Mhz80, Long, 390.0),
            (9, 1, Mhz80, Short, 433.3),
            (9, 2, Mhz80, Short, 866.7),
            (7, 4, Mhz80, Long, 1170.0),
            (9, 4, Mhz160, Short, 3466.7),
            (0, 1, Mhz160, Long, 58.5),
        ];
        for (m, n, w, g, mbps) in rows {
            let r = v(m, n, w, g).rate_bps() / 1e6;
            assert!((r - mbps).abs() < 0.05, "MCS {m} x{n} {w:?} {g:?}: {r} vs {mbps}");
        }
    }

    #[test]
    fn invalid_combinations_are_refused_with_a_reason() {
        for (m, n, w) in [(9, 1, Mhz20), (9, 2, Mhz20), (9, 4, Mhz20), (6, 3, Mhz80), (9, 3, Mhz160)] {
            let e = VhtTxVector::new(m, n, w, Long).unwrap_err();
            assert!(e.contains("not a valid combination") && e.contains("21.5"), "{e}");
        }
        assert!(VhtTxVector::new(9, 3, Mhz20, Long).is_ok());
        assert!(VhtTxVector::new(10, 1, Mhz20, Long).unwrap_err().contains("not a VHT MCS"));
        assert!(VhtTxVector::new(0, 5, Mhz20, Long).unwrap_err().contains("1 to 4"));
        // Every other combination has integer N_DBPS and N_DBPS / N_ES.
        for m in 0..10 {
            for n in 1..=4 {
                for w in [Mhz20, Mhz40, Mhz80, Mhz160] {
                    if let Ok(t) = VhtTxVector::new(m, n, w, Long) {
                        let (num, den) = t.mcs().code_rate();
                        let ncbps = data_subcarriers(w) * t.mcs().constellation().bits() * u32::from(n);
                        assert_eq!(ncbps * num % den, 0, "MCS {m} x{n} {w:?}");
                        assert_eq!(t.ndbps() % t.encoders(), 0, "MCS {m} x{n} {w:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn encoders() {
        // 80 MHz MCS 9: one encoder for 433.3 Mbit/s (1 stream), two for
        // 866.7 (2 streams); 160 MHz 4 streams MCS 9 (3466.7): six.
        assert_eq!(v(9, 1, Mhz80, Short).encoders(), 1);
        assert_eq!(v(9, 2, Mhz80, Short).encoders(), 2);
        assert_eq!(v(7, 2, Mhz80, Long).encoders(), 2);
        assert_eq!(v(9, 4, Mhz160, Long).encoders(), 6);
    }

    #[test]
    fn txtime_by_hand() {
        // 80 MHz, MCS 9, 2 streams, short GI, 1500-octet MPDU as a VHT
        // single MPDU (4-octet delimiter: PSDU 1504): N_DBPS = 234 x 8 x 2
        // x 5/6 = 3120, N_ES = 2, N_SYM = ceil((12032 + 16 + 12) / 3120)
        // = 4; preamble 8 + 8 + 4 + 8 + 4 + 2 x 4 + 4 = 44 us; data 4 x
        // ceil(0.9 x 4) = 16 us.
        let t = v(9, 2, Mhz80, Short);
        assert_eq!(t.ndbps(), 3120);
        assert_eq!(t.symbols(1504), 4);
        assert_eq!(t.preamble(), SimDur::from_micros(44));
        assert_eq!(t.txtime(1504), SimDur::from_micros(60));
        // Long GI: 44 + 4 x 4 = 60 us too; 12 symbols (20000 octets):
        // 44 + 48 long, 44 + 4 x ceil(10.8) = 88 short.
        assert_eq!(v(9, 2, Mhz80, Long).txtime(1504), SimDur::from_micros(60));
        assert_eq!(t.symbols(4663), 12);
        assert_eq!(t.txtime(4663), SimDur::from_micros(44 + 44));
        // 20 MHz MCS 0, 1 stream, 14 octets: ceil((112 + 22) / 26) = 6.
        assert_eq!(v(0, 1, Mhz20, Long).txtime(14), SimDur::from_micros(40 + 24));
    }
}
