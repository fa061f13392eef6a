//! FA3-style flash attention for Hopper: checked on the emulator, then timed, with ablations.
//!
//! ```text
//! cargo run --release --example flash_attention_hopper -- [--causal] [--arch h200] [--no-pingpong] [--no-overlap]
//! cargo run --release --example flash_attention_hopper -- --ablations   # full, no ping-pong, no overlap, non-specialized
//! cargo run --release --example flash_attention_hopper -- --target gpu [--ablations]   # checked and timed on a GPU
//! ```
//!
//! `--target emu` (the default) checks on the emulator and times on the model; `--target model`
//! only times on the model; `--target gpu` checks on the GPU (the kernel rendered to CUDA)
//! and measures the timed problem there (burst and sustained, SM clock and power), each
//! beside the model's prediction.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use warpspec::gpu::bench::{Bench, BenchConfig, Measurement, Phase};
use warpspec::gpu::{Cuda, CudaError};
use warpspec_examples::attention::cli::{self, ProblemArgs, TimingArgs};
use warpspec_examples::attention::hopper::{self, Variant};
use warpspec_examples::attention::round_to;
use warpspec_examples::cli::{self as shared, Arch, Given, TargetKind, Validate};
use warpspec_examples::reference::random_values;

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
    /// Where the kernel runs: `emu` (checked on the emulator, timed on the model), `model`
    /// (timed on the model only) or `gpu` (checked and timed on a GPU, beside the model).
    #[arg(long, value_enum, default_value_t = TargetKind::Emu)]
    target: TargetKind,
    /// Seconds of the sustained phase of a GPU measurement (`--target gpu`).
    #[arg(long, default_value_t = 5.0)]
    sustained_s: f64,
}

impl Validate for Options {
    fn validate(&self, given: &Given<'_>) -> Result<(), String> {
        self.problem.validate()?;
        if self.target != TargetKind::Gpu && given.has("sustained_s") {
            return Err("--sustained-s applies to --target gpu only".into());
        }
        shared::check_sustained_seconds(self.sustained_s)?;
        if self.target == TargetKind::Model && self.timing.no_timing {
            return Err("--no-timing: --target model only times; there would be nothing to do".into());
        }
        self.timing.validate()
    }
}

fn main() -> ExitCode {
    shared::exit_code(run(shared::parse_with_arch(Arch::H200)))
}

fn run(options: Options) -> Result<bool, String> {
    if options.target == TargetKind::Gpu {
        return run_on_gpu(&options);
    }
    let variant = Variant { pingpong: !options.no_pingpong, overlap: !options.no_overlap };
    let small = options.problem.check_problem();
    println!("FA3-style flash attention: producer warpgroup, 2 consumer warpgroups");
    let ok = options.target == TargetKind::Model
        || cli::check_and_print(&format!(" ({variant})"), &small, |q, k, v| {
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
        for variant in hopper::ABLATIONS {
            let report = hopper::simulate(&problem, variant, &machine, &opts).map_err(|e| e.to_string())?;
            println!("  {:<20} {}", hopper::variant_name(variant), cli::timing_line(&problem, &report));
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

/// `--target gpu`: the check problem on the GPU against f64, then the timed problem measured
/// there (burst and sustained) beside the model's prediction for each variant.
fn run_on_gpu(options: &Options) -> Result<bool, String> {
    let cuda = Cuda::new(0).map_err(|e| e.to_string())?;
    let variants: Vec<Option<Variant>> = if options.ablations {
        hopper::ABLATIONS.to_vec()
    } else {
        vec![Some(Variant { pingpong: !options.no_pingpong, overlap: !options.no_overlap })]
    };
    println!("FA3-style flash attention on {}", cuda.gpu().name());
    let small = options.problem.check_problem();
    let mut ok = true;
    for &v in &variants {
        ok &= cli::check_and_print_on("gpu", &format!(" ({})", hopper::variant_name(v)), &small, |q, k, val| {
            hopper::run_gpu(&cuda, &small, v, q, k, val)
        })?;
    }
    if options.timing.no_timing || !ok {
        return Ok(ok);
    }
    let problem = options.problem.problem();
    let machine = options.timing.model.machine();
    let opts = options.timing.model.options();
    let config = BenchConfig { sustained: Duration::from_secs_f64(options.sustained_s), ..BenchConfig::default() };
    let mut bench = Bench::new(cuda.gpu(), config).map_err(|e| e.to_string())?;
    println!("\n  {} ({})", cli::describe(&problem), bench.telemetry());
    let n = problem.elements();
    let inputs: Vec<Vec<f32>> = (11..14).map(|seed| round_to(problem.dtype, &random_values(n, seed))).collect();
    for &v in &variants {
        let label = format!("{} {}", hopper::variant_name(v), cli::describe(&problem));
        let (_, m) = hopper::with_gpu(&cuda, &problem, v, &inputs[0], &inputs[1], &inputs[2], |p| {
            bench.measure(&label, Some(problem.flops()), || p.enqueue()).map_err(CudaError::Gpu)
        })
        .map_err(|e| e.to_string())?;
        let report = hopper::simulate(&problem, v, &machine, &opts).map_err(|e| e.to_string())?;
        println!("  {:<20} gpu burst     {}", hopper::variant_name(v), gpu_line(&m, &m.burst));
        println!("  {:<20} gpu sustained {}", "", gpu_line(&m, &m.sustained));
        println!("  {:<20} model         {}", "", cli::timing_line(&problem, &report));
    }
    Ok(ok)
}

/// Time, TFLOP/s, SM clock and power of one measured phase.
fn gpu_line(m: &Measurement, p: &Phase) -> String {
    let ms = p.steady_ms;
    let tflops = m.tflops(ms).map_or("-".into(), |t| format!("{t:.0}"));
    let clock = p.clocks.map_or("-".into(), |c| format!("{:.0}", c.sm_steady_mhz));
    let power = p.power.map_or("-".into(), |w| format!("{:.0}", w.steady_w));
    format!("{ms:.3} ms, {tflops} TFLOP/s at {clock} MHz, {power} W")
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
    fn gpu_only_options_need_the_gpu_target() {
        let err = parse(&["--sustained-s", "3"]).unwrap_err();
        assert!(err.contains("--sustained-s applies to --target gpu only"), "{err}");
        assert!(parse(&["--target", "gpu", "--sustained-s", "3"]).is_ok());
        for short in ["0", "0.5"] {
            let err = parse(&["--target", "gpu", "--sustained-s", short]).unwrap_err();
            assert!(err.contains("--sustained-s") && err.contains("steady window"), "{err}");
        }
        let err = parse(&["--target", "model", "--no-timing"]).unwrap_err();
        assert!(err.contains("nothing to do"), "{err}");
    }

    #[test]
    fn variants_display_as_in_the_ablation_table() {
        assert_eq!(Variant::FULL.to_string(), "ping-pong + overlap");
        assert_eq!(Variant { pingpong: false, overlap: true }.to_string(), "overlap only");
    }
}
