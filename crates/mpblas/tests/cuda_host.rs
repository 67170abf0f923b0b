//! The CUDA runtime on a machine without a GPU (the CI and build machine): every entry point
//! returns the right error and nothing panics. On a machine with a driver these tests check the
//! corresponding success paths instead, so they are meaningful in both places. Without the
//! `cuda` feature (`cargo test -p mpblas --no-default-features --test cuda_host`) the same API
//! exists and says `CudaNotBuilt`.

use mpblas::Error;
use mpblas::cuda::{self, Device};

#[cfg(not(feature = "cuda"))]
#[test]
fn without_the_feature_every_entry_point_is_not_built() {
    assert!(matches!(Device::open(0), Err(Error::CudaNotBuilt)));
    assert!(matches!(cuda::devices(), Err(Error::CudaNotBuilt)));
    assert!(matches!(cuda::device_count(), Err(Error::CudaNotBuilt)));
    assert!(!cuda::driver_present() && !cuda::cublas_present());
    assert!(!cuda::nvrtc::nvrtc_present());
    for m in mpblas::kernel_modules() {
        // The sources are still there (and expand), only the compiler is not.
        assert!(cuda::nvrtc::expand(m).is_ok(), "{}", m.name);
        assert!(matches!(
            cuda::nvrtc::compile(m, "sm_90"),
            Err(Error::CudaNotBuilt)
        ));
    }
}

#[cfg(feature = "cuda")]
#[test]
fn open_without_a_driver_is_a_no_driver_error() {
    if cuda::driver_present() {
        eprintln!("a CUDA driver is present: checking an absent ordinal instead");
        match Device::open(1_000) {
            Err(Error::CudaNoDevice { ordinal: 1_000, .. }) => {}
            other => panic!("expected CudaNoDevice, got {other:?}"),
        }
        return;
    }
    match Device::open(0) {
        Err(e @ Error::CudaNoDriver { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("libcuda"), "{msg}");
        }
        other => panic!("expected CudaNoDriver, got {other:?}"),
    }
    assert!(matches!(cuda::devices(), Err(Error::CudaNoDriver { .. })));
    assert!(matches!(
        cuda::device_count(),
        Err(Error::CudaNoDriver { .. })
    ));
}

#[test]
fn error_messages_name_what_went_wrong() {
    let e = Error::LengthMismatch {
        arg: "y",
        expected: 3,
        got: 4,
    };
    assert_eq!(e.to_string(), "length mismatch: y has length 4, expected 3");
    let e = Error::CudaLaunch {
        kernel: "dd_add_vv",
        cause: "CUDA_ERROR_LAUNCH_FAILED".into(),
    };
    assert!(e.to_string().contains("dd_add_vv"));
    let e = Error::CudaDriverTooOld {
        found: 12040,
        required: 13000,
    };
    assert!(e.to_string().contains("12.4"), "{e}");
    assert!(e.to_string().contains("13.0"), "{e}");
    let e = Error::CudaLibraryMissing { library: "nvrtc" };
    assert!(e.to_string().contains("libnvrtc"), "{e}");
}

#[test]
fn nvrtc_probe_does_not_panic() {
    // Present or not, the probe answers, and the version query agrees with it.
    let present = cuda::nvrtc::nvrtc_present();
    assert_eq!(cuda::nvrtc::nvrtc_version().is_ok(), present);
    let _ = cuda::cublas_present();
}
