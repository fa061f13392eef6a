//! Lowering: how each tile-level [`Op`] becomes counted warp-instructions.
//!
//! An op is issued by a role *instance* of `T` threads (`T = 32` for a warp, 128 for a
//! warpgroup). Every warp of the instance executes the same lowered stream, so the counts
//! below are **per warp**. Counted instructions are grouped into bursts ([`Instr::Exec`] and
//! friends: `count` identical warp-instructions on one pipe) so that a 128-element FMA over a
//! fragment is one queue entry, while the scheduler still issues it one warp-instruction per
//! cycle at most.
//!
//! Register fragments are assumed to use the `wgmma` accumulator layout: a warp owns 16 rows
//! of every 64, and each row is spread over a quad of [`THREADS_PER_ROW`] threads. A row
//! vector (an op with `cols == 1`) is held by the threads of the quad that owns the row, so a
//! thread holds `ceil(rows * 4 / T)` of its values.
//!
//! Dependencies (see [`Dep`]): ops carry shapes, not operands, so the model assumes each
//! result-consuming op depends on the previous result-producing op of the same warp,
//! element-wise: the first instruction of a burst waits for the first result of the previous
//! burst, later ones follow it one per cycle (an element-wise pipeline, as a compiler
//! schedules a fragment-wide operation). Control instructions (arrive, TMA issue, waits,
//! `wgmma` with both operands in shared memory) depend on no register result.

use crate::dsl::{BarrierSlot, DType, GlobalTile, MathKind, Op, RoleSpec, Wait};

use super::descriptors;
use super::mix::Mix;
use super::timing::{ExecPipe, MmaKind, Timing};
pub use super::tma_issue::{CopyOperands, TMA_ISSUE_INSTRS_PER_BOX, TMA_ISSUE_INSTRS_PER_BOX_PER_THREAD};
use super::tma_issue::{tma_boxes, tma_issue, tma_load_boxes};
use super::wait_forms::WaitForm;

/// Threads that share one row of a fragment in the `wgmma` accumulator layout (a quad).
pub const THREADS_PER_ROW: u32 = 4;

/// Bytes one thread moves with one vector shared-memory instruction (`ld.shared.v4.b32`), as
/// the model counts shared loads and stores; stores to global memory go one column pair at a
/// time ([`Op::GlobalStore`]).
pub const BYTES_PER_THREAD_ACCESS: u32 = 16;

/// Bytes one thread moves with one tensor-memory access (`tcgen05.ld/st.32x32b.x32`: 32
/// registers of 4 bytes).
pub const BYTES_PER_THREAD_TMEM_ACCESS: u32 = 128;

/// Packed `f32x2` FMA-pipe instructions of one software `exp2` of two elements
/// ([`MathKind::Exp2Poly`]): round down, subtract back, fractional part, three Horner FMAs.
pub const PACKED_OPS_PER_EXP2_PAIR: u32 = 6;

/// FP32 operations of one software `exp2` pair on the FMA pipe: 6 packed `f32x2`
/// instructions (2 elements each) where the machine has them, else 12 scalar ones.
const FMA_OPS_PER_EXP2_PAIR: u32 = 2 * PACKED_OPS_PER_EXP2_PAIR;

/// Where the instruction counts of the generated code below come from.
pub const SASS_EVIDENCE: &str = "calibration/sass/fa3_d128_loop.txt (SASS of the generated FA3 consumer, sm_90a, one unmasked main-loop iteration per warp)";

/// Instructions per element of [`MathKind::Cast`] in the generated code: the fragment stays
/// `f32`, so each element is rounded by an `F2FP.BF16.F32.PACK_AB` of its own (ALU pipe) and
/// widened back by an `IMAD.U32 x, 0x10000` (FMA pipe): 64 + 64 for 64 elements per thread
/// ([`SASS_EVIDENCE`]).
const CAST_INSTRS_PER_ELEMENT: u32 = 1;

/// ALU-pipe instructions per element of [`MathKind::Select`] over a fragment (a mask): the
/// compare or predicate logic (`ISETP`/`LOP3`) and the `FSEL`: 130 for 64 elements per thread
/// in the masked path of the generated FA3 consumer ([`SASS_EVIDENCE`]).
const SELECT_INSTRS_PER_ELEMENT: u32 = 2;

/// What the lowering needs of the role instance that issues an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Issuer {
    /// Threads of one instance.
    pub threads: u32,
    /// Where the instance's copy operands live.
    pub copies: CopyOperands,
}

impl Issuer {
    /// An instance of `role`.
    pub fn of(role: &RoleSpec) -> Self {
        let copies = if role.instances > 1 { CopyOperands::PerThread } else { CopyOperands::Uniform };
        Issuer { threads: role.threads_per_instance(), copies }
    }

    /// An instance of `threads` threads whose copy operands are uniform.
    pub fn uniform(threads: u32) -> Self {
        Issuer { threads, copies: CopyOperands::Uniform }
    }
}

/// Instructions per stored column pair of `store_global` besides the store itself: the row
/// and column bounds tests (`ISETP`), the branch around the store and the address (`LEA`,
/// `IMAD.WIDE`). The generated code (`wsg::store_frag`) stores each thread's pair of
/// adjacent columns with one `STG.E.64` (f32) or `STG.E` (bf16x2); ptxas' SASS of
/// `ws_gemm`'s epilogue (64 pairs per thread) holds 337 integer and 252 control
/// instructions for its 64 `STG.E.64` and, on the clipped path, 128 `STG.E`
/// (`calibration/sass/README.md`, "TMA issue and global stores").
pub const STORE_GLOBAL_INSTRS_PER_PAIR: u32 = 4;

/// Where the lowering of [`Op::FragmentStore`] comes from: in the SASS of the generated
/// `cluster_gemm` (sm_90a, `cuda_dump`), a consumer warpgroup writes its 64 x 256 bf16 rows of
/// the output tile with 64 `F2FP.BF16.F32.PACK_AB` and 64 `STS` (4 bytes: one rounded column
/// pair) per thread; an f32 tile takes one 8-byte `STS.64` per pair and no rounding
/// (`calibration/sass/README.md`, "The epilogue through shared memory").
pub const FRAGMENT_STORE_EVIDENCE: &str =
    "calibration/sass/README.md, \"The epilogue through shared memory\" (SASS of the generated cluster_gemm, sm_90a)";

/// An op the machine cannot execute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// What the op needs, in words.
    pub needs: &'static str,
}

/// How the instructions of a burst wait for results of earlier instructions of their warp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dep {
    /// No dependency on earlier results.
    None,
    /// Element-wise on the previous result-producing burst: the first instruction waits for
    /// that burst's first result; the others are independent of each other.
    Stream,
    /// A dependent chain: the first instruction as for [`Dep::Stream`], then each waits for
    /// the result of the one before it (pays the pipe latency per instruction).
    Chain,
    /// A chain of per-thread ring bookkeeping ([`super::ring`]): as [`Dep::Chain`], its
    /// latency stretched while its warp's own warpgroup has an MMA group in flight
    /// (calibration item 38).
    Bookkeeping,
    /// The arithmetic that builds one `wgmma`'s shared-memory descriptors: independent of
    /// register results, as [`Dep::None`], but each instruction holds its warp for its share
    /// of the cycles ptxas's fixed stalls spend on that arithmetic
    /// (`tensor.issue.wgmma.descriptor_cycles_ss` / `_rs`).
    Descriptor {
        /// Whether the MMA takes A from registers (RS).
        a_in_registers: bool,
    },
}

impl Dep {
    /// Whether each instruction waits for the one before it.
    pub fn is_chain(self) -> bool {
        matches!(self, Dep::Chain | Dep::Bookkeeping)
    }
}

/// One entry of a warp's instruction queue. Counts are per warp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Instr {
    /// `count` warp-instructions on `pipe`.
    Exec {
        /// The pipe.
        pipe: ExecPipe,
        /// Warp-instructions.
        count: u32,
        /// Dependency on earlier results.
        dep: Dep,
        /// Elements each thread computes per instruction: 1, or 2 for a packed `f32x2`
        /// instruction, which issues once and holds its pipe twice its interval.
        elements: u32,
    },
    /// `count` shared-memory accesses of `bytes` each (per warp-instruction), on the LSU pipe
    /// and the SM's shared-memory port. Loads produce results (shared-memory latency).
    Shared {
        /// Warp-instructions.
        count: u32,
        /// Bytes each warp-instruction moves.
        bytes: u32,
        /// Load (true) or store.
        load: bool,
    },
    /// `count` global loads of `bytes` each through L2 (and HBM on a miss); results arrive
    /// after the memory latency. Not produced by any [`Op`]: used by hand-built programs
    /// ([`super::micro`]).
    GlobalLoad {
        /// Warp-instructions.
        count: u32,
        /// Bytes each warp-instruction moves.
        bytes: u32,
        /// Whether the data comes from HBM (true) or hits in L2.
        from_hbm: bool,
    },
    /// `count` global stores of `bytes` each (per warp-instruction) on the LSU pipe, each
    /// spread over `lines` cache lines (one L1 wavefront each on the SM's shared-memory/L1
    /// data port); the bytes are written through L2.
    GlobalStore {
        /// Warp-instructions.
        count: u32,
        /// Bytes each warp-instruction moves.
        bytes: u32,
        /// Cache lines (L1 wavefronts) each warp-instruction touches.
        lines: u32,
    },
    /// Native MMAs of one `wgmma` group: `issue` issue cycles per warp (`instrs` x `wgmma`,
    /// and `wgmma.fence` before a group's first, `wgmma.commit_group` after its last),
    /// collective over the instance; its `instrs` native MMAs of `fma` multiply-adds each
    /// run back to back on the SM's tensor cores. A group is one or more of these in a row,
    /// with the descriptor arithmetic of each MMA between them; the last `commits` it.
    Mma {
        /// Issue cycles per warp.
        issue: u32,
        /// Native MMA instructions.
        instrs: u32,
        /// Multiply-adds of one native instruction.
        fma: u64,
        /// Output columns of one native instruction (sets its latency).
        n: u32,
        /// Operand format.
        dtype: DType,
        /// `A` comes from registers (`wgmma` RS): waits for the previous register result.
        a_in_registers: bool,
        /// The group ends with these MMAs (`wgmma.commit_group`): `wgmma.wait_group` counts
        /// it from here on.
        commits: bool,
    },
    /// Single-thread MMAs into tensor memory (`tcgen05.mma`): `instrs` issue cycles (one per
    /// native MMA of `fma` multiply-adds), collective over the instance; they run on the SM's
    /// tensor cores and complete for [`Instr::MmaCommit`].
    Umma {
        /// Native MMA instructions (and issue cycles).
        instrs: u32,
        /// Multiply-adds of one native instruction.
        fma: u64,
        /// Output columns of one native instruction (sets its latency).
        n: u32,
        /// Operand format.
        dtype: DType,
        /// `A` comes from tensor memory (TS form; its latency differs from SS).
        a_in_tmem: bool,
    },
    /// `tcgen05.commit`: one arrival on `barrier` once every MMA the instance issued before it
    /// has completed; collective.
    MmaCommit {
        /// The barrier to arrive on.
        barrier: BarrierSlot,
    },
    /// `count` tensor-memory accesses of `bytes` each (per warp-instruction) through the
    /// sub-partition's tensor-memory port; loads produce results.
    Tmem {
        /// Warp-instructions.
        count: u32,
        /// Bytes each warp-instruction moves.
        bytes: u32,
        /// Load (true) or store.
        load: bool,
    },
    /// A TMA load of `bytes`, completing its bytes on `barrier`; collective (the copy starts
    /// when the last warp of the instance issues it).
    TmaLoad {
        /// Barrier the bytes complete on.
        barrier: BarrierSlot,
        /// Bytes copied.
        bytes: u32,
        /// The source box, for the L2 model (`None`: counts as an L2 hit).
        src: Option<GlobalTile>,
    },
    /// A multicast TMA load (`.multicast::cluster`): `bytes` read once through the memory
    /// system and delivered to the same slot of every CTA of `mask`, completing `bytes` on
    /// `barrier` of each; collective.
    TmaLoadMulticast {
        /// Barrier the bytes complete on, in each destination CTA.
        barrier: BarrierSlot,
        /// Bytes delivered to each destination.
        bytes: u32,
        /// The source box, for the L2 model.
        src: Option<GlobalTile>,
        /// Destination ranks, one bit each.
        mask: u16,
    },
    /// `mbarrier.arrive.release.cluster` on `barrier` of every CTA of `mask` (the issuing
    /// CTA's own arrival is local, a peer's crosses the SM-to-SM network); collective.
    ClusterArrive {
        /// The barrier, in each CTA of `mask`.
        barrier: BarrierSlot,
        /// The CTAs arrived on, one bit per rank.
        mask: u16,
    },
    /// A TMA store of `bytes` shared→global, one bulk group; collective.
    TmaStore {
        /// Bytes copied.
        bytes: u32,
        /// The destination box, for the L2 model.
        dst: Option<GlobalTile>,
    },
    /// `mbarrier.arrive` (expecting `tx_bytes`); one arrival per instance, collective.
    Arrive {
        /// The barrier.
        barrier: BarrierSlot,
        /// Transaction bytes expected.
        tx_bytes: u32,
    },
    /// `bar.arrive` with this warp's threads.
    NamedArrive {
        /// Index into the kernel's named barriers.
        barrier: u16,
    },
    /// `mbarrier.try_wait` issued ahead of its branch: the [`Instr::Wait`] that follows, on a
    /// phase already completed, passes the `try_wait`'s latency for its `form`
    /// ([`super::wait_forms`]) after this issue rather than after its own test, so the
    /// instructions between run under that latency (where ptxas schedules independent work
    /// between the two: [`super::ring::wait`]).
    TryWait {
        /// How the wait addresses its barrier.
        form: WaitForm,
    },
    /// A blocking wait; one issue cycle each time the warp tests it.
    Wait(Wait),
    /// Consecutive element-wise bursts interleaved as the compiler schedules them
    /// ([`super::mix`]); not produced by [`lower`], which gives one burst per op.
    Mix(Mix),
}

impl Instr {
    /// Warp-instructions the instruction issues per warp (issue cycles of its scheduler).
    pub fn issues(&self) -> u32 {
        match *self {
            Instr::Exec { count, .. }
            | Instr::Shared { count, .. }
            | Instr::GlobalLoad { count, .. }
            | Instr::GlobalStore { count, .. }
            | Instr::Tmem { count, .. } => count,
            Instr::Mix(mix) => mix.issues(),
            Instr::Mma { issue, .. } => issue,
            Instr::Umma { instrs, .. } => instrs,
            Instr::MmaCommit { .. }
            | Instr::TmaLoad { .. }
            | Instr::TmaStore { .. }
            | Instr::TmaLoadMulticast { .. }
            | Instr::ClusterArrive { .. }
            | Instr::Arrive { .. }
            | Instr::NamedArrive { .. }
            | Instr::TryWait { .. }
            | Instr::Wait(_) => 1,
        }
    }

    /// Whether the effect belongs to the whole instance and fires once, when its last warp
    /// issues the instruction.
    pub fn is_collective(&self) -> bool {
        matches!(
            self,
            Instr::Mma { .. }
                | Instr::Umma { .. }
                | Instr::MmaCommit { .. }
                | Instr::TmaLoad { .. }
                | Instr::TmaStore { .. }
                | Instr::TmaLoadMulticast { .. }
                | Instr::ClusterArrive { .. }
                | Instr::Arrive { .. }
        )
    }
}

/// Elements of an `rows x cols` fragment one thread of a `threads`-thread instance holds;
/// a row vector (`cols == 1`) is held by the quad owning each row.
fn per_thread(rows: u32, cols: u32, threads: u32) -> u32 {
    let threads = threads.max(1);
    if cols == 1 { (rows * THREADS_PER_ROW).div_ceil(threads).max(1) } else { (rows * cols).div_ceil(threads).max(1) }
}

/// `count` warp-instructions on `pipe` (none when `count` is 0).
pub(super) fn exec(pipe: ExecPipe, count: u32, dep: Dep, out: &mut Vec<Instr>) {
    if count > 0 {
        out.push(Instr::Exec { pipe, count, dep, elements: 1 });
    }
}

/// `count` integer multiply-adds (`IMAD` forms) on the FMA pipe: one issue each, holding the
/// pipe `timing.imad_intervals` intervals (the `elements` of the burst).
pub(super) fn imad(count: u32, dep: Dep, timing: &Timing, out: &mut Vec<Instr>) {
    if count > 0 {
        out.push(Instr::Exec { pipe: ExecPipe::Fma, count, dep, elements: timing.imad_intervals });
    }
}

/// `ops` FP32 operations per thread on the FMA pipe, as packed `f32x2` instructions where the
/// machine has them (`ceil(ops / 2)` instructions of 2 elements), else `ops` scalar ones.
fn fp32(ops: u32, dep: Dep, timing: &Timing, out: &mut Vec<Instr>) {
    let elements = timing.fma_elements_per_instr.max(1);
    if ops > 0 {
        out.push(Instr::Exec { pipe: ExecPipe::Fma, count: ops.div_ceil(elements), dep, elements });
    }
}

/// Accesses of `bytes` in total over an instance of `threads`, `per_thread` bytes per thread
/// and instruction: per warp, the count of instructions and the bytes each moves.
fn vector_accesses(bytes: u32, threads: u32, warp_size: u32, per_thread: u32) -> (u32, u32) {
    let warps = threads.div_ceil(warp_size).max(1);
    let per_warp = bytes.div_ceil(warps);
    let per_instr = per_thread * warp_size;
    let count = per_warp.div_ceil(per_instr);
    (count, if count == 0 { 0 } else { per_warp.div_ceil(count) })
}

/// Appends the per-warp instructions of `op`, issued by an instance of `threads` threads, to
/// `out`. The count for each op:
///
/// - [`Op::Math`] over `rows x cols` elements: `e = ceil(rows * cols / T)` elements per
///   thread (`ceil(rows * 4 / T)` for a row vector), so per warp:
///   - `Fill`: `e` moves on the FMA pipe (the compiler emits `IMAD.MOV`); with
///     `issue.fold_zero_fill` the backend drops a zero fill that the next op, an MMA,
///     accumulates into (`sim/fold.rs`);
///   - `Fma`: `e` FFMA on the FMA pipe, or `ceil(e / 2)` packed FFMA2 on a machine with
///     `f32x2` instructions (`pipes.fma_elements_per_instr = 2`: one issue slot each, two
///     FMA-pipe intervals);
///   - `Exp2`: `e` MUFU.EX2; `Recip`: `e` MUFU.RCP (MUFU pipe);
///   - `Max`: `e` FMNMX on the ALU pipe;
///   - `Select`: `2e` on the ALU pipe (predicate logic and FSEL per element,
///     [`SELECT_INSTRS_PER_ELEMENT`]);
///   - `Cast`: on `wgmma` machines `e` F2FP on the ALU pipe, then `e` IMAD.U32 widening on
///     the FMA pipe (each `pipes.imad_intervals` FMA-pipe intervals) ([`CAST_INSTRS_PER_ELEMENT`]); on `tcgen05` machines `ceil(e / 2)` F2FP
///     on the ALU pipe (pairs packed for tensor memory);
///   - `Exp2Poly` (software `exp2`): with `p = ceil(e / 2)` pairs, `2p` FMNMX, then
///     [`PACKED_OPS_PER_EXP2_PAIR`]` x p` packed `f32x2` FMA-pipe instructions (`12p`
///     scalar ones on a machine without `f32x2`), then `4p` SHL/LEA on the ALU pipe: no MUFU;
///   - `Vote`: `e` FSETP and one VOTE.ANY on the ALU pipe;
///   - `RowMax` / `RowSum`: with `r = ceil(rows * 4 / T)` rows per thread, `e - r` in-thread
///     ops (FMNMX on the ALU pipe / FADD on the FMA pipe), then `log2(4) = 2` rounds of `r`
///     SHFL (LSU pipe, shared-memory latency) and `r` ops, each round waiting for the
///     previous one.
/// - [`Op::SharedLoad`] / [`Op::SharedStore`] of `bytes` over the instance: each warp moves
///   `bytes / (T / 32)` with `ld/st.shared.v4` of 16 bytes per thread, so
///   `ceil(bytes / (T / 32) / 512)` instructions on the LSU pipe, each holding the SM's
///   shared-memory port for its bytes at `smem.bandwidth_bytes_per_clk`.
/// - [`Op::GlobalStore`] of `e` values over the instance: `ceil(e / T / 2)` stores per
///   warp, one per column pair of the accumulator layout (8 bytes per thread for f32, 4 for
///   16-bit values), each touching `32 / 4 = 8` rows, so 8 cache lines (L1 wavefronts), and
///   [`STORE_GLOBAL_INSTRS_PER_PAIR`] ALU instructions per pair; written through L2.
/// - [`Op::Mma`] `m x n x k` of `dtype`: `ceil(m / M0) * ceil(k / K0)` native MMAs, where
///   `M0 x n x K0` is the machine's native shape (`m64nNk16` for `wgmma`, `m128nNk16` for
///   `tcgen05`; `K0 = 8` for `f32` operands, which run as tf32), plus `wgmma.fence` and
///   `wgmma.commit_group`: `instrs + 2` issue cycles per warp, and the descriptor arithmetic
///   of the generated code ([`descriptors`]: a count per native MMA, on the
///   ALU and FMA pipes, independent of register results): after the group's issue, or,
///   with the machine's `tensor.issue.wgmma.descriptors_before_each`, before each native
///   MMA, which then reach the tensor cores one at a time as that arithmetic issues, as
///   in the SASS of the generated kernels (`calibration/sass/README.md`, "Descriptor
///   arithmetic between the MMAs of a group"); with A in registers
///   (`wgmma` RS) the `f32` fragment is first packed, `ceil(m * k / T / 2)` F2FP on the ALU
///   pipe. Each native MMA keeps the
///   tensor cores busy `M0 * n * K0 / fma_per_clk` cycles and completes `max(that, latency(n))`
///   after it starts (`N/2` cycles for `N >= 64` on Hopper).
///   Machines that issue MMAs with `tcgen05` have no `wgmma`: [`Unsupported`].
/// - [`Op::Umma`] `m x n x k`: `tcgen05.mma`, counted as [`Op::Mma`] (native shape
///   `m128nNk16`) but with one issue cycle per native MMA and no fence or commit; completion
///   is observed through [`Op::MmaCommit`] (one issue cycle, one arrival per instance once
///   every earlier MMA of the instance has completed). Needs a machine with `tcgen05`.
/// - [`Op::TmemLoad`] / [`Op::TmemStore`] of `bytes` over the instance: `tcgen05.ld/st
///   .32x32b.x32`, 128 bytes per thread, so `ceil(bytes / (T / 32) / 4096)` per warp, each
///   holding the sub-partition's tensor-memory port for its bytes at
///   `tmem.access_bytes_per_clk_per_sm / 4`. Needs a machine with tensor memory.
/// - [`Op::TmaLoad`] of a `rows x cols` tile: per 128-byte-wide column panel (the boxes the
///   generated code issues), [`TMA_ISSUE_INSTRS_PER_BOX`] dependent ALU instructions
///   ([`TMA_ISSUE_INSTRS_PER_BOX_PER_THREAD`] where the issuer's copy operands are
///   per-thread, [`CopyOperands`]) and then that box's copy: one issue cycle, one effect per
///   instance (one elected thread acts).
/// - [`Op::TmaLoadMulticast`]: as [`Op::TmaLoad`], its effect delivered to every CTA of the
///   mask (`sim/sm/cluster.rs`).
/// - [`Op::TmaStore`] of a `rows x cols` tile: as [`Op::TmaLoad`], the issue chain of each of
///   its boxes (the generated code issues a store's boxes as it issues a load's), then one
///   issue cycle, one effect per instance.
/// - [`Op::FragmentStore`]: one `st.shared` per column pair of the accumulator layout (4 bytes
///   per thread for a 16-bit tile, 8 for f32), each 16-bit pair rounded by one ALU
///   instruction first ([`FRAGMENT_STORE_EVIDENCE`]).
/// - [`Op::Arrive`], [`Op::ClusterArrive`]: one issue cycle, one effect per instance.
/// - [`Op::NamedArrive`]: one `bar.arrive` per warp, each counting the warp's 32 threads.
pub fn lower(op: &Op, issuer: Issuer, timing: &Timing, out: &mut Vec<Instr>) -> Result<(), Unsupported> {
    let threads = issuer.threads;
    let warp_size = timing.warp_size;
    let native = |m: u32, n: u32, k: u32, dtype: DType| {
        let rule = &timing.mma_rule;
        let m0 = rule.m.value.max(1).min(m.max(1));
        let k0 = (rule.k.value * 2 / dtype.bytes() as u32).max(1);
        let instrs = m.div_ceil(m0) * k.div_ceil(k0);
        (instrs, u64::from(m0) * u64::from(n) * u64::from(k0.min(k.max(1))))
    };
    match *op {
        Op::Math { kind, rows, cols } => {
            let e = per_thread(rows, cols, threads);
            match kind {
                MathKind::Fill { .. } => exec(ExecPipe::Fma, e, Dep::None, out),
                MathKind::Fma => fp32(e, Dep::Stream, timing, out),
                MathKind::Exp2 | MathKind::Recip => exec(ExecPipe::Mufu, e, Dep::Stream, out),
                MathKind::Max => exec(ExecPipe::Alu, e, Dep::Stream, out),
                MathKind::Select => exec(ExecPipe::Alu, SELECT_INSTRS_PER_ELEMENT * e, Dep::Stream, out),
                MathKind::Cast if timing.mma_kind == MmaKind::Warpgroup => {
                    exec(ExecPipe::Alu, CAST_INSTRS_PER_ELEMENT * e, Dep::Stream, out);
                    imad(CAST_INSTRS_PER_ELEMENT * e, Dep::Stream, timing, out);
                }
                // With `tcgen05` the generated code defers a cast to the fragment's next use
                // and packs pairs into tensor memory (`runtime/src/gpu/codegen/tmem.rs`): one
                // F2FP per pair, nothing widened back. Not yet counted in sm_100a SASS.
                MathKind::Cast => exec(ExecPipe::Alu, e.div_ceil(2), Dep::Stream, out),
                MathKind::Exp2Poly => {
                    // FlashAttention-4's `ex2_emulation_2`, per pair of elements: 2 FMNMX
                    // (clamp), then packed f32x2 `add.rm`, `sub`, `sub` and 3 Horner FMAs, then
                    // 2 SHL and 2 `add.s32` (LEA) into the exponent field.
                    let pairs = e.div_ceil(2);
                    exec(ExecPipe::Alu, 2 * pairs, Dep::Stream, out);
                    fp32(FMA_OPS_PER_EXP2_PAIR * pairs, Dep::Stream, timing, out);
                    exec(ExecPipe::Alu, 4 * pairs, Dep::Stream, out);
                }
                MathKind::Vote => {
                    exec(ExecPipe::Alu, e, Dep::Stream, out);
                    exec(ExecPipe::Alu, 1, Dep::Stream, out);
                }
                MathKind::RowMax | MathKind::RowSum => {
                    // FMNMX on the ALU pipe for a maximum, FADD on the FMA pipe for a sum.
                    let pipe = if kind == MathKind::RowMax { ExecPipe::Alu } else { ExecPipe::Fma };
                    let r = per_thread(rows, 1, threads);
                    exec(pipe, e.saturating_sub(r), Dep::Stream, out);
                    for _ in 0..THREADS_PER_ROW.ilog2() {
                        exec(ExecPipe::Lsu, r, Dep::Stream, out);
                        exec(pipe, r, Dep::Stream, out);
                    }
                }
            }
        }
        Op::SharedLoad { bytes } | Op::SharedStore { bytes } => {
            let (count, per) = vector_accesses(bytes, threads, warp_size, BYTES_PER_THREAD_ACCESS);
            if count > 0 {
                out.push(Instr::Shared { count, bytes: per, load: matches!(op, Op::SharedLoad { .. }) });
            }
        }
        Op::FragmentStore { bytes, elements } => {
            // One store per column pair of the accumulator layout, as the generated code does
            // (`wsg::store_frag_smem`), each rounded first when the tile's values are narrower
            // than the fragment's f32 ([`FRAGMENT_STORE_EVIDENCE`]).
            let pairs = elements.div_ceil(threads.max(1)).div_ceil(2);
            let elem_bytes = bytes / elements.max(1);
            if pairs > 0 {
                if elem_bytes < 4 {
                    exec(ExecPipe::Alu, pairs, Dep::Stream, out);
                }
                out.push(Instr::Shared { count: pairs, bytes: 2 * elem_bytes * warp_size, load: false });
            }
        }
        Op::GlobalStore { bytes, elements } => {
            // One store per column pair of the accumulator layout, as the generated code does
            // (`wsg::store_frag`): a warp-instruction covers `warp_size / THREADS_PER_ROW` rows.
            let pairs = elements.div_ceil(threads.max(1)).div_ceil(2);
            let elem_bytes = bytes / elements.max(1);
            if pairs > 0 {
                exec(ExecPipe::Alu, STORE_GLOBAL_INSTRS_PER_PAIR * pairs, Dep::None, out);
                let lines = warp_size.div_ceil(THREADS_PER_ROW);
                out.push(Instr::GlobalStore { count: pairs, bytes: 2 * elem_bytes * warp_size, lines });
            }
        }
        Op::Mma { m, n, k, dtype, a_in_registers } => {
            if timing.mma_kind != MmaKind::Warpgroup {
                return Err(Unsupported {
                    needs: "`wgmma` (Hopper warpgroup MMA), which this machine lacks: it issues MMAs with `tcgen05`",
                });
            }
            let (instrs, fma) = native(m, n, k, dtype);
            if a_in_registers {
                // A is an `f32` fragment: packed to pairs of 16-bit values (one
                // `F2FP.BF16.F32.PACK_AB` per pair) before the group issues.
                exec(ExecPipe::Alu, per_thread(m, k, threads).div_ceil(2), Dep::Stream, out);
            }
            descriptors::wgmma_group((instrs, fma, n, dtype), a_in_registers, timing, out)?;
        }
        Op::Umma { m, n, k, dtype, a_in_tmem } => {
            if timing.mma_kind != MmaKind::SingleThread {
                return Err(Unsupported {
                    needs: "`tcgen05.mma` (Blackwell single-thread MMA), which this machine lacks",
                });
            }
            let (instrs, fma) = native(m, n, k, dtype);
            out.push(Instr::Umma { instrs, fma, n, dtype, a_in_tmem });
        }
        Op::MmaCommit { slot } => {
            if timing.mma_kind != MmaKind::SingleThread {
                return Err(Unsupported { needs: "`tcgen05.commit` (Blackwell), which this machine lacks" });
            }
            out.push(Instr::MmaCommit { barrier: slot });
        }
        Op::TmemLoad { bytes } | Op::TmemStore { bytes } => {
            if timing.tmem.is_none() {
                return Err(Unsupported { needs: "tensor memory (`tcgen05.ld/st`), which this machine lacks" });
            }
            let (count, per) = vector_accesses(bytes, threads, warp_size, BYTES_PER_THREAD_TMEM_ACCESS);
            if count > 0 {
                out.push(Instr::Tmem { count, bytes: per, load: matches!(op, Op::TmemLoad { .. }) });
            }
        }
        Op::TmaLoad { slot, bytes, rows, cols, src } => {
            tma_load_boxes((bytes, rows, cols, src), issuer, timing, out, |bytes, src| Instr::TmaLoad {
                barrier: slot,
                bytes,
                src: Some(src),
            })
        }
        Op::TmaLoadMulticast { slot, bytes, rows, cols, src, mask } => {
            tma_load_boxes((bytes, rows, cols, src), issuer, timing, out, |bytes, src| Instr::TmaLoadMulticast {
                barrier: slot,
                bytes,
                src: Some(src),
                mask,
            })
        }
        Op::ClusterArrive { slot, mask } => out.push(Instr::ClusterArrive { barrier: slot, mask }),
        Op::TmaStore { bytes, rows, cols, dst } => {
            tma_issue(tma_boxes(bytes, rows, cols).0, issuer.copies, out);
            out.push(Instr::TmaStore { bytes, dst: Some(dst) })
        }
        Op::Arrive { slot, tx_bytes } => out.push(Instr::Arrive { barrier: slot, tx_bytes }),
        Op::NamedArrive { barrier } => out.push(Instr::NamedArrive { barrier }),
    }
    Ok(())
}

#[cfg(test)]
mod tests;
