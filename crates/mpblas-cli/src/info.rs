//! `mpblas info`: version, formats, machine.

use mpblas::cuda::DeviceScalar;
use mpblas::{Dd, Qd, Scalar};
use serde_json::{Value, json};

/// The machine the numbers come from.
#[derive(Clone, Debug)]
pub struct Machine {
    /// CPU model from /proc/cpuinfo, or "unknown".
    pub cpu: String,
    /// Logical CPUs the OS reports.
    pub logical_cpus: usize,
    /// Threads of rayon's global pool (RAYON_NUM_THREADS or the logical CPUs).
    pub rayon_threads: usize,
    /// 1, 5 and 15 minute load averages when /proc/loadavg exists.
    pub load_avg: Option<[f64; 3]>,
}

impl Machine {
    /// Read what the OS tells.
    pub fn detect() -> Machine {
        Machine {
            cpu: cpu_model().unwrap_or_else(|| "unknown".to_string()),
            logical_cpus: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            rayon_threads: rayon::current_num_threads(),
            load_avg: load_avg(),
        }
    }

    /// The load average as text ("0.52 0.61 0.40" or "unknown").
    pub fn load_text(&self) -> String {
        match self.load_avg {
            Some([a, b, c]) => format!("{a:.2} {b:.2} {c:.2}"),
            None => "unknown".to_string(),
        }
    }

    /// JSON form.
    pub fn json(&self) -> Value {
        json!({
            "cpu": self.cpu,
            "logical_cpus": self.logical_cpus,
            "rayon_threads": self.rayon_threads,
            "load_avg": self.load_avg,
        })
    }
}

/// The CPU model line of /proc/cpuinfo ("model name" on x86, "Model"/"Hardware" on ARM).
pub fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    ["model name", "Model", "Hardware", "cpu model"]
        .iter()
        .find_map(|key| {
            text.lines().find_map(|line| {
                let (k, v) = line.split_once(':')?;
                (k.trim() == *key && !v.trim().is_empty()).then(|| v.trim().to_string())
            })
        })
}

/// The three load averages of /proc/loadavg.
fn load_avg() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = text.split_whitespace().map(|s| s.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// One format's description.
struct Format {
    name: &'static str,
    words: usize,
    unit_roundoff: f64,
    what: &'static str,
}

impl Format {
    fn bits(&self) -> u32 {
        // u = 2^-p, so p = −log2(u); the constants are exact powers of two.
        (-self.unit_roundoff.log2()).round() as u32
    }
}

fn formats() -> [Format; 3] {
    /// The name and word count from the format's device layout, `u` from the trait.
    fn of<T: DeviceScalar + Scalar<Ctx = ()>>(what: &'static str) -> Format {
        Format {
            name: <T as DeviceScalar>::NAME,
            words: <T as DeviceScalar>::WORDS,
            unit_roundoff: T::unit_roundoff_in(&()),
            what,
        }
    }
    [
        of::<f64>("IEEE binary64"),
        of::<Dd>("double-double"),
        of::<Qd>("quad-double"),
    ]
}

/// What the CUDA backend reports: not built, built without a usable driver, or the GPUs.
struct Cuda {
    /// One line for the text output.
    summary: String,
    /// Each GPU's description (empty unless a driver works and sees GPUs).
    gpus: Vec<String>,
    /// JSON form.
    json: Value,
}

fn cuda() -> Cuda {
    match mpblas::cuda::devices() {
        Err(mpblas::Error::CudaNotBuilt) => Cuda {
            summary: "not built (build mpblas with the `cuda` feature)".to_string(),
            gpus: Vec::new(),
            json: json!({ "built": false }),
        },
        Err(e) => Cuda {
            summary: format!("built; no usable driver here ({e})"),
            gpus: Vec::new(),
            json: json!({ "built": true, "usable": false, "reason": e.to_string() }),
        },
        Ok(devices) => {
            let emulation: Vec<String> = devices.iter().map(|d| emulation(d.ordinal)).collect();
            let gpus: Vec<String> = devices
                .iter()
                .zip(&emulation)
                .map(|(d, e)| format!("{d}\n           cuBLAS FP64 emulation: {e}"))
                .collect();
            let plain: Vec<String> = devices.iter().map(|d| d.to_string()).collect();
            Cuda {
                summary: format!("built; {} GPU(s)", gpus.len()),
                json: json!({
                    "built": true,
                    "usable": !gpus.is_empty(),
                    "gpus": plain,
                    "cublas_fp64_emulation": emulation,
                }),
                gpus,
            }
        }
    }
}

/// Whether cuBLAS's own FP64 emulation (the comparison row of the Ozaki benchmarks) can run on
/// GPU `ordinal`: "available (cuBLAS 13.1.0)" or "not available: <why>".
fn emulation(ordinal: usize) -> String {
    let info = mpblas::cuda::Device::open(ordinal)
        .and_then(|dev| mpblas::cuda::emulation::emulation_info(&dev));
    match info {
        Ok(info) => info.to_string(),
        Err(e) => format!("not available: {e}"),
    }
}

/// Print `mpblas info`.
pub fn run(as_json: bool) {
    let machine = Machine::detect();
    let formats = formats();
    let cuda = cuda();
    if as_json {
        let fmts: Vec<Value> = formats
            .iter()
            .map(|f| {
                json!({
                    "name": f.name,
                    "words": f.words,
                    "precision_bits": f.bits(),
                    "unit_roundoff": f.unit_roundoff,
                    "description": f.what,
                })
            })
            .collect();
        let doc = json!({
            "version": env!("CARGO_PKG_VERSION"),
            "formats": fmts,
            "machine": machine.json(),
            "cuda": cuda.json,
        });
        println!("{doc:#}");
        return;
    }
    println!("mpblas {}", env!("CARGO_PKG_VERSION"));
    println!();
    println!("Formats:");
    println!(
        "  {:<5} {:>5} {:>5}  {:<12}  description",
        "name", "words", "bits", "unit roundoff"
    );
    for f in &formats {
        println!(
            "  {:<5} {:>5} {:>5}  2^-{:<3} {:.3e}  {}",
            f.name,
            f.words,
            f.bits(),
            f.bits(),
            f.unit_roundoff,
            f.what
        );
    }
    println!();
    println!("CPU:     {}", machine.cpu);
    println!(
        "Threads: {} (rayon), {} logical CPUs",
        machine.rayon_threads, machine.logical_cpus
    );
    println!("CUDA:    {}", cuda.summary);
    for gpu in &cuda.gpus {
        println!("         {gpu}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_bits() {
        let bits: Vec<u32> = formats().iter().map(|f| f.bits()).collect();
        assert_eq!(bits, [53, 106, 212]);
    }
}
