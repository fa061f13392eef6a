//! The events role instances report besides their ops: the source line they are at, their
//! accesses to shared-memory and tensor-memory tiles (checked by the race detector), and
//! pipeline tokens dropped without hand-over.

use crate::dsl::{AccessKind, Event, TileAccess, Who};

use super::super::error::{Race, RaceAccess, ViolationKind};
use super::super::race::{Access, Found, Record};
use super::CtaState;

impl CtaState {
    /// Records an event of `who`, of the CTA of rank `rank`.
    pub fn observe(&mut self, rank: u32, who: Who, event: Event) {
        if self.stopped {
            return;
        }
        let flat = self.flat(rank, who);
        match event {
            Event::At(at) => self.insts[flat].at = Some(at),
            Event::Access(access) => self.access(flat, access),
            Event::TokenDropped { barrier, taken_at } => {
                let pipeline =
                    self.spec.pipelines.iter().find(|p| p.full == barrier.barrier || p.empty == barrier.barrier);
                let (pipeline, handover) = match pipeline {
                    Some(p) if p.full == barrier.barrier => (p.name, "commit"),
                    Some(p) => (p.name, "release"),
                    None => ("(unknown)", "hand-over"),
                };
                let kind =
                    ViolationKind::TokenDropped { pipeline, stage: u32::from(barrier.index), handover, taken_at };
                self.violate(Some(flat), kind);
            }
        }
    }

    fn access(&mut self, flat: usize, access: TileAccess) {
        if self.races.is_none() {
            return;
        }
        let lands_on = match access.kind {
            // A load completes on the barrier of the CTA whose tile it writes (a multicast
            // writes peers' tiles); one on an uninitialised barrier is reported by its op.
            AccessKind::TmaWrite { on } => match self.try_mbar(self.tiles.rank_of(access.tile), on) {
                Some(m) => Some((m, self.bars[m].hw.completed_phases())),
                None => return,
            },
            _ => None,
        };
        let inst = &self.insts[flat];
        let access = Access {
            who: flat,
            access,
            at: inst.at,
            lands_on,
            mma_issued: inst.mma_issued,
            stores_issued: inst.stores_issued,
            umma_commits: inst.umma_commits,
        };
        let found = self.races.as_mut().and_then(|races| races.access(access));
        if let Some(found) = found {
            let race = self.race(&found);
            self.violate(Some(flat), ViolationKind::Race(Box::new(race)));
        }
    }

    fn race(&self, found: &Found) -> Race {
        let mut tile = self.tiles.describe(found.key).unwrap_or_else(|| format!("shared tile #{}", found.tile));
        if let Some(m) = found.filled_by {
            tile += &format!(" (filled by TMA on {})", self.barrier_ref(m));
        }
        let access = |r: &Record| RaceAccess {
            by: self.instance(r.who),
            kind: r.kind,
            rows: r.rect.row..r.rect.row + r.rect.rows,
            cols: r.rect.col..r.rect.col + r.rect.cols,
            at: r.at,
            lands_on: r.lands_on.map(|(m, phase)| (self.barrier_ref(m), phase)),
        };
        let array = found.filled_by.map(|m| self.bars[m].array as u16);
        let pipeline = array.is_some_and(|a| self.spec.pipelines.iter().any(|p| p.full == a || p.empty == a));
        Race { tile, pipeline, earlier: access(&found.earlier), later: access(&found.later) }
    }
}
