//! When is warp specialization needed? The three GEMMs of `shared/reference/seeds.md`
//! section 1 (warp-specialized, non-specialized v1 and v2; see
//! `warpspec_examples::gemm_tradeoff`) side by side.
//!
//! ```text
//! cargo run --release --example gemm_tradeoff [-- --size S] [--arch h100|h200|b200]
//! cargo run --release --example gemm_tradeoff -- [--size S] --trace VARIANT:TILE:PIPE FILE
//! ```
//! First checks every stamped kernel on the emulator against an f64 reference (512 x 512 x
//! 416: 13 k-steps, a multiple of no stage count), then times the variants on the H100 SXM
//! model (or the `--arch` machine: a Hopper one, h100 or h200, since the kernels issue
//! `wgmma`) for an `S x S x S` GEMM (default 8192) and prints Markdown tables: TFLOP/s side by
//! side over the stage count `PIPE` (256 x 256 tile) and over tile shapes (`PIPE` 2 and 4),
//! then every run with its tensor-core, TMA, L2 and HBM utilisation and the dominant stall
//! reasons of its roles. Besides the three variants, the tables show v1 and v2 with a
//! `bar.sync` of both warpgroups every step (`v1+bar.sync`, `v2+bar.sync`).
//! `docs/gemm-tradeoff.md` discusses the results.
//!
//! With `--target gpu`, runs them on a GPU instead (the kernels rendered to CUDA): checks every
//! stamp that renders against the same f64 reference, then measures each at `S x S x S`
//! (burst and sustained, SM clock and power) beside the model's prediction.
//!
//! With `--trace` (for example `--trace v1:256x256:4 v1.json`), times that one kernel instead
//! and writes the timeline of the first two CTAs of SM 0 as Chrome trace-event JSON (open it
//! in <https://ui.perfetto.dev>; `.html` or `.svg` files open in a browser): tensor-core and
//! TMA spans beside each warp's waits. `--help` lists every option.

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use rayon::prelude::*;
use warpspec::gpu::bench::{Bench, BenchConfig, Phase};
use warpspec::gpu::{Cuda, CudaError};
use warpspec::report::{RoleStalls, SimReport, StallReason};
use warpspec::sim::machine::MmaIssue;
use warpspec::sim::{Machine, SimOptions, TraceOptions};
use warpspec_examples::cli::{self, Arch, ArchArgs, Given, TargetKind, Validate};
use warpspec_examples::gemm_tradeoff::{self, Config, STAMPED, TileShape, Variant};
use warpspec_examples::reference::{errors, matmul_f64, random_values, round_bf16};

/// The command that regenerates the tables.
const COMMAND: &str = "cargo run --release --example gemm_tradeoff";
/// Problem of the emulator check.
const CHECK_DIMS: [usize; 3] = [512, 512, 416];
/// Error of the emulator check relative to max |C| (f32 accumulation of bf16 products).
const TOLERANCE: f64 = 1e-5;
/// The tile of the stage sweep.
const MAIN_TILE: TileShape = TileShape { m: 256, n: 256 };
/// The stage counts of the tile sweep.
const TILE_PIPES: [usize; 2] = [2, 4];
/// Warp-specialized vs non-specialized GEMMs: checked on the emulator, then timed side by side
/// on the model.
#[derive(Parser, Debug)]
struct Options {
    /// The timed GEMM is `SIZE x SIZE x SIZE` (at least 1; its grid must fit a launch).
    #[arg(long, default_value_t = 8192, value_parser = clap::value_parser!(u32).range(1..))]
    size: u32,
    /// The machine: a Hopper one (h100, h200), since the kernels issue `wgmma`.
    #[command(flatten)]
    arch: ArchArgs,
    /// Time only this kernel (as `v1:256x256:4`) and write its timeline to FILE (format by
    /// extension: `.html`, `.svg`, Chrome trace-event JSON otherwise).
    #[arg(long, num_args = 2, value_names = ["VARIANT:TILE:PIPE", "FILE"])]
    trace: Option<Vec<String>>,
    /// Where the kernels run: `emu` (checked on the emulator, then timed on the model), `model`
    /// (the same) or `gpu` (checked and measured on a GPU, beside the model).
    #[arg(long, value_enum, default_value_t = TargetKind::Emu, conflicts_with = "trace")]
    target: TargetKind,
    /// Seconds of the sustained phase of each GPU measurement (`--target gpu`).
    #[arg(long, default_value_t = 3.0)]
    sustained_s: f64,
}

impl Validate for Options {
    fn validate(&self, given: &Given<'_>) -> Result<(), String> {
        if self.target != TargetKind::Gpu && given.has("sustained_s") {
            return Err("--sustained-s applies to --target gpu only".into());
        }
        cli::check_sustained_seconds(self.sustained_s)?;
        let size = self.size as usize;
        gemm_tradeoff::check_problem([size; 3]).map_err(|e| format!("--size {size}: {e}"))?;
        if matches!(self.arch.machine().tensor.issue, MmaIssue::SingleThreadTcgen05 { .. }) {
            return Err(format!(
                "--arch {}: the trade-off kernels issue wgmma, which it does not have; accepted: h100, h200",
                self.arch.arch.name()
            ));
        }
        if let Some([kernel, file]) = self.trace.as_deref() {
            parse_config(kernel).map_err(|e| format!("--trace: {e}"))?;
            cli::check_trace_path("--trace", Path::new(file))?;
        }
        Ok(())
    }
}

fn main() -> ExitCode {
    cli::exit_code(run(cli::parse_with_arch(Arch::H100)))
}

fn run(options: Options) -> Result<bool, String> {
    let size = options.size as usize;
    let machine = options.arch.machine();
    if let Some([kernel, file]) = options.trace.as_deref() {
        write_trace(parse_config(kernel)?, size, &machine, Path::new(file))?;
        return Ok(true);
    }
    if options.target == TargetKind::Gpu {
        return run_on_gpu(size, &machine, options.sustained_s);
    }
    check_on_emulator()?;
    let runs = time_on_model(size, &machine)?;
    print_tables(size, options.arch.arch, &runs);
    Ok(true)
}

/// `VARIANT:MxN:PIPE`, as `v1:256x256:4`.
fn parse_config(text: &str) -> Result<Config, String> {
    let bad = || format!("bad kernel `{text}`: expected VARIANT:MxN:PIPE, as `v1:256x256:4`");
    let [variant, tile, pipe] = text.split(':').collect::<Vec<_>>()[..] else { return Err(bad()) };
    let variant = Variant::ALL.into_iter().find(|v| v.name() == variant).ok_or_else(bad)?;
    let (m, n) = tile.split_once('x').ok_or_else(bad)?;
    let tile = TileShape { m: m.parse().map_err(|_| bad())?, n: n.parse().map_err(|_| bad())? };
    Ok(Config { variant, tile, pipe: pipe.parse().map_err(|_| bad())? })
}

/// Times `config` alone and writes its timeline to `file`.
fn write_trace(config: Config, size: usize, machine: &Machine, file: &Path) -> Result<(), String> {
    let opts = SimOptions::default().with_trace(TraceOptions::default());
    let report = gemm_tradeoff::simulate(config, [size; 3], machine, &opts)
        .map_err(|e| format!("{config} on the timing model: {e}"))?;
    println!("{report}");
    let trace = report.trace.as_ref().ok_or("the run recorded no timeline")?;
    let open_in = cli::write_trace(trace, file)?;
    println!("trace written to {} (open it in {open_in})", file.display());
    Ok(())
}

/// Runs every variant of every stamped kernel on the emulator against the f64 product.
fn check_on_emulator() -> Result<(), String> {
    let [m, n, k] = CHECK_DIMS;
    let a = round_bf16(&random_values(m * k, 1));
    let b = round_bf16(&random_values(k * n, 2));
    let want = matmul_f64(m, n, k, &a, &b);
    println!("emulator check, {m}x{n}x{k} against an f64 reference:");
    for &(tile, pipe) in STAMPED {
        let mut line = format!("  {tile} PIPE={pipe}:");
        for variant in Variant::ALL {
            let config = Config { variant, tile, pipe };
            let (c, _) = gemm_tradeoff::emulate(config, CHECK_DIMS, &a, &b).map_err(|e| format!("{config}: {e}"))?;
            let (_, rel) = errors(&c, &want);
            if rel > TOLERANCE {
                return Err(format!("{config}: error {rel:.3e} relative to max |C|, above {TOLERANCE:e}"));
            }
            line += &format!("  {variant} {rel:.1e}");
        }
        println!("{line}");
    }
    Ok(())
}

/// `--target gpu`: every stamp that renders for the GPU, checked against f64, then measured
/// at `size`³ beside the model's prediction; a Markdown table.
fn run_on_gpu(size: usize, machine: &Machine, sustained_s: f64) -> Result<bool, String> {
    let cuda = Cuda::new(0).map_err(|e| e.to_string())?;
    let [m, n, k] = CHECK_DIMS;
    let a = round_bf16(&random_values(m * k, 1));
    let b = round_bf16(&random_values(k * n, 2));
    let want = matmul_f64(m, n, k, &a, &b);
    println!("GPU check on {}, {m}x{n}x{k} against an f64 reference:", cuda.gpu().name());
    let mut rendered = Vec::new();
    for &(tile, pipe) in STAMPED {
        for variant in Variant::ALL {
            let config = Config { variant, tile, pipe };
            match gemm_tradeoff::with_gpu(&cuda, config, CHECK_DIMS, &a, &b, |p| p.run().map(drop)) {
                Ok((c, ())) => {
                    let (_, rel) = errors(&c, &want);
                    if rel > TOLERANCE {
                        return Err(format!("{config} on the GPU: error {rel:.3e} relative to max |C|"));
                    }
                    rendered.push(config);
                }
                // A stamp the generator refuses (a 128-row f32 accumulator per warpgroup
                // needs more registers than a thread has) is listed, not fatal.
                Err(CudaError::Codegen(e)) => println!("  {config}: not run: {e}"),
                Err(e) => return Err(format!("{config} on the GPU: {e}")),
            }
        }
    }
    println!("  {} kernels within {TOLERANCE:e} of the reference", rendered.len());
    let config = BenchConfig { sustained: Duration::from_secs_f64(sustained_s), ..BenchConfig::default() };
    let mut bench = Bench::new(cuda.gpu(), config).map_err(|e| e.to_string())?;
    let a = round_bf16(&random_values(size * size, 3));
    let b = round_bf16(&random_values(size * size, 4));
    let flop = 2.0 * (size as f64).powi(3);
    println!("\nGEMM {size}³ on {} ({}), model: {}", cuda.gpu().name(), bench.telemetry(), machine.full_name);
    println!("\n| variant | tile | PIPE | GPU burst TFLOP/s (MHz) | GPU sustained TFLOP/s (MHz) | model TFLOP/s |");
    println!("|---|---|---|---|---|---|");
    for config in rendered {
        let label = format!("{config} {size}^3");
        let (_, m) = gemm_tradeoff::with_gpu(&cuda, config, [size; 3], &a, &b, |p| {
            bench.measure(&label, Some(flop), || p.enqueue()).map_err(CudaError::Gpu)
        })
        .map_err(|e| format!("{config} on the GPU: {e}"))?;
        let model = gemm_tradeoff::simulate(config, [size; 3], machine, &SimOptions::default())
            .map_err(|e| format!("{config} on the timing model: {e}"))?;
        let cell = |p: &Phase| {
            let clock = p.clocks.map_or("-".into(), |c| format!("{:.0}", c.sm_steady_mhz));
            format!("{:.0} ({clock})", m.tflops(p.steady_ms).unwrap_or(0.0))
        };
        println!(
            "| {} | {} | {} | {} | {} | {:.0} |",
            config.variant,
            config.tile,
            config.pipe,
            cell(&m.burst),
            cell(&m.sustained),
            model.tflops()
        );
    }
    Ok(true)
}

/// Times every variant of every stamped kernel on `machine`, two at a time.
fn time_on_model(size: usize, machine: &Machine) -> Result<Vec<(Config, SimReport)>, String> {
    let opts = SimOptions::default();
    let configs: Vec<Config> =
        STAMPED.iter().flat_map(|&(tile, pipe)| Variant::ALL.map(|variant| Config { variant, tile, pipe })).collect();
    eprintln!("timing {} runs of {size}^3 on {} ...", configs.len(), machine.full_name);
    configs
        .into_par_iter()
        .map(|config| {
            let report = gemm_tradeoff::simulate(config, [size; 3], machine, &opts)
                .map_err(|e| format!("{config} on the timing model: {e}"))?;
            eprintln!("  {config}: {:.1} TFLOP/s ({:.1} s host)", report.tflops(), report.host.wall.as_secs_f64());
            Ok((config, report))
        })
        .collect()
}

/// Share of `role`'s warp-cycles in `reason`.
fn share(role: &RoleStalls, reason: StallReason) -> f64 {
    role.cycles.get(reason) as f64 / role.cycles.total().max(1) as f64
}

/// `role: reason 61%, reason 38%`: the reasons above 5% of the role's warp-cycles.
fn dominant_stalls(role: &RoleStalls) -> String {
    let mut reasons: Vec<StallReason> = StallReason::ALL.into_iter().filter(|&r| share(role, r) >= 0.05).collect();
    reasons.sort_by(|&x, &y| share(role, y).total_cmp(&share(role, x)));
    let parts: Vec<String> = reasons.iter().map(|&r| format!("{r} {:.0}%", 100.0 * share(role, r))).collect();
    format!("{}: {}", role.role, parts.join(", "))
}

/// The run of `variant` at `tile` and `pipe`, if it was timed.
fn find(runs: &[(Config, SimReport)], variant: Variant, tile: TileShape, pipe: usize) -> Option<&SimReport> {
    runs.iter().find(|(c, _)| *c == Config { variant, tile, pipe }).map(|(_, r)| r)
}

/// One row of a side-by-side table: TFLOP/s (% of peak) of each variant.
fn side_by_side(runs: &[(Config, SimReport)], label: String, tile: TileShape, pipe: usize) -> String {
    let cells: Vec<String> = Variant::ALL
        .iter()
        .map(|&v| {
            find(runs, v, tile, pipe).map_or("-".into(), |r| format!("{:.0} ({:.0}%)", r.tflops(), r.percent_of_peak()))
        })
        .collect();
    format!("| {label} | {} |", cells.join(" | "))
}

/// The header of a side-by-side table whose rows are labelled `label`.
fn header(label: &str) -> String {
    let names: Vec<&str> = Variant::ALL.iter().map(|v| v.name()).collect();
    format!("| {label} | {} |\n|---|{}", names.join(" | "), "---|".repeat(names.len()))
}

/// Prints the tables in Markdown.
fn print_tables(size: usize, arch: Arch, runs: &[(Config, SimReport)]) {
    let Some((_, first)) = runs.first() else { return };
    let mut flags = String::new();
    if size != 8192 {
        flags += &format!(" --size {size}");
    }
    if arch != Arch::H100 {
        flags += &format!(" --arch {}", arch.name());
    }
    let command = if flags.is_empty() { COMMAND.to_string() } else { format!("{COMMAND} --{flags}") };
    println!();
    println!(
        "GEMM {size}x{size}x{size}, bf16 in, f32 accumulate, BK = {}, on the {} model ({} SMs at {:.2} GHz, \
         dense bf16 peak {:.1} TFLOP/s). Regenerate with `{command}`.",
        gemm_tradeoff::BK,
        first.machine,
        first.sms,
        first.clock_ghz,
        first.peak_tflops
    );
    println!();
    println!("TFLOP/s (% of peak), tile {MAIN_TILE}, over PIPE:");
    println!();
    println!("{}", header("PIPE"));
    for &(tile, pipe) in STAMPED.iter().filter(|(tile, _)| *tile == MAIN_TILE) {
        println!("{}", side_by_side(runs, pipe.to_string(), tile, pipe));
    }
    println!();
    println!("TFLOP/s (% of peak), over tiles at PIPE {TILE_PIPES:?}:");
    println!();
    println!("{}", header("tile, PIPE"));
    let mut tiles: Vec<TileShape> = STAMPED.iter().map(|&(tile, _)| tile).collect();
    tiles.dedup();
    for tile in tiles {
        for pipe in TILE_PIPES {
            println!("{}", side_by_side(runs, format!("{tile}, {pipe}"), tile, pipe));
        }
    }
    println!();
    println!("Every run (utilisation over all SMs and the whole run; stalls: share of each role's warp-cycles):");
    println!();
    println!("| variant | tile | PIPE | TFLOP/s | tensor | TMA | L2 | HBM | dominant stalls |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for (config, r) in runs {
        use warpspec::report::Unit;
        let u = &r.utilisation;
        let stalls: Vec<String> = r.roles.iter().map(dominant_stalls).collect();
        println!(
            "| {} | {} | {} | {:.0} | {:.1}% | {:.1}% | {:.1}% | {:.1}% | {} |",
            config.variant,
            config.tile,
            config.pipe,
            r.tflops(),
            100.0 * u[Unit::TensorCores],
            100.0 * u[Unit::Tma],
            100.0 * u[Unit::L2],
            100.0 * u[Unit::Hbm],
            stalls.join("; ")
        );
    }
}

#[cfg(test)]
mod tests {
    use warpspec_examples::cli::{one_line, try_parse_from};

    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        let args = std::iter::once("gemm_tradeoff").chain(args.iter().copied());
        try_parse_from(Some(Arch::H100), args).map_err(|e| one_line(&e))
    }

    #[test]
    fn arguments_are_checked_before_the_emulator_runs() {
        assert!(parse(&["--size", "4096", "--arch", "h200"]).is_ok());
        assert!(parse(&["--arch", "b200"]).unwrap_err().contains("--arch b200: the trade-off kernels issue wgmma"));
        assert!(parse(&["--size", "0"]).is_err());
        assert!(parse(&["--size", "4000000000"]).unwrap_err().contains("--size 4000000000"));
        let err = parse(&["--trace", "v9:1x1:1", "x.json"]).unwrap_err();
        assert!(err.contains("--trace: bad kernel `v9:1x1:1`"), "{err}");
        let err = parse(&["--trace", "v1:256x256:4", "/nonexistent-dir/v1.json"]).unwrap_err();
        assert!(err.contains("cannot write"), "{err}");
        let err = parse(&["--sustained-s", "2"]).unwrap_err();
        assert!(err.contains("--sustained-s applies to --target gpu only"), "{err}");
        assert!(parse(&["--target", "gpu", "--sustained-s", "2"]).is_ok());
        assert!(parse(&["--target", "gpu", "--sustained-s", "0.5"]).unwrap_err().contains("steady window"));
        let err = parse(&["--target", "gpu", "--trace", "v1:256x256:4", "v1.json"]).unwrap_err();
        assert!(err.contains("cannot be used with"), "{err}");
    }
}
