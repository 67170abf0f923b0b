//! BLAS level 1 on the CPU: the reproducible (blocked) `dot` and `sum` of f64, Dd and Qd, the
//! accurate f64 routines, and RNS `dot` against a loop of MPFR fused multiply-adds at the same
//! precision, beside the machine's measured memory bandwidth (a parallel read of f64s, the
//! ceiling of every memory-bound reduction here). Each row: 1 warm-up, then the median of 5
//! runs, on all threads (rayon's default pool) unless the row says 1 thread.
//!
//! Run: `cargo run --release --example blas_bench [-- <log2 n>]` (default 24: vectors larger
//! than the caches). Bytes counted: every word of every element read once. The RNS rows time
//! our one-thread routine and MPFR's one-thread loop alternately, run by run, and report the
//! median of the per-run ratios (the speed of a shared VM drifts between runs);
//! `MPBLAS_BENCH_ONLY=dd` runs only the dd rows against the read reference;
//! `MPBLAS_BENCH_ONLY=rns` runs only the RNS dot rows and the GEMV table (inputs in
//! `(−1, 1)`: the RNS dot's numbers differ a little from the full run's, whose inputs span
//! `2^±4`).

use mpblas::blas::{self, Summation};
use mpblas::rns::{Basis, MpFloat};
use mpblas::view::VecRef;
use mpblas::{Dd, Qd};
use rayon::prelude::*;
use std::time::Instant;

fn median_s(mut f: impl FnMut()) -> f64 {
    f();
    let mut t: Vec<f64> = (0..5)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[2]
}

fn word(rng: &mut mpblas_testdata::SplitMix64, e: i32) -> f64 {
    let frac = rng.next_u64() & ((1 << 52) - 1);
    let sign = rng.next_u64() & (1 << 63);
    f64::from_bits(sign | (((e + 1023) as u64) << 52) | frac)
}

struct Row {
    what: String,
    n: usize,
    secs: f64,
    bytes: f64,
}

fn print(rows: &[Row], bandwidth: f64) {
    println!("| routine | n | ms | GB/s | % of read bandwidth | M elem/s |");
    println!("|---|---|---|---|---|---|");
    for r in rows {
        let gbs = r.bytes / r.secs / 1e9;
        println!(
            "| {} | {} | {:.2} | {:.2} | {:.0}% | {:.1} |",
            r.what,
            r.n,
            r.secs * 1e3,
            gbs,
            100.0 * gbs / bandwidth,
            r.n as f64 / r.secs / 1e6
        );
    }
}

fn main() {
    if std::env::var("MPBLAS_BENCH_ONLY").as_deref() == Ok("rns") {
        // only the RNS rows against MPFR (they need no large vectors)
        let mut rng = mpblas_testdata::SplitMix64::new(7);
        let xf: Vec<f64> = (0..1 << 16).map(|_| word(&mut rng, -1)).collect();
        let yf: Vec<f64> = (0..1 << 16).map(|_| word(&mut rng, -1)).collect();
        rns_dot_rows(&xf, &yf);
        gemv_rows();
        return;
    }
    let log2: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(24);
    let n = 1usize << log2;
    let mut rng = mpblas_testdata::SplitMix64::new(7);
    let random = |rng: &mut mpblas_testdata::SplitMix64| {
        let e = (rng.next_u64() % 9) as i32 - 4;
        word(rng, e)
    };
    let xf: Vec<f64> = (0..n).map(|_| random(&mut rng)).collect();
    let yf: Vec<f64> = (0..n).map(|_| random(&mut rng)).collect();
    let dd = |v: &[f64], rng: &mut mpblas_testdata::SplitMix64| -> Vec<Dd> {
        v.iter()
            .map(|&h| Dd::new(h, h * word(rng, -54).abs() * 0.5))
            .collect()
    };
    let xd = dd(&xf, &mut rng);
    let yd = dd(&yf, &mut rng);
    let threads = rayon::current_num_threads();
    println!(
        "# BLAS level 1 on the CPU: {threads} threads, n = 2^{log2}, median of 5 ({})",
        std::env::consts::ARCH
    );

    // The ceiling: a parallel read of 2n f64s (as many bytes as an f64 dot).
    let both: Vec<f64> = xf.iter().chain(&yf).copied().collect();
    let read = || {
        // Eight independent accumulators per task, so that the adds keep up with memory.
        let s: f64 = both
            .par_chunks(1 << 16)
            .map(|c| {
                let mut acc = [0.0f64; 8];
                for k in c.chunks_exact(8) {
                    for (a, &v) in acc.iter_mut().zip(k) {
                        *a += v;
                    }
                }
                acc.iter().sum::<f64>()
            })
            .sum();
        std::hint::black_box(s);
    };
    let dd_only = std::env::var("MPBLAS_BENCH_ONLY").as_deref() == Ok("dd");
    let (vd, wd) = (VecRef::contiguous(&xd), VecRef::contiguous(&yd));
    if !dd_only {
        table(&xf, &yf, &xd, &yd, &read);
    }

    // The dd rows against the read reference, alternated run by run: the ratio of their
    // bandwidths per pair of runs, whose median does not move with this VM's drifting speed.
    println!("\nDd against the read reference (all threads), alternated run by run, {REPS} runs:");
    println!(
        "| routine | bytes / reference's bytes | median GB/s | % of the reference (median of per-run ratios) |"
    );
    println!("|---|---|---|---|");
    for (what, scale) in [("dd sum", 1.0), ("dd dot", 2.0)] {
        let f = || {
            if scale == 1.0 {
                drop(blas::sum(vd));
            } else {
                drop(blas::dot(vd, wd));
            }
        };
        let (ours, _, ratio) = alternated(f, &read);
        println!(
            "| {what} | {scale} | {:.2} | {:.0}% |",
            scale * 16.0 * n as f64 / ours / 1e9,
            100.0 * ratio * scale
        );
    }
    if dd_only {
        return;
    }

    rns_dot_rows(&xf, &yf);
    gemv_rows();
}

/// The table of every level-1 row on all threads (and the dd dot on one), against the read
/// reference measured just before.
fn table(xf: &[f64], yf: &[f64], xd: &[Dd], yd: &[Dd], read: &impl Fn()) {
    let n = xf.len();
    let read_s = median_s(read);
    let bandwidth = 16.0 * n as f64 / read_s / 1e9;
    println!("measured read bandwidth: {bandwidth:.2} GB/s\n");
    let qd = |v: &[Dd]| -> Vec<Qd> { v.iter().map(|&d| Qd::from(d)).collect() };
    let (xq, yq) = (qd(xd), qd(yd));
    let mut rows = Vec::new();
    let mut row = |what: &str, bytes: f64, secs: f64| {
        rows.push(Row {
            what: what.to_string(),
            n,
            secs,
            bytes,
        })
    };
    let (vf, wf) = (VecRef::contiguous(xf), VecRef::contiguous(yf));
    let (vd, wd) = (VecRef::contiguous(xd), VecRef::contiguous(yd));
    let (vq, wq) = (VecRef::contiguous(&xq), VecRef::contiguous(&yq));
    let e = n as f64 * 8.0;
    row("f64 dot", 2.0 * e, median_s(|| drop(blas::dot(vf, wf))));
    row("f64 sum", e, median_s(|| drop(blas::sum(vf))));
    row("f64 dot2", 2.0 * e, median_s(|| drop(blas::dot2(vf, wf))));
    row("f64 sum2", e, median_s(|| drop(blas::sum2(vf))));
    row(
        "f64 dot, correctly rounded",
        2.0 * e,
        median_s(|| drop(blas::dot_correctly_rounded(vf, wf))),
    );
    row(
        "f64 sum, correctly rounded",
        e,
        median_s(|| drop(blas::sum_correctly_rounded(vf))),
    );
    row("dd dot", 4.0 * e, median_s(|| drop(blas::dot(vd, wd))));
    row("dd sum", 2.0 * e, median_s(|| drop(blas::sum(vd))));
    row("dd nrm2", 2.0 * e, median_s(|| drop(blas::nrm2(vd))));
    row("qd dot", 8.0 * e, median_s(|| drop(blas::dot(vq, wq))));
    row("qd sum", 4.0 * e, median_s(|| drop(blas::sum(vq))));
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    row(
        "dd dot, 1 thread",
        4.0 * e,
        median_s(|| one.install(|| drop(blas::dot(vd, wd)))),
    );
    row(
        "dd dot, recursive (1 thread)",
        4.0 * e,
        median_s(|| drop(blas::dot_ordered(vd, wd, Summation::Recursive))),
    );
    print(&rows, bandwidth);
}

/// GEMV (`y ← A·x`, 1000 × 1000, the MPRES-BLAS paper's size) in every format on all threads,
/// and RNS beside a loop of MPFR fused multiply-adds at the same precision (one thread, as
/// the MPFR loop): the CPU rows issue 13 asks for.
fn gemv_rows() {
    use mpblas::blas::level2::gemv;
    use mpblas::view::{MatRef, VecMut};
    let (m, n) = (1000usize, 1000usize);
    let mut rng = mpblas_testdata::SplitMix64::new(13);
    let af: Vec<f64> = (0..m * n).map(|_| word(&mut rng, -1)).collect();
    let xf: Vec<f64> = (0..n).map(|_| word(&mut rng, -1)).collect();
    println!("\nGEMV y = A·x, {m} × {n}, inputs uniform in (−1, 1) with full 53-bit significands:");
    println!("| format | threads | ms | M entries/s |");
    println!("|---|---|---|---|");
    fn time<T: mpblas::Scalar + Clone>(
        what: &str,
        a: &[T],
        x: &[T],
        m: usize,
        n: usize,
        one: T,
        zero: T,
    ) {
        let mut y = vec![zero.clone(); m];
        let a = MatRef::col_major(a, m, n, m).expect("view");
        let s = median_s(|| {
            gemv(
                &one,
                a,
                VecRef::contiguous(x),
                &zero,
                VecMut::contiguous(&mut y),
            )
            .expect("gemv")
        });
        println!(
            "| {what} | all | {:.2} | {:.1} |",
            s * 1e3,
            (m * n) as f64 / s / 1e6
        );
    }
    time("f64", &af, &xf, m, n, 1.0, 0.0);
    let ad: Vec<Dd> = af.iter().map(|&v| Dd::from(v)).collect();
    let xd: Vec<Dd> = xf.iter().map(|&v| Dd::from(v)).collect();
    time("dd", &ad, &xd, m, n, Dd::ONE, Dd::ZERO);
    let aq: Vec<Qd> = af.iter().map(|&v| Qd::from(v)).collect();
    let xq: Vec<Qd> = xf.iter().map(|&v| Qd::from(v)).collect();
    time("qd", &aq, &xq, m, n, Qd::ONE, Qd::ZERO);
    println!(
        "\nRNS GEMV against MPFR, {m} × {n} (timed on 100 rows, scaled): the fused form on one \
         thread and MPFR's loop of `mul_add` on one thread, alternated run by run (this VM's \
         speed drifts), {REPS} runs each; the ratio is the median of the per-run ratios."
    );
    println!(
        "| bits | paper's order, all threads (ms) | fused, all threads | fused, 1 thread | MPFR, 1 thread | MPFR / fused (1 thread) |"
    );
    println!("|---|---|---|---|---|---|");
    for p in [106u32, 424, 848, 1696] {
        let b = Basis::new(p).expect("basis");
        let rows = 100;
        let scale = (m / rows) as f64 * 1e3;
        let ar: Vec<MpFloat> = af[..rows * n]
            .iter()
            .map(|&v| MpFloat::from_f64(&b, v))
            .collect();
        let xr: Vec<MpFloat> = xf.iter().map(|&v| MpFloat::from_f64(&b, v)).collect();
        let one = MpFloat::from_f64(&b, 1.0);
        let zero = MpFloat::from_f64(&b, 0.0);
        let av = MatRef::row_major(&ar, rows, n, n).expect("view");
        let mut y = vec![zero.clone(); rows];
        let t = Instant::now();
        gemv(
            &one,
            av,
            VecRef::contiguous(&xr),
            &zero,
            VecMut::contiguous(&mut y),
        )
        .expect("gemv");
        let paper = t.elapsed().as_secs_f64() * scale;
        let mut fused = || {
            mpblas::blas::rns::gemv_fused(
                &one,
                av,
                VecRef::contiguous(&xr),
                &zero,
                VecMut::contiguous(&mut y),
            )
            .expect("gemv_fused")
        };
        fused(); // warm-up (the wide bases and extension tables are built once)
        let all = median_s(&mut fused) * scale;
        let am: Vec<rug::Float> = af[..rows * n]
            .iter()
            .map(|&v| rug::Float::with_val(p, v))
            .collect();
        let xm: Vec<rug::Float> = xf.iter().map(|&v| rug::Float::with_val(p, v)).collect();
        let mpfr = || {
            for i in 0..rows {
                let mut acc = rug::Float::new(p);
                for (aij, xj) in am[i * n..(i + 1) * n].iter().zip(&xm) {
                    acc += aij * xj;
                }
                drop(acc);
            }
        };
        let pool = single();
        let (f1, mp, ratio) = alternated(|| pool.install(&mut fused), mpfr);
        println!(
            "| {p} | {paper:.0} | {all:.0} | {:.0} | {:.0} | {ratio:.2} |",
            f1 * scale,
            mp * scale
        );
    }
}

/// Runs of each timing alternated.
const REPS: usize = 9;

/// A one-thread pool.
fn single() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool")
}

/// `REPS` runs of `ours` and `theirs` alternated (after one warm-up each): the median seconds
/// of each and the median of the per-run ratios `theirs / ours`.
fn alternated(mut ours: impl FnMut(), mut theirs: impl FnMut()) -> (f64, f64, f64) {
    let time = |f: &mut dyn FnMut()| {
        let s = Instant::now();
        f();
        s.elapsed().as_secs_f64()
    };
    time(&mut ours);
    time(&mut theirs);
    let (mut a, mut b, mut r) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..REPS {
        let (x, y) = (time(&mut ours), time(&mut theirs));
        a.push(x);
        b.push(y);
        r.push(y / x);
    }
    let med = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (med(a), med(b), med(r))
}

/// RNS dot products of 2^16 terms against MPFR's fused multiply-add loop at the same
/// precision (one thread each, alternated), and the blocked (paper's) RNS dot.
fn rns_dot_rows(xf: &[f64], yf: &[f64]) {
    let m = 1usize << 16;
    println!(
        "\nRNS dot, n = {m}, inputs with full 53-bit significands; one thread each, alternated \
         run by run, {REPS} runs; the ratio is the median of the per-run ratios:"
    );
    println!(
        "| bits | blocked dot, all threads (ms) | dot_fused, all threads | dot_fused, 1 thread | MPFR `mul_add` loop, 1 thread | MPFR / fused (1 thread) |"
    );
    println!("|---|---|---|---|---|---|");
    for p in [106u32, 424, 1696] {
        let basis = Basis::new(p).expect("basis");
        let to_rns = |v: &[f64]| -> Vec<MpFloat> {
            v[..m]
                .iter()
                .map(|&v| MpFloat::from_f64(&basis, v))
                .collect()
        };
        let (xr, yr) = (to_rns(xf), to_rns(yf));
        let (vx, vy) = (VecRef::contiguous(&xr), VecRef::contiguous(&yr));
        let blocked = median_s(|| drop(blas::dot(vx, vy)));
        let fused = || drop(blas::rns::dot_fused(vx, vy));
        let all = median_s(fused);
        let to_mpfr = |v: &[f64]| -> Vec<rug::Float> {
            v[..m].iter().map(|&v| rug::Float::with_val(p, v)).collect()
        };
        let (xm, ym) = (to_mpfr(xf), to_mpfr(yf));
        let mpfr = || {
            let mut acc = rug::Float::new(p);
            for (a, b) in xm.iter().zip(&ym) {
                // rug evaluates `acc += a·b` as one fused multiply-add (mpfr_fma).
                acc += a * b;
            }
            drop(acc);
        };
        let pool = single();
        let (f1, mp, ratio) = alternated(|| pool.install(fused), mpfr);
        println!(
            "| {p} | {:.2} | {:.2} | {:.2} | {:.2} | {ratio:.2} |",
            blocked * 1e3,
            all * 1e3,
            f1 * 1e3,
            mp * 1e3
        );
    }
}
