//! The generated code's ring bookkeeping: the instructions around each pipeline operation
//! that the DSL does not name as an op, counted as chains of dependent ALU instructions on
//! the warp that runs them.
//!
//! Every `release` (a plain arrive on a pipeline barrier) first recomputes the barrier's
//! shared-memory address (`S2UR SR_CgaCtaId`, `S2UR SR_SWINHI`, a `ULEA` chain, `UMOV`s:
//! 11 instructions from the CTA id to `SYNCS.ARRIVE` in every `ws_gemm` consumer), and every
//! wait on a pipeline barrier is followed by the stage and phase advance (`UIADD3`,
//! `UISETP`, two `USEL`, `LOP3`, then the loop branch: 6 instructions; in the warp-specialized
//! GEMMs' SASS it sits at the loop's tail, after the role's release or `expect_tx` arrive,
//! which `issue.ring_advance_at_loop_tail` lowers). Where a role drives
//! both ends of one pipeline (the non-specialized kernels: one instance loads, chosen by the
//! thread index), ptxas keeps the ring state in per-thread registers: the same code runs on
//! the vector ALU with `S2R` and `MOV` moves, and the acquire (the wait on a stage's `empty`
//! barrier) also recomputes its barrier's address first (13 instructions to the `try_wait`).
//!
//! What each costs comes from Nsight Compute's stall sampling of the calibration set at
//! 8192^3 on the H200 (`calibration/validate/stalls.py`, the `ring:` regions of
//! `calibration/results/validate_stalls/regions.txt`; SASS of the same CUBINs,
//! `calibration/sass/README.md`). As with the TMA issue ([`super::lower`]), a count here is
//! the chain's length in cycles over the ALU's 4-cycle latency, not an instruction count.
//!
//! Not counted where a role uses several pipelines (FA3's consumers and producer, the
//! non-specialized attention): there the SASS computes the shared window's base once per
//! iteration for all of its barriers (one `S2UR SR_CgaCtaId` per iteration, interleaved
//! with the `wgmma` descriptors), releases with one predicated `SYNCS.ARRIVE` on a hoisted
//! address and advances its stages among the softmax's independent instructions
//! (`fa3_bf16_d128` and `flat_bf16_d128`, #125 and #129 in `validate_stalls/`). Where a role
//! uses one pipeline, each release sits alone in its `if (leader)` branch with its address
//! chain: the two `ws_gemm` kernels, the non-specialized GEMM and `cluster_gemm`'s consumers
//! (`S2UR SR_CgaCtaId` 14 instructions before `SYNCS.ARRIVE.TRANS64.RED`).

use crate::dsl::{BarrierSlot, KernelSpec, Op, Wait};

use super::lower::{Dep, Instr, exec};
use super::timing::{ExecPipe, Timing};
use super::wait_forms::WaitForm;

/// Chain length of a release's barrier address where the ring state is uniform: 96, 94, 95,
/// 102 and 94 cycles for the 11 instructions of the releasing warp in `ws_gemm_128x128_p2`
/// at 8192^3 and 4096^3 (#0, #1: one CUBIN), `ws_gemm_128x256_p2` (#25), `ws_gemm_128x256_p4`
/// (#35) and `ws_128x256_p4` (#55); mean 96 = 24 x 4. The releasing warps (each consumer
/// warpgroup's leader, warps 4 and 8) share their sub-partition with the producer warp, and
/// the stall sampler samples per sub-partition: weighted so (`stalls.py`), these read 70-76
/// when every live warp was taken to get an equal share of the samples.
pub const RELEASE_CHAIN_UNIFORM: u32 = 24;
/// As [`RELEASE_CHAIN_UNIFORM`] where the ring state is per-thread: 85 (v1, #56) and 140
/// cycles (v2, #57) for 10-11 instructions of the same code. v2 releases with its own
/// warpgroup's group in flight, v1 after `wgmma.wait_group 0`: calibration item 38 stretches a
/// dependent integer chain x1.60 while its warpgroup's group is in flight
/// (`tensor.interference.chain_latency_factor_own`, applied by the model as the chain runs),
/// so the unstretched chain is the mean of 85 and 140 / 1.60 = 87.5: 86 = 21.5 x 4, counted 22.
pub const RELEASE_CHAIN_PER_THREAD: u32 = 22;
/// Chain length of the stage and phase advance after a wait where the ring state is uniform:
/// 33-35 cycles, mean 34, in the same five consumers (all eight consumer warps); 9 x 4 = 36.
pub const ADVANCE_CHAIN_UNIFORM: u32 = 9;
/// As [`ADVANCE_CHAIN_UNIFORM`] where the ring state is per-thread: 31 cycles after v2's
/// acquire (#57), 41 and 49 for the loop tails of v1 and v2 (stage, phase and k). v2's run
/// with its group in flight (item 38, as [`RELEASE_CHAIN_PER_THREAD`]): 41, 31 / 1.60 and
/// 49 / 1.60, mean 34 = 8.5 x 4, counted 9.
pub const ADVANCE_CHAIN_PER_THREAD: u32 = 9;
/// Chain length of an acquire's barrier address where the ring state is per-thread: 67 (v1,
/// #56) and 95 cycles (v2, #57, its group in flight: 95 / 1.60 = 59 unstretched, item 38, as
/// [`RELEASE_CHAIN_PER_THREAD`]) from the branch into the acquire to its `try_wait`; mean 63
/// = 15.75 x 4, counted 16. Where the ring state is uniform, ptxas hoists the address (2
/// instructions to the `try_wait` in `ws_gemm`'s producer): nothing is counted.
pub const ACQUIRE_CHAIN_PER_THREAD: u32 = 16;

/// Chain length of the convergence after a release where the ring state is per-thread: the
/// non-specialized GEMM closes the leader's `if` around the release (`BSYNC`), advances its
/// step count (`VIADD`), tests whether it loads (`ISETP`) and opens that branch (`BSSY`, a
/// predicated `BRA`), with the `bar.sync` of the lock-step forms among them: 7 instructions
/// on every warp, 0x2e90-0x2ef0 of `flat_128x256_p4`'s v1 loop. Nsight Compute's stall
/// sampling of the calibration set at 8192^3 on the H200 (`calibration/validate/
/// flat_regions.py calibration/results/validate_stalls 56 57`, the region "to the acquire")
/// gives 35.1 cycles a pass for v1 (#56) and 43.8 for v2 (#57), whose group is in flight
/// there (item 38: 43.8 / 1.60 = 27.4 unstretched); mean 31.3 = 7.8 x 4, counted 8. Where
/// the ring state is uniform the release's `BSYNC` is the only such instruction (`ws_gemm`,
/// `ws`: the advance follows it), and it is not counted.
pub const CONVERGENCE_CHAIN_PER_THREAD: u32 = 8;

/// Where the generated code keeps a role's ring state (stage index and phase), and so what
/// its bookkeeping costs on the role's path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RingState {
    /// In uniform registers: the role is at one end of the one pipeline it uses.
    Uniform,
    /// In per-thread registers: the role is the producer and the consumer of its one
    /// pipeline.
    PerThread,
    /// The role uses several pipelines: its bookkeeping is shared and interleaved with the
    /// iteration's other work, and not counted.
    Interleaved,
}

impl RingState {
    /// The ring state of role `role` of `spec`.
    pub fn of(spec: &KernelSpec, role: u16) -> Self {
        let touches = |b: u16| {
            let b = &spec.barriers[b as usize];
            b.arrivers.contains(&role) || b.waiters.contains(&role)
        };
        let mut used = spec.pipelines.iter().filter(|p| touches(p.full) || touches(p.empty));
        match (used.next(), used.next()) {
            (Some(_), Some(_)) => RingState::Interleaved,
            (Some(p), None) => {
                let full = &spec.barriers[p.full as usize];
                if full.arrivers.contains(&role) && full.waiters.contains(&role) {
                    RingState::PerThread
                } else {
                    RingState::Uniform
                }
            }
            (None, _) => RingState::Uniform,
        }
    }

    /// Chain length of a release's barrier address.
    fn release(self) -> u32 {
        match self {
            RingState::Uniform => RELEASE_CHAIN_UNIFORM,
            RingState::PerThread => RELEASE_CHAIN_PER_THREAD,
            RingState::Interleaved => 0,
        }
    }

    /// Chain length of the stage and phase advance after a wait.
    fn advance(self) -> u32 {
        match self {
            RingState::Uniform => ADVANCE_CHAIN_UNIFORM,
            RingState::PerThread => ADVANCE_CHAIN_PER_THREAD,
            RingState::Interleaved => 0,
        }
    }

    /// Chain length of the convergence after a release.
    fn convergence(self) -> u32 {
        match self {
            RingState::PerThread => CONVERGENCE_CHAIN_PER_THREAD,
            RingState::Uniform | RingState::Interleaved => 0,
        }
    }

    /// Chain length of an acquire's barrier address.
    fn acquire(self) -> u32 {
        match self {
            RingState::PerThread => ACQUIRE_CHAIN_PER_THREAD,
            RingState::Uniform | RingState::Interleaved => 0,
        }
    }
}

/// Whether `slot` is one of a pipeline's barriers, and whether its `empty` side.
fn pipeline_side(spec: &KernelSpec, slot: BarrierSlot) -> Option<bool> {
    spec.pipelines.iter().find_map(|p| match slot.barrier {
        b if b == p.empty => Some(true),
        b if b == p.full => Some(false),
        _ => None,
    })
}

/// A chain of `count` dependent instructions where `state` puts them: on the uniform
/// datapath for uniform ring state (`S2UR`, `ULEA`, `UIADD3`, `USEL`: they hold no vector
/// pipe), on the vector ALU for per-thread state, as [`Dep::Bookkeeping`] (stretched while the
/// warp's own warpgroup has an MMA group in flight).
fn chain(state: RingState, count: u32, out: &mut Vec<Instr>) {
    let (pipe, dep) =
        if state == RingState::Uniform { (ExecPipe::Uniform, Dep::Chain) } else { (ExecPipe::Alu, Dep::Bookkeeping) };
    exec(pipe, count, dep, out);
}

/// The bookkeeping before `op`: a release's barrier address for a plain arrive on a
/// pipeline barrier (an `expect_tx` arrive is counted with its copies' issue).
pub fn before_op(spec: &KernelSpec, state: RingState, op: &Op, out: &mut Vec<Instr>) {
    if let Op::Arrive { slot, tx_bytes: 0 } = *op
        && pipeline_side(spec, slot).is_some()
    {
        chain(state, state.release(), out);
    }
}

/// The bookkeeping after `op`, as `timing`'s machine lowers it: the convergence after a plain
/// arrive on a pipeline barrier (a release) where the ring state is per-thread
/// (`issue.release_convergence`), and the stage and phase advance after any arrive on a
/// pipeline barrier (a release, or the `expect_tx` arrive after a stage's copies) where the
/// ring state is uniform and the advance sits at the loop's tail
/// (`issue.ring_advance_at_loop_tail`; then [`wait`] leaves it out).
pub fn after_op(spec: &KernelSpec, state: RingState, timing: &Timing, op: &Op, out: &mut Vec<Instr>) {
    let Op::Arrive { slot, tx_bytes } = *op else {
        return;
    };
    if pipeline_side(spec, slot).is_none() {
        return;
    }
    if tx_bytes == 0 && timing.release_convergence {
        chain(state, state.convergence(), out);
    }
    if state == RingState::Uniform && timing.ring_advance_at_loop_tail {
        chain(state, state.advance(), out);
    }
}

/// A wait with its bookkeeping: an acquire's barrier address before it (the wait on a stage's
/// `empty` barrier), the stage and phase advance after a wait on a pipeline barrier.
///
/// Where the ring state is per-thread, ptxas issues the `try_wait` ahead of independent
/// instructions and branches on its result after them: in the non-specialized GEMM
/// (`flat_128x256_p4`, `calibration/results/validate_stalls/58_sass.csv.gz`) the acquire's
/// `SYNCS.PHASECHK.TRANS64.TRYWAIT` at 0x2fd0 is followed by the advance's `ISETP` and `SEL`
/// before its `@!P2 BRA`, and the full-stage wait's at 0x2ab0 by 15 instructions of the
/// next `wgmma`'s descriptor arithmetic before its `@!P0 BRA`. The advance chain then runs
/// under the `try_wait`'s latency ([`Instr::TryWait`]); the model's lowering has the
/// descriptor arithmetic with the `wgmma` it belongs to, so the advance stands for the
/// instructions there. Where the ring state is uniform (`ws_gemm`, `ws`: `0_sass.csv.gz` at
/// 0x710, `55_sass.csv.gz` at 0xa00) the branch follows the `try_wait` at once and the
/// advance runs after the wait.
///
/// `form` is how the compiled code addresses the barrier ([`super::wait_forms`]): a wait on
/// an mbarrier addressed per thread issues its `try_wait` as an instruction of its own, and
/// passes a completed phase the per-thread latency after it. `advance_at_tail`
/// (`issue.ring_advance_at_loop_tail`): a uniform ring's advance follows the role's arrive on
/// the pipeline instead ([`after_op`]), as in the generated `ws_gemm` and `ws`, whose
/// `try_wait` is followed at once by the MMA issue or the copies' address chain.
pub fn wait(
    spec: &KernelSpec,
    state: RingState,
    wait: Wait,
    form: WaitForm,
    advance_at_tail: bool,
    out: &mut Vec<Instr>,
) {
    let (side, mbarrier) = match wait {
        Wait::Parity { slot, .. } => (pipeline_side(spec, slot), true),
        _ => (None, false),
    };
    let try_wait = Instr::TryWait { form };
    // A per-thread address's `try_wait` right before its branch, where nothing issues ahead.
    let own_try_wait = (mbarrier && form == WaitForm::PerThread).then_some(try_wait);
    let Some(empty) = side else {
        out.extend(own_try_wait);
        out.push(Instr::Wait(wait));
        return;
    };
    if empty {
        chain(state, state.acquire(), out);
    }
    if state == RingState::PerThread {
        out.push(try_wait);
        chain(state, state.advance(), out);
        out.push(Instr::Wait(wait));
    } else {
        out.extend(own_try_wait);
        out.push(Instr::Wait(wait));
        if !(state == RingState::Uniform && advance_at_tail) {
            chain(state, state.advance(), out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsl::{BarrierSpec, PipelineSpec, RoleSpec};

    const ROLES: [RoleSpec; 2] = [
        RoleSpec { name: "producer", instances: 1, warps_per_instance: 1, regs: 40 },
        RoleSpec { name: "consumer", instances: 2, warps_per_instance: 4, regs: 232 },
    ];

    const PIPELINES: [PipelineSpec; 1] = [PipelineSpec { name: "Ops", stages: 2, full: 0, empty: 1, tx_bytes: 4096 }];
    /// Specialized: `producer` fills the ring, `consumer` drains it; barrier 2 is outside it.
    const SPECIALIZED: [BarrierSpec; 3] = [
        BarrierSpec { name: "Ops.full", len: 2, arrivals: 1, arrivers: &[0], waiters: &[1] },
        BarrierSpec { name: "Ops.empty", len: 2, arrivals: 2, arrivers: &[1], waiters: &[0] },
        BarrierSpec { name: "Done", len: 1, arrivals: 1, arrivers: &[1], waiters: &[0] },
    ];
    /// Non-specialized: `consumer` fills and drains the ring.
    const FLAT: [BarrierSpec; 3] = [
        BarrierSpec { name: "Ops.full", len: 2, arrivals: 1, arrivers: &[1], waiters: &[1] },
        BarrierSpec { name: "Ops.empty", len: 2, arrivals: 2, arrivers: &[1], waiters: &[1] },
        BarrierSpec { name: "Done", len: 1, arrivals: 1, arrivers: &[1], waiters: &[0] },
    ];

    /// Two pipelines (`Keys` on barriers 0 and 1, `Values` on 2 and 3) between the roles.
    const TWO_PIPELINES: [PipelineSpec; 2] = [
        PipelineSpec { name: "Keys", stages: 2, full: 0, empty: 1, tx_bytes: 4096 },
        PipelineSpec { name: "Values", stages: 2, full: 2, empty: 3, tx_bytes: 4096 },
    ];
    const TWO_RINGS: [BarrierSpec; 4] = [
        BarrierSpec { name: "Keys.full", len: 2, arrivals: 1, arrivers: &[0], waiters: &[1] },
        BarrierSpec { name: "Keys.empty", len: 2, arrivals: 2, arrivers: &[1], waiters: &[0] },
        BarrierSpec { name: "Values.full", len: 2, arrivals: 1, arrivers: &[0], waiters: &[1] },
        BarrierSpec { name: "Values.empty", len: 2, arrivals: 2, arrivers: &[1], waiters: &[0] },
    ];

    fn spec(barriers: &'static [BarrierSpec]) -> KernelSpec {
        let pipelines: &'static [PipelineSpec] = if barriers.len() == 4 { &TWO_PIPELINES } else { &PIPELINES };
        KernelSpec {
            name: "k",
            roles: &ROLES,
            barriers,
            pipelines,
            named_barriers: &[],
            smem_bytes: 0,
            cluster: [1, 1, 1],
        }
    }

    fn slot(barrier: u16) -> BarrierSlot {
        BarrierSlot { barrier, index: 1 }
    }

    fn chains(out: &[Instr]) -> Vec<u32> {
        out.iter()
            .map(|i| match *i {
                Instr::Exec {
                    pipe: ExecPipe::Alu | ExecPipe::Uniform,
                    count,
                    dep: Dep::Chain | Dep::Bookkeeping,
                    ..
                } => count,
                ref other => panic!("not a chain: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_role_at_both_ends_of_a_pipeline_keeps_its_ring_per_thread() {
        let specialized = spec(&SPECIALIZED);
        assert_eq!(RingState::of(&specialized, 0), RingState::Uniform);
        assert_eq!(RingState::of(&specialized, 1), RingState::Uniform);
        let flat = spec(&FLAT);
        assert_eq!(RingState::of(&flat, 1), RingState::PerThread);
        assert_eq!(RingState::of(&flat, 0), RingState::Uniform);
        let attention = spec(&TWO_RINGS);
        assert_eq!(RingState::of(&attention, 0), RingState::Interleaved);
        assert_eq!(RingState::of(&attention, 1), RingState::Interleaved);
    }

    #[test]
    fn a_role_of_several_pipelines_is_charged_nothing() {
        let k = spec(&TWO_RINGS);
        let mut out = Vec::new();
        let release = Op::Arrive { slot: slot(3), tx_bytes: 0 };
        before_op(&k, RingState::of(&k, 1), &release, &mut out);
        let acquire = Wait::Parity { slot: slot(3), parity: 0 };
        wait(&k, RingState::of(&k, 0), acquire, WaitForm::Uniform, false, &mut out);
        assert_eq!(out, [Instr::Wait(acquire)]);
    }

    #[test]
    fn a_release_recomputes_its_barrier_address_an_expect_tx_arrive_does_not() {
        let k = spec(&SPECIALIZED);
        let mut out = Vec::new();
        before_op(&k, RingState::Uniform, &Op::Arrive { slot: slot(1), tx_bytes: 0 }, &mut out);
        before_op(&k, RingState::PerThread, &Op::Arrive { slot: slot(1), tx_bytes: 0 }, &mut out);
        assert_eq!(chains(&out), [RELEASE_CHAIN_UNIFORM, RELEASE_CHAIN_PER_THREAD]);
        // Uniform ring state runs on the uniform datapath, per-thread state on the ALU.
        let pipes: Vec<ExecPipe> = out
            .iter()
            .filter_map(|i| match *i {
                Instr::Exec { pipe, .. } => Some(pipe),
                _ => None,
            })
            .collect();
        assert_eq!(pipes, [ExecPipe::Uniform, ExecPipe::Alu]);
        out.clear();
        before_op(&k, RingState::Uniform, &Op::Arrive { slot: slot(0), tx_bytes: 4096 }, &mut out);
        before_op(&k, RingState::Uniform, &Op::Arrive { slot: slot(2), tx_bytes: 0 }, &mut out);
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn only_a_per_thread_release_converges_after_its_arrive_and_only_when_lowered() {
        let k = spec(&FLAT);
        let release = Op::Arrive { slot: slot(1), tx_bytes: 0 };
        let after = |state, convergence, op: &Op| {
            let mut out = Vec::new();
            after_op(&k, state, &timing(convergence, false), op, &mut out);
            out
        };
        assert_eq!(chains(&after(RingState::PerThread, true, &release)), [CONVERGENCE_CHAIN_PER_THREAD]);
        // The chain runs on the vector ALU, stretched while the warpgroup's group is in flight.
        assert!(matches!(
            after(RingState::PerThread, true, &release)[..],
            [Instr::Exec { pipe: ExecPipe::Alu, dep: Dep::Bookkeeping, .. }]
        ));
        assert!(after(RingState::PerThread, false, &release).is_empty());
        assert!(after(RingState::Uniform, true, &release).is_empty());
        assert!(after(RingState::Interleaved, true, &release).is_empty());
        // Neither a commit with its bytes nor an arrive outside the ring converges.
        assert!(after(RingState::PerThread, true, &Op::Arrive { slot: slot(0), tx_bytes: 4096 }).is_empty());
        assert!(after(RingState::PerThread, true, &Op::Arrive { slot: slot(2), tx_bytes: 0 }).is_empty());
    }

    /// The H200's timing with the ring's two lowering switches set.
    fn timing(convergence: bool, advance_at_tail: bool) -> Timing {
        let mut machine = crate::sim::Machine::h200();
        machine.issue.release_convergence.value = convergence;
        machine.issue.ring_advance_at_loop_tail.value = advance_at_tail;
        Timing::new(&machine, 1.0)
    }

    #[test]
    fn at_the_loop_tail_a_uniform_ring_advances_after_its_arrive_and_not_after_its_wait() {
        let k = spec(&SPECIALIZED);
        let uniform = |count| Instr::Exec { pipe: ExecPipe::Uniform, count, dep: Dep::Chain, elements: 1 };
        let after = |state, tail, op: &Op| {
            let mut out = Vec::new();
            after_op(&k, state, &timing(false, tail), op, &mut out);
            out
        };
        let release = Op::Arrive { slot: slot(1), tx_bytes: 0 };
        let commit = Op::Arrive { slot: slot(0), tx_bytes: 4096 };
        // The consumer's release and the producer's expect_tx arrive each end a stage.
        assert_eq!(after(RingState::Uniform, true, &release), [uniform(ADVANCE_CHAIN_UNIFORM)]);
        assert_eq!(after(RingState::Uniform, true, &commit), [uniform(ADVANCE_CHAIN_UNIFORM)]);
        assert!(after(RingState::Uniform, false, &release).is_empty(), "off: after the wait");
        assert!(after(RingState::Uniform, true, &Op::Arrive { slot: slot(2), tx_bytes: 0 }).is_empty());
        assert!(after(RingState::PerThread, true, &release).is_empty(), "a per-thread ring keeps its place");
        assert!(after(RingState::Interleaved, true, &release).is_empty());
        // ... and its waits carry none.
        let full = Wait::Parity { slot: slot(0), parity: 0 };
        let mut out = Vec::new();
        wait(&k, RingState::Uniform, full, WaitForm::Uniform, true, &mut out);
        assert_eq!(out, [Instr::Wait(full)]);
        out.clear();
        wait(&k, RingState::Uniform, full, WaitForm::Uniform, false, &mut out);
        assert_eq!(out, [Instr::Wait(full), uniform(ADVANCE_CHAIN_UNIFORM)]);
    }

    #[test]
    fn waits_on_a_ring_advance_its_stage_and_only_a_per_thread_acquire_recomputes_its_address() {
        let k = spec(&FLAT);
        let on = |barrier| Wait::Parity { slot: slot(barrier), parity: 1 };
        let lowered = |state, w| {
            let mut out = Vec::new();
            wait(&k, state, w, WaitForm::Uniform, false, &mut out);
            out
        };
        let alu = |count| Instr::Exec { pipe: ExecPipe::Alu, count, dep: Dep::Bookkeeping, elements: 1 };
        let try_wait = Instr::TryWait { form: WaitForm::Uniform };
        let uniform = |count| Instr::Exec { pipe: ExecPipe::Uniform, count, dep: Dep::Chain, elements: 1 };
        // Uniform ring state: the branch follows the try_wait, the advance follows the wait.
        assert_eq!(lowered(RingState::Uniform, on(0)), [Instr::Wait(on(0)), uniform(ADVANCE_CHAIN_UNIFORM)]);
        assert_eq!(lowered(RingState::Uniform, on(1)), [Instr::Wait(on(1)), uniform(ADVANCE_CHAIN_UNIFORM)]);
        // Per-thread: the acquire computes its barrier's address first, and the advance runs
        // between the try_wait and its branch.
        assert_eq!(
            lowered(RingState::PerThread, on(1)),
            [alu(ACQUIRE_CHAIN_PER_THREAD), try_wait, alu(ADVANCE_CHAIN_PER_THREAD), Instr::Wait(on(1))]
        );
        assert_eq!(lowered(RingState::PerThread, on(0)), [try_wait, alu(ADVANCE_CHAIN_PER_THREAD), Instr::Wait(on(0))]);
        // Waits outside the ring carry no bookkeeping.
        assert_eq!(lowered(RingState::PerThread, on(2)), [Instr::Wait(on(2))]);
        let mma = Wait::Mma { pending: 0 };
        assert_eq!(lowered(RingState::PerThread, mma), [Instr::Wait(mma)]);
    }

    #[test]
    fn a_wait_addressed_per_thread_issues_its_try_wait_of_that_form() {
        let k = spec(&SPECIALIZED);
        let on = |barrier| Wait::Parity { slot: slot(barrier), parity: 0 };
        let lowered = |state, w, form| {
            let mut out = Vec::new();
            wait(&k, state, w, form, false, &mut out);
            out
        };
        let per_thread = Instr::TryWait { form: WaitForm::PerThread };
        let uniform = |count| Instr::Exec { pipe: ExecPipe::Uniform, count, dep: Dep::Chain, elements: 1 };
        // On a ring with uniform state: the try_wait, its branch, then the advance.
        assert_eq!(
            lowered(RingState::Uniform, on(0), WaitForm::PerThread),
            [per_thread, Instr::Wait(on(0)), uniform(ADVANCE_CHAIN_UNIFORM)]
        );
        // A role with several pipelines counts no advance; a barrier outside the ring too.
        assert_eq!(lowered(RingState::Interleaved, on(0), WaitForm::PerThread), [per_thread, Instr::Wait(on(0))]);
        assert_eq!(lowered(RingState::Interleaved, on(2), WaitForm::PerThread), [per_thread, Instr::Wait(on(2))]);
        // The uniform form is lowered as before, and only mbarrier waits have a form.
        assert_eq!(lowered(RingState::Interleaved, on(0), WaitForm::Uniform), [Instr::Wait(on(0))]);
        let mma = Wait::Mma { pending: 0 };
        assert_eq!(lowered(RingState::Interleaved, mma, WaitForm::PerThread), [Instr::Wait(mma)]);
    }
}
