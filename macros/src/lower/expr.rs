//! Lowering of expressions. A method call whose receiver's DSL type is known (a role's
//! context and endpoint parameters, a helper's typed parameters, the tokens and views DSL
//! operations return) and which the catalogue declares becomes an [`ExprKind::Op`]; any
//! other method call stays a host method ([`ExprKind::Method`]).

use syn::punctuated::Punctuated;
use warpspec_ir::{BinOp, Expr, ExprKind, Macro, Op, Receiver, Returns, UnOp};

use super::Lowerer;
use super::syntax::member;

impl<'a> Lowerer<'a, '_> {
    /// An expression.
    pub(super) fn expr(&mut self, e: &'a syn::Expr) -> Expr {
        let pos = self.pos(e);
        let kind = self.expr_kind(e);
        Expr { pos, kind }
    }

    /// A boxed expression.
    fn boxed(&mut self, e: &'a syn::Expr) -> Box<Expr> {
        Box::new(self.expr(e))
    }

    /// Expressions in order.
    fn exprs(&mut self, es: impl IntoIterator<Item = &'a syn::Expr>) -> Vec<Expr> {
        es.into_iter().map(|e| self.expr(e)).collect()
    }

    /// What an expression is.
    fn expr_kind(&mut self, e: &'a syn::Expr) -> ExprKind {
        use syn::Expr as S;
        let label = |l: &Option<syn::Label>| l.as_ref().map(|l| l.name.ident.to_string());
        match e {
            S::Lit(l) => match self.lit(&l.lit) {
                Some(lit) => ExprKind::Lit(lit),
                None => ExprKind::Tuple(Vec::new()),
            },
            S::Path(p) if p.qself.is_none() => ExprKind::Path(self.path(&p.path)),
            S::Paren(p) => ExprKind::Paren(self.boxed(&p.expr)),
            S::Group(g) => ExprKind::Paren(self.boxed(&g.expr)),
            S::Reference(r) => ExprKind::Ref { mutable: r.mutability.is_some(), expr: self.boxed(&r.expr) },
            S::Await(a) => ExprKind::Await(self.boxed(&a.base)),
            S::Cast(c) => ExprKind::Cast { expr: self.boxed(&c.expr), ty: self.ty(&c.ty) },
            S::Unary(u) => {
                let op = match u.op {
                    syn::UnOp::Not(_) => UnOp::Not,
                    syn::UnOp::Neg(_) => UnOp::Neg,
                    _ => UnOp::Deref,
                };
                ExprKind::Unary { op, expr: self.boxed(&u.expr) }
            }
            S::Binary(b) => self.binary(b),
            S::Assign(a) => ExprKind::Assign { left: self.boxed(&a.left), right: self.boxed(&a.right) },
            S::Block(b) => ExprKind::Block { label: label(&b.label), block: self.block(&b.block) },
            S::If(i) => ExprKind::If {
                cond: self.scoped(|l| l.boxed(&i.cond)),
                then: self.block(&i.then_branch),
                els: i.else_branch.as_ref().map(|(_, e)| self.boxed(e)),
            },
            S::Match(m) => ExprKind::Match {
                scrutinee: self.boxed(&m.expr),
                arms: m
                    .arms
                    .iter()
                    .map(|arm| {
                        self.scoped(|l| {
                            let pat = l.pat(&arm.pat);
                            l.bind(&pat, None);
                            let guard = arm.guard.as_ref().map(|(_, g)| l.expr(g));
                            warpspec_ir::Arm { pat, guard, body: l.expr(&arm.body) }
                        })
                    })
                    .collect(),
            },
            S::ForLoop(f) => {
                let iter = self.boxed(&f.expr);
                self.scoped(|l| {
                    let pat = l.pat(&f.pat);
                    l.bind(&pat, None);
                    ExprKind::For { label: label(&f.label), pat, iter, body: l.block(&f.body) }
                })
            }
            S::While(w) => self.scoped(|l| ExprKind::While {
                label: label(&w.label),
                cond: l.boxed(&w.cond),
                body: l.block(&w.body),
            }),
            S::Loop(lp) => ExprKind::Loop { label: label(&lp.label), body: self.block(&lp.body) },
            S::Break(b) => ExprKind::Break {
                label: b.label.as_ref().map(|l| l.ident.to_string()),
                value: b.expr.as_ref().map(|e| self.boxed(e)),
            },
            S::Continue(c) => ExprKind::Continue { label: c.label.as_ref().map(|l| l.ident.to_string()) },
            S::Return(r) => ExprKind::Return(r.expr.as_ref().map(|e| self.boxed(e))),
            S::Try(t) => ExprKind::Try(self.boxed(&t.expr)),
            S::Let(l) => {
                let expr = self.boxed(&l.expr);
                let pat = self.pat(&l.pat);
                self.bind(&pat, None);
                ExprKind::Let { pat, expr }
            }
            S::Call(c) => {
                if let S::Path(p) = &*c.func
                    && let Some(id) = p.path.get_ident()
                {
                    self.note_call(&id.to_string());
                }
                ExprKind::Call { func: self.boxed(&c.func), args: self.exprs(&c.args) }
            }
            S::MethodCall(m) => self.method(m),
            S::Macro(m) => ExprKind::Macro(self.mac(&m.mac)),
            S::Closure(c) if c.asyncness.is_none() => self.scoped(|l| {
                let params: Vec<_> = c.inputs.iter().map(|p| l.pat(p)).collect();
                params.iter().for_each(|p| l.bind(p, None));
                ExprKind::Closure { params, body: l.boxed(&c.body) }
            }),
            S::Tuple(t) => ExprKind::Tuple(self.exprs(&t.elems)),
            S::Array(a) => ExprKind::Array(self.exprs(&a.elems)),
            S::Repeat(r) => ExprKind::Repeat { value: self.boxed(&r.expr), len: self.boxed(&r.len) },
            S::Struct(s) if s.qself.is_none() => ExprKind::Struct {
                path: self.path(&s.path),
                fields: s.fields.iter().map(|f| (member(&f.member), self.expr(&f.expr))).collect(),
                rest: s.rest.as_ref().map(|r| self.boxed(r)),
            },
            S::Field(f) => ExprKind::Field { base: self.boxed(&f.base), member: member(&f.member) },
            S::Index(i) => ExprKind::Index { base: self.boxed(&i.expr), index: self.boxed(&i.index) },
            S::Range(r) => ExprKind::Range {
                start: r.start.as_ref().map(|e| self.boxed(e)),
                end: r.end.as_ref().map(|e| self.boxed(e)),
                closed: matches!(r.limits, syn::RangeLimits::Closed(_)),
            },
            other => {
                let what = match other {
                    S::Async(_) => "an `async` block",
                    S::Closure(_) => "an `async` closure",
                    S::Unsafe(_) => "an `unsafe` block",
                    S::Const(_) => "a `const` block",
                    S::TryBlock(_) => "a `try` block",
                    S::Yield(_) => "`yield`",
                    S::Path(_) | S::Struct(_) => "a qualified path (`<T as Trait>::..`)",
                    _ => "this expression",
                };
                self.unsupported(
                    other,
                    what,
                    "role code is the Rust subset the checker follows and the backends render: `let`, assignments, `if`, `match`, `for`, `while`, `loop`, `break`/`continue`/`return`, blocks, operators, calls of module functions, and methods",
                );
                ExprKind::Tuple(Vec::new())
            }
        }
    }

    /// A binary operation or a compound assignment.
    fn binary(&mut self, b: &'a syn::ExprBinary) -> ExprKind {
        use syn::BinOp as S;
        let (op, assign) = match b.op {
            S::Add(_) => (BinOp::Add, false),
            S::Sub(_) => (BinOp::Sub, false),
            S::Mul(_) => (BinOp::Mul, false),
            S::Div(_) => (BinOp::Div, false),
            S::Rem(_) => (BinOp::Rem, false),
            S::BitXor(_) => (BinOp::BitXor, false),
            S::BitAnd(_) => (BinOp::BitAnd, false),
            S::BitOr(_) => (BinOp::BitOr, false),
            S::Shl(_) => (BinOp::Shl, false),
            S::Shr(_) => (BinOp::Shr, false),
            S::And(_) => (BinOp::And, false),
            S::Or(_) => (BinOp::Or, false),
            S::Eq(_) => (BinOp::Eq, false),
            S::Ne(_) => (BinOp::Ne, false),
            S::Lt(_) => (BinOp::Lt, false),
            S::Le(_) => (BinOp::Le, false),
            S::Gt(_) => (BinOp::Gt, false),
            S::Ge(_) => (BinOp::Ge, false),
            S::AddAssign(_) => (BinOp::Add, true),
            S::SubAssign(_) => (BinOp::Sub, true),
            S::MulAssign(_) => (BinOp::Mul, true),
            S::DivAssign(_) => (BinOp::Div, true),
            S::RemAssign(_) => (BinOp::Rem, true),
            S::BitXorAssign(_) => (BinOp::BitXor, true),
            S::BitAndAssign(_) => (BinOp::BitAnd, true),
            S::BitOrAssign(_) => (BinOp::BitOr, true),
            S::ShlAssign(_) => (BinOp::Shl, true),
            S::ShrAssign(_) => (BinOp::Shr, true),
            _ => {
                self.unsupported(
                    &b.op,
                    "this operator",
                    "use the arithmetic, bitwise, logical and comparison operators",
                );
                (BinOp::Add, false)
            }
        };
        let (left, right) = (self.boxed(&b.left), self.boxed(&b.right));
        if assign { ExprKind::AssignOp { op, left, right } } else { ExprKind::Binary { op, left, right } }
    }

    /// A method call: a DSL operation when the receiver's DSL type declares it with as many
    /// operands as the call passes, else a host method.
    fn method(&mut self, m: &'a syn::ExprMethodCall) -> ExprKind {
        let receiver = self.boxed(&m.receiver);
        let generics = m.turbofish.as_ref().map(|t| self.generics(t)).unwrap_or_default();
        let args = self.exprs(&m.args);
        let name = m.method.to_string();
        let op = self
            .kind_of(&receiver)
            .and_then(|r| Op::find(r, &name))
            .filter(|op| op.spec().operands.len() == args.len());
        match op {
            Some(op) => ExprKind::Op { op, receiver, generics, operands: args },
            None => ExprKind::Method { receiver, method: name, generics, args },
        }
    }

    /// A macro call: its arguments when they are expressions, and the identifiers among its
    /// top-level tokens.
    pub(super) fn mac(&mut self, m: &'a syn::Macro) -> Macro {
        let idents = m
            .tokens
            .clone()
            .into_iter()
            .filter_map(|t| match t {
                proc_macro2::TokenTree::Ident(i) => Some(i.to_string()),
                _ => None,
            })
            .collect();
        let args = m
            .parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
            .ok()
            .map(|exprs| self.apart(&exprs.into_iter().collect::<Vec<_>>()));
        Macro { path: self.path(&m.path), args, idents }
    }

    /// Lowers expressions parsed from a macro's tokens, which do not outlive the lowering:
    /// their sources are kept by range and text.
    fn apart(&mut self, exprs: &[syn::Expr]) -> Vec<Expr> {
        let mut apart = Lowerer {
            errors: self.errors,
            failed: false,
            sources: self.sources.apart(),
            context: self.context,
            scope: self.scope.clone(),
            module_fns: self.module_fns.clone(),
            called: std::mem::take(&mut self.called),
        };
        let out = apart.exprs(exprs);
        self.failed |= apart.failed;
        self.called = apart.called;
        self.sources.absorb(&apart.sources);
        out
    }

    /// The DSL type an expression's value has, when the lowering can tell.
    pub(super) fn kind_of(&self, e: &Expr) -> Option<Receiver> {
        match &e.kind {
            ExprKind::Path(p) => self.kind_of_var(p.ident()?),
            ExprKind::Paren(x) | ExprKind::Ref { expr: x, .. } | ExprKind::Await(x) => self.kind_of(x),
            ExprKind::Op { op, .. } => match op.spec().returns {
                Returns::Slot => Some(Receiver::Slot),
                Returns::Full => Some(Receiver::Full),
                Returns::View => Some(Receiver::TileRef),
                _ => None,
            },
            // The views a token gives of its slot's tiles.
            ExprKind::Method { receiver, .. } => match self.kind_of(receiver)? {
                Receiver::Slot | Receiver::Full => Some(Receiver::Tile),
                _ => None,
            },
            _ => None,
        }
    }

    /// Notes a call of `name`: a module function is lowered too.
    fn note_call(&mut self, name: &str) {
        if self.module_fns.iter().any(|f| f == name) && !self.called.iter().any(|f| f == name) {
            self.called.push(name.to_string());
        }
    }
}
