// Probe (session 34; bench/probes/README.md): how short can the fused GEMV's rounding of a row be at 106 bits, for a
// basis of 7 base moduli widened to 9? From a row's sum S (0 < S < M/4, residues in the wide basis) to
// RN_106(S) (its significand's residues in the base basis, its exponent) and an approximation of X/M (the
// evaluation's work: one more CRT pass), by the binary route: CRT coefficients and rank, S's 32-bit limbs,
// the rounding, the residues from the limbs. Checked against the host's big integers. A thread a row
// (`thread`) or a warp a row, the lanes taking the moduli and the limbs (`warp`).
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#define KW 9
#define NB 7
#define NL 10
#define P 106
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); return 1; } } while (0)
typedef uint32_t u32;
typedef uint64_t u64;
struct Tab {
    u32 m[KW], mp[KW], wr[KW], mu[KW];      // moduli, -1/m mod 2^32, w_i 2^32 mod m (Montgomery), floor(2^62/m)>>30
    u32 mi[KW][NL];                         // M_i = M/m_i in limbs
    u32 mm[NL];                             // M in limbs
    u32 p32[NB][4];                         // 2^(32 l) mod m_i, l < 4
    u32 wb[NB];                             // base CRT weights (base basis), Montgomery form
    u32 mbp[NB];
};
__constant__ Tab T;

__device__ __forceinline__ u32 redc(u64 t, u32 m, u32 mp) {
    u32 q = (u32)t * mp;
    u32 r = (u32)((t + (u64)q * m) >> 32);
    return r >= m ? r - m : r;
}
// X mod m_i from X's four limbs (Montgomery forms of 2^(32 q)): each product reduced, the sum below 4 m.
__device__ __forceinline__ u32 limbs_mod(const u32 (&x)[4], int i) {
    const u32 m = T.m[i];
    u64 s = 0;
#pragma unroll
    for (int q = 0; q < 4; q++) s += redc((u64)x[q] * T.p32[i][q], m, T.mp[i]);
    s = s >= 2 * (u64)m ? s - 2 * (u64)m : s;
    return (u32)(s >= m ? s - m : s);
}

// RN_P of S from its limbs (S >= 2^P): X = S / 2^k rounded to nearest, ties to even, in four 32-bit limbs, and
// *kk = k (one more when the rounding carries into 2^P, X then 2^(P-1)).
__device__ __forceinline__ void round_limbs(const u32 (&lim)[NL], u32 (&x)[4], int *kk) {
    int bits = 0;
#pragma unroll
    for (int l = 0; l < NL; l++) if (lim[l]) bits = 32 * l + 32 - __clz(lim[l]);
    const int k = bits - P;  // > 0 for these rows
    const int wk = k >> 5, bk = k & 31;
#pragma unroll
    for (int q = 0; q < 4; q++) {
        u32 lo = 0, hi = 0;
#pragma unroll
        for (int l = 0; l < NL; l++) {
            if (l == wk + q) lo = lim[l];
            if (l == wk + q + 1) hi = lim[l];
        }
        x[q] = bk ? (lo >> bk) | (hi << (32 - bk)) : lo;
    }
    // the round bit and the sticky bits below it
    const int rb = k - 1;
    u32 rlimb = 0, sticky = 0;
#pragma unroll
    for (int l = 0; l < NL; l++) {
        if (l == (rb >> 5)) rlimb = lim[l];
        if (l < (rb >> 5)) sticky |= lim[l];
    }
    const u32 round = (rlimb >> (rb & 31)) & 1;
    sticky |= rlimb & ((1u << (rb & 31)) - 1);
    *kk = k;
    if (round && (sticky || (x[0] & 1))) {
        u64 cy = 1;
#pragma unroll
        for (int q = 0; q < 4; q++) { u64 t = (u64)x[q] + cy; x[q] = (u32)t; cy = t >> 32; }
        if (x[3] >> (P - 96)) { x[0] = x[1] = x[2] = 0; x[3] = 1u << (P - 97); *kk += 1; }
    }
}

// The rounding of one row, by one thread. out: NB residues, exponent shift k (the result is X 2^k), approx X/M.
__device__ void round_thread(const u32 *s, u32 *res, int *kout, double *ev) {
    u32 c[KW];
    u64 frac = 0;
#pragma unroll
    for (int i = 0; i < KW; i++) {
        c[i] = redc((u64)s[i] * T.wr[i], T.m[i], T.mp[i]);
        frac += ((u64)c[i] * T.mu[i]) >> 32;
    }
    const u32 r = (u32)((frac + (1ull << 29)) >> 30);
    // S = sum c_i M_i - r M, limb by limb
    u32 lim[NL];
    long long carry = 0;
#pragma unroll
    for (int l = 0; l < NL; l++) {
        u64 lo = 0, hi = 0;
#pragma unroll
        for (int i = 0; i < KW; i++) {
            const u64 p = (u64)c[i] * T.mi[i][l];
            lo += (u32)p;
            hi += p >> 32;
        }
        const u64 q = (u64)r * T.mm[l];
        long long t = (long long)lo - (long long)(u32)q + carry;
        lim[l] = (u32)t;
        carry = (t >> 32) + (long long)hi - (long long)(q >> 32);
    }
    u32 x[4];
    int kk;
    round_limbs(lim, x, &kk);
    // the significand's residues in the base, and X/M's approximation by one CRT pass over them
    double e = 0;
#pragma unroll
    for (int i = 0; i < NB; i++) {
        const u32 xi = limbs_mod(x, i);
        res[i] = xi;
        const u32 ci = redc((u64)xi * T.wb[i], T.m[i], T.mp[i]);
        e += (double)ci / (double)T.m[i];
    }
    *kout = kk;
    *ev = e - floor(e);
}

__global__ void k_thread(const u32 *__restrict__ s, int rows, u32 *res, int *ks, double *ev) {
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    u32 sv[KW];
#pragma unroll
    for (int i = 0; i < KW; i++) sv[i] = s[(size_t)i * rows + r];
    u32 out[NB];
    round_thread(sv, out, &ks[r], &ev[r]);
#pragma unroll
    for (int i = 0; i < NB; i++) res[(size_t)i * rows + r] = out[i];
}

// A warp a row: lane i < KW its coefficient; rank by a butterfly; lane l < NL its limb's dot product; lane 0
// the carries and the rounding; lanes i < NB the residues; a butterfly for X/M.
__global__ void k_warp(const u32 *__restrict__ s, int rows, u32 *res, int *ks, double *ev) {
    const int r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (r >= rows) return;
    const u32 FULL = 0xffffffffu;
    u32 c = 0;
    u64 frac = 0;
    if (lane < KW) {
        c = redc((u64)s[(size_t)lane * rows + r] * T.wr[lane], T.m[lane], T.mp[lane]);
        frac = ((u64)c * T.mu[lane]) >> 32;
    }
    for (int o = 16; o; o >>= 1) frac += __shfl_xor_sync(FULL, frac, o);
    const u32 rk = (u32)((frac + (1ull << 29)) >> 30);
    u64 lo = 0, hi = 0;
#pragma unroll
    for (int i = 0; i < KW; i++) {
        const u32 ci = __shfl_sync(FULL, c, i);
        if (lane < NL) {
            const u64 p = (u64)ci * T.mi[i][lane];
            lo += (u32)p;
            hi += p >> 32;
        }
    }
    long long part = 0, rest = 0;
    if (lane < NL) {
        const u64 q = (u64)rk * T.mm[lane];
        part = (long long)lo - (long long)(u32)q;
        rest = (long long)hi - (long long)(q >> 32);
    }
    // carries: limb l = low 32 bits of part_l + rest_(l-1) + carry; a short serial chain on the gathered words
    u32 lim[NL];
    long long carry = 0;
#pragma unroll
    for (int l = 0; l < NL; l++) {
        const long long pl = __shfl_sync(FULL, part, l), rl = __shfl_sync(FULL, rest, l);
        const long long t = pl + carry;
        lim[l] = (u32)t;
        carry = (t >> 32) + rl;
    }
    u32 x[4];
    int kk;
    round_limbs(lim, x, &kk);
    double e = 0;
    if (lane < NB) {
        const u32 xi = limbs_mod(x, lane);
        res[(size_t)lane * rows + r] = xi;
        const u32 ci = redc((u64)xi * T.wb[lane], T.m[lane], T.mp[lane]);
        e = (double)ci / (double)T.m[lane];
    }
    for (int o = 16; o; o >>= 1) e += __shfl_xor_sync(FULL, e, o);
    if (lane == 0) { ks[r] = kk; ev[r] = e - floor(e); }
}

// ---- host big integers (u32 limbs, little-endian) ----
typedef std::vector<u32> Big;
static Big mul_small(const Big &a, u32 b) {
    Big r(a.size() + 1, 0); u64 cy = 0;
    for (size_t i = 0; i < a.size(); i++) { u64 t = (u64)a[i] * b + cy; r[i] = (u32)t; cy = t >> 32; }
    r[a.size()] = (u32)cy; while (r.size() > 1 && r.back() == 0) r.pop_back(); return r;
}
static u32 mod_small(const Big &a, u32 m) { u64 r = 0; for (size_t i = a.size(); i-- > 0;) r = ((r << 32) | a[i]) % m; return r; }
static Big div_small(const Big &a, u32 m) {
    Big q(a.size(), 0); u64 r = 0;
    for (size_t i = a.size(); i-- > 0;) { u64 t = (r << 32) | a[i]; q[i] = (u32)(t / m); r = t % m; }
    while (q.size() > 1 && q.back() == 0) q.pop_back(); return q;
}
static u64 powmod(u64 b, u64 e, u64 m) { u64 r = 1; b %= m; while (e) { if (e & 1) r = r * b % m; b = b * b % m; e >>= 1; } return r; }
static bool prime(u32 n) { if (n < 2) return false; for (u32 d = 2; (u64)d * d <= n; d++) if (n % d == 0) return false; return true; }
static int bitlen(const Big &a) { for (size_t i = a.size(); i-- > 0;) if (a[i]) return 32 * (int)i + 32 - __builtin_clz(a[i]); return 0; }
static int getbit(const Big &a, int b) { return b < 0 || (size_t)(b >> 5) >= a.size() ? 0 : (a[b >> 5] >> (b & 31)) & 1; }

int main() {
    Tab t{};
    u32 cand = 2147483647u; int got = 0;
    while (got < KW) { if (prime(cand)) t.m[got++] = cand; cand -= 2; }
    Big M{1};
    for (int i = 0; i < KW; i++) M = mul_small(M, t.m[i]);
    Big MB{1};
    for (int i = 0; i < NB; i++) MB = mul_small(MB, t.m[i]);
    for (int l = 0; l < NL; l++) t.mm[l] = l < (int)M.size() ? M[l] : 0;
    for (int i = 0; i < KW; i++) {
        u32 m = t.m[i];
        u32 inv = 1; for (int k = 0; k < 5; k++) inv *= 2 - m * inv;
        t.mp[i] = 0u - inv;
        Big Mi = div_small(M, m);
        for (int l = 0; l < NL; l++) t.mi[i][l] = l < (int)Mi.size() ? Mi[l] : 0;
        u64 w = powmod(mod_small(Mi, m), m - 2, m);              // M_i^-1 mod m
        t.wr[i] = (u32)((w << 32) % m);                          // Montgomery form: redc(s * wr) = s w mod m
        t.mu[i] = (u32)((1ull << 62) / m);
        if (i < NB) {
            for (int q = 0; q < 4; q++) t.p32[i][q] = (u32)((powmod(2, 32 * q, m) << 32) % m);   // Montgomery form
            Big Mbi = div_small(MB, m);
            u64 wb = powmod(mod_small(Mbi, m), m - 2, m);
            t.wb[i] = (u32)((wb << 32) % m);
        }
    }
    CK(cudaMemcpyToSymbol(T, &t, sizeof t));
    const int rows = 1000;
    std::vector<Big> S(rows);
    std::vector<u32> hs((size_t)KW * rows);
    uint64_t st = 88172645463325252ull;
    auto rnd = [&]() { st ^= st << 13; st ^= st >> 7; st ^= st << 17; return st; };
    for (int r = 0; r < rows; r++) {
        const int b = 150 + (int)(rnd() % 100);                  // 150-249 bits, below M/4 (~2^277)
        Big a((b + 31) / 32, 0);
        for (auto &w : a) w = (u32)rnd();
        if (b % 32) a.back() &= (1u << (b % 32)) - 1;
        a.back() |= 1u << ((b - 1) % 32);
        if (r % 7 == 0) { for (int l = 0; l + 1 < (int)a.size(); l++) a[l] = 0; }   // ties and exact cases
        S[r] = a;
        for (int i = 0; i < KW; i++) hs[(size_t)i * rows + r] = mod_small(a, t.m[i]);
    }
    u32 *ds, *dres; int *dk; double *dev;
    CK(cudaMalloc(&ds, hs.size() * 4)); CK(cudaMalloc(&dres, (size_t)NB * rows * 4));
    CK(cudaMalloc(&dk, rows * 4)); CK(cudaMalloc(&dev, rows * 8));
    CK(cudaMemcpy(ds, hs.data(), hs.size() * 4, cudaMemcpyHostToDevice));
    // the host's rounding: X = RN(S / 2^k), k = bits - P
    auto check = [&](const char *name) {
        std::vector<u32> res((size_t)NB * rows); std::vector<int> ks(rows);
        cudaMemcpy(res.data(), dres, res.size() * 4, cudaMemcpyDeviceToHost);
        cudaMemcpy(ks.data(), dk, rows * 4, cudaMemcpyDeviceToHost);
        int bad = 0;
        for (int r = 0; r < rows; r++) {
            const Big &a = S[r];
            int k = bitlen(a) - P;
            Big x((P + 31) / 32 + 1, 0);
            for (int b = 0; b < P; b++) if (getbit(a, b + k)) x[b >> 5] |= 1u << (b & 31);
            int rbit = getbit(a, k - 1), sticky = 0;
            for (int b = 0; b < k - 1; b++) sticky |= getbit(a, b);
            if (rbit && (sticky || (x[0] & 1))) {
                u64 cy = 1; for (auto &w : x) { u64 tt = (u64)w + cy; w = (u32)tt; cy = tt >> 32; }
                if (getbit(x, P)) { std::fill(x.begin(), x.end(), 0); x[(P - 1) >> 5] = 1u << ((P - 1) & 31); k++; }
            }
            bool ok = ks[r] == k;
            for (int i = 0; i < NB; i++) ok = ok && res[(size_t)i * rows + r] == mod_small(x, t.m[i]);
            bad += !ok;
        }
        printf("%s: %d of %d rows wrong\n", name, bad, rows);
    };
    auto timed = [&](auto f) {
        cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
        for (int w = 0; w < 3; w++) f();
        std::vector<float> v;
        // 20 launches between the events: a launch's time in a stream of them
        for (int k = 0; k < 21; k++) { cudaEventRecord(a); for (int q = 0; q < 20; q++) f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); v.push_back(ms / 20); }
        std::sort(v.begin(), v.end()); return v[v.size() / 2] * 1000.0f;
    };
    for (int bs : {32, 64, 128}) {
        float us = timed([&] { k_thread<<<(rows + bs - 1) / bs, bs>>>(ds, rows, dres, dk, dev); });
        printf("thread a row, blocks of %3d: %.2f us\n", bs, us);
    }
    check("thread");
    cudaMemset(dres, 0, (size_t)NB * rows * 4);
    for (int bs : {64, 128, 256}) {
        float us = timed([&] { k_warp<<<(rows * 32 + bs - 1) / bs, bs>>>(ds, rows, dres, dk, dev); });
        printf("warp a row, blocks of %3d: %.2f us\n", bs, us);
    }
    check("warp");
    {
        // an empty kernel: the launch's own time in this measure
        float us = timed([&] { k_thread<<<1, 32>>>(ds, 0, dres, dk, dev); });
        printf("empty launch: %.2f us\n", us);
    }
    CK(cudaGetLastError());
    return 0;
}
