//! Role bodies as CUDA statements: Rust control flow, `let`s and integer arithmetic from the
//! IR, with every value tracked by what it is on the device (an `int`, a pipeline stage, a
//! view of a shared tile, a register fragment). The DSL operations themselves are in
//! [`super::ops`].

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write;

use warpspec_ir::{BinOp, Block, Expr, ExprKind, Function, Kernel, Lit, Member, Pat, PatKind, StmtKind, UnOp};

use super::error::{Unsupported, unsupported};
use super::plan::Plan;
pub(crate) use super::value::{Frag, Rows, Uses, Val, View};

/// C++ words a Rust name must not become.
const RESERVED: &[&str] = &[
    "P",
    "S",
    "instance",
    "leader",
    "int",
    "float",
    "double",
    "char",
    "short",
    "long",
    "unsigned",
    "signed",
    "auto",
    "class",
    "struct",
    "union",
    "namespace",
    "template",
    "typename",
    "new",
    "delete",
    "this",
    "register",
    "default",
    "switch",
    "case",
    "goto",
    "volatile",
    "const",
    "static",
    "extern",
    "private",
    "public",
    "protected",
    "operator",
    "friend",
    "virtual",
    "inline",
    "asm",
    "min",
    "max",
    // Names the generated MMA loops use around expressions of the kernel's.
    "a_tile",
    "b_tile",
    "desc_b",
    "kk",
    "mb",
    "q",
    "a_tmem",
    "d_tmem",
    // The op timestamps' recorder and buffer.
    super::timestamps::RECORDER,
    super::timestamps::BUFFER,
];

/// Renders one role (and the helpers it calls, inlined) into C++ statements.
pub(crate) struct Body<'a> {
    pub plan: &'a Plan,
    /// The role being rendered (an index into the plan's roles).
    pub role: usize,
    pub kernel: &'a Kernel,
    pub uses: &'a mut Uses,
    pub out: String,
    indent: usize,
    scopes: Vec<HashMap<String, Val>>,
    declared: Vec<BTreeSet<String>>,
    /// Register arrays in scope (fragments, `wgmma` register operands), fenced around
    /// MMAs: the C++ scope depth each was declared at, and its name.
    pub fenced: Vec<(usize, String)>,
    /// Packed `wgmma` A operands in registers, fenced until a wait retires every MMA group.
    pub operands: Vec<(usize, String)>,
    tmp: u32,
    /// With op timestamps, what they record: each marked operation records a mark first
    /// (see `super::timestamps`).
    pub timestamped: Option<super::timestamps::TimestampSpec>,
    inlining: Vec<String>,
    /// Fragments loaded from tensor memory whose registers are not filled yet (Blackwell):
    /// element-wise ops queue up and run when the fragment is stored or needed whole.
    pub lazy: Vec<super::tmem::Lazy>,
    /// Fragments rounded in place to a 16-bit format (`cx.cast`): a store into tensor memory
    /// packs them two to a column, as a `umma_ts` A operand reads them.
    pub rounded: HashMap<String, super::plan::Elem>,
    /// Roundings of fragments (`cx.cast`) not emitted yet: the C++ scope depth, the
    /// fragment, the statement (Blackwell; see [`Body::flush_rounding`]).
    pub pending_round: Vec<(usize, String, String)>,
}

impl<'a> Body<'a> {
    pub fn new(plan: &'a Plan, kernel: &'a Kernel, uses: &'a mut Uses) -> Self {
        Body {
            plan,
            role: 0,
            kernel,
            uses,
            out: String::new(),
            indent: 1,
            scopes: vec![HashMap::new()],
            declared: vec![BTreeSet::new()],
            fenced: Vec::new(),
            operands: Vec::new(),
            tmp: 0,
            timestamped: None,
            inlining: Vec::new(),
            lazy: Vec::new(),
            rounded: HashMap::new(),
            pending_round: Vec::new(),
        }
    }

    /// Emits one line at the current indentation.
    pub fn line(&mut self, text: impl AsRef<str>) {
        let _ = writeln!(self.out, "{}{}", "    ".repeat(self.indent), text.as_ref());
    }

    /// Changes the indentation by `by` levels.
    pub fn indent_by(&mut self, by: i32) {
        self.indent = self.indent.saturating_add_signed(by as isize);
    }

    /// A fresh temporary name.
    pub fn temp(&mut self, stem: &str) -> String {
        self.tmp += 1;
        format!("{stem}_{}", self.tmp)
    }

    /// Binds `name` to `val` in the innermost scope.
    pub fn bind(&mut self, name: &str, val: Val) {
        self.scopes.last_mut().expect("a scope").insert(name.to_string(), val);
    }

    /// A C++ name for the Rust local `name`, unique in the current C++ scope.
    pub fn declare(&mut self, name: &str) -> String {
        let mut c = if RESERVED.contains(&name) { format!("{name}_") } else { name.to_string() };
        while self.declared.iter().any(|d| d.contains(&c)) {
            c.push('_');
        }
        self.declared.last_mut().expect("a scope").insert(c.clone());
        c
    }

    /// Registers `var` (a register array declared in the current C++ scope) to be fenced
    /// around MMAs while it is in scope.
    pub fn fence_later(&mut self, var: &str) {
        self.fenced.push((self.depth(), var.to_string()));
    }

    /// The C++ scope depth (blocks open).
    pub fn depth(&self) -> usize {
        self.declared.len()
    }

    fn lookup(&self, name: &str) -> Option<Val> {
        self.scopes.iter().rev().find_map(|s| s.get(name).cloned())
    }

    /// Opens a C++ block `head {` with its own scope.
    pub fn open_block(&mut self, head: impl AsRef<str>) {
        self.open(head);
    }

    /// Closes the innermost C++ block.
    pub fn close_block(&mut self) {
        self.close("");
    }

    fn open(&mut self, head: impl AsRef<str>) {
        // What a block does runs conditionally or repeatedly: queued element-wise ops of a
        // fragment loaded before it cannot wait until after it.
        self.materialize_all();
        self.line(format!("{} {{", head.as_ref()));
        self.indent += 1;
        self.scopes.push(HashMap::new());
        self.declared.push(BTreeSet::new());
    }

    fn close(&mut self, tail: &str) {
        self.scopes.pop();
        self.declared.pop();
        let depth = self.declared.len();
        self.fenced.retain(|(d, _)| *d <= depth);
        self.operands.retain(|(d, _)| *d <= depth);
        self.lazy.retain(|l| l.depth <= depth);
        self.pending_round.retain(|(d, _, _)| *d <= depth);
        self.indent -= 1;
        self.line(format!("}}{tail}"));
    }

    /// Renders a function body's statements in the current scope.
    pub fn block_stmts(&mut self, block: &Block) -> Result<(), Unsupported> {
        for s in &block.stmts {
            match &s.kind {
                StmtKind::Let(local) => {
                    let Some(init) = &local.init else {
                        return unsupported(s.pos.line, "a `let` without a value");
                    };
                    if local.diverge.is_some() {
                        return unsupported(s.pos.line, "`let .. else`");
                    }
                    if let (PatKind::Tuple(pats), ExprKind::Tuple(inits)) = (&local.pat.kind, &init.kind)
                        && pats.len() == inits.len()
                    {
                        // `let (a, b) = (x, y);`: element by element.
                        let vals = inits.iter().map(|e| self.expr(e)).collect::<Result<Vec<_>, _>>()?;
                        for (p, v) in pats.iter().zip(vals) {
                            self.let_pat(p, v)?;
                        }
                        continue;
                    }
                    let v = self.expr(init)?;
                    self.let_pat(&local.pat, v)?;
                }
                StmtKind::Expr { expr, .. } => {
                    self.expr(expr)?;
                }
                StmtKind::Macro(m) => {
                    let name = m.path.last().unwrap_or("");
                    if name.starts_with("debug_assert") || name.starts_with("assert") {
                        self.line(format!(
                            "// line {}: `{name}!` is checked on the emulator, not on the GPU",
                            s.pos.line
                        ));
                    } else {
                        return unsupported(s.pos.line, format!("the macro `{name}!`"));
                    }
                }
            }
        }
        Ok(())
    }

    fn nested(&mut self, head: impl AsRef<str>, block: &Block, tail: &str) -> Result<(), Unsupported> {
        self.open(head);
        self.block_stmts(block)?;
        self.close(tail);
        Ok(())
    }

    /// Binds a `let` pattern to a value, declaring C++ variables where the value needs one.
    fn let_pat(&mut self, pat: &Pat, v: Val) -> Result<(), Unsupported> {
        let line = pat.pos.line;
        match &pat.kind {
            PatKind::Wild => Ok(()),
            PatKind::Typed { pat, .. } => self.let_pat(pat, v),
            PatKind::Ident { name, mutable, sub: None, .. } => {
                let v = match v {
                    Val::Int(e) => {
                        let c = self.declare(name);
                        let q = if *mutable { "" } else { "const " };
                        self.line(format!("{q}int {c} = {e};"));
                        Val::Int(c)
                    }
                    Val::Bool(e) => {
                        let c = self.declare(name);
                        let q = if *mutable { "" } else { "const " };
                        self.line(format!("{q}bool {c} = {e};"));
                        Val::Bool(c)
                    }
                    Val::Float(e) => {
                        let c = self.declare(name);
                        let q = if *mutable { "" } else { "const " };
                        self.line(format!("{q}float {c} = {e};"));
                        Val::Float(c)
                    }
                    Val::Slot { pipe, stage } if *mutable => {
                        let c = self.declare(name);
                        self.line(format!("ws::u32 {c} = {stage};  // stage held by `{name}`"));
                        Val::Slot { pipe, stage: c }
                    }
                    Val::Full { pipe, stage } if *mutable => {
                        let c = self.declare(name);
                        self.line(format!("ws::u32 {c} = {stage};  // stage held by `{name}`"));
                        Val::Full { pipe, stage: c }
                    }
                    other => other,
                };
                self.bind(name, v);
                Ok(())
            }
            PatKind::Slice(items) => {
                let Val::Dims(which) = v else {
                    return unsupported(line, format!("a slice pattern over {}", v.kind()));
                };
                for (p, axis) in items.iter().zip(["x", "y", "z"]) {
                    self.let_pat(p, Val::Int(format!("int({which}.{axis})")))?;
                }
                Ok(())
            }
            _ => unsupported(line, "this `let` pattern"),
        }
    }

    /// An expression's value, emitting the statements that compute it.
    pub fn expr(&mut self, e: &Expr) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        match &e.kind {
            ExprKind::Lit(Lit::Int { digits, .. }) => Ok(Val::Int(digits.clone())),
            ExprKind::Lit(Lit::Float { digits, .. }) => {
                let d =
                    if digits.contains('.') || digits.contains('e') { digits.clone() } else { format!("{digits}.0") };
                Ok(Val::Float(format!("{d}f")))
            }
            ExprKind::Lit(Lit::Bool(b)) => Ok(Val::Bool(b.to_string())),
            ExprKind::Path(p) => {
                if let [ty, c] = p.segments.as_slice()
                    && matches!(ty.name.as_str(), "f32" | "f64")
                {
                    return match c.name.as_str() {
                        "NEG_INFINITY" => Ok(Val::Float("wsg::neg_inf()".into())),
                        "INFINITY" => Ok(Val::Float("wsg::pos_inf()".into())),
                        other => unsupported(line, format!("the constant `{}::{other}`", ty.name)),
                    };
                }
                let Some(name) = p.ident() else {
                    return unsupported(line, "a path that is not a local or a constant");
                };
                if let Some(v) = self.lookup(name) {
                    return Ok(v);
                }
                if self.plan.consts.contains_key(name) {
                    return Ok(Val::Int(name.to_string()));
                }
                unsupported(line, format!("the name `{name}`"))
            }
            ExprKind::Paren(inner) | ExprKind::Await(inner) => self.expr(inner),
            ExprKind::Ref { expr, .. } => self.expr(expr),
            ExprKind::Block { label: None, block } => {
                if let Some(e) = block.sole_expr() {
                    return self.expr(e);
                }
                self.nested("", block, "")?;
                Ok(Val::Unit)
            }
            ExprKind::Cast { expr, .. } => self.expr(expr),
            ExprKind::Unary { op: UnOp::Deref, expr } => self.expr(expr),
            ExprKind::Unary { op, expr } => match (op, self.expr(expr)?) {
                (UnOp::Not, Val::Bool(b)) => Ok(Val::Bool(format!("!{b}"))),
                (UnOp::Neg, Val::Int(i)) => Ok(Val::Int(format!("(-{i})"))),
                (UnOp::Neg, Val::Float(f)) => Ok(Val::Float(format!("(-{f})"))),
                (_, v) => unsupported(line, format!("this unary operator on {}", v.kind())),
            },
            ExprKind::Binary { op, left, right } => {
                let (l, r) = (self.expr(left)?, self.expr(right)?);
                binary(line, *op, l, r)
            }
            ExprKind::Assign { left, right } => {
                let (l, r) = (self.expr(left)?, self.expr(right)?);
                self.materialize_all();
                match (l, r) {
                    (Val::Int(a), Val::Int(b)) | (Val::Bool(a), Val::Bool(b)) | (Val::Float(a), Val::Float(b)) => {
                        self.line(format!("{a} = {b};"));
                    }
                    (Val::Slot { stage: a, .. }, Val::Slot { stage: b, .. })
                    | (Val::Full { stage: a, .. }, Val::Full { stage: b, .. }) => self.line(format!("{a} = {b};")),
                    (Val::Frag(a), Val::Frag(b)) if (a.rows, a.cols) == (b.rows, b.cols) => {
                        self.line(format!("wsg::copy({}, {});  // line {line}", a.var, b.var));
                    }
                    (Val::Rows(a), Val::Rows(b)) if a.rows == b.rows => {
                        self.line(format!("wsg::copy({}, {});  // line {line}", a.var, b.var));
                    }
                    (Val::Mma, Val::Mma) => self.line(format!(
                        "// line {line}: an MMA group is a position in wgmma's group queue; nothing to copy"
                    )),
                    (l, r) => return unsupported(line, format!("assigning {} to {}", r.kind(), l.kind())),
                }
                Ok(Val::Unit)
            }
            ExprKind::AssignOp { op, left, right } => {
                let (l, r) = (self.expr(left)?, self.expr(right)?);
                let (Val::Int(a), Val::Int(b)) = (&l, &r) else {
                    return unsupported(line, format!("a compound assignment to {}", l.kind()));
                };
                self.line(format!("{a} {}= {b};", bin_text(*op)));
                Ok(Val::Unit)
            }
            ExprKind::If { cond, then, els } => {
                if let Some(v) = self.select(cond, then, els.as_deref())? {
                    return Ok(v);
                }
                let Val::Bool(c) = self.expr(cond)? else {
                    return unsupported(line, "an `if` whose condition is not a flag (`if let`?)");
                };
                self.if_chain(&c, then, els.as_deref())?;
                Ok(Val::Unit)
            }
            ExprKind::For { label: None, pat, iter, body } if super::cluster::is_persistent_tiles(iter) => {
                self.persistent_for(line, pat, iter, body)?;
                Ok(Val::Unit)
            }
            ExprKind::For { label: None, pat, iter, body } => {
                let ExprKind::Range { start: Some(s), end: Some(end), closed } = &iter.kind else {
                    return unsupported(line, "a `for` over something other than `a..b`");
                };
                let (Val::Int(s), Val::Int(end)) = (self.expr(s)?, self.expr(end)?) else {
                    return unsupported(line, "a `for` range that is not integers");
                };
                let name = match &pat.kind {
                    PatKind::Ident { name, .. } => name.clone(),
                    PatKind::Wild => self.temp("it"),
                    _ => return unsupported(line, "this `for` pattern"),
                };
                self.open_scope_only();
                let c = self.declare(&name);
                let c_end = self.declare(&format!("{c}_end"));
                let cmp = if *closed { "<=" } else { "<" };
                self.close_scope_only();
                self.line(format!("// line {line}: for {name} in {s}..{end}"));
                self.open(format!("for (int {c} = {s}, {c_end} = {end}; {c} {cmp} {c_end}; ++{c})"));
                self.bind(&name, Val::Int(c.clone()));
                self.block_stmts(body)?;
                self.close("");
                Ok(Val::Unit)
            }
            ExprKind::While { label: None, cond, body } => {
                let mark = self.out.len();
                let Val::Bool(c) = self.expr(cond)? else {
                    return unsupported(line, "a `while` whose condition is not a flag");
                };
                if self.out.len() != mark {
                    return unsupported(line, "a `while` condition with side effects");
                }
                self.nested(format!("while ({c})"), body, "")?;
                Ok(Val::Unit)
            }
            ExprKind::Loop { label: None, body } => {
                self.nested("for (;;)", body, "")?;
                Ok(Val::Unit)
            }
            ExprKind::Break { label: None, value: None } => {
                self.line("break;");
                Ok(Val::Unit)
            }
            ExprKind::Continue { label: None } => {
                self.line("continue;");
                Ok(Val::Unit)
            }
            ExprKind::Field { base, member: Member::Named(name) } => match self.expr(base)? {
                Val::Args => self.param(line, name),
                v => unsupported(line, format!("field `{name}` of {}", v.kind())),
            },
            ExprKind::Index { base, index } => {
                let b = self.expr(base)?;
                match b {
                    Val::Field(field) => {
                        let i = self.index(index)?;
                        let f = &self.plan.fields[field];
                        return Ok(Val::View(View {
                            field,
                            stage: i,
                            row0: "0".into(),
                            rows: f.rows,
                            cols: f.cols,
                            transposed: false,
                        }));
                    }
                    Val::Tmem { tile, index: None } => {
                        let i = self.index(index)?;
                        return Ok(Val::Tmem { tile, index: Some(i) });
                    }
                    _ => {}
                }
                let Some(i) = self.plan.value(index) else {
                    return unsupported(line, "an index that is not a constant");
                };
                match b {
                    Val::Shape(g) => {
                        self.uses.rank(&g, i as usize + 1);
                        Ok(Val::Int(format!("P.{g}_shape{i}")))
                    }
                    Val::Dims(which) => {
                        let axis = ["x", "y", "z"].get(i as usize).copied().unwrap_or("x");
                        Ok(Val::Int(format!("int({which}.{axis})")))
                    }
                    v => unsupported(line, format!("indexing {}", v.kind())),
                }
            }
            ExprKind::Method { receiver, method, args, .. } => self.method(line, receiver, method, args),
            ExprKind::Call { func, args } => self.call(line, func, args),
            ExprKind::Op { .. } => self.op(e),
            ExprKind::Array(items) => {
                let mut out = Vec::new();
                for i in items {
                    match self.expr(i)? {
                        Val::Int(v) => out.push(v),
                        v => return unsupported(line, format!("an array element that is {}", v.kind())),
                    }
                }
                Ok(Val::Coords(out))
            }
            other => unsupported(line, format!("the expression {}", expr_name(other))),
        }
    }

    /// An index into an array of tiles (any integer expression).
    fn index(&mut self, e: &Expr) -> Result<String, Unsupported> {
        match self.expr(e)? {
            Val::Int(i) => Ok(i),
            v => unsupported(e.pos.line, format!("an index into an array of tiles that is {}", v.kind())),
        }
    }

    fn open_scope_only(&mut self) {
        self.declared.push(BTreeSet::new());
    }

    fn close_scope_only(&mut self) {
        let last = self.declared.pop().unwrap_or_default();
        // keep the loop variable names reserved in the enclosing C++ scope of the loop header
        self.declared.last_mut().expect("a scope").extend(last);
    }

    /// `if c { a } else { b }` whose branches are scalars computed without statements, as
    /// `(c ? a : b)`; `None` (nothing emitted) for any other `if`.
    fn select(&mut self, cond: &Expr, then: &Block, els: Option<&Expr>) -> Result<Option<Val>, Unsupported> {
        let Some(ExprKind::Block { label: None, block: els }) = els.map(|e| &e.kind) else { return Ok(None) };
        let (Some(a), Some(b)) = (then.sole_expr(), els.sole_expr()) else { return Ok(None) };
        let (mark, fenced, sites) = (self.out.len(), self.fenced.len(), self.uses.sites.len());
        let vals = (self.expr(cond), self.expr(a), self.expr(b));
        if self.out.len() != mark || self.fenced.len() != fenced {
            self.out.truncate(mark);
            self.fenced.truncate(fenced);
            self.uses.sites.truncate(sites);
            return Ok(None);
        }
        Ok(match vals {
            (Ok(Val::Bool(c)), Ok(Val::Int(a)), Ok(Val::Int(b))) => Some(Val::Int(format!("({c} ? {a} : {b})"))),
            (Ok(Val::Bool(c)), Ok(Val::Float(a)), Ok(Val::Float(b))) => Some(Val::Float(format!("({c} ? {a} : {b})"))),
            (Ok(Val::Bool(c)), Ok(Val::Bool(a)), Ok(Val::Bool(b))) => Some(Val::Bool(format!("({c} ? {a} : {b})"))),
            _ => None,
        })
    }

    fn if_chain(&mut self, cond: &str, then: &Block, els: Option<&Expr>) -> Result<(), Unsupported> {
        self.open(format!("if ({cond})"));
        self.block_stmts(then)?;
        match els.map(|e| &e.kind) {
            None => self.close(""),
            Some(ExprKind::Block { block, .. }) => {
                self.close(" else {");
                self.indent += 1;
                self.scopes.push(HashMap::new());
                self.declared.push(BTreeSet::new());
                self.block_stmts(block)?;
                self.close("");
            }
            Some(ExprKind::If { cond, then, els }) => {
                self.close(" else {");
                self.indent += 1;
                self.scopes.push(HashMap::new());
                self.declared.push(BTreeSet::new());
                let Val::Bool(c) = self.expr(cond)? else {
                    return unsupported(cond.pos.line, "an `else if` whose condition is not a flag");
                };
                self.if_chain(&c, then, els.as_deref())?;
                self.close("");
            }
            Some(_) => return unsupported(then.pos.line, "this `else` branch"),
        }
        Ok(())
    }

    /// `args.name`.
    fn param(&mut self, line: u32, name: &str) -> Result<Val, Unsupported> {
        use super::plan::ParamPlan;
        for p in &self.plan.params {
            match p {
                ParamPlan::Global { name: n, .. } if n == name => return Ok(Val::Global(n.clone())),
                ParamPlan::Int(n) if n == name => return Ok(Val::Int(format!("P.{n}"))),
                ParamPlan::Bool(n) if n == name => return Ok(Val::Bool(format!("P.{n}"))),
                ParamPlan::Float(n) if n == name => return Ok(Val::Float(format!("P.{n}"))),
                _ => {}
            }
        }
        unsupported(line, format!("the argument `{name}`"))
    }

    fn method(&mut self, line: u32, receiver: &Expr, method: &str, args: &[Expr]) -> Result<Val, Unsupported> {
        let r = self.expr(receiver)?;
        let mut ints = Vec::new();
        for a in args {
            match self.expr(a)? {
                Val::Int(i) => ints.push(i),
                v => return unsupported(line, format!("`{method}` with {} as argument", v.kind())),
            }
        }
        match (r, method, ints.as_slice()) {
            (Val::Global(g), "shape", []) => Ok(Val::Shape(g)),
            (Val::Int(a), "div_ceil", [b]) => Ok(Val::Int(format!("wsg::div_ceil({a}, {b})"))),
            (Val::Int(a), "min", [b]) => Ok(Val::Int(format!("::min({a}, {b})"))),
            (Val::Int(a), "max", [b]) => Ok(Val::Int(format!("::max({a}, {b})"))),
            (Val::Slot { pipe, stage } | Val::Full { pipe, stage }, field, []) => {
                let Some((index, f)) = self.plan.field(field) else {
                    return unsupported(line, format!("the view `{field}()` of a pipeline token"));
                };
                let guards = &self.kernel.pipelines[pipe].guards;
                if !guards.iter().any(|g| g == field) {
                    return unsupported(
                        line,
                        format!("`{field}` is not guarded by pipeline `{}`", self.plan.pipelines[pipe].name),
                    );
                }
                Ok(Val::View(View {
                    field: index,
                    stage,
                    row0: "0".into(),
                    rows: f.rows,
                    cols: f.cols,
                    transposed: false,
                }))
            }
            (r, m, _) => unsupported(line, format!("the method `{m}` on {}", r.kind())),
        }
    }

    /// A call of a module helper, inlined with its parameters bound to the arguments.
    fn call(&mut self, line: u32, func: &Expr, args: &[Expr]) -> Result<Val, Unsupported> {
        let ExprKind::Path(p) = &func.kind else {
            return unsupported(line, "a call of something other than a function name");
        };
        let name = p.last().unwrap_or("").to_string();
        if let [ty, _] = p.segments.as_slice()
            && ty.name == "Assume"
        {
            // `Assume::rate(..)`: how a run without data decides; the GPU has the data.
            return Ok(Val::Assumption);
        }
        let Some(f): Option<&Function> = self.kernel.function(&name) else {
            return unsupported(line, format!("the function `{name}`"));
        };
        if self.inlining.contains(&name) {
            return unsupported(line, format!("the recursive call of `{name}`"));
        }
        if f.params.len() != args.len() {
            return unsupported(line, format!("`{name}` called with {} arguments", args.len()));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        self.line(format!("// line {line}: {name}(..), inlined (declared at line {})", f.pos.line));
        // Inlined into the caller's C++ scope (its names kept unique there), so that the
        // value it returns, and what that value refers to, outlive the call.
        self.scopes.push(HashMap::new());
        for (param, v) in f.params.iter().zip(vals) {
            self.let_pat(&param.pat, v)?;
        }
        self.inlining.push(name);
        let mut body = f.body.clone();
        let tail = match body.stmts.last().map(|s| &s.kind) {
            Some(StmtKind::Expr { semi: false, .. }) if f.ret.is_some() => match body.stmts.pop().map(|s| s.kind) {
                Some(StmtKind::Expr { expr, .. }) => Some(expr),
                _ => None,
            },
            _ => None,
        };
        self.block_stmts(&body)?;
        let value = match tail {
            Some(t) => self.expr(&t)?,
            None => Val::Unit,
        };
        self.inlining.pop();
        self.scopes.pop();
        Ok(value)
    }
}

fn bin_text(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::BitXor => "^",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::And => "&&",
        BinOp::Or => "||",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
    }
}

fn binary(line: u32, op: BinOp, l: Val, r: Val) -> Result<Val, Unsupported> {
    let t = bin_text(op);
    let cmp = matches!(op, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
    match (l, r) {
        (Val::Int(a), Val::Int(b)) if cmp => Ok(Val::Bool(format!("({a} {t} {b})"))),
        (Val::Int(a), Val::Int(b)) if !matches!(op, BinOp::And | BinOp::Or) => Ok(Val::Int(format!("({a} {t} {b})"))),
        (Val::Float(a), Val::Float(b)) if cmp => Ok(Val::Bool(format!("({a} {t} {b})"))),
        (Val::Float(a), Val::Float(b)) => Ok(Val::Float(format!("({a} {t} {b})"))),
        (Val::Bool(a), Val::Bool(b)) => Ok(Val::Bool(format!("({a} {t} {b})"))),
        (l, r) => unsupported(line, format!("`{t}` between {} and {}", l.kind(), r.kind())),
    }
}

fn expr_name(k: &ExprKind) -> &'static str {
    match k {
        ExprKind::Match { .. } => "`match`",
        ExprKind::Closure { .. } => "closure",
        ExprKind::Try(_) => "`?`",
        ExprKind::Return(_) => "`return`",
        ExprKind::Tuple(_) => "tuple",
        ExprKind::Array(_) => "array outside a coordinate list",
        ExprKind::Struct { .. } => "struct literal",
        ExprKind::Macro(_) => "macro call",
        ExprKind::Range { .. } => "range outside a `for`",
        _ => "of this form (labelled loops and blocks, `if let`, ..)",
    }
}
