//! `mpblas reproduce solve`: the QD paper's linear solve (Table 6.3.2-1, `A` 2400 × 2400 with
//! 1600 right-hand sides in double, double-double and quad-double) with our CPU times beside
//! the paper's four machines, and a table of forward error against condition number.
//!
//! Seed problem: `A` and `B` uniform in `[−1, 1]` with full 53-bit significands (exact in every
//! format; the paper does not say what it solved), `nrhs = ⌈2n/3⌉`. Rows: `f64` LU
//! ([`lapack::gesv`]); `dd` and `qd` by mixed-precision refinement ([`lapack::gesv_refined`]:
//! `f64` factors, residuals and corrections in the format) and by the format's own LU
//! ([`lapack::gesv`]; at most `n = 800` for `dd` and `n = 200` for every `qd` row, whose
//! rates compare). Errors: the largest `‖x − x*‖∞ / ‖x*‖∞` over the first two right-hand
//! sides, against a quad-double refined solve (`f64` and `dd` rows) or an 848-bit RNS solve
//! (`qd` rows) of the same system.
//!
//! Conditioning table: `A = U·diag(σ)·Vᵀ` of order 40 built in quad-double (`U`, `V` products
//! of three random Householder reflectors, `σ` geometric from 1 to `1/κ`), then Hilbert matrices
//! of orders 6, 10, 14 and 18 (κ₂ from 1.5e7 to 6.5e25), `b = A·1`; each
//! format solves its own rounding of `(A, b)`, and the error is against the 848-bit RNS
//! solution of the quad-double system. Beside each error, the forward error bound the library
//! returns with the solution ([`lapack::solve_bounds`] for the LU rows, the refinement's
//! report), and two rows of condition estimates `1/rcond` ([`lapack::gecon`], 1-norm) from the
//! `f64` and the quad-double factors. Every entry is measured; nothing is asserted here.
//!
//! With `--gpu` every row also runs on GPU 0 at the full order (`lapack::gpu`: cuSOLVER's `f64`
//! LU; the double-double and quad-double refinements with Ozaki-scheme residuals; our LU in
//! each format, the CPU's bits), timed with CUDA events around the call after one untimed call
//! (the device copies of `A` and `B` an LU overwrites included), its sampled columns against a quad-double refined
//! solve (`f64`, `dd`) or an 848-bit RNS refined solve (`qd`) at that order.
//!
//! The seed problem's refined solves run without the report's error bounds
//! (`RefineParams::error_bounds: false`): the paper times the solve alone, and the bounds
//! cost 2 to 11 solves with the factors per right-hand side.

use crate::papers::solve::{
    MACHINES, PAPER_N, PAPER_NRHS, PAPER_OPERATIONS, TABLE632, lu_operations,
};
use crate::reproduce::progress_of;
use crate::reproduce_sum::table;
use mpblas::cuda::{Device, DeviceMatMut, DeviceMatRef};
use mpblas::lapack::{self, Norm, RefineParams, RefinePath, RefineReport};
use mpblas::rns::{Basis, MpFloat};
use mpblas::view::{MatMut, MatRef};
use mpblas::{Dd, Qd, Scalar};
use mpblas_testdata::SplitMix64;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Instant;

/// Largest `n` of the double-double LU row.
pub const CPU_DD_LU_MAX_N: usize = 800;
/// Largest `n` of the quad-double rows.
pub const CPU_QD_MAX_N: usize = 200;
/// Right-hand sides whose error is measured.
const SAMPLED_RHS: usize = 2;
/// Order of the conditioning table's matrices.
pub const COND_N: usize = 40;
/// The conditioning table's condition numbers.
pub const CONDITIONS: [f64; 8] = [1e2, 1e6, 1e10, 1e14, 1e18, 1e22, 1e26, 1e30];
/// Orders of the Hilbert matrices after the prescribed ones (κ₂ ≈ 1.5e7, 1.6e13, 2.6e19 and
/// 6.5e25; their entries rounded to each format).
pub const HILBERT_ORDERS: [usize; 4] = [6, 10, 14, 18];
/// Bits of the RNS reference.
const REFERENCE_BITS: u32 = 848;

/// How `reproduce solve` runs.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Order of `A` (the paper: 2400); `nrhs = ⌈2n/3⌉`.
    pub n: usize,
    /// Timed solves per row (the median is reported), after none untimed (each solve is long).
    pub reps: usize,
    /// Seed of the inputs.
    pub seed: u64,
    /// Threads of the CPU runs.
    pub threads: usize,
    /// Also run every row on GPU 0 at the full order.
    pub gpu: bool,
}

/// A row's GPU run (order `n`, `⌈2n/3⌉` right-hand sides).
#[derive(Clone, Debug)]
pub struct GpuCell {
    /// The order.
    pub n: usize,
    /// Median seconds (CUDA events).
    pub seconds: f64,
    /// The refinement's report.
    pub refine: Option<RefineReport>,
    /// Largest relative error of the sampled right-hand sides.
    pub max_rel_error: f64,
}

/// One row of the seed problem.
#[derive(Clone, Debug)]
pub struct Row {
    /// "f64", "dd", "qd".
    pub format: &'static str,
    /// "LU" or "refined".
    pub method: &'static str,
    /// The run's order (`nrhs = ⌈2n/3⌉`).
    pub n: usize,
    /// Median seconds.
    pub seconds: f64,
    /// The refinement's report.
    pub refine: Option<RefineReport>,
    /// Largest relative error of the sampled right-hand sides.
    pub max_rel_error: f64,
    /// The same solve on the GPU (`--gpu`).
    pub gpu: Option<GpuCell>,
}

/// One line of the conditioning table: errors per condition number.
#[derive(Clone, Debug)]
pub struct CondRow {
    /// "f64 LU", "dd refined", ...
    pub method: &'static str,
    /// `‖x − x*‖∞ / ‖x*‖∞` per entry of [`CONDITIONS`], then per [`HILBERT_ORDERS`].
    pub errors: Vec<f64>,
    /// The refinement's path per condition number (refined rows).
    pub paths: Vec<Option<RefinePath>>,
    /// The forward error bound returned with the solution, per condition number (`+∞` for a
    /// singular rounding).
    pub bounds: Vec<f64>,
    /// `rcond` of the factors the solution came from (1-norm, [`lapack::gecon`]), per
    /// condition number (0 for a singular rounding).
    pub rconds: Vec<f64>,
}

fn err(e: mpblas::Error) -> String {
    e.to_string()
}

fn nrhs_of(n: usize) -> usize {
    (2 * n).div_ceil(3)
}

/// Words of a value, most significant first (exact conversions to the RNS reference).
trait Words: Scalar<Ctx = ()> {
    fn words(&self) -> Vec<f64>;
    /// The format's rounding of a quad-double.
    fn from_qd(q: Qd) -> Self;
}
impl Words for f64 {
    fn words(&self) -> Vec<f64> {
        vec![*self]
    }
    fn from_qd(q: Qd) -> f64 {
        q.nearest_f64()
    }
}
impl Words for Dd {
    fn words(&self) -> Vec<f64> {
        vec![self.hi, self.lo]
    }
    fn from_qd(q: Qd) -> Dd {
        Dd::from(q.c[0]).add_f64(q.c[1])
    }
}
impl Words for Qd {
    fn words(&self) -> Vec<f64> {
        self.c.to_vec()
    }
    fn from_qd(q: Qd) -> Qd {
        q
    }
}

fn to_mp<T: Words>(basis: &Arc<Basis>, x: &T) -> MpFloat {
    let mut s = MpFloat::from_f64(basis, 0.0);
    for w in x.words() {
        s = &s + &MpFloat::from_f64(basis, w);
    }
    s
}

/// `x*` of `A·x = b` (`n × n`, `nrhs` columns) by refinement in the 848-bit RNS format.
fn rns_solution<T: Words>(a: &[T], b: &[T], n: usize, nrhs: usize) -> Result<Vec<MpFloat>, String> {
    let basis = Basis::new(REFERENCE_BITS).map_err(err)?;
    let am: Vec<MpFloat> = a.iter().map(|v| to_mp(&basis, v)).collect();
    let bm: Vec<MpFloat> = b.iter().map(|v| to_mp(&basis, v)).collect();
    let mut x = bm.clone();
    lapack::gesv_refined(
        MatRef::col_major(&am, n, n, n).map_err(err)?,
        MatRef::col_major(&bm, n, nrhs, n).map_err(err)?,
        MatMut::col_major(&mut x, n, nrhs, n).map_err(err)?,
        &SOLVE_ONLY,
    )
    .map_err(err)?;
    Ok(x)
}

/// Largest `‖x − x*‖∞ / ‖x*‖∞` over the columns, in the RNS format (`x` converted exactly).
fn rel_error_mp<T: Words>(x: &[T], want: &[MpFloat], n: usize, cols: usize) -> f64 {
    let Some(basis) = want.first().map(|w| w.ctx()) else {
        return 0.0;
    };
    let mut worst = 0.0f64;
    for c in 0..cols {
        let (mut e, mut s) = (0.0f64, 0.0f64);
        for i in 0..n {
            let w = &want[i + c * n];
            let d = &to_mp(&basis, &x[i + c * n]) - w;
            e = e.max(d.to_f64().abs());
            s = s.max(w.to_f64().abs());
        }
        worst = worst.max(if s > 0.0 { e / s } else { e });
    }
    worst
}

/// The median of `reps` timings of `once` (each returns its seconds).
fn median(reps: usize, mut once: impl FnMut() -> Result<f64, String>) -> Result<f64, String> {
    let mut t = (0..reps.max(1))
        .map(|_| once())
        .collect::<Result<Vec<f64>, String>>()?;
    t.sort_by(f64::total_cmp);
    Ok(crate::measure::median(&t))
}

/// [`median`] after one untimed call (the GPU's first call compiles its kernels and makes the
/// cuSOLVER handle and workspaces).
fn warm_median(reps: usize, mut once: impl FnMut() -> Result<f64, String>) -> Result<f64, String> {
    once()?;
    median(reps, once)
}

/// Refinement without the report's error bounds: the timed solves and the references.
const SOLVE_ONLY: RefineParams = RefineParams {
    max_iterations: 30,
    fallback: true,
    error_bounds: false,
};

/// Solves `A·X = B` in `T` by LU (`refine = false`) or refinement (without error bounds): the
/// solution, the report, and the seconds.
fn solve<T: Words>(
    a: &[T],
    b: &[T],
    n: usize,
    nrhs: usize,
    refine: bool,
) -> Result<(Vec<T>, Option<RefineReport>, f64), String> {
    let t = Instant::now();
    if refine {
        let mut x = b.to_vec();
        let r = lapack::gesv_refined(
            MatRef::col_major(a, n, n, n).map_err(err)?,
            MatRef::col_major(b, n, nrhs, n).map_err(err)?,
            MatMut::col_major(&mut x, n, nrhs, n).map_err(err)?,
            &SOLVE_ONLY,
        )
        .map_err(err)?;
        Ok((x, Some(r), t.elapsed().as_secs_f64()))
    } else {
        let (mut lu, mut x) = (a.to_vec(), b.to_vec());
        let mut ipiv = vec![0; n];
        lapack::gesv(
            MatMut::col_major(&mut lu, n, n, n).map_err(err)?,
            &mut ipiv,
            MatMut::col_major(&mut x, n, nrhs, n).map_err(err)?,
        )
        .map_err(err)?;
        Ok((x, None, t.elapsed().as_secs_f64()))
    }
}

/// The seed problem at order `n`: `A` and `B` in `f64`.
fn seed_inputs(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut g = SplitMix64::new(seed ^ 0x501e);
    let a = (0..n * n).map(|_| g.range(-1.0, 1.0)).collect();
    let b = (0..n * nrhs_of(n)).map(|_| g.range(-1.0, 1.0)).collect();
    (a, b)
}

/// The reference solution of the sampled columns: `(A, B's first columns, columns)` to the
/// 848-bit values.
type Reference = dyn Fn(&[f64], &[f64], usize) -> Result<Vec<MpFloat>, String>;

/// One row of the seed problem: `T`'s solve at order `n`, timed, its sampled columns against
/// `reference` (quad-double or RNS values of the same system).
fn seed_row<T: Words>(
    (format, method): (&'static str, &'static str),
    n: usize,
    plan: &Plan,
    reference: &Reference,
) -> Result<Row, String> {
    let nrhs = nrhs_of(n);
    let (a64, b64) = seed_inputs(n, plan.seed);
    let a: Vec<T> = a64.iter().map(|&v| T::from_f64_in(&(), v)).collect();
    let b: Vec<T> = b64.iter().map(|&v| T::from_f64_in(&(), v)).collect();
    let refine = method == "refined";
    let mut last = None;
    let seconds = median(plan.reps, || {
        let (x, r, s) = solve(&a, &b, n, nrhs, refine)?;
        last = Some((x, r));
        Ok(s)
    })?;
    let (x, refine) = last.ok_or("no solve ran")?;
    let cols = SAMPLED_RHS.min(nrhs);
    let want = reference(&a64, &b64[..n * cols], cols)?;
    Ok(Row {
        format,
        method,
        n,
        seconds,
        refine,
        max_rel_error: rel_error_mp(&x, &want, n, cols),
        gpu: None,
    })
}

/// The seed problem's rows.
///
/// # Errors
/// A library error.
pub fn measure_seed(plan: &Plan) -> Result<Vec<Row>, String> {
    let bar = progress_of(5, "solves");
    let n = plan.n;
    // References: a quad-double refined solve (for f64 and dd), an RNS solve (for qd).
    let qd_ref = |a: &[f64], b: &[f64], cols: usize| -> Result<Vec<MpFloat>, String> {
        let n = (a.len() as f64).sqrt() as usize;
        let aq: Vec<Qd> = a.iter().map(|&v| Qd::from(v)).collect();
        let bq: Vec<Qd> = b.iter().map(|&v| Qd::from(v)).collect();
        let (x, _, _) = solve(&aq, &bq, n, cols, true)?;
        let basis = Basis::new(REFERENCE_BITS).map_err(err)?;
        Ok(x.iter().map(|v| to_mp(&basis, v)).collect())
    };
    let rns_ref = |a: &[f64], b: &[f64], cols: usize| -> Result<Vec<MpFloat>, String> {
        let n = (a.len() as f64).sqrt() as usize;
        rns_solution(a, b, n, cols)
    };
    let mut rows = vec![seed_row::<f64>(("f64", "LU"), n, plan, &qd_ref)?];
    bar.inc(1);
    rows.push(seed_row::<Dd>(("dd", "refined"), n, plan, &qd_ref)?);
    bar.inc(1);
    rows.push(seed_row::<Dd>(
        ("dd", "LU"),
        n.min(CPU_DD_LU_MAX_N),
        plan,
        &qd_ref,
    )?);
    bar.inc(1);
    let qn = n.min(CPU_QD_MAX_N);
    rows.push(seed_row::<Qd>(("qd", "refined"), qn, plan, &rns_ref)?);
    bar.inc(1);
    rows.push(seed_row::<Qd>(("qd", "LU"), qn, plan, &rns_ref)?);
    bar.finish_and_clear();
    Ok(rows)
}

/// The GPU solve of `A·X = B` in `T` by refinement (`refine`) or LU (cuSOLVER's for `f64`, ours
/// otherwise), `reps` times: the solution, the last report and the median seconds (CUDA events
/// around the call; an LU's device copies of `A` and `B` inside).
fn gpu_solve<T: Words + mpblas::blas::gpu::GpuFormat + lapack::gpu::RefineOnDevice>(
    dev: &Device,
    (a, b): (&[T], &[T]),
    (n, nrhs): (usize, usize),
    (refine, reps): (bool, usize),
) -> Result<(Vec<T>, Option<RefineReport>, f64), String> {
    let (da, db) = (dev.upload(a).map_err(err)?, dev.upload(b).map_err(err)?);
    let (mut wa, mut wx) = (
        dev.zeros::<T>(n * n).map_err(err)?,
        dev.zeros::<T>(n * nrhs).map_err(err)?,
    );
    let mut report = None;
    let mut ipiv = vec![0; n];
    let seconds = warm_median(reps, || {
        let ms = dev
            .time_ms(|| {
                if refine {
                    report = Some(lapack::gpu::gesv_refined(
                        dev,
                        DeviceMatRef::col_major(&da, n, n, n)?,
                        DeviceMatRef::col_major(&db, n, nrhs, n)?,
                        DeviceMatMut::col_major(&mut wx, n, nrhs, n)?,
                        &RefineParams::default(),
                    )?);
                    return Ok(());
                }
                wa.copy_from(&da)?;
                wx.copy_from(&db)?;
                lapack::gpu::gesv(
                    dev,
                    DeviceMatMut::col_major(&mut wa, n, n, n)?,
                    &mut ipiv,
                    DeviceMatMut::col_major(&mut wx, n, nrhs, n)?,
                )
            })
            .map_err(err)?;
        Ok(f64::from(ms) * 1e-3)
    })?;
    Ok((wx.download().map_err(err)?, report, seconds))
}

/// cuSOLVER's `f64` solve (`lapack::gpu::dgesv`), `reps` times: the solution and the median
/// seconds (the device copies of `A` and `B` inside).
fn gpu_dgesv(
    dev: &Device,
    (a, b): (&[f64], &[f64]),
    (n, nrhs): (usize, usize),
    reps: usize,
) -> Result<(Vec<f64>, f64), String> {
    let (da, db) = (dev.upload(a).map_err(err)?, dev.upload(b).map_err(err)?);
    let (mut wa, mut wx) = (
        dev.zeros::<f64>(n * n).map_err(err)?,
        dev.zeros::<f64>(n * nrhs).map_err(err)?,
    );
    let seconds = warm_median(reps, || {
        let ms = dev
            .time_ms(|| {
                wa.copy_from(&da)?;
                wx.copy_from(&db)?;
                lapack::gpu::dgesv(
                    dev,
                    DeviceMatMut::col_major(&mut wa, n, n, n)?,
                    DeviceMatMut::col_major(&mut wx, n, nrhs, n)?,
                )
            })
            .map_err(err)?;
        Ok(f64::from(ms) * 1e-3)
    })?;
    Ok((wx.download().map_err(err)?, seconds))
}

/// Each row's GPU run at the full order `plan.n` (same inputs as the CPU's), its errors against
/// one quad-double refined reference (`f64`, `dd`) and one 848-bit RNS refined reference (`qd`)
/// of the sampled columns.
fn measure_gpu(plan: &Plan, dev: &Device, rows: &mut [Row]) -> Result<(), String> {
    let n = plan.n;
    let nrhs = nrhs_of(n);
    let cols = SAMPLED_RHS.min(nrhs);
    let (a64, b64) = seed_inputs(n, plan.seed);
    let bar = progress_of(7, "GPU solves and references");
    let aq: Vec<Qd> = a64.iter().map(|&v| Qd::from(v)).collect();
    let bq: Vec<Qd> = b64[..n * cols].iter().map(|&v| Qd::from(v)).collect();
    let (xq, _, _) = solve(&aq, &bq, n, cols, true)?;
    let basis = Basis::new(REFERENCE_BITS).map_err(err)?;
    let qd_ref: Vec<MpFloat> = xq.iter().map(|v| to_mp(&basis, v)).collect();
    bar.inc(1);
    let rns_ref = rns_solution(&a64, &b64[..n * cols], n, cols)?;
    bar.inc(1);
    let lift = |x: &[f64]| -> Vec<Dd> { x.iter().map(|&v| Dd::from(v)).collect() };
    let liftq = |x: &[f64]| -> Vec<Qd> { x.iter().map(|&v| Qd::from(v)).collect() };
    for row in rows.iter_mut() {
        let (x_err, refine, seconds) = match (row.format, row.method) {
            ("f64", _) => {
                let (x, s) = gpu_dgesv(dev, (&a64, &b64), (n, nrhs), plan.reps)?;
                (rel_error_mp(&x, &qd_ref, n, cols), None, s)
            }
            ("dd", m) => {
                let (x, r, s) = gpu_solve(
                    dev,
                    (&lift(&a64), &lift(&b64)),
                    (n, nrhs),
                    (m == "refined", plan.reps),
                )?;
                (rel_error_mp(&x, &qd_ref, n, cols), r, s)
            }
            (_, m) => {
                let (x, r, s) = gpu_solve(
                    dev,
                    (&liftq(&a64), &liftq(&b64)),
                    (n, nrhs),
                    (m == "refined", plan.reps),
                )?;
                (rel_error_mp(&x, &rns_ref, n, cols), r, s)
            }
        };
        row.gpu = Some(GpuCell {
            n,
            seconds,
            refine,
            max_rel_error: x_err,
        });
        bar.inc(1);
        dev.release_workspaces().map_err(err)?;
    }
    bar.finish_and_clear();
    Ok(())
}

/// `x ← H·x` for the Householder reflector `H = I − 2vvᵀ/(vᵀv)`, on each column of the
/// `n × n` matrix `m`, from the left (`left`) or on each row from the right.
fn reflect(m: &mut [Qd], v: &[Qd], n: usize, left: bool) {
    let vv = v.iter().fold(Qd::ZERO, |s, x| s + *x * *x);
    let at = |i: usize, j: usize| if left { i + j * n } else { j + i * n };
    for j in 0..n {
        let mut d = Qd::ZERO;
        for (i, vi) in v.iter().enumerate() {
            d += *vi * m[at(i, j)];
        }
        let f = (d + d) / vv;
        for (i, vi) in v.iter().enumerate() {
            let idx = at(i, j);
            m[idx] -= f * *vi;
        }
    }
}

/// `A = U·diag(σ)·Vᵀ` of order `n` with `σ_i = κ^(−i/(n−1))`, in quad-double.
fn conditioned(n: usize, kappa: f64, g: &mut SplitMix64) -> Vec<Qd> {
    let mut a = vec![Qd::ZERO; n * n];
    for i in 0..n {
        let t = i as f64 / (n - 1).max(1) as f64;
        // σ_i = κ^-t in quad-double: exp(−t·ln κ).
        a[i + i * n] = (Qd::from(-t) * Qd::from(kappa).ln()).exp();
    }
    for side in [true, false] {
        for _ in 0..3 {
            let v: Vec<Qd> = (0..n).map(|_| Qd::from(g.range(-1.0, 1.0))).collect();
            reflect(&mut a, &v, n, side);
        }
    }
    a
}

/// The conditioning table.
///
/// # Errors
/// A library error.
pub fn measure_conditioning(seed: u64) -> Result<Vec<CondRow>, String> {
    let n = COND_N;
    let bar = progress_of(
        (CONDITIONS.len() + HILBERT_ORDERS.len()) as u64,
        "condition numbers",
    );
    let methods: [(&'static str, usize, bool); 5] = [
        ("f64 LU", 1, false),
        ("dd refined", 2, true),
        ("dd LU", 2, false),
        ("qd refined", 4, true),
        ("qd LU", 4, false),
    ];
    let mut rows: Vec<CondRow> = methods
        .iter()
        .map(|m| CondRow {
            method: m.0,
            errors: Vec::new(),
            paths: Vec::new(),
            bounds: Vec::new(),
            rconds: Vec::new(),
        })
        .collect();
    let mut g = SplitMix64::new(seed ^ 0xc0d);
    let prescribed = CONDITIONS
        .iter()
        .map(|&kappa| (n, conditioned(n, kappa, &mut g)));
    let hilbert = HILBERT_ORDERS.iter().map(|&h| {
        let a: Vec<Qd> = (0..h * h)
            .map(|e| Qd::ONE / Qd::from((e % h + e / h + 1) as f64))
            .collect();
        (h, a)
    });
    for (n, a) in prescribed.collect::<Vec<_>>().into_iter().chain(hilbert) {
        let b: Vec<Qd> = (0..n)
            .map(|i| (0..n).fold(Qd::ZERO, |s, j| s + a[i + j * n]))
            .collect();
        let want = rns_solution(&a, &b, n, 1)?;
        for (row, &(_, words, refine)) in rows.iter_mut().zip(&methods) {
            let e = match words {
                1 => cond_entry::<f64>(&a, &b, n, refine, &want),
                2 => cond_entry::<Dd>(&a, &b, n, refine, &want),
                _ => cond_entry::<Qd>(&a, &b, n, refine, &want),
            }?;
            row.errors.push(e.error);
            row.paths.push(e.path);
            row.bounds.push(e.forward_bound);
            row.rconds.push(e.rcond);
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(rows)
}

/// One entry of the conditioning table.
struct CondEntry {
    /// `‖x − x*‖∞ / ‖x*‖∞` (`+∞` for a singular rounding).
    error: f64,
    /// The refinement's path (refined rows).
    path: Option<RefinePath>,
    /// The forward error bound returned with the solution.
    forward_bound: f64,
    /// `rcond` of the solution's factors (1-norm).
    rcond: f64,
}

/// One format's solve of its rounding of `(A, b)` (LU or refinement) with its bounds, the
/// error against `want`.
fn cond_entry<T: Words>(
    a: &[Qd],
    b: &[Qd],
    n: usize,
    refine: bool,
    want: &[MpFloat],
) -> Result<CondEntry, String> {
    let at: Vec<T> = a.iter().map(|&q| T::from_qd(q)).collect();
    let bt: Vec<T> = b.iter().map(|&q| T::from_qd(q)).collect();
    let singular = CondEntry {
        error: f64::INFINITY,
        path: None,
        forward_bound: f64::INFINITY,
        rcond: 0.0,
    };
    let av = MatRef::col_major(&at, n, n, n).map_err(err)?;
    let bv = MatRef::col_major(&bt, n, 1, n).map_err(err)?;
    let mut x = bt.clone();
    if refine {
        let r = lapack::gesv_refined(
            av,
            bv,
            MatMut::col_major(&mut x, n, 1, n).map_err(err)?,
            &RefineParams::default(),
        );
        return match r {
            Ok(r) => Ok(CondEntry {
                error: rel_error_mp(&x, want, n, 1),
                path: Some(r.path),
                forward_bound: r.forward_error,
                rcond: r.rcond,
            }),
            Err(mpblas::Error::Singular { .. }) => Ok(singular),
            Err(e) => Err(err(e)),
        };
    }
    let mut lu = at.clone();
    let mut ipiv = vec![0; n];
    if lapack::getrf(MatMut::col_major(&mut lu, n, n, n).map_err(err)?, &mut ipiv)
        .map_err(err)?
        .is_some()
    {
        return Ok(singular);
    }
    let luv = MatRef::col_major(&lu, n, n, n).map_err(err)?;
    lapack::getrs(
        mpblas::view::Trans::No,
        luv,
        &ipiv,
        MatMut::col_major(&mut x, n, 1, n).map_err(err)?,
    )
    .map_err(err)?;
    let xv = MatRef::col_major(&x, n, 1, n).map_err(err)?;
    let bounds = lapack::solve_bounds(av, luv, &ipiv, bv, xv).map_err(err)?;
    let rcond = lapack::gecon(Norm::One, luv, &ipiv, lapack::lange(Norm::One, av)).map_err(err)?;
    Ok(CondEntry {
        error: rel_error_mp(&x, want, n, 1),
        path: None,
        forward_bound: bounds.first().map_or(f64::NAN, |s| s.forward_error),
        rcond,
    })
}

/// Runs the reproduction and prints the tables, or with `as_json` returns the JSON document.
///
/// # Errors
/// A bad plan or a library error.
pub fn run(plan: &Plan, as_json: bool) -> Result<Option<Value>, String> {
    if plan.n == 0 || plan.reps == 0 {
        return Err("--n and --reps must be at least 1".into());
    }
    let dev = if plan.gpu {
        Some(Device::open(0).map_err(|e| format!("--gpu: cannot open GPU 0: {e}"))?)
    } else {
        None
    };
    let pool = crate::reproduce::pool(plan.threads)?;
    let (rows, cond) = pool.install(|| -> Result<_, String> {
        let mut rows = measure_seed(plan)?;
        if let Some(dev) = &dev {
            measure_gpu(plan, dev, &mut rows)?;
        }
        Ok((rows, measure_conditioning(plan.seed)?))
    })?;
    let cpu = crate::info::cpu_model().unwrap_or_else(|| "unknown CPU".into());
    let gpu = dev.as_ref().map(|d| d.info().to_string());
    if as_json {
        return Ok(Some(json_doc(&rows, &cond, plan, (&cpu, gpu.as_deref()))));
    }
    print!("{}", text(&rows, &cond, plan, (&cpu, gpu.as_deref())));
    Ok(None)
}

fn secs(s: f64) -> String {
    if s >= 10.0 {
        format!("{s:.1}")
    } else if s >= 0.1 {
        format!("{s:.2}")
    } else {
        format!("{:.2} ms", s * 1e3)
    }
}

fn path_name(p: RefinePath) -> &'static str {
    match p {
        RefinePath::Refined => "refined",
        RefinePath::Fallback => "fallback",
        RefinePath::NotConverged => "not converged",
    }
}

/// The text tables.
pub fn text(
    rows: &[Row],
    cond: &[CondRow],
    plan: &Plan,
    (cpu, gpu): (&str, Option<&str>),
) -> String {
    let mut s = format!(
        "QD paper, Table 6.3.2-1: A X = B, A {PAPER_N} x {PAPER_N}, {PAPER_NRHS} right-hand \
         sides ({PAPER_OPERATIONS:.2e} operations by the paper's count), seconds per solve.\n\
         Ours: A n x n and ceil(2n/3) right-hand sides, uniform in [-1, 1] with 53-bit \
         significands; CPU: {cpu}, {} threads{}.\n\n",
        plan.threads,
        gpu.map_or(String::new(), |g| format!("; GPU: {g} at n = {}", plan.n))
    );
    let mut header: Vec<String> = vec!["format".into(), "method".into()];
    header.extend(MACHINES.iter().map(|m| format!("paper {m}")));
    header.extend(["n", "ours CPU", "G op/s (LU count)", "steps", "max rel err"].map(String::from));
    if gpu.is_some() {
        header.extend(
            [
                "ours GPU",
                "GPU steps",
                "GPU max rel err",
                "GPU error bound",
            ]
            .map(String::from),
        );
    }
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let paper = TABLE632.iter().find(|p| p.format == r.format);
            let mut cells = vec![r.format.to_string(), r.method.to_string()];
            cells.extend((0..4).map(|m| paper.map_or("-".into(), |p| secs(p.seconds[m]))));
            cells.push(r.n.to_string());
            cells.push(secs(r.seconds));
            cells.push(format!(
                "{:.2}",
                lu_operations(r.n, nrhs_of(r.n)) / r.seconds / 1e9
            ));
            cells.push(r.refine.map_or("-".into(), |rep| {
                format!("{} ({})", rep.iterations, path_name(rep.path))
            }));
            cells.push(format!("{:.1e}", r.max_rel_error));
            if let Some(g) = &r.gpu {
                cells.push(secs(g.seconds));
                cells.push(g.refine.map_or("-".into(), |rep| {
                    format!("{} ({})", rep.iterations, path_name(rep.path))
                }));
                cells.push(format!("{:.1e}", g.max_rel_error));
                cells.push(
                    g.refine
                        .map_or("-".into(), |rep| format!("{:.1e}", rep.forward_error)),
                );
            }
            cells
        })
        .collect();
    let header_ref: Vec<&str> = header.iter().map(String::as_str).collect();
    s.push_str(&table(&header_ref, &body));
    s.push_str(
        "\nErrors: the first two right-hand sides against a quad-double refined solve (f64, dd) \
         or an 848-bit RNS solve (qd). refined: f64 LU factors, residuals and corrections in \
         the format (lapack::gesv_refined); LU: the format's own blocked LU (lapack::gesv). \
         GPU error bound: the forward error bound of the GPU refinement's report (the worst \
         column's, lapack::gpu::gesv_refined).\n",
    );
    s.push_str(&format!(
        "\nForward error against condition number: A = U diag(sigma) V^T of order {COND_N} in \
         quad-double, then Hilbert matrices of the orders shown (entries 1/(i+j+1) in \
         quad-double), b = A 1, each format solving its rounding of (A, b); \
         |x - x*|_inf / |x*|_inf against the 848-bit RNS solution, and in brackets the \
         forward error bound returned with the solution (an estimate-based bound, as LAPACK's \
         FERR; f: refinement fell back to the format's LU). 1/rcond rows: the 1-norm \
         condition estimate (lapack::gecon) from the f64 and the quad-double LU factors \
         (k_1 is within a factor n of the k_2 of the header).\n\n"
    ));
    let mut header: Vec<String> = vec!["method".into()];
    header.extend(CONDITIONS.iter().map(|k| format!("k = {k:.0e}")));
    header.extend(HILBERT_ORDERS.iter().map(|h| format!("Hilbert {h}")));
    let estimates = ["f64 LU", "qd LU"].into_iter().filter_map(|m| {
        let r = cond.iter().find(|r| r.method == m)?;
        let mut cells = vec![format!("1/rcond ({m})")];
        cells.extend(r.rconds.iter().map(|rc| format!("{:.1e}", 1.0 / rc)));
        Some(cells)
    });
    let body: Vec<Vec<String>> = estimates
        .chain(cond.iter().map(|r| {
            let mut cells = vec![r.method.to_string()];
            cells.extend(
                r.errors
                    .iter()
                    .zip(&r.paths)
                    .zip(&r.bounds)
                    .map(|((e, p), b)| {
                        let mark = if *p == Some(RefinePath::Fallback) {
                            " f"
                        } else {
                            ""
                        };
                        format!("{e:.1e} [{b:.0e}]{mark}")
                    }),
            );
            cells
        }))
        .collect();
    let header_ref: Vec<&str> = header.iter().map(String::as_str).collect();
    s.push_str(&table(&header_ref, &body));
    s
}

fn json_doc(
    rows: &[Row],
    cond: &[CondRow],
    plan: &Plan,
    (cpu, gpu): (&str, Option<&str>),
) -> Value {
    let num = |v: f64| if v.is_finite() { json!(v) } else { Value::Null };
    json!({
        "paper": "solve",
        "title": "QD paper, Table 6.3.2-1: linear solve A X = B",
        "cpu": cpu,
        "gpu": gpu,
        "threads": plan.threads,
        "n": plan.n,
        "paper_rows": TABLE632.iter().map(|p| json!({"format": p.format, "seconds": p.seconds}))
            .collect::<Vec<_>>(),
        "rows": rows.iter().map(|r| json!({
            "format": r.format,
            "method": r.method,
            "n": r.n,
            "nrhs": nrhs_of(r.n),
            "seconds": r.seconds,
            "refine": r.refine.map(|rep| json!({
                "path": path_name(rep.path),
                "iterations": rep.iterations,
                "last_correction": num(rep.last_correction),
            })),
            "max_rel_error": num(r.max_rel_error),
            "gpu": r.gpu.as_ref().map(|g| json!({
                "n": g.n,
                "seconds": g.seconds,
                "refine": g.refine.map(|rep| json!({
                    "path": path_name(rep.path),
                    "iterations": rep.iterations,
                    "rcond": num(rep.rcond),
                    "backward_error": num(rep.backward_error),
                    "forward_error_bound": num(rep.forward_error),
                })),
                "max_rel_error": num(g.max_rel_error),
            })),
        })).collect::<Vec<_>>(),
        "conditioning": {
            "n": COND_N,
            "conditions": CONDITIONS,
            "hilbert_orders": HILBERT_ORDERS,
            "rows": cond.iter().map(|r| json!({
                "method": r.method,
                "errors": r.errors.iter().map(|&e| num(e)).collect::<Vec<_>>(),
                "paths": r.paths.iter().map(|p| p.map(path_name)).collect::<Vec<_>>(),
                "forward_error_bounds": r.bounds.iter().map(|&e| num(e)).collect::<Vec<_>>(),
                "rcond": r.rconds.iter().map(|&e| num(e)).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_run_measures_every_row() {
        let plan = Plan {
            n: 30,
            reps: 1,
            seed: 3,
            threads: 2,
            gpu: false,
        };
        let rows = measure_seed(&plan).unwrap();
        assert_eq!(rows.len(), 5);
        for r in &rows {
            let tol = match r.format {
                "f64" => 1e-10,
                "dd" => 1e-26,
                _ => 1e-55,
            };
            assert!(r.max_rel_error < tol, "{r:?}");
        }
        let cond = measure_conditioning(3).unwrap();
        assert_eq!(cond.len(), 5);
        // Well-conditioned: every method near its precision.
        assert!(cond.iter().all(|r| r.errors[0] < 1e-12), "{cond:?}");
        // κ = 1e18: f64 has lost every digit, and f64 factors cannot refine: dd falls back.
        assert!(cond[0].errors[4] > 1e-3, "{cond:?}");
        assert_eq!(cond[1].paths[4], Some(RefinePath::Fallback));
        assert!(cond[1].errors[4] < 1e-12, "{cond:?}");
        // Up to κ = 1e10 every format's factors are accurate: each returned bound holds, and
        // the quad-double factors' 1/rcond is within a factor n of κ₂ (and above κ₂/10).
        for r in &cond {
            for k in 0..3 {
                assert!(r.errors[k] <= r.bounds[k], "{} k={k}: {cond:?}", r.method);
            }
        }
        let qd_lu = &cond[4];
        for (k, rc) in CONDITIONS.iter().zip(&qd_lu.rconds) {
            let est = 1.0 / rc;
            assert!(
                est >= k / 10.0 && est <= k * COND_N as f64,
                "{k:e}: {est:e}"
            );
        }
        let t = text(&rows, &cond, &plan, ("cpu", None));
        assert!(t.contains("C2050") && t.contains("qd refined") && t.contains("1/rcond (qd LU)"));
        let j = json_doc(&rows, &cond, &plan, ("cpu", None));
        assert_eq!(j["rows"].as_array().unwrap().len(), 5);
    }
}
