//! The evaluator of the Rust subset kernel bodies use: literals, paths, operators,
//! assignments, blocks, calls (module functions run inline), macros, and method calls,
//! whose DSL meaning [`super::dsl`] gives.

use warpspec_ir::visit::Visit;
use warpspec_ir::{BinOp, Expr, ExprKind, Function, Generic, Lit, Macro, Member, Path, UnOp};

use super::super::lin::{Op, Out};
use super::MAX_DEPTH;
use super::control::ChoiceKind;
use super::run::Run;
use super::scan::{Arm, Mentions, contains_ops};
use super::value::{Flow, Owner, Range, Rect, Val, int, range_method};

impl<'a> Run<'_, 'a> {
    /// Evaluates an expression.
    pub(super) fn eval(&mut self, e: &'a Expr) -> Flow {
        if !self.tick() {
            return Flow::Abort;
        }
        match &e.kind {
            ExprKind::Lit(l) => Flow::Val(match l {
                Lit::Int { digits, .. } => digits.parse::<i128>().map_or(Val::Unknown, Val::Int),
                Lit::Bool(b) => Val::Bool(*b),
                _ => Val::Unknown,
            }),
            ExprKind::Path(p) => Flow::Val(self.path(p, e)),
            ExprKind::Paren(x) | ExprKind::Ref { expr: x, .. } | ExprKind::Await(x) => self.eval(x),
            ExprKind::Cast { expr, .. } => {
                let v = val!(self, expr);
                Flow::Val(match v {
                    Val::Bool(b) => Val::Int(i128::from(b)),
                    other => other,
                })
            }
            ExprKind::Unary { op, expr } => {
                let v = val!(self, expr);
                Flow::Val(match (op, v) {
                    (UnOp::Not, Val::Bool(b)) => Val::Bool(!b),
                    (UnOp::Not, Val::Int(x)) => Val::Int(!x),
                    (UnOp::Neg, Val::Int(x)) => x.checked_neg().map_or(Val::Unknown, Val::Int),
                    (UnOp::Neg, Val::Sym(x)) => self.arith(Op::Sub, &Val::Int(0), &Val::Sym(x)),
                    (UnOp::Deref, v) => v,
                    (UnOp::Not, Val::Atom(k)) => Val::Atom(format!("!{k}").into()),
                    (UnOp::Neg, Val::Atom(k)) => Val::Atom(format!("-{k}").into()),
                    _ => Val::Unknown,
                })
            }
            ExprKind::Binary { op, left, right } => self.binary(*op, left, right),
            ExprKind::AssignOp { op, left, right } => self.assign_op(*op, left, right),
            ExprKind::Assign { left, right } => {
                let v = val!(self, right);
                match &left.kind {
                    ExprKind::Path(p) if p.ident().is_some() => {
                        let name = p.ident().unwrap_or_default().to_string();
                        self.set(&name, v);
                        self.check_leaks(&Val::Unknown, e.pos, "when it is overwritten here");
                    }
                    _ => {
                        let _ = val!(self, left);
                        self.escape(&v, true);
                    }
                }
                Flow::Val(Val::Unknown)
            }
            ExprKind::Block { label, block } => match self.block(block) {
                Flow::Break(Some(l), v, _) if Some(&l) == label.as_ref() => Flow::Val(v),
                other => other,
            },
            ExprKind::If { cond, then, els } => self.if_expr(cond, then, els.as_deref()),
            ExprKind::Match { scrutinee, arms } => self.match_expr(scrutinee, arms),
            ExprKind::For { label, pat, iter, body } => self.for_loop(label, pat, iter, body),
            ExprKind::While { label, cond, body } => self.while_loop(label, cond, body),
            ExprKind::Loop { label, body } => self.loop_expr(label, body),
            ExprKind::Break { label, value } => {
                let v = match value {
                    Some(x) => val!(self, x),
                    None => Val::Unknown,
                };
                Flow::Break(label.clone(), v, e.pos)
            }
            ExprKind::Continue { label } => Flow::Continue(label.clone(), e.pos),
            ExprKind::Return(value) => {
                let v = match value {
                    Some(x) => val!(self, x),
                    None => Val::Unknown,
                };
                Flow::Return(v, e.pos)
            }
            ExprKind::Try(x) => {
                let _ = val!(self, x);
                let key = format!("{}?", self.an.text(x.pos));
                if self.choose(key, e.pos, &[Arm::Empty, Arm::Empty], ChoiceKind::Try) == 1 {
                    return Flow::Return(Val::Unknown, e.pos);
                }
                Flow::Val(Val::Unknown)
            }
            ExprKind::Op { op, receiver, generics, operands } => {
                self.method(e, receiver, op.name(), generics, operands)
            }
            ExprKind::Method { receiver, method, generics, args } => self.method(e, receiver, method, generics, args),
            ExprKind::Call { func, args } => self.call(e, func, args),
            ExprKind::Macro(m) => self.mac(m),
            ExprKind::Closure { .. } => {
                self.opaque(e);
                Flow::Val(Val::Unknown)
            }
            ExprKind::Tuple(xs) | ExprKind::Array(xs) => {
                let mut vs = Vec::new();
                for x in xs {
                    vs.push(val!(self, x));
                }
                Flow::Val(Val::Tuple(vs))
            }
            ExprKind::Repeat { value, .. } => {
                let v = val!(self, value);
                self.escape(&v, true);
                Flow::Val(Val::Unknown)
            }
            ExprKind::Struct { fields, rest, .. } => {
                for (_, x) in fields {
                    let v = val!(self, x);
                    self.escape(&v, matches!(x.kind, ExprKind::Path(_)));
                }
                if let Some(rest) = rest {
                    let _ = val!(self, rest);
                }
                Flow::Val(Val::Unknown)
            }
            ExprKind::Field { base, member } => {
                let base = val!(self, base);
                Flow::Val(match (base, member) {
                    (Val::Atom(k), Member::Named(n)) => Val::Atom(format!("{k}.{n}").into()),
                    (Val::Atom(k), Member::Index(i)) => Val::Atom(format!("{k}.{i}").into()),
                    (Val::Tuple(vs), Member::Index(i)) => vs.get(*i as usize).cloned().unwrap_or(Val::Unknown),
                    _ => Val::Unknown,
                })
            }
            ExprKind::Index { base, index } => {
                let base = val!(self, base);
                let index = val!(self, index);
                Flow::Val(match (base, index) {
                    (Val::Buffer(f), Val::Int(i)) if u32::try_from(i).is_ok() => {
                        let shape = self.buffer_shape(f);
                        Val::Tile(
                            Owner::Element(f, u32::try_from(i).unwrap_or(0)),
                            shape,
                            shape.and_then(Rect::whole).map(Box::new),
                        )
                    }
                    (Val::Buffer(f), _) => Val::Buffer(f),
                    (Val::Atom(k), Val::Int(x)) => Val::Atom(format!("{k}[{x}]").into()),
                    (Val::Atom(k), _) => Val::Atom(format!("{k}[_]").into()),
                    (Val::Tuple(vs), Val::Int(x)) => {
                        usize::try_from(x).ok().and_then(|x| vs.get(x).cloned()).unwrap_or(Val::Unknown)
                    }
                    _ => Val::Unknown,
                })
            }
            ExprKind::Range { start, end, closed } => {
                let start = match start {
                    Some(x) => val!(self, x),
                    None => Val::Int(0),
                };
                let end = match end {
                    Some(x) => val!(self, x),
                    None => return Flow::Val(Val::Unknown),
                };
                let (Some((s, es)), Some((mut e, ee))) = (self.num(&start), self.num(&end)) else {
                    return Flow::Val(Val::Unknown);
                };
                // Between two run-time values (`k_start..k_start + k_count`), the range is
                // as long as their distance, itself a size.
                let distance = self.arith(Op::Sub, &end, &start);
                if !(es && ee)
                    && let Some(d) = self.lin(&distance).and_then(|l| l.value(self.scen.v))
                {
                    e = s.saturating_add(d);
                }
                if *closed {
                    e = e.saturating_add(1);
                }
                let sized = !(es && ee);
                Flow::Val(Val::Range(Range { start: s, end: e, step: 1, rev: false, enumerate: false, sized }))
            }
            ExprKind::Let { pat, expr } => {
                let v = val!(self, expr);
                let key = format!("let {} = {}", self.an.text(pat.pos), self.an.text(expr.pos));
                self.bind(pat, Val::Unknown);
                let _ = v;
                Flow::Val(Val::Atom(key.into()))
            }
        }
    }

    /// The value of a path: a variable, a module constant, or an atom named by the path.
    fn path(&self, p: &Path, e: &Expr) -> Val {
        if let Some(name) = p.ident() {
            if let Some(v) = self.lookup(name) {
                return v.clone();
            }
            if let Some(c) = self.an.model.consts.value(name) {
                return Val::Int(c);
            }
            return Val::Atom(name.into());
        }
        Val::Atom(self.an.text(e.pos).replace(' ', "").into())
    }

    /// Evaluates a compound assignment.
    fn assign_op(&mut self, op: BinOp, left: &'a Expr, right: &'a Expr) -> Flow {
        let r = val!(self, right);
        let l = val!(self, left);
        let Some(op) = arith_op(op) else { return Flow::Val(Val::Unknown) };
        let v = self.arith(op, &l, &r);
        if let ExprKind::Path(p) = &left.kind
            && let Some(id) = p.ident()
        {
            self.set(id, v);
        }
        Flow::Val(Val::Unknown)
    }

    /// Evaluates a binary expression (arithmetic, comparison, logic).
    fn binary(&mut self, op: BinOp, left: &'a Expr, right: &'a Expr) -> Flow {
        if matches!(op, BinOp::And | BinOp::Or) {
            let and = op == BinOp::And;
            let l = val!(self, left);
            let lt = self.truth(&l, left, &[]);
            if lt != and {
                return Flow::Val(Val::Bool(lt));
            }
            let r = val!(self, right);
            let rt = self.truth(&r, right, &[]);
            return Flow::Val(Val::Bool(rt));
        }
        let l = val!(self, left);
        let r = val!(self, right);
        let Some(op) = arith_op(op) else { return Flow::Val(Val::Unknown) };
        if matches!(op, Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge) {
            self.size_comparison(&l, left, &r, right);
        }
        Flow::Val(self.arith(op, &l, &r))
    }

    /// Notes a comparison of a size with a constant of the text (a literal or a module
    /// constant, not a variable such as a loop counter): runs in which that size alone
    /// takes the values around the comparison follow.
    fn size_comparison(&mut self, l: &Val, left: &Expr, r: &Val, right: &Expr) {
        let (Some(a), Some(b)) = (self.lin(l), self.lin(r)) else { return };
        let found = if self.text_constant(right) {
            a.size_threshold(&b)
        } else if self.text_constant(left) {
            b.size_threshold(&a)
        } else {
            None
        };
        if let Some((size, first)) = found {
            self.an.size_threshold(size, first);
            self.trace.sized = true;
        }
    }

    /// Whether `e` is a constant of the text: a literal, a module constant, or arithmetic
    /// and casts of those.
    fn text_constant(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Lit(_) => true,
            ExprKind::Path(p) => {
                p.ident().is_some_and(|n| self.lookup(n).is_none() && self.an.model.consts.value(n).is_some())
            }
            ExprKind::Paren(x) | ExprKind::Cast { expr: x, .. } | ExprKind::Unary { expr: x, .. } => {
                self.text_constant(x)
            }
            ExprKind::Binary { left, right, .. } => self.text_constant(left) && self.text_constant(right),
            _ => false,
        }
    }

    /// Applies an operator to two values.
    pub(super) fn arith(&mut self, op: Op, l: &Val, r: &Val) -> Val {
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
        if matches!(op, Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge)
            && let Some(first) = a.threshold(&b).or_else(|| b.threshold(&a))
        {
            self.an.threshold(first);
            self.trace.sized = true;
        }
        match a.apply(op, &b, self.scen.v) {
            Some(Out::Int(x)) => int(x),
            Some(Out::Bool(b)) => Val::Bool(b),
            None => Val::Unknown,
        }
    }

    // ---- calls ----

    /// Evaluates arguments, noting which are moved (plain variables).
    // `Flow` is the interpreter's control flow, returned by value everywhere; a tile value
    // with its rectangle makes it a few bytes over clippy's threshold for `Err` variants.
    #[allow(clippy::result_large_err)]
    fn args(&mut self, args: &'a [Expr]) -> Result<Vec<(Val, bool)>, Flow> {
        let mut out = Vec::new();
        for a in args {
            match self.eval(a) {
                Flow::Val(v) => out.push((v, matches!(a.kind, ExprKind::Path(_)))),
                other => return Err(other),
            }
        }
        Ok(out)
    }

    /// Evaluates a function call `call` of `func`: a module function runs inline.
    fn call(&mut self, call: &'a Expr, func: &'a Expr, arg_exprs: &'a [Expr]) -> Flow {
        let args = match self.args(arg_exprs) {
            Ok(a) => a,
            Err(flow) => return flow,
        };
        let (name, single) = match &func.kind {
            ExprKind::Path(p) => (p.last().unwrap_or_default().to_string(), p.ident().is_some()),
            _ => (String::new(), false),
        };
        if name == "drop" {
            // `drop(token)`: the token is gone here.
            for a in arg_exprs {
                if let ExprKind::Path(p) = &a.kind
                    && let Some(id) = p.ident()
                {
                    self.set(id, Val::Unknown);
                }
            }
            self.check_leaks(&Val::Unknown, call.pos, "by `drop`");
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
    fn inline(&mut self, f: &'a Function, args: Vec<(Val, bool)>) -> Flow {
        self.depth += 1;
        let flow = self.in_frame(&f.body, |run| {
            for (param, (v, _)) in f.params.iter().zip(args) {
                run.bind(&param.pat, v);
            }
            run.block(&f.body)
        });
        self.depth -= 1;
        let result = match flow {
            Flow::Val(v) | Flow::Return(v, _) => v,
            Flow::Abort => return Flow::Abort,
            Flow::Break(..) | Flow::Continue(..) => Val::Unknown,
        };
        self.check_leaks(&result, f.body.close, "when the function returns");
        Flow::Val(result)
    }

    /// A macro call: formatting and assertions have no protocol effect; a macro that
    /// performs operations, or whose arguments are not expressions, cannot be followed.
    pub(super) fn mac(&mut self, m: &'a Macro) -> Flow {
        if let (Some("assert" | "debug_assert"), Some([cond, ..])) = (m.path.last(), m.args.as_deref())
            && !contains_ops(cond)
        {
            return self.assume(cond);
        }
        match &m.args {
            Some(exprs) if !exprs.iter().any(contains_ops) => {}
            Some(_) => self.abort("a macro performs barrier operations"),
            None => {
                let mentions = Mentions { idents: m.idents.iter().cloned().collect(), ctx_ops: true };
                self.mentioned(&mentions);
            }
        }
        Flow::Val(Val::Unknown)
    }

    /// `assert!(cond)`: the kernel states an assumption (CUTLASS's `assert(k_tile_count >=
    /// 1)`); a run in which it fails is not one the kernel runs, and is left out of the
    /// whole-kernel simulation.
    fn assume(&mut self, cond: &'a Expr) -> Flow {
        let v = val!(self, cond);
        if self.truth(&v, cond, &[]) {
            return Flow::Val(Val::Unknown);
        }
        self.trace.infeasible = true;
        Flow::Abort
    }

    /// A closure the checker does not run: whatever it captures escapes.
    fn opaque(&mut self, e: &'a Expr) {
        let mut mentions = Mentions { idents: Default::default(), ctx_ops: false };
        mentions.visit_expr(e);
        self.mentioned(&mentions);
    }

    /// Handles what a closure or unparsed macro mentions: endpoints and the context make the run partial, tokens escape.
    fn mentioned(&mut self, mentions: &Mentions) {
        let mut names: Vec<&String> = mentions.idents.iter().collect();
        names.sort();
        for name in names {
            match self.lookup(name).cloned() {
                Some(Val::Endpoint(_)) => self.abort("a closure or macro captures an endpoint"),
                Some(Val::Ctx) if mentions.ctx_ops => self.abort("a closure or macro uses the context"),
                Some(v @ Val::Token(_)) => self.escape(&v, true),
                _ => {}
            }
        }
    }

    /// The first argument of a view method as an offset the text decides.
    fn start(&self, args: &[(Val, bool)]) -> Option<i128> {
        let (v, _) = args.first()?;
        self.num(v).filter(|&(_, exact)| exact).map(|(x, _)| x)
    }

    /// Evaluates a method call: DSL operations of the context, endpoints, tokens and tile
    /// views (see [`super::dsl`]), and the host methods of integers and ranges.
    fn method(
        &mut self,
        call: &'a Expr,
        receiver: &'a Expr,
        name: &str,
        generics: &'a [Generic],
        arg_exprs: &'a [Expr],
    ) -> Flow {
        let recv = val!(self, receiver);
        let args = match self.args(arg_exprs) {
            Ok(a) => a,
            Err(flow) => return flow,
        };
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
            Val::Ctx => self.ctx_method(call, name, &args),
            Val::Endpoint(ep) => self.endpoint_method(call, ep, name, &args),
            Val::Token(t) => self.token_method(t, name),
            Val::Tile(owner, shape, rect) => {
                self.view_method(generics, (owner, shape, rect.as_deref().copied()), name, self.start(&args))
            }
            Val::Buffer(f) => {
                let shape = self.buffer_shape(f);
                let start = self.start(&args);
                self.view_method(generics, (Owner::Buffer(f), shape, shape.and_then(Rect::whole)), name, start)
            }
            Val::Range(r) => range_method(r, name, args.first().and_then(|(v, _)| self.num(v))),
            Val::Int(_) | Val::Sym(_) | Val::Atom(_) | Val::Unknown => {
                let a = self.lin(&recv);
                let b = args.first().and_then(|(v, _)| self.lin(v));
                match (a.and_then(|a| a.method(name, b.as_ref(), self.scen.v)), recv) {
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

/// The arithmetic of an operator (logical `&&` and `||` have none: they short-circuit).
fn arith_op(op: BinOp) -> Option<Op> {
    Some(match op {
        BinOp::Add => Op::Add,
        BinOp::Sub => Op::Sub,
        BinOp::Mul => Op::Mul,
        BinOp::Div => Op::Div,
        BinOp::Rem => Op::Rem,
        BinOp::BitXor => Op::Xor,
        BinOp::BitAnd => Op::And,
        BinOp::BitOr => Op::Or,
        BinOp::Shl => Op::Shl,
        BinOp::Shr => Op::Shr,
        BinOp::Eq => Op::Eq,
        BinOp::Ne => Op::Ne,
        BinOp::Lt => Op::Lt,
        BinOp::Le => Op::Le,
        BinOp::Gt => Op::Gt,
        BinOp::Ge => Op::Ge,
        BinOp::And | BinOp::Or => return None,
    })
}
