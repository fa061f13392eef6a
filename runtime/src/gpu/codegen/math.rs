//! Register arithmetic: fragments in the `wgmma` accumulator layout and row vectors (this
//! thread's two rows of each 64-row block, the same in the four lanes of a quad), rendered
//! as calls of the generated-code helpers (`prelude.cuh`) or, for a mask, as a loop over the
//! thread's elements with the kernel's predicate inline.

use warpspec_ir::{Expr, ExprKind, Generic, Op, PatKind};

use super::body::{Body, Frag, Rows, Val};
use super::error::{Unsupported, unsupported};
use super::plan::Elem;

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
                if rows % 64 != 0 {
                    return unsupported(line, format!("a {rows}-row vector: rows come in 64-row blocks"));
                }
                let v = self.float(e, "value")?;
                let out = self.new_rows(rows);
                self.line(format!("// line {line}: cx.row_vec::<{rows}>({v})"));
                self.line(format!("float {}[{}][2];", out.var, rows / 64));
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
                let var = match self.operand(e, "regs")? {
                    Val::Frag(f) => f.var,
                    Val::Rows(r) => r.var,
                    v => return unsupported(line, format!("`cast` of {}", v.kind())),
                };
                self.line(format!("wsg::map({var}, wsg::{round});  // line {line}: cx.cast (round in place)"));
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
                self.line(format!("// line {line}: cx.{name}({}): over the row's quad", f.var));
                self.line(format!("float {}[{}][2];", out.var, f.rows / 64));
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
            _ => unsupported(line, format!("`cx.{name}` is not rendered for the GPU yet")),
        }
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
        self.line(format!("float {}[{}][2];", out.var, rows / 64));
        out
    }
}
