// Shared by the qd_probe_*.cu translation units (see run_qd.sh): the production templates of
// blas_level1_gpu.cu (its text up to the entry points, cut out by run_qd.sh into
// level1_templates.cuh), the variant pass, and host timing. Split into several translation
// units so that nvcc compiles them in parallel (the quad-double steps make each slow).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef PROBE_HAVE_LEVEL1
#include "level1_templates.cuh"
#endif

#define CK(x)                                                                                \
    do {                                                                                     \
        cudaError_t e_ = (x);                                                                \
        if (e_ != cudaSuccess) {                                                             \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

// What every timed launch gets.
struct ProbeArgs {
    VecArg x, y;
    u64 n;
    double *out;
    u64 os;
    double tsml, tbig, ssml, sbig;
    int warmups, reps;
};
// What it reports.
struct ProbeResult {
    int grid, regs;
    float ms;
};

template <class F> inline float median_ms(const ProbeArgs &a, F f) {
    cudaEvent_t s, e;
    CK(cudaEventCreate(&s));
    CK(cudaEventCreate(&e));
    for (int i = 0; i < a.warmups; i++) f();
    CK(cudaDeviceSynchronize());
    std::vector<float> ts;
    for (int i = 0; i < a.reps; i++) {
        CK(cudaEventRecord(s));
        f();
        CK(cudaEventRecord(e));
        CK(cudaEventSynchronize(e));
        float ms;
        CK(cudaEventElapsedTime(&ms, s, e));
        ts.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(ts.begin(), ts.end());
    return ts[ts.size() / 2];
}

template <class K> inline ProbeResult shape_of(K k, int threads) {
    int per = 0, dev = 0, sms = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k, threads, 0));
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    cudaFuncAttributes at;
    CK(cudaFuncGetAttributes(&at, k));
    ProbeResult r;
    r.grid = std::max(per, 1) * sms;
    r.regs = at.numRegs;
    r.ms = 0;
    return r;
}

// The time of one reduction kernel, `variant` picking the kernel (see each unit).
ProbeResult time_prod(int what, int threads, const ProbeArgs &a);
ProbeResult time_vsum(int g, int threads, const ProbeArgs &a);
ProbeResult time_vdot(int g, int threads, const ProbeArgs &a);
ProbeResult time_vnrm2(int g, int threads, const ProbeArgs &a);

#ifdef __CUDACC__
template <class A> MP_DEV A shfl_down_acc(const A &a, unsigned h) {
    A b;
    const double *s = reinterpret_cast<const double *>(&a);
    double *d = reinterpret_cast<double *>(&b);
#pragma unroll
    for (int k = 0; k < (int)(sizeof(A) / sizeof(double)); k++) d[k] = __shfl_down_sync(0xffffffffu, s[k], h);
    return b;
}

// Variant: one warp owns a whole chunk (no block barrier). Thread t steps lanes t, t + 32,
// ..., t + 224, G at a time interleaved (independent chains), then the halving tree:
// h = 128, 64, 32 in registers, h = 16 ... 1 by shuffles. The order of blocked_pass, so the
// same bits. Full chunks only (the probe's n is a multiple of CHUNK).
template <int G, class R> MP_DEV void warp_pass(const R &r, u64 n, double *__restrict__ out, u64 os) {
    const unsigned t = threadIdx.x & 31;
    const u64 warps = (u64)gridDim.x * (blockDim.x >> 5);
    const u64 full = n / CHUNK;
    for (u64 c = (u64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); c < full; c += warps) {
        typename R::Acc acc[8];
#pragma unroll
        for (int q0 = 0; q0 < 8; q0 += G) {
#pragma unroll
            for (int g = 0; g < G; g++) acc[q0 + g] = r.identity();
            // Not unrolled: 8 lanes x 16 quad-double steps inlined take too long to compile.
#pragma unroll 1
            for (int j = 0; j < PER_LANE; j++) {
#pragma unroll
                for (int g = 0; g < G; g++)
                    r.step(acc[q0 + g], c * CHUNK + (u64)j * LANES + (u64)(q0 + g) * 32 + t);
            }
        }
#pragma unroll
        for (int q = 0; q < 4; q++) r.join(acc[q], acc[q + 4]);
#pragma unroll
        for (int q = 0; q < 2; q++) r.join(acc[q], acc[q + 2]);
        r.join(acc[0], acc[1]);
#pragma unroll
        for (unsigned h = 16; h >= 1; h >>= 1) {
            typename R::Acc b = shfl_down_acc(acc[0], h);
            if (t < h) r.join(acc[0], b);
        }
        if (t == 0) R::put(out, os, c, acc[0]);
    }
}
#endif
