//! One role instance's run: its state, its scopes of variables, and statements.

use std::collections::HashMap;

use warpspec_ir::{Block, Expr, ExprKind, Function, Local, Pat, PatKind, Pos, StmtKind};

use super::super::Analysis;
use super::super::lin::Lin;
use super::super::report::who;
use super::super::table::End;
use super::RUN_STEPS;
use super::control::{ChoiceKind, LoopFrame};
use super::scan::Arm;
use super::trace::{Event, EventKind, Scenario, Trace};
use super::value::{Async, Flow, PipeState, TokState, Token, Val, part};
use crate::errors::Loc;
use crate::protocol::report::Site;

/// How a scope closes: what the construct carries out of it (tokens that value holds are
/// not dropped), and where and why the tokens it drops are reported.
pub(super) struct Close {
    /// The value carried out, where and why; `None` after an aborted run, which is over.
    check: Option<(Val, Pos, &'static str)>,
}

impl Close {
    /// Closing after `flow`, keeping `keep`: drops are reported at `at`, `why`.
    pub(super) fn after(flow: &Flow, keep: Val, at: Pos, why: &'static str) -> Self {
        match flow {
            Flow::Abort => Close::unchecked(),
            _ => Close { check: Some((keep, at, why)) },
        }
    }

    /// Closing without a check: the run was aborted, and is over.
    pub(super) const fn unchecked() -> Self {
        Close { check: None }
    }

    /// Closing after `flow`, keeping the value it carries out (a result, a `break` value, a
    /// returned value).
    pub(super) fn carrying(flow: &Flow, at: Pos, why: &'static str) -> Self {
        let keep = match flow {
            Flow::Val(v) | Flow::Break(_, v, _) | Flow::Return(v, _) => v.clone(),
            _ => Val::Unknown,
        };
        Close::after(flow, keep, at, why)
    }
}

/// Runs one role instance.
pub struct Run<'r, 'a> {
    /// What the runs share.
    pub(super) an: &'r Analysis<'a>,
    /// The scenario.
    pub(super) scen: &'r Scenario,
    /// The role.
    pub(super) role: usize,
    /// The instance.
    pub(super) instance: i128,
    /// The rank of the instance's CTA in its cluster (0 without a cluster shape).
    pub(super) rank: usize,
    /// Variables: a stack of frames (one per inlined call), each a stack of scopes.
    pub(super) frames: Vec<Vec<Vec<(String, Val)>>>,
    /// Every token taken.
    pub(super) tokens: Vec<Token>,
    /// Tokens not yet handed over.
    pub(super) live: Vec<usize>,
    /// `wgmma` groups in issue order.
    pub(super) mmas: Vec<Async>,
    /// The last `mma_wait`: site and groups left in flight.
    pub(super) last_mma_wait: Option<(usize, i128)>,
    /// TMA stores in issue order.
    pub(super) stores: Vec<Async>,
    /// Single-thread MMAs in issue order.
    pub(super) ummas: Vec<Async>,
    /// MMA commits onto plain barriers (`arrive_on_mma_completion`): the bar, its stage, and
    /// how many single-thread MMAs had been issued (the commit arrives once they complete).
    pub(super) commits: Vec<(usize, usize, usize)>,
    /// Single-thread MMAs whose completion an arrive has committed so far.
    pub(super) committed: usize,
    /// The last tensor-memory load not yet followed by an arrival.
    pub(super) tmem_load: Option<usize>,
    /// Ring positions by endpoint.
    pub(super) pipes: HashMap<usize, PipeState>,
    /// Loops being run, outermost first.
    pub(super) loops: Vec<LoopFrame<'a>>,
    /// The value undecided conditions take while a loop's exit condition is evaluated.
    pub(super) forced: Option<bool>,
    /// Depth of inlined calls.
    pub(super) depth: u32,
    /// The bodies of the role and of the functions inlined into it, innermost last.
    pub(super) bodies: Vec<&'a Block>,
    /// Steps taken.
    pub(super) steps: u32,
    /// Performances of each site so far.
    pub(super) visits: HashMap<usize, u32>,
    /// The trace being recorded.
    pub(super) trace: Trace,
}

impl<'r, 'a> Run<'r, 'a> {
    /// A run of instance `instance` of role `role` in scenario `scen`.
    pub fn new(an: &'r Analysis<'a>, scen: &'r Scenario, role: usize, instance: usize, rank: usize) -> Self {
        Self {
            an,
            scen,
            role,
            instance: i128::try_from(instance).unwrap_or(0),
            rank,
            frames: Vec::new(),
            tokens: Vec::new(),
            live: Vec::new(),
            mmas: Vec::new(),
            last_mma_wait: None,
            stores: Vec::new(),
            ummas: Vec::new(),
            commits: Vec::new(),
            committed: 0,
            tmem_load: None,
            pipes: HashMap::new(),
            loops: Vec::new(),
            forced: None,
            depth: 0,
            bodies: Vec::new(),
            steps: 0,
            visits: HashMap::new(),
            trace: Trace {
                role,
                instance,
                rank,
                events: Vec::new(),
                exit: None,
                decisions: Vec::new(),
                aborted: None,
                discovered: Vec::new(),
                raw_tx: Vec::new(),
                expects: Vec::new(),
                sized: false,
                infeasible: false,
                wait_ld: Vec::new(),
                multicasts: Vec::new(),
            },
        }
    }

    /// Runs the role's body and returns its trace.
    pub fn execute(mut self) -> Trace {
        let model = self.an.model;
        let Some(decl) = self.an.ir.roles.get(self.role) else {
            self.trace.aborted = Some("the role has no declaration");
            return self.trace;
        };
        let func: &'a Function = &decl.func;
        let endpoints = model.roles.get(self.role).map_or(0, |r| r.endpoints.len());
        let flow = self.in_frame(&func.body, |run| {
            for (i, param) in func.params.iter().enumerate() {
                let value = match i.checked_sub(1) {
                    None => Val::Ctx,
                    Some(ep) if ep < endpoints => match run.an.table.end(model, run.role, ep) {
                        Some(End::Buffer(f)) => Val::Buffer(f),
                        Some(_) => Val::Endpoint(ep),
                        None => Val::Unknown,
                    },
                    Some(_) => Val::Unknown,
                };
                run.bind(&param.pat, value);
            }
            run.block(&func.body)
        });
        let end = match flow {
            Flow::Return(_, at) => {
                self.trace.exit = Some(self.an.loc(at));
                Some(at)
            }
            Flow::Abort if self.trace.infeasible => None,
            Flow::Abort => {
                self.trace.aborted.get_or_insert("the run went past its step or loop budget");
                None
            }
            _ => Some(func.body.close),
        };
        if !self.trace.infeasible {
            self.check_leaks(&Val::Unknown, func.body.close, "when the role ends");
        }
        if let Some(at) = end.filter(|_| self.trace.aborted.is_none()) {
            self.check_stores_at_exit(at);
        }
        self.trace
    }

    // ---- bookkeeping ----

    /// Counts a step; false once this run's or the kernel's budget is spent.
    pub(super) fn tick(&mut self) -> bool {
        self.steps += 1;
        self.steps <= RUN_STEPS && self.an.spend(1)
    }

    /// Marks the trace partial: the run cannot be followed further for the simulation.
    pub(super) fn abort(&mut self, why: &'static str) {
        self.trace.aborted.get_or_insert(why);
    }

    // ---- frames and scopes ----

    /// Runs `f` in a new frame of variables (a role's or an inlined function's), whose body
    /// is `body`.
    pub(super) fn in_frame<T>(&mut self, body: &'a Block, f: impl FnOnce(&mut Self) -> T) -> T {
        self.frames.push(vec![Vec::new()]);
        self.bodies.push(body);
        let result = f(self);
        self.bodies.pop();
        self.frames.pop();
        result
    }

    /// Runs `f` in a new scope of variables, then closes the scope as the [`Close`] that `f`
    /// returns says: the tokens only the scope held are reported dropped.
    pub(super) fn scoped<T>(&mut self, f: impl FnOnce(&mut Self) -> (T, Close)) -> T {
        if let Some(frame) = self.frames.last_mut() {
            frame.push(Vec::new());
        }
        let (result, close) = f(self);
        if let Some(frame) = self.frames.last_mut() {
            frame.pop();
        }
        if let Some((keep, at, why)) = close.check {
            self.check_leaks(&keep, at, why);
        }
        result
    }

    // ---- variables ----

    /// Binds `name` in the innermost scope.
    pub(super) fn define(&mut self, name: String, value: Val) {
        if let Some(scope) = self.frames.last_mut().and_then(|f| f.last_mut()) {
            scope.push((name, value));
        }
    }

    /// The value of variable `name`.
    pub(super) fn lookup(&self, name: &str) -> Option<&Val> {
        let frame = self.frames.last()?;
        frame.iter().rev().find_map(|scope| scope.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v))
    }

    /// Assigns variable `name`.
    pub(super) fn set(&mut self, name: &str, value: Val) {
        let Some(frame) = self.frames.last_mut() else { return };
        for scope in frame.iter_mut().rev() {
            if let Some(slot) = scope.iter_mut().rev().find(|(n, _)| n == name) {
                slot.1 = value;
                return;
            }
        }
    }

    // ---- sites, records and numbers ----

    /// The site of an operation's method call (an [`ExprKind::Op`] or
    /// [`ExprKind::Method`]): it reads as its receiver's path and the method's name.
    pub(super) fn site(&self, call: &Expr) -> usize {
        let an = self.an;
        an.sites.borrow_mut().id(call.pos.node, || {
            let (receiver, method) = match &call.kind {
                ExprKind::Op { op, receiver, .. } => (Some(receiver), op.name()),
                ExprKind::Method { receiver, method, .. } => (Some(receiver), method.as_str()),
                _ => (None, ""),
            };
            let receiver = match receiver {
                Some(r) if matches!(r.kind, ExprKind::Path(_)) => an.text(r.pos).replace(' ', ""),
                _ => String::new(),
            };
            let text = if receiver.is_empty() { method.to_string() } else { format!("{receiver}.{method}") };
            Site { loc: an.loc(call.pos), pos: call.pos, text }
        })
    }

    /// The span of site `site`.
    pub(super) fn site_loc(&self, site: usize) -> Loc {
        self.an.sites.borrow().loc(site).unwrap_or_else(|| Loc::span(proc_macro2::Span::call_site()))
    }

    /// How site `site` reads in messages.
    pub(super) fn cite(&self, site: usize) -> String {
        self.an.sites.borrow().cite(site)
    }

    /// How this instance reads in messages.
    pub(super) fn who(&self) -> String {
        who(self.an.model, self.role, usize::try_from(self.instance).unwrap_or(0), self.cta())
    }

    /// The rank of the instance's CTA, in a kernel with a cluster shape.
    pub(super) fn cta(&self) -> Option<usize> {
        (self.an.table.ranks > 1).then_some(self.rank)
    }

    /// Records an operation of the trace on this instance's own CTA's barriers (the event
    /// names rank 0's copies).
    pub(super) fn event(&mut self, kind: EventKind, site: usize) {
        let (t, rank) = (&self.an.table, self.rank);
        let kind = match kind {
            EventKind::Wait { bar, index, parity } => EventKind::Wait { bar: t.on_rank(bar, rank), index, parity },
            EventKind::Arrive { bar, index, tx } => EventKind::Arrive { bar: t.on_rank(bar, rank), index, tx },
            EventKind::Tma { bar, index, bytes } => EventKind::Tma { bar: t.on_rank(bar, rank), index, bytes },
            EventKind::Sync { named } => EventKind::Sync { named: t.named_on_rank(named, rank) },
            EventKind::NamedArrive { named } => EventKind::NamedArrive { named: t.named_on_rank(named, rank) },
            other => other,
        };
        self.event_on(kind, site);
    }

    /// Records an operation of the trace whose barrier indices already name the CTA they act
    /// on (an arrival on a peer's barrier, a multicast's bytes).
    pub(super) fn event_on(&mut self, kind: EventKind, site: usize) {
        if matches!(kind, EventKind::Arrive { .. } | EventKind::NamedArrive { .. } | EventKind::Sync { .. })
            && let Some(load) = self.tmem_load.take()
            && !self.trace.wait_ld.contains(&(load, site))
        {
            self.trace.wait_ld.push((load, site));
        }
        let visit = self.visits.entry(site).or_insert(0);
        let event = Event { kind, site, visit: *visit };
        *visit += 1;
        self.trace.events.push(event);
    }

    /// Records a finding of this role's own code.
    pub(super) fn finding(&self, key: String, loc: Loc, message: String, bars: &[usize]) {
        self.an.findings.borrow_mut().local(key, loc, message, bars);
    }

    /// Shows site `site` with `label` beside the finding recorded under `key`.
    pub(super) fn relate(&self, key: &str, site: usize, label: String) {
        let loc = self.an.sites.borrow().loc(site);
        self.an.findings.borrow_mut().relate(key, loc, label);
    }

    /// A value as an integer, if it can be one: atoms are sizes.
    pub(super) fn lin(&self, v: &Val) -> Option<Lin> {
        match v {
            Val::Int(x) => Some(Lin::exact(*x)),
            Val::Sym(l) => match l.base.as_deref().and_then(|b| self.scen.size(b)) {
                Some(x) => {
                    Some(Lin::computed(l.mul.checked_mul(i128::from(l.unit))?.checked_mul(x)?.checked_add(l.off)?))
                }
                None => Some(l.clone()),
            },
            Val::Atom(k) => match self.scen.size(k) {
                Some(x) => Some(Lin::computed(x)),
                None => Some(Lin::size(k.clone())),
            },
            Val::Unknown => Some(Lin::size("?".into())),
            _ => None,
        }
    }

    /// The integer a value stands for in this scenario, and whether the text decides it.
    pub(super) fn num(&self, v: &Val) -> Option<(i128, bool)> {
        let l = self.lin(v)?;
        Some((l.value(self.scen.v)?, l.exact))
    }

    /// A value moves somewhere the checker cannot follow.
    pub(super) fn escape(&mut self, v: &Val, by_value: bool) {
        match v {
            Val::Token(t) if by_value => {
                if let Some(tok) = self.tokens.get_mut(*t) {
                    tok.state = TokState::Escaped;
                }
                self.live.retain(|x| x != t);
            }
            Val::Endpoint(_) | Val::Ctx => {
                self.abort("an endpoint or the context is passed where the checker cannot follow it")
            }
            Val::Tuple(vs) => {
                for v in vs.clone() {
                    self.escape(&v, by_value);
                }
            }
            _ => {}
        }
    }

    // ---- statements ----

    /// Runs a block in its own scope; its value is its tail expression's.
    pub(super) fn block(&mut self, b: &'a Block) -> Flow {
        self.scoped(|run| {
            let flow = run.statements(b);
            let close = match &flow {
                Flow::Break(_, v, at) => Close::after(&flow, v.clone(), *at, "at this `break`"),
                Flow::Continue(_, at) => Close::after(&flow, Val::Unknown, *at, "at this `continue`"),
                Flow::Return(v, at) => Close::after(&flow, v.clone(), *at, "at this `return`"),
                Flow::Val(v) => Close::after(&flow, v.clone(), b.close, "at the end of this block"),
                Flow::Abort => Close::unchecked(),
            };
            (flow, close)
        })
    }

    /// Runs a block's statements in order; the value is its tail expression's.
    fn statements(&mut self, b: &'a Block) -> Flow {
        let mut last = Val::Unknown;
        let count = b.stmts.len();
        for (i, stmt) in b.stmts.iter().enumerate() {
            let made = self.tokens.len();
            let flow = match &stmt.kind {
                StmtKind::Let(l) => self.local(l, stmt.pos),
                StmtKind::Expr { expr, semi } => {
                    let flow = self.eval(expr);
                    if let (Flow::Val(v), false, true) = (&flow, semi, i + 1 == count) {
                        last = v.clone();
                    }
                    flow
                }
                StmtKind::Macro(m) => self.mac(m),
            };
            if !matches!(flow, Flow::Val(_)) {
                return flow;
            }
            // A statement can only drop a token it made (assignments and `drop` check their
            // own).
            if i + 1 < count && self.tokens.len() > made {
                self.check_leaks(&Val::Unknown, stmt.pos, "in this statement");
            }
        }
        Flow::Val(last)
    }

    /// Runs a `let` statement (at `at`).
    pub(super) fn local(&mut self, l: &'a Local, at: Pos) -> Flow {
        let Some(init) = &l.init else {
            self.bind(&l.pat, Val::Unknown);
            return Flow::Val(Val::Unknown);
        };
        let value = val!(self, init);
        if let Some(diverge) = &l.diverge {
            let key = format!("let {} = {}", self.an.text(l.pat.pos), self.an.text(init.pos));
            let arms = [Arm::Empty, Arm::Expr(diverge)];
            if self.choose(key, at, &arms, ChoiceKind::LetElse) == 1 {
                let flow = self.eval(diverge);
                if !matches!(flow, Flow::Val(_)) {
                    return flow;
                }
            }
        }
        let dropped = matches!(l.pat.kind, PatKind::Wild);
        self.bind(&l.pat, value);
        if dropped {
            self.check_leaks(&Val::Unknown, at, "by binding it to `_`");
        }
        Flow::Val(Val::Unknown)
    }

    /// Binds the names of `pat` to the parts of `value`.
    pub(super) fn bind(&mut self, pat: &Pat, value: Val) {
        match &pat.kind {
            PatKind::Ident { name, sub, .. } => {
                if let Some(sub) = sub {
                    self.bind(sub, value.clone());
                }
                self.define(name.clone(), value);
            }
            PatKind::Tuple(elems) | PatKind::Slice(elems) => {
                for (i, elem) in elems.iter().enumerate() {
                    self.bind(elem, part(&value, i));
                }
            }
            PatKind::TupleStruct { elems, .. } => {
                for elem in elems {
                    self.bind(elem, Val::Unknown);
                }
            }
            PatKind::Struct { fields, .. } => {
                for (_, pat) in fields {
                    self.bind(pat, Val::Unknown);
                }
            }
            PatKind::Typed { pat, .. } | PatKind::Ref(pat) => self.bind(pat, value),
            PatKind::Or(cases) => {
                if let Some(first) = cases.first() {
                    self.bind(first, value);
                }
            }
            PatKind::Wild | PatKind::Rest | PatKind::Lit(_) | PatKind::Path(_) => {}
        }
    }
}
