//! Warp-specialized GEMM on the emulator: `C = A · B`, bf16 in, f32 accumulate.
//!
//! ```text
//! cargo run --release --example gemm -- [M N K]
//! ```
//! Runs the kernel of `warpspec_examples::gemm` on random inputs, checks it against an f64
//! reference and prints the error and the emulation's throughput.

use std::process::ExitCode;

use warpspec_examples::gemm;
use warpspec_examples::reference::{errors, matmul_f64, random_values, round_bf16};

fn main() -> ExitCode {
    let dims: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let [m, n, k] = match dims.as_slice() {
        [] => [512, 512, 512],
        &[m, n, k] => [m, n, k],
        _ => {
            eprintln!("usage: gemm [M N K]");
            return ExitCode::FAILURE;
        }
    };
    let a = round_bf16(&random_values(m * k, 1));
    let b = round_bf16(&random_values(k * n, 2));
    let (c, report) = match gemm::gemm(m, n, k, &a, &b) {
        Ok(result) => result,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let (max_err, rel_err) = errors(&c, &matmul_f64(m, n, k, &a, &b));
    println!("warp-specialized GEMM {m}x{n}x{k} (bf16 in, f32 accumulate) on the emulator");
    println!("  CTAs            {}", report.ctas);
    println!("  max abs error   {max_err:.3e}  (relative to max |C|: {rel_err:.3e})");
    println!("  emulation       {:.2} GFLOP/s ({:.1} ms)", report.gflops(), report.wall.as_secs_f64() * 1e3);
    if rel_err > 1e-5 {
        eprintln!("error above tolerance");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
