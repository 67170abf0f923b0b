// Probe (session 34; bench/probes/README.md): how fast can a lean loop form the fused GEMV's sums at 106 bits
// (7 base moduli) over A stored as today (each element's 7 residues together, an i64 exponent), with the
// row's window known? Per term and modulus: a Montgomery product with d_j's constant, its share of the
// rank, both shifted by the term's s into 64-bit sums. No buckets, no flags, no Q: the floor of the work.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define NB 7
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)
__constant__ uint32_t c_m[NB], c_mp[NB], c_mu[NB];

__device__ __forceinline__ uint32_t redc(uint64_t t, uint32_t m, uint32_t mp) {
    uint32_t q = (uint32_t)t * mp;
    return (uint32_t)((t + (uint64_t)q * m) >> 32);
}

// SOA: residue planes (plane i at i*N); else element-major (e*NB + i). UNR: terms in flight a lane.
template <bool SOA, int UNR>
__global__ void __launch_bounds__(256) sums(const uint32_t *__restrict__ ar, const int64_t *__restrict__ ae,
                                            const uint32_t *__restrict__ dc, const int64_t *__restrict__ de,
                                            const int64_t *__restrict__ rowL, int m, int n, int per,
                                            unsigned long long *out) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    const int groups = (m + 31) / 32, chunks = (n + per - 1) / per;
    if (warp >= groups * chunks) return;
    const int g = warp % groups, ch = warp / groups, r = g * 32 + lane;
    const bool act = r < m;
    const size_t N = (size_t)m * n;
    uint64_t acc[NB + 1];
#pragma unroll
    for (int i = 0; i <= NB; i++) acc[i] = 0;
    const int64_t L = act ? rowL[r] : 0;
    const int j1 = min(n, (ch + 1) * per);
    for (int j = ch * per; j < j1; j += UNR) {
        uint32_t a[UNR][NB], c[UNR][NB];
        int64_t s[UNR];
#pragma unroll
        for (int u = 0; u < UNR; u++) {
            const int jj = min(j + u, j1 - 1);
            const size_t e = (size_t)jj * m + (act ? r : 0);
            s[u] = ae[e] + de[jj] - L;
#pragma unroll
            for (int i = 0; i < NB; i++) {
                a[u][i] = SOA ? ar[i * N + e] : ar[e * NB + i];
                c[u][i] = dc[(size_t)jj * NB + i];
            }
        }
#pragma unroll
        for (int u = 0; u < UNR; u++) {
            if (j + u >= j1 || !act) continue;
            const uint32_t sh = (uint32_t)min(max(s[u], (int64_t)0), (int64_t)19);
            uint32_t frac = 0;
#pragma unroll
            for (int i = 0; i < NB; i++) {
                const uint32_t v = redc((uint64_t)a[u][i] * c[u][i], c_m[i], c_mp[i]);
                acc[i] += (uint64_t)v << sh;
                frac += __umulhi(v, c_mu[i]);
            }
            acc[NB] += (uint64_t)frac << sh;
        }
    }
    if (act)
#pragma unroll
        for (int i = 0; i <= NB; i++) atomicAdd(&out[(size_t)i * m + r], acc[i]);
}

// The same sums with the library's per-term bookkeeping (its g = 1 loop's, fused_terms_each and
// fused_term_step): the classes and signs of a_ij and d_j loaded (two u8 arrays and d's info word), the term's
// word (finite and nonzero, its sign, kept or dropped against L, in the bucket or below it, its weight into Q),
// the signed scale +-2^s into the sums by a signed multiply-add, a_ij = 0 told from the coefficients' OR, a
// vote for a term below the bucket (none in these data), and at the end each sum as two words (low 32 bits and
// the signed rest) plus Q and the flags, as the library's bucket sums are added.
template <int UNR>
__global__ void __launch_bounds__(256) sums_full(const uint32_t *__restrict__ ar, const int64_t *__restrict__ ae,
                                                 const uint8_t *__restrict__ acls, const uint8_t *__restrict__ asgn,
                                                 const uint32_t *__restrict__ dc, const int64_t *__restrict__ de,
                                                 const uint8_t *__restrict__ dinfo, const int64_t *__restrict__ rowL,
                                                 const int64_t *__restrict__ rowTop, int m, int n, int per,
                                                 unsigned long long *out) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    const int groups = (m + 31) / 32, chunks = (n + per - 1) / per;
    if (warp >= groups * chunks) return;
    const int g = warp % groups, ch = warp / groups, r = g * 32 + lane;
    const bool act = r < m;
    int64_t acc[NB + 1];
#pragma unroll
    for (int i = 0; i <= NB; i++) acc[i] = 0;
    const int64_t L = act ? rowL[r] : 0, top = act ? rowTop[r] : 0, base = max(L, top - 2 * 106 - 19);
    uint64_t q = 0;
    bool dropped = false;
    const int j1 = min(n, (ch + 1) * per);
    for (int j = ch * per; j < j1; j += UNR) {
        uint32_t a[UNR][NB], c[UNR][NB], kind[UNR];
        int64_t low[UNR];
#pragma unroll
        for (int u = 0; u < UNR; u++) {
            const int jj = min(j + u, j1 - 1);
            const size_t e = (size_t)jj * m + (act ? r : 0);
            low[u] = ae[e] + de[jj];
            kind[u] = acls[e] | (uint32_t)asgn[e] << 2 | (uint32_t)dinfo[jj] << 8;
#pragma unroll
            for (int i = 0; i < NB; i++) {
                a[u][i] = ar[e * NB + i];
                c[u][i] = dc[(size_t)jj * NB + i];
            }
        }
#pragma unroll
        for (int u = 0; u < UNR; u++) {
            const bool in = act && j + u < j1;
            const uint32_t k = kind[u], dk = k >> 8;
            const bool fin = in && (k & 3) == 0 && (dk & 3) == 0 && !((dk >> 3) & 1);
            const bool neg = ((k >> 2) & 1) != ((dk >> 2) & 1);
            const bool kept = fin && low[u] >= L, alone = kept && low[u] < base;
            const int sh = kept && !alone ? (int)(low[u] - base) : 0;
            const int sp = kept && !alone ? (neg ? -(1 << sh) : (1 << sh)) : 0;
            uint32_t frac = 0, nz = 0;
#pragma unroll
            for (int i = 0; i < NB; i++) {
                const uint32_t t = redc((uint64_t)a[u][i] * c[u][i], c_m[i], c_mp[i]);
                const uint32_t v = min(t, t - c_m[i]);
                acc[i] += (int64_t)(int)v * sp;
                frac += __umulhi(v, c_mu[i]);
                nz |= v;
            }
            acc[NB] += (int64_t)(int)((frac + (1u << 29)) >> 30) * sp;
            const bool live = kept && nz != 0;
            const int64_t delta = top - low[u] - 2 * 106;
            q += live ? 1ull << (delta > 32 ? 0 : 32 - delta) : 0;
            dropped = dropped || (fin && low[u] < L);
            if (__any_sync(0xffffffffu, alone && nz != 0)) acc[0] += 1;  // (the library extends such a term alone)
        }
    }
    if (act) {
#pragma unroll
        for (int i = 0; i <= NB; i++) {
            atomicAdd(&out[(size_t)(2 * i) * m + r], (unsigned long long)(uint32_t)acc[i]);
            atomicAdd(&out[(size_t)(2 * i + 1) * m + r], (unsigned long long)(acc[i] >> 32));
        }
        atomicAdd(&out[(size_t)(2 * NB + 2) * m + r], (unsigned long long)q);
        if (dropped) atomicOr(&out[(size_t)(2 * NB + 3) * m + r], 1ull);
    }
}

// Reads the same words (a term's residues and exponent) and folds them: the memory floor of one pass.
template <bool SOA>
__global__ void touch(const uint32_t *__restrict__ ar, const int64_t *__restrict__ ae, size_t N,
                      unsigned long long *out) {
    uint64_t x = 0;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < N; e += (size_t)gridDim.x * blockDim.x) {
        x ^= (uint64_t)ae[e];
#pragma unroll
        for (int i = 0; i < NB; i++) x += SOA ? ar[i * N + e] : ar[e * NB + i];
    }
    if (x == 42) out[0] = x;
}

template <class F> float timed(F f) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int w = 0; w < 3; w++) f();
    std::vector<float> t;
    // 20 launches between the events: a launch's time in a stream of them (one launch between two
    // events also counts the events' own cost, several microseconds on these machines)
    for (int k = 0; k < 21; k++) {
        cudaEventRecord(a);
        for (int q = 0; q < 20; q++) f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms / 20);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2] * 1000.0f;
}

int main() {
    const int m = 1000, n = 1000;
    const size_t N = (size_t)m * n;
    uint32_t hm[NB], hmp[NB], hmu[NB];
    for (int i = 0; i < NB; i++) {
        hm[i] = 2147483647u - 2 * (uint32_t)i * 1000003u;  // odd moduli below 2^31 (not checked prime: a probe)
        uint32_t inv = 1;
        for (int k = 0; k < 5; k++) inv *= 2 - hm[i] * inv;
        hmp[i] = (uint32_t)(0u - inv);
        hmu[i] = (uint32_t)((1ull << 62) / hm[i]);
    }
    CK(cudaMemcpyToSymbol(c_m, hm, sizeof hm));
    CK(cudaMemcpyToSymbol(c_mp, hmp, sizeof hmp));
    CK(cudaMemcpyToSymbol(c_mu, hmu, sizeof hmu));
    std::vector<uint32_t> a(N * NB), c((size_t)n * NB);
    std::vector<int64_t> ae(N), de(n), L(m, -30);
    uint64_t st = 88172645463325252ull;
    auto rnd = [&]() { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; };
    for (auto &v : a) v = (uint32_t)(rnd() % 2000000000u);
    for (auto &v : c) v = (uint32_t)(rnd() % 2000000000u);
    for (auto &v : ae) { uint64_t z = rnd(); v = -(int64_t)(__builtin_clzll(z | 1) % 20); }
    for (auto &v : de) v = -(int64_t)(rnd() % 4);
    std::vector<uint8_t> acl(N, 0), asg(N), dinf(n);
    std::vector<int64_t> top(m, 212);  // the rows' largest low 0: base -19, the rare low below it alone
    for (auto &v : asg) v = (uint8_t)(rnd() & 1);
    for (auto &v : dinf) v = (uint8_t)((rnd() & 1) << 2);
    uint8_t *dacl, *dasg, *ddinf; int64_t *dtop;
    uint32_t *da; int64_t *dae, *dde, *dL; uint32_t *dc; unsigned long long *dout;
    CK(cudaMalloc(&da, N * NB * 4)); CK(cudaMalloc(&dae, N * 8)); CK(cudaMalloc(&dc, (size_t)n * NB * 4));
    CK(cudaMalloc(&dde, n * 8)); CK(cudaMalloc(&dL, m * 8)); CK(cudaMalloc(&dout, (size_t)m * (2 * NB + 4) * 8));
    CK(cudaMalloc(&dacl, N)); CK(cudaMalloc(&dasg, N)); CK(cudaMalloc(&ddinf, n)); CK(cudaMalloc(&dtop, m * 8));
    CK(cudaMemcpy(dacl, acl.data(), N, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dasg, asg.data(), N, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ddinf, dinf.data(), n, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dtop, top.data(), m * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(da, a.data(), N * NB * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dae, ae.data(), N * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, c.data(), (size_t)n * NB * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dde, de.data(), n * 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dL, L.data(), m * 8, cudaMemcpyHostToDevice));
    const double bytes = N * (NB * 4.0 + 8.0);
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    {
        float us = timed([&] { touch<false><<<1, 32>>>(da, dae, 0, dout); });
        printf("empty launch: %.1f us\n", us);
        us = timed([&] { touch<false><<<sms * 8, 256>>>(da, dae, N, dout); });
        printf("touch AoS: %.1f us (%.0f GB/s for %.0f MB)\n", us, bytes / us / 1e3, bytes / 1e6);
        // the AoS data read as planes (the same bytes, other addresses): the floor of a planar layout
        us = timed([&] { touch<true><<<sms * 8, 256>>>(da, dae, N, dout); });
        printf("touch SoA: %.1f us (%.0f GB/s)\n", us, bytes / us / 1e3);
    }
    for (int per : {4, 8, 16, 32, 63}) {
        const int warps = ((m + 31) / 32) * ((n + per - 1) / per);
        const int blocks = (warps * 32 + 255) / 256;
        auto run = [&](auto k, const char *name) {
            CK(cudaMemset(dout, 0, (size_t)m * (NB + 1) * 8));
            float us = timed([&] { k<<<blocks, 256>>>(da, dae, dc, dde, dL, m, n, per, dout); });
            CK(cudaGetLastError());
            printf("per %2d (%4d warps) %-10s %.1f us (%.0f GB/s)\n", per, warps, name, us, bytes / us / 1e3);
            return 0;
        };
        run(sums<false, 1>, "AoS u1");
        run(sums<false, 2>, "AoS u2");
        run(sums<false, 4>, "AoS u4");
        auto full = [&](auto k, const char *name) {
            CK(cudaMemset(dout, 0, (size_t)m * (2 * NB + 4) * 8));
            float us = timed([&] { k<<<blocks, 256>>>(da, dae, dacl, dasg, dc, dde, ddinf, dL, dtop, m, n, per, dout); });
            CK(cudaGetLastError());
            printf("per %2d (%4d warps) %-10s %.1f us\n", per, warps, name, us);
            return 0;
        };
        full(sums_full<1>, "full u1");
        full(sums_full<2>, "full u2");
        full(sums_full<4>, "full u4");
        run(sums<true, 1>, "SoA u1");
        run(sums<true, 2>, "SoA u2");
        run(sums<true, 4>, "SoA u4");
    }
    return 0;
}
