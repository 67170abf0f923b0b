// The RNS device code (cuda/kernels/rns.cuh) compiled for the host, for tests/rns_twin_host.rs.
//
// Runs the very kernel bodies of the GPU (rns_esi_*_at, rns_digits_at, rns_round_at,
// rns_div_at, rns_sqrt_at) element by element (and residue by residue for kernel 2), in the
// order the launches would, on arrays in the device layout. A shim maps the CUDA intrinsics the
// header uses to exact host equivalents.
//
// The fused one-thread operations of the BLAS kernels (rns_add_fused, rns_mul_fused,
// rns_fma_fused) run element by element too.
//
// Protocol on stdin (little-endian): u32 op (0 add, 1 sub, 2 mul, 3 div, 4 sqrt, 5 fused add,
// 6 fused sub, 7 fused mul, 8 fused x*y + w), u64 T, T u32 words of the packed basis table,
// u64 L, then for x (and y when op != 4, and w when op = 8): digits n*L u32, sign L u8, exp L
// i64, eval 4L u64, class L u8. On stdout: the result in the same layout.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define __device__
#define __forceinline__ inline

static inline long long __double_as_longlong(double x) {
    long long r;
    std::memcpy(&r, &x, sizeof r);
    return r;
}
static inline double __longlong_as_double(long long x) {
    double r;
    std::memcpy(&r, &x, sizeof r);
    return r;
}
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }

#include "rns.cuh"

struct Arr {
    std::vector<u32> d;
    std::vector<u8> sign;
    std::vector<i64> exp;
    std::vector<u64> eval;
    std::vector<u8> cls;
    void alloc(u64 n, u64 len) {
        d.assign(n * len, 0);
        sign.assign(len, 0);
        exp.assign(len, 0);
        eval.assign(4 * len, 0);
        cls.assign(len, 0);
    }
    RnsCView cview() const { return RnsCView{d.data(), sign.data(), exp.data(), eval.data(), cls.data()}; }
    RnsView view() { return RnsView{d.data(), sign.data(), exp.data(), eval.data(), cls.data()}; }
};

template <class T> static bool rd(std::vector<T> &v) {
    return v.empty() || std::fread(v.data(), sizeof(T), v.size(), stdin) == v.size();
}
template <class T> static bool wr(const std::vector<T> &v) {
    return v.empty() || std::fwrite(v.data(), sizeof(T), v.size(), stdout) == v.size();
}
static bool read_arr(Arr &a) { return rd(a.d) && rd(a.sign) && rd(a.exp) && rd(a.eval) && rd(a.cls); }

int main() {
    uint32_t op;
    uint64_t tlen, len;
    if (std::fread(&op, 4, 1, stdin) != 1 || std::fread(&tlen, 8, 1, stdin) != 1) return 2;
    std::vector<u32> tab(tlen);
    if (!rd(tab) || std::fread(&len, 8, 1, stdin) != 1) return 3;
    const u64 n = tab[1];
    if (n > RNS_MAX_N) return 6;
    Arr x, y, w, z;
    x.alloc(n, len);
    y.alloc(n, len);
    w.alloc(n, len);
    z.alloc(n, len);
    if (!read_arr(x)) return 4;
    if (op != 4 && !read_arr(y)) return 4;
    if (op == 8 && !read_arr(w)) return 4;
    std::vector<u32> plan(4 * len, 0);
    RnsBasis b = rns_basis(tab.data());
    switch (op) {
    case 0:
    case 1:
    case 2:
        for (u64 i = 0; i < len; i++) {
            if (op == 2) rns_esi_mul_at(tab.data(), len, x.cview(), y.cview(), z.view(), plan.data(), i);
            else rns_esi_add_at(tab.data(), len, x.cview(), y.cview(), z.view(), plan.data(), op == 1, i);
        }
        for (u64 t = 0; t < n * len; t++) {
            if (op == 2) rns_mul_digits_at(b, x.d.data(), y.d.data(), plan.data(), z.d.data(), t);
            else rns_digits_at(b, len, x.d.data(), y.d.data(), plan.data(), z.d.data(), t);
        }
        for (u64 i = 0; i < len; i++) rns_round_at(tab.data(), len, z.view(), plan.data(), i);
        break;
    case 3:
        for (u64 i = 0; i < len; i++) rns_div_at(tab.data(), len, x.cview(), y.cview(), z.view(), i);
        break;
    case 4:
        for (u64 i = 0; i < len; i++) rns_sqrt_at(tab.data(), len, x.cview(), z.view(), i);
        break;
    case 5:
    case 6:
    case 7:
    case 8:
        for (u64 i = 0; i < len; i++) {
            RnsNum a = rns_load(x.cview(), len, i), c = rns_load(y.cview(), len, i);
            const u32 *ar = x.d.data() + i * n, *cr = y.d.data() + i * n;
            u32 *out = z.d.data() + i * n;
            RnsNum r;
            if (op == 7) r = rns_mul_fused(b, a, ar, c, cr, out);
            else if (op == 8) r = rns_fma_fused(b, a, ar, c, cr, rns_load(w.cview(), len, i), w.d.data() + i * n, out);
            else r = rns_add_fused(b, a, ar, c, cr, op == 6, out);
            rns_store(z.view(), len, i, r);
        }
        break;
    default:
        return 5;
    }
    if (!(wr(z.d) && wr(z.sign) && wr(z.exp) && wr(z.eval) && wr(z.cls))) return 7;
    return 0;
}
