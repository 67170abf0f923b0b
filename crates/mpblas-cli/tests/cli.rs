//! The `mpblas` binary end to end: every subcommand runs, `--json` is valid JSON with the
//! expected shape, and bad arguments are errors with a message (exit status 1 or 2), not panics.

use std::process::Command;

/// The seed paper's methods, the first columns of every `reproduce ozaki` run.
const PAPER_METHODS: &[&str] = &[
    "single", "2 split", "3 split", "4 split", "5 split", "6 split", "double",
];
/// The Ozaki-II columns of a CPU run with the default `--moduli` (14, 16, 20).
const CPU_OZAKI2_METHODS: &[&str] = &["OzII-14", "OzII-16", "OzII-20"];

fn mpblas(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_mpblas"))
        .args(args)
        .output()
        .expect("the mpblas binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(args: &[&str]) -> serde_json::Value {
    let (code, stdout, stderr) = mpblas(args);
    assert_eq!(code, 0, "{args:?} failed: {stderr}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {stdout}"))
}

#[test]
fn info_lists_the_formats() {
    let v = json(&["info", "--json"]);
    let text = v.to_string();
    for format in ["f64", "dd", "qd"] {
        assert!(
            text.contains(&format!("\"{format}\"")),
            "info lacks {format}: {text}"
        );
    }
}

#[test]
fn reproduce_qd_small_run() {
    let v = json(&[
        "reproduce",
        "qd",
        "--n",
        "256",
        "--reps",
        "1",
        "--threads",
        "1",
        "--json",
    ]);
    assert!(v.is_object());
}

#[test]
fn reproduce_rns_covers_the_paper_precisions() {
    let v = json(&[
        "reproduce",
        "rns",
        "--n",
        "8",
        "--reps",
        "1",
        "--threads",
        "1",
        "--json",
    ]);
    let rows = v["rows"].as_array().expect("rows");
    let requested: Vec<u64> = rows
        .iter()
        .map(|r| r["requested_bits"].as_u64().unwrap())
        .collect();
    assert_eq!(requested, [106, 212, 424, 848, 1696]);
    for r in rows {
        assert!(r["precision_bits"].as_u64().unwrap() >= r["requested_bits"].as_u64().unwrap());
        assert!(r["ops_per_second"]["mul"]["one_thread"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn reproduce_ozaki_small_run() {
    let v = json(&[
        "reproduce",
        "ozaki",
        "--sizes",
        "16",
        "--seeds",
        "1",
        "--json",
    ]);
    assert_eq!(v["rows"].as_array().unwrap().len(), 3, "one row per phi");
    // The paper's methods first, then Ozaki II for the default moduli counts of the CPU run.
    let methods: Vec<&str> = v["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let want: Vec<String> = PAPER_METHODS
        .iter()
        .chain(CPU_OZAKI2_METHODS)
        .map(|m| m.to_string())
        .collect();
    assert_eq!(methods, want);
    for row in v["rows"].as_array().unwrap() {
        for m in &want {
            assert!(row["mean_max_rel_error"][m].is_number(), "{m}: {row}");
            assert!(row["mean_seconds"][m].is_number(), "{m}: {row}");
        }
    }
}

/// `--seed` is the first of the `--seeds` seeds (issue 11: it was accepted and ignored). The
/// default is 1, so the recorded tables are unchanged; another seed draws other matrices.
#[test]
fn reproduce_ozaki_seed_is_the_first_seed() {
    let run = |seed: Option<&str>| {
        let mut args = vec![
            "reproduce",
            "ozaki",
            "--sizes",
            "16",
            "--seeds",
            "2",
            "--json",
        ];
        if let Some(s) = seed {
            args.extend(["--seed", s]);
        }
        json(&args)
    };
    let errors = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        let rows = v["rows"].as_array().expect("rows");
        rows.iter()
            .map(|r| r["mean_max_rel_error"].clone())
            .collect()
    };
    let (default, one, seven) = (run(None), run(Some("1")), run(Some("7")));
    assert_eq!(default["first_seed"], 1, "{default}");
    assert_eq!(seven["first_seed"], 7, "{seven}");
    assert_eq!(errors(&default), errors(&one));
    assert_ne!(errors(&default), errors(&seven));
    // The largest first seed whose B seeds (1000 above) still fit in a u64, and one past it.
    let (code, _, stderr) = mpblas(&[
        "reproduce",
        "ozaki",
        "--sizes",
        "1",
        "--seeds",
        "2",
        "--seed",
        "18446744073709550614",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = mpblas(&[
        "reproduce",
        "ozaki",
        "--sizes",
        "1",
        "--seeds",
        "2",
        "--seed",
        "18446744073709550615",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("use at most 18446744073709550614"),
        "{stderr}"
    );
}

/// `reproduce rns` honours `--reps` (it was cut to 5 in silence) and `--max-seconds` (it was
/// ignored), and says both in its JSON.
#[test]
fn reproduce_rns_honours_reps_and_max_seconds() {
    let v = json(&[
        "reproduce",
        "rns",
        "--n",
        "4",
        "--reps",
        "7",
        "--max-seconds",
        "100",
        "--threads",
        "1",
        "--json",
    ]);
    assert_eq!(v["reps"], 7, "{v}");
    assert_eq!(v["max_seconds"], 100.0, "{v}");
    let (code, _, stderr) = mpblas(&["reproduce", "rns", "--max-seconds", "0"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("--max-seconds must be positive"),
        "{stderr}"
    );
}

#[test]
fn reproduce_ozaki_moduli_flag() {
    let (code, stdout, stderr) = mpblas(&[
        "reproduce",
        "ozaki",
        "--sizes",
        "16",
        "--seeds",
        "1",
        "--moduli",
        "8-9,20",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Ozaki scheme II (INT8 CRT)"), "{stdout}");
    for m in ["OzII-8", "OzII-9", "OzII-20"] {
        assert!(stdout.contains(m), "{m}: {stdout}");
    }
    assert!(!stdout.contains("OzII-16"), "{stdout}");
}

#[test]
fn bad_arguments_are_errors_not_panics() {
    for args in [
        &["reproduce", "ozaki", "--sizes", "0"][..],
        &["reproduce", "qd", "--n", "0"],
        &["reproduce", "rns", "--svg", "x.svg"],
        &["reproduce", "ozaki", "--moduli", "7"],
        &["reproduce", "ozaki", "--moduli", "8-21"],
        &["reproduce", "ozaki", "--moduli", "12-8"],
        &["reproduce", "ozaki", "--moduli", "sixteen"],
        &["reproduce", "qd", "--moduli", "16"],
        &["reproduce", "rns", "--reps", "0"],
        &["reproduce", "sum", "--sizes", "0"],
        &["reproduce", "sum", "--sizes", "10,20"],
        &["reproduce", "sum", "--seeds", "0"],
        &["reproduce", "sum", "--moduli", "16"],
        &["bench", "--threads", "0"],
        // Issue 11: sizes beyond memory and absurd thread counts are refused, not attempted.
        &["bench", "--n", "18446744073709551615"],
        &["bench", "--n", "4000000000000", "--format", "qd"],
        &["reproduce", "qd", "--n", "18446744073709551615"],
        &["bench", "--threads", "100000000"],
        &["reproduce", "ozaki", "--sizes", "4294967296"],
        &["reproduce", "ozaki", "--sizes", "3037000500"],
        &["reproduce", "ozaki", "--sizes", "20000000"],
        &[
            "reproduce",
            "ozaki",
            "--sizes",
            "8",
            "--seeds",
            "18446744073709551615",
        ],
        &["reproduce", "sum", "--seeds", "18446744073709551615"],
        &["reproduce", "sum", "--sizes", "18446744073709551615"],
        &["reproduce", "sum", "--n", "18446744073709551615"],
        &["reproduce", "sum", "--n", "0"],
        // Flags a paper does not use are refused, not ignored.
        &["reproduce", "rns", "--gpu"],
        &["reproduce", "rns", "--json-file", "r.json"],
        &["reproduce", "rns", "--sizes", "100"],
        &["reproduce", "qd", "--seeds", "3"],
        &["reproduce", "ozaki", "--threads", "2"],
        &["reproduce", "ozaki", "--n", "100"],
        &["reproduce", "ozaki", "--reps", "3"],
        &["reproduce", "ozaki", "--json-file", "o.json"],
    ] {
        let (code, _, stderr) = mpblas(args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("mpblas: error:"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    let (code, _, stderr) = mpblas(&["reproduce", "nosuchpaper"]);
    assert_eq!(code, 2, "usage errors exit 2: {stderr}");
}

#[test]
fn reproduce_ozaki_svg_names_every_method() {
    let path = std::env::temp_dir().join(format!("mpblas-ozaki-{}.svg", std::process::id()));
    let p = path.to_str().unwrap();
    let (code, _, stderr) = mpblas(&[
        "reproduce",
        "ozaki",
        "--sizes",
        "16",
        "--seeds",
        "1",
        "--svg",
        p,
    ]);
    assert_eq!(code, 0, "{stderr}");
    let svg = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.trim_end().ends_with("</svg>"));
    for m in PAPER_METHODS.iter().chain(CPU_OZAKI2_METHODS) {
        assert!(svg.contains(&format!(">{m}</text>")), "legend lacks {m}");
    }
}

#[test]
fn reproduce_ozaki_gpu_is_an_error_without_cuda() {
    if mpblas::cuda::device_count().unwrap_or(0) > 0 {
        // With a GPU: a tiny run must succeed with one row per phi.
        let v = json(&[
            "reproduce",
            "ozaki",
            "--gpu",
            "--sizes",
            "16",
            "--seeds",
            "1",
            "--json",
        ]);
        assert_eq!(v["device"], "gpu");
        assert_eq!(v["rows"].as_array().unwrap().len(), 3, "one row per phi");
        return;
    }
    let (code, _, stderr) = mpblas(&["reproduce", "ozaki", "--gpu"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.starts_with("mpblas: error:"), "{stderr}");
    assert!(stderr.contains("CUDA"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn reproduce_sum_gpu_compares_bits_or_is_an_error_without_cuda() {
    if mpblas::cuda::device_count().unwrap_or(0) > 0 {
        // With a GPU: every f64/dd/qd/sum2 row has the CPU's bits.
        let v = json(&[
            "reproduce",
            "sum",
            "--gpu",
            "--sizes",
            "1000",
            "--seeds",
            "1",
            "--json",
        ]);
        let rows = v["datasets"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|d| d["rows"].as_array().unwrap().clone());
        let compared: Vec<bool> = rows.filter_map(|r| r["gpu_same_bits"].as_bool()).collect();
        assert!(compared.len() >= 3 * 11, "{} rows compared", compared.len());
        assert!(compared.iter().all(|&b| b));
        return;
    }
    let (code, _, stderr) = mpblas(&["reproduce", "sum", "--gpu"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.starts_with("mpblas: error:"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `reproduce gemm`: every format's row with errors within the returned bounds; the flags of
/// other papers and a zero size are refused.
#[test]
fn reproduce_gemm_reports_every_format() {
    let v = json(&["reproduce", "gemm", "--n", "24", "--reps", "1", "--json"]);
    let rows = v["rows"].as_array().expect("rows");
    let formats: Vec<&str> = rows.iter().map(|r| r["format"].as_str().unwrap()).collect();
    assert_eq!(
        formats,
        ["f64", "dd", "dd compensated", "dd Ozaki II", "qd"]
    );
    for r in rows {
        let ratio = r["max_err_over_bound"].as_f64().expect("ratio");
        assert!(ratio <= 1.0, "{r}");
    }
    for args in [
        &["reproduce", "gemm", "--n", "0"][..],
        &["reproduce", "gemm", "--max-seconds", "1"],
        &["reproduce", "gemm", "--sizes", "64"],
    ] {
        let (code, _, stderr) = mpblas(args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
    }
}

/// `reproduce solve`: the seed problem's five rows, each solution near its format's precision,
/// and the conditioning table; `--gpu`, a zero size and other papers' flags are refused.
#[test]
fn reproduce_solve_reports_every_row() {
    let v = json(&["reproduce", "solve", "--n", "24", "--json"]);
    let rows = v["rows"].as_array().expect("rows");
    let names: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} {}",
                r["format"].as_str().unwrap(),
                r["method"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        names,
        ["f64 LU", "dd refined", "dd LU", "qd refined", "qd LU"]
    );
    for r in rows {
        let e = r["max_rel_error"].as_f64().expect("error");
        let tol = match r["format"].as_str().unwrap() {
            "f64" => 1e-10,
            "dd" => 1e-26,
            _ => 1e-55,
        };
        assert!(e < tol, "{r}");
    }
    let cond = v["conditioning"]["rows"].as_array().expect("conditioning");
    assert_eq!(cond.len(), 5);
    for args in [
        &["reproduce", "solve", "--n", "0"][..],
        &["reproduce", "solve", "--max-seconds", "1"],
        &["reproduce", "solve", "--sizes", "64"],
    ] {
        let (code, _, stderr) = mpblas(args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
    }
}

/// `reproduce solve --gpu`: with a GPU every row has its GPU run (time, error at the CPU's
/// accuracy); without one, an error naming CUDA, no panic.
#[test]
fn reproduce_solve_gpu_runs_every_row_or_is_an_error_without_cuda() {
    if mpblas::cuda::device_count().unwrap_or(0) > 0 {
        let v = json(&["reproduce", "solve", "--gpu", "--n", "60", "--json"]);
        let rows = v["rows"].as_array().expect("rows");
        assert_eq!(rows.len(), 5);
        for r in rows {
            let g = &r["gpu"];
            assert!(g["seconds"].as_f64().unwrap() > 0.0, "{r}");
            let e = g["max_rel_error"].as_f64().unwrap();
            let tol = match r["format"].as_str().unwrap() {
                "f64" => 1e-10,
                "dd" => 1e-26,
                _ => 1e-55,
            };
            assert!(e < tol, "{r}");
            // The GPU refinement's forward error bound (all columns) covers the sampled error.
            if let Some(bound) = g["refine"]["forward_error_bound"].as_f64() {
                assert!(bound >= e && bound.is_finite(), "{r}");
            }
        }
        return;
    }
    let (code, _, stderr) = mpblas(&["reproduce", "solve", "--gpu", "--n", "30"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.starts_with("mpblas: error:"), "{stderr}");
    assert!(stderr.contains("CUDA"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `reproduce` with no paper runs every paper (small sizes here), one JSON document holding
/// each paper's; the per-paper flags are refused there.
#[test]
fn reproduce_without_a_paper_runs_them_all() {
    let v = json(&[
        "reproduce",
        "--n",
        "512",
        "--reps",
        "1",
        "--max-seconds",
        "0.05",
        "--threads",
        "1",
        "--json",
    ]);
    let papers = v["papers"].as_object().expect("papers");
    let names: Vec<&str> = papers.keys().map(|k| k.as_str()).collect();
    assert_eq!(
        names,
        ["gemm", "gemv", "ozaki", "qd", "rns", "solve", "sum"]
    );
    assert_eq!(papers["solve"]["paper"], "solve");
    assert_eq!(papers["solve"]["n"], 96, "the quick size");
    assert_eq!(papers["gemv"]["paper"], "gemv");
    assert_eq!(papers["gemm"]["paper"], "gemm");
    assert_eq!(papers["gemm"]["n"], 256, "the quick size");
    assert_eq!(papers["gemv"]["n"], 200, "the quick size, below --n 512");
    assert_eq!(papers["sum"]["paper"], "sum");
    assert_eq!(papers["ozaki"]["paper"], "ozaki");
    for flag in [["--sizes", "64"], ["--moduli", "16"], ["--seeds", "1"]] {
        let (code, _, stderr) = mpblas(&["reproduce", flag[0], flag[1]]);
        assert_eq!(code, 1, "{flag:?}");
        assert!(stderr.contains("reproduce ozaki"), "{stderr}");
    }
}

/// `reproduce sum` (dataset #2 shortened): every row of the accuracy tables, the float and
/// double rows failing as in the paper, quad-double and RNS at 120 bits getting the three
/// datasets right, every result inside its bound, and the dot-product table.
#[test]
fn reproduce_sum_gets_the_papers_datasets_right() {
    let v = json(&[
        "reproduce",
        "sum",
        "--sizes",
        "100000",
        "--seeds",
        "1",
        "--threads",
        "1",
        "--json",
    ]);
    assert_eq!(v["paper"], "sum");
    let datasets = v["datasets"].as_array().expect("datasets");
    assert_eq!(datasets.len(), 3);
    let want_exact = [2e-18, 1.00000000001, 3.4873374480109046e-6];
    for (d, exact) in datasets.iter().zip(want_exact) {
        let id = d["id"].as_u64().unwrap();
        assert_eq!(d["exact"].as_f64().unwrap(), exact, "#{id}");
        let rows = d["rows"].as_array().unwrap();
        let row = |format: &str, order: &str| {
            rows.iter()
                .find(|r| r["format"] == format && r["order"] == order)
                .unwrap_or_else(|| panic!("#{id}: no row {format} {order}"))
        };
        let err = |format: &str, order: &str| row(format, order)["rel_error"].as_f64().unwrap();
        let mut want_rows = vec![("double", "sum2 (ORO)"), ("double", "corr. rounded")];
        for format in [
            "float", "double", "dd", "qd", "RNS 30", "RNS 60", "RNS 120", "RNS 240",
        ] {
            for order in ["recursive", "pairwise", "blocked"] {
                want_rows.push((format, order));
            }
        }
        assert_eq!(rows.len(), want_rows.len(), "#{id}");
        for (format, order) in &want_rows {
            let r = row(format, order);
            assert_eq!(r["within_bound"], true, "#{id} {format} {order}: {r}");
            assert!(r["gpu_same_bits"].is_null());
        }
        // Float and double in a plain loop lose everything (#1), the small terms (#2: all
        // 10^5 of them, a relative 1e-11) or 7 digits (#3), as in the paper's Table 1.
        assert!(err("float", "recursive") >= 5e-12, "#{id}");
        assert!(err("double", "recursive") >= 5e-12, "#{id}");
        for order in ["recursive", "pairwise", "blocked"] {
            assert!(err("qd", order) < 1e-15, "#{id} qd {order}");
            assert_eq!(err("RNS 240", order), 0.0, "#{id} RNS 240 {order}");
            // RNS 120 holds 122 bits; 20470 + 1e-18 (#1, recursive and pairwise trees) needs
            // 127, so the last bits of 1e-18 go: 2-4e-15 (the paper: 5e-15 in Reduce1).
            let tol = if id == 1 { 1e-14 } else { 1e-15 };
            assert!(err("RNS 120", order) < tol, "#{id} RNS 120 {order}");
        }
        assert!(err("double", "corr. rounded") <= f64::EPSILON / 2.0);
    }
    // The paper's figures only where the data are the paper's (#2 was shortened here).
    assert_eq!(datasets[0]["rows"][0]["paper"]["result"], "0");
    assert!(datasets[1]["rows"][0]["paper"].is_null());
    let dot = &v["dot"];
    assert_eq!(dot["n"], 1000);
    let samples = dot["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 6, "one sample per condition 1e10..1e60");
    for s in samples {
        let target = s["target_cond"].as_f64().unwrap();
        let cond = s["cond"].as_f64().unwrap();
        assert!(cond / target > 1e-2 && cond / target < 1e2, "{s}");
        let e = |m: &str| s["rel_error"][m].as_f64().unwrap();
        assert!(e("corr. rounded") <= f64::EPSILON / 2.0, "{s}");
        assert!(e("double") <= 1.0, "capped at 1: {s}");
    }
}

#[test]
fn reproduce_sum_text_has_every_row_and_the_svg() {
    let path = std::env::temp_dir().join(format!("mpblas-sum-{}.svg", std::process::id()));
    let (code, stdout, stderr) = mpblas(&[
        "reproduce",
        "sum",
        "--sizes",
        "1000",
        "--seeds",
        "1",
        "--svg",
        path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    for want in [
        "Dataset #1",
        "Dataset #2",
        "Dataset #3",
        "RNS 240 | blocked",
        "corr. rounded",
        "n/a (no GPU run)",
        "Ill-conditioned dot products",
        "1e60",
    ] {
        assert!(stdout.contains(want), "lacks {want}: {stdout}");
    }
    let svg = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    for m in ["double", "dot2", "qd", "RNS 106", "RNS 212"] {
        assert!(svg.contains(&format!(">{m}")), "legend lacks {m}");
    }
}

/// Output into a closed pipe ends quietly (status 141, as SIGPIPE would), not with a panic.
#[test]
fn a_closed_pipe_is_not_a_panic() {
    use std::process::{Command, Stdio};
    for args in [&["info"][..], &["info", "--json"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mpblas"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mpblas runs");
        // Close the reading end at once (a child that wrote first exits 0 instead).
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("mpblas exits");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            matches!(out.status.code(), Some(0) | Some(141)),
            "{args:?}: {:?} {stderr}",
            out.status
        );
    }
}

/// Formats of `reproduce gemv`, in row order (each once per input set).
const GEMV_FORMATS: &[&str] = &[
    "f64",
    "dd",
    "qd",
    "RNS 106",
    "RNS 212",
    "RNS 424",
    "RNS 848",
    "RNS 1696",
    "RNS 106 fused",
    "RNS 212 fused",
    "RNS 424 fused",
    "RNS 848 fused",
    "RNS 1696 fused",
];

/// `reproduce gemv` at n = 40: every format on both input sets, N and T, each error within the
/// returned bounds, the paper's and MPRES-BLAS's figures beside the RNS rows.
#[test]
fn reproduce_gemv_small_run() {
    let v = json(&[
        "reproduce",
        "gemv",
        "--n",
        "40",
        "--reps",
        "2",
        "--threads",
        "2",
        "--json",
    ]);
    assert_eq!(v["paper"], "gemv");
    assert_eq!(v["n"], 40);
    for key in [
        "citation",
        "cpu",
        "threads",
        "reps",
        "max_seconds",
        "seed",
        "reference",
        "paper_gpu",
        "paper_n",
        "table5",
        "gpu",
        "rows",
    ] {
        assert!(v.get(key).is_some(), "no {key}: {v}");
    }
    assert_eq!(v["table5"].as_array().unwrap().len(), 5);
    let rows = v["rows"].as_array().expect("rows");
    let got: Vec<(String, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["format"].as_str().unwrap().to_string(),
                r["input_bits"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u64)> = [53, 26]
        .iter()
        .flat_map(|&b| GEMV_FORMATS.iter().map(move |f| (f.to_string(), b)))
        .collect();
    assert_eq!(got, want);
    for r in rows {
        let name = format!("{} {}-bit", r["format"], r["input_bits"]);
        for key in [
            "precision_bits",
            "requested_bits",
            "moduli",
            "cpu_ms",
            "cpu_calls",
            "bound_entries",
            "max_rel_error",
            "max_err_over_bound",
            "paper_gtx1080_ms",
            "mpres_h100_ms",
            "gpu",
        ] {
            assert!(r.get(key).is_some(), "{name}: no {key}");
        }
        for t in ["N", "T"] {
            assert!(r["cpu_ms"][t].as_f64().unwrap() > 0.0, "{name} {t}");
            let ratio = r["max_err_over_bound"][t].as_f64().unwrap();
            assert!(
                (0.0..=1.0).contains(&ratio),
                "{name} {t}: err/bound {ratio}"
            );
            let rel = r["max_rel_error"][t].as_f64().unwrap();
            assert!((0.0..1e-12).contains(&rel), "{name} {t}: rel err {rel}");
            assert_eq!(r["bound_entries"][t], 40, "{name} {t}: all rows at n = 40");
        }
        let rns = r["format"].as_str().unwrap().starts_with("RNS");
        assert_eq!(r["paper_gtx1080_ms"].is_object(), rns, "{name}");
        assert!(r["gpu"].is_null(), "{name}: no --gpu");
        if rns {
            let bits = r["requested_bits"].as_u64().unwrap();
            assert!(r["precision_bits"].as_u64().unwrap() >= bits, "{name}");
        }
    }
    // f64 rounds; RNS from 424 bits on holds these sums exactly.
    assert!(rows[0]["max_rel_error"]["N"].as_f64().unwrap() > 0.0);
    assert_eq!(rows[5]["max_rel_error"]["N"].as_f64(), Some(0.0));
    assert_eq!(rows[3]["paper_gtx1080_ms"]["N"].as_f64(), Some(3.1));
    assert_eq!(rows[7]["paper_gtx1080_ms"]["T"].as_f64(), Some(19.4));
    assert_eq!(rows[3]["mpres_h100_ms"].as_f64(), Some(352.0));
    assert_eq!(
        rows[GEMV_FORMATS.len() + 3]["mpres_h100_ms"].as_f64(),
        Some(0.26)
    );
    assert_eq!(rows[7]["mpres_h100_ms"], "did not build");
}

/// The text tables: the paper's layout (one column per precision) and one row per format and
/// input set.
#[test]
fn reproduce_gemv_text_tables() {
    let (code, stdout, stderr) = mpblas(&["reproduce", "gemv", "--n", "24", "--reps", "1"]);
    assert_eq!(code, 0, "{stderr}");
    for want in [
        "Table 5 as the paper lays it out",
        "Proposed implementation (paper, GTX 1080)",
        "MPRES-BLAS mp_gemv, H100, 53-bit inputs",
        "mpblas RNS, CPU, 26-bit inputs",
        "did not build",
        "(ours at n = 24",
        "GPU: not run",
    ] {
        assert!(stdout.contains(want), "lacks {want}: {stdout}");
    }
    let header = stdout
        .lines()
        .find(|l| l.starts_with("format "))
        .expect("the per-format table");
    let columns: Vec<&str> = header.split('|').map(str::trim).collect();
    assert_eq!(
        columns,
        [
            "format",
            "prec",
            "inputs",
            "CPU N ms",
            "CPU T ms",
            "paper N",
            "paper T",
            "MPRES H100",
            "calls N/T",
            "max rel err",
            "err/bound"
        ]
    );
    let rows: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("format "))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(rows.len(), 2 * GEMV_FORMATS.len(), "{stdout}");
    for (row, format) in rows.iter().zip(GEMV_FORMATS.iter().cycle()) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells.len(), columns.len(), "{row}");
        assert_eq!(cells[0], *format, "{row}");
    }
}

/// Flags `reproduce gemv` does not use are refused with a message, not ignored; `--gpu` without
/// a GPU is an error (with one: every row has the CPU's bits).
#[test]
fn reproduce_gemv_refuses_flags_it_does_not_use() {
    for args in [
        &["reproduce", "gemv", "--sizes", "100"][..],
        &["reproduce", "gemv", "--seeds", "3"],
        &["reproduce", "gemv", "--svg", "g.svg"],
        &["reproduce", "gemv", "--moduli", "16"],
        &["reproduce", "gemv", "--json-file", "g.json"],
        &["reproduce", "gemv", "--n", "0"],
        &["reproduce", "gemv", "--reps", "0"],
        &["reproduce", "gemv", "--max-seconds", "0"],
        &["reproduce", "gemv", "--threads", "0"],
        &["reproduce", "gemv", "--n", "18446744073709551615"],
        &["reproduce", "gemv", "--n", "4294967296"],
        &["reproduce", "gemv", "--n", "1000000"],
    ] {
        let (code, stdout, stderr) = mpblas(args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("mpblas: error:"), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
    }
    let (code, _, stderr) = mpblas(&["reproduce", "gemv", "--n", "ten"]);
    assert_eq!(code, 2, "usage errors exit 2: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    if mpblas::cuda::device_count().unwrap_or(0) > 0 {
        let v = json(&[
            "reproduce",
            "gemv",
            "--gpu",
            "--n",
            "40",
            "--reps",
            "2",
            "--json",
        ]);
        for r in v["rows"].as_array().unwrap() {
            for t in ["N", "T"] {
                assert_eq!(r["gpu"][t]["same_bits_as_cpu"], true, "{r}");
                assert!(r["gpu"][t]["ms"].as_f64().unwrap() > 0.0, "{r}");
            }
        }
        return;
    }
    let (code, stdout, stderr) = mpblas(&["reproduce", "gemv", "--gpu", "--n", "40"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.starts_with("mpblas: error: --gpu"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
}
