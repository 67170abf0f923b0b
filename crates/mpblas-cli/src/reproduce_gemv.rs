//! `mpblas reproduce gemv`: Table 5 of the MPRES-BLAS GEMV paper (`y ← αAx + βy` and
//! `y ← αAᵀx + βy`, `A` 1000 × 1000) with our CPU times for `f64`, `Dd`, `Qd` and RNS at the
//! paper's 106..1696 bits beside the paper's GTX 1080 times and MPRES-BLAS measured on an
//! H100, the largest relative error of the entries of `y` and the largest ratio of error to the
//! bound the library returns; with `--gpu` every row again on GPU 0 (`f64`, `Dd`, `Qd` with
//! [`blas::gpu::gemv`], RNS with [`blas::gpu::rns::gemv`]), with whether its bits equal the CPU's.
//!
//! Two input sets: uniform in `[−1, 1]` with full 53-bit significands, and the same values
//! rounded to 26 bits (MPRES-BLAS's benchmark inputs: on full doubles it is 1,300 times slower
//! at 106 bits). Every format holds the `f64` inputs exactly, so one reference serves all rows:
//! each `y_i` exact in a long accumulator ([`ExactDot`]: `α·x_j` split exactly into two
//! doubles, each product with `a_ij` exact), and each result's exact value (every word of a
//! `Dd`/`Qd`, the exact significand of an RNS float) subtracted there, so that errors are exact
//! before their last rounding.

use crate::papers::gemv::{
    GemvInputs, OTHER_ROWS, PAPER_GPU, PAPER_N, TABLE5, inputs, mpres_h100, table5,
};
use crate::reproduce::progress_of;
use crate::reproduce_sum::table;
use indicatif::ProgressBar;
use mpblas::blas::{self, gpu::GpuFormat};
use mpblas::cuda::{Device, DeviceMatRef, DeviceVec, DeviceVecMut, DeviceVecRef};
use mpblas::exact::ExactDot;
use mpblas::rns::gpu::DeviceMpArray;
use mpblas::rns::{Basis, MpArray, MpFloat};
use mpblas::view::{MatRef, Trans, VecMut, VecRef};
use mpblas::{Dd, Qd, Scalar};
use rayon::prelude::*;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

/// Significand bits of the two input sets, in table order.
pub const INPUT_BITS: [u32; 2] = [53, 26];
/// Untimed GPU launches before the timed ones (the first compiles or loads the module).
const GPU_WARMUP: usize = 3;
/// Highest precision of Table 5 the fused GPU form takes (its wide basis must fit 256 moduli).
const FUSED_GPU_MAX_BITS: u32 = 2600;

/// How `reproduce gemv` runs.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Order of `A` (the paper: 1000).
    pub n: usize,
    /// Timed calls per case at most (the median is reported), after an untimed narrow call.
    pub reps: usize,
    /// Time budget of the timed calls of one case, seconds: slow rows get fewer calls (at least
    /// one).
    pub max_seconds: f64,
    /// Seed of the inputs.
    pub seed: u64,
    /// Threads of the CPU runs (the library's gemv is parallel over rows).
    pub threads: usize,
    /// Also time the `f64`, `Dd`, `Qd` rows on GPU 0.
    pub gpu: bool,
}

/// A row's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `f64`.
    F64,
    /// Double-double.
    Dd,
    /// Quad-double.
    Qd,
    /// RNS floats at this many bits requested, the paper's form ([`blas::gemv`]).
    Rns(u32),
    /// The same, fused: each entry rounded once ([`blas::rns::gemv_fused`]).
    RnsFused(u32),
}

impl Format {
    /// Every format, in table order (RNS at Table 5's precisions).
    pub fn all() -> Vec<Format> {
        let mut v = vec![Format::F64, Format::Dd, Format::Qd];
        v.extend(TABLE5.iter().map(|c| Format::Rns(c.bits)));
        v.extend(TABLE5.iter().map(|c| Format::RnsFused(c.bits)));
        v
    }

    /// The requested RNS precision, either form.
    pub fn rns_bits(self) -> Option<u32> {
        match self {
            Format::Rns(bits) | Format::RnsFused(bits) => Some(bits),
            _ => None,
        }
    }

    /// `"f64"`, `"dd"`, `"qd"`, `"RNS 424"`.
    pub fn name(self) -> String {
        match self {
            Format::F64 => "f64".into(),
            Format::Dd => "dd".into(),
            Format::Qd => "qd".into(),
            Format::Rns(bits) => format!("RNS {bits}"),
            Format::RnsFused(bits) => format!("RNS {bits} fused"),
        }
    }
}

/// One transpose of one row.
#[derive(Clone, Debug)]
pub struct Case {
    /// Median CPU time of one call, milliseconds.
    pub cpu_ms: f64,
    /// Timed CPU calls.
    pub cpu_reps: usize,
    /// `max_i |ŷ_i − y_i| / |y_i|` (NaN if a result is not finite).
    pub max_rel_error: f64,
    /// `max_i |ŷ_i − y_i| / bound_i` with the library's componentwise bounds, over the first
    /// [`bound_rows`](Case::bound_rows) entries.
    pub max_err_over_bound: f64,
    /// Entries whose bounds were checked (`n` unless a bounded call would be slow).
    pub bound_rows: usize,
    /// The GPU run, with `--gpu` and a GPU routine for the format.
    pub gpu: Option<GpuCase>,
}

/// One transpose of one row on the GPU.
#[derive(Clone, Debug)]
pub struct GpuCase {
    /// Median CUDA-event time of one call, milliseconds.
    pub ms: f64,
    /// Timed launches.
    pub reps: usize,
    /// Every entry of `y` has the CPU's bits.
    pub same_bits: bool,
}

/// One row of the table: a format and an input set, both transposes.
#[derive(Clone, Debug)]
pub struct Row {
    /// The format.
    pub format: Format,
    /// Significand bits of the format (for RNS the basis's precision).
    pub precision: u32,
    /// RNS moduli (`None` for `f64`, `Dd`, `Qd`).
    pub moduli: Option<usize>,
    /// Significand bits of the inputs (53 or 26).
    pub input_bits: u32,
    /// Order of `A`.
    pub n: usize,
    /// `[N, T]`.
    pub cases: [Case; 2],
}

// ---- exact values ----------------------------------------------------------------------------

/// A result whose exact value can be taken off an [`ExactDot`].
pub trait Exact {
    /// `acc −= self` exactly; `false` for NaN, ±∞ or a value beyond the accumulator.
    fn sub_from(&self, acc: &mut ExactDot) -> bool;
}

fn sub_words(words: &[f64], acc: &mut ExactDot) -> bool {
    if !words.iter().all(|w| w.is_finite()) {
        return false;
    }
    for &w in words {
        acc.add(-w);
    }
    true
}

impl Exact for f64 {
    fn sub_from(&self, acc: &mut ExactDot) -> bool {
        sub_words(&[*self], acc)
    }
}
impl Exact for Dd {
    fn sub_from(&self, acc: &mut ExactDot) -> bool {
        sub_words(&[self.hi, self.lo], acc)
    }
}
impl Exact for Qd {
    fn sub_from(&self, acc: &mut ExactDot) -> bool {
        sub_words(&self.c, acc)
    }
}
impl Exact for MpFloat {
    /// The significand in 32-bit pieces, each `piece·2^E` added as the exact product of two
    /// normal doubles `piece·2^(E−E2)` and `2^E2` (the accumulator reaches `2^-2148`: pieces
    /// of a 1696-bit result lie below the `f64` range).
    fn sub_from(&self, acc: &mut ExactDot) -> bool {
        let Some((neg, limbs, exp)) = self.to_limbs() else {
            return false;
        };
        let sign = if neg { 1.0 } else { -1.0 };
        for (k, &limb) in limbs.iter().enumerate() {
            for (half, piece) in [(0, limb & 0xffff_ffff), (1, limb >> 32)] {
                if piece == 0 {
                    continue;
                }
                let Ok(e) = i32::try_from(exp + 64 * k as i64 + 32 * half) else {
                    return false;
                };
                let e2 = if e < -1000 { -1000 } else { 0 };
                if !(-2000..=990).contains(&e) {
                    return false;
                }
                let f1 = mpblas::eft::ldexp(sign * piece as f64, e - e2);
                acc.add_product(f1, mpblas::eft::ldexp(1.0, e2));
            }
        }
        true
    }
}

/// The exact `y` of `inp` (`trans`: with `Aᵀ`), one accumulator per entry.
pub fn exact_y(inp: &GemvInputs, trans: bool) -> Vec<ExactDot> {
    let n = inp.n;
    // α·x_j = p_j + e_j exactly (no underflow for these inputs: |α·x_j| > 2^-2000).
    let ax: Vec<(f64, f64)> = inp
        .x
        .iter()
        .map(|&x| mpblas::eft::two_prod(inp.alpha, x))
        .collect();
    (0..n)
        .into_par_iter()
        .map(|i| {
            let mut s = ExactDot::new();
            s.add_product(inp.beta, inp.y[i]);
            for (j, &(p, e)) in ax.iter().enumerate() {
                let a = if trans {
                    inp.a[j + i * n]
                } else {
                    inp.a[i + j * n]
                };
                s.add_product(a, p);
                s.add_product(a, e);
            }
            s
        })
        .collect()
}

/// `|ŷ_i − y_i|` of each entry of `got` against `exact`, exact before its last rounding; NaN
/// where a result is not finite.
pub fn abs_errors<T: Exact + Sync>(got: &[T], exact: &[ExactDot]) -> Vec<f64> {
    got.par_iter()
        .zip(exact)
        .map(|(g, s)| {
            let mut d = s.clone();
            if g.sub_from(&mut d) {
                d.to_f64().abs()
            } else {
                f64::NAN
            }
        })
        .collect()
}

/// `max_i err_i / den_i` (0 where `err_i = 0`, `+∞` where only `den_i = 0`), NaN if an error is
/// NaN.
pub fn max_ratio(err: &[f64], den: impl Iterator<Item = f64>) -> f64 {
    err.iter().zip(den).fold(0.0, |m: f64, (&e, d)| {
        let q = if e == 0.0 {
            0.0
        } else if d == 0.0 {
            f64::INFINITY
        } else {
            e / d
        };
        if m.is_nan() || q.is_nan() {
            f64::NAN
        } else {
            m.max(q)
        }
    })
}

/// `max_i |ŷ_i − y_i| / |y_i|`.
pub fn max_rel_error<T: Exact + Sync>(got: &[T], exact: &[ExactDot]) -> f64 {
    max_ratio(
        &abs_errors(got, exact),
        exact.iter().map(|s| s.to_f64().abs()),
    )
}

// ---- the runs --------------------------------------------------------------------------------

/// The operands of one row, converted to its format.
struct Operands<T> {
    a: Vec<T>,
    x: Vec<T>,
    y: Vec<T>,
    alpha: T,
    beta: T,
}

impl<T: Send> Operands<T> {
    fn new(inp: &GemvInputs, conv: impl Fn(f64) -> T + Sync) -> Self {
        Operands {
            a: inp.a.par_iter().map(|&v| conv(v)).collect(),
            x: inp.x.iter().map(|&v| conv(v)).collect(),
            y: inp.y.iter().map(|&v| conv(v)).collect(),
            alpha: conv(inp.alpha),
            beta: conv(inp.beta),
        }
    }
}

fn lib<T>(r: mpblas::Result<T>) -> Result<T, String> {
    r.map_err(|e| e.to_string())
}

/// Seconds of bounded calls a case may spend: where a full bounded call (two passes over `A`)
/// would take longer, the bounds are taken on the first rows of `op(A)` only (at least
/// [`MIN_BOUND_ROWS`]; a row's result does not depend on the others, bit for bit).
const BOUND_SECONDS: f64 = 0.1;
/// The fewest rows whose bounds are checked.
const MIN_BOUND_ROWS: usize = 32;

/// Columns of `op(A)` in the warm-up call before the timed ones: every row, so that every
/// thread's buffers and the format's code are warm, at a small part of a full call's cost.
const WARM_COLUMNS: usize = 16;

/// Timing of `call` (each call returns its own seconds): up to `reps` calls while the next
/// one still fits in `budget` seconds by the last one's time, at least one. Returns the median
/// in milliseconds and the calls it is taken over.
fn median_ms(
    reps: usize,
    budget: f64,
    mut call: impl FnMut() -> Result<f64, String>,
) -> Result<(f64, usize), String> {
    let mut times = Vec::with_capacity(reps);
    let mut spent = 0.0;
    loop {
        let t = call()?;
        spent += t;
        times.push(t * 1e3);
        if times.len() >= reps || spent + t > budget {
            break;
        }
    }
    times.sort_by(f64::total_cmp);
    Ok((crate::measure::median(&times), times.len()))
}

/// Rows `0..rows` and columns `0..cols` of `op(A)` for `A` of order `n` (column-major): a block
/// of `A`, or with `trans` the transpose of `A`'s block `[0..cols, 0..rows]`.
fn op_block<T>(
    a: &[T],
    n: usize,
    trans: bool,
    rows: usize,
    cols: usize,
) -> Result<MatRef<'_, T>, String> {
    if trans {
        Ok(lib(MatRef::col_major(a, cols, rows, n))?.t())
    } else {
        lib(MatRef::col_major(a, rows, cols, n))
    }
}

/// One CPU case (`trans`: with `Aᵀ`): a warm-up call on the first [`WARM_COLUMNS`] columns of
/// `op(A)`, the timed plain calls from the original `y` (the last one's result judged against
/// the exact `y`), then one bounded call, on the first rows only where a whole one would take
/// more than [`BOUND_SECONDS`], whose error-to-bound ratios are judged. Returns the case and
/// the result of the plain calls.
fn cpu_case<T: Scalar + Exact + Send + Sync>(
    ops: &Operands<T>,
    n: usize,
    trans: bool,
    exact: &[ExactDot],
    plan: &Plan,
    form: &Form<T>,
) -> Result<(Case, Vec<T>), String> {
    let op_a = |rows, cols| op_block(&ops.a, n, trans, rows, cols);
    let (a, x) = (op_a(n, n)?, VecRef::contiguous(&ops.x));
    let w = n.min(WARM_COLUMNS);
    let mut y = ops.y.clone();
    lib((form.plain)(
        &ops.alpha,
        op_a(n, w)?,
        VecRef::contiguous(&ops.x[..w]),
        &ops.beta,
        VecMut::contiguous(&mut y),
    ))?;
    let (cpu_ms, cpu_reps) = median_ms(plan.reps, plan.max_seconds, || {
        y.clone_from(&ops.y);
        let start = Instant::now();
        lib((form.plain)(
            &ops.alpha,
            a,
            x,
            &ops.beta,
            VecMut::contiguous(&mut y),
        ))?;
        Ok(start.elapsed().as_secs_f64())
    })?;
    let full_bounded_s = 2.0 * cpu_ms * 1e-3;
    let k = if full_bounded_s <= BOUND_SECONDS {
        n
    } else {
        ((n as f64 * BOUND_SECONDS / full_bounded_s) as usize).clamp(MIN_BOUND_ROWS.min(n), n)
    };
    let mut yb = ops.y[..k].to_vec();
    let bounds = lib((form.bounded)(
        &ops.alpha,
        op_a(k, n)?,
        x,
        &ops.beta,
        VecMut::contiguous(&mut yb),
    ))?;
    let case = Case {
        cpu_ms,
        cpu_reps,
        max_rel_error: max_rel_error(&y, exact),
        max_err_over_bound: max_ratio(&abs_errors(&yb, &exact[..k]), bounds.iter().copied()),
        bound_rows: k,
        gpu: None,
    };
    Ok((case, y))
}

/// A CPU GEMV routine and its bounded twin (bounds as `f64`, NaN where there is none).
type PlainGemv<T> =
    dyn Fn(&T, MatRef<'_, T>, VecRef<'_, T>, &T, VecMut<'_, T>) -> mpblas::Result<()> + Sync;
type BoundedGemv<T> =
    dyn Fn(&T, MatRef<'_, T>, VecRef<'_, T>, &T, VecMut<'_, T>) -> mpblas::Result<Vec<f64>> + Sync;

/// Which GEMV a row times: the library's generic one, or the fused RNS one.
struct Form<'f, T> {
    plain: &'f PlainGemv<T>,
    bounded: &'f BoundedGemv<T>,
}

fn generic_form<T: Scalar>() -> Form<'static, T> {
    Form {
        plain: &|a, m, x, b, y| blas::gemv(a, m, x, b, y),
        bounded: &|a, m, x, b, y| blas::gemv_bounded(a, m, x, b, y),
    }
}

/// [`blas::rns::gemv_fused`]; its extended-range bounds as `f64` (0 below `f64`'s range, where
/// the errors also read 0).
fn fused_form() -> Form<'static, MpFloat> {
    Form {
        plain: &|a, m, x, b, y| blas::rns::gemv_fused(a, m, x, b, y),
        bounded: &|a, m, x, b, y| {
            blas::rns::gemv_fused_bounded(a, m, x, b, y).map(|v| {
                v.iter()
                    .map(|e| e.map_or(f64::NAN, |e| e.to_f64()))
                    .collect()
            })
        },
    }
}

/// The CPU cases of one row, N then T ([`cpu_case`]), and their results.
fn cpu_cases<T: Scalar + Exact + Send + Sync>(
    ops: &Operands<T>,
    n: usize,
    exact: &[Vec<ExactDot>; 2],
    plan: &Plan,
    bar: &ProgressBar,
    label: &str,
    form: &Form<T>,
) -> Result<([Case; 2], [Vec<T>; 2]), String> {
    bar.set_message(format!("{label} N"));
    let (n_case, n_res) = cpu_case(ops, n, false, &exact[0], plan, form)?;
    bar.inc(1);
    bar.set_message(format!("{label} T"));
    let (t_case, t_res) = cpu_case(ops, n, true, &exact[1], plan, form)?;
    bar.inc(1);
    Ok(([n_case, t_case], [n_res, t_res]))
}

/// The GPU runs of one row (both transposes): one call from the original `y` compared word
/// for word with the CPU's result, warm-up launches, then the timed launches (CUDA events).
fn gpu_cases<T: GpuFormat>(
    dev: &Device,
    ops: &Operands<T>,
    n: usize,
    cpu: &[Vec<T>; 2],
    cases: &mut [Case; 2],
    reps: usize,
) -> Result<(), String> {
    let e = |what: &'static str| move |err: mpblas::Error| format!("GPU gemv, {what}: {err}");
    let da = dev.upload(&ops.a).map_err(e("upload"))?;
    let dx = dev.upload(&ops.x).map_err(e("upload"))?;
    let ga = DeviceMatRef::col_major(&da, n, n, n).map_err(e("matrix view"))?;
    let gx = DeviceVecRef::contiguous(&dx);
    for (t, case) in cases.iter_mut().enumerate() {
        let ga = if t == 1 { ga.t() } else { ga };
        let mut dy = dev.upload(&ops.y).map_err(e("upload"))?;
        let run = |dy: &mut DeviceVec<T>| {
            blas::gpu::gemv(
                dev,
                ops.alpha,
                ga,
                gx,
                ops.beta,
                DeviceVecMut::contiguous(dy),
            )
        };
        let same = |dy: &DeviceVec<T>| {
            let got = dy.download()?;
            let bits = |v: &T| v.to_words().map(f64::to_bits);
            Ok(got.len() == cpu[t].len()
                && got.iter().zip(&cpu[t]).all(|(g, c)| bits(g) == bits(c)))
        };
        case.gpu = Some(gpu_case(dev, reps, &mut dy, run, same).map_err(e("run"))?);
    }
    Ok(())
}

/// One transpose of one row on the GPU: `run` once on `y` (the original `y`), `same` says
/// whether that result has the CPU's bits, then [`GPU_WARMUP`] launches and `reps` (at least
/// one) timed with CUDA events; the median.
fn gpu_case<Y>(
    dev: &Device,
    reps: usize,
    y: &mut Y,
    run: impl Fn(&mut Y) -> mpblas::Result<()>,
    same: impl FnOnce(&Y) -> mpblas::Result<bool>,
) -> mpblas::Result<GpuCase> {
    run(y)?;
    let same_bits = same(y)?;
    for _ in 0..GPU_WARMUP {
        run(y)?;
    }
    let mut times = Vec::with_capacity(reps.max(1));
    for _ in 0..reps.max(1) {
        times.push(f64::from(dev.time_ms(|| run(y))?));
    }
    times.sort_by(f64::total_cmp);
    Ok(GpuCase {
        ms: crate::measure::median(&times),
        reps: times.len(),
        same_bits,
    })
}

/// The RNS GPU runs of one row ([`blas::gpu::rns::gemv`], or with `fused`
/// [`blas::gpu::rns::gemv_fused`]), as [`gpu_cases`]: one call from the original `y` compared
/// field by field with the CPU's result, then the timed launches.
#[allow(clippy::too_many_arguments)]
fn rns_gpu_cases(
    dev: &Device,
    basis: &Arc<Basis>,
    ops: &Operands<MpFloat>,
    n: usize,
    cpu: &[Vec<MpFloat>; 2],
    cases: &mut [Case; 2],
    reps: usize,
    fused: bool,
) -> Result<(), String> {
    let e = |what: &'static str| move |err: mpblas::Error| format!("GPU RNS gemv, {what}: {err}");
    let upload = |v: &[MpFloat]| {
        MpArray::from_mpfloats(basis, v).and_then(|a| DeviceMpArray::upload(dev, &a))
    };
    let da = upload(&ops.a).map_err(e("upload"))?;
    let dx = upload(&ops.x).map_err(e("upload"))?;
    let y0 = MpArray::from_mpfloats(basis, &ops.y).map_err(e("upload"))?;
    for (t, case) in cases.iter_mut().enumerate() {
        let trans = if t == 1 { Trans::Yes } else { Trans::No };
        let mut dy = DeviceMpArray::upload(dev, &y0).map_err(e("upload"))?;
        let run = |dy: &mut DeviceMpArray| {
            let gemv = if fused {
                blas::gpu::rns::gemv_fused
            } else {
                blas::gpu::rns::gemv
            };
            gemv(
                dev, trans, n, n, &ops.alpha, &da, n, &dx, 1, &ops.beta, dy, 1,
            )
        };
        let same = |dy: &DeviceMpArray| {
            Ok(dy
                .download()?
                .identical(&MpArray::from_mpfloats(basis, &cpu[t])?))
        };
        case.gpu = Some(gpu_case(dev, reps, &mut dy, run, same).map_err(e("run"))?);
    }
    Ok(())
}

/// One row on the CPU and, where the format has a GPU routine and `dev` is given, on the GPU.
fn gpu_format_row<T: GpuFormat + Exact + Sync>(
    inp: &GemvInputs,
    conv: impl Fn(f64) -> T + Sync,
    exact: &[Vec<ExactDot>; 2],
    plan: &Plan,
    dev: Option<&Device>,
    bar: &ProgressBar,
    label: &str,
) -> Result<[Case; 2], String> {
    let ops = Operands::new(inp, conv);
    let (mut cases, results) = cpu_cases(&ops, inp.n, exact, plan, bar, label, &generic_form())?;
    if let Some(dev) = dev {
        bar.set_message(format!("{label} on the GPU"));
        gpu_cases(dev, &ops, inp.n, &results, &mut cases, plan.reps)?;
    }
    Ok(cases)
}

/// One row: `format` on input set `inp`.
fn row(
    format: Format,
    inp: &GemvInputs,
    exact: &[Vec<ExactDot>; 2],
    plan: &Plan,
    dev: Option<&Device>,
    bar: &ProgressBar,
) -> Result<Row, String> {
    let label = format!("{}, {}-bit inputs", format.name(), inp.bits);
    bar.set_message(format!("{label} (converting)"));
    let (cases, precision, moduli) = match format {
        Format::F64 => (
            gpu_format_row(inp, |v| v, exact, plan, dev, bar, &label)?,
            53,
            None,
        ),
        Format::Dd => (
            gpu_format_row(inp, Dd::from, exact, plan, dev, bar, &label)?,
            106,
            None,
        ),
        Format::Qd => (
            gpu_format_row(inp, Qd::from, exact, plan, dev, bar, &label)?,
            212,
            None,
        ),
        Format::Rns(bits) | Format::RnsFused(bits) => {
            let fused = matches!(format, Format::RnsFused(_));
            let basis = lib(Basis::new(bits))?;
            let ops = Operands::new(inp, |v| MpFloat::from_f64(&basis, v));
            let form = if fused { fused_form() } else { generic_form() };
            let (mut cases, results) = cpu_cases(&ops, inp.n, exact, plan, bar, &label, &form)?;
            // the fused form's wide basis fits the GPU kernels up to about 2600 bits
            if let Some(dev) = dev.filter(|_| !fused || bits <= FUSED_GPU_MAX_BITS) {
                bar.set_message(format!("{label} on the GPU"));
                rns_gpu_cases(
                    dev, &basis, &ops, inp.n, &results, &mut cases, plan.reps, fused,
                )?;
            }
            (cases, basis.precision(), Some(basis.len()))
        }
    };
    Ok(Row {
        format,
        precision,
        moduli,
        input_bits: inp.bits,
        n: inp.n,
        cases,
    })
}

/// GPU 0, or why `--gpu` cannot run.
fn open_gpu() -> Result<Device, String> {
    Device::open(0).map_err(|e| format!("--gpu: cannot open GPU 0: {e}"))
}

/// Every row: per input set, the exact references, then each format.
///
/// # Errors
/// A library error (none expected), or a GPU error.
pub fn measure(plan: &Plan, dev: Option<&Device>) -> Result<Vec<Row>, String> {
    let formats = Format::all();
    let bar = progress_of((INPUT_BITS.len() * formats.len() * 2) as u64, "cases");
    let mut rows = Vec::new();
    for bits in INPUT_BITS {
        bar.set_message(format!("exact y, {bits}-bit inputs"));
        let inp = inputs(plan.n, plan.seed, bits);
        let exact = [exact_y(&inp, false), exact_y(&inp, true)];
        for &f in &formats {
            rows.push(row(f, &inp, &exact, plan, dev, &bar)?);
        }
    }
    bar.finish_and_clear();
    Ok(rows)
}

/// Runs the reproduction and prints the tables, or with `as_json` returns the JSON document.
///
/// # Errors
/// `--gpu` without a usable GPU, a bad plan, or a library error.
pub fn run(plan: &Plan, as_json: bool) -> Result<Option<Value>, String> {
    if plan.n == 0 || plan.reps == 0 {
        return Err("--n and --reps must be at least 1".into());
    }
    let dev = if plan.gpu { Some(open_gpu()?) } else { None };
    let gpu_name = dev.as_ref().map(|d| d.info().to_string());
    let pool = crate::reproduce::pool(plan.threads)?;
    let rows = pool.install(|| measure(plan, dev.as_ref()))?;
    let cpu = crate::info::cpu_model().unwrap_or_else(|| "unknown CPU".into());
    if as_json {
        return Ok(Some(json_doc(&rows, plan, &cpu, gpu_name.as_deref())));
    }
    print!("{}", text(&rows, plan, &cpu, gpu_name.as_deref()));
    Ok(None)
}

// ---- output ----------------------------------------------------------------------------------

/// Milliseconds with three significant digits or so.
fn ms(v: f64) -> String {
    if !v.is_finite() {
        "—".into()
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else if v >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// An error or ratio: `0`, `3.1e-17`, `NaN`.
fn sci(e: f64) -> String {
    if e.is_nan() {
        "NaN".into()
    } else if e == 0.0 {
        "0".into()
    } else {
        format!("{e:.1e}")
    }
}

/// The worse error-to-bound ratio of N and T, with "(first k)" where only the first `k`
/// entries were bounded.
fn bound_cell(r: &Row) -> String {
    let [n, t] = &r.cases;
    let ratio = sci(worst(n.max_err_over_bound, t.max_err_over_bound));
    let k = n.bound_rows.min(t.bound_rows);
    match r.cases.iter().any(|c| c.bound_rows < r.n) {
        true => format!("{ratio} (first {k})"),
        false => ratio,
    }
}

fn worst(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

fn gpu_cell(row: &Row, t: usize) -> String {
    match (&row.cases[t].gpu, row.format) {
        (Some(g), _) => ms(g.ms),
        (None, Format::Rns(_) | Format::RnsFused(_)) => "—".into(),
        (None, _) => "n/a".into(),
    }
}

fn gpu_bits_cell(row: &Row) -> &'static str {
    match (&row.cases[0].gpu, &row.cases[1].gpu, row.format) {
        (Some(a), Some(b), _) => {
            if a.same_bits && b.same_bits {
                "yes"
            } else {
                "NO"
            }
        }
        (_, _, Format::Rns(_) | Format::RnsFused(_)) => "—",
        _ => "n/a",
    }
}

/// The paper's layout: one column per precision, one row per implementation, ours (RNS on the
/// CPU) and MPRES-BLAS on the H100 below the paper's rows.
fn table5_layout(rows: &[Row], plan: &Plan) -> String {
    let mut header = vec!["implementation (ms)".to_string()];
    header.extend(TABLE5.iter().map(|c| format!("{} bits", c.bits)));
    let mut body: Vec<Vec<String>> = Vec::new();
    let paper = |name: &str, f: &dyn Fn(&crate::papers::gemv::Table5Column) -> f64| {
        let mut r = vec![format!("{name} (paper, GTX 1080)")];
        r.extend(TABLE5.iter().map(|c| ms(f(c))));
        r
    };
    body.push(paper("Proposed implementation", &|c| c.proposed_n));
    body.push(paper("Proposed, transposed", &|c| c.proposed_t));
    for (k, name) in OTHER_ROWS.iter().enumerate() {
        body.push(paper(name, &|c| c.others()[k]));
    }
    for input_bits in INPUT_BITS {
        let mut r = vec![format!("MPRES-BLAS mp_gemv, H100, {input_bits}-bit inputs")];
        r.extend(TABLE5.iter().map(|c| mpres_h100(c.bits, input_bits).text()));
        body.push(r);
    }
    let gpu = rows.iter().any(|r| r.cases[0].gpu.is_some());
    type Form = (&'static str, fn(u32) -> Format);
    let forms: [Form; 2] = [("", Format::Rns), (" fused", Format::RnsFused)];
    for device in if gpu { &["CPU", "GPU"][..] } else { &["CPU"] } {
        for (form, fmt) in forms {
            for input_bits in INPUT_BITS {
                for (t, tr) in ["", " (transposed)"].into_iter().enumerate() {
                    let mut r = vec![format!(
                        "mpblas RNS{form}, {device}{tr}, {input_bits}-bit inputs"
                    )];
                    r.extend(TABLE5.iter().map(|c| {
                        rows.iter()
                            .find(|row| row.format == fmt(c.bits) && row.input_bits == input_bits)
                            .and_then(|row| match *device {
                                "CPU" => Some(row.cases[t].cpu_ms),
                                _ => row.cases[t].gpu.as_ref().map(|g| g.ms),
                            })
                            .map_or("-".into(), ms)
                    }));
                    body.push(r);
                }
            }
        }
    }
    let hdr: Vec<&str> = header.iter().map(String::as_str).collect();
    let size = if plan.n == PAPER_N {
        String::new()
    } else {
        format!(
            "\n(ours at n = {}: the paper's and MPRES-BLAS's figures are for n = {PAPER_N})",
            plan.n
        )
    };
    format!(
        "Table 5 as the paper lays it out: GEMV {PAPER_N} x {PAPER_N}, time in ms{size}\n{}",
        table(&hdr, &body)
    )
}

fn text(rows: &[Row], plan: &Plan, cpu: &str, gpu: Option<&str>) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "MPRES-BLAS GEMV paper (seed 001, Isupov and Knyazkov 2020), Table 5: y <- alpha*A*x + \
         beta*y (N) and\ny <- alpha*A^T*x + beta*y (T), A {n} x {n} column-major; ours: mpblas {} \
         on {cpu} ({} threads), median\nof up to {} calls (as many as fit in {} s per case, at \
         least one) after a warm-up call on the first\n{WARM_COLUMNS} columns; seed {}\n",
        env!("CARGO_PKG_VERSION"),
        plan.threads,
        plan.reps,
        plan.max_seconds,
        plan.seed,
        n = plan.n,
    );
    s.push_str(&table5_layout(rows, plan));
    s.push('\n');
    let mut header = vec![
        "format",
        "prec",
        "inputs",
        "CPU N ms",
        "CPU T ms",
        "paper N",
        "paper T",
        "MPRES H100",
        "calls N/T",
        "max rel err",
        "err/bound",
    ];
    if gpu.is_some() {
        header.extend(["GPU N ms", "GPU T ms", "GPU = CPU bits"]);
    }
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let [n, t] = &r.cases;
            let (pn, pt, mpres) = match r.format.rns_bits() {
                Some(bits) => (
                    table5(bits).map_or("-".into(), |c| ms(c.proposed_n)),
                    table5(bits).map_or("-".into(), |c| ms(c.proposed_t)),
                    mpres_h100(bits, r.input_bits).text(),
                ),
                None => ("-".into(), "-".into(), "-".into()),
            };
            let mut cells = vec![
                r.format.name(),
                r.precision.to_string(),
                format!("{} bits", r.input_bits),
                ms(n.cpu_ms),
                ms(t.cpu_ms),
                pn,
                pt,
                mpres,
                format!("{}/{}", n.cpu_reps, t.cpu_reps),
                sci(worst(n.max_rel_error, t.max_rel_error)),
                bound_cell(r),
            ];
            if gpu.is_some() {
                cells.extend([gpu_cell(r, 0), gpu_cell(r, 1), gpu_bits_cell(r).into()]);
            }
            cells
        })
        .collect();
    let _ = writeln!(
        s,
        "Every format, both input sets (paper N/T: Table 5 on a {PAPER_GPU};\nMPRES H100: \
         MPRES-BLAS mp_gemv measured on an H100 with inputs of that many bits)"
    );
    let _ = writeln!(s, "{}", table(&header, &body));
    s.push_str("Notes:\n");
    s.push_str(
        "  inputs: A, x, y, alpha, beta uniform in [-1, 1] with full 53-bit significands; \
         \"26 bits\": the same values\n  rounded to 26 bits (the inputs of MPRES-BLAS's \
         benchmark). Every format holds them exactly.\n",
    );
    let _ = write!(
        s,
        "  max rel err: max over i and over N and T of |y^_i - y_i| / |y_i|, against the exact \
         y (each y_i in a long\n  accumulator, mpblas::exact::ExactDot; each result's every \
         word or exact RNS significand subtracted there).\n  err/bound: max of |y^_i - y_i| / \
         bound_i with the componentwise bounds mpblas::blas::gemv_bounded returns\n  (at most 1 \
         when the bounds hold); \"(first k)\": over entries 0..k-1 only, where a bounded call \
         over all n rows\n  would take more than {BOUND_SECONDS} s (each entry's result and \
         bound do not depend on the other rows). An error of 0: exact.\n",
    );
    s.push_str(
        "  CPU ms: mpblas::blas::gemv (rows in parallel, each row's dot in the blocked order); \
         calls N/T: the timed calls\n  behind the medians. MPRES-BLAS fixes the precision at \
         compile time; ours is chosen at run time.\n  \"RNS b fused\": \
         mpblas::blas::rns::gemv_fused, y_i = RN_p(sum_j a_ij fl(alpha x_j) + beta y_i): the \
         exact sum in a wider\n  basis of the same moduli, rounded once; its bounds are \
         extended-range (read 0 in f64 below 2^-1074, as the errors).\n",
    );
    for r in rows.iter().filter(|r| r.input_bits == INPUT_BITS[0]) {
        if let (Format::Rns(bits), Some(moduli)) = (r.format, r.moduli) {
            let paper = table5(bits).map_or(String::new(), |c| {
                format!(" (MPRES-BLAS: {} moduli)", c.moduli)
            });
            let _ = writeln!(
                s,
                "  RNS {bits}: {moduli} moduli of 31 bits, p = {} bits{paper}",
                r.precision
            );
        }
    }
    match gpu {
        Some(name) => {
            let _ = writeln!(
                s,
                "  GPU run on {name}; mpblas::blas::gpu::gemv, CUDA-event time, median of {} launches \
                 after {GPU_WARMUP} warm-up launches;\n  GPU = CPU bits: every entry of y, N \
                 and T, equal word for word to the CPU's (RNS: field by field,\n  \
                 mpblas::blas::gpu::rns::gemv, the reference form: one thread per node of the sum's tree;\n  \
                 \"fused\": mpblas::blas::gpu::rns::gemv_fused, the exact sum rounded once).",
                plan.reps
            );
        }
        None => s.push_str("  GPU: not run (--gpu times every row on GPU 0).\n"),
    }
    s
}

fn json_doc(rows: &[Row], plan: &Plan, cpu: &str, gpu: Option<&str>) -> Value {
    let num = |v: f64| {
        if v.is_finite() { json!(v) } else { Value::Null }
    };
    let per =
        |f: &dyn Fn(&Case) -> Value, r: &Row| json!({"N": f(&r.cases[0]), "T": f(&r.cases[1])});
    let rows: Vec<Value> = rows
        .iter()
        .map(|r| {
            let paper = r.format.rns_bits().and_then(|bits| {
                table5(bits)
                    .map(|c| json!({"N": c.proposed_n, "T": c.proposed_t, "moduli": c.moduli}))
            });
            let mpres = r
                .format
                .rns_bits()
                .map_or(Value::Null, |bits| mpres_h100(bits, r.input_bits).json());
            let gpu_json = match gpu {
                None => Value::Null,
                Some(_) => per(
                    &|c| match &c.gpu {
                        Some(g) => {
                            json!({"ms": g.ms, "reps": g.reps, "same_bits_as_cpu": g.same_bits})
                        }
                        None => Value::Null,
                    },
                    r,
                ),
            };
            json!({
                "format": r.format.name(),
                "precision_bits": r.precision,
                "requested_bits": r.format.rns_bits(),
                "moduli": r.moduli,
                "input_bits": r.input_bits,
                "cpu_ms": per(&|c| num(c.cpu_ms), r),
                "cpu_calls": per(&|c| json!(c.cpu_reps), r),
                "bound_entries": per(&|c| json!(c.bound_rows), r),
                "max_rel_error": per(&|c| num(c.max_rel_error), r),
                "max_err_over_bound": per(&|c| num(c.max_err_over_bound), r),
                "paper_gtx1080_ms": paper,
                "mpres_h100_ms": mpres,
                "gpu": gpu_json,
            })
        })
        .collect();
    let table5: Vec<Value> = TABLE5
        .iter()
        .map(|c| {
            json!({
                "bits": c.bits, "moduli": c.moduli, "proposed_n": c.proposed_n,
                "proposed_t": c.proposed_t, "basic": c.basic, "cump": c.cump,
                "campary": c.campary, "garprec": c.garprec,
            })
        })
        .collect();
    json!({
        "paper": "gemv",
        "citation": "K. Isupov, V. Knyazkov, Multiple-precision matrix-vector multiplication on \
                     graphics processing units, Program Systems: Theory and Applications 11(3), \
                     2020, 61-84 (seed 001), Table 5",
        "mpblas": env!("CARGO_PKG_VERSION"),
        "cpu": cpu,
        "threads": plan.threads,
        "n": plan.n,
        "reps": plan.reps,
        "max_seconds": plan.max_seconds,
        "seed": plan.seed,
        "units": "milliseconds",
        "reference": "exact (mpblas::exact::ExactDot long accumulator)",
        "paper_gpu": PAPER_GPU,
        "paper_n": PAPER_N,
        "table5": table5,
        "gpu": gpu,
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_subtraction_of_every_format() {
        let b = Basis::new(1696).expect("basis");
        let third = MpFloat::from_f64(&b, 1.0)
            .div(&MpFloat::from_f64(&b, 3.0))
            .expect("1/3");
        // 1/3 at 1696 bits has pieces far below the f64 range: all of them go in exactly, so
        // 1/3 − 1/3 is 0 and 1/3 − 0.3333… (an f64) is what is left.
        let mut acc = ExactDot::new();
        assert!(third.sub_from(&mut acc));
        assert!(third.neg().sub_from(&mut acc));
        assert_eq!(acc.to_f64(), 0.0);
        let mut acc = ExactDot::new();
        acc.add(1.0 / 3.0);
        assert!(third.sub_from(&mut acc));
        // fl(1/3) is 1/3 − 2^-54/3 (about −1.85e-17 away).
        let rest = acc.to_f64();
        assert!(
            rest < 0.0 && rest.abs() < 1e-16 && rest.abs() > 1e-18,
            "{rest}"
        );
        let mut acc = ExactDot::new();
        acc.add(1.0);
        assert!(Dd::ONE.sub_from(&mut acc) && acc.to_f64() == 0.0);
        assert!(!f64::NAN.sub_from(&mut acc));
    }

    /// The bounds of the first rows of `op(A)` are those of a whole call: a row's result does
    /// not depend on the others, bit for bit.
    #[test]
    fn first_rows_are_those_of_the_whole_call() {
        let inp = inputs(50, 9, 53);
        let ops = Operands::new(&inp, Dd::from);
        for trans in [false, true] {
            let run = |rows: usize| {
                let a = op_block(&ops.a, 50, trans, rows, 50).expect("view");
                let mut y = ops.y[..rows].to_vec();
                let b = blas::gemv_bounded(
                    &ops.alpha,
                    a,
                    VecRef::contiguous(&ops.x),
                    &ops.beta,
                    VecMut::contiguous(&mut y),
                )
                .expect("gemv");
                (y, b)
            };
            let (y, b) = run(50);
            let (y7, b7) = run(7);
            assert_eq!(&y[..7], &y7[..], "trans {trans}");
            assert_eq!(&b[..7], &b7[..], "trans {trans}");
            // And the whole is op(A)·x against the reference of that transpose.
            let exact = exact_y(&inp, trans);
            assert!(max_ratio(&abs_errors(&y, &exact), b.into_iter()) <= 1.0);
            assert!(max_rel_error(&y, &exact) < 1e-25, "trans {trans}");
        }
    }

    #[test]
    fn small_run_is_within_its_bounds() {
        let plan = Plan {
            n: 20,
            reps: 1,
            max_seconds: 0.1,
            seed: 3,
            threads: 1,
            gpu: false,
        };
        let rows = measure(&plan, None).expect("runs");
        assert_eq!(rows.len(), 2 * Format::all().len());
        for r in &rows {
            for c in &r.cases {
                assert!(c.max_err_over_bound <= 1.0, "{r:?}");
                assert!(c.max_rel_error < 1e-12, "{r:?}");
            }
        }
        let f64_row = &rows[0];
        assert!(f64_row.cases[0].max_rel_error > 0.0);
        let rns424 = rows
            .iter()
            .find(|r| r.format == Format::Rns(424))
            .expect("row");
        assert_eq!(rns424.cases[0].max_rel_error, 0.0);
        let doc = json_doc(&rows, &plan, "cpu", None);
        assert_eq!(doc["rows"].as_array().map(Vec::len), Some(26));
        // the fused form: one rounding, at least as accurate as the paper's order
        let fused106 = rows
            .iter()
            .find(|r| r.format == Format::RnsFused(106))
            .expect("row");
        assert!(fused106.cases[0].max_rel_error <= 1.1 * 2f64.powi(-106));
        let text = text(&rows, &plan, "cpu", None);
        assert!(
            text.contains("RNS 1696") && text.contains("did not build"),
            "{text}"
        );
    }
}
