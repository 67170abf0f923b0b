//! RNS throughput on the GPU: `+ ×` (and `÷ √`) at 106, 424 and 1696 bits, in Gop/s, on
//! full-precision random inputs (every significand has all `p` bits random: no 53-bit inputs,
//! so no MPRES-BLAS-style cliff can hide), beside the CPU's single-thread rate.
//!
//! For each precision: 2^16 distinct random pairs (exponents within ±8 binades) are tiled to
//! `L` elements (default 2^24 = 16,777,216, fewer if the device memory does not hold three
//! arrays; `÷ √`, one thread per element, on at most 2^20), uploaded; each operation runs 3 warm-up calls, then 15 calls each timed with
//! CUDA events; the median is reported (Gop/s = L / median). The first 65,536 GPU results
//! (4,096 for `÷ √`) are compared with the CPU's bit for bit. The CPU rate is one thread of `MpFloat` on a sample.
//!
//! Run: `cargo run --release --example gpu_rns_bench [-- <elements>]`, or via
//! `scripts/gpu-check.sh`, whose bundle runs it after the tests.

use mpblas::cuda::Device;
use mpblas::rns::gpu::{self, DeviceMpArray};
use mpblas::rns::{Basis, MpArray, MpFloat};
use mpblas::{Error, Result};
use std::sync::Arc;
use std::time::Instant;

const WARMUP: usize = 3;
const REPS: usize = 15;
const DISTINCT: usize = 1 << 16;
const PRECISIONS: [u32; 3] = [106, 424, 1696];
/// Most elements timed for division and square root.
const DIV_SQRT_MAX: usize = 1 << 20;
/// GPU results of division and square root compared with the CPU's.
const CHECKED_DIV_SQRT: usize = 4096;

/// SplitMix64.
struct Rng(mpblas_testdata::SplitMix64);
impl Rng {
    /// A generator seeded with `seed` (the shared SplitMix64).
    fn new(seed: u64) -> Self {
        Rng(mpblas_testdata::SplitMix64::new(seed))
    }
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
}

/// A random number with all `p` significand bits random (top bit set), random sign, and its
/// value within 2^±8 of 1.
fn random(b: &Arc<Basis>, rng: &mut Rng) -> MpFloat {
    let p = b.precision() as u64;
    let nl = p.div_ceil(64) as usize;
    let mut l: Vec<u64> = (0..nl).map(|_| rng.next()).collect();
    let top = p - 64 * (nl as u64 - 1);
    if top < 64 {
        l[nl - 1] &= (1u64 << top) - 1;
    }
    l[nl - 1] |= 1u64 << (top - 1);
    let e = -(p as i64) + (rng.next() % 17) as i64 - 8;
    MpFloat::from_limbs(b, rng.next() & 1 == 1, &l, e)
}

/// `src` repeated to `len` elements (the layout's `eval` holds the lower bounds, then the upper).
fn tile(src: &MpArray, len: usize) -> MpArray {
    let (k, n) = (src.len(), src.basis().len());
    let mut out = MpArray::zeros(src.basis(), len).expect("the benchmark's arrays fit");
    for start in (0..len).step_by(k) {
        let c = k.min(len - start);
        out.digits[start * n..(start + c) * n].copy_from_slice(&src.digits[..c * n]);
        out.sign[start..start + c].copy_from_slice(&src.sign[..c]);
        out.exp[start..start + c].copy_from_slice(&src.exp[..c]);
        out.class[start..start + c].copy_from_slice(&src.class[..c]);
        out.eval[start..start + c].copy_from_slice(&src.eval[..c]);
        out.eval[len + start..len + start + c].copy_from_slice(&src.eval[k..k + c]);
    }
    out
}

/// Median of the timed calls of `launch`, in milliseconds.
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

type Gpu2 = fn(&Device, &DeviceMpArray, &DeviceMpArray, &mut DeviceMpArray) -> Result<()>;
type Cpu2 = fn(&MpFloat, &MpFloat) -> Result<MpFloat>;

/// Single-thread CPU rate in Mop/s of `op` over the sample pairs (at least 0.3 s of work).
fn cpu_rate(xs: &[MpFloat], ys: &[MpFloat], op: Cpu2) -> f64 {
    let t = Instant::now();
    let mut done = 0usize;
    while t.elapsed().as_secs_f64() < 0.3 {
        for (a, b) in xs.iter().zip(ys).take(256) {
            std::hint::black_box(op(a, b).ok());
            done += 1;
        }
    }
    done as f64 / t.elapsed().as_secs_f64() / 1e6
}

fn main() -> Result<()> {
    let want_len: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1 << 24);
    let dev = Device::open(0);
    match &dev {
        Ok(d) => println!("{}", d.info()),
        Err(e) => println!("no GPU ({e}): CPU rates only"),
    }
    println!(
        "{:<6} {:>5} {:>10} {:<4} {:>10} {:>10} {:>12} {:>6}",
        "bits", "mod", "elements", "op", "ms", "GPU Gop/s", "CPU Mop/s 1T", "bits="
    );
    let mut all_ok = true;
    for p in PRECISIONS {
        let b = Basis::new(p)?;
        let mut rng = Rng::new(p as u64);
        let xs: Vec<MpFloat> = (0..DISTINCT).map(|_| random(&b, &mut rng)).collect();
        let ys: Vec<MpFloat> = (0..DISTINCT).map(|_| random(&b, &mut rng)).collect();
        let ops: [(&str, Gpu2, Cpu2); 4] = [
            ("add", gpu::add, MpFloat::add),
            ("mul", gpu::mul, MpFloat::mul),
            ("div", gpu::div, MpFloat::div),
            (
                "sqrt",
                |d, x, _, z| gpu::sqrt(d, x, z),
                |a, _| a.abs().sqrt(),
            ),
        ];
        let Ok(dev) = &dev else {
            for (name, _, cpu) in ops {
                let r = cpu_rate(&xs, &ys, cpu);
                println!(
                    "{p:<6} {:>5} {:>10} {name:<4} {:>10} {:>10} {r:>12.3}",
                    b.len(),
                    "-",
                    "-",
                    "-"
                );
            }
            continue;
        };
        // Three arrays of L elements: digits, sign, exp, eval, class and the plan buffer.
        let per_elem = 3 * (4 * b.len() + 1 + 8 + 32 + 1 + 16);
        let (free, _) = dev.memory()?;
        let fit = (free as f64 * 0.8) as usize / per_elem;
        let len = want_len.min(fit / DISTINCT * DISTINCT).max(DISTINCT);
        let xa = MpArray::from_mpfloats(&b, &xs)?;
        let pos: Vec<MpFloat> = xs.iter().map(MpFloat::abs).collect();
        let xpos = MpArray::from_mpfloats(&b, &pos)?;
        let ya = MpArray::from_mpfloats(&b, &ys)?;
        for (name, gpu, cpu) in ops {
            // + × over L elements; ÷ √ (one thread per element, far slower) over 2^20 at most
            let n_op = if name == "add" || name == "mul" {
                len
            } else {
                len.min(DIV_SQRT_MAX)
            };
            let (src_x, src_xa) = if name == "sqrt" {
                (&pos, &xpos)
            } else {
                (&xs, &xa)
            };
            let x = DeviceMpArray::upload(dev, &tile(src_xa, n_op))?;
            let y = DeviceMpArray::upload(dev, &tile(&ya, n_op))?;
            let mut z = DeviceMpArray::zeros(dev, &b, n_op)?;
            let ms = median_ms(dev, || gpu(dev, &x, &y, &mut z))?;
            let got = z.download()?;
            drop((x, y, z));
            // the CPU reference of ÷ √ at 1696 bits costs about 0.3 ms per element
            let k = if n_op == len {
                DISTINCT
            } else {
                CHECKED_DIV_SQRT
            }
            .min(n_op);
            let want: Vec<MpFloat> = src_x[..k]
                .iter()
                .zip(&ys[..k])
                .map(|(a, c)| cpu(a, c))
                .collect::<Result<_>>()?;
            let ok = (0..k).all(|i| {
                got.get(i)
                    .map(|g| g.identical(&want[i]) && g.eval() == want[i].eval())
                    .unwrap_or(false)
            });
            all_ok &= ok;
            let r = cpu_rate(src_x, &ys, cpu);
            println!(
                "{p:<6} {:>5} {n_op:>10} {name:<4} {ms:>10.3} {:>10.3} {r:>12.3} {:>6}",
                b.len(),
                n_op as f64 / ms / 1e6,
                if ok { "yes" } else { "NO" }
            );
        }
    }
    if !all_ok {
        return Err(Error::CudaLaunch {
            kernel: "gpu_rns_bench",
            cause: "GPU results differ from the CPU".to_string(),
        });
    }
    Ok(())
}
