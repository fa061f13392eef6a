//! Scheduling policies of the per-CTA executor: which runnable role instance runs next.

use std::fmt;

use crate::rng::Rng;

/// How a CTA's executor picks the next role instance to run.
///
/// [`Policy::RoundRobin`] polls the instances in warp order and lets each run until it
/// blocks: deterministic, and the fastest. The exploring policies also make every wait a
/// scheduling point (an instance yields at each wait, ready or not) and pick among the
/// instances that can run: [`Policy::Random`] uniformly, [`Policy::Pct`] by probabilistic
/// concurrency testing (Burckhardt et al., ASPLOS 2010): random priorities, the highest
/// runnable priority runs, and at `depth - 1` random steps the running instance drops below
/// every other. Both are reproducible from their seed; each CTA derives its own stream from
/// the seed and its index, so results do not depend on how CTAs are spread over threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Warp order, each instance until it blocks (the default).
    #[default]
    RoundRobin,
    /// A uniformly random runnable instance at each step.
    Random {
        /// The schedule's seed.
        seed: u64,
    },
    /// Probabilistic concurrency testing.
    Pct {
        /// The schedule's seed.
        seed: u64,
        /// Bug depth targeted: `depth - 1` priority change points.
        depth: u32,
        /// Steps the change points are spread over: about the steps one CTA takes
        /// ([`crate::emu::EmuReport::steps`] of a run under [`Policy::Random`]).
        steps: u64,
    },
}

impl fmt::Display for Policy {
    /// The policy as the Rust expression that replays it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::RoundRobin => f.write_str("Policy::RoundRobin"),
            Policy::Random { seed } => write!(f, "Policy::Random {{ seed: {seed} }}"),
            Policy::Pct { seed, depth, steps } => {
                write!(f, "Policy::Pct {{ seed: {seed}, depth: {depth}, steps: {steps} }}")
            }
        }
    }
}

/// The exploring executor's choice of the next instance.
pub(super) enum Picker {
    /// Uniformly among the runnable instances.
    Random(Rng),
    /// PCT: the runnable instance of highest priority.
    Pct {
        /// Priority of each instance; higher runs first.
        priorities: Vec<u64>,
        /// Steps at which the running instance's priority drops, in increasing order.
        change_points: Vec<u64>,
        /// Change points passed so far.
        changed: usize,
    },
}

impl Picker {
    /// The picker of `policy` for CTA `cta` with `instances` role instances, or `None` for
    /// round-robin.
    pub fn new(policy: Policy, cta: usize, instances: usize) -> Option<Self> {
        match policy {
            Policy::RoundRobin => None,
            Policy::Random { seed } => Some(Picker::Random(Rng::seeded(seed, cta as u64))),
            Policy::Pct { seed, depth, steps } => {
                let mut rng = Rng::seeded(seed, cta as u64);
                let changes = u64::from(depth.saturating_sub(1));
                // Initial priorities: a random permutation of changes + 1 ..= changes + n, all
                // above the priorities change points hand out (changes ..= 1).
                let mut priorities: Vec<u64> = (0..instances as u64).map(|i| changes + 1 + i).collect();
                for i in (1..priorities.len()).rev() {
                    let j = rng.below(i as u64 + 1) as usize;
                    priorities.swap(i, j);
                }
                let mut change_points: Vec<u64> = (0..changes).map(|_| rng.below(steps.max(1))).collect();
                change_points.sort_unstable();
                Some(Picker::Pct { priorities, change_points, changed: 0 })
            }
        }
    }

    /// Picks one of `runnable` (instance indices, not empty) for step `step`.
    pub fn pick(&mut self, runnable: &[usize], step: u64) -> usize {
        match self {
            Picker::Random(rng) => runnable[rng.below(runnable.len() as u64) as usize],
            Picker::Pct { priorities, change_points, changed } => {
                let best = |priorities: &[u64]| runnable.iter().copied().max_by_key(|&i| priorities[i]).unwrap_or(0);
                let mut pick = best(priorities);
                while *changed < change_points.len() && change_points[*changed] <= step {
                    *changed += 1;
                    priorities[pick] = (change_points.len() - *changed + 1) as u64;
                    pick = best(priorities);
                }
                pick
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_reproduce_and_ctas_differ() {
        let draw = |seed, cta| {
            let mut r = Rng::seeded(seed, cta as u64);
            (0..4).map(|_| r.below(10)).collect::<Vec<_>>()
        };
        assert_eq!(draw(7, 0), draw(7, 0));
        assert_ne!(draw(7, 0), draw(7, 1));
        assert!(draw(7, 3).iter().all(|&v| v < 10));
    }

    #[test]
    fn pct_runs_the_highest_priority_until_a_change_point() {
        let policy = Policy::Pct { seed: 3, depth: 2, steps: 10 };
        let Some(mut picker) = Picker::new(policy, 0, 3) else { panic!("PCT has a picker") };
        let Picker::Pct { priorities, change_points, .. } = &picker else { panic!() };
        let (first, point) = ((0..3).max_by_key(|&i| priorities[i]).unwrap_or(0), change_points[0]);
        for step in 0..point {
            assert_eq!(picker.pick(&[0, 1, 2], step), first);
        }
        assert_ne!(picker.pick(&[0, 1, 2], point), first, "the change point demotes the running instance");
        assert_eq!(policy.to_string(), "Policy::Pct { seed: 3, depth: 2, steps: 10 }");
    }
}
