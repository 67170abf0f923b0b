//! BLAS level 2 in RNS multiple precision on the GPU (`blas_level2_rns_gpu.cu`): `gemv` and
//! `ger` on [`DeviceMpArray`] storage with BLAS-style arguments, returning the bits (and, for
//! [`gemv_bounded`], the bounds) of the CPU's [`level2`](super::level2) routines on
//! [`MpFloat`] for the same arguments, whatever the launch.
//!
//! `gemv` forms each row's dot product in the level-1 blocked order: one kernel computes every
//! lane of every chunk (a fused multiply-add per term, as the CPU's `add_product`), one launch
//! per level of the halving tree joins the lanes (the CPU's addition), later passes sum the chunk
//! results the same way, and a finish kernel forms `α·s_i + β·y_i`. Each thread runs the CPU's
//! own algorithms (`rns.cuh`, fused operations) on operands in local memory; every operation is
//! correctly rounded, so every node of the tree, and the result, has the CPU's bits.
//!
//! This is the reference form of the MPRES-BLAS GEMV paper's split design (its Algorithm 1
//! scales `x` by `α` first; here `α` multiplies the row sums, as the CPU does, so that the two
//! agree bit for bit).

use super::level2::{RowBound, is_zero, unchanged_bound};
use super::sum::{CHUNK, LANES};
use crate::cuda::{Arg, Device, Header, ModuleSource};
use crate::error::{Error, Result};
use crate::rns::array_gpu::{DeviceMpArray, RNS_CUH};
use crate::rns::{Basis, MpArray, MpFloat};
use crate::scalar::Scalar;
use crate::view::{MatLayout, Trans, blas_vector};
use std::sync::{Arc, Mutex};

/// The entry points of `blas_level2_rns_gpu.cu` (`tests/kernel_names.rs` checks each).
pub(crate) const KERNELS: &[&str] = &[
    "blas_rns_gemv_lanes",
    "blas_rns_gemv_join_lanes",
    "blas_rns_gemv_tree",
    "blas_rns_gemv_finish",
    "blas_rns_copy",
    "blas_rns_ger_scale",
    "blas_rns_ger_update",
];

/// `blas_rns.cuh`: the kernels' strided view of a device RNS array (`RnsArg`), shared with
/// the fused GEMV's module.
pub(crate) static BLAS_RNS_CUH: Header = Header {
    name: "blas_rns.cuh",
    text: include_str!("blas_rns.cuh"),
};

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "blas_level2_rns_gpu",
    source: include_str!("blas_level2_rns_gpu.cu"),
    headers: &[&crate::eft::EFT_CUH, &RNS_CUH, &BLAS_RNS_CUH],
    kernels: KERNELS,
};

/// A strided view of a device array as the kernels' `RnsArg`: element `(i, j)` at
/// `off + i·rs + j·cs`.
pub(crate) fn rns_arg(a: &DeviceMpArray, off: usize, rs: isize, cs: isize) -> Arg {
    Arg::Struct(Box::new([
        a.digits.addr(),
        a.sign.addr(),
        a.exp.addr(),
        a.eval.addr(),
        a.class.addr(),
        a.len() as u64,
        off as u64,
        rs as i64 as u64,
        cs as i64 as u64,
    ]))
}

/// The whole array, element `i` at `i` (the kernels' plain element indexing).
fn flat(a: &DeviceMpArray) -> Arg {
    rns_arg(a, 0, 1, 0)
}

/// Launches `kernel` of this module over `work` items (grid-stride).
///
/// # Safety
/// `args` must match the kernel's C signature, and every view in them must address elements
/// inside its array for the counts given.
unsafe fn launch(dev: &Device, kernel: &'static str, work: usize, args: &[Arg]) -> Result<()> {
    if work == 0 {
        return Ok(());
    }
    // SAFETY: the caller's contract.
    unsafe { dev.launch(&MODULE, kernel, dev.grid_for(work), args) }
}

/// Scratch arrays kept by the device between calls: the tree nodes of two passes of a sum (and
/// of the `|a||x|` sums), the scalars, the compact row sums of the bounds and `ger`'s `α·y_j`.
#[derive(Default)]
struct Scratch {
    slots: [Option<DeviceMpArray>; SLOTS],
}

const SLOTS: usize = 7;
const VALUE_SUMS: usize = 0; // and 1
const ABS_SUMS: usize = 2; // and 3
const SCALARS: usize = 4;
const COMPACT: usize = 5;
const GER_T: usize = 6;

impl Scratch {
    /// Slot `k` holding at least `len` elements of `basis` (exactly `len` when `exact`).
    fn ensure(
        &mut self,
        k: usize,
        dev: &Device,
        basis: &Arc<Basis>,
        len: usize,
        exact: bool,
    ) -> Result<()> {
        let fits = self.slots[k].as_ref().is_some_and(|a| {
            a.basis().same(basis)
                && if exact {
                    a.len() == len
                } else {
                    a.len() >= len
                }
        });
        if !fits {
            self.slots[k] = None; // free the old one first
            self.slots[k] = Some(DeviceMpArray::zeros(dev, basis, len)?);
        }
        Ok(())
    }

    fn get(&self, k: usize) -> &DeviceMpArray {
        self.slots[k].as_ref().expect("ensured before use")
    }

    fn get_mut(&mut self, k: usize) -> &mut DeviceMpArray {
        self.slots[k].as_mut().expect("ensured before use")
    }
}

fn with_scratch<R>(dev: &Device, f: impl FnOnce(&mut Scratch) -> Result<R>) -> Result<R> {
    let ws = dev.workspace("blas_level2_rns", || Ok(Mutex::new(Scratch::default())))?;
    let mut guard = ws.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut guard)
}

/// [`Error::BasisMismatch`] unless `other` is `basis`.
pub(crate) fn same_basis(basis: &Basis, other: &Basis) -> Result<()> {
    if basis.same(other) {
        Ok(())
    } else {
        Err(Error::BasisMismatch {
            left_bits: basis.precision(),
            right_bits: other.precision(),
        })
    }
}

/// Chunks of the blocked order for `terms` terms.
fn chunks(terms: usize) -> usize {
    terms.div_ceil(CHUNK)
}

/// The halving tree over the lanes of every chunk of a pass of `terms` terms per row, in `s`.
fn tree(dev: &Device, tab: u64, s: &DeviceMpArray, m: usize, terms: usize) -> Result<()> {
    let mut h = LANES / 2;
    while h >= 1 {
        let args = [
            Arg::U64(tab),
            flat(s),
            Arg::U64(m as u64),
            Arg::U64(terms as u64),
            Arg::U64(h as u64),
        ];
        // SAFETY: `s` holds m·LANES·chunks(terms) elements (ensured by `row_sums`); the kernel
        // touches elements (c·LANES + t)·m + i with t < 2h ≤ LANES, c < chunks, i < m.
        unsafe { launch(dev, "blas_rns_gemv_tree", m * h * chunks(terms), &args)? };
        h /= 2;
    }
    Ok(())
}

/// The operands of a row-sum computation.
struct Rows<'a> {
    tab: u64,
    basis: &'a Arc<Basis>,
    a: &'a DeviceMpArray,
    layout: MatLayout,
    x: &'a DeviceMpArray,
    x0: usize,
    incx: isize,
}

/// `s_i = Σ_j a_ij·x_j` (or `Σ_j |a_ij|·|x_j|`) for the `m` rows of `op(A)` in the blocked
/// order, every pass on the device; returns the slot (`first` or `first + 1`) holding `s_i` at
/// element `i`.
fn row_sums(
    dev: &Device,
    ws: &mut Scratch,
    r: &Rows<'_>,
    abs: bool,
    first: usize,
) -> Result<usize> {
    let (m, n) = (r.layout.rows, r.layout.cols);
    ws.ensure(first, dev, r.basis, m * LANES * chunks(n), false)?;
    let l = r.layout;
    let args = [
        Arg::U64(r.tab),
        rns_arg(r.a, l.offset, l.row_stride as isize, l.col_stride as isize),
        rns_arg(r.x, r.x0, r.incx, 0),
        Arg::U64(m as u64),
        Arg::U64(n as u64),
        Arg::I32(abs as i32),
        flat(ws.get(first)),
    ];
    // SAFETY: A's layout was checked against its array (every (i, j), i < m, j < n, inside), x
    // holds n elements from x0 at stride incx (blas_vector); the lanes go to elements below
    // m·LANES·chunks(n) of the scratch, which holds that many.
    unsafe { launch(dev, "blas_rns_gemv_lanes", m * LANES * chunks(n), &args)? };
    tree(dev, r.tab, ws.get(first), m, n)?;
    let (mut cur, mut terms) = (first, chunks(n));
    while terms > 1 {
        let next = if cur == first { first + 1 } else { first };
        ws.ensure(next, dev, r.basis, m * LANES * chunks(terms), false)?;
        let args = [
            Arg::U64(r.tab),
            // chunk c's result of row i at element c·LANES·m + i
            rns_arg(ws.get(cur), 0, 1, (LANES * m) as isize),
            Arg::U64(m as u64),
            Arg::U64(terms as u64),
            flat(ws.get(next)),
        ];
        // SAFETY: the pass before left `terms` chunk results per row at those elements (below
        // m·LANES·terms); the new lanes go below m·LANES·chunks(terms) of `next`.
        unsafe {
            launch(
                dev,
                "blas_rns_gemv_join_lanes",
                m * LANES * chunks(terms),
                &args,
            )?
        };
        tree(dev, r.tab, ws.get(next), m, terms)?;
        cur = next;
        terms = chunks(terms);
    }
    Ok(cur)
}

/// The `len` elements of a BLAS vector (first element at `start`, increment `inc`) on the host.
pub(crate) fn download_vector(
    v: &DeviceMpArray,
    start: usize,
    len: usize,
    inc: isize,
) -> Result<Vec<MpFloat>> {
    let all = v.download()?;
    (0..len)
        .map(|k| all.get((start as isize + k as isize * inc) as usize))
        .collect()
}

/// BLAS `?gemv` in RNS on the GPU: `y ← α·op(A)·x + β·y` with `A` an `m × n` column-major
/// array of leading dimension `lda` in `a`, `op(A) = A` (`x` of `n` elements, `y` of `m`) or
/// `Aᵀ`, increments as level 1 (negative ones walk down from the last element). The CPU's
/// [`gemv_blas`](super::level2::gemv_blas) on the same values, bit for bit, with its conventions
/// (`α = 0` does not read `A` or `x`, `β = 0` does not read `y`, reference BLAS's quick returns).
///
/// # Errors
/// [`Error::DeviceMismatch`]; [`Error::BasisMismatch`] unless `α`, `β`, `a`, `x` and `y`
/// share one basis (checked once per call, before anything runs); [`Error::LeadingDim`],
/// [`Error::ArrayTooShort`], [`Error::InvalidView`] (`incx` or `incy` = 0) as the CPU's; then
/// the runtime's errors.
#[allow(clippy::too_many_arguments)]
pub fn gemv(
    dev: &Device,
    trans: Trans,
    m: usize,
    n: usize,
    alpha: &MpFloat,
    a: &DeviceMpArray,
    lda: usize,
    x: &DeviceMpArray,
    incx: isize,
    beta: &MpFloat,
    y: &mut DeviceMpArray,
    incy: isize,
) -> Result<()> {
    let args = GemvArgs {
        trans,
        m,
        n,
        alpha,
        a,
        lda,
        x,
        incx,
        beta,
        incy,
        x_off: 0,
        y_off: 0,
    };
    gemv_run(dev, &args, y, false).map(drop)
}

/// [`gemv`] returning the CPU's componentwise bound of each entry of `y`
/// ([`gemv_bounded`](super::level2::gemv_bounded)): the `|a||x|` sums are formed on the device
/// in the same order, the bound itself on the host from the same quantities as the CPU. Reads
/// `A` twice and `y` back to the host.
///
/// # Errors
/// As [`gemv`].
#[allow(clippy::too_many_arguments)]
pub fn gemv_bounded(
    dev: &Device,
    trans: Trans,
    m: usize,
    n: usize,
    alpha: &MpFloat,
    a: &DeviceMpArray,
    lda: usize,
    x: &DeviceMpArray,
    incx: isize,
    beta: &MpFloat,
    y: &mut DeviceMpArray,
    incy: isize,
) -> Result<Vec<f64>> {
    let args = GemvArgs {
        trans,
        m,
        n,
        alpha,
        a,
        lda,
        x,
        incx,
        beta,
        incy,
        x_off: 0,
        y_off: 0,
    };
    gemv_run(dev, &args, y, true)
}

/// The read-only arguments of a `gemv` call (this module's and the fused one's).
pub(crate) struct GemvArgs<'a> {
    pub(crate) trans: Trans,
    pub(crate) m: usize,
    pub(crate) n: usize,
    pub(crate) alpha: &'a MpFloat,
    pub(crate) a: &'a DeviceMpArray,
    pub(crate) lda: usize,
    pub(crate) x: &'a DeviceMpArray,
    pub(crate) incx: isize,
    pub(crate) beta: &'a MpFloat,
    pub(crate) incy: isize,
    /// Elements of `x` before the vector's storage begins (a column of a matrix: 0 for a
    /// whole array).
    pub(crate) x_off: usize,
    /// Likewise for `y`.
    pub(crate) y_off: usize,
}

impl GemvArgs<'_> {
    /// The first stored elements of `x` (`lx` elements) and `y` (`ly` elements, in an array of
    /// `y_len`), offsets included, after checking that both fit their arrays.
    pub(crate) fn starts(&self, y_len: usize, lx: usize, ly: usize) -> Result<(usize, usize)> {
        let rest = |arg, len: usize, off: usize| {
            len.checked_sub(off).ok_or(Error::ArrayTooShort {
                arg,
                got: len,
                min: off,
            })
        };
        let x0 = blas_vector("x", rest("x", self.x.len(), self.x_off)?, lx, self.incx)?;
        let y0 = blas_vector("y", rest("y", y_len, self.y_off)?, ly, self.incy)?;
        Ok((self.x_off + x0, self.y_off + y0))
    }
}

/// [`gemv`] on prepared arguments (a matrix column as `x` or `y`: `gemm_fused`'s `α = 0` path).
pub(crate) fn gemv_args(dev: &Device, g: &GemvArgs<'_>, y: &mut DeviceMpArray) -> Result<()> {
    gemv_run(dev, g, y, false).map(drop)
}

fn gemv_run(
    dev: &Device,
    g: &GemvArgs<'_>,
    y: &mut DeviceMpArray,
    with_bounds: bool,
) -> Result<Vec<f64>> {
    dev.check_on("a", g.a.ordinal())?;
    dev.check_on("x", g.x.ordinal())?;
    dev.check_on("y", y.ordinal())?;
    let basis = g.alpha.basis();
    for other in [g.beta.basis(), g.a.basis(), g.x.basis(), y.basis()] {
        same_basis(basis, other)?;
    }
    let stored = MatLayout::blas_arg(("a", "lda"), Trans::No, g.m, g.n, g.lda, g.a.len())?;
    let (layout, lx, ly) = match g.trans {
        Trans::No => (stored, g.n, g.m),
        Trans::Yes => (stored.t(), g.m, g.n),
    };
    let (x0, y0) = g.starts(y.len(), lx, ly)?;
    let (alpha_zero, beta_zero) = (is_zero(g.alpha), is_zero(g.beta));
    let quick = ly == 0 || lx == 0 || (alpha_zero && *g.beta == MpFloat::one_in(basis));
    // The old y, for the bounds' |β·y_i| (and the finiteness of an unchanged y).
    let y_old = if with_bounds {
        download_vector(y, y0, ly, g.incy)?
    } else {
        Vec::new()
    };
    if quick {
        return Ok(y_old.iter().map(unchanged_bound).collect());
    }
    let tab = g.a.tables();
    let rows = Rows {
        tab,
        basis,
        a: g.a,
        layout,
        x: g.x,
        x0,
        incx: g.incx,
    };
    let abs_sums = with_scratch(dev, |ws| {
        ws.ensure(SCALARS, dev, basis, 2, true)?;
        let ab = MpArray::from_mpfloats(basis, &[g.alpha.clone(), g.beta.clone()])?;
        ws.get_mut(SCALARS).copy_from_host(&ab)?;
        let sums = if alpha_zero {
            SCALARS // not read
        } else {
            row_sums(dev, ws, &rows, false, VALUE_SUMS)?
        };
        let args = [
            Arg::U64(tab),
            flat(ws.get(sums)),
            flat(ws.get(SCALARS)),
            rns_arg(y, y0, g.incy, 0),
            Arg::U64(ly as u64),
            Arg::I32(alpha_zero as i32),
            Arg::I32(beta_zero as i32),
        ];
        // SAFETY: the row sums are elements 0..ly of `sums` (row_sums), α and β elements 0 and
        // 1 of the scalars, y holds ly elements from y0 at stride incy (blas_vector).
        unsafe { launch(dev, "blas_rns_gemv_finish", ly, &args)? };
        if !with_bounds || alpha_zero {
            return Ok(None);
        }
        let abs = row_sums(dev, ws, &rows, true, ABS_SUMS)?;
        ws.ensure(COMPACT, dev, basis, ly, true)?;
        let args = [
            Arg::U64(tab),
            flat(ws.get(abs)),
            flat(ws.get(COMPACT)),
            Arg::U64(ly as u64),
        ];
        // SAFETY: elements 0..ly of both (the compact array holds exactly ly).
        unsafe { launch(dev, "blas_rns_copy", ly, &args)? };
        Ok(Some(ws.get(COMPACT).download()?.to_mpfloats()?))
    })?;
    if !with_bounds {
        return Ok(Vec::new());
    }
    let values = download_vector(y, y0, ly, g.incy)?;
    let consts = RowBound::new(g.alpha, beta_zero, lx);
    Ok((0..ly)
        .map(|i| {
            let by = (!beta_zero).then(|| g.beta.mul_ref(&y_old[i]));
            let abs = abs_sums.as_ref().map(|s| &s[i]);
            consts.bound(g.alpha, by.as_ref(), abs, &values[i])
        })
        .collect())
}

/// BLAS `?ger` in RNS on the GPU: `A ← α·x·yᵀ + A`, `A` an `m × n` column-major array of
/// leading dimension `lda` in `a`, `x` of `m` elements, `y` of `n`. The CPU's
/// [`ger_blas`](super::level2::ger_blas), bit for bit: `a_ij + x_i·(α·y_j)`, columns with
/// `y_j = 0` left alone, `α = 0` returns at once.
///
/// # Errors
/// As [`gemv`].
#[allow(clippy::too_many_arguments)]
pub fn ger(
    dev: &Device,
    m: usize,
    n: usize,
    alpha: &MpFloat,
    x: &DeviceMpArray,
    incx: isize,
    y: &DeviceMpArray,
    incy: isize,
    a: &mut DeviceMpArray,
    lda: usize,
) -> Result<()> {
    dev.check_on("a", a.ordinal())?;
    dev.check_on("x", x.ordinal())?;
    dev.check_on("y", y.ordinal())?;
    let basis = alpha.basis();
    for other in [a.basis(), x.basis(), y.basis()] {
        same_basis(basis, other)?;
    }
    let layout = MatLayout::blas_arg(("a", "lda"), Trans::No, m, n, lda, a.len())?;
    let x0 = blas_vector("x", x.len(), m, incx)?;
    let y0 = blas_vector("y", y.len(), n, incy)?;
    if m == 0 || n == 0 || is_zero(alpha) {
        return Ok(());
    }
    let tab = a.tables();
    with_scratch(dev, |ws| {
        ws.ensure(SCALARS, dev, basis, 1, true)?;
        ws.get_mut(SCALARS)
            .copy_from_host(&MpArray::from_mpfloats(basis, std::slice::from_ref(alpha))?)?;
        ws.ensure(GER_T, dev, basis, n, false)?;
        let args = [
            Arg::U64(tab),
            flat(ws.get(SCALARS)),
            rns_arg(y, y0, incy, 0),
            Arg::U64(n as u64),
            flat(ws.get(GER_T)),
        ];
        // SAFETY: α is element 0 of the scalars; y holds n elements from y0 at stride incy;
        // the scratch holds at least n.
        unsafe { launch(dev, "blas_rns_ger_scale", n, &args)? };
        let args = [
            Arg::U64(tab),
            rns_arg(a, layout.offset, 1, layout.col_stride as isize),
            rns_arg(x, x0, incx, 0),
            rns_arg(y, y0, incy, 0),
            flat(ws.get(GER_T)),
            Arg::U64(m as u64),
            Arg::U64(n as u64),
        ];
        // SAFETY: A's column-major layout was checked against its array (every (i, j) inside,
        // distinct elements since lda ≥ m), x holds m elements, y and t hold n.
        unsafe { launch(dev, "blas_rns_ger_update", m * n, &args) }
    })
}
