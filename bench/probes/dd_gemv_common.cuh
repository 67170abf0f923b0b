// What the double-double gemv N probes (dd_gemv_probe.cu, dd_gemv_bisect.cu) share: the error
// check, the timing (CUDA events, median of 15 after 3 warm-up launches), the random planes and
// cublasDgemv N on the same shape as the yardstick.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#define CK(x)                                                                                       \
    do {                                                                                            \
        cudaError_t e_ = (x);                                                                       \
        if (e_ != cudaSuccess) {                                                                    \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);         \
            return 1;                                                                               \
        }                                                                                           \
    } while (0)

typedef unsigned long long u64;

__global__ void fill(double *p, u64 len, u64 seed, double scale) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < len; i += (u64)gridDim.x * blockDim.x) {
        u64 z = (i + seed) * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        p[i] = scale * ((double)(z >> 11) * 0x1.0p-53 - 0.5);
    }
}

template <class F> static float median_ms(F launch) {
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int w = 0; w < 3; w++) launch();
    std::vector<float> t;
    for (int k = 0; k < 15; k++) {
        cudaEventRecord(e0);
        launch();
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float ms;
        cudaEventElapsedTime(&ms, e0, e1);
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// The probes' data: A (m x n, column-major, lda = m) as a leading and a trailing plane (ah, al:
// uniform in [-1, 1) and 2^-53 times that), x likewise, y for cublasDgemv, a scratch output.
struct DdGemvData {
    u64 m = 16384, n = 8192, len = 16384ull * 8192;
    double *ah, *al, *xh, *xl, *y, *out;
    cudaDeviceProp prop;
    cublasHandle_t h;
};
static int dd_gemv_data(DdGemvData &d) {
    CK(cudaMalloc(&d.ah, d.len * 8));
    CK(cudaMalloc(&d.al, d.len * 8));
    CK(cudaMalloc(&d.xh, d.n * 8));
    CK(cudaMalloc(&d.xl, d.n * 8));
    CK(cudaMalloc(&d.y, d.m * 8));
    CK(cudaMalloc(&d.out, 1ull << 26));
    fill<<<4096, 256>>>(d.ah, d.len, 1, 2.0);
    fill<<<4096, 256>>>(d.al, d.len, 2, 0x1.0p-53);
    fill<<<64, 256>>>(d.xh, d.n, 3, 2.0);
    fill<<<64, 256>>>(d.xl, d.n, 4, 0x1.0p-53);
    fill<<<64, 256>>>(d.y, d.m, 5, 2.0);
    CK(cudaDeviceSynchronize());
    CK(cudaGetDeviceProperties(&d.prop, 0));
    cublasCreate(&d.h);
    return 0;
}
// cublasDgemv N on the leading plane (an f64 A of the same shape), ms.
static float cublas_dgemv_ms(const DdGemvData &d) {
    const double alpha = 1.5, beta = 0.5;
    return median_ms([&] {
        cublasDgemv(d.h, CUBLAS_OP_N, (int)d.m, (int)d.n, &alpha, d.ah, (int)d.m, d.xh, 1, &beta, d.y, 1);
    });
}
