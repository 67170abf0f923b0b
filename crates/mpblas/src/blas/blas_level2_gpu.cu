// BLAS level 2 on the GPU (launcher: blas/blas_level2_gpu.rs): gemv and ger for f64,
// double-double and quad-double, the CPU's bits (level2.rs).
//
// gemv: entry i of y is α·s_i + β·y_i with s_i = Σ_j a_ij·x_j in the blocked order of sum.rs
// (the order of the level-1 dot, fixed by the indices). A first pass reduces each (row, chunk)
// to the chunk's result, a finish kernel (one thread per row) joins the chunk results in the
// order's later pass and updates y. Two first passes, one per storage, so that a warp always
// reads consecutive addresses; both compute the same tree, so the bits depend neither on the
// pass nor on the launch:
//
// - `gemv_rows` (consecutive rows of op(A) adjacent in memory: A not transposed, column-major):
//   a block takes a tile of R consecutive rows of one chunk; thread t works on row t mod R and
//   lane group g = t / R of Gb (R·Gb ≤ 256 threads, Gb a power of two), so a warp reads 32
//   consecutive elements of a column (R ≥ 32) or R of each of 32/R columns. Group g holds lanes g, g + Gb, g + 2·Gb, … of
//   the chunk; restricted to them the chunk's halving tree is a halving tree over those lanes
//   (lane[t] ⊕ lane[t + h] joins two lanes of one group while h ≥ Gb), so each thread computes
//   node R(g, Gb) of the tree and the block the tree's top over its groups in shared memory.
//   f64 on large matrices: `gemv_rows_split`, the same tree with each group in blocks of its own.
// - `gemv_lanes` (each row of op(A) contiguous: A transposed): the level-1 blocked pass on each
//   row, threads on lanes, rows on blockIdx.y (double-double: the same order, each lane's
//   terms loaded before its steps).
//
// Chunk results: word k of (chunk c, row i) at part[k·ws + c·cs + i·is]; rows pass (cs, is) =
// (m, 1), lanes pass (1, chunks).
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

// Steps of a lane pair whose terms a thread loads at once, before stepping: the compiler then
// issues the loads together. Measured on an H200, 16384 × 8192, 32 rows per block (ms; the
// plain unrolled loop of steps beside): f64 16 steps 0.288 (0.44), 8 0.34; double-double 4
// steps 0.642 (0.80), 8 0.87, 16 0.94 (registers); quad-double 4 steps 3.95 (5.5), before its
// lane sums.
template <class F> struct Unroll {
    static const int N = 4;
};
template <> struct Unroll<F64> {
    static const int N = 16;
};
// Quad-double: one step of both lanes at a time (126 registers, two blocks an SM; 4 steps took
// 160 registers and one block). H200, 16384 × 8192 N, alternated (session 31): 2.375-2.378 ms
// against 2.612-2.618 with the lanes one after the other (39% → 42% of cublasDgemv).
template <> struct Unroll<QD> {
    static const int N = 1;
};

// The lanes pass of each format: chunks a block takes at once (level 1's K: one, as level 1's
// quad-double dot since its lane sums; double-double measured 77% of cublasDgemv transposed
// with one, 64% with two, H200 16384 × 8192), or the steps whose terms a lane loads first
// (LOADS_FIRST > 0, see gemv_lanes_loaded).
template <class F> struct LanesK {
    static const int K = 1;
    static const int LOADS_FIRST = 0;
};
template <> struct LanesK<DD> {
    static const int K = 1;
    static const int LOADS_FIRST = 2;
};

// The smallest power of two ≥ p (p ≥ 1).
MP_DEV unsigned pow2_ceil(unsigned p) { return p <= 1 ? 1 : 1u << (32 - __clz(p - 1)); }

// The halving tree of the blocked order (v[t] ← v[t] ⊕ v[t + h] for h = L/2, …, 1, skipping
// absent partners) over the first `present` ≥ 1 of L values, L a power of two ≤ 256. Levels
// with h ≥ present join nothing, so the tree over pow2_ceil(present) values is the same.
// Node (t, s) of the tree is node (t, 2s) ⊕ node (t + s, 2s): the leaves in bit-reversed
// order, joined as a binary counter (slot[level] holds a left node waiting for its right
// sibling). `pair(k, k + L/2, two)` gives the bottom node v_k ⊕ v_(k + L/2) (v_k alone when
// `two` is false), so that a caller can form two leaves at once. Absent leaves form a suffix: a
// right node may be absent where its left one is not, never the reverse; such a node is its
// left part.
// `slot` holds the left nodes waiting, one per level (at most 8): an array of the caller's
// (indexed at run time, so in local memory) or a thread's column of shared memory
// (SharedSlots).
template <class Acc, class Join, class Pair, class Slots>
MP_DEV Acc halving_tree(unsigned L, unsigned present, const Join &join, const Pair &pair, Slots &&slot) {
    L = present < L ? pow2_ceil(present) : L;
    if (L == 1) return pair(0u, 0u, false);
    const unsigned half = L / 2;
    const unsigned bits = __ffs(half) - 1;
    unsigned have_slot = 0; // bit `level`: slot[level] holds a present node
    for (unsigned k = 0; k < half; k++) {
        // Leaves 2k and 2k + 1 of the bit-reversed order: k reversed over `bits` bits, + half.
        const unsigned k0 = bits == 0 ? 0 : (__brev(k) >> (32 - bits));
        bool have = k0 < present;
        Acc v;
        if (have) v = pair(k0, k0 + half, k0 + half < present);
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

// A thread's slots of halving_tree in shared memory: level l, word w at row l·W + w of
// `rows`, column t.
template <class F> struct SharedSlots {
    typedef typename F::T T;
    double *rows;
    unsigned t;
    struct Ref {
        double *p;
        unsigned t;
        MP_DEV operator T() const { return F::get(p, LANES, t); }
        MP_DEV void operator=(const T &v) { F::put(p, LANES, t, v); }
    };
    MP_DEV Ref operator[](unsigned level) { return Ref{rows + level * F::W * LANES, t}; }
};
// Node R(g, gb) of the halving tree of the chunk at `start` (len terms, `used` lanes) for row
// i: the group's lanes g, g + gb, … two at a time (see gemv_rows), the tree's waiting nodes in
// column `col` of `slot_rows` (f64 and double-double) or in local memory (quad-double).
template <class F, class R>
MP_DEV typename F::T rows_node(MatArg a, VecArg x, u64 i, u64 start, u64 len, unsigned used, unsigned g,
                               unsigned gb, double *slot_rows, unsigned col) {
    typedef typename F::T T;
    constexpr bool SHARED_SLOTS = F::W <= 2;
    const int U = Unroll<F>::N;
    auto join = [](T &p, const T &q) { p = F::add_normwise(p, q); };
    const R red = dot_of<R>(row_of<F>(a, i), x);
    // Lanes k0 and k1 of the group (lanes g + gb·k) as one node, their steps interleaved.
    typedef LaneOf<R> L;
    auto pair = [&](unsigned k0, unsigned k1, bool two) -> T {
        const u64 l0 = start + g + (u64)gb * k0, l1 = start + g + (u64)gb * k1;
        typename L::Lane a0 = L::begin(red), a1 = L::begin(red);
        if (len == CHUNK) {
            // The terms of U steps of both lanes loaded first, then the steps: the
            // loads issue together (see Unroll).
            for (int q0 = 0; q0 < PER_LANE; q0 += U) {
                T va0[U], va1[U], vx0[U], vx1[U];
#pragma unroll
                for (int q = 0; q < U; q++) {
                    const u64 o = (u64)(q0 + q) * LANES;
                    va0[q] = F::load(red.x, l0 + o);
                    va1[q] = F::load(red.x, l1 + o);
                    vx0[q] = F::load(red.y, l0 + o);
                    vx1[q] = F::load(red.y, l1 + o);
                }
#pragma unroll
                for (int q = 0; q < U; q++) {
                    L::step_loaded(a0, va0[q], vx0[q]);
                    L::step_loaded(a1, va1[q], vx1[q]);
                }
            }
        } else {
            for (u64 j = l0; j < start + len; j += LANES) L::step(red, a0, j);
            if (two)
                for (u64 j = l1; j < start + len; j += LANES) L::step(red, a1, j);
        }
        T s0 = L::result(red, a0, l0, start + len);
        if (two) red.join(s0, L::result(red, a1, l1, start + len));
        return s0;
    };
    const unsigned present = (used - g + gb - 1) / gb;
    T node;
    if constexpr (SHARED_SLOTS) {
        SharedSlots<F> slots{slot_rows, col};
        node = halving_tree<T>(LANES / gb, present, join, pair, slots);
    } else {
        T slots[8];
        node = halving_tree<T>(LANES / gb, present, join, pair, slots);
    }
    return node;
}

// The rows pass: tiles of `rows` rows (a power of two ≤ 256) per block; chunk results to part
// (word stride ws) at c·m + i.
template <class F, class R>
MP_DEV void gemv_rows(MatArg a, VecArg x, u64 m, u64 n, unsigned rows, double *__restrict__ part, u64 ws) {
    typedef typename F::T T;
    __shared__ double sh[F::W * LANES];
    // The tree's slots in shared memory for f64 and double-double: in local memory (an array
    // indexed at run time) they cost f64 88-89% → 92-94% and double-double 88-89% → 97-99% of
    // cublasDgemv N (H100, 16384 × 8192, alternated in one process, 16 pairs each). Quad-double's
    // would need 64 KB a block; it keeps the array.
    __shared__ double slot_rows[F::W <= 2 ? 8 * F::W * LANES : 1];
    const unsigned threads = blockDim.x < LANES ? blockDim.x : LANES;
    unsigned gb = 1;
    while (2 * gb * rows <= threads && 2 * gb <= LANES) gb *= 2;
    const unsigned r = threadIdx.x % rows, g = threadIdx.x / rows;
    const u64 tiles = (m + rows - 1) / rows;
    const u64 chunks = (n + CHUNK - 1) / CHUNK;
    auto join = [](T &p, const T &q) { p = F::add_normwise(p, q); };
    for (u64 b = blockIdx.x; b < tiles * chunks; b += gridDim.x) {
        const u64 i = (b % tiles) * rows + r;
        const u64 start = (b / tiles) * CHUNK;
        const u64 len = n - start < (u64)CHUNK ? n - start : (u64)CHUNK;
        const unsigned used = len < LANES ? (unsigned)len : LANES;
        const unsigned top = used < gb ? used : gb; // groups holding a lane
        if (g < top && i < m) {
            // threadIdx.x = g·rows + r < gb·rows ≤ LANES: a column of its own.
            const T node = rows_node<F, R>(a, x, i, start, len, used, g, gb, slot_rows, threadIdx.x);
            F::put(sh, LANES, g * rows + r, node);
        }
        __syncthreads();
        // The tree's top over the groups, in parallel.
        for (unsigned h = gb / 2; h >= 1; h >>= 1) {
            if (g < h && g + h < top && i < m) {
                T v = F::get(sh, LANES, g * rows + r);
                join(v, F::get(sh, LANES, (g + h) * rows + r));
                F::put(sh, LANES, g * rows + r, v);
            }
            __syncthreads();
        }
        if (g == 0 && i < m) F::put(part, ws, (b / tiles) * m + i, F::get(sh, LANES, r));
        __syncthreads();
    }
}

// The split rows pass (f64): the rows pass with the groups in separate blocks. A block of
// `rows` threads (at most LANES) takes one group g of gb of a tile of consecutive rows, so that
// its warps read the same columns at once, 2 KB runs down each column (gemv_rows' warps of one
// block read different columns, 32-64 rows each). Each thread writes its row's node R(g, gb)
// to part at (c·gb + g)·m + i; the finish joins the groups' top (gemv_finish, groups) in
// gemv_rows' order, so the bits are the same. H200, f64 N, % of cublasDgemv in the same run
// (session 31): 16384 × 8192 and 32768 × 8192, 4 groups 97-98% against the rows pass's 87-88%;
// with few blocks it loses (8192 × 8192: 77-79% against 81-85%), so the launcher takes it only
// where its blocks fill the GPU. Double-double gained nothing (84-87% against 85-86%), nor with
// its terms staged through shared memory by cp.async (75-76%): the kernel is f64's alone.
template <class F, class R>
MP_DEV void gemv_rows_split(MatArg a, VecArg x, u64 m, u64 n, unsigned gb, double *__restrict__ part, u64 ws) {
    __shared__ double slot_rows[8 * F::W * LANES];
    const unsigned rows = blockDim.x, r = threadIdx.x;
    const u64 tiles = (m + rows - 1) / rows;
    const u64 chunks = (n + CHUNK - 1) / CHUNK;
    for (u64 b = blockIdx.x; b < tiles * chunks * gb; b += gridDim.x) {
        const u64 i = (b % tiles) * rows + r, rest = b / tiles;
        const unsigned g = (unsigned)(rest % gb);
        const u64 c = rest / gb, start = c * CHUNK;
        const u64 len = n - start < (u64)CHUNK ? n - start : (u64)CHUNK;
        const unsigned used = len < LANES ? (unsigned)len : LANES;
        if (g < used && i < m)
            F::put(part, ws, (c * gb + g) * m + i, rows_node<F, R>(a, x, i, start, len, used, g, gb, slot_rows, r));
    }
}

// The lanes pass with the terms of U steps of a lane loaded first, then the steps (the order and
// tree of blocked_pass, K = 1): double-double with U = 2 reached 91% of cublasDgemv transposed
// on an H200 at 16384 × 8192 (blocked_pass: 82%; U = 4: 80%; U = 16: 39%, registers).
template <class F, class R, int U>
MP_DEV void gemv_lanes_loaded(MatArg a, VecArg x, u64 m, u64 n, double *__restrict__ part, u64 ws) {
    typedef typename F::T T;
    __shared__ double sh[F::W * LANES];
    const u64 chunks = (n + CHUNK - 1) / CHUNK;
    for (u64 i = blockIdx.y; i < m; i += gridDim.y) {
        const R red = dot_of<R>(row_of<F>(a, i), x);
        for (u64 c = blockIdx.x; c < chunks; c += gridDim.x) {
            const u64 start = c * CHUNK;
            const u64 len = n - start < (u64)CHUNK ? n - start : (u64)CHUNK;
            const unsigned used = len < LANES ? (unsigned)len : LANES;
            for (unsigned l = threadIdx.x; l < used; l += blockDim.x) {
                typedef LaneOf<R> L;
                typename L::Lane acc = L::begin(red);
                if (len == CHUNK) {
                    for (int q0 = 0; q0 < PER_LANE; q0 += U) {
                        T va[U], vx[U];
#pragma unroll
                        for (int q = 0; q < U; q++) {
                            va[q] = F::load(red.x, start + l + (u64)(q0 + q) * LANES);
                            vx[q] = F::load(red.y, start + l + (u64)(q0 + q) * LANES);
                        }
#pragma unroll
                        for (int q = 0; q < U; q++) L::step_loaded(acc, va[q], vx[q]);
                    }
                } else {
                    for (u64 j = start + l; j < start + len; j += LANES) L::step(red, acc, j);
                }
                F::put(sh, LANES, l, L::result(red, acc, start + l, start + len));
            }
            __syncthreads();
            for (unsigned h = LANES / 2; h >= 1; h >>= 1) {
                for (unsigned t = threadIdx.x; t < h; t += blockDim.x) {
                    if (t + h < used) {
                        T v = F::get(sh, LANES, t);
                        red.join(v, F::get(sh, LANES, t + h));
                        F::put(sh, LANES, t, v);
                    }
                }
                __syncthreads();
            }
            if (threadIdx.x == 0) F::put(part + i * chunks, ws, c, F::get(sh, LANES, 0));
            __syncthreads();
        }
    }
}

// The lanes pass: each row's chunks in the blocked order (rows on blockIdx.y), by the level-1
// blocked pass or, where `LanesK<F>::LOADS_FIRST` says so, by gemv_lanes_loaded.
template <class F, class R>
MP_DEV void gemv_lanes(MatArg a, VecArg x, u64 m, u64 n, double *__restrict__ part, u64 ws) {
    if constexpr (LanesK<F>::LOADS_FIRST > 0) {
        gemv_lanes_loaded<F, R, LanesK<F>::LOADS_FIRST>(a, x, m, n, part, ws);
    } else {
        const u64 chunks = (n + CHUNK - 1) / CHUNK;
        for (u64 i = blockIdx.y; i < m; i += gridDim.y)
            blocked_pass<LanesK<F>::K>(dot_of<R>(row_of<F>(a, i), x), n, part + i * chunks, ws);
    }
}

// Where the finish kernel finds the chunk results.
struct PartArg {
    const double *p;
    u64 ws, cs, is;
    // gemv_rows_split's groups a chunk (1: a value a chunk at c·cs + i·is), each group's node
    // at (c·groups + g)·m + i
    u64 groups;
};

// The finish: for each row, the later pass of the blocked order over the chunk results (at
// most CHUNK of them, which the launcher checks), then y_i ← α·s_i + β·y_i (mode 0), α·s_i
// (mode 1, β = 0), or s_i to `sout` (mode 2: the sums of the error bound).
template <class F>
MP_DEV void gemv_finish(PartArg pa, u64 m, u64 n, ScalArg alpha, ScalArg beta, MutVecArg y, int mode,
                        double *__restrict__ sout) {
    typedef typename F::T T;
    const u64 chunks = (n + CHUNK - 1) / CHUNK;
    auto join = [](T &p, const T &q) { p = F::add_normwise(p, q); };
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (u64)gridDim.x * blockDim.x) {
        auto chunk_value = [&](u64 c) -> T {
            if (pa.groups <= 1) return F::get(pa.p, pa.ws, c * pa.cs + i * pa.is);
            // the tree's top over the chunk's groups, as gemv_rows' block joins them
            const u64 len = n - c * CHUNK < (u64)CHUNK ? n - c * CHUNK : (u64)CHUNK;
            const unsigned gb = (unsigned)pa.groups, used = len < LANES ? (unsigned)len : LANES;
            const unsigned top = used < gb ? used : gb;
            T v[8];
            for (unsigned g = 0; g < top; g++) v[g] = F::get(pa.p, pa.ws, (c * gb + g) * m + i);
            for (unsigned h = gb / 2; h >= 1; h >>= 1)
                for (unsigned g = 0; g < h; g++)
                    if (g + h < top) join(v[g], v[g + h]);
            return v[0];
        };
        T s;
        if (chunks == 1) {
            s = chunk_value(0);
        } else {
            // Lane l of the later pass: −0 ⊕ chunk l ⊕ chunk l + 256 ⊕ …
            auto lane = [&](unsigned l) -> T {
                T acc = F::neg_zero();
                for (u64 c = l; c < chunks; c += LANES) join(acc, chunk_value(c));
                return acc;
            };
            auto pair = [&](unsigned k0, unsigned k1, bool two) -> T {
                T v = lane(k0);
                if (two) join(v, lane(k1));
                return v;
            };
            T slots[8];
            s = halving_tree<T>(LANES, chunks < LANES ? (unsigned)chunks : LANES, join, pair, slots);
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
// Element e = (i, j) of the grid-stride loop, e = j·m + i (rows fast) or i·n + j: the fast
// index f and the slow one s are stepped by the stride's remainder and quotient, instead of a
// 64-bit division and remainder per element (H100, 16384 × 8192, alternated in one process:
// quad-double 71.6-72.7% → 77.9-78.0% of cublasDger, double-double 90.8-91.9% → 91.3-92.3%,
// f64 95.0-95.8% → 95.7-96.8%).
template <class F>
MP_DEV void ger(MutMatArg a, VecArg x, VecArg y, const double *__restrict__ t, u64 m, u64 n, int rows_fast) {
    const u64 total = m * n, fast = rows_fast ? m : n;
    const u64 e0 = (u64)blockIdx.x * blockDim.x + threadIdx.x, stride = (u64)gridDim.x * blockDim.x;
    const u64 df = stride % fast, ds = stride / fast;
    u64 f = e0 % fast, s = e0 / fast;
    for (u64 e = e0; e < total; e += stride) {
        const u64 i = rows_fast ? f : s;
        const u64 j = rows_fast ? s : f;
        f += df;
        s += ds;
        if (f >= fast) {
            f -= fast;
            s++;
        }
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

extern "C" __global__ void blas_f64_gemv_rows(MatArg a, VecArg x, u64 m, u64 n, unsigned rows, double *part, u64 ws) {
    gemv_rows<F64, DotOf<F64> >(a, x, m, n, rows, part, ws);
}
extern "C" __global__ void blas_f64_gemv_rows_abs(MatArg a, VecArg x, u64 m, u64 n, unsigned rows, double *part, u64 ws) {
    gemv_rows<F64, AbsDotOf<F64> >(a, x, m, n, rows, part, ws);
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

extern "C" __global__ void blas_f64_gemv_rows_split(MatArg a, VecArg x, u64 m, u64 n, unsigned gb, double *part, u64 ws) {
    gemv_rows_split<F64, DotOf<F64> >(a, x, m, n, gb, part, ws);
}
extern "C" __global__ void blas_f64_gemv_rows_split_abs(MatArg a, VecArg x, u64 m, u64 n, unsigned gb, double *part, u64 ws) {
    gemv_rows_split<F64, AbsDotOf<F64> >(a, x, m, n, gb, part, ws);
}
extern "C" __global__ void blas_dd_gemv_rows(MatArg a, VecArg x, u64 m, u64 n, unsigned rows, double *part, u64 ws) {
    gemv_rows<DD, DotOf<DD> >(a, x, m, n, rows, part, ws);
}
extern "C" __global__ void blas_dd_gemv_rows_abs(MatArg a, VecArg x, u64 m, u64 n, unsigned rows, double *part, u64 ws) {
    gemv_rows<DD, AbsDotOf<DD> >(a, x, m, n, rows, part, ws);
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

extern "C" __global__ void blas_qd_gemv_rows(MatArg a, VecArg x, u64 m, u64 n, unsigned rows, double *part, u64 ws) {
    gemv_rows<QD, DotOf<QD> >(a, x, m, n, rows, part, ws);
}
extern "C" __global__ void blas_qd_gemv_rows_abs(MatArg a, VecArg x, u64 m, u64 n, unsigned rows, double *part, u64 ws) {
    gemv_rows<QD, AbsDotOf<QD> >(a, x, m, n, rows, part, ws);
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
