// Double-double + - * / sqrt: the device twins of crates/mpblas/src/dd/arith.rs.
//
// `namespace dd` stands for the Rust `impl Dd`: `dd::add_accurate(a, b)` is `a.add_accurate(b)`.
// Every function keeps the Rust operation order, so that the GPU returns the CPU's bits
// (tests/gpu_bits.rs checks it), including the special-value epilogue: the generic result is
// kept when its leading word is finite and non-zero, otherwise it is recomputed from the
// leading words with plain f64 semantics (`special`).

#ifndef MPBLAS_DD_CUH
#define MPBLAS_DD_CUH

#include "eft.cuh"

// A double-double: the unevaluated sum hi + lo (the layout of the Rust `Dd`).
struct Dd {
    double hi;
    double lo;
};

MP_DEV Dd dd_make(double hi, double lo) {
    Dd r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

namespace dd {

// `special(lead, computed_hi)`: the result when the generic path did not give a finite
// non-zero leading word; `lead` is the f64 operation on the leading words.
MP_DEV Dd special(double lead, double computed_hi) {
    if (lead == 0.0 || !mp_is_finite(lead)) {
        return dd_make(lead, 0.0);
    } else if (computed_hi == 0.0) {
        // Exact cancellation in the generic path: IEEE gives +0 for x - x.
        return dd_make(0.0, 0.0);
    } else {
        return dd_make(mp_inf_with_sign_of(lead), 0.0);
    }
}

// The test of `finish`: keep the generic result?
MP_DEV bool generic_ok(double hi) { return mp_is_finite(hi) && hi != 0.0; }

MP_DEV Dd neg(Dd a) { return dd_make(-a.hi, -a.lo); }

// Unchecked cores shared by the division.
MP_DEV Dd mul_raw(Dd a, Dd b) {
    double ch, cl1, zh, zl;
    two_prod(a.hi, b.hi, ch, cl1);
    double tl0 = a.lo * b.lo;
    double tl1 = __fma_rn(a.hi, b.lo, tl0);
    double cl2 = __fma_rn(a.lo, b.hi, tl1);
    fast_two_sum(ch, cl1 + cl2, zh, zl);
    return dd_make(zh, zl);
}

MP_DEV Dd mul_f64_raw(Dd a, double b) {
    double ch, cl1, zh, zl;
    two_prod(a.hi, b, ch, cl1);
    double cl3 = __fma_rn(a.lo, b, cl1);
    fast_two_sum(ch, cl3, zh, zl);
    return dd_make(zh, zl);
}

MP_DEV Dd add_f64_raw(Dd a, double b) {
    double sh, sl, zh, zl;
    two_sum(a.hi, b, sh, sl);
    fast_two_sum(sh, a.lo + sl, zh, zl);
    return dd_make(zh, zl);
}

// a + b, JMP 2017 Algorithm 6 (AccurateDWPlusDW): what `+` uses.
MP_DEV Dd add_accurate(Dd a, Dd b) {
    double sh, sl, th, tl, vh, vl, zh, zl;
    two_sum(a.hi, b.hi, sh, sl);
    two_sum(a.lo, b.lo, th, tl);
    double c = sl + th;
    fast_two_sum(sh, c, vh, vl);
    double w = tl + vl;
    fast_two_sum(vh, w, zh, zl);
    if (generic_ok(zh)) return dd_make(zh, zl);
    return special(a.hi + b.hi, zh);
}

// a - b: `add_accurate(a, -b)`, as the Rust `Sub` impl.
MP_DEV Dd sub(Dd a, Dd b) { return add_accurate(a, neg(b)); }

// a * b, JMP 2017 Algorithm 12 (DWTimesDW3): what `*` uses.
MP_DEV Dd mul_accurate(Dd a, Dd b) {
    double ch, cl1, zh, zl;
    two_prod(a.hi, b.hi, ch, cl1);
    double tl0 = a.lo * b.lo;
    double tl1 = __fma_rn(a.hi, b.lo, tl0);
    double cl2 = __fma_rn(a.lo, b.hi, tl1);
    double cl3 = cl1 + cl2;
    fast_two_sum(ch, cl3, zh, zl);
    if (generic_ok(zh)) return dd_make(zh, zl);
    return special(a.hi * b.hi, zh);
}

// a / b, JMP 2017 Algorithm 17 (DWDivDW3): what `/` uses.
MP_DEV Dd div_accurate(Dd a, Dd b) {
    double th = 1.0 / b.hi;
    double rh = __fma_rn(-b.hi, th, 1.0);
    double rl = -b.lo * th;
    double eh, el;
    fast_two_sum(rh, rl, eh, el);
    Dd delta = mul_f64_raw(dd_make(eh, el), th);
    Dd m = add_f64_raw(delta, th);
    Dd z = mul_raw(a, m);
    if (generic_ok(z.hi)) return z;
    return special(a.hi / b.hi, z.hi);
}

// Square root, Lefevre-Louvet-Muller-Picot-Rideau 2023 (SQRTDWtoDW).
MP_DEV Dd sqrt(Dd a) {
    if (!(a.hi > 0.0 && mp_is_finite(a.hi))) {
        // +-0, +Inf, NaN and negatives: exactly what f64 gives on the leading word.
        return dd_make(__dsqrt_rn(a.hi), 0.0);
    }
    double sh = __dsqrt_rn(a.hi);
    double rho1 = __fma_rn(-sh, sh, a.hi);
    double rho2 = a.lo + rho1;
    double sl = rho2 / (2.0 * sh);
    double zh, zl;
    fast_two_sum(sh, sl, zh, zl);
    return dd_make(zh, zl);
}

} // namespace dd

#endif
