#include "qd_probe.cuh"
template <int G> __global__ void v_dot(VecArg x, VecArg y, u64 n, double *out, u64 os) {
    warp_pass<G>(of_xy<DotOf<QD> >(x, y), n, out, os);
}
template <int G> ProbeResult one(int threads, const ProbeArgs &a) {
    ProbeResult r = shape_of(v_dot<G>, threads);
    r.ms = median_ms(a, [&] { v_dot<G><<<r.grid, threads>>>(a.x, a.y, a.n, a.out, a.os); });
    return r;
}
ProbeResult time_vdot(int g, int threads, const ProbeArgs &a) { return g == 1 ? one<1>(threads, a) : one<2>(threads, a); }
