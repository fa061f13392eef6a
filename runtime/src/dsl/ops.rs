//! The tile-level instruction set a role issues, and the [`Backend`] that executes it.
//!
//! Kernel code calls methods on [`crate::dsl::Ctx`] and on pipeline endpoints; those compute
//! the data (when the run has data) and hand each operation, as an [`Op`] or a [`Wait`], to
//! the backend of the run: the functional emulator ([`crate::emu`]) resolves barriers
//! immediately, the timing model ([`crate::sim`]) lowers each op to warp-instructions on the
//! SM's pipes. Ops carry shapes, never data, so the two executions see the same stream.

use std::panic::Location;
use std::task::Poll;

use super::element::DType;

/// One role instance of a CTA: a warp, or a warpgroup of four warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Who {
    /// Index of the role in the kernel's declaration order.
    pub role: u16,
    /// Index of the instance within its role.
    pub instance: u16,
}

/// One mbarrier: a barrier (or pipeline side) of the kernel and a stage index into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BarrierSlot {
    /// Index into [`crate::dsl::KernelSpec::barriers`].
    pub barrier: u16,
    /// Stage (array index) of the barrier.
    pub index: u16,
}

/// Where a TMA copy reads or writes global memory: the tensor (an identity of its storage)
/// and the linear index of the box's first element. The timing model uses it to tell L2 hits
/// from misses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GlobalTile {
    /// Identity of the tensor's storage.
    pub tensor: u64,
    /// Linear element index of the box's top-left corner.
    pub origin: u64,
}

/// Register-fragment arithmetic, by the instructions it lowers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathKind {
    /// Set every element to a constant (one move per element).
    Fill {
        /// The constant is 0: an MMA accumulating into the fragment right after can fold
        /// the fill away.
        zero: bool,
    },
    /// One multiply or fused multiply-add per element (scale, row scaling, subtraction).
    Fma,
    /// `exp2` per element: one MUFU.EX2 per element.
    Exp2,
    /// Reciprocal per element: one MUFU.RCP per element.
    Recip,
    /// Maximum per element (FMNMX on the ALU pipe).
    Max,
    /// Row maximum: one FMNMX per element (ALU pipe), then a shuffle tree across the threads
    /// that share a row.
    RowMax,
    /// Row sum: one FADD per element (FMA pipe), then a shuffle tree across the threads that
    /// share a row.
    RowSum,
    /// Rounding to a 16-bit format in place (the fragment stays `f32`): a conversion and a
    /// widening back per element.
    Cast,
    /// Predicated select per element (compare and select on the ALU pipe).
    Select,
    /// Software `exp2` per element (FlashAttention-4's range reduction and degree-3
    /// polynomial, [`crate::dsl::exp2_poly`]): FMA- and ALU-pipe instructions, no MUFU.
    Exp2Poly,
    /// A vote over row values: one compare per element, then one `VOTE.ANY` per warp (ALU
    /// pipe).
    Vote,
}

/// An operation a role instance issues. Non-blocking: waits are [`Wait`]s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    /// `mbarrier.arrive` (with `expect_tx` of `tx_bytes` when non-zero) by one elected thread.
    Arrive {
        /// The barrier and stage arrived on.
        slot: BarrierSlot,
        /// Transaction bytes the arrive expects (0: a plain arrive).
        tx_bytes: u32,
    },
    /// A TMA tile load of `bytes` global→shared that completes `bytes` on `slot`.
    TmaLoad {
        /// The barrier and stage the copy completes its bytes on.
        slot: BarrierSlot,
        /// Bytes copied.
        bytes: u32,
        /// Rows of the tile.
        rows: u32,
        /// Columns of the tile.
        cols: u32,
        /// Where in global memory the tile starts.
        src: GlobalTile,
    },
    /// A TMA multicast tile load (`cp.async.bulk.tensor .multicast::cluster`): one read of
    /// `bytes` from global memory delivered to the same shared-memory offset of every CTA of
    /// the cluster in `mask`, completing `bytes` on mbarrier `slot` of each of those CTAs.
    TmaLoadMulticast {
        /// The barrier and stage, in each destination CTA, the copy completes its bytes on.
        slot: BarrierSlot,
        /// Bytes delivered to each destination CTA.
        bytes: u32,
        /// Rows of the tile.
        rows: u32,
        /// Columns of the tile.
        cols: u32,
        /// Where in global memory the tile starts.
        src: GlobalTile,
        /// The destination CTAs, one bit per rank in the cluster.
        mask: u16,
    },
    /// `mapa` and `mbarrier.arrive.shared::cluster` by one elected thread on stage `slot`
    /// of every CTA of the cluster in `mask` (the issuing CTA's own when its bit is set).
    ClusterArrive {
        /// The barrier and stage arrived on, in each CTA of `mask`.
        slot: BarrierSlot,
        /// The CTAs arrived on, one bit per rank in the cluster.
        mask: u16,
    },
    /// A TMA tile store of `bytes` shared→global, committed as one bulk group.
    TmaStore {
        /// Bytes copied.
        bytes: u32,
        /// Rows of the tile.
        rows: u32,
        /// Columns of the tile.
        cols: u32,
        /// Where in global memory the tile lands.
        dst: GlobalTile,
    },
    /// One warpgroup MMA `M x N x K` (issued and committed as one group).
    Mma {
        /// Rows of the accumulator.
        m: u32,
        /// Columns of the accumulator.
        n: u32,
        /// Depth of the product.
        k: u32,
        /// Element type of the operands.
        dtype: DType,
        /// `A` comes from registers (`wgmma` RS) rather than shared memory (SS).
        a_in_registers: bool,
    },
    /// One single-thread MMA into tensor memory `M x N x K` (`tcgen05.mma`), `A` from
    /// shared memory or, with `a_in_tmem`, from tensor memory.
    Umma {
        /// Rows of the accumulator.
        m: u32,
        /// Columns of the accumulator.
        n: u32,
        /// Depth of the product.
        k: u32,
        /// Element type of the operands.
        dtype: DType,
        /// `A` comes from tensor memory rather than shared memory.
        a_in_tmem: bool,
    },
    /// `tcgen05.commit`: one arrive on `slot` once every MMA this instance issued before it
    /// has completed.
    MmaCommit {
        /// The barrier and stage arrived on.
        slot: BarrierSlot,
    },
    /// Tensor memory → registers (`tcgen05.ld`), `bytes` in total over the instance.
    TmemLoad {
        /// Bytes moved.
        bytes: u32,
    },
    /// Registers → tensor memory (`tcgen05.st`), `bytes` in total over the instance.
    TmemStore {
        /// Bytes moved.
        bytes: u32,
    },
    /// Register-fragment arithmetic over `rows x cols` elements of the instance.
    Math {
        /// The instructions it lowers to.
        kind: MathKind,
        /// Rows of the fragment.
        rows: u32,
        /// Columns of the fragment.
        cols: u32,
    },
    /// Shared memory → registers, `bytes` in total over the instance.
    SharedLoad {
        /// Bytes moved.
        bytes: u32,
    },
    /// Registers → shared memory, `bytes` in total over the instance (a row vector).
    SharedStore {
        /// Bytes moved.
        bytes: u32,
    },
    /// Registers → shared memory: a fragment of `elements` values in the accumulator layout,
    /// rounded to the tile's element type, `bytes` in total over the instance.
    FragmentStore {
        /// Bytes moved.
        bytes: u32,
        /// Values stored.
        elements: u32,
    },
    /// Registers → global memory: a fragment of `elements` values, `bytes` in total over the
    /// instance.
    GlobalStore {
        /// Bytes moved.
        bytes: u32,
        /// Values stored.
        elements: u32,
    },
    /// `bar.arrive` on named barrier `barrier` (index into the kernel's named barriers).
    NamedArrive {
        /// Index of the named barrier in the kernel's declaration order.
        barrier: u16,
    },
}

/// A blocking operation: the instance suspends until it is satisfied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// `mbarrier.try_wait.parity`: until the phase of parity `parity` of `slot` has completed.
    Parity {
        /// The barrier and stage waited on.
        slot: BarrierSlot,
        /// The parity of the phase waited for.
        parity: u32,
    },
    /// `wgmma.wait_group`: until at most `pending` MMA groups of this instance are in flight.
    Mma {
        /// MMA groups that may stay in flight.
        pending: u32,
    },
    /// `cp.async.bulk.wait_group.read`: until at most `pending` TMA stores still read shared
    /// memory.
    Store {
        /// TMA stores that may still read shared memory.
        pending: u32,
    },
    /// `bar.sync` on named barrier `barrier`: arrive, then wait for all its threads.
    NamedSync {
        /// Index of the named barrier in the kernel's declaration order.
        barrier: u16,
    },
    /// `barrier.cluster.arrive` then `barrier.cluster.wait` by the instance's threads: until
    /// every thread of every CTA of the cluster has arrived.
    ClusterSync,
}

/// A protocol error found while running: what happened and where in the kernel source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// What went wrong, in words a kernel author can act on.
    pub message: String,
    /// The kernel source line that issued the faulting operation.
    pub location: &'static Location<'static>,
}

/// Executes the ops of one CTA's role instances.
pub trait Backend {
    /// Whether tiles and fragments carry data in this run (false in shape-only timing runs).
    fn has_data(&self) -> bool;
    /// Executes or records a non-blocking op.
    fn issue(&self, who: Who, op: Op);
    /// Polls a wait; `first` is true on the first poll of this wait.
    fn poll_wait(&self, who: Who, wait: Wait, first: bool) -> Poll<()>;
    /// Records a protocol error; the run stops at the next suspension point.
    fn fault(&self, who: Who, fault: Fault);
    /// Observes an [`Event`]: facts beside the op stream that an executor may check (the
    /// emulator's sanitizer does). The default ignores them.
    fn observe(&self, who: Who, event: Event) {
        let _ = (who, event);
    }
}

/// A fact about a role instance's execution beside its [`Op`]s and [`Wait`]s: where in the
/// kernel source it is, which shared-memory tiles it touches, which tokens it drops. An
/// executor that checks protocols uses them; one that only times ignores them.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The kernel source line of the ops and waits the instance issues next.
    At(&'static Location<'static>),
    /// A shared-memory or tensor-memory tile access (sent only when the run carries data).
    Access(TileAccess),
    /// A pipeline token was dropped without being handed over: a producer's slot never
    /// committed, or a consumer's full slot never released.
    TokenDropped {
        /// The mbarrier its hand-over would have arrived on.
        barrier: BarrierSlot,
        /// Where the token was taken (`acquire` or `wait`).
        taken_at: &'static Location<'static>,
    },
}

/// One op's access to a rectangle of a shared-memory or tensor-memory tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileAccess {
    /// Identity of the tile's storage: distinct for distinct tiles of a CTA.
    pub tile: usize,
    /// First row of the rectangle, in the tile's rows.
    pub row: u32,
    /// First column of the rectangle.
    pub col: u32,
    /// Rows of the rectangle.
    pub rows: u32,
    /// Columns of the rectangle.
    pub cols: u32,
    /// How the op touches it.
    pub kind: AccessKind,
}

/// How an op touches a shared-memory or tensor-memory tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// A TMA load writes it; the data has landed once the phase of `on` that the load's bytes
    /// complete has completed.
    TmaWrite {
        /// The mbarrier the load completes its bytes on.
        on: BarrierSlot,
    },
    /// A TMA store reads it until a store wait covers the store.
    TmaRead,
    /// A warpgroup MMA reads it until an MMA wait covers its group.
    MmaRead,
    /// `ld.shared` reads it.
    SharedRead,
    /// `st.shared` writes it.
    SharedWrite,
    /// A `tcgen05.mma` reads it (an operand in shared or tensor memory) until the
    /// `tcgen05.commit` that follows the MMA arrives.
    UmmaRead,
    /// A `tcgen05.mma` writes it (its tensor-memory accumulator) until the `tcgen05.commit`
    /// that follows the MMA arrives.
    UmmaWrite,
    /// `tcgen05.ld` reads it (tensor memory into registers).
    TmemRead,
    /// `tcgen05.st` writes it (registers into tensor memory).
    TmemWrite,
}

impl AccessKind {
    /// Whether the access writes the tile.
    pub fn writes(self) -> bool {
        matches!(
            self,
            AccessKind::TmaWrite { .. } | AccessKind::SharedWrite | AccessKind::UmmaWrite | AccessKind::TmemWrite
        )
    }

    /// What the access is, in words: "TMA load (write)", "ld.shared (read)".
    pub fn describe(self) -> &'static str {
        match self {
            AccessKind::TmaWrite { .. } => "TMA load (write)",
            AccessKind::TmaRead => "TMA store (read)",
            AccessKind::MmaRead => "wgmma (read)",
            AccessKind::SharedRead => "ld.shared (read)",
            AccessKind::SharedWrite => "st.shared (write)",
            AccessKind::UmmaRead => "tcgen05.mma (operand read)",
            AccessKind::UmmaWrite => "tcgen05.mma (accumulator write)",
            AccessKind::TmemRead => "tcgen05.ld (read)",
            AccessKind::TmemWrite => "tcgen05.st (write)",
        }
    }
}
