//! Command-line options and the numerics check shared by the attention examples.

use std::time::Instant;

use clap::{Args, ValueEnum};
use warpspec::dsl::DType;

use warpspec::report::SimReport;

use super::Problem;
use super::reference::attention_f64;
use crate::cli::{self, ModelArgs};
use crate::reference::{errors, random_values};

/// Storage format of Q, K, V and O.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// bfloat16.
    Bf16,
    /// IEEE half.
    F16,
}

impl From<Format> for DType {
    fn from(f: Format) -> DType {
        match f {
            Format::Bf16 => DType::Bf16,
            Format::F16 => DType::F16,
        }
    }
}

/// The attention problem, as options.
#[derive(Args, Clone, Debug)]
pub struct ProblemArgs {
    /// Batch size of the timed problem (1..=65535: the grid's z).
    #[arg(long, default_value_t = 4)]
    pub batch: usize,
    /// Heads of the timed problem (1..=65535: the grid's y).
    #[arg(long, default_value_t = 16)]
    pub heads: usize,
    /// Sequence length of the timed problem (at least 1).
    #[arg(long, default_value_t = 4096)]
    pub seq: usize,
    /// Head dimension: 64 or 128.
    #[arg(long, default_value_t = 128)]
    pub head_dim: usize,
    /// Causal mask.
    #[arg(long)]
    pub causal: bool,
    /// Storage format.
    #[arg(long, value_enum, default_value_t = Format::Bf16)]
    pub dtype: Format,
    /// Sequence length of the problem (batch 1, heads 2) checked on the emulator against
    /// f64 (at least 1; its tensors must fit in host memory).
    #[arg(long, default_value_t = 512)]
    pub check_seq: usize,
}

/// Bytes of host memory per element of Q (and of K, V, O) that a numerics check holds: the
/// random and rounded `f32` inputs (24), the tensors (at most 16), the output and its `f64`
/// reference (12).
const CHECK_BYTES_PER_ELEMENT: u64 = 52;

impl ProblemArgs {
    /// Checks every problem argument before any work: each size in its range, the timed
    /// problem within the launch limits, the checked problem within host memory.
    pub fn validate(&self) -> Result<(), String> {
        let grid = "a grid dimension of the launch";
        cli::check_range("--batch", self.batch, 1..=65_535, grid)?;
        cli::check_range("--heads", self.heads, 1..=65_535, grid)?;
        cli::check_at_least("--seq", self.seq, 1, "a sequence has at least one token")?;
        cli::check_at_least("--check-seq", self.check_seq, 1, "a sequence has at least one token")?;
        if !matches!(self.head_dim, 64 | 128) {
            return Err(format!("--head-dim {}: not supported; accepted 64 or 128", self.head_dim));
        }
        self.problem().check().map_err(|e| format!("--seq {}: {e}", self.seq))?;
        let check = self.check_problem();
        check.check().map_err(|e| format!("--check-seq {}: {e}", self.check_seq))?;
        let bytes = (check.elements() as u64).checked_mul(CHECK_BYTES_PER_ELEMENT);
        cli::check_host_memory(&format!("--check-seq {}: the emulator check", self.check_seq), bytes)
    }

    /// The timed problem.
    pub fn problem(&self) -> Problem {
        Problem {
            batch: self.batch,
            heads: self.heads,
            seq: self.seq,
            head_dim: self.head_dim,
            causal: self.causal,
            dtype: self.dtype.into(),
        }
    }

    /// The small problem checked on the emulator: same head dim, mask and format.
    pub fn check_problem(&self) -> Problem {
        Problem { batch: 1, heads: 2, seq: self.check_seq, ..self.problem() }
    }
}

/// How to time the problem: the timing model's options, or none.
#[derive(Args, Clone, Debug)]
pub struct TimingArgs {
    /// The timing model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Skip the timing run (then none of the timing model's options applies).
    #[arg(long, conflicts_with_all = ["arch", "clock", "policy", "trace"])]
    pub no_timing: bool,
}

impl TimingArgs {
    /// Checks the timing model's options ([`ModelArgs::validate`]).
    pub fn validate(&self) -> Result<(), String> {
        self.model.validate()
    }

    /// Writes the report's timeline to the `--trace` file, if both exist.
    pub fn write_trace(&self, report: &SimReport) -> Result<(), String> {
        if let Some((path, open_in)) = self.model.write_trace(report.trace.as_ref())? {
            println!("  trace     {} (open in {open_in})", path.display());
        }
        Ok(())
    }
}

/// A summary line of a timed attention problem: time, and TFLOP/s counted with the
/// problem's FLOPs (4·b·h·s²·d, halved when causal) as attention papers report them.
pub fn timing_line(problem: &Problem, report: &SimReport) -> String {
    let seconds = report.seconds();
    let tflops = problem.flops() / seconds / 1e12;
    format!(
        "{:.3} ms, {tflops:.0} TFLOP/s ({:.1}% of the {:.0} TFLOP/s peak), tensor cores busy {:.1}%",
        seconds * 1e3,
        100.0 * tflops / report.peak_tflops,
        report.peak_tflops,
        100.0 * report.utilisation[warpspec::report::Unit::TensorCores]
    )
}

/// The two largest stall reasons of each role: "softmax: long_scoreboard 35%, mio_throttle 28%; ...".
pub fn top_stalls(report: &SimReport) -> String {
    let roles: Vec<String> = report
        .roles
        .iter()
        .map(|role| {
            let top: Vec<String> =
                role.ranked().iter().take(2).map(|(r, share)| format!("{r} {:.0}%", 100.0 * share)).collect();
            format!("{}: {}", role.role, top.join(", "))
        })
        .collect();
    roles.join("; ")
}

/// Outcome of a numerics check.
pub struct Checked {
    /// Largest absolute error against f64.
    pub max_err: f64,
    /// `max_err` relative to the largest |O|.
    pub rel_err: f64,
    /// Emulator wall time in seconds.
    pub seconds: f64,
}

/// Runs `kernel` on random inputs of `problem` and compares with the f64 reference.
pub fn check<E: std::fmt::Display>(
    problem: &Problem,
    kernel: impl FnOnce(&[f32], &[f32], &[f32]) -> Result<Vec<f32>, E>,
) -> Result<Checked, String> {
    let n = problem.elements();
    let round = |v: Vec<f32>| super::round_to(problem.dtype, &v);
    let (q, k, v) = (round(random_values(n, 1)), round(random_values(n, 2)), round(random_values(n, 3)));
    let start = Instant::now();
    let o = kernel(&q, &k, &v).map_err(|e| e.to_string())?;
    let seconds = start.elapsed().as_secs_f64();
    let (max_err, rel_err) = errors(&o, &attention_f64(problem, &q, &k, &v));
    Ok(Checked { max_err, rel_err, seconds })
}

/// Checks `problem` on the emulator with `kernel`, prints the outcome under `label`, and
/// returns whether the error is within [`tolerance`].
pub fn check_and_print<E: std::fmt::Display>(
    label: &str,
    problem: &Problem,
    kernel: impl FnOnce(&[f32], &[f32], &[f32]) -> Result<Vec<f32>, E>,
) -> Result<bool, String> {
    check_and_print_on("emulator", label, problem, kernel)
}

/// [`check_and_print`] on the target called `on` (`emulator`, `gpu`).
pub fn check_and_print_on<E: std::fmt::Display>(
    on: &str,
    label: &str,
    problem: &Problem,
    kernel: impl FnOnce(&[f32], &[f32], &[f32]) -> Result<Vec<f32>, E>,
) -> Result<bool, String> {
    let checked = check(problem, kernel)?;
    let ok = checked.rel_err < tolerance(problem.dtype);
    println!(
        "  {on:<8}  {}{label}: max error {:.2e} (relative {:.2e}) {} in {:.2} s",
        describe(problem),
        checked.max_err,
        checked.rel_err,
        if ok { "ok" } else { "ABOVE TOLERANCE" },
        checked.seconds
    );
    Ok(ok)
}

/// Relative error allowed for the format (P and O are rounded to it).
pub fn tolerance(dtype: DType) -> f64 {
    if dtype == DType::Bf16 { 2e-2 } else { 4e-3 }
}

/// One-line description of a problem.
pub fn describe(p: &Problem) -> String {
    format!(
        "batch {} heads {} seq {} d {} {} {}",
        p.batch,
        p.heads,
        p.seq,
        p.head_dim,
        if p.causal { "causal" } else { "non-causal" },
        p.dtype
    )
}
