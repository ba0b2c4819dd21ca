//! HighSpeed TCP (S. Floyd, RFC 3649, "HighSpeed TCP for Large Congestion
//! Windows", December 2003): Standard TCP's AIMD whose increase a(w) and
//! decrease b(w) grow and shrink with the window w (in segments) once it
//! exceeds Low_Window, so that the response function reaches a window of
//! High_Window at a loss rate of High_P.
//!
//! Rules (RFC 3649; windows in segments, w = cwnd / SMSS):
//! - w <= Low_Window (38): Standard TCP, a(w) = 1, b(w) = 0.5.
//! - b(w) = (High_Decrease - 0.5) (log w - log Low_Window) /
//!   (log High_Window - log Low_Window) + 0.5, with High_Window = 83000 and
//!   High_Decrease = 0.1.
//! - The HighSpeed response function, w = 0.12 / p^0.835 (through Low_P =
//!   10^-3 at Low_Window and High_P = 10^-7 at High_Window), as the loss
//!   rate of a window: p(w) = 0.078 / w^1.2 (the table of appendix B is
//!   computed from it).
//! - a(w) = w^2 p(w) 2 b(w) / (2 - b(w)): the increase with
//!   which an AIMD of decrease b(w) has the response function p(w).
//! - Congestion avoidance, per ACK: w = w + a(w) / w, here
//!   cwnd += a(w) SMSS^2 / cwnd bytes, the fraction of a byte carried to the
//!   next ACK; up to Low_Window exactly Reno's RFC 5681 equation 3.
//! - Loss: w = (1 - b(w)) w. Here ssthresh =
//!   max((1 - b(w)) FlightSize, 2 SMSS) with b(w) of the current cwnd,
//!   which is RFC 5681's equation 4 for b = 0.5 (the connection then sets
//!   cwnd from ssthresh as for Reno).
//!
//! Choices (documented deviations):
//! - Slow start is RFC 5681's; Limited Slow-Start (RFC 3742), which RFC
//!   3649 discusses beside it, is not applied.
//! - Above High_Window, a(w) and b(w) keep their values at High_Window
//!   (RFC 3649 gives the functions up to it; Linux's table also ends
//!   there).
//! - Only High_Decrease is a key: Low_Window and High_Window (and High_P =
//!   10^-7) fix the response function p(w) the RFC's constants describe; a
//!   different High_Decrease keeps that response function (a(w) follows
//!   b(w)).
//! - As [`super::reno::Reno`], the window does not grow while the sender is
//!   application- or receiver-window-limited.
use super::{check_param, half_flight, AckInfo, CcKind, CongestionControl, LossKind, Window};
use wifitcp_core::config::ConfigError;
use wifitcp_core::schema::r;
use wifitcp_core::schema::B::{Ex, In};
use wifitcp_core::SimTime;

/// Low_Window (segments): Standard TCP up to it (RFC 3649).
pub const LOW_WINDOW: f64 = 38.0;
/// High_Window (segments): where b(w) reaches High_Decrease.
pub const HIGH_WINDOW: f64 = 83000.0;

wifitcp_core::config_table! {
    /// `[tcp.highspeed]`: HighSpeed TCP's parameter (RFC 3649).
    #[serde(deny_unknown_fields)]
    pub struct HighSpeedTable {
        /// Decrease b(w) at High_Window (83000 segments); b is 0.5 at Low_Window (38).
        #[key(range = r(Ex(0.0), In(0.5)))]
        pub high_decrease: f64 = 0.1,
    }
}

impl CcKind for HighSpeedTable {
    fn check(&self) -> Result<(), ConfigError> {
        let x = self.high_decrease;
        check_param("high_decrease", x, x > 0.0 && x <= 0.5, "must be in (0, 0.5]")
    }
    fn build(&self) -> Box<dyn CongestionControl> {
        Box::new(HighSpeed::new(self.high_decrease))
    }
}

/// The loss rate of a window of `w` segments under HighSpeed's response
/// function, p(w) = 0.078 / w^1.2 (RFC 3649).
pub fn loss_rate(w: f64) -> f64 {
    0.078 / w.powf(1.2)
}

/// The decrease b(w) (RFC 3649) for High_Decrease `high`.
pub fn decrease(w: f64, high: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 0.5;
    }
    let w = w.min(HIGH_WINDOW);
    (high - 0.5) * (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln()) + 0.5
}

/// The increase a(w) in segments per round trip (RFC 3649) for
/// High_Decrease `high`.
pub fn increase(w: f64, high: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 1.0;
    }
    let w = w.min(HIGH_WINDOW);
    let b = decrease(w, high);
    w * w * loss_rate(w) * 2.0 * b / (2.0 - b)
}

#[derive(Clone, Debug)]
pub struct HighSpeed {
    /// High_Decrease.
    pub high_decrease: f64,
    /// Growth of less than a byte, carried to the next ACK.
    carry: f64,
}

impl HighSpeed {
    pub fn new(high_decrease: f64) -> Self {
        HighSpeed { high_decrease, carry: 0.0 }
    }
}

impl Default for HighSpeed {
    fn default() -> Self {
        HighSpeed::new(HighSpeedTable::default().high_decrease)
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn on_ack(&mut self, win: &mut Window, ack: &AckInfo) {
        if ack.app_or_rwnd_limited {
            return;
        }
        let smss = win.mss as u64;
        if win.cwnd < win.ssthresh {
            win.cwnd += ack.acked_bytes.min(smss);
            return;
        }
        let w = win.cwnd as f64 / smss as f64;
        if w <= LOW_WINDOW {
            win.cwnd += (smss * smss / win.cwnd).max(1);
            return;
        }
        let grow = increase(w, self.high_decrease) * (smss * smss) as f64 / win.cwnd as f64 + self.carry;
        let whole = grow.floor();
        self.carry = grow - whole;
        win.cwnd += whole as u64;
    }

    fn ssthresh_after_loss(&mut self, _now: SimTime, win: &Window, in_flight: u64, _kind: LossKind) -> u64 {
        self.carry = 0.0;
        let w = win.cwnd as f64 / win.mss as f64;
        if w <= LOW_WINDOW {
            return half_flight(in_flight, win.mss);
        }
        let keep = (1.0 - decrease(w, self.high_decrease)) * in_flight as f64;
        (keep as u64).max(2 * win.mss as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::reno::Reno;

    /// RFC 3649 appendix B: (w, a(w), b(w)) at the windows where a(w)
    /// reaches the next integer, every row to 5036 segments and some
    /// further ones.
    const TABLE: &[(f64, f64, f64)] = &[
        (38.0, 1.0, 0.50),
        (118.0, 2.0, 0.44),
        (221.0, 3.0, 0.41),
        (347.0, 4.0, 0.38),
        (495.0, 5.0, 0.37),
        (663.0, 6.0, 0.35),
        (851.0, 7.0, 0.34),
        (1058.0, 8.0, 0.33),
        (1284.0, 9.0, 0.32),
        (1529.0, 10.0, 0.31),
        (1793.0, 11.0, 0.30),
        (2076.0, 12.0, 0.29),
        (2378.0, 13.0, 0.28),
        (2699.0, 14.0, 0.28),
        (3039.0, 15.0, 0.27),
        (3399.0, 16.0, 0.27),
        (3778.0, 17.0, 0.26),
        (4177.0, 18.0, 0.26),
        (4596.0, 19.0, 0.25),
        (5036.0, 20.0, 0.25),
        (7558.0, 25.0, 0.22),
        (9991.0, 29.0, 0.21),
        (12834.0, 33.0, 0.20),
        (18955.0, 40.0, 0.18),
    ];

    #[test]
    fn the_functions_give_the_rfcs_table() {
        for &(w, a, b) in TABLE {
            assert_eq!(increase(w, 0.1).round(), a, "a({w}) = {}", increase(w, 0.1));
            assert_eq!((decrease(w, 0.1) * 100.0).round() / 100.0, b, "b({w}) = {}", decrease(w, 0.1));
        }
        assert!((decrease(HIGH_WINDOW, 0.1) - 0.1).abs() < 1e-12);
        assert_eq!(decrease(2.0 * HIGH_WINDOW, 0.1), decrease(HIGH_WINDOW, 0.1));
    }

    #[test]
    fn the_response_function_meets_its_two_points() {
        // Low_P = 10^-3 at Low_Window, High_P = 10^-7 at
        // High_Window (to the precision of the constants 0.078 and 1.2)
        assert!((loss_rate(LOW_WINDOW) / 1e-3 - 1.0).abs() < 0.02, "{}", loss_rate(LOW_WINDOW));
        assert!((loss_rate(HIGH_WINDOW) / 1e-7 - 1.0).abs() < 0.03, "{}", loss_rate(HIGH_WINDOW));
        // w = 0.12 / p^0.835 is its inverse (to the precision of the
        // rounded constants: 1 / 1.2 is 0.833)
        for w in [100.0, 1000.0, 10000.0] {
            assert!((0.12 / loss_rate(w).powf(0.835) / w - 1.0).abs() < 0.03, "{w}");
        }
        // Standard TCP's at Low_Window: w = 1.2 / sqrt(p)
        assert!((1.2 / loss_rate(LOW_WINDOW).sqrt() / LOW_WINDOW - 1.0).abs() < 0.01);
    }

    fn win(cwnd_pkts: u64) -> Window {
        Window { cwnd: cwnd_pkts * 1000, ssthresh: 1000, mss: 1000 }
    }

    fn ack() -> AckInfo {
        AckInfo {
            now: SimTime::ZERO,
            acked_bytes: 1000,
            rtt: None,
            prior_in_flight: 0,
            app_or_rwnd_limited: false,
        }
    }

    #[test]
    fn up_to_low_window_it_is_reno() {
        let (mut h, mut r) = (HighSpeed::default(), Reno::new());
        let (mut wh, mut wr) = (win(10), win(10));
        while wh.cwnd < 38_000 {
            h.on_ack(&mut wh, &ack());
            r.on_ack(&mut wr, &ack());
            assert_eq!(wh, wr);
        }
        let t = SimTime::ZERO;
        let w = win(30);
        assert_eq!(h.ssthresh_after_loss(t, &w, 30_000, LossKind::FastRetransmit), 15_000);
    }

    #[test]
    fn above_low_window_it_grows_by_a_and_keeps_one_minus_b() {
        let mut h = HighSpeed::default();
        // one round of ACKs at 1058 segments grows the window by a(w) = 8
        let mut w = win(1058);
        for _ in 0..1058 {
            h.on_ack(&mut w, &ack());
        }
        let grown = (w.cwnd - 1_058_000) as f64 / 1000.0;
        assert!((grown - increase(1058.0, 0.1)).abs() < 0.1, "{grown}");
        // a loss keeps 1 - b(w) = 0.67 of the flight
        let w = win(1058);
        let ss = h.ssthresh_after_loss(SimTime::ZERO, &w, 1_058_000, LossKind::FastRetransmit);
        assert!((ss as f64 / 1_058_000.0 - (1.0 - decrease(1058.0, 0.1))).abs() < 1e-6);
        assert_eq!(((1.0 - ss as f64 / 1_058_000.0) * 100.0).round(), 33.0);
        // an application-limited sender does not grow
        let mut w = win(1058);
        h.on_ack(&mut w, &AckInfo { app_or_rwnd_limited: true, ..ack() });
        assert_eq!(w.cwnd, 1_058_000);
    }

    #[test]
    fn high_decrease_is_checked_and_keeps_the_response_function() {
        assert!(HighSpeedTable::default().check().is_ok());
        let e = HighSpeedTable { high_decrease: 0.6 }.check().unwrap_err();
        assert_eq!(e.to_string(), "high_decrease: must be in (0, 0.5], got 0.6");
        assert!(HighSpeedTable { high_decrease: 0.0 }.check().is_err());
        // a(w) and b(w) together keep p(w): a = w^2 p 2b / (2 - b)
        let (w, high) = (5000.0, 0.3);
        let (a, b) = (increase(w, high), decrease(w, high));
        assert!((a * (2.0 - b) / (2.0 * b * w * w) / loss_rate(w) - 1.0).abs() < 1e-12);
        assert_eq!(HighSpeedTable::default().build().name(), "highspeed");
    }
}
