//! Register arithmetic: fragments in the `wgmma` accumulator layout and row vectors (this
//! thread's two rows of each 64-row block, the same in the four lanes of a quad), rendered
//! as calls of the generated-code helpers (`prelude.cuh`) or, for a mask, as a loop over the
//! thread's elements with the kernel's predicate inline.

use warpspec_ir::{Expr, ExprKind, Generic, Op, PatKind};

use super::body::{Body, Frag, Rows, Val};
use super::error::{Unsupported, unsupported};
use super::plan::Elem;
use crate::gpu::Arch;

impl Body<'_> {
    /// A fragment or row-vector operation of `cx` (`Class::FragmentMath`, `row_vec`).
    pub(super) fn math(&mut self, op: Op, e: &Expr, generics: &[Generic]) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let name = op.spec().name;
        match op {
            Op::RowVec => {
                let Some(rows) =
                    generics.first().and_then(|g| self.plan.generic(g)).and_then(|v| u32::try_from(v).ok())
                else {
                    return unsupported(line, "`row_vec::<R>` without a constant R");
                };
                self.check_rows(line, rows)?;
                let v = self.float(e, "value")?;
                let out = self.new_rows(rows);
                self.line(format!("// line {line}: cx.row_vec::<{rows}>({v})"));
                self.line(format!("float {}{};", out.var, self.rows_dims(rows)));
                self.line(format!("wsg::fill({}, {v});", out.var));
                Ok(Val::Rows(out))
            }
            Op::Scale | Op::Exp2 => {
                let f = self.frag(e, "frag")?;
                let body = if op == Op::Scale {
                    format!("return x * {};", self.float(e, "factor")?)
                } else {
                    "return wsg::exp2(x);".into()
                };
                if op == Op::Scale && self.queue(&f.var, body.replace("return ", "x = ")) {
                    self.line(format!("// line {line}: cx.{name}({}), queued", f.var));
                    return Ok(Val::Unit);
                }
                self.line(format!("wsg::map({}, [&](float x) {{ {body} }});  // line {line}: cx.{name}", f.var));
                Ok(Val::Unit)
            }
            Op::Cast => {
                let ty = generics.first().and_then(|g| match g {
                    Generic::Type(t) => t.name().and_then(Elem::parse),
                    _ => None,
                });
                let round = match ty {
                    Some(Elem::Bf16) => "round_bf16",
                    Some(Elem::F16) => "round_f16",
                    Some(Elem::F32) => return Ok(Val::Unit),
                    None => return unsupported(line, "`cast::<T>` to a type other than bf16, f16 or f32"),
                };
                let (var, fragment) = match self.operand(e, "regs")? {
                    Val::Frag(f) => (f.var, true),
                    Val::Rows(r) => (r.var, false),
                    v => return unsupported(line, format!("`cast` of {}", v.kind())),
                };
                let text = format!("wsg::map({var}, wsg::{round});  // line {line}: cx.cast (round in place)");
                if let Some(elem) = ty {
                    self.rounded.insert(var.clone(), elem);
                }
                if fragment && self.plan.arch == Arch::Sm100a {
                    // Deferred until the fragment is next read: a packed `tmem_store` rounds
                    // the same way (to nearest even, and rounding twice is rounding once), so
                    // it needs no separate pass.
                    self.line(format!("// line {line}: cx.cast of {var}, applied where it is next read"));
                    self.pending_round.push((self.depth(), var, text));
                } else {
                    self.line(text);
                }
                Ok(Val::Unit)
            }
            Op::ScaleSubRows | Op::MulRows => {
                let f = self.frag(e, "frag")?;
                let r = self.rows_of(e, "rows", f.rows)?;
                let body = if op == Op::ScaleSubRows {
                    format!("return x * {} - r;", self.float(e, "factor")?)
                } else {
                    "return x * r;".into()
                };
                let queued = body.replace("return ", "x = ").replace(" r;", &format!(" {}[0];", r.var));
                if self.plan.arch == Arch::Sm100a && self.queue(&f.var, queued) {
                    self.line(format!("// line {line}: cx.{name}({}, {}), queued", f.var, r.var));
                    return Ok(Val::Unit);
                }
                self.line(format!(
                    "wsg::zip_rows({}, {}, [&](float x, float r) {{ {body} }});  // line {line}: cx.{name}",
                    f.var, r.var
                ));
                Ok(Val::Unit)
            }
            Op::Mask => self.mask(e),
            Op::RowMax | Op::RowSum => {
                let f = self.frag(e, "frag")?;
                let out = self.new_rows(f.rows);
                if self.plan.arch == Arch::Sm100a {
                    self.line(format!("// line {line}: cx.{name}({}): over the thread's own row", f.var));
                } else {
                    self.line(format!("// line {line}: cx.{name}({}): over the row's quad", f.var));
                }
                self.line(format!("float {}{};", out.var, self.rows_dims(f.rows)));
                self.line(format!("wsg::{name}({}, {});", f.var, out.var));
                Ok(Val::Rows(out))
            }
            Op::RowsMax | Op::RowsSub => {
                let a = self.rows_of(e, "a", 0)?;
                let b = self.rows_of(e, "b", a.rows)?;
                let f = if op == Op::RowsMax { "fmaxf(x, y)" } else { "x - y" };
                let out = self.rows_result(line, name, a.rows);
                self.line(format!(
                    "wsg::rows_zip({}, {}, {}, [](float x, float y) {{ return {f}; }});",
                    a.var, b.var, out.var
                ));
                Ok(Val::Rows(out))
            }
            Op::RowsFma => {
                let a = self.rows_of(e, "a", 0)?;
                let b = self.rows_of(e, "b", a.rows)?;
                let c = self.rows_of(e, "c", a.rows)?;
                let out = self.rows_result(line, name, a.rows);
                self.line(format!("wsg::rows_fma({}, {}, {}, {});", a.var, b.var, c.var, out.var));
                Ok(Val::Rows(out))
            }
            Op::RowsScale | Op::RowsExp2 | Op::RowsRecip => {
                let a = self.rows_of(e, "a", 0)?;
                let body = match op {
                    Op::RowsScale => format!("x * {}", self.float(e, "factor")?),
                    Op::RowsExp2 => format!("wsg::exp2(x * {})", self.float(e, "factor")?),
                    _ => "1.0f / x".into(),
                };
                let out = self.rows_result(line, name, a.rows);
                self.line(format!("wsg::copy({}, {});", out.var, a.var));
                self.line(format!("wsg::map({}, [&](float x) {{ return {body}; }});", out.var));
                Ok(Val::Rows(out))
            }
            Op::RowsKeepUnlessGrew => {
                let a = self.rows_of(e, "old", 0)?;
                let b = self.rows_of(e, "new", a.rows)?;
                let t = self.float(e, "threshold")?;
                let out = self.rows_result(line, name, a.rows);
                self.line(format!(
                    "wsg::rows_zip({}, {}, {}, [&](float o, float n) {{ return o == wsg::neg_inf() || n - o > {t} ? n : o; }});",
                    a.var, b.var, out.var
                ));
                Ok(Val::Rows(out))
            }
            Op::Exp2Split if self.plan.arch == Arch::Sm100a => {
                let f = self.frag(e, "frag")?;
                let cols = match self.operand(e, "poly_cols")? {
                    Val::Int(c) => c,
                    v => return unsupported(line, format!("`exp2_split` with {} columns", v.kind())),
                };
                self.line(format!(
                    "wsg::exp2_split({}, int({cols}));  // line {line}: cx.exp2_split, software exp2 on part of each 8-column chunk",
                    f.var
                ));
                Ok(Val::Unit)
            }
            Op::RowsAnyBelow if self.plan.arch == Arch::Sm100a => {
                let a = self.rows_of(e, "a", 0)?;
                let bound = self.float(e, "bound")?;
                let threads = self.instance_threads();
                let bar = match self.plan.roles[self.role].instance_bar {
                    Some(id) if threads > 32 => format!("{id}u + instance"),
                    _ => "0u".to_string(),
                };
                let v = self.temp("any_below");
                self.line(format!(
                    "const bool {v} = wsg::any_below({}, {bound}, {bar}, {threads}u);  // line {line}: cx.{name}, a vote over the instance's rows",
                    a.var
                ));
                Ok(Val::Bool(v))
            }
            _ => unsupported(line, format!("`cx.{name}` is not rendered for {} yet", self.plan.arch.name())),
        }
    }

    /// The C++ dimensions of a row vector of `rows` rows: `[rows / 64][2]` in the wgmma
    /// accumulator layout (Hopper), `[1]` with one row per thread (Blackwell).
    fn rows_dims(&self, rows: u32) -> String {
        if self.plan.arch == Arch::Sm100a { "[1]".to_string() } else { format!("[{}][2]", rows / 64) }
    }

    /// Whether an `rows`-row vector or fragment has a layout: 64-row blocks (Hopper), one
    /// row per thread of the instance (Blackwell).
    pub(super) fn check_rows(&self, line: u32, rows: u32) -> Result<(), Unsupported> {
        if self.plan.arch == Arch::Sm100a {
            if rows != self.instance_threads() {
                return unsupported(
                    line,
                    format!(
                        "{rows} rows in instances of {} threads: on Blackwell a thread holds one row",
                        self.instance_threads()
                    ),
                );
            }
        } else if !rows.is_multiple_of(64) {
            return unsupported(line, format!("a {rows}-row vector: rows come in 64-row blocks"));
        }
        Ok(())
    }

    /// `cx.mask(frag, value, |r, c| keep)`: each of the thread's elements whose predicate is
    /// false becomes `value`; the predicate is rendered inline with `r`, `c` its row and
    /// column in the fragment.
    fn mask(&mut self, e: &Expr) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let f = self.frag(e, "frag")?;
        let value = self.float(e, "value")?;
        let Some(ExprKind::Closure { params, body }) = e.kind.operand("keep").map(|k| &k.kind) else {
            return unsupported(line, "`mask` whose predicate is not a closure `|r, c| ..`");
        };
        let names: Vec<Option<&str>> = params
            .iter()
            .map(|p| match &p.kind {
                PatKind::Ident { name, .. } => Some(name.as_str()),
                PatKind::Typed { pat, .. } => match &pat.kind {
                    PatKind::Ident { name, .. } => Some(name.as_str()),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        let [Some(r), Some(c)] = names.as_slice() else {
            return unsupported(line, "`mask` whose predicate does not take two names `|r, c|`");
        };
        self.line(format!("// line {line}: cx.mask({}, {value}, |{r}, {c}| ..)", f.var));
        if self.plan.arch == Arch::Sm100a {
            // One row per thread: element `i` is column `i` of the thread's row. The
            // predicate runs in a rolled loop that sets one bit per column (unrolled, ptxas
            // would keep every column's index live beside the row's values), then the bits
            // select the elements.
            if f.cols % 32 != 0 {
                return unsupported(line, "a `mask` of a fragment whose columns are not a multiple of 32");
            }
            self.open_block("");
            let (row, keep_bits, w, i) =
                (self.declare("mask_row"), self.declare("keep_bits"), self.declare("w"), self.declare("i"));
            self.line(format!("const int {row} = int(wsg::tmem_row());"));
            self.line(format!("ws::u32 {keep_bits}[{}];", f.cols / 32));
            self.line("#pragma unroll");
            self.open_block(format!("for (int {w} = 0; {w} < {}; ++{w})", f.cols / 32));
            self.line(format!("{keep_bits}[{w}] = 0u;"));
            self.line("#pragma unroll 1");
            self.open_block(format!("for (int {i} = 0; {i} < 32; ++{i})"));
            let (rc, cc) = (self.declare(r), self.declare(c));
            self.line(format!("const int {rc} = {row}, {cc} = 32 * {w} + {i};"));
            self.bind(r, Val::Int(rc));
            self.bind(c, Val::Int(cc));
            let mark = self.out.len();
            let Val::Bool(keep) = self.expr(body)? else {
                return unsupported(line, "a `mask` predicate that is not a flag");
            };
            if self.out.len() != mark {
                return unsupported(line, "a `mask` predicate with side effects");
            }
            self.line(format!("if ({keep}) {keep_bits}[{w}] |= 1u << {i};"));
            self.close_block();
            self.close_block();
            self.line("#pragma unroll");
            self.open_block(format!("for (int {i} = 0; {i} < {}; ++{i})", f.cols));
            self.line(format!("if ((({keep_bits}[{i} / 32] >> ({i} % 32)) & 1u) == 0u) {}[{i}] = {value};", f.var));
            self.close_block();
            self.close_block();
            return Ok(Val::Unit);
        }
        // Where element 0 sits, once (the warp index behind it is a shuffle); element `i`
        // is 8 rows further for `(i / 2) % 2` and `8 (i / 4) + i % 2` columns further.
        self.open_block("");
        let (row0, col0) = (self.declare("mask_row0"), self.declare("mask_col0"));
        self.line(format!("const int {row0} = int(ws::acc_row(0)), {col0} = int(ws::acc_col(0));"));
        // Loop names kept apart from the kernel's, which the predicate may read.
        let (mb, i) = (self.declare("mb"), self.declare("i"));
        self.line("#pragma unroll");
        self.open_block(format!("for (int {mb} = 0; {mb} < {}; ++{mb})", f.rows / 64));
        self.line("#pragma unroll");
        self.open_block(format!("for (int {i} = 0; {i} < {}; ++{i})", f.cols / 2));
        let (rc, cc) = (self.declare(r), self.declare(c));
        self.line(format!("const int {rc} = {mb} * 64 + {row0} + 8 * (({i} >> 1) & 1);"));
        self.line(format!("const int {cc} = {col0} + 8 * ({i} >> 2) + ({i} & 1);"));
        self.bind(r, Val::Int(rc));
        self.bind(c, Val::Int(cc));
        let mark = self.out.len();
        let keep = self.expr(body)?;
        let Val::Bool(keep) = keep else {
            return unsupported(line, format!("a `mask` predicate that is {}, not a flag", keep.kind()));
        };
        if self.out.len() != mark {
            return unsupported(line, "a `mask` predicate with side effects");
        }
        self.line(format!("if (!{keep}) {}[{mb}][{i}] = {value};", f.var));
        self.close_block();
        self.close_block();
        self.close_block();
        Ok(Val::Unit)
    }

    fn frag(&mut self, e: &Expr, name: &str) -> Result<Frag, Unsupported> {
        match self.operand(e, name)? {
            Val::Frag(f) => Ok(f),
            v => unsupported(e.pos.line, format!("`{name}` is {}, not a fragment", v.kind())),
        }
    }

    /// Operand `name` as a row vector of `rows` rows (any, for 0).
    fn rows_of(&mut self, e: &Expr, name: &str, rows: u32) -> Result<Rows, Unsupported> {
        match self.operand(e, name)? {
            Val::Rows(r) if rows == 0 || r.rows == rows => Ok(r),
            Val::Rows(r) => unsupported(e.pos.line, format!("`{name}` has {} rows, not {rows}", r.rows)),
            v => unsupported(e.pos.line, format!("`{name}` is {}, not a row vector", v.kind())),
        }
    }

    fn float(&mut self, e: &Expr, name: &str) -> Result<String, Unsupported> {
        match self.operand(e, name)? {
            Val::Float(f) => Ok(f),
            Val::Int(i) => Ok(format!("float({i})")),
            v => unsupported(e.pos.line, format!("`{name}` is {}, not a number", v.kind())),
        }
    }

    fn new_rows(&mut self, rows: u32) -> Rows {
        Rows { var: self.temp("rows"), rows }
    }

    /// A fresh row vector declared for the result of `cx.name`.
    fn rows_result(&mut self, line: u32, name: &str, rows: u32) -> Rows {
        let out = self.new_rows(rows);
        self.line(format!("// line {line}: cx.{name}"));
        self.line(format!("float {}{};", out.var, self.rows_dims(rows)));
        out
    }
}
