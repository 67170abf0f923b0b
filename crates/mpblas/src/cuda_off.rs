//! The CUDA backend, not built: the same public API as with the `cuda` feature, where every
//! call returns [`Error::CudaNotBuilt`] (and nothing panics). A [`Device`] cannot be created,
//! so the methods of `Device` and `DeviceVec` are unreachable.

use crate::error::{Error, Result};
use crate::{Dd, Qd, Scalar};
use std::marker::PhantomData;

#[path = "cuda/nvrtc.rs"]
pub mod nvrtc;

pub use nvrtc::ModuleSource;

/// The oldest driver API version the bindings need (`cuDriverGetVersion` encoding: 13.0).
pub const REQUIRED_DRIVER_VERSION: i32 = 13000;

/// Every kernel module of the library: none without the `cuda` feature.
pub fn modules() -> &'static [&'static ModuleSource] {
    &[]
}

/// Always false: the CUDA backend is not built.
pub fn driver_present() -> bool {
    false
}

/// Always false: the CUDA backend is not built.
pub fn cublas_present() -> bool {
    false
}

/// Always [`Error::CudaNotBuilt`].
pub fn device_count() -> Result<usize> {
    Err(Error::CudaNotBuilt)
}

/// Always [`Error::CudaNotBuilt`].
pub fn devices() -> Result<Vec<DeviceInfo>> {
    Err(Error::CudaNotBuilt)
}

/// What `mpblas info` shows about one GPU.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceInfo {
    /// The CUDA ordinal.
    pub ordinal: usize,
    /// The marketing name.
    pub name: String,
    /// Compute capability `(major, minor)`.
    pub compute_capability: (u32, u32),
    /// Total device memory in bytes.
    pub total_memory: usize,
    /// Number of streaming multiprocessors.
    pub multiprocessors: u32,
    /// The driver's CUDA version `(major, minor)`.
    pub driver_version: (i32, i32),
    /// NVRTC's version, if loadable.
    pub nvrtc_version: Option<(i32, i32)>,
    /// cuBLAS's version `(major, minor, patch)`, if loadable.
    pub cublas_version: Option<(i32, i32, i32)>,
}

impl DeviceInfo {
    /// The NVRTC architecture name of the device, e.g. `"sm_90"`.
    pub fn arch(&self) -> String {
        format!(
            "sm_{}{}",
            self.compute_capability.0, self.compute_capability.1
        )
    }
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "GPU {}: {} (CUDA backend not built)",
            self.ordinal, self.name
        )
    }
}

/// No value: a stub `Device` can never exist.
#[derive(Clone, Copy, Debug)]
enum Never {}

/// An open GPU (never, without the `cuda` feature).
#[derive(Clone, Debug)]
pub struct Device {
    never: Never,
}

impl Device {
    /// Always [`Error::CudaNotBuilt`].
    ///
    /// # Errors
    ///
    /// Always.
    pub fn open(_ordinal: usize) -> Result<Device> {
        Err(Error::CudaNotBuilt)
    }
    /// The device's information.
    pub fn info(&self) -> &DeviceInfo {
        match self.never {}
    }
    /// The CUDA ordinal.
    pub fn ordinal(&self) -> usize {
        match self.never {}
    }
    /// The architecture kernels are compiled for.
    pub fn arch(&self) -> &str {
        match self.never {}
    }
    /// Wait for the device's stream.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn synchronize(&self) -> Result<()> {
        match self.never {}
    }
    /// Free and total device memory.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn memory(&self) -> Result<(usize, usize)> {
        match self.never {}
    }
    /// GPU time of `work` in milliseconds.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn time_ms(&self, _work: impl FnOnce() -> Result<()>) -> Result<f32> {
        match self.never {}
    }
    /// Compile and load every kernel module.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn load_all_modules(&self) -> Result<()> {
        match self.never {}
    }
    /// A new vector holding `src` on this device.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn upload<T: DeviceScalar>(&self, _src: &[T]) -> Result<DeviceVec<T>> {
        match self.never {}
    }
    /// A new vector of `len` zeros on this device.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn zeros<T: DeviceScalar>(&self, _len: usize) -> Result<DeviceVec<T>> {
        match self.never {}
    }
    /// [`Device::upload`] for `f64`.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn upload_f64(&self, _src: &[f64]) -> Result<DeviceVec<f64>> {
        match self.never {}
    }
    /// [`Device::upload`] for double-doubles.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn upload_dd(&self, _src: &[Dd]) -> Result<DeviceDdVec> {
        match self.never {}
    }
    /// [`Device::upload`] for quad-doubles.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn upload_qd(&self, _src: &[Qd]) -> Result<DeviceQdVec> {
        match self.never {}
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for crate::Dd {}
    impl Sealed for crate::Qd {}
}

/// A scalar format that lives on the GPU as `WORDS` arrays of `f64`: `f64`, [`Dd`], [`Qd`].
pub trait DeviceScalar: Scalar + sealed::Sealed {
    /// The value whose words are `w[..Self::WORDS]`, taken as they are.
    fn from_words(w: &[f64; 4]) -> Self;
}
impl DeviceScalar for f64 {
    fn from_words(w: &[f64; 4]) -> Self {
        w[0]
    }
}
impl DeviceScalar for Dd {
    fn from_words(w: &[f64; 4]) -> Self {
        Dd { hi: w[0], lo: w[1] }
    }
}
impl DeviceScalar for Qd {
    fn from_words(w: &[f64; 4]) -> Self {
        Qd { c: *w }
    }
}

/// A vector of `T` on one GPU (never, without the `cuda` feature).
#[derive(Debug)]
pub struct DeviceVec<T: DeviceScalar> {
    never: Never,
    _format: PhantomData<T>,
}
/// A vector of double-doubles on the GPU.
pub type DeviceDdVec = DeviceVec<Dd>;
/// A vector of quad-doubles on the GPU.
pub type DeviceQdVec = DeviceVec<Qd>;

impl<T: DeviceScalar> DeviceVec<T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self.never {}
    }
    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        match self.never {}
    }
    /// The device the vector lives on.
    pub fn ordinal(&self) -> usize {
        match self.never {}
    }
    /// Copy `src` into this vector.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn copy_from_host(&mut self, _src: &[T]) -> Result<()> {
        match self.never {}
    }
    /// Copy the vector into `dst`.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn copy_to_host(&self, _dst: &mut [T]) -> Result<()> {
        match self.never {}
    }
    /// The vector's contents on the host.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn download(&self) -> Result<Vec<T>> {
        match self.never {}
    }
    /// Copy `src` into this vector, on the device.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn copy_from(&mut self, _src: &DeviceVec<T>) -> Result<()> {
        match self.never {}
    }
}

/// The stub element-wise operations of one format: every one returns
/// [`Error::CudaNotBuilt`].
macro_rules! elementwise_stub {
    ($modname:ident, $fmt:literal, $t:ty, $v:ty) => {
        #[doc = concat!("Element-wise ", $fmt, " kernels (not built: every call returns `Error::CudaNotBuilt`).")]
        pub mod $modname {
            use super::{Device, Error, Result};

            /// The kernel entry points (none without the `cuda` feature).
            pub const KERNELS: &[&str] = &[];

            /// `out[i] = x[i] + y[i]`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn add(_: &Device, _: &$v, _: &$v, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
            /// `out[i] = x[i] + s`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn add_scalar(_: &Device, _: &$v, _: $t, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
            /// `out[i] = x[i] − y[i]`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn sub(_: &Device, _: &$v, _: &$v, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
            /// `out[i] = x[i] − s`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn sub_scalar(_: &Device, _: &$v, _: $t, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
            /// `out[i] = x[i] × y[i]`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn mul(_: &Device, _: &$v, _: &$v, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
            /// `out[i] = x[i] × s`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn mul_scalar(_: &Device, _: &$v, _: $t, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
            /// `out[i] = x[i] ÷ y[i]`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn div(_: &Device, _: &$v, _: &$v, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
            /// `out[i] = x[i] ÷ s`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn div_scalar(_: &Device, _: &$v, _: $t, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
            /// `out[i] = √x[i]`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn sqrt(_: &Device, _: &$v, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
            /// `out[i] = exp(x[i])`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn exp(_: &Device, _: &$v, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
            /// `out[i] = ln(x[i])`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn ln(_: &Device, _: &$v, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
            /// `out[i] = sin(x[i])`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn sin(_: &Device, _: &$v, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
            /// `out[i] = cos(x[i])`.
            ///
            /// # Errors
            ///
            /// Always [`Error::CudaNotBuilt`].
            pub fn cos(_: &Device, _: &$v, _: &mut $v) -> Result<()> {
                Err(Error::CudaNotBuilt)
            }
        }
    };
}
elementwise_stub!(
    dd_elementwise,
    "double-double",
    crate::Dd,
    super::DeviceDdVec
);
elementwise_stub!(qd_elementwise, "quad-double", crate::Qd, super::DeviceQdVec);

/// Double-double kernels (not built).
pub mod dd {
    pub use super::dd_elementwise::*;
}
/// Quad-double kernels (not built).
pub mod qd {
    pub use super::qd_elementwise::*;
}

/// The Ozaki-scheme GEMMs on the GPU (not built: every call returns [`Error::CudaNotBuilt`]).
pub mod ozaki {
    use super::{Device, DeviceDdVec, DeviceVec};
    use crate::error::{Error, Result};
    use crate::ozaki::reproduce::Reproduction;
    use crate::ozaki::split::Split;
    use crate::ozaki::{Ozaki1Params, Ozaki2Params, SliceGemm, Trans};

    /// The kernel entry points (none without the `cuda` feature).
    pub const KERNELS: &[&str] = &[];

    /// `C ← α·op(A)·op(B) + β·C` by Ozaki scheme II on INT8 tensor cores.
    ///
    /// # Errors
    ///
    /// Always [`Error::CudaNotBuilt`].
    #[allow(clippy::too_many_arguments)]
    pub fn ozaki2_gemm(
        _dev: &Device,
        _transa: Trans,
        _transb: Trans,
        _m: usize,
        _n: usize,
        _k: usize,
        _alpha: f64,
        _a: &DeviceVec<f64>,
        _lda: usize,
        _b: &DeviceVec<f64>,
        _ldb: usize,
        _beta: f64,
        _c: &mut DeviceVec<f64>,
        _ldc: usize,
        _params: &Ozaki2Params,
    ) -> Result<()> {
        Err(Error::CudaNotBuilt)
    }

    /// `op(A)·op(B)` by scheme II as a double-double array.
    ///
    /// # Errors
    ///
    /// Always [`Error::CudaNotBuilt`].
    #[allow(clippy::too_many_arguments)]
    pub fn ozaki2_product(
        _dev: &Device,
        _transa: Trans,
        _transb: Trans,
        _m: usize,
        _n: usize,
        _k: usize,
        _a: &DeviceVec<f64>,
        _lda: usize,
        _b: &DeviceVec<f64>,
        _ldb: usize,
        _params: &Ozaki2Params,
    ) -> Result<DeviceDdVec> {
        Err(Error::CudaNotBuilt)
    }

    /// `C ← α·op(A)·op(B) + β·C` by cuBLAS DGEMM.
    ///
    /// # Errors
    ///
    /// Always [`Error::CudaNotBuilt`].
    #[allow(clippy::too_many_arguments)]
    pub fn dgemm(
        _dev: &Device,
        _transa: Trans,
        _transb: Trans,
        _m: usize,
        _n: usize,
        _k: usize,
        _alpha: f64,
        _a: &DeviceVec<f64>,
        _lda: usize,
        _b: &DeviceVec<f64>,
        _ldb: usize,
        _beta: f64,
        _c: &mut DeviceVec<f64>,
        _ldc: usize,
    ) -> Result<()> {
        Err(Error::CudaNotBuilt)
    }

    /// The device split of scheme I, downloaded.
    ///
    /// # Errors
    ///
    /// Always [`Error::CudaNotBuilt`].
    pub fn ozaki1_split(
        _dev: &Device,
        _x: &[f64],
        _len: usize,
        _count: usize,
        _slices: usize,
        _prec: SliceGemm,
        _keep_remainders: bool,
    ) -> Result<Split> {
        Err(Error::CudaNotBuilt)
    }

    /// `C ← α·op(A)·op(B) + β·C` by Ozaki scheme I on the GPU.
    ///
    /// # Errors
    ///
    /// Always [`Error::CudaNotBuilt`].
    #[allow(clippy::too_many_arguments)]
    pub fn ozaki1_gemm(
        _dev: &Device,
        _transa: Trans,
        _transb: Trans,
        _m: usize,
        _n: usize,
        _k: usize,
        _alpha: f64,
        _a: &DeviceVec<f64>,
        _lda: usize,
        _b: &DeviceVec<f64>,
        _ldb: usize,
        _beta: f64,
        _c: &mut DeviceVec<f64>,
        _ldc: usize,
        _params: &Ozaki1Params,
    ) -> Result<()> {
        Err(Error::CudaNotBuilt)
    }

    /// The seed paper's Tables 2 and 3, and the scheme II columns for `moduli`, on the GPU.
    ///
    /// # Errors
    ///
    /// Always [`Error::CudaNotBuilt`].
    pub fn reproduce_gpu(
        _dev: &Device,
        _sizes: &[usize],
        _phis: &[f64],
        _seeds: &[u64],
        _moduli: &[usize],
    ) -> Result<Reproduction> {
        Err(Error::CudaNotBuilt)
    }
}

pub use ozaki::{dgemm, ozaki1_gemm, ozaki2_gemm};

/// RNS multiple precision on the GPU (not built: every call returns [`Error::CudaNotBuilt`];
/// a [`DeviceMpArray`](rns::DeviceMpArray) cannot be created, so its methods are unreachable).
pub mod rns {
    use super::{Device, Never};
    use crate::error::{Error, Result};
    use crate::rns::{Basis, MpArray};
    use std::sync::Arc;

    /// Largest number of moduli the GPU kernels would handle: bases up to about 1980 bits.
    pub const MAX_MODULI: usize = 128;

    /// An array of RNS numbers on one GPU (never, without the `cuda` feature).
    #[derive(Debug)]
    pub struct DeviceMpArray {
        never: Never,
    }

    impl DeviceMpArray {
        /// `len` zeros of `basis` on `dev`.
        ///
        /// # Errors
        ///
        /// Always [`Error::CudaNotBuilt`].
        pub fn zeros(_dev: &Device, _basis: &Arc<Basis>, _len: usize) -> Result<DeviceMpArray> {
            Err(Error::CudaNotBuilt)
        }
        /// A new device array holding `src`.
        ///
        /// # Errors
        ///
        /// Always [`Error::CudaNotBuilt`].
        pub fn upload(_dev: &Device, _src: &MpArray) -> Result<DeviceMpArray> {
            Err(Error::CudaNotBuilt)
        }
        /// The number of elements.
        pub fn len(&self) -> usize {
            match self.never {}
        }
        /// True if there are no elements.
        pub fn is_empty(&self) -> bool {
            match self.never {}
        }
        /// The basis of every element.
        pub fn basis(&self) -> &Arc<Basis> {
            match self.never {}
        }
        /// The CUDA ordinal of the device the array lives on.
        pub fn ordinal(&self) -> usize {
            match self.never {}
        }
        /// Pretend the array lives on device `ordinal`.
        #[doc(hidden)]
        pub fn set_ordinal_for_tests(&mut self, _ordinal: usize) {
            match self.never {}
        }
        /// Copy `src` into this array.
        ///
        /// # Errors
        ///
        /// Unreachable.
        pub fn copy_from_host(&mut self, _src: &MpArray) -> Result<()> {
            match self.never {}
        }
        /// Copy the array into `dst`.
        ///
        /// # Errors
        ///
        /// Unreachable.
        pub fn copy_to_host(&self, _dst: &mut MpArray) -> Result<()> {
            match self.never {}
        }
        /// The array's contents on the host.
        ///
        /// # Errors
        ///
        /// Unreachable.
        pub fn download(&self) -> Result<MpArray> {
            match self.never {}
        }
    }

    /// `out[i] = x[i] + y[i]`.
    ///
    /// # Errors
    ///
    /// Always [`Error::CudaNotBuilt`].
    pub fn add(
        _dev: &Device,
        _x: &DeviceMpArray,
        _y: &DeviceMpArray,
        _out: &mut DeviceMpArray,
    ) -> Result<()> {
        Err(Error::CudaNotBuilt)
    }
    /// `out[i] = x[i] − y[i]`.
    ///
    /// # Errors
    ///
    /// Always [`Error::CudaNotBuilt`].
    pub fn sub(
        _dev: &Device,
        _x: &DeviceMpArray,
        _y: &DeviceMpArray,
        _out: &mut DeviceMpArray,
    ) -> Result<()> {
        Err(Error::CudaNotBuilt)
    }
    /// `out[i] = x[i] × y[i]`.
    ///
    /// # Errors
    ///
    /// Always [`Error::CudaNotBuilt`].
    pub fn mul(
        _dev: &Device,
        _x: &DeviceMpArray,
        _y: &DeviceMpArray,
        _out: &mut DeviceMpArray,
    ) -> Result<()> {
        Err(Error::CudaNotBuilt)
    }
    /// `out[i] = x[i] ÷ y[i]`.
    ///
    /// # Errors
    ///
    /// Always [`Error::CudaNotBuilt`].
    pub fn div(
        _dev: &Device,
        _x: &DeviceMpArray,
        _y: &DeviceMpArray,
        _out: &mut DeviceMpArray,
    ) -> Result<()> {
        Err(Error::CudaNotBuilt)
    }
    /// `out[i] = √x[i]`.
    ///
    /// # Errors
    ///
    /// Always [`Error::CudaNotBuilt`].
    pub fn sqrt(_dev: &Device, _x: &DeviceMpArray, _out: &mut DeviceMpArray) -> Result<()> {
        Err(Error::CudaNotBuilt)
    }
}

/// The RNS kernel modules, by their public names (no entry points without the `cuda` feature).
macro_rules! kernel_list_stub {
    ($($modname:ident: $what:literal),* $(,)?) => {
        $(
            #[doc = concat!("Launcher of the RNS ", $what, " kernels (not built).")]
            pub mod $modname {
                /// The kernel entry points (none without the `cuda` feature).
                pub const KERNELS: &[&str] = &[];
            }
        )*
    };
}
kernel_list_stub!(
    rns_esi: "signs, exponents and evaluations",
    rns_digits: "residue",
    rns_round: "rounding",
    rns_divsqrt: "division and square root",
);

impl Device {
    /// [`rns::DeviceMpArray::upload`] on this device.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn upload_mp(&self, _src: &crate::rns::MpArray) -> Result<rns::DeviceMpArray> {
        match self.never {}
    }
    /// Drop the workspaces and handles kept on this device between calls.
    ///
    /// # Errors
    ///
    /// Unreachable.
    pub fn release_workspaces(&self) -> Result<()> {
        match self.never {}
    }
}
