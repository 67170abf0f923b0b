// Quad-double exp, ln, sin, cos: the device twins of crates/mpblas/src/qd/func.rs.
//
// Same function names and the same operations in the same order as the Rust code, so the GPU
// returns the CPU's bits (tests/cuda_twin_host.rs compiles this header as host C++ and compares;
// tests/gpu_func_bits.rs compares on the GPU). Rust operators map as follows: `Qd + Qd` is
// qd::add_ieee, `Qd - Qd` qd::sub, `Qd * Qd` qd::mul_accurate, `Qd / Qd` qd::div_accurate,
// `Qd + f64` qd::add_f64, `Qd * f64` qd::mul_f64, `Qd::new` qd::from_sum. The series
// coefficients (computed lazily by Qd divisions on the CPU) and ln 2 come from func_tables.cuh,
// generated from the Rust code; the trigonometric reduction is trig_reduction.cuh.

#ifndef MPBLAS_QD_FUNC_CUH
#define MPBLAS_QD_FUNC_CUH

#include "dd.cuh"
#include "qd.cuh"
#include "qd_tables.cuh"
#include "trig_reduction.cuh"

namespace qd {

// ---- qd/arith.rs operations not in qd.cuh -----------------------------------------------------

// `finish`: keep a generic result, else the special value.
MP_DEV Qd finish(const Qd &c, double lead) {
    if (generic_ok(c)) return c;
    return special(lead, c.c[0]);
}

// `Qd::new` (`from_sum`): the exact sum of four finite words, renormalised.
MP_DEV Qd from_sum(double c0, double c1, double c2, double c3) {
    Qd c = renorm5(c0, c1, c2, c3, 0.0);
    if (generic_ok(c)) return c;
    return special(c0 + c1 + c2 + c3, c.c[0]);
}

// A table row of four words as a Qd.
MP_DEV Qd tab_qd(const unsigned long long *row) {
    return qd_make(mp_tab(row[0]), mp_tab(row[1]), mp_tab(row[2]), mp_tab(row[3]));
}

MP_DEV Qd inv_fact(int n) { return tab_qd(MPQ_INV_FACT[n]); }
MP_DEV Qd inv_odd(int j) { return tab_qd(MPQ_INV_ODD[j]); }

// ---- qd/func.rs ---------------------------------------------------------------------------

// `terms_needed` with the coefficient magnitudes of a table: coef(n) = table[min(stride*n,
// TERMS-1)].c[0].
MP_DEV int terms_needed(double x, const unsigned long long (*table)[4], int stride) {
    x = mp_abs(x);
    double p = 1.0;
    for (int n = 1; n < MPQ_TERMS; n++) {
        p *= x;
        int idx = stride * n < MPQ_TERMS - 1 ? stride * n : MPQ_TERMS - 1;
        if (p * mp_tab(table[idx][0]) < 5.9e-67) return n;
    }
    return MPQ_TERMS - 1;
}

// `staged_horner`: q_first of q_j = c_j + x q_(j+1), q_(n+1) = 0, c_j = 1/(stride j + offset)!;
// the values of weight |x|^(j-first) c_j below 2^-164 (F64_TAIL_WEIGHT) in f64 on x's leading
// word, below 2^-112 (DD_TAIL_WEIGHT) in double-double on its two leading words.
MP_DEV int staged_index(int j, int stride, int offset) {
    int idx = stride * j + offset;
    return idx < MPQ_TERMS - 1 ? idx : MPQ_TERMS - 1;
}

MP_DEV double staged_coef(int j, int stride, int offset, int word) {
    return mp_tab(MPQ_INV_FACT[staged_index(j, stride, offset)][word]);
}

MP_DEV int staged_start(double ax, int n, int first, int stride, int offset, double weight) {
    double p = 1.0;
    for (int j = first; j <= n; j++) {
        if (p * staged_coef(j, stride, offset, 0) < weight) return j;
        p *= ax;
    }
    return n + 1;
}

MP_DEV Qd staged_horner(const Qd &x, int n, int first, int stride, int offset) {
    double ax = mp_abs(x.c[0]);
    int j_dd = staged_start(ax, n, first, stride, offset, 1.925929944387236e-34);
    int j_f64 = staged_start(ax, n, first, stride, offset, 4.276423536147513e-50);
    if (j_f64 < j_dd) j_f64 = j_dd;
    double s = 0.0;
    for (int j = n; j >= j_f64; j--) s = staged_coef(j, stride, offset, 0) + x.c[0] * s;
    Dd xd = dd_make(x.c[0], x.c[1]);
    Dd d = dd_make(s, 0.0);
    for (int j = j_f64 - 1; j >= j_dd; j--)
        d = dd::add_accurate(dd_make(staged_coef(j, stride, offset, 0), staged_coef(j, stride, offset, 1)),
                             dd::mul_accurate(xd, d));
    Qd q = qd_make(d.hi, d.lo, 0.0, 0.0);
    for (int j = j_dd - 1; j >= first; j--) q = add_ieee(inv_fact(staged_index(j, stride, offset)), mul_accurate(x, q));
    return q;
}

// `expm1_series`: e^r - 1 by its Taylor series in Horner form, |r| <= 1.
MP_DEV Qd expm1_series(const Qd &r) {
    int n = terms_needed(r.c[0], MPQ_INV_FACT, 1);
    return mul_accurate(r, staged_horner(r, n, 1, 1, 0));
}

// `atanh_series_2`: 2 atanh(z) by its series, |z| <= 0.18.
MP_DEV Qd atanh_series_2(const Qd &z) {
    Qd w = sqr(z);
    int n = terms_needed(w.c[0], MPQ_INV_ODD, 1);
    Qd q = inv_odd(n);
    for (int j = n - 1; j >= 0; j--) q = add_ieee(inv_odd(j), mul_accurate(w, q));
    return ldexp(mul_accurate(z, q), 1);
}

// `sin_cos_series`: (sin r, cos r) by their Taylor series in r^2, |r| <= pi/4 (`sin_poly`,
// `cos_poly`: staged_horner in -r^2); `want_s`/`want_c` skip one (each result as in the Rust
// code).
MP_DEV void sin_cos_series(const Qd &r, bool want_s, bool want_c, Qd &s_out, Qd &c_out) {
    Qd w = sqr(r);
    int n = terms_needed(w.c[0], MPQ_INV_FACT, 2);
    n = n < MPQ_TERMS / 2 - 1 ? n : MPQ_TERMS / 2 - 1;
    Qd mw = neg(w);
    s_out = want_s ? mul_accurate(r, staged_horner(mw, n, 0, 2, 1)) : w;
    c_out = want_c ? staged_horner(mw, n, 0, 2, 0) : w;
}

// `ln_reduced`: ln m for m in [1/sqrt 2, sqrt 2], 2 atanh((m - 1)/(m + 1)).
MP_DEV Qd ln_reduced(const Qd &m) {
    Qd z = div_accurate(add_f64(m, -1.0), add_f64(m, 1.0));
    return atanh_series_2(z);
}

// `split_exponent`: x = 2^e m, m in [1/sqrt 2, sqrt 2].
MP_DEV Qd split_exponent(const Qd &x, int &e) {
    e = exponent(x.c[0]);
    Qd m = ldexp(x, -e);
    if (m.c[0] > MPF_SQRT_2) {
        m = ldexp(m, -1);
        e += 1;
    }
    return m;
}

// `sub_k_ln2`: x - k ln 2 for an integer-valued k, |k| <= 1100.
MP_DEV Qd sub_k_ln2(const Qd &x, double k) {
    if (k == 0.0) return x;
    double p0, e0;
    two_prod(k, mp_tab(MPQ_LN_2_WORDS[0][0]), p0, e0);
    Qd tail = qd_make(0.0, 0.0, 0.0, 0.0);
    for (int i = 5; i >= 1; i--) {
        double p, e;
        two_prod(k, mp_tab(MPQ_LN_2_WORDS[0][i]), p, e);
        tail = add_ieee(tail, from_sum(p, e, 0.0, 0.0));
    }
    return sub(sub(x, from_sum(p0, e0, 0.0, 0.0)), tail);
}

// `Qd::exp`.
MP_DEV Qd exp(const Qd &x) {
    double x0 = x.c[0];
    if (mp_is_nan(x0)) return from_f64(__longlong_as_double(0x7ff8000000000000LL));
    if (x0 > 709.8) return from_f64(__longlong_as_double(0x7ff0000000000000LL));
    if (x0 < -745.2) return from_f64(0.0);
    if (x0 == 0.0) return from_f64(1.0);
    double k = mp_round(x0 / MPF_LN_2);
    Qd r = sub_k_ln2(x, k);
    // Tang's table: r = j/64 + r', e^r = E_j + E_j (e^r' - 1), one path for every j (E_0 = 1).
    double j = mp_round(r.c[0] * 64.0);
    j = j < -22.0 ? -22.0 : (j > 22.0 ? 22.0 : j);
    Qd e = tab_qd(MPQ_EXP_J64[(int)j + 22]);
    Qd y = ldexp(add_ieee(e, mul_accurate(e, expm1_series(add_f64(r, -j / 64.0)))), (int)k);
    if (mp_is_finite(y.c[0])) return y;
    return from_f64(__longlong_as_double(0x7ff0000000000000LL));
}

// `Qd::ln` (with `log_special`).
MP_DEV Qd ln(const Qd &x) {
    double x0 = x.c[0];
    if (mp_is_nan(x0) || x0 < 0.0) return from_f64(__longlong_as_double(0x7ff8000000000000LL));
    if (x0 == 0.0) return from_f64(__longlong_as_double((long long)0xfff0000000000000ULL));
    if (!mp_is_finite(x0)) return from_f64(__longlong_as_double(0x7ff0000000000000LL));
    if (x.c[0] == 1.0 && x.c[1] == 0.0 && x.c[2] == 0.0 && x.c[3] == 0.0) return from_f64(0.0);
    int e;
    Qd m = split_exponent(x, e);
    Qd lm = ln_reduced(m);
    if (e == 0) return lm;
    return add_ieee(mul_f64(tab_qd(MPQ_LN_2[0]), (double)e), lm);
}

// `Qd::sin_cos`, computing only the requested results.
MP_DEV void sin_cos_sel(const Qd &x, bool want_sin, bool want_cos, Qd &s_out, Qd &c_out) {
    double x0 = x.c[0];
    if (!mp_is_finite(x0)) {
        double nan = __longlong_as_double(0x7ff8000000000000LL);
        s_out = from_f64(nan);
        c_out = from_f64(nan);
        return;
    }
    if (x0 == 0.0) {
        s_out = x;
        c_out = from_f64(1.0);
        return;
    }
    double r4[4];
    int q = trig_reduction::rem_pio2(x.c, 4, r4);
    Qd r = qd_make(r4[0], r4[1], r4[2], r4[3]);
    bool need_s = (q & 1) == 0 ? want_sin : want_cos;
    bool need_c = (q & 1) == 0 ? want_cos : want_sin;
    Qd s, c;
    sin_cos_series(r, need_s, need_c, s, c);
    switch (q & 3) {
    case 0: s_out = s; c_out = c; break;
    case 1: s_out = c; c_out = neg(s); break;
    case 2: s_out = neg(s); c_out = neg(c); break;
    default: s_out = neg(c); c_out = s; break;
    }
}

// `Qd::sin`.
MP_DEV Qd sin(const Qd &x) {
    Qd s, c;
    sin_cos_sel(x, true, false, s, c);
    return s;
}

// `Qd::cos`.
MP_DEV Qd cos(const Qd &x) {
    Qd s, c;
    sin_cos_sel(x, false, true, s, c);
    return c;
}

} // namespace qd

#endif
