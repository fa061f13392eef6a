//! The Hopper epilogue through shared memory: a fragment stored into a shared tile in the
//! layout TMA reads (`cx.store`), the tile written to global memory by a TMA store
//! (`cx.tma_store`), and the wait until the stores have read the tile (`cx.store_wait`,
//! `cx.store_wait_all`).
//!
//! Every thread of the instance writes its accumulator elements with `st.shared` into the
//! swizzled panels of the tile; before the TMA store (an async-proxy read) each thread
//! orders its writes with `fence.proxy.async.shared::cta` (PTX ISA, "Memory Consistency
//! Model", proxies) and the instance meets at a named barrier of its own; then its leader
//! issues one `cp.async.bulk.tensor` store per 128-byte column panel and closes them into a
//! bulk group. `store_wait` and `store_wait_all` are the leader's
//! `cp.async.bulk.wait_group.read 0` followed by the instance's barrier, so no thread writes
//! the tile again while a store still reads it.
//! Rows and columns of the box outside the tensor are not written (TMA clips stores).

use warpspec_ir::{Expr, Op};

use super::body::{Body, Val};
use super::error::{Unsupported, unsupported};

/// Hardware named barriers (`bar.sync` ids 0..=15).
const NAMED_BARRIERS: u32 = 16;

impl Body<'_> {
    /// The named barrier the current role instance meets at around its TMA stores: after
    /// the kernel's own named barriers, one per instance of every role, as `(id, threads)`
    /// C++ expressions.
    fn instance_barrier(&self, line: u32) -> Result<(String, u32), Unsupported> {
        let role = self.role;
        let first = self.plan.named.iter().map(|n| n.id + 1).max().unwrap_or(1);
        let before: u32 = self.plan.roles[..role].iter().map(|r| r.warps / r.warps_per_instance).sum();
        let r = &self.plan.roles[role];
        let last = first + before + r.warps / r.warps_per_instance - 1;
        if last >= NAMED_BARRIERS {
            return unsupported(
                line,
                format!("a TMA store needs named barrier {last} for its instance; the hardware has ids 0 to 15"),
            );
        }
        Ok((format!("{}u + instance", first + before), r.warps_per_instance * 32))
    }

    /// `cx.store(frag, dst)`: the fragment into a band of rows of a shared tile, swizzled as
    /// a TMA store of the tile reads it.
    pub(super) fn store_shared(&mut self, e: &Expr) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let Val::Frag(fr) = self.operand(e, "src")? else {
            return unsupported(line, "`store` of something other than a fragment");
        };
        let Val::View(v) = self.operand(e, "dst")? else {
            return unsupported(line, "`store` into something other than a shared tile");
        };
        let f = self.plan.fields[v.field].clone();
        if v.transposed || (fr.rows, fr.cols) != (v.rows, v.cols) || v.cols != f.cols {
            return unsupported(
                line,
                format!(
                    "`store` of a {} x {} fragment into a {} x {}{} view of `{}`; whole rows of the tile, untransposed, are rendered",
                    fr.rows,
                    fr.cols,
                    v.rows,
                    v.cols,
                    if v.transposed { " transposed" } else { "" },
                    f.name
                ),
            );
        }
        let base = self.view_base(&v);
        self.line(format!(
            "// line {line}: cx.store({} -> rows {}..+{} of {}) as {:?}, in the tile's {}-byte swizzle",
            fr.var, v.row0, v.rows, f.name, f.elem, f.layout.row_bytes
        ));
        self.line(format!(
            "wsg::store_frag_smem<{}, {}, {}, {}>({}, {base}, {});",
            f.elem.storage(),
            f.rows,
            f.layout.panel_cols,
            f.layout.row_bytes,
            fr.var,
            v.row0
        ));
        Ok(Val::Unit)
    }

    /// `cx.tma_store(src, dst, coords)`: proxy fence, the instance's barrier, then the
    /// leader's stores (one per column panel) in one bulk group.
    pub(super) fn tma_store_sm90(&mut self, e: &Expr) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let Val::View(v) = self.operand(e, "src")? else {
            return unsupported(line, "`tma_store` of something other than a shared tile");
        };
        let Val::Global(g) = self.operand(e, "dst")? else {
            return unsupported(line, "`tma_store` to something other than a global tensor");
        };
        let coords = self.coords(e, "coords")?;
        let f = self.plan.fields[v.field].clone();
        if v.transposed || v.cols != f.cols {
            return unsupported(line, "`tma_store` of a transposed view or a band of columns");
        }
        let rank = coords.len();
        if !(2..=4).contains(&rank) {
            return unsupported(line, format!("a {rank}-dimensional TMA store; 2 to 4 dimensions are rendered"));
        }
        self.tma_map(line, &g, f.elem, (v.rows, f.layout.panel_cols, f.layout.row_bytes))?;
        self.uses.rank(&g, rank);
        let (bar, threads) = self.instance_barrier(line)?;
        let base = self.view_base(&v);
        let (row, col) = (&coords[rank - 2], &coords[rank - 1]);
        let outer: String = coords[..rank - 2].iter().rev().map(|c| format!(", {c}")).collect();
        self.line(format!(
            "// line {line}: cx.tma_store(rows {}..+{} of {} -> {g} at [{}])",
            v.row0,
            v.rows,
            f.name,
            coords.join(", ")
        ));
        self.line("ws::fence_proxy_async();  // this thread's st.shared before the async proxy reads");
        self.line(format!("ws::named_sync({bar}, {threads});  // every thread of the instance has stored"));
        self.line("if (leader) {");
        self.indent_by(1);
        for panel in 0..f.layout.panels {
            let src =
                format!("{base} + {}u + ({}) * {}u", panel * f.rows * f.layout.row_bytes, v.row0, f.layout.row_bytes);
            let c = if panel == 0 { col.clone() } else { format!("{col} + {}", panel * f.layout.panel_cols) };
            self.line(format!("ws::tma_store_{rank}d(P.{g}_map, {src}, {c}, {row}{outer});"));
        }
        self.line("ws::tma_store_commit();");
        self.indent_by(-1);
        self.line("}");
        Ok(Val::StoreGroup)
    }

    /// `cx.store_wait(group).await` and `cx.store_wait_all().await`: the leader waits until
    /// every store it issued has read shared memory (for one group, at least as strong as
    /// the DSL's wait), then the instance meets, so the tile may be written again.
    pub(super) fn store_wait_sm90(&mut self, op: Op, e: &Expr) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        if op == Op::StoreWait {
            match self.operand(e, "group")? {
                Val::StoreGroup => {}
                v => return unsupported(line, format!("`store_wait` of {}, not a TMA store group", v.kind())),
            }
        }
        let (bar, threads) = self.instance_barrier(line)?;
        self.line(format!("// line {line}: wait until the TMA stores have read the tile"));
        self.line("if (leader) ws::tma_store_wait_read<0>();");
        self.line(format!("ws::named_sync({bar}, {threads});"));
        Ok(Val::Unit)
    }
}
