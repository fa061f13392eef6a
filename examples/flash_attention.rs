//! Five-role flash attention (Blackwell style) with FlashAttention-4's softmax techniques:
//! checked on the emulator, then timed.
//!
//! ```text
//! cargo run --release --example flash_attention -- [--causal] [--seq 4096] [--head-dim 128] [--arch b200] [--ablation summary|full|none] [--poly-cols 32] [--rescale-rate R] [--clock GHZ] [--policy gto|lrr] [--trace fa.json]
//! ```
//! With no arguments: a small problem (batch 1, heads 2, seq 512, d 128) runs on the emulator
//! with the baseline kernel and with both techniques (software `exp2` on 32 of 128 columns,
//! conditional rescaling at threshold 8), each checked against an f64 reference; how often
//! the inputs rescale is measured there. Then batch 4, heads 16, seq 4096, d 128 (16k tokens,
//! 16 heads: the usual FlashAttention benchmark shape) is timed on the B200 model for the
//! baseline and the best variant (`--ablation summary`: also each technique alone;
//! `--ablation full`: software `exp2` at 16, 32, 48 and 64 columns, alone and with
//! conditional rescaling, as in `docs/fa4.md`); the fastest gets the full report.
//! The model has no data: it takes the rescale rate measured on the emulator's inputs (or
//! `--rescale-rate`) as its assumption, and says so. On `--arch h100`/`h200` the FA3-style
//! Hopper kernel is timed instead (Hopper has no tensor memory).

use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use warpspec::sim::machine::MmaIssue;
use warpspec_examples::attention::blackwell::Variant;
use warpspec_examples::attention::cli::{self, ProblemArgs, TimingArgs};
use warpspec_examples::attention::fa4_variants::{self as fa4, POLY_COLS};
use warpspec_examples::attention::hopper::Variant as HopperVariant;
use warpspec_examples::attention::{blackwell, hopper};
use warpspec_examples::cli::{self as shared, Arch, Given, Validate};
use warpspec_examples::reference::random_values;

/// Which variants the model times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Ablation {
    /// The baseline and the best variant (`--poly-cols` with conditional rescaling), timed
    /// side by side on two threads: what fits in a minute on two cores.
    Best,
    /// Baseline, software exp2 alone, conditional rescaling alone, both.
    Summary,
    /// Also software exp2 at 16, 32, 48 and 64 of 128 columns, alone and with conditional
    /// rescaling.
    Full,
}

/// Five-role flash attention: numerics on the emulator, time on the model.
#[derive(Parser, Debug)]
struct Options {
    #[command(flatten)]
    problem: ProblemArgs,
    #[command(flatten)]
    timing: TimingArgs,
    /// Which variants to time.
    #[arg(long, value_enum, default_value_t = Ablation::Best)]
    ablation: Ablation,
    /// Columns of each 128-column block whose exp2 runs in software (0 to 128).
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u16).range(0..=128))]
    poly_cols: u16,
    /// Fraction of steps the model assumes rescale under conditional rescaling [default:
    /// measured on the emulator's inputs].
    #[arg(long, value_name = "R")]
    rescale_rate: Option<f32>,
    /// Host threads for the ablation.
    #[arg(long, default_value_t = 2)]
    threads: usize,
}

impl Validate for Options {
    fn validate(&self, _given: &Given<'_>) -> Result<(), String> {
        if let Some(rate) = self.rescale_rate
            && !(0.0..=1.0).contains(&rate)
        {
            return Err(format!("--rescale-rate {rate}: out of range; give a fraction of steps in [0, 1]"));
        }
        if self.threads == 0 {
            return Err("--threads 0: out of range; give at least 1 host thread".into());
        }
        self.problem.validate()?;
        self.timing.validate()
    }
}

fn main() -> ExitCode {
    shared::exit_code(run(shared::parse_with_arch(Arch::B200)))
}

fn run(options: Options) -> Result<bool, String> {
    let small = options.problem.check_problem();
    let poly_cols = usize::from(options.poly_cols);
    println!("five-role flash attention: load, mma, softmax x2, correction, epilogue");
    let mut ok = cli::check_and_print(" baseline", &small, |q, k, v| blackwell::run(&small, q, k, v).map(|(o, _)| o))?;
    let threshold = Variant::FA4_THRESHOLD;
    let (rescaled, steps) = {
        let n = small.elements();
        let round = |v: Vec<f32>| warpspec_examples::attention::round_to(small.dtype, &v);
        fa4::rescale_steps(&small, &round(random_values(n, 1)), &round(random_values(n, 2)), threshold)
    };
    let measured = if steps == 0 { 0.0 } else { rescaled as f32 / steps as f32 };
    let rate = options.rescale_rate.unwrap_or(measured);
    let both = Variant::BASELINE.with_poly_cols(poly_cols).with_conditional_rescale(threshold, rate);
    let label = format!(" {}", both.name());
    ok &=
        cli::check_and_print(&label, &small, |q, k, v| blackwell::run_variant(&small, &both, q, k, v).map(|(o, _)| o))?;
    let (err, at) = warpspec::dsl::exp2_poly_max_relative_error(-30.0, threshold, 200_001);
    println!(
        "  numerics  software exp2 (degree 3): max relative error {err:.2e} (at x = {at:.3}) vs bf16 rounding 2^-9 = 1.95e-3"
    );
    println!(
        "  rescale   threshold {threshold}: {rescaled} of {steps} steps rescale on these inputs ({:.1}%); the model assumes {:.1}%{}",
        100.0 * measured,
        100.0 * rate,
        if options.rescale_rate.is_some() { " (--rescale-rate)" } else { " (measured)" }
    );
    if options.timing.no_timing {
        return Ok(ok);
    }
    let problem = options.problem.problem();
    let machine = options.timing.model.machine();
    let opts = options.timing.model.options();
    if !matches!(machine.tensor.issue, MmaIssue::SingleThreadTcgen05 { .. }) {
        println!("  ({} has no tensor memory: timing the FA3-style Hopper kernel)", machine.name);
        let report =
            hopper::simulate(&problem, Some(HopperVariant::FULL), &machine, &opts).map_err(|e| e.to_string())?;
        println!(
            "  model     {} on {}: {}",
            cli::describe(&problem),
            machine.name,
            cli::timing_line(&problem, &report)
        );
        println!();
        println!("{report}");
        options.timing.write_trace(&report)?;
        return Ok(ok);
    }
    let variants = match options.ablation {
        Ablation::Best => vec![Variant::BASELINE, both],
        Ablation::Summary => {
            let mut v = fa4::variants(&[poly_cols], rate);
            v.sort_by_key(|v| (v.poly_cols > 0, v.rescale_threshold.is_some()));
            v
        }
        Ablation::Full => fa4::variants(&POLY_COLS, rate),
    };
    let mut quiet = opts.clone();
    quiet.progress = None;
    let rows = fa4::ablation(&problem, &variants, &machine, &quiet, options.threads).map_err(|e| e.to_string())?;
    let best = fa4::best(&rows).ok_or("no variant was timed")?;
    println!(
        "  ablation  {} on {} (conditional rescaling assumes {:.1}% of steps rescale):",
        cli::describe(&problem),
        machine.name,
        100.0 * rate
    );
    println!("    {}", fa4::HEADER);
    for row in &rows {
        println!("    {}", row.line(&problem));
    }
    let tflops = best.tflops(&problem);
    println!(
        "  best      {}: {tflops:.0} TFLOP/s = {:.0}% of the paper's {:.0} ({})",
        best.variant.name(),
        100.0 * tflops / fa4::PAPER_PEAK_TFLOPS,
        fa4::PAPER_PEAK_TFLOPS,
        fa4::PAPER_SOURCE
    );
    if let Some(base) = rows.iter().find(|row| row.variant == Variant::BASELINE)
        && best.variant != Variant::BASELINE
    {
        let u = |row: &fa4::Row, unit| 100.0 * row.report.utilisation[unit];
        use warpspec::report::Unit::{Fma, Mufu, TensorCores};
        println!(
            "  gain      {:+.1}% over the baseline: MUFU busy {:.0}% -> {:.0}%, FMA {:.0}% -> {:.0}%, tensor cores {:.0}% -> {:.0}%",
            100.0 * (best.tflops(&problem) / base.tflops(&problem) - 1.0),
            u(base, Mufu),
            u(best, Mufu),
            u(base, Fma),
            u(best, Fma),
            u(base, TensorCores),
            u(best, TensorCores)
        );
    }
    let report = if options.timing.model.trace.is_some() {
        blackwell::simulate_variant(&problem, &best.variant, &machine, &opts).map_err(|e| e.to_string())?
    } else {
        best.report.clone()
    };
    println!("  model     {} on {}: {}", cli::describe(&problem), machine.name, cli::timing_line(&problem, &report));
    println!();
    println!("{report}");
    options.timing.write_trace(&report)?;
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use warpspec_examples::cli::{one_line, try_parse_from};

    use super::*;

    fn parse(args: &[&str]) -> Result<Options, String> {
        let args = std::iter::once("flash_attention").chain(args.iter().copied());
        try_parse_from(Some(Arch::B200), args).map_err(|e| one_line(&e))
    }

    fn rejected(args: &[&str], wants: &[&str]) {
        let err = parse(args).unwrap_err();
        assert!(!err.contains('\n'), "{args:?}: not one line: {err}");
        for want in wants {
            assert!(err.contains(want), "{args:?}: `{want}` missing from: {err}");
        }
    }

    #[test]
    fn defaults_parse() {
        let options = parse(&[]).unwrap();
        assert_eq!(options.problem.problem().heads, 16);
        assert_eq!(options.timing.model.arch.arch, Arch::B200);
    }

    #[test]
    fn sizes_outside_their_ranges_are_rejected() {
        rejected(&["--heads", "4294967297"], &["--heads 4294967297", "1..=65535"]);
        rejected(&["--batch", "0"], &["--batch 0", "1..=65535"]);
        rejected(&["--seq", "0"], &["--seq 0", "accepted 1 or more"]);
        rejected(&["--check-seq", "0"], &["--check-seq 0"]);
        rejected(&["--head-dim", "96"], &["--head-dim 96", "64 or 128"]);
        rejected(&["--seq=-3"], &["--seq"]);
        rejected(&["--seq", "18446744073709551615"], &["--seq", "64 bits"]);
    }

    #[test]
    fn the_emulator_check_must_fit_in_memory() {
        if warpspec::emu::memory::available_bytes().is_some() {
            rejected(&["--check-seq", "100000000000"], &["--check-seq", "host memory"]);
        }
    }

    #[test]
    fn machines_and_flags_are_checked_before_the_emulator_runs() {
        rejected(&["--arch", "a100"], &["--arch", "h100, h200, b200"]);
        rejected(&["--no-timing", "--trace", "x.json"], &["--no-timing", "--trace"]);
        rejected(&["--no-timing", "--clock", "1.5"], &["--no-timing", "--clock"]);
        rejected(&["--clock", "1e9"], &["--clock", "boost clock"]);
        rejected(&["--trace", "/nonexistent-dir/fa.json"], &["--trace", "cannot write"]);
        rejected(&["--trace", "fa.txt"], &["--trace", "unknown trace format"]);
    }
}
