// The production kernels (the whole module), timed at a launch shape.
#include "blas_level1_gpu.cu"
#define PROBE_HAVE_LEVEL1
#include "qd_probe.cuh"

ProbeResult time_prod(int what, int threads, const ProbeArgs &a) {
    ProbeResult r;
    if (what == 0) {
        r = shape_of(blas_qd_sum_blocked, threads);
        r.ms = median_ms(a, [&] { blas_qd_sum_blocked<<<r.grid, threads>>>(a.x, a.n, a.out, a.os); });
    } else if (what == 1) {
        r = shape_of(blas_qd_dot_blocked, threads);
        r.ms = median_ms(a, [&] { blas_qd_dot_blocked<<<r.grid, threads>>>(a.x, a.y, a.n, a.out, a.os); });
    } else {
        r = shape_of(blas_qd_nrm2_blocked, threads);
        r.ms = median_ms(a, [&] {
            blas_qd_nrm2_blocked<<<r.grid, threads>>>(a.x, a.n, a.out, a.os, a.tsml, a.tbig, a.ssml, a.sbig, 0);
        });
    }
    return r;
}
