// Probe of the Ozaki-II GPU stages at one size (default n = 8192, N = 15, fast mode, NN): times
// every stage of the production kernels (crates/mpblas/src/cuda/kernels/ozaki.cu) with CUDA
// events (median of 7), the variants of ozaki_v2.cuh against them bit for bit, the whole call
// against DGEMM, and with PROBE_SHAPES=1 the INT8 GEMM at other block shapes.
// Build and run on the GPU machine: see bench/probes/README.md.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cublasLt.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ozaki.cu"
#include "ozaki_v2.cuh"
#include "crt_consts.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)
#define CB(x) do { int s_ = (int)(x); if (s_ != 0) { printf("cuBLAS status %d at %s:%d\n", s_, __FILE__, __LINE__); exit(1); } } while (0)

__device__ u64 mix(u64 z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
__global__ void gen(double *x, u64 n, u64 seed, double phi) {
    OZ_GRID_STRIDE(i, n) {
        u64 a = mix(seed * 0x100000001ULL + 2 * i), b = mix(seed * 0x100000001ULL + 2 * i + 1);
        double u1 = ((a >> 11) + 0.5) * 0x1p-53, u2 = (b >> 11) * 0x1p-53, u3 = (mix(a ^ b) >> 11) * 0x1p-53;
        double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
        x[i] = (u3 - 0.5) * exp(phi * z);
    }
}
__global__ void gen_i8(signed char *x, u64 n, u64 seed) {
    OZ_GRID_STRIDE(i, n) x[i] = (signed char)(mix(seed + i) & 0xff);
}
__global__ void count_diff(const unsigned char *a, const unsigned char *b, u64 n, unsigned long long *cnt) {
    OZ_GRID_STRIDE(i, n) if (a[i] != b[i]) atomicAdd(cnt, 1ULL);
}
__global__ void touch(double *x, u64 n) {  // a memory-bound kernel for the concurrency test
    OZ_GRID_STRIDE(i, n) x[i] = x[i] * 1.0000001 + 1.0;
}

static u64 diff(const void *a, const void *b, u64 bytes) {
    unsigned long long *d, h = 0;
    CK(cudaMalloc(&d, 8));
    CK(cudaMemset(d, 0, 8));
    count_diff<<<4096, 256>>>((const unsigned char *)a, (const unsigned char *)b, bytes, d);
    CK(cudaMemcpy(&h, d, 8, cudaMemcpyDeviceToHost));
    cudaFree(d);
    return h;
}

static float median(std::vector<float> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; }
static int REPS = 7;
static float timeit(cudaStream_t s, const std::function<void()> &f) {
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0); cudaEventCreate(&e1);
    f(); CK(cudaStreamSynchronize(s));
    std::vector<float> t;
    for (int r = 0; r < REPS; ++r) {
        cudaEventRecord(e0, s); f(); cudaEventRecord(e1, s); CK(cudaEventSynchronize(e1));
        float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms);
    }
    cudaEventDestroy(e0); cudaEventDestroy(e1);
    return median(t);
}

static u64 round16(u64 x) { return (x + 15) / 16 * 16; }

int main(int argc, char **argv) {
    u64 n = argc > 1 ? atoll(argv[1]) : 8192;
    bool ncu = argc > 2 && !strcmp(argv[2], "ncu");
    if (ncu) REPS = 1;
    const int nmod = 15;
    u64 m = n, k = n, mp = round16(m), kp = round16(k);
    u64 nb = n > 4096 ? 4096 : n;
    cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
    int sms = prop.multiProcessorCount;
    printf("device %s, %d SMs; n = %llu, N = %d, block %llu columns\n", prop.name, sms, n, nmod, nb);

    double *A, *B, *C1, *C2;
    CK(cudaMalloc(&A, 8 * m * k)); CK(cudaMalloc(&B, 8 * k * n));
    CK(cudaMalloc(&C1, 8 * m * n)); CK(cudaMalloc(&C2, 8 * m * n));
    gen<<<4096, 256>>>(A, m * k, 1, 1.0); gen<<<4096, 256>>>(B, k * n, 2, 1.0);
    u64 *mua, *mub, *sqa, *sqb; int *ea, *eb;
    CK(cudaMalloc(&mua, 8 * m)); CK(cudaMalloc(&mub, 8 * n)); CK(cudaMalloc(&sqa, 8 * m)); CK(cudaMalloc(&sqb, 8 * n));
    CK(cudaMalloc(&ea, 4 * m)); CK(cudaMalloc(&eb, 4 * n));
    signed char *ra, *rb, *ra2, *rb2;
    u64 slab_a = mp * kp, slab_b = n * kp;
    CK(cudaMalloc(&ra, nmod * slab_a)); CK(cudaMalloc(&rb, nmod * slab_b));
    CK(cudaMalloc(&ra2, nmod * slab_a)); CK(cudaMalloc(&rb2, nmod * slab_b));
    u64 slab_p = mp * nb;
    int *prod0, *prod1;
    CK(cudaMalloc(&prod0, 4 * nmod * slab_p)); CK(cudaMalloc(&prod1, 4 * nmod * slab_p));
    cudaStream_t s1, s2; CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking)); CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    int lo_pri, hi_pri; cudaDeviceGetStreamPriorityRange(&lo_pri, &hi_pri);
    cudaStream_t s2hi; CK(cudaStreamCreateWithPriority(&s2hi, cudaStreamNonBlocking, hi_pri));
    cublasHandle_t h; CB(cublasCreate(&h)); CB(cublasSetStream(h, s1));
    CK(cudaDeviceSynchronize());

    // A: op(A) = A, m x k column-major: rows are vectors, contiguous along v.
    // B: op(B) = B, k x n column-major: columns are vectors, contiguous along t.
    auto maxima = [&](cudaStream_t s) {
        cudaMemsetAsync(mua, 0, 8 * m, s); cudaMemsetAsync(mub, 0, 8 * n, s);
        ozaki_vecmax_vcontig<<<dim3((m + 255) / 256, (k + 63) / 64), 256, 0, s>>>(A, m, m, k, mua);
        ozaki_vecmax_tcontig<<<dim3((n + 7) / 8, (k + 1023) / 1024), 256, 0, s>>>(B, k, n, k, mub);
    };
    // Fast mode's statistics (production: ozaki_vecstats_*, one read; replaces maxima + norms).
    u64 nch = (k + 127) / 128;
    u64 *cm, *cs;
    CK(cudaMalloc(&cm, 8 * std::max(m, n) * nch)); CK(cudaMalloc(&cs, 8 * std::max(m, n) * nch));
    auto norms = [&](cudaStream_t s) {
        cudaMemsetAsync(mua, 0, 8 * m, s); cudaMemsetAsync(mub, 0, 8 * n, s);
        ozaki_vecstats_tiled<<<6 * sms, 256, 0, s>>>(A, 1, m, m, k, nch, mua, cm, cs);
        ozaki_vecstats_combine<<<(m + 7) / 8, 256, 0, s>>>(mua, cm, cs, m, nch, sqa);
        ozaki_vecstats_tcontig<<<8 * sms, 256, 0, s>>>(B, k, n, k, nch, mub, cm, cs);
        ozaki_vecstats_combine<<<(n + 7) / 8, 256, 0, s>>>(mub, cm, cs, n, nch, sqb);
        ozaki_exps_make<<<(m + 255) / 256, 256, 0, s>>>(mua, m, FAST_X, nullptr, sqa, ea);
        ozaki_exps_make<<<(n + 255) / 256, 256, 0, s>>>(mub, n, FAST_X, nullptr, sqb, eb);
    };
    auto occ = [&](const void *f) { int o = 0; cudaOccupancyMaxActiveBlocksPerMultiprocessor(&o, f, 256, 0); return o; };
    using ResK = void (*)(const double *, u64, u64, u64, u64, u64, u64, const u64 *, const int *, int, signed char *, u64);
    auto residues_v = [&](cudaStream_t s, ResK f, signed char *oa, signed char *ob) {
        int o = occ((const void *)f);
        f<<<o * sms, 256, 0, s>>>(A, 1, m, m, k, mp, kp, mua, ea, nmod, oa, slab_a);
        f<<<o * sms, 256, 0, s>>>(B, k, 1, n, k, n, kp, mub, eb, nmod, ob, slab_b);
    };
    int occ1 = occ((const void *)ozaki_residues_make);
    auto residues1 = [&](cudaStream_t s) {
        ozaki_residues_make<<<occ1 * sms, 256, 0, s>>>(A, 1, m, m, k, mp, kp, mua, ea, nmod, 0, ra, slab_a);
        ozaki_residues_make<<<occ1 * sms, 256, 0, s>>>(B, k, 1, n, k, n, kp, mub, eb, nmod, 0, rb, slab_b);
    };
    OzCrt crt;
    memcpy(crt.w, CRT_W, sizeof(crt.w)); memcpy(crt.p, CRT_P, sizeof(crt.p));
    crt.p_inv = CRT_PINV; crt.words = CRT_WORDS; crt.nmod = nmod;
    auto gemms = [&](u64 j0, u64 nbt, int *prod) {
        int one = 1, zero = 0;
        for (int l = 0; l < nmod; ++l)
            CB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)mp, (int)nbt, (int)kp, &one, ra + l * slab_a, CUDA_R_8I, (int)kp,
                            rb + l * slab_b + j0 * kp, CUDA_R_8I, (int)kp, &zero, prod + l * slab_p, CUDA_R_32I, (int)mp,
                            CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT));
    };
    auto grid2d = [&](u64 mm, u64 nn, u64 per) {
        u64 gy = std::min<u64>(nn, 65535);
        u64 gx = std::min<u64>((mm + per - 1) / per, std::max<u64>(((u64)sms * 16 + gy - 1) / gy, 1) * 4);
        return dim3((unsigned)std::max<u64>(gx, 1), (unsigned)gy);
    };
    using CrtK = void (*)(const int *, u64, u64, u64, u64, u64, OzCrt, const int *, const int *, const u64 *, const u64 *,
                          double, double, double *, u64, int, double *, double *, const double *, u64, u64, const double *, u64, u64, u64);
    auto crt_v = [&](cudaStream_t s, CrtK f, u64 per, int *prod, u64 j0, u64 nbt, double *C) {
        f<<<grid2d(m, nbt, per), 256, 0, s>>>(prod, mp, slab_p, m, nbt, j0, crt, ea, eb, mua, mub, 1.0, 0.0, C, m, 0,
                                              nullptr, nullptr, A, 1, m, B, k, 1, k);
    };
    auto crt_rows2 = [&](cudaStream_t s, int *prod, u64 j0, u64 nbt, double *C) {
        ozaki_crt_rows2<<<grid2d(m, nbt, 512), 256, 0, s>>>(prod, mp, slab_p, m, nbt, j0, crt, ea, eb, 1.0, C, m);
    };
    if (ncu) {  // one launch of each stage, for the profiler
        maxima(s1); norms(s1); residues1(s1);
        residues_v(s1, ozaki_residues_direct, ra2, rb2);
        gemms(0, nb, prod0);
        crt_v(s1, ozaki_crt_update, 256, prod0, 0, nb, C1);
        crt_rows2(s1, prod0, 0, nb, C2);
        CK(cudaDeviceSynchronize());
        printf("ncu pass done\n");
        return 0;
    }

    float t_max = timeit(s1, [&] { maxima(s1); });
    float t_norm = timeit(s1, [&] { norms(s1); });
    printf("maxima (accurate mode) %.3f ms, fast-mode stats + exps %.3f ms\n", t_max, t_norm);
    double gb_res = (8.0 * (m + n) * k + nmod * (double)(mp + n) * kp) / 1e9;
    float t_res1 = timeit(s1, [&] { residues1(s1); });
    printf("residues %.3f ms (occ %d/SM, %.2f TB/s of %.2f GB)\n", t_res1, occ1, gb_res / t_res1, gb_res);
    {
        int od = occ((const void *)ozaki_residues_direct);
        CK(cudaMemset(rb2, 0x55, nmod * slab_b));
        float tb = timeit(s1, [&] { ozaki_residues_make<<<occ1 * sms, 256, 0, s1>>>(B, k, 1, n, k, n, kp, mub, eb, nmod, 0, rb, slab_b); });
        float td = timeit(s1, [&] { ozaki_residues_direct<<<od * sms, 256, 0, s1>>>(B, k, 1, n, k, n, kp, mub, eb, nmod, rb2, slab_b); });
        CK(cudaDeviceSynchronize());
        printf("residues of B: tiled %.3f ms, direct (no shared memory, occ %d/SM) %.3f ms, differing bytes %llu\n", tb, od, td,
               diff(rb, rb2, nmod * slab_b));
    }
    float t_g = timeit(s1, [&] { gemms(0, nb, prod0); });
    double ops = 2.0 * mp * nb * kp * nmod;
    printf("INT8 GEMMs (cublasGemmEx), %d x %llux%llux%llu: %.3f ms, %.0f TOPS\n", nmod, mp, nb, kp, t_g, ops / t_g / 1e9);

    if (getenv("PROBE_SHAPES")) {
        int one = 1, zero = 0;
        auto shape = [&](const char *what, bool swap, u64 cols) {
            // 15 GEMMs covering cols columns of C (or, swapped, C^T's cols rows); ops per call.
            float t = timeit(s1, [&] {
                for (int l = 0; l < nmod; ++l) {
                    if (!swap)
                        cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)mp, (int)cols, (int)kp, &one, ra + l * slab_a, CUDA_R_8I, (int)kp,
                                     rb + l * slab_b, CUDA_R_8I, (int)kp, &zero, prod0 + l * slab_p, CUDA_R_32I, (int)mp, CUBLAS_COMPUTE_32I,
                                     CUBLAS_GEMM_DEFAULT);
                    else
                        cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, (int)cols, (int)mp, (int)kp, &one, rb + l * slab_b, CUDA_R_8I, (int)kp,
                                     ra + l * slab_a, CUDA_R_8I, (int)kp, &zero, prod0 + l * slab_p, CUDA_R_32I, (int)cols, CUBLAS_COMPUTE_32I,
                                     CUBLAS_GEMM_DEFAULT);
                }
            });
            double o = 2.0 * mp * cols * kp * nmod;
            printf("  GEMM shape %-28s cols %5llu: %.3f ms, %.0f TOPS\n", what, cols, t, o / t / 1e9);
        };
        for (u64 c : {1024ULL, 2048ULL, 4096ULL}) { shape("C block (m x cols)", false, c); shape("C^T block (cols x m)", true, c); }
        if (prod1 && 2 * nb <= n) {
            // full width needs 2x the product buffer: use prod0 and prod1 back to back? only if contiguous; skip
        }
    }
    double gb_crt = (4.0 * nmod * mp * nb + 8.0 * m * nb) / 1e9;
    {
        float t1 = timeit(s1, [&] { crt_v(s1, ozaki_crt_update, 256, prod0, 0, nb, C1); });
        CK(cudaMemset(C2, 0x55, 8 * m * nb));
        float t2 = timeit(s1, [&] { crt_rows2(s1, prod0, 0, nb, C2); });
        CK(cudaDeviceSynchronize());
        printf("CRT block: %.3f ms (%.2f TB/s of %.2f GB), 2 rows per thread %.3f ms; differing bytes %llu\n", t1, gb_crt / t1,
               gb_crt, t2, diff(C1, C2, 8 * m * nb));
    }
    u64 nblk = (n + nb - 1) / nb;
    {
        cudaEvent_t ev[6];
        for (auto &e : ev) cudaEventCreate(&e);
        std::vector<float> st[5];
        for (int r = 0; r < REPS + 1; ++r) {
            cudaEventRecord(ev[0], s1);
            norms(s1);
            cudaEventRecord(ev[1], s1);
            residues1(s1);
            cudaEventRecord(ev[2], s1);
            gemms(0, nb, prod0);
            cudaEventRecord(ev[3], s1);
            crt_v(s1, ozaki_crt_update, 256, prod0, 0, nb, C1);
            cudaEventRecord(ev[4], s1);
            gemms(nb, nb, prod0);
            crt_v(s1, ozaki_crt_update, 256, prod0, nb, nb, C1);
            cudaEventRecord(ev[5], s1);
            CK(cudaEventSynchronize(ev[5]));
            if (r == 0) continue;
            for (int i = 0; i < 5; ++i) { float ms; cudaEventElapsedTime(&ms, ev[i], ev[i + 1]); st[i].push_back(ms); }
        }
        printf("instrumented whole: stats %.3f, residues %.3f, gemms b0 %.3f, crt b0 %.3f, block 1 %.3f ms\n", median(st[0]),
               median(st[1]), median(st[2]), median(st[3]), median(st[4]));
    }
    auto whole = [&] {
        norms(s1);
        residues1(s1);
        for (u64 b = 0; b < nblk; ++b) { gemms(b * nb, nb, prod0); crt_v(s1, ozaki_crt_update, 256, prod0, b * nb, nb, C1); }
    };
    float t_new = timeit(s1, whole);
    double dg = 2.0 * m * n * k;
    float t_d = timeit(s1, [&] {
        double al = 1.0, be = 0.0;
        cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)n, (int)k, &al, A, (int)m, B, (int)k, &be, C2, (int)m);
    });
    printf("whole call %.3f ms (%.1f TFLOP/s)\n", t_new, dg / t_new / 1e9);
    printf("DGEMM %.3f ms, %.1f TFLOP/s; ratio over DGEMM %.3f\n", t_d, dg / t_d / 1e9, t_d / t_new);
    CK(cudaDeviceSynchronize());
    return 0;
}
