//! MU EDCA (IEEE 802.11ax-2021 26.2.7, "EDCA operation using MU EDCA
//! parameters"; the MU EDCA Parameter Set element, 9.4.2.245): the
//! contention parameters an HE non-AP station uses for an access category
//! after trigger-based uplink served it, until its MU EDCA timer runs out.
//!
//! Rules, one backoff entity each:
//! - Switch (26.2.7): when the station's HE TB PPDU carried QoS Data of
//!   the entity's AC and the immediate response (the multi-STA BlockAck)
//!   acknowledged it, the entity uses MU AIFSN, MU CWmin and MU CWmax, and
//!   its MU EDCA timer (re)starts at that instant ([`MuEdca::start`]).
//! - Timer: the switch lasts the element's MU EDCA Timer (units of 8 TUs,
//!   8.192 ms, 1-255 in the element; 0 here: MU EDCA off, the entity never
//!   switches). When it runs out the entity returns to the EDCA Parameter
//!   Set ([`MuEdca::expire`]). The expiry is a wake-up of the MAC
//!   ([`MuEdca::expires_at`]), not a per-slot event.
//! - AIFSN 0 (9.4.2.245: "the STA shall not use EDCA for that AC"): while
//!   the timer runs the entity does not count at all (no counting start,
//!   [`MuEdca::count_start`] is `None`); at expiry it defers its normal
//!   AIFS from the later of the expiry and the instant the medium became
//!   free, as if the medium had been busy for it until then.
//! - AIFSN above 0: the entity counts with AIFS = SIFS + MU AIFSN x slot
//!   from the next idle period; an entity already counting at expiry keeps
//!   its counting start (its AIFS has passed), the normal AIFSN applies
//!   from the next idle period. Model choice: the standard names the
//!   parameters, not when an AIFS change takes effect within an idle
//!   period.
//! - CW: the contention window in use is not changed by the switch nor
//!   by the expiry; its next reset goes to the active CWmin, its next
//!   growth is capped by the active CWmax (`cw_min`, `cw_max`). The
//!   backoff counter drawn before the switch keeps counting. (ns-3 3.37
//!   reads CWmin, CWmax and AIFSN the same way, from whichever set is
//!   active when it needs them.)
use super::{Deferral, IfsTimes};
use wifitcp_core::{SimDur, SimTime};

/// One AC's record of the MU EDCA Parameter Set element (9.4.2.245).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MuEdcaParams {
    /// MU AIFSN; 0: EDCA disabled for the AC while the timer runs.
    pub aifsn: u32,
    pub cw_min: u32,
    pub cw_max: u32,
    /// MU EDCA Timer; zero: MU EDCA off for the AC.
    pub timer: SimDur,
}

impl MuEdcaParams {
    /// MU EDCA off (ns-3 3.37's HeConfiguration defaults: timer 0, MU
    /// AIFSN 0, MU CWmin 15, MU CWmax 1023).
    pub const OFF: MuEdcaParams = MuEdcaParams { aifsn: 0, cw_min: 15, cw_max: 1023, timer: SimDur::ZERO };
}

/// One backoff entity's MU EDCA state (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MuEdca {
    pub p: MuEdcaParams,
    /// When the running timer expires (`None`: normal EDCA parameters).
    until: Option<SimTime>,
    /// The end of the last period with EDCA disabled: counting starts one
    /// AIFS after it at the earliest.
    not_before: SimTime,
}

impl MuEdca {
    pub const fn new(p: MuEdcaParams) -> MuEdca {
        MuEdca { p, until: None, not_before: SimTime::ZERO }
    }

    /// MU EDCA is configured (a nonzero timer).
    #[inline]
    pub fn enabled(&self) -> bool {
        self.p.timer > SimDur::ZERO
    }

    /// The MU EDCA parameters are in use.
    #[inline]
    pub fn active(&self) -> bool {
        self.until.is_some()
    }

    /// EDCA is disabled for the entity (MU AIFSN 0, timer running).
    #[inline]
    pub fn disabled(&self) -> bool {
        self.active() && self.p.aifsn == 0
    }

    /// Switch to the MU EDCA parameters at `now` and (re)start the timer
    /// (26.2.7). No effect with MU EDCA off. The caller stops the entity's
    /// counting first (the medium was busy for the response anyway).
    pub fn start(&mut self, now: SimTime) -> bool {
        if !self.enabled() {
            return false;
        }
        self.until = Some(now + self.p.timer);
        true
    }

    /// When the timer runs out (`SimTime::NEVER`: not running).
    #[inline]
    pub fn expires_at(&self) -> SimTime {
        self.until.unwrap_or(SimTime::NEVER)
    }

    /// The timer ran out at or before `now`: back to the EDCA parameters.
    /// Returns whether it did (the caller resumes counting).
    pub fn expire(&mut self, now: SimTime) -> bool {
        match self.until {
            Some(u) if u <= now => {
                self.until = None;
                if self.p.aifsn == 0 {
                    self.not_before = u;
                }
                true
            }
            _ => false,
        }
    }

    /// The AIFSN in use, given the EDCA Parameter Set's.
    #[inline]
    pub fn aifsn(&self, normal: u32) -> u32 {
        self.in_use(normal, self.p.aifsn)
    }

    /// The CWmin in use.
    #[inline]
    pub fn cw_min(&self, normal: u32) -> u32 {
        self.in_use(normal, self.p.cw_min)
    }

    /// The CWmax in use.
    #[inline]
    pub fn cw_max(&self, normal: u32) -> u32 {
        self.in_use(normal, self.p.cw_max)
    }

    /// `mu` while the timer runs, else `normal`.
    #[inline]
    fn in_use(&self, normal: u32, mu: u32) -> u32 {
        if self.active() {
            mu
        } else {
            normal
        }
    }

    /// When the entity starts counting (`Deferral::count_start` with the
    /// AIFS in use, `normal_aifsn` being the EDCA Parameter Set's), or
    /// `None`: the medium is busy, or EDCA is disabled for the entity.
    #[inline]
    pub fn count_start(
        &self,
        d: &Deferral,
        normal_aifsn: u32,
        sifs: SimDur,
        slot: SimDur,
        t: &IfsTimes,
    ) -> Option<SimTime> {
        if self.disabled() {
            return None;
        }
        let aifs = sifs + slot * u64::from(self.aifsn(normal_aifsn));
        // (the medium counts as busy for it until `not_before`)
        d.count_start(aifs, t).map(|s| s.max(self.not_before + d.ifs(aifs, t)))
    }
}

impl Default for MuEdca {
    fn default() -> Self {
        MuEdca::new(MuEdcaParams::OFF)
    }
}
