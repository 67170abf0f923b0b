// RNS kernel 1 of the split add/sub/mul (launcher: cuda/rns_esi.rs): exponents, signs and
// interval evaluations, one thread per element. Decides special values, the result sign, the
// common exponent and the operands' scalings, and writes the plan (the output array's buffer)
// that kernels 2 (rns_digits.cu) and 3 (rns_round.cu) follow. Bodies in rns.cuh.
//
// Grid-stride loops over 64-bit indices; every store is guarded by i < n. The output arrays
// never alias the inputs (the Rust API takes `&mut out`).

#include "rns.cuh"

#define RNS_GRID_STRIDE(i, n)                                                                     \
    for (u64 i = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; i < (n);                 \
         i += (u64)blockDim.x * (u64)gridDim.x)

#define RNS_ESI_PARAMS                                                                           \
    const u32 *__restrict__ tab, const u8 *__restrict__ xs, const i64 *__restrict__ xe,          \
        const u64 *__restrict__ xv, const u8 *__restrict__ xc, const u8 *__restrict__ ys,        \
        const i64 *__restrict__ ye, const u64 *__restrict__ yv, const u8 *__restrict__ yc,       \
        u8 *__restrict__ zs, i64 *__restrict__ ze, u64 *__restrict__ zv, u8 *__restrict__ zc,    \
        u32 *__restrict__ plan, u64 n

#define RNS_ESI_VIEWS                                                                            \
    RnsCView x = {0, xs, xe, xv, xc};                                                            \
    RnsCView y = {0, ys, ye, yv, yc};                                                            \
    RnsView z = {0, zs, ze, zv, zc};

extern "C" __global__ void rns_add_esi(RNS_ESI_PARAMS) {
    RNS_ESI_VIEWS
    RNS_GRID_STRIDE(i, n) { rns_esi_add_at(tab, n, x, y, z, plan, false, i); }
}

extern "C" __global__ void rns_sub_esi(RNS_ESI_PARAMS) {
    RNS_ESI_VIEWS
    RNS_GRID_STRIDE(i, n) { rns_esi_add_at(tab, n, x, y, z, plan, true, i); }
}

extern "C" __global__ void rns_mul_esi(RNS_ESI_PARAMS) {
    RNS_ESI_VIEWS
    RNS_GRID_STRIDE(i, n) { rns_esi_mul_at(tab, n, x, y, z, plan, i); }
}
