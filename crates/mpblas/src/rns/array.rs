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
use crate::rns::extf::ExtF;
use crate::rns::float::{Class, MpFloat};
use crate::{dd::Dd, qd::Qd};
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
    /// # Errors
    /// [`Error::OutOfBounds`] when `i ≥ L`; [`Error::InvalidView`] when the public fields were
    /// edited to other lengths.
    pub fn get(&self, i: usize) -> Result<MpFloat> {
        self.check_fields()?;
        if i >= self.len {
            return Err(Error::OutOfBounds {
                what: "MpArray::get",
                got: i,
                len: self.len,
            });
        }
        let n = self.basis.len();
        Ok(MpFloat {
            basis: self.basis.clone(),
            class: match self.class[i] {
                0 => Class::Finite,
                1 => Class::Infinite,
                _ => Class::Nan,
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
    pub fn to_mpfloats(&self) -> Vec<MpFloat> {
        (0..self.len).filter_map(|i| self.get(i).ok()).collect()
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
    pub fn to_f64(&self) -> Vec<f64> {
        self.to_mpfloats().iter().map(MpFloat::to_f64).collect()
    }

    /// Each element as the nearest double-double (greedy words).
    pub fn to_dd(&self) -> Vec<Dd> {
        self.to_mpfloats().iter().map(MpFloat::to_dd).collect()
    }

    /// Each element as the nearest quad-double (greedy words).
    pub fn to_qd(&self) -> Vec<Qd> {
        self.to_mpfloats().iter().map(MpFloat::to_qd).collect()
    }
}
