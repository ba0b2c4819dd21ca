//! Accumulation-threshold assignment of paper 001 (Keceli, Inan & Ayanoglu)
//! section III: "sorted assignment" and "grouped assignment" of
//! `cum_thresh,i` from the active flows' average ACK inter-arrival times.
//!
//! Both functions take the active flows' `AvgACKint` values in the caller's
//! (deterministic) order and return each flow's threshold in that order.
//! The list is sorted "from highest to lowest" `AvgACKint` (a stable sort:
//! equal values keep the caller's order).

/// Indices of `avgs` sorted by decreasing value, stable.
fn order_desc(avgs: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..avgs.len()).collect();
    idx.sort_by(|&a, &b| avgs[b].partial_cmp(&avgs[a]).expect("finite AvgACKint"));
    idx
}

/// Sorted assignment (paper 001 section III): "assigns `cum_thresh,i` the
/// list index l of flow i times an integer constant c_srt", so the flow
/// with the highest `AvgACKint` gets `c_srt` and the one with the lowest
/// gets `c_srt * n_act`. The list index is 1-based.
pub fn sorted(avgs: &[f64], c_srt: u32) -> Vec<u32> {
    let mut out = vec![0; avgs.len()];
    for (l, i) in order_desc(avgs).into_iter().enumerate() {
        out[i] = (l as u32 + 1) * c_srt;
    }
    out
}

/// The groups of grouped assignment, as group numbers (1-based, in list
/// order) per flow, and the number of groups.
///
/// Paper 001 eq. (3): the group of flow i is every j with
/// `(1-gamma) AvgACKint_i <= AvgACKint_j <= (1+gamma) AvgACKint_i`.
/// Interpretation: groups are formed greedily down the sorted list; the
/// first flow not yet grouped is the reference i of a new group, which
/// takes every following flow satisfying (3) with respect to i. (As the
/// list is sorted and i is the largest remaining value, the upper bound of
/// (3) always holds, and the members are consecutive.)
pub fn groups(avgs: &[f64], gamma: f64) -> (Vec<u32>, u32) {
    let order = order_desc(avgs);
    let mut group = vec![0u32; avgs.len()];
    let mut g = 0u32;
    let mut pos = 0;
    while pos < order.len() {
        g += 1;
        let reference = avgs[order[pos]];
        let (lo, hi) = ((1.0 - gamma) * reference, (1.0 + gamma) * reference);
        while pos < order.len() && avgs[order[pos]] >= lo && avgs[order[pos]] <= hi {
            group[order[pos]] = g;
            pos += 1;
        }
    }
    (group, g)
}

/// Grouped assignment (paper 001 section III): after grouping (see
/// [`groups`]), "If flow i is in top k*100/N percent in the list, then
/// `cum_thresh,i` is assigned to c_k", with `C = {c_1 < ... < c_N}`.
///
/// Interpretation: the list has G entries (one per group); the flow's group
/// g occupies the list down to `100*g/G` percent from the top, so the flow
/// is in the top `k*100/N` percent for the smallest k with `g/G <= k/N`,
/// i.e. `k = ceil(g*N/G)`. With one group (all flows alike) every flow gets
/// `c_N`; with G = N the g-th group gets `c_g`. The slowest group (highest
/// `AvgACKint`) always gets the smallest threshold in use.
pub fn grouped(avgs: &[f64], gamma: f64, c: &[u32]) -> Vec<u32> {
    let (group, n_groups) = groups(avgs, gamma);
    group.into_iter().map(|g| grouped_value(g, n_groups, c)).collect()
}

/// The threshold of group `g` of `n_groups` (see [`grouped`]).
pub fn grouped_value(g: u32, n_groups: u32, c: &[u32]) -> u32 {
    assert!(!c.is_empty(), "grouped assignment needs a non-empty C");
    let n = c.len() as u64;
    let k = (g as u64 * n).div_ceil(n_groups as u64).clamp(1, n);
    c[k as usize - 1]
}

/// [`groups`] without sorting: the group number of the value `mine` (one
/// of `avgs`) and the number of groups.
///
/// The greedy grouping of [`groups`] takes, for group g, every remaining
/// value at or above `(1 - gamma) * r_g`, where the reference `r_g` is the
/// largest value below the previous group's bound; so group g is the
/// values in `[(1 - gamma) r_g, (1 - gamma) r_{g-1})`. This finds each
/// reference with one pass (G passes in all, G the number of groups,
/// usually a handful), with the same floating-point operations as
/// [`groups`], hence identical groups.
pub fn group_of_value(avgs: &[f64], gamma: f64, mine: f64) -> (u32, u32) {
    debug_assert!((0.0..=1.0).contains(&gamma), "gamma {gamma}");
    let (mut g, mut my_group) = (0u32, 0u32);
    let mut bound = f64::INFINITY;
    loop {
        let mut reference = f64::NEG_INFINITY;
        for &v in avgs {
            if v < bound && v > reference {
                reference = v;
            }
        }
        if reference == f64::NEG_INFINITY {
            return (my_group, g);
        }
        g += 1;
        let lo = (1.0 - gamma) * reference;
        if my_group == 0 && mine >= lo && mine < bound {
            my_group = g;
        }
        bound = lo;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: [u32; 5] = [2, 6, 12, 16, 20];

    #[test]
    fn sorted_by_hand() {
        // AvgACKint (ms): flow0 3, flow1 1, flow2 2. Sorted high to low:
        // flow0 (l=1), flow2 (l=2), flow1 (l=3); cum_thresh = l * c_srt.
        assert_eq!(sorted(&[3.0, 1.0, 2.0], 1), vec![1, 3, 2]);
        assert_eq!(sorted(&[3.0, 1.0, 2.0], 2), vec![2, 6, 4]);
        // highest gets c_srt, lowest c_srt * n_act
        let t = sorted(&[5.0, 9.0, 0.5, 2.0, 7.0], 1);
        assert_eq!(t, vec![3, 1, 5, 4, 2]);
        // ties keep the caller's order
        assert_eq!(sorted(&[1.0, 1.0], 1), vec![1, 2]);
    }

    #[test]
    fn grouped_two_groups_by_hand() {
        // gamma 0.5. Reference 10: members >= 5 -> {10, 9, 6, 5} = group 1;
        // reference 2: members >= 1 -> {2, 1.2, 1} = group 2. G = 2, N = 5:
        // group 1 -> k = ceil(1*5/2) = 3 -> c_3 = 12;
        // group 2 -> k = ceil(2*5/2) = 5 -> c_5 = 20.
        let avgs = [10.0, 9.0, 6.0, 5.0, 2.0, 1.2, 1.0];
        assert_eq!(groups(&avgs, 0.5), (vec![1, 1, 1, 1, 2, 2, 2], 2));
        assert_eq!(grouped(&avgs, 0.5, &C), vec![12, 12, 12, 12, 20, 20, 20]);
    }

    #[test]
    fn grouped_six_groups_by_hand() {
        // Every value is below half the previous one: six singleton groups.
        // G = 6, N = 5: k = ceil(g*5/6) = 1, 2, 3, 4, 5, 5.
        let avgs = [100.0, 40.0, 16.0, 6.0, 2.0, 0.7];
        assert_eq!(grouped(&avgs, 0.5, &C), vec![2, 6, 12, 16, 20, 20]);
        // input order does not matter
        let rev: Vec<f64> = avgs.iter().rev().copied().collect();
        assert_eq!(grouped(&rev, 0.5, &C), vec![20, 20, 16, 12, 6, 2]);
    }

    #[test]
    fn grouped_single_group_and_five_groups() {
        // all within +-50 % of the largest: one group, top 100 % -> c_5
        assert_eq!(grouped(&[4.0, 3.0, 2.5, 2.0], 0.5, &C), vec![20; 4]);
        // five groups: the g-th gets c_g
        assert_eq!(grouped(&[81.0, 27.0, 9.0, 3.0, 1.0], 0.5, &C), vec![2, 6, 12, 16, 20]);
    }

    #[test]
    fn group_of_value_matches_groups() {
        // The sort-free path of Keceli::threshold against `groups`,
        // including ties and equal-to-bound values.
        let mut x = 0x9E3779B97F4A7C15u64;
        for n in 1..20 {
            for _ in 0..50 {
                let avgs: Vec<f64> = (0..n)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        ((x % 64) + 1) as f64 / 4.0
                    })
                    .collect();
                for gamma in [0.0, 0.25, 0.5, 1.0] {
                    let (group, n_groups) = groups(&avgs, gamma);
                    for (i, &v) in avgs.iter().enumerate() {
                        assert_eq!(
                            group_of_value(&avgs, gamma, v),
                            (group[i], n_groups),
                            "{avgs:?} gamma {gamma} i {i}"
                        );
                    }
                }
            }
        }
        assert_eq!(group_of_value(&[10.0, 5.0, 4.99], 0.5, 5.0), (1, 2));
        assert_eq!(group_of_value(&[10.0, 5.0, 4.99], 0.5, 4.99), (2, 2));
    }

    #[test]
    fn grouping_boundaries_are_inclusive() {
        // (1 - gamma) * 10 = 5 is inside the group of 10
        assert_eq!(groups(&[10.0, 5.0, 4.99], 0.5).0, vec![1, 1, 2]);
    }
}
