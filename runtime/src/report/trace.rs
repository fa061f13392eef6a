//! Per-warp timelines in simulated cycles: a [`Trace`] of typed [`Span`]s on typed
//! [`Track`]s, with [`Flow`]s from each arrival to the wait it releases and a [`TraceMeta`]
//! saying what was run and what was recorded; three renderers — Chrome trace-event JSON
//! ([`Trace::to_chrome_json`], `chrome`), a self-contained HTML page and a standalone SVG
//! (`timeline`) — and [`Trace::write`], which picks the renderer from a file's extension.
//!
//! Each SM has two unit tracks, the tensor cores (busy spans of each MMA group) and the TMA
//! unit (each copy, from issue to landing; copies overlap), and one track per warp of each
//! CTA resident on it. A span says what happened as a [`SpanKind`], mirroring the model's
//! instructions and waits; its label is the kind's `Display`.

use std::fmt;
use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::dsl::DType;
use crate::sim::timing::ExecPipe;

/// A track of a timeline, within one SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Track {
    /// The SM's tensor cores.
    TensorCores,
    /// The SM's TMA unit.
    Tma,
    /// One warp of a CTA resident on the SM.
    Warp {
        /// Which of the SM's resident CTAs (0 up to the occupancy).
        resident: u32,
        /// The warp, numbered within its CTA.
        warp: u32,
        /// The role the warp runs.
        role: &'static str,
        /// The role instance.
        instance: u16,
        /// The warp's number within its instance.
        of_instance: u32,
    },
}

impl Track {
    /// The track's row label below its CTA header: the whole name for a unit, the warp and
    /// its role for a warp.
    pub fn row_label(&self) -> String {
        match *self {
            Track::TensorCores | Track::Tma => self.to_string(),
            Track::Warp { warp, role, instance, of_instance, .. } => {
                format!("warp {warp} `{role}` #{instance} (warp {of_instance} of it)")
            }
        }
    }

    /// The resident CTA a warp track belongs to (`None` for a unit).
    pub fn resident(&self) -> Option<u32> {
        match *self {
            Track::Warp { resident, .. } => Some(resident),
            Track::TensorCores | Track::Tma => None,
        }
    }

    /// Whether spans on this track may overlap (TMA copies are in flight together).
    pub fn overlapping(&self) -> bool {
        *self == Track::Tma
    }
}

impl fmt::Display for Track {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Track::TensorCores => f.write_str("tensor cores"),
            Track::Tma => f.write_str("TMA unit"),
            Track::Warp { resident, .. } => write!(f, "resident CTA {resident}, {}", self.row_label()),
        }
    }
}

/// One stage of an mbarrier array, as a span names it ("full[1]").
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BarrierStage {
    /// The barrier array.
    pub name: Arc<str>,
    /// The stage.
    pub stage: u32,
}

impl fmt::Display for BarrierStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]", self.name, self.stage)
    }
}

/// Whether an access reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// A load (`ld`).
    Load,
    /// A store (`st`).
    Store,
}

impl Direction {
    /// `ld` or `st`.
    fn mnemonic(self) -> &'static str {
        match self {
            Direction::Load => "ld",
            Direction::Store => "st",
        }
    }
}

/// A bulk copy of the TMA unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TmaCopy {
    /// Global to shared memory, completing its bytes on a barrier stage.
    Load {
        /// Bytes copied.
        bytes: u32,
        /// The stage its bytes complete on.
        barrier: BarrierStage,
    },
    /// Shared to global memory.
    Store {
        /// Bytes copied.
        bytes: u32,
    },
}

/// A burst of warp-instructions of one kind, issued by one warp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Issued {
    /// Counted instructions on an execution pipe.
    Exec {
        /// The pipe.
        pipe: ExecPipe,
        /// Warp-instructions.
        count: u32,
    },
    /// Element-wise instructions of several ops, interleaved across pipes.
    Interleaved {
        /// Warp-instructions.
        count: u32,
        /// Ops interleaved.
        ops: u32,
    },
    /// Shared-memory accesses.
    Shared {
        /// Loads or stores.
        dir: Direction,
        /// Warp-instructions.
        count: u32,
    },
    /// Global-memory accesses.
    Global {
        /// Loads or stores.
        dir: Direction,
        /// Warp-instructions.
        count: u32,
    },
    /// Tensor-memory accesses (`tcgen05.ld` / `tcgen05.st`).
    Tmem {
        /// Loads or stores.
        dir: Direction,
        /// Warp-instructions.
        count: u32,
    },
    /// A `wgmma` group's issue.
    Wgmma {
        /// Native MMA instructions.
        instrs: u32,
        /// Output columns of one.
        n: u32,
    },
    /// `tcgen05.mma` issues.
    Tcgen05Mma {
        /// Native MMA instructions.
        instrs: u32,
        /// Output columns of one.
        n: u32,
    },
    /// `tcgen05.commit` to a barrier stage.
    MmaCommit {
        /// The stage it arrives on.
        barrier: BarrierStage,
    },
    /// A TMA copy's issue.
    Tma(TmaCopy),
    /// `mbarrier.arrive`.
    Arrive {
        /// The stage arrived on.
        barrier: BarrierStage,
    },
    /// `bar.arrive` on a named barrier.
    NamedArrive {
        /// The named barrier.
        name: Arc<str>,
    },
}

/// A wait of one warp, from its first test to passing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Awaited {
    /// A phase of an mbarrier stage, by parity.
    Phase {
        /// The stage.
        barrier: BarrierStage,
        /// The parity waited with.
        parity: u32,
    },
    /// `wgmma.wait_group`: at most `pending` MMA groups in flight.
    MmaGroups {
        /// Groups left in flight.
        pending: u32,
    },
    /// `cp.async.bulk.wait_group.read`: at most `pending` TMA stores reading shared memory.
    Stores {
        /// Stores left in flight.
        pending: u32,
    },
    /// `bar.sync` on a named barrier.
    NamedSync {
        /// The named barrier.
        name: Arc<str>,
    },
}

/// What a span shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpanKind {
    /// Instructions a warp issued.
    Issued(Issued),
    /// A warp's wait.
    Wait(Awaited),
    /// An MMA group on the tensor cores.
    MmaGroup {
        /// Native MMA instructions.
        instrs: u32,
        /// Output columns of one.
        n: u32,
        /// Operand format.
        dtype: DType,
    },
    /// A copy on the TMA unit, from issue to landing.
    Copy(TmaCopy),
}

impl SpanKind {
    /// Whether the span is a wait or a sync (drawn pale).
    pub fn is_wait(&self) -> bool {
        matches!(self, SpanKind::Wait(_))
    }

    /// The colour category: the label without counts, sizes, stages and parities ("TMA
    /// load", "wait full", "FMA").
    pub fn category(&self) -> String {
        match self {
            SpanKind::Issued(issued) => match issued {
                Issued::Exec { pipe, .. } => pipe.name().to_string(),
                Issued::Interleaved { .. } => "interleaved".to_string(),
                Issued::Shared { dir, .. } => format!("{}.shared", dir.mnemonic()),
                Issued::Global { dir, .. } => format!("{}.global", dir.mnemonic()),
                Issued::Tmem { dir, .. } => format!("tcgen05.{}", dir.mnemonic()),
                Issued::Wgmma { .. } => "wgmma issue".to_string(),
                Issued::Tcgen05Mma { .. } => "tcgen05.mma issue".to_string(),
                Issued::MmaCommit { .. } => "tcgen05.commit".to_string(),
                Issued::Tma(copy) => copy.category().to_string(),
                Issued::Arrive { barrier } => format!("arrive {}", barrier.name),
                Issued::NamedArrive { name } => format!("bar.arrive {name}"),
            },
            SpanKind::Wait(awaited) => match awaited {
                Awaited::Phase { barrier, .. } => format!("wait {}", barrier.name),
                Awaited::MmaGroups { .. } => "wgmma.wait_group".to_string(),
                Awaited::Stores { .. } => "bulk wait_group.read".to_string(),
                Awaited::NamedSync { name } => format!("bar.sync {name}"),
            },
            SpanKind::MmaGroup { .. } => "MMA".to_string(),
            SpanKind::Copy(copy) => copy.category().to_string(),
        }
    }
}

impl SpanKind {
    /// The mbarrier stage the span arrives on, waits on or completes bytes on.
    pub fn stage(&self) -> Option<&BarrierStage> {
        match self {
            SpanKind::Issued(Issued::MmaCommit { barrier } | Issued::Arrive { barrier })
            | SpanKind::Issued(Issued::Tma(TmaCopy::Load { barrier, .. }))
            | SpanKind::Copy(TmaCopy::Load { barrier, .. })
            | SpanKind::Wait(Awaited::Phase { barrier, .. }) => Some(barrier),
            _ => None,
        }
    }

    /// The barrier the span involves: an mbarrier array ([`SpanKind::stage`]'s name) or a
    /// named barrier.
    pub fn barrier(&self) -> Option<&str> {
        match self {
            SpanKind::Issued(Issued::NamedArrive { name }) | SpanKind::Wait(Awaited::NamedSync { name }) => Some(name),
            other => other.stage().map(|s| &*s.name),
        }
    }

    /// The parity a phase wait waited with.
    pub fn parity(&self) -> Option<u32> {
        match self {
            SpanKind::Wait(Awaited::Phase { parity, .. }) => Some(*parity),
            _ => None,
        }
    }

    /// Bytes a copy moves.
    pub fn bytes(&self) -> Option<u32> {
        match self {
            SpanKind::Issued(Issued::Tma(copy)) | SpanKind::Copy(copy) => match copy {
                TmaCopy::Load { bytes, .. } | TmaCopy::Store { bytes } => Some(*bytes),
            },
            _ => None,
        }
    }

    /// A coarse class for viewers' categories: `wait`, `sync` (arrivals and commits),
    /// `tensor`, `tma`, `memory` or `compute`.
    pub fn class(&self) -> &'static str {
        match self {
            SpanKind::Wait(_) => "wait",
            SpanKind::Issued(Issued::Arrive { .. } | Issued::NamedArrive { .. } | Issued::MmaCommit { .. }) => "sync",
            SpanKind::MmaGroup { .. } | SpanKind::Issued(Issued::Wgmma { .. } | Issued::Tcgen05Mma { .. }) => "tensor",
            SpanKind::Copy(_) | SpanKind::Issued(Issued::Tma(_)) => "tma",
            SpanKind::Issued(Issued::Shared { .. } | Issued::Global { .. } | Issued::Tmem { .. }) => "memory",
            SpanKind::Issued(Issued::Exec { .. } | Issued::Interleaved { .. }) => "compute",
        }
    }
}

impl TmaCopy {
    fn category(&self) -> &'static str {
        match self {
            TmaCopy::Load { .. } => "TMA load",
            TmaCopy::Store { .. } => "TMA store",
        }
    }
}

impl fmt::Display for TmaCopy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TmaCopy::Load { bytes, barrier } => write!(f, "TMA load {bytes} B -> {barrier}"),
            TmaCopy::Store { bytes } => write!(f, "TMA store {bytes} B"),
        }
    }
}

impl fmt::Display for Issued {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Issued::Exec { pipe, count } => write!(f, "{} x{count}", pipe.name()),
            Issued::Interleaved { count, ops } => write!(f, "{count} instructions of {ops} ops interleaved"),
            Issued::Shared { dir, count } => write!(f, "{}.shared x{count}", dir.mnemonic()),
            Issued::Global { dir, count } => write!(f, "{}.global x{count}", dir.mnemonic()),
            Issued::Tmem { dir, count } => write!(f, "tcgen05.{} x{count}", dir.mnemonic()),
            Issued::Wgmma { instrs, n } => write!(f, "wgmma issue x{instrs} (n{n})"),
            Issued::Tcgen05Mma { instrs, n } => write!(f, "tcgen05.mma issue x{instrs} (n{n})"),
            Issued::MmaCommit { barrier } => write!(f, "tcgen05.commit -> {barrier}"),
            Issued::Tma(copy) => copy.fmt(f),
            Issued::Arrive { barrier } => write!(f, "arrive {barrier}"),
            Issued::NamedArrive { name } => write!(f, "bar.arrive {name}"),
        }
    }
}

impl fmt::Display for Awaited {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Awaited::Phase { barrier, parity } => write!(f, "wait {barrier} (parity {parity})"),
            Awaited::MmaGroups { pending } => write!(f, "wgmma.wait_group {pending}"),
            Awaited::Stores { pending } => write!(f, "bulk wait_group.read {pending}"),
            Awaited::NamedSync { name } => write!(f, "bar.sync {name}"),
        }
    }
}

impl fmt::Display for SpanKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpanKind::Issued(issued) => issued.fmt(f),
            SpanKind::Wait(awaited) => awaited.fmt(f),
            SpanKind::MmaGroup { instrs, n, dtype } => write!(f, "MMA x{instrs} (n{n}, {dtype})"),
            SpanKind::Copy(copy) => copy.fmt(f),
        }
    }
}

/// A kernel source line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceLine {
    /// The file.
    pub file: &'static str,
    /// The line.
    pub line: u32,
}

impl fmt::Display for SourceLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// A window of cycles, `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CycleWindow {
    /// First cycle.
    pub start: u64,
    /// Cycle after the last.
    pub end: u64,
}

impl CycleWindow {
    /// Whether `[start, end)` shares a cycle with the window (an empty span at a cycle of the
    /// window counts).
    pub fn overlaps(&self, start: u64, end: u64) -> bool {
        start < self.end && (end > self.start || (end == start && start >= self.start))
    }
}

impl fmt::Display for CycleWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A causal link: the span `from` (an `mbarrier.arrive`, a `tcgen05.commit` or a TMA
/// load's copy) is the latest arrival recorded on the barrier stage whose phase the wait
/// `to` passed. Both are indices into [`Trace::events`], on the same SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flow {
    /// The releasing span.
    pub from: usize,
    /// The wait it released.
    pub to: usize,
}

/// What was run, and which part of it the trace recorded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceMeta {
    /// The kernel.
    pub kernel: &'static str,
    /// The machine's name.
    pub machine: &'static str,
    /// The simulated clock, GHz (0: unknown).
    pub clock_ghz: f64,
    /// The grid, `[x, y, z]` CTAs.
    pub grid: [u32; 3],
    /// SMs the run used.
    pub sms: u32,
    /// SMs recorded (the first ones).
    pub sms_traced: u32,
    /// CTAs of the grid.
    pub ctas: usize,
    /// CTAs recorded.
    pub ctas_traced: usize,
    /// Cycles of the whole run.
    pub cycles: u64,
    /// Only spans overlapping this window were recorded, and only it is drawn.
    pub window: Option<CycleWindow>,
}

/// One span of a timeline: `[start, end)` on a track of an SM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The SM.
    pub sm: u32,
    /// The track within the SM.
    pub track: Track,
    /// What happened.
    pub kind: SpanKind,
    /// First cycle.
    pub start: u64,
    /// Cycle after the last.
    pub end: u64,
    /// The kernel source line of the instruction or wait, if known.
    pub source: Option<SourceLine>,
}

impl Span {
    /// A span `[start, end)` of `kind` on `track` of SM `sm` (an `end` before `start` is
    /// taken as `start`), with no source line.
    pub fn new(sm: u32, track: Track, kind: SpanKind, start: u64, end: u64) -> Self {
        Span { sm, track, kind, start, end: end.max(start), source: None }
    }
}

/// A recorded timeline.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    /// The spans, per SM in time order of completion.
    pub events: Vec<Span>,
    /// The tracks of each traced SM, `(sm, track)`, units first.
    pub threads: Vec<(u32, Track)>,
    /// Spans not recorded because the event limit was reached.
    pub dropped: u64,
    /// Spans not recorded because they lay outside [`TraceMeta::window`].
    pub outside_window: u64,
    /// Arrivals and the waits they released.
    pub flows: Vec<Flow>,
    /// What was run and recorded.
    pub meta: TraceMeta,
}

/// The renderings a trace can be written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// Chrome trace-event JSON (`.json`), for Perfetto and `chrome://tracing`.
    ChromeJson,
    /// A self-contained HTML page with a zoomable timeline (`.html`).
    Html,
    /// A standalone SVG picture (`.svg`).
    Svg,
}

impl TraceFormat {
    /// The format named by `path`'s extension (case-insensitive), if it names one.
    pub fn of_path(path: &Path) -> Option<TraceFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "json" => Some(TraceFormat::ChromeJson),
            "html" | "htm" => Some(TraceFormat::Html),
            "svg" => Some(TraceFormat::Svg),
            _ => None,
        }
    }

    /// Where a file of this format opens.
    pub fn viewer(self) -> &'static str {
        match self {
            TraceFormat::ChromeJson => "https://ui.perfetto.dev",
            TraceFormat::Html | TraceFormat::Svg => "a browser",
        }
    }
}

impl Trace {
    /// The trace rendered in `format`.
    pub fn render(&self, format: TraceFormat) -> String {
        match format {
            TraceFormat::ChromeJson => self.to_chrome_json(),
            TraceFormat::Html => self.to_html(),
            TraceFormat::Svg => self.to_svg(),
        }
    }

    /// Writes the trace to `path` in the format its extension names: `.json` (Chrome
    /// trace-event JSON), `.html` or `.svg`. Any other extension is an
    /// [`io::ErrorKind::InvalidInput`] error and nothing is written.
    pub fn write(&self, path: &Path) -> io::Result<()> {
        let format = TraceFormat::of_path(path).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "cannot tell the trace format of `{}`: name the file with .json (Perfetto), .html or .svg",
                    path.display()
                ),
            )
        })?;
        self.write_as(path, format)
    }

    /// Every track: those listed in [`Trace::threads`], then any only the spans name.
    pub(crate) fn tracks(&self) -> impl Iterator<Item = (u32, Track)> + '_ {
        self.threads.iter().copied().chain(self.events.iter().map(|e| (e.sm, e.track)))
    }

    /// The SMs the trace covers, ascending.
    pub(crate) fn sms(&self) -> Vec<u32> {
        let mut sms: Vec<u32> = self.tracks().map(|t| t.0).collect();
        sms.sort_unstable();
        sms.dedup();
        sms
    }

    /// Writes the trace to `path` in `format`, whatever the extension.
    pub fn write_as(&self, path: impl AsRef<Path>, format: TraceFormat) -> io::Result<()> {
        std::fs::write(path, self.render(format))
    }

    /// Writes [`Trace::to_chrome_json`] to `path`.
    pub fn write_chrome_json(&self, path: impl AsRef<Path>) -> io::Result<()> {
        self.write_as(path, TraceFormat::ChromeJson)
    }

    /// Writes [`Trace::to_html`] to `path`.
    pub fn write_html(&self, path: impl AsRef<Path>) -> io::Result<()> {
        self.write_as(path, TraceFormat::Html)
    }

    /// Writes [`Trace::to_svg`] to `path`.
    pub fn write_svg(&self, path: impl AsRef<Path>) -> io::Result<()> {
        self.write_as(path, TraceFormat::Svg)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn stage(name: &str, stage: u32) -> BarrierStage {
        BarrierStage { name: name.into(), stage }
    }

    pub(crate) fn warp(resident: u32, warp: u32, role: &'static str) -> Track {
        Track::Warp { resident, warp, role, instance: 0, of_instance: 0 }
    }

    /// A small trace: units, two resident CTAs, overlapping copies, a wait.
    pub(crate) fn sample() -> Trace {
        let w0 = warp(0, 0, "consumer<1>");
        let w1 = warp(0, 1, "producer");
        let w13 = warp(1, 1, "producer");
        let load = |s, bytes| TmaCopy::Load { bytes, barrier: stage("full", s) };
        Trace {
            events: vec![
                Span::new(
                    0,
                    Track::TensorCores,
                    SpanKind::MmaGroup { instrs: 4, n: 128, dtype: DType::Bf16 },
                    100,
                    180,
                ),
                Span::new(0, Track::Tma, SpanKind::Copy(load(0, 32768)), 0, 300),
                Span::new(0, Track::Tma, SpanKind::Copy(load(1, 32768)), 10, 320),
                Span::new(
                    0,
                    w0,
                    SpanKind::Wait(Awaited::Phase { barrier: stage("full <&\"'>", 0), parity: 0 }),
                    0,
                    301,
                ),
                Span::new(0, w0, SpanKind::Issued(Issued::Wgmma { instrs: 4, n: 128 }), 301, 305),
                Span::new(0, w1, SpanKind::Wait(Awaited::Phase { barrier: stage("empty", 0), parity: 1 }), 5, 50),
                Span::new(0, w13, SpanKind::Issued(Issued::Exec { pipe: ExecPipe::Fma, count: 8 }), 400, 420),
            ],
            threads: vec![(0, Track::TensorCores), (0, Track::Tma), (0, w0), (0, w1), (0, w13)],
            flows: vec![Flow { from: 1, to: 3 }],
            meta: TraceMeta {
                kernel: "sample",
                machine: "test machine",
                clock_ghz: 2.0,
                grid: [2, 1, 1],
                sms: 4,
                sms_traced: 1,
                ctas: 8,
                ctas_traced: 2,
                cycles: 420,
                window: None,
            },
            ..Trace::default()
        }
    }

    #[test]
    fn labels_and_categories_come_from_the_kinds() {
        let t = sample();
        let names: Vec<String> = t.events.iter().map(|e| e.kind.to_string()).collect();
        assert_eq!(names[0], "MMA x4 (n128, bf16)");
        assert_eq!(names[1], "TMA load 32768 B -> full[0]");
        assert_eq!(names[5], "wait empty[0] (parity 1)");
        assert_eq!(names[6], "FMA x8");
        let cats: Vec<String> = t.events.iter().map(|e| e.kind.category()).collect();
        assert_eq!((cats[0].as_str(), cats[1].as_str(), cats[5].as_str()), ("MMA", "TMA load", "wait empty"));
        assert!(t.events[5].kind.is_wait() && !t.events[4].kind.is_wait());
        let named = SpanKind::Wait(Awaited::NamedSync { name: "epilogue".into() });
        assert_eq!((named.to_string(), named.category()), ("bar.sync epilogue".into(), "bar.sync epilogue".into()));
        assert_eq!(warp(1, 13, "load").to_string(), "resident CTA 1, warp 13 `load` #0 (warp 0 of it)");
    }

    #[test]
    fn write_picks_the_format_by_extension() {
        let dir = std::env::temp_dir().join(format!("warpspec-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let trace = sample();
        for (file, starts) in [("t.json", "{\"displayTimeUnit\""), ("t.HTML", "<!DOCTYPE html>"), ("t.svg", "<?xml")] {
            let path = dir.join(file);
            trace.write(&path).expect("written");
            let text = std::fs::read_to_string(&path).expect("read back");
            assert!(text.starts_with(starts), "{file}: {}", &text[..40.min(text.len())]);
        }
        let err = trace.write(&dir.join("t.txt")).expect_err("unknown extension");
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(err.to_string().contains(".json (Perfetto), .html or .svg"), "{err}");
        assert!(!dir.join("t.txt").exists());
        assert!(trace.write(&dir.join("no_extension")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
