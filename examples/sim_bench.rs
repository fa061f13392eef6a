//! Benchmark of the timing model itself: simulated SM-cycles per second of host time, and
//! the wall time of the 8192³ warp-specialized GEMM.
//!
//! ```text
//! cargo run --release --example sim_bench -- [--arch h100|h200|b200] [--size 8192]
//! ```
//! Three workloads on one host thread:
//! - **dense issue**: 16 warps per scheduler of independent FFMAs on every SM, so every
//!   scheduler issues every cycle (the model's worst case: one event per SM-cycle);
//! - **latency bound**: the same warps with a dependent HBM load every 9 instructions, so the
//!   model mostly skips idle cycles;
//! - **GEMM 8192³** (`--size`): the warp-specialized GEMM of `examples/gemm_kernel.rs`, 2048
//!   CTAs of 128 x 256, 128 k-steps each, shape-only tensors.

use std::process::ExitCode;

use clap::Parser;
use std::time::Instant;

use warpspec::dsl::Global;
use warpspec::report::SimReport;
use warpspec::sim::lower::{Dep, Instr};
use warpspec::sim::timing::ExecPipe;
use warpspec::sim::{Machine, MicroInstance, MicroKernel, SimError, SimOptions, simulate_micro};
use warpspec::{Model, Target};
use warpspec_examples::cli::{self, Arch, ArchArgs, Given, Validate};
use warpspec_examples::gemm;

/// 16 warps per scheduler on every SM (two CTAs of 8 per scheduler each), all running
/// `program`.
fn micro(machine: &Machine, program: Vec<Instr>) -> Result<SimReport, SimError> {
    let sms = machine.sm_count.value as usize;
    let warps = 8 * machine.issue.sub_partitions.value as usize;
    let instances = (0..warps).map(|_| MicroInstance { name: "warp", warps: 1, program: program.clone() }).collect();
    simulate_micro(machine, &MicroKernel { ctas: 2 * sms, ..MicroKernel::new(instances) }, &SimOptions::default())
}

fn line(name: &str, report: &SimReport, wall: f64) {
    println!(
        "{name:<16} {:>12} SM-cycles in {:>7.3} s = {:.3e} SM-cycles/s",
        report.host.sm_cycles,
        wall,
        report.host.sm_cycles as f64 / wall
    );
}

/// Speed of the timing model: simulated SM-cycles per second of host time.
#[derive(Parser, Debug)]
struct Options {
    #[command(flatten)]
    arch: ArchArgs,
    /// Size of the square GEMM timed last (at least 1; its grid must fit a launch).
    #[arg(long, default_value_t = 8192, value_parser = clap::value_parser!(u32).range(1..))]
    size: u32,
}

impl Validate for Options {
    fn validate(&self, _given: &Given<'_>) -> Result<(), String> {
        let n = self.size as usize;
        gemm::check_problem(n, n, n, gemm::ws_gemm::BM, gemm::ws_gemm::BN)
            .map(drop)
            .map_err(|e| format!("--size {n}: {e}"))
    }
}

fn main() -> ExitCode {
    cli::exit_code(run(cli::parse_with_arch(Arch::H100)))
}

fn run(options: Options) -> Result<bool, String> {
    let machine = options.arch.machine();
    println!("timing model on one host thread, {}", machine.full_name);
    let dense = vec![Instr::Exec { pipe: ExecPipe::Fma, count: 4000, dep: Dep::None, elements: 1 }];
    let latency: Vec<Instr> = [
        Instr::GlobalLoad { count: 1, bytes: 128, from_hbm: true },
        Instr::Exec { pipe: ExecPipe::Fma, count: 8, dep: Dep::Stream, elements: 1 },
    ]
    .iter()
    .copied()
    .cycle()
    .take(200)
    .collect();
    for (name, program) in [("dense issue", dense), ("latency bound", latency)] {
        let start = Instant::now();
        let report = micro(&machine, program).map_err(|e| e.to_string())?;
        line(name, &report, start.elapsed().as_secs_f64());
    }
    let n = options.size as usize;
    let args = gemm::ws_gemm::Args {
        a: Global::shape_only(&[n, n]),
        b: Global::shape_only(&[n, n]),
        c: Global::shape_only(&[n, n]),
    };
    let start = Instant::now();
    let model = Model::new(machine, SimOptions::default());
    let report = model.launch::<gemm::ws_gemm::Kernel>(gemm::grid(n, n), &args).map_err(|e| e.to_string())?;
    let wall = start.elapsed().as_secs_f64();
    let name = format!("GEMM {n}³");
    line(&name, &report, wall);
    println!(
        "{name} wall time {wall:.2} s; predicted {:.1} TFLOP/s ({:.1}% of peak) at {:.2} GHz",
        report.tflops(),
        report.percent_of_peak(),
        report.clock_ghz
    );
    Ok(true)
}

#[cfg(test)]
mod tests {
    use warpspec_examples::cli::{one_line, try_parse_from};

    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        let args = std::iter::once("sim_bench").chain(args.iter().copied());
        try_parse_from(Some(Arch::H100), args).map_err(|e| one_line(&e))
    }

    #[test]
    fn arguments_are_not_ignored() {
        assert_eq!(parse(&[]).unwrap().size, 8192);
        for args in [&["--bogus"][..], &["--size", "0"], &["--arch", "a100"], &["8192"]] {
            assert!(parse(args).is_err(), "{args:?}");
        }
        let err = parse(&["--size", "4000000000"]).unwrap_err();
        assert!(err.contains("--size 4000000000") && err.contains("64 bits"), "{err}");
    }
}
