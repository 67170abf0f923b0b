//! Every kernel module compiles under NVRTC for sm_90 with the project's options
//! (`cuda::nvrtc::options`). Needs `libnvrtc` but no GPU: `scripts/gpu-check.sh` runs it on the
//! build machine (with NVRTC on `LD_LIBRARY_PATH`) and again on the GPU machine.
#![cfg(feature = "cuda")]

use mpblas::cuda::{self, nvrtc};

const NEEDS: &str = "NVRTC (libnvrtc.so.13) not found: put its directory on LD_LIBRARY_PATH";

#[test]
#[ignore = "needs NVRTC (libnvrtc.so.13 on LD_LIBRARY_PATH): run scripts/gpu-check.sh"]
fn every_module_compiles_for_sm_90() {
    assert!(nvrtc::nvrtc_present(), "{NEEDS}");
    let (major, minor) = nvrtc::nvrtc_version().expect("NVRTC version");
    eprintln!("NVRTC {major}.{minor}");
    for m in mpblas::kernel_modules() {
        let t = std::time::Instant::now();
        match nvrtc::compile(m, "sm_90") {
            Ok(cubin) => {
                eprintln!(
                    "{}: {} bytes of CUBIN in {:.1} s",
                    m.name,
                    cubin.len(),
                    t.elapsed().as_secs_f64()
                );
                // An ELF image.
                assert_eq!(&cubin[..4], b"\x7fELF", "{}: not a CUBIN", m.name);
            }
            Err(e) => panic!("{e}"),
        }
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
