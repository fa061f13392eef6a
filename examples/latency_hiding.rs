//! Latency hiding on one SM, as in the lecture's timeline: each warp issues long-latency
//! global loads, then independent FFMA work that uses them; other warps issue while it waits.
//!
//! ```text
//! cargo run --release --example latency_hiding -- [--arch h100|h200|b200] [--l2] [--trace FILE]
//! ```
//! Sweeps warps per scheduler and independent loads per warp and prints the measured
//! issue-slot utilisation beside Little's law: a warp keeps `I` independent instructions in
//! flight per round of `latency + I` cycles, so `w` warps per scheduler fill
//! `min(1, w * I / (latency + I))` of its issue slots. `--l2` makes the loads hit in L2
//! instead of going to HBM; `--trace` writes the timeline of 4 warps per scheduler, one load
//! each (Chrome trace-event JSON for <https://ui.perfetto.dev>, or `.html`/`.svg` for a
//! browser). `--help` lists every option.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use warpspec::sim::lower::{Dep, Instr};
use warpspec::sim::timing::{ExecPipe, Timing};
use warpspec::sim::{MicroInstance, MicroKernel, SimOptions, TraceOptions, simulate_micro};
use warpspec_examples::cli::{self, Arch, ArchArgs, Given, Validate};

/// FFMAs each loaded value feeds.
const WORK_PER_LOAD: u32 = 8;
/// Rounds of loads-then-work per warp.
const ROUNDS: usize = 20;

/// One warp's program: `ROUNDS` x (`loads` loads, then `WORK_PER_LOAD` FFMAs per load).
fn program(loads: u32, from_hbm: bool) -> Vec<Instr> {
    let round = [
        Instr::GlobalLoad { count: loads, bytes: 128, from_hbm },
        Instr::Exec { pipe: ExecPipe::Fma, count: loads * WORK_PER_LOAD, dep: Dep::Stream, elements: 1 },
    ];
    round.iter().copied().cycle().take(2 * ROUNDS).collect()
}

/// Issue-slot utilisation of one SM beside Little's law, sweeping warps per scheduler and
/// independent loads per warp.
#[derive(Parser, Debug)]
struct Options {
    #[command(flatten)]
    arch: ArchArgs,
    /// Load from L2 instead of HBM.
    #[arg(long)]
    l2: bool,
    /// Write the timeline of 4 warps per scheduler, one load each, to this file (format by
    /// extension: `.html`, `.svg`, Chrome trace-event JSON otherwise).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
}

impl Validate for Options {
    fn validate(&self, _given: &Given<'_>) -> Result<(), String> {
        match &self.trace {
            Some(path) => cli::check_trace_path("--trace", path),
            None => Ok(()),
        }
    }
}

fn main() -> ExitCode {
    cli::exit_code(run(cli::parse_with_arch(Arch::H100)))
}

fn run(options: Options) -> Result<bool, String> {
    let machine = options.arch.machine();
    let from_hbm = !options.l2;
    let trace_file = options.trace;
    let timing = Timing::new(&machine, machine.clocks.spec_ghz.value);
    let latency = if from_hbm { timing.hbm_latency } else { timing.l2_latency } as f64;
    let smsps = timing.sub_partitions;
    println!(
        "{}: loads from {} (latency {latency} cycles), {WORK_PER_LOAD} FFMAs per load, {ROUNDS} rounds per warp",
        machine.full_name,
        if from_hbm { "HBM" } else { "L2" }
    );
    println!(
        "{:>14} {:>15} {:>10} {:>18} {:>14}",
        "warps/sched", "loads/warp", "cycles", "issue slots used", "Little's law"
    );
    for warps in [1u32, 2, 4, 8, 16] {
        for loads in [1u32, 2, 4, 8] {
            // One SM; CTAs of at most 8 warps per scheduler (1024 threads), two for 16.
            let ctas = warps.div_ceil(8);
            let instances = (0..(warps / ctas) as usize * smsps)
                .map(|_| MicroInstance { name: "warp", warps: 1, program: program(loads, from_hbm) })
                .collect();
            let kernel = MicroKernel { ctas: ctas as usize, sms: Some(1), ..MicroKernel::new(instances) };
            let traced = trace_file.is_some() && warps == 4 && loads == 1;
            let opts = if traced {
                SimOptions::default().with_trace(TraceOptions { ctas_per_sm: 1, ..TraceOptions::default() })
            } else {
                SimOptions::default()
            };
            let report = simulate_micro(&machine, &kernel, &opts).map_err(|e| e.to_string())?;
            let per_round = f64::from(loads * (1 + WORK_PER_LOAD));
            let issued = per_round * ROUNDS as f64 * f64::from(warps) * smsps as f64;
            let measured = issued / (report.cycles as f64 * smsps as f64);
            let predicted = (f64::from(warps) * per_round / (latency + per_round)).min(1.0);
            println!(
                "{warps:>14} {loads:>15} {:>10} {:>17.1}% {:>13.1}%",
                report.cycles,
                100.0 * measured,
                100.0 * predicted
            );
            if let (true, Some(path), Some(trace)) = (traced, &trace_file, &report.trace) {
                cli::write_trace(trace, path)?;
            }
        }
    }
    if let Some(path) = trace_file {
        println!("timeline of 4 warps per scheduler, 1 load each, written to {}", path.display());
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use warpspec_examples::cli::{one_line, try_parse_from};

    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        let args = std::iter::once("latency_hiding").chain(args.iter().copied());
        try_parse_from(Some(Arch::H100), args).map_err(|e| one_line(&e))
    }

    #[test]
    fn trace_files_are_checked_first() {
        assert!(parse(&["--l2"]).is_ok());
        let err = parse(&["--trace", "/nonexistent-dir/l.json"]).unwrap_err();
        assert!(err.contains("--trace /nonexistent-dir/l.json: cannot write"), "{err}");
        assert!(parse(&["--trace", "l.png"]).unwrap_err().contains("unknown trace format"));
    }
}
