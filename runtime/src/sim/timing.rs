//! The numbers the SM model runs on, derived once from a [`Machine`] at the simulated clock.
//!
//! Nothing here is a new machine parameter: every value is a [`Machine`] field, converted to
//! the units the model uses (cycles, bytes per cycle, warp-instructions per cycle per
//! sub-partition). Bandwidths quoted in TB/s become bytes per SM cycle at the clock of the
//! run, which is why the clock is an input.

use crate::dsl::DType;

use super::descriptors::DescriptorPlacement;
use super::machine::{Machine, MmaIssue, MmaLatencyRule, Pipe, Spread};
use super::memory::SectorRates;
use super::wait_forms::{WaitForm, WaitForms};

/// The SM's counted-instruction pipes (see [`super::lower`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExecPipe {
    /// FP32 FMA/FADD/FMUL.
    Fma,
    /// Integer, logic, compare/select, conversions, FMNMX, moves.
    Alu,
    /// Special functions (`ex2`, `rcp`).
    Mufu,
    /// Load/store unit: shared-memory accesses, shuffles, global accesses.
    Lsu,
    /// The uniform datapath: scalar instructions on warp-uniform values.
    Uniform,
}

impl ExecPipe {
    /// Every pipe, in index order.
    pub const ALL: [ExecPipe; 5] = [ExecPipe::Fma, ExecPipe::Alu, ExecPipe::Mufu, ExecPipe::Lsu, ExecPipe::Uniform];

    /// Position in [`ExecPipe::ALL`].
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Short name used in traces and reports.
    pub const fn name(self) -> &'static str {
        match self {
            ExecPipe::Fma => "FMA",
            ExecPipe::Alu => "ALU",
            ExecPipe::Mufu => "MUFU",
            ExecPipe::Lsu => "LSU",
            ExecPipe::Uniform => "UDP",
        }
    }
}

/// How the machine's tensor cores are driven.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaKind {
    /// Hopper `wgmma`: warpgroup-issued, accumulators in registers.
    Warpgroup,
    /// Blackwell `tcgen05.mma`: single-thread-issued, accumulators in tensor memory.
    SingleThread,
}

/// Tensor-memory access timing (machines with tensor memory).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TmemTiming {
    /// Bytes per cycle one sub-partition moves between tensor memory and registers.
    pub bytes_per_clk_per_smsp: f64,
    /// Cycles from a `tcgen05.ld` until its registers may be used.
    pub load_latency: u64,
}

/// Issue interval and result latency of one pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipeTiming {
    /// Cycles one warp-instruction occupies the pipe of its sub-partition:
    /// `warp_size / (lanes_per_clk_per_sm / sub_partitions)`, at least 1.
    pub interval: u64,
    /// Cycles from issue until a dependent instruction may issue.
    pub latency: u64,
}

/// Derived timing of one machine at one clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    /// Diagnostic ([`super::SimOptions::copies_free`]): TMA loads issue no instructions and
    /// land at their issue, as in the GPU build without them (`Cuda::without_copies`, whose
    /// SASS has neither the copies nor their operands' move to uniform registers).
    pub copies_free: bool,
    /// Sub-partitions (schedulers) per SM.
    pub sub_partitions: usize,
    /// Threads per warp.
    pub warp_size: u32,
    /// Per pipe, indexed by [`ExecPipe::index`].
    pub pipes: [PipeTiming; 5],
    /// Instructions a sub-partition's MIO queue (in front of MUFU and LSU) holds.
    pub mio_queue: u64,
    /// Elements one FP32 FMA-pipe instruction computes per thread (2: packed `f32x2`).
    pub fma_elements_per_instr: u32,
    /// FMA-pipe intervals of one `IMAD` warp-instruction (`pipes.imad_intervals`).
    pub imad_intervals: u32,
    /// Shared-memory bytes per cycle per SM.
    pub smem_bytes_per_clk: f64,
    /// Shared-memory load latency, cycles.
    pub smem_latency: u64,
    /// Tensor-core FMAs per cycle per SM for bf16/f16, f32 (tf32) operands.
    pub tensor_fma_per_clk: [f64; 2],
    /// Latency rule of the native MMA instruction.
    pub mma_rule: MmaLatencyRule,
    /// How MMAs are issued.
    pub mma_kind: MmaKind,
    /// Cycles from a `wgmma` group's issue until its first MMA can start (0 for `tcgen05`)...
    pub mma_group_start: u64,
    /// ...where its descriptor arithmetic is lowered before its MMAs ([`Timing::descriptors_lead`]).
    pub mma_group_start_placed: u64,
    /// Cycles between a `wgmma` group's instructions reaching the tensor cores, per column of
    /// N (0 for `tcgen05`: a group reaches them at once).
    pub mma_instr_interval_per_column: f64,
    /// Each `wgmma` of a group issues after its own descriptor arithmetic (else the group at
    /// once, the arithmetic after it).
    pub mma_descriptors_before_each: bool,
    /// A `wgmma` group's start runs from its fence, before the arithmetic that builds its
    /// first MMA's descriptors, where the lowering places that arithmetic before the MMA.
    pub mma_group_start_from_fence: bool,
    /// Where the kernel's compiled code builds its groups' descriptors, where known
    /// ([`super::SimOptions::descriptor_placement`]); before the machine's rule.
    pub descriptor_placement: DescriptorPlacement,
    /// The fixed stall of each instruction building a `wgmma`'s descriptors, SS then RS:
    /// `tensor.issue.wgmma.descriptor_cycles_*` over the instructions the lowering counts
    /// ([`super::descriptors::wgmma_descriptor_instrs`]); 1 or less: the mean fixed stall's
    /// (`fixed_stall`), as for other arithmetic.
    pub mma_descriptor_stall: [f64; 2],
    /// Consecutive element-wise bursts issue interleaved ([`super::mix`];
    /// `issue.interleave_element_wise`).
    pub interleave_element_wise: bool,
    /// Cycles a warp waits after each arithmetic instruction before its next may issue
    /// (`issue.fixed_stall_cycles`; 1: none beyond the issue cycle).
    pub fixed_stall: f64,
    /// A zero fill whose next op is an MMA into it costs nothing ([`super::fold`];
    /// `issue.fold_zero_fill`).
    pub fold_zero_fill: bool,
    /// Whether a release in a per-thread ring is followed by its convergence code
    /// (`issue.release_convergence`, [`super::ring::after_op`]).
    pub release_convergence: bool,
    /// Whether a uniform ring advances its stage and phase after the role's arrive on the
    /// pipeline, not after its wait (`issue.ring_advance_at_loop_tail`, [`super::ring`]).
    pub ring_advance_at_loop_tail: bool,
    /// Fixed cycles of a `tcgen05.mma` with A in tensor memory (TS), where it differs from
    /// the rule's (SS) value.
    pub mma_tmem_a_fixed: Option<u32>,
    /// Tensor memory, if the machine has it.
    pub tmem: Option<TmemTiming>,
    /// TMA bytes per cycle per SM.
    pub tma_bytes_per_clk: f64,
    /// Bytes per cycle per SM a TMA store reads out of shared memory.
    pub tma_store_bytes_per_clk: f64,
    /// Cycles a TMA load (L2 hit) takes to its waiter beyond latency and streaming.
    pub tma_extra_latency: u64,
    /// The same for a TMA load that misses in L2 while no other SM loads.
    pub tma_miss_extra_latency: u64,
    /// The same for a miss while another SM has a TMA load outstanding.
    pub tma_miss_extra_latency_loaded: u64,
    /// L2 bytes per cycle, whole GPU.
    pub l2_bytes_per_clk: f64,
    /// Bytes per cycle the whole GPU stores into L2 with TMA bulk stores.
    pub l2_write_bytes_per_clk: f64,
    /// Bytes per cycle the whole GPU's warp stores write into L2, by how much of each sector
    /// they write.
    pub l2_sector_write_bytes_per_clk: SectorRates,
    /// Bytes per cycle one SM's warp stores leave it at, by the same.
    pub global_store_bytes_per_clk: SectorRates,
    /// L2 hit latency, cycles (the median).
    pub l2_latency: u64,
    /// Percentiles of the L2 hit latency of a warp's line loads.
    pub l2_latency_spread: Spread,
    /// L2 hit latency of a TMA copy some of whose lines come from the far partition, cycles.
    pub l2_far_latency: u64,
    /// L2 capacity, bytes.
    pub l2_bytes: u64,
    /// Partitions the L2 is divided into, each caching what its own SMs access.
    pub l2_partitions: u32,
    /// Cycles within which a TMA load of a tile another SM's load asked for is answered with
    /// that load's data (`l2.coalescing_window_cycles`; 0: never).
    pub l2_coalescing_window: f64,
    /// Whether a hit on a tile still being filled from HBM waits for the fill.
    pub l2_hit_waits_for_fill: bool,
    /// A TMA miss's extra latency delays its tile's fill in L2 (`l2.fill_takes_miss_extra`).
    pub l2_fill_takes_miss_extra: bool,
    /// A TMA copy's share of the L2 is among the SMs streaming when its data starts
    /// (`l2.share_among_streaming`).
    pub l2_share_among_streaming: bool,
    /// HBM bytes per cycle, whole GPU.
    pub hbm_bytes_per_clk: f64,
    /// HBM (L2 miss) latency, cycles (the median).
    pub hbm_latency: u64,
    /// Percentiles of the HBM latency.
    pub hbm_latency_spread: Spread,
    /// mbarrier completion to waiter wake-up, cycles.
    pub mbarrier_wake: u64,
    /// Cycles a `try_wait` on a phase that has completed takes to return, through a uniform
    /// address...
    pub mbarrier_passed_wait: u64,
    /// ...and through a per-thread one ([`super::wait_forms`]).
    pub mbarrier_passed_wait_per_thread: u64,
    /// The kernel's waits that its compiled code addresses per thread (a run option; none:
    /// every wait uniform).
    pub wait_forms: WaitForms,
    /// Last `bar.sync` arrival to waiters resuming, cycles.
    pub named_barrier: u64,
    /// The last warp to arrive at a `bar.sync` passing it, cycles after its arrival.
    pub named_barrier_last_arrival: u64,
    /// A CTA slot freeing (or the launch) to the new CTA's first op, cycles.
    pub cta_start: u64,
    /// An arrival on a peer CTA's mbarrier to its counting there, cycles.
    pub remote_arrive: u64,
    /// Last `barrier.cluster` arrival to the waiters of every CTA resuming, cycles.
    pub cluster_barrier: u64,
    /// Per pipe ([`ExecPipe::index`]), the factor on its interval while the tensor cores
    /// are busy (the LSU entry applies to counted LSU instructions: shuffles; the uniform
    /// datapath's interference is not measured and taken as none).
    pub tensor_busy_factor: [f64; 5],
    /// Tensor-core cycles lost per FMA-pipe warp-instruction while an RS MMA runs.
    pub rs_delay_per_fma_instr: f64,
    /// Tensor-core cycles lost per byte a bulk copy reads out of the SM's shared memory
    /// while MMAs run.
    pub tensor_copy_delay_per_byte: f64,
    /// Tensor-core cycles lost per byte a TMA tile load writes into the SM's shared memory
    /// while MMAs run.
    pub tensor_tile_load_delay_per_byte: f64,
    /// Factor on the latency of a dependent ALU chain (per-thread bookkeeping) while its
    /// warp's own warpgroup has an MMA group in flight.
    pub chain_latency_own: f64,
    /// As `chain_latency_own`, while only other warpgroups' MMAs run.
    pub chain_latency_other: f64,
    /// Factor on a descriptor instruction's hold (`mma_descriptor_stall`) while its warp's
    /// own warpgroup has an MMA group in flight.
    pub descriptor_latency_own: f64,
}

impl Timing {
    /// The timing of `machine` at `clock_ghz`.
    pub fn new(machine: &Machine, clock_ghz: f64) -> Self {
        let sub_partitions = machine.issue.sub_partitions.value.max(1);
        let warp_size = machine.issue.warp_size.value.max(1);
        let pipe = |p: &Pipe| {
            let lanes_per_smsp = (p.lanes_per_clk_per_sm.value / sub_partitions).max(1);
            PipeTiming {
                interval: u64::from(warp_size.div_ceil(lanes_per_smsp)).max(1),
                latency: u64::from(p.latency_cycles.value),
            }
        };
        let p = &machine.pipes;
        let per_clk = |tb_s: f64| tb_s * 1e12 / (clock_ghz * 1e9);
        let t = &machine.tensor;
        Timing {
            copies_free: false,
            sub_partitions: sub_partitions as usize,
            warp_size,
            pipes: [pipe(&p.fma), pipe(&p.alu), pipe(&p.mufu), pipe(&p.lsu), pipe(&p.uniform)],
            mio_queue: u64::from(machine.issue.mio_queue_instructions.value),
            interleave_element_wise: machine.issue.interleave_element_wise.value,
            fixed_stall: machine.issue.fixed_stall_cycles.value.max(1.0),
            fold_zero_fill: machine.issue.fold_zero_fill.value,
            release_convergence: machine.issue.release_convergence.value,
            ring_advance_at_loop_tail: machine.issue.ring_advance_at_loop_tail.value,
            fma_elements_per_instr: machine.pipes.fma_elements_per_instr.value.max(1),
            imad_intervals: machine.pipes.imad_intervals.value.max(1),
            smem_bytes_per_clk: f64::from(machine.smem.bandwidth_bytes_per_clk.value.max(1)),
            smem_latency: u64::from(machine.smem.load_latency_cycles.value),
            tensor_fma_per_clk: [
                f64::from(t.dense_fma_per_clk_bf16.value.max(1)),
                f64::from(t.dense_fma_per_clk_tf32.value.max(1)),
            ],
            mma_rule: t.latency,
            mma_kind: match t.issue {
                MmaIssue::WarpgroupWgmma { .. } => MmaKind::Warpgroup,
                MmaIssue::SingleThreadTcgen05 { .. } => MmaKind::SingleThread,
            },
            mma_group_start: match t.issue {
                MmaIssue::WarpgroupWgmma { group_start_cycles, .. } => u64::from(group_start_cycles.value),
                MmaIssue::SingleThreadTcgen05 { .. } => 0,
            },
            mma_group_start_placed: match t.issue {
                MmaIssue::WarpgroupWgmma { group_start_cycles_placed, .. } => {
                    u64::from(group_start_cycles_placed.value)
                }
                MmaIssue::SingleThreadTcgen05 { .. } => 0,
            },
            mma_instr_interval_per_column: match t.issue {
                MmaIssue::WarpgroupWgmma { instr_interval_per_column, .. } => instr_interval_per_column.value,
                MmaIssue::SingleThreadTcgen05 { .. } => 0.0,
            },
            mma_descriptors_before_each: match t.issue {
                MmaIssue::WarpgroupWgmma { descriptors_before_each, .. } => descriptors_before_each.value,
                MmaIssue::SingleThreadTcgen05 { .. } => false,
            },
            mma_group_start_from_fence: match t.issue {
                MmaIssue::WarpgroupWgmma { group_start_from_fence, .. } => group_start_from_fence.value,
                MmaIssue::SingleThreadTcgen05 { .. } => false,
            },
            descriptor_placement: DescriptorPlacement::default(),
            mma_descriptor_stall: match t.issue {
                MmaIssue::WarpgroupWgmma { descriptor_cycles_ss, descriptor_cycles_rs, .. } => [
                    descriptor_cycles_ss.value / f64::from(super::descriptors::wgmma_descriptor_instrs(false)),
                    descriptor_cycles_rs.value / f64::from(super::descriptors::wgmma_descriptor_instrs(true)),
                ],
                MmaIssue::SingleThreadTcgen05 { .. } => [0.0; 2],
            },
            mma_tmem_a_fixed: match t.issue {
                MmaIssue::WarpgroupWgmma { .. } => None,
                MmaIssue::SingleThreadTcgen05 { tmem_a_fixed_cycles, .. } => Some(tmem_a_fixed_cycles.value),
            },
            tmem: machine.tensor_memory().map(|tm| TmemTiming {
                bytes_per_clk_per_smsp: f64::from(tm.access_bytes_per_clk_per_sm.value.max(1))
                    / f64::from(sub_partitions),
                load_latency: u64::from(tm.load_latency_cycles.value),
            }),
            tma_bytes_per_clk: f64::from(machine.tma.bytes_per_clk_per_sm.value.max(1)),
            tma_store_bytes_per_clk: f64::from(machine.tma.store_bytes_per_clk_per_sm.value.max(1)),
            tma_extra_latency: u64::from(machine.tma.extra_latency_cycles.value),
            tma_miss_extra_latency: u64::from(machine.tma.miss_extra_latency_cycles.value),
            tma_miss_extra_latency_loaded: u64::from(machine.tma.miss_extra_latency_loaded_cycles.value),
            l2_bytes_per_clk: per_clk(machine.l2.bandwidth_tb_s.value).max(1.0),
            l2_write_bytes_per_clk: per_clk(machine.l2.write_bandwidth_tb_s.value).max(1.0),
            l2_sector_write_bytes_per_clk: SectorRates {
                whole: per_clk(machine.l2.sector_write_bandwidth_tb_s.value).max(1.0),
                part: per_clk(machine.l2.partial_sector_write_bandwidth_tb_s.value).max(1.0),
            },
            global_store_bytes_per_clk: SectorRates {
                whole: machine.l1.store_bytes_per_clk_per_sm.value.max(1.0),
                part: machine.l1.partial_store_bytes_per_clk_per_sm.value.max(1.0),
            },
            l2_latency: u64::from(machine.l2.hit_latency_cycles.value),
            l2_latency_spread: machine.l2.hit_latency_spread.value,
            l2_far_latency: u64::from(machine.l2.far_hit_latency_cycles.value),
            l2_bytes: machine.l2.size_bytes.value,
            l2_partitions: machine.l2.partitions.value.max(1),
            l2_coalescing_window: f64::from(machine.l2.coalescing_window_cycles.value),
            l2_hit_waits_for_fill: machine.l2.hit_waits_for_fill.value,
            l2_fill_takes_miss_extra: machine.l2.fill_takes_miss_extra.value,
            l2_share_among_streaming: machine.l2.share_among_streaming.value,
            hbm_bytes_per_clk: per_clk(machine.hbm.bandwidth_tb_s.value).max(1.0),
            hbm_latency: u64::from(machine.hbm.latency_cycles.value),
            hbm_latency_spread: machine.hbm.latency_spread.value,
            mbarrier_wake: u64::from(machine.sync.mbarrier_wake_cycles.value),
            mbarrier_passed_wait: u64::from(machine.sync.mbarrier_passed_wait_cycles.value),
            mbarrier_passed_wait_per_thread: u64::from(machine.sync.mbarrier_passed_wait_cycles_per_thread.value),
            wait_forms: WaitForms::default(),
            named_barrier: u64::from(machine.sync.named_barrier_cycles.value),
            named_barrier_last_arrival: u64::from(machine.sync.named_barrier_last_arrival_cycles.value),
            cta_start: u64::from(machine.dispatch.cta_start_cycles.value),
            remote_arrive: u64::from(machine.clusters.remote_arrive_cycles.value).max(1),
            cluster_barrier: u64::from(machine.clusters.cluster_barrier_cycles.value).max(1),
            tensor_busy_factor: [
                t.interference.fma_interval_factor.value.max(1.0),
                t.interference.alu_interval_factor.value.max(1.0),
                t.interference.mufu_interval_factor.value.max(1.0),
                t.interference.shuffle_interval_factor.value.max(1.0),
                1.0,
            ],
            rs_delay_per_fma_instr: t.interference.rs_delay_per_fma_instr.value.max(0.0),
            tensor_copy_delay_per_byte: t.interference.copy_delay_per_kib.value.max(0.0) / 1024.0,
            tensor_tile_load_delay_per_byte: t.interference.tile_load_delay_per_kib.value.max(0.0) / 1024.0,
            chain_latency_own: t.interference.chain_latency_factor_own.value.max(1.0),
            chain_latency_other: t.interference.chain_latency_factor_other.value.max(1.0),
            descriptor_latency_own: t.interference.descriptor_latency_factor_own.value.max(1.0),
        }
    }

    /// Cycles a `try_wait` of `form` takes to return on a phase that has completed.
    pub fn passed_wait(&self, form: WaitForm) -> u64 {
        match form {
            WaitForm::Uniform => self.mbarrier_passed_wait,
            WaitForm::PerThread => self.mbarrier_passed_wait_per_thread,
        }
    }

    /// Timing of pipe `pipe`.
    pub fn pipe(&self, pipe: ExecPipe) -> PipeTiming {
        self.pipes[pipe.index()]
    }

    /// Cycles of queued work a pipe accepts beyond the instruction it is executing: the MIO
    /// queue for MUFU and LSU, nothing for the FMA and ALU pipes (an instruction issues only
    /// to a free math pipe).
    pub fn queue_cycles(&self, pipe: ExecPipe) -> u64 {
        match pipe {
            ExecPipe::Fma | ExecPipe::Alu | ExecPipe::Uniform => 0,
            ExecPipe::Mufu | ExecPipe::Lsu => self.mio_queue * self.pipe(pipe).interval,
        }
    }

    /// Whether a `wgmma` group of `a_in_registers`'s form has its first MMA's descriptor
    /// arithmetic lowered between its fence and that MMA (a kernel's placement, or the
    /// machine's `descriptors_before_each`), rather than after the group.
    pub fn descriptors_lead(&self, a_in_registers: bool) -> bool {
        self.descriptor_placement.of(a_in_registers).is_some() || self.mma_descriptors_before_each
    }

    /// Cycles from a `wgmma` group of `a_in_registers`'s form reaching its first MMA until
    /// that MMA can start: `group_start_cycles`, or `group_start_cycles_placed` where the
    /// lowering counts the arithmetic before the MMAs itself.
    pub fn group_start(&self, a_in_registers: bool) -> u64 {
        if self.descriptors_lead(a_in_registers) { self.mma_group_start_placed } else { self.mma_group_start }
    }

    /// Tensor FMAs per cycle per SM for operands of `dtype`.
    pub fn tensor_rate(&self, dtype: DType) -> f64 {
        match dtype {
            DType::Bf16 | DType::F16 => self.tensor_fma_per_clk[0],
            DType::F32 => self.tensor_fma_per_clk[1],
        }
    }

    /// Latency of one native MMA instruction with `n` columns: the machine's rule, or for an
    /// `n` the rule does not list, the rule at the nearest legal size.
    pub fn mma_latency(&self, n: u32) -> u64 {
        Self::latency_by(&self.mma_rule, n)
    }

    /// [`Timing::mma_latency`] of a `tcgen05.mma` whose A operand is in tensor memory (TS):
    /// the rule with the machine's TS fixed cycles, where it has them.
    pub fn mma_latency_tmem_a(&self, n: u32) -> u64 {
        let mut rule = self.mma_rule;
        if let Some(fixed) = self.mma_tmem_a_fixed {
            rule.fixed_cycles.value = fixed;
        }
        Self::latency_by(&rule, n)
    }

    fn latency_by(r: &MmaLatencyRule, n: u32) -> u64 {
        let step = r.n_step.value.max(1);
        let n = n.clamp(r.n_min.value, r.n_max.value).div_ceil(step) * step;
        u64::from(r.latency(n).unwrap_or(r.min_latency_cycles.value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hopper_pipes_follow_the_lane_counts() {
        let t = Timing::new(&Machine::h100_sxm(), 1.83);
        assert_eq!(t.pipe(ExecPipe::Fma), PipeTiming { interval: 1, latency: 4 });
        assert_eq!(t.pipe(ExecPipe::Alu).interval, 2);
        assert_eq!(t.pipe(ExecPipe::Mufu).interval, 8);
        assert_eq!(t.pipe(ExecPipe::Lsu).interval, 4);
        assert_eq!(t.mma_latency(256), 54 + 128);
        assert_eq!(t.mma_latency(12), 54 + 8);
        assert_eq!((t.mma_kind, t.tmem), (MmaKind::Warpgroup, None));
        let b200 = Timing::new(&Machine::b200(), 1.856);
        assert_eq!(b200.mma_kind, MmaKind::SingleThread);
        // A in tensor memory (TS) is measured 32 cycles faster than A in shared memory (SS).
        assert_eq!((b200.mma_latency(128), b200.mma_latency_tmem_a(128)), (96 + 64, 64 + 64));
        assert_eq!(t.mma_latency_tmem_a(256), t.mma_latency(256));
        assert_eq!((t.fma_elements_per_instr, b200.fma_elements_per_instr), (1, 2));
        assert!(b200.tmem.is_some());
        assert!((t.hbm_bytes_per_clk - 3.35e12 / 1.83e9).abs() < 1e-6);
        // Calibrated tensor-core interference (calibration/results/interfere/interfere.log).
        assert_eq!(t.tensor_busy_factor, [1.30, 2.0, 1.38, 3.85, 1.0]);
        assert_eq!(t.rs_delay_per_fma_instr, 0.0);
        assert_eq!(b200.tensor_busy_factor, [1.0; 5]);
    }
}
