//! The `cuda` module has one public API with and without the `cuda` feature: each GPU entry
//! point below must coerce to the same function-pointer type in both builds, so a signature
//! changed on one side only fails to compile here. Check the stub side with
//! `cargo test -p mpblas --no-default-features --test cuda_api`.

use mpblas::Result;
use mpblas::cuda::ozaki::{self, reproduce_gpu};
use mpblas::cuda::rns::{self, DeviceMpArray};
use mpblas::cuda::{Device, DeviceDdVec, DeviceVec};
use mpblas::ozaki::reproduce::Reproduction;
use mpblas::ozaki::split::Split;
use mpblas::ozaki::{Ozaki1Params, Ozaki2Params, SliceGemm, Trans};
use mpblas::rns::{Basis, MpArray};
use std::sync::Arc;

/// The shape of `dgemm`, and of the two scheme GEMMs before their parameters.
macro_rules! gemm_fn {
    ($($extra:ty),*) => {
        fn(
            &Device, Trans, Trans, usize, usize, usize, f64, &DeviceVec<f64>, usize,
            &DeviceVec<f64>, usize, f64, &mut DeviceVec<f64>, usize $(, $extra)*
        ) -> Result<()>
    };
}

type Product = fn(
    &Device,
    Trans,
    Trans,
    usize,
    usize,
    usize,
    &DeviceVec<f64>,
    usize,
    &DeviceVec<f64>,
    usize,
    &Ozaki2Params,
) -> Result<DeviceDdVec>;
type SplitFn = fn(&Device, &[f64], usize, usize, usize, SliceGemm, bool) -> Result<Split>;
type Repro = fn(&Device, &[usize], &[f64], &[u64], &[usize]) -> Result<Reproduction>;
type Binary = fn(&Device, &DeviceMpArray, &DeviceMpArray, &mut DeviceMpArray) -> Result<()>;
type Unary = fn(&Device, &DeviceMpArray, &mut DeviceMpArray) -> Result<()>;

#[test]
fn gpu_entry_points_have_one_signature() {
    let _: gemm_fn!() = ozaki::dgemm;
    let _: gemm_fn!() = mpblas::cuda::dgemm;
    let _: gemm_fn!(&Ozaki2Params) = ozaki::ozaki2_gemm;
    let _: gemm_fn!(&Ozaki2Params) = mpblas::cuda::ozaki2_gemm;
    let _: gemm_fn!(&Ozaki1Params) = ozaki::ozaki1_gemm;
    let _: gemm_fn!(&Ozaki1Params) = mpblas::cuda::ozaki1_gemm;
    let _: Product = ozaki::ozaki2_product;
    let _: SplitFn = ozaki::ozaki1_split;
    let _: Repro = reproduce_gpu;
    let _: [Binary; 4] = [rns::add, rns::sub, rns::mul, rns::div];
    let _: Unary = rns::sqrt;
    let _: fn(&Device, &Arc<Basis>, usize) -> Result<DeviceMpArray> = DeviceMpArray::zeros;
    let _: fn(&Device, &MpArray) -> Result<DeviceMpArray> = DeviceMpArray::upload;
    let _: fn(&Device, &MpArray) -> Result<DeviceMpArray> = Device::upload_mp;
    let _: fn(&Device) -> Result<()> = Device::release_workspaces;
    let _: fn(&DeviceMpArray) -> MpArray = |a| a.download().unwrap();
    assert_eq!(rns::MAX_MODULI, 128);
}

/// Without the feature no device opens, so none of the above can be reached.
#[cfg(not(feature = "cuda"))]
#[test]
fn nothing_opens_without_the_feature() {
    use mpblas::Error::CudaNotBuilt;
    assert!(matches!(Device::open(0), Err(CudaNotBuilt)));
    assert!(matches!(mpblas::cuda::device_count(), Err(CudaNotBuilt)));
}
