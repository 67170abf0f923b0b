//! The GPU runtime: devices, device memory, NVRTC compilation with an on-disk cache, kernel
//! launches and cuBLAS, on which every GPU routine of the library is built. It knows no
//! algorithm and no number format: the formats (`dd`, `qd`, `rns`) and the algorithm families
//! (`ozaki`, ...) keep their kernels (`.cu`, `.cuh`) beside their CPU code and hand them to
//! this runtime as [`ModuleSource`]s, compiled on first use and cached per device.
//!
//! ```no_run
//! use mpblas::{Dd, cuda::Device};
//! # fn main() -> mpblas::Result<()> {
//! let dev = Device::open(0)?;
//! let x = dev.upload(&[Dd::from(1.0), Dd::from(2.0)])?;
//! let y = dev.upload(&[Dd::from(3.0), Dd::from(4.0)])?;
//! let mut z = dev.zeros::<Dd>(2)?;
//! mpblas::dd::gpu::div(&dev, &x, &y, &mut z)?;
//! assert_eq!(z.download()?, vec![Dd::from(1.0) / Dd::from(3.0), Dd::from(0.5)]);
//! # Ok(())
//! # }
//! ```
//!
//! # Conventions
//!
//! - CUDA is loaded at run time (the driver, NVRTC, and cuBLAS when a routine needs it), so
//!   nothing CUDA is needed to build; without a driver or GPU every entry point returns an
//!   [`Error`](crate::Error) and never panics. Without the `cuda` feature the same API exists
//!   and [`Device::open`] returns [`Error::CudaNotBuilt`](crate::Error::CudaNotBuilt).
//! - A [`Device`] owns one CUDA stream. Uploads, kernels and device-to-device copies are
//!   enqueued on it in call order and return before the GPU has finished; downloads wait.
//!   [`Device::synchronize`] waits for everything enqueued.
//! - Multi-word values are stored as structure of arrays ([`DeviceVec`]): one device array
//!   per word, so that a warp's loads are coalesced.
//! - Every operation checks that its operands live on its device and have matching lengths
//!   ([`Error::DeviceMismatch`](crate::Error::DeviceMismatch),
//!   [`Error::LengthMismatch`](crate::Error::LengthMismatch)) before anything is enqueued.
//! - Kernels are compiled by NVRTC for the device's own architecture on first use, with the
//!   options of [`nvrtc::options`], and cached on disk ([`nvrtc`] says where).
//! - GPU results equal CPU results bit for bit (every word of every element), except that the
//!   payload and sign of a NaN are not specified (as in Rust itself).
//!
//! Set `MPBLAS_CUDA_SYNC=1` to synchronise after every kernel launch, so that a fault is
//! reported as an error of the kernel that caused it rather than of a later call.
//!
//! # Layers
//!
//! | file | what |
//! |---|---|
//! | `sys.rs` | the driver layer: the only code that calls cudarc (`sys_off.rs` without the feature) |
//! | `device.rs` | [`Device`], [`DeviceInfo`], the per-device cache, launches |
//! | `memory.rs` | [`DeviceBuffer`], [`DeviceVec`], [`DeviceScalar`], scratch buffers |
//! | `nvrtc.rs` | compile options (the only place), header expansion, the disk cache |
//! | `launch.rs` | launch shapes and kernel arguments |
//! | `view.rs` | [`DeviceMatRef`], [`DeviceMatMut`]: matrix views of device vectors |
//! | `blas.rs`, `emulation.rs` | cuBLAS DGEMM/SGEMM and its FP64 emulation |

mod blas;
mod device;
pub mod emulation;
mod launch;
mod memory;
pub mod nvrtc;
#[cfg(feature = "cuda")]
mod sys;
#[cfg(not(feature = "cuda"))]
#[path = "sys_off.rs"]
mod sys;
#[cfg(all(test, feature = "cuda"))]
pub(crate) mod tables;
mod view;

pub use blas::{dasum, daxpy, ddot, dgemm, dgemm_blas, dgemv, dger, dnrm2, sgemm};
pub use device::{
    Device, DeviceInfo, REQUIRED_DRIVER_VERSION, cublas_present, device_count, devices,
    driver_present,
};
pub(crate) use launch::{Arg, LaunchConfig};
pub use memory::{DeviceBuffer, DevicePod, DeviceScalar, DeviceVec};
pub use nvrtc::{Header, ModuleSource};
pub use view::{DeviceMatMut, DeviceMatRef, DeviceVecMut, DeviceVecRef};

pub(crate) use device::check_len;
pub(crate) use launch::{args, blocks, launch_map};
pub(crate) use memory::{ScratchBuffer, download_raw, memset, sealed};
pub(crate) use sys::{Blas, Event, GemmType, Level1};
pub(crate) use view::col_major_ld;
