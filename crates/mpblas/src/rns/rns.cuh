// RNS multiple-precision arithmetic on the GPU: device twins of the CPU code in src/rns/
// (same function names: mul_mod, reduce62, crt_pass_c, eval_unsigned, sign_of, bit_length,
// shift_right, finish, normalised, ...), and the per-element / per-residue bodies of the split
// kernels (rns_esi.cu, rns_digits.cu, rns_round.cu) and of division and square root
// (rns_divsqrt.cu).
//
// Every function here computes exactly what its CPU twin computes (integer arithmetic, or the
// same IEEE operations in the same order for the extended-range bounds), so a GPU result has
// the CPU's bits: class, sign, exponent, residues and evaluation bounds. The header is also
// compiled as host C++ by tests/rns_twin_host.rs (with tests/cuda_twin/rns_host.cpp), which
// runs the kernel bodies element by element and compares them with the Rust CPU results.
//
// Basis constants live in one packed u32 table (built by cuda/rns_array.rs, `pack_basis`):
// a header of RNS_HDR words, then the tables at the offsets the header gives.
//
// Array layout (the host MpArray, Table 2 of the MPRES-BLAS paper): digits n*L u32, element
// by element; sign L u8; exp L i64; eval 2L records {f64 bits, i64 exponent}, the L lower
// bounds then the L upper bounds; class L u8 (0 finite, 1 infinite, 2 NaN); plan 4L u32 (the
// kernel-to-kernel buffer: flags, x scale, y scale, bound on the bit length of the exact
// result, as four arrays of L).
#pragma once

#include "eft.cuh"

typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;
typedef unsigned char u8;
typedef unsigned __int128 u128;
typedef __int128 i128;

// Largest number of moduli the per-element kernels handle (local arrays, touched only up to the
// basis's n): p <= 3967 bits (log2 M < 256 * 31).
#define RNS_MAX_N 256
// 32-bit limbs of the binary working values of division and square root: (p + 5 + 31) / 32 <= 125.
#define RNS_MAX_W 128
// Words of the packed header.
#define RNS_HDR 40

static const i64 RNS_EMAX = (i64)1 << 60;
static const i64 RNS_EMIN = -((i64)1 << 60);
static const u32 RNS_FRAC_BITS = 94;

// ---- basis ----------------------------------------------------------------------------------

struct ExtF {
    double f;
    i64 e;
};

struct RnsBasis {
    u32 n, p, log2m, k_norm, hi_rows, limbs;
    u64 m_low;
    ExtF m_ext[2];
    const u32 *m, *mu, *w, *w_norm, *recip_hi, *recip_lo, *mi_low_hi, *mi_low_lo, *two32;
    const u32 *pow2_lo, *pow2_hi, *inv2, *inv2_hi, *mi_bin, *m_bin, *pow32;
};

static __device__ __forceinline__ u64 rns_u64_at(const u32 *t, u32 at) {
    return (u64)t[at] | ((u64)t[at + 1] << 32);
}

// The basis view of a packed table (header layout: cuda/rns_array.rs, `pack_basis`).
static __device__ __forceinline__ RnsBasis rns_basis(const u32 *t) {
    RnsBasis b;
    b.n = t[1];
    b.p = t[2];
    b.log2m = t[3];
    b.k_norm = t[4];
    b.hi_rows = t[5];
    b.limbs = t[6];
    b.m_low = rns_u64_at(t, 7);
    b.m_ext[0].f = __longlong_as_double((long long)rns_u64_at(t, 9));
    b.m_ext[0].e = (i64)rns_u64_at(t, 11);
    b.m_ext[1].f = __longlong_as_double((long long)rns_u64_at(t, 13));
    b.m_ext[1].e = (i64)rns_u64_at(t, 15);
    const u32 *o = t + 17;
    b.m = t + o[0];
    b.mu = t + o[1];
    b.w = t + o[2];
    b.w_norm = t + o[3];
    b.recip_hi = t + o[4];
    b.recip_lo = t + o[5];
    b.mi_low_hi = t + o[6];
    b.mi_low_lo = t + o[7];
    b.two32 = t + o[8];
    b.pow2_lo = t + o[9];
    b.pow2_hi = t + o[10];
    b.inv2 = t + o[11];
    b.inv2_hi = t + o[12];
    b.mi_bin = t + o[13];
    b.m_bin = t + o[14];
    b.pow32 = t + o[15];
    return b;
}

// ---- modular arithmetic (basis.rs) ------------------------------------------------------------

static __device__ __forceinline__ u64 rns_min64(u64 a, u64 b) { return a < b ? a : b; }
static __device__ __forceinline__ u32 rns_min32(u32 a, u32 b) { return a < b ? a : b; }

// t mod m for t < 2^62 (Barrett, mu = floor(2^62/m)).
static __device__ __forceinline__ u32 reduce62(u64 t, u32 m, u32 mu) {
    u64 q = ((u64)(u32)(t >> 30) * (u64)mu) >> 32;
    u64 r = t - (u64)(u32)q * (u64)m;
    r = rns_min64(r, r - (u64)m);
    r = rns_min64(r, r - (u64)m);
    return (u32)r;
}

static __device__ __forceinline__ u32 mul_mod(u32 a, u32 b, u32 m, u32 mu) {
    return reduce62((u64)a * (u64)b, m, mu);
}

static __device__ __forceinline__ u32 add_mod(u32 a, u32 b, u32 m) {
    u32 s = a + b;
    return rns_min32(s, s - m);
}

static __device__ __forceinline__ u32 sub_mod(u32 a, u32 b, u32 m) {
    u32 d = a - b;
    return rns_min32(d, d + m);
}

static __device__ __forceinline__ u32 reduce_u64_parts(u32 hi, u32 lo, u32 m, u32 mu, u32 two32) {
    u32 h = hi, l = lo;
    while (h >= m) h -= m;
    while (l >= m) l -= m;
    return add_mod(reduce62((u64)h * (u64)two32, m, mu), l, m);
}

// Residue i of 2^k (k below 64 * hi_rows).
static __device__ __forceinline__ u32 rns_pow2_at(const RnsBasis &b, u64 k, u32 i) {
    u32 j = (u32)(k / 64), r = (u32)(k % 64);
    return mul_mod(b.pow2_hi[(u64)j * b.n + i], b.pow2_lo[(u64)r * b.n + i], b.m[i], b.mu[i]);
}

// Residue i of 2^-k.
static __device__ __forceinline__ u32 rns_inv_pow2_at(const RnsBasis &b, u64 k, u32 i) {
    u32 j = (u32)(k / 64), r = (u32)(k % 64);
    return mul_mod(b.inv2_hi[(u64)j * b.n + i], b.inv2[(u64)r * b.n + i], b.m[i], b.mu[i]);
}

static __device__ __forceinline__ u64 pow2_limit(const RnsBasis &b) { return 64 * (u64)b.hi_rows - 1; }

// x <- x * 2^d mod M (float.rs scale_up).
static __device__ __forceinline__ void scale_up(const RnsBasis &b, u32 *x, u64 d) {
    if (d == 0) return;
    for (u32 i = 0; i < b.n; i++) x[i] = mul_mod(x[i], rns_pow2_at(b, d, i), b.m[i], b.mu[i]);
}

static __device__ __forceinline__ bool rns_is_zero(const RnsBasis &b, const u32 *x) {
    for (u32 i = 0; i < b.n; i++)
        if (x[i] != 0) return false;
    return true;
}

// ---- extended-range floats (extf.rs) --------------------------------------------------------

static __device__ __forceinline__ double next_up(double x) {
    return __longlong_as_double(__double_as_longlong(x) + 1);
}
static __device__ __forceinline__ double next_down(double x) {
    return x == 0.0 ? 0.0 : __longlong_as_double(__double_as_longlong(x) - 1);
}

static __device__ __forceinline__ ExtF extf_zero() {
    ExtF z;
    z.f = 0.0;
    z.e = 0;
    return z;
}

// ExtF::new: x * 2^e for finite x >= 0, renormalised to a fraction in [1/2, 1). The CPU's
// version is also total (issue 11: saturating exponents, ExtF::INVALID for x < 0 or non-finite);
// kernels only see the crate's own bounds, on which the two agree bit for bit.
static __device__ ExtF extf_new(double x, i64 e) {
    if (x == 0.0) return extf_zero();
    u64 bits = (u64)__double_as_longlong(x);
    i64 be = (i64)((bits >> 52) & 0x7ff);
    if (be == 0) {
        // subnormal: scale into the normal range first (exact)
        x = __dmul_rn(x, 18446744073709551616.0);
        e -= 64;
        bits = (u64)__double_as_longlong(x);
        be = (i64)((bits >> 52) & 0x7ff);
    }
    ExtF r;
    r.f = __longlong_as_double((long long)((bits & ~(0x7ffull << 52)) | (1022ull << 52)));
    r.e = e + be - 1022;
    return r;
}

static __device__ __forceinline__ u32 rns_clz128(u128 n) {
    u64 hi = (u64)(n >> 64), lo = (u64)n;
    return hi != 0 ? (u32)__clzll((long long)hi) : 64 + (u32)__clzll((long long)lo);
}

// ExtF::from_u128_rd / _ru: n * 2^sh rounded down / up to 53 bits (n > 0 or zero). The CPU's
// steps (the top 53 bits, one up when a lower bit is set, then ExtF::new of that integer) give
// the fraction t 2^-53 and the exponent sh + bit length (+1 when t reaches 2^53), formed here
// from n's bits at once: the branches and the integer-to-double conversion of that form cost
// about 1,000 cycles a call in the fused GEMV's roundings (two calls a rounding; H200 clock64,
// session 33); this form, H200 ncu at 106 bits, 1000 x 1000: the finish 18.5-18.9 -> 18.3-18.5
// us, 176 fewer instructions of code (session 39). The same values for every n: extf.rs's
// `the_device_bit_form_is_from_u128` runs this form against the CPU's.
static __device__ ExtF extf_from_u128(u128 n, i64 sh, bool up) {
    if (n == 0) return extf_zero();
    const u32 lz = rns_clz128(n);
    const u128 m = n << lz;
    u64 t = (u64)(m >> 75);
    if (up && ((((u64)(m >> 64) & 0x7ffull) | (u64)m) != 0)) t += 1;
    const bool carry = (t >> 53) != 0;
    ExtF r;
    r.f = carry ? 0.5 : __longlong_as_double((long long)((t & ((1ull << 52) - 1)) | (1022ull << 52)));
    r.e = sh + (i64)(128 - lz) + (carry ? 1 : 0);
    return r;
}

// ExtF::mul_rd / mul_ru (fractions in [1/2, 1): TwoProd's error is exact).
static __device__ ExtF extf_mul(ExtF a, ExtF b, bool up) {
    if (a.f == 0.0 || b.f == 0.0) return extf_zero();
    double p, err;
    two_prod(a.f, b.f, p, err);
    if (up && err > 0.0) p = next_up(p);
    else if (!up && err < 0.0) p = next_down(p);
    return extf_new(p, a.e + b.e);
}

// floor(log2 x) (x > 0; i64 min for zero).
static __device__ __forceinline__ i64 extf_floor_log2(ExtF x) {
    return x.f == 0.0 ? (i64)(-0x7fffffffffffffffll - 1) : x.e - 1;
}

// ---- interval evaluation (interval.rs) ------------------------------------------------------

struct Pass {
    u128 s;
    u64 c;
    u64 low;
};

// Residue i of the weight w_i * 2^k (interval.rs `weights`).
static __device__ __forceinline__ u32 rns_weight_at(const RnsBasis &b, u64 k, u32 i) {
    if (k == 0) return b.w[i];
    if (k == b.k_norm) return b.w_norm[i];
    return mul_mod(rns_pow2_at(b, k, i), b.w[i], b.m[i], b.mu[i]);
}

// The part of a CRT pass on X * 2^k mod M from the moduli first, first + step, ...: every
// field is a sum of non-negative per-modulus terms (`low` modulo 2^64), so the parts of any
// split add up to the whole pass exactly. The coefficients c_i go to `c` when it is not null.
static __device__ Pass crt_pass_part(const RnsBasis &b, const u32 *x, u64 k, u32 *c, u32 first, u32 step) {
    u64 dhl = 0, dhh = 0, dll = 0, dlh = 0, cs = 0, lo = 0, hi = 0;
    for (u32 i = first; i < b.n; i += step) {
        u32 ci = mul_mod(x[i], rns_weight_at(b, k, i), b.m[i], b.mu[i]);
        if (c) c[i] = ci;
        u64 ph = (u64)ci * (u64)b.recip_hi[i];
        u64 pl = (u64)ci * (u64)b.recip_lo[i];
        dhl += ph & 0xffffffffull;
        dhh += ph >> 32;
        dll += pl & 0xffffffffull;
        dlh += pl >> 32;
        cs += ci;
        lo += (u64)ci * (u64)b.mi_low_lo[i];
        hi += (u64)ci * (u64)b.mi_low_hi[i];
    }
    u128 dot_hi = ((u128)dhh << 32) + (u128)dhl;
    u128 dot_lo = ((u128)dlh << 32) + (u128)dll;
    Pass r;
    r.s = (dot_hi << 32) + dot_lo;
    r.c = cs;
    r.low = lo + (hi << 32);
    return r;
}

// One CRT pass on X * 2^k mod M; the coefficients c_i go to `c` when it is not null.
static __device__ __forceinline__ Pass crt_pass_c(const RnsBasis &b, const u32 *x, u64 k, u32 *c) {
    return crt_pass_part(b, x, k, c, 0, 1);
}

static __device__ void shift_right(const RnsBasis &b, u32 *x, u64 k, bool *round, bool *sticky, bool *odd);

// How the rounding below runs its CRT passes: `RnsSerial`, one thread, or a twin computing the
// same values with several (blas_fused_rns_gpu.cu). A way gives `pass` (crt_pass_c without
// coefficients), `is_zero`, `shift` (shift_right) and the moduli a thread owns (`first`,
// `step`): the entries of a scratch array that only its own passes read.
struct RnsSerial {
    __device__ __forceinline__ Pass pass(const RnsBasis &b, const u32 *x, u64 k) const { return crt_pass_c(b, x, k, 0); }
    __device__ __forceinline__ bool is_zero(const RnsBasis &b, const u32 *x) const { return rns_is_zero(b, x); }
    __device__ __forceinline__ void shift(const RnsBasis &b, u32 *x, u64 k, bool *round, bool *sticky, bool *odd) const {
        shift_right(b, x, k, round, sticky, odd);
    }
    __device__ __forceinline__ u32 first() const { return 0; }
    __device__ __forceinline__ u32 step() const { return 1; }
};

// Pass::window: the enclosure [v, v + C] (units 2^-94) in [lo_edge, lo_edge + 1), and the rank.
static __device__ __forceinline__ void pass_window(const Pass &p, i128 lo_edge_quarters, i128 *v,
                                                   i128 *vh, u128 *rank) {
    const i128 one = (i128)1 << RNS_FRAC_BITS;
    i128 shift = -lo_edge_quarters * (one / 4);
    u128 r = (u128)(((i128)p.s + shift) >> RNS_FRAC_BITS);
    i128 vv = (i128)p.s - (i128)r * one;
    *v = vv;
    *vh = vv + (i128)p.c;
    *rank = r;
}

struct Eval {
    u128 lo, hi;
    u64 k;
};

static __device__ __forceinline__ void eval_bounds(const Eval &ev, ExtF *lo, ExtF *hi) {
    i64 sh = -(i64)RNS_FRAC_BITS - (i64)ev.k;
    *lo = extf_from_u128(ev.lo, sh, false);
    *hi = extf_from_u128(ev.hi, sh, true);
}

// eval_unsigned_by on from its first pass, `pass` on X 2^k (X in [1, M/2)): a caller that formed
// that pass beside another (fused_exact_product_warp) goes on from it.
template <class Way>
static __device__ Eval eval_unsigned_from(const Way &way, const RnsBasis &b, const u32 *x, u64 k, Pass pass) {
    for (;;) {
        i128 v, hi;
        u128 r;
        pass_window(pass, -1, &v, &hi, &r);
        i128 lo = v > 0 ? v : 0;
        Eval out;
        out.lo = (u128)lo;
        out.hi = (u128)hi;
        out.k = k;
        // the common exit first: a larger k is needed only while lo is below 2^82
        if (lo >= ((i128)1 << 82)) return out;
        u128 hm = hi > 1 ? (u128)hi : 1;
        u64 bl = 128 - rns_clz128(hm);
        u64 delta = bl < 91 ? 91 - bl : 0;
        if (delta < 1) delta = 1;
        if (k + delta > pow2_limit(b)) return out;
        k += delta;
        pass = way.pass(b, x, k);
    }
}

// The refined evaluation of X in [1, M/2); false for X = 0.
template <class Way>
static __device__ bool eval_unsigned_by(const Way &way, const RnsBasis &b, const u32 *x, u64 k0, Eval *out) {
    if (way.is_zero(b, x)) return false;
    *out = eval_unsigned_from(way, b, x, k0, way.pass(b, x, k0));
    return true;
}

static __device__ __forceinline__ bool eval_unsigned(const RnsBasis &b, const u32 *x, u64 k0, Eval *out) {
    return eval_unsigned_by(RnsSerial(), b, x, k0, out);
}

// The sign (-1, 0, 1) of a signed RNS value D in (-2^ub, 2^ub), ub <= log2 M - 2.
template <class Way>
static __device__ int sign_of_by(const Way &way, const RnsBasis &b, const u32 *d, u64 ub) {
    if (way.is_zero(b, d)) return 0;
    u64 top = (u64)b.log2m - 2;
    u64 k = top > ub ? top - ub : 0;
    for (;;) {
        Pass pass = way.pass(b, d, k);
        i128 lo, hi;
        u128 r;
        pass_window(pass, -2, &lo, &hi, &r);
        if (lo > 0) return 1;
        if (hi < 0) return -1;
        u128 al = (u128)(lo < 0 ? -lo : lo), ah = (u128)(hi < 0 ? -hi : hi);
        u128 bmax = al > ah ? al : ah;
        if (bmax < 1) bmax = 1;
        u64 bl = 128 - rns_clz128(bmax);
        u64 delta = bl < 91 ? 91 - bl : 0;
        if (delta < 1) delta = 1;
        if (k + delta > pow2_limit(b)) return 0;  // unreachable for D != 0
        k += delta;
    }
}

static __device__ __forceinline__ int sign_of(const RnsBasis &b, const u32 *d, u64 ub) {
    return sign_of_by(RnsSerial(), b, d, ub);
}

// The exact bit length of X in [1, 2^max_bits) from its evaluation (`diff` is the way's scratch:
// each thread fills the moduli its passes read).
template <class Way>
static __device__ u64 bit_length_by(const Way &way, const RnsBasis &b, const u32 *x, const Eval &ev, u64 max_bits) {
    ExtF lo, hi;
    eval_bounds(ev, &lo, &hi);
    ExtF xl = extf_mul(lo, b.m_ext[0], false), xh = extf_mul(hi, b.m_ext[1], true);
    i64 fa = extf_floor_log2(xl), fc = extf_floor_log2(xh);
    u64 a = fa > 0 ? (u64)fa : 0;
    u64 c = fc > 0 ? (u64)fc : 0;
    if (c > max_bits - 1) c = max_bits - 1;
    u32 diff[RNS_MAX_N];
    while (c > a) {
        for (u32 i = way.first(); i < b.n; i += way.step()) diff[i] = sub_mod(x[i], rns_pow2_at(b, c, i), b.m[i]);
        if (sign_of_by(way, b, diff, c) >= 0) return c + 1;
        c -= 1;
    }
    return c + 1;
}

static __device__ __forceinline__ u64 bit_length(const RnsBasis &b, const u32 *x, const Eval &ev, u64 max_bits) {
    return bit_length_by(RnsSerial(), b, x, ev, max_bits);
}

// shift_right for 1 <= k <= 63, from X's CRT pass: the round, sticky and odd bits, and the
// remainder r = X mod 2^k.
static __device__ __forceinline__ u64 shift_short_bits(const RnsBasis &b, const Pass &pass, u64 k, bool *round,
                                                       bool *sticky, bool *odd) {
    i128 v, vh;
    u128 rk;
    pass_window(pass, -1, &v, &vh, &rk);
    u64 low = pass.low - (u64)rk * b.m_low;
    u64 r = low & ((1ull << k) - 1);
    *odd = ((low >> k) & 1) != 0;
    *round = ((r >> (k - 1)) & 1) != 0;
    *sticky = (r & ((1ull << (k - 1)) - 1)) != 0;
    return r;
}

// Residue i of (X - r) / 2^k for the short shift (xi: residue i of X).
static __device__ __forceinline__ u32 shift_short_residue(const RnsBasis &b, u32 xi, u64 r, u64 k, u32 i) {
    u32 rr = reduce_u64_parts((u32)(r >> 32), (u32)r, b.m[i], b.mu[i], b.two32[i]);
    return mul_mod(sub_mod(xi, rr, b.m[i]), b.inv2[k * b.n + i], b.m[i], b.mu[i]);
}

// shift_right for k >= 64: limb l of sum_i c_i M_i (the CRT coefficients c of X's pass), whose
// low limbs, less r M, are X's.
static __device__ __forceinline__ u128 shift_limb_dot(const RnsBasis &b, const u32 *c, u32 l) {
    u64 dl = 0, dh = 0;
    const u32 *row = b.mi_bin + (u64)l * b.n;
    for (u32 i = 0; i < b.n; i++) {
        u64 p = (u64)c[i] * (u64)row[i];
        dl += p & 0xffffffffull;
        dh += p >> 32;
    }
    return ((u128)dh << 32) + (u128)dl;
}

// The low limbs of X = sum_i c_i M_i - r M from the limb dot products: limb l of X, the carry
// going on to limb l + 1.
static __device__ __forceinline__ u32 shift_limb(u128 dot, u128 r, u32 l, const RnsBasis &b, i128 *carry) {
    i128 tt = *carry + (i128)dot - (i128)r * (i128)b.m_bin[l];
    *carry = tt >> 32;
    return (u32)tt;
}

// shift_right for k >= 64 from X's low limbs: the round, sticky and odd bits.
static __device__ __forceinline__ void shift_long_bits(const u32 *low, u64 k, bool *round, bool *sticky, bool *odd) {
    *odd = ((low[k / 32] >> (k % 32)) & 1) != 0;
    *round = ((low[(k - 1) / 32] >> ((k - 1) % 32)) & 1) != 0;
    u32 wf = (u32)((k - 1) / 32), bf = (u32)((k - 1) % 32);
    bool st = (low[wf] & ((1u << bf) - 1)) != 0;
    for (u32 l = 0; l < wf; l++) st = st || low[l] != 0;
    *sticky = st;
}

// Residue j of (X - R) / 2^k from residue xj of X and R = X mod 2^k as the sums al (low halves)
// and ah (high halves) of the products limb_l * |2^(32 l)|_m_j (shift_long_residue and the fused
// kernels' batched twin).
static __device__ __forceinline__ u32 shift_residue_from_sums(const RnsBasis &b, u32 xj, u64 al, u64 ah, u64 k,
                                                              u32 j) {
    u32 m = b.m[j], mu = b.mu[j];
    u32 h = reduce62(ah, m, mu);
    u32 rres = add_mod(reduce62((u64)h * (u64)b.two32[j], m, mu), reduce62(al, m, mu), m);
    return mul_mod(sub_mod(xj, rres, m), rns_inv_pow2_at(b, k, j), m, mu);
}

// Residue j of (X - (X mod 2^k)) / 2^k for k >= 64, from X's low limbs (xj: residue j of X).
static __device__ __forceinline__ u32 shift_long_residue(const RnsBasis &b, u32 xj, const u32 *low, u64 k, u32 j) {
    u32 wk = (u32)(k / 32), bk = (u32)(k % 32);
    u32 used = bk == 0 ? wk : wk + 1;
    u64 al = 0, ah = 0;
    for (u32 l = 0; l < used; l++) {
        u32 limb = l == wk ? low[l] & ((1u << bk) - 1) : low[l];
        u64 p = (u64)limb * (u64)b.pow32[(u64)l * b.n + j];
        al += p & 0xffffffffull;
        ah += p >> 32;
    }
    return shift_residue_from_sums(b, xj, al, ah, k, j);
}

// floor(X / 2^k) in place for X < M/2, with the round bit, the sticky bit and the parity.
static __device__ void shift_right(const RnsBasis &b, u32 *x, u64 k, bool *round, bool *sticky, bool *odd) {
    *round = *sticky = *odd = false;
    if (k == 0) return;
    const u32 n = b.n;
    if (k <= 63) {
        u64 r = shift_short_bits(b, crt_pass_c(b, x, 0, 0), k, round, sticky, odd);
        for (u32 i = 0; i < n; i++) x[i] = shift_short_residue(b, x[i], r, k, i);
        return;
    }
    u32 nl = (u32)((k + 1 + 31) / 32);
    u32 c[RNS_MAX_N];
    u32 low[RNS_MAX_N + 8];
    Pass pass = crt_pass_c(b, x, 0, c);
    i128 v, vh;
    u128 r;
    pass_window(pass, -1, &v, &vh, &r);
    i128 carry = 0;
    for (u32 l = 0; l < nl; l++) low[l] = shift_limb(shift_limb_dot(b, c, l), r, l, b, &carry);
    shift_long_bits(low, k, round, sticky, odd);
    for (u32 j = 0; j < n; j++) x[j] = shift_long_residue(b, x[j], low, k, j);
}

// ---- numbers (float.rs) ---------------------------------------------------------------------

// One number: what a kernel writes for an element (residues separately).
struct RnsNum {
    u8 cls;
    u8 neg;
    i64 exp;
    ExtF lo, hi;
};

static __device__ __forceinline__ RnsNum rns_special(u8 cls, bool neg) {
    RnsNum r;
    r.cls = cls;
    r.neg = (u8)neg;
    r.exp = 0;
    r.lo = extf_zero();
    r.hi = extf_zero();
    return r;
}

// MpFloat::is_zero: finite with a zero upper bound.
static __device__ __forceinline__ bool rns_num_is_zero(const RnsNum &x) { return x.cls == 0 && x.hi.f == 0.0; }

// MpFloat::normalised's range rule for a p-bit significand at 2^exp: true, with *r the infinity
// or zero and the residues s zeroed, when the number is outside the range. Each thread zeroes
// the moduli its way gives it (all for RnsSerial, its own for a warp's way: the lanes then
// neither write the same words nor read what another lane wrote; racecheck flagged every lane
// zeroing a warp's shared residues).
template <class Way>
static __device__ __forceinline__ bool normalised_out_of_range(const Way &way, const RnsBasis &b, bool neg, u32 *s,
                                                               i64 exp, RnsNum *r) {
    i64 t = exp + (i64)b.p;
    if (t <= RNS_EMAX && t >= RNS_EMIN) return false;
    for (u32 i = way.first(); i < b.n; i += way.step()) s[i] = 0;
    *r = rns_special(t > RNS_EMAX ? 1 : 0, neg);
    return true;
}

// MpFloat::normalised: range rule and evaluation of a p-bit significand (residues in s; they are
// zeroed for an infinite or zero result).
template <class Way>
static __device__ RnsNum normalised_by(const Way &way, const RnsBasis &b, bool neg, u32 *s, i64 exp) {
    RnsNum r;
    if (normalised_out_of_range(way, b, neg, s, exp, &r)) return r;
    r = rns_special(0, neg);
    r.exp = exp;
    Eval ev;
    if (eval_unsigned_by(way, b, s, b.k_norm, &ev)) eval_bounds(ev, &r.lo, &r.hi);
    return r;
}

static __device__ __forceinline__ RnsNum normalised(const RnsBasis &b, bool neg, u32 *s, i64 exp) {
    return normalised_by(RnsSerial(), b, neg, s, exp);
}

// Where the exact value lies against the residues S of finish_tail (float.rs Tail): exactly S,
// or S plus or minus a nonzero part below its last bit (a truncated operand).
#define RNS_TAIL_ZERO 0
#define RNS_TAIL_ABOVE 1
#define RNS_TAIL_BELOW 2

// MpFloat::finish_from: rounds (-1)^neg * (S +- tail) * 2^exp, S < 2^max_bits <= M/2 held in the
// basis `b` (which extends `to`, or is it), to the p bits of `to` (nearest, ties to even),
// normalises it and evaluates it in `to`. `way` is RnsSerial or a twin of it (the same results,
// computed by several threads: blas_fused_rns_gpu.cu); `s` ends whole in every thread.
template <class Way>
static __device__ RnsNum finish_from_with(const RnsBasis &b, const RnsBasis &to, bool neg, u32 *s, i64 exp, int tail,
                                          u64 max_bits, const Way &way) {
    u64 p = to.p;
    u64 top = (u64)b.log2m - 1;
    Eval ev;
    if (!eval_unsigned_by(way, b, s, top > max_bits ? top - max_bits : 0, &ev)) return rns_special(0, neg);
    u64 bits = bit_length_by(way, b, s, ev, max_bits);
    // clamp_exponent: far beyond the range rule, so only a guard against i64 overflow
    const i64 lim = (i64)1 << 62;
    exp = exp < -lim ? -lim : exp > lim ? lim : exp;
    if (bits <= p) {
        scale_up(b, s, p - bits);
        exp -= (i64)(p - bits);
    } else {
        u64 k = bits - p;
        bool round, sticky, odd;
        way.shift(b, s, k, &round, &sticky, &odd);
        exp += (i64)k;
        bool up = tail == RNS_TAIL_ZERO ? (round && (sticky || odd)) : tail == RNS_TAIL_ABOVE ? round : (round && sticky);
        if (up) {
            bool top_reached = true;
            for (u32 i = 0; i < b.n; i++) {
                s[i] = add_mod(s[i], 1, b.m[i]);
                top_reached = top_reached && s[i] == rns_pow2_at(b, p, i);
            }
            if (top_reached) {
                for (u32 i = 0; i < b.n; i++) s[i] = rns_pow2_at(b, p - 1, i);
                exp += 1;
            }
        }
    }
    return normalised_by(way, to, neg, s, exp);
}

static __device__ RnsNum finish_from(const RnsBasis &b, const RnsBasis &to, bool neg, u32 *s, i64 exp, int tail,
                                     u64 max_bits) {
    return finish_from_with(b, to, neg, s, exp, tail, max_bits, RnsSerial());
}

// MpFloat::finish: finish_from in one basis.
static __device__ __forceinline__ RnsNum finish_tail(const RnsBasis &b, bool neg, u32 *s, i64 exp, int tail,
                                                     u64 max_bits) {
    return finish_from(b, b, neg, s, exp, tail, max_bits);
}

// MpFloat::finish with Tail::Zero.
static __device__ __forceinline__ RnsNum finish(const RnsBasis &b, bool neg, u32 *s, i64 exp, u64 max_bits) {
    return finish_tail(b, neg, s, exp, RNS_TAIL_ZERO, max_bits);
}

// ---- fused operations (one thread per result) -----------------------------------------------
//
// The CPU's own algorithms (float.rs add_signed, add_core, mul, fma) for a kernel that keeps its
// operands in registers and local memory instead of going through the split kernels: a BLAS
// kernel chaining many operations per thread. Each result is correctly rounded, so it equals the
// split kernels' result as well. Residues are passed beside the numbers; `out` (n words) never
// aliases an operand's residues.

// An operand of the addition core (float.rs Op): (-1)^neg * res * 2^exp with res < 2^bits.
struct RnsOp {
    bool neg;
    const u32 *res;
    i64 exp;
    u64 bits;
};

static __device__ __forceinline__ void rns_copy(const RnsBasis &b, u32 *dst, const u32 *src) {
    for (u32 i = 0; i < b.n; i++) dst[i] = src[i];
}

static __device__ __forceinline__ void rns_zero(const RnsBasis &b, u32 *dst) {
    for (u32 i = 0; i < b.n; i++) dst[i] = 0;
}

// float.rs add_core: x + y rounded once. The operand with the higher top position is scaled up
// exactly to the common exponent e0; the other is scaled up, or, below e0, scaled down with its
// dropped part kept as the tail (never with cancellation: see the CPU's proof).
static __device__ RnsNum rns_add_core(const RnsBasis &b, RnsOp x, RnsOp y, u32 *out) {
    const u32 n = b.n;
    i64 tx = x.exp + (i64)x.bits, ty = y.exp + (i64)y.bits;
    bool x_big = tx >= ty;
    RnsOp big = x_big ? x : y, small = x_big ? y : x;
    i64 tbig = x_big ? tx : ty, tsmall = x_big ? ty : tx;
    bool sub = big.neg != small.neg;
    i64 l = (i64)b.log2m - (sub ? 1 : 2);
    i64 e0 = big.exp < small.exp ? big.exp : small.exp;
    if (e0 < tbig - l) e0 = tbig - l;
    rns_copy(b, out, big.res);
    scale_up(b, out, (u64)(big.exp - e0));
    u32 t[RNS_MAX_N];
    bool truncated = false;
    if (small.exp >= e0) {
        rns_copy(b, t, small.res);
        scale_up(b, t, (u64)(small.exp - e0));
    } else {
        u64 s = (u64)(e0 - small.exp);
        truncated = true;
        if (s >= small.bits) {
            rns_zero(b, t);
        } else {
            rns_copy(b, t, small.res);
            bool round, sticky, odd;
            shift_right(b, t, s, &round, &sticky, &odd);
            truncated = round || sticky;
        }
    }
    if (!sub) {
        for (u32 i = 0; i < n; i++) out[i] = add_mod(out[i], t[i], b.m[i]);
        return finish_tail(b, big.neg, out, e0, truncated ? RNS_TAIL_ABOVE : RNS_TAIL_ZERO, (u64)(tbig - e0 + 1));
    }
    for (u32 i = 0; i < n; i++) out[i] = sub_mod(out[i], t[i], b.m[i]);
    bool neg = big.neg;
    if (truncated) return finish_tail(b, neg, out, e0, RNS_TAIL_BELOW, (u64)(tbig - e0));
    if (tbig == tsmall) {
        // same binade: |X' - Y'| < 2^(t - e0 - 1); its sign decides, exactly
        int sg = sign_of(b, out, (u64)(tbig - e0 - 1));
        if (sg == 0) {
            rns_zero(b, out);
            return rns_special(0, false);
        }
        if (sg < 0) {
            for (u32 i = 0; i < n; i++) out[i] = sub_mod(0, out[i], b.m[i]);
            neg = small.neg;
        }
    }
    return finish_tail(b, neg, out, e0, RNS_TAIL_ZERO, (u64)(tbig - e0));
}

// float.rs add_signed: x + y (y negated when `negate_y`), special values first.
static __device__ RnsNum rns_add_fused(const RnsBasis &b, const RnsNum &x, const u32 *xr, const RnsNum &y,
                                       const u32 *yr, bool negate_y, u32 *out) {
    bool bneg = (y.neg != 0) != negate_y;
    if (x.cls == 2 || y.cls == 2) {
        rns_zero(b, out);
        return rns_special(2, false);
    }
    if (x.cls == 1 && y.cls == 1) {
        if ((x.neg != 0) == bneg) {
            rns_copy(b, out, xr);
            return x;
        }
        rns_zero(b, out);
        return rns_special(2, false);
    }
    if (x.cls == 1) {
        rns_copy(b, out, xr);
        return x;
    }
    if (y.cls == 1) {
        rns_zero(b, out);
        return rns_special(1, bneg);
    }
    bool xz = rns_num_is_zero(x), yz = rns_num_is_zero(y);
    if (xz && yz) {
        rns_zero(b, out);
        return rns_special(0, x.neg != 0 && bneg);
    }
    if (xz) {
        rns_copy(b, out, yr);
        RnsNum r = y;
        r.neg = (u8)bneg;
        return r;
    }
    if (yz) {
        rns_copy(b, out, xr);
        return x;
    }
    RnsOp a = {x.neg != 0, xr, x.exp, (u64)b.p};
    RnsOp c = {bneg, yr, y.exp, (u64)b.p};
    return rns_add_core(b, a, c, out);
}

// float.rs mul_special: the product of special operands (NaN, infinite, zero), or false.
static __device__ __forceinline__ bool rns_mul_special(const RnsNum &x, const RnsNum &y, bool neg, RnsNum *r) {
    if (x.cls == 2 || y.cls == 2) {
        *r = rns_special(2, false);
    } else if (x.cls == 1 || y.cls == 1) {
        *r = (rns_num_is_zero(x) || rns_num_is_zero(y)) ? rns_special(2, false) : rns_special(1, neg);
    } else if (rns_num_is_zero(x) || rns_num_is_zero(y)) {
        *r = rns_special(0, neg);
    } else {
        return false;
    }
    return true;
}

// MpFloat::mul: x * y rounded once.
static __device__ RnsNum rns_mul_fused(const RnsBasis &b, const RnsNum &x, const u32 *xr, const RnsNum &y,
                                       const u32 *yr, u32 *out) {
    bool neg = (x.neg != 0) != (y.neg != 0);
    RnsNum r;
    if (rns_mul_special(x, y, neg, &r)) {
        rns_zero(b, out);
        return r;
    }
    for (u32 i = 0; i < b.n; i++) out[i] = mul_mod(xr[i], yr[i], b.m[i], b.mu[i]);
    return finish(b, neg, out, x.exp + y.exp, 2 * (u64)b.p);
}

// MpFloat::fma: x * y + c rounded once. The product is formed exactly (below 2^(2p) <= M/4) and
// enters the addition core with its exact bit length.
static __device__ RnsNum rns_fma_fused(const RnsBasis &b, const RnsNum &x, const u32 *xr, const RnsNum &y,
                                       const u32 *yr, const RnsNum &c, const u32 *cr, u32 *out) {
    bool neg = (x.neg != 0) != (y.neg != 0);
    u32 z[RNS_MAX_N];
    RnsNum prod;
    if (rns_mul_special(x, y, neg, &prod)) {
        // an exact product (NaN, infinite or zero): adding c rounds once
        rns_zero(b, z);
        return rns_add_fused(b, prod, z, c, cr, false, out);
    }
    if (c.cls == 2) {
        rns_zero(b, out);
        return rns_special(2, false);
    }
    if (c.cls == 1) {
        rns_copy(b, out, cr);
        return c;
    }
    for (u32 i = 0; i < b.n; i++) z[i] = mul_mod(xr[i], yr[i], b.m[i], b.mu[i]);
    const u64 max_bits = 2 * (u64)b.p;
    if (rns_num_is_zero(c)) {
        rns_copy(b, out, z);
        return finish(b, neg, out, x.exp + y.exp, max_bits);
    }
    Eval ev;
    u64 bits = eval_unsigned(b, z, (u64)b.log2m - 1 - max_bits, &ev) ? bit_length(b, z, ev, max_bits) : 0;
    RnsOp pa = {neg, z, x.exp + y.exp, bits};
    RnsOp pc = {c.neg != 0, cr, c.exp, (u64)b.p};
    return rns_add_core(b, pa, pc, out);
}

// ---- array access ---------------------------------------------------------------------------

struct RnsView {
    u32 *d;
    u8 *sign;
    i64 *exp;
    u64 *eval;
    u8 *cls;
};

struct RnsCView {
    const u32 *d;
    const u8 *sign;
    const i64 *exp;
    const u64 *eval;
    const u8 *cls;
};

static __device__ __forceinline__ ExtF rns_load_extf(const u64 *eval, u64 at) {
    ExtF r;
    r.f = __longlong_as_double((long long)eval[2 * at]);
    r.e = (i64)eval[2 * at + 1];
    return r;
}

static __device__ __forceinline__ void rns_store_extf(u64 *eval, u64 at, ExtF x) {
    eval[2 * at] = (u64)__double_as_longlong(x.f);
    eval[2 * at + 1] = (u64)x.e;
}

static __device__ __forceinline__ RnsNum rns_load(const RnsCView &a, u64 len, u64 i) {
    RnsNum r;
    r.cls = a.cls[i];
    r.neg = a.sign[i];
    r.exp = a.exp[i];
    r.lo = rns_load_extf(a.eval, i);
    r.hi = rns_load_extf(a.eval, len + i);
    return r;
}

static __device__ __forceinline__ void rns_store(const RnsView &a, u64 len, u64 i, const RnsNum &x) {
    a.cls[i] = x.cls;
    a.sign[i] = x.neg;
    a.exp[i] = x.exp;
    rns_store_extf(a.eval, i, x.lo);
    rns_store_extf(a.eval, len + i, x.hi);
}

// ---- split add/sub/mul: the plan ------------------------------------------------------------
//
// Kernel 1 (esi, one thread per element) decides everything that needs no residue: special
// values, the result sign, the common exponent and the scaling of each operand, and writes the
// plan: flags (operation of kernel 2, and whether kernel 3 rounds), the two scale exponents and
// the bound on the exact result's bit length. Kernel 2 (digits, one thread per residue) forms
// the exact result's residues in the output digits. Kernel 3 (round, one thread per element)
// rounds them to p bits and evaluates.
//
// Addition aligns exactly, without the CPU's truncation: with t = e + p the top positions and
// d = t_big - t_small, an operand with d >= p + 1 (addition) or d >= p + 2 (subtraction) is
// below half an ulp of the other (a quarter ulp for subtraction), so the correctly rounded
// result is the larger operand itself; otherwise both are scaled to e0 = min(ea, eb) (by at most
// p + 1 bits) and the exact sum is below 2^(2p+1) <= M/2. Both give the correctly rounded sum,
// which is what the CPU returns.

#define RNS_OP_MASK 7u
#define RNS_OP_ZERO 0u   // z = 0
#define RNS_OP_COPY_X 1u // z = x
#define RNS_OP_COPY_Y 2u // z = y
#define RNS_OP_ADD 3u    // z = x 2^sx + y 2^sy
#define RNS_OP_SUB_XY 4u // z = x 2^sx - y 2^sy
#define RNS_OP_SUB_YX 5u // z = y 2^sy - x 2^sx
#define RNS_OP_MUL 6u    // z = x y
#define RNS_OP_SCALE_X 7u // z = x 2^sx
#define RNS_F_ROUND 8u   // kernel 3 rounds this element
#define RNS_F_SIGNED 16u // the difference may be negative or zero: kernel 3 signs it first
#define RNS_F_NEG_SMALL 32u // sign of the result when the signed difference is negative

struct RnsPlan {
    u32 *flags, *sx, *sy, *bits;
};

static __device__ __forceinline__ RnsPlan rns_plan(u32 *plan, u64 len) {
    RnsPlan p;
    p.flags = plan;
    p.sx = plan + len;
    p.sy = plan + 2 * len;
    p.bits = plan + 3 * len;
    return p;
}

// Kernel 1 of x + y (or x - y when `negate_y`) for element i.
static __device__ void rns_esi_add_at(const u32 *tab, u64 len, RnsCView x, RnsCView y, RnsView z, u32 *plan,
                                      bool negate_y, u64 i) {
    RnsBasis b = rns_basis(tab);
    RnsPlan pl = rns_plan(plan, len);
    RnsNum a = rns_load(x, len, i), c = rns_load(y, len, i);
    bool bneg = (c.neg != 0) != negate_y;
    u32 op = RNS_OP_ZERO, sx = 0, sy = 0, bits = 0;
    RnsNum r;
    if (a.cls == 2 || c.cls == 2) {
        r = rns_special(2, false);
    } else if (a.cls == 1 && c.cls == 1) {
        if ((a.neg != 0) == bneg) {
            r = a;
            op = RNS_OP_COPY_X;
        } else {
            r = rns_special(2, false);
        }
    } else if (a.cls == 1) {
        r = a;
        op = RNS_OP_COPY_X;
    } else if (c.cls == 1) {
        r = rns_special(1, bneg);
    } else if (rns_num_is_zero(a) && rns_num_is_zero(c)) {
        r = rns_special(0, a.neg != 0 && bneg);
    } else if (rns_num_is_zero(a)) {
        r = c;
        r.neg = (u8)bneg;
        op = RNS_OP_COPY_Y;
    } else if (rns_num_is_zero(c)) {
        r = a;
        op = RNS_OP_COPY_X;
    } else {
        i64 p = (i64)b.p;
        i64 ta = a.exp + p, tb = c.exp + p;
        bool a_big = ta >= tb;
        bool big_neg = a_big ? a.neg != 0 : bneg;
        bool small_neg = a_big ? bneg : a.neg != 0;
        bool sub = big_neg != small_neg;
        i64 d = a_big ? ta - tb : tb - ta;
        r = rns_special(0, big_neg);
        if (d >= (sub ? p + 2 : p + 1)) {
            // the smaller operand is below the rounding threshold: the result is the larger one
            op = a_big ? RNS_OP_COPY_X : RNS_OP_COPY_Y;
            r.exp = a_big ? a.exp : c.exp;
            bits = (u32)p;
        } else {
            i64 e0 = a.exp < c.exp ? a.exp : c.exp;
            sx = (u32)(a.exp - e0);
            sy = (u32)(c.exp - e0);
            r.exp = e0;
            i64 tbig = a_big ? ta : tb;
            if (!sub) {
                op = RNS_OP_ADD;
                bits = (u32)(tbig - e0 + 1);
            } else {
                op = a_big ? RNS_OP_SUB_XY : RNS_OP_SUB_YX;
                bits = (u32)(tbig - e0);
                if (d == 0) op |= RNS_F_SIGNED | (small_neg ? RNS_F_NEG_SMALL : 0u);
            }
        }
        op |= RNS_F_ROUND;
    }
    rns_store(z, len, i, r);
    pl.flags[i] = op;
    pl.sx[i] = sx;
    pl.sy[i] = sy;
    pl.bits[i] = bits;
}

// Kernel 1 of x * y for element i.
static __device__ void rns_esi_mul_at(const u32 *tab, u64 len, RnsCView x, RnsCView y, RnsView z, u32 *plan, u64 i) {
    RnsBasis b = rns_basis(tab);
    RnsPlan pl = rns_plan(plan, len);
    RnsNum a = rns_load(x, len, i), c = rns_load(y, len, i);
    bool neg = (a.neg != 0) != (c.neg != 0);
    u32 op = RNS_OP_ZERO;
    RnsNum r;
    if (a.cls == 2 || c.cls == 2) {
        r = rns_special(2, false);
    } else if (a.cls == 1 || c.cls == 1) {
        r = (rns_num_is_zero(a) || rns_num_is_zero(c)) ? rns_special(2, false) : rns_special(1, neg);
    } else if (rns_num_is_zero(a) || rns_num_is_zero(c)) {
        r = rns_special(0, neg);
    } else {
        r = rns_special(0, neg);
        r.exp = a.exp + c.exp;
        op = RNS_OP_MUL | RNS_F_ROUND;
    }
    rns_store(z, len, i, r);
    pl.flags[i] = op;
    pl.sx[i] = 0;
    pl.sy[i] = 0;
    pl.bits[i] = 2 * b.p;
}

// Kernel 2 for residue t = i n + j of the n L residues (coalesced: consecutive t are adjacent).
static __device__ __forceinline__ void rns_digits_at(const RnsBasis &b, u64 len, const u32 *xd, const u32 *yd,
                                                     const u32 *plan, u32 *zd, u64 t) {
    u64 i = t / b.n;
    u32 j = (u32)(t - i * b.n);
    u32 f = plan[i];
    u32 m = b.m[j], mu = b.mu[j];
    u32 r;
    switch (f & RNS_OP_MASK) {
    case RNS_OP_COPY_X: r = xd[t]; break;
    case RNS_OP_COPY_Y: r = yd[t]; break;
    case RNS_OP_MUL: r = mul_mod(xd[t], yd[t], m, mu); break;
    case RNS_OP_ZERO: r = 0; break;
    default: {
        u32 sx = plan[len + i], sy = plan[2 * len + i];
        u32 xs = sx == 0 ? xd[t] : mul_mod(xd[t], rns_pow2_at(b, sx, j), m, mu);
        u32 op = f & RNS_OP_MASK;
        if (op == RNS_OP_SCALE_X) {
            r = xs;
            break;
        }
        u32 ys = sy == 0 ? yd[t] : mul_mod(yd[t], rns_pow2_at(b, sy, j), m, mu);
        r = op == RNS_OP_ADD ? add_mod(xs, ys, m) : op == RNS_OP_SUB_XY ? sub_mod(xs, ys, m) : sub_mod(ys, xs, m);
    }
    }
    zd[t] = r;
}

// Kernel 2 of a product for residue t = i n + j.
static __device__ __forceinline__ void rns_mul_digits_at(const RnsBasis &b, const u32 *xd, const u32 *yd,
                                                         const u32 *plan, u32 *zd, u64 t) {
    u64 i = t / b.n;
    u32 j = (u32)(t - i * b.n);
    zd[t] = (plan[i] & RNS_OP_MASK) == RNS_OP_MUL ? mul_mod(xd[t], yd[t], b.m[j], b.mu[j]) : 0u;
}

// Kernel 3 for element i: rounds the exact result that kernel 2 left in the digits.
static __device__ void rns_round_at(const u32 *tab, u64 len, RnsView z, const u32 *plan, u64 i) {
    u32 f = plan[i];
    if ((f & RNS_F_ROUND) == 0) return;
    RnsBasis b = rns_basis(tab);
    const u32 n = b.n;
    u32 s[RNS_MAX_N];
    u32 *zd = z.d + i * n;
    for (u32 j = 0; j < n; j++) s[j] = zd[j];
    bool neg = z.sign[i] != 0;
    i64 e0 = z.exp[i];
    u64 max_bits = plan[3 * len + i];
    RnsNum r;
    bool done = false;
    if (f & RNS_F_SIGNED) {
        // same binade: |X' - Y'| < 2^(p - 1) (the exponents are equal)
        int sg = sign_of(b, s, (u64)b.p - 1);
        if (sg == 0) {
            for (u32 j = 0; j < n; j++) s[j] = 0;
            r = rns_special(0, false);
            done = true;
        } else if (sg < 0) {
            for (u32 j = 0; j < n; j++) s[j] = sub_mod(0, s[j], b.m[j]);
            neg = (f & RNS_F_NEG_SMALL) != 0;
        }
    }
    if (!done) r = finish(b, neg, s, e0, max_bits);
    for (u32 j = 0; j < n; j++) zd[j] = s[j];
    rns_store(z, len, i, r);
}

// ---- division and square root (one thread per element) --------------------------------------
//
// Both work on the binary significands: A, B (p bits each) are converted to 32-bit limbs with
// one CRT pass and the limb tables (as shift_right does), the quotient or root is formed with
// its remainder by restoring shift-and-subtract, rounded to nearest-even in binary (the
// remainder is the sticky bit), converted back to residues, and normalised. The result is the
// correctly rounded one, which is what the CPU's Newton-and-proof algorithm returns.

// Low `nl` 32-bit limbs of X in [0, M/2) (all of X when X < 2^(32 nl)).
static __device__ void rns_to_binary(const RnsBasis &b, const u32 *x, u32 nl, u32 *out) {
    const u32 n = b.n;
    u32 c[RNS_MAX_N];
    Pass pass = crt_pass_c(b, x, 0, c);
    i128 v, vh;
    u128 r;
    pass_window(pass, -1, &v, &vh, &r);
    i128 carry = 0;
    for (u32 l = 0; l < nl; l++) {
        u64 dl = 0, dh = 0;
        const u32 *row = b.mi_bin + (u64)l * n;
        for (u32 i = 0; i < n; i++) {
            u64 p = (u64)c[i] * (u64)row[i];
            dl += p & 0xffffffffull;
            dh += p >> 32;
        }
        u128 dot = ((u128)dh << 32) + (u128)dl;
        i128 tt = carry + (i128)dot - (i128)r * (i128)b.m_bin[l];
        out[l] = (u32)tt;
        carry = tt >> 32;
    }
}

// Residues of the binary integer with limbs q[0..nl).
static __device__ void rns_from_binary(const RnsBasis &b, const u32 *q, u32 nl, u32 *x) {
    const u32 n = b.n;
    for (u32 j = 0; j < n; j++) {
        u64 al = 0, ah = 0;
        for (u32 l = 0; l < nl; l++) {
            u64 p = (u64)q[l] * (u64)b.pow32[(u64)l * n + j];
            al += p & 0xffffffffull;
            ah += p >> 32;
        }
        u32 m = b.m[j], mu = b.mu[j];
        u32 h = reduce62(ah, m, mu);
        x[j] = add_mod(reduce62((u64)h * (u64)b.two32[j], m, mu), reduce62(al, m, mu), m);
    }
}

static __device__ __forceinline__ u32 rns_bit(const u32 *a, u64 i) { return (a[i / 32] >> (i % 32)) & 1u; }

// a >= b for w-limb integers.
static __device__ __forceinline__ bool rns_ge(const u32 *a, const u32 *b, u32 w) {
    for (u32 l = w; l-- > 0;)
        if (a[l] != b[l]) return a[l] > b[l];
    return true;
}

// a -= b (a >= b).
static __device__ __forceinline__ void rns_sub_in(u32 *a, const u32 *b, u32 w) {
    u64 borrow = 0;
    for (u32 l = 0; l < w; l++) {
        u64 d = (u64)a[l] - (u64)b[l] - borrow;
        a[l] = (u32)d;
        borrow = (d >> 32) & 1;
    }
}

// a = 2a + bit (the top bit shifted out is zero by the callers' bounds).
static __device__ __forceinline__ void rns_shl1(u32 *a, u32 w, u32 bit) {
    u32 carry = bit;
    for (u32 l = 0; l < w; l++) {
        u32 v = a[l];
        a[l] = (v << 1) | carry;
        carry = v >> 31;
    }
}

// Rounds the (p+k)-bit integer q (k >= 1) with extra sticky information to p bits, nearest even,
// in place (limbs w); returns the number of bits dropped (k, or k + 1 when it rounded up to 2^p).
static __device__ u32 rns_round_binary(u32 *q, u32 w, u32 p, u32 k, bool sticky_in) {
    bool round = rns_bit(q, k - 1) != 0;
    bool sticky = sticky_in;
    for (u32 i = 0; i + 1 < k; i++) sticky = sticky || rns_bit(q, i) != 0;
    bool odd = rns_bit(q, k) != 0;
    // q >>= k
    for (u32 l = 0; l < w; l++) {
        u64 cur = q[l];
        u64 nxt = l + 1 < w ? q[l + 1] : 0;
        u64 both = cur | (nxt << 32);
        q[l] = (u32)(both >> k);  // k < 32 here
    }
    if (round && (sticky || odd)) {
        for (u32 l = 0; l < w; l++) {
            q[l] += 1;
            if (q[l] != 0) break;
        }
        if (rns_bit(q, p) != 0) {
            // 2^p: renormalise to 2^(p-1) with one more dropped bit
            for (u32 l = 0; l < w; l++) q[l] = 0;
            q[(p - 1) / 32] = 1u << ((p - 1) % 32);
            return k + 1;
        }
    }
    return k;
}

// MpFloat::div: a / c rounded once (residues ar, cr; the result's in `out`, zero for a special
// result).
static __device__ RnsNum rns_div_fused(const RnsBasis &b, const RnsNum &a, const u32 *ar, const RnsNum &c,
                                       const u32 *cr, u32 *out) {
    const u32 n = b.n;
    bool neg = (a.neg != 0) != (c.neg != 0);
    RnsNum r;
    bool special = true;
    if (a.cls == 2 || c.cls == 2) r = rns_special(2, false);
    else if (a.cls == 1 && c.cls == 1) r = rns_special(2, false);
    else if (a.cls == 1) r = rns_special(1, neg);
    else if (c.cls == 1) r = rns_special(0, neg);
    else if (rns_num_is_zero(a) && rns_num_is_zero(c)) r = rns_special(2, false);
    else if (rns_num_is_zero(c)) r = rns_special(1, neg);
    else if (rns_num_is_zero(a)) r = rns_special(0, neg);
    else special = false;
    if (special) {
        for (u32 j = 0; j < n; j++) out[j] = 0;
        return r;
    }
    const u32 p = b.p;
    const u32 wa = (p + 31) / 32;      // limbs of A and B
    const u32 w = (p + 2 + 31) / 32;   // limbs of the remainder and quotient (p + 2 bits)
    u32 A[RNS_MAX_W], B[RNS_MAX_W], R[RNS_MAX_W], Q[RNS_MAX_W];
    for (u32 l = 0; l < w; l++) A[l] = B[l] = R[l] = Q[l] = 0;
    rns_to_binary(b, ar, wa, A);
    rns_to_binary(b, cr, wa, B);
    // Q = floor(A 2^(p+1) / B), R the remainder: start from floor(A/2) < B, then the last bit of
    // A and p + 1 zero bits.
    for (u32 l = 0; l < w; l++) R[l] = (A[l] >> 1) | (l + 1 < w ? A[l + 1] << 31 : 0);
    for (u32 step = 0; step < p + 2; step++) {
        u32 bit = step == 0 ? (A[0] & 1u) : 0u;
        rns_shl1(R, w, bit);
        u32 qb = 0;
        if (rns_ge(R, B, w)) {
            rns_sub_in(R, B, w);
            qb = 1;
        }
        rns_shl1(Q, w, qb);
    }
    bool rem = false;
    for (u32 l = 0; l < w; l++) rem = rem || R[l] != 0;
    u32 k = rns_bit(Q, p + 1) ? 2 : 1;  // Q has p + 1 or p + 2 bits
    u32 dropped = rns_round_binary(Q, w, p, k, rem);
    rns_from_binary(b, Q, wa, out);
    i64 e = a.exp - c.exp - (i64)(p + 1) + (i64)dropped;
    return normalised(b, neg, out, e);
}

// x / y for element i (one thread per element).
static __device__ void rns_div_at(const u32 *tab, u64 len, RnsCView x, RnsCView y, RnsView z, u64 i) {
    RnsBasis b = rns_basis(tab);
    const u32 n = b.n;
    u32 s[RNS_MAX_N];
    RnsNum r = rns_div_fused(b, rns_load(x, len, i), x.d + i * n, rns_load(y, len, i), y.d + i * n, s);
    for (u32 j = 0; j < n; j++) z.d[i * n + j] = s[j];
    rns_store(z, len, i, r);
}

// sqrt(x) for element i (one thread per element).
static __device__ void rns_sqrt_at(const u32 *tab, u64 len, RnsCView x, RnsView z, u64 i) {
    RnsBasis b = rns_basis(tab);
    const u32 n = b.n;
    RnsNum a = rns_load(x, len, i);
    u32 s[RNS_MAX_N];
    bool copy = false;
    RnsNum r;
    bool special = true;
    if (a.cls == 2) r = rns_special(2, false);
    else if (a.cls == 1) {
        if (a.neg) r = rns_special(2, false);
        else copy = true;
    } else if (rns_num_is_zero(a)) copy = true;
    else if (a.neg) r = rns_special(2, false);
    else special = false;
    if (special) {
        for (u32 j = 0; j < n; j++) z.d[i * n + j] = copy ? x.d[i * n + j] : 0;
        rns_store(z, len, i, copy ? a : r);
        return;
    }
    const u32 p = b.p;
    const u32 wa = (p + 31) / 32;
    const u32 w = (p + 5 + 31) / 32;  // the remainder stays below 2^(p+4), the trial value 2^(p+2)
    u32 A[RNS_MAX_W], R[RNS_MAX_W], Q[RNS_MAX_W], T[RNS_MAX_W];
    for (u32 l = 0; l < w; l++) A[l] = R[l] = Q[l] = T[l] = 0;
    rns_to_binary(b, x.d + i * n, wa, A);
    // N = A 2^sh with sh in {p+1, p+2} and exp - sh even: N in [2^(2p), 2^(2p+2)), so
    // floor(sqrt N) has exactly p + 1 bits.
    u32 sh = ((a.exp - (i64)(p + 1)) & 1) == 0 ? p + 1 : p + 2;
    u64 nbits = 2 * (u64)p + 2;  // N < 2^(2p+2): p + 1 pairs of bits
    for (u64 pair = nbits / 2; pair-- > 0;) {
        // R = 4R + next two bits of N
        for (int h = 1; h >= 0; h--) {
            u64 pos = 2 * pair + (u64)h;
            u32 bit = (pos >= sh && pos - sh < p) ? rns_bit(A, pos - sh) : 0u;
            rns_shl1(R, w, bit);
        }
        // T = 4Q + 1
        for (u32 l = 0; l < w; l++) T[l] = Q[l];
        rns_shl1(T, w, 0);
        rns_shl1(T, w, 1);
        u32 qb = 0;
        if (rns_ge(R, T, w)) {
            rns_sub_in(R, T, w);
            qb = 1;
        }
        rns_shl1(Q, w, qb);
    }
    bool rem = false;
    for (u32 l = 0; l < w; l++) rem = rem || R[l] != 0;
    u32 dropped = rns_round_binary(Q, w, p, 1, rem);
    rns_from_binary(b, Q, wa, s);
    i64 e = (a.exp - (i64)sh) / 2 + (i64)dropped;
    r = normalised(b, false, s, e);
    for (u32 j = 0; j < n; j++) z.d[i * n + j] = s[j];
    rns_store(z, len, i, r);
}
