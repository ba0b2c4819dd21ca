//! The polling list of an AP (the point coordinator, the HCF's polling):
//! every station in AID order
//! (round-robin PCF, 10.4.4.1: "the PC shall send a CF-Poll to at least
//! one STA ... in ascending AID order"), or, for the multi-poll hybrid of
//! paper 000 (Cuzanauskas & Anskaitis, section IV), only the stations whose
//! measured activity exceeds the PPS and BPS thresholds.
//!
//! Activity, as the AP measures it: the data frames (packets) and their
//! MSDU bytes it exchanged with the station, both directions (uplink data
//! frames received, downlink MSDUs as its queue hands them to the MAC), over
//! consecutive windows of `window` (tumbling). The paper says "sent packets
//! per second (PPS) and bytes per second (BPS)" without the direction or
//! the window; the choices made here:
//! - both directions count (a station downloading at 90 Mbit/s sends few
//!   packets but keeps the AP busy towards it; its TCP ACKs alone exceed a
//!   PPS threshold of a few hundred);
//! - a station joins the list when the last complete window had
//!   `pps >= pps_on` and `bps >= bps_on` (both thresholds, as "exceed the
//!   PPS and BPS thresholds" reads), and leaves it when a window has
//!   `pps < (1 - hysteresis) pps_on` or `bps < (1 - hysteresis) bps_on`
//!   (hysteresis keeps a station near the threshold from flapping);
//! - windows are evaluated when the station is seen (a frame to or from
//!   it) and, for listed stations, at the start of every CFP, so a station
//!   that falls silent leaves the list at the first CFP after its window
//!   (no event per station: the list costs per frame and per CFP member).
//!
//! Invariants: `members` is sorted by address (AID order) without
//! duplicates; the cursor names the next station to poll modulo the list
//! length; with `ActivityConfig` absent every station is a member forever.
use crate::mac::frame::MacAddr;
use wifitcp_core::{SimDur, SimTime};

/// Thresholds of the multi-poll activity list (scenario keys
/// `mac.multipoll_*`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActivityConfig {
    /// Packets per second (both directions) to join the list.
    pub pps: f64,
    /// Bytes per second (MSDU bytes, both directions) to join the list.
    pub bps: f64,
    /// Measurement window.
    pub window: SimDur,
    /// Fraction in [0, 1): a member leaves below `(1 - hysteresis)` times
    /// a threshold.
    pub hysteresis: f64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Meter {
    win_start: SimTime,
    pkts: u64,
    bytes: u64,
}

/// The stations the point coordinator polls.
#[derive(Clone, Debug)]
pub struct PollList {
    members: Vec<MacAddr>,
    cursor: usize,
    activity: Option<(ActivityConfig, Vec<Meter>)>,
    /// Joins and leaves so far (results, tests).
    pub joins: u64,
    pub leaves: u64,
}

impl PollList {
    /// Round robin over `stations` (every one polled in every round).
    pub fn round_robin(mut stations: Vec<MacAddr>) -> PollList {
        stations.sort();
        stations.dedup();
        PollList { members: stations, cursor: 0, activity: None, joins: 0, leaves: 0 }
    }

    /// The multi-poll list over a BSS of `n` members (addresses 0..n):
    /// empty at first, filled by activity.
    pub fn by_activity(n: usize, c: ActivityConfig) -> PollList {
        assert!(c.window > SimDur::ZERO, "a zero activity window");
        PollList { members: Vec::new(), cursor: 0, activity: Some((c, vec![Meter::default(); n])), joins: 0, leaves: 0 }
    }

    pub fn members(&self) -> &[MacAddr] {
        &self.members
    }
    pub fn len(&self) -> usize {
        self.members.len()
    }
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
    pub fn contains(&self, a: MacAddr) -> bool {
        self.members.binary_search(&a).is_ok()
    }

    /// The next station to poll.
    pub fn next(&self) -> Option<MacAddr> {
        (!self.members.is_empty()).then(|| self.members[self.cursor % self.members.len()])
    }

    /// Make `a` the next station to poll, if it is on the list (the round
    /// goes on from there); false if it is not.
    pub fn start_at(&mut self, a: MacAddr) -> bool {
        match self.members.binary_search(&a) {
            Ok(i) => {
                self.cursor = i;
                true
            }
            Err(_) => false,
        }
    }

    /// The station `next()` named has been polled.
    pub fn advance(&mut self) {
        if !self.members.is_empty() {
            self.cursor = (self.cursor + 1) % self.members.len();
        }
    }

    /// A data frame of `bytes` MSDU bytes to or from station `sta` at `now`.
    pub fn observe(&mut self, now: SimTime, sta: MacAddr, bytes: u32) {
        if self.activity.is_none() {
            return;
        }
        self.roll(now, sta);
        let Some((_, meters)) = self.activity.as_mut() else { return };
        if let Some(m) = meters.get_mut(sta.0 as usize) {
            m.pkts += 1;
            m.bytes += u64::from(bytes);
        }
    }

    /// Re-evaluate the members' windows (at the start of a CFP).
    pub fn refresh(&mut self, now: SimTime) {
        if self.activity.is_none() {
            return;
        }
        let members = self.members.clone();
        for a in members {
            self.roll(now, a);
        }
    }

    /// Close the windows of `sta` that ended by `now` and apply the
    /// thresholds to the last of them.
    fn roll(&mut self, now: SimTime, sta: MacAddr) {
        let Some((c, meters)) = self.activity.as_mut() else { return };
        let Some(m) = meters.get_mut(sta.0 as usize) else { return };
        let w = c.window.as_nanos();
        let elapsed = now.saturating_since(m.win_start).as_nanos();
        if elapsed < w {
            return;
        }
        let windows = elapsed / w;
        // The last complete window: the counted one if exactly one ended,
        // an empty one otherwise.
        let (pkts, bytes) = if windows == 1 { (m.pkts, m.bytes) } else { (0, 0) };
        m.win_start += SimDur::from_nanos(windows * w);
        m.pkts = 0;
        m.bytes = 0;
        let secs = c.window.as_secs_f64();
        let (pps, bps) = (pkts as f64 / secs, bytes as f64 / secs);
        let keep = 1.0 - c.hysteresis;
        let listed = self.members.binary_search(&sta);
        match listed {
            Err(i) if pps >= c.pps && bps >= c.bps => {
                self.members.insert(i, sta);
                if i < self.cursor {
                    self.cursor += 1;
                }
                self.joins += 1;
            }
            Ok(i) if pps < keep * c.pps || bps < keep * c.bps => {
                self.members.remove(i);
                if i < self.cursor {
                    self.cursor -= 1;
                }
                if self.cursor >= self.members.len() {
                    self.cursor = 0;
                }
                self.leaves += 1;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> ActivityConfig {
        ActivityConfig { pps: 100.0, bps: 10_000.0, window: SimDur::from_millis(100), hysteresis: 0.5 }
    }
    fn ms(x: u64) -> SimTime {
        SimTime::ZERO + SimDur::from_millis(x)
    }
    /// `k` frames of `bytes` from `sta` spread over window [t, t + 100 ms).
    fn burst(l: &mut PollList, t: u64, sta: u32, k: u64, bytes: u32) {
        for i in 0..k {
            l.observe(ms(t) + SimDur::from_micros(i * 100_000 / k), MacAddr(sta), bytes);
        }
    }

    #[test]
    fn round_robin_cycles_in_aid_order() {
        let mut l = PollList::round_robin(vec![MacAddr(3), MacAddr(1), MacAddr(2)]);
        let mut seen = Vec::new();
        for _ in 0..4 {
            seen.push(l.next().unwrap().0);
            l.advance();
        }
        assert_eq!(seen, vec![1, 2, 3, 1]);
    }

    #[test]
    fn joins_above_both_thresholds_and_leaves_with_hysteresis() {
        let mut l = PollList::by_activity(4, cfg());
        // 20 frames of 1000 B in 100 ms: 200 pps, 200 kB/s: joins at the
        // window's end (seen at the next frame).
        burst(&mut l, 0, 1, 20, 1000);
        // Station 2: many packets but too few bytes (2 kB/s): stays out.
        burst(&mut l, 0, 2, 20, 10);
        burst(&mut l, 100, 1, 7, 1000); // 70 pps: above 50 (hysteresis), stays
        burst(&mut l, 100, 2, 20, 10);
        assert_eq!(l.members(), &[MacAddr(1)]);
        assert_eq!(l.joins, 1);
        // 70 pps does not let a new station join (100 needed) ...
        burst(&mut l, 200, 3, 7, 1000);
        burst(&mut l, 300, 3, 1, 1000);
        assert!(!l.contains(MacAddr(3)));
        // ... but keeps station 1 listed; 4 pps (below 50) removes it.
        burst(&mut l, 200, 1, 4, 1000);
        l.refresh(ms(300));
        assert!(!l.contains(MacAddr(1)));
        assert_eq!(l.leaves, 1);
    }

    #[test]
    fn a_silent_member_leaves_at_the_next_refresh() {
        let mut l = PollList::by_activity(3, cfg());
        burst(&mut l, 0, 2, 50, 1500);
        // (Non-members are evaluated when seen.)
        l.observe(ms(100), MacAddr(2), 1500);
        assert_eq!(l.members(), &[MacAddr(2)]);
        // Nothing for two windows: the last complete one is empty.
        l.refresh(ms(350));
        assert!(l.is_empty());
        assert_eq!(l.next(), None);
    }
}
