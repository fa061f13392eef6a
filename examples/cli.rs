//! The command line shared by the examples: where a kernel runs (`--target`), the machine
//! and options of the timing model (`--arch`, `--clock`, `--policy`, `--trace`), trace
//! writing and exit codes. Each example flattens the groups it uses into its own clap parser,
//! so `--help` lists every option with its default.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches, ValueEnum};
use warpspec::report::{Trace, TraceFormat};
use warpspec::sim::{Machine, SchedulerPolicy, SimOptions, TraceOptions};

/// Where a kernel runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TargetKind {
    /// The functional emulator: real data on the CPU, checked against a reference.
    Emu,
    /// The cycle-level timing model of the `--arch` machine (shape-only tensors).
    Model,
    /// A real GPU (not available in this build yet).
    Gpu,
}

impl TargetKind {
    /// The error for a target this build cannot run, if `self` is one.
    pub fn unavailable(self) -> Option<String> {
        match self {
            TargetKind::Gpu => Some(
                "--target gpu: the GPU target is not available in this build yet; use --target emu or --target model"
                    .into(),
            ),
            TargetKind::Emu | TargetKind::Model => None,
        }
    }
}

/// The machines of the timing model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Arch {
    /// NVIDIA H100 SXM5 (Hopper).
    #[value(alias = "h100-sxm")]
    H100,
    /// NVIDIA H200 (Hopper).
    H200,
    /// NVIDIA B200 (Blackwell).
    B200,
}

impl Arch {
    /// The machine description.
    pub fn machine(self) -> Machine {
        match self {
            Arch::H100 => Machine::h100_sxm(),
            Arch::H200 => Machine::h200(),
            Arch::B200 => Machine::b200(),
        }
    }

    /// The name `--arch` takes.
    pub fn name(self) -> &'static str {
        match self {
            Arch::H100 => "h100",
            Arch::H200 => "h200",
            Arch::B200 => "b200",
        }
    }
}

/// Warp-scheduler policies of the timing model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Policy {
    /// Greedy-then-oldest.
    Gto,
    /// Loose round-robin.
    Lrr,
}

impl From<Policy> for SchedulerPolicy {
    fn from(p: Policy) -> Self {
        match p {
            Policy::Gto => SchedulerPolicy::GreedyThenOldest,
            Policy::Lrr => SchedulerPolicy::LooseRoundRobin,
        }
    }
}

/// The machine an example times on (`--arch`). Its default is the example's own: parse with
/// [`parse_with_arch`].
#[derive(Args, Clone, Debug)]
pub struct ArchArgs {
    /// Machine of the timing model.
    #[arg(long, value_enum)]
    pub arch: Arch,
}

impl ArchArgs {
    /// The machine named by `--arch`.
    pub fn machine(&self) -> Machine {
        self.arch.machine()
    }
}

/// How the timing model runs: machine, clock, scheduler policy and trace.
#[derive(Args, Clone, Debug)]
pub struct ModelArgs {
    #[command(flatten)]
    pub arch: ArchArgs,
    /// SM clock in GHz [default: the clock the model predicts for the run].
    #[arg(long, value_name = "GHZ")]
    pub clock: Option<f64>,
    /// Warp-scheduler policy.
    #[arg(long, value_enum, default_value_t = Policy::Gto)]
    pub policy: Policy,
    /// Write the timeline to this file: a self-contained HTML page for `.html`, an SVG for
    /// `.svg` (open either in a browser), Chrome trace-event JSON otherwise (open it in the
    /// Perfetto UI).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
}

impl ModelArgs {
    /// The machine named by `--arch`.
    pub fn machine(&self) -> Machine {
        self.arch.machine()
    }

    /// Simulation options: `--clock`, `--policy`, a timeline if `--trace` was given, and
    /// progress on stderr.
    pub fn options(&self) -> SimOptions {
        let mut options = SimOptions::default().with_stderr_progress();
        options.clock_ghz = self.clock;
        options.policy = self.policy.into();
        if self.trace.is_some() { options.with_trace(TraceOptions::default()) } else { options }
    }

    /// Writes `trace` to the `--trace` file, if both exist; returns the file and where to
    /// open it.
    pub fn write_trace(&self, trace: Option<&Trace>) -> Result<Option<(&Path, &'static str)>, String> {
        match (&self.trace, trace) {
            (Some(path), Some(trace)) => Ok(Some((path, write_trace(trace, path)?))),
            _ => Ok(None),
        }
    }
}

/// Writes `trace` to `path` in the format its extension names (`.json`, `.html`, `.svg`;
/// [`Trace::write`]); returns where to open it. Every example writes its traces here.
pub fn write_trace(trace: &Trace, path: &Path) -> Result<&'static str, String> {
    trace.write(path).map_err(|e| format!("cannot write the trace to {}: {e}", path.display()))?;
    Ok(TraceFormat::of_path(path).map_or("a browser", TraceFormat::viewer))
}

/// Parses the command line into `T`, with `default` as the default of its `--arch` (shown
/// in `--help`). Exits with clap's message and status on `--help` or a bad argument.
pub fn parse_with_arch<T: CommandFactory + FromArgMatches>(default: Arch) -> T {
    let command = T::command().mut_arg("arch", |arg| arg.default_value(default.name()).required(false));
    T::from_arg_matches(&command.get_matches()).unwrap_or_else(|e| e.exit())
}

/// The exit code of an example whose `run` returned whether its checks passed; an error is
/// printed on stderr.
pub fn exit_code(result: Result<bool, String>) -> ExitCode {
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser, Debug)]
    struct Options {
        #[command(flatten)]
        model: ModelArgs,
        #[arg(long, value_enum, default_value_t = TargetKind::Emu)]
        target: TargetKind,
    }

    fn parse(args: &[&str]) -> Result<Options, clap::Error> {
        let command = Options::command().mut_arg("arch", |arg| arg.default_value("b200").required(false));
        Options::from_arg_matches(&command.try_get_matches_from(args)?)
    }

    #[test]
    fn arch_defaults_to_the_examples_machine_and_takes_aliases() {
        let options = parse(&["x"]).unwrap();
        assert_eq!(options.model.arch.arch, Arch::B200);
        assert_eq!(parse(&["x", "--arch", "h100-sxm"]).unwrap().model.arch.arch, Arch::H100);
        assert!(parse(&["x", "--arch", "a100"]).is_err());
        let help = Options::command().mut_arg("arch", |a| a.default_value("b200")).render_help().to_string();
        assert!(help.contains("[default: b200]") && help.contains("h200"), "{help}");
    }

    #[test]
    fn model_options_follow_the_flags() {
        let options = parse(&["x", "--clock", "1.5", "--policy", "lrr", "--target", "model"]).unwrap();
        let sim = options.model.options();
        assert_eq!(sim.clock_ghz, Some(1.5));
        assert_eq!(sim.policy, SchedulerPolicy::LooseRoundRobin);
        assert!(sim.trace.is_none());
        assert_eq!(options.target, TargetKind::Model);
        assert!(TargetKind::Gpu.unavailable().is_some() && TargetKind::Model.unavailable().is_none());
    }
}
