//! Access categories and their default EDCA parameter set.
//!
//! - User priority (UP, the TID of QoS data 0-7) to access category,
//!   Table 10-1: UP 1 and 2 -> AC_BK, 0 and 3 -> AC_BE, 4 and 5 -> AC_VI,
//!   6 and 7 -> AC_VO.
//! - Default EDCA Parameter Set for a non-AP QoS station, Table 9-155
//!   (dot11OCBActivated false), with the PHY's aCWmin and aCWmax:
//!   | AC | CWmin | CWmax | AIFSN | TXOP limit (OFDM/HT; DSSS) |
//!   |---|---|---|---|---|
//!   | BK | aCWmin | aCWmax | 7 | 0; 0 |
//!   | BE | aCWmin | aCWmax | 3 | 0; 0 |
//!   | VI | (aCWmin+1)/2 - 1 | aCWmin | 2 | 3.008 ms; 6.016 ms |
//!   | VO | (aCWmin+1)/4 - 1 | (aCWmin+1)/2 - 1 | 2 | 1.504 ms; 3.264 ms |
//!
//!   A TXOP limit of 0 allows one frame exchange (one MSDU or A-MPDU and
//!   its response) per TXOP (10.22.2.9). An AP advertises and uses
//!   AIFSN 1 for AC_VI and AC_VO in its own default set (Table 9-155's AP
//!   column); `for_ap` gives that set.
//! - AIFS[AC] = SIFS + AIFSN[AC] x slot (10.22.2.4).
use wifitcp_core::SimDur;

/// An EDCA access category, in increasing priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AccessCategory {
    Bk,
    Be,
    Vi,
    Vo,
}

impl AccessCategory {
    pub const ALL: [AccessCategory; 4] =
        [AccessCategory::Bk, AccessCategory::Be, AccessCategory::Vi, AccessCategory::Vo];

    /// The access category of user priority (TID) `up` (Table 10-1);
    /// TIDs 8-15 (TSPEC traffic streams) are not modelled.
    pub fn from_up(up: u8) -> Option<AccessCategory> {
        Some(match up {
            1 | 2 => AccessCategory::Bk,
            0 | 3 => AccessCategory::Be,
            4 | 5 => AccessCategory::Vi,
            6 | 7 => AccessCategory::Vo,
            _ => return None,
        })
    }

    /// The user priority of an MSDU whose IP packet carries `dscp`, as
    /// RFC 8325 section 4.3 maps the Diffserv service classes: network
    /// control (CS6, CS7) 7, telephony (EF) and VOICE-ADMIT 6, signaling
    /// (CS5) 5, the video classes (AF4x, CS4, AF3x, CS3) 4, low-latency
    /// data (AF2x) 3, low-priority data (CS1) 1, every other code point
    /// (default, OAM CS2, high-throughput data AF1x, unassigned) 0.
    pub fn user_priority_of_dscp(dscp: u8) -> u8 {
        match dscp {
            48 | 56 => 7,
            46 | 44 => 6,
            40 => 5,
            24 | 26 | 28 | 30 | 32 | 34 | 36 | 38 => 4,
            18 | 20 | 22 => 3,
            8 => 1,
            _ => 0,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            AccessCategory::Bk => "bk",
            AccessCategory::Be => "be",
            AccessCategory::Vi => "vi",
            AccessCategory::Vo => "vo",
        }
    }
}

/// The contention parameters of one access category.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdcaParams {
    pub aifsn: u32,
    pub cw_min: u32,
    pub cw_max: u32,
    /// TXOP limit; zero: one frame exchange per TXOP.
    pub txop_limit: SimDur,
}

impl EdcaParams {
    /// AIFS = SIFS + AIFSN x slot.
    pub fn aifs(&self, sifs: SimDur, slot: SimDur) -> SimDur {
        sifs + slot * u64::from(self.aifsn)
    }
}

/// The parameters of the four access categories, indexed by
/// [`AccessCategory`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdcaSet(pub [EdcaParams; 4]);

impl EdcaSet {
    /// Table 9-155's default set for a non-AP station on a PHY with
    /// `a_cw_min` and `a_cw_max`; `dsss` selects the DSSS TXOP limits
    /// (clauses 15 and 16) instead of the OFDM/HT ones.
    pub fn default_for(a_cw_min: u32, a_cw_max: u32, dsss: bool) -> EdcaSet {
        let us = SimDur::from_micros;
        let (vi_txop, vo_txop) = if dsss { (us(6016), us(3264)) } else { (us(3008), us(1504)) };
        // (aCWmin + 1) / 2 - 1 and (aCWmin + 1) / 4 - 1 in the table.
        let half = a_cw_min.div_ceil(2) - 1;
        let quarter = a_cw_min.div_ceil(4) - 1;
        EdcaSet([
            EdcaParams { aifsn: 7, cw_min: a_cw_min, cw_max: a_cw_max, txop_limit: SimDur::ZERO },
            EdcaParams { aifsn: 3, cw_min: a_cw_min, cw_max: a_cw_max, txop_limit: SimDur::ZERO },
            EdcaParams { aifsn: 2, cw_min: half, cw_max: a_cw_min, txop_limit: vi_txop },
            EdcaParams { aifsn: 2, cw_min: quarter, cw_max: half, txop_limit: vo_txop },
        ])
    }

    /// The AP's own default set: AIFSN 1 for AC_VI and AC_VO (Table 9-155).
    pub fn for_ap(self) -> EdcaSet {
        let mut s = self;
        s.0[AccessCategory::Vi as usize].aifsn = 1;
        s.0[AccessCategory::Vo as usize].aifsn = 1;
        s
    }

    pub fn get(&self, ac: AccessCategory) -> &EdcaParams {
        &self.0[ac as usize]
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn rfc_8325_maps_the_service_classes_to_user_priorities() {
        let up = AccessCategory::user_priority_of_dscp;
        // (DSCP, UP): CS7, CS6, EF, VOICE-ADMIT, CS5, AF41-43, CS4, AF31-33,
        // CS3, AF21-23, CS2, AF11-13, CS1, DF, an unassigned code point
        let table = [
            (56, 7),
            (48, 7),
            (46, 6),
            (44, 6),
            (40, 5),
            (34, 4),
            (36, 4),
            (38, 4),
            (32, 4),
            (26, 4),
            (28, 4),
            (30, 4),
            (24, 4),
            (18, 3),
            (20, 3),
            (22, 3),
            (16, 0),
            (10, 0),
            (12, 0),
            (14, 0),
            (8, 1),
            (0, 0),
            (33, 0),
        ];
        for (dscp, want) in table {
            assert_eq!(up(dscp), want, "DSCP {dscp}");
        }
        let ac = |d| AccessCategory::from_up(up(d)).unwrap();
        assert_eq!(
            (ac(46), ac(34), ac(0), ac(8)),
            (AccessCategory::Vo, AccessCategory::Vi, AccessCategory::Be, AccessCategory::Bk)
        );
    }

    use super::*;

    #[test]
    fn user_priorities_map_as_table_10_1() {
        let acs: Vec<_> = (0..8).map(|up| AccessCategory::from_up(up).unwrap()).collect();
        use AccessCategory::*;
        assert_eq!(acs, vec![Be, Bk, Bk, Be, Vi, Vi, Vo, Vo]);
        assert_eq!(AccessCategory::from_up(8), None);
    }

    #[test]
    fn ofdm_defaults_are_table_9_155() {
        // OFDM: aCWmin 15, aCWmax 1023 (Table 17-21).
        let s = EdcaSet::default_for(15, 1023, false);
        let row = |ac| {
            let p = s.get(ac);
            (p.aifsn, p.cw_min, p.cw_max, p.txop_limit.as_nanos() / 1000)
        };
        assert_eq!(row(AccessCategory::Bk), (7, 15, 1023, 0));
        assert_eq!(row(AccessCategory::Be), (3, 15, 1023, 0));
        assert_eq!(row(AccessCategory::Vi), (2, 7, 15, 3008));
        assert_eq!(row(AccessCategory::Vo), (2, 3, 7, 1504));
        // DSSS: aCWmin 31 (Table 16-4).
        let d = EdcaSet::default_for(31, 1023, true);
        assert_eq!((d.get(AccessCategory::Vi).cw_min, d.get(AccessCategory::Vo).cw_min), (15, 7));
        assert_eq!(d.get(AccessCategory::Vo).txop_limit, SimDur::from_micros(3264));
        let ap = s.for_ap();
        assert_eq!((ap.get(AccessCategory::Vo).aifsn, ap.get(AccessCategory::Be).aifsn), (1, 3));
    }

    #[test]
    fn aifs_is_sifs_plus_aifsn_slots() {
        // 802.11a: SIFS 16 us, slot 9 us: AIFS[BE] = 43 us; AIFS[VO] = 34
        // us, the DCF's DIFS.
        let s = EdcaSet::default_for(15, 1023, false);
        let (sifs, slot) = (SimDur::from_micros(16), SimDur::from_micros(9));
        assert_eq!(s.get(AccessCategory::Be).aifs(sifs, slot), SimDur::from_micros(43));
        assert_eq!(s.get(AccessCategory::Vo).aifs(sifs, slot), SimDur::from_micros(34));
    }
}
