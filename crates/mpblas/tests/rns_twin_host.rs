//! The RNS device code (`src/rns/rns.cuh`) compiled as host C++ returns the Rust CPU's
//! bits: the harness `tests/cuda_twin/rns_host.cpp` runs the very kernel bodies of the GPU
//! (kernel 1 per element, kernel 2 per residue, kernel 3 per element; division and square root
//! per element) on arrays in the device layout with the packed basis table of
//! [`mpblas::rns::gpu::pack_basis`], and every field of every result (class, sign, exponent,
//! residues, evaluation bounds) must equal [`MpFloat`]'s. The GPU run of `gpu_rns_bits.rs` then
//! confirms the device compiles the same code to the same integer and IEEE operations.
//!
//! Needs a host C++ compiler with `__int128` (`c++`, or `$CXX`); no GPU, no NVRTC.
#![cfg(feature = "cuda")]

mod rns_common;

use mpblas::rns::gpu::pack_basis;
use mpblas::rns::{Basis, MpArray, MpFloat};
use rns_common::*;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};

fn harness() -> &'static PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let exe = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mpblas_rns_twin_host");
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
        let out = Command::new(&cxx)
            .args(["-O2", "-std=c++17", "-ffp-contract=off", "-fno-fast-math"])
            .args(["-Wall", "-Wno-unknown-pragmas"])
            .args(["src", "src/rns"].map(|d| format!("-I{}", manifest.join(d).display())))
            .arg(manifest.join("tests/cuda_twin/rns_host.cpp"))
            .arg("-o")
            .arg(&exe)
            .output()
            .unwrap_or_else(|e| panic!("this test needs a host C++ compiler ({cxx}): {e}"));
        assert!(
            out.status.success(),
            "compiling the RNS host twin failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        exe
    })
}

fn push_array(buf: &mut Vec<u8>, a: &MpArray) {
    for d in &a.digits {
        buf.extend_from_slice(&d.to_le_bytes());
    }
    buf.extend_from_slice(&a.sign);
    for e in &a.exp {
        buf.extend_from_slice(&e.to_le_bytes());
    }
    for v in &a.eval {
        buf.extend_from_slice(&v.f.to_bits().to_le_bytes());
        buf.extend_from_slice(&v.e.to_le_bytes());
    }
    buf.extend_from_slice(&a.class);
}

/// Runs operation `op` of the harness (0 add, 1 sub, 2 mul, 3 div, 4 sqrt as the split
/// kernels; 5 add, 6 sub, 7 mul, 8 `x·y + w` as the fused one-thread functions).
fn twin(op: u32, b: &Arc<Basis>, x: &MpArray, y: Option<&MpArray>) -> MpArray {
    twin3(op, b, x, y, None)
}

fn twin3(
    op: u32,
    b: &Arc<Basis>,
    x: &MpArray,
    y: Option<&MpArray>,
    w: Option<&MpArray>,
) -> MpArray {
    let tab = pack_basis(b);
    let mut input = Vec::new();
    input.extend_from_slice(&op.to_le_bytes());
    input.extend_from_slice(&(tab.len() as u64).to_le_bytes());
    for w in &tab {
        input.extend_from_slice(&w.to_le_bytes());
    }
    input.extend_from_slice(&(x.len() as u64).to_le_bytes());
    push_array(&mut input, x);
    for a in [y, w].into_iter().flatten() {
        push_array(&mut input, a);
    }
    let mut child = Command::new(harness())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the RNS host twin");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&input)
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "RNS host twin exited with {}",
        out.status
    );
    let (l, n) = (x.len(), b.len());
    let mut z = MpArray::zeros(b, l).expect("the arrays fit");
    let mut at = 0;
    let mut take = |k: usize| {
        let s = &out.stdout[at..at + k];
        at += k;
        s
    };
    for d in z.digits.iter_mut() {
        *d = u32::from_le_bytes(take(4).try_into().expect("4"));
    }
    z.sign.copy_from_slice(take(l));
    for e in z.exp.iter_mut() {
        *e = i64::from_le_bytes(take(8).try_into().expect("8"));
    }
    for v in z.eval.iter_mut() {
        v.f = f64::from_bits(u64::from_le_bytes(take(8).try_into().expect("8")));
        v.e = i64::from_le_bytes(take(8).try_into().expect("8"));
    }
    z.class.copy_from_slice(take(l));
    assert_eq!(at, out.stdout.len(), "output size ({n} moduli)");
    z
}

type Bin = fn(&MpFloat, &MpFloat) -> mpblas::Result<MpFloat>;

fn div_ok(x: &MpFloat, y: &MpFloat) -> mpblas::Result<MpFloat> {
    Ok(div_ref(x, y))
}

fn check_binary(what: &str, op: u32, cpu: Bin, b: &Arc<Basis>, xs: &[MpFloat], ys: &[MpFloat]) {
    let x = MpArray::from_mpfloats(b, xs).expect("basis");
    let y = MpArray::from_mpfloats(b, ys).expect("basis");
    let want: Vec<MpFloat> = xs
        .iter()
        .zip(ys)
        .map(|(a, c)| cpu(a, c).expect("basis"))
        .collect();
    let want = MpArray::from_mpfloats(b, &want).expect("basis");
    let got = twin(op, b, &x, Some(&y));
    assert_same(
        &format!("{what} at {} bits (host twin)", b.precision()),
        &got,
        &want,
        |i| format!("x = {:?}, y = {:?}", xs[i], ys[i]),
    );
}

fn random_pairs(
    b: &Arc<Basis>,
    seed: u64,
    count: usize,
    spread: i64,
) -> (Vec<MpFloat>, Vec<MpFloat>) {
    let mut rng = Rng::new(seed);
    let xs: Vec<MpFloat> = (0..count).map(|_| random(b, &mut rng, spread)).collect();
    let ys: Vec<MpFloat> = (0..count).map(|_| random(b, &mut rng, spread)).collect();
    (xs, ys)
}

/// Random elements per operation at each precision (the CPU reference is the slow part).
fn count(p: u32) -> usize {
    match p {
        0..=200 => 20_000,
        201..=500 => 4_000,
        _ => 500,
    }
}

const PRECISIONS: [u32; 5] = [53, 106, 424, 1696, 3393];

fn addsub_at(p: u32) {
    let b = Basis::new(p).expect("basis");
    let (xs, ys) = random_pairs(&b, 11 + p as u64, count(p), 8);
    check_binary("add random", 0, MpFloat::add, &b, &xs, &ys);
    check_binary("sub random", 1, MpFloat::sub, &b, &xs, &ys);
    let (xs, ys) = random_pairs(&b, 12 + p as u64, count(p) / 4, 3 * p as i64);
    check_binary("add wide", 0, MpFloat::add, &b, &xs, &ys);
    let (xs, ys) = addsub_pairs(&b, 13 + p as u64);
    check_binary("add adversarial", 0, MpFloat::add, &b, &xs, &ys);
    check_binary("sub adversarial", 1, MpFloat::sub, &b, &xs, &ys);
}

/// The fused one-thread add, sub and mul of the BLAS kernels on the inputs of the split ones.
fn fused_at(p: u32) {
    let b = Basis::new(p).expect("basis");
    let sub_ok = |x: &MpFloat, y: &MpFloat| x.sub(y);
    let (xs, ys) = random_pairs(&b, 51 + p as u64, count(p) / 2, 8);
    check_binary("fused add random", 5, MpFloat::add, &b, &xs, &ys);
    check_binary("fused mul random", 7, MpFloat::mul, &b, &xs, &ys);
    let (xs, ys) = random_pairs(&b, 52 + p as u64, count(p) / 4, 3 * p as i64);
    check_binary("fused add wide", 5, MpFloat::add, &b, &xs, &ys);
    let (xs, ys) = addsub_pairs(&b, 53 + p as u64);
    check_binary("fused add adversarial", 5, MpFloat::add, &b, &xs, &ys);
    check_binary("fused sub adversarial", 6, sub_ok, &b, &xs, &ys);
    let (xs, ys) = mul_pairs(&b, 54 + p as u64);
    check_binary("fused mul adversarial", 7, MpFloat::mul, &b, &xs, &ys);
}

/// `x·y + w` with one rounding (the step of the BLAS kernels' dot products) against
/// [`MpFloat::fma`]: random, wide, and built to cancel (`w = −x·y` rounded, nudged), with
/// special values in every position.
fn fma_at(bits: u32) {
    let b = Basis::new(bits).expect("basis");
    let p = b.precision(); // at least `bits`
    let mut rng = Rng::new(61 + p as u64);
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    let mut ws = Vec::new();
    for spread in [8, p as i64, 3 * p as i64] {
        for _ in 0..count(p) / 4 {
            xs.push(random(&b, &mut rng, spread));
            ys.push(random(&b, &mut rng, spread));
            ws.push(random(&b, &mut rng, 2 * spread));
        }
    }
    // cancellation: w close to −x·y, so the exact product's low half decides
    for k in 0..count(p) / 4 {
        let x = random(&b, &mut rng, 8);
        let y = random(&b, &mut rng, 8);
        let prod = x.mul(&y).expect("basis").neg();
        let (_, _, e) = prod.to_limbs().expect("finite");
        // a few ulps of the rounded product, or bits inside the exact product's lower half
        let shift = [0, 1, -(p as i64) / 2, -(p as i64), -(p as i64) - 3][k % 5];
        let tweak = int_exp(&b, k % 2 == 0, 1 + (k % 3) as u64, e + shift);
        ws.push(prod.add(&tweak).expect("basis"));
        xs.push(x);
        ys.push(y);
    }
    // exact ties decided by a truncated addend: x·y = 5·Y·2^e with Y odd, Y ≡ 1 (mod 4) and
    // 5·Y of p + 1 bits, so the rounding bit is 1, everything below it 0 and the kept part
    // even; a tiny w of either sign (far below, truncated) must break the tie its way
    for k in 0..count(p) / 8 {
        let mut y = random_limbs(&mut rng, p as u64 - 1);
        let top = p as u64 - 3; // below 1.5·2^(p−2): 5·Y stays below 2^(p+1)
        y[(top / 64) as usize] &= !(1u64 << (top % 64));
        y[0] = (y[0] & !3) | 1;
        let e = rng.int(-40, 40);
        xs.push(int_exp(&b, k % 2 == 1, 5, e));
        ys.push(MpFloat::from_limbs(&b, false, &y, -(p as i64)));
        let below = [3 * p as i64, p as i64 + 2, 2 * p as i64 + 1][k % 3];
        ws.push(int_exp(&b, k % 4 < 2, 1 + (k % 5) as u64, e - below));
    }
    let (ax, ay) = addsub_pairs(&b, 62 + p as u64);
    for (x, y) in ax.iter().zip(&ay) {
        for w in [x, y] {
            xs.push(x.clone());
            ys.push(y.clone());
            ws.push(w.clone());
        }
    }
    let x = MpArray::from_mpfloats(&b, &xs).expect("basis");
    let y = MpArray::from_mpfloats(&b, &ys).expect("basis");
    let w = MpArray::from_mpfloats(&b, &ws).expect("basis");
    let want: Vec<MpFloat> = (0..xs.len())
        .map(|i| xs[i].fma(&ys[i], &ws[i]).expect("basis"))
        .collect();
    let want = MpArray::from_mpfloats(&b, &want).expect("basis");
    let got = twin3(8, &b, &x, Some(&y), Some(&w));
    assert_same(
        &format!("fma at {bits} bits (host twin)"),
        &got,
        &want,
        |i| format!("x = {:?}, y = {:?}, w = {:?}", xs[i], ys[i], ws[i]),
    );
}

fn mul_at(p: u32) {
    let b = Basis::new(p).expect("basis");
    let (xs, ys) = random_pairs(&b, 21 + p as u64, count(p), 8);
    check_binary("mul random", 2, MpFloat::mul, &b, &xs, &ys);
    let (xs, ys) = mul_pairs(&b, 22 + p as u64);
    check_binary("mul adversarial", 2, MpFloat::mul, &b, &xs, &ys);
}

fn div_at(p: u32) {
    let b = Basis::new(p).expect("basis");
    let (xs, ys) = random_pairs(&b, 31 + p as u64, count(p) / 4, 8);
    check_binary("div random", 3, div_ok, &b, &xs, &ys);
    let (xs, ys) = div_pairs(&b, 32 + p as u64);
    check_binary("div adversarial", 3, div_ok, &b, &xs, &ys);
}

fn sqrt_at(p: u32) {
    let b = Basis::new(p).expect("basis");
    let mut rng = Rng::new(41 + p as u64);
    let mut xs: Vec<MpFloat> = (0..count(p) / 4)
        .map(|_| random(&b, &mut rng, 8).abs())
        .collect();
    xs.extend(sqrt_inputs(&b, 42 + p as u64));
    let x = MpArray::from_mpfloats(&b, &xs).expect("basis");
    let want: Vec<MpFloat> = xs.iter().map(sqrt_ref).collect();
    let want = MpArray::from_mpfloats(&b, &want).expect("basis");
    let got = twin(4, &b, &x, None);
    assert_same(&format!("sqrt at {p} bits (host twin)"), &got, &want, |i| {
        format!("x = {:?}", xs[i])
    });
}

#[test]
fn add_sub_twins_match_cpu() {
    for p in PRECISIONS {
        addsub_at(p);
    }
}

#[test]
fn fused_twins_match_cpu() {
    for p in PRECISIONS {
        fused_at(p);
    }
}

#[test]
fn fma_twin_matches_cpu() {
    for p in PRECISIONS {
        fma_at(p);
    }
}

#[test]
fn mul_twin_matches_cpu() {
    for p in PRECISIONS {
        mul_at(p);
    }
}

#[test]
fn div_twin_matches_cpu() {
    for p in PRECISIONS {
        div_at(p);
    }
}

#[test]
fn sqrt_twin_matches_cpu() {
    for p in PRECISIONS {
        sqrt_at(p);
    }
}

#[test]
fn packed_table_header() {
    let b = Basis::new(424).expect("basis");
    let t = pack_basis(&b);
    assert_eq!(t[0], 0x524e_5331);
    assert_eq!(t[1] as usize, b.len());
    assert_eq!(t[2], b.precision());
    assert_eq!(t[3], b.log2_m());
    // the moduli table comes first, right after the header
    assert_eq!(t[17], 40);
    assert_eq!(&t[40..40 + b.len()], b.moduli());
}
