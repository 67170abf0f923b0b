//! The slice products of the Ozaki schemes on the CPU, in the one layout every stage uses:
//! the left factor is `m` row vectors of length `k` (row-major, `m × k`), the right factor is
//! `n` column vectors of length `k` (column-major `k × n`, stored as `n` runs of `k`), and the
//! product is column-major `m × n` with leading dimension `m`. This is cuBLAS's "TN" layout,
//! the fast one for INT8 tensor cores, so the GPU stages take the same buffers.
//!
//! - [`gemm_f64`] / [`gemm_f32`]: `matrixmultiply`'s kernels, one call per block of columns,
//!   the blocks run in parallel with rayon.
//! - [`gemm_i8_i32`]: an exact INT8 × INT8 → INT32 product written here, blocked and
//!   rayon-parallel. Exact as long as `k · 128² < 2^31`, i.e. `k ≤` [`I8_MAX_K`].
//!
//! These functions are internal building blocks: they check only what they need for memory
//! safety (buffer lengths) and report a violation as an error rather than panicking.

use crate::error::{Error, Result};
use rayon::prelude::*;

/// Largest inner dimension for which [`gemm_i8_i32`] cannot overflow: every product of two
/// `i8` is at most 2^14 in magnitude (−128·−128), and 2^17 − 1 of them stay below 2^31.
pub const I8_MAX_K: usize = (1 << 17) - 1;

/// Columns of the product handled by one rayon task.
const COL_BLOCK: usize = 32;

fn need(arg: &'static str, got: usize, min: usize) -> Result<()> {
    if got < min {
        return Err(Error::ArrayTooShort { arg, got, min });
    }
    Ok(())
}

fn check_tn(m: usize, n: usize, k: usize, a: usize, b: usize, c: usize) -> Result<()> {
    let mk = m.checked_mul(k).ok_or(Error::OutOfRange {
        what: "m·k",
        got: usize::MAX,
        min: 0,
        max: isize::MAX as usize,
    })?;
    let nk = n.checked_mul(k).ok_or(Error::OutOfRange {
        what: "n·k",
        got: usize::MAX,
        min: 0,
        max: isize::MAX as usize,
    })?;
    let mn = m.checked_mul(n).ok_or(Error::OutOfRange {
        what: "m·n",
        got: usize::MAX,
        min: 0,
        max: isize::MAX as usize,
    })?;
    need("a", a, mk)?;
    need("b", b, nk)?;
    need("c", c, mn)
}

/// `c = a · bᵀ` in `f64` (overwrites `c`): `a` is `m × k` row-major, `b` holds `n` columns of
/// length `k`, `c` is `m × n` column-major. Rounded as `matrixmultiply` rounds (FMA or not,
/// its own blocking): exact whenever every partial sum is representable, which is all the
/// Ozaki scheme relies on.
///
/// # Errors
/// [`Error::ArrayTooShort`] if a buffer is shorter than the dimensions need.
pub fn gemm_f64(m: usize, n: usize, k: usize, a: &[f64], b: &[f64], c: &mut [f64]) -> Result<()> {
    check_tn(m, n, k, a.len(), b.len(), c.len())?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 {
        c[..m * n].fill(0.0);
        return Ok(());
    }
    let bk = &b[..n * k];
    c[..m * n]
        .par_chunks_mut(m * COL_BLOCK)
        .enumerate()
        .for_each(|(blk, cblk)| {
            let j0 = blk * COL_BLOCK;
            let nb = cblk.len() / m;
            let bpart = &bk[j0 * k..(j0 + nb) * k];
            // SAFETY: a has m·k elements read at i·k + l (rsa = k, csa = 1); bpart has nb·k
            // elements read at l + j·k (rsb = 1, csb = k); cblk has m·nb elements written at
            // i + j·m (rsc = 1, csc = m). All lengths were checked above; beta = 0 means c is
            // not read.
            unsafe {
                matrixmultiply::dgemm(
                    m,
                    k,
                    nb,
                    1.0,
                    a.as_ptr(),
                    k as isize,
                    1,
                    bpart.as_ptr(),
                    1,
                    k as isize,
                    0.0,
                    cblk.as_mut_ptr(),
                    1,
                    m as isize,
                );
            }
        });
    Ok(())
}

/// `c = a · bᵀ` in `f32` (overwrites `c`), the layout of [`gemm_f64`].
///
/// # Errors
/// [`Error::ArrayTooShort`] if a buffer is shorter than the dimensions need.
pub fn gemm_f32(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], c: &mut [f32]) -> Result<()> {
    check_tn(m, n, k, a.len(), b.len(), c.len())?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 {
        c[..m * n].fill(0.0);
        return Ok(());
    }
    let bk = &b[..n * k];
    c[..m * n]
        .par_chunks_mut(m * COL_BLOCK)
        .enumerate()
        .for_each(|(blk, cblk)| {
            let j0 = blk * COL_BLOCK;
            let nb = cblk.len() / m;
            let bpart = &bk[j0 * k..(j0 + nb) * k];
            // SAFETY: as in gemm_f64, with f32 buffers of the same checked lengths.
            unsafe {
                matrixmultiply::sgemm(
                    m,
                    k,
                    nb,
                    1.0,
                    a.as_ptr(),
                    k as isize,
                    1,
                    bpart.as_ptr(),
                    1,
                    k as isize,
                    0.0,
                    cblk.as_mut_ptr(),
                    1,
                    m as isize,
                );
            }
        });
    Ok(())
}

/// Rows of `a` per register block in the INT8 kernel (each row's dot products with the same
/// columns of `b` reuse the loaded column).
const I8_ROWS: usize = 4;
/// Inner-dimension block: a row strip of `I8_ROWS × I8_KB` and a column of `I8_KB` stay in L1.
const I8_KB: usize = 1024;

/// Exact `c = a · bᵀ` for `i8` inputs with `i32` results (overwrites `c`), the layout of
/// [`gemm_f64`]. Every partial sum is an integer below 2^31 when `k ≤` [`I8_MAX_K`], so the
/// result is exact and independent of the blocking and thread count.
///
/// # Errors
/// [`Error::ArrayTooShort`] if a buffer is too short; [`Error::OutOfRange`] if `k >`
/// [`I8_MAX_K`] (use [`gemm_i8_i32_part`] over parts of the inner dimension).
pub fn gemm_i8_i32(m: usize, n: usize, k: usize, a: &[i8], b: &[i8], c: &mut [i32]) -> Result<()> {
    gemm_i8_i32_part(m, n, k, 0, k, a, b, c)
}

/// Exact `c = Σ_{l0 ≤ l < l1} a_il·b_lj` over part of the inner dimension of the operands of
/// [`gemm_i8_i32`] (rows of `a` and columns of `b` still have stride `k`).
///
/// # Errors
/// [`Error::ArrayTooShort`] if a buffer is too short; [`Error::OutOfRange`] if
/// `l0 > l1`, `l1 > k` or `l1 − l0 >` [`I8_MAX_K`].
#[allow(clippy::too_many_arguments)]
pub fn gemm_i8_i32_part(
    m: usize,
    n: usize,
    k: usize,
    l0: usize,
    l1: usize,
    a: &[i8],
    b: &[i8],
    c: &mut [i32],
) -> Result<()> {
    check_tn(m, n, k, a.len(), b.len(), c.len())?;
    if l0 > l1 || l1 > k {
        return Err(Error::OutOfRange {
            what: "end of the inner-dimension part",
            got: l1,
            min: l0,
            max: k,
        });
    }
    if l1 - l0 > I8_MAX_K {
        return Err(Error::OutOfRange {
            what: "k (inner dimension of one INT8 product)",
            got: l1 - l0,
            min: 0,
            max: I8_MAX_K,
        });
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    let a = &a[..m * k];
    let b = &b[..n * k];
    c[..m * n]
        .par_chunks_mut(m * COL_BLOCK)
        .enumerate()
        .for_each(|(blk, cblk)| {
            cblk.fill(0);
            let j0 = blk * COL_BLOCK;
            let nb = cblk.len() / m;
            let mut lb = l0;
            while lb < l1 {
                let kb = I8_KB.min(l1 - lb);
                for jj in 0..nb {
                    let bcol = &b[(j0 + jj) * k + lb..(j0 + jj) * k + lb + kb];
                    let ccol = &mut cblk[jj * m..(jj + 1) * m];
                    let mut i = 0;
                    while i + I8_ROWS <= m {
                        let r0 = &a[i * k + lb..i * k + lb + kb];
                        let r1 = &a[(i + 1) * k + lb..(i + 1) * k + lb + kb];
                        let r2 = &a[(i + 2) * k + lb..(i + 2) * k + lb + kb];
                        let r3 = &a[(i + 3) * k + lb..(i + 3) * k + lb + kb];
                        let (mut s0, mut s1, mut s2, mut s3) = (0i32, 0i32, 0i32, 0i32);
                        for l in 0..kb {
                            let y = bcol[l] as i32;
                            s0 += r0[l] as i32 * y;
                            s1 += r1[l] as i32 * y;
                            s2 += r2[l] as i32 * y;
                            s3 += r3[l] as i32 * y;
                        }
                        ccol[i] += s0;
                        ccol[i + 1] += s1;
                        ccol[i + 2] += s2;
                        ccol[i + 3] += s3;
                        i += I8_ROWS;
                    }
                    while i < m {
                        let r = &a[i * k + lb..i * k + lb + kb];
                        let s: i32 = r.iter().zip(bcol).map(|(&x, &y)| x as i32 * y as i32).sum();
                        ccol[i] += s;
                        i += 1;
                    }
                }
                lb += kb;
            }
        });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state >> 33
    }

    #[test]
    fn i8_gemm_is_exact_at_extremes_and_block_edges() {
        let mut s = 7u64;
        for &(m, n, k) in &[
            (1, 1, 1),
            (5, 3, 7),
            (9, 33, 1025),
            (4, 65, 2049),
            (3, 2, 0),
        ] {
            let a: Vec<i8> = (0..m * k)
                .map(|i| if i % 3 == 0 { -128 } else { lcg(&mut s) as i8 })
                .collect();
            let b: Vec<i8> = (0..n * k)
                .map(|i| if i % 5 == 0 { -128 } else { lcg(&mut s) as i8 })
                .collect();
            let mut c = vec![1i32; m * n];
            gemm_i8_i32(m, n, k, &a, &b, &mut c).unwrap();
            for i in 0..m {
                for j in 0..n {
                    let want: i64 = (0..k)
                        .map(|l| a[i * k + l] as i64 * b[j * k + l] as i64)
                        .sum();
                    assert_eq!(c[i + j * m] as i64, want, "({m},{n},{k}) at ({i},{j})");
                }
            }
        }
    }

    #[test]
    fn i8_gemm_worst_case_k_fits() {
        // k = I8_MAX_K copies of (−128)·(−128) = 2^14: the sum 2^31 − 2^14 < 2^31.
        let k = I8_MAX_K;
        let a = vec![-128i8; k];
        let mut c = vec![0i32; 1];
        gemm_i8_i32(1, 1, k, &a, &a, &mut c).unwrap();
        assert_eq!(c[0] as i64, (k as i64) << 14);
        assert!(matches!(
            gemm_i8_i32(1, 1, k + 1, &[0; I8_MAX_K + 1], &[0; I8_MAX_K + 1], &mut c),
            Err(Error::OutOfRange { .. })
        ));
    }

    #[test]
    fn float_gemms_match_naive_on_integers() {
        let (m, n, k) = (7, 40, 13);
        let a: Vec<f64> = (0..m * k).map(|i| (i % 11) as f64 - 5.0).collect();
        let b: Vec<f64> = (0..n * k).map(|i| (i % 7) as f64 - 3.0).collect();
        let mut c = vec![f64::NAN; m * n];
        gemm_f64(m, n, k, &a, &b, &mut c).unwrap();
        let a32: Vec<f32> = a.iter().map(|&x| x as f32).collect();
        let b32: Vec<f32> = b.iter().map(|&x| x as f32).collect();
        let mut c32 = vec![f32::NAN; m * n];
        gemm_f32(m, n, k, &a32, &b32, &mut c32).unwrap();
        for i in 0..m {
            for j in 0..n {
                let want: f64 = (0..k).map(|l| a[i * k + l] * b[j * k + l]).sum();
                assert_eq!(c[i + j * m], want);
                assert_eq!(c32[i + j * m] as f64, want);
            }
        }
        assert!(matches!(
            gemm_f64(m, n, k, &a[1..], &b, &mut c),
            Err(Error::ArrayTooShort { arg: "a", .. })
        ));
    }
}
