//! Tables 2 and 3 of the Ozaki seed paper on this CPU (n = 256 and 512, φ = 0.1, 1, 2,
//! 3 seeds), with the paper's numbers printed below ours.
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
    let rep = mpblas::ozaki::reproduce::reproduce(&sizes, &[0.1, 1.0, 2.0], &[1, 2, 3])?;
    println!("{}", rep.table2());
    println!("{}", rep.table3());
    Ok(())
}
