//! Five-role flash attention (Blackwell style): checked on the emulator, then timed.
//!
//! ```text
//! cargo run --release --example flash_attention -- [--causal] [--seq 4096] [--head-dim 128] [--arch b200] [--clock GHZ] [--policy gto|lrr] [--trace fa.json]
//! ```
//! With no arguments: a small problem (batch 1, heads 2, seq 512, d 128) runs on the emulator
//! and is checked against an f64 reference; then batch 4, heads 16, seq 4096, d 128 is timed
//! on the B200 model. On `--arch h100`/`h200` the FA3-style Hopper kernel is timed instead
//! (Hopper has no tensor memory).

use std::process::ExitCode;

use clap::Parser;
use warpspec::sim::machine::MmaIssue;
use warpspec_examples::attention::cli::{self, ProblemArgs, TimingArgs};
use warpspec_examples::attention::hopper::Variant;
use warpspec_examples::attention::{blackwell, hopper};
use warpspec_examples::cli::{self as shared, Arch};

/// Five-role flash attention: numerics on the emulator, time on the model.
#[derive(Parser, Debug)]
struct Options {
    #[command(flatten)]
    problem: ProblemArgs,
    #[command(flatten)]
    timing: TimingArgs,
}

fn main() -> ExitCode {
    shared::exit_code(run(shared::parse_with_arch(Arch::B200)))
}

fn run(options: Options) -> Result<bool, String> {
    let small = options.problem.check_problem();
    println!("five-role flash attention: load, mma, softmax x2, correction, epilogue");
    let ok = cli::check_and_print("", &small, |q, k, v| blackwell::run(&small, q, k, v).map(|(o, _)| o))?;
    if options.timing.no_timing {
        return Ok(ok);
    }
    let problem = options.problem.problem();
    let machine = options.timing.model.machine();
    let opts = options.timing.model.options();
    let report = if matches!(machine.tensor.issue, MmaIssue::SingleThreadTcgen05 { .. }) {
        blackwell::simulate(&problem, &machine, &opts)
    } else {
        println!("  ({} has no tensor memory: timing the FA3-style Hopper kernel)", machine.name);
        hopper::simulate(&problem, Some(Variant::FULL), &machine, &opts)
    }
    .map_err(|e| e.to_string())?;
    println!("  model     {} on {}: {}", cli::describe(&problem), machine.name, cli::timing_line(&problem, &report));
    println!();
    println!("{report}");
    options.timing.write_trace(&report)?;
    Ok(ok)
}
