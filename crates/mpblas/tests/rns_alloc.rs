//! The scalar trait does not force a heap allocation per operation: a generic dot product in
//! RNS, `acc.add_product(&x[i], &y[i])`, allocates no more for 1000 elements than for 10 (the
//! residue buffers come from a per-thread pool that every `MpFloat` returns its own to). Counted
//! with an allocator that tallies this thread's allocations.

use mpblas::Scalar;
use mpblas::rns::{Basis, MpFloat};
use mpblas_testdata::SplitMix64;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static COUNT: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = COUNT.try_with(|c| c.set(c.get() + 1));
        // SAFETY: the caller's contract, passed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn allocations<R>(f: impl FnOnce() -> R) -> (u64, R) {
    let before = COUNT.with(Cell::get);
    let r = f();
    (COUNT.with(Cell::get) - before, r)
}

fn dot<T: Scalar>(x: &[T], y: &[T]) -> T {
    let mut acc = T::zero_in(&x[0].ctx());
    for (a, b) in x.iter().zip(y) {
        acc.add_product(a, b);
    }
    acc
}

#[test]
fn a_generic_rns_dot_allocates_o1_times() {
    for bits in [106, 424, 1696] {
        let b = Basis::new(bits).unwrap();
        let mut g = SplitMix64::new(u64::from(bits));
        let mut draw = || {
            let e = g.int(-30, 30) as i32;
            MpFloat::from_f64(&b, g.sign() * g.f64_exp(e))
        };
        let x: Vec<MpFloat> = (0..3000).map(|_| draw()).collect();
        let y: Vec<MpFloat> = (0..3000).map(|_| draw()).collect();
        // The first dot product fills the pool with what the operations need; a rare rounding
        // path may later take one more buffer or grow one (a handful of times in all).
        let (first, _) = allocations(|| dot(&x, &y));
        let (short, s10) = allocations(|| dot(&x[..10], &y[..10]));
        let (mid, s1000) = allocations(|| dot(&x[..1000], &y[..1000]));
        let (long, s3000) = allocations(|| dot(&x, &y));
        eprintln!(
            "{bits} bits: {first} allocations in the first dot of 3000 (cold pool), then \
             {short} for n = 10, {mid} for n = 1000, {long} for n = 3000"
        );
        // Measured (106/424/1696 bits): under 20 cold, then 0 to 2 whatever n: O(1), not O(n).
        assert!(first < 40, "{bits} bits: {first} allocations when cold");
        assert!(
            short <= 4 && mid <= 4 && long <= 4,
            "{bits} bits: {short} {mid} {long}"
        );
        assert!(s10.is_finite() && s1000.is_finite() && s3000.is_finite());
    }
}

/// `MpArray` at impossible lengths and with edited fields: errors, not panics or aborts
/// (issue 11).
#[test]
fn mparray_sizes_and_edited_fields_are_errors() {
    use mpblas::rns::{Basis, MpArray, MpFloat};
    let b = Basis::new(106).unwrap();
    for len in [usize::MAX / 2, usize::MAX, 1 << 60] {
        assert!(MpArray::zeros(&b, len).is_err(), "{len}");
    }
    let mut a = MpArray::zeros(&b, 3).unwrap();
    let one = MpFloat::from_f64(&b, 1.0);
    a.set(1, &one).unwrap();
    assert!(a.get(1).unwrap() == one);
    a.sign.pop();
    assert!(a.get(0).is_err());
    assert!(a.set(0, &one).is_err());
    let mut a = MpArray::zeros(&b, 2).unwrap();
    a.digits.truncate(3);
    assert!(a.get(1).is_err());
}
