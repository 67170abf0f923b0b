//! `mpblas reproduce sum`: the MPRES summation paper's accuracy tables (Table 1: the datasets,
//! with float and double; Table 2: MPRES at 30-240 bits in the three orders) with our formats
//! beside the paper's figures, then the relative error of ill-conditioned dot products against
//! their condition number (Ogita-Rump-Oishi's GenDot), with `--svg` a log-log plot of it.
//!
//! Every row is computed by one function of the input slice ([`sum_cpu`], [`dot_cpu`]); the
//! GPU variants go beside them ([`sum_gpu`], [`dot_gpu`]; `None` where no GPU routine exists: the column
//! "CPU = GPU bits" prints "n/a (no GPU run)").
//!
//! The reference is exact: the sum of the `f64` inputs in a long fixed-point accumulator
//! ([`ExactDot`]), and each result's exact value (every word of a `Dd`/`Qd`, the exact
//! significand of an RNS float) subtracted from it there, so that the relative errors are exact
//! before their final rounding. The paper used MPFR at 4096 bits, exact for these data too.

use crate::papers::sum::{
    DATASET2_SMALL_TERMS, PaperDataset, Printed, TABLE1, dataset1, dataset2, dataset3, exact_sum,
    gen_dot, table2_cell,
};
use crate::svg::{self, Panel, decade_range, decade_ticks, escape};
use mpblas::blas::gpu::GpuFormat;
use mpblas::blas::{self, Summation, bounds};
use mpblas::cuda::{Device, DeviceVecRef};
use mpblas::exact::ExactDot;
use mpblas::rns::{Basis, MpFloat};
use mpblas::view::VecRef;
use mpblas::{Dd, Qd, Scalar};
use mpblas_testdata::SplitMix64;
use rayon::prelude::*;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::ops::Add;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// RNS precisions of the paper's Table 2 (bits requested).
pub const RNS_SUM_BITS: [u32; 4] = [30, 60, 120, 240];
/// RNS precisions of the dot-product table (the GEMV paper's first two).
pub const RNS_DOT_BITS: [u32; 2] = [106, 212];
/// Condition numbers of the dot-product table: `1e10, 1e20, …, 1e60`.
pub const CONDITIONS: [f64; 6] = [1e10, 1e20, 1e30, 1e40, 1e50, 1e60];
/// What the GPU column prints until the GPU routines are wired in.
pub const NO_GPU: &str = "n/a (no GPU run)";

/// How `reproduce sum` runs.
pub struct Plan {
    /// Terms `1e-16` of dataset #2 (the paper: `10^6`; the paper's figures for #2 are shown only
    /// then).
    pub dataset2_terms: usize,
    /// Length of the GenDot vectors (ORO and the brief: 1000).
    pub dot_n: usize,
    /// GenDot samples per condition number.
    pub samples: usize,
    /// Seed of GenDot.
    pub seed: u64,
    /// Threads of the blocked sums.
    pub threads: usize,
    /// Also write the error-against-condition plot here.
    pub svg: Option<PathBuf>,
    /// Run the f64, Dd, Qd and compensated rows again on GPU 0 and compare the bits.
    pub gpu: bool,
}

// ---- the methods ---------------------------------------------------------------------------

/// One row of the summation tables: a format and an order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SumMethod {
    /// `f32` arithmetic on the inputs rounded to `f32`, plain loops in the library's orders.
    F32(Summation),
    /// `f64` through the library's generic sum.
    F64(Summation),
    /// `f64` compensated (ORO Sum2, blocked order).
    Sum2,
    /// `f64` correctly rounded (exact accumulator).
    CorrectlyRounded,
    /// Double-double, inputs converted exactly.
    Dd(Summation),
    /// Quad-double, inputs converted exactly.
    Qd(Summation),
    /// RNS floats at this many bits requested (inputs rounded to the precision when it is
    /// below 53 bits).
    Rns(u32, Summation),
}

impl SumMethod {
    /// Every row of a dataset's table, in print order.
    pub fn all() -> Vec<SumMethod> {
        let mut m = Vec::new();
        m.extend(Summation::ALL.map(SumMethod::F32));
        m.extend(Summation::ALL.map(SumMethod::F64));
        m.push(SumMethod::Sum2);
        m.push(SumMethod::CorrectlyRounded);
        m.extend(Summation::ALL.map(SumMethod::Dd));
        m.extend(Summation::ALL.map(SumMethod::Qd));
        for bits in RNS_SUM_BITS {
            m.extend(Summation::ALL.map(|o| SumMethod::Rns(bits, o)));
        }
        m
    }

    /// The format column: `"float"`, `"double"`, `"dd"`, `"qd"`, `"RNS 120"`.
    pub fn format(self) -> String {
        match self {
            SumMethod::F32(_) => "float".into(),
            SumMethod::F64(_) | SumMethod::Sum2 | SumMethod::CorrectlyRounded => "double".into(),
            SumMethod::Dd(_) => "dd".into(),
            SumMethod::Qd(_) => "qd".into(),
            SumMethod::Rns(bits, _) => format!("RNS {bits}"),
        }
    }

    /// The order column.
    pub fn order(self) -> &'static str {
        match self {
            SumMethod::F32(o)
            | SumMethod::F64(o)
            | SumMethod::Dd(o)
            | SumMethod::Qd(o)
            | SumMethod::Rns(_, o) => o.name(),
            SumMethod::Sum2 => "sum2 (ORO)",
            SumMethod::CorrectlyRounded => "corr. rounded",
        }
    }

    /// The paper's figure for this row and dataset `id`, if it printed one: Table 1's float and
    /// double (a plain loop: the recursive rows), Table 2's MPRES at 30-240 bits.
    pub fn paper(self, id: usize) -> Option<Printed> {
        let t1: &PaperDataset = TABLE1.iter().find(|t| t.id == id)?;
        match self {
            SumMethod::F32(Summation::Recursive) => Some(t1.float),
            SumMethod::F64(Summation::Recursive) => Some(t1.double),
            SumMethod::Rns(bits, o) => {
                let k = Summation::ALL.iter().position(|&a| a == o)?;
                table2_cell(bits, k, id)
            }
            _ => None,
        }
    }
}

/// One row of the dot-product table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DotMethod {
    /// `f64` dot through the library's generic dot, blocked order.
    F64,
    /// ORO Dot2.
    Dot2,
    /// Correctly rounded.
    CorrectlyRounded,
    /// Double-double (inputs exact).
    Dd,
    /// Quad-double (inputs exact).
    Qd,
    /// RNS at this many bits requested.
    Rns(u32),
}

impl DotMethod {
    /// Every method, in column order.
    pub fn all() -> Vec<DotMethod> {
        let mut m = vec![
            DotMethod::F64,
            DotMethod::Dot2,
            DotMethod::CorrectlyRounded,
            DotMethod::Dd,
            DotMethod::Qd,
        ];
        m.extend(RNS_DOT_BITS.map(DotMethod::Rns));
        m
    }

    /// Column name.
    pub fn name(self) -> String {
        match self {
            DotMethod::F64 => "double".into(),
            DotMethod::Dot2 => "dot2".into(),
            DotMethod::CorrectlyRounded => "corr. rounded".into(),
            DotMethod::Dd => "dd".into(),
            DotMethod::Qd => "qd".into(),
            DotMethod::Rns(bits) => format!("RNS {bits}"),
        }
    }
}

// ---- one row -------------------------------------------------------------------------------

/// What a method returned: its value exactly (as `f64` words), its bound, and the exact sum of
/// the inputs as it held them where that is not the `f64` inputs' (the bound is about those).
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The result's exact value as words summing to it; `None` if NaN or infinite.
    pub words: Option<Vec<f64>>,
    /// The result rounded to the nearest `f64` (or `f32`, widened, for the float rows).
    pub nearest: f64,
    /// The result as printed.
    pub text: String,
    /// The returned (or, for float and the correctly rounded sum, the stated) absolute error
    /// bound.
    pub bound: f64,
    /// The exact sum (dot product) of the inputs as the method held them, when rounding them
    /// into the format changed them (float; RNS below 53 bits).
    pub held_exact: Option<ExactDot>,
}

fn lib<T>(r: mpblas::Result<T>) -> Result<T, String> {
    r.map_err(|e| e.to_string())
}

fn finite_words(words: Vec<f64>) -> Option<Vec<f64>> {
    words.iter().all(|w| w.is_finite()).then_some(words)
}

/// The exact value of an RNS float as `f64` words (32-bit pieces of its significand, scaled
/// exactly); `None` for NaN, ±∞ or a value whose pieces leave the `f64` range.
pub fn rns_words(x: &MpFloat) -> Option<Vec<f64>> {
    let (neg, limbs, exp) = x.to_limbs()?;
    let sign = if neg { -1.0 } else { 1.0 };
    let mut out = Vec::with_capacity(2 * limbs.len());
    for (k, &limb) in limbs.iter().enumerate() {
        for (half, piece) in [(0, limb & 0xffff_ffff), (1, limb >> 32)] {
            if piece == 0 {
                continue;
            }
            let e = i32::try_from(exp + 64 * k as i64 + 32 * half).ok()?;
            let w = mpblas::eft::ldexp(piece as f64, e);
            // Exact only in the normal range: check by scaling back.
            if !w.is_normal() || mpblas::eft::ldexp(w, -e) != piece as f64 {
                return None;
            }
            out.push(sign * w);
        }
    }
    Some(out)
}

/// The words of a result of any format.
trait Words {
    fn words(&self) -> Option<Vec<f64>>;
}
impl Words for f64 {
    fn words(&self) -> Option<Vec<f64>> {
        finite_words(vec![*self])
    }
}
impl Words for Dd {
    fn words(&self) -> Option<Vec<f64>> {
        finite_words(vec![self.hi, self.lo])
    }
}
impl Words for Qd {
    fn words(&self) -> Option<Vec<f64>> {
        finite_words(self.c.to_vec())
    }
}
impl Words for MpFloat {
    fn words(&self) -> Option<Vec<f64>> {
        rns_words(self)
    }
}

fn outcome<T: Scalar + Words>(r: blas::Bounded<T>, held_exact: Option<ExactDot>) -> Outcome {
    let nearest = r.value.nearest_f64();
    Outcome {
        words: r.value.words(),
        nearest,
        text: format!("{nearest:e}"),
        bound: r.error_bound,
        held_exact,
    }
}

/// The library's bounded sum of `x` converted to `T` by `conv`.
fn generic_sum<T: Scalar + Words>(
    x: &[f64],
    conv: impl Fn(f64) -> T,
    order: Summation,
) -> Result<Outcome, String> {
    let v: Vec<T> = x.iter().map(|&a| conv(a)).collect();
    Ok(outcome(
        lib(blas::sum_bounded(VecRef::contiguous(&v), order))?,
        None,
    ))
}

/// `x` in `basis`, each distinct value converted once (the datasets repeat values).
fn to_rns(basis: &Arc<Basis>, x: &[f64]) -> Vec<MpFloat> {
    let mut memo: HashMap<u64, MpFloat> = HashMap::new();
    x.iter()
        .map(|&a| {
            memo.entry(a.to_bits())
                .or_insert_with(|| MpFloat::from_f64(basis, a))
                .clone()
        })
        .collect()
}

/// The exact sum of RNS values of at most 53 bits (each exact as an `f64`), or `None`.
fn exact_sum_narrow(v: &[MpFloat]) -> Option<ExactDot> {
    let mut acc = ExactDot::new();
    for a in v {
        for w in rns_words(a)? {
            acc.add(w);
        }
    }
    Some(acc)
}

/// `±u·|r|`-style bound of a correctly rounded `f64` result: half its ulp (the larger gap).
fn half_ulp(r: f64) -> f64 {
    if !r.is_finite() {
        return f64::INFINITY;
    }
    let a = r.abs();
    ((a.next_up() - a) / 2.0).max(f64::from_bits(1))
}

/// One summation row on the CPU: `x` summed by `m`.
///
/// # Errors
/// A library error (none expected for these inputs), or an RNS precision out of range.
pub fn sum_cpu(m: SumMethod, x: &[f64]) -> Result<Outcome, String> {
    match m {
        SumMethod::F32(order) => {
            let v: Vec<f32> = x.iter().map(|&a| a as f32).collect();
            let r = tree_sum(&v, -0.0f32, order);
            let held = exact_sum(&v.iter().map(|&a| f64::from(a)).collect::<Vec<_>>());
            let mut abs = ExactDot::new();
            for &a in &v {
                abs.add(f64::from(a).abs());
            }
            let abs_up = bounds::up(abs.to_f64() * (1.0 + f64::EPSILON));
            let bound = bounds::sum_error_bound(
                order,
                v.len(),
                false,
                abs_up,
                f64::from(f32::EPSILON) / 2.0,
                2f64.powi(-150),
            );
            Ok(Outcome {
                words: f64::from(r).words(),
                nearest: f64::from(r),
                text: format!("{r:e}"),
                bound,
                held_exact: Some(held),
            })
        }
        SumMethod::F64(order) => generic_sum(x, |a| a, order),
        SumMethod::Sum2 => Ok(outcome(
            lib(blas::accurate::sum2_bounded(VecRef::contiguous(x)))?,
            None,
        )),
        SumMethod::CorrectlyRounded => {
            let r = lib(blas::sum_correctly_rounded(VecRef::contiguous(x)))?;
            Ok(outcome(
                blas::Bounded {
                    value: r,
                    error_bound: half_ulp(r),
                },
                None,
            ))
        }
        SumMethod::Dd(order) => generic_sum(x, Dd::from, order),
        SumMethod::Qd(order) => generic_sum(x, Qd::from, order),
        SumMethod::Rns(bits, order) => {
            let basis = lib(Basis::new(bits))?;
            let v = to_rns(&basis, x);
            let held = if basis.precision() < 53 {
                Some(exact_sum_narrow(&v).ok_or("an input left the f64 range")?)
            } else {
                None
            };
            Ok(outcome(
                lib(blas::sum_bounded(VecRef::contiguous(&v), order))?,
                held,
            ))
        }
    }
}

/// GPU 0, opened once for the whole reproduction.
fn gpu_device() -> Result<&'static Device, String> {
    static DEV: OnceLock<Result<Device, String>> = OnceLock::new();
    DEV.get_or_init(|| Device::open(0).map_err(|e| format!("--gpu: cannot open GPU 0: {e}")))
        .as_ref()
        .map_err(Clone::clone)
}

/// A GPU result: only its words are compared with the CPU row's ([`judge`]), so it carries no
/// bound of its own (the CPU row states it).
fn gpu_outcome<T: Scalar + Words>(value: T) -> Outcome {
    outcome(
        blas::Bounded {
            value,
            error_bound: f64::NAN,
        },
        None,
    )
}

/// The library's GPU sum of `x` converted to `T`.
fn gpu_sum<T: GpuFormat + Words>(
    x: &[f64],
    conv: impl Fn(f64) -> T,
    order: Summation,
) -> Result<Outcome, String> {
    let dev = gpu_device()?;
    let v: Vec<T> = x.iter().map(|&a| conv(a)).collect();
    let d = lib(dev.upload(&v))?;
    Ok(gpu_outcome(lib(blas::gpu::sum(
        dev,
        DeviceVecRef::contiguous(&d),
        order,
    ))?))
}

/// The GPU variant of [`sum_cpu`], beside it: `f64`, `Dd`, `Qd` in the three orders and
/// `sum2` and the correctly rounded sum on GPU 0; `None` for the rows with no GPU routine
/// (float, RNS).
pub fn sum_gpu(m: SumMethod, x: &[f64]) -> Option<Result<Outcome, String>> {
    match m {
        SumMethod::F64(order) => Some(gpu_sum(x, |a| a, order)),
        SumMethod::Dd(order) => Some(gpu_sum(x, Dd::from, order)),
        SumMethod::Qd(order) => Some(gpu_sum(x, Qd::from, order)),
        SumMethod::Sum2 => Some((|| {
            let dev = gpu_device()?;
            let d = lib(dev.upload(x))?;
            let shape = blas::gpu::LaunchShape::default();
            Ok(gpu_outcome(lib(blas::gpu::sum2(
                dev,
                DeviceVecRef::contiguous(&d),
                shape,
            ))?))
        })()),
        SumMethod::CorrectlyRounded => Some((|| {
            let dev = gpu_device()?;
            let d = lib(dev.upload(x))?;
            let shape = blas::gpu::LaunchShape::default();
            Ok(gpu_outcome(lib(blas::gpu::sum_correctly_rounded(
                dev,
                DeviceVecRef::contiguous(&d),
                shape,
            ))?))
        })()),
        _ => None,
    }
}

/// One dot-product row on the CPU.
///
/// # Errors
/// As [`sum_cpu`].
pub fn dot_cpu(m: DotMethod, x: &[f64], y: &[f64]) -> Result<Outcome, String> {
    fn generic<T: Scalar + Words>(x: &[T], y: &[T]) -> Result<Outcome, String> {
        Ok(outcome(
            lib(blas::dot_bounded(
                VecRef::contiguous(x),
                VecRef::contiguous(y),
                Summation::Blocked,
            ))?,
            None,
        ))
    }
    let (xv, yv) = (VecRef::contiguous(x), VecRef::contiguous(y));
    match m {
        DotMethod::F64 => generic(x, y),
        DotMethod::Dot2 => Ok(outcome(lib(blas::accurate::dot2_bounded(xv, yv))?, None)),
        DotMethod::CorrectlyRounded => {
            let r = lib(blas::dot_correctly_rounded(xv, yv))?;
            Ok(outcome(
                blas::Bounded {
                    value: r,
                    error_bound: half_ulp(r),
                },
                None,
            ))
        }
        DotMethod::Dd => {
            let conv = |v: &[f64]| v.iter().map(|&a| Dd::from(a)).collect::<Vec<_>>();
            generic(&conv(x), &conv(y))
        }
        DotMethod::Qd => {
            let conv = |v: &[f64]| v.iter().map(|&a| Qd::from(a)).collect::<Vec<_>>();
            generic(&conv(x), &conv(y))
        }
        DotMethod::Rns(bits) => {
            let basis = lib(Basis::new(bits))?;
            if basis.precision() < 53 {
                return Err(format!("RNS {bits}: the dot table needs at least 53 bits"));
            }
            generic(&to_rns(&basis, x), &to_rns(&basis, y))
        }
    }
}

/// The GPU variant of [`dot_cpu`]: `f64`, `Dd`, `Qd` (blocked), `dot2` and the correctly
/// rounded dot on GPU 0; `None` for the rows with no GPU routine.
pub fn dot_gpu(m: DotMethod, x: &[f64], y: &[f64]) -> Option<Result<Outcome, String>> {
    fn generic<T: GpuFormat + Words>(x: Vec<T>, y: Vec<T>) -> Result<Outcome, String> {
        let dev = gpu_device()?;
        let (dx, dy) = (lib(dev.upload(&x))?, lib(dev.upload(&y))?);
        Ok(gpu_outcome(lib(blas::gpu::dot(
            dev,
            DeviceVecRef::contiguous(&dx),
            DeviceVecRef::contiguous(&dy),
            Summation::Blocked,
        ))?))
    }
    match m {
        DotMethod::F64 => Some(generic(x.to_vec(), y.to_vec())),
        DotMethod::Dd => Some(generic(
            x.iter().map(|&a| Dd::from(a)).collect(),
            y.iter().map(|&a| Dd::from(a)).collect(),
        )),
        DotMethod::Qd => Some(generic(
            x.iter().map(|&a| Qd::from(a)).collect(),
            y.iter().map(|&a| Qd::from(a)).collect(),
        )),
        DotMethod::Dot2 => Some((|| {
            let dev = gpu_device()?;
            let (dx, dy) = (lib(dev.upload(x))?, lib(dev.upload(y))?);
            Ok(gpu_outcome(lib(blas::gpu::dot2(
                dev,
                DeviceVecRef::contiguous(&dx),
                DeviceVecRef::contiguous(&dy),
                blas::gpu::LaunchShape::default(),
            ))?))
        })()),
        DotMethod::CorrectlyRounded => Some((|| {
            let dev = gpu_device()?;
            let (dx, dy) = (lib(dev.upload(x))?, lib(dev.upload(y))?);
            Ok(gpu_outcome(lib(blas::gpu::dot_correctly_rounded(
                dev,
                DeviceVecRef::contiguous(&dx),
                DeviceVecRef::contiguous(&dy),
                blas::gpu::LaunchShape::default(),
            ))?))
        })()),
        _ => None,
    }
}

/// `Σ x` in `order` with `T`'s `+`, the library's trees (see `mpblas::blas::sum`) as plain
/// loops: `f32` has no `Scalar` implementation, and the float rows need the same orders. Every
/// accumulator starts at `neg_zero` (`−0`); an empty sum is `T::default()` (`+0`).
pub fn tree_sum<T: Copy + Default + Add<Output = T>>(x: &[T], neg_zero: T, order: Summation) -> T {
    use mpblas::blas::sum::{CHUNK, LANES};
    let chunk = |c: &[T]| -> T {
        let used = c.len().min(LANES);
        let mut lanes = vec![neg_zero; used];
        // Term j·LANES + l goes to lane l, each lane in order of j.
        for (k, &v) in c.iter().enumerate() {
            lanes[k % LANES] = lanes[k % LANES] + v;
        }
        let mut h = LANES / 2;
        while h >= 1 {
            for t in 0..h {
                if t + h < used {
                    lanes[t] = lanes[t] + lanes[t + h];
                }
            }
            h /= 2;
        }
        lanes[0]
    };
    if x.is_empty() {
        return T::default(); // +0, as the library's empty sum
    }
    match order {
        Summation::Recursive => x.iter().fold(neg_zero, |s, &v| s + v),
        Summation::Pairwise => {
            let mut stack: Vec<(T, u32)> = Vec::with_capacity(64);
            for &v in x {
                let mut a = neg_zero + v;
                let mut level = 0;
                while let Some(&(b, top)) = stack.last() {
                    if top != level {
                        break;
                    }
                    stack.pop();
                    a = b + a;
                    level += 1;
                }
                stack.push((a, level));
            }
            let Some((mut s, _)) = stack.pop() else {
                return neg_zero;
            };
            while let Some((t, _)) = stack.pop() {
                s = t + s;
            }
            s
        }
        Summation::Blocked => {
            if x.is_empty() {
                return neg_zero;
            }
            let mut partials: Vec<T> = x.chunks(CHUNK).map(chunk).collect();
            while partials.len() > 1 {
                partials = partials.chunks(CHUNK).map(chunk).collect();
            }
            partials[0]
        }
    }
}

// ---- evaluation ----------------------------------------------------------------------------

/// `|s − Σ words|` exactly, then rounded.
fn abs_diff(s: &ExactDot, words: &[f64]) -> f64 {
    let mut d = s.clone();
    for &w in words {
        d.add(-w);
    }
    d.to_f64().abs()
}

/// An outcome judged against the exact sum of the `f64` inputs.
#[derive(Clone, Debug)]
pub struct Judged {
    /// `|ŝ − S*|/|S*|`, uncapped (NaN for a non-finite result, `+∞` if only `S* = 0`).
    pub rel_error: f64,
    /// `|ŝ − S_held| ≤ bound`, against the exact sum of the inputs as the method held them.
    pub within_bound: bool,
    /// The GPU's bits equal the CPU's: `None` when no GPU run was made.
    pub gpu_same_bits: Option<bool>,
}

/// Judges `o` against `exact`, the exact sum (dot product) of the `f64` inputs.
pub fn judge(o: &Outcome, exact: &ExactDot, gpu: Option<&Outcome>) -> Judged {
    let Some(words) = &o.words else {
        return Judged {
            rel_error: f64::NAN,
            within_bound: o.bound.is_infinite(),
            gpu_same_bits: None,
        };
    };
    let s = exact.to_f64().abs();
    let diff = abs_diff(exact, words);
    let rel_error = if s == 0.0 {
        if diff == 0.0 { 0.0 } else { f64::INFINITY }
    } else {
        diff / s
    };
    let held_diff = o.held_exact.as_ref().map_or(diff, |h| abs_diff(h, words));
    Judged {
        rel_error,
        within_bound: held_diff <= o.bound,
        gpu_same_bits: gpu.map(|g| {
            g.words
                .as_ref()
                .map(|w| w.iter().map(|v| v.to_bits()).collect::<Vec<_>>())
                == Some(words.iter().map(|v| v.to_bits()).collect())
        }),
    }
}

// ---- the run -------------------------------------------------------------------------------

/// One dataset's results.
pub struct DatasetRun {
    /// `1..=3`.
    pub id: usize,
    /// Terms.
    pub n: usize,
    /// What the terms are.
    pub description: String,
    /// The data are the paper's (dataset #2 can be shortened: `--sizes`); the paper's figures
    /// are shown only then.
    pub paper_size: bool,
    /// The exact sum of the `f64` inputs, rounded.
    pub exact: f64,
    /// `(method, outcome, judgement)` per row.
    pub rows: Vec<(SumMethod, Outcome, Judged)>,
}

impl DatasetRun {
    /// The paper's figure for row `m`, when the data are the paper's.
    pub fn paper(&self, m: SumMethod) -> Option<Printed> {
        if self.paper_size {
            m.paper(self.id)
        } else {
            None
        }
    }
}

/// One GenDot sample's results.
pub struct DotSample {
    /// Requested condition number.
    pub target: f64,
    /// Achieved condition number (exact, rounded).
    pub cond: f64,
    /// The exact dot product, rounded.
    pub exact: f64,
    /// Per method (in [`DotMethod::all`] order): the outcome and its judgement.
    pub results: Vec<(Outcome, Judged)>,
}

/// Everything `reproduce sum` measured.
pub struct Reproduction {
    /// The three datasets.
    pub datasets: Vec<DatasetRun>,
    /// The dot-product samples, by condition then sample.
    pub dots: Vec<DotSample>,
}

/// Runs every row (on the calling thread's rayon pool).
///
/// # Errors
/// A row's error, or bad plan values.
pub fn reproduce(plan: &Plan) -> Result<Reproduction, String> {
    let methods = SumMethod::all();
    let dot_methods = DotMethod::all();
    let total = 3 * methods.len() + CONDITIONS.len() * plan.samples * dot_methods.len();
    let pb = crate::reproduce::progress_of(total as u64, "rows");
    let data = [dataset1(), dataset2(plan.dataset2_terms), dataset3()];
    let mut datasets = Vec::new();
    for (k, x) in data.iter().enumerate() {
        let exact = exact_sum(x);
        pb.set_message(format!("sums of dataset #{} (n = {})", k + 1, x.len()));
        // Rows are independent: computed in parallel (each blocked sum is parallel inside too).
        let outcomes: Vec<(Outcome, Option<Outcome>)> = methods
            .par_iter()
            .map(|&m| {
                let o = sum_cpu(m, x)?;
                let g = if plan.gpu {
                    sum_gpu(m, x).transpose()?
                } else {
                    None
                };
                pb.inc(1);
                Ok((o, g))
            })
            .collect::<Result<_, String>>()?;
        let rows = methods
            .iter()
            .zip(outcomes)
            .map(|(&m, (o, g))| {
                let j = judge(&o, &exact, g.as_ref());
                (m, o, j)
            })
            .collect();
        let paper_size = k != 1 || plan.dataset2_terms == DATASET2_SMALL_TERMS;
        datasets.push(DatasetRun {
            id: k + 1,
            n: x.len(),
            description: if k == 1 {
                format!("s0 = 1.0, s1..s{} = 1e-16", x.len() - 1)
            } else {
                TABLE1[k].description.into()
            },
            paper_size,
            exact: exact.to_f64(),
            rows,
        });
    }
    let mut rng = SplitMix64::new(plan.seed);
    let mut dots = Vec::new();
    for &c in &CONDITIONS {
        for _ in 0..plan.samples {
            let (x, y, cond) = gen_dot(plan.dot_n, c, &mut rng)?;
            let mut exact = ExactDot::new();
            for (&a, &b) in x.iter().zip(&y) {
                exact.add_product(a, b);
            }
            let mut results = Vec::new();
            for &m in &dot_methods {
                pb.set_message(format!("dot cond {c:.0e} {}", m.name()));
                let o = dot_cpu(m, &x, &y)?;
                let g = if plan.gpu {
                    dot_gpu(m, &x, &y).transpose()?
                } else {
                    None
                };
                let j = judge(&o, &exact, g.as_ref());
                results.push((o, j));
                pb.inc(1);
            }
            dots.push(DotSample {
                target: c,
                cond,
                exact: exact.to_f64(),
                results,
            });
        }
    }
    pb.finish_and_clear();
    Ok(Reproduction { datasets, dots })
}

/// Runs the reproduction and prints the tables, or with `as_json` returns the JSON document.
///
/// # Errors
/// Bad plan values, `--gpu` without a usable GPU, a library error, or an unwritable `--svg`
/// path.
pub fn run(plan: &Plan, as_json: bool) -> Result<Option<Value>, String> {
    if plan.gpu {
        gpu_device()?;
    }
    if plan.samples == 0 {
        return Err("--seeds (GenDot samples per condition) must be at least 1".into());
    }
    if plan.dot_n < 6 {
        return Err("--n (the GenDot length) must be at least 6".into());
    }
    let pool = crate::reproduce::pool(plan.threads)?;
    let rep = pool.install(|| reproduce(plan))?;
    let cpu = crate::info::cpu_model().unwrap_or_else(|| "unknown CPU".into());
    if let Some(path) = &plan.svg {
        let title = format!(
            "Dot products of n = {}: relative error vs condition number ({cpu})",
            plan.dot_n
        );
        std::fs::write(path, svg_plot(&rep, &title))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if as_json {
        return Ok(Some(json_doc(&rep, plan, &cpu)));
    }
    print!("{}", text(&rep, plan, &cpu));
    Ok(None)
}

// ---- output --------------------------------------------------------------------------------

/// Relative error as printed: `0`, `2.7e-7`, and `≥1e0` when at least 1 (the paper caps at
/// `10^0`).
fn rel(e: f64) -> String {
    if e.is_nan() {
        "NaN".into()
    } else if e >= 1.0 {
        ">=1e0".into()
    } else if e == 0.0 {
        "0".into()
    } else {
        format!("{e:.1e}")
    }
}

fn bound_text(b: f64) -> String {
    if b.is_infinite() {
        "inf".into()
    } else if b == 0.0 {
        "0".into()
    } else {
        format!("{b:.1e}")
    }
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "NO" }
}

fn gpu_text(g: Option<bool>) -> &'static str {
    match g {
        None => NO_GPU,
        Some(true) => "yes",
        Some(false) => "NO",
    }
}

/// Left-aligned table rows with a header rule.
pub(crate) fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut w: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| -> String {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<width$}", width = w[i]))
            .collect();
        format!("{}\n", parts.join(" | ").trim_end())
    };
    let mut s = line(header.iter().map(|h| h.to_string()).collect());
    let rule: Vec<String> = w.iter().map(|&n| "-".repeat(n)).collect();
    s.push_str(&format!("{}\n", rule.join("-|-")));
    for r in rows {
        s.push_str(&line(r.clone()));
    }
    s
}

fn paper_cells(p: Option<Printed>) -> [String; 2] {
    match p {
        Some(p) => {
            let mark = if p.uncertain { " ?" } else { "" };
            [
                format!("{}{mark}", p.result),
                format!("{}{mark}", p.rel_error),
            ]
        }
        None => ["-".into(), "-".into()],
    }
}

/// The bases the RNS rows used: `"RNS 30: 2 moduli, p = 31 bits (MPRES: 4 moduli)"`.
fn basis_lines(bits: &[u32], paper_moduli: impl Fn(u32) -> Option<usize>) -> String {
    let mut s = String::new();
    for &b in bits {
        if let Ok(basis) = Basis::new(b) {
            let paper = paper_moduli(b).map_or(String::new(), |m| format!(" (MPRES: {m} moduli)"));
            let _ = writeln!(
                s,
                "  RNS {b}: {} moduli of 31 bits, p = {} bits{paper}",
                basis.len(),
                basis.precision()
            );
        }
    }
    s
}

fn text(rep: &Reproduction, plan: &Plan, cpu: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "MPRES summation paper (seed 004): accuracy of sums, Tables 1 and 2, on {cpu} \
         ({} threads)\n",
        plan.threads
    );
    let header = [
        "format",
        "order",
        "result (nearest double)",
        "rel. error",
        "error bound",
        "within",
        "paper result",
        "paper rel. err",
        "CPU = GPU bits",
    ];
    for d in &rep.datasets {
        let t1 = &TABLE1[d.id - 1];
        let paper_exact = if d.paper_size {
            format!("(paper, MPFR: {})", t1.exact)
        } else {
            "(not the paper's length: its figures are left out)".into()
        };
        let _ = writeln!(
            s,
            "Dataset #{}: {} (n = {})\n  S* = exact sum of the f64 inputs = {:e}   {paper_exact}",
            d.id, d.description, d.n, d.exact
        );
        let rows: Vec<Vec<String>> = d
            .rows
            .iter()
            .map(|(m, o, j)| {
                let [pr, pe] = paper_cells(d.paper(*m));
                vec![
                    m.format(),
                    m.order().into(),
                    o.text.clone(),
                    rel(j.rel_error),
                    bound_text(o.bound),
                    yes(j.within_bound).into(),
                    pr,
                    pe,
                    gpu_text(j.gpu_same_bits).into(),
                ]
            })
            .collect();
        let _ = writeln!(s, "{}", table(&header, &rows));
    }
    s.push_str("Notes:\n");
    s.push_str(
        "  S*: the exact sum of the f64 inputs in a long fixed-point accumulator \
         (mpblas::exact::ExactDot), each\n  result's exact value (every word of dd/qd, the exact \
         RNS significand) subtracted there: exact errors.\n  The paper used MPFR at 4096 bits \
         (also exact here). Relative errors of 1 or more print as >=1e0 (the paper caps at \
         10^0).\n",
    );
    s.push_str(
        "  error bound: the absolute bound the library returns with the result (sum_bounded, \
         sum2_bounded); for float\n  the same formula with u = 2^-24 \
         (mpblas::blas::bounds::sum_error_bound), for corr. rounded half an ulp.\n  within: \
         |result - exact sum of the inputs as the format holds them| <= bound (float and RNS \
         below 53 bits round\n  the inputs: their bound is about the rounded inputs, the rel. \
         error about the f64 inputs).\n",
    );
    s.push_str(
        "  float: the inputs rounded to f32, summed in f32 with plain loops in the library's \
         three orders. Paper figures:\n  Table 1 for float and double (a plain loop: the \
         recursive rows), Table 2 for MPRES at 30/60/120/240 bits;\n  '?' marks a cell the \
         OCR leaves uncertain (merged over orders, or two readings).\n",
    );
    s.push_str(
        "  Dataset #3 terms: fl(fl(x^i)/fl(i!)), x = fl(-4pi), x^i and i! in quad-double \
         rounded once to f64 (as C's\n  pow(x,i)/factorial(i)): they give the paper's exact \
         sum, double and float figures to every printed digit.\n",
    );
    s.push_str(
        "  #2: at 60 bits each addition of 1e-16 to about 1 rounds (the paper: 9e-13, our \
         recursive: 6e-13); the paper's 6e-13\n  at 120 and 240 bits is more than any rounding \
         explains (the f64 inputs' exact sum is 1.0000000001 - 2.1e-27,\n  held exactly from \
         107 bits on): ours are 0.\n  RNS 30 is 45 bits: our moduli are 31-bit primes, and 3 \
         of them are the fewest that give 30 bits.\n",
    );
    s.push_str(&basis_lines(&RNS_SUM_BITS, |b| {
        crate::papers::sum::TABLE2
            .iter()
            .find(|t| t.bits == b)
            .map(|t| t.moduli)
    }));
    let _ = writeln!(
        s,
        "  CPU = GPU bits: with --gpu, the f64, sum2, correctly rounded, dd and qd rows run \
         again on GPU 0 (mpblas::blas::gpu) and are compared word for word; {NO_GPU} where \
         there is no GPU run or no GPU routine (float, RNS).\n"
    );
    s.push_str(&dot_table(rep, plan));
    s
}

/// `(min, max)` of the achieved conditions and the per-method maximum error of one target.
fn by_target(rep: &Reproduction, c: f64) -> (f64, f64, Vec<f64>, usize) {
    let samples: Vec<&DotSample> = rep.dots.iter().filter(|d| d.target == c).collect();
    let lo = samples.iter().map(|d| d.cond).fold(f64::INFINITY, f64::min);
    let hi = samples.iter().map(|d| d.cond).fold(0.0, f64::max);
    let k = DotMethod::all().len();
    let worst: Vec<f64> = (0..k)
        .map(|m| {
            samples
                .iter()
                .map(|d| capped(d.results[m].1.rel_error))
                .fold(0.0, f64::max)
        })
        .collect();
    let outside = samples
        .iter()
        .flat_map(|d| &d.results)
        .filter(|(_, j)| !j.within_bound)
        .count();
    (lo, hi, worst, outside)
}

/// "yes" if every GPU result at condition `c` had the CPU's bits, "NO" if one did not,
/// [`NO_GPU`] without a GPU run.
fn dot_gpu_text(rep: &Reproduction, c: f64) -> &'static str {
    let compared: Vec<bool> = rep
        .dots
        .iter()
        .filter(|d| d.target == c)
        .flat_map(|d| d.results.iter().filter_map(|(_, j)| j.gpu_same_bits))
        .collect();
    if compared.is_empty() {
        NO_GPU
    } else if compared.iter().all(|&b| b) {
        "yes"
    } else {
        "NO"
    }
}

/// The relative error capped at 1 (as ORO plot it); NaN stays NaN.
pub fn capped(e: f64) -> f64 {
    if e.is_nan() { e } else { e.min(1.0) }
}

fn dot_table(rep: &Reproduction, plan: &Plan) -> String {
    let mut s = String::new();
    let methods = DotMethod::all();
    let _ = writeln!(
        s,
        "Ill-conditioned dot products (Ogita-Rump-Oishi GenDot, n = {}, {} samples per \
         condition, seed {}):\nmaximum relative error over the samples, capped at 1; cond: \
         GenDot's requested condition, achieved: the exact\ncondition numbers of the samples \
         (GenDot's typically come out 10-100 times the requested one)",
        plan.dot_n, plan.samples, plan.seed
    );
    let names: Vec<String> = methods.iter().map(|m| m.name()).collect();
    let mut header: Vec<&str> = vec!["cond", "achieved"];
    header.extend(names.iter().map(|n| n.as_str()));
    header.push("CPU = GPU bits");
    let mut outside_total = 0;
    let rows: Vec<Vec<String>> = CONDITIONS
        .iter()
        .map(|&c| {
            let (lo, hi, worst, outside) = by_target(rep, c);
            outside_total += outside;
            let mut r = vec![format!("{c:.0e}"), format!("{lo:.1e}..{hi:.1e}")];
            r.extend(worst.iter().map(|&e| rel(e).replace(">=", "")));
            r.push(dot_gpu_text(rep, c).into());
            r
        })
        .collect();
    let _ = writeln!(s, "{}", table(&header, &rows));
    let total = rep.dots.len() * methods.len();
    let _ = writeln!(
        s,
        "Notes:\n  The true dot product and condition number 2*sum|x_i*y_i|/|sum x_i*y_i| are \
         exact (ExactDot); double: the library's\n  generic dot, blocked order; dd, qd, RNS: \
         inputs converted exactly, blocked order. Expected error about\n  cond * u: double \
         1.1e-16, dot2 and dd 1.2e-32, qd 1.5e-64 (up to 5u per dd/qd product), RNS 2^-p.\n  \
         Results within their returned bound: {} of {total}.",
        total - outside_total
    );
    s.push_str(&basis_lines(&RNS_DOT_BITS, |_| None));
    s
}

fn json_doc(rep: &Reproduction, plan: &Plan, cpu: &str) -> Value {
    let num = |v: f64| if v.is_finite() { json!(v) } else { Value::Null };
    let datasets: Vec<Value> = rep
        .datasets
        .iter()
        .map(|d| {
            let t1 = &TABLE1[d.id - 1];
            let rows: Vec<Value> = d
                .rows
                .iter()
                .map(|(m, o, j)| {
                    let paper = d.paper(*m).map(|p| {
                        json!({"result": p.result, "rel_error": p.rel_error,
                               "uncertain": p.uncertain})
                    });
                    let precision = match m {
                        SumMethod::Rns(b, _) => Basis::new(*b).ok().map(|b| b.precision()),
                        _ => None,
                    };
                    json!({
                        "format": m.format(),
                        "order": m.order(),
                        "precision_bits": precision,
                        "result": o.text,
                        "result_f64": num(o.nearest),
                        "rel_error": num(j.rel_error),
                        "error_bound": num(o.bound),
                        "within_bound": j.within_bound,
                        "paper": paper,
                        "gpu_same_bits": j.gpu_same_bits,
                    })
                })
                .collect();
            json!({
                "id": d.id,
                "description": d.description,
                "n": d.n,
                "exact": d.exact,
                "paper_exact": d.paper_size.then_some(t1.exact),
                "rows": rows,
            })
        })
        .collect();
    let methods: Vec<String> = DotMethod::all().iter().map(|m| m.name()).collect();
    let dots: Vec<Value> = rep
        .dots
        .iter()
        .map(|d| {
            let per = |f: &dyn Fn(&(Outcome, Judged)) -> Value| -> serde_json::Map<String, Value> {
                methods
                    .iter()
                    .zip(&d.results)
                    .map(|(m, r)| (m.clone(), f(r)))
                    .collect()
            };
            json!({
                "target_cond": d.target,
                "cond": num(d.cond),
                "exact": d.exact,
                "rel_error": per(&|(_, j)| num(capped(j.rel_error))),
                "within_bound": per(&|(_, j)| json!(j.within_bound)),
            })
        })
        .collect();
    json!({
        "paper": "sum",
        "mpblas": env!("CARGO_PKG_VERSION"),
        "cpu": cpu,
        "threads": plan.threads,
        "reference": "exact (mpblas::exact::ExactDot long accumulator); the paper: MPFR 4096 bits",
        "gpu": if plan.gpu { "GPU 0 (mpblas::blas::gpu)" } else { NO_GPU },
        "dataset2_small_terms": plan.dataset2_terms,
        "datasets": datasets,
        "dot": {
            "generator": "Ogita-Rump-Oishi GenDot (Algorithm 6.1)",
            "n": plan.dot_n,
            "samples_per_condition": plan.samples,
            "seed": plan.seed,
            "methods": methods,
            "rel_error_capped_at": 1.0,
            "samples": dots,
        },
    })
}

// ---- the plot ------------------------------------------------------------------------------

/// Colours of the dot methods, in [`DotMethod::all`] order.
const COLOURS: [&str; 7] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
];

/// A log-log plot like ORO's Figures 6.1-6.4: x the condition number, y the relative error
/// (capped at 1), one point per sample and method, one colour per method, and the lines `u·cond`
/// of the `f64` and double-double unit roundoffs as guides. Zero errors (exact results) and
/// NaN cannot be drawn on a log scale: they are left out and counted in the legend.
pub fn svg_plot(rep: &Reproduction, title: &str) -> String {
    let methods: Vec<String> = DotMethod::all().iter().map(|m| m.name()).collect();
    let ok = |c: f64, e: f64| c > 0.0 && e > 0.0 && c.is_finite() && e.is_finite();
    let pts = || {
        rep.dots.iter().flat_map(move |d| {
            d.results
                .iter()
                .map(move |(_, j)| (d.cond, capped(j.rel_error)))
                .filter(move |&(c, e)| ok(c, e))
        })
    };
    let (xstep, (x0, x1)) = decade_ticks(decade_range(pts().map(|(c, _)| c.log10())), 8.0);
    let (ystep, (y0, y1)) = decade_ticks(
        decade_range(pts().map(|(_, e)| e.log10()).chain([0.0])),
        10.0,
    );
    let (left, top, pw, ph, legend) = (80.0, 50.0, 560.0, 400.0, 330.0);
    let w = left + pw + 30.0 + legend;
    let h = top + ph + 60.0;
    let panel = Panel {
        ox: left,
        oy: top,
        w: pw,
        h: ph,
        x: (x0, x1),
        y: (y0, y1),
    };
    let mut s = String::new();
    svg::open(&mut s, w, h, 20.0, title);
    panel.axes(
        &mut s,
        xstep,
        ystep,
        "condition number",
        "relative error (capped at 1)",
    );
    // Guides: u·cond for f64 and double-double, clipped to the panel.
    for (u, label) in [
        (2f64.powi(-53), "u·cond (double)"),
        (2f64.powi(-106), "u·cond (dd)"),
    ] {
        let ly = |lx: f64| lx + u.log10();
        let (a, b) = (x0.max(y0 - u.log10()), x1.min(y1 - u.log10()));
        if a < b {
            let _ = writeln!(
                s,
                r##"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="#aaa" stroke-dasharray="4 3"/><text x="{:.2}" y="{:.2}" font-size="9" fill="#777">{}</text>"##,
                panel.px(a),
                panel.py(ly(a)),
                panel.px(b),
                panel.py(ly(b)),
                panel.px(b) - 4.0,
                panel.py(ly(b)) - 4.0,
                escape(label)
            );
        }
    }
    for d in &rep.dots {
        for (m, (_, j)) in d.results.iter().enumerate() {
            let e = capped(j.rel_error);
            if ok(d.cond, e) {
                let _ = writeln!(
                    s,
                    r##"<circle cx="{:.2}" cy="{:.2}" r="3.5" fill="{}" fill-opacity="0.8"><title>{} cond={:.2e}: {:.2e}</title></circle>"##,
                    panel.px(d.cond.log10()),
                    panel.py(e.log10()),
                    COLOURS[m % COLOURS.len()],
                    escape(&methods[m]),
                    d.cond,
                    e
                );
            }
        }
    }
    let lx = left + pw + 40.0;
    let mut yy = top + 10.0;
    for (m, name) in methods.iter().enumerate() {
        let hidden = rep
            .dots
            .iter()
            .filter(|d| {
                d.results
                    .get(m)
                    .is_some_and(|(_, j)| !ok(d.cond, capped(j.rel_error)))
            })
            .count();
        let note = if hidden > 0 {
            format!(" ({hidden} not drawn: error 0 or undefined)")
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            r##"<circle cx="{lx}" cy="{yy}" r="5" fill="{}"/><text x="{}" y="{}">{}{}</text>"##,
            COLOURS[m % COLOURS.len()],
            lx + 10.0,
            yy + 4.0,
            escape(name),
            note
        );
        yy += 17.0;
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_trees_are_the_librarys() {
        let mut rng = SplitMix64::new(3);
        for n in [0, 1, 2, 7, 255, 257, 4096, 4097, 3 * 4096 + 17] {
            let x: Vec<f64> = (0..n)
                .map(|_| rng.range(-1.0, 1.0) * 2f64.powi(rng.int(-30, 30) as i32))
                .collect();
            for order in Summation::ALL {
                let lib = blas::sum_ordered(VecRef::contiguous(&x), order).unwrap();
                let ours = tree_sum(&x, -0.0, order);
                assert_eq!(ours.to_bits(), lib.to_bits(), "n = {n}, {order:?}");
            }
        }
    }

    #[test]
    fn rns_words_are_exact() {
        let b = Basis::new(240).unwrap();
        let third = MpFloat::from_f64(&b, 1.0)
            .div(&MpFloat::from_f64(&b, -3.0))
            .unwrap();
        let w = rns_words(&third).unwrap();
        // -1/3 to 240 bits: within 2^-241 of the true value, and the words sum to it exactly.
        let mut acc = ExactDot::new();
        for &v in &w {
            acc.add(v);
        }
        assert_eq!(acc.to_f64(), -1.0 / 3.0);
        assert!(w.len() >= 240 / 32);
        assert_eq!(
            rns_words(&MpFloat::from_f64(&b, 2e-18))
                .unwrap()
                .iter()
                .sum::<f64>(),
            2e-18
        );
        assert_eq!(rns_words(&MpFloat::nan(&b)), None);
        assert_eq!(rns_words(&MpFloat::zero(&b, false)), Some(vec![]));
    }

    #[test]
    fn judging_is_exact() {
        let mut s = ExactDot::new();
        s.add(1.0);
        s.add(1e-30);
        let o = Outcome {
            words: Some(vec![1.0]),
            nearest: 1.0,
            text: "1".into(),
            bound: 1e-30,
            held_exact: None,
        };
        let j = judge(&o, &s, None);
        assert_eq!(j.rel_error, 1e-30);
        assert!(j.within_bound && j.gpu_same_bits.is_none());
        let nan = Outcome {
            words: None,
            nearest: f64::NAN,
            bound: f64::INFINITY,
            ..o.clone()
        };
        assert!(judge(&nan, &s, None).rel_error.is_nan());
        assert_eq!(judge(&o, &s, Some(&o)).gpu_same_bits, Some(true));
        assert_eq!(judge(&o, &ExactDot::new(), None).rel_error, f64::INFINITY);
        assert_eq!(half_ulp(1.0), f64::EPSILON / 2.0);
        assert_eq!(half_ulp(0.0), f64::from_bits(1));
    }

    #[test]
    fn every_method_has_a_row_and_rns_rows_get_paper_cells() {
        let m = SumMethod::all();
        assert_eq!(m.len(), 3 + 3 + 2 + 3 + 3 + 12);
        assert!(SumMethod::Rns(120, Summation::Pairwise).paper(1).is_some());
        assert!(SumMethod::F64(Summation::Recursive).paper(3).is_some());
        assert!(SumMethod::F64(Summation::Pairwise).paper(3).is_none());
        assert!(SumMethod::Qd(Summation::Blocked).paper(1).is_none());
    }

    fn sample(errors: &[f64], cond: f64) -> DotSample {
        let o = Outcome {
            words: Some(vec![0.0]),
            nearest: 0.0,
            text: "0".into(),
            bound: 0.0,
            held_exact: None,
        };
        DotSample {
            target: 1e10,
            cond,
            exact: 1.0,
            results: errors
                .iter()
                .map(|&e| {
                    (
                        o.clone(),
                        Judged {
                            rel_error: e,
                            within_bound: true,
                            gpu_same_bits: None,
                        },
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn svg_survives_nan_zero_and_empty() {
        let empty = Reproduction {
            datasets: vec![],
            dots: vec![],
        };
        let s = svg_plot(&empty, "a < b");
        assert!(s.starts_with("<svg") && s.ends_with("</svg>\n"));
        assert!(s.contains("a &lt; b"));
        assert_eq!(s.matches("<circle").count(), DotMethod::all().len());
        let rep = Reproduction {
            datasets: vec![],
            dots: vec![
                sample(
                    &[1e-7, 0.0, f64::NAN, 5.0, 1e-40, 1e-20, f64::INFINITY],
                    2e10,
                ),
                sample(&[1e-6; 7], f64::INFINITY),
            ],
        };
        let s = svg_plot(&rep, "t");
        // 1e-7, 5 (capped to 1), 1e-40, 1e-20, ∞ (capped to 1) drawn; 0 and NaN not; the
        // second sample (infinite condition) not at all; plus 7 legend marks.
        assert_eq!(s.matches("<circle").count(), 5 + 7);
        assert!(!s.contains("NaN") && !s.contains("inf"), "{s}");
        assert!(
            s.contains("dot2 (2 not drawn: error 0 or undefined)"),
            "{s}"
        );
    }
}
