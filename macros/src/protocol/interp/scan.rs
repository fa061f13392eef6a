//! Scans of the syntax: what a condition's arm signals or leaves, what a closure or an
//! unparsed macro mentions, whether a module function performs operations. Operation names
//! come from the catalogue of `warpspec-ir`.

use std::collections::HashSet;

use quote::ToTokens;
use syn::visit::Visit;
use syn::{Block, Expr, ExprMethodCall, ItemFn};
use warpspec_ir::{Class, Op, Receiver};

use crate::errors::Loc;

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
pub(super) struct ArmScan {
    /// What was found.
    pub(super) info: ArmInfo,
    /// Depth of loops the visitor is inside.
    pub(super) loops: u32,
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
        if signals(&m.method.to_string())
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

/// Whether a method called `name` signals other roles (an arrival), on whichever DSL
/// receiver: a scan of the syntax does not know the receiver's type.
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

impl<'ast> Visit<'ast> for Mentions {
    fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
        self.idents.insert(i.to_string());
    }
    fn visit_expr_method_call(&mut self, m: &'ast ExprMethodCall) {
        self.ctx_ops |= ctx_protocol(&m.method.to_string());
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

/// Finds calls of endpoint or context operations (by name) and calls of other functions.
struct OpScan {
    /// An operation was found.
    ops: bool,
    /// A call (of a function or macro) was found.
    calls: bool,
}

impl<'ast> Visit<'ast> for OpScan {
    fn visit_expr_method_call(&mut self, m: &'ast ExprMethodCall) {
        self.ops |= protocol(&m.method.to_string());
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
pub(super) fn contains_ops(e: &Expr) -> bool {
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
