//! Long chains stay within the accumulated bound (10^5 adds, 10^5 multiplies), results are
//! deterministic across threads, and MpArray round-trips through its SoA layout.

mod oracle;

use mpblas::rns::{Basis, MpArray, MpFloat};
use rug::Float;

fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn unif(s: &mut u64) -> f64 {
    (splitmix(s) >> 11) as f64 * 2f64.powi(-53)
}

/// γ_n = n·u/(1 − n·u) with u = 2^-p.
fn gamma(n: f64, p: u32) -> Float {
    let u = Float::with_val(64, 1) >> p as i32;
    let nu = Float::with_val(64, &u * n);
    Float::with_val(64, &nu / (1 - nu.clone()))
}

#[test]
fn chained_sums_and_products_stay_within_gamma_n() {
    const N: usize = 100_000;
    let b = Basis::new(106).unwrap();
    let p = b.precision();
    let mut s = 1u64;
    let terms: Vec<f64> = (0..N)
        .map(|_| (unif(&mut s) - 0.5) * 2f64.powi((splitmix(&mut s) % 160) as i32 - 80))
        .collect();
    // recursive summation: |ŝ − s| ≤ γ_{N−1} Σ|aᵢ|
    let mut acc = MpFloat::zero(&b, false);
    let mut exact = Float::with_val(4000, 0);
    let mut abs_sum = Float::with_val(4000, 0);
    for &t in &terms {
        acc = acc.add(&MpFloat::from_f64(&b, t)).unwrap();
        exact += t;
        abs_sum += t.abs();
    }
    let err = Float::with_val(4000, acc.to_rug() - &exact).abs();
    let bound = Float::with_val(64, gamma((N - 1) as f64, p) * &abs_sum);
    println!(
        "sum: err/bound = {:e}",
        Float::with_val(64, &err / &bound).to_f64()
    );
    assert!(err <= bound);
    // product of factors in [1/2, 2): |p̂ − p| ≤ γ_{N−1} |p|
    let mut prod = MpFloat::from_f64(&b, 1.0);
    let mut exact = Float::with_val(64, 1);
    let mut rel = Float::with_val(64, 0);
    for i in 0..N {
        let f = 0.5 + 1.5 * unif(&mut s);
        prod = prod.mul(&MpFloat::from_f64(&b, f)).unwrap();
        // exact product grows by 53 bits per factor: track it rounded at 4p bits instead,
        // whose own error (≤ γ_N at 2^-4p) is negligible next to the bound.
        exact.set_prec(4 * p);
        exact *= f;
        if i % 10_000 == 9_999 {
            rel = Float::with_val(64, (prod.to_rug() - &exact) / &exact).abs();
            assert!(
                rel <= gamma((i + 1) as f64, p),
                "after {} products: {rel}",
                i + 1
            );
        }
    }
    println!(
        "product: rel err / γ_N = {:e}",
        Float::with_val(64, rel / gamma(N as f64, p)).to_f64()
    );
}

fn workload(b: &std::sync::Arc<Basis>, seed: u64) -> Vec<MpFloat> {
    let mut s = seed;
    let mut x = MpFloat::from_f64(b, 1.0 + unif(&mut s));
    let mut out = Vec::new();
    for _ in 0..200 {
        let y = MpFloat::from_f64(b, unif(&mut s) - 0.5);
        x = x.fma(&y, &x).unwrap().add(&y).unwrap();
        x = x.div(&MpFloat::from_f64(b, 1.0 + unif(&mut s))).unwrap();
        out.push(x.sqrt().unwrap());
        out.push(x.clone());
    }
    out
}

#[test]
fn same_residues_on_every_thread() {
    let b = Basis::new(424).unwrap();
    let reference = workload(&b, 42);
    std::thread::scope(|sc| {
        let hs: Vec<_> = (0..4).map(|_| sc.spawn(|| workload(&b, 42))).collect();
        for h in hs {
            let got = h.join().unwrap();
            assert!(got.iter().zip(&reference).all(|(a, r)| a.identical(r)));
        }
    });
}

#[test]
fn mparray_layout_and_round_trips() {
    let b = Basis::new(212).unwrap();
    let xs = [1.5, -0.0, f64::INFINITY, f64::NAN, 3e-310, -7.25e200];
    let a = MpArray::from_f64(&b, &xs);
    assert_eq!(a.len(), xs.len());
    assert_eq!(a.digits.len(), xs.len() * b.len());
    assert_eq!(a.eval.len(), 2 * xs.len());
    let back = a.to_f64().unwrap();
    for (x, y) in xs.iter().zip(&back) {
        assert!(x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
    }
    // element i's residues are contiguous and equal the scalar's
    let e0 = MpFloat::from_f64(&b, 1.5);
    assert_eq!(&a.digits[..b.len()], e0.residues());
    let dd = [mpblas::Dd::add_f64_f64(1.0, 1e-20)];
    assert_eq!(MpArray::from_dd(&b, &dd).to_dd().unwrap()[0].lo, dd[0].lo);
    // A number of another basis is refused (equal precisions give the same basis since bases are
    // cached per moduli set, so take another precision).
    let other = Basis::new(300).unwrap();
    assert!(!other.same(&b));
    let mut a2 = a.clone();
    assert!(a2.set(0, &MpFloat::from_f64(&other, 1.0)).is_err());
    assert!(a2.get(99).is_err());
}
