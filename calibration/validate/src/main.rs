//! The validation harness: warpspec's own kernels predicted by the timing model and
//! measured on the GPU, burst and sustained, over the fixed split in `split.csv`.
//!
//! ```text
//! validate run [--gpu DIR] [--no-model] [--model-out model.csv]   predict and/or measure
//! validate fit --model model.csv --phases DIR/phases.csv           fit the power model (calibration rows only)
//! validate report --model model.csv --phases ... --status ...      tables, errors, SVG plots
//! validate op-times --gpu DIR | --compare DIR                       each source line's cycles, GPU beside model
//! ```
//!
//! `calibration/validate/run.sh` runs the GPU part on the GPU machine; `docs/validation.md`
//! has the method and the results.

mod fit;
mod gpu;
mod kernels;
mod model;
mod op_times;
mod placement;
mod report;
mod split;
mod svg;
mod table;
mod tma_ring;
mod wait_forms;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use rayon::prelude::*;
use warpspec::gpu::codegen::MarkedLines;
use warpspec::sim::Machine;

use crate::split::{Config, Set};

/// Command line.
#[derive(Parser, Debug)]
#[command(name = "validate", version, about = "warpspec's timing model against the GPU, over a fixed split")]
struct Args {
    #[command(subcommand)]
    command: Command,
}

/// Which configurations.
#[derive(clap::Args, Debug, Clone)]
struct Select {
    /// The split.
    #[arg(long, default_value = "calibration/validate/split.csv")]
    split: PathBuf,
    /// Only these families (ws_gemm, tradeoff, fa3), comma-separated.
    #[arg(long, value_delimiter = ',')]
    family: Vec<String>,
    /// Only these ids, comma-separated.
    #[arg(long, value_delimiter = ',')]
    ids: Vec<usize>,
    /// Only this set (calibration or heldout).
    #[arg(long)]
    set: Option<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Predict every selected configuration with the model and/or measure it on the GPU.
    Run {
        #[command(flatten)]
        select: Select,
        /// Write the model's predictions here (one row per configuration).
        #[arg(long, default_value = "calibration/validate/model.csv")]
        model_out: PathBuf,
        /// Do not run the model (on the GPU machine: spend its time measuring).
        #[arg(long)]
        no_model: bool,
        /// Run the model again at the predicted burst and sustained clocks (up to three times
        /// the host time).
        #[arg(long)]
        resimulate: bool,
        /// Run each configuration first at the burst clock the power model gives the counts
        /// of an earlier prediction file (counts hardly depend on the clock; configurations
        /// without a row there start at the top clock under load), then again at the burst
        /// clock of its own counts until the two agree within 1%.
        #[arg(long, conflicts_with = "clocks_from")]
        clocks_from: Option<PathBuf>,
        /// Run every selected configuration once at this SM clock, GHz (the burst and
        /// sustained figures still come from its counts): how the cycles depend on the clock.
        #[arg(long)]
        clock_ghz: Option<f64>,
        #[command(flatten)]
        overrides: Overrides,
        /// Diagnostic: every TMA load lands at its issue and moves nothing, in the model
        /// (`SimOptions::copies_free`) and on the GPU (the kernels built with
        /// `WS_COPIES_FREE`, `Cuda::without_copies`; GEMM results not checked): each
        /// configuration's time without its loads' memory cost.
        #[arg(long)]
        copies_free: bool,
        #[command(flatten)]
        compiled: Compiled,
        /// Also write, per configuration, the model's report of its burst run (`ID.txt`:
        /// time, utilisation, stall reasons per role, waits by barrier, source lines) and the
        /// timeline of SM 0's first two CTAs (`ID.json`, for the Perfetto UI) into this
        /// directory, to set beside Nsight Compute's stall sampling of the same kernel.
        #[arg(long)]
        reports: Option<PathBuf>,
        /// With --reports: the timeline records the first this many CTAs of every SM instead
        /// (the waves' epilogues side by side: `calibration/validate/epilogue_waves.py`; a
        /// file of hundreds of MB).
        #[arg(long)]
        trace_ctas: Option<u32>,
        /// Measure on GPU 0, writing phases.csv, series.csv and status.csv into this directory.
        #[arg(long)]
        gpu: Option<PathBuf>,
        /// With --gpu: launch each kernel once, unchecked and untimed, for a profiler
        /// (`NCU=1 run.sh`), instead of measuring it.
        #[arg(long)]
        profile: bool,
        /// Seconds of each sustained phase.
        #[arg(long, default_value_t = 3.0)]
        sustained_s: f64,
        /// Seconds of rest before each burst (the clock returns to boost).
        #[arg(long, default_value_t = 0.5)]
        rest_s: f64,
        /// Also measure cuBLAS at these shapes (MxNxK, comma-separated) for reference.
        #[arg(long, value_delimiter = ',')]
        cublas: Vec<String>,
    },
    /// Op timestamps: how long each source line holds the warps, on the GPU (`--gpu`: the
    /// kernel rendered with timestamps, recorded on GPU 0) and in the model (`--compare`:
    /// its timeline, beside the GPU's record in the same directory).
    OpTimes {
        #[command(flatten)]
        select: Select,
        /// Record on GPU 0 into this directory.
        #[arg(long, conflicts_with = "compare")]
        gpu: Option<PathBuf>,
        /// Run the model and compare with the GPU records in this directory.
        #[arg(long)]
        compare: Option<PathBuf>,
        #[command(flatten)]
        overrides: Overrides,
        #[command(flatten)]
        compiled: Compiled,
        /// With --gpu: record the first this many CTAs of each launch.
        #[arg(long, default_value_t = 132)]
        record_ctas: u32,
        /// Mark only the ops on these source lines (comma-separated, at most 8; the same for
        /// --gpu and --compare): fewer clock reads perturb the kernel less.
        #[arg(long, value_delimiter = ',')]
        lines: Vec<u32>,
    },
    /// Calibration item 16's TMA ring (one stage of 48 or 32 KB a CTA, 132 CTAs) on the
    /// model: each stage's latency from the producer's last box to the consumer past its wait.
    TmaRing {
        /// Cycles the consumer holds each stage, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "0,512,1024,2048")]
        holds: Vec<usize>,
        /// CTAs of the launch, one per SM (item 16 measured 1 to 132).
        #[arg(long, default_value_t = 132)]
        ctas: usize,
        /// The GEMM tile's width, which sets the stage: 256 (48 KB) or 128 (32 KB).
        #[arg(long, default_value_t = 256)]
        bn: usize,
        #[command(flatten)]
        overrides: Overrides,
    },
    /// Fit the power model's coefficients on the calibration rows.
    Fit {
        #[command(flatten)]
        select: Select,
        /// The model's predictions (for activity counts).
        #[arg(long, default_value = "calibration/validate/model.csv")]
        model: PathBuf,
        /// Measured phases (this sweep's, and earlier runs of the same kernels).
        #[arg(long, value_delimiter = ',')]
        phases: Vec<PathBuf>,
        /// Idle board power and clock at the start of the run, "W@MHz", as an extra point.
        #[arg(long)]
        idle: Option<String>,
        /// SM cycles of one launch per configuration (`ncu_clock.py`'s effective.csv): fit
        /// against the clock the SM counts cycles in, and fit the burst limit and top clock.
        #[arg(long)]
        effective: Option<PathBuf>,
    },
    /// Compile each kernel of the selection for its GPU (NVRTC, no GPU needed) and write its
    /// CUDA, CUBIN and ptxas report into a directory: the SASS the descriptor placement is
    /// read from (`calibration/sass/mma_placement.py`).
    Cubins {
        #[command(flatten)]
        select: Select,
        /// The directory to write into (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
    /// Merge predictions and measurements: results CSV, error tables, SVG plots.
    Report {
        #[command(flatten)]
        select: Select,
        /// The model's predictions.
        #[arg(long, default_value = "calibration/validate/model.csv")]
        model: PathBuf,
        /// Measured phases: this sweep's first, then earlier runs of the same kernels (used
        /// only for configurations the sweep has no figures for).
        #[arg(long, value_delimiter = ',')]
        phases: Vec<PathBuf>,
        /// Status of each measured configuration: one file per sweep, comma-separated (the
        /// first that has a configuration wins).
        #[arg(long, value_delimiter = ',', required = true)]
        status: Vec<PathBuf>,
        /// The merged CSV, one row per configuration.
        #[arg(long, default_value = "calibration/validate/results.csv")]
        out: PathBuf,
        /// Directory for the SVG plots.
        #[arg(long, default_value = "docs/validation")]
        svg_dir: PathBuf,
        /// SM cycles of one launch per configuration (`ncu_clock.py`'s effective.csv): the
        /// measured clocks become those cycles over the time per launch, and the model's
        /// cycles are compared with them.
        #[arg(long)]
        effective: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// A table of one row or more per kernel read from `path` (`--mma-placement`, `--wait-forms`),
/// if given; every configuration's kernel needs a row.
fn per_kernel_table<T>(
    path: Option<&Path>,
    parse: fn(&str) -> Result<std::collections::BTreeMap<String, T>, String>,
    configs: &[Config],
) -> Result<Option<std::collections::BTreeMap<String, T>>, String> {
    let Some(p) = path else { return Ok(None) };
    let table = parse(&read(p)?).map_err(|e| format!("{}: {e}", p.display()))?;
    with_every_kernel(table, &p.display().to_string(), configs).map(Some)
}

/// `table` (named `name` in errors), checked to have a row for every kernel of `configs`.
fn with_every_kernel<T>(
    table: std::collections::BTreeMap<String, T>,
    name: &str,
    configs: &[Config],
) -> Result<std::collections::BTreeMap<String, T>, String> {
    match configs.iter().find(|c| !table.contains_key(&c.kernel)) {
        Some(c) => Err(format!("{name}: no row for {c}'s kernel {}", c.kernel)),
        None => Ok(table),
    }
}

fn select(s: &Select) -> Result<Vec<Config>, String> {
    let all = split::parse(&read(&s.split)?)?;
    Ok(all
        .into_iter()
        .filter(|c| s.family.is_empty() || s.family.contains(&c.family))
        .filter(|c| s.ids.is_empty() || s.ids.contains(&c.id))
        .filter(|c| s.set.as_deref().is_none_or(|set| c.set.name() == set))
        .collect())
}

fn shape(s: &str) -> Result<[usize; 3], String> {
    let d: Vec<usize> = s.split(['x', 'X']).filter_map(|p| p.trim().parse().ok()).collect();
    match d[..] {
        [m, n, k] => Ok([m, n, k]),
        _ => Err(format!("{s:?} is not MxNxK")),
    }
}

fn run(args: Args) -> Result<(), String> {
    match args.command {
        Command::Run {
            select: s,
            model_out,
            no_model,
            resimulate,
            clocks_from,
            clock_ghz,
            overrides,
            copies_free,
            compiled,
            reports,
            trace_ctas,
            profile,
            gpu,
            sustained_s,
            rest_s,
            cublas,
        } => {
            let configs = select(&s)?;
            if !no_model {
                let clocks = match (&clocks_from, clock_ghz) {
                    (_, Some(ghz)) => {
                        if !(0.1..=5.0).contains(&ghz) {
                            return Err(format!("--clock-ghz {ghz}: an SM clock in GHz, 0.1 to 5"));
                        }
                        configs.iter().map(|c| (c.id, ghz)).collect()
                    }
                    (Some(p), None) => {
                        let machine = Machine::h200();
                        let acts = fit::activities(&table::Table::parse(&read(p)?)?);
                        acts.iter().map(|(&id, a)| (id, warpspec::sim::clock::burst_clock(&machine, a))).collect()
                    }
                    (None, None) => std::collections::HashMap::new(),
                };
                if trace_ctas.is_some() && reports.is_none() {
                    return Err("--trace-ctas: the timeline is written with --reports DIR".into());
                }
                let (placements, forms) = compiled.tables(&configs)?;
                let how = model::How {
                    resimulate,
                    reports: reports.as_deref(),
                    trace_ctas,
                    settle: clock_ghz.is_none(),
                    copies_free,
                    placements: placements.as_ref(),
                    wait_forms: forms.as_ref(),
                };
                predict_all(&configs, &model_out, how, &clocks, &overrides)?;
            }
            if let Some(dir) = gpu {
                measure_all(&configs, &dir, Measure { sustained_s, rest_s, profile, copies_free }, &cublas)?;
            }
            Ok(())
        }
        Command::Cubins { select: s, out } => {
            let written = placement::cubins(&select(&s)?, &out)?;
            println!("{} kernels compiled into {}: {}", written.len(), out.display(), written.join(", "));
            Ok(())
        }
        Command::OpTimes { select: s, gpu, compare, record_ctas, lines, overrides, compiled } => {
            let lines = if lines.is_empty() { None } else { Some(MarkedLines::new(&lines)?) };
            let configs = select(&s)?;
            match (gpu, compare) {
                (Some(dir), None) => op_times::record(&configs, &dir, record_ctas, lines),
                (None, Some(dir)) => {
                    let (placements, forms) = compiled.tables(&configs)?;
                    let how = model::How {
                        placements: placements.as_ref(),
                        wait_forms: forms.as_ref(),
                        ..Default::default()
                    };
                    op_times::compare(&configs, &dir, lines, &overrides.machine(), how)
                }
                _ => Err("op-times needs --gpu DIR (record) or --compare DIR (model beside the record)".into()),
            }
        }
        Command::TmaRing { holds, ctas, bn, overrides } => tma_ring::run(&holds, ctas, bn, &overrides.machine()),
        Command::Fit { select: s, model, phases, idle, effective } => {
            let configs = select(&s)?;
            let model = table::Table::parse(&read(&model)?)?;
            let mut measured = Vec::new();
            for p in &phases {
                measured.push(table::Table::parse(&read(p)?)?);
            }
            let idle = idle.map(|s| fit::parse_idle(&s)).transpose()?;
            let effective = effective.map(|p| read(&p).and_then(|t| table::Table::parse(&t))).transpose()?;
            print!("{}", fit::fit(&Machine::h200(), &configs, &model, &measured, idle, effective.as_ref())?);
            Ok(())
        }
        Command::Report { select: s, model, phases, status, out, svg_dir, effective } => {
            let configs = select(&s)?;
            let model = table::Table::parse(&read(&model)?)?;
            let phases = phases.iter().map(|p| table::Table::parse(&read(p)?)).collect::<Result<Vec<_>, _>>()?;
            let status = status.iter().map(|p| table::Table::parse(&read(p)?)).collect::<Result<Vec<_>, _>>()?;
            let effective = effective.map(|p| read(&p).and_then(|t| table::Table::parse(&t))).transpose()?;
            let cycles = effective.as_ref().map(fit::measured_cycles);
            let rows = report::merge(&Machine::h200(), &configs, &model, &phases, &status, cycles.as_ref());
            std::fs::write(&out, report::csv(&rows)).map_err(|e| format!("{}: {e}", out.display()))?;
            std::fs::create_dir_all(&svg_dir).map_err(|e| format!("{}: {e}", svg_dir.display()))?;
            for (name, text) in svg::plots(&rows) {
                let path = svg_dir.join(name);
                std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
            }
            print!("{}", report::markdown(&rows));
            Ok(())
        }
    }
}

/// What the model reads from each kernel's compiled code, per kernel (`validate run`,
/// `validate op-times --compare`).
#[derive(clap::Args, Debug, Clone, Default)]
struct Compiled {
    /// Predict each kernel with its groups' descriptor arithmetic placed as its compiled
    /// code has it, from this table (`kernel,form,counts`: `validate cubins`, then
    /// `calibration/sass/mma_placement.py`); every selected kernel needs a row. Without it,
    /// the committed table (`calibration/validate/mma_placement.csv`, compiled in).
    #[arg(long, conflicts_with = "unplaced")]
    mma_placement: Option<PathBuf>,
    /// Predict every kernel with the machine's rule for its descriptor arithmetic instead
    /// (the group at once, the arithmetic after it): the form of the predictions before the
    /// placement was adopted (`calibration/validate/h200/predict/placed_start/`).
    #[arg(long)]
    unplaced: bool,
    /// Predict each kernel with its waits' passing cost by how its compiled code addresses
    /// their barriers, from this table (`kernel,line,form,trywaits`: `validate cubins`,
    /// then `calibration/sass/wait_forms.py`); every selected kernel needs a row.
    #[arg(long)]
    wait_forms: Option<PathBuf>,
}

impl Compiled {
    /// The placement table (named, the committed one, or none with `--unplaced`) and the
    /// wait-form table named, each checked to have a row for every kernel of `configs`.
    fn tables(&self, configs: &[Config]) -> Result<(Option<placement::Placements>, Option<wait_forms::Forms>), String> {
        let placements = match (&self.mma_placement, self.unplaced) {
            (_, true) => None,
            (Some(path), false) => per_kernel_table(Some(path), placement::parse, configs)?,
            (None, false) => Some(with_every_kernel(
                placement::committed(),
                "the committed placement table (calibration/validate/mma_placement.csv; --unplaced predicts without it)",
                configs,
            )?),
        };
        Ok((placements, per_kernel_table(self.wait_forms.as_deref(), wait_forms::parse, configs)?))
    }
}

/// Parameters of the H200's description to predict with in place of its own: what the
/// model gives with them (`validate run`, `validate op-times --compare`).
#[derive(clap::Args, Debug, Clone, Default)]
struct Overrides {
    /// Predict with this L2 request coalescer window in cycles in place of the H200's
    /// (`l2.coalescing_window_cycles`; 0: no coalescer): what the model gives with it.
    #[arg(long)]
    l2_coalescing_window: Option<u32>,
    /// Predict with a `try_wait` on an already completed mbarrier phase taking this many
    /// cycles (`sync.mbarrier_passed_wait_cycles`; the H200's description charges the
    /// measured 55, calibration/README.md Item 20).
    #[arg(long)]
    pub mbarrier_passed_wait_cycles: Option<u32>,
    /// Predict with this extra latency for a TMA copy that misses L2, in cycles, in place
    /// of the H200's (`tma.miss_extra_latency_cycles`, fitted on one CTA: 120): where a
    /// schedule's timing depends on when its copies land within the loop.
    #[arg(long)]
    pub tma_miss_extra_latency: Option<u32>,
    /// Predict with this extra latency for a TMA miss while other SMs load, in cycles, in
    /// place of the H200's (`tma.miss_extra_latency_loaded_cycles`, fitted on 132 CTAs:
    /// 740).
    #[arg(long)]
    pub tma_miss_extra_latency_loaded: Option<u32>,
    /// Predict with each `wgmma` of a group issued after its own descriptor arithmetic,
    /// as the compiled code orders them (`tensor.issue.wgmma.descriptors_before_each`);
    /// `=false` predicts without, whatever the machine description says (so do the
    /// three switches below).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub wgmma_descriptors_before_each: Option<bool>,
    /// Predict with a `wgmma` group's start running from its fence, before the arithmetic
    /// of its first MMA's descriptors, where that arithmetic is placed before the MMA
    /// (`tensor.issue.wgmma.group_start_from_fence`; with `--mma-placement` or
    /// `--wgmma-descriptors-before-each`).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub wgmma_group_start_from_fence: Option<bool>,
    /// Predict with a hit on a tile whose lines an earlier load is still filling from HBM
    /// waiting for them (`l2.hit_waits_for_fill`).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    l2_hit_waits_for_fill: Option<bool>,
    /// Predict with a TMA miss's extra latency delaying its tile's fill in L2, for the
    /// hits that wait for the fill as for the missing SM (`l2.fill_takes_miss_extra`).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    l2_fill_takes_miss_extra: Option<bool>,
    /// Predict with each TMA copy streaming at an equal share of the L2 among the SMs whose
    /// data streams in when its own starts (`l2.share_among_streaming`).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    l2_share_among_streaming: Option<bool>,
    /// Predict with consecutive element-wise fragment operations issued interleaved
    /// across their pipes, as ptxas schedules them (`issue.interleave_element_wise`,
    /// `runtime/src/sim/mix.rs`), in place of one burst per operation.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub interleave_element_wise: Option<bool>,
    /// Predict with a fragment's zero fill costing nothing when the next op is an MMA
    /// accumulating into it, as ptxas folds it (`issue.fold_zero_fill`,
    /// `runtime/src/sim/fold.rs`).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub fold_zero_fill: Option<bool>,
    /// Predict with each release of a per-thread ring (the non-specialized GEMM) followed
    /// by its convergence code, a chain of 8 on every warp (`issue.release_convergence`,
    /// `runtime/src/sim/ring.rs`).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub release_convergence: Option<bool>,
    /// Predict with a uniform ring's stage and phase advance at the loop's tail, after the
    /// role's arrive on the pipeline, as the warp-specialized GEMMs' SASS has it
    /// (`issue.ring_advance_at_loop_tail`, `runtime/src/sim/ring.rs`).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub ring_advance_at_loop_tail: Option<bool>,
    /// Predict with each warp waiting this many cycles on average after each arithmetic
    /// instruction before it may issue its next (`issue.fixed_stall_cycles`, the stall
    /// counts ptxas writes: 2.2 in the FA3 consumer's loop, calibration item 39, as the
    /// H200's description has it; 1 predicts without).
    #[arg(long, value_parser = parse_fixed_stall)]
    pub fixed_stall_cycles: Option<f64>,
    /// Predict with the arithmetic that builds each `wgmma`'s descriptors holding its warp
    /// for these cycles per MMA, `SS,RS` (`tensor.issue.wgmma.descriptor_cycles_ss` and
    /// `_rs`: ptxas's fixed stalls between two MMAs of a group, 33.2,28.4 in the generated
    /// kernels, calibration item 41, as the H200's description applies them; 0,0: none).
    #[arg(long, value_parser = parse_descriptor_cycles)]
    pub wgmma_descriptor_cycles: Option<DescriptorCycles>,
    /// Predict with each placed descriptor instruction's hold multiplied by this factor while
    /// its warp's own warpgroup has an MMA group in flight
    /// (`tensor.interference.descriptor_latency_factor_own`; the H200's description: item
    /// 38's 1.60; 1: none).
    #[arg(long, value_parser = parse_factor)]
    pub descriptor_latency_factor_own: Option<f64>,
    /// Predict with running MMAs losing this many cycles per KiB a TMA tile load writes into
    /// shared memory (`tensor.interference.tile_load_delay_per_kib`; the H200's description:
    /// item 19's 0.93, measured with 1D bulk copies; 0: none).
    #[arg(long, value_parser = parse_cycles_per_kib)]
    pub tile_load_delay_per_kib: Option<f64>,
}

impl Overrides {
    /// The H200's description with these parameters in place of its own.
    fn machine(&self) -> Machine {
        let mut machine = Machine::h200();
        if let Some(window) = self.l2_coalescing_window {
            machine.l2.coalescing_window_cycles.value = window;
        }
        if let Some(cycles) = self.mbarrier_passed_wait_cycles {
            machine.sync.mbarrier_passed_wait_cycles.value = cycles;
        }
        if let Some(cycles) = self.tma_miss_extra_latency {
            machine.tma.miss_extra_latency_cycles.value = cycles;
        }
        if let Some(cycles) = self.tma_miss_extra_latency_loaded {
            machine.tma.miss_extra_latency_loaded_cycles.value = cycles;
        }
        if let warpspec::sim::machine::MmaIssue::WarpgroupWgmma {
            descriptors_before_each,
            group_start_from_fence,
            descriptor_cycles_ss,
            descriptor_cycles_rs,
            ..
        } = &mut machine.tensor.issue
        {
            if let Some(on) = self.wgmma_descriptors_before_each {
                descriptors_before_each.value = on;
            }
            if let Some(on) = self.wgmma_group_start_from_fence {
                group_start_from_fence.value = on;
            }
            if let Some(c) = self.wgmma_descriptor_cycles {
                descriptor_cycles_ss.value = c.ss;
                descriptor_cycles_rs.value = c.rs;
            }
        }
        if let Some(on) = self.l2_hit_waits_for_fill {
            machine.l2.hit_waits_for_fill.value = on;
        }
        if let Some(on) = self.l2_fill_takes_miss_extra {
            machine.l2.fill_takes_miss_extra.value = on;
        }
        if let Some(on) = self.l2_share_among_streaming {
            machine.l2.share_among_streaming.value = on;
        }
        if let Some(on) = self.interleave_element_wise {
            machine.issue.interleave_element_wise.value = on;
        }
        if let Some(on) = self.fold_zero_fill {
            machine.issue.fold_zero_fill.value = on;
        }
        if let Some(on) = self.release_convergence {
            machine.issue.release_convergence.value = on;
        }
        if let Some(on) = self.ring_advance_at_loop_tail {
            machine.issue.ring_advance_at_loop_tail.value = on;
        }
        if let Some(cycles) = self.fixed_stall_cycles {
            machine.issue.fixed_stall_cycles.value = cycles;
        }
        if let Some(factor) = self.descriptor_latency_factor_own {
            machine.tensor.interference.descriptor_latency_factor_own.value = factor;
        }
        if let Some(cycles) = self.tile_load_delay_per_kib {
            machine.tensor.interference.tile_load_delay_per_kib.value = cycles;
        }
        machine
    }
}

/// Cycles of descriptor arithmetic per `wgmma`, with both operands in shared memory and with
/// A in registers.
#[derive(Clone, Copy, Debug)]
struct DescriptorCycles {
    ss: f64,
    rs: f64,
}

/// `SS,RS`: two non-negative, finite numbers of cycles.
fn parse_descriptor_cycles(s: &str) -> Result<DescriptorCycles, String> {
    let cycles = |part: &str| not_negative(part.trim(), "cycles");
    match s.split_once(',') {
        Some((ss, rs)) => Ok(DescriptorCycles { ss: cycles(ss)?, rs: cycles(rs)? }),
        None => Err(format!("`{s}`: give the cycles per MMA as SS,RS (e.g. 33.2,28.4)")),
    }
}

/// A latency factor: at least 1 (no stretch), finite.
fn parse_factor(s: &str) -> Result<f64, String> {
    at_least_one(s, "a factor", "a latency factor is at least 1 (1: none)")
}

/// A mean fixed stall: at least one cycle (the issue cycle itself), finite.
fn parse_fixed_stall(s: &str) -> Result<f64, String> {
    at_least_one(s, "a number of cycles", "a fixed stall is at least 1 cycle (the issue cycle)")
}

/// Tensor-core cycles lost per KiB copied: finite and not negative.
fn parse_cycles_per_kib(s: &str) -> Result<f64, String> {
    not_negative(s, "cycles per KiB")
}

/// `s` as a finite, non-negative number of `unit`, or an error saying so.
fn not_negative(s: &str, unit: &str) -> Result<f64, String> {
    let value: f64 = s.parse().map_err(|e| format!("`{s}` is not a number of {unit}: {e}"))?;
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(format!("{unit} are finite and not negative, got {s}"))
    }
}

/// `s` as a finite number of at least 1, or an error naming `what` it should be and `why`.
fn at_least_one(s: &str, what: &str, why: &str) -> Result<f64, String> {
    let value: f64 = s.parse().map_err(|e| format!("`{s}` is not {what}: {e}"))?;
    if value.is_finite() && value >= 1.0 { Ok(value) } else { Err(format!("{why}, got {s}")) }
}

/// Predicts every configuration (in parallel) and writes one row each, as each finishes
/// (the file is usable while a long sweep runs).
fn predict_all(
    configs: &[Config],
    out: &Path,
    how: model::How<'_>,
    clocks: &std::collections::HashMap<usize, f64>,
    overrides: &Overrides,
) -> Result<(), String> {
    use std::io::Write;
    let machine = overrides.machine();
    if let Some(dir) = how.reports {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    writeln!(file, "id,{}", model::HEADER).map_err(|e| format!("{}: {e}", out.display()))?;
    let file = std::sync::Mutex::new(file);
    let done = std::sync::atomic::AtomicUsize::new(0);
    configs.par_iter().for_each(|c| {
        let row = match model::predict(c, &machine, how, clocks.get(&c.id).copied()) {
            Ok(p) => {
                eprintln!(
                    "  [{}/{}] {c}: burst {:.4} ms, sustained {:.4} ms at {:.3} GHz ({:.1} s)",
                    done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1,
                    configs.len(),
                    p.burst_ms,
                    p.sustained_ms,
                    p.sustained_ghz,
                    p.host_s
                );
                p.row(c.flops())
            }
            Err(e) => {
                eprintln!("  {c}: model failed: {e}");
                model::Prediction::failed(&e)
            }
        };
        if let Ok(mut f) = file.lock() {
            let _ = writeln!(f, "{},{row}", c.id);
            let _ = f.flush();
        }
    });
    Ok(())
}

/// Measures every configuration on GPU 0.
/// How [`measure_all`] measures.
struct Measure {
    /// Seconds of each sustained phase.
    sustained_s: f64,
    /// Seconds of rest before each burst.
    rest_s: f64,
    /// Launch each kernel once for a profiler instead.
    profile: bool,
    /// The kernels built without their TMA loads (`Cuda::without_copies`).
    copies_free: bool,
}

fn measure_all(configs: &[Config], dir: &Path, how: Measure, cublas: &[String]) -> Result<(), String> {
    let Measure { sustained_s, rest_s, profile, copies_free } = how;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let create = |name: &str| std::fs::File::create(dir.join(name)).map_err(|e| format!("{name}: {e}"));
    let cuda = warpspec::gpu::Cuda::new(0).map_err(|e| e.to_string())?;
    let cuda = if copies_free { cuda.without_copies() } else { cuda };
    println!("device: {}", cuda.gpu().name());
    let out = gpu::Outputs {
        phases: create("phases.csv")?,
        series: Some(create("series.csv")?),
        status: create("status.csv")?,
    };
    let mut sweep = gpu::Sweep::new(&cuda, sustained_s, rest_s, profile, out)?;
    if copies_free {
        sweep.unchecked();
    }
    // By problem shape, so the operands of one shape are generated once, with calibration and
    // held-out shapes alternating (a run cut short still has both); split order otherwise.
    const ORDER: [&str; 5] =
        ["8192x8192x8192", "6144x6144x6144", "4096x4096x4096", "12288x4096x2048", "8192x8192x1024"];
    let mut configs: Vec<&Config> = configs.iter().collect();
    configs.sort_by_key(|c| ORDER.iter().position(|s| *s == c.shape()).unwrap_or(ORDER.len()));
    let start = std::time::Instant::now();
    for (i, c) in configs.iter().enumerate() {
        println!("[{}/{}] {c} ({:.0} s)", i + 1, configs.len(), start.elapsed().as_secs_f64());
        sweep.measure(c);
    }
    for s in cublas {
        sweep.cublas(shape(s)?);
    }
    let held = configs.iter().filter(|c| c.set == Set::Heldout).count();
    println!("measured {} configurations ({held} held out) in {:.0} s", configs.len(), start.elapsed().as_secs_f64());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_cycles_take_two_non_negative_numbers() {
        let c = parse_descriptor_cycles("33.2, 28.4").expect("two numbers");
        assert_eq!((c.ss, c.rs), (33.2, 28.4));
        let c = parse_descriptor_cycles("0,0").expect("none");
        assert_eq!((c.ss, c.rs), (0.0, 0.0));
        for bad in ["33.2", "33.2,", "a,1", "-1,2", "1,inf", "1,NaN"] {
            let e = parse_descriptor_cycles(bad).expect_err(bad);
            assert!(e.contains("cycles") || e.contains("SS,RS"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_fixed_stall_is_at_least_the_issue_cycle() {
        assert_eq!(parse_fixed_stall("2.2"), Ok(2.2));
        for bad in ["0.5", "x", "inf"] {
            assert!(parse_fixed_stall(bad).is_err(), "{bad}");
        }
    }
}
