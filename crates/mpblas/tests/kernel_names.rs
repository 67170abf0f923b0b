//! Host-only checks of the kernel tables (no GPU, no NVRTC): every name a launcher asks for is
//! defined in its source, every entry point of a source is in its launcher's table, every `.cu`
//! file under `src/` is a registered module beside its launcher, and every `.cuh` header is
//! declared by the modules that include it.

use mpblas::cuda;

/// The source with every `__launch_bounds__(…)` and `__maxnreg__(…)` and the line break after
/// it removed, so that each entry point reads `extern "C" __global__ void name(`.
fn without_launch_bounds(source: &str) -> String {
    let mut source = source.to_string();
    for bound in ["__launch_bounds__(", "__maxnreg__("] {
        let mut out = String::with_capacity(source.len());
        let mut rest = source.as_str();
        while let Some(at) = rest.find(bound) {
            out.push_str(&rest[..at]);
            let after = &rest[at + bound.len()..];
            let close = after.find(')').expect("unclosed bound");
            rest = after[close + 1..].trim_start();
        }
        out.push_str(rest);
        source = out;
    }
    source
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
    for m in mpblas::kernel_modules() {
        assert!(!m.kernels.is_empty(), "{}: empty KERNELS table", m.name);
        for k in m.kernels {
            let decl = format!("extern \"C\" __global__ void {k}(");
            assert!(
                without_launch_bounds(m.source).contains(&decl),
                "{}: KERNELS names {k:?} but {}.cu has no `{decl}`",
                m.name,
                m.name
            );
        }
    }
}

#[test]
fn every_entry_point_is_in_its_table() {
    for m in mpblas::kernel_modules() {
        for e in entry_points(m.source) {
            assert!(
                m.kernels.contains(&e.as_str()),
                "{}.cu defines {e:?}, missing from its KERNELS table",
                m.name
            );
        }
    }
}

#[test]
fn kernel_names_are_unique_and_follow_the_scheme() {
    let mut seen = std::collections::HashSet::new();
    for m in mpblas::kernel_modules() {
        // `<format or family>_..._gpu`: the kernels start with the module's first word.
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
fn module_names_are_unique() {
    let mut seen = std::collections::HashSet::new();
    for m in mpblas::kernel_modules() {
        assert!(seen.insert(m.name), "module {:?} listed twice", m.name);
    }
}

/// Every file under `src/` with extension `ext`.
fn sources(ext: &str) -> Vec<std::path::PathBuf> {
    fn walk(dir: &std::path::Path, ext: &str, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read src") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, ext, out);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        ext,
        &mut out,
    );
    out
}

fn stem(path: &std::path::Path) -> &str {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
}

/// Each kernel module sits beside its launcher: `<stem>.cu` and `<stem>.rs` in one folder, the
/// stem being the module's name, and the embedded source is the file.
#[test]
fn every_cu_file_is_a_module_beside_its_launcher() {
    let files = sources("cu");
    for path in &files {
        let name = stem(path);
        let m = mpblas::kernel_modules().iter().find(|m| m.name == name);
        let m =
            m.unwrap_or_else(|| panic!("{} is not in mpblas::kernel_modules()", path.display()));
        let on_disk = std::fs::read_to_string(path).expect("read");
        assert_eq!(
            m.source, on_disk,
            "{name}: embedded source differs from the file"
        );
        assert!(
            path.with_extension("rs").exists(),
            "{}: no launcher {name}.rs beside it",
            path.display()
        );
    }
    assert_eq!(
        files.len(),
        mpblas::kernel_modules().len(),
        "modules without a .cu file"
    );
}

/// Every `.cuh` header under `src/` is one that modules declare, embedded as it is on disk.
#[test]
fn every_header_is_declared_and_current() {
    let declared: Vec<&cuda::Header> = mpblas::kernel_modules()
        .iter()
        .flat_map(|m| m.headers.iter().copied())
        .collect();
    for path in sources("cuh") {
        let name = path
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let h = declared.iter().find(|h| h.name == name);
        let h = h.unwrap_or_else(|| panic!("{} is included by no module", path.display()));
        let on_disk = std::fs::read_to_string(&path).expect("read");
        assert_eq!(
            h.text, on_disk,
            "{name}: embedded header differs from the file"
        );
    }
}

/// Every module expands (all its includes are among its declared headers), each header once.
#[test]
fn every_module_expands_with_each_header_once() {
    for m in mpblas::kernel_modules() {
        let text = cuda::nvrtc::expand(m).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        assert!(!text.contains("#include"), "{}: include left", m.name);
        assert_eq!(
            text.matches("#define MPBLAS_EFT_CUH").count(),
            1,
            "{}",
            m.name
        );
        assert!(text.contains(&format!("#line 1 \"{}.cu\"", m.name)));
    }
}
