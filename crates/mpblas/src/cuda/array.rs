//! Device arrays: [`DeviceVec<T>`] for `f64`, [`Dd`] and [`Qd`], stored as structure of
//! arrays (one device array per word).
//!
//! Dropping a `DeviceVec` frees its device memory (asynchronously, on the stream that
//! allocated it, after the work that uses it).

use super::{Device, check_len, driver_cause};
use crate::error::{Error, Result};
use crate::{Dd, Qd, Scalar};
use cudarc::driver::{CudaSlice, DriverError, sys};
use std::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f64 {}
    impl Sealed for crate::Dd {}
    impl Sealed for crate::Qd {}
}

/// A scalar format that lives on the GPU as `WORDS` separate arrays of `f64`: `f64`, [`Dd`]
/// and [`Qd`]. Sealed: the kernels exist for these three only.
pub trait DeviceScalar: Scalar + sealed::Sealed {
    /// The value whose words (most significant first) are `w[..Self::WORDS]`, taken as they
    /// are (no normalisation: the transfer is bit-exact).
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

/// A vector of `T` on one GPU, one device array of `f64` per word of `T`.
pub struct DeviceVec<T: DeviceScalar> {
    /// `T::WORDS` arrays, most significant word first, each with `max(len, 1)` doubles.
    words: Vec<CudaSlice<f64>>,
    len: usize,
    ordinal: usize,
    _format: PhantomData<T>,
}

/// A vector of double-doubles on the GPU (two arrays: `hi`, `lo`).
pub type DeviceDdVec = DeviceVec<Dd>;
/// A vector of quad-doubles on the GPU (four arrays: `c[0]` … `c[3]`).
pub type DeviceQdVec = DeviceVec<Qd>;

impl<T: DeviceScalar> std::fmt::Debug for DeviceVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceVec")
            .field("format", &T::NAME)
            .field("len", &self.len)
            .field("device", &self.ordinal)
            .finish()
    }
}

/// An allocation error: out of memory is its own variant.
fn alloc_err(ordinal: usize, bytes: usize) -> impl Fn(DriverError) -> Error {
    move |e| match e.0 {
        sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY => Error::CudaOutOfMemory { ordinal, bytes },
        _ => Error::CudaDriver {
            op: "allocation",
            cause: driver_cause(&e),
        },
    }
}

fn copy_err(op: &'static str) -> impl Fn(DriverError) -> Error {
    move |e| Error::CudaDriver {
        op,
        cause: driver_cause(&e),
    }
}

impl<T: DeviceScalar> DeviceVec<T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The CUDA ordinal of the device the vector lives on.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Pretend the vector lives on device `ordinal` (to test the device checks on one GPU).
    #[cfg(test)]
    pub(crate) fn set_ordinal(&mut self, ordinal: usize) {
        self.ordinal = ordinal;
    }

    /// The word arrays, most significant first.
    pub(crate) fn words(&self) -> &[CudaSlice<f64>] {
        &self.words
    }

    /// The word arrays, for writing.
    pub(crate) fn words_mut(&mut self) -> &mut [CudaSlice<f64>] {
        &mut self.words
    }

    /// `len` zeros on `dev`.
    fn zeros(dev: &Device, len: usize) -> Result<Self> {
        // Zero-length arrays still get one element: the driver refuses empty allocations.
        let elems = len.max(1);
        let bytes = elems
            .checked_mul(8 * T::WORDS)
            .ok_or(Error::CudaOutOfMemory {
                ordinal: dev.ordinal(),
                bytes: usize::MAX,
            })?;
        let words = (0..T::WORDS)
            .map(|_| {
                dev.stream()
                    .alloc_zeros::<f64>(elems)
                    .map_err(alloc_err(dev.ordinal(), bytes))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(DeviceVec {
            words,
            len,
            ordinal: dev.ordinal(),
            _format: PhantomData,
        })
    }

    /// Copy `src` into this vector (enqueued on the vector's stream; `src` may be reused as
    /// soon as this returns).
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] if `src.len() != self.len()`; [`Error::CudaDriver`] if the
    /// copy fails.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        check_len("src", self.len, src.len())?;
        if src.is_empty() {
            return Ok(());
        }
        for (k, w) in self.words.iter_mut().enumerate() {
            let column: Vec<f64> = src.iter().map(|v| v.words()[k]).collect();
            let stream = w.stream().clone();
            // Lengths are equal (checked above), so cudarc's `dst.len() >= src.len()` holds.
            // A copy from pageable memory returns once the source has been staged, so the
            // temporary `column` may be dropped right after.
            stream.memcpy_htod(&column, w).map_err(copy_err("upload"))?;
        }
        Ok(())
    }

    /// Copy the vector into `dst` (waits for all work enqueued before on the stream).
    ///
    /// # Errors
    ///
    /// [`Error::LengthMismatch`] if `dst.len() != self.len()`; [`Error::CudaDriver`] if the
    /// copy fails or an earlier kernel failed on the device.
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        check_len("dst", self.len, dst.len())?;
        if dst.is_empty() {
            return Ok(());
        }
        let mut columns = Vec::with_capacity(T::WORDS);
        for w in &self.words {
            let mut column = vec![0.0f64; self.len];
            let stream = w.stream().clone();
            let view = w.slice(0..self.len);
            stream
                .memcpy_dtoh(&view, &mut column)
                .map_err(copy_err("download"))?;
            stream.synchronize().map_err(copy_err("download"))?;
            columns.push(column);
        }
        for (i, d) in dst.iter_mut().enumerate() {
            let mut w = [0.0; 4];
            for (k, c) in columns.iter().enumerate() {
                w[k] = c[i];
            }
            *d = T::from_words(&w);
        }
        Ok(())
    }

    /// The vector's contents on the host (waits for all work enqueued before on the stream).
    ///
    /// # Errors
    ///
    /// [`Error::CudaDriver`] if the copy fails or an earlier kernel failed on the device.
    pub fn download(&self) -> Result<Vec<T>> {
        let mut out = vec![T::ZERO; self.len];
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// Copy `src` (on the same device) into this vector, on the device.
    ///
    /// # Errors
    ///
    /// [`Error::DeviceMismatch`] if `src` is on another device, [`Error::LengthMismatch`] if
    /// the lengths differ, [`Error::CudaDriver`] if the copy fails.
    pub fn copy_from(&mut self, src: &DeviceVec<T>) -> Result<()> {
        if src.ordinal != self.ordinal {
            return Err(Error::DeviceMismatch {
                arg: "src",
                expected: self.ordinal,
                got: src.ordinal,
            });
        }
        check_len("src", self.len, src.len)?;
        for (d, s) in self.words.iter_mut().zip(&src.words) {
            let stream = d.stream().clone();
            // Both arrays hold max(len, 1) doubles, so cudarc's length assertion holds.
            stream.memcpy_dtod(s, d).map_err(copy_err("device copy"))?;
        }
        Ok(())
    }
}

impl Device {
    /// A new vector holding `src` on this device.
    ///
    /// # Errors
    ///
    /// [`Error::CudaOutOfMemory`] if the device memory is exhausted, [`Error::CudaDriver`] if
    /// the allocation or copy fails.
    pub fn upload<T: DeviceScalar>(&self, src: &[T]) -> Result<DeviceVec<T>> {
        let mut v = DeviceVec::zeros(self, src.len())?;
        v.copy_from_host(src)?;
        Ok(v)
    }

    /// A new vector of `len` zeros on this device.
    ///
    /// # Errors
    ///
    /// As [`Device::upload`].
    pub fn zeros<T: DeviceScalar>(&self, len: usize) -> Result<DeviceVec<T>> {
        DeviceVec::zeros(self, len)
    }

    /// [`Device::upload`] for `f64`.
    ///
    /// # Errors
    ///
    /// As [`Device::upload`].
    pub fn upload_f64(&self, src: &[f64]) -> Result<DeviceVec<f64>> {
        self.upload(src)
    }

    /// [`Device::upload`] for double-doubles.
    ///
    /// # Errors
    ///
    /// As [`Device::upload`].
    pub fn upload_dd(&self, src: &[Dd]) -> Result<DeviceDdVec> {
        self.upload(src)
    }

    /// [`Device::upload`] for quad-doubles.
    ///
    /// # Errors
    ///
    /// As [`Device::upload`].
    pub fn upload_qd(&self, src: &[Qd]) -> Result<DeviceQdVec> {
        self.upload(src)
    }
}
