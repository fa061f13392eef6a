//! Thread-block clusters on Hopper: the CTA's rank and the cluster's place in the grid,
//! TMA loads multicast to a mask of the cluster's CTAs, arrivals on a peer CTA's
//! mbarrier, the cluster barrier, and the static round-robin persistent schedule.
//!
//! The PTX behind each (PTX ISA, sections "Special Registers" `%cluster_ctarank`,
//! `%clusterid`, `%nclusterid`; "cp.async.bulk.tensor" `.multicast::cluster`; "mapa";
//! "mbarrier.arrive" `.shared::cluster`; "barrier.cluster"):
//!
//! - a multicast load writes the same box at the same shared-memory offset of every CTA in
//!   the 16-bit mask, and completes its bytes on the mbarrier at the same offset in each;
//! - a remote arrival maps the local mbarrier's address into the cluster window of the
//!   peer (`mapa`) and arrives there with the default semantics (release at CTA scope, as
//!   CUTLASS's `ClusterBarrier::arrive(cta_id)`): `release_cluster` signals that reads
//!   retired by a `wgmma` wait are over, which orders no memory for the peer; a release
//!   at cluster scope would put a cluster-wide fence on every k-step;
//! - the cluster barrier is an arrive with release and a wait with acquire over every
//!   non-exited thread of the cluster.
//!
//! The entry (see [`super::entry`]) declares the cluster shape with `__cluster_dims__`, so
//! an ordinary launch of a grid that is a whole number of clusters runs it, and replaces
//! the CTA barrier after the mbarrier inits with the cluster barrier: no peer arrives on
//! or multicasts into a CTA whose barriers are not initialised.

use warpspec_ir::{Expr, ExprKind, Op, Pat, PatKind};

use super::body::{Body, Val, View};
use super::error::{Unsupported, unsupported};

impl Body<'_> {
    /// A cluster operation called on `recv`; `None` when `op` is not one.
    pub(super) fn cluster_op(&mut self, op: Op, e: &Expr, recv: &Val) -> Option<Result<Val, Unsupported>> {
        let line = e.pos.line;
        Some(match (op, recv) {
            (Op::ClusterRank, Val::Ctx) => Ok(Val::Int("wsg::cluster_rank()".into())),
            (Op::ClusterSize, Val::Ctx) => Ok(Val::Int("wsg::cluster_size()".into())),
            (Op::Cluster, Val::Ctx) => Ok(Val::Dims("wsg::cluster_id()")),
            (Op::Clusters, Val::Ctx) => Ok(Val::Dims("wsg::cluster_count()")),
            (Op::ClusterSync, Val::Ctx) => {
                self.line(format!("wsg::cluster_sync();  // line {line}: the cluster barrier"));
                Ok(Val::Unit)
            }
            (Op::TmaLoadMulticast, Val::Ctx) => self.tma_load_multicast(e),
            (Op::ReleaseCluster, Val::Consumer { pipe, .. }) => self.release_cluster(e, *pipe),
            (Op::PersistentTiles, _) => unsupported(line, "`persistent_tiles` outside the iterator of a `for` loop"),
            _ => return None,
        })
    }

    /// The operand `mask` as a C++ expression of the mask's value.
    fn cta_mask(&mut self, e: &Expr) -> Result<String, Unsupported> {
        let line = e.pos.line;
        if let Some(v) = e.kind.operand("mask").and_then(|m| self.plan.value(m)) {
            return match u16::try_from(v) {
                Ok(v) => Ok(format!("{v}u")),
                Err(_) => unsupported(line, format!("a CTA mask of {v}, outside 16 bits")),
            };
        }
        match self.operand(e, "mask")? {
            Val::Int(m) => Ok(format!("ws::u32({m})")),
            v => unsupported(line, format!("a CTA mask that is {}", v.kind())),
        }
    }

    /// `consumer.release_cluster(full, mask)`: the instance's leader arrives on the stage's
    /// empty barrier in every CTA of the mask.
    fn release_cluster(&mut self, e: &Expr, pipe: usize) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let Val::Full { stage, .. } = self.operand(e, "full")? else {
            return unsupported(line, "`release_cluster` of something other than a full stage");
        };
        let mask = self.cta_mask(e)?;
        let name = self.plan.pipelines[pipe].name.clone();
        self.line(format!("// line {line}: release stage to `{name}` in the cluster CTAs of mask {mask}"));
        self.line(format!("if (leader) wsg::mbar_arrive_cluster(&S.{name}_empty[{stage}], {mask});"));
        Ok(Val::Unit)
    }

    /// `cx.tma_load_multicast(src, coords, dst, on, mask)`: like `tma_load`, one copy per
    /// 128-byte column panel, into the same rows of `dst` in every CTA of the mask. `dst`
    /// may be a band of rows of the tile (each CTA of a cluster loading its share); the band
    /// keeps the swizzle's phase when it starts on a multiple of 8 rows, as 1024-aligned
    /// tiles and the row bands the checker accepts do.
    fn tma_load_multicast(&mut self, e: &Expr) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let Val::Global(g) = self.operand(e, "src")? else {
            return unsupported(line, "`tma_load_multicast` from something other than a global tensor");
        };
        let coords = self.coords(e, "coords")?;
        let Val::View(v) = self.operand(e, "dst")? else {
            return unsupported(line, "`tma_load_multicast` into something other than a tile");
        };
        let Val::Slot { pipe, stage } = self.operand(e, "on")? else {
            return unsupported(line, "`tma_load_multicast` completing on something other than an acquired slot");
        };
        let mask = self.cta_mask(e)?;
        let f = self.plan.fields[v.field].clone();
        if v.transposed || v.cols != f.cols {
            return unsupported(line, "`tma_load_multicast` into a transposed view or a band of columns");
        }
        let rank = coords.len();
        if !(2..=4).contains(&rank) {
            return unsupported(line, format!("a {rank}-dimensional TMA load; 2 to 4 dimensions are rendered"));
        }
        self.tma_map(line, &g, f.elem, (v.rows, f.layout.panel_cols, f.layout.row_bytes))?;
        self.uses.rank(&g, rank);
        let pipe_name = self.plan.pipelines[pipe].name.clone();
        let (row, col) = (&coords[rank - 2], &coords[rank - 1]);
        let outer: String = coords[..rank - 2].iter().rev().map(|c| format!(", {c}")).collect();
        self.line(format!(
            "// line {line}: cx.tma_load_multicast({g} at [{}] -> rows {}..+{} of {}, on `{pipe_name}`, CTAs {mask})",
            coords.join(", "),
            v.row0,
            v.rows,
            f.name
        ));
        self.line("if (leader) {");
        self.indent_by(1);
        for panel in 0..f.layout.panels {
            let dst = format!(
                "S.{} + {} * {}u + {}u + ({}) * {}u",
                f.name,
                v.stage,
                f.stage_bytes,
                panel * f.rows * f.layout.row_bytes,
                v.row0,
                f.layout.row_bytes
            );
            let c = if panel == 0 { col.clone() } else { format!("{col} + {}", panel * f.layout.panel_cols) };
            self.line(format!(
                "wsg::tma_load_multicast_{rank}d({dst}, P.{g}_map, &S.{pipe_name}_full[{stage}], ws::u16({mask}), {c}, {row}{outer});"
            ));
        }
        self.indent_by(-1);
        self.line("}");
        Ok(Val::Unit)
    }

    /// `for tile in cx.persistent_tiles(count) { .. }`: from the cluster's linear index in
    /// the grid, every `clusters` tiles, below `count`.
    pub(super) fn persistent_for(
        &mut self,
        line: u32,
        pat: &Pat,
        iter: &Expr,
        body: &warpspec_ir::Block,
    ) -> Result<(), Unsupported> {
        let Val::Int(count) = self.operand(iter, "count")? else {
            return unsupported(line, "`persistent_tiles` of something other than an integer count");
        };
        let name = match &pat.kind {
            PatKind::Ident { name, .. } => name.clone(),
            PatKind::Wild => self.temp("tile"),
            _ => return unsupported(line, "this `for` pattern over `persistent_tiles`"),
        };
        let c = self.declare(&name);
        let end = self.declare(&format!("{c}_end"));
        let step = self.declare(&format!("{c}_step"));
        self.line(format!(
            "// line {line}: for {name} in cx.persistent_tiles({count}): round-robin over the grid's clusters"
        ));
        self.open_block(format!(
            "for (int {c} = wsg::cluster_linear(), {end} = {count}, {step} = wsg::clusters_total(); {c} < {end}; {c} += {step})"
        ));
        self.bind(&name, Val::Int(c));
        self.block_stmts(body)?;
        self.close_block();
        Ok(())
    }

    /// Records that `global` is read or written by TMA in boxes of `map` (rows, columns,
    /// swizzle bytes) and that its element type is the tile's.
    pub(super) fn tma_map(
        &mut self,
        line: u32,
        global: &str,
        elem: super::plan::Elem,
        map: (u32, u32, u32),
    ) -> Result<(), Unsupported> {
        let elem_ok = self
            .plan
            .params
            .iter()
            .any(|p| matches!(p, super::plan::ParamPlan::Global { name, elem: e } if name == global && *e == elem));
        if !elem_ok {
            return unsupported(line, format!("`{global}` and its tile differ in element type"));
        }
        if let Some(old) = self.uses.maps.insert(global.to_string(), map)
            && old != map
        {
            return unsupported(
                line,
                format!(
                    "`{global}` is copied in boxes of {} x {} and {} x {}; one tensor map per global is rendered",
                    old.0, old.1, map.0, map.1
                ),
            );
        }
        Ok(())
    }

    /// A view's first byte in this CTA's shared memory, as a C++ pointer expression.
    pub(super) fn view_base(&self, v: &View) -> String {
        let f = &self.plan.fields[v.field];
        format!("(S.{} + {} * {}u)", f.name, v.stage, f.stage_bytes)
    }
}

/// Whether `e` is `cx.persistent_tiles(..)`.
pub(super) fn is_persistent_tiles(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Op { op: Op::PersistentTiles, .. })
}
