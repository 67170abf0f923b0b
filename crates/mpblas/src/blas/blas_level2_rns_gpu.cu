// BLAS level 2 in RNS multiple precision on the GPU (launcher: blas_level2_rns_gpu.rs).
//
// gemv: each row's dot product in the level-1 blocked order (sum.rs), one thread per node of its
// tree: a lane kernel forms the lanes of every chunk (the CPU's fused multiply-add per term,
// starting from -0), a tree kernel joins them level by level (the CPU's addition), later passes
// sum the chunk results the same way, and a finish kernel forms alpha*s_i + beta*y_i (two
// products and an addition, as the CPU). ger: t_j = alpha*y_j, then a_ij + x_i*t_j.
//
// The arithmetic is the CPU's own algorithms in one thread (rns.cuh fused operations), every
// result correctly rounded: each value has the CPU's bits, for any launch. Operands stay in
// local memory between the operations of a thread; only tree nodes go through global memory.
//
// Grid-stride loops over 64-bit work indices; every store is guarded by the work count.

#include "rns.cuh"
#include "blas_rns.cuh"

#define BLAS_RNS_LANES 256ull
#define BLAS_RNS_PER_LANE 16ull
#define BLAS_RNS_CHUNK (BLAS_RNS_LANES * BLAS_RNS_PER_LANE)

#define BLAS_RNS_GRID_STRIDE(w, count)                                                            \
    for (u64 w = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; w < (count);              \
         w += (u64)blockDim.x * (u64)gridDim.x)

// Lanes of a pass in the blocked order: `terms` terms per row, chunk c of CHUNK terms, lane l of
// LANES; the lanes a chunk uses (the tail chunk may use fewer).
static __device__ __forceinline__ u64 blas_rns_used(u64 terms, u64 c) {
    u64 here = terms - c * BLAS_RNS_CHUNK;
    if (here > BLAS_RNS_CHUNK) here = BLAS_RNS_CHUNK;
    return here < BLAS_RNS_LANES ? here : BLAS_RNS_LANES;
}

// Work item w = (c LANES + l) m + i of a pass over `terms` terms per row: lane l of chunk c of
// row i starts at -0 and takes its terms j = c CHUNK + k LANES + l in order k, each through
// step(i, j, sum, sum's residues, out residues) -> the new sum; the lane goes to element w of s.
// Lanes the chunk does not use are skipped (the tree never reads them).
template <class Step>
static __device__ __forceinline__ void blas_rns_lane(const RnsBasis &b, u64 m, u64 terms, u64 w, const RnsArg &s,
                                                     Step step) {
    u64 i = w % m, l = (w / m) % BLAS_RNS_LANES, c = w / (m * BLAS_RNS_LANES);
    if (l >= blas_rns_used(terms, c)) return;
    u32 acc[2][RNS_MAX_N];
    u32 cur = 0;
    rns_zero(b, acc[0]);
    RnsNum sum = rns_special(0, true);
    for (u64 k = 0; k < BLAS_RNS_PER_LANE; k++) {
        u64 j = c * BLAS_RNS_CHUNK + k * BLAS_RNS_LANES + l;
        if (j >= terms) break;
        sum = step(i, j, sum, acc[cur], acc[1 - cur]);
        cur = 1 - cur;
    }
    blas_rns_put(s, b.n, w, sum, acc[cur]);
}

// First pass of s_i = sum_j a_ij x_j (or |a_ij||x_j| when `abs`): each term one fused
// multiply-add (Scalar::add_product), in the lanes of blas_rns_lane.
extern "C" __global__ void __launch_bounds__(256, 4)
blas_rns_gemv_lanes(const u32 *__restrict__ tab, RnsArg a, RnsArg x, u64 m, u64 n, int abs, RnsArg s) {
    RnsBasis b = rns_basis(tab);
    const u32 nm = b.n;
    u64 chunks = (n + BLAS_RNS_CHUNK - 1) / BLAS_RNS_CHUNK;
    BLAS_RNS_GRID_STRIDE(w, m * BLAS_RNS_LANES * chunks) {
        blas_rns_lane(b, m, n, w, s, [&](u64 i, u64 j, const RnsNum &sum, const u32 *sr, u32 *out) {
            u64 ea = blas_rns_at(a, i, j), ex = blas_rns_at(x, j, 0);
            RnsNum av = blas_rns_get(a, ea), xv = blas_rns_get(x, ex);
            if (abs) {
                av.neg = 0;
                xv.neg = 0;
            }
            return rns_fma_fused(b, av, blas_rns_res(a, nm, ea), xv, blas_rns_res(x, nm, ex), sum, sr, out);
        });
    }
}

// A later pass: the `terms` results of the pass before (term j of row i at p's element
// j*p.cs + i*p.rs) summed by additions (Reduction::join), in the lanes of blas_rns_lane.
extern "C" __global__ void blas_rns_gemv_join_lanes(const u32 *__restrict__ tab, RnsArg p, u64 m, u64 terms,
                                                    RnsArg s) {
    RnsBasis b = rns_basis(tab);
    const u32 nm = b.n;
    u64 chunks = (terms + BLAS_RNS_CHUNK - 1) / BLAS_RNS_CHUNK;
    BLAS_RNS_GRID_STRIDE(w, m * BLAS_RNS_LANES * chunks) {
        blas_rns_lane(b, m, terms, w, s, [&](u64 i, u64 j, const RnsNum &sum, const u32 *sr, u32 *out) {
            u64 e = blas_rns_at(p, i, j);
            return rns_add_fused(b, sum, sr, blas_rns_get(p, e), blas_rns_res(p, nm, e), false, out);
        });
    }
}

// One level h of the halving tree over the lanes of every chunk (sum.rs `chunk`): lane t <- lane t
// + lane t + h for each t < h with a partner among the used lanes. In place: a thread writes
// lane t < h and reads lane t + h >= h, which no thread of this level writes.
extern "C" __global__ void __launch_bounds__(256, 4)
blas_rns_gemv_tree(const u32 *__restrict__ tab, RnsArg s, u64 m, u64 terms, u64 h) {
    RnsBasis b = rns_basis(tab);
    const u32 nm = b.n;
    u64 chunks = (terms + BLAS_RNS_CHUNK - 1) / BLAS_RNS_CHUNK;
    BLAS_RNS_GRID_STRIDE(w, m * h * chunks) {
        u64 i = w % m, t = (w / m) % h, c = w / (m * h);
        u64 used = blas_rns_used(terms, c);
        u64 k = used > h ? (used - h < h ? used - h : h) : 0;
        if (t >= k) continue;
        u64 e1 = (c * BLAS_RNS_LANES + t) * m + i, e2 = e1 + h * m;
        u32 out[RNS_MAX_N];
        RnsNum r = rns_add_fused(b, blas_rns_get(s, e1), blas_rns_res(s, nm, e1), blas_rns_get(s, e2),
                                 blas_rns_res(s, nm, e2), false, out);
        blas_rns_put(s, nm, e1, r, out);
    }
}

// y_i <- alpha*s_i + beta*y_i as the CPU forms it: by = beta*y_i unless beta = 0 (y not read),
// then alpha*s_i (+ by); with alpha = 0, by (or +0). s_i at s's element i*s.rs; alpha and beta are
// elements 0 and 1 of `ab`.
extern "C" __global__ void blas_rns_gemv_finish(const u32 *__restrict__ tab, RnsArg s, RnsArg ab, RnsArg y, u64 m,
                                                int alpha_zero, int beta_zero) {
    RnsBasis b = rns_basis(tab);
    const u32 nm = b.n;
    RnsNum alpha = blas_rns_get(ab, 0), beta = blas_rns_get(ab, 1);
    BLAS_RNS_GRID_STRIDE(i, m) {
        u32 by[RNS_MAX_N], sa[RNS_MAX_N], out[RNS_MAX_N];
        u64 ey = blas_rns_at(y, i, 0);
        RnsNum byv = rns_special(0, false);
        rns_zero(b, by);
        if (!beta_zero) byv = rns_mul_fused(b, beta, blas_rns_res(ab, nm, 1), blas_rns_get(y, ey), blas_rns_res(y, nm, ey), by);
        if (alpha_zero) {
            blas_rns_put(y, nm, ey, byv, by);
            continue;
        }
        u64 es = blas_rns_at(s, i, 0);
        RnsNum asv = rns_mul_fused(b, alpha, blas_rns_res(ab, nm, 0), blas_rns_get(s, es), blas_rns_res(s, nm, es), sa);
        if (beta_zero) {
            blas_rns_put(y, nm, ey, asv, sa);
            continue;
        }
        RnsNum r = rns_add_fused(b, asv, sa, byv, by, false, out);
        blas_rns_put(y, nm, ey, r, out);
    }
}

// dst[k] <- src[k*src.rs], k < count (dst contiguous from element dst.off).
extern "C" __global__ void blas_rns_copy(const u32 *__restrict__ tab, RnsArg src, RnsArg dst, u64 count) {
    RnsBasis b = rns_basis(tab);
    const u32 nm = b.n;
    BLAS_RNS_GRID_STRIDE(k, count) {
        u64 e = blas_rns_at(src, k, 0);
        blas_rns_put(dst, nm, dst.off + k, blas_rns_get(src, e), blas_rns_res(src, nm, e));
    }
}

// ger, step 1: t_j = alpha*y_j (element j of t; alpha is element 0 of `al`).
extern "C" __global__ void blas_rns_ger_scale(const u32 *__restrict__ tab, RnsArg al, RnsArg y, u64 n, RnsArg t) {
    RnsBasis b = rns_basis(tab);
    const u32 nm = b.n;
    RnsNum alpha = blas_rns_get(al, 0);
    BLAS_RNS_GRID_STRIDE(j, n) {
        u32 out[RNS_MAX_N];
        u64 ey = blas_rns_at(y, j, 0);
        RnsNum r = rns_mul_fused(b, alpha, blas_rns_res(al, nm, 0), blas_rns_get(y, ey), blas_rns_res(y, nm, ey), out);
        blas_rns_put(t, nm, j, r, out);
    }
}

// ger, step 2: a_ij <- a_ij + x_i*t_j, except in the columns where y_j = 0 (reference BLAS skips
// them). Work item w = j m + i (consecutive threads on consecutive rows).
extern "C" __global__ void blas_rns_ger_update(const u32 *__restrict__ tab, RnsArg a, RnsArg x, RnsArg y, RnsArg t,
                                               u64 m, u64 n) {
    RnsBasis b = rns_basis(tab);
    const u32 nm = b.n;
    BLAS_RNS_GRID_STRIDE(w, m * n) {
        u64 i = w % m, j = w / m;
        RnsNum yv = blas_rns_get(y, blas_rns_at(y, j, 0));
        if (rns_num_is_zero(yv)) continue;
        u32 prod[RNS_MAX_N], out[RNS_MAX_N];
        u64 ex = blas_rns_at(x, i, 0), ea = blas_rns_at(a, i, j);
        RnsNum p = rns_mul_fused(b, blas_rns_get(x, ex), blas_rns_res(x, nm, ex), blas_rns_get(t, j),
                                 blas_rns_res(t, nm, j), prod);
        RnsNum r = rns_add_fused(b, blas_rns_get(a, ea), blas_rns_res(a, nm, ea), p, prod, false, out);
        blas_rns_put(a, nm, ea, r, out);
    }
}
