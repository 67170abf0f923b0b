// The LAPACK family on the GPU (launcher: lapack/lapack_gpu.rs): the element-wise steps of the
// mixed-precision refinement around cuSOLVER's f64 LU and the Ozaki-scheme residuals, for
// double-double (2 words) and quad-double (4 words) matrices stored as word planes.
// A matrix operand is read through its strides: element (i, j) at x[i*rs + j*cs]; the
// launcher's own buffers are column-major with leading dimension m.

#include "dd.cuh"
#include "qd.cuh"

typedef unsigned long long u64;

#define LAPACK_GRID_2D(i, m, j, n)                                                                \
    for (u64 j = blockIdx.y; j < (n); j += gridDim.y)                                             \
        for (u64 i = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; i < (m);             \
             i += (u64)blockDim.x * (u64)gridDim.x)

// An upper bound of x + y for x, y >= 0: the sum and the product of its rounding each within a
// relative 2^-53, covered by 1 + 2^-51 (a NaN stays NaN, +Inf +Inf).
__device__ __forceinline__ double lapack_sum_up(double x, double y) { return (x + y) * (1.0 + 0x1p-51); }

// out[i + j m] = lead[i rs + j cs] (with `absolute`, its magnitude): the leading words of an
// m x n multi-word matrix (its f64 rounding, as Scalar::nearest_f64 gives it); with acc
// non-null also acc[i + j m] <- lapack_sum_up(acc, |lead|) (the refinement's running sum of
// the residuals' magnitudes, for the error bound). Launch: 2-D grid (cfg_2d), block 256.
extern "C" __global__ void lapack_lead_words(const double *__restrict__ lead, u64 rs, u64 cs, u64 m, u64 n,
                                             double *__restrict__ out, int absolute, double *__restrict__ acc) {
    LAPACK_GRID_2D(i, m, j, n) {
        double v = lead[i * rs + j * cs];
        out[i + j * m] = absolute ? fabs(v) : v;
        if (acc != nullptr) acc[i + j * m] = lapack_sum_up(acc[i + j * m], fabs(v));
    }
}

// The bits of |v| (a NaN's as a positive NaN, above +Inf), so that an unsigned maximum is the
// maximum of the magnitudes with NaN winning (refine.rs norm_inf).
__device__ __forceinline__ u64 lapack_abs_bits(double v) {
    return (u64)__double_as_longlong(v) & 0x7fffffffffffffffULL;
}

// x_ij <- x_ij + d_ij (double-double, words = 2: refine.rs's x.add_ref(&T::from_f64(d)), the
// accurate addition; quad-double, words = 4: Qd::add_f64), or with `init` x_ij <- d_ij; then
// colmax[2j] = max_i |d_ij| and colmax[2j + 1] = max_i |x0_ij| as bits (atomic maxima; zeroed
// by the launcher). x through its strides (words x2, x3 null for double-double), d
// column-major m x n. With acc non-null also acc[i + j m] <- lapack_sum_up(acc, |d_ij| +
// xw |x_ij|) (rounded up: the running sum of the corrections, and of the additions' roundings
// in units of xw, for the error bound). Launch: 2-D grid, block 256.
extern "C" __global__ void lapack_add_correction(double *__restrict__ x0, double *__restrict__ x1,
                                                 double *__restrict__ x2, double *__restrict__ x3, u64 rs,
                                                 u64 cs, u64 m, u64 n, const double *__restrict__ d, int init,
                                                 int words, u64 *__restrict__ colmax, double *__restrict__ acc,
                                                 double xw) {
    LAPACK_GRID_2D(i, m, j, n) {
        u64 idx = i * rs + j * cs;
        double dij = d[i + j * m];
        double lead;
        if (words == 4) {
            Qd x = init ? qd_make(dij, 0.0, 0.0, 0.0)
                        : qd::add_f64(qd_make(x0[idx], x1[idx], x2[idx], x3[idx]), dij);
            x0[idx] = x.c[0];
            x1[idx] = x.c[1];
            x2[idx] = x.c[2];
            x3[idx] = x.c[3];
            lead = x.c[0];
        } else {
            Dd x = init ? dd_make(dij, 0.0) : dd::add_accurate(dd_make(x0[idx], x1[idx]), dd_make(dij, 0.0));
            x0[idx] = x.hi;
            x1[idx] = x.lo;
            lead = x.hi;
        }
        atomicMax(&colmax[2 * j], lapack_abs_bits(dij));
        atomicMax(&colmax[2 * j + 1], lapack_abs_bits(lead));
        if (acc != nullptr) {
            double t = lapack_sum_up(fabs(dij), xw * fabs(lead));
            acc[i + j * m] = lapack_sum_up(acc[i + j * m], t);
        }
    }
}

// colmax[j] = max_i |lead_ij| as bits (atomic maxima, NaN winning; zeroed by the launcher).
// Launch: 2-D grid, block 256.
extern "C" __global__ void lapack_colmax_abs(const double *__restrict__ lead, u64 rs, u64 cs, u64 m, u64 n,
                                             u64 *__restrict__ colmax) {
    LAPACK_GRID_2D(i, m, j, n) { atomicMax(&colmax[j], lapack_abs_bits(lead[i * rs + j * cs])); }
}

// The error bounds of a solution X (m x n; lapack_gpu.rs add_error_bounds), entry (i, j):
//   r  = the computed residual's leading word (column-major, leading dimension m), |r| within
//        a relative 2^-52 of the residual's magnitude;
//   p  = |A_hi| |X_hi| computed by DGEMM (column-major), p + |b_ij| the estimate of
//        (|A||X| + |B|)_ij;
//   ds = |A_hi| S (DGEMM) for the residual's running sum S (or p itself), q the residual's
//        other weight (|B| or the running sum of |R|), through its strides;
//   berr: max over all entries of |r| / (p + |b|) (0/0 counted as 0), as bits (NaN winning);
//   w  = up(|r|) + c1 up(ds) + c2 q + cn rowsum_i colsum_j + tiny, rounded up: a bound of the
//        true residual's magnitude; wt[i] = max_j w / xnorm_j (xnorm_j = max_i |x_ij| as bits;
//        +Inf for w > 0 over a zero column, 0 for w = 0), as bits.
// `up(v)` is v (1 + dg) for the DGEMMs' rounding and the second words' share (the launcher
// passes dg = (m + 4) 2^-52). Launch: 2-D grid, block 256; berr and wt zeroed by the launcher.
extern "C" __global__ void lapack_solve_bounds(const double *__restrict__ r, const double *__restrict__ p,
                                               const double *__restrict__ b, u64 brs, u64 bcs,
                                               const double *__restrict__ ds, const double *__restrict__ q,
                                               u64 qrs, u64 qcs, const double *__restrict__ rowsum,
                                               const double *__restrict__ colsum, const u64 *__restrict__ xnorm,
                                               u64 m, u64 n, double dg, double c1, double c2, double cn,
                                               double tiny, u64 *__restrict__ berr, u64 *__restrict__ wt) {
    LAPACK_GRID_2D(i, m, j, n) {
        u64 idx = i + j * m;
        double ri = fabs(r[idx]), pi = p[idx], bi = fabs(b[i * brs + j * bcs]);
        double denom = pi + bi;
        double ratio = (ri == 0.0 && denom == 0.0) ? 0.0 : ri / denom;
        atomicMax(berr, lapack_abs_bits(ratio));
        double w = ri * (1.0 + 0x1p-51);
        w = w + c1 * (ds[idx] * (1.0 + dg));
        w = w + c2 * fabs(q[i * qrs + j * qcs]);
        if (cn != 0.0) w = w + cn * rowsum[i] * colsum[j];
        w = (w + tiny) * (1.0 + 0x1p-50);
        double xn = __longlong_as_double((long long)xnorm[j]);
        double rel = w == 0.0 ? 0.0 : w / xn;
        atomicMax(&wt[i], lapack_abs_bits(rel * (1.0 + 0x1p-52)));
    }
}
