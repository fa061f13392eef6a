//! The findings one role's run reports: tokens dropped, slots handed back while
//! asynchronous operations still read them, transaction bytes that do not add up, `wgmma`
//! outside a warpgroup, waits that do not wait, indices out of range.

use std::collections::HashSet;

use warpspec_ir::{Expr, Pos};

use super::dsl::Handover;
use super::run::Run;
use super::trace::Footprint;
use super::value::{Async, Owner, TokState, Token, Val, collect_tokens};
use crate::errors::Loc;

impl Run<'_, '_> {
    /// Reports tokens no variable (and not `keep`) holds any more: dropped at `at`.
    pub(super) fn check_leaks(&mut self, keep: &Val, at: Pos, why: &str) {
        if self.live.is_empty() {
            return;
        }
        let mut reachable = HashSet::new();
        collect_tokens(keep, &mut reachable);
        for frame in &self.frames {
            for scope in frame {
                for (_, v) in scope {
                    collect_tokens(v, &mut reachable);
                }
            }
        }
        let (kept, dropped): (Vec<usize>, Vec<usize>) = self.live.iter().partition(|t| reachable.contains(*t));
        self.live = kept;
        if dropped.is_empty() {
            return;
        }
        let at = self.an.loc(at);
        for t in dropped {
            let Some(tok) = self.tokens.get_mut(t) else { continue };
            if tok.state != TokState::Live {
                continue;
            }
            tok.state = TokState::Done;
            let tok = tok.clone();
            let table = &self.an.table;
            let Some(pipe) = table.pipes.get(tok.pipe) else { continue };
            let ep = self
                .an
                .model
                .roles
                .get(self.role)
                .and_then(|r| r.endpoints.get(tok.ep))
                .map_or_else(|| "the endpoint".into(), |e| e.binding.to_string());
            let taken = self.cite(tok.site);
            let message = if tok.producer {
                format!(
                    "{} drops the slot of `{}` it acquired with {taken} {why}, without committing it: `{}.full` never gets that arrival, so the consumers' `wait` for stage {} never completes; commit the slot on every path (`{ep}.commit(slot)`)",
                    self.who(),
                    pipe.name,
                    pipe.name,
                    tok.stage
                )
            } else {
                format!(
                    "{} drops the full slot of `{}` it took with {taken} {why}, without releasing it: `{}.empty` never gets that arrival, so the producer's next `acquire` of stage {} waits forever; release the slot on every path (`{ep}.release(full)`)",
                    self.who(),
                    pipe.name,
                    pipe.name,
                    tok.stage
                )
            };
            let key = format!("leak:{}:{}:{}", tok.site, at.line(), why);
            self.finding(key, at, message, &[pipe.full, pipe.empty]);
        }
    }

    /// Reports `wgmma` in a role whose instances are single warps.
    pub(super) fn check_warpgroup(&self, site: usize) {
        let Some(role) = self.an.model.roles.get(self.role) else { return };
        if role.warps_per_instance == 4 {
            return;
        }
        let n = role.instances.to_string();
        let message = format!(
            "role `{}` issues `wgmma`, a warpgroup instruction (4 warps issue it together), but it is declared `warps = {n}`: instances of one warp; declare it with `warpgroups = N` (N x 4 warps)",
            role.name
        );
        let loc = self.an.sites.borrow().loc(site);
        if let Some(loc) = loc {
            self.finding(format!("wgmma-warps:{site}"), loc, message, &[]);
        }
    }

    /// A TMA load writes a tile of slot `dst` but completes on another barrier.
    pub(super) fn wrong_barrier(&mut self, dst: usize, site: usize, loc: Loc, on: &str) {
        let Some(tok) = self.tokens.get(dst).cloned() else { return };
        let Some(pipe) = self.an.table.pipes.get(tok.pipe) else { return };
        if pipe.tma {
            let message = format!(
                "this TMA load of {} writes a tile of the slot of `{}` taken with {}, but completes its bytes on {on}: that slot's `commit` expects them on `{}.full`, where its consumers wait; pass that slot as the last argument",
                self.who(),
                pipe.name,
                self.cite(tok.site),
                pipe.name
            );
            self.finding(format!("tma-wrong:{site}"), loc, message, &[pipe.full]);
        }
        if let Some(tok) = self.tokens.get_mut(dst) {
            tok.loads.push((site, None));
            tok.loaded = None;
        }
    }

    /// Reports asynchronous operations still reading `owner` when it is handed over.
    pub(super) fn check_pending(&self, owner: Owner, how: Handover, site: usize, loc: Loc, bars: &[usize]) {
        let reads = |a: &&Async| !a.done && a.reads.contains(&owner);
        let what = match how {
            Handover::Commit => "commits",
            Handover::Release | Handover::OnMma => "releases",
        };
        let text = self.an.sites.borrow().get(site).map_or_else(String::new, |s| s.text.clone());
        if how != Handover::OnMma {
            if let Some(m) = self.mmas.iter().find(reads) {
                let wait = match self.last_mma_wait {
                    Some((w, k)) => format!(
                        "the last `mma_wait` ({}) leaves {k} group(s) in flight, and this one is among them",
                        self.cite(w)
                    ),
                    None => "no `mma_wait` has waited for it".into(),
                };
                let message = format!(
                    "{} {what} the slot (`{text}`) while the `wgmma` {} that reads it may still be running: {wait}; wait for that group first (`cx.mma_wait(group, 0).await`, or with fewer groups in flight)",
                    self.who(),
                    self.cite(m.site),
                );
                let key = format!("early:{site}:{}", m.site);
                self.finding(key.clone(), loc, message, bars);
                self.relate(&key, m.site, "the `wgmma` that reads the slot".into());
            }
            if let Some(m) = self.ummas.iter().find(reads) {
                let message = format!(
                    "{} {what} the slot (`{text}`) right after the `tcgen05.mma` {} that reads it was issued: a single-thread MMA completes asynchronously; hand the slot back when the MMA completes with `release_on_mma_completion`, or commit the MMA onto a barrier (`arrive_on_mma_completion`) and wait on it first",
                    self.who(),
                    self.cite(m.site),
                );
                let key = format!("early-umma:{site}:{}", m.site);
                self.finding(key.clone(), loc, message, bars);
                self.relate(&key, m.site, "the `tcgen05.mma` that reads the slot".into());
            }
        }
        if let Some(s) = self.stores.iter().find(reads) {
            let message = format!(
                "{} {what} the slot (`{text}`) while the TMA store {} may still be reading it; wait for the store first (`cx.store_wait(store).await`)",
                self.who(),
                self.cite(s.site),
            );
            let key = format!("early-store:{site}:{}", s.site);
            self.finding(key.clone(), loc, message, bars);
            self.relate(&key, s.site, "the TMA store that reads the slot".into());
        }
    }

    /// Reports a write of `at` (at `site`: a `store`, a TMA load) while a TMA store this
    /// instance issued may still read it.
    pub(super) fn check_store_reads(&self, site: usize, at: Footprint) {
        // Past a part of the body the checker cannot follow, a wait it did not see may have
        // retired the store.
        if self.trace.aborted.is_some() {
            return;
        }
        let reads = |s: &&Async| !s.done && s.source.is_some_and(|src| src.overlaps(&at));
        let Some(store) = self.stores.iter().find(reads) else { return };
        let tile = self.tile_name(at);
        let ago = self.iterations_ago(&store.issued_in);
        let when = match ago {
            Some((line, 1)) => format!(", issued in the previous iteration of the loop at line {line},"),
            Some((line, _)) => format!(", issued in an earlier iteration of the loop at line {line},"),
            None => String::new(),
        };
        let fix = if ago.is_some() {
            "wait for every store this instance issued before writing the tile: `cx.store_wait_all().await` (it names no group, so it reaches a store of an earlier iteration)"
        } else {
            "wait for the store before writing the tile: `cx.store_wait(store).await`, or `cx.store_wait_all().await` for every store this instance issued"
        };
        let text = self.an.sites.borrow().get(site).map_or_else(String::new, |s| s.text.clone());
        let message = format!(
            "{} writes shared tile `{tile}` (`{text}`) while its own TMA store {}{when} may still be reading it: the copy can send the new values; {fix}",
            self.who(),
            self.cite(store.site),
        );
        let key = format!("store-rewrite:{site}:{}", store.site);
        self.finding(key.clone(), self.site_loc(site), message, &[]);
        self.relate(&key, store.site, format!("the TMA store that reads `{tile}`"));
    }

    /// Reports a role that ends (at `at`) with a TMA store it issued still reading shared
    /// memory.
    pub(super) fn check_stores_at_exit(&self, at: Pos) {
        let Some(store) = self.stores.iter().find(|s| !s.done) else { return };
        let source =
            store.source.map_or_else(|| "its shared-memory tile".into(), |s| format!("`{}`", self.tile_name(s)));
        let message = format!(
            "{} ends with its TMA store {} still reading {source}: once the CTA's roles have ended, its shared memory may go to the next CTA while the copy reads it; wait for every store before the role ends: `cx.store_wait_all().await`",
            self.who(),
            self.cite(store.site),
        );
        let key = format!("store-exit:{}", store.site);
        self.finding(key.clone(), self.an.loc(at), message, &[]);
        self.relate(&key, store.site, "the TMA store still in flight".into());
    }

    /// How the tile of footprint `at` reads in messages: the field, and its element.
    fn tile_name(&self, at: Footprint) -> String {
        let field = self.an.model.fields.get(at.field).map_or_else(String::new, |f| f.name.to_string());
        match at.elem {
            Some(i) => format!("{field}[{i}]"),
            None => field,
        }
    }

    /// An arrive on a plain barrier hands back the unguarded buffers its waiters use: no
    /// asynchronous operation of this instance may still read them.
    pub(super) fn check_raw_handback(&self, bar: usize, index: usize, site: usize) {
        let model = self.an.model;
        let Some(b) = self.an.table.bars.get(bar) else { return };
        let shared: Vec<usize> = b
            .waiters
            .iter()
            .filter_map(|&r| model.roles.get(r))
            .flat_map(|r| r.endpoints.iter())
            .filter_map(|e| match e.target {
                crate::model::Target::Buffer(f) => Some(f),
                _ => None,
            })
            .collect();
        let pending = self
            .mmas
            .iter()
            .map(|a| (a, "`wgmma`"))
            .chain(self.stores.iter().map(|a| (a, "TMA store")))
            .chain(self.ummas.iter().map(|a| (a, "`tcgen05.mma`")))
            .filter(|(a, _)| !a.done)
            .find_map(|(a, what)| {
                a.reads.iter().find_map(|o| match o {
                    Owner::Buffer(f) | Owner::Element(f, _) if shared.contains(f) => Some((a.site, what, *f)),
                    _ => None,
                })
            });
        let Some((async_site, what, field)) = pending else { return };
        let Some(loc) = self.an.sites.borrow().loc(site) else { return };
        let field = model.fields.get(field).map_or_else(String::new, |f| f.name.to_string());
        let message = format!(
            "{} arrives on {} while the {what} {} still reads `{field}`, which the roles waiting on `{}` use: they may overwrite it before the read completes; wait for the operation first (`mma_wait`/`store_wait`), or arrive with `arrive_on_mma_completion`",
            self.who(),
            self.an.table.slot(bar, index),
            self.cite(async_site),
            b.name
        );
        let key = format!("handback:{site}:{async_site}");
        self.finding(key.clone(), loc, message, &[bar]);
        self.relate(&key, async_site, format!("the {what} that still reads `{field}`"));
    }

    /// Reports a commit whose slot's TMA loads do not copy the bytes its pipeline expects.
    pub(super) fn check_tx(&self, tok: &Token, pipe: usize, site: usize, loc: Loc) {
        let Some(pipe) = self.an.table.pipes.get(pipe) else { return };
        let (Some(expected), Some(loaded)) = (pipe.tx, tok.loaded) else { return };
        if expected == loaded {
            return;
        }
        let loads: Vec<String> = tok
            .loads
            .iter()
            .map(|(s, b)| match b {
                Some(b) => format!("{} {b} B", self.cite(*s)),
                None => self.cite(*s),
            })
            .collect();
        let loads = if loads.is_empty() { "none".to_string() } else { loads.join(", ") };
        let effect = if loaded < expected {
            format!("the phase of `{}.full` waits for bytes that never come, and its consumers hang", pipe.name)
        } else {
            format!("the extra bytes land on `{}.full` with no phase expecting them", pipe.name)
        };
        let message = format!(
            "{} commits a slot of `{}` expecting {expected} transaction bytes (a `tma` pipeline expects the stage's guarded tiles: {}), but its TMA loads onto the slot copy {loaded} (loads: {loads}): {effect}; load each guarded tile of the slot onto `&slot` exactly once",
            self.who(),
            pipe.name,
            pipe.tx_parts,
        );
        self.finding(format!("tx:{site}:{}", tok.site), loc, message, &[pipe.full]);
    }

    /// Reports an index out of the range of plain bar `b` (of `len` barriers).
    pub(super) fn report_range(&self, b: usize, i: i128, len: Option<i128>, site: usize) {
        let Some(bar) = self.an.table.bars.get(b) else { return };
        let Some(loc) = self.an.sites.borrow().loc(site) else { return };
        let message = format!(
            "{} uses index {i} of `{}`, which has {} barrier(s): out of range (declare `len = N` for an array of them)",
            self.who(),
            bar.name,
            len.unwrap_or(0)
        );
        self.finding(format!("range:{site}:{i}"), loc, message, &[b]);
    }

    /// Reports an `mma_wait` that leaves its own group `g` in flight.
    pub(super) fn report_mma_wait(&self, call: &Expr, site: usize, g: usize, in_flight: i128) {
        let after = self.mmas.len().saturating_sub(g + 1);
        let message = format!(
            "{}'s `{}` does not wait for its group: only {after} `wgmma` group(s) were issued after it, and `wgmma.wait_group {in_flight}` leaves the newest {in_flight} in flight; pass at most {after}",
            self.who(),
            self.an.sites.borrow().get(site).map_or("mma_wait", |s| s.text.as_str()),
        );
        self.finding(format!("mma_wait:{site}"), self.an.loc(call.pos), message, &[]);
    }
}
