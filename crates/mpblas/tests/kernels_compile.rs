//! Every kernel module compiles under NVRTC for sm_90 with the project's options
//! (`cuda::nvrtc::options`). Needs `libnvrtc` but no GPU: `scripts/gpu-check.sh` runs it on the
//! build machine (with NVRTC on `LD_LIBRARY_PATH`) and again on the GPU machine.
//!
//! With `MPBLAS_PRECOMPILE_DIR` set, the images go through that kernel cache directory
//! (`nvrtc::precompile`: modules already there are not compiled again) and the test writes
//! the list of the current modules' cache files to `<dir>/current.txt`: `gpu-check.sh` ships
//! those with its bundle, so that a fresh GPU machine loads the modules instead of compiling
//! them.
#![cfg(feature = "cuda")]

use mpblas::cuda::{self, nvrtc};

const NEEDS: &str = "NVRTC (libnvrtc.so.13) not found: put its directory on LD_LIBRARY_PATH";

#[test]
#[ignore = "needs NVRTC (libnvrtc.so.13 on LD_LIBRARY_PATH): run scripts/gpu-check.sh"]
fn every_module_compiles_for_sm_90() {
    assert!(nvrtc::nvrtc_present(), "{NEEDS}");
    let (major, minor) = nvrtc::nvrtc_version().expect("NVRTC version");
    eprintln!("NVRTC {major}.{minor}");
    let dir = std::env::var_os("MPBLAS_PRECOMPILE_DIR").map(std::path::PathBuf::from);
    let modules = mpblas::kernel_modules();
    // Two workers: NVRTC compiles one module on one thread.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let files = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&m) = modules.get(i) else { break };
                    let t = std::time::Instant::now();
                    let cubin = match &dir {
                        Some(dir) => {
                            let file = nvrtc::precompile(m, "sm_90", dir)
                                .unwrap_or_else(|e| panic!("{e}"))
                                .unwrap_or_else(|| panic!("{}: cache not written", m.name));
                            let bytes = std::fs::read(&file).expect("read the cache file");
                            files.lock().unwrap().push(file);
                            bytes
                        }
                        None => nvrtc::compile(m, "sm_90").unwrap_or_else(|e| panic!("{e}")),
                    };
                    eprintln!(
                        "{}: {} bytes of CUBIN in {:.1} s",
                        m.name,
                        cubin.len(),
                        t.elapsed().as_secs_f64()
                    );
                    // An ELF image.
                    assert_eq!(&cubin[..4], b"\x7fELF", "{}: not a CUBIN", m.name);
                }
            });
        }
    });
    if let Some(dir) = dir {
        let mut names: Vec<String> = files
            .into_inner()
            .unwrap()
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        names.sort();
        std::fs::write(dir.join("current.txt"), names.join("\n") + "\n").expect("write list");
    }
}

#[test]
#[ignore = "needs NVRTC (libnvrtc.so.13 on LD_LIBRARY_PATH): run scripts/gpu-check.sh"]
fn a_compile_error_carries_the_log() {
    assert!(nvrtc::nvrtc_present(), "{NEEDS}");
    static BROKEN: cuda::ModuleSource = cuda::ModuleSource {
        name: "broken",
        source: "extern \"C\" __global__ void broken_k(double *x) { x[0] = undefined_name; }\n",
        headers: &[],
        kernels: &["broken_k"],
    };
    match nvrtc::compile(&BROKEN, "sm_90") {
        Err(mpblas::Error::CudaCompile { module, log, .. }) => {
            assert_eq!(module, "broken");
            assert!(log.contains("undefined_name"), "log: {log}");
            // The #line markers make the log name the original file.
            assert!(log.contains("broken.cu"), "log: {log}");
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

#[test]
fn an_unknown_header_is_an_error_not_a_panic() {
    static BAD: cuda::ModuleSource = cuda::ModuleSource {
        name: "bad_include",
        source: "#include \"nonexistent.cuh\"\n",
        headers: &[],
        kernels: &[],
    };
    assert!(matches!(
        nvrtc::expand(&BAD),
        Err(mpblas::Error::CudaCompile { .. })
    ));
}
