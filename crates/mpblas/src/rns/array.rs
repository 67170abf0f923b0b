//! `MpArray`: structure-of-arrays storage of `L` RNS numbers, the layout of `mp_array_t`
//! (Table 2 of the MPRES-BLAS GEMV paper), shared with the GPU backend.
//!
//! | field | size | content |
//! |---|---|---|
//! | `digits` | `n·L` `u32` | all residues of element 0, then of element 1, … |
//! | `sign` | `L` `u8` | 0 positive, 1 negative |
//! | `exp` | `L` `i64` | exponents |
//! | `eval` | `2L` [`ExtF`] | lower bounds of the `L` evaluations, then the `L` upper bounds |
//! | `class` | `L` `u8` | 0 finite, 1 infinite, 2 NaN (our special values; not in the paper) |
//!
//! Why this layout: the kernels of the paper run one thread per residue of one number (residue
//! loops read `n` consecutive words, coalesced) and one thread per number for signs, exponents
//! and evaluations (consecutive elements of `sign`, `exp`, `eval` are adjacent, coalesced too).
//! The paper's `buf` (kernel-to-kernel scratch) belongs to the GPU backend and is not stored
//! here.

use crate::error::{Error, Result};
use crate::rns::basis::Basis;
use crate::rns::basis::sub_mod;
use crate::rns::extf::ExtF;
use crate::rns::float::{Class, EMAX, EMIN, MpFloat};
use crate::rns::interval::{eval_unsigned, evaluate, is_zero, sign_of};
use crate::{dd::Dd, qd::Qd};
use std::cmp::Ordering;
use std::sync::Arc;

/// `L` RNS numbers of one basis in structure-of-arrays layout; see the [module docs](self).
#[derive(Clone, Debug)]
pub struct MpArray {
    basis: Arc<Basis>,
    len: usize,
    /// Residues, `n` per element, element-major.
    pub digits: Vec<u32>,
    /// Signs (0 or 1).
    pub sign: Vec<u8>,
    /// Exponents.
    pub exp: Vec<i64>,
    /// Evaluations: `[lo_0 … lo_{L−1}, hi_0 … hi_{L−1}]`.
    pub eval: Vec<ExtF>,
    /// Classes (0 finite, 1 infinite, 2 NaN).
    pub class: Vec<u8>,
}

impl MpArray {
    /// `len` zeros.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] when the arrays for `len` elements do not fit the memory that can
    /// be allocated (or their size overflows), instead of an allocation abort.
    pub fn zeros(basis: &Arc<Basis>, len: usize) -> Result<MpArray> {
        let too_long = || Error::OutOfRange {
            what: "MpArray length (memory for its residues)",
            got: len,
            min: 0,
            max: isize::MAX as usize / (4 * basis.len() + 2 * 16 + 8 + 2),
        };
        fn filled<T: Clone>(count: Option<usize>, v: T) -> Option<Vec<T>> {
            let count = count?;
            let mut out = Vec::new();
            out.try_reserve_exact(count).ok()?;
            out.resize(count, v);
            Some(out)
        }
        Ok(MpArray {
            basis: basis.clone(),
            len,
            digits: filled(len.checked_mul(basis.len()), 0).ok_or_else(too_long)?,
            sign: filled(Some(len), 0).ok_or_else(too_long)?,
            exp: filled(Some(len), 0).ok_or_else(too_long)?,
            eval: filled(len.checked_mul(2), ExtF::ZERO).ok_or_else(too_long)?,
            class: filled(Some(len), 0).ok_or_else(too_long)?,
        })
    }

    /// [`Error::InvalidView`] unless the public fields still have the lengths of `L`
    /// elements (they are public for the GPU layout, and may have been edited).
    pub(crate) fn check_fields(&self) -> Result<()> {
        let l = self.len;
        let ok = Some(self.digits.len()) == l.checked_mul(self.basis.len())
            && self.sign.len() == l
            && self.exp.len() == l
            && Some(self.eval.len()) == l.checked_mul(2)
            && self.class.len() == l;
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidView {
                arg: "MpArray",
                reason: "its fields no longer have the lengths of its elements",
            })
        }
    }

    /// [`Error::InvalidView`] unless element `i` (`i < L`, fields of the right lengths) has
    /// valid codes: class 0, 1 or 2, sign 0 or 1, every residue below its modulus, and an
    /// exponent whose top-bit position `exp + p` lies in [`EMIN`]`..=`[`EMAX`] (what every
    /// value the crate makes satisfies: zeros and specials have `exp = 0`). `O(n)` compares,
    /// cheap enough for every element of an upload to the GPU, whose kernels would otherwise
    /// wrap an edited exponent into a wrong result in silence.
    pub(crate) fn check_codes(&self, i: usize) -> Result<()> {
        let n = self.basis.len();
        if self.class[i] > 2 {
            return Err(invalid("an element's class is not 0, 1 or 2"));
        }
        if self.sign[i] > 1 {
            return Err(invalid("an element's sign is not 0 or 1"));
        }
        let res = &self.digits[i * n..(i + 1) * n];
        if res.iter().zip(&self.basis.m).any(|(&r, &m)| r >= m) {
            return Err(invalid("an element's residue is not below its modulus"));
        }
        let top = self.exp[i].checked_add(self.basis.precision as i64);
        if !top.is_some_and(|t| (EMIN..=EMAX).contains(&t)) {
            return Err(invalid(
                "an element's exponent is outside the range (exp + p beyond EMIN..=EMAX)",
            ));
        }
        Ok(())
    }

    /// [`Error::InvalidView`] unless element `i` is a value the crate could have made:
    /// [`check_codes`](Self::check_codes), and for a finite element also the invariants of
    /// [`MpFloat`] (module [`float`](crate::rns::float)): zero has all residues 0 and the
    /// evaluation `[0, 0]`; a nonzero significand `X` has exactly `p` bits
    /// (`2^(p−1) ≤ X < 2^p`, checked exactly) and the evaluation the crate computes for it,
    /// bit for bit. The fields are public (the GPU layout), so an edit could otherwise hand the
    /// arithmetic a value outside its invariants: an exponent that overflows (`exp = i64::MAX`
    /// made `to_f64` overflow), a significand too wide for the products to stay below `M`, or
    /// an evaluation that orders numbers wrongly. Cost: about three CRT passes.
    pub(crate) fn check_element(&self, i: usize) -> Result<()> {
        self.check_codes(i)?;
        if self.class[i] != 0 {
            // ±Inf and NaN: no arithmetic reads their residues or evaluation.
            return Ok(());
        }
        let b = &*self.basis;
        let n = b.len();
        let res = &self.digits[i * n..(i + 1) * n];
        let stored = [self.eval[i], self.eval[self.len + i]];
        let bits = |e: [ExtF; 2]| e.map(|x| (x.f.to_bits(), x.e));
        if is_zero(res) {
            return if bits(stored) == bits([ExtF::ZERO; 2]) {
                Ok(())
            } else {
                Err(invalid("a zero element's evaluation is not [0, 0]"))
            };
        }
        if !normalised_significand(b, res)? {
            return Err(invalid(
                "an element's significand does not have exactly p bits",
            ));
        }
        // X·2^k_norm ∈ [M/16, M/4) for a p-bit X: the evaluation MpFloat::normalised stores.
        let canonical = eval_unsigned(b, res, b.k_norm as u64).map(|e| e.bounds());
        if canonical.map(bits) == Some(bits(stored)) {
            Ok(())
        } else {
            Err(invalid(
                "an element's evaluation is not the one of its residues",
            ))
        }
    }

    /// The basis of every element.
    pub fn basis(&self) -> &Arc<Basis> {
        &self.basis
    }

    /// Number of elements `L`.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when `L = 0`.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when `other` holds the same numbers in the same representation, field by field
    /// (basis, residues, signs, exponents, class and the bits of the evaluation bounds): what
    /// "the same bits" means for RNS results, e.g. a GPU result against the CPU's. Numeric
    /// equality (`−0 = +0`, NaN never equal) is [`MpFloat`]'s `PartialEq`.
    pub fn identical(&self, other: &MpArray) -> bool {
        let eval_bits = |a: &MpArray| -> Vec<(u64, i64)> {
            a.eval.iter().map(|e| (e.f.to_bits(), e.e)).collect()
        };
        self.basis.same(&other.basis)
            && self.len == other.len
            && self.digits == other.digits
            && self.sign == other.sign
            && self.exp == other.exp
            && self.class == other.class
            && eval_bits(self) == eval_bits(other)
    }

    /// Element `i` as an [`MpFloat`].
    ///
    /// The public fields may have been edited, so the element is checked first: every
    /// [`MpFloat`] invariant holds for what this returns, and the arithmetic can rely on them.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `i ≥ L`; [`Error::InvalidView`] when the public fields were
    /// edited to other lengths, or to an element the crate could not have made: a class or
    /// sign code out of range, a residue not below its modulus, an exponent out of range
    /// (`exp + p` outside [`EMIN`]`..=`[`EMAX`]), a significand without exactly `p` bits, or
    /// an evaluation other than the one of its residues.
    pub fn get(&self, i: usize) -> Result<MpFloat> {
        self.check_fields()?;
        if i >= self.len {
            return Err(Error::OutOfBounds {
                what: "MpArray::get",
                got: i,
                len: self.len,
            });
        }
        self.check_element(i)?;
        let n = self.basis.len();
        Ok(MpFloat {
            basis: self.basis.clone(),
            class: match self.class[i] {
                0 => Class::Finite,
                1 => Class::Infinite,
                _ => Class::Nan, // 2: check_element refused the other codes
            },
            neg: self.sign[i] != 0,
            exp: self.exp[i],
            res: self.digits[i * n..(i + 1) * n].to_vec(),
            eval: [self.eval[i], self.eval[self.len + i]],
        })
    }

    /// Stores `x` as element `i`.
    ///
    /// # Errors
    /// [`Error::OutOfBounds`] when `i ≥ L`; [`Error::BasisMismatch`] when `x` has another basis.
    pub fn set(&mut self, i: usize, x: &MpFloat) -> Result<()> {
        self.check_fields()?;
        if i >= self.len {
            return Err(Error::OutOfBounds {
                what: "MpArray::set",
                got: i,
                len: self.len,
            });
        }
        if !self.basis.same(&x.basis) {
            return Err(Error::BasisMismatch {
                left_bits: self.basis.precision(),
                right_bits: x.basis.precision(),
            });
        }
        let n = self.basis.len();
        self.digits[i * n..(i + 1) * n].copy_from_slice(&x.res);
        self.sign[i] = x.neg as u8;
        self.exp[i] = x.exp;
        self.eval[i] = x.eval[0];
        self.eval[self.len + i] = x.eval[1];
        self.class[i] = match x.class {
            Class::Finite => 0,
            Class::Infinite => 1,
            Class::Nan => 2,
        };
        Ok(())
    }

    /// An array of the given numbers.
    ///
    /// # Errors
    /// [`Error::BasisMismatch`] when an element has another basis; as [`MpArray::zeros`].
    pub fn from_mpfloats(basis: &Arc<Basis>, xs: &[MpFloat]) -> Result<MpArray> {
        let mut a = MpArray::zeros(basis, xs.len())?;
        for (i, x) in xs.iter().enumerate() {
            a.set(i, x)?;
        }
        Ok(a)
    }

    /// All elements as [`MpFloat`]s.
    ///
    /// # Errors
    /// As [`MpArray::get`], for the first element it refuses (an edited array is an error,
    /// not a shorter vector).
    pub fn to_mpfloats(&self) -> Result<Vec<MpFloat>> {
        (0..self.len).map(|i| self.get(i)).collect()
    }

    fn from_fn(basis: &Arc<Basis>, len: usize, f: impl Fn(usize) -> MpFloat) -> MpArray {
        // The lengths of slices that exist: their residues are a bounded multiple of them.
        let mut a = MpArray {
            basis: basis.clone(),
            len,
            digits: vec![0; len * basis.len()],
            sign: vec![0; len],
            exp: vec![0; len],
            eval: vec![ExtF::ZERO; 2 * len],
            class: vec![0; len],
        };
        for i in 0..len {
            // same basis by construction: set cannot fail
            let _ = a.set(i, &f(i));
        }
        a
    }

    /// Each `f64` rounded to `p` bits (exact when `p ≥ 53`).
    pub fn from_f64(basis: &Arc<Basis>, xs: &[f64]) -> MpArray {
        Self::from_fn(basis, xs.len(), |i| MpFloat::from_f64(basis, xs[i]))
    }

    /// Each double-double rounded once to `p` bits.
    pub fn from_dd(basis: &Arc<Basis>, xs: &[Dd]) -> MpArray {
        Self::from_fn(basis, xs.len(), |i| MpFloat::from_dd(basis, xs[i]))
    }

    /// Each quad-double rounded once to `p` bits.
    pub fn from_qd(basis: &Arc<Basis>, xs: &[Qd]) -> MpArray {
        Self::from_fn(basis, xs.len(), |i| MpFloat::from_qd(basis, xs[i]))
    }

    /// Each element rounded to the nearest `f64`.
    ///
    /// # Errors
    /// As [`MpArray::to_mpfloats`].
    pub fn to_f64(&self) -> Result<Vec<f64>> {
        self.map_elements(|x| x.to_f64())
    }

    /// Each element as the nearest double-double (greedy words).
    ///
    /// # Errors
    /// As [`MpArray::to_mpfloats`].
    pub fn to_dd(&self) -> Result<Vec<Dd>> {
        self.map_elements(MpFloat::to_dd)
    }

    /// Each element as the nearest quad-double (greedy words).
    ///
    /// # Errors
    /// As [`MpArray::to_mpfloats`].
    pub fn to_qd(&self) -> Result<Vec<Qd>> {
        self.map_elements(MpFloat::to_qd)
    }

    /// `f` of every element, checked one at a time (no vector of [`MpFloat`]s in between).
    fn map_elements<T>(&self, f: impl Fn(&MpFloat) -> T) -> Result<Vec<T>> {
        (0..self.len).map(|i| self.get(i).map(|x| f(&x))).collect()
    }
}

/// The [`Error::InvalidView`] of an edited [`MpArray`] element.
fn invalid(reason: &'static str) -> Error {
    Error::InvalidView {
        arg: "MpArray",
        reason,
    }
}

/// True when the RNS integer `X ≠ 0` with residues `res` (each below its modulus) has exactly
/// `p` bits, `2^(p−1) ≤ X < 2^p`, decided exactly for any `X ∈ [1, M)`: the evaluation of
/// [`evaluate`] (relative width below `2^-38`) settles every `X` not within `2^-37` of a bound;
/// those are settled by the exact sign of `X − 2^c`, which is then below `2^(p+1)` in
/// magnitude (far below `M/4`, as [`sign_of`] needs: `p + 1 ≤ log2 M − 2`).
fn normalised_significand(b: &Basis, res: &[u32]) -> Result<bool> {
    let p = b.precision as i64;
    let [lo, hi] = evaluate(b, res)?;
    let (xl, xh) = (lo.mul_rd(b.m_ext[0]), hi.mul_ru(b.m_ext[1]));
    // floor(log2) of the bounds of X (i64::MIN for a zero lower bound).
    let (el, eh) = (xl.floor_log2(), xh.floor_log2());
    if eh < p - 1 || el >= p {
        return Ok(false);
    }
    if el == p - 1 && eh == p - 1 {
        return Ok(true);
    }
    if eh > p {
        // Bounds a factor of more than 2 apart, which the evaluation's width rules out:
        // refuse rather than ask sign_of about a difference beyond its range.
        return Ok(false);
    }
    // X < 2^(p+1) here, so |X − 2^c| < 2^(p+1) for both bounds c.
    let at_least = |c: u64| {
        let pc = b.pow2(c);
        let diff: Vec<u32> = (0..b.len())
            .map(|j| sub_mod(res[j], pc[j], b.m[j]))
            .collect();
        sign_of(b, &diff, p as u64 + 1) != Ordering::Less
    };
    Ok(at_least(p as u64 - 1) && !at_least(p as u64))
}
