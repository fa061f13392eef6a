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
use warpspec_examples::cli::{self, Arch, ModelArgs, TargetKind};
use warpspec_examples::gemm;
use warpspec_examples::reference::{errors, matmul_f64, random_values, round_bf16};

/// Warp-specialized GEMM `C = A · B` (bf16 in, f32 accumulate): checked on the emulator, or
/// timed on the model.
#[derive(Parser, Debug)]
struct Options {
    /// Problem size [default: 512 512 512 on the emulator, 8192 8192 8192 on the model].
    #[arg(num_args = 3, value_names = ["M", "N", "K"])]
    dims: Option<Vec<usize>>,
    /// Where the kernel runs.
    #[arg(long, value_enum, default_value_t = TargetKind::Emu)]
    target: TargetKind,
    /// The older spelling of `--target model`.
    #[arg(long, hide = true)]
    simulate: bool,
    /// Emulator: turn the race detector on (release builds run without it).
    #[arg(long)]
    race_detection: bool,
    /// Emulator: launches to run; the median throughput is reported.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// The timing model (`--target model`).
    #[command(flatten)]
    model: ModelArgs,
}

fn main() -> ExitCode {
    cli::exit_code(run(cli::parse_with_arch(Arch::H100)))
}

fn run(options: Options) -> Result<bool, String> {
    let target = if options.simulate { TargetKind::Model } else { options.target };
    let dims = |default| match options.dims.as_deref() {
        None => Ok([default; 3]),
        Some(&[m, n, k]) if m > 0 && n > 0 && k > 0 => Ok([m, n, k]),
        Some(dims) => Err(format!("every dimension must be at least 1, not {dims:?}")),
    };
    // The GEMM renders to CUDA (`warpspec::gpu::codegen`), so it runs on the GPU target.
    if target == TargetKind::Gpu {
        return check_on_gpu(dims(512)?);
    }
    if let Some(e) = target.unavailable() {
        return Err(e);
    }
    match target {
        TargetKind::Model => time_on_model(&options, dims(8192)?),
        _ => check_on_emulator(&options, dims(512)?),
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
