//! Standard AIMD congestion control (RFC 5681 section 3.1), the window
//! growth of Tahoe, Reno, NewReno and SACK TCP. The loss-recovery variant is
//! a connection setting ([`crate::RecoveryVariant`]); this controller only
//! grows the window and halves it on loss. A scenario selects it as `cc =
//! "reno"` or `cc = "newreno"` (the name Linux and ns-3 give their default
//! controller); both are this controller, whatever `recovery` says.
//!
//! - Slow start (cwnd < ssthresh): RFC 5681 equation (2),
//!   `cwnd += min(N, SMSS)` per ACK, N = newly acknowledged bytes.
//! - Congestion avoidance: RFC 5681 equation (3),
//!   `cwnd += max(1, SMSS * SMSS / cwnd)` per ACK.
//! - Optional appropriate byte counting (RFC 3465, [`Reno::with_abc`]): slow
//!   start adds `min(N, L * SMSS)`, congestion avoidance adds one SMSS per
//!   cwnd bytes acknowledged. Off by default (RFC 5681 per-ACK rules, as ns-2);
//!   it matters when ACKs are thinned (delayed ACKs, ACK filtering).
//! - Loss: ssthresh = max(FlightSize / 2, 2 * SMSS), equation (4).
//! - Window validation: the window does not grow while the sender is not
//!   cwnd-limited (application- or receiver-window-limited), in the spirit of
//!   RFC 7661 and as Linux does. Deviation from plain RFC 5681, which does
//!   not say; switch off with `validate = false` (ns-2 behaviour).
use super::{half_flight, AckInfo, CcEvent, CcKind, CongestionControl, LossKind, Window};
use wifitcp_core::SimTime;

wifitcp_core::config_table! {
    /// `cc = "reno"` and `cc = "newreno"`: no keys.
    #[serde(deny_unknown_fields)]
    pub struct RenoTable {}
}

impl CcKind for RenoTable {
    fn build(&self) -> Box<dyn CongestionControl> {
        Box::new(Reno::new())
    }
}

#[derive(Clone, Debug)]
pub struct Reno {
    /// RFC 3465 limit L in segments for slow start, `None` = RFC 5681 rules.
    pub abc: Option<u32>,
    /// Do not grow the window when not cwnd-limited.
    pub validate: bool,
    bytes_acked: u64,
}

impl Default for Reno {
    fn default() -> Self {
        Reno { abc: None, validate: true, bytes_acked: 0 }
    }
}

impl Reno {
    pub fn new() -> Self {
        Self::default()
    }
    /// Appropriate byte counting with limit `l` (RFC 3465 recommends 2).
    pub fn with_abc(l: u32) -> Self {
        Reno { abc: Some(l.max(1)), ..Self::default() }
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_ack(&mut self, win: &mut Window, ack: &AckInfo) {
        if self.validate && ack.app_or_rwnd_limited {
            return;
        }
        let smss = win.mss as u64;
        if win.cwnd < win.ssthresh {
            let cap = self.abc.map_or(smss, |l| l as u64 * smss);
            win.cwnd += ack.acked_bytes.min(cap);
        } else if self.abc.is_some() {
            self.bytes_acked += ack.acked_bytes;
            if self.bytes_acked >= win.cwnd {
                self.bytes_acked -= win.cwnd;
                win.cwnd += smss;
            }
        } else {
            win.cwnd += (smss * smss / win.cwnd).max(1);
        }
    }

    fn ssthresh_after_loss(&mut self, _now: SimTime, win: &Window, in_flight: u64, _kind: LossKind) -> u64 {
        self.bytes_acked = 0;
        half_flight(in_flight, win.mss)
    }

    fn on_event(&mut self, _now: SimTime, _win: &mut Window, ev: CcEvent) {
        if ev == CcEvent::RecoveryExit {
            self.bytes_acked = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wifitcp_core::SimTime;

    fn ack(bytes: u64, limited: bool) -> AckInfo {
        AckInfo { now: SimTime::ZERO, acked_bytes: bytes, rtt: None, prior_in_flight: 0, app_or_rwnd_limited: limited }
    }
    const M: u64 = 1000;

    #[test]
    fn slow_start_adds_min_acked_smss() {
        let mut r = Reno::new();
        let mut w = Window { cwnd: 2 * M, ssthresh: 100 * M, mss: M as u32 };
        r.on_ack(&mut w, &ack(2 * M, false));
        assert_eq!(w.cwnd, 3 * M, "eq. (2): at most one SMSS per ACK");
        r.on_ack(&mut w, &ack(500, false));
        assert_eq!(w.cwnd, 3 * M + 500);
    }

    #[test]
    fn congestion_avoidance_one_smss_per_rtt() {
        let mut r = Reno::new();
        let mut w = Window { cwnd: 10 * M, ssthresh: 5 * M, mss: M as u32 };
        for _ in 0..10 {
            r.on_ack(&mut w, &ack(M, false));
        }
        // ten ACKs of one window: about one SMSS (slightly less, as cwnd grows)
        assert!(w.cwnd > 10 * M + 900 && w.cwnd <= 11 * M, "{}", w.cwnd);
    }

    #[test]
    fn abc_counts_bytes() {
        let mut r = Reno::with_abc(2);
        let mut w = Window { cwnd: 2 * M, ssthresh: 100 * M, mss: M as u32 };
        r.on_ack(&mut w, &ack(4 * M, false));
        assert_eq!(w.cwnd, 4 * M, "L = 2");
        let mut w = Window { cwnd: 4 * M, ssthresh: 4 * M, mss: M as u32 };
        r.on_ack(&mut w, &ack(2 * M, false));
        assert_eq!(w.cwnd, 4 * M);
        r.on_ack(&mut w, &ack(2 * M, false));
        assert_eq!(w.cwnd, 5 * M, "one SMSS per cwnd of bytes");
    }

    #[test]
    fn no_growth_when_not_cwnd_limited_and_halving() {
        let mut r = Reno::new();
        let mut w = Window { cwnd: 4 * M, ssthresh: 100 * M, mss: M as u32 };
        r.on_ack(&mut w, &ack(M, true));
        assert_eq!(w.cwnd, 4 * M);
        assert_eq!(r.ssthresh_after_loss(SimTime::ZERO, &w, 10 * M, LossKind::FastRetransmit), 5 * M);
        assert_eq!(r.ssthresh_after_loss(SimTime::ZERO, &w, 3 * M, LossKind::Timeout), 2 * M, "2 SMSS floor");
    }
}
