//! Views of `ndarray` and `faer` matrices and vectors as [`MatRef`], [`MatMut`], [`VecRef`],
//! [`VecMut`]: the same elements, no copy (features `ndarray` and `faer`).

use super::{MatLayout, MatMut, MatRef, VecRef};
use crate::error::{Error, Result};

/// Strides of a foreign view as `usize`, or [`Error::InvalidView`] if one is negative.
fn non_negative(arg: &'static str, strides: [isize; 2]) -> Result<[usize; 2]> {
    match strides.map(usize::try_from) {
        [Ok(r), Ok(c)] => Ok([r, c]),
        _ => Err(Error::InvalidView {
            arg,
            reason: "negative matrix strides (make the view standard-layout first)",
        }),
    }
}

#[cfg(feature = "ndarray")]
mod ndarray_views {
    use super::*;
    use crate::view::VecMut;
    use ndarray::{ArrayView1, ArrayView2, ArrayViewMut1, ArrayViewMut2};

    impl<'a, T> TryFrom<ArrayView2<'a, T>> for MatRef<'a, T> {
        type Error = Error;
        /// The same elements, no copy. Fails for negative strides.
        fn try_from(a: ArrayView2<'a, T>) -> Result<Self> {
            let (rows, cols) = a.dim();
            let [rs, cs] = non_negative("ndarray view", [a.strides()[0], a.strides()[1]])?;
            let layout = MatLayout {
                rows,
                cols,
                row_stride: rs,
                col_stride: cs,
                offset: 0,
            };
            // SAFETY: ndarray guarantees every (i, j) in range addresses a live element of
            // the view's storage for its lifetime 'a, read-only.
            Ok(unsafe { MatRef::from_raw_parts(a.as_ptr(), layout) })
        }
    }

    impl<'a, T> TryFrom<ArrayViewMut2<'a, T>> for MatMut<'a, T> {
        type Error = Error;
        /// The same elements, no copy. Fails for negative strides.
        fn try_from(mut a: ArrayViewMut2<'a, T>) -> Result<Self> {
            let (rows, cols) = a.dim();
            let [rs, cs] = non_negative("ndarray view", [a.strides()[0], a.strides()[1]])?;
            let layout = MatLayout {
                rows,
                cols,
                row_stride: rs,
                col_stride: cs,
                offset: 0,
            };
            // ndarray's mutable views never alias (a zero stride only with a dimension of 1).
            debug_assert!(layout.is_injective());
            // SAFETY: ndarray guarantees exclusive access to distinct, live elements at those
            // positions for 'a.
            Ok(unsafe { MatMut::from_raw_parts(a.as_mut_ptr(), layout) })
        }
    }

    impl<'a, T> From<ArrayView1<'a, T>> for VecRef<'a, T> {
        /// The same elements, no copy (a negative stride is a BLAS negative increment).
        fn from(x: ArrayView1<'a, T>) -> Self {
            // SAFETY: ndarray guarantees element i at ptr + i·stride, live for 'a.
            unsafe { VecRef::from_raw_parts(x.as_ptr(), x.len(), x.strides()[0]) }
        }
    }

    impl<'a, T> From<ArrayViewMut1<'a, T>> for VecMut<'a, T> {
        /// The same elements, no copy.
        fn from(mut x: ArrayViewMut1<'a, T>) -> Self {
            let (len, inc) = (x.len(), x.strides()[0]);
            // SAFETY: as above, with exclusive access; a mutable ndarray view of more than one
            // element has a non-zero stride.
            unsafe { VecMut::from_raw_parts(x.as_mut_ptr(), len, inc) }
        }
    }
}

#[cfg(feature = "faer")]
mod faer_views {
    use super::*;

    impl<'a, T> TryFrom<faer::MatRef<'a, T>> for MatRef<'a, T> {
        type Error = Error;
        /// The same elements, no copy. Fails for negative strides.
        fn try_from(a: faer::MatRef<'a, T>) -> Result<Self> {
            let [rs, cs] = non_negative("faer view", [a.row_stride(), a.col_stride()])?;
            let layout = MatLayout {
                rows: a.nrows(),
                cols: a.ncols(),
                row_stride: rs,
                col_stride: cs,
                offset: 0,
            };
            // SAFETY: faer guarantees every (i, j) in range addresses a live element for 'a.
            Ok(unsafe { MatRef::from_raw_parts(a.as_ptr(), layout) })
        }
    }

    impl<'a, T> TryFrom<faer::MatMut<'a, T>> for MatMut<'a, T> {
        type Error = Error;
        /// The same elements, no copy. Fails for negative strides.
        fn try_from(a: faer::MatMut<'a, T>) -> Result<Self> {
            let [rs, cs] = non_negative("faer view", [a.row_stride(), a.col_stride()])?;
            let layout = MatLayout {
                rows: a.nrows(),
                cols: a.ncols(),
                row_stride: rs,
                col_stride: cs,
                offset: 0,
            };
            if !layout.is_injective() {
                return Err(Error::InvalidView {
                    arg: "faer view",
                    reason: "the strides make two elements of a mutable view share storage",
                });
            }
            // SAFETY: faer guarantees exclusive access to live elements at those positions for
            // 'a; they are distinct (checked above).
            Ok(unsafe { MatMut::from_raw_parts(a.as_ptr_mut(), layout) })
        }
    }

    impl<'a, T> From<faer::ColRef<'a, T>> for VecRef<'a, T> {
        /// The same elements, no copy.
        fn from(x: faer::ColRef<'a, T>) -> Self {
            // SAFETY: faer guarantees element i at ptr + i·stride, live for 'a.
            unsafe { VecRef::from_raw_parts(x.as_ptr(), x.nrows(), x.row_stride()) }
        }
    }
}
