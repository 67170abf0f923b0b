//! Interval evaluation I(X/M) against exact big-integer CRT (rug::Integer): the enclosure
//! `lo ≤ X/M ≤ hi` holds on random and extreme residues, and is tight (relative width < 2^-38).

mod oracle;

use mpblas::rns::interval::evaluate;
use mpblas::rns::{Basis, ExtF};
use oracle::runner;
use proptest::prelude::*;
use rug::{Float, Integer};

/// Exact `X` from residues (CRT).
fn crt(m: &[u32], x: &[u32]) -> (Integer, Integer) {
    let big_m: Integer = m.iter().map(|&v| Integer::from(v)).product();
    let mut acc = Integer::new();
    for (&mi, &xi) in m.iter().zip(x) {
        let mi_big = Integer::from(&big_m / mi);
        let inv = Integer::from(&mi_big % mi)
            .invert(&Integer::from(mi))
            .unwrap();
        acc += mi_big * (inv * xi % mi);
    }
    acc %= &big_m;
    (acc, big_m)
}

/// Residues of an Integer.
fn residues(m: &[u32], x: &Integer) -> Vec<u32> {
    m.iter()
        .map(|&mi| Integer::from(x.mod_u(mi)).to_u32().unwrap())
        .collect()
}

fn ext(e: ExtF, prec: u32) -> Float {
    Float::with_val(prec, e.f) << (e.e as i32)
}

/// Checks `lo·M ≤ X ≤ hi·M` exactly and the relative width.
fn check(b: &Basis, x: &[u32]) -> Result<f64, String> {
    let [lo, hi] = evaluate(b, x).map_err(|e| e.to_string())?;
    let (xv, mv) = crt(b.moduli(), x);
    let prec = b.log2_m() + 128;
    let lo_m = ext(lo, prec) * &mv;
    let hi_m = ext(hi, prec) * &mv;
    let xf = Float::with_val(prec, &xv);
    if lo_m > xf || hi_m < xf {
        return Err(format!("enclosure fails: lo={lo:?} hi={hi:?} X={xv}"));
    }
    if xv == 0 {
        return Ok(0.0);
    }
    let w = Float::with_val(64, (hi_m - lo_m) / xf).to_f64();
    Ok(w)
}

#[test]
fn enclosure_on_random_residues() {
    for p in [53u32, 424, 3392, 8000] {
        let b = Basis::new(p).unwrap();
        let m = b.moduli().to_vec();
        let cases = if p >= 3392 { 300 } else { 2000 };
        let worst = std::cell::Cell::new(0.0f64);
        let strat = proptest::collection::vec(any::<u32>(), m.len());
        runner(cases)
            .run(&strat, |raw| {
                // uniform X in [0, M), and X scaled down by a random power of two (small X/M)
                let x: Vec<u32> = raw.iter().zip(&m).map(|(r, &mi)| r % mi).collect();
                let w = check(&b, &x).map_err(TestCaseError::fail)?;
                worst.set(worst.get().max(w));
                let (xv, _) = crt(&m, &x);
                let sh = raw[0] % b.log2_m();
                let small = residues(&m, &(xv >> sh));
                let w = check(&b, &small).map_err(TestCaseError::fail)?;
                worst.set(worst.get().max(w));
                prop_assert!(worst.get() < 2f64.powi(-38));
                Ok(())
            })
            .unwrap();
        println!("p={p}: n={} max relative width {:e}", m.len(), worst.get());
    }
}

#[test]
fn enclosure_on_extreme_residues() {
    for p in [24u32, 106, 1696] {
        let b = Basis::new(p).unwrap();
        let m = b.moduli().to_vec();
        let big_m: Integer = m.iter().map(|&v| Integer::from(v)).product();
        let mut xs: Vec<Integer> = vec![
            Integer::from(0),
            Integer::from(1),
            Integer::from(2),
            Integer::from(12345),
            Integer::from(&big_m - 1),
            Integer::from(&big_m - 2),
            Integer::from(&big_m / 2),
            Integer::from(&big_m / 2) + 1,
            Integer::from(&big_m / 2) - 1,
        ];
        for k in (0..b.log2_m()).step_by(7) {
            let pk = Integer::from(1) << k;
            xs.push(pk.clone());
            xs.push(Integer::from(&pk - 1));
            xs.push(Integer::from(&big_m - &pk));
        }
        for &mi in &m {
            xs.push(Integer::from(mi)); // residue 0 in one place
            xs.push(Integer::from(&big_m / mi)); // M_i: zero in all but one
        }
        for x in xs {
            let r = residues(&m, &x);
            let w = check(&b, &r).unwrap();
            assert!(w < 2f64.powi(-38), "p={p} X={x}: width {w}");
        }
    }
}

#[test]
fn bad_residues_are_errors() {
    let b = Basis::new(53).unwrap();
    assert!(evaluate(&b, &[1, 2]).is_err());
    let mut r = vec![0u32; b.len()];
    r[0] = b.moduli()[0];
    assert!(evaluate(&b, &r).is_err());
}
