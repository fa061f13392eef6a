//! The CUDA code generator: a kernel's IR ([`warpspec_ir::Kernel`]) rendered to CUDA C++
//! that calls the device library ([`super::device_lib`]).
//!
//! The generated translation unit has, in namespace `<kernel>`: the kernel's constants, a
//! `Params` struct (tensor maps, pointers, shapes, scalars), a `Shared` struct (tiles in
//! dynamic shared memory, 1024-byte aligned, and the pipelines' mbarriers), one
//! `__device__` function per role named after it; then the `extern "C"` entry, which
//! initialises the barriers, and dispatches on the warp index: each role occupies whole
//! warpgroups, calls `setmaxnreg` with its `regs` when roles differ, and runs its function
//! per instance. Helpers the roles call are inlined. Each DSL op is preceded by a comment
//! with its Rust source line. An op the generator cannot render is a [`CodegenError`].
//!
//! See `docs/cuda.md`, "Generated code".

mod body;
mod cluster;
mod entry;
mod epilogue;
mod error;
mod math;
mod mma;
mod ops;
mod plan;
mod timestamps;
mod tmem;
mod value;

use std::fmt::Write;

use warpspec_ir::{Kernel, PatKind};

use crate::gpu::Arch;

pub use error::CodegenError;
use error::{Unsupported, unsupported};
pub(crate) use plan::TileLayout;
use plan::{ParamPlan, Plan};
pub use timestamps::{MarkedLines, TimestampLayout, TimestampSite, TimestampSpec};

use body::{Body, Uses, Val};

/// Helpers of generated code, included after the device library.
const PRELUDE: &str = include_str!("prelude.cuh");
/// Helpers of generated code for Blackwell (tensor memory, `tcgen05`), after [`PRELUDE`].
const PRELUDE_SM100: &str = include_str!("prelude_sm100.cuh");

/// One parameter of the generated entry function, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamSlot {
    /// `const __grid_constant__ ws::TensorMap`: the global `global`, of `rank` dimensions,
    /// read in boxes of `rows x cols` elements of its two innermost (one element of each
    /// outer dimension), with a `swizzle`-byte swizzle (64 or 128).
    Map {
        /// The `#[params]` field.
        global: String,
        /// Dimensions of the global (2 to 4).
        rank: usize,
        /// Box rows.
        rows: u32,
        /// Box columns.
        cols: u32,
        /// Swizzle span in bytes.
        swizzle: u32,
    },
    /// A device pointer to the global's data.
    Pointer {
        /// The `#[params]` field.
        global: String,
    },
    /// `int`: extent `axis` of the global.
    Extent {
        /// The `#[params]` field.
        global: String,
        /// The dimension, outermost first.
        axis: usize,
    },
    /// `int`: an integer argument.
    Int(String),
    /// `int` (0 or 1): a flag.
    Bool(String),
    /// `float`: a floating-point argument.
    Float(String),
    /// `unsigned long long*`: the op timestamps' buffer, of [`TimestampSpec::words`] words
    /// (timestamped renderings only, last).
    Timestamps,
}

/// A role's place in the generated CTA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleLayout {
    /// The role.
    pub name: String,
    /// Its first warp.
    pub base_warp: u32,
    /// Warps running it.
    pub warps: u32,
    /// Warps of one instance.
    pub warps_per_instance: u32,
    /// Its register budget (`setmaxnreg`), when given.
    pub regs: Option<u32>,
}

/// A rendered kernel.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The architecture it is rendered for: [`Arch::Sm100a`] for kernels with tensor memory
    /// (compile-only here: running them needs a B200), [`Arch::Sm90a`] otherwise.
    pub arch: Arch,
    /// The entry function's name (the kernel's).
    pub entry: String,
    /// The kernel's source (without the device library; see [`Generated::translation_unit`]).
    pub source: String,
    /// Threads per CTA.
    pub threads: u32,
    /// Dynamic shared memory per CTA, in bytes.
    pub smem_bytes: u32,
    /// The entry's parameters, in order.
    pub params: Vec<ParamSlot>,
    /// The roles.
    pub roles: Vec<RoleLayout>,
    /// Registers per thread at launch: the register file divided among the CTA's threads
    /// (in steps of 8); `setmaxnreg` moves each warpgroup from there to its roles' budget.
    pub launch_registers: u32,
    /// What the rendering records, when rendered with timestamps
    /// ([`generate_timestamped`]).
    pub timestamps: Option<TimestampLayout>,
}

impl Generated {
    /// The complete source NVRTC compiles: the device library, then the kernel.
    pub fn translation_unit(&self) -> String {
        super::device_lib::with_kernels(&self.source)
    }

    /// The most registers a role asks for: the budget ptxas' report is checked against.
    pub fn register_budget(&self) -> u32 {
        self.roles.iter().filter_map(|r| r.regs).max().unwrap_or(255)
    }

    /// What ptxas' report is checked against: the register budget, no spills and no stack
    /// frame. A timestamped rendering may spill where the plain one does not (the recorder
    /// and the buffer's address take registers); its cost is measured beside the plain
    /// kernel's time, spills included, so only the register budget holds for it.
    pub fn resource_budget(&self) -> crate::gpu::ResourceBudget {
        let strict = crate::gpu::ResourceBudget::strict(self.register_budget());
        match self.timestamps {
            Some(_) => crate::gpu::ResourceBudget { max_spill_bytes: u32::MAX, max_stack_frame: u32::MAX, ..strict },
            None => strict,
        }
    }
}

/// The architecture kernel `k` is rendered for: Blackwell (sm_100a) when it declares tensor
/// memory, Hopper (sm_90a) otherwise.
pub fn arch_of(k: &Kernel) -> Arch {
    if k.shared.iter().any(|f| plan::tmem_tile(&f.ty).is_some()) { Arch::Sm100a } else { Arch::Sm90a }
}

/// Renders kernel `k` to CUDA C++ for its architecture ([`arch_of`]).
pub fn generate(k: &Kernel) -> Result<Generated, CodegenError> {
    render(k, None).map_err(|u| CodegenError {
        kernel: k.name.clone(),
        target: arch_of(k).name(),
        line: u.line,
        what: u.what,
    })
}

/// Renders kernel `k` with op timestamps: before each operation that issues work or waits,
/// lane 0 of each warp of the first `spec.ctas` CTAs records the SM's cycle counter and the
/// operation's site (see [`timestamps`](TimestampLayout)). The entry takes one more
/// parameter, [`ParamSlot::Timestamps`].
pub fn generate_timestamped(k: &Kernel, spec: TimestampSpec) -> Result<Generated, CodegenError> {
    let error =
        |line: u32, what: String| CodegenError { kernel: k.name.clone(), target: arch_of(k).name(), line, what };
    let warps = Plan::new(k).map_err(|u| error(u.line, u.what))?.threads / 32;
    spec.check(warps).map_err(|what| error(0, what))?;
    render(k, Some(spec)).map_err(|u| error(u.line, u.what))
}

fn render(k: &Kernel, timestamps: Option<TimestampSpec>) -> Result<Generated, Unsupported> {
    let plan = Plan::new(k)?;
    let blackwell = plan.arch == Arch::Sm100a;
    let mut uses = Uses::default();
    let mut role_fns = String::new();
    for (i, (r, rp)) in k.roles.iter().zip(&plan.roles).enumerate() {
        let mut b = Body::new(&plan, k, &mut uses);
        b.role = i;
        b.timestamped = timestamps;
        let mut states = Vec::new();
        for p in &r.func.params {
            let PatKind::Ident { name, .. } = &p.pat.kind else {
                return unsupported(p.pat.pos.line, "a role parameter that is not a name");
            };
            if let (warpspec_ir::Ty::Ref { .. }, Some((field, f))) = (&p.ty, plan.field(name))
                && f.stages == 1
            {
                // `name: &Tile<..>`: the shared field `name`, which no pipeline guards.
                let view = body::View {
                    field,
                    stage: "0".into(),
                    row0: "0".into(),
                    rows: f.rows,
                    cols: f.cols,
                    transposed: false,
                };
                b.bind(name, Val::View(view));
                continue;
            }
            let ty_generic = endpoint_target(&p.ty);
            let val = match p.ty.name() {
                Some("Ctx") => Val::Ctx,
                Some(kind @ ("Producer" | "Consumer")) => {
                    let Some(pipe) = ty_generic.and_then(|n| plan.pipelines.iter().position(|x| x.name == n)) else {
                        return unsupported(p.pat.pos.line, format!("the endpoint `{name}` of an unknown pipeline"));
                    };
                    let state = b.declare(name);
                    states.push(format!(
                        "wsg::PipeState {state} = {{0u, 0u}};  // `{name}`: {kind} of `{}`",
                        plan.pipelines[pipe].name
                    ));
                    if kind == "Producer" { Val::Producer { pipe, state } } else { Val::Consumer { pipe, state } }
                }
                Some("Named") => {
                    let Some(i) = ty_generic.and_then(|n| plan.named.iter().position(|x| x.name == n)) else {
                        return unsupported(p.pat.pos.line, format!("the named barrier `{name}`"));
                    };
                    Val::Named(i)
                }
                Some(kind @ ("Arriver" | "Waiter")) => {
                    let Some(i) = ty_generic.and_then(|n| plan.barriers.iter().position(|x| x.name == n)) else {
                        return unsupported(p.pat.pos.line, format!("the endpoint `{name}` of an unknown barrier"));
                    };
                    if kind == "Arriver" { Val::Arriver(i) } else { Val::Waiter(i) }
                }
                other => match shared_value(&plan, name) {
                    Some(v) => v,
                    None => {
                        return unsupported(p.pat.pos.line, format!("a role parameter of type {other:?}"));
                    }
                },
            };
            b.bind(name, val);
        }
        for s in &states {
            b.line(s);
        }
        b.block_stmts(&r.func.body)?;
        // A fragment still queued was never used: nothing to load.
        b.lazy.clear();
        b.pending_round.clear();
        let body = std::mem::take(&mut b.out);
        let regs = rp.regs.map_or(String::new(), |r| format!(", {r} registers"));
        let recorder =
            if timestamps.is_some() { format!(", ws::u32& {}", timestamps::RECORDER) } else { String::new() };
        let _ = writeln!(
            role_fns,
            "// role `{}` (line {}): {} instance(s) of {} warp(s){regs}\n\
             __device__ __forceinline__ void {}(const Params& P, const Shared& S, const ws::u32 instance, const bool leader{recorder}) {{\n{body}}}\n",
            rp.name,
            r.func.pos.line,
            rp.warps / rp.warps_per_instance,
            rp.warps_per_instance,
            rp.name,
        );
    }
    let (mut decls, mut params, mut fields) = signature(&plan, &mut uses)?;
    let layout = timestamps.map(|spec| TimestampLayout { spec, warps: plan.threads / 32, sites: uses.sites.clone() });
    if layout.is_some() {
        decls.push(format!("ws::u64* {}", timestamps::BUFFER));
        params.push(ParamSlot::Timestamps);
        let _ = writeln!(fields, "    ws::u64* {};  // op timestamps, a row per recording warp", timestamps::BUFFER);
    }
    let mut src = String::new();
    let _ = writeln!(src, "// Generated by warpspec from kernel `{}` for {}. Do not edit.\n", k.name, plan.arch.name());
    src.push_str(PRELUDE);
    if blackwell {
        src.push_str(PRELUDE_SM100);
    }
    if timestamps.is_some() {
        src.push_str(timestamps::HELPERS);
    }
    let _ = writeln!(src, "\nnamespace {}_roles {{\n", k.name);
    for name in &plan.const_order {
        let _ = writeln!(src, "[[maybe_unused]] constexpr int {name} = {};", plan.consts[name]);
    }
    let _ = writeln!(src, "\n/// The launch arguments.\nstruct Params {{\n{fields}}};\n");
    let _ = writeln!(src, "/// Shared memory: tiles (1024-byte aligned) and mbarriers.\nstruct Shared {{");
    for f in &plan.fields {
        let _ = writeln!(
            src,
            "    unsigned char* {};  // {} stage(s) of {} x {} {:?}, {} bytes apart, {}-byte swizzle",
            f.name, f.stages, f.rows, f.cols, f.elem, f.stage_bytes, f.layout.row_bytes
        );
    }
    for p in &plan.pipelines {
        let _ = writeln!(src, "    ws::u64* {}_full;   // {} stage(s), {} arrival(s)", p.name, p.stages, p.full_count);
        let _ = writeln!(src, "    ws::u64* {}_empty;  // {} arrival(s)", p.name, p.empty_count);
    }
    for b in &plan.barriers {
        let _ = writeln!(src, "    ws::u64* {};  // {} barrier(s) of {} arrival(s)", b.name, b.len, b.count);
    }
    if blackwell {
        let _ = writeln!(src, "    ws::u32 tmem;  // tensor memory: {} columns from this address", plan.tmem_cols);
        for t in &plan.tmem {
            let _ = writeln!(
                src,
                "    // `{}`: {} tile(s) of {} x {} f32, columns {}..{}",
                t.name,
                t.count,
                t.rows,
                t.cols,
                t.col0,
                t.col0 + t.cols * t.count
            );
        }
    }
    src.push_str("};\n\n");
    src.push_str(&role_fns);
    let _ = writeln!(src, "}}  // namespace {}_roles\n", k.name);
    if plan.arch == Arch::Sm90a && plan.barriers.is_empty() && plan.warpgroups.iter().all(|g| g.roles.len() == 1) {
        entry::hopper(&mut src, k, &plan, &decls, layout.as_ref());
    } else {
        entry::packed(&mut src, k, &plan, &decls, layout.as_ref());
    }
    let roles = plan
        .roles
        .iter()
        .map(|r| RoleLayout {
            name: r.name.clone(),
            base_warp: r.base_warp,
            warps: r.warps,
            warps_per_instance: r.warps_per_instance,
            regs: r.regs,
        })
        .collect();
    Ok(Generated {
        arch: plan.arch,
        launch_registers: plan.launch_regs,
        entry: k.name.clone(),
        source: src,
        threads: plan.threads,
        smem_bytes: plan.smem_bytes,
        params,
        roles,
        timestamps: layout,
    })
}

/// The shared field (a tile, ring or array of tiles) or tensor-memory field called `name`,
/// which a role receives as a parameter of that name.
fn shared_value(plan: &Plan, name: &str) -> Option<Val> {
    if let Some((i, _)) = plan.field(name) {
        return Some(Val::Field(i));
    }
    plan.tmem.iter().position(|t| t.name == name).map(|tile| Val::Tmem { tile, index: None })
}

/// The pipeline or named barrier an endpoint type names (`Operands` in `Producer<'_, Operands>`).
fn endpoint_target(ty: &warpspec_ir::Ty) -> Option<&str> {
    use warpspec_ir::{Generic, Ty};
    match ty {
        Ty::Path(p) => p.segments.last()?.generics.iter().find_map(|g| match g {
            Generic::Type(t) => t.name(),
            _ => None,
        }),
        Ty::Ref { elem, .. } => endpoint_target(elem),
        _ => None,
    }
}

/// The entry's parameter declarations, their slots, and the `Params` struct's fields.
fn signature(plan: &Plan, uses: &mut Uses) -> Result<(Vec<String>, Vec<ParamSlot>, String), Unsupported> {
    let (mut decls, mut slots, mut fields) = (Vec::new(), Vec::new(), String::new());
    for p in &plan.params {
        match p {
            ParamPlan::Global { name, elem } => {
                let rank = uses.ranks.get(name).copied().unwrap_or(0);
                if let Some(&(rows, cols, swizzle)) = uses.maps.get(name) {
                    decls.push(format!("const __grid_constant__ ws::TensorMap {name}_map"));
                    slots.push(ParamSlot::Map { global: name.clone(), rank, rows, cols, swizzle });
                    let _ = writeln!(fields, "    const ws::TensorMap* {name}_map;");
                }
                if uses.pointers.contains(name) {
                    let ty = elem.storage();
                    decls.push(format!("{ty}* {name}"));
                    slots.push(ParamSlot::Pointer { global: name.clone() });
                    let _ = writeln!(fields, "    {ty}* {name};  // {}", elem.cpp());
                }
                for axis in 0..rank {
                    decls.push(format!("int {name}_shape{axis}"));
                    slots.push(ParamSlot::Extent { global: name.clone(), axis });
                    let _ = writeln!(fields, "    int {name}_shape{axis};");
                }
            }
            ParamPlan::Int(n) => {
                decls.push(format!("int {n}"));
                slots.push(ParamSlot::Int(n.clone()));
                let _ = writeln!(fields, "    int {n};");
            }
            ParamPlan::Bool(n) => {
                decls.push(format!("int {n}"));
                slots.push(ParamSlot::Bool(n.clone()));
                let _ = writeln!(fields, "    bool {n};");
            }
            ParamPlan::Float(n) => {
                decls.push(format!("float {n}"));
                slots.push(ParamSlot::Float(n.clone()));
                let _ = writeln!(fields, "    float {n};");
            }
        }
    }
    Ok((decls, slots, fields))
}
