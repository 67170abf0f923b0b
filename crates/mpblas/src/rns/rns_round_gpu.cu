// RNS kernel 3 of the split add/sub/mul (launcher: cuda/rns_round.rs): rounding, one thread
// per element. For the elements the plan marks, signs a same-binade difference exactly, then
// rounds the exact result that kernel 2 left in the output digits to p bits (nearest, ties to
// even) with the exact power-of-two scaling, normalises it and writes its interval evaluation.
// Bodies in rns.cuh (`rns_round_at`, `finish`).
//
// Grid-stride loop over 64-bit indices; every store is guarded by i < n.

#include "rns.cuh"

#define RNS_GRID_STRIDE(i, n)                                                                     \
    for (u64 i = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; i < (n);                 \
         i += (u64)blockDim.x * (u64)gridDim.x)

extern "C" __global__ void rns_round_plan(const u32 *__restrict__ tab, u32 *__restrict__ zd,
                                          u8 *__restrict__ zs, i64 *__restrict__ ze,
                                          u64 *__restrict__ zv, u8 *__restrict__ zc,
                                          const u32 *__restrict__ plan, u64 n) {
    RnsView z = {zd, zs, ze, zv, zc};
    RNS_GRID_STRIDE(i, n) { rns_round_at(tab, n, z, plan, i); }
}
