//! [`Ctx`]: what a role instance can do. Every method issues one tile-level op to the run's
//! backend and, when the run has data, computes its result.

use std::cell::Cell;
use std::panic::Location;

use super::element::Element;
use super::fragment::{Fragment, RowVec};
use super::global::Global;
use super::kernel::{Cta, Kernel, RoleSpec};
use super::ops::{AccessKind, Backend, Event, Fault, MathKind, Op, TileAccess, Wait, Who};
use super::sync::{TxTarget, WaitFor};
use super::tile::{ClusterTiles, MmaOperandB, StorageView, TileOperand, TmemTile};
use warpspec_hw::ClusterShape;

mod math;
mod store;

pub use math::EXP2_CHUNK_COLS;
pub use store::StoreGroup;

/// The context of one role instance (a warp or a warpgroup) of one CTA.
pub struct Ctx<'a, P> {
    params: &'a P,
    backend: &'a dyn Backend,
    who: Who,
    role: &'static RoleSpec,
    block: [u32; 3],
    grid: [u32; 3],
    cluster: ClusterShape,
    rank: u32,
    tiles: ClusterTiles<'a>,
    mma_committed: Cell<u64>,
    stores_committed: Cell<u64>,
}

/// An MMA group in flight, consumed by [`Ctx::mma_wait`]. Its operands must stay untouched
/// (their slot unreleased) until then; `#[kernel]` checks this in the role's program order.
#[must_use = "an MMA group must be waited for with `mma_wait` before its operands are released"]
pub struct MmaGroup {
    seq: u64,
}

impl<'a, P> Ctx<'a, P> {
    /// The context of instance `who` of `cta`; called by generated code.
    #[doc(hidden)]
    pub fn __new<K: Kernel<Params = P>>(cta: &'a Cta<'a, K>, who: Who) -> Self {
        Self {
            params: cta.params,
            backend: cta.backend,
            who,
            role: &K::SPEC.roles[who.role as usize],
            block: cta.block,
            grid: cta.grid,
            cluster: K::SPEC.cluster_shape(),
            rank: cta.rank,
            tiles: cta.tiles,
            mma_committed: Cell::new(0),
            stores_committed: Cell::new(0),
        }
    }

    /// The launch arguments.
    pub fn args(&self) -> &'a P {
        self.params
    }

    /// `blockIdx` (x, y, z) of this CTA.
    pub fn block(&self) -> [usize; 3] {
        self.block.map(|v| v as usize)
    }

    /// `gridDim` (x, y, z) of the launch.
    pub fn grid(&self) -> [usize; 3] {
        self.grid.map(|v| v as usize)
    }

    /// This CTA's rank in its cluster (`%cluster_ctarank`): its linear index within the
    /// cluster, x fastest. 0 in a kernel without a cluster shape.
    pub fn cluster_rank(&self) -> usize {
        self.rank as usize
    }

    /// CTAs per cluster (`%cluster_nctarank`): the product of `#[kernel(cluster = [..])]`,
    /// 1 without one.
    pub fn cluster_size(&self) -> usize {
        self.cluster.ctas() as usize
    }

    /// The index (x, y, z) of this CTA's cluster in the grid (`%clusterid`).
    pub fn cluster(&self) -> [usize; 3] {
        self.cluster.cluster_of(self.block).map(|v| v as usize)
    }

    /// Clusters in the grid along x, y and z (`%nclusterid`).
    pub fn clusters(&self) -> [usize; 3] {
        self.cluster.clusters(self.grid).map(|v| v as usize)
    }

    /// A static round-robin persistent schedule over work tiles `0..count`: the tiles this
    /// CTA's cluster takes are its cluster's linear index (x fastest) and every
    /// `clusters` after it, where `clusters` is the number of clusters in the grid. Every CTA
    /// of a cluster walks the same tiles (one per CTA without a cluster shape), so a grid
    /// sized to the machine's SMs keeps one CTA per SM walking tiles until none are left.
    pub fn persistent_tiles(&self, count: usize) -> std::iter::StepBy<std::ops::Range<usize>> {
        let [x, y, z] = self.cluster();
        let [nx, ny, nz] = self.clusters();
        let linear = x + nx * (y + ny * z);
        (linear..count).step_by((nx * ny * nz).max(1))
    }

    /// Index of this instance within its role (0 for the first warp or warpgroup).
    pub fn instance(&self) -> usize {
        self.who.instance as usize
    }

    /// Threads of this instance (32 for a warp, 128 for a warpgroup).
    pub fn threads(&self) -> usize {
        self.role.threads_per_instance() as usize
    }

    /// Whether this run carries data (false in shape-only timing runs).
    pub fn has_data(&self) -> bool {
        self.backend.has_data()
    }

    #[track_caller]
    fn fault(&self, message: String) {
        self.backend.fault(self.who, Fault { message, location: Location::caller() });
    }

    /// Tells the backend the kernel source line of the ops that follow.
    #[track_caller]
    fn at(&self) {
        self.backend.observe(self.who, Event::At(Location::caller()));
    }

    /// Tells the backend that the op about to be issued touches `rows x cols` of `view`.
    fn access(&self, view: &StorageView<'_>, rows: usize, cols: usize, kind: AccessKind) {
        if let Some((tile, row, col)) = view.origin() {
            let access = TileAccess { tile, row, col, rows: rows as u32, cols: cols as u32, kind };
            self.backend.observe(self.who, Event::Access(access));
        }
    }

    /// A fragment with every element set to `value`.
    pub fn fragment<const R: usize, const C: usize>(&self, value: f32) -> Fragment<R, C> {
        self.math(MathKind::Fill { zero: value == 0.0 }, R, C);
        Fragment::filled(self.has_data(), value)
    }

    /// A row vector with every element set to `value`.
    pub fn row_vec<const R: usize>(&self, value: f32) -> RowVec<R> {
        self.math(MathKind::Fill { zero: value == 0.0 }, R, 1);
        RowVec::filled(self.has_data(), value)
    }

    fn math(&self, kind: MathKind, rows: usize, cols: usize) {
        self.backend.issue(self.who, Op::Math { kind, rows: rows as u32, cols: cols as u32 });
    }

    // ---- TMA ----

    /// TMA tile load: copies the `R x C` box of `src` at `coords` into `dst`, completing its
    /// bytes on `on` (a pipeline slot, or a plain barrier stage). Elements outside `src` are
    /// filled with zeros, as TMA does.
    #[track_caller]
    pub fn tma_load<'t, T: Element, const R: usize, const C: usize>(
        &self,
        src: &Global<T>,
        coords: &[usize],
        dst: impl TileOperand<'t, T, R, C>,
        on: &impl TxTarget,
    ) {
        let dst = dst.tile_ref();
        self.at();
        if let Err(e) = src.check_coords(coords) {
            return self.fault(format!("tma_load of a {R}x{C} tile: {e}"));
        }
        self.access(&dst.storage(), R, C, AccessKind::TmaWrite { on: on.tx_slot() });
        // Global values are already rounded to `T`, the tile's own format: copy as they are.
        dst.with_storage_mut(|data, offset, stride| src.read_box(coords, R, C, data, offset, stride));
        let (bytes, rows, cols, src) = (dst.bytes() as u32, R as u32, C as u32, src.tile_at(coords));
        let op = Op::TmaLoad { slot: on.tx_slot(), bytes, rows, cols, src };
        self.backend.issue(self.who, op);
    }

    /// TMA multicast tile load (`cp.async.bulk.tensor .multicast::cluster`): reads the
    /// `R x C` box of `src` at `coords` once and writes it into `dst` of every CTA of the
    /// cluster whose rank is set in `mask` (the same tile, at the same shared-memory offset,
    /// in each), completing its bytes on `on`'s mbarrier in each of those CTAs. The tile's
    /// bytes therefore count in the transaction bytes of every destination CTA's barrier,
    /// and that CTA's slot must be free: in a multicast pipeline a consumer releases a stage
    /// to every CTA whose producer writes into it ([`crate::dsl::Consumer::release_cluster`]).
    /// Elements outside `src` are filled with zeros, as TMA does.
    #[track_caller]
    pub fn tma_load_multicast<'t, T: Element, const R: usize, const C: usize>(
        &self,
        src: &Global<T>,
        coords: &[usize],
        dst: impl TileOperand<'t, T, R, C>,
        on: &impl TxTarget,
        mask: u16,
    ) {
        let dst = dst.tile_ref();
        self.at();
        let ranks = match self.mask_ranks("tma_load_multicast", mask) {
            Some(ranks) => ranks,
            None => return,
        };
        if let Err(e) = src.check_coords(coords) {
            return self.fault(format!("tma_load_multicast of a {R}x{C} tile: {e}"));
        }
        let Some(views) = ranks
            .iter()
            .map(|&r| match dst.cell() {
                None => Some(dst),
                Some(_) if r == self.rank => Some(dst),
                Some(own) => self.tiles.peer(self.rank, own, r).map(|cell| dst.on(cell)),
            })
            .collect::<Option<Vec<_>>>()
        else {
            return self.fault(format!(
                "tma_load_multicast of a {R}x{C} tile: its destination is not a tile of this CTA's shared memory, so it has no counterpart in the peer CTAs"
            ));
        };
        for view in &views {
            self.access(&view.storage(), R, C, AccessKind::TmaWrite { on: on.tx_slot() });
            view.with_storage_mut(|data, offset, stride| src.read_box(coords, R, C, data, offset, stride));
        }
        let (bytes, rows, cols, src) = (dst.bytes() as u32, R as u32, C as u32, src.tile_at(coords));
        let op = Op::TmaLoadMulticast { slot: on.tx_slot(), bytes, rows, cols, src, mask };
        self.backend.issue(self.who, op);
    }

    /// The ranks `mask` names, or a fault (and `None`) when it is empty or names a rank
    /// outside the cluster.
    #[track_caller]
    pub(crate) fn mask_ranks(&self, what: &str, mask: u16) -> Option<Vec<u32>> {
        let size = self.cluster.ctas();
        match self.cluster.ranks(mask) {
            Ok(ranks) if !ranks.is_empty() => Some(ranks),
            Ok(_) => {
                self.fault(format!(
                    "{what} with an empty CTA mask reaches no CTA; set the bit of each destination rank"
                ));
                None
            }
            Err(outside) => {
                let cluster = if size == 1 {
                    "the kernel has no cluster shape (one CTA per cluster); declare `#[kernel(cluster = [..])]`"
                        .to_string()
                } else {
                    format!("the cluster has {size} CTAs (ranks 0..{size})")
                };
                self.fault(format!("{what} with CTA mask {mask:#06b} names rank {outside}, but {cluster}"));
                None
            }
        }
    }

    /// `barrier.cluster.arrive` and `barrier.cluster.wait`: waits until every thread of every
    /// CTA of the cluster has arrived. Kernels use it at start-up (no CTA may arrive on a peer's
    /// mbarrier or multicast into its shared memory before the peer has initialised its
    /// barriers) and at teardown (no CTA may exit while a peer may still arrive on its
    /// barriers or write its shared memory).
    #[track_caller]
    pub fn cluster_sync(&self) -> impl Future<Output = ()> {
        WaitFor::new(self.backend, self.who, Wait::ClusterSync, Location::caller())
    }

    // ---- warpgroup MMA ----

    /// Warpgroup MMA `acc += a · b` with both operands in shared memory (`wgmma` SS), issued
    /// and committed as one group. `M` must be a multiple of 64, `N` of 8 up to 256, `K` of 16.
    #[track_caller]
    pub fn wgmma<'t, T: Element, const M: usize, const N: usize, const K: usize>(
        &self,
        acc: &mut Fragment<M, N>,
        a: impl TileOperand<'t, T, M, K>,
        b: impl MmaOperandB<'t, T, K, N>,
    ) -> MmaGroup {
        const { assert_wgmma_shape(M, N, K) };
        let a = a.tile_ref().storage();
        let (b, b_transposed) = b.operand();
        self.at();
        self.access(&a, M, K, AccessKind::MmaRead);
        self.access_b(&b, b_transposed, K, N);
        if let (Some(acc), Some(a_data)) = (acc.data.as_mut(), a.borrow()) {
            // One read lock when both operands are the same tile: a second one could queue
            // behind a writer waiting for the first.
            let same = b.same_tile(&a);
            let b_own = if same { None } else { b.borrow() };
            let b_data = if same { Some(&*a_data) } else { b_own.as_deref() };
            if let Some(b_data) = b_data {
                let (rsb, csb) = if b_transposed { (1, b.stride) } else { (b.stride, 1) };
                let a_operand = Operand { data: &a_data[a.offset..], row_stride: a.stride, col_stride: 1 };
                let b_operand = Operand { data: &b_data[b.offset..], row_stride: rsb, col_stride: csb };
                gemm_accumulate(M, K, N, a_operand, b_operand, acc);
            }
        }
        self.issue_mma::<T>(M, N, K, false)
    }

    /// Warpgroup MMA `acc += a · b` with `a` in registers (`wgmma` RS), as for `O += P V`.
    #[track_caller]
    pub fn wgmma_rs<'t, T: Element, const M: usize, const N: usize, const K: usize>(
        &self,
        acc: &mut Fragment<M, N>,
        a: &'t Fragment<M, K>,
        b: impl MmaOperandB<'t, T, K, N>,
    ) -> MmaGroup {
        const { assert_wgmma_shape(M, N, K) };
        let (b, b_transposed) = b.operand();
        self.at();
        self.access_b(&b, b_transposed, K, N);
        if let (Some(acc), Some(a), Some(b)) = (acc.data.as_mut(), a.data.as_ref(), b.borrow()) {
            let (rsb, csb) = if b_transposed { (1, b.stride) } else { (b.stride, 1) };
            let a_operand = Operand { data: a, row_stride: K, col_stride: 1 };
            let b_operand = Operand { data: &b[b.offset..], row_stride: rsb, col_stride: csb };
            gemm_accumulate(M, K, N, a_operand, b_operand, acc);
        }
        self.issue_mma::<T>(M, N, K, true)
    }

    /// Reports the read of an MMA's `K x N` operand `b`, stored `N x K` when transposed.
    fn access_b(&self, b: &StorageView<'_>, transposed: bool, k: usize, n: usize) {
        let (rows, cols) = if transposed { (n, k) } else { (k, n) };
        self.access(b, rows, cols, AccessKind::MmaRead);
    }

    #[track_caller]
    fn issue_mma<T: Element>(&self, m: usize, n: usize, k: usize, a_in_registers: bool) -> MmaGroup {
        if self.role.warps_per_instance != 4 {
            self.fault(format!(
                "wgmma is a warpgroup instruction, but role `{}` runs instances of {} warp(s); declare it with `warpgroups = N`",
                self.role.name, self.role.warps_per_instance
            ));
        }
        let op = Op::Mma { m: m as u32, n: n as u32, k: k as u32, dtype: T::DTYPE, a_in_registers };
        self.backend.issue(self.who, op);
        let seq = self.mma_committed.get();
        self.mma_committed.set(seq + 1);
        MmaGroup { seq }
    }

    /// Waits until MMA `group` has completed, allowing `in_flight` later groups to stay in
    /// flight (`wgmma.wait_group in_flight`). Asking for more groups in flight than were
    /// committed after `group` could leave `group` running, and is reported as a fault.
    #[track_caller]
    pub fn mma_wait<'g>(&'g self, group: MmaGroup, in_flight: usize) -> impl Future<Output = ()> + 'g {
        let after = self.mma_committed.get() - group.seq - 1;
        if in_flight as u64 > after {
            self.fault(format!(
                "mma_wait(group, {in_flight}) does not wait for the group: only {after} group(s) were committed after it, so at most {after} may stay in flight"
            ));
        }
        WaitFor::new(self.backend, self.who, Wait::Mma { pending: in_flight as u32 }, Location::caller())
    }

    // ---- single-thread MMA into tensor memory (Blackwell) ----

    /// `tcgen05.mma`: `acc = a · b` (or `acc += a · b` with `accumulate`), both operands in
    /// shared memory, the accumulator in tensor memory. Asynchronous: completion is observed
    /// through [`crate::dsl::Arriver::arrive_on_mma_completion`] or
    /// [`crate::dsl::Consumer::release_on_mma_completion`]. `M` is 64 or 128, `N` a multiple
    /// of 16 up to 256, `K` a multiple of 16.
    #[track_caller]
    pub fn umma<'t, T: Element, const M: usize, const N: usize, const K: usize>(
        &self,
        acc: &TmemTile<M, N>,
        a: impl TileOperand<'t, T, M, K>,
        b: impl MmaOperandB<'t, T, K, N>,
        accumulate: bool,
    ) {
        const { assert_umma_shape(M, N, K) };
        let a = a.tile_ref().storage();
        self.umma_from(acc, a, b, accumulate, false);
    }

    /// `tcgen05.mma` with `A` in tensor memory (`ts`), as for `O += P V` with `P` aliasing
    /// `S` in tensor memory.
    #[track_caller]
    pub fn umma_ts<'t, T: Element, const M: usize, const N: usize, const K: usize>(
        &self,
        acc: &TmemTile<M, N>,
        a: &TmemTile<M, K>,
        b: impl MmaOperandB<'t, T, K, N>,
        accumulate: bool,
    ) {
        const { assert_umma_shape(M, N, K) };
        self.umma_from(acc, a.storage(), b, accumulate, true);
    }

    #[track_caller]
    fn umma_from<'t, T: Element, const M: usize, const N: usize, const K: usize>(
        &self,
        acc: &TmemTile<M, N>,
        a: StorageView<'_>,
        b: impl MmaOperandB<'t, T, K, N>,
        accumulate: bool,
        a_in_tmem: bool,
    ) {
        let (b, b_transposed) = b.operand();
        self.at();
        self.access(&a, M, K, AccessKind::UmmaRead);
        let (b_rows, b_cols) = if b_transposed { (N, K) } else { (K, N) };
        self.access(&b, b_rows, b_cols, AccessKind::UmmaRead);
        self.access(&acc.storage(), M, N, AccessKind::UmmaWrite);
        if let (Some(mut acc), Some(a), Some(b)) = (acc.values_mut(), a.borrow(), b.borrow()) {
            if !accumulate {
                acc.fill(0.0);
            }
            let (rsb, csb) = if b_transposed { (1, b.stride) } else { (b.stride, 1) };
            let a_operand = Operand { data: &a[a.offset..], row_stride: a.stride, col_stride: 1 };
            let b_operand = Operand { data: &b[b.offset..], row_stride: rsb, col_stride: csb };
            gemm_accumulate(M, K, N, a_operand, b_operand, &mut acc);
        }
        let op = Op::Umma { m: M as u32, n: N as u32, k: K as u32, dtype: T::DTYPE, a_in_tmem };
        self.backend.issue(self.who, op);
    }

    /// Loads a tensor-memory accumulator into registers (`tcgen05.ld`).
    #[track_caller]
    pub fn tmem_load<const R: usize, const C: usize>(&self, src: &TmemTile<R, C>) -> Fragment<R, C> {
        self.at();
        self.access(&src.storage(), R, C, AccessKind::TmemRead);
        let mut frag = Fragment::filled(false, 0.0);
        if let Some(values) = src.values_mut() {
            frag.data = Some(values.clone());
        }
        self.backend.issue(self.who, Op::TmemLoad { bytes: (R * C * 4) as u32 });
        frag
    }

    /// Stores registers into a tensor-memory accumulator (`tcgen05.st`).
    #[track_caller]
    pub fn tmem_store<const R: usize, const C: usize>(&self, src: &Fragment<R, C>, dst: &TmemTile<R, C>) {
        self.at();
        self.access(&dst.storage(), R, C, AccessKind::TmemWrite);
        if let (Some(values), Some(mut dst)) = (src.data.as_ref(), dst.values_mut()) {
            dst.copy_from_slice(values);
        }
        self.backend.issue(self.who, Op::TmemStore { bytes: (R * C * 4) as u32 });
    }

    // ---- moves between registers and memory ----

    /// Stores a row vector into an `R x 1` shared-memory tile (for statistics another role
    /// reads).
    #[track_caller]
    pub fn store_rows<'t, const R: usize>(&self, src: &RowVec<R>, dst: impl TileOperand<'t, f32, R, 1>) {
        let dst = dst.tile_ref();
        self.at();
        self.access(&dst.storage(), R, 1, AccessKind::SharedWrite);
        if let Some(values) = src.data.as_ref() {
            dst.write_from(values);
        }
        self.backend.issue(self.who, Op::SharedStore { bytes: (R * 4) as u32 });
    }

    /// Loads an `R x 1` shared-memory tile into a row vector.
    #[track_caller]
    pub fn load_rows<'t, const R: usize>(&self, src: impl TileOperand<'t, f32, R, 1>) -> RowVec<R> {
        let src = src.tile_ref();
        self.at();
        self.access(&src.storage(), R, 1, AccessKind::SharedRead);
        let mut rows = RowVec::filled(src.has_data(), 0.0);
        if let Some(values) = rows.data.as_mut() {
            src.read_into(values);
        }
        self.backend.issue(self.who, Op::SharedLoad { bytes: (R * 4) as u32 });
        rows
    }

    /// Loads a shared-memory tile into a fragment (`ld.shared`).
    #[track_caller]
    pub fn load<'t, T: Element, const R: usize, const C: usize>(
        &self,
        src: impl TileOperand<'t, T, R, C>,
    ) -> Fragment<R, C> {
        let src = src.tile_ref();
        self.at();
        self.access(&src.storage(), R, C, AccessKind::SharedRead);
        let mut frag = Fragment::filled(src.has_data(), 0.0);
        if let Some(data) = frag.data.as_mut() {
            src.read_into(data);
        }
        self.backend.issue(self.who, Op::SharedLoad { bytes: src.bytes() as u32 });
        frag
    }

    /// Stores a fragment into a shared-memory tile, rounding to its element type
    /// (`st.shared`).
    #[track_caller]
    pub fn store<'t, T: Element, const R: usize, const C: usize>(
        &self,
        src: &Fragment<R, C>,
        dst: impl TileOperand<'t, T, R, C>,
    ) {
        let dst = dst.tile_ref();
        self.at();
        self.access(&dst.storage(), R, C, AccessKind::SharedWrite);
        if let Some(data) = src.data.as_ref() {
            dst.write_from(data);
        }
        self.backend.issue(self.who, Op::FragmentStore { bytes: dst.bytes() as u32, elements: (R * C) as u32 });
    }

    /// Stores a fragment straight to global memory at `coords` (`st.global`), rounding to
    /// `T` and clipping at the tensor's edges.
    #[track_caller]
    pub fn store_global<T: Element, const R: usize, const C: usize>(
        &self,
        src: &Fragment<R, C>,
        dst: &Global<T>,
        coords: &[usize],
    ) {
        self.at();
        if let Err(e) = dst.check_coords(coords) {
            return self.fault(format!("store_global of a {R}x{C} fragment: {e}"));
        }
        if let Some(data) = src.data.as_ref()
            && let Err(e) = dst.write_box(coords, R, C, data)
        {
            return self.fault(format!("store_global: {e}"));
        }
        self.backend.issue(self.who, Op::GlobalStore { bytes: (R * C * T::BYTES) as u32, elements: (R * C) as u32 });
    }
}

/// Checks a warpgroup MMA shape at compile time.
const fn assert_wgmma_shape(m: usize, n: usize, k: usize) {
    assert!(m.is_multiple_of(64) && m > 0, "wgmma: M must be a positive multiple of 64");
    assert!(n.is_multiple_of(8) && n >= 8 && n <= 256, "wgmma: N must be a multiple of 8 in 8..=256");
    assert!(k.is_multiple_of(16) && k > 0, "wgmma: K must be a positive multiple of 16");
}

/// Checks a single-thread (`tcgen05`, one CTA) MMA shape at compile time.
const fn assert_umma_shape(m: usize, n: usize, k: usize) {
    assert!(m == 64 || m == 128, "tcgen05.mma: M must be 64 or 128");
    assert!(n.is_multiple_of(16) && n >= 16 && n <= 256, "tcgen05.mma: N must be a multiple of 16 in 16..=256");
    assert!(k.is_multiple_of(16) && k > 0, "tcgen05.mma: K must be a positive multiple of 16");
}

/// A strided read-only matrix operand.
struct Operand<'d> {
    data: &'d [f32],
    row_stride: usize,
    col_stride: usize,
}

/// `c (m x n, row-major) += a (m x k) · b (k x n)` in `f32`, through `matrixmultiply`.
fn gemm_accumulate(m: usize, k: usize, n: usize, a: Operand<'_>, b: Operand<'_>, c: &mut [f32]) {
    let last = |op: &Operand<'_>, rows: usize, cols: usize| (rows - 1) * op.row_stride + (cols - 1) * op.col_stride;
    assert!(last(&a, m, k) < a.data.len() && last(&b, k, n) < b.data.len() && c.len() >= m * n);
    // SAFETY: the asserts above keep every element the strides address inside the slices,
    // and `c` is borrowed mutably while `a` and `b` are shared borrows of other storage.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            1.0,
            a.data.as_ptr(),
            a.row_stride as isize,
            a.col_stride as isize,
            b.data.as_ptr(),
            b.row_stride as isize,
            b.col_stride as isize,
            1.0,
            c.as_mut_ptr(),
            n as isize,
            1,
        );
    }
}

impl<'a, K: Kernel> Cta<'a, K> {
    /// The context of instance `who`; called by generated code.
    #[doc(hidden)]
    pub fn __ctx(&'a self, who: Who) -> Ctx<'a, K::Params> {
        Ctx::__new(self, who)
    }
}
