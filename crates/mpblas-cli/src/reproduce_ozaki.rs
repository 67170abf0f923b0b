//! `mpblas reproduce ozaki`: the Ozaki-scheme paper's Tables 2 and 3 (mean maximum relative
//! error, and time and error ratios against single precision) on this CPU, with the paper's
//! figures printed beside ours, then our scheme II table (fast mode for each moduli count N of
//! `--moduli`, beside DGEMM); with `--gpu` on GPU 0 (cuBLAS SGEMM/DGEMM and the CUDA Ozaki
//! GEMMs, scheme II in accurate mode too), and with `--svg` a scatter plot of time against
//! error like the paper's figures.

use crate::papers::ozaki::{
    B_SEED_OFFSET, PAPER_METHODS, Reproduction, ozaki2_moduli_of, reproduce,
};
use crate::svg::{self, Panel, decade_range, escape};
use mpblas::ozaki::OZAKI2_MODULI;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The GPU run's reference `c*` (the exact product is too slow at n = 4096).
const GPU_REFERENCE: &str = "c* = Ozaki II, 20 moduli, fast, double-double";

/// The most seeds `--seeds` takes (each is a full set of products).
pub const MAX_SEEDS: usize = 10_000;

/// [`Err`] unless `1 ≤ seeds ≤ MAX_SEEDS` (also `reproduce sum`'s samples).
pub fn check_seeds(seeds: usize) -> Result<(), String> {
    if seeds == 0 || seeds > MAX_SEEDS {
        return Err(format!("--seeds must be between 1 and {MAX_SEEDS}"));
    }
    Ok(())
}

/// How `reproduce ozaki` runs.
pub struct Plan {
    /// Square sizes n.
    pub sizes: Vec<usize>,
    /// Seeds averaged over (the paper used 10).
    pub seeds: usize,
    /// The first of them (`--seed`): the seeds are `first_seed, first_seed + 1, ...`; seed `s`
    /// draws A, `s + 1000` draws B.
    pub first_seed: u64,
    /// Moduli counts of the scheme II (fast mode) methods.
    pub moduli: Vec<usize>,
    /// Run on GPU 0 instead of the CPU.
    pub gpu: bool,
    /// Also write an SVG scatter plot here.
    pub svg: Option<PathBuf>,
}

/// The moduli counts of `--moduli`: a comma-separated list of counts and inclusive ranges
/// (`8-20`, `8,12,16`, `8-10,16`), sorted and without repeats.
///
/// # Errors
/// A message naming the bad item: not a number, an empty or reversed range, or a count outside
/// the supported `8..=20`.
pub fn parse_moduli(list: &str) -> Result<Vec<usize>, String> {
    let (lo, hi) = OZAKI2_MODULI;
    let count = |s: &str| -> Result<usize, String> {
        let q: usize = s
            .trim()
            .parse()
            .map_err(|_| format!("--moduli: '{}' is not a number of moduli", s.trim()))?;
        if (lo..=hi).contains(&q) {
            Ok(q)
        } else {
            Err(format!(
                "--moduli: {q} moduli is not supported (Ozaki II takes {lo} to {hi})"
            ))
        }
    };
    let mut out = Vec::new();
    for item in list.split(',') {
        match item.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (count(a)?, count(b)?);
                if a > b {
                    return Err(format!("--moduli: the range '{}' is reversed", item.trim()));
                }
                out.extend(a..=b);
            }
            None => out.push(count(item)?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Runs the reproduction and prints the tables, or with `as_json` returns the JSON document.
pub fn run(plan: &Plan, as_json: bool) -> Result<Option<serde_json::Value>, String> {
    if plan.sizes.is_empty() || plan.sizes.contains(&0) {
        return Err("--sizes needs at least one positive size".into());
    }
    check_seeds(plan.seeds)?;
    for &n in &plan.sizes {
        // A, B and C in f64 at least (the methods' slices and residues come on top).
        crate::check_bytes(
            &format!("--sizes {n}"),
            "three n × n matrices of f64 at least",
            24.0 * n as f64 * n as f64,
            n.checked_mul(n).and_then(|e| e.checked_mul(24)),
        )?;
    }
    // B's seed is s + B_SEED_OFFSET: the last one must not wrap past u64::MAX.
    let last = plan.seeds as u64 - 1;
    if plan.first_seed.checked_add(last + B_SEED_OFFSET).is_none() {
        return Err(format!(
            "--seed {}: with --seeds {} the seeds (and B's, {B_SEED_OFFSET} above each) pass \
             2^64 - 1; use at most {}",
            plan.first_seed,
            plan.seeds,
            u64::MAX - last - B_SEED_OFFSET
        ));
    }
    let seeds: Vec<u64> = (plan.first_seed..=plan.first_seed + last).collect();
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
    bar.set_message(format!(
        "ozaki n = {:?}, {} seeds from {}, N = {:?}",
        plan.sizes, plan.seeds, plan.first_seed, plan.moduli
    ));
    let rep = match &dev {
        Some(d) => {
            crate::papers::ozaki_gpu::reproduce_gpu(d, &plan.sizes, &phis, &seeds, &plan.moduli)
        }
        None => reproduce(&plan.sizes, &phis, &seeds, &plan.moduli),
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
                // NaN (a method that did not run) becomes null.
                let per_method = |v: &[f64]| -> serde_json::Map<String, serde_json::Value> {
                    rep.methods
                        .iter()
                        .zip(v)
                        .map(|(m, x)| (m.clone(), serde_json::json!(x)))
                        .collect()
                };
                serde_json::json!({
                    "phi": r.phi, "n": r.n,
                    "mean_max_rel_error": per_method(&r.err),
                    "mean_seconds": per_method(&r.time),
                })
            })
            .collect();
        let unavailable: serde_json::Map<String, serde_json::Value> = rep
            .unavailable
            .iter()
            .map(|(m, why)| (m.clone(), serde_json::json!(why)))
            .collect();
        let doc = serde_json::json!({
            "paper": "ozaki",
            "device": if dev.is_some() { "gpu" } else { "cpu" },
            "cpu": crate::info::cpu_model(),
            "gpu": dev.as_ref().map(|d| d.info().name.clone()),
            "seeds": rep.seeds,
            "first_seed": plan.first_seed,
            "reference": if dev.is_some() { GPU_REFERENCE } else { "exact" },
            "methods": rep.methods,
            "moduli": plan.moduli,
            "unavailable": unavailable,
            "rows": rows,
        });
        return Ok(Some(doc));
    } else {
        let kind = if dev.is_some() { "GPU" } else { "CPU" };
        println!(
            "Ozaki scheme (paper 002): {kind} reproduction on {where_} (the paper's numbers are \
             GPU numbers at n = 1024..4096); seeds {} to {}\n",
            plan.first_seed,
            plan.first_seed + last
        );
        // The GPU run's reference is not the exact product: say so where the tables say c*.
        let reference = |t: String| match &dev {
            Some(_) => t.replacen("c* exact", GPU_REFERENCE, 1),
            None => t,
        };
        println!("{}", reference(rep.table2()));
        println!("{}", rep.table3());
        println!("{}", reference(rep.ozaki2_table()));
    }
    Ok(None)
}

/// Colours of the paper's methods, in [`PAPER_METHODS`] order.
const PAPER_COLOURS: [&str; 7] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
];

/// Colours of the methods that are neither the paper's nor scheme II in fast mode (accurate
/// mode, cuBLAS's emulation, ...), in order of appearance, reused if there are more.
const OTHER_COLOURS: [&str; 3] = ["#17becf", "#bcbd22", "#000000"];

/// The colour of scheme II in fast mode with `moduli` moduli: a grey ramp from light (fewest
/// moduli) to black (most), so that the N family reads as one series, apart from the paper's
/// coloured methods, and its order shows without the legend.
fn ramp(moduli: usize) -> String {
    let (lo, hi) = OZAKI2_MODULI;
    let t = (moduli.clamp(lo, hi) - lo) as f64 / (hi - lo) as f64;
    let v = (200.0 - t * 190.0).round() as u8;
    format!("#{v:02x}{v:02x}{v:02x}")
}

/// How one method is drawn.
struct Style {
    colour: String,
    /// The moduli count, for scheme II in fast mode (drawn as a labelled, connected series).
    moduli: Option<usize>,
}

fn styles(rep: &Reproduction) -> Vec<Style> {
    let mut other = 0;
    rep.methods
        .iter()
        .map(|m| {
            if let Some(i) = PAPER_METHODS.iter().position(|p| p == m) {
                Style {
                    colour: PAPER_COLOURS[i].into(),
                    moduli: None,
                }
            } else if let Some(q) = ozaki2_moduli_of(m) {
                Style {
                    colour: ramp(q),
                    moduli: Some(q),
                }
            } else {
                other += 1;
                Style {
                    colour: OTHER_COLOURS[(other - 1) % OTHER_COLOURS.len()].into(),
                    moduli: None,
                }
            }
        })
        .collect()
}

/// An SVG plot like the paper's Figures 17–25: one panel per `(φ, n)` row (rows of panels by
/// φ, columns by n), each a scatter of `log10` time (x) against `log10` max relative error (y)
/// with one point per method, and the same axes in every panel so that panels compare. The
/// paper's methods have a colour each; scheme II in fast mode is a grey ramp by moduli count,
/// its points joined in N order and labelled with N (labels that would overlap are left out);
/// other methods get further colours. A method with no value anywhere is "(n/a)" in the
/// legend.
pub fn svg_plot(rep: &Reproduction, title: &str) -> String {
    let ok = |t: f64, e: f64| t > 0.0 && e > 0.0 && t.is_finite() && e.is_finite();
    let value = |r: &crate::papers::ozaki::ReproRow, m: usize| {
        let t = r.time.get(m).copied().unwrap_or(f64::NAN);
        let e = r.err.get(m).copied().unwrap_or(f64::NAN);
        (t, e)
    };
    let pts = || {
        rep.rows.iter().flat_map(move |r| {
            (0..rep.methods.len())
                .map(move |m| value(r, m))
                .filter(move |&(t, e)| ok(t, e))
                .map(|(t, e)| (t.log10(), e.log10()))
        })
    };
    let (x0, x1) = decade_range(pts().map(|p| p.0));
    let (y0, y1) = decade_range(pts().map(|p| p.1));
    let style = styles(rep);
    // Fast scheme II methods in N order: the order of the connecting line.
    let mut series: Vec<(usize, usize)> = style
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.moduli.map(|q| (q, i)))
        .collect();
    series.sort_unstable();
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
    let (left, gap_x, top, gap_y, legend) = (70.0, 60.0, 60.0, 70.0, 180.0);
    let legend_step = 17.0;
    let legend_lines = rep.methods.len() + usize::from(!series.is_empty());
    let cols = ns.len().max(1) as f64;
    let rows = phis.len().max(1) as f64;
    let w = left + cols * (pw + gap_x) + legend;
    let h = (top + rows * (ph + gap_y)).max(top + 20.0 + legend_step * legend_lines as f64);
    let xstep = ((x1 - x0) / 6.0).ceil().max(1.0);
    let ystep = ((y1 - y0) / 8.0).ceil().max(1.0);
    let mut s = String::new();
    svg::open(&mut s, w, h, left - 50.0, title);
    for r in &rep.rows {
        let ci = ns.iter().position(|&n| n == r.n).unwrap_or(0) as f64;
        let ri = phis.iter().position(|&p| p == r.phi).unwrap_or(0) as f64;
        let ox = left + ci * (pw + gap_x);
        let oy = top + ri * (ph + gap_y);
        let panel = Panel {
            ox,
            oy,
            w: pw,
            h: ph,
            x: (x0, x1),
            y: (y0, y1),
        };
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle" font-size="13">φ = {}, n = {}</text>"#,
            ox + pw / 2.0,
            oy - 8.0,
            r.phi,
            r.n
        );
        panel.axes(&mut s, xstep, ystep, "time [s]", "max relative error");
        // Scheme II's curve first, so that the points sit on top of it.
        let curve: Vec<(usize, f64, f64)> = series
            .iter()
            .map(|&(q, m)| (q, value(r, m)))
            .filter(|&(_, (t, e))| ok(t, e))
            .map(|(q, (t, e))| (q, panel.px(t.log10()), panel.py(e.log10())))
            .collect();
        if curve.len() > 1 {
            let points: Vec<String> = curve
                .iter()
                .map(|&(_, x, y)| format!("{x:.2},{y:.2}"))
                .collect();
            let _ = writeln!(
                s,
                r##"<polyline points="{}" fill="none" stroke="#999" stroke-width="1"/>"##,
                points.join(" ")
            );
        }
        for (m, (name, st)) in rep.methods.iter().zip(&style).enumerate() {
            let (t, e) = value(r, m);
            if ok(t, e) {
                let _ = writeln!(
                    s,
                    r##"<circle cx="{:.2}" cy="{:.2}" r="4.5" fill="{}" fill-opacity="0.85" stroke="#333" stroke-width="{}"><title>{} φ={} n={}: {:.3e} s, {:.3e}</title></circle>"##,
                    panel.px(t.log10()),
                    panel.py(e.log10()),
                    st.colour,
                    if st.moduli.is_some() { 0.6 } else { 0.0 },
                    escape(name),
                    r.phi,
                    r.n,
                    t,
                    e
                );
            }
        }
        // N beside its point, the ends of the curve first; a label that would overlap one
        // already placed is left out (neighbouring N often nearly coincide).
        let mut order: Vec<usize> = (0..curve.len()).collect();
        if curve.len() > 1 {
            order.swap(1, curve.len() - 1);
        }
        let mut placed: Vec<(f64, f64)> = Vec::new();
        for i in order {
            let (q, x, y) = curve[i];
            let (lx, ly) = (x + 6.0, y - 5.0);
            if placed
                .iter()
                .any(|&(a, b)| (a - lx).abs() < 12.0 && (b - ly).abs() < 9.0)
            {
                continue;
            }
            placed.push((lx, ly));
            let _ = writeln!(
                s,
                r##"<text x="{lx:.2}" y="{ly:.2}" font-size="8" fill="#444">{q}</text>"##
            );
        }
    }
    let lx = w - legend + 10.0;
    let mut yy = top + 10.0;
    for (m, name) in rep.methods.iter().enumerate() {
        if series.first().is_some_and(|&(_, first)| first == m) {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" font-style="italic">Ozaki II, fast, N moduli:</text>"#,
                lx - 5.0,
                yy + 4.0
            );
            yy += legend_step;
        }
        let missing = rep.rows.iter().all(|r| {
            let (t, e) = value(r, m);
            t.is_nan() || e.is_nan()
        });
        let _ = writeln!(
            s,
            r##"<circle cx="{lx}" cy="{yy}" r="5" fill="{}" stroke="#333" stroke-width="{}"/><text x="{}" y="{}">{}{}</text>"##,
            style[m].colour,
            if style[m].moduli.is_some() { 0.6 } else { 0.0 },
            lx + 10.0,
            yy + 4.0,
            escape(name),
            if missing && !rep.rows.is_empty() {
                " (n/a)"
            } else {
                ""
            }
        );
        yy += legend_step;
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::papers::ozaki::ReproRow;

    fn methods(extra: &[&str]) -> Vec<String> {
        PAPER_METHODS
            .iter()
            .chain(extra)
            .map(|m| m.to_string())
            .collect()
    }

    #[test]
    fn moduli_lists_and_ranges_parse() {
        assert_eq!(parse_moduli("8-20").unwrap(), (8..=20).collect::<Vec<_>>());
        assert_eq!(parse_moduli("16,8, 12").unwrap(), vec![8, 12, 16]);
        assert_eq!(parse_moduli("8-10,9,20").unwrap(), vec![8, 9, 10, 20]);
        assert_eq!(parse_moduli("14-14").unwrap(), vec![14]);
        for bad in [
            "", "7", "21", "8-21", "12-9", "x", "8,,9", "-8", "8-", "1e1",
        ] {
            let e = parse_moduli(bad).unwrap_err();
            assert!(e.starts_with("--moduli:"), "{bad}: {e}");
        }
        assert!(parse_moduli("30").unwrap_err().contains("8 to 20"));
    }

    #[test]
    fn svg_survives_empty_zero_and_non_finite_values() {
        let empty = Reproduction {
            methods: methods(&[]),
            rows: vec![],
            seeds: 0,
            unavailable: vec![],
        };
        let s = svg_plot(&empty, "a < b & c");
        assert!(s.starts_with("<svg") && s.ends_with("</svg>\n"));
        assert!(s.contains("a &lt; b &amp; c"));
        let row = ReproRow {
            phi: 1.0,
            n: 8,
            err: vec![
                1e-3,
                0.0,
                f64::INFINITY,
                f64::NAN,
                1e-12,
                1e-14,
                1e-15,
                1e-16,
                f64::NAN,
            ],
            time: vec![1e-5; 9],
        };
        let rep = Reproduction {
            methods: methods(&["OzII-16", "emu"]),
            rows: vec![row],
            seeds: 1,
            unavailable: vec![],
        };
        let s = svg_plot(&rep, "t");
        // 5 plotted points (zero, Inf and NaN errors left out) and 9 legend marks.
        assert_eq!(s.matches("<circle").count(), 5 + 9);
        assert!(!s.contains("NaN") && !s.contains("inf"));
        assert!(s.contains(">emu (n/a)</text>"), "{s}");
        assert!(s.contains(">4 split (n/a)</text>"), "{s}");
    }

    #[test]
    fn svg_joins_and_labels_the_moduli_series() {
        let mut m = methods(&[]);
        let ns: Vec<usize> = (8..=20).collect();
        m.extend(ns.iter().map(|q| format!("OzII-{q}")));
        m.push("OzII-16acc".into());
        let k = m.len();
        // Scheme II's error falls by 100× per modulus and its time grows: points far apart,
        // so every N gets its label.
        let row = ReproRow {
            phi: 2.0,
            n: 64,
            err: (0..k)
                .map(|i| if i < 7 { 1e-6 } else { 10f64.powi(-(i as i32)) })
                .collect(),
            time: (0..k).map(|i| 1e-4 * 1.5f64.powi(i as i32)).collect(),
        };
        let rep = Reproduction {
            methods: m.clone(),
            rows: vec![row],
            seeds: 1,
            unavailable: vec![],
        };
        let s = svg_plot(&rep, "t");
        assert_eq!(s.matches("<polyline").count(), 1);
        assert_eq!(s.matches("<circle").count(), 2 * k);
        for name in &m {
            assert!(
                s.contains(&format!(">{name}</text>")),
                "legend lacks {name}"
            );
        }
        for q in &ns {
            assert!(
                s.contains(&format!("fill=\"#444\">{q}</text>")),
                "no label {q}"
            );
        }
        assert_eq!(ramp(8), "#c8c8c8");
        assert_eq!(ramp(20), "#0a0a0a");
    }
}
