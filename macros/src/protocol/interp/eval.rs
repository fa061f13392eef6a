//! The evaluator of the Rust subset kernel bodies use: literals, paths, operators,
//! assignments, blocks, calls (module functions run inline), macros, and method calls,
//! whose DSL meaning [`super::dsl`] gives.

use std::collections::HashSet;

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{BinOp, Expr, ExprMethodCall, ItemFn, Lit, UnOp};

use super::super::lin::{Op, Out};
use super::MAX_DEPTH;
use super::control::ChoiceKind;
use super::run::Run;
use super::scan::{Arm, Mentions, contains_ops};
use super::value::{Flow, Owner, Range, Val, int, range_method};
use crate::errors::Loc;

impl<'a> Run<'_, 'a> {
    /// Evaluates an expression.
    pub(super) fn eval(&mut self, e: &'a Expr) -> Flow<'a> {
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
    pub(super) fn arith(&self, op: Op, l: &Val, r: &Val) -> Val {
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

    /// Runs module function `f` inline with `args`, in a frame of its own.
    fn inline(&mut self, f: &'a ItemFn, args: Vec<(Val, bool)>) -> Flow<'a> {
        self.depth += 1;
        let flow = self.in_frame(&f.block, |run| {
            for (input, (v, _)) in f.sig.inputs.iter().zip(args) {
                if let syn::FnArg::Typed(pt) = input {
                    run.bind(&pt.pat, v);
                }
            }
            run.block(&f.block)
        });
        self.depth -= 1;
        let result = match flow {
            Flow::Val(v) | Flow::Return(v, _) => v,
            Flow::Abort => return Flow::Abort,
            Flow::Break(..) | Flow::Continue(..) => Val::Unknown,
        };
        self.check_leaks(&result, &Loc::span(f.block.brace_token.span.close()), "when the function returns");
        Flow::Val(result)
    }

    /// A macro call: formatting and assertions have no protocol effect; a macro that
    /// performs operations, or whose arguments are not expressions, cannot be followed.
    pub(super) fn mac(&mut self, m: &'a syn::Macro) -> Flow<'a> {
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

    /// Evaluates a method call: DSL operations of the context, endpoints, tokens and tile
    /// views (see [`super::dsl`]), and the host methods of integers and ranges.
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
            Val::Tile(owner, shape) => self.view_method(call, owner, shape, &name),
            Val::Buffer(f) => {
                let shape = self.buffer_shape(f);
                self.view_method(call, Owner::Buffer(f), shape, &name)
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
}
