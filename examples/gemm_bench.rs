//! Emulation throughput of the warp-specialized GEMM beside the same product computed
//! directly with `matrixmultiply`, both on all of rayon's threads.
//!
//! ```text
//! cargo run --release --example gemm_bench -- [--sizes 512,1024] [--runs 7]
//! ```
//! Prints, for each size (512³ and 1024³ by default), the median GFLOP/s over 7 runs of each
//! and their ratio, and the median GFLOP/s of the emulation with race detection turned off
//! (runs interleaved with the default ones) with the cost of race detection in percent.

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use rayon::prelude::*;
use warpspec::emu::{self, EmuOptions};
use warpspec_examples::cli::{self, Given, Validate};
use warpspec_examples::gemm;
use warpspec_examples::reference::{random_values, round_bf16};

/// Emulation throughput of the warp-specialized GEMM beside the direct product.
#[derive(Parser, Debug)]
struct Options {
    /// Square GEMM sizes to measure (each at least 1; the emulator's tensors must fit in
    /// host memory).
    #[arg(long, value_delimiter = ',', default_values_t = [512, 1024], value_parser = clap::value_parser!(u32).range(1..))]
    sizes: Vec<u32>,
    /// Runs of each; the median is reported.
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u32).range(1..))]
    runs: u32,
}

impl Validate for Options {
    fn validate(&self, _given: &Given<'_>) -> Result<(), String> {
        for &size in &self.sizes {
            let n = size as usize;
            gemm::check_problem(n, n, n, gemm::ws_gemm::BM, gemm::ws_gemm::BN)
                .map_err(|e| format!("--sizes {size}: {e}"))?;
            cli::check_host_memory(&format!("--sizes {size}"), gemm::host_bytes(n, n, n))?;
        }
        Ok(())
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `C = A · B` with `matrixmultiply`, rows split over rayon's threads in blocks of 128.
fn direct(n: usize, k: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    c.par_chunks_mut(128 * n).enumerate().for_each(|(block, c)| {
        let rows = c.len() / n;
        let a = &a[block * 128 * k..];
        // SAFETY: `a` holds `rows x k`, `b` holds `k x n`, `c` holds `rows x n`, all
        // row-major and non-overlapping.
        unsafe {
            matrixmultiply::sgemm(
                rows,
                k,
                n,
                1.0,
                a.as_ptr(),
                k as isize,
                1,
                b.as_ptr(),
                n as isize,
                1,
                0.0,
                c.as_mut_ptr(),
                n as isize,
                1,
            );
        }
    });
}

fn main() -> ExitCode {
    cli::exit_code(run(cli::parse()))
}

fn run(options: Options) -> Result<bool, String> {
    println!("threads: {}", rayon::current_num_threads());
    println!(
        "{:>6} {:>16} {:>16} {:>8} {:>20} {:>15}",
        "size", "emulated GFLOP/s", "direct GFLOP/s", "ratio", "no race det. GFLOP/s", "race det. cost"
    );
    for size in options.sizes {
        let size = size as usize;
        let (m, n, k) = (size, size, size);
        let a = round_bf16(&random_values(m * k, 1));
        let b = round_bf16(&random_values(k * n, 2));
        let flops = 2.0 * (m * n * k) as f64;
        let mut emulated = Vec::new();
        let mut plain = Vec::new();
        let mut unchecked = Vec::new();
        let mut c = vec![0.0; m * n];
        let args = gemm::args(m, n, k, &a, &b).map_err(|e| e.to_string())?;
        let off = EmuOptions::default().with_race_detection(false);
        for _ in 0..options.runs {
            let (_, report) = gemm::gemm(m, n, k, &a, &b).map_err(|e| e.to_string())?;
            emulated.push(report.gflops());
            let report =
                emu::run_with::<gemm::ws_gemm::Kernel>(gemm::grid(m, n), &args, &off).map_err(|e| e.to_string())?;
            unchecked.push(report.gflops());
            let start = Instant::now();
            direct(n, k, &a, &b, &mut c);
            plain.push(flops / start.elapsed().as_secs_f64() / 1e9);
        }
        let (e, d, u) = (median(emulated), median(plain), median(unchecked));
        println!("{:>5}³ {e:>16.2} {d:>16.2} {:>7.2}x {u:>20.2} {:>14.1}%", size, e / d, (u / e - 1.0) * 100.0);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use warpspec_examples::cli::{one_line, try_parse_from};

    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        let args = std::iter::once("gemm_bench").chain(args.iter().copied());
        try_parse_from(None, args).map_err(|e| one_line(&e))
    }

    #[test]
    fn arguments_are_not_ignored() {
        assert_eq!(parse(&[]).unwrap().sizes, [512, 1024]);
        for args in [&["foo"][..], &["--sizes", "0"], &["--runs", "0"], &["--bogus"]] {
            assert!(parse(args).is_err(), "{args:?}");
        }
        if warpspec::emu::memory::available_bytes().is_some() {
            let err = parse(&["--sizes", "512,4000000"]).unwrap_err();
            assert!(err.contains("--sizes 4000000") && !err.contains('\n'), "{err}");
        }
    }
}
