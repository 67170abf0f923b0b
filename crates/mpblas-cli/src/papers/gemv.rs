//! The MPRES-BLAS GEMV paper (seed `001`): K. Isupov, V. Knyazkov, "Multiple-precision
//! matrix-vector multiplication on graphics processing units", Program Systems: Theory and
//! Applications 11(3), 2020, pp. 61-84 (MPRES-BLAS, <https://github.com/kisupov/mpres-blas>).
//! Its Table 5 times `y ← αAx + βy` and `y ← αAᵀx + βy` with `A` 1000 × 1000 on a GeForce
//! GTX 1080 at 106..1696 bits, "randomly generated floating-point numbers in the range
//! [−1, 1]" (Section 6), beside a one-thread-per-operation "basic" GEMV and GEMVs built on
//! CUMP, CAMPARY and GARPREC; [`MPRES_H100`] holds MPRES-BLAS's `mp_gemv` as this project
//! measured it on an H100 (the guide's §4).
//!
//! [`inputs`] makes the data of `reproduce gemv`: uniform in `[−1, 1]` with every one of the 53
//! significand bits random, or the same values rounded to 26 bits (what MPRES-BLAS's own
//! benchmark feeds its GEMV, and what keeps its products of two inputs exact in 52 bits).

use mpblas_testdata::SplitMix64;

/// One precision column of Table 5 (milliseconds on the GTX 1080).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Table5Column {
    /// Precision in bits (`⌊log2 √M⌋ − 1` of MPRES-BLAS's moduli).
    pub bits: u32,
    /// MPRES-BLAS's moduli count at that precision.
    pub moduli: usize,
    /// The proposed (split-kernel) GEMV, `y ← αAx + βy`.
    pub proposed_n: f64,
    /// The same with `Aᵀ`.
    pub proposed_t: f64,
    /// The basic implementation (one thread per multiple-precision operation).
    pub basic: f64,
    /// CUMP.
    pub cump: f64,
    /// CAMPARY.
    pub campary: f64,
    /// GARPREC.
    pub garprec: f64,
}

const fn col(
    bits: u32,
    moduli: usize,
    [proposed_n, proposed_t, basic, cump, campary, garprec]: [f64; 6],
) -> Table5Column {
    Table5Column {
        bits,
        moduli,
        proposed_n,
        proposed_t,
        basic,
        cump,
        campary,
        garprec,
    }
}

/// Table 5 of the paper, one entry per precision (1000 × 1000, GeForce GTX 1080).
pub const TABLE5: [Table5Column; 5] = [
    col(106, 8, [3.1, 2.9, 12.1, 20.1, 0.7, 26.5]),
    col(212, 16, [5.6, 4.6, 22.8, 20.8, 6.0, 37.4]),
    col(424, 32, [8.5, 7.1, 42.4, 26.8, 26.3, 70.2]),
    col(848, 64, [12.9, 11.2, 75.5, 56.8, 124.4, 206.0]),
    col(1696, 128, [24.6, 19.4, 150.6, 154.0, 2499.9, 689.1]),
];

/// The rows of Table 5 other than the proposed GEMV, in the paper's order
/// ([`Table5Column::others`]).
pub const OTHER_ROWS: [&str; 4] = ["Basic implementation", "CUMP", "CAMPARY", "GARPREC"];

impl Table5Column {
    /// The times of the [`OTHER_ROWS`], in their order.
    pub fn others(&self) -> [f64; 4] {
        [self.basic, self.cump, self.campary, self.garprec]
    }
}

/// The GPU of Table 5.
pub const PAPER_GPU: &str = "GeForce GTX 1080 (8 GB GDDR5X, 2560 CUDA cores, CC 6.1)";

/// The matrix size of Table 5 (M = N = LDA).
pub const PAPER_N: usize = 1000;

/// MPRES-BLAS `mp_gemv` measured on one H100 by this project (its own code, median of 10,
/// 1000 × 1000; the transpose was not recorded).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Mpres {
    /// Milliseconds.
    Ms(f64),
    /// Not measured with these inputs.
    NotMeasured,
    /// The build did not finish (1696 bits: not compiled in 5 minutes).
    DidNotBuild,
}

impl Mpres {
    /// As a table cell: `0.26`, `-`, `did not build`.
    pub fn text(self) -> String {
        match self {
            Mpres::Ms(ms) => format!("{ms}"),
            Mpres::NotMeasured => "-".into(),
            Mpres::DidNotBuild => "did not build".into(),
        }
    }

    /// As JSON: the milliseconds, or a string saying why there are none.
    pub fn json(self) -> serde_json::Value {
        match self {
            Mpres::Ms(ms) => serde_json::json!(ms),
            Mpres::NotMeasured => serde_json::json!("not measured"),
            Mpres::DidNotBuild => serde_json::json!("did not build"),
        }
    }
}

/// MPRES-BLAS on the H100 by precision: `(bits, with 26-bit inputs, with 53-bit inputs)`. At 106
/// bits every product of two full doubles needs rounding and it is 1,300 times slower.
pub const MPRES_H100: [(u32, Mpres, Mpres); 5] = [
    (106, Mpres::Ms(0.26), Mpres::Ms(352.0)),
    (212, Mpres::NotMeasured, Mpres::Ms(0.37)),
    (424, Mpres::Ms(0.57), Mpres::Ms(0.57)),
    (848, Mpres::NotMeasured, Mpres::Ms(1.82)),
    (1696, Mpres::DidNotBuild, Mpres::DidNotBuild),
];

/// MPRES-BLAS on the H100 at `bits` with inputs of `input_bits` (26 or 53) significand bits.
pub fn mpres_h100(bits: u32, input_bits: u32) -> Mpres {
    MPRES_H100
        .iter()
        .find(|r| r.0 == bits)
        .map_or(
            Mpres::NotMeasured,
            |r| if input_bits <= 26 { r.1 } else { r.2 },
        )
}

/// Table 5's column at `bits`.
pub fn table5(bits: u32) -> Option<&'static Table5Column> {
    TABLE5.iter().find(|c| c.bits == bits)
}

/// The operands of one GEMV: `A` (`n × n`, column-major), `x`, `y`, `α`, `β`.
#[derive(Clone, Debug)]
pub struct GemvInputs {
    /// Significand bits of every value (53: full; 26: rounded).
    pub bits: u32,
    /// Order of `A`.
    pub n: usize,
    /// `A`, column-major, leading dimension `n`.
    pub a: Vec<f64>,
    /// `x` (length `n`).
    pub x: Vec<f64>,
    /// `y` before the call (length `n`).
    pub y: Vec<f64>,
    /// `α`.
    pub alpha: f64,
    /// `β`.
    pub beta: f64,
}

/// Uniform in `(−1, 1)` with a full random 53-bit significand: the binade `[2^e, 2^(e+1))`,
/// `e ≤ −1`, with probability `2^(e)`, a random fraction inside it, a random sign (plain
/// `2u − 1` leaves the small values with zero low bits).
pub fn uniform_full(rng: &mut SplitMix64) -> f64 {
    // Leading zeros of 64 random bits, redrawn past 64 (probability 2^-64 per draw): the
    // exponent goes down to about −1000 at most, in the normal range.
    let mut e = -1;
    loop {
        let r = rng.next_u64();
        e -= r.leading_zeros() as i32;
        if r != 0 || e < -1000 {
            break;
        }
    }
    rng.sign() * rng.f64_exp(e.max(-1000))
}

/// `x` rounded to its leading 26 bits: the high part of Dekker's split ([`mpblas::eft::split`],
/// `2^27 + 1`), `x` rounded to nearest.
pub fn round_to_26_bits(x: f64) -> f64 {
    mpblas::eft::split(x).0
}

/// The inputs of `reproduce gemv` for order `n`: `A`, then `x`, `y`, `α`, `β` from
/// [`uniform_full`] seeded by `seed`; with `bits = 26` every value rounded to 26 bits (the
/// same draws).
pub fn inputs(n: usize, seed: u64, bits: u32) -> GemvInputs {
    let mut rng = SplitMix64::new(seed);
    let round = |v: f64| if bits < 53 { round_to_26_bits(v) } else { v };
    let mut draw =
        |k: usize| -> Vec<f64> { (0..k).map(|_| round(uniform_full(&mut rng))).collect() };
    let a = draw(n * n);
    let x = draw(n);
    let y = draw(n);
    let ab = draw(2);
    GemvInputs {
        bits: if bits < 53 { 26 } else { 53 },
        n,
        a,
        x,
        y,
        alpha: ab[0],
        beta: ab[1],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn significant_bits(x: f64) -> u32 {
        let m = (x.to_bits() & ((1 << 52) - 1)) | (1 << 52);
        53 - m.trailing_zeros()
    }

    #[test]
    fn inputs_are_uniform_with_the_asked_significands() {
        let full = inputs(60, 7, 53);
        let short = inputs(60, 7, 26);
        assert_eq!(full.a.len(), 3600);
        let all = |g: &GemvInputs| -> Vec<f64> {
            let mut v = g.a.clone();
            v.extend(&g.x);
            v.extend(&g.y);
            v.extend([g.alpha, g.beta]);
            v
        };
        let (f, s) = (all(&full), all(&short));
        assert!(f.iter().all(|v| v.abs() < 1.0 && *v != 0.0));
        // Full significands: on average 52 of 53 bits (the last is 0 half the time).
        let mean = f.iter().map(|&v| significant_bits(v) as f64).sum::<f64>() / f.len() as f64;
        assert!(mean > 51.5, "{mean}");
        assert!(s.iter().all(|&v| significant_bits(v) <= 26));
        for (a, b) in f.iter().zip(&s) {
            assert!((a - b).abs() <= a.abs() * 2f64.powi(-26), "{a} {b}");
        }
        // Small magnitudes as often as uniform gives them: about 1/8 below 1/8.
        let small = f.iter().filter(|v| v.abs() < 0.125).count() as f64 / f.len() as f64;
        assert!((small - 0.125).abs() < 0.03, "{small}");
        let neg = f.iter().filter(|v| **v < 0.0).count() as f64 / f.len() as f64;
        assert!((neg - 0.5).abs() < 0.05, "{neg}");
    }

    #[test]
    fn paper_figures() {
        assert_eq!(table5(424).map(|c| c.proposed_t), Some(7.1));
        assert_eq!(mpres_h100(106, 53), Mpres::Ms(352.0));
        assert_eq!(mpres_h100(106, 26), Mpres::Ms(0.26));
        assert_eq!(mpres_h100(1696, 26), Mpres::DidNotBuild);
        assert_eq!(mpres_h100(53, 53), Mpres::NotMeasured);
    }
}
