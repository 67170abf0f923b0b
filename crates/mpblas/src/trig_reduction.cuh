// Payne-Hanek reduction x = N*pi/2 + r: the device twin of crates/mpblas/src/trig_reduction.rs.
//
// Same function names, same integer algorithm and the same floating-point operations in the same
// order, so `rem_pio2` returns the CPU's quadrant and words bit for bit. The Rust `u128` products
// are `unsigned __int128` here (NVRTC: `--device-int128`, set in cuda/nvrtc.rs). Slices become a
// pointer and a length; the fixed-size Rust arrays become local arrays of the same size. The
// tables (2/pi, pi/2, the limb counts) come from trig_reduction_tables.cuh, generated from the
// Rust ones.

#ifndef MPBLAS_TRIG_REDUCTION_CUH
#define MPBLAS_TRIG_REDUCTION_CUH

#include "eft.cuh"
#include "trig_reduction_tables.cuh"

namespace trig_reduction {

typedef unsigned long long u64;
typedef unsigned __int128 u128;

// Accumulator length at the maximum width: fraction limbs, guard limbs, one integer limb.
#define MPR_ACC_LEN (MPR_MAX_FRAC_LIMBS + MPR_GUARD + 1)

// `u64::leading_zeros` of a non-zero word (all callers test for zero first).
MP_DEV int clz64(u64 x) {
#ifdef __CUDA_ARCH__
    return __clzll((long long)x);
#else
    return __builtin_clzll(x);
#endif
}

// 64 bits of the fraction of 2/pi starting at bit j0 (weight 2^-j0, the result's MSB).
MP_DEV u64 two_over_pi_bits(long long j0) {
    if (j0 >= 1) {
        long long off = j0 - 1;
        long long i = off / 64, s = off % 64;
        u64 a = i < MPR_TWO_OVER_PI_LEN ? MPR_TWO_OVER_PI[i] : 0;
        if (s == 0) return a;
        u64 b = i + 1 < MPR_TWO_OVER_PI_LEN ? MPR_TWO_OVER_PI[i + 1] : 0;
        return (a << s) | (b >> (64 - s));
    } else if (j0 + 63 < 1) {
        return 0;
    } else {
        return MPR_TWO_OVER_PI[0] >> (1 - j0);
    }
}

// |w| = m * 2^e with m < 2^53, for a finite non-zero w.
MP_DEV void decompose(double w, u64 &m, long long &e, bool &neg) {
    u64 bits = (u64)__double_as_longlong(w);
    long long biased = (long long)((bits >> 52) & 0x7ff);
    u64 frac = bits & ((1ULL << 52) - 1);
    neg = (bits >> 63) == 1;
    if (biased == 0) {
        m = frac;
        e = -1074;
    } else {
        m = frac | (1ULL << 52);
        e = biased - 1075;
    }
}

// a += b modulo 2^(64 len).
MP_DEV void add_assign(u64 *a, const u64 *b, int len) {
    bool carry = false;
    for (int k = 0; k < len; k++) {
        u64 s1 = a[k] + b[k];
        bool c1 = s1 < a[k];
        u64 s2 = s1 + (u64)carry;
        bool c2 = s2 < s1;
        a[k] = s2;
        carry = c1 | c2;
    }
}

// a -= b modulo 2^(64 len).
MP_DEV void sub_assign(u64 *a, const u64 *b, int len) {
    bool borrow = false;
    for (int k = 0; k < len; k++) {
        u64 s1 = a[k] - b[k];
        bool c1 = a[k] < b[k];
        u64 s2 = s1 - (u64)borrow;
        bool c2 = s1 < (u64)borrow;
        a[k] = s2;
        borrow = c1 | c2;
    }
}

// a = -a modulo 2^(64 len).
MP_DEV void negate(u64 *a, int len) {
    bool carry = true;
    for (int k = 0; k < len; k++) {
        u64 s = ~a[k] + (u64)carry;
        carry = carry && s == 0;
        a[k] = s;
    }
}

// Leading zero bits of a little-endian big integer (its full width if zero).
MP_DEV long long leading_zeros(const u64 *a, int len) {
    long long lz = 0;
    for (int k = len - 1; k >= 0; k--) {
        if (a[k] != 0) return lz + clz64(a[k]);
        lz += 64;
    }
    return lz;
}

// Bit i of a little-endian big integer (0 outside it).
MP_DEV u64 bit(const u64 *a, int len, long long i) {
    if (i < 0 || i >= 64LL * len) return 0;
    return (a[i / 64] >> (i % 64)) & 1;
}

// The 64 bits top, top-1, ..., top-63 (top is the MSB of the result); outside bits read 0.
MP_DEV u64 bits_below(const u64 *a, int len, long long top) {
    long long lo = top - 63;
    // div_euclid / rem_euclid by 64.
    long long i = lo >= 0 ? lo / 64 : -((-lo + 63) / 64);
    long long s = lo - 64 * i;
    u64 gi = (i < 0 || i >= len) ? 0 : a[i];
    if (s == 0) return gi;
    u64 gi1 = (i + 1 < 0 || i + 1 >= len) ? 0 : a[i + 1];
    return (gi >> s) | (gi1 << (64 - s));
}

// x*2/pi mod 4 in fixed point with nf + GUARD fraction limbs, rounded to the nearest integer:
// q = N mod 4, neg = (f < 0), mag = |f| (little-endian, ACC_LEN limbs), lz = its leading zeros.
MP_DEV void fraction(const double *words, int nwords, int nf, int &q, bool &neg, u64 *mag,
                     long long &lz) {
    const int nfrac = nf + MPR_GUARD;
    const int len = nfrac + 1;
    u64 acc[MPR_ACC_LEN];
    for (int k = 0; k < MPR_ACC_LEN; k++) acc[k] = 0;
    for (int wi = 0; wi < nwords; wi++) {
        double w = words[wi];
        if (w == 0.0 || !mp_is_finite(w)) continue;
        u64 m;
        long long e;
        bool wneg;
        decompose(w, m, e, wneg);
        if (e + 53 < -64LL * nfrac) continue;
        u64 prod[MPR_ACC_LEN];
        u128 carry = 0;
        for (int k = 0; k < len; k++) {
            long long j0 = e + 64LL * nfrac - 64LL * k - 63;
            u128 t = (u128)two_over_pi_bits(j0) * (u128)m + carry;
            prod[k] = (u64)t;
            carry = t >> 64;
        }
        if (wneg) {
            sub_assign(acc, prod, len);
        } else {
            add_assign(acc, prod, len);
        }
    }
    u64 intp = acc[nfrac];
    bool round_up = (acc[nfrac - 1] >> 63) == 1;
    for (int k = 0; k < MPR_ACC_LEN; k++) mag[k] = k < nfrac ? acc[k] : 0;
    if (round_up) {
        negate(mag, nfrac);
        q = (int)((intp + 1) & 3);
    } else {
        q = (int)(intp & 3);
    }
    neg = round_up;
    lz = leading_zeros(mag, nfrac);
}

// a += 2^s modulo 2^(64 len), s >= 0.
MP_DEV void add_pow2(u64 *a, int len, long long s) {
    long long i = s / 64;
    u64 add = 1ULL << (s % 64);
    while (i < len && add != 0) {
        u64 v = a[i] + add;
        add = v < a[i] ? 1 : 0;
        a[i] = v;
        i += 1;
    }
}

// m * 2^k for an integer m < 2^54, rounded once.
MP_DEV double ldexp_int(u64 m, long long k) {
    double x = (double)m;
    if (k > 1023) {
        return __longlong_as_double(0x7ff0000000000000LL);
    } else if (k >= -1022) {
        return x * __longlong_as_double((k + 1023) << 52);
    } else if (k >= -2044) {
        return x * __longlong_as_double((k + 1022 + 1023) << 52) *
               __longlong_as_double((long long)(-1022 + 1023) << 52);
    } else {
        return 0.0;
    }
}

// Every word fl(word + next): a Fast-Two-Sum sweep, repeated while it changes anything.
MP_DEV void renormalise(double *w) {
    for (int pass = 0; pass < 4; pass++) {
        bool changed = false;
        for (int i = 0; i < 3; i++) {
            double s, e;
            fast_two_sum(w[i], w[i + 1], s, e);
            if (s != w[i] || e != w[i + 1]) changed = true;
            w[i] = s;
            w[i + 1] = e;
        }
        if (!changed) break;
    }
}

// Rounds +-p*2^scale (p: 10 limbs, destroyed) to a normalised 4-word expansion greedily.
MP_DEV void to_expansion(u64 *p, long long scale, bool neg, double *out) {
    const int len = 10;
    for (int k = 0; k < 4; k++) out[k] = 0.0;
    for (int w = 0; w < 4; w++) {
        long long lz = leading_zeros(p, len);
        long long width = 64LL * len;
        if (lz >= width) break;
        long long tb = width - 1 - lz;
        long long sh = tb - 52 > 0 ? tb - 52 : 0;
        u64 mant = bits_below(p, len, tb) >> (63 - (tb - sh));
        bool round = bit(p, len, sh - 1) == 1;
        // Any of the bits 0 .. sh-2 set (the Rust loop over them, limb by limb).
        bool sticky = false;
        long long nbits = sh - 1;
        for (int k = 0; k < len && 64LL * k < nbits; k++) {
            long long lo = 64LL * k;
            u64 limb = p[k];
            if (lo + 64 > nbits) limb &= (1ULL << (nbits - lo)) - 1;
            if (limb != 0) sticky = true;
        }
        // p = p mod 2^sh.
        for (int k = 0; k < len; k++) {
            long long lo = 64LL * k;
            if (lo >= sh) {
                p[k] = 0;
            } else if (lo + 64 > sh) {
                p[k] &= (1ULL << (sh - lo)) - 1;
            }
        }
        bool value_sign = neg;
        if (round && (sticky || (mant & 1) == 1)) {
            mant += 1;
            negate(p, len);
            add_pow2(p, len, sh);
            neg = !neg;
        }
        double v = ldexp_int(mant, sh + scale);
        out[w] = value_sign ? -v : v;
    }
    renormalise(out);
}

// r = +-|f|*pi/2 where |f| = mag*2^(-64 len) has lz leading zeros.
MP_DEV void times_pio2(const u64 *mag, int len, long long lz, bool neg, double *out) {
    long long width = 64LL * len;
    if (lz >= width) {
        for (int k = 0; k < 4; k++) out[k] = 0.0;
        return;
    }
    long long top = width - 1 - lz;
    u64 m5[5];
    for (int k = 0; k < 5; k++) m5[k] = bits_below(mag, len, top - 64LL * (4 - k));
    u64 prod[10];
    for (int k = 0; k < 10; k++) prod[k] = 0;
    for (int i = 0; i < 5; i++) {
        u128 carry = 0;
        for (int j = 0; j < 5; j++) {
            u128 t = (u128)m5[i] * (u128)MPR_PIO2[j] + (u128)prod[i + j] + carry;
            prod[i + j] = (u64)t;
            carry = t >> 64;
        }
        prod[i + 5] = (u64)carry;
    }
    to_expansion(prod, top - 638 - width, neg, out);
}

// x = N*pi/2 + r for a finite non-overlapping expansion x of nx words (most significant first):
// returns N mod 4 and r as 4 words (see the Rust doc of `rem_pio2`).
MP_DEV int rem_pio2(const double *x, int nx, double *r) {
    for (int k = 0; k < 4; k++) r[k] = 0.0;
    if (nx <= 0) return 0;
    double x0 = x[0];
    if (!mp_is_finite(x0)) {
        r[0] = __longlong_as_double(0x7ff8000000000000LL);
        return 0;
    }
    if (mp_abs(x0) < MPF_FRAC_PI_4) {
        for (int k = 0; k < nx && k < 4; k++) r[k] = x[k];
        return 0;
    }
    const int nwords = nx < 8 ? nx : 8;
    const long long log2_words = 3;
    int nf = MPR_MIN_FRAC_LIMBS;
    u64 mag[MPR_ACC_LEN];
    for (;;) {
        int q;
        bool neg;
        long long lz;
        fraction(x, nwords, nf, q, neg, mag, lz);
        bool enough = lz <= 64LL * nf + 75 - log2_words - MPR_TARGET_BITS;
        if (enough || nf == MPR_MAX_FRAC_LIMBS) {
            times_pio2(mag, nf + MPR_GUARD, lz, neg, r);
            return q;
        }
        long long need = (lz + MPR_TARGET_BITS + log2_words - 75 + 63) / 64 + 1;
        long long next = need > nf + 1 ? need : nf + 1;
        nf = (int)(next < MPR_MAX_FRAC_LIMBS ? next : MPR_MAX_FRAC_LIMBS);
    }
}

// `cody_waite_dd`: false when |r| < 2^-40 |hi| (then Payne-Hanek decides).
MP_DEV bool cody_waite_dd(double hi, double lo, int &q, double &rh, double &rl) {
    double n = mp_round(hi * MPF_FRAC_2_PI);
    sub_multiple_dd(hi, lo, n, MPR_PIO2_W0, MPR_PIO2_W1, MPR_PIO2_W2, rh, rl);
    if (mp_abs(rh) < mp_abs(hi) * MPR_CODY_WAITE_MIN_RATIO) return false;
    q = (int)((long long)n & 3);
    return true;
}

// `rem_pio2_dd`: x = N*pi/2 + r for a finite double-double, r rounded to a double-double;
// returns N mod 4. Cody-Waite for fl(pi/4) <= |hi| < 2^20 where it is accurate, else Payne-Hanek.
MP_DEV int rem_pio2_dd(double hi, double lo, double &rh, double &rl) {
    double a = mp_abs(hi);
    if (a >= MPF_FRAC_PI_4 && a < MPR_CODY_WAITE_LIMIT) {
        int q;
        if (cody_waite_dd(hi, lo, q, rh, rl)) return q;
    }
    double xw[2] = {hi, lo};
    double r4[4];
    int q = rem_pio2(xw, 2, r4);
    fast_two_sum(r4[0], r4[1], rh, rl);
    return q;
}

} // namespace trig_reduction

#endif
