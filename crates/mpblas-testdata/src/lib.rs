//! Seeded, portable input generators shared by mpblas's tests, benchmarks and the `mpblas`
//! command's paper reproductions, so that a test, a benchmark and a reproduction that name the
//! same seed see the same numbers on every machine.
//!
//! - [`SplitMix64`]: the generator (Steele, Lea, Flood, "Fast splittable pseudorandom number
//!   generators", OOPSLA 2014), with the few derived draws the callers need.
//! - [`SplitMix64::word_below`]: full-precision lower words for double-double and quad-double
//!   values (benchmarks must not run on values whose lower words are zero: that is an easier
//!   workload than real data).
//! - [`paper_matrix`]: the Ozaki-scheme paper's test matrices `(rand − 0.5)·exp(φ·randn)`.
//!
//! Not part of the mpblas library: inputs for papers and tests live outside it.

#![warn(missing_docs)]

/// SplitMix64: 64 random bits per step from a 64-bit state; any seed is fine.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
    spare: Option<f64>,
}

impl SplitMix64 {
    /// A generator with the given seed.
    pub fn new(seed: u64) -> Self {
        SplitMix64 {
            state: seed,
            spare: None,
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (-53f64).exp2()
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// A random word to sit below `above` in a multi-word value: `|w| < ulp(above)/4` with 53
    /// random bits, never 0, or exactly 0 when `above` is 0, not finite, or too small for a
    /// normal word below it. A quarter rather than half an ulp keeps `above + w == above` also
    /// when `above` is a power of two (where the spacing just below it halves), so the words
    /// are normalised without calling a renormalisation.
    pub fn word_below(&mut self, above: f64) -> f64 {
        let quarter_ulp = quarter_ulp(above);
        if quarter_ulp == 0.0 {
            return 0.0;
        }
        // 2r + 1 − 2^52: an odd integer in (−2^52, 2^52), exact in f64, and so is the scaling.
        let r = (self.next_u64() >> 12) as i64;
        (2 * r + 1 - (1_i64 << 52)) as f64 * (-52f64).exp2() * quarter_ulp
    }

    /// Uniform integer in `lo..=hi` (by reduction modulo the range: a bias below 2^-40 for the
    /// small ranges the callers use).
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi.wrapping_sub(lo) as u64).wrapping_add(1);
        if span == 0 {
            return self.next_u64() as i64;
        }
        lo.wrapping_add((self.next_u64() % span) as i64)
    }

    /// `+1.0` or `−1.0` with equal probability.
    pub fn sign(&mut self) -> f64 {
        if self.next_u64() & 1 == 0 { 1.0 } else { -1.0 }
    }

    /// A positive `f64` with binary exponent `e` (normal range) and a full random 52-bit
    /// fraction.
    pub fn f64_exp(&mut self, e: i32) -> f64 {
        let frac = self.next_u64() & ((1 << 52) - 1);
        f64::from_bits((((e + 1023) as u64) << 52) | frac)
    }

    /// Standard normal (Box–Muller; the second value of each pair is kept for the next call).
    pub fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        let r = (-2.0 * u1.ln()).sqrt();
        let t = std::f64::consts::TAU * u2;
        self.spare = Some(r * t.sin());
        r * t.cos()
    }
}

/// `ulp(x)/4` for a finite normal `x` whose quarter-ulp is a normal number, else 0.
fn quarter_ulp(x: f64) -> f64 {
    let biased = ((x.to_bits() >> 52) & 0x7ff) as i64;
    // ulp(x) = 2^(e − 52), a quarter of it 2^(e − 54); biased: biased − 54.
    if biased == 0 || biased == 0x7ff || biased - 54 < 1 {
        0.0
    } else {
        f64::from_bits(((biased - 54) as u64) << 52)
    }
}

/// The Ozaki-scheme paper's test matrix `(rand − 0.5)·exp(φ·randn)` (Nanai, Fujimoto, IPSJ
/// 2021, §5), `rows × cols` column-major, from seed `seed`. φ sets the spread of magnitudes:
/// 0.1 (about one decade), 1, 2 (many decades).
pub fn paper_matrix(rows: usize, cols: usize, phi: f64, seed: u64) -> Vec<f64> {
    let mut g = SplitMix64::new(seed);
    (0..rows * cols)
        .map(|_| {
            let u = g.uniform() - 0.5;
            u * (phi * g.normal()).exp()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_values() {
        // The first outputs for seed 0 (the published reference sequence).
        let mut g = SplitMix64::new(0);
        assert_eq!(g.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(g.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn draws_stay_in_range() {
        let mut g = SplitMix64::new(42);
        for _ in 0..10_000 {
            let u = g.uniform();
            assert!((0.0..1.0).contains(&u));
            let i = g.int(-3, 5);
            assert!((-3..=5).contains(&i));
            let x = g.f64_exp(-7);
            assert!((2f64.powi(-7)..2f64.powi(-6)).contains(&x));
            assert!(g.normal().is_finite());
        }
        // The full range does not overflow.
        let _ = g.int(i64::MIN, i64::MAX);
    }

    #[test]
    fn words_below_are_normalised_and_non_zero() {
        let mut g = SplitMix64::new(42);
        for _ in 0..100_000 {
            let hi = g.range(-4.0, 4.0);
            let lo = g.word_below(hi);
            assert!(lo != 0.0);
            assert_eq!(hi + lo, hi);
            assert!(lo.abs() < quarter_ulp(hi));
        }
        // A power of two: the spacing just below halves; the word must still round back.
        for _ in 0..10_000 {
            assert_eq!(2.0 + g.word_below(2.0), 2.0);
        }
        for x in [0.0, f64::MIN_POSITIVE, f64::INFINITY, f64::NAN] {
            assert_eq!(g.word_below(x), 0.0);
        }
    }

    #[test]
    fn paper_matrices_are_reproducible() {
        let a = paper_matrix(3, 4, 1.0, 9);
        assert_eq!(a, paper_matrix(3, 4, 1.0, 9));
        assert_ne!(a, paper_matrix(3, 4, 1.0, 10));
        assert_eq!(a.len(), 12);
    }
}
