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
use warpspec_examples::cli::{self as shared, Arch, Given, Validate};

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
    /// non-specialized kernel in which all warps do everything (no timeline is written).
    #[arg(long, conflicts_with_all = ["no_timing", "trace", "no_pingpong", "no_overlap"])]
    ablations: bool,
}

impl Validate for Options {
    fn validate(&self, _given: &Given<'_>) -> Result<(), String> {
        self.problem.validate()?;
        self.timing.validate()
    }
}

fn main() -> ExitCode {
    shared::exit_code(run(shared::parse_with_arch(Arch::H200)))
}

fn run(options: Options) -> Result<bool, String> {
    let variant = Variant { pingpong: !options.no_pingpong, overlap: !options.no_overlap };
    let small = options.problem.check_problem();
    println!("FA3-style flash attention: producer warpgroup, 2 consumer warpgroups");
    let ok = cli::check_and_print(&format!(" ({variant})"), &small, |q, k, v| {
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
            Some(Variant::FULL),
            Some(Variant { pingpong: false, overlap: true }),
            Some(Variant { pingpong: true, overlap: false }),
            Some(Variant { pingpong: false, overlap: false }),
            None,
        ];
        for variant in variants {
            let name = variant.map_or("non-specialized".to_string(), |v| v.to_string());
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

#[cfg(test)]
mod tests {
    use warpspec_examples::cli::{one_line, try_parse_from};

    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        let args = std::iter::once("flash_attention_hopper").chain(args.iter().copied());
        try_parse_from(Some(Arch::H200), args).map_err(|e| one_line(&e))
    }

    #[test]
    fn defaults_parse() {
        let options = parse(&[]).unwrap();
        assert_eq!(options.timing.model.arch.arch, Arch::H200);
    }

    #[test]
    fn ablations_reject_what_they_would_ignore() {
        for flags in [
            &["--ablations", "--trace", "x.json"][..],
            &["--ablations", "--no-pingpong"],
            &["--ablations", "--no-timing"],
        ] {
            let err = parse(flags).unwrap_err();
            assert!(err.contains("--ablations") && err.contains("cannot be used with"), "{flags:?}: {err}");
        }
    }

    #[test]
    fn variants_display_as_in_the_ablation_table() {
        assert_eq!(Variant::FULL.to_string(), "ping-pong + overlap");
        assert_eq!(Variant { pingpong: false, overlap: true }.to_string(), "overlap only");
    }
}
