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
        &["bench", "--threads", "0"],
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
    assert_eq!(names, ["ozaki", "qd", "rns"]);
    assert_eq!(papers["ozaki"]["paper"], "ozaki");
    for flag in [["--sizes", "64"], ["--moduli", "16"], ["--seeds", "1"]] {
        let (code, _, stderr) = mpblas(&["reproduce", flag[0], flag[1]]);
        assert_eq!(code, 1, "{flag:?}");
        assert!(stderr.contains("reproduce ozaki"), "{stderr}");
    }
}
