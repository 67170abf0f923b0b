//! Ozaki-scheme GEMM against cuBLAS DGEMM on the GPU, square `n × n`, inputs
//! `(rand − 0.5)·exp(φ·randn)`, φ = 1 unless `OZAKI_BENCH_PHI` says otherwise (the Ozaki paper's
//! generator).
//!
//! For each n: cuBLAS DGEMM; Ozaki II (`mpblas::ozaki::gpu::ozaki2_gemm_blas`) in fast mode with each moduli count
//! of `OZAKI_BENCH_MODULI` (default 14,16) in the fast normwise mode (`normwise`), and with the
//! default count also under the default componentwise guard (the guard's cost is the
//! difference; `recomputed` counts the entries it recomputed in the last call;
//! `OZAKI_BENCH_GUARD_ALL=1` adds the guard at every count), and in accurate mode with the
//! largest; Ozaki I (`mpblas::ozaki::gpu::ozaki1_gemm_blas`) with f32 slices, s = 2..6, f64 sum (the paper's
//! method), and with f64 slices, s = 3 (n ≤ 8192). Each is run once to warm up, then timed
//! `reps` times with CUDA events around the whole call (every conversion step, every GEMM and
//! the reconstruction included; the workspace is kept between calls), and the median is
//! reported with TFLOP/s = 2n³/t and the speed-up over DGEMM measured in the same run.
//!
//! Last row per n: cuBLAS's own FP64 emulation (`cuda::emulation::dgemm_emulated`, dynamic
//! mantissa control, eager strategy), timed and checked the same way, with the mantissa bits
//! cuBLAS reports (or "native" when it ran plain DGEMM); "n/a: <reason>" where cuBLAS has no
//! emulation (before 13.1) or the call fails.
//!
//! Error column: max over all entries of |c − ref|/|ref|, where ref is the Ozaki II product
//! with 20 moduli in fast mode kept as a double-double (`mpblas::ozaki::gpu::ozaki2_product`; each
//! side keeps about 77 bits of its 2-norm, so its error is about 1e-23·‖a_i‖‖b_j‖, and fast
//! rather than accurate because at φ = 2 the 2-norm scaling keeps more bits). For n ≤ 1024 the
//! exact product (`mpblas::exact::ExactDot`, error-free) checks that reference and DGEMM's and Ozaki II's
//! errors.
//!
//! Run: `cargo run --release --example gpu_ozaki_bench [-- 1024,2048,...]`; env
//! `OZAKI_BENCH_REPS` (default 5), `OZAKI_BENCH_CSV` (write the rows there),
//! `OZAKI_BENCH_SKIP_OZ1` (Ozaki II and DGEMM only), `OZAKI_BENCH_PHI` (default 1),
//! `OZAKI_BENCH_MODULI` (default `14,16`),
//! `MPBLAS_OZAKI_PROFILE=1` (per-stage times of every Ozaki II call on stderr).

use mpblas::Result;
use mpblas::Trans;
use mpblas::cuda::{self, Device, DeviceVec};
use mpblas::cuda::{DeviceMatMut, DeviceMatRef};
use mpblas::exact::ExactDot;
use mpblas::ozaki::{
    Accumulate, Ozaki1Params, Ozaki2Mode, Ozaki2Params, OzakiGuard, Products, SliceGemm,
};
use mpblas_testdata::SplitMix64;
use rayon::prelude::*;
use std::io::Write;

/// φ of the inputs: `OZAKI_BENCH_PHI` (default 1).
fn phi() -> f64 {
    std::env::var("OZAKI_BENCH_PHI")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0)
}

/// Moduli counts of the Ozaki II rows: `OZAKI_BENCH_MODULI` (default `14,16`); accurate mode
/// for the largest only.
fn moduli_list() -> Vec<usize> {
    std::env::var("OZAKI_BENCH_MODULI")
        .ok()
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .filter(|v: &Vec<usize>| !v.is_empty())
        .unwrap_or_else(|| vec![14, 16])
}

/// `n × n` column-major `(rand − 0.5)·exp(φ·randn)`, one generator per column (parallel).
fn matrix(n: usize, seed: u64) -> Vec<f64> {
    let phi = phi();
    let mut out = vec![0.0; n * n];
    out.par_chunks_mut(n).enumerate().for_each(|(j, col)| {
        let mut g = SplitMix64::new(seed.wrapping_mul(0x1_0000_0001).wrapping_add(j as u64));
        for x in col.iter_mut() {
            let u = g.uniform() - 0.5;
            *x = u * (phi * g.normal()).exp();
        }
    });
    out
}

/// Max over entries of `|c − ref|/|ref|` against a double-double reference `hi + lo` (NaN
/// counts as infinite).
fn max_rel(c: &[f64], hi: &[f64], lo: &[f64]) -> f64 {
    c.par_iter()
        .zip(hi.par_iter().zip(lo.par_iter()))
        .map(|(&c, (&h, &l))| {
            let e = ((c - h) - l).abs() / h.abs();
            if e.is_nan() { f64::INFINITY } else { e }
        })
        .reduce(|| 0.0, f64::max)
}

/// Max over entries of each candidate's relative error against the exact `A·B` (all `n × n`
/// column-major), by exact accumulation.
fn max_rel_errors(n: usize, a: &[f64], b: &[f64], cands: &[&[f64]]) -> Vec<f64> {
    (0..n)
        .into_par_iter()
        .map(|j| {
            let mut worst = vec![0.0f64; cands.len()];
            for i in 0..n {
                let mut acc = ExactDot::new();
                for l in 0..n {
                    acc.add_product(a[i + l * n], b[l + j * n]);
                }
                for (w, c) in worst.iter_mut().zip(cands) {
                    let e = acc.rel_err(c[i + j * n]);
                    *w = if e.is_nan() { f64::INFINITY } else { w.max(e) };
                }
            }
            worst
        })
        .reduce(
            || vec![0.0; cands.len()],
            |x, y| x.iter().zip(&y).map(|(p, q)| p.max(*q)).collect(),
        )
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// Warm-up once, then `reps` event-timed calls; the median in ms.
fn time(dev: &Device, reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    dev.synchronize()?;
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        t.push(f64::from(dev.time_ms(&mut f)?));
    }
    Ok(median(t))
}

enum Method {
    Dgemm,
    Oz2(Ozaki2Params),
    Oz1(Ozaki1Params),
}

impl Method {
    fn name(&self) -> String {
        match self {
            Method::Dgemm => "DGEMM (cuBLAS)".to_string(),
            Method::Oz2(p) => format!(
                "Ozaki-II N={} {}{}",
                p.moduli,
                if p.mode == Ozaki2Mode::Fast {
                    "fast"
                } else {
                    "accurate"
                },
                if p.guard == OzakiGuard::NormwiseFast {
                    " normwise"
                } else {
                    ""
                }
            ),
            Method::Oz1(p) => format!(
                "Ozaki-I {} s={}",
                if p.slice_gemm == SliceGemm::F32 {
                    "f32"
                } else {
                    "f64"
                },
                p.slices
            ),
        }
    }
}

const EMULATED: &str = "cuBLAS FP64 emulation";

/// The row of cuBLAS's FP64 emulation (default configuration), printed and recorded like the
/// others; `None` (after an "n/a: <reason>" line) when `dgemm_emulated` fails, so that the
/// benchmark goes on. Returns C for the exact check.
#[allow(clippy::too_many_arguments)]
fn emulated_row(
    dev: &Device,
    n: usize,
    reps: usize,
    t_dgemm: f64,
    ad: &DeviceVec<f64>,
    bd: &DeviceVec<f64>,
    cd: &mut DeviceVec<f64>,
    hi: &[f64],
    lo: &[f64],
    table: &mut String,
    rows: &mut Vec<String>,
) -> Result<Option<Vec<f64>>> {
    use mpblas::cuda::emulation::{EmulationConfig, dgemm_emulated, last_mantissa_bits};
    // Its workspace (up to ~18 GB at n = 16384) must not compete with the Ozaki ones.
    dev.release_workspaces()?;
    let cfg = EmulationConfig::default();
    let timed = time(dev, reps, || {
        let a = DeviceMatRef::col_major(ad, n, n, n)?;
        let b = DeviceMatRef::col_major(bd, n, n, n)?;
        dgemm_emulated(
            dev,
            1.0,
            a,
            b,
            0.0,
            DeviceMatMut::col_major(cd, n, n, n)?,
            &cfg,
        )
    })
    .and_then(|ms| Ok((ms, last_mantissa_bits(dev)?)));
    let (ms, bits) = match timed {
        Ok(x) => x,
        Err(e) => {
            let line = format!("{n:>6} {EMULATED:<22} n/a: {e}");
            println!("{line}");
            *table += &line;
            table.push('\n');
            return Ok(None);
        }
    };
    let c = cd.download()?;
    let err = max_rel(&c, hi, lo);
    let tf = 2.0 * (n as f64).powi(3) / (ms * 1e-3) / 1e12;
    let path = bits.map_or("native".to_string(), |b| format!("{b} bits"));
    let line = format!(
        "{n:>6} {EMULATED:<22} {ms:>10.3} ms {tf:>8.2} TFLOP/s {:>6.2}x  err {err:.2e}  [{path}]",
        t_dgemm / ms
    );
    println!("{line}");
    *table += &line;
    table.push('\n');
    rows.push(format!(
        "{n},{EMULATED} ({path}),{ms:.4},{tf:.3},{:.4},{err:.3e}",
        t_dgemm / ms
    ));
    Ok(Some(c))
}

fn main() -> Result<()> {
    let sizes: Vec<usize> = std::env::args()
        .nth(1)
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1024, 2048, 4096, 8192, 16384]);
    let reps: usize = std::env::var("OZAKI_BENCH_REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
        .max(1);
    let dev = Device::open(0)?;
    println!("{}", dev.info());
    println!(
        "inputs (rand-0.5)*exp({}*randn); median of {reps} after 1 warm-up; CUDA events",
        phi()
    );
    let mut rows: Vec<String> = vec!["n,method,ms,tflops,vs_dgemm,max_rel_err".to_string()];
    let mut table = String::new();
    for &n in &sizes {
        let a = matrix(n, 1);
        let b = matrix(n, 2);
        let ad = dev.upload_f64(&a)?;
        let bd = dev.upload_f64(&b)?;
        let mut cd: DeviceVec<f64> = dev.zeros(n * n)?;
        let refp = Ozaki2Params {
            moduli: 20,
            mode: Ozaki2Mode::Fast,
            guard: Default::default(),
        };
        let r = mpblas::ozaki::gpu::ozaki2_product(
            &dev,
            DeviceMatRef::col_major(&ad, n, n, n)?,
            DeviceMatRef::col_major(&bd, n, n, n)?,
            &refp,
        )?
        .download()?;
        let hi: Vec<f64> = r.iter().map(|x| x.hi).collect();
        let lo: Vec<f64> = r.iter().map(|x| x.lo).collect();
        drop(r);
        dev.release_workspaces()?;
        let mut methods = vec![Method::Dgemm];
        let nms = moduli_list();
        for &nm in &nms {
            // The fast normwise mode for every count, and with the default count the default
            // componentwise guard too, for its cost. (Below the default the guard recomputes
            // many entries one by one: 14 moduli took 45x longer at n = 8192, BENCHMARKS.md;
            // OZAKI_BENCH_GUARD_ALL=1 times the guard at every count.)
            let all = std::env::var_os("OZAKI_BENCH_GUARD_ALL").is_some();
            let guards: &[OzakiGuard] = if all || nm == mpblas::ozaki::OZAKI2_DEFAULT_MODULI {
                &[OzakiGuard::Componentwise, OzakiGuard::NormwiseFast]
            } else {
                &[OzakiGuard::NormwiseFast]
            };
            for &guard in guards {
                methods.push(Method::Oz2(Ozaki2Params {
                    moduli: nm,
                    mode: Ozaki2Mode::Fast,
                    guard,
                }));
            }
        }
        if let Some(&nm) = nms.iter().max() {
            methods.push(Method::Oz2(Ozaki2Params {
                moduli: nm,
                mode: Ozaki2Mode::Accurate,
                guard: Default::default(),
            }));
        }
        let skip_oz1 = std::env::var_os("OZAKI_BENCH_SKIP_OZ1").is_some();
        for s in (2..=6).filter(|_| !skip_oz1) {
            methods.push(Method::Oz1(Ozaki1Params {
                slices: s,
                products: Products::Triangular,
                slice_gemm: SliceGemm::F32,
                accumulate: Accumulate::F64,
                guard: OzakiGuard::NormwiseFast, // the paper's method (normwise)
            }));
        }
        if n <= 8192 && !skip_oz1 {
            methods.push(Method::Oz1(Ozaki1Params {
                slices: 3,
                products: Products::Triangular,
                slice_gemm: SliceGemm::F64,
                accumulate: Accumulate::F64,
                guard: OzakiGuard::NormwiseFast, // the paper's method (normwise)
            }));
        }
        let flops = 2.0 * (n as f64).powi(3);
        let mut t_dgemm = f64::NAN;
        let mut exact_check: Vec<(String, Vec<f64>)> = Vec::new();
        let mut last_oz1 = false;
        for meth in &methods {
            if matches!(meth, Method::Oz1(_)) && !last_oz1 {
                dev.release_workspaces()?;
                last_oz1 = true;
            }
            let r = if n >= 8192 && matches!(meth, Method::Oz1(_)) {
                reps.min(3)
            } else {
                reps
            };
            let mut recomputed = None;
            let ms = time(&dev, r, || match meth {
                Method::Dgemm => cuda::dgemm_blas(
                    &dev,
                    Trans::No,
                    Trans::No,
                    n,
                    n,
                    n,
                    1.0,
                    &ad,
                    n,
                    &bd,
                    n,
                    0.0,
                    &mut cd,
                    n,
                ),
                Method::Oz2(p) => mpblas::ozaki::gpu::ozaki2_gemm_blas(
                    &dev,
                    Trans::No,
                    Trans::No,
                    n,
                    n,
                    n,
                    1.0,
                    &ad,
                    n,
                    &bd,
                    n,
                    0.0,
                    &mut cd,
                    n,
                    p,
                )
                .map(|rep| recomputed = Some(rep.guard_recomputed)),
                Method::Oz1(p) => mpblas::ozaki::gpu::ozaki1_gemm_blas(
                    &dev,
                    Trans::No,
                    Trans::No,
                    n,
                    n,
                    n,
                    1.0,
                    &ad,
                    n,
                    &bd,
                    n,
                    0.0,
                    &mut cd,
                    n,
                    p,
                )
                .map(|rep| recomputed = Some(rep.guard_recomputed)),
            })?;
            if matches!(meth, Method::Dgemm) {
                t_dgemm = ms;
            }
            let c = cd.download()?;
            let err = max_rel(&c, &hi, &lo);
            if n <= 1024 && !matches!(meth, Method::Oz1(_)) {
                exact_check.push((meth.name(), c));
            }
            let tf = flops / (ms * 1e-3) / 1e12;
            let guard = recomputed.map_or(String::new(), |r| format!("  recomputed {r}"));
            let line = format!(
                "{n:>6} {:<31} {ms:>10.3} ms {tf:>8.2} TFLOP/s {:>6.2}x  err {err:.2e}{guard}",
                meth.name(),
                t_dgemm / ms
            );
            println!("{line}");
            table += &line;
            table.push('\n');
            rows.push(format!(
                "{n},{},{ms:.4},{tf:.3},{:.4},{err:.3e}",
                meth.name(),
                t_dgemm / ms
            ));
        }
        if let Some(c) = emulated_row(
            &dev, n, reps, t_dgemm, &ad, &bd, &mut cd, &hi, &lo, &mut table, &mut rows,
        )? && n <= 1024
        {
            exact_check.push((EMULATED.to_string(), c));
        }
        if !exact_check.is_empty() {
            // Exact errors (error-free accumulation) for the reference itself and the methods.
            let mut cands: Vec<&[f64]> = vec![&hi];
            cands.extend(exact_check.iter().map(|(_, c)| c.as_slice()));
            let errs = max_rel_errors(n, &a, &b, &cands);
            println!(
                "{n:>6} exact check: reference (OzII N=20 fast, hi word) {:.2e}",
                errs[0]
            );
            for ((name, _), e) in exact_check.iter().zip(&errs[1..]) {
                println!("{n:>6} exact check: {name:<22} {e:.2e}");
            }
        }
        dev.release_workspaces()?;
    }
    println!(
        "\n== summary (n, method, median ms, TFLOP/s, speed-up over DGEMM, max rel err vs ref)"
    );
    print!("{table}");
    if let Ok(path) = std::env::var("OZAKI_BENCH_CSV") {
        let mut f = std::fs::File::create(&path).map_err(|e| mpblas::Error::CudaDriver {
            op: "writing the CSV",
            cause: e.to_string(),
        })?;
        for r in &rows {
            let _ = writeln!(f, "{r}");
        }
    }
    Ok(())
}
