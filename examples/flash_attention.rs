//! Five-role flash attention (Blackwell style): checked on the emulator, then timed.
//!
//! ```text
//! cargo run --release --example flash_attention -- [--causal] [--seq 4096] [--head-dim 128] ...
//! ```
//! Runs a small problem on the emulator and checks it against an f64 reference.

use std::process::ExitCode;

use clap::Parser;
use warpspec_examples::attention::blackwell;
use warpspec_examples::attention::cli::{self, ProblemArgs};

/// Five-role flash attention: numerics on the emulator.
#[derive(Parser, Debug)]
struct Options {
    #[command(flatten)]
    problem: ProblemArgs,
}

fn main() -> ExitCode {
    let options = Options::parse();
    let small = options.problem.check_problem();
    println!("five-role flash attention (load, mma, softmax x2, correction, epilogue)");
    let checked = match cli::check(&small, |q, k, v| blackwell::run(&small, q, k, v).map(|(o, _)| o)) {
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
