//! Correctly rounded sums and dot products of `f64` vectors on the GPU
//! (`blas_exact_gpu.cu`): the exact result rounded once to nearest, as the CPU's
//! [`sum_correctly_rounded`](super::sum_correctly_rounded) and
//! [`dot_correctly_rounded`](super::dot_correctly_rounded). Correct rounding makes the value
//! unique, so the bits are the CPU's for any [`LaunchShape`], with the same special values.
//!
//! Each thread sums into a three-word floating-point expansion (a cascade of TwoSums, exact
//! while nothing falls out of the last word) and spills any such remainder, like the terms the
//! expansion cannot take exactly (huge terms, products whose TwoProd error would under- or
//! overflow), into an exact fixed-point accumulator of its block (Collange, Defour, Graillat,
//! Iakymchuk, Parallel Computing 49, 2015). One more block adds the blocks' accumulators and
//! rounds. One pass over the data, at about the speed of memory on random data.

use super::accurate::Specials;
use super::blas_level1_gpu::{LaunchShape, check_block_fits, check_shape};
use crate::cuda::{
    Arg, Device, DeviceVecRef, LaunchConfig, ModuleSource, ScratchBuffer, check_len, download_raw,
};
use crate::error::Result;
use crate::exact::ExactDot;
use crate::rns::{Basis, MpFloat};
use std::sync::{Arc, Mutex};

/// The entry points of `blas_exact_gpu.cu` (`tests/kernel_names.rs` checks each against it).
pub(crate) const KERNELS: &[&str] = &[
    "blas_exact_sum_part",
    "blas_exact_dot_part",
    "blas_exact_finish_blocks",
    "blas_exact_finish_digits",
];

/// The kernel module: source and entry points.
pub(crate) static MODULE: ModuleSource = ModuleSource {
    name: "blas_exact_gpu",
    source: include_str!("blas_exact_gpu.cu"),
    headers: &[&crate::eft::EFT_CUH],
    kernels: KERNELS,
};

/// Limbs of a block's accumulator (those of [`ExactDot`], `EXACT_LIMBS` of the kernels) plus
/// its flags word (`EXACT_RECORD`).
const RECORD_WORDS: usize = crate::exact::LIMBS + 1;

/// The most terms one block may take: a limb gains at most one 32-bit digit per term, and
/// 2^30 of them stay far inside an `i64`.
const MAX_TERMS_PER_BLOCK: usize = 1 << 30;

/// `Σ x_i` correctly rounded to nearest: the CPU's
/// [`sum_correctly_rounded`](super::sum_correctly_rounded), bit for bit.
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn sum_correctly_rounded(
    dev: &Device,
    x: DeviceVecRef<'_, f64>,
    shape: LaunchShape,
) -> Result<f64> {
    dev.check_on("x", x.ordinal())?;
    exact(dev, "blas_exact_sum_part", vec![x.arg()], x.len(), shape)
}

/// `Σ x_i·y_i` with the exact products summed exactly and rounded once to nearest: the CPU's
/// [`dot_correctly_rounded`](super::dot_correctly_rounded), bit for bit.
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn dot_correctly_rounded(
    dev: &Device,
    x: DeviceVecRef<'_, f64>,
    y: DeviceVecRef<'_, f64>,
    shape: LaunchShape,
) -> Result<f64> {
    dev.check_on("x", x.ordinal())?;
    dev.check_on("y", y.ordinal())?;
    check_len("y", x.len(), y.len())?;
    exact(
        dev,
        "blas_exact_dot_part",
        vec![x.arg(), y.arg()],
        x.len(),
        shape,
    )
}

/// `Σ x_i` of `f64`s summed exactly and rounded once to the precision of `basis`: the CPU's
/// [`sum_correctly_rounded_to`](super::sum_correctly_rounded_to), bit for bit (the exact sum
/// is made on the device, its 136 digits are rounded on the host).
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn sum_correctly_rounded_to(
    dev: &Device,
    basis: &Arc<Basis>,
    x: DeviceVecRef<'_, f64>,
    shape: LaunchShape,
) -> Result<MpFloat> {
    dev.check_on("x", x.ordinal())?;
    exact_to(
        dev,
        basis,
        "blas_exact_sum_part",
        vec![x.arg()],
        x.len(),
        shape,
    )
}

/// `Σ x_i·y_i` of `f64`s, the exact products summed exactly and rounded once to the precision
/// of `basis`: the CPU's [`dot_correctly_rounded_to`](super::dot_correctly_rounded_to), bit
/// for bit.
///
/// # Errors
/// See the [module docs](crate::blas::gpu).
pub fn dot_correctly_rounded_to(
    dev: &Device,
    basis: &Arc<Basis>,
    x: DeviceVecRef<'_, f64>,
    y: DeviceVecRef<'_, f64>,
    shape: LaunchShape,
) -> Result<MpFloat> {
    dev.check_on("x", x.ordinal())?;
    dev.check_on("y", y.ordinal())?;
    check_len("y", x.len(), y.len())?;
    let args = vec![x.arg(), y.arg()];
    exact_to(dev, basis, "blas_exact_dot_part", args, x.len(), shape)
}

/// The blocks of the part pass of `kernel` for `n` terms in `shape` (already checked).
fn part_blocks(dev: &Device, kernel: &'static str, n: usize, shape: LaunchShape) -> Result<usize> {
    check_block_fits(dev, &MODULE, kernel, shape.threads)?;
    let blocks = match shape.blocks {
        Some(b) => b as usize,
        None => dev
            .resident_blocks(&MODULE, kernel, shape.threads)?
            .min(n.div_ceil(shape.threads as usize)),
    };
    Ok(blocks
        .max(n.div_ceil(MAX_TERMS_PER_BLOCK))
        .min(u32::MAX as usize))
}

/// A finishing kernel of the records: its name, its arguments between the record count and
/// the output address, and the words it writes.
struct Finish {
    kernel: &'static str,
    args: Vec<Arg>,
    out_words: usize,
}

/// Runs the part pass of `kernel` over `n ≥ 1` terms into the workspace, then `finish` on the
/// records; reads its output back.
fn exact_pass(
    dev: &Device,
    kernel: &'static str,
    mut args: Vec<Arg>,
    n: usize,
    shape: LaunchShape,
    finish: Finish,
) -> Result<Vec<u64>> {
    let blocks = part_blocks(dev, kernel, n, shape)?;
    let ws = dev.workspace("blas_exact", || Ok(Mutex::new(ScratchBuffer::default())))?;
    // The lock is held until the result is read: another thread's sum must not overwrite the
    // records in between.
    let mut buf = ws.lock().unwrap_or_else(|e| e.into_inner());
    let parts = buf.get(dev, 8 * (RECORD_WORDS * blocks + finish.out_words))?;
    let out = parts + 8 * (RECORD_WORDS * blocks) as u64;
    args.extend([Arg::U64(n as u64), Arg::U64(parts)]);
    // SAFETY: `args` are the data's vectors (checked views on this device) and n, then
    // `parts`, room for one record per block of the launch.
    unsafe {
        dev.launch(
            &MODULE,
            kernel,
            LaunchConfig::new((blocks as u32, 1), shape.threads),
            &args,
        )?
    };
    let mut fargs = vec![Arg::U64(parts), Arg::U64(blocks as u64)];
    fargs.extend(finish.args);
    fargs.push(Arg::U64(out));
    // SAFETY: `parts` holds the `blocks` records just written, `out` room for `out_words`
    // words after them (one double for finish_blocks, one record for finish_digits); the
    // finishing kernels sum with whole warps (1024 threads: 32 fields at a time).
    unsafe {
        dev.launch(
            &MODULE,
            finish.kernel,
            LaunchConfig::new((1, 1), 1024),
            &fargs,
        )?
    };
    let mut r = vec![0u64; finish.out_words];
    // SAFETY: `out` is `out_words` words of the workspace.
    unsafe { download_raw(dev, out, &mut r)? };
    Ok(r)
}

/// The exact sum of the terms of `kernel`, rounded on the device to an `f64`.
fn exact(
    dev: &Device,
    kernel: &'static str,
    args: Vec<Arg>,
    n: usize,
    shape: LaunchShape,
) -> Result<f64> {
    check_shape(shape)?;
    if n == 0 {
        return Ok(0.0);
    }
    let finish = Finish {
        kernel: "blas_exact_finish_blocks",
        args: vec![Arg::U64(n as u64)],
        out_words: 1,
    };
    let w = exact_pass(dev, kernel, args, n, shape, finish)?;
    Ok(f64::from_bits(w[0]))
}

/// The exact sum of the terms of `kernel`, its digits rounded on the host to `basis`.
fn exact_to(
    dev: &Device,
    basis: &Arc<Basis>,
    kernel: &'static str,
    args: Vec<Arg>,
    n: usize,
    shape: LaunchShape,
) -> Result<MpFloat> {
    check_shape(shape)?;
    let (acc, sp) = if n == 0 {
        (ExactDot::new(), Specials::default())
    } else {
        let finish = Finish {
            kernel: "blas_exact_finish_digits",
            args: Vec::new(),
            out_words: RECORD_WORDS,
        };
        let w = exact_pass(dev, kernel, args, n, shape, finish)?;
        let limbs: Vec<i64> = w.iter().map(|&v| v as i64).collect();
        let (digits, flags) = limbs.split_at(RECORD_WORDS - 1);
        (
            ExactDot::from_digits(digits),
            Specials::from_flags(flags[0]),
        )
    };
    Ok(sp.finish_mp(&acc, n, basis))
}

#[cfg(test)]
mod tests {
    use super::MODULE;
    use crate::exact::{LIMBS, OFFSET};

    /// The kernels' accumulator is [`ExactDot`](crate::exact::ExactDot)'s: the records are read
    /// back into one.
    #[test]
    fn the_kernel_accumulator_is_exact_dots() {
        for define in [
            format!("#define EXACT_EMIN (-{OFFSET})"),
            format!("#define EXACT_LIMBS {LIMBS}"),
        ] {
            assert!(
                MODULE.source.contains(&define),
                "blas_exact_gpu.cu lacks `{define}`"
            );
        }
    }
}
