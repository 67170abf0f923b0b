#include "qd_probe.cuh"
template <int G>
__global__ void v_nrm2(VecArg x, u64 n, double *out, u64 os, double tsml, double tbig, double ssml, double sbig) {
    Nrm2Of<QD> r;
    r.x = x;
    r.tsml = tsml;
    r.tbig = tbig;
    r.ssml = ssml;
    r.sbig = sbig;
    r.plain = 0;
    warp_pass<G>(r, n, out, os);
}
template <int G> ProbeResult one(int threads, const ProbeArgs &a) {
    ProbeResult r = shape_of(v_nrm2<G>, threads);
    r.ms = median_ms(a, [&] { v_nrm2<G><<<r.grid, threads>>>(a.x, a.n, a.out, a.os, a.tsml, a.tbig, a.ssml, a.sbig); });
    return r;
}
ProbeResult time_vnrm2(int g, int threads, const ProbeArgs &a) { return g == 1 ? one<1>(threads, a) : one<2>(threads, a); }
