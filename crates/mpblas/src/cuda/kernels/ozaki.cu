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

// The moduli of ozaki2::moduli(20), in order (tests/kernel_names.rs checks the list against
// the Rust function). X(index, modulus).
#define OZ_MODULI_LIST(X)                                                                         \
    X(0, 256) X(1, 255) X(2, 253) X(3, 251) X(4, 247) X(5, 241) X(6, 239) X(7, 233) X(8, 229)   \
    X(9, 227) X(10, 223) X(11, 217) X(12, 211) X(13, 199) X(14, 197) X(15, 193) X(16, 191)      \
    X(17, 181) X(18, 179) X(19, 173)

#define OZ_MAX_MODULI 20
#define OZ_MAX_WORDS 4

// ---- scalar helpers: twins of ozaki/split.rs and dd/arith.rs ---------------------------------

// split::pow2: 2^e for e in [-1022, 1023], from the bits.
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

// The plain f64 value of a C entry in a bad row or column (ozaki/mod.rs non_finite_patch):
// alpha * sum_l a_il * b_lj + beta * c, summed in order, no FMA.
MP_DEV double oz_patch(const double *__restrict__ a, u64 asv, u64 ast, const double *__restrict__ b,
                       u64 bsv, u64 bst, u64 i, u64 j, u64 k, double alpha, double beta, double c) {
    double s = 0.0;
    for (u64 l = 0; l < k; ++l) {
        s = s + a[i * asv + l * ast] * b[j * bsv + l * bst];
    }
    return beta == 0.0 ? alpha * s : alpha * s + beta * c;
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

// ---- stage 1b: fast mode's 2-norm bounds (ozaki2::norm_squares) -------------------------------

// ozaki2::quantise_up: ceil(|t| 2^e), at least 1 for t != 0 (at most 2^16 here).
MP_DEV u64 oz_quantise_up(double t, int e) {
    if (t == 0.0) return 0;
    u64 g = (u64)ceil(oz_ldexp(mp_abs(t), e));
    return g > 1 ? g : 1;
}

// Vectors contiguous along t: one warp per vector, blockIdx.y picks a range of t;
// sq[v] += sum of g_t^2 (exact integers: any order gives the same sum; sq zeroed before).
// Zero and bad vectors are skipped. Launch: block (256), grid (ceil(count/8), chunks).
extern "C" __global__ void ozaki_vecnorm_tcontig(const double *__restrict__ x, u64 sv, u64 count,
                                                 u64 len, const u64 *__restrict__ mubits,
                                                 u64 *__restrict__ sq) {
    u64 v = (u64)blockIdx.x * 8 + threadIdx.x / 32;
    unsigned lane = threadIdx.x % 32;
    if (v >= count) return;
    double mu = oz_mu(mubits[v]);
    if (mu == 0.0) return;
    int e = 16 - oz_ceil_log2(mu);
    u64 per = (len + gridDim.y - 1) / gridDim.y;
    u64 t0 = per * blockIdx.y;
    u64 t1 = t0 + per < len ? t0 + per : len;
    u64 s = 0;
    for (u64 t = t0 + lane; t < t1; t += 32) {
        u64 g = oz_quantise_up(x[v * sv + t], e);
        s += g * g;
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0 && s != 0) atomicAdd(&sq[v], s);
}

// Vectors contiguous along v: one thread per vector, blockIdx.y picks a range of t.
// Launch: block (256), grid (ceil(count/256), chunks).
extern "C" __global__ void ozaki_vecnorm_vcontig(const double *__restrict__ x, u64 st, u64 count,
                                                 u64 len, const u64 *__restrict__ mubits,
                                                 u64 *__restrict__ sq) {
    u64 v = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= count) return;
    double mu = oz_mu(mubits[v]);
    if (mu == 0.0) return;
    int e = 16 - oz_ceil_log2(mu);
    u64 per = (len + gridDim.y - 1) / gridDim.y;
    u64 t0 = per * blockIdx.y;
    u64 t1 = t0 + per < len ? t0 + per : len;
    u64 s = 0;
    for (u64 t = t0; t < t1; ++t) {
        u64 g = oz_quantise_up(x[v + t * st], e);
        s += g * g;
    }
    if (s != 0) atomicAdd(&sq[v], s);
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

// 1.5 * 2^52: adding it to an integer-valued |x| < 2^51 is exact and leaves x, in two's
// complement, in the low bits of the sum; adding it to |w| < 2^51 rounds w to the nearest
// integer (ties to even).
#define OZ_MAGIC 6755399441055744.0

// The residue of the integer y = hi 2^32 + lo (hi, lo integer-valued, |hi| <= 2^32,
// 0 <= lo < 2^32) modulo M, as the low byte of a two's-complement int, in FP64 only (the
// INT32 pipe's division by a constant took 4x the memory time of this stage):
//   x = hi c + lo with c = 2^32 mod M: |x| < 2^41, exact, x = y (mod M);
//   t = round(x / M) from fl(x (1/M)): for odd M, x/M is at least 1/(2M) from a half-integer
//       and fl(x (1/M)) is within 2^-18 of x/M, so t is the nearest integer; for M = 256 the
//       product is exact (ties to even);
//   r = x - t M (one FMA, exact): r in [-(M-1)/2, (M-1)/2] for odd M, [-128, 128] for 256,
//   where 128 and -128 have the same low byte, 0x80 = the CPU's -128.
// So the byte equals ozaki2::sym_residue's for every M (the residue is unique in that range).
template <unsigned M>
MP_DEV unsigned oz_reduce_byte(double x) {
    const double inv = 1.0 / (double)M;
    double t = __dadd_rn(__dmul_rn(x, inv), OZ_MAGIC) - OZ_MAGIC;
    double r = __fma_rn(-t, (double)M, x);
    return (unsigned)__double2loint(r + OZ_MAGIC) & 0xffu;
}
template <unsigned M>
MP_DEV unsigned oz_res_byte(double hi, double lo) {
    const double c = (double)((1ULL << 32) % M);
    return oz_reduce_byte<M>(__fma_rn(hi, c, lo));
}

// oz_res_byte for y = top 2^64 + hi 2^32 + lo (|top| <= 2^32, hi, lo as there): with
// d = 2^64 mod M, x = top d + (hi c + lo) satisfies |x| < 2^42, and the rest of the argument
// of oz_res_byte holds unchanged (x/M is within 2^-17 of fl(x (1/M))).
template <unsigned M>
MP_DEV unsigned oz_res_byte3(double top, double hi, double lo) {
    const double c = (double)((1ULL << 32) % M);
    const double d = (double)((unsigned)((((1ULL << 32) % M) * ((1ULL << 32) % M)) % M));
    return oz_reduce_byte<M>(__fma_rn(top, d, __fma_rn(hi, c, lo)));
}

// The residue of an integer-valued |v| >= 2^96: v = mant 2^sh, (mant mod M)(2^sh mod M).
MP_DEV unsigned oz_big_res(double a, unsigned M) {
    u64 bits = (u64)__double_as_longlong(a) & OZ_ABS_MASK;
    int sh = (int)((bits >> 52) & 0x7ff) - 1075;
    u64 mant = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    u64 p2 = 1;
    for (int s = 0; s < sh; ++s) p2 = p2 * 2 % M;
    return (unsigned)(mant % M * p2 % M);
}

// ozaki2::to_integers then ozaki2::residues for every modulus (mode 0), or
// ozaki2::magnitude_bounds (mode 1, one slab), over the padded range [0,countp) x [0,lenp):
// out[l*slab + v*lenp + t]. Bad and zero vectors and the padding give 0.
// Launch: block (256), any grid (grid-stride over 32 x 128 tiles); lenp % 16 == 0, slab % 16 == 0.
extern "C" __global__ void ozaki_residues_make(const double *__restrict__ x, u64 sv, u64 st, u64 count,
                                               u64 len, u64 countp, u64 lenp,
                                               const u64 *__restrict__ mubits, const int *__restrict__ exps,
                                               int nmod, int mode, signed char *__restrict__ out, u64 slab) {
    __shared__ double tile[OZ_TV][OZ_TT + 1];
    u64 tiles_t = (lenp + OZ_TT - 1) / OZ_TT;
    u64 tiles = tiles_t * ((countp + OZ_TV - 1) / OZ_TV);
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    for (u64 tile_id = blockIdx.x; tile_id < tiles; tile_id += gridDim.x) {
        u64 v0 = (tile_id / tiles_t) * OZ_TV;
        u64 t0 = (tile_id % tiles_t) * OZ_TT;
        __syncthreads();
        oz_load_tile(tile, x, sv, st, count, len, v0, t0);
        __syncthreads();
        for (unsigned vv = warp; vv < OZ_TV; vv += warps) {
            u64 v = v0 + vv;
            u64 t = t0 + 4 * lane;
            if (v >= countp || t >= lenp) continue;
            u64 mb = v < count ? mubits[v] : 0;
            double mu = oz_mu(mb);
            u64 base = v * lenp + t;
            if (mode == 1) {
                int e = 6 - oz_ceil_log2(mu);
                unsigned packed = 0;
                for (int j = 0; j < 4; ++j) {
                    double y = mu == 0.0 ? 0.0 : ceil(oz_ldexp(mp_abs(tile[vv][4 * lane + j]), e));
                    packed |= ((unsigned)(int)y & 0xffu) << (8 * j);
                }
                *(unsigned *)(out + base) = packed;
                continue;
            }
            int e = v < count ? exps[v] : 0;
            // y = rint(2^e x) = hi 2^32 + lo (exact: floor of a power-of-two scaling, then an
            // FMA whose result lies in [0, 2^32)).
            // 2^64 <= |y| < 2^96 (a row's largest entries with 18 or more moduli): first
            // y = top 2^64 + rest, rest in [0, 2^64) (exact as above), and hi 2^32 + lo = rest;
            // the residue of top 2^64 is folded in per modulus. Beyond 2^96: the slow path.
            double hi[4], lo[4], top[4], yv[4];
            bool big = false, huge = false;
            for (int j = 0; j < 4; ++j) {
                double y = mu == 0.0 ? 0.0 : rint(oz_ldexp(tile[vv][4 * lane + j], e));
                yv[j] = y;
                top[j] = 0.0;
                if (mp_abs(y) >= 79228162514264337593543950336.0) {
                    huge = true;
                    hi[j] = 0.0;
                    lo[j] = 0.0;
                    continue;
                }
                if (mp_abs(y) >= 18446744073709551616.0) {
                    big = true;
                    top[j] = floor(y * 5.421010862427522e-20);
                    y = __fma_rn(-top[j], 18446744073709551616.0, y);
                }
                hi[j] = floor(y * 2.3283064365386963e-10);
                lo[j] = __fma_rn(-hi[j], 4294967296.0, y);
            }
#define OZ_RES_STEP(l, M)                                                                          \
    if (l < nmod) {                                                                                 \
        unsigned packed = 0;                                                                        \
        _Pragma("unroll") for (int j = 0; j < 4; ++j) {                                             \
            unsigned byte = big ? oz_res_byte3<M>(top[j], hi[j], lo[j])                              \
                                : oz_res_byte<M>(hi[j], lo[j]);                                     \
            if (huge && mp_abs(yv[j]) >= 79228162514264337593543950336.0) {                         \
                unsigned r = oz_big_res(yv[j], M);                                                  \
                if (yv[j] < 0.0 && r != 0) r = M - r;                                               \
                int s = 2 * (int)r >= (int)M ? (int)r - (int)M : (int)r;                            \
                byte = (unsigned)s & 0xffu;                                                         \
            }                                                                                       \
            packed |= byte << (8 * j);                                                              \
        }                                                                                           \
        *(unsigned *)(out + (u64)(l) * slab + base) = packed;                                       \
    }
            OZ_MODULI_LIST(OZ_RES_STEP)
#undef OZ_RES_STEP
        }
    }
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

// For the entries (i, j0 + jj), i < m, jj < nb: r_l = prod_l mod m_l (prod: nmod slabs of
// int32, m x nb column-major with leading dimension ldp, slab elements apart), then
// ozaki2::reconstruct, Dd::ldexp by -(ea_i + eb_j), and
//   mode 0: c_ij = alpha s + beta c_ij (ozaki2_gemm), bad rows/columns recomputed plainly;
//   mode 1: (hi, lo)[i + j m] = s (ozaki2::product).
extern "C" __global__ void ozaki_crt_update(const int *__restrict__ prod, u64 ldp, u64 slab, u64 m,
                                            u64 nb, u64 j0, OzCrt crt, const int *__restrict__ ea,
                                            const int *__restrict__ eb, const u64 *__restrict__ mua,
                                            const u64 *__restrict__ mub, double alpha, double beta,
                                            double *__restrict__ c, u64 ldc, int mode,
                                            double *__restrict__ out_hi, double *__restrict__ out_lo,
                                            const double *__restrict__ a, u64 asv, u64 ast,
                                            const double *__restrict__ b, u64 bsv, u64 bst, u64 k) {
    OZ_GRID_2D(i, m, jj, nb) {
        u64 j = j0 + jj;
        u64 pidx = i + jj * ldp;
        if (mode == 0 && (oz_bad(mua[i]) || oz_bad(mub[j]))) {
            double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
            c[i + j * ldc] = oz_patch(a, asv, ast, b, bsv, bst, i, j, k, alpha, beta, cij);
            continue;
        }
        double y[OZ_MAX_WORDS] = {0.0, 0.0, 0.0, 0.0};
        const int nmod = crt.nmod;
#define OZ_CRT_STEP(l, M)                                                                          \
    if (l < nmod) {                                                                                 \
        int r = prod[(u64)(l) * slab + pidx] % (int)(M);                                            \
        if (r < 0) r += (int)(M);                                                                   \
        double rd = (double)r;                                                                      \
        _Pragma("unroll") for (int w = 0; w < OZ_MAX_WORDS; ++w) y[w] = __fma_rn(rd, crt.w[w][l], y[w]); \
    }
        OZ_MODULI_LIST(OZ_CRT_STEP)
#undef OZ_CRT_STEP
        double t = round(y[0] * crt.p_inv + y[1] * crt.p_inv);
        double d0 = y[0] - t * crt.p[0];
        double d1 = y[1] - t * crt.p[1];
        double h, lo;
        two_sum(d0, d1, h, lo);
        Dd s = dd_make(h, lo);
        for (int w = 2; w < OZ_MAX_WORDS; ++w) {
            if (w < crt.words) s = oz_dd_add_f64(s, y[w] - t * crt.p[w]);
        }
        s = oz_dd_ldexp(s, -(ea[i] + eb[j]));
        if (mode == 0) {
            double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
            c[i + j * ldc] = oz_update_dd(s, alpha, beta, cij);
        } else {
            out_hi[i + j * m] = s.hi;
            out_lo[i + j * m] = s.lo;
        }
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
    u64 tiles_t = (len + OZ_TT - 1) / OZ_TT;
    u64 tiles = tiles_t * ((count + OZ_TV - 1) / OZ_TV);
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    for (u64 tile_id = blockIdx.x; tile_id < tiles; tile_id += gridDim.x) {
        u64 v0 = (tile_id / tiles_t) * OZ_TV;
        u64 t0 = (tile_id % tiles_t) * OZ_TT;
        __syncthreads();
        oz_load_tile(tile, x, sv, st, count, len, v0, t0);
        __syncthreads();
        for (unsigned vv = warp; vv < OZ_TV; vv += warps) {
            u64 v = v0 + vv;
            if (v >= count) continue;
            bool bad = oz_bad(mubits[v]);
            for (unsigned r = 0; r < OZ_TT / 32; ++r) {
                u64 t = t0 + lane + 32 * r;
                if (t < len) out[v * len + t] = bad ? 0.0 : tile[vv][lane + 32 * r];
            }
        }
    }
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

// ozaki1_gemm's BLAS update from the sum (f64, or Dd when dd != 0), bad entries patched.
extern "C" __global__ void ozaki_term_finish(const double *__restrict__ acc_hi,
                                             const double *__restrict__ acc_lo, int dd, u64 m, u64 n,
                                             double alpha, double beta, double *__restrict__ c, u64 ldc,
                                             const u64 *__restrict__ mua, const u64 *__restrict__ mub,
                                             const double *__restrict__ a, u64 asv, u64 ast,
                                             const double *__restrict__ b, u64 bsv, u64 bst, u64 k) {
    OZ_GRID_2D(i, m, j, n) {
        u64 idx = i + j * m;
        double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
        double out;
        if (oz_bad(mua[i]) || oz_bad(mub[j])) {
            out = oz_patch(a, asv, ast, b, bsv, bst, i, j, k, alpha, beta, cij);
        } else if (dd) {
            out = oz_update_dd(dd_make(acc_hi[idx], acc_lo[idx]), alpha, beta, cij);
        } else {
            double s = acc_hi[idx];
            out = beta == 0.0 ? alpha * s : alpha * s + beta * cij;
        }
        c[i + j * ldc] = out;
    }
}
