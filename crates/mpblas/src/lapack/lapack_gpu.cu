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

// out[i + j m] = lead[i rs + j cs]: the leading words of an m x n multi-word matrix (its f64
// rounding, as Scalar::nearest_f64 gives it). Launch: 2-D grid (cfg_2d), block 256.
extern "C" __global__ void lapack_lead_words(const double *__restrict__ lead, u64 rs, u64 cs, u64 m, u64 n,
                                       double *__restrict__ out) {
    LAPACK_GRID_2D(i, m, j, n) { out[i + j * m] = lead[i * rs + j * cs]; }
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
// column-major m x n. Launch: 2-D grid, block 256.
extern "C" __global__ void lapack_add_correction(double *__restrict__ x0, double *__restrict__ x1,
                                                 double *__restrict__ x2, double *__restrict__ x3, u64 rs,
                                                 u64 cs, u64 m, u64 n, const double *__restrict__ d, int init,
                                                 int words, u64 *__restrict__ colmax) {
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
    }
}
