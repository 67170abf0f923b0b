//! Ozaki-scheme matrix multiplication: `f64` GEMM (`C ← α·op(A)·op(B) + β·C`) built from
//! products in a cheaper arithmetic whose results are exact or nearly so.
//!
//! - [`ozaki1_gemm`], **scheme I** (Ozaki, Ogita, Oishi, Rump 2012; with `f32` slices as in
//!   the seed paper of Nanai and Fujimoto 2021): A and B are split into `s` slices whose
//!   pairwise products are exact in the slice arithmetic; the slice products are summed in
//!   `f64` or double-double. Guarded the same way by default ([`Ozaki1Report`]).
//! - [`ozaki2_gemm`], **scheme II** (Ozaki, Uchino, Imamura 2025): rows of A and columns of B
//!   are scaled by powers of two and rounded to integers, the integer product is computed
//!   exactly as `N` INT8 GEMMs modulo small coprime moduli and rebuilt by the Chinese remainder
//!   theorem. By default ([`OzakiGuard::Componentwise`]) each entry's own error bound is
//!   tested against DGEMM's componentwise bound and the entries it cannot certify are recomputed
//!   plainly, so no finite input loses more than DGEMM would; [`Ozaki2Report`] says what ran.
//!
//! Both return `Err` on every invalid argument ([`Error::LeadingDim`](crate::Error::LeadingDim), [`Error::ArrayTooShort`](crate::Error::ArrayTooShort),
//! [`Error::OutOfRange`](crate::Error::OutOfRange)) and never panic. Their error bounds are functions in [`bounds`], the
//! same ones the tests assert.
//!
//! # Conventions
//!
//! Column-major storage, BLAS argument order and meaning: `op(A)` is `m × k`, `op(B)` is
//! `k × n`, `C` is `m × n`; `A` is stored `m × k` with `lda ≥ max(1, m)` when
//! `transa = Trans::No` and `k × m` with `lda ≥ max(1, k)` when `Trans::Yes` (likewise B).
//! As in reference BLAS, `m = 0` or `n = 0` returns at once, `α = 0` or `k = 0` reads neither
//! A nor B, and `β = 0` does not read C (NaN in C is overwritten).
//!
//! **Internal layout (shared with the GPU stages).** Every stage works on *vectors of length
//! `k`*: `op(A)` is packed as `m` rows, row-major (`m × k`, stride `k`), and `op(B)` as `n`
//! columns, column-major (`k × n`, stride `k`); products are `m × n` column-major with
//! leading dimension `m`. This is the "TN" layout cuBLAS wants for INT8. The stages are
//! separate functions over plain slices (`split::vec_max_abs`, `split::split`,
//! `ozaki2::scaling`, `ozaki2::to_integers`, `ozaki2::residues`, `ozaki2::products_mod`,
//! `ozaki2::reconstruct`, [`gemm_cpu`]), so a GPU kernel can be checked against each stage bit
//! for bit. They trust their arguments (the GEMMs check them once), so outside the crate they
//! exist only with the `unstable-internals` feature, for such tests; no stability promise.
//!
//! # NaN and infinity
//!
//! A row of `op(A)` or column of `op(B)` holding a NaN or ±Inf is set to zero for the Ozaki
//! computation, and every entry of C it touches is recomputed afterwards as the plain `f64`
//! dot product `α·Σ a·b + β·c`, which propagates NaN and Inf as DGEMM does. The other entries
//! are unaffected.

pub mod bounds;
pub mod gemm_cpu;
mod ozaki1_gpu;
pub mod ozaki2_dd;
pub(crate) mod ozaki2_gpu;
pub mod ozaki2_qd;
pub(crate) mod ozaki_gpu;

// The stages over raw slices: crate-private, public only with the `unstable-internals`
// feature (the tests that check each stage, and the GPU's against it, use them). They trust
// their callers' lengths and ranges, which the GEMM entry points check once.
#[cfg(feature = "unstable-internals")]
pub mod ozaki1;
#[cfg(not(feature = "unstable-internals"))]
pub(crate) mod ozaki1;
#[cfg(feature = "unstable-internals")]
pub mod ozaki2;
#[cfg(not(feature = "unstable-internals"))]
pub(crate) mod ozaki2;
#[cfg(feature = "unstable-internals")]
pub mod split;
#[cfg(not(feature = "unstable-internals"))]
pub(crate) mod split;

use crate::error::Result;
use crate::view::{MatMut, MatRef, Trans, check_product_shapes};

/// The Ozaki GEMMs on the GPU (`ozaki1_gpu.rs`, `ozaki2_gpu.rs` launching the kernels of
/// `ozaki_gpu.cu`, whose shared launch code is `ozaki_gpu.rs`; INT8 GEMMs by cuBLAS): scheme II
/// returns the CPU's bits.
pub mod gpu {
    /// The split stage on the GPU (its result is the `split` stage's type): with the
    /// `unstable-internals` feature only.
    #[cfg(feature = "unstable-internals")]
    pub use super::ozaki1_gpu::stage::ozaki1_split;
    pub use super::ozaki1_gpu::{ozaki1_gemm, ozaki1_gemm_blas};
    pub use super::ozaki2_gpu::{
        ozaki2_gemm, ozaki2_gemm_blas, ozaki2_gemm_dd, ozaki2_gemm_qd, ozaki2_product,
    };
}

pub use ozaki1::{check_params as ozaki1_check_params, ozaki1_gemm, ozaki1_gemm_blas};
pub use ozaki2::{check_params as ozaki2_check_params, ozaki2_gemm, ozaki2_gemm_blas};
pub use ozaki2_dd::{
    DdSchemeInput, OZAKI2_DD_DEFAULT_MODULI, OZAKI2_DD_MODULI, ozaki2_dd_params, ozaki2_gemm_dd,
};
pub use ozaki2_qd::{OZAKI2_QD_MODULI, ozaki2_gemm_qd};

/// Which slice products scheme I forms (with `s` slices of A and of B, the last being the
/// remainder).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Products {
    /// The paper's `s(s+1)/2` products (3, 6, 10, 15, 21 for `s` = 2..6): `A_i·B_j` for
    /// `i + j ≤ s`, plus `A_i` times the remainder of B after `s − i` slices (eq. (16)).
    Triangular,
    /// All `s²` products `A_i·B_j`.
    Full,
}

/// Arithmetic of the slice products of scheme I.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SliceGemm {
    /// `f32` GEMM (the seed paper's choice; `β` from `u = 2^-24`).
    F32,
    /// `f64` GEMM (`β` from `u = 2^-53`).
    F64,
}

/// Arithmetic in which scheme I sums the slice products and applies `α`, `β`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Accumulate {
    /// `f64` (the paper's choice).
    F64,
    /// Double-double ([`crate::Dd`]), rounded once at the end.
    Dd,
}

/// Parameters of [`ozaki1_gemm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ozaki1Params {
    /// Number of slices `s` of A and of B, `2..=8`.
    pub slices: usize,
    /// Which products are formed.
    pub products: Products,
    /// Arithmetic of the slice products.
    pub slice_gemm: SliceGemm,
    /// Arithmetic of the final sum.
    pub accumulate: Accumulate,
    /// The per-entry guarantee ([`OzakiGuard::Componentwise`] by default; the paper's method
    /// is [`OzakiGuard::NormwiseFast`]).
    pub guard: OzakiGuard,
}

impl Default for Ozaki1Params {
    /// The seed paper's method with 3 slices (`f32` slices, triangular products, `f64` sum)
    /// under the componentwise guard. Its normwise bound is far from DGEMM's for `k` in the
    /// thousands, so the guard then recomputes most entries as plain dot products: correct,
    /// slow. For the paper's speed (normwise accuracy) take [`OzakiGuard::NormwiseFast`]; for
    /// FP64 accuracy at speed, scheme II.
    fn default() -> Self {
        Ozaki1Params {
            slices: 3,
            products: Products::Triangular,
            slice_gemm: SliceGemm::F32,
            accumulate: Accumulate::F64,
            guard: OzakiGuard::Componentwise,
        }
    }
}

/// What one scheme-I GEMM did ([`ozaki1_gemm`] and its GPU twin return it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ozaki1Report {
    /// Slices of A and of B.
    pub slices: usize,
    /// The guard in force.
    pub guard: OzakiGuard,
    /// Entries of C computed (`m·n`; 0 after a quick return).
    pub entries: usize,
    /// Entries the componentwise guard recomputed as plain `f64` dot products.
    pub guard_recomputed: usize,
    /// Entries recomputed because their row of `op(A)` or column of `op(B)` holds NaN or ±Inf.
    pub non_finite_recomputed: usize,
    /// Rows of `op(A)` with at least one recomputed entry (either kind).
    pub rows_recomputed: usize,
    /// Columns of `op(B)` with at least one recomputed entry (either kind).
    pub cols_recomputed: usize,
}

/// Smallest and largest slice counts of scheme I.
pub const OZAKI1_SLICES: (usize, usize) = (2, 8);

/// How scheme II chooses its power-of-two scaling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ozaki2Mode {
    /// From the row maxima and a 16-bit-quantised 2-norm bound of each row of `A` and column
    /// of `B` (Cauchy–Schwarz: `|A'||B'| ≤ ‖A'_i‖₂‖B'_j‖₂`; `ozaki2::fast_x`). One extra
    /// read of A and B, no extra GEMM.
    #[default]
    Fast,
    /// From an extra INT8 GEMM of 6-bit upper bounds of `|A|` and `|B|`, which bounds each entry
    /// of `|A|·|B|` and lets rows and columns with room take more bits.
    Accurate,
}

/// What an Ozaki GEMM guarantees for each entry of its product.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OzakiGuard {
    /// The default: every entry of `A·B` at least as accurate as DGEMM's componentwise bound,
    /// `|s − (AB)_ij| ≤ γ_k·(|A||B|)_ij + k·2^-1074`, for every finite input. Each entry's own
    /// error bound (scheme II: [`bounds::ozaki2_ab_bound`]'s form with the row's and column's
    /// exact scaling and 1-norms; scheme I: [`bounds::ozaki1_ab_bound`]) is tested against
    /// `k·u·(|s| − bound)`, and where that fails against `k·u` times a lower bound of
    /// `(|A||B|)_ij` from the first 64 products; both are below `γ_k·(|A||B|)_ij`. An entry the
    /// tests cannot certify (its row or column spans more exponents than the scheme carries,
    /// or it cancels) is recomputed as the plain `f64` dot product `Σ_l a_il·b_lj` in index
    /// order, whose error DGEMM's bound covers. The reports ([`Ozaki2Report`],
    /// [`Ozaki1Report`]) count them. Cost for scheme II: one more integer statistic per row
    /// and column and a few operations per entry, plus `2k` flops per recomputed entry.
    #[default]
    Componentwise,
    /// Fast and **normwise only**: no test and no recomputation. An entry's error is bounded
    /// by its row's and column's norms ([`bounds::ozaki2_ab_bound`]), so an entry far below
    /// them (a wide exponent range inside a row or column, or cancellation) can lose every
    /// bit: `A = [1e20, 1]`, `B = [1e-20, 1e20]ᵀ` gives 0 instead of `1e20 + 1`.
    NormwiseFast,
}

/// Parameters of [`ozaki2_gemm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ozaki2Params {
    /// Number of moduli `N`, `8..=20` (see `ozaki2::moduli`).
    pub moduli: usize,
    /// Scaling mode.
    pub mode: Ozaki2Mode,
    /// The per-entry guarantee ([`OzakiGuard::Componentwise`] by default).
    pub guard: OzakiGuard,
}

/// What one scheme-II GEMM did ([`ozaki2_gemm`] and its GPU twin return it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ozaki2Report {
    /// Moduli (INT8 products per column block) used.
    pub moduli: usize,
    /// Scaling mode used.
    pub mode: Ozaki2Mode,
    /// The guard in force.
    pub guard: OzakiGuard,
    /// Entries of C computed (`m·n`; 0 after a quick return).
    pub entries: usize,
    /// Entries the componentwise guard recomputed as plain `f64` dot products.
    pub guard_recomputed: usize,
    /// Entries recomputed because their row of `op(A)` or column of `op(B)` holds NaN or ±Inf.
    pub non_finite_recomputed: usize,
    /// Rows of `op(A)` with at least one recomputed entry (either kind): where the data
    /// needed more than the moduli could carry.
    pub rows_recomputed: usize,
    /// Columns of `op(B)` with at least one recomputed entry (either kind).
    pub cols_recomputed: usize,
}

impl Ozaki2Report {
    /// A call's report before any entry is computed: its parameters, no counts.
    pub(crate) fn started(params: &Ozaki2Params) -> Ozaki2Report {
        Ozaki2Report {
            moduli: params.moduli,
            mode: params.mode,
            guard: params.guard,
            ..Ozaki2Report::default()
        }
    }
}

/// Default number of moduli of scheme II: 16 (`P ≈ 2^125.4`).
///
/// Why 16. Scheme II's error ([`bounds::ozaki2_ab_bound`]) is set by the row and column
/// 2-norms (fast mode) or maxima (accurate mode): an entry of A far below its row's norm keeps
/// fewer bits, so its relative accuracy depends on the spread of the data, unlike DGEMM's.
/// Two yardsticks:
/// - DGEMM's own worst-case bound `γ_k·(|A||B|)_ij` ([`bounds::naive_gemm_ab_bound`]) in every
///   entry: on the paper's inputs with φ ≤ 2 (k = 256) 14 moduli already meet it in fast mode
///   and 12 miss it at φ = 2 (`tests/ozaki_accuracy.rs::ozaki2_default_is_fp64_level` checks
///   the default, 14 and 12).
/// - DGEMM's measured maximum relative error on the same inputs (the metric): on the
///   H100 (`BENCHMARKS.md`, n = 1024..16384, 10 seeds) the smallest N no worse than DGEMM is 14
///   or 15 at φ ≤ 1 but 16 at φ = 2; 16 beats DGEMM in every measured row by 18× or more.
///
/// Each modulus adds about 3.9 bits to the integer operands (about 7.8 bits of product
/// accuracy per two moduli); the GPU cost is one INT8 GEMM per modulus.
///
/// Under the default [`OzakiGuard::Componentwise`] fewer moduli stay correct but are slower:
/// the entries the scheme cannot certify are recomputed one dot product each (on the H100 at
/// n = 8192, φ = 1: 16 moduli recompute none, 14 recompute a third of the entries and take 45×
/// longer; `BENCHMARKS.md`).
pub const OZAKI2_DEFAULT_MODULI: usize = 16;

/// Smallest and largest moduli counts of scheme II.
pub const OZAKI2_MODULI: (usize, usize) = (8, 20);

impl Default for Ozaki2Params {
    fn default() -> Self {
        Ozaki2Params {
            moduli: OZAKI2_DEFAULT_MODULI,
            mode: Ozaki2Mode::Fast,
            guard: OzakiGuard::Componentwise,
        }
    }
}

/// Packs `op(A)` (`m × k`) into `m` rows of length `k`, row-major.
pub(crate) fn pack_rows(a: MatRef<'_, f64>) -> Vec<f64> {
    let mut out = Vec::with_capacity(a.rows() * a.cols());
    for i in 0..a.rows() {
        out.extend((0..a.cols()).map(|l| *a.at(i, l)));
    }
    out
}

/// Packs `op(B)` (`k × n`) into `n` columns of length `k`, column-major.
pub(crate) fn pack_cols(b: MatRef<'_, f64>) -> Vec<f64> {
    pack_rows(b.t())
}

/// Marks the vectors (rows of `op(A)` or columns of `op(B)`, packed) holding a NaN or ±Inf
/// and zeroes them; returns the marks.
pub(crate) fn take_non_finite(x: &mut [f64], len: usize, count: usize) -> Vec<bool> {
    (0..count)
        .map(|v| {
            let vec = &mut x[v * len..(v + 1) * len];
            let bad = vec.iter().any(|t| !t.is_finite());
            if bad {
                vec.fill(0.0);
            }
            bad
        })
        .collect()
}

/// Handles the BLAS quick returns; `true` if the call is finished (`m = 0` or `n = 0`; or
/// `α = 0` or `k = 0`, after `C ← β·C`, with `β = 0` not reading C).
pub(crate) fn quick_return(k: usize, alpha: f64, beta: f64, c: &mut MatMut<'_, f64>) -> bool {
    let (m, n) = (c.rows(), c.cols());
    if m == 0 || n == 0 {
        return true;
    }
    if alpha == 0.0 || k == 0 {
        if beta != 1.0 {
            for j in 0..n {
                for i in 0..m {
                    let ci = c.at_mut(i, j);
                    *ci = if beta == 0.0 { 0.0 } else { beta * *ci };
                }
            }
        }
        return true;
    }
    false
}

/// The entries of C in a non-finite row of `op(A)` or column of `op(B)`, as `((i, j), value)`,
/// with the plain `f64` value `α·Σ_l a_il·b_lj + β·c_ij` computed from the unpacked
/// originals. Call it before C is overwritten and apply it after ([`apply_patch`]).
pub(crate) fn non_finite_patch(
    bad_a: &[bool],
    bad_b: &[bool],
    alpha: f64,
    a: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
    beta: f64,
    c: MatRef<'_, f64>,
) -> Vec<((usize, usize), f64)> {
    let mut patch = Vec::new();
    if !bad_a.iter().any(|&x| x) && !bad_b.iter().any(|&x| x) {
        return patch;
    }
    for (j, &bad_col) in bad_b.iter().enumerate() {
        for (i, &bad_row) in bad_a.iter().enumerate() {
            if !(bad_row || bad_col) {
                continue;
            }
            patch.push(((i, j), plain_entry(alpha, a, b, beta, c, i, j)));
        }
    }
    patch
}

/// Entry `(i, j)` of `α·A·B + β·C` as the plain `f64` dot product `Σ_l a_il·b_lj` in index
/// order (recursive summation, DGEMM's componentwise bound), then `α·s + β·c_ij` (`c` not read
/// when `β = 0`); the GPU's `oz_patch` performs the same operations.
pub(crate) fn plain_entry(
    alpha: f64,
    a: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
    beta: f64,
    c: MatRef<'_, f64>,
    i: usize,
    j: usize,
) -> f64 {
    let mut s = 0.0;
    for l in 0..a.cols() {
        s += a.at(i, l) * b.at(l, j);
    }
    update_f64(s, alpha, beta, || *c.at(i, j))
}

/// `α·s + β·c` in `f64`, `c` not read when `β = 0` (as BLAS requires); the GPU's
/// `oz_update_f64` performs the same operations.
#[inline]
pub(crate) fn update_f64(s: f64, alpha: f64, beta: f64, c: impl FnOnce() -> f64) -> f64 {
    if beta == 0.0 {
        alpha * s
    } else {
        alpha * s + beta * c()
    }
}

/// Entry `(i, j)` recomputed for the componentwise guard: [`plain_entry`], or, if that is not
/// finite (a partial sum overflowed although every input is finite), the same dot product on
/// `op(A)`'s row scaled by `2^-σa` and `op(B)`'s column by `2^-σb` (`σ = ⌈log2 μ⌉` of each,
/// exact scalings), scaled back by `2^(σa+σb)`: the partial sums stay below `k`, and the terms
/// that underflow are below `k·2^(σa+σb−1074)`, far inside `γ_k·(|A||B|)_ij` when a partial
/// sum could overflow. The GPU's `oz_guard_entry` performs the same operations.
#[allow(clippy::too_many_arguments)]
pub(crate) fn guard_entry(
    alpha: f64,
    a: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
    beta: f64,
    c: MatRef<'_, f64>,
    (i, j): (usize, usize),
    (sa, sb): (i32, i32),
) -> f64 {
    let v = plain_entry(alpha, a, b, beta, c, i, j);
    if v.is_finite() {
        return v;
    }
    let mut s = 0.0;
    for l in 0..a.cols() {
        s += split::ldexp(*a.at(i, l), -sa) * split::ldexp(*b.at(l, j), -sb);
    }
    update_f64(split::ldexp(s, sa + sb), alpha, beta, || *c.at(i, j))
}

/// A checked CPU GEMM call with work to do: `op(A)` packed row by row and `op(B)` column by
/// column, their non-finite rows and columns zeroed, and the plain-`f64` values of the entries
/// of C those touch, to write after the scheme's update ([`apply_patch`]).
pub(crate) struct Prepared {
    /// `(m, n, k)`.
    pub dims: (usize, usize, usize),
    /// `op(A)` packed by [`pack_rows`], non-finite rows zeroed.
    pub ap: Vec<f64>,
    /// `op(B)` packed by [`pack_cols`], non-finite columns zeroed.
    pub bp: Vec<f64>,
    /// The entries of C in non-finite rows or columns (see [`non_finite_patch`]).
    pub patch: Vec<((usize, usize), f64)>,
}

/// The prologue both CPU schemes share after checking their own parameters: the shapes, the
/// quick returns (`None`: C is already final), packing and the non-finite patch.
pub(crate) fn prepare(
    alpha: f64,
    a: MatRef<'_, f64>,
    b: MatRef<'_, f64>,
    beta: f64,
    c: &mut MatMut<'_, f64>,
) -> Result<Option<Prepared>> {
    let (m, n, k) = check_product_shapes(&a.layout(), &b.layout(), &c.layout())?;
    if quick_return(k, alpha, beta, c) {
        return Ok(None);
    }
    let mut ap = pack_rows(a);
    let mut bp = pack_cols(b);
    let bad_a = take_non_finite(&mut ap, k, m);
    let bad_b = take_non_finite(&mut bp, k, n);
    let patch = non_finite_patch(&bad_a, &bad_b, alpha, a, b, beta, c.rb());
    Ok(Some(Prepared {
        dims: (m, n, k),
        ap,
        bp,
        patch,
    }))
}

/// `α·s + β·c` from a double-double product entry `s`, rounded once to `f64` (`c` is not read
/// when `β = 0`, as BLAS requires).
#[inline]
pub(crate) fn update_dd(s: crate::dd::Dd, alpha: f64, beta: f64, c: f64) -> f64 {
    let t = s.mul_f64(alpha);
    if beta == 0.0 {
        t.to_f64()
    } else {
        t.add_accurate(crate::dd::Dd::mul_f64_f64(beta, c)).to_f64()
    }
}

/// The rows and columns that had an entry recomputed (the reports' `rows_recomputed` and
/// `cols_recomputed`; the GPU keeps the same flags after its two counters).
pub(crate) struct Recomputed {
    rows: Vec<bool>,
    cols: Vec<bool>,
}

impl Recomputed {
    /// None yet, for an `m × n` result.
    pub(crate) fn new(m: usize, n: usize) -> Recomputed {
        Recomputed {
            rows: vec![false; m],
            cols: vec![false; n],
        }
    }

    /// Entry `(i, j)` was recomputed.
    pub(crate) fn mark(&mut self, (i, j): (usize, usize)) {
        self.rows[i] = true;
        self.cols[j] = true;
    }

    /// `(rows, columns)` with a recomputed entry.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let count = |v: &[bool]| v.iter().filter(|&&t| t).count();
        (count(&self.rows), count(&self.cols))
    }
}

/// Writes a patch made by [`non_finite_patch`].
pub(crate) fn apply_patch(c: &mut MatMut<'_, f64>, patch: &[((usize, usize), f64)]) {
    for &((i, j), v) in patch {
        *c.at_mut(i, j) = v;
    }
}

/// The views of a BLAS-style GEMM call (`op(A)`, `op(B)`, `C`), with the argument checks of
/// reference BLAS under the BLAS names.
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub(crate) fn blas_views<'a>(
    transa: Trans,
    transb: Trans,
    m: usize,
    n: usize,
    k: usize,
    a: &'a [f64],
    lda: usize,
    b: &'a [f64],
    ldb: usize,
    c: &'a mut [f64],
    ldc: usize,
) -> Result<(MatRef<'a, f64>, MatRef<'a, f64>, MatMut<'a, f64>)> {
    let a = MatRef::from_blas(("a", "lda"), transa, m, k, a, lda)?;
    let b = MatRef::from_blas(("b", "ldb"), transb, k, n, b, ldb)?;
    let c = MatMut::from_blas(("c", "ldc"), m, n, c, ldc)?;
    Ok((a, b, c))
}
