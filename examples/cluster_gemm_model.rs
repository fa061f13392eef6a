//! `cluster_gemm` (2-CTA clusters, B multicast, persistent, TMA-store epilogue) on the timing
//! model: shape-only operands, a persistent grid of the clusters the machine holds at once,
//! and the full report (occupancy and cluster waves, burst and sustained clock, utilisation,
//! stall reasons per role).
//!
//! ```text
//! cargo run --release -p warpspec-examples --example cluster_gemm_model -- [M N K ...] [--arch h200]
//! ```
//! With no shapes it runs the four shapes measured on the H200
//! (calibration/gpu/cluster_gemm/h200_run4).

use std::process::ExitCode;

use clap::Parser;
use warpspec::dsl::{Global, Kernel};
use warpspec::sim::{SimOptions, kernel_occupancy, simulate_clocked};
use warpspec_examples::cli::{self, Arch, ArchArgs, Given, Validate};
use warpspec_examples::cluster_gemm::{cluster_gemm, grid};

/// The four shapes of the H200 run, as M N K triples.
const MEASURED: [usize; 12] = [8192, 8192, 8192, 4096, 4096, 4096, 16384, 16384, 4096, 8192, 8192, 1024];

/// The cluster GEMM on the timing model: occupancy and cluster waves, burst and sustained.
#[derive(Parser, Debug)]
struct Options {
    #[command(flatten)]
    arch: ArchArgs,
    /// Problem shapes as M N K triples (default: the four measured on the H200).
    #[arg(value_name = "M N K")]
    dims: Vec<usize>,
}

impl Validate for Options {
    fn validate(&self, _given: &Given<'_>) -> Result<(), String> {
        if self.arch.arch == Arch::B200 {
            return Err("--arch b200: cluster_gemm issues `wgmma`, a Hopper instruction; use h100 or h200".into());
        }
        if !self.dims.len().is_multiple_of(3) || self.dims.contains(&0) {
            return Err(format!(
                "[M N K ...]: give shapes as triples of positive dimensions, got {} values",
                self.dims.len()
            ));
        }
        Ok(())
    }
}

fn main() -> ExitCode {
    cli::exit_code(run(cli::parse_with_arch(Arch::H200)))
}

fn run(options: Options) -> Result<bool, String> {
    let machine = options.arch.machine();
    let dims = if options.dims.is_empty() { MEASURED.to_vec() } else { options.dims };
    let spec = &cluster_gemm::Kernel::SPEC;
    let occupancy = kernel_occupancy(&machine, spec).map_err(|e| e.to_string())?;
    let clusters =
        spec.cluster_shape().resident_clusters(machine.clusters.gpc_sms.value, occupancy.ctas_per_sm) as usize;
    // Every launch is checked before any is timed.
    let launches = dims
        .chunks(3)
        .map(|s| grid(s[0], s[1], clusters).map(|g| ([s[0], s[1], s[2]], g)).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    for ([m, n, k], launch) in launches {
        let args = cluster_gemm::Args {
            a: Global::shape_only(&[m, k]),
            b: Global::shape_only(&[k, n]),
            c: Global::shape_only(&[m, n]),
        };
        let run = simulate_clocked::<cluster_gemm::Kernel>(&machine, launch, &args, &SimOptions::default())
            .map_err(|e| e.to_string())?;
        let flops = 2.0 * m as f64 * n as f64 * k as f64;
        let tflops = |cycles: u64, ghz: f64| flops / (cycles as f64 / (ghz * 1e9)) / 1e12;
        println!("=== cluster_gemm {m}x{n}x{k}, {clusters} persistent clusters of 2 CTAs ===");
        println!("{}", run.burst);
        let (burst_ghz, top) = (run.burst_ghz, machine.power.loaded_max_ghz.value);
        println!(
            "burst     {} cycles at {:.3} GHz = {:.1} TFLOP/s; {:.0} W predicted at the top clock ({top:.3} GHz)",
            run.burst.cycles,
            burst_ghz,
            tflops(run.burst.cycles, burst_ghz),
            run.power_at_top_w
        );
        println!(
            "sustained {} cycles at {:.3} GHz = {:.1} TFLOP/s",
            run.sustained.cycles,
            run.sustained_ghz,
            tflops(run.sustained.cycles, run.sustained_ghz)
        );
        println!("host      {:.1} s", run.burst.host.wall.as_secs_f64() + run.sustained.host.wall.as_secs_f64());
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use warpspec_examples::cli::{one_line, try_parse_from};

    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        let args = std::iter::once("cluster_gemm_model").chain(args.iter().copied());
        try_parse_from(Some(Arch::H200), args).map_err(|e| one_line(&e))
    }

    #[test]
    fn shapes_and_machine_are_checked_before_any_work() {
        assert_eq!(parse(&[]).unwrap().arch.arch, Arch::H200);
        assert_eq!(parse(&["1024", "512", "64", "--arch", "h100"]).unwrap().dims, [1024, 512, 64]);
        let err = parse(&["1024", "512"]).unwrap_err();
        assert!(err.contains("triples of positive dimensions, got 2 values"), "{err}");
        assert!(parse(&["0", "512", "64"]).unwrap_err().contains("positive"));
        assert!(parse(&["--arch", "b200"]).unwrap_err().contains("Hopper"));
        assert!(parse(&["12x"]).is_err());
    }
}
