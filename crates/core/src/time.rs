//! Integer-nanosecond instants and durations.
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Sub, SubAssign};

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct SimTime(pub u64);

/// A non-negative span of simulated time, in nanoseconds.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct SimDur(pub u64);

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    /// A time later than any event of a real run; used as "never".
    pub const NEVER: SimTime = SimTime(u64::MAX);
    pub const fn from_nanos(ns: u64) -> Self {
        SimTime(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimTime(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimTime(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s * 1_000_000_000)
    }
    pub fn from_secs_f64(s: f64) -> Self {
        assert!(s >= 0.0 && s.is_finite(), "negative or non-finite time {s}");
        SimTime((s * 1e9).round() as u64)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// The earlier of two optional instants (`None`: not set). Straight-line
    /// code: a component's next wake-up is the earliest of its deadlines,
    /// asked after every input.
    #[inline(always)]
    pub fn earliest(a: Option<SimTime>, b: Option<SimTime>) -> Option<SimTime> {
        match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, None) => x,
            (None, y) => y,
        }
    }
    /// Duration since `earlier`; panics if `earlier` is later than `self`.
    pub fn since(self, earlier: SimTime) -> SimDur {
        assert!(earlier.0 <= self.0, "since(): {earlier:?} is after {self:?}");
        SimDur(self.0 - earlier.0)
    }
    /// Duration since `earlier`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: SimTime) -> SimDur {
        SimDur(self.0.saturating_sub(earlier.0))
    }
    pub fn is_never(self) -> bool {
        self.0 == u64::MAX
    }
}

impl SimDur {
    pub const ZERO: SimDur = SimDur(0);
    pub const fn from_nanos(ns: u64) -> Self {
        SimDur(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        SimDur(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDur(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDur(s * 1_000_000_000)
    }
    pub fn from_secs_f64(s: f64) -> Self {
        assert!(s >= 0.0 && s.is_finite(), "negative or non-finite duration {s}");
        SimDur((s * 1e9).round() as u64)
    }
    pub fn from_micros_f64(us: f64) -> Self {
        assert!(us >= 0.0 && us.is_finite(), "negative or non-finite duration {us}");
        SimDur((us * 1e3).round() as u64)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_micros_f64(self) -> f64 {
        self.0 as f64 * 1e-3
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    pub fn saturating_sub(self, o: SimDur) -> SimDur {
        SimDur(self.0.saturating_sub(o.0))
    }
}

impl Add<SimDur> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDur) -> SimTime {
        SimTime(self.0.checked_add(d.0).expect("SimTime overflow"))
    }
}
impl AddAssign<SimDur> for SimTime {
    fn add_assign(&mut self, d: SimDur) {
        *self = *self + d;
    }
}
impl Sub<SimDur> for SimTime {
    type Output = SimTime;
    fn sub(self, d: SimDur) -> SimTime {
        SimTime(self.0.checked_sub(d.0).expect("SimTime before zero"))
    }
}
impl Sub<SimTime> for SimTime {
    type Output = SimDur;
    fn sub(self, o: SimTime) -> SimDur {
        self.since(o)
    }
}
impl Add for SimDur {
    type Output = SimDur;
    fn add(self, o: SimDur) -> SimDur {
        SimDur(self.0.checked_add(o.0).expect("SimDur overflow"))
    }
}
impl AddAssign for SimDur {
    fn add_assign(&mut self, o: SimDur) {
        *self = *self + o;
    }
}
impl Sub for SimDur {
    type Output = SimDur;
    fn sub(self, o: SimDur) -> SimDur {
        SimDur(self.0.checked_sub(o.0).expect("negative SimDur"))
    }
}
impl SubAssign for SimDur {
    fn sub_assign(&mut self, o: SimDur) {
        *self = *self - o;
    }
}
impl Mul<u64> for SimDur {
    type Output = SimDur;
    fn mul(self, k: u64) -> SimDur {
        SimDur(self.0.checked_mul(k).expect("SimDur overflow"))
    }
}
impl Div<u64> for SimDur {
    type Output = SimDur;
    fn div(self, k: u64) -> SimDur {
        SimDur(self.0 / k)
    }
}

/// `floor(x / d)` for a fixed duration `d` and any duration `x`, by
/// multiplying with a reciprocal computed once instead of dividing (the MAC
/// divides elapsed idle time by the slot time at every busy transition, and
/// a 64-bit division costs tens of cycles). Exact: with
/// `m = floor((2^64 - 1) / d) >= 2^64 / d - 1`, the estimate
/// `floor(x * m / 2^64)` lies in `(x / d - 1, x / d]`, so it is the quotient
/// or one less, and one comparison corrects it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DurDivisor {
    d: u64,
    m: u64,
}

impl DurDivisor {
    /// Divisor `d` (a zero duration divides as 1 ns).
    pub fn new(d: SimDur) -> DurDivisor {
        let d = d.0.max(1);
        DurDivisor { d, m: u64::MAX / d }
    }

    /// Whole multiples of the divisor in `x`.
    #[inline(always)]
    pub fn whole(&self, x: SimDur) -> u64 {
        let q = ((x.0 as u128 * self.m as u128) >> 64) as u64;
        if x.0 - q * self.d >= self.d {
            q + 1
        } else {
            q
        }
    }
}

impl fmt::Debug for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t={}ns", self.0)
    }
}
impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Debug for SimDur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}ns", self.0)
    }
}
impl fmt::Display for SimDur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}us", self.as_micros_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn earliest_of_optional_instants() {
        let (a, b) = (Some(SimTime::from_micros(3)), Some(SimTime::from_micros(2)));
        assert_eq!(SimTime::earliest(a, b), b);
        assert_eq!(SimTime::earliest(b, a), b);
        assert_eq!(SimTime::earliest(a, None), a);
        assert_eq!(SimTime::earliest(None, b), b);
        assert_eq!(SimTime::earliest(None, None), None);
        assert_eq!(SimTime::earliest(Some(SimTime::NEVER), None), Some(SimTime::NEVER));
    }
    #[test]
    fn arithmetic_keeps_types_apart() {
        let t = SimTime::from_micros(10) + SimDur::from_micros(5);
        assert_eq!(t, SimTime::from_nanos(15_000));
        assert_eq!(t - SimTime::from_micros(10), SimDur::from_micros(5));
        assert_eq!(SimDur::from_micros(3) * 4, SimDur::from_micros(12));
    }
    #[test]
    #[should_panic]
    fn negative_duration_panics() {
        let _ = SimTime::from_micros(1) - SimTime::from_micros(2);
    }
    #[test]
    fn divisor_matches_division() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let ds = [1, 2, 3, 7, 9_000, 20_000, 1 << 32, u64::MAX / 3, u64::MAX];
        for &d in &ds {
            let div = DurDivisor::new(SimDur(d));
            for v in
                [0, 1, d - 1, d, d.saturating_add(1), u64::MAX, u64::MAX - 1, d.saturating_mul(1000).saturating_sub(1)]
            {
                assert_eq!(div.whole(SimDur(v)), v / d, "{v} / {d}");
            }
            for _ in 0..20_000 {
                let v = next() >> (next() % 64);
                assert_eq!(div.whole(SimDur(v)), v / d, "{v} / {d}");
            }
        }
        for _ in 0..20_000 {
            let d = (next() >> (next() % 64)).max(1);
            let v = next() >> (next() % 64);
            assert_eq!(DurDivisor::new(SimDur(d)).whole(SimDur(v)), v / d, "{v} / {d}");
        }
        assert_eq!(DurDivisor::new(SimDur::ZERO).whole(SimDur(5)), 5);
    }
    #[test]
    fn seconds_round_trip() {
        assert_eq!(SimTime::from_secs_f64(1.5).as_nanos(), 1_500_000_000);
        assert_eq!(SimDur::from_micros_f64(0.5).as_nanos(), 500);
    }
}
