// LU with partial pivoting and its triangular solves on the GPU (launcher: lapack/lu_gpu.rs):
// the CPU's lu.rs step for step, so the factors and solutions are the CPU's bits, for f64,
// double-double and quad-double (the formats of blas_reduce.cuh: each operation the CPU's).
//
// A matrix: word pointers to element (0, 0), element (i, j) at i*rs + j*cs (LuMat). The
// trailing update of each panel is the GPU gemm (blas_level3_gpu.cu), launched by the host.

#include "blas_reduce.cuh"

struct LuMat {
    double *w[4];
    u64 rs, cs;
};

// The words of a value (most significant first).
template <class F> MP_DEV void lu_words(typename F::T x, double *w);
template <> MP_DEV void lu_words<F64>(double x, double *w) { w[0] = x; }
template <> MP_DEV void lu_words<DD>(Dd x, double *w) {
    w[0] = x.hi;
    w[1] = x.lo;
}
template <> MP_DEV void lu_words<QD>(Qd x, double *w) {
#pragma unroll
    for (int k = 0; k < 4; k++) w[k] = x.c[k];
}

template <class F> MP_DEV typename F::T lu_at(const LuMat &a, u64 i, u64 j) {
    const u64 o = i * a.rs + j * a.cs;
    double w[4];
#pragma unroll
    for (int k = 0; k < F::W; k++) w[k] = a.w[k][o];
    return F::make(w);
}

template <class F> MP_DEV void lu_put(const LuMat &a, u64 i, u64 j, typename F::T x) {
    const u64 o = i * a.rs + j * a.cs;
    double w[4];
    lu_words<F>(x, w);
#pragma unroll
    for (int k = 0; k < F::W; k++) a.w[k][o] = w[k];
}

// Scalar::div_ref of each format (f64 `/`, Dd and Qd div_accurate).
template <class F> MP_DEV typename F::T lu_div(typename F::T a, typename F::T b);
template <> MP_DEV double lu_div<F64>(double a, double b) { return __ddiv_rn(a, b); }
template <> MP_DEV Dd lu_div<DD>(Dd a, Dd b) { return dd::div_accurate(a, b); }
template <> MP_DEV Qd lu_div<QD>(Qd a, Qd b) { return qd::div_accurate(a, b); }

// v - l*u: the CPU's `v.sub_ref(&l.mul_ref(&u))`.
template <class F> MP_DEV typename F::T lu_sub_prod(typename F::T v, typename F::T l, typename F::T u) {
    return F::sub(v, F::mul(l, u));
}

// o_w[i ors + j ocs] = x_w[i rs + j cs] for the words w < words (1, 2 or 4; the others null):
// an m x n matrix copied between two layouts. Launch: 2-D grid, block 256.
extern "C" __global__ void lu_copy_words(const double *__restrict__ x0, const double *__restrict__ x1,
                                       const double *__restrict__ x2, const double *__restrict__ x3, u64 rs,
                                       u64 cs, u64 m, u64 n, double *__restrict__ o0, double *__restrict__ o1,
                                       double *__restrict__ o2, double *__restrict__ o3, u64 ors, u64 ocs,
                                       int words) {
    for (u64 j = blockIdx.y; j < n; j += gridDim.y)
        for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (u64)blockDim.x * gridDim.x) {
        u64 s = i * rs + j * cs, d = i * ors + j * ocs;
        o0[d] = x0[s];
        if (words >= 2) o1[d] = x1[s];
        if (words == 4) {
            o2[d] = x2[s];
            o3[d] = x3[s];
        }
    }
}

#define LU_PIVOT_THREADS 256

// Step j of getrf's panel (one block of LU_PIVOT_THREADS): the pivot p = the first row i >= j
// of largest |a_ij| (lu.rs: `v > best`, so NaN never wins and a NaN a_jj stays), ipiv[j] = p,
// rows j and p swapped in all n columns, then a_ij /= a_jj below the diagonal unless a_jj is
// zero (then *info = min(*info, j): the first zero pivot).
template <class F> MP_DEV void lu_pivot(LuMat a, u64 m, u64 n, u64 j, unsigned *ipiv, unsigned *info) {
    typedef typename F::T T;
    __shared__ T best[LU_PIVOT_THREADS];
    __shared__ u64 where[LU_PIVOT_THREADS];
    __shared__ u64 p_shared;
    const unsigned t = threadIdx.x;
    T b = F::from_f64(0.0);
    u64 bi = ~0ULL;
    for (u64 i = j + t; i < m; i += LU_PIVOT_THREADS) {
        T v = F::abs(lu_at<F>(a, i, j));
        if (mp_is_nan(F::lead(v))) continue;
        if (bi == ~0ULL || F::less(b, v)) {
            b = v;
            bi = i;
        }
    }
    best[t] = b;
    where[t] = bi;
    __syncthreads();
    for (unsigned s = LU_PIVOT_THREADS / 2; s > 0; s >>= 1) {
        if (t < s) {
            u64 oi = where[t + s];
            T ov = best[t + s];
            // The larger magnitude wins; among equal ones the smaller row (the sequential order).
            bool take = oi != ~0ULL && (where[t] == ~0ULL || F::less(best[t], ov) ||
                                        (!F::less(ov, best[t]) && oi < where[t]));
            if (take) {
                best[t] = ov;
                where[t] = oi;
            }
        }
        __syncthreads();
    }
    if (t == 0) {
        // A NaN |a_jj| is never exceeded: the sequential scan keeps row j.
        bool nan_diag = mp_is_nan(F::lead(F::abs(lu_at<F>(a, j, j))));
        u64 p = (nan_diag || where[0] == ~0ULL) ? j : where[0];
        p_shared = p;
        ipiv[j] = (unsigned)p;
    }
    __syncthreads();
    const u64 p = p_shared;
    if (p != j) {
        for (u64 c = t; c < n; c += LU_PIVOT_THREADS) {
            T x = lu_at<F>(a, j, c);
            lu_put<F>(a, j, c, lu_at<F>(a, p, c));
            lu_put<F>(a, p, c, x);
        }
    }
    __syncthreads();
    T pivot = lu_at<F>(a, j, j);
    if (F::lead(pivot) == 0.0) {
        if (t == 0) atomicMin(info, (unsigned)j);
        return;
    }
    for (u64 i = j + 1 + t; i < m; i += LU_PIVOT_THREADS) lu_put<F>(a, i, j, lu_div<F>(lu_at<F>(a, i, j), pivot));
}

// The rest of the panel after step j: a_ic -= a_ij a_jc for rows i > j, columns j < c < c_end.
// Launch: 2-D grid (rows, columns), block 256.
template <class F> MP_DEV void lu_panel(LuMat a, u64 m, u64 j, u64 c_end) {
    for (u64 c = j + 1 + blockIdx.y; c < c_end; c += gridDim.y) {
        typename F::T u = lu_at<F>(a, j, c);
        for (u64 i = j + 1 + (u64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (u64)blockDim.x * gridDim.x)
            lu_put<F>(a, i, c, lu_sub_prod<F>(lu_at<F>(a, i, c), lu_at<F>(a, i, j), u));
    }
}

// U12 = L11^-1 A12 for the panel of columns j0..j0+jb: for each column c0 <= c < n (a thread
// each), rows r in order: a_rc -= sum over q in j0..r (ascending) of a_rq a_qc.
template <class F> MP_DEV void lu_trsm(LuMat a, u64 j0, u64 jb, u64 c0, u64 n) {
    for (u64 c = c0 + (u64)blockIdx.x * blockDim.x + threadIdx.x; c < n; c += (u64)blockDim.x * gridDim.x) {
        for (u64 r = j0 + 1; r < j0 + jb; r++) {
            typename F::T v = lu_at<F>(a, r, c);
            for (u64 q = j0; q < r; q++) v = lu_sub_prod<F>(v, lu_at<F>(a, r, q), lu_at<F>(a, q, c));
            lu_put<F>(a, r, c, v);
        }
    }
}

// getrs's row interchanges on the columns of B (a thread each): swap(j, ipiv[j]) for j in
// 0..n, or in reverse order with `reverse`.
template <class F> MP_DEV void lu_swaps(LuMat b, u64 n, u64 nrhs, const unsigned *ipiv, int reverse) {
    for (u64 c = (u64)blockIdx.x * blockDim.x + threadIdx.x; c < nrhs; c += (u64)blockDim.x * gridDim.x) {
        for (u64 s = 0; s < n; s++) {
            u64 j = reverse ? n - 1 - s : s;
            u64 p = ipiv[j];
            if (p == j) continue;
            typename F::T x = lu_at<F>(b, j, c);
            lu_put<F>(b, j, c, lu_at<F>(b, p, c));
            lu_put<F>(b, p, c, x);
        }
    }
}

// The diagonal block [b0, b1) of a triangular solve with M (element (i, q) of the triangle; a
// transposed factor by swapped strides), a thread per column of B: forward (rows ascending,
// each subtracting its q in [b0, i) ascending) or backward (rows descending, q in (i, b1)
// descending), then / M_ii with `divide` (lu.rs solve_column's orders: the rows' earlier terms
// were subtracted by lu_subst in the same order).
template <class F>
MP_DEV void lu_trsv(LuMat mat, LuMat b, u64 b0, u64 b1, u64 nrhs, int backward, int divide) {
    for (u64 c = (u64)blockIdx.x * blockDim.x + threadIdx.x; c < nrhs; c += (u64)blockDim.x * gridDim.x) {
        for (u64 s = 0; s < b1 - b0; s++) {
            u64 i = backward ? b1 - 1 - s : b0 + s;
            typename F::T v = lu_at<F>(b, i, c);
            if (backward) {
                for (u64 q = b1 - 1; q > i; q--) v = lu_sub_prod<F>(v, lu_at<F>(mat, i, q), lu_at<F>(b, q, c));
            } else {
                for (u64 q = b0; q < i; q++) v = lu_sub_prod<F>(v, lu_at<F>(mat, i, q), lu_at<F>(b, q, c));
            }
            if (divide) v = lu_div<F>(v, lu_at<F>(mat, i, i));
            lu_put<F>(b, i, c, v);
        }
    }
}

// The rows [r0, r1) outside a solved block [b0, b1): b_ic -= M_iq b_qc for q in the block,
// ascending (forward) or descending (backward). Launch: 2-D grid (rows, columns of B).
template <class F>
MP_DEV void lu_subst(LuMat mat, LuMat b, u64 b0, u64 b1, u64 r0, u64 r1, u64 nrhs, int backward) {
    for (u64 c = blockIdx.y; c < nrhs; c += gridDim.y) {
        for (u64 i = r0 + (u64)blockIdx.x * blockDim.x + threadIdx.x; i < r1; i += (u64)blockDim.x * gridDim.x) {
            typename F::T v = lu_at<F>(b, i, c);
            for (u64 s = 0; s < b1 - b0; s++) {
                u64 q = backward ? b1 - 1 - s : b0 + s;
                v = lu_sub_prod<F>(v, lu_at<F>(mat, i, q), lu_at<F>(b, q, c));
            }
            lu_put<F>(b, i, c, v);
        }
    }
}

// The entry points, one per format (literal names: tests/kernel_names.rs reads them).

extern "C" __global__ void __launch_bounds__(LU_PIVOT_THREADS) lu_pivot_f64(LuMat a, u64 m, u64 n, u64 j, unsigned *ipiv, unsigned *info) {
    lu_pivot<F64>(a, m, n, j, ipiv, info);
}
extern "C" __global__ void lu_panel_f64(LuMat a, u64 m, u64 j, u64 c_end) { lu_panel<F64>(a, m, j, c_end); }
extern "C" __global__ void lu_trsm_f64(LuMat a, u64 j0, u64 jb, u64 c0, u64 n) { lu_trsm<F64>(a, j0, jb, c0, n); }
extern "C" __global__ void lu_swaps_f64(LuMat b, u64 n, u64 nrhs, const unsigned *ipiv, int reverse) {
    lu_swaps<F64>(b, n, nrhs, ipiv, reverse);
}
extern "C" __global__ void lu_trsv_f64(LuMat mat, LuMat b, u64 b0, u64 b1, u64 nrhs, int backward, int divide) {
    lu_trsv<F64>(mat, b, b0, b1, nrhs, backward, divide);
}
extern "C" __global__ void lu_subst_f64(LuMat mat, LuMat b, u64 b0, u64 b1, u64 r0, u64 r1, u64 nrhs, int backward) {
    lu_subst<F64>(mat, b, b0, b1, r0, r1, nrhs, backward);
}

extern "C" __global__ void __launch_bounds__(LU_PIVOT_THREADS) lu_pivot_dd(LuMat a, u64 m, u64 n, u64 j, unsigned *ipiv, unsigned *info) {
    lu_pivot<DD>(a, m, n, j, ipiv, info);
}
extern "C" __global__ void lu_panel_dd(LuMat a, u64 m, u64 j, u64 c_end) { lu_panel<DD>(a, m, j, c_end); }
extern "C" __global__ void lu_trsm_dd(LuMat a, u64 j0, u64 jb, u64 c0, u64 n) { lu_trsm<DD>(a, j0, jb, c0, n); }
extern "C" __global__ void lu_swaps_dd(LuMat b, u64 n, u64 nrhs, const unsigned *ipiv, int reverse) {
    lu_swaps<DD>(b, n, nrhs, ipiv, reverse);
}
extern "C" __global__ void lu_trsv_dd(LuMat mat, LuMat b, u64 b0, u64 b1, u64 nrhs, int backward, int divide) {
    lu_trsv<DD>(mat, b, b0, b1, nrhs, backward, divide);
}
extern "C" __global__ void lu_subst_dd(LuMat mat, LuMat b, u64 b0, u64 b1, u64 r0, u64 r1, u64 nrhs, int backward) {
    lu_subst<DD>(mat, b, b0, b1, r0, r1, nrhs, backward);
}

extern "C" __global__ void __launch_bounds__(LU_PIVOT_THREADS) lu_pivot_qd(LuMat a, u64 m, u64 n, u64 j, unsigned *ipiv, unsigned *info) {
    lu_pivot<QD>(a, m, n, j, ipiv, info);
}
extern "C" __global__ void lu_panel_qd(LuMat a, u64 m, u64 j, u64 c_end) { lu_panel<QD>(a, m, j, c_end); }
extern "C" __global__ void lu_trsm_qd(LuMat a, u64 j0, u64 jb, u64 c0, u64 n) { lu_trsm<QD>(a, j0, jb, c0, n); }
extern "C" __global__ void lu_swaps_qd(LuMat b, u64 n, u64 nrhs, const unsigned *ipiv, int reverse) {
    lu_swaps<QD>(b, n, nrhs, ipiv, reverse);
}
extern "C" __global__ void lu_trsv_qd(LuMat mat, LuMat b, u64 b0, u64 b1, u64 nrhs, int backward, int divide) {
    lu_trsv<QD>(mat, b, b0, b1, nrhs, backward, divide);
}
extern "C" __global__ void lu_subst_qd(LuMat mat, LuMat b, u64 b0, u64 b1, u64 r0, u64 r1, u64 nrhs, int backward) {
    lu_subst<QD>(mat, b, b0, b1, r0, r1, nrhs, backward);
}
