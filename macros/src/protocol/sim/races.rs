//! Races on unguarded on-chip buffers: two instances access one tensor-memory tile or shared
//! tile, at least one writes, and neither access is ordered before the other by what the
//! replay's vector clocks know. An asynchronous access (an MMA, a TMA store) lasts until it
//! completes, so an access is ordered after it only through the completion (an `mma_wait`,
//! `store_wait`, `store_wait_all`, or the arrive that commits a `tcgen05.mma`) and what
//! synchronizes with it. (One instance's write under its own TMA store is the interpreter's
//! check, in program order.)
//!
//! A window narrowed with `rows`/`cols` covers the rectangle its offsets give when the text
//! decides them (`cx.instance() * 64`); two accesses overlap only where their rectangles do,
//! so warpgroups that each write their own rows do not race. When an offset is a run-time
//! value, two accesses that both go through narrowed views may touch disjoint parts: such a
//! pair is left to the emulator's race detector, which compares the exact rectangles. A pair
//! where one side covers the whole tile always overlaps and is reported here.

use std::collections::HashMap;

use quote::ToTokens;
use warpspec_hw::VectorClock;

use super::super::interp::{AsyncId, Footprint};
use super::Sim;

/// Accesses the race check keeps per replay, at most.
const MAX_ACCESSES: usize = 4096;

/// One access as the replay performed it.
pub(super) struct AccessRec {
    /// The instance.
    inst: usize,
    /// The part of the buffer it covers.
    at: Footprint,
    /// A write.
    write: bool,
    /// The operation's site.
    site: usize,
    /// The instance's clock when it issued the access.
    clock: VectorClock,
    /// The instance's own time at which the access is over (`None`: never completed).
    end: Option<u32>,
    /// Performed by an asynchronous operation.
    asynchronous: bool,
}

/// The accesses of one replay, and the asynchronous ones still running.
#[derive(Default)]
pub(super) struct Accesses {
    /// Every access, in replay order.
    list: Vec<AccessRec>,
    /// Accesses of asynchronous operations not yet complete, by instance and operation.
    running: HashMap<(usize, AsyncId), Vec<usize>>,
}

impl Sim<'_, '_> {
    /// Instance `i` accesses `at` at `site`.
    pub(super) fn access(&mut self, i: usize, site: usize, at: Footprint, write: bool, pending: Option<AsyncId>) {
        let now = self.tick(i);
        if self.accesses.list.len() >= MAX_ACCESSES {
            return;
        }
        let clock = self.insts.get(i).map(|x| x.clock.clone()).unwrap_or_default();
        let end = if pending.is_some() { None } else { Some(now) };
        let asynchronous = pending.is_some();
        self.accesses.list.push(AccessRec { inst: i, at, write, site, clock, end, asynchronous });
        if let Some(id) = pending {
            let n = self.accesses.list.len() - 1;
            self.accesses.running.entry((i, id)).or_default().push(n);
        }
    }

    /// Instance `i`'s asynchronous operation `id` completes.
    pub(super) fn complete(&mut self, i: usize, id: AsyncId) {
        let now = self.tick(i);
        for n in self.accesses.running.remove(&(i, id)).unwrap_or_default() {
            if let Some(a) = self.accesses.list.get_mut(n) {
                a.end = Some(now);
            }
        }
    }

    /// Reports the first race on each field.
    pub(super) fn report_races(&mut self) {
        let mut found: Vec<(usize, usize)> = Vec::new();
        let list = &self.accesses.list;
        for (b, later) in list.iter().enumerate() {
            for (a, earlier) in list.iter().enumerate().take(b) {
                // Each CTA of a cluster has its own on-chip buffers.
                let rank = |i: usize| self.insts.get(i).map(|x| x.trace.rank);
                let other_cta = rank(earlier.inst) != rank(later.inst);
                if !earlier.at.overlaps(&later.at)
                    || other_cta
                    || earlier.inst == later.inst
                    || !(earlier.write || later.write)
                {
                    continue;
                }
                let after = |x: &AccessRec, y: &AccessRec| y.end.is_some_and(|e| x.clock.get(y.inst) >= e);
                if after(later, earlier) || after(earlier, later) {
                    continue;
                }
                if !found.iter().any(|&(x, _)| list.get(x).is_some_and(|r| r.at.field == earlier.at.field)) {
                    found.push((a, b));
                }
            }
        }
        for (a, b) in found {
            self.report_race(a, b);
        }
    }

    /// Reports the race between accesses `a` and `b` (later in the replay), at the
    /// synchronous one when the other is asynchronous (the access to move), else at `b`.
    fn report_race(&mut self, a: usize, b: usize) {
        let (Some(mut x), Some(mut y)) = (self.accesses.list.get(a), self.accesses.list.get(b)) else { return };
        let mut y_index = b;
        if y.asynchronous && !x.asynchronous {
            std::mem::swap(&mut x, &mut y);
            y_index = a;
        }
        // Which way to order a write and an asynchronous read of it: when the two instances
        // have not synchronized at all before them, and no earlier write of the same site
        // was ordered before the read (a refill under the read of the previous fill), the
        // read is issued before the writes it should read.
        let list = &self.accesses.list;
        let rewrite = list.iter().take(y_index).any(|r| {
            r.inst == y.inst && r.site == y.site && r.write && r.end.is_some_and(|e| x.clock.get(r.inst) >= e)
        });
        let unsynchronized = y.clock.get(x.inst) == 0 && x.clock.get(y.inst) == 0;
        let model = self.an.model;
        let Some(field) = model.fields.get(x.at.field) else { return };
        let tmem = field.ty.to_token_stream().to_string().contains("TmemTile");
        let name = match x.at.elem.or(y.at.elem) {
            Some(i) => format!("{}[{i}]", field.name),
            None => field.name.to_string(),
        };
        let what = if tmem { format!("tensor-memory tile `{name}`") } else { format!("shared tile `{name}`") };
        let verb = |r: &AccessRec| match (r.write, r.asynchronous) {
            (true, true) => "writes (asynchronously, until the MMA's commit)",
            (false, true) => "reads (asynchronously, until the operation completes)",
            (true, false) => "writes",
            (false, false) => "reads",
        };
        let help = if x.asynchronous && !x.write && !tmem && y.write && !rewrite && unsynchronized {
            "issue the asynchronous read after every write it reads: a barrier that the writers arrive on after writing, and that the issuing warp waits on before the `tma_store`/`wgmma`"
        } else if x.asynchronous && !x.write && !tmem {
            "wait for the asynchronous read to complete (`mma_wait`/`store_wait`) and hand the tile over with a barrier before rewriting it"
        } else if tmem && (x.write || y.write) && (x.asynchronous || y.asynchronous) {
            "read the tile (`tmem_load`) before the arrive that hands it back to the MMA warp, and publish MMA results with `arrive_on_mma_completion`"
        } else {
            "order the two: the second should wait on a barrier the first arrives on after its access"
        };
        let message = format!(
            "{} {} {what} at {} while {} {} it at {}, and nothing orders the two{}; {help}",
            self.who(y.inst),
            verb(y),
            self.cite(y.site),
            self.who(x.inst),
            verb(x),
            self.cite(x.site),
            self.scenario(),
        );
        let Some(loc) = self.loc(y.site) else { return };
        let key = format!("{}:{}", if tmem { "tmem" } else { "smem-race" }, x.at.field);
        let (x_site, x_who) = (x.site, self.who(x.inst));
        self.an.findings.borrow_mut().global(key.clone(), loc, message, &[]);
        self.relate(&key, x_site, format!("{x_who}'s access, which nothing orders with this one"));
    }
}
