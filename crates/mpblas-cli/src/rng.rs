//! A small seeded generator (SplitMix64) and full-precision random multi-word values.
//!
//! Benchmarks must not run on values whose lower words are zero: that would measure a
//! different (easier) workload than real double-double or quad-double data. Every word below
//! the leading one is a random value with its own 53-bit significand, scaled to less than a
//! quarter of the unit in the last place of the word above, so the result is normalised
//! (`c[i] == fl(c[i] + c[i+1])`) without calling the library's renormalisation. A quarter
//! rather than a half keeps this true when the word above is a power of two (where the spacing
//! just below it halves).

/// SplitMix64 (Steele, Lea, Flood 2014): one 64-bit state, passes BigCrush, reproducible.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * TWO_POW_M53
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// A random odd multiple of 2^-52 strictly inside `(-1, 1)`: 53 significant random bits
    /// (at most), never ±1 and never 0.
    fn signed_open_unit(&mut self) -> f64 {
        let r = (self.next_u64() >> 12) as i64; // 52 random bits
        // 2r + 1 − 2^52 is an odd integer in (−2^52, 2^52): exact in f64, and so is the scaling.
        (2 * r + 1 - (1_i64 << 52)) as f64 * TWO_POW_M52
    }

    /// A random word to sit below `above`: `|w| < ulp(above)/4`, 53 random bits, or 0 when
    /// `above` is 0, subnormal or too small for a normal word below it.
    pub fn word_below(&mut self, above: f64) -> f64 {
        let quarter_ulp = quarter_ulp(above);
        if quarter_ulp == 0.0 {
            0.0
        } else {
            self.signed_open_unit() * quarter_ulp
        }
    }
}

const TWO_POW_M53: f64 = 1.0 / 9_007_199_254_740_992.0;
const TWO_POW_M52: f64 = 1.0 / 4_503_599_627_370_496.0;

/// `ulp(x)/4` for a normal `x` whose quarter-ulp is a normal number, else 0.
fn quarter_ulp(x: f64) -> f64 {
    if !x.is_finite() {
        return 0.0;
    }
    let biased = ((x.to_bits() >> 52) & 0x7ff) as i64;
    // ulp(x) = 2^(e − 52), a quarter of it 2^(e − 54); with bias: biased − 54.
    let q = biased - 54;
    if biased == 0 || q < 1 {
        0.0
    } else {
        f64::from_bits((q as u64) << 52)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_below_are_normalised_and_non_zero() {
        let mut rng = SplitMix64::new(42);
        for _ in 0..100_000 {
            let hi = rng.uniform(-4.0, 4.0);
            let lo = rng.word_below(hi);
            assert!(lo != 0.0);
            assert_eq!(hi + lo, hi);
            assert!(lo.abs() < quarter_ulp(hi) * 1.0000001);
        }
        // A power of two: the spacing just below halves; the word must still round back.
        let p = 2.0_f64;
        for _ in 0..10_000 {
            let lo = rng.word_below(p);
            assert_eq!(p + lo, p);
        }
        assert_eq!(rng.word_below(0.0), 0.0);
        assert_eq!(rng.word_below(f64::MIN_POSITIVE), 0.0);
    }

    #[test]
    fn seeded_is_reproducible() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }
}
