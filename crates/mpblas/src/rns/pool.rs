//! A small per-thread pool of residue buffers, so that RNS arithmetic in a loop (a dot
//! product, an element-wise kernel on the CPU) reuses the same few heap buffers instead of
//! allocating several per operation.
//!
//! Every `MpFloat` gives its residues back when dropped, and the arithmetic core takes its
//! temporaries from here; after the first iterations of a loop the pool holds what the loop
//! needs and no operation allocates. A buffer returned on another thread joins that thread's
//! pool. At most [`KEEP`] buffers of each type are kept per thread; the rest are freed, so the
//! pool never grows without bound.

use std::cell::RefCell;

/// Buffers kept per thread and element type.
const KEEP: usize = 32;

thread_local! {
    static U32: RefCell<Vec<Vec<u32>>> = const { RefCell::new(Vec::new()) };
    static U64: RefCell<Vec<Vec<u64>>> = const { RefCell::new(Vec::new()) };
}

/// Element types the pool keeps.
pub(crate) trait Pooled: Copy + Default + 'static {
    /// `f` on this thread's pool; `None` during thread teardown, when it is gone (then the
    /// callers allocate or free as if the pool were empty or full).
    fn with<R>(f: impl FnOnce(&mut Vec<Vec<Self>>) -> R) -> Option<R>;
}

impl Pooled for u32 {
    fn with<R>(f: impl FnOnce(&mut Vec<Vec<u32>>) -> R) -> Option<R> {
        U32.try_with(|p| f(&mut p.borrow_mut())).ok()
    }
}

impl Pooled for u64 {
    fn with<R>(f: impl FnOnce(&mut Vec<Vec<u64>>) -> R) -> Option<R> {
        U64.try_with(|p| f(&mut p.borrow_mut())).ok()
    }
}

/// `n` zeros, in a buffer from the pool when one is there.
pub(crate) fn zeroed<T: Pooled>(n: usize) -> Vec<T> {
    let mut v = T::with(|p| p.pop()).flatten().unwrap_or_default();
    v.clear();
    v.resize(n, T::default());
    v
}

/// A copy of `x`, in a buffer from the pool when one is there.
pub(crate) fn copied<T: Pooled>(x: &[T]) -> Vec<T> {
    let mut v = T::with(|p| p.pop()).flatten().unwrap_or_default();
    v.clear();
    v.extend_from_slice(x);
    v
}

/// Gives `v`'s heap buffer back to this thread's pool (or frees it when the pool is full).
pub(crate) fn recycle<T: Pooled>(v: Vec<T>) {
    if v.capacity() == 0 {
        return;
    }
    let _ = T::with(|p| {
        if p.len() < KEEP {
            p.push(v);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back() {
        let v = zeroed::<u32>(10);
        let ptr = v.as_ptr();
        recycle(v);
        let w = copied::<u32>(&[1, 2, 3]);
        assert_eq!(w, [1, 2, 3]);
        assert_eq!(w.as_ptr(), ptr, "the same heap buffer");
        recycle(w);
        let z = zeroed::<u32>(4);
        assert_eq!(z, [0; 4]);
        for _ in 0..100 {
            recycle(zeroed::<u64>(3));
        }
    }
}
