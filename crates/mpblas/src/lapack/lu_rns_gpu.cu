// LU with partial pivoting and its triangular solves in RNS multiple precision on the GPU
// (launcher: lapack/lu_rns_gpu.rs): the CPU's lu.rs on MpFloat step for step. Every operation is
// the CPU's, correctly rounded (rns.cuh's fused operations, one thread per result), so every
// factor, pivot and solution has the CPU's bits.
//
// A matrix is an RnsArg (blas_rns.cuh): element (i, j) at off + i*rs + j*cs, so a transposed
// factor is the same array with its strides swapped. Residues of intermediate values live in
// local arrays of RNS_MAX_N words.

#include "blas_rns.cuh"

#define LU_RNS_PIVOT_THREADS 256

#define LU_RNS_GRID_STRIDE(k, count)                                                              \
    for (u64 k = (u64)blockIdx.x * blockDim.x + threadIdx.x; k < (count); k += (u64)blockDim.x * gridDim.x)

// The order of |x| and |y| (-1, 0, 1) for non-NaN operands: MpFloat::cmp_abs behind the CPU's
// `abs_ref() >`, exactly (infinities above every finite value; a p-bit significand, so the
// exponents decide unless equal, then the sign of the significands' difference).
static __device__ int lu_rns_cmp_abs(const RnsBasis &b, const RnsNum &x, const u32 *xr, const RnsNum &y,
                                     const u32 *yr) {
    if (x.cls == 1 || y.cls == 1) return (int)(x.cls == 1) - (int)(y.cls == 1);
    bool xz = rns_num_is_zero(x), yz = rns_num_is_zero(y);
    if (xz || yz) return (int)!xz - (int)!yz;
    if (x.exp != y.exp) return x.exp < y.exp ? -1 : 1;
    u32 d[RNS_MAX_N];
    for (u32 i = 0; i < b.n; i++) d[i] = sub_mod(xr[i], yr[i], b.m[i]);
    return sign_of(b, d, (u64)b.p);
}

// Whether element e of a is larger in magnitude than element f (both non-NaN).
static __device__ bool lu_rns_larger(const RnsBasis &b, const RnsArg &a, u64 e, u64 f) {
    return lu_rns_cmp_abs(b, blas_rns_get(a, e), blas_rns_res(a, b.n, e), blas_rns_get(a, f),
                          blas_rns_res(a, b.n, f)) > 0;
}

// v - l*u: the CPU's `v.sub_ref(&l.mul_ref(&u))`, into `out` (which aliases none of the operands).
static __device__ RnsNum lu_rns_sub_prod(const RnsBasis &b, const RnsNum &v, const u32 *vr, const RnsArg &a,
                                         u64 el, const RnsArg &c, u64 eu, u32 *out) {
    u32 prod[RNS_MAX_N];
    RnsNum p = rns_mul_fused(b, blas_rns_get(a, el), blas_rns_res(a, b.n, el), blas_rns_get(c, eu),
                             blas_rns_res(c, b.n, eu), prod);
    return rns_add_fused(b, v, vr, p, prod, true, out);
}

// Step j's pivot (one block of LU_RNS_PIVOT_THREADS): the first row i >= j of largest |a_ij|
// (NaN entries skipped, a NaN a_jj kept, as the CPU's sequential `>` scan does) into ipiv[j];
// a zero pivot lowers info to j.
extern "C" __global__ void __launch_bounds__(LU_RNS_PIVOT_THREADS)
    lu_rns_pivot(const u32 *__restrict__ tab, RnsArg a, u64 m, u64 j, unsigned *ipiv, unsigned *info) {
    __shared__ u64 where[LU_RNS_PIVOT_THREADS];
    RnsBasis b = rns_basis(tab);
    const unsigned t = threadIdx.x;
    u64 bi = ~0ULL;
    for (u64 i = j + t; i < m; i += LU_RNS_PIVOT_THREADS) {
        u64 e = blas_rns_at(a, i, j);
        if (a.cls[e] == 2) continue;
        if (bi == ~0ULL || lu_rns_larger(b, a, e, blas_rns_at(a, bi, j))) bi = i;
    }
    where[t] = bi;
    __syncthreads();
    for (unsigned s = LU_RNS_PIVOT_THREADS / 2; s > 0; s >>= 1) {
        if (t < s) {
            u64 mine = where[t], other = where[t + s];
            // The larger magnitude wins; among equal ones the smaller row (the sequential order).
            if (other != ~0ULL) {
                bool take = mine == ~0ULL;
                if (!take) {
                    u64 em = blas_rns_at(a, mine, j), eo = blas_rns_at(a, other, j);
                    take = lu_rns_larger(b, a, eo, em) || (!lu_rns_larger(b, a, em, eo) && other < mine);
                }
                if (take) where[t] = other;
            }
        }
        __syncthreads();
    }
    if (t == 0) {
        bool nan_diag = a.cls[blas_rns_at(a, j, j)] == 2;
        u64 p = (nan_diag || where[0] == ~0ULL) ? j : where[0];
        ipiv[j] = (unsigned)p;
        if (rns_num_is_zero(blas_rns_get(a, blas_rns_at(a, p, j)))) atomicMin(info, (unsigned)j);
    }
}

// Swaps elements e and f of a (number and residues).
static __device__ void lu_rns_swap_elements(const RnsArg &a, u32 nm, u64 e, u64 f) {
    RnsNum x = blas_rns_get(a, e), y = blas_rns_get(a, f);
    RnsView v = {a.d, a.sign, a.exp, a.eval, a.cls};
    rns_store(v, a.len, e, y);
    rns_store(v, a.len, f, x);
    for (u32 k = 0; k < nm; k++) {
        u32 w = a.d[e * nm + k];
        a.d[e * nm + k] = a.d[f * nm + k];
        a.d[f * nm + k] = w;
    }
}

// Step j's row interchange across the matrix: rows j and ipiv[j] in columns 0..n (a thread
// per column).
extern "C" __global__ void lu_rns_swap(const u32 *__restrict__ tab, RnsArg a, u64 n, u64 j,
                                       const unsigned *ipiv) {
    const u32 nm = rns_basis(tab).n;
    const u64 p = ipiv[j];
    if (p == j) return;
    LU_RNS_GRID_STRIDE(c, n) { lu_rns_swap_elements(a, nm, blas_rns_at(a, j, c), blas_rns_at(a, p, c)); }
}

// x_ic <- x_ic / M_qq for rows r0..r1 and columns c0..c1 (work item w: row r0 + w % rows): step
// q's column below the pivot in getrf (left alone, with `skip_zero`, when the pivot is zero, as
// the CPU does), a solved row of X in getrs.
extern "C" __global__ void lu_rns_divide(const u32 *__restrict__ tab, RnsArg mat, RnsArg x, u64 q, u64 r0, u64 r1,
                                         u64 c0, u64 c1, int skip_zero) {
    RnsBasis b = rns_basis(tab);
    const u64 ed = blas_rns_at(mat, q, q);
    RnsNum d = blas_rns_get(mat, ed);
    if (skip_zero && rns_num_is_zero(d)) return;
    const u64 rows = r1 - r0;
    LU_RNS_GRID_STRIDE(w, rows * (c1 - c0)) {
        u32 out[RNS_MAX_N];
        u64 e = blas_rns_at(x, r0 + w % rows, c0 + w / rows);
        RnsNum r = rns_div_fused(b, blas_rns_get(x, e), blas_rns_res(x, b.n, e), d, blas_rns_res(mat, b.n, ed), out);
        blas_rns_put(x, b.n, e, r, out);
    }
}

// Step q of an elimination: x_ic <- x_ic - M_iq x_qc for rows r0..r1 and columns c0..c1 (work
// item w: row r0 + w % rows, consecutive threads on consecutive rows). One launch per q in the
// CPU's order of q gives each entry its terms in that order: getrf's panel (M = X = A, rows
// below step q, the panel's columns right of it), U12 = L11^-1 A12 (q ascending over the panel,
// rows below q inside it, columns right of the panel) and getrs's substitutions (M the factor,
// X the right-hand sides).
extern "C" __global__ void lu_rns_eliminate(const u32 *__restrict__ tab, RnsArg mat, RnsArg x, u64 q, u64 r0, u64 r1,
                                            u64 c0, u64 c1) {
    RnsBasis b = rns_basis(tab);
    const u64 rows = r1 - r0;
    LU_RNS_GRID_STRIDE(w, rows * (c1 - c0)) {
        u64 i = r0 + w % rows, c = c0 + w / rows;
        u32 out[RNS_MAX_N];
        u64 e = blas_rns_at(x, i, c);
        RnsNum r = lu_rns_sub_prod(b, blas_rns_get(x, e), blas_rns_res(x, b.n, e), mat, blas_rns_at(mat, i, q), x,
                                   blas_rns_at(x, q, c), out);
        blas_rns_put(x, b.n, e, r, out);
    }
}

// The trailing update A22 <- A22 - L21 U12 as the CPU's gemm(-1, L21, U12, 1, A22) computes it:
// s = sum over l in 0..jb of a_il a_lc, fused multiply-adds from -0 in ascending l, then
// (-1)*s + 1*a_ic (`sc` holds -1 and 1). Rows and columns c0.. of a, L21 in columns
// j0..j0+jb, U12 in rows j0..j0+jb; work item w: row c0 + w % below.
extern "C" __global__ void lu_rns_update(const u32 *__restrict__ tab, RnsArg a, RnsArg sc, u64 j0, u64 jb,
                                         u64 c0, u64 below, u64 rest) {
    RnsBasis b = rns_basis(tab);
    const u32 nm = b.n;
    const RnsNum minus_one = blas_rns_get(sc, 0), one = blas_rns_get(sc, 1);
    LU_RNS_GRID_STRIDE(w, below * rest) {
        const u64 i = c0 + w % below, c = c0 + w / below;
        u32 buf[2][RNS_MAX_N], prod[RNS_MAX_N];
        rns_zero(b, buf[0]);
        RnsNum s = rns_special(0, true);
        int cur = 0;
        for (u64 l = j0; l < j0 + jb; l++) {
            u64 el = blas_rns_at(a, i, l), eu = blas_rns_at(a, l, c);
            s = rns_fma_fused(b, blas_rns_get(a, el), blas_rns_res(a, nm, el), blas_rns_get(a, eu),
                              blas_rns_res(a, nm, eu), s, buf[cur], buf[cur ^ 1]);
            cur ^= 1;
        }
        RnsNum t = rns_mul_fused(b, minus_one, blas_rns_res(sc, nm, 0), s, buf[cur], prod);
        const u64 e = blas_rns_at(a, i, c);
        RnsNum by = rns_mul_fused(b, one, blas_rns_res(sc, nm, 1), blas_rns_get(a, e), blas_rns_res(a, nm, e),
                                  buf[cur ^ 1]);
        RnsNum r = rns_add_fused(b, t, prod, by, buf[cur ^ 1], false, buf[cur]);
        blas_rns_put(a, nm, e, r, buf[cur]);
    }
}

// getrs's row interchanges on the columns of B (a thread each): swap(j, ipiv[j]) for j in 0..n,
// or in reverse order with `reverse`.
extern "C" __global__ void lu_rns_swaps(const u32 *__restrict__ tab, RnsArg x, u64 n, u64 nrhs,
                                        const unsigned *ipiv, int reverse) {
    const u32 nm = rns_basis(tab).n;
    LU_RNS_GRID_STRIDE(c, nrhs) {
        for (u64 s = 0; s < n; s++) {
            u64 j = reverse ? n - 1 - s : s;
            u64 p = ipiv[j];
            if (p != j) lu_rns_swap_elements(x, nm, blas_rns_at(x, j, c), blas_rns_at(x, p, c));
        }
    }
}
