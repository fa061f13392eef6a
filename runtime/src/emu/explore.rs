//! Schedule exploration: a kernel run under many schedules, with the sanitizer on, until
//! one fails.

use std::fmt;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::error::EmuError;
use super::schedule::Policy;
use super::{EmuOptions, run_with};
use crate::dsl::Kernel;
use crate::launch::Grid;

/// A family of schedules for [`explore`]: schedule `i` runs under the policy seeded with
/// `seed + i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exploration {
    /// [`Policy::Random`] schedules.
    Random {
        /// Seed of schedule 0.
        seed: u64,
    },
    /// [`Policy::Pct`] schedules of the given depth. Their change points are spread over the
    /// steps of one run under [`Policy::Random`] with `seed`, which runs first.
    Pct {
        /// Seed of schedule 0.
        seed: u64,
        /// Bug depth: `depth - 1` priority change points per schedule.
        depth: u32,
    },
}

/// What [`explore`] ran.
#[derive(Clone, Debug, PartialEq)]
pub struct ExploreReport {
    /// Schedules run, all without error.
    pub schedules: usize,
    /// The most scheduling steps one CTA took.
    pub steps: u64,
    /// Host wall time.
    pub wall: Duration,
}

/// A schedule under which a kernel failed, with what it takes to replay it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExploreFailure {
    /// The kernel.
    pub kernel: &'static str,
    /// The failing schedule's index.
    pub schedule: usize,
    /// Schedules asked for.
    pub schedules: usize,
    /// The failing schedule: run [`run_with`] with `EmuOptions::checked().with_policy(policy)`
    /// to replay it.
    pub policy: Policy,
    /// How it failed.
    pub error: EmuError,
}

impl fmt::Display for ExploreFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "schedule {} of {} of kernel `{}` failed under {}:",
            self.schedule, self.schedules, self.kernel, self.policy
        )?;
        writeln!(f, "{}", self.error)?;
        write!(
            f,
            "replay it with: warpspec::emu::run_with::<{}::Kernel>(grid, &params, \
             &EmuOptions::checked().with_policy({}))",
            self.kernel, self.policy
        )
    }
}

impl std::error::Error for ExploreFailure {}

/// Runs kernel `K` over `grid` under `schedules` schedules of `exploration`, with race
/// detection on, in parallel on rayon's pool. Every schedule runs; the failure reported is
/// the one of lowest index, so the result does not depend on the thread count. Every run
/// writes the kernel's outputs in `params` again.
pub fn explore<K: Kernel>(
    grid: Grid,
    params: &K::Params,
    schedules: usize,
    exploration: Exploration,
) -> Result<ExploreReport, Box<ExploreFailure>> {
    let start = Instant::now();
    let failure = |schedule: usize, policy: Policy, error: EmuError| {
        Box::new(ExploreFailure { kernel: K::SPEC.name, schedule, schedules, policy, error })
    };
    let policy_of: Box<dyn Fn(usize) -> Policy + Sync> = match exploration {
        Exploration::Random { seed } => Box::new(move |i| Policy::Random { seed: seed.wrapping_add(i as u64) }),
        Exploration::Pct { seed, depth } => {
            let calibration = Policy::Random { seed };
            let options = EmuOptions::checked().with_policy(calibration);
            let steps = run_with::<K>(grid, params, &options).map_err(|e| failure(0, calibration, e))?.steps;
            Box::new(move |i| Policy::Pct { seed: seed.wrapping_add(i as u64), depth, steps })
        }
    };
    type Outcome = (u64, Option<(usize, Policy, EmuError)>);
    let (steps, first_failure) = (0..schedules)
        .into_par_iter()
        .map(|i| -> Outcome {
            let policy = policy_of(i);
            match run_with::<K>(grid, params, &EmuOptions::checked().with_policy(policy)) {
                Ok(report) => (report.steps, None),
                Err(error) => (0, Some((i, policy, error))),
            }
        })
        .reduce(
            || (0, None),
            |(steps_a, a), (steps_b, b)| {
                let first = match (a, b) {
                    (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
                    (a, b) => a.or(b),
                };
                (steps_a.max(steps_b), first)
            },
        );
    match first_failure {
        Some((i, policy, error)) => Err(failure(i, policy, error)),
        None => Ok(ExploreReport { schedules, steps, wall: start.elapsed() }),
    }
}
