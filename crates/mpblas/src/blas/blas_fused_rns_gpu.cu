// Fused RNS GEMV on the GPU (launcher: blas_fused_rns_gpu.rs): the device twin of
// rns/accumulate.rs and blas/rns_fused.rs. y_i = RN_p(sum_j a_ij d_j + beta y_i), d = fl(alpha x):
// the sum accumulated exactly in a wider basis of the same moduli (residue by residue, in any
// order, so any launch gives the CPU's bits) and rounded once.
//
// Kernels, in launch order:
//   prep    one warp per x_j: d_j = alpha x_j (rns_mul_fused, the warp's rounding; x_j scaled,
//           no rounding, when alpha = +-2^k) and
//           |d_j w_i R|_m_i for the sums; in the same launch, the accumulators zeroed word by
//           word and each row's starting state from the beta y_i term's class and exponent.
//   scan    min/max of the exponents low = e_a + e_d of each row's finite nonzero terms, and the
//           special values (atomics: min, max and or do not depend on the order).
//   defer   the sums, with the base extension deferred (the section's comment): a group of g
//           lanes per term (lane l holds the base moduli k = l mod g) adds each product's CRT
//           coefficients and rank to its row's bucket, and each unit adds its buckets to the
//           rows' with atomics (integers: the order does not matter). At g >= 4 the group's
//           lanes work out the scalar part of g terms at once, a term each (fused_terms_batched),
//           and a unit's sum of ranks comes once from its sums (fused_unit_rank).
//   finish  one warp per row: the bucket extended to the row's level, the beta y_i term, the
//           row's terms below its bucket (listed by the sums), the rounding in the row's level
//           basis (finish_from by the warp), the bound.
// prep and finish have _bin twins for wide bases of up to 128 moduli, which round from the
// value's binary limbs (fused_round_warp: one pass of products instead of a dozen CRT passes).

#include "rns.cuh"
#include "blas_rns.cuh"

#define FUSED_HDR 64
#define FUSED_FULL 0xffffffffu
#define FUSED_I64_MAX ((i64)0x7fffffffffffffffll)
#define FUSED_I64_MIN (-FUSED_I64_MAX - 1)

// Row flags (scan, main): special terms, signs of zero terms, a dropped term.
#define FUSED_NAN 1u
#define FUSED_PINF 2u
#define FUSED_NINF 4u
#define FUSED_POS 8u
#define FUSED_NONZERO 16u
#define FUSED_DROPPED 32u

// The fused constants (launcher: `fused_tables`): header words 0 n, 1 k (widest level), 2 rows of
// the 2^(32q) table, 3 levels, 4 window W, 5 p, 6 ceil(log2 terms), 7 the base's k_norm; 8..
// level lengths, 20.. level log2 M, 32.. level basis tables (device addresses, two words each),
// 56-57 the bits of c0 = M 2^(-2 k_norm) rounded up (fused_term_word); then m[k], mu[k],
// w[n] (CRT weights of the base), mi[(k - n) n], mm[k - n], 2^(32q) mod m (h rows of k); then
// the Montgomery forms (R = 2^32) of the sums' kernel: mp[k] = -1/m mod R, w R mod m [n]; and
// |M_j|_m_j for the base moduli [n].
struct FusedTab {
    u32 n, k, h, levels, w, p, lg, kn;
    double c0;
    const u32 *m, *mu, *wt, *mi, *mm, *hi, *mp, *wm, *mj, *t;
};

static __device__ __forceinline__ FusedTab fused_tab(const u32 *t) {
    FusedTab f;
    f.n = t[0];
    f.k = t[1];
    f.h = t[2];
    f.levels = t[3];
    f.w = t[4];
    f.p = t[5];
    f.lg = t[6];
    f.kn = t[7];
    f.c0 = __longlong_as_double((long long)(((u64)t[57] << 32) | t[56]));
    f.t = t;
    f.m = t + FUSED_HDR;
    f.mu = f.m + f.k;
    f.wt = f.mu + f.k;
    f.mi = f.wt + f.n;
    f.mm = f.mi + (f.k - f.n) * f.n;
    f.hi = f.mm + (f.k - f.n);
    f.mp = f.hi + f.h * f.k;
    f.wm = f.mp + f.k;
    f.mj = f.wm + f.n;
    return f;
}

// Accumulator::window: the alignment L, the bound 2^ub on the sum and the level holding it.
struct FusedWindow {
    i64 top, l;
    u64 ub;
    u32 level, k;
};

static __device__ FusedWindow fused_window(const FusedTab &f, i64 low_min, i64 low_max) {
    i64 p2 = 2 * (i64)f.p;
    FusedWindow w;
    w.top = low_max + p2;
    i64 cut = w.top - (i64)f.w - p2;
    w.l = low_min > cut ? low_min : cut;
    w.ub = (u64)(w.top - w.l) + f.lg;
    w.level = f.levels - 1;
    for (u32 l = 0; l < f.levels; l++) {
        if ((u64)f.t[20 + l] >= w.ub + 2) {
            w.level = l;
            break;
        }
    }
    w.k = f.t[8 + w.level];
    return w;
}

// Accumulator::weight: q_t = 2^e of a term, e = fused_weight_log2 (0 to 32 for low <= low_max).
static __device__ __forceinline__ u32 fused_weight_log2(const FusedTab &f, i64 top, i64 low) {
    const i64 delta = top - low - 2 * (i64)f.p;
    return (u32)(delta > 32 ? 0 : 32 - delta);
}

static __device__ __forceinline__ u64 fused_weight(const FusedTab &f, i64 top, i64 low) {
    return 1ull << fused_weight_log2(f, top, low);
}

// (hi 2^32 + lo) mod m for hi, lo < 2^62.
static __device__ __forceinline__ u32 fused_join(u64 lo, u64 hi, u32 m, u32 mu) {
    return add_mod(mul_mod(reduce62(hi, m, mu), reduce62(1ull << 32, m, mu), m, mu), reduce62(lo, m, mu), m);
}

// 2^s mod m_k for s below 32 h, from the row 2^(32 q) of `hi` (the fused table's, or its copy in
// shared memory) and a shift: 2^(32 q) mod m < 2^31, times 2^r (r < 32) stays below 2^62.
static __device__ __forceinline__ u32 fused_pow2(const u32 *hi, const u32 *m, const u32 *mu, u32 kw, u64 s, u32 k) {
    return reduce62((u64)hi[(s >> 5) * kw + k] << (s & 31), m[k], mu[k]);
}

// Term::of as flags: the class of a product from its operands' classes, zeroness and sign.
static __device__ __forceinline__ u32 fused_term_flags(u8 acls, bool azero, u8 dcls, bool dzero, bool neg) {
    if (acls == 2 || dcls == 2) return FUSED_NAN;
    if (acls == 1 || dcls == 1) return (azero || dzero) ? FUSED_NAN : (neg ? FUSED_NINF : FUSED_PINF);
    if (azero || dzero) return neg ? 0u : FUSED_POS;
    return FUSED_POS | FUSED_NONZERO;
}

// X 2^kn / M of a finite number from the upper bound f 2^e of its evaluation X/M (ExtF, f in
// [1/2, 1)): a p-bit X times 2^k_norm lies in (M/32, M/4), so the result is a normal double and
// the exponent moves by an integer addition; 0 for X = 0. Relative error below n 2^-59 + 2^-52
// (the evaluation's width n 2^-63 against X 2^k_norm / M > 1/32, and the bound's rounding).
static __device__ __forceinline__ double fused_scaled_eval(double f, i64 e, u32 kn) {
    return f == 0.0 ? 0.0 : __longlong_as_double(__double_as_longlong(f) + ((long long)(e + (i64)kn) << 52));
}

// fused_scaled_eval of element e of a (its evaluation's upper bound: one 16-byte load).
static __device__ __forceinline__ double fused_a_eval(const RnsArg &a, u64 e, u32 kn) {
    const ulonglong2 h = *(const ulonglong2 *)&a.eval[2 * (a.len + e)];
    return fused_scaled_eval(__longlong_as_double((long long)h.x), (i64)h.y, kn);
}

static __device__ __forceinline__ bool fused_is_zero(const RnsArg &a, u64 e) {
    return a.cls[e] == 0 && __longlong_as_double((long long)a.eval[2 * (a.len + e)]) == 0.0;
}

// ---- the rounding by a whole warp ---------------------------------------------------------------
//
// A row's rounding (finish_from) is one long chain in one thread: a dozen CRT passes of n moduli
// each (evaluation, bit length, sign, normalisation) and a power-of-two division (shift_right:
// two products of ~k/32 limbs by n moduli). With a thousand rows, one warp each, the kernels
// wait on that chain. Here the 32 lanes of a warp hold the same number and run finish_from
// together (`FusedWarpWay`, rns.cuh's RnsSerial twin): each CRT pass is split over the lanes by
// modulus and joined by butterfly shuffles, and shift_right's limb dot products and new
// residues are split over the lanes through shared memory; the short steps every lane does
// itself (same values, no divergence). Integer sums only, so every value is the serial one,
// bit for bit.

#define FUSED_WARPS_PER_BLOCK 2

struct FusedWarpScratch {
    // the limbs' rests above bit 32 (fused_limbs_warp)
    u64 dot_hi[RNS_MAX_N + 8];
    u32 low[RNS_MAX_N + 8];
    u32 x[RNS_MAX_N];
    u32 c[RNS_MAX_N];
};

// out[0..n) in every lane from the scratch's x, where each lane wrote its own entries.
static __device__ __forceinline__ void fused_x_to_lanes(const FusedWarpScratch *sh, u32 *out, u32 n) {
    __syncwarp();
    for (u32 i = 0; i < n; i++) out[i] = sh->x[i];
    __syncwarp();
}

// The whole passes from the lanes' parts (crt_pass_part with first = lane, step 32), N of them
// at once: butterfly shuffles, the N reductions interleaved; every lane ends with the wholes.
template <int N>
static __device__ __forceinline__ void fused_pass_sum(Pass (&p)[N]) {
    u64 s_lo[N], s_hi[N];
#pragma unroll
    for (int q = 0; q < N; q++) s_lo[q] = (u64)p[q].s, s_hi[q] = (u64)(p[q].s >> 64);
    for (int o = 16; o > 0; o >>= 1) {
#pragma unroll
        for (int q = 0; q < N; q++) {
            u64 lo2 = __shfl_xor_sync(FUSED_FULL, s_lo[q], o), hi2 = __shfl_xor_sync(FUSED_FULL, s_hi[q], o);
            u64 sum = s_lo[q] + lo2;
            s_hi[q] += hi2 + (sum < s_lo[q] ? 1 : 0);
            s_lo[q] = sum;
            p[q].c += __shfl_xor_sync(FUSED_FULL, p[q].c, o);
            p[q].low += __shfl_xor_sync(FUSED_FULL, p[q].low, o);
        }
    }
#pragma unroll
    for (int q = 0; q < N; q++) p[q].s = ((u128)s_hi[q] << 64) | s_lo[q];
}

// crt_pass_c by the warp: lane l adds the moduli l, l + 32, ... and butterfly shuffles add the
// parts, so every lane ends with the whole pass. The coefficients go to the shared `c` when it is
// not null (read them after a __syncwarp).
static __device__ Pass fused_pass_warp(const RnsBasis &b, const u32 *x, u64 k, u32 *c, u32 lane) {
    Pass p[1] = {crt_pass_part(b, x, k, c, lane, 32)};
    fused_pass_sum(p);
    return p[0];
}

// sum_q v[q] t_r[q ts] for q < count, for R rows t_r at once (they share v's loads), each as two
// sums of 32-bit halves (lo: the products' low words, hi: their high words), with the words loaded
// B (16, or 8 in the finish's rounding) at a time before they are used (ptxas kept about 4 table
// loads in flight), from a base pointer a batch (constant offsets when ts = 1). The one form of the
// prep's and finish's dot products: the rounded residues (fused_long_residue_pair), the limbs
// (fused_limbs_warp) and the extension (fused_extra_residue). Batching the residues' loads gained
// 2-4% (below); batching the limbs' and the extension's too changed nothing measurable (H200, 1000
// x 1000, three rounds alternated: 848 bits N / T 0.189-0.191 / 0.189-0.190 against 0.189-0.192 /
// 0.190-0.195, 1696 bits the same), though session 26's clock put the limbs at 39,000 of the prep's
// 77,000 cycles at 848 bits. Batches of 8 in the finish's rounding (fused_round_warp<8>): its code
// shorter, no spills, the finish 21.1-22.1 -> 18.4-19.5 us at 106 bits, 23.8-24.6 -> 22.4-23.0 at
// 424 (H200 ncu, session 36: the finish waited on instruction fetches, 45% of its stall samples);
// in the prep (which then spilled) and for the finish by CRT passes, batches of 16. The same
// integer sums: no sum can wrap (count < 2^32 products' halves).
template <int R, int B = 16>
static __device__ __forceinline__ void fused_dot_rows(const u32 *v, const u32 *const (&t)[R], u64 ts, u32 count,
                                                      u64 (&lo)[R], u64 (&hi)[R]) {
#pragma unroll
    for (int r = 0; r < R; r++) lo[r] = hi[r] = 0;
    for (u32 q0 = 0; q0 < count; q0 += B) {
        // (a word past count loads nothing and adds 0)
        const u32 *vb = v + q0;
        u32 vw[B], tw[R][B];
#pragma unroll
        for (int q = 0; q < B; q++) vw[q] = q0 + q < count ? vb[q] : 0;
#pragma unroll
        for (int r = 0; r < R; r++) {
            const u32 *tb = t[r] + (u64)q0 * ts;
#pragma unroll
            for (int q = 0; q < B; q++) tw[r][q] = q0 + q < count ? tb[(u64)q * ts] : 0;
        }
#pragma unroll
        for (int r = 0; r < R; r++) {
#pragma unroll
            for (int q = 0; q < B; q++) {
                const u64 p = (u64)vw[q] * (u64)tw[r][q];
                lo[r] += p & 0xffffffffull;
                hi[r] += p >> 32;
            }
        }
    }
}

// fused_dot_rows for one row.
template <int B = 16>
static __device__ __forceinline__ void fused_dot_words(const u32 *v, const u32 *t, u64 ts, u32 count, u64 *lo,
                                                       u64 *hi) {
    const u32 *rows[1] = {t};
    u64 l[1], h[1];
    fused_dot_rows<1, B>(v, rows, ts, count, l, h);
    *lo = l[0];
    *hi = h[0];
}

// The low nl 32-bit limbs of X = sum_i c_i M_i - r M into sh->low (shift_right's limb loop by
// the warp), from the CRT coefficients in sh->c; every lane may read sh->low after it returns.
// A lane takes the limbs l and l + 32 in one loop (fused_dot_rows: the coefficients' loads
// shared, half the waits), each limb's dot product less r |M|'s limb (shift_limb's value before
// its carry), split at bit 32: the low word into sh->low, the signed rest (below 2^41 in
// magnitude: a dot product of at most 256 words) into sh->dot_hi. Lane 0 then carries the rests
// up, an i64 chain instead of shift_limb's i128 one: the same limbs.
template <int B = 16>
static __device__ void fused_limbs_warp(const RnsBasis &b, u128 r, u32 nl, FusedWarpScratch *sh, u32 lane) {
    // (pairs only where some lane has two limbs: below 33 limbs each lane forms its one alone)
    const u32 step = nl > 32 ? 64 : 32;
    for (u32 l = lane; l < nl; l += step) {
        // (a lane without a second limb computes its first twice)
        const bool two = l + 32 < nl;
        u64 lo[2], hi[2];
        if (step == 64) {
            const u32 *rows[2] = {b.mi_bin + (u64)l * b.n, b.mi_bin + (u64)(two ? l + 32 : l) * b.n};
            fused_dot_rows<2, B>(sh->c, rows, 1, b.n, lo, hi);
        } else {
            fused_dot_words<B>(sh->c, b.mi_bin + (u64)l * b.n, 1, b.n, &lo[0], &hi[0]);
        }
#pragma unroll
        for (int q = 0; q < 2; q++) {
            const u32 lq = l + 32 * q;
            if (q == 1 && !two) break;
            const i128 tt = (i128)(((u128)hi[q] << 32) + (u128)lo[q]) - (i128)r * (i128)b.m_bin[lq];
            sh->low[lq] = (u32)tt;
            sh->dot_hi[lq] = (u64)(i64)(tt >> 32);
        }
    }
    __syncwarp();
    if (lane == 0) {
        i64 carry = 0;
        for (u32 l = 0; l < nl; l++) {
            const i64 s = carry + (i64)sh->low[l];
            sh->low[l] = (u32)s;
            carry = (i64)sh->dot_hi[l] + (s >> 32);
        }
    }
    __syncwarp();
}

// shift_long_residue (rns.cuh) for the moduli j and, when `two`, j + 32, from their residues xj of
// X, in one loop where `pair` (fused_dot_rows: the limbs' loads shared). Batching the loads: 848
// bits N 0.205-0.209 -> 0.200-0.201 ms, 1696 bits 0.387-0.391 -> 0.373-0.375 (H200, session 27).
template <int B = 16>
static __device__ __forceinline__ void fused_long_residue_pair(const RnsBasis &b, const u32 (&xj)[2], const u32 *low,
                                                               u64 k, u32 j, bool two, bool pair, u32 (&out)[2]) {
    const u32 wk = (u32)(k / 32), bk = (u32)(k % 32), n = b.n;
    const u32 jj[2] = {j, two ? j + 32 : j};
    const u32 *rows[2] = {b.pow32 + jj[0], b.pow32 + jj[1]};
    u64 al[2], ah[2];
    // (pair: the same for the whole warp, some lane has two moduli; else each forms its one alone)
    if (pair) {
        fused_dot_rows<2, B>(low, rows, n, wk, al, ah);
    } else {
        fused_dot_words<B>(low, rows[0], n, wk, &al[0], &ah[0]);
        al[1] = al[0];
        ah[1] = ah[0];
    }
#pragma unroll
    for (int q = 0; q < 2; q++) {
        if (bk != 0) {
            u64 p = (u64)(low[wk] & ((1u << bk) - 1)) * (u64)b.pow32[(u64)wk * n + jj[q]];
            al[q] += p & 0xffffffffull;
            ah[q] += p >> 32;
        }
        out[q] = shift_residue_from_sums(b, xj[q], al[q], ah[q], k, jj[q]);
    }
}

static __device__ void fused_shift_right_warp(const RnsBasis &b, u32 *x, u64 k, bool *round, bool *sticky, bool *odd,
                                              FusedWarpScratch *sh, u32 lane) {
    *round = *sticky = *odd = false;
    if (k == 0) return;
    const u32 n = b.n;
    if (k <= 63) {
        u64 r = shift_short_bits(b, fused_pass_warp(b, x, 0, 0, lane), k, round, sticky, odd);
        for (u32 i = lane; i < n; i += 32) sh->x[i] = shift_short_residue(b, x[i], r, k, i);
        fused_x_to_lanes(sh, x, n);
        return;
    }
    u32 nl = (u32)((k + 1 + 31) / 32);
    Pass pass = fused_pass_warp(b, x, 0, sh->c, lane);
    __syncwarp();
    i128 v, vh;
    u128 r;
    pass_window(pass, -1, &v, &vh, &r);
    fused_limbs_warp(b, r, nl, sh, lane);
    shift_long_bits(sh->low, k, round, sticky, odd);
    for (u32 j = lane; j < n; j += 64) {
        const bool two = j + 32 < n;
        const u32 xj[2] = {x[j], x[two ? j + 32 : j]};
        u32 y[2];
        fused_long_residue_pair(b, xj, sh->low, k, j, two, n > 32, y);
        sh->x[j] = y[0];
        if (two) sh->x[j + 32] = y[1];
    }
    fused_x_to_lanes(sh, x, n);
}

// The rounding's way for a whole warp (see the section's head).
struct FusedWarpWay {
    FusedWarpScratch *sh;
    u32 lane;
    __device__ Pass pass(const RnsBasis &b, const u32 *x, u64 k) const { return fused_pass_warp(b, x, k, 0, lane); }
    __device__ bool is_zero(const RnsBasis &b, const u32 *x) const {
        bool z = true;
        for (u32 i = lane; i < b.n; i += 32) z = z && x[i] == 0;
        return __all_sync(FUSED_FULL, z);
    }
    __device__ void shift(const RnsBasis &b, u32 *x, u64 k, bool *round, bool *sticky, bool *odd) const {
        fused_shift_right_warp(b, x, k, round, sticky, odd, sh, lane);
    }
    __device__ u32 first() const { return lane; }
    __device__ u32 step() const { return 32; }
};

static __device__ __forceinline__ FusedWarpWay fused_way(FusedWarpScratch *sh, u32 lane) {
    FusedWarpWay w;
    w.sh = sh;
    w.lane = lane;
    return w;
}

// finish_from by the whole warp (every lane with the same s; the result in every lane).
static __device__ RnsNum fused_finish_warp(const RnsBasis &b, const RnsBasis &to, bool neg, u32 *s, i64 exp,
                                           u64 max_bits, FusedWarpScratch *sh, u32 lane) {
    return finish_from_with(b, to, neg, s, exp, RNS_TAIL_ZERO, max_bits, fused_way(sh, lane));
}

// Accumulator::extend's rank from the sum of the CRT coefficients' fixed-point fractions: frac
// lies within 2n units below 2^30 (k + X/M), so adding 2^29 and truncating gives k for any
// X < M/4 (a p-bit significand, or the product of two).
static __device__ __forceinline__ u32 fused_rank(u64 frac) { return (u32)((frac + (1ull << 29)) >> 30); }

// S's CRT coefficients c_i = coefficient(i) into c, by the warp (lane l takes the moduli l,
// l + 32, ...; read c after it returns), and S's rank fused_rank(sum_i c_i / m_i) in every lane
// (mu_i = floor(2^62 / m_i): c_i mu_i / 2^32 is c_i / m_i in units of 2^-30): exact while S < M/4.
template <class Coefficient>
static __device__ __forceinline__ u32 fused_rank_warp(const u32 *mu, u32 n, const Coefficient &coefficient, u32 *c,
                                                      u32 lane) {
    u64 frac = 0;
    for (u32 i = lane; i < n; i += 32) {
        const u32 ci = coefficient(i);
        c[i] = ci;
        frac += __umulhi(ci, mu[i]);
    }
    for (int o = 16; o > 0; o >>= 1) frac += __shfl_xor_sync(FUSED_FULL, frac, o);
    __syncwarp();
    return fused_rank(frac);
}

// fused_rank_warp with the coefficients c_i = |s_i w_i|_m_i (s_i = value(i), moduli m, their mu
// and weights w).
template <class Value>
static __device__ __forceinline__ u32 fused_coefficients_rank_warp(const u32 *m, const u32 *mu, const u32 *w, u32 n,
                                                                   const Value &value, u32 *c, u32 lane) {
    return fused_rank_warp(mu, n, [&](u32 i) { return mul_mod(value(i), w[i], m[i], mu[i]); }, c, lane);
}

// fused_coefficients_rank_warp of S with the residues s in the basis B, into sh->c.
static __device__ u32 fused_crt_rank_warp(const RnsBasis &B, const u32 *s, FusedWarpScratch *sh, u32 lane) {
    return fused_coefficients_rank_warp(B.m, B.mu, B.w, B.n, [&](u32 i) { return s[i]; }, sh->c, lane);
}

// Accumulator::extend's residue for the extra modulus l (nb <= l < k) from the halves' sums lo,
// hi of sum_i v_i |M_i|_m (fused_dot_words) and the rank: sum_i v_i |M_i|_m - rank |M|_m.
static __device__ __forceinline__ u32 fused_extra_join(const FusedTab &f, u64 lo, u64 hi, u32 rank, u32 l) {
    const u32 m = f.m[l], mu = f.mu[l];
    return sub_mod(fused_join(lo, hi, m, mu), mul_mod(rank, f.mm[l - f.n], m, mu), m);
}

// Accumulator::extend's residue for the extra modulus l (nb <= l < k) of the widest level, from
// the element's CRT coefficients v_i = |x_i w_i|_m_i and its rank, the words loaded B at a time
// (1 keeps a rare path's loop short).
template <int B = 16>
static __device__ u32 fused_extra_residue(const FusedTab &f, const u32 *v, u32 rank, u32 l) {
    u64 lo, hi;
    fused_dot_words<B>(v, f.mi + (l - f.n) * f.n, 1, f.n, &lo, &hi);
    return fused_extra_join(f, lo, hi, rank, l);
}

// The residues of a product P = x y of two p-bit significands (P < 2^(2p) < M/4, so that
// Accumulator::extend's rank is exact) in the moduli k < kw of a level, by the warp, into out
// (every lane may read them after it returns): lane t takes the base moduli t, t + 32, ... (P's
// residues, and its CRT coefficients v_i = |P_i w_i|_m_i into the scratch v), then the extra
// ones. The same integers as the CPU's extension, so the same residues.
static __device__ void fused_product_wide_warp(const FusedTab &f, const u32 *xr, const u32 *yr, u32 kw, u32 *out,
                                               u32 *v, u32 lane) {
    const u32 nb = f.n;
    auto product = [&](u32 i) {
        const u32 pi = mul_mod(xr[i], yr[i], f.m[i], f.mu[i]);
        out[i] = pi;
        return pi;
    };
    const u32 rank = fused_coefficients_rank_warp(f.m, f.mu, f.wt, nb, product, v, lane);
    for (u32 l = nb + lane; l < kw; l += 32) out[l] = fused_extra_residue(f, v, rank, l);
    __syncwarp();
}

// ---- the rounding in binary, by a warp --------------------------------------------------------
//
// The rounding above runs a dozen CRT passes (the evaluation, a bit-length search by signs, the
// shift), each a chain of shuffles: with one warp per value, the prep and finish kernels of a
// 1000 x 1000 call at 106 bits ran 3,400 instructions a warp at 14 cycles each (ncu: 24-26 us
// each, 40% of the call). One pass of products gives the value's binary limbs instead: with the
// CRT coefficients c_i = |s_i w_i|_m_i and the rank r = round(sum_i c_i / m_i) (exact while
// |S| < M/4), S = sum_i c_i M_i - r M modulo 2^(32 nl), limb by limb (shift_right's tables: the
// lanes take the limbs' dot products, lane 0 the carries), which gives the sign and the bit
// length at once; the rounded significand's residues then follow from S's as in shift_right
// (the limbs below the cut taken out, times 2^-k; the lanes take the moduli). The value is the
// same (to nearest, ties to even) and the evaluation is normalised_by's, so the bits are the
// same. (One thread per value, the same steps took longer: 5,000-6,000 dependent instructions.)

// RN_p((-1)^neg S 2^exp) by the warp, for S with the residues s[0..B.n) in the basis B (|S| <
// M_B/4; S >= 0 unless `is_signed`, and then (-1)^neg flips for S < 0), into the base basis b,
// whose moduli are B's first b.n; 32 nl bits hold |S| and its sign (32 nl >= log2|S| + 2; for an
// unsigned S, 32 nl >= log2 S). A lane reads only its own moduli's residues of s (i = lane,
// lane + 32, ...), so s may be the scratch's x, where each lane wrote its own: no copy of the
// whole vector in every lane's local memory (at 848 bits 57 words a lane, beside the shared
// memory and the tables in L1; without it the finish ran 848 bits N 0.176-0.180 -> 0.172-0.174
// ms, H200, session 29). The result's residues end in sh->x[0..b.n) (each written by its own
// lane; every lane may read them after it returns), the number in every lane; *is_zero for
// S = 0 (the result is then not formed). DOT: the dot products' batch (fused_dot_rows).
template <int DOT>
static __device__ RnsNum fused_round_warp(const RnsBasis &B, const RnsBasis &b, const u32 *s, bool is_signed, bool neg,
                                          i64 exp, u32 nl, bool *is_zero, FusedWarpScratch *sh, u32 lane) {
    fused_limbs_warp<DOT>(B, fused_crt_rank_warp(B, s, sh, lane), nl, sh, lane);
    u32 flip = 0, bits = 0;
    if (lane == 0) {
        // (S = 0 has a clear top bit)
        flip = is_signed && (sh->low[nl - 1] >> 31) != 0;
        if (flip) {
            // |S| = -S: the two's complement of the limbs
            u32 inc = 1;
            for (u32 l = 0; l < nl; l++) {
                u32 v = ~sh->low[l] + inc;
                inc = (inc && v == 0) ? 1u : 0u;
                sh->low[l] = v;
            }
        }
        for (u32 l = 0; l < nl; l++)
            if (sh->low[l] != 0) bits = 32 * l + 32 - (u32)__clz(sh->low[l]);
    }
    flip = __shfl_sync(FUSED_FULL, flip, 0);
    bits = __shfl_sync(FUSED_FULL, bits, 0);
    __syncwarp();
    *is_zero = bits == 0;
    if (bits == 0) return rns_special(0, false);
    neg = neg != (flip != 0);
    // finish_from's guard against i64 overflow (far beyond the range rule)
    const i64 lim = (i64)1 << 62;
    exp = exp < -lim ? -lim : exp > lim ? lim : exp;
    const u64 p = b.p;
    if (bits <= p) {
        const u64 t = p - bits;
        for (u32 i = lane; i < b.n; i += 32) {
            u32 si = flip ? sub_mod(0, s[i], B.m[i]) : s[i];
            sh->x[i] = t == 0 ? si : mul_mod(si, rns_pow2_at(B, t, i), B.m[i], B.mu[i]);
        }
        exp -= (i64)t;
    } else {
        const u64 k = bits - p;
        bool round, sticky, odd;
        shift_long_bits(sh->low, k, &round, &sticky, &odd);
        const bool up = round && (sticky || odd);
        bool top_reached = true;
        for (u32 i = lane; i < b.n; i += 64) {
            const bool two = i + 32 < b.n;
            const u32 ii[2] = {i, two ? i + 32 : i};
            u32 si[2], yi[2];
#pragma unroll
            for (int q = 0; q < 2; q++) si[q] = flip ? sub_mod(0, s[ii[q]], B.m[ii[q]]) : s[ii[q]];
            fused_long_residue_pair<DOT>(B, si, sh->low, k, i, two, b.n > 32, yi);
#pragma unroll
            for (int q = 0; q < 2; q++) {
                if (q == 1 && !two) break;
                if (up) {
                    yi[q] = add_mod(yi[q], 1, B.m[ii[q]]);
                    top_reached = top_reached && yi[q] == rns_pow2_at(B, p, ii[q]);
                }
                sh->x[ii[q]] = yi[q];
            }
        }
        exp += (i64)k;
        if (__all_sync(FUSED_FULL, up && top_reached)) {
            for (u32 i = lane; i < b.n; i += 32) sh->x[i] = rns_pow2_at(B, p - 1, i);
            exp += 1;
        }
    }
    __syncwarp();
    return normalised_by(fused_way(sh, lane), b, neg, sh->x, exp);
}

// A row's starting flags and exponent range, from the beta y_i term, and its empty list of terms
// below the bucket (the prep's init part).
static __device__ void fused_row_start(const RnsArg &beta, u64 eb, const RnsArg &y, u64 ey, int beta_zero, u64 r,
                                       i64 *low_min, i64 *low_max, u32 *flags, u64 *q, u64 *alone_n) {
    i64 lmin = FUSED_I64_MAX, lmax = FUSED_I64_MIN;
    u32 fl = 0;
    if (!beta_zero) {
        bool neg = (beta.sign[eb] != 0) != (y.sign[ey] != 0);
        fl = fused_term_flags(beta.cls[eb], fused_is_zero(beta, eb), y.cls[ey], fused_is_zero(y, ey), neg);
        if (fl & FUSED_NONZERO) lmin = lmax = beta.exp[eb] + y.exp[ey];
    }
    low_min[r] = lmin;
    low_max[r] = lmax;
    flags[r] = fl;
    q[r] = 0;
    alone_n[r] = 0;
}

// d_j = fl(α x_j) without the rounding when the product is exact in p bits. alpha_odd = m when
// α = ±m 2^e with m odd of t <= 53 bits, any e (the launcher's alpha_odd_significand; 0: none),
// so X_α = m 2^(p - t).
// If x_j's significand X_x (in [2^(p-1), 2^p)) is a multiple of 2^t, as it is for every x_j of
// at most p - 53 significant bits (a double's), S = X_α X_x = m (X_x / 2^t) 2^p, and RN_p(S) =
// S / 2^k exactly with k = p when S >= 2^(2p-1), else p - 1: its residues are S's times 2^-k,
// and the number is normalised as the rounding ends (normalised_by), so it is the rounding's
// result, bit for bit. Neither fact needs X_x's binary limbs:
// - k from x_j's stored evaluation: X_x lies in [lo m_ext[0], hi m_ext[1]] (its bounds on X_x / M
//   times M's, rounded outwards), so q = (m 2^-t)(X_x 2^-(p-1)) lies in [ql, qu] up to one
//   rounding (2^-53) at each end, and q >= 1 when ql >= 1 + 2^-50, q < 1 when qu <= 1 - 2^-50
//   (the window is about n 2^-50 wide: eval_unsigned's lo >= 2^82 units, hi - lo < n 2^32);
// - X_x mod 2^64 from a CRT pass on x_j: pass.low - rank |M|_2^64 (shift_right's short case).
// That pass and the result's evaluation pass (normalised_by's, at k_norm: it needs only k) run in
// one loop with one set of shuffles. Returns false, and the caller rounds, when X_x is not a
// multiple of 2^t or [ql, qu] is within 2^-50 of 1. Each lane forms only its own moduli's
// residues (y[i] for i = lane, lane + 32, ...: the passes and the store read those); on true, *v
// in every lane.
static __device__ bool fused_exact_product_warp(const RnsBasis &b, const u32 *ar, const u32 *xr, const RnsNum &xv,
                                                u64 alpha_odd, bool neg, i64 exp, u32 *y, RnsNum *v,
                                                FusedWarpScratch *sh, u32 lane) {
    const u32 p = b.p;
    const u32 t = alpha_odd == 0 ? 0 : 64 - (u32)__clzll((long long)alpha_odd);
    if (t == 0 || t > 53 || p < 64 || xv.lo.f == 0.0) return false;
    const double am = ldexp((double)alpha_odd, -(int)t);
    const ExtF xl = extf_mul(xv.lo, b.m_ext[0], false), xu = extf_mul(xv.hi, b.m_ext[1], true);
    const double ql = __dmul_rn(am, ldexp(xl.f, (int)(xl.e - (i64)(p - 1))));
    const double qu = __dmul_rn(am, ldexp(xu.f, (int)(xu.e - (i64)(p - 1))));
    const double margin = 8.881784197001252e-16;  // 2^-50
    if (!(ql >= 1.0 + margin) && !(qu <= 1.0 - margin)) return false;
    const u64 k = ql >= 1.0 + margin ? p : p - 1;
    for (u32 i = lane; i < b.n; i += 32)
        y[i] = mul_mod(mul_mod(ar[i], xr[i], b.m[i], b.mu[i]), rns_inv_pow2_at(b, k, i), b.m[i], b.mu[i]);
    Pass pass[2] = {crt_pass_part(b, xr, 0, 0, lane, 32), crt_pass_part(b, y, b.k_norm, 0, lane, 32)};
    fused_pass_sum(pass);
    i128 w, wh;
    u128 rank;
    pass_window(pass[0], -1, &w, &wh, &rank);
    const u64 low64 = pass[0].low - (u64)rank * b.m_low;
    if ((low64 & ((1ull << t) - 1)) != 0) return false;
    const i64 e = exp + (i64)k;
    if (normalised_out_of_range(fused_way(sh, lane), b, neg, y, e, v)) return true;
    *v = rns_special(0, neg);
    v->exp = e;
    eval_bounds(eval_unsigned_from(fused_way(sh, lane), b, y, b.k_norm, pass[1]), &v->lo, &v->hi);
    return true;
}

// Programmatic dependent launch (Device::launch_dependent, sm_90 and later; the launcher's
// overlap_mask picks which): the scan, the sums and the finish may start while the kernel before
// them finishes, run what needs nothing of it (tables into registers or shared memory), then wait
// in fused_wait_previous, which returns once that kernel has completed and its writes are visible
// (at once for a plain launch). Each kernel but the finish lets the next one in from its start
// (fused_allow_next): the next one's blocks then take the SMs as this one's blocks retire,
// instead of after the last of them.
static __device__ __forceinline__ void fused_wait_previous() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
static __device__ __forceinline__ void fused_allow_next() {
#if __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// The first kernel of a call, in two parts by block (64 threads each):
// - blocks below `prep_blocks`: one warp per x_j: d_j = alpha x_j (rns_mul_fused with the warp's
//   rounding) into the scratch array `d` (element j), with info = class | sign << 2 | zero << 3
//   and the exponent beside it for the scan and the sums, and |d_j w_i R|_m_i for the sums (dv,
//   n words per element, the lanes taking the moduli);
// - the others: every row's bucket sums zeroed (a thread per word), then a
//   thread per row i: its starting flags and range from the beta y_i term (its class and
//   exponent).
// BINARY: the rounding of d_j by fused_round_warp, else by fused_finish_warp (the same bits);
// neither when α·x_j is exact (fused_exact_product_warp, alpha_odd).
template <bool BINARY>
static __device__ __forceinline__ void
fused_prep(const u32 *__restrict__ tab, const u32 *__restrict__ ftab, u64 prep_blocks, RnsArg alpha, int alpha_pow2,
           u64 alpha_odd, RnsArg x, u64 n, RnsArg d, u8 *dinfo, i64 *dexp, double *dq, u32 *dv, RnsArg beta, RnsArg y,
           u64 m, int beta_zero, i64 *low_min, i64 *low_max, u32 *flags, u64 *q, u64 *bsum, u64 *alone_n) {
    __shared__ FusedWarpScratch fused_ws[FUSED_WARPS_PER_BLOCK];
    fused_allow_next();
    RnsBasis b = rns_basis(tab);
    FusedTab f = fused_tab(ftab);
    u32 lane = threadIdx.x & 31;
    FusedWarpScratch *sh = &fused_ws[threadIdx.x >> 5];
    if (blockIdx.x >= prep_blocks) {
        const u64 eb = blas_rns_at(beta, 0, 0);
        const u64 first = (u64)(blockIdx.x - prep_blocks) * blockDim.x + threadIdx.x;
        const u64 stride = (u64)(gridDim.x - prep_blocks) * blockDim.x;
        for (u64 t = first; t < (2 * (u64)b.n + 2) * m; t += stride) bsum[t] = 0;
        for (u64 r = first; r < m; r += stride)
            fused_row_start(beta, eb, y, blas_rns_at(y, r, 0), beta_zero, r, low_min, low_max, flags, q, alone_n);
        return;
    }
    const u64 ea = blas_rns_at(alpha, 0, 0);
    RnsNum al = blas_rns_get(alpha, ea);
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5, warps = (prep_blocks * blockDim.x) >> 5;
    for (u64 j = warp; j < n; j += warps) {
        // d_j's residues end in the scratch's x, each written and read by its own lane (i = lane,
        // lane + 32, ...): no copy in every lane's local memory except for the CRT rounding
        u32 *res = sh->x;
        u64 ex = blas_rns_at(x, j, 0);
        RnsNum xv = blas_rns_get(x, ex);
        bool neg = (al.neg != 0) != (xv.neg != 0);
        RnsNum v;
        bool zeros = false;
        if (rns_mul_special(al, xv, neg, &v)) {
            zeros = true;
        } else if (alpha_pow2) {
            // alpha = +-2^k: d_j is x_j's significand with the exponent moved and the sign of
            // the product, the range rule applied (MpFloat::mul_pow2; the CPU's rounding of the
            // product gives exactly that: rns::ops' products_with_powers_of_two_are_exact_scalings)
            const u32 *xr = blas_rns_res(x, b.n, ex);
            for (u32 i = lane; i < b.n; i += 32) res[i] = xr[i];
            const i64 t = xv.exp + al.exp + 2 * (i64)b.p - 1;
            if (t > RNS_EMAX || t < RNS_EMIN) {
                v = rns_special(t > RNS_EMAX ? 1 : 0, neg);
                zeros = true;
            } else {
                v = xv;
                v.neg = (u8)neg;
                v.exp = t - (i64)b.p;
            }
        } else {
            const u32 *ar = blas_rns_res(alpha, b.n, ea), *xr = blas_rns_res(x, b.n, ex);
            if (fused_exact_product_warp(b, ar, xr, xv, alpha_odd, neg, al.exp + xv.exp, res, &v, sh, lane)) {
                // the product is exact in p bits: no rounding
            } else {
                for (u32 i = lane; i < b.n; i += 32) res[i] = mul_mod(ar[i], xr[i], b.m[i], b.mu[i]);
                if (BINARY) {
                    // the product of two p-bit significands is below 2^(2p) (fused_round_warp
                    // reads and rewrites each lane's own moduli of the scratch's x)
                    v = fused_round_warp<16>(b, b, res, false, neg, al.exp + xv.exp, (2 * b.p + 31) / 32, &zeros,
                                             sh, lane);
                    // (finish_from's zero; unreachable for nonzero significands)
                    if (zeros) v = rns_special(0, neg);
                } else {
                    u32 out[RNS_MAX_N];
                    fused_x_to_lanes(sh, out, b.n);
                    v = fused_finish_warp(b, b, neg, out, al.exp + xv.exp, 2 * (u64)b.p, sh, lane);
                    __syncwarp();
                    for (u32 i = lane; i < b.n; i += 32) res[i] = out[i];
                }
            }
        }
        if (lane == 0) {
            bool zero = rns_num_is_zero(v);
            dinfo[j] = (u8)(v.cls | (v.neg << 2) | ((u8)zero << 3));
            dexp[j] = v.exp;
            // X_d 2^-k_norm (fused_term_word's dd): the sums' rank of a unit (fused_unit_rank)
            dq[j] = v.cls == 0 ? __dmul_rn(fused_scaled_eval(v.hi.f, v.hi.e, f.kn), f.c0) : 0.0;
            blas_rns_put(d, 0, j, v, 0);
        }
        for (u32 i = lane; i < b.n; i += 32) {
            const u32 ri = zeros ? 0 : res[i];
            d.d[j * b.n + i] = ri;
            dv[j * b.n + i] = v.cls == 0 ? mul_mod(ri, f.wm[i], b.m[i], b.mu[i]) : 0;
        }
        __syncwarp();
    }
}

#define FUSED_PREP_ARGS                                                                                           \
    const u32 *__restrict__ tab, const u32 *__restrict__ ftab, u64 prep_blocks, RnsArg alpha, int alpha_pow2,     \
        u64 alpha_odd, RnsArg x, u64 n, RnsArg d, u8 *dinfo, i64 *dexp, double *dq, u32 *dv, RnsArg beta,         \
        RnsArg y, u64 m, int beta_zero, i64 *low_min, i64 *low_max, u32 *flags, u64 *q, u64 *bsum, u64 *alone_n

extern "C" __global__ void __launch_bounds__(32 * FUSED_WARPS_PER_BLOCK) blas_fused_prep(FUSED_PREP_ARGS) {
    fused_prep<false>(tab, ftab, prep_blocks, alpha, alpha_pow2, alpha_odd, x, n, d, dinfo, dexp, dq, dv, beta, y, m,
                      beta_zero, low_min, low_max, flags, q, bsum, alone_n);
}

extern "C" __global__ void __launch_bounds__(32 * FUSED_WARPS_PER_BLOCK) blas_fused_prep_bin(FUSED_PREP_ARGS) {
    fused_prep<true>(tab, ftab, prep_blocks, alpha, alpha_pow2, alpha_odd, x, n, d, dinfo, dexp, dq, dv, beta, y, m,
                     beta_zero, low_min, low_max, flags, q, bsum, alone_n);
}

// A term a_ij d_j from a_ij's class and sign (acls, asg) and d_j's info word di (the prep's:
// class | sign << 2 | zero << 3): its sign, and whether both factors are finite and d_j nonzero
// (the sums' terms; a_ij may still be zero).
static __device__ __forceinline__ bool fused_term_neg(u8 asg, u8 di) { return (asg != 0) != ((di >> 2) & 1); }
static __device__ __forceinline__ bool fused_term_finite(u8 acls, u8 di) {
    return (di & 3) == 0 && !((di >> 3) & 1) && acls == 0;
}

// The term (r, c): its flags, and low = e_a + e_d when it is finite and nonzero.
static __device__ __forceinline__ u32 fused_scan_term(const RnsArg &a, const u8 *dinfo, const i64 *dexp, u64 r, u64 c,
                                                      i64 *low) {
    u64 e = blas_rns_at(a, r, c);
    u8 di = dinfo[c];
    bool neg = fused_term_neg(a.sign[e], di);
    u32 fl = fused_term_flags(a.cls[e], fused_is_zero(a, e), di & 3, (di >> 3) & 1, neg);
    *low = a.exp[e] + dexp[c];
    return fl;
}

// A thread's share of a row in the scan: its flags, range, and whether each of its terms had
// two finite factors (fused_scan_finite's test).
struct FusedScanPart {
    u32 fl;
    bool finite;
    i64 lmin, lmax;
};

// Terms per step of the scan: the loads of all of them first (ncu showed the scan waiting on
// each term's loads in turn, 21 of its 29.5 cycles per instruction).
#define FUSED_SCAN_UNROLL 4

// `count` (at most FUSED_SCAN_UNROLL) terms of a row into s: element e0 + u es of A in column
// c0 + u cs. The test for two finite factors only (fused_term_flags' last two cases, the usual
// ones): a term with an infinite or NaN factor clears s.finite, and the caller then scans its
// terms again with fused_scan_exact. Addresses step from the first term's (blas_rns_at once a
// step). The general test and per-term addresses took 118 instructions a term (ncu, 106 bits);
// this form about 56 (its SASS), the scan 14.4-15.1 -> 13.7-14.6 us (H200, session 36). The scan
// waits on its loads (DRAM at 36% of peak, 40% of the warp slots: 64 registers; capped at 40 or
// 48 registers it spills).
static __device__ __forceinline__ void fused_scan_finite(const RnsArg &a, const u8 *__restrict__ dinfo,
                                                         const i64 *__restrict__ dexp, u64 e0, i64 es, u64 c0, u64 cs,
                                                         u32 count, FusedScanPart &s) {
    u8 acls[FUSED_SCAN_UNROLL], asg[FUSED_SCAN_UNROLL], di[FUSED_SCAN_UNROLL];
    i64 ex[FUSED_SCAN_UNROLL], dx[FUSED_SCAN_UNROLL];
    u64 ev[FUSED_SCAN_UNROLL];
#pragma unroll
    for (int u = 0; u < FUSED_SCAN_UNROLL; u++) {
        // (a term past count loads the first one's words and adds nothing)
        const u64 e = (u32)u < count ? e0 + (u64)((i64)u * es) : e0, c = (u32)u < count ? c0 + u * cs : c0;
        acls[u] = a.cls[e];
        asg[u] = a.sign[e];
        ex[u] = a.exp[e];
        ev[u] = a.eval[2 * (a.len + e)];
        di[u] = dinfo[c];
        dx[u] = dexp[c];
    }
#pragma unroll
    for (int u = 0; u < FUSED_SCAN_UNROLL; u++) {
        // (selects, no branch: with a break here ptxas issued each term's loads after the
        // previous term's use)
        const bool use = (u32)u < count;
        // both factors finite; then the term is nonzero when both are (fused_is_zero: an
        // evaluation of +0.0 for a finite zero)
        const bool fin = acls[u] == 0 && (di[u] & 3) == 0;
        const bool nz = __longlong_as_double((long long)ev[u]) != 0.0 && !((di[u] >> 3) & 1);
        const bool neg = fused_term_neg(asg[u], di[u]);
        s.finite = s.finite && (fin || !use);
        s.fl |= use && fin ? (nz ? FUSED_POS | FUSED_NONZERO : neg ? 0u : FUSED_POS) : 0u;
        const i64 low = ex[u] + dx[u];
        const bool in = use && fin && nz;
        s.lmin = in && low < s.lmin ? low : s.lmin;
        s.lmax = in && low > s.lmax ? low : s.lmax;
    }
}

// Every term of row r in the columns c0, c0 + cs, ... below c1 with the general test
// (fused_term_flags): where some term has an infinite or NaN factor.
static __device__ void fused_scan_exact(const RnsArg &a, const u8 *__restrict__ dinfo, const i64 *__restrict__ dexp,
                                        u64 r, u64 c0, u64 cs, u64 c1, FusedScanPart &s) {
    s.fl = 0;
    s.lmin = FUSED_I64_MAX;
    s.lmax = FUSED_I64_MIN;
    for (u64 c = c0; c < c1; c += cs) {
        i64 low;
        const u32 tf = fused_scan_term(a, dinfo, dexp, r, c, &low);
        s.fl |= tf;
        if (tf & FUSED_NONZERO) {
            s.lmin = low < s.lmin ? low : s.lmin;
            s.lmax = low > s.lmax ? low : s.lmax;
        }
    }
}

// Row r's terms in the columns c0, c0 + cs, ... below c1: its flags and range.
static __device__ __forceinline__ FusedScanPart fused_scan_part(const RnsArg &a, const u8 *__restrict__ dinfo,
                                                               const i64 *__restrict__ dexp, u64 r, u64 c0, u64 cs,
                                                               u64 c1) {
    FusedScanPart s{0u, true, FUSED_I64_MAX, FUSED_I64_MIN};
    if (c0 >= c1) return s;
    const u64 count = (c1 - c0 + cs - 1) / cs;
    const i64 es = (i64)cs * a.cs;
    u64 e = blas_rns_at(a, r, c0);
    for (u64 t = 0; t < count; t += FUSED_SCAN_UNROLL) {
        const u64 left = count - t;
        fused_scan_finite(a, dinfo, dexp, e, es, c0 + t * cs, cs,
                          left < FUSED_SCAN_UNROLL ? (u32)left : (u32)FUSED_SCAN_UNROLL, s);
        e += (u64)(FUSED_SCAN_UNROLL * es);
    }
    if (!s.finite) fused_scan_exact(a, dinfo, dexp, r, c0, cs, c1, s);
    return s;
}

// Each row's exponent range and flags. rows_in_lanes (A = op(A) stored by columns, y = A x):
// thread t takes row t mod m and the columns of chunk t / m; else a warp takes a row and a chunk,
// its lanes every 32nd column, and reduces before its atomics.
extern "C" __global__ void __launch_bounds__(256)
blas_fused_scan(RnsArg a, const u8 *__restrict__ dinfo, const i64 *__restrict__ dexp, u64 m, u64 n, int rows_in_lanes,
                u64 per, i64 *low_min, i64 *low_max, u32 *flags) {
    fused_allow_next();
    fused_wait_previous();
    u64 chunks = (n + per - 1) / per;
    u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x, nt = (u64)blockDim.x * gridDim.x;
    if (rows_in_lanes) {
        for (u64 t = tid; t < m * chunks; t += nt) {
            u64 r = t % m, c0 = (t / m) * per, c1 = c0 + per < n ? c0 + per : n;
            const FusedScanPart s = fused_scan_part(a, dinfo, dexp, r, c0, 1, c1);
            if (s.fl & FUSED_NONZERO) {
                atomicMin((long long *)&low_min[r], (long long)s.lmin);
                atomicMax((long long *)&low_max[r], (long long)s.lmax);
            }
            if (s.fl) atomicOr(&flags[r], s.fl);
        }
    } else {
        u64 lane = threadIdx.x & 31, warp = tid >> 5, warps = nt >> 5;
        for (u64 t = warp; t < m * chunks; t += warps) {
            u64 r = t % m, c0 = (t / m) * per, c1 = c0 + per < n ? c0 + per : n;
            const FusedScanPart s = fused_scan_part(a, dinfo, dexp, r, c0 + lane, 32, c1);
            i64 lmin = s.lmin, lmax = s.lmax;
            u32 fl = s.fl;
            for (int off = 16; off > 0; off >>= 1) {
                i64 o1 = __shfl_xor_sync(FUSED_FULL, lmin, off), o2 = __shfl_xor_sync(FUSED_FULL, lmax, off);
                lmin = o1 < lmin ? o1 : lmin;
                lmax = o2 > lmax ? o2 : lmax;
                fl |= __shfl_xor_sync(FUSED_FULL, fl, off);
            }
            if (lane == 0) {
                if (fl & FUSED_NONZERO) {
                    atomicMin((long long *)&low_min[r], (long long)lmin);
                    atomicMax((long long *)&low_max[r], (long long)lmax);
                }
                if (fl) atomicOr(&flags[r], fl);
            }
        }
    }
}

// The same for a row's Q and its dropped flag, over the lanes whose index differs from this
// lane's in the bits from `from` to below `to` (powers of two).
static __device__ __forceinline__ void fused_join_q(u64 &qsum, bool &dropped, u32 from, u32 to) {
    for (u32 off = from; off < to; off <<= 1) {
        qsum += __shfl_xor_sync(FUSED_FULL, qsum, off);
        dropped = __shfl_xor_sync(FUSED_FULL, (int)dropped, off) || dropped;
    }
}

// A row's Q and dropped flag into its records (after fused_join_q, by the row's first lane).
static __device__ __forceinline__ void fused_add_row_q(u64 *q, u32 *flags, u64 r, u64 qsum, bool dropped) {
    if (qsum) atomicAdd((unsigned long long *)&q[r], qsum);
    if (dropped) atomicOr(&flags[r], FUSED_DROPPED);
}

// Sum over the lanes of a group of g lanes (every lane of the warp takes part).
static __device__ __forceinline__ u64 fused_group_sum(u64 v, u32 g) {
    for (u32 off = 1; off < g; off <<= 1) v += __shfl_xor_sync(FUSED_FULL, v, off);
    return v;
}

// Montgomery reduction (R = 2^32, mp = -1/m mod R): t R^-1 mod m, in [0, 2m), for t < m R. The
// sums' inner loop multiplies by constants kept times R (the launcher's tables and d's wide
// residues), so that each modular product is three integer instructions; residues are
// congruences, so the sums are the same integers as the CPU's (Barrett) ones. m goes through a
// move so that the product is u32 by u32: NVVM keeps a slot's modulus (the sums' registers) as a
// 64-bit value, and u m as a 64-bit product then costs an add of its zero high word a slot and
// the uniform registers that hold those zeros (the ring kernels' step 127-135 -> 114-122 SASS
// instructions).
static __device__ __forceinline__ u32 fused_redc(u64 t, u32 m, u32 mp) {
    u32 u = (u32)t * mp, m32;
    asm("mov.b32 %0, %1;" : "=r"(m32) : "r"(m));
    return (u32)((t + (u64)u * m32) >> 32);
}

// ---- the sums with the extension deferred ------------------------------------------------------
//
// Extending each a_ij to the extra moduli of the row's level (n multiply-adds per extra modulus
// and term) and multiplying it by d_j and 2^s in every modulus took about 740 instructions a term
// at 106 bits and 4,100 at 424, bound by the integer multiplier (sessions 13-21's kernels). Here,
// as in the CPU's term_lanes.rs, the product P = a_ij d_j (below 2^(2p) < M/4) is kept in the base only, by its
// CRT coefficients v_i = |a_i d_i w_i|_m_i (one Montgomery product with the prep's |d_i w_i R|)
// and its rank k (P = sum_i v_i M_i - k M over the integers). That identity is linear, so a
// row's bucket sums V_i = sum_t +-v_(t,i) 2^(low_t - base) and K = sum_t +-k_t 2^(low_t - base)
// over its terms with low in [base, low_max], base = max(L, low_max - FUSED_BUCKET + 1): for
// the usual rows nearly every term (one 20 binades below the row's largest is rare). A unit
// adds its lanes' V_i and K to the row's (bsum: two words each, the low 32 bits and the signed
// rest, so that any number of units adds exactly), and the finish extends the row's bucket
// X = sum_i V_i M_i - K M to its level once (fused_bucket_warp). A kept term below base (rare:
// 20 binades or more below the row's largest) is listed for the finish, which extends such
// terms one by one (fused_note_alone, fused_alone_terms_warp). At g >= 4 a unit's K is not
// summed term by term but worked out at its end from its V_i and an approximation of its X/M
// (fused_unit_rank). The residues are the same integers modulo each modulus as the per-term
// extension's, so the same bits.

// Bucket width (binades) and the most terms a lane's bucket takes: |v 2^s| < 2^31 2^19 and
// |k 2^s| < 2^9 2^19 a term, so a unit's V_i and K stay below 2^61 after 2^11 terms.
#define FUSED_BUCKET 20
#define FUSED_BUCKET_TERMS 2048

// Base moduli a lane holds in the sums (the launcher's `SLOTS`).
#define FUSED_SLOTS 8

// Lanes per extra modulus in the finish's extension of a row's bucket (fused_bucket_warp), for nb
// base moduli: the whole warp took the extra moduli one after another, each a chain of shuffles
// and lane 0's tail (1,065 instructions a row at 106 bits, where 8 lanes had work). Groups of 8
// lanes take 4 at once: the finish 25.1-25.5 -> 24.1-25.4 us at 106 bits, 27.1-28.5 -> 26.2-27.8
// at 424; at 1696 bits (nb = 110) the whole warp was 2 us faster (H200 ncu, session 36).
static __device__ __forceinline__ u32 fused_ext_group(u32 nb) { return nb <= 64 ? 8 : 32; }

// A bucket's base exponent: the lowest low it takes.
static __device__ __forceinline__ i64 fused_bucket_base(const FusedTab &f, const FusedWindow &w) {
    const i64 lb = w.top - 2 * (i64)f.p - (FUSED_BUCKET - 1);
    return w.l > lb ? w.l : lb;
}

// |v|_m for |v| < 2^62.
static __device__ __forceinline__ u32 fused_smod(i64 v, u32 m, u32 mu) {
    u32 r = reduce62(v < 0 ? (u64)(-v) : (u64)v, m, mu);
    return v < 0 && r != 0 ? m - r : r;
}

// A row's bucket sums: word pair i (V_i for i < n, then K) at rows 2i and 2i + 1 of bsum, the low
// 32 bits of each unit's sum and the signed rest, so that any number of units adds exactly.
static __device__ __forceinline__ void fused_bucket_add(u64 *bsum, u64 m, u64 r, u32 i, i64 v) {
    atomicAdd((unsigned long long *)&bsum[2 * (u64)i * m + r], (u64)(u32)v);
    atomicAdd((unsigned long long *)&bsum[(2 * (u64)i + 1) * m + r], (u64)(v >> 32));
}

// |V|_m for word pair i of a row's bucket sums: V = hi 2^32 + lo (hi signed).
static __device__ __forceinline__ u32 fused_vmod(const u64 *bsum, u64 m, u64 r, u32 i, u32 mk, u32 muk) {
    const u32 h = fused_smod((i64)bsum[(2 * (u64)i + 1) * m + r], mk, muk);
    return add_mod(mul_mod(h, reduce62(1ull << 32, mk, muk), mk, muk), reduce62(bsum[2 * (u64)i * m + r], mk, muk), mk);
}

// The residues of a row's bucket X = sum_i V_i M_i - K M (pairs 0..n of bsum: V_0.., then K)
// times 2^shift in the moduli k < kw of its level, by the warp, into out (every lane may read
// them after it returns): |X|_m_k = |V_k M_k|_m_k for a base modulus, Accumulator::extend's
// residue with V_i and K for an extra one (a group of fused_ext_group lanes per extra modulus:
// the lanes take the V_i, butterfly shuffles in the group join them).
static __device__ void fused_bucket_warp(const FusedTab &f, const u64 *bsum, u64 m, u64 r, u32 kw, u64 shift, u32 *out,
                                         u32 lane) {
    const u32 nb = f.n;
    for (u32 k = lane; k < nb; k += 32) {
        const u32 mk = f.m[k], muk = f.mu[k];
        const u32 t = mul_mod(fused_vmod(bsum, m, r, k, mk, muk), f.mj[k], mk, muk);
        out[k] = mul_mod(t, fused_pow2(f.hi, f.m, f.mu, f.k, shift, k), mk, muk);
    }
    // the extra moduli, gs lanes each (32 / gs at once): a lane sums every gs-th i, shuffles
    // within the group join the sums
    const u32 gs = fused_ext_group(nb), gl = lane % gs, grp = lane / gs;
    for (u32 e0 = nb; e0 < kw; e0 += 32 / gs) {
        const u32 kl = e0 + grp < kw ? e0 + grp : e0;
        const u32 mk = f.m[kl], muk = f.mu[kl];
        const u32 *row = f.mi + (kl - nb) * nb;
        u64 lo = 0, hi = 0;
        for (u32 i = gl; i < nb; i += gs) {
            u64 p = (u64)fused_vmod(bsum, m, r, i, mk, muk) * row[i];
            lo += p & 0xffffffffull;
            hi += p >> 32;
        }
        for (u32 o = gs / 2; o > 0; o >>= 1) {
            lo += __shfl_xor_sync(FUSED_FULL, lo, o);
            hi += __shfl_xor_sync(FUSED_FULL, hi, o);
        }
        if (gl == 0 && e0 + grp < kw) {
            const u32 val = fused_extra_join(f, lo, hi, fused_vmod(bsum, m, r, nb, mk, muk), kl);
            out[kl] = mul_mod(val, fused_pow2(f.hi, f.m, f.mu, f.k, shift, kl), mk, muk);
        }
    }
    __syncwarp();
}

// A term's scalar part for the sums (act: the term is in the unit and its row active), as a word
// of flags: FUSED_T_ACT for a live term (finite, with a_ij and d_j nonzero: ua = a_ij's
// fused_scaled_eval is 0 exactly for a zero), FUSED_T_NEG its sign, FUSED_T_BELOW when low < L
// (dropped), FUSED_T_ALONE when it is kept below the bucket (the finish adds it:
// fused_alone_terms_warp), and bits 8-15 the exponent of its weight q_t (fused_weight_log2). *sp
// gets the bucket scale +-2^(low - base) for a term in the bucket (low - base < FUSED_BUCKET
// there; the mask keeps the shift defined elsewhere), else 0; *c the term's share of the unit's rank
// (fused_unit_rank): sp P/M ~ sp ua dd, dd = d_j's fused_scaled_eval times c0 (the prep's dq),
// for a term in the bucket, else 0. Selects, no branches.
#define FUSED_T_ACT 1u
#define FUSED_T_BELOW 2u
#define FUSED_T_ALONE 4u
#define FUSED_T_NEG 8u
static __device__ __forceinline__ u32 fused_term_word(const FusedTab &f, const FusedWindow &w, i64 base, bool act,
                                                      u8 di, u8 acls, u8 asg, i64 low, double ua, double dd, int *sp,
                                                      double *c) {
    // (fused_term_finite written out: through the call, ptxas schedules every sums kernel's loop
    // differently, which was not measured)
    const bool ok = act && (di & 3) == 0 && !((di >> 3) & 1) && acls == 0 && ua != 0.0;
    const bool neg = fused_term_neg(asg, di);
    const u32 ew = fused_weight_log2(f, w.top, low);
    const bool below = low < w.l, in_bucket = low >= base;
    const int s = 1 << ((u32)(low - base) & 31);
    *sp = ok && !below && in_bucket ? (neg ? -s : s) : 0;
    *c = *sp != 0 ? __dmul_rn(__dmul_rn(ua, dd), (double)*sp) : 0.0;
    const u32 word = FUSED_T_ACT | (neg ? FUSED_T_NEG : 0) | (below ? FUSED_T_BELOW : 0) |
                     (!below && !in_bucket ? FUSED_T_ALONE : 0) | (ew << 8);
    return ok ? word : 0;
}

// A unit's sums in registers: the slots' constants, the bucket's V_i (vs) and K (kb, set at the
// unit's end: fused_unit_rank), the row's Q and dropped flag and the approximation xs of the
// bucket's X/M, each of the last three over the terms the lane counts (at g >= 4 those whose
// words it worked out, at g <= 2 its group's terms in the group's first lane), and the kept terms
// below the bucket among them (alone_n, the first two's columns alone_c: fused_note_alone). The
// constants are held in registers (read from shared memory each term, 16 slots' cost three
// loads a slot and left no registers: spills, 40 instructions a slot); the shared tables are
// padded with zeros, so a slot past the base has m = 0 and loads no residues: its product and
// v are 0.
template <int NA> struct FusedUnitSums {
    u32 cm[NA], cmu[NA], cmp[NA];
    i64 vs[NA], kb;
    u64 qsum;
    double xs;
    bool dropped;
    u32 alone_n;
    u64 alone_c[2];
};

// A term's word into the lane's Q and dropped flag (on: the lane counts this term).
template <int NA>
static __device__ __forceinline__ void fused_term_count(FusedUnitSums<NA> &s, u32 tw, bool on) {
    const bool live = on && (tw & FUSED_T_ACT);
    s.qsum += live ? 1ull << ((tw >> 8) & 0xff) : 0;
    s.dropped = s.dropped || (live && (tw & FUSED_T_BELOW));
}

// One term into a unit's sums, every lane of the warp together (idle groups carry zeros): the
// group's residues ar (of a_ij) and dr (|d_j w_i R|) in its lanes' slots, the term's word tw and
// scale tsp (fused_term_word). The product's CRT coefficients go into the bucket's V_i (sp = 0
// off the bucket); a kept term below the bucket is left to the finish (fused_note_alone).
// RANKED (g <= 2): the word does not know whether a_ij is zero, and the term's rank goes into K
// here: the coefficients' fixed-point fractions and OR, summed over the group (no butterfly at
// g = 1, one at g = 2), give the rank and a_ij = 0 (the coefficients v_i = |a_i d_i w_i| are all
// zero exactly when P = a_ij d_j = 0: P = sum v_i M_i - k M with |P| < M; d_j is nonzero in a
// word with FUSED_T_ACT, and the slots past the basis have v = 0). Else (g >= 4) the word tells
// a_ij = 0 and the unit's K comes at its end (fused_unit_rank): H200, 1000 x 1000, N / T ms,
// the same run: 424 bits 0.140-0.143 / 0.145-0.146 -> 0.139 / 0.142, 848 bits 0.224 /
// 0.222-0.225 -> 0.223-0.225 / 0.224-0.228, 1696 bits 0.419-0.420 / 0.422-0.427 -> 0.413 /
// 0.415-0.416 (ncu: the loop 30% fewer instructions, 133-145 a lane and term, and
// now waiting on memory: long-scoreboard 3.2 stalls per issue at g = 8). At g <= 2 the 16-byte
// evaluation a term was 5-8% slower (106 bits: 0.070-0.071 -> 0.076-0.077).
// The rare term below the bucket was once extended here, in the loop, by the whole warp: that
// path's presence alone cost the sums 4-15% (H200 ncu, 1000 x 1000 N: g = 1 26.9-28.6 ->
// 23.3-24.6 us, g = 2 45.2-48.4 -> 39.3-40.9, g = 4 79.2-82.9 -> 67.3-68.5, fewer registers and
// no spills at g = 4), though only about 30 of those million terms took it.
template <int NA, int G, bool RANKED>
static __device__ __forceinline__ void fused_term_step(FusedUnitSums<NA> &s, const u32 (&ar)[NA], const u32 (&dr)[NA],
                                                       u32 tw, int sp, u32 gl) {
    u64 frac = 0;
    u32 nz = 0;
#pragma unroll
    for (int i = 0; i < NA; i++) {
        const u32 t = fused_redc((u64)ar[i] * dr[i], s.cm[i], s.cmp[i]), v = rns_min32(t, t - s.cm[i]);
        if (RANKED) frac += __umulhi(v, s.cmu[i]);
        s.vs[i] += (i64)(int)v * (i64)sp;
        if (RANKED) nz |= v;
    }
    if (RANKED) {
        for (u32 off = 1; off < G; off <<= 1) nz |= __shfl_xor_sync(FUSED_FULL, nz, off);
        const bool live = (tw & FUSED_T_ACT) && nz != 0;
        if (live && gl == 0) s.qsum += 1ull << ((tw >> 8) & 0xff);
        s.dropped = s.dropped || (live && (tw & FUSED_T_BELOW));
        s.kb += (i64)(int)fused_rank(fused_group_sum(frac, G)) * (i64)sp;
    }
}

// A kept term below the bucket (FUSED_T_ALONE in its word tw; on: the lane counts the term, at
// column c) noted for the finish, which adds such terms (fused_alone_terms_warp): the lane counts
// them and keeps the first two's columns (selects, no branch in the loop).
template <int NA>
static __device__ __forceinline__ void fused_note_alone(FusedUnitSums<NA> &s, u32 tw, bool on, u64 c) {
    const bool alone = on && (tw & FUSED_T_ALONE);
    s.alone_c[0] = alone && s.alone_n == 0 ? c : s.alone_c[0];
    s.alone_c[1] = alone && s.alone_n == 1 ? c : s.alone_c[1];
    s.alone_n += alone ? 1 : 0;
}

// Each row's list of its kept terms below the bucket for the finish: alone_n[r] counts them (more
// than FUSED_ALONE_LIST, or a lane's unit with more than two: the finish scans the row),
// alone_cols[r L + i] their columns while they fit. A lane's terms of a unit (n of them, the first
// two at columns c) into the list of its row r.
#define FUSED_ALONE_LIST 8
static __device__ __forceinline__ void fused_list_alone(u64 *alone_n, u64 *alone_cols, u64 r, u32 n,
                                                        const u64 (&c)[2]) {
    const u64 add = n <= 2 ? n : FUSED_ALONE_LIST + 1;
    const u64 slot = atomicAdd((unsigned long long *)&alone_n[r], (unsigned long long)add);
    for (u32 i = 0; i < 2; i++)
        if (i < add && slot + i < FUSED_ALONE_LIST) alone_cols[r * FUSED_ALONE_LIST + slot + i] = c[i];
}

// A term's residues in the lane's slots: a_ij's at ap and |d_j w_i R| at dp, slot i at i G;
// zeros for a slot past the basis, or for every slot when `in` is false (nothing is loaded).
// ALL_IN: every lane's slots are in the basis (nb = NA G), no compare a slot (fused_ring_fill's
// FULL leaves the last slot's compare).
template <int NA, int G, bool ALL_IN = false>
static __device__ __forceinline__ void fused_load_slots(const u32 *ap, const u32 *dp, bool in, u32 nb, u32 gl,
                                                        u32 (&ar)[NA], u32 (&dr)[NA]) {
#pragma unroll
    for (int i = 0; i < NA; i++) {
        const bool slot = in && (ALL_IN || gl + i * G < nb);
        ar[i] = slot ? ap[i * G] : 0;
        dr[i] = slot ? dp[i * G] : 0;
    }
}

// A unit's terms, each lane working out its group's term's scalar part itself (g <= 2). With
// the coefficients' OR for a_ij = 0 (no zeroing of the loaded residues), H200 N / T ms: 106
// bits 0.070 / 0.070-0.071 -> 0.068-0.069 / 0.070-0.071, 212 bits 0.096-0.097 / 0.098-0.099
// -> 0.094-0.096 / 0.095-0.096.
template <int NA, int G, bool ALL_IN>
static __device__ __forceinline__ void
fused_terms_each(const FusedTab &f, const RnsArg &a, const u8 *__restrict__ dinfo, const i64 *__restrict__ dexp,
                 const u32 *__restrict__ dv, FusedUnitSums<NA> &s, const FusedWindow &w, i64 base, bool active,
                 u32 gl, u64 r, u64 cstart, u64 cstep, u64 iters, u64 c1) {
    const u32 nb = f.n;
    // the term's element of A, stepped with c (element (0, 0) and column 0 stand in for an idle
    // lane's term)
    const i64 estep = a.cs * (i64)cstep;
    u64 e = active ? blas_rns_at(a, r, cstart) : 0;
    u64 c = cstart;
    for (u64 it = 0; it < iters; it++, c += cstep, e = (u64)((i64)e + estep)) {
        // every load of the term first
        const bool in = active && c < c1;
        const u64 ci = in ? c : 0, ei = in ? e : 0;
        const u8 di = dinfo[ci], acls = a.cls[ei], asg = a.sign[ei];
        const i64 low = a.exp[ei] + dexp[ci];
        u32 ar[NA], dr[NA];
        fused_load_slots<NA, G, ALL_IN>(a.d + ei * nb + gl, dv + ci * nb + gl, true, nb, gl, ar, dr);
        // (ua = 1: the step tells a_ij = 0 from the coefficients; no share of the unit's rank)
        int sp;
        double no_share;
        const u32 tw = fused_term_word(f, w, base, in, di, acls, asg, low, 1.0, 0.0, &sp, &no_share);
        fused_term_step<NA, G, true>(s, ar, dr, tw, sp, gl);
        fused_note_alone(s, tw, gl == 0, c);
    }
}

// A warp's ring of R steps in shared memory (the sums' template argument: FUSED_RING at g >= 8 and
// at g = 4 on rows (g4n), else none): step t's residues of a_ij and of |d_j w_i R| in stage t mod
// R, slot i of lane l at word (2 i) 32 + l (a) and (2 i + 1) 32 + l (d) of the stage (consecutive
// lanes, consecutive banks). When the warp's groups take the same column (shared_d: rows_in_lanes),
// d_j's words are copied once for the warp, a word a lane, and the lanes of every group read them
// where its first group's lanes would hold them ((2 i + 1) 32 + gl): NA G / 32 copies a step for
// d_j instead of NA (H200, N ms: 848 bits 0.228-0.230 -> 0.207-0.209, 1696 bits 0.413-0.414 ->
// 0.392-0.393). Then lanes read words other lanes copied: a __syncwarp after the wait, and one
// after the reads (before the stage is filled again). Else each lane reads back only what it copied
// itself, and cp.async.wait_group orders it (no barrier). Deeper rings, tried with fused_unit_rank
// before shared_d (H200, N ms at 848 / 1696 bits, against 0.222-0.230 / 0.408-0.410 with 4): 5
// stages in blocks of 128 threads 0.228-0.229 / 0.411-0.416; 6 or 8 in blocks of 64 0.27-0.31 /
// 0.43-0.47 (those blocks' shared bytes also let the 2^s tables in, which cut the blocks an SM
// holds); at g = 4, 4 stages 0.155-0.157 and 6 0.21-0.22 against 0.137-0.138 without a ring (each
// lane copying its own d_j words). With them shared, g = 4 on rows gains (g4n, session 37: see
// fused_terms_batched). Copies of 16 bytes where nb is a multiple of 4 (a group's slot is G words
// in a row, so a lane copies NA/4 pieces instead of NA words) were slower: 424 bits sums 56.1-57.3
// -> 61.6-63.1 us, and the same code in every ring kernel 1696 bits 178.9-181.6 -> 190.9-192.8
// (H200 ncu, alternated; patch bench/results/h200/2026-11-29-s37-variant-ring-wide-copies.patch).
#define FUSED_RING 4
#define FUSED_RING_WORDS(NA, R) ((R) * 2 * (NA) * 32)

// A word from global memory to the ring (cp.async; 0 bytes: the source is not read, the word
// is set to zero).
static __device__ __forceinline__ void fused_ring_copy(u32 dst, const u32 *src, u32 bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src), "r"(bytes) : "memory");
}

// Step t's copies into the ring, one commit group: a slot past the basis, or a term off the
// chunk (in false), copies no bytes (source size 0: its address is not read) and fills zeros.
// din: the step's column is in the chunk (d_j's words when shared_d). FULL: every lane's slots
// but the last are in the basis (nb > (NA - 1) G, fused_defer_unit): their copies take the
// step's predicate alone, where each slot's compare with nb cost an instruction a step (ptxas
// holds no predicate a slot across the loop).
template <int NA, int G, int R, bool FULL>
static __device__ __forceinline__ void fused_ring_fill(u32 ring, u32 t, u32 lane, const u32 *ap, const u32 *dp,
                                                       bool in, bool din, bool shared_d, u32 nb, u32 gl) {
    const u32 stage = ring + (t % R) * (2 * NA * 32 * 4), st = stage + lane * 4;
    const u32 bytes = in ? 4 : 0;
#pragma unroll
    for (int i = 0; i < NA; i++) {
        const u32 b = (FULL && i + 1 < NA) || gl + i * G < nb ? bytes : 0;
        fused_ring_copy(st + (2 * i) * 128, ap + i * G, b);
        if (!shared_d) fused_ring_copy(st + (2 * i + 1) * 128, dp + i * G, b);
    }
    if (shared_d) {
        // word k = lane + 32 j of d_j to slot k / G = lane / G + j 32 / G, position k mod G = gl
        // (G divides 32): one address a lane, steps known at compile time
        const u32 *src = dp + (lane / G) * G;
        const u32 dst = stage + ((2 * (lane / G) + 1) * 32 + gl) * 4;
#pragma unroll
        for (u32 j = 0; j < (NA * G + 31) / 32; j++) {
            // (a word past the lanes' NA slots has no place in the stage: a copy of 0 bytes
            // would still write its zeros there)
            if (NA * G % 32 != 0 && lane / G + j * (32 / G) >= NA) continue;
            const u32 bytes = din && lane + 32 * j < nb ? 4 : 0;
            fused_ring_copy(dst + j * (2 * (32 / G) * 32 * 4), src + 32 * j, bytes);
        }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
}

// Step t's residues from the ring (after its group's wait).
template <int NA, int R>
static __device__ __forceinline__ void fused_ring_read(u32 ring, u32 t, u32 lane, u32 gl, bool shared_d, u32 (&ar)[NA],
                                                       u32 (&dr)[NA]) {
    const u32 stage = ring + (t % R) * (2 * NA * 32 * 4), st = stage + lane * 4,
              sd = stage + (shared_d ? gl : lane) * 4;
#pragma unroll
    for (int i = 0; i < NA; i++) {
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(ar[i]) : "r"(st + (2 * i) * 128) : "memory");
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(dr[i]) : "r"(sd + (2 * i + 1) * 128) : "memory");
    }
}

// The scalar part of the term at column c, element e (the next batch's, fused_terms_batched)
// brought to L2 while the batch before runs (prefetch: no register waits on it), then loaded at
// the batch's top. Loads into registers a batch ahead were spilled at 128 registers right after
// their issue, and the spill waited for the data (H200 ncu, 848 bits N: the two STL.64 after the
// 16-byte evaluation load and the exponent's held 10% of the sums' stall samples). H200,
// 1000 x 1000, N / T ms, three runs alternated with the loads a batch ahead: 848 bits
// 0.204-0.211 / 0.219-0.225 -> 0.201-0.203 / 0.219, 1696 bits 0.374-0.380 / 0.402-0.410 ->
// 0.371-0.372 / 0.393-0.395; prefetch.L1 read the same (0.201-0.205 / 0.219-0.222, 0.370-0.374
// / 0.394-0.400).
static __device__ __forceinline__ void fused_term_prefetch(const RnsArg &a, const u8 *dinfo, const i64 *dexp,
                                                           const double *dq, bool in, u64 c, u64 e) {
    if (!in) return;
    const void *p[7] = {dinfo + c, dexp + c, dq + c, a.cls + e, a.sign + e, a.exp + e, a.eval + 2 * (a.len + e)};
#pragma unroll
    for (int i = 0; i < 7; i++) asm volatile("prefetch.global.L2 [%0];" ::"l"(p[i]));
}

// A unit's terms G at a time (g >= 4). Lane gl works out the scalar part of the batch's term gl
// (fused_term_word), once for the group instead of once a lane, a batch ahead (its loads are
// made while the group runs the batch before), and each step reads its term's word with a
// shuffle. The residue pointers step with the term (no index product a term); a term off the
// chunk loads nothing, and one whose class the word rules out adds nothing whatever it loads.
// The loop runs 186-200 SASS instructions a lane and term at g = 4-16, against 274-297 when
// every lane worked out the scalar part (session 23's loop, fused_terms_each's form). H200,
// 1000 x 1000, N / T ms, three runs: 424 bits 0.142-0.145 / 0.146-0.149 -> 0.138-0.142 /
// 0.141-0.145, 848 bits 0.242-0.243 / 0.244 -> 0.233-0.236 / 0.237-0.242, 1696 bits
// 0.461-0.468 / 0.467-0.470 -> 0.431-0.436 / 0.438-0.442. At g = 1 and 2 (106, 212 bits) it
// was 3-4% slower than fused_terms_each: the batch is one or two terms long.
// At g >= 8 the residues come through the warp's ring (cp.async, FUSED_RING - 1 steps ahead;
// blocks of 128 threads, then 4 an SM), so that no register waits on a load: 848 bits ->
// 0.222-0.228 / 0.224-0.225, 1696 bits -> 0.413-0.419 / 0.416-0.421 (ncu: long-scoreboard
// stalls 1.1 and 0.6 per issue, from 5.3 at g = 4 without the ring). At g = 4 (424 bits) the
// ring was slower, N 0.150-0.154 against 0.138-0.142, while each lane copied its own d_j words;
// with the warp's groups on rows sharing them (g4n), faster: N 0.112-0.113 -> 0.104-0.106 ms,
// the sums 62.3-63.7 -> 56.1-57.5 us (H200 ncu, session 37; the plain loop waited on its A
// loads, 50% of its stall samples, with 16 warps an SM and one step's loads in flight).
template <int NA, int G, int R, bool SHARED_D, bool FULL>
static __device__ __forceinline__ void
fused_terms_batched(const FusedTab &f, const RnsArg &a, const u8 *__restrict__ dinfo, const i64 *__restrict__ dexp,
                    const double *__restrict__ dq, const u32 *__restrict__ dv, FusedUnitSums<NA> &s,
                    const FusedWindow &w, i64 base, bool active, u32 gl, u64 r, u64 cstart, u64 cstep, u64 iters,
                    u64 c1, u32 ring) {
    const u32 nb = f.n, lane = threadIdx.x & 31;
    const bool shared_d = SHARED_D;
    const i64 estep = a.cs * (i64)cstep;
    const u64 e0 = active ? blas_rns_at(a, r, cstart) : 0;
    u64 eb = e0 + (u64)((i64)gl * estep), cb = cstart + gl * cstep;
    const u32 *ap = a.d + e0 * nb + gl, *dp = dv + cstart * nb + gl;
    const i64 apstep = estep * (i64)nb;
    const u64 dpstep = cstep * nb;
    // With a ring (R > 0) the residues go through shared memory (fused_ring_fill): step
    // t's are copied R - 1 steps ahead, so that their loads wait on no register.
    const bool via_ring = R > 0;
    const u32 *apf = ap, *dpf = dp;
    u64 cf = cstart;
    if (via_ring) {
#pragma unroll
        for (u32 t = 0; t + 1 < R; t++) {
            fused_ring_fill<NA, G, R, FULL>(ring, t, lane, apf, dpf, active && cf < c1, cf < c1, shared_d, nb,
                                            gl);
            apf += apstep;
            dpf += dpstep;
            cf += cstep;
        }
    }
    fused_term_prefetch(a, dinfo, dexp, dq, active && cb < c1, cb, eb);
    u32 t = 0;
    for (u64 it = 0; it < iters; it += G) {
        int bsp;
        double bc;
        const bool bin = active && cb < c1;
        const u64 ci = bin ? cb : 0, ei = bin ? eb : 0;
        const u32 bw = fused_term_word(f, w, base, bin, dinfo[ci], a.cls[ei], a.sign[ei], a.exp[ei] + dexp[ci],
                                       fused_a_eval(a, ei, f.kn), dq[ci], &bsp, &bc);
        // the lane counts the term whose word it worked out (a term past the unit has word 0)
        fused_term_count(s, bw, true);
        fused_note_alone(s, bw, true, cb);
        s.xs += bc;
        eb = (u64)((i64)eb + (i64)G * estep);
        cb += G * cstep;
        fused_term_prefetch(a, dinfo, dexp, dq, active && cb < c1, cb, eb);
        const u32 steps = iters - it < G ? (u32)(iters - it) : G;
        for (u32 st = 0; st < steps; st++, t++, ap += apstep, dp += dpstep) {
            u32 ar[NA], dr[NA];
            if (via_ring) {
                fused_ring_fill<NA, G, R, FULL>(ring, t + R - 1, lane, apf, dpf, active && cf < c1, cf < c1,
                                                shared_d, nb, gl);
                apf += apstep;
                dpf += dpstep;
                asm volatile("cp.async.wait_group %0;" ::"n"(R > 0 ? R - 1 : 0) : "memory");
                if (shared_d) __syncwarp();
                fused_ring_read<NA, R>(ring, t, lane, gl, shared_d, ar, dr);
                if (shared_d) __syncwarp();
            } else {
                // the loads first: they do not wait on the shuffles (a term off the chunk loads
                // nothing; cf is this step's column here)
                fused_load_slots<NA, G>(ap, dp, active && cf < c1, nb, gl, ar, dr);
            }
            cf += cstep;
            const u32 tw = __shfl_sync(FUSED_FULL, bw, st, G);
            const int tsp = __shfl_sync(FUSED_FULL, bsp, st, G);
            fused_term_step<NA, G, false>(s, ar, dr, tw, tsp, gl);
        }
    }
    if (via_ring) asm volatile("cp.async.wait_group 0;" ::: "memory");
}

// The bucket's K = sum_t sp_t k_t of a unit without the terms' ranks k_t. With
// V_i = sum_t sp_t v_(t,i) and sum_i v_(t,i)/m_i = k_t + P_t/M (v in [0, m), P_t/M in [0, 1/4)),
// F = sum_i V_i/m_i = K + X/M, X = sum_t sp_t P_t the bucket's sum; K is F - X/M rounded to
// nearest once each is known to within 1/4:
// - F: V_i = q_i m_i + r_i exactly, q_i = floor(V_i/m_i) and r_i in [0, m_i), F = sum q_i +
//   sum r_i/m_i. 1/m_i to within 2^-50: the float reciprocal (rcp.approx: about an ulp, 2^-23,
//   and m_i's rounding to float another) and two Newton steps in double, each squaring the
//   error (so that even a float reciprocal off by 2^-12 would give 2^-48). |V_i| < 2^61 and
//   m_i > 2^30, so V_i/m_i < 2^31 and V_i times it is within 2^-17 of the quotient: its floor is
//   q_i or one off, and r_i's sign or size tells which (the fix-up moves q_i by one and r_i by
//   m_i). The fractions r_i/m_i in double: error below n 2^-49 + n^2 2^-53. Two double
//   divisions a slot and a Barrett remainder had been 9% of the samples at 424 bits (H200 ncu,
//   session 38); without them the sums took 50.8-52.2 -> 49.6-50.6 us at 424 bits, 170.2-171.1
//   -> 169.1-170.5 at 1696 (session 39);
// - X/M: xs, the terms' sp ua dd (fused_term_word; relative error below 2n 2^-59 + 5 2^-53: the
//   two evaluations' bounds, c0 and three roundings) summed in double in any order: with
//   |sp P/M| < 2^19/4 and at most FUSED_BUCKET_TERMS = 2^11 terms a unit, |X/M| < 2^28 and the
//   error is below 2^28 (2^-49 + 2^11 2^-53) < 2^-13.
// So K is exact, the CPU's sum of the terms' ranks (term_lanes.rs), whatever the order of the
// double sums. Its CPU twin, term_lanes.rs' a_units_rank_follows_from_its_sums_and_the_evaluations,
// checks it on the worst units (the approximation misses by 2^-17.5 at most). It replaces a
// rank per term (a fixed-point fraction a slot and a butterfly a term). vs: the unit's V_i in
// the group's slots; xs: the unit's sum; the result in every lane.
template <int NA>
static __device__ __forceinline__ i64 fused_unit_rank(const FusedUnitSums<NA> &s, u32 g) {
    i64 fi = 0;
    double ff = 0.0;
#pragma unroll
    for (int i = 0; i < NA; i++) {
        const u32 mk = s.cm[i];
        if (mk != 0) {
            const i64 v = s.vs[i];
            const double md = (double)mk;
            float r32;
            asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r32) : "f"((float)mk));
            double inv = __fma_rn((double)r32, __fma_rn(-md, (double)r32, 1.0), (double)r32);
            inv = __fma_rn(inv, __fma_rn(-md, inv, 1.0), inv);
            i64 q = __double2ll_rd(__dmul_rn((double)v, inv)), r = v - q * (i64)mk;
            const bool lo = r < 0, hi = r >= (i64)mk;
            q = lo ? q - 1 : hi ? q + 1 : q;
            r = lo ? r + (i64)mk : hi ? r - (i64)mk : r;
            fi += q;
            ff = __dadd_rn(ff, __dmul_rn((double)r, inv));
        }
    }
    for (u32 off = 1; off < g; off <<= 1) {
        fi += (i64)__shfl_xor_sync(FUSED_FULL, (u64)fi, off);
        ff = __dadd_rn(ff, __shfl_xor_sync(FUSED_FULL, ff, off));
    }
    return fi + __double2ll_rn(__dsub_rn(ff, s.xs));
}

// One unit of the sums: a row, or 32/g rows (rows_in_lanes), and a chunk of at most
// FUSED_BUCKET_TERMS columns, with NA base slots per lane and groups of G lanes.
// rows_in_lanes (the launcher's choice for any layout: defer_shape): the warp's 32/g groups take
// 32/g consecutive rows and the same columns; else they take one row and every (32/g)-th column
// of the chunk, and join their buckets before the atomics. Every lane runs every shuffle: idle
// groups carry zeros.
template <int NA, int G, int R, bool SHARED_D>
static __device__ __forceinline__ void
fused_defer_unit(const FusedTab &f, const RnsArg &a, const u8 *__restrict__ dinfo, const i64 *__restrict__ dexp,
                 const double *__restrict__ dq, const u32 *__restrict__ dv, u64 m, int rows_in_lanes, u32 gl,
                 u32 grp, const u32 *tm, const u32 *tmu, const u32 *tmp, const FusedWindow &w, bool active, u64 r,
                 u64 cstart, u64 cstep, u64 iters, u64 c1, u32 *flags, u64 *q, u64 *bsum, u64 *alone_n,
                 u64 *alone_cols, u32 ring) {
    const u32 nb = f.n, g = G;
    const i64 base = fused_bucket_base(f, w);
    FusedUnitSums<NA> s;
#pragma unroll
    for (int i = 0; i < NA; i++) {
        s.vs[i] = 0;
        s.cm[i] = tm[gl + i * g];
        s.cmu[i] = tmu[gl + i * g];
        s.cmp[i] = tmp[gl + i * g];
    }
    s.kb = 0;
    s.qsum = 0;
    s.xs = 0.0;
    s.dropped = false;
    s.alone_n = 0;
    s.alone_c[0] = s.alone_c[1] = 0;
    // (the step loop twice, FULL and not, only in the 7-slot kernels: in the 8-slot ones the
    // second copy cost registers, a spill at g = 4, and 8-16 instructions in the other loop)
    if (G >= 4 && R > 0 && NA < FUSED_SLOTS && f.n > (NA - 1) * G)
        fused_terms_batched<NA, G, R, SHARED_D, true>(f, a, dinfo, dexp, dq, dv, s, w, base, active, gl, r, cstart,
                                                      cstep, iters, c1, ring);
    else if (G >= 4)
        fused_terms_batched<NA, G, R, SHARED_D, false>(f, a, dinfo, dexp, dq, dv, s, w, base, active, gl, r, cstart,
                                                       cstep, iters, c1, ring);
    else if (NA < FUSED_SLOTS && f.n == NA * G)
        fused_terms_each<NA, G, true>(f, a, dinfo, dexp, dv, s, w, base, active, gl, r, cstart, cstep, iters, c1);
    else
        fused_terms_each<NA, G, false>(f, a, dinfo, dexp, dv, s, w, base, active, gl, r, cstart, cstep, iters, c1);
    // the lane's kept terms below the bucket into its row's list (its row is its own at
    // rows_in_lanes, the warp's otherwise)
    if (active && s.alone_n != 0) fused_list_alone(alone_n, alone_cols, r, s.alone_n, s.alone_c);
    bool writer = true;
    if (G < 4) {
        writer = !rows_in_lanes ? grp == 0 : true;
        // the terms' ranks are in kb, Q and the dropped flag in the group's first lane: when the
        // warp's groups share the row, join them into group 0 (integer sums)
        if (!rows_in_lanes) {
            for (u32 off = g; off < 32; off <<= 1) {
#pragma unroll
                for (int i = 0; i < NA; i++) s.vs[i] += (i64)__shfl_xor_sync(FUSED_FULL, (u64)s.vs[i], off);
                s.kb += (i64)__shfl_xor_sync(FUSED_FULL, (u64)s.kb, off);
            }
            fused_join_q(s.qsum, s.dropped, g, 32);
        }
    } else {
        // Q, the dropped flag and xs over the group's lanes (each counted the terms whose words
        // it worked out), and over the warp's groups when they share the row; then their V_i
        // (every group holds them after), and K from the unit's sums
        const u32 join_to = rows_in_lanes ? g : 32;
        fused_join_q(s.qsum, s.dropped, 1, join_to);
        for (u32 off = 1; off < join_to; off <<= 1) s.xs += __shfl_xor_sync(FUSED_FULL, s.xs, off);
        if (!rows_in_lanes) {
            for (u32 off = g; off < 32; off <<= 1) {
#pragma unroll
                for (int i = 0; i < NA; i++) s.vs[i] += (i64)__shfl_xor_sync(FUSED_FULL, (u64)s.vs[i], off);
            }
            writer = grp == 0;
        }
        s.kb = fused_unit_rank<NA>(s, g);
    }
    if (writer && active) {
        // the unit's bucket into the row's
#pragma unroll
        for (int i = 0; i < NA; i++) {
            u32 k = gl + i * g;
            if (k < nb && s.vs[i] != 0) fused_bucket_add(bsum, m, r, k, s.vs[i]);
        }
        if (gl == 0) {
            if (s.kb != 0) fused_bucket_add(bsum, m, r, nb, s.kb);
            fused_add_row_q(q, flags, r, s.qsum, s.dropped);
        }
    }
}

// The sums, FUSED_SLOTS base moduli a lane (the launcher's group size G makes them hold the
// base), a unit at a time per warp (grid-stride). The moduli and their Montgomery and Barrett
// constants are in shared memory, each table padded with zeros to kp = max(k, FUSED_SLOTS g)
// entries (the slots').
template <int G, int R, bool SHARED_D, int NA>
static __device__ __forceinline__ void
fused_defer(const u32 *__restrict__ ftab, RnsArg a, const u8 *__restrict__ dinfo, const i64 *__restrict__ dexp,
            const double *__restrict__ dq, const u32 *__restrict__ dv, u64 m, u64 n, int rows_in_lanes, u64 per,
            const i64 *__restrict__ low_min, const i64 *__restrict__ low_max, u32 *flags, u64 *q, u64 *bsum,
            u64 *alone_n, u64 *alone_cols) {
    fused_allow_next();
    FusedTab f = fused_tab(ftab);
    const u32 nb = f.n, kw = f.k, g = G;
    extern __shared__ u32 fused_sh[];
    const u32 kp = kw > FUSED_SLOTS * g ? kw : FUSED_SLOTS * g;
    for (u32 i = threadIdx.x; i < kp; i += blockDim.x) {
        fused_sh[i] = i < kw ? f.m[i] : 0;
        fused_sh[kp + i] = i < kw ? f.mu[i] : 0;
        fused_sh[2 * kp + i] = i < kw ? f.mp[i] : 0;
    }
    const u32 *tm = fused_sh, *tmu = fused_sh + kp, *tmp = fused_sh + 2 * kp;
    __syncthreads();
    fused_wait_previous();
    // the warp's ring (R > 0), past the constants
    const u32 ring =
        (u32)__cvta_generic_to_shared(fused_sh) + 4 * (3 * kp + (threadIdx.x >> 5) * FUSED_RING_WORDS(FUSED_SLOTS, R));
    u32 lane = threadIdx.x & 31, gl = lane % g, grp = lane / g, gpw = 32 / g;
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5, warps = ((u64)blockDim.x * gridDim.x) >> 5;
    u64 chunks = (n + per - 1) / per;
    u64 row_units = rows_in_lanes ? (m + gpw - 1) / gpw : m;
    for (u64 unit = warp; unit < row_units * chunks; unit += warps) {
        u64 ru = unit % row_units, c0 = (unit / row_units) * per, c1 = c0 + per < n ? c0 + per : n;
        u64 r = rows_in_lanes ? ru * gpw + grp : ru;
        u64 cstart = rows_in_lanes ? c0 : c0 + grp, cstep = rows_in_lanes ? 1 : gpw;
        u64 iters = rows_in_lanes ? c1 - c0 : (c1 - c0 + gpw - 1) / gpw;
        bool active = r < m;
        u32 fl = active ? flags[r] : 0;
        active = active && (fl & FUSED_NONZERO) && !(fl & (FUSED_NAN | FUSED_PINF | FUSED_NINF));
        FusedWindow w;
        w.top = 0;
        w.l = 0;
        w.k = nb;
        if (active) w = fused_window(f, low_min[r], low_max[r]);
        fused_defer_unit<NA, G, R, SHARED_D>(f, a, dinfo, dexp, dq, dv, m, rows_in_lanes, gl, grp, tm, tmu, tmp, w,
                                             active, r, cstart, cstep, iters, c1, flags, q, bsum, alone_n, alone_cols,
                                             ring);
    }
}

#define FUSED_DEFER_ARGS                                                                                          \
    const u32 *__restrict__ ftab, RnsArg a, const u8 *__restrict__ dinfo, const i64 *__restrict__ dexp,            \
        const double *__restrict__ dq, const u32 *__restrict__ dv, u64 m, u64 n, int rows_in_lanes, u64 per,     \
        const i64 *__restrict__ low_min, const i64 *__restrict__ low_max, u32 *flags, u64 *q, u64 *bsum,          \
        u64 *alone_n, u64 *alone_cols

// fused_defer with the launcher's group size g as a compile-time constant, one entry point per g,
// so that ptxas allocates each alone: one kernel switching on g took 128 registers and spilled
// 376 bytes; alone, g = 1 and 32 spill nothing and g = 2-16 16-24 bytes (H200, 1000 x 1000 N:
// 212 bits 0.105 -> 0.097 ms, 1696 bits 0.497 -> 0.466). With the ring from g = 8, 3 blocks of
// 128 an SM: 166 registers and no spills, against 128 and 132 bytes spilled with 4 (the
// launcher's sums_warps_per_sm: H200, N ms, 848 bits 0.200-0.203 -> 0.190-0.191, 1696 bits
// 0.370-0.374 -> 0.352-0.354); g4n takes 4 (below).
#define FUSED_DEFER_AT(G, R, SHARED_D, NA)                                                                      \
    fused_defer<G, R, SHARED_D, NA>(ftab, a, dinfo, dexp, dq, dv, m, n, rows_in_lanes, per, low_min, low_max, flags, \
                                    q, bsum, alone_n, alone_cols)
extern "C" __global__ void __launch_bounds__(256, 2) blas_fused_defer_g1(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(1, 0, false, FUSED_SLOTS);
}
extern "C" __global__ void __launch_bounds__(256, 2) blas_fused_defer_g2(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(2, 0, false, FUSED_SLOTS);
}
// g = 1 and 2 with 7 slots a lane, for bases of at most 7g moduli (106 and 212 bits: 7 and 14)
extern "C" __global__ void __launch_bounds__(256, 2) blas_fused_defer_g1s7(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(1, 0, false, 7);
}
extern "C" __global__ void __launch_bounds__(256, 2) blas_fused_defer_g2s7(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(2, 0, false, 7);
}
extern "C" __global__ void __launch_bounds__(256, 2) blas_fused_defer_g4(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(4, 0, false, FUSED_SLOTS);
}
// rows_in_lanes: the warp's groups share d_j's words in the ring (the launcher's defer_shape).
// 4 blocks an SM fit g = 4 in 128 registers without spills: 424 bits N, sums 56.4-57.8 ->
// 54.2-54.6 us against 3 blocks (154 registers; H200 ncu, session 37 call 7).
extern "C" __global__ void __launch_bounds__(128, 4) blas_fused_defer_g4n(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(4, FUSED_RING, true, FUSED_SLOTS);
}
// The ring kernels on rows with 7 slots a lane, for bases of at most 7g moduli (424, 848 and
// 1696 bits: 28, 55 and 110): no slot the basis leaves empty in every lane (the launcher's
// sums_kernel, with the times). The ring keeps 8 slots' room (fused_defer's FUSED_RING_WORDS).
extern "C" __global__ void __launch_bounds__(128, 4) blas_fused_defer_g4n7(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(4, FUSED_RING, true, 7);
}
extern "C" __global__ void __launch_bounds__(128, 3) blas_fused_defer_g8n7(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(8, FUSED_RING, true, 7);
}
extern "C" __global__ void __launch_bounds__(128, 3) blas_fused_defer_g16n7(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(16, FUSED_RING, true, 7);
}
extern "C" __global__ void __launch_bounds__(128, 3) blas_fused_defer_g8(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(8, FUSED_RING, false, FUSED_SLOTS);
}
// rows_in_lanes: the warp's groups share d_j's words in the ring
extern "C" __global__ void __launch_bounds__(128, 3) blas_fused_defer_g8n(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(8, FUSED_RING, true, FUSED_SLOTS);
}
extern "C" __global__ void __launch_bounds__(128, 3) blas_fused_defer_g16(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(16, FUSED_RING, false, FUSED_SLOTS);
}
// rows_in_lanes: the warp's groups share d_j's words in the ring
extern "C" __global__ void __launch_bounds__(128, 3) blas_fused_defer_g16n(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(16, FUSED_RING, true, FUSED_SLOTS);
}
extern "C" __global__ void __launch_bounds__(128, 3) blas_fused_defer_g32(FUSED_DEFER_ARGS) {
    FUSED_DEFER_AT(32, FUSED_RING, false, FUSED_SLOTS);
}
#undef FUSED_DEFER_AT


// A row at the finish: its result where its flags fix it (NaN, an infinity, or an exact zero
// with the flags' sign), else its window, its Q and dropped flag with the beta y_i term's, and
// the term's place (it joins the sums at shift y_shift when it lands in the window).
struct FusedRowEnd {
    bool special, has_bound;
    RnsNum res;
    FusedWindow w;
    u64 qq, y_shift, b_shift;
    bool dropped, y_in, y_neg;
};

static __device__ FusedRowEnd fused_row_end(const FusedTab &f, const RnsArg &beta, u64 eb, const RnsArg &y, u64 ey,
                                            int beta_zero, u32 fl, i64 low_min, i64 low_max, u64 q) {
    FusedRowEnd e;
    e.special = true;
    e.has_bound = true;
    e.y_in = e.y_neg = e.dropped = false;
    e.y_shift = e.qq = e.b_shift = 0;
    if ((fl & FUSED_NAN) || ((fl & FUSED_PINF) && (fl & FUSED_NINF))) {
        e.res = rns_special(2, false);
        e.has_bound = false;
    } else if (fl & (FUSED_PINF | FUSED_NINF)) {
        e.res = rns_special(1, (fl & FUSED_NINF) != 0);
        e.has_bound = false;
    } else if (!(fl & FUSED_NONZERO)) {
        e.res = rns_special(0, !(fl & FUSED_POS));
    } else {
        e.special = false;
        e.w = fused_window(f, low_min, low_max);
        e.b_shift = (u64)(fused_bucket_base(f, e.w) - e.w.l);
        e.qq = q;
        e.dropped = (fl & FUSED_DROPPED) != 0;
        if (!beta_zero) {
            e.y_neg = (beta.sign[eb] != 0) != (y.sign[ey] != 0);
            u32 tf = fused_term_flags(beta.cls[eb], fused_is_zero(beta, eb), y.cls[ey], fused_is_zero(y, ey), e.y_neg);
            i64 low = beta.exp[eb] + y.exp[ey];
            if (tf & FUSED_NONZERO) {
                e.qq += fused_weight(f, e.w.top, low);
                if (low < e.w.l) {
                    e.dropped = true;
                } else {
                    e.y_in = true;
                    e.y_shift = (u64)(low - e.w.l);
                }
            }
        }
    }
    return e;
}

// Residue k of a row's beta y_i term at its shift (py: the residues of the product beta y_i), 0
// when it is not in the window.
static __device__ __forceinline__ u32 fused_y_residue(const FusedTab &f, const FusedRowEnd &e, u32 k, const u32 *py) {
    if (!e.y_in) return 0;
    const u32 mk = f.m[k];
    const u32 t = mul_mod(py[k], fused_pow2(f.hi, f.m, f.mu, f.k, e.y_shift, k), mk, f.mu[k]);
    return e.y_neg ? sub_mod(0, t, mk) : t;
}

// One kept term below its row's bucket (column c, element e of A) added to the row's residues
// sh->x (the row's level, w.k moduli) by the warp: P = a_ij d_j = sum_i v_i M_i - k M from its
// CRT coefficients v_i = |a_i d_i w_i|_m_i (the sums' Montgomery product with the prep's
// |d_i w_i R|) and its rank k (the sums' fixed-point fractions), times +-2^(low - L): in a base
// modulus |v_k M_k|, in an extra one the extension (fused_bucket_warp's, for one term). These are
// the integers the per-term extension added, modulo each modulus, so the bits are the CPU's.
// low: the term's exponent e_a + e_d; neg: its sign. sh->c holds the v_i.
static __device__ void fused_alone_term_warp(const FusedTab &f, const RnsArg &a, const u32 *__restrict__ dv, u64 c,
                                             u64 e, i64 low, bool neg, const FusedWindow &w, FusedWarpScratch *sh,
                                             u32 lane) {
    const u32 nb = f.n;
    const u64 shift = (u64)(low - w.l);
    __syncwarp();
    auto coefficient = [&](u32 i) {
        const u32 mi = f.m[i];
        const u32 t = fused_redc((u64)a.d[e * nb + i] * dv[c * nb + i], mi, f.mp[i]);
        return rns_min32(t, t - mi);
    };
    const u32 kk = fused_rank_warp(f.mu, nb, coefficient, sh->c, lane);
    for (u32 k = lane; k < w.k; k += 32) {
        const u32 mk = f.m[k], muk = f.mu[k];
        u32 val;
        if (k < nb) {
            val = mul_mod(sh->c[k], f.mj[k], mk, muk);
        } else {
            val = fused_extra_residue<1>(f, sh->c, kk, k);
        }
        val = mul_mod(val, fused_pow2(f.hi, f.m, f.mu, f.k, shift, k), mk, muk);
        sh->x[k] = neg ? sub_mod(sh->x[k], val, mk) : add_mod(sh->x[k], val, mk);
    }
}

// A row's listed term below its bucket as lane i (< the count) of the finish holds it, loaded at
// the row's start so that the loads wait behind the row's other work.
struct FusedAloneTerm {
    u64 c, e;
    i64 low;
    bool neg;
};
static __device__ __forceinline__ FusedAloneTerm fused_alone_listed(const RnsArg &a, const u8 *__restrict__ dinfo,
                                                                    const i64 *__restrict__ dexp, u64 r, u64 listed,
                                                                    const u64 *__restrict__ cols, u32 lane) {
    FusedAloneTerm t{0, 0, 0, false};
    if (listed <= FUSED_ALONE_LIST && lane < listed) {
        t.c = cols[lane];
        t.e = blas_rns_at(a, r, t.c);
        t.low = a.exp[t.e] + dexp[t.c];
        t.neg = fused_term_neg(a.sign[t.e], dinfo[t.c]);
    }
    return t;
}

// Row r's kept terms below its bucket, which the sums leave out (fused_note_alone), into its
// residues sh->x: the count (listed) the sums listed, each term held by a lane (fused_alone_listed),
// or, where the list overflowed (count above FUSED_ALONE_LIST), every such term of the row,
// found by a scan of its exponents (the sums' test: finite, d_j nonzero, L <= low < base; a zero
// a_ij adds zero). Integer congruences: the order does not matter. A scan for each such row
// cost the finish 21 -> 41 us (H200 ncu, 1000 x 1000 at 106 bits, where about 30 rows hold such a
// term); the list 21 -> 25 (session 35). Those 4 us were not the listed terms' own work (ncu by
// source line: under 1% of the finish's samples) but this code's place, inlined between the
// bucket and the rounding: the finish waited on instruction fetches (session 36), and the binary
// finish calls it out of line (fused_alone_terms_cold).
static __device__ void fused_alone_terms_warp(const FusedTab &f, const RnsArg &a, const u8 *__restrict__ dinfo,
                                              const i64 *__restrict__ dexp, const u32 *__restrict__ dv, u64 n, u64 r,
                                              u64 listed, const FusedAloneTerm &t, const FusedWindow &w,
                                              FusedWarpScratch *sh, u32 lane) {
    if (listed <= FUSED_ALONE_LIST) {
        for (u32 i = 0; i < (u32)listed; i++) {
            const u64 c = __shfl_sync(FUSED_FULL, t.c, i), e = __shfl_sync(FUSED_FULL, t.e, i);
            const i64 low = __shfl_sync(FUSED_FULL, t.low, i);
            const bool neg = __shfl_sync(FUSED_FULL, (int)t.neg, i) != 0;
            fused_alone_term_warp(f, a, dv, c, e, low, neg, w, sh, lane);
        }
        __syncwarp();
        return;
    }
    const i64 base = fused_bucket_base(f, w);
    for (u64 c0 = 0; c0 < n; c0 += 32) {
        const u64 c = c0 + lane;
        bool alone = false, neg = false;
        u64 e = 0;
        i64 low = 0;
        if (c < n) {
            e = blas_rns_at(a, r, c);
            const u8 di = dinfo[c];
            low = a.exp[e] + dexp[c];
            alone = fused_term_finite(a.cls[e], di) && low >= w.l && low < base;
            neg = fused_term_neg(a.sign[e], di);
        }
        for (u32 ball = __ballot_sync(FUSED_FULL, alone); ball != 0; ball &= ball - 1) {
            const u32 src = __ffs(ball) - 1;
            fused_alone_term_warp(f, a, dv, c0 + src, __shfl_sync(FUSED_FULL, e, src),
                                  __shfl_sync(FUSED_FULL, low, src), __shfl_sync(FUSED_FULL, (int)neg, src) != 0, w,
                                  sh, lane);
        }
    }
    __syncwarp();
}

// fused_alone_terms_warp out of line, for the finish in binary (below).
static __device__ __noinline__ void fused_alone_terms_cold(const FusedTab &f, const RnsArg &a,
                                                           const u8 *__restrict__ dinfo, const i64 *__restrict__ dexp,
                                                           const u32 *__restrict__ dv, u64 n, u64 r, u64 listed,
                                                           const FusedAloneTerm &t, const FusedWindow &w,
                                                           FusedWarpScratch *sh, u32 lane) {
    fused_alone_terms_warp(f, a, dinfo, dexp, dv, n, r, listed, t, w, sh, lane);
}

// The row's result into y and its bound into `bounds` (two words, the f64 bits and the exponent
// of the ExtF bound; NaN bits: no bound).
static __device__ __forceinline__ void fused_row_store(const FusedTab &f, const FusedRowEnd &e, const RnsNum &res,
                                                       const RnsArg &y, u64 ey, u64 *bounds, u64 r) {
    bool has_bound = e.has_bound;
    ExtF bound = extf_zero();
    if (!e.special) {
        u128 bb = (u128)(2 * e.qq) + (u128)(e.qq >> 20) + 1 + (e.dropped ? ((u128)1 << 26) : 0);
        bound = extf_from_u128(bb, e.w.top - 32 - (i64)f.p, true);
        has_bound = res.cls == 0;
    }
    blas_rns_put(y, 0, ey, res, 0);
    bounds[2 * r] = has_bound ? (u64)__double_as_longlong(bound.f) : 0x7ff8000000000000ull;
    bounds[2 * r + 1] = (u64)bound.e;
}

// Per row (one warp each): the beta y_i term, the rounding (Accumulator::round, by the warp) and
// the bound.
// BINARY: the rounding by fused_round_warp, else by the sign and fused_finish_warp (the same bits).
template <bool BINARY>
static __device__ __forceinline__ void
fused_finish(const u32 *__restrict__ tab, const u32 *__restrict__ ftab, RnsArg beta, RnsArg y, u64 m, int beta_zero,
             const i64 *__restrict__ low_min, const i64 *__restrict__ low_max, const u32 *__restrict__ flags,
             const u64 *__restrict__ q, const u64 *__restrict__ bsum, u64 *bounds, RnsArg a,
             const u8 *__restrict__ dinfo, const i64 *__restrict__ dexp, const u32 *__restrict__ dv, u64 n,
             const u64 *__restrict__ alone_n, const u64 *__restrict__ alone_cols) {
    __shared__ FusedWarpScratch fused_ws[FUSED_WARPS_PER_BLOCK];
    RnsBasis b = rns_basis(tab);
    FusedTab f = fused_tab(ftab);
    const u64 eb = blas_rns_at(beta, 0, 0);
    u32 lane = threadIdx.x & 31;
    FusedWarpScratch *sh = &fused_ws[threadIdx.x >> 5];
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5, warps = ((u64)blockDim.x * gridDim.x) >> 5;
    fused_wait_previous();
    for (u64 r = warp; r < m; r += warps) {
        u64 ey = blas_rns_at(y, r, 0);
        const u64 listed = alone_n[r];
        const FusedAloneTerm alone =
            fused_alone_listed(a, dinfo, dexp, r, listed, alone_cols + r * FUSED_ALONE_LIST, lane);
        FusedRowEnd e = fused_row_end(f, beta, eb, y, ey, beta_zero, flags[r], low_min[r], low_max[r], q[r]);
        // BINARY: the row's residues stay in the scratch's x, each lane's own moduli
        // (fused_round_warp reads and writes only those); else every lane holds them all in s
        u32 s[RNS_MAX_N];
        RnsNum res = e.res;
        bool zeros = true;
        if (!e.special) {
            // The row's residues (its bucket's, the beta y_i term's in the row's level, then a
            // modulus a lane; then its terms below the bucket, if any).
            fused_bucket_warp(f, bsum, m, r, e.w.k, e.b_shift, sh->c, lane);
            if (e.y_in)
                fused_product_wide_warp(f, blas_rns_res(beta, b.n, eb), blas_rns_res(y, b.n, ey), e.w.k, sh->low, sh->x,
                                        lane);
            for (u32 k = lane; k < e.w.k; k += 32)
                sh->x[k] = add_mod(fused_y_residue(f, e, k, sh->low), sh->c[k], f.m[k]);
            // (in binary through a call: inlined, that rare path cost the finish 25.1-25.5 us
            // against 21.4-22.2 at 106 bits, 27.1-28.5 against 23.9-25.3 at 424, H200 ncu; the
            // finish by CRT passes, at 1696 bits, lost 10 us with the call: session 36)
            if (listed != 0) {
                if (BINARY)
                    fused_alone_terms_cold(f, a, dinfo, dexp, dv, n, r, listed, alone, e.w, sh, lane);
                else
                    fused_alone_terms_warp(f, a, dinfo, dexp, dv, n, r, listed, alone, e.w, sh, lane);
            }
            RnsBasis wide = rns_basis((const u32 *)rns_u64_at(f.t, 32 + 2 * e.w.level));
            if (BINARY) {
                // |S| < 2^ub and its sign: ub + 2 bits
                res = fused_round_warp<8>(wide, b, sh->x, true, false, e.w.l, (u32)((e.w.ub + 2 + 31) / 32), &zeros,
                                          sh, lane);
                if (zeros) res = rns_special(0, false);
            } else {
                fused_x_to_lanes(sh, s, e.w.k);
                const int sg = sign_of_by(fused_way(sh, lane), wide, s, e.w.ub);
                zeros = sg == 0;
                if (zeros) {
                    res = rns_special(0, false);
                } else {
                    if (sg < 0)
                        for (u32 k = 0; k < e.w.k; k++) s[k] = sub_mod(0, s[k], f.m[k]);
                    res = fused_finish_warp(wide, b, sg < 0, s, e.w.l, e.w.ub, sh, lane);
                }
            }
        }
        if (lane == 0) fused_row_store(f, e, res, y, ey, bounds, r);
        // the residues, a modulus a lane: zero for a special row or a zero sum, else the
        // rounding's (an infinite or zero result has them zeroed: normalised_by)
        for (u32 k = lane; k < b.n; k += 32) y.d[ey * b.n + k] = zeros ? 0 : BINARY ? sh->x[k] : s[k];
        __syncwarp();
    }
}

#define FUSED_FINISH_ARGS                                                                                         \
    const u32 *__restrict__ tab, const u32 *__restrict__ ftab, RnsArg beta, RnsArg y, u64 m, int beta_zero,        \
        const i64 *__restrict__ low_min, const i64 *__restrict__ low_max, const u32 *__restrict__ flags,          \
        const u64 *__restrict__ q, const u64 *__restrict__ bsum, u64 *bounds, RnsArg a, const u8 *__restrict__ dinfo,  \
        const i64 *__restrict__ dexp, const u32 *__restrict__ dv, u64 n, const u64 *__restrict__ alone_n,            \
        const u64 *__restrict__ alone_cols

extern "C" __global__ void __launch_bounds__(32 * FUSED_WARPS_PER_BLOCK) blas_fused_finish(FUSED_FINISH_ARGS) {
    fused_finish<false>(tab, ftab, beta, y, m, beta_zero, low_min, low_max, flags, q, bsum, bounds, a, dinfo, dexp, dv, n,
                       alone_n, alone_cols);
}

extern "C" __global__ void __launch_bounds__(32 * FUSED_WARPS_PER_BLOCK) blas_fused_finish_bin(FUSED_FINISH_ARGS) {
    fused_finish<true>(tab, ftab, beta, y, m, beta_zero, low_min, low_max, flags, q, bsum, bounds, a, dinfo, dexp, dv, n,
                       alone_n, alone_cols);
}
