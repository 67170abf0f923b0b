// RNS BLAS kernels' view of an array (included by blas_level2_rns_gpu.cu and
// blas_fused_rns_gpu.cu): the DeviceMpArray layout and a strided view of it, as the launchers'
// `rns_arg` passes it.

#pragma once

#include "rns.cuh"

// An RNS array of `len` elements (the DeviceMpArray layout) and a strided view of it: element
// (i, j) at off + i*rs + j*cs (a vector uses i only; its stride may be negative).
struct RnsArg {
    u32 *d;
    u8 *sign;
    i64 *exp;
    u64 *eval;
    u8 *cls;
    u64 len;
    i64 off, rs, cs;
};

static __device__ __forceinline__ u64 blas_rns_at(const RnsArg &a, u64 i, u64 j) {
    return (u64)(a.off + (i64)i * a.rs + (i64)j * a.cs);
}

static __device__ __forceinline__ RnsNum blas_rns_get(const RnsArg &a, u64 e) {
    RnsCView v = {a.d, a.sign, a.exp, a.eval, a.cls};
    return rns_load(v, a.len, e);
}

static __device__ __forceinline__ const u32 *blas_rns_res(const RnsArg &a, u32 n, u64 e) { return a.d + e * n; }

static __device__ __forceinline__ void blas_rns_put(const RnsArg &a, u32 n, u64 e, const RnsNum &x, const u32 *res) {
    RnsView v = {a.d, a.sign, a.exp, a.eval, a.cls};
    rns_store(v, a.len, e, x);
    for (u32 j = 0; j < n; j++) a.d[e * n + j] = res[j];
}
