// Double-double element-wise kernels (launcher: cuda/dd_elementwise.rs).
//
// Layout: structure of arrays, one array per word (`xh`, `xl`), so that a warp reads each word
// coalesced. Every kernel is a grid-stride loop over 64-bit indices with every load and store
// guarded by `i < n`; the output arrays never alias the inputs (the Rust API takes `&mut out`).
// Kernel names follow `dd_<op>_<variant>`: `vv` vector-vector, `vs` vector-scalar, `v` unary.

#include "dd.cuh"

typedef unsigned long long u64;

// The first index of this thread and the grid-stride step, in 64 bits.
#define MP_GRID_STRIDE(i, n)                                                                      \
    for (u64 i = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; i < (n);                 \
         i += (u64)blockDim.x * (u64)gridDim.x)

struct DdAdd { static __device__ __forceinline__ Dd f(Dd a, Dd b) { return dd::add_accurate(a, b); } };
struct DdSub { static __device__ __forceinline__ Dd f(Dd a, Dd b) { return dd::sub(a, b); } };
struct DdMul { static __device__ __forceinline__ Dd f(Dd a, Dd b) { return dd::mul_accurate(a, b); } };
struct DdDiv { static __device__ __forceinline__ Dd f(Dd a, Dd b) { return dd::div_accurate(a, b); } };

template <class Op>
static __device__ __forceinline__ void dd_map_vv(const double *__restrict__ xh, const double *__restrict__ xl,
                                                 const double *__restrict__ yh, const double *__restrict__ yl,
                                                 double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    MP_GRID_STRIDE(i, n) {
        Dd r = Op::f(dd_make(xh[i], xl[i]), dd_make(yh[i], yl[i]));
        zh[i] = r.hi;
        zl[i] = r.lo;
    }
}

template <class Op>
static __device__ __forceinline__ void dd_map_vs(const double *__restrict__ xh, const double *__restrict__ xl,
                                                 double sh, double sl,
                                                 double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    Dd s = dd_make(sh, sl);
    MP_GRID_STRIDE(i, n) {
        Dd r = Op::f(dd_make(xh[i], xl[i]), s);
        zh[i] = r.hi;
        zl[i] = r.lo;
    }
}

extern "C" __global__ void dd_add_vv(const double *__restrict__ xh, const double *__restrict__ xl,
                                   const double *__restrict__ yh, const double *__restrict__ yl,
                                   double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    dd_map_vv<DdAdd>(xh, xl, yh, yl, zh, zl, n);
}

extern "C" __global__ void dd_add_vs(const double *__restrict__ xh, const double *__restrict__ xl,
                                   double sh, double sl,
                                   double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    dd_map_vs<DdAdd>(xh, xl, sh, sl, zh, zl, n);
}

extern "C" __global__ void dd_sub_vv(const double *__restrict__ xh, const double *__restrict__ xl,
                                   const double *__restrict__ yh, const double *__restrict__ yl,
                                   double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    dd_map_vv<DdSub>(xh, xl, yh, yl, zh, zl, n);
}

extern "C" __global__ void dd_sub_vs(const double *__restrict__ xh, const double *__restrict__ xl,
                                   double sh, double sl,
                                   double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    dd_map_vs<DdSub>(xh, xl, sh, sl, zh, zl, n);
}

extern "C" __global__ void dd_mul_vv(const double *__restrict__ xh, const double *__restrict__ xl,
                                   const double *__restrict__ yh, const double *__restrict__ yl,
                                   double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    dd_map_vv<DdMul>(xh, xl, yh, yl, zh, zl, n);
}

extern "C" __global__ void dd_mul_vs(const double *__restrict__ xh, const double *__restrict__ xl,
                                   double sh, double sl,
                                   double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    dd_map_vs<DdMul>(xh, xl, sh, sl, zh, zl, n);
}

extern "C" __global__ void dd_div_vv(const double *__restrict__ xh, const double *__restrict__ xl,
                                   const double *__restrict__ yh, const double *__restrict__ yl,
                                   double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    dd_map_vv<DdDiv>(xh, xl, yh, yl, zh, zl, n);
}

extern "C" __global__ void dd_div_vs(const double *__restrict__ xh, const double *__restrict__ xl,
                                   double sh, double sl,
                                   double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    dd_map_vs<DdDiv>(xh, xl, sh, sl, zh, zl, n);
}

extern "C" __global__ void dd_sqrt_v(const double *__restrict__ xh, const double *__restrict__ xl,
                                   double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    MP_GRID_STRIDE(i, n) {
        Dd r = dd::sqrt(dd_make(xh[i], xl[i]));
        zh[i] = r.hi;
        zl[i] = r.lo;
    }
}
