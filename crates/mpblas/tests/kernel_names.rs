//! Host-only checks of the kernel tables (no GPU, no NVRTC): every name a launcher asks for is
//! defined in its source, every entry point of a source is in its launcher's table, and every
//! `.cu` file under `src/cuda/kernels/` is a registered module.
#![cfg(feature = "cuda")]

use mpblas::cuda;

/// The source with every `__launch_bounds__(…)` and the line break after it removed, so that
/// each entry point reads `extern "C" __global__ void name(`.
fn without_launch_bounds(source: &str) -> String {
    const LB: &str = "__launch_bounds__(";
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find(LB) {
        out.push_str(&rest[..at]);
        let after = &rest[at + LB.len()..];
        let close = after.find(')').expect("unclosed __launch_bounds__");
        rest = after[close + 1..].trim_start();
    }
    out.push_str(rest);
    out
}

/// The `extern "C" __global__` entry points defined in a kernel source.
fn entry_points(source: &str) -> Vec<String> {
    const MARK: &str = "extern \"C\" __global__ void ";
    let source = without_launch_bounds(source);
    source
        .match_indices(MARK)
        .filter_map(|(at, _)| {
            let rest = &source[at + MARK.len()..];
            rest.find('(').map(|end| rest[..end].trim().to_string())
        })
        .collect()
}

#[test]
fn every_kernel_name_is_defined_in_its_source() {
    for m in cuda::modules() {
        assert!(!m.kernels.is_empty(), "{}: empty KERNELS table", m.name);
        for k in m.kernels {
            let decl = format!("extern \"C\" __global__ void {k}(");
            assert!(
                without_launch_bounds(m.source).contains(&decl),
                "{}: KERNELS names {k:?} but kernels/{}.cu has no `{decl}`",
                m.name,
                m.name
            );
        }
    }
}

#[test]
fn every_entry_point_is_in_its_table() {
    for m in cuda::modules() {
        for e in entry_points(m.source) {
            assert!(
                m.kernels.contains(&e.as_str()),
                "kernels/{}.cu defines {e:?}, missing from its KERNELS table",
                m.name
            );
        }
    }
}

#[test]
fn kernel_names_are_unique_and_follow_the_scheme() {
    let mut seen = std::collections::HashSet::new();
    for m in cuda::modules() {
        let format = m.name.split('_').next().unwrap_or_default();
        for k in m.kernels {
            assert!(seen.insert(*k), "kernel {k:?} defined twice");
            let parts: Vec<&str> = k.split('_').collect();
            assert!(
                parts.len() >= 3 && parts[0] == format,
                "{k:?} is not <format>_<routine>_<variant> with format {format:?}"
            );
        }
    }
}

#[test]
fn launcher_tables_are_registered() {
    let names: Vec<&str> = cuda::modules().iter().map(|m| m.name).collect();
    assert_eq!(
        cuda::modules()
            .iter()
            .find(|m| m.name == "dd_elementwise")
            .map(|m| m.kernels),
        Some(cuda::dd::KERNELS),
        "{names:?}"
    );
    assert_eq!(
        cuda::modules()
            .iter()
            .find(|m| m.name == "qd_elementwise")
            .map(|m| m.kernels),
        Some(cuda::qd::KERNELS),
        "{names:?}"
    );
    for (name, table) in [
        ("dd_func", cuda::dd_func::KERNELS),
        ("qd_func", cuda::qd_func::KERNELS),
        ("rns_esi", cuda::rns_esi::KERNELS),
        ("rns_digits", cuda::rns_digits::KERNELS),
        ("rns_round", cuda::rns_round::KERNELS),
        ("rns_divsqrt", cuda::rns_divsqrt::KERNELS),
    ] {
        assert_eq!(
            cuda::modules()
                .iter()
                .find(|m| m.name == name)
                .map(|m| m.kernels),
            Some(table),
            "{names:?}"
        );
    }
}

#[test]
fn every_cu_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cuda/kernels");
    let mut found = 0;
    for entry in std::fs::read_dir(&dir).expect("kernels dir") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "cu") {
            found += 1;
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let m = cuda::modules().iter().find(|m| m.name == stem);
            let m = m.unwrap_or_else(|| panic!("{} is not in cuda::modules()", path.display()));
            let on_disk = std::fs::read_to_string(&path).expect("read");
            assert_eq!(
                m.source, on_disk,
                "{stem}: embedded source differs from the file"
            );
        }
    }
    assert_eq!(found, cuda::modules().len(), "modules without a .cu file");
}
