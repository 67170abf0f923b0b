//! `mpblas reproduce rns`: the RNS format of the MPRES papers at their precisions — basis size,
//! dynamic range and the rates of + × ÷ √ on random full-precision operands.
//!
//! MPFR's rates at the same precisions come from the criterion bench `benches/rns.rs` (MPFR is
//! a test-only dependency); `BENCHMARKS.md` puts the two side by side.

use crate::reproduce::{pool, progress};
use mpblas::rns::{Basis, MpFloat};
use mpblas_testdata::SplitMix64;
use rayon::prelude::*;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

/// The precisions of the GEMV paper's Table 5 (bits) and the moduli counts MPRES-BLAS used.
pub const PAPER_SETS: [(u32, usize); 5] = [(106, 8), (212, 16), (424, 32), (848, 64), (1696, 128)];

/// The operations timed, in column order.
const OPS: [&str; 4] = ["add", "mul", "div", "sqrt"];

/// How `reproduce rns` runs.
pub struct Plan {
    /// Elements per operand array (capped: RNS operations are slow).
    pub n: usize,
    /// Timed passes per case at most (median reported), after one warm-up pass.
    pub reps: usize,
    /// Time budget per case in seconds: a case whose warm-up pass shows `reps` passes would
    /// take longer gets fewer (at least [`crate::measure::MIN_REPS`]), as every paper's rates.
    pub max_seconds: f64,
    /// Threads of the parallel run (1: skip it).
    pub threads: usize,
    /// Seed of the operand generator.
    pub seed: u64,
}

/// One precision's row.
struct Row {
    requested: u32,
    paper_moduli: usize,
    basis: Arc<Basis>,
    /// Operations per second, `[op][0 = one thread, 1 = all threads]` (`None`: not run).
    rates: Vec<[Option<f64>; 2]>,
}

/// A random finite operand with a full `p`-bit significand, exponent in ±64, random sign
/// (`positive` forces the sign, for `sqrt`).
fn random_operand(basis: &Arc<Basis>, rng: &mut SplitMix64, positive: bool) -> MpFloat {
    let p = basis.precision() as usize;
    let limbs_len = p.div_ceil(64);
    let mut limbs: Vec<u64> = (0..limbs_len).map(|_| rng.next_u64()).collect();
    // Exactly p significant bits: top bit set, nothing above it.
    let top_bits = p - 64 * (limbs_len - 1);
    let last = limbs_len - 1;
    limbs[last] &= if top_bits == 64 {
        u64::MAX
    } else {
        (1u64 << top_bits) - 1
    };
    limbs[last] |= 1u64 << (top_bits - 1);
    let exp = (rng.next_u64() % 129) as i64 - 64 - p as i64;
    let neg = !positive && rng.next_u64() & 1 == 1;
    MpFloat::from_limbs(basis, neg, &limbs, exp)
}

fn apply(op: &str, x: &MpFloat, y: &MpFloat) -> mpblas::Result<MpFloat> {
    match op {
        "add" => x.add(y),
        "mul" => x.mul(y),
        "div" => x.div(y),
        _ => x.sqrt(),
    }
}

/// Median seconds of one pass of `op` over the arrays, on the current thread or the pool, over
/// at most `plan.reps` timed passes (fewer when they would exceed `plan.max_seconds`; the
/// passes left out are taken off the progress bar's length).
fn time_op(
    op: &str,
    a: &[MpFloat],
    b: &[MpFloat],
    plan: &Plan,
    parallel: bool,
    bar: &indicatif::ProgressBar,
) -> Result<f64, String> {
    let one_pass = || -> mpblas::Result<()> {
        if parallel {
            a.par_iter()
                .zip(b)
                .try_for_each(|(x, y)| apply(op, x, y).map(|r| drop(black_box(r))))
        } else {
            a.iter()
                .zip(b)
                .try_for_each(|(x, y)| apply(op, x, y).map(|r| drop(black_box(r))))
        }
    };
    let t = Instant::now();
    one_pass().map_err(|e| e.to_string())?; // warm-up
    let warm = t.elapsed().as_secs_f64();
    let wanted = plan.reps.max(1);
    let reps = crate::measure::reps_within(wanted, plan.max_seconds, warm);
    if let Some(len) = bar.length() {
        bar.set_length(len.saturating_sub((wanted - reps) as u64));
    }
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        one_pass().map_err(|e| e.to_string())?;
        times.push(t.elapsed().as_secs_f64());
        bar.inc(1);
    }
    times.sort_by(f64::total_cmp);
    Ok(crate::measure::median(&times))
}

fn measure(plan: &Plan) -> Result<Vec<Row>, String> {
    let runs = if plan.threads > 1 { 2 } else { 1 };
    let bar = progress((PAPER_SETS.len() * OPS.len() * runs * plan.reps) as u64);
    let pool = pool(plan.threads)?;
    let mut rows = Vec::new();
    for &(requested, paper_moduli) in &PAPER_SETS {
        let basis = Basis::new(requested).map_err(|e| e.to_string())?;
        let mut rates = Vec::new();
        for (i, op) in OPS.iter().enumerate() {
            bar.set_message(format!("rns {requested} bits {op}"));
            let mut rng = SplitMix64::new(plan.seed ^ ((requested as u64) << 8) ^ i as u64);
            let positive = *op == "sqrt";
            let a: Vec<MpFloat> = (0..plan.n)
                .map(|_| random_operand(&basis, &mut rng, positive))
                .collect();
            let b: Vec<MpFloat> = (0..plan.n)
                .map(|_| random_operand(&basis, &mut rng, false))
                .collect();
            let one = time_op(op, &a, &b, plan, false, &bar)?;
            let all = if plan.threads > 1 {
                Some(pool.install(|| time_op(op, &a, &b, plan, true, &bar))?)
            } else {
                None
            };
            let per_s = |t: f64| plan.n as f64 / t;
            rates.push([Some(per_s(one)), all.map(per_s)]);
        }
        rows.push(Row {
            requested,
            paper_moduli,
            basis,
            rates,
        });
    }
    bar.finish_and_clear();
    Ok(rows)
}

fn rate(r: Option<f64>) -> String {
    match r {
        Some(v) if v >= 1e6 => format!("{:.2}M", v / 1e6),
        Some(v) => format!("{:.1}k", v / 1e3),
        None => "-".into(),
    }
}

fn print_text(rows: &[Row], plan: &Plan) {
    println!("RNS multiple precision (MPRES-BLAS papers): basis and operation rates");
    println!(
        "Ours: mpblas {} on {} ({} threads); {} random full-precision operands per array, \
         median of at most {} passes (fewer where they would take over {} s); rates in \
         operations per second",
        env!("CARGO_PKG_VERSION"),
        crate::info::cpu_model().unwrap_or_else(|| "unknown CPU".into()),
        plan.threads,
        plan.n,
        plan.reps,
        plan.max_seconds
    );
    println!(
        "precision = floor(log2 sqrt(M)) - 1 (as in the papers); every result correctly rounded\n"
    );
    let threads_label = if plan.threads > 1 {
        format!("1T / {}T", plan.threads)
    } else {
        "1T".into()
    };
    print!("request | prec | moduli (paper) | log2 M | ");
    for op in OPS {
        print!("{:>19} | ", format!("{op} {threads_label}"));
    }
    println!();
    for r in rows {
        print!(
            "{:>7} | {:>4} | {:>6} ({:>5}) | {:>6} | ",
            r.requested,
            r.basis.precision(),
            r.basis.len(),
            r.paper_moduli,
            r.basis.log2_m()
        );
        for [one, all] in &r.rates {
            let cell = if plan.threads > 1 {
                format!("{} / {}", rate(*one), rate(*all))
            } else {
                rate(*one)
            };
            print!("{cell:>19} | ");
        }
        println!();
    }
    println!(
        "\nOur moduli are primes below 2^31 (MPRES-BLAS's are smaller), so fewer are needed for \
         the same range.\nMPFR at the same precisions: see BENCHMARKS.md (criterion bench `rns`)."
    );
}

fn json(rows: &[Row], plan: &Plan) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let rates: serde_json::Map<String, serde_json::Value> = OPS
                .iter()
                .zip(&r.rates)
                .map(|(op, [one, all])| {
                    (
                        op.to_string(),
                        serde_json::json!({ "one_thread": one, "all_threads": all }),
                    )
                })
                .collect();
            serde_json::json!({
                "requested_bits": r.requested,
                "precision_bits": r.basis.precision(),
                "moduli": r.basis.len(),
                "paper_moduli": r.paper_moduli,
                "log2_m": r.basis.log2_m(),
                "ops_per_second": rates,
            })
        })
        .collect();
    serde_json::json!({
        "paper": "rns",
        "mpblas": env!("CARGO_PKG_VERSION"),
        "cpu": crate::info::cpu_model().unwrap_or_else(|| "unknown CPU".into()),
        "threads": plan.threads,
        "n": plan.n,
        "reps": plan.reps,
        "max_seconds": plan.max_seconds,
        "seed": plan.seed,
        "rows": rows,
    })
}

/// Runs the measurement and prints the table, or with `as_json` returns the JSON document.
pub fn run(plan: &Plan, as_json: bool) -> Result<Option<serde_json::Value>, String> {
    let rows = measure(plan)?;
    if as_json {
        return Ok(Some(json(&rows, plan)));
    }
    print_text(&rows, plan);
    Ok(None)
}
