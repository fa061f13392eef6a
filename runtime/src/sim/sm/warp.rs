//! Warps and their scoreboard: what each resident warp has queued, when its next
//! instruction's operands are ready, which unit it needs, and why it cannot issue.

use std::collections::VecDeque;

use crate::dsl::Wait;
use crate::report::{StallCycles, StallReason};

use super::super::lower::{Dep, Instr};
use super::super::mix::MIX_PARTS;
use super::super::sites::{Queued, Site};
use super::super::timing::{ExecPipe, Timing};
use super::super::wait_forms::WaitForm;
use super::{NEVER, Sm, ceil};

/// Why a warp cannot issue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Block {
    /// Not blocked.
    No,
    /// Blocked until the cycle, for the reason.
    Until(u64, StallReason),
    /// Blocked until something it waits on changes.
    Forever(StallReason),
}

/// One resident warp.
#[derive(Debug)]
pub(super) struct Warp {
    pub live: bool,
    /// The resident CTA it belongs to.
    pub resident: u32,
    pub instance: u32,
    pub smsp: u32,
    pub role: u16,
    pub queue: VecDeque<Queued>,
    /// Instructions of the head burst still to issue (0: the head has not started).
    pub head_left: u32,
    /// Issue cycle of the head burst's first instruction (or of a wait's first test).
    pub head_start: u64,
    /// First result of the head burst (for global loads: when its first data returns).
    pub head_first_result: u64,
    /// Operands of the next result-consuming instruction are ready at this cycle...
    pub dep_ready: u64,
    /// ...and until then the warp stalls for this reason.
    pub dep_reason: StallReason,
    /// Inside a [`Dep::Chain`] or [`Dep::Bookkeeping`] burst: the previous instruction's result.
    pub chain_ready: u64,
    /// Fractional cycles of stretched chain latency not yet charged.
    pub chain_debt: f64,
    /// Inside an [`Instr::Mix`]: instructions issued of each part (all zero outside one)...
    pub mix_issued: [u16; MIX_PARTS],
    /// ...and when each part's first instruction may issue (the first result of the part
    /// before it).
    pub mix_ready: [u64; MIX_PARTS],
    pub block: Block,
    /// The warp may issue again from this cycle (its last arithmetic instruction's fixed
    /// stall, `issue.fixed_stall_cycles`)...
    pub issue_free: u64,
    /// ...and the fractional cycles of fixed stall not yet charged.
    pub stall_debt: f64,
    /// Whether the head wait has been tested once (a `bar.sync` arrives on its first test).
    pub wait_started: bool,
    /// When the warp issued the [`Instr::TryWait`] of the wait ahead, if it did, and how
    /// that wait addresses its barrier.
    pub try_wait: Option<(u64, WaitForm)>,
    /// The warp's latest `wgmma` fence: the index of the collective it comes before and the
    /// cycle the first descriptor instruction after the collective before it issued.
    pub fence: Option<(u32, u64)>,
    /// Uses of `barrier.cluster` the warp has arrived at.
    pub cluster_syncs: u32,
    /// The use of the named barrier the warp arrived at.
    pub named_generation: u64,
    pub waits_passed: u32,
    pub collectives: u32,
    pub mma_groups: u32,
    pub stores: u32,
    pub stalls: StallCycles,
    pub traced: bool,
}

impl Warp {
    /// A warp slot of the SM with no warp in it.
    pub fn idle() -> Self {
        Warp {
            live: false,
            resident: 0,
            instance: 0,
            smsp: 0,
            role: 0,
            queue: VecDeque::new(),
            head_left: 0,
            head_start: 0,
            head_first_result: 0,
            dep_ready: 0,
            dep_reason: StallReason::Wait,
            chain_ready: 0,
            chain_debt: 0.0,
            mix_issued: [0; MIX_PARTS],
            mix_ready: [0; MIX_PARTS],
            block: Block::No,
            issue_free: 0,
            stall_debt: 0.0,
            wait_started: false,
            try_wait: None,
            fence: None,
            cluster_syncs: 0,
            named_generation: 0,
            waits_passed: 0,
            collectives: 0,
            mma_groups: 0,
            stores: 0,
            stalls: StallCycles::default(),
            traced: false,
        }
    }
}

/// A sub-partition unit a warp's next instruction needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Needs {
    /// None (issue cycle only).
    Nothing,
    /// A pipe, admitting the instruction once its queue has room.
    Pipe(ExecPipe),
    /// The tensor-memory port.
    Tmem,
}

/// The hot part of a warp: when it can next issue (cached, recomputed only when its state
/// changes; other warps' issues can only make its units busier, so the cache is a lower
/// bound that the scheduler re-checks) and its current stall interval.
#[derive(Clone, Copy, Debug)]
pub(super) struct Gate {
    /// Operands ready (or wake-up) at this cycle...
    at: u64,
    /// ...and the warp stalls for this reason until then.
    at_reason: StallReason,
    /// The unit the next instruction needs...
    needs: Needs,
    /// ...and the reason while it is busy.
    needs_reason: StallReason,
    /// The reason of the open stall interval...
    pub reason: StallReason,
    /// ...which started at this cycle...
    pub since: u64,
    /// ...at the instruction of this source site (the head of the queue then).
    pub site: Site,
}

impl Gate {
    /// A gate that never opens, with a stall interval starting at `t`.
    pub fn idle(t: u64) -> Self {
        Gate {
            at: NEVER,
            at_reason: StallReason::NoInstruction,
            needs: Needs::Nothing,
            needs_reason: StallReason::NoInstruction,
            reason: StallReason::Selected,
            since: t,
            site: Site::NONE,
        }
    }
}

/// The stall reason of a warp whose pipe is busy.
fn throttle(pipe: ExecPipe) -> StallReason {
    match pipe {
        ExecPipe::Fma | ExecPipe::Alu | ExecPipe::Uniform => StallReason::MathPipeThrottle,
        ExecPipe::Mufu | ExecPipe::Lsu => StallReason::MioThrottle,
    }
}

/// The stall reason of a warp waiting for a result of `pipe`.
pub(super) fn result_reason(pipe: ExecPipe) -> StallReason {
    match pipe {
        ExecPipe::Fma | ExecPipe::Alu | ExecPipe::Uniform => StallReason::Wait,
        ExecPipe::Mufu | ExecPipe::Lsu => StallReason::ShortScoreboard,
    }
}

/// The stall reason of a warp blocked in `wait`.
pub(super) fn wait_reason(wait: &Wait) -> StallReason {
    match wait {
        Wait::Parity { .. } | Wait::Store { .. } => StallReason::LongScoreboard,
        Wait::Mma { .. } => StallReason::Wait,
        Wait::NamedSync { .. } | Wait::ClusterSync => StallReason::Barrier,
    }
}

impl Sm {
    /// Wakes warp `w` at cycle `at`, keeping its stall reason.
    pub(super) fn wake(&mut self, w: usize, at: u64) {
        let warp = &mut self.warps[w];
        let reason = match warp.block {
            Block::Until(_, r) | Block::Forever(r) => r,
            Block::No => return,
        };
        warp.block = Block::Until(at, reason);
        self.refresh(w);
        self.wake_hint = self.wake_hint.min(at);
    }

    /// Closes warp `w`'s stall interval at `t` if its reason changes to `reason` or the
    /// instruction at the head of its queue has changed (its source site with it).
    pub(super) fn account(&mut self, w: usize, t: u64, reason: StallReason) {
        let site = self.head_site(w);
        let gate = &mut self.gates[w];
        if reason != gate.reason || site != gate.site {
            if t > gate.since {
                self.warps[w].stalls.add(gate.reason, t - gate.since);
                self.stats.site_cycles.add(gate.site, gate.reason, t - gate.since);
            }
            gate.since = t;
            gate.reason = reason;
            gate.site = site;
        }
    }

    /// The source site of warp `w`'s next instruction (inside a mix, that of the part whose
    /// instruction is next).
    pub(super) fn head_site(&self, w: usize) -> Site {
        let warp = &self.warps[w];
        match warp.queue.front() {
            Some(Queued { instr: Instr::Mix(mix), .. }) => mix.part(mix.next(&warp.mix_issued)).site,
            Some(q) => q.site,
            None => Site::NONE,
        }
    }

    /// Recomputes the cached issue condition of warp `w` from its state (the scoreboard).
    pub(super) fn refresh(&mut self, w: usize) {
        let warp = &self.warps[w];
        let (at, at_reason, needs, needs_reason) = match warp.block {
            Block::Until(at, r) => (at, r, Needs::Nothing, r),
            Block::Forever(r) => (NEVER, r, Needs::Nothing, r),
            Block::No => match warp.queue.front().map(|q| &q.instr) {
                None => (NEVER, StallReason::NoInstruction, Needs::Nothing, StallReason::NoInstruction),
                Some(head) => {
                    let first = warp.head_left == 0;
                    let operand = |dep: Dep, pipe: ExecPipe| -> (u64, StallReason) {
                        match dep {
                            Dep::None | Dep::Descriptor { .. } => (0, StallReason::Selected),
                            Dep::Stream | Dep::Chain | Dep::Bookkeeping if first => (warp.dep_ready, warp.dep_reason),
                            Dep::Stream => (0, StallReason::Selected),
                            Dep::Chain | Dep::Bookkeeping => (warp.chain_ready, result_reason(pipe)),
                        }
                    };
                    let (needs, needs_reason, (at, at_reason)) = match *head {
                        Instr::Exec { pipe, dep, .. } => (Needs::Pipe(pipe), throttle(pipe), operand(dep, pipe)),
                        Instr::Mix(mix) => {
                            let k = mix.next(&warp.mix_issued);
                            let pipe = mix.part(k).pipe;
                            let ready = if k > 0 && warp.mix_issued[k] == 0 {
                                (warp.mix_ready[k], result_reason(mix.part(k - 1).pipe))
                            } else {
                                operand(Dep::Stream, pipe)
                            };
                            (Needs::Pipe(pipe), throttle(pipe), ready)
                        }
                        Instr::Shared { .. } => {
                            (Needs::Pipe(ExecPipe::Lsu), StallReason::MioThrottle, operand(Dep::Stream, ExecPipe::Lsu))
                        }
                        Instr::GlobalLoad { .. } | Instr::GlobalStore { .. } => {
                            (Needs::Pipe(ExecPipe::Lsu), StallReason::LgThrottle, operand(Dep::Stream, ExecPipe::Lsu))
                        }
                        Instr::Tmem { .. } => {
                            (Needs::Tmem, StallReason::MioThrottle, operand(Dep::Stream, ExecPipe::Lsu))
                        }
                        Instr::Mma { a_in_registers: true, .. } if first => {
                            (Needs::Nothing, StallReason::Selected, (warp.dep_ready, warp.dep_reason))
                        }
                        // Collective and synchronising instructions need only an issue cycle.
                        _ => (Needs::Nothing, StallReason::Selected, (0, StallReason::Selected)),
                    };
                    (at, at_reason, needs, needs_reason)
                }
            },
        };
        // A fixed stall holds the warp whatever its next instruction waits for.
        let (at, at_reason) =
            if at != NEVER && warp.issue_free > at { (warp.issue_free, StallReason::Wait) } else { (at, at_reason) };
        let gate = &mut self.gates[w];
        gate.at = at;
        gate.at_reason = at_reason;
        gate.needs = needs;
        gate.needs_reason = needs_reason;
    }

    /// The cycle warp `w` (on sub-partition `s`) can next issue, and why it cannot before.
    #[inline]
    pub(super) fn ready(&self, w: usize, s: usize, timing: &Timing) -> (u64, StallReason) {
        let gate = &self.gates[w];
        let unit = match gate.needs {
            Needs::Nothing => 0,
            Needs::Pipe(p) => self.smsps[s].pipe_free[p.index()].saturating_sub(timing.queue_cycles(p)),
            Needs::Tmem => ceil(self.smsps[s].tmem_free),
        };
        if gate.at >= unit { (gate.at, gate.at_reason) } else { (unit, gate.needs_reason) }
    }
}
