//! Kernels of the warpspec examples, shared by the example binaries, tests and benchmarks.

pub mod attention;
pub mod cli;
#[path = "cluster_gemm_kernel.rs"]
pub mod cluster_gemm;
#[path = "gemm_kernel.rs"]
pub mod gemm;
#[path = "gemm_tradeoff_kernels.rs"]
pub mod gemm_tradeoff;
pub mod gpu_gemm;
pub mod reference;
