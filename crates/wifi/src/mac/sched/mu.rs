//! Multi-user scheduling at an 802.11ax AP (IEEE 802.11ax-2021 26.5,
//! 26.5.2): when the AP wins a TXOP, whether it sends single-user frames, a
//! downlink HE MU PPDU to several stations on resource units (26.5.1), or a
//! Basic Trigger frame soliciting HE TB PPDUs from several stations
//! (26.5.2), and to whom on which RU.
//!
//! A [`MultiUserScheduler`] answers that question from a [`MuView`] of the
//! AP's state; the frame exchanges carry the answer out. The standard leaves
//! the policy to the AP; [`RoundRobinMu`] is ns-3 3.37's default
//! (`RrMultiUserScheduler`), rule by rule:
//! - RUs: at most `max_stations` stations (ns-3's NStations, default 4) per
//!   MU PPDU, fewer when fewer HE stations are associated; the RUs are the
//!   equal-sized ones of `phy::he_mu::equal_rus` for that count (the size
//!   with the most RUs not above it; centre 26-tone RUs unused), filled in
//!   list order, RUs left empty when fewer stations qualify.
//! - Order: round robin. Stations join the list in the order the AP first
//!   sees them; the stations served move to the end of the list. Deviation:
//!   ns-3 orders its downlink list by credits (each DL MU PPDU's airtime is
//!   shared out as credits, the served stations pay it); with saturated,
//!   equal stations both serve each one once every ceil(n / k) MU PPDUs.
//! - Downlink (when enabled): the stations the AP holds data for, from the
//!   head of the list; none: single user.
//! - Uplink (when enabled): a Basic Trigger when the previous TXOP carried
//!   a DL MU PPDU, or the AP has no downlink data (ns-3's rule: DL and UL
//!   alternate under load). Stations whose last buffer status report (the
//!   Queue Size of a QoS Null or QoS data frame, 9.2.4.5.6, still valid:
//!   `hcf::ul_exchange`) was zero are skipped; an unknown status counts as
//!   `ul_psdu_bytes` (ns-3's UlPsduSize). The Trigger asks for the largest
//!   reported queue (or `ul_psdu_bytes`; `u32::MAX` for "more than 254 x
//!   256 octets"), the HE TB PPDU lasting as long as the longest user
//!   needs for it, at most aPPDUMaxTime (`phy::he_mu::tb_ppdu`). No
//!   station qualifies: downlink as above.
//! - BSRP (`bsrp`, ns-3's EnableBsrp analogue, off by default; 26.5.5
//!   lets the AP solicit buffer status reports with a BSRP Trigger frame,
//!   9.3.1.22): when uplink is picked and a station it would trigger has
//!   no fresh report, a BSRP Trigger goes to those stations first, on the
//!   RUs the Basic Trigger would use, instead of a Basic Trigger sized by
//!   `ul_psdu_bytes`; the list does not rotate, so the next Basic Trigger
//!   goes to the same stations, sized by their reports. Deviation from
//!   ns-3 3.37, whose scheduler with EnableBsrp sends a BSRP Trigger
//!   whenever the AP holds no downlink frame, fresh reports or not (so an
//!   uplink-only BSS sees BSRP Triggers and no Basic Trigger with a TXOP
//!   limit of 0: measured with bench/ns3/he-ofdma.cc --bsrp=1,
//!   docs/validation.md 23.6): here a BSRP asks only for what is missing.
//!   Off: buffer status comes from QoS Null and QoS data frames alone.
use crate::mac::frame::MacAddr;
use crate::phy::he_mu::{equal_rus, Ru, RuSize};
use crate::phy::ChannelWidth;
use wifitcp_core::SimTime;

/// What the scheduler sees when the AP has won a TXOP.
#[derive(Clone, Copy, Debug)]
pub struct MuView<'a> {
    /// The channel the MU PPDU spans.
    pub width: ChannelWidth,
    /// The associated HE stations, each with the buffered bytes its last
    /// report gave (`None`: no report yet).
    pub stations: &'a [(MacAddr, Option<u32>)],
    /// The stations the AP holds downlink data for (any order).
    pub dl: &'a [MacAddr],
}

/// One multi-user transmission: who gets which RU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MuAlloc {
    /// The size of every RU of this allocation.
    pub size: RuSize,
    /// Station and RU, in RU order.
    pub users: Vec<(MacAddr, Ru)>,
    /// Uplink: the octets the Trigger asks each station for (sizing the HE
    /// TB PPDU); 0 for downlink.
    pub ul_bytes: u32,
}

/// The scheduler's answer for one TXOP (ns-3's TxFormat).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MuTx {
    /// Single-user frames as EDCA would send them.
    Su,
    /// An HE MU PPDU with one A-MPDU per RU.
    Dl(MuAlloc),
    /// A Basic Trigger frame soliciting HE TB PPDUs.
    Ul(MuAlloc),
    /// A BSRP Trigger frame soliciting the stations' buffer status
    /// (QoS Nulls in an HE TB PPDU), `ul_bytes` 0.
    Bsrp(MuAlloc),
}

/// Decides each TXOP the AP wins (module docs).
pub trait MultiUserScheduler {
    /// The AP has won a TXOP at `now`.
    fn select(&mut self, now: SimTime, view: &MuView) -> MuTx;
}

/// The round-robin scheduler's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundRobinConfig {
    pub max_stations: u32,
    pub dl: bool,
    pub ul: bool,
    pub ul_psdu_bytes: u32,
    /// BSRP Triggers for stations without a fresh report (module docs).
    pub bsrp: bool,
}

impl Default for RoundRobinConfig {
    /// ns-3 3.37's defaults: 4 stations, DL only, UlPsduSize 500 octets,
    /// EnableBsrp off.
    fn default() -> Self {
        RoundRobinConfig { max_stations: 4, dl: true, ul: false, ul_psdu_bytes: 500, bsrp: false }
    }
}

/// ns-3's round-robin multi-user scheduler (module docs).
#[derive(Clone, Debug)]
pub struct RoundRobinMu {
    cfg: RoundRobinConfig,
    /// Downlink and uplink lists, head first.
    dl_list: Vec<MacAddr>,
    ul_list: Vec<MacAddr>,
    last_dl_mu: bool,
}

impl RoundRobinMu {
    pub fn new(cfg: RoundRobinConfig) -> RoundRobinMu {
        RoundRobinMu { cfg, dl_list: Vec::new(), ul_list: Vec::new(), last_dl_mu: false }
    }

    /// The RU size and count for the associated stations.
    fn rus(&self, view: &MuView) -> (RuSize, u32) {
        let n = self.cfg.max_stations.min(view.stations.len() as u32);
        equal_rus(view.width, n)
    }

    fn try_ul(&mut self, view: &MuView) -> Option<MuTx> {
        let (size, k) = self.rus(view);
        let status = |s: MacAddr| view.stations.iter().find(|(a, _)| *a == s).and_then(|(_, q)| *q);
        let mut users = Vec::new();
        let mut ul_bytes = 0u32;
        let mut unknown = false;
        for &s in &self.ul_list {
            if users.len() as u32 == k {
                break;
            }
            let q = status(s);
            if q == Some(0) {
                continue;
            }
            unknown |= q.is_none();
            ul_bytes = ul_bytes.max(q.unwrap_or(self.cfg.ul_psdu_bytes));
            let ru = Ru::new(size, users.len() as u32, view.width).expect("index below the count");
            users.push((s, ru));
        }
        if users.is_empty() || ul_bytes == 0 {
            return None;
        }
        if self.cfg.bsrp && unknown {
            // 26.5.5: ask first (module docs); the same stations next time.
            return Some(MuTx::Bsrp(MuAlloc { size, users, ul_bytes: 0 }));
        }
        rotate(&mut self.ul_list, &users);
        Some(MuTx::Ul(MuAlloc { size, users, ul_bytes }))
    }

    fn try_dl(&mut self, view: &MuView) -> Option<MuAlloc> {
        let (size, k) = self.rus(view);
        let mut users = Vec::new();
        for &s in &self.dl_list {
            if users.len() as u32 == k {
                break;
            }
            if view.dl.contains(&s) {
                let ru = Ru::new(size, users.len() as u32, view.width).expect("index below the count");
                users.push((s, ru));
            }
        }
        if users.is_empty() {
            return None;
        }
        rotate(&mut self.dl_list, &users);
        Some(MuAlloc { size, users, ul_bytes: 0 })
    }
}

/// Stations join at the end of a list the first time they are seen.
fn learn(list: &mut Vec<MacAddr>, seen: impl Iterator<Item = MacAddr>) {
    for s in seen {
        if !list.contains(&s) {
            list.push(s);
        }
    }
}

/// The served stations move to the end of the list, in their order.
fn rotate(list: &mut Vec<MacAddr>, served: &[(MacAddr, Ru)]) {
    list.retain(|s| !served.iter().any(|(a, _)| a == s));
    list.extend(served.iter().map(|(a, _)| *a));
}

impl MultiUserScheduler for RoundRobinMu {
    fn select(&mut self, _now: SimTime, view: &MuView) -> MuTx {
        learn(&mut self.dl_list, view.stations.iter().map(|(a, _)| *a).chain(view.dl.iter().copied()));
        learn(&mut self.ul_list, view.stations.iter().map(|(a, _)| *a));
        let dl_data = self.cfg.dl && !view.dl.is_empty();
        if self.cfg.ul && (self.last_dl_mu || !dl_data) {
            if let Some(t) = self.try_ul(view) {
                self.last_dl_mu = false;
                return t;
            }
        }
        if self.cfg.dl {
            if let Some(a) = self.try_dl(view) {
                self.last_dl_mu = true;
                return MuTx::Dl(a);
            }
        }
        self.last_dl_mu = false;
        MuTx::Su
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sta(i: u8) -> MacAddr {
        MacAddr(u32::from(i))
    }

    fn served(t: &MuTx) -> Vec<u8> {
        match t {
            MuTx::Dl(a) | MuTx::Ul(a) | MuTx::Bsrp(a) => a.users.iter().map(|(s, _)| s.0 as u8).collect(),
            MuTx::Su => vec![],
        }
    }

    #[test]
    fn downlink_round_robin_over_nine_stations_four_at_a_time() {
        let stations: Vec<(MacAddr, Option<u32>)> = (1..=9).map(|i| (sta(i), None)).collect();
        let dl: Vec<MacAddr> = (1..=9).map(sta).collect();
        let view = MuView { width: ChannelWidth::Mhz80, stations: &stations, dl: &dl };
        let mut rr = RoundRobinMu::new(RoundRobinConfig::default());
        let t = rr.select(SimTime::ZERO, &view);
        let MuTx::Dl(a) = &t else { panic!("{t:?}") };
        assert_eq!(a.size, RuSize::Tones242);
        assert_eq!(served(&t), [1, 2, 3, 4]);
        assert_eq!(a.users.iter().map(|(_, r)| r.index).collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert_eq!(served(&rr.select(SimTime::ZERO, &view)), [5, 6, 7, 8]);
        assert_eq!(served(&rr.select(SimTime::ZERO, &view)), [9, 1, 2, 3]);
        // Only stations with data are served; RUs stay sized for four.
        let some = [sta(2), sta(7)];
        let t = rr.select(SimTime::ZERO, &MuView { dl: &some, ..view });
        let MuTx::Dl(a) = &t else { panic!("{t:?}") };
        assert_eq!((a.size, served(&t)), (RuSize::Tones242, vec![7, 2]));
        // Nothing queued, no uplink: single user.
        assert_eq!(rr.select(SimTime::ZERO, &MuView { dl: &[], ..view }), MuTx::Su);
    }

    #[test]
    fn more_stations_smaller_rus() {
        let stations: Vec<(MacAddr, Option<u32>)> = (1..=9).map(|i| (sta(i), None)).collect();
        let dl: Vec<MacAddr> = (1..=9).map(sta).collect();
        let cfg = RoundRobinConfig { max_stations: 9, ..RoundRobinConfig::default() };
        let mut rr = RoundRobinMu::new(cfg);
        let t = rr.select(SimTime::ZERO, &MuView { width: ChannelWidth::Mhz80, stations: &stations, dl: &dl });
        let MuTx::Dl(a) = &t else { panic!("{t:?}") };
        assert_eq!((a.size, a.users.len()), (RuSize::Tones106, 8));
        let t = rr.select(SimTime::ZERO, &MuView { width: ChannelWidth::Mhz20, stations: &stations, dl: &dl });
        let MuTx::Dl(a) = &t else { panic!("{t:?}") };
        assert_eq!((a.size, a.users.len()), (RuSize::Tones26, 9));
    }

    #[test]
    fn uplink_alternates_with_downlink_and_skips_empty_queues() {
        let mut stations: Vec<(MacAddr, Option<u32>)> = (1..=4).map(|i| (sta(i), None)).collect();
        let dl = [sta(1)];
        let cfg = RoundRobinConfig { ul: true, ..RoundRobinConfig::default() };
        let mut rr = RoundRobinMu::new(cfg);
        let v = MuView { width: ChannelWidth::Mhz20, stations: &stations, dl: &dl };
        // Downlink data and no previous DL MU: downlink first.
        assert!(matches!(rr.select(SimTime::ZERO, &v), MuTx::Dl(_)));
        // Then a Basic Trigger to every station, unknown queues counted as
        // the default PSDU.
        let t = rr.select(SimTime::ZERO, &v);
        let MuTx::Ul(a) = &t else { panic!("{t:?}") };
        assert_eq!((a.size, a.ul_bytes, served(&t)), (RuSize::Tones52, 500, vec![1, 2, 3, 4]));
        // Reports: 1 and 3 empty, 2 holds 3000 octets, 4 unknown.
        stations[0].1 = Some(0);
        stations[1].1 = Some(3000);
        stations[2].1 = Some(0);
        let v = MuView { width: ChannelWidth::Mhz20, stations: &stations, dl: &[] };
        let t = rr.select(SimTime::ZERO, &v);
        let MuTx::Ul(a) = &t else { panic!("{t:?}") };
        assert_eq!((a.ul_bytes, served(&t)), (3000, vec![2, 4]));
        // Every queue empty and no downlink: single user.
        let none: Vec<(MacAddr, Option<u32>)> = (1..=4).map(|i| (sta(i), Some(0))).collect();
        let v = MuView { width: ChannelWidth::Mhz20, stations: &none, dl: &[] };
        assert_eq!(rr.select(SimTime::ZERO, &v), MuTx::Su);
    }

    #[test]
    fn bsrp_asks_stations_without_a_fresh_report_first() {
        let mut stations: Vec<(MacAddr, Option<u32>)> = (1..=4).map(|i| (sta(i), None)).collect();
        let cfg = RoundRobinConfig { ul: true, dl: false, bsrp: true, ..RoundRobinConfig::default() };
        let mut rr = RoundRobinMu::new(cfg);
        let v = MuView { width: ChannelWidth::Mhz80, stations: &stations, dl: &[] };
        // No report: a BSRP Trigger to the four, the list unrotated.
        let t = rr.select(SimTime::ZERO, &v);
        let MuTx::Bsrp(a) = &t else { panic!("{t:?}") };
        assert_eq!((a.size, a.ul_bytes, served(&t)), (RuSize::Tones242, 0, vec![1, 2, 3, 4]));
        // Their reports came: the Basic Trigger goes to the same four,
        // sized by the largest report (not UlPsduSize).
        for (i, q) in [(0, 9000), (1, 3000), (2, 0), (3, 256)] {
            stations[i].1 = Some(q);
        }
        let v = MuView { width: ChannelWidth::Mhz80, stations: &stations, dl: &[] };
        let t = rr.select(SimTime::ZERO, &v);
        let MuTx::Ul(a) = &t else { panic!("{t:?}") };
        assert_eq!((a.ul_bytes, served(&t)), (9000, vec![1, 2, 4]));
        // Off: the unknown station is triggered for UlPsduSize at once.
        stations[0].1 = None;
        let v = MuView { width: ChannelWidth::Mhz80, stations: &stations, dl: &[] };
        let mut rr = RoundRobinMu::new(RoundRobinConfig { bsrp: false, ..cfg });
        let t = rr.select(SimTime::ZERO, &v);
        let MuTx::Ul(a) = &t else { panic!("{t:?}") };
        assert_eq!((a.ul_bytes, served(&t)), (3000, vec![1, 2, 4]));
    }
}
