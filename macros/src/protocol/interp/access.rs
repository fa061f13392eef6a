//! Reads and writes of unguarded on-chip buffers, recorded as [`EventKind::Access`] events
//! for the simulation's race check: synchronous copies (`load`, `store`, `tmem_load`,
//! `tmem_store`) access when issued; MMAs and TMA stores access until they complete
//! ([`EventKind::Complete`]): a `wgmma` group at the `mma_wait` that retires it, a TMA store at
//! `store_wait` or `store_wait_all`, a `tcgen05.mma` at the arrive that commits it
//! (`arrive_on_mma_completion`, `release_on_mma_completion`). A write is also checked against
//! the sources of the instance's own TMA stores still in flight.

use warpspec_ir::Op;

use super::run::Run;
use super::trace::{AsyncId, AsyncKind, EventKind, Footprint};
use super::value::Val;

impl Run<'_, '_> {
    /// Records that operation `op` at `site` reads (`write` false) or writes `v`, when `v`
    /// is an unguarded buffer; `pending` is the asynchronous operation doing it.
    pub(super) fn access(&mut self, site: usize, v: &Val, write: bool, pending: Option<AsyncId>) {
        let Some(at) = self.footprint(v) else { return };
        if write {
            self.check_store_reads(site, at);
        }
        self.event(EventKind::Access { at, write, pending }, site);
    }

    /// The part of an unguarded buffer a tile value covers (`None` for a slot's tile or a
    /// value that is no tile).
    pub(super) fn footprint(&self, v: &Val) -> Option<Footprint> {
        let (owner, shape) = self.tile_of(v)?;
        let (field, elem) = owner.buffer()?;
        // Narrowed only when both shapes are known and differ; an unknown shape counts as the
        // whole tile, so the race check stays as strict as it can be.
        let whole = match (shape, self.buffer_shape(field)) {
            (Some(view), Some(tile)) => view == tile,
            _ => true,
        };
        Some(Footprint { field, elem, whole, rect: self.rect_of(v) })
    }

    /// The accesses of a synchronous copy `op` with operand values `src` and `dst`.
    pub(super) fn copy_access(&mut self, op: Op, site: usize, src: &Val, dst: &Val) {
        match op {
            Op::TmemLoad => {
                self.access(site, src, false, None);
                self.tmem_load = Some(site);
            }
            Op::Load | Op::LoadRows => self.access(site, src, false, None),
            Op::TmemStore | Op::Store | Op::StoreRows => self.access(site, dst, true, None),
            _ => {}
        }
    }

    /// Asynchronous operations of `kind` numbered `from..to` complete here.
    pub(super) fn complete(&mut self, kind: AsyncKind, from: usize, to: usize, site: usize) {
        for index in from..to {
            self.event(EventKind::Complete { id: AsyncId { kind, index } }, site);
        }
    }

    /// An arrive on MMA completion at `site` commits every `tcgen05.mma` issued so far.
    pub(super) fn commit_ummas(&mut self, site: usize) {
        let (from, to) = (self.committed, self.ummas.len());
        self.complete(AsyncKind::Umma, from, to, site);
        self.committed = to;
    }
}
