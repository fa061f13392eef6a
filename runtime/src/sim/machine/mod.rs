//! Machine descriptions: every number the timing model and the occupancy calculator use,
//! written down as data, each with the source it came from.
//!
//! A [`Machine`] describes one GPU (H100 SXM, H200, B200). Architectures differ only in the
//! values stored here (and in the [`MmaIssue`] variant that says how tensor-core work is
//! issued); no code elsewhere should branch on which GPU it is modelling.
//!
//! Every numeric field is a [`Param`], which carries its value together with a citation: a
//! paper with its table or section, a vendor document, or the placeholder
//! [`TO_BE_CALIBRATED`] where no public number exists and the value is a guess awaiting a
//! measurement on real hardware.

use std::fmt;

use warpspec_hw::CtaLimits;

use super::sm::SchedulerPolicy;

mod b200;
mod h100;
mod h200;
mod spread;

pub use spread::Spread;

/// Marker carried in the source of every value that is a guess awaiting measurement.
///
/// A [`Param`] whose source contains this text has no public number behind it; its value is
/// a placeholder until the procedure in `calibration/README.md` measures it.
pub const TO_BE_CALIBRATED: &str = "to be calibrated: calibration/README.md";

/// A machine parameter: a value and the source that justifies it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param<T> {
    /// The value used by the model.
    pub value: T,
    /// Where the value comes from (paper and table/section, spec sheet, or a calibration note).
    pub source: &'static str,
}

impl<T: Copy> Param<T> {
    /// Creates a parameter from its value and its source citation.
    pub const fn new(value: T, source: &'static str) -> Self {
        Param { value, source }
    }

    /// Returns the value.
    pub const fn get(&self) -> T {
        self.value
    }

    /// The same value under another source: a figure of one machine assumed for another.
    pub const fn assumed(&self, source: &'static str) -> Self {
        Param { value: self.value, source }
    }

    /// Whether the value is a placeholder still waiting for a measurement
    /// (its source contains [`TO_BE_CALIBRATED`]).
    pub fn needs_calibration(&self) -> bool {
        self.source.contains(TO_BE_CALIBRATED)
    }
}

/// One row of [`Machine::parameters`]: a parameter's dotted name, its value rendered as text,
/// and its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamEntry {
    /// Dotted path of the field, e.g. `"tensor.dense_fma_per_clk_bf16"`.
    pub name: String,
    /// The value, formatted with `Debug`.
    pub value: String,
    /// The parameter's source citation.
    pub source: &'static str,
}

/// A part of a machine description that lists its parameters for the audit
/// ([`Machine::parameters`]).
pub trait Audit {
    /// Appends every parameter under `path` (the dotted path of this part) to `out`.
    fn audit(&self, path: &mut Vec<&'static str>, out: &mut Vec<ParamEntry>);
}

impl<T: Copy + fmt::Debug> Audit for Param<T> {
    fn audit(&self, path: &mut Vec<&'static str>, out: &mut Vec<ParamEntry>) {
        out.push(ParamEntry { name: path.join("."), value: format!("{:?}", self.value), source: self.source });
    }
}

/// `part` audited under `path.name`.
fn audit_field(part: &dyn Audit, name: &'static str, path: &mut Vec<&'static str>, out: &mut Vec<ParamEntry>) {
    path.push(name);
    part.audit(path, out);
    path.pop();
}

/// Declares a part of a machine description: the struct, and its [`Audit`] from the same
/// field list, so a parameter cannot be declared without being audited. Fields in a
/// leading `labels { ... }` block (names, not parameters) are left out of the audit.
macro_rules! parameters {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(labels { $($(#[$lmeta:meta])* pub $label:ident : $lty:ty,)* })?
            $($(#[$fmeta:meta])* pub $field:ident : $ty:ty,)*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name {
            $($($(#[$lmeta])* pub $label: $lty,)*)?
            $($(#[$fmeta])* pub $field: $ty,)*
        }

        impl Audit for $name {
            fn audit(&self, path: &mut Vec<&'static str>, out: &mut Vec<ParamEntry>) {
                $(audit_field(&self.$field, stringify!($field), path, out);)*
            }
        }
    };
}

mod memory;
pub use memory::{Hbm, L1, L2, Tma};

parameters! {
    /// Clock frequencies.
    pub struct Clocks {
        /// Maximum boost clock of the SMs, in GHz.
        pub boost_ghz: Param<f64>,
        /// The clock at which the vendor's dense-BF16 tensor peak is quoted, in GHz.
        pub spec_ghz: Param<f64>,
    }
}

parameters! {
    /// Instruction issue structure of one SM.
    pub struct Issue {
        /// Threads per warp.
        pub warp_size: Param<u32>,
        /// Sub-partitions (SMSPs) per SM, each with its own warp scheduler and register file slice.
        pub sub_partitions: Param<u32>,
        /// Warp-instructions one SMSP scheduler issues per clock (no dual issue).
        pub warp_instructions_per_smsp_per_clk: Param<u32>,
        /// Instructions each sub-partition's MIO instruction queues (MUFU, LSU) hold waiting for
        /// their shared unit, so a warp can issue past a busy MUFU or LSU pipe.
        pub mio_queue_instructions: Param<u32>,
        /// How each sub-partition's scheduler picks among its eligible warps (a run may
        /// override it: [`super::SimOptions::policy`]).
        pub scheduler_policy: Param<SchedulerPolicy>,
        /// Whether consecutive element-wise fragment operations issue interleaved across
        /// their pipes, as the compiler schedules them (`sim/mix.rs`), rather than one burst
        /// per operation.
        pub interleave_element_wise: Param<bool>,
        /// Cycles a warp waits after issuing an arithmetic instruction before it may issue its
        /// next, on average: the stall count the compiler writes into each instruction (1: no
        /// wait beyond the issue cycle; a pipe's interval and a result's latency still apply).
        pub fixed_stall_cycles: Param<f64>,
        /// Whether a fragment's zero fill costs nothing when the next op is an MMA
        /// accumulating into it (the compiler folds it into the MMA: `sim/fold.rs`).
        pub fold_zero_fill: Param<bool>,
        /// Whether a release in a per-thread ring is followed by its convergence code (the
        /// leader's `if` closed, the next branch opened: `sim/ring.rs`,
        /// `CONVERGENCE_CHAIN_PER_THREAD`), lowered as a chain on every warp.
        pub release_convergence: Param<bool>,
        /// Whether a role whose ring state is uniform advances its stage and phase at the
        /// loop's tail, after its arrive on the pipeline (the release, or the `expect_tx`
        /// arrive after the copies), rather than right after its wait (`sim/ring.rs`,
        /// `ADVANCE_CHAIN_UNIFORM`).
        pub ring_advance_at_loop_tail: Param<bool>,
    }
}

parameters! {
    /// Limits on what may be resident on one SM, and the CTA size limit.
    pub struct ResidencyLimits {
        /// Maximum resident warps per SM.
        pub warps_per_sm: Param<u32>,
        /// Maximum resident threads per SM.
        pub threads_per_sm: Param<u32>,
        /// Maximum resident CTAs (thread blocks) per SM.
        pub ctas_per_sm: Param<u32>,
        /// Maximum threads in one CTA.
        pub threads_per_cta: Param<u32>,
    }
}

parameters! {
    /// The `setmaxnreg` instruction's legal register counts: `min..=max` in steps of `step`.
    pub struct SetMaxNReg {
        /// Smallest legal per-thread register count.
        pub min: Param<u32>,
        /// Largest legal per-thread register count.
        pub max: Param<u32>,
        /// Legal counts are multiples of this.
        pub step: Param<u32>,
    }
}

impl SetMaxNReg {
    /// Whether `regs` is a register count `setmaxnreg` accepts.
    pub fn is_valid(&self, regs: u32) -> bool {
        let step = self.step.value;
        regs >= self.min.value && regs <= self.max.value && step != 0 && regs.is_multiple_of(step)
    }
}

parameters! {
    /// The register file and its allocation rules.
    pub struct RegisterFile {
        /// 32-bit registers per SM (split evenly over the sub-partitions).
        pub regs_per_sm: Param<u32>,
        /// Maximum 32-bit registers one CTA may hold.
        pub max_regs_per_cta: Param<u32>,
        /// Registers are allocated to a warp in multiples of this many registers.
        pub alloc_unit_regs_per_warp: Param<u32>,
        /// Maximum registers per thread a kernel may be compiled with.
        pub max_regs_per_thread: Param<u32>,
        /// Legal `setmaxnreg` values.
        pub setmaxnreg: SetMaxNReg,
    }
}

parameters! {
    /// Shared memory capacity, allocation rules, bandwidth and latency.
    pub struct SharedMemory {
        /// Largest shared-memory carve-out of one SM, in bytes.
        pub max_per_sm_bytes: Param<u32>,
        /// Largest shared memory one CTA may use (static + dynamic, opt-in), in bytes.
        pub max_per_cta_bytes: Param<u32>,
        /// Carve-out sizes the SM's unified L1/shared memory can be configured to, in KB, ascending.
        pub carveouts_kb: Param<&'static [u32]>,
        /// Shared memory is allocated to a CTA in multiples of this many bytes.
        pub alloc_granularity_bytes: Param<u32>,
        /// Bytes the driver reserves per CTA on top of what the kernel asks for.
        pub reserved_per_cta_bytes: Param<u32>,
        /// Shared-memory bandwidth per SM, in bytes per clock.
        pub bandwidth_bytes_per_clk: Param<u32>,
        /// Latency of a shared-memory load, in cycles.
        pub load_latency_cycles: Param<u32>,
    }
}

parameters! {
    /// One execution pipe of the SM: its throughput and the latency a dependent instruction sees.
    pub struct Pipe {
        /// Thread-operations (lanes) the whole SM completes per clock on this pipe.
        pub lanes_per_clk_per_sm: Param<u32>,
        /// Cycles from issue until a dependent instruction may issue.
        pub latency_cycles: Param<u32>,
    }
}

parameters! {
    /// The SM's non-tensor execution pipes.
    pub struct Pipes {
        /// FP32 fused multiply-add (FFMA, FADD, FMUL).
        pub fma: Pipe,
        /// Elements one FP32 FMA-pipe instruction computes per thread: 2 where the ISA has
        /// packed `f32x2` add/mul/fma (FADD2/FMUL2/FFMA2), else 1. A packed instruction issues
        /// once and holds the FMA pipe for this many times its interval: packing saves issue
        /// slots, not FMA-pipe cycles (`fma.lanes_per_clk_per_sm` counts FP32 operations).
        pub fma_elements_per_instr: Param<u32>,
        /// FMA-pipe intervals one integer multiply-add warp-instruction (`IMAD` and its
        /// `.MOV`/`.U32`/`.X`/`.WIDE`/`.SHL` forms) holds the pipe for: the FP32 rate over the
        /// IMAD rate.
        pub imad_intervals: Param<u32>,
        /// Integer and logic (IMAD, IADD3, LOP3, shifts, ...).
        pub alu: Pipe,
        /// Multi-function unit: special functions (`ex2`, `rcp`, `rsqrt`, ...).
        pub mufu: Pipe,
        /// Load/store unit for shared-memory accesses.
        pub lsu: Pipe,
        /// The uniform datapath: one scalar operation per warp-instruction on values every
        /// thread of the warp holds alike (`UIADD3`, `ULEA`, `USHF`, `UMOV`, `S2UR`), beside
        /// the vector pipes, so its instructions hold none of them.
        pub uniform: Pipe,
    }
}

parameters! {
    /// Tensor memory (TMEM): per-SM accumulator storage that Blackwell's `tcgen05.mma` writes.
    pub struct TensorMemory {
        /// Rows ("lanes") of tensor memory.
        pub lanes: Param<u32>,
        /// Columns of tensor memory.
        pub columns: Param<u32>,
        /// Bits per (lane, column) cell.
        pub cell_bits: Param<u32>,
        /// `tcgen05.alloc` hands out columns in multiples of this.
        pub alloc_granularity_columns: Param<u32>,
        /// Bytes per clock per SM that `tcgen05.ld`/`tcgen05.st` move between tensor memory and
        /// registers.
        pub access_bytes_per_clk_per_sm: Param<u32>,
        /// Cycles from a `tcgen05.ld` until its registers may be used.
        pub load_latency_cycles: Param<u32>,
    }
}

impl TensorMemory {
    /// Total tensor memory per SM, in bytes.
    pub fn bytes(&self) -> u64 {
        u64::from(self.lanes.value) * u64::from(self.columns.value) * u64::from(self.cell_bits.value) / 8
    }
}

/// How tensor-core matrix multiplies are issued and where their accumulators live.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MmaIssue {
    /// Hopper `wgmma.mma_async`: issued collectively by a warpgroup; the accumulator lives in
    /// the issuing warps' registers.
    WarpgroupWgmma {
        /// Warps in the warpgroup that issues one `wgmma`.
        warps_per_warpgroup: Param<u32>,
        /// Cycles from a group's issue (`wgmma.fence`, the warpgroup's arrive, the first
        /// `wgmma`) until its first MMA starts on idle tensor cores; hidden when the cores are
        /// still busy with earlier work. Fitted on loops whose code before each `wgmma`
        /// (fence, descriptor moves) the group-at-once lowering does not count...
        group_start_cycles: Param<u32>,
        /// ...and the same where the lowering counts that code itself, placed before the
        /// group's MMAs (a kernel's placement, `descriptors_before_each`).
        group_start_cycles_placed: Param<u32>,
        /// Cycles between one `wgmma` of a group and the next reaching the tensor cores, per
        /// column of N: groups of two warpgroups issued within this spread of each other
        /// interleave instruction by instruction.
        instr_interval_per_column: Param<f64>,
        /// Whether each `wgmma` of a group issues after the arithmetic that builds its own
        /// descriptors (as the compiled code orders them), rather than the whole group at once
        /// with that arithmetic after it.
        descriptors_before_each: Param<bool>,
        /// Whether [`MmaIssue::WarpgroupWgmma::group_start_cycles`] runs from the group's
        /// fence (`wgmma.fence`, issued before the arithmetic that builds the first MMA's
        /// descriptors) rather than from its first `wgmma`: where that arithmetic issues
        /// between the two (descriptors placed before their MMAs), the start hides under it.
        group_start_from_fence: Param<bool>,
        /// Cycles the compiled code spends on the arithmetic that builds one `wgmma`'s
        /// descriptors with both operands in shared memory (SS): ptxas's fixed stalls
        /// between two MMAs of a group, each counted instruction holding its warp for its
        /// share (0: held as other arithmetic is, `issue.fixed_stall_cycles`).
        descriptor_cycles_ss: Param<f64>,
        /// As [`MmaIssue::WarpgroupWgmma::descriptor_cycles_ss`], with A in registers (RS).
        descriptor_cycles_rs: Param<f64>,
    },
    /// Blackwell `tcgen05.mma`: issued by a single thread on behalf of the CTA; the accumulator
    /// lives in tensor memory and completion is signalled by `tcgen05.commit` to an mbarrier.
    SingleThreadTcgen05 {
        /// The SM's tensor memory.
        tmem: TensorMemory,
        /// Largest number of CTAs (on paired SMs) that can cooperate on one MMA.
        max_cta_group: Param<u32>,
        /// [`MmaLatencyRule::fixed_cycles`] of an MMA whose A operand comes from tensor memory
        /// (`tcgen05.mma` TS form); the rule's own value is for A in shared memory (SS).
        tmem_a_fixed_cycles: Param<u32>,
    },
}

impl Audit for MmaIssue {
    fn audit(&self, path: &mut Vec<&'static str>, out: &mut Vec<ParamEntry>) {
        match self {
            MmaIssue::WarpgroupWgmma {
                warps_per_warpgroup,
                group_start_cycles,
                group_start_cycles_placed,
                instr_interval_per_column,
                descriptors_before_each,
                group_start_from_fence,
                descriptor_cycles_ss,
                descriptor_cycles_rs,
            } => {
                path.push("wgmma");
                audit_field(warps_per_warpgroup, "warps_per_warpgroup", path, out);
                audit_field(group_start_cycles, "group_start_cycles", path, out);
                audit_field(group_start_cycles_placed, "group_start_cycles_placed", path, out);
                audit_field(instr_interval_per_column, "instr_interval_per_column", path, out);
                audit_field(descriptors_before_each, "descriptors_before_each", path, out);
                audit_field(group_start_from_fence, "group_start_from_fence", path, out);
                audit_field(descriptor_cycles_ss, "descriptor_cycles_ss", path, out);
                audit_field(descriptor_cycles_rs, "descriptor_cycles_rs", path, out);
            }
            MmaIssue::SingleThreadTcgen05 { tmem, max_cta_group, tmem_a_fixed_cycles } => {
                path.push("tcgen05");
                audit_field(tmem, "tmem", path, out);
                audit_field(max_cta_group, "max_cta_group", path, out);
                audit_field(tmem_a_fixed_cycles, "tmem_a_fixed_cycles", path, out);
            }
        }
        path.pop();
    }
}

parameters! {
    /// Latency of the machine's native asynchronous MMA of shape `m x n x k` (BF16/F16 inputs):
    /// `max(min_latency_cycles, fixed_cycles + ceil(n / columns_per_cycle))`, for legal `n` only.
    /// `ceil(n / columns_per_cycle)` is also the issue interval of back-to-back MMAs (the tensor
    /// cores' occupancy); `fixed_cycles` is the pipeline depth a single MMA adds on top.
    pub struct MmaLatencyRule {
        /// Rows of the native MMA tile (64 for `wgmma`, 128 for single-CTA `tcgen05.mma`).
        pub m: Param<u32>,
        /// Reduction depth of one BF16/F16 MMA instruction.
        pub k: Param<u32>,
        /// Smallest legal `n`.
        pub n_min: Param<u32>,
        /// Largest legal `n`.
        pub n_max: Param<u32>,
        /// Legal `n` are multiples of this.
        pub n_step: Param<u32>,
        /// Output columns completed per cycle (latency grows as `n / columns_per_cycle`).
        pub columns_per_cycle: Param<u32>,
        /// Latency floor for small `n`, in cycles.
        pub min_latency_cycles: Param<u32>,
        /// Cycles one MMA takes beyond its issue interval (pipeline fill and drain).
        pub fixed_cycles: Param<u32>,
    }
}

impl MmaLatencyRule {
    /// Latency in cycles of one MMA with `n` output columns, or `None` if `n` is not a legal
    /// size for this instruction.
    pub fn latency(&self, n: u32) -> Option<u32> {
        let step = self.n_step.value;
        let per_cycle = self.columns_per_cycle.value;
        if n < self.n_min.value || n > self.n_max.value || step == 0 || !n.is_multiple_of(step) {
            return None;
        }
        let cycles = n.checked_div(per_cycle)? + u32::from(!n.is_multiple_of(per_cycle));
        Some((self.fixed_cycles.value + cycles).max(self.min_latency_cycles.value))
    }
}

parameters! {
    /// Tensor cores.
    pub struct TensorCore {
        /// Dense BF16/F16 fused multiply-adds per clock per SM (FP32 accumulate).
        pub dense_fma_per_clk_bf16: Param<u32>,
        /// Dense FP8 fused multiply-adds per clock per SM.
        pub dense_fma_per_clk_fp8: Param<u32>,
        /// Dense TF32 fused multiply-adds per clock per SM (`f32` operands).
        pub dense_fma_per_clk_tf32: Param<u32>,
        /// How MMAs are issued and where accumulators live.
        pub issue: MmaIssue,
        /// Latency of the native asynchronous MMA.
        pub latency: MmaLatencyRule,
        /// Latency of the legacy warp-level `mma.sync.m16n8k16` (F16), in cycles.
        pub mma_sync_latency_cycles: Param<u32>,
        /// How busy tensor cores slow the SM's other pipes, and how FMA-pipe traffic slows an
        /// MMA that reads its A operand from registers.
        pub interference: TensorInterference,
    }
}

parameters! {
    /// Measured interference between the tensor cores and the other pipes of one SM.
    ///
    /// While the tensor cores execute, a warp-instruction on another pipe holds that pipe for
    /// its interval times the pipe's factor (1.0: no interference). While an MMA with A in
    /// registers (`wgmma` RS) executes, every FMA-pipe warp-instruction delays the tensor cores
    /// by `rs_delay_per_fma_instr` cycles (register-file read-port contention).
    pub struct TensorInterference {
        /// FMA-pipe (FFMA/FADD/FMUL) interval factor while the tensor cores are busy.
        pub fma_interval_factor: Param<f64>,
        /// ALU-pipe (FMNMX, F2FP conversions, logic) interval factor while the tensor cores are busy.
        pub alu_interval_factor: Param<f64>,
        /// MUFU interval factor while the tensor cores are busy.
        pub mufu_interval_factor: Param<f64>,
        /// Interval factor of counted LSU instructions (shuffles) while the tensor cores are busy.
        pub shuffle_interval_factor: Param<f64>,
        /// Tensor-core cycles lost per FMA-pipe warp-instruction issued while an RS MMA runs.
        pub rs_delay_per_fma_instr: Param<f64>,
        /// Tensor-core cycles lost per KiB a bulk copy (TMA) reads out of the SM's shared
        /// memory while MMAs run (the copy and the MMAs' operand reads share it).
        pub copy_delay_per_kib: Param<f64>,
        /// Tensor-core cycles lost per KiB a TMA tile load (through a tensor map) writes into
        /// the SM's shared memory while MMAs run.
        pub tile_load_delay_per_kib: Param<f64>,
        /// Latency factor of a dependent integer chain (the generated code's per-thread
        /// bookkeeping) while its warp's own warpgroup has an MMA group in flight.
        pub chain_latency_factor_own: Param<f64>,
        /// As `chain_latency_factor_own`, while the tensor cores run another warpgroup's MMAs
        /// only.
        pub chain_latency_factor_other: Param<f64>,
        /// Factor on the hold of a `wgmma` descriptor instruction
        /// (`tensor.issue.wgmma.descriptor_cycles_*`) while its warp's own warpgroup has an
        /// MMA group in flight (1.0: none), where the lowering places the arithmetic before
        /// the group's MMAs (a kernel's placement, `descriptors_before_each`).
        pub descriptor_latency_factor_own: Param<f64>,
    }
}

impl TensorInterference {
    /// No interference (every factor 1, no delay), with the source `why`.
    pub const fn none(why: &'static str) -> Self {
        TensorInterference {
            fma_interval_factor: Param::new(1.0, why),
            alu_interval_factor: Param::new(1.0, why),
            mufu_interval_factor: Param::new(1.0, why),
            shuffle_interval_factor: Param::new(1.0, why),
            rs_delay_per_fma_instr: Param::new(0.0, why),
            copy_delay_per_kib: Param::new(0.0, why),
            tile_load_delay_per_kib: Param::new(0.0, why),
            chain_latency_factor_own: Param::new(1.0, why),
            chain_latency_factor_other: Param::new(1.0, why),
            descriptor_latency_factor_own: Param::new(1.0, why),
        }
    }
}

parameters! {
    /// Synchronisation latencies.
    pub struct Sync {
        /// Cycles from the arrival (or transaction) completing an mbarrier phase until a waiting
        /// warp can issue again.
        pub mbarrier_wake_cycles: Param<u32>,
        /// Cycles a warp's `mbarrier.try_wait` takes to return on a phase that completed
        /// before it (the wait passes at its first test, but not at once), where the compiled
        /// code addresses the barrier through a uniform register...
        pub mbarrier_passed_wait_cycles: Param<u32>,
        /// ...and where it addresses it per thread, inside convergence bookkeeping
        /// ([`super::wait_forms`]).
        pub mbarrier_passed_wait_cycles_per_thread: Param<u32>,
        /// Cycles from the last warp arriving at a named barrier (`bar.sync`) until waiters resume.
        pub named_barrier_cycles: Param<u32>,
        /// Cycles the last warp to arrive at a named barrier's `bar.sync` takes to pass it
        /// (`BAR.SYNC.DEFER_BLOCKING`: it goes on issuing until an instruction that must wait
        /// for the release).
        pub named_barrier_last_arrival_cycles: Param<u32>,
    }
}

parameters! {
    /// How CTAs come to run on an SM.
    pub struct Dispatch {
        /// Cycles from a CTA slot's freeing (or the launch, for the first CTAs) until the
        /// new CTA's warps issue their first op: the block scheduler's dispatch and the
        /// kernel's prologue before its first op (parameters, barrier set-up).
        pub cta_start_cycles: Param<u32>,
    }
}

parameters! {
    /// Thread-block clusters ([`warpspec_hw::ClusterShape`]): where they may run and what
    /// talking across the CTAs of one costs.
    pub struct Clusters {
        /// SMs of each GPC; a cluster's CTAs all run on the SMs of one GPC. Sums to
        /// `sm_count`.
        pub gpc_sms: Param<&'static [u32]>,
        /// Cycles from `mbarrier.arrive.release.cluster` on a peer CTA's barrier (after `mapa`)
        /// to the arrival counting there; an arrival on the issuing CTA's own barrier costs
        /// what a local one does.
        pub remote_arrive_cycles: Param<u32>,
        /// Cycles from the last thread of the cluster arriving at `barrier.cluster` until
        /// the waiters of every CTA resume.
        pub cluster_barrier_cycles: Param<u32>,
    }
}

parameters! {
    /// Board power and the SM clock it allows under sustained load ([`crate::sim::clock`]).
    ///
    /// Predicted board power at SM clock `f` (`s = f / boost`), for a run whose activity
    /// counts (FLOPs, warp-instructions, L2 and HBM bytes) are spread over its time `t(f)`:
    /// `P = idle_w + s^(1+x) clock_w + s^x (tensor FLOP/s e_tc + instructions/s e_is +
    /// L2 B/s e_l2) + HBM B/s e_hbm`, with `x = voltage_exponent` (energy per event scales as
    /// the square of the core voltage, taken as `s^x`). The memory clock does not move, so
    /// HBM energy per byte does not scale. A sustained run settles at the clock where `P`
    /// meets `limit_w`, or at boost if it stays under.
    pub struct Power {
        /// The board power limit the power manager holds, in W.
        pub limit_w: Param<f64>,
        /// Power drawn with the SMs clocked but idle at the lowest clocks, in W (static).
        pub idle_w: Param<f64>,
        /// Power of clocking the SMs at boost, beyond `idle_w`, independent of activity, in W.
        pub clock_w: Param<f64>,
        /// Energy per tensor-core FLOP at the boost voltage, in pJ.
        pub tensor_pj_per_flop: Param<f64>,
        /// Energy per issued warp-instruction at the boost voltage, in pJ.
        pub issue_pj_per_instruction: Param<f64>,
        /// Energy per byte moved through L2 at the boost voltage, in pJ.
        pub l2_pj_per_byte: Param<f64>,
        /// Energy per byte moved to or from HBM, in pJ (memory clock fixed).
        pub hbm_pj_per_byte: Param<f64>,
        /// `x`: energy per event scales as `(f / boost)^x` (voltage squared).
        pub voltage_exponent: Param<f64>,
        /// The lowest SM clock the power manager goes to under load, in GHz.
        pub min_clock_ghz: Param<f64>,
        /// The highest SM clock a loaded SM runs at, in GHz, counted in its own cycles (the
        /// clock the model's cycles tick at): below `clocks.boost_ghz` where the board's clock
        /// reading overstates it.
        pub loaded_max_ghz: Param<f64>,
        /// The board power a short run may draw before the fast limiter lowers the SM clock,
        /// in W: a burst runs at the clock where the power model meets it.
        pub burst_limit_w: Param<f64>,
        /// Time constant of the SM clock's drop from boost to its sustained value, in s.
        pub drop_tau_s: Param<f64>,
        /// The memory clock, in MHz: fixed, also at the power limit.
        pub memory_clock_mhz: Param<f64>,
    }
}

parameters! {
    /// A GPU, described entirely by data.
    pub struct Machine {
        labels {
            /// Canonical short name, accepted by [`Machine::by_name`] (e.g. `"h100-sxm"`).
            pub name: &'static str,
            /// Marketing name (e.g. `"NVIDIA H100 SXM5 80GB"`).
            pub full_name: &'static str,
        }
        /// CUDA compute capability `(major, minor)`.
        pub compute_capability: Param<(u32, u32)>,
        /// Number of SMs.
        pub sm_count: Param<u32>,
        /// Clocks.
        pub clocks: Clocks,
        /// Issue structure of an SM.
        pub issue: Issue,
        /// Residency limits.
        pub limits: ResidencyLimits,
        /// Register file.
        pub registers: RegisterFile,
        /// Shared memory.
        pub smem: SharedMemory,
        /// Non-tensor pipes.
        pub pipes: Pipes,
        /// Tensor cores.
        pub tensor: TensorCore,
        /// Tensor Memory Accelerator.
        pub tma: Tma,
        /// L1 cache.
        pub l1: L1,
        /// L2 cache.
        pub l2: L2,
        /// Device memory.
        pub hbm: Hbm,
        /// Synchronisation latencies.
        pub sync: Sync,
        /// CTA dispatch.
        pub dispatch: Dispatch,
        /// Thread-block clusters.
        pub clusters: Clusters,
        /// Board power and the sustained SM clock.
        pub power: Power,
    }
}

/// Canonical names of the built-in machines, in the order [`Machine::names`] returns them.
const NAMES: [&str; 3] = ["h100-sxm", "h200", "b200"];

impl Machine {
    /// Canonical names of the built-in machines (`"h100-sxm"`, `"h200"`, `"b200"`).
    pub fn names() -> &'static [&'static str] {
        &NAMES
    }

    /// Looks a machine up by name, case-insensitively. Accepts `"h100"`, `"h100-sxm"` (also
    /// written with `_` or a space), `"h200"` and `"b200"`; returns `None` for anything else.
    pub fn by_name(name: &str) -> Option<Machine> {
        let key: String =
            name.trim().chars().map(|c| if c == '_' || c == ' ' { '-' } else { c.to_ascii_lowercase() }).collect();
        match key.as_str() {
            "h100" | "h100-sxm" | "h100-sxm5" => Some(Machine::h100_sxm()),
            "h200" | "h200-sxm" => Some(Machine::h200()),
            "b200" | "b200-sxm" => Some(Machine::b200()),
            _ => None,
        }
    }

    /// Peak dense BF16 tensor throughput of the whole GPU at `clock_ghz`, in TFLOP/s
    /// (one FMA counts as two FLOPs).
    pub fn peak_dense_bf16_tflops(&self, clock_ghz: f64) -> f64 {
        2.0 * f64::from(self.sm_count.value) * f64::from(self.tensor.dense_fma_per_clk_bf16.value) * clock_ghz * 1e-3
    }

    /// Peak dense BF16 throughput at the clock the vendor quotes it at ([`Clocks::spec_ghz`]),
    /// in TFLOP/s.
    pub fn spec_peak_dense_bf16_tflops(&self) -> f64 {
        self.peak_dense_bf16_tflops(self.clocks.spec_ghz.value)
    }

    /// Converts a cycle count to seconds at `clock_ghz`.
    pub fn cycles_to_seconds(&self, cycles: f64, clock_ghz: f64) -> f64 {
        cycles / (clock_ghz * 1e9)
    }

    /// Converts seconds to a cycle count at `clock_ghz`.
    pub fn seconds_to_cycles(&self, seconds: f64, clock_ghz: f64) -> f64 {
        seconds * clock_ghz * 1e9
    }

    /// Latency in cycles of this machine's native asynchronous MMA (`wgmma` m64nNk16 on
    /// Hopper, `tcgen05.mma` m128nNk16 on Blackwell) with `n` output columns; `None` if `n` is
    /// not a legal size.
    pub fn mma_latency(&self, n: u32) -> Option<u32> {
        self.tensor.latency.latency(n)
    }

    /// Latency in cycles of `wgmma.mma_async` m64nNk16 (BF16/F16): `N/2` cycles for
    /// `N >= 64` (Luo et al. Table VIII). `None` if this machine has no `wgmma` (Blackwell
    /// issues `tcgen05.mma` instead) or `n` is not a legal `wgmma` size.
    pub fn wgmma_latency(&self, n: u32) -> Option<u32> {
        match self.tensor.issue {
            MmaIssue::WarpgroupWgmma { .. } => self.mma_latency(n),
            MmaIssue::SingleThreadTcgen05 { .. } => None,
        }
    }

    /// The machine's tensor memory, if its MMAs accumulate into one.
    pub fn tensor_memory(&self) -> Option<&TensorMemory> {
        match &self.tensor.issue {
            MmaIssue::WarpgroupWgmma { .. } => None,
            MmaIssue::SingleThreadTcgen05 { tmem, .. } => Some(tmem),
        }
    }

    /// What one CTA may use on this machine, for launch checks.
    pub fn cta_limits(&self) -> CtaLimits {
        CtaLimits {
            smem_per_cta_bytes: self.smem.max_per_cta_bytes.value,
            threads_per_cta: self.limits.threads_per_cta.value,
            registers_per_sm: self.registers.max_regs_per_cta.value,
            tmem_columns: self.tensor_memory().map_or(0, |t| t.columns.value),
        }
    }

    /// Every parameter of the machine with its dotted name, value and source, for reports
    /// and audits.
    pub fn parameters(&self) -> Vec<ParamEntry> {
        let mut out = Vec::new();
        self.audit(&mut Vec::new(), &mut out);
        out
    }
}

impl fmt::Display for Machine {
    /// Writes one line per parameter: `name = value  [source]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} ({})", self.full_name, self.name)?;
        for entry in self.parameters() {
            writeln!(f, "  {} = {}  [{}]", entry.name, entry.value, entry.source)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
