//! The abstract interpreter: runs one role instance's body, in program order, over abstract
//! values, and records its barrier operations as a trace.
//!
//! Integers are computed exactly where the text decides them (literals, module constants,
//! `cx.instance()`, loop counters, locals). Values only known at run time (launch arguments,
//! `cx.block()`, tensor shapes) are *atoms*, named by how they were computed; as integers
//! they are sizes, which take the run's trip count `v` (see [`super::lin`]), and every
//! condition on atoms takes the value the run's [`Scenario`] assigns to it, the same in every
//! role, since a kernel's control flow may not depend on data. A condition that leaves a
//! `loop` or `while` holds on the loop's `v`-th iteration. Module functions the roles call
//! are run inline with their arguments, except register math (no operations, a data result).
//!
//! While running, the interpreter checks what one role decides alone: tokens handed over on
//! every path, transaction bytes of each TMA slot, slots released only after the MMAs and
//! TMA stores reading them completed, `wgmma` only in warpgroup roles, indices in range.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{BinOp, Block, Expr, ExprMethodCall, ItemFn, Lit, Pat, Stmt, UnOp};

use super::Analysis;
use super::lin::{Lin, Op, Out};
use super::report::who;
use super::table::End;
use crate::errors::Loc;
use crate::model::TileShape;

/// Statements and expressions one run may evaluate.
const RUN_STEPS: u32 = 60_000;
/// Iterations one loop may make in one run.
const MAX_ITERATIONS: i128 = 4096;
/// Nesting of inlined module functions.
const MAX_DEPTH: u32 = 12;
/// Decisions with skipped signals kept per run, for messages.
const MAX_DECISIONS: usize = 64;

/// What one run of the checker assumes about values the text does not decide.
#[derive(Clone, Debug, Default)]
pub struct Scenario {
    /// The trip count of every loop whose count is not in the text, and the value of every
    /// integer atom.
    pub v: i128,
    /// The arm each undecided condition takes, by the condition's name (0 = false).
    pub choices: HashMap<String, usize>,
}

/// A barrier operation as one role instance performs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// `mbarrier.try_wait.parity`.
    Wait {
        /// The bar.
        bar: usize,
        /// Its stage.
        index: usize,
        /// The parity waited for.
        parity: u8,
    },
    /// `mbarrier.arrive`, expecting transaction bytes.
    Arrive {
        /// The bar.
        bar: usize,
        /// Its stage.
        index: usize,
        /// Transaction bytes expected (0 for a plain arrive).
        tx: i128,
    },
    /// A TMA load completing its bytes.
    Tma {
        /// The bar.
        bar: usize,
        /// Its stage.
        index: usize,
        /// Bytes copied.
        bytes: i128,
    },
    /// `bar.sync` on a named barrier.
    Sync {
        /// The named barrier.
        named: usize,
    },
    /// `bar.arrive` on a named barrier.
    NamedArrive {
        /// The named barrier.
        named: usize,
    },
}

/// One operation of a trace: what, where (the site), and how many times the instance had
/// performed that site before (`visit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// The operation.
    pub kind: EventKind,
    /// Its site.
    pub site: usize,
    /// Earlier performances of the site by the same instance.
    pub visit: u32,
}

/// What a skipped arm would have signalled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// An arrive on bar `0`.
    Bar(usize),
    /// A use of named barrier `0`.
    Named(usize),
}

/// A condition the scenario decided, with the signals of the arms not taken.
pub struct Decision {
    /// The condition's span.
    pub loc: Loc,
    /// What was assumed: "`args.flag` is false".
    pub what: String,
    /// Signals in the arms not taken, with how they read.
    pub skipped: Vec<(Signal, String)>,
    /// Whether the arm taken leaves a loop or the function (skipping what follows).
    pub exits: bool,
}

/// One role instance's run.
pub struct Trace {
    /// The role.
    pub role: usize,
    /// The instance.
    pub instance: usize,
    /// Its barrier operations in program order.
    pub events: Vec<Event>,
    /// Where it returned early, if it did.
    pub exit: Option<Loc>,
    /// Scenario decisions that skipped signals.
    pub decisions: Vec<Decision>,
    /// Why the run could not be followed to its end (the trace is then partial).
    pub aborted: Option<&'static str>,
    /// Conditions met that the scenario did not decide, with their arm counts.
    pub discovered: Vec<(String, usize)>,
    /// TMA loads onto plain barriers: (bar, site).
    pub raw_tx: Vec<(usize, usize)>,
    /// Plain barriers this instance expects transaction bytes on.
    pub expects: Vec<usize>,
    /// Whether a loop's trip count came from the scenario (a size or an open loop).
    pub sized: bool,
}

/// Whose tile a tile value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    /// A tile of the slot behind token `0`.
    Token(usize),
    /// An unguarded on-chip buffer (field `0`).
    Buffer(usize),
}

/// A range as a `for` loop iterates it.
#[derive(Clone, Debug, PartialEq)]
struct Range {
    /// First value.
    start: i128,
    /// End (exclusive).
    end: i128,
    /// Step between values.
    step: i128,
    /// Iterated backwards.
    rev: bool,
    /// Yields `(index, value)`.
    enumerate: bool,
    /// Whether its bounds depend on run-time sizes.
    sized: bool,
}

impl Range {
    /// Number of values.
    fn len(&self) -> i128 {
        if self.end <= self.start || self.step <= 0 {
            return 0;
        }
        self.end.saturating_sub(self.start).saturating_add(self.step - 1) / self.step
    }

    /// The `i`-th value in iteration order.
    fn nth(&self, i: i128) -> Val {
        let n = self.len();
        let k = if self.rev { n - 1 - i } else { i };
        let x = k.checked_mul(self.step).and_then(|d| self.start.checked_add(d)).map_or(Val::Unknown, Val::Int);
        if self.enumerate { Val::Tuple(vec![Val::Int(i), x]) } else { x }
    }
}

/// An abstract value.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    /// An integer the text decides.
    Int(i128),
    /// An integer that depends on run-time sizes (see [`Lin`]).
    Sym(Lin),
    /// A boolean the text decides.
    Bool(bool),
    /// A run-time value, the same in every role of a CTA, named by how it was computed.
    Atom(Rc<str>),
    /// Nothing known.
    Unknown,
    /// The role's context.
    Ctx,
    /// Endpoint parameter `0` of the role.
    Endpoint(usize),
    /// Unguarded on-chip buffer (field `0`).
    Buffer(usize),
    /// A pipeline token.
    Token(usize),
    /// A tile (or window) of a slot or buffer, with its shape when known.
    Tile(Owner, Option<TileShape>),
    /// A `wgmma` group.
    Group(usize),
    /// A TMA store group.
    Store(usize),
    /// A TMA completion target on stage `1` of plain bar `0`.
    TxOn(usize, usize),
    /// A tuple or array.
    Tuple(Vec<Val>),
    /// A range.
    Range(Range),
}

/// Where control leaves, for messages (its span is only computed when one is needed).
type At<'a> = &'a dyn ToTokens;

/// How control leaves an expression.
enum Flow<'a> {
    /// Normally, with a value.
    Val(Val),
    /// `break 'label value`.
    Break(Option<String>, Val, At<'a>),
    /// `continue 'label`.
    Continue(Option<String>, At<'a>),
    /// `return value` (or a `?` that fails).
    Return(Val, At<'a>),
    /// The run cannot be followed further.
    Abort,
}

/// Evaluates an expression, passing any flow other than a value up.
macro_rules! val {
    ($run:expr, $e:expr) => {
        match $run.eval($e) {
            Flow::Val(v) => v,
            other => return other,
        }
    };
}

/// A pipeline token's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TokState {
    /// Held.
    Live,
    /// Handed over (committed or released), or reported dropped.
    Done,
    /// Moved where the checker cannot follow.
    Escaped,
}

/// A pipeline token taken by `acquire` or `wait`.
#[derive(Clone, Debug)]
struct Token {
    /// Its pipeline.
    pipe: usize,
    /// A producer's slot (else a consumer's full slot).
    producer: bool,
    /// Its stage.
    stage: usize,
    /// The `acquire` or `wait` that took it.
    site: usize,
    /// The endpoint that took it.
    ep: usize,
    /// Transaction bytes copied onto the slot so far (`None` once unknown).
    loaded: Option<i128>,
    /// The TMA loads onto the slot: site and bytes.
    loads: Vec<(usize, Option<i128>)>,
    /// Where it is in its life.
    state: TokState,
}

/// An asynchronous operation reading tiles: a `wgmma` group, a TMA store, a `tcgen05.mma`.
#[derive(Clone, Debug)]
struct Async {
    /// The operation's site.
    site: usize,
    /// What it reads.
    reads: Vec<Owner>,
    /// Whether it is known complete.
    done: bool,
}

/// A producer's or consumer's ring position (CUTLASS's `{index, phase}`).
#[derive(Clone, Copy, Debug)]
struct PipeState {
    /// The next stage.
    index: usize,
    /// The parity to wait for at it.
    phase: u8,
    /// Stages in the ring.
    stages: usize,
}

/// A loop being run.
struct LoopFrame<'a> {
    /// Its label.
    label: Option<String>,
    /// The iteration being run (from 0).
    iteration: i128,
    /// A `loop` or `while`: its trip count is decided by its exit condition, not the text.
    open: bool,
    /// Its body.
    body: &'a Block,
}

/// An arm of a condition, for scanning what taking or skipping it means.
#[derive(Clone, Copy)]
enum Arm<'a> {
    /// A block.
    Block(&'a Block),
    /// An expression.
    Expr(&'a Expr),
    /// No arm (an `if` without `else`).
    Empty,
}

impl Arm<'_> {
    /// Identity of the arm (its address), for caching.
    fn key(self) -> usize {
        match self {
            Arm::Block(b) => std::ptr::from_ref(b) as usize,
            Arm::Expr(e) => std::ptr::from_ref(e) as usize,
            Arm::Empty => 0,
        }
    }
}

/// What an arm contains, found once per arm (see [`ArmScan`]).
#[derive(Clone, Default)]
pub struct ArmInfo {
    /// It has a `break` without a label, outside any inner loop or closure.
    unlabeled_break: bool,
    /// Labels its `break`s name.
    labels: Vec<String>,
    /// Method calls that signal (arrive, commit, release, sync): receiver name, how it reads.
    signals: Vec<(String, String)>,
    /// It has a `break` or `continue` (of any loop) outside closures.
    leaves_loop: bool,
    /// It has a `return` or `?` outside closures.
    returns: bool,
}

/// Collects an arm's [`ArmInfo`].
struct ArmScan {
    /// What was found.
    info: ArmInfo,
    /// Depth of loops the visitor is inside.
    loops: u32,
}

impl<'ast> Visit<'ast> for ArmScan {
    fn visit_expr_continue(&mut self, c: &'ast syn::ExprContinue) {
        self.info.leaves_loop = true;
        syn::visit::visit_expr_continue(self, c);
    }
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        self.info.returns = true;
        syn::visit::visit_expr_return(self, r);
    }
    fn visit_expr_try(&mut self, t: &'ast syn::ExprTry) {
        self.info.returns = true;
        syn::visit::visit_expr_try(self, t);
    }
    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        self.info.leaves_loop = true;
        match &b.label {
            Some(l) => self.info.labels.push(l.ident.to_string()),
            None if self.loops == 0 => self.info.unlabeled_break = true,
            None => {}
        }
        syn::visit::visit_expr_break(self, b);
    }
    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        self.loops += 1;
        syn::visit::visit_expr_for_loop(self, e);
        self.loops -= 1;
    }
    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.loops += 1;
        syn::visit::visit_expr_while(self, e);
        self.loops -= 1;
    }
    fn visit_expr_loop(&mut self, e: &'ast syn::ExprLoop) {
        self.loops += 1;
        syn::visit::visit_expr_loop(self, e);
        self.loops -= 1;
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_expr_method_call(&mut self, m: &'ast ExprMethodCall) {
        if SIGNALS.contains(&m.method.to_string().as_str())
            && let Expr::Path(p) = &*m.receiver
            && let Some(id) = p.path.get_ident()
        {
            let site = format!("`{id}.{}` (line {})", m.method, Loc::of(m).line());
            self.info.signals.push((id.to_string(), site));
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        for arg in &c.args {
            let arg = match arg {
                Expr::Reference(r) => &*r.expr,
                other => other,
            };
            if let Expr::Path(p) = arg
                && let Some(id) = p.path.get_ident()
            {
                let site = format!("`{}(..)` (line {})", c.func.to_token_stream(), Loc::of(c).line());
                self.info.signals.push((id.to_string(), site.replace(' ', "")));
            }
        }
        syn::visit::visit_expr_call(self, c);
    }
}

/// Endpoint methods other roles wait for.
const SIGNALS: [&str; 7] = [
    "commit",
    "release",
    "release_on_mma_completion",
    "arrive",
    "arrive_expect_tx",
    "arrive_on_mma_completion",
    "sync",
];

/// Context methods that issue asynchronous or barrier-completing operations.
const CTX_OPS: [&str; 8] = ["tma_load", "tma_store", "store_wait", "wgmma", "wgmma_rs", "mma_wait", "umma", "umma_ts"];

/// Names the identifiers a closure or unparsed macro mentions.
struct Mentions {
    /// Identifiers mentioned.
    idents: HashSet<String>,
    /// Whether context operations may be called.
    ctx_ops: bool,
}

impl<'ast> Visit<'ast> for Mentions {
    fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
        self.idents.insert(i.to_string());
    }
    fn visit_expr_method_call(&mut self, m: &'ast ExprMethodCall) {
        self.ctx_ops |= CTX_OPS.contains(&m.method.to_string().as_str());
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        for t in m.tokens.clone() {
            if let proc_macro2::TokenTree::Ident(i) = t {
                self.idents.insert(i.to_string());
            }
        }
    }
}

/// Runs one role instance.
pub struct Run<'r, 'a> {
    /// What the runs share.
    an: &'r Analysis<'a>,
    /// The scenario.
    scen: &'r Scenario,
    /// The role.
    role: usize,
    /// The instance.
    instance: i128,
    /// Variables: a stack of frames (one per inlined call), each a stack of scopes.
    frames: Vec<Vec<Vec<(String, Val)>>>,
    /// Every token taken.
    tokens: Vec<Token>,
    /// Tokens not yet handed over.
    live: Vec<usize>,
    /// `wgmma` groups in issue order.
    mmas: Vec<Async>,
    /// The last `mma_wait`: site and groups left in flight.
    last_mma_wait: Option<(usize, i128)>,
    /// TMA stores in issue order.
    stores: Vec<Async>,
    /// Single-thread MMAs in issue order.
    ummas: Vec<Async>,
    /// Ring positions by endpoint.
    pipes: HashMap<usize, PipeState>,
    /// Loops being run, outermost first.
    loops: Vec<LoopFrame<'a>>,
    /// The value undecided conditions take while a loop's exit condition is evaluated.
    forced: Option<bool>,
    /// Depth of inlined calls.
    depth: u32,
    /// The bodies of the role and of the functions inlined into it, innermost last.
    bodies: Vec<&'a Block>,
    /// Steps taken.
    steps: u32,
    /// Performances of each site so far.
    visits: HashMap<usize, u32>,
    /// The trace being recorded.
    trace: Trace,
}

impl<'r, 'a> Run<'r, 'a> {
    /// A run of instance `instance` of role `role` in scenario `scen`.
    pub fn new(an: &'r Analysis<'a>, scen: &'r Scenario, role: usize, instance: usize) -> Self {
        Self {
            an,
            scen,
            role,
            instance: i128::try_from(instance).unwrap_or(0),
            frames: Vec::new(),
            tokens: Vec::new(),
            live: Vec::new(),
            mmas: Vec::new(),
            last_mma_wait: None,
            stores: Vec::new(),
            ummas: Vec::new(),
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
                events: Vec::new(),
                exit: None,
                decisions: Vec::new(),
                aborted: None,
                discovered: Vec::new(),
                raw_tx: Vec::new(),
                expects: Vec::new(),
                sized: false,
            },
        }
    }

    /// Runs the role's body and returns its trace.
    pub fn execute(mut self) -> Trace {
        let model = self.an.model;
        let Some(decl) = model.kernel.roles.get(self.role) else {
            self.trace.aborted = Some("the role has no declaration");
            return self.trace;
        };
        let func: &'a ItemFn = &decl.func;
        let endpoints = model.roles.get(self.role).map_or(0, |r| r.endpoints.len());
        self.frames.push(vec![Vec::new()]);
        for (i, input) in func.sig.inputs.iter().enumerate() {
            let syn::FnArg::Typed(pt) = input else { continue };
            let value = match i.checked_sub(1) {
                None => Val::Ctx,
                Some(ep) if ep < endpoints => match self.an.table.end(model, self.role, ep) {
                    Some(End::Buffer(f)) => Val::Buffer(f),
                    Some(_) => Val::Endpoint(ep),
                    None => Val::Unknown,
                },
                Some(_) => Val::Unknown,
            };
            self.bind(&pt.pat, value);
        }
        let end = Loc::span(func.block.brace_token.span.close());
        self.bodies.push(&func.block);
        match self.block(&func.block) {
            Flow::Return(_, at) => self.trace.exit = Some(Loc::of(at)),
            Flow::Abort => {
                self.trace.aborted.get_or_insert("the run went past its step or loop budget");
            }
            _ => {}
        }
        self.frames.pop();
        self.check_leaks(&Val::Unknown, &end, "when the role ends");
        self.trace
    }

    // ---- bookkeeping ----

    /// Counts a step; false once this run's or the kernel's budget is spent.
    fn tick(&mut self) -> bool {
        self.steps += 1;
        self.steps <= RUN_STEPS && self.an.spend(1)
    }

    /// Marks the trace partial: the run cannot be followed further for the simulation.
    fn abort(&mut self, why: &'static str) {
        self.trace.aborted.get_or_insert(why);
    }

    /// Opens a scope.
    fn push_scope(&mut self) {
        if let Some(frame) = self.frames.last_mut() {
            frame.push(Vec::new());
        }
    }

    /// Closes a scope; tokens it dropped (other than `keep`) are reported at `at`.
    fn pop_scope(&mut self, keep: &Val, at: &dyn ToTokens, why: &str) {
        if let Some(frame) = self.frames.last_mut() {
            frame.pop();
        }
        self.check_leaks(keep, at, why);
    }

    /// Binds `name` in the innermost scope.
    fn define(&mut self, name: String, value: Val) {
        if let Some(scope) = self.frames.last_mut().and_then(|f| f.last_mut()) {
            scope.push((name, value));
        }
    }

    /// The value of variable `name`.
    fn lookup(&self, name: &str) -> Option<&Val> {
        let frame = self.frames.last()?;
        frame.iter().rev().find_map(|scope| scope.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v))
    }

    /// Assigns variable `name`.
    fn set(&mut self, name: &str, value: Val) {
        let Some(frame) = self.frames.last_mut() else { return };
        for scope in frame.iter_mut().rev() {
            if let Some(slot) = scope.iter_mut().rev().find(|(n, _)| n == name) {
                slot.1 = value;
                return;
            }
        }
    }

    /// The site of an operation's method call.
    fn site(&self, call: &ExprMethodCall) -> usize {
        self.an.sites.borrow_mut().id(call)
    }

    /// The span of site `site`.
    fn site_loc(&self, site: usize) -> Loc {
        self.an.sites.borrow().loc(site).unwrap_or_else(|| Loc::span(proc_macro2::Span::call_site()))
    }

    /// How site `site` reads in messages.
    fn cite(&self, site: usize) -> String {
        self.an.sites.borrow().cite(site)
    }

    /// How this instance reads in messages.
    fn who(&self) -> String {
        who(self.an.model, self.role, usize::try_from(self.instance).unwrap_or(0))
    }

    /// Records an operation of the trace.
    fn event(&mut self, kind: EventKind, site: usize) {
        let visit = self.visits.entry(site).or_insert(0);
        let event = Event { kind, site, visit: *visit };
        *visit += 1;
        self.trace.events.push(event);
    }

    /// Records a finding of this role's own code.
    fn finding(&self, key: String, loc: Loc, message: String, bars: &[usize]) {
        self.an.findings.borrow_mut().local(key, loc, message, bars);
    }

    /// A value as an integer, if it can be one: atoms are sizes.
    fn lin(&self, v: &Val) -> Option<Lin> {
        match v {
            Val::Int(x) => Some(Lin::exact(*x)),
            Val::Sym(l) => Some(l.clone()),
            Val::Atom(k) => Some(Lin::size(k.clone())),
            Val::Unknown => Some(Lin::size("?".into())),
            _ => None,
        }
    }

    /// The integer a value stands for in this scenario, and whether the text decides it.
    fn num(&self, v: &Val) -> Option<(i128, bool)> {
        let l = self.lin(v)?;
        Some((l.value(self.scen.v)?, l.exact))
    }

    // ---- tokens ----

    /// Reports tokens no variable (and not `keep`) holds any more: dropped at `at`.
    fn check_leaks(&mut self, keep: &Val, at: &dyn ToTokens, why: &str) {
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
        let at = Loc::of(at);
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

    /// A value moves somewhere the checker cannot follow.
    fn escape(&mut self, v: &Val, by_value: bool) {
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
    fn block(&mut self, b: &'a Block) -> Flow<'a> {
        self.push_scope();
        let mut last = Val::Unknown;
        let count = b.stmts.len();
        for (i, stmt) in b.stmts.iter().enumerate() {
            let made = self.tokens.len();
            let flow = match stmt {
                Stmt::Local(l) => self.local(l),
                Stmt::Expr(e, semi) => {
                    let flow = self.eval(e);
                    if let (Flow::Val(v), None, true) = (&flow, semi, i + 1 == count) {
                        last = v.clone();
                    }
                    flow
                }
                Stmt::Macro(m) => self.mac(&m.mac),
                Stmt::Item(_) => Flow::Val(Val::Unknown),
            };
            match flow {
                Flow::Val(_) => {
                    // A statement can only drop a token it made (assignments and `drop`
                    // check their own).
                    if i + 1 < count && self.tokens.len() > made {
                        self.check_leaks(&Val::Unknown, stmt, "in this statement");
                    }
                }
                Flow::Break(l, v, at) => {
                    self.pop_scope(&v, at, "at this `break`");
                    return Flow::Break(l, v, at);
                }
                Flow::Continue(l, at) => {
                    self.pop_scope(&Val::Unknown, at, "at this `continue`");
                    return Flow::Continue(l, at);
                }
                Flow::Return(v, at) => {
                    self.pop_scope(&v, at, "at this `return`");
                    return Flow::Return(v, at);
                }
                Flow::Abort => return Flow::Abort,
            }
        }
        let end = Loc::span(b.brace_token.span.close());
        self.pop_scope(&last, &end, "at the end of this block");
        Flow::Val(last)
    }

    /// Runs a `let` statement.
    fn local(&mut self, l: &'a syn::Local) -> Flow<'a> {
        let Some(init) = &l.init else {
            self.bind(&l.pat, Val::Unknown);
            return Flow::Val(Val::Unknown);
        };
        let value = val!(self, &init.expr);
        if let Some((_, diverge)) = &init.diverge {
            let key = format!("let {} = {}", l.pat.to_token_stream(), init.expr.to_token_stream());
            let arms = [Arm::Empty, Arm::Expr(diverge)];
            if self.choose(key, l, &arms, ChoiceKind::LetElse) == 1 {
                let flow = self.eval(diverge);
                if !matches!(flow, Flow::Val(_)) {
                    return flow;
                }
            }
        }
        let dropped = matches!(l.pat, Pat::Wild(_));
        self.bind(&l.pat, value);
        if dropped {
            self.check_leaks(&Val::Unknown, l, "by binding it to `_`");
        }
        Flow::Val(Val::Unknown)
    }

    /// Binds the names of `pat` to the parts of `value`.
    fn bind(&mut self, pat: &Pat, value: Val) {
        match pat {
            Pat::Ident(p) => {
                if let Some((_, sub)) = &p.subpat {
                    self.bind(sub, value.clone());
                }
                self.define(p.ident.to_string(), value);
            }
            Pat::Tuple(t) => {
                for (i, elem) in t.elems.iter().enumerate() {
                    self.bind(elem, part(&value, i));
                }
            }
            Pat::Slice(s) => {
                for (i, elem) in s.elems.iter().enumerate() {
                    self.bind(elem, part(&value, i));
                }
            }
            Pat::TupleStruct(t) => {
                for elem in &t.elems {
                    self.bind(elem, Val::Unknown);
                }
            }
            Pat::Struct(s) => {
                for field in &s.fields {
                    self.bind(&field.pat, Val::Unknown);
                }
            }
            Pat::Type(t) => self.bind(&t.pat, value),
            Pat::Reference(r) => self.bind(&r.pat, value),
            Pat::Paren(p) => self.bind(&p.pat, value),
            Pat::Or(o) => {
                if let Some(first) = o.cases.first() {
                    self.bind(first, value);
                }
            }
            _ => {}
        }
    }

    // ---- expressions ----

    /// Evaluates an expression.
    fn eval(&mut self, e: &'a Expr) -> Flow<'a> {
        if !self.tick() {
            return Flow::Abort;
        }
        match e {
            Expr::Lit(l) => Flow::Val(match &l.lit {
                Lit::Int(i) => i.base10_parse::<i128>().map_or(Val::Unknown, Val::Int),
                Lit::Bool(b) => Val::Bool(b.value),
                _ => Val::Unknown,
            }),
            Expr::Path(p) => Flow::Val(self.path(p)),
            Expr::Paren(p) => self.eval(&p.expr),
            Expr::Group(g) => self.eval(&g.expr),
            Expr::Reference(r) => self.eval(&r.expr),
            Expr::Await(a) => self.eval(&a.base),
            Expr::Cast(c) => {
                let v = val!(self, &c.expr);
                Flow::Val(match v {
                    Val::Bool(b) => Val::Int(i128::from(b)),
                    other => other,
                })
            }
            Expr::Unary(u) => {
                let v = val!(self, &u.expr);
                Flow::Val(match (u.op, v) {
                    (UnOp::Not(_), Val::Bool(b)) => Val::Bool(!b),
                    (UnOp::Not(_), Val::Int(x)) => Val::Int(!x),
                    (UnOp::Neg(_), Val::Int(x)) => x.checked_neg().map_or(Val::Unknown, Val::Int),
                    (UnOp::Neg(_), Val::Sym(x)) => self.arith(Op::Sub, &Val::Int(0), &Val::Sym(x)),
                    (UnOp::Deref(_), v) => v,
                    (_, Val::Atom(k)) => Val::Atom(format!("{}{k}", u.op.to_token_stream()).into()),
                    _ => Val::Unknown,
                })
            }
            Expr::Binary(b) => self.binary(b),
            Expr::Assign(a) => {
                let v = val!(self, &a.right);
                match &*a.left {
                    Expr::Path(p) if p.path.get_ident().is_some() => {
                        let name = p.path.to_token_stream().to_string();
                        self.set(&name, v);
                        self.check_leaks(&Val::Unknown, a, "when it is overwritten here");
                    }
                    other => {
                        let _ = val!(self, other);
                        self.escape(&v, true);
                    }
                }
                Flow::Val(Val::Unknown)
            }
            Expr::Block(b) => {
                let label = b.label.as_ref().map(|l| l.name.ident.to_string());
                match self.block(&b.block) {
                    Flow::Break(Some(l), v, _) if Some(&l) == label.as_ref() => Flow::Val(v),
                    other => other,
                }
            }
            Expr::Unsafe(u) => self.block(&u.block),
            Expr::Const(c) => self.block(&c.block),
            Expr::If(i) => self.if_expr(i),
            Expr::Match(m) => self.match_expr(m),
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::While(w) => self.while_loop(w),
            Expr::Loop(l) => self.loop_expr(l),
            Expr::Break(b) => {
                let v = match &b.expr {
                    Some(e) => val!(self, e),
                    None => Val::Unknown,
                };
                Flow::Break(b.label.as_ref().map(|l| l.ident.to_string()), v, b)
            }
            Expr::Continue(c) => Flow::Continue(c.label.as_ref().map(|l| l.ident.to_string()), c),
            Expr::Return(r) => {
                let v = match &r.expr {
                    Some(e) => val!(self, e),
                    None => Val::Unknown,
                };
                Flow::Return(v, r)
            }
            Expr::Try(t) => {
                let _ = val!(self, &t.expr);
                let key = format!("{}?", t.expr.to_token_stream());
                if self.choose(key, t, &[Arm::Empty, Arm::Empty], ChoiceKind::Try) == 1 {
                    return Flow::Return(Val::Unknown, t);
                }
                Flow::Val(Val::Unknown)
            }
            Expr::MethodCall(m) => self.method(m),
            Expr::Call(c) => self.call(c),
            Expr::Macro(m) => self.mac(&m.mac),
            Expr::Closure(_) | Expr::Async(_) => {
                self.opaque(e);
                Flow::Val(Val::Unknown)
            }
            Expr::Tuple(t) => {
                let mut vs = Vec::new();
                for e in &t.elems {
                    vs.push(val!(self, e));
                }
                Flow::Val(Val::Tuple(vs))
            }
            Expr::Array(a) => {
                let mut vs = Vec::new();
                for e in &a.elems {
                    vs.push(val!(self, e));
                }
                Flow::Val(Val::Tuple(vs))
            }
            Expr::Repeat(r) => {
                let v = val!(self, &r.expr);
                self.escape(&v, true);
                Flow::Val(Val::Unknown)
            }
            Expr::Struct(s) => {
                for f in &s.fields {
                    let v = val!(self, &f.expr);
                    self.escape(&v, matches!(f.expr, Expr::Path(_)));
                }
                if let Some(rest) = &s.rest {
                    let _ = val!(self, rest);
                }
                Flow::Val(Val::Unknown)
            }
            Expr::Field(f) => {
                let base = val!(self, &f.base);
                Flow::Val(match (base, &f.member) {
                    (Val::Atom(k), member) => Val::Atom(format!("{k}.{}", member.to_token_stream()).into()),
                    (Val::Tuple(vs), syn::Member::Unnamed(i)) => {
                        vs.get(i.index as usize).cloned().unwrap_or(Val::Unknown)
                    }
                    _ => Val::Unknown,
                })
            }
            Expr::Index(i) => {
                let base = val!(self, &i.expr);
                let index = val!(self, &i.index);
                Flow::Val(match (base, index) {
                    (Val::Buffer(f), _) => Val::Buffer(f),
                    (Val::Atom(k), Val::Int(x)) => Val::Atom(format!("{k}[{x}]").into()),
                    (Val::Atom(k), _) => Val::Atom(format!("{k}[_]").into()),
                    (Val::Tuple(vs), Val::Int(x)) => {
                        usize::try_from(x).ok().and_then(|x| vs.get(x).cloned()).unwrap_or(Val::Unknown)
                    }
                    _ => Val::Unknown,
                })
            }
            Expr::Range(r) => {
                let start = match &r.start {
                    Some(e) => val!(self, e),
                    None => Val::Int(0),
                };
                let end = match &r.end {
                    Some(e) => val!(self, e),
                    None => return Flow::Val(Val::Unknown),
                };
                let (Some((s, es)), Some((mut e, ee))) = (self.num(&start), self.num(&end)) else {
                    return Flow::Val(Val::Unknown);
                };
                if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                    e = e.saturating_add(1);
                }
                let sized = !(es && ee);
                Flow::Val(Val::Range(Range { start: s, end: e, step: 1, rev: false, enumerate: false, sized }))
            }
            Expr::Let(l) => {
                let v = val!(self, &l.expr);
                let key = format!("let {} = {}", l.pat.to_token_stream(), l.expr.to_token_stream());
                self.bind(&l.pat, Val::Unknown);
                let _ = v;
                Flow::Val(Val::Atom(key.into()))
            }
            other => {
                self.opaque(other);
                Flow::Val(Val::Unknown)
            }
        }
    }

    /// The value of a path: a variable, a module constant, or an atom named by the path.
    fn path(&self, p: &syn::ExprPath) -> Val {
        if let Some(id) = p.path.get_ident() {
            let name = id.to_string();
            if let Some(v) = self.lookup(&name) {
                return v.clone();
            }
            if let Some(c) = self.an.model.consts.value(&name) {
                return Val::Int(c);
            }
            return Val::Atom(name.into());
        }
        Val::Atom(p.path.to_token_stream().to_string().replace(' ', "").into())
    }

    /// Evaluates a binary expression (arithmetic, comparison, logic, compound assignment).
    fn binary(&mut self, b: &'a syn::ExprBinary) -> Flow<'a> {
        let assign = match b.op {
            BinOp::AddAssign(_) => Some(Op::Add),
            BinOp::SubAssign(_) => Some(Op::Sub),
            BinOp::MulAssign(_) => Some(Op::Mul),
            BinOp::DivAssign(_) => Some(Op::Div),
            BinOp::RemAssign(_) => Some(Op::Rem),
            BinOp::BitXorAssign(_) => Some(Op::Xor),
            BinOp::BitAndAssign(_) => Some(Op::And),
            BinOp::BitOrAssign(_) => Some(Op::Or),
            BinOp::ShlAssign(_) => Some(Op::Shl),
            BinOp::ShrAssign(_) => Some(Op::Shr),
            _ => None,
        };
        if let Some(op) = assign {
            let r = val!(self, &b.right);
            let l = val!(self, &b.left);
            let v = self.arith(op, &l, &r);
            if let Expr::Path(p) = &*b.left
                && let Some(id) = p.path.get_ident()
            {
                self.set(&id.to_string(), v);
            }
            return Flow::Val(Val::Unknown);
        }
        if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) {
            let and = matches!(b.op, BinOp::And(_));
            let l = val!(self, &b.left);
            let lt = self.truth(&l, &b.left, &[]);
            if lt != and {
                return Flow::Val(Val::Bool(lt));
            }
            let r = val!(self, &b.right);
            let rt = self.truth(&r, &b.right, &[]);
            return Flow::Val(Val::Bool(rt));
        }
        let l = val!(self, &b.left);
        let r = val!(self, &b.right);
        let op = match b.op {
            BinOp::Add(_) => Op::Add,
            BinOp::Sub(_) => Op::Sub,
            BinOp::Mul(_) => Op::Mul,
            BinOp::Div(_) => Op::Div,
            BinOp::Rem(_) => Op::Rem,
            BinOp::BitXor(_) => Op::Xor,
            BinOp::BitAnd(_) => Op::And,
            BinOp::BitOr(_) => Op::Or,
            BinOp::Shl(_) => Op::Shl,
            BinOp::Shr(_) => Op::Shr,
            BinOp::Eq(_) => Op::Eq,
            BinOp::Ne(_) => Op::Ne,
            BinOp::Lt(_) => Op::Lt,
            BinOp::Le(_) => Op::Le,
            BinOp::Gt(_) => Op::Gt,
            BinOp::Ge(_) => Op::Ge,
            _ => return Flow::Val(Val::Unknown),
        };
        Flow::Val(self.arith(op, &l, &r))
    }

    /// Applies an operator to two values.
    fn arith(&self, op: Op, l: &Val, r: &Val) -> Val {
        if let (Val::Bool(a), Val::Bool(b)) = (l, r) {
            return match op {
                Op::Eq => Val::Bool(a == b),
                Op::Ne | Op::Xor => Val::Bool(a != b),
                Op::And => Val::Bool(*a && *b),
                Op::Or => Val::Bool(*a || *b),
                _ => Val::Unknown,
            };
        }
        let (Some(a), Some(b)) = (self.lin(l), self.lin(r)) else { return Val::Unknown };
        match a.apply(op, &b, self.scen.v) {
            Some(Out::Int(x)) => int(x),
            Some(Out::Bool(b)) => Val::Bool(b),
            None => Val::Unknown,
        }
    }

    // ---- conditions ----

    /// The truth of a condition: decided by the text, by the loop-exit rule, or by the
    /// scenario. `arms` are the false and true arms (empty for a bare operand).
    fn truth(&mut self, v: &Val, expr: &'a Expr, arms: &[Arm<'a>]) -> bool {
        if let Val::Bool(b) = v {
            return *b;
        }
        if let Some(forced) = self.forced {
            return forced;
        }
        let key = match v {
            Val::Atom(k) => k.to_string(),
            _ => expr.to_token_stream().to_string(),
        };
        self.choose(key, expr, arms, ChoiceKind::Bool) == 1
    }

    /// Picks an arm of an undecided condition.
    fn choose(&mut self, key: String, at: At<'a>, arms: &[Arm<'a>], kind: ChoiceKind) -> usize {
        let domain = arms.len().max(2);
        for (i, arm) in arms.iter().enumerate() {
            if let Some(frame) = self.breaks_out(*arm) {
                let iteration = self.loops.get(frame).map_or(0, |f| f.iteration);
                if iteration >= self.scen.v {
                    return i;
                }
                return (0..domain).find(|&j| j != i).unwrap_or(0);
            }
        }
        let choice = match self.scen.choices.get(&key) {
            Some(&c) => c.min(domain - 1),
            None => {
                if !self.trace.discovered.iter().any(|(k, _)| *k == key) {
                    self.trace.discovered.push((key.clone(), domain));
                }
                0
            }
        };
        if self.trace.decisions.len() < MAX_DECISIONS {
            let mut skipped: Vec<(Signal, String)> =
                arms.iter().enumerate().filter(|(i, _)| *i != choice).flat_map(|(_, arm)| self.signals(*arm)).collect();
            // An arm taken that leaves the loop or the function skips what follows there.
            let mut exits = false;
            if let Some(arm) = arms.get(choice) {
                let taken = self.arm_info(*arm);
                let rest = if taken.returns || (matches!(kind, ChoiceKind::Try) && choice == 1) {
                    self.bodies.last().copied()
                } else if taken.leaves_loop {
                    self.loops.last().map(|f| f.body)
                } else {
                    None
                };
                if let Some(rest) = rest {
                    skipped.extend(self.signals(Arm::Block(rest)));
                    exits = true;
                } else {
                    // What the taken arm signals too was not skipped.
                    let done: Vec<Signal> = self.signals(*arm).into_iter().map(|(s, _)| s).collect();
                    skipped.retain(|(s, _)| !done.contains(s));
                }
            }
            if !skipped.is_empty() {
                let what = kind.describe(&key, choice);
                self.trace.decisions.push(Decision { loc: Loc::of(at), what, skipped, exits });
            }
        }
        choice
    }

    /// What an arm contains (scanned once).
    fn arm_info(&self, arm: Arm<'a>) -> Rc<ArmInfo> {
        let key = arm.key();
        if let Some(info) = self.an.arms.borrow().get(&key) {
            return info.clone();
        }
        let mut scan = ArmScan { info: ArmInfo::default(), loops: 0 };
        match arm {
            Arm::Block(b) => scan.visit_block(b),
            Arm::Expr(e) => scan.visit_expr(e),
            Arm::Empty => {}
        }
        let info = Rc::new(scan.info);
        self.an.arms.borrow_mut().insert(key, info.clone());
        info
    }

    /// The open loop (`loop`, `while`) an arm's `break` leaves, if it has one: such a
    /// condition decides the loop's trip count.
    fn breaks_out(&self, arm: Arm<'a>) -> Option<usize> {
        if matches!(arm, Arm::Empty) || self.loops.is_empty() {
            return None;
        }
        let info = self.arm_info(arm);
        let frame = if info.unlabeled_break {
            self.loops.len().checked_sub(1)
        } else {
            info.labels.iter().find_map(|l| self.loops.iter().rposition(|f| f.label.as_deref() == Some(l.as_str())))
        }?;
        self.loops.get(frame).filter(|f| f.open).map(|_| frame)
    }

    /// What an arm would signal, by the endpoints its receivers name here.
    fn signals(&self, arm: Arm<'a>) -> Vec<(Signal, String)> {
        let info = self.arm_info(arm);
        info.signals
            .iter()
            .filter_map(|(name, site)| {
                let Some(Val::Endpoint(ep)) = self.lookup(name) else { return None };
                let signal = match self.an.table.end(self.an.model, self.role, *ep)? {
                    End::Producer(p) => Signal::Bar(self.an.table.pipes.get(p)?.full),
                    End::Consumer(p) => Signal::Bar(self.an.table.pipes.get(p)?.empty),
                    End::Arriver(b) => Signal::Bar(b),
                    End::Named(n) => Signal::Named(n),
                    End::Waiter(_) | End::Buffer(_) => return None,
                };
                Some((signal, site.clone()))
            })
            .collect()
    }

    /// Runs an `if`.
    fn if_expr(&mut self, i: &'a syn::ExprIf) -> Flow<'a> {
        let else_arm = match &i.else_branch {
            Some((_, e)) => Arm::Expr(e),
            None => Arm::Empty,
        };
        let arms = [else_arm, Arm::Block(&i.then_branch)];
        // A condition that leaves a loop holds once the loop has made `v` iterations.
        let exit = arms.iter().enumerate().find_map(|(taken, arm)| {
            let frame = self.breaks_out(*arm)?;
            self.trace.sized = true;
            let done = self.loops.get(frame).is_some_and(|f| f.iteration >= self.scen.v);
            Some(if taken == 1 { done } else { !done })
        });
        self.push_scope();
        let forced = exit.or(self.forced);
        let outer = std::mem::replace(&mut self.forced, forced);
        let cond = self.eval(&i.cond);
        self.forced = outer;
        let cond = match cond {
            Flow::Val(v) => v,
            other => {
                self.pop_scope(&Val::Unknown, &i.cond, "in this condition");
                return other;
            }
        };
        let taken = match exit {
            Some(t) if !matches!(cond, Val::Bool(_)) => t,
            _ => self.truth(&cond, &i.cond, &arms),
        };
        let flow = if taken {
            self.block(&i.then_branch)
        } else if let Some((_, e)) = &i.else_branch {
            self.eval(e)
        } else {
            Flow::Val(Val::Unknown)
        };
        self.pop_flow_scope(flow, &i.cond)
    }

    /// Pops the scope of a construct that binds names (a condition's `let`, a match arm),
    /// keeping what its flow carries out.
    fn pop_flow_scope(&mut self, flow: Flow<'a>, at: At<'a>) -> Flow<'a> {
        let keep = match &flow {
            Flow::Val(v) | Flow::Break(_, v, _) | Flow::Return(v, _) => v.clone(),
            _ => Val::Unknown,
        };
        self.pop_scope(&keep, at, "at the end of this `if let` or `match` arm");
        flow
    }

    /// Runs a `match`.
    fn match_expr(&mut self, m: &'a syn::ExprMatch) -> Flow<'a> {
        let scrutinee = val!(self, &m.expr);
        let mut chosen = None;
        let mut decided = true;
        for (i, arm) in m.arms.iter().enumerate() {
            match pattern_matches(&arm.pat, &scrutinee) {
                Some(true) if arm.guard.is_none() => {
                    chosen = Some(i);
                    break;
                }
                Some(false) => continue,
                _ => {
                    decided = false;
                    break;
                }
            }
        }
        let index = match (chosen, decided) {
            (Some(i), _) => i,
            (None, true) => return Flow::Val(Val::Unknown),
            (None, false) => {
                let key = match &scrutinee {
                    Val::Atom(k) => k.to_string(),
                    _ => m.expr.to_token_stream().to_string(),
                };
                let arms: Vec<Arm<'a>> = m.arms.iter().map(|a| Arm::Expr(&a.body)).collect();
                self.choose(key, &m.expr, &arms, ChoiceKind::Match)
            }
        };
        let Some(arm) = m.arms.get(index) else { return Flow::Val(Val::Unknown) };
        self.push_scope();
        self.bind(&arm.pat, scrutinee);
        let flow = self.eval(&arm.body);
        self.pop_flow_scope(flow, &arm.pat)
    }

    /// Runs a `for` loop.
    fn for_loop(&mut self, f: &'a syn::ExprForLoop) -> Flow<'a> {
        let iter = val!(self, &f.expr);
        self.trace.sized |= matches!(&iter, Val::Range(r) if r.sized) || !matches!(iter, Val::Range(_) | Val::Tuple(_));
        let (count, items) = match iter {
            Val::Range(r) => (r.len(), Items::Range(r)),
            Val::Tuple(vs) => (i128::try_from(vs.len()).unwrap_or(0), Items::List(vs)),
            _ => (self.scen.v, Items::Unknown),
        };
        if count > MAX_ITERATIONS {
            return Flow::Abort;
        }
        let label = f.label.as_ref().map(|l| l.name.ident.to_string());
        self.loops.push(LoopFrame { label: label.clone(), iteration: 0, open: false, body: &f.body });
        let mut result = Flow::Val(Val::Unknown);
        for i in 0..count {
            if let Some(frame) = self.loops.last_mut() {
                frame.iteration = i;
            }
            let item = match &items {
                Items::Range(r) => r.nth(i),
                Items::List(vs) => usize::try_from(i).ok().and_then(|i| vs.get(i).cloned()).unwrap_or(Val::Unknown),
                Items::Unknown => Val::Unknown,
            };
            self.push_scope();
            self.bind(&f.pat, item);
            let flow = self.block(&f.body);
            self.pop_scope(&Val::Unknown, &f.pat, "at the end of the loop");
            match flow {
                Flow::Val(_) => {}
                Flow::Continue(l, _) if targets(&l, &label) => {}
                Flow::Break(l, _, _) if targets(&l, &label) => break,
                other => {
                    result = other;
                    break;
                }
            }
        }
        self.loops.pop();
        result
    }

    /// Runs a `while` loop.
    fn while_loop(&mut self, w: &'a syn::ExprWhile) -> Flow<'a> {
        let label = w.label.as_ref().map(|l| l.name.ident.to_string());
        self.loops.push(LoopFrame { label: label.clone(), iteration: 0, open: true, body: &w.body });
        let mut iteration = 0;
        let result = loop {
            if iteration > MAX_ITERATIONS {
                break Flow::Abort;
            }
            if let Some(frame) = self.loops.last_mut() {
                frame.iteration = iteration;
            }
            self.push_scope();
            let outer = self.forced.replace(iteration < self.scen.v);
            let cond = self.eval(&w.cond);
            self.forced = outer;
            let cond = match cond {
                Flow::Val(v) => v,
                other => {
                    self.pop_scope(&Val::Unknown, &w.cond, "in this condition");
                    break other;
                }
            };
            let go = match cond {
                Val::Bool(b) => b,
                _ => {
                    self.trace.sized = true;
                    iteration < self.scen.v
                }
            };
            if !go {
                self.pop_scope(&Val::Unknown, &w.cond, "in this condition");
                break Flow::Val(Val::Unknown);
            }
            let flow = self.block(&w.body);
            self.pop_scope(&Val::Unknown, &w.cond, "at the end of the loop");
            match flow {
                Flow::Val(_) => {}
                Flow::Continue(l, _) if targets(&l, &label) => {}
                Flow::Break(l, _, _) if targets(&l, &label) => break Flow::Val(Val::Unknown),
                other => break other,
            }
            iteration += 1;
        };
        self.loops.pop();
        result
    }

    /// Runs a `loop`.
    fn loop_expr(&mut self, l: &'a syn::ExprLoop) -> Flow<'a> {
        let label = l.label.as_ref().map(|l| l.name.ident.to_string());
        self.loops.push(LoopFrame { label: label.clone(), iteration: 0, open: true, body: &l.body });
        let mut iteration = 0;
        let result = loop {
            if iteration > MAX_ITERATIONS {
                break Flow::Abort;
            }
            if let Some(frame) = self.loops.last_mut() {
                frame.iteration = iteration;
            }
            match self.block(&l.body) {
                Flow::Val(_) => {}
                Flow::Continue(lb, _) if targets(&lb, &label) => {}
                Flow::Break(lb, v, _) if targets(&lb, &label) => break Flow::Val(v),
                other => break other,
            }
            iteration += 1;
        };
        self.loops.pop();
        result
    }

    // ---- calls ----

    /// Evaluates arguments, noting which are moved (plain variables).
    fn args(&mut self, args: &'a Punctuated<Expr, syn::Token![,]>) -> Result<Vec<(Val, bool)>, Flow<'a>> {
        let mut out = Vec::new();
        for a in args {
            match self.eval(a) {
                Flow::Val(v) => out.push((v, matches!(a, Expr::Path(_)))),
                other => return Err(other),
            }
        }
        Ok(out)
    }

    /// Evaluates a function call: a module function runs inline.
    fn call(&mut self, c: &'a syn::ExprCall) -> Flow<'a> {
        let args = match self.args(&c.args) {
            Ok(a) => a,
            Err(flow) => return flow,
        };
        let name = match &*c.func {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
            _ => String::new(),
        };
        let single = matches!(&*c.func, Expr::Path(p) if p.path.get_ident().is_some());
        if name == "drop" {
            // `drop(token)`: the token is gone here.
            for a in &c.args {
                if let Expr::Path(p) = a
                    && let Some(id) = p.path.get_ident()
                {
                    self.set(&id.to_string(), Val::Unknown);
                }
            }
            self.check_leaks(&Val::Unknown, c, "by `drop`");
            return Flow::Val(Val::Unknown);
        }
        if single && let Some(f) = self.an.helpers.get(&name).copied() {
            if self.an.is_math(f) {
                // Register math with no operations and no value that steers control flow.
                for (v, by_value) in &args {
                    if matches!(v, Val::Token(_)) {
                        self.escape(v, *by_value);
                    }
                }
                return Flow::Val(Val::Unknown);
            }
            if self.depth >= MAX_DEPTH {
                for (v, by_value) in &args {
                    self.escape(v, *by_value);
                }
                return Flow::Val(Val::Unknown);
            }
            return self.inline(f, args);
        }
        if let (Some(a), Some(b), "min" | "max") =
            (args.first().and_then(|(v, _)| self.lin(v)), args.get(1).and_then(|(v, _)| self.lin(v)), name.as_str())
            && let Some(x) = a.method(&name, Some(&b), self.scen.v)
        {
            return Flow::Val(int(x));
        }
        for (v, by_value) in &args {
            self.escape(v, *by_value);
        }
        Flow::Val(Val::Atom(format!("{name}(..)").into()))
    }

    /// Runs module function `f` inline with `args`.
    fn inline(&mut self, f: &'a ItemFn, args: Vec<(Val, bool)>) -> Flow<'a> {
        self.depth += 1;
        self.frames.push(vec![Vec::new()]);
        for (input, (v, _)) in f.sig.inputs.iter().zip(args) {
            if let syn::FnArg::Typed(pt) = input {
                self.bind(&pt.pat, v);
            }
        }
        self.bodies.push(&f.block);
        let flow = self.block(&f.block);
        self.bodies.pop();
        let result = match flow {
            Flow::Val(v) | Flow::Return(v, _) => v,
            Flow::Abort => {
                self.frames.pop();
                self.depth -= 1;
                return Flow::Abort;
            }
            Flow::Break(..) | Flow::Continue(..) => Val::Unknown,
        };
        self.frames.pop();
        self.check_leaks(&result, &Loc::span(f.block.brace_token.span.close()), "when the function returns");
        self.depth -= 1;
        Flow::Val(result)
    }

    /// A macro call: formatting and assertions have no protocol effect; a macro that
    /// performs operations, or whose arguments are not expressions, cannot be followed.
    fn mac(&mut self, m: &'a syn::Macro) -> Flow<'a> {
        match m.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated) {
            Ok(exprs) if !exprs.iter().any(contains_ops) => {}
            Ok(_) => self.abort("a macro performs barrier operations"),
            Err(_) => {
                let mut mentions = Mentions { idents: HashSet::new(), ctx_ops: true };
                mentions.visit_macro(m);
                self.mentioned(&mentions);
            }
        }
        Flow::Val(Val::Unknown)
    }

    /// A closure, async block or other expression the checker does not run: whatever it
    /// captures escapes.
    fn opaque(&mut self, e: &'a Expr) {
        let mut mentions = Mentions { idents: HashSet::new(), ctx_ops: false };
        mentions.visit_expr(e);
        self.mentioned(&mentions);
    }

    /// Handles what a closure or unparsed macro mentions: endpoints and the context make the run partial, tokens escape.
    fn mentioned(&mut self, mentions: &Mentions) {
        for name in &mentions.idents {
            match self.lookup(name).cloned() {
                Some(Val::Endpoint(_)) => self.abort("a closure or macro captures an endpoint"),
                Some(Val::Ctx) if mentions.ctx_ops => self.abort("a closure or macro uses the context"),
                Some(v @ Val::Token(_)) => self.escape(&v, true),
                _ => {}
            }
        }
    }

    /// Evaluates a method call: operations of the context and of endpoints, tile views, integer methods.
    fn method(&mut self, call: &'a ExprMethodCall) -> Flow<'a> {
        let recv = val!(self, &call.receiver);
        let args = match self.args(&call.args) {
            Ok(a) => a,
            Err(flow) => return flow,
        };
        let name = call.method.to_string();
        // Arguments of methods the checker does not know may be kept by the receiver.
        let known = matches!(
            recv,
            Val::Ctx
                | Val::Endpoint(_)
                | Val::Token(_)
                | Val::Tile(..)
                | Val::Buffer(_)
                | Val::Range(_)
                | Val::Int(_)
                | Val::Sym(_)
        );
        if !known {
            for (arg, by_value) in &args {
                self.escape(arg, *by_value);
            }
        }
        let v = match recv {
            Val::Ctx => self.ctx_method(call, &name, &args),
            Val::Endpoint(ep) => self.endpoint_method(call, ep, &name, &args),
            Val::Token(t) => self.token_method(t, &name),
            Val::Tile(owner, shape) => tile_method(call, &self.an.model.consts, owner, shape, &name),
            Val::Buffer(f) => {
                let shape = self.buffer_shape(f);
                tile_method(call, &self.an.model.consts, Owner::Buffer(f), shape, &name)
            }
            Val::Range(r) => range_method(r, &name, args.first().and_then(|(v, _)| self.num(v))),
            Val::Int(_) | Val::Sym(_) | Val::Atom(_) | Val::Unknown => {
                let a = self.lin(&recv);
                let b = args.first().and_then(|(v, _)| self.lin(v));
                match (a.and_then(|a| a.method(&name, b.as_ref(), self.scen.v)), recv) {
                    (Some(x), _) => int(x),
                    (None, Val::Atom(k)) => Val::Atom(format!("{k}.{name}()").into()),
                    _ => Val::Unknown,
                }
            }
            _ => Val::Unknown,
        };
        Flow::Val(v)
    }

    /// Methods of a token: the slot's tiles and its stage.
    fn token_method(&self, t: usize, name: &str) -> Val {
        let Some(tok) = self.tokens.get(t) else { return Val::Unknown };
        if name == "stage" {
            return Val::Int(i128::try_from(tok.stage).unwrap_or(0));
        }
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
                Val::Tile(Owner::Token(t), shape)
            }
            None => Val::Unknown,
        }
    }

    /// The tile shape of unguarded buffer `f`.
    fn buffer_shape(&self, f: usize) -> Option<TileShape> {
        let model = self.an.model;
        model.fields.get(f).and_then(|f| model.unit_shape(&f.ty))
    }

    /// A value as a tile operand: its owner and shape.
    fn tile_of(&self, v: &Val) -> Option<(Owner, Option<TileShape>)> {
        match v {
            Val::Tile(o, s) => Some((*o, *s)),
            Val::Buffer(f) => Some((Owner::Buffer(*f), self.buffer_shape(*f))),
            _ => None,
        }
    }

    // ---- context operations ----

    /// The context's methods: `tma_load`, `tma_store`, `store_wait`, `wgmma`, `mma_wait`, `umma`, and values.
    fn ctx_method(&mut self, call: &ExprMethodCall, name: &str, args: &[(Val, bool)]) -> Val {
        let arg = |i: usize| args.get(i).map_or(Val::Unknown, |(v, _)| v.clone());
        match name {
            "instance" => Val::Int(self.instance),
            "threads" => {
                Val::Int(self.an.model.roles.get(self.role).map_or(32, |r| i128::from(r.warps_per_instance) * 32))
            }
            "args" | "block" | "grid" | "has_data" => Val::Atom(name.into()),
            "tma_load" => {
                self.tma_load(call, &arg(2), &arg(3));
                Val::Unknown
            }
            "tma_store" => {
                let site = self.site(call);
                let reads = self.tile_of(&arg(0)).map(|(o, _)| o).into_iter().collect();
                self.stores.push(Async { site, reads, done: false });
                Val::Store(self.stores.len() - 1)
            }
            "store_wait" => {
                let upto = match arg(0) {
                    Val::Store(s) => s,
                    _ => usize::MAX,
                };
                for (i, s) in self.stores.iter_mut().enumerate() {
                    if i <= upto {
                        s.done = true;
                    }
                }
                Val::Unknown
            }
            "wgmma" | "wgmma_rs" => {
                let site = self.site(call);
                self.check_warpgroup(site);
                let operands = if name == "wgmma" { vec![arg(1), arg(2)] } else { vec![arg(2)] };
                let reads = operands.iter().filter_map(|v| self.tile_of(v)).map(|(o, _)| o).collect();
                self.mmas.push(Async { site, reads, done: false });
                Val::Group(self.mmas.len() - 1)
            }
            "mma_wait" => {
                let site = self.site(call);
                // Only a count the text decides can leave groups in flight.
                let in_flight = match arg(1) {
                    Val::Int(k) => k.max(0),
                    _ => 0,
                };
                let keep = usize::try_from(in_flight).unwrap_or(usize::MAX);
                let complete = self.mmas.len().saturating_sub(keep);
                if let Val::Group(g) = arg(0)
                    && g >= complete
                {
                    let after = self.mmas.len().saturating_sub(g + 1);
                    let message = format!(
                        "{}'s `{}` does not wait for its group: only {after} `wgmma` group(s) were issued after it, and `wgmma.wait_group {in_flight}` leaves the newest {in_flight} in flight; pass at most {after}",
                        self.who(),
                        self.an.sites.borrow().get(site).map_or("mma_wait", |s| s.text.as_str()),
                    );
                    self.finding(format!("mma_wait:{site}"), Loc::of(call), message, &[]);
                }
                for m in self.mmas.iter_mut().take(complete) {
                    m.done = true;
                }
                self.last_mma_wait = Some((site, in_flight));
                Val::Unknown
            }
            "umma" | "umma_ts" => {
                let site = self.site(call);
                let operands = if name == "umma" { vec![arg(1), arg(2)] } else { vec![arg(2)] };
                let reads = operands.iter().filter_map(|v| self.tile_of(v)).map(|(o, _)| o).collect();
                self.ummas.push(Async { site, reads, done: false });
                Val::Unknown
            }
            _ => Val::Unknown,
        }
    }

    /// Reports `wgmma` in a role whose instances are single warps.
    fn check_warpgroup(&self, site: usize) {
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

    /// A TMA load of tile `dst` completing on `on`.
    fn tma_load(&mut self, call: &ExprMethodCall, dst: &Val, on: &Val) {
        let site = self.site(call);
        let loc = self.site_loc(site);
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

    /// A TMA load writes a tile of slot `dst` but completes on another barrier.
    fn wrong_barrier(&mut self, dst: usize, site: usize, loc: Loc, on: &str) {
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

    // ---- endpoint operations ----

    /// An endpoint's methods: `acquire`, `commit`, `wait`, `release`, `arrive`, `tx`, `sync`.
    fn endpoint_method(&mut self, call: &ExprMethodCall, ep: usize, name: &str, args: &[(Val, bool)]) -> Val {
        let Some(end) = self.an.table.end(self.an.model, self.role, ep) else { return Val::Unknown };
        let arg = |i: usize| args.get(i).map_or(Val::Unknown, |(v, _)| v.clone());
        match (end, name) {
            (End::Producer(p), "acquire") => self.take(call, ep, p, true),
            (End::Consumer(p), "wait") => self.take(call, ep, p, false),
            (End::Producer(p), "commit") => {
                self.hand_over(call, p, &arg(0), Handover::Commit);
                Val::Unknown
            }
            (End::Consumer(p), "release") => {
                self.hand_over(call, p, &arg(0), Handover::Release);
                Val::Unknown
            }
            (End::Consumer(p), "release_on_mma_completion") => {
                self.hand_over(call, p, &arg(0), Handover::OnMma);
                Val::Unknown
            }
            (End::Arriver(b), "arrive" | "arrive_expect_tx" | "arrive_on_mma_completion") => {
                let site = self.site(call);
                let Some(index) = self.index(b, &arg(0), site) else { return Val::Unknown };
                let tx = if name == "arrive_expect_tx" {
                    match self.num(&arg(1)) {
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
                if name != "arrive_on_mma_completion" {
                    self.check_raw_handback(b, index, site);
                }
                self.event(EventKind::Arrive { bar: b, index, tx }, site);
                Val::Unknown
            }
            (End::Arriver(b), "tx") => {
                let site = self.site(call);
                match self.index(b, &arg(0), site) {
                    Some(index) => Val::TxOn(b, index),
                    None => Val::Unknown,
                }
            }
            (End::Waiter(b), "wait") => {
                let site = self.site(call);
                let Some(index) = self.index(b, &arg(0), site) else { return Val::Unknown };
                match self.num(&arg(1)) {
                    Some((parity, _)) => {
                        self.event(EventKind::Wait { bar: b, index, parity: (parity & 1) as u8 }, site)
                    }
                    None => self.abort("a size or count the checker cannot evaluate"),
                }
                Val::Unknown
            }
            (End::Named(n), "sync") => {
                let site = self.site(call);
                self.event(EventKind::Sync { named: n }, site);
                Val::Unknown
            }
            (End::Named(n), "arrive") => {
                let site = self.site(call);
                self.event(EventKind::NamedArrive { named: n }, site);
                Val::Unknown
            }
            _ => {
                // Not an operation of this end (rustc reports it): what it takes is gone.
                for (v, by_value) in args {
                    self.escape(v, *by_value);
                }
                Val::Unknown
            }
        }
    }

    /// The stage index an operation on plain bar `b` uses, checked against its length.
    fn index(&mut self, b: usize, v: &Val, site: usize) -> Option<usize> {
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
            if exact && let Some(loc) = self.an.sites.borrow().loc(site) {
                let message = format!(
                    "{} uses index {i} of `{}`, which has {} barrier(s): out of range (declare `len = N` for an array of them)",
                    self.who(),
                    bar.name,
                    len.unwrap_or(0)
                );
                self.finding(format!("range:{site}:{i}"), loc, message, &[b]);
            }
            self.abort("a barrier index out of range");
            return None;
        }
        usize::try_from(i).ok()
    }

    /// The ring position of endpoint `ep` (a producer starts at parity 1, a consumer at 0).
    fn pipe_state(&mut self, ep: usize, p: usize, producer: bool) -> Option<PipeState> {
        if let Some(s) = self.pipes.get(&ep) {
            return Some(*s);
        }
        let stages = self.an.table.pipes.get(p)?.stages?;
        let state = PipeState { index: 0, phase: u8::from(producer), stages };
        self.pipes.insert(ep, state);
        Some(state)
    }

    /// `acquire` (producer) or `wait` (consumer): a wait, and a new token.
    fn take(&mut self, call: &ExprMethodCall, ep: usize, p: usize, producer: bool) -> Val {
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

    /// `commit`, `release` or `release_on_mma_completion` of a token.
    fn hand_over(&mut self, call: &ExprMethodCall, p: usize, token: &Val, how: Handover) {
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
            match (pipe.tx, tok.loaded) {
                (Some(expected), Some(loaded)) if expected != loaded => {
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
                        format!(
                            "the phase of `{}.full` waits for bytes that never come, and its consumers hang",
                            pipe.name
                        )
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
                _ => {}
            }
        }
        let bar = if how == Handover::Commit { pipe.full } else { pipe.empty };
        if let Some(tok) = self.tokens.get_mut(*t) {
            tok.state = TokState::Done;
        }
        self.live.retain(|x| x != t);
        self.event(EventKind::Arrive { bar, index: tok.stage, tx }, site);
    }

    /// Reports asynchronous operations still reading `owner` when it is handed over.
    fn check_pending(&self, owner: Owner, how: Handover, site: usize, loc: Loc, bars: &[usize]) {
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
                self.finding(format!("early:{site}:{}", m.site), loc, message, bars);
            }
            if let Some(m) = self.ummas.iter().find(reads) {
                let message = format!(
                    "{} {what} the slot (`{text}`) right after the `tcgen05.mma` {} that reads it was issued: a single-thread MMA completes asynchronously; hand the slot back when the MMA completes with `release_on_mma_completion`",
                    self.who(),
                    self.cite(m.site),
                );
                self.finding(format!("early-umma:{site}:{}", m.site), loc, message, bars);
            }
        }
        if let Some(s) = self.stores.iter().find(reads) {
            let message = format!(
                "{} {what} the slot (`{text}`) while the TMA store {} may still be reading it; wait for the store first (`cx.store_wait(store).await`)",
                self.who(),
                self.cite(s.site),
            );
            self.finding(format!("early-store:{site}:{}", s.site), loc, message, bars);
        }
    }

    /// An arrive on a plain barrier hands back the unguarded buffers its waiters use: no
    /// asynchronous operation of this instance may still read them.
    fn check_raw_handback(&self, bar: usize, index: usize, site: usize) {
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
                    Owner::Buffer(f) if shared.contains(f) => Some((a.site, what, *f)),
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
        self.finding(format!("handback:{site}:{async_site}"), loc, message, &[bar]);
    }
}

/// How a token is handed over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handover {
    /// `commit`.
    Commit,
    /// `release`.
    Release,
    /// `release_on_mma_completion`.
    OnMma,
}

/// What kind of condition a scenario decides, for messages.
#[derive(Clone, Copy)]
enum ChoiceKind {
    /// An `if` or `while` condition, or a `&&`/`||` operand.
    Bool,
    /// A `match` scrutinee.
    Match,
    /// A `?`.
    Try,
    /// A `let .. else`.
    LetElse,
}

impl ChoiceKind {
    /// "`key` is true" and the like, for messages.
    fn describe(self, key: &str, choice: usize) -> String {
        let key: String = key.chars().take(60).collect();
        match self {
            ChoiceKind::Bool => format!("`{key}` is {}", choice == 1),
            ChoiceKind::Match => format!("`{key}` matches arm {}", choice + 1),
            ChoiceKind::Try => format!("`{key}` {}", if choice == 1 { "fails" } else { "succeeds" }),
            ChoiceKind::LetElse => {
                format!("`{key}` {}", if choice == 1 { "does not match" } else { "matches" })
            }
        }
    }
}

/// The items a `for` loop iterates.
enum Items {
    /// The values of a range.
    Range(Range),
    /// The elements of an array or tuple.
    List(Vec<Val>),
    /// Run-time items: the scenario's trip count of unknown values.
    Unknown,
}

/// Whether a `break` with label `l` (or none) leaves the loop labelled `label`.
fn targets(l: &Option<String>, label: &Option<String>) -> bool {
    l.is_none() || l == label
}

/// Element `i` of a destructured value.
fn part(v: &Val, i: usize) -> Val {
    match v {
        Val::Tuple(vs) => vs.get(i).cloned().unwrap_or(Val::Unknown),
        Val::Atom(k) => Val::Atom(format!("{k}[{i}]").into()),
        _ => Val::Unknown,
    }
}

/// Adds the tokens `v` holds to `out`.
fn collect_tokens(v: &Val, out: &mut HashSet<usize>) {
    match v {
        Val::Token(t) => {
            out.insert(*t);
        }
        Val::Tuple(vs) => vs.iter().for_each(|v| collect_tokens(v, out)),
        _ => {}
    }
}

/// Finds calls of endpoint or context operations (by name) and calls of other functions.
struct OpScan {
    /// An operation was found.
    ops: bool,
    /// A call (of a function or macro) was found.
    calls: bool,
}

impl<'ast> Visit<'ast> for OpScan {
    fn visit_expr_method_call(&mut self, m: &'ast ExprMethodCall) {
        let name = m.method.to_string();
        self.ops |= CTX_OPS.contains(&name.as_str())
            || SIGNALS.contains(&name.as_str())
            || matches!(name.as_str(), "acquire" | "wait" | "tx");
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        self.calls = true;
        syn::visit::visit_expr_call(self, c);
    }
    fn visit_macro(&mut self, _: &'ast syn::Macro) {
        self.calls = true;
    }
}

/// Whether an expression (parsed from a macro's tokens) calls an endpoint or context
/// operation by name.
fn contains_ops(e: &Expr) -> bool {
    let mut scan = OpScan { ops: false, calls: false };
    scan.visit_expr(e);
    scan.ops
}

/// Whether a module function is register math: no operations, no calls that might perform
/// some, and a result (if any) of a data type, which cannot steer control flow.
pub fn is_math(f: &ItemFn) -> bool {
    let mut scan = OpScan { ops: false, calls: false };
    scan.visit_block(&f.block);
    let data = match &f.sig.output {
        syn::ReturnType::Default => true,
        syn::ReturnType::Type(_, ty) => match crate::model::ungroup(ty) {
            syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| {
                matches!(s.ident.to_string().as_str(), "RowVec" | "Fragment" | "f32" | "f64" | "bf16" | "f16")
            }),
            _ => false,
        },
    };
    !scan.ops && !scan.calls && data
}

/// Whether `pat` matches `v`: `None` when the text does not decide it.
fn pattern_matches(pat: &Pat, v: &Val) -> Option<bool> {
    match pat {
        Pat::Wild(_) => Some(true),
        Pat::Ident(p) if p.subpat.is_none() => Some(true),
        Pat::Lit(l) => match (&l.lit, v) {
            (Lit::Int(i), Val::Int(x)) => Some(i.base10_parse::<i128>().ok()? == *x),
            (Lit::Bool(b), Val::Bool(x)) => Some(b.value == *x),
            _ => None,
        },
        Pat::Or(o) => {
            let mut any = false;
            for case in &o.cases {
                match pattern_matches(case, v) {
                    Some(true) => return Some(true),
                    Some(false) => {}
                    None => any = true,
                }
            }
            if any { None } else { Some(false) }
        }
        _ => None,
    }
}

/// Methods of a tile value.
fn tile_method(
    call: &ExprMethodCall,
    consts: &crate::model::Consts<'_>,
    owner: Owner,
    shape: Option<TileShape>,
    name: &str,
) -> Val {
    let turbofish = || call.turbofish.as_ref().and_then(|t| t.args.first()).and_then(|a| consts.eval_generic(a));
    match name {
        "rows" => Val::Tile(owner, shape.zip(turbofish()).map(|(s, rows)| TileShape { rows, ..s })),
        "cols" => Val::Tile(owner, shape.zip(turbofish()).map(|(s, cols)| TileShape { cols, ..s })),
        "view" | "t" => Val::Tile(owner, shape),
        _ => Val::Unknown,
    }
}

/// Methods of a range.
fn range_method(mut r: Range, name: &str, arg: Option<(i128, bool)>) -> Val {
    match name {
        "rev" => r.rev = !r.rev,
        "step_by" => match arg {
            Some((s, _)) if s > 0 && !r.rev => r.step = r.step.saturating_mul(s),
            _ => return Val::Unknown,
        },
        "enumerate" => r.enumerate = true,
        "into_iter" => {}
        _ => return Val::Unknown,
    }
    Val::Range(r)
}

/// An integer value: exact when the text decides it.
fn int(x: Lin) -> Val {
    match x {
        Lin { base: None, off, exact: true, .. } => Val::Int(off),
        other => Val::Sym(other),
    }
}
