//! Tables 2 and 3 of the Ozaki seed paper on this CPU (n = 256 and 512, φ = 0.1, 1, 2,
//! 3 seeds), with the paper's numbers printed below ours, then Ozaki II with 14, 16 and 20
//! moduli beside DGEMM.
//!
//! `cargo run --release -p mpblas --example ozaki_reproduce [n ...]`

fn main() -> mpblas::Result<()> {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![256, 512]
    } else {
        sizes
    };
    use mpblas::ozaki::reproduce::{CPU_DEFAULT_MODULI, reproduce};
    let rep = reproduce(&sizes, &[0.1, 1.0, 2.0], &[1, 2, 3], &CPU_DEFAULT_MODULI)?;
    println!("{}", rep.table2());
    println!("{}", rep.table3());
    println!("{}", rep.ozaki2_table());
    Ok(())
}
