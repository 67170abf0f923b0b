// BLAS level 1 on the GPU (launcher: blas/blas_level1_gpu.rs): the reductions in the three
// summation orders of blas/sum.rs and the element-wise routines of blas/level1.rs, for f64,
// double-double and quad-double, each step the very operation the CPU makes, so that the
// results are the CPU's bits.
//
// Vectors are structure-of-arrays word pointers to element 0 plus a signed increment (a
// negative one walks down from element 0, as BLAS). Accumulators of the reductions are
// `ACC_WORDS` doubles; partial results live in word-major arrays (word k of partial c at
// `out[k * stride + c]`).
//
// The blocked order (see sum.rs): chunk c holds terms [4096c, 4096c + 4096); term j·256 + l of
// a chunk goes to lane l, each lane adds its terms in order starting from −0, and lanes are
// joined by the halving tree lane[t] ← lane[t] ⊕ lane[t + h], h = 128 … 1, skipping lanes
// that hold no term. Chunks are independent: any grid works, a block takes chunks
// blockIdx.x, blockIdx.x + gridDim.x, …, and a block of any size covers the 256 lanes in
// steps of blockDim.x. The result never depends on the launch shape.

#include "blas_reduce.cuh"

// ---- the reductions of level 1 only (the others: blas_reduce.cuh) ----------------------------

// Blue's three accumulators (level1.rs `Nrm2Of`); the thresholds come from the host. The
// rarely used small and big ones are `side` (0: sml, 1: big). For quad-double the step indexes
// them at run time, so that they live in local memory (cached, seldom touched) and leave the
// registers to the medium one: with all three in registers the kernel needed 120 and ran at a
// quarter of the warps. For f64 and double-double, registers are plenty and local memory
// measured slower (nrm2 at 89% / 83% of cublasDnrm2 against 103% / 92%), so the indices are
// fixed there. The first pass's lanes (`Lane`) hold only the medium squares: a lane with a side
// term is stepped instead, so the side accumulators are touched by that rare path alone.
template <class F> struct Nrm2Acc {
    typename F::T med, side[2];
};

template <class F> struct Nrm2Of {
    typedef Nrm2Acc<F> Acc;
    typedef typename F::T T;
    static const int ACC_WORDS = 3 * F::W;
    // No prefetching: with it the quad-double lanes need more registers than three blocks
    // per SM allow (below).
    static const int PREFETCH = 0;
    // Quad-double stages its terms five steps ahead (blocked_pass's staging; H100, n = 2^27,
    // alternated: 86% → 88.8-89.9% of cublasDnrm2; two steps: 87.4-89.0%, three: 86.3-89.2%;
    // at 64 registers and four blocks per SM, spills: 79-83%).
    static const int STAGE = F::W == 4 ? 5 : 0;
    typedef F Format;
    VecArg x;
    MP_DEV void prefetch(u64 i) const { F::prefetch(x, i); }
    double tsml, tbig, ssml, sbig;
    int plain; // no thresholds: plain squares
    MP_DEV Acc identity() const {
        Acc a;
        a.med = a.side[0] = a.side[1] = F::neg_zero();
        return a;
    }
    // The rare scalings out of line.
    static __device__ __noinline__ T scaled(T ax, double f) { return F::mul(ax, F::from_f64(f)); }
    // |x_i| goes to a side accumulator (level1.rs `BlueTerm`; NaN fails both tests and goes to
    // the medium accumulator, as on the CPU).
    MP_DEV bool to_side(const T &ax) const {
        const double lead = F::lead(ax);
        return !plain && (lead > tbig || lead < tsml);
    }
    // `to_side` on the bit pattern of |x|'s leading word (sign bit clear): for such patterns
    // the integer order is the order of the values, and NaN's lie above +∞'s. The same answer,
    // by integer operations instead of the FP64 pipe's comparisons.
    MP_DEV bool to_side_by_bits(const T &ax) const {
        const unsigned long long b = __double_as_longlong(F::lead(ax));
        const unsigned long long small = __double_as_longlong(tsml), big = __double_as_longlong(tbig);
        return !plain && (b < small || (b > big && b <= 0x7ff0000000000000ULL));
    }
    // The branches of level1.rs's `Nrm2Of::step`: the same operations on each accumulator.
    MP_DEV void step(Acc &acc, u64 i) const {
        T ax = F::abs(F::load(x, i));
        if (to_side(ax)) {
            const int big = F::lead(ax) > tbig;
            const T s = scaled(ax, big ? sbig : ssml);
            if constexpr (F::W == 4) acc.side[big] = F::add_square(acc.side[big], s);
            else if (big) acc.side[1] = F::add_square(acc.side[1], s);
            else acc.side[0] = F::add_square(acc.side[0], s);
            return;
        }
        acc.med = F::add_square(acc.med, ax);
    }
    // The lanes (level1.rs `Nrm2Of::first_pass_lanes`): the squares in the format's lane while
    // every term is medium; a lane with a side term is stepped instead (`lane_end` false).
    struct Lane {
        typename LaneOps<F>::Lane med;
        bool side;
    };
    MP_DEV Lane lane_begin() const {
        Lane l;
        l.med = LaneOps<F>::begin();
        l.side = false;
        return l;
    }
    // Term x, as loaded, into the lane. Quad-double: |x| and the test by integer operations
    // (QD::abs_by_sign_bits, to_side_by_bits; NaN's lane is stepped again by `step` in any
    // case). Six fewer FP64 instructions per term; H100, n = 2^27, paired: 86-87% → 86-88% of
    // cublasDnrm2.
    MP_DEV void lane_add(Lane &l, const T &x) const {
        if constexpr (F::W == 4) {
            const T ax = F::abs_by_sign_bits(x);
            if (to_side_by_bits(ax)) l.side = true;
            else LaneOps<F>::add_square(l.med, ax);
        } else {
            const T ax = F::abs(x);
            if (to_side(ax)) l.side = true;
            else LaneOps<F>::add_square(l.med, ax);
        }
    }
    MP_DEV void lane_step(Lane &l, u64 i) const { lane_add(l, F::load(x, i)); }
    MP_DEV bool lane_end(const Lane &l, Acc &a) const {
        a.side[0] = a.side[1] = F::neg_zero();
        return !l.side && LaneOps<F>::end(l.med, a.med);
    }
    // level1.rs `join_unless_empty`: a −0 accumulator (empty) leaves the other as it is.
    static MP_DEV void join_unless_empty(T &a, const T &b) {
        if (__double_as_longlong(F::lead(b)) != (long long)0x8000000000000000ULL) a = F::add_normwise(a, b);
    }
    MP_DEV void join(Acc &a, const Acc &b) const {
        join_unless_empty(a.side[0], b.side[0]);
        join_unless_empty(a.med, b.med);
        join_unless_empty(a.side[1], b.side[1]);
    }
    // Word-major partials: sml, med (rows MAIN_ROW … MAIN_ROW + MAIN_WORDS − 1), big.
    static const int MAIN_ROW = F::W, MAIN_WORDS = F::W;
    static MP_DEV Acc get(const double *p, u64 stride, u64 i) {
        Acc a;
        a.side[0] = F::get(p, stride, i);
        a.med = F::get(p + MAIN_ROW * stride, stride, i);
        a.side[1] = F::get(p + (MAIN_ROW + MAIN_WORDS) * stride, stride, i);
        return a;
    }
    static MP_DEV void put(double *p, u64 stride, u64 i, const Acc &a) {
        F::put(p, stride, i, a.side[0]);
        put_main(p, stride, i, a);
        F::put(p + (MAIN_ROW + MAIN_WORDS) * stride, stride, i, a.side[1]);
    }
    // The split tree (blas_reduce.cuh `SplitOf`), quad-double only (the pass with nodes, whose
    // tail reads the chunks' flags): a chunk's side accumulators are almost always the
    // identity, and then its tree moves and joins the medium ones alone (the main rows).
    static const bool SPLIT = F::W == 4;
    // A side accumulator that is not the identity (−0 in every word). Where no lane of a chunk
    // has one, every join leaves the sides the identity (`join_unless_empty`), so dropping them
    // from the tree changes no bit.
    static MP_DEV bool rare(const Acc &a) {
        double w[2 * F::W];
        F::put(w, 1, 0, a.side[0]);
        F::put(w + F::W, 1, 0, a.side[1]);
        bool r = false;
#pragma unroll
        for (int k = 0; k < 2 * F::W; k++) r = r || __double_as_longlong(w[k]) != (long long)0x8000000000000000ULL;
        return r;
    }
    static MP_DEV Acc get_main(const double *p, u64 stride, u64 i) {
        Acc a;
        a.side[0] = a.side[1] = F::neg_zero();
        a.med = F::get(p + MAIN_ROW * stride, stride, i);
        return a;
    }
    static MP_DEV void put_main(double *p, u64 stride, u64 i, const Acc &a) { F::put(p + MAIN_ROW * stride, stride, i, a.med); }
    MP_DEV void join_main(Acc &a, const Acc &b) const { join_unless_empty(a.med, b.med); }
};

// The compensated pair of accurate.rs (`Pair`): p the running sum, sigma its errors.
struct Pair {
    double p, sigma;
};

MP_DEV void pair_join(Pair &a, const Pair &b) {
    double p, q;
    two_sum(a.p, b.p, p, q);
    a.p = p;
    a.sigma = __dadd_rn(__dadd_rn(a.sigma, b.sigma), q);
}

struct Sum2Of {
    typedef Pair Acc;
    static const int ACC_WORDS = 2;
    static const int PREFETCH = 0;
    MP_DEV void prefetch(u64) const {}
    VecArg x;
    MP_DEV Acc identity() const {
        Pair a;
        a.p = -0.0;
        a.sigma = -0.0;
        return a;
    }
    MP_DEV void step(Acc &acc, u64 i) const {
        double p, q;
        two_sum(acc.p, F64::load(x, i), p, q);
        acc.p = p;
        acc.sigma = __dadd_rn(acc.sigma, q);
    }
    MP_DEV void join(Acc &a, const Acc &b) const { pair_join(a, b); }
    static MP_DEV Acc get(const double *p, u64 stride, u64 i) {
        Pair a;
        a.p = p[i];
        a.sigma = p[stride + i];
        return a;
    }
    static MP_DEV void put(double *p, u64 stride, u64 i, const Acc &a) {
        p[i] = a.p;
        p[stride + i] = a.sigma;
    }
};

struct Dot2Of : Sum2Of {
    VecArg y;
    MP_DEV void step(Pair &acc, u64 i) const {
        double h, r, p, q;
        two_prod(F64::load(x, i), F64::load(y, i), h, r);
        two_sum(acc.p, h, p, q);
        acc.p = p;
        acc.sigma = __dadd_rn(acc.sigma, __dadd_rn(q, r));
    }
};

// ---- the recursive and pairwise orders ---------------------------------------------------------

// The recursive order, on one thread: ((t0 ⊕ t1) ⊕ t2) ⊕ …
template <class R> MP_DEV void recursive(const R &r, u64 n, double *out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    typename R::Acc acc = r.identity();
    for (u64 i = 0; i < n; i++) r.step(acc, i);
    R::put(out, 1, 0, acc);
}

// One level of the pairwise order: out[i] = (id ⊕ t_2i) ⊕ (id ⊕ t_2i+1) (leaf level, as the
// CPU's binary counter forms its blocks), and the odd last term kept in `left` (stride 64:
// slot `level`).
// `Term` gives the blocks of the level: `LeafTerm` (−0 ⊕ t_i) on the data, `PartialTerm` (the
// stored block) on the level before.
template <class R> struct LeafTerm {
    MP_DEV static typename R::Acc at(const R &r, u64 i) {
        typename R::Acc a = r.identity();
        r.step(a, i);
        return a;
    }
};
template <class R> struct PartialTerm {
    MP_DEV static typename R::Acc at(const R &r, u64 i) { return R::get(r.in, r.in_stride, i); }
};

template <class R, class Term>
MP_DEV void pairwise_level(const R &r, u64 n, double *__restrict__ out, u64 out_stride, double *__restrict__ left,
                           unsigned level) {
    const u64 pairs = n / 2;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += (u64)blockDim.x * gridDim.x) {
        typename R::Acc a = Term::at(r, 2 * i);
        r.join(a, Term::at(r, 2 * i + 1));
        R::put(out, out_stride, i, a);
    }
    if ((n & 1) && blockIdx.x == 0 && threadIdx.x == 0) R::put(left, 64, level, Term::at(r, n - 1));
}

// The end of the pairwise order: s = the lowest leftover; s = leftover ⊕ s up the levels
// (`mask` bit k: level k left one), and last the top block ⊕ s.
template <class R> MP_DEV void pairwise_finish(const R &r, const double *top, const double *left, u64 mask, double *out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    bool have = false;
    typename R::Acc s = r.identity();
    for (int k = 0; k < 64; k++) {
        if (!((mask >> k) & 1)) continue;
        typename R::Acc t = R::get(left, 64, k);
        if (have) r.join(t, s);
        s = t;
        have = true;
    }
    typename R::Acc t = R::get(top, 1, 0);
    if (have) r.join(t, s);
    R::put(out, 1, 0, t);
}

// ---- entry points ------------------------------------------------------------------------------
// blas_<fmt>_<what>_<order>. `first` kernels read the vectors; `join` kernels read partials.
// Each entry point is one call of the template below that builds its reduction; the literal
// `extern "C"` names are what the launcher's KERNELS table and tests/kernel_names.rs check.

template <class R> MP_DEV R of_x(VecArg x) {
    R r;
    r.x = x;
    return r;
}
template <class R> MP_DEV R of_xy(VecArg x, VecArg y) {
    R r;
    r.x = x;
    r.y = y;
    return r;
}
template <class R> MP_DEV JoinOf<R> of_partials(const double *in, u64 is) {
    JoinOf<R> r;
    r.in = in;
    r.in_stride = is;
    return r;
}
template <class F, int K, int NODES = 1>
MP_DEV void nrm2_blocked(VecArg x, u64 n, double *out, u64 os, double tsml, double tbig, double ssml,
                         double sbig, int plain) {
    Nrm2Of<F> r;
    r.x = x;
    r.tsml = tsml;
    r.tbig = tbig;
    r.ssml = ssml;
    r.sbig = sbig;
    r.plain = plain;
    blocked_pass<K, NODES>(r, n, out, os);
}

extern "C" __global__ void blas_f64_sum_blocked(VecArg x, u64 n, double *out, u64 os) {
    blocked_pass(of_x<SumOf<F64> >(x), n, out, os);
}
extern "C" __global__ void blas_f64_asum_blocked(VecArg x, u64 n, double *out, u64 os) {
    blocked_pass(of_x<AsumOf<F64> >(x), n, out, os);
}
extern "C" __global__ void blas_f64_dot_blocked(VecArg x, VecArg y, u64 n, double *out, u64 os) {
    blocked_pass(of_xy<DotOf<F64> >(x, y), n, out, os);
}
extern "C" __global__ void blas_f64_absdot_blocked(VecArg x, VecArg y, u64 n, double *out, u64 os) {
    blocked_pass(of_xy<AbsDotOf<F64> >(x, y), n, out, os);
}
extern "C" __global__ void blas_f64_nrm2_blocked(VecArg x, u64 n, double *out, u64 os, double tsml, double tbig, double ssml,
                                     double sbig, int plain) {
    nrm2_blocked<F64, 1>(x, n, out, os, tsml, tbig, ssml, sbig, plain);
}
extern "C" __global__ void blas_f64_join_blocked(const double *in, u64 is, u64 n, double *out, u64 os) {
    blocked_pass(of_partials<SumOf<F64> >(in, is), n, out, os);
}
extern "C" __global__ void blas_f64_nrm2join_blocked(const double *in, u64 is, u64 n, double *out, u64 os) {
    blocked_pass(of_partials<Nrm2Of<F64> >(in, is), n, out, os);
}
extern "C" __global__ void blas_f64_sum_recursive(VecArg x, u64 n, double *out) {
    recursive(of_x<SumOf<F64> >(x), n, out);
}
extern "C" __global__ void blas_f64_dot_recursive(VecArg x, VecArg y, u64 n, double *out) {
    recursive(of_xy<DotOf<F64> >(x, y), n, out);
}
extern "C" __global__ void blas_f64_sum_pairwise(VecArg x, u64 n, double *out, u64 os, double *left) {
    pairwise_level<SumOf<F64>, LeafTerm<SumOf<F64> > >(of_x<SumOf<F64> >(x), n, out, os, left, 0);
}
extern "C" __global__ void blas_f64_dot_pairwise(VecArg x, VecArg y, u64 n, double *out, u64 os, double *left) {
    pairwise_level<DotOf<F64>, LeafTerm<DotOf<F64> > >(of_xy<DotOf<F64> >(x, y), n, out, os, left, 0);
}
extern "C" __global__ void blas_f64_join_pairwise(const double *in, u64 is, u64 n, double *out, u64 os, double *left,
                                     unsigned level) {
    pairwise_level<JoinOf<SumOf<F64> >, PartialTerm<JoinOf<SumOf<F64> > > >(of_partials<SumOf<F64> >(in, is), n, out, os, left, level);
}
extern "C" __global__ void blas_f64_finish_pairwise(const double *top, const double *left, u64 mask, double *out) {
    pairwise_finish(SumOf<F64>(), top, left, mask, out);
}

extern "C" __global__ void blas_dd_sum_blocked(VecArg x, u64 n, double *out, u64 os) {
    blocked_pass(of_x<SumOf<DD> >(x), n, out, os);
}
extern "C" __global__ void blas_dd_asum_blocked(VecArg x, u64 n, double *out, u64 os) {
    blocked_pass(of_x<AsumOf<DD> >(x), n, out, os);
}
extern "C" __global__ void blas_dd_dot_blocked(VecArg x, VecArg y, u64 n, double *out, u64 os) {
    blocked_pass(of_xy<DotOf<DD> >(x, y), n, out, os);
}
extern "C" __global__ void blas_dd_absdot_blocked(VecArg x, VecArg y, u64 n, double *out, u64 os) {
    blocked_pass(of_xy<AbsDotOf<DD> >(x, y), n, out, os);
}
extern "C" __global__ void blas_dd_nrm2_blocked(VecArg x, u64 n, double *out, u64 os, double tsml, double tbig, double ssml,
                                     double sbig, int plain) {
    nrm2_blocked<DD, 1>(x, n, out, os, tsml, tbig, ssml, sbig, plain);
}
extern "C" __global__ void blas_dd_join_blocked(const double *in, u64 is, u64 n, double *out, u64 os) {
    blocked_pass(of_partials<SumOf<DD> >(in, is), n, out, os);
}
extern "C" __global__ void blas_dd_nrm2join_blocked(const double *in, u64 is, u64 n, double *out, u64 os) {
    blocked_pass(of_partials<Nrm2Of<DD> >(in, is), n, out, os);
}
extern "C" __global__ void blas_dd_sum_recursive(VecArg x, u64 n, double *out) {
    recursive(of_x<SumOf<DD> >(x), n, out);
}
extern "C" __global__ void blas_dd_dot_recursive(VecArg x, VecArg y, u64 n, double *out) {
    recursive(of_xy<DotOf<DD> >(x, y), n, out);
}
extern "C" __global__ void blas_dd_sum_pairwise(VecArg x, u64 n, double *out, u64 os, double *left) {
    pairwise_level<SumOf<DD>, LeafTerm<SumOf<DD> > >(of_x<SumOf<DD> >(x), n, out, os, left, 0);
}
extern "C" __global__ void blas_dd_dot_pairwise(VecArg x, VecArg y, u64 n, double *out, u64 os, double *left) {
    pairwise_level<DotOf<DD>, LeafTerm<DotOf<DD> > >(of_xy<DotOf<DD> >(x, y), n, out, os, left, 0);
}
extern "C" __global__ void blas_dd_join_pairwise(const double *in, u64 is, u64 n, double *out, u64 os, double *left,
                                     unsigned level) {
    pairwise_level<JoinOf<SumOf<DD> >, PartialTerm<JoinOf<SumOf<DD> > > >(of_partials<SumOf<DD> >(in, is), n, out, os, left, level);
}
extern "C" __global__ void blas_dd_finish_pairwise(const double *top, const double *left, u64 mask, double *out) {
    pairwise_finish(SumOf<DD>(), top, left, mask, out);
}

extern "C" __global__ void blas_qd_sum_blocked(VecArg x, u64 n, double *out, u64 os) {
    blocked_pass(of_x<SumOf<QD> >(x), n, out, os);
}
extern "C" __global__ void blas_qd_asum_blocked(VecArg x, u64 n, double *out, u64 os) {
    blocked_pass(of_x<AsumOf<QD> >(x), n, out, os);
}
extern "C" __global__ void blas_qd_dot_blocked(VecArg x, VecArg y, u64 n, double *out, u64 os) {
    blocked_pass(of_xy<DotOf<QD> >(x, y), n, out, os);
}
extern "C" __global__ void blas_qd_absdot_blocked(VecArg x, VecArg y, u64 n, double *out, u64 os) {
    blocked_pass(of_xy<AbsDotOf<QD> >(x, y), n, out, os);
}
// At most 80 registers, three blocks of 256 per SM (95 and two blocks unbounded): H100,
// n = 2^27, 77% → 82% of cublasDnrm2 (prefetching two steps ahead as well: 82%; 64
// registers, four blocks: 75%). Each chunk's tree stops at QD_NRM2_NODES nodes, which
// blas_qd_nrm2tail_blocked joins: ncu had the warps waiting at the tree's barriers 3.7 times
// per issued instruction, while one warp joined the last levels; 82% → 84-86% at 16 nodes
// (32: 84%). With the terms staged (Nrm2Of::STAGE), 32 nodes (three levels in the block) read
// 0.4-0.9 points above 16, alternated (H100, n = 2^27: 2,212-2,224 against 2,195-2,209 GB/s).
// The split tree (Nrm2Of::SPLIT) moves a third of the words in the chunks' trees, nodes and
// tail where no term is a side one: 88.7-91.3% → 90.4-93.1% of cublasDnrm2 (H100, n = 2^27,
// alternated in one process, 16 pairs; 2^24: 117-120% → 119-123%).
// The launcher's TAIL_NODES (blas_level1_gpu.rs) must equal it: it sizes the nodes' buffer.
#define QD_NRM2_NODES 32
extern "C" __global__ void __maxnreg__(80) blas_qd_nrm2_blocked(VecArg x, u64 n, double *out, u64 os, double tsml, double tbig, double ssml,
                                     double sbig, int plain) {
    nrm2_blocked<QD, 1, QD_NRM2_NODES>(x, n, out, os, tsml, tbig, ssml, sbig, plain);
}
extern "C" __global__ void blas_qd_nrm2tail_blocked(const double *in, u64 is, u64 n, double *out, u64 os) {
    blocked_tail<QD_NRM2_NODES>(Nrm2Of<QD>(), in, is, n, out, os);
}
extern "C" __global__ void blas_qd_join_blocked(const double *in, u64 is, u64 n, double *out, u64 os) {
    blocked_pass(of_partials<SumOf<QD> >(in, is), n, out, os);
}
extern "C" __global__ void blas_qd_nrm2join_blocked(const double *in, u64 is, u64 n, double *out, u64 os) {
    blocked_pass(of_partials<Nrm2Of<QD> >(in, is), n, out, os);
}
extern "C" __global__ void blas_qd_sum_recursive(VecArg x, u64 n, double *out) {
    recursive(of_x<SumOf<QD> >(x), n, out);
}
extern "C" __global__ void blas_qd_dot_recursive(VecArg x, VecArg y, u64 n, double *out) {
    recursive(of_xy<DotOf<QD> >(x, y), n, out);
}
extern "C" __global__ void blas_qd_sum_pairwise(VecArg x, u64 n, double *out, u64 os, double *left) {
    pairwise_level<SumOf<QD>, LeafTerm<SumOf<QD> > >(of_x<SumOf<QD> >(x), n, out, os, left, 0);
}
extern "C" __global__ void blas_qd_dot_pairwise(VecArg x, VecArg y, u64 n, double *out, u64 os, double *left) {
    pairwise_level<DotOf<QD>, LeafTerm<DotOf<QD> > >(of_xy<DotOf<QD> >(x, y), n, out, os, left, 0);
}
extern "C" __global__ void blas_qd_join_pairwise(const double *in, u64 is, u64 n, double *out, u64 os, double *left,
                                     unsigned level) {
    pairwise_level<JoinOf<SumOf<QD> >, PartialTerm<JoinOf<SumOf<QD> > > >(of_partials<SumOf<QD> >(in, is), n, out, os, left, level);
}
extern "C" __global__ void blas_qd_finish_pairwise(const double *top, const double *left, u64 mask, double *out) {
    pairwise_finish(SumOf<QD>(), top, left, mask, out);
}

extern "C" __global__ void blas_f64_sum2_blocked(VecArg x, u64 n, double *out, u64 os) {
    Sum2Of r;
    r.x = x;
    blocked_pass(r, n, out, os);
}

extern "C" __global__ void blas_f64_dot2_blocked(VecArg x, VecArg y, u64 n, double *out, u64 os) {
    Dot2Of r;
    r.x = x;
    r.y = y;
    blocked_pass(r, n, out, os);
}

extern "C" __global__ void blas_f64_pairjoin_blocked(const double *in, u64 is, u64 n, double *out, u64 os) {
    JoinOf<Sum2Of> r;
    r.in = in;
    r.in_stride = is;
    blocked_pass(r, n, out, os);
}

// ---- element-wise --------------------------------------------------------------------------------

template <class F> MP_DEV void axpy(ScalArg alpha, VecArg x, MutVecArg y, u64 n) {
    typename F::T a = F::make(alpha.w);
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)blockDim.x * gridDim.x) {
        VecArg yr;
        for (int k = 0; k < 4; k++) yr.w[k] = y.w[k];
        yr.inc = y.inc;
        F::store(y, i, F::add_product(F::load(yr, i), a, F::load(x, i)));
    }
}

template <class F> MP_DEV void scal(ScalArg alpha, MutVecArg x, u64 n) {
    typename F::T a = F::make(alpha.w);
    VecArg xr;
    for (int k = 0; k < 4; k++) xr.w[k] = x.w[k];
    xr.inc = x.inc;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)blockDim.x * gridDim.x)
        F::store(x, i, F::mul(a, F::load(xr, i)));
}

template <class F> MP_DEV void rot(MutVecArg x, MutVecArg y, u64 n, ScalArg cw, ScalArg sw) {
    typename F::T c = F::make(cw.w), s = F::make(sw.w);
    VecArg xr, yr;
    for (int k = 0; k < 4; k++) {
        xr.w[k] = x.w[k];
        yr.w[k] = y.w[k];
    }
    xr.inc = x.inc;
    yr.inc = y.inc;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)blockDim.x * gridDim.x) {
        typename F::T xi = F::load(xr, i), yi = F::load(yr, i);
        F::store(x, i, F::add(F::mul(c, xi), F::mul(s, yi)));
        F::store(y, i, F::sub(F::mul(c, yi), F::mul(s, xi)));
    }
}

// iamax: per block the first NaN and the first largest |x|, then one block joins the blocks'
// candidates. The selection (smallest NaN index, else largest |x| with the smallest index) is
// associative and commutative, so any grid gives the CPU's answer.
#define NONE 0xffffffffffffffffULL

template <class F> struct Cand {
    typename F::T a;
    u64 idx, nan;
};

template <class F> MP_DEV void cand_join(Cand<F> &c, const Cand<F> &o) {
    if (o.nan < c.nan) c.nan = o.nan;
    if (o.idx == NONE) return;
    if (c.idx == NONE || F::less(c.a, o.a) || (!F::less(o.a, c.a) && o.idx < c.idx)) {
        c.a = o.a;
        c.idx = o.idx;
    }
}

template <class F> MP_DEV void iamax_block(Cand<F> c, u64 *out_idx, u64 *out_nan, double *out_a, u64 slot) {
    __shared__ Cand<F> sh[256]; // launched with at most 256 threads
    sh[threadIdx.x] = c;
    __syncthreads();
    if (threadIdx.x == 0) {
        Cand<F> b = sh[0];
        for (unsigned t = 1; t < blockDim.x; t++) cand_join(b, sh[t]);
        out_idx[slot] = b.idx;
        out_nan[slot] = b.nan;
        F::put(out_a, gridDim.x, slot, b.a);
    }
}

template <class F> MP_DEV void iamax_first(VecArg x, u64 n, u64 *oi, u64 *on, double *oa) {
    Cand<F> c;
    c.a = F::neg_zero();
    c.idx = NONE;
    c.nan = NONE;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)blockDim.x * gridDim.x) {
        typename F::T v = F::load(x, i);
        if (mp_is_nan(F::lead(v))) {
            if (i < c.nan) c.nan = i;
            continue;
        }
        Cand<F> o;
        o.a = F::abs(v);
        o.idx = i;
        o.nan = NONE;
        cand_join(c, o);
    }
    iamax_block(c, oi, on, oa, blockIdx.x);
}

template <class F> MP_DEV void iamax_join(const u64 *ii, const u64 *in_, const double *ia, u64 m, u64 *out) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    Cand<F> c;
    c.a = F::neg_zero();
    c.idx = NONE;
    c.nan = NONE;
    for (u64 b = 0; b < m; b++) {
        Cand<F> o;
        o.a = F::get(ia, m, b);
        o.idx = ii[b];
        o.nan = in_[b];
        cand_join(c, o);
    }
    out[0] = c.nan != NONE ? c.nan : c.idx;
}

extern "C" __global__ void blas_f64_axpy(ScalArg alpha, VecArg x, MutVecArg y, u64 n) {
    axpy<F64>(alpha, x, y, n);
}
extern "C" __global__ void blas_f64_scal(ScalArg alpha, MutVecArg x, u64 n) {
    scal<F64>(alpha, x, n);
}
extern "C" __global__ void blas_f64_rot(MutVecArg x, MutVecArg y, u64 n, ScalArg c, ScalArg s) {
    rot<F64>(x, y, n, c, s);
}
extern "C" __global__ void blas_f64_iamax(VecArg x, u64 n, u64 *oi, u64 *on, double *oa) {
    iamax_first<F64>(x, n, oi, on, oa);
}
extern "C" __global__ void blas_f64_iamax_join(const u64 *ii, const u64 *in_, const double *ia, u64 m,
                                                   u64 *out) {
    iamax_join<F64>(ii, in_, ia, m, out);
}

extern "C" __global__ void blas_dd_axpy(ScalArg alpha, VecArg x, MutVecArg y, u64 n) {
    axpy<DD>(alpha, x, y, n);
}
extern "C" __global__ void blas_dd_scal(ScalArg alpha, MutVecArg x, u64 n) {
    scal<DD>(alpha, x, n);
}
extern "C" __global__ void blas_dd_rot(MutVecArg x, MutVecArg y, u64 n, ScalArg c, ScalArg s) {
    rot<DD>(x, y, n, c, s);
}
extern "C" __global__ void blas_dd_iamax(VecArg x, u64 n, u64 *oi, u64 *on, double *oa) {
    iamax_first<DD>(x, n, oi, on, oa);
}
extern "C" __global__ void blas_dd_iamax_join(const u64 *ii, const u64 *in_, const double *ia, u64 m,
                                                   u64 *out) {
    iamax_join<DD>(ii, in_, ia, m, out);
}

extern "C" __global__ void blas_qd_axpy(ScalArg alpha, VecArg x, MutVecArg y, u64 n) {
    axpy<QD>(alpha, x, y, n);
}
extern "C" __global__ void blas_qd_scal(ScalArg alpha, MutVecArg x, u64 n) {
    scal<QD>(alpha, x, n);
}
extern "C" __global__ void blas_qd_rot(MutVecArg x, MutVecArg y, u64 n, ScalArg c, ScalArg s) {
    rot<QD>(x, y, n, c, s);
}
extern "C" __global__ void blas_qd_iamax(VecArg x, u64 n, u64 *oi, u64 *on, double *oa) {
    iamax_first<QD>(x, n, oi, on, oa);
}
extern "C" __global__ void blas_qd_iamax_join(const u64 *ii, const u64 *in_, const double *ia, u64 m,
                                                   u64 *out) {
    iamax_join<QD>(ii, in_, ia, m, out);
}

