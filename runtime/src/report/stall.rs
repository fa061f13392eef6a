//! Warp states in Nsight Compute's stall-reason vocabulary, and how the timing model's states
//! map onto them.

use std::fmt;

/// What a resident, not-yet-exited warp is doing in one cycle, named as Nsight Compute names
/// its warp-state samples (`smsp__pcsamp_warps_issue_stalled_*`).
///
/// Every cycle of every live warp of the model is counted under exactly one reason, decided by
/// the warp's sub-partition scheduler when it evaluates the warp (the model re-evaluates every
/// warp of an SM whenever anything on that SM can change, so the reason holds until the next
/// evaluation). The mapping, from the first rule that applies:
///
/// | model state of the warp | reason |
/// |---|---|
/// | it issued an instruction this cycle | [`Selected`](Self::Selected) |
/// | it could issue, but its scheduler issued another warp | [`NotSelected`](Self::NotSelected) |
/// | blocked in `bar.sync` (a named-barrier sync) | [`Barrier`](Self::Barrier) |
/// | blocked in `mbarrier.try_wait.parity`, until the phase completes and the wake-up latency has passed | [`LongScoreboard`](Self::LongScoreboard) |
/// | blocked in `cp.async.bulk.wait_group.read` (TMA store reads) | [`LongScoreboard`](Self::LongScoreboard) |
/// | blocked in `wgmma.wait_group` until the MMA group completes | [`Wait`](Self::Wait) |
/// | its next instruction needs the result of an FMA- or ALU-pipe instruction (fixed latency) | [`Wait`](Self::Wait) |
/// | its next instruction needs the result of a MUFU instruction, a shared-memory load, a shuffle or a tensor-memory load (MIO) | [`ShortScoreboard`](Self::ShortScoreboard) |
/// | its next instruction needs the result of a global load (L1TEX) | [`LongScoreboard`](Self::LongScoreboard) |
/// | its next instruction goes to the FMA or ALU pipe, which is still busy with earlier instructions of its sub-partition | [`MathPipeThrottle`](Self::MathPipeThrottle) |
/// | its next instruction goes to the MUFU or LSU pipe (shared memory, shuffles) and that pipe's MIO queue is full, or to the busy tensor-memory port | [`MioThrottle`](Self::MioThrottle) |
/// | its next instruction is a global load or store and the LSU pipe's MIO queue is full | [`LgThrottle`](Self::LgThrottle) |
/// | its instruction queue is empty but its role program has not finished (a role future that suspended outside a barrier wait) | [`NoInstruction`](Self::NoInstruction) |
///
/// Two choices are the model's, not Nsight's documentation:
///
/// - **`mbarrier` waits count as `long_scoreboard`.** Nsight Compute's Profiling Guide
///   ("Warp Stall Reasons", <https://docs.nvidia.com/nsight-compute/ProfilingGuide/>) defines
///   `long_scoreboard` as waiting on a scoreboard dependency of an L1TEX operation,
///   `barrier` as waiting for sibling warps at a CTA barrier (`BAR`, which is how named
///   barriers are counted here), and `sleeping` as all the warp's threads blocked, yielded
///   or asleep. `mbarrier.try_wait.parity` (PTX ISA, "mbarrier.test_wait/try_wait";
///   <https://nvidia.github.io/cccl/libcudacxx/ptx/instructions/mbarrier_try_wait.html>) is
///   not a `BAR`: it compiles to `SYNCS.PHASECHK.TRANS64.TRYWAIT`, whose predicate returns
///   through the memory pipeline's scoreboard, and a branch that retries. No NVIDIA
///   document we found names the category of a `SYNCS` wait, so the model keeps
///   `long_scoreboard` (on hardware, a try-wait given a suspend-time hint may show as
///   `sleeping` instead). Because that category also holds global loads, the report puts
///   beside it which barrier and stage each wait was on:
///   [`RoleStalls::waits`](super::RoleStalls::waits) per role and
///   [`SourceSite`](super::SourceSite) per kernel line.
/// - **`wgmma.wait_group` counts as `wait`**: a dependency barrier on the tensor pipe, not
///   on memory.
///
/// Exited warps are not counted, as Nsight samples only active warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StallReason {
    /// Issued an instruction.
    Selected,
    /// Eligible, but another warp of its sub-partition issued.
    NotSelected,
    /// Waiting on a fixed-latency dependency, or on `wgmma.wait_group`.
    Wait,
    /// Waiting on an MIO result (MUFU, shared memory, shuffle).
    ShortScoreboard,
    /// Waiting on a memory result: global loads, `mbarrier` waits, bulk-store waits.
    LongScoreboard,
    /// The FMA or ALU pipe of its sub-partition is busy.
    MathPipeThrottle,
    /// The MUFU or LSU pipe, or the SM's shared-memory port, is busy.
    MioThrottle,
    /// The LSU pipe is busy with global stores.
    LgThrottle,
    /// Waiting at a named barrier (`bar.sync`).
    Barrier,
    /// Nothing to issue although the role has not finished (a CTA's start-up included:
    /// `dispatch.cta_start_cycles`).
    NoInstruction,
}

impl StallReason {
    /// Every reason, in report order.
    pub const ALL: [StallReason; 10] = [
        StallReason::Selected,
        StallReason::NotSelected,
        StallReason::Wait,
        StallReason::ShortScoreboard,
        StallReason::LongScoreboard,
        StallReason::MathPipeThrottle,
        StallReason::MioThrottle,
        StallReason::LgThrottle,
        StallReason::Barrier,
        StallReason::NoInstruction,
    ];

    /// Number of reasons.
    pub const COUNT: usize = Self::ALL.len();

    /// Nsight Compute's name for the reason (`long_scoreboard`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            StallReason::Selected => "selected",
            StallReason::NotSelected => "not_selected",
            StallReason::Wait => "wait",
            StallReason::ShortScoreboard => "short_scoreboard",
            StallReason::LongScoreboard => "long_scoreboard",
            StallReason::MathPipeThrottle => "math_pipe_throttle",
            StallReason::MioThrottle => "mio_throttle",
            StallReason::LgThrottle => "lg_throttle",
            StallReason::Barrier => "barrier",
            StallReason::NoInstruction => "no_instruction",
        }
    }

    /// Position in [`StallReason::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for StallReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Warp-cycles spent in each [`StallReason`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StallCycles(pub [u64; StallReason::COUNT]);

impl StallCycles {
    /// Cycles counted under `reason`.
    pub fn get(&self, reason: StallReason) -> u64 {
        self.0[reason.index()]
    }

    /// Adds `cycles` under `reason`.
    pub fn add(&mut self, reason: StallReason, cycles: u64) {
        self.0[reason.index()] += cycles;
    }

    /// Adds every count of `other`.
    pub fn merge(&mut self, other: &StallCycles) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a += b;
        }
    }

    /// Total warp-cycles.
    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_listed_in_index_order() {
        for (i, r) in StallReason::ALL.iter().enumerate() {
            assert_eq!(r.index(), i);
        }
        let mut c = StallCycles::default();
        c.add(StallReason::Barrier, 3);
        c.add(StallReason::Selected, 2);
        assert_eq!((c.get(StallReason::Barrier), c.total()), (3, 5));
        assert_eq!(StallReason::LongScoreboard.to_string(), "long_scoreboard");
    }
}
