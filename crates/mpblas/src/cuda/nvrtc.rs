//! NVRTC: the one place where kernel compile options are set, the on-disk cache of compiled
//! modules, and the per-process memo that makes each module compile at most once.
//!
//! A module is one `kernels/<stem>.cu` file with the `.cuh` headers it includes pasted in
//! (NVRTC has no file system here: the sources are embedded in the library). It is compiled
//! to a CUBIN for the device's own architecture (`sm_XY`), so the driver loads it without a
//! JIT step.
//!
//! # Cache
//!
//! Compiled images are kept in `$MPBLAS_CACHE_DIR`, else `$XDG_CACHE_HOME/mpblas`, else
//! `~/.cache/mpblas`, one file per module named `<stem>-<arch>-<key>.cubin`, where the key is a
//! 64-bit FNV-1a hash of the expanded source, the architecture, every compile option and the
//! NVRTC version. A cache that cannot be read or written is skipped silently (the module is
//! compiled in memory instead); a cached image that the driver rejects is recompiled.

//!
//! This file is also the `nvrtc` module of the stub backend (`cuda_off.rs`) when the `cuda`
//! feature is off: the pure parts (options, source expansion, cache naming) are the same there,
//! and everything that would call NVRTC returns [`Error::CudaNotBuilt`].

use crate::error::{Error, Result};
use std::path::PathBuf;

/// One kernel module: a CUDA C source in `cuda/kernels/` and the entry points its launcher
/// uses. Every launcher file has one, named `MODULE`, whose `kernels` is its `KERNELS` table.
#[derive(Debug)]
pub struct ModuleSource {
    /// The file stem, shared by the launcher (`cuda/<name>.rs`) and the kernels
    /// (`cuda/kernels/<name>.cu`).
    pub name: &'static str,
    /// The CUDA C source, as embedded (headers not yet pasted in: see [`expand`]).
    pub source: &'static str,
    /// The `extern "C" __global__` entry points the launcher calls.
    pub kernels: &'static [&'static str],
}

/// The embedded headers that kernel sources may `#include "<name>"`.
const HEADERS: &[(&str, &str)] = &[
    ("eft.cuh", include_str!("kernels/eft.cuh")),
    ("dd.cuh", include_str!("kernels/dd.cuh")),
    ("qd.cuh", include_str!("kernels/qd.cuh")),
    ("func_tables.cuh", include_str!("kernels/func_tables.cuh")),
    ("reduce.cuh", include_str!("kernels/reduce.cuh")),
    ("func_common.cuh", include_str!("kernels/func_common.cuh")),
    ("dd_func.cuh", include_str!("kernels/dd_func.cuh")),
    ("qd_func.cuh", include_str!("kernels/qd_func.cuh")),
    ("rns.cuh", include_str!("kernels/rns.cuh")),
];

/// The NVRTC options every module is compiled with, for architecture `arch` (`"sm_90"`).
///
/// This is the only place options are chosen. The arithmetic must be IEEE-exact for the
/// error-free transformations: no contraction of `a*b + c` into an FMA (`--fmad=false`; the
/// kernels call `__fma_rn` where the CPU calls `f64::mul_add`), no flush of subnormals to zero,
/// correctly rounded division and square root.
pub fn options(arch: &str) -> Vec<String> {
    vec![
        format!("--gpu-architecture={arch}"),
        "--fmad=false".to_string(),
        "--ftz=false".to_string(),
        "--prec-div=true".to_string(),
        "--prec-sqrt=true".to_string(),
        // `__int128` for the RNS kernels (harmless elsewhere).
        "--device-int128".to_string(),
        "--std=c++17".to_string(),
    ]
}

/// `source` with every `#include "<header>"` of an embedded header replaced by the header's
/// text (each header once), with `#line` markers so that NVRTC's log names the original file
/// and line.
pub fn expand(module: &ModuleSource) -> Result<String> {
    let mut out = String::with_capacity(module.source.len() * 4);
    let mut seen = Vec::new();
    let file = format!("{}.cu", module.name);
    expand_into(module.name, &file, module.source, &mut seen, &mut out)?;
    Ok(out)
}

fn expand_into(
    module: &'static str,
    file: &str,
    text: &str,
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
                let Some(&(hname, htext)) = HEADERS.iter().find(|(h, _)| *h == name) else {
                    return Err(Error::CudaCompile {
                        module,
                        arch: String::new(),
                        cause: "unknown header".to_string(),
                        log: format!("{file}:{}: no embedded header {name:?}", n + 1),
                    });
                };
                if !seen.contains(&hname) {
                    seen.push(hname);
                    expand_into(module, hname, htext, seen, out)?;
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

#[cfg(not(feature = "cuda"))]
mod backend {
    use super::*;

    /// Always false: the CUDA backend is not built.
    pub fn nvrtc_present() -> bool {
        false
    }

    /// Always [`Error::CudaNotBuilt`].
    pub fn nvrtc_version() -> Result<(i32, i32)> {
        Err(Error::CudaNotBuilt)
    }

    /// Always [`Error::CudaNotBuilt`].
    pub fn compile(_module: &ModuleSource, _arch: &str) -> Result<Vec<u8>> {
        Err(Error::CudaNotBuilt)
    }
}

#[cfg(feature = "cuda")]
mod backend {
    use super::*;
    use crate::cuda::driver_cause;
    use cudarc::nvrtc::{result as nvrtc_result, sys as nvrtc_sys};
    use std::collections::HashMap;
    use std::ffi::{CStr, CString};
    use std::sync::{Arc, Mutex, OnceLock};

    /// True if `libnvrtc` can be loaded.
    pub fn nvrtc_present() -> bool {
        static PRESENT: OnceLock<bool> = OnceLock::new();
        // SAFETY: `is_culib_present` only tries to open the library by its candidate names with
        // libloading and drops it again; it has no other side effect and cannot panic.
        *PRESENT.get_or_init(|| unsafe { nvrtc_sys::is_culib_present() })
    }

    /// The NVRTC version `(major, minor)`, or [`Error::CudaLibraryMissing`] without `libnvrtc`.
    pub fn nvrtc_version() -> Result<(i32, i32)> {
        if !nvrtc_present() {
            return Err(Error::CudaLibraryMissing { library: "nvrtc" });
        }
        let (mut major, mut minor) = (0, 0);
        // SAFETY: the library is present (checked above), and nvrtcVersion writes two ints through
        // the pointers, which point to live locals.
        let status = unsafe { nvrtc_sys::nvrtcVersion(&mut major, &mut minor) };
        status.result().map_err(|e| Error::CudaCompile {
            module: "(version query)",
            arch: String::new(),
            cause: format!("{:?}", e.0),
            log: String::new(),
        })?;
        Ok((major, minor))
    }

    /// Compile `module` for `arch` to a CUBIN with NVRTC, in memory (no cache).
    pub fn compile(module: &ModuleSource, arch: &str) -> Result<Vec<u8>> {
        let expanded = expand(module)?;
        compile_expanded(module.name, &expanded, arch, &options(arch))
    }

    /// Destroys an NVRTC program when dropped, so that every exit path releases it.
    struct Program(nvrtc_sys::nvrtcProgram);

    impl Drop for Program {
        fn drop(&mut self) {
            // SAFETY: the program was created by `create_program` and is destroyed only here.
            // A failure to destroy cannot be reported from a drop and only leaks host memory.
            let _ = unsafe { nvrtc_result::destroy_program(self.0) };
        }
    }

    fn compile_expanded(
        module: &'static str,
        expanded: &str,
        arch: &str,
        options: &[String],
    ) -> Result<Vec<u8>> {
        if !nvrtc_present() {
            return Err(Error::CudaLibraryMissing { library: "nvrtc" });
        }
        let fail = |cause: String, log: String| Error::CudaCompile {
            module,
            arch: arch.to_string(),
            cause,
            log,
        };
        let src = CString::new(expanded)
            .map_err(|_| fail("source contains a NUL byte".into(), String::new()))?;
        let name = CString::new(format!("{module}.cu"))
            .map_err(|_| fail("module name contains a NUL byte".into(), String::new()))?;
        let prog = nvrtc_result::create_program(&src, Some(&name))
            .map(Program)
            .map_err(|e| fail(format!("nvrtcCreateProgram: {:?}", e.0), String::new()))?;
        // SAFETY: `prog` is a live program (created above, destroyed when `prog` drops); the
        // options are NUL-free ASCII strings (built by `options`).
        let compiled = unsafe { nvrtc_result::compile_program(prog.0, options) };
        if let Err(e) = compiled {
            // SAFETY: as above; the log is a NUL-terminated buffer owned by the returned Vec.
            let log = unsafe { nvrtc_result::get_program_log(prog.0) }
                .map(|raw| {
                    let bytes: Vec<u8> = raw.iter().map(|&c| c as u8).collect();
                    CStr::from_bytes_until_nul(&bytes)
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default()
                })
                .unwrap_or_default();
            return Err(fail(format!("{:?}", e.0), log));
        }
        let mut size = 0usize;
        // SAFETY: `prog` compiled successfully for a real architecture (`sm_XY`), so it holds a
        // CUBIN; the size is written through a pointer to a live local.
        unsafe { nvrtc_sys::nvrtcGetCUBINSize(prog.0, &mut size) }
            .result()
            .map_err(|e| fail(format!("nvrtcGetCUBINSize: {:?}", e.0), String::new()))?;
        let mut image = vec![0u8; size];
        // SAFETY: `image` has exactly the `size` bytes NVRTC asked for.
        unsafe { nvrtc_sys::nvrtcGetCUBIN(prog.0, image.as_mut_ptr().cast()) }
            .result()
            .map_err(|e| fail(format!("nvrtcGetCUBIN: {:?}", e.0), String::new()))?;
        if image.is_empty() {
            return Err(fail(
                format!("no CUBIN produced (is {arch} a real architecture?)"),
                String::new(),
            ));
        }
        Ok(image)
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
        module: &ModuleSource,
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
        let expanded = expand(module)?;
        let opts = options(arch);
        let version = nvrtc_version()?;
        let file = dir.map(|dir| {
            let k = cache_key(&expanded, arch, &opts, version);
            dir.join(format!("{}-{arch}-{k:016x}.cubin", module.name))
        });
        if !fresh
            && let Some(bytes) = file.as_ref().and_then(|f| std::fs::read(f).ok())
            && !bytes.is_empty()
        {
            return Ok((bytes, Origin::Cached));
        }
        let img = compile_expanded(module.name, &expanded, arch, &opts)?;
        if let Some(f) = &file {
            store(f, &img);
        }
        Ok((img, Origin::Compiled))
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

    /// The error for a module image that the driver would not load.
    pub(crate) fn load_error(module: &'static str, e: &cudarc::driver::DriverError) -> Error {
        Error::CudaLaunch {
            kernel: module,
            cause: format!("loading the module failed: {}", driver_cause(e)),
        }
    }
}

#[cfg(feature = "cuda")]
pub(crate) use backend::{Origin, image, load_error};
pub use backend::{compile, nvrtc_present, nvrtc_version};

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
    fn headers_are_pasted_once_with_line_markers() {
        for m in crate::cuda::modules() {
            let text = expand(m).expect("expand");
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

    #[cfg(feature = "cuda")]
    #[test]
    #[ignore = "needs NVRTC (libnvrtc.so.13 on LD_LIBRARY_PATH): run scripts/gpu-check.sh"]
    fn disk_cache_round_trip_and_unwritable_dir() {
        use backend::{Origin, cached_or_compiled};
        assert!(nvrtc_present(), "NVRTC not found: set LD_LIBRARY_PATH");
        let m = crate::cuda::modules()[0];
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
