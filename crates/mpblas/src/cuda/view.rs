//! Matrix views of device vectors: the GPU counterparts of [`MatRef`](crate::view::MatRef) and
//! [`MatMut`](crate::view::MatMut), with the same layouts ([`MatLayout`]) and checks.

use super::memory::{DeviceScalar, DeviceVec};
use crate::error::{Error, Result};
use crate::view::{MatLayout, Trans};

/// A read-only matrix view of a [`DeviceVec`]: element `(i, j)` at `offset + i·row_stride +
/// j·col_stride` of the vector.
pub struct DeviceMatRef<'a, T: DeviceScalar> {
    vec: &'a DeviceVec<T>,
    layout: MatLayout,
}

/// A mutable matrix view of a [`DeviceVec`] whose elements are pairwise distinct.
pub struct DeviceMatMut<'a, T: DeviceScalar> {
    vec: &'a mut DeviceVec<T>,
    layout: MatLayout,
}

impl<T: DeviceScalar> Clone for DeviceMatRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: DeviceScalar> Copy for DeviceMatRef<'_, T> {}

impl<T: DeviceScalar> std::fmt::Debug for DeviceMatRef<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceMatRef")
            .field("layout", &self.layout)
            .field("device", &self.vec.ordinal())
            .finish()
    }
}
impl<T: DeviceScalar> std::fmt::Debug for DeviceMatMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceMatMut")
            .field("layout", &self.layout)
            .field("device", &self.vec.ordinal())
            .finish()
    }
}

fn col_out_of_bounds(j: usize, cols: usize) -> Error {
    Error::OutOfBounds {
        what: "column",
        got: j,
        len: cols,
    }
}

impl<'a, T: DeviceScalar> DeviceMatRef<'a, T> {
    /// Column `j` as a vector view (`rows` elements, increment the row stride).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] for `j ≥ cols`.
    pub fn col(&self, j: usize) -> Result<DeviceVecRef<'a, T>> {
        let l = self.layout;
        if j >= l.cols {
            return Err(col_out_of_bounds(j, l.cols));
        }
        Ok(DeviceVecRef {
            vec: self.vec,
            start: l.offset + j * l.col_stride,
            len: l.rows,
            inc: l.row_stride as isize,
        })
    }

    /// A view of `vec` as `layout` (offset included), after checking that every element lies
    /// in the vector (naming `arg` in the error).
    ///
    /// # Errors
    /// [`Error::ArrayTooShort`].
    pub fn new(arg: &'static str, vec: &'a DeviceVec<T>, layout: MatLayout) -> Result<Self> {
        layout.check_in(arg, vec.len())?;
        Ok(DeviceMatRef { vec, layout })
    }

    /// `rows × cols`, column-major with leading dimension `ld`.
    ///
    /// # Errors
    /// [`Error::LeadingDim`] (`"ld"`), [`Error::ArrayTooShort`] (`"data"`).
    pub fn col_major(vec: &'a DeviceVec<T>, rows: usize, cols: usize, ld: usize) -> Result<Self> {
        Self::from_blas(("data", "ld"), Trans::No, rows, cols, vec, ld)
    }

    /// `op(A)` of a BLAS argument, as [`MatRef::from_blas`](crate::view::MatRef::from_blas).
    ///
    /// # Errors
    /// [`Error::LeadingDim`], [`Error::ArrayTooShort`] under the BLAS `names`.
    pub fn from_blas(
        names: (&'static str, &'static str),
        trans: Trans,
        rows: usize,
        cols: usize,
        vec: &'a DeviceVec<T>,
        ld: usize,
    ) -> Result<Self> {
        let layout = MatLayout::blas_arg(names, trans, rows, cols, ld, vec.len())?;
        Ok(DeviceMatRef { vec, layout })
    }

    /// Shape, strides and offset.
    pub fn layout(&self) -> MatLayout {
        self.layout
    }
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.layout.rows
    }
    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.layout.cols
    }
    /// The CUDA ordinal of the device the data lives on.
    pub fn ordinal(&self) -> usize {
        self.vec.ordinal()
    }

    /// The transpose (no copy).
    pub fn t(self) -> Self {
        DeviceMatRef {
            layout: self.layout.t(),
            ..self
        }
    }

    /// The `rows × cols` block at `(row0, col0)`.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if it does not fit.
    pub fn block(self, row0: usize, col0: usize, rows: usize, cols: usize) -> Result<Self> {
        Ok(DeviceMatRef {
            layout: self.layout.block(row0, col0, rows, cols)?,
            ..self
        })
    }

    /// The device address of word `k` of element `(0, 0)`.
    pub(crate) fn word_addr(&self, k: usize) -> u64 {
        self.vec.word_addr(k) + 8 * self.layout.offset as u64
    }

    /// The addresses of the words of element `(0, 0)`, 0 beyond the format's
    /// [`DeviceScalar::WORDS`].
    pub(crate) fn word_addrs(&self) -> [u64; 4] {
        std::array::from_fn(|k| if k < T::WORDS { self.word_addr(k) } else { 0 })
    }

    /// The vector the view looks into.
    pub(crate) fn vec(&self) -> &'a DeviceVec<T> {
        self.vec
    }
}

impl<'a, T: DeviceScalar> DeviceMatMut<'a, T> {
    /// A view of `vec` as `layout` (offset included), after checking that every element lies
    /// in the vector and that no two share storage (naming `arg` in the errors).
    ///
    /// # Errors
    /// [`Error::ArrayTooShort`], [`Error::InvalidView`].
    pub fn new(arg: &'static str, vec: &'a mut DeviceVec<T>, layout: MatLayout) -> Result<Self> {
        layout.check_in(arg, vec.len())?;
        if !layout.is_injective() {
            return Err(Error::InvalidView {
                arg,
                reason: "the strides make two elements of a mutable view share storage",
            });
        }
        Ok(DeviceMatMut { vec, layout })
    }

    /// `rows × cols`, column-major with leading dimension `ld`.
    ///
    /// # Errors
    /// [`Error::LeadingDim`] (`"ld"`), [`Error::ArrayTooShort`] (`"data"`).
    pub fn col_major(
        vec: &'a mut DeviceVec<T>,
        rows: usize,
        cols: usize,
        ld: usize,
    ) -> Result<Self> {
        Self::from_blas(("data", "ld"), rows, cols, vec, ld)
    }

    /// The output matrix of a BLAS routine, column-major, as
    /// [`MatMut::from_blas`](crate::view::MatMut::from_blas).
    ///
    /// # Errors
    /// [`Error::LeadingDim`], [`Error::ArrayTooShort`] under the BLAS `names`.
    pub fn from_blas(
        names: (&'static str, &'static str),
        rows: usize,
        cols: usize,
        vec: &'a mut DeviceVec<T>,
        ld: usize,
    ) -> Result<Self> {
        let layout = MatLayout::blas_arg(names, Trans::No, rows, cols, ld, vec.len())?;
        Ok(DeviceMatMut { vec, layout })
    }

    /// Shape, strides and offset.
    pub fn layout(&self) -> MatLayout {
        self.layout
    }
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.layout.rows
    }
    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.layout.cols
    }
    /// The CUDA ordinal of the device the data lives on.
    pub fn ordinal(&self) -> usize {
        self.vec.ordinal()
    }

    /// A read-only view of the same elements.
    pub fn rb(&self) -> DeviceMatRef<'_, T> {
        DeviceMatRef {
            vec: self.vec,
            layout: self.layout,
        }
    }

    /// The transpose (no copy).
    pub fn t(self) -> Self {
        DeviceMatMut {
            layout: self.layout.t(),
            ..self
        }
    }

    /// The `rows × cols` block at `(row0, col0)`.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if it does not fit.
    pub fn block(self, row0: usize, col0: usize, rows: usize, cols: usize) -> Result<Self> {
        Ok(DeviceMatMut {
            layout: self.layout.block(row0, col0, rows, cols)?,
            ..self
        })
    }

    /// The device address of word `k` of element `(0, 0)`.
    pub(crate) fn word_addr(&self, k: usize) -> u64 {
        self.vec.word_addr(k) + 8 * self.layout.offset as u64
    }

    /// A shorter-lived mutable view of the same elements (to make sub-views in a loop).
    pub fn rb_mut(&mut self) -> DeviceMatMut<'_, T> {
        DeviceMatMut {
            vec: &mut *self.vec,
            layout: self.layout,
        }
    }

    /// The addresses of the words of element `(0, 0)`, 0 beyond the format's
    /// [`DeviceScalar::WORDS`].
    pub(crate) fn word_addrs(&self) -> [u64; 4] {
        std::array::from_fn(|k| if k < T::WORDS { self.word_addr(k) } else { 0 })
    }

    /// Column `j` as a vector view (`rows` elements, increment the row stride).
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] for `j ≥ cols`.
    pub fn col_mut(&mut self, j: usize) -> Result<DeviceVecMut<'_, T>> {
        let l = self.layout;
        if j >= l.cols {
            return Err(col_out_of_bounds(j, l.cols));
        }
        Ok(DeviceVecMut {
            vec: self.vec,
            start: l.offset + j * l.col_stride,
            len: l.rows,
            inc: l.row_stride as isize,
        })
    }
}

/// The BLAS form `(trans, ld)` of a view, or [`Error::InvalidView`] naming `arg` when neither
/// stride is 1 (cuBLAS takes column-major storage or its transpose only).
pub(crate) fn blas_form(arg: &'static str, layout: &MatLayout) -> Result<(Trans, usize)> {
    layout.blas().ok_or(Error::InvalidView {
        arg,
        reason: "cuBLAS needs a column-major or row-major view (one stride 1)",
    })
}

/// The column-major form of an output view: its leading dimension, or [`Error::InvalidView`].
pub(crate) fn col_major_ld(arg: &'static str, layout: &MatLayout) -> Result<usize> {
    match layout.blas() {
        Some((Trans::No, ld)) => Ok(ld),
        _ => Err(Error::InvalidView {
            arg,
            reason: "the GPU routine writes its output column-major (row stride 1)",
        }),
    }
}

// ---- vectors -------------------------------------------------------------------------------------

/// A read-only strided view of a [`DeviceVec`]: the GPU counterpart of
/// [`VecRef`](crate::view::VecRef), with the BLAS meaning of a negative increment.
pub struct DeviceVecRef<'a, T: DeviceScalar> {
    vec: &'a DeviceVec<T>,
    /// Index in `vec` of element 0.
    start: usize,
    len: usize,
    inc: isize,
}

/// A mutable strided view of a [`DeviceVec`] (the increment is never 0).
pub struct DeviceVecMut<'a, T: DeviceScalar> {
    vec: &'a mut DeviceVec<T>,
    start: usize,
    len: usize,
    inc: isize,
}

impl<T: DeviceScalar> Clone for DeviceVecRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: DeviceScalar> Copy for DeviceVecRef<'_, T> {}

impl<T: DeviceScalar> std::fmt::Debug for DeviceVecRef<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceVecRef")
            .field("len", &self.len)
            .field("inc", &self.inc)
            .field("device", &self.vec.ordinal())
            .finish()
    }
}
impl<T: DeviceScalar> std::fmt::Debug for DeviceVecMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceVecMut")
            .field("len", &self.len)
            .field("inc", &self.inc)
            .field("device", &self.vec.ordinal())
            .finish()
    }
}

/// The kernel argument of a vector: `struct { double *w[4]; long long inc; }` with the word
/// pointers at element 0.
fn vec_arg<T: DeviceScalar>(vec: &DeviceVec<T>, start: usize, inc: isize) -> super::Arg {
    let mut words = [0u64; 5];
    for (k, w) in words.iter_mut().enumerate().take(T::WORDS) {
        *w = vec.word_addr(k) + 8 * start as u64;
    }
    words[4] = inc as i64 as u64;
    super::Arg::Struct(Box::new(words))
}

impl<'a, T: DeviceScalar> DeviceVecRef<'a, T> {
    /// The BLAS vector of `n` elements with increment `inc` in `vec`, as
    /// [`VecRef::from_blas`](crate::view::VecRef::from_blas).
    ///
    /// # Errors
    /// [`Error::InvalidView`] for `inc = 0`; [`Error::ArrayTooShort`].
    pub fn from_blas(
        arg: &'static str,
        n: usize,
        vec: &'a DeviceVec<T>,
        inc: isize,
    ) -> Result<Self> {
        let start = crate::view::blas_vector(arg, vec.len(), n, inc)?;
        Ok(DeviceVecRef {
            vec,
            start,
            len: n,
            inc,
        })
    }

    /// All of `vec`, increment 1.
    pub fn contiguous(vec: &'a DeviceVec<T>) -> Self {
        DeviceVecRef {
            vec,
            start: 0,
            len: vec.len(),
            inc: 1,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The increment between elements.
    pub fn inc(&self) -> isize {
        self.inc
    }
    /// The CUDA ordinal of the device the data lives on.
    pub fn ordinal(&self) -> usize {
        self.vec.ordinal()
    }
    /// The kernel argument (`VecArg` of the BLAS kernels).
    /// The view's elements, on the host (downloads the whole vector; waits for the work).
    pub(crate) fn download(&self) -> Result<Vec<T>> {
        let all = self.vec.download()?;
        Ok((0..self.len)
            .map(|i| all[(self.start as isize + i as isize * self.inc) as usize])
            .collect())
    }

    pub(crate) fn arg(&self) -> super::Arg {
        vec_arg(self.vec, self.start, self.inc)
    }
}

impl<'a, T: DeviceScalar> DeviceVecMut<'a, T> {
    /// As [`DeviceVecRef::from_blas`].
    ///
    /// # Errors
    /// [`Error::InvalidView`] for `inc = 0`; [`Error::ArrayTooShort`].
    pub fn from_blas(
        arg: &'static str,
        n: usize,
        vec: &'a mut DeviceVec<T>,
        inc: isize,
    ) -> Result<Self> {
        let start = crate::view::blas_vector(arg, vec.len(), n, inc)?;
        Ok(DeviceVecMut {
            vec,
            start,
            len: n,
            inc,
        })
    }

    /// All of `vec`, increment 1.
    pub fn contiguous(vec: &'a mut DeviceVec<T>) -> Self {
        let len = vec.len();
        DeviceVecMut {
            vec,
            start: 0,
            len,
            inc: 1,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The increment between elements.
    pub fn inc(&self) -> isize {
        self.inc
    }
    /// The CUDA ordinal of the device the data lives on.
    pub fn ordinal(&self) -> usize {
        self.vec.ordinal()
    }
    /// A read-only view of the same elements.
    pub fn rb(&self) -> DeviceVecRef<'_, T> {
        DeviceVecRef {
            vec: self.vec,
            start: self.start,
            len: self.len,
            inc: self.inc,
        }
    }
    /// The kernel argument (`MutVecArg` of the BLAS kernels).
    pub(crate) fn arg(&mut self) -> super::Arg {
        vec_arg(self.vec, self.start, self.inc)
    }
}
