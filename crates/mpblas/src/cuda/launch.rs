//! Launch shapes and kernel arguments: the plain data a launcher hands to
//! [`Device::launch`](super::Device::launch), free of any driver type so that every launcher
//! compiles with and without the `cuda` feature.

use std::ffi::c_void;

/// A launch shape: grid and block dimensions and dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks per grid dimension.
    pub grid: (u32, u32, u32),
    /// Threads per block dimension.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
}

impl LaunchConfig {
    /// A grid of `grid.0 × grid.1` blocks (each at least 1) of `block` threads.
    pub fn new(grid: (u32, u32), block: u32) -> LaunchConfig {
        LaunchConfig {
            grid: (grid.0.max(1), grid.1.max(1), 1),
            block: (block, 1, 1),
            shared_bytes: 0,
        }
    }
}

/// `⌈n / per⌉` blocks, clamped to `1..=cap`.
pub fn blocks(n: usize, per: usize, cap: usize) -> u32 {
    n.div_ceil(per.max(1))
        .clamp(1, cap.max(1))
        .min(u32::MAX as usize) as u32
}

/// One kernel argument, by value. Device pointers are passed as their address ([`Arg::U64`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// `unsigned long long`, `u64`, or any pointer (its device address).
    U64(u64),
    /// `int`.
    I32(i32),
    /// `unsigned int`.
    U32(u32),
    /// `double`.
    F64(f64),
    /// `float`.
    F32(f32),
    /// A `struct` passed by value: its bytes, in `u64` words so that the driver reads them from
    /// an 8-byte aligned address. The struct's C layout must be exactly these bytes.
    Struct(Box<[u64]>),
}

impl Arg {
    /// A pointer to the value, as `cuLaunchKernel` wants each parameter.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub(crate) fn as_param(&self) -> *mut c_void {
        match self {
            Arg::U64(x) => (x as *const u64).cast_mut().cast(),
            Arg::I32(x) => (x as *const i32).cast_mut().cast(),
            Arg::U32(x) => (x as *const u32).cast_mut().cast(),
            Arg::F64(x) => (x as *const f64).cast_mut().cast(),
            Arg::F32(x) => (x as *const f32).cast_mut().cast(),
            Arg::Struct(words) => words.as_ptr().cast_mut().cast(),
        }
    }
}

impl From<u64> for Arg {
    fn from(x: u64) -> Arg {
        Arg::U64(x)
    }
}
impl From<usize> for Arg {
    fn from(x: usize) -> Arg {
        Arg::U64(x as u64)
    }
}
impl From<i32> for Arg {
    fn from(x: i32) -> Arg {
        Arg::I32(x)
    }
}
impl From<u32> for Arg {
    fn from(x: u32) -> Arg {
        Arg::U32(x)
    }
}
impl From<f64> for Arg {
    fn from(x: f64) -> Arg {
        Arg::F64(x)
    }
}
impl From<f32> for Arg {
    fn from(x: f32) -> Arg {
        Arg::F32(x)
    }
}

/// `&[Arg; N]` from a list of values convertible to [`Arg`]:
/// `args![x_addr, n, 1.5f64]`.
macro_rules! args {
    ($($a:expr),* $(,)?) => { &[$($crate::cuda::Arg::from($a)),*] };
}
pub(crate) use args;

/// Launches an element-wise kernel of the shape the formats' map kernels share:
/// `kernel(<x words>, [<y words> | <scalar words>], <out words>, u64 n)`, where each vector
/// contributes `T::WORDS` word pointers and a scalar `T::WORDS` doubles, most significant first.
/// `y` and `scalar` are mutually exclusive (both `None` for a unary kernel). Checks devices and
/// lengths first; `n = 0` launches nothing.
pub(crate) fn launch_map<T: super::DeviceScalar>(
    dev: &super::Device,
    source: &'static super::ModuleSource,
    kernel: &'static str,
    x: &super::DeviceVec<T>,
    y: Option<&super::DeviceVec<T>>,
    scalar: Option<T>,
    out: &mut super::DeviceVec<T>,
) -> crate::error::Result<()> {
    use super::check_len;
    dev.check_on("x", x.ordinal())?;
    if let Some(y) = y {
        dev.check_on("y", y.ordinal())?;
    }
    dev.check_on("out", out.ordinal())?;
    let n = x.len();
    if let Some(y) = y {
        check_len("y", n, y.len())?;
    }
    check_len("out", n, out.len())?;
    if n == 0 {
        return Ok(());
    }
    let mut args: Vec<Arg> = (0..T::WORDS).map(|k| Arg::U64(x.word_addr(k))).collect();
    if let Some(y) = y {
        args.extend((0..T::WORDS).map(|k| Arg::U64(y.word_addr(k))));
    }
    if let Some(s) = scalar {
        args.extend(s.to_words()[..T::WORDS].iter().map(|&w| Arg::F64(w)));
    }
    args.extend((0..T::WORDS).map(|k| Arg::U64(out.word_addr(k))));
    args.push(Arg::U64(n as u64));
    // SAFETY: the arguments match the map kernels' shared signature: `T::WORDS`
    // `const double*` for x, then either `T::WORDS` `const double*` for y or `T::WORDS`
    // `double` scalar words (or neither, for a unary kernel), then `T::WORDS` `double*` for
    // out, then `unsigned long long n`; `kernel` is one of those entry points (its module's
    // KERNELS table, checked against the source by tests/kernel_names.rs). Every word array of
    // x, y and out holds n doubles (lengths checked above). The kernel's grid-stride loop
    // guards every access with `i < n` in 64-bit arithmetic. out's arrays are distinct
    // allocations from x's and y's (`&mut` borrow), matching the `__restrict__` qualifiers.
    unsafe { dev.launch(source, kernel, dev.grid_for(n), &args) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_clamped() {
        assert_eq!(blocks(0, 256, 10), 1);
        assert_eq!(blocks(257, 256, 10), 2);
        assert_eq!(blocks(1 << 40, 1, 65_535), 65_535);
        assert_eq!(blocks(5, 0, 0), 1);
    }

    #[test]
    fn struct_args_keep_their_words() {
        let a = Arg::Struct(vec![1, 2, 3].into_boxed_slice());
        let p = a.as_param() as *const u64;
        // SAFETY: `p` points to the three words of `a`, alive here.
        assert_eq!(unsafe { std::slice::from_raw_parts(p, 3) }, &[1, 2, 3]);
    }
}
