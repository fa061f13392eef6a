//! Warp-specialized GEMM: `C = A · B`, bf16 in, f32 accumulate, on the emulator, the
//! timing model or a GPU (`--target gpu`: the kernel rendered to CUDA, checked against f64).
//!
//! ```text
//! cargo run --release --example gemm -- [M N K] [--race-detection] [--repeat N]
//! ```
//! Runs the kernel of `warpspec_examples::gemm` on the emulator (`--target emu`, the default)
//! on random inputs, checks it against an f64 reference and prints the error and the
//! emulation's throughput. `--race-detection` turns the emulator's race detector on (release
//! builds run without it); `--repeat N` runs the launch N times and reports the median
//! throughput.
//!
//! ```text
//! cargo run --release --example gemm -- --target model [--arch h100|h200|b200] [--clock GHZ]
//!     [--policy gto|lrr] [--trace FILE] [M N K]
//! ```
//! Times the same kernel on the cycle-level model instead (shape-only tensors, default
//! 8192³ on h100) and prints the report; `--trace` writes the timeline of the first CTAs of
//! SM 0: a self-contained HTML page for `FILE.html`, an SVG for `FILE.svg` (open either in a
//! browser), Chrome trace-event JSON otherwise (open it in <https://ui.perfetto.dev>).
//! `--help` lists every option.

use std::process::ExitCode;

use clap::Parser;
use warpspec::dsl::Global;
use warpspec::emu::{EmuError, EmuOptions};
use warpspec::{Emulator, Model, Target};
use warpspec_examples::cli::{self, Arch, Given, ModelArgs, TargetKind, Validate};
use warpspec_examples::gemm;
use warpspec_examples::reference::{errors, matmul_f64, random_values, round_bf16};

/// Warp-specialized GEMM `C = A · B` (bf16 in, f32 accumulate): checked on the emulator, or
/// timed on the model.
#[derive(Parser, Debug)]
struct Options {
    /// Problem size, each at least 1 [default: 512 512 512 on the emulator, 8192 8192 8192
    /// on the model].
    #[arg(num_args = 3, value_names = ["M", "N", "K"], value_parser = clap::value_parser!(u64).range(1..))]
    dims: Option<Vec<u64>>,
    /// Where the kernel runs.
    #[arg(long, value_enum, default_value_t = TargetKind::Emu)]
    target: TargetKind,
    /// The older spelling of `--target model`.
    #[arg(long, hide = true)]
    simulate: bool,
    /// Emulator: turn the race detector on (release builds run without it).
    #[arg(long)]
    race_detection: bool,
    /// Emulator: launches to run (at least 1); the median throughput is reported.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// The timing model (`--target model`).
    #[command(flatten)]
    model: ModelArgs,
}

/// Options of the timing model only.
const MODEL_ONLY: [&str; 5] = ["arch", "clock", "policy", "trace", "trace_window"];
/// Options of the emulator only.
const EMULATOR_ONLY: [&str; 2] = ["race_detection", "repeat"];

impl Options {
    /// Where the kernel runs (`--simulate` is `--target model`).
    fn target(&self) -> TargetKind {
        if self.simulate { TargetKind::Model } else { self.target }
    }

    /// `M N K`, or the target's default.
    fn dims(&self) -> Result<[usize; 3], String> {
        let default = if self.target() == TargetKind::Model { 8192 } else { 512 };
        match self.dims.as_deref() {
            None => Ok([default; 3]),
            Some(&[m, n, k]) => {
                let dim = |d: u64| usize::try_from(d).map_err(|_| format!("M N K: {d} does not fit in usize"));
                Ok([dim(m)?, dim(n)?, dim(k)?])
            }
            Some(dims) => Err(format!("M N K: expected three sizes, not {dims:?}")),
        }
    }
}

impl Validate for Options {
    fn validate(&self, given: &Given<'_>) -> Result<(), String> {
        let target = self.target();
        if target != TargetKind::Model
            && let Some(flag) = given.any(&MODEL_ONLY)
        {
            return Err(format!("{flag} applies to --target model only"));
        }
        if target != TargetKind::Emu
            && let Some(flag) = given.any(&EMULATOR_ONLY)
        {
            return Err(format!("{flag} applies to --target emu only"));
        }
        let [m, n, k] = self.dims()?;
        gemm::check_problem(m, n, k, gemm::ws_gemm::BM, gemm::ws_gemm::BN).map_err(|e| format!("M N K: {e}"))?;
        if target == TargetKind::Model {
            self.model.validate()
        } else {
            cli::check_host_memory(&format!("M N K = {m} {n} {k} on the emulator"), gemm::host_bytes(m, n, k))
        }
    }
}

fn main() -> ExitCode {
    cli::exit_code(run(cli::parse_with_arch(Arch::H100)))
}

fn run(options: Options) -> Result<bool, String> {
    let dims = options.dims()?;
    match options.target() {
        TargetKind::Model => time_on_model(&options, dims),
        // The GEMM renders to CUDA (`warpspec::gpu::codegen`), so it runs on the GPU target.
        TargetKind::Gpu => check_on_gpu(dims),
        TargetKind::Emu => check_on_emulator(&options, dims),
    }
}

/// Runs the GEMM on the emulator, checks it against f64 and prints the throughput.
fn check_on_emulator(options: &Options, [m, n, k]: [usize; 3]) -> Result<bool, String> {
    let emulator = Emulator::new(EmuOptions::default().with_race_detection(options.race_detection));
    let repeat = options.repeat as usize;
    let a = round_bf16(&random_values(m * k, 1));
    let b = round_bf16(&random_values(k * n, 2));
    let launch = gemm::args(m, n, k, &a, &b).map_err(EmuError::from).and_then(|args| {
        let mut reports = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            reports.push(emulator.launch::<gemm::ws_gemm::Kernel>(gemm::grid(m, n), &args)?);
        }
        Ok((args.c.to_f32_vec().unwrap_or_default(), reports))
    });
    let (c, mut reports) = launch.map_err(|e| e.to_string())?;
    reports.sort_by_key(|r| r.wall);
    let report = &reports[reports.len() / 2];
    let (max_err, rel_err) = errors(&c, &matmul_f64(m, n, k, &a, &b));
    let detection = if emulator.options.race_detection { "on" } else { "off" };
    println!("warp-specialized GEMM {m}x{n}x{k} (bf16 in, f32 accumulate) on the emulator");
    println!("  CTAs            {}", report.ctas);
    println!("  max abs error   {max_err:.3e}  (relative to max |C|: {rel_err:.3e})");
    println!("  race detection  {detection}");
    println!(
        "  emulation       {:.2} GFLOP/s ({:.1} ms, median of {repeat})",
        report.gflops(),
        report.wall.as_secs_f64() * 1e3
    );
    if rel_err > 1e-5 {
        eprintln!("error above tolerance");
        return Ok(false);
    }
    Ok(true)
}

/// Runs the GEMM on the GPU (generated CUDA), checks it against f64.
fn check_on_gpu([m, n, k]: [usize; 3]) -> Result<bool, String> {
    let cuda = warpspec::gpu::Cuda::new(0).map_err(|e| e.to_string())?;
    let a = round_bf16(&random_values(m * k, 1));
    let b = round_bf16(&random_values(k * n, 2));
    let args = gemm::args(m, n, k, &a, &b).map_err(|e| e.to_string())?;
    let report = cuda.launch::<gemm::ws_gemm::Kernel>(gemm::grid(m, n), &args).map_err(|e| e.to_string())?;
    let c = args.c.to_f32_vec().unwrap_or_default();
    let (max_err, rel_err) = errors(&c, &matmul_f64(m, n, k, &a, &b));
    println!("warp-specialized GEMM {m}x{n}x{k} (bf16 in, f32 accumulate) on {}", cuda.name());
    println!("  max abs error   {max_err:.3e}  (relative to max |C|: {rel_err:.3e})");
    println!("  kernel          {:?}", report.resources);
    println!("  launch          {}, {} us launch to done", report.config, report.elapsed.as_micros());
    if rel_err > 1e-4 {
        eprintln!("error above tolerance");
        return Ok(false);
    }
    Ok(true)
}

/// Times the GEMM on the model (shape-only tensors) and prints the report.
fn time_on_model(options: &Options, [m, n, k]: [usize; 3]) -> Result<bool, String> {
    let model = Model::new(options.model.machine(), options.model.options());
    let args = gemm::ws_gemm::Args {
        a: Global::shape_only(&[m, k]),
        b: Global::shape_only(&[k, n]),
        c: Global::shape_only(&[m, n]),
    };
    println!("warp-specialized GEMM {m}x{n}x{k} (bf16 in, f32 accumulate) on the timing model");
    let report = model.launch::<gemm::ws_gemm::Kernel>(gemm::grid(m, n), &args).map_err(|e| e.to_string())?;
    println!("{report}");
    if let Some((path, open_in)) = options.model.write_trace(report.trace.as_ref())? {
        println!("trace written to {} (open it in {open_in})", path.display());
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use warpspec_examples::cli::{one_line, try_parse_from};

    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        let args = std::iter::once("gemm").chain(args.iter().copied());
        try_parse_from(Some(Arch::H100), args).map_err(|e| one_line(&e))
    }

    fn rejected(args: &[&str], wants: &[&str]) {
        let err = parse(args).unwrap_err();
        assert!(!err.contains('\n'), "{args:?}: not one line: {err}");
        for want in wants {
            assert!(err.contains(want), "{args:?}: `{want}` missing from: {err}");
        }
    }

    #[test]
    fn defaults_follow_the_target() {
        assert_eq!(parse(&[]).unwrap().dims(), Ok([512; 3]));
        assert_eq!(parse(&["--target", "model"]).unwrap().dims(), Ok([8192; 3]));
        assert_eq!(parse(&["--simulate", "64", "64", "64"]).unwrap().target(), TargetKind::Model);
    }

    #[test]
    fn sizes_are_checked_before_any_allocation() {
        rejected(&["0", "512", "512"], &["invalid value '0'", "1.."]);
        rejected(&["--target", "model", "100000000", "256", "64"], &["M N K", "along y", "1 to 65535"]);
        rejected(&["--target", "model", "1099511627776", "1099511627776", "1099511627776"], &["M N K", "64 bits"]);
        if warpspec::emu::memory::available_bytes().is_some() {
            rejected(&["100000", "100000", "100000"], &["M N K = 100000 100000 100000", "host memory"]);
        }
    }

    #[test]
    fn options_of_the_other_target_are_rejected() {
        rejected(&["--trace", "x.json"], &["--trace applies to --target model only"]);
        rejected(&["--clock", "1.5"], &["--clock applies to --target model only"]);
        rejected(&["--target", "model", "--race-detection"], &["--race-detection applies to --target emu only"]);
        rejected(&["--target", "model", "--repeat", "3"], &["--repeat applies to --target emu only"]);
        rejected(&["--target", "gpu", "--clock", "1.5"], &["--clock applies to --target model only"]);
        rejected(&["--target", "gpu", "--repeat", "3"], &["--repeat applies to --target emu only"]);
    }

    #[test]
    fn model_options_are_checked() {
        rejected(&["--target", "model", "--clock", "1e9"], &["--clock 1000000000", "1.98 GHz"]);
        rejected(&["--simulate", "--clock", "1e9"], &["--clock"]);
        rejected(&["--target", "model", "--trace", "/nonexistent-dir/g.json"], &["--trace", "cannot write"]);
        rejected(&["--repeat", "0"], &["--repeat"]);
        rejected(&["--arch", "a100", "--target", "model"], &["--arch", "h100, h200, b200"]);
    }
}
