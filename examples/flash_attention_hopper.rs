//! FA3-style flash attention for Hopper: checked on the emulator, then timed.
//!
//! ```text
//! cargo run --release --example flash_attention_hopper -- [--causal] [--no-pingpong] [--no-overlap]
//! ```

use std::process::ExitCode;

use clap::Parser;
use warpspec_examples::attention::cli::{self, ProblemArgs};
use warpspec_examples::attention::hopper::{self, Variant};

/// FA3-style flash attention: numerics on the emulator.
#[derive(Parser, Debug)]
struct Options {
    #[command(flatten)]
    problem: ProblemArgs,
    /// Turn off the ping-pong of the two consumer warpgroups.
    #[arg(long)]
    no_pingpong: bool,
    /// Turn off the overlap of softmax with the `P V` MMA inside a warpgroup.
    #[arg(long)]
    no_overlap: bool,
}

fn main() -> ExitCode {
    let options = Options::parse();
    let variant = Variant { pingpong: !options.no_pingpong, overlap: !options.no_overlap };
    let small = options.problem.check_problem();
    println!("FA3-style flash attention (producer warpgroup, 2 consumer warpgroups) {variant:?}");
    let checked = match cli::check(&small, |q, k, v| hopper::run(&small, variant, q, k, v).map(|(o, _)| o)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("emulator: {e}");
            return ExitCode::FAILURE;
        }
    };
    let ok = checked.rel_err < cli::tolerance(small.dtype);
    println!(
        "  emulator  {}: max error {:.2e} (relative {:.2e}) {} in {:.2} s",
        cli::describe(&small),
        checked.max_err,
        checked.rel_err,
        if ok { "ok" } else { "ABOVE TOLERANCE" },
        checked.seconds
    );
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
