//! The lanes of the blocked summation order, four at a time in AVX2: `acc[k] ← acc[k] + x[k]`
//! and `acc[k] ← acc[k] + x[k]·y[k]` for independent accumulators `k`, with exactly the
//! operations of [`Dd::add_accurate`] and [`Dd::mul_accurate`] (JMP 2017 Algorithms 6 and
//! 12), so the bits are those of the scalar loop. LLVM does not vectorise the scalar loop over
//! interleaved `(hi, lo)` pairs; here two loads hold four numbers, one unpack separates the
//! leading and trailing words, and the arithmetic runs on four lanes per instruction, two
//! (dot) or four (sum) registers interleaved per step. A step where some result is special
//! (zero, infinite, NaN: the scalar code's `finish` path) is redone lane by lane with the
//! scalar operations. Where the CPU has AVX-512 (F and DQ), the lanes run eight at a time with
//! the same operations (`add_lanes_avx512`, `add_product_lanes_avx512`): on one Zen 4 core
//! the dd sum went from about 690 to 940 M terms/s in cache.

use super::Dd;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// `acc[k] ← acc[k] + x[k]` ([`Dd::add_accurate`]) for every lane `k`: in AVX2 where the CPU
/// has AVX2 and FMA, else lane by lane; bit for bit `+` on every lane either way.
pub(super) fn add_lanes(acc: &mut [Dd], x: &[Dd]) {
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: the CPU has AVX-512F and AVX-512DQ (checked just above).
        return unsafe { add_lanes_avx512(acc, x) };
    }
    #[cfg(target_arch = "x86_64")]
    if avx2_fma() {
        // SAFETY: the CPU has AVX2 and FMA (checked just above).
        return unsafe { add_lanes_avx2(acc, x) };
    }
    for (a, v) in acc.iter_mut().zip(x) {
        *a += *v;
    }
}

/// `acc[k] ← acc[k] + x[k]·y[k]` (`×` then `+`) for every lane `k`, as [`add_lanes`].
pub(super) fn add_product_lanes(acc: &mut [Dd], x: &[Dd], y: &[Dd]) {
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: the CPU has AVX-512F and AVX-512DQ (checked just above).
        return unsafe { add_product_lanes_avx512(acc, x, y) };
    }
    #[cfg(target_arch = "x86_64")]
    if avx2_fma() {
        // SAFETY: the CPU has AVX2 and FMA (checked just above).
        return unsafe { add_product_lanes_avx2(acc, x, y) };
    }
    for ((a, u), v) in acc.iter_mut().zip(x).zip(y) {
        *a += *u * *v;
    }
}

/// True when the CPU has AVX2 and FMA (a cached CPUID query; constant under
/// `target-cpu=x86-64-v3`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn avx2_fma() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
}

/// True when the CPU has AVX-512F and AVX-512DQ (a cached CPUID query).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn avx512() -> bool {
    std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512dq")
}

/// Knuth's TwoSum on lanes of any width, with the lanes' addition and subtraction given (the
/// operations of [`crate::eft::two_sum`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn two_sum_by<V: Copy>(add: &impl Fn(V, V) -> V, sub: &impl Fn(V, V) -> V, a: V, b: V) -> (V, V) {
    let s = add(a, b);
    let bb = sub(s, a);
    (s, add(sub(a, sub(s, bb)), sub(b, bb)))
}

/// FastTwoSum on lanes of any width, as [`two_sum_by`] ([`crate::eft::fast_two_sum`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn fast_two_sum_by<V: Copy>(
    add: &impl Fn(V, V) -> V,
    sub: &impl Fn(V, V) -> V,
    a: V,
    b: V,
) -> (V, V) {
    let s = add(a, b);
    (s, sub(b, sub(s, a)))
}

/// [`Dd::add_accurate`] before its special-value check (JMP 2017 Algorithm 6) on lanes of any
/// width, with the lanes' addition and subtraction given: one body for the four-lane, the
/// eight-lane and the FMA-pipe forms, so that their operations, and bits, are the same by
/// construction.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn add_by<V: Copy>(
    add: impl Fn(V, V) -> V,
    sub: impl Fn(V, V) -> V,
    ah: V,
    al: V,
    bh: V,
    bl: V,
) -> (V, V) {
    let (sh, sl) = two_sum_by(&add, &sub, ah, bh);
    let (th, tl) = two_sum_by(&add, &sub, al, bl);
    let c = add(sl, th);
    let (vh, vl) = fast_two_sum_by(&add, &sub, sh, c);
    let w = add(tl, vl);
    fast_two_sum_by(&add, &sub, vh, w)
}

/// [`Dd::add_accurate`] before its special-value check, four lanes.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,fma")]
fn add(ah: __m256d, al: __m256d, bh: __m256d, bl: __m256d) -> (__m256d, __m256d) {
    add_by(
        |a, b| _mm256_add_pd(a, b),
        |a, b| _mm256_sub_pd(a, b),
        ah,
        al,
        bh,
        bl,
    )
}

/// [`Dd::mul_accurate`] before its special-value check.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,fma")]
fn mul(ah: __m256d, al: __m256d, bh: __m256d, bl: __m256d) -> (__m256d, __m256d) {
    let ch = _mm256_mul_pd(ah, bh);
    let cl1 = _mm256_fmsub_pd(ah, bh, ch);
    let tl0 = _mm256_mul_pd(al, bl);
    let tl1 = _mm256_fmadd_pd(ah, bl, tl0);
    let cl2 = _mm256_fmadd_pd(al, bh, tl1);
    let cl3 = _mm256_add_pd(cl1, cl2);
    fast_two_sum_by(
        &|a, b| _mm256_add_pd(a, b),
        &|a, b| _mm256_sub_pd(a, b),
        ch,
        cl3,
    )
}

/// All four leading words finite and nonzero: the scalar `finish` keeps the computed words.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,fma")]
fn generic(h: __m256d) -> bool {
    let abs = _mm256_andnot_pd(_mm256_set1_pd(-0.0), h);
    let finite = _mm256_cmp_pd::<_CMP_LT_OQ>(abs, _mm256_set1_pd(f64::INFINITY));
    let nonzero = _mm256_cmp_pd::<_CMP_NEQ_OQ>(h, _mm256_setzero_pd());
    _mm256_movemask_pd(_mm256_and_pd(finite, nonzero)) == 0xf
}

/// Four `Dd`s at `p` as (leading words, trailing words), lanes in the order 0, 2, 1, 3 (the
/// same for every operand, and undone by [`store`]).
///
/// # Safety
/// `p` must address four `Dd`s.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn load(p: *const Dd) -> (__m256d, __m256d) {
    let p = p.cast::<f64>();
    // SAFETY: the caller's contract: eight f64s at p (Dd is repr(C) {hi, lo}).
    let (v0, v1) = unsafe { (_mm256_loadu_pd(p), _mm256_loadu_pd(p.add(4))) };
    (_mm256_unpacklo_pd(v0, v1), _mm256_unpackhi_pd(v0, v1))
}

/// Stores four lanes of [`load`]'s order as four `Dd`s at `p`.
///
/// # Safety
/// `p` must address four `Dd`s.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,fma")]
unsafe fn store(p: *mut Dd, h: __m256d, l: __m256d) {
    let p = p.cast::<f64>();
    // SAFETY: the caller's contract.
    unsafe {
        _mm256_storeu_pd(p, _mm256_unpacklo_pd(h, l));
        _mm256_storeu_pd(p.add(4), _mm256_unpackhi_pd(h, l));
    }
}

/// `acc[k] ← acc[k] + x[k]` for `k < min(len)`.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn add_lanes_avx2(acc: &mut [Dd], x: &[Dd]) {
    let n = acc.len().min(x.len());
    // Four groups per iteration: their dependency chains interleave.
    let quads = n / 16;
    for g in 0..quads {
        // SAFETY: 16g + 15 < n, inside both slices (Dd is repr(C) {hi, lo}).
        let ok = unsafe {
            let pa = acc.as_mut_ptr().add(16 * g);
            let px = x.as_ptr().add(16 * g);
            let mut z = [(_mm256_setzero_pd(), _mm256_setzero_pd()); 4];
            let mut ok = true;
            for (k, zk) in z.iter_mut().enumerate() {
                let (ah, al) = load(pa.add(4 * k));
                let (xh, xl) = load(px.add(4 * k));
                *zk = add(ah, al, xh, xl);
                ok &= generic(zk.0);
            }
            if ok {
                for (k, zk) in z.iter().enumerate() {
                    store(pa.add(4 * k), zk.0, zk.1);
                }
            }
            ok
        };
        if !ok {
            for k in 16 * g..16 * g + 16 {
                acc[k] += x[k];
            }
        }
    }
    for k in 16 * quads..n {
        acc[k] += x[k];
    }
}

/// Eight `Dd`s at `p` as (leading words, trailing words), lanes in the order 0, 4, 1, 5,
/// 2, 6, 3, 7 (the same for every operand, undone by `store8`).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn load8(p: *const Dd) -> (__m512d, __m512d) {
    let p = p.cast::<f64>();
    // SAFETY: the caller's contract: sixteen f64s at p.
    let (v0, v1) = unsafe { (_mm512_loadu_pd(p), _mm512_loadu_pd(p.add(8))) };
    (_mm512_unpacklo_pd(v0, v1), _mm512_unpackhi_pd(v0, v1))
}

/// Eight `Dd`s back to `p` from [`load8`]'s order.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn store8(p: *mut Dd, h: __m512d, l: __m512d) {
    let p = p.cast::<f64>();
    // SAFETY: the caller's contract.
    unsafe {
        _mm512_storeu_pd(p, _mm512_unpacklo_pd(h, l));
        _mm512_storeu_pd(p.add(8), _mm512_unpackhi_pd(h, l));
    }
}

/// [`add`] on eight lanes.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn add8(ah: __m512d, al: __m512d, bh: __m512d, bl: __m512d) -> (__m512d, __m512d) {
    add_by(
        |a, b| _mm512_add_pd(a, b),
        |a, b| _mm512_sub_pd(a, b),
        ah,
        al,
        bh,
        bl,
    )
}

/// [`add8`] with every addition `a + b` written `fma(a, 1, b)` and every subtraction `a − b`
/// written `fma(−b, 1, a)`: the same roundings, so the same bits (`a·1` is exact, signed zeros
/// come out as from `+` and `−`; only NaN payloads may differ, which nothing specifies). Zen 4
/// runs additions on two of its four FP pipes and FMAs on the other two, so a loop that takes
/// one group through [`add8`] and the next through this one keeps all four busy. `one` must be
/// 1.0 in every lane, passed from outside the loop through `black_box`: LLVM folds an FMA by a
/// constant 1 back into an addition.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn add8_on_fma_pipes(
    one: __m512d,
    ah: __m512d,
    al: __m512d,
    bh: __m512d,
    bl: __m512d,
) -> (__m512d, __m512d) {
    add_by(
        move |a, b| _mm512_fmadd_pd(a, one, b),
        move |a, b| _mm512_fnmadd_pd(b, one, a),
        ah,
        al,
        bh,
        bl,
    )
}

/// [`mul`] on eight lanes.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn mul8(ah: __m512d, al: __m512d, bh: __m512d, bl: __m512d) -> (__m512d, __m512d) {
    let ch = _mm512_mul_pd(ah, bh);
    let cl1 = _mm512_fmsub_pd(ah, bh, ch);
    let tl0 = _mm512_mul_pd(al, bl);
    let tl1 = _mm512_fmadd_pd(ah, bl, tl0);
    let cl2 = _mm512_fmadd_pd(al, bh, tl1);
    let cl3 = _mm512_add_pd(cl1, cl2);
    fast_two_sum_by(
        &|a, b| _mm512_add_pd(a, b),
        &|a, b| _mm512_sub_pd(a, b),
        ch,
        cl3,
    )
}

// QNaN, +0, −0, +∞, −∞, SNaN: the leading words the scalar `finish` replaces.
#[cfg(target_arch = "x86_64")]
const SPECIAL: i32 = 0x01 | 0x02 | 0x04 | 0x08 | 0x10 | 0x80;

/// `acc[k] ← acc[k] + x[k]` for `k < min(len)`, eight lanes per instruction: the operations
/// of [`add_lanes_avx2`] (so the bits of `+`), with AVX-512's `vfpclasspd` as the special-value
/// test (one instruction for eight lanes instead of four for four). Half the instructions of
/// the AVX2 loop, which is what the dd sum was short of on Zen 4 (it ran below the memory's
/// rate on one core's instruction throughput).
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512DQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn add_lanes_avx512(acc: &mut [Dd], x: &[Dd]) {
    let n = acc.len().min(x.len());
    let one = _mm512_set1_pd(std::hint::black_box(1.0));
    // Two groups of eight per iteration: their dependency chains interleave.
    let pairs = n / 16;
    for g in 0..pairs {
        // SAFETY: 16g + 15 < n, inside both slices (Dd is repr(C) {hi, lo}).
        let ok = unsafe {
            let pa = acc.as_mut_ptr().add(16 * g);
            let px = x.as_ptr().add(16 * g);
            let (ah, al) = load8(pa);
            let (bh, bl) = load8(pa.add(8));
            let (xh, xl) = load8(px);
            let (yh, yl) = load8(px.add(8));
            let (zh, zl) = add8(ah, al, xh, xl);
            let (wh, wl) = add8_on_fma_pipes(one, bh, bl, yh, yl);
            let bad = _mm512_fpclass_pd_mask::<SPECIAL>(zh) | _mm512_fpclass_pd_mask::<SPECIAL>(wh);
            if bad == 0 {
                store8(pa, zh, zl);
                store8(pa.add(8), wh, wl);
            }
            bad == 0
        };
        if !ok {
            for k in 16 * g..16 * g + 16 {
                acc[k] += x[k];
            }
        }
    }
    for k in 16 * pairs..n {
        acc[k] += x[k];
    }
}

/// `acc[k] ← acc[k] + x[k]·y[k]` for `k < min(len)`, eight lanes per instruction: the
/// operations of [`add_product_lanes_avx2`] (so the bits of `×` then `+`), with `vfpclasspd`
/// as the special-value test, as [`add_lanes_avx512`] does for the sum.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512DQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn add_product_lanes_avx512(acc: &mut [Dd], x: &[Dd], y: &[Dd]) {
    let n = acc.len().min(x.len()).min(y.len());
    // Two groups of eight per iteration: their dependency chains interleave.
    let pairs = n / 16;
    for g in 0..pairs {
        // SAFETY: 16g + 15 < n, inside all three slices (Dd is repr(C) {hi, lo}).
        let ok = unsafe {
            let pa = acc.as_mut_ptr().add(16 * g);
            let (px, py) = (x.as_ptr().add(16 * g), y.as_ptr().add(16 * g));
            let (ah, al) = load8(pa);
            let (bh, bl) = load8(pa.add(8));
            let (xh, xl) = load8(px);
            let (uh, ul) = load8(px.add(8));
            let (yh, yl) = load8(py);
            let (vh, vl) = load8(py.add(8));
            let (ph, pl) = mul8(xh, xl, yh, yl);
            let (qh, ql) = mul8(uh, ul, vh, vl);
            let (zh, zl) = add8(ah, al, ph, pl);
            let (wh, wl) = add8(bh, bl, qh, ql);
            let bad = _mm512_fpclass_pd_mask::<SPECIAL>(ph)
                | _mm512_fpclass_pd_mask::<SPECIAL>(qh)
                | _mm512_fpclass_pd_mask::<SPECIAL>(zh)
                | _mm512_fpclass_pd_mask::<SPECIAL>(wh);
            if bad == 0 {
                store8(pa, zh, zl);
                store8(pa.add(8), wh, wl);
            }
            bad == 0
        };
        if !ok {
            for k in 16 * g..16 * g + 16 {
                acc[k] += x[k] * y[k];
            }
        }
    }
    for k in 16 * pairs..n {
        acc[k] += x[k] * y[k];
    }
}

/// `acc[k] ← acc[k] + x[k]·y[k]` for `k < min(len)`.
///
/// # Safety
/// The CPU must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn add_product_lanes_avx2(acc: &mut [Dd], x: &[Dd], y: &[Dd]) {
    let n = acc.len().min(x.len()).min(y.len());
    // Two groups per iteration: their dependency chains interleave.
    let pairs = n / 8;
    for g in 0..pairs {
        // SAFETY: 8g + 7 < n, inside all three slices.
        let ok = unsafe {
            let pa = acc.as_mut_ptr().add(8 * g);
            let (px, py) = (x.as_ptr().add(8 * g), y.as_ptr().add(8 * g));
            let (ah, al) = load(pa);
            let (bh, bl) = load(pa.add(4));
            let (xh, xl) = load(px);
            let (uh, ul) = load(px.add(4));
            let (yh, yl) = load(py);
            let (vh, vl) = load(py.add(4));
            let (ph, pl) = mul(xh, xl, yh, yl);
            let (qh, ql) = mul(uh, ul, vh, vl);
            let (zh, zl) = add(ah, al, ph, pl);
            let (wh, wl) = add(bh, bl, qh, ql);
            let ok = generic(ph) && generic(qh) && generic(zh) && generic(wh);
            if ok {
                store(pa, zh, zl);
                store(pa.add(4), wh, wl);
            }
            ok
        };
        if !ok {
            for k in 8 * g..8 * g + 8 {
                acc[k] += x[k] * y[k];
            }
        }
    }
    for k in 8 * pairs..n {
        acc[k] += x[k] * y[k];
    }
}

#[cfg(test)]
mod tests {
    use super::Dd;

    /// The lane routines give the scalar loop's bits, on random values and with special values
    /// (zeros, infinities, NaN, overflow, cancellation to zero) scattered through the groups.
    #[test]
    fn lanes_equal_the_scalar_operations() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let specials = [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
        ];
        let mut value = |k: usize| {
            let r = next();
            if k % 11 == 5 {
                Dd::from(specials[(r % 6) as usize])
            } else {
                let e = (r % 40) as i32 - 20;
                let h = f64::from_bits(0x3ff0_0000_0000_0000 | (r >> 12)) * 2f64.powi(e);
                let h = if r & 1 == 1 { -h } else { h };
                Dd::new(h, h * 2f64.powi(-60) * ((next() % 7) as f64 - 3.0) / 4.0)
            }
        };
        let n = 4003;
        let acc: Vec<Dd> = (0..n).map(&mut value).collect();
        let x: Vec<Dd> = (0..n).map(&mut value).collect();
        let mut y: Vec<Dd> = (0..n).map(&mut value).collect();
        y[7] = -x[7]; // an exact zero sum in a group
        let same = |got: &[Dd], want: &[Dd]| {
            for (k, (g, w)) in got.iter().zip(want).enumerate() {
                // NaN payloads are not specified (LLVM may commute an addition).
                let nan = g.hi.is_nan() && w.hi.is_nan() && g.lo.to_bits() == w.lo.to_bits();
                assert!(
                    nan || (g.hi.to_bits() == w.hi.to_bits() && g.lo.to_bits() == w.lo.to_bits()),
                    "lane {k}: {g:?} != {w:?}"
                );
            }
        };
        let mut got = acc.clone();
        super::add_lanes(&mut got, &x);
        let want: Vec<Dd> = acc.iter().zip(&x).map(|(a, b)| *a + *b).collect();
        same(&got, &want);
        // each vector path where the CPU has it (add_lanes takes the widest)
        #[cfg(target_arch = "x86_64")]
        {
            if super::avx2_fma() {
                let mut got = acc.clone();
                // SAFETY: checked just above.
                unsafe { super::add_lanes_avx2(&mut got, &x) };
                same(&got, &want);
            }
            if super::avx512() {
                let mut got = acc.clone();
                // SAFETY: checked just above.
                unsafe { super::add_lanes_avx512(&mut got, &x) };
                same(&got, &want);
            } else {
                eprintln!("SKIPPED: no AVX-512 here, its add_lanes path not checked");
            }
        }
        let mut got = acc.clone();
        super::add_product_lanes(&mut got, &x, &y);
        let want: Vec<Dd> = acc
            .iter()
            .zip(&x)
            .zip(&y)
            .map(|((a, b), c)| *a + *b * *c)
            .collect();
        same(&got, &want);
        #[cfg(target_arch = "x86_64")]
        {
            if super::avx2_fma() {
                let mut got = acc.clone();
                // SAFETY: checked just above.
                unsafe { super::add_product_lanes_avx2(&mut got, &x, &y) };
                same(&got, &want);
            }
            if super::avx512() {
                let mut got = acc.clone();
                // SAFETY: checked just above.
                unsafe { super::add_product_lanes_avx512(&mut got, &x, &y) };
                same(&got, &want);
            } else {
                eprintln!("SKIPPED: no AVX-512 here, its add_product_lanes path not checked");
            }
        }
    }
}
