// Correctly rounded sums and dot products of f64 vectors on the GPU (launcher:
// blas/blas_exact_gpu.rs), the twins of sum_correctly_rounded / dot_correctly_rounded of
// blas/accurate.rs. The result is the exact sum rounded once to nearest, so it is unique: the
// same bits for any launch shape and as the CPU, whatever path each term took.
//
// Method (Collange, Defour, Graillat, Iakymchuk, "Numerical reproducibility for the parallel
// reduction on multi- and many-core architectures", Parallel Computing 49, 2015): each thread
// keeps a floating-point expansion of three words (two for sums), fed by a cascade of TwoSums, which is exact
// as long as the error that falls out of the last word is zero; when it is not, that error is
// added to a long fixed-point accumulator of the block in shared memory. Random data almost
// never spills, so the cost is about twenty flops a term and the kernel runs at the speed of
// memory; adversarial data spills more and stays exact. Terms the expansion cannot take
// exactly go straight to the accumulator as integers: NaN and infinities (flags), sums terms of
// magnitude ≥ 2^990 (which could overflow a word), and products outside [2^-968, 2^990) (whose
// TwoProd error would under- or overflow). At the end each thread adds its words to the
// accumulator; the block normalises it and writes it out; one block adds the blocks'
// accumulators, rounds to nearest even and applies IEEE's special values.
//
// The accumulator: limb k (an int64 holding a signed 32-bit digit plus carries) weighs
// 2^(32k + EMIN), EMIN = -2148 (the last bit of a product of two subnormals), LIMBS limbs reach
// past 2^2112 (a product near 2^2048 times 2^64 terms). A limb takes at most one digit (< 2^32)
// per term and word, and the launcher keeps a block's terms under 2^30, so no limb overflows.

#include "eft.cuh"

typedef unsigned long long u64;
typedef long long i64;

#define EXACT_EMIN (-2148)
#define EXACT_LIMBS 136
// A block's record: its limbs, then its flags.
#define EXACT_RECORD (EXACT_LIMBS + 1)

// Flags of what IEEE makes of the terms (accurate.rs `Specials`).
#define EXACT_NAN 1
#define EXACT_POS_INF 2
#define EXACT_NEG_INF 4
#define EXACT_NOT_ALL_NEG_ZERO 8

#define EXACT_SUM_FAST_MAX 0x1p990
#define EXACT_PROD_FAST_MIN 0x1p-968

struct VecArg {
    const double *w[4];
    i64 inc;
};

MP_DEV double exact_load(const VecArg &v, u64 i) { return v.w[0][(i64)i * v.inc]; }

// The significand (53 bits at most) and the exponent of its last bit of a finite x.
MP_DEV void exact_split(double x, u64 &m, int &e) {
    u64 bits = (u64)__double_as_longlong(x);
    int field = (int)((bits >> 52) & 0x7ff);
    m = bits & ((1ull << 52) - 1);
    if (field == 0) {
        e = -1074;
    } else {
        m |= 1ull << 52;
        e = field - 1075;
    }
}

// Adds ±(w2:w1:w0 as a 192-bit integer, < 2^160) · 2^(32k + EMIN) to the accumulator, one
// 32-bit digit per limb.
MP_DEV void exact_add_digits(u64 *acc, int k, bool neg, u64 w0, u64 w1, u64 w2) {
    u64 d[5] = {w0 & 0xffffffffull, w0 >> 32, w1 & 0xffffffffull, w1 >> 32, w2 & 0xffffffffull};
    for (int j = 0; j < 5; j++) {
        if (d[j] != 0) atomicAdd(&acc[k + j], neg ? (u64)(-(i64)d[j]) : d[j]);
    }
}

// acc += x, exactly (x finite).
MP_DEV void exact_deposit(u64 *acc, double x) {
    if (x == 0.0) return;
    u64 m;
    int e;
    exact_split(x, m, e);
    int p = e - EXACT_EMIN;
    int s = p & 31;
    u64 w0 = m << s;
    u64 w1 = s ? m >> (64 - s) : 0;
    exact_add_digits(acc, p >> 5, x < 0.0, w0, w1, 0);
}

// acc += a·b, exactly (a, b finite and nonzero): the 106-bit product of the significands.
MP_DEV void exact_deposit_product(u64 *acc, double a, double b) {
    u64 ma, mb;
    int ea, eb;
    exact_split(a, ma, ea);
    exact_split(b, mb, eb);
    u64 lo = ma * mb;
    u64 hi = __umul64hi(ma, mb);
    int p = ea + eb - EXACT_EMIN;
    int s = p & 31;
    u64 w0 = lo << s;
    u64 w1 = s ? (hi << s) | (lo >> (64 - s)) : hi;
    u64 w2 = s ? hi >> (64 - s) : 0;
    exact_add_digits(acc, p >> 5, (a < 0.0) != (b < 0.0), w0, w1, w2);
}

// The three-word expansion of a thread: t enters at word `level` (0 or 1) and its error
// cascades down; what falls out of the last word spills into the accumulator.
struct Expansion {
    double s0, s1, s2;
};

MP_DEV void exact_add_at0(Expansion &x, double t, u64 *acc) {
    double e1, e2, e3;
    two_sum(x.s0, t, x.s0, e1);
    two_sum(x.s1, e1, x.s1, e2);
    two_sum(x.s2, e2, x.s2, e3);
    if (e3 != 0.0) exact_deposit(acc, e3);
}

MP_DEV void exact_add_at1(Expansion &x, double t, u64 *acc) {
    double e2, e3;
    two_sum(x.s1, t, x.s1, e2);
    two_sum(x.s2, e2, x.s2, e3);
    if (e3 != 0.0) exact_deposit(acc, e3);
}

// A sum's terms use two words only (their exact sums rarely need more than 106 bits, and each
// word saved is six flops a term): t enters at word 0, what falls out of word 1 spills.
MP_DEV void exact_add_two_words(Expansion &x, double t, u64 *acc) {
    double e1, e2;
    two_sum(x.s0, t, x.s0, e1);
    two_sum(x.s1, e1, x.s1, e2);
    if (e2 != 0.0) exact_deposit(acc, e2);
}

// Sum term x: the expansion if it is safe, else the flags or the accumulator.
MP_DEV void exact_sum_term(Expansion &ex, double x, u64 *acc, int &flags) {
    if (mp_abs(x) < EXACT_SUM_FAST_MAX) {
        exact_add_two_words(ex, x, acc);
        if ((u64)__double_as_longlong(x) != 0x8000000000000000ull) flags |= EXACT_NOT_ALL_NEG_ZERO;
    } else {
        flags |= EXACT_NOT_ALL_NEG_ZERO;
        if (mp_is_nan(x)) {
            flags |= EXACT_NAN;
        } else if (!mp_is_finite(x)) {
            flags |= x > 0.0 ? EXACT_POS_INF : EXACT_NEG_INF;
        } else {
            exact_deposit(acc, x);
        }
    }
}

// Dot term a·b: TwoProd into the expansion if exact and safe, else as accurate.rs
// `Specials::term` and the integer product.
MP_DEV void exact_dot_term(Expansion &ex, double a, double b, u64 *acc, int &flags) {
    double h = a * b;
    double ah = mp_abs(h);
    if (ah >= EXACT_PROD_FAST_MIN && ah < EXACT_SUM_FAST_MAX) {
        double r = __fma_rn(a, b, -h);
        exact_add_at0(ex, h, acc);
        exact_add_at1(ex, r, acc);
        flags |= EXACT_NOT_ALL_NEG_ZERO;
        return;
    }
    bool neg = (__double_as_longlong(a) < 0) != (__double_as_longlong(b) < 0);
    bool zero = a == 0.0 || b == 0.0;
    if (mp_is_nan(a) || mp_is_nan(b)) {
        flags |= EXACT_NAN;
    } else if (!mp_is_finite(a) || !mp_is_finite(b)) {
        flags |= zero ? EXACT_NAN : (neg ? EXACT_NEG_INF : EXACT_POS_INF);
    } else if (!zero) {
        exact_deposit_product(acc, a, b);
    }
    if (!(zero && neg)) flags |= EXACT_NOT_ALL_NEG_ZERO;
}

// Carries: limbs 0..LIMBS-2 into [0, 2^32), the last one signed.
MP_DEV void exact_normalise(i64 *a) {
    for (int k = 0; k + 1 < EXACT_LIMBS; k++) {
        i64 c = a[k] >> 32;
        a[k] -= c * 4294967296ll;
        a[k + 1] += c;
    }
}

// The shared accumulator and flags of a block, zeroed.
MP_DEV void exact_block_begin(u64 *acc, int *flags) {
    for (int k = threadIdx.x; k < EXACT_LIMBS; k += blockDim.x) acc[k] = 0;
    if (threadIdx.x == 0) *flags = 0;
    __syncthreads();
}

// Merges the expansions of a warp into its lane 0 by a shuffle tree (lane i takes lane i + o's
// words through the same TwoSum cascade, spills included), so that one thread per warp, not
// 32, adds its words to the shared accumulator: those atomics hit the same few limbs and
// serialised into a fixed cost of about 60 µs a call. The sum is exact in any order, so the
// result does not change. A partial last warp (a block size not a multiple of 32) merges
// only the lanes it has.
MP_DEV void exact_warp_merge(Expansion &ex, u64 *acc) {
    unsigned lane = threadIdx.x & 31;
    unsigned width = blockDim.x - (threadIdx.x & ~31u);
    width = width < 32 ? width : 32;
    unsigned mask = width == 32 ? 0xffffffffu : (1u << width) - 1;
    for (unsigned o = 16; o > 0; o >>= 1) {
        double t0 = __shfl_down_sync(mask, ex.s0, o);
        double t1 = __shfl_down_sync(mask, ex.s1, o);
        double t2 = __shfl_down_sync(mask, ex.s2, o);
        if (lane < o && lane + o < width) {
            exact_add_at0(ex, t0, acc);
            exact_add_at0(ex, t1, acc);
            exact_add_at0(ex, t2, acc);
        }
    }
}

// Merges the warps' words, adds them and the flags, and writes the block's record field-major
// (field k of block b at parts[k·blocks + b], so that the finishing kernel's loads of one
// field across the blocks coalesce). The limbs are written after one parallel carry step
// (limb k keeps its low 32 bits plus the carry of limb k − 1, so each lies in
// (−2^31, 2^32 + 2^31)), not fully normalised: a serial carry chain by one thread and
// scattered record loads were most of the fixed cost of a call.
MP_DEV void exact_block_end(Expansion ex, int flags, u64 *acc, int *bflags, i64 *parts) {
    exact_warp_merge(ex, acc);
    if ((threadIdx.x & 31) == 0) {
        exact_deposit(acc, ex.s0);
        exact_deposit(acc, ex.s1);
        exact_deposit(acc, ex.s2);
    }
    if (flags) atomicOr(bflags, flags);
    __syncthreads();
    const i64 *a = (const i64 *)acc;
    const u64 blocks = gridDim.x;
    for (int k = threadIdx.x; k < EXACT_LIMBS; k += blockDim.x) {
        i64 own = k + 1 < EXACT_LIMBS ? (a[k] & 0xffffffffll) : a[k];
        i64 carry = k > 0 ? (a[k - 1] >> 32) : 0;
        parts[(u64)k * blocks + blockIdx.x] = own + carry;
    }
    if (threadIdx.x == 0) parts[(u64)EXACT_LIMBS * blocks + blockIdx.x] = *bflags;
}

// Unrolled by four so that each thread has several loads in flight.
extern "C" __global__ void blas_exact_sum_part(VecArg x, u64 n, i64 *parts) {
    __shared__ u64 acc[EXACT_LIMBS];
    __shared__ int bflags;
    exact_block_begin(acc, &bflags);
    Expansion ex = {0.0, 0.0, 0.0};
    int flags = 0;
    u64 stride = (u64)gridDim.x * blockDim.x;
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        double v0 = exact_load(x, i), v1 = exact_load(x, i + stride);
        double v2 = exact_load(x, i + 2 * stride), v3 = exact_load(x, i + 3 * stride);
        exact_sum_term(ex, v0, acc, flags);
        exact_sum_term(ex, v1, acc, flags);
        exact_sum_term(ex, v2, acc, flags);
        exact_sum_term(ex, v3, acc, flags);
    }
    for (; i < n; i += stride) exact_sum_term(ex, exact_load(x, i), acc, flags);
    exact_block_end(ex, flags, acc, &bflags, parts);
}

extern "C" __global__ void blas_exact_dot_part(VecArg x, VecArg y, u64 n, i64 *parts) {
    __shared__ u64 acc[EXACT_LIMBS];
    __shared__ int bflags;
    exact_block_begin(acc, &bflags);
    Expansion ex = {0.0, 0.0, 0.0};
    int flags = 0;
    u64 stride = (u64)gridDim.x * blockDim.x;
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < n; i += 4 * stride) {
        double a0 = exact_load(x, i), a1 = exact_load(x, i + stride);
        double a2 = exact_load(x, i + 2 * stride), a3 = exact_load(x, i + 3 * stride);
        double b0 = exact_load(y, i), b1 = exact_load(y, i + stride);
        double b2 = exact_load(y, i + 2 * stride), b3 = exact_load(y, i + 3 * stride);
        exact_dot_term(ex, a0, b0, acc, flags);
        exact_dot_term(ex, a1, b1, acc, flags);
        exact_dot_term(ex, a2, b2, acc, flags);
        exact_dot_term(ex, a3, b3, acc, flags);
    }
    for (; i < n; i += stride) exact_dot_term(ex, exact_load(x, i), exact_load(y, i), acc, flags);
    exact_block_end(ex, flags, acc, &bflags, parts);
}

// The nonnegative normalised integer a (limbs in [0, 2^32)) times 2^EMIN, rounded to the
// nearest double, ties to even (subnormal results rounded once, at their own last bit).
MP_DEV double exact_round(const i64 *a) {
    int t = EXACT_LIMBS - 1;
    while (t >= 0 && a[t] == 0) t--;
    if (t < 0) return 0.0;
    u64 hi = (u64)a[t], mid = t >= 1 ? (u64)a[t - 1] : 0, lo = t >= 2 ? (u64)a[t - 2] : 0;
    int lz = __clzll((long long)hi) - 32;
    u64 top = (hi << (32 + lz)) | (mid << lz) | (lo >> (32 - lz));
    bool sticky = (lo & ((1ull << (32 - lz)) - 1)) != 0;
    for (int k = 0; k + 2 < t; k++) sticky |= a[k] != 0;
    int etop = 32 * t + 31 - lz + EXACT_EMIN;  // the exponent of top's leading bit
    int keep = etop >= -1022 ? 53 : etop + 1075;
    if (keep < 0) return 0.0;
    int drop = 64 - keep;
    u64 mant = drop == 64 ? 0 : top >> drop;
    bool half = (top >> (drop - 1)) & 1;
    bool rest = sticky || (top & ((1ull << (drop - 1)) - 1)) != 0;
    if (half && (rest || (mant & 1))) mant++;
    return scalbn((double)mant, etop - keep + 1);
}

// The blocks' records (field-major) added into one (limbs with carries, flags ORed) in shared
// memory, by the whole block: warp w takes fields w, w + warps, ...; its lanes read the
// blocks' values of a field in coalesced rows and meet by shuffles.
MP_DEV void exact_gather(const i64 *parts, u64 blocks, i64 *a, int *flags) {
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    for (int k = warp; k < EXACT_RECORD; k += warps) {
        bool limb = k < EXACT_LIMBS;
        i64 s = 0;
        for (u64 b = lane; b < blocks; b += 32) {
            i64 v = parts[(u64)k * blocks + b];
            s = limb ? s + v : (s | v);
        }
        for (int o = 16; o > 0; o >>= 1) {
            i64 t = __shfl_down_sync(0xffffffffu, s, o);
            s = limb ? s + t : (s | t);
        }
        if (lane == 0) {
            if (limb) a[k] = s; else *flags = (int)s;
        }
    }
    __syncthreads();
}

// One block (a multiple of 32 threads): adds the blocks' records, rounds, and applies the
// special values (accurate.rs `Specials::finish`).
extern "C" __global__ void blas_exact_finish_blocks(const i64 *parts, u64 blocks, u64 n, double *out) {
    __shared__ i64 a[EXACT_LIMBS];
    __shared__ int flags;
    exact_gather(parts, blocks, a, &flags);
    if (threadIdx.x != 0) return;
    if ((flags & EXACT_NAN) || ((flags & EXACT_POS_INF) && (flags & EXACT_NEG_INF))) {
        out[0] = __longlong_as_double(0x7ff8000000000000ll);
        return;
    }
    if (flags & (EXACT_POS_INF | EXACT_NEG_INF)) {
        out[0] = (flags & EXACT_POS_INF) ? __longlong_as_double(0x7ff0000000000000ll)
                                         : __longlong_as_double((long long)0xfff0000000000000ull);
        return;
    }
    exact_normalise(a);
    bool neg = a[EXACT_LIMBS - 1] < 0;
    if (neg) {
        for (int k = 0; k < EXACT_LIMBS; k++) a[k] = -a[k];
        exact_normalise(a);
    }
    bool zero = true;
    for (int k = 0; k < EXACT_LIMBS; k++) zero &= a[k] == 0;
    if (zero) {
        // IEEE's sign of an exact zero sum: −0 only when every term is −0.
        out[0] = (n > 0 && !(flags & EXACT_NOT_ALL_NEG_ZERO)) ? -0.0 : 0.0;
    } else {
        // A nonzero sum keeps its sign, also when it rounds to zero.
        double r = exact_round(a);
        out[0] = neg ? -r : r;
    }
}

// One block (a multiple of 32 threads): adds the blocks' records into one record (limbs with
// carries, flags), for a rounding on the host to an RNS precision (ExactDot::to_mpfloat).
extern "C" __global__ void blas_exact_finish_digits(const i64 *parts, u64 blocks, i64 *out) {
    __shared__ i64 a[EXACT_LIMBS];
    __shared__ int flags;
    exact_gather(parts, blocks, a, &flags);
    for (int k = threadIdx.x; k < EXACT_LIMBS; k += blockDim.x) out[k] = a[k];
    if (threadIdx.x == 0) out[EXACT_LIMBS] = flags;
}
