//! Mathematical constants as quad-doubles, each correctly rounded greedily: `c[0] = RN(v)`,
//! `c[1] = RN(v − c[0])`, `c[2] = RN(v − c[0] − c[1])`, `c[3] = RN(v − c[0] − c[1] − c[2])`
//! (relative error below `2^-212`, usually far below). The words were generated with MPFR at
//! 2000 bits (the leading words are the `std::f64::consts` values, which are `RN(v)`); the test `constants_are_greedy_roundings` in `tests/qd_func_vs_mpfr.rs`
//! recomputes every word with `rug` and compares them bit for bit.

use super::Qd;

impl Qd {
    /// Archimedes' constant π.
    pub const PI: Qd = Qd {
        c: [
            std::f64::consts::PI,
            1.224_646_799_147_353_2e-16,
            -2.994_769_809_718_339_7e-33,
            1.112_454_220_863_365_3e-49,
        ],
    };
    /// The full circle constant τ = 2π.
    pub const TAU: Qd = Qd {
        c: [
            std::f64::consts::TAU,
            2.449_293_598_294_706_4e-16,
            -5.989_539_619_436_679e-33,
            2.224_908_441_726_730_6e-49,
        ],
    };
    /// π/2.
    pub const FRAC_PI_2: Qd = Qd {
        c: [
            std::f64::consts::FRAC_PI_2,
            6.123_233_995_736_766e-17,
            -1.497_384_904_859_169_8e-33,
            5.562_271_104_316_826e-50,
        ],
    };
    /// π/4.
    pub const FRAC_PI_4: Qd = Qd {
        c: [
            std::f64::consts::FRAC_PI_4,
            3.061_616_997_868_383e-17,
            -7.486_924_524_295_849e-34,
            2.781_135_552_158_413e-50,
        ],
    };
    /// Euler's number e.
    pub const E: Qd = Qd {
        c: [
            std::f64::consts::E,
            1.445_646_891_729_250_2e-16,
            -2.127_717_108_038_176_8e-33,
            1.515_630_159_841_219_1e-49,
        ],
    };
    /// ln 2.
    pub const LN_2: Qd = Qd {
        c: [
            std::f64::consts::LN_2,
            2.319_046_813_846_299_6e-17,
            5.707_708_438_416_212e-34,
            -3.582_432_210_601_811_4e-50,
        ],
    };
    /// ln 10.
    pub const LN_10: Qd = Qd {
        c: [
            std::f64::consts::LN_10,
            -2.170_756_223_382_249_4e-16,
            -9.984_262_454_465_777e-33,
            -4.023_357_454_450_206e-49,
        ],
    };
    /// log₂ e = 1/ln 2.
    pub const LOG2_E: Qd = Qd {
        c: [
            std::f64::consts::LOG2_E,
            2.035_527_374_093_103_3e-17,
            -1.061_465_995_611_725_8e-33,
            -1.383_671_678_018_140_2e-50,
        ],
    };
    /// log₁₀ e = 1/ln 10.
    pub const LOG10_E: Qd = Qd {
        c: [
            std::f64::consts::LOG10_E,
            1.098_319_650_216_765e-17,
            3.717_181_233_110_959e-34,
            7.734_484_346_504_299e-51,
        ],
    };
    /// √2.
    pub const SQRT_2: Qd = Qd {
        c: [
            std::f64::consts::SQRT_2,
            -9.667_293_313_452_913e-17,
            4.138_675_308_699_413_6e-33,
            4.935_546_991_468_351e-50,
        ],
    };
    /// 1/√2.
    pub const FRAC_1_SQRT_2: Qd = Qd {
        c: [
            std::f64::consts::FRAC_1_SQRT_2,
            -4.833_646_656_726_457e-17,
            2.069_337_654_349_706_8e-33,
            2.467_773_495_734_175_5e-50,
        ],
    };
}

/// 3π/4 (for the exact cases of `atan2`), greedy words as above.
pub(super) const FRAC_3PI_4: Qd = Qd {
    c: [
        3.0 * std::f64::consts::FRAC_PI_4,
        9.184_850_993_605_148e-17,
        3.916_898_464_750_4e-33,
        -2.586_798_163_270_486_4e-49,
    ],
};

/// ln 2 as six greedy words (≈ 318 bits), for the argument reduction of `exp`:
/// `k·ln 2` must be exact to well below `2^-212` for `|k|` up to 1100.
pub(crate) const LN_2_WORDS: [f64; 6] = [
    std::f64::consts::LN_2,
    2.319_046_813_846_299_6e-17,
    5.707_708_438_416_212e-34,
    -3.582_432_210_601_811_4e-50,
    -1.352_169_675_798_863e-66,
    6.080_638_740_240_814e-83,
];
