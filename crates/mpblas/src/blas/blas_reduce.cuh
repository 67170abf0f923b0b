// The reductions shared by the BLAS kernel modules (blas_level1_gpu.cu, blas_level2_gpu.cu):
// the formats (each step the very operation the CPU makes), the reductions of level1.rs and
// one pass of the blocked order of sum.rs. See blas_level1_gpu.cu for the conventions.
#pragma once

#include "dd.cuh"
#include "qd.cuh"

typedef unsigned long long u64;
typedef long long i64;

#define LANES 256
#define PER_LANE 16
#define CHUNK (LANES * PER_LANE)

// A vector: word pointers to element 0 and the increment between elements.
struct VecArg {
    const double *w[4];
    i64 inc;
};
struct MutVecArg {
    double *w[4];
    i64 inc;
};
// A scalar argument: its words, most significant first.
struct ScalArg {
    double w[4];
};

// ---- formats ----------------------------------------------------------------------------------
// Each names the CPU operation it mirrors (scalar.rs, dd/arith.rs, qd/arith.rs).

// Prefetching: `PREFETCH` is how many steps ahead the blocked pass asks L1 for a lane's next
// terms (0: not at all), `prefetch` asks for element i's words. The f64 and double-double steps
// are short enough for the SM to hide the loads' latency by itself; the quad-double steps keep
// too many registers live for the compiler to issue loads early (H100, quad-double sum: 60
// registers, 44% of the stalls waiting for global loads; two steps ahead: 1,526 → 2,124 GB/s
// at n = 2^27, the same bits).
MP_DEV void prefetch_l1(const double *p) { asm volatile("prefetch.global.L1 [%0];" ::"l"(p)); }

// The quad-double prefetch distance (a define so that bench/probes can compile other values).
#ifndef MPBLAS_QD_PREFETCH
#define MPBLAS_QD_PREFETCH 2
#endif

struct F64 {
    typedef double T;
    static const int W = 1;
    static const int PREFETCH = 0;
    static MP_DEV void prefetch(const VecArg &v, u64 i) { prefetch_l1(v.w[0] + (i64)i * v.inc); }
    static MP_DEV T load(const VecArg &v, u64 i) { return v.w[0][(i64)i * v.inc]; }
    static MP_DEV void store(const MutVecArg &v, u64 i, T x) { v.w[0][(i64)i * v.inc] = x; }
    static MP_DEV T get(const double *p, u64 stride, u64 i) { return p[i]; }
    static MP_DEV void put(double *p, u64 stride, u64 i, T x) { p[i] = x; }
    static MP_DEV T make(const double *w) { return w[0]; }
    static MP_DEV T from_f64(double x) { return x; }
    static MP_DEV T neg_zero() { return -0.0; }
    static MP_DEV double lead(T a) { return a; }
    static MP_DEV T add(T a, T b) { return __dadd_rn(a, b); }
    static MP_DEV T sub(T a, T b) { return __dsub_rn(a, b); }
    static MP_DEV T mul(T a, T b) { return __dmul_rn(a, b); }
    // Scalar::add_product for f64: a.mul_add(b, acc).
    static MP_DEV T add_product(T acc, T a, T b) { return __fma_rn(a, b, acc); }
    static MP_DEV T add_square(T acc, T a) { return add_product(acc, a, a); }
    // Scalar::add_assign_normwise: the format's `+`.
    static MP_DEV T add_normwise(T a, T b) { return add(a, b); }
    static MP_DEV T abs(T a) { return mp_abs(a); }
    // The lexicographic order of the words (iamax on |x|).
    static MP_DEV bool less(T a, T b) { return a < b; }
};

struct DD {
    typedef Dd T;
    static const int W = 2;
    static const int PREFETCH = 0;
    static MP_DEV void prefetch(const VecArg &v, u64 i) {
        for (int k = 0; k < 2; k++) prefetch_l1(v.w[k] + (i64)i * v.inc);
    }
    static MP_DEV T load(const VecArg &v, u64 i) {
        i64 k = (i64)i * v.inc;
        return dd_make(v.w[0][k], v.w[1][k]);
    }
    static MP_DEV void store(const MutVecArg &v, u64 i, T x) {
        i64 k = (i64)i * v.inc;
        v.w[0][k] = x.hi;
        v.w[1][k] = x.lo;
    }
    static MP_DEV T get(const double *p, u64 stride, u64 i) { return dd_make(p[i], p[stride + i]); }
    static MP_DEV void put(double *p, u64 stride, u64 i, T x) {
        p[i] = x.hi;
        p[stride + i] = x.lo;
    }
    static MP_DEV T make(const double *w) { return dd_make(w[0], w[1]); }
    static MP_DEV T from_f64(double x) { return dd_make(x, 0.0); }
    static MP_DEV T neg_zero() { return dd_make(-0.0, -0.0); }
    static MP_DEV double lead(T a) { return a.hi; }
    static MP_DEV T add(T a, T b) { return dd::add_accurate(a, b); }
    static MP_DEV T sub(T a, T b) { return dd::sub(a, b); }
    static MP_DEV T mul(T a, T b) { return dd::mul_accurate(a, b); }
    // `*self += *a * *b`.
    static MP_DEV T add_product(T acc, T a, T b) { return dd::add_accurate(acc, dd::mul_accurate(a, b)); }
    static MP_DEV T add_square(T acc, T a) { return add_product(acc, a, a); }
    static MP_DEV T add_normwise(T a, T b) { return add(a, b); }
    // Dd::abs: negate when the sign bit of the leading word is set.
    static MP_DEV T abs(T a) { return __double_as_longlong(a.hi) < 0 ? dd::neg(a) : a; }
    static MP_DEV bool less(T a, T b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
};

struct QD {
    typedef Qd T;
    static const int W = 4;
    static const int PREFETCH = MPBLAS_QD_PREFETCH;
    static MP_DEV void prefetch(const VecArg &v, u64 i) {
#pragma unroll
        for (int k = 0; k < 4; k++) prefetch_l1(v.w[k] + (i64)i * v.inc);
    }
    static MP_DEV T load(const VecArg &v, u64 i) {
        i64 k = (i64)i * v.inc;
        return qd_make(v.w[0][k], v.w[1][k], v.w[2][k], v.w[3][k]);
    }
    // Term i's words to column l of `rows` (rows w·LANES, w = 0…3) without registers: an
    // asynchronous copy (cp.async) that `stage_read` finds there after cp.async.wait_group.
    static MP_DEV void stage_copy(const VecArg &v, double *rows, unsigned l, u64 i) {
        const i64 k = (i64)i * v.inc;
#pragma unroll
        for (int w = 0; w < 4; w++) {
            const unsigned to = (unsigned)__cvta_generic_to_shared(rows + w * LANES + l);
            asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(to), "l"(v.w[w] + k) : "memory");
        }
    }
    static MP_DEV T stage_read(const double *rows, unsigned l) {
        return qd_make(rows[l], rows[LANES + l], rows[2 * LANES + l], rows[3 * LANES + l]);
    }
    static MP_DEV void store(const MutVecArg &v, u64 i, T x) {
        i64 k = (i64)i * v.inc;
        for (int j = 0; j < 4; j++) v.w[j][k] = x.c[j];
    }
    static MP_DEV T get(const double *p, u64 stride, u64 i) {
        return qd_make(p[i], p[stride + i], p[2 * stride + i], p[3 * stride + i]);
    }
    static MP_DEV void put(double *p, u64 stride, u64 i, T x) {
        for (int j = 0; j < 4; j++) p[j * stride + i] = x.c[j];
    }
    static MP_DEV T make(const double *w) { return qd_make(w[0], w[1], w[2], w[3]); }
    static MP_DEV T from_f64(double x) { return qd::from_f64(x); }
    static MP_DEV T neg_zero() { return qd_make(-0.0, -0.0, -0.0, -0.0); }
    static MP_DEV double lead(T a) { return a.c[0]; }
    static MP_DEV T add(T a, T b) { return qd::add_ieee(a, b); }
    static MP_DEV T sub(T a, T b) { return qd::sub(a, b); }
    static MP_DEV T mul(T a, T b) { return qd::mul_accurate(a, b); }
    // The sloppy steps (Qd::add_product_sloppy, Qd::add_sloppy).
    static MP_DEV T add_product(T acc, T a, T b) { return qd::add_product_sloppy(acc, a, b); }
    // Scalar::add_square: the norms' step (Qd::add_square_sloppy).
    static MP_DEV T add_square(T acc, T a) { return qd::add_square_sloppy(acc, a); }
    static MP_DEV T add_normwise(T a, T b) { return qd::add_sloppy(a, b); }
    static MP_DEV T abs(T a) { return __double_as_longlong(a.c[0]) < 0 ? qd::neg(a) : a; }
    // `abs` by integer operations: every word's sign bit flipped where the leading word's is
    // set. The same words as `abs` for every a without NaN (negation is the sign flip), and off
    // the FP64 pipe, which bounds the quad-double norm's lanes.
    static MP_DEV T abs_by_sign_bits(T a) {
        const long long sign = __double_as_longlong(a.c[0]) & (long long)0x8000000000000000ULL;
#pragma unroll
        for (int j = 0; j < 4; j++) a.c[j] = __longlong_as_double(__double_as_longlong(a.c[j]) ^ sign);
        return a;
    }
    static MP_DEV bool less(T a, T b) {
        for (int j = 0; j < 4; j++) {
            if (a.c[j] < b.c[j]) return true;
            if (a.c[j] > b.c[j]) return false;
        }
        return false;
    }
};

// ---- lanes -------------------------------------------------------------------------------------
// The first pass of the blocked order sums each lane's terms (`Scalar::LANE_SUMS` in the Rust
// code): f64 and double-double step the value term by term, quad-double accumulates the lane in
// a qd::LaneSum and renormalises once. `end` gives the lane's value, false where the caller must
// step the lane's terms one by one instead (a quad-double lane whose sum does not come out a
// finite, non-zero, normalised number: special values, overflow, deep cancellation).
template <class F> struct LaneOps {
    typedef typename F::T Lane;
    static MP_DEV Lane begin() { return F::neg_zero(); }
    static MP_DEV void add(Lane &l, const typename F::T &x) { l = F::add_normwise(l, x); }
    static MP_DEV void add_product(Lane &l, const typename F::T &a, const typename F::T &b) {
        l = F::add_product(l, a, b);
    }
    static MP_DEV void add_square(Lane &l, const typename F::T &a) { l = F::add_square(l, a); }
    static MP_DEV bool end(const Lane &l, typename F::T &out) {
        out = l;
        return true;
    }
};
template <> struct LaneOps<QD> {
    typedef qd::LaneSum Lane;
    static MP_DEV Lane begin() { return qd::lane_empty(); }
    static MP_DEV void add(Lane &l, const Qd &x) { qd::lane_add(l, x); }
    static MP_DEV void add_product(Lane &l, const Qd &a, const Qd &b) { qd::lane_add_product(l, a, b); }
    static MP_DEV void add_square(Lane &l, const Qd &a) { qd::lane_add_square(l, a); }
    static MP_DEV bool end(const Lane &l, Qd &out) { return qd::lane_finish(l, out); }
};

// ---- reductions: what each accumulates ---------------------------------------------------------
// Each has an accumulator `Acc` of `ACC_WORDS` doubles, `identity`, `step(acc, i)` (term i
// added) and `join(a, b)` (a ← a ⊕ b), the twins of the `Reduction` impls of level1.rs and
// accurate.rs, moves accumulators to and from word-major arrays, and `prefetch(i)` (the words
// term i will read) with its distance `PREFETCH` (see the formats). The level-1 reductions also
// have a `Lane` (LaneOps) with `lane_begin`, `lane_step(lane, i)` and `lane_end(lane, acc)`;
// the others step their accumulator (LaneOf).

template <class F> struct SumOf {
    typedef typename F::T Acc;
    static const int ACC_WORDS = F::W;
    static const int PREFETCH = F::PREFETCH;
    VecArg x;
    MP_DEV void prefetch(u64 i) const { F::prefetch(x, i); }
    MP_DEV Acc identity() const { return F::neg_zero(); }
    MP_DEV void step(Acc &acc, u64 i) const { acc = F::add_normwise(acc, F::load(x, i)); }
    MP_DEV void join(Acc &a, const Acc &b) const { a = F::add_normwise(a, b); }
    static MP_DEV Acc get(const double *p, u64 stride, u64 i) { return F::get(p, stride, i); }
    static MP_DEV void put(double *p, u64 stride, u64 i, const Acc &a) { F::put(p, stride, i, a); }
    typedef typename LaneOps<F>::Lane Lane;
    MP_DEV Lane lane_begin() const { return LaneOps<F>::begin(); }
    MP_DEV void lane_step(Lane &l, u64 i) const { LaneOps<F>::add(l, F::load(x, i)); }
    MP_DEV bool lane_end(const Lane &l, Acc &a) const { return LaneOps<F>::end(l, a); }
};

template <class F> struct AsumOf : SumOf<F> {
    MP_DEV void step(typename F::T &acc, u64 i) const { acc = F::add_normwise(acc, F::abs(F::load(this->x, i))); }
    MP_DEV void lane_step(typename SumOf<F>::Lane &l, u64 i) const {
        LaneOps<F>::add(l, F::abs(F::load(this->x, i)));
    }
};

// No prefetching for the products: the quad-double dot product measured slower with it (H100,
// n = 2^27, lane sums: one chunk per block 2,880 → 2,760 GB/s; two 1,972 → 1,016).
template <class F> struct DotOf : SumOf<F> {
    static const int PREFETCH = 0;
    VecArg y;
    MP_DEV void prefetch(u64 i) const {
        F::prefetch(this->x, i);
        F::prefetch(y, i);
    }
    MP_DEV void step(typename F::T &acc, u64 i) const {
        acc = F::add_product(acc, F::load(this->x, i), F::load(y, i));
    }
    // `step` on terms already loaded (x_i, y_i).
    static MP_DEV void step_loaded(typename F::T &acc, const typename F::T &a, const typename F::T &b) {
        acc = F::add_product(acc, a, b);
    }
    MP_DEV void lane_step(typename SumOf<F>::Lane &l, u64 i) const {
        LaneOps<F>::add_product(l, F::load(this->x, i), F::load(y, i));
    }
    static MP_DEV void lane_step_loaded(typename SumOf<F>::Lane &l, const typename F::T &a,
                                        const typename F::T &b) {
        LaneOps<F>::add_product(l, a, b);
    }
};

// Σ|x_i|·|y_i|, for the error bound of a dot product (level1.rs `AbsDotOf`).
template <class F> struct AbsDotOf : SumOf<F> {
    static const int PREFETCH = 0;
    VecArg y;
    MP_DEV void prefetch(u64 i) const {
        F::prefetch(this->x, i);
        F::prefetch(y, i);
    }
    MP_DEV void step(typename F::T &acc, u64 i) const {
        acc = F::add_product(acc, F::abs(F::load(this->x, i)), F::abs(F::load(y, i)));
    }
    static MP_DEV void step_loaded(typename F::T &acc, const typename F::T &a, const typename F::T &b) {
        acc = F::add_product(acc, F::abs(a), F::abs(b));
    }
    MP_DEV void lane_step(typename SumOf<F>::Lane &l, u64 i) const {
        LaneOps<F>::add_product(l, F::abs(F::load(this->x, i)), F::abs(F::load(y, i)));
    }
    static MP_DEV void lane_step_loaded(typename SumOf<F>::Lane &l, const typename F::T &a,
                                        const typename F::T &b) {
        LaneOps<F>::add_product(l, F::abs(a), F::abs(b));
    }
};

// The later passes: the terms are the partials of the pass before, joined.
template <class R> struct JoinOf {
    typedef typename R::Acc Acc;
    static const int ACC_WORDS = R::ACC_WORDS;
    static const int PREFETCH = 0;
    MP_DEV void prefetch(u64) const {}
    R r;
    const double *in;
    u64 in_stride;
    MP_DEV Acc identity() const { return r.identity(); }
    MP_DEV void step(Acc &acc, u64 i) const { r.join(acc, R::get(in, in_stride, i)); }
    MP_DEV void join(Acc &a, const Acc &b) const { r.join(a, b); }
    static MP_DEV Acc get(const double *p, u64 stride, u64 i) { return R::get(p, stride, i); }
    static MP_DEV void put(double *p, u64 stride, u64 i, const Acc &a) { R::put(p, stride, i, a); }
};

// The lane operations of a reduction: its own where it has a `Lane`, else its accumulator
// stepped term by term. `result` ends a lane whose terms are `first, first + LANES, …` below
// `end`, stepping them one by one where the lane has no value (LaneOps).
template <class...> struct VoidOf {
    typedef void type;
};
template <class R, class = void> struct LaneOf {
    typedef typename R::Acc Lane;
    static MP_DEV Lane begin(const R &r) { return r.identity(); }
    static MP_DEV void step(const R &r, Lane &l, u64 i) { r.step(l, i); }
    template <class T> static MP_DEV void step_loaded(Lane &l, const T &a, const T &b) { R::step_loaded(l, a, b); }
    static MP_DEV typename R::Acc result(const R &, const Lane &l, u64, u64) { return l; }
};
template <class R> struct LaneOf<R, typename VoidOf<typename R::Lane>::type> {
    typedef typename R::Lane Lane;
    static MP_DEV Lane begin(const R &r) { return r.lane_begin(); }
    static MP_DEV void step(const R &r, Lane &l, u64 i) { r.lane_step(l, i); }
    template <class T> static MP_DEV void step_loaded(Lane &l, const T &a, const T &b) { R::lane_step_loaded(l, a, b); }
    static MP_DEV typename R::Acc result(const R &r, const Lane &l, u64 first, u64 end) {
        typename R::Acc a;
        if (r.lane_end(l, a)) return a;
        // The steps in an accumulator of their own: a step that indexes it at run time (the
        // quad-double norm's sides) puts it in local memory, and `a` with it when shared. With
        // one accumulator, every quad-double nrm2 lane stored its value there and read it back:
        // at n = 2^27, 805 MB of local stores and 487 MB of DRAM writes (43 MB now); 90.4-92.4%
        // → 93.5-95.6% of cublasDnrm2 (H100, alternated in one process, 16 pairs).
        typename R::Acc s = r.identity();
        for (u64 i = first; i < end; i += LANES) r.step(s, i);
        return s;
    }
};

// ---- the orders ---------------------------------------------------------------------------------

// Staging (`R::STAGE` = D > 0, else absent): the first pass of the blocked order copies each
// lane's terms D steps ahead into shared memory (the format's `stage_copy`, asynchronous) and
// steps them from there (`lane_add`), so that D steps of loads are in flight without holding
// registers. The quad-double norm has no registers to spare for loads issued early: with the
// loads where the compiler put them, 86% of cublasDnrm2's bandwidth; staged five steps
// ahead, 89% (H100, n = 2^27).
template <class R, class = void> struct StageOf {
    static const int D = 0;
    static const int RING_ROWS = 0;
};
template <class R> struct StageOf<R, typename VoidOf<decltype(R::STAGE)>::type> {
    static const int D = R::STAGE;
    // D + 1 slots of one row per word of the format.
    static const int RING_ROWS = R::Format::W * (D + 1);
};

// The split tree (`R::SPLIT` true, else absent or false): the reduction's accumulator has rare
// words, which are almost always the identity in a whole chunk (the norm's side accumulators).
// `R::rare(a)` says a's are not; `get_main`, `put_main` and `join_main` move and join the
// others (rows MAIN_ROW … MAIN_ROW + MAIN_WORDS − 1 of `put`), the rare ones read as the
// identity. A block votes at the barrier before the tree: where no lane of the chunk is rare,
// its tree and nodes carry the main words only, and the flag of the chunk (after the nodes'
// words: `flags_after`) says so to blocked_tail.
template <class R, class = void> struct SplitOf {
    static const bool ON = false;
};
template <class R> struct SplitOf<R, typename VoidOf<decltype(R::SPLIT)>::type> {
    static const bool ON = R::SPLIT;
};
// The chunks' flags of a split pass with nodes: one word per chunk after the ACC_WORDS rows
// (stride `stride`) of the nodes at `p`.
template <class R> MP_DEV unsigned *flags_after(const double *p, u64 stride) {
    return (unsigned *)(p + R::ACC_WORDS * stride);
}

// The PER_LANE steps of lane l of a whole chunk whose first term is `first`, staged D steps
// ahead in a ring of D + 1 slots of W rows each (W: the format's words) at `rows` (column l
// only: slot s, word w at row W·s + w). One commit group per step, so that waiting for all
// but the D latest groups waits for this step's copy; the slot a copy goes to was read a step
// before.
template <int D, class R, class Lane>
MP_DEV void staged_steps(const R &r, Lane &acc, double *rows, unsigned l, u64 first) {
    constexpr int W = R::Format::W;
#pragma unroll
    for (int d = 0; d < D; d++) {
        R::Format::stage_copy(r.x, rows + W * d * LANES, l, first + (u64)d * LANES);
        asm volatile("cp.async.commit_group;" ::: "memory");
    }
#pragma unroll
    for (int j = 0; j < PER_LANE; j++) {
        asm volatile("cp.async.wait_group %0;" ::"n"(D - 1) : "memory");
        const auto t = R::Format::stage_read(rows + W * (j % (D + 1)) * LANES, l);
        if (j + D < PER_LANE)
            R::Format::stage_copy(r.x, rows + W * ((j + D) % (D + 1)) * LANES, l, first + (u64)(j + D) * LANES);
        asm volatile("cp.async.commit_group;" ::: "memory");
        r.lane_add(acc, t);
    }
    asm volatile("cp.async.wait_group 0;" ::: "memory");
}

// One pass of the blocked order over n terms: partial c of chunk c to out (stride = number
// of chunks). Shared memory: the 256 lanes, word-major, of each chunk in flight. A block
// takes K consecutive chunks at a time and each thread steps lane l of all K in turn, two
// independent chains (each chunk still reduced in its own fixed order, so the same bits).
// K = 2 once hid the latency of the quad-double dot product's steps (H100: 54% → 65% of
// Ddot's bandwidth); with the lane sums (LaneOps) its step is a quarter shorter and K = 1
// (78 registers, three blocks per SM, against 126 and two) is the faster: 66% → 96% of Ddot
// at n = 2^27. Every kernel uses K = 1 now; the parameter stays for such measurements. Whole
// chunks ask L1 for the terms `R::PREFETCH` steps ahead (see the formats).
//
// NODES > 1 (a power of two ≤ 32) stops the chunk's tree at the level h = NODES and writes its
// NODES nodes (node t of chunk c at partial c·NODES + t; the absent ones, t ≥ the chunk's
// lanes, not written): blocked_tail finishes the levels h = NODES/2 … 1, the same joins, one
// warp per chunk. The block's last levels had one warp working and the others waiting at
// the barriers.
template <int K = 1, int NODES = 1, class R>
MP_DEV void blocked_pass(const R &r, u64 n, double *__restrict__ out, u64 out_stride) {
    const int words = R::ACC_WORDS * LANES;
    // A staged pass's ring shares the lanes' array: a thread touches only its lanes' columns
    // until the barrier before the tree.
    constexpr int SD = StageOf<R>::D;
    static_assert(SD == 0 || K == 1, "a staged pass takes one chunk at a time");
    constexpr int RING = StageOf<R>::RING_ROWS;
    constexpr int ROWS = RING > K * R::ACC_WORDS ? RING : K * R::ACC_WORDS;
    constexpr bool SPLIT = SplitOf<R>::ON;
    static_assert(!SPLIT || NODES > 1, "a split pass writes its chunks' flags beside the nodes");
    __shared__ double lanes[ROWS * LANES];
    const u64 chunks = (n + CHUNK - 1) / CHUNK;
    for (u64 c0 = (u64)blockIdx.x * K; c0 < chunks; c0 += (u64)gridDim.x * K) {
        // Lanes used by chunk c0 + k (0 past the last chunk); `full`: all K are whole.
        unsigned used[K];
        bool full = true;
#pragma unroll
        for (int k = 0; k < K; k++) {
            const u64 start = (c0 + k) * CHUNK;
            const u64 m = c0 + k < chunks ? ((n - start < (u64)CHUNK) ? n - start : (u64)CHUNK) : 0;
            used[k] = m < LANES ? (unsigned)m : LANES;
            full = full && m == CHUNK;
        }
        bool rare = false;
        for (unsigned l = threadIdx.x; l < LANES; l += blockDim.x) {
            typedef LaneOf<R> L;
            typename L::Lane acc[K];
#pragma unroll
            for (int k = 0; k < K; k++) acc[k] = L::begin(r);
            // Lane l of chunk c0 + k: terms from first(k) below end(k), LANES apart.
            auto first = [&](int k) { return (c0 + k) * CHUNK + l; };
            auto end = [&](int k) {
                const u64 start = (c0 + k) * CHUNK;
                return start + (used[k] == 0 ? 0 : ((n - start < (u64)CHUNK) ? n - start : (u64)CHUNK));
            };
            if (full) {
                if constexpr (SD > 0) {
                    staged_steps<SD>(r, acc[0], lanes, l, c0 * CHUNK + l);
                } else {
#pragma unroll
                    for (int j = 0; j < PER_LANE; j++) {
                        if (R::PREFETCH > 0 && j + R::PREFETCH < PER_LANE) {
#pragma unroll
                            for (int k = 0; k < K; k++) r.prefetch((c0 + k) * CHUNK + (u64)(j + R::PREFETCH) * LANES + l);
                        }
#pragma unroll
                        for (int k = 0; k < K; k++) L::step(r, acc[k], (c0 + k) * CHUNK + (u64)j * LANES + l);
                    }
                }
            } else {
#pragma unroll
                for (int k = 0; k < K; k++) {
                    for (u64 i = first(k); i < end(k); i += LANES) L::step(r, acc[k], i);
                }
            }
#pragma unroll
            for (int k = 0; k < K; k++) {
                if (l < used[k]) {
                    const typename R::Acc a = L::result(r, acc[k], first(k), end(k));
                    if constexpr (SPLIT) rare = rare || R::rare(a);
                    R::put(lanes + k * words, LANES, l, a);
                }
            }
        }
        // Split: whole where any lane of the chunks is rare.
        bool whole = true;
        if constexpr (SPLIT) whole = __syncthreads_or(rare);
        else __syncthreads();
        for (unsigned h = LANES / 2; h >= NODES; h >>= 1) {
            for (unsigned t = threadIdx.x; t < h; t += blockDim.x) {
#pragma unroll
                for (int k = 0; k < K; k++) {
                    if (t + h < used[k]) {
                        double *lk = lanes + k * words;
                        if constexpr (SPLIT) {
                            if (!whole) {
                                typename R::Acc a = R::get_main(lk, LANES, t);
                                r.join_main(a, R::get_main(lk, LANES, t + h));
                                R::put_main(lk, LANES, t, a);
                                continue;
                            }
                        }
                        typename R::Acc a = R::get(lk, LANES, t);
                        r.join(a, R::get(lk, LANES, t + h));
                        R::put(lk, LANES, t, a);
                    }
                }
            }
            __syncthreads();
        }
        if constexpr (NODES == 1) {
            if (threadIdx.x == 0) {
#pragma unroll
                for (int k = 0; k < K; k++) {
                    if (used[k] > 0) R::put(out, out_stride, c0 + k, R::get(lanes + k * words, LANES, 0));
                }
            }
        } else {
            for (unsigned t = threadIdx.x; t < NODES; t += blockDim.x) {
#pragma unroll
                for (int k = 0; k < K; k++) {
                    if (t < used[k]) {
                        const u64 node = (c0 + k) * NODES + t;
                        if constexpr (SPLIT) {
                            if (!whole) {
                                R::put_main(out, out_stride, node, R::get_main(lanes + k * words, LANES, t));
                                continue;
                            }
                        }
                        R::put(out, out_stride, node, R::get(lanes + k * words, LANES, t));
                    }
                }
            }
            if constexpr (SPLIT) {
                if (threadIdx.x == 0) {
#pragma unroll
                    for (int k = 0; k < K; k++) {
                        if (used[k] > 0) flags_after<R>(out, out_stride)[c0 + k] = whole;
                    }
                }
            }
        }
        __syncthreads();
    }
}

// The levels h = NODES/2 … 1 of each chunk's tree after blocked_pass<K, NODES> (its nodes at
// `in`, stride in_stride): a warp per chunk, lane t holding node t, the partner by shuffles,
// lane 0 writing the chunk's partial to `out` (stride out_stride) as blocked_pass<K, 1> does.
// Blocks of whole warps.
template <int NODES, class R>
MP_DEV void blocked_tail(const R &r, const double *__restrict__ in, u64 in_stride, u64 n, double *__restrict__ out,
                         u64 out_stride) {
    const u64 chunks = (n + CHUNK - 1) / CHUNK;
    const unsigned lane = threadIdx.x % 32;
    const u64 warps = (u64)gridDim.x * (blockDim.x / 32);
    for (u64 c = (u64)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; c < chunks; c += warps) {
        const u64 start = c * CHUNK;
        const unsigned used = n - start < (u64)LANES ? (unsigned)(n - start) : LANES;
        // Split: the chunk's flag (the same in the whole warp) says whether its nodes are whole.
        bool whole = true;
        if constexpr (SplitOf<R>::ON) whole = flags_after<R>(in, in_stride)[c] != 0;
        typename R::Acc v = r.identity();
        if (lane < NODES && lane < used) {
            if (whole) v = R::get(in, in_stride, c * NODES + lane);
            else if constexpr (SplitOf<R>::ON) v = R::get_main(in, in_stride, c * NODES + lane);
        }
        for (unsigned h = NODES / 2; h >= 1; h >>= 1) {
            double w[R::ACC_WORDS];
            if constexpr (SplitOf<R>::ON) {
                if (!whole) {
                    R::put_main(w, 1, 0, v);
#pragma unroll
                    for (int k = R::MAIN_ROW; k < R::MAIN_ROW + R::MAIN_WORDS; k++) w[k] = __shfl_down_sync(0xffffffffu, w[k], h);
                    if (lane < h && lane + h < used) r.join_main(v, R::get_main(w, 1, 0));
                    continue;
                }
            }
            R::put(w, 1, 0, v);
#pragma unroll
            for (int k = 0; k < R::ACC_WORDS; k++) w[k] = __shfl_down_sync(0xffffffffu, w[k], h);
            if (lane < h && lane + h < used) r.join(v, R::get(w, 1, 0));
        }
        if (lane == 0) R::put(out, out_stride, c, v);
    }
}
