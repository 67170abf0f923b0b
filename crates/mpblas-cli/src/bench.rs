//! `mpblas bench`: one (format, op) measured the way `reproduce qd` measures it, one line out.

use crate::elem::{Elem, Op};
use crate::info::Machine;
use crate::measure::{self, Arrays, ErrorCheck, Setup, Timing};
use crate::reproduce::{self, NOT_YET};
use clap::ValueEnum;
use mpblas::{Dd, Qd};
use serde_json::json;

/// The formats `bench` can measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// IEEE binary64
    F64,
    /// double-double (106 bits)
    Dd,
    /// quad-double (212 bits)
    Qd,
}

fn time_one<T: Elem>(op: Op, setup: &Setup, threads: usize) -> Result<Option<Timing>, String> {
    let Some(kernel) = T::kernel(op) else {
        return Ok(None);
    };
    let mut arrays = Arrays::<T>::new(op, setup);
    let bar = reproduce::progress(setup.reps as u64);
    bar.set_message(format!("{} {}, {threads} thread(s)", T::NAME, op.name()));
    let timing = if threads > 1 {
        let pool = reproduce::pool(threads)?;
        measure::time(kernel, &mut arrays, Some(&pool), setup, &bar)
    } else {
        measure::time(kernel, &mut arrays, None, setup, &bar)
    };
    bar.finish_and_clear();
    Ok(Some(timing))
}

/// Run and print one line (or one JSON object).
pub fn run(
    format: Format,
    op: Op,
    setup: &Setup,
    threads: usize,
    as_json: bool,
) -> Result<(), String> {
    let (name, timing) = match format {
        Format::F64 => ("f64", time_one::<f64>(op, setup, threads)?),
        Format::Dd => ("dd", time_one::<Dd>(op, setup, threads)?),
        Format::Qd => ("qd", time_one::<Qd>(op, setup, threads)?),
    };
    let Some(t) = timing else {
        return Err(format!("{name} {}: {NOT_YET}", op.name()));
    };
    let mut case = [reproduce::Case {
        format: name,
        column: 0,
        op,
        one: Some(t.clone()),
        all: None,
        error: None,
        error_note: String::new(),
        gpu: None,
    }];
    reproduce::attach_errors(&mut case, setup.seed);
    let [case] = case;
    let machine = Machine::detect();
    if as_json {
        let doc = json!({
            "format": name,
            "op": op.name(),
            "n": setup.n,
            "threads": threads,
            "reps": t.reps,
            "mops": t.ops_per_s / 1e6,
            "median_s": t.median_s,
            "min_s": t.min_s,
            "error": case.error.as_ref().map(|e: &ErrorCheck| json!({
                "max_rel": e.max_rel, "max_rel_in_u": e.max_rel_u,
                "samples": e.samples, "reference": e.reference,
            })),
            "error_note": case.error_note,
            "machine": machine.json(),
        });
        println!("{doc}");
    } else {
        let err = match &case.error {
            Some(e) => format!(
                "max rel err {:.3} u ({:.2e}) vs {} on {} samples",
                e.max_rel_u, e.max_rel, e.reference, e.samples
            ),
            None => format!("error n/a: {}", case.error_note),
        };
        println!(
            "{name} {} n={} threads={threads}: {} M op/s (median of {}, {:.3} ms/pass); {err}; {}",
            op.name(),
            setup.n,
            reproduce::fmt_m(t.ops_per_s / 1e6),
            t.reps,
            t.median_s * 1e3,
            machine.cpu
        );
    }
    Ok(())
}
