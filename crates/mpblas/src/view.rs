//! Matrix arguments: the BLAS conventions (column-major storage, leading dimensions, transpose
//! flags) and their checks, shared by every routine on every device.

use crate::error::{Error, Result};

/// Whether a matrix argument is used as stored or transposed (BLAS `'N'` / `'T'`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Trans {
    /// Use the matrix as stored (`'N'`).
    No,
    /// Use its transpose (`'T'`).
    Yes,
}

/// Checks a column-major `rows × cols` matrix in an array of `len` elements with leading
/// dimension `ld`: [`Error::LeadingDim`] if `ld < max(1, rows)`, [`Error::ArrayTooShort`] if
/// the array cannot hold it (`ld·(cols−1) + rows` elements; nothing for an empty matrix).
pub(crate) fn check_matrix(
    arg: &'static str,
    ldarg: &'static str,
    rows: usize,
    cols: usize,
    len: usize,
    ld: usize,
) -> Result<()> {
    let min_ld = rows.max(1);
    if ld < min_ld {
        return Err(Error::LeadingDim {
            arg: ldarg,
            got: ld,
            min: min_ld,
        });
    }
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let need = ld
        .checked_mul(cols - 1)
        .and_then(|x| x.checked_add(rows))
        .unwrap_or(usize::MAX);
    if len < need {
        return Err(Error::ArrayTooShort {
            arg,
            got: len,
            min: need,
        });
    }
    Ok(())
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
    let (ar, ac) = match transa {
        Trans::No => (m, k),
        Trans::Yes => (k, m),
    };
    let (br, bc) = match transb {
        Trans::No => (k, n),
        Trans::Yes => (n, k),
    };
    check_matrix("a", "lda", ar, ac, a_len, lda)?;
    check_matrix("b", "ldb", br, bc, b_len, ldb)?;
    check_matrix("c", "ldc", m, n, c_len, ldc)?;
    // The packed copies need m·k, n·k and m·n elements: no more than a, b and c hold, so
    // those sizes cannot overflow once the checks above passed.
    Ok(())
}
