// The QD library's (libqd-dev) quad-double arithmetic variants side by side, one thread, n = 2^20:
// its default build's operators are the sloppy ones (QD_SLOPPY_MUL, QD_SLOPPY_DIV, no
// QD_IEEE_ADD), which carry no relative error bound under cancellation; mpblas's `+ × ÷` keep
// theirs, so the fair comparison is with QD's accurate static functions, measured here in the
// same process as the sloppy ones. Inputs as `mpblas bench`: a, b in ±[1, 2), every word random.
// Build and run: bash bench/qd-variants/run.sh
#include <qd/qd_real.h>
#include <qd/fpu.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

typedef qd_real (*BinOp)(const qd_real &, const qd_real &);

// Millions of operations per second: median of 11 passes of y[i] = f(x[i], z[i]).
static double mops(const std::vector<qd_real> &x, const std::vector<qd_real> &z,
                   std::vector<qd_real> &y, BinOp f) {
    std::vector<double> secs;
    for (int pass = 0; pass < 11; pass++) {
        auto start = std::chrono::steady_clock::now();
        for (size_t i = 0; i < x.size(); i++) y[i] = f(x[i], z[i]);
        secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(secs.begin(), secs.end());
    volatile double keep = y[x.size() / 3].x[0];
    (void)keep;
    return x.size() / secs[5] / 1e6;
}

// Values in ±[1, 2) with random lower words (each about 2^-53 of the one above).
static std::vector<qd_real> operands(std::mt19937_64 &rng, size_t n) {
    std::uniform_real_distribution<double> lead(1.0, 2.0), low(-0.5, 0.5);
    std::vector<qd_real> v(n);
    for (auto &q : v) {
        double w0 = lead(rng);
        double w1 = low(rng) * w0 * 0x1p-52, w2 = low(rng) * w0 * 0x1p-105, w3 = low(rng) * w0 * 0x1p-158;
        q = qd_real(w0, w1, w2, w3);
        if (rng() & 1) q = -q;
    }
    return v;
}

static qd_real sloppy_add(const qd_real &a, const qd_real &b) { return qd_real::sloppy_add(a, b); }
static qd_real ieee_add(const qd_real &a, const qd_real &b) { return qd_real::ieee_add(a, b); }
static qd_real sloppy_mul(const qd_real &a, const qd_real &b) { return qd_real::sloppy_mul(a, b); }
static qd_real accurate_mul(const qd_real &a, const qd_real &b) { return qd_real::accurate_mul(a, b); }
static qd_real sloppy_div(const qd_real &a, const qd_real &b) { return qd_real::sloppy_div(a, b); }
static qd_real accurate_div(const qd_real &a, const qd_real &b) { return qd_real::accurate_div(a, b); }

int main() {
    unsigned int control;
    fpu_fix_start(&control);
    const size_t n = 1 << 20;
    std::mt19937_64 rng(7);
    std::vector<qd_real> a = operands(rng, n), b = operands(rng, n), y(n);
    printf("QD qd add (sloppy, default) %.3g M/s\n", mops(a, b, y, sloppy_add));
    printf("QD qd add (ieee_add) %.3g M/s\n", mops(a, b, y, ieee_add));
    printf("QD qd mul (sloppy, default) %.3g M/s\n", mops(a, b, y, sloppy_mul));
    printf("QD qd mul (accurate_mul) %.3g M/s\n", mops(a, b, y, accurate_mul));
    printf("QD qd div (sloppy, default) %.3g M/s\n", mops(a, b, y, sloppy_div));
    printf("QD qd div (accurate_div) %.3g M/s\n", mops(a, b, y, accurate_div));
    fpu_fix_end(&control);
    return 0;
}
