//! Scans of the IR: what a condition's arm signals or leaves, what a closure mentions,
//! whether a module function performs operations. Operation names come from the catalogue
//! of `warpspec-ir`.

use std::collections::HashSet;

use warpspec_ir::visit::{Visit, walk_expr, walk_pat};
use warpspec_ir::{Block, Class, Expr, ExprKind, Function, Macro, Member, Op, Pat, PatKind, Receiver, Ty};

use super::super::Analysis;

/// An arm of a condition, for scanning what taking or skipping it means.
#[derive(Clone, Copy)]
pub(super) enum Arm<'a> {
    /// A block.
    Block(&'a Block),
    /// An expression.
    Expr(&'a Expr),
    /// No arm (an `if` without `else`).
    Empty,
}

impl Arm<'_> {
    /// Identity of the arm (its address), for caching.
    pub(super) fn key(self) -> usize {
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
    pub(super) unlabeled_break: bool,
    /// Labels its `break`s name.
    pub(super) labels: Vec<String>,
    /// Method calls that signal (arrive, commit, release, sync): receiver name, how it reads.
    pub(super) signals: Vec<(String, String)>,
    /// It has a `break` or `continue` (of any loop) outside closures.
    pub(super) leaves_loop: bool,
    /// It has a `return` or `?` outside closures.
    pub(super) returns: bool,
}

/// Collects an arm's [`ArmInfo`].
pub(super) struct ArmScan<'r, 'a> {
    /// What was found.
    pub(super) info: ArmInfo,
    /// Depth of loops the visitor is inside.
    pub(super) loops: u32,
    /// The analysis, for the text of calls.
    pub(super) an: &'r Analysis<'a>,
}

impl<'x> Visit<'x> for ArmScan<'_, '_> {
    fn visit_expr(&mut self, e: &'x Expr) {
        match &e.kind {
            ExprKind::Continue { .. } => self.info.leaves_loop = true,
            ExprKind::Return(_) | ExprKind::Try(_) => self.info.returns = true,
            ExprKind::Break { label, .. } => {
                self.info.leaves_loop = true;
                match label {
                    Some(l) => self.info.labels.push(l.clone()),
                    None if self.loops == 0 => self.info.unlabeled_break = true,
                    None => {}
                }
            }
            ExprKind::For { .. } | ExprKind::While { .. } | ExprKind::Loop { .. } => {
                self.loops += 1;
                walk_expr(self, e);
                self.loops -= 1;
                return;
            }
            ExprKind::Closure { .. } => return,
            ExprKind::Op { receiver, .. } | ExprKind::Method { receiver, .. } => {
                let name = method_name(e);
                if signals(name)
                    && let ExprKind::Path(p) = &receiver.kind
                    && let Some(id) = p.ident()
                {
                    let site = format!("`{id}.{name}` (line {})", e.pos.line);
                    self.info.signals.push((id.to_string(), site));
                }
            }
            ExprKind::Call { func, args } => {
                for arg in args {
                    let arg = match &arg.kind {
                        ExprKind::Ref { expr, .. } => expr,
                        _ => arg,
                    };
                    if let ExprKind::Path(p) = &arg.kind
                        && let Some(id) = p.ident()
                    {
                        let site = format!("`{}(..)` (line {})", self.an.text(func.pos), e.pos.line);
                        self.info.signals.push((id.to_string(), site.replace(' ', "")));
                    }
                }
            }
            _ => {}
        }
        walk_expr(self, e);
    }
}

/// The method name of an operation or host method call.
fn method_name(e: &Expr) -> &str {
    match &e.kind {
        ExprKind::Op { op, .. } => op.name(),
        ExprKind::Method { method, .. } => method,
        _ => "",
    }
}

/// Whether a method called `name` signals other roles (an arrival), on whichever DSL
/// receiver: a scan does not know the receiver's value.
fn signals(name: &str) -> bool {
    Op::named(name).any(|op| op.class() == Class::BarrierSignal)
}

/// Whether `name` is a context operation that issues asynchronous or barrier-completing
/// work.
fn ctx_protocol(name: &str) -> bool {
    Op::find(Receiver::Ctx, name).is_some_and(|op| op.class().is_protocol())
}

/// Whether a method called `name` takes part in the barrier protocol, on whichever DSL
/// receiver.
fn protocol(name: &str) -> bool {
    Op::named(name).any(|op| op.class().is_protocol())
}

/// Names the identifiers a closure or unparsed macro mentions.
pub(super) struct Mentions {
    /// Identifiers mentioned.
    pub(super) idents: HashSet<String>,
    /// Whether context operations may be called.
    pub(super) ctx_ops: bool,
}

impl<'x> Visit<'x> for Mentions {
    fn visit_expr(&mut self, e: &'x Expr) {
        match &e.kind {
            ExprKind::Path(p) | ExprKind::Struct { path: p, .. } => {
                self.idents.extend(p.segments.iter().map(|s| s.name.clone()));
            }
            ExprKind::Op { .. } | ExprKind::Method { .. } => {
                let name = method_name(e);
                self.ctx_ops |= ctx_protocol(name);
                self.idents.insert(name.to_string());
            }
            ExprKind::Field { member: Member::Named(n), .. } => {
                self.idents.insert(n.clone());
            }
            ExprKind::Break { label: Some(l), .. } | ExprKind::Continue { label: Some(l) } => {
                self.idents.insert(l.clone());
            }
            _ => {}
        }
        walk_expr(self, e);
    }
    fn visit_pat(&mut self, p: &'x Pat) {
        if let PatKind::Ident { name, .. } = &p.kind {
            self.idents.insert(name.clone());
        }
        walk_pat(self, p);
    }
    fn visit_macro(&mut self, m: &'x Macro) {
        self.idents.extend(m.idents.iter().cloned());
    }
}

/// Finds calls of endpoint or context operations (by name) and calls of other functions.
struct OpScan {
    /// An operation was found.
    ops: bool,
    /// A call (of a function or macro) was found.
    calls: bool,
}

impl<'x> Visit<'x> for OpScan {
    fn visit_expr(&mut self, e: &'x Expr) {
        match &e.kind {
            ExprKind::Op { .. } | ExprKind::Method { .. } => self.ops |= protocol(method_name(e)),
            ExprKind::Call { .. } => self.calls = true,
            _ => {}
        }
        walk_expr(self, e);
    }
    fn visit_macro(&mut self, _: &'x Macro) {
        self.calls = true;
    }
}

/// Whether an expression (a macro's argument) calls an endpoint or context operation by
/// name.
pub(super) fn contains_ops(e: &Expr) -> bool {
    let mut scan = OpScan { ops: false, calls: false };
    scan.visit_expr(e);
    scan.ops
}

/// Whether a module function is register math: no operations, no calls that might perform
/// some, and a result (if any) of a data type, which cannot steer control flow.
pub fn is_math(f: &Function) -> bool {
    let mut scan = OpScan { ops: false, calls: false };
    scan.visit_block(&f.body);
    let data = match &f.ret {
        None => true,
        Some(Ty::Path(p)) => {
            p.last().is_some_and(|s| matches!(s, "RowVec" | "Fragment" | "f32" | "f64" | "bf16" | "f16"))
        }
        Some(_) => false,
    };
    !scan.ops && !scan.calls && data
}
