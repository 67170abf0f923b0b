// Quad-double element-wise functions exp, ln, sin, cos (launcher: cuda/qd_func.rs).
//
// Structure of arrays (`x0..x3` in, `z0..z3` out), a grid-stride loop over 64-bit indices,
// every load and store guarded by `i < n`; the outputs never alias the inputs. Each element is
// the CPU's `Qd::exp` / `ln` / `sin` / `cos` bit for bit (qd_func.cuh). Names: `qd_<op>_v`.

#include "qd_func.cuh"

typedef unsigned long long u64;

#define MP_GRID_STRIDE(i, n)                                                                      \
    for (u64 i = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; i < (n);                 \
         i += (u64)blockDim.x * (u64)gridDim.x)

struct QdExp { static __device__ __forceinline__ Qd f(const Qd &a) { return qd::exp(a); } };
struct QdLn { static __device__ __forceinline__ Qd f(const Qd &a) { return qd::ln(a); } };
struct QdSin { static __device__ __forceinline__ Qd f(const Qd &a) { return qd::sin(a); } };
struct QdCos { static __device__ __forceinline__ Qd f(const Qd &a) { return qd::cos(a); } };

#define QD_IN const double *__restrict__ x0, const double *__restrict__ x1, \
              const double *__restrict__ x2, const double *__restrict__ x3
#define QD_OUT double *__restrict__ z0, double *__restrict__ z1, double *__restrict__ z2, \
               double *__restrict__ z3

template <class Op>
static __device__ __forceinline__ void qd_map_v(QD_IN, QD_OUT, u64 n) {
    MP_GRID_STRIDE(i, n) {
        Qd r = Op::f(qd_make(x0[i], x1[i], x2[i], x3[i]));
        z0[i] = r.c[0];
        z1[i] = r.c[1];
        z2[i] = r.c[2];
        z3[i] = r.c[3];
    }
}

extern "C" __global__ void qd_exp_v(QD_IN, QD_OUT, u64 n) { qd_map_v<QdExp>(x0, x1, x2, x3, z0, z1, z2, z3, n); }

extern "C" __global__ void qd_ln_v(QD_IN, QD_OUT, u64 n) { qd_map_v<QdLn>(x0, x1, x2, x3, z0, z1, z2, z3, n); }

extern "C" __global__ void qd_sin_v(QD_IN, QD_OUT, u64 n) { qd_map_v<QdSin>(x0, x1, x2, x3, z0, z1, z2, z3, n); }

extern "C" __global__ void qd_cos_v(QD_IN, QD_OUT, u64 n) { qd_map_v<QdCos>(x0, x1, x2, x3, z0, z1, z2, z3, n); }
