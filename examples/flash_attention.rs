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
use warpspec_examples::cli::{self as shared, Arch, Given, Validate};

/// Five-role flash attention: numerics on the emulator, time on the model.
#[derive(Parser, Debug)]
struct Options {
    #[command(flatten)]
    problem: ProblemArgs,
    #[command(flatten)]
    timing: TimingArgs,
}

impl Validate for Options {
    fn validate(&self, _given: &Given<'_>) -> Result<(), String> {
        self.problem.validate()?;
        self.timing.validate()
    }
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

#[cfg(test)]
mod tests {
    use warpspec_examples::cli::{one_line, try_parse_from};

    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        let args = std::iter::once("flash_attention").chain(args.iter().copied());
        try_parse_from(Some(Arch::B200), args).map_err(|e| one_line(&e))
    }

    fn rejected(args: &[&str], wants: &[&str]) {
        let err = parse(args).unwrap_err();
        assert!(!err.contains('\n'), "{args:?}: not one line: {err}");
        for want in wants {
            assert!(err.contains(want), "{args:?}: `{want}` missing from: {err}");
        }
    }

    #[test]
    fn defaults_parse() {
        let options = parse(&[]).unwrap();
        assert_eq!(options.problem.problem().heads, 16);
        assert_eq!(options.timing.model.arch.arch, Arch::B200);
    }

    #[test]
    fn sizes_outside_their_ranges_are_rejected() {
        rejected(&["--heads", "4294967297"], &["--heads 4294967297", "1..=65535"]);
        rejected(&["--batch", "0"], &["--batch 0", "1..=65535"]);
        rejected(&["--seq", "0"], &["--seq 0", "accepted 1 or more"]);
        rejected(&["--check-seq", "0"], &["--check-seq 0"]);
        rejected(&["--head-dim", "96"], &["--head-dim 96", "64 or 128"]);
        rejected(&["--seq=-3"], &["--seq"]);
        rejected(&["--seq", "18446744073709551615"], &["--seq", "64 bits"]);
    }

    #[test]
    fn the_emulator_check_must_fit_in_memory() {
        if warpspec::emu::memory::available_bytes().is_some() {
            rejected(&["--check-seq", "100000000000"], &["--check-seq", "host memory"]);
        }
    }

    #[test]
    fn machines_and_flags_are_checked_before_the_emulator_runs() {
        rejected(&["--arch", "a100"], &["--arch", "h100, h200, b200"]);
        rejected(&["--no-timing", "--trace", "x.json"], &["--no-timing", "--trace"]);
        rejected(&["--no-timing", "--clock", "1.5"], &["--no-timing", "--clock"]);
        rejected(&["--clock", "1e9"], &["--clock", "boost clock"]);
        rejected(&["--trace", "/nonexistent-dir/fa.json"], &["--trace", "cannot write"]);
        rejected(&["--trace", "fa.txt"], &["--trace", "unknown trace format"]);
    }
}
