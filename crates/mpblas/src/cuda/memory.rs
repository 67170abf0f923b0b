//! Device memory: [`DeviceBuffer<T>`] (a typed array of plain values), [`DeviceVec<T>`] (a
//! vector of a multi-word format stored as structure of arrays, one buffer per word), and the
//! grow-only scratch buffers routines keep between calls.
//!
//! Dropping a buffer frees its device memory in stream order (after the work that uses it).
//! Uploads are enqueued on the device's stream and return once the host data has been staged
//! (the source may be reused at once); downloads wait for everything enqueued before them.

use super::device::{Device, check_len};
use super::sys;
use crate::error::{Error, Result};
use std::marker::PhantomData;
use std::sync::Arc;

/// A plain value that can live in a [`DeviceBuffer`]: fixed size, no padding, every bit
/// pattern valid, so that it is copied to and from the GPU as bytes.
///
/// # Safety
/// Implement only for types with those three properties.
pub unsafe trait DevicePod: Copy + Default + Send + Sync + 'static {}

// SAFETY: primitive integers and floats have no padding and no invalid bit patterns.
unsafe impl DevicePod for u8 {}
// SAFETY: as above.
unsafe impl DevicePod for i8 {}
// SAFETY: as above.
unsafe impl DevicePod for u16 {}
// SAFETY: as above.
unsafe impl DevicePod for i16 {}
// SAFETY: as above.
unsafe impl DevicePod for u32 {}
// SAFETY: as above.
unsafe impl DevicePod for i32 {}
// SAFETY: as above.
unsafe impl DevicePod for u64 {}
// SAFETY: as above.
unsafe impl DevicePod for i64 {}
// SAFETY: as above.
unsafe impl DevicePod for f32 {}
// SAFETY: as above.
unsafe impl DevicePod for f64 {}

fn bytes_of<T: DevicePod>(x: &[T]) -> &[u8] {
    // SAFETY: `T: DevicePod` has no padding, so every byte of the slice is initialised.
    unsafe { std::slice::from_raw_parts(x.as_ptr().cast(), std::mem::size_of_val(x)) }
}

fn bytes_of_mut<T: DevicePod>(x: &mut [T]) -> &mut [u8] {
    // SAFETY: `T: DevicePod` accepts every bit pattern, so any bytes written are a valid `T`.
    unsafe { std::slice::from_raw_parts_mut(x.as_mut_ptr().cast(), std::mem::size_of_val(x)) }
}

/// `len` values of `T` on one GPU.
pub struct DeviceBuffer<T: DevicePod> {
    raw: sys::Buffer,
    /// The context, not the [`Device`]: a workspace in the device's cache holds buffers, and
    /// a buffer holding the device would keep it alive forever.
    ctx: Arc<sys::Context>,
    len: usize,
    ordinal: usize,
    _t: PhantomData<T>,
}

impl<T: DevicePod> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("type", &std::any::type_name::<T>())
            .field("len", &self.len)
            .field("device", &self.ordinal)
            .finish()
    }
}

impl<T: DevicePod> DeviceBuffer<T> {
    fn alloc(dev: &Device, len: usize, zeroed: bool) -> Result<Self> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or(Error::CudaOutOfMemory {
                ordinal: dev.ordinal(),
                bytes: usize::MAX,
            })?;
        Ok(DeviceBuffer {
            raw: dev.sys().alloc(bytes, zeroed)?,
            ctx: dev.sys().clone(),
            len,
            ordinal: dev.ordinal(),
            _t: PhantomData,
        })
    }

    /// `len` zeros on `dev`.
    ///
    /// # Errors
    /// [`Error::CudaOutOfMemory`] if the device memory is exhausted, [`Error::CudaDriver`] if
    /// the allocation fails otherwise.
    pub fn zeros(dev: &Device, len: usize) -> Result<Self> {
        Self::alloc(dev, len, true)
    }

    /// `len` values with unspecified contents, for a kernel to write before anything reads.
    pub(crate) fn uninit(dev: &Device, len: usize) -> Result<Self> {
        Self::alloc(dev, len, false)
    }

    /// A new buffer holding `src` on `dev`.
    ///
    /// # Errors
    /// As [`DeviceBuffer::zeros`] and [`DeviceBuffer::copy_from_host`].
    pub fn from_host(dev: &Device, src: &[T]) -> Result<Self> {
        let mut b = Self::uninit(dev, src.len())?;
        b.copy_from_host(src)?;
        Ok(b)
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if there are no values.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The CUDA ordinal of the device the buffer lives on.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Pretend the buffer lives on device `ordinal` (to test the device checks on one GPU).
    #[doc(hidden)]
    pub fn set_ordinal_for_tests(&mut self, ordinal: usize) {
        self.ordinal = ordinal;
    }

    /// The device address of the first value (for kernel arguments).
    pub(crate) fn addr(&self) -> u64 {
        self.raw.addr()
    }

    /// Copy `src` into the buffer (enqueued; `src` may be reused as soon as this returns).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `src.len() != self.len()`; [`Error::CudaDriver`] if the
    /// copy fails.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        check_len("src", self.len, src.len())?;
        if src.is_empty() {
            return Ok(());
        }
        // SAFETY: the allocation holds `len·size_of::<T>()` bytes, exactly `src`'s size.
        unsafe { self.ctx.htod(self.raw.addr(), bytes_of(src)) }
    }

    /// Copy the buffer into `dst` (waits for all work enqueued before on the stream).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `dst.len() != self.len()`; [`Error::CudaDriver`] if the
    /// copy fails or an earlier kernel failed on the device.
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        check_len("dst", self.len, dst.len())?;
        if dst.is_empty() {
            return Ok(());
        }
        // SAFETY: the allocation holds `len·size_of::<T>()` bytes, exactly `dst`'s size.
        unsafe { self.ctx.dtoh(bytes_of_mut(dst), self.raw.addr()) }
    }

    /// The buffer's contents on the host (waits for all work enqueued before on the stream).
    ///
    /// # Errors
    /// As [`DeviceBuffer::copy_to_host`].
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len];
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// Copy `src` (on the same device) into this buffer, on the device.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`] if `src` is on another device, [`Error::LengthMismatch`] if
    /// the lengths differ, [`Error::CudaDriver`] if the copy fails.
    pub fn copy_from(&mut self, src: &DeviceBuffer<T>) -> Result<()> {
        if src.ordinal != self.ordinal {
            return Err(Error::DeviceMismatch {
                arg: "src",
                expected: self.ordinal,
                got: src.ordinal,
            });
        }
        check_len("src", self.len, src.len)?;
        if self.len == 0 {
            return Ok(());
        }
        // SAFETY: both allocations hold `len` values; they are distinct (`&mut self`).
        unsafe {
            self.ctx.dtod(
                self.raw.addr(),
                src.raw.addr(),
                self.len * std::mem::size_of::<T>(),
            )
        }
    }
}

// ---- multi-word formats ------------------------------------------------------------------------

pub(crate) mod sealed {
    /// Only the formats the library has kernels for are device scalars.
    pub trait Sealed {}
    impl Sealed for f64 {}
}

/// A scalar format that lives on the GPU as `WORDS` separate arrays of `f64` (structure of
/// arrays, so that a warp's loads of one word are coalesced): `f64`, [`Dd`](crate::Dd) and
/// [`Qd`](crate::Qd). Sealed: the kernels exist for these three only.
pub trait DeviceScalar: sealed::Sealed + Copy + Default + Send + Sync + 'static {
    /// Short lowercase name: `"f64"`, `"dd"`, `"qd"`.
    const NAME: &'static str;
    /// Number of `f64` words (1, 2 or 4).
    const WORDS: usize;
    /// The words, most significant first (`WORDS` of them are used, the rest are 0).
    fn to_words(self) -> [f64; 4];
    /// The value whose words (most significant first) are `w[..Self::WORDS]`, taken as they
    /// are (no normalisation: the transfer is bit-exact).
    fn from_words(w: &[f64; 4]) -> Self;
}

impl DeviceScalar for f64 {
    const NAME: &'static str = "f64";
    const WORDS: usize = 1;
    fn to_words(self) -> [f64; 4] {
        [self, 0.0, 0.0, 0.0]
    }
    fn from_words(w: &[f64; 4]) -> Self {
        w[0]
    }
}

/// A vector of `T` on one GPU, one [`DeviceBuffer<f64>`] per word of `T`.
pub struct DeviceVec<T: DeviceScalar> {
    /// `T::WORDS` buffers, most significant word first, each of `len` doubles.
    words: Vec<DeviceBuffer<f64>>,
    len: usize,
    ordinal: usize,
    _format: PhantomData<T>,
}

impl<T: DeviceScalar> std::fmt::Debug for DeviceVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceVec")
            .field("format", &T::NAME)
            .field("len", &self.len)
            .field("device", &self.ordinal)
            .finish()
    }
}

impl<T: DeviceScalar> DeviceVec<T> {
    /// `len` zeros on `dev`.
    ///
    /// # Errors
    /// [`Error::CudaOutOfMemory`] if the device memory is exhausted, [`Error::CudaDriver`] if
    /// the allocation fails otherwise.
    pub fn zeros(dev: &Device, len: usize) -> Result<Self> {
        let words = (0..T::WORDS)
            .map(|_| DeviceBuffer::zeros(dev, len))
            .collect::<Result<Vec<_>>>()?;
        Ok(DeviceVec {
            words,
            len,
            ordinal: dev.ordinal(),
            _format: PhantomData,
        })
    }

    /// A new vector holding `src` on `dev`.
    ///
    /// # Errors
    /// As [`DeviceVec::zeros`] and [`DeviceVec::copy_from_host`].
    pub fn from_host(dev: &Device, src: &[T]) -> Result<Self> {
        let mut v = Self::zeros(dev, src.len())?;
        v.copy_from_host(src)?;
        Ok(v)
    }

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
    #[doc(hidden)]
    pub fn set_ordinal_for_tests(&mut self, ordinal: usize) {
        self.ordinal = ordinal;
    }

    /// The device address of word `k` (0 = most significant) of element 0.
    pub(crate) fn word_addr(&self, k: usize) -> u64 {
        self.words[k].addr()
    }

    /// The addresses of the words of element 0, 0 beyond the format's [`DeviceScalar::WORDS`]
    /// (kernels that take four word planes for every format).
    pub(crate) fn word_addrs(&self) -> [u64; 4] {
        std::array::from_fn(|k| if k < T::WORDS { self.word_addr(k) } else { 0 })
    }

    /// Copy `src` into this vector (enqueued; `src` may be reused as soon as this returns).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `src.len() != self.len()`; [`Error::CudaDriver`] if the
    /// copy fails.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        check_len("src", self.len, src.len())?;
        for (k, w) in self.words.iter_mut().enumerate() {
            let column: Vec<f64> = src.iter().map(|v| v.to_words()[k]).collect();
            w.copy_from_host(&column)?;
        }
        Ok(())
    }

    /// Copy the vector into `dst` (waits for all work enqueued before on the stream).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `dst.len() != self.len()`; [`Error::CudaDriver`] if the
    /// copy fails or an earlier kernel failed on the device.
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        check_len("dst", self.len, dst.len())?;
        let columns = self
            .words
            .iter()
            .map(DeviceBuffer::to_vec)
            .collect::<Result<Vec<_>>>()?;
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
    /// [`Error::CudaDriver`] if the copy fails or an earlier kernel failed on the device.
    pub fn download(&self) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len];
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// Copy `src` (on the same device) into this vector, on the device.
    ///
    /// # Errors
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
            d.copy_from(s)?;
        }
        Ok(())
    }
}

impl Device {
    /// A new vector holding `src` on this device ([`DeviceVec::from_host`]).
    ///
    /// # Errors
    /// As [`DeviceVec::from_host`].
    pub fn upload<T: DeviceScalar>(&self, src: &[T]) -> Result<DeviceVec<T>> {
        DeviceVec::from_host(self, src)
    }

    /// A new vector of `len` zeros on this device ([`DeviceVec::zeros`]).
    ///
    /// # Errors
    /// As [`DeviceVec::zeros`].
    pub fn zeros<T: DeviceScalar>(&self, len: usize) -> Result<DeviceVec<T>> {
        DeviceVec::zeros(self, len)
    }

    /// [`Device::upload`] for `f64`.
    ///
    /// # Errors
    /// As [`Device::upload`].
    pub fn upload_f64(&self, src: &[f64]) -> Result<DeviceVec<f64>> {
        self.upload(src)
    }
}

// ---- scratch -----------------------------------------------------------------------------------

/// A grow-only device buffer of a routine's workspace: [`ScratchBuffer::get`] returns the
/// address of at least the bytes asked for, reallocating (and losing the contents) only when
/// the buffer is too small.
#[derive(Default)]
pub(crate) struct ScratchBuffer {
    buf: Option<DeviceBuffer<u8>>,
}

impl ScratchBuffer {
    /// Bytes held now.
    pub(crate) fn capacity(&self) -> usize {
        self.buf.as_ref().map_or(0, DeviceBuffer::len)
    }

    /// The address of at least `bytes` bytes with unspecified contents (each kernel writes what
    /// it later reads, or the caller clears them with [`memset`] first).
    pub(crate) fn get(&mut self, dev: &Device, bytes: usize) -> Result<u64> {
        if self.capacity() < bytes.max(1) {
            // Free the old buffer first, so that both need not fit at once.
            self.buf = None;
            self.buf = Some(DeviceBuffer::uninit(dev, bytes.max(1))?);
        }
        match &self.buf {
            Some(b) => Ok(b.addr()),
            None => Err(Error::CudaOutOfMemory {
                ordinal: dev.ordinal(),
                bytes,
            }),
        }
    }
}

/// Sets `bytes` bytes at device address `addr` to `byte` (enqueued).
///
/// # Safety
/// `addr` must address at least `bytes` bytes of a live allocation of `dev`.
pub(crate) unsafe fn memset(dev: &Device, addr: u64, byte: u8, bytes: usize) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    // SAFETY: the caller's contract.
    unsafe { dev.sys().memset(addr, byte, bytes) }
}

/// Copies `dst.len()` values of `T` from device address `src` (waits for the work enqueued
/// before).
///
/// # Safety
/// `src` must address at least `dst.len()` values of `T` in a live allocation of `dev`.
pub(crate) unsafe fn download_raw<T: DevicePod>(
    dev: &Device,
    src: u64,
    dst: &mut [T],
) -> Result<()> {
    if dst.is_empty() {
        return Ok(());
    }
    // SAFETY: the caller's contract.
    unsafe { dev.sys().dtoh(bytes_of_mut(dst), src) }
}
