// BLAS level 3 on the GPU (launcher: blas/blas_level3_gpu.rs): gemm for f64, double-double and
// quad-double, the CPU's bits (level3.rs).
//
// Entry (i, j) of C is α·s_ij + β·c_ij (α·s_ij when β = 0) with s_ij = Σ_l a_il·b_lj summed
// recursively in l from −0, each step the format's add_product (blas_reduce.cuh): the CPU's
// order, so the bits are the CPU's for any tiling and launch.
//
// A block computes a BM × BN tile of C; its 256 threads each hold a TM × TN micro-tile of
// accumulators, rows tx + TX·r and columns ty + TY·c of the tile (TX = BM/TM, TY = BN/TN), so
// that a warp reads consecutive shared addresses of A's tile and broadcasts B's. The tiles of
// A (BM × BK) and B (BK × BN) pass through shared memory, the next pair loaded into registers
// while the current one is used. Each tile's loads follow the operand's storage (threads along
// the contiguous dimension), so any transpose reads whole sectors. Steps beyond k are never
// taken (a step adding 0·0 would turn an accumulator of −0 into +0); rows and columns beyond
// C are computed on zeros and not stored.
//
// mode: 0 C ← α·S + β·C, 1 C ← α·S, 2 S to `sout` (word stride m·n, column-major); ABS sums
// |a_il|·|b_lj| (the bounds' (|A||B|)_ij). The summation is a policy: Plain<F> (the format's
// add_product) or DdCompensated (level3.rs's gemm_dd_compensated).

#include "blas_reduce.cuh"
#include "blas_compensated.cuh"

// A matrix: word pointers to element (0, 0); element (i, j) at i·rs + j·cs.
struct MatArg {
    const double *w[4];
    u64 rs, cs;
};
struct MutMatArg {
    double *w[4];
    u64 rs, cs;
};

#define GEMM_THREADS 256

// The tile sizes of each format, with the blocks per SM of its entry points' launch bounds.
// The double-double and quad-double steps are long dependent chains (a product, then the
// accurate addition: about 33 FP64 instructions per step); what keeps the FP64 pipe busy is
// warps, not accumulators per thread. Measured on an H100 SXM (T dd-op/s, 4096³; qd 2048³):
// double-double 64×64 tiles of 4×4 per thread, 206 registers, 1 block per SM: 0.44; 32×64 of
// 2×4, 2 blocks: 0.69; 32×32 of 2×2, 3 blocks: 0.78; 4 blocks (64 registers): 0.79; the
// special-value epilogue as selects instead of its branch: slower (0.35 against 0.44).
// Quad-double 32×32 of 2×2, 1 block: 0.092; 2 blocks: 0.109; 16×32 of 1×2, 2 blocks: 0.111.
template <class F> struct GemmTile {
    static const int BM = 64, BN = 64, BK = 16, TM = 4, TN = 4;
};
template <> struct GemmTile<DD> {
    static const int BM = 32, BN = 32, BK = 16, TM = 2, TN = 2;
};
template <> struct GemmTile<QD> {
    static const int BM = 16, BN = 32, BK = 16, TM = 1, TN = 2;
};

// How a thread's entry sums its steps. `Plain<F>`: the format's add_product from −0 (gemm).
template <class F> struct Plain {
    typedef typename F::T T;
    typedef T Acc;
    static const bool BLOCKS = false;
    static MP_DEV Acc start() { return F::neg_zero(); }
    static MP_DEV void step(Acc &acc, T a, T b) { acc = F::add_product(acc, a, b); }
    static MP_DEV void flush(Acc &) {}
    static MP_DEV T value(const Acc &acc) { return acc; }
};

// The tiles of DdCompensated (blas_compensated.cuh): the compensated step is short (about 13 FP64 instructions, TwoSum the longest
// chain), so more accumulators per thread pay. Measured on an H100 SXM (T dd-op/s at 4096³,
// 8192³): 32×32 of 2×2, 4 blocks per SM (spilling): 1.56, —; 64×64 of 4×4, BK 16, 1 block
// (255 registers, spilling): 1.73, 1.78; 64×32 of 4×2, BK 8, 2 blocks: 1.99, 1.93; 64×64 of
// 4×4, BK 8, 1 block (234 registers, no spill): 1.90, 1.97.
struct CompensatedTile {
    static const int BM = 64, BN = 64, BK = 8, TM = 4, TN = 4;
};
// Element (i, j) of a matrix, 0 outside rows × cols; |x| for ABS.
template <class F, bool ABS>
MP_DEV typename F::T gemm_load(const MatArg &a, u64 i, u64 j, u64 rows, u64 cols) {
    if (i >= rows || j >= cols) return F::from_f64(0.0);
    const u64 o = i * a.rs + j * a.cs;
    double w[4];
#pragma unroll
    for (int k = 0; k < F::W; k++) w[k] = a.w[k][o];
    typename F::T v = F::make(w);
    return ABS ? F::abs(v) : v;
}

template <class F, bool ABS, class Tile = GemmTile<F>, class P = Plain<F> >
MP_DEV void gemm_tiled(MatArg a, MatArg b, u64 m, u64 n, u64 k, ScalArg alpha, ScalArg beta, MutMatArg c,
                       int mode, double *__restrict__ sout) {
    typedef typename F::T T;
    const int BM = Tile::BM, BN = Tile::BN, BK = Tile::BK;
    const int TM = Tile::TM, TN = Tile::TN;
    const int TX = BM / TM, TY = BN / TN;
    const int LA = BM * BK / GEMM_THREADS, LB = BK * BN / GEMM_THREADS; // loads per thread
    // Word w of element (kk, r) of A's tile at sa[w·BK·BM + kk·BM + r]; B's at sb[… kk·BN + j].
    __shared__ double sa[F::W * BK * BM];
    __shared__ double sb[F::W * BK * BN];
    const unsigned t = threadIdx.x;
    const int tx = t % TX, ty = t / TX;
    const u64 i0 = (u64)blockIdx.x * BM, j0 = (u64)blockIdx.y * BN;
    // Threads along A's rows when its columns are contiguous (rs = 1), else along l; likewise B.
    const bool a_rows_fast = a.rs == 1, b_rows_fast = b.rs == 1;
    T ra[LA], rb[LB];
    auto fetch = [&](u64 l0) {
#pragma unroll
        for (int q = 0; q < LA; q++) {
            const unsigned e = t + q * GEMM_THREADS;
            const unsigned r = a_rows_fast ? e % BM : e / BK, kk = a_rows_fast ? e / BM : e % BK;
            ra[q] = gemm_load<F, ABS>(a, i0 + r, l0 + kk, m, k);
        }
#pragma unroll
        for (int q = 0; q < LB; q++) {
            const unsigned e = t + q * GEMM_THREADS;
            const unsigned kk = b_rows_fast ? e % BK : e / BN, j = b_rows_fast ? e / BK : e % BN;
            rb[q] = gemm_load<F, ABS>(b, l0 + kk, j0 + j, k, n);
        }
    };
    auto stash = [&]() {
#pragma unroll
        for (int q = 0; q < LA; q++) {
            const unsigned e = t + q * GEMM_THREADS;
            const unsigned r = a_rows_fast ? e % BM : e / BK, kk = a_rows_fast ? e / BM : e % BK;
            F::put(sa, BK * BM, kk * BM + r, ra[q]);
        }
#pragma unroll
        for (int q = 0; q < LB; q++) {
            const unsigned e = t + q * GEMM_THREADS;
            const unsigned kk = b_rows_fast ? e % BK : e / BN, j = b_rows_fast ? e / BK : e % BN;
            F::put(sb, BK * BN, kk * BN + j, rb[q]);
        }
    };
    static_assert(!P::BLOCKS || COMPENSATED_BLOCK % BK == 0, "blocks end at tile ends");
    typename P::Acc acc[TM][TN];
#pragma unroll
    for (int r = 0; r < TM; r++)
#pragma unroll
        for (int s = 0; s < TN; s++) acc[r][s] = P::start();
    if (k > 0) fetch(0);
    for (u64 l0 = 0; l0 < k; l0 += BK) {
        stash();
        __syncthreads();
        if (l0 + BK < k) fetch(l0 + BK);
        const int steps = k - l0 < (u64)BK ? (int)(k - l0) : BK;
        auto step = [&](int kk) {
            T av[TM], bv[TN];
#pragma unroll
            for (int r = 0; r < TM; r++) av[r] = F::get(sa, BK * BM, kk * BM + tx + TX * r);
#pragma unroll
            for (int s = 0; s < TN; s++) bv[s] = F::get(sb, BK * BN, kk * BN + ty + TY * s);
#pragma unroll
            for (int r = 0; r < TM; r++)
#pragma unroll
                for (int s = 0; s < TN; s++) P::step(acc[r][s], av[r], bv[s]);
        };
        if (steps == BK) {
#pragma unroll 2
            for (int kk = 0; kk < BK; kk++) step(kk);
        } else {
            for (int kk = 0; kk < steps; kk++) step(kk);
        }
        if (P::BLOCKS && ((l0 + steps) % COMPENSATED_BLOCK == 0 || l0 + steps == k)) {
#pragma unroll
            for (int r = 0; r < TM; r++)
#pragma unroll
                for (int s = 0; s < TN; s++) P::flush(acc[r][s]);
        }
        __syncthreads();
    }
    const T al = F::make(alpha.w), be = F::make(beta.w);
#pragma unroll
    for (int r = 0; r < TM; r++) {
#pragma unroll
        for (int s = 0; s < TN; s++) {
            const u64 i = i0 + tx + TX * r, j = j0 + ty + TY * s;
            if (i >= m || j >= n) continue;
            if (mode == 2) {
                F::put(sout, m * n, i + j * m, P::value(acc[r][s]));
                continue;
            }
            const u64 o = i * c.rs + j * c.cs;
            T v = F::mul(al, P::value(acc[r][s]));
            if (mode == 0) {
                double w[4];
#pragma unroll
                for (int q = 0; q < F::W; q++) w[q] = c.w[q][o];
                v = F::add(v, F::mul(be, F::make(w)));
            }
            double out[4];
            F::put(out, 1, 0, v);
#pragma unroll
            for (int q = 0; q < F::W; q++) c.w[q][o] = out[q];
        }
    }
}

// C ← β·C (α = 0 or k = 0), `zero` where β = 0 (C not read).
template <class F>
MP_DEV void gemm_beta_only(ScalArg beta, ScalArg zero, int beta_zero, MutMatArg c, u64 m, u64 n) {
    const bool rows_fast = c.rs == 1 || c.cs != 1;
    for (u64 e = (u64)blockIdx.x * blockDim.x + threadIdx.x; e < m * n; e += (u64)gridDim.x * blockDim.x) {
        const u64 i = rows_fast ? e % m : e / n, j = rows_fast ? e / m : e % n;
        const u64 o = i * c.rs + j * c.cs;
        typename F::T v;
        if (beta_zero) {
            v = F::make(zero.w);
        } else {
            double w[4];
#pragma unroll
            for (int q = 0; q < F::W; q++) w[q] = c.w[q][o];
            v = F::mul(F::make(beta.w), F::make(w));
        }
        double out[4];
        F::put(out, 1, 0, v);
#pragma unroll
        for (int q = 0; q < F::W; q++) c.w[q][o] = out[q];
    }
}

extern "C" __global__ void __launch_bounds__(GEMM_THREADS) blas_f64_gemm(MatArg a, MatArg b, u64 m, u64 n, u64 k, ScalArg alpha, ScalArg beta, MutMatArg c, int mode, double *sout) {
    gemm_tiled<F64, false>(a, b, m, n, k, alpha, beta, c, mode, sout);
}
extern "C" __global__ void __launch_bounds__(GEMM_THREADS) blas_f64_gemm_abs(MatArg a, MatArg b, u64 m, u64 n, u64 k, ScalArg alpha, ScalArg beta, MutMatArg c, int mode, double *sout) {
    gemm_tiled<F64, true>(a, b, m, n, k, alpha, beta, c, mode, sout);
}
extern "C" __global__ void blas_f64_gemm_beta_only(ScalArg beta, ScalArg zero, int beta_zero, MutMatArg c, u64 m, u64 n) {
    gemm_beta_only<F64>(beta, zero, beta_zero, c, m, n);
}

extern "C" __global__ void __launch_bounds__(GEMM_THREADS, 4) blas_dd_gemm(MatArg a, MatArg b, u64 m, u64 n, u64 k, ScalArg alpha, ScalArg beta, MutMatArg c, int mode, double *sout) {
    gemm_tiled<DD, false>(a, b, m, n, k, alpha, beta, c, mode, sout);
}
extern "C" __global__ void __launch_bounds__(GEMM_THREADS, 4) blas_dd_gemm_abs(MatArg a, MatArg b, u64 m, u64 n, u64 k, ScalArg alpha, ScalArg beta, MutMatArg c, int mode, double *sout) {
    gemm_tiled<DD, true>(a, b, m, n, k, alpha, beta, c, mode, sout);
}
extern "C" __global__ void __launch_bounds__(GEMM_THREADS, 1) blas_dd_gemm_compensated(MatArg a, MatArg b, u64 m, u64 n, u64 k, ScalArg alpha, ScalArg beta, MutMatArg c, int mode, double *sout) {
    gemm_tiled<DD, false, CompensatedTile, DdCompensated>(a, b, m, n, k, alpha, beta, c, mode, sout);
}
extern "C" __global__ void __launch_bounds__(GEMM_THREADS, 1) blas_dd_gemm_compensated_abs(MatArg a, MatArg b, u64 m, u64 n, u64 k, ScalArg alpha, ScalArg beta, MutMatArg c, int mode, double *sout) {
    gemm_tiled<DD, true, CompensatedTile, DdCompensated>(a, b, m, n, k, alpha, beta, c, mode, sout);
}
extern "C" __global__ void blas_dd_gemm_beta_only(ScalArg beta, ScalArg zero, int beta_zero, MutMatArg c, u64 m, u64 n) {
    gemm_beta_only<DD>(beta, zero, beta_zero, c, m, n);
}

extern "C" __global__ void __launch_bounds__(GEMM_THREADS, 2) blas_qd_gemm(MatArg a, MatArg b, u64 m, u64 n, u64 k, ScalArg alpha, ScalArg beta, MutMatArg c, int mode, double *sout) {
    gemm_tiled<QD, false>(a, b, m, n, k, alpha, beta, c, mode, sout);
}
extern "C" __global__ void __launch_bounds__(GEMM_THREADS, 2) blas_qd_gemm_abs(MatArg a, MatArg b, u64 m, u64 n, u64 k, ScalArg alpha, ScalArg beta, MutMatArg c, int mode, double *sout) {
    gemm_tiled<QD, true>(a, b, m, n, k, alpha, beta, c, mode, sout);
}
extern "C" __global__ void blas_qd_gemm_beta_only(ScalArg beta, ScalArg zero, int beta_zero, MutMatArg c, u64 m, u64 n) {
    gemm_beta_only<QD>(beta, zero, beta_zero, c, m, n);
}
