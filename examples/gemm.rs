//! Warp-specialized GEMM on the emulator: `C = A · B`, bf16 in, f32 accumulate.
//!
//! ```text
//! cargo run --release --example gemm -- [M N K] [--race-detection] [--repeat N]
//! ```
//! Runs the kernel of `warpspec_examples::gemm` on random inputs, checks it against an f64
//! reference and prints the error and the emulation's throughput. `--race-detection` turns
//! the emulator's race detector on (release builds run without it); `--repeat N` runs the
//! launch N times and reports the median throughput.
//!
//! ```text
//! cargo run --release --example gemm -- --simulate [--arch h100|h200|b200] [--clock GHz]
//!     [--policy gto|lrr] [--trace FILE] [M N K]
//! ```
//! Times the same kernel on the cycle-level model instead (shape-only tensors, default
//! 8192³ on h100) and prints the report; `--trace` writes the timeline of the first CTAs of
//! SM 0: a self-contained HTML page for `FILE.html`, an SVG for `FILE.svg` (open either in a
//! browser), Chrome trace-event JSON otherwise (open it in <https://ui.perfetto.dev>).

use std::process::ExitCode;

use warpspec::emu::{self, EmuOptions};
use warpspec_examples::gemm;
use warpspec_examples::reference::{errors, matmul_f64, random_values, round_bf16};

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("--simulate") {
        return simulate_main(std::env::args().skip(2).collect());
    }
    const USAGE: &str = "usage: gemm [M N K] [--race-detection] [--repeat N]";
    let mut dims = Vec::new();
    let mut options = EmuOptions::default();
    let mut repeat = 1;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--race-detection" => options.race_detection = true,
            "--repeat" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => repeat = n,
                _ => {
                    eprintln!("{USAGE}");
                    return ExitCode::FAILURE;
                }
            },
            other => match other.parse() {
                Ok(dim) => dims.push(dim),
                Err(_) => {
                    eprintln!("{USAGE}");
                    return ExitCode::FAILURE;
                }
            },
        }
    }
    let [m, n, k] = match dims.as_slice() {
        [] => [512, 512, 512],
        &[m, n, k] => [m, n, k],
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    let a = round_bf16(&random_values(m * k, 1));
    let b = round_bf16(&random_values(k * n, 2));
    let launch = gemm::args(m, n, k, &a, &b).map_err(emu::EmuError::from).and_then(|args| {
        let mut reports = Vec::with_capacity(repeat);
        for _ in 0..repeat {
            reports.push(emu::run_with::<gemm::ws_gemm::Kernel>(gemm::grid(m, n), &args, &options)?);
        }
        Ok((args.c.to_f32_vec().unwrap_or_default(), reports))
    });
    let (c, mut reports) = match launch {
        Ok(result) => result,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    reports.sort_by_key(|r| r.wall);
    let report = &reports[reports.len() / 2];
    let (max_err, rel_err) = errors(&c, &matmul_f64(m, n, k, &a, &b));
    let detection = if options.race_detection { "on" } else { "off" };
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
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

// ---- timing mode (`--simulate`) ----

/// `gemm --simulate ...`: times the kernel on the timing model and prints the report.
fn simulate_main(args: Vec<String>) -> ExitCode {
    use warpspec::dsl::Global;
    use warpspec::sim::{self, Machine, SchedulerPolicy, SimOptions, TraceOptions};

    const USAGE: &str =
        "usage: gemm --simulate [--arch h100|h200|b200] [--clock GHz] [--policy gto|lrr] [--trace FILE] [M N K]";
    let mut machine = Machine::h100_sxm();
    let mut opts = SimOptions::default().with_stderr_progress();
    let mut trace_file = None;
    let mut dims = Vec::new();
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{arg} needs a value\n{USAGE}"));
        let parsed: Result<(), String> = match arg.as_str() {
            "--arch" => value().and_then(|v| {
                machine = Machine::by_name(&v).ok_or(format!("unknown architecture `{v}`: use h100, h200 or b200"))?;
                Ok(())
            }),
            "--clock" => value().and_then(|v| {
                opts.clock_ghz = Some(v.parse().map_err(|_| format!("--clock takes GHz, not `{v}`"))?);
                Ok(())
            }),
            "--policy" => value().and_then(|v| {
                opts.policy = match v.as_str() {
                    "gto" => SchedulerPolicy::GreedyThenOldest,
                    "lrr" => SchedulerPolicy::LooseRoundRobin,
                    _ => return Err(format!("unknown policy `{v}`: use gto or lrr")),
                };
                Ok(())
            }),
            "--trace" => value().map(|v| {
                trace_file = Some(v);
                opts.trace = Some(TraceOptions::default());
            }),
            _ => arg.parse::<usize>().map(|d| dims.push(d)).map_err(|_| format!("unexpected `{arg}`\n{USAGE}")),
        };
        if let Err(e) = parsed {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    }
    let [m, n, k] = match dims.as_slice() {
        [] => [8192, 8192, 8192],
        &[m, n, k] if m > 0 && n > 0 && k > 0 => [m, n, k],
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::FAILURE;
        }
    };
    let args = gemm::ws_gemm::Args {
        a: Global::shape_only(&[m, k]),
        b: Global::shape_only(&[k, n]),
        c: Global::shape_only(&[m, n]),
    };
    println!("warp-specialized GEMM {m}x{n}x{k} (bf16 in, f32 accumulate) on the timing model");
    let report = match sim::simulate::<gemm::ws_gemm::Kernel>(&machine, gemm::grid(m, n), &args, &opts) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    println!("{report}");
    if let (Some(path), Some(trace)) = (trace_file, &report.trace) {
        let ext = std::path::Path::new(&path).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        let (written, open_in) = match ext.as_deref() {
            Some("html") => (trace.write_html(&path), "a browser"),
            Some("svg") => (trace.write_svg(&path), "a browser"),
            _ => (trace.write_chrome_json(&path), "https://ui.perfetto.dev"),
        };
        if let Err(e) = written {
            eprintln!("cannot write the trace to {path}: {e}");
            return ExitCode::FAILURE;
        }
        println!("trace written to {path} (open it in {open_in})");
    }
    ExitCode::SUCCESS
}
