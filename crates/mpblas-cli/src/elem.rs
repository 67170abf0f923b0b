//! The formats and operations the measurements run over.
//!
//! Each format hands out one monomorphic loop per operation ([`Kernel`]), so the timed code is
//! a plain slice loop with the arithmetic inlined, and the dispatch costs one indirect call per
//! chunk, not per element. An operation the library does not have yet has no kernel (`None`)
//! and is reported as "n/a (not yet implemented)" instead of failing.

use clap::ValueEnum;
use mpblas::{Dd, Qd};
use mpblas_testdata::SplitMix64;
use std::ops::{Add, Div, Mul, Sub};

/// Element-wise loop: `out[i] = a[i] op b[i]` (unary operations ignore `b`).
/// All three slices have the same length.
pub type Kernel<T> = fn(&[T], &[T], &mut [T]);

/// The operations of the paper's tables (3.6-1 and 5.2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Op {
    /// a + b
    Add,
    /// a − b
    Sub,
    /// a × b
    Mul,
    /// a ÷ b
    Div,
    /// √a
    Sqrt,
    /// exp(a)
    Exp,
    /// natural logarithm ln(a)
    Ln,
    /// sin(a)
    Sin,
}

impl Op {
    /// The four arithmetic operations of Table 3.6-1.
    pub const ARITH: [Op; 4] = [Op::Add, Op::Sub, Op::Mul, Op::Div];
    /// The functions of Table 5.2.5.
    pub const FUNCS: [Op; 4] = [Op::Sqrt, Op::Exp, Op::Ln, Op::Sin];

    /// Short name used in JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Sub => "sub",
            Op::Mul => "mul",
            Op::Div => "div",
            Op::Sqrt => "sqrt",
            Op::Exp => "exp",
            Op::Ln => "ln",
            Op::Sin => "sin",
        }
    }

    /// The symbol in the paper's tables.
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "−",
            Op::Mul => "×",
            Op::Div => "÷",
            Op::Sqrt => "√",
            Op::Exp => "exp",
            Op::Ln => "log",
            Op::Sin => "sin",
        }
    }

    /// True for the operations that read `b`.
    pub fn is_binary(self) -> bool {
        matches!(self, Op::Add | Op::Sub | Op::Mul | Op::Div)
    }

    /// Where the random arguments are drawn from, `(low, high, random sign)`.
    /// Binary operations take both operands from ±[1, 2), so `−` and `+` see cancellation
    /// half of the time and `÷` never divides by a tiny number. The functions take arguments
    /// where they are defined and need little or moderate argument reduction.
    pub fn input_range(self) -> (f64, f64, bool) {
        match self {
            Op::Add | Op::Sub | Op::Mul | Op::Div => (1.0, 2.0, true),
            Op::Sqrt | Op::Ln => (0.25, 4.0, false),
            Op::Exp | Op::Sin => (-4.0, 4.0, false),
        }
    }

    /// The ranges above as text for reports.
    pub fn input_text(self) -> &'static str {
        match self {
            Op::Add | Op::Sub | Op::Mul | Op::Div => "a, b in ±[1, 2)",
            Op::Sqrt | Op::Ln => "a in [0.25, 4)",
            Op::Exp | Op::Sin => "a in [-4, 4)",
        }
    }
}

/// A format the measurements run over.
pub trait Elem: Copy + Send + Sync + Default + 'static {
    /// Short name: "f64", "dd", "qd".
    const NAME: &'static str;
    /// Unit roundoff `u` of the format; errors are reported in multiples of it.
    const UNIT_ROUNDOFF: f64;

    /// A random full-precision value with leading word uniform in `[lo, hi)`.
    fn random(rng: &mut SplitMix64, lo: f64, hi: f64) -> Self;

    /// The element-wise loop for `op`, or `None` if the library lacks the operation.
    fn kernel(op: Op) -> Option<Kernel<Self>>;

    /// The leading word (the nearest `f64` for normalised values).
    fn lead(self) -> f64;

    /// `−self`, exact (every word's sign flipped; keeps normalisation).
    fn negated(self) -> Self;
}

/// Random operands for `op`: `n` values in the op's input range.
pub fn random_vec<T: Elem>(rng: &mut SplitMix64, op: Op, n: usize) -> Vec<T> {
    let (lo, hi, signed) = op.input_range();
    (0..n)
        .map(|_| {
            let x = T::random(rng, lo, hi);
            if signed && rng.next_u64() & 1 == 1 {
                x.negated()
            } else {
                x
            }
        })
        .collect()
}

// ---- kernels ---------------------------------------------------------------------------------

#[inline(always)]
fn binary<T: Copy>(a: &[T], b: &[T], out: &mut [T], f: impl Fn(T, T) -> T) {
    // Zipped slice iterators: no bounds checks, and LLVM vectorises where the body allows.
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

#[inline(always)]
fn unary<T: Copy>(a: &[T], out: &mut [T], f: impl Fn(T) -> T) {
    for (o, &x) in out.iter_mut().zip(a) {
        *o = f(x);
    }
}

fn add<T: Copy + Add<Output = T>>(a: &[T], b: &[T], out: &mut [T]) {
    binary(a, b, out, |x, y| x + y)
}
fn sub<T: Copy + Sub<Output = T>>(a: &[T], b: &[T], out: &mut [T]) {
    binary(a, b, out, |x, y| x - y)
}
fn mul<T: Copy + Mul<Output = T>>(a: &[T], b: &[T], out: &mut [T]) {
    binary(a, b, out, |x, y| x * y)
}
fn div<T: Copy + Div<Output = T>>(a: &[T], b: &[T], out: &mut [T]) {
    binary(a, b, out, |x, y| x / y)
}

/// Kernels for the four arithmetic operations of any type with the operator traits.
fn arith_kernel<T: Copy + Add<Output = T> + Sub<Output = T> + Mul<Output = T> + Div<Output = T>>(
    op: Op,
) -> Option<Kernel<T>> {
    match op {
        Op::Add => Some(add::<T>),
        Op::Sub => Some(sub::<T>),
        Op::Mul => Some(mul::<T>),
        Op::Div => Some(div::<T>),
        _ => None,
    }
}

// ---- f64 -------------------------------------------------------------------------------------

fn f64_sqrt(a: &[f64], _: &[f64], out: &mut [f64]) {
    unary(a, out, f64::sqrt)
}
fn f64_exp(a: &[f64], _: &[f64], out: &mut [f64]) {
    unary(a, out, f64::exp)
}
fn f64_ln(a: &[f64], _: &[f64], out: &mut [f64]) {
    unary(a, out, f64::ln)
}
fn f64_sin(a: &[f64], _: &[f64], out: &mut [f64]) {
    unary(a, out, f64::sin)
}

impl Elem for f64 {
    const NAME: &'static str = "f64";
    const UNIT_ROUNDOFF: f64 = f64::EPSILON / 2.0;

    fn random(rng: &mut SplitMix64, lo: f64, hi: f64) -> Self {
        rng.range(lo, hi)
    }

    fn kernel(op: Op) -> Option<Kernel<Self>> {
        match op {
            Op::Sqrt => Some(f64_sqrt),
            Op::Exp => Some(f64_exp),
            Op::Ln => Some(f64_ln),
            Op::Sin => Some(f64_sin),
            _ => arith_kernel::<f64>(op),
        }
    }

    fn lead(self) -> f64 {
        self
    }

    fn negated(self) -> Self {
        -self
    }
}

// ---- double-double ---------------------------------------------------------------------------

fn dd_sqrt(a: &[Dd], _: &[Dd], out: &mut [Dd]) {
    unary(a, out, Dd::sqrt)
}
fn dd_exp(a: &[Dd], _: &[Dd], out: &mut [Dd]) {
    unary(a, out, Dd::exp)
}
fn dd_ln(a: &[Dd], _: &[Dd], out: &mut [Dd]) {
    unary(a, out, Dd::ln)
}
fn dd_sin(a: &[Dd], _: &[Dd], out: &mut [Dd]) {
    unary(a, out, Dd::sin)
}

impl Elem for Dd {
    const NAME: &'static str = "dd";
    const UNIT_ROUNDOFF: f64 = Dd::UNIT_ROUNDOFF;

    fn random(rng: &mut SplitMix64, lo: f64, hi: f64) -> Self {
        let h = rng.range(lo, hi);
        Dd {
            hi: h,
            lo: rng.word_below(h),
        }
    }

    fn kernel(op: Op) -> Option<Kernel<Self>> {
        match op {
            Op::Sqrt => Some(dd_sqrt),
            Op::Exp => Some(dd_exp),
            Op::Ln => Some(dd_ln),
            Op::Sin => Some(dd_sin),
            _ => arith_kernel::<Dd>(op),
        }
    }

    fn lead(self) -> f64 {
        self.hi
    }

    fn negated(self) -> Self {
        -self
    }
}

// ---- quad-double -----------------------------------------------------------------------------

fn qd_sqrt(a: &[Qd], _: &[Qd], out: &mut [Qd]) {
    unary(a, out, Qd::sqrt)
}
fn qd_exp(a: &[Qd], _: &[Qd], out: &mut [Qd]) {
    unary(a, out, Qd::exp)
}
fn qd_ln(a: &[Qd], _: &[Qd], out: &mut [Qd]) {
    unary(a, out, Qd::ln)
}
fn qd_sin(a: &[Qd], _: &[Qd], out: &mut [Qd]) {
    unary(a, out, Qd::sin)
}

impl Elem for Qd {
    const NAME: &'static str = "qd";
    const UNIT_ROUNDOFF: f64 = Qd::UNIT_ROUNDOFF;

    fn random(rng: &mut SplitMix64, lo: f64, hi: f64) -> Self {
        let c0 = rng.range(lo, hi);
        let c1 = rng.word_below(c0);
        let c2 = rng.word_below(c1);
        let c3 = rng.word_below(c2);
        Qd {
            c: [c0, c1, c2, c3],
        }
    }

    fn kernel(op: Op) -> Option<Kernel<Self>> {
        match op {
            Op::Sqrt => Some(qd_sqrt),
            Op::Exp => Some(qd_exp),
            Op::Ln => Some(qd_ln),
            Op::Sin => Some(qd_sin),
            _ => arith_kernel::<Qd>(op),
        }
    }

    fn lead(self) -> f64 {
        self.c[0]
    }

    fn negated(self) -> Self {
        Qd {
            c: [-self.c[0], -self.c[1], -self.c[2], -self.c[3]],
        }
    }
}
