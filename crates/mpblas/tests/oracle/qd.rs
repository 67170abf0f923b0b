//! Seeded quad-double input generation and the per-operation check loop shared by the
//! quad-double oracle tests.

use super::{Worst, exact, rel_err_units, runner};
use mpblas::Qd;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use rug::Float;
use std::cell::RefCell;

/// Unit roundoff of the quad-double format, 2^-212.
pub const U: f64 = Qd::UNIT_ROUNDOFF;
/// Random cases per operation.
pub const CASES: u32 = 10_000;

// ---- seeded input generation -----------------------------------------------------------------

/// SplitMix64, seeded by proptest's deterministic runner.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * 2f64.powi(-53)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    pub fn sign(&mut self) -> f64 {
        if self.next() & 1 == 0 { 1.0 } else { -1.0 }
    }
    /// Uniform magnitude in (-1, 1).
    pub fn uniform(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }
    /// Log-uniform magnitude 2^e·m, e in [lo, hi), random sign.
    pub fn log_uniform(&mut self, lo: i32, hi: i32) -> f64 {
        let e = lo + self.below((hi - lo) as u64) as i32;
        self.sign() * (1.0 + self.unit()) * 2f64.powi(e)
    }
    /// A valid normalised quad-double with leading word `c0`: each lower word is random in
    /// (−ulp/2, ulp/2) of the one above, sometimes with a gap of zero bits or zero.
    pub fn qd_with(&mut self, c0: f64) -> Qd {
        let mut c = [c0, 0.0, 0.0, 0.0];
        for i in 1..4 {
            let h = ulp(c[i - 1]);
            c[i] = match self.below(10) {
                0 => 0.0,
                1 => h * (self.unit() - 0.5) * 2f64.powi(-(self.below(60) as i32)),
                _ => h * (self.unit() - 0.5) * (1.0 - 2f64.powi(-20)),
            };
            if c[i] == 0.0 {
                break;
            }
        }
        Qd { c }
    }
    /// A valid quad-double of magnitude in [2^e, 2^(e+1)), random sign.
    pub fn qd_at(&mut self, e: i32) -> Qd {
        let c0 = self.sign() * (1.0 + self.unit()) * 2f64.powi(e);
        self.qd_with(c0)
    }
    /// Uniform (|x| < 2^4) or log-uniform (2^-300..2^300) leading word, half each.
    pub fn qd(&mut self) -> Qd {
        let c0 = if self.next() & 1 == 0 {
            self.uniform() * 16.0
        } else {
            self.log_uniform(-300, 300)
        };
        self.qd_with(c0)
    }
}

/// The spacing of doubles at `x` (2^(e−52)); 0 for 0.
pub fn ulp(x: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    let e = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    2f64.powi(e - 52)
}

/// The normalisation invariant of the module docs: `c[i] == fl(c[i] + c[i+1])`, zeros last.
pub fn check_normalised(x: &Qd) -> Result<(), TestCaseError> {
    if !x.is_finite() {
        return Ok(());
    }
    for i in 0..3 {
        let (a, b) = (x.c[i], x.c[i + 1]);
        if (a == 0.0 && b != 0.0) || a + b != a {
            return Err(TestCaseError::fail(format!("not normalised: {:?}", x.c)));
        }
    }
    Ok(())
}

/// Runs `CASES` seeded cases of one operation; `f` returns the inputs (for the message), the
/// computed result and the MPFR reference, or `None` to skip a case outside the domain.
pub fn check<F>(name: &str, bound: f64, f: F)
where
    F: Fn(&mut Rng) -> Option<(Vec<Qd>, Qd, Float)>,
{
    check_n(name, bound, CASES, f)
}

pub fn check_n<F>(name: &str, bound: f64, cases: u32, f: F)
where
    F: Fn(&mut Rng) -> Option<(Vec<Qd>, Qd, Float)>,
{
    let worst = RefCell::new(Worst::new(name, bound));
    let res = runner(cases).run(&any::<u64>(), |seed| {
        let mut rng = Rng(seed);
        if let Some((args, got, want)) = f(&mut rng) {
            check_normalised(&got)?;
            let err = rel_err_units(&got.c, &want, U);
            worst
                .borrow_mut()
                .record(err, || format!("{:?} -> {:?}", args, got.c))
                .map_err(TestCaseError::fail)?;
        }
        Ok(())
    });
    worst.borrow().report();
    if let Err(e) = res {
        panic!("{name}: {e}");
    }
}

pub fn ex(x: &Qd) -> Float {
    exact(&x.c)
}
