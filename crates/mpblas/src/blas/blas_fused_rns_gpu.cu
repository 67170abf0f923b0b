// Fused RNS GEMV on the GPU (launcher: blas_fused_rns_gpu.rs): the device twin of
// rns/accumulate.rs and blas/rns_fused.rs. y_i = RN_p(sum_j a_ij d_j + beta y_i), d = fl(alpha x):
// the sum accumulated exactly in a wider basis of the same moduli (residue by residue, in any
// order, so any launch gives the CPU's bits) and rounded once.
//
// Kernels, in launch order:
//   prep    one thread per x_j: d_j = alpha x_j (rns_mul_fused), its residues in the widest basis.
//   init    one thread per row: the beta y_i term's class and exponent, zeroed accumulators.
//   scan    min/max of the exponents low = e_a + e_d of each row's finite nonzero terms, and the
//           special values (atomics: min, max and or do not depend on the order).
//   main    the sums: a group of G lanes per term (lane g holds the moduli k = g mod G), base
//           extension of a_ij across the group (shuffles), then a_ij d_j 2^(low - L) added to
//           64-bit accumulators; each group adds its accumulators to the row's with atomics
//           (integers: the order does not matter).
//   finish  one thread per row: the beta y_i term, the rounding in the row's level basis
//           (finish_from), the bound.

#include "rns.cuh"
#include "blas_rns.cuh"

// Accumulators per lane: a group of G lanes holds a sum of at most 12 G moduli.
#define FUSED_ACC 12
#define FUSED_LEVELS 12
#define FUSED_HDR 64
#define FUSED_FULL 0xffffffffu
#define FUSED_I64_MAX ((i64)0x7fffffffffffffffll)
#define FUSED_I64_MIN (-FUSED_I64_MAX - 1)

// Row flags (scan, main): special terms, signs of zero terms, a dropped term.
#define FUSED_NAN 1u
#define FUSED_PINF 2u
#define FUSED_NINF 4u
#define FUSED_POS 8u
#define FUSED_NONZERO 16u
#define FUSED_DROPPED 32u

// The fused constants (launcher: `fused_tables`): header words 0 n, 1 k (widest level), 2 rows of
// the 2^(32q) table, 3 levels, 4 window W, 5 p, 6 ceil(log2 terms); 8.. level lengths, 20..
// level log2 M, 32.. level basis tables (device addresses, two words each); then m[k], mu[k],
// w[n] (CRT weights of the base), mi[(k - n) n], mm[k - n], 2^r mod m (32 rows of k), 2^(32q)
// mod m (rows of k).
struct FusedTab {
    u32 n, k, h, levels, w, p, lg;
    const u32 *m, *mu, *wt, *mi, *mm, *lo, *hi, *t;
};

static __device__ __forceinline__ FusedTab fused_tab(const u32 *t) {
    FusedTab f;
    f.n = t[0];
    f.k = t[1];
    f.h = t[2];
    f.levels = t[3];
    f.w = t[4];
    f.p = t[5];
    f.lg = t[6];
    f.t = t;
    f.m = t + FUSED_HDR;
    f.mu = f.m + f.k;
    f.wt = f.mu + f.k;
    f.mi = f.wt + f.n;
    f.mm = f.mi + (f.k - f.n) * f.n;
    f.lo = f.mm + (f.k - f.n);
    f.hi = f.lo + 32 * f.k;
    return f;
}

// Accumulator::window: the alignment L, the bound 2^ub on the sum and the level holding it.
struct FusedWindow {
    i64 top, l;
    u64 ub;
    u32 level, k;
};

static __device__ FusedWindow fused_window(const FusedTab &f, i64 low_min, i64 low_max) {
    i64 p2 = 2 * (i64)f.p;
    FusedWindow w;
    w.top = low_max + p2;
    i64 cut = w.top - (i64)f.w - p2;
    w.l = low_min > cut ? low_min : cut;
    w.ub = (u64)(w.top - w.l) + f.lg;
    w.level = f.levels - 1;
    for (u32 l = 0; l < f.levels; l++) {
        if ((u64)f.t[20 + l] >= w.ub + 2) {
            w.level = l;
            break;
        }
    }
    w.k = f.t[8 + w.level];
    return w;
}

// Accumulator::weight: q_t of a term.
static __device__ __forceinline__ u64 fused_weight(const FusedTab &f, i64 top, i64 low) {
    i64 delta = top - low - 2 * (i64)f.p;
    return delta > 32 ? 1ull : (1ull << (32 - delta));
}

// (hi 2^32 + lo) mod m for hi, lo < 2^62.
static __device__ __forceinline__ u32 fused_join(u64 lo, u64 hi, u32 m, u32 mu) {
    return add_mod(mul_mod(reduce62(hi, m, mu), reduce62(1ull << 32, m, mu), m, mu), reduce62(lo, m, mu), m);
}

// 2^s mod m_k for s below 32 h.
static __device__ __forceinline__ u32 fused_pow2(const FusedTab &f, u64 s, u32 k) {
    return mul_mod(f.lo[(s & 31) * f.k + k], f.hi[(s >> 5) * f.k + k], f.m[k], f.mu[k]);
}

// Accumulator::extend in one thread: the residues of a p-bit significand x in the first k moduli.
static __device__ void fused_extend(const FusedTab &f, const u32 *x, u32 *out, u32 k) {
    u32 v[RNS_MAX_N];
    u64 frac = 0;
    for (u32 i = 0; i < f.n; i++) {
        out[i] = x[i];
        v[i] = mul_mod(x[i], f.wt[i], f.m[i], f.mu[i]);
        frac += ((u64)v[i] * f.mu[i]) >> 32;
    }
    u64 kk = (frac + (1ull << 29)) >> 30;
    for (u32 l = f.n; l < k; l++) {
        const u32 *row = f.mi + (l - f.n) * f.n;
        u64 lo = 0, hi = 0;
        for (u32 i = 0; i < f.n; i++) {
            u64 t = (u64)v[i] * row[i];
            lo += t & 0xffffffffull;
            hi += t >> 32;
        }
        u32 m = f.m[l], mu = f.mu[l];
        out[l] = sub_mod(fused_join(lo, hi, m, mu), mul_mod((u32)kk, f.mm[l - f.n], m, mu), m);
    }
}

// Term::of as flags: the class of a product from its operands' classes, zeroness and sign.
static __device__ __forceinline__ u32 fused_term_flags(u8 acls, bool azero, u8 dcls, bool dzero, bool neg) {
    if (acls == 2 || dcls == 2) return FUSED_NAN;
    if (acls == 1 || dcls == 1) return (azero || dzero) ? FUSED_NAN : (neg ? FUSED_NINF : FUSED_PINF);
    if (azero || dzero) return neg ? 0u : FUSED_POS;
    return FUSED_POS | FUSED_NONZERO;
}

static __device__ __forceinline__ bool fused_is_zero(const RnsArg &a, u64 e) {
    return a.cls[e] == 0 && __longlong_as_double((long long)a.eval[2 * (a.len + e)]) == 0.0;
}

// d_j = alpha x_j and its residues in the widest basis; info = class | sign << 2 | zero << 3.
extern "C" __global__ void blas_fused_prep(const u32 *__restrict__ tab, const u32 *__restrict__ ftab, RnsArg alpha,
                                           RnsArg x, u64 n, u8 *dinfo, i64 *dexp, u32 *dw) {
    RnsBasis b = rns_basis(tab);
    FusedTab f = fused_tab(ftab);
    const u64 ea = blas_rns_at(alpha, 0, 0);
    RnsNum al = blas_rns_get(alpha, ea);
    for (u64 j = (u64)blockIdx.x * blockDim.x + threadIdx.x; j < n; j += (u64)blockDim.x * gridDim.x) {
        u32 out[RNS_MAX_N];
        u64 ex = blas_rns_at(x, j, 0);
        RnsNum d = rns_mul_fused(b, al, blas_rns_res(alpha, b.n, ea), blas_rns_get(x, ex), blas_rns_res(x, b.n, ex), out);
        bool zero = rns_num_is_zero(d);
        dinfo[j] = (u8)(d.cls | (d.neg << 2) | ((u8)zero << 3));
        dexp[j] = d.exp;
        u32 *w = dw + j * f.k;
        if (d.cls == 0 && !zero) {
            fused_extend(f, out, w, f.k);
        } else {
            for (u32 k = 0; k < f.k; k++) w[k] = 0;
        }
    }
}

// Per row: the accumulators zeroed, and the beta y_i term (when beta is not zero) as the
// starting flags and exponent range.
extern "C" __global__ void blas_fused_init(RnsArg beta, RnsArg y, u64 m, int beta_zero, u32 k, i64 *low_min,
                                           i64 *low_max, u32 *flags, u64 *q, u64 *sums) {
    const u64 eb = blas_rns_at(beta, 0, 0);
    for (u64 r = (u64)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += (u64)blockDim.x * gridDim.x) {
        i64 lmin = FUSED_I64_MAX, lmax = FUSED_I64_MIN;
        u32 fl = 0;
        if (!beta_zero) {
            u64 ey = blas_rns_at(y, r, 0);
            bool neg = (beta.sign[eb] != 0) != (y.sign[ey] != 0);
            fl = fused_term_flags(beta.cls[eb], fused_is_zero(beta, eb), y.cls[ey], fused_is_zero(y, ey), neg);
            if (fl & FUSED_NONZERO) lmin = lmax = beta.exp[eb] + y.exp[ey];
        }
        low_min[r] = lmin;
        low_max[r] = lmax;
        flags[r] = fl;
        q[r] = 0;
        for (u32 i = 0; i < k; i++) sums[(u64)i * m + r] = 0;
    }
}

// The term (r, c): its flags, and low = e_a + e_d when it is finite and nonzero.
static __device__ __forceinline__ u32 fused_scan_term(const RnsArg &a, const u8 *dinfo, const i64 *dexp, u64 r, u64 c,
                                                      i64 *low) {
    u64 e = blas_rns_at(a, r, c);
    u8 di = dinfo[c];
    bool neg = (a.sign[e] != 0) != ((di >> 2) & 1);
    u32 fl = fused_term_flags(a.cls[e], fused_is_zero(a, e), di & 3, (di >> 3) & 1, neg);
    *low = a.exp[e] + dexp[c];
    return fl;
}

// Each row's exponent range and flags. rows_in_lanes (A = op(A) stored by columns, y = A x):
// thread t takes row t mod m and the columns of chunk t / m; else a warp takes a row and a chunk,
// its lanes every 32nd column, and reduces before its atomics.
extern "C" __global__ void __launch_bounds__(256)
blas_fused_scan(RnsArg a, const u8 *__restrict__ dinfo, const i64 *__restrict__ dexp, u64 m, u64 n, int rows_in_lanes,
                u64 per, i64 *low_min, i64 *low_max, u32 *flags) {
    u64 chunks = (n + per - 1) / per;
    u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x, nt = (u64)blockDim.x * gridDim.x;
    if (rows_in_lanes) {
        for (u64 t = tid; t < m * chunks; t += nt) {
            u64 r = t % m, c0 = (t / m) * per, c1 = c0 + per < n ? c0 + per : n;
            i64 lmin = FUSED_I64_MAX, lmax = FUSED_I64_MIN;
            u32 fl = 0;
            for (u64 c = c0; c < c1; c++) {
                i64 low;
                u32 tf = fused_scan_term(a, dinfo, dexp, r, c, &low);
                fl |= tf;
                if (tf & FUSED_NONZERO) {
                    lmin = low < lmin ? low : lmin;
                    lmax = low > lmax ? low : lmax;
                }
            }
            if (fl & FUSED_NONZERO) {
                atomicMin((long long *)&low_min[r], (long long)lmin);
                atomicMax((long long *)&low_max[r], (long long)lmax);
            }
            if (fl) atomicOr(&flags[r], fl);
        }
    } else {
        u64 lane = threadIdx.x & 31, warp = tid >> 5, warps = nt >> 5;
        for (u64 t = warp; t < m * chunks; t += warps) {
            u64 r = t % m, c0 = (t / m) * per, c1 = c0 + per < n ? c0 + per : n;
            i64 lmin = FUSED_I64_MAX, lmax = FUSED_I64_MIN;
            u32 fl = 0;
            for (u64 c = c0 + lane; c < c1; c += 32) {
                i64 low;
                u32 tf = fused_scan_term(a, dinfo, dexp, r, c, &low);
                fl |= tf;
                if (tf & FUSED_NONZERO) {
                    lmin = low < lmin ? low : lmin;
                    lmax = low > lmax ? low : lmax;
                }
            }
            for (int off = 16; off > 0; off >>= 1) {
                i64 o1 = __shfl_xor_sync(FUSED_FULL, lmin, off), o2 = __shfl_xor_sync(FUSED_FULL, lmax, off);
                lmin = o1 < lmin ? o1 : lmin;
                lmax = o2 > lmax ? o2 : lmax;
                fl |= __shfl_xor_sync(FUSED_FULL, fl, off);
            }
            if (lane == 0) {
                if (fl & FUSED_NONZERO) {
                    atomicMin((long long *)&low_min[r], (long long)lmin);
                    atomicMax((long long *)&low_max[r], (long long)lmax);
                }
                if (fl) atomicOr(&flags[r], fl);
            }
        }
    }
}

// Sum over the lanes of a group of g lanes (every lane of the warp takes part).
static __device__ __forceinline__ u64 fused_group_sum(u64 v, u32 g) {
    for (u32 off = 1; off < g; off <<= 1) v += __shfl_xor_sync(FUSED_FULL, v, off);
    return v;
}

// The sums. A group of g lanes takes one term at a time; lane gl of the group holds the moduli
// k = gl + i g (i < FUSED_ACC). rows_in_lanes: the warp's 32/g groups take 32/g consecutive rows
// and the same columns (chunk of `per`); else they take one row and every (32/g)-th column of a
// chunk, and join their accumulators before the atomics. Every lane runs every shuffle: inactive
// groups carry zeros.
extern "C" __global__ void __launch_bounds__(256)
blas_fused_main(const u32 *__restrict__ ftab, RnsArg a, const u8 *__restrict__ dinfo, const i64 *__restrict__ dexp,
                const u32 *__restrict__ dw, u64 m, u64 n, int rows_in_lanes, u64 per, u32 g,
                const i64 *__restrict__ low_min, const i64 *__restrict__ low_max, u32 *flags, u64 *q, u64 *sums) {
    FusedTab f = fused_tab(ftab);
    const u32 nb = f.n, kw = f.k;
    u32 lane = threadIdx.x & 31, gl = lane % g, grp = lane / g, gpw = 32 / g;
    u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5, warps = ((u64)blockDim.x * gridDim.x) >> 5;
    u64 chunks = (n + per - 1) / per;
    u64 row_units = rows_in_lanes ? (m + gpw - 1) / gpw : m;
    for (u64 unit = warp; unit < row_units * chunks; unit += warps) {
        u64 ru = unit % row_units, c0 = (unit / row_units) * per, c1 = c0 + per < n ? c0 + per : n;
        u64 r = rows_in_lanes ? ru * gpw + grp : ru;
        u64 cstart = rows_in_lanes ? c0 : c0 + grp, cstep = rows_in_lanes ? 1 : gpw;
        u64 iters = rows_in_lanes ? c1 - c0 : (c1 - c0 + gpw - 1) / gpw;
        bool active = r < m;
        u32 fl = active ? flags[r] : 0;
        active = active && (fl & FUSED_NONZERO) && !(fl & (FUSED_NAN | FUSED_PINF | FUSED_NINF));
        FusedWindow w;
        w.top = 0;
        w.l = 0;
        w.k = nb;
        if (active) w = fused_window(f, low_min[r], low_max[r]);
        u32 er = active ? w.k - nb : 0;
        u32 emax = __reduce_max_sync(FUSED_FULL, er);
        u64 acc[FUSED_ACC];
#pragma unroll
        for (int i = 0; i < FUSED_ACC; i++) acc[i] = 0;
        u64 qsum = 0;
        bool dropped = false;
        for (u64 it = 0; it < iters; it++) {
            u64 c = cstart + it * cstep;
            bool act = active && c < c1;
            u8 di = act ? dinfo[c] : 0;
            act = act && (di & 3) == 0 && !((di >> 3) & 1);
            u64 e = act ? blas_rns_at(a, r, c) : 0;
            act = act && a.cls[e] == 0;
            i64 low = act ? a.exp[e] + dexp[c] : 0;
            bool neg = act && ((a.sign[e] != 0) != ((di >> 2) & 1));
            u32 ar[FUSED_ACC];
            u32 nz = 0;
#pragma unroll
            for (int i = 0; i < FUSED_ACC; i++) {
                u32 k = gl + i * g;
                ar[i] = (act && k < nb) ? a.d[e * nb + k] : 0;
                nz |= ar[i];
            }
            for (u32 off = 1; off < g; off <<= 1) nz |= __shfl_xor_sync(FUSED_FULL, nz, off);
            act = act && nz != 0;
            if (act && gl == 0) qsum += fused_weight(f, w.top, low);
            bool keep = act && low >= w.l;
            dropped = dropped || (act && low < w.l);
            // base extension of a_ij (Accumulator::extend across the group)
            u32 v[FUSED_ACC];
            u64 frac = 0;
#pragma unroll
            for (int i = 0; i < FUSED_ACC; i++) {
                u32 k = gl + i * g;
                v[i] = 0;
                if (keep && k < nb) {
                    v[i] = mul_mod(ar[i], f.wt[k], f.m[k], f.mu[k]);
                    frac += ((u64)v[i] * f.mu[k]) >> 32;
                }
            }
            frac = fused_group_sum(frac, g);
            u32 kk = (u32)((frac + (1ull << 29)) >> 30);
            for (u32 l = 0; l < emax; l++) {
                u64 lo = 0, hi = 0;
                if (keep && l < er) {
                    const u32 *row = f.mi + l * nb;
#pragma unroll
                    for (int i = 0; i < FUSED_ACC; i++) {
                        u32 k = gl + i * g;
                        if (k < nb) {
                            u64 t = (u64)v[i] * row[k];
                            lo += t & 0xffffffffull;
                            hi += t >> 32;
                        }
                    }
                }
                lo = fused_group_sum(lo, g);
                hi = fused_group_sum(hi, g);
                u32 kl = nb + l;
                if (keep && l < er && kl % g == gl) {
                    u32 mk = f.m[kl], muk = f.mu[kl];
                    u32 val = sub_mod(fused_join(lo, hi, mk, muk), mul_mod(kk, f.mm[l], mk, muk), mk);
                    u32 slot = kl / g;
#pragma unroll
                    for (int i = 0; i < FUSED_ACC; i++)
                        if ((u32)i == slot) ar[i] = val;
                }
            }
            if (keep) {
                u64 s = (u64)(low - w.l);
                const u32 *d = dw + c * kw;
#pragma unroll
                for (int i = 0; i < FUSED_ACC; i++) {
                    u32 k = gl + i * g;
                    if (k < w.k) {
                        u32 mk = f.m[k], muk = f.mu[k];
                        u32 t = mul_mod(mul_mod(ar[i], d[k], mk, muk), fused_pow2(f, s, k), mk, muk);
                        acc[i] += neg ? (u64)(mk - t) : (u64)t;
                    }
                }
            }
        }
        bool writer = true;
        if (!rows_in_lanes) {
            // the groups of the warp share the row: join them into group 0
            for (u32 off = g; off < 32; off <<= 1) {
#pragma unroll
                for (int i = 0; i < FUSED_ACC; i++) acc[i] += __shfl_xor_sync(FUSED_FULL, acc[i], off);
                qsum += __shfl_xor_sync(FUSED_FULL, qsum, off);
                dropped = __shfl_xor_sync(FUSED_FULL, (int)dropped, off) || dropped;
            }
            writer = grp == 0;
        }
        if (writer && active) {
#pragma unroll
            for (int i = 0; i < FUSED_ACC; i++) {
                u32 k = gl + i * g;
                if (k < w.k && acc[i] != 0) atomicAdd((unsigned long long *)&sums[(u64)k * m + r], acc[i]);
            }
            if (gl == 0) {
                if (qsum) atomicAdd((unsigned long long *)&q[r], qsum);
                if (dropped) atomicOr(&flags[r], FUSED_DROPPED);
            }
        }
    }
}

// Per row: the beta y_i term, the rounding (Accumulator::round) and the bound. bounds: two words
// per row, the f64 bits and the exponent of the ExtF bound (NaN bits: no bound).
extern "C" __global__ void blas_fused_finish(const u32 *__restrict__ tab, const u32 *__restrict__ ftab, RnsArg beta,
                                             RnsArg y, u64 m, int beta_zero, const i64 *__restrict__ low_min,
                                             const i64 *__restrict__ low_max, const u32 *__restrict__ flags,
                                             const u64 *__restrict__ q, const u64 *__restrict__ sums, u64 *bounds) {
    RnsBasis b = rns_basis(tab);
    FusedTab f = fused_tab(ftab);
    const u64 eb = blas_rns_at(beta, 0, 0);
    for (u64 r = (u64)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += (u64)blockDim.x * gridDim.x) {
        u64 ey = blas_rns_at(y, r, 0);
        u32 fl = flags[r];
        u32 s[RNS_MAX_N];
        for (u32 k = 0; k < b.n; k++) s[k] = 0;
        RnsNum res;
        bool has_bound = true;
        ExtF bound = extf_zero();
        if ((fl & FUSED_NAN) || ((fl & FUSED_PINF) && (fl & FUSED_NINF))) {
            res = rns_special(2, false);
            has_bound = false;
        } else if (fl & (FUSED_PINF | FUSED_NINF)) {
            res = rns_special(1, (fl & FUSED_NINF) != 0);
            has_bound = false;
        } else if (!(fl & FUSED_NONZERO)) {
            res = rns_special(0, !(fl & FUSED_POS));
        } else {
            FusedWindow w = fused_window(f, low_min[r], low_max[r]);
            for (u32 k = 0; k < w.k; k++) s[k] = (u32)(sums[(u64)k * m + r] % f.m[k]);
            u64 qq = q[r];
            bool dropped = (fl & FUSED_DROPPED) != 0;
            if (!beta_zero) {
                bool neg = (beta.sign[eb] != 0) != (y.sign[ey] != 0);
                u32 tf = fused_term_flags(beta.cls[eb], fused_is_zero(beta, eb), y.cls[ey], fused_is_zero(y, ey), neg);
                i64 low = beta.exp[eb] + y.exp[ey];
                if (tf & FUSED_NONZERO) {
                    qq += fused_weight(f, w.top, low);
                    if (low < w.l) {
                        dropped = true;
                    } else {
                        u32 bw[RNS_MAX_N], yw[RNS_MAX_N];
                        fused_extend(f, blas_rns_res(beta, b.n, eb), bw, w.k);
                        fused_extend(f, blas_rns_res(y, b.n, ey), yw, w.k);
                        u64 sh = (u64)(low - w.l);
                        for (u32 k = 0; k < w.k; k++) {
                            u32 mk = f.m[k], muk = f.mu[k];
                            u32 t = mul_mod(mul_mod(bw[k], yw[k], mk, muk), fused_pow2(f, sh, k), mk, muk);
                            s[k] = neg ? sub_mod(s[k], t, mk) : add_mod(s[k], t, mk);
                        }
                    }
                }
            }
            RnsBasis wide = rns_basis((const u32 *)rns_u64_at(f.t, 32 + 2 * w.level));
            int sg = sign_of(wide, s, w.ub);
            if (sg == 0) {
                for (u32 k = 0; k < w.k; k++) s[k] = 0;
                res = rns_special(0, false);
            } else {
                if (sg < 0)
                    for (u32 k = 0; k < w.k; k++) s[k] = sub_mod(0, s[k], f.m[k]);
                res = finish_from(wide, b, sg < 0, s, w.l, RNS_TAIL_ZERO, w.ub);
            }
            u128 bb = (u128)(2 * qq) + (u128)(qq >> 20) + 1 + (dropped ? ((u128)1 << 26) : 0);
            bound = extf_from_u128(bb, w.top - 32 - (i64)f.p, true);
            has_bound = res.cls == 0;
        }
        blas_rns_put(y, b.n, ey, res, s);
        bounds[2 * r] = has_bound ? (u64)__double_as_longlong(bound.f) : 0x7ff8000000000000ull;
        bounds[2 * r + 1] = (u64)bound.e;
    }
}
