//! Shared-memory tiles and rings, and the views kernel code passes to tile operations.
//!
//! A [`Tile`] is a `R x C` row-major buffer of `T` in shared memory; a [`Ring`] holds `N`
//! tiles used round-robin by a pipeline. Role code never reaches a ring directly: it gets a
//! tile only through the token of the pipeline that guards it (see [`crate::dsl::sync`]).
//! In timing runs tiles carry no data (shape only).

use std::marker::PhantomData;
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError};
use std::time::{Duration, Instant};

use super::element::{DType, Element};

/// The storage of a tile: its `f32` values behind a reader-writer lock, so that the warps of
/// a CTA may run on distinct threads (the emulator's parallel-warps mode). Each op borrows a
/// tile only for the op's own copy or multiply; on one thread the locks never contend, and
/// an uncontended lock costs one atomic operation, nothing next to the op's arithmetic.
pub struct TileCell {
    values: RwLock<Box<[f32]>>,
    /// Its number among the storages created on its thread (see [`TileCell::key`]).
    ordinal: usize,
}

thread_local! {
    /// Tile storages created on this thread so far: the ordinal of the next one.
    static CELLS_MADE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The ordinal the next tile storage created on this thread gets. A buffer allocated right
/// after this call numbers its storages from it, consecutively in declaration order
/// ([`SmemBuffer::CELLS`] of them), which is how the race detector finds a tile's
/// `#[shared]` field.
pub(crate) fn next_cell_ordinal() -> usize {
    CELLS_MADE.with(std::cell::Cell::get)
}

/// How long a borrow waits for a tile held by another op before it gives up. Ops hold tiles
/// for microseconds; a tile held this long is held by the waiting op itself (an op that
/// reads and writes one tile), which on one thread would otherwise wait forever.
const BORROW_PATIENCE: Duration = Duration::from_secs(2);

impl TileCell {
    fn zeros(len: usize) -> Self {
        let ordinal = CELLS_MADE.with(|made| made.replace(made.get() + 1));
        Self { values: RwLock::new(vec![0.0; len].into_boxed_slice()), ordinal }
    }

    /// Shared access to the values.
    ///
    /// # Panics
    /// If the tile stays borrowed for writing (see [`BORROW_PATIENCE`]).
    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Box<[f32]>> {
        let mut since = None;
        loop {
            match self.values.try_read() {
                Ok(guard) => return guard,
                Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(TryLockError::WouldBlock) => Self::patience(&mut since),
            }
        }
    }

    /// Exclusive access to the values.
    ///
    /// # Panics
    /// If the tile stays borrowed (see [`BORROW_PATIENCE`]).
    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, Box<[f32]>> {
        let mut since = None;
        loop {
            match self.values.try_write() {
                Ok(guard) => return guard,
                Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(TryLockError::WouldBlock) => Self::patience(&mut since),
            }
        }
    }

    /// Waits a little for a contended tile (the clock is read only then: it is not free).
    fn patience(since: &mut Option<Instant>) {
        let start = *since.get_or_insert_with(Instant::now);
        assert!(
            start.elapsed() < BORROW_PATIENCE,
            "a shared-memory tile stayed borrowed for {BORROW_PATIENCE:?}: one op reads and writes the same tile"
        );
        std::thread::yield_now();
    }

    fn get_mut(&mut self) -> &mut [f32] {
        self.values.get_mut().unwrap_or_else(PoisonError::into_inner)
    }

    /// Identity of the tile, for access tracking: its ordinal among the storages created on
    /// its thread. The storages of one CTA's buffers are created together on one thread, so
    /// the ordinals of a CTA's tiles are distinct, and consecutive per buffer.
    pub(crate) fn key(&self) -> usize {
        self.ordinal
    }
}

/// A `R x C` tile of `T` in shared memory.
pub struct Tile<T: Element, const R: usize, const C: usize> {
    data: Option<TileCell>,
    _element: PhantomData<T>,
}

/// `N` tiles (or other buffers) used round-robin by an `N`-stage pipeline.
pub struct Ring<B, const N: usize> {
    stages: Box<[B]>,
}

/// Something that lives in a CTA's on-chip memory: shared memory, or tensor memory. It is
/// `Sync` so that a CTA's warps may share it from distinct threads.
pub trait SmemBuffer: Sized + Sync {
    /// Bytes of shared memory it occupies on the device.
    const BYTES: usize;
    /// Tensor-memory columns (of 128 lanes x 32 bits) it occupies.
    const TMEM_COLUMNS: usize = 0;
    /// Stages it has (1 for a single tile, `N` for a ring).
    const STAGES: usize = 1;
    /// Bytes of one stage.
    const STAGE_BYTES: usize = Self::BYTES;
    /// Tile storages it holds (a tile or tensor-memory tile is one; a ring or array of them
    /// holds one per element), created in declaration order by [`SmemBuffer::allocate`].
    const CELLS: usize = 0;
    /// For a `#[shared]` struct: its fields in declaration order, with what the race
    /// detector needs to name a tile (`#[kernel]` generates it; empty elsewhere).
    const FIELDS: &'static [SmemField] = &[];
    /// Allocates it, with data (`true`) or as shape only (`false`).
    fn allocate(data: bool) -> Self;
    /// Zeroes its data, so that storage can be reused for the next CTA.
    fn reset(&mut self);
    /// Appends its tile storages, in declaration order ([`SmemBuffer::CELLS`] of them when
    /// it has data, none in a shape-only run): where a multicast copy finds the same tile in
    /// a peer CTA. Called by generated code.
    #[doc(hidden)]
    fn __cells<'s>(&'s self, out: &mut Vec<&'s TileCell>) {
        let _ = out;
    }
}

/// The tile storages of every CTA of a cluster, by rank: a multicast TMA copy writes the
/// same tile (the same shared-memory offset) of each CTA it names. Empty in shape-only runs.
#[derive(Clone, Copy, Default)]
pub struct ClusterTiles<'a> {
    by_rank: &'a [Vec<&'a TileCell>],
}

impl<'a> ClusterTiles<'a> {
    /// The storages of each rank, as [`SmemBuffer::__cells`] lists them.
    pub(crate) fn new(by_rank: &'a [Vec<&'a TileCell>]) -> Self {
        Self { by_rank }
    }

    /// The tile of rank `rank` at the place `tile` has in rank `own`'s shared memory.
    pub(crate) fn peer(&self, own: u32, tile: &TileCell, rank: u32) -> Option<&'a TileCell> {
        let mine = self.by_rank.get(own as usize)?;
        let at = mine.iter().position(|c| std::ptr::eq(*c, tile))?;
        self.by_rank.get(rank as usize)?.get(at).copied()
    }
}

/// A field of a `#[shared]` struct as the race detector sees it: its name, and the tile
/// storages it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemField {
    /// The field's name.
    pub name: &'static str,
    /// Tile storages it holds ([`SmemBuffer::CELLS`]).
    pub cells: usize,
    /// Its stages ([`SmemBuffer::STAGES`]): a ring's storages are numbered stage by stage.
    pub stages: usize,
    /// Whether it lives in tensor memory.
    pub tmem: bool,
}

impl SmemField {
    /// The field `name` of type `B`.
    pub const fn of<B: SmemBuffer>(name: &'static str) -> Self {
        Self { name, cells: B::CELLS, stages: B::STAGES, tmem: B::TMEM_COLUMNS > 0 }
    }

    /// The tile at `offset` (below [`SmemField::cells`]) among the field's storages, in
    /// words: "`a`", "`a` (stage 2)", "`q[1]`", "`kv[1]` (stage 3)".
    pub fn describe(&self, offset: usize) -> String {
        let per_stage = (self.cells / self.stages.max(1)).max(1);
        let (stage, element) = (offset / per_stage, offset % per_stage);
        let mut name = match per_stage {
            1 => format!("`{}`", self.name),
            _ => format!("`{}[{element}]`", self.name),
        };
        if self.stages > 1 {
            name += &format!(" (stage {stage})");
        }
        name
    }
}

impl<T: Element, const R: usize, const C: usize> SmemBuffer for Tile<T, R, C> {
    const BYTES: usize = R * C * T::BYTES;
    const CELLS: usize = 1;
    fn allocate(data: bool) -> Self {
        Self { data: data.then(|| TileCell::zeros(R * C)), _element: PhantomData }
    }
    fn reset(&mut self) {
        if let Some(data) = self.data.as_mut() {
            data.get_mut().fill(0.0);
        }
    }
    fn __cells<'s>(&'s self, out: &mut Vec<&'s TileCell>) {
        out.extend(self.data.as_ref());
    }
}

impl<B: SmemBuffer, const N: usize> SmemBuffer for Ring<B, N> {
    const BYTES: usize = N * B::BYTES;
    const STAGES: usize = N;
    const STAGE_BYTES: usize = B::BYTES;
    const CELLS: usize = N * B::CELLS;
    fn allocate(data: bool) -> Self {
        Self { stages: (0..N).map(|_| B::allocate(data)).collect() }
    }
    fn reset(&mut self) {
        self.stages.iter_mut().for_each(B::reset);
    }
    fn __cells<'s>(&'s self, out: &mut Vec<&'s TileCell>) {
        self.stages.iter().for_each(|b| b.__cells(out));
    }
}

impl<B, const N: usize> Ring<B, N> {
    /// Stage `index % N`, for rings a role reaches directly (not guarded by a pipeline).
    pub fn stage(&self, index: usize) -> &B {
        &self.stages[index % N]
    }

    /// Stage `index`; called by generated pipeline views only.
    #[doc(hidden)]
    pub fn __stage(&self, index: usize) -> &B {
        &self.stages[index % N]
    }
}

/// `N` buffers side by side (one per Q tile, say), each reached as `array[i]`.
impl<B: SmemBuffer, const N: usize> SmemBuffer for [B; N] {
    const BYTES: usize = N * B::BYTES;
    const TMEM_COLUMNS: usize = N * B::TMEM_COLUMNS;
    const CELLS: usize = N * B::CELLS;
    fn allocate(data: bool) -> Self {
        std::array::from_fn(|_| B::allocate(data))
    }
    fn reset(&mut self) {
        self.iter_mut().for_each(B::reset);
    }
    fn __cells<'s>(&'s self, out: &mut Vec<&'s TileCell>) {
        self.iter().for_each(|b| b.__cells(out));
    }
}

/// An `R x C` accumulator of `f32` in tensor memory (Blackwell): `R` lanes (128) by `C`
/// 32-bit columns. Single-thread MMAs write it; warps read and write it with
/// [`crate::dsl::Ctx::tmem_load`] and [`crate::dsl::Ctx::tmem_store`].
pub struct TmemTile<const R: usize, const C: usize> {
    data: Option<TileCell>,
}

impl<const R: usize, const C: usize> SmemBuffer for TmemTile<R, C> {
    const BYTES: usize = 0;
    const TMEM_COLUMNS: usize = C;
    const CELLS: usize = 1;
    fn allocate(data: bool) -> Self {
        Self { data: data.then(|| TileCell::zeros(R * C)) }
    }
    fn reset(&mut self) {
        if let Some(data) = self.data.as_mut() {
            data.get_mut().fill(0.0);
        }
    }
    fn __cells<'s>(&'s self, out: &mut Vec<&'s TileCell>) {
        out.extend(self.data.as_ref());
    }
}

impl<const R: usize, const C: usize> TmemTile<R, C> {
    /// Lanes (rows).
    pub const ROWS: usize = R;
    /// Columns.
    pub const COLS: usize = C;

    /// The storage as an operand view (row stride `C`).
    pub(crate) fn storage(&self) -> StorageView<'_> {
        StorageView { data: self.data.as_ref(), offset: 0, stride: C }
    }

    /// Mutable access to the values, or `None` without data.
    pub(crate) fn values_mut(&self) -> Option<RwLockWriteGuard<'_, Box<[f32]>>> {
        self.data.as_ref().map(TileCell::write)
    }
}

/// A kernel without shared memory.
impl SmemBuffer for () {
    const BYTES: usize = 0;
    fn allocate(_data: bool) -> Self {}
    fn reset(&mut self) {}
}

impl<T: Element, const R: usize, const C: usize> Tile<T, R, C> {
    /// Stage `index` of a single tile (always the tile); called by generated views only.
    #[doc(hidden)]
    pub fn __stage(&self, _index: usize) -> &Self {
        self
    }

    /// Rows.
    pub const ROWS: usize = R;
    /// Columns.
    pub const COLS: usize = C;
    /// Bytes on the device.
    pub const BYTES: usize = R * C * T::BYTES;

    /// The whole tile as a view.
    pub fn view(&self) -> TileRef<'_, T, R, C> {
        TileRef { data: self.data.as_ref(), offset: 0, stride: C, _element: PhantomData }
    }

    /// Rows `start .. start + R2` as a view.
    ///
    /// # Panics
    /// If the rows run past the tile.
    #[track_caller]
    pub fn rows<const R2: usize>(&self, start: usize) -> TileRef<'_, T, R2, C> {
        self.view().rows::<R2>(start)
    }

    /// Columns `start .. start + C2` as a view.
    ///
    /// # Panics
    /// If the columns run past the tile.
    #[track_caller]
    pub fn cols<const C2: usize>(&self, start: usize) -> TileRef<'_, T, R, C2> {
        self.view().cols::<C2>(start)
    }

    /// The tile transposed, as an MMA `B` operand (`A · Tᵀ`).
    pub fn t(&self) -> Transposed<'_, T, R, C> {
        Transposed(self.view())
    }
}

/// A rectangular `R x C` window onto a shared-memory tile.
pub struct TileRef<'t, T: Element, const R: usize, const C: usize> {
    data: Option<&'t TileCell>,
    offset: usize,
    stride: usize,
    _element: PhantomData<T>,
}

impl<T: Element, const R: usize, const C: usize> Clone for TileRef<'_, T, R, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element, const R: usize, const C: usize> Copy for TileRef<'_, T, R, C> {}

impl<'t, T: Element, const R: usize, const C: usize> TileRef<'t, T, R, C> {
    /// Rows `start .. start + R2` of this view.
    ///
    /// # Panics
    /// If the rows run past the view.
    #[track_caller]
    pub fn rows<const R2: usize>(self, start: usize) -> TileRef<'t, T, R2, C> {
        assert!(start + R2 <= R, "rows {start}..{} of a {R}x{C} tile", start + R2);
        TileRef {
            data: self.data,
            offset: self.offset + start * self.stride,
            stride: self.stride,
            _element: PhantomData,
        }
    }

    /// Columns `start .. start + C2` of this view.
    ///
    /// # Panics
    /// If the columns run past the view.
    #[track_caller]
    pub fn cols<const C2: usize>(self, start: usize) -> TileRef<'t, T, R, C2> {
        assert!(start + C2 <= C, "columns {start}..{} of a {R}x{C} tile", start + C2);
        TileRef { data: self.data, offset: self.offset + start, stride: self.stride, _element: PhantomData }
    }

    /// This view transposed, as an MMA `B` operand.
    pub fn t(self) -> Transposed<'t, T, R, C> {
        Transposed(self)
    }

    /// Bytes this view covers on the device.
    pub const fn bytes(&self) -> usize {
        R * C * T::BYTES
    }

    /// The element format.
    pub const fn dtype(&self) -> DType {
        T::DTYPE
    }

    /// Reads the view into `out` (row-major, `C` per row). No-op without data.
    pub(crate) fn read_into(&self, out: &mut [f32]) {
        if let Some(data) = self.borrow() {
            for r in 0..R {
                let src = &data[self.offset + r * self.stride..][..C];
                out[r * C..(r + 1) * C].copy_from_slice(src);
            }
        }
    }

    /// Writes `values` (row-major, `C` per row) into the view, rounding to `T`.
    pub(crate) fn write_from(&self, values: &[f32]) {
        if let Some(mut data) = self.borrow_mut() {
            for r in 0..R {
                let dst = &mut data[self.offset + r * self.stride..][..C];
                for (d, s) in dst.iter_mut().zip(&values[r * C..(r + 1) * C]) {
                    *d = T::round(*s);
                }
            }
        }
    }

    /// Runs `f` on the tile's storage with this view's offset and row stride; no-op without
    /// data. Values written must already be representable in `T`.
    pub(crate) fn with_storage_mut(&self, f: impl FnOnce(&mut [f32], usize, usize)) {
        if let Some(mut data) = self.borrow_mut() {
            f(&mut data, self.offset, self.stride);
        }
    }

    /// The same view onto `cell` (a peer CTA's copy of this tile).
    pub(crate) fn on(self, cell: &'t TileCell) -> Self {
        TileRef { data: Some(cell), ..self }
    }

    /// The tile storage, when the run has data.
    pub(crate) fn cell(&self) -> Option<&'t TileCell> {
        self.data
    }

    /// Whether the view has data.
    pub(crate) fn has_data(&self) -> bool {
        self.data.is_some()
    }

    /// Borrows the underlying tile's storage with this view's layout.
    pub(crate) fn borrow(&self) -> Option<StridedRef<'t>> {
        self.storage().borrow()
    }

    fn borrow_mut(&self) -> Option<RwLockWriteGuard<'t, Box<[f32]>>> {
        self.data.map(TileCell::write)
    }
}

/// Borrowed tile storage plus the view's offset and row stride.
pub(crate) struct StridedRef<'t> {
    data: RwLockReadGuard<'t, Box<[f32]>>,
    /// Index of the view's first element.
    pub offset: usize,
    /// Elements between consecutive rows.
    pub stride: usize,
}

impl std::ops::Deref for StridedRef<'_> {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        &self.data
    }
}

/// A tile view used transposed: `Transposed<T, N, K>` acts as a `K x N` MMA operand.
pub struct Transposed<'t, T: Element, const R: usize, const C: usize>(pub(crate) TileRef<'t, T, R, C>);

impl<T: Element, const R: usize, const C: usize> Clone for Transposed<'_, T, R, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element, const R: usize, const C: usize> Copy for Transposed<'_, T, R, C> {}

/// A shared-memory operand of shape `R x C`: a tile or a view of one.
pub trait TileOperand<'t, T: Element, const R: usize, const C: usize> {
    /// The operand as a view.
    fn tile_ref(self) -> TileRef<'t, T, R, C>;
}

impl<'t, T: Element, const R: usize, const C: usize> TileOperand<'t, T, R, C> for &'t Tile<T, R, C> {
    fn tile_ref(self) -> TileRef<'t, T, R, C> {
        self.view()
    }
}

impl<'t, T: Element, const R: usize, const C: usize> TileOperand<'t, T, R, C> for TileRef<'t, T, R, C> {
    fn tile_ref(self) -> TileRef<'t, T, R, C> {
        self
    }
}

/// The `B` operand of an MMA, logically `K x N`: a tile stored `K x N`, or a tile stored
/// `N x K` and used transposed (as `K^T` in `Q K^T`).
pub trait MmaOperandB<'t, T: Element, const K: usize, const N: usize> {
    /// The storage view and whether it is used transposed.
    fn operand(self) -> (StorageView<'t>, bool);
}

/// Type-erased view of tile storage: data, offset and row stride.
#[derive(Clone, Copy)]
pub struct StorageView<'t> {
    pub(crate) data: Option<&'t TileCell>,
    pub(crate) offset: usize,
    pub(crate) stride: usize,
}

impl<'t> StorageView<'t> {
    /// Borrows the storage, or `None` without data.
    pub(crate) fn borrow(&self) -> Option<StridedRef<'t>> {
        self.data.map(|cell| StridedRef { data: cell.read(), offset: self.offset, stride: self.stride })
    }

    /// Whether two views are of the same tile.
    pub(crate) fn same_tile(&self, other: &StorageView<'_>) -> bool {
        matches!((self.data, other.data), (Some(a), Some(b)) if std::ptr::eq(a, b))
    }

    /// The tile's identity and the view's first row and column, for access tracking; `None`
    /// without data.
    pub(crate) fn origin(&self) -> Option<(usize, u32, u32)> {
        let cell = self.data?;
        let (row, col) = match self.stride {
            0 => (0, 0),
            stride => (self.offset / stride, self.offset % stride),
        };
        Some((cell.key(), row as u32, col as u32))
    }
}

impl<'t, T: Element, const R: usize, const C: usize> TileRef<'t, T, R, C> {
    pub(crate) fn storage(self) -> StorageView<'t> {
        StorageView { data: self.data, offset: self.offset, stride: self.stride }
    }
}

impl<'t, T: Element, const K: usize, const N: usize> MmaOperandB<'t, T, K, N> for &'t Tile<T, K, N> {
    fn operand(self) -> (StorageView<'t>, bool) {
        (self.view().storage(), false)
    }
}

impl<'t, T: Element, const K: usize, const N: usize> MmaOperandB<'t, T, K, N> for TileRef<'t, T, K, N> {
    fn operand(self) -> (StorageView<'t>, bool) {
        (self.storage(), false)
    }
}

impl<'t, T: Element, const K: usize, const N: usize> MmaOperandB<'t, T, K, N> for Transposed<'t, T, N, K> {
    fn operand(self) -> (StorageView<'t>, bool) {
        (self.0.storage(), true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    #[test]
    fn views_address_the_right_elements_and_round_on_write() {
        let tile = Tile::<bf16, 4, 4>::allocate(true);
        let values: Vec<f32> = (1..5).map(|v| v as f32 * (1.0 + 1.0 / 1024.0)).collect();
        tile.rows::<2>(2).cols::<2>(1).write_from(&values);
        let mut all = vec![0.0; 16];
        tile.view().read_into(&mut all);
        assert_eq!(all[9..11], [1.0, 2.0]);
        assert_eq!(all[13..15], [3.0, 4.0]);
        assert_eq!(Tile::<bf16, 4, 4>::BYTES, 32);
        assert_eq!(<Ring<Tile<bf16, 4, 4>, 3> as SmemBuffer>::BYTES, 96);
    }

    #[test]
    #[should_panic(expected = "rows 3..5 of a 4x4 tile")]
    fn views_past_the_tile_are_refused() {
        let tile = Tile::<f32, 4, 4>::allocate(false);
        let _ = tile.rows::<2>(3);
    }
}
