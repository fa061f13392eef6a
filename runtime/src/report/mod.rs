//! What a timing run reports: [`SimReport`] (time, throughput, unit utilisation, bytes and
//! bandwidth per memory level, stall reasons per role with the barriers each role waits on,
//! the kernel source lines with the most stall cycles, waves) with a terminal summary as its
//! `Display` (`summary`), and the per-warp timeline ([`Trace`]: typed spans on typed
//! tracks, rendered as Chrome trace-event JSON, HTML or SVG).

mod chrome;
mod clocks;
mod op_times;
mod palette;
mod source;
mod stall;
mod summary;
mod timeline;
mod trace;
mod traffic;

use std::time::Duration;

pub use clocks::{ClockFigures, ClockLine};
pub use op_times::{LineTime, OpTimes, WarpClass, WarpMarks};
pub(crate) use source::role_waits;
pub use source::{RoleWait, SiteOp, SourceSite, WaitTarget};
pub use stall::{StallCycles, StallReason};
pub use trace::{
    Awaited, BarrierStage, CycleWindow, Direction, Flow, Issued, SourceLine, Span, SpanKind, TmaCopy, Trace,
    TraceFormat, TraceMeta, Track,
};
pub use traffic::{L2Sources, LevelTraffic, MemoryLevel};

/// A unit whose utilisation a run reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Tensor cores: busy cycles / (cycles x SMs).
    TensorCores,
    /// TMA units: busy cycles / (cycles x SMs).
    Tma,
    /// Issue slots: warp-instructions issued / (cycles x SMs x sub-partitions).
    Issue,
    /// FMA pipes: busy cycles / (cycles x SMs x sub-partitions).
    Fma,
    /// ALU pipes, likewise.
    Alu,
    /// MUFU pipes, likewise.
    Mufu,
    /// LSU pipes, likewise.
    Lsu,
    /// Uniform datapaths, likewise.
    Uniform,
    /// Shared-memory ports: bytes / (cycles x SMs x bytes per cycle).
    Smem,
    /// L2 bandwidth: busy cycles / cycles.
    L2,
    /// HBM bandwidth: busy cycles / cycles.
    Hbm,
}

impl Unit {
    /// Every unit, in index order.
    pub const ALL: [Unit; 11] = [
        Unit::TensorCores,
        Unit::Tma,
        Unit::Issue,
        Unit::Fma,
        Unit::Alu,
        Unit::Mufu,
        Unit::Lsu,
        Unit::Uniform,
        Unit::Smem,
        Unit::L2,
        Unit::Hbm,
    ];

    /// The unit of an execution pipe.
    pub const fn of_pipe(pipe: crate::sim::timing::ExecPipe) -> Unit {
        use crate::sim::timing::ExecPipe;
        match pipe {
            ExecPipe::Fma => Unit::Fma,
            ExecPipe::Alu => Unit::Alu,
            ExecPipe::Mufu => Unit::Mufu,
            ExecPipe::Lsu => Unit::Lsu,
            ExecPipe::Uniform => Unit::Uniform,
        }
    }

    /// Short name, as the summary prints it.
    pub const fn name(self) -> &'static str {
        match self {
            Unit::TensorCores => "tensor",
            Unit::Tma => "TMA",
            Unit::Issue => "issue",
            Unit::Fma => "FMA",
            Unit::Alu => "ALU",
            Unit::Mufu => "MUFU",
            Unit::Lsu => "LSU",
            Unit::Uniform => "UDP",
            Unit::Smem => "smem",
            Unit::L2 => "L2",
            Unit::Hbm => "HBM",
        }
    }
}

/// Fraction of capacity each unit was busy, over all SMs and the whole run (0.0..=1.0),
/// indexed by [`Unit`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Utilisation([f64; Unit::ALL.len()]);

impl Utilisation {
    /// Utilisation from one value per unit.
    pub fn from_fn(mut busy: impl FnMut(Unit) -> f64) -> Self {
        Utilisation(Unit::ALL.map(&mut busy))
    }

    /// Every unit with its utilisation, in [`Unit::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = (Unit, f64)> + '_ {
        Unit::ALL.into_iter().zip(self.0)
    }
}

impl std::ops::Index<Unit> for Utilisation {
    type Output = f64;

    fn index(&self, unit: Unit) -> &f64 {
        &self.0[unit as usize]
    }
}

/// Warp-cycles of one role, by stall reason.
#[derive(Clone, Debug, PartialEq)]
pub struct RoleStalls {
    /// The role's name.
    pub role: &'static str,
    /// Warps of the role per CTA.
    pub warps_per_cta: u32,
    /// Warp-cycles summed over every warp of the role in every CTA.
    pub cycles: StallCycles,
    /// The same warp-cycles' share spent in waits, per object waited on (mbarrier stage,
    /// named barrier, MMA groups, stores), most stall cycles first. An mbarrier wait counts
    /// as `long_scoreboard` in [`RoleStalls::cycles`] (see [`StallReason`]); this tells which
    /// barrier and stage it was.
    pub waits: Vec<RoleWait>,
}

impl RoleStalls {
    /// The reasons with cycles, largest first, each with its share of the role's warp-cycles.
    pub fn ranked(&self) -> Vec<(StallReason, f64)> {
        let total = self.cycles.total();
        let mut parts: Vec<(StallReason, u64)> =
            StallReason::ALL.iter().map(|&r| (r, self.cycles.get(r))).filter(|&(_, c)| c > 0).collect();
        parts.sort_by_key(|p| std::cmp::Reverse(p.1));
        parts.into_iter().map(|(r, c)| (r, c as f64 / total as f64)).collect()
    }
}

/// How the grid filled the machine.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Waves {
    /// CTAs resident per SM at once (the occupancy).
    pub ctas_per_sm: u32,
    /// CTAs the machine holds at once (`ctas_per_sm x SMs`; with clusters, the resident
    /// clusters times their CTAs: clusters are placed whole on one GPC each).
    pub capacity: usize,
    /// `ctas / capacity`: full waves plus the fraction of the last one.
    pub waves: f64,
    /// CTAs in the last, partial wave (0 if the grid is a whole number of waves).
    pub tail_ctas: usize,
    /// Cycles from the first moment a CTA slot found the grid exhausted to the end of the
    /// run: the tail, during which some SMs idle.
    pub tail_cycles: u64,
    /// CTAs per cluster (1 without clusters).
    pub cluster_ctas: u32,
}

/// Host-side cost of the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HostCost {
    /// Wall time of the simulation.
    pub wall: Duration,
    /// Simulated SM-cycles (`cycles x SMs`).
    pub sm_cycles: u64,
}

impl HostCost {
    /// Simulated SM-cycles per second of host time.
    pub fn sm_cycles_per_second(&self) -> f64 {
        self.sm_cycles as f64 / self.wall.as_secs_f64().max(1e-9)
    }
}

/// The result of a timing run.
#[derive(Clone, Debug, PartialEq)]
pub struct SimReport {
    /// The kernel.
    pub kernel: &'static str,
    /// The machine's name.
    pub machine: &'static str,
    /// SMs of the machine.
    pub sms: u32,
    /// The simulated clock, GHz.
    pub clock_ghz: f64,
    /// CTAs of the grid.
    pub ctas: usize,
    /// Warps per CTA.
    pub warps_per_cta: u32,
    /// What limits the CTAs per SM (occupancy calculator's limiter).
    pub occupancy_limiter: String,
    /// Waves and tail.
    pub waves: Waves,
    /// Total simulated cycles (until the last CTA retired).
    pub cycles: u64,
    /// Floating-point operations of all MMAs (2 per multiply-add).
    pub mma_flops: u64,
    /// Peak dense bf16 tensor throughput of the machine at the clock, TFLOP/s.
    pub peak_tflops: f64,
    /// Unit utilisation.
    pub utilisation: Utilisation,
    /// TMA loads that hit in L2, and that missed.
    pub l2_hits: u64,
    /// TMA and global loads that missed in L2.
    pub l2_misses: u64,
    /// TMA loads answered by another load of the same data still in flight (the L2's request
    /// coalescer), neither hits nor misses.
    pub l2_coalesced: u64,
    /// Bytes of those coalesced loads.
    pub l2_coalesced_bytes: u64,
    /// Of the hits, TMA loads some of whose lines came from the far L2 partition.
    pub l2_far_hits: u64,
    /// Bytes of the TMA loads that reached the L2's slices, by where they came from.
    pub l2_sources: L2Sources,
    /// Bytes moved per memory level ([`MemoryLevel::ALL`] order; tensor memory only on
    /// machines that have it).
    pub traffic: Vec<LevelTraffic>,
    /// Stall reasons per role, in declaration order.
    pub roles: Vec<RoleStalls>,
    /// Warp-cycles per kernel source site (line and DSL operation of a role), most stall
    /// cycles first: the source view.
    pub sources: Vec<SourceSite>,
    /// Time and throughput at the predicted burst and sustained clocks
    /// (`sim::clock::figures`).
    pub clocks: Option<ClockFigures>,
    /// The timeline, if tracing was on.
    pub trace: Option<Trace>,
    /// Host-side cost.
    pub host: HostCost,
}

impl SimReport {
    /// Simulated time in seconds at the clock.
    pub fn seconds(&self) -> f64 {
        self.cycles as f64 / (self.clock_ghz * 1e9)
    }

    /// MMA throughput in TFLOP/s of simulated time.
    pub fn tflops(&self) -> f64 {
        let s = self.seconds();
        if s > 0.0 { self.mma_flops as f64 / s / 1e12 } else { 0.0 }
    }

    /// [`SimReport::tflops`] as a percentage of the machine's dense bf16 peak at the clock.
    pub fn percent_of_peak(&self) -> f64 {
        if self.peak_tflops > 0.0 { 100.0 * self.tflops() / self.peak_tflops } else { 0.0 }
    }

    /// The busiest unit and its utilisation: what bounds a kernel without MMAs (ties go to
    /// the unit listed first in [`Unit::ALL`]).
    pub fn bottleneck(&self) -> (Unit, f64) {
        self.utilisation.iter().fold((Unit::TensorCores, f64::NEG_INFINITY), |best, (unit, busy)| {
            if busy > best.1 { (unit, busy) } else { best }
        })
    }

    /// Bandwidth of `level` in GB/s at the simulated clock (0 if the run did not count it).
    pub fn gb_per_s(&self, level: MemoryLevel) -> f64 {
        self.traffic.iter().find(|t| t.level == level).map_or(0.0, |t| t.gb_per_s(self.seconds()))
    }
}
