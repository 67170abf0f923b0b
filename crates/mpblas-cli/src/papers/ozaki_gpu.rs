//! The Ozaki-scheme paper's Tables 2 and 3 on the GPU: the rows and methods of
//! [`super::ozaki::reproduce`] (same inputs: seed `s` draws A from `s` and B from `s + 1000`),
//! timed with CUDA events, plus scheme II in accurate mode and cuBLAS's own FP64 emulation.

use super::ozaki::{
    B_SEED_OFFSET, PAPER_METHODS, ReproRow, Reproduction, checked_moduli, max_rel_error_dd,
    ozaki2_method, paper_matrix,
};
use mpblas::cuda::emulation::{EmulationConfig, dgemm_emulated};
use mpblas::cuda::{Device, DeviceBuffer, DeviceMatMut, DeviceMatRef, DeviceVec};
use mpblas::ozaki::gpu::{ozaki1_gemm, ozaki2_gemm, ozaki2_product};
use mpblas::ozaki::{
    Accumulate, Ozaki1Params, Ozaki2Mode, Ozaki2Params, OzakiGuard, Products, SliceGemm,
};
use mpblas::{Result, Trans};

/// One warm-up call, then the median of three CUDA-event timings, in seconds.
fn timed3(dev: &Device, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    dev.synchronize()?;
    let mut t = [0.0f64; 3];
    for x in &mut t {
        *x = f64::from(dev.time_ms(&mut f)?);
    }
    t.sort_by(f64::total_cmp);
    Ok(t[1] * 1e-3)
}

/// A GEMM on device views, `C ← α·A·B + β·C`: the shape of a method appended to the GPU
/// reproduction by [`EXTRA_GPU_METHODS`].
type ExtraGemm = fn(
    &Device,
    f64,
    DeviceMatRef<'_, f64>,
    DeviceMatRef<'_, f64>,
    f64,
    DeviceMatMut<'_, f64>,
) -> Result<()>;

/// Methods [`reproduce_gpu`] appends after its own, as (name, GEMM). A GEMM that returns an
/// error does not stop the run: its column becomes "n/a" (NaN) and the error is kept in
/// [`Reproduction::unavailable`], because such a method may depend on a library version or GPU
/// the machine lacks. Today: cuBLAS's own FP64 emulation (fixed-point Ozaki scheme inside
/// cuBLAS 13, dynamic mantissa control, eager).
const EXTRA_GPU_METHODS: &[(&str, ExtraGemm)] = &[("cuBLAS FP64 emu", emulated_dgemm)];

/// cuBLAS's FP64 emulation with its default configuration.
fn emulated_dgemm(
    dev: &Device,
    alpha: f64,
    a: DeviceMatRef<'_, f64>,
    b: DeviceMatRef<'_, f64>,
    beta: f64,
    c: DeviceMatMut<'_, f64>,
) -> Result<()> {
    dgemm_emulated(dev, alpha, a, b, beta, c, &EmulationConfig::default())
}

/// The name of the accurate-mode scheme II method of the GPU reproduction.
const ACCURATE_METHOD: &str = "OzII-16acc";

/// The seed paper's Tables 2 and 3 on the GPU, rows as [`super::ozaki::reproduce`]. Methods:
/// "single" is cuBLAS SGEMM on the inputs rounded to `f32`; "k split" is scheme I with `k`
/// `f32` slices (triangular products, `f64` sum); "double" is cuBLAS DGEMM; "OzII-N" is
/// scheme II in fast mode with `N` moduli, for each count of `moduli` (sorted, repeats
/// dropped); "OzII-16acc" is scheme II with 16 moduli in accurate mode; then the methods of
/// [`EXTRA_GPU_METHODS`], "n/a" where they fail. Each time is one warm-up then the median of
/// three CUDA-event timings of the whole call (inputs already on the device); each error is
/// the maximum relative error against scheme II's double-double product with 20 moduli in fast
/// mode.
///
/// # Errors
/// [`mpblas::Error::OutOfRange`] for a moduli count outside `8..=20`; those of the GEMMs
/// (missing cuBLAS, out of memory, launch failures).
pub fn reproduce_gpu(
    dev: &Device,
    sizes: &[usize],
    phis: &[f64],
    seeds: &[u64],
    moduli: &[usize],
) -> Result<Reproduction> {
    let moduli = checked_moduli(moduli)?;
    let mut methods: Vec<String> = PAPER_METHODS.iter().map(|m| m.to_string()).collect();
    methods.extend(moduli.iter().map(|&q| ozaki2_method(q)));
    methods.push(ACCURATE_METHOD.to_string());
    methods.extend(EXTRA_GPU_METHODS.iter().map(|(name, _)| name.to_string()));
    let mut unavailable: Vec<(String, String)> = Vec::new();
    let no = Trans::No;
    let mut rows = Vec::new();
    for &phi in phis {
        for &n in sizes {
            let mut err = vec![0.0; methods.len()];
            let mut time = vec![0.0; methods.len()];
            for &seed in seeds {
                // This seed's error and time per method, pushed in the order of `methods`.
                let mut e = Vec::with_capacity(methods.len());
                let mut t = Vec::with_capacity(methods.len());
                let a = paper_matrix(n, n, phi, seed);
                let b = paper_matrix(n, n, phi, seed + B_SEED_OFFSET);
                let ad = dev.upload_f64(&a)?;
                let bd = dev.upload_f64(&b)?;
                let av = DeviceMatRef::col_major(&ad, n, n, n)?;
                let bv = DeviceMatRef::col_major(&bd, n, n, n)?;
                let refp = Ozaki2Params {
                    moduli: 20,
                    mode: Ozaki2Mode::Fast,
                    guard: OzakiGuard::NormwiseFast, // the paper's method (normwise)
                };
                let r = ozaki2_product(dev, av, bv, &refp)?.download()?;
                let hi: Vec<f64> = r.iter().map(|x| x.hi).collect();
                let lo: Vec<f64> = r.iter().map(|x| x.lo).collect();
                drop(r);
                // Single: SGEMM on f32 copies.
                let to32 = |x: &[f64]| x.iter().map(|&v| v as f32).collect::<Vec<f32>>();
                let a32 = DeviceBuffer::from_host(dev, &to32(&a))?;
                let b32 = DeviceBuffer::from_host(dev, &to32(&b))?;
                let mut c32 = DeviceBuffer::<f32>::zeros(dev, n * n)?;
                t.push(timed3(dev, || {
                    mpblas::cuda::sgemm(
                        dev, no, no, n, n, n, 1.0, &a32, n, &b32, n, 0.0, &mut c32, n,
                    )
                })?);
                let c: Vec<f64> = c32.to_vec()?.into_iter().map(f64::from).collect();
                e.push(max_rel_error_dd(&c, &hi, &lo));
                drop((a32, b32, c32));
                let mut cd: DeviceVec<f64> = dev.zeros(n * n)?;
                for s in 2..=6 {
                    let p = Ozaki1Params {
                        slices: s,
                        products: Products::Triangular,
                        slice_gemm: SliceGemm::F32,
                        accumulate: Accumulate::F64,
                        guard: OzakiGuard::NormwiseFast, // the paper's method (normwise)
                    };
                    t.push(timed3(dev, || {
                        ozaki1_gemm(
                            dev,
                            1.0,
                            av,
                            bv,
                            0.0,
                            DeviceMatMut::col_major(&mut cd, n, n, n)?,
                            &p,
                        )
                        .map(drop)
                    })?);
                    e.push(max_rel_error_dd(&cd.download()?, &hi, &lo));
                }
                t.push(timed3(dev, || {
                    mpblas::cuda::dgemm(
                        dev,
                        1.0,
                        av,
                        bv,
                        0.0,
                        DeviceMatMut::col_major(&mut cd, n, n, n)?,
                    )
                })?);
                e.push(max_rel_error_dd(&cd.download()?, &hi, &lo));
                let fast = moduli.iter().map(|&q| Ozaki2Params {
                    moduli: q,
                    mode: Ozaki2Mode::Fast,
                    guard: OzakiGuard::NormwiseFast, // the paper's method (normwise)
                });
                let accurate = Ozaki2Params {
                    moduli: 16,
                    mode: Ozaki2Mode::Accurate,
                    guard: OzakiGuard::NormwiseFast, // the paper's method (normwise)
                };
                for p2 in fast.chain([accurate]) {
                    t.push(timed3(dev, || {
                        ozaki2_gemm(
                            dev,
                            1.0,
                            av,
                            bv,
                            0.0,
                            DeviceMatMut::col_major(&mut cd, n, n, n)?,
                            &p2,
                        )
                        .map(drop)
                    })?);
                    e.push(max_rel_error_dd(&cd.download()?, &hi, &lo));
                }
                for &(name, gemm) in EXTRA_GPU_METHODS {
                    match timed3(dev, || {
                        gemm(
                            dev,
                            1.0,
                            av,
                            bv,
                            0.0,
                            DeviceMatMut::col_major(&mut cd, n, n, n)?,
                        )
                    }) {
                        Ok(x) => {
                            t.push(x);
                            e.push(max_rel_error_dd(&cd.download()?, &hi, &lo));
                        }
                        Err(why) => {
                            // NaN survives the mean: the row shows "n/a", not a partial mean.
                            t.push(f64::NAN);
                            e.push(f64::NAN);
                            if !unavailable.iter().any(|(m, _)| m == name) {
                                unavailable.push((name.to_string(), why.to_string()));
                            }
                        }
                    }
                }
                debug_assert_eq!(e.len(), methods.len());
                for (sum, x) in err.iter_mut().zip(&e) {
                    *sum += x;
                }
                for (sum, x) in time.iter_mut().zip(&t) {
                    *sum += x;
                }
                drop((ad, bd, cd));
                dev.release_workspaces()?;
            }
            rows.push(ReproRow::from_sums(phi, n, err, time, seeds.len()));
        }
    }
    Ok(Reproduction {
        methods,
        rows,
        seeds: seeds.len(),
        unavailable,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`reproduce_gpu`] against the CPU reproduction on small sizes (one odd, so the
    /// f32 packing has a half word): same rows and methods, positive times, and errors of the same size (SGEMM
    /// and the slice products sum in other orders, and the reference is the 20-moduli product, not
    /// the exact one).
    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn reproduce_gpu_agrees_with_cpu() {
        let dev = Device::open(0).expect("a CUDA GPU");
        let (sizes, phis, seeds) = ([33usize, 64], [0.1, 2.0], [1u64]);
        let moduli = [8, 16, 20];
        let g = reproduce_gpu(&dev, &sizes, &phis, &seeds, &moduli).unwrap();
        let c = super::super::ozaki::reproduce(&sizes, &phis, &seeds, &moduli).unwrap();
        assert_eq!(g.rows.len(), c.rows.len());
        assert_eq!(g.seeds, 1);
        // The CPU's methods, in its order, then scheme II in accurate mode.
        assert_eq!(g.methods[..c.methods.len()], c.methods[..]);
        assert_eq!(g.methods[c.methods.len()], "OzII-16acc");
        for (gr, cr) in g.rows.iter().zip(&c.rows) {
            assert_eq!((gr.phi, gr.n), (cr.phi, cr.n));
            // Methods beyond these may be "n/a" (NaN) on some machines.
            assert!(
                gr.time[..=c.methods.len()].iter().all(|&t| t > 0.0),
                "{gr:?}"
            );
            for m in 0..c.methods.len() {
                let (ge, ce) = (gr.err[m], cr.err[m]);
                assert!(
                    ge <= 10.0 * ce + 1e-15 && ce <= 10.0 * ge + 1e-15,
                    "phi {} n {} method {m}: gpu {ge:e} cpu {ce:e}",
                    gr.phi,
                    gr.n
                );
            }
        }
    }
}
