//! Blackwell's tensor memory and `tcgen05.mma`: allocation-relative addresses of
//! tensor-memory tiles, fragments loaded from them (one row per thread, `tcgen05.ld
//! 32x32b`), their stores back (`tcgen05.st`), the single-thread MMAs (`umma`, `umma_ts`)
//! with their instruction and shared-memory descriptors, and `tcgen05.commit` arrivals.
//!
//! A fragment loaded from tensor memory stays there while only element-wise ops (scale,
//! multiply by a row vector) touch it: they queue, and a store of the fragment streams it
//! 32 columns at a time through them (`ld`, ops, `st`), so a role with few registers (the
//! correction warpgroup rescaling a 128-column `O`) never holds a whole row. Any other use
//! of the fragment, a block that may run its ops conditionally or repeatedly, or an
//! assignment loads it whole into registers first.

use warpspec_ir::Expr;

use super::body::{Body, Frag, Val, View};
use super::error::{Unsupported, unsupported};
use super::plan::Elem;

/// A fragment whose registers are not loaded yet: where it lives in tensor memory and the
/// element-wise ops queued on it (C++ statements on `x`).
#[derive(Clone, Debug)]
pub(crate) struct Lazy {
    /// The C++ scope depth it was created at.
    pub depth: usize,
    /// The fragment's array name (declared when it is loaded whole).
    pub var: String,
    /// Its tensor-memory address (C++ expression).
    pub addr: String,
    /// Its columns.
    pub cols: u32,
    /// Queued ops, in order: statements updating `x`.
    pub ops: Vec<String>,
}

/// The instruction descriptor of `tcgen05.mma.kind::f16` with f32 accumulators (PTX ISA,
/// "Instruction descriptor", table for `.kind::f16`): D format in bits 4-5 (1: f32), A and
/// B formats in bits 7-9 and 10-12 (0: f16, 1: bf16), A and B major-ness in bits 15 and 16
/// (0: K-major, 1: MN-major), `N >> 3` in bits 17-22, `M >> 4` in bits 24-28; dense, no
/// negation, no saturation, no shift.
pub(crate) fn umma_idesc(m: u32, n: u32, elem: Elem, a_mn_major: bool, b_mn_major: bool) -> u32 {
    let format = match elem {
        Elem::F16 => 0,
        Elem::Bf16 | Elem::F32 => 1,
    };
    (1 << 4)
        | (format << 7)
        | (format << 10)
        | (u32::from(a_mn_major) << 15)
        | (u32::from(b_mn_major) << 16)
        | ((n >> 3) << 17)
        | ((m >> 4) << 24)
}

/// The swizzle code of an sm_100 shared-memory descriptor (bits 61-63) for rows of
/// `row_bytes` bytes (PTX ISA, "tcgen05 Matrix Descriptors": 2 for the 128-byte swizzle, 4
/// for 64-byte).
pub(crate) fn umma_swizzle(row_bytes: u32) -> u32 {
    if row_bytes == 128 { 2 } else { 4 }
}

/// The fields of an sm_100 shared-memory matrix descriptor other than the start address
/// (PTX ISA, "tcgen05 Matrix Descriptors"): the leading and stride byte offsets (`>> 4`, 14
/// bits each, at bits 16 and 32), the fixed version `0b001` at bits 46-48, base offset 0
/// (tiles are 1024-aligned), and the swizzle code at bits 61-63. The device helper
/// `wsg::umma_desc` ors in the start address. sm_90's `wgmma` descriptor differs by the
/// version bit and by the swizzle field's width (2 bits at 62-63 holding 1 for 128-byte, 2
/// for 64-byte: the same bits as codes 2 and 4 here).
pub(crate) fn umma_desc_fields(lbo: u32, sbo: u32, swizzle: u32) -> u64 {
    (u64::from((lbo >> 4) & 0x3FFF) << 16)
        | (u64::from((sbo >> 4) & 0x3FFF) << 32)
        | (1 << 46)
        | (u64::from(swizzle & 7) << 61)
}

impl Body<'_> {
    /// The tensor-memory address of tile `tile` (element `index` of an array).
    pub(super) fn tmem_addr(&self, tile: usize, index: &Option<String>, line: u32) -> Result<String, Unsupported> {
        let t = &self.plan.tmem[tile];
        match index {
            Some(i) => Ok(format!("(S.tmem + {}u + ws::u32({i}) * {}u)", t.col0, t.cols)),
            None if t.count == 1 => Ok(format!("(S.tmem + {}u)", t.col0)),
            None => unsupported(line, format!("`{}` is an array of tensor-memory tiles; index it", t.name)),
        }
    }

    /// Operand `name` as a tensor-memory tile: (tile, address).
    fn tmem_operand(&mut self, e: &Expr, name: &str) -> Result<(usize, String), Unsupported> {
        match self.operand(e, name)? {
            Val::Tmem { tile, index } => Ok((tile, self.tmem_addr(tile, &index, e.pos.line)?)),
            v => unsupported(e.pos.line, format!("`{name}` is {}, not a tensor-memory tile", v.kind())),
        }
    }

    /// Threads of an instance of the role being rendered.
    pub(super) fn instance_threads(&self) -> u32 {
        self.plan.roles[self.role].warps_per_instance * 32
    }

    /// `cx.tmem_load(src)`: a fragment of one row per thread, queued (see the module
    /// documentation).
    pub(super) fn tmem_load(&mut self, e: &Expr) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let (tile, addr) = self.tmem_operand(e, "src")?;
        let t = self.plan.tmem[tile].clone();
        if self.instance_threads() != t.rows {
            return unsupported(
                line,
                format!(
                    "`tmem_load` of a {}-lane tile by instances of {} threads: each thread reads one lane (32x32b), so a {}-row tile needs {} warps aligned to a warpgroup",
                    t.rows,
                    self.instance_threads(),
                    t.rows,
                    t.rows / 32
                ),
            );
        }
        if !t.cols.is_multiple_of(32) {
            return unsupported(line, format!("`tmem_load` of {} columns; loads go 32 columns at a time", t.cols));
        }
        let var = self.temp("frag");
        self.line(format!(
            "// line {line}: cx.tmem_load({} ({} x {})): this thread's row, loaded when first needed whole",
            t.name, t.rows, t.cols
        ));
        self.lazy.push(Lazy { depth: self.depth(), var: var.clone(), addr, cols: t.cols, ops: Vec::new() });
        Ok(Val::Frag(Frag { var, rows: t.rows, cols: t.cols }))
    }

    /// Queues the element-wise statement `op` (on `x`) on a queued fragment; false when the
    /// fragment is in registers.
    pub(super) fn queue(&mut self, var: &str, op: String) -> bool {
        match self.lazy.iter_mut().find(|l| l.var == var) {
            Some(l) => {
                l.ops.push(op);
                true
            }
            None => false,
        }
    }

    /// The queued ops of `l` as a C++ lambda on one element.
    fn lambda(l: &Lazy) -> String {
        let body: String = l.ops.iter().map(|o| format!("{o} ")).collect();
        format!("[&](float x) {{ {body}return x; }}")
    }

    /// Emits the deferred roundings (`cx.cast`) of every fragment but `except`.
    pub(super) fn flush_rounding(&mut self, except: Option<&str>) {
        let (keep, emit): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.pending_round).into_iter().partition(|(_, v, _)| Some(v.as_str()) == except);
        self.pending_round = keep;
        for (_, _, text) in emit {
            self.line(text);
        }
    }

    /// Whether fragment `var` has a deferred rounding; takes it.
    fn take_rounding(&mut self, var: &str) -> bool {
        let before = self.pending_round.len();
        self.pending_round.retain(|(_, v, _)| v != var);
        self.pending_round.len() != before
    }

    /// Loads every queued fragment into registers, running its queued ops, and emits the
    /// deferred roundings.
    pub(super) fn materialize_all(&mut self) {
        self.flush_rounding(None);
        for l in std::mem::take(&mut self.lazy) {
            self.line(format!("float {}[{}];  // loaded from tensor memory", l.var, l.cols));
            self.line(format!("wsg::tmem_load({}, {});", l.addr, l.var));
            if !l.ops.is_empty() {
                self.line(format!("wsg::map({}, {});", l.var, Self::lambda(&l)));
            }
        }
    }

    /// Takes the queued fragment `var` out of the queue.
    fn take_lazy(&mut self, var: &str) -> Option<Lazy> {
        let i = self.lazy.iter().position(|l| l.var == var)?;
        Some(self.lazy.remove(i))
    }

    /// `cx.tmem_store(src, dst)`: a queued fragment streams from its tile to `dst` through
    /// its ops; one in registers is stored as f32, or, rounded to bf16 / f16 by `cast`, as
    /// packed pairs (the A-operand layout `umma_ts` reads).
    pub(super) fn tmem_store(&mut self, e: &Expr) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let Val::Frag(f) = self.operand(e, "src")? else {
            return unsupported(line, "`tmem_store` of something other than a fragment");
        };
        let (tile, addr) = self.tmem_operand(e, "dst")?;
        let t = self.plan.tmem[tile].clone();
        if (f.rows, f.cols) != (t.rows, t.cols) {
            return unsupported(line, format!("`tmem_store` of a {} x {} fragment into `{}`", f.rows, f.cols, t.name));
        }
        if let Some(l) = self.take_lazy(&f.var) {
            self.line(format!(
                "// line {line}: cx.tmem_store({} -> {}), 32 columns at a time through the queued ops",
                f.var, t.name
            ));
            self.line(format!("wsg::tmem_map_copy<{}>({}, {addr}, {});", l.cols, l.addr, Self::lambda(&l)));
            return Ok(Val::Unit);
        }
        let deferred = self.take_rounding(&f.var);
        match self.rounded.get(&f.var).copied() {
            Some(elem @ (Elem::Bf16 | Elem::F16)) => {
                if f.cols % 64 != 0 {
                    return unsupported(line, "a packed `tmem_store` of columns not in multiples of 64");
                }
                self.line(format!(
                    "// line {line}: cx.tmem_store({} -> {}) as {:?} pairs, two elements per column",
                    f.var, t.name, elem
                ));
                self.line(format!("wsg::tmem_store_packed<{}>({addr}, {});", elem == Elem::F16, f.var));
            }
            _ => {
                if deferred {
                    // Not packed: the rounding must happen first.
                    self.flush_rounding(None);
                }
                self.line(format!("// line {line}: cx.tmem_store({} -> {}) as f32", f.var, t.name));
                self.line(format!("wsg::tmem_store({addr}, {});", f.var));
            }
        }
        Ok(Val::Unit)
    }

    /// `cx.umma(acc, a, b, accumulate)` (`a_in_tmem`: `cx.umma_ts`): one
    /// `tcgen05.mma.cta_group::1.kind::f16` per k16 step, issued by the instance's leader.
    /// A is K-major (from shared memory, or packed 16-bit pairs in tensor memory); B is
    /// K-major when it is a transposed view (`b.t()` of an `N x K` tile), N-major when it
    /// is a `K x N` tile, as for `wgmma`.
    pub(super) fn umma(&mut self, e: &Expr, a_in_tmem: bool) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let (acc_tile, d_addr) = self.tmem_operand(e, "acc")?;
        let acc = self.plan.tmem[acc_tile].clone();
        let Val::View(b) = self.operand(e, "b")? else {
            return unsupported(line, "`umma` of a B operand that is not a shared tile");
        };
        let fb = self.plan.fields[b.field].clone();
        let (k, n) = if b.transposed { (b.cols, b.rows) } else { (b.rows, b.cols) };
        let Some(ty) = fb.elem.mma() else {
            return unsupported(line, "`umma` needs bf16 or f16 operands");
        };
        if !fb.layout.swizzled {
            return unsupported(line, format!("`umma` B operand `{}` is not in a swizzled layout", fb.name));
        }
        let eb = fb.elem.bytes();
        let (a_rows, a_cols, a_text, a_setup) = if a_in_tmem {
            let (tile, addr) = self.tmem_operand(e, "a")?;
            let t = &self.plan.tmem[tile];
            (t.rows, t.cols, t.name.clone(), format!("const ws::u32 a_tmem = {addr};"))
        } else {
            let Val::View(v) = self.operand(e, "a")? else {
                return unsupported(line, "`umma` of an A operand that is not a shared tile");
            };
            let fa = self.plan.fields[v.field].clone();
            if fa.elem != fb.elem || v.transposed || !fa.layout.swizzled {
                return unsupported(
                    line,
                    "`umma` needs A and B of one format (bf16 or f16), A K-major in a swizzled tile",
                );
            }
            let setup = format!(
                "const unsigned char* a_tile = S.{} + {} * {}u + {} * {}u;",
                fa.name, v.stage, fa.stage_bytes, v.row0, fa.layout.row_bytes
            );
            (v.rows, v.cols, fa.name.clone(), setup)
        };
        if a_rows != 128 || acc.rows != 128 || a_cols != k || n != acc.cols || k % 16 != 0 || n % 16 != 0 || n > 256 {
            return unsupported(
                line,
                format!(
                    "`umma` of {a_rows} x {a_cols} by {k} x {n} into a {} x {} tile: M = 128, N a multiple of 16 up to 256, K of 16",
                    acc.rows, acc.cols
                ),
            );
        }
        let accumulate = match self.operand(e, "accumulate")? {
            Val::Bool(b) => b,
            v => return unsupported(line, format!("`umma`'s accumulate flag is {}", v.kind())),
        };
        let swz = umma_swizzle(fb.layout.row_bytes);
        let (b_base, b_desc) = if b.transposed {
            let (rb, pb) = (fb.layout.row_bytes, fb.layout.panel_cols);
            let base = format!("S.{} + {} * {}u + {} * {rb}u", fb.name, b.stage, fb.stage_bytes, b.row0);
            let addr = format!("b_tile + (kk * 16u / {pb}u) * {}u + (kk * 16u % {pb}u) * {eb}u", fb.rows * rb);
            (base, format!("wsg::umma_desc({addr}, {:#x}ull)", umma_desc_fields(16, 8 * rb, swz)))
        } else {
            if fb.layout.row_bytes != 128 {
                return unsupported(line, "an N-major `umma` B operand whose rows are not 128-byte panels");
            }
            let base = format!("S.{} + {} * {}u + {} * 128u", fb.name, b.stage, fb.stage_bytes, b.row0);
            // N-major, 128-byte swizzle: atoms of 64 columns x 8 rows (1024 bytes); LBO is
            // the distance between 64-column panels, SBO between 8-row groups along K.
            (base, format!("wsg::umma_desc(b_tile + kk * 2048u, {:#x}ull)", umma_desc_fields(fb.rows * 128, 1024, swz)))
        };
        let elem = fb.elem;
        let idesc = umma_idesc(128, n, elem, false, !b.transposed);
        let steps = k / 16;
        let issue = if a_in_tmem {
            // 16 elements of K are 8 columns of packed pairs.
            format!("wsg::umma_ts(d_tmem, a_tmem + kk * 8u, desc_b, {idesc:#010x}u, kk > 0u || {accumulate});")
        } else {
            let fa = self.plan.fields.iter().find(|f| f.name == a_text).cloned();
            let Some(fa) = fa else { return unsupported(line, "the A tile of `umma`") };
            let (ra, pa) = (fa.layout.row_bytes, fa.layout.panel_cols);
            let a_addr = format!("a_tile + (kk * 16u / {pa}u) * {}u + (kk * 16u % {pa}u) * {eb}u", fa.rows * ra);
            format!(
                "wsg::umma_ss(d_tmem, wsg::umma_desc({a_addr}, {:#x}ull), desc_b, {idesc:#010x}u, kk > 0u || {accumulate});",
                umma_desc_fields(16, 8 * ra, umma_swizzle(ra))
            )
        };
        let what = if a_in_tmem { "umma_ts" } else { "umma" };
        self.line(format!(
            "// line {line}: cx.{what}({} {}= {a_text}[{a_rows} x {a_cols}] * {}[{k} x {n}]), {steps} x tcgen05.mma k16 ({ty}, f32 accumulate)",
            acc.name,
            if accumulate == "false" { "" } else { "(+)" },
            fb.name
        ));
        self.line("if (leader) {");
        self.indent_by(1);
        self.line(format!("const ws::u32 d_tmem = {d_addr};"));
        self.line(a_setup);
        self.line(format!("const unsigned char* b_tile = {b_base};"));
        self.line("#pragma unroll");
        self.line(format!("for (ws::u32 kk = 0; kk < {steps}u; ++kk) {{"));
        self.indent_by(1);
        self.line(format!("const ws::u64 desc_b = {b_desc};"));
        self.line(issue);
        self.indent_by(-1);
        self.line("}");
        self.indent_by(-1);
        self.line("}");
        Ok(Val::Unit)
    }

    /// A `tcgen05.commit` by the leader onto the mbarrier `bar` (C++ lvalue): one arrival
    /// once every MMA the leader issued before has completed.
    pub(super) fn commit_mma(&mut self, line: u32, bar: &str, what: &str) {
        self.line(format!("// line {line}: {what}: arrives when the MMAs issued so far complete"));
        self.line(format!("if (leader) wsg::umma_commit(&{bar});"));
    }

    /// `cx.store(src, dst)`: this thread's row of the fragment into a 16-bit tile in TMA's
    /// swizzled layout (a queued fragment streams 32 columns at a time), then
    /// `fence.proxy.async` so that a TMA store may read it.
    pub(super) fn store_tile(&mut self, e: &Expr) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let Val::Frag(f) = self.operand(e, "src")? else {
            return unsupported(line, "`store` of something other than a fragment");
        };
        let Val::View(v) = self.operand(e, "dst")? else {
            return unsupported(line, "`store` into something other than a shared tile");
        };
        let t = self.plan.fields[v.field].clone();
        let f16 = match t.elem {
            Elem::F16 => true,
            Elem::Bf16 => false,
            Elem::F32 => return unsupported(line, "`store` into an f32 tile is not rendered; 16-bit tiles are"),
        };
        if !t.layout.swizzled || v.transposed || v.row0 != "0" || (v.rows, v.cols) != (f.rows, f.cols) {
            return unsupported(
                line,
                format!("`store` of a {} x {} fragment into part of `{}`", f.rows, f.cols, t.name),
            );
        }
        if f.rows != self.instance_threads() {
            return unsupported(line, "`store` of a fragment whose rows are not one per thread of the instance");
        }
        let tile = format!("S.{} + {} * {}u", t.name, v.stage, t.stage_bytes);
        let targs = format!("{f16}, {}, {}", t.layout.row_bytes, t.layout.panel_cols);
        self.line(format!(
            "// line {line}: cx.store({} -> {}) rounded to {:?}, in TMA's {}-byte swizzle",
            f.var, t.name, t.elem, t.layout.row_bytes
        ));
        match self.take_lazy(&f.var) {
            Some(l) => self.line(format!(
                "wsg::tmem_map_store_tile<{targs}, {}>({}, {tile}, {}u, {});",
                l.cols,
                l.addr,
                t.rows,
                Self::lambda(&l)
            )),
            None => self.line(format!("wsg::store_tile<{targs}>({}, {tile}, {}u, 0u);", f.var, t.rows)),
        }
        self.line("ws::fence_proxy_async();");
        Ok(Val::Unit)
    }

    /// `cx.store_rows(src, dst)` / `cx.load_rows(src)`: this thread's row of an `R x 1` f32
    /// tile.
    pub(super) fn rows_tile(&mut self, e: &Expr, store: bool) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let Val::View(v) = self.operand(e, if store { "dst" } else { "src" })? else {
            return unsupported(line, "statistics moved to or from something other than a shared tile");
        };
        let t = self.plan.fields[v.field].clone();
        if t.elem != Elem::F32 || v.cols != 1 || v.row0 != "0" || v.rows != self.instance_threads() {
            return unsupported(
                line,
                format!(
                    "row statistics in `{}` ({} x {} {:?}): an R x 1 f32 tile with a row per thread of the instance",
                    t.name, v.rows, v.cols, t.elem
                ),
            );
        }
        let tile = format!("S.{} + {} * {}u", t.name, v.stage, t.stage_bytes);
        if store {
            let Val::Rows(r) = self.operand(e, "src")? else {
                return unsupported(line, "`store_rows` of something other than a row vector");
            };
            self.line(format!("wsg::store_rows({}, {tile});  // line {line}: cx.store_rows -> {}", r.var, t.name));
            return Ok(Val::Unit);
        }
        let out = super::body::Rows { var: self.temp("rows"), rows: v.rows };
        self.line(format!("float {}[1];  // line {line}: cx.load_rows({})", out.var, t.name));
        self.line(format!("wsg::load_rows({}, {tile});", out.var));
        Ok(Val::Rows(out))
    }

    /// `cx.tma_store(src, dst, coords)`: the leader fences the async proxy, issues one
    /// `cp.async.bulk.tensor` per 128-byte panel and commits them as one bulk group.
    pub(super) fn tma_store(&mut self, e: &Expr) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let Val::View(v) = self.operand(e, "src")? else {
            return unsupported(line, "`tma_store` of something other than a shared tile");
        };
        let Val::Global(g) = self.operand(e, "dst")? else {
            return unsupported(line, "`tma_store` to something other than a global tensor");
        };
        let coords = self.coords(e, "coords")?;
        let f = self.plan.fields[v.field].clone();
        let View { stage, .. } = v.clone();
        if v.transposed || v.rows != f.rows || v.row0 != "0" || !f.layout.swizzled {
            return unsupported(line, "`tma_store` of part of a tile, or of a tile not in TMA's layout");
        }
        let rank = coords.len();
        if !(2..=4).contains(&rank) {
            return unsupported(line, format!("a {rank}-dimensional TMA store; 2 to 4 dimensions are rendered"));
        }
        self.tensor_map(line, &g, &f, rank)?;
        let (row, col) = (&coords[rank - 2], &coords[rank - 1]);
        let outer: String = coords[..rank - 2].iter().rev().map(|c| format!(", {c}")).collect();
        self.line(format!("// line {line}: cx.tma_store({} -> {g} at [{}])", f.name, coords.join(", ")));
        self.line("if (leader) {");
        self.indent_by(1);
        self.line("ws::fence_proxy_async();");
        for panel in 0..f.layout.panels {
            let src = format!("S.{} + {stage} * {}u + {}u", f.name, f.stage_bytes, panel * f.rows * f.layout.row_bytes);
            let c = if panel == 0 { col.clone() } else { format!("{col} + {}", panel * f.layout.panel_cols) };
            self.line(format!("ws::tma_store_{rank}d(P.{g}_map, {src}, {c}, {row}{outer});"));
        }
        self.line("ws::tma_store_commit();");
        self.indent_by(-1);
        self.line("}");
        Ok(Val::StoreGroup)
    }
}

/// A descriptor as `wsg::umma_desc` completes it: the start address `addr` (a shared-window
/// byte address) or-ed into `fields`.
#[cfg(test)]
fn umma_desc(addr: u32, fields: u64) -> u64 {
    ((u64::from(addr) & 0x3FFFF) >> 4) | fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_descriptors_match_the_ptx_isa_layout_worked_by_hand() {
        // M = 128 (8 << 24), N = 128 (16 << 17), bf16 A and B (1 << 7, 1 << 10), f32 D (1 << 4).
        assert_eq!(umma_idesc(128, 128, Elem::Bf16, false, false), 0x0820_0490);
        // The same with B N-major (1 << 16): `O += P V`.
        assert_eq!(umma_idesc(128, 128, Elem::Bf16, false, true), 0x0821_0490);
        // f16 inputs (format 0), N = 64 (8 << 17).
        assert_eq!(umma_idesc(128, 64, Elem::F16, false, false), 0x0810_0010);
        // N = 256: 32 in the 6-bit field.
        assert_eq!(umma_idesc(128, 256, Elem::Bf16, false, false), 0x0840_0490);
    }

    #[test]
    fn shared_memory_descriptors_match_the_ptx_isa_layout_worked_by_hand() {
        // K-major, 128-byte swizzle: LBO 16 (1 << 16), SBO 1024 (64 << 32), version 1 << 46,
        // swizzle 2 << 61; tile at 0x400 (0x40 after >> 4).
        let k_major = umma_desc_fields(16, 1024, umma_swizzle(128));
        assert_eq!(k_major, 0x4000_4040_0001_0000);
        assert_eq!(umma_desc(0x400, k_major), 0x4000_4040_0001_0040);
        // N-major B (V): 64-column panels 16384 bytes apart (LBO 1024 << 16), k16 step 2048
        // bytes into a tile at 0x8000.
        assert_eq!(umma_desc(0x8000 + 2048, umma_desc_fields(16384, 1024, 2)), 0x4000_4040_0400_0880);
        // 64-byte swizzle: code 4 at bit 61, the bit sm_90's layout 2 sets at 62.
        assert_eq!(umma_desc_fields(16, 512, umma_swizzle(64)), 0x8000_4020_0001_0000);
        // Offsets are 14-bit fields of `>> 4`: bits above are dropped, not carried.
        assert_eq!(umma_desc_fields(1 << 18, 0, 0) & 0xFFFF_FFFF, 0);
        assert_eq!(umma_desc(0x4_0010, 0), 1);
    }
}
