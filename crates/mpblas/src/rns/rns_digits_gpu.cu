// RNS kernel 2 of the split add/sub/mul (launcher: cuda/rns_digits.rs): the residues of the
// exact result, one thread per residue. Thread t handles residue j = t mod n of element
// i = t / n, so consecutive threads touch consecutive words of the element-by-element digits
// layout (coalesced). What to compute comes from the plan of kernel 1. Bodies in rns.cuh.
//
// Grid-stride loop over the n*L residues in 64-bit indices; every store is guarded by t < nl.

#include "rns.cuh"

#define RNS_GRID_STRIDE(i, n)                                                                     \
    for (u64 i = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; i < (n);                 \
         i += (u64)blockDim.x * (u64)gridDim.x)

// len: number of elements L; nl = n * L residues.
extern "C" __global__ void rns_add_digits(const u32 *__restrict__ tab, const u32 *__restrict__ xd,
                                          const u32 *__restrict__ yd, const u32 *__restrict__ plan,
                                          u32 *__restrict__ zd, u64 len, u64 nl) {
    RnsBasis b = rns_basis(tab);
    RNS_GRID_STRIDE(t, nl) { rns_digits_at(b, len, xd, yd, plan, zd, t); }
}

extern "C" __global__ void rns_mul_digits(const u32 *__restrict__ tab, const u32 *__restrict__ xd,
                                          const u32 *__restrict__ yd, const u32 *__restrict__ plan,
                                          u32 *__restrict__ zd, u64 len, u64 nl) {
    RnsBasis b = rns_basis(tab);
    RNS_GRID_STRIDE(t, nl) { rns_mul_digits_at(b, xd, yd, plan, zd, t); }
}
