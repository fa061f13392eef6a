//! The functional emulator: runs every CTA of a launch on the CPU with real data, and checks
//! the kernel's barrier protocol as it goes.
//!
//! Each role instance of a CTA is a future polled by a per-CTA executor; barrier waits are
//! the suspension points and follow Hopper `mbarrier` semantics ([`MBarrier`]). TMA copies
//! and MMAs complete when issued. CTAs run in parallel on rayon's pool.
//!
//! **Executors.** By default ([`Policy::RoundRobin`]) the instances of a CTA are polled in
//! warp order, each until it blocks, so results are bitwise identical across runs and thread
//! counts. [`Policy::Random`] and [`Policy::Pct`] explore other interleavings reproducibly
//! from a seed, and [`explore`] runs a kernel under many of them. With
//! [`EmuOptions::parallel_warps`] each instance runs on its own OS thread, for real
//! concurrency. When every live instance of a CTA is blocked, the run stops with a
//! [`Deadlock`] report instead of hanging.
//!
//! **Sanitizer.** Every run checks the protocol and stops at the first [`Violation`]:
//! over-arrival, transaction bytes above or below what was expected, a wait on a phase the
//! barrier has lapped, a barrier stage that was never initialised, a pipeline token dropped
//! without hand-over, and a CTA or instance ending with arrivals, bytes, MMAs or TMA stores
//! pending. With [`EmuOptions::race_detection`] (on by default, in release builds too) it
//! also runs a happens-before race detector over shared-memory and tensor-memory tiles
//! (vector clocks carried by arrives and waits), which reports a tile read while the TMA
//! write filling it is in flight, written while a warpgroup MMA, a `tcgen05` MMA, a TMA store
//! or another warp may still read it, or read from tensor memory before the commit of the MMA
//! writing it arrived; and it checks barrier order (below). Every report names the tile by
//! its `#[shared]` field, and the warps, role, barrier, phase and kernel source line involved.
//!
//! **Why the default schedule is enough.** Round-robin shows one interleaving; the race
//! detector and the barrier-order checks make its verdict hold for all of them, so
//! [`explore`] finds nothing the default run misses for today's semantics. The argument:
//! (1) role code cannot observe the schedule: no DSL operation returns a value that depends
//! on timing (waits block until their condition holds; there is no `try_wait`), so each
//! instance's sequence of operations depends only on the data it reads, and the data it reads
//! from tiles depends on the schedule only through a race, which the detector reports from
//! any one run because the happens-before order it computes is the same in every schedule
//! (3). (2) Waits are monotone (once a phase or named-barrier use has completed it stays
//! completed) except when a parity names a lapped phase, and the barrier-order check reports
//! every completion of phase `p` not ordered after a wait that passed on phase `p - 1`, which
//! is exactly when another schedule could lap that wait. (3) Which phase (or named-barrier
//! use) an arrival joins is fixed across schedules when each arrival is ordered after the
//! completion of the previous phase (use); the check reports every arrival that is not. With
//! (1)-(3), every schedule issues the same operations and matches each wait with the same
//! phase, so the synchronisation, the happens-before order, and whether every instance can
//! finish (a system of monotone waits reaches the same final state under every fair
//! schedule) are the same as in the round-robin run: a deadlock, a race or a protocol
//! violation in any schedule shows in the default run. [`explore`] and the parallel-warps
//! executor stay as cross-checks of this argument (they run the example kernels clean under
//! thousands of schedules) and for kernels run with race detection off.
//!
//! Barrier initialisation itself cannot be misused from kernel code: the DSL has no
//! `mbarrier.init`. Every mbarrier a kernel declares is initialised (with the count its
//! declaration gives) and made visible before any role runs, as CUTLASS's prologue does; what
//! remains is a stage index outside the declared array, which is reported as a use of an
//! uninitialised barrier.

mod cta;
mod error;
mod explore;
pub mod memory;
mod monitor;
mod peer;
mod race;
mod schedule;
mod state;
mod threads;
mod tiles;

use std::time::{Duration, Instant};

use rayon::prelude::*;

pub use error::{
    Arrival, BarrierRef, BlockedInstance, Deadlock, EmuError, Instance, Race, RaceAccess, Violation, ViolationKind,
};
pub use explore::{Exploration, ExploreFailure, ExploreReport, explore};
pub use schedule::Policy;
pub use warpspec_hw::MBarrier;

use warpspec_hw::CtaLimits;

use crate::dsl::{Kernel, SmemBuffer};
use crate::launch::{self, Grid};

/// The per-CTA limits an emulated launch is checked against: [`CtaLimits::ANY`], what at
/// least one known machine allows. The emulator models no particular GPU and runs both
/// Hopper kernels and Blackwell kernels with tensor memory, so it rejects only what no
/// machine could run; the timing model checks against the limits of its own machine.
pub const LIMITS: CtaLimits = CtaLimits::ANY;

/// What an emulated launch did.
#[derive(Clone, Debug, PartialEq)]
pub struct EmuReport {
    /// CTAs run.
    pub ctas: usize,
    /// Host wall time of the run.
    pub wall: Duration,
    /// Floating-point operations of all MMAs (2 per multiply-add).
    pub mma_flops: u64,
    /// The most scheduling steps (polls of role instances) one CTA took.
    pub steps: u64,
}

impl EmuReport {
    /// MMA throughput of the emulation in GFLOP/s of host time.
    pub fn gflops(&self) -> f64 {
        self.mma_flops as f64 / self.wall.as_secs_f64() / 1e9
    }
}

/// How the emulator runs a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EmuOptions {
    /// The order in which each CTA's executor runs its role instances (ignored with
    /// `parallel_warps`).
    pub policy: Policy,
    /// Runs each CTA's role instances on distinct OS threads, concurrently.
    pub parallel_warps: bool,
    /// Checks every shared-memory and tensor-memory tile access for races, and the order of
    /// barrier arrivals and phases (on by default, in every build: it costs a few percent of
    /// emulation speed; the protocol checks are always on).
    pub race_detection: bool,
    /// With `parallel_warps`: how long a blocked instance waits without any progress in its
    /// CTA before the run stops with a deadlock report.
    pub watchdog: Duration,
}

impl Default for EmuOptions {
    /// Round-robin on one thread per CTA, a 10 s watchdog, race detection on (in release
    /// builds too; turn it off with [`EmuOptions::with_race_detection`]).
    fn default() -> Self {
        Self {
            policy: Policy::RoundRobin,
            parallel_warps: false,
            race_detection: true,
            watchdog: Duration::from_secs(10),
        }
    }
}

impl EmuOptions {
    /// The defaults, with race detection on (as it is by default; kept for callers that
    /// want to say so).
    pub fn checked() -> Self {
        Self { race_detection: true, ..Self::default() }
    }

    /// These options under `policy`.
    pub fn with_policy(self, policy: Policy) -> Self {
        Self { policy, ..self }
    }

    /// These options with race detection on or off.
    pub fn with_race_detection(self, race_detection: bool) -> Self {
        Self { race_detection, ..self }
    }

    /// These options with each CTA's instances on distinct threads, and the watchdog that
    /// bounds their waits.
    pub fn with_parallel_warps(self, watchdog: Duration) -> Self {
        Self { parallel_warps: true, watchdog, ..self }
    }
}

/// Runs kernel `K` over `grid` with launch arguments `params`, with the default
/// [`EmuOptions`].
///
/// Returns an error if the launch is invalid or would need more host memory than is
/// available ([`memory::check`]), if a CTA deadlocks, if role code faults (an
/// out-of-range tile copy, an MMA wait that does not cover its group, ...) or panics, or if
/// the sanitizer finds a protocol violation.
pub fn run<K: Kernel>(grid: Grid, params: &K::Params) -> Result<EmuReport, EmuError> {
    run_with::<K>(grid, params, &EmuOptions::default())
}

/// Runs kernel `K` over `grid` with launch arguments `params` as `options` say. The error
/// returned is that of the first failing CTA in launch order.
pub fn run_with<K: Kernel>(grid: Grid, params: &K::Params, options: &EmuOptions) -> Result<EmuReport, EmuError> {
    let spec = launch::check::<K>(&grid, &LIMITS)?;
    // The CTAs of a cluster run together, on one job: each job holds a cluster's shared memory.
    let ranks = spec.cluster_shape().ctas() as usize;
    let clusters = grid.ctas() / ranks;
    let workers = rayon::current_num_threads().min(clusters);
    memory::check(spec, workers * ranks, options.race_detection)?;
    let start = Instant::now();
    // Shared memory is allocated once per rayon job (one per CTA of a cluster, one after the
    // other) and zeroed for each cluster; the ordinal of its first tile storage lets reports
    // name tiles by field (and CTA).
    let results: Vec<Result<cta::CtaRun, EmuError>> = (0..clusters)
        .into_par_iter()
        .map_init(
            || (crate::dsl::next_cell_ordinal(), (0..ranks).map(|_| K::Smem::allocate(true)).collect::<Vec<_>>()),
            |(base, smems), cluster| {
                if options.parallel_warps {
                    threads::run_cluster::<K>(spec, &grid, cluster, params, smems, *base, options)
                } else {
                    cta::run_cluster::<K>(spec, &grid, cluster, params, smems, *base, options)
                }
            },
        )
        .collect();
    let mut mma_flops = 0;
    let mut steps = 0;
    for result in results {
        let run = result?;
        mma_flops += run.flops;
        steps = steps.max(run.steps);
    }
    Ok(EmuReport { ctas: grid.ctas(), wall: start.elapsed(), mma_flops, steps })
}
