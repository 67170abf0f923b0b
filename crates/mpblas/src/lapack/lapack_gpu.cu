// The LAPACK family on the GPU (launcher: lapack/lapack_gpu.rs): the element-wise steps of the
// mixed-precision refinement around cuSOLVER's f64 LU and the double-double Ozaki residual.
// A matrix operand is read through its strides: element (i, j) at x[i*rs + j*cs]; the
// launcher's own buffers are column-major with leading dimension m.

#include "dd.cuh"

typedef unsigned long long u64;

#define LAPACK_GRID_2D(i, m, j, n)                                                                \
    for (u64 j = blockIdx.y; j < (n); j += gridDim.y)                                             \
        for (u64 i = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; i < (m);             \
             i += (u64)blockDim.x * (u64)gridDim.x)

// out[i + j m] = hi[i rs + j cs]: the leading words of an m x n double-double matrix (its
// f64 rounding, as Scalar::nearest_f64 gives it). Launch: 2-D grid (cfg_2d), block 256.
extern "C" __global__ void lapack_dd_hi(const double *__restrict__ hi, u64 rs, u64 cs, u64 m, u64 n,
                                        double *__restrict__ out) {
    LAPACK_GRID_2D(i, m, j, n) { out[i + j * m] = hi[i * rs + j * cs]; }
}

// (ohi, olo)[i ors + j ocs] = (hi, lo)[i rs + j cs]: an m x n double-double matrix copied
// between two layouts. Launch: 2-D grid, block 256.
extern "C" __global__ void lapack_dd_copy(const double *__restrict__ hi, const double *__restrict__ lo, u64 rs,
                                          u64 cs, u64 m, u64 n, double *__restrict__ ohi,
                                          double *__restrict__ olo, u64 ors, u64 ocs) {
    LAPACK_GRID_2D(i, m, j, n) {
        ohi[i * ors + j * ocs] = hi[i * rs + j * cs];
        olo[i * ors + j * ocs] = lo[i * rs + j * cs];
    }
}

// The bits of |v| (a NaN's as a positive NaN, above +Inf), so that an unsigned maximum is the
// maximum of the magnitudes with NaN winning (refine.rs norm_inf).
__device__ __forceinline__ u64 lapack_abs_bits(double v) {
    return (u64)__double_as_longlong(v) & 0x7fffffffffffffffULL;
}

// x_ij <- x_ij + d_ij in double-double (refine.rs: x.add_ref(&T::from_f64(d)), the accurate
// addition), or with `init` x_ij <- (d_ij, 0); then colmax[2j] = max_i |d_ij| and
// colmax[2j + 1] = max_i |hi(x_ij)| as bits (atomic maxima; zeroed by the launcher). x through
// its strides, d column-major m x n. Launch: 2-D grid, block 256.
extern "C" __global__ void lapack_dd_add_correction(double *__restrict__ xhi, double *__restrict__ xlo, u64 rs,
                                                    u64 cs, u64 m, u64 n, const double *__restrict__ d, int init,
                                                    u64 *__restrict__ colmax) {
    LAPACK_GRID_2D(i, m, j, n) {
        u64 idx = i * rs + j * cs;
        double dij = d[i + j * m];
        Dd x = init ? dd_make(dij, 0.0) : dd::add_accurate(dd_make(xhi[idx], xlo[idx]), dd_make(dij, 0.0));
        xhi[idx] = x.hi;
        xlo[idx] = x.lo;
        atomicMax(&colmax[2 * j], lapack_abs_bits(dij));
        atomicMax(&colmax[2 * j + 1], lapack_abs_bits(x.hi));
    }
}
