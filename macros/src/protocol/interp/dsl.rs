//! The meaning of DSL operations: a method call on the context, an endpoint, a token or a
//! tile is resolved through the operation catalogue of `warpspec-ir` ([`Op::find`]), and its
//! operands are read by the names the catalogue gives them ([`Operands`]).

use warpspec_ir::{Expr, Generic, Op, Receiver};

use super::super::table::End;
use super::run::Run;
use super::trace::{AsyncId, AsyncKind, EventKind};
use super::value::{Async, Owner, PipeState, Rect, TokState, Token, Val};
use crate::model::TileShape;

/// The operands of a resolved operation, read by their names in the catalogue.
struct Operands<'v> {
    /// The operation.
    op: Op,
    /// The values passed, and whether each was moved (a plain variable).
    vals: &'v [(Val, bool)],
}

impl Operands<'_> {
    /// Operand `name` (unknown when the call passed fewer operands).
    fn get(&self, name: &str) -> Val {
        let i = self.op.operand(name);
        debug_assert!(i.is_some(), "the catalogue gives {:?} no operand `{name}`", self.op);
        i.and_then(|i| self.vals.get(i)).map_or(Val::Unknown, |(v, _)| v.clone())
    }
}

/// How a token is handed over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Handover {
    /// `commit`.
    Commit,
    /// `release`.
    Release,
    /// `release_on_mma_completion`.
    OnMma,
}

impl<'a> Run<'_, 'a> {
    // ---- the context ----

    /// An operation of the context: queries of the launch and the instance, TMA copies and
    /// waits, MMAs; register math and synchronous copies have no protocol effect.
    pub(super) fn ctx_method(&mut self, call: &Expr, name: &str, args: &[(Val, bool)]) -> Val {
        let Some(op) = Op::find(Receiver::Ctx, name) else {
            // Not a method of `Ctx`: rustc rejects the call; its value is unknown.
            return Val::Unknown;
        };
        let operands = Operands { op, vals: args };
        match op {
            Op::Instance => Val::Int(self.instance),
            Op::Threads => {
                Val::Int(self.an.model.roles.get(self.role).map_or(32, |r| i128::from(r.warps_per_instance) * 32))
            }
            Op::Args | Op::Block | Op::Grid | Op::HasData => Val::Atom(name.into()),
            // The cluster's place in the grid and the tiles of a persistent schedule are
            // run-time values; a loop over the schedule makes the scenario's trip count.
            Op::Cluster | Op::Clusters | Op::PersistentTiles => Val::Atom(name.into()),
            Op::ClusterRank => Val::Int(i128::try_from(self.rank).unwrap_or(0)),
            Op::ClusterSize => Val::Int(i128::try_from(self.an.table.ranks).unwrap_or(1)),
            Op::TmaLoad => {
                self.tma_load(call, &operands.get("dst"), &operands.get("on"));
                Val::Unknown
            }
            Op::TmaLoadMulticast => {
                self.check_cluster_op(call, op);
                let ranks = self.mask(call, &operands.get("mask"));
                self.tma_multicast(call, &operands.get("dst"), &operands.get("on"), &ranks);
                Val::Unknown
            }
            Op::ClusterSync => {
                self.check_cluster_op(call, op);
                let site = self.site(call);
                let named = self.an.table.cluster_barrier();
                self.event_on(EventKind::Sync { named }, site);
                Val::Unknown
            }
            Op::TmaStore => {
                let site = self.site(call);
                let src = operands.get("src");
                let reads = self.tile_of(&src).map(|(o, _)| o).into_iter().collect();
                let (source, issued_in) = (self.footprint(&src), self.iterations());
                self.stores.push(Async { source, issued_in, ..Async::new(site, reads) });
                let id = AsyncId { kind: AsyncKind::Store, index: self.stores.len() - 1 };
                self.access(site, &src, false, Some(id));
                Val::Store(self.stores.len() - 1)
            }
            // `store_wait(group)` retires the group and every store before it (what
            // `cp.async.bulk.wait_group.read` with the later groups pending waits for);
            // `store_wait_all` every store the instance issued.
            Op::StoreWait | Op::StoreWaitAll => {
                let upto = match op {
                    Op::StoreWait => match operands.get("group") {
                        Val::Store(s) => s,
                        _ => usize::MAX,
                    },
                    _ => usize::MAX,
                };
                let site = self.site(call);
                let mut retired = Vec::new();
                for (i, s) in self.stores.iter_mut().enumerate() {
                    if i <= upto && !s.done {
                        s.done = true;
                        retired.push(i);
                    }
                }
                for i in retired {
                    self.complete(AsyncKind::Store, i, i + 1, site);
                }
                Val::Unknown
            }
            Op::Wgmma | Op::WgmmaRs => {
                let site = self.site(call);
                self.check_warpgroup(site);
                let reads = self.smem_operands(&operands);
                self.mmas.push(Async::new(site, reads));
                let id = AsyncId { kind: AsyncKind::Wgmma, index: self.mmas.len() - 1 };
                for name in ["a", "b"] {
                    if op == Op::Wgmma || name == "b" {
                        self.access(site, &operands.get(name), false, Some(id));
                    }
                }
                Val::Group(self.mmas.len() - 1)
            }
            Op::MmaWait => {
                let site = self.site(call);
                // Only a count the text decides can leave groups in flight.
                let in_flight = match operands.get("in_flight") {
                    Val::Int(k) => k.max(0),
                    _ => 0,
                };
                let keep = usize::try_from(in_flight).unwrap_or(usize::MAX);
                let complete = self.mmas.len().saturating_sub(keep);
                if let Val::Group(g) = operands.get("group")
                    && g >= complete
                {
                    self.report_mma_wait(call, site, g, in_flight);
                }
                let mut retired = Vec::new();
                for (i, m) in self.mmas.iter_mut().enumerate().take(complete) {
                    if !m.done {
                        m.done = true;
                        retired.push(i);
                    }
                }
                for i in retired {
                    self.complete(AsyncKind::Wgmma, i, i + 1, site);
                }
                self.last_mma_wait = Some((site, in_flight));
                Val::Unknown
            }
            Op::Umma | Op::UmmaTs => {
                let site = self.site(call);
                let reads = self.smem_operands(&operands);
                self.ummas.push(Async::new(site, reads));
                let id = Some(AsyncId { kind: AsyncKind::Umma, index: self.ummas.len() - 1 });
                self.access(site, &operands.get("a"), false, id);
                self.access(site, &operands.get("b"), false, id);
                self.access(site, &operands.get("acc"), true, id);
                Val::Unknown
            }
            Op::TmemLoad | Op::Load | Op::LoadRows | Op::TmemStore | Op::Store | Op::StoreRows => {
                let site = self.site(call);
                let src = operands.get("src");
                let dst = if matches!(op, Op::TmemStore | Op::Store | Op::StoreRows) {
                    operands.get("dst")
                } else {
                    Val::Unknown
                };
                self.copy_access(op, site, &src, &dst);
                Val::Unknown
            }
            // Registers, synchronous copies and register arithmetic: no barrier effect.
            _ => Val::Unknown,
        }
    }

    /// The shared-memory tiles an MMA reads: its `a` and `b` operands that are tiles (an `a`
    /// in registers or tensor memory is not).
    fn smem_operands(&self, operands: &Operands<'_>) -> Vec<Owner> {
        let a = match operands.op {
            Op::Wgmma | Op::Umma => Some(operands.get("a")),
            _ => None,
        };
        a.into_iter().chain([operands.get("b")]).filter_map(|v| self.tile_of(&v)).map(|(o, _)| o).collect()
    }

    /// A TMA load of tile `dst` completing on `on`.
    pub(super) fn tma_load(&mut self, call: &Expr, dst: &Val, on: &Val) {
        let site = self.site(call);
        let loc = self.site_loc(site);
        if let Some(at) = self.footprint(dst) {
            self.check_store_reads(site, at);
        }
        let dst = self.tile_of(dst);
        let bytes = dst.and_then(|(_, s)| s).and_then(TileShape::bytes);
        let dst_token = match dst {
            Some((Owner::Token(t), _)) => Some(t),
            _ => None,
        };
        let table = &self.an.table;
        match on {
            Val::Token(t) => {
                let Some(tok) = self.tokens.get(*t).cloned() else {
                    return self.abort("an operation on a value the checker lost track of");
                };
                let Some(pipe) = table.pipes.get(tok.pipe) else {
                    return self.abort("an operation on a value the checker lost track of");
                };
                if !pipe.tma {
                    let message = format!(
                        "this TMA load of {} completes its bytes on a slot of `{}`, but `{}` is not a `tma` pipeline: its `commit` expects no transaction bytes, so the bytes land on a phase that does not expect them; declare it `#[pipeline(tma, ..)]`, or fill the slot with `cx.store`",
                        self.who(),
                        pipe.name,
                        pipe.name
                    );
                    self.finding(format!("tma-untracked:{site}"), loc, message, &[pipe.full]);
                }
                let wrong = dst_token.filter(|d| d != t);
                if let Some(d) = wrong {
                    self.wrong_barrier(d, site, loc, &format!("another slot ({})", self.cite(tok.site)));
                }
                if let Some(tok) = self.tokens.get_mut(*t) {
                    // After a wrong target the slot's byte count says nothing more.
                    tok.loaded = tok.loaded.zip(bytes).and_then(|(a, b)| a.checked_add(b)).filter(|_| wrong.is_none());
                    tok.loads.push((site, bytes));
                }
                // Where neither the tile's bytes nor the slot's are known, the run counts none
                // on either side (`commit` below does the same).
                match (bytes, pipe.tx) {
                    (Some(b), Some(_)) => {
                        self.event(EventKind::Tma { bar: pipe.full, index: tok.stage, bytes: b }, site)
                    }
                    (_, None) => self.event(EventKind::Tma { bar: pipe.full, index: tok.stage, bytes: 0 }, site),
                    (None, Some(_)) => self.abort("a tile whose bytes the checker cannot evaluate"),
                }
            }
            Val::TxOn(bar, index) => {
                if let Some(d) = dst_token {
                    let name = table.slot(*bar, *index);
                    self.wrong_barrier(d, site, loc, &name);
                }
                self.trace.raw_tx.push((*bar, site));
                match bytes {
                    Some(b) => self.event(EventKind::Tma { bar: *bar, index: *index, bytes: b }, site),
                    None => self.abort("a size or count the checker cannot evaluate"),
                }
            }
            _ => self.abort("a TMA load onto a target the checker cannot follow"),
        }
    }

    // ---- endpoints ----

    /// An operation of endpoint `ep`: `acquire`, `commit`, `wait`, `release`, `arrive`,
    /// `tx`, `sync`.
    pub(super) fn endpoint_method(&mut self, call: &Expr, ep: usize, name: &str, args: &[(Val, bool)]) -> Val {
        let Some(end) = self.an.table.end(self.an.model, self.role, ep) else { return Val::Unknown };
        let receiver = match end {
            End::Producer(_) => Some(Receiver::Producer),
            End::Consumer(_) => Some(Receiver::Consumer),
            End::Arriver(_) => Some(Receiver::Arriver),
            End::Waiter(_) => Some(Receiver::Waiter),
            End::Named(_) => Some(Receiver::Named),
            End::Buffer(_) => None,
        };
        let Some(op) = receiver.and_then(|r| Op::find(r, name)) else {
            // Not an operation of this end (rustc reports it): what it takes is gone.
            self.escape_all(args);
            return Val::Unknown;
        };
        let operands = Operands { op, vals: args };
        match (end, op) {
            (End::Producer(p), Op::Acquire) => self.take(call, ep, p, true),
            (End::Consumer(p), Op::ConsumerWait) => self.take(call, ep, p, false),
            (End::Producer(p), Op::Commit) => {
                self.hand_over(call, p, &operands.get("slot_token"), Handover::Commit);
                Val::Unknown
            }
            (End::Consumer(p), Op::Release) => {
                self.hand_over(call, p, &operands.get("full"), Handover::Release);
                Val::Unknown
            }
            (End::Consumer(p), Op::ReleaseCluster) => {
                self.check_cluster_op(call, op);
                let ranks = self.mask(call, &operands.get("mask"));
                self.hand_over_to(call, p, &operands.get("full"), Handover::Release, &ranks);
                Val::Unknown
            }
            (End::Arriver(b), Op::ArriveCluster) => {
                self.check_cluster_op(call, op);
                let site = self.site(call);
                let Some(index) = self.index(b, &operands.get("index"), site) else { return Val::Unknown };
                for r in self.mask(call, &operands.get("mask")) {
                    let bar = self.an.table.on_rank(b, r);
                    self.event_on(EventKind::Arrive { bar, index, tx: 0 }, site);
                }
                Val::Unknown
            }
            (End::Consumer(p), Op::ReleaseOnMmaCompletion) => {
                let site = self.site(call);
                self.commit_ummas(site);
                self.hand_over(call, p, &operands.get("full"), Handover::OnMma);
                Val::Unknown
            }
            (End::Arriver(b), Op::Arrive | Op::ArriveExpectTx | Op::ArriveOnMmaCompletion) => {
                let site = self.site(call);
                let Some(index) = self.index(b, &operands.get("index"), site) else { return Val::Unknown };
                let tx = if op == Op::ArriveExpectTx {
                    match self.num(&operands.get("bytes")) {
                        Some((bytes, _)) => {
                            self.trace.expects.push(b);
                            bytes
                        }
                        None => {
                            self.abort("a transaction byte count the checker cannot evaluate");
                            0
                        }
                    }
                } else {
                    0
                };
                if op == Op::ArriveOnMmaCompletion {
                    self.commits.push((b, index, self.ummas.len()));
                    self.commit_ummas(site);
                } else {
                    self.check_raw_handback(b, index, site);
                }
                self.event(EventKind::Arrive { bar: b, index, tx }, site);
                Val::Unknown
            }
            (End::Arriver(b), Op::Tx) => {
                let site = self.site(call);
                match self.index(b, &operands.get("index"), site) {
                    Some(index) => Val::TxOn(b, index),
                    None => Val::Unknown,
                }
            }
            (End::Waiter(b), Op::WaitParity) => {
                let site = self.site(call);
                let Some(index) = self.index(b, &operands.get("index"), site) else { return Val::Unknown };
                match self.num(&operands.get("parity")) {
                    Some((parity, _)) => {
                        self.event(EventKind::Wait { bar: b, index, parity: (parity & 1) as u8 }, site)
                    }
                    None => self.abort("a size or count the checker cannot evaluate"),
                }
                // Commit, then wait: a wait on a barrier this instance's own MMA commit
                // arrives on sees the MMAs issued before the commit complete.
                let upto = self.commits.iter().filter(|c| c.0 == b && c.1 == index).map(|c| c.2).max();
                for m in self.ummas.iter_mut().take(upto.unwrap_or(0)) {
                    m.done = true;
                }
                Val::Unknown
            }
            (End::Named(n), Op::Sync) => {
                let site = self.site(call);
                self.event(EventKind::Sync { named: n }, site);
                Val::Unknown
            }
            (End::Named(n), Op::NamedArrive) => {
                let site = self.site(call);
                self.event(EventKind::NamedArrive { named: n }, site);
                Val::Unknown
            }
            // A ring position (`state`): no barrier effect; what it takes is gone.
            _ => {
                self.escape_all(args);
                Val::Unknown
            }
        }
    }

    /// Every argument moves where the checker cannot follow.
    pub(super) fn escape_all(&mut self, args: &[(Val, bool)]) {
        for (v, by_value) in args {
            self.escape(v, *by_value);
        }
    }

    /// The stage index an operation on plain bar `b` uses, checked against its length.
    pub(super) fn index(&mut self, b: usize, v: &Val, site: usize) -> Option<usize> {
        let Some((i, exact)) = self.num(v) else {
            self.abort("a barrier index the checker cannot evaluate");
            return None;
        };
        let Some(bar) = self.an.table.bars.get(b) else {
            self.abort("an unknown barrier");
            return None;
        };
        let len = bar.len.and_then(|l| i128::try_from(l).ok());
        let in_range = i >= 0 && len.is_none_or(|l| i < l);
        if !in_range {
            if exact {
                self.report_range(b, i, len, site);
            }
            self.abort("a barrier index out of range");
            return None;
        }
        usize::try_from(i).ok()
    }

    /// The ring position of endpoint `ep` (a producer starts at parity 1, a consumer at 0).
    pub(super) fn pipe_state(&mut self, ep: usize, p: usize, producer: bool) -> Option<PipeState> {
        if let Some(s) = self.pipes.get(&ep) {
            return Some(*s);
        }
        let stages = self.an.table.pipes.get(p)?.stages?;
        let state = PipeState { index: 0, phase: u8::from(producer), stages };
        self.pipes.insert(ep, state);
        Some(state)
    }

    /// `acquire` (producer) or `wait` (consumer): a wait, and a new token.
    pub(super) fn take(&mut self, call: &Expr, ep: usize, p: usize, producer: bool) -> Val {
        let site = self.site(call);
        let Some(state) = self.pipe_state(ep, p, producer) else {
            self.abort("a pipeline whose stage count the checker cannot evaluate");
            return Val::Unknown;
        };
        let Some(pipe) = self.an.table.pipes.get(p) else { return Val::Unknown };
        let bar = if producer { pipe.empty } else { pipe.full };
        self.event(EventKind::Wait { bar, index: state.index, parity: state.phase }, site);
        let mut next = state;
        next.index += 1;
        if next.index >= next.stages {
            next.index = 0;
            next.phase ^= 1;
        }
        self.pipes.insert(ep, next);
        self.tokens.push(Token {
            pipe: p,
            producer,
            stage: state.index,
            site,
            ep,
            loaded: Some(0),
            loads: Vec::new(),
            state: TokState::Live,
        });
        let t = self.tokens.len() - 1;
        self.live.push(t);
        Val::Token(t)
    }

    /// `commit`, `release` or `release_on_mma_completion` of a token, on this CTA's barrier.
    pub(super) fn hand_over(&mut self, call: &Expr, p: usize, token: &Val, how: Handover) {
        let own = [self.rank];
        self.hand_over_to(call, p, token, how, &own);
    }

    /// A hand-over of a token arriving on the barrier of each CTA of `ranks`
    /// (`release_cluster` releases a stage to every CTA whose producer writes into it).
    pub(super) fn hand_over_to(&mut self, call: &Expr, p: usize, token: &Val, how: Handover, ranks: &[usize]) {
        let site = self.site(call);
        let loc = self.site_loc(site);
        let Val::Token(t) = token else { return self.abort("an operation on a value the checker lost track of") };
        let Some(tok) = self.tokens.get(*t).cloned() else {
            return self.abort("an operation on a value the checker lost track of");
        };
        let Some(pipe) = self.an.table.pipes.get(tok.pipe) else {
            return self.abort("an operation on a value the checker lost track of");
        };
        if tok.pipe != p || tok.state != TokState::Live {
            return self.abort("an operation on a value the checker lost track of");
        }
        self.check_pending(Owner::Token(*t), how, site, loc, &[pipe.full, pipe.empty]);
        let mut tx = 0;
        if how == Handover::Commit && pipe.tma {
            tx = pipe.tx.unwrap_or(0);
            self.check_tx(&tok, tok.pipe, site, loc);
        }
        let bar = if how == Handover::Commit { pipe.full } else { pipe.empty };
        if let Some(tok) = self.tokens.get_mut(*t) {
            tok.state = TokState::Done;
        }
        self.live.retain(|x| x != t);
        for &r in ranks {
            let bar = self.an.table.on_rank(bar, r);
            self.event_on(EventKind::Arrive { bar, index: tok.stage, tx }, site);
        }
    }

    /// A TMA multicast load of tile `dst` completing on `on` in every CTA of `ranks`: the
    /// bytes land on each one's copy of the barrier. The slot's own byte count then depends on
    /// what the peers deliver, which only the run of the whole cluster decides.
    pub(super) fn tma_multicast(&mut self, call: &Expr, dst: &Val, on: &Val, ranks: &[usize]) {
        let before = self.trace.events.len();
        self.tma_load(call, dst, on);
        let Some(&event) = self.trace.events.get(before) else { return };
        self.trace.events.truncate(before);
        if let Val::Token(t) = on
            && let Some(tok) = self.tokens.get_mut(*t)
        {
            tok.loaded = None;
        }
        if let EventKind::Tma { bar, index, bytes } = event.kind {
            self.trace.multicasts.push(event.site);
            for &r in ranks {
                let bar = self.an.table.on_rank(bar, r);
                self.event_on(EventKind::Tma { bar, index, bytes }, event.site);
            }
        }
    }

    /// The ranks a CTA mask names. A mask the text does not decide, or one that names a rank
    /// outside the cluster (reported), stops the run being a proof and names every CTA.
    pub(super) fn mask(&mut self, call: &Expr, mask: &Val) -> Vec<usize> {
        let site = self.site(call);
        let ranks = self.an.table.ranks;
        let Some((m, true)) = self.num(mask) else {
            // A mask the text does not decide (a launch argument, a value loaded at run
            // time): the run stops being a proof, and goes on as if every CTA were named.
            self.abort("a CTA mask the checker cannot evaluate");
            return (0..ranks).collect();
        };
        if self.an.model.kernel.cluster.is_none() {
            // `check_cluster_op` reported the operation: the CTA is a cluster of one.
            return vec![self.rank];
        }
        let outside = (0..16).find(|&r| m & (1 << r) != 0 && r >= ranks);
        if m <= 0 || m >= 1 << 16 || outside.is_some() {
            let loc = self.site_loc(site);
            let what = match outside {
                Some(r) if m > 0 && m < 1 << 16 => format!("names CTA rank {r}"),
                _ => "names no CTA of a 16-bit mask".to_string(),
            };
            let cluster = if ranks == 1 {
                "the kernel has no cluster shape".to_string()
            } else {
                format!("the cluster has {ranks} CTAs (ranks 0..{ranks})")
            };
            let message = format!(
                "{}'s CTA mask {m:#b} {what}, but {cluster}; set only the bits of ranks below {ranks} (`(1 << {ranks}) - 1` for every CTA)",
                self.who()
            );
            self.finding(format!("mask:{site}"), loc, message, &[]);
            // Reported: the run goes on as if every CTA were named, so the slot is neither
            // short of bytes nor dropped on account of the same mistake.
            self.abort("a CTA mask outside the cluster");
            return (0..ranks).collect();
        }
        (0..ranks).filter(|&r| m & (1 << r) != 0).collect()
    }

    /// Reports a cluster operation in a kernel without a cluster shape.
    pub(super) fn check_cluster_op(&mut self, call: &Expr, op: Op) {
        if self.an.model.kernel.cluster.is_some() {
            return;
        }
        let site = self.site(call);
        let loc = self.site_loc(site);
        let message = format!(
            "`{}` is a thread-block cluster operation, but kernel `{}` has no cluster shape, so it runs as clusters of one CTA; declare the cluster on the kernel: `#[kernel(cluster = [2, 1, 1])]`",
            op.name(),
            self.an.model.kernel.module.ident
        );
        self.finding(format!("no-cluster:{site}"), loc, message, &[]);
    }

    // ---- tokens ----

    /// Methods of a token: its stage, and the tiles of the slot it holds.
    pub(super) fn token_method(&self, t: usize, name: &str) -> Val {
        let Some(tok) = self.tokens.get(t) else { return Val::Unknown };
        let receiver = if tok.producer { Receiver::Slot } else { Receiver::Full };
        if let Some(Op::SlotStage | Op::FullStage) = Op::find(receiver, name) {
            return Val::Int(i128::try_from(tok.stage).unwrap_or(0));
        }
        // The stage's guarded buffers, by the names of the views the macro generates.
        let model = self.an.model;
        let field = self
            .an
            .table
            .pipes
            .get(tok.pipe)
            .and_then(|p| p.guards.iter().copied().find(|&f| model.fields.get(f).is_some_and(|f| f.name == name)));
        match field {
            Some(f) => {
                let shape = model.fields.get(f).and_then(|f| model.unit_shape(&f.stage_ty));
                Val::Tile(Owner::Token(t), shape, None)
            }
            None => Val::Unknown,
        }
    }

    /// The tile shape of unguarded buffer `f`.
    pub(super) fn buffer_shape(&self, f: usize) -> Option<TileShape> {
        let model = self.an.model;
        model.fields.get(f).and_then(|f| model.unit_shape(&f.ty))
    }

    /// A value as a tile operand: its owner and shape.
    pub(super) fn tile_of(&self, v: &Val) -> Option<(Owner, Option<TileShape>)> {
        match v {
            Val::Tile(o, s, _) => Some((*o, *s)),
            Val::Buffer(f) => Some((Owner::Buffer(*f), self.buffer_shape(*f))),
            _ => None,
        }
    }

    /// The rectangle of an unguarded buffer a value covers, when the text decides it.
    pub(super) fn rect_of(&self, v: &Val) -> Option<Rect> {
        match v {
            Val::Tile(_, _, r) => r.as_deref().copied(),
            Val::Buffer(f) => self.buffer_shape(*f).and_then(Rect::whole),
            _ => None,
        }
    }

    // ---- tiles ----

    /// A method of a tile or view: the view operations of the catalogue narrow or keep the
    /// shape; other methods give an unknown value.
    ///
    /// `rect` is the rectangle the receiver covers and `start` the view's first row or
    /// column, when the text decides them: the window's rectangle follows.
    pub(super) fn view_method(
        &self,
        generics: &[Generic],
        (owner, shape, rect): (Owner, Option<TileShape>, Option<Rect>),
        name: &str,
        start: Option<i128>,
    ) -> Val {
        let consts = &self.an.model.consts;
        let turbofish = || generics.first().and_then(|g| g.const_value(&|name| consts.value(name)));
        match Op::find(Receiver::Tile, name).or_else(|| Op::find(Receiver::TileRef, name)) {
            Some(Op::TileRows | Op::RefRows) => {
                let n = turbofish();
                let rect = rect.zip(start).zip(n).and_then(|((r, s), rows)| r.rows(s, rows));
                Val::Tile(owner, shape.zip(n).map(|(s, rows)| TileShape { rows, ..s }), rect.map(Box::new))
            }
            Some(Op::TileCols | Op::RefCols) => {
                let n = turbofish();
                let rect = rect.zip(start).zip(n).and_then(|((r, s), cols)| r.cols(s, cols));
                Val::Tile(owner, shape.zip(n).map(|(s, cols)| TileShape { cols, ..s }), rect.map(Box::new))
            }
            Some(Op::TileView | Op::TileT | Op::RefT) => Val::Tile(owner, shape, rect.map(Box::new)),
            // `bytes`, `dtype`: a value of the tile's type, not a tile.
            Some(_) => Val::Unknown,
            // Not a tile method (a ring's `stage`, or one rustc rejects): nothing known.
            None => Val::Unknown,
        }
    }
}
