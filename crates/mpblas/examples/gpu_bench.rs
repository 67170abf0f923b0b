//! Element-wise dd/qd throughput on the GPU: `+ × ÷ √` over 16M elements.
//!
//! For each operation: 3 warm-up launches, then 15 launches each timed with CUDA events; the
//! median is reported as time, memory throughput (bytes of every word read and written, in
//! GB/s = 1e9 B/s), its percentage of a measured device-to-device copy (bytes read plus bytes
//! written, the same counting), and Gop/s (one operation per element). Each row also says
//! whether the first 65,536 results equal the CPU's bit for bit.
//!
//! Run: `cargo run --release --example gpu_bench [-- <elements>]` (default 16777216), or via
//! `scripts/gpu-check.sh`, whose bundle runs it after the tests.

use mpblas::cuda::{Device, DeviceScalar, DeviceVec};
use mpblas::{Dd, Qd, Result};

const WARMUP: usize = 3;
const REPS: usize = 15;
const CHECKED: usize = 1 << 16;

/// A small seeded generator (SplitMix64) for full-precision inputs in [1, 2) and [2, 4).
struct Rng(mpblas_testdata::SplitMix64);
impl Rng {
    /// A generator seeded with `seed` (the shared SplitMix64).
    fn new(seed: u64) -> Self {
        Rng(mpblas_testdata::SplitMix64::new(seed))
    }
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// A random f64 with binary exponent `e` and a full random significand.
    fn f64_exp(&mut self, e: i32) -> f64 {
        let frac = self.next() & ((1 << 52) - 1);
        let sign = self.next() & (1 << 63);
        f64::from_bits(sign | (((e + 1023) as u64) << 52) | frac)
    }
}

fn random_dd(rng: &mut Rng, e: i32) -> Dd {
    Dd::new(rng.f64_exp(e).abs(), rng.f64_exp(e - 54))
}

fn random_qd(rng: &mut Rng, e: i32) -> Qd {
    Qd::new(
        rng.f64_exp(e).abs(),
        rng.f64_exp(e - 54),
        rng.f64_exp(e - 108),
        rng.f64_exp(e - 162),
    )
}

/// The median of the timed launches of `launch`, in milliseconds.
fn median_ms(dev: &Device, mut launch: impl FnMut() -> Result<()>) -> Result<f64> {
    for _ in 0..WARMUP {
        launch()?;
    }
    let mut t = Vec::with_capacity(REPS);
    for _ in 0..REPS {
        t.push(f64::from(dev.time_ms(&mut launch)?));
    }
    t.sort_by(f64::total_cmp);
    Ok(t[REPS / 2])
}

fn same_bits<T: DeviceScalar>(a: &[T], b: &[T]) -> bool {
    a.iter().zip(b).all(|(x, y)| {
        let (x, y) = (x.to_words(), y.to_words());
        (0..T::WORDS).all(|k| x[k].to_bits() == y[k].to_bits() || (x[k].is_nan() && y[k].is_nan()))
    })
}

struct Row {
    name: String,
    ms: f64,
    bytes: f64,
    n: usize,
    bits_ok: bool,
}

type Vv<T> = fn(&Device, &DeviceVec<T>, &DeviceVec<T>, &mut DeviceVec<T>) -> Result<()>;
type V<T> = fn(&Device, &DeviceVec<T>, &mut DeviceVec<T>) -> Result<()>;

/// Time one binary operation and check a prefix of its result against the CPU.
#[allow(clippy::too_many_arguments)]
fn bench_vv<T: DeviceScalar>(
    dev: &Device,
    name: &str,
    op: Vv<T>,
    cpu: fn(T, T) -> T,
    x: &DeviceVec<T>,
    y: &DeviceVec<T>,
    out: &mut DeviceVec<T>,
    host: (&[T], &[T]),
) -> Result<Row> {
    let ms = median_ms(dev, || op(dev, x, y, out))?;
    let got = out.download()?;
    let want: Vec<T> = (0..CHECKED.min(x.len()))
        .map(|i| cpu(host.0[i], host.1[i]))
        .collect();
    Ok(Row {
        name: name.to_string(),
        ms,
        bytes: (3 * T::WORDS * 8 * x.len()) as f64,
        n: x.len(),
        bits_ok: same_bits(&got[..want.len()], &want),
    })
}

fn bench_v<T: DeviceScalar>(
    dev: &Device,
    name: &str,
    op: V<T>,
    cpu: fn(T) -> T,
    x: &DeviceVec<T>,
    out: &mut DeviceVec<T>,
    host: &[T],
) -> Result<Row> {
    let ms = median_ms(dev, || op(dev, x, out))?;
    let got = out.download()?;
    let want: Vec<T> = host[..CHECKED.min(x.len())]
        .iter()
        .map(|&a| cpu(a))
        .collect();
    Ok(Row {
        name: name.to_string(),
        ms,
        bytes: (2 * T::WORDS * 8 * x.len()) as f64,
        n: x.len(),
        bits_ok: same_bits(&got[..want.len()], &want),
    })
}

fn main() -> Result<()> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1 << 24);
    let dev = Device::open(0)?;
    println!("{}", dev.info());
    dev.load_modules(mpblas::kernel_modules())?;

    let mut rng = Rng::new(2024);
    let hx: Vec<Dd> = (0..n).map(|_| random_dd(&mut rng, 0)).collect();
    let hy: Vec<Dd> = (0..n).map(|_| random_dd(&mut rng, 1)).collect();
    let qx: Vec<Qd> = (0..n).map(|_| random_qd(&mut rng, 0)).collect();
    let qy: Vec<Qd> = (0..n).map(|_| random_qd(&mut rng, 1)).collect();

    let (x, y) = (dev.upload(&hx)?, dev.upload(&hy)?);
    let mut out = dev.zeros::<Dd>(n)?;
    let (h, add, mul, div) = ((&hx[..], &hy[..]), |a, b| a + b, |a, b| a * b, |a, b| a / b);
    let mut rows = vec![
        bench_vv(
            &dev,
            "dd add",
            mpblas::dd::gpu::add,
            add,
            &x,
            &y,
            &mut out,
            h,
        )?,
        bench_vv(
            &dev,
            "dd mul",
            mpblas::dd::gpu::mul,
            mul,
            &x,
            &y,
            &mut out,
            h,
        )?,
        bench_vv(
            &dev,
            "dd div",
            mpblas::dd::gpu::div,
            div,
            &x,
            &y,
            &mut out,
            h,
        )?,
        bench_v(
            &dev,
            "dd sqrt",
            mpblas::dd::gpu::sqrt,
            |a| a.sqrt(),
            &x,
            &mut out,
            &hx,
        )?,
    ];
    drop((x, y, out));

    let (x, y) = (dev.upload(&qx)?, dev.upload(&qy)?);
    let mut out = dev.zeros::<Qd>(n)?;
    // Reference bandwidth: a device-to-device copy of a quad-double vector (4 arrays).
    let copy_ms = median_ms(&dev, || out.copy_from(&x))?;
    let copy_gbs = (2 * 4 * 8 * n) as f64 / (copy_ms * 1e6);
    println!(
        "device-to-device copy: {:.1} GB/s (read + written, {} MiB each way, median of {REPS})",
        copy_gbs,
        (4 * 8 * n) >> 20
    );
    let (h, add, mul, div) = ((&qx[..], &qy[..]), |a, b| a + b, |a, b| a * b, |a, b| a / b);
    rows.extend([
        bench_vv(
            &dev,
            "qd add",
            mpblas::qd::gpu::add,
            add,
            &x,
            &y,
            &mut out,
            h,
        )?,
        bench_vv(
            &dev,
            "qd mul",
            mpblas::qd::gpu::mul,
            mul,
            &x,
            &y,
            &mut out,
            h,
        )?,
        bench_vv(
            &dev,
            "qd div",
            mpblas::qd::gpu::div,
            div,
            &x,
            &y,
            &mut out,
            h,
        )?,
        bench_v(
            &dev,
            "qd sqrt",
            mpblas::qd::gpu::sqrt,
            |a| a.sqrt(),
            &x,
            &mut out,
            &qx,
        )?,
    ]);

    println!(
        "\n{:<8} {:>10} {:>10} {:>9} {:>8} {:>9}  bits = CPU (first {CHECKED})",
        "op", "elements", "time ms", "GB/s", "% copy", "Gop/s"
    );
    for r in &rows {
        let gbs = r.bytes / (r.ms * 1e6);
        println!(
            "{:<8} {:>10} {:>10.3} {:>9.1} {:>7.1}% {:>9.2}  {}",
            r.name,
            r.n,
            r.ms,
            gbs,
            100.0 * gbs / copy_gbs,
            r.n as f64 / (r.ms * 1e6),
            if r.bits_ok { "yes" } else { "NO" }
        );
    }
    if rows.iter().any(|r| !r.bits_ok) {
        eprintln!("some GPU results differ from the CPU");
        std::process::exit(1);
    }
    Ok(())
}
