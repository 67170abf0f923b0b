//! The papers `mpblas reproduce` re-runs: their published tables, their input generators and
//! the runs that put our numbers beside theirs. None of this is part of the library.

pub mod gemm;
pub mod gemv;
pub mod ozaki;
pub mod ozaki_gpu;
pub mod solve;
pub mod sum;
