//! `mpblas reproduce gemm`: the QD paper's matrix product (Table 6.2.2-1, `A` 1600 × 3200
//! times `B` 3200 × 1600 in double, double-double and quad-double) with our times beside the
//! paper's four machines: the library's [`blas::gemm`] (and, for double-double, also
//! [`blas::gemm_dd_compensated`] and the double-double Ozaki scheme II,
//! [`ozaki::ozaki2_gemm_dd`], on the same double-double operands) on the CPU (all threads) and
//! with `--gpu` the tiled kernels [`blas::gpu::gemm`] and [`blas::gpu::gemm_dd_compensated`]
//! and the INT8 tensor-core scheme [`ozaki::gpu::ozaki2_gemm_dd`] on GPU 0 (and cuBLAS's DGEMM
//! for scale), the
//! largest relative error of sampled entries against an exact reference, the largest ratio of
//! error to the bound the library returns, and whether the GPU's bits equal the CPU's.
//!
//! Inputs: uniform in `[−1, 1]` with full 53-bit significands (every format holds them
//! exactly; the paper does not say what it multiplied). The sampled entries are the top-left
//! 8 × 8 block: each entry's order is its own, so the CPU's product of the first 8 rows and
//! columns alone has the full product's bits there; that block gives the bounds
//! ([`blas::gemm_bounded`]) and the GPU check even where the CPU row runs at a smaller size.
//! The exact entries are long accumulations ([`ExactDot`]) of the exact products.

use crate::papers::gemm::{MACHINES, PAPER_K, PAPER_N, TABLE622, operations};
use crate::reproduce::progress_of;
use crate::reproduce_gemv::{Exact, abs_errors, max_ratio};
use crate::reproduce_sum::table;
use mpblas::blas::bounds::compensated_dot_gamma;
use mpblas::blas::{self, gpu::GpuFormat};
use mpblas::cuda::{Device, DeviceMatMut, DeviceMatRef};
use mpblas::exact::ExactDot;
use mpblas::ozaki::{self, ozaki2_dd_params};
use mpblas::view::{MatMut, MatRef};
use mpblas::{Dd, Qd, Scalar};
use mpblas_testdata::SplitMix64;
use serde_json::{Value, json};
use std::time::Instant;

/// Side of the sampled top-left block of `C`.
const SAMPLE: usize = 8;
/// Largest `n` at which the CPU runs the quad-double product and the Ozaki scheme (a
/// 1600 × 3200 × 1600 product takes minutes on a few cores; the rate is what compares).
pub const CPU_SLOW_MAX_N: usize = 400;

/// How `reproduce gemm` runs.
#[derive(Clone, Debug)]
pub struct Plan {
    /// `C` is `n × n`, the inner dimension `2n` (the paper: 1600).
    pub n: usize,
    /// Timed products per case (the median is reported), after one untimed product.
    pub reps: usize,
    /// Seed of the inputs.
    pub seed: u64,
    /// Threads of the CPU runs.
    pub threads: usize,
    /// Also run every format on GPU 0.
    pub gpu: bool,
}

/// One format's measurements.
#[derive(Clone, Debug)]
pub struct Row {
    /// "f64", "dd", "qd".
    pub format: &'static str,
    /// The CPU run's `n` (the inner dimension is `2n`).
    pub cpu_n: usize,
    /// Median seconds of the CPU product.
    pub cpu_s: f64,
    /// Median seconds on the GPU, when run.
    pub gpu_s: Option<f64>,
    /// Whether the GPU's sampled block has the CPU's bits.
    pub gpu_same_bits: Option<bool>,
    /// Largest `|ĉ_ij − c_ij| / |c_ij|` over the sampled block.
    pub max_rel_error: f64,
    /// Largest `|ĉ_ij − c_ij| / bound_ij` over the sampled block.
    pub max_err_over_bound: f64,
}

/// Operands at one size: `A` (`n × 2n`) and `B` (`2n × n`), column-major, and the exact
/// sampled block.
struct Inputs {
    n: usize,
    a: Vec<f64>,
    b: Vec<f64>,
    exact: Vec<ExactDot>,
}

impl Inputs {
    fn new(n: usize, seed: u64) -> Inputs {
        let k = 2 * n;
        let mut g = SplitMix64::new(seed ^ 0x6e33);
        let mut uniform = || g.range(-1.0, 1.0);
        let a: Vec<f64> = (0..n * k).map(|_| uniform()).collect();
        let b: Vec<f64> = (0..k * n).map(|_| uniform()).collect();
        let s = SAMPLE.min(n);
        let exact = (0..s * s)
            .map(|e| {
                let (i, j) = (e % s, e / s);
                let mut acc = ExactDot::new();
                for l in 0..k {
                    acc.add_product(a[i + l * n], b[l + j * k]);
                }
                acc
            })
            .collect();
        Inputs { n, a, b, exact }
    }
    fn k(&self) -> usize {
        2 * self.n
    }
}

/// The median ([`crate::measure::median`]) of `reps` timings after one untimed call.
fn median(reps: usize, mut once: impl FnMut() -> Result<f64, String>) -> Result<f64, String> {
    once()?;
    let mut t = (0..reps)
        .map(|_| once())
        .collect::<Result<Vec<f64>, String>>()?;
    t.sort_by(f64::total_cmp);
    Ok(crate::measure::median(&t))
}

fn err(e: mpblas::Error) -> String {
    e.to_string()
}

/// A CPU GEMM (`C ← α·A·B + β·C` on views).
type CpuGemm<T> =
    dyn Fn(&T, MatRef<'_, T>, MatRef<'_, T>, &T, MatMut<'_, T>) -> mpblas::Result<()> + Sync;
/// Its bounded form.
type CpuGemmBounded<T> =
    dyn Fn(&T, MatRef<'_, T>, MatRef<'_, T>, &T, MatMut<'_, T>) -> mpblas::Result<Vec<f64>> + Sync;
/// Its GPU twin.
type GpuGemm<T> = dyn Fn(
    &Device,
    T,
    DeviceMatRef<'_, T>,
    DeviceMatRef<'_, T>,
    T,
    DeviceMatMut<'_, T>,
) -> mpblas::Result<()>;

/// One row's routines: the format's `gemm`, or the compensated double-double one.
struct Routines<'a, T: mpblas::cuda::DeviceScalar> {
    cpu: &'a CpuGemm<T>,
    bounded: &'a CpuGemmBounded<T>,
    gpu: &'a GpuGemm<T>,
}

/// The sampled block through the CPU's bounded product of its rows and columns: values and
/// bounds.
fn sampled_block<T: Scalar<Ctx = ()>>(
    a: &[T],
    b: &[T],
    n: usize,
    bounded: &CpuGemmBounded<T>,
) -> Result<(Vec<T>, Vec<f64>), String> {
    let (k, s) = (2 * n, SAMPLE.min(n));
    let av = MatRef::col_major(a, n, k, n)
        .and_then(|v| v.block(0, 0, s, k))
        .map_err(err)?;
    let bv = MatRef::col_major(b, k, n, k)
        .and_then(|v| v.block(0, 0, k, s))
        .map_err(err)?;
    let mut c = vec![T::zero_in(&()); s * s];
    let bounds = bounded(
        &T::one_in(&()),
        av,
        bv,
        &T::zero_in(&()),
        MatMut::col_major(&mut c, s, s, s).map_err(err)?,
    )
    .map_err(err)?;
    Ok((c, bounds))
}

/// The top-left block of a column-major `n × n` result.
fn block_of<T: Copy>(c: &[T], n: usize) -> Vec<T> {
    let s = SAMPLE.min(n);
    (0..s * s).map(|e| c[e % s + (e / s) * n]).collect()
}

fn same_bits<T: mpblas::cuda::DeviceScalar>(x: &[T], y: &[T]) -> bool {
    x.iter().zip(y).all(|(p, q)| {
        let (p, q) = (p.to_words(), q.to_words());
        (0..T::WORDS).all(|w| p[w].to_bits() == q[w].to_bits())
    })
}

/// One format: the CPU product at `cpu` (timed, its sampled block checked), and on the GPU at
/// `full` when `dev` is given.
fn format_row<T: GpuFormat + Exact + Sync>(
    format: &'static str,
    conv: impl Fn(f64) -> T + Copy,
    (cpu, full): (&Inputs, &Inputs),
    routines: &Routines<'_, T>,
    plan: &Plan,
    dev: Option<&Device>,
) -> Result<Row, String> {
    let (n, k) = (cpu.n, cpu.k());
    let a: Vec<T> = cpu.a.iter().map(|&v| conv(v)).collect();
    let b: Vec<T> = cpu.b.iter().map(|&v| conv(v)).collect();
    let (one, zero) = (T::one_in(&()), T::zero_in(&()));
    let mut c = vec![zero; n * n];
    let cpu_s = median(plan.reps, || {
        let t = Instant::now();
        (routines.cpu)(
            &one,
            MatRef::col_major(&a, n, k, n).map_err(err)?,
            MatRef::col_major(&b, k, n, k).map_err(err)?,
            &zero,
            MatMut::col_major(&mut c, n, n, n).map_err(err)?,
        )
        .map_err(err)?;
        Ok(t.elapsed().as_secs_f64())
    })?;
    let (block, bounds) = sampled_block(&a, &b, n, routines.bounded)?;
    if !same_bits(&block, &block_of(&c, n)) {
        return Err(format!(
            "{format}: the sampled block differs from the full product's"
        ));
    }
    let errs = abs_errors(&block, &cpu.exact);
    let max_rel_error = max_ratio(&errs, cpu.exact.iter().map(|s| s.to_f64().abs()));
    let max_err_over_bound = max_ratio(&errs, bounds.iter().copied());
    let (mut gpu_s, mut gpu_same_bits) = (None, None);
    if let Some(dev) = dev {
        let (n, k) = (full.n, full.k());
        let a: Vec<T> = full.a.iter().map(|&v| conv(v)).collect();
        let b: Vec<T> = full.b.iter().map(|&v| conv(v)).collect();
        let (da, db) = (dev.upload(&a).map_err(err)?, dev.upload(&b).map_err(err)?);
        let mut dc = dev.zeros::<T>(n * n).map_err(err)?;
        let ga = DeviceMatRef::col_major(&da, n, k, n).map_err(err)?;
        let gb = DeviceMatRef::col_major(&db, k, n, k).map_err(err)?;
        let s = median(plan.reps, || {
            let ms = dev
                .time_ms(|| {
                    (routines.gpu)(
                        dev,
                        one,
                        ga,
                        gb,
                        zero,
                        DeviceMatMut::col_major(&mut dc, n, n, n)?,
                    )
                })
                .map_err(err)?;
            Ok(f64::from(ms) * 1e-3)
        })?;
        let got = block_of(&dc.download().map_err(err)?, n);
        let (want, _) = sampled_block(&a, &b, n, routines.bounded)?;
        gpu_s = Some(s);
        gpu_same_bits = Some(same_bits(&got, &want));
    }
    Ok(Row {
        format,
        cpu_n: n,
        cpu_s,
        gpu_s,
        gpu_same_bits,
        max_rel_error,
        max_err_over_bound,
    })
}

/// The guarantee of `ozaki2_gemm_dd` under its default guard, per entry of `A·B` (`α = 1`,
/// `β = 0`): `compensated_dot_gamma(k)·(|A||B|)_ij + 2k·η`, the sum of `|a_il||b_lj|` over the
/// leading words taken up by `2^-30` (its own rounding at these `k`, and `|hi + lo| ≤
/// |hi|(1 + u)`).
fn ozaki_dd_bounds(a: MatRef<'_, Dd>, b: MatRef<'_, Dd>) -> Vec<f64> {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    let g = compensated_dot_gamma(k);
    let tiny = 2.0 * k as f64 * f64::from_bits(16);
    let mut out = Vec::with_capacity(m * n);
    for j in 0..n {
        for i in 0..m {
            let hi = |x: Option<&Dd>| x.map_or(0.0, |v| v.hi);
            let s: f64 = (0..k)
                .map(|l| (hi(a.get(i, l)) * hi(b.get(l, j))).abs())
                .sum();
            out.push(g * s * (1.0 + (-30f64).exp2()) + tiny);
        }
    }
    out
}

/// cuBLAS's DGEMM at `full`, seconds (the median).
fn cublas_seconds(dev: &Device, full: &Inputs, reps: usize) -> Result<f64, String> {
    let (n, k) = (full.n, full.k());
    let (da, db) = (
        dev.upload(&full.a).map_err(err)?,
        dev.upload(&full.b).map_err(err)?,
    );
    let mut dc = dev.zeros::<f64>(n * n).map_err(err)?;
    let ga = DeviceMatRef::col_major(&da, n, k, n).map_err(err)?;
    let gb = DeviceMatRef::col_major(&db, k, n, k).map_err(err)?;
    median(reps, || {
        let ms = dev
            .time_ms(|| {
                mpblas::cuda::dgemm(
                    dev,
                    1.0,
                    ga,
                    gb,
                    0.0,
                    DeviceMatMut::col_major(&mut dc, n, n, n)?,
                )
            })
            .map_err(err)?;
        Ok(f64::from(ms) * 1e-3)
    })
}

/// Everything: the three formats on the CPU (and the GPU), and cuBLAS's DGEMM time.
///
/// # Errors
/// A library or GPU error.
pub fn measure(plan: &Plan, dev: Option<&Device>) -> Result<(Vec<Row>, Option<f64>), String> {
    let bar = progress_of(5, "formats");
    let full = Inputs::new(plan.n, plan.seed);
    let slow_n = plan.n.min(CPU_SLOW_MAX_N);
    let small = (slow_n < plan.n).then(|| Inputs::new(slow_n, plan.seed));
    let slow = (small.as_ref().unwrap_or(&full), &full);
    let f64_gemm = Routines::<f64> {
        cpu: &|al, a, b, be, c| blas::gemm(al, a, b, be, c),
        bounded: &|al, a, b, be, c| blas::gemm_bounded(al, a, b, be, c),
        gpu: &|d, al, a, b, be, c| blas::gpu::gemm(d, al, a, b, be, c),
    };
    let dd_gemm = Routines::<Dd> {
        cpu: &|al, a, b, be, c| blas::gemm(al, a, b, be, c),
        bounded: &|al, a, b, be, c| blas::gemm_bounded(al, a, b, be, c),
        gpu: &|d, al, a, b, be, c| blas::gpu::gemm(d, al, a, b, be, c),
    };
    let dd_compensated = Routines::<Dd> {
        cpu: &|al, a, b, be, c| blas::gemm_dd_compensated(al, a, b, be, c),
        bounded: &|al, a, b, be, c| blas::gemm_dd_compensated_bounded(al, a, b, be, c),
        gpu: &|d, al, a, b, be, c| blas::gpu::gemm_dd_compensated(d, al, a, b, be, c),
    };
    let ozaki_dd = Routines::<Dd> {
        cpu: &|al, a, b, be, c| {
            ozaki::ozaki2_gemm_dd(al.hi, a, b, be.hi, c, &ozaki2_dd_params()).map(|_| ())
        },
        bounded: &|al, a, b, be, c| {
            let bounds = ozaki_dd_bounds(a, b);
            ozaki::ozaki2_gemm_dd(al.hi, a, b, be.hi, c, &ozaki2_dd_params())?;
            Ok(bounds)
        },
        gpu: &|d, al, a, b, be, c| {
            ozaki::gpu::ozaki2_gemm_dd(d, al.hi, a, b, be.hi, c, &ozaki2_dd_params()).map(|_| ())
        },
    };
    let qd_gemm = Routines::<Qd> {
        cpu: &|al, a, b, be, c| blas::gemm(al, a, b, be, c),
        bounded: &|al, a, b, be, c| blas::gemm_bounded(al, a, b, be, c),
        gpu: &|d, al, a, b, be, c| blas::gpu::gemm(d, al, a, b, be, c),
    };
    let both = (&full, &full);
    let rows = vec![
        format_row("f64", |v| v, both, &f64_gemm, plan, dev)?,
        {
            bar.inc(1);
            format_row("dd", Dd::from, both, &dd_gemm, plan, dev)?
        },
        {
            bar.inc(1);
            format_row("dd compensated", Dd::from, both, &dd_compensated, plan, dev)?
        },
        {
            bar.inc(1);
            format_row("dd Ozaki II", Dd::from, slow, &ozaki_dd, plan, dev)?
        },
        {
            bar.inc(1);
            format_row("qd", Qd::from, slow, &qd_gemm, plan, dev)?
        },
    ];
    bar.finish_and_clear();
    let cublas = dev
        .map(|d| cublas_seconds(d, &full, plan.reps))
        .transpose()?;
    Ok((rows, cublas))
}

/// Runs the reproduction and prints the table, or with `as_json` returns the JSON document.
///
/// # Errors
/// `--gpu` without a usable GPU, a bad plan, or a library error.
pub fn run(plan: &Plan, as_json: bool) -> Result<Option<Value>, String> {
    if plan.n == 0 || plan.reps == 0 {
        return Err("--n and --reps must be at least 1".into());
    }
    let dev = if plan.gpu {
        Some(Device::open(0).map_err(|e| format!("--gpu: cannot open GPU 0: {e}"))?)
    } else {
        None
    };
    let gpu_name = dev.as_ref().map(|d| d.info().to_string());
    let pool = crate::reproduce::pool(plan.threads)?;
    let (rows, cublas) = pool.install(|| measure(plan, dev.as_ref()))?;
    let cpu = crate::info::cpu_model().unwrap_or_else(|| "unknown CPU".into());
    if as_json {
        return Ok(Some(json_doc(
            &rows,
            cublas,
            plan,
            &cpu,
            gpu_name.as_deref(),
        )));
    }
    print!("{}", text(&rows, cublas, plan, &cpu, gpu_name.as_deref()));
    Ok(None)
}

/// The paper's row of a format ("dd compensated": the paper's dd).
fn paper_row(format: &str) -> Option<&'static crate::papers::gemm::Table622Row> {
    let base = format.split(' ').next().unwrap_or(format);
    TABLE622.iter().find(|p| p.format == base)
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

/// The text table.
pub fn text(
    rows: &[Row],
    cublas: Option<f64>,
    plan: &Plan,
    cpu: &str,
    gpu: Option<&str>,
) -> String {
    let (n, k) = (plan.n, 2 * plan.n);
    let mut s = format!(
        "QD paper, Table 6.2.2-1: C = A·B, A {PAPER_N} x {PAPER_K}, B {PAPER_K} x {PAPER_N} \
         ({:.3e} operations), seconds per product.\nOurs: A {n} x {k}, B {k} x {n}, uniform in \
         [-1, 1] with 53-bit significands; CPU: {cpu}, {} threads{}.\n\n",
        operations(PAPER_N, PAPER_N, PAPER_K),
        plan.threads,
        gpu.map_or(String::new(), |g| format!("; GPU: {g}"))
    );
    let mut header: Vec<String> = MACHINES.iter().map(|m| format!("paper {m}")).collect();
    header.insert(0, "format".into());
    header.extend(
        [
            "ours CPU",
            "CPU G op/s",
            "ours GPU",
            "GPU G op/s",
            "GPU vs C2050",
            "max rel err",
            "err/bound",
            "GPU = CPU",
        ]
        .map(String::from),
    );
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let paper = paper_row(r.format);
            let mut cells = vec![r.format.to_string()];
            cells.extend((0..4).map(|m| paper.map_or("-".into(), |p| secs(p.seconds[m]))));
            let cpu_ops = operations(r.cpu_n, r.cpu_n, 2 * r.cpu_n);
            let at = if r.cpu_n == n {
                String::new()
            } else {
                format!(" (n = {})", r.cpu_n)
            };
            cells.push(format!("{}{at}", secs(r.cpu_s)));
            cells.push(format!("{:.2}", cpu_ops / r.cpu_s / 1e9));
            match r.gpu_s {
                Some(g) => {
                    cells.push(secs(g));
                    cells.push(format!("{:.1}", operations(n, n, k) / g / 1e9));
                    // Rates, so that a smaller --n still compares.
                    cells.push(paper.map_or("-".into(), |p| {
                        let theirs = operations(PAPER_N, PAPER_N, PAPER_K) / p.seconds[2];
                        format!("{:.0}x", operations(n, n, k) / g / theirs)
                    }));
                }
                None => cells.extend(["-".into(), "-".into(), "-".into()]),
            }
            cells.push(format!("{:.1e}", r.max_rel_error));
            cells.push(format!("{:.2e}", r.max_err_over_bound));
            cells.push(match r.gpu_same_bits {
                Some(true) => "yes".into(),
                Some(false) => "NO".into(),
                None => "-".into(),
            });
            cells
        })
        .collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    s.push_str(&table(&header, &body));
    if let Some(c) = cublas {
        s.push_str(&format!(
            "\ncuBLAS DGEMM on the same GPU: {} ({:.0} G op/s).\n",
            secs(c),
            operations(n, n, k) / c / 1e9
        ));
    }
    s.push_str(
        "\nErrors: the top-left 8 x 8 block against exact sums; err/bound against the \
         componentwise bound gemm_bounded returns (dd Ozaki II: its guarantee, \
         compensated_dot_gamma(k)·(|A||B|)_ij). dd Ozaki II: ozaki2_gemm_dd, 30 moduli, INT8 \
         tensor cores on the GPU. Rates: 2·m·n·k / time.\n",
    );
    s
}

fn json_doc(rows: &[Row], cublas: Option<f64>, plan: &Plan, cpu: &str, gpu: Option<&str>) -> Value {
    let num = |v: f64| if v.is_finite() { json!(v) } else { Value::Null };
    let rows: Vec<Value> = rows
        .iter()
        .map(|r| {
            let paper = paper_row(r.format);
            json!({
                "format": r.format,
                "paper_seconds": paper.map(|p| {
                    MACHINES.iter().zip(p.seconds).map(|(m, s)| (m.to_string(), json!(s)))
                        .collect::<serde_json::Map<_, _>>()
                }),
                "cpu": {"n": r.cpu_n, "k": 2 * r.cpu_n, "seconds": r.cpu_s, "threads": plan.threads},
                "gpu": r.gpu_s.map(|s| json!({"n": plan.n, "k": 2 * plan.n, "seconds": s,
                    "same_bits_as_cpu": r.gpu_same_bits})),
                "max_rel_error": num(r.max_rel_error),
                "max_err_over_bound": num(r.max_err_over_bound),
            })
        })
        .collect();
    json!({
        "paper": "gemm",
        "title": "QD library on CUDA (seed 003), Table 6.2.2-1: matrix product",
        "n": plan.n,
        "k": 2 * plan.n,
        "cpu": cpu,
        "gpu": gpu,
        "cublas_dgemm_seconds": cublas,
        "rows": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_run_checks_every_format() {
        let plan = Plan {
            n: 40,
            reps: 1,
            seed: 3,
            threads: 2,
            gpu: false,
        };
        let (rows, cublas) = measure(&plan, None).unwrap();
        assert!(cublas.is_none());
        assert_eq!(rows.len(), 5);
        for r in &rows {
            assert!(
                r.max_err_over_bound <= 1.0,
                "{}: {}",
                r.format,
                r.max_err_over_bound
            );
            assert!(r.max_rel_error < if r.format == "f64" { 1e-12 } else { 1e-28 });
        }
        let t = text(&rows, None, &plan, "cpu", None);
        assert!(t.contains("C2050") && t.contains("qd"));
        let j = json_doc(&rows, None, &plan, "cpu", None);
        assert_eq!(j["rows"].as_array().unwrap().len(), 5);
    }
}
