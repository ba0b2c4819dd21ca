//! Disjoint sets (union-find) over `0..n` whose root is always the least
//! member of its set: the cut of a world into partitions (`world/cut.rs`,
//! cells first, so cells stay roots) and the channels that share a cell
//! (`Scenario::cells`, in order of first use).
//!
//! Invariant: `p[x] <= x` for every `x`, and `find(p, x)` is the least
//! member of `x`'s set.

/// The root (least member) of `x`'s set, halving the path on the way.
pub(crate) fn find(p: &mut [usize], mut x: usize) -> usize {
    while p[x] != x {
        p[x] = p[p[x]];
        x = p[x];
    }
    x
}

/// Join the sets of `a` and `b`; the smaller root stays the root.
pub(crate) fn union(p: &mut [usize], a: usize, b: usize) {
    let (a, b) = (find(p, a), find(p, b));
    if a != b {
        let (lo, hi) = (a.min(b), a.max(b));
        p[hi] = lo;
    }
}
