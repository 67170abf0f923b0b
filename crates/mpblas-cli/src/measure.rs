//! Timing of element-wise kernels on one thread and on a rayon pool, and the sanity error
//! check against a wider format.

use crate::elem::{Elem, Kernel, Op, random_vec};
use indicatif::ProgressBar;
use mpblas_testdata::SplitMix64;
use rayon::prelude::*;
use std::hint::black_box;
use std::time::Instant;

/// How one measurement is run.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// Elements per array.
    pub n: usize,
    /// Timed repetitions at most (one untimed warm-up run precedes them).
    pub reps: usize,
    /// Time budget per case in seconds: slow operations get fewer passes, but at least
    /// [`MIN_REPS`].
    pub max_seconds: f64,
    /// Seed of the input generator.
    pub seed: u64,
}

/// The fewest timed passes a case gets, however slow.
pub const MIN_REPS: usize = 3;

/// The result of timing one (format, op, threads) case.
#[derive(Clone, Debug)]
pub struct Timing {
    /// Median wall time of one pass over the arrays, seconds.
    pub median_s: f64,
    /// Fastest pass, seconds.
    pub min_s: f64,
    /// Operations per second (elements per median pass).
    pub ops_per_s: f64,
    /// Timed passes the median was taken over.
    pub reps: usize,
}

/// Inputs and output of one case, allocated once and reused for the 1-thread and the
/// all-threads runs (so both see the same data and the same page placement).
pub struct Arrays<T> {
    a: Vec<T>,
    b: Vec<T>,
    out: Vec<T>,
}

impl<T: Elem> Arrays<T> {
    /// Random operands for `op` (full-precision words), seeded by the op so that every
    /// format sees inputs drawn the same way.
    pub fn new(op: Op, setup: &Setup) -> Self {
        let mut rng = SplitMix64::new(setup.seed ^ (op as u64).wrapping_mul(0x9E37_79B9));
        let a = random_vec::<T>(&mut rng, op, setup.n);
        let b = if op.is_binary() {
            random_vec::<T>(&mut rng, op, setup.n)
        } else {
            // Unary kernels ignore `b`; keep the lengths equal for the zipped chunks.
            a.clone()
        };
        Arrays {
            a,
            b,
            out: vec![T::default(); setup.n],
        }
    }
}

impl<T> Arrays<T> {
    /// The two input arrays (`b` is a copy of `a` for unary operations).
    pub fn inputs(&self) -> (&[T], &[T]) {
        (&self.a, &self.b)
    }
}

/// Chunk length for the parallel loop: several chunks per thread for load balance, but
/// large enough that scheduling costs nothing next to the arithmetic.
fn chunk_len(n: usize, threads: usize) -> usize {
    (n / (threads.max(1) * 8)).max(4096)
}

/// One pass of `kernel` over the arrays, on the calling thread or on `pool`.
fn pass<T: Elem>(
    kernel: Kernel<T>,
    arrays: &mut Arrays<T>,
    pool: Option<&rayon::ThreadPool>,
) -> f64 {
    let a = black_box(arrays.a.as_slice());
    let b = black_box(arrays.b.as_slice());
    let out = arrays.out.as_mut_slice();
    let start = Instant::now();
    match pool {
        None => kernel(a, b, out),
        Some(pool) => {
            let chunk = chunk_len(out.len(), pool.current_num_threads());
            pool.install(|| {
                out.par_chunks_mut(chunk)
                    .zip(a.par_chunks(chunk))
                    .zip(b.par_chunks(chunk))
                    .for_each(|((o, x), y)| kernel(x, y, o));
            });
        }
    }
    // The results are observed before the clock stops, so the work cannot be deleted or
    // moved past the timer.
    black_box(&mut *out);
    start.elapsed().as_secs_f64()
}

/// Time `kernel`: one warm-up pass, then up to `setup.reps` timed passes (fewer, but at
/// least [`MIN_REPS`], when the warm-up pass shows they would exceed `setup.max_seconds`);
/// median and minimum. Each timed pass advances `progress` by one, and passes left out are
/// taken off its length.
pub fn time<T: Elem>(
    kernel: Kernel<T>,
    arrays: &mut Arrays<T>,
    pool: Option<&rayon::ThreadPool>,
    setup: &Setup,
    progress: &ProgressBar,
) -> Timing {
    let warm = pass(kernel, arrays, pool);
    let wanted = setup.reps.max(1);
    let reps = reps_within(wanted, setup.max_seconds, warm);
    if let Some(len) = progress.length() {
        progress.set_length(len.saturating_sub((wanted - reps) as u64));
    }
    let mut times: Vec<f64> = (0..reps)
        .map(|_| {
            let t = pass(kernel, arrays, pool);
            progress.inc(1);
            t
        })
        .collect();
    times.sort_by(f64::total_cmp);
    let median_s = median(&times);
    let n = arrays.out.len() as f64;
    Timing {
        median_s,
        min_s: times.first().copied().unwrap_or(f64::NAN),
        ops_per_s: n / median_s,
        reps,
    }
}

/// The timed passes a case gets: `wanted`, or fewer (but at least [`MIN_REPS`], and never more
/// than `wanted`) when passes of `warm` seconds each would exceed `max_seconds`.
pub fn reps_within(wanted: usize, max_seconds: f64, warm: f64) -> usize {
    let affordable = (max_seconds / warm.max(1e-9)).floor() as usize;
    affordable.clamp(MIN_REPS.min(wanted), wanted)
}

/// Median of a sorted, non-empty slice (NaN if empty).
pub fn median(sorted: &[f64]) -> f64 {
    let k = sorted.len();
    if k == 0 {
        f64::NAN
    } else if k % 2 == 1 {
        sorted[k / 2]
    } else {
        0.5 * (sorted[k / 2 - 1] + sorted[k / 2])
    }
}

/// Maximum relative error of format `L` on `op` over a sample, measured against the same
/// operation in a wider format `H` on the same (exactly widened) inputs.
#[derive(Clone, Debug)]
pub struct ErrorCheck {
    /// Largest `|ours − reference| / |reference|`.
    pub max_rel: f64,
    /// The same in units of `L`'s unit roundoff.
    pub max_rel_u: f64,
    /// Number of elements compared (reference values of zero are skipped).
    pub samples: usize,
    /// Name of the reference format.
    pub reference: &'static str,
}

/// The error check, or `None` when either format lacks `op`.
/// `widen` must be exact; `rel` returns `|x − r| / |r|` computed in `H`.
pub fn max_rel_error<L: Elem, H: Elem>(
    op: Op,
    samples: usize,
    seed: u64,
    widen: fn(L) -> H,
    rel: fn(H, H) -> f64,
) -> Option<ErrorCheck> {
    let low = L::kernel(op)?;
    let high = H::kernel(op)?;
    let mut rng = SplitMix64::new(seed ^ 0xE770 ^ (op as u64));
    let a = random_vec::<L>(&mut rng, op, samples);
    let b = if op.is_binary() {
        random_vec::<L>(&mut rng, op, samples)
    } else {
        a.clone()
    };
    let mut ours = vec![L::default(); samples];
    low(&a, &b, &mut ours);
    let wa: Vec<H> = a.iter().map(|&x| widen(x)).collect();
    let wb: Vec<H> = b.iter().map(|&x| widen(x)).collect();
    let mut reference = vec![H::default(); samples];
    high(&wa, &wb, &mut reference);
    let mut max_rel = 0.0_f64;
    let mut count = 0;
    for (&x, &r) in ours.iter().zip(&reference) {
        if r.lead() != 0.0 && r.lead().is_finite() {
            let e = rel(widen(x), r);
            // NaN (a broken result) must show, not vanish in `max`.
            max_rel = if e.is_nan() { f64::NAN } else { max_rel.max(e) };
            count += 1;
        }
    }
    Some(ErrorCheck {
        max_rel,
        max_rel_u: max_rel / L::UNIT_ROUNDOFF,
        samples: count,
        reference: H::NAME,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpblas::Dd;

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), 3.0);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn f64_error_against_dd_is_within_one_u() {
        for op in [Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Sqrt] {
            let e =
                max_rel_error::<f64, Dd>(op, 2000, 1, Dd::from, |x, r| ((x - r).hi / r.hi).abs());
            let e = e.map(|e| e.max_rel_u).unwrap_or(f64::NAN);
            // Correctly rounded: ≤ 1u (measured against a 5u²-accurate reference).
            assert!(e <= 1.0 + 1e-10, "{op:?}: {e}");
            assert!(e > 0.1, "{op:?}: {e} (inputs must not be trivial)");
        }
    }

    #[test]
    fn parallel_and_serial_passes_agree() {
        let setup = Setup {
            n: 100_000,
            reps: 1,
            max_seconds: 1.0,
            seed: 3,
        };
        let mut arr = Arrays::<Dd>::new(Op::Mul, &setup);
        assert!(Dd::kernel(Op::Mul).is_some());
        if let Some(kernel) = Dd::kernel(Op::Mul) {
            pass(kernel, &mut arr, None);
            let serial = arr.out.clone();
            let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build();
            assert!(pool.is_ok());
            if let Ok(pool) = pool {
                pass(kernel, &mut arr, Some(&pool));
                let same = serial.iter().zip(&arr.out).all(|(x, y)| {
                    x.hi.to_bits() == y.hi.to_bits() && x.lo.to_bits() == y.lo.to_bits()
                });
                assert!(same);
            }
        }
    }
}
