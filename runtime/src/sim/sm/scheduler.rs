//! The sub-partition schedulers: at each step, each picks at most one eligible warp to issue
//! from, by its [`SchedulerPolicy`].

use crate::report::StallReason;

use super::{Env, NEVER, Sm};

/// How each sub-partition's scheduler picks among eligible warps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SchedulerPolicy {
    /// Greedy-then-oldest: the warp that issued last while it stays eligible, else the
    /// oldest eligible warp (earliest launched CTA, then lowest warp number).
    #[default]
    GreedyThenOldest,
    /// Loose round-robin: the first eligible warp after the one that issued last.
    LooseRoundRobin,
}

impl Sm {
    /// The warp sub-partition `s` issues from at cycle `t`, if any is eligible, and the
    /// earliest cycle any of its warps can issue. Opens each warp's stall interval for why
    /// it waits (or for not being selected).
    pub(super) fn pick(&mut self, s: usize, t: u64, env: &Env<'_>) -> (Option<usize>, u64) {
        let mut next = NEVER;
        let mut greedy = None;
        let mut first_eligible = None;
        let mut after_last = None;
        let last = self.smsps[s].last_issued;
        let mut seen_last = false;
        for pos in 0..self.smsps[s].warps.len() {
            let w = self.smsps[s].warps[pos] as usize;
            let (ready, reason) = self.ready(w, s, env.timing);
            let is_last = Some(w as u32) == last;
            if ready <= t {
                self.account(w, t, StallReason::NotSelected);
                first_eligible.get_or_insert(w);
                if is_last {
                    greedy = Some(w);
                } else if seen_last {
                    after_last.get_or_insert(w);
                }
                next = next.min(t + 1);
            } else {
                self.account(w, t, reason);
                next = next.min(ready);
            }
            seen_last |= is_last;
        }
        let pick = match env.policy {
            SchedulerPolicy::GreedyThenOldest => greedy.or(first_eligible),
            SchedulerPolicy::LooseRoundRobin => after_last.or(first_eligible),
        };
        (pick, next)
    }
}
