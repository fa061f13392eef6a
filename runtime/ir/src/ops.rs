//! The operation catalogue: every public operation a kernel body may call on the DSL's
//! types, declared once.
//!
//! Each entry names the receiver type, the method, its operands (by the parameter names of
//! the runtime's signature, in order, without `self`), what it returns, whether it is
//! awaited, and its [`Class`]: what it means to the barrier protocol and to a backend. The
//! `#[kernel]` checker resolves a method call on a known receiver with [`Op::find`] and reads
//! operands by name with [`Op::operand`]; nothing else in the workspace lists DSL methods.

/// The DSL type an operation is called on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Receiver {
    /// `Ctx`: the role's context.
    Ctx,
    /// `Producer`: the producing end of a pipeline.
    Producer,
    /// `Consumer`: the consuming end of a pipeline.
    Consumer,
    /// `Arriver`: the arriving end of a plain barrier.
    Arriver,
    /// `Waiter`: the waiting end of a plain barrier.
    Waiter,
    /// `Named`: a role's use of a named barrier.
    Named,
    /// `Slot`: a producer's token for a stage it fills.
    Slot,
    /// `Full`: a consumer's token for a stage it reads.
    Full,
    /// `Tile`: a shared-memory tile.
    Tile,
    /// `TileRef`: a view of part of a tile.
    TileRef,
    /// `Ring`: stages of a buffer reached directly.
    Ring,
}

impl Receiver {
    /// Every receiver.
    pub const ALL: [Receiver; 11] = [
        Receiver::Ctx,
        Receiver::Producer,
        Receiver::Consumer,
        Receiver::Arriver,
        Receiver::Waiter,
        Receiver::Named,
        Receiver::Slot,
        Receiver::Full,
        Receiver::Tile,
        Receiver::TileRef,
        Receiver::Ring,
    ];

    /// The runtime type's name, as in `impl Ctx`.
    pub const fn type_name(self) -> &'static str {
        match self {
            Receiver::Ctx => "Ctx",
            Receiver::Producer => "Producer",
            Receiver::Consumer => "Consumer",
            Receiver::Arriver => "Arriver",
            Receiver::Waiter => "Waiter",
            Receiver::Named => "Named",
            Receiver::Slot => "Slot",
            Receiver::Full => "Full",
            Receiver::Tile => "Tile",
            Receiver::TileRef => "TileRef",
            Receiver::Ring => "Ring",
        }
    }
}

/// What an operation means to the barrier protocol and to a backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// A value of the launch or of the instance; no effect.
    Query,
    /// Registers filled with a constant.
    Fill,
    /// Waits for a barrier phase (and, on a pipeline, takes the stage it guards).
    BarrierWait,
    /// An arrival other roles wait for: commit, release, arrive, or a named barrier's
    /// `bar.sync` / `bar.arrive`.
    BarrierSignal,
    /// Names a barrier stage as the completion target of a TMA load.
    TxTarget,
    /// An asynchronous bulk copy between global and shared memory (TMA).
    AsyncCopy,
    /// Waits for this instance's own asynchronous operations (MMA groups, TMA stores).
    AsyncWait,
    /// A tensor-core MMA (`wgmma`, `tcgen05.mma`), asynchronous.
    Mma,
    /// A synchronous copy between registers and shared, tensor or global memory.
    Copy,
    /// Register arithmetic on fragments and row vectors.
    FragmentMath,
    /// A view of a tile: rows, columns, transpose, a ring stage, or its size.
    View,
}

impl Class {
    /// Whether operations of this class take part in the barrier protocol: they wait,
    /// signal, or issue asynchronous work that a barrier or a wait completes.
    pub const fn is_protocol(self) -> bool {
        matches!(
            self,
            Class::BarrierWait
                | Class::BarrierSignal
                | Class::TxTarget
                | Class::AsyncCopy
                | Class::AsyncWait
                | Class::Mma
        )
    }
}

/// What an operand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// A shared-memory tile or view of one.
    Tile,
    /// A tensor-memory tile.
    Tmem,
    /// A global tensor.
    Global,
    /// Coordinates into a global tensor.
    Coords,
    /// Where a TMA load completes its bytes: a pipeline slot or a barrier stage.
    TxTarget,
    /// A register fragment.
    Fragment,
    /// A register row vector.
    RowVec,
    /// A fragment or row vector.
    Registers,
    /// A `wgmma` group.
    MmaGroup,
    /// A TMA store group.
    StoreGroup,
    /// A pipeline token (`Slot` or `Full`) handed over.
    Token,
    /// A number of operations.
    Count,
    /// A barrier stage index, or a start row or column.
    Index,
    /// A number of bytes.
    Bytes,
    /// A phase parity.
    Parity,
    /// An `f32` scalar.
    Scalar,
    /// A flag.
    Flag,
    /// A closure deciding per element.
    Predicate,
    /// How a run without data decides a data-dependent condition (`Assume`).
    Assumption,
    /// CTAs of the cluster, one bit per rank (a `u16` multicast or arrival mask).
    CtaMask,
}

/// What an operation returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Returns {
    /// Nothing.
    Nothing,
    /// An integer.
    Int,
    /// A boolean.
    Bool,
    /// The launch arguments.
    Args,
    /// Three dimensions.
    Dims,
    /// A register fragment.
    Fragment,
    /// A register row vector.
    RowVec,
    /// A `wgmma` group.
    MmaGroup,
    /// A TMA store group.
    StoreGroup,
    /// A producer's token.
    Slot,
    /// A consumer's token.
    Full,
    /// A TMA completion target on a barrier stage.
    TxOn,
    /// A tile view.
    View,
    /// A ring position.
    PipeState,
    /// An element format.
    DType,
    /// The work tiles of a persistent schedule, an iterator of indices.
    Tiles,
}

/// When an operation's effect is complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Issue {
    /// When the call returns.
    Now,
    /// When the future it returns is awaited.
    Awaited,
}

/// A named operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operand {
    /// The parameter's name in the runtime's signature.
    pub name: &'static str,
    /// What it is.
    pub kind: OperandKind,
}

/// The declaration of one operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpSpec {
    /// The type it is called on.
    pub receiver: Receiver,
    /// The method's name.
    pub name: &'static str,
    /// Its operands, in order (without the receiver).
    pub operands: &'static [Operand],
    /// What it returns.
    pub returns: Returns,
    /// What it means.
    pub class: Class,
    /// When its effect is complete.
    pub issue: Issue,
}

/// Declares the operations: the enum, [`Op::ALL`] and [`Op::spec`] from one list.
macro_rules! catalogue {
    ($(
        $(#[doc = $doc:literal])*
        $op:ident = $recv:ident . $name:ident ( $($arg:ident : $kind:ident),* ) -> $ret:ident, $class:ident, $issue:ident;
    )*) => {
        /// A DSL operation.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Op {
            $( $(#[doc = $doc])* $op, )*
        }

        impl Op {
            /// Every operation, in declaration order.
            pub const ALL: &'static [Op] = &[$(Op::$op),*];

            /// The operation's declaration.
            pub const fn spec(self) -> &'static OpSpec {
                match self {
                    $(Op::$op => &OpSpec {
                        receiver: Receiver::$recv,
                        name: stringify!($name),
                        operands: &[$(Operand { name: stringify!($arg), kind: OperandKind::$kind }),*],
                        returns: Returns::$ret,
                        class: Class::$class,
                        issue: Issue::$issue,
                    },)*
                }
            }
        }
    };
}

catalogue! {
    // ---- Ctx: the launch and the instance ----
    /// `cx.args()`: the launch arguments.
    Args = Ctx.args() -> Args, Query, Now;
    /// `cx.block()`: `blockIdx`.
    Block = Ctx.block() -> Dims, Query, Now;
    /// `cx.grid()`: `gridDim`.
    Grid = Ctx.grid() -> Dims, Query, Now;
    /// `cx.instance()`: the instance's index within its role.
    Instance = Ctx.instance() -> Int, Query, Now;
    /// `cx.threads()`: threads of the instance.
    Threads = Ctx.threads() -> Int, Query, Now;
    /// `cx.cluster_rank()`: the CTA's rank in its cluster (`%cluster_ctarank`).
    ClusterRank = Ctx.cluster_rank() -> Int, Query, Now;
    /// `cx.cluster_size()`: CTAs per cluster (`%cluster_nctarank`).
    ClusterSize = Ctx.cluster_size() -> Int, Query, Now;
    /// `cx.cluster()`: the cluster's index in the grid (`%clusterid`).
    Cluster = Ctx.cluster() -> Dims, Query, Now;
    /// `cx.clusters()`: clusters in the grid (`%nclusterid`).
    Clusters = Ctx.clusters() -> Dims, Query, Now;
    /// `cx.persistent_tiles(count)`: the work tiles of a static round-robin persistent
    /// schedule this CTA's cluster walks: its cluster's linear index, then every
    /// `clusters` after it, below `count`.
    PersistentTiles = Ctx.persistent_tiles(count: Count) -> Tiles, Query, Now;
    /// `cx.has_data()`: whether the run carries data.
    HasData = Ctx.has_data() -> Bool, Query, Now;
    /// `cx.fragment(value)`: a filled fragment.
    Fragment = Ctx.fragment(value: Scalar) -> Fragment, Fill, Now;
    /// `cx.row_vec(value)`: a filled row vector.
    RowVec = Ctx.row_vec(value: Scalar) -> RowVec, Fill, Now;
    // ---- Ctx: asynchronous copies and MMAs ----
    /// `cx.tma_load(src, coords, dst, on)`: a TMA tile load completing on `on`.
    TmaLoad = Ctx.tma_load(src: Global, coords: Coords, dst: Tile, on: TxTarget) -> Nothing, AsyncCopy, Now;
    /// `cx.tma_load_multicast(src, coords, dst, on, mask)`: a TMA tile load delivered to
    /// `dst` of every CTA of the cluster in `mask`, completing its bytes on `on`'s barrier in
    /// each of them.
    TmaLoadMulticast = Ctx.tma_load_multicast(src: Global, coords: Coords, dst: Tile, on: TxTarget, mask: CtaMask) -> Nothing, AsyncCopy, Now;
    /// `cx.cluster_sync().await`: `barrier.cluster.arrive` and `barrier.cluster.wait`, over
    /// every thread of every CTA of the cluster.
    ClusterSync = Ctx.cluster_sync() -> Nothing, BarrierSignal, Awaited;
    /// `cx.tma_store(src, dst, coords)`: a TMA tile store, one store group.
    TmaStore = Ctx.tma_store(src: Tile, dst: Global, coords: Coords) -> StoreGroup, AsyncCopy, Now;
    /// `cx.store_wait(group).await`: waits until a TMA store has read shared memory.
    StoreWait = Ctx.store_wait(group: StoreGroup) -> Nothing, AsyncWait, Awaited;
    /// `cx.store_wait_all().await`: waits until every TMA store this instance issued has
    /// read shared memory (`cp.async.bulk.wait_group.read 0`), with no group to name: the
    /// wait a loop makes for the previous iteration's store.
    StoreWaitAll = Ctx.store_wait_all() -> Nothing, AsyncWait, Awaited;
    /// `cx.wgmma(acc, a, b)`: warpgroup MMA, both operands in shared memory.
    Wgmma = Ctx.wgmma(acc: Fragment, a: Tile, b: Tile) -> MmaGroup, Mma, Now;
    /// `cx.wgmma_rs(acc, a, b)`: warpgroup MMA with `a` in registers.
    WgmmaRs = Ctx.wgmma_rs(acc: Fragment, a: Fragment, b: Tile) -> MmaGroup, Mma, Now;
    /// `cx.mma_wait(group, in_flight).await`: `wgmma.wait_group`.
    MmaWait = Ctx.mma_wait(group: MmaGroup, in_flight: Count) -> Nothing, AsyncWait, Awaited;
    /// `cx.umma(acc, a, b, accumulate)`: `tcgen05.mma`, operands in shared memory.
    Umma = Ctx.umma(acc: Tmem, a: Tile, b: Tile, accumulate: Flag) -> Nothing, Mma, Now;
    /// `cx.umma_ts(acc, a, b, accumulate)`: `tcgen05.mma` with `a` in tensor memory.
    UmmaTs = Ctx.umma_ts(acc: Tmem, a: Tmem, b: Tile, accumulate: Flag) -> Nothing, Mma, Now;
    // ---- Ctx: synchronous copies ----
    /// `cx.tmem_load(src)`: `tcgen05.ld`.
    TmemLoad = Ctx.tmem_load(src: Tmem) -> Fragment, Copy, Now;
    /// `cx.tmem_store(src, dst)`: `tcgen05.st`.
    TmemStore = Ctx.tmem_store(src: Fragment, dst: Tmem) -> Nothing, Copy, Now;
    /// `cx.store_rows(src, dst)`: a row vector into an `R x 1` tile.
    StoreRows = Ctx.store_rows(src: RowVec, dst: Tile) -> Nothing, Copy, Now;
    /// `cx.load_rows(src)`: an `R x 1` tile into a row vector.
    LoadRows = Ctx.load_rows(src: Tile) -> RowVec, Copy, Now;
    /// `cx.load(src)`: `ld.shared` into a fragment.
    Load = Ctx.load(src: Tile) -> Fragment, Copy, Now;
    /// `cx.store(src, dst)`: `st.shared` from a fragment.
    Store = Ctx.store(src: Fragment, dst: Tile) -> Nothing, Copy, Now;
    /// `cx.store_global(src, dst, coords)`: `st.global` from a fragment.
    StoreGlobal = Ctx.store_global(src: Fragment, dst: Global, coords: Coords) -> Nothing, Copy, Now;
    // ---- Ctx: register arithmetic ----
    /// `cx.scale(frag, factor)`.
    Scale = Ctx.scale(frag: Fragment, factor: Scalar) -> Nothing, FragmentMath, Now;
    /// `cx.exp2(frag)`.
    Exp2 = Ctx.exp2(frag: Fragment) -> Nothing, FragmentMath, Now;
    /// `cx.cast::<T>(regs)`: rounds to `T`.
    Cast = Ctx.cast(regs: Registers) -> Nothing, FragmentMath, Now;
    /// `cx.exp2_split(frag, poly_cols)`: `exp2`, the first `poly_cols` columns in software
    /// on the FMA and ALU pipes, the rest on MUFU.
    Exp2Split = Ctx.exp2_split(frag: Fragment, poly_cols: Count) -> Nothing, FragmentMath, Now;
    /// `cx.scale_sub_rows(frag, factor, rows)`.
    ScaleSubRows = Ctx.scale_sub_rows(frag: Fragment, factor: Scalar, rows: RowVec) -> Nothing, FragmentMath, Now;
    /// `cx.mul_rows(frag, rows)`.
    MulRows = Ctx.mul_rows(frag: Fragment, rows: RowVec) -> Nothing, FragmentMath, Now;
    /// `cx.mask(frag, value, keep)`.
    Mask = Ctx.mask(frag: Fragment, value: Scalar, keep: Predicate) -> Nothing, FragmentMath, Now;
    /// `cx.row_max(frag)`.
    RowMax = Ctx.row_max(frag: Fragment) -> RowVec, FragmentMath, Now;
    /// `cx.row_sum(frag)`.
    RowSum = Ctx.row_sum(frag: Fragment) -> RowVec, FragmentMath, Now;
    /// `cx.rows_max(a, b)`.
    RowsMax = Ctx.rows_max(a: RowVec, b: RowVec) -> RowVec, FragmentMath, Now;
    /// `cx.rows_sub(a, b)`.
    RowsSub = Ctx.rows_sub(a: RowVec, b: RowVec) -> RowVec, FragmentMath, Now;
    /// `cx.rows_fma(a, b, c)`.
    RowsFma = Ctx.rows_fma(a: RowVec, b: RowVec, c: RowVec) -> RowVec, FragmentMath, Now;
    /// `cx.rows_scale(a, factor)`.
    RowsScale = Ctx.rows_scale(a: RowVec, factor: Scalar) -> RowVec, FragmentMath, Now;
    /// `cx.rows_exp2(a, factor)`.
    RowsExp2 = Ctx.rows_exp2(a: RowVec, factor: Scalar) -> RowVec, FragmentMath, Now;
    /// `cx.rows_keep_unless_grew(old, new, threshold)`: the running maximum of conditional
    /// rescaling.
    RowsKeepUnlessGrew = Ctx.rows_keep_unless_grew(old: RowVec, new: RowVec, threshold: Scalar) -> RowVec, FragmentMath, Now;
    /// `cx.rows_any_below(a, bound, assume)`: a vote on the values, decided by `assume` in a
    /// run without data; its result may steer control flow.
    RowsAnyBelow = Ctx.rows_any_below(a: RowVec, bound: Scalar, assume: Assumption) -> Bool, FragmentMath, Now;
    /// `cx.rows_recip(a)`.
    RowsRecip = Ctx.rows_recip(a: RowVec) -> RowVec, FragmentMath, Now;
    // ---- pipeline endpoints ----
    /// `producer.acquire().await`: waits for an empty stage and takes it.
    Acquire = Producer.acquire() -> Slot, BarrierWait, Awaited;
    /// `producer.commit(slot)`: arrives on the stage's full barrier.
    Commit = Producer.commit(slot_token: Token) -> Nothing, BarrierSignal, Now;
    /// `producer.state()`: the producer's ring position.
    ProducerState = Producer.state() -> PipeState, Query, Now;
    /// `consumer.wait().await`: waits for a full stage and takes it.
    ConsumerWait = Consumer.wait() -> Full, BarrierWait, Awaited;
    /// `consumer.release(full)`: arrives on the stage's empty barrier.
    Release = Consumer.release(full: Token) -> Nothing, BarrierSignal, Now;
    /// `consumer.release_cluster(full, mask)`: arrives on the stage's empty barrier of every
    /// CTA of the cluster in `mask`.
    ReleaseCluster = Consumer.release_cluster(full: Token, mask: CtaMask) -> Nothing, BarrierSignal, Now;
    /// `consumer.release_on_mma_completion(full)`: arrives once the MMAs issued so far
    /// complete (`tcgen05.commit`).
    ReleaseOnMmaCompletion = Consumer.release_on_mma_completion(full: Token) -> Nothing, BarrierSignal, Now;
    /// `consumer.state()`: the consumer's ring position.
    ConsumerState = Consumer.state() -> PipeState, Query, Now;
    // ---- plain barrier endpoints ----
    /// `arriver.arrive(index)`.
    Arrive = Arriver.arrive(index: Index) -> Nothing, BarrierSignal, Now;
    /// `arriver.arrive_expect_tx(index, bytes)`: arrives expecting transaction bytes.
    ArriveExpectTx = Arriver.arrive_expect_tx(index: Index, bytes: Bytes) -> Nothing, BarrierSignal, Now;
    /// `arriver.arrive_cluster(index, mask)`: arrives on stage `index` of every CTA of the
    /// cluster in `mask`.
    ArriveCluster = Arriver.arrive_cluster(index: Index, mask: CtaMask) -> Nothing, BarrierSignal, Now;
    /// `arriver.arrive_on_mma_completion(index)`: arrives once the MMAs issued so far
    /// complete.
    ArriveOnMmaCompletion = Arriver.arrive_on_mma_completion(index: Index) -> Nothing, BarrierSignal, Now;
    /// `arriver.tx(index)`: stage `index` as a TMA completion target.
    Tx = Arriver.tx(index: Index) -> TxOn, TxTarget, Now;
    /// `waiter.wait(index, parity).await`: `mbarrier.try_wait.parity`.
    WaitParity = Waiter.wait(index: Index, parity: Parity) -> Nothing, BarrierWait, Awaited;
    /// `named.sync().await`: `bar.sync`.
    Sync = Named.sync() -> Nothing, BarrierSignal, Awaited;
    /// `named.arrive()`: `bar.arrive`.
    NamedArrive = Named.arrive() -> Nothing, BarrierSignal, Now;
    // ---- tokens ----
    /// `slot.stage()`: the stage a producer's token holds.
    SlotStage = Slot.stage() -> Int, Query, Now;
    /// `full.stage()`: the stage a consumer's token holds.
    FullStage = Full.stage() -> Int, Query, Now;
    // ---- tile views ----
    /// `tile.view()`: the whole tile.
    TileView = Tile.view() -> View, View, Now;
    /// `tile.rows::<R>(start)`.
    TileRows = Tile.rows(start: Index) -> View, View, Now;
    /// `tile.cols::<C>(start)`.
    TileCols = Tile.cols(start: Index) -> View, View, Now;
    /// `tile.t()`: transposed, as an MMA `B` operand.
    TileT = Tile.t() -> View, View, Now;
    /// `view.rows::<R>(start)`.
    RefRows = TileRef.rows(start: Index) -> View, View, Now;
    /// `view.cols::<C>(start)`.
    RefCols = TileRef.cols(start: Index) -> View, View, Now;
    /// `view.t()`.
    RefT = TileRef.t() -> View, View, Now;
    /// `view.bytes()`.
    RefBytes = TileRef.bytes() -> Int, View, Now;
    /// `view.dtype()`.
    RefDtype = TileRef.dtype() -> DType, View, Now;
    /// `ring.stage(index)`: stage `index % N` of a ring reached directly.
    RingStage = Ring.stage(index: Index) -> View, View, Now;
}

impl Op {
    /// The operation `name` of `receiver`, if the DSL has one.
    pub fn find(receiver: Receiver, name: &str) -> Option<Op> {
        Op::ALL.iter().copied().find(|op| op.spec().receiver == receiver && op.spec().name == name)
    }

    /// Every operation called `name`, on any receiver (for scans that do not know the
    /// receiver's type).
    pub fn named(name: &str) -> impl Iterator<Item = Op> + '_ {
        Op::ALL.iter().copied().filter(move |op| op.spec().name == name)
    }

    /// The position of operand `name`, if the operation has one.
    pub fn operand(self, name: &str) -> Option<usize> {
        self.spec().operands.iter().position(|o| o.name == name)
    }

    /// The method's name.
    pub const fn name(self) -> &'static str {
        self.spec().name
    }

    /// What the operation means.
    pub const fn class(self) -> Class {
        self.spec().class
    }

    /// The type it is called on.
    pub const fn receiver(self) -> Receiver {
        self.spec().receiver
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_per_receiver() {
        for (i, a) in Op::ALL.iter().enumerate() {
            for b in &Op::ALL[i + 1..] {
                assert!(
                    a.receiver() != b.receiver() || a.name() != b.name(),
                    "{:?} and {b:?} both declare {}.{}",
                    a,
                    a.receiver().type_name(),
                    a.name()
                );
            }
        }
    }

    #[test]
    fn lookups_resolve_operands_by_name() {
        assert_eq!(Op::find(Receiver::Ctx, "tma_load"), Some(Op::TmaLoad));
        assert_eq!(Op::TmaLoad.operand("on"), Some(3));
        assert_eq!(Op::MmaWait.operand("in_flight"), Some(1));
        assert_eq!(Op::find(Receiver::Waiter, "wait"), Some(Op::WaitParity));
        assert_eq!(Op::find(Receiver::Ctx, "acquire"), None);
        assert_eq!(Op::named("arrive").count(), 2);
        assert_eq!(Op::TmaLoadMulticast.operand("mask"), Some(4));
    }

    #[test]
    fn protocol_classes() {
        let ctx_protocol: Vec<&str> = Op::ALL
            .iter()
            .filter(|op| op.receiver() == Receiver::Ctx && op.class().is_protocol())
            .map(|op| op.name())
            .collect();
        assert_eq!(
            ctx_protocol,
            [
                "tma_load",
                "tma_load_multicast",
                "cluster_sync",
                "tma_store",
                "store_wait",
                "store_wait_all",
                "wgmma",
                "wgmma_rs",
                "mma_wait",
                "umma",
                "umma_ts"
            ]
        );
        assert!(!Op::ProducerState.class().is_protocol());
        assert!(Op::Sync.class().is_protocol());
    }
}
