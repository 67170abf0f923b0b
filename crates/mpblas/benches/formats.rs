//! Element-wise `+ × ÷ √` over vectors in f64, double-double (`Dd`), twofloat's `TwoFloat`
//! and quad-double (`Qd`): `cargo bench -p mpblas --bench formats`.
//!
//! Benchmark ids are `<op>/<format>/<n>` (`add/dd/4096`), throughput in elements.
//! n = 4096 keeps the three arrays in L2 (dd: 192 KiB, qd: 384 KiB), so it shows the arithmetic;
//! n = 2^20 (dd: 48 MiB) adds memory traffic, like the paper's vector tables.
//!
//! Accuracy is reported next to speed: before timing, the bench prints the maximum relative
//! error of every (op, format) over a sample, measured against MPFR (`rug`) at 320 bits on
//! the same inputs, so "faster than twofloat" can be read together with "as accurate".
//!
//! Inputs are seeded and of full precision: every lower word is random (53 bits), below a
//! quarter ulp of the word above, so the values are normalised without any library call.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group};
use mpblas::{Dd, Qd};
use mpblas_testdata::SplitMix64;
use rug::Float;
use std::hint::black_box;
use twofloat::TwoFloat;

/// The vector lengths (see the module docs for why these two).
const SIZES: [usize; 2] = [4096, 1 << 20];
/// MPFR precision of the reference values: holds the inputs exactly (their words span
/// < 2^2 .. 2^-230) and rounds the reference far below 2^-212.
const REF_PREC: u32 = 320;
/// Elements of the accuracy sample.
const ERR_SAMPLES: usize = 20_000;

// ---- inputs ----------------------------------------------------------------------------------

/// The shared seeded generator, with multi-word draws for the formats.
struct Rng(SplitMix64);

impl Rng {
    /// Four normalised words with the leading one uniform in `[lo, hi)`, random sign if asked.
    fn words(&mut self, lo: f64, hi: f64, signed: bool) -> [f64; 4] {
        let mut w0 = self.0.range(lo, hi);
        if signed && self.0.next_u64() & 1 == 1 {
            w0 = -w0;
        }
        let w1 = self.0.word_below(w0);
        let w2 = self.0.word_below(w1);
        let w3 = self.0.word_below(w2);
        [w0, w1, w2, w3]
    }
}

/// One benchmarked format: how to build it from words and read its words back.
trait Format: Copy {
    fn from_words(w: [f64; 4]) -> Self;
    fn to_words(self) -> [f64; 4];
}

impl Format for f64 {
    fn from_words(w: [f64; 4]) -> Self {
        w[0]
    }
    fn to_words(self) -> [f64; 4] {
        [self, 0.0, 0.0, 0.0]
    }
}

impl Format for Dd {
    fn from_words(w: [f64; 4]) -> Self {
        Dd { hi: w[0], lo: w[1] }
    }
    fn to_words(self) -> [f64; 4] {
        [self.hi, self.lo, 0.0, 0.0]
    }
}

impl Format for Qd {
    fn from_words(w: [f64; 4]) -> Self {
        Qd { c: w }
    }
    fn to_words(self) -> [f64; 4] {
        self.c
    }
}

impl Format for TwoFloat {
    fn from_words(w: [f64; 4]) -> Self {
        // Exact: |w[1]| < ulp(w[0])/4, so the TwoSum inside keeps both words as they are.
        TwoFloat::new_add(w[0], w[1])
    }
    fn to_words(self) -> [f64; 4] {
        [self.hi(), self.lo(), 0.0, 0.0]
    }
}

// ---- operations ------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Add,
    Mul,
    Div,
    Sqrt,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Mul => "mul",
            Op::Div => "div",
            Op::Sqrt => "sqrt",
        }
    }
    /// Operands: ±[1, 2) for the binary ops (cancellation in half of the additions);
    /// [0.25, 4) for the square root.
    fn inputs(self, rng: &mut Rng, n: usize) -> (Vec<[f64; 4]>, Vec<[f64; 4]>) {
        let (lo, hi, signed) = match self {
            Op::Sqrt => (0.25, 4.0, false),
            _ => (1.0, 2.0, true),
        };
        let a = (0..n).map(|_| rng.words(lo, hi, signed)).collect();
        let b = (0..n).map(|_| rng.words(lo, hi, signed)).collect();
        (a, b)
    }
    /// The operation in MPFR at REF_PREC bits.
    fn reference(self, a: &Float, b: &Float) -> Float {
        match self {
            Op::Add => Float::with_val(REF_PREC, a + b),
            Op::Mul => Float::with_val(REF_PREC, a * b),
            Op::Div => Float::with_val(REF_PREC, a / b),
            Op::Sqrt => Float::with_val(REF_PREC, a.sqrt_ref()),
        }
    }
}

/// `out[i] = f(a[i], b[i])` over zipped slices: no bounds checks in the loop, and LLVM
/// vectorises whatever the body lets it.
#[inline(always)]
fn binary<T: Copy>(a: &[T], b: &[T], out: &mut [T], f: impl Fn(T, T) -> T) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

/// Time `f` element-wise over `n` elements of format `T`, as `<op>/<name>/<n>`.
fn bench_one<T: Format>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    op: Op,
    n: usize,
    f: impl Fn(T, T) -> T + Copy,
) {
    let mut rng = Rng(SplitMix64::new(0x5EED ^ n as u64));
    let (wa, wb) = op.inputs(&mut rng, n);
    let a: Vec<T> = wa.into_iter().map(T::from_words).collect();
    let b: Vec<T> = wb.into_iter().map(T::from_words).collect();
    let mut out = a.clone();
    group.bench_function(BenchmarkId::new(name, n), |bench| {
        bench.iter(|| {
            binary(black_box(&a), black_box(&b), &mut out, f);
            black_box(&mut out);
        })
    });
}

/// Largest relative error of `f` in format `T` against MPFR, over ERR_SAMPLES inputs.
fn max_rel_error<T: Format>(op: Op, f: impl Fn(T, T) -> T) -> f64 {
    let mut rng = Rng(SplitMix64::new(0xACC0));
    let (wa, wb) = op.inputs(&mut rng, ERR_SAMPLES);
    let exact = |w: [f64; 4]| {
        let mut s = Float::new(REF_PREC);
        for x in w {
            s += x;
        }
        s
    };
    let mut worst = 0.0_f64;
    for (x, y) in wa.into_iter().zip(wb) {
        let (x, y) = (T::from_words(x), T::from_words(y));
        // The reference is computed on the value the format actually holds.
        let reference = op.reference(&exact(x.to_words()), &exact(y.to_words()));
        let got = exact(f(x, y).to_words());
        let rel = Float::with_val(64, (got - &reference).abs() / reference.abs()).to_f64();
        worst = if rel.is_nan() {
            f64::NAN
        } else {
            worst.max(rel)
        };
    }
    worst
}

// ---- the benches -----------------------------------------------------------------------------

/// Runs `$run!(Type, "name", closure)` for every format of `op`.
macro_rules! for_each_format {
    ($op:expr, $run:ident) => {
        match $op {
            Op::Add => {
                $run!(f64, "f64", |x: f64, y: f64| x + y);
                $run!(Dd, "dd", |x: Dd, y: Dd| x + y);
                $run!(TwoFloat, "twofloat", |x: TwoFloat, y: TwoFloat| x + y);
                $run!(Qd, "qd", |x: Qd, y: Qd| x + y);
                // The sloppy addition (no bound under cancellation), to show what accuracy costs.
                $run!(Dd, "dd_sloppy", Dd::add_sloppy);
            }
            Op::Mul => {
                $run!(f64, "f64", |x: f64, y: f64| x * y);
                $run!(Dd, "dd", |x: Dd, y: Dd| x * y);
                $run!(TwoFloat, "twofloat", |x: TwoFloat, y: TwoFloat| x * y);
                $run!(Qd, "qd", |x: Qd, y: Qd| x * y);
            }
            Op::Div => {
                $run!(f64, "f64", |x: f64, y: f64| x / y);
                $run!(Dd, "dd", |x: Dd, y: Dd| x / y);
                $run!(TwoFloat, "twofloat", |x: TwoFloat, y: TwoFloat| x / y);
                $run!(Qd, "qd", |x: Qd, y: Qd| x / y);
            }
            Op::Sqrt => {
                $run!(f64, "f64", |x: f64, _: f64| x.sqrt());
                $run!(Dd, "dd", |x: Dd, _: Dd| x.sqrt());
                $run!(TwoFloat, "twofloat", |x: TwoFloat, _: TwoFloat| x.sqrt());
                $run!(Qd, "qd", |x: Qd, _: Qd| x.sqrt());
            }
        }
    };
}

const OPS: [Op; 4] = [Op::Add, Op::Mul, Op::Div, Op::Sqrt];

/// The accuracy table (stderr, so it does not mix with criterion's report on stdout).
fn accuracy(_: &mut Criterion) {
    eprintln!(
        "accuracy: max relative error against MPFR ({REF_PREC} bits), {ERR_SAMPLES} random \
         full-precision inputs; in units of 2^-53 (f64), 2^-106 (dd, twofloat), 2^-212 (qd)"
    );
    for op in OPS {
        let mut line = format!("accuracy {:<5}", op.name());
        macro_rules! err {
            ($t:ty, $name:expr, $f:expr) => {{
                let e = max_rel_error::<$t>(op, $f);
                let unit = match $name {
                    "f64" => f64::EPSILON / 2.0,
                    "qd" => Qd::UNIT_ROUNDOFF,
                    _ => Dd::UNIT_ROUNDOFF,
                };
                let in_u = e / unit;
                let in_u = if in_u < 1e4 {
                    format!("{in_u:.3}")
                } else {
                    format!("{in_u:.2e}")
                };
                line.push_str(&format!("  {}: {in_u} u ({e:.2e})", $name));
            }};
        }
        for_each_format!(op, err);
        eprintln!("{line}");
    }
}

fn formats(c: &mut Criterion) {
    for op in OPS {
        let mut group = c.benchmark_group(op.name());
        for n in SIZES {
            group.throughput(Throughput::Elements(n as u64));
            macro_rules! run {
                ($t:ty, $name:expr, $f:expr) => {
                    bench_one::<$t>(&mut group, $name, op, n, $f)
                };
            }
            for_each_format!(op, run);
        }
        group.finish();
    }
}

criterion_group!(benches, accuracy, formats);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
