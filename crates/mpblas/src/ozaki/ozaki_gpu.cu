// Ozaki scheme I and II GEMM stages (launcher: cuda/ozaki.rs), the device twins of
// crates/mpblas/src/ozaki/{split,ozaki1,ozaki2}.rs.
//
// Every stage keeps the CPU's operation order (no contraction: the module is compiled with
// --fmad=false and calls __fma_rn only where the result is exact either way), so the GPU
// returns the CPU's bits. Index arithmetic is 64-bit; every load and store is guarded.
//
// Layouts (see ozaki/mod.rs): a "vector" is a row of op(A) or a column of op(B), of length k.
// The user's arrays are read in place: element t of vector v is x[v*sv + t*st], where exactly
// one of sv, st is 1 (the contiguous direction). The INT8 residues are written packed, vector
// after vector, each padded with zeros to `lenp` (a multiple of 16), one slab per modulus:
// the k x count column-major ("TN") operand cuBLAS's INT8 GEMM wants.
//
// Kernel names: ozaki_<stage>_<variant>.

#include "dd.cuh"
#include "qd.cuh"
#include "blas_compensated.cuh"

typedef unsigned long long u64;
typedef long long i64;

#define OZ_ABS_MASK 0x7fffffffffffffffULL
#define OZ_INF_BITS 0x7ff0000000000000ULL

#define OZ_GRID_STRIDE(i, n)                                                                      \
    for (u64 i = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; i < (n);                 \
         i += (u64)blockDim.x * (u64)gridDim.x)

// A column-major m x n loop without divisions: blockIdx.y strides over columns, x over rows.
#define OZ_GRID_2D(i, m, j, n)                                                                    \
    for (u64 j = blockIdx.y; j < (n); j += gridDim.y)                                             \
        for (u64 i = (u64)blockIdx.x * (u64)blockDim.x + (u64)threadIdx.x; i < (m);             \
             i += (u64)blockDim.x * (u64)gridDim.x)

// The moduli of ozaki2::moduli(31), in order (ozaki2_gpu.rs's tests check the list against
// the Rust function). X(index, modulus). DGEMM's scheme uses the first OZ_F64_MODULI, the
// double-double scheme (ozaki2_dd.rs) all of them.
#define OZ_MODULI_LIST(X)                                                                         \
    X(0, 256) X(1, 255) X(2, 253) X(3, 251) X(4, 247) X(5, 241) X(6, 239) X(7, 233) X(8, 229)   \
    X(9, 227) X(10, 223) X(11, 217) X(12, 211) X(13, 199) X(14, 197) X(15, 193) X(16, 191)      \
    X(17, 181) X(18, 179) X(19, 173) X(20, 167) X(21, 163) X(22, 157) X(23, 151) X(24, 149)     \
    X(25, 139) X(26, 137) X(27, 131) X(28, 127) X(29, 113) X(30, 109)

#define OZ_F64_MODULI 20
#define OZ_MAX_MODULI 31
#define OZ_MAX_WORDS 6

// ---- scalar helpers: twins of ozaki/split.rs and dd/arith.rs ---------------------------------

// split::pow2: 2^e for e in [-1022, 1023], from the bits (the CPU's eft::pow2 is total since
// issue 11, with the same bits in this range; the kernels call it only in range).
MP_DEV double oz_pow2(int e) { return __longlong_as_double((long long)((u64)(e + 1023) << 52)); }

// split::ldexp: x * 2^e in steps that stay in range (same steps, same roundings).
MP_DEV double oz_ldexp(double x, int e) {
    while (e > 1023) {
        x *= oz_pow2(1023);
        e -= 1023;
        if (!mp_is_finite(x) && !mp_is_nan(x)) return x;
    }
    while (e < -1022) {
        x *= oz_pow2(-1022);
        e += 1022;
        if (x == 0.0) return x;
    }
    return x * oz_pow2(e);
}

// split::ceil_log2: ceil(log2 mu) for finite mu > 0, 0 for 0 (and non-finite).
MP_DEV int oz_ceil_log2(double mu) {
    if (mu == 0.0 || !mp_is_finite(mu)) return 0;
    u64 bits = (u64)__double_as_longlong(mu) & OZ_ABS_MASK;
    int ex = (int)((bits >> 52) & 0x7ff);
    u64 frac = bits & ((1ULL << 52) - 1);
    if (ex == 0) {
        int lz = 63 - __clzll((long long)frac);
        bool pow = (frac & (frac - 1)) == 0;
        return lz - 1074 + (pow ? 0 : 1);
    }
    int e = ex - 1023;
    return frac == 0 ? e : e + 1;
}

// The vector maximum of |x| as stored by ozaki_vecmax_*: the bits of max |x|, or at least the
// bits of +Inf when the vector holds a NaN or an infinity ("bad": zeroed, patched at the end).
MP_DEV bool oz_bad(u64 mubits) { return mubits >= OZ_INF_BITS; }
MP_DEV double oz_mu(u64 mubits) { return oz_bad(mubits) ? 0.0 : __longlong_as_double((long long)mubits); }

// A recomputed entry (i, j) of an m-row result: counts[what] += 1 (0: by the guard, 1: of a
// bad row or column), and its row's and column's flags, kept after the two counters
// (ozaki_gpu.rs zeroed_counts: m row flags, then the column flags, u32 each).
MP_DEV void oz_count(unsigned long long *counts, int what, u64 m, u64 i, u64 j) {
    atomicAdd(&counts[what], 1ULL);
    unsigned *flags = (unsigned *)(counts + 2);
    flags[i] = 1u;
    flags[m + j] = 1u;
}

// Dd::add_f64 (with its special-value epilogue).
MP_DEV Dd oz_dd_add_f64(Dd a, double b) {
    double sh, sl, zh, zl;
    two_sum(a.hi, b, sh, sl);
    double v = a.lo + sl;
    fast_two_sum(sh, v, zh, zl);
    if (dd::generic_ok(zh)) return dd_make(zh, zl);
    return dd::special(a.hi + b, zh);
}

// Dd::mul_f64.
MP_DEV Dd oz_dd_mul_f64(Dd a, double b) {
    double ch, cl1, zh, zl;
    two_prod(a.hi, b, ch, cl1);
    double cl3 = __fma_rn(a.lo, b, cl1);
    fast_two_sum(ch, cl3, zh, zl);
    if (dd::generic_ok(zh)) return dd_make(zh, zl);
    return dd::special(a.hi * b, zh);
}

// Dd::mul_f64_f64.
MP_DEV Dd oz_dd_mul_f64_f64(double a, double b) {
    double p, e;
    two_prod(a, b, p, e);
    return mp_is_finite(p) ? dd_make(p, e) : dd_make(p, 0.0);
}

// Dd::ldexp: pow2 clamped to the normal range; out of range, two half steps (recursively in
// Rust; unrolled to three levels here, exact for |n| <= 8184, far beyond what the scalings
// produce: |e_i + f_j| < 2400).
MP_DEV double oz_pow2c(int n) { return oz_pow2(n < -1022 ? -1022 : (n > 1023 ? 1023 : n)); }
MP_DEV bool oz_in_range(int n) { return n >= -1022 && n <= 1023; }
MP_DEV Dd oz_dd_scale(Dd a, int n) {
    double s = oz_pow2c(n);
    return dd_make(a.hi * s, a.lo * s);
}
MP_DEV Dd oz_dd_ldexp1(Dd a, int n) {
    if (oz_in_range(n)) return oz_dd_scale(a, n);
    int h = n / 2;
    return oz_dd_scale(oz_dd_scale(a, h), n - h);
}
MP_DEV Dd oz_dd_ldexp2(Dd a, int n) {
    if (oz_in_range(n)) return oz_dd_scale(a, n);
    int h = n / 2;
    return oz_dd_ldexp1(oz_dd_ldexp1(a, h), n - h);
}
MP_DEV Dd oz_dd_ldexp(Dd a, int n) {
    if (oz_in_range(n)) return oz_dd_scale(a, n);
    int h = n / 2;
    return oz_dd_ldexp2(oz_dd_ldexp2(a, h), n - h);
}

// ozaki/mod.rs update_f64: alpha * s + beta * c in f64 (c ignored when beta = 0).
MP_DEV double oz_update_f64(double s, double alpha, double beta, double c) {
    return beta == 0.0 ? alpha * s : alpha * s + beta * c;
}

// The plain f64 value of a C entry in a bad row or column (ozaki/mod.rs plain_entry):
// alpha * sum_l a_il * b_lj + beta * c, summed in order, no FMA.
MP_DEV double oz_patch(const double *__restrict__ a, u64 asv, u64 ast, const double *__restrict__ b,
                       u64 bsv, u64 bst, u64 i, u64 j, u64 k, double alpha, double beta, double c) {
    double s = 0.0;
    for (u64 l = 0; l < k; ++l) {
        s = s + a[i * asv + l * ast] * b[j * bsv + l * bst];
    }
    return oz_update_f64(s, alpha, beta, c);
}

// The BLAS update of one entry from the double-double product s (ozaki2_gemm, ozaki1 Dd).
MP_DEV double oz_update_dd(Dd s, double alpha, double beta, double c) {
    Dd t = oz_dd_mul_f64(s, alpha);
    if (beta == 0.0) return t.hi;
    return dd::add_accurate(t, oz_dd_mul_f64_f64(beta, c)).hi;
}

// ---- stage 1: vector maxima -------------------------------------------------------------------

// Vectors contiguous along t (st = 1): one warp per vector, blockIdx.y picks a range of t.
// out[v] = max(out[v], bits of max |x_vt|) (out zeroed before; NaN bits exceed Inf's).
// Launch: block (256), grid (ceil(count/8), chunks).
extern "C" __global__ void ozaki_vecmax_tcontig(const double *__restrict__ x, u64 sv, u64 count,
                                                u64 len, u64 *__restrict__ out) {
    u64 v = (u64)blockIdx.x * 8 + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (v >= count) return;
    u64 per = (len + gridDim.y - 1) / gridDim.y;
    u64 t0 = per * blockIdx.y;
    u64 t1 = t0 + per < len ? t0 + per : len;
    u64 m = 0;
    for (u64 t = t0 + lane; t < t1; t += 32) {
        u64 bits = (u64)__double_as_longlong(x[v * sv + t]) & OZ_ABS_MASK;
        m = bits > m ? bits : m;
    }
    for (int o = 16; o > 0; o >>= 1) {
        u64 other = __shfl_xor_sync(0xffffffffu, m, o);
        m = other > m ? other : m;
    }
    if (lane == 0 && m != 0) atomicMax(&out[v], m);
}

// Vectors contiguous along v (sv = 1): one thread per vector, blockIdx.y picks a range of t.
// Launch: block (256), grid (ceil(count/256), chunks).
extern "C" __global__ void ozaki_vecmax_vcontig(const double *__restrict__ x, u64 st, u64 count,
                                                u64 len, u64 *__restrict__ out) {
    u64 v = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= count) return;
    u64 per = (len + gridDim.y - 1) / gridDim.y;
    u64 t0 = per * blockIdx.y;
    u64 t1 = t0 + per < len ? t0 + per : len;
    u64 m = 0;
    for (u64 t = t0; t < t1; ++t) {
        u64 bits = (u64)__double_as_longlong(x[v + t * st]) & OZ_ABS_MASK;
        m = bits > m ? bits : m;
    }
    if (m != 0) atomicMax(&out[v], m);
}

// ---- stage 1b: fast mode's maxima and 2-norm bounds in one read (ozaki2::norm_squares) ------

// ozaki2::quantise_up: ceil(|t| 2^e), at least 1 for t != 0 (at most 2^16 here).
MP_DEV u64 oz_quantise_up(double t, int e) {
    if (t == 0.0) return 0;
    u64 g = (u64)ceil(oz_ldexp(mp_abs(t), e));
    return g > 1 ? g : 1;
}

#define OZ_CHUNK 128  // ozaki2::NORM_CHUNK: one warp, 4 values per lane

// One chunk of 128 values (4 per lane, the whole warp): its maximum bits (NaN bits exceed
// Inf's), S_c = sum of g^2 and S1_c = sum of g, g = ceil(|x| 2^(16 - ceil_log2 mu_c)) (0 for a
// zero or bad chunk).
MP_DEV void oz_chunk_stats(const double xv[4], u64 *mbits, u64 *sc, u64 *s1c) {
    u64 m = 0;
    for (int j = 0; j < 4; ++j) {
        u64 bits = (u64)__double_as_longlong(xv[j]) & OZ_ABS_MASK;
        m = bits > m ? bits : m;
    }
    for (int o = 16; o > 0; o >>= 1) {
        u64 other = __shfl_xor_sync(0xffffffffu, m, o);
        m = other > m ? other : m;
    }
    double mu = oz_mu(m);
    u64 s = 0, s1 = 0;
    if (mu != 0.0) {
        int e = 16 - oz_ceil_log2(mu);
        for (int j = 0; j < 4; ++j) {
            u64 g = oz_quantise_up(xv[j], e);
            s += g * g;
            s1 += g;
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, o);
        s1 += __shfl_xor_sync(0xffffffffu, s1, o);
    }
    *mbits = m;
    *sc = s;
    *s1c = s1;
}

// The record of chunk c of vector v: cm/cs/c1[v*nch + c], and the vector maximum
// (mubits[v] = max(mubits[v], chunk bits); mubits zeroed before).
MP_DEV void oz_chunk_store(const double xv[4], u64 v, u64 c, u64 nch, u64 *__restrict__ mubits,
                           u64 *__restrict__ cm, u64 *__restrict__ cs, u64 *__restrict__ c1) {
    u64 mb, sc, s1c;
    oz_chunk_stats(xv, &mb, &sc, &s1c);
    if (threadIdx.x % 32 == 0) {
        cm[v * nch + c] = mb;
        cs[v * nch + c] = sc;
        c1[v * nch + c] = s1c;
        if (mb != 0) atomicMax(&mubits[v], mb);
    }
}

// Vectors contiguous along t (st = 1): a warp per (vector, chunk), grid-stride.
// Launch: block (256), any grid.
extern "C" __global__ void ozaki_vecstats_tcontig(const double *__restrict__ x, u64 sv, u64 count, u64 len,
                                                  u64 nch, u64 *__restrict__ mubits, u64 *__restrict__ cm,
                                                  u64 *__restrict__ cs, u64 *__restrict__ c1) {
    unsigned lane = threadIdx.x % 32;
    u64 warp_id = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 nwarps = (u64)gridDim.x * blockDim.x / 32;
    // Two 16-byte loads per lane where the vectors are 16-byte aligned (even sv).
    bool pairs = sv % 2 == 0 && (u64)x % 16 == 0;
    for (u64 item = warp_id; item < count * nch; item += nwarps) {
        u64 v = item / nch, c = item % nch;
        u64 t = c * OZ_CHUNK + 4 * lane;
        const double *p = x + v * sv + t;
        double xv[4];
        if (pairs && t + 4 <= len) {
            double2 lo = *(const double2 *)p, hi = *(const double2 *)(p + 2);
            xv[0] = lo.x;
            xv[1] = lo.y;
            xv[2] = hi.x;
            xv[3] = hi.y;
        } else {
            for (int j = 0; j < 4; ++j) xv[j] = t + j < len ? p[j] : 0.0;
        }
        oz_chunk_store(xv, v, c, nch, mubits, cm, cs, c1);
    }
}

#define OZ_TV 32
#define OZ_TT 128

// Loads the tile of vectors [v0, v0+32) x positions [t0, t0+128) into shared memory, zeros
// outside [0,count) x [0,len); reads coalesced along the contiguous direction.
MP_DEV void oz_load_tile(double (*tile)[OZ_TT + 1], const double *__restrict__ x, u64 sv, u64 st,
                         u64 count, u64 len, u64 v0, u64 t0) {
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    if (st == 1) {
        for (unsigned vv = warp; vv < OZ_TV; vv += warps) {
            u64 v = v0 + vv;
            for (unsigned r = 0; r < OZ_TT / 32; ++r) {
                unsigned tt = lane + 32 * r;
                u64 t = t0 + tt;
                tile[vv][tt] = (v < count && t < len) ? x[v * sv + t] : 0.0;
            }
        }
    } else {
        for (unsigned tt = warp; tt < OZ_TT; tt += warps) {
            u64 v = v0 + lane;
            u64 t = t0 + tt;
            tile[lane][tt] = (v < count && t < len) ? x[v * sv + t * st] : 0.0;
        }
    }
}

// The grid-stride loop over the 32 x 128 tiles covering vectors [0, countv) x positions
// [0, lent) (countv >= count, lent >= len: the padding reads as zeros): each tile is loaded into
// shared memory by the whole block, then body(v0, t0) runs with the tile's corner.
template <class Body>
MP_DEV void oz_for_tiles(double (*tile)[OZ_TT + 1], const double *__restrict__ x, u64 sv, u64 st,
                         u64 count, u64 len, u64 countv, u64 lent, Body body) {
    u64 tiles_t = (lent + OZ_TT - 1) / OZ_TT;
    u64 tiles = tiles_t * ((countv + OZ_TV - 1) / OZ_TV);
    for (u64 tile_id = blockIdx.x; tile_id < tiles; tile_id += gridDim.x) {
        u64 v0 = (tile_id / tiles_t) * OZ_TV;
        u64 t0 = (tile_id % tiles_t) * OZ_TT;
        __syncthreads();
        oz_load_tile(tile, x, sv, st, count, len, v0, t0);
        __syncthreads();
        body(v0, t0);
    }
}

// Vectors strided along t: 32 x 128 tiles through shared memory (as ozaki_residues_make),
// grid-stride over tiles. Launch: block (256), any grid.
extern "C" __global__ void ozaki_vecstats_tiled(const double *__restrict__ x, u64 sv, u64 st, u64 count,
                                                u64 len, u64 nch, u64 *__restrict__ mubits,
                                                u64 *__restrict__ cm, u64 *__restrict__ cs,
                                                u64 *__restrict__ c1) {
    __shared__ double tile[OZ_TV][OZ_TT + 1];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    // A tile's 128 positions are one chunk (OZ_TT == OZ_CHUNK): c = t0 / 128 < nch.
    oz_for_tiles(tile, x, sv, st, count, len, count, len, [&](u64 v0, u64 t0) {
        for (unsigned vv = warp; vv < OZ_TV; vv += warps) {
            if (v0 + vv >= count) continue;  // the whole warp
            double xv[4];
            for (int j = 0; j < 4; ++j) xv[j] = tile[vv][4 * lane + j];
            oz_chunk_store(xv, v0 + vv, t0 / OZ_CHUNK, nch, mubits, cm, cs, c1);
        }
    });
}

// ozaki2::shift_right_up: ceil(s / 2^sh) for sh >= 0 (1 for any s >= 1 once sh >= 64).
MP_DEV u64 oz_shift_right_up(u64 s, int sh) {
    return s == 0 || sh <= 0 ? s : (sh >= 64 ? 1 : (s >> sh) + ((s & ((1ULL << sh) - 1)) != 0));
}

// sq[v] = sum_c ceil(S_c / 4^(ceil_log2 mu_v - ceil_log2 mu_c)) (ozaki2::norm_squares) and
// s1[v] = sum_c ceil(S1_c / 2^(ceil_log2 mu_v - ceil_log2 mu_c)) (ozaki2::norm_abs_sums), 0 for
// zero and bad vectors, a warp per vector. Launch: block (256), any grid.
extern "C" __global__ void ozaki_vecstats_combine(const u64 *__restrict__ mubits, const u64 *__restrict__ cm,
                                                  const u64 *__restrict__ cs, const u64 *__restrict__ c1,
                                                  u64 count, u64 nch, u64 *__restrict__ sq,
                                                  u64 *__restrict__ s1out) {
    unsigned lane = threadIdx.x % 32;
    u64 warp_id = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 nwarps = (u64)gridDim.x * blockDim.x / 32;
    for (u64 v = warp_id; v < count; v += nwarps) {
        double mu = oz_mu(mubits[v]);
        u64 s = 0, s1 = 0;
        if (mu != 0.0) {
            int e = oz_ceil_log2(mu);
            for (u64 c = lane; c < nch; c += 32) {
                u64 sc = cs[v * nch + c];
                if (sc == 0) continue;
                int d = e - oz_ceil_log2(oz_mu(cm[v * nch + c]));
                s += oz_shift_right_up(sc, 2 * d);
                s1 += oz_shift_right_up(c1[v * nch + c], d);
            }
        }
        for (int o = 16; o > 0; o >>= 1) {
            s += __shfl_xor_sync(0xffffffffu, s, o);
            s1 += __shfl_xor_sync(0xffffffffu, s1, o);
        }
        if (lane == 0) {
            sq[v] = s;
            s1out[v] = s1;
        }
    }
}

// ---- stage 2: scaling exponents -----------------------------------------------------------------

// exps[v] = 0 for a zero or bad vector, else
//   fast mode (sq non-null): ozaki2::fast_exponent(q, mu_v, sq[v]), q = the fast_x exponent;
//   accurate mode (xv non-null): xv[v] - ceil_log2(mu_v);
//   maxima only (both null): q - ceil_log2(mu_v).
extern "C" __global__ void ozaki_exps_make(const u64 *__restrict__ mubits, u64 count, int q,
                                           const int *__restrict__ xv, const u64 *__restrict__ sq,
                                           int *__restrict__ exps) {
    OZ_GRID_STRIDE(v, count) {
        double mu = oz_mu(mubits[v]);
        int e;
        if (mu == 0.0) {
            e = 0;
        } else if (sq) {
            // ozaki2::sqrt_up: IEEE conversion, square root and product, as on the CPU.
            double r = sqrt((double)sq[v]) * (1.0 + 0x1p-50);
            e = q + 16 - oz_ceil_log2(mu) - oz_ceil_log2(r);
        } else {
            e = (xv ? xv[v] : q) - oz_ceil_log2(mu);
        }
        exps[v] = e;
    }
}

// ozaki2::fits of the bound lhs(x, y, zv, xmax) = 2^(x+y-12) zv + k/2 (2^xmax + 2^y) + k/4.
MP_DEV bool oz_fits(int x, int y, double zv, int xmax, double kf, double fitf, double hps) {
    double lhs = oz_ldexp(zv, x + y - 12) + 0.5 * kf * (oz_ldexp(1.0, xmax) + oz_ldexp(1.0, y)) +
                 0.25 * kf;
    return lhs * fitf < hps;
}

// Accurate mode, rows: zrow[i] = max_j Z_ij (atomicMax; zrow zeroed before). Z is int32,
// column-major with leading dimension ldz. Launch: block (256), grid (ceil(m/256), chunks).
extern "C" __global__ void ozaki_zrow_max(const int *__restrict__ z, u64 ldz, u64 m, u64 n,
                                          int *__restrict__ zrow) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    u64 per = (n + gridDim.y - 1) / gridDim.y;
    u64 j0 = per * blockIdx.y;
    u64 j1 = j0 + per < n ? j0 + per : n;
    int best = 0;
    for (u64 j = j0; j < j1; ++j) {
        int v = z[i + j * ldz];
        best = v > best ? v : best;
    }
    if (best != 0) atomicMax(&zrow[i], best);
}

// Accurate mode, rows: x_i = q + eps_i with the largest eps_i <= 64 that fits for the row's
// largest Z_ij (ozaki2::scaling); xmax = max_i x_i (atomicMax; zeroed before, every x_i >= 1).
extern "C" __global__ void ozaki_acc_rows(const int *__restrict__ zrow, const u64 *__restrict__ mubits,
                                          u64 m, int q, double kf, double fitf, double hps,
                                          int *__restrict__ xa, int *__restrict__ xmax) {
    OZ_GRID_STRIDE(i, m) {
        int x = q;
        if (oz_mu(mubits[i]) != 0.0) {
            double zeta = (double)zrow[i];
            int e = 0;
            while (e < 64 && oz_fits(q + e + 1, q, zeta, q + e + 1, kf, fitf, hps)) ++e;
            x = q + e;
        }
        xa[i] = x;
        atomicMax(xmax, x);
    }
}

// Accurate mode, columns: wbits[j] = bits of max_i 2^(x_i - q) Z_ij (atomicMax; zeroed before).
// Launch: block (256), grid (n, chunks of rows).
extern "C" __global__ void ozaki_zcol_max(const int *__restrict__ z, u64 ldz, u64 m, u64 n,
                                          const int *__restrict__ xa, int q, u64 *__restrict__ wbits) {
    __shared__ u64 red[256];
    u64 j = blockIdx.x;
    u64 per = (m + gridDim.y - 1) / gridDim.y;
    u64 i0 = per * blockIdx.y;
    u64 i1 = i0 + per < m ? i0 + per : m;
    u64 best = 0;
    if (j < n) {
        for (u64 i = i0 + threadIdx.x; i < i1; i += blockDim.x) {
            double w = oz_ldexp((double)z[i + j * ldz], xa[i] - q);
            u64 bits = (u64)__double_as_longlong(w);
            best = bits > best ? bits : best;
        }
    }
    red[threadIdx.x] = best;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s && red[threadIdx.x + s] > red[threadIdx.x]) red[threadIdx.x] = red[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0 && j < n && red[0] != 0) atomicMax(&wbits[j], red[0]);
}

// Accurate mode, columns: y_j = q + delta_j, the largest delta_j <= 64 that fits against w_j
// and xmax.
extern "C" __global__ void ozaki_acc_cols(const u64 *__restrict__ wbits, const u64 *__restrict__ mubits,
                                          u64 n, int q, double kf, double fitf, double hps,
                                          const int *__restrict__ xmax, int *__restrict__ yb) {
    OZ_GRID_STRIDE(j, n) {
        int y = q;
        if (oz_mu(mubits[j]) != 0.0) {
            double w = __longlong_as_double((long long)wbits[j]);
            int xm = *xmax;
            int d = 0;
            while (d < 64 && oz_fits(q, q + d + 1, w, xm, kf, fitf, hps)) ++d;
            y = q + d;
        }
        yb[j] = y;
    }
}

// ---- stage 3/4: integers and residues (fused), magnitude bounds -------------------------------

// 1.5 * 2^52: adding it to an integer-valued |x| < 2^51 is exact and leaves x, in two's
// complement, in the low 32 bits of the sum; adding it to a real |w| < 2^51 (one rounding)
// rounds w to the nearest integer (ties to even).
#define OZ_MAGIC 6755399441055744.0
#define OZ_TWO64 18446744073709551616.0

// The residue of an integer-valued x (|x| < 2^42) modulo M as the low byte of a two's-complement
// int, given also xm = x + OZ_MAGIC (exact), in three FP64 operations and one integer one (the
// INT32 pipe's division by a constant took 4x the memory time of this stage; an earlier FP64
// form with six operations per residue ran at half the memory bandwidth):
//   tm = fl(x (1/M) + OZ_MAGIC), one FMA and one rounding: t = round(x / M) in its low bits.
//       For odd M, x/M is at least 1/(2M) from a half-integer and x (1/M) within
//       2^42 2^-53 / M of x/M, so t is the nearest integer; for M = 256 the product is exact
//       (ties to even);
//   r = x - t M on the low 32 bits (exact modulo 2^32, and r fits): r in [-(M-1)/2, (M-1)/2]
//       for odd M, [-128, 128] for 256, where 128 and -128 share the low byte 0x80 = the
//       CPU's -128.
// So the byte equals ozaki2::sym_residue's for every M (the residue is unique in that range).
template <unsigned M>
MP_DEV unsigned oz_reduce_byte(double x, double xm) {
    double tm = __fma_rn(x, 1.0 / (double)M, OZ_MAGIC);
    unsigned xl = (unsigned)__double2loint(xm), tl = (unsigned)__double2loint(tm);
    return (xl - tl * M) & 0xffu;
}

// y = hi 2^32 + lo (hi, lo integer-valued, |hi| <= 2^32, 0 <= lo < 2^32), given hi and
// lom = lo + OZ_MAGIC: with c = 2^32 mod M, xm = hi c + lom = x + OZ_MAGIC exactly (an integer
// below 2^53), x = hi c + lo = y (mod M), |x| < 2^41.
template <unsigned M>
MP_DEV unsigned oz_res_byte(double hi, double lom) {
    const double c = (double)((1ULL << 32) % M);
    double xm = __fma_rn(hi, c, lom);
    return oz_reduce_byte<M>(xm - OZ_MAGIC, xm);
}

// The residue of an integer-valued |v| >= 2^128: v = mant 2^sh, (mant mod M)(2^sh mod M).
MP_DEV unsigned oz_big_res(double a, unsigned M) {
    u64 bits = (u64)__double_as_longlong(a) & OZ_ABS_MASK;
    int sh = (int)((bits >> 52) & 0x7ff) - 1075;
    u64 mant = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    u64 p2 = 1;
    for (int s = 0; s < sh; ++s) p2 = p2 * 2 % M;
    return (unsigned)(mant % M * p2 % M);
}

// The four signed 32-bit limbs of an integer-valued |y| < 2^128, y = t3 2^96 + t2 2^64 +
// t1 2^32 + t0, each by rounding to the nearest multiple: t = rint(r 2^-s), r - t 2^s. Every
// remainder is exact: |r - t 2^s| <= 2^(s-1), and it is a multiple of y's last bit, which is
// at least 2^(s-53) whenever t != 0 (|y| >= 2^(s-1) then); so |t3|, |t2|, |t1| <= 2^32 and
// |t0| <= 2^31. Returns t0 + OZ_MAGIC (exact).
MP_DEV double oz_limbs4(double y, double &t3, double &t2, double &t1) {
    t3 = rint(y * 0x1p-96);
    double r = __fma_rn(-t3, 0x1p96, y);
    t2 = rint(r * 0x1p-64);
    r = __fma_rn(-t2, 0x1p64, r);
    t1 = rint(r * 0x1p-32);
    return __fma_rn(-t1, 0x1p32, r) + OZ_MAGIC;
}

// The residue byte of y from oz_limbs4's limbs: x = t3 c3 + t2 c2 + t1 c1 + t0 with
// c_s = 2^(32s) mod M, so x = y (mod M) and |x| <= 2^32 3 255 + 2^31 < 2^42; every partial sum
// of xm = x + OZ_MAGIC is an integer in [2^52, 2^53), so exact, and oz_reduce_byte applies.
template <unsigned M>
MP_DEV unsigned oz_res_byte4(double t3, double t2, double t1, double t0m) {
    const unsigned long long c1 = (1ULL << 32) % M, c2 = c1 * c1 % M, c3 = c2 * c1 % M;
    double xm = __fma_rn(t3, (double)c3, __fma_rn(t2, (double)c2, __fma_rn(t1, (double)c1, t0m)));
    return oz_reduce_byte<M>(xm - OZ_MAGIC, xm);
}

// The residue byte of any integer-valued y (the rare path: a vector's largest entries with
// 18 or more moduli in DGEMM's scheme): below 2^128 the four limbs, beyond the bit loop.
template <unsigned M>
MP_DEV unsigned oz_res_byte_any(double y) {
    if (mp_abs(y) >= 0x1p128) {
        unsigned r = oz_big_res(y, M);
        if (y < 0.0 && r != 0) r = M - r;
        int s = 2 * (int)r >= (int)M ? (int)r - (int)M : (int)r;
        return (unsigned)s & 0xffu;
    }
    double t3, t2, t1;
    double t0m = oz_limbs4(y, t3, t2, t1);
    return oz_res_byte4<M>(t3, t2, t1, t0m);
}

// ozaki2::to_integers: rint(2^e x), 0 for a zero or bad vector (mu = 0).
MP_DEV double oz_to_int(double x, double mu, int e) { return mu == 0.0 ? 0.0 : rint(oz_ldexp(x, e)); }

// ozaki2::sym_residue_sum of four packed pairs of symmetric residues modulo M.
template <unsigned M>
MP_DEV unsigned oz_add_packed(unsigned x, unsigned y) {
    unsigned out = 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        int r = ((int)(signed char)(x >> (8 * j)) + (int)(signed char)(y >> (8 * j))) % (int)M;
        if (r < 0) r += (int)M;
        if (2 * r >= (int)M) r -= (int)M;
        out |= ((unsigned)r & 0xffu) << (8 * j);
    }
    return out;
}

// The rare path of oz_four_residues and oz_four_residues_wide: every residue by
// oz_res_byte_any (with `add`, added to the one stored, as in oz_four_residues_wide).
MP_DEV void oz_residues_rare(const double xv[4], double mu, int e, int nmod, bool add,
                             signed char *__restrict__ out, u64 base, u64 slab) {
#define OZ_RES_RARE(l, M)                                                                          \
    if (l < nmod) {                                                                                 \
        unsigned packed = 0;                                                                        \
        for (int j = 0; j < 4; ++j) packed |= oz_res_byte_any<M>(oz_to_int(xv[j], mu, e)) << (8 * j); \
        unsigned *dst = (unsigned *)(out + (u64)(l) * slab + base);                                 \
        *dst = add ? oz_add_packed<M>(*dst, packed) : packed;                                       \
    }
    OZ_MODULI_LIST(OZ_RES_RARE)
#undef OZ_RES_RARE
}

// ozaki2::to_integers then ozaki2::residues of 4 consecutive values of one vector: the nmod
// packed 4-byte words at out + l*slab + base. The common case |y| < 2^64 keeps only hi and
// lo + MAGIC per value (few registers, so 6 blocks fit per SM: the stage went from 2.0 to
// 1.3 ms at n = 8192, N = 15 on the H100); a warp with any larger y takes oz_res_byte_any.
MP_DEV void oz_four_residues(const double xv[4], double mu, int e, int nmod,
                             signed char *__restrict__ out, u64 base, u64 slab) {
    double hi[4], lom[4];
    bool rare = false;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        // y = hi 2^32 + lo: floor of a power-of-two scaling, then an FMA whose result lies in
        // [0, 2^32), both exact for |y| < 2^64.
        double y = oz_to_int(xv[j], mu, e);
        rare = rare || mp_abs(y) >= OZ_TWO64;
        hi[j] = floor(y * 2.3283064365386963e-10);
        lom[j] = __fma_rn(-hi[j], 4294967296.0, y) + OZ_MAGIC;
    }
    if (__any_sync(__activemask(), rare)) {
        oz_residues_rare(xv, mu, e, nmod, false, out, base, slab);
        return;
    }
#define OZ_RES_STEP(l, M)                                                                          \
    if (l < nmod) {                                                                                 \
        unsigned packed = 0;                                                                        \
        _Pragma("unroll") for (int j = 0; j < 4; ++j) packed |= oz_res_byte<M>(hi[j], lom[j]) << (8 * j); \
        *(unsigned *)(out + (u64)(l) * slab + base) = packed;                                       \
    }
    OZ_MODULI_LIST(OZ_RES_STEP)
#undef OZ_RES_STEP
}

// oz_four_residues for the double-double scheme, whose integers reach about 2^117: the four
// limbs of each value (oz_limbs4) kept in registers across the moduli; a warp with any
// |y| >= 2^128 (accurate mode at small k) takes oz_res_byte_any. With `add` (the second words
// of double-double operands) each residue is added to the one already stored
// (ozaki2::sym_residue_sum).
MP_DEV void oz_four_residues_wide(const double xv[4], double mu, int e, int nmod, bool add,
                                  signed char *__restrict__ out, u64 base, u64 slab) {
    double t3[4], t2[4], t1[4], t0m[4];
    bool rare = false;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        double y = oz_to_int(xv[j], mu, e);
        rare = rare || mp_abs(y) >= 0x1p128;
        t0m[j] = oz_limbs4(rare ? 0.0 : y, t3[j], t2[j], t1[j]);
    }
    if (__any_sync(__activemask(), rare)) {
        oz_residues_rare(xv, mu, e, nmod, add, out, base, slab);
        return;
    }
#define OZ_RES_STEP(l, M)                                                                          \
    if (l < nmod) {                                                                                 \
        unsigned packed = 0;                                                                        \
        _Pragma("unroll") for (int j = 0; j < 4; ++j) packed |= oz_res_byte4<M>(t3[j], t2[j], t1[j], t0m[j]) << (8 * j); \
        unsigned *dst = (unsigned *)(out + (u64)(l) * slab + base);                                 \
        *dst = add ? oz_add_packed<M>(*dst, packed) : packed;                                       \
    }
    OZ_MODULI_LIST(OZ_RES_STEP)
#undef OZ_RES_STEP
}

// ozaki2::to_integers then ozaki2::residues for every modulus (mode 0), or
// ozaki2::magnitude_bounds (mode 1, one slab), or ozaki2::magnitude_floors (mode 2, one slab:
// the double-double guard's lower bound), over the padded range [0,countp) x [0,lenp):
// out[l*slab + v*lenp + t]. Bad and zero vectors and the padding give 0.
// Launch: block (256), any grid (grid-stride over 32 x 128 tiles); lenp % 16 == 0, slab % 16 == 0.
// (__launch_bounds__: 40 registers under NVRTC 13.0, no spills, 6 blocks per SM.)
// ozaki_residues_make_wide: the same for the double-double scheme through oz_four_residues_wide,
// mode 0, or mode 3: the second words of double-double operands, their residues added to those
// already in `out` (ozaki2.rs product_scaled).
template <bool WIDE>
MP_DEV void oz_residues(const double *__restrict__ x, u64 sv, u64 st, u64 count, u64 len, u64 countp,
                        u64 lenp, const u64 *__restrict__ mubits, const int *__restrict__ exps, int nmod,
                        int mode, signed char *__restrict__ out, u64 slab) {
    __shared__ double tile[OZ_TV][OZ_TT + 1];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    oz_for_tiles(tile, x, sv, st, count, len, countp, lenp, [&](u64 v0, u64 t0) {
        for (unsigned vv = warp; vv < OZ_TV; vv += warps) {
            u64 v = v0 + vv;
            u64 t = t0 + 4 * lane;
            if (v >= countp || t >= lenp) continue;
            double mu = oz_mu(v < count ? mubits[v] : 0);
            u64 base = v * lenp + t;
            double xv[4];
            for (int j = 0; j < 4; ++j) xv[j] = tile[vv][4 * lane + j];
            if (mode == 1 || mode == 2) {
                int e = 6 - oz_ceil_log2(mu);
                unsigned packed = 0;
                for (int j = 0; j < 4; ++j) {
                    double s = oz_ldexp(mp_abs(xv[j]), e);
                    double y = mu == 0.0 ? 0.0 : (mode == 1 ? ceil(s) : floor(s));
                    packed |= ((unsigned)(int)y & 0xffu) << (8 * j);
                }
                *(unsigned *)(out + base) = packed;
                continue;
            }
            if (WIDE) {
                oz_four_residues_wide(xv, mu, v < count ? exps[v] : 0, nmod, mode == 3, out, base, slab);
            } else {
                oz_four_residues(xv, mu, v < count ? exps[v] : 0, nmod, out, base, slab);
            }
        }
    });
}
extern "C" __global__ void __launch_bounds__(256, 6)
ozaki_residues_make(const double *__restrict__ x, u64 sv, u64 st, u64 count, u64 len, u64 countp,
                    u64 lenp, const u64 *__restrict__ mubits, const int *__restrict__ exps, int nmod,
                    int mode, signed char *__restrict__ out, u64 slab) {
    oz_residues<false>(x, sv, st, count, len, countp, lenp, mubits, exps, nmod, mode, out, slab);
}
extern "C" __global__ void __launch_bounds__(256, 4)
ozaki_residues_make_wide(const double *__restrict__ x, u64 sv, u64 st, u64 count, u64 len, u64 countp,
                         u64 lenp, const u64 *__restrict__ mubits, const int *__restrict__ exps, int nmod,
                         int mode, signed char *__restrict__ out, u64 slab) {
    oz_residues<true>(x, sv, st, count, len, countp, lenp, mubits, exps, nmod, mode, out, slab);
}

// ---- stage 5/6/7: CRT reconstruction fused with the inverse scaling and the BLAS update -------

// The CRT constants (ozaki2::Crt), passed by value.
struct OzCrt {
    double w[OZ_MAX_WORDS][OZ_MAX_MODULI];
    double p[OZ_MAX_WORDS];
    double p_inv;
    int words;
    int nmod;
};

// ozaki2::crt_exact_words of one entry with W CRT words (known at compile time, so no FMA is
// spent on absent words) from its nmod <= NMAX products p[l]: r_l = p_l mod m_l in [0, m_l),
// the CRT sum y = sum_l r_l w_l in W exact words, t = round(y / P), y_w - t P_w in place.
template <int NMAX, int W>
MP_DEV void oz_crt_words(const int *p, const OzCrt &crt, double (&y)[W]) {
#pragma unroll
    for (int w = 0; w < W; ++w) y[w] = 0.0;
    const int nmod = crt.nmod;
// r_l from p_l + OFF_M with OFF_M = M ceil(2^31 / M) = 0 (mod M): an unsigned remainder, no
// sign fix-up, as |p_l| <= K_CHUNK 128^2 = 2^31 - 2^18 puts p_l + OFF_M in (0, 2^32).
#define OZ_CRT_STEP(l, M)                                                                          \
    if (l < NMAX && l < nmod) {                                                                     \
        const unsigned off = ((1u << 31) + (M) - 1) / (M) * (M);                                    \
        double rd = (double)(((unsigned)p[l] + off) % (unsigned)(M));                               \
        _Pragma("unroll") for (int w = 0; w < W; ++w) y[w] = __fma_rn(rd, crt.w[w][l], y[w]);       \
    }
    OZ_MODULI_LIST(OZ_CRT_STEP)
#undef OZ_CRT_STEP
    double t = round(y[0] * crt.p_inv + y[1] * crt.p_inv);
#pragma unroll
    for (int w = 0; w < W; ++w) y[w] = y[w] - t * crt.p[w];
}

// ozaki2::reconstruct of one entry: the exact words summed as a double-double.
template <int NMAX, int W>
MP_DEV Dd oz_crt_entry(const int *p, const OzCrt &crt) {
    double d[W];
    oz_crt_words<NMAX, W>(p, crt, d);
    double h, lo;
    two_sum(d[0], d[1], h, lo);
    Dd s = dd_make(h, lo);
#pragma unroll
    for (int w = 2; w < W; ++w) s = oz_dd_add_f64(s, d[w]);
    return s;
}

// The nmod <= NMAX products of entry pidx (all loads issued before any arithmetic: with one
// outstanding load per thread the reconstruction read at 1.9 TB/s, with all at 2.6 TB/s).
template <int NMAX>
MP_DEV void oz_load_products(int *p, const int *__restrict__ prod, u64 slab, u64 pidx, int nmod) {
#pragma unroll
    for (int l = 0; l < NMAX; ++l) {
        if (l < nmod) p[l] = prod[(u64)l * slab + pidx];
    }
}

// ---- the componentwise guard (ozaki2::guard_bound, certifies_against, guard_fails) --------

#define OZ_GUARD_SAMPLE 64  // ozaki2::GUARD_SAMPLE

// ozaki2::guard_factors of each vector, as pairs: out[2v] = p >= 2^-exps[v], out[2v + 1] =
// n1 >= its 1-norm (both 0 for a zero or bad vector). Launch: block (256), any grid.
extern "C" __global__ void ozaki_guard_factors(const int *__restrict__ exps, const u64 *__restrict__ mubits,
                                               const u64 *__restrict__ s1, u64 count,
                                               double *__restrict__ out) {
    OZ_GRID_STRIDE(v, count) {
        double mu = oz_mu(mubits[v]);
        double p = 0.0, n1 = 0.0;
        if (mu != 0.0) {
            p = oz_ldexp(1.0, -exps[v]) + 0x1p-1074;
            n1 = oz_ldexp((double)s1[v], oz_ceil_log2(mu) - 16) + 0x1p-1074;
        }
        out[2 * v] = p;
        out[2 * v + 1] = n1;
    }
}

// ozaki2::guard_bound: an upper bound of the scheme's error of the unscaled entry s, from the
// row's factors (pa, na) and the column's (pb, nb).
MP_DEV double oz_guard_bound(u64 k, Dd s, double pa, double na, double pb, double nb) {
    if (pa == 0.0 || pb == 0.0) return 0.0;
    double t1 = pa * nb * 0.5;
    double t2 = pb * na * 0.5;
    double t3 = pa * pb * ((double)k * 0.25);
    double e = (t1 + t2 + t3) * (1.0 + 0x1p-50) + 0x1p-1072;
    return e + (mp_abs(s.hi) + e) * 0x1p-100;
}

// ozaki2::certifies_against: e <= g lower + tiny, with margins for its own roundings.
MP_DEV bool oz_certifies_against(double g, double tiny, double e, double lower) {
    return e * (1.0 + 0x1p-50) <= g * lower * (1.0 - 0x1p-50) + tiny;
}

// DGEMM's componentwise target for k terms: g = k u, tiny = k 2^-1074, each one exact
// multiplication (k < 2^52: k 2^-1074 is a subnormal with k in its significand), the bits of
// the CPU's ldexp without its loops.
struct OzTarget {
    double g, tiny;
};
MP_DEV OzTarget oz_dgemm_target(u64 k) {
    double kf = (double)k;
    return OzTarget{kf * 0x1p-53, kf * 0x1p-1074};
}

// oz_certifies_against with DGEMM's target.
MP_DEV bool oz_guard_certifies(u64 k, double e, double lower) {
    OzTarget t = oz_dgemm_target(k);
    return oz_certifies_against(t.g, t.tiny, e, lower);
}

// ozaki2::guard_sample: sum_{l < terms} |a_il| |b_lj| in index order.
MP_DEV double oz_guard_sample(const double *__restrict__ a, u64 asv, u64 ast, const double *__restrict__ b,
                              u64 bsv, u64 bst, u64 i, u64 j, u64 terms) {
    double s = 0.0;
    for (u64 l = 0; l < terms; ++l) s = s + mp_abs(a[i * asv + l * ast]) * mp_abs(b[j * bsv + l * bst]);
    return s;
}

// ozaki2::guard_rejects (both schemes), split in two: this common path decides whether the
// entry passes at once (a zero bound, or the first test); the rest (rare) is oz_guard_slow
// (in scheme II's reconstruction a second kernel, ozaki_guard_settle, takes it).
MP_DEV bool oz_guard_passes_fast(u64 k, double s_abs, double e) {
    OzTarget t = oz_dgemm_target(k);
    if (!(mp_is_finite(e) && mp_is_finite(s_abs))) return false;
    if (e == 0.0) return true;
    return oz_certifies_against(t.g, t.tiny, e + t.g * e, s_abs);
}

// ozaki/mod.rs guard_entry: the plain value (oz_patch), or, if that is not finite, the dot
// product of the row scaled by 2^-sa and the column by 2^-sb, scaled back.
MP_DEV double oz_guard_entry(const double *__restrict__ a, u64 asv, u64 ast, const double *__restrict__ b,
                             u64 bsv, u64 bst, u64 i, u64 j, u64 k, double alpha, double beta, double c,
                             int sa, int sb) {
    double v = oz_patch(a, asv, ast, b, bsv, bst, i, j, k, alpha, beta, c);
    if (mp_is_finite(v)) return v;
    double s = 0.0;
    for (u64 l = 0; l < k; ++l) s = s + oz_ldexp(a[i * asv + l * ast], -sa) * oz_ldexp(b[j * bsv + l * bst], -sb);
    return oz_update_f64(oz_ldexp(s, sa + sb), alpha, beta, c);
}

// The rest of ozaki2::guard_rejects for an entry oz_guard_passes_fast did not pass: for a finite
// entry the second test (the first GUARD_SAMPLE products as a lower bound of (|A||B|)_ij); if
// that fails too (or the entry is not finite), c_ij <- oz_guard_entry. True if it wrote c_ij.
MP_DEV bool oz_guard_slow(u64 k, double s_abs, double e, const double *__restrict__ a, u64 asv, u64 ast,
                          const double *__restrict__ b, u64 bsv, u64 bst, u64 i, u64 j, double alpha,
                          double beta, double *cij, double mu_i, double mu_j) {
    if (mp_is_finite(e) && mp_is_finite(s_abs)) {
        u64 terms = k < OZ_GUARD_SAMPLE ? k : OZ_GUARD_SAMPLE;
        double l = oz_guard_sample(a, asv, ast, b, bsv, bst, i, j, terms) * (1.0 - 0x1p-45) -
                   oz_ldexp((double)terms, -1074);
        if (oz_guard_certifies(k, e, l)) return false;
    }
    double c0 = beta == 0.0 ? 0.0 : *cij;
    *cij = oz_guard_entry(a, asv, ast, b, bsv, bst, i, j, k, alpha, beta, c0, oz_ceil_log2(mu_i),
                          oz_ceil_log2(mu_j));
    return true;
}

// Entry (i, jj) of ozaki2::reconstruct, unscaled: the nmod products at pidx = i + jj ldp
// (nmod slabs of int32, slab elements apart), the CRT sum in crt.words words, Dd::ldexp by
// -shift (shift = ea_i + eb_j).
MP_DEV Dd oz_f64_entry(const int *__restrict__ prod, u64 slab, u64 pidx, const OzCrt &crt, int shift) {
    int p[OZ_F64_MODULI];
    oz_load_products<OZ_F64_MODULI>(p, prod, slab, pidx, crt.nmod);
    Dd s = crt.words == 2 ? oz_crt_entry<OZ_F64_MODULI, 2>(p, crt)
         : (crt.words == 3 ? oz_crt_entry<OZ_F64_MODULI, 3>(p, crt)
                           : oz_crt_entry<OZ_F64_MODULI, 4>(p, crt));
    return oz_dd_ldexp(s, -shift);
}

// For the entries (i, j0 + jj), i < m, jj < nb: the products prod_l (nmod slabs of int32,
// m x nb column-major with leading dimension ldp, slab elements apart), ozaki2::reconstruct,
// Dd::ldexp by -(ea_i + eb_j), and
//   mode 0: c_ij = alpha s + beta c_ij (ozaki2_gemm), except for the entries of bad rows or
//           columns and, with `guard`, those oz_guard_passes_fast does not pass: those are
//           left unwritten and flagged in `pending` (bit i % 32 of word i / 32 + jj ldw; every
//           word of the block is written, zero or not) for ozaki_guard_settle;
//   mode 1: (hi, lo)[i + j m] = s (ozaki2::product).
// Launch: block (256), 2-D grid: blockIdx.x over rows (each warp takes 32 consecutive rows from
// a multiple of 32, so that its ballot is one word of `pending`), blockIdx.y over columns;
// each thread keeps its row's values for the columns it takes.
// (Why the rare entries go to a second kernel: done here, the guard's sample of 64 strided
// products held a warp for about 6% of the warps at n = 8192 (0.2% of the entries fail the
// first test there) and its code took the registers to 72; the guarded reconstruction took
// 1.35-1.43 ms per 8192 x 4096 block against 0.99-1.09 without the guard. The launch bounds
// keep 4 blocks per SM, 64 registers.)
extern "C" __global__ void __launch_bounds__(256, 4)
ozaki_crt_update(const int *__restrict__ prod, u64 ldp, u64 slab, u64 m, u64 nb, u64 j0, OzCrt crt,
                 const int *__restrict__ ea, const int *__restrict__ eb, const u64 *__restrict__ mua,
                 const u64 *__restrict__ mub, double alpha, double beta, double *__restrict__ c,
                 u64 ldc, int mode, double *__restrict__ out_hi, double *__restrict__ out_lo,
                 const double *__restrict__ a, u64 asv, u64 ast, const double *__restrict__ b,
                 u64 bsv, u64 bst, u64 k, int guard, const double *__restrict__ gfa,
                 const double *__restrict__ gfb, unsigned *__restrict__ pending, u64 ldw,
                 unsigned long long *__restrict__ counts) {
    const unsigned lane = threadIdx.x % 32;
    for (u64 ib = (u64)blockIdx.x * blockDim.x + threadIdx.x - lane; ib < m; ib += (u64)blockDim.x * gridDim.x) {
        const u64 i = ib + lane;
        const bool live = i < m;
        const int ea_i = live ? ea[i] : 0;
        const bool bad_i = live && oz_bad(mua[i]);
        const double pa_i = live && guard ? gfa[2 * i] : 0.0, na_i = live && guard ? gfa[2 * i + 1] : 0.0;
        for (u64 jj = blockIdx.y; jj < nb; jj += gridDim.y) {
            u64 j = j0 + jj;
            bool defer = false;
            if (live) {
                Dd s = oz_f64_entry(prod, slab, i + jj * ldp, crt, ea_i + eb[j]);
                if (mode != 0) {
                    out_hi[i + j * m] = s.hi;
                    out_lo[i + j * m] = s.lo;
                } else {
                    defer = bad_i || oz_bad(mub[j]);
                    if (guard && !defer) {
                        double e = oz_guard_bound(k, s, pa_i, na_i, gfb[2 * j], gfb[2 * j + 1]);
                        defer = !oz_guard_passes_fast(k, mp_abs(s.hi), e);
                    }
                    if (!defer) {
                        double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
                        c[i + j * ldc] = oz_update_dd(s, alpha, beta, cij);
                    }
                }
            }
            if (mode == 0) {
                unsigned word = __ballot_sync(0xffffffffu, defer);
                if (lane == 0) pending[ib / 32 + jj * ldw] = word;
            }
        }
    }
}

// The entries ozaki_crt_update flagged in `pending` (its parameter list, so that one argument
// list serves both launches; mode, out_hi, out_lo and guard unused: one thread per word, its
// bits in ascending order): an entry of a bad row or column is recomputed plainly (oz_patch,
// counted in counts[1]); any other one was flagged by the guard: s and its bound again from
// the products (still in place: the next column block's GEMMs come after this kernel in the
// stream), then the rest of ozaki2::guard_rejects (oz_guard_slow: the sampled lower bound, or
// the plain dot product, counted in counts[0]), or, if the entry passes it,
// c_ij = alpha s + beta c_ij as there.
// Launch: block (256), any grid.
extern "C" __global__ void ozaki_guard_settle(const int *__restrict__ prod, u64 ldp, u64 slab, u64 m, u64 nb,
                                              u64 j0, OzCrt crt, const int *__restrict__ ea,
                                              const int *__restrict__ eb, const u64 *__restrict__ mua,
                                              const u64 *__restrict__ mub, double alpha, double beta,
                                              double *__restrict__ c, u64 ldc, int mode, double *out_hi,
                                              double *out_lo, const double *__restrict__ a, u64 asv, u64 ast,
                                              const double *__restrict__ b, u64 bsv, u64 bst, u64 k,
                                              int guard, const double *__restrict__ gfa,
                                              const double *__restrict__ gfb,
                                              const unsigned *__restrict__ pending, u64 ldw,
                                              unsigned long long *__restrict__ counts) {
    OZ_GRID_STRIDE(w, ldw * nb) {
        unsigned bits = pending[w];
        u64 jj = w / ldw, j = j0 + jj;
        while (bits != 0u) {
            u64 i = (w % ldw) * 32 + (u64)(__ffs(bits) - 1);
            bits &= bits - 1u;
            if (oz_bad(mua[i]) || oz_bad(mub[j])) {
                double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
                c[i + j * ldc] = oz_patch(a, asv, ast, b, bsv, bst, i, j, k, alpha, beta, cij);
                oz_count(counts, 1, m, i, j);
                continue;
            }
            Dd s = oz_f64_entry(prod, slab, i + jj * ldp, crt, ea[i] + eb[j]);
            double e = oz_guard_bound(k, s, gfa[2 * i], gfa[2 * i + 1], gfb[2 * j], gfb[2 * j + 1]);
            if (oz_guard_slow(k, mp_abs(s.hi), e, a, asv, ast, b, bsv, bst, i, j, alpha, beta, c + i + j * ldc,
                              oz_mu(mua[i]), oz_mu(mub[j]))) {
                oz_count(counts, 0, m, i, j);
            } else {
                double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
                c[i + j * ldc] = oz_update_dd(s, alpha, beta, cij);
            }
        }
    }
}

// ---- the double-double scheme's reconstruction (ozaki2_dd.rs) ---------------------------------

// The compensated double-double dot product of row i of A and column j of B, each term scaled
// by 2^-sa and 2^-sb (level3.rs's CompensatedDot over Dd::from(a).ldexp(-sa), ...).
// Second words a_lo, b_lo (same strides) for double-double operands, null for f64 ones.
MP_DEV Dd oz_compensated_dot(const double *__restrict__ a, const double *__restrict__ a_lo, u64 asv, u64 ast,
                             const double *__restrict__ b, const double *__restrict__ b_lo, u64 bsv, u64 bst,
                             u64 i, u64 j, u64 k, int sa, int sb) {
    DdCompensated::Acc acc = DdCompensated::start();
    for (u64 l = 0; l < k; ++l) {
        u64 ia = i * asv + l * ast, jb = j * bsv + l * bst;
        Dd x = oz_dd_ldexp(dd_make(a[ia], a_lo != nullptr ? a_lo[ia] : 0.0), -sa);
        Dd y = oz_dd_ldexp(dd_make(b[jb], b_lo != nullptr ? b_lo[jb] : 0.0), -sb);
        DdCompensated::step(acc, x, y);
        if ((l + 1) % COMPENSATED_BLOCK == 0 || l + 1 == k) DdCompensated::flush(acc);
    }
    return DdCompensated::value(acc);
}

// ozaki2_dd.rs fallback_entry: the compensated dot product; if it is not finite although every
// term is (finite_terms: neither vector bad), the same on the row scaled by 2^-ceil_log2(mu_i)
// and the column by 2^-ceil_log2(mu_j), scaled back.
MP_DEV Dd oz_dd_fallback(const double *__restrict__ a, const double *__restrict__ a_lo, u64 asv, u64 ast,
                         const double *__restrict__ b, const double *__restrict__ b_lo, u64 bsv, u64 bst, u64 i,
                         u64 j, u64 k, bool finite_terms, double mu_i, double mu_j) {
    Dd s = oz_compensated_dot(a, a_lo, asv, ast, b, b_lo, bsv, bst, i, j, k, 0, 0);
    if (mp_is_finite(s.hi) || !finite_terms) return s;
    int sa = oz_ceil_log2(fmax(mu_i, 0x1p-1022)), sb = oz_ceil_log2(fmax(mu_j, 0x1p-1022));
    return oz_dd_ldexp(oz_compensated_dot(a, a_lo, asv, ast, b, b_lo, bsv, bst, i, j, k, sa, sb), sa + sb);
}

// ozaki2_dd.rs widen_for_dd_inputs: the guard's factors (p, n1) for double-double operands.
MP_DEV void oz_widen_for_dd_inputs(double &p, double &n1) {
    p = p * 2.0;
    n1 = n1 * (1.0 + 0x1p-50);
}

// Marks the vectors whose second words hold a NaN or an infinity (lo_bits from ozaki_vecmax_*)
// as bad in mubits: a double-double vector is bad if either word is not finite.
extern "C" __global__ void ozaki_bad_merge(u64 *__restrict__ mubits, const u64 *__restrict__ lo_bits, u64 count) {
    OZ_GRID_STRIDE(v, count) {
        if (oz_bad(lo_bits[v])) mubits[v] = OZ_INF_BITS;
    }
}

// ozaki2::guard_rejects_against with the target g (|A||B|)_ij + tiny (ozaki2_dd.rs
// guard_rejects_dd: g = compensated_dot_gamma(k), tiny = 2k 2^-1070, passed by the launcher).
MP_DEV bool oz_guard_rejects_against(u64 k, double g, double tiny, double e, double s_abs,
                                     const double *__restrict__ a, u64 asv, u64 ast,
                                     const double *__restrict__ b, u64 bsv, u64 bst, u64 i, u64 j) {
    if (!(mp_is_finite(e) && mp_is_finite(s_abs))) return true;
    if (e == 0.0) return false;
    if (oz_certifies_against(g, tiny, e + g * e, s_abs)) return false;
    u64 terms = k < OZ_GUARD_SAMPLE ? k : OZ_GUARD_SAMPLE;
    double l = oz_guard_sample(a, asv, ast, b, bsv, bst, i, j, terms) * (1.0 - 0x1p-45) -
               oz_ldexp((double)terms, -1074);
    return !oz_certifies_against(g, tiny, e, l);
}

// ozaki2::reconstruct with up to OZ_MAX_MODULI moduli, W words chosen at run time.
MP_DEV Dd oz_crt_entry_dd(const int *p, const OzCrt &crt) {
    switch (crt.words) {
    case 2: return oz_crt_entry<OZ_MAX_MODULI, 2>(p, crt);
    case 3: return oz_crt_entry<OZ_MAX_MODULI, 3>(p, crt);
    case 4: return oz_crt_entry<OZ_MAX_MODULI, 4>(p, crt);
    case 5: return oz_crt_entry<OZ_MAX_MODULI, 5>(p, crt);
    default: return oz_crt_entry<OZ_MAX_MODULI, 6>(p, crt);
    }
}

// ozaki2::magnitude_exponent: 6 - ceil(log2 mu), 0 for a zero (or bad) vector.
MP_DEV int oz_magnitude_exponent(double mu) { return mu > 0.0 ? 6 - oz_ceil_log2(mu) : 0; }

// ozaki2_gemm_dd's stages 6-7 for the entries (i, j0 + jj), i < m, jj < nb: the products
// (as ozaki_crt_update), ozaki2::reconstruct, Dd::ldexp by -(ea_i + eb_j); entries of bad
// rows or columns (counts[1]) and, with `guard`, those ozaki2_dd::guard_rejects_dd rejects
// (counts[0]) become oz_dd_fallback's: first the INT8 lower bound of (|A||B|)_ij
// (ozaki2_dd.rs GuardLower: zlow = the floors' product of this column block, leading dimension
// ldz; null beyond GUARD_LOWER_MAX_K), then oz_guard_rejects_against; then (c_hi, c_lo)_ij = alpha s + beta c_ij in
// double-double (ozaki2_dd.rs update: s.mul_f64(alpha), then add_accurate of c.mul_f64(beta);
// c not read for beta = 0). Launch: block (256), 2-D grid (OZ_GRID_2D).
extern "C" __global__ void __launch_bounds__(256, 2)
ozaki_crt_update_dd(const int *__restrict__ prod, u64 ldp, u64 slab, u64 m, u64 nb, u64 j0, OzCrt crt,
                    const int *__restrict__ ea, const int *__restrict__ eb, const u64 *__restrict__ mua,
                    const u64 *__restrict__ mub, double alpha, double beta, double *__restrict__ c_hi,
                    double *__restrict__ c_lo, u64 ldc, const double *__restrict__ a, u64 asv, u64 ast,
                    const double *__restrict__ b, u64 bsv, u64 bst, const double *__restrict__ a_lo,
                    const double *__restrict__ b_lo, u64 k, int guard, double g, double tiny,
                    const double *__restrict__ gfa, const double *__restrict__ gfb, const int *__restrict__ zlow,
                    u64 ldz, unsigned long long *__restrict__ counts) {
    const int nmod = crt.nmod;
    const bool dd_in = a_lo != nullptr;
    for (u64 jj = blockIdx.y; jj < nb; jj += gridDim.y) {
        u64 j = j0 + jj;
        bool bad_j = oz_bad(mub[j]);
        int eb_j = eb[j];
        double mu_j = oz_mu(mub[j]);
        double pb_j = guard ? gfb[2 * j] : 0.0, nb_j = guard ? gfb[2 * j + 1] : 0.0;
        if (dd_in) oz_widen_for_dd_inputs(pb_j, nb_j);
        int sb_j = oz_magnitude_exponent(mu_j);
        for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (u64)blockDim.x * gridDim.x) {
            int p[OZ_MAX_MODULI];
            oz_load_products<OZ_MAX_MODULI>(p, prod, slab, i + jj * ldp, nmod);
            double mu_i = oz_mu(mua[i]);
            Dd s;
            if (bad_j || oz_bad(mua[i])) {
                s = oz_dd_fallback(a, a_lo, asv, ast, b, b_lo, bsv, bst, i, j, k, false, mu_i, mu_j);
                oz_count(counts, 1, m, i, j);
            } else {
                s = oz_dd_ldexp(oz_crt_entry_dd(p, crt), -(ea[i] + eb_j));
                if (guard) {
                    double pa = gfa[2 * i], na = gfa[2 * i + 1];
                    if (dd_in) oz_widen_for_dd_inputs(pa, na);
                    double e = oz_guard_bound(k, s, pa, na, pb_j, nb_j);
                    double s_abs = mp_abs(s.hi);
                    double low = -__longlong_as_double((long long)OZ_INF_BITS);
                    if (zlow != nullptr) {
                        int sa = oz_magnitude_exponent(mu_i);
                        low = oz_ldexp((double)zlow[i + jj * ldz], -(sa + sb_j)) - 0x1p-1074;
                        if (dd_in) low = low * (1.0 - 0x1p-50);
                    }
                    bool lower_passes = mp_is_finite(e) && mp_is_finite(s_abs) && oz_certifies_against(g, tiny, e, low);
                    if (!lower_passes &&
                        oz_guard_rejects_against(k, g, tiny, e, s_abs, a, asv, ast, b, bsv, bst, i, j)) {
                        s = oz_dd_fallback(a, a_lo, asv, ast, b, b_lo, bsv, bst, i, j, k, true, mu_i, mu_j);
                        oz_count(counts, 0, m, i, j);
                    }
                }
            }
            Dd t = oz_dd_mul_f64(s, alpha);
            u64 cidx = i + j * ldc;
            if (beta != 0.0) t = dd::add_accurate(t, oz_dd_mul_f64(dd_make(c_hi[cidx], c_lo[cidx]), beta));
            c_hi[cidx] = t.hi;
            c_lo[cidx] = t.lo;
        }
    }
}

// BLAS quick return of the double-double scheme: c = beta == 0 ? 0 : c.mul_f64(beta).
extern "C" __global__ void ozaki_scale_c_dd(double *__restrict__ c_hi, double *__restrict__ c_lo, u64 m, u64 n,
                                            u64 ldc, double beta) {
    OZ_GRID_2D(i, m, j, n) {
        u64 idx = i + j * ldc;
        Dd t = beta == 0.0 ? dd_make(0.0, 0.0) : oz_dd_mul_f64(dd_make(c_hi[idx], c_lo[idx]), beta);
        c_hi[idx] = t.hi;
        c_lo[idx] = t.lo;
    }
}

// ---- the quad-double scheme (ozaki2_qd.rs) ----------------------------------------------------

// ozaki2_qd::lowest_bit_exponent: the exponent of the lowest set bit of a nonzero finite x.
MP_DEV int oz_lowest_bit_exponent(double x) {
    u64 bits = (u64)__double_as_longlong(x) & OZ_ABS_MASK;
    int field = (int)(bits >> 52);
    u64 mantissa = bits & ((1ULL << 52) - 1);
    u64 sig = field == 0 ? mantissa : (mantissa | (1ULL << 52));
    int e0 = field == 0 ? -1074 : field - 1075;
    return e0 + __ffsll((long long)sig) - 1;
}

// ozaki2_qd::exact_vectors: flags[v] = 1 when every x_vt 2^exps[v] is an integer (x_vt = 0 or
// its lowest set bit at or above 2^-exps[v]), else 0. Vectors of contiguous elements (st = 1)
// take a warp each, others a thread each (then neighbouring threads read neighbouring
// vectors). Launch: block 256, any grid.
extern "C" __global__ void ozaki_exact_vecs(const double *__restrict__ x, u64 sv, u64 st, u64 count, u64 len,
                                            const int *__restrict__ exps, int *__restrict__ flags) {
    u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x, threads = (u64)gridDim.x * blockDim.x;
    if (st == 1) {
        unsigned lane = threadIdx.x % 32;
        for (u64 v0 = tid / 32 * 32; v0 < count * 32; v0 += threads) {
            u64 v = v0 / 32;
            bool ok = true;
            if (v < count) {
                int e = exps[v];
                for (u64 t = lane; t < len; t += 32) {
                    double y = x[v * sv + t];
                    if (y != 0.0 && oz_lowest_bit_exponent(y) + e < 0) ok = false;
                }
            }
            ok = __all_sync(0xffffffffu, ok);
            if (lane == 0 && v < count) flags[v] = ok ? 1 : 0;
        }
        return;
    }
    for (u64 v = tid; v < count; v += threads) {
        int e = exps[v];
        bool ok = true;
        for (u64 t = 0; t < len; ++t) {
            double y = x[v * sv + t * st];
            if (y != 0.0 && oz_lowest_bit_exponent(y) + e < 0) ok = false;
        }
        flags[v] = ok ? 1 : 0;
    }
}

// ozaki2_qd::exact_sum: the quad-double sum of the exact products (TwoProd; a non-finite
// product alone) of row i of A and column j of B, the terms scaled by 2^-sa and 2^-sb.
MP_DEV Qd oz_exact_sum(const double *__restrict__ a, u64 asv, u64 ast, const double *__restrict__ b, u64 bsv,
                       u64 bst, u64 i, u64 j, u64 k, int sa, int sb) {
    Qd acc = qd_make(0.0, 0.0, 0.0, 0.0);
    for (u64 l = 0; l < k; ++l) {
        double p, e;
        two_prod(oz_ldexp(a[i * asv + l * ast], -sa), oz_ldexp(b[j * bsv + l * bst], -sb), p, e);
        acc = mp_is_finite(p) ? qd::add_f64(qd::add_f64(acc, p), e) : qd::add_f64(acc, p);
    }
    return acc;
}

// ozaki2_qd::exact_sum_entry: oz_exact_sum; if it is not finite although every term is
// (finite_terms), the same with the row scaled by 2^-ceil_log2(mu_i) and the column by
// 2^-ceil_log2(mu_j), scaled back.
MP_DEV Qd oz_qd_fallback(const double *__restrict__ a, u64 asv, u64 ast, const double *__restrict__ b, u64 bsv,
                         u64 bst, u64 i, u64 j, u64 k, bool finite_terms, double mu_i, double mu_j) {
    Qd s = oz_exact_sum(a, asv, ast, b, bsv, bst, i, j, k, 0, 0);
    if (mp_is_finite(s.c[0]) || !finite_terms) return s;
    int sa = oz_ceil_log2(fmax(mu_i, 0x1p-1022)), sb = oz_ceil_log2(fmax(mu_j, 0x1p-1022));
    return qd::ldexp(oz_exact_sum(a, asv, ast, b, bsv, bst, i, j, k, sa, sb), sa + sb);
}

// ozaki2_qd::qd_of_exact_words after oz_crt_words: TwoSum of the two leading words, then
// qd::add_f64 of the others.
template <int W>
MP_DEV Qd oz_crt_entry_qd_w(const int *p, const OzCrt &crt) {
    double d[W];
    oz_crt_words<OZ_MAX_MODULI, W>(p, crt, d);
    double h, lo;
    two_sum(d[0], d[1], h, lo);
    Qd s = qd_make(h, lo, 0.0, 0.0);
#pragma unroll
    for (int w = 2; w < W; ++w) s = qd::add_f64(s, d[w]);
    return s;
}

MP_DEV Qd oz_crt_entry_qd(const int *p, const OzCrt &crt) {
    switch (crt.words) {
    case 2: return oz_crt_entry_qd_w<2>(p, crt);
    case 3: return oz_crt_entry_qd_w<3>(p, crt);
    case 4: return oz_crt_entry_qd_w<4>(p, crt);
    case 5: return oz_crt_entry_qd_w<5>(p, crt);
    default: return oz_crt_entry_qd_w<6>(p, crt);
    }
}

// ozaki2_qd::update_qd: alpha s + beta c in quad-double (c not read for beta = 0).
MP_DEV void oz_update_qd(Qd s, double alpha, double beta, double *c0, double *c1, double *c2, double *c3,
                         u64 idx) {
    Qd t = qd::mul_f64(s, alpha);
    if (beta != 0.0) t = qd::add_ieee(t, qd::mul_f64(qd_make(c0[idx], c1[idx], c2[idx], c3[idx]), beta));
    c0[idx] = t.c[0];
    c1[idx] = t.c[1];
    c2[idx] = t.c[2];
    c3[idx] = t.c[3];
}

// ozaki2_gemm_qd's stages 6-7 for the entries (i, j0 + jj), i < m, jj < nb: the products
// (as ozaki_crt_update), the exact CRT words summed into a quad-double, Qd::ldexp by
// -(ea_i + eb_j); entries of bad rows or columns (counts[1]) and of rows or columns that did
// not convert exactly (exact_a/exact_b 0, counts[0]) become oz_qd_fallback's; then
// c_ij = alpha s + beta c_ij (oz_update_qd; C's four words at c0..c3, leading dimension ldc).
// Launch: block (256), 2-D grid (OZ_GRID_2D).
extern "C" __global__ void __launch_bounds__(256, 2)
ozaki_crt_update_qd(const int *__restrict__ prod, u64 ldp, u64 slab, u64 m, u64 nb, u64 j0, OzCrt crt,
                    const int *__restrict__ ea, const int *__restrict__ eb, const u64 *__restrict__ mua,
                    const u64 *__restrict__ mub, const int *__restrict__ exact_a, const int *__restrict__ exact_b,
                    double alpha, double beta, double *__restrict__ c0, double *__restrict__ c1,
                    double *__restrict__ c2, double *__restrict__ c3, u64 ldc, const double *__restrict__ a,
                    u64 asv, u64 ast, const double *__restrict__ b, u64 bsv, u64 bst, u64 k,
                    unsigned long long *__restrict__ counts) {
    const int nmod = crt.nmod;
    for (u64 jj = blockIdx.y; jj < nb; jj += gridDim.y) {
        u64 j = j0 + jj;
        bool bad_j = oz_bad(mub[j]);
        bool exact_j = exact_b[j] != 0;
        int eb_j = eb[j];
        double mu_j = oz_mu(mub[j]);
        for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (u64)blockDim.x * gridDim.x) {
            Qd s;
            if (bad_j || oz_bad(mua[i])) {
                s = oz_qd_fallback(a, asv, ast, b, bsv, bst, i, j, k, false, 0.0, 0.0);
                oz_count(counts, 1, m, i, j);
            } else if (!(exact_j && exact_a[i] != 0)) {
                s = oz_qd_fallback(a, asv, ast, b, bsv, bst, i, j, k, true, oz_mu(mua[i]), mu_j);
                oz_count(counts, 0, m, i, j);
            } else {
                int p[OZ_MAX_MODULI];
                oz_load_products<OZ_MAX_MODULI>(p, prod, slab, i + jj * ldp, nmod);
                s = qd::ldexp(oz_crt_entry_qd(p, crt), -(ea[i] + eb_j));
            }
            oz_update_qd(s, alpha, beta, c0, c1, c2, c3, i + j * ldc);
        }
    }
}

// BLAS quick return of the quad-double scheme: c = beta == 0 ? 0 : c.mul_f64(beta).
extern "C" __global__ void ozaki_scale_c_qd(double *__restrict__ c0, double *__restrict__ c1, double *__restrict__ c2,
                                            double *__restrict__ c3, u64 m, u64 n, u64 ldc, double beta) {
    OZ_GRID_2D(i, m, j, n) {
        u64 idx = i + j * ldc;
        Qd t = beta == 0.0 ? qd_make(0.0, 0.0, 0.0, 0.0)
                           : qd::mul_f64(qd_make(c0[idx], c1[idx], c2[idx], c3[idx]), beta);
        c0[idx] = t.c[0];
        c1[idx] = t.c[1];
        c2[idx] = t.c[2];
        c3[idx] = t.c[3];
    }
}

// k larger than one INT32-exact chunk: acc = ((acc mod M) + (part mod M)) mod M, M = modulus.
extern "C" __global__ void ozaki_fold_mod(int *__restrict__ acc, const int *__restrict__ part,
                                          u64 count, int modulus) {
    OZ_GRID_STRIDE(i, count) {
        int x = acc[i] % modulus;
        if (x < 0) x += modulus;
        int y = part[i] % modulus;
        if (y < 0) y += modulus;
        acc[i] = (x + y) % modulus;
    }
}

// BLAS quick return (alpha = 0 or k = 0): c = beta == 0 ? 0 : beta c, m x n with ldc.
extern "C" __global__ void ozaki_scale_c(double *__restrict__ c, u64 m, u64 n, u64 ldc, double beta) {
    OZ_GRID_2D(i, m, j, n) {
        double *p = c + i + j * ldc;
        *p = beta == 0.0 ? 0.0 : beta * *p;
    }
}

// ---- Ozaki scheme I ----------------------------------------------------------------------------

// Packs vectors into rows of length len (out[v*len + t]), zeroing bad vectors (the packed
// copy take_non_finite leaves). Launch: block (256), any grid.
extern "C" __global__ void ozaki_pack_vecs(const double *__restrict__ x, u64 sv, u64 st, u64 count,
                                           u64 len, const u64 *__restrict__ mubits,
                                           double *__restrict__ out) {
    __shared__ double tile[OZ_TV][OZ_TT + 1];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    oz_for_tiles(tile, x, sv, st, count, len, count, len, [&](u64 v0, u64 t0) {
        for (unsigned vv = warp; vv < OZ_TV; vv += warps) {
            u64 v = v0 + vv;
            if (v >= count) continue;
            bool bad = oz_bad(mubits[v]);
            for (unsigned r = 0; r < OZ_TT / 32; ++r) {
                u64 t = t0 + lane + 32 * r;
                if (t < len) out[v * len + t] = bad ? 0.0 : tile[vv][lane + 32 * r];
            }
        }
    });
}

// split::extract_slice on packed rows (rem: count x len), with mubits the maxima of rem:
// slice values to s32 (f32 slices) or s64, rem -= slice * 2^e, exps[v] = ceil_log2(mu_v).
extern "C" __global__ void ozaki_split_step(double *__restrict__ rem, u64 count, u64 len,
                                            const u64 *__restrict__ mubits, int beta, int f32,
                                            float *__restrict__ s32, double *__restrict__ s64,
                                            int *__restrict__ exps) {
    u64 total = count * len;
    OZ_GRID_STRIDE(idx, total) {
        u64 v = idx / len, t = idx % len;
        double mu = oz_mu(mubits[v]);
        int e = oz_ceil_log2(mu);
        if (t == 0) exps[v] = e;
        double s = 0.0;
        if (mu != 0.0) {
            double x = rem[idx];
            double y = oz_ldexp(x, -e);
            if (f32) {
                float sigma = (float)oz_pow2(beta);
                float y32 = (float)y;
                s = (double)((y32 + sigma) - sigma);
            } else {
                double sigma = oz_pow2(beta);
                s = (y + sigma) - sigma;
            }
            rem[idx] = x - oz_ldexp(s, e);
        }
        if (f32) s32[idx] = (float)s; else s64[idx] = s;
    }
}

// split::round_scaled: values x 2^-ceil_log2(mu_v), rounded to f32 (f32 slices) or kept.
extern "C" __global__ void ozaki_split_round(const double *__restrict__ rem, u64 count, u64 len,
                                             const u64 *__restrict__ mubits, int f32,
                                             float *__restrict__ s32, double *__restrict__ s64,
                                             int *__restrict__ exps) {
    u64 total = count * len;
    OZ_GRID_STRIDE(idx, total) {
        u64 v = idx / len, t = idx % len;
        int e = oz_ceil_log2(oz_mu(mubits[v]));
        if (t == 0) exps[v] = e;
        double y = oz_ldexp(rem[idx], -e);
        if (f32) s32[idx] = (float)y; else s64[idx] = y;
    }
}

// ozaki1::slice_products, one term: acc += prod_ij 2^(ea_i + eb_j) (f64, or Dd::add_f64).
extern "C" __global__ void ozaki_term_acc(const float *__restrict__ p32, const double *__restrict__ p64,
                                          u64 m, u64 n, const int *__restrict__ ea,
                                          const int *__restrict__ eb, int dd,
                                          double *__restrict__ acc_hi, double *__restrict__ acc_lo) {
    OZ_GRID_2D(i, m, j, n) {
        u64 idx = i + j * m;
        double p = p32 ? (double)p32[idx] : p64[idx];
        double v = oz_ldexp(p, ea[i] + eb[j]);
        if (dd) {
            Dd s = oz_dd_add_f64(dd_make(acc_hi[idx], acc_lo[idx]), v);
            acc_hi[idx] = s.hi;
            acc_lo[idx] = s.lo;
        } else {
            acc_hi[idx] = acc_hi[idx] + v;
        }
    }
}

// ozaki1::guard_bound: scheme I's error bound of an entry, (K1 mu_a mu_b + K2 x) at
// x = s_abs + E, widened by 2^-40.
MP_DEV double oz_guard1_bound(double k1, double k2, double mu_a, double mu_b, double s_abs) {
    double e0 = k1 * mu_a * mu_b + k2 * s_abs;
    return (e0 + k2 * e0) * (1.0 + 0x1p-40);
}

// ozaki1_gemm's BLAS update from the sum (f64, or Dd when dd != 0), bad entries patched; with
// `guard`, the entries ozaki1's componentwise guard rejects (bound k1 mu_a mu_b + k2 |s| as
// ozaki1::guard_bound) recomputed by oz_guard_entry. counts[0] counts those, counts[1] the bad.
extern "C" __global__ void ozaki_term_finish(const double *__restrict__ acc_hi,
                                             const double *__restrict__ acc_lo, int dd, u64 m, u64 n,
                                             double alpha, double beta, double *__restrict__ c, u64 ldc,
                                             const u64 *__restrict__ mua, const u64 *__restrict__ mub,
                                             const double *__restrict__ a, u64 asv, u64 ast,
                                             const double *__restrict__ b, u64 bsv, u64 bst, u64 k,
                                             int guard, double k1, double k2,
                                             unsigned long long *__restrict__ counts) {
    OZ_GRID_2D(i, m, j, n) {
        u64 idx = i + j * m;
        double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
        double out;
        if (oz_bad(mua[i]) || oz_bad(mub[j])) {
            out = oz_patch(a, asv, ast, b, bsv, bst, i, j, k, alpha, beta, cij);
            oz_count(counts, 1, m, i, j);
            c[i + j * ldc] = out;
            continue;
        }
        if (guard) {
            double mu_i = oz_mu(mua[i]), mu_j = oz_mu(mub[j]);
            double s_abs = mp_abs(acc_hi[idx]);
            double e = oz_guard1_bound(k1, k2, mu_i, mu_j, s_abs);
            if (!oz_guard_passes_fast(k, s_abs, e) &&
                oz_guard_slow(k, s_abs, e, a, asv, ast, b, bsv, bst, i, j, alpha, beta, c + i + j * ldc, mu_i,
                              mu_j)) {
                oz_count(counts, 0, m, i, j);
                continue;
            }
        }
        if (dd) {
            out = oz_update_dd(dd_make(acc_hi[idx], acc_lo[idx]), alpha, beta, cij);
        } else {
            out = oz_update_f64(acc_hi[idx], alpha, beta, cij);
        }
        c[i + j * ldc] = out;
    }
}
