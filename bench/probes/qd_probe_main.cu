// Probe: the quad-double reductions of blas/blas_level1_gpu.cu (sum, dot, nrm2) at n = 2^27:
// the production kernels at several launch shapes against the warp-per-chunk variant
// (qd_probe.cuh), each run's partials checked bit for bit against the production kernel's at
// 256 threads, cuBLAS in the same run. CUDA events, 3 warm-ups, median of 15.
// Build and run on the GPU machine: bash bench/probes/run_qd.sh
#include <cublas_v2.h>

#include <cstring>

#include "qd_probe.cuh"

#ifdef PROBE_PROD_ONLY
// Built without the variant units (run_qd.sh PREFETCHES=...): the production kernels only.
ProbeResult time_vsum(int, int, const ProbeArgs &) { return ProbeResult{0, 0, 0}; }
ProbeResult time_vdot(int, int, const ProbeArgs &) { return ProbeResult{0, 0, 0}; }
ProbeResult time_vnrm2(int, int, const ProbeArgs &) { return ProbeResult{0, 0, 0}; }
#endif

static u64 splitmix_h(u64 z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
__device__ u64 splitmix(u64 z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
__device__ double unit(u64 z) { return (double)(splitmix(z) >> 11) * (1.0 / 9007199254740992.0); }

// A normalised random quad-double per element (full precision in every word).
__global__ void fill_qd(double *w0, double *w1, double *w2, double *w3, u64 n, u64 seed) {
    for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
        u64 s = seed * 0x100000000ULL + i * 8;
        double a = 2.0 * unit(s) - 1.0;
        double b = (2.0 * unit(s + 1) - 1.0) * 0x1p-55 * mp_abs(a);
        double c = (2.0 * unit(s + 2) - 1.0) * 0x1p-110 * mp_abs(a);
        double d = (2.0 * unit(s + 3) - 1.0) * 0x1p-165 * mp_abs(a);
        Qd q = qd::renorm5(a, b, c, d, 0.0);
        w0[i] = q.c[0];
        w1[i] = q.c[1];
        w2[i] = q.c[2];
        w3[i] = q.c[3];
    }
}

int main(int argc, char **argv) {
    (void)splitmix_h;
    const u64 n = argc > 1 ? strtoull(argv[1], 0, 10) : (1ULL << 27);
    const bool ncu = argc > 2;
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("device %s, %d SMs, n = %llu\n", p.name, p.multiProcessorCount, n);
    if (n % CHUNK) {
        printf("n must be a multiple of %d\n", CHUNK);
        return 1;
    }
    double *w[8];
    for (int k = 0; k < 8; k++) CK(cudaMalloc(&w[k], n * sizeof(double)));
    fill_qd<<<1024, 256>>>(w[0], w[1], w[2], w[3], n, 1);
    fill_qd<<<1024, 256>>>(w[4], w[5], w[6], w[7], n, 2);
    CK(cudaDeviceSynchronize());
    const u64 chunks = n / CHUNK;
    ProbeArgs a;
    for (int k = 0; k < 4; k++) {
        a.x.w[k] = w[k];
        a.y.w[k] = w[4 + k];
    }
    a.x.inc = a.y.inc = 1;
    a.n = n;
    a.os = chunks;
    a.tsml = 0x1p-511;
    a.tbig = 0x1p486;
    a.ssml = 0x1p537;
    a.sbig = 0x1p-538;
    a.warmups = ncu ? 0 : 3;
    a.reps = ncu ? 1 : 15;
    double *ref, *got;
    CK(cudaMalloc(&ref, 12 * chunks * sizeof(double)));
    CK(cudaMalloc(&got, 12 * chunks * sizeof(double)));
    std::vector<double> h_ref(12 * chunks), h_got(12 * chunks);
    const double qd_bytes = 32.0 * n;

    if (!ncu) {
        cublasHandle_t cb;
        cublasCreate(&cb);
        cublasSetPointerMode(cb, CUBLAS_POINTER_MODE_DEVICE);
        double *dres, *big;
        CK(cudaMalloc(&dres, 8));
        CK(cudaMalloc(&big, 4 * n * sizeof(double)));
        for (int k = 0; k < 4; k++) CK(cudaMemcpy(big + k * n, w[k], n * 8, cudaMemcpyDeviceToDevice));
        float t;
        t = median_ms(a, [&] { cublasDasum(cb, (int)(4 * n), big, 1, dres); });
        printf("cublasDasum  4n doubles: %.3f ms %6.0f GB/s\n", t, qd_bytes / t / 1e6);
        t = median_ms(a, [&] { cublasDnrm2(cb, (int)(4 * n), big, 1, dres); });
        printf("cublasDnrm2  4n doubles: %.3f ms %6.0f GB/s\n", t, qd_bytes / t / 1e6);
        t = median_ms(a, [&] { cublasDdot(cb, (int)(4 * n), big, 1, big + 0, 1, dres); });
        printf("cublasDdot   4n doubles, x with x: %.3f ms %6.0f GB/s (if read once)\n", t, qd_bytes / t / 1e6);
        t = median_ms(a, [&] { cublasDdot(cb, (int)(2 * n), big, 1, big + 2 * n, 1, dres); });
        printf("cublasDdot   2n doubles each: %.3f ms %6.0f GB/s\n", t, qd_bytes / t / 1e6);
        CK(cudaFree(big));
    }

    auto fetch = [&](std::vector<double> &h, double *d, int words) {
        CK(cudaMemcpy(h.data(), d, words * chunks * sizeof(double), cudaMemcpyDeviceToHost));
    };
    auto report = [&](const char *what, int threads, ProbeResult r, double bytes, int words) {
        fetch(h_got, got, words);
        bool eq = memcmp(h_ref.data(), h_got.data(), words * chunks * sizeof(double)) == 0;
        printf("%-18s threads %4d grid %6d regs %3d: %.3f ms %6.0f GB/s  bits %s\n", what, threads, r.grid, r.regs, r.ms,
               bytes / r.ms / 1e6, eq ? "equal" : "DIFFER");
        fflush(stdout);
    };
    const char *names[3] = {"sum", "dot", "nrm2"};
    const int words[3] = {4, 4, 12};
    const double bytes[3] = {qd_bytes, 2 * qd_bytes, qd_bytes};
    for (int what = 0; what < 3; what++) {
        a.out = ref;
        time_prod(what, 256, ProbeArgs{a.x, a.y, a.n, ref, a.os, a.tsml, a.tbig, a.ssml, a.sbig, 0, 1});
        CK(cudaDeviceSynchronize());
        fetch(h_ref, ref, words[what]);
        a.out = got;
        char label[64];
        for (int th : {256, 128, 64, 32}) {
            CK(cudaMemset(got, 0, 12 * chunks * 8));
            snprintf(label, sizeof label, "prod %s", names[what]);
            report(label, th, time_prod(what, th, a), bytes[what], words[what]);
            if (ncu) break;
        }
#ifdef PROBE_PROD_ONLY
        continue;
#endif
        for (int g : {1, 2, 4}) {
            if (g == 4 && what != 0) continue;
            for (int th : {256, 128}) {
                CK(cudaMemset(got, 0, 12 * chunks * 8));
                ProbeResult r = what == 0 ? time_vsum(g, th, a) : what == 1 ? time_vdot(g, th, a) : time_vnrm2(g, th, a);
                snprintf(label, sizeof label, "warp<%d> %s", g, names[what]);
                report(label, th, r, bytes[what], words[what]);
                if (ncu) break;
            }
        }
    }
    return 0;
}
