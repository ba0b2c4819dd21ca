//! HE multi-user PPDUs (802.11ax OFDMA, IEEE 802.11ax-2021 clause 27):
//! resource units, their data rates, and the airtime of the HE MU PPDU (the
//! AP's downlink OFDMA PPDU) and of the HE TB PPDU (the stations' uplink
//! reply to a Trigger frame).
//!
//! Sources (IEEE 802.11ax-2021):
//! - Resource units (27.3.2.2, Tables 27-7 to 27-9; N_SD with the tone
//!   allocation constants, Table 27-12): 26-, 52-, 106-, 242-, 484-, 996-
//!   and 2x996-tone RUs with 24, 48, 102, 234, 468, 980 and 1960 data
//!   subcarriers. A 20 MHz channel holds 9 / 4 / 2 / 1 RUs of 26 / 52 /
//!   106 / 242 tones; 40 MHz twice that and one 484; 80 MHz four 20 MHz
//!   subchannels' worth plus the centre 26-tone RU (37 / 16 / 8 / 4 / 2 /
//!   1); 160 MHz two 80 MHz segments and the 2x996.
//!   An RU is named here by its size and its 0-based index in frequency
//!   order over the whole channel (the centre 26-tone RU of an 80 MHz
//!   segment is its 19th 26-tone RU, index 18).
//! - Per-RU rate: N_DBPS = floor(N_SD x N_BPSCS x N_SS x R) with the RU's
//!   N_SD (Tables 27-55 to 27-110, e.g. 26-tone MCS 11 one stream: 200 bits,
//!   14.7 Mbit/s with the 0.8 us GI). DCM (27.3.12.9) is not modelled.
//! - HE-SIG-B (27.3.11.8): one content channel at 20 MHz, two at 40 MHz and
//!   wider (CC1 carries the odd 20 MHz subchannels, 1st, 3rd, ..., CC2 the
//!   even ones; the centre 26-tone RU of the lower 80 MHz in CC1, of the
//!   upper one in CC2). Each content channel: a common field of N x 8 RU
//!   Allocation bits (N = 1, 1, 2, 4 at 20, 40, 80, 160 MHz), a centre-26
//!   bit at 80 and 160 MHz, CRC 4 and tail 6 (Table 27-24); then user
//!   blocks of two 21-bit user fields + CRC 4 + tail 6, the last one with a
//!   single user field when the count is odd (Table 27-26). Both content
//!   channels last as long as the longer: N_SIG-B = ceil(bits / N_DBPS) of
//!   4 us symbols at the HE-SIG-B MCS (0-5 over 52 data subcarriers, as
//!   VHT's 20 MHz MCSs: 26, 52, 78, 104, 156, 208 bits). Model choices:
//!   the HE-SIG-B MCS is the lowest of the users' MCSs, at most 5 (the
//!   standard lets the AP pick it; this is ns-3 3.37's choice); a user of
//!   an RU of 484 tones or more is listed in CC1 (the standard lets the AP
//!   place it in either; ns-3 counts it in both); neither changes N_SIG-B
//!   of any allocation the round-robin scheduler makes. SIG-B compression
//!   (full-band MU-MIMO) and MU-MIMO are not modelled: one user per RU.
//! - HE MU PPDU TXTIME (27.4.3): L-STF 8 + L-LTF 8 + L-SIG 4 + RL-SIG 4 +
//!   HE-SIG-A 8 + 4 N_SIG-B + HE-STF 4 + N_HE-LTF x T_HE-LTF, then the
//!   common N_SYM (the largest user's: every A-MPDU is padded to it,
//!   27.3.12) of 12.8 us + GI, then the packet extension. N_HE-LTF from
//!   the largest stream count of any RU (Table 27-14); T_HE-LTF as in
//!   `phy::he` (2x HE-LTF with 0.8 / 1.6 us, 4x with 3.2 us).
//! - HE TB PPDU (27.3.4, 27.3.11.9): L-STF 8 + L-LTF 8 + L-SIG 4 + RL-SIG 4 +
//!   HE-SIG-A 8 + HE-STF 8 (twice the SU one) + N_HE-LTF x T_HE-LTF, no
//!   HE-SIG-B; N_HE-LTF and the duration are set by the Trigger frame for
//!   every responder. The Trigger's UL Length is L-SIG's LENGTH
//!   = ceil((TXTIME - 20) / 4) x 3 - 3 - m with m = 2 (eq. 27-11; 5 and 6
//!   GHz, no signal extension); a responder's PPDU carries the whole data
//!   symbols that fit in 20 + 4 ceil((LENGTH + 3 + m) / 3) us after its
//!   preamble (the part of the last 4 us that is not a whole symbol is not
//!   sent, as ns-3 3.37 does; the standard fills it with the packet
//!   extension's disambiguity rules, 27.3.13, under 4 us).
//! - N_SYM per user = ceil((8 L + 16 + 6) / N_DBPS), the BCC form with its
//!   LDPC deviation documented in `phy::he` (at most one symbol short).
//! - The 0.8 us GI with a 2x HE-LTF is not one of the HE TB PPDU's
//!   combinations (27.3.11.10 allows 1.6 us with 2x, 3.2 us with 4x). These
//!   formulas accept any GI, as ns-3 3.37's PHY does (its TXTIME is
//!   compared case by case); the MAC asks for the GI a Trigger frame can
//!   name (`HeGi::for_tb`: 1.6 us in a BSS on 0.8 us).
//! - ns-3 3.37 differs from these formulas only as it does for HE SU
//!   (`phy::he`): every HE-LTF 8 us, and the fractional N_DBPS for the 996-
//!   and 2x996-tone RUs at MCS 9 and 11; and it lists the user of a
//!   2x996-tone RU twice in each HE-SIG-B content channel, where the
//!   standard lists one user field once (tested in `tests/he_mu_txtime.rs`).
use super::he::{HeGi, HeMcs};
use super::ppdu::ChannelWidth;
use wifitcp_core::SimDur;

/// Size of a resource unit (27.3.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RuSize {
    Tones26,
    Tones52,
    Tones106,
    Tones242,
    Tones484,
    Tones996,
    Tones2x996,
}

impl RuSize {
    /// Every size, smallest first.
    pub const ALL: [RuSize; 7] = [
        RuSize::Tones26,
        RuSize::Tones52,
        RuSize::Tones106,
        RuSize::Tones242,
        RuSize::Tones484,
        RuSize::Tones996,
        RuSize::Tones2x996,
    ];
    /// The size with this many tones (2x996 is 1992).
    pub fn from_tones(t: u32) -> Option<RuSize> {
        RuSize::ALL.into_iter().find(|s| s.tones() == t)
    }
    pub fn tones(self) -> u32 {
        match self {
            RuSize::Tones26 => 26,
            RuSize::Tones52 => 52,
            RuSize::Tones106 => 106,
            RuSize::Tones242 => 242,
            RuSize::Tones484 => 484,
            RuSize::Tones996 => 996,
            RuSize::Tones2x996 => 1992,
        }
    }
    /// Data subcarriers N_SD.
    pub fn data_subcarriers(self) -> u32 {
        match self {
            RuSize::Tones26 => 24,
            RuSize::Tones52 => 48,
            RuSize::Tones106 => 102,
            RuSize::Tones242 => 234,
            RuSize::Tones484 => 468,
            RuSize::Tones996 => 980,
            RuSize::Tones2x996 => 1960,
        }
    }
    /// RUs of this size in one 80 MHz segment (or the 160 MHz channel for
    /// 2x996).
    fn per_80(self) -> u32 {
        match self {
            RuSize::Tones26 => 37,
            RuSize::Tones52 => 16,
            RuSize::Tones106 => 8,
            RuSize::Tones242 => 4,
            RuSize::Tones484 => 2,
            RuSize::Tones996 => 1,
            RuSize::Tones2x996 => 0,
        }
    }
    /// RUs of this size in a channel of `width` (0: does not fit).
    pub fn count(self, width: ChannelWidth) -> u32 {
        match (width, self) {
            (ChannelWidth::Mhz160, RuSize::Tones2x996) => 1,
            (_, RuSize::Tones2x996) => 0,
            (ChannelWidth::Mhz160, s) => 2 * s.per_80(),
            (ChannelWidth::Mhz80, s) => s.per_80(),
            (ChannelWidth::Mhz40, RuSize::Tones996) => 0,
            (ChannelWidth::Mhz40, s) => 2 * (s.per_80() - u32::from(s == RuSize::Tones26)) / 4,
            (ChannelWidth::Mhz20, RuSize::Tones484 | RuSize::Tones996) => 0,
            (ChannelWidth::Mhz20, s) => (s.per_80() - u32::from(s == RuSize::Tones26)) / 4,
        }
    }
}

/// A resource unit of a channel: its size and 0-based index in frequency
/// order (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ru {
    pub size: RuSize,
    pub index: u32,
}

/// Where an RU's user field goes in HE-SIG-B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ContentChannel {
    Cc1,
    Cc2,
}

impl Ru {
    /// The RU, or why `width` has no such RU.
    pub fn new(size: RuSize, index: u32, width: ChannelWidth) -> Result<Ru, String> {
        let n = size.count(width);
        if index >= n {
            return Err(format!(
                "a {} MHz channel has {n} RU(s) of {} tones, index {index} does not exist (27.3.2.2)",
                width.mhz(),
                size.tones()
            ));
        }
        Ok(Ru { size, index })
    }
    /// The span of 26-tone units the RU covers, numbered in frequency order
    /// over the channel (37 per 80 MHz segment, the centre one 18th): two
    /// RUs overlap iff their spans do.
    pub fn units(self) -> (u32, u32) {
        if self.size == RuSize::Tones2x996 {
            return (0, 73);
        }
        let per = self.size.per_80();
        let (seg, j) = (self.index / per, self.index % per);
        let base = 37 * seg;
        // Start unit of the 20 MHz subchannel `s` of a segment: the centre
        // 26-tone unit sits between subchannels 1 and 2.
        let sub = |s: u32| 9 * s + u32::from(s >= 2);
        let (a, b) = match self.size {
            RuSize::Tones26 => (j, j),
            RuSize::Tones52 => {
                let k = [0, 2, 5, 7][(j % 4) as usize];
                (sub(j / 4) + k, sub(j / 4) + k + 1)
            }
            RuSize::Tones106 => {
                let k = [0, 5][(j % 2) as usize];
                (sub(j / 2) + k, sub(j / 2) + k + 3)
            }
            RuSize::Tones242 => (sub(j), sub(j) + 8),
            RuSize::Tones484 => (sub(2 * j), sub(2 * j + 1) + 8),
            RuSize::Tones996 | RuSize::Tones2x996 => (0, 36),
        };
        (base + a, base + b)
    }
    /// The HE-SIG-B content channel of this RU's user field in a channel of
    /// `width` wider than 20 MHz (module docs).
    fn content_channel(self) -> ContentChannel {
        let (start, _) = self.units();
        let (seg, u) = (start / 37, start % 37);
        if self.size == RuSize::Tones26 && u == 18 {
            return if seg == 0 { ContentChannel::Cc1 } else { ContentChannel::Cc2 };
        }
        if self.size >= RuSize::Tones484 {
            return ContentChannel::Cc1;
        }
        let s = if u < 18 { u / 9 } else { (u - 1) / 9 };
        if s % 2 == 0 {
            ContentChannel::Cc1
        } else {
            ContentChannel::Cc2
        }
    }
}

/// The equal-sized RUs of ns-3 3.37's round-robin scheduler for up to
/// `stations` stations on `width`: the size with the most RUs not above
/// `stations` (one station served per RU; the centre 26-tone RUs left
/// unused unless the size is 26 tones), and how many there are. At least
/// one RU: the full band for one station.
pub fn equal_rus(width: ChannelWidth, stations: u32) -> (RuSize, u32) {
    RuSize::ALL
        .into_iter()
        .map(|s| (s, s.count(width)))
        .find(|&(_, n)| n >= 1 && n <= stations.max(1))
        .expect("the full-band RU fits one station")
}

/// One user of an HE MU or HE TB PPDU: its RU, MCS and streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MuUser {
    pub ru: Ru,
    pub mcs: HeMcs,
    pub nss: u8,
}

impl MuUser {
    /// The user, or why HE has no such combination (1-4 streams modelled).
    pub fn new(ru: Ru, mcs: u8, nss: u8) -> Result<MuUser, String> {
        let m = HeMcs::new(mcs).ok_or_else(|| format!("{mcs} is not an HE MCS (0-11)"))?;
        if !(1..=4).contains(&nss) {
            return Err(format!("HE is modelled with 1 to 4 spatial streams, got {nss}"));
        }
        Ok(MuUser { ru, mcs: m, nss })
    }
    /// Data bits per OFDM symbol in this user's RU (N_DBPS).
    pub fn ndbps(self) -> u32 {
        super::ht::data_bits_per_symbol(
            self.ru.size.data_subcarriers(),
            self.mcs.constellation(),
            u32::from(self.nss),
            self.mcs.code_rate(),
        )
    }
    /// Data rate in bit/s with the guard interval `gi`.
    pub fn rate_bps(self, gi: HeGi) -> f64 {
        f64::from(self.ndbps()) * 1e9 / gi.symbol_nanos() as f64
    }
    /// Data symbols for a PSDU of `bytes` octets.
    pub fn symbols(self, bytes: u32) -> u64 {
        (8 * u64::from(bytes) + 16 + 6).div_ceil(u64::from(self.ndbps()))
    }
    /// The most octets a PSDU in `nsym` data symbols holds (the inverse
    /// of `symbols`).
    pub fn octets_in(self, nsym: u64) -> u32 {
        u32::try_from((nsym * u64::from(self.ndbps())).saturating_sub(16 + 6) / 8).unwrap_or(u32::MAX)
    }
}

/// HE-LTFs for a PPDU whose largest per-RU stream count is `nss` (Table
/// 27-14).
pub fn ltfs(nss: u8) -> u32 {
    match nss {
        0 | 1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// The HE-SIG-B MCS of a set of users (module docs: the lowest, at most 5).
pub fn sigb_mcs(users: &[MuUser]) -> u8 {
    users.iter().map(|u| u.mcs.index()).min().unwrap_or(5).min(5)
}

/// HE-SIG-B symbols (4 us each) of an HE MU PPDU of `width` to `users`.
pub fn sigb_symbols(width: ChannelWidth, users: &[MuUser]) -> u32 {
    let common = match width {
        ChannelWidth::Mhz20 | ChannelWidth::Mhz40 => 8 + 4 + 6,
        ChannelWidth::Mhz80 => 2 * 8 + 1 + 4 + 6,
        ChannelWidth::Mhz160 => 4 * 8 + 1 + 4 + 6,
    };
    let (mut cc1, mut cc2) = (0u32, 0u32);
    for u in users {
        if width == ChannelWidth::Mhz20 || u.ru.content_channel() == ContentChannel::Cc1 {
            cc1 += 1;
        } else {
            cc2 += 1;
        }
    }
    let user_bits = |n: u32| (n / 2) * (2 * 21 + 4 + 6) + (n % 2) * (21 + 4 + 6);
    let bits = common + user_bits(cc1.max(cc2));
    let ndbps = [26, 52, 78, 104, 156, 208][usize::from(sigb_mcs(users))];
    bits.div_ceil(ndbps)
}

/// The HE-LTF field of a PPDU to / from `users`.
fn ltf_field(gi: HeGi, users: &[MuUser]) -> u64 {
    let nss = users.iter().map(|u| u.nss).max().unwrap_or(1);
    u64::from(ltfs(nss)) * gi.ltf_nanos()
}

/// Preamble of an HE MU PPDU, through the HE-LTFs.
pub fn mu_preamble(width: ChannelWidth, gi: HeGi, users: &[MuUser]) -> SimDur {
    let sigb = 4_000 * u64::from(sigb_symbols(width, users));
    SimDur::from_nanos(8_000 + 8_000 + 4_000 + 4_000 + 8_000 + sigb + 4_000 + ltf_field(gi, users))
}

/// TXTIME of an HE MU PPDU carrying `bytes[i]` octets to `users[i]` with a
/// packet extension of `pe_us` us.
pub fn mu_txtime(width: ChannelWidth, gi: HeGi, pe_us: u8, users: &[MuUser], bytes: &[u32]) -> SimDur {
    debug_assert_eq!(users.len(), bytes.len());
    let nsym = users.iter().zip(bytes).map(|(u, &b)| u.symbols(b)).max().unwrap_or(0);
    mu_preamble(width, gi, users) + SimDur::from_nanos(nsym * gi.symbol_nanos() + 1000 * u64::from(pe_us))
}

/// Preamble of an HE TB PPDU with `n_ltf` HE-LTFs (set by the Trigger).
pub fn tb_preamble(gi: HeGi, n_ltf: u32) -> SimDur {
    SimDur::from_nanos(8_000 + 8_000 + 4_000 + 4_000 + 8_000 + 8_000 + u64::from(n_ltf) * gi.ltf_nanos())
}

/// The HE TB PPDU a Trigger frame solicits from `users`, the longest
/// carrying `bytes[i]` octets: the UL Length (L-SIG LENGTH) the AP puts in
/// the Trigger and the PPDU's duration (module docs).
pub fn tb_ppdu(gi: HeGi, pe_us: u8, users: &[MuUser], bytes: &[u32]) -> (u16, SimDur) {
    debug_assert_eq!(users.len(), bytes.len());
    let nss = users.iter().map(|u| u.nss).max().unwrap_or(1);
    let pre = tb_preamble(gi, ltfs(nss));
    let nsym = users.iter().zip(bytes).map(|(u, &b)| u.symbols(b)).max().unwrap_or(0);
    let pe = SimDur::from_nanos(1000 * u64::from(pe_us));
    let need = pre + SimDur::from_nanos(nsym * gi.symbol_nanos()) + pe;
    let length = l_sig_length(need);
    (length, tb_duration(gi, pe_us, ltfs(nss), length))
}

/// L-SIG LENGTH announcing a TXTIME (eq. 27-11, m = 2, no signal
/// extension).
pub fn l_sig_length(txtime: SimDur) -> u16 {
    let quads = (txtime.as_nanos().saturating_sub(20_000)).div_ceil(4_000);
    u16::try_from((quads * 3).saturating_sub(5)).unwrap_or(u16::MAX)
}

/// Duration of an HE TB PPDU sent for a Trigger's UL Length `length`
/// with `n_ltf` HE-LTFs: the whole symbols that fit after the preamble in
/// the time L-SIG announces, then the packet extension.
pub fn tb_duration(gi: HeGi, pe_us: u8, n_ltf: u32, length: u16) -> SimDur {
    let announced = SimDur::from_nanos(20_000 + 4_000 * (u64::from(length) + 3 + 2).div_ceil(3));
    let nsym = tb_data_symbols(gi, pe_us, n_ltf, announced);
    tb_preamble(gi, n_ltf) + SimDur::from_nanos(nsym * gi.symbol_nanos() + 1000 * u64::from(pe_us))
}

/// The whole data symbols of an HE TB PPDU that lasts at most `d`, with
/// `n_ltf` HE-LTFs and the packet extension.
pub fn tb_data_symbols(gi: HeGi, pe_us: u8, n_ltf: u32, d: SimDur) -> u64 {
    let fixed = tb_preamble(gi, n_ltf) + SimDur::from_nanos(1000 * u64::from(pe_us));
    d.saturating_sub(fixed).as_nanos() / gi.symbol_nanos()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ChannelWidth::*;

    fn user(size: RuSize, index: u32, w: ChannelWidth, mcs: u8, nss: u8) -> MuUser {
        MuUser::new(Ru::new(size, index, w).unwrap(), mcs, nss).unwrap()
    }

    #[test]
    fn ru_counts_match_the_standard() {
        // Tables 27-7 to 27-9: RUs per width, 26 to 2x996 tones.
        let rows = [
            (Mhz20, [9, 4, 2, 1, 0, 0, 0]),
            (Mhz40, [18, 8, 4, 2, 1, 0, 0]),
            (Mhz80, [37, 16, 8, 4, 2, 1, 0]),
            (Mhz160, [74, 32, 16, 8, 4, 2, 1]),
        ];
        for (w, counts) in rows {
            for (s, n) in RuSize::ALL.into_iter().zip(counts) {
                assert_eq!(s.count(w), n, "{w:?} {s:?}");
            }
        }
        assert!(Ru::new(RuSize::Tones26, 9, Mhz20).unwrap_err().contains("9 RU(s) of 26 tones"));
        assert_eq!(RuSize::from_tones(1992), Some(RuSize::Tones2x996));
    }

    #[test]
    fn ru_rates_match_the_standard_tables() {
        // (RU, MCS, streams, GI, Mbit/s), Tables 27-55 to 27-62 (one
        // stream) and 27-64.. (two): the tables round to 0.1 Mbit/s.
        let rows = [
            (RuSize::Tones26, 0, 1, HeGi::Ns800, 0.9),
            (RuSize::Tones26, 11, 1, HeGi::Ns800, 14.7),
            (RuSize::Tones26, 11, 1, HeGi::Ns3200, 12.5),
            (RuSize::Tones52, 11, 1, HeGi::Ns800, 29.4),
            (RuSize::Tones106, 0, 1, HeGi::Ns800, 3.8),
            (RuSize::Tones106, 11, 1, HeGi::Ns800, 62.5),
            (RuSize::Tones106, 11, 2, HeGi::Ns1600, 118.1),
            (RuSize::Tones242, 11, 1, HeGi::Ns800, 143.4),
            (RuSize::Tones484, 11, 1, HeGi::Ns800, 286.8),
            (RuSize::Tones996, 11, 1, HeGi::Ns800, 600.5),
            (RuSize::Tones2x996, 11, 1, HeGi::Ns800, 1201.0),
        ];
        for (s, m, n, g, mbps) in rows {
            let r = user(s, 0, Mhz160, m, n).rate_bps(g) / 1e6;
            assert!((r - mbps).abs() < 0.06, "{s:?} MCS {m} x{n} {g:?}: {r} vs {mbps}");
        }
    }

    #[test]
    fn rus_tile_the_channel_without_overlap() {
        for w in [Mhz20, Mhz40, Mhz80, Mhz160] {
            for s in RuSize::ALL {
                let spans: Vec<(u32, u32)> = (0..s.count(w)).map(|i| Ru::new(s, i, w).unwrap().units()).collect();
                for p in spans.windows(2) {
                    assert!(p[0].1 < p[1].0, "{w:?} {s:?}: {spans:?}");
                }
                // Each RU covers its share of 26-tone units.
                let units = spans.iter().map(|(a, b)| b - a + 1).sum::<u32>();
                let total = match w {
                    Mhz20 => 9,
                    Mhz40 => 18,
                    Mhz80 => 37,
                    Mhz160 => 74,
                };
                if s.count(w) > 0 {
                    assert!(units <= total && units + 5 * (total / 37).max(1) >= total, "{w:?} {s:?} {units}");
                }
            }
        }
        // The centre 26-tone RU of 80 MHz is unit 18, between the 52s.
        assert_eq!(Ru::new(RuSize::Tones26, 18, Mhz80).unwrap().units(), (18, 18));
        assert_eq!(Ru::new(RuSize::Tones52, 8, Mhz80).unwrap().units(), (19, 20));
    }

    #[test]
    fn equal_rus_follow_the_round_robin_rule() {
        assert_eq!(equal_rus(Mhz80, 4), (RuSize::Tones242, 4));
        assert_eq!(equal_rus(Mhz80, 9), (RuSize::Tones106, 8));
        assert_eq!(equal_rus(Mhz20, 9), (RuSize::Tones26, 9));
        assert_eq!(equal_rus(Mhz20, 3), (RuSize::Tones106, 2));
        assert_eq!(equal_rus(Mhz160, 1), (RuSize::Tones2x996, 1));
        assert_eq!(equal_rus(Mhz40, 0), (RuSize::Tones484, 1));
    }

    #[test]
    fn sigb_by_hand() {
        // 80 MHz, four 242-tone RUs at MCS 11: 2 users per content channel,
        // 27 + 52 = 79 bits at HE-SIG-B MCS 5 (208 bits): one symbol.
        let four: Vec<MuUser> = (0..4).map(|i| user(RuSize::Tones242, i, Mhz80, 11, 1)).collect();
        assert_eq!(sigb_symbols(Mhz80, &four), 1);
        // The same at MCS 0: 79 / 26 -> 4 symbols.
        let slow: Vec<MuUser> = (0..4).map(|i| user(RuSize::Tones242, i, Mhz80, 0, 1)).collect();
        assert_eq!(sigb_symbols(Mhz80, &slow), 4);
        // 20 MHz, nine 26-tone RUs at MCS 0: 18 + 4 x 52 + 31 = 257 bits ->
        // ceil(257 / 26) = 10 symbols.
        let nine: Vec<MuUser> = (0..9).map(|i| user(RuSize::Tones26, i, Mhz20, 0, 1)).collect();
        assert_eq!(sigb_symbols(Mhz20, &nine), 10);
        // 80 MHz centre 26-tone RU goes with CC1.
        assert_eq!(Ru::new(RuSize::Tones26, 18, Mhz80).unwrap().content_channel(), ContentChannel::Cc1);
        assert_eq!(Ru::new(RuSize::Tones26, 37 + 18, Mhz160).unwrap().content_channel(), ContentChannel::Cc2);
        assert_eq!(Ru::new(RuSize::Tones26, 9, Mhz40).unwrap().content_channel(), ContentChannel::Cc2);
    }

    #[test]
    fn mu_and_tb_txtime_by_hand() {
        // 80 MHz, four 242-tone RUs, MCS 11, one stream, 0.8 us GI, 1504
        // octets each: N_DBPS 1950, N_SYM = ceil(12054 / 1950) = 7 of 13.6
        // us; preamble 8 + 8 + 4 + 4 + 8 + 4 (SIG-B) + 4 + 7.2 = 47.2 us.
        let four: Vec<MuUser> = (0..4).map(|i| user(RuSize::Tones242, i, Mhz80, 11, 1)).collect();
        assert_eq!(mu_txtime(Mhz80, HeGi::Ns800, 0, &four, &[1504; 4]), SimDur::from_nanos(47_200 + 95_200));
        // One longer A-MPDU sets the common N_SYM.
        let t = mu_txtime(Mhz80, HeGi::Ns800, 0, &four, &[1504, 1504, 3000, 14]);
        assert_eq!(t, SimDur::from_nanos(47_200 + 13 * 13_600));
        // HE TB: 8 + 8 + 4 + 4 + 8 + 8 (HE-STF) + 7.2 = 47.2 us + 95.2 us =
        // 142.4 us; LENGTH = ceil(122.4 / 4) x 3 - 5 = 88, announcing 20 +
        // 4 x 31 = 144 us, of which 7 symbols fit.
        let (len, d) = tb_ppdu(HeGi::Ns800, 0, &four, &[1504; 4]);
        assert_eq!((len, d), (88, SimDur::from_nanos(142_400)));
        // The round trip gives the same duration back for every length.
        for l in (1..3000).step_by(3) {
            let d = tb_duration(HeGi::Ns1600, 0, 2, l);
            assert_eq!(tb_duration(HeGi::Ns1600, 0, 2, l_sig_length(d)), d, "{l}");
        }
    }
}
