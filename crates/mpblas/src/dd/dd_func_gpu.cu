// Double-double element-wise functions exp, ln, sin, cos (launcher: cuda/dd_func.rs).
//
// Structure of arrays (`xh`, `xl` in, `zh`, `zl` out), a grid-stride loop over 64-bit indices,
// every load and store guarded by `i < n`; the outputs never alias the inputs. Each element is
// the CPU's `Dd::exp` / `ln` / `sin` / `cos` bit for bit (dd_func.cuh). Names: `dd_<op>_v`.

#include "dd_func.cuh"

typedef unsigned long long u64;

#define MP_GRID_STRIDE(i, n)                                                                      \
    for (u64 i = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; i < (n);                 \
         i += (u64)blockDim.x * (u64)gridDim.x)

struct DdExp { static __device__ __forceinline__ Dd f(Dd a) { return dd::exp(a); } };
struct DdLn { static __device__ __forceinline__ Dd f(Dd a) { return dd::ln(a); } };
struct DdSin { static __device__ __forceinline__ Dd f(Dd a) { return dd::sin(a); } };
struct DdCos { static __device__ __forceinline__ Dd f(Dd a) { return dd::cos(a); } };

template <class Op>
static __device__ __forceinline__ void dd_map_v(const double *__restrict__ xh, const double *__restrict__ xl,
                                                double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    MP_GRID_STRIDE(i, n) {
        Dd r = Op::f(dd_make(xh[i], xl[i]));
        zh[i] = r.hi;
        zl[i] = r.lo;
    }
}

extern "C" __global__ void dd_exp_v(const double *__restrict__ xh, const double *__restrict__ xl,
                                    double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    dd_map_v<DdExp>(xh, xl, zh, zl, n);
}

extern "C" __global__ void dd_ln_v(const double *__restrict__ xh, const double *__restrict__ xl,
                                   double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    dd_map_v<DdLn>(xh, xl, zh, zl, n);
}

extern "C" __global__ void dd_sin_v(const double *__restrict__ xh, const double *__restrict__ xl,
                                    double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    dd_map_v<DdSin>(xh, xl, zh, zl, n);
}

extern "C" __global__ void dd_cos_v(const double *__restrict__ xh, const double *__restrict__ xl,
                                    double *__restrict__ zh, double *__restrict__ zl, u64 n) {
    dd_map_v<DdCos>(xh, xl, zh, zl, n);
}
