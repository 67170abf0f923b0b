//! `mpblas`: the command-line tool of the mpblas library.
//!
//! - `mpblas info`: version, number formats, machine.
//! - `mpblas reproduce qd`: the QD paper's operation-rate tables, ours beside the paper's.
//! - `mpblas reproduce rns`: the RNS format at the MPRES papers' precisions (basis, rates).
//! - `mpblas reproduce ozaki`: the Ozaki-scheme paper's Tables 2 and 3 and our Ozaki-II table by
//!   number of moduli (CPU, or GPU with `--gpu`; `--moduli` list; `--svg` plot).
//! - `mpblas bench`: one format and operation, one line.
//!
//! Errors print a message on stderr and exit with status 1 (usage errors: 2, from clap).

mod bench;
mod elem;
mod gpu;
mod info;
mod measure;
mod paper;
mod papers;
mod reproduce;
mod reproduce_ozaki;
mod reproduce_rns;
mod rng;

use clap::{Parser, Subcommand, ValueEnum};
use elem::Op;
use measure::Setup;
use papers::ozaki::{CPU_DEFAULT_MODULI, GPU_DEFAULT_MODULI};
use std::path::PathBuf;
use std::process::ExitCode;

/// Multiple-precision arithmetic and linear algebra: information and benchmarks.
#[derive(Parser, Debug)]
#[command(
    name = "mpblas",
    version,
    about,
    long_about = None,
    after_help = "Examples:\n  mpblas info --json\n  mpblas reproduce qd --threads 4 > qd.txt\n  \
                  mpblas reproduce ozaki --gpu --moduli 8-20 --svg ozaki.svg\n  \
                  mpblas bench --format dd --op mul --n 1000000"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Show the version, the number formats (words, bits, unit roundoff) and the machine.
    Info {
        /// Print one JSON document instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Re-run a paper's measurements and print its tables with our numbers beside the paper's.
    ///
    /// Tables (or the JSON document) go to stdout, a progress bar to stderr. Every case is
    /// timed on one thread and on a pool of `--threads` threads; each reported rate is the
    /// median of `--reps` passes over arrays of `--n` random full-precision elements.
    Reproduce {
        /// Which paper.
        #[arg(value_enum)]
        paper: Paper,
        #[command(flatten)]
        opts: MeasureOpts,
        /// Threads for the parallel runs [default: all logical CPUs]; 1 skips them.
        #[arg(long)]
        threads: Option<usize>,
        /// Also write the JSON document to this file (with text tables on stdout).
        #[arg(long, value_name = "PATH")]
        json_file: Option<PathBuf>,
        /// Also time the library's CUDA kernels on GPU 0 (an error if there is none).
        #[arg(long)]
        gpu: bool,
        /// Matrix sizes for `ozaki` (square n) [default: 256,512; with --gpu 1024,2048,4096].
        #[arg(long, value_delimiter = ',')]
        sizes: Vec<usize>,
        /// Seeds averaged over, for `ozaki` (the paper used 10) [default: 3; with --gpu 10].
        #[arg(long)]
        seeds: Option<usize>,
        /// For `ozaki`: also write an SVG scatter plot (log time vs log error per method).
        #[arg(long, value_name = "PATH")]
        svg: Option<PathBuf>,
        /// For `ozaki`: moduli counts N of the Ozaki-II (fast mode) columns, counts and ranges
        /// within 8..20, e.g. `8-20` or `8,12,16` [default: 14,16,20; with --gpu 8-20].
        #[arg(long, value_name = "LIST")]
        moduli: Option<String>,
    },
    /// Time one element-wise operation in one format and print one line.
    Bench {
        /// Number format.
        #[arg(long, value_enum, default_value = "dd")]
        format: bench::Format,
        /// Operation (element-wise over the arrays).
        #[arg(long, value_enum, default_value = "mul")]
        op: Op,
        #[command(flatten)]
        opts: MeasureOpts,
        /// Threads: 1 runs on the calling thread, more on a rayon pool.
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
}

/// Papers `reproduce` knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Paper {
    /// QD library on CUDA (Sivkova et al.): rates of + − × ÷ √ exp log sin, Tables 3.6-1, 5.1-3, 5.2.5-1.
    Qd,
    /// RNS floats (MPRES-BLAS papers): moduli, dynamic range and + × ÷ √ rates at 106..1696 bits.
    /// Uses at most 16384 elements per array (RNS operations are slow; `--n` lowers it).
    Rns,
    /// Ozaki scheme (paper 002): Tables 2 and 3 on the CPU (or with `--gpu` on GPU 0) at n = `--sizes`,
    /// then Ozaki II by number of moduli (`--moduli`) beside DGEMM.
    Ozaki,
}

#[derive(clap::Args, Debug)]
struct MeasureOpts {
    /// Elements per array (random, every word of full precision).
    #[arg(long, default_value_t = 1 << 20)]
    n: usize,
    /// Timed passes per case at most; the median is reported (after one untimed warm-up pass).
    #[arg(long, default_value_t = 11)]
    reps: usize,
    /// Time budget per case in seconds: slow operations get fewer passes (at least 3).
    #[arg(long, default_value_t = 2.0)]
    max_seconds: f64,
    /// Seed of the input generator.
    #[arg(long, default_value_t = 2011)]
    seed: u64,
    /// Print one JSON document on stdout instead of text.
    #[arg(long)]
    json: bool,
}

impl MeasureOpts {
    fn setup(&self) -> Result<Setup, String> {
        if self.n == 0 {
            return Err("--n must be at least 1".to_string());
        }
        if self.reps == 0 {
            return Err("--reps must be at least 1".to_string());
        }
        if self.max_seconds.is_nan() || self.max_seconds <= 0.0 {
            return Err("--max-seconds must be positive".to_string());
        }
        Ok(Setup {
            n: self.n,
            reps: self.reps,
            max_seconds: self.max_seconds,
            seed: self.seed,
        })
    }
}

fn threads_or_all(threads: Option<usize>) -> Result<usize, String> {
    match threads {
        Some(0) => Err("--threads must be at least 1".to_string()),
        Some(t) => Ok(t),
        None => Ok(std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)),
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Info { json } => {
            info::run(json);
            Ok(())
        }
        Command::Reproduce {
            paper: Paper::Rns,
            opts,
            threads,
            svg,
            moduli,
            ..
        } => {
            ozaki_only(svg.as_ref(), moduli.as_deref())?;
            let setup = opts.setup()?;
            let plan = reproduce_rns::Plan {
                n: setup.n.min(16_384),
                reps: setup.reps.min(5),
                threads: threads_or_all(threads)?,
                seed: setup.seed,
            };
            reproduce_rns::run(&plan, opts.json)
        }
        Command::Reproduce {
            paper: Paper::Ozaki,
            opts,
            sizes,
            seeds,
            gpu,
            svg,
            moduli,
            ..
        } => {
            let moduli = match moduli {
                Some(list) => reproduce_ozaki::parse_moduli(&list)?,
                None if gpu => GPU_DEFAULT_MODULI.to_vec(),
                None => CPU_DEFAULT_MODULI.to_vec(),
            };
            let plan = reproduce_ozaki::Plan {
                sizes: if sizes.is_empty() {
                    if gpu {
                        vec![1024, 2048, 4096]
                    } else {
                        vec![256, 512]
                    }
                } else {
                    sizes
                },
                seeds: seeds.unwrap_or(if gpu { 10 } else { 3 }),
                moduli,
                gpu,
                svg,
            };
            reproduce_ozaki::run(&plan, opts.json)
        }
        Command::Reproduce {
            paper: Paper::Qd,
            opts,
            threads,
            json_file,
            gpu,
            svg,
            moduli,
            ..
        } => {
            ozaki_only(svg.as_ref(), moduli.as_deref())?;
            let plan = reproduce::Plan {
                setup: opts.setup()?,
                threads: threads_or_all(threads)?,
                gpu,
            };
            reproduce::run(&plan, opts.json, json_file.as_deref())
        }
        Command::Bench {
            format,
            op,
            opts,
            threads,
        } => {
            let threads = threads_or_all(Some(threads))?;
            bench::run(format, op, &opts.setup()?, threads, opts.json)
        }
    }
}

/// `--svg` and `--moduli` are for `reproduce ozaki` only: an error rather than silently
/// ignored, so that a mistyped paper name does not look like a run with those options.
fn ozaki_only(svg: Option<&PathBuf>, moduli: Option<&str>) -> Result<(), String> {
    if svg.is_some() {
        return Err("--svg is only for `reproduce ozaki`".into());
    }
    if moduli.is_some() {
        return Err("--moduli is only for `reproduce ozaki`".into());
    }
    Ok(())
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mpblas: error: {message}");
            ExitCode::FAILURE
        }
    }
}
