// Floors of the double-double gemv N on this GPU (session 40): how fast do the two planes of a
// column-major double-double A stream, with trivial arithmetic and with the full double-double
// multiply-add, in a plain tiled pattern and in the library's rows-pass pattern, beside
// cublasDgemv N on an f64 A of the same shape in the same process. Stand-alone CUDA C++ (nvcc on
// the GPU machine; run_dd_gemv.sh). Timing only: the sums go to a scratch array, unchecked.
//
// Kernels (m x n, lda = m, every block 256 threads):
// - f64_tiled<U>: a block takes 256 consecutive rows (2 KB runs down each column) and `cols`
//   columns; each thread one row, U columns' loads first, then U fused multiply-adds;
// - dd_trivial<U>: the same over the hi and lo planes, acc += hi x_hi + lo x_lo (two FMAs);
// - dd_full<U>: the same with the double-double product and accurate sum of the library's
//   Dd (two_prod by FMA, the cross terms, then the IEEE-style sum: two two_sums and two
//   renormalisations);
// - dd_lanes<AHEAD>: the library's rows-pass pattern (64 rows x 4 lane groups a block, a thread's lanes
//   g + 4k and g + 4k + 128 of each 4096-column chunk, 16 steps 256 columns apart, four steps of
//   both lanes loaded first), the same double-double step, each lane's sum joined into one
//   accumulator instead of the halving tree.
#include "dd_gemv_common.cuh"

struct Dd {
    double hi, lo;
};

__device__ __forceinline__ Dd two_sum(double a, double b) {
    const double s = __dadd_rn(a, b), bb = __dsub_rn(s, a);
    return {s, __dadd_rn(__dsub_rn(a, __dsub_rn(s, bb)), __dsub_rn(b, bb))};
}
__device__ __forceinline__ Dd fast_two_sum(double a, double b) {
    const double s = __dadd_rn(a, b);
    return {s, __dsub_rn(b, __dsub_rn(s, a))};
}
// a*b for double-double a, b: two_prod of the leading words by FMA plus the cross terms.
__device__ __forceinline__ Dd dd_mul(Dd a, Dd b) {
    const double p = __dmul_rn(a.hi, b.hi), e = __fma_rn(a.hi, b.hi, -p);
    const double c = __fma_rn(a.hi, b.lo, __fma_rn(a.lo, b.hi, e));
    return fast_two_sum(p, c);
}
// The accurate (IEEE-style) double-double sum.
__device__ __forceinline__ Dd dd_add(Dd a, Dd b) {
    Dd s = two_sum(a.hi, b.hi), t = two_sum(a.lo, b.lo);
    s.lo = __dadd_rn(s.lo, t.hi);
    s = fast_two_sum(s.hi, s.lo);
    s.lo = __dadd_rn(s.lo, t.lo);
    return fast_two_sum(s.hi, s.lo);
}


// The next batch's loads sit in a block of their own before the current batch's arithmetic, so
// that ptxas cannot move them down to their uses (with the loads and the arithmetic in one block
// it interleaved them, one batch's loads at a time). (Session 41: in dd_lanes<true> ptxas
// rotated the loop, so each batch's loads issue at the end of the iteration before, right ahead
// of their uses; see the README.)
template <int U>
__global__ void __launch_bounds__(256) f64_tiled(const double *a, const double *x, u64 m, u64 n, u64 cols,
                                                 double *out) {
    const u64 tiles = m / 256, i = (blockIdx.x % tiles) * 256 + threadIdx.x, c0 = (blockIdx.x / tiles) * cols;
    double acc = 0.0, na[U], nx[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
        na[u] = a[i + (c0 + u) * m];
        nx[u] = x[c0 + u];
    }
    for (u64 c = c0; c < c0 + cols; c += U) {
        double va[U], vx[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            va[u] = na[u];
            vx[u] = nx[u];
        }
        if (c + U < c0 + cols) {
#pragma unroll
            for (int u = 0; u < U; u++) {
                na[u] = a[i + (c + U + u) * m];
                nx[u] = x[c + U + u];
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) acc = __fma_rn(va[u], vx[u], acc);
    }
    out[blockIdx.x * 256 + threadIdx.x] = acc;
}

template <int U, bool FULL>
__global__ void __launch_bounds__(256) dd_tiled(const double *ah, const double *al, const double *xh,
                                                const double *xl, u64 m, u64 n, u64 cols, double *out) {
    const u64 tiles = m / 256, i = (blockIdx.x % tiles) * 256 + threadIdx.x, c0 = (blockIdx.x / tiles) * cols;
    Dd acc = {0.0, 0.0};
    double nh[U], nl[U], mh[U], ml[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
        nh[u] = ah[i + (c0 + u) * m];
        nl[u] = al[i + (c0 + u) * m];
        mh[u] = xh[c0 + u];
        ml[u] = xl[c0 + u];
    }
    for (u64 c = c0; c < c0 + cols; c += U) {
        double vh[U], vl[U], wh[U], wl[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            vh[u] = nh[u];
            vl[u] = nl[u];
            wh[u] = mh[u];
            wl[u] = ml[u];
        }
        if (c + U < c0 + cols) {
#pragma unroll
            for (int u = 0; u < U; u++) {
                nh[u] = ah[i + (c + U + u) * m];
                nl[u] = al[i + (c + U + u) * m];
                mh[u] = xh[c + U + u];
                ml[u] = xl[c + U + u];
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            if (FULL) {
                acc = dd_add(acc, dd_mul({vh[u], vl[u]}, {wh[u], wl[u]}));
            } else {
                acc.hi = __fma_rn(vh[u], wh[u], acc.hi);
                acc.lo = __fma_rn(vl[u], wl[u], acc.lo);
            }
        }
    }
    out[blockIdx.x * 256 + threadIdx.x] = acc.hi + acc.lo;
}

// The rows pass's pattern: blocks of 64 rows x 4 groups, a block per (tile, 4096-column chunk);
// a thread's batches (a lane pair's four steps) in one loop, t = 4 k0 + quarter, the next batch
// loaded before the current one's arithmetic (as above).
struct LaneBatch {
    double a0h[4], a0l[4], a1h[4], a1l[4], x0h[4], x0l[4], x1h[4], x1l[4];
};
__device__ __forceinline__ void lanes_load(LaneBatch &v, const double *ah, const double *al, const double *xh,
                                           const double *xl, u64 m, u64 i, u64 start, unsigned g, unsigned t) {
    const u64 l0 = start + g + 4 * (t >> 2), l1 = l0 + 128;
#pragma unroll
    for (int q = 0; q < 4; q++) {
        const u64 o = (u64)((t & 3) * 4 + q) * 256;
        v.a0h[q] = ah[i + (l0 + o) * m];
        v.a0l[q] = al[i + (l0 + o) * m];
        v.a1h[q] = ah[i + (l1 + o) * m];
        v.a1l[q] = al[i + (l1 + o) * m];
        v.x0h[q] = xh[l0 + o];
        v.x0l[q] = xl[l0 + o];
        v.x1h[q] = xh[l1 + o];
        v.x1l[q] = xl[l1 + o];
    }
}
template <bool AHEAD>
__global__ void __launch_bounds__(256) dd_lanes(const double *ah, const double *al, const double *xh,
                                                const double *xl, u64 m, u64 n, double *out) {
    const unsigned r = threadIdx.x % 64, g = threadIdx.x / 64;
    const u64 tiles = m / 64, chunks = n / 4096;
    for (u64 b = blockIdx.x; b < tiles * chunks; b += gridDim.x) {
        const u64 i = (b % tiles) * 64 + r, start = (b / tiles) * 4096;
        Dd total = {0.0, 0.0}, s0 = {0.0, 0.0}, s1 = {0.0, 0.0};
        LaneBatch next;
        if (AHEAD) lanes_load(next, ah, al, xh, xl, m, i, start, g, 0);
        for (unsigned t = 0; t < 128; t++) {
            LaneBatch v;
            if (AHEAD) {
                v = next;
                if (t + 1 < 128) lanes_load(next, ah, al, xh, xl, m, i, start, g, t + 1);
            } else {
                lanes_load(v, ah, al, xh, xl, m, i, start, g, t);
            }
#pragma unroll
            for (int q = 0; q < 4; q++) {
                s0 = dd_add(s0, dd_mul({v.a0h[q], v.a0l[q]}, {v.x0h[q], v.x0l[q]}));
                s1 = dd_add(s1, dd_mul({v.a1h[q], v.a1l[q]}, {v.x1h[q], v.x1l[q]}));
            }
            if ((t & 3) == 3) {
                total = dd_add(total, dd_add(s0, s1));
                s0 = s1 = {0.0, 0.0};
            }
        }
        out[b * 256 + threadIdx.x] = total.hi + total.lo;
    }
}


int main() {
    DdGemvData d;
    if (dd_gemv_data(d)) return 1;
    const u64 m = d.m, n = d.n, len = d.len;
    double *ah = d.ah, *al = d.al, *xh = d.xh, *xl = d.xl, *out = d.out;
    const cudaDeviceProp &prop = d.prop;
    printf("%s, %d SMs; A %llu x %llu column-major, median of 15 after 3 warm-up launches\n", prop.name,
           prop.multiProcessorCount, m, n);
    float cub = cublas_dgemv_ms(d);
    const double f64_bytes = 8.0 * (double)len, dd_bytes = 2 * f64_bytes;
    const double cub_bw = f64_bytes / (cub * 1e-3) / 1e9;
    printf("%-44s %8.4f ms %6.0f GB/s\n", "cublasDgemv N (f64 A)", cub, cub_bw);
    auto row = [&](const char *name, float ms, double bytes) {
        const double bw = bytes / (ms * 1e-3) / 1e9;
        printf("%-44s %8.4f ms %6.0f GB/s %5.1f%% of cublasDgemv\n", name, ms, bw, 100.0 * bw / cub_bw);
    };
    const u64 tiles = m / 256;
    for (u64 cols : {256ull, 1024ull}) {
        const unsigned blocks = (unsigned)(tiles * (n / cols));
        char name[96];
        snprintf(name, sizeof name, "f64 tiled, %llu columns a block, U 8", cols);
        row(name, median_ms([&] { f64_tiled<8><<<blocks, 256>>>(ah, xh, m, n, cols, out); }), f64_bytes);
        snprintf(name, sizeof name, "dd trivial, %llu columns, U 4", cols);
        row(name, median_ms([&] { dd_tiled<4, false><<<blocks, 256>>>(ah, al, xh, xl, m, n, cols, out); }), dd_bytes);
        snprintf(name, sizeof name, "dd trivial, %llu columns, U 8", cols);
        row(name, median_ms([&] { dd_tiled<8, false><<<blocks, 256>>>(ah, al, xh, xl, m, n, cols, out); }), dd_bytes);
        snprintf(name, sizeof name, "dd full, %llu columns, U 4", cols);
        row(name, median_ms([&] { dd_tiled<4, true><<<blocks, 256>>>(ah, al, xh, xl, m, n, cols, out); }), dd_bytes);
        snprintf(name, sizeof name, "dd full, %llu columns, U 8", cols);
        row(name, median_ms([&] { dd_tiled<8, true><<<blocks, 256>>>(ah, al, xh, xl, m, n, cols, out); }), dd_bytes);
    }
    for (int ahead = 0; ahead < 2; ahead++) {
        int per_sm = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, ahead ? dd_lanes<true> : dd_lanes<false>, 256, 0);
        const unsigned lane_blocks =
            (unsigned)std::min<u64>((m / 64) * (n / 4096), (u64)per_sm * prop.multiProcessorCount);
        char name[96];
        snprintf(name, sizeof name, "dd full, rows-pass lanes, %s (%d blocks an SM)",
                 ahead ? "next batch ahead" : "ptxas's order", per_sm);
        row(name, median_ms([&] {
                if (ahead)
                    dd_lanes<true><<<lane_blocks, 256>>>(ah, al, xh, xl, m, n, out);
                else
                    dd_lanes<false><<<lane_blocks, 256>>>(ah, al, xh, xl, m, n, out);
            }),
            dd_bytes);
    }
    cub = cublas_dgemv_ms(d);
    printf("%-44s %8.4f ms %6.0f GB/s (again, at the end)\n", "cublasDgemv N (f64 A)", cub, f64_bytes / (cub * 1e-3) / 1e9);
    CK(cudaGetLastError());
    return 0;
}
