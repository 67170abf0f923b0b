// Which part of the library's double-double gemv N step costs it against the session-40 probe
// (session 41, issue 13; run_dd_gemv_bisect.sh). The probe's rows-pass pattern with the next batch
// ahead streams at 104-106% of cublasDgemv; the library's rows pass at 85-89%, with 66 warp
// instructions an entry against 41 and its warps waiting on FP64 dependency chains instead of on
// memory (ncu, bench/results/h200/2026-11-29-s41-notes.md). This grows the probe's kernel toward
// the library's one piece at a time. Stand-alone CUDA C++ (nvcc --fmad=false on the GPU machine,
// the library's eft.cuh and dd/dd.cuh included); timing only, the sums go to a scratch array.
//
// lanes<STEP, ADDR, MINB, TREE>: the probe's dd_lanes<true> (64 rows x 4 lane groups a block of 256, a
// thread's lanes g + 4k and g + 4k + 128 of each 4096-column chunk, 16 steps 256 columns apart,
// four steps of both lanes a batch, the next batch loaded before the current one steps), with
// - STEP 0: the probe's step (product of the leading words by FMA plus two cross terms; the
//   accurate sum), no tests;
//   STEP 1: the library's generic paths unchecked (dd::mul_raw: a fourth term a.lo b.lo; the
//   accurate sum's generic path);
//   STEP 2: the library's step itself, dd::add_accurate(acc, dd::mul_accurate(a, x)): each
//   result tested (finite, non-zero) with the special-value path behind a branch;
// - ADDR 0: the probe's addresses (u64 index arithmetic, x contiguous);
//   ADDR 1: the library's (each load's element offset a 64-bit product j * inc with inc a
//   run-time stride, as DD::load in blas_reduce.cuh, for A's row and for x);
// - MINB: __launch_bounds__(256, MINB);
// - TREE 0: the probe's sums (each pair's two lanes joined into one total);
//   TREE 1: the library's (the pairs in the halving tree's bit-reversed order, each pair's node
//   joined into a binary counter of waiting nodes in shared memory).
#include "dd_gemv_common.cuh"
#include "dd/dd.cuh"
typedef long long i64;

// The probe's step (dd_gemv_probe.cu): no fourth term, no tests.
__device__ __forceinline__ Dd probe_mul(Dd a, Dd b) {
    const double p = __dmul_rn(a.hi, b.hi), e = __fma_rn(a.hi, b.hi, -p);
    const double c = __fma_rn(a.hi, b.lo, __fma_rn(a.lo, b.hi, e));
    const double s = __dadd_rn(p, c);
    return dd_make(s, __dsub_rn(c, __dsub_rn(s, p)));
}
// The accurate sum's generic path (dd::add_accurate without its test).
__device__ __forceinline__ Dd add_generic(Dd a, Dd b) {
    double sh, sl, th, tl, vh, vl, zh, zl;
    two_sum(a.hi, b.hi, sh, sl);
    two_sum(a.lo, b.lo, th, tl);
    const double c = sl + th;
    fast_two_sum(sh, c, vh, vl);
    const double w = tl + vl;
    fast_two_sum(vh, w, zh, zl);
    return dd_make(zh, zl);
}
template <int STEP> __device__ __forceinline__ Dd step(Dd acc, Dd a, Dd x) {
    if (STEP == 0) return add_generic(acc, probe_mul(a, x));
    if (STEP == 1) return add_generic(acc, dd::mul_raw(a, x));
    return dd::add_accurate(acc, dd::mul_accurate(a, x));
}

struct Planes {
    const double *w[2];
    i64 inc;
};
template <int ADDR>
__device__ __forceinline__ Dd load(const Planes &v, u64 base, u64 j, u64 stride) {
    if (ADDR == 0) {
        const u64 k = base + j * stride;
        return dd_make(v.w[0][k], v.w[1][k]);
    }
    const i64 k = (i64)base + (i64)j * v.inc;
    return dd_make(v.w[0][k], v.w[1][k]);
}

struct Batch {
    Dd a0[4], a1[4], x0[4], x1[4];
};
// The lane pair of batch t: the (t / 4)-th, or with TREE the bit-reversed one (the halving tree's
// order over 32 pairs).
template <int TREE> __device__ __forceinline__ unsigned pair_of(unsigned t) {
    return TREE ? __brev(t >> 2) >> 27 : t >> 2;
}
template <int ADDR, int TREE>
__device__ __forceinline__ void batch_load(Batch &v, const Planes &a, const Planes &x, u64 m, u64 i, u64 start,
                                           unsigned g, unsigned t) {
    const u64 l0 = start + g + 4 * pair_of<TREE>(t), l1 = l0 + 128;
#pragma unroll
    for (int q = 0; q < 4; q++) {
        const u64 o = (u64)((t & 3) * 4 + q) * 256;
        v.a0[q] = load<ADDR>(a, i, l0 + o, m);
        v.a1[q] = load<ADDR>(a, i, l1 + o, m);
        v.x0[q] = load<ADDR>(x, 0, l0 + o, 1);
        v.x1[q] = load<ADDR>(x, 0, l1 + o, 1);
    }
}
template <int STEP, int ADDR, int MINB, int TREE>
__global__ void __launch_bounds__(256, MINB) lanes(Planes a, Planes x, u64 m, u64 n, double *out) {
    // TREE: each pair's node joined into a binary counter of waiting nodes, a thread's column of
    // shared memory a level (the library's halving tree with SharedSlots)
    __shared__ double slot_rows[8 * 2 * 256];
    const unsigned r = threadIdx.x % 64, g = threadIdx.x / 64;
    const u64 tiles = m / 64, chunks = n / 4096;
    for (u64 b = blockIdx.x; b < tiles * chunks; b += gridDim.x) {
        const u64 i = (b % tiles) * 64 + r, start = (b / tiles) * 4096;
        Dd total = dd_make(0.0, 0.0), s0 = total, s1 = total;
        Batch next;
        batch_load<ADDR, TREE>(next, a, x, m, i, start, g, 0);
        for (unsigned t = 0; t < 128; t++) {
            Batch v = next;
            if (t + 1 < 128) batch_load<ADDR, TREE>(next, a, x, m, i, start, g, t + 1);
#pragma unroll
            for (int q = 0; q < 4; q++) {
                s0 = step<STEP>(s0, v.a0[q], v.x0[q]);
                s1 = step<STEP>(s1, v.a1[q], v.x1[q]);
            }
            if ((t & 3) == 3) {
                if (TREE) {
                    Dd node = dd::add_accurate(s0, s1);
                    const unsigned k = t >> 2;
                    unsigned level = 0;
                    while ((k >> level) & 1) {
                        const double *w = slot_rows + level * 512;
                        node = dd::add_accurate(dd_make(w[threadIdx.x], w[256 + threadIdx.x]), node);
                        level++;
                    }
                    double *w = slot_rows + level * 512;
                    w[threadIdx.x] = node.hi;
                    w[256 + threadIdx.x] = node.lo;
                    if (k == 31) total = node;
                } else {
                    total = dd::add_accurate(total, dd::add_accurate(s0, s1));
                }
                s0 = s1 = dd_make(0.0, 0.0);
            }
        }
        out[b * 256 + threadIdx.x] = total.hi + total.lo;
    }
}



template <int STEP, int ADDR, int MINB = 2, int TREE = 0>
static int row(const cudaDeviceProp &prop, Planes a, Planes x, u64 m, u64 n, double *out, float cub) {
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, lanes<STEP, ADDR, MINB, TREE>, 256, 0);
    cudaFuncAttributes attr;
    CK(cudaFuncGetAttributes(&attr, lanes<STEP, ADDR, MINB, TREE>));
    const unsigned blocks = (unsigned)std::min<u64>((m / 64) * (n / 4096), (u64)per_sm * prop.multiProcessorCount);
    const float ms = median_ms([&] { lanes<STEP, ADDR, MINB, TREE><<<blocks, 256>>>(a, x, m, n, out); });
    CK(cudaGetLastError());
    const double bw = 16.0 * (double)(m * n) / (ms * 1e-3) / 1e9, cub_bw = 8.0 * (double)(m * n) / (cub * 1e-3) / 1e9;
    printf("step %d addr %d tree %d  %3d registers (%d bytes local), %d blocks an SM  %8.4f ms %6.0f GB/s %5.1f%% "
           "of cublasDgemv\n",
           STEP, ADDR, TREE, attr.numRegs, (int)attr.localSizeBytes, per_sm, ms, bw, 100.0 * bw / cub_bw);
    return 0;
}

int main() {
    DdGemvData d;
    if (dd_gemv_data(d)) return 1;
    const u64 m = d.m, n = d.n;
    const cudaDeviceProp &prop = d.prop;
    double *out = d.out;
    printf("%s, %d SMs; A %llu x %llu column-major (two planes), median of 15 after 3 warm-up launches\n", prop.name,
           prop.multiProcessorCount, m, n);
    const float cub = cublas_dgemv_ms(d);
    printf("cublasDgemv N (f64 A) %8.4f ms\n", cub);
    // (the library's addressing: A's row i as planes at i with the column stride m, x with stride 1)
    const Planes a{{d.ah, d.al}, (i64)m}, x{{d.xh, d.xl}, 1};
    // (the checked step takes 158 registers in this pattern: one block an SM, or two with
    // __launch_bounds__(256, 2) and 160 bytes spilled; both are timed)
    if (row<0, 0>(prop, a, x, m, n, out, cub) || row<1, 0>(prop, a, x, m, n, out, cub) ||
        row<2, 0, 1>(prop, a, x, m, n, out, cub) || row<2, 0, 2>(prop, a, x, m, n, out, cub) ||
        row<0, 1>(prop, a, x, m, n, out, cub) || row<1, 1>(prop, a, x, m, n, out, cub) ||
        row<2, 1, 1>(prop, a, x, m, n, out, cub) || row<2, 1, 2>(prop, a, x, m, n, out, cub) ||
        row<0, 0, 2, 1>(prop, a, x, m, n, out, cub) || row<2, 1, 1, 1>(prop, a, x, m, n, out, cub) ||
        row<2, 1, 2, 1>(prop, a, x, m, n, out, cub))
        return 1;
    printf("cublasDgemv N (f64 A) %8.4f ms (again, at the end)\n", cublas_dgemv_ms(d));
    return 0;
}
