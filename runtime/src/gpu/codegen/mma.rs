//! `wgmma`: the warpgroup MMA with both operands in shared memory (`cx.wgmma`) or A in
//! registers (`cx.wgmma_rs`), rendered as a fence, one `wgmma.mma_async` per k16 step and
//! 64-row block, and a commit.

use warpspec_ir::Expr;

use super::body::{Body, Frag, Val};
use super::error::{Unsupported, unsupported};

/// wgmma's N extents with a generated variant in the device library.
const WGMMA_N: [u32; 8] = [8, 16, 32, 64, 96, 128, 192, 256];

/// The A operand of a `wgmma`.
enum OperandA {
    /// A shared tile read K-major (`cx.wgmma`).
    Shared(super::body::View),
    /// A fragment in the accumulator layout, rounded to the input type (`cx.wgmma_rs`).
    Registers(Frag),
}

impl Body<'_> {
    /// `cx.wgmma(acc, a, b)` (`registers`: `cx.wgmma_rs`). A is read K-major: from shared
    /// memory, or from registers, where the accumulator layout of columns `16k..16k+15` is
    /// the A fragment of k-step `k` (element pairs `8k + 2q`, `8k + 2q + 1` packed into
    /// register `q`). B is K-major when it is a transposed view (`b.t()` of an `N x K`
    /// tile), N-major (`tnspB = 1`) when it is a `K x N` tile.
    pub(super) fn wgmma(&mut self, e: &Expr, registers: bool) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let Val::Frag(acc) = self.operand(e, "acc")? else {
            return unsupported(line, "`wgmma` into something other than a fragment");
        };
        let a = match (self.operand(e, "a")?, registers) {
            (Val::View(v), false) => OperandA::Shared(v),
            (Val::Frag(f), true) => OperandA::Registers(f),
            (v, _) => return unsupported(line, format!("a `wgmma` A operand that is {}", v.kind())),
        };
        let Val::View(b) = self.operand(e, "b")? else {
            return unsupported(line, "`wgmma` of a B operand that is not a shared tile");
        };
        let fb = self.plan.fields[b.field].clone();
        let Some(ty) = fb.elem.mma() else {
            return unsupported(line, "`wgmma` needs bf16 or f16 operands");
        };
        let (a_rows, a_cols) = match &a {
            OperandA::Shared(v) => {
                let fa = &self.plan.fields[v.field];
                if fa.elem != fb.elem {
                    return unsupported(line, "`wgmma` needs both operands bf16 or both f16");
                }
                if v.transposed {
                    return unsupported(line, "`wgmma` with a transposed A (M-major) operand");
                }
                (v.rows, v.cols)
            }
            OperandA::Registers(f) => (f.rows, f.cols),
        };
        let (k, n) = if b.transposed { (b.cols, b.rows) } else { (b.rows, b.cols) };
        if a_cols != k || a_rows != acc.rows || n != acc.cols || a_rows % 64 != 0 || k % 16 != 0 {
            return unsupported(
                line,
                format!("`wgmma` of {a_rows} x {a_cols} by {k} x {n} into a {} x {} fragment", acc.rows, acc.cols),
            );
        }
        if !WGMMA_N.contains(&n) {
            return unsupported(line, format!("`wgmma` with N = {n}; the device library has N in {WGMMA_N:?}"));
        }
        let eb = fb.elem.bytes();
        let layout = |row_bytes: u32| if row_bytes == 128 { 1 } else { 2 };
        let (b_base, b_desc, tb) = if b.transposed {
            let (rb, pb) = (fb.layout.row_bytes, fb.layout.panel_cols);
            let base = format!("S.{} + {} * {}u + {} * {rb}u", fb.name, b.stage, fb.stage_bytes, b.row0);
            let addr = format!("b_tile + (kk * 16 / {pb}) * {}u + (kk * 16 % {pb}) * {eb}u", fb.rows * rb);
            (base, format!("wsg::desc({addr}, 16u, {}u, {})", 8 * rb, layout(rb)), 0)
        } else {
            if fb.layout.row_bytes != 128 {
                return unsupported(line, "an N-major B operand whose rows are not 128-byte panels");
            }
            let base = format!("S.{} + {} * {}u + {} * 128u", fb.name, b.stage, fb.stage_bytes, b.row0);
            // N-major, 128-byte swizzle: atoms of 64 columns x 8 rows (1024 bytes); LBO is
            // the distance between 64-column panels, SBO between 8-row groups along K.
            (base, format!("wsg::desc(b_tile + kk * 2048u, {}u, 1024u, 1)", fb.rows * 128), 1)
        };
        let (blocks, steps) = (a_rows / 64, k / 16);
        let issue = match &a {
            OperandA::Shared(v) => {
                let fa = self.plan.fields[v.field].clone();
                // K-major rows of `row_bytes`; k16 steps move 32 bytes within a panel,
                // panels are `rows * row_bytes` apart.
                let (ra, pa) = (fa.layout.row_bytes, fa.layout.panel_cols);
                let a_base = format!("S.{} + {} * {}u + {} * {ra}u", fa.name, v.stage, fa.stage_bytes, v.row0);
                let a_addr = format!(
                    "a_tile + mb * {}u + (kk * 16 / {pa}) * {}u + (kk * 16 % {pa}) * {eb}u",
                    64 * ra,
                    fa.rows * ra
                );
                self.line(format!(
                    "// line {line}: cx.wgmma({} += {}[{a_rows} x {a_cols}] * {}[{k} x {n}])",
                    acc.var, fa.name, fb.name
                ));
                self.line("{");
                self.indent_by(1);
                self.line(format!("const unsigned char* a_tile = {a_base};"));
                let a_desc = format!("wsg::desc({a_addr}, 16u, {}u, {})", 8 * ra, layout(ra));
                format!("ws::wgmma_ss_m64n{n}k16_f32_{ty}<0, {tb}>({}[mb], {a_desc}, desc_b, 1u);", acc.var)
            }
            OperandA::Registers(f) => {
                // The packed A fragments stay live (fenced) until a wait retires the MMA:
                // the tensor cores read them after the instruction issues.
                let regs = self.temp("a_regs");
                let pack = if ty == "bf16" { "pack_bf16x2" } else { "pack_f16x2" };
                self.line(format!(
                    "// line {line}: cx.wgmma_rs({} += {}[{a_rows} x {a_cols}] (registers) * {}[{k} x {n}])",
                    acc.var, f.var, fb.name
                ));
                self.line(format!("ws::u32 {regs}[{}][4];", blocks * steps));
                self.line("#pragma unroll");
                self.line(format!("for (int mb = 0; mb < {blocks}; ++mb)"));
                self.line("#pragma unroll");
                self.line(format!("for (int kk = 0; kk < {steps}; ++kk)"));
                self.line("#pragma unroll");
                self.line("for (int q = 0; q < 4; ++q)");
                self.line(format!(
                    "    {regs}[mb * {steps} + kk][q] = ws::{pack}({v}[mb][8 * kk + 2 * q], {v}[mb][8 * kk + 2 * q + 1]);",
                    v = f.var
                ));
                self.operands.push((self.depth(), regs.clone()));
                self.line("{");
                self.indent_by(1);
                format!(
                    "ws::wgmma_rs_m64n{n}k16_f32_{ty}<{tb}>({}[mb], {regs}[mb * {steps} + kk], desc_b, 1u);",
                    acc.var
                )
            }
        };
        self.line(format!("const unsigned char* b_tile = {b_base};"));
        self.fence_frags();
        self.line("ws::wgmma_fence();");
        self.line("#pragma unroll");
        self.line(format!("for (ws::u32 kk = 0; kk < {steps}u; ++kk) {{"));
        self.indent_by(1);
        self.line(format!("const ws::u64 desc_b = {b_desc};"));
        self.line("#pragma unroll");
        self.line(format!("for (ws::u32 mb = 0; mb < {blocks}u; ++mb) {{"));
        self.indent_by(1);
        self.line(issue);
        self.indent_by(-1);
        self.line("}");
        self.indent_by(-1);
        self.line("}");
        self.line("ws::wgmma_commit();");
        self.fence_frags();
        self.indent_by(-1);
        self.line("}");
        Ok(Val::Mma)
    }
}
