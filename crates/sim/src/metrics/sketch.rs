//! A streaming quantile sketch of one-way delays: a log-linear histogram
//! with bounded memory and a stated relative error.
//!
//! A value `x` (integer nanoseconds) falls into a bucket found from its bits
//! alone (no floating point, so the bucket of a value is the same on every
//! platform): values below `2^M` (`M` = [`SUB_BITS`]) have a bucket each;
//! above, each octave `[2^e, 2^(e+1))` is cut into `2^M` equal sub-buckets
//! of width `2^(e-M)`. A bucket is reported by its midpoint, which is within
//! `2^-(M+1)` of every value in it, relative to the value
//! ([`RELATIVE_ERROR`], 0.78 % for `M` = 6; the relative-accuracy guarantee
//! of DDSketch, Masson, Rim & Lee, VLDB 2019, with linear sub-buckets in
//! place of a logarithmic index).
//!
//! Invariants: the counts are held either sparsely, as (bucket, count)
//! pairs of the non-empty buckets in bucket order, while those are at most
//! [`SPARSE_MIN`] or fill less than one [`DENSE_FILL`]th of the buckets
//! between the lowest and the highest (a flow with few samples: 8 bytes per
//! non-empty bucket), or else densely between the
//! lowest and the highest bucket seen (one 16-bit counter per bucket, no
//! spare capacity, and a carry of the bits above those 16 for each bucket
//! that has counted 2^16 samples), so memory is at most [`MAX_BUCKETS`]
//! counters (7.4 KiB) and a carry per 2^16 samples whatever the number of
//! samples; an insert allocates only when it adds a bucket to the sparse
//! pairs or widens the dense range (at most a few dozen times per flow) or
//! a bucket's first carry, never per sample. Every form holds the same
//! counts, so every quantile and histogram is the same whichever is held.
//! A quantile is the midpoint of the bucket holding the sample of rank
//! `floor(q (n - 1))` (0-based) of the sorted samples, so it is within
//! [`RELATIVE_ERROR`] of that exact order statistic.
//!
//! Why 16-bit counters: a flow's delays spread over many octaves (a
//! saturated flow of `scenarios/bench-r2.toml`: about 650 buckets), so
//! its dense counters are most of its record once it has delivered a few
//! hundred packets; a quarter of the bytes of 64-bit counters, for one
//! rarely taken branch per sample.

/// Sub-bucket bits: `2^SUB_BITS` buckets per octave.
pub const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;
/// Highest relative error of a reported value: `2^-(SUB_BITS+1)`.
pub const RELATIVE_ERROR: f64 = 1.0 / (2 * SUB) as f64;
/// Number of distinct buckets over all of `u64`.
pub const MAX_BUCKETS: usize = bucket_of(u64::MAX) + 1;

/// The bucket of value `x`.
pub const fn bucket_of(x: u64) -> usize {
    if x < SUB {
        return x as usize;
    }
    let e = 63 - x.leading_zeros(); // 2^e <= x < 2^(e+1), e >= SUB_BITS
    let shift = e - SUB_BITS;
    (((shift as u64 + 1) << SUB_BITS) + ((x >> shift) - SUB)) as usize
}

/// The values of bucket `i`: `[lower, lower + width)`.
pub fn bucket_bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, 1);
    }
    let k = i >> SUB_BITS; // >= 1
    let sub = i & (SUB - 1);
    ((SUB + sub) << (k - 1), 1u64 << (k - 1))
}

/// The value reported for bucket `i`: its midpoint (its single value when
/// its width is 1).
pub fn bucket_value(i: usize) -> f64 {
    let (lo, w) = bucket_bounds(i);
    if w == 1 {
        lo as f64
    } else {
        lo as f64 + w as f64 / 2.0
    }
}

/// Sparse pairs a sketch holds at least before it may turn dense (128
/// bytes: a few samples in neighbouring buckets stay sparse too).
const SPARSE_MIN: usize = 16;

/// The sparse pairs turn dense once they fill one `DENSE_FILL`th of the
/// buckets they span. The dense counters (2 bytes per bucket of the span)
/// then take at most the pairs' 8 bytes each. A sample costs a
/// search by halving of the pairs (and a shift when its bucket is new)
/// where a dense sketch costs one compare: a saturated flow's delays spread
/// over ten octaves (`scenarios/bench-r2.toml`: about 800 samples a flow
/// over 650 buckets, 320 of them non-empty), so filling half the span
/// first kept every such flow sparse to its end.
const DENSE_FILL: usize = 4;

/// A sketch's counts, sparse or dense (module docs).
#[derive(Clone, Debug)]
enum Counts {
    /// (bucket, count) of each non-empty bucket, in bucket order.
    Sparse(Vec<(u32, u32)>),
    /// The low 16 bits of each bucket's count, from bucket `first` on (the
    /// rest in `DelaySketch::carries`).
    Dense { first: u32, counts: Vec<u16> },
}

impl Default for Counts {
    fn default() -> Counts {
        Counts::Sparse(Vec::new())
    }
}

/// 40 bytes: the counts' two forms share one place (32 bytes, a tag in
/// the niche of a `Vec`), and the number of samples is their sum, taken
/// when the quantiles are (once per result), not kept (a flow record holds
/// one sketch, and a record of 224 bytes spans four cache lines at most).
#[derive(Clone, Debug, Default)]
pub struct DelaySketch {
    counts: Counts,
    /// The rest of the dense counts.
    carries: Carries,
}

/// (bucket, count >> 16) of the buckets that have counted 2^16 samples or
/// more, in bucket order; one word, boxed: a `Vec` would be three in
/// every flow record, and most sketches never carry.
#[allow(clippy::box_collection)]
type Carries = Option<Box<Vec<(u32, u64)>>>;

impl DelaySketch {
    pub fn new() -> Self {
        Self::default()
    }
    /// Number of samples (a pass over the buckets).
    pub fn count(&self) -> u64 {
        self.nonzero().map(|(_, c)| c).sum()
    }
    /// Counters held (memory bound check).
    pub fn buckets_held(&self) -> usize {
        match &self.counts {
            Counts::Sparse(p) => p.len(),
            Counts::Dense { counts, .. } => counts.len(),
        }
    }
    pub fn insert(&mut self, x: u64) {
        self.insert_bucket(bucket_of(x));
    }

    /// Count one sample in bucket `i`.
    #[inline(always)]
    fn insert_bucket(&mut self, i: usize) {
        let DelaySketch { counts, carries } = self;
        let Counts::Dense { first, counts } = counts else {
            return self.insert_sparse(i);
        };
        // The usual case: a bucket inside the dense range (the form, then
        // one compare).
        let k = i.wrapping_sub(*first as usize);
        if k < counts.len() {
            return bump(&mut counts[k], carries, i);
        }
        let f = *first as usize;
        if i < f {
            let grow = f - i;
            counts.reserve_exact(grow);
            counts.splice(0..0, std::iter::repeat_n(0, grow));
            *first = i as u32; // (below MAX_BUCKETS)
        } else {
            let len = i - f + 1;
            counts.reserve_exact(len - counts.len());
            counts.resize(len, 0);
        }
        let k = i - *first as usize;
        bump(&mut counts[k], carries, i);
    }

    /// Count bucket `i` in the sparse pairs; made dense when they are
    /// more than [`SPARSE_MIN`] and fill one [`DENSE_FILL`]th of the range
    /// they span, or
    /// a count would pass `u32::MAX`.
    fn insert_sparse(&mut self, i: usize) {
        let Counts::Sparse(sparse) = &mut self.counts else { unreachable!("dense counts") };
        let b = i as u32; // (below MAX_BUCKETS)
        match sparse.binary_search_by_key(&b, |&(k, _)| k) {
            Ok(at) if sparse[at].1 < u32::MAX => sparse[at].1 += 1,
            Ok(_) => {
                self.densify();
                self.insert_bucket(i);
            }
            Err(at) => {
                sparse.insert(at, (b, 1));
                let (lo, hi) = (sparse[0].0, sparse[sparse.len() - 1].0);
                if sparse.len() > SPARSE_MIN && DENSE_FILL * sparse.len() >= (hi - lo + 1) as usize {
                    self.densify();
                }
            }
        }
    }

    /// The sparse counts as dense ones.
    fn densify(&mut self) {
        let Counts::Sparse(sparse) = std::mem::take(&mut self.counts) else { unreachable!("dense counts") };
        let (lo, hi) = (sparse[0].0 as usize, sparse[sparse.len() - 1].0 as usize);
        let mut counts = vec![0u16; hi - lo + 1];
        for &(k, c) in &sparse {
            counts[k as usize - lo] = c as u16;
            if c >> 16 > 0 {
                add_carry(&mut self.carries, k, (c >> 16) as u64);
            }
        }
        self.counts = Counts::Dense { first: lo as u32, counts };
    }

    /// The sparse pairs (none once dense).
    #[cfg(test)]
    fn sparse(&self) -> &[(u32, u32)] {
        match &self.counts {
            Counts::Sparse(p) => p,
            Counts::Dense { .. } => &[],
        }
    }

    /// The dense counters' low 16 bits (none while sparse).
    #[cfg(test)]
    fn dense(&self) -> &[u16] {
        match &self.counts {
            Counts::Sparse(_) => &[],
            Counts::Dense { counts, .. } => counts,
        }
    }

    /// The non-empty buckets, (index, count) in index order.
    fn nonzero(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        let (first, dense, sparse): (usize, &[u16], &[(u32, u32)]) = match &self.counts {
            Counts::Sparse(p) => (0, &[], p),
            Counts::Dense { first, counts } => (*first as usize, counts, &[]),
        };
        let mut carries = self.carries.iter().flat_map(|c| c.iter()).peekable();
        let dense = dense.iter().enumerate().filter_map(move |(k, &low)| {
            let i = first + k;
            let high = carries.next_if(|&&(b, _)| b as usize == i).map_or(0, |&(_, h)| h);
            let c = (high << 16) | low as u64;
            (c > 0).then_some((i, c))
        });
        dense.chain(sparse.iter().map(|&(k, c)| (k as usize, c as u64)))
    }
    /// The value of rank `floor(q (n-1))` within [`RELATIVE_ERROR`];
    /// `None` without samples.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        self.quantiles([q])[0]
    }

    /// [`DelaySketch::quantile`] of each of `qs`, in one pass over the
    /// buckets (a result's flows ask for four: p50, p90, p99, p99.9).
    pub fn quantiles<const N: usize>(&self, qs: [f64; N]) -> [Option<f64>; N] {
        let mut out = [None; N];
        let n = self.count();
        if n == 0 {
            return out;
        }
        let rank = |q: f64| (q.clamp(0.0, 1.0) * (n - 1) as f64).floor() as u64;
        // the quantiles in order of rank, each found where the running
        // count first exceeds its rank
        let mut order: [usize; N] = std::array::from_fn(|i| i);
        order.sort_by_key(|&i| rank(qs[i]));
        let mut next = 0;
        let mut seen = 0u64;
        // (an empty bucket moves no rank: only the non-empty ones are read)
        for (i, c) in self.nonzero() {
            seen += c;
            while next < N && seen > rank(qs[order[next]]) {
                out[order[next]] = Some(bucket_value(i));
                next += 1;
            }
            if next == N {
                return out;
            }
        }
        unreachable!("rank below the count")
    }
    /// Non-empty buckets merged `2^merge_bits` at a time (aligned, so an
    /// octave splits into `2^(SUB_BITS - merge_bits)` parts): `(lower,
    /// upper, count)` with values in `[lower, upper)`, ascending.
    pub fn histogram(&self, merge_bits: u32) -> Vec<(u64, u64, u64)> {
        let mut out: Vec<(u64, u64, u64)> = Vec::new();
        let mut cur: Option<(usize, u64)> = None;
        for (i, c) in self.nonzero() {
            let g = i >> merge_bits;
            match &mut cur {
                Some((cg, n)) if *cg == g => *n += c,
                _ => {
                    if let Some((cg, n)) = cur {
                        out.push(group(cg, merge_bits, n));
                    }
                    cur = Some((g, c));
                }
            }
        }
        if let Some((cg, n)) = cur {
            out.push(group(cg, merge_bits, n));
        }
        out
    }
}

/// Count one sample in dense counter `c` of bucket `i`; a counter that
/// wraps to zero carries 2^16.
#[inline(always)]
fn bump(c: &mut u16, carries: &mut Carries, i: usize) {
    *c = c.wrapping_add(1);
    if *c == 0 {
        add_carry(carries, i as u32, 1);
    }
}

/// Add `high` (units of 2^16) to bucket `b`'s carry.
#[cold]
fn add_carry(carries: &mut Carries, b: u32, high: u64) {
    let carries = carries.get_or_insert_with(Box::default);
    match carries.binary_search_by_key(&b, |&(k, _)| k) {
        Ok(at) => carries[at].1 += high,
        Err(at) => carries.insert(at, (b, high)),
    }
}

fn group(g: usize, merge_bits: u32, n: u64) -> (u64, u64, u64) {
    let lo = bucket_bounds(g << merge_bits).0;
    let (l, w) = bucket_bounds(((g + 1) << merge_bits) - 1);
    (lo, l.saturating_add(w), n)
}

/// RFC 3550 interarrival jitter (section 6.4.1, appendix A.8): for
/// consecutive arrivals, `D = (R_j - R_i) - (S_j - S_i)` is the difference
/// of their transit times and `J += (|D| - J) / 16`. Send and receive times
/// are the packet's creation at the source and its arrival at the
/// destination, in nanoseconds (the RFC uses RTP timestamp units; the
/// estimator is the same). Kept in `f64` rather than the appendix's scaled
/// integer: the appendix's fixed point serves to avoid floating point in
/// 1996 receivers, not to change the value.
#[derive(Clone, Debug)]
pub struct Jitter {
    /// The latest transit time, or [`NO_TRANSIT`] before the first arrival
    /// (a sentinel, not an `Option`: 8 bytes less in every flow record).
    last_transit: i64,
    j: f64,
}

/// `Jitter::last_transit` before the first arrival: no transit time is
/// -2^63 (both instants are below 2^63 ns).
const NO_TRANSIT: i64 = i64::MIN;

impl Default for Jitter {
    fn default() -> Self {
        Jitter { last_transit: NO_TRANSIT, j: 0.0 }
    }
}

impl Jitter {
    /// Instants are below 2^63 ns (292 years of simulated time), so a
    /// transit time and the difference of two fit in 64 bits exactly (and
    /// convert to `f64` without the 128-bit software routine).
    pub fn on_arrival(&mut self, sent_ns: u64, arrived_ns: u64) {
        debug_assert!(sent_ns < 1 << 63 && arrived_ns < 1 << 63, "an instant beyond 2^63 ns");
        let transit = arrived_ns as i64 - sent_ns as i64;
        if self.last_transit != NO_TRANSIT {
            let d = transit.abs_diff(self.last_transit) as f64;
            self.j += (d - self.j) / 16.0;
        }
        self.last_transit = transit;
    }
    /// The jitter estimate, in nanoseconds (0 before two arrivals).
    pub fn value_ns(&self) -> f64 {
        self.j
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn buckets_tile_u64() {
        assert_eq!(MAX_BUCKETS, 3776);
        // Consecutive buckets are contiguous, and every value maps back.
        let mut next = 0u64;
        for i in 0..MAX_BUCKETS {
            let (lo, w) = bucket_bounds(i);
            assert_eq!(lo, next, "bucket {i}");
            assert_eq!(bucket_of(lo), i);
            assert_eq!(bucket_of(lo + (w - 1)), i);
            next = lo.wrapping_add(w);
        }
        assert_eq!(next, 0, "the last bucket ends at 2^64");
    }

    #[test]
    fn midpoint_error_is_bounded() {
        for i in 0..MAX_BUCKETS {
            let (lo, w) = bucket_bounds(i);
            let v = bucket_value(i);
            for x in [lo, lo + (w - 1)] {
                assert!((v - x as f64).abs() <= RELATIVE_ERROR * x as f64 + 1e-9 * v, "bucket {i} x {x}");
            }
        }
    }

    #[test]
    fn memory_is_bounded() {
        let mut s = DelaySketch::new();
        let mut x = 1u64;
        for _ in 0..1_000_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            s.insert(x >> (x % 64));
        }
        assert!(s.buckets_held() <= MAX_BUCKETS);
        assert_eq!(s.count(), 1_000_000);
        let h = s.histogram(2);
        assert_eq!(h.iter().map(|b| b.2).sum::<u64>(), 1_000_000);
        assert!(h.windows(2).all(|w| w[0].1 <= w[1].0));
    }

    proptest! {
        #[test]
        fn quantiles_match_an_exact_sort(
            mut xs in prop::collection::vec(
                prop_oneof![0u64..200, 1_000u64..50_000_000, 0u64..u64::MAX], 1..2000),
            q in 0.0f64..=1.0,
        ) {
            let mut s = DelaySketch::new();
            for &x in &xs {
                s.insert(x);
            }
            xs.sort_unstable();
            for q in [q, 0.5, 0.9, 0.99, 0.999, 0.0, 1.0] {
                let exact = xs[(q * (xs.len() - 1) as f64).floor() as usize] as f64;
                let est = s.quantile(q).unwrap();
                prop_assert!((est - exact).abs() <= RELATIVE_ERROR * exact * (1.0 + 1e-12),
                    "q {} exact {} est {}", q, exact, est);
            }
            // one pass, quantiles in any order: each is its rank's value
            let qs = [0.999, q, 0.5, 0.0, 1.0, 0.9];
            let one = s.quantiles(qs);
            for (k, &q) in qs.iter().enumerate() {
                let exact = xs[(q * (xs.len() - 1) as f64).floor() as usize] as f64;
                let est = one[k].unwrap();
                prop_assert!((est - exact).abs() <= RELATIVE_ERROR * exact * (1.0 + 1e-12),
                    "quantiles: q {} exact {} est {}", q, exact, est);
            }
            let h = s.histogram(2);
            prop_assert_eq!(h.iter().map(|b| b.2).sum::<u64>(), xs.len() as u64);
        }
    }

    /// The same samples give the same quantiles and histogram held
    /// sparsely and densely.
    #[test]
    fn sparse_and_dense_counts_agree() {
        let mut x = 7u64;
        for samples in [1usize, 2, 5, 40, 300, 5000] {
            let mut s = DelaySketch::new();
            for _ in 0..samples {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                s.insert(200_000 + (x >> 40) % 20_000_000);
            }
            let mut d = s.clone();
            if !d.sparse().is_empty() {
                d.densify();
            }
            assert!(d.sparse().is_empty() && d.buckets_held() > 0);
            let qs = [0.0, 0.5, 0.9, 0.99, 0.999, 1.0];
            assert_eq!(s.quantiles(qs), d.quantiles(qs), "{samples} samples");
            assert_eq!(s.histogram(2), d.histogram(2), "{samples} samples");
            assert_eq!(s.histogram(0).iter().map(|b| b.2).sum::<u64>(), samples as u64);
        }
        // few samples over a wide range stay sparse ...
        let mut s = DelaySketch::new();
        for k in 0..10u64 {
            s.insert(1_000_000 << k);
            s.insert(1_000_000 << k);
        }
        assert_eq!((s.sparse().len(), s.dense().len(), s.count()), (10, 0, 20));
        // ... and more than SPARSE_MIN buckets filling a DENSE_FILLth of their range turn dense
        for (step, dense) in [(DENSE_FILL as u64 - 1, true), (DENSE_FILL as u64 + 1, false)] {
            let mut s = DelaySketch::new();
            for x in 0..=SPARSE_MIN as u64 {
                s.insert(step * x);
            }
            assert_eq!(s.sparse().is_empty(), dense, "every {step}th bucket");
            assert_eq!(s.count(), SPARSE_MIN as u64 + 1);
        }
        let mut s = DelaySketch::new();
        for x in 0..SPARSE_MIN as u64 {
            s.insert(2 * x); // (a value below 2^SUB_BITS is its own bucket)
            assert!(s.dense().is_empty(), "{x}: sparse up to SPARSE_MIN buckets");
        }
        s.insert(1);
        assert!(s.sparse().is_empty() && s.dense().len() == 2 * SPARSE_MIN - 1);
        assert_eq!(s.count(), SPARSE_MIN as u64 + 1);
        assert_eq!(s.quantiles([0.0, 1.0]), [Some(0.0), Some(2.0 * (SPARSE_MIN as f64 - 1.0))]);
    }

    /// A sketch is 40 bytes (part of every flow record).
    #[test]
    fn a_sketch_is_forty_bytes() {
        assert_eq!(std::mem::size_of::<DelaySketch>(), 40);
    }

    /// A dense bucket counts past its 16-bit counter (carries), whether it
    /// passed 2^16 while dense or while sparse; the counts stay exact.
    #[test]
    fn dense_buckets_count_past_sixteen_bits() {
        let spread = |s: &mut DelaySketch| {
            for x in 0..=SPARSE_MIN as u64 {
                s.insert(x); // (each its own bucket: the sketch turns dense)
            }
        };
        let big = (1u64 << 16) * 3 + 5;
        // passing 2^16 while dense: carried at every wrap
        let mut d = DelaySketch::new();
        spread(&mut d);
        assert!(d.sparse().is_empty());
        for _ in 0..big {
            d.insert(7);
        }
        // passing 2^16 while sparse, then made dense
        let mut s = DelaySketch::new();
        for _ in 0..big {
            s.insert(7);
        }
        assert_eq!(s.sparse(), [(7, big as u32)]);
        spread(&mut s);
        assert!(s.sparse().is_empty());
        for t in [&d, &s] {
            assert_eq!(t.carries.as_deref().map(|c| &c[..]), Some(&[(7, 3)][..]));
            assert_eq!(t.count(), big + SPARSE_MIN as u64 + 1);
            let h = t.histogram(0);
            assert_eq!(h.iter().map(|b| b.2).sum::<u64>(), t.count());
            assert_eq!(h.iter().find(|b| b.0 == 7).map(|b| b.2), Some(big + 1));
            assert_eq!(t.quantiles([0.0, 0.5, 1.0]), [Some(0.0), Some(7.0), Some(SPARSE_MIN as f64)]);
        }
        // a bucket whose low 16 bits are zero is still counted
        let mut z = DelaySketch::new();
        spread(&mut z);
        for _ in 0..1u64 << 16 {
            z.insert(40);
        }
        assert_eq!(z.histogram(0).iter().find(|b| b.0 == 40).map(|b| b.2), Some(1 << 16));
    }

    /// A hand-computed example: transit times 10, 12, 11, 15, 15 ms.
    /// |D| = 2, 1, 4, 0 ms, so J = 2/16 = 0.125; 0.125 + (1 - 0.125)/16 =
    /// 0.1796875; + (4 - 0.1796875)/16 = 0.418457...; + (0 - J)/16 =
    /// 0.392303466796875 ms.
    #[test]
    fn jitter_by_hand() {
        let mut j = Jitter::default();
        let ms = 1_000_000u64;
        for (k, transit) in [10u64, 12, 11, 15, 15].iter().enumerate() {
            let sent = k as u64 * 20 * ms;
            j.on_arrival(sent, sent + transit * ms);
        }
        let expect = {
            let mut v = 0.0f64;
            for d in [2.0, 1.0, 4.0, 0.0] {
                v += (d - v) / 16.0;
            }
            v
        };
        assert!((expect - 0.392303466796875).abs() < 1e-15);
        assert!((j.value_ns() / 1e6 - 0.392303466796875).abs() < 1e-12, "{}", j.value_ns());
    }
}
