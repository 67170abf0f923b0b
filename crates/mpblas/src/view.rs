//! Matrix and vector views: how every routine of the library takes its arguments.
//!
//! A [`MatRef`] / [`MatMut`] is an `rows × cols` matrix whose element `(i, j)` lives at
//! `i·row_stride + j·col_stride` from its first element: column-major storage with leading
//! dimension `ld` is `(row_stride, col_stride) = (1, ld)`, row-major is `(ld, 1)`, and the
//! transpose of a view is the same storage with the strides swapped ([`MatRef::t`]), so `op(A)`
//! of BLAS is a view, not a flag. A [`VecRef`] / [`VecMut`] is a strided vector with the BLAS
//! meaning of a (possibly negative) increment.
//!
//! Views are built from slices with checked dimensions (an error, never a panic, when the
//! slice is too short or a leading dimension too small), from `ndarray` views (feature
//! `ndarray`) and `faer` views (feature `faer`) without copying, and on the GPU as
//! [`DeviceMatRef`](crate::cuda::DeviceMatRef). For code ported from Fortran or C, every routine
//! also has a BLAS-style entry (`..._blas`: transpose flags, `m, n, k`, `lda`, `incx`), which
//! builds the views with [`MatRef::from_blas`] and reports bad arguments under their BLAS
//! names (`"lda"`, `"b"`, ...).
//!
//! Views hold a pointer, not a slice, so that a strided view never claims the elements between
//! its rows or columns (which another view may be writing). A mutable view's elements are
//! pairwise distinct (checked when it is built).

use crate::error::{Error, Result};
use std::marker::PhantomData;

/// Whether a matrix argument is used as stored or transposed (BLAS `'N'` / `'T'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trans {
    /// Use the matrix as stored (`'N'`).
    No,
    /// Use its transpose (`'T'`).
    Yes,
}

/// The shape and strides of a matrix view: element `(i, j)` at `offset + i·row_stride +
/// j·col_stride` in its storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MatLayout {
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Distance between vertically adjacent elements.
    pub row_stride: usize,
    /// Distance between horizontally adjacent elements.
    pub col_stride: usize,
    /// Position of element `(0, 0)` in the storage.
    pub offset: usize,
}

impl MatLayout {
    /// Column-major `rows × cols` with leading dimension `ld`, at offset 0 (not checked).
    pub fn col_major(rows: usize, cols: usize, ld: usize) -> MatLayout {
        MatLayout {
            rows,
            cols,
            row_stride: 1,
            col_stride: ld,
            offset: 0,
        }
    }

    /// The transpose: same storage, strides swapped.
    pub fn t(self) -> MatLayout {
        MatLayout {
            rows: self.cols,
            cols: self.rows,
            row_stride: self.col_stride,
            col_stride: self.row_stride,
            offset: self.offset,
        }
    }

    /// True if the matrix has no element.
    pub fn is_empty(&self) -> bool {
        self.rows == 0 || self.cols == 0
    }

    /// The storage index of `(i, j)` (no check).
    #[inline]
    pub fn index(&self, i: usize, j: usize) -> usize {
        self.offset + i * self.row_stride + j * self.col_stride
    }

    /// One past the largest storage index used (`offset` for an empty matrix), or `None` on
    /// overflow.
    pub fn end(&self) -> Option<usize> {
        if self.is_empty() {
            return Some(self.offset);
        }
        (self.rows - 1)
            .checked_mul(self.row_stride)?
            .checked_add((self.cols - 1).checked_mul(self.col_stride)?)?
            .checked_add(self.offset)?
            .checked_add(1)
    }

    /// The layout as BLAS arguments, `(trans, ld)` with the view equal to `op(stored)`, if one
    /// stride is 1 (column-major or row-major storage).
    pub fn blas(&self) -> Option<(Trans, usize)> {
        let (r, c) = (self.rows.max(1), self.cols.max(1));
        if r == 1 && c == 1 {
            Some((Trans::No, 1))
        } else if (self.row_stride == 1 || r == 1) && (self.col_stride >= r || c == 1) {
            Some((Trans::No, if c == 1 { r } else { self.col_stride }))
        } else if (self.col_stride == 1 || c == 1) && (self.row_stride >= c || r == 1) {
            Some((Trans::Yes, if r == 1 { c } else { self.row_stride }))
        } else {
            None
        }
    }

    /// True if no two elements share a storage index (what a mutable view needs): the smaller
    /// stride must be non-zero (for a dimension above 1) and the larger must step over the
    /// whole extent of the smaller.
    pub fn is_injective(&self) -> bool {
        let (mut a, mut b) = ((self.rows, self.row_stride), (self.cols, self.col_stride));
        if a.0 <= 1 {
            return b.0 <= 1 || b.1 > 0;
        }
        if b.0 <= 1 {
            return a.1 > 0;
        }
        if a.1 > b.1 {
            std::mem::swap(&mut a, &mut b);
        }
        a.1 > 0 && a.0.checked_mul(a.1).is_some_and(|span| b.1 >= span)
    }

    /// Checks the layout against storage of `len` elements: [`Error::ArrayTooShort`] (naming
    /// `arg`) if an element lies beyond it.
    pub(crate) fn check_in(&self, arg: &'static str, len: usize) -> Result<()> {
        match self.end() {
            Some(end) if end <= len => Ok(()),
            end => Err(Error::ArrayTooShort {
                arg,
                got: len,
                min: end.unwrap_or(usize::MAX),
            }),
        }
    }

    /// A BLAS matrix argument: `op(stored)` of `rows × cols` where the stored matrix is
    /// column-major with leading dimension `ld` (`rows × cols` for [`Trans::No`], `cols × rows`
    /// for [`Trans::Yes`]), checked against storage of `len` elements: [`Error::LeadingDim`]
    /// (naming `ldarg`) if `ld` is below the stored row count (or 1), [`Error::ArrayTooShort`]
    /// (naming `arg`) if the storage is too short.
    pub(crate) fn blas_arg(
        (arg, ldarg): (&'static str, &'static str),
        trans: Trans,
        rows: usize,
        cols: usize,
        ld: usize,
        len: usize,
    ) -> Result<MatLayout> {
        let (sr, sc) = match trans {
            Trans::No => (rows, cols),
            Trans::Yes => (cols, rows),
        };
        let min_ld = sr.max(1);
        if ld < min_ld {
            return Err(Error::LeadingDim {
                arg: ldarg,
                got: ld,
                min: min_ld,
            });
        }
        let stored = MatLayout::col_major(sr, sc, ld);
        stored.check_in(arg, len)?;
        Ok(match trans {
            Trans::No => stored,
            Trans::Yes => stored.t(),
        })
    }

    /// A sub-block of `rows × cols` starting at `(row0, col0)`, or [`Error::OutOfBounds`].
    pub fn block(&self, row0: usize, col0: usize, rows: usize, cols: usize) -> Result<MatLayout> {
        let fits = |start: usize, n: usize, total: usize| {
            start.checked_add(n).is_some_and(|end| end <= total)
        };
        if !fits(row0, rows, self.rows) {
            return Err(Error::OutOfBounds {
                what: "block rows",
                got: row0.saturating_add(rows),
                len: self.rows,
            });
        }
        if !fits(col0, cols, self.cols) {
            return Err(Error::OutOfBounds {
                what: "block columns",
                got: col0.saturating_add(cols),
                len: self.cols,
            });
        }
        // In range of the parent, so the index cannot overflow.
        let offset = if rows == 0 || cols == 0 {
            self.offset
        } else {
            self.index(row0, col0)
        };
        Ok(MatLayout {
            rows,
            cols,
            offset,
            ..*self
        })
    }
}

/// A column-major check of a BLAS matrix argument: [`Error::LeadingDim`] if `ld < max(1,
/// rows)`, [`Error::ArrayTooShort`] if the array cannot hold it (`ld·(cols−1) + rows`
/// elements; nothing for an empty matrix).
pub(crate) fn check_matrix(
    arg: &'static str,
    ldarg: &'static str,
    rows: usize,
    cols: usize,
    len: usize,
    ld: usize,
) -> Result<()> {
    MatLayout::blas_arg((arg, ldarg), Trans::No, rows, cols, ld, len).map(|_| ())
}

/// The BLAS argument checks of GEMM (`op(A)` `m × k`, `op(B)` `k × n`, `C` `m × n`), in the
/// order reference BLAS reports them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_gemm_args(
    transa: Trans,
    transb: Trans,
    m: usize,
    n: usize,
    k: usize,
    a_len: usize,
    lda: usize,
    b_len: usize,
    ldb: usize,
    c_len: usize,
    ldc: usize,
) -> Result<()> {
    MatLayout::blas_arg(("a", "lda"), transa, m, k, lda, a_len)?;
    MatLayout::blas_arg(("b", "ldb"), transb, k, n, ldb, b_len)?;
    check_matrix("c", "ldc", m, n, c_len, ldc)
}

/// [`Error::LengthMismatch`]-style check that the inner dimensions of a product agree.
pub(crate) fn check_product_shapes(
    a: &MatLayout,
    b: &MatLayout,
    c: &MatLayout,
) -> Result<(usize, usize, usize)> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    if b.rows != k {
        return Err(Error::LengthMismatch {
            arg: "b (rows)",
            expected: k,
            got: b.rows,
        });
    }
    if c.rows != m {
        return Err(Error::LengthMismatch {
            arg: "c (rows)",
            expected: m,
            got: c.rows,
        });
    }
    if c.cols != n {
        return Err(Error::LengthMismatch {
            arg: "c (columns)",
            expected: n,
            got: c.cols,
        });
    }
    Ok((m, n, k))
}

// ---- matrices ------------------------------------------------------------------------------------

/// A read-only view of a matrix (see the [module docs](self)).
pub struct MatRef<'a, T> {
    ptr: *const T,
    layout: MatLayout,
    _borrow: PhantomData<&'a [T]>,
}

/// A mutable view of a matrix whose elements are pairwise distinct (see the
/// [module docs](self)).
pub struct MatMut<'a, T> {
    ptr: *mut T,
    layout: MatLayout,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a MatRef is a shared borrow of `T`s: it may cross threads when `&T` may.
unsafe impl<T: Sync> Send for MatRef<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for MatRef<'_, T> {}
// SAFETY: a MatMut is an exclusive borrow of `T`s: it may cross threads when `&mut T` may.
unsafe impl<T: Send> Send for MatMut<'_, T> {}
// SAFETY: shared access to a MatMut gives only `&T` (through `rb`).
unsafe impl<T: Sync> Sync for MatMut<'_, T> {}

impl<T> Clone for MatRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for MatRef<'_, T> {}

impl<T> std::fmt::Debug for MatRef<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MatRef")
            .field("layout", &self.layout)
            .finish()
    }
}
impl<T> std::fmt::Debug for MatMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MatMut")
            .field("layout", &self.layout)
            .finish()
    }
}

impl<'a, T> MatRef<'a, T> {
    /// A view of `data` as `layout`, after checking that every element lies in `data`.
    fn checked(arg: &'static str, data: &'a [T], layout: MatLayout) -> Result<Self> {
        layout.check_in(arg, data.len())?;
        Ok(MatRef {
            ptr: data.as_ptr(),
            layout,
            _borrow: PhantomData,
        })
    }

    /// `rows × cols`, column-major with leading dimension `ld` (`ld ≥ max(1, rows)`).
    ///
    /// # Errors
    /// [`Error::LeadingDim`] (`"ld"`), [`Error::ArrayTooShort`] (`"data"`).
    pub fn col_major(data: &'a [T], rows: usize, cols: usize, ld: usize) -> Result<Self> {
        let layout = MatLayout::blas_arg(("data", "ld"), Trans::No, rows, cols, ld, data.len())?;
        Self::checked("data", data, layout)
    }

    /// `rows × cols`, row-major with leading dimension `ld` (`ld ≥ max(1, cols)`).
    ///
    /// # Errors
    /// [`Error::LeadingDim`] (`"ld"`), [`Error::ArrayTooShort`] (`"data"`).
    pub fn row_major(data: &'a [T], rows: usize, cols: usize, ld: usize) -> Result<Self> {
        let layout = MatLayout::blas_arg(("data", "ld"), Trans::Yes, rows, cols, ld, data.len())?;
        Self::checked("data", data, layout)
    }

    /// `op(A)` of a BLAS argument: `rows × cols`, where `A` is stored column-major in `data`
    /// with leading dimension `ld` (`rows × cols` for [`Trans::No`], `cols × rows` for
    /// [`Trans::Yes`]). `names` are the BLAS names reported in errors, e.g. `("a", "lda")`.
    ///
    /// # Errors
    /// [`Error::LeadingDim`], [`Error::ArrayTooShort`] under those names.
    pub fn from_blas(
        names: (&'static str, &'static str),
        trans: Trans,
        rows: usize,
        cols: usize,
        data: &'a [T],
        ld: usize,
    ) -> Result<Self> {
        let layout = MatLayout::blas_arg(names, trans, rows, cols, ld, data.len())?;
        Self::checked(names.0, data, layout)
    }

    /// `rows × cols` with element `(i, j)` at `data[i·row_stride + j·col_stride]` (any
    /// strides, zero included: a read-only view may repeat elements).
    ///
    /// # Errors
    /// [`Error::ArrayTooShort`] (`"data"`).
    pub fn with_strides(
        data: &'a [T],
        rows: usize,
        cols: usize,
        row_stride: usize,
        col_stride: usize,
    ) -> Result<Self> {
        let layout = MatLayout {
            rows,
            cols,
            row_stride,
            col_stride,
            offset: 0,
        };
        Self::checked("data", data, layout)
    }

    /// A view from a raw pointer to element `(0, 0)` (`layout.offset` is ignored).
    ///
    /// # Safety
    /// For `'a`, every `ptr + i·row_stride + j·col_stride` with `i < rows`, `j < cols` must
    /// point to a live, initialised `T` that nothing writes.
    pub unsafe fn from_raw_parts(ptr: *const T, layout: MatLayout) -> Self {
        MatRef {
            ptr,
            layout: MatLayout {
                offset: 0,
                ..layout
            },
            _borrow: PhantomData,
        }
    }

    /// Shape and strides (offset 0).
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
    /// Distance between vertically adjacent elements.
    pub fn row_stride(&self) -> usize {
        self.layout.row_stride
    }
    /// Distance between horizontally adjacent elements.
    pub fn col_stride(&self) -> usize {
        self.layout.col_stride
    }
    /// Pointer to element `(0, 0)`.
    pub fn as_ptr(&self) -> *const T {
        self.ptr
    }

    /// The transpose (no copy).
    pub fn t(self) -> Self {
        MatRef {
            layout: self.layout.t(),
            ..self
        }
    }

    /// Row `i` as a vector (no copy), or `None` beyond the last row.
    pub fn row(&self, i: usize) -> Option<VecRef<'a, T>> {
        (i < self.rows()).then(|| VecRef {
            // (i, 0) is in the view, or the row is empty and the pointer is never read.
            ptr: if self.cols() == 0 {
                self.ptr
            } else {
                self.at(i, 0) as *const T
            },
            len: self.cols(),
            // A view's strides fit `isize` (its storage is a slice). A stride of 0 (a
            // read-only view repeating an element) stays 0: every element is the same one.
            inc: self.col_stride() as isize,
            _borrow: PhantomData,
        })
    }

    /// Column `j` as a vector (no copy), or `None` beyond the last column.
    pub fn col(&self, j: usize) -> Option<VecRef<'a, T>> {
        self.t().row(j)
    }

    /// Element `(i, j)`, or `None` outside the matrix.
    pub fn get(&self, i: usize, j: usize) -> Option<&'a T> {
        (i < self.rows() && j < self.cols()).then(|| self.at(i, j))
    }

    /// Element `(i, j)`; the caller guarantees `i < rows`, `j < cols`.
    #[inline]
    pub(crate) fn at(&self, i: usize, j: usize) -> &'a T {
        debug_assert!(i < self.rows() && j < self.cols());
        // SAFETY: in range (the caller's contract), so the element lies in the storage the
        // view was checked against when built; the borrow lives for 'a.
        unsafe { &*self.ptr.add(self.layout.index(i, j)) }
    }

    /// The `rows × cols` block at `(row0, col0)`.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if it does not fit.
    pub fn block(self, row0: usize, col0: usize, rows: usize, cols: usize) -> Result<Self> {
        let b = self.layout.block(row0, col0, rows, cols)?;
        // The block's first element is inside the parent (or the block is empty).
        let ptr = self.ptr.wrapping_add(b.offset);
        Ok(MatRef {
            ptr,
            layout: MatLayout { offset: 0, ..b },
            _borrow: PhantomData,
        })
    }

    /// The elements in column-major order (a packed copy).
    pub fn to_col_major(&self) -> Vec<T>
    where
        T: Clone,
    {
        let mut out = Vec::with_capacity(self.rows() * self.cols());
        for j in 0..self.cols() {
            for i in 0..self.rows() {
                out.push(self.at(i, j).clone());
            }
        }
        out
    }
}

impl<'a, T> MatMut<'a, T> {
    fn checked(arg: &'static str, data: &'a mut [T], layout: MatLayout) -> Result<Self> {
        layout.check_in(arg, data.len())?;
        if !layout.is_injective() {
            return Err(Error::InvalidView {
                arg,
                reason: "the strides make two elements of a mutable view share storage",
            });
        }
        Ok(MatMut {
            ptr: data.as_mut_ptr(),
            layout,
            _borrow: PhantomData,
        })
    }

    /// `rows × cols`, column-major with leading dimension `ld` (`ld ≥ max(1, rows)`).
    ///
    /// # Errors
    /// [`Error::LeadingDim`] (`"ld"`), [`Error::ArrayTooShort`] (`"data"`).
    pub fn col_major(data: &'a mut [T], rows: usize, cols: usize, ld: usize) -> Result<Self> {
        let layout = MatLayout::blas_arg(("data", "ld"), Trans::No, rows, cols, ld, data.len())?;
        Self::checked("data", data, layout)
    }

    /// `rows × cols`, row-major with leading dimension `ld` (`ld ≥ max(1, cols)`).
    ///
    /// # Errors
    /// [`Error::LeadingDim`] (`"ld"`), [`Error::ArrayTooShort`] (`"data"`).
    pub fn row_major(data: &'a mut [T], rows: usize, cols: usize, ld: usize) -> Result<Self> {
        let layout = MatLayout::blas_arg(("data", "ld"), Trans::Yes, rows, cols, ld, data.len())?;
        Self::checked("data", data, layout)
    }

    /// The output matrix of a BLAS routine: `rows × cols`, column-major in `data` with leading
    /// dimension `ld`; `names` are the BLAS names reported in errors, e.g. `("c", "ldc")`.
    ///
    /// # Errors
    /// [`Error::LeadingDim`], [`Error::ArrayTooShort`] under those names.
    pub fn from_blas(
        names: (&'static str, &'static str),
        rows: usize,
        cols: usize,
        data: &'a mut [T],
        ld: usize,
    ) -> Result<Self> {
        let layout = MatLayout::blas_arg(names, Trans::No, rows, cols, ld, data.len())?;
        Self::checked(names.0, data, layout)
    }

    /// `rows × cols` with element `(i, j)` at `data[i·row_stride + j·col_stride]`.
    ///
    /// # Errors
    /// [`Error::ArrayTooShort`] (`"data"`); [`Error::InvalidView`] if two elements would share
    /// storage.
    pub fn with_strides(
        data: &'a mut [T],
        rows: usize,
        cols: usize,
        row_stride: usize,
        col_stride: usize,
    ) -> Result<Self> {
        let layout = MatLayout {
            rows,
            cols,
            row_stride,
            col_stride,
            offset: 0,
        };
        Self::checked("data", data, layout)
    }

    /// A view from a raw pointer to element `(0, 0)` (`layout.offset` is ignored).
    ///
    /// # Safety
    /// For `'a`, every `ptr + i·row_stride + j·col_stride` with `i < rows`, `j < cols` must
    /// point to a live, initialised `T` that nothing else reads or writes, and these
    /// addresses must be pairwise distinct.
    pub unsafe fn from_raw_parts(ptr: *mut T, layout: MatLayout) -> Self {
        MatMut {
            ptr,
            layout: MatLayout {
                offset: 0,
                ..layout
            },
            _borrow: PhantomData,
        }
    }

    /// Shape and strides (offset 0).
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

    /// A read-only view of the same elements, for the duration of the borrow.
    pub fn rb(&self) -> MatRef<'_, T> {
        MatRef {
            ptr: self.ptr,
            layout: self.layout,
            _borrow: PhantomData,
        }
    }

    /// A shorter-lived mutable view of the same elements.
    pub fn rb_mut(&mut self) -> MatMut<'_, T> {
        MatMut {
            ptr: self.ptr,
            layout: self.layout,
            _borrow: PhantomData,
        }
    }

    /// The transpose (no copy).
    pub fn t(self) -> Self {
        MatMut {
            layout: self.layout.t(),
            ..self
        }
    }

    /// Element `(i, j)`, or `None` outside the matrix.
    pub fn get_mut(&mut self, i: usize, j: usize) -> Option<&mut T> {
        (i < self.rows() && j < self.cols()).then(|| self.at_mut(i, j))
    }

    /// Element `(i, j)`; the caller guarantees `i < rows`, `j < cols`.
    #[inline]
    pub(crate) fn at_mut(&mut self, i: usize, j: usize) -> &mut T {
        debug_assert!(i < self.rows() && j < self.cols());
        // SAFETY: in range (the caller's contract), inside the checked storage, and the view's
        // elements are distinct, so this is the only reference to the element (`&mut self`).
        unsafe { &mut *self.ptr.add(self.layout.index(i, j)) }
    }

    /// The `rows × cols` block at `(row0, col0)`.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] if it does not fit.
    pub fn block(self, row0: usize, col0: usize, rows: usize, cols: usize) -> Result<Self> {
        let b = self.layout.block(row0, col0, rows, cols)?;
        Ok(MatMut {
            ptr: self.ptr.wrapping_add(b.offset),
            layout: MatLayout { offset: 0, ..b },
            _borrow: PhantomData,
        })
    }
}

// ---- vectors -------------------------------------------------------------------------------------

/// A read-only strided vector: element `i` at `i·inc` from element 0, with the BLAS meaning
/// of a negative increment (element 0 is then the last one in storage).
pub struct VecRef<'a, T> {
    ptr: *const T,
    len: usize,
    inc: isize,
    _borrow: PhantomData<&'a [T]>,
}

/// A mutable strided vector (as [`VecRef`]; the increment is never 0).
pub struct VecMut<'a, T> {
    ptr: *mut T,
    len: usize,
    inc: isize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: as for MatRef.
unsafe impl<T: Sync> Send for VecRef<'_, T> {}
// SAFETY: as for MatRef.
unsafe impl<T: Sync> Sync for VecRef<'_, T> {}
// SAFETY: as for MatMut.
unsafe impl<T: Send> Send for VecMut<'_, T> {}
// SAFETY: as for MatMut.
unsafe impl<T: Sync> Sync for VecMut<'_, T> {}

impl<T> Clone for VecRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for VecRef<'_, T> {}

impl<T> std::fmt::Debug for VecRef<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VecRef")
            .field("len", &self.len)
            .field("inc", &self.inc)
            .finish()
    }
}
impl<T> std::fmt::Debug for VecMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VecMut")
            .field("len", &self.len)
            .field("inc", &self.inc)
            .finish()
    }
}

/// Where element 0 of a BLAS vector of `n` elements with increment `inc` lies in storage of
/// `len` elements: [`Error::InvalidView`] for `inc = 0` (as reference BLAS), else
/// [`Error::ArrayTooShort`] if `1 + (n−1)·|inc|` elements do not fit.
pub(crate) fn blas_vector(arg: &'static str, len: usize, n: usize, inc: isize) -> Result<usize> {
    if inc == 0 {
        return Err(Error::InvalidView {
            arg,
            reason: "an increment of 0 (BLAS requires incx != 0)",
        });
    }
    if n == 0 {
        return Ok(0);
    }
    let step = inc.unsigned_abs();
    let need = (n - 1)
        .checked_mul(step)
        .and_then(|x| x.checked_add(1))
        .unwrap_or(usize::MAX);
    if len < need {
        return Err(Error::ArrayTooShort {
            arg,
            got: len,
            min: need,
        });
    }
    Ok(if inc > 0 { 0 } else { need - 1 })
}

impl<'a, T> VecRef<'a, T> {
    /// The BLAS vector `x` of `n` elements with increment `inc` in `data` (for `inc < 0`,
    /// element 0 is `data[(n−1)·|inc|]`), `arg` naming it in errors.
    ///
    /// # Errors
    /// [`Error::InvalidView`] for `inc = 0`; [`Error::ArrayTooShort`].
    pub fn from_blas(arg: &'static str, n: usize, data: &'a [T], inc: isize) -> Result<Self> {
        let start = blas_vector(arg, data.len(), n, inc)?;
        Ok(VecRef {
            ptr: data.as_ptr().wrapping_add(start),
            len: n,
            inc,
            _borrow: PhantomData,
        })
    }

    /// All of `data`, increment 1.
    pub fn contiguous(data: &'a [T]) -> Self {
        VecRef {
            ptr: data.as_ptr(),
            len: data.len(),
            inc: 1,
            _borrow: PhantomData,
        }
    }

    /// A view from a raw pointer to element 0.
    ///
    /// # Safety
    /// For `'a`, every `ptr + i·inc`, `i < len`, must point to a live, initialised `T` that
    /// nothing writes.
    pub unsafe fn from_raw_parts(ptr: *const T, len: usize, inc: isize) -> Self {
        VecRef {
            ptr,
            len,
            inc,
            _borrow: PhantomData,
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

    /// Element `i`, or `None` beyond the end.
    pub fn get(&self, i: usize) -> Option<&'a T> {
        (i < self.len).then(|| self.at(i))
    }

    /// Element `i`; the caller guarantees `i < len`.
    #[inline]
    pub(crate) fn at(&self, i: usize) -> &'a T {
        debug_assert!(i < self.len);
        // SAFETY: in range, inside the checked storage (`i·inc` from element 0 cannot leave
        // it), borrowed for 'a.
        unsafe { &*self.ptr.offset(i as isize * self.inc) }
    }

    /// Elements `start..start + len` as a slice, if the increment is 1 (and they are in range).
    #[inline]
    pub(crate) fn contiguous_range(&self, start: usize, len: usize) -> Option<&'a [T]> {
        if self.inc != 1 || start.checked_add(len)? > self.len {
            return None;
        }
        // SAFETY: increment 1, so elements start..start+len are adjacent in the checked
        // storage, borrowed for 'a.
        Some(unsafe { std::slice::from_raw_parts(self.ptr.add(start), len) })
    }

    /// The elements in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'a T> + '_ {
        (0..self.len).map(|i| self.at(i))
    }
}

impl<'a, T> VecMut<'a, T> {
    /// The BLAS vector `y` of `n` elements with increment `inc` in `data`, as
    /// [`VecRef::from_blas`].
    ///
    /// # Errors
    /// [`Error::InvalidView`] for `inc = 0`; [`Error::ArrayTooShort`].
    pub fn from_blas(arg: &'static str, n: usize, data: &'a mut [T], inc: isize) -> Result<Self> {
        let start = blas_vector(arg, data.len(), n, inc)?;
        Ok(VecMut {
            ptr: data.as_mut_ptr().wrapping_add(start),
            len: n,
            inc,
            _borrow: PhantomData,
        })
    }

    /// All of `data`, increment 1.
    pub fn contiguous(data: &'a mut [T]) -> Self {
        VecMut {
            ptr: data.as_mut_ptr(),
            len: data.len(),
            inc: 1,
            _borrow: PhantomData,
        }
    }

    /// A view from a raw pointer to element 0.
    ///
    /// # Safety
    /// For `'a`, every `ptr + i·inc`, `i < len`, must point to a live, initialised `T` that
    /// nothing else reads or writes, and `inc ≠ 0` unless `len ≤ 1`.
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize, inc: isize) -> Self {
        VecMut {
            ptr,
            len,
            inc,
            _borrow: PhantomData,
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

    /// A read-only view of the same elements.
    pub fn rb(&self) -> VecRef<'_, T> {
        VecRef {
            ptr: self.ptr,
            len: self.len,
            inc: self.inc,
            _borrow: PhantomData,
        }
    }

    /// Element `i`, or `None` beyond the end.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        (i < self.len).then(|| self.at_mut(i))
    }

    /// Element `i`; the caller guarantees `i < len`.
    #[inline]
    pub(crate) fn at_mut(&mut self, i: usize) -> &mut T {
        debug_assert!(i < self.len);
        // SAFETY: in range, inside the checked storage, distinct from every other element
        // (inc ≠ 0), and `&mut self` makes this the only reference.
        unsafe { &mut *self.ptr.offset(i as isize * self.inc) }
    }
}

// The ndarray and faer adapters (`TryFrom` / `From` their views), each behind its feature.
#[cfg(any(feature = "ndarray", feature = "faer"))]
mod interop;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blas_arguments_are_checked_under_their_names() {
        let a = [0.0; 6];
        assert!(MatRef::from_blas(("a", "lda"), Trans::No, 2, 3, &a, 2).is_ok());
        assert_eq!(
            MatRef::from_blas(("a", "lda"), Trans::No, 2, 3, &a, 1).map(|_| ()),
            Err(Error::LeadingDim {
                arg: "lda",
                got: 1,
                min: 2
            })
        );
        assert_eq!(
            MatRef::from_blas(("a", "lda"), Trans::Yes, 4, 2, &a, 2).map(|_| ()),
            Err(Error::ArrayTooShort {
                arg: "a",
                got: 6,
                min: 8
            })
        );
        // An empty matrix needs no storage, but a valid leading dimension.
        assert!(MatRef::<f64>::from_blas(("a", "lda"), Trans::No, 0, 5, &[], 1).is_ok());
        assert!(MatRef::from_blas(("a", "lda"), Trans::No, 0, 5, &a, 0).is_err());
    }

    #[test]
    fn transposes_and_blocks_address_the_right_elements() {
        let data: Vec<f64> = (0..12).map(f64::from).collect();
        let a = MatRef::col_major(&data, 3, 4, 3).unwrap();
        assert_eq!(*a.at(2, 1), 5.0);
        assert_eq!(*a.t().at(1, 2), 5.0);
        assert_eq!(a.layout().blas(), Some((Trans::No, 3)));
        assert_eq!(a.t().layout().blas(), Some((Trans::Yes, 3)));
        let b = a.block(1, 1, 2, 3).unwrap();
        assert_eq!(b.to_col_major(), vec![4.0, 5.0, 7.0, 8.0, 10.0, 11.0]);
        assert!(a.block(2, 0, 2, 1).is_err());
        assert!(a.block(usize::MAX, 0, 2, 1).is_err());
        let r = MatRef::row_major(&data, 3, 4, 4).unwrap();
        assert_eq!(*r.at(1, 2), 6.0);
        assert_eq!(r.get(3, 0), None);
    }

    #[test]
    fn mutable_views_never_alias() {
        let mut data = [0.0; 8];
        assert!(MatMut::with_strides(&mut data, 2, 2, 1, 1).is_err());
        assert!(MatMut::with_strides(&mut data, 2, 2, 0, 2).is_err());
        assert!(MatMut::with_strides(&mut data, 2, 2, 1, 2).is_ok());
        assert!(MatMut::with_strides(&mut data, 1, 8, 0, 1).is_ok());
        let mut m = MatMut::with_strides(&mut data, 2, 2, 4, 1).unwrap();
        *m.at_mut(1, 1) = 3.0;
        assert_eq!(data[5], 3.0);
        // Huge strides are an error, not an overflow.
        assert!(MatRef::with_strides(&data, 2, 2, usize::MAX, 1).is_err());
    }

    #[test]
    fn blas_vectors_follow_the_increment() {
        let data = [1.0, 2.0, 3.0, 4.0, 5.0];
        let x = VecRef::from_blas("x", 3, &data, 2).unwrap();
        assert_eq!(x.iter().copied().collect::<Vec<_>>(), vec![1.0, 3.0, 5.0]);
        let y = VecRef::from_blas("x", 3, &data, -2).unwrap();
        assert_eq!(y.iter().copied().collect::<Vec<_>>(), vec![5.0, 3.0, 1.0]);
        assert!(matches!(
            VecRef::from_blas("x", 3, &data, 0),
            Err(Error::InvalidView { arg: "x", .. })
        ));
        assert_eq!(
            VecRef::from_blas("x", 4, &data, 2).map(|_| ()),
            Err(Error::ArrayTooShort {
                arg: "x",
                got: 5,
                min: 7
            })
        );
        let mut d = data;
        let mut v = VecMut::from_blas("y", 2, &mut d, -3).unwrap();
        *v.at_mut(0) = 0.0;
        assert_eq!(d[3], 0.0);
    }
}
