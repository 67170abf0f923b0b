#include "qd_probe.cuh"
template <int G> __global__ void v_sum(VecArg x, u64 n, double *out, u64 os) { warp_pass<G>(of_x<SumOf<QD> >(x), n, out, os); }
template <int G> ProbeResult one(int threads, const ProbeArgs &a) {
    ProbeResult r = shape_of(v_sum<G>, threads);
    r.ms = median_ms(a, [&] { v_sum<G><<<r.grid, threads>>>(a.x, a.n, a.out, a.os); });
    return r;
}
ProbeResult time_vsum(int g, int threads, const ProbeArgs &a) {
    return g == 1 ? one<1>(threads, a) : g == 2 ? one<2>(threads, a) : one<4>(threads, a);
}
