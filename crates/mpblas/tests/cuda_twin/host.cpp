// The device twins of cuda/kernels/*.cuh compiled for the host, for tests/cuda_twin_host.rs.
//
// A shim maps the CUDA intrinsics the headers use to their exact host equivalents (the
// correctly rounded fma and sqrt of the C library, bit casts), so that a host compiler with
// contraction off (-ffp-contract=off) evaluates the headers with the same IEEE operations as
// the GPU. Protocol on stdin: u32 op, u64 n, then n elements of `inputs(op)` f64 words each
// (x's words, then y's); on stdout: n results of `words(op)` f64 words each.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define __device__
#define __forceinline__ inline
#define __constant__

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
static inline double __dsqrt_rn(double x) { return std::sqrt(x); }

#include "dd.cuh"
#include "qd.cuh"
#include "dd_func.cuh"
#include "qd_func.cuh"

// Operation codes: 0..4 dd add sub mul div sqrt, 10..14 the same for qd; 20..23 dd exp ln sin
// cos, 30..33 the same for qd (unary).
static int words_of(uint32_t op) { return (op < 10 || (op >= 20 && op < 30)) ? 2 : 4; }
static int inputs_of(uint32_t op) { return (op >= 20 || op % 10 == 4) ? 1 : 2; }

int main() {
    uint32_t op;
    uint64_t n;
    if (std::fread(&op, sizeof op, 1, stdin) != 1 || std::fread(&n, sizeof n, 1, stdin) != 1) return 2;
    const int w = words_of(op), k = inputs_of(op);
    std::vector<double> in((size_t)n * w * k), out((size_t)n * w);
    if (std::fread(in.data(), sizeof(double), in.size(), stdin) != in.size()) return 3;
    for (uint64_t i = 0; i < n; i++) {
        const double *x = &in[(size_t)i * w * k];
        const double *y = x + w;
        double *z = &out[(size_t)i * w];
        if (op >= 20 && op < 30) {
            Dd a = dd_make(x[0], x[1]), r;
            switch (op) {
            case 20: r = dd::exp(a); break;
            case 21: r = dd::ln(a); break;
            case 22: r = dd::sin(a); break;
            case 23: r = dd::cos(a); break;
            default: return 4;
            }
            z[0] = r.hi;
            z[1] = r.lo;
        } else if (op >= 30) {
            Qd a = qd_make(x[0], x[1], x[2], x[3]), r;
            switch (op) {
            case 30: r = qd::exp(a); break;
            case 31: r = qd::ln(a); break;
            case 32: r = qd::sin(a); break;
            case 33: r = qd::cos(a); break;
            default: return 4;
            }
            for (int j = 0; j < 4; j++) z[j] = r.c[j];
        } else if (op < 10) {
            Dd a = dd_make(x[0], x[1]), b = k == 2 ? dd_make(y[0], y[1]) : a, r;
            switch (op) {
            case 0: r = dd::add_accurate(a, b); break;
            case 1: r = dd::sub(a, b); break;
            case 2: r = dd::mul_accurate(a, b); break;
            case 3: r = dd::div_accurate(a, b); break;
            case 4: r = dd::sqrt(a); break;
            default: return 4;
            }
            z[0] = r.hi;
            z[1] = r.lo;
        } else {
            Qd a = qd_make(x[0], x[1], x[2], x[3]);
            Qd b = k == 2 ? qd_make(y[0], y[1], y[2], y[3]) : a, r;
            switch (op) {
            case 10: r = qd::add_ieee(a, b); break;
            case 11: r = qd::sub(a, b); break;
            case 12: r = qd::mul_accurate(a, b); break;
            case 13: r = qd::div_accurate(a, b); break;
            case 14: r = qd::sqrt(a); break;
            case 15: r = qd::add_sloppy(a, b); break;
            case 16: r = qd::add_square_sloppy(a, b); break;
            case 17: { // a lane of the blocked order: a + b + b + a, else the steps
                const Qd t[4] = {a, b, b, a};
                qd::LaneSum l = qd::lane_empty();
                for (int j = 0; j < 4; j++) qd::lane_add(l, t[j]);
                if (!qd::lane_finish(l, r)) {
                    r = qd_make(-0.0, -0.0, -0.0, -0.0);
                    for (int j = 0; j < 4; j++) r = qd::add_sloppy(r, t[j]);
                }
                break;
            }
            case 18: { // a lane of a dot product: a·b + b·a + a·a + b·b, else the steps
                const Qd p[4] = {a, b, a, b}, q[4] = {b, a, a, b};
                qd::LaneSum l = qd::lane_empty();
                for (int j = 0; j < 4; j++) qd::lane_add_product(l, p[j], q[j]);
                if (!qd::lane_finish(l, r)) {
                    r = qd_make(-0.0, -0.0, -0.0, -0.0);
                    for (int j = 0; j < 4; j++) r = qd::add_product_sloppy(r, p[j], q[j]);
                }
                break;
            }
            case 19: { // a lane of a norm: a² + b² + b² + a², else the steps
                const Qd t[4] = {a, b, b, a};
                qd::LaneSum l = qd::lane_empty();
                for (int j = 0; j < 4; j++) qd::lane_add_square(l, t[j]);
                if (!qd::lane_finish(l, r)) {
                    r = qd_make(-0.0, -0.0, -0.0, -0.0);
                    for (int j = 0; j < 4; j++) r = qd::add_square_sloppy(r, t[j]);
                }
                break;
            }
            default: return 4;
            }
            for (int j = 0; j < 4; j++) z[j] = r.c[j];
        }
    }
    if (std::fwrite(out.data(), sizeof(double), out.size(), stdout) != out.size()) return 5;
    return 0;
}
