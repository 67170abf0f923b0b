//! Element-wise dd/qd function throughput on the GPU: `√ exp ln sin` (and dd `+ ×` for the
//! comparison with GQD) over 16M elements, beside GQD's published K40 figures.
//!
//! For each operation: 3 warm-up launches, then 11 launches each timed with CUDA events; the
//! median is reported as time and Gop/s (one operation per element). Each row also says whether
//! the first 65,536 results equal the CPU's bit for bit. Where GQD published a figure (K40,
//! 10M elements: dd add 2.9 ms, dd mul 4.4 ms, dd exp 17.7 ms; GUIDE.md §5) the row prints
//! GQD's Gop/s and our ratio to it (target: at least 50×).
//!
//! Arguments (full-precision lower words): `√` and `ln` on `[2^-50, 2^50)` (random binade and
//! significand), `exp` on `(−50, 50)`, `sin` on `(−50, 50)` (every `|x| ≥ π/4` is reduced, by
//! Cody–Waite there as on the CPU; Payne–Hanek only near multiples of π/2), `+ ×` on `[1, 4)`.
//!
//! Run: `cargo run --release --example gpu_func_bench [-- <elements>]` (default 16777216), or
//! via `scripts/gpu-check.sh`, whose bundle runs it after the tests.

use mpblas::cuda::{Device, DeviceScalar, DeviceVec};
use mpblas::{Dd, Qd, Result};

const WARMUP: usize = 3;
const REPS: usize = 11;
const CHECKED: usize = 1 << 16;

/// GQD on a K40 (GUIDE.md §5): (operation, elements, milliseconds).
const GQD_K40: &[(&str, f64, f64)] = &[
    ("dd add", 10e6, 2.9),
    ("dd mul", 10e6, 4.4),
    ("dd exp", 10e6, 17.7),
];

/// A small seeded generator (SplitMix64).
struct Rng(mpblas_testdata::SplitMix64);
impl Rng {
    /// A generator seeded with `seed` (the shared SplitMix64).
    fn new(seed: u64) -> Self {
        Rng(mpblas_testdata::SplitMix64::new(seed))
    }
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// A random positive f64 with binary exponent `e` and a full random significand.
    fn f64_exp(&mut self, e: i32) -> f64 {
        let frac = self.next() & ((1 << 52) - 1);
        f64::from_bits((((e + 1023) as u64) << 52) | frac)
    }
    /// Uniform in `[lo, hi)`.
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    fn sign(&mut self) -> f64 {
        if self.next() & 1 == 0 { 1.0 } else { -1.0 }
    }
}

fn binade(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// Full-precision values of both formats with leading word `hi`.
fn dd_with(rng: &mut Rng, hi: f64) -> Dd {
    let e = binade(hi);
    Dd::new(hi, rng.sign() * rng.f64_exp(e - 54))
}
fn qd_with(rng: &mut Rng, hi: f64) -> Qd {
    let e = binade(hi);
    let (a, b, c) = (
        rng.f64_exp(e - 54),
        rng.f64_exp(e - 108),
        rng.f64_exp(e - 162),
    );
    Qd::new(hi, rng.sign() * a, rng.sign() * b, rng.sign() * c)
}

/// Leading words for each argument kind.
fn leads(rng: &mut Rng, n: usize, kind: &str) -> Vec<f64> {
    (0..n)
        .map(|_| match kind {
            "pos" => {
                let e = (rng.next() % 100) as i32 - 50;
                rng.f64_exp(e)
            }
            "arith" => rng.uniform(1.0, 4.0),
            _ => rng.uniform(-50.0, 50.0),
        })
        .collect()
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
    n: usize,
    bits_ok: bool,
}

type V<T> = fn(&Device, &DeviceVec<T>, &mut DeviceVec<T>) -> Result<()>;
type Vv<T> = fn(&Device, &DeviceVec<T>, &DeviceVec<T>, &mut DeviceVec<T>) -> Result<()>;

/// Time one unary operation on `host` and check a prefix of its result against the CPU.
fn bench_v<T: DeviceScalar>(
    dev: &Device,
    name: &str,
    op: V<T>,
    cpu: fn(T) -> T,
    host: &[T],
) -> Result<Row> {
    let x = dev.upload(host)?;
    let mut out = dev.zeros::<T>(host.len())?;
    let ms = median_ms(dev, || op(dev, &x, &mut out))?;
    let got = out.download()?;
    let m = CHECKED.min(host.len());
    let want: Vec<T> = host[..m].iter().map(|&a| cpu(a)).collect();
    Ok(Row {
        name: name.to_string(),
        ms,
        n: host.len(),
        bits_ok: same_bits(&got[..m], &want),
    })
}

/// Time one binary operation.
fn bench_vv<T: DeviceScalar>(
    dev: &Device,
    name: &str,
    op: Vv<T>,
    cpu: fn(T, T) -> T,
    hx: &[T],
    hy: &[T],
) -> Result<Row> {
    let (x, y) = (dev.upload(hx)?, dev.upload(hy)?);
    let mut out = dev.zeros::<T>(hx.len())?;
    let ms = median_ms(dev, || op(dev, &x, &y, &mut out))?;
    let got = out.download()?;
    let m = CHECKED.min(hx.len());
    let want: Vec<T> = (0..m).map(|i| cpu(hx[i], hy[i])).collect();
    Ok(Row {
        name: name.to_string(),
        ms,
        n: hx.len(),
        bits_ok: same_bits(&got[..m], &want),
    })
}

fn main() -> Result<()> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1 << 24);
    let dev = Device::open(0)?;
    println!("{}", dev.info());
    let t = std::time::Instant::now();
    dev.load_modules(mpblas::kernel_modules())?;
    println!(
        "modules ready in {:.1} s (compiled or from the cache)",
        t.elapsed().as_secs_f64()
    );

    let mut rng = Rng::new(4242);
    let pos = leads(&mut rng, n, "pos");
    let sym = leads(&mut rng, n, "sym");
    let ar1 = leads(&mut rng, n, "arith");
    let ar2 = leads(&mut rng, n, "arith");
    let mut rows = Vec::new();

    {
        let d = |v: &[f64], rng: &mut Rng| v.iter().map(|&h| dd_with(rng, h)).collect::<Vec<Dd>>();
        let (dx, dy) = (d(&ar1, &mut rng), d(&ar2, &mut rng));
        rows.push(bench_vv(
            &dev,
            "dd add",
            mpblas::dd::gpu::add,
            |a, b| a + b,
            &dx,
            &dy,
        )?);
        rows.push(bench_vv(
            &dev,
            "dd mul",
            mpblas::dd::gpu::mul,
            |a, b| a * b,
            &dx,
            &dy,
        )?);
        drop((dx, dy));
        let dp = d(&pos, &mut rng);
        rows.push(bench_v(
            &dev,
            "dd sqrt",
            mpblas::dd::gpu::sqrt,
            |a| a.sqrt(),
            &dp,
        )?);
        rows.push(bench_v(
            &dev,
            "dd ln",
            mpblas::dd::gpu::ln,
            |a| a.ln(),
            &dp,
        )?);
        drop(dp);
        let ds = d(&sym, &mut rng);
        rows.push(bench_v(
            &dev,
            "dd exp",
            mpblas::dd::gpu::exp,
            |a| a.exp(),
            &ds,
        )?);
        rows.push(bench_v(
            &dev,
            "dd sin",
            mpblas::dd::gpu::sin,
            |a| a.sin(),
            &ds,
        )?);
    }
    {
        let q = |v: &[f64], rng: &mut Rng| v.iter().map(|&h| qd_with(rng, h)).collect::<Vec<Qd>>();
        let qp = q(&pos, &mut rng);
        rows.push(bench_v(
            &dev,
            "qd sqrt",
            mpblas::qd::gpu::sqrt,
            |a| a.sqrt(),
            &qp,
        )?);
        rows.push(bench_v(
            &dev,
            "qd ln",
            mpblas::qd::gpu::ln,
            |a| a.ln(),
            &qp,
        )?);
        drop(qp);
        let qs = q(&sym, &mut rng);
        rows.push(bench_v(
            &dev,
            "qd exp",
            mpblas::qd::gpu::exp,
            |a| a.exp(),
            &qs,
        )?);
        rows.push(bench_v(
            &dev,
            "qd sin",
            mpblas::qd::gpu::sin,
            |a| a.sin(),
            &qs,
        )?);
    }

    println!(
        "\n{:<8} {:>10} {:>10} {:>9} {:>12} {:>9}  bits = CPU (first {CHECKED})",
        "op", "elements", "time ms", "Gop/s", "GQD K40", "ratio"
    );
    for r in &rows {
        let gops = r.n as f64 / (r.ms * 1e6);
        let gqd = GQD_K40
            .iter()
            .find(|(name, _, _)| *name == r.name)
            .map(|&(_, elems, ms)| elems / (ms * 1e6));
        let (gqd_s, ratio_s) = match gqd {
            Some(g) => (format!("{g:.3} Gop/s"), format!("{:.0}x", gops / g)),
            None => ("-".to_string(), "-".to_string()),
        };
        println!(
            "{:<8} {:>10} {:>10.3} {:>9.3} {:>12} {:>9}  {}",
            r.name,
            r.n,
            r.ms,
            gops,
            gqd_s,
            ratio_s,
            if r.bits_ok { "yes" } else { "NO" }
        );
    }
    println!("(GQD: K40, 10M elements, GUIDE.md §5; target ratio >= 50x where comparable)");
    if rows.iter().any(|r| !r.bits_ok) {
        eprintln!("some GPU results differ from the CPU");
        std::process::exit(1);
    }
    Ok(())
}
