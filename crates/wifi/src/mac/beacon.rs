//! Beacons (802.11-2020 11.1.3.2): an AP sends a Beacon frame at every
//! target beacon transmission time (TBTT), `dot11BeaconPeriod` time units
//! apart (1 TU = 1024 us; default 100 TU = 102.4 ms, as ns-3's
//! `ApWifiMac::BeaconInterval` and real APs).
//!
//! Access rule: at TBTT the beacon waits until the medium has been idle for
//! PIFS (SIFS + one slot, 10.3.2.3.4) and is then sent without backoff; a
//! frame on the air, or an exchange of the AP's own DCF in progress, delays
//! it (the beacon is sent after it: 11.1.3.2 lets a beacon be delayed by
//! the medium; the next TBTT stays on schedule). This is what ns-3 does
//! (the beacon Txop of `ApWifiMac` has AIFSN 1 and CWmin = CWmax = 0:
//! channel access after SIFS + 1 slot of idle medium, no backoff) and what
//! mac80211 drivers program into the hardware beacon queue (AIFS 1, CW 0).
//! A beacon that would start at or after the next TBTT is skipped.
//!
//! Rate: the lowest rate of the BSSBasicRateSet (10.6.6.2: group-addressed
//! frames go at a basic rate; ns-3's non-unicast mode is its default, the
//! lowest, mode). First TBTT: drawn uniformly in [0, interval) per AP (ns-3
//! draws the first beacon's start the same way, `EnableBeaconJitter`), so
//! that the APs of a cell do not beacon in step.
//!
//! Size ([`beacon_bytes`]): MAC header 24 + FCS 4 + the fixed fields
//! (Timestamp 8, Beacon Interval 2, Capability Information 2; 9.3.3.2) +
//! the elements (9.4.2): SSID (2 + 7, the name "wifitcp"), Supported Rates
//! (2 + up to 8 rates), Extended Supported Rates (2 + the rest, if more than
//! 8), DS Parameter Set (3), TIM (2 + 4: DTIM count, DTIM period, bitmap
//! control, one octet of partial virtual bitmap), ERP (3, 802.11g only), CF
//! Parameter Set (2 + 6: CFP count, CFP period, CFPMaxDuration,
//! CFPDurRemaining; only under PCF), and for 802.11n HT Capabilities
//! (2 + 26, 9.4.2.56) and HT Operation (2 + 22, 9.4.2.57). 802.11b: 64
//! bytes; 802.11a: 68; 802.11g: 77; 802.11n: 120 (each + 8 with the CF
//! Parameter Set).
//!
//! The simulator's frames name one receiver: a group-addressed frame
//! (Beacon, CF-End) names its sender as RA, so that no station takes it
//! for a frame addressed to it and the medium judges it with nobody's
//! channel; every station in range decodes it.
//!
//! Invariants: TBTTs are `first + k * interval`; at most one beacon per
//! TBTT; the clock never schedules a beacon in the past.
use super::frame::{Frame, FrameKind, MacAddr, Mpdus};
use crate::phy::{PhyStandard, PhyTiming, Rate};
use wifitcp_core::{SimDur, SimTime};

/// One time unit (TU), 1024 us (3.1).
pub const TU: SimDur = SimDur::from_nanos(1_024_000);

/// The bytes of a Beacon frame (module docs): `rates` supported rates,
/// and the CF Parameter Set element when `cf` (a point coordinator).
pub fn beacon_bytes(standard: PhyStandard, rates: usize, cf: bool) -> u32 {
    let header_fcs = 24 + 4;
    let fixed = 8 + 2 + 2;
    let ssid = 2 + 7;
    let supported = 2 + rates.min(8) as u32;
    let extended = if rates > 8 { 2 + (rates - 8) as u32 } else { 0 };
    let ds = 3;
    let tim = 2 + 4;
    let erp = if standard == PhyStandard::Dot11g { 3 } else { 0 };
    let cf_params = if cf { 2 + 6 } else { 0 };
    let ht = if standard == PhyStandard::Dot11n { (2 + 26) + (2 + 22) } else { 0 };
    header_fcs + fixed + ssid + supported + extended + ds + tim + erp + cf_params + ht
}

/// Beacon parameters of one AP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeaconParams {
    /// Beacon interval (dot11BeaconPeriod).
    pub interval: SimDur,
    /// The first TBTT.
    pub first_tbtt: SimTime,
    /// Lowest basic rate.
    pub rate: Rate,
    /// Frame length in bytes ([`beacon_bytes`]).
    pub bytes: u32,
}

/// The TBTT schedule of one AP and its beacon frames.
#[derive(Clone, Debug)]
pub struct BeaconClock {
    p: BeaconParams,
    /// The TBTT of the next beacon to send.
    next_tbtt: SimTime,
    airtime: SimDur,
    /// Beacons sent, and TBTTs whose beacon was skipped.
    pub sent: u64,
    pub skipped: u64,
}

impl BeaconClock {
    pub fn new(p: BeaconParams, t: &PhyTiming) -> BeaconClock {
        assert!(p.interval > SimDur::ZERO, "a beacon interval of zero");
        BeaconClock { p, next_tbtt: p.first_tbtt, airtime: t.tx_time(p.bytes, p.rate), sent: 0, skipped: 0 }
    }
    pub fn params(&self) -> &BeaconParams {
        &self.p
    }
    /// The TBTT of the next beacon.
    #[inline]
    pub fn tbtt(&self) -> SimTime {
        self.next_tbtt
    }
    /// Airtime of one beacon.
    pub fn airtime(&self) -> SimDur {
        self.airtime
    }
    /// The beacon due at `tbtt()` cannot start before `now`: skip the
    /// TBTTs it would overrun (a beacon never starts at or after the next
    /// TBTT).
    pub fn skip_missed(&mut self, now: SimTime) {
        while self.next_tbtt + self.p.interval <= now {
            self.next_tbtt += self.p.interval;
            self.skipped += 1;
        }
    }
    /// The beacon of the current TBTT starts now: the next TBTT follows.
    pub fn started(&mut self) {
        self.next_tbtt += self.p.interval;
        self.sent += 1;
    }
    /// The beacon frame of AP `ta`; `duration` is what stations put in
    /// their NAV (the CF Parameter Set's CFPDurRemaining under PCF, else 0).
    pub fn frame(&self, ta: MacAddr, duration: SimDur) -> Frame {
        Frame {
            mu: None,
            kind: FrameKind::Beacon,
            ta,
            ra: ta,
            duration,
            seq: 0,
            retry: false,
            mpdu_bytes: self.p.bytes,
            rate: self.p.rate,
            airtime: self.airtime,
            contended: false,
            mpdus: Mpdus::none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phy::PhyConfig;

    #[test]
    fn sizes_match_their_parts() {
        // 28 + 12 + 9 + (2 + 4) + 3 + 6 = 64 for 802.11b's four rates.
        assert_eq!(beacon_bytes(PhyStandard::Dot11b, 4, false), 64);
        assert_eq!(beacon_bytes(PhyStandard::Dot11a, 8, false), 68);
        // 802.11g: 12 rates -> 8 supported + 4 extended, and ERP.
        assert_eq!(beacon_bytes(PhyStandard::Dot11g, 12, false), 28 + 12 + 9 + 10 + 6 + 3 + 6 + 3);
        assert_eq!(beacon_bytes(PhyStandard::Dot11a, 8, true), 76);
        assert_eq!(beacon_bytes(PhyStandard::Dot11n, 8, false), 68 + 52);
    }

    #[test]
    fn tbtts_stay_on_schedule() {
        let t = PhyTiming::from_config(&PhyConfig::new(PhyStandard::Dot11b, 11.0)).unwrap();
        let p = BeaconParams { interval: TU * 100, first_tbtt: SimTime::ZERO, rate: Rate(10), bytes: 64 };
        let mut c = BeaconClock::new(p, &t);
        // 1 Mbit/s long preamble: 192 us + 64 * 8 us.
        assert_eq!(c.airtime(), SimDur::from_micros(192 + 512));
        c.started();
        assert_eq!(c.tbtt(), SimTime::ZERO + TU * 100);
        // A beacon held up past two TBTTs: only the last one is sent.
        c.skip_missed(SimTime::ZERO + TU * 310);
        assert_eq!(c.tbtt(), SimTime::ZERO + TU * 300);
        assert_eq!(c.skipped, 2);
    }
}
