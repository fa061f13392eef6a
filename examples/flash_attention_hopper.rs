//! FA3-style flash attention for Hopper: checked on the emulator, then timed, with ablations.
//!
//! ```text
//! cargo run --release --example flash_attention_hopper -- [--causal] [--arch h200] [--no-pingpong] [--no-overlap]
//! cargo run --release --example flash_attention_hopper -- --ablations   # full, no ping-pong, no overlap, non-specialized
//! ```

use std::process::ExitCode;

use clap::Parser;
use warpspec_examples::attention::cli::{self, ProblemArgs, TimingArgs};
use warpspec_examples::attention::hopper::{self, Variant};
use warpspec_examples::cli::{self as shared, Arch};

/// FA3-style flash attention: numerics on the emulator, time on the model.
#[derive(Parser, Debug)]
struct Options {
    #[command(flatten)]
    problem: ProblemArgs,
    #[command(flatten)]
    timing: TimingArgs,
    /// Turn off the ping-pong of the two consumer warpgroups.
    #[arg(long)]
    no_pingpong: bool,
    /// Turn off the overlap of softmax with the `P V` MMA inside a warpgroup.
    #[arg(long)]
    no_overlap: bool,
    /// Time every variant side by side: full, no ping-pong, no overlap, neither, and the
    /// non-specialized kernel in which all warps do everything.
    #[arg(long)]
    ablations: bool,
}

fn main() -> ExitCode {
    shared::exit_code(run(shared::parse_with_arch(Arch::H200)))
}

fn run(options: Options) -> Result<bool, String> {
    let variant = Variant { pingpong: !options.no_pingpong, overlap: !options.no_overlap };
    let small = options.problem.check_problem();
    println!("FA3-style flash attention: producer warpgroup, 2 consumer warpgroups");
    let ok = cli::check_and_print(&format!(" {variant:?}"), &small, |q, k, v| {
        hopper::run(&small, variant, q, k, v).map(|(o, _)| o)
    })?;
    if options.timing.no_timing {
        return Ok(ok);
    }
    let problem = options.problem.problem();
    let machine = options.timing.model.machine();
    let opts = options.timing.model.options();
    if options.ablations {
        println!("\n  {} on {}:", cli::describe(&problem), machine.name);
        let variants = [
            ("ping-pong + overlap", Some(Variant::FULL)),
            ("overlap only", Some(Variant { pingpong: false, overlap: true })),
            ("ping-pong only", Some(Variant { pingpong: true, overlap: false })),
            ("neither", Some(Variant { pingpong: false, overlap: false })),
            ("non-specialized", None),
        ];
        for (name, variant) in variants {
            let report = hopper::simulate(&problem, variant, &machine, &opts).map_err(|e| e.to_string())?;
            println!("  {name:<20} {}", cli::timing_line(&problem, &report));
            println!("  {:<20} stalls: {}", "", cli::top_stalls(&report));
        }
        return Ok(ok);
    }
    let report = hopper::simulate(&problem, Some(variant), &machine, &opts).map_err(|e| e.to_string())?;
    println!("  model     {} on {}: {}", cli::describe(&problem), machine.name, cli::timing_line(&problem, &report));
    println!();
    println!("{report}");
    options.timing.write_trace(&report)?;
    Ok(ok)
}
