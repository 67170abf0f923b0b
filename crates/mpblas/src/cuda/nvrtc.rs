//! NVRTC: the one place where kernel compile options are set, the on-disk cache of compiled
//! modules, and the per-process memo that makes each module compile at most once.
//!
//! A module is one `<stem>.cu` file of a family or format folder with the `.cuh` headers it
//! includes pasted in (NVRTC has no file system here: the sources are embedded in the
//! library). The module names its headers itself ([`ModuleSource::headers`]), so this runtime
//! needs to know no kernel, header or family. It is compiled to a CUBIN for the device's own
//! architecture (`sm_XY`), so the driver loads it without a JIT step.
//!
//! # Cache
//!
//! Compiled images are kept in `$MPBLAS_CACHE_DIR`, else `$XDG_CACHE_HOME/mpblas`, else
//! `~/.cache/mpblas`, one file per module named `<stem>-<arch>-<key>.cubin`, where the key is a
//! 64-bit FNV-1a hash of the expanded source, the architecture, every compile option and the
//! NVRTC version. A cache that cannot be read or written is skipped silently (the module is
//! compiled in memory instead); a cached image that the driver rejects is recompiled.
//!
//! # Trying a kernel without a rebuild
//!
//! With `MPBLAS_KERNEL_SOURCE_DIR` set, a `<stem>.cu` or header file in that directory replaces
//! the embedded text of the same name (others stay embedded). It exists for tuning on a GPU
//! machine that has no Rust toolchain: ship an edited kernel file beside the built binaries.
//! The cache key covers the expanded text, so the edited module compiles (or is found) under
//! its own key and the embedded one stays cached.
//!
//! # Profiling by source line
//!
//! With `MPBLAS_NVRTC_LINEINFO=1` every module is compiled with line information
//! (`--generate-line-info`: a map from each instruction to its source lines and inlining sites
//! beside the same code generation, under its own cache key). `ncu`'s source page then names each
//! instruction's samples, and `scripts/ncu-lines.py` adds them up by source line.
//!
//! Without the `cuda` feature everything here still compiles; compiling returns
//! [`Error::CudaNotBuilt`].

use super::sys;
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// One kernel module: a CUDA C source beside its launcher and the entry points the launcher
/// uses. Every launcher file has one, named `MODULE`, whose `kernels` is its `KERNELS` table
/// (`tests/kernel_names.rs` checks both against the source).
#[derive(Debug)]
pub struct ModuleSource {
    /// The file stem, shared by the launcher (`<stem>.rs`) and the kernels (`<stem>.cu`) in
    /// one folder; unique in the library (it names the compiled module and its cache file).
    pub name: &'static str,
    /// The CUDA C source, as embedded (headers not yet pasted in: see [`expand`]).
    pub source: &'static str,
    /// Every header the source includes, directly or through another header.
    pub headers: &'static [&'static Header],
    /// The `extern "C" __global__` entry points the launcher calls.
    pub kernels: &'static [&'static str],
}

/// A CUDA C header a module may `#include "<name>"`: a device twin kept beside the Rust code
/// it mirrors (`eft.cuh` beside `eft.rs`, `dd/dd.cuh` beside `dd/arith.rs`, ...).
#[derive(Debug)]
pub struct Header {
    /// The name used in `#include "<name>"`.
    pub name: &'static str,
    /// The header's text.
    pub text: &'static str,
}

/// The NVRTC options every module is compiled with, for architecture `arch` (`"sm_90"`).
///
/// This is the only place options are chosen. The arithmetic must be IEEE-exact for the
/// error-free transformations: no contraction of `a*b + c` into an FMA (`--fmad=false`; the
/// kernels call `__fma_rn` where the CPU calls `f64::mul_add`), no flush of subnormals to zero,
/// correctly rounded division and square root. `MPBLAS_NVRTC_LINEINFO=1` adds line
/// information (the module's head).
pub fn options(arch: &str) -> Vec<String> {
    let line_info = std::env::var("MPBLAS_NVRTC_LINEINFO").is_ok_and(|v| v == "1");
    options_with(arch, line_info)
}

/// [`options`] with or without line information.
fn options_with(arch: &str, line_info: bool) -> Vec<String> {
    let mut o = vec![
        format!("--gpu-architecture={arch}"),
        "--fmad=false".to_string(),
        "--ftz=false".to_string(),
        "--prec-div=true".to_string(),
        "--prec-sqrt=true".to_string(),
        // `__int128` for the RNS kernels (harmless elsewhere).
        "--device-int128".to_string(),
        "--std=c++17".to_string(),
    ];
    if line_info {
        o.push("--generate-line-info".to_string());
    }
    o
}

/// `source` with every `#include "<header>"` of an embedded header replaced by the header's
/// text (each header once), with `#line` markers so that NVRTC's log names the original file
/// and line.
pub fn expand(module: &ModuleSource) -> Result<String> {
    let dir = std::env::var_os("MPBLAS_KERNEL_SOURCE_DIR").filter(|v| !v.is_empty());
    expand_with(module, dir.map(PathBuf::from).as_deref())
}

/// [`expand`] with the files of `replacements` (if any) in place of the embedded texts of the
/// same names (see the module's head).
fn expand_with(module: &ModuleSource, replacements: Option<&Path>) -> Result<String> {
    let mut out = String::with_capacity(module.source.len() * 4);
    let mut seen = Vec::new();
    let file = format!("{}.cu", module.name);
    let source = replacement(replacements, &file);
    expand_into(
        module.name,
        module.headers,
        (&file, source.as_deref().unwrap_or(module.source)),
        replacements,
        &mut seen,
        &mut out,
    )?;
    Ok(out)
}

/// The text of `file` in `dir`, if it holds one; a file that cannot be read counts as absent.
fn replacement(dir: Option<&Path>, file: &str) -> Option<String> {
    std::fs::read_to_string(dir?.join(file)).ok()
}

fn expand_into(
    module: &'static str,
    headers: &[&Header],
    (file, text): (&str, &str),
    replacements: Option<&Path>,
    seen: &mut Vec<&'static str>,
    out: &mut String,
) -> Result<()> {
    out.push_str(&format!("#line 1 \"{file}\"\n"));
    for (n, line) in text.lines().enumerate() {
        let include = line
            .trim_start()
            .strip_prefix("#include")
            .map(|rest| rest.trim().trim_matches('"'));
        match include {
            Some(name) => {
                let Some(h) = headers.iter().find(|h| h.name == name) else {
                    return Err(Error::CudaCompile {
                        module,
                        arch: String::new(),
                        cause: "unknown header".to_string(),
                        log: format!(
                            "{file}:{}: {name:?} is not among the module's headers",
                            n + 1
                        ),
                    });
                };
                if !seen.contains(&h.name) {
                    seen.push(h.name);
                    let text = replacement(replacements, h.name);
                    let text = text.as_deref().unwrap_or(h.text);
                    expand_into(module, headers, (h.name, text), replacements, seen, out)?;
                }
                out.push_str(&format!("#line {} \"{file}\"\n", n + 2));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(())
}

/// 64-bit FNV-1a: a tiny, stable hash for cache keys (the same value on every run and every
/// machine, unlike a randomly keyed hasher).
struct Fnv1a(u64);

impl Fnv1a {
    fn new() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
    /// Hash `bytes` followed by a 0 separator (so that field boundaries are part of the key).
    fn field(&mut self, bytes: &[u8]) {
        for &b in bytes.iter().chain(std::iter::once(&0u8)) {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The cache key of a module: hash of (expanded source, architecture, options, NVRTC version).
pub fn cache_key(expanded: &str, arch: &str, options: &[String], nvrtc: (i32, i32)) -> u64 {
    let mut h = Fnv1a::new();
    h.field(b"mpblas-nvrtc-cubin-v1");
    h.field(expanded.as_bytes());
    h.field(arch.as_bytes());
    for o in options {
        h.field(o.as_bytes());
    }
    h.field(format!("{}.{}", nvrtc.0, nvrtc.1).as_bytes());
    h.0
}

/// The cache directory: `$MPBLAS_CACHE_DIR`, else `$XDG_CACHE_HOME/mpblas`, else
/// `$HOME/.cache/mpblas`; `None` if none of these is set.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("MPBLAS_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("mpblas"));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".cache").join("mpblas"))
}

/// True if `libnvrtc` can be loaded (always false without the `cuda` feature).
pub fn nvrtc_present() -> bool {
    sys::nvrtc_present()
}

/// The NVRTC version `(major, minor)`: [`Error::CudaLibraryMissing`] without `libnvrtc`,
/// [`Error::CudaNotBuilt`] without the `cuda` feature.
pub fn nvrtc_version() -> Result<(i32, i32)> {
    sys::nvrtc_version()
}

/// Compile `module` for `arch` to a CUBIN with NVRTC, in memory (no cache).
///
/// # Errors
/// [`Error::CudaCompile`] with NVRTC's log; [`Error::CudaLibraryMissing`] without NVRTC;
/// [`Error::CudaNotBuilt`] without the `cuda` feature.
pub fn compile(module: &ModuleSource, arch: &str) -> Result<Vec<u8>> {
    let expanded = expand(module)?;
    sys::nvrtc_compile(module.name, &expanded, arch, &options(arch))
}

/// Where an image came from: the disk cache can be stale or damaged, a fresh compile cannot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    Compiled,
    Cached,
}

type Memo = Mutex<HashMap<(&'static str, String), (Arc<Vec<u8>>, Origin)>>;

/// The compiled images of this process, by (module, architecture).
fn memo() -> &'static Memo {
    static MEMO: OnceLock<Memo> = OnceLock::new();
    MEMO.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The CUBIN of `module` for `arch`: from this process's memo, else the disk cache, else
/// NVRTC (and then stored in both). With `fresh`, the memo and the disk cache are bypassed
/// (and overwritten), for when the driver rejected a cached image.
pub(crate) fn image(
    module: &'static ModuleSource,
    arch: &str,
    fresh: bool,
) -> Result<(Arc<Vec<u8>>, Origin)> {
    let key = (module.name, arch.to_string());
    // A poisoned lock only means another thread panicked while compiling; the map is intact.
    let mut memo = memo().lock().unwrap_or_else(|e| e.into_inner());
    if !fresh && let Some(entry) = memo.get(&key) {
        return Ok(entry.clone());
    }
    let (img, origin) = cached_or_compiled(module, arch, fresh, cache_dir().as_deref())?;
    let entry = (Arc::new(img), origin);
    memo.insert(key, entry.clone());
    Ok(entry)
}

/// The CUBIN of `module` for `arch` from the cache directory `dir` if it holds one (and
/// not `fresh`), else compiled and stored there.
pub(crate) fn cached_or_compiled(
    module: &ModuleSource,
    arch: &str,
    fresh: bool,
    dir: Option<&std::path::Path>,
) -> Result<(Vec<u8>, Origin)> {
    cached_or_compiled_at(module, arch, fresh, dir).map(|(img, origin, _)| (img, origin))
}

/// [`cached_or_compiled`], with the cache file it read or wrote (`None` without `dir`).
fn cached_or_compiled_at(
    module: &ModuleSource,
    arch: &str,
    fresh: bool,
    dir: Option<&std::path::Path>,
) -> Result<(Vec<u8>, Origin, Option<PathBuf>)> {
    let expanded = expand(module)?;
    let opts = options(arch);
    let version = nvrtc_version()?;
    let file = dir.map(|dir| {
        let k = cache_key(&expanded, arch, &opts, version);
        cache_file(dir, module.name, arch, k)
    });
    if !fresh
        && let Some(bytes) = file.as_ref().and_then(|f| std::fs::read(f).ok())
        && !bytes.is_empty()
    {
        return Ok((bytes, Origin::Cached, file));
    }
    let img = sys::nvrtc_compile(module.name, &expanded, arch, &opts)?;
    if let Some(f) = &file {
        store(f, &img);
    }
    Ok((img, Origin::Compiled, file))
}

/// The cache file of module `name` for `arch` with key `key` in `dir`.
fn cache_file(dir: &std::path::Path, name: &str, arch: &str, key: u64) -> PathBuf {
    dir.join(format!("{name}-{arch}-{key:016x}.cubin"))
}

/// Compile `module` for `arch` into the cache directory `dir` (unless it is there already)
/// and return its cache file (`None` if it could not be written there): for filling a cache
/// on a machine without a GPU.
/// `scripts/gpu-check.sh` ships one for `sm_90` with its bundle, so that a fresh GPU machine
/// loads the modules instead of compiling them (minutes of device time).
///
/// # Errors
/// As [`compile`].
pub fn precompile(
    module: &ModuleSource,
    arch: &str,
    dir: &std::path::Path,
) -> Result<Option<PathBuf>> {
    let (img, _, file) = cached_or_compiled_at(module, arch, false, Some(dir))?;
    // (`store` ignores write failures: check that the file is there)
    Ok(file.filter(|f| std::fs::metadata(f).is_ok_and(|m| m.len() == img.len() as u64)))
}

/// Write `bytes` to `file` atomically (temporary file, then rename); failures are ignored, as
/// the cache is only an optimisation.
fn store(file: &std::path::Path, bytes: &[u8]) {
    let Some(dir) = file.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = file.with_extension(format!("tmp.{}", std::process::id()));
    if std::fs::write(&tmp, bytes).is_ok() && std::fs::rename(&tmp, file).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_reference_values() {
        // FNV-1a 64 of "" and "a" (published test vectors), before our 0 separator.
        let mut h = Fnv1a::new();
        assert_eq!(h.0, 0xcbf2_9ce4_8422_2325);
        for &b in b"a" {
            h.0 ^= u64::from(b);
            h.0 = h.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        assert_eq!(h.0, 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn cache_key_depends_on_every_input() {
        let o = options("sm_90");
        let k = cache_key("src", "sm_90", &o, (13, 0));
        assert_eq!(k, cache_key("src", "sm_90", &o, (13, 0)));
        assert_ne!(k, cache_key("src2", "sm_90", &o, (13, 0)));
        assert_ne!(k, cache_key("src", "sm_80", &o, (13, 0)));
        assert_ne!(k, cache_key("src", "sm_90", &o[1..], (13, 0)));
        assert_ne!(k, cache_key("src", "sm_90", &o, (13, 1)));
    }

    #[test]
    fn options_keep_ieee_semantics() {
        let o = options("sm_90");
        assert!(o.contains(&"--fmad=false".to_string()));
        assert!(o.contains(&"--ftz=false".to_string()));
        assert!(o.contains(&"--prec-div=true".to_string()));
        assert!(o.contains(&"--prec-sqrt=true".to_string()));
        assert!(o.contains(&"--gpu-architecture=sm_90".to_string()));
        assert!(!o.iter().any(|x| x.contains("fast-math")));
    }

    #[test]
    fn line_information_only_adds_its_option() {
        let (plain, lines) = (options_with("sm_90", false), options_with("sm_90", true));
        assert_eq!(&lines[..plain.len()], &plain[..]);
        assert_eq!(&lines[plain.len()..], &["--generate-line-info".to_string()]);
        assert!(!plain.iter().any(|x| x.contains("line-info")));
        assert_ne!(
            cache_key("src", "sm_90", &plain, (13, 0)),
            cache_key("src", "sm_90", &lines, (13, 0))
        );
    }

    /// A module of this runtime's own (the runtime knows no library module): a header that
    /// includes another, both included twice.
    static INNER: Header = Header {
        name: "inner.cuh",
        text: "#ifndef INNER\n#define INNER\n__device__ double twice(double x) { return 2.0 * x; }\n#endif\n",
    };
    static OUTER: Header = Header {
        name: "outer.cuh",
        text: "#include \"inner.cuh\"\n__device__ double four(double x) { return twice(twice(x)); }\n",
    };
    static PROBE: ModuleSource = ModuleSource {
        name: "nvrtc_probe",
        source: "#include \"outer.cuh\"\n#include \"inner.cuh\"\nextern \"C\" __global__ void nvrtc_probe_k(double *x) { x[0] = four(x[0]); }\n",
        headers: &[&INNER, &OUTER],
        kernels: &["nvrtc_probe_k"],
    };

    #[test]
    fn headers_are_pasted_once_with_line_markers() {
        let text = expand(&PROBE).expect("expand");
        assert!(!text.contains("#include"), "include left:\n{text}");
        assert_eq!(text.matches("#define INNER").count(), 1, "{text}");
        assert!(text.contains("#line 1 \"nvrtc_probe.cu\""));
        assert!(text.contains("#line 1 \"outer.cuh\""));
        // After a header, the line numbers of the including file resume.
        assert!(text.contains("#line 2 \"nvrtc_probe.cu\""), "{text}");
    }

    #[test]
    fn files_in_the_replacement_dir_take_the_embedded_texts_place() {
        let dir = std::env::temp_dir().join(format!("mpblas-replace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let inner = "__device__ double twice(double x) { return x + x; }\n";
        std::fs::write(dir.join("inner.cuh"), inner).expect("write");
        let text = expand_with(&PROBE, Some(&dir)).expect("expand");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(text.contains(inner), "{text}");
        assert!(!text.contains("#define INNER"), "{text}");
        // The files it does not hold stay embedded.
        assert!(text.contains("return twice(twice(x));"), "{text}");
        assert!(text.contains("nvrtc_probe_k"), "{text}");
        assert_eq!(
            expand_with(&PROBE, None).expect("expand"),
            expand(&PROBE).expect("expand")
        );
    }

    #[cfg(feature = "cuda")]
    #[test]
    #[ignore = "needs NVRTC (libnvrtc.so.13 on LD_LIBRARY_PATH): run scripts/gpu-check.sh"]
    fn disk_cache_round_trip_and_unwritable_dir() {
        assert!(nvrtc_present(), "NVRTC not found: set LD_LIBRARY_PATH");
        let m = &PROBE;
        let dir = std::env::temp_dir().join(format!("mpblas-cache-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (first, o1) = cached_or_compiled(m, "sm_90", false, Some(&dir)).expect("compile");
        assert_eq!(o1, Origin::Compiled);
        let (second, o2) = cached_or_compiled(m, "sm_90", false, Some(&dir)).expect("cached");
        assert_eq!(o2, Origin::Cached);
        assert_eq!(first, second);
        let files: Vec<_> = std::fs::read_dir(&dir).expect("cache dir").collect();
        assert_eq!(files.len(), 1, "one file, no temporaries left");
        let (_, o3) = cached_or_compiled(m, "sm_90", true, Some(&dir)).expect("fresh");
        assert_eq!(o3, Origin::Compiled);
        let _ = std::fs::remove_dir_all(&dir);
        // A directory that cannot be created: the compile still succeeds.
        let bad = std::path::Path::new("/proc/mpblas-cannot-create/cache");
        let (_, o4) = cached_or_compiled(m, "sm_90", false, Some(bad)).expect("uncached");
        assert_eq!(o4, Origin::Compiled);
    }
}
