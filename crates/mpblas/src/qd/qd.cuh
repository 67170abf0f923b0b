// Quad-double renormalisation, + - * / sqrt: the device twins of crates/mpblas/src/qd/arith.rs.
//
// `namespace qd` stands for the Rust `impl Qd` and the module's free functions. The Rust code
// indexes small arrays with run-time indices (the merge of add_ieee_raw, the emitted words of
// renorm5); here those arrays are kept in registers by unrolling every loop and reading or
// writing the run-time index through a chain of selects (`at`, `put`), in the same order.
//
// The special-value epilogues `finish` and `finish_or_rescale` take closures in Rust; here each
// operation spells them out, computing the same leading-word value and the same half-scale
// recomputation.

#ifndef MPBLAS_QD_CUH
#define MPBLAS_QD_CUH

#include "eft.cuh"

// A quad-double: the unevaluated sum c[0] + c[1] + c[2] + c[3] (the layout of the Rust `Qd`).
struct Qd {
    double c[4];
};

MP_DEV Qd qd_make(double c0, double c1, double c2, double c3) {
    Qd r;
    r.c[0] = c0;
    r.c[1] = c1;
    r.c[2] = c2;
    r.c[3] = c3;
    return r;
}

namespace qd {

// a[i] for a run-time i in 0..4, without indexing memory.
MP_DEV double at(const Qd &a, int i) {
    return i == 0 ? a.c[0] : i == 1 ? a.c[1] : i == 2 ? a.c[2] : a.c[3];
}

// out[k] = x for a run-time k in 0..4.
MP_DEV void put(double &o0, double &o1, double &o2, double &o3, int k, double x) {
    if (k == 0) o0 = x;
    else if (k == 1) o1 = x;
    else if (k == 2) o2 = x;
    else o3 = x;
}

MP_DEV Qd from_f64(double x) { return qd_make(x, 0.0, 0.0, 0.0); }

MP_DEV Qd neg(Qd a) { return qd_make(-a.c[0], -a.c[1], -a.c[2], -a.c[3]); }

// ---- renormalisation and the special-value epilogue -----------------------------------------

// Five words into a normalised quad-double (see the Rust doc of `renorm5`).
MP_DEV Qd renorm5(double x0, double x1, double x2, double x3, double x4) {
    double s, t0, t1, t2, t3, t4;
    two_sum(x3, x4, s, t4);
    two_sum(x2, s, s, t3);
    two_sum(x1, s, s, t2);
    two_sum(x0, s, t0, t1);
    // The common case, no zero word on the way: the loop below emits its three words at
    // steps 1-3 and folds t4 into the last. The same operations and bits, without the selects
    // of a run-time word index (the Rust loop compiles to branches, where this path measured
    // no faster on the CPU, so it is only here).
    {
        double h1, l1, h2, l2, h3, l3;
        two_sum(t0, t1, h1, l1);
        two_sum(l1, t2, h2, l2);
        two_sum(l2, t3, h3, l3);
        if (l1 != 0.0 && l2 != 0.0 && l3 != 0.0) {
            double a, b, c, d;
            fast_two_sum(h1, h2, a, b);
            fast_two_sum(b, h3, b, c);
            fast_two_sum(c, l3 + t4, c, d);
            return qd_make(a, b, c, d);
        }
    }
    double t[5] = {t0, t1, t2, t3, t4};

    double o0 = 0.0, o1 = 0.0, o2 = 0.0, o3 = 0.0;
    int k = 0;
    s = t0;
    // The Rust loop stops emitting after the third word (`break`) and folds the rest into
    // the last word; `done` marks that point.
    bool done = false;
#pragma unroll
    for (int i = 1; i < 5; i++) {
        if (!done) {
            double hi, lo;
            two_sum(s, t[i], hi, lo);
            if (lo != 0.0) {
                put(o0, o1, o2, o3, k, hi);
                k += 1;
                s = lo;
                if (k == 3) done = true;
            } else {
                s = hi;
            }
        } else {
            s += t[i];
        }
    }
    put(o0, o1, o2, o3, k, s);
    double a, b, c, d;
    fast_two_sum(o0, o1, a, b);
    fast_two_sum(b, o2, b, c);
    fast_two_sum(c, o3, c, d);
    return qd_make(a, b, c, d);
}

// The special-value result; `lead` is the f64 operation on the leading words.
MP_DEV Qd special(double lead, double computed) {
    if (lead == 0.0 || !mp_is_finite(lead)) {
        return from_f64(lead);
    } else if (computed == 0.0) {
        return from_f64(0.0);
    } else {
        return from_f64(mp_inf_with_sign_of(lead));
    }
}

// A finite result with a non-zero leading word (the generic case).
MP_DEV bool generic_ok(const Qd &c) {
    return c.c[0] != 0.0 && mp_is_finite(c.c[0]) && mp_is_finite(c.c[1] + c.c[2] + c.c[3]);
}

// The condition under which `rescale` tries the half-scale recomputation.
MP_DEV bool rescale_applies(double lead, double computed) {
    return lead != 0.0 && !mp_is_nan(lead) && computed != 0.0;
}

// The words halved.
MP_DEV Qd half(const Qd &a) { return qd_make(0.5 * a.c[0], 0.5 * a.c[1], 0.5 * a.c[2], 0.5 * a.c[3]); }

// 2^n for n clamped to the normal exponent range, built from the bits.
MP_DEV double pow2(int n) {
    n = n < -1022 ? -1022 : (n > 1023 ? 1023 : n);
    return __longlong_as_double((long long)(n + 1023) << 52);
}

MP_DEV Qd ldexp_in_range(const Qd &a, int n) {
    double s = pow2(n);
    return qd_make(a.c[0] * s, a.c[1] * s, a.c[2] * s, a.c[3] * s);
}

// The Rust `ldexp` for |n| <= 2200: at most one split into halves, each in range.
MP_DEV Qd ldexp_split(const Qd &a, int n) {
    if (n >= -1022 && n <= 1023) return ldexp_in_range(a, n);
    int h = n / 2;
    return ldexp_in_range(ldexp_in_range(a, h), n - h);
}

// Multiply by 2^n exactly (barring over- or underflow of a word); the Rust recursion unrolled.
MP_DEV Qd ldexp(const Qd &a, int n) {
    if (n >= -1022 && n <= 1023) return ldexp_in_range(a, n);
    n = n < -2200 ? -2200 : (n > 2200 ? 2200 : n);
    int h = n / 2;
    return ldexp_split(ldexp_split(a, h), n - h);
}

// The binary exponent of a finite non-zero x (subnormals too); 0 for zero and non-finite.
MP_DEV int exponent(double x) {
    if (x == 0.0 || !mp_is_finite(x)) return 0;
    int e = (int)((__double_as_longlong(x) >> 52) & 0x7ff);
    if (e == 0) {
        // Subnormal: normalise by 2^64 first.
        double y = x * 18446744073709551616.0;
        return (int)((__double_as_longlong(y) >> 52) & 0x7ff) - 1023 - 64;
    }
    return e - 1023;
}

// ---- unchecked cores ------------------------------------------------------------------------

// HLB's Double-Accumulate (see the Rust doc of `double_accumulate`).
MP_DEV void double_accumulate(double u, double v, double x, double &s_out, double &u_out,
                              double &v_out) {
    double s, s2;
    two_sum(v, x, s, v);
    two_sum(u, s, s2, u);
    if (u == 0.0 && v == 0.0) {
        s_out = 0.0; u_out = 0.0; v_out = s2;
    } else if (u == 0.0) {
        s_out = 0.0; u_out = s2; v_out = v;
    } else if (v == 0.0) {
        s_out = 0.0; u_out = s2; v_out = u;
    } else {
        s_out = s2; u_out = u; v_out = v;
    }
}

// HLB's sloppy sum, declared here for add_ieee_raw (defined below).
MP_DEV Qd sloppy_merge(const Qd &a, double b0, double b1, double b2, double b3, double extra);

// HLB's accurate sum of two expansions, unchecked (the Rust `merge_add_raw`).
MP_DEV Qd merge_add_raw(const Qd &a, const Qd &b) {
    // Merge the two (individually magnitude-sorted) expansions by decreasing magnitude.
    double m[8];
    int i = 0, j = 0;
#pragma unroll
    for (int slot = 0; slot < 8; slot++) {
        bool take_a = j >= 4 || (i < 4 && mp_abs(at(a, i)) >= mp_abs(at(b, j)));
        if (take_a) {
            m[slot] = at(a, i < 3 ? i : 3);
            i += 1;
        } else {
            m[slot] = at(b, j < 3 ? j : 3);
            j += 1;
        }
    }
    // Accumulate exactly until four words are out; the rest is summed in f64.
    double u, v;
    fast_two_sum(m[0], m[1], u, v);
    double o0 = 0.0, o1 = 0.0, o2 = 0.0, o3 = 0.0;
    int k = 0;
    double rest = 0.0;
#pragma unroll
    for (int idx = 2; idx < 8; idx++) {
        if (k < 4) {
            double s, nu, nv;
            double_accumulate(u, v, m[idx], s, nu, nv);
            u = nu;
            v = nv;
            if (s != 0.0) {
                put(o0, o1, o2, o3, k, s);
                k += 1;
            }
        } else {
            rest += m[idx];
        }
    }
    if (k == 4) return renorm5(o0, o1, o2, o3, u + (v + rest));
    if (k == 3) return renorm5(o0, o1, o2, u, v + rest);
    if (k == 2) return renorm5(o0, o1, u, v, rest);
    if (k == 1) return renorm5(o0, u, v, rest, 0.0);
    return renorm5(u, v, rest, 0.0, 0.0);
}

// The IEEE-style sum, unchecked: the sloppy merge unless the operands cancel by more than
// 2^-40 (SLOPPY_ENOUGH; the Rust docs give the error analysis, and a unit test checks that the
// literal below is that constant), else the accurate merge.
MP_DEV Qd add_ieee_raw(const Qd &a, const Qd &b) {
    if (mp_abs(a.c[0] + b.c[0]) >= (mp_abs(a.c[0]) + mp_abs(b.c[0])) * __longlong_as_double(0x3d70000000000000LL))
        return sloppy_merge(a, b.c[0], b.c[1], b.c[2], b.c[3], 0.0);
    return merge_add_raw(a, b);
}

// a + b for an f64 b, unchecked.
MP_DEV Qd add_f64_raw(const Qd &a, double b) {
    double c0, c1, c2, c3, e;
    two_sum(a.c[0], b, c0, e);
    two_sum(a.c[1], e, c1, e);
    two_sum(a.c[2], e, c2, e);
    two_sum(a.c[3], e, c3, e);
    return renorm5(c0, c1, c2, c3, e);
}

// a * b for an f64 b, unchecked.
// The five words of a * b for an f64 b before renormalisation (the Rust `mul_f64_terms`).
MP_DEV void mul_f64_terms(const Qd &a, double b, double &p0, double &s1, double &s2, double &s3,
                          double &s4) {
    double q0, p1, q1, p2, q2, p3, q3;
    two_prod(a.c[0], b, p0, q0);
    two_prod(a.c[1], b, p1, q1);
    two_prod(a.c[2], b, p2, q2);
    two_prod(a.c[3], b, p3, q3);
    double x1, x2, x3, y1, y2, y3;
    two_sum(p1, q0, s1, x1);
    two_sum(p2, q1, s2, x2);
    two_sum(s2, x1, s2, x3);
    two_sum(p3, q2, s3, y1);
    two_sum(s3, x2, s3, y2);
    two_sum(s3, x3, s3, y3);
    s4 = q3 + (y1 + y2 + y3);
}

// a * b for an f64 b, unchecked.
MP_DEV Qd mul_f64_raw(const Qd &a, double b) {
    double p0, s1, s2, s3, s4;
    mul_f64_terms(a, b, p0, s1, s2, s3, s4);
    return renorm5(p0, s1, s2, s3, s4);
}

// The five words of a * b before renormalisation (the Rust `mul_terms`).
MP_DEV void mul_terms(const Qd &a, const Qd &b, double &p00, double &s1, double &s2, double &s3,
                      double &s4) {
    double q00, p01, q01, p10, q10, p02, q02, p11, q11, p20, q20;
    double p03, q03, p12, q12, p21, q21, p30, q30;
    two_prod(a.c[0], b.c[0], p00, q00);
    two_prod(a.c[0], b.c[1], p01, q01);
    two_prod(a.c[1], b.c[0], p10, q10);
    two_prod(a.c[0], b.c[2], p02, q02);
    two_prod(a.c[1], b.c[1], p11, q11);
    two_prod(a.c[2], b.c[0], p20, q20);
    two_prod(a.c[0], b.c[3], p03, q03);
    two_prod(a.c[1], b.c[2], p12, q12);
    two_prod(a.c[2], b.c[1], p21, q21);
    two_prod(a.c[3], b.c[0], p30, q30);

    // Order 1 (exact).
    double e1, f1;
    three_sum(p01, p10, q00, s1, e1, f1);
    // Order 2: TwoSum chain; its errors are order-3 terms.
    double x1, x2, x3, x4, x5;
    two_sum(p02, p11, s2, x1);
    two_sum(s2, p20, s2, x2);
    two_sum(s2, q01, s2, x3);
    two_sum(s2, q10, s2, x4);
    two_sum(s2, e1, s2, x5);
    // Order 3: TwoSum chain; its errors are order-4 terms.
    double y1, y2, y3, y4, y5, y6, y7, y8, y9;
    two_sum(p03, p12, s3, y1);
    two_sum(s3, p21, s3, y2);
    two_sum(s3, p30, s3, y3);
    two_sum(s3, q02, s3, y4);
    two_sum(s3, q11, s3, y5);
    two_sum(s3, q20, s3, y6);
    two_sum(s3, f1, s3, y7);
    two_sum(s3, x1 + x2, s3, y8);
    two_sum(s3, x3 + x4 + x5, s3, y9);
    // Order 4 in f64.
    double p4 = __fma_rn(a.c[1], b.c[3], __fma_rn(a.c[2], b.c[2], a.c[3] * b.c[1]));
    double q4 = (q03 + q12) + (q21 + q30);
    double y = ((y1 + y2) + (y3 + y4)) + ((y5 + y6) + (y7 + y8 + y9));
    s4 = p4 + q4 + y;
}

// The five words of a² before renormalisation (the Rust `sqr_terms`): mul_terms for b = a
// with the symmetric products formed once, 2·a_i·a_j as TwoProd(2a_i, a_j).
MP_DEV void sqr_terms(const Qd &a, double &p00, double &s1, double &s2, double &s3, double &s4) {
    const double d0 = 2.0 * a.c[0], d1 = 2.0 * a.c[1];
    double q00, p01, q01, p02, q02, p11, q11, p03, q03, p12, q12;
    two_prod(a.c[0], a.c[0], p00, q00);
    two_prod(d0, a.c[1], p01, q01);
    two_prod(d0, a.c[2], p02, q02);
    two_prod(a.c[1], a.c[1], p11, q11);
    two_prod(d0, a.c[3], p03, q03);
    two_prod(d1, a.c[2], p12, q12);

    // Order 1 (exact).
    double e1;
    two_sum(p01, q00, s1, e1);
    // Order 2: TwoSum chain; its errors are order-3 terms.
    double x1, x2, x3;
    two_sum(p02, p11, s2, x1);
    two_sum(s2, q01, s2, x2);
    two_sum(s2, e1, s2, x3);
    // Order 3: TwoSum chain; its errors are order-4 terms.
    double y1, y2, y3, y4;
    two_sum(p03, p12, s3, y1);
    two_sum(s3, q02, s3, y2);
    two_sum(s3, q11, s3, y3);
    two_sum(s3, x1 + x2 + x3, s3, y4);
    // Order 4 in f64.
    double p4 = __fma_rn(d1, a.c[3], a.c[2] * a.c[2]);
    double q4 = q03 + q12;
    double y = (y1 + y2) + (y3 + y4);
    s4 = p4 + q4 + y;
}

// The accurate product, unchecked.
MP_DEV Qd mul_raw(const Qd &a, const Qd &b) {
    double p0, s1, s2, s3, s4;
    mul_terms(a, b, p0, s1, s2, s3, s4);
    return renorm5(p0, s1, s2, s3, s4);
}

// HLB's sloppy sum of two expansions with an order-4 extra term of b, unchecked (the Rust
// `sloppy_merge`).
MP_DEV Qd sloppy_merge(const Qd &a, double b0, double b1, double b2, double b3, double extra) {
    double s0, s1, s2, s3, t0, t1, t2, t3;
    two_sum(a.c[0], b0, s0, t0);
    two_sum(a.c[1], b1, s1, t1);
    two_sum(a.c[2], b2, s2, t2);
    two_sum(a.c[3], b3, s3, t3);
    two_sum(s1, t0, s1, t0);
    three_sum(s2, t0, t1, s2, t0, t1);
    three_sum2(s3, t0, t2, s3, t0);
    t0 = t0 + t1 + t3 + extra;
    return renorm5(s0, s1, s2, s3, t0);
}

// r - q*b for an f64 q, unchecked: the sloppy merge (the Rust `sub_prod` says why it is enough).
MP_DEV Qd sub_prod(const Qd &r, double q, const Qd &b) {
    double p0, p1, p2, p3, p4;
    mul_f64_terms(b, -q, p0, p1, p2, p3, p4);
    return sloppy_merge(r, p0, p1, p2, p3, p4);
}

// Long division, unchecked.
MP_DEV Qd div_raw(const Qd &a, const Qd &b) {
    double q0 = a.c[0] / b.c[0];
    Qd r = sub_prod(a, q0, b);
    double q1 = r.c[0] / b.c[0];
    r = sub_prod(r, q1, b);
    double q2 = r.c[0] / b.c[0];
    r = sub_prod(r, q2, b);
    double q3 = r.c[0] / b.c[0];
    r = sub_prod(r, q3, b);
    double q4 = r.c[0] / b.c[0];
    return renorm5(q0, q1, q2, q3, q4);
}

// ---- checked operations ---------------------------------------------------------------------

// `finish_or_rescale(c, lead, half)` with the half-scale result already computed by the caller
// only when needed: see each operation.
#define MPBLAS_QD_FINISH_OR_RESCALE(c, lead_expr, half_expr)                                     \
    do {                                                                                         \
        if (generic_ok(c)) return (c);                                                           \
        double lead_ = (lead_expr);                                                              \
        if (rescale_applies(lead_, (c).c[0])) {                                                  \
            Qd q_ = ldexp((half_expr), 1);                                                       \
            if (generic_ok(q_)) return q_;                                                       \
        }                                                                                        \
        return special(lead_, (c).c[0]);                                                         \
    } while (0)

// a + b, HLB IEEE-style addition: what `+` uses.
MP_DEV Qd add_ieee(const Qd &a, const Qd &b) {
    Qd c = add_ieee_raw(a, b);
    MPBLAS_QD_FINISH_OR_RESCALE(c, a.c[0] + b.c[0], add_ieee_raw(half(a), half(b)));
}

// a - b: `add_ieee(a, -b)`, as the Rust `Sub` impl.
MP_DEV Qd sub(const Qd &a, const Qd &b) { return add_ieee(a, neg(b)); }

// a + b for an f64 b.
MP_DEV Qd add_f64(const Qd &a, double b) {
    Qd c = add_f64_raw(a, b);
    MPBLAS_QD_FINISH_OR_RESCALE(c, a.c[0] + b, add_f64_raw(half(a), 0.5 * b));
}

// a * b for an f64 b (the Rust `mul_f64`).
MP_DEV Qd mul_f64(const Qd &a, double b) {
    Qd c = mul_f64_raw(a, b);
    MPBLAS_QD_FINISH_OR_RESCALE(c, a.c[0] * b, mul_f64_raw(half(a), b));
}

// a * b, HLB accurate product: what `*` uses.
MP_DEV Qd mul_accurate(const Qd &a, const Qd &b) {
    Qd c = mul_raw(a, b);
    MPBLAS_QD_FINISH_OR_RESCALE(c, a.c[0] * b.c[0], mul_raw(half(a), b));
}

// a * a.
MP_DEV Qd sqr(const Qd &a) { return mul_accurate(a, a); }

// a + b, HLB's sloppy addition (normwise bound; Qd::add_sloppy).
MP_DEV Qd add_sloppy(const Qd &a, const Qd &b) {
    Qd c = sloppy_merge(a, b.c[0], b.c[1], b.c[2], b.c[3], 0.0);
    MPBLAS_QD_FINISH_OR_RESCALE(c, a.c[0] + b.c[0], add_ieee_raw(half(a), half(b)));
}

// c + a * b in one step (Qd::add_product_sloppy): outside the generic case, the IEEE-style
// operations.
MP_DEV Qd add_product_sloppy(const Qd &c, const Qd &a, const Qd &b) {
    double p0, p1, p2, p3, p4;
    mul_terms(a, b, p0, p1, p2, p3, p4);
    Qd r = sloppy_merge(c, p0, p1, p2, p3, p4);
    if (generic_ok(r)) return r;
    return add_ieee(c, mul_accurate(a, b));
}

// c + a² in one step (Qd::add_square_sloppy): add_product_sloppy(c, a, a) with sqr_terms.
MP_DEV Qd add_square_sloppy(const Qd &c, const Qd &a) {
    double p0, p1, p2, p3, p4;
    sqr_terms(a, p0, p1, p2, p3, p4);
    Qd r = sloppy_merge(c, p0, p1, p2, p3, p4);
    if (generic_ok(r)) return r;
    return add_ieee(c, mul_accurate(a, a));
}

// ---- the lane sum of the blocked summation order (the Rust `LaneSum`) -----------------------
// Five words, word k taking the order-k word of each term, not renormalised between terms;
// words 0-3 by TwoSum with the errors carried down exactly, word 4 in f64; one renormalisation
// at the end of the lane (the Rust doc gives the error analysis).
struct LaneSum {
    double w[5];
};

MP_DEV LaneSum lane_empty() {
    LaneSum l;
#pragma unroll
    for (int k = 0; k < 5; k++) l.w[k] = -0.0;
    return l;
}

// Words 0-3 of a term into words 0-3; returns the sum of the errors leaving word 3.
MP_DEV double lane_cascade(LaneSum &l, double p0, double p1, double p2, double p3) {
    double e0, e1, f1, e2, f2, g2, e3, f3, g3, h3;
    two_sum(l.w[0], p0, l.w[0], e0);
    two_sum(l.w[1], p1, l.w[1], e1);
    two_sum(l.w[1], e0, l.w[1], f1);
    two_sum(l.w[2], p2, l.w[2], e2);
    two_sum(l.w[2], e1, l.w[2], f2);
    two_sum(l.w[2], f1, l.w[2], g2);
    two_sum(l.w[3], p3, l.w[3], e3);
    two_sum(l.w[3], e2, l.w[3], f3);
    two_sum(l.w[3], f2, l.w[3], g3);
    two_sum(l.w[3], g2, l.w[3], h3);
    return (e3 + f3) + (g3 + h3);
}

// + x for a quad-double x (LaneSum::add).
MP_DEV void lane_add(LaneSum &l, const Qd &x) {
    const double carry = lane_cascade(l, x.c[0], x.c[1], x.c[2], x.c[3]);
    l.w[4] = l.w[4] + carry;
}

// + the five words of a product or square before renormalisation (LaneSum::add_terms).
MP_DEV void lane_add_terms(LaneSum &l, double p0, double p1, double p2, double p3, double p4) {
    const double carry = lane_cascade(l, p0, p1, p2, p3);
    l.w[4] = l.w[4] + (p4 + carry);
}

// + a·b (add_terms of mul_terms).
MP_DEV void lane_add_product(LaneSum &l, const Qd &a, const Qd &b) {
    double p0, p1, p2, p3, p4;
    mul_terms(a, b, p0, p1, p2, p3, p4);
    lane_add_terms(l, p0, p1, p2, p3, p4);
}

// + a² (add_terms of sqr_terms).
MP_DEV void lane_add_square(LaneSum &l, const Qd &a) {
    double p0, p1, p2, p3, p4;
    sqr_terms(a, p0, p1, p2, p3, p4);
    lane_add_terms(l, p0, p1, p2, p3, p4);
}

// The sum to `out`: TwoSum passes from the bottom and from the top, the last word rounded;
// false unless it is normalised and a finite non-zero number (LaneSum::finish says why).
MP_DEV bool lane_finish(const LaneSum &l, Qd &out) {
    double s, t1, t2, t3, t4, t0, c0, c1, c2, lo;
    two_sum(l.w[3], l.w[4], s, t4);
    two_sum(l.w[2], s, s, t3);
    two_sum(l.w[1], s, s, t2);
    two_sum(l.w[0], s, t0, t1);
    two_sum(t0, t1, c0, lo);
    two_sum(lo, t2, c1, lo);
    two_sum(lo, t3, c2, lo);
    const double c3 = lo + t4;
    out = qd_make(c0, c1, c2, c3);
    const bool normalised = c0 + c1 == c0 && c1 + c2 == c1 && c2 + c3 == c2;
    return normalised && generic_ok(out);
}

// a / b, HLB long division: what `/` uses.
MP_DEV Qd div_accurate(const Qd &a, const Qd &b) {
    Qd c = div_raw(a, b);
    MPBLAS_QD_FINISH_OR_RESCALE(c, a.c[0] / b.c[0], div_raw(half(a), b));
}

#undef MPBLAS_QD_FINISH_OR_RESCALE

// Square root (HLB Section 4.6): two Newton steps on 1/sqrt(a), then Karp's step.
MP_DEV Qd sqrt(const Qd &a) {
    double a0 = a.c[0];
    if (!(a0 > 0.0 && mp_is_finite(a0))) return from_f64(__dsqrt_rn(a0));
    // a = m * 2^(2k) with m in [0.5, 2): exact scaling. `div_euclid(2)` rounds down.
    int e = exponent(a0);
    int k = (e >= 0) ? e / 2 : -((1 - e) / 2);
    Qd m = ldexp(a, -2 * k);
    Qd half_m = ldexp(m, -1);
    double x0 = 1.0 / __dsqrt_rn(m.c[0]);
    // First Newton step in f64 operations on exact products (the Rust comments say why).
    double s, se, p, pe, x1, x1_lo;
    two_prod(x0, x0, s, se);
    two_prod(half_m.c[0], s, p, pe);
    double r1 = ((0.5 - p) - pe) - (half_m.c[0] * se + half_m.c[1] * s);
    fast_two_sum(x0, x0 * r1, x1, x1_lo);
    Qd x = qd_make(x1, x1_lo, 0.0, 0.0);
    // The second in quad-double.
    Qd r = add_f64(mul_accurate(neg(half_m), sqr(x)), 0.5);
    x = add_ieee(x, mul_accurate(x, r));
    Qd y = mul_accurate(m, x);
    y = add_ieee(y, ldexp(mul_accurate(x, add_sloppy(m, neg(sqr(y)))), -1));
    return ldexp(y, k);
}

} // namespace qd

#endif
