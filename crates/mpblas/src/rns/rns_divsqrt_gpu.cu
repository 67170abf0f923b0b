// RNS division and square root (launcher: cuda/rns_divsqrt.rs), one thread per element,
// correctly rounded (nearest) on the GPU: the binary significands are divided (or square-rooted)
// exactly with their remainder, rounded in binary and converted back to residues. Bodies in
// rns.cuh (`rns_div_at`, `rns_sqrt_at`).
//
// Grid-stride loops over 64-bit indices; every store is guarded by i < n.

#include "rns.cuh"

#define RNS_GRID_STRIDE(i, n)                                                                     \
    for (u64 i = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; i < (n);                 \
         i += (u64)blockDim.x * (u64)gridDim.x)

extern "C" __global__ void rns_div_vv(const u32 *__restrict__ tab, const u32 *__restrict__ xd,
                                      const u8 *__restrict__ xs, const i64 *__restrict__ xe,
                                      const u64 *__restrict__ xv, const u8 *__restrict__ xc,
                                      const u32 *__restrict__ yd, const u8 *__restrict__ ys,
                                      const i64 *__restrict__ ye, const u64 *__restrict__ yv,
                                      const u8 *__restrict__ yc, u32 *__restrict__ zd,
                                      u8 *__restrict__ zs, i64 *__restrict__ ze,
                                      u64 *__restrict__ zv, u8 *__restrict__ zc, u64 n) {
    RnsCView x = {xd, xs, xe, xv, xc};
    RnsCView y = {yd, ys, ye, yv, yc};
    RnsView z = {zd, zs, ze, zv, zc};
    RNS_GRID_STRIDE(i, n) { rns_div_at(tab, n, x, y, z, i); }
}

extern "C" __global__ void rns_sqrt_v(const u32 *__restrict__ tab, const u32 *__restrict__ xd,
                                      const u8 *__restrict__ xs, const i64 *__restrict__ xe,
                                      const u64 *__restrict__ xv, const u8 *__restrict__ xc,
                                      u32 *__restrict__ zd, u8 *__restrict__ zs,
                                      i64 *__restrict__ ze, u64 *__restrict__ zv,
                                      u8 *__restrict__ zc, u64 n) {
    RnsCView x = {xd, xs, xe, xv, xc};
    RnsView z = {zd, zs, ze, zv, zc};
    RNS_GRID_STRIDE(i, n) { rns_sqrt_at(tab, n, x, z, i); }
}
