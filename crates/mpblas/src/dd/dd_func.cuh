// Double-double exp, ln, sin, cos: the device twins of crates/mpblas/src/dd/func/{mod.rs,
// expansion.rs, explog.rs, trig.rs}.
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

// ---- dd/func/expansion.rs ---------------------------------------------------------------------

// Capacity. The Rust `Expansion` has 48 slots; the functions here never hold more than 19
// components (exp: 2 words + 5 products/terms; ln: 5 + 9 + 5 additions), so neither capacity
// is ever reached and the (identical) overflow branch never runs on either side.
#define MPE_CAP 24

// An exact sum of non-overlapping doubles, smallest first.
struct Expansion {
    double c[MPE_CAP];
    int n;
};

MP_DEV void exp_init(Expansion &x) { x.n = 0; }

// GROW-EXPANSION with zero elimination.
MP_DEV void exp_add(Expansion &x, double b) {
    if (b == 0.0) return;
    if (x.n == MPE_CAP) {
        x.c[1] += x.c[0];
        for (int k = 0; k + 1 < MPE_CAP; k++) x.c[k] = x.c[k + 1];
        x.n -= 1;
    }
    double q = b;
    int m = 0;
    for (int i = 0; i < x.n; i++) {
        double s, h;
        two_sum(q, x.c[i], s, h);
        q = s;
        if (h != 0.0) {
            x.c[m] = h;
            m += 1;
        }
    }
    if (q != 0.0 || m == 0) {
        x.c[m] = q;
        m += 1;
    }
    x.n = m;
}

// The exact product a*b (TwoProd).
MP_DEV void exp_add_prod(Expansion &x, double a, double b) {
    double p, e;
    two_prod(a, b, p, e);
    exp_add(x, p);
    exp_add(x, e);
}

// The floating-point sum of the components, largest first.
MP_DEV double exp_approx(const Expansion &x) {
    double s = 0.0;
    for (int i = x.n - 1; i >= 0; i--) s = s + x.c[i];
    return s;
}

// `split`: s + (t0 + t1).
MP_DEV void exp_split(const Expansion &x, double &s, double &t0, double &t1) {
    s = 0.0;
    t0 = 0.0;
    t1 = 0.0;
    for (int i = 0; i < x.n; i++) {
        double s2, e, a, b;
        two_sum(x.c[i], s, s2, e);
        s = s2;
        two_sum(t0, e, a, b);
        t0 = a;
        t1 += b;
    }
}

// `to_dd`.
MP_DEV Dd exp_to_dd(const Expansion &x) {
    double s, t0, t1, h, l, zh, zl;
    exp_split(x, s, t0, t1);
    fast_two_sum(s, t0, h, l);
    l = l + t1;
    fast_two_sum(h, l, zh, zl);
    return dd_make(zh, zl);
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

// `reduce_ln2`: z = k*ln 2 + r.
MP_DEV Dd reduce_ln2(Expansion &z, int &k_out) {
    double k = mp_round(exp_approx(z) / MPF_LN_2);
    exp_add_prod(z, -k, mp_tab(MPD_LN2_3[0][0]));
    exp_add_prod(z, -k, mp_tab(MPD_LN2_3[0][1]));
    exp_add(z, -k * mp_tab(MPD_LN2_3[0][2]));
    k_out = (int)k;
    return exp_to_dd(z);
}

// `scale_one_plus`: 2^k*(1 + w).
MP_DEV Dd scale_one_plus(Dd w, int k) {
    Dd m = add_f64(w, 1.0);
    return clean(ldexp_dd(m, k));
}

// `exp_expansion`: exp of a finite exact expansion.
MP_DEV Dd exp_expansion(Expansion &z) {
    double a = exp_approx(z);
    if (a > 709.782712893384 + 1e-9) return dd_make(__longlong_as_double(0x7ff0000000000000LL), 0.0);
    if (a < -745.1332191019412 - 1e-9) return dd_make(0.0, 0.0);
    int k;
    Dd r = reduce_ln2(z, k);
    return scale_one_plus(exp_reduced(r), k);
}

// `Dd::exp`.
MP_DEV Dd exp(Dd x) {
    if (!mp_is_finite(x.hi)) {
        // f64::exp: NaN -> NaN, +Inf -> +Inf, -Inf -> +0.
        if (mp_is_nan(x.hi)) return dd_make(x.hi, 0.0);
        return dd_make(x.hi > 0.0 ? x.hi : 0.0, 0.0);
    }
    Expansion z;
    exp_init(z);
    exp_add(z, x.hi);
    exp_add(z, x.lo);
    return exp_expansion(z);
}

// `log_expansion` for the natural logarithm (scale = [1, 0, 0], k_scale = LN2_3) of the
// positive finite expansion words[0..nw].
MP_DEV void log_expansion_ln(const double *words, int nw, Expansion &out) {
    double approx = 0.0;
    for (int w = 0; w < nw; w++) approx = approx + words[w];
    double f;
    int e;
    frexp(approx, f, e);
    int k = f < MPF_FRAC_1_SQRT_2 ? e - 1 : e;
    double m_hi = ldexp(approx, -k);
    double id = mp_round((m_hi - 1.0) * 64.0);
    id = id < -20.0 ? -20.0 : (id > 27.0 ? 27.0 : id);
    int i = (int)id;
    const unsigned long long *row = MPD_LOG_TABLE[i + 20];
    double ri = mp_tab(row[0]);
    Expansion s;
    exp_init(s);
    for (int w = 0; w < nw; w++) exp_add_prod(s, ldexp(words[w], -k), ri);
    exp_add(s, -1.0);
    Dd sd = exp_to_dd(s);
    double sh = sd.hi, sl = sd.lo;
    // Terms from n = LN_TAIL_FROM = 11 on in f64 on s.hi (plain operations: the Rust bits).
    double tail = 1.0 / 19.0;
    for (int n = 18; n >= 11; n--) {
        double c = inv_int(n).hi;
        tail = tail * sh + ((n % 2 == 1) ? c : -c);
    }
    Dd p = dd_make(tail, 0.0);
    for (int n = 10; n >= 3; n--) {
        Dd c = inv_int(n);
        p = add_accurate(mul_accurate(p, sd), (n % 2 == 1) ? c : neg(c));
    }
    Dd r3 = mul_accurate(mul_accurate(sqr(sd), sd), p);
    out = s;
    exp_add_prod(out, -0.5 * sh, sh);
    exp_add_prod(out, -sh, sl);
    exp_add(out, r3.hi);
    exp_add(out, r3.lo);
    exp_add(out, mp_tab(row[1]));
    exp_add(out, mp_tab(row[2]));
    exp_add(out, mp_tab(row[3]));
    double kf = (double)k;
    exp_add_prod(out, kf, mp_tab(MPD_LN2_3[0][0]));
    exp_add_prod(out, kf, mp_tab(MPD_LN2_3[0][1]));
    exp_add(out, kf * mp_tab(MPD_LN2_3[0][2]));
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
    double words[2] = {x.hi, x.lo};
    Expansion out;
    log_expansion_ln(words, 2, out);
    return exp_to_dd(out);
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

// `sin_kernel`: sin r for |r| <= pi/4 + eps, given t = r^2 and rt = r*t; terms from
// SIN_TAIL_FROM = 8 on in f64.
MP_DEV Dd sin_kernel(Dd r, Dd rt, Dd t) {
    Dd p = trig_f64_tail(t.hi, 8, 13, 3);
    for (int n = 7; n >= 0; n--) p = add_accurate(mul_accurate(p, t), trig_coeff(n, 3));
    return sub(r, mul_accurate(rt, p));
}

// `cos_kernel`: cos r given t = r^2; terms from COS_TAIL_FROM = 9 on in f64.
MP_DEV Dd cos_kernel(Dd t) {
    Dd p = trig_f64_tail(t.hi, 9, 14, 2);
    for (int n = 8; n >= 0; n--) p = add_accurate(mul_accurate(p, t), trig_coeff(n, 2));
    return add_f64(neg(mul_accurate(t, p)), 1.0);
}

// `Dd::sin_cos`; `want_sin`/`want_cos` let a caller skip the polynomial it does not need
// (each result is computed exactly as in the Rust code, which evaluates both).
MP_DEV void sin_cos_sel(Dd x, bool want_sin, bool want_cos, Dd &s_out, Dd &c_out) {
    if (!mp_is_finite(x.hi)) {
        double nan = __longlong_as_double(0x7ff8000000000000LL);
        s_out = dd_make(nan, 0.0);
        c_out = dd_make(nan, 0.0);
        return;
    }
    if (x.hi == 0.0) {
        s_out = x;
        c_out = dd_make(1.0, 0.0);
        return;
    }
    double xw[2] = {x.hi, x.lo};
    double r4[4];
    int q = trig_reduction::rem_pio2(xw, 2, r4);
    double rh, rl;
    fast_two_sum(r4[0], r4[1], rh, rl);
    Dd r = dd_make(rh, rl);
    Dd t = sqr(r);
    // Quadrant: 0 (s, c), 1 (c, -s), 2 (-s, -c), 3 (-c, s).
    bool need_s = (q & 1) == 0 ? want_sin : want_cos;
    bool need_c = (q & 1) == 0 ? want_cos : want_sin;
    Dd s = need_s ? sin_kernel(r, mul_accurate(r, t), t) : dd_make(0.0, 0.0);
    Dd c = need_c ? cos_kernel(t) : dd_make(0.0, 0.0);
    switch (q) {
    case 0: s_out = s; c_out = c; break;
    case 1: s_out = c; c_out = neg(s); break;
    case 2: s_out = neg(s); c_out = neg(c); break;
    default: s_out = neg(c); c_out = s; break;
    }
}

// `Dd::sin`.
MP_DEV Dd sin(Dd x) {
    Dd s, c;
    sin_cos_sel(x, true, false, s, c);
    return s;
}

// `Dd::cos`.
MP_DEV Dd cos(Dd x) {
    Dd s, c;
    sin_cos_sel(x, false, true, s, c);
    return c;
}

} // namespace dd

#endif
