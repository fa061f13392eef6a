//! The TMA store of a shared tile to global memory, and the waits until stores have read
//! their source: one group ([`Ctx::store_wait`]) or every store of the instance
//! ([`Ctx::store_wait_all`]).

use std::marker::PhantomData;
use std::panic::Location;

use super::super::element::Element;
use super::super::global::Global;
use super::super::ops::{AccessKind, Op, Wait};
use super::super::sync::WaitFor;
use super::super::tile::TileOperand;
use super::Ctx;

/// A TMA store in flight. It borrows its shared-memory source until a wait says the copy
/// has read it: [`Ctx::store_wait`] of this group, or [`Ctx::store_wait_all`].
#[must_use = "a TMA store must be waited for, with `store_wait(group)` or `store_wait_all()`, before its source is written again or the role ends"]
pub struct StoreGroup<'t> {
    seq: u64,
    _source: PhantomData<&'t ()>,
}

impl<P> Ctx<'_, P> {
    /// TMA tile store: copies `src` to the box of `dst` at `coords` (clipping at the edges).
    /// The copy reads `src` until a wait covers it ([`Ctx::store_wait`] of the group it
    /// returns, or [`Ctx::store_wait_all`]); `#[kernel]` rejects a write of `src`, and the end
    /// of the role, before that.
    #[track_caller]
    pub fn tma_store<'t, T: Element, const R: usize, const C: usize>(
        &self,
        src: impl TileOperand<'t, T, R, C>,
        dst: &Global<T>,
        coords: &[usize],
    ) -> StoreGroup<'t> {
        let src = src.tile_ref();
        let seq = self.stores_committed.get();
        self.stores_committed.set(seq + 1);
        self.at();
        match dst.check_coords(coords) {
            Err(e) => self.fault(format!("tma_store of a {R}x{C} tile: {e}")),
            Ok(()) => {
                self.access(&src.storage(), R, C, AccessKind::TmaRead);
                if src.has_data() && dst.has_data() {
                    let mut buf = vec![0.0; R * C];
                    src.read_into(&mut buf);
                    if let Err(e) = dst.write_box(coords, R, C, &buf) {
                        self.fault(format!("tma_store: {e}"));
                    }
                }
                let (bytes, rows, cols) = (src.bytes() as u32, R as u32, C as u32);
                self.backend.issue(self.who, Op::TmaStore { bytes, rows, cols, dst: dst.tile_at(coords) });
            }
        }
        StoreGroup { seq, _source: PhantomData }
    }

    /// Waits until TMA store `group` has finished reading shared memory
    /// (`cp.async.bulk.wait_group.read`, allowing the stores committed after it in flight).
    #[track_caller]
    pub fn store_wait(&self, group: StoreGroup<'_>) -> impl Future<Output = ()> {
        let pending = (self.stores_committed.get() - group.seq - 1) as u32;
        WaitFor::new(self.backend, self.who, Wait::Store { pending }, Location::caller())
    }

    /// Waits until every TMA store this instance has issued has finished reading shared
    /// memory (`cp.async.bulk.wait_group.read 0`; CUTLASS's `tma_store_wait<0>`). It names no
    /// group, so a loop can wait for the store of its previous iteration: a persistent
    /// kernel issues a tile's store, runs the next tile's main loop while the store reads
    /// shared memory, and waits just before writing the tile again (and once more before the
    /// role ends).
    #[track_caller]
    pub fn store_wait_all(&self) -> impl Future<Output = ()> {
        WaitFor::new(self.backend, self.who, Wait::Store { pending: 0 }, Location::caller())
    }
}
