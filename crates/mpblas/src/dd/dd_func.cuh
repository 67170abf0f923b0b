// Double-double exp, ln, sin, cos: the device twins of crates/mpblas/src/dd/func/{mod.rs,
// explog.rs, trig.rs}. Every path is register-resident: the exp and ln reductions and the ln
// assembly are fixed sequences of exact transformations (no expansion arrays), and sin/cos
// reduce by Cody-Waite below 2^20 (trig_reduction.cuh's rem_pio2_dd; Payne-Hanek, with its
// local limb arrays, only for larger or nearly-exact multiples of pi/2).
//
// Same function names and the same floating-point operations in the same order as the Rust
// code, so the GPU returns the CPU's bits (tests/cuda_twin_host.rs compiles this header as host
// C++ and compares; tests/gpu_func_bits.rs compares on the GPU). Rust operators map as follows:
// `Dd + Dd` is dd::add_accurate, `Dd - Dd` dd::sub, `Dd * Dd` dd::mul_accurate, `Dd + f64`
// dd::add_f64, `d.sqr()` dd::sqr, `d.ldexp(n)` dd::ldexp_dd, `Dd::new` dd::dd_new, and the free
// functions `ldexp`/`frexp` of dd/func/mod.rs keep their names. The tables come from
// func_tables.cuh, which is generated from the Rust tables.

#ifndef MPBLAS_DD_FUNC_CUH
#define MPBLAS_DD_FUNC_CUH

#include "dd.cuh"
#include "dd_tables.cuh"
#include "trig_reduction.cuh"

namespace dd {

// ---- dd/arith.rs operations not in dd.cuh -----------------------------------------------------

// `Dd::add_f64` (JMP Algorithm 4), with the `finish` epilogue.
MP_DEV Dd add_f64(Dd a, double b) {
    double sh, sl, zh, zl;
    two_sum(a.hi, b, sh, sl);
    double v = a.lo + sl;
    fast_two_sum(sh, v, zh, zl);
    if (generic_ok(zh)) return dd_make(zh, zl);
    return special(a.hi + b, zh);
}

// `Dd::sqr`.
MP_DEV Dd sqr(Dd a) { return mul_accurate(a, a); }

// 2^n for n clamped to the normal range (`pow2` of dd/arith.rs).
MP_DEV double pow2_dd(int n) {
    n = n < -1022 ? -1022 : (n > 1023 ? 1023 : n);
    return __longlong_as_double((long long)(n + 1023) << 52);
}

// One level of `Dd::ldexp`: in range, a product by 2^n.
MP_DEV Dd ldexp_dd_in(Dd a, int n) {
    double s = pow2_dd(n);
    return dd_make(a.hi * s, a.lo * s);
}

// `Dd::ldexp` for |n| <= 4092 (the Rust recursion unrolled twice; callers here pass
// -1075 <= n <= 1024, for which one split suffices).
MP_DEV Dd ldexp_dd(Dd a, int n) {
    if (n >= -1022 && n <= 1023) return ldexp_dd_in(a, n);
    int h = n / 2;
    int h1 = h / 2, h2 = (n - h) / 2;
    Dd t = (h >= -1022 && h <= 1023) ? ldexp_dd_in(a, h) : ldexp_dd_in(ldexp_dd_in(a, h1), h - h1);
    int m = n - h;
    return (m >= -1022 && m <= 1023) ? ldexp_dd_in(t, m) : ldexp_dd_in(ldexp_dd_in(t, h2), m - h2);
}

// `Dd::new`: hi + lo normalised by TwoSum (lo zeroed if the sum is not finite).
MP_DEV Dd dd_new(double hi, double lo) {
    double s, e;
    two_sum(hi, lo, s, e);
    if (mp_is_finite(s)) return dd_make(s, e);
    return dd_make(s, 0.0);
}

// A table row (hi, lo) as a Dd.
MP_DEV Dd tab_dd(const unsigned long long *row) { return dd_make(mp_tab(row[0]), mp_tab(row[1])); }

// `neg_if`.
MP_DEV Dd neg_if(Dd a, bool n) { return n ? neg(a) : a; }

// ---- dd/func/mod.rs ---------------------------------------------------------------------------

// `frexp`: |x| = f*2^e, f in [0.5, 1), for finite non-zero x.
MP_DEV void frexp(double x, double &f, int &e) {
    x = mp_abs(x);
    int bias = 0;
    if (x < 2.2250738585072014e-308) {
        x = x * 18446744073709551616.0;
        bias = -64;
    }
    long long b = __double_as_longlong(x);
    e = (int)((b >> 52) & 0x7ff) - 1022 + bias;
    f = __longlong_as_double((b & ~(0x7ffLL << 52)) | (1022LL << 52));
}

// `ldexp`: x*2^n by exact power-of-two products (one rounding only for a subnormal result).
MP_DEV double ldexp(double x, int n) {
    for (;;) {
        if (n > 1023) {
            x = x * __longlong_as_double((long long)(1023 + 1023) << 52);
            n -= 1023;
            continue;
        }
        if (n >= -1022) return x * __longlong_as_double((long long)(n + 1023) << 52);
        if (n >= -2044) {
            return x * __longlong_as_double((long long)(n + 1022 + 1023) << 52) *
                   __longlong_as_double((long long)(-1022 + 1023) << 52);
        }
        if (mp_abs(x) < 1.0) return 0.0 * x;
        x = x * __longlong_as_double((long long)(-1022 + 1023) << 52);
        n += 1022;
    }
}

// ---- dd/func/explog.rs ------------------------------------------------------------------------

// `clean`: a non-finite or zero hi has lo = 0.
MP_DEV Dd clean(Dd d) {
    if (mp_is_finite(d.hi) && d.hi != 0.0) {
        double h, l;
        fast_two_sum(d.hi, d.lo, h, l);
        return dd_make(h, l);
    }
    return dd_make(d.hi, 0.0);
}

// `inv_int(n)` for integer n in 1..20 (table of the same values).
MP_DEV Dd inv_int(int n) { return tab_dd(MPD_INV_INT[n]); }

// `expm1_small`: |r| <= 1/128 + eps, degree EXP_DEGREE = 12, terms from EXP_TAIL_FROM = 8 on
// in f64 (plain operations: the Rust code's bits).
MP_DEV Dd expm1_small(Dd r) {
    double s = tab_dd(MPD_INV_FACT[12]).hi;
    for (int n = 11; n >= 8; n--) s = s * r.hi + tab_dd(MPD_INV_FACT[n]).hi;
    Dd q = dd_make(s, 0.0);
    for (int n = 7; n >= 2; n--) q = add_accurate(mul_accurate(q, r), tab_dd(MPD_INV_FACT[n]));
    return add_accurate(r, mul_accurate(sqr(r), q));
}

// `exp_reduced`: expm1(r) for exp, |r| <= ln 2/2 + eps (the table at every j != 0).
MP_DEV Dd exp_reduced(Dd r) {
    if (mp_abs(r.hi) <= 1.0 / 128.0) return expm1_small(r);
    double j = mp_round(r.hi * 64.0);
    j = j < -22.0 ? -22.0 : (j > 22.0 ? 22.0 : j);
    Dd rp = dd_new(r.hi - j / 64.0, r.lo);
    Dd t = expm1_small(rp);
    Dd e = tab_dd(MPD_EXPM1_J64[(int)j + 22]);
    return add_accurate(e, mul_accurate(t, add_f64(e, 1.0)));
}

// `reduce_ln2_dd`: x = k*ln 2 + r for a finite double-double, |hi| <= 746.
MP_DEV Dd reduce_ln2_dd(double hi, double lo, int &k_out) {
    double k = mp_round(hi / MPF_LN_2);
    double rh, rl;
    sub_multiple_dd(hi, lo, k, mp_tab(MPD_LN2_3[0][0]), mp_tab(MPD_LN2_3[0][1]), mp_tab(MPD_LN2_3[0][2]), rh, rl);
    k_out = (int)k;
    return dd_make(rh, rl);
}

// `scale_one_plus`: 2^k*(1 + w).
MP_DEV Dd scale_one_plus(Dd w, int k) {
    Dd m = add_f64(w, 1.0);
    return clean(ldexp_dd(m, k));
}

// `Dd::exp`.
MP_DEV Dd exp(Dd x) {
    if (!mp_is_finite(x.hi)) {
        // f64::exp: NaN -> NaN, +Inf -> +Inf, -Inf -> +0.
        if (mp_is_nan(x.hi)) return dd_make(x.hi, 0.0);
        return dd_make(x.hi > 0.0 ? x.hi : 0.0, 0.0);
    }
    if (x.hi > 709.782712893384 + 1e-9) return dd_make(__longlong_as_double(0x7ff0000000000000LL), 0.0);
    if (x.hi < -745.1332191019412 - 1e-9) return dd_make(0.0, 0.0);
    int k;
    Dd r = reduce_ln2_dd(x.hi, x.lo, k);
    return scale_one_plus(exp_reduced(r), k);
}

// `log_table_step`: x = 2^k*m, m in [1/sqrt 2, sqrt 2), judged on approx; the table row of
// i = round(64(m - 1)) (r_i, then -ln r_i as three words).
MP_DEV const unsigned long long *log_table_step(double approx, int &k) {
    double f;
    int e;
    frexp(approx, f, e);
    k = f < MPF_FRAC_1_SQRT_2 ? e - 1 : e;
    double m_hi = ldexp(approx, -k);
    double id = mp_round((m_hi - 1.0) * 64.0);
    id = id < -20.0 ? -20.0 : (id > 27.0 ? 27.0 : id);
    return MPD_LOG_TABLE[(int)id + 20];
}

// `ln1p_cubic`: s^3 (1/3 - s/4 + ... + s^16/19), the terms from n = LN_TAIL_FROM = 11 on in f64
// on s.hi (plain operations: the Rust bits).
MP_DEV Dd ln1p_cubic(Dd sd) {
    double tail = 1.0 / 19.0;
    for (int n = 18; n >= 11; n--) {
        double c = inv_int(n).hi;
        tail = tail * sd.hi + ((n % 2 == 1) ? c : -c);
    }
    Dd p = dd_make(tail, 0.0);
    for (int n = 10; n >= 3; n--) {
        Dd c = inv_int(n);
        p = add_accurate(mul_accurate(p, sd), (n % 2 == 1) ? c : neg(c));
    }
    return mul_accurate(mul_accurate(sqr(sd), sd), p);
}

// `ln_dd`: ln x for a positive finite double-double x != 1, summed by weight in three levels
// (the Rust docs give the error analysis).
MP_DEV Dd ln_dd(double hi, double lo) {
    int k;
    const unsigned long long *row = log_table_step(hi + lo, k);
    double ri = mp_tab(row[0]);
    double p1, q1, p2, q2, u, v, sh, sl;
    two_prod(ldexp(hi, -k), ri, p1, q1);
    two_prod(ldexp(lo, -k), ri, p2, q2);
    double s0 = p1 - 1.0;
    two_sum(s0, p2, u, v);
    two_sum(u, v + q1, sh, sl);
    Dd r3 = ln1p_cubic(dd_make(sh, sl));
    double kf = (double)k;
    double a0, b0, a1, b1, e0, f0;
    two_prod(kf, mp_tab(MPD_LN2_3[0][0]), a0, b0);
    two_prod(kf, mp_tab(MPD_LN2_3[0][1]), a1, b1);
    two_prod(-0.5 * sh, sh, e0, f0);
    // Level 0.
    double h, x1, x2, x3, x4, x5;
    two_sum(a0, mp_tab(row[1]), h, x1);
    two_sum(h, s0, h, x2);
    two_sum(h, p2, h, x3);
    two_sum(h, e0, h, x4);
    two_sum(h, r3.hi, h, x5);
    // Level 1.
    double m, y1, y2, y3, y4, y5, y6, y7, y8, y9, y10, y11;
    two_sum(b0, a1, m, y1);
    two_sum(m, mp_tab(row[2]), m, y2);
    two_sum(m, q1, m, y3);
    two_sum(m, f0, m, y4);
    two_sum(m, -sh * sl, m, y5);
    two_sum(m, r3.lo, m, y6);
    two_sum(m, x1, m, y7);
    two_sum(m, x2, m, y8);
    two_sum(m, x3, m, y9);
    two_sum(m, x4, m, y10);
    two_sum(m, x5, m, y11);
    // Level 2.
    double ys = ((((y1 + y2) + (y3 + y4)) + ((y5 + y6) + (y7 + y8))) + (y9 + y10)) + y11;
    double low = (((b1 + kf * mp_tab(MPD_LN2_3[0][2])) + mp_tab(row[3])) + q2) + ys;
    double g, z, rh, rl;
    two_sum(h, m, g, z);
    fast_two_sum(g, z + low, rh, rl);
    return dd_make(rh, rl);
}

// `Dd::ln` (`log_base` with the natural-log scales).
MP_DEV Dd ln(Dd x) {
    if (!(x.hi > 0.0 && mp_is_finite(x.hi))) {
        // f64::ln: +-0 -> -Inf, negative or NaN -> NaN, +Inf -> +Inf.
        if (x.hi == 0.0) return dd_make(__longlong_as_double((long long)0xfff0000000000000ULL), 0.0);
        if (mp_is_nan(x.hi)) return dd_make(x.hi, 0.0);
        if (x.hi < 0.0) return dd_make(__longlong_as_double(0x7ff8000000000000LL), 0.0);
        return dd_make(x.hi, 0.0);
    }
    if (x.hi == 1.0 && x.lo == 0.0) return dd_make(0.0, 0.0);
    return ln_dd(x.hi, x.lo);
}

// ---- dd/func/trig.rs --------------------------------------------------------------------------

// `coeff`: +-1/(2n + k)! with the sign of (-1)^n.
MP_DEV Dd trig_coeff(int n, int k) { return neg_if(tab_dd(MPD_INV_FACT[2 * n + k]), n % 2 == 1); }

// `f64_tail`: the kernels' terms from `from` to `last` by f64 Horner on th = t.hi (plain
// operations, no contraction: the Rust code's bits).
MP_DEV Dd trig_f64_tail(double th, int from, int last, int k) {
    double s = trig_coeff(last, k).hi;
    for (int n = last - 1; n >= from; n--) s = s * th + trig_coeff(n, k).hi;
    return dd_make(s, 0.0);
}

// `sin_kernel(r, r*t, t)` (sine) or `cos_kernel(t)` in one instruction stream, with the same
// operations as each: a warp whose lanes fall in different quadrants runs one Horner loop
// instead of both polynomials one after the other.
MP_DEV Dd sin_or_cos_kernel(Dd r, Dd t, bool sine) {
    int k = sine ? 3 : 2;
    int from = sine ? 8 : 9;
    Dd p = trig_f64_tail(t.hi, from, sine ? 13 : 14, k);
    for (int n = from - 1; n >= 0; n--) p = add_accurate(mul_accurate(p, t), trig_coeff(n, k));
    Dd a = sine ? r : dd_make(1.0, 0.0);
    Dd b = sine ? mul_accurate(r, t) : t;
    return sub(a, mul_accurate(b, p));
}

// `Dd::sin_shifted`: sin x (quarter = 0) or cos x (quarter = 1).
MP_DEV Dd sin_shifted(Dd x, int quarter) {
    if (!mp_is_finite(x.hi)) return dd_make(__longlong_as_double(0x7ff8000000000000LL), 0.0);
    if (x.hi == 0.0) return quarter == 0 ? x : dd_make(1.0, 0.0);
    double rh, rl;
    int q = trig_reduction::rem_pio2_dd(x.hi, x.lo, rh, rl);
    Dd r = dd_make(rh, rl);
    Dd t = sqr(r);
    int j = (q + quarter) & 3;
    Dd v = sin_or_cos_kernel(r, t, (j & 1) == 0);
    return (j & 2) ? neg(v) : v;
}

// `Dd::sin`.
MP_DEV Dd sin(Dd x) { return sin_shifted(x, 0); }

// `Dd::cos`.
MP_DEV Dd cos(Dd x) { return sin_shifted(x, 1); }

} // namespace dd

#endif
