//! Inputs for the element-wise function checks (`cuda_twin_host.rs` on the host twin,
//! `gpu_func_bits.rs` on the GPU): seeded random arguments over each function's whole domain
//! plus adversarial sets (±0, ±Inf, NaN, the overflow and underflow thresholds of `exp`,
//! logarithms near 1 and of subnormals, sines and cosines of huge arguments and of arguments
//! near multiples of π/2).
#![allow(dead_code)]

use super::cuda_common::{Format, Rng};
use mpblas::{Dd, Qd};

/// A format whose values can be built from a leading word with random full-precision lower
/// words, and which has `k·π/2` to full precision.
pub trait FuncFormat: Format + Copy {
    /// `hi` plus random lower words (each below half an ulp of the one above).
    fn with_hi(rng: &mut Rng, hi: f64) -> Self;
    /// `k·π/2` (the format's product of its `π/2` by the integer `k`).
    fn k_pio2(k: f64) -> Self;
    /// The same value with the lowest word moved by `d` ulps.
    fn nudge(self, d: i64) -> Self;
}

fn exp_of(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

impl FuncFormat for Dd {
    fn with_hi(rng: &mut Rng, hi: f64) -> Dd {
        if hi == 0.0 || !hi.is_finite() || exp_of(hi) < -960 {
            return Dd::from(hi);
        }
        Dd::new(hi, rng.f64_exp(exp_of(hi) - 54))
    }
    fn k_pio2(k: f64) -> Dd {
        Dd::FRAC_PI_2 * k
    }
    fn nudge(self, d: i64) -> Dd {
        let lo = f64::from_bits((self.lo.to_bits() as i64 + d) as u64);
        Dd { hi: self.hi, lo }
    }
}

impl FuncFormat for Qd {
    fn with_hi(rng: &mut Rng, hi: f64) -> Qd {
        if hi == 0.0 || !hi.is_finite() || exp_of(hi) < -860 {
            return Qd::from(hi);
        }
        let e = exp_of(hi);
        Qd::new(
            hi,
            rng.f64_exp(e - 54),
            rng.f64_exp(e - 108),
            rng.f64_exp(e - 162),
        )
    }
    fn k_pio2(k: f64) -> Qd {
        Qd::FRAC_PI_2 * k
    }
    fn nudge(self, d: i64) -> Qd {
        let mut c = self.c;
        c[3] = f64::from_bits((c[3].to_bits() as i64 + d) as u64);
        Qd { c }
    }
}

/// Uniform in `[lo, hi)`.
fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * ((rng.next() >> 11) as f64 / (1u64 << 53) as f64)
}

/// Special values shared by every function.
fn specials<T: FuncFormat>() -> Vec<T> {
    [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -1.0,
        f64::MAX,
        -f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
    ]
    .iter()
    .map(|&x| T::from_f64(x))
    .chain(T::adversarial())
    .collect()
}

/// Arguments for `exp`: random over the whole finite range that does not trivially overflow
/// (`|x| ≤ 750`), small ones, and the thresholds.
pub fn exp_inputs<T: FuncFormat>(rng: &mut Rng, n: usize) -> Vec<T> {
    let mut v: Vec<T> = (0..n)
        .map(|i| match i % 4 {
            0 | 1 => {
                let hi = uniform(rng, -750.0, 750.0);
                T::with_hi(rng, hi)
            }
            2 => {
                let e = rng.int(-80, 9);
                let hi = rng.f64_exp(e);
                T::with_hi(rng, hi)
            }
            _ => {
                let hi = uniform(rng, -1.0, 1.0);
                T::with_hi(rng, hi)
            }
        })
        .collect();
    v.extend(specials::<T>());
    for c in [
        709.782712893384,
        709.78271289,
        709.7827128933841,
        709.8,
        710.0,
        -708.3964185322641,
        -708.4,
        -709.0895657128241,
        -744.4400719213813,
        -745.1332191019411,
        -745.1332191019412,
        -745.13321910194,
        -745.2,
        -746.0,
        0.0625,
        -0.0625,
        0.34657359027997264,
        -0.34657359027997264,
        1e-300,
        -1e-300,
        1e-20,
        2f64.powi(-60),
    ] {
        for d in -3i64..=3 {
            let hi = f64::from_bits(c.to_bits().wrapping_add(d as u64));
            v.push(T::from_f64(hi));
            v.push(T::with_hi(rng, hi));
        }
    }
    for k in -1075..=1025 {
        // Near k·ln 2 and (k + 1/2)·ln 2, where the reduction's k changes.
        let x = T::from_f64(std::f64::consts::LN_2).mul_f64(k as f64);
        v.push(x);
        v.push(x.add_f64(std::f64::consts::LN_2 * 0.5));
    }
    v
}

/// Arguments for `ln`: positive values of every magnitude (subnormal to `MAX`), values near 1,
/// and negatives, zeros and non-finite values.
pub fn ln_inputs<T: FuncFormat>(rng: &mut Rng, n: usize) -> Vec<T> {
    let mut v: Vec<T> = (0..n)
        .map(|i| match i % 4 {
            0 | 1 => {
                let e = rng.int(-1022, 1023);
                let hi = rng.f64_exp(e).abs();
                T::with_hi(rng, hi)
            }
            2 => {
                // Near 1: 1 + δ, |δ| from 2^-60 to 2^-1.
                let d = {
                    let e = rng.int(-60, -1);
                    rng.f64_exp(e)
                };
                T::with_hi(rng, 1.0 + d)
            }
            _ => {
                let hi = uniform(rng, 0.25, 4.0);
                T::with_hi(rng, hi)
            }
        })
        .collect();
    v.extend(specials::<T>());
    // Subnormals and tiny values.
    for k in [1u64, 2, 3, 0xfffff, 1 << 40, (1 << 52) - 1] {
        v.push(T::from_f64(f64::from_bits(k)));
    }
    for e in [-1074, -1073, -1060, -1023, -1022, -1000, -969, -968] {
        v.push(T::from_f64(2f64.powi(e)));
    }
    // 1 ± tiny, exactly 1 with a lower word, and the table boundaries i/64 ± 1/128.
    for d in [-3i64, -2, -1, 1, 2, 3] {
        v.push(T::from_f64(f64::from_bits(
            (1.0f64.to_bits() as i64 + d) as u64,
        )));
    }
    v.push(T::one().add_f64(1e-30));
    v.push(T::one().add_f64(-1e-30));
    v.push(T::one().add_f64(1e-300));
    for i in -24..=30 {
        let m = 1.0 + (i as f64 + 0.5) / 64.0;
        v.push(T::from_f64(m));
        v.push(T::with_hi(rng, m));
        v.push(T::from_f64(m * 2f64.powi(500)));
    }
    v.push(T::from_f64(std::f64::consts::FRAC_1_SQRT_2));
    v.push(T::from_f64(std::f64::consts::SQRT_2));
    v.push(T::from_f64(-2.0));
    v.push(T::from_f64(std::f64::consts::E));
    v
}

/// Arguments for `sin` and `cos`: moderate, tiny and huge values (up to `f64::MAX`), values
/// near multiples of π/2 (small and large multiples, with the lower words nudged), and the
/// binary64 argument closest to a multiple of π/2.
pub fn trig_inputs<T: FuncFormat>(rng: &mut Rng, n: usize) -> Vec<T> {
    let mut v: Vec<T> = (0..n)
        .map(|i| match i % 8 {
            0..=2 => {
                let hi = uniform(rng, -10.0, 10.0);
                T::with_hi(rng, hi)
            }
            3 => {
                let hi = {
                    let e = rng.int(-40, 0);
                    rng.f64_exp(e)
                };
                T::with_hi(rng, hi)
            }
            4 | 5 => {
                let hi = {
                    let e = rng.int(1, 1023);
                    rng.f64_exp(e)
                };
                T::with_hi(rng, hi)
            }
            _ => {
                // Near k·π/2 for k up to 2^40.
                let k = (rng.next() >> rng.int(24, 63)) as f64 + 1.0;
                let x = T::k_pio2(k);
                let d = (rng.next() % 7) as i64 - 3;
                let x = x.nudge(d);
                if rng.one_in(2) { -x } else { x }
            }
        })
        .collect();
    v.extend(specials::<T>());
    for x in [
        1e22,
        -1e22,
        1e300,
        -1e300,
        f64::MAX,
        2f64.powi(1023),
        6381956970095103.0 * 2f64.powi(797),
        5.319372648326541e255,
        std::f64::consts::FRAC_PI_4,
        -std::f64::consts::FRAC_PI_4,
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::PI,
        1e-300,
        1e-8,
    ] {
        v.push(T::from_f64(x));
        v.push(T::with_hi(rng, x));
    }
    for k in 1..=400 {
        let x = T::k_pio2(k as f64);
        v.push(x);
        v.push(x.nudge(1));
        v.push(x.nudge(-1));
        v.push(T::from_f64(x.lead()));
    }
    v
}
