//! The GPU column of `reproduce qd --gpu`: the library's CUDA element-wise kernels on the same
//! inputs as the CPU runs, timed with CUDA events (median of the timed launches after warm-up
//! launches), and their results compared bit for bit with the CPU's.

use crate::elem::{Elem, Op};
use crate::measure::{Arrays, Setup};
use indicatif::ProgressBar;
use mpblas::cuda::{Device, DeviceScalar, DeviceVec};
use mpblas::{Dd, Qd};

/// Warm-up launches before timing (the first one compiles or loads the kernel module).
const WARMUP: usize = 3;
/// Elements whose GPU results are compared bit for bit with the CPU's.
const CHECKED: usize = 65_536;

/// A GPU element-wise routine with the shape of the binary ones (unary ones ignore `y`).
type GpuKernel<T> =
    fn(&Device, &DeviceVec<T>, &DeviceVec<T>, &mut DeviceVec<T>) -> mpblas::Result<()>;

/// Formats with GPU kernels.
pub trait GpuElem: Elem + DeviceScalar {
    /// The GPU routine for `op`, `None` where the library has none.
    fn gpu_kernel(op: Op) -> Option<GpuKernel<Self>>;
    /// The words, for the bitwise comparison.
    fn bits(self) -> [u64; 4];
}

/// Adapters giving the library's unary kernels the binary shape of [`GpuKernel`] (the second
/// operand is ignored, as the CPU's unary kernels ignore theirs).
macro_rules! unary_adapters {
    ($($name:ident: $t:ty => $f:path;)*) => {$(
        fn $name(
            d: &Device,
            x: &DeviceVec<$t>,
            _: &DeviceVec<$t>,
            o: &mut DeviceVec<$t>,
        ) -> mpblas::Result<()> {
            $f(d, x, o)
        }
    )*};
}
unary_adapters! {
    dd_sqrt: Dd => mpblas::dd::gpu::sqrt;
    dd_exp: Dd => mpblas::dd::gpu::exp;
    dd_ln: Dd => mpblas::dd::gpu::ln;
    dd_sin: Dd => mpblas::dd::gpu::sin;
    qd_sqrt: Qd => mpblas::qd::gpu::sqrt;
    qd_exp: Qd => mpblas::qd::gpu::exp;
    qd_ln: Qd => mpblas::qd::gpu::ln;
    qd_sin: Qd => mpblas::qd::gpu::sin;
}

impl GpuElem for Dd {
    fn gpu_kernel(op: Op) -> Option<GpuKernel<Self>> {
        match op {
            Op::Add => Some(mpblas::dd::gpu::add),
            Op::Sub => Some(mpblas::dd::gpu::sub),
            Op::Mul => Some(mpblas::dd::gpu::mul),
            Op::Div => Some(mpblas::dd::gpu::div),
            Op::Sqrt => Some(dd_sqrt),
            Op::Exp => Some(dd_exp),
            Op::Ln => Some(dd_ln),
            Op::Sin => Some(dd_sin),
        }
    }
    fn bits(self) -> [u64; 4] {
        [self.hi.to_bits(), self.lo.to_bits(), 0, 0]
    }
}

impl GpuElem for Qd {
    fn gpu_kernel(op: Op) -> Option<GpuKernel<Self>> {
        match op {
            Op::Add => Some(mpblas::qd::gpu::add),
            Op::Sub => Some(mpblas::qd::gpu::sub),
            Op::Mul => Some(mpblas::qd::gpu::mul),
            Op::Div => Some(mpblas::qd::gpu::div),
            Op::Sqrt => Some(qd_sqrt),
            Op::Exp => Some(qd_exp),
            Op::Ln => Some(qd_ln),
            Op::Sin => Some(qd_sin),
        }
    }
    fn bits(self) -> [u64; 4] {
        self.c.map(f64::to_bits)
    }
}

/// One GPU measurement.
#[derive(Clone, Debug)]
pub struct GpuTiming {
    /// Median kernel time in seconds (CUDA events).
    pub median_s: f64,
    /// Operations per second.
    pub ops_per_s: f64,
    /// Timed launches.
    pub reps: usize,
    /// Whether the first [`CHECKED`] results equal the CPU's in every word (NaNs compared as
    /// NaN, their payload and sign being unspecified).
    pub bits_equal: bool,
}

/// The opened GPU and its description.
pub struct Gpu {
    dev: Device,
    /// "NVIDIA H100 80GB HBM3, sm_90, ..." for the tables.
    pub name: String,
}

impl Gpu {
    /// Open GPU 0, or say why not.
    pub fn open() -> Result<Gpu, String> {
        let dev = Device::open(0).map_err(|e| format!("--gpu: cannot open GPU 0: {e}"))?;
        let name = dev.info().to_string();
        Ok(Gpu { dev, name })
    }

    /// Time `op` on the GPU over the same inputs the CPU used; `None` if there is no kernel.
    pub fn time<T: GpuElem>(
        &self,
        op: Op,
        setup: &Setup,
        progress: &ProgressBar,
    ) -> Result<Option<GpuTiming>, String> {
        let (Some(kernel), Some(cpu)) = (T::gpu_kernel(op), T::kernel(op)) else {
            return Ok(None);
        };
        let e = |what: &str| {
            let what = format!("{} {} on the GPU: {what}", <T as Elem>::NAME, op.name());
            move |err: mpblas::Error| format!("{what}: {err}")
        };
        let arrays = Arrays::<T>::new(op, setup);
        let (a, b) = arrays.inputs();
        let dev = &self.dev;
        let x = dev.upload(a).map_err(e("upload"))?;
        let y = dev.upload(b).map_err(e("upload"))?;
        let mut out = dev.zeros::<T>(a.len()).map_err(e("allocation"))?;
        for _ in 0..WARMUP {
            kernel(dev, &x, &y, &mut out).map_err(e("launch"))?;
        }
        dev.synchronize().map_err(e("synchronize"))?;
        let reps = setup.reps.max(1);
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let ms = dev
                .time_ms(|| kernel(dev, &x, &y, &mut out))
                .map_err(e("timed launch"))?;
            times.push(f64::from(ms) * 1e-3);
            progress.inc(1);
        }
        times.sort_by(f64::total_cmp);
        let median_s = crate::measure::median(&times);
        let got = out.download().map_err(e("download"))?;
        let k = CHECKED.min(a.len());
        let mut want = vec![T::default(); k];
        cpu(&a[..k], &b[..k], &mut want);
        let bits_equal = got
            .iter()
            .zip(&want)
            .all(|(g, w)| g.bits() == w.bits() || (g.lead().is_nan() && w.lead().is_nan()));
        Ok(Some(GpuTiming {
            median_s,
            ops_per_s: a.len() as f64 / median_s,
            reps,
            bits_equal,
        }))
    }
}

/// Timed launches `reproduce` will make on the GPU (for the progress bar).
pub fn passes<T: GpuElem>(ops: &[Op], setup: &Setup) -> u64 {
    let n = ops
        .iter()
        .filter(|&&op| T::gpu_kernel(op).is_some())
        .count();
    (n * setup.reps.max(1)) as u64
}
