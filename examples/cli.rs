//! The command line shared by the examples: where a kernel runs (`--target`), the machine
//! and options of the timing model (`--arch`, `--clock`, `--policy`, `--trace`), trace
//! writing and exit codes. Each example flattens the groups it uses into its own clap parser,
//! so `--help` lists every option with its default.
//!
//! **Every argument is checked before any work.** clap checks each value on its own (types,
//! ranges, names); [`Validate`] then checks what clap cannot: values against each other and
//! against the machine (`--clock` within its clocks), sizes against the types and launch
//! limits they end up in, output files that must be writable, flags that would do nothing
//! where they are given. A rejection is one line on stderr naming the argument and what it
//! accepts, and exit status 2 ([`parse_with_arch`], [`parse`]).

use std::fmt::Display;
use std::fs::OpenOptions;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::error::ErrorKind;
use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, ValueEnum};
use warpspec::emu::memory;
use warpspec::report::{CycleWindow, Trace, TraceFormat};
use warpspec::sim::{Machine, Progress, SchedulerPolicy, SimOptions, TraceOptions};

/// Where a kernel runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TargetKind {
    /// The functional emulator: real data on the CPU, checked against a reference.
    Emu,
    /// The cycle-level timing model of the `--arch` machine (shape-only tensors).
    Model,
    /// A real GPU through the CUDA backend (`warpspec::gpu`), where the example supports it.
    Gpu,
}

/// The machines of the timing model (`--arch`; `h100-sxm` is another name of `h100`).
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
    /// Machine of the timing model: h100 (H100 SXM5), h200 or b200.
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
    /// SM clock in GHz, above 0 and at most the machine's boost clock [default: the clock
    /// the machine's peak is quoted at].
    #[arg(long, value_name = "GHZ")]
    pub clock: Option<f64>,
    /// Warp-scheduler policy [default: the machine's, `issue.scheduler_policy`].
    #[arg(long, value_enum)]
    pub policy: Option<Policy>,
    /// Seed of the memory latencies' variation (each L2 and HBM latency is drawn from its
    /// measured spread; the same seed gives the same run).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Write the timeline to this file: a self-contained HTML page for `.html`, an SVG for
    /// `.svg` (open either in a browser), Chrome trace-event JSON otherwise (open it in the
    /// Perfetto UI).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// With `--trace`: record and draw only the spans that overlap cycles `START..END` of the
    /// run (the timeline says what it left out) [default: the whole run].
    #[arg(long, value_name = "START..END", value_parser = parse_window, requires = "trace")]
    pub trace_window: Option<CycleWindow>,
}

/// Parses `START..END` (cycles, `START < END`) for `--trace-window`.
pub fn parse_window(text: &str) -> Result<CycleWindow, String> {
    let (start, end) = text
        .split_once("..")
        .ok_or_else(|| format!("`{text}` is not a window of cycles: write START..END, e.g. 10000..20000"))?;
    let cycle = |s: &str| {
        s.trim().parse::<u64>().map_err(|_| format!("`{s}` in `{text}` is not a cycle count (0 to {})", u64::MAX))
    };
    let (start, end) = (cycle(start)?, cycle(end)?);
    if start >= end {
        return Err(format!("the window {start}..{end} is empty: START must be below END"));
    }
    Ok(CycleWindow { start, end })
}

impl ModelArgs {
    /// The machine named by `--arch`.
    pub fn machine(&self) -> Machine {
        self.arch.machine()
    }

    /// Simulation options: `--clock`, `--policy`, a timeline if `--trace` was given, and
    /// progress on stderr with an estimate of the time left ([`progress_line`]).
    pub fn options(&self) -> SimOptions {
        let options = SimOptions {
            clock_ghz: self.clock,
            policy: self.policy.map(Into::into),
            seed: self.seed,
            progress: Some(Arc::new(|p: &Progress| eprintln!("{}", progress_line(p)))),
            ..SimOptions::default()
        };
        match self.trace {
            Some(_) => options.with_trace(TraceOptions { window: self.trace_window, ..TraceOptions::default() }),
            None => options,
        }
    }

    /// Checks `--clock` against the machine's clocks and the `--trace` file (format known,
    /// writable), before any work.
    pub fn validate(&self) -> Result<(), String> {
        if let Some(clock) = self.clock {
            let machine = self.machine();
            let boost = machine.clocks.boost_ghz.value;
            if !(clock.is_finite() && clock > 0.0 && clock <= boost) {
                return Err(format!(
                    "--clock {clock}: out of range; {} takes a clock above 0 and at most its boost clock, {boost} GHz",
                    machine.name
                ));
            }
        }
        match &self.trace {
            Some(path) => check_trace_path("--trace", path),
            None => Ok(()),
        }
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

/// A progress line of a timing run: cycles simulated, CTAs done and, once any is done, an
/// estimate of the time left (the CTAs left at the rate so far).
pub fn progress_line(p: &Progress) -> String {
    let wall = p.wall.as_secs_f64();
    let eta = if p.ctas_done == 0 {
        "time left unknown until a CTA is done".to_string()
    } else {
        let left = wall * (p.ctas - p.ctas_done.min(p.ctas)) as f64 / p.ctas_done as f64;
        format!("about {} left", duration(left))
    };
    format!("  simulated {} cycles, {}/{} CTAs done, {wall:.1} s, {eta}", p.cycle, p.ctas_done, p.ctas)
}

/// `seconds` as `42 s`, `3 min 20 s` or `2 h 5 min`.
fn duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s / 60 % 60),
    }
}

/// A command line checked as a whole after clap has parsed it, before any work.
pub trait Validate {
    /// Checks every argument; `given` says which were on the command line. The error is one
    /// line naming the argument and what it accepts.
    fn validate(&self, given: &Given<'_>) -> Result<(), String>;
}

/// Which arguments were given on the command line (not left at their defaults).
pub struct Given<'a>(&'a ArgMatches);

impl Given<'_> {
    /// Whether argument `id` (its field name) was on the command line.
    pub fn has(&self, id: &str) -> bool {
        matches!(self.0.try_get_raw(id), Ok(Some(_))) && self.0.value_source(id) == Some(ValueSource::CommandLine)
    }

    /// The first of `ids` that was on the command line, as its flag (`--trace`).
    pub fn any(&self, ids: &[&str]) -> Option<String> {
        ids.iter().find(|id| self.has(id)).map(|id| format!("--{}", id.replace('_', "-")))
    }
}

/// Checks that `value` of argument `name` is in `range`; `why` says where the range comes
/// from.
pub fn check_range<V: PartialOrd + Display>(
    name: &str,
    value: V,
    range: RangeInclusive<V>,
    why: &str,
) -> Result<(), String> {
    if range.contains(&value) {
        Ok(())
    } else {
        Err(format!("{name} {value}: out of range; accepted {}..={} ({why})", range.start(), range.end()))
    }
}

/// Checks that `value` of argument `name` is at least `min`; `why` says why.
pub fn check_at_least(name: &str, value: usize, min: usize, why: &str) -> Result<(), String> {
    if value >= min { Ok(()) } else { Err(format!("{name} {value}: out of range; accepted {min} or more ({why})")) }
}

/// Checks an output file for a timeline before any work: its extension names a format
/// ([`TraceFormat::of_path`]) and the file can be created.
pub fn check_trace_path(name: &str, path: &Path) -> Result<(), String> {
    if TraceFormat::of_path(path).is_none() {
        return Err(format!(
            "{name} {}: unknown trace format; accepted extensions: .json (Perfetto), .html, .svg",
            path.display()
        ));
    }
    check_writable(name, path)
}

/// Checks that `path` can be written, by opening it for writing (keeping what it holds); a
/// file the check had to create is removed again, so a run rejected later leaves nothing.
pub fn check_writable(name: &str, path: &Path) -> Result<(), String> {
    let existed = path.exists();
    OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map(drop)
        .map_err(|e| format!("{name} {}: cannot write the file: {e}", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Checks `--sustained-s`: a GPU measurement's sustained phase must cover the steady window
/// its figure is averaged over ([`BenchConfig::window`](warpspec::gpu::bench::BenchConfig)),
/// and stay within 10 minutes.
pub fn check_sustained_seconds(seconds: f64) -> Result<(), String> {
    let window = warpspec::gpu::bench::BenchConfig::default().window.as_secs_f64();
    check_range(
        "--sustained-s",
        seconds,
        window..=600.0,
        "the sustained phase covers the steady window it is averaged over",
    )
}

/// Checks that `bytes` of host memory (`None`: more than a `u64` counts) fit in what the
/// machine has available ([`memory::available_bytes`]; no check where it cannot be read).
pub fn check_host_memory(what: &str, bytes: Option<u64>) -> Result<(), String> {
    let Some(available) = memory::available_bytes() else { return Ok(()) };
    match bytes {
        Some(b) if b <= available => Ok(()),
        _ => Err(format!(
            "{what} would need {} of host memory, more than the {:.1} GiB available; use a smaller problem (or the timing model)",
            bytes.map_or("more than 2^64 bytes".into(), |b| format!("{:.1} GiB", b as f64 / GIB)),
            available as f64 / GIB
        )),
    }
}

/// Bytes per GiB.
const GIB: f64 = (1u64 << 30) as f64;

/// Parses the command line into `T` and validates it, with `default` as the default of its
/// `--arch` (shown in `--help`). Prints `--help` and exits 0 when asked; on a bad argument,
/// prints one line and exits with status 2.
pub fn parse_with_arch<T: CommandFactory + FromArgMatches + Validate>(default: Arch) -> T {
    parse_or_exit(try_parse_from(Some(default), std::env::args_os()))
}

/// [`parse_with_arch`] for a command line without `--arch`.
pub fn parse<T: CommandFactory + FromArgMatches + Validate>() -> T {
    parse_or_exit(try_parse_from(None, std::env::args_os()))
}

/// The parsed command line, or: `--help` printed and exit 0, or one line and exit 2.
fn parse_or_exit<T>(parsed: Result<T, clap::Error>) -> T {
    parsed.unwrap_or_else(|e| match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            e.exit()
        }
        _ => {
            eprintln!("{}", one_line(&e));
            std::process::exit(2)
        }
    })
}

/// Parses and validates `args` (the program name first) into `T`, with `default_arch` as
/// the default of its `--arch` if it has one. Does no other work: the examples' tests call
/// it to check rejections.
pub fn try_parse_from<T, I, A>(default_arch: Option<Arch>, args: I) -> Result<T, clap::Error>
where
    T: CommandFactory + FromArgMatches + Validate,
    I: IntoIterator<Item = A>,
    A: Into<std::ffi::OsString> + Clone,
{
    let mut command = T::command();
    if let Some(default) = default_arch {
        command = command.mut_arg("arch", |arg| arg.default_value(default.name()).required(false));
    }
    let matches = command.try_get_matches_from_mut(args)?;
    let parsed = T::from_arg_matches(&matches).map_err(|e| e.with_cmd(&command))?;
    parsed.validate(&Given(&matches)).map_err(|message| command.error(ErrorKind::ValueValidation, message))?;
    Ok(parsed)
}

/// A clap error as one line: the message and the values it accepts, without the usage.
pub fn one_line(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let lines: Vec<&str> = text
        .lines()
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    lines.join(" ")
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
    use std::time::Duration;

    use clap::Parser;

    use super::*;

    #[derive(Parser, Debug)]
    struct Options {
        #[command(flatten)]
        model: ModelArgs,
        #[arg(long, value_enum, default_value_t = TargetKind::Emu)]
        target: TargetKind,
    }

    impl Validate for Options {
        fn validate(&self, given: &Given<'_>) -> Result<(), String> {
            if self.target == TargetKind::Emu
                && let Some(flag) = given.any(&["clock", "policy", "trace"])
            {
                return Err(format!("{flag} applies to --target model only"));
            }
            self.model.validate()
        }
    }

    fn parse(args: &[&str]) -> Result<Options, String> {
        try_parse_from(Some(Arch::B200), args).map_err(|e| one_line(&e))
    }

    #[test]
    fn trace_window_needs_a_trace_and_a_non_empty_range() {
        let options = parse(&["x", "--target", "model", "--trace", "t.json", "--trace-window", "100..250"]).unwrap();
        assert_eq!(options.model.trace_window, Some(CycleWindow { start: 100, end: 250 }));
        let window = options.model.options().trace.and_then(|t| t.window);
        assert_eq!(window, Some(CycleWindow { start: 100, end: 250 }));
        assert!(parse(&["x", "--trace-window", "1..2"]).is_err(), "a window without --trace");
        for bad in ["5..5", "9..3", "a..3", "100"] {
            let err = parse(&["x", "--trace", "t.json", "--trace-window", bad]).unwrap_err();
            assert!(err.contains("--trace-window"), "{bad}: {err}");
        }
    }

    #[test]
    fn arch_defaults_to_the_examples_machine_and_takes_aliases() {
        let options = parse(&["x"]).unwrap();
        assert_eq!(options.model.arch.arch, Arch::B200);
        assert_eq!(parse(&["x", "--arch", "h100-sxm"]).unwrap().model.arch.arch, Arch::H100);
        let help = Options::command().mut_arg("arch", |a| a.default_value("b200")).render_help().to_string();
        assert!(
            help.contains("[default: b200]")
                && help.contains("h200 or b200")
                && help.contains("[possible values: h100, h200, b200]"),
            "{help}"
        );
    }

    #[test]
    fn an_unknown_arch_is_one_line_listing_the_names_of_the_help() {
        let err = parse(&["x", "--arch", "a100"]).unwrap_err();
        assert!(!err.contains('\n') && err.contains("--arch") && err.contains("h100, h200, b200"), "{err}");
    }

    #[test]
    fn model_options_follow_the_flags() {
        let options = parse(&["x", "--clock", "1.5", "--policy", "lrr", "--target", "model"]).unwrap();
        let sim = options.model.options();
        assert_eq!(sim.clock_ghz, Some(1.5));
        assert_eq!(sim.policy, Some(SchedulerPolicy::LooseRoundRobin));
        assert!(sim.trace.is_none() && sim.progress.is_some());
        assert_eq!(options.target, TargetKind::Model);
    }

    #[test]
    fn clocks_outside_the_machine_are_rejected() {
        for clock in ["1e9", "0", "-1", "NaN", "2.5"] {
            let err = parse(&["x", "--target", "model", &format!("--clock={clock}")]).unwrap_err();
            assert!(err.contains("--clock") && err.contains("1.98 GHz"), "{clock}: {err}");
        }
        assert!(parse(&["x", "--target", "model", "--clock", "1.98"]).is_ok());
    }

    #[test]
    fn trace_files_are_checked_before_any_work() {
        let err = parse(&["x", "--target", "model", "--trace", "/nonexistent-dir/t.json"]).unwrap_err();
        assert!(err.contains("--trace /nonexistent-dir/t.json: cannot write"), "{err}");
        let err = parse(&["x", "--target", "model", "--trace", "t.txt"]).unwrap_err();
        assert!(err.contains("unknown trace format") && err.contains(".json"), "{err}");
        let dir = std::env::temp_dir().join(format!("warpspec-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ok = dir.join("t.html");
        assert!(parse(&["x", "--target", "model", "--trace", ok.to_str().unwrap()]).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn flags_that_would_do_nothing_are_rejected() {
        let err = parse(&["x", "--policy", "lrr"]).unwrap_err();
        assert!(err.contains("--policy applies to --target model only"), "{err}");
        assert!(parse(&["x", "--policy", "gto", "--target", "model"]).is_ok());
    }

    #[test]
    fn progress_lines_estimate_the_time_left() {
        let p = Progress { cycle: 1000, ctas_done: 25, ctas: 100, wall: Duration::from_secs(10) };
        assert!(progress_line(&p).ends_with("about 30 s left"), "{}", progress_line(&p));
        let p = Progress { ctas_done: 1, ..p };
        assert!(progress_line(&p).ends_with("about 16 min 30 s left"), "{}", progress_line(&p));
        let p = Progress { ctas_done: 0, ..p };
        assert!(progress_line(&p).contains("unknown"), "{}", progress_line(&p));
    }

    #[test]
    fn ranges_name_the_argument() {
        assert!(check_range("--heads", 16usize, 1..=65_535, "grid y").is_ok());
        let err = check_range("--heads", 4_294_967_297usize, 1..=65_535, "a grid dimension").unwrap_err();
        assert_eq!(err, "--heads 4294967297: out of range; accepted 1..=65535 (a grid dimension)");
    }
}
