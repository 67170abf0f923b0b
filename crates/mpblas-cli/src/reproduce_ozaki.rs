//! `mpblas reproduce ozaki`: the Ozaki-scheme paper's Tables 2 and 3 (mean maximum relative
//! error, and time and error ratios against single precision) on this CPU, with the paper's
//! figures printed beside ours; with `--gpu` on GPU 0 (cuBLAS SGEMM/DGEMM and the CUDA Ozaki
//! GEMMs), and with `--svg` a scatter plot of time against error like the paper's figures.

use mpblas::ozaki::reproduce::{METHODS, Reproduction, reproduce};
use std::fmt::Write as _;
use std::path::PathBuf;

/// How `reproduce ozaki` runs.
pub struct Plan {
    /// Square sizes n.
    pub sizes: Vec<usize>,
    /// Seeds averaged over (the paper used 10).
    pub seeds: usize,
    /// Run on GPU 0 instead of the CPU.
    pub gpu: bool,
    /// Also write an SVG scatter plot here.
    pub svg: Option<PathBuf>,
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
    let phis = [0.1, 1.0, 2.0];
    let dev = if plan.gpu {
        Some(
            mpblas::cuda::Device::open(0)
                .map_err(|e| format!("--gpu: cannot open CUDA GPU 0: {e}"))?,
        )
    } else {
        None
    };
    let bar = crate::reproduce::progress(1);
    bar.set_message(format!("ozaki n = {:?}, {} seeds", plan.sizes, plan.seeds));
    let rep = match &dev {
        Some(d) => mpblas::cuda::ozaki::reproduce_gpu(d, &plan.sizes, &phis, &seeds),
        None => reproduce(&plan.sizes, &phis, &seeds),
    }
    .map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    let where_ = match &dev {
        Some(d) => format!("GPU {}", d.info().name),
        None => crate::info::cpu_model().unwrap_or_else(|| "unknown CPU".into()),
    };
    if let Some(path) = &plan.svg {
        let title = format!("Ozaki scheme: time vs max relative error ({where_})");
        std::fs::write(path, svg_plot(&rep, &title))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
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
            "device": if dev.is_some() { "gpu" } else { "cpu" },
            "cpu": crate::info::cpu_model(),
            "gpu": dev.as_ref().map(|d| d.info().name.clone()),
            "seeds": rep.seeds,
            "rows": rows,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
        );
    } else {
        let kind = if dev.is_some() { "GPU" } else { "CPU" };
        println!(
            "Ozaki scheme (paper 002): {kind} reproduction on {where_} (the paper's numbers are \
             GPU numbers at n = 1024..4096)\n"
        );
        println!("{}", rep.table2());
        println!("{}", rep.table3());
    }
    Ok(())
}

/// Colours of the methods, in [`METHODS`] order.
const COLOURS: [&str; 8] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// An SVG scatter plot of `log10` time (x) against `log10` max relative error (y), one point
/// per `(φ, n)` row and method, one colour and legend entry per method (the paper's Figures
/// 17–25 put all methods of one `(φ, n)` on one plot; here all rows share one).
pub fn svg_plot(rep: &Reproduction, title: &str) -> String {
    let pts: Vec<(usize, f64, f64)> = rep
        .rows
        .iter()
        .flat_map(|r| (0..8).map(move |m| (m, r.time[m], r.err[m])))
        .filter(|&(_, t, e)| t > 0.0 && e > 0.0 && t.is_finite() && e.is_finite())
        .map(|(m, t, e)| (m, t.log10(), e.log10()))
        .collect();
    let range = |f: fn(&(usize, f64, f64)) -> f64| {
        let lo = pts.iter().map(f).fold(f64::INFINITY, f64::min);
        let hi = pts.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        if lo.is_finite() {
            (lo.floor(), hi.ceil().max(lo.floor() + 1.0))
        } else {
            (0.0, 1.0)
        }
    };
    let (x0, x1) = range(|p| p.1);
    let (y0, y1) = range(|p| p.2);
    let (w, h, left, right, top, bottom) = (800.0, 560.0, 80.0, 150.0, 50.0, 60.0);
    let px = |x: f64| left + (x - x0) / (x1 - x0) * (w - left - right);
    let py = |y: f64| h - bottom - (y - y0) / (y1 - y0) * (h - top - bottom);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="25" text-anchor="middle" font-size="15">{}</text>"#,
        (left + w - right) / 2.0,
        escape(title)
    );
    let _ = writeln!(
        s,
        r#"<rect x="{left}" y="{top}" width="{}" height="{}" fill="none" stroke="black"/>"#,
        w - left - right,
        h - top - bottom
    );
    let mut x = x0;
    while x <= x1 + 1e-9 {
        let _ = writeln!(
            s,
            r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#ddd"/><text x="{0}" y="{3}" text-anchor="middle">1e{4}</text>"##,
            px(x),
            top,
            h - bottom,
            h - bottom + 16.0,
            x as i64
        );
        x += 1.0;
    }
    let ystep = ((y1 - y0) / 12.0).ceil().max(1.0);
    let mut y = y0;
    while y <= y1 + 1e-9 {
        let _ = writeln!(
            s,
            r##"<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#ddd"/><text x="{3}" y="{4}" text-anchor="end">1e{5}</text>"##,
            left,
            py(y),
            w - right,
            left - 6.0,
            py(y) + 4.0,
            y as i64
        );
        y += ystep;
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">time [s] (mean over seeds, log scale)</text>"#,
        (left + w - right) / 2.0,
        h - 15.0
    );
    let _ = writeln!(
        s,
        r#"<text x="20" y="{0}" text-anchor="middle" transform="rotate(-90 20 {0})">max relative error (mean over seeds, log scale)</text>"#,
        (top + h - bottom) / 2.0
    );
    for &(m, t, e) in &pts {
        let _ = writeln!(
            s,
            r#"<circle cx="{:.2}" cy="{:.2}" r="4" fill="{}" fill-opacity="0.8"/>"#,
            px(t),
            py(e),
            COLOURS[m]
        );
    }
    for (i, (name, col)) in METHODS.iter().zip(COLOURS).enumerate() {
        let yy = top + 10.0 + 20.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<circle cx="{}" cy="{yy}" r="5" fill="{col}"/><text x="{}" y="{}">{name}</text>"#,
            w - right + 15.0,
            w - right + 25.0,
            yy + 4.0
        );
    }
    s.push_str("</svg>\n");
    s
}

/// `text` with the XML special characters escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
