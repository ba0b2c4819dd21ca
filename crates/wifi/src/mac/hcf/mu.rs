//! The 802.11ax multi-user frame exchanges (IEEE 802.11ax-2021 26.5):
//! their control frames and the airtime of each sequence, from the PPDU
//! airtimes of `phy::he_mu`. These are the timings the HCF's MU exchanges
//! are built on: the downlink exchange runs in `mu_exchange.rs`
//! (`mac.ofdma = "dl"`: per-station A-MPDUs as one transmission, the three
//! acknowledgement sequences below, retransmission), the uplink one in
//! `ul_exchange.rs` (`"ul"`: Basic Trigger, one HE TB PPDU of the
//! stations' A-MPDUs, multi-STA BlockAck; `"dl+ul"` alternates the two as
//! ns-3's round-robin scheduler does).
//!
//! Sequences (26.5.1, 26.5.2, 26.4.4):
//! - Downlink, [`DlAck::MuBar`]: HE MU PPDU (one A-MPDU per RU), SIFS,
//!   MU-BAR Trigger frame, SIFS, HE TB PPDU in which each station returns
//!   its compressed BlockAck on its RU.
//! - Downlink, [`DlAck::AggregatedMuBar`]: the MU-BAR travels inside each
//!   station's A-MPDU (a Trigger frame with that station's User Info, 26.5.1
//!   / 10.12.8's MPDU types), SIFS, HE TB PPDU of BlockAcks.
//! - Downlink, [`DlAck::SuFormat`]: one station answers at once with a
//!   BlockAck in a non-HT PPDU; each other one after SIFS, BlockAckReq,
//!   SIFS, BlockAck.
//! - Uplink: Basic Trigger frame, SIFS, HE TB PPDUs (each station's A-MPDU
//!   on its RU, all lasting what the Trigger's UL Length says), SIFS,
//!   multi-STA BlockAck (9.3.1.8.7).
//!
//! Frame lengths (octets, with the 16-octet header FC + Duration + RA + TA
//! and the 4-octet FCS): Trigger frame 9.3.1.22: Common Info 8, a User Info
//! field of 5 per station plus its Trigger Dependent User Info: Basic 1,
//! MU-BAR a compressed BlockAckReq's BAR Control 2 + Starting Sequence
//! Control 2; no padding field. Multi-STA BlockAck: BA Control 2, per
//! station AID TID Info 2 + Starting Sequence Control 2 + the bitmap (8 or
//! 32 octets). Control frames in non-HT PPDUs go at the HCF's control rate;
//! BlockAcks in an HE TB PPDU as an S-MPDU (4-octet delimiter) at the RU's
//! MCS. Model choice: the HE TB PPDUs answering a MU-BAR use each user's
//! downlink MCS and streams.
use crate::phy::he::HeGi;
use crate::phy::he_mu::{self, MuUser};
use crate::phy::{ChannelWidth, PhyTiming};
use wifitcp_core::SimDur;
use wifitcp_wire::wifi_frame::{BLOCK_ACK_LEN, BLOCK_ACK_REQ_LEN};

/// Header (FC, Duration, RA, TA) and FCS of a control frame.
const CONTROL_OVERHEAD: u32 = 16 + 4;

/// A Basic Trigger frame soliciting `n` stations.
pub fn basic_trigger_len(n: u32) -> u32 {
    CONTROL_OVERHEAD + 8 + n * (5 + 1)
}

/// A BSRP Trigger frame soliciting `n` stations: no Trigger Dependent
/// User Info in the BSRP variant (9.3.1.22).
pub fn bsrp_trigger_len(n: u32) -> u32 {
    CONTROL_OVERHEAD + 8 + n * 5
}

/// A MU-BAR Trigger frame to `n` stations (compressed BlockAckReq variant).
pub fn mu_bar_len(n: u32) -> u32 {
    CONTROL_OVERHEAD + 8 + n * (5 + 4)
}

/// A multi-STA BlockAck acknowledging `n` stations with bitmaps of
/// `bitmap_octets` (8 for 64 MPDUs, 32 for 256).
pub fn multi_sta_block_ack_len(n: u32, bitmap_octets: u32) -> u32 {
    CONTROL_OVERHEAD + 2 + n * (2 + 2 + bitmap_octets)
}

/// How the stations acknowledge a downlink HE MU PPDU (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DlAck {
    SuFormat,
    MuBar,
    AggregatedMuBar,
}

/// The HE parameters of a BSS's MU exchanges.
#[derive(Clone, Copy, Debug)]
pub struct MuPhy<'a> {
    pub timing: &'a PhyTiming,
    pub width: ChannelWidth,
    pub gi: HeGi,
    /// Packet extension of HE MU and HE TB PPDUs (us).
    pub pe_us: u8,
    /// The compressed BlockAck's bitmap, 8 or 32 octets.
    pub bitmap_octets: u32,
}

impl MuPhy<'_> {
    fn control(&self, bytes: u32) -> SimDur {
        self.timing.tx_time(bytes, self.timing.control_rate)
    }
    pub(super) fn block_ack_len(&self) -> u32 {
        BLOCK_ACK_LEN + self.bitmap_octets - 8
    }

    /// The GI of the HE TB PPDUs a Trigger solicits (`HeGi::for_tb`).
    pub fn tb_gi(&self) -> HeGi {
        self.gi.for_tb()
    }

    /// The HE TB PPDU in which `users` send `bytes[i]` octets each.
    pub fn tb_ppdu(&self, users: &[MuUser], bytes: &[u32]) -> SimDur {
        he_mu::tb_ppdu(self.tb_gi(), self.pe_us, users, bytes).1
    }

    /// The HE TB PPDU in which `users` return their BlockAcks.
    pub(super) fn tb_block_acks(&self, users: &[MuUser]) -> SimDur {
        self.tb_ppdu(users, &vec![self.block_ack_len() + 4; users.len()])
    }

    /// A downlink MU exchange: `psdu[i]` octets (A-MPDU with delimiters)
    /// to `users[i]`, acknowledged as `ack` says; from the start of the HE
    /// MU PPDU to the end of the last response.
    pub fn dl_exchange(&self, users: &[MuUser], psdu: &[u32], ack: DlAck) -> SimDur {
        let n = users.len() as u32;
        let sifs = self.timing.sifs;
        match ack {
            DlAck::MuBar => {
                he_mu::mu_txtime(self.width, self.gi, self.pe_us, users, psdu)
                    + sifs
                    + self.control(mu_bar_len(n))
                    + sifs
                    + self.tb_block_acks(users)
            }
            DlAck::AggregatedMuBar => {
                // Each A-MPDU carries a Trigger frame with one User Info, a
                // subframe of 4 + its length padded to 4 octets.
                let sub = (4 + mu_bar_len(1)).next_multiple_of(4);
                let with: Vec<u32> = psdu.iter().map(|b| b.next_multiple_of(4) + sub).collect();
                he_mu::mu_txtime(self.width, self.gi, self.pe_us, users, &with) + sifs + self.tb_block_acks(users)
            }
            DlAck::SuFormat => {
                let ba = self.control(self.block_ack_len());
                let bar = self.control(BLOCK_ACK_REQ_LEN);
                let rest = u64::from(n.saturating_sub(1));
                he_mu::mu_txtime(self.width, self.gi, self.pe_us, users, psdu)
                    + sifs
                    + ba
                    + (sifs * 2 + bar + ba) * rest
            }
        }
    }

    /// A BSRP exchange (26.5.5): the BSRP Trigger to `users`, SIFS, their
    /// HE TB PPDU of one QoS Null each (an S-MPDU) carrying the Queue Size;
    /// QoS Nulls solicit no acknowledgement.
    pub fn bsrp_exchange(&self, users: &[MuUser]) -> SimDur {
        let n = users.len() as u32;
        self.control(bsrp_trigger_len(n)) + self.timing.sifs + self.bsrp_response(users)
    }

    /// The HE TB PPDU answering a BSRP Trigger: one QoS Null per user.
    pub fn bsrp_response(&self, users: &[MuUser]) -> SimDur {
        self.tb_ppdu(users, &vec![crate::mac::hcf::QOS_NULL_LEN + 4; users.len()])
    }

    /// An uplink MU exchange: a Basic Trigger asking `users` for up to
    /// `bytes[i]` octets, their HE TB PPDUs and the multi-STA BlockAck.
    pub fn ul_exchange(&self, users: &[MuUser], bytes: &[u32]) -> SimDur {
        let n = users.len() as u32;
        let sifs = self.timing.sifs;
        self.control(basic_trigger_len(n))
            + sifs
            + self.tb_ppdu(users, bytes)
            + sifs
            + self.control(multi_sta_block_ack_len(n, self.bitmap_octets))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::he_mu::{equal_rus, Ru};
    use crate::phy::ppdu::PPDU_MAX_TIME;
    use crate::phy::{PhyConfig, PhyStandard};

    fn he80() -> PhyTiming {
        let mut c = PhyConfig::new(PhyStandard::Dot11ax, 0.0);
        c.mcs = Some(11);
        c.channel_width_mhz = Some(80);
        PhyTiming::from_config(&c).unwrap()
    }

    fn users(n: u32, mcs: u8) -> Vec<MuUser> {
        let (size, k) = equal_rus(ChannelWidth::Mhz80, n);
        (0..k).map(|i| MuUser::new(Ru::new(size, i, ChannelWidth::Mhz80).unwrap(), mcs, 1).unwrap()).collect()
    }

    #[test]
    fn control_frame_lengths() {
        // 9.3.1.22: 16 + Common Info 8 + 6 per Basic user + FCS 4.
        assert_eq!(basic_trigger_len(4), 52);
        assert_eq!(mu_bar_len(4), 64);
        // BSRP: 16 + Common Info 8 + 5 per user + FCS 4.
        assert_eq!(bsrp_trigger_len(4), 48);
        // 9.3.1.8.7: 16 + BA Control 2 + 12 per station + FCS 4.
        assert_eq!(multi_sta_block_ack_len(4, 8), 70);
        assert_eq!(multi_sta_block_ack_len(9, 32), 346);
    }

    #[test]
    fn sequences_by_hand() {
        let t = he80();
        assert_eq!(t.control_rate.mbps(), 24.0);
        let p = MuPhy { timing: &t, width: ChannelWidth::Mhz80, gi: HeGi::Ns800, pe_us: 0, bitmap_octets: 8 };
        let u = users(4, 11);
        // Four 242-tone RUs, 1504-octet PSDUs: HE MU PPDU 142.4 us
        // (phy::he_mu); MU-BAR 64 octets at 24 Mbit/s: 20 + 4 x ceil(534
        // / 96) = 44 us; HE TB PPDU of 36-octet BlockAcks, at the 1.6 us
        // GI a Trigger names (`HeGi::for_tb`): 48 + 14.4 = 62.4 us;
        // 142.4 + 16 + 44 + 16 + 62.4 = 280.8 us.
        assert_eq!(p.dl_exchange(&u, &[1504; 4], DlAck::MuBar), SimDur::from_nanos(280_800));
        // SU format: BlockAck 32 octets at 24: 20 + 4 x ceil(278 / 96) =
        // 32 us; BlockAckReq 24 octets: 20 + 4 x ceil(214 / 96) = 32 us;
        // 142.4 + 16 + 32 + 3 x (16 + 32 + 16 + 32).
        assert_eq!(p.dl_exchange(&u, &[1504; 4], DlAck::SuFormat), SimDur::from_nanos(142_400 + 48_000 + 288_000));
        // Aggregated MU-BAR: each PSDU grows by a 4 + 37 -> 44-octet
        // subframe: 1548 octets, still 7 symbols.
        assert_eq!(
            p.dl_exchange(&u, &[1504; 4], DlAck::AggregatedMuBar),
            SimDur::from_nanos(142_400 + 16_000 + 62_400)
        );
        // Uplink: Basic Trigger 52 octets: 20 + 4 x ceil(438 / 96) = 40 us;
        // HE TB 48 + 7 x 14.4 = 148.8 us; multi-STA BlockAck 70 octets:
        // 20 + 4 x ceil(582 / 96) = 48 us.
        assert_eq!(p.ul_exchange(&u, &[1504; 4]), SimDur::from_nanos(40_000 + 16_000 + 148_800 + 16_000 + 48_000));
        // BSRP: Trigger 48 octets: 20 + 4 x ceil((16 + 384 + 6) / 96) = 40
        // us; the HE TB PPDU of one QoS Null each (30 octets, S-MPDU
        // delimiter 4) on 242-tone RUs at MCS 11: one data symbol,
        // 48 + 14.4 = 62.4 us.
        assert_eq!(p.bsrp_exchange(&u), SimDur::from_nanos(40_000 + 16_000 + 62_400));
    }

    /// Cycle arithmetic of a saturated downlink with the AP alone on the
    /// channel (EDCA best effort: AIFS 43 us, a mean backoff of 7.5 slots
    /// of 9 us, TXOP limit 0: one exchange per access), 1508-octet MSDUs in
    /// A-MPDUs of 42 MPDUs (ns-3's 65,535-octet BE_MaxAmpduSize: 41
    /// subframes of 1544 octets and a last of 1542), HE MCS 11 at 80 MHz
    /// with the 0.8 us GI, HE MU PPDUs within aPPDUMaxTime: delivered MSDU
    /// Mbit/s, single user and OFDMA
    /// (MU-BAR acknowledgement, and for 4 users SU-format BlockAcks) with 4
    /// and 8 users (validation.md 23.5
    /// prints them beside ns-3 3.37; `-- --nocapture` shows them).
    #[test]
    fn saturated_downlink_cycle() {
        let t = he80();
        let p = MuPhy { timing: &t, width: ChannelWidth::Mhz80, gi: HeGi::Ns800, pe_us: 0, bitmap_octets: 8 };
        let psdu = 41 * 1544 + 1542;
        let bits = 42.0 * 1508.0 * 8.0;
        let access = SimDur::from_nanos(43_000 + 67_500);
        let su = access + t.data_ppdu_time(psdu) + t.sifs + t.tx_time(BLOCK_ACK_LEN, t.control_rate);
        let su_mbps = bits / su.as_nanos() as f64 * 1e3;
        // 43 + 67.5 + (43.2 + 64 x 13.6) + 16 + 32 = 1072.1 us.
        assert_eq!(su, SimDur::from_nanos(1_072_100));
        let mut rows = vec![("single user", su_mbps)];
        for n in [4, 8] {
            let u = users(n, 11);
            // The most MPDUs (at most 42) whose HE MU PPDU fits in
            // aPPDUMaxTime: 42 on a 242-tone RU, 27 on a 106-tone one.
            let fits = |k: u32| he_mu::mu_txtime(p.width, p.gi, 0, &u, &vec![1544 * k - 2; u.len()]) <= PPDU_MAX_TIME;
            let k = (1..=42u32).rev().find(|&k| fits(k)).unwrap();
            assert_eq!(k, if n == 4 { 42 } else { 27 });
            let bits = u.len() as f64 * f64::from(k) * 1508.0 * 8.0;
            let cycle = access + p.dl_exchange(&u, &vec![1544 * k - 2; u.len()], DlAck::MuBar);
            let what = if n == 4 { "OFDMA, 4 x 242-tone, MU-BAR" } else { "OFDMA, 8 x 106-tone, MU-BAR" };
            rows.push((what, bits / cycle.as_nanos() as f64 * 1e3));
            if n == 4 {
                let cycle = access + p.dl_exchange(&u, &vec![1544 * k - 2; u.len()], DlAck::SuFormat);
                rows.push(("OFDMA, 4 x 242-tone, SU-format BlockAcks", bits / cycle.as_nanos() as f64 * 1e3));
            }
        }
        for (what, mbps) in &rows {
            println!("{what}: {mbps:.1} Mbit/s");
        }
        assert!((rows[0].1 - 472.6).abs() < 0.1 && (rows[1].1 - 516.1).abs() < 0.1, "{rows:?}");
    }
}
