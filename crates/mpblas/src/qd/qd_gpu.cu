// Quad-double element-wise kernels (launcher: cuda/qd_elementwise.rs).
//
// Layout: structure of arrays, one array per word (`x0`..`x3`), so that a warp reads each word
// coalesced. Every kernel is a grid-stride loop over 64-bit indices with every load and store
// guarded by `i < n`; the output arrays never alias the inputs (the Rust API takes `&mut out`).
// Kernel names follow `qd_<op>_<variant>`: `vv` vector-vector, `vs` vector-scalar, `v` unary.

#include "qd.cuh"

typedef unsigned long long u64;

#define MP_GRID_STRIDE(i, n)                                                                      \
    for (u64 i = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; i < (n);                 \
         i += (u64)blockDim.x * (u64)gridDim.x)

// The pointer arguments of one quad-double vector: its four word arrays.
#define QD_IN(x) const double *__restrict__ x##0, const double *__restrict__ x##1, \
                 const double *__restrict__ x##2, const double *__restrict__ x##3
#define QD_OUT(x) double *__restrict__ x##0, double *__restrict__ x##1, \
                  double *__restrict__ x##2, double *__restrict__ x##3
#define QD_LOAD(x, i) qd_make(x##0[i], x##1[i], x##2[i], x##3[i])
#define QD_STORE(z, i, r) do { z##0[i] = (r).c[0]; z##1[i] = (r).c[1]; z##2[i] = (r).c[2]; z##3[i] = (r).c[3]; } while (0)

struct QdAdd { static __device__ __forceinline__ Qd f(const Qd &a, const Qd &b) { return qd::add_ieee(a, b); } };
struct QdSub { static __device__ __forceinline__ Qd f(const Qd &a, const Qd &b) { return qd::sub(a, b); } };
struct QdMul { static __device__ __forceinline__ Qd f(const Qd &a, const Qd &b) { return qd::mul_accurate(a, b); } };
struct QdDiv { static __device__ __forceinline__ Qd f(const Qd &a, const Qd &b) { return qd::div_accurate(a, b); } };

template <class Op>
static __device__ __forceinline__ void qd_map_vv(QD_IN(x), QD_IN(y), QD_OUT(z), u64 n) {
    MP_GRID_STRIDE(i, n) {
        Qd r = Op::f(QD_LOAD(x, i), QD_LOAD(y, i));
        QD_STORE(z, i, r);
    }
}

template <class Op>
static __device__ __forceinline__ void qd_map_vs(QD_IN(x), double s0, double s1, double s2, double s3,
                                                 QD_OUT(z), u64 n) {
    Qd s = qd_make(s0, s1, s2, s3);
    MP_GRID_STRIDE(i, n) {
        Qd r = Op::f(QD_LOAD(x, i), s);
        QD_STORE(z, i, r);
    }
}

extern "C" __global__ void qd_add_vv(QD_IN(x), QD_IN(y), QD_OUT(z), u64 n) {
    qd_map_vv<QdAdd>(x0, x1, x2, x3, y0, y1, y2, y3, z0, z1, z2, z3, n);
}

extern "C" __global__ void qd_add_vs(QD_IN(x), double s0, double s1, double s2, double s3, QD_OUT(z), u64 n) {
    qd_map_vs<QdAdd>(x0, x1, x2, x3, s0, s1, s2, s3, z0, z1, z2, z3, n);
}

extern "C" __global__ void qd_sub_vv(QD_IN(x), QD_IN(y), QD_OUT(z), u64 n) {
    qd_map_vv<QdSub>(x0, x1, x2, x3, y0, y1, y2, y3, z0, z1, z2, z3, n);
}

extern "C" __global__ void qd_sub_vs(QD_IN(x), double s0, double s1, double s2, double s3, QD_OUT(z), u64 n) {
    qd_map_vs<QdSub>(x0, x1, x2, x3, s0, s1, s2, s3, z0, z1, z2, z3, n);
}

extern "C" __global__ void qd_mul_vv(QD_IN(x), QD_IN(y), QD_OUT(z), u64 n) {
    qd_map_vv<QdMul>(x0, x1, x2, x3, y0, y1, y2, y3, z0, z1, z2, z3, n);
}

extern "C" __global__ void qd_mul_vs(QD_IN(x), double s0, double s1, double s2, double s3, QD_OUT(z), u64 n) {
    qd_map_vs<QdMul>(x0, x1, x2, x3, s0, s1, s2, s3, z0, z1, z2, z3, n);
}

extern "C" __global__ void qd_div_vv(QD_IN(x), QD_IN(y), QD_OUT(z), u64 n) {
    qd_map_vv<QdDiv>(x0, x1, x2, x3, y0, y1, y2, y3, z0, z1, z2, z3, n);
}

extern "C" __global__ void qd_div_vs(QD_IN(x), double s0, double s1, double s2, double s3, QD_OUT(z), u64 n) {
    qd_map_vs<QdDiv>(x0, x1, x2, x3, s0, s1, s2, s3, z0, z1, z2, z3, n);
}

extern "C" __global__ void qd_sqrt_v(QD_IN(x), QD_OUT(z), u64 n) {
    MP_GRID_STRIDE(i, n) {
        Qd r = qd::sqrt(QD_LOAD(x, i));
        QD_STORE(z, i, r);
    }
}
