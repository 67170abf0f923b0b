//! BLAS level 1 on the CPU: the reproducible (blocked) `dot` and `sum` of f64, Dd and Qd, the
//! accurate f64 routines, and RNS `dot` against a loop of MPFR fused multiply-adds at the same
//! precision, beside the machine's measured memory bandwidth (a parallel read of f64s, the
//! ceiling of every memory-bound reduction here). Each row: 1 warm-up, then the median of 5
//! runs, on all threads (rayon's default pool) unless the row says 1 thread.
//!
//! Run: `cargo run --release --example blas_bench [-- <log2 n>]` (default 24: vectors larger
//! than the caches). Bytes counted: every word of every element read once.

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
    let qd = |v: &[Dd]| -> Vec<Qd> { v.iter().map(|&d| Qd::from(d)).collect() };
    let (xq, yq) = (qd(&xd), qd(&yd));
    let threads = rayon::current_num_threads();
    println!(
        "# BLAS level 1 on the CPU: {threads} threads, n = 2^{log2}, median of 5 ({})",
        std::env::consts::ARCH
    );

    // The ceiling: a parallel read of 2n f64s (as many bytes as an f64 dot).
    let both: Vec<f64> = xf.iter().chain(&yf).copied().collect();
    let mut sink = 0.0;
    let read_s = median_s(|| {
        // Eight independent accumulators per task, so that the adds keep up with memory.
        sink += both
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
            .sum::<f64>();
    });
    let bandwidth = 16.0 * n as f64 / read_s / 1e9;
    println!("measured read bandwidth: {bandwidth:.2} GB/s (sink {sink:.1e})\n");

    let mut rows = Vec::new();
    let mut row = |what: &str, bytes: f64, secs: f64| {
        rows.push(Row {
            what: what.to_string(),
            n,
            secs,
            bytes,
        })
    };
    let (vf, wf) = (VecRef::contiguous(&xf), VecRef::contiguous(&yf));
    let (vd, wd) = (VecRef::contiguous(&xd), VecRef::contiguous(&yd));
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

    // RNS at 424 bits against MPFR's fused multiply-add at 424 bits, 2^16 terms.
    let m = 1usize << 16;
    let basis = Basis::new(424).expect("424-bit basis");
    let xr: Vec<MpFloat> = xf[..m]
        .iter()
        .map(|&v| MpFloat::from_f64(&basis, v))
        .collect();
    let yr: Vec<MpFloat> = yf[..m]
        .iter()
        .map(|&v| MpFloat::from_f64(&basis, v))
        .collect();
    let rns_s = median_s(|| drop(blas::dot(VecRef::contiguous(&xr), VecRef::contiguous(&yr))));
    let rns_1 = median_s(|| {
        one.install(|| drop(blas::dot(VecRef::contiguous(&xr), VecRef::contiguous(&yr))))
    });
    let fused = || {
        drop(blas::rns::dot_fused(
            VecRef::contiguous(&xr),
            VecRef::contiguous(&yr),
        ))
    };
    let fused_s = median_s(fused);
    let fused_1 = median_s(|| one.install(fused));
    let xm: Vec<rug::Float> = xf[..m]
        .iter()
        .map(|&v| rug::Float::with_val(424, v))
        .collect();
    let ym: Vec<rug::Float> = yf[..m]
        .iter()
        .map(|&v| rug::Float::with_val(424, v))
        .collect();
    let mpfr_s = median_s(|| {
        let mut acc = rug::Float::new(424);
        for (a, b) in xm.iter().zip(&ym) {
            // rug evaluates `acc += a·b` as one fused multiply-add (mpfr_fma).
            acc += a * b;
        }
        drop(acc);
    });
    println!("\nRNS dot at 424 bits, n = {m}:");
    println!("| routine | ms | M terms/s |");
    println!("|---|---|---|");
    for (what, s) in [
        ("mpblas RNS dot (blocked, all threads)", rns_s),
        ("mpblas RNS dot (blocked, 1 thread)", rns_1),
        ("mpblas RNS dot_fused (one rounding, all threads)", fused_s),
        ("mpblas RNS dot_fused (one rounding, 1 thread)", fused_1),
        ("MPFR mul_add loop (1 thread)", mpfr_s),
    ] {
        println!("| {what} | {:.2} | {:.2} |", s * 1e3, m as f64 / s / 1e6);
    }
    gemv_rows();
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
    for p in [106u32, 424, 848, 1696] {
        let b = Basis::new(p).expect("basis");
        // RNS: 100 rows (one run each), scaled to the full matrix in the table.
        let rows = 100;
        let ar: Vec<MpFloat> = af[..rows * n]
            .iter()
            .map(|&v| MpFloat::from_f64(&b, v))
            .collect();
        let xr: Vec<MpFloat> = xf.iter().map(|&v| MpFloat::from_f64(&b, v)).collect();
        let mut y = vec![MpFloat::from_f64(&b, 0.0); rows];
        let one = MpFloat::from_f64(&b, 1.0);
        let zero = MpFloat::from_f64(&b, 0.0);
        let av = MatRef::row_major(&ar, rows, n, n).expect("view");
        let t = Instant::now();
        gemv(
            &one,
            av,
            VecRef::contiguous(&xr),
            &zero,
            VecMut::contiguous(&mut y),
        )
        .expect("gemv");
        let s = t.elapsed().as_secs_f64() * (m / rows) as f64;
        println!(
            "| rns {p} bits (from {rows} rows) | all | {:.0} | {:.2} |",
            s * 1e3,
            (m * n) as f64 / s / 1e6
        );
        // the fused form (exact sums, one rounding per row), on every thread and on one
        let fused = || {
            let mut y = vec![MpFloat::from_f64(&b, 0.0); rows];
            let t = Instant::now();
            mpblas::blas::rns::gemv_fused(
                &one,
                av,
                VecRef::contiguous(&xr),
                &zero,
                VecMut::contiguous(&mut y),
            )
            .expect("gemv_fused");
            t.elapsed().as_secs_f64() * (m / rows) as f64
        };
        fused(); // warm-up (the wide bases and extension tables are built once)
        for (label, s) in [
            ("all", fused()),
            (
                "1",
                rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .build()
                    .expect("pool")
                    .install(fused),
            ),
        ] {
            println!(
                "| rns {p} bits fused (from {rows} rows) | {label} | {:.0} | {:.2} |",
                s * 1e3,
                (m * n) as f64 / s / 1e6
            );
        }
        let am: Vec<rug::Float> = af[..rows * n]
            .iter()
            .map(|&v| rug::Float::with_val(p, v))
            .collect();
        let xm: Vec<rug::Float> = xf.iter().map(|&v| rug::Float::with_val(p, v)).collect();
        let t = Instant::now();
        for i in 0..rows {
            let mut acc = rug::Float::new(p);
            for (aij, xj) in am[i * n..(i + 1) * n].iter().zip(&xm) {
                acc += aij * xj;
            }
            drop(acc);
        }
        let s = t.elapsed().as_secs_f64() * (m / rows) as f64;
        println!(
            "| MPFR mul_add loop, {p} bits (from {rows} rows) | 1 | {:.0} | {:.2} |",
            s * 1e3,
            (m * n) as f64 / s / 1e6
        );
    }
}
