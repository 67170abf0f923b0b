//! BLAS levels 1 and 2 on the GPU against cuBLAS in the same run: `dot`, `sum`, `asum`, `nrm2`, `axpy`
//! in f64, Dd and Qd (the reproducible blocked order), f64 `sum2`/`dot2` and the correctly
//! rounded f64 `sum`/`dot` (also on data spread over 2^±600), and cuBLAS's
//! `Ddot`/`Dasum`/`Dnrm2`/`Daxpy` and a device-to-device copy as yardsticks.
//!
//! Bytes counted: every word read and written once (dot: 2n elements read; sum, asum, nrm2: n;
//! axpy: 2n read, n written; copy: n read, n written). Each row: 3 warm-up calls, then 15
//! calls each timed with CUDA events; the median. A reduction's call includes reading its
//! result back (as cuBLAS's host-pointer mode does). `vs cuBLAS` is the row's GB/s over the
//! matching cuBLAS f64 routine's (dot → Ddot, sum and asum → Dasum, nrm2 → Dnrm2, axpy →
//! Daxpy). `= CPU` says whether the result has the CPU's bits (axpy: every element);
//! `rel err` is a dot product's error against the CPU's quad-double dot of the same data.
//!
//! Inputs: random full-precision values (every word), uniform exponents in [-8, 8], random
//! signs. Run: `cargo run --release --example gpu_blas_bench [-- n,n,...]` (default 2^20, 2^24,
//! 2^27), or via `scripts/gpu-check.sh`'s bundle. Without sizes it also times the launch shapes,
//! the RNS sums, and GEMV (N and T) and GER at 16384 × 8192 and 1000 × 1000 against
//! `cublasDgemv`/`cublasDger` (bytes: A, x and y read, y or A written), and the RNS GEMV of
//! Table 5 of the MPRES-BLAS GEMV paper (1000 × 1000, 106 to 1696 bits).

use mpblas::blas::gpu::{self as bg, GpuFormat, LaunchShape};
use mpblas::blas::{self, Summation};
use mpblas::cuda::{
    self, Device, DeviceMatMut, DeviceMatRef, DeviceScalar, DeviceVec, DeviceVecMut, DeviceVecRef,
};
use mpblas::view::{MatRef, Trans, VecMut, VecRef};
use mpblas::{Dd, Qd, Result, Scalar};

const WARMUP: usize = 3;
const REPS: usize = 15;

fn median_ms(dev: &Device, call: impl FnMut() -> Result<()>) -> Result<f64> {
    median_ms_of(dev, WARMUP, REPS, call)
}

/// The median of `reps` timed calls after `warmup` untimed ones (the long GEMMs take one and
/// few).
fn median_ms_of(
    dev: &Device,
    warmup: usize,
    reps: usize,
    mut call: impl FnMut() -> Result<()>,
) -> Result<f64> {
    for _ in 0..warmup {
        call()?;
    }
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        t.push(f64::from(dev.time_ms(&mut call)?));
    }
    t.sort_by(f64::total_cmp);
    Ok(t[reps / 2])
}

/// Full-precision random values of each format.
trait Random: GpuFormat + Copy {
    fn random(rng: &mut mpblas_testdata::SplitMix64) -> Self;
    fn to_qd(self) -> Qd;
}

fn word(rng: &mut mpblas_testdata::SplitMix64, e: i32) -> f64 {
    let frac = rng.next_u64() & ((1 << 52) - 1);
    let sign = rng.next_u64() & (1 << 63);
    f64::from_bits(sign | (((e + 1023) as u64) << 52) | frac)
}

fn exponent(rng: &mut mpblas_testdata::SplitMix64) -> i32 {
    (rng.next_u64() % 17) as i32 - 8
}

impl Random for f64 {
    fn random(rng: &mut mpblas_testdata::SplitMix64) -> f64 {
        let e = exponent(rng);
        word(rng, e)
    }
    fn to_qd(self) -> Qd {
        Qd::from(self)
    }
}
impl Random for Dd {
    fn random(rng: &mut mpblas_testdata::SplitMix64) -> Dd {
        let e = exponent(rng);
        Dd::new(word(rng, e), word(rng, e - 54))
    }
    fn to_qd(self) -> Qd {
        Qd::from(self)
    }
}
impl Random for Qd {
    fn random(rng: &mut mpblas_testdata::SplitMix64) -> Qd {
        let e = exponent(rng);
        Qd::new(
            word(rng, e),
            word(rng, e - 54),
            word(rng, e - 108),
            word(rng, e - 162),
        )
    }
    fn to_qd(self) -> Qd {
        self
    }
}

struct Row {
    format: &'static str,
    routine: &'static str,
    n: usize,
    ms: f64,
    bytes: f64,
    yardstick: Option<&'static str>,
    same_as_cpu: Option<bool>,
    rel_err: Option<f64>,
}

impl Row {
    fn gbs(&self) -> f64 {
        self.bytes / (self.ms * 1e-3) / 1e9
    }
}

fn same<T: DeviceScalar>(a: T, b: T) -> bool {
    let (a, b) = (a.to_words(), b.to_words());
    (0..T::WORDS).all(|k| a[k].to_bits() == b[k].to_bits() || (a[k].is_nan() && b[k].is_nan()))
}

/// The rows of one format at length n.
fn format_rows<T: Random>(dev: &Device, n: usize, rows: &mut Vec<Row>) -> Result<()> {
    let mut rng = mpblas_testdata::SplitMix64::new(0x5eed ^ n as u64 ^ T::WORDS as u64);
    let hx: Vec<T> = (0..n).map(|_| T::random(&mut rng)).collect();
    let hy: Vec<T> = (0..n).map(|_| T::random(&mut rng)).collect();
    let (dx, dy) = (dev.upload(&hx)?, dev.upload(&hy)?);
    let (gx, gy) = (DeviceVecRef::contiguous(&dx), DeviceVecRef::contiguous(&dy));
    let (cx, cy) = (VecRef::contiguous(&hx), VecRef::contiguous(&hy));
    let e = (8 * T::WORDS * n) as f64;
    let shape = LaunchShape::default();
    let fmt = T::NAME;
    let mut push = |routine, ms, bytes, yardstick, same_as_cpu, rel_err| {
        rows.push(Row {
            format: fmt,
            routine,
            n,
            ms,
            bytes,
            yardstick: Some(yardstick),
            same_as_cpu,
            rel_err,
        })
    };

    let mut got = T::zero_in(&());
    let ms = median_ms(dev, || {
        got = bg::dot(dev, gx, gy, Summation::Blocked)?;
        Ok(())
    })?;
    let cpu = blas::dot(cx, cy)?;
    // The quad-double reference of the same products (exact inputs, 2^-212 arithmetic).
    let qx: Vec<Qd> = hx.iter().map(|v| v.to_qd()).collect();
    let qy: Vec<Qd> = hy.iter().map(|v| v.to_qd()).collect();
    let reference = blas::dot(VecRef::contiguous(&qx), VecRef::contiguous(&qy))?;
    let err = if T::WORDS == 4 {
        None
    } else {
        let d = got.to_qd() - reference;
        Some((d / reference).abs().c[0])
    };
    push("dot", ms, 2.0 * e, "cublasDdot", Some(same(got, cpu)), err);

    for (routine, yard) in [
        ("sum", "cublasDasum"),
        ("asum", "cublasDasum"),
        ("nrm2", "cublasDnrm2"),
    ] {
        let mut got = T::zero_in(&());
        let ms = median_ms(dev, || {
            got = match routine {
                "sum" => bg::sum(dev, gx, Summation::Blocked)?,
                "asum" => bg::asum(dev, gx, shape)?,
                _ => bg::nrm2(dev, gx, shape)?,
            };
            Ok(())
        })?;
        let cpu = match routine {
            "sum" => blas::sum(cx)?,
            "asum" => blas::asum(cx)?,
            _ => blas::nrm2(cx)?,
        };
        push(routine, ms, e, yard, Some(same(got, cpu)), None);
    }

    // axpy: timed on a scratch copy of y (each call accumulates; the bits are checked on one
    // call from the original y).
    let alpha = T::random(&mut rng);
    let mut dz = dev.upload(&hy)?;
    let ms = median_ms(dev, || {
        bg::axpy(dev, alpha, gx, DeviceVecMut::contiguous(&mut dz))
    })?;
    let mut dz = dev.upload(&hy)?;
    bg::axpy(dev, alpha, gx, DeviceVecMut::contiguous(&mut dz))?;
    let mut cz = hy.clone();
    blas::axpy(&alpha, cx, VecMut::contiguous(&mut cz))?;
    let ok = dz.download()?.iter().zip(&cz).all(|(a, b)| same(*a, *b));
    push("axpy", ms, 3.0 * e, "cublasDaxpy", Some(ok), None);
    Ok(())
}

fn f64_extra_rows(dev: &Device, n: usize, rows: &mut Vec<Row>) -> Result<()> {
    let mut rng = mpblas_testdata::SplitMix64::new(0xacc ^ n as u64);
    let hx: Vec<f64> = (0..n).map(|_| f64::random(&mut rng)).collect();
    let hy: Vec<f64> = (0..n).map(|_| f64::random(&mut rng)).collect();
    let (dx, dy) = (dev.upload(&hx)?, dev.upload(&hy)?);
    let (gx, gy) = (DeviceVecRef::contiguous(&dx), DeviceVecRef::contiguous(&dy));
    let (cx, cy) = (VecRef::contiguous(&hx), VecRef::contiguous(&hy));
    let shape = LaunchShape::default();
    let e = 8.0 * n as f64;
    let row = |routine, ms, bytes, yardstick, same_as_cpu, rel_err| Row {
        format: "f64",
        routine,
        n,
        ms,
        bytes,
        yardstick,
        same_as_cpu,
        rel_err,
    };
    let mut got = 0.0;
    let ms = median_ms(dev, || {
        got = bg::dot2(dev, gx, gy, shape)?;
        Ok(())
    })?;
    let exact = blas::dot_correctly_rounded(cx, cy)?;
    let err = ((got - exact) / exact).abs();
    rows.push(row(
        "dot2",
        ms,
        2.0 * e,
        Some("cublasDdot"),
        Some(got.to_bits() == blas::dot2(cx, cy)?.to_bits()),
        Some(err),
    ));
    let ms = median_ms(dev, || {
        got = bg::sum2(dev, gx, shape)?;
        Ok(())
    })?;
    rows.push(row(
        "sum2",
        ms,
        e,
        Some("cublasDasum"),
        Some(got.to_bits() == blas::sum2(cx)?.to_bits()),
        None,
    ));
    let ms = median_ms(dev, || {
        got = bg::dot_correctly_rounded(dev, gx, gy, shape)?;
        Ok(())
    })?;
    rows.push(row(
        "dot (correctly rounded)",
        ms,
        2.0 * e,
        Some("cublasDdot"),
        Some(got.to_bits() == exact.to_bits()),
        Some(((got - exact) / exact).abs()),
    ));
    let ms = median_ms(dev, || {
        got = bg::sum_correctly_rounded(dev, gx, shape)?;
        Ok(())
    })?;
    rows.push(row(
        "sum (correctly rounded)",
        ms,
        e,
        Some("cublasDasum"),
        Some(got.to_bits() == blas::sum_correctly_rounded(cx)?.to_bits()),
        None,
    ));
    // The same on data built to spill: exponents across ±600, so that the exact sum keeps
    // bits far below each thread's expansion and the block accumulators work.
    let hw: Vec<f64> = (0..n)
        .map(|_| {
            let r = rng.next_u64();
            let e = (r % 1201) as i32 - 600;
            let sign = if r & (1 << 40) != 0 { -1.0 } else { 1.0 };
            sign * (1.0 + (rng.next_u64() >> 12) as f64 * 2f64.powi(-52)) * 2f64.powi(e)
        })
        .collect();
    let dw = dev.upload(&hw)?;
    let gw = DeviceVecRef::contiguous(&dw);
    let ms = median_ms(dev, || {
        got = bg::sum_correctly_rounded(dev, gw, shape)?;
        Ok(())
    })?;
    rows.push(row(
        "sum (correctly rounded), exponents ±600",
        ms,
        e,
        Some("cublasDasum"),
        Some(got.to_bits() == blas::sum_correctly_rounded(VecRef::contiguous(&hw))?.to_bits()),
        None,
    ));
    drop(dw);

    // The yardsticks.
    let mut r = 0.0;
    let ms = median_ms(dev, || {
        r = cuda::ddot(dev, &dx, &dy)?;
        Ok(())
    })?;
    let err = ((r - exact) / exact).abs();
    rows.push(row("cublasDdot", ms, 2.0 * e, None, None, Some(err)));
    let ms = median_ms(dev, || cuda::dasum(dev, &dx).map(|_| ()))?;
    rows.push(row("cublasDasum", ms, e, None, None, None));
    let ms = median_ms(dev, || cuda::dnrm2(dev, &dx).map(|_| ()))?;
    rows.push(row("cublasDnrm2", ms, e, None, None, None));
    let mut dz = dev.upload(&hy)?;
    let ms = median_ms(dev, || cuda::daxpy(dev, 0.5, &dx, &mut dz))?;
    rows.push(row("cublasDaxpy", ms, 3.0 * e, None, None, None));
    let mut copy: DeviceVec<f64> = dev.zeros(n)?;
    let ms = median_ms(dev, || copy.copy_from(&dx))?;
    rows.push(row("copy (d2d)", ms, 2.0 * e, None, None, None));
    Ok(())
}

/// The reductions' bandwidth (GB/s) at 32 to 256 threads per block, one row per routine, so
/// that the default shape is a measured choice.
fn shape_rows<T: Random>(dev: &Device, n: usize) -> Result<()> {
    let mut rng = mpblas_testdata::SplitMix64::new(0x5ba9e ^ T::WORDS as u64);
    let hx: Vec<T> = (0..n).map(|_| T::random(&mut rng)).collect();
    let hy: Vec<T> = (0..n).map(|_| T::random(&mut rng)).collect();
    let (dx, dy) = (dev.upload(&hx)?, dev.upload(&hy)?);
    let (gx, gy) = (DeviceVecRef::contiguous(&dx), DeviceVecRef::contiguous(&dy));
    let e = (8 * T::WORDS * n) as f64;
    for routine in ["sum", "dot", "nrm2"] {
        let mut cells = Vec::new();
        for threads in [32, 64, 128, 256] {
            let shape = LaunchShape {
                threads,
                blocks: None,
            };
            let ms = median_ms(dev, || {
                match routine {
                    "sum" => drop(bg::sum_shaped(dev, gx, Summation::Blocked, shape)?),
                    "dot" => drop(bg::dot_shaped(dev, gx, gy, Summation::Blocked, shape)?),
                    _ => drop(bg::nrm2(dev, gx, shape)?),
                }
                Ok(())
            })?;
            let bytes = if routine == "dot" { 2.0 * e } else { e };
            cells.push(format!("{:.0}", bytes / (ms * 1e-3) / 1e9));
        }
        println!("| {} | {routine} | {} |", T::NAME, cells.join(" | "));
    }
    Ok(())
}

/// The RNS sum of 10^8 doubles at 106 and 424 bits (the summation issue's benchmark): the
/// exact sum on the device, rounded once to the basis on the host, against the CPU's bits.
fn rns_sum_rows(dev: &Device, n: usize) -> Result<()> {
    let mut rng = mpblas_testdata::SplitMix64::new(0x5e ^ n as u64);
    let hx: Vec<f64> = (0..n).map(|_| f64::random(&mut rng)).collect();
    let dx = dev.upload(&hx)?;
    let gx = DeviceVecRef::contiguous(&dx);
    println!("\n## RNS sum of n = {n} doubles (exact on the device, one rounding to p bits)\n");
    println!("| precision | ms | GB/s | G terms/s | = CPU |");
    println!("|---|---|---|---|---|");
    for p in [106, 424] {
        let basis = mpblas::rns::Basis::new(p)?;
        let mut got = None;
        let ms = median_ms(dev, || {
            got = Some(bg::sum_correctly_rounded_to(
                dev,
                &basis,
                gx,
                LaunchShape::default(),
            )?);
            Ok(())
        })?;
        let cpu = blas::sum_correctly_rounded_to(&basis, VecRef::contiguous(&hx))?;
        let same = got.as_ref().is_some_and(|g| *g == cpu);
        println!(
            "| {p} | {ms:.4} | {:.0} | {:.1} | {} |",
            8.0 * n as f64 / (ms * 1e-3) / 1e9,
            n as f64 / (ms * 1e-3) / 1e9,
            if same { "yes" } else { "NO" }
        );
    }
    Ok(())
}

/// RNS GEMV of an `n × n` matrix (Table 5 of the MPRES-BLAS GEMV paper): inputs uniform in
/// [−1, 1] with full 53-bit significands and rounded to 26 bits, no-transpose and transpose,
/// `α = 1.5`, `β = 0.5`, at the paper's precisions. `= CPU`: the first 16 entries of y (the
/// CPU's `gemv_blas` on those rows or columns) have the CPU's bits.
/// The RNS GEMM (`blas::gpu::rns::gemm_fused`, each column a fused GEMV: exact sums rounded
/// once) at 106 and 424 bits, `n × n × n` on the GPU (CUDA events, median of 3 after a warm-up)
/// and the CPU's `blas::rns::gemm_fused` at `n = 96` (all threads, one timed call); rate
/// `2n³ / t` RNS operations per second. Inputs uniform in [−1, 1] with 53-bit significands.
fn rns_gemm_rows(dev: &Device) -> Result<()> {
    use mpblas::rns::gpu::DeviceMpArray;
    use mpblas::rns::{Basis, MpArray, MpFloat};
    println!("\n## RNS GEMM, fused (rate = 2n³ / time)\n");
    println!("| precision | where | n | ms | G op/s |");
    println!("|---|---|---|---|---|");
    let mut rng = mpblas_testdata::SplitMix64::new(0x6e4);
    for bits in [106u32, 424] {
        let basis = Basis::new(bits)?;
        let (one, zero) = (MpFloat::from_f64(&basis, 1.0), MpFloat::zero(&basis, false));
        for (n, gpu) in [(96usize, false), (256, true), (512, true)] {
            let vals: Vec<f64> = (0..n * n).map(|_| rng.range(-1.0, 1.0)).collect();
            let a: Vec<MpFloat> = vals.iter().map(|&v| MpFloat::from_f64(&basis, v)).collect();
            let b = a.clone();
            let ms = if gpu {
                let da = DeviceMpArray::upload(dev, &MpArray::from_mpfloats(&basis, &a)?)?;
                let db = DeviceMpArray::upload(dev, &MpArray::from_mpfloats(&basis, &b)?)?;
                let c0 = vec![zero.clone(); n * n];
                let mut dc = DeviceMpArray::upload(dev, &MpArray::from_mpfloats(&basis, &c0)?)?;
                median_ms_of(dev, 1, 3, || {
                    bg::rns::gemm_fused(
                        dev,
                        Trans::No,
                        Trans::No,
                        (n, n, n),
                        &one,
                        (&da, n),
                        (&db, n),
                        &zero,
                        (&mut dc, n),
                    )
                })?
            } else {
                let mut c = vec![zero.clone(); n * n];
                let t = std::time::Instant::now();
                blas::rns::gemm_fused(
                    &one,
                    MatRef::col_major(&a, n, n, n)?,
                    MatRef::col_major(&b, n, n, n)?,
                    &zero,
                    mpblas::view::MatMut::col_major(&mut c, n, n, n)?,
                )?;
                t.elapsed().as_secs_f64() * 1e3
            };
            println!(
                "| {bits} bits | {} | {n} | {ms:.2} | {:.3} |",
                if gpu { "GPU" } else { "CPU" },
                2.0 * (n * n * n) as f64 / (ms * 1e-3) / 1e9
            );
        }
    }
    Ok(())
}

/// The part of the `n × n` column-major `ha` that the first 16 entries of `y` read, as
/// `MpFloat`s with its leading dimension: rows 0..16 (no transpose) or columns 0..16
/// (transpose). Converting the whole matrix instead took minutes at 1696 bits.
fn leading_block(
    b: &std::sync::Arc<mpblas::rns::Basis>,
    ha: &[f64],
    n: usize,
    trans: Trans,
) -> (Vec<mpblas::rns::MpFloat>, usize) {
    use mpblas::rns::MpFloat;
    let k16 = n.min(16);
    match trans {
        Trans::No => (
            (0..n)
                .flat_map(|c| (0..k16).map(move |r| c * n + r))
                .map(|i| MpFloat::from_f64(b, ha[i]))
                .collect(),
            k16,
        ),
        Trans::Yes => (
            ha[..n * k16]
                .iter()
                .map(|&v| MpFloat::from_f64(b, v))
                .collect(),
            n,
        ),
    }
}

fn rns_gemv_rows(dev: &Device, n: usize) -> Result<()> {
    use mpblas::rns::gpu::DeviceMpArray;
    use mpblas::rns::{Basis, MpArray, MpFloat};
    println!("\n## RNS GEMV, {n} × {n} (CUDA events, median of {REPS})\n");
    println!(
        "| precision | moduli | inputs | N ms | T ms | = CPU | fused N ms | fused T ms | fused = CPU |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut rng = mpblas_testdata::SplitMix64::new(0x6e3);
    let mut uniform = |k: usize| -> Vec<f64> {
        (0..k)
            .map(|_| {
                let u = (rng.next_u64() >> 11) as f64 * 2f64.powi(-53);
                2.0 * u - 1.0
            })
            .collect()
    };
    let a53 = uniform(n * n);
    let x53 = uniform(n);
    let y53 = uniform(n);
    let round26 = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .map(|&t| {
                if t == 0.0 {
                    return 0.0;
                }
                let e = t.abs().log2().floor() as i32;
                let s = 2f64.powi(25 - e);
                (t * s).round() / s
            })
            .collect()
    };
    let inputs = [
        ("53-bit", a53.clone(), x53.clone(), y53.clone()),
        ("26-bit", round26(&a53), round26(&x53), round26(&y53)),
    ];
    // MPBLAS_BENCH_BITS=106,1696 picks precisions; MPBLAS_BENCH_FUSED_ONLY=1 skips the paper's
    // form (profiling runs of the fused one).
    let all_bits = [106, 212, 424, 848, 1696, 3393];
    let bits_list: Vec<u32> = match std::env::var("MPBLAS_BENCH_BITS") {
        Ok(v) => v.split(',').filter_map(|t| t.trim().parse().ok()).collect(),
        Err(_) => all_bits.to_vec(),
    };
    let fused_only = std::env::var("MPBLAS_BENCH_FUSED_ONLY").is_ok();
    // MPBLAS_BENCH_ALPHA=1 times α = 1 (the fused prep's scaling path) instead of 1.5
    let alpha_f64 = std::env::var("MPBLAS_BENCH_ALPHA")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(1.5);
    for bits in bits_list {
        let b = Basis::new(bits)?;
        for (name, ha, hx, hy) in &inputs {
            let (ma, mx, my) = (
                MpArray::from_f64(&b, ha),
                MpArray::from_f64(&b, hx),
                MpArray::from_f64(&b, hy),
            );
            let da = DeviceMpArray::upload(dev, &ma)?;
            let dx = DeviceMpArray::upload(dev, &mx)?;
            let mut dy = DeviceMpArray::upload(dev, &my)?;
            let (alpha, beta) = (MpFloat::from_f64(&b, alpha_f64), MpFloat::from_f64(&b, 0.5));
            let mut ms = [0.0; 2];
            let mut same = true;
            for (k, trans) in [Trans::No, Trans::Yes].into_iter().enumerate() {
                if fused_only {
                    ms[k] = f64::NAN;
                    continue;
                }
                ms[k] = median_ms(dev, || {
                    bg::rns::gemv(dev, trans, n, n, &alpha, &da, n, &dx, 1, &beta, &mut dy, 1)
                })?;
                // the CPU's bits on the first 16 entries, from a fresh y
                dy.copy_from_host(&my)?;
                bg::rns::gemv(dev, trans, n, n, &alpha, &da, n, &dx, 1, &beta, &mut dy, 1)?;
                let got = dy.download()?.to_mpfloats()?;
                let (a, lda) = leading_block(&b, ha, n, trans);
                let x = mx.to_mpfloats()?;
                let k16 = n.min(16);
                let mut want = my.to_mpfloats()?[..k16].to_vec();
                match trans {
                    // rows 0..16: the leading 16 × n block
                    Trans::No => blas::level2::gemv_blas(
                        trans, k16, n, &alpha, &a, lda, &x, 1, &beta, &mut want, 1,
                    )?,
                    // columns 0..16 of A: the leading n × 16 block
                    Trans::Yes => blas::level2::gemv_blas(
                        trans, n, k16, &alpha, &a, lda, &x, 1, &beta, &mut want, 1,
                    )?,
                }
                same &= MpArray::from_mpfloats(&b, &got[..k16])?
                    .identical(&MpArray::from_mpfloats(&b, &want)?);
                dy.copy_from_host(&my)?;
            }
            // the fused form (one rounding per entry), where its wide basis fits the GPU
            let mut fused = [f64::NAN; 2];
            let mut fused_same = true;
            let fits = bits <= 2600;
            for (k, trans) in [Trans::No, Trans::Yes].into_iter().enumerate() {
                if !fits {
                    break;
                }
                fused[k] = median_ms(dev, || {
                    bg::rns::gemv_fused(dev, trans, n, n, &alpha, &da, n, &dx, 1, &beta, &mut dy, 1)
                })?;
                dy.copy_from_host(&my)?;
                bg::rns::gemv_fused(dev, trans, n, n, &alpha, &da, n, &dx, 1, &beta, &mut dy, 1)?;
                let got = dy.download()?.to_mpfloats()?;
                let (a, lda) = leading_block(&b, ha, n, trans);
                let x = mx.to_mpfloats()?;
                let k16 = n.min(16);
                let mut want = my.to_mpfloats()?[..k16].to_vec();
                let view = match trans {
                    Trans::No => mpblas::view::MatRef::col_major(&a, k16, n, lda)?,
                    Trans::Yes => mpblas::view::MatRef::col_major(&a, n, k16, lda)?.t(),
                };
                blas::rns::gemv_fused(
                    &alpha,
                    view,
                    mpblas::view::VecRef::contiguous(&x),
                    &beta,
                    mpblas::view::VecMut::contiguous(&mut want),
                )?;
                fused_same &= MpArray::from_mpfloats(&b, &got[..k16])?
                    .identical(&MpArray::from_mpfloats(&b, &want)?);
                dy.copy_from_host(&my)?;
            }
            let cell = |v: f64| {
                if v.is_nan() {
                    "—".to_string()
                } else {
                    format!("{v:.3}")
                }
            };
            println!(
                "| {bits} | {} | {name} | {:.3} | {:.3} | {} | {} | {} | {} |",
                b.len(),
                ms[0],
                ms[1],
                if same { "yes" } else { "NO" },
                cell(fused[0]),
                cell(fused[1]),
                if !fits {
                    "—"
                } else if fused_same {
                    "yes"
                } else {
                    "NO"
                }
            );
        }
    }
    Ok(())
}

/// GEMV (both transposes) and GER of an `m × n` column-major matrix in each format against
/// `cublasDgemv` / `cublasDger` in the same run. Bytes: gemv reads A, x and y and writes y; ger
/// reads A, x and y and writes A. `= CPU`: every entry of y has the CPU's bits (gemv).
fn level2_rows(dev: &Device, m: usize, n: usize) -> Result<()> {
    println!("\n## GEMV and GER, {m} x {n} column-major (CUDA events, median of {REPS})\n");
    println!("| format | routine | ms | GB/s | vs cuBLAS | = CPU |");
    println!("|---|---|---|---|---|---|");
    let mut rng = mpblas_testdata::SplitMix64::new(0x9e3 ^ m as u64);
    let ha: Vec<f64> = (0..m * n).map(|_| f64::random(&mut rng)).collect();
    let hx: Vec<f64> = (0..m.max(n)).map(|_| f64::random(&mut rng)).collect();
    let hy: Vec<f64> = (0..m.max(n)).map(|_| f64::random(&mut rng)).collect();
    let mut cublas = [0.0f64; 3];
    {
        let da = dev.upload(&ha)?;
        for (k, trans) in [Trans::No, Trans::Yes].into_iter().enumerate() {
            let (lx, ly) = if k == 0 { (n, m) } else { (m, n) };
            let dxs = dev.upload(&hx[..lx])?;
            let mut dys = dev.upload(&hy[..ly])?;
            let ms = median_ms(dev, || {
                cuda::dgemv(dev, trans, m, n, 1.5, &da, m, &dxs, 0.5, &mut dys)
            })?;
            let bytes = 8.0 * (m * n + lx + 2 * ly) as f64;
            cublas[k] = bytes / (ms * 1e-3) / 1e9;
            let name = if k == 0 {
                "cublasDgemv N"
            } else {
                "cublasDgemv T"
            };
            println!("| f64 | {name} | {ms:.4} | {:.0} | | |", cublas[k]);
        }
        let mut da2 = dev.upload(&ha)?;
        let dxm = dev.upload(&hx[..m])?;
        let dyn_ = dev.upload(&hy[..n])?;
        let ms = median_ms(dev, || cuda::dger(dev, m, n, 1.5, &dxm, &dyn_, &mut da2, m))?;
        let bytes = 8.0 * (2 * m * n + m + n) as f64;
        cublas[2] = bytes / (ms * 1e-3) / 1e9;
        println!("| f64 | cublasDger | {ms:.4} | {:.0} | | |", cublas[2]);
    }
    dev.release_workspaces()?;
    if wants_format("f64") {
        level2_format::<f64>(dev, m, n, &cublas)?;
        dev.release_workspaces()?;
    }
    if wants_format("dd") {
        level2_format::<Dd>(dev, m, n, &cublas)?;
        dev.release_workspaces()?;
    }
    if wants_format("qd") {
        level2_format::<Qd>(dev, m, n, &cublas)?;
        dev.release_workspaces()?;
    }
    Ok(())
}

fn level2_format<T: Random>(dev: &Device, m: usize, n: usize, cublas: &[f64; 3]) -> Result<()> {
    let mut rng = mpblas_testdata::SplitMix64::new(0x1e2 ^ m as u64 ^ T::WORDS as u64);
    let ha: Vec<T> = (0..m * n).map(|_| T::random(&mut rng)).collect();
    let hx: Vec<T> = (0..m.max(n)).map(|_| T::random(&mut rng)).collect();
    let hy: Vec<T> = (0..m.max(n)).map(|_| T::random(&mut rng)).collect();
    let (alpha, beta) = (T::random(&mut rng), T::random(&mut rng));
    let w = 8.0 * T::WORDS as f64;
    let da = dev.upload(&ha)?;
    let ca = MatRef::col_major(&ha, m, n, m)?;
    let ga = DeviceMatRef::col_major(&da, m, n, m)?;
    for (k, yard) in cublas[..2].iter().enumerate() {
        let (lx, ly) = if k == 0 { (n, m) } else { (m, n) };
        let (ga, ca) = if k == 0 { (ga, ca) } else { (ga.t(), ca.t()) };
        let dx = dev.upload(&hx[..lx])?;
        let mut dy = dev.upload(&hy[..ly])?;
        let gx = DeviceVecRef::contiguous(&dx);
        let ms = median_ms(dev, || {
            bg::gemv(dev, alpha, ga, gx, beta, DeviceVecMut::contiguous(&mut dy))
        })?;
        // One call from the original y, against the CPU.
        let mut dy = dev.upload(&hy[..ly])?;
        bg::gemv(dev, alpha, ga, gx, beta, DeviceVecMut::contiguous(&mut dy))?;
        let mut cy = hy[..ly].to_vec();
        blas::gemv(
            &alpha,
            ca,
            VecRef::contiguous(&hx[..lx]),
            &beta,
            VecMut::contiguous(&mut cy),
        )?;
        let ok = dy.download()?.iter().zip(&cy).all(|(a, b)| same(*a, *b));
        let gbs = w * (m * n + lx + 2 * ly) as f64 / (ms * 1e-3) / 1e9;
        println!(
            "| {} | gemv {} | {ms:.4} | {gbs:.0} | {:.0}% | {} |",
            T::NAME,
            if k == 0 { "N" } else { "T" },
            100.0 * gbs / yard,
            if ok { "yes" } else { "NO" }
        );
    }
    // The large shapes' extra GEMV N rows (x uploaded once for both).
    if m * n >= 1 << 24 {
        let dx = dev.upload(&hx[..n])?;
        // A holding exact zeros: a multi-word product with a zero factor leaves the generic path
        // for the special-value one (dd::mul_accurate), so a warp whose rows meet zeros at
        // different columns diverges. Every 16th entry zero (two rows of each 32), and A lower
        // triangular (the warps on the diagonal).
        let zero = T::zero_in(&());
        let every_16th = |i: usize| i % 16 == 5;
        let above_diagonal = |i: usize| i % m < i / m;
        for (what, is_zero) in [
            ("every 16th entry 0", &every_16th as &dyn Fn(usize) -> bool),
            ("lower triangle", &above_diagonal),
        ] {
            let hz: Vec<T> = ha
                .iter()
                .enumerate()
                .map(|(i, &v)| if is_zero(i) { zero } else { v })
                .collect();
            let dz = dev.upload(&hz)?;
            let gz = DeviceMatRef::col_major(&dz, m, n, m)?;
            let mut dy = dev.upload(&hy[..m])?;
            let ms = median_ms(dev, || {
                bg::gemv(
                    dev,
                    alpha,
                    gz,
                    DeviceVecRef::contiguous(&dx),
                    beta,
                    DeviceVecMut::contiguous(&mut dy),
                )
            })?;
            let gbs = w * (m * n + n + 2 * m) as f64 / (ms * 1e-3) / 1e9;
            println!(
                "| {} | gemv N, {what} | {ms:.4} | {gbs:.0} | {:.0}% | |",
                T::NAME,
                100.0 * gbs / cublas[0]
            );
        }
        // Over the launch: rows per block × threads (the bits never change).
        let mut dy = dev.upload(&hy[..m])?;
        let mut line = format!("| {} | gemv N ms by rows/block x threads |", T::NAME);
        for rows in [256u32, 128, 64, 32, 16, 8] {
            for threads in [128u32, 256] {
                if rows > threads {
                    // the launcher caps rows per block at the threads: a repeat of rows = threads
                    continue;
                }
                let shape = bg::GemvShape {
                    launch: LaunchShape {
                        threads,
                        blocks: None,
                    },
                    rows_per_block: Some(rows),
                    split_groups: None,
                };
                let ms = median_ms(dev, || {
                    bg::gemv_shaped(
                        dev,
                        alpha,
                        ga,
                        DeviceVecRef::contiguous(&dx),
                        beta,
                        DeviceVecMut::contiguous(&mut dy),
                        shape,
                    )
                })?;
                line += &format!(" {rows}x{threads}: {ms:.3} |");
            }
        }
        println!("{line}");
    }
    let mut dm = dev.upload(&ha)?;
    let dx = dev.upload(&hx[..m])?;
    let dy = dev.upload(&hy[..n])?;
    let ms = median_ms(dev, || {
        bg::ger(
            dev,
            alpha,
            DeviceVecRef::contiguous(&dx),
            DeviceVecRef::contiguous(&dy),
            DeviceMatMut::col_major(&mut dm, m, n, m)?,
        )
    })?;
    let gbs = w * (2 * m * n + m + n) as f64 / (ms * 1e-3) / 1e9;
    println!(
        "| {} | ger | {ms:.4} | {gbs:.0} | {:.0}% | |",
        T::NAME,
        100.0 * gbs / cublas[2]
    );
    Ok(())
}

/// GEMM `m × k` times `k × n` (column-major, α and β random, β·C read): cublasDgemm, then the
/// tiled kernel of each format. Rate: 2mnk format operations per second. `= CPU`: the top-left
/// 8 × 8 entries against the CPU's gemm of the same rows and columns (each entry's order is its
/// own, so a block of rows and columns gives the same bits); `err/(|A||B|)`: their largest error
/// against a quad-double product of the same operands, over `(|A||B|)_ij`.
fn gemm_rows(dev: &Device, shapes: &[(usize, usize, usize)]) -> Result<()> {
    println!("\n## GEMM (CUDA events, median; rate = 2mnk / time)\n");
    println!("| format | m x n x k | ms | T op/s | = CPU | err/(abs(A)abs(B)) |");
    println!("|---|---|---|---|---|---|");
    let formats = std::env::var("MPBLAS_BENCH_GEMM_FORMATS").unwrap_or("f64,dd,qd".into());
    let wants = |f: &str| formats.split(',').any(|g| g == f);
    for &(m, n, k) in shapes {
        let reps = if m * n * k >= 1 << 36 { 3 } else { 7 };
        let mut rng = mpblas_testdata::SplitMix64::new(0x6e3 ^ (m * n * k) as u64);
        let ha: Vec<f64> = (0..m * k).map(|_| f64::random(&mut rng)).collect();
        let hb: Vec<f64> = (0..k * n).map(|_| f64::random(&mut rng)).collect();
        let (da, db) = (dev.upload(&ha)?, dev.upload(&hb)?);
        let mut dc = dev.zeros::<f64>(m * n)?;
        let ms = median_ms_of(dev, 1, reps, || {
            cuda::dgemm(
                dev,
                1.5,
                DeviceMatRef::col_major(&da, m, k, m)?,
                DeviceMatRef::col_major(&db, k, n, k)?,
                0.5,
                DeviceMatMut::col_major(&mut dc, m, n, m)?,
            )
        })?;
        println!(
            "| f64 cublasDgemm | {m}x{n}x{k} | {ms:.3} | {:.2} | | |",
            2.0 * (m * n * k) as f64 / (ms * 1e-3) / 1e12
        );
        drop((da, db, dc));
        if wants("f64") {
            gemm_format::<f64>(dev, (m, n, k), reps)?;
        }
        if wants("dd") {
            gemm_format::<Dd>(dev, (m, n, k), reps)?;
        }
        if wants("ddc") || wants("dd") {
            gemm_format_with::<Dd>(
                dev,
                (m, n, k),
                reps,
                "dd compensated",
                &|d, al, a, b, be, c| bg::gemm_dd_compensated(d, al, a, b, be, c),
                &|al, a, b, be, c| blas::gemm_dd_compensated(al, a, b, be, c),
            )?;
        }
        if wants("qd") && m * n * k <= 1 << 34 {
            gemm_format::<Qd>(dev, (m, n, k), reps)?;
        }
        if wants("ozdd") {
            gemm_ozaki_dd::<f64>(dev, (m, n, k), reps)?;
        }
        if wants("ozddd") {
            gemm_ozaki_dd::<Dd>(dev, (m, n, k), reps)?;
        }
        dev.release_workspaces()?;
    }
    Ok(())
}

/// The double-double Ozaki scheme II (`ozaki::gpu::ozaki2_gemm_dd`, 30 moduli, componentwise
/// guard): `f64` (`ozdd`) or `Dd` (`ozddd`) operands (full significands, exponents in
/// [-8, 8]), `Dd` C with
/// `α = 1.5`, `β = 0.5`. Rate 2mnk / time (as the dd rows: each `f64` product counts once);
/// `= CPU` and the error (against a quad-double product, over `(|A||B|)_ij`) on the top-left
/// 8 × 8 block, which the scheme computes as in the whole product (each entry's scaling is its
/// row's and column's own); the guard's recomputed entries in the last column.
fn gemm_ozaki_dd<T: Random + mpblas::ozaki::DdSchemeInput>(
    dev: &Device,
    (m, n, k): (usize, usize, usize),
    reps: usize,
) -> Result<()> {
    use mpblas::ozaki::{self, ozaki2_dd_params};
    use mpblas::view::MatMut;
    let mut rng = mpblas_testdata::SplitMix64::new(0x8e3 ^ (m * n * k) as u64);
    let ha: Vec<T> = (0..m * k).map(|_| T::random(&mut rng)).collect();
    let hb: Vec<T> = (0..k * n).map(|_| T::random(&mut rng)).collect();
    let hc: Vec<Dd> = (0..m * n).map(|_| Dd::random(&mut rng)).collect();
    let (alpha, beta) = (1.5, 0.5);
    let p = ozaki2_dd_params();
    let (da, db) = (dev.upload(&ha)?, dev.upload(&hb)?);
    let ga = DeviceMatRef::col_major(&da, m, k, m)?;
    let gb = DeviceMatRef::col_major(&db, k, n, k)?;
    let mut dc = dev.upload(&hc)?;
    let ms = median_ms_of(dev, 1, reps, || {
        let c = DeviceMatMut::col_major(&mut dc, m, n, m)?;
        ozaki::gpu::ozaki2_gemm_dd(dev, alpha, ga, gb, beta, c, &p).map(|_| ())
    })?;
    let mut dc = dev.upload(&hc)?;
    let c = DeviceMatMut::col_major(&mut dc, m, n, m)?;
    let report = ozaki::gpu::ozaki2_gemm_dd(dev, alpha, ga, gb, beta, c, &p)?;
    let got = dc.download()?;
    let s = 8.min(m).min(n);
    let ca = MatRef::col_major(&ha, m, k, m)?.block(0, 0, s, k)?;
    let cb = MatRef::col_major(&hb, k, n, k)?.block(0, 0, k, s)?;
    let mut cc: Vec<Dd> = (0..s * s).map(|e| hc[(e % s) + (e / s) * m]).collect();
    ozaki::ozaki2_gemm_dd(
        alpha,
        ca,
        cb,
        beta,
        MatMut::col_major(&mut cc, s, s, s)?,
        &p,
    )?;
    let ok = (0..s * s).all(|e| same(got[(e % s) + (e / s) * m], cc[e]));
    let mut worst = 0.0f64;
    for e in 0..s * s {
        let (i, j) = (e % s, e / s);
        let (mut exact, mut mag) = (Qd::ZERO, Qd::ZERO);
        for l in 0..k {
            let pr = ha[i + l * m].to_qd() * hb[l + j * k].to_qd();
            exact += pr;
            mag += pr.abs();
        }
        let exact = Qd::from(alpha) * exact + Qd::from(beta) * hc[i + j * m].to_qd();
        let mag = Qd::from(alpha) * mag + (Qd::from(beta) * hc[i + j * m].to_qd()).abs();
        let err = (got[i + j * m].to_qd() - exact).abs();
        worst = worst.max((err / mag).nearest_f64());
    }
    println!(
        "| dd Ozaki II ({} in, {} moduli; recomputed {}) | {m}x{n}x{k} | {ms:.3} | {:.3} | {} | {worst:.1e} |",
        <T as mpblas::cuda::DeviceScalar>::NAME,
        p.moduli,
        report.guard_recomputed,
        2.0 * (m * n * k) as f64 / (ms * 1e-3) / 1e12,
        if ok { "yes" } else { "NO" }
    );
    Ok(())
}

fn gemm_format<T: Random>(dev: &Device, dims: (usize, usize, usize), reps: usize) -> Result<()> {
    gemm_format_with::<T>(
        dev,
        dims,
        reps,
        T::NAME,
        &|d, al, a, b, be, c| bg::gemm(d, al, a, b, be, c),
        &|al, a, b, be, c| blas::gemm(al, a, b, be, c),
    )
}

/// A GPU GEMM under test.
type GpuGemm<T> = dyn Fn(
    &Device,
    T,
    DeviceMatRef<'_, T>,
    DeviceMatRef<'_, T>,
    T,
    DeviceMatMut<'_, T>,
) -> Result<()>;
/// Its CPU twin.
type CpuGemm<T> =
    dyn Fn(&T, MatRef<'_, T>, MatRef<'_, T>, &T, mpblas::view::MatMut<'_, T>) -> Result<()>;

/// One GEMM row named `name`: `gpu` timed, its top-left block against `cpu`'s and a quad-double
/// product.
fn gemm_format_with<T: Random>(
    dev: &Device,
    (m, n, k): (usize, usize, usize),
    reps: usize,
    name: &str,
    gpu: &GpuGemm<T>,
    cpu: &CpuGemm<T>,
) -> Result<()> {
    use mpblas::view::MatMut;
    let mut rng = mpblas_testdata::SplitMix64::new(0x7e3 ^ (m * n * k) as u64 ^ T::WORDS as u64);
    let ha: Vec<T> = (0..m * k).map(|_| T::random(&mut rng)).collect();
    let hb: Vec<T> = (0..k * n).map(|_| T::random(&mut rng)).collect();
    let hc: Vec<T> = (0..m * n).map(|_| T::random(&mut rng)).collect();
    let (alpha, beta) = (T::random(&mut rng), T::random(&mut rng));
    let (da, db) = (dev.upload(&ha)?, dev.upload(&hb)?);
    let ga = DeviceMatRef::col_major(&da, m, k, m)?;
    let gb = DeviceMatRef::col_major(&db, k, n, k)?;
    let mut dc = dev.upload(&hc)?;
    let ms = median_ms_of(dev, 1, reps, || {
        gpu(
            dev,
            alpha,
            ga,
            gb,
            beta,
            DeviceMatMut::col_major(&mut dc, m, n, m)?,
        )
    })?;
    // One call from the original C, against the CPU on the top-left block.
    let mut dc = dev.upload(&hc)?;
    gpu(
        dev,
        alpha,
        ga,
        gb,
        beta,
        DeviceMatMut::col_major(&mut dc, m, n, m)?,
    )?;
    let got = dc.download()?;
    let s = 8.min(m).min(n);
    let ca = MatRef::col_major(&ha, m, k, m)?.block(0, 0, s, k)?;
    let cb = MatRef::col_major(&hb, k, n, k)?.block(0, 0, k, s)?;
    let mut cc: Vec<T> = (0..s * s).map(|e| hc[(e % s) + (e / s) * m]).collect();
    cpu(&alpha, ca, cb, &beta, MatMut::col_major(&mut cc, s, s, s)?)?;
    let ok = (0..s * s).all(|e| same(got[(e % s) + (e / s) * m], cc[e]));
    // Error against a quad-double product, relative to |α|(|A||B|)_ij + |β||c_ij|.
    let q = |v: T| v.to_qd();
    let mut worst = 0.0f64;
    for e in 0..s * s {
        let (i, j) = (e % s, e / s);
        let (mut exact, mut mag) = (Qd::ZERO, Qd::ZERO);
        for l in 0..k {
            let p = q(ha[i + l * m]) * q(hb[l + j * k]);
            exact += p;
            mag += p.abs();
        }
        let exact = q(alpha) * exact + q(beta) * q(hc[i + j * m]);
        let mag = q(alpha).abs() * mag + (q(beta) * q(hc[i + j * m])).abs();
        let err = (q(got[i + j * m]) - exact).abs();
        worst = worst.max((err / mag).nearest_f64());
    }
    println!(
        "| {name} | {m}x{n}x{k} | {ms:.3} | {:.3} | {} | {worst:.1e} |",
        2.0 * (m * n * k) as f64 / (ms * 1e-3) / 1e12,
        if ok { "yes" } else { "NO" }
    );
    Ok(())
}

/// The refinement's parameters: the defaults (error bounds on), or with
/// `MPBLAS_BENCH_NO_BOUNDS=1` no error bounds (to time what they cost).
fn refine_params() -> mpblas::lapack::RefineParams {
    mpblas::lapack::RefineParams {
        error_bounds: std::env::var_os("MPBLAS_BENCH_NO_BOUNDS").is_none(),
        ..Default::default()
    }
}

/// `lapack::gpu::gesv_refined` (double-double: cuSOLVER's f64 LU, Ozaki residuals) beside
/// `lapack::gpu::dgesv` (cuSOLVER `getrf` + `getrs` in f64) on the same matrices: the QD
/// paper's `A` 2400 × 2400 with 1600 right-hand sides, then `n × n` with one right-hand side for
/// each `n` given (default 8192, 16384). `A`, `B` uniform in [−1, 1] with full double-double
/// words; CUDA events around each whole call (host synchronisations inside included), median
/// of 3 after a warm-up; the error of the first two columns against the CPU's quad-double
/// refined solve at the paper's size.
fn solve_rows(dev: &Device, sizes: &[usize]) -> Result<()> {
    use mpblas::lapack;
    println!("\n## Solve A X = B (CUDA events around the call, median of 3)\n");
    println!("| routine | n | nrhs | ms | vs dgesv | steps | rel err (2 columns) |");
    println!("|---|---|---|---|---|---|---|");
    let mut shapes = vec![(2400usize, 1600usize)];
    let big: Vec<usize> = if sizes.iter().all(|&s| s >= 1 << 20) {
        vec![8192, 16384]
    } else {
        sizes.to_vec()
    };
    shapes.extend(big.iter().map(|&n| (n, 1)));
    for (n, nrhs) in shapes {
        let mut rng = mpblas_testdata::SplitMix64::new(0x501e ^ n as u64);
        let a: Vec<Dd> = (0..n * n).map(|_| Dd::random(&mut rng)).collect();
        let b: Vec<Dd> = (0..n * nrhs).map(|_| Dd::random(&mut rng)).collect();
        let ahi: Vec<f64> = a.iter().map(|v| v.hi).collect();
        let bhi: Vec<f64> = b.iter().map(|v| v.hi).collect();
        let (da, db) = (dev.upload(&a)?, dev.upload(&b)?);
        let mut dx = dev.zeros::<Dd>(n * nrhs)?;
        let mut steps = 0;
        let ms = median_ms_of(dev, 1, 3, || {
            let r = lapack::gpu::gesv_refined(
                dev,
                DeviceMatRef::col_major(&da, n, n, n)?,
                DeviceMatRef::col_major(&db, n, nrhs, n)?,
                DeviceMatMut::col_major(&mut dx, n, nrhs, n)?,
                &refine_params(),
            )?;
            steps = r.iterations;
            Ok(())
        })?;
        let (a0, b0) = (dev.upload(&ahi)?, dev.upload(&bhi)?);
        let (mut fa, mut fb) = (dev.zeros::<f64>(n * n)?, dev.zeros::<f64>(n * nrhs)?);
        let ms64 = median_ms_of(dev, 1, 3, || {
            fa.copy_from(&a0)?;
            fb.copy_from(&b0)?;
            lapack::gpu::dgesv(
                dev,
                DeviceMatMut::col_major(&mut fa, n, n, n)?,
                DeviceMatMut::col_major(&mut fb, n, nrhs, n)?,
            )
        })?;
        let err = if n <= 2400 {
            let worst = qd_reference_error(&a, &b, &dx.download()?, (n, nrhs))?;
            format!("{worst:.1e}")
        } else {
            "-".into()
        };
        println!(
            "| dd gesv_refined | {n} | {nrhs} | {ms:.2} | {:.2}x | {steps} | {err} |",
            ms / ms64
        );
        println!(
            "| f64 dgesv (cuSOLVER getrf + getrs, with a device copy of A, B) | {n} | {nrhs} | {ms64:.2} | 1.00x | | |"
        );
        if nrhs > 1 {
            qd_solve_row(dev, (n, nrhs), ms64)?;
        }
        dev.release_workspaces()?;
    }
    Ok(())
}

/// The largest `‖x − x*‖∞ / ‖x*‖∞` over the first two columns of a GPU solution `x` of
/// `A·X = B`, against the CPU's quad-double refined solve of the same system.
fn qd_reference_error<T: Random>(
    a: &[T],
    b: &[T],
    x: &[T],
    (n, nrhs): (usize, usize),
) -> Result<f64> {
    use mpblas::lapack;
    let cols = nrhs.min(2);
    let aq: Vec<Qd> = a.iter().map(|v| v.to_qd()).collect();
    let bq: Vec<Qd> = b[..n * cols].iter().map(|v| v.to_qd()).collect();
    let mut xq = bq.clone();
    lapack::gesv_refined(
        MatRef::col_major(&aq, n, n, n)?,
        MatRef::col_major(&bq, n, cols, n)?,
        mpblas::view::MatMut::col_major(&mut xq, n, cols, n)?,
        &refine_params(),
    )?;
    let mut worst = 0.0f64;
    for c in 0..cols {
        let (mut e, mut s) = (0.0f64, 0.0f64);
        for i in 0..n {
            let w = xq[i + c * n];
            e = e.max((x[i + c * n].to_qd() - w).abs().nearest_f64());
            s = s.max(w.abs().nearest_f64());
        }
        worst = worst.max(e / s);
    }
    Ok(worst)
}

/// The quad-double row of [`solve_rows`]: `lapack::gpu::gesv_refined::<Qd>` on full
/// quad-double `A`, `B`, timed as the double-double row; the error of two columns against the
/// CPU's quad-double refined solve of the same system.
fn qd_solve_row(dev: &Device, (n, nrhs): (usize, usize), ms64: f64) -> Result<()> {
    use mpblas::lapack;
    let mut rng = mpblas_testdata::SplitMix64::new(0x501f ^ n as u64);
    let a: Vec<Qd> = (0..n * n).map(|_| Qd::random(&mut rng)).collect();
    let b: Vec<Qd> = (0..n * nrhs).map(|_| Qd::random(&mut rng)).collect();
    let (da, db) = (dev.upload(&a)?, dev.upload(&b)?);
    let mut dx = dev.zeros::<Qd>(n * nrhs)?;
    let mut report = None;
    let ms = median_ms_of(dev, 1, 3, || {
        report = Some(lapack::gpu::gesv_refined(
            dev,
            DeviceMatRef::col_major(&da, n, n, n)?,
            DeviceMatRef::col_major(&db, n, nrhs, n)?,
            DeviceMatMut::col_major(&mut dx, n, nrhs, n)?,
            &refine_params(),
        )?);
        Ok(())
    })?;
    let worst = qd_reference_error(&a, &b, &dx.download()?, (n, nrhs))?;
    let r = report.expect("timed at least once");
    println!(
        "| qd gesv_refined | {n} | {nrhs} | {ms:.2} | {:.2}x | {} ({:?}) | {worst:.1e} |",
        ms / ms64,
        r.iterations,
        r.path
    );
    Ok(())
}

/// `lapack::gpu::getrf` (our LU with partial pivoting, the CPU's bits) in double-double and
/// quad-double at each `n` (default 2400, 8192 for dd; qd up to 4096), `A` uniform in [−1, 1]
/// with full words: CUDA events around the call (one warm-up, median of 3), the rate in
/// `2n³/3` format operations per second, beside cuSOLVER's f64 `dgesv` (one right-hand side)
/// of the leading words in the same run.
fn lu_rows(dev: &Device, sizes: &[usize]) -> Result<()> {
    use mpblas::lapack;
    println!("\n## LU with partial pivoting on the GPU (CUDA events, median of 3)\n");
    println!("| format | n | ms | G op/s (2n³/3) | cuSOLVER f64 dgesv ms |");
    println!("|---|---|---|---|---|");
    let ns: Vec<usize> = if sizes.iter().all(|&s| s >= 1 << 20) {
        vec![2400, 8192]
    } else {
        sizes.to_vec()
    };
    for &n in &ns {
        let mut rng = mpblas_testdata::SplitMix64::new(0x1f ^ n as u64);
        let a: Vec<Dd> = (0..n * n).map(|_| Dd::random(&mut rng)).collect();
        let hi: Vec<f64> = a.iter().map(|v| v.hi).collect();
        let (a0, h0) = (dev.upload(&a)?, dev.upload(&hi)?);
        let (mut w, mut f, mut b) = (
            dev.zeros::<Dd>(n * n)?,
            dev.zeros::<f64>(n * n)?,
            dev.zeros::<f64>(n)?,
        );
        let mut ipiv = vec![0; n];
        let ms = median_ms_of(dev, 1, 3, || {
            w.copy_from(&a0)?;
            lapack::gpu::getrf(dev, DeviceMatMut::col_major(&mut w, n, n, n)?, &mut ipiv).map(drop)
        })?;
        let ms64 = median_ms_of(dev, 1, 3, || {
            f.copy_from(&h0)?;
            lapack::gpu::dgesv(
                dev,
                DeviceMatMut::col_major(&mut f, n, n, n)?,
                DeviceMatMut::col_major(&mut b, n, 1, n)?,
            )
        })?;
        let ops = 2.0 * (n as f64).powi(3) / 3.0;
        println!(
            "| dd | {n} | {ms:.1} | {:.1} | {ms64:.2} |",
            ops / (ms * 1e-3) / 1e9
        );
        drop((a0, w));
        if n <= 4096 {
            let q: Vec<Qd> = (0..n * n).map(|_| Qd::random(&mut rng)).collect();
            let q0 = dev.upload(&q)?;
            let mut wq = dev.zeros::<Qd>(n * n)?;
            let msq = median_ms_of(dev, 1, 3, || {
                wq.copy_from(&q0)?;
                lapack::gpu::getrf(dev, DeviceMatMut::col_major(&mut wq, n, n, n)?, &mut ipiv)
                    .map(drop)
            })?;
            println!(
                "| qd | {n} | {msq:.1} | {:.2} | |",
                ops / (msq * 1e-3) / 1e9
            );
        }
        dev.release_workspaces()?;
    }
    Ok(())
}

/// RNS LU with partial pivoting on the GPU (`lapack::gpu::rns::getrf`) at 106, 212 and 424
/// bits on full-precision random matrices, against the CPU's `getrf` (time and bits) at the
/// smallest order.
fn rns_lu_rows(dev: &Device, sizes: &[usize]) -> Result<()> {
    use mpblas::lapack;
    use mpblas::rns::gpu::DeviceMpArray;
    use mpblas::rns::{Basis, MpArray, MpFloat};
    println!(
        "\n## RNS LU with partial pivoting (CUDA events around getrf, median of 3 after one warm-up)\n"
    );
    println!(
        "| precision | n | GPU ms | G op/s (2n³/3) | CPU ms ({} threads) | GPU = CPU |",
        rayon::current_num_threads()
    );
    println!("|---|---|---|---|---|---|");
    let ns: Vec<usize> = if sizes.iter().all(|&s| s >= 1 << 20) {
        vec![256, 512, 1024]
    } else {
        sizes.to_vec()
    };
    let mut rng = mpblas_testdata::SplitMix64::new(0x1a5);
    for bits in [106u32, 212, 424] {
        let basis = Basis::new(bits)?;
        let p = u64::from(basis.precision());
        let mut full = || {
            let mut limbs: Vec<u64> = (0..p.div_ceil(64)).map(|_| rng.next_u64()).collect();
            let top = (p - 1) % 64;
            if let Some(t) = limbs.last_mut() {
                *t = (*t & ((2u128 << top) - 1) as u64) | (1 << top);
            }
            let neg = limbs[0] & 1 == 1;
            MpFloat::from_limbs(&basis, neg, &limbs, -(p as i64))
        };
        for (k, &n) in ns.iter().enumerate() {
            let a: Vec<MpFloat> = (0..n * n).map(|_| full()).collect();
            let host = MpArray::from_mpfloats(&basis, &a)?;
            let mut da = DeviceMpArray::upload(dev, &host)?;
            let mut ipiv = vec![0; n];
            let mut t = Vec::new();
            for rep in 0..4 {
                da.copy_from_host(&host)?;
                let ms = dev.time_ms(&mut || {
                    lapack::gpu::rns::getrf(dev, n, n, &mut da, n, &mut ipiv).map(drop)
                })?;
                if rep > 0 {
                    t.push(f64::from(ms));
                }
            }
            t.sort_by(f64::total_cmp);
            let ms = t[1];
            let (cpu, same) = if k == 0 {
                let mut c = a.clone();
                let mut cpiv = vec![0; n];
                let t0 = std::time::Instant::now();
                lapack::getrf(mpblas::view::MatMut::col_major(&mut c, n, n, n)?, &mut cpiv)?;
                let cpu_ms = t0.elapsed().as_secs_f64() * 1e3;
                let got = da.download()?.to_mpfloats()?;
                let same = cpiv == ipiv && got.iter().zip(&c).all(|(g, w)| g.identical(w));
                (format!("{cpu_ms:.0}"), if same { "yes" } else { "NO" })
            } else {
                ("".into(), "")
            };
            let ops = 2.0 * (n as f64).powi(3) / 3.0;
            println!(
                "| {bits} bits | {n} | {ms:.1} | {:.3} | {cpu} | {same} |",
                ops / (ms * 1e-3) / 1e9
            );
        }
        dev.release_workspaces()?;
    }
    Ok(())
}

/// Whether `MPBLAS_BENCH_FORMATS` (a comma-separated list of f64, dd, qd; all when unset) names
/// `format`, for the level-1 and level-2 tables (profiling runs).
fn wants_format(format: &str) -> bool {
    std::env::var("MPBLAS_BENCH_FORMATS").map_or(true, |v| v.split(',').any(|f| f == format))
}

fn main() -> Result<()> {
    let sizes: Vec<usize> = match std::env::args().nth(1) {
        Some(s) => s.split(',').filter_map(|t| t.trim().parse().ok()).collect(),
        None => vec![1 << 20, 1 << 24, 1 << 27],
    };
    let dev = Device::open(0)?;
    // MPBLAS_BENCH_ONLY=gemv: only the level-2 rows at 16384 × 8192, or at each of
    // MPBLAS_BENCH_GEMV_DIMS (`4096x4096,8192x8192`), for profiling runs;
    // MPBLAS_BENCH_ONLY=rns: only the RNS GEMV rows; =shapes: the launch shapes of the
    // double-double and quad-double reductions.
    match std::env::var("MPBLAS_BENCH_ONLY").as_deref() {
        Ok("gemv") => {
            let dims = std::env::var("MPBLAS_BENCH_GEMV_DIMS").unwrap_or("16384x8192".into());
            for d in dims.split(',') {
                let parsed = d
                    .split_once('x')
                    .and_then(|(m, n)| Some((m.parse().ok()?, n.parse().ok()?)));
                let Some((m, n)) = parsed else {
                    eprintln!("MPBLAS_BENCH_GEMV_DIMS: {d:?} is not MxN");
                    std::process::exit(2);
                };
                level2_rows(&dev, m, n)?;
            }
            return Ok(());
        }
        // the reductions' launch shapes at n = 2^27 (dd and qd)
        Ok("shapes") => {
            println!("| format | routine | 32 | 64 | 128 | 256 |");
            println!("|---|---|---|---|---|---|");
            shape_rows::<Dd>(&dev, 1 << 27)?;
            return shape_rows::<Qd>(&dev, 1 << 27);
        }
        Ok("rns") => return rns_gemv_rows(&dev, 1000),
        Ok("rnsgemm") => return rns_gemm_rows(&dev),
        Ok("lu") => return lu_rows(&dev, &sizes),
        Ok("rnslu") => return rns_lu_rows(&dev, &sizes),
        // Sizes given: n × n × n each (MPBLAS_BENCH_GEMM_FORMATS=dd,qd picks the formats).
        Ok("gemm") if std::env::args().nth(1).is_some() => {
            let shapes: Vec<_> = sizes.iter().map(|&n| (n, n, n)).collect();
            return gemm_rows(&dev, &shapes);
        }
        Ok("gemm") => return gemm_rows(&dev, &GEMM_SHAPES),
        // The solvers: the QD paper's problem and n × n with one right-hand side.
        Ok("solve") => return solve_rows(&dev, &sizes),
        _ => {}
    }
    // MPBLAS_BENCH_ONLY=level1: only the level-1 tables at the sizes given (or the defaults).
    let level1_only = std::env::var("MPBLAS_BENCH_ONLY").as_deref() == Ok("level1");
    println!(
        "# BLAS level 1 on {} (CUDA events, median of {REPS})",
        dev.info()
    );
    for &n in &sizes {
        let mut rows = Vec::new();
        // The cuBLAS yardsticks and the accurate f64 routines always, then the formats asked
        // for.
        f64_extra_rows(&dev, n, &mut rows)?;
        if wants_format("f64") {
            format_rows::<f64>(&dev, n, &mut rows)?;
        }
        if wants_format("dd") {
            format_rows::<Dd>(&dev, n, &mut rows)?;
        }
        if wants_format("qd") {
            format_rows::<Qd>(&dev, n, &mut rows)?;
        }
        dev.release_workspaces()?;
        println!("\n## n = {n}\n");
        println!("| format | routine | ms | GB/s | vs cuBLAS | G elem/s | = CPU | rel err |");
        println!("|---|---|---|---|---|---|---|---|");
        let yard = |name: &str| rows.iter().find(|r| r.routine == name).map(Row::gbs);
        for r in &rows {
            let vs = r
                .yardstick
                .and_then(yard)
                .map_or("".to_string(), |g| format!("{:.0}%", 100.0 * r.gbs() / g));
            println!(
                "| {} | {} | {:.4} | {:.0} | {} | {:.2} | {} | {} |",
                r.format,
                r.routine,
                r.ms,
                r.gbs(),
                vs,
                r.n as f64 / (r.ms * 1e-3) / 1e9,
                r.same_as_cpu.map_or("", |b| if b { "yes" } else { "NO" }),
                r.rel_err.map_or(String::new(), |e| format!("{e:.1e}")),
            );
        }
    }
    if level1_only {
        return Ok(());
    }
    if std::env::args().nth(1).is_none() {
        println!("\n## Launch shapes at n = 2^27 (threads per block; the bits never change)\n");
        println!("| format | routine | 32 | 64 | 128 | 256 |");
        println!("|---|---|---|---|---|---|");
        shape_rows::<f64>(&dev, 1 << 27)?;
        shape_rows::<Dd>(&dev, 1 << 27)?;
        shape_rows::<Qd>(&dev, 1 << 27)?;
        dev.release_workspaces()?;
        rns_sum_rows(&dev, 100_000_000)?;
    }
    level2_rows(&dev, 16384, 8192)?;
    level2_rows(&dev, 1000, 1000)?;
    dev.release_workspaces()?;
    rns_gemv_rows(&dev, 1000)?;
    gemm_rows(&dev, &GEMM_SHAPES)
}

/// The GEMM shapes: squares from 1024 to 8192, and the QD paper's 1600 × 3200 times
/// 3200 × 1600.
const GEMM_SHAPES: [(usize, usize, usize); 5] = [
    (1024, 1024, 1024),
    (2048, 2048, 2048),
    (4096, 4096, 4096),
    (8192, 8192, 8192),
    (1600, 1600, 3200),
];
