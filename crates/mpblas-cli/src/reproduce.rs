//! `mpblas reproduce qd`: the QD paper's operation-rate tables with our numbers beside them.

use crate::elem::{Elem, Op};
use crate::gpu::{self, Gpu, GpuElem, GpuTiming};
use crate::info::Machine;
use crate::measure::{self, Arrays, ErrorCheck, Setup, Timing};
use crate::paper::{self, GPUS, T3_6_1, T5_1_3, T5_2_5_1};
use indicatif::{ProgressBar, ProgressStyle};
use mpblas::{Dd, Qd};
use serde_json::{Value, json};
use std::path::Path;

/// Text printed for an operation the library does not provide yet.
pub const NOT_YET: &str = "n/a (not yet implemented)";

/// Elements of the error-check sample.
pub const ERROR_SAMPLES: usize = 4096;

/// Everything measured for one (format, op).
#[derive(Clone, Debug)]
pub struct Case {
    /// Format name ("f64", "dd", "qd").
    pub format: &'static str,
    /// Column of the format in the paper's tables (0 double, 1 dd, 2 qd).
    pub column: usize,
    /// The operation.
    pub op: Op,
    /// One-thread timing, `None` if the op is not implemented.
    pub one: Option<Timing>,
    /// All-threads timing, `None` if not implemented or if only one thread was asked for.
    pub all: Option<Timing>,
    /// The sanity error check, when it could be run.
    pub error: Option<ErrorCheck>,
    /// GPU timing (`--gpu`), `None` when not asked for or the library has no GPU kernel.
    pub gpu: Option<GpuTiming>,
    /// Why there is no error check (empty when there is one).
    pub error_note: String,
}

/// What to run.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Input generation and repetitions.
    pub setup: Setup,
    /// Threads of the parallel runs (1: parallel runs are skipped).
    pub threads: usize,
    /// Also time the library's CUDA kernels on GPU 0.
    pub gpu: bool,
}

/// Build the rayon pool for the parallel runs.
pub fn pool(threads: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| format!("cannot start {threads} threads: {e}"))
}

/// A progress bar on stderr counting passes (hidden automatically when stderr is not a
/// terminal).
pub fn progress(total: u64) -> ProgressBar {
    progress_of(total, "passes")
}

/// A progress bar on stderr counting `unit` ("passes", "rows").
pub fn progress_of(total: u64, unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    let template = format!("{{msg:28}} [{{bar:32}}] {{pos}}/{{len}} {unit}, {{elapsed}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Timed passes `T` will need for `ops` (for the progress bar's length).
fn passes<T: Elem>(ops: &[Op], plan: &Plan) -> u64 {
    let runs = if plan.threads > 1 { 2 } else { 1 };
    let available = ops.iter().filter(|&&op| T::kernel(op).is_some()).count();
    (available * runs * plan.setup.reps.max(1)) as u64
}

/// Measure `ops` in format `T`, on one thread and on `pool`.
pub fn measure_format<T: Elem>(
    ops: &[Op],
    plan: &Plan,
    pool: &rayon::ThreadPool,
    bar: &ProgressBar,
    column: usize,
) -> Vec<Case> {
    ops.iter()
        .map(|&op| {
            let (one, all) = match T::kernel(op) {
                None => (None, None),
                Some(kernel) => {
                    bar.set_message(format!("{} {} (generating)", T::NAME, op.name()));
                    let mut arrays = Arrays::<T>::new(op, &plan.setup);
                    bar.set_message(format!("{} {}, 1 thread", T::NAME, op.name()));
                    let one = measure::time(kernel, &mut arrays, None, &plan.setup, bar);
                    let all = (plan.threads > 1).then(|| {
                        bar.set_message(format!(
                            "{} {}, {} threads",
                            T::NAME,
                            op.name(),
                            plan.threads
                        ));
                        measure::time(kernel, &mut arrays, Some(pool), &plan.setup, bar)
                    });
                    (Some(one), all)
                }
            };
            Case {
                format: T::NAME,
                column,
                op,
                one,
                all,
                error: None,
                error_note: String::new(),
                gpu: None,
            }
        })
        .collect()
}

/// Time the GPU kernels of format `T` and attach them to its cases.
fn measure_gpu<T: GpuElem>(
    gpu: &Gpu,
    cases: &mut [Case],
    plan: &Plan,
    bar: &ProgressBar,
) -> Result<(), String> {
    for case in cases.iter_mut().filter(|c| c.format == <T as Elem>::NAME) {
        bar.set_message(format!(
            "{} {} on the GPU",
            <T as Elem>::NAME,
            case.op.name()
        ));
        case.gpu = gpu.time::<T>(case.op, &plan.setup, bar)?;
    }
    Ok(())
}

fn rel_dd(x: Dd, r: Dd) -> f64 {
    ((x - r).hi / r.hi).abs()
}

/// Attach the sanity error check to each case: f64 against dd, dd against qd; qd has no
/// wider format here (the library's MPFR tests cover it).
pub fn attach_errors(cases: &mut [Case], seed: u64) {
    for case in cases.iter_mut() {
        let check = match case.format {
            "f64" => {
                measure::max_rel_error::<f64, Dd>(case.op, ERROR_SAMPLES, seed, Dd::from, rel_dd)
            }
            "dd" => dd_against_qd(case.op, seed),
            _ => None,
        };
        case.error_note = match (&check, case.format) {
            (Some(_), _) => String::new(),
            (None, "qd") => {
                "qd: no wider format here; its accuracy is tested against MPFR in the library's tests"
                    .to_string()
            }
            (None, f) if case.one.is_none() => format!("{f} {}: {NOT_YET}", case.op.name()),
            (None, "f64") => format!("reference dd {}: {NOT_YET}", case.op.name()),
            (None, _) => format!("reference qd {}: {NOT_YET}", case.op.name()),
        };
        case.error = check;
    }
}

fn rel_qd(x: Qd, r: Qd) -> f64 {
    ((x - r).c[0] / r.c[0]).abs()
}

/// dd against qd on the same inputs (a dd widens to qd exactly).
fn dd_against_qd(op: Op, seed: u64) -> Option<ErrorCheck> {
    measure::max_rel_error::<Dd, Qd>(op, ERROR_SAMPLES, seed, Qd::from, rel_qd)
}

/// Run everything and print the tables, or with `as_json` return the JSON document instead;
/// also write the document to `json_file` when given.
pub fn run(
    plan: &Plan,
    as_json: bool,
    json_file: Option<&Path>,
) -> Result<Option<serde_json::Value>, String> {
    let machine = Machine::detect();
    let pool = pool(plan.threads)?;
    // Open the GPU first: if it was asked for and is not there, fail before measuring.
    let gpu = if plan.gpu { Some(Gpu::open()?) } else { None };
    let ops: Vec<Op> = Op::ARITH.iter().chain(Op::FUNCS.iter()).copied().collect();
    let mut total = passes::<f64>(&ops, plan) + passes::<Dd>(&ops, plan) + passes::<Qd>(&ops, plan);
    if gpu.is_some() {
        total += gpu::passes::<Dd>(&ops, &plan.setup) + gpu::passes::<Qd>(&ops, &plan.setup);
    }
    let bar = progress(total);
    let mut cases = measure_format::<f64>(&ops, plan, &pool, &bar, 0);
    cases.extend(measure_format::<Dd>(&ops, plan, &pool, &bar, 1));
    cases.extend(measure_format::<Qd>(&ops, plan, &pool, &bar, 2));
    if let Some(gpu) = &gpu {
        measure_gpu::<Dd>(gpu, &mut cases, plan, &bar)?;
        measure_gpu::<Qd>(gpu, &mut cases, plan, &bar)?;
    }
    let gpu_name = gpu.as_ref().map(|g| g.name.clone());
    bar.set_message("error check");
    attach_errors(&mut cases, plan.setup.seed);
    bar.finish_and_clear();
    let doc = to_json(&cases, plan, &machine, gpu_name.as_deref());
    if let Some(path) = json_file {
        std::fs::write(path, format!("{doc:#}\n"))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    if as_json {
        return Ok(Some(doc));
    }
    print_tables(&cases, plan, &machine, gpu_name.as_deref());
    Ok(None)
}

// ---- text output -----------------------------------------------------------------------------

/// M op/s with three or four significant digits.
pub fn fmt_m(x: f64) -> String {
    if !x.is_finite() {
        "—".to_string()
    } else if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else if x >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

fn cell(x: Option<f64>) -> String {
    x.map(fmt_m).unwrap_or_else(|| "n/a".to_string())
}

fn paper_cell(per_ms: Option<f64>) -> String {
    per_ms
        .map(|v| fmt_m(paper::mops(v)))
        .unwrap_or_else(|| "—".to_string())
}

fn find(cases: &[Case], column: usize, op: Op) -> Option<&Case> {
    cases.iter().find(|c| c.column == column && c.op == op)
}

fn ours_one(cases: &[Case], column: usize, op: Op) -> Option<f64> {
    find(cases, column, op)
        .and_then(|c| c.one.as_ref())
        .map(|t| t.ops_per_s / 1e6)
}

fn ours_all(cases: &[Case], column: usize, op: Op) -> Option<f64> {
    find(cases, column, op)
        .and_then(|c| c.all.as_ref())
        .map(|t| t.ops_per_s / 1e6)
}

const FORMATS: [&str; 3] = ["double", "double-double", "quad-double"];

fn header(groups: &[&str], width: usize) -> String {
    let mut s = format!("{:<5}", "");
    for g in groups {
        s.push_str(&format!("| {g:^width$}"));
    }
    s
}

fn print_tables(cases: &[Case], plan: &Plan, machine: &Machine, gpu: Option<&str>) {
    let nt = plan.threads;
    println!("QD paper (Sivkova, Dovgilovich, Voskoboynikova, Sofronov, MIPT): operation rates");
    println!(
        "All rates in millions of operations per second (M op/s); the paper's per-ms figures / 1000."
    );
    println!(
        "Ours: mpblas {} on {} ({} logical CPUs), 1 thread and {} threads (rayon)",
        env!("CARGO_PKG_VERSION"),
        machine.cpu,
        machine.logical_cpus,
        nt
    );
    println!(
        "      n = {} elements per array; median of {} passes after 1 warm-up (at least {} when a case\n      would exceed {} s); seed {}; load average at start {}",
        plan.setup.n,
        plan.setup.reps,
        measure::MIN_REPS,
        plan.setup.max_seconds,
        plan.setup.seed,
        machine.load_text()
    );
    println!(
        "Paper: CPU model not named; GPUs Tesla C1060, GeForce GTX480, Tesla C2050 (C2050 shown)."
    );
    println!();

    // Table 3.6-1 and its ratio table 3.6-3.
    println!("Table 3.6-1. + − × ÷, one core (paper) / 1 thread (ours)");
    println!("{}", header(&FORMATS, 17));
    let sub = format!("{:<5}", "op") + &"| paper     ours   ".repeat(3);
    println!("{sub}");
    for (i, op) in Op::ARITH.iter().enumerate() {
        let mut line = format!("{:<5}", op.symbol());
        for f in 0..3 {
            line.push_str(&format!(
                "| {:>7}  {:>7} ",
                paper_cell(T3_6_1.get(i).map(|r| r.1[f])),
                cell(ours_one(cases, f, *op))
            ));
        }
        println!("{}", line.trim_end());
    }
    println!();
    println!(
        "Table 3.6-3. Slow-down against double (double rate / format rate), one core / 1 thread"
    );
    println!("{}", header(&FORMATS[1..], 17));
    println!("{:<5}{}", "op", "| paper     ours   ".repeat(2));
    for (i, op) in Op::ARITH.iter().enumerate() {
        let mut line = format!("{:<5}", op.symbol());
        for f in 1..3 {
            let p = T3_6_1.get(i).map(|r| r.1[0] / r.1[f]);
            let o = match (ours_one(cases, 0, *op), ours_one(cases, f, *op)) {
                (Some(d), Some(x)) => Some(d / x),
                _ => None,
            };
            line.push_str(&format!("| {:>7}  {:>7} ", cell(p), cell(o)));
        }
        println!("{}", line.trim_end());
    }
    println!();

    // Vector tables: arithmetic (5.1-3) and functions (5.2.5-1).
    for (table, ops) in [(&T5_1_3, &Op::ARITH), (&T5_2_5_1, &Op::FUNCS)] {
        println!(
            "Table {}. {}; paper GPU column: {}; ours: 1 thread and {nt} threads",
            table.id, table.caption, GPUS[2]
        );
        println!("{}", header(&FORMATS, 34));
        println!(
            "{:<5}{}",
            "op",
            "| CPU(4c)  C2050   ours 1T  ours NT ".repeat(3)
        );
        for op in ops.iter() {
            let row = paper::vector_row(table, op.name());
            let mut line = format!("{:<5}", op.symbol());
            for f in 0..3 {
                line.push_str(&format!(
                    "| {:>7} {:>7}  {:>7}  {:>7} ",
                    paper_cell(row.map(|r| r[0][f])),
                    paper_cell(row.map(|r| r[3][f])),
                    cell(ours_one(cases, f, *op)),
                    cell(ours_all(cases, f, *op)),
                ));
            }
            println!("{}", line.trim_end());
        }
        println!();
    }

    if let Some(name) = gpu {
        print_gpu_table(cases, name);
    }

    // Sanity errors.
    println!(
        "Sanity error: max relative error over {ERROR_SAMPLES} random elements, in units of the format's u"
    );
    println!(
        "(f64 against dd, dd against qd, on the same inputs widened exactly; not a proof: the"
    );
    println!(" library's MPFR tests check the proven bounds)");
    println!(
        "{:<5}| {:>10} | {:>10} | {:>10}",
        "op", "f64 (u)", "dd (u)", "qd (u)"
    );
    for op in Op::ARITH.iter().chain(Op::FUNCS.iter()) {
        let mut line = format!("{:<5}", op.symbol());
        for f in 0..3 {
            let e = find(cases, f, *op).and_then(|c| c.error.as_ref());
            let text = e
                .map(|e| format!("{:.3}", e.max_rel_u))
                .unwrap_or_else(|| "n/a".to_string());
            line.push_str(&format!("| {text:>10} "));
        }
        println!("{}", line.trim_end());
    }
    println!();

    let missing: Vec<String> = cases
        .iter()
        .filter(|c| c.one.is_none())
        .map(|c| format!("{} {}", c.format, c.op.name()))
        .collect();
    if !missing.is_empty() {
        println!("n/a (not yet implemented): {}", missing.join(", "));
    }
    // One line per distinct reason an error is missing (qd's is always there).
    let mut notes: Vec<&str> = Vec::new();
    for case in cases.iter().filter(|c| c.error.is_none()) {
        if !notes.contains(&case.error_note.as_str()) {
            notes.push(&case.error_note);
        }
    }
    for note in notes {
        println!("error n/a: {note}");
    }
}

/// The GPU columns of Tables 5.1-3 and 5.2.5-1: the paper's three GPUs and ours.
fn print_gpu_table(cases: &[Case], name: &str) {
    println!("GPU columns of Tables 5.1-3 and 5.2.5-1; ours: {name}");
    println!(
        "(CUDA-event time of one kernel launch over the same arrays, median of the timed launches"
    );
    println!(
        " after 3 warm-up launches; \"=\" marks results equal to the CPU's in every word of the first"
    );
    println!(" 65536 elements, \"≠\" results that differ)");
    println!("{}", header(&FORMATS, 34));
    println!(
        "{:<5}{}",
        "op",
        "| C1060   GTX480   C2050    ours    ".repeat(3)
    );
    for op in Op::ARITH.iter().chain(Op::FUNCS.iter()) {
        let row = paper::vector_row(&T5_1_3, op.name())
            .or_else(|| paper::vector_row(&T5_2_5_1, op.name()));
        let mut line = format!("{:<5}", op.symbol());
        for f in 0..3 {
            let ours = find(cases, f, *op)
                .and_then(|c| c.gpu.as_ref())
                .map(|g| {
                    let mark = if g.bits_equal { "=" } else { "≠" };
                    format!("{}{mark}", fmt_m(g.ops_per_s / 1e6))
                })
                .unwrap_or_else(|| "n/a".to_string());
            line.push_str(&format!(
                "| {:>7} {:>7} {:>7} {:>8} ",
                paper_cell(row.map(|r| r[1][f])),
                paper_cell(row.map(|r| r[2][f])),
                paper_cell(row.map(|r| r[3][f])),
                ours
            ));
        }
        println!("{}", line.trim_end());
    }
    println!("n/a on the GPU: f64 (no f64 kernels in the library)");
    println!();
}

// ---- JSON output -----------------------------------------------------------------------------

fn timing_json(t: &Option<Timing>) -> Value {
    match t {
        Some(t) => json!({
            "mops": t.ops_per_s / 1e6,
            "median_s": t.median_s,
            "min_s": t.min_s,
            "reps": t.reps,
        }),
        None => Value::Null,
    }
}

fn paper_json(op: Op, column: usize) -> Value {
    let vector =
        paper::vector_row(&T5_1_3, op.name()).or_else(|| paper::vector_row(&T5_2_5_1, op.name()));
    let mut gpu = serde_json::Map::new();
    if let Some(row) = vector {
        for (g, name) in GPUS.iter().enumerate() {
            gpu.insert(name.to_string(), json!(paper::mops(row[g + 1][column])));
        }
    }
    json!({
        "one_core_mops": paper::one_core(op.name(), column).map(paper::mops),
        "cpu_4_cores_mops": vector.map(|r| paper::mops(r[0][column])),
        "gpu_mops": gpu,
    })
}

fn gpu_json(g: &Option<GpuTiming>) -> Value {
    match g {
        Some(g) => json!({
            "mops": g.ops_per_s / 1e6,
            "median_s": g.median_s,
            "reps": g.reps,
            "bits_equal_to_cpu_first_65536": g.bits_equal,
        }),
        None => Value::Null,
    }
}

/// The whole run as one JSON document.
pub fn to_json(cases: &[Case], plan: &Plan, machine: &Machine, gpu: Option<&str>) -> Value {
    let results: Vec<Value> = cases
        .iter()
        .map(|c| {
            json!({
                "format": c.format,
                "op": c.op.name(),
                "inputs": c.op.input_text(),
                "status": if c.one.is_some() { "ok" } else { NOT_YET },
                "one_thread": timing_json(&c.one),
                "all_threads": timing_json(&c.all),
                "gpu": gpu_json(&c.gpu),
                "error": c.error.as_ref().map(|e| json!({
                    "max_rel": e.max_rel,
                    "max_rel_in_u": e.max_rel_u,
                    "samples": e.samples,
                    "reference": e.reference,
                })),
                "error_note": if c.error_note.is_empty() { Value::Null } else { json!(c.error_note) },
                "paper": paper_json(c.op, c.column),
            })
        })
        .collect();
    json!({
        "paper": "QD on CUDA (Sivkova, Dovgilovich, Voskoboynikova, Sofronov), Tables 3.6-1, 5.1-3, 5.2.5-1",
        "paper_hardware": {
            "cpu": "not named (one core for Table 3.6-1, OpenMP on 4 cores for Tables 5.x)",
            "gpus": GPUS,
        },
        "units": "million operations per second",
        "version": env!("CARGO_PKG_VERSION"),
        "machine": machine.json(),
        "gpu_device": gpu,
        "setup": {
            "n": plan.setup.n,
            "max_reps": plan.setup.reps,
            "min_reps": measure::MIN_REPS,
            "max_seconds_per_case": plan.setup.max_seconds,
            "warmup_passes": 1,
            "statistic": "median",
            "threads": plan.threads,
            "seed": plan.setup.seed,
            "error_samples": ERROR_SAMPLES,
        },
        "results": results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_run_produces_json_for_every_case() {
        let plan = Plan {
            setup: Setup {
                n: 5000,
                reps: 1,
                max_seconds: 1.0,
                seed: 1,
            },
            threads: 2,
            gpu: false,
        };
        let pool = pool(2);
        assert!(pool.is_ok());
        if let Ok(pool) = pool {
            let bar = ProgressBar::hidden();
            let ops: Vec<Op> = Op::ARITH.iter().chain(Op::FUNCS.iter()).copied().collect();
            let mut cases = measure_format::<f64>(&ops, &plan, &pool, &bar, 0);
            cases.extend(measure_format::<Dd>(&ops, &plan, &pool, &bar, 1));
            cases.extend(measure_format::<Qd>(&ops, &plan, &pool, &bar, 2));
            attach_errors(&mut cases, 1);
            let doc = to_json(&cases, &plan, &Machine::detect(), None);
            let n = doc["results"].as_array().map(|a| a.len());
            assert_eq!(n, Some(24));
            // f64 is always available and checked against dd for + − × ÷ √.
            let f64_add = &doc["results"][0];
            assert_eq!(f64_add["status"], "ok");
            assert!(
                f64_add["error"]["max_rel_in_u"]
                    .as_f64()
                    .is_some_and(|e| e <= 1.0)
            );
        }
    }
}
