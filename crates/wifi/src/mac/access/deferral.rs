//! A station's view of the medium, and the IFS it defers before counting.
//!
//! Carrier sense is the union of the physical CCA state (the PHY's
//! PHY-CCA.indication, reported by the medium) and the NAV, the virtual
//! carrier sense set from the Duration field of frames addressed to others
//! (10.3.2.4). After a frame received in error the station defers EIFS
//! instead of DIFS until it receives a frame correctly (10.3.2.3.7).
use wifitcp_core::{SimDur, SimTime};

/// The interframe spaces every entity of a station shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IfsTimes {
    pub difs: SimDur,
    pub eifs: SimDur,
}

/// Carrier sense of one station (or of a group of stations that see the
/// medium alike).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deferral {
    /// When the physical CCA last turned idle.
    pub cca_idle_at: SimTime,
    /// End of the NAV.
    pub nav_end: SimTime,
    /// End of the station's own last busy period (its transmission, or a
    /// response timeout): counting starts no earlier.
    pub self_busy_until: SimTime,
    pub cca_busy: bool,
    /// The last frame detected was received in error and no correct frame
    /// since (10.3.2.3.7): defer EIFS instead of DIFS.
    pub use_eifs: bool,
}

impl Default for Deferral {
    fn default() -> Self {
        Deferral::new()
    }
}

impl Deferral {
    pub const fn new() -> Deferral {
        Deferral {
            cca_idle_at: SimTime::ZERO,
            nav_end: SimTime::ZERO,
            self_busy_until: SimTime::ZERO,
            cca_busy: false,
            use_eifs: false,
        }
    }

    /// The instant from which the medium has been free (CCA idle, NAV
    /// expired, own busy period over), or `None` while CCA is busy. May lie
    /// in the future when the NAV or the own busy period runs beyond now.
    /// A MAC in a frame exchange of its own is not free either; it checks
    /// that itself before asking.
    #[inline(always)]
    pub fn free_since(&self) -> Option<SimTime> {
        if self.cca_busy {
            return None;
        }
        Some(self.cca_idle_at.max(self.nav_end).max(self.self_busy_until))
    }

    /// Whether the medium is busy at `now` for a frame queued then
    /// (10.3.4.2; 10.22.2.2 a) for an EDCAF): physical carrier sense busy,
    /// the NAV set (virtual carrier sense, 10.3.2.4), or the station's own
    /// busy period (its transmission, a response timeout) running. The
    /// SIFS before a response of its own is idle medium: nothing is on the
    /// air and no NAV is set (counting starts after that exchange in any
    /// case, `count_start`).
    #[inline]
    pub fn busy_at(&self, now: SimTime) -> bool {
        self.cca_busy || self.nav_end > now || self.self_busy_until > now
    }

    /// The physical CCA changed at `now`.
    #[inline(always)]
    pub fn cca(&mut self, now: SimTime, busy: bool) {
        self.cca_busy = busy;
        if !busy {
            self.cca_idle_at = now;
        }
    }

    /// A frame ended at `now`: received correctly (`ok`) or in error. A
    /// correct frame ends the EIFS condition and, if addressed to another
    /// station (`third_party`), sets the NAV from its Duration (10.3.2.4);
    /// an erroneous one starts the EIFS condition (10.3.2.3.7).
    #[inline(always)]
    pub fn heard(&mut self, now: SimTime, ok: bool, third_party: bool, duration: SimDur) {
        self.use_eifs = !ok;
        if ok && third_party {
            self.nav_end = self.nav_end.max(now + duration);
        }
    }

    /// When an entity with arbitration IFS `aifs` starts counting: one IFS
    /// after the medium became free (`None` while CCA is busy).
    #[inline(always)]
    pub fn count_start(&self, aifs: SimDur, t: &IfsTimes) -> Option<SimTime> {
        let free = self.free_since()?;
        Some(free + self.ifs(aifs, t))
    }

    /// The IFS an entity with arbitration IFS `aifs` waits once the medium
    /// is free: `aifs`, or EIFS - DIFS + `aifs` after an erroneous
    /// reception (10.3.2.3.7; 10.22.2.4 for EDCA). For the DCF `aifs` is
    /// DIFS, which gives DIFS or EIFS.
    #[inline(always)]
    pub fn ifs(&self, aifs: SimDur, t: &IfsTimes) -> SimDur {
        if self.use_eifs {
            (t.eifs + aifs).saturating_sub(t.difs)
        } else {
            aifs
        }
    }
}

/// The carrier-sense state and counting start that every bystander of one
/// collision domain shares (the medium's group keeps one for all of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CsView {
    pub cs: Deferral,
    /// Instant counting started in the current idle period (`None` while
    /// the medium is busy).
    pub count_from: Option<SimTime>,
}
