// Error-free transformations: the device twins of crates/mpblas/src/eft.rs.
//
// Same names, same operation order, same results bit for bit. This relies on the options set
// in cuda/nvrtc.rs (`options`): `--fmad=false` (no product is ever contracted into an FMA behind our back),
// no flush-to-zero, IEEE division and square root. Where the CPU calls `f64::mul_add` the twin
// calls `__fma_rn`, the correctly rounded fused multiply-add.
//
// Pairs are returned through references (`s`, `e`) where the Rust code returns a tuple.

#ifndef MPBLAS_EFT_CUH
#define MPBLAS_EFT_CUH

#define MP_DEV __device__ __forceinline__

// ---- bit-level helpers (no math headers under NVRTC) ----------------------------------------

// `x.is_finite()`: the exponent field is not all ones.
MP_DEV bool mp_is_finite(double x) {
    return (__double_as_longlong(x) & 0x7ff0000000000000LL) != 0x7ff0000000000000LL;
}

// `x.is_nan()`.
MP_DEV bool mp_is_nan(double x) { return x != x; }

// `f64::abs`: clear the sign bit.
MP_DEV double mp_abs(double x) {
    return __longlong_as_double(__double_as_longlong(x) & 0x7fffffffffffffffLL);
}

// `f64::INFINITY.copysign(s)`.
MP_DEV double mp_inf_with_sign_of(double s) {
    return __longlong_as_double((__double_as_longlong(s) & (long long)0x8000000000000000ULL)
                                | 0x7ff0000000000000LL);
}

// `f64::round`: the nearest integer, halfway cases away from zero (the sign of zero kept).
// Exact: the integer part is formed by truncation and the fraction is an exact difference.
MP_DEV double mp_round(double x) {
    double a = mp_abs(x);
    if (!(a < 4503599627370496.0)) return x; // |x| >= 2^52 (already an integer), or NaN
    double t = (double)(long long)a;
    double r = (a - t >= 0.5) ? t + 1.0 : t;
    long long sign = __double_as_longlong(x) & (long long)0x8000000000000000ULL;
    return __longlong_as_double(__double_as_longlong(r) | sign);
}

// Read-only tables in constant memory (the generated *_tables.cuh headers use it; the host
// twin defines `__constant__` away).
#define MP_TABLE static __constant__ const

// A table word (an IEEE bit pattern) as a double.
MP_DEV double mp_tab(unsigned long long bits) { return __longlong_as_double((long long)bits); }

// ---- the transformations ----------------------------------------------------------------------

// TwoSum (Knuth): s = fl(a + b), e = (a + b) - s exactly. Branch-free, 6 flops.
MP_DEV void two_sum(double a, double b, double &s, double &e) {
    s = a + b;
    double bb = s - a;
    e = (a - (s - bb)) + (b - bb);
}

// FastTwoSum (Dekker): as two_sum, provided |a| >= |b|. 3 flops.
MP_DEV void fast_two_sum(double a, double b, double &s, double &e) {
    s = a + b;
    e = b - (s - a);
}

// TwoDiff: s = fl(a - b), e = (a - b) - s exactly.
MP_DEV void two_diff(double a, double b, double &s, double &e) {
    s = a - b;
    double bb = s - a;
    e = (a - (s - bb)) - (b + bb);
}

// TwoProd with FMA: p = fl(a * b), e = a * b - p exactly (no over- or underflow).
MP_DEV void two_prod(double a, double b, double &p, double &e) {
    p = a * b;
    e = __fma_rn(a, b, -p);
}

// `sub_multiple_dd` (eft.rs): hi + lo - n (p0 + p1 + p2) as (rh, rl), the Cody-Waite step of the
// pi/2 and ln 2 reductions.
MP_DEV void sub_multiple_dd(double hi, double lo, double n, double p0, double p1, double p2, double &rh,
                            double &rl) {
    double a0, b0, a1, b1, s, e1, e2, h, e3;
    two_prod(n, p0, a0, b0);
    two_prod(n, p1, a1, b1);
    double d = hi - a0;
    two_sum(lo, -b0, s, e1);
    two_sum(s, -a1, s, e2);
    double low = ((e1 + e2) - b1) - n * p2;
    two_sum(d, s, h, e3);
    fast_two_sum(h, e3 + low, rh, rl);
}

// Square with FMA: p = fl(a * a), e = a * a - p exactly.
MP_DEV void two_sqr(double a, double &p, double &e) {
    p = a * a;
    e = __fma_rn(a, a, -p);
}

// ThreeSum (Hida-Li-Bailey): a + b + c = s + e1 + e2 exactly (three TwoSums).
MP_DEV void three_sum(double a, double b, double c, double &s, double &e1, double &e2) {
    double t1, t2, t3;
    two_sum(a, b, t1, t2);
    two_sum(c, t1, s, t3);
    two_sum(t2, t3, e1, e2);
}

// ThreeSum2 (Hida-Li-Bailey): s = fl(fl(a + b) + c), e = the two errors added in f64.
MP_DEV void three_sum2(double a, double b, double c, double &s, double &e) {
    double t1, t2, t3;
    two_sum(a, b, t1, t2);
    two_sum(c, t1, s, t3);
    e = t2 + t3;
}

#endif
