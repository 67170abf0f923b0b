//! The device twins (`src/eft.cuh`, `src/dd/*.cuh`, `src/qd/*.cuh`) compiled as host C++ return the Rust
//! CPU's bits. This checks, without a GPU, that the CUDA transcription keeps every operation of
//! the Rust code in the same order (including the special-value and rescaling paths); the GPU
//! run of `gpu_bits.rs` then only has to confirm that the device arithmetic is IEEE (which the
//! NVRTC options in `cuda/nvrtc.rs` ensure).
//!
//! Needs a host C++ compiler (`c++`, or `$CXX`); the harness is `tests/cuda_twin/host.cpp`.

mod cuda_common;
mod cuda_func_inputs;

use cuda_common::*;
use cuda_func_inputs::*;
use mpblas::cuda::DeviceScalar;
use mpblas::{Dd, Qd, Scalar};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// Random elements per operation.
const N: usize = 1 << 18;

/// The harness, built once per test process.
fn harness() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mpblas_cuda_twin_host");
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
        let out = Command::new(&cxx)
            .args(["-O2", "-std=c++17", "-ffp-contract=off", "-fno-fast-math"])
            .args(["-Wall", "-Wno-unknown-pragmas"])
            .args(["src", "src/dd", "src/qd"].map(|d| format!("-I{}", manifest.join(d).display())))
            .arg(manifest.join("tests/cuda_twin/host.cpp"))
            .arg("-o")
            .arg(&exe)
            .output()
            .unwrap_or_else(|e| panic!("this test needs a host C++ compiler ({cxx}): {e}"));
        assert!(
            out.status.success(),
            "compiling the host twin failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        exe
    })
}

/// Run operation `op` of the harness on `xs` (and `ys` for a binary operation).
fn twin<T: DeviceScalar>(op: u32, xs: &[T], ys: Option<&[T]>) -> Vec<T> {
    let mut input = Vec::with_capacity(12 + xs.len() * 8 * 2 * T::WORDS);
    input.extend_from_slice(&op.to_le_bytes());
    input.extend_from_slice(&(xs.len() as u64).to_le_bytes());
    for (i, x) in xs.iter().enumerate() {
        for w in &x.to_words()[..T::WORDS] {
            input.extend_from_slice(&w.to_le_bytes());
        }
        if let Some(ys) = ys {
            for w in &ys[i].to_words()[..T::WORDS] {
                input.extend_from_slice(&w.to_le_bytes());
            }
        }
    }
    let mut child = Command::new(harness())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the host twin");
    // The harness reads all its input before writing anything, so this cannot deadlock.
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&input)
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success(), "host twin exited with {}", out.status);
    assert_eq!(out.stdout.len(), xs.len() * 8 * T::WORDS, "output size");
    out.stdout
        .chunks_exact(8 * T::WORDS)
        .map(|chunk| {
            let mut w = [0.0; 4];
            for (k, b) in chunk.chunks_exact(8).enumerate() {
                w[k] = f64::from_le_bytes(b.try_into().expect("8 bytes"));
            }
            from_words::<T>(w)
        })
        .collect()
}

/// The value with words `w` (bit-exact, no normalisation).
fn from_words<T: DeviceScalar>(w: [f64; 4]) -> T {
    // Scalar has no constructor from raw words; go through the concrete types.
    let any: Box<dyn std::any::Any> = match T::WORDS {
        2 => Box::new(Dd { hi: w[0], lo: w[1] }),
        _ => Box::new(Qd { c: w }),
    };
    *any.downcast::<T>().expect("dd or qd")
}

fn binary<T: Format>(name: &str, op: u32, cpu: fn(T, T) -> T, seed: u64, wide: i32) {
    let mut rng = Rng::new(seed);
    let xs: Vec<T> = randoms(&mut rng, N, wide);
    let ys = partners(&mut rng, &xs, wide);
    let got = twin(op, &xs, Some(&ys));
    let want: Vec<T> = xs.iter().zip(&ys).map(|(&a, &b)| cpu(a, b)).collect();
    let inputs = |i: usize| format!("x = {}, y = {}", words(xs[i]), words(ys[i]));
    assert_bits(&format!("{name} random (host twin)"), &got, &want, inputs);
    let (xs, ys) = all_pairs::<T>();
    let got = twin(op, &xs, Some(&ys));
    let want: Vec<T> = xs.iter().zip(&ys).map(|(&a, &b)| cpu(a, b)).collect();
    let inputs = |i: usize| format!("x = {}, y = {}", words(xs[i]), words(ys[i]));
    assert_bits(
        &format!("{name} adversarial (host twin)"),
        &got,
        &want,
        inputs,
    );
}

fn unary<T: Format>(name: &str, op: u32, cpu: fn(T) -> T, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut xs: Vec<T> = randoms::<T>(&mut rng, N, 1000)
        .into_iter()
        .map(|x| if x.lead() < 0.0 { -x } else { x })
        .collect();
    xs.extend(T::adversarial());
    let got = twin(op, &xs, None);
    let want: Vec<T> = xs.iter().map(|&a| cpu(a)).collect();
    assert_bits(&format!("{name} (host twin)"), &got, &want, |i| {
        format!("x = {}", words(xs[i]))
    });
}

#[test]
fn dd_twins_match_cpu() {
    binary::<Dd>("dd add", 0, |a, b| a + b, 21, 1000);
    binary::<Dd>("dd sub", 1, |a, b| a - b, 22, 1000);
    binary::<Dd>("dd mul", 2, |a, b| a * b, 23, 600);
    binary::<Dd>("dd div", 3, |a, b| a / b, 24, 600);
    unary::<Dd>("dd sqrt", 4, |a| a.sqrt(), 25);
}

#[test]
fn qd_twins_match_cpu() {
    binary::<Qd>("qd add", 10, |a, b| a + b, 31, 1000);
    binary::<Qd>("qd sub", 11, |a, b| a - b, 32, 1000);
    binary::<Qd>("qd mul", 12, |a, b| a * b, 33, 600);
    binary::<Qd>("qd div", 13, |a, b| a / b, 34, 600);
    unary::<Qd>("qd sqrt", 14, |a| a.sqrt(), 35);
    // the summation steps of the BLAS reductions (c + a² with c = x, a = y)
    binary::<Qd>("qd add_sloppy", 15, |a, b| a.add_sloppy(b), 36, 1000);
    binary::<Qd>(
        "qd add_square_sloppy",
        16,
        |c, a| c.add_square_sloppy(a),
        37,
        600,
    );
    // a lane of the blocked order, with the steps where the lane hands over (host.cpp)
    binary::<Qd>("qd lane sum", 17, lane_sum_twin, 38, 1000);
    binary::<Qd>("qd lane dot", 18, lane_dot_twin, 39, 600);
    binary::<Qd>("qd lane squares", 19, lane_squares_twin, 40, 600);
}

/// The CPU side of harness op 19: the lane `a² + b² + b² + a²`.
fn lane_squares_twin(a: Qd, b: Qd) -> Qd {
    let t = [a, b, b, a];
    <Qd as Scalar>::lane_squares(4, |j| t[j]).unwrap_or_else(|| {
        t.iter()
            .fold(Qd::from(-0.0), |s, x| s.add_square_sloppy(*x))
    })
}

/// The CPU side of harness op 17: the lane `a + b + b + a`.
fn lane_sum_twin(a: Qd, b: Qd) -> Qd {
    let t = [a, b, b, a];
    <Qd as Scalar>::lane_sum(4, |j| t[j])
        .unwrap_or_else(|| t.iter().fold(Qd::from(-0.0), |s, x| s.add_sloppy(*x)))
}

/// The CPU side of harness op 18: the lane `a·b + b·a + a·a + b·b`.
fn lane_dot_twin(a: Qd, b: Qd) -> Qd {
    let (p, q) = ([a, b, a, b], [b, a, a, b]);
    <Qd as Scalar>::lane_dot(4, |j| (p[j], q[j]))
        .unwrap_or_else(|| (0..4).fold(Qd::from(-0.0), |s, j| s.add_product_sloppy(p[j], q[j])))
}

/// A unary function on generated inputs (random and adversarial).
fn function<T: FuncFormat>(name: &str, op: u32, cpu: fn(T) -> T, xs: Vec<T>) {
    let got = twin(op, &xs, None);
    let want: Vec<T> = xs.iter().map(|&a| cpu(a)).collect();
    assert_bits(&format!("{name} (host twin)"), &got, &want, |i| {
        format!("x = {}", words(xs[i]))
    });
}

#[test]
fn dd_function_twins_match_cpu() {
    let mut rng = Rng::new(41);
    function::<Dd>("dd exp", 20, |a| a.exp(), exp_inputs(&mut rng, N));
    function::<Dd>("dd ln", 21, |a| a.ln(), ln_inputs(&mut rng, N));
    let xs: Vec<Dd> = trig_inputs(&mut rng, N);
    function::<Dd>("dd sin", 22, |a| a.sin(), xs.clone());
    function::<Dd>("dd cos", 23, |a| a.cos(), xs);
}

#[test]
fn qd_function_twins_match_cpu() {
    let mut rng = Rng::new(51);
    function::<Qd>("qd exp", 30, |a| a.exp(), exp_inputs(&mut rng, N));
    function::<Qd>("qd ln", 31, |a| a.ln(), ln_inputs(&mut rng, N));
    let xs: Vec<Qd> = trig_inputs(&mut rng, N);
    function::<Qd>("qd sin", 32, |a| a.sin(), xs.clone());
    function::<Qd>("qd cos", 33, |a| a.cos(), xs);
}
