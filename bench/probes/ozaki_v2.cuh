// Experimental variants of the residue and CRT kernels (probe only).

// Residue byte from x (|x| < 2^42, integer-valued) and xm = x + OZ_MAGIC (exact): t =
// round(x / M) in the low bits of tm (one FMA, one rounding), r = x - t M computed on the
// low 32 bits (exact mod 2^32, and r fits), byte = r & 0xff.
template <unsigned M>
MP_DEV unsigned oz2_reduce(double x, double xm) {
    double tm = __fma_rn(x, 1.0 / (double)M, OZ_MAGIC);
    unsigned xl = (unsigned)__double2loint(xm), tl = (unsigned)__double2loint(tm);
    return (xl - tl * M) & 0xffu;
}
template <unsigned M>
MP_DEV unsigned oz2_res(double hi, double lo, double lom) {
    const double c = (double)((1ULL << 32) % M);
    return oz2_reduce<M>(__fma_rn(hi, c, lo), __fma_rn(hi, c, lom));
}
template <unsigned M>
MP_DEV unsigned oz2_res3(double top, double hi, double lo, double lom) {
    const double c = (double)((1ULL << 32) % M);
    const double d = (double)((unsigned)((((1ULL << 32) % M) * ((1ULL << 32) % M)) % M));
    return oz2_reduce<M>(__fma_rn(top, d, __fma_rn(hi, c, lo)), __fma_rn(top, d, __fma_rn(hi, c, lom)));
}

MP_DEV void oz2_residues_body(const double *__restrict__ x, u64 sv, u64 st, u64 count,
                                             u64 len, u64 countp, u64 lenp,
                                             const u64 *__restrict__ mubits, const int *__restrict__ exps,
                                             int nmod, signed char *__restrict__ out, u64 slab) {
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
            int e = v < count ? exps[v] : 0;
            double hi[4], lo[4], lom[4], top[4], yv[4];
            bool big = false, huge = false;
            for (int j = 0; j < 4; ++j) {
                double y = mu == 0.0 ? 0.0 : rint(oz_ldexp(tile[vv][4 * lane + j], e));
                yv[j] = y;
                top[j] = 0.0;
                if (mp_abs(y) >= 79228162514264337593543950336.0) {
                    huge = true;
                    hi[j] = 0.0;
                    lo[j] = 0.0;
                    lom[j] = OZ_MAGIC;
                    continue;
                }
                if (mp_abs(y) >= 18446744073709551616.0) {
                    big = true;
                    top[j] = floor(y * 5.421010862427522e-20);
                    y = __fma_rn(-top[j], 18446744073709551616.0, y);
                }
                hi[j] = floor(y * 2.3283064365386963e-10);
                lo[j] = __fma_rn(-hi[j], 4294967296.0, y);
                lom[j] = lo[j] + OZ_MAGIC;
            }
            // Warp-uniform choice of the 2- or 3-word path (the 3-word one is exact for top = 0).
            big = __any_sync(__activemask(), big);
#define OZ2_RES_STEP(l, M)                                                                         \
    if (l < nmod) {                                                                                 \
        unsigned packed = 0;                                                                        \
        if (big) {                                                                                  \
            _Pragma("unroll") for (int j = 0; j < 4; ++j) packed |= oz2_res3<M>(top[j], hi[j], lo[j], lom[j]) << (8 * j); \
        } else {                                                                                    \
            _Pragma("unroll") for (int j = 0; j < 4; ++j) packed |= oz2_res<M>(hi[j], lo[j], lom[j]) << (8 * j); \
        }                                                                                           \
        if (huge) {                                                                                 \
            for (int j = 0; j < 4; ++j) {                                                           \
                if (mp_abs(yv[j]) >= 79228162514264337593543950336.0) {                             \
                    unsigned r = oz_big_res(yv[j], M);                                              \
                    if (yv[j] < 0.0 && r != 0) r = M - r;                                           \
                    int s = 2 * (int)r >= (int)M ? (int)r - (int)M : (int)r;                        \
                    packed = (packed & ~(0xffu << (8 * j))) | (((unsigned)s & 0xffu) << (8 * j));   \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
        *(unsigned *)(out + (u64)(l) * slab + base) = packed;                                       \
    }
            OZ_MODULI_LIST(OZ2_RES_STEP)
#undef OZ2_RES_STEP
        }
    }
}

extern "C" __global__ void ozaki_residues_v2(const double *__restrict__ x, u64 sv, u64 st, u64 count,
                                             u64 len, u64 countp, u64 lenp,
                                             const u64 *__restrict__ mubits, const int *__restrict__ exps,
                                             int nmod, signed char *__restrict__ out, u64 slab) {
    oz2_residues_body(x, sv, st, count, len, countp, lenp, mubits, exps, nmod, out, slab);
}
extern "C" __global__ void __launch_bounds__(256, 4) ozaki_residues_v2b(const double *__restrict__ x, u64 sv, u64 st, u64 count,
                                             u64 len, u64 countp, u64 lenp,
                                             const u64 *__restrict__ mubits, const int *__restrict__ exps,
                                             int nmod, signed char *__restrict__ out, u64 slab) {
    oz2_residues_body(x, sv, st, count, len, countp, lenp, mubits, exps, nmod, out, slab);
}

MP_DEV int oz_comp(int4 v, int r) { return r == 0 ? v.x : (r == 1 ? v.y : (r == 2 ? v.z : v.w)); }

// ozaki_crt_update with 4 consecutive rows per thread and all nmod 16-byte loads issued
// before any arithmetic. Needs ldp, slab multiples of 4, prod 16-byte aligned, rows up to
// round4(m) readable. Launch: block 256, grid (x: row groups, y: columns).
extern "C" __global__ void ozaki_crt_update4(const int *__restrict__ prod, u64 ldp, u64 slab, u64 m,
                                             u64 nb, u64 j0, OzCrt crt, const int *__restrict__ ea,
                                             const int *__restrict__ eb, const u64 *__restrict__ mua,
                                             const u64 *__restrict__ mub, double alpha, double beta,
                                             double *__restrict__ c, u64 ldc, int mode,
                                             double *__restrict__ out_hi, double *__restrict__ out_lo,
                                             const double *__restrict__ a, u64 asv, u64 ast,
                                             const double *__restrict__ b, u64 bsv, u64 bst, u64 k) {
    const int nmod = crt.nmod;
    for (u64 jj = blockIdx.y; jj < nb; jj += gridDim.y) {
        u64 j = j0 + jj;
        bool badj = oz_bad(mub[j]);
        int ebj = eb[j];
        for (u64 i0 = 4 * ((u64)blockIdx.x * blockDim.x + threadIdx.x); i0 < m;
             i0 += 4 * (u64)blockDim.x * gridDim.x) {
            u64 pidx = i0 + jj * ldp;
            int4 pv[OZ_MAX_MODULI];
#pragma unroll
            for (int l = 0; l < OZ_MAX_MODULI; ++l) {
                if (l < nmod) pv[l] = *(const int4 *)(prod + (u64)l * slab + pidx);
            }
#pragma unroll
            for (int r = 0; r < 4; ++r) {
                u64 i = i0 + r;
                if (i >= m) break;
                if (mode == 0 && (badj || oz_bad(mua[i]))) {
                    double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
                    c[i + j * ldc] = oz_patch(a, asv, ast, b, bsv, bst, i, j, k, alpha, beta, cij);
                    continue;
                }
                double y[OZ_MAX_WORDS] = {0.0, 0.0, 0.0, 0.0};
#define OZ_CRT4_STEP(l, M)                                                                         \
    if (l < nmod) {                                                                                 \
        int rr = oz_comp(pv[l], r) % (int)(M);                                                      \
        if (rr < 0) rr += (int)(M);                                                                 \
        double rd = (double)rr;                                                                     \
        _Pragma("unroll") for (int w = 0; w < OZ_MAX_WORDS; ++w) y[w] = __fma_rn(rd, crt.w[w][l], y[w]); \
    }
                OZ_MODULI_LIST(OZ_CRT4_STEP)
#undef OZ_CRT4_STEP
                double t = round(y[0] * crt.p_inv + y[1] * crt.p_inv);
                double d0 = y[0] - t * crt.p[0];
                double d1 = y[1] - t * crt.p[1];
                double h, lo;
                two_sum(d0, d1, h, lo);
                Dd s = dd_make(h, lo);
                for (int w = 2; w < OZ_MAX_WORDS; ++w) {
                    if (w < crt.words) s = oz_dd_add_f64(s, y[w] - t * crt.p[w]);
                }
                s = oz_dd_ldexp(s, -(ea[i] + ebj));
                if (mode == 0) {
                    double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
                    c[i + j * ldc] = oz_update_dd(s, alpha, beta, cij);
                } else {
                    out_hi[i + j * m] = s.hi;
                    out_lo[i + j * m] = s.lo;
                }
            }
        }
    }
}

// The per-entry tail of the CRT with W words known at compile time: r_l = p_l mod m_l from
// the preloaded p, the CRT sum, reconstruction, inverse scaling, BLAS update.
template <int W, int R>
MP_DEV Dd oz3_crt_sum(const int (*p)[R], int r, const OzCrt &crt) {
    double y[W];
#pragma unroll
    for (int w = 0; w < W; ++w) y[w] = 0.0;
    const int nmod = crt.nmod;
#define OZ_CRT3_STEP(l, M)                                                                         \
    if (l < nmod) {                                                                                 \
        int rr = p[l][r] % (int)(M);                                                                \
        if (rr < 0) rr += (int)(M);                                                                 \
        double rd = (double)rr;                                                                     \
        _Pragma("unroll") for (int w = 0; w < W; ++w) y[w] = __fma_rn(rd, crt.w[w][l], y[w]);       \
    }
    OZ_MODULI_LIST(OZ_CRT3_STEP)
#undef OZ_CRT3_STEP
    double t = round(y[0] * crt.p_inv + y[1] * crt.p_inv);
    double d0 = y[0] - t * crt.p[0];
    double d1 = y[1] - t * crt.p[1];
    double h, lo;
    two_sum(d0, d1, h, lo);
    Dd s = dd_make(h, lo);
#pragma unroll
    for (int w = 2; w < W; ++w) s = oz_dd_add_f64(s, y[w] - t * crt.p[w]);
    return s;
}

// R consecutive rows per thread (R = 1 or 2), every load issued before any arithmetic.
template <int R>
MP_DEV void oz3_crt_body(const int *__restrict__ prod, u64 ldp, u64 slab, u64 m,
                                             u64 nb, u64 j0, const OzCrt &crt, const int *__restrict__ ea,
                                             const int *__restrict__ eb, const u64 *__restrict__ mua,
                                             const u64 *__restrict__ mub, double alpha, double beta,
                                             double *__restrict__ c, u64 ldc, int mode,
                                             double *__restrict__ out_hi, double *__restrict__ out_lo,
                                             const double *__restrict__ a, u64 asv, u64 ast,
                                             const double *__restrict__ b, u64 bsv, u64 bst, u64 k) {
    const int nmod = crt.nmod;
    for (u64 jj = blockIdx.y; jj < nb; jj += gridDim.y) {
        u64 j = j0 + jj;
        bool badj = oz_bad(mub[j]);
        int ebj = eb[j];
        for (u64 i0 = R * ((u64)blockIdx.x * blockDim.x + threadIdx.x); i0 < m;
             i0 += R * (u64)blockDim.x * gridDim.x) {
            u64 pidx = i0 + jj * ldp;
            int p[OZ_MAX_MODULI][R];
#pragma unroll
            for (int l = 0; l < OZ_MAX_MODULI; ++l) {
                if (l < nmod) {
                    if (R == 2) {
                        int2 v = *(const int2 *)(prod + (u64)l * slab + pidx);
                        p[l][0] = v.x;
                        p[l][R - 1] = v.y;
                    } else {
                        p[l][0] = prod[(u64)l * slab + pidx];
                    }
                }
            }
#pragma unroll
            for (int r = 0; r < R; ++r) {
                u64 i = i0 + r;
                if (i >= m) break;
                if (mode == 0 && (badj || oz_bad(mua[i]))) {
                    double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
                    c[i + j * ldc] = oz_patch(a, asv, ast, b, bsv, bst, i, j, k, alpha, beta, cij);
                    continue;
                }
                Dd s = crt.words == 2 ? oz3_crt_sum<2, R>(p, r, crt)
                     : (crt.words == 3 ? oz3_crt_sum<3, R>(p, r, crt) : oz3_crt_sum<4, R>(p, r, crt));
                s = oz_dd_ldexp(s, -(ea[i] + ebj));
                if (mode == 0) {
                    double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
                    c[i + j * ldc] = oz_update_dd(s, alpha, beta, cij);
                } else {
                    out_hi[i + j * m] = s.hi;
                    out_lo[i + j * m] = s.lo;
                }
            }
        }
    }
}

#define OZ3_CRT_KERNEL(name, R)                                                                    \
extern "C" __global__ void name(const int *__restrict__ prod, u64 ldp, u64 slab, u64 m,           \
                                             u64 nb, u64 j0, OzCrt crt, const int *__restrict__ ea, \
                                             const int *__restrict__ eb, const u64 *__restrict__ mua, \
                                             const u64 *__restrict__ mub, double alpha, double beta, \
                                             double *__restrict__ c, u64 ldc, int mode,            \
                                             double *__restrict__ out_hi, double *__restrict__ out_lo, \
                                             const double *__restrict__ a, u64 asv, u64 ast,       \
                                             const double *__restrict__ b, u64 bsv, u64 bst, u64 k) { \
    oz3_crt_body<R>(prod, ldp, slab, m, nb, j0, crt, ea, eb, mua, mub, alpha, beta, c, ldc, mode,  \
                    out_hi, out_lo, a, asv, ast, b, bsv, bst, k);                                  \
}
OZ3_CRT_KERNEL(ozaki_crt_v3, 1)
OZ3_CRT_KERNEL(ozaki_crt_v4, 2)

// ---- v5: slim registers (hi and lo + MAGIC only), the rare |y| >= 2^64 path apart ----------
template <unsigned M>
MP_DEV unsigned oz5_res(double hi, double lom) {
    const double c = (double)((1ULL << 32) % M);
    double xm = __fma_rn(hi, c, lom);  // x + MAGIC, exact
    return oz2_reduce<M>(xm - OZ_MAGIC, xm);
}
// Any integer-valued y (the general path): 3-word split below 2^96, the bit loop beyond.
template <unsigned M>
MP_DEV unsigned oz5_byte_general(double y) {
    if (mp_abs(y) >= 79228162514264337593543950336.0) {
        unsigned r = oz_big_res(y, M);
        if (y < 0.0 && r != 0) r = M - r;
        int s = 2 * (int)r >= (int)M ? (int)r - (int)M : (int)r;
        return (unsigned)s & 0xffu;
    }
    double top = 0.0;
    if (mp_abs(y) >= 18446744073709551616.0) {
        top = floor(y * 5.421010862427522e-20);
        y = __fma_rn(-top, 18446744073709551616.0, y);
    }
    double hi = floor(y * 2.3283064365386963e-10);
    double lo = __fma_rn(-hi, 4294967296.0, y);
    return oz2_res3<M>(top, hi, lo, lo + OZ_MAGIC);
}
MP_DEV double oz5_int(double xv, double mu, int e) { return mu == 0.0 ? 0.0 : rint(oz_ldexp(xv, e)); }

// 4 consecutive values of one vector -> the nmod packed 4-byte words at out + base.
MP_DEV void oz5_four(const double xv[4], double mu, int e, int nmod, signed char *__restrict__ out, u64 base, u64 slab) {
    double hi[4], lom[4];
    bool slow = false;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        double y = oz5_int(xv[j], mu, e);
        slow = slow || mp_abs(y) >= 18446744073709551616.0;
        hi[j] = floor(y * 2.3283064365386963e-10);
        lom[j] = __fma_rn(-hi[j], 4294967296.0, y) + OZ_MAGIC;
    }
    if (__any_sync(__activemask(), slow)) {
#define OZ5_SLOW_STEP(l, M)                                                                        \
    if (l < nmod) {                                                                                 \
        unsigned packed = 0;                                                                        \
        for (int j = 0; j < 4; ++j) packed |= oz5_byte_general<M>(oz5_int(xv[j], mu, e)) << (8 * j); \
        *(unsigned *)(out + (u64)(l) * slab + base) = packed;                                       \
    }
        OZ_MODULI_LIST(OZ5_SLOW_STEP)
#undef OZ5_SLOW_STEP
        return;
    }
#define OZ5_STEP(l, M)                                                                             \
    if (l < nmod) {                                                                                 \
        unsigned packed = 0;                                                                        \
        _Pragma("unroll") for (int j = 0; j < 4; ++j) packed |= oz5_res<M>(hi[j], lom[j]) << (8 * j); \
        *(unsigned *)(out + (u64)(l) * slab + base) = packed;                                       \
    }
    OZ_MODULI_LIST(OZ5_STEP)
#undef OZ5_STEP
}

extern "C" __global__ void ozaki_residues_v5(const double *__restrict__ x, u64 sv, u64 st, u64 count,
                                             u64 len, u64 countp, u64 lenp,
                                             const u64 *__restrict__ mubits, const int *__restrict__ exps,
                                             int nmod, signed char *__restrict__ out, u64 slab) {
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
            double mu = oz_mu(v < count ? mubits[v] : 0);
            int e = v < count ? exps[v] : 0;
            double xv[4];
            for (int j = 0; j < 4; ++j) xv[j] = tile[vv][4 * lane + j];
            oz5_four(xv, mu, e, nmod, out, v * lenp + t, slab);
        }
    }
}

// v6: vectors contiguous along t (st = 1), no shared memory: a warp per 128 positions of one
// vector, each lane 4 consecutive values (2 x 16-byte loads when aligned).
extern "C" __global__ void ozaki_residues_v6(const double *__restrict__ x, u64 sv, u64 st, u64 count,
                                             u64 len, u64 countp, u64 lenp,
                                             const u64 *__restrict__ mubits, const int *__restrict__ exps,
                                             int nmod, signed char *__restrict__ out, u64 slab) {
    unsigned lane = threadIdx.x % 32;
    u64 warp_id = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    u64 nwarps = (u64)gridDim.x * blockDim.x / 32;
    u64 chunks = (lenp + 127) / 128;
    bool vec2 = (sv % 2 == 0) && (((u64)x) % 16 == 0);
    for (u64 item = warp_id; item < countp * chunks; item += nwarps) {
        u64 v = item / chunks;
        u64 t = (item % chunks) * 128 + 4 * lane;
        if (t >= lenp) continue;
        double mu = oz_mu(v < count ? mubits[v] : 0);
        int e = v < count ? exps[v] : 0;
        double xv[4] = {0.0, 0.0, 0.0, 0.0};
        if (v < count) {
            const double *p = x + v * sv + t;
            if (vec2 && t + 4 <= len) {
                double2 a = *(const double2 *)p, b = *(const double2 *)(p + 2);
                xv[0] = a.x; xv[1] = a.y; xv[2] = b.x; xv[3] = b.y;
            } else {
                for (int j = 0; j < 4; ++j) xv[j] = t + j < len ? p[j] : 0.0;
            }
        }
        oz5_four(xv, mu, e, nmod, out, v * lenp + t, slab);
    }
}

// ---- v7 CRT: v3 with the residue of p + OFF_M (OFF_M = M ceil(2^31 / M) = 0 mod M) as an
// unsigned remainder: p + OFF_M is in [0, 2^32) for |p| < 2^31 - 2^18, no sign fix-up.
template <int W, int R>
MP_DEV Dd oz7_crt_sum(const int (*p)[R], int r, const OzCrt &crt) {
    double y[W];
#pragma unroll
    for (int w = 0; w < W; ++w) y[w] = 0.0;
    const int nmod = crt.nmod;
#define OZ_CRT7_STEP(l, M)                                                                         \
    if (l < nmod) {                                                                                 \
        const unsigned off = ((1u << 31) + (M) - 1) / (M) * (M);                                    \
        unsigned rr = ((unsigned)p[l][r] + off) % (unsigned)(M);                                    \
        double rd = (double)rr;                                                                     \
        _Pragma("unroll") for (int w = 0; w < W; ++w) y[w] = __fma_rn(rd, crt.w[w][l], y[w]);       \
    }
    OZ_MODULI_LIST(OZ_CRT7_STEP)
#undef OZ_CRT7_STEP
    double t = round(y[0] * crt.p_inv + y[1] * crt.p_inv);
    double d0 = y[0] - t * crt.p[0];
    double d1 = y[1] - t * crt.p[1];
    double h, lo;
    two_sum(d0, d1, h, lo);
    Dd s = dd_make(h, lo);
#pragma unroll
    for (int w = 2; w < W; ++w) s = oz_dd_add_f64(s, y[w] - t * crt.p[w]);
    return s;
}
extern "C" __global__ void ozaki_crt_v7(const int *__restrict__ prod, u64 ldp, u64 slab, u64 m,
                                        u64 nb, u64 j0, OzCrt crt, const int *__restrict__ ea,
                                        const int *__restrict__ eb, const u64 *__restrict__ mua,
                                        const u64 *__restrict__ mub, double alpha, double beta,
                                        double *__restrict__ c, u64 ldc, int mode,
                                        double *__restrict__ out_hi, double *__restrict__ out_lo,
                                        const double *__restrict__ a, u64 asv, u64 ast,
                                        const double *__restrict__ b, u64 bsv, u64 bst, u64 k) {
    const int nmod = crt.nmod;
    for (u64 jj = blockIdx.y; jj < nb; jj += gridDim.y) {
        u64 j = j0 + jj;
        bool badj = oz_bad(mub[j]);
        int ebj = eb[j];
        for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += (u64)blockDim.x * gridDim.x) {
            u64 pidx = i + jj * ldp;
            int p[OZ_MAX_MODULI][1];
#pragma unroll
            for (int l = 0; l < OZ_MAX_MODULI; ++l)
                if (l < nmod) p[l][0] = prod[(u64)l * slab + pidx];
            if (mode == 0 && (badj || oz_bad(mua[i]))) {
                double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
                c[i + j * ldc] = oz_patch(a, asv, ast, b, bsv, bst, i, j, k, alpha, beta, cij);
                continue;
            }
            Dd s = crt.words == 2 ? oz7_crt_sum<2, 1>(p, 0, crt)
                 : (crt.words == 3 ? oz7_crt_sum<3, 1>(p, 0, crt) : oz7_crt_sum<4, 1>(p, 0, crt));
            s = oz_dd_ldexp(s, -(ea[i] + ebj));
            if (mode == 0) {
                double cij = beta == 0.0 ? 0.0 : c[i + j * ldc];
                c[i + j * ldc] = oz_update_dd(s, alpha, beta, cij);
            } else {
                out_hi[i + j * m] = s.hi;
                out_lo[i + j * m] = s.lo;
            }
        }
    }
}

