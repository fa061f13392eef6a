//! The CTA a kernel becomes on the GPU: warps per role, register budgets, the dynamic
//! shared-memory layout of its tiles, its barriers and its launch arguments.

use std::collections::BTreeMap;

use warpspec_ir::{Expr, Generic, Kernel, Ty};

use super::error::{Unsupported, unsupported};
use crate::gpu::Arch;

/// Element formats of tiles and tensors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    Bf16,
    F16,
    F32,
}

impl Elem {
    pub fn parse(name: &str) -> Option<Elem> {
        Some(match name {
            "bf16" => Elem::Bf16,
            "f16" => Elem::F16,
            "f32" => Elem::F32,
            _ => return None,
        })
    }

    /// Bytes per element.
    pub fn bytes(self) -> u32 {
        match self {
            Elem::Bf16 | Elem::F16 => 2,
            Elem::F32 => 4,
        }
    }

    /// The C++ type of one element.
    pub fn cpp(self) -> &'static str {
        match self {
            Elem::Bf16 => "__nv_bfloat16",
            Elem::F16 => "__half",
            Elem::F32 => "float",
        }
    }

    /// The C++ type a pointer to the global's elements has in generated code.
    pub fn storage(self) -> &'static str {
        match self {
            Elem::Bf16 => "wsg::Bf16",
            Elem::F16 => "wsg::F16",
            Elem::F32 => "float",
        }
    }

    /// The wgmma input type suffix.
    pub fn mma(self) -> Option<&'static str> {
        match self {
            Elem::Bf16 => Some("bf16"),
            Elem::F16 => Some("f16"),
            Elem::F32 => None,
        }
    }
}

/// A role's warps in the CTA.
#[derive(Clone, Debug)]
pub(crate) struct RolePlan {
    pub name: String,
    /// First warp of the role.
    pub base_warp: u32,
    /// Warps running the role (`instances * warps_per_instance`).
    pub warps: u32,
    /// Warps the role occupies: rounded up to whole warpgroups, as `setmaxnreg` acts on
    /// warpgroups.
    pub padded_warps: u32,
    pub warps_per_instance: u32,
    pub regs: Option<u32>,
    /// The first of the named barriers (one per instance) that synchronise an instance's
    /// warps before one thread arrives for all of them (Blackwell, instances of more than
    /// one warp).
    pub instance_bar: Option<u32>,
}

/// A warpgroup of the CTA: the roles running in it and the `setmaxnreg` they share
/// (`setmaxnreg` acts on whole warpgroups, so roles packed into one take the largest of
/// their budgets).
#[derive(Clone, Debug)]
pub(crate) struct WarpgroupPlan {
    /// Indices into [`Plan::roles`], in warp order.
    pub roles: Vec<usize>,
    /// The registers its warps run with, when roles give budgets.
    pub regs: Option<u32>,
}

/// How TMA writes a tile and how `wgmma` reads it: rows of `row_bytes` (64 or 128) in the
/// matching swizzle; tiles wider than 128 bytes are column panels of 128 bytes each.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TileLayout {
    /// Bytes per row of one panel (the swizzle span).
    pub row_bytes: u32,
    /// Columns per panel.
    pub panel_cols: u32,
    /// Panels side by side.
    pub panels: u32,
    /// Whether rows are swizzled as TMA writes them (64- or 128-byte rows); other tiles
    /// (an `R x 1` tile of statistics) are plain row-major.
    pub swizzled: bool,
}

impl TileLayout {
    /// The layout of a tile of `cols` columns of `elem_bytes`-byte elements: rows of 64 or
    /// 128 bytes in that swizzle, wider rows as 128-byte panels side by side (one TMA box
    /// each), anything else plain.
    pub(crate) fn of(cols: u32, elem_bytes: u32) -> TileLayout {
        match cols * elem_bytes {
            row @ (64 | 128) => TileLayout { row_bytes: row, panel_cols: cols, panels: 1, swizzled: true },
            r if r % 128 == 0 => {
                TileLayout { row_bytes: 128, panel_cols: 128 / elem_bytes, panels: r / 128, swizzled: true }
            }
            // Not an operand of TMA or an MMA (those check): plain rows.
            r => TileLayout { row_bytes: r, panel_cols: cols, panels: 1, swizzled: false },
        }
    }
}

/// A `#[shared]` field: a tile or a ring of tiles.
#[derive(Clone, Debug)]
pub(crate) struct FieldPlan {
    pub name: String,
    pub elem: Elem,
    pub rows: u32,
    pub cols: u32,
    pub stages: u32,
    /// Offset from the 1024-aligned base of dynamic shared memory.
    pub offset: u32,
    /// Bytes between stages (the tile rounded up to 1024).
    pub stage_bytes: u32,
    pub layout: TileLayout,
}

impl FieldPlan {
    /// Bytes of one tile.
    pub fn tile_bytes(&self) -> u32 {
        self.rows * self.cols * self.elem.bytes()
    }
}

/// A `#[shared]` tensor-memory tile (`TmemTile<R, C>`) or array of them: columns of the
/// CTA's allocation, one lane per row.
#[derive(Clone, Debug)]
pub(crate) struct TmemPlan {
    pub name: String,
    pub rows: u32,
    /// 32-bit columns of one tile.
    pub cols: u32,
    /// Tiles in the array (1 for a single tile).
    pub count: u32,
    /// First column in the allocation.
    pub col0: u32,
}

/// A plain `#[barrier]`: `len` mbarriers, each expecting `count` arrivals per phase.
#[derive(Clone, Debug)]
pub(crate) struct BarrierPlan {
    pub name: String,
    pub len: u32,
    pub count: u32,
}

/// A `#[pipeline]`: a full and an empty mbarrier per stage.
#[derive(Clone, Debug)]
pub(crate) struct PipePlan {
    pub name: String,
    pub stages: u32,
    pub full_count: u32,
    pub empty_count: u32,
    /// Transaction bytes a commit expects (every guarded tile), for TMA pipelines.
    pub tx_bytes: u32,
    pub tma: bool,
}

/// A `#[named_barrier]`.
#[derive(Clone, Debug)]
pub(crate) struct NamedPlan {
    pub name: String,
    pub id: u32,
    pub threads: u32,
}

/// A launch argument of the `#[params]` struct.
#[derive(Clone, Debug)]
pub(crate) enum ParamPlan {
    Global { name: String, elem: Elem },
    Int(String),
    Bool(String),
    Float(String),
}

/// Everything about the CTA that does not depend on the role bodies.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// The architecture the kernel needs: Blackwell when it has tensor memory.
    pub arch: Arch,
    pub consts: BTreeMap<String, i128>,
    pub const_order: Vec<String>,
    pub roles: Vec<RolePlan>,
    /// The CTA's warpgroups, in order.
    pub warpgroups: Vec<WarpgroupPlan>,
    pub threads: u32,
    /// Registers per thread at launch (`__launch_bounds__(threads, 1)` leaves ptxas the
    /// register file divided among the threads, in steps of 8): `setmaxnreg` raises a
    /// warpgroup above it or lowers it below.
    pub launch_regs: u32,
    /// Whether roles differ in registers (then each calls `setmaxnreg`).
    pub set_regs: bool,
    pub fields: Vec<FieldPlan>,
    /// Tensor-memory tiles.
    pub tmem: Vec<TmemPlan>,
    /// Columns allocated with `tcgen05.alloc` (a power of two from 32 to 512; 0 without
    /// tensor memory).
    pub tmem_cols: u32,
    pub barriers: Vec<BarrierPlan>,
    pub smem_bytes: u32,
    pub pipelines: Vec<PipePlan>,
    pub named: Vec<NamedPlan>,
    pub params: Vec<ParamPlan>,
}

/// Registers of one SM, shared by a CTA's threads.
const REGISTER_FILE: u32 = 65536;
/// The most registers one thread addresses (PTX ISA, `setmaxnreg`: 24 to 256, of which ptxas
/// allocates at most 255 to a kernel; 248 is the largest multiple of 8 below).
const MAX_THREAD_REGS: u32 = 248;
/// Columns of tensor memory per SM on Blackwell: 128 lanes of 512 32-bit columns (PTX ISA,
/// "Tensor Memory"; `tcgen05.alloc` takes a power of two from 32 to 512).
const TMEM_COLS: u32 = 512;
/// Named barrier ids the hardware has (`bar.sync` takes 0 to 15; 0 is `__syncthreads`).
const NAMED_BARRIERS: u32 = 16;
/// The most dynamic shared memory one CTA may use on Hopper.
const MAX_SMEM: u32 = 227 * 1024;

impl Plan {
    /// The plan of `k`.
    pub fn new(k: &Kernel) -> Result<Plan, Unsupported> {
        let mut consts = BTreeMap::new();
        let mut const_order = Vec::new();
        for c in &k.consts {
            if let Some(v) = c.evaluated {
                consts.insert(c.name.clone(), v);
                const_order.push(c.name.clone());
            }
        }
        let eval = |e: &Expr, what: &str| -> Result<u32, Unsupported> {
            let v = e.const_value(&|n| consts.get(n).copied());
            match v.and_then(|v| u32::try_from(v).ok()) {
                Some(v) => Ok(v),
                None => unsupported(e.pos.line, format!("{what} is not a constant the generator can evaluate")),
            }
        };
        let arch = if k.shared.iter().any(|f| tmem_tile(&f.ty).is_some()) { Arch::Sm100a } else { Arch::Sm90a };
        let mut roles = Vec::new();
        for r in &k.roles {
            let instances = eval(&r.instances, &format!("the instance count of role `{}`", r.func.name))?;
            let regs = match &r.regs {
                Some(e) => Some(eval(e, &format!("the registers of role `{}`", r.func.name))?),
                None => None,
            };
            let warps = instances * r.warps_per_instance;
            roles.push(RolePlan {
                name: r.func.name.clone(),
                base_warp: 0,
                warps,
                padded_warps: warps.div_ceil(4) * 4,
                warps_per_instance: r.warps_per_instance,
                regs,
                instance_bar: None,
            });
        }
        let warpgroups = place(&mut roles);
        let warp = warpgroups.len() as u32 * 4;
        let threads = warp * 32;
        if threads == 0 || threads > 1024 {
            return unsupported(
                0,
                format!("the CTA would have {threads} threads (roles packed into warpgroups); 1 to 1024 run"),
            );
        }
        let launch_regs = (REGISTER_FILE / threads / 8 * 8).min(MAX_THREAD_REGS);
        let distinct: std::collections::BTreeSet<Option<u32>> = roles.iter().map(|r| r.regs).collect();
        let set_regs = distinct.len() > 1;
        let mut warpgroups = warpgroups;
        if set_regs {
            for r in &roles {
                let Some(regs) = r.regs else {
                    return unsupported(0, format!("role `{}` gives no `regs`, and other roles do", r.name));
                };
                if !(24..=256).contains(&regs) || regs % 8 != 0 {
                    return unsupported(
                        0,
                        format!(
                            "role `{}` asks for {regs} registers; setmaxnreg takes multiples of 8 from 24 to 256",
                            r.name
                        ),
                    );
                }
            }
            for g in &mut warpgroups {
                g.regs = g.roles.iter().filter_map(|&i| roles[i].regs).max();
            }
            let total: u32 = warpgroups.iter().map(|g| g.regs.unwrap_or(launch_regs) * 128).sum();
            if total > REGISTER_FILE {
                let parts: Vec<String> = warpgroups
                    .iter()
                    .enumerate()
                    .map(|(i, g)| {
                        let names: Vec<&str> = g.roles.iter().map(|&r| roles[r].name.as_str()).collect();
                        format!("warpgroup {i} ({}) {} x 128", names.join(", "), g.regs.unwrap_or(launch_regs))
                    })
                    .collect();
                return unsupported(
                    0,
                    format!(
                        "the roles ask for {total} registers in all, more than the {REGISTER_FILE} of an SM \
                         (setmaxnreg per warpgroup, the largest budget of the roles sharing it: {})",
                        parts.join(", ")
                    ),
                );
            }
        }

        let mut fields = Vec::new();
        let mut tmem = Vec::new();
        let mut offset = 0;
        let mut col = 0;
        for f in &k.shared {
            if let Some((rows, cols, count)) = tmem_tile(&f.ty) {
                let num = |g: &Generic| g.const_value(&|n| consts.get(n).copied()).and_then(|v| u32::try_from(v).ok());
                let count = match count {
                    Some(e) => eval(e, &format!("the length of tensor-memory array `{}`", f.name))?,
                    None => 1,
                };
                let (Some(rows), Some(cols)) = (num(rows), num(cols)) else {
                    return unsupported(0, format!("tensor-memory tile `{}` without constant sizes", f.name));
                };
                if rows != 128 {
                    return unsupported(
                        0,
                        format!(
                            "tensor-memory tile `{}` of {rows} rows: the generator renders 128-row tiles (one lane per row, M = 128)",
                            f.name
                        ),
                    );
                }
                tmem.push(TmemPlan { name: f.name.clone(), rows, cols, count, col0: col });
                col += cols * count;
                continue;
            }
            let plan = field(f.name.as_str(), &f.ty, &consts, offset)?;
            offset = plan.offset + plan.stage_bytes * plan.stages;
            fields.push(plan);
        }
        let tmem_cols = if col == 0 { 0 } else { col.next_power_of_two().max(32) };
        if tmem_cols > TMEM_COLS {
            return unsupported(0, format!("the tensor-memory tiles need {col} columns; an SM has {TMEM_COLS}"));
        }
        let smem_bytes = offset + 1024;
        if smem_bytes > MAX_SMEM {
            return unsupported(
                0,
                format!(
                    "shared memory of {smem_bytes} bytes (tiles 1024-aligned) is over the {MAX_SMEM} a CTA may use"
                ),
            );
        }

        let instances_of = |names: &[String]| -> u32 {
            names
                .iter()
                .filter_map(|n| roles.iter().find(|r| &r.name == n))
                .map(|r| r.warps / r.warps_per_instance)
                .sum()
        };
        let mut pipelines = Vec::new();
        for p in &k.pipelines {
            let guarded: Vec<&FieldPlan> =
                p.guards.iter().filter_map(|g| fields.iter().find(|f| &f.name == g)).collect();
            let stages = match &p.stages {
                Some(e) => eval(e, "a pipeline's stage count")?,
                None => guarded.first().map_or(1, |f| f.stages),
            };
            let full_count = match &p.full_arrivals {
                Some(e) => eval(e, "a pipeline's full arrivals")?,
                None => instances_of(&p.producers),
            };
            let empty_count = match &p.empty_arrivals {
                Some(e) => eval(e, "a pipeline's empty arrivals")?,
                None => instances_of(&p.consumers),
            };
            let tx_bytes = guarded.iter().map(|f| f.tile_bytes()).sum();
            pipelines.push(PipePlan { name: p.name.clone(), stages, full_count, empty_count, tx_bytes, tma: p.tma });
        }
        let mut barriers = Vec::new();
        for b in &k.barriers {
            let len = match &b.len {
                Some(e) => eval(e, &format!("the length of barrier `{}`", b.name))?,
                None => 1,
            };
            let count = match &b.count {
                Some(e) => eval(e, &format!("the arrival count of barrier `{}`", b.name))?,
                None => instances_of(&b.arrive),
            };
            barriers.push(BarrierPlan { name: b.name.clone(), len, count });
        }
        let mut named = Vec::new();
        for (i, n) in k.named.iter().enumerate() {
            let id = match &n.id {
                Some(e) => eval(e, "a named barrier's id")?,
                None => i as u32 + 1,
            };
            let threads = match &n.threads {
                Some(e) => eval(e, "a named barrier's thread count")?,
                None => n.roles.iter().filter_map(|r| roles.iter().find(|p| &p.name == r)).map(|r| r.warps * 32).sum(),
            };
            named.push(NamedPlan { name: n.name.clone(), id, threads });
        }
        let mut params = Vec::new();
        for p in &k.params {
            let name = p.name.clone();
            params.push(match p.ty.name() {
                Some("Global") => {
                    let elem = first_type_generic(&p.ty).and_then(Elem::parse);
                    let Some(elem) = elem else {
                        return unsupported(
                            0,
                            format!("parameter `{name}`: a Global of an element type other than bf16, f16, f32"),
                        );
                    };
                    ParamPlan::Global { name, elem }
                }
                Some("bool") => ParamPlan::Bool(name),
                Some("usize" | "u32" | "i32" | "u64" | "i64") => ParamPlan::Int(name),
                Some("f32" | "f64") => ParamPlan::Float(name),
                other => return unsupported(0, format!("parameter `{name}` of type {other:?}")),
            });
        }
        if arch == Arch::Sm100a {
            // One named barrier per instance of more than one warp, after the kernel's own.
            let mut next = named.iter().map(|n| n.id + 1).max().unwrap_or(1);
            for r in &mut roles {
                if r.warps_per_instance > 1 {
                    r.instance_bar = Some(next);
                    next += r.warps / r.warps_per_instance;
                }
            }
            if next > NAMED_BARRIERS {
                return unsupported(
                    0,
                    format!(
                        "the kernel's named barriers and one per multi-warp role instance need ids up to {}; the hardware has {NAMED_BARRIERS}",
                        next - 1
                    ),
                );
            }
        }
        Ok(Plan {
            arch,
            consts,
            const_order,
            roles,
            warpgroups,
            threads,
            launch_regs,
            set_regs,
            fields,
            tmem,
            tmem_cols,
            barriers,
            smem_bytes,
            pipelines,
            named,
            params,
        })
    }

    /// The shared field called `name`.
    pub fn field(&self, name: &str) -> Option<(usize, &FieldPlan)> {
        self.fields.iter().enumerate().find(|(_, f)| f.name == name)
    }

    /// A const generic or constant expression's value.
    pub fn generic(&self, g: &Generic) -> Option<i128> {
        g.const_value(&|n| self.consts.get(n).copied())
    }

    /// A constant expression's value.
    pub fn value(&self, e: &Expr) -> Option<i128> {
        e.const_value(&|n| self.consts.get(n).copied())
    }
}

/// The generic arguments of the last segment of a path type.
fn generics(ty: &Ty) -> &[Generic] {
    match ty {
        Ty::Path(p) => p.segments.last().map_or(&[], |s| s.generics.as_slice()),
        Ty::Ref { elem, .. } => generics(elem),
        _ => &[],
    }
}

/// The name of the first type argument (`bf16` in `Global<bf16>`).
fn first_type_generic(ty: &Ty) -> Option<&str> {
    generics(ty).iter().find_map(|g| match g {
        Generic::Type(t) => t.name(),
        _ => None,
    })
}

/// The plan of a shared field of type `Tile<T, R, C>` or `Ring<Tile<T, R, C>, S>`.
fn field(name: &str, ty: &Ty, consts: &BTreeMap<String, i128>, at: u32) -> Result<FieldPlan, Unsupported> {
    let lookup = |n: &str| consts.get(n).copied();
    let num = |g: &Generic| g.const_value(&lookup).and_then(|v| u32::try_from(v).ok());
    let bad = || {
        unsupported(
            0,
            format!(
                "shared field `{name}`: only `Tile<T, R, C>` and `Ring<Tile<T, R, C>, S>` with constant sizes are rendered"
            ),
        )
    };
    let (tile, stages) = match ty {
        Ty::Array { elem, len } => {
            let Some(n) = len.const_value(&lookup).and_then(|v| u32::try_from(v).ok()) else { return bad() };
            (elem.as_ref(), n)
        }
        _ => match ty.name() {
            Some("Ring") => {
                let g = generics(ty);
                let (Some(Generic::Type(tile)), Some(s)) = (g.first(), g.get(1)) else { return bad() };
                let Some(s) = num(s) else { return bad() };
                (tile, s)
            }
            Some("Tile") => (ty, 1),
            _ => return bad(),
        },
    };
    if tile.name() != Some("Tile") {
        return bad();
    }
    let g = generics(tile);
    let (Some(elem), Some(rows), Some(cols)) =
        (first_type_generic(tile).and_then(Elem::parse), g.get(1).and_then(num), g.get(2).and_then(num))
    else {
        return bad();
    };
    let layout = TileLayout::of(cols, elem.bytes());
    // Swizzled tiles start 1024-aligned (the swizzle is a function of address bits 4 to 9);
    // plain ones 128-aligned.
    let align = if layout.swizzled { 1024 } else { 128 };
    let bytes = rows * cols * elem.bytes();
    Ok(FieldPlan {
        name: name.to_string(),
        elem,
        rows,
        cols,
        stages,
        offset: at.div_ceil(align) * align,
        stage_bytes: bytes.div_ceil(align) * align,
        layout,
    })
}

/// The rows, columns and array length (`None`: a single tile) of a `TmemTile<R, C>` or
/// `[TmemTile<R, C>; N]` field.
pub(crate) fn tmem_tile(ty: &Ty) -> Option<(&Generic, &Generic, Option<&Expr>)> {
    let (tile, len) = match ty {
        Ty::Array { elem, len } => (elem.as_ref(), Some(len.as_ref())),
        _ => (ty, None),
    };
    if tile.name() != Some("TmemTile") {
        return None;
    }
    match generics(tile) {
        [rows, cols] => Some((rows, cols, len)),
        _ => None,
    }
}

/// Places the roles' warps: roles of one-warp instances first, packed side by side into
/// shared warpgroups (FlashAttention-4 and CUTLASS run their load, MMA and epilogue warps
/// in one warpgroup), then roles of warpgroup instances, each from a warpgroup boundary.
/// Roles keep their order within each kind. Returns the warpgroups.
fn place(roles: &mut [RolePlan]) -> Vec<WarpgroupPlan> {
    let mut order: Vec<usize> = (0..roles.len()).filter(|&i| roles[i].warps_per_instance < 4).collect();
    order.extend((0..roles.len()).filter(|&i| roles[i].warps_per_instance >= 4));
    let mut groups: Vec<WarpgroupPlan> = Vec::new();
    let mut warp = 0;
    for i in order {
        let r = &mut roles[i];
        if r.warps_per_instance >= 4 || warp % 4 + r.warps > 4 {
            warp = warp.div_ceil(4) * 4;
        }
        r.base_warp = warp;
        // Warps up to the next boundary that no role takes stay with this one (idle).
        r.padded_warps = (warp + r.warps).div_ceil(4) * 4 - warp;
        for g in warp / 4..(warp + r.warps).div_ceil(4) {
            while groups.len() <= g as usize {
                groups.push(WarpgroupPlan { roles: Vec::new(), regs: None });
            }
            groups[g as usize].roles.push(i);
        }
        warp += r.warps;
    }
    // A role followed by another in its warpgroup owns only its own warps.
    for g in &groups {
        for pair in g.roles.windows(2) {
            roles[pair[0]].padded_warps = roles[pair[1]].base_warp - roles[pair[0]].base_warp;
        }
    }
    groups
}
