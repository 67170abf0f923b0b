// GENERATED from the Rust tables by the unit test trig_reduction::device_tables: do not edit.
// Regenerate with `MPBLAS_BLESS=1 cargo test -p mpblas --lib trig_reduction::device_tables`; the test
// fails whenever this file and the Rust tables differ. Doubles are stored as IEEE bit
// patterns; read them with `mp_tab`.

#ifndef MPBLAS_TRIG_REDUCTION_TABLES_CUH
#define MPBLAS_TRIG_REDUCTION_TABLES_CUH

#include "eft.cuh"

// ---- scalar constants (std::f64::consts) of the function kernels ----
#define MPF_LN_2 __longlong_as_double(0x3fe62e42fefa39efLL) // 6.931471805599453e-1
#define MPF_FRAC_1_SQRT_2 __longlong_as_double(0x3fe6a09e667f3bcdLL) // 7.071067811865476e-1
#define MPF_SQRT_2 __longlong_as_double(0x3ff6a09e667f3bcdLL) // 1.4142135623730951e0
#define MPF_FRAC_PI_4 __longlong_as_double(0x3fe921fb54442d18LL) // 7.853981633974483e-1
#define MPF_FRAC_2_PI __longlong_as_double(0x3fe45f306dc9c883LL) // 6.366197723675814e-1

// ---- trig_reduction.rs (Cody-Waite, double-double) ----
#define MPR_CODY_WAITE_LIMIT __longlong_as_double(0x4130000000000000LL) // 1.048576e6
#define MPR_CODY_WAITE_MIN_RATIO __longlong_as_double(0x3d70000000000000LL) // 9.094947017729282e-13
#define MPR_PIO2_W0 __longlong_as_double(0x3ff921fb54442d18LL) // 1.5707963267948966e0
#define MPR_PIO2_W1 __longlong_as_double(0x3c91a62633145c07LL) // 6.123233995736766e-17
#define MPR_PIO2_W2 __longlong_as_double(0xb91f1976b7ed8fbcLL) // -1.4973849048591698e-33
#define MPR_PIO2_W3 __longlong_as_double(0x35b4cf98e804177dLL) // 5.562271104316826e-50

// ---- trig_reduction.rs (Payne-Hanek) ----
#define MPR_MIN_FRAC_LIMBS 3
#define MPR_MAX_FRAC_LIMBS 29
#define MPR_GUARD 2
#define MPR_TARGET_BITS 236
#define MPR_TWO_OVER_PI_LEN 48

// TWO_OVER_PI: fraction bits of 2/pi, most significant limb first.
MP_TABLE unsigned long long MPR_TWO_OVER_PI[48] = {
    0xa2f9836e4e441529ULL,
    0xfc2757d1f534ddc0ULL,
    0xdb6295993c439041ULL,
    0xfe5163abdebbc561ULL,
    0xb7246e3a424dd2e0ULL,
    0x06492eea09d1921cULL,
    0xfe1deb1cb129a73eULL,
    0xe88235f52ebb4484ULL,
    0xe99c7026b45f7e41ULL,
    0x3991d639835339f4ULL,
    0x9c845f8bbdf9283bULL,
    0x1ff897ffde05980fULL,
    0xef2f118b5a0a6d1fULL,
    0x6d367ecf27cb09b7ULL,
    0x4f463f669e5fea2dULL,
    0x7527bac7ebe5f17bULL,
    0x3d0739f78a5292eaULL,
    0x6bfb5fb11f8d5d08ULL,
    0x56033046fc7b6babULL,
    0xf0cfbc209af4361dULL,
    0xa9e391615ee61b08ULL,
    0x6599855f14a06840ULL,
    0x8dffd8804d732731ULL,
    0x06061556ca73a8c9ULL,
    0x60e27bc08c6b47c4ULL,
    0x19c367cddce8092aULL,
    0x8359c4768b961ca6ULL,
    0xddaf44d15719053eULL,
    0xa5ff07053f7e33e8ULL,
    0x32c2de4f98327dbbULL,
    0xc33d26ef6b1e5ef8ULL,
    0x9f3a1f35caf27f1dULL,
    0x87f121907c7c246aULL,
    0xfa6ed5772d30433bULL,
    0x15c614b59d19c3c2ULL,
    0xc4ad414d2c5d000cULL,
    0x467d862d71e39ac6ULL,
    0x9b0062337cd2b497ULL,
    0xa7b4d55537f63ed7ULL,
    0x1810a3fc764d2a9dULL,
    0x64abd770f87c6357ULL,
    0xb07ae715175649c0ULL,
    0xd9d63b3884a7cb23ULL,
    0x24778ad623545ab9ULL,
    0x1f001b0af1dfce19ULL,
    0xff319f6a1e666157ULL,
    0x9947fbacd87f7eb7ULL,
    0x652289e83260bfe6ULL,
};

// PIO2: floor(pi/2 * 2^319), little-endian limbs.
MP_TABLE unsigned long long MPR_PIO2[5] = {
    0x514a08798e3404ddULL,
    0x020bbea63b139b22ULL,
    0x29024e088a67cc74ULL,
    0xc4c6628b80dc1cd1ULL,
    0xc90fdaa22168c234ULL,
};

#endif
