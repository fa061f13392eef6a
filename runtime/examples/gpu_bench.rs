//! cuBLAS bf16 GEMM measured with the GPU harness (`warpspec::gpu::bench`): burst and
//! sustained TFLOP/s at each size, with the mean SM clock and board power during each.
//! These are the figures `ws_gemm` is compared with, and inputs of the clock/power model.
//!
//! Before timing, a small GEMM is checked against an f64 CPU reference (layout and
//! precision). Inputs are random bf16 in [-1, 1) (never zeros: they run faster).
//!
//! Run: `cargo run --release -p warpspec --example gpu_bench -- --csv out.csv` on a machine
//! with an NVIDIA GPU and cuBLAS 13 on the loader path; `--help` lists the options.

use clap::Parser;
use half::bf16;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::process::ExitCode;
use std::time::Duration;
use warpspec::gpu::bench::{Bench, BenchConfig, Measurement, render};
use warpspec::gpu::{Cublas, DeviceBuffer, Gpu, GpuError};

/// One GEMM problem, `MxNxK`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Size {
    m: usize,
    n: usize,
    k: usize,
}

impl std::str::FromStr for Size {
    type Err = String;
    fn from_str(s: &str) -> Result<Size, String> {
        let parts: Vec<&str> = s.split(['x', 'X']).collect();
        let dims: Vec<usize> = parts.iter().filter_map(|p| p.trim().parse().ok()).filter(|&d| d > 0).collect();
        match dims[..] {
            [m, n, k] if parts.len() == 3 => Ok(Size { m, n, k }),
            _ => Err(format!("{s:?} is not MxNxK with three positive extents, e.g. 8192x8192x1024")),
        }
    }
}

/// Burst and sustained cuBLAS bf16 GEMM throughput with SM clock and board power.
#[derive(Parser, Debug)]
#[command(name = "gpu_bench", version)]
struct Args {
    /// GEMM sizes MxNxK (C = A·Bᵀ, row-major, bf16 in and out, fp32 accumulation).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "8192x8192x8192,4096x4096x4096,16384x16384x4096,8192x8192x1024"
    )]
    sizes: Vec<Size>,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    device: i32,
    /// Untimed iterations before the burst.
    #[arg(long, default_value_t = 10)]
    warmup: usize,
    /// Timed iterations of the burst.
    #[arg(long, default_value_t = 10)]
    burst: usize,
    /// Least seconds of GPU time of the sustained phase.
    #[arg(long, default_value_t = 5.0)]
    sustained_s: f64,
    /// The sustained figure is the mean over this last stretch, seconds.
    #[arg(long, default_value_t = 1.0)]
    window_s: f64,
    /// Milliseconds of work between two events of the sustained phase.
    #[arg(long, default_value_t = 50.0)]
    chunk_ms: f64,
    /// Idle milliseconds before each workload, so its burst starts from the boost clock.
    #[arg(long, default_value_t = 1000.0)]
    rest_ms: f64,
    /// NVML sampling interval, milliseconds.
    #[arg(long, default_value_t = 10.0)]
    sample_ms: f64,
    /// Write one CSV row per phase here.
    #[arg(long)]
    csv: Option<std::path::PathBuf>,
    /// Write the time series (chunks and device readings) here as CSV.
    #[arg(long)]
    series_csv: Option<std::path::PathBuf>,
    /// Seed of the random inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn seconds(s: f64, what: &str) -> Result<Duration, String> {
    Duration::try_from_secs_f64(s).map_err(|_| format!("--{what} must be a non-negative number of seconds, not {s}"))
}

fn config(args: &Args) -> Result<BenchConfig, String> {
    Ok(BenchConfig {
        warmup: args.warmup,
        burst: args.burst,
        sustained: seconds(args.sustained_s, "sustained-s")?,
        window: seconds(args.window_s, "window-s")?,
        chunk: seconds(args.chunk_ms / 1e3, "chunk-ms")?,
        rest: seconds(args.rest_ms / 1e3, "rest-ms")?,
        sample_every: seconds(args.sample_ms / 1e3, "sample-ms")?,
        ..BenchConfig::default()
    })
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let config = config(args)?;
    config.validate()?;
    let gpu = Gpu::new(args.device)?;
    let cublas = Cublas::new(&gpu)?;
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    check(&gpu, &cublas, &mut rng)?;
    let mut bench = Bench::new(&gpu, config)?;
    println!("device: {}; {}", gpu.name(), bench.telemetry());
    let mut results: Vec<Measurement> = Vec::new();
    for &Size { m, n, k } in &args.sizes {
        let a = gpu.upload(&random(&mut rng, m * k))?;
        let b = gpu.upload(&random(&mut rng, n * k))?;
        let c = gpu.alloc::<bf16>(m * n)?;
        let name = format!("cublas bf16 {m}x{n}x{k}");
        let flop = 2.0 * m as f64 * n as f64 * k as f64;
        let measured = bench.measure(&name, Some(flop), || cublas.gemm_bf16_tn(&a, &b, &c, (m, n, k)))?;
        print!("{}", render::details(&measured));
        results.push(measured);
    }
    println!();
    print!("{}", render::table(&results));
    println!(
        "(ms per iteration: burst median; sustained mean over the last {:.1} s; SM MHz and W the means over the same stretch; tau the time constant of the SM clock's drop)",
        args.window_s
    );
    if let Some(path) = &args.csv {
        let rows: Vec<String> = results.iter().flat_map(render::phase_rows).collect();
        std::fs::write(path, format!("{}\n{}\n", render::PHASE_HEADER, rows.join("\n")))?;
    }
    if let Some(path) = &args.series_csv {
        let rows: Vec<String> = results.iter().flat_map(render::series_rows).collect();
        std::fs::write(path, format!("{}\n{}\n", render::SERIES_HEADER, rows.join("\n")))?;
    }
    Ok(())
}

fn random(rng: &mut ChaCha8Rng, len: usize) -> Vec<bf16> {
    (0..len).map(|_| bf16::from_f32(rng.gen_range(-1.0f32..1.0))).collect()
}

/// A 256 x 384 x 512 GEMM against an f64 reference over the same bf16 inputs; bf16 output
/// rounding bounds the relative error by about 2^-8.
fn check(gpu: &Gpu, cublas: &Cublas, rng: &mut ChaCha8Rng) -> Result<(), Box<dyn std::error::Error>> {
    let (m, n, k) = (256, 384, 512);
    let (ha, hb) = (random(rng, m * k), random(rng, n * k));
    let (a, b, c): (_, _, DeviceBuffer<bf16>) = (gpu.upload(&ha)?, gpu.upload(&hb)?, gpu.alloc(m * n)?);
    gpu.fill_bytes(&c, 0xff)?; // NaN: an element left unwritten fails the check
    cublas.gemm_bf16_tn(&a, &b, &c, (m, n, k))?;
    let out = gpu.download(&c)?;
    let (mut err, mut norm) = (0.0f64, 0.0f64);
    for i in 0..m {
        for j in 0..n {
            let r: f64 = (0..k).map(|p| f64::from(ha[i * k + p].to_f32()) * f64::from(hb[j * k + p].to_f32())).sum();
            let got = f64::from(out[i * n + j].to_f32());
            err += (got - r).powi(2);
            norm += r * r;
        }
    }
    let rel = (err / norm).sqrt();
    println!("check: cuBLAS bf16 {m}x{n}x{k} against f64, relative error {rel:.2e}");
    if rel.is_finite() && rel < 4e-3 {
        Ok(())
    } else {
        Err(Box::new(GpuError::InvalidArgument(format!("cuBLAS check failed: relative error {rel:.2e}"))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn help_lists_every_option_and_exits_as_help() {
        Args::command().debug_assert();
        let err = Args::try_parse_from(["gpu_bench", "--help"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::DisplayHelp);
        assert_eq!(err.exit_code(), 0);
        let help = err.to_string();
        for opt in ["--sizes", "--sustained-s", "--window-s", "--chunk-ms", "--csv", "--series-csv", "--burst"] {
            assert!(help.contains(opt), "{opt} missing from --help");
        }
    }

    #[test]
    fn sizes_parse_and_bad_sizes_are_errors() {
        let args = Args::try_parse_from(["gpu_bench", "--sizes", "8192x8192x1024,64X32X16"]).unwrap();
        assert_eq!(args.sizes, vec![Size { m: 8192, n: 8192, k: 1024 }, Size { m: 64, n: 32, k: 16 }]);
        assert_eq!(Args::try_parse_from(["gpu_bench"]).unwrap().sizes.len(), 4);
        for bad in ["8192x8192", "0x1x1", "axbxc", "1x2x3x4"] {
            assert!(Args::try_parse_from(["gpu_bench", "--sizes", bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn bad_durations_are_errors() {
        let args = Args::try_parse_from(["gpu_bench", "--sustained-s=-1"]).unwrap();
        assert!(config(&args).unwrap_err().contains("--sustained-s"));
        let args = Args::try_parse_from(["gpu_bench", "--window-s", "9"]).unwrap();
        assert!(config(&args).unwrap().validate().is_err());
    }
}
