// The compensated double-double dot product (blas/level3.rs CompensatedDot), shared by the
// GEMM kernels (blas_level3_gpu.cu) and the double-double Ozaki scheme's fallback entries
// (ozaki_gpu.cu).

#ifndef MPBLAS_BLAS_COMPENSATED_CUH
#define MPBLAS_BLAS_COMPENSATED_CUH

#include "dd.cuh"

// The compensated double-double dot product of level3.rs (CompensatedDot): per block of
// COMPENSATED_BLOCK terms, TwoSum of the leading products into s and their errors with the
// cross products into e; at a block's end (s, e) made a double-double and added to the total
// with the accurate addition.
#define COMPENSATED_BLOCK 32
struct DdCompensated {
    typedef Dd T;
    struct Acc {
        Dd total;
        double s, e;
    };
    static const bool BLOCKS = true;
    static MP_DEV Acc start() {
        Acc a;
        a.total = dd_make(-0.0, -0.0);
        a.s = -0.0;
        a.e = 0.0;
        return a;
    }
    static MP_DEV void step(Acc &acc, Dd a, Dd b) {
        double p, q0, s, q;
        two_prod(a.hi, b.hi, p, q0);
        const double t = __fma_rn(a.hi, b.lo, q0);
        const double pi = __fma_rn(a.lo, b.hi, t);
        two_sum(acc.s, p, s, q);
        acc.s = s;
        acc.e = acc.e + (q + pi);
    }
    static MP_DEV void flush(Acc &acc) {
        Dd v;
        if (!mp_is_finite(acc.s) || acc.e == 0.0) {
            v = dd_make(acc.s, 0.0);
        } else {
            double h, l;
            two_sum(acc.s, acc.e, h, l);
            v = dd_make(h, l);
        }
        acc.total = dd::add_accurate(acc.total, v);
        acc.s = -0.0;
        acc.e = 0.0;
    }
    static MP_DEV Dd value(const Acc &acc) { return acc.total; }
};

#endif
