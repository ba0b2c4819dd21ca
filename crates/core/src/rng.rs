//! Deterministic per-component random number streams.
//!
//! Each component derives its own stream from the run's master seed and a
//! stable name (for example `"mac/sta3"`), so adding a component never
//! perturbs the draws of another. The generator is xoshiro256** seeded
//! through SplitMix64 from `master ^ fnv1a64(name)`; both algorithms are
//! fixed here so results never depend on a third-party crate's version.

/// 64-bit FNV-1a hash of a name (stable across platforms and versions).
pub fn fnv1a64(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A xoshiro256** stream.
#[derive(Clone, Debug)]
pub struct RngStream {
    s: [u64; 4],
}

impl RngStream {
    /// The stream of component `name` under `master_seed`.
    pub fn derive(master_seed: u64, name: &str) -> Self {
        let mut sm = master_seed ^ fnv1a64(name);
        let mut s = [0u64; 4];
        for x in s.iter_mut() {
            *x = splitmix64(&mut sm);
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        RngStream { s }
    }

    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// Uniform integer in `0..n` (n > 0), without modulo bias (Lemire).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0);
        loop {
            let m = (self.next_u64() as u128) * (n as u128);
            let lo = m as u64;
            // Reject `lo < 2^64 mod n`. That bound is below `n`, so the
            // division computing it is needed only when `lo < n` (rare for
            // small `n`): the same draws, without a division per call.
            if lo >= n || lo >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
            }
        }
    }

    /// Uniform integer in `lo..=hi`.
    pub fn range_inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        assert!(lo <= hi);
        lo + self.below(hi - lo + 1)
    }

    /// Uniform f64 in [0, 1) with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.unit() < p
        }
    }

    /// Exponential variate with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - unit() is in (0, 1], so ln() is finite.
        -mean * (1.0 - self.unit()).ln()
    }

    /// Standard normal variate (Box-Muller; one value per call).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit();
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn streams_are_stable_and_independent() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = RngStream::derive(1, "a");
                move |_| r.next_u64()
            })
            .collect();
        let a2: Vec<u64> = (0..4)
            .map({
                let mut r = RngStream::derive(1, "a");
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = RngStream::derive(1, "b");
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = RngStream::derive(2, "a");
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, a2);
        assert_ne!(a, b);
        assert_ne!(a, c);
    }
    #[test]
    fn below_is_uniform_enough() {
        let mut r = RngStream::derive(7, "u");
        let mut counts = [0u32; 16];
        for _ in 0..160_000 {
            counts[r.below(16) as usize] += 1;
        }
        for c in counts {
            // expected 10000, sd ~ 97: 6 sigma band
            assert!((9_400..10_600).contains(&c), "{counts:?}");
        }
    }
    #[test]
    fn exponential_mean() {
        let mut r = RngStream::derive(3, "e");
        let n = 200_000;
        let m: f64 = (0..n).map(|_| r.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((m - 2.0).abs() < 0.03, "{m}");
    }
}
