//! `mpblas reproduce ozaki`: the Ozaki-scheme paper's Tables 2 and 3 (mean maximum relative
//! error, and time and error ratios against single precision) on this CPU, with the paper's
//! figures printed beside ours. The GPU (H100) tables come with the CUDA Ozaki GEMM.

use mpblas::ozaki::reproduce::{METHODS, reproduce};

/// How `reproduce ozaki` runs.
pub struct Plan {
    /// Square sizes n.
    pub sizes: Vec<usize>,
    /// Seeds averaged over (the paper used 10).
    pub seeds: usize,
}

/// Runs the reproduction and prints the tables (or JSON).
pub fn run(plan: &Plan, as_json: bool) -> Result<(), String> {
    if plan.sizes.is_empty() || plan.sizes.contains(&0) {
        return Err("--sizes needs at least one positive size".into());
    }
    if plan.seeds == 0 {
        return Err("--seeds must be at least 1".into());
    }
    let seeds: Vec<u64> = (1..=plan.seeds as u64).collect();
    let bar = crate::reproduce::progress(1);
    bar.set_message(format!("ozaki n = {:?}, {} seeds", plan.sizes, plan.seeds));
    let rep = reproduce(&plan.sizes, &[0.1, 1.0, 2.0], &seeds).map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    if as_json {
        let rows: Vec<serde_json::Value> = rep
            .rows
            .iter()
            .map(|r| {
                let per_method = |v: &[f64; 8]| -> serde_json::Map<String, serde_json::Value> {
                    METHODS
                        .iter()
                        .zip(v)
                        .map(|(m, x)| (m.to_string(), serde_json::json!(x)))
                        .collect()
                };
                serde_json::json!({
                    "phi": r.phi, "n": r.n,
                    "mean_max_rel_error": per_method(&r.err),
                    "mean_seconds": per_method(&r.time),
                })
            })
            .collect();
        let doc = serde_json::json!({
            "paper": "ozaki",
            "device": "cpu",
            "cpu": crate::info::cpu_model(),
            "seeds": rep.seeds,
            "rows": rows,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
        );
    } else {
        println!(
            "Ozaki scheme (paper 002): CPU reproduction on {} (the paper's numbers are GPU \
             numbers at n = 1024..4096)\n",
            crate::info::cpu_model().unwrap_or_else(|| "unknown CPU".into())
        );
        println!("{}", rep.table2());
        println!("{}", rep.table3());
    }
    Ok(())
}
