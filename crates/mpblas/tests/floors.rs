//! The house's floors (the table in `src/lib.rs`) hold: every `crate::` path in a module's
//! code names a module on its own floor or below, and the imports between modules have no
//! cycle. Doc comments and comments are not imports and are skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The floor of each module, from the table in lib.rs's docs (`top` is `lib`).
fn floors() -> BTreeMap<String, usize> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs");
    let mut out = BTreeMap::new();
    for line in lib.lines() {
        let cells: Vec<&str> = line.trim_start_matches("//!").split('|').collect();
        if cells.len() < 4 {
            continue;
        }
        let floor = cells[1].trim();
        let level = match floor {
            "top" => usize::MAX,
            f => match f.parse() {
                Ok(n) => n,
                Err(_) => continue,
            },
        };
        for m in cells[2].split(',') {
            let m = m.trim().trim_matches('`').trim_end_matches(".rs");
            if !m.is_empty() {
                out.insert(m.to_string(), level);
            }
        }
    }
    out
}

/// The top-level modules and their source files.
fn modules() -> BTreeMap<String, Vec<PathBuf>> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("read dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(src()).expect("src") {
        let p = e.expect("entry").path();
        let name = p.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        if p.is_dir() {
            // `m.rs` and its submodules in `m/` are one module.
            walk(&p, out.entry(name.to_string()).or_default());
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.entry(name.to_string()).or_default().push(p);
        }
    }
    out
}

/// The modules a file's code refers to through `crate::` (items re-exported at the root are
/// mapped to their modules).
fn references(file: &Path) -> BTreeSet<String> {
    let alias = |n: &str| -> String {
        match n {
            "Dd" => "dd",
            "Qd" => "qd",
            "Error" | "Result" | "ParseError" | "ParseErrorKind" => "error",
            "Scalar" => "scalar",
            "Trans" => "view",
            "kernel_modules" => "lib",
            other => other,
        }
        .to_string()
    };
    let text = std::fs::read_to_string(file).expect("read");
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or_default();
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            // `$crate::` inside macros names this crate too; other `xcrate::` do not occur.
            let after = &rest[at + "crate::".len()..];
            if let Some(group) = after.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    let head = item.trim().split("::").next().unwrap_or_default();
                    if !head.is_empty() {
                        out.insert(alias(head));
                    }
                }
            } else {
                let head: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !head.is_empty() {
                    out.insert(alias(&head));
                }
            }
            rest = after;
        }
    }
    out
}

#[test]
fn every_module_is_on_a_floor() {
    let floors = floors();
    for m in modules().keys() {
        assert!(
            floors.contains_key(m),
            "module `{m}` is on no floor: add it to the table in src/lib.rs"
        );
    }
}

#[test]
fn imports_point_down_and_have_no_cycle() {
    let floors = floors();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut ups = Vec::new();
    for (m, files) in modules() {
        let mine = floors[&m];
        for f in &files {
            for r in references(f) {
                if r == m || !floors.contains_key(&r) {
                    continue;
                }
                if floors[&r] > mine {
                    ups.push(format!(
                        "{} (floor {mine}) imports `{r}` (floor {})",
                        f.strip_prefix(src()).unwrap_or(f).display(),
                        floors[&r]
                    ));
                }
                graph.entry(m.clone()).or_default().insert(r);
            }
        }
    }
    assert!(ups.is_empty(), "imports that go up:\n{}", ups.join("\n"));
    // Depth-first search for a cycle, reporting its path.
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(1) => {
                let start = path.iter().position(|p| p == n).unwrap_or(0);
                let mut cycle = path[start..].to_vec();
                cycle.push(n.to_string());
                return Some(cycle);
            }
            Some(2) => return None,
            _ => {}
        }
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for next in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(next, g, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if let Some(c) = visit(n, &graph, &mut state, &mut Vec::new()) {
            panic!("import cycle: {}", c.join(" -> "));
        }
    }
}

/// The checker itself: an upward import and a cycle in a made-up house are caught.
#[test]
fn the_checker_sees_crate_paths() {
    let dir = std::env::temp_dir().join(format!("mpblas-floors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("x.rs");
    std::fs::write(
        &f,
        "use crate::{Dd, cuda::Device};\n/// [`crate::ozaki`] in a doc is no import\nfn f() { crate::eft::two_sum(1.0, 2.0); } // crate::rns\n",
    )
    .unwrap();
    let r = references(&f);
    let _ = std::fs::remove_dir_all(&dir);
    let want: BTreeSet<String> = ["dd", "cuda", "eft"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(r, want);
}
