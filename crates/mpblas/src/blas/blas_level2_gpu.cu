// BLAS level 2 on the GPU (launcher: blas/blas_level2_gpu.rs): gemv and ger for f64,
// double-double and quad-double, the CPU's bits (level2.rs).
//
// gemv: entry i of y is α·s_i + β·y_i with s_i = Σ_j a_ij·x_j in the blocked order of sum.rs
// (the order of the level-1 dot, fixed by the indices). A first pass computes nodes of that
// order's tree, a finish kernel (one thread per row) joins them in the order's remaining steps
// and updates y. Two first passes, one per storage, so that a warp always reads consecutive
// addresses; both compute nodes of the same tree, so the bits depend neither on the pass nor on
// the launch:
//
// - `gemv_rows` (consecutive rows of op(A) adjacent in memory: A not transposed, column-major):
//   work item (chunk c, lane group g, row i) with i fastest, so a warp reads 32 consecutive
//   elements of a column. Group g of G (a power of two) holds lanes g, g + G, g + 2G, … of the
//   chunk; restricted to them, the chunk's halving tree is a halving tree over those lanes
//   (lane[t] ⊕ lane[t + h] joins two lanes of one group while h ≥ G), so the item computes node
//   R(g, G) of the chunk's tree and the finish kernel the tree's top over the G groups.
// - `gemv_lanes` (each row of op(A) contiguous: A transposed): the level-1 blocked pass on each
//   row, threads on lanes, rows on blockIdx.y; its partial is the chunk's whole tree (G = 1).
//
// Partials: word k of (chunk c, group g, row i) at part[k·ws + c·cs + g·gs + i·is]; rows pass
// (cs, gs, is) = (G·m, m, 1), lanes pass (1, 0, chunks).
//
// ger: a_ij ← a_ij + x_i·t_j with t_j = α·y_j formed once per column, columns with y_j = 0
// skipped, as level2.rs.

#include "blas_reduce.cuh"

// A matrix: word pointers to element (0, 0); element (i, j) at i·rs + j·cs.
struct MatArg {
    const double *w[4];
    u64 rs, cs;
};
struct MutMatArg {
    double *w[4];
    u64 rs, cs;
};

// Row i of a matrix as a vector.
template <class F> MP_DEV VecArg row_of(const MatArg &a, u64 i) {
    VecArg v;
#pragma unroll
    for (int k = 0; k < 4; k++) v.w[k] = k < F::W ? a.w[k] + i * a.rs : 0;
    v.inc = (i64)a.cs;
    return v;
}

template <class R> MP_DEV R dot_of(VecArg row, VecArg x) {
    R r;
    r.x = row;
    r.y = x;
    return r;
}

// Steps of a lane unrolled at once: all sixteen for the short f64 and double-double steps (the
// loads of a lane issue together), four for quad-double (registers, compile time).
template <class F> struct Unroll {
    static const int N = 16;
};
template <> struct Unroll<QD> {
    static const int N = 4;
};

// The halving tree of the blocked order (v[t] ← v[t] ⊕ v[t + h] for h = L/2, …, 1, skipping
// absent partners) over L values, L a power of two ≤ 256, of which the first `present` ≥ 1
// exist, `leaf(k)` giving v_k. Node (t, s) of that tree is node (t, 2s) ⊕ node (t + s, 2s): the
// leaves in bit-reversed order of k, joined as a binary counter (slot[level] holds the left
// node waiting for its right sibling). Absent leaves form a suffix, so a right node may be
// absent where its left one is not, never the reverse: such a node is its left part.
template <class Acc, class Join, class Leaf>
MP_DEV Acc halving_tree(unsigned L, unsigned present, const Join &join, const Leaf &leaf) {
    Acc slot[9];
    unsigned have_slot = 0; // bit `level`: slot[level] holds a present node
    const unsigned bits = __ffs(L) - 1;
    for (unsigned k = 0; k < L; k++) {
        const unsigned idx = bits == 0 ? 0 : (__brev(k) >> (32 - bits));
        bool have = idx < present;
        Acc v;
        if (have) v = leaf(idx);
        unsigned level = 0;
        while ((k >> level) & 1) {
            if (have) {
                Acc l = slot[level];
                join(l, v);
                v = l;
            } else if ((have_slot >> level) & 1) {
                v = slot[level];
                have = true;
            }
            level++;
        }
        slot[level] = v;
        have_slot = have ? (have_slot | (1u << level)) : (have_slot & ~(1u << level));
    }
    return slot[bits];
}

// The rows pass: item (c, g, i) → part[word k at k·ws + item].
template <class F, class R>
MP_DEV void gemv_rows(MatArg a, VecArg x, u64 m, u64 n, unsigned groups, double *__restrict__ part, u64 ws) {
    typedef typename F::T T;
    const u64 chunks = (n + CHUNK - 1) / CHUNK;
    const u64 items = m * chunks * groups;
    const unsigned per = LANES / groups;
    const int U = Unroll<F>::N;
    for (u64 it = (u64)blockIdx.x * blockDim.x + threadIdx.x; it < items; it += (u64)gridDim.x * blockDim.x) {
        const u64 i = it % m;
        const u64 cg = it / m;
        const unsigned g = (unsigned)(cg % groups);
        const u64 start = (cg / groups) * CHUNK;
        const u64 len = n - start < (u64)CHUNK ? n - start : (u64)CHUNK;
        const unsigned used = len < LANES ? (unsigned)len : LANES;
        if (g >= used) continue;
        const unsigned present = (used - g + groups - 1) / groups;
        const R r = dot_of<R>(row_of<F>(a, i), x);
        auto leaf = [&](unsigned k) -> T {
            const u64 l = start + g + (u64)groups * k;
            T acc = r.identity();
            if (len == CHUNK) {
                for (int q0 = 0; q0 < PER_LANE; q0 += U) {
#pragma unroll
                    for (int q = 0; q < U; q++) r.step(acc, l + (u64)(q0 + q) * LANES);
                }
            } else {
                for (u64 j = l; j < start + len; j += LANES) r.step(acc, j);
            }
            return acc;
        };
        auto join = [&](T &p, const T &q) { r.join(p, q); };
        F::put(part, ws, it, halving_tree<T>(per, present, join, leaf));
    }
}

// The lanes pass: the level-1 blocked pass over each row (rows on blockIdx.y).
template <class F, class R>
MP_DEV void gemv_lanes(MatArg a, VecArg x, u64 m, u64 n, double *__restrict__ part, u64 ws) {
    const u64 chunks = (n + CHUNK - 1) / CHUNK;
    for (u64 i = blockIdx.y; i < m; i += gridDim.y) blocked_pass(dot_of<R>(row_of<F>(a, i), x), n, part + i * chunks, ws);
}

// Where the finish kernel finds the partials.
struct PartArg {
    const double *p;
    u64 ws, cs, gs, is;
    unsigned groups;
};

// The finish: for each row, the tree's top over the groups of each chunk, then the later pass
// of the blocked order over the chunk results (at most CHUNK of them, which the launcher
// checks), then y_i ← α·s_i + β·y_i (mode 0), α·s_i (mode 1, β = 0), or s_i to `sout`
// (mode 2: the sums of the error bound).
template <class F>
MP_DEV void gemv_finish(PartArg pa, u64 m, u64 n, ScalArg alpha, ScalArg beta, MutVecArg y, int mode,
                        double *__restrict__ sout) {
    typedef typename F::T T;
    const u64 chunks = (n + CHUNK - 1) / CHUNK;
    auto join = [](T &p, const T &q) { p = F::add_normwise(p, q); };
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (u64)gridDim.x * blockDim.x) {
        auto chunk_value = [&](u64 c) -> T {
            const u64 len = n - c * CHUNK < (u64)CHUNK ? n - c * CHUNK : (u64)CHUNK;
            const unsigned used = len < LANES ? (unsigned)len : LANES;
            const unsigned present = used < pa.groups ? used : pa.groups;
            const u64 base = c * pa.cs + i * pa.is;
            return halving_tree<T>(pa.groups, present, join,
                                   [&](unsigned g) { return F::get(pa.p, pa.ws, base + g * pa.gs); });
        };
        T s;
        if (chunks == 1) {
            s = chunk_value(0);
        } else {
            const unsigned used = chunks < LANES ? (unsigned)chunks : LANES;
            s = halving_tree<T>(LANES, used, join, [&](unsigned l) {
                T acc = F::neg_zero();
                for (u64 c = l; c < chunks; c += LANES) join(acc, chunk_value(c));
                return acc;
            });
        }
        if (mode == 2) {
            F::put(sout, m, i, s);
            continue;
        }
        T v = F::mul(F::make(alpha.w), s);
        if (mode == 0) {
            VecArg yr;
            for (int k = 0; k < 4; k++) yr.w[k] = y.w[k];
            yr.inc = y.inc;
            v = F::add(v, F::mul(F::make(beta.w), F::load(yr, i)));
        }
        F::store(y, i, v);
    }
}

// α = 0: y ← β·y, or `zero` where β = 0 (y not read).
template <class F> MP_DEV void gemv_beta_only(ScalArg beta, ScalArg zero, int beta_zero, MutVecArg y, u64 m) {
    VecArg yr;
    for (int k = 0; k < 4; k++) yr.w[k] = y.w[k];
    yr.inc = y.inc;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (u64)gridDim.x * blockDim.x)
        F::store(y, i, beta_zero ? F::make(zero.w) : F::mul(F::make(beta.w), F::load(yr, i)));
}

// ger, first: t_j = α·y_j (word-major, stride n).
template <class F> MP_DEV void ger_scale(ScalArg alpha, VecArg y, u64 n, double *__restrict__ t) {
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (u64)gridDim.x * blockDim.x)
        F::put(t, n, j, F::mul(F::make(alpha.w), F::load(y, j)));
}

// ger: a_ij ← a_ij + x_i·t_j where y_j ≠ 0; i fastest when `rows_fast` (column-major A), else j.
template <class F>
MP_DEV void ger(MutMatArg a, VecArg x, VecArg y, const double *__restrict__ t, u64 m, u64 n, int rows_fast) {
    const u64 total = m * n;
    for (u64 e = (u64)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += (u64)gridDim.x * blockDim.x) {
        const u64 i = rows_fast ? e % m : e / n;
        const u64 j = rows_fast ? e / m : e % n;
        // Level2.rs skips a column whose y_j is zero (its leading word).
        if (y.w[0][(i64)j * y.inc] == 0.0) continue;
        MutVecArg col;
        VecArg colr;
        for (int k = 0; k < 4; k++) {
            col.w[k] = k < F::W ? a.w[k] + j * a.cs : 0;
            colr.w[k] = col.w[k];
        }
        col.inc = colr.inc = (i64)a.rs;
        F::store(col, i, F::add(F::load(colr, i), F::mul(F::load(x, i), F::get(t, n, j))));
    }
}

// ---- entry points: blas_<fmt>_<what> (literal, for tests/kernel_names.rs) ----------------------

extern "C" __global__ void blas_f64_gemv_rows(MatArg a, VecArg x, u64 m, u64 n, unsigned groups, double *part, u64 ws) {
    gemv_rows<F64, DotOf<F64> >(a, x, m, n, groups, part, ws);
}
extern "C" __global__ void blas_f64_gemv_rows_abs(MatArg a, VecArg x, u64 m, u64 n, unsigned groups, double *part, u64 ws) {
    gemv_rows<F64, AbsDotOf<F64> >(a, x, m, n, groups, part, ws);
}
extern "C" __global__ void blas_f64_gemv_lanes(MatArg a, VecArg x, u64 m, u64 n, double *part, u64 ws) {
    gemv_lanes<F64, DotOf<F64> >(a, x, m, n, part, ws);
}
extern "C" __global__ void blas_f64_gemv_lanes_abs(MatArg a, VecArg x, u64 m, u64 n, double *part, u64 ws) {
    gemv_lanes<F64, AbsDotOf<F64> >(a, x, m, n, part, ws);
}
extern "C" __global__ void blas_f64_gemv_finish(PartArg pa, u64 m, u64 n, ScalArg alpha, ScalArg beta, MutVecArg y, int mode, double *sout) {
    gemv_finish<F64>(pa, m, n, alpha, beta, y, mode, sout);
}
extern "C" __global__ void blas_f64_gemv_beta_only(ScalArg beta, ScalArg zero, int beta_zero, MutVecArg y, u64 m) {
    gemv_beta_only<F64>(beta, zero, beta_zero, y, m);
}
extern "C" __global__ void blas_f64_ger_scale(ScalArg alpha, VecArg y, u64 n, double *t) {
    ger_scale<F64>(alpha, y, n, t);
}
extern "C" __global__ void blas_f64_ger_update(MutMatArg a, VecArg x, VecArg y, const double *t, u64 m, u64 n, int rows_fast) {
    ger<F64>(a, x, y, t, m, n, rows_fast);
}

extern "C" __global__ void blas_dd_gemv_rows(MatArg a, VecArg x, u64 m, u64 n, unsigned groups, double *part, u64 ws) {
    gemv_rows<DD, DotOf<DD> >(a, x, m, n, groups, part, ws);
}
extern "C" __global__ void blas_dd_gemv_rows_abs(MatArg a, VecArg x, u64 m, u64 n, unsigned groups, double *part, u64 ws) {
    gemv_rows<DD, AbsDotOf<DD> >(a, x, m, n, groups, part, ws);
}
extern "C" __global__ void blas_dd_gemv_lanes(MatArg a, VecArg x, u64 m, u64 n, double *part, u64 ws) {
    gemv_lanes<DD, DotOf<DD> >(a, x, m, n, part, ws);
}
extern "C" __global__ void blas_dd_gemv_lanes_abs(MatArg a, VecArg x, u64 m, u64 n, double *part, u64 ws) {
    gemv_lanes<DD, AbsDotOf<DD> >(a, x, m, n, part, ws);
}
extern "C" __global__ void blas_dd_gemv_finish(PartArg pa, u64 m, u64 n, ScalArg alpha, ScalArg beta, MutVecArg y, int mode, double *sout) {
    gemv_finish<DD>(pa, m, n, alpha, beta, y, mode, sout);
}
extern "C" __global__ void blas_dd_gemv_beta_only(ScalArg beta, ScalArg zero, int beta_zero, MutVecArg y, u64 m) {
    gemv_beta_only<DD>(beta, zero, beta_zero, y, m);
}
extern "C" __global__ void blas_dd_ger_scale(ScalArg alpha, VecArg y, u64 n, double *t) {
    ger_scale<DD>(alpha, y, n, t);
}
extern "C" __global__ void blas_dd_ger_update(MutMatArg a, VecArg x, VecArg y, const double *t, u64 m, u64 n, int rows_fast) {
    ger<DD>(a, x, y, t, m, n, rows_fast);
}

extern "C" __global__ void blas_qd_gemv_rows(MatArg a, VecArg x, u64 m, u64 n, unsigned groups, double *part, u64 ws) {
    gemv_rows<QD, DotOf<QD> >(a, x, m, n, groups, part, ws);
}
extern "C" __global__ void blas_qd_gemv_rows_abs(MatArg a, VecArg x, u64 m, u64 n, unsigned groups, double *part, u64 ws) {
    gemv_rows<QD, AbsDotOf<QD> >(a, x, m, n, groups, part, ws);
}
extern "C" __global__ void blas_qd_gemv_lanes(MatArg a, VecArg x, u64 m, u64 n, double *part, u64 ws) {
    gemv_lanes<QD, DotOf<QD> >(a, x, m, n, part, ws);
}
extern "C" __global__ void blas_qd_gemv_lanes_abs(MatArg a, VecArg x, u64 m, u64 n, double *part, u64 ws) {
    gemv_lanes<QD, AbsDotOf<QD> >(a, x, m, n, part, ws);
}
extern "C" __global__ void blas_qd_gemv_finish(PartArg pa, u64 m, u64 n, ScalArg alpha, ScalArg beta, MutVecArg y, int mode, double *sout) {
    gemv_finish<QD>(pa, m, n, alpha, beta, y, mode, sout);
}
extern "C" __global__ void blas_qd_gemv_beta_only(ScalArg beta, ScalArg zero, int beta_zero, MutVecArg y, u64 m) {
    gemv_beta_only<QD>(beta, zero, beta_zero, y, m);
}
extern "C" __global__ void blas_qd_ger_scale(ScalArg alpha, VecArg y, u64 n, double *t) {
    ger_scale<QD>(alpha, y, n, t);
}
extern "C" __global__ void blas_qd_ger_update(MutMatArg a, VecArg x, VecArg y, const double *t, u64 m, u64 n, int rows_fast) {
    ger<QD>(a, x, y, t, m, n, rows_fast);
}
