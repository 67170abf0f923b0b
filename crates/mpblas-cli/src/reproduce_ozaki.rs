//! `mpblas reproduce ozaki`: the Ozaki-scheme paper's Tables 2 and 3 (mean maximum relative
//! error, and time and error ratios against single precision) on this CPU, with the paper's
//! figures printed beside ours; with `--gpu` on GPU 0 (cuBLAS SGEMM/DGEMM and the CUDA Ozaki
//! GEMMs), and with `--svg` a scatter plot of time against error like the paper's figures.

use mpblas::ozaki::reproduce::{METHODS, Reproduction, reproduce};
use std::fmt::Write as _;
use std::path::PathBuf;

/// The GPU run's reference `c*` (the exact product is too slow at n = 4096).
const GPU_REFERENCE: &str = "c* = Ozaki II, 20 moduli, accurate, double-double";

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
            "reference": if dev.is_some() { GPU_REFERENCE } else { "exact" },
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
        let t2 = rep.table2();
        match &dev {
            Some(_) => println!("{}", t2.replacen("c* exact", GPU_REFERENCE, 1)),
            None => println!("{t2}"),
        }
        println!("{}", rep.table3());
    }
    Ok(())
}

/// Colours of the methods, in [`METHODS`] order.
const COLOURS: [&str; 8] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// An SVG plot like the paper's Figures 17–25: one panel per `(φ, n)` row (rows of panels by
/// φ, columns by n), each a scatter of `log10` time (x) against `log10` max relative error (y)
/// with one point per method, one colour and legend entry per method, and the same axes in
/// every panel so that panels compare.
pub fn svg_plot(rep: &Reproduction, title: &str) -> String {
    let ok = |t: f64, e: f64| t > 0.0 && e > 0.0 && t.is_finite() && e.is_finite();
    let pts = || {
        rep.rows.iter().flat_map(move |r| {
            (0..8)
                .filter(move |&m| ok(r.time[m], r.err[m]))
                .map(move |m| (r.time[m].log10(), r.err[m].log10()))
        })
    };
    let range = |v: Vec<f64>| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if lo.is_finite() {
            (lo.floor(), hi.ceil().max(lo.floor() + 1.0))
        } else {
            (0.0, 1.0)
        }
    };
    let (x0, x1) = range(pts().map(|p| p.0).collect());
    let (y0, y1) = range(pts().map(|p| p.1).collect());
    let mut phis: Vec<f64> = Vec::new();
    let mut ns: Vec<usize> = Vec::new();
    for r in &rep.rows {
        if !phis.contains(&r.phi) {
            phis.push(r.phi);
        }
        if !ns.contains(&r.n) {
            ns.push(r.n);
        }
    }
    let (pw, ph) = (300.0, 230.0); // one panel's plot area
    let (left, gap_x, top, gap_y, legend) = (70.0, 60.0, 60.0, 70.0, 130.0);
    let cols = ns.len().max(1) as f64;
    let rows = phis.len().max(1) as f64;
    let w = left + cols * (pw + gap_x) + legend;
    let h = top + rows * (ph + gap_y);
    let xstep = ((x1 - x0) / 6.0).ceil().max(1.0);
    let ystep = ((y1 - y0) / 8.0).ceil().max(1.0);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="24" text-anchor="middle" font-size="15">{}</text>"#,
        (w - legend) / 2.0,
        escape(title)
    );
    for r in &rep.rows {
        let ci = ns.iter().position(|&n| n == r.n).unwrap_or(0) as f64;
        let ri = phis.iter().position(|&p| p == r.phi).unwrap_or(0) as f64;
        let ox = left + ci * (pw + gap_x);
        let oy = top + ri * (ph + gap_y);
        let px = |x: f64| ox + (x - x0) / (x1 - x0) * pw;
        let py = |y: f64| oy + ph - (y - y0) / (y1 - y0) * ph;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" font-size="13">φ = {}, n = {}</text>"#,
            ox + pw / 2.0,
            oy - 8.0,
            r.phi,
            r.n
        );
        let _ = writeln!(
            s,
            r#"<rect x="{ox}" y="{oy}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#
        );
        let mut x = x0;
        while x <= x1 + 1e-9 {
            let _ = writeln!(
                s,
                r##"<line x1="{0}" y1="{1}" x2="{0}" y2="{2}" stroke="#ddd"/><text x="{0}" y="{3}" text-anchor="middle">1e{4}</text>"##,
                px(x),
                oy,
                oy + ph,
                oy + ph + 14.0,
                x as i64
            );
            x += xstep;
        }
        let mut y = y0;
        while y <= y1 + 1e-9 {
            let _ = writeln!(
                s,
                r##"<line x1="{0}" y1="{1}" x2="{2}" y2="{1}" stroke="#ddd"/><text x="{3}" y="{4}" text-anchor="end">1e{5}</text>"##,
                ox,
                py(y),
                ox + pw,
                ox - 5.0,
                py(y) + 4.0,
                y as i64
            );
            y += ystep;
        }
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">time [s]</text>"#,
            ox + pw / 2.0,
            oy + ph + 30.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{0}" y="{1}" text-anchor="middle" transform="rotate(-90 {0} {1})">max relative error</text>"#,
            ox - 45.0,
            oy + ph / 2.0
        );
        for m in 0..8 {
            if ok(r.time[m], r.err[m]) {
                let _ = writeln!(
                    s,
                    r#"<circle cx="{:.2}" cy="{:.2}" r="4.5" fill="{}" fill-opacity="0.85"><title>{} φ={} n={}: {:.3e} s, {:.3e}</title></circle>"#,
                    px(r.time[m].log10()),
                    py(r.err[m].log10()),
                    COLOURS[m],
                    METHODS[m],
                    r.phi,
                    r.n,
                    r.time[m],
                    r.err[m]
                );
            }
        }
    }
    let lx = w - legend + 10.0;
    for (i, (name, col)) in METHODS.iter().zip(COLOURS).enumerate() {
        let yy = top + 10.0 + 20.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<circle cx="{lx}" cy="{yy}" r="5" fill="{col}"/><text x="{}" y="{}">{name}</text>"#,
            lx + 10.0,
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

#[cfg(test)]
mod tests {
    use super::*;
    use mpblas::ozaki::reproduce::ReproRow;

    #[test]
    fn svg_survives_empty_zero_and_non_finite_values() {
        let empty = Reproduction {
            rows: vec![],
            seeds: 0,
        };
        let s = svg_plot(&empty, "a < b & c");
        assert!(s.starts_with("<svg") && s.ends_with("</svg>\n"));
        assert!(s.contains("a &lt; b &amp; c"));
        let row = ReproRow {
            phi: 1.0,
            n: 8,
            err: [
                1e-3,
                0.0,
                f64::INFINITY,
                f64::NAN,
                1e-12,
                1e-14,
                1e-15,
                1e-16,
            ],
            time: [1e-5; 8],
        };
        let s = svg_plot(
            &Reproduction {
                rows: vec![row],
                seeds: 1,
            },
            "t",
        );
        // 5 plotted points (zero, Inf and NaN errors left out) and 8 legend marks.
        assert_eq!(s.matches("<circle").count(), 5 + 8);
        assert!(!s.contains("NaN") && !s.contains("inf"));
    }
}
