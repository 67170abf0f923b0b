//! Summation orders, and the engine that reduces any accumulator along them.
//!
//! Three orders, the three reductions of the MPRES summation paper (seed `004`), each a tree
//! fixed by the data's indices alone, so that a result never depends on the number of
//! threads, the GPU launch shape or the device:
//!
//! - [`Summation::Recursive`] (the paper's Reduce1): `((t_0 + t_1) + t_2) + …`, one term after
//!   another. Error bound `γ_{n−1}·Σ|t_i|`; no parallelism.
//! - [`Summation::Pairwise`] (Reduce2): aligned blocks of `2^k` terms summed as a balanced
//!   tree, found by a binary counter (a stack of about `log2 n` partial sums); the leftover
//!   blocks (one per set bit of `n`) joined from the last to the first. Bound
//!   `γ_{2⌈log2 n⌉}·Σ|t_i|`.
//! - [`Summation::Blocked`] (Reduce3, the default): chunks of [`CHUNK`] = 4096 terms; in a chunk,
//!   term `j·256 + l` goes to lane `l` of [`LANES`] = 256, each lane adds its [`PER_LANE`] = 16
//!   terms in order, and the lanes are joined by the halving tree `lane[t] ← lane[t] +
//!   lane[t + h]`, `h = 128, 64, …, 1`; the chunk results are summed again the same way until
//!   one is left. Chunks are independent (threads, GPU blocks), lanes map to GPU threads, and
//!   the depth is 23 operations per pass: `γ_23·Σ|t_i|` up to 4096 terms, `γ_46` up to 2^24,
//!   `γ_69` up to 2^36. A format with lane sums
//!   ([`Scalar::LANE_SUMS`](crate::Scalar::LANE_SUMS): `Qd`) adds a lane's terms in a wider
//!   accumulator, rounded once, instead of 15 steps; its error is within those steps' share of
//!   the bound. The paper's Reduce3 finishes the partial sums on the host; here every pass is
//!   the same reduction, on the device that holds the data.
//!
//! An accumulator starts at `−0`, the identity of IEEE addition (`−0 + x = x` for every `x`,
//! `+0` and `−0` included), so a sum of `−0`s is `−0` and a lane or tree node with no terms
//! (the tail of the last chunk) is skipped without changing any bit.

use rayon::prelude::*;

/// Lanes per chunk of the blocked order.
pub const LANES: usize = 256;
/// Terms per lane per chunk of the blocked order.
pub const PER_LANE: usize = 16;
/// Terms per chunk of the blocked order.
pub const CHUNK: usize = LANES * PER_LANE;

/// Chunks below which the CPU reduces on one thread (the bits are the same either way).
const PARALLEL_CHUNKS: usize = 8;

/// The order in which a sum is formed (see the [module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Summation {
    /// One term after another (the paper's Reduce1).
    Recursive,
    /// Balanced binary tree over aligned blocks (Reduce2).
    Pairwise,
    /// Chunks of 4096 terms over 256 lanes, then the same on the chunk results (Reduce3):
    /// parallel on CPU and GPU, reproducible, `γ_23` per pass.
    #[default]
    Blocked,
}

impl Summation {
    /// All three, in the paper's order.
    pub const ALL: [Summation; 3] = [
        Summation::Recursive,
        Summation::Pairwise,
        Summation::Blocked,
    ];

    /// Short name: `"recursive"`, `"pairwise"`, `"blocked"`.
    pub fn name(self) -> &'static str {
        match self {
            Summation::Recursive => "recursive",
            Summation::Pairwise => "pairwise",
            Summation::Blocked => "blocked",
        }
    }
}

/// What a reduction accumulates: `step` adds term `i` to an accumulator, `join` adds a later
/// accumulator to an earlier one (`a ← a ⊕ b`, `b` holding the later terms), `identity` is
/// the empty accumulator (`−0`).
pub(crate) trait Reduction: Sync {
    /// The accumulator.
    type Acc: Clone + Send + Sync;
    /// The empty accumulator.
    fn identity(&self) -> Self::Acc;
    /// `acc ← acc ⊕ t_i`.
    fn step(&self, acc: &mut Self::Acc, i: usize);
    /// `a ← a ⊕ b`.
    fn join(&self, a: &mut Self::Acc, b: &Self::Acc);
    /// `lanes[l] ← lanes[l] ⊕ t_{base + l}` for every lane: the inner loop of the blocked
    /// order, which a reduction over contiguous data overrides with a loop over slices that
    /// the compiler vectorises (the same operations, so the same bits).
    #[inline]
    fn step_lanes(&self, lanes: &mut [Self::Acc], base: usize) {
        for (l, acc) in lanes.iter_mut().enumerate() {
            self.step(acc, base + l);
        }
    }
    /// The first pass over one chunk's `m` terms from `start`: `lanes[l] ← lanes[l] ⊕ t_i` for
    /// the lane's terms `i = start + j·LANES + l` in order (the lanes start at the identity).
    /// Row by row with [`Reduction::step_lanes`] ([`step_rows`]); a reduction over a format
    /// with [`Scalar::LANE_SUMS`](crate::Scalar::LANE_SUMS) overrides it to sum lane by lane
    /// ([`by_lanes`]).
    #[inline]
    fn first_pass_lanes(&self, lanes: &mut [Self::Acc], start: usize, m: usize) {
        step_rows(lanes, start, m, |l, base| self.step_lanes(l, base));
    }
    /// `a[t] ← a[t] ⊕ b[t]` for every `t`: a level of the lanes' halving tree, which a
    /// reduction may override with a vectorised loop of the same operations.
    #[inline]
    fn join_lanes(&self, a: &mut [Self::Acc], b: &[Self::Acc]) {
        for (x, y) in a.iter_mut().zip(b) {
            self.join(x, y);
        }
    }
}

/// Reduces terms `0..n` of `r` in `order` (see the [module docs](self)); `n = 0` gives the
/// identity.
pub(crate) fn reduce<R: Reduction>(r: &R, n: usize, order: Summation) -> R::Acc {
    match order {
        Summation::Recursive => {
            let mut acc = r.identity();
            for i in 0..n {
                r.step(&mut acc, i);
            }
            acc
        }
        Summation::Pairwise => pairwise(r, n),
        Summation::Blocked => blocked(r, n),
    }
}

/// The binary-counter pairwise sum: a stack of (block, level); equal levels merge.
fn pairwise<R: Reduction>(r: &R, n: usize) -> R::Acc {
    let mut stack: Vec<(R::Acc, u32)> = Vec::with_capacity(64);
    for i in 0..n {
        let mut a = r.identity();
        r.step(&mut a, i);
        let mut level = 0;
        while let Some((_, top)) = stack.last() {
            if *top != level {
                break;
            }
            let (mut b, _) = stack.pop().expect("checked non-empty");
            r.join(&mut b, &a);
            a = b;
            level += 1;
        }
        stack.push((a, level));
    }
    let Some((mut s, _)) = stack.pop() else {
        return r.identity();
    };
    while let Some((mut t, _)) = stack.pop() {
        r.join(&mut t, &s);
        s = t;
    }
    s
}

/// The blocked order: the first pass over the terms, then passes over the chunk results.
fn blocked<R: Reduction>(r: &R, n: usize) -> R::Acc {
    if n == 0 {
        return r.identity();
    }
    let first = |c: usize| {
        chunk(r, c * CHUNK, n, |lanes, start, m| {
            r.first_pass_lanes(lanes, start, m);
        })
    };
    let mut partials: Vec<R::Acc> = chunks_map(n.div_ceil(CHUNK), first);
    while partials.len() > 1 {
        let m = partials.len();
        let p = &partials;
        let next = |c: usize| {
            chunk(r, c * CHUNK, m, |lanes, start, m| {
                step_rows(lanes, start, m, |l, base| {
                    r.join_lanes(l, &p[base..base + l.len()]);
                });
            })
        };
        partials = chunks_map(m.div_ceil(CHUNK), next);
    }
    partials.pop().expect("n > 0 leaves one partial")
}

/// `f(c)` for every chunk `c < chunks`, in parallel when there are enough of them.
fn chunks_map<A: Send, F: Fn(usize) -> A + Sync + Send>(chunks: usize, f: F) -> Vec<A> {
    if chunks < PARALLEL_CHUNKS {
        (0..chunks).map(f).collect()
    } else {
        (0..chunks).into_par_iter().map(f).collect()
    }
}

/// The rows of a chunk's `m` items from `start`: `add(lanes, base)` adds items
/// `base..base + lanes.len()` to the first lanes, one each, for `base = start + j·LANES`.
pub(crate) fn step_rows<A>(
    lanes: &mut [A],
    start: usize,
    m: usize,
    mut add: impl FnMut(&mut [A], usize),
) {
    for j in 0..PER_LANE {
        let base = start + j * LANES;
        if base >= start + m {
            break;
        }
        let here = (start + m - base).min(LANES);
        add(&mut lanes[..here], base);
    }
}

/// The first pass lane by lane, for formats with lane sums: `lane(first, count)` is lane `l`'s
/// sum of its `count` items `first, first + LANES, …` (`None`: not available, see
/// [`Scalar::lane_sum`](crate::Scalar::lane_sum)), else `step(acc, i)` adds them one by one.
pub(crate) fn by_lanes<A>(
    lanes: &mut [A],
    start: usize,
    m: usize,
    lane: impl Fn(usize, usize) -> Option<A>,
    step: impl Fn(&mut A, usize),
) {
    for (l, acc) in lanes.iter_mut().enumerate() {
        let (first, count) = (start + l, (m - l).div_ceil(LANES));
        match lane(first, count) {
            Some(v) => *acc = v,
            None => (0..count).for_each(|j| step(acc, first + j * LANES)),
        }
    }
}

/// One chunk of the blocked order: items `start..min(start + CHUNK, n)`, `fill(lanes, start,
/// m)` reducing its `m` items into the lanes, then the lanes' halving tree.
fn chunk<R: Reduction>(
    r: &R,
    start: usize,
    n: usize,
    fill: impl Fn(&mut [R::Acc], usize, usize),
) -> R::Acc {
    let m = (n - start).min(CHUNK);
    let used = m.min(LANES);
    let mut lanes: Vec<R::Acc> = vec![r.identity(); used];
    fill(&mut lanes, start, m);
    let mut h = LANES / 2;
    while h >= 1 {
        // lane[t] ← lane[t] ⊕ lane[t + h] for every t < h with a partner.
        if used > h {
            let k = (used - h).min(h);
            let (lo, hi) = lanes.split_at_mut(h);
            r.join_lanes(&mut lo[..k], &hi[..k]);
        }
        h /= 2;
    }
    lanes.swap_remove(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the tree as a string, to check the orders' shapes.
    struct Shape;
    impl Reduction for Shape {
        type Acc = String;
        fn identity(&self) -> String {
            String::new()
        }
        fn step(&self, acc: &mut String, i: usize) {
            *acc = if acc.is_empty() {
                i.to_string()
            } else {
                format!("({acc}+{i})")
            };
        }
        fn join(&self, a: &mut String, b: &String) {
            *a = if a.is_empty() {
                b.clone()
            } else {
                format!("({a}+{b})")
            };
        }
    }

    #[test]
    fn orders_have_their_documented_shapes() {
        assert_eq!(reduce(&Shape, 4, Summation::Recursive), "(((0+1)+2)+3)");
        assert_eq!(reduce(&Shape, 4, Summation::Pairwise), "((0+1)+(2+3))");
        assert_eq!(
            reduce(&Shape, 7, Summation::Pairwise),
            "(((0+1)+(2+3))+((4+5)+6))"
        );
        assert_eq!(reduce(&Shape, 3, Summation::Blocked), "((0+2)+1)");
        let big = reduce(&Shape, 2 * CHUNK + 1, Summation::Blocked);
        // Three chunks, joined as the lanes of a second pass: ((c0 + c2) + c1).
        let c0 = reduce(&Shape, CHUNK, Summation::Blocked);
        assert!(c0.contains("(0+256)+512)"));
        assert!(big.starts_with(&format!("(({c0}+8192)+")), "{}", &big[..40]);
    }
}
