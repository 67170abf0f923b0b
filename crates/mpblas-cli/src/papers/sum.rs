//! The MPRES summation paper (seed `004`, in Russian, our copy OCR'd:
//! `seeds/004_39b0f38cfe5a7d34.txt`): its accuracy datasets (Table 1), its published results
//! (Tables 1 and 2), and the ill-conditioned dot products of Ogita, Rump and Oishi that
//! `reproduce sum` adds beside them.
//!
//! # The datasets (Table 1)
//!
//! - #1: `s_0 = … = s_2046 = 10`, `s_2047 = s_2048 = 1e-18`, `s_2049 = … = s_4095 = −10`;
//!   exact sum `2e-18` (float and double return 0).
//! - #2: `s_0 = 1.0`, then `10^6` terms `1e-16`; exact `1.0000000001` (float and double
//!   return 1.0). The exact sum of the `f64` inputs is `1.0000000001 − 2.1e-27` (`fl(1e-16)` is
//!   `2.1e-33` below `1e-16`): the paper's relative errors of `6e-13` at 120 and 240 bits are
//!   not explained by the inputs' rounding.
//! - #3: the Taylor terms `x^i/i!`, `i = 0..63`, of `e^x` at `x = −4π`; the paper's exact sum
//!   is `3.48733745e-6`. That is **not** `e^{−4π} = 3.48734236e-6`: the terms are doubles with
//!   rounding errors of up to `1e-12` (the largest, `i = 12`, is `3.2e4`), and the exact sum of
//!   the rounded terms depends on how they were rounded. [`dataset3`] makes each term as C's
//!   `pow(x, i) / factorial(i)` does with a correctly rounded `pow` and factorial:
//!   `s_i = fl(fl(x^i) / fl(i!))` with `x = fl(−4π) = −4·fl(π)`, where `fl(x^i)` and `fl(i!)`
//!   are computed in quad-double (`x^i` by `i` multiplications, relative error below `2^-200`)
//!   and rounded once to the nearest `f64` through an exact accumulator, and the quotient is
//!   one IEEE `f64` division. These terms reproduce every figure the paper prints for #3: the
//!   exact sum `3.4873374480e-6` (`3.48733745e-6`), the recursive double sum `3.48733650e-6`
//!   and the recursive float sum `2.00600782e-3` (with the terms rounded to float first).
//!   Rounding the true `(−4π)^i/i!` once per term instead gives the exact sum `3.48734476e-6`,
//!   so the paper's generator was double arithmetic of this kind.
//!
//! # The dot products (Ogita, Rump, Oishi 2005)
//!
//! [`gen_dot`] is Algorithm 6.1 ("GenDot") of T. Ogita, S. M. Rump, S. Oishi, "Accurate sum and
//! dot product", SIAM J. Sci. Comput. 26(6):1955–1988, 2005: `x, y` of length `n` with
//! condition number `cond = 2·Σ|x_i·y_i| / |Σ x_i·y_i|` near a requested `c`. Half the terms
//! get random exponents in `[0, log2(c)/2]` (the first `log2(c)/2 + 1`, the last 0); the other
//! half have exponents falling linearly from `log2(c)/2` to 0 and each `y_i` is chosen so that
//! the dot product so far cancels to about `2^e_i`; then the pairs are shuffled. Random factors
//! are uniform in `(−1, 1)` as in the 2005 paper (INTLAB's later `GenDot` draws `randn`). ORO
//! compute the running dot product with an accurate dot (`Dot2`, later `DotK`); we use the
//! correctly rounded one (an exact accumulator), and the true dot and condition number are exact
//! too. The condition is "anticipated": at `n = 1000` the achieved one is typically 10-100 times
//! `c` (the top exponent level holds dozens of products near `2^b` while `|x^T y| ≈ 1/2`), so
//! tables and plots use the achieved condition.

use mpblas::Qd;
use mpblas::exact::ExactDot;
use mpblas_testdata::SplitMix64;

/// Length of dataset #2: `1.0` followed by this many `1e-16`.
pub const DATASET2_SMALL_TERMS: usize = 1_000_000;

/// A figure as the paper prints it: the result, rounded for display, and the relative error
/// `|S − S*|/|S*|` (capped at `10^0` in the paper).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Printed {
    /// The result as printed (`"3.48733745e-6"`).
    pub result: &'static str,
    /// The relative error as printed (`"3e-7"`, `"1e0"`, `"0"`).
    pub rel_error: &'static str,
    /// True where the OCR leaves the cell uncertain (a merged cell read into this row, or two
    /// readings possible); the tables mark it.
    pub uncertain: bool,
}

const fn p(result: &'static str, rel_error: &'static str) -> Option<Printed> {
    Some(Printed {
        result,
        rel_error,
        uncertain: false,
    })
}

const fn u(result: &'static str, rel_error: &'static str) -> Option<Printed> {
    Some(Printed {
        result,
        rel_error,
        uncertain: true,
    })
}

/// One dataset of Table 1 with the paper's figures.
#[derive(Clone, Copy, Debug)]
pub struct PaperDataset {
    /// `1`, `2`, `3`.
    pub id: usize,
    /// What the terms are.
    pub description: &'static str,
    /// The MPFR (4096-bit) sum the paper prints.
    pub exact: &'static str,
    /// Float (recursive) result and error.
    pub float: Printed,
    /// Double (recursive) result and error.
    pub double: Printed,
}

/// Table 1. The paper names no summation order for float and double; a plain loop is the
/// recursive order, and our recursive rows reproduce every figure.
pub const TABLE1: [PaperDataset; 3] = [
    PaperDataset {
        id: 1,
        description: "s0..s2046 = 10, s2047 = s2048 = 1e-18, s2049..s4095 = -10",
        exact: "2e-18",
        float: Printed {
            result: "0",
            rel_error: "1e0",
            uncertain: false,
        },
        double: Printed {
            result: "0",
            rel_error: "1e0",
            uncertain: false,
        },
    },
    PaperDataset {
        id: 2,
        description: "s0 = 1.0, s1..s1000000 = 1e-16",
        exact: "1.0000000001",
        float: Printed {
            result: "1.0",
            rel_error: "1e-10",
            uncertain: false,
        },
        double: Printed {
            result: "1.0",
            rel_error: "1e-10",
            uncertain: false,
        },
    },
    PaperDataset {
        id: 3,
        description: "si = x^i/i!, x = -4pi, i = 0..63 (Taylor series of e^x)",
        exact: "3.48733745e-6",
        float: Printed {
            result: "2.00600782e-3",
            rel_error: "1e0",
            uncertain: false,
        },
        double: Printed {
            result: "3.48733650e-6",
            rel_error: "3e-7",
            uncertain: false,
        },
    },
];

/// One precision of Table 2: MPRES's results per order (Reduce1, Reduce2, Reduce3) and dataset.
#[derive(Clone, Copy, Debug)]
pub struct PaperPrecision {
    /// Precision in bits.
    pub bits: u32,
    /// Moduli MPRES used (its moduli are smaller than ours: about 15 bits against 31).
    pub moduli: usize,
    /// `cells[order][dataset − 1]`, order 0 = Reduce1 (recursive), 1 = Reduce2 (pairwise),
    /// 2 = Reduce3 (blocked); `None` where the OCR gives no reading.
    pub cells: [[Option<Printed>; 3]; 3],
}

/// Table 2, as far as the OCR lets us read it. Cells the table merges over several orders
/// (one value for Reduce1-3) are repeated in each row; the uncertain ones are marked:
/// at 30 bits the #3 value of Reduce2 is either Reduce1's `1.24597778e-5` or Reduce3's
/// `1.31716952e-5` (the OCR reads "Reduce 2 Reduce 3 1.31716952e-5" on one line), and at 120
/// bits Reduce2's #3 cell is read as merged with Reduce1's.
pub const TABLE2: [PaperPrecision; 4] = [
    PaperPrecision {
        bits: 30,
        moduli: 4,
        cells: [
            [p("0", "1e0"), p("1.0", "1e-10"), p("1.24597778e-5", "1e0")],
            [
                p("0", "1e0"),
                p("1.0", "1e-10"),
                u("1.245e-5|1.317e-5", "1e0"),
            ],
            [p("0", "1e0"), p("1.0", "1e-10"), p("1.31716952e-5", "1e0")],
        ],
    },
    PaperPrecision {
        bits: 60,
        moduli: 8,
        cells: [
            [
                p("0", "1e0"),
                p("1.0000000001", "9e-13"),
                p("3.48733745e-6", "1e-17"),
            ],
            [
                p("0", "1e0"),
                p("1.0000000001", "9e-13"),
                p("3.48733745e-6", "1e-10"),
            ],
            [
                p("0", "1e0"),
                p("1.0000000001", "9e-13"),
                p("3.48733738e-6", "2e-8"),
            ],
        ],
    },
    PaperPrecision {
        bits: 120,
        moduli: 16,
        cells: [
            [
                p("2e-18", "5e-15"),
                p("1.0000000001", "6e-13"),
                p("3.48733745e-6", "0"),
            ],
            [
                p("2e-18", "0"),
                p("1.0000000001", "6e-13"),
                u("3.48733745e-6", "0"),
            ],
            [
                p("2e-18", "5e-15"),
                p("1.0000000001", "6e-13"),
                p("3.48733745e-6", "6e-27"),
            ],
        ],
    },
    PaperPrecision {
        bits: 240,
        moduli: 32,
        cells: [
            [
                p("2e-18", "0"),
                p("1.0000000001", "6e-13"),
                p("3.48733745e-6", "0"),
            ],
            [
                p("2e-18", "0"),
                p("1.0000000001", "6e-13"),
                p("3.48733745e-6", "0"),
            ],
            [
                p("2e-18", "0"),
                p("1.0000000001", "6e-13"),
                p("3.48733745e-6", "0"),
            ],
        ],
    },
];

/// The paper's cell for MPRES at `bits` (30, 60, 120, 240), order index `order` (0 recursive,
/// 1 pairwise, 2 blocked) and dataset `id` (1..=3); `None` for other precisions.
pub fn table2_cell(bits: u32, order: usize, id: usize) -> Option<Printed> {
    let prec = TABLE2.iter().find(|t| t.bits == bits)?;
    *prec.cells.get(order)?.get(id.checked_sub(1)?)?
}

/// Dataset #1: 2047 tens, two `1e-18`, 2047 minus tens (4096 terms; exact sum `2e-18`).
pub fn dataset1() -> Vec<f64> {
    let mut s = vec![10.0; 2047];
    s.extend([1e-18, 1e-18]);
    s.extend(std::iter::repeat_n(-10.0, 2047));
    s
}

/// Dataset #2: `1.0` then `small_terms` terms `1e-16` (the paper: `10^6`, exact sum
/// `1.0000000001` to the nearest double).
pub fn dataset2(small_terms: usize) -> Vec<f64> {
    let mut s = Vec::with_capacity(small_terms + 1);
    s.push(1.0);
    s.extend(std::iter::repeat_n(1e-16, small_terms));
    s
}

/// The quad-double `q` rounded once to the nearest `f64` (its words summed exactly).
fn round_qd(q: Qd) -> f64 {
    let mut acc = ExactDot::new();
    for w in q.c {
        acc.add(w);
    }
    acc.to_f64()
}

/// Dataset #3: `s_i = fl(fl(x^i) / fl(i!))`, `x = fl(−4π)`, `i = 0..63` (see the
/// [module docs](self) for why this rounding and not another).
pub fn dataset3() -> Vec<f64> {
    let x = -4.0 * std::f64::consts::PI; // −4·fl(π): exact scaling
    let mut power = Qd::from(1.0);
    let mut factorial = Qd::from(1.0);
    let mut s = Vec::with_capacity(64);
    for i in 0..64u32 {
        if i > 0 {
            power *= x;
            factorial *= f64::from(i);
        }
        s.push(round_qd(power) / round_qd(factorial));
    }
    s
}

/// The exact sum of `x` (in the long accumulator).
pub fn exact_sum(x: &[f64]) -> ExactDot {
    let mut acc = ExactDot::new();
    for &v in x {
        acc.add(v);
    }
    acc
}

/// An ill-conditioned dot product of length `n` (ORO Algorithm 6.1, see the
/// [module docs](self)): `(x, y, cond)` with `cond = 2·Σ|x_i·y_i| / |Σ x_i·y_i|` computed
/// exactly (then rounded), near the requested `c`.
///
/// # Errors
/// `n < 6` (too short for the construction) or `c < 2` or not finite.
pub fn gen_dot(
    n: usize,
    c: f64,
    rng: &mut SplitMix64,
) -> Result<(Vec<f64>, Vec<f64>, f64), String> {
    if n < 6 {
        return Err(format!("GenDot needs n >= 6 (got {n})"));
    }
    if !(c.is_finite() && c >= 2.0) {
        return Err(format!("GenDot needs a condition number >= 2 (got {c})"));
    }
    let n2 = n.div_ceil(2); // MATLAB's round(n/2)
    let b = c.log2();
    let mut x = vec![0.0; n];
    let mut y = vec![0.0; n];
    let sym = |rng: &mut SplitMix64| 2.0 * rng.uniform() - 1.0;
    let mut e: Vec<i32> = (0..n2)
        .map(|_| (rng.uniform() * b / 2.0).round() as i32)
        .collect();
    e[0] = (b / 2.0).round() as i32 + 1;
    e[n2 - 1] = 0;
    for i in 0..n2 {
        x[i] = sym(rng) * 2f64.powi(e[i]);
        y[i] = sym(rng) * 2f64.powi(e[i]);
    }
    // The running dot product x(1:i)·y(1:i), exactly.
    let mut acc = ExactDot::new();
    for i in 0..n2 {
        acc.add_product(x[i], y[i]);
    }
    let m = n - n2;
    for k in 0..m {
        // linspace(b/2, 0, m), rounded.
        let t = if m == 1 {
            0.0
        } else {
            b / 2.0 * (1.0 - k as f64 / (m - 1) as f64)
        };
        let ek = t.round() as i32;
        let i = n2 + k;
        let mut xi = sym(rng) * 2f64.powi(ek);
        while xi == 0.0 {
            xi = sym(rng) * 2f64.powi(ek);
        }
        x[i] = xi;
        y[i] = (sym(rng) * 2f64.powi(ek) - acc.to_f64()) / xi;
        acc.add_product(x[i], y[i]);
    }
    // Shuffle the pairs (Fisher-Yates; ORO sort random keys).
    for i in (1..n).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        x.swap(i, j);
        y.swap(i, j);
    }
    let cond = condition(&x, &y);
    Ok((x, y, cond))
}

/// `2·Σ|x_i·y_i| / |Σ x_i·y_i|` from exact sums (`+∞` for an exact zero dot product).
pub fn condition(x: &[f64], y: &[f64]) -> f64 {
    let (mut dot, mut abs) = (ExactDot::new(), ExactDot::new());
    for (&a, &b) in x.iter().zip(y) {
        dot.add_product(a, b);
        abs.add_product(a.abs(), b.abs());
    }
    2.0 * abs.to_f64() / dot.to_f64().abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datasets_have_the_documented_exact_sums() {
        let d1 = dataset1();
        assert_eq!(d1.len(), 4096);
        assert_eq!(
            (d1[2046], d1[2047], d1[2048], d1[2049]),
            (10.0, 1e-18, 1e-18, -10.0)
        );
        assert_eq!(exact_sum(&d1).to_f64(), 2e-18);
        let d2 = dataset2(DATASET2_SMALL_TERMS);
        assert_eq!(d2.len(), 1_000_001);
        assert_eq!(exact_sum(&d2).to_f64(), 1.0000000001);
        let d3 = dataset3();
        assert_eq!(d3.len(), 64);
        // Terms checked against rational arithmetic (Python fractions: float(X**i) /
        // float(factorial(i)) with X = Fraction(-4*math.pi)).
        assert_eq!(d3[0], 1.0);
        assert_eq!(d3[1], -12.566370614359172);
        assert_eq!(d3[2], 78.95683520871486);
        assert_eq!(d3[12], 32372.88497692043);
        assert_eq!(d3[30], 3.5697339180279326);
        assert_eq!(d3[63], -8.973967865212302e-19);
        let s3 = exact_sum(&d3).to_f64();
        assert_eq!(s3, 3.4873374480109046e-6);
        assert_eq!(
            format!("{s3:.8e}"),
            "3.48733745e-6",
            "the paper's MPFR figure"
        );
        // The paper's double figure: the recursive sum of these terms.
        let rec = d3.iter().fold(-0.0, |s, &t| s + t);
        assert_eq!(format!("{rec:.8e}"), "3.48733650e-6");
        let recf = d3.iter().fold(-0.0f32, |s, &t| s + t as f32);
        assert_eq!(format!("{recf:.8e}"), "2.00600782e-3");
    }

    #[test]
    fn the_paper_cells_are_where_the_tables_say() {
        assert_eq!(table2_cell(120, 1, 1).unwrap().rel_error, "0");
        assert_eq!(table2_cell(120, 0, 1).unwrap().rel_error, "5e-15");
        assert_eq!(table2_cell(60, 2, 3).unwrap().result, "3.48733738e-6");
        assert!(table2_cell(30, 1, 3).unwrap().uncertain);
        assert!(table2_cell(106, 0, 1).is_none());
        assert!(table2_cell(30, 0, 4).is_none() && table2_cell(30, 3, 1).is_none());
    }

    /// GenDot's condition is "anticipated", not exact: at n = 1000 the achieved one is
    /// typically 10-100 times the requested (200 samples per c: median 16-35×, 5% above 250×,
    /// a few far above when the dot product itself comes out tiny). The median of a few samples
    /// is within a factor 100, and none falls 100 times short.
    #[test]
    fn gen_dot_hits_the_requested_condition() {
        let mut rng = SplitMix64::new(7);
        for k in 1..=6 {
            let c = 10f64.powi(10 * k);
            let mut ratios = Vec::new();
            for _ in 0..7 {
                let (x, y, cond) = gen_dot(1000, c, &mut rng).unwrap();
                assert_eq!((x.len(), y.len()), (1000, 1000));
                assert!(x.iter().chain(&y).all(|v| v.is_finite()));
                assert_eq!(condition(&x, &y), cond);
                assert!(cond / c >= 1e-2, "c = {c:e}: cond = {cond:e}");
                ratios.push(cond / c);
            }
            ratios.sort_by(f64::total_cmp);
            let median = ratios[ratios.len() / 2];
            assert!((1e-2..=1e2).contains(&median), "c = {c:e}: {ratios:?}");
        }
        assert!(gen_dot(5, 1e10, &mut rng).is_err());
        assert!(gen_dot(100, f64::NAN, &mut rng).is_err());
        assert!(gen_dot(100, 1.0, &mut rng).is_err());
    }
}
