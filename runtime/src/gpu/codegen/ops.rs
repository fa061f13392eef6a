//! The DSL operations as device-library calls: pipelines on mbarriers with `{index, phase}`
//! state, TMA loads from tensor maps, `wgmma` with its fences and groups, named barriers,
//! fragments in the accumulator layout and their stores. Each rendered op is preceded by a
//! comment with its Rust source line.

use warpspec_ir::{Class, Expr, ExprKind, Op};

use super::body::{Body, Frag, Val, View};
use super::error::{Unsupported, unsupported};
use crate::gpu::Arch;

/// Whether fragments queued in tensor memory may stay queued across `op`: ops that read or
/// write no fragment's tensor memory and wait for nothing (queries, views, row-vector
/// arithmetic, statistics loads), the element-wise ops that queue, and the stores that
/// stream a queued fragment.
fn keeps_queue(op: Op) -> bool {
    matches!(
        op,
        Op::Args
            | Op::Block
            | Op::Grid
            | Op::Instance
            | Op::Threads
            | Op::HasData
            | Op::RowVec
            | Op::Scale
            | Op::MulRows
            | Op::ScaleSubRows
            | Op::RowsMax
            | Op::RowsSub
            | Op::RowsFma
            | Op::RowsScale
            | Op::RowsExp2
            | Op::RowsRecip
            | Op::RowsKeepUnlessGrew
            | Op::LoadRows
            | Op::TmemStore
            | Op::Store
            | Op::SlotStage
            | Op::FullStage
            | Op::TileView
            | Op::TileRows
            | Op::TileCols
            | Op::TileT
            | Op::RefRows
            | Op::RefCols
            | Op::RefT
    )
}

impl Body<'_> {
    /// Operand `name` of the op `e`, rendered.
    pub(super) fn operand(&mut self, e: &Expr, name: &str) -> Result<Val, Unsupported> {
        match e.kind.operand(name) {
            Some(o) => self.expr(o),
            None => unsupported(e.pos.line, format!("operand `{name}` is missing")),
        }
    }

    /// A DSL operation.
    pub fn op(&mut self, e: &Expr) -> Result<Val, Unsupported> {
        let ExprKind::Op { op, receiver, generics, .. } = &e.kind else {
            return unsupported(e.pos.line, "not a DSL operation");
        };
        let (op, line) = (*op, e.pos.line);
        let spec = op.spec();
        let what = format!("{}.{}", spec.receiver.type_name(), spec.name);
        let recv = self.expr(receiver)?;
        self.timestamp(spec.class, spec.name, line)?;
        let generic =
            |b: &Self, i: usize| generics.get(i).and_then(|g| b.plan.generic(g)).and_then(|v| u32::try_from(v).ok());
        let blackwell = self.plan.arch == Arch::Sm100a;
        if blackwell && !keeps_queue(op) {
            self.materialize_all();
        }
        if blackwell && op != Op::TmemStore {
            // Only a packed store of the fragment may take it unrounded.
            self.flush_rounding(None);
        }
        match (op, recv) {
            (Op::Args, Val::Ctx) => Ok(Val::Args),
            (Op::Block, Val::Ctx) => Ok(Val::Dims("blockIdx")),
            (Op::Grid, Val::Ctx) => Ok(Val::Dims("gridDim")),
            (Op::Instance, Val::Ctx) => Ok(Val::Int("int(instance)".into())),
            (Op::Fragment, Val::Ctx) => {
                let (Some(rows), Some(cols)) = (generic(self, 0), generic(self, 1)) else {
                    return unsupported(line, "`fragment::<R, C>` without constant R and C");
                };
                if self.plan.arch == Arch::Sm100a {
                    self.check_rows(line, rows)?;
                    let Val::Float(v) = self.operand(e, "value")? else {
                        return unsupported(line, "`fragment` filled with something other than a float");
                    };
                    let var = self.temp("frag");
                    self.line(format!("// line {line}: cx.fragment::<{rows}, {cols}>({v}), one row per thread"));
                    self.line(format!("float {var}[{cols}];"));
                    self.line(format!("wsg::fill({var}, {v});"));
                    return Ok(Val::Frag(Frag { var, rows, cols }));
                }
                if rows % 64 != 0 || cols % 2 != 0 {
                    return unsupported(
                        line,
                        format!(
                            "a {rows} x {cols} fragment: the wgmma accumulator layout needs rows in multiples of 64"
                        ),
                    );
                }
                let regs = rows / 64 * cols / 2;
                if regs > 240 {
                    return unsupported(
                        line,
                        format!(
                            "a {rows} x {cols} f32 fragment is {regs} registers per thread; a thread addresses at most 255"
                        ),
                    );
                }
                let Val::Float(v) = self.operand(e, "value")? else {
                    return unsupported(line, "`fragment` filled with something other than a float");
                };
                let var = self.temp("frag");
                self.line(format!(
                    "// line {line}: cx.fragment::<{rows}, {cols}>({v}) in the wgmma accumulator layout"
                ));
                self.line(format!("float {var}[{}][{}];", rows / 64, cols / 2));
                self.line(format!("wsg::fill({var}, {v});"));
                self.fence_later(&var);
                Ok(Val::Frag(Frag { var, rows, cols }))
            }
            (Op::Acquire, Val::Producer { pipe, state }) => {
                let p = &self.plan.pipelines[pipe];
                let (name, stages) = (p.name.clone(), p.stages);
                let t = self.temp("slot");
                self.line(format!("// line {line}: acquire a free stage of `{name}`"));
                self.line(format!("const ws::u32 {t} = {state}.index;"));
                self.line(format!("ws::mbar_wait(&S.{name}_empty[{t}], {state}.phase ^ 1u);"));
                self.line(format!("{state}.advance({stages}u);"));
                if blackwell {
                    self.line("wsg::tmem_fence_after_sync();");
                }
                Ok(Val::Slot { pipe, stage: t })
            }
            (Op::ConsumerWait, Val::Consumer { pipe, state }) => {
                let p = &self.plan.pipelines[pipe];
                let (name, stages) = (p.name.clone(), p.stages);
                let t = self.temp("full");
                self.line(format!("// line {line}: wait for a full stage of `{name}`"));
                self.line(format!("const ws::u32 {t} = {state}.index;"));
                self.line(format!("ws::mbar_wait(&S.{name}_full[{t}], {state}.phase);"));
                self.line(format!("{state}.advance({stages}u);"));
                if blackwell {
                    self.line("wsg::tmem_fence_after_sync();");
                }
                Ok(Val::Full { pipe, stage: t })
            }
            (Op::Commit, Val::Producer { pipe, .. }) => {
                let Val::Slot { stage, .. } = self.operand(e, "slot_token")? else {
                    return unsupported(line, "`commit` of something other than an acquired slot");
                };
                let p = &self.plan.pipelines[pipe];
                self.line(format!("// line {line}: commit stage to `{}`", p.name));
                if blackwell {
                    self.before_arrival();
                }
                let p = &self.plan.pipelines[pipe];
                if p.tma {
                    self.line(format!(
                        "if (leader) ws::mbar_arrive_expect_tx(&S.{}_full[{stage}], {}u);",
                        p.name, p.tx_bytes
                    ));
                } else {
                    self.line(format!("if (leader) ws::mbar_arrive(&S.{}_full[{stage}]);", p.name));
                }
                Ok(Val::Unit)
            }
            (Op::Release, Val::Consumer { pipe, .. }) => {
                let Val::Full { stage, .. } = self.operand(e, "full")? else {
                    return unsupported(line, "`release` of something other than a full stage");
                };
                let name = self.plan.pipelines[pipe].name.clone();
                self.line(format!("// line {line}: release stage to `{name}`"));
                if blackwell {
                    self.before_arrival();
                }
                self.line(format!("if (leader) ws::mbar_arrive(&S.{name}_empty[{stage}]);"));
                Ok(Val::Unit)
            }
            (Op::ReleaseOnMmaCompletion, Val::Consumer { pipe, .. }) if blackwell => {
                let Val::Full { stage, .. } = self.operand(e, "full")? else {
                    return unsupported(line, "`release_on_mma_completion` of something other than a full stage");
                };
                let name = self.plan.pipelines[pipe].name.clone();
                self.commit_mma(line, &format!("S.{name}_empty[{stage}]"), &format!("release stage to `{name}`"));
                Ok(Val::Unit)
            }
            (Op::ArriveOnMmaCompletion, Val::Arriver(b)) if blackwell => {
                let index = self.int(e, "index")?;
                let name = self.plan.barriers[b].name.clone();
                self.commit_mma(line, &format!("S.{name}[{index}]"), &format!("arrive on `{name}`[{index}]"));
                Ok(Val::Unit)
            }
            (Op::Arrive, Val::Arriver(b)) => {
                let index = self.int(e, "index")?;
                let name = self.plan.barriers[b].name.clone();
                self.line(format!("// line {line}: arrive on `{name}`[{index}]"));
                if blackwell {
                    self.before_arrival();
                }
                self.line(format!("if (leader) ws::mbar_arrive(&S.{name}[{index}]);"));
                Ok(Val::Unit)
            }
            (Op::WaitParity, Val::Waiter(b)) => {
                let index = self.int(e, "index")?;
                let parity = self.int(e, "parity")?;
                let name = self.plan.barriers[b].name.clone();
                self.line(format!("// line {line}: wait for `{name}`[{index}] to complete a phase of parity {parity}"));
                self.line(format!("ws::mbar_wait(&S.{name}[{index}], ws::u32({parity}));"));
                if blackwell {
                    self.line("wsg::tmem_fence_after_sync();");
                }
                Ok(Val::Unit)
            }
            (Op::Umma, Val::Ctx) if blackwell => self.umma(e, false),
            (Op::UmmaTs, Val::Ctx) if blackwell => self.umma(e, true),
            (Op::TmemLoad, Val::Ctx) if blackwell => self.tmem_load(e),
            (Op::TmemStore, Val::Ctx) if blackwell => self.tmem_store(e),
            (Op::Store, Val::Ctx) if blackwell => self.store_tile(e),
            (Op::StoreRows, Val::Ctx) if blackwell => self.rows_tile(e, true),
            (Op::LoadRows, Val::Ctx) if blackwell => self.rows_tile(e, false),
            (Op::TmaStore, Val::Ctx) if blackwell => self.tma_store(e),
            (Op::StoreWait | Op::StoreWaitAll, Val::Ctx) if blackwell => {
                // Waiting for every store group to have read shared memory is
                // `store_wait_all`, and at least as strong as the DSL's wait for one group.
                self.line(format!("// line {line}: wait until the TMA stores have read shared memory"));
                self.line("if (leader) ws::tma_store_wait_read<0>();");
                Ok(Val::Unit)
            }
            (Op::Sync | Op::NamedArrive, Val::Named(i)) => {
                let n = &self.plan.named[i];
                let f = if op == Op::Sync { "named_sync" } else { "named_arrive" };
                let text = format!("ws::{f}({}, {});  // line {line}: `{}`", n.id, n.threads, n.name);
                self.line(text);
                Ok(Val::Unit)
            }
            (Op::TmaLoad, Val::Ctx) => self.tma_load(e),
            (Op::Wgmma, Val::Ctx) => self.wgmma(e, false),
            (Op::WgmmaRs, Val::Ctx) => self.wgmma(e, true),
            (op, Val::Ctx) if op.class() == Class::FragmentMath || op == Op::RowVec => self.math(op, e, generics),
            (Op::MmaWait, Val::Ctx) => {
                let Some(n) = e.kind.operand("in_flight").and_then(|o| self.plan.value(o)) else {
                    return unsupported(line, "`mma_wait` with a count that is not a constant");
                };
                self.line(format!("// line {line}: wait until at most {n} wgmma groups are in flight"));
                self.line(format!("ws::wgmma_wait<{n}>();"));
                self.fence_frags();
                if n == 0 {
                    // Every group has retired: the register operands are free.
                    self.operands.clear();
                }
                Ok(Val::Unit)
            }
            (Op::StoreGlobal, Val::Ctx) => self.store_global(e),
            (Op::TileRows | Op::RefRows, Val::View(v)) => {
                let Some(rows) = generic(self, 0) else {
                    return unsupported(line, "`rows::<R>` without a constant R");
                };
                let Val::Int(start) = self.operand(e, "start")? else {
                    return unsupported(line, "`rows` from something other than an integer");
                };
                if v.transposed || rows > v.rows {
                    return unsupported(line, format!("`rows::<{rows}>` of a {}-row view", v.rows));
                }
                Ok(Val::View(View { row0: format!("({} + {start})", v.row0), rows, ..v }))
            }
            (Op::TileT | Op::RefT, Val::View(v)) => Ok(Val::View(View { transposed: !v.transposed, ..v })),
            (Op::TileView, Val::View(v)) => Ok(Val::View(v)),
            // Hopper: the epilogue through shared memory (`epilogue.rs`).
            (Op::Store, Val::Ctx) => self.store_shared(e),
            (Op::TmaStore, Val::Ctx) => self.tma_store_sm90(e),
            (Op::StoreWait | Op::StoreWaitAll, Val::Ctx) => self.store_wait_sm90(op, e),
            (op, r) => match self.cluster_op(op, e, &r) {
                Some(v) => v,
                None => unsupported(line, format!("`{what}` (on {}) is not rendered for the GPU yet", r.kind())),
            },
        }
    }

    /// Integer operand `name`.
    pub(super) fn int(&mut self, e: &Expr, name: &str) -> Result<String, Unsupported> {
        match self.operand(e, name)? {
            Val::Int(i) => Ok(i),
            v => unsupported(e.pos.line, format!("`{name}` is {}, not an integer", v.kind())),
        }
    }

    /// Before one thread arrives for its instance (Blackwell): each thread orders its
    /// tensor-memory accesses before the synchronisation, then the instance's warps meet
    /// (`__syncwarp`, or the instance's named barrier), so the arrival covers every
    /// thread's loads and stores.
    pub(super) fn before_arrival(&mut self) {
        self.line("wsg::tmem_fence_before_sync();");
        let threads = self.instance_threads();
        match self.plan.roles[self.role].instance_bar {
            Some(id) if threads > 32 => {
                self.line(format!("ws::named_sync({id}u + instance, {threads}u);  // the instance's warps meet"));
            }
            _ => self.line("__syncwarp();"),
        }
    }

    /// `wsg::fence(frag)` for each fragment of the role: no access moves across a wgmma
    /// fence or wait.
    pub(super) fn fence_frags(&mut self) {
        let frags: Vec<String> = self.fenced.iter().chain(&self.operands).map(|(_, v)| v.clone()).collect();
        for f in frags {
            self.line(format!("wsg::fence({f});"));
        }
    }

    /// Coordinates `&[a, b]` (an array literal, or a helper returning one) as integers.
    pub(super) fn coords(&mut self, e: &Expr, name: &str) -> Result<Vec<String>, Unsupported> {
        match self.operand(e, name)? {
            Val::Coords(c) => Ok(c),
            v => unsupported(e.pos.line, format!("coordinates that are {}, not an array of integers", v.kind())),
        }
    }

    /// `cx.tma_load(src, coords, dst, on)`: one `cp.async.bulk.tensor.2d` per 128-byte
    /// column panel of the tile, issued by the instance's leader, completing on the stage's
    /// full barrier.
    fn tma_load(&mut self, e: &Expr) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let Val::Global(g) = self.operand(e, "src")? else {
            return unsupported(line, "`tma_load` from something other than a global tensor");
        };
        let coords = self.coords(e, "coords")?;
        let Val::View(v) = self.operand(e, "dst")? else {
            return unsupported(line, "`tma_load` into something other than a tile");
        };
        let Val::Slot { pipe, stage } = self.operand(e, "on")? else {
            return unsupported(line, "`tma_load` completing on something other than an acquired pipeline slot");
        };
        let f = self.plan.fields[v.field].clone();
        if v.transposed || v.rows != f.rows || v.row0 != "0" || !f.layout.swizzled {
            return unsupported(line, "`tma_load` into part of a tile, or into a tile not in TMA's layout");
        }
        let rank = coords.len();
        if !(2..=4).contains(&rank) {
            return unsupported(line, format!("a {rank}-dimensional TMA load; 2 to 4 dimensions are rendered"));
        }
        self.tensor_map(line, &g, &f, rank)?;
        let pipe_name = self.plan.pipelines[pipe].name.clone();
        let (row, col) = (&coords[rank - 2], &coords[rank - 1]);
        // TMA takes coordinates innermost first: column, row, then the outer dimensions.
        let outer: String = coords[..rank - 2].iter().rev().map(|c| format!(", {c}")).collect();
        self.line(format!(
            "// line {line}: cx.tma_load({g} at [{}] -> {}, on `{pipe_name}`)",
            coords.join(", "),
            f.name
        ));
        self.open_leader();
        for panel in 0..f.layout.panels {
            let dst =
                format!("S.{} + {} * {}u + {}u", f.name, v.stage, f.stage_bytes, panel * f.rows * f.layout.row_bytes);
            let c = if panel == 0 { col.clone() } else { format!("{col} + {}", panel * f.layout.panel_cols) };
            self.line(format!(
                "ws::tma_load_{rank}d({dst}, P.{g}_map, &S.{pipe_name}_full[{stage}], {c}, {row}{outer});"
            ));
        }
        self.close_leader();
        Ok(Val::Unit)
    }

    /// Records that global `g` is copied by TMA in boxes of tile `f` with `rank`
    /// coordinates: one tensor map per global.
    pub(super) fn tensor_map(
        &mut self,
        line: u32,
        g: &str,
        f: &super::plan::FieldPlan,
        rank: usize,
    ) -> Result<(), Unsupported> {
        let elem_ok = self
            .plan
            .params
            .iter()
            .any(|p| matches!(p, super::plan::ParamPlan::Global { name, elem } if *name == g && *elem == f.elem));
        if !elem_ok {
            return unsupported(line, format!("`{g}` and tile `{}` differ in element type", f.name));
        }
        let map = (f.rows, f.layout.panel_cols, f.layout.row_bytes);
        if let Some(old) = self.uses.maps.insert(g.to_string(), map)
            && old != map
        {
            return unsupported(
                line,
                format!("`{g}` is copied in boxes of two shapes; one tensor map per global is rendered"),
            );
        }
        self.uses.rank(g, rank);
        Ok(())
    }

    fn open_leader(&mut self) {
        self.line("if (leader) {");
        self.indent_by(1);
    }

    fn close_leader(&mut self) {
        self.indent_by(-1);
        self.line("}");
    }

    /// `cx.store_global(acc, dst, [row, col])`: every thread stores its accumulator
    /// elements, clipped to the tensor.
    fn store_global(&mut self, e: &Expr) -> Result<Val, Unsupported> {
        let line = e.pos.line;
        let Val::Frag(f) = self.operand(e, "src")? else {
            return unsupported(line, "`store_global` of something other than a fragment");
        };
        let Val::Global(g) = self.operand(e, "dst")? else {
            return unsupported(line, "`store_global` to something other than a global tensor");
        };
        let Some(elem) = self.plan.params.iter().find_map(|p| match p {
            super::plan::ParamPlan::Global { name, elem } if *name == g => Some(*elem),
            _ => None,
        }) else {
            return unsupported(line, format!("`store_global` to `{g}`, which is not a launch argument"));
        };
        let coords = self.coords(e, "coords")?;
        let rank = coords.len();
        if !(2..=4).contains(&rank) {
            return unsupported(line, format!("`store_global` with {rank} coordinates; 2 to 4 are rendered"));
        }
        self.uses.pointers.insert(g.clone());
        self.uses.rank(&g, rank);
        // The matrix the fragment lands in: the outer coordinates select it.
        let (rows, cols) = (format!("P.{g}_shape{}", rank - 2), format!("P.{g}_shape{}", rank - 1));
        let mut base = String::from("P.") + &g;
        if rank > 2 {
            let mut lead = format!("ws::u64({})", coords[0]);
            for (i, c) in coords.iter().enumerate().take(rank - 2).skip(1) {
                lead = format!("({lead} * ws::u64(P.{g}_shape{i}) + ws::u64({c}))");
            }
            base = format!("P.{g} + {lead} * ws::u64({rows}) * ws::u64({cols})");
        }
        self.line(format!(
            "// line {line}: cx.store_global({} -> {g} at [{}]) as {}, clipped to the tensor",
            f.var,
            coords.join(", "),
            elem.storage()
        ));
        self.line(format!(
            "wsg::store_frag({}, {base}, {rows}, {cols}, {}, {});",
            f.var,
            coords[rank - 2],
            coords[rank - 1]
        ));
        Ok(Val::Unit)
    }
}
