//! Shared helpers for the MPFR oracle tests (`rug` is a dev-dependency only).
//!
//! Error measurement: the exact value of an expansion is formed in MPFR at [`EXACT_PREC`] bits
//! (enough to hold any sum of f64s exactly: exponents span at most 2^1024..2^-1074), the
//! reference result of an operation at [`REF_PREC`] bits, and the relative error is reported in
//! units of the format's unit roundoff so that it can be compared with the documented bound.
#![allow(dead_code)]

pub mod qd;

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rug::Float;

/// Holds any finite sum of f64s exactly.
pub const EXACT_PREC: u32 = 2200;
/// Precision of reference results (the guide asks for at least 2048 bits).
pub const REF_PREC: u32 = 2200;

/// The exact value of a sum of f64 words (exact: EXACT_PREC bits cover every f64 exponent).
pub fn exact(words: &[f64]) -> Float {
    let mut s = Float::with_val(EXACT_PREC, 0);
    for &w in words {
        s += w;
    }
    s
}

/// `|got − want| / |want|` in units of `unit` (e.g. 2^-106), as an f64. If `want` is zero the
/// absolute error in units is returned instead (callers choose which applies).
pub fn rel_err_units(got: &[f64], want: &Float, unit: f64) -> f64 {
    let g = exact(got);
    let diff = Float::with_val(REF_PREC, &g - want);
    if want.is_zero() {
        return (diff.abs().to_f64()) / unit;
    }
    let rel = Float::with_val(64, diff.abs() / want.clone().abs());
    rel.to_f64() / unit
}

/// Absolute error `|got − want|` as an f64.
pub fn abs_err(got: &[f64], want: &Float) -> f64 {
    let g = exact(got);
    Float::with_val(REF_PREC, &g - want).abs().to_f64()
}

/// A deterministic proptest runner with `cases` cases (fixed ChaCha seed: reproducible).
pub fn runner(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
}

/// Tracks the largest error seen and where, so a failure message shows the worst case and
/// a passing run can print how close to the bound it came. `record` takes `&self` (interior
/// mutability) because proptest's `run` wants an `Fn` closure.
pub struct Worst {
    pub name: String,
    pub bound: f64,
    state: std::cell::RefCell<(f64, String, u64)>,
}

impl Worst {
    pub fn new(name: &str, bound: f64) -> Self {
        Worst {
            name: name.into(),
            bound,
            state: Default::default(),
        }
    }
    /// Records one case; returns Err with a message if it breaks the bound (or is NaN).
    pub fn record(&self, err: f64, arg: impl FnOnce() -> String) -> Result<(), String> {
        let mut st = self.state.borrow_mut();
        st.2 += 1;
        if err.is_nan() || err > self.bound {
            return Err(format!(
                "{}: error {err} > bound {} at {}",
                self.name,
                self.bound,
                arg()
            ));
        }
        if err > st.0 {
            st.0 = err;
            st.1 = arg();
        }
        Ok(())
    }
    /// The largest error recorded so far.
    pub fn max(&self) -> f64 {
        self.state.borrow().0
    }
    /// Prints the summary line (visible with `--nocapture`, and in failure output).
    pub fn report(&self) {
        let st = self.state.borrow();
        println!(
            "{:<28} cases {:>7}  max err {:>8.3} units  bound {:>7.3}  worst at {}",
            self.name, st.2, st.0, self.bound, st.1
        );
    }
}
