//! A pre-order walk over the IR, children in source order, for analyses that look for
//! something in a body (the checker's scans, a backend's collection of used operations).
//!
//! Override a `visit_*` method to act on a node, calling the matching `walk_*` function to
//! go on into its children. Macro arguments are not walked (a macro's expansion is not
//! known); a visitor that wants them reads [`Macro::args`] itself.

use crate::expr::{Expr, ExprKind, Macro};
use crate::stmt::{Block, Pat, PatKind, Stmt, StmtKind};

/// A visitor of blocks, statements, expressions and patterns.
pub trait Visit<'a> {
    /// Visits a block.
    fn visit_block(&mut self, b: &'a Block) {
        walk_block(self, b);
    }
    /// Visits a statement.
    fn visit_stmt(&mut self, s: &'a Stmt) {
        walk_stmt(self, s);
    }
    /// Visits an expression.
    fn visit_expr(&mut self, e: &'a Expr) {
        walk_expr(self, e);
    }
    /// Visits a pattern.
    fn visit_pat(&mut self, p: &'a Pat) {
        walk_pat(self, p);
    }
    /// Visits a macro call (its arguments are not walked).
    fn visit_macro(&mut self, _m: &'a Macro) {}
}

/// Walks a block's statements.
pub fn walk_block<'a, V: Visit<'a> + ?Sized>(v: &mut V, b: &'a Block) {
    for s in &b.stmts {
        v.visit_stmt(s);
    }
}

/// Walks a statement's parts.
pub fn walk_stmt<'a, V: Visit<'a> + ?Sized>(v: &mut V, s: &'a Stmt) {
    match &s.kind {
        StmtKind::Let(l) => {
            v.visit_pat(&l.pat);
            if let Some(e) = &l.init {
                v.visit_expr(e);
            }
            if let Some(e) = &l.diverge {
                v.visit_expr(e);
            }
        }
        StmtKind::Expr { expr, .. } => v.visit_expr(expr),
        StmtKind::Macro(m) => v.visit_macro(m),
    }
}

/// Walks a pattern's sub-patterns.
pub fn walk_pat<'a, V: Visit<'a> + ?Sized>(v: &mut V, p: &'a Pat) {
    match &p.kind {
        PatKind::Ident { sub: Some(sub), .. } => v.visit_pat(sub),
        PatKind::Tuple(ps) | PatKind::Slice(ps) | PatKind::Or(ps) | PatKind::TupleStruct { elems: ps, .. } => {
            ps.iter().for_each(|p| v.visit_pat(p));
        }
        PatKind::Struct { fields, .. } => fields.iter().for_each(|(_, p)| v.visit_pat(p)),
        PatKind::Typed { pat, .. } | PatKind::Ref(pat) => v.visit_pat(pat),
        _ => {}
    }
}

/// Walks an expression's children.
pub fn walk_expr<'a, V: Visit<'a> + ?Sized>(v: &mut V, e: &'a Expr) {
    match &e.kind {
        ExprKind::Lit(_) | ExprKind::Path(_) | ExprKind::Continue { .. } | ExprKind::Return(None) => {}
        ExprKind::Paren(x)
        | ExprKind::Ref { expr: x, .. }
        | ExprKind::Await(x)
        | ExprKind::Try(x)
        | ExprKind::Return(Some(x))
        | ExprKind::Cast { expr: x, .. }
        | ExprKind::Unary { expr: x, .. }
        | ExprKind::Field { base: x, .. } => v.visit_expr(x),
        ExprKind::Binary { left, right, .. }
        | ExprKind::Assign { left, right }
        | ExprKind::AssignOp { left, right, .. }
        | ExprKind::Index { base: left, index: right }
        | ExprKind::Repeat { value: left, len: right } => {
            v.visit_expr(left);
            v.visit_expr(right);
        }
        ExprKind::Block { block, .. } | ExprKind::Loop { body: block, .. } => v.visit_block(block),
        ExprKind::If { cond, then, els } => {
            v.visit_expr(cond);
            v.visit_block(then);
            if let Some(e) = els {
                v.visit_expr(e);
            }
        }
        ExprKind::Match { scrutinee, arms } => {
            v.visit_expr(scrutinee);
            for arm in arms {
                v.visit_pat(&arm.pat);
                if let Some(g) = &arm.guard {
                    v.visit_expr(g);
                }
                v.visit_expr(&arm.body);
            }
        }
        ExprKind::For { pat, iter, body, .. } => {
            v.visit_pat(pat);
            v.visit_expr(iter);
            v.visit_block(body);
        }
        ExprKind::While { cond, body, .. } => {
            v.visit_expr(cond);
            v.visit_block(body);
        }
        ExprKind::Break { value, .. } => {
            if let Some(x) = value {
                v.visit_expr(x);
            }
        }
        ExprKind::Let { pat, expr } => {
            v.visit_pat(pat);
            v.visit_expr(expr);
        }
        ExprKind::Call { func, args } => {
            v.visit_expr(func);
            args.iter().for_each(|a| v.visit_expr(a));
        }
        ExprKind::Method { receiver, args, .. } | ExprKind::Op { receiver, operands: args, .. } => {
            v.visit_expr(receiver);
            args.iter().for_each(|a| v.visit_expr(a));
        }
        ExprKind::Macro(m) => v.visit_macro(m),
        ExprKind::Closure { params, body } => {
            params.iter().for_each(|p| v.visit_pat(p));
            v.visit_expr(body);
        }
        ExprKind::Tuple(xs) | ExprKind::Array(xs) => xs.iter().for_each(|x| v.visit_expr(x)),
        ExprKind::Struct { fields, rest, .. } => {
            fields.iter().for_each(|(_, x)| v.visit_expr(x));
            if let Some(r) = rest {
                v.visit_expr(r);
            }
        }
        ExprKind::Range { start, end, .. } => {
            if let Some(s) = start {
                v.visit_expr(s);
            }
            if let Some(x) = end {
                v.visit_expr(x);
            }
        }
    }
}
