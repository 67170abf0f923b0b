// Small helpers shared by the element-wise function headers (dd_func.cuh, qd_func.cuh).

#ifndef MPBLAS_FUNC_COMMON_CUH
#define MPBLAS_FUNC_COMMON_CUH

#include "eft.cuh"

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

#endif
