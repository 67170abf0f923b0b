//! The device twin of `MpArray`: see [`DeviceMpArray`].
use super::{Basis, ExtF, MpArray};
use crate::cuda::{Device, DeviceBuffer, DevicePod, Header, check_len};
use crate::error::{Error, Result};
use std::sync::Arc;

/// `rns.cuh`: the device twin of the RNS arithmetic (`basis.rs`, `interval.rs`, `float.rs`,
/// `divsqrt.rs`), shared by the RNS kernel modules.
pub(crate) static RNS_CUH: Header = Header {
    name: "rns.cuh",
    text: include_str!("rns.cuh"),
};

/// Largest number of moduli the GPU kernels handle (`RNS_MAX_N` in `rns.cuh`): bases up
/// to about 3960 bits of precision (3393 bits take 219 moduli).
pub const MAX_MODULI: usize = 256;

/// Words of the packed table's header (`RNS_HDR` in `rns.cuh`).
const HEADER: usize = 40;
/// First word of the packed table.
const MAGIC: u32 = 0x524e_5331; // "RNS1"

/// The basis constants as one `u32` table, the layout `rns_basis()` in `rns.cuh` reads:
///
/// | words | content |
/// |---|---|
/// | 0 | magic `0x524E5331` |
/// | 1–6 | `n`, `p`, `⌊log2 M⌋`, `k_norm`, rows of the `2^(64j)` tables, limbs of the scaling tables |
/// | 7–8 | `M mod 2^64` (low word first) |
/// | 9–16 | the bounds of `M`: `f64` bits then `i64` exponent, lower then upper (low words first) |
/// | 17–32 | offsets of the 16 tables: `m, μ, w, w_norm, recip_hi, recip_lo, Mᵢ mod 2^64 (hi, lo halves), 2^32 mod m, 2^k, 2^(64j), 2^-k, 2^(-64j), Mᵢ limbs, M limbs, 2^(32l) mod m` |
/// | 40… | the tables |
///
/// Public so that host-side twins of the device code (tests) can use the very same table.
pub fn pack_basis(b: &Basis) -> Vec<u32> {
    let t = b.scale_tables();
    let n = b.len();
    let tables: [&[u32]; 16] = [
        &b.m,
        &b.mu,
        &b.w,
        &b.w_norm,
        &b.recip_hi,
        &b.recip_lo,
        &b.mi_low_hi,
        &b.mi_low_lo,
        &b.two32,
        &b.pow2_lo,
        &b.pow2_hi,
        &b.inv2,
        &b.inv2_hi,
        &t.mi_bin,
        &t.m_bin,
        &t.pow32,
    ];
    let total = HEADER + tables.iter().map(|t| t.len()).sum::<usize>();
    let mut out = vec![0u32; HEADER];
    out.reserve(total - HEADER);
    let u64_words = |v: u64| [v as u32, (v >> 32) as u32];
    out[0] = MAGIC;
    out[1] = n as u32;
    out[2] = b.precision;
    out[3] = b.log2m;
    out[4] = b.k_norm;
    out[5] = (b.pow2_hi.len() / n) as u32;
    out[6] = t.limbs as u32;
    out[7..9].copy_from_slice(&u64_words(b.m_low));
    for (k, e) in b.m_ext.iter().enumerate() {
        out[9 + 4 * k..11 + 4 * k].copy_from_slice(&u64_words(e.f.to_bits()));
        out[11 + 4 * k..13 + 4 * k].copy_from_slice(&u64_words(e.e as u64));
    }
    for (k, table) in tables.iter().enumerate() {
        out[17 + k] = out.len() as u32;
        out.extend_from_slice(table);
    }
    out
}

/// An evaluation bound as the two device words `{f64 bits, i64}`.
fn extf_words(x: &ExtF) -> [u64; 2] {
    [x.f.to_bits(), x.e as u64]
}

/// An evaluation bound from its two device words.
fn extf_from_words(w: &[u64]) -> ExtF {
    ExtF {
        f: f64::from_bits(w[0]),
        e: w[1] as i64,
    }
}

/// `count` zeroed elements of `T` on `dev`.
fn alloc<T: DevicePod>(dev: &Device, count: usize) -> Result<DeviceBuffer<T>> {
    DeviceBuffer::zeros(dev, count)
}

/// The packed basis table of `basis` on `dev`, uploaded on first use and cached by the basis's
/// identity.
pub(crate) fn device_tables(dev: &Device, basis: &Basis) -> Result<Arc<DeviceBuffer<u32>>> {
    dev.cached("rns-basis", "packed", basis.id, || {
        DeviceBuffer::from_host(dev, &pack_basis(basis))
    })
}

/// `L` RNS numbers of one basis on one GPU, in exactly the host layout of [`MpArray`] (Table 2
/// of the MPRES-BLAS GEMV paper), plus the auxiliary buffer of the split kernels.
///
/// | field | device array | content |
/// |---|---|---|
/// | `digits` | `n·L` `u32` | all residues of element 0, then of element 1, … |
/// | `sign` | `L` `u8` | 0 positive, 1 negative |
/// | `exp` | `L` `i64` | exponents |
/// | `eval` | `2L` records `{f64, i64}` (`4L` `u64` words) | the `L` lower bounds, then the `L` upper bounds |
/// | `class` | `L` `u8` | 0 finite, 1 infinite, 2 NaN |
/// | `buf` | `4L` `u32` | the plan kernel 1 writes for kernels 2 and 3 (flags, two scalings, a bit bound) |
///
/// The basis constants (moduli, Barrett and CRT constants, power-of-two and limb tables) are
/// packed into one `u32` table ([`pack_basis`]) and uploaded once per basis and device: every
/// array of that basis on that device shares it (the device keeps it while it lives).
///
/// Transfers are enqueued on the device's stream in call order: an upload returns once the
/// host data has been staged (the source may be reused at once), kernels queued after it see
/// it; a download waits for everything queued before it.
pub struct DeviceMpArray {
    basis: Arc<Basis>,
    tables: Arc<DeviceBuffer<u32>>,
    len: usize,
    ordinal: usize,
    pub(crate) digits: DeviceBuffer<u32>,
    pub(crate) sign: DeviceBuffer<u8>,
    pub(crate) exp: DeviceBuffer<i64>,
    pub(crate) eval: DeviceBuffer<u64>,
    pub(crate) class: DeviceBuffer<u8>,
    pub(crate) buf: DeviceBuffer<u32>,
}

impl std::fmt::Debug for DeviceMpArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceMpArray")
            .field("precision", &self.basis.precision())
            .field("moduli", &self.basis.len())
            .field("len", &self.len)
            .field("device", &self.ordinal)
            .finish()
    }
}

impl DeviceMpArray {
    /// `len` zeros (`+0`) of `basis` on `dev`.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfRange`] if the basis has more than [`MAX_MODULI`] moduli;
    /// [`Error::CudaOutOfMemory`] or [`Error::CudaDriver`] if an allocation fails.
    pub fn zeros(dev: &Device, basis: &Arc<Basis>, len: usize) -> Result<DeviceMpArray> {
        let n = basis.len();
        if n > MAX_MODULI {
            return Err(Error::OutOfRange {
                what: "number of RNS moduli on the GPU",
                got: n,
                min: 2,
                max: MAX_MODULI,
            });
        }
        let tables = device_tables(dev, basis)?;
        let digits_len = len.checked_mul(n).ok_or(Error::CudaOutOfMemory {
            ordinal: dev.ordinal(),
            bytes: usize::MAX,
        })?;
        Ok(DeviceMpArray {
            basis: basis.clone(),
            tables,
            len,
            ordinal: dev.ordinal(),
            digits: alloc(dev, digits_len)?,
            sign: alloc(dev, len)?,
            exp: alloc(dev, len)?,
            eval: alloc(dev, len.saturating_mul(4))?,
            class: alloc(dev, len)?,
            buf: alloc(dev, len.saturating_mul(4))?,
        })
    }

    /// A new device array holding `src`.
    ///
    /// # Errors
    ///
    /// As [`DeviceMpArray::zeros`] and [`DeviceMpArray::copy_from_host`].
    pub fn upload(dev: &Device, src: &MpArray) -> Result<DeviceMpArray> {
        let mut a = DeviceMpArray::zeros(dev, src.basis(), src.len())?;
        a.copy_from_host(src)?;
        Ok(a)
    }

    /// The number of elements `L`.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The basis of every element.
    pub fn basis(&self) -> &Arc<Basis> {
        &self.basis
    }

    /// The CUDA ordinal of the device the array lives on.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// Pretend the array lives on device `ordinal` (to test the device checks on one GPU).
    #[doc(hidden)]
    pub fn set_ordinal_for_tests(&mut self, ordinal: usize) {
        self.ordinal = ordinal;
    }

    /// The device address of the packed basis table (shared by every array of the basis).
    pub(crate) fn tables(&self) -> u64 {
        self.tables.addr()
    }

    /// [`Error::BasisMismatch`] unless `other` has this array's basis.
    fn check_basis(&self, other: &Basis) -> Result<()> {
        if self.basis.same(other) {
            Ok(())
        } else {
            Err(Error::BasisMismatch {
                left_bits: self.basis.precision(),
                right_bits: other.precision(),
            })
        }
    }

    /// Copy `src` into this array (enqueued on the stream; `src` may be reused at once).
    ///
    /// # Errors
    ///
    /// [`Error::BasisMismatch`] if `src` has another basis; [`Error::LengthMismatch`] if the
    /// lengths differ; [`Error::InvalidView`] if `src`'s public fields were edited to other
    /// lengths, or an element to a class or sign code out of range, a residue not below its
    /// modulus or an exponent out of range (the kernels' exponent arithmetic would wrap on it
    /// in silence); [`Error::CudaDriver`] if a copy fails. The significand's width and the
    /// evaluation are not checked here (that costs CRT passes per element, more than the
    /// copy); [`MpArray::get`] checks them.
    pub fn copy_from_host(&mut self, src: &MpArray) -> Result<()> {
        self.check_basis(src.basis())?;
        src.check_fields()?;
        check_len("src", self.len, src.len())?;
        (0..src.len()).try_for_each(|i| src.check_codes(i))?;
        if self.len == 0 {
            return Ok(());
        }
        self.digits.copy_from_host(&src.digits)?;
        self.sign.copy_from_host(&src.sign)?;
        self.exp.copy_from_host(&src.exp)?;
        let eval: Vec<u64> = src.eval.iter().flat_map(extf_words).collect();
        self.eval.copy_from_host(&eval)?;
        self.class.copy_from_host(&src.class)
    }

    /// Copy the array into `dst` (waits for the work queued before on the stream).
    ///
    /// # Errors
    ///
    /// [`Error::BasisMismatch`] if `dst` has another basis; [`Error::LengthMismatch`] if the
    /// lengths differ; [`Error::CudaDriver`] if a copy fails or an earlier kernel failed.
    pub fn copy_to_host(&self, dst: &mut MpArray) -> Result<()> {
        self.check_basis(dst.basis())?;
        dst.check_fields()?;
        check_len("dst", self.len, dst.len())?;
        if self.len == 0 {
            return Ok(());
        }
        self.digits.copy_to_host(&mut dst.digits)?;
        self.sign.copy_to_host(&mut dst.sign)?;
        self.exp.copy_to_host(&mut dst.exp)?;
        let eval = self.eval.to_vec()?;
        self.class.copy_to_host(&mut dst.class)?;
        for (d, w) in dst.eval.iter_mut().zip(eval.chunks_exact(2)) {
            *d = extf_from_words(w);
        }
        Ok(())
    }

    /// The array's contents on the host (waits for the work queued before on the stream).
    ///
    /// # Errors
    ///
    /// As [`DeviceMpArray::copy_to_host`].
    pub fn download(&self) -> Result<MpArray> {
        let mut out = MpArray::zeros(&self.basis, self.len)?;
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// Checks that this array can be an operand of an operation on `dev` whose first operand
    /// is `like`: same device, basis and length.
    pub(crate) fn check_operand(
        &self,
        dev: &Device,
        arg: &'static str,
        like: &DeviceMpArray,
    ) -> Result<()> {
        dev.check_on(arg, self.ordinal)?;
        like.check_basis(&self.basis)?;
        check_len(arg, like.len, self.len)
    }
}
