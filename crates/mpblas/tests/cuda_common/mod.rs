//! Shared by the CUDA tests (`gpu_bits.rs`, `cuda_twin_host.rs`): seeded generators of
//! full-precision dd/qd values, adversarial sets, and bitwise comparison.
#![allow(dead_code)]

use mpblas::cuda::DeviceScalar;
use mpblas::{Dd, Qd, Scalar};

// ---- seeded random inputs ---------------------------------------------------------------------

/// SplitMix64 (Steele, Lea, Flood 2014): a small seeded generator.
pub struct Rng(mpblas_testdata::SplitMix64);

impl Rng {
    /// A generator seeded with `seed` (the shared SplitMix64).
    pub fn new(seed: u64) -> Self {
        Rng(mpblas_testdata::SplitMix64::new(seed))
    }
    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// Uniform in `lo..=hi`.
    pub fn int(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i32
    }
    /// One chance in `n`.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
    /// A random sign and a random full 52-bit fraction, binary exponent `e` (normal range).
    pub fn f64_exp(&mut self, e: i32) -> f64 {
        let r = self.next();
        let sign = r & (1 << 63);
        let frac = r & ((1 << 52) - 1);
        let e = e.clamp(-1022, 1023);
        f64::from_bits(sign | (((e + 1023) as u64) << 52) | frac)
    }
    /// An exponent: mostly moderate, one in eight anywhere in ±`wide`.
    pub fn exponent(&mut self, wide: i32) -> i32 {
        if self.one_in(8) {
            self.int(-wide, wide)
        } else {
            self.int(-40, 40)
        }
    }
}

/// A format with random full-precision values and CPU reference operations.
pub trait Format: DeviceScalar + Scalar<Ctx = ()> + std::ops::Neg<Output = Self> {
    /// The value of an `f64` (exact).
    fn from_f64(x: f64) -> Self {
        Self::from_f64_in(&(), x)
    }
    /// One.
    fn one() -> Self {
        Self::one_in(&())
    }
    /// The leading word.
    fn lead(&self) -> f64 {
        self.to_words()[0]
    }
    fn random(rng: &mut Rng, e: i32) -> Self;
    /// A value close to `x` (equal leading word or one ulp off, different lower words), for
    /// cancellation.
    fn near(rng: &mut Rng, x: Self) -> Self;
    fn adversarial() -> Vec<Self>;
    /// `self × b` by the format's own `× f64`.
    fn mul_f64(self, b: f64) -> Self;
    /// `self + b` by the format's own `+ f64`.
    fn add_f64(self, b: f64) -> Self;
}

impl Format for Dd {
    fn mul_f64(self, b: f64) -> Dd {
        Dd::mul_f64(self, b)
    }
    fn add_f64(self, b: f64) -> Dd {
        self + b
    }
    fn random(rng: &mut Rng, e: i32) -> Dd {
        let hi = rng.f64_exp(e);
        // |lo| in [2^(e-54), 2^(e-53)): all 53 bits significant, at most half an ulp of hi.
        let lo = rng.f64_exp(e - 54);
        Dd::new(hi, lo)
    }
    fn near(rng: &mut Rng, x: Dd) -> Dd {
        let e = exponent(x.hi);
        match rng.next() % 4 {
            0 => Dd::new(x.hi, rng.f64_exp(e - 54)),
            1 => Dd::new(x.hi, -x.lo),
            2 => Dd::new(f64::from_bits(x.hi.to_bits() + 1), rng.f64_exp(e - 54)),
            _ => Dd::new(x.hi, x.lo + rng.f64_exp(e - 100)),
        }
    }
    fn adversarial() -> Vec<Dd> {
        let p = |e: i32| 2f64.powi(e);
        let mut v: Vec<Dd> = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            3.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            p(1000),
            -p(1000),
            p(-1000),
            -p(-1000),
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            -p(-1050),
            p(-969),
        ]
        .iter()
        .map(|&x| Dd::from(x))
        .collect();
        v.extend([
            Dd::MAX,
            Dd::MIN,
            Dd::new(1.0, p(-60)),
            Dd::new(1.0, -p(-60)),
            Dd::new(-1.0, p(-80)),
            Dd::new(1.0 + p(-52), -p(-106)),
            Dd::from(1.0) / Dd::from(3.0),
            Dd::from(-2.0) / Dd::from(3.0),
            Dd::new(p(1023), p(969)),
            Dd::new(p(-1000), p(-1060)),
            Dd::new(p(511), p(457)),
            Dd::new(p(-511), -p(-570)),
            // Not normalised (|lo| is a tie at half an ulp of hi), but their sum cancels
            // exactly although the leading words do not: the `special` path for exact
            // cancellation. The twins must agree on any input, normalised or not.
            Dd {
                hi: 1.0 + p(-52),
                lo: -p(-53),
            },
            Dd {
                hi: -1.0,
                lo: -p(-53),
            },
        ]);
        v
    }
}

impl Format for Qd {
    fn mul_f64(self, b: f64) -> Qd {
        Qd::mul_f64(self, b)
    }
    fn add_f64(self, b: f64) -> Qd {
        self + b
    }
    fn random(rng: &mut Rng, e: i32) -> Qd {
        let c0 = rng.f64_exp(e);
        let c1 = rng.f64_exp(e - 54);
        let c2 = rng.f64_exp(e - 108);
        let c3 = rng.f64_exp(e - 162);
        Qd::new(c0, c1, c2, c3)
    }
    fn near(rng: &mut Rng, x: Qd) -> Qd {
        let e = exponent(x.c[0]);
        let k = (rng.next() % 4) as usize;
        let mut c = x.c;
        match k {
            0 => c[0] = f64::from_bits(c[0].to_bits() + 1),
            1 => c[1] = -c[1],
            2 => c[2] = rng.f64_exp(e - 108),
            _ => c[3] = rng.f64_exp(e - 162),
        }
        Qd::new(c[0], c[1], c[2], c[3])
    }
    fn adversarial() -> Vec<Qd> {
        let mut v: Vec<Qd> = Dd::adversarial().into_iter().map(Qd::from).collect();
        let p = |e: i32| 2f64.powi(e);
        v.extend([
            Qd::MAX,
            Qd::MIN,
            Qd::MIN_POSITIVE,
            Qd::new(1.0, p(-60), p(-120), p(-180)),
            Qd::new(1.0, p(-60), p(-120), -p(-180)),
            Qd::new(-1.0, p(-53), -p(-107), p(-161)),
            Qd::from(1.0) / Qd::from(3.0),
            Qd::from(-2.0) / Qd::from(7.0),
            Qd::new(p(1000), p(946), p(892), p(838)),
            Qd::new(p(-860), p(-914), p(-968), p(-1022)),
            Qd::new(p(-1000), p(-1054), 0.0, 0.0),
        ]);
        v
    }
}

/// The binary exponent of a finite non-zero normal `x`.
pub fn exponent(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// `n` random values; one in `near` (if non-zero) is `near(x[i])` or its negation, so that
/// `x[i] ± y[i]` cancels.
pub fn randoms<T: Format>(rng: &mut Rng, n: usize, wide: i32) -> Vec<T> {
    (0..n)
        .map(|_| {
            let e = rng.exponent(wide);
            T::random(rng, e)
        })
        .collect()
}

pub fn partners<T: Format>(rng: &mut Rng, xs: &[T], wide: i32) -> Vec<T> {
    xs.iter()
        .map(|&x| {
            if x.lead().is_finite() && x.lead() != 0.0 && rng.one_in(8) {
                let y = T::near(rng, x);
                if rng.one_in(2) { -y } else { y }
            } else {
                let e = rng.exponent(wide);
                T::random(rng, e)
            }
        })
        .collect()
}

// ---- comparison -------------------------------------------------------------------------------

pub fn same_bits(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Panics with the number of differing elements and the first one, with its inputs, unless
/// `gpu` and `cpu` agree bit for bit in every word.
pub fn assert_bits<T: DeviceScalar>(
    what: &str,
    gpu: &[T],
    cpu: &[T],
    inputs: impl Fn(usize) -> String,
) {
    assert_eq!(gpu.len(), cpu.len(), "{what}: lengths");
    let differs = |i: usize| {
        let (g, c) = (gpu[i].to_words(), cpu[i].to_words());
        (0..T::WORDS).any(|k| !same_bits(g[k], c[k]))
    };
    let bad: Vec<usize> = (0..gpu.len()).filter(|&i| differs(i)).collect();
    if let Some(&i) = bad.first() {
        panic!(
            "{what}: {} of {} elements differ; first at {i}: {}\n  gpu {:?}\n  cpu {:?}",
            bad.len(),
            gpu.len(),
            inputs(i),
            &gpu[i].to_words()[..T::WORDS],
            &cpu[i].to_words()[..T::WORDS],
        );
    }
    eprintln!("{what}: {} elements, all bits equal", gpu.len());
}

pub fn words<T: DeviceScalar>(x: T) -> String {
    format!("{:?}", &x.to_words()[..T::WORDS])
}

/// Every ordered pair of the adversarial set, as two vectors.
pub fn all_pairs<T: Format>() -> (Vec<T>, Vec<T>) {
    let a = T::adversarial();
    let xs = a.iter().flat_map(|&x| a.iter().map(move |_| x)).collect();
    let ys = a.iter().flat_map(|_| a.iter().copied()).collect();
    (xs, ys)
}
