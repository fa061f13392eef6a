//! The functional emulator: runs every CTA of a launch on the CPU with real data.
//!
//! Each role instance of a CTA is a future polled by a per-CTA executor; barrier waits are
//! the suspension points and follow Hopper `mbarrier` semantics ([`MBarrier`]). TMA copies
//! and MMAs complete when issued. CTAs run in parallel on rayon's pool; within a CTA the
//! instances are polled round-robin in warp order, so results are bitwise identical across
//! runs and thread counts. When every live instance of a CTA is blocked, the run stops with
//! a [`Deadlock`] report instead of hanging.

mod cta;
mod error;
mod mbarrier;

use std::time::{Duration, Instant};

use rayon::prelude::*;

pub use error::{BlockedInstance, Deadlock, EmuError};
pub use mbarrier::MBarrier;

use crate::dsl::{Kernel, SmemBuffer};
use crate::launch::{self, Grid};

/// What an emulated launch did.
#[derive(Clone, Debug, PartialEq)]
pub struct EmuReport {
    /// CTAs run.
    pub ctas: usize,
    /// Host wall time of the run.
    pub wall: Duration,
    /// Floating-point operations of all MMAs (2 per multiply-add).
    pub mma_flops: u64,
}

impl EmuReport {
    /// MMA throughput of the emulation in GFLOP/s of host time.
    pub fn gflops(&self) -> f64 {
        self.mma_flops as f64 / self.wall.as_secs_f64() / 1e9
    }
}

/// Runs kernel `K` over `grid` with launch arguments `params`.
///
/// Returns an error if the launch is invalid, if a CTA deadlocks, if role code faults (an
/// out-of-range tile copy, an MMA wait that does not cover its group, ...) or panics.
pub fn run<K: Kernel>(grid: Grid, params: &K::Params) -> Result<EmuReport, EmuError> {
    let spec = launch::check::<K>(&grid)?;
    let start = Instant::now();
    // Shared memory is allocated once per rayon job and zeroed for each CTA.
    let results: Vec<Result<u64, EmuError>> = (0..grid.ctas())
        .into_par_iter()
        .map_init(|| K::Smem::allocate(true), |smem, linear| cta::run_cta::<K>(spec, &grid, linear, params, smem))
        .collect();
    let mut mma_flops = 0;
    for result in results {
        mma_flops += result?;
    }
    Ok(EmuReport { ctas: grid.ctas(), wall: start.elapsed(), mma_flops })
}
