//! The `extern "C"` entry of a generated kernel: shared memory, barrier initialisation,
//! tensor-memory allocation (Blackwell), `setmaxnreg` per warpgroup and dispatch by warp.

use std::fmt::Write;

use warpspec_ir::Kernel;

use super::TimestampLayout;
use super::plan::{ParamPlan, Plan};
use super::timestamps::{BUFFER, RECORDER};

/// With timestamps: the warp's recorder, opened after the prologue.
fn open_recorder(src: &mut String, timestamps: Option<&TimestampLayout>) {
    if let Some(t) = timestamps {
        let _ = writeln!(
            src,
            "    // Op timestamps: lane 0 of each warp of the first {} CTA(s) keeps up to {} marks.\n    \
             ws::u32 {RECORDER} = wsg::timestamps_open<{}u>({}u);",
            t.spec.ctas,
            t.spec.capacity,
            t.spec.row(),
            t.spec.ctas
        );
    }
}

/// The call of role `role` by the threads from warp `base_warp` on, in instances of
/// `threads` threads, at `indent`; with timestamps, the recorder passed and closed after it.
fn call_role(ns: &str, role: &str, base_warp: u32, threads: u32, indent: &str, ts: Option<&TimestampLayout>) -> String {
    let (arg, close) = match ts {
        Some(t) => (
            format!(", {RECORDER}"),
            format!("\n{indent}wsg::timestamps_close<{}u>(P.{BUFFER}, {RECORDER});", t.spec.row()),
        ),
        None => (String::new(), String::new()),
    };
    format!(
        "{indent}const ws::u32 t = threadIdx.x - {}u;\n{indent}{ns}::{role}(P, S, t / {threads}u, t % {threads}u == 0{arg});{close}",
        base_warp * 32
    )
}

/// Everything before the dispatch: the signature, shared memory, `Params`, barrier
/// initialisation and, with tensor memory, its allocation; then `Shared S` and `warp`.
fn prologue(src: &mut String, k: &Kernel, plan: &Plan, decls: &[String]) {
    let ns = &format!("{}_roles", k.name);
    let cluster = k.cluster.filter(|d| d.iter().product::<u32>() > 1);
    let dims = cluster.map_or(String::new(), |[x, y, z]| format!("__cluster_dims__({x}, {y}, {z}) "));
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void {dims}__launch_bounds__({}, 1) {}(\n    {}) {{",
        plan.threads,
        k.name,
        decls.join(",\n    ")
    );
    src.push_str("    extern __shared__ __align__(1024) unsigned char smem_raw[];\n");
    for p in &plan.pipelines {
        let _ = writeln!(src, "    __shared__ ws::u64 {}_full[{}], {}_empty[{}];", p.name, p.stages, p.name, p.stages);
    }
    for b in &plan.barriers {
        let _ = writeln!(src, "    __shared__ ws::u64 {}[{}];", b.name, b.len);
    }
    if plan.tmem_cols > 0 {
        src.push_str("    __shared__ ws::u32 tmem_base;  // written by tcgen05.alloc\n");
    }
    src.push_str("    // TMA's swizzles are functions of address bits 4-9: tiles start 1024-aligned.\n");
    src.push_str("    unsigned char* smem = smem_raw + ((1024u - (ws::smem_addr(smem_raw) & 1023u)) & 1023u);\n");
    let _ = write!(src, "    const {ns}::Params P{{");
    let mut inits = Vec::new();
    for p in &plan.params {
        let names: Vec<String> = decls
            .iter()
            .filter_map(|d| d.rsplit(' ').next().map(str::to_string))
            .filter(|n| match p {
                ParamPlan::Global { name, .. } => {
                    n == &format!("{name}_map") || n == name || n.starts_with(&format!("{name}_shape"))
                }
                ParamPlan::Int(name) | ParamPlan::Bool(name) | ParamPlan::Float(name) => n == name,
            })
            .collect();
        for n in names {
            if n.ends_with("_map") {
                inits.push(format!("&{n}"));
            } else if matches!(p, ParamPlan::Bool(_)) {
                inits.push(format!("{n} != 0"));
            } else {
                inits.push(n);
            }
        }
    }
    if decls.iter().any(|d| d.ends_with(&format!(" {BUFFER}"))) {
        inits.push(BUFFER.to_string());
    }
    let _ = writeln!(src, "{}}};", inits.join(", "));
    let mut shared = Vec::new();
    for f in &plan.fields {
        shared.push(format!("smem + {}", f.offset));
    }
    for p in &plan.pipelines {
        shared.push(format!("{}_full", p.name));
        shared.push(format!("{}_empty", p.name));
    }
    for b in &plan.barriers {
        shared.push(b.name.clone());
    }
    let shared_init = format!("    const {ns}::Shared S{{{}}};\n", shared.join(", "));
    if plan.tmem_cols == 0 {
        src.push_str(&shared_init);
    }
    src.push_str("    if (threadIdx.x == 0) {\n");
    for p in &plan.pipelines {
        let _ = writeln!(
            src,
            "        for (int s = 0; s < {}; ++s) {{\n            ws::mbar_init(&{}_full[s], {});\n            ws::mbar_init(&{}_empty[s], {});\n        }}",
            p.stages, p.name, p.full_count, p.name, p.empty_count
        );
    }
    for b in &plan.barriers {
        let _ =
            writeln!(src, "        for (int i = 0; i < {}; ++i) ws::mbar_init(&{}[i], {});", b.len, b.name, b.count);
    }
    if plan.tmem_cols == 0 {
        src.push_str("        ws::fence_mbarrier_init();\n    }\n");
        if cluster.is_some() {
            src.push_str("    // Peers arrive on and multicast into this CTA's barriers: all are initialised first.\n");
            src.push_str("    wsg::cluster_sync();\n");
        } else {
            src.push_str("    __syncthreads();\n");
        }
        src.push_str("    const ws::u32 warp = ws::warp_idx();\n");
        return;
    }
    src.push_str("        ws::fence_mbarrier_init();\n    }\n");
    src.push_str("    const ws::u32 warp = ws::warp_idx();\n");
    let _ = writeln!(
        src,
        "    // Warp 0 allocates the tensor memory (a whole warp executes tcgen05.alloc) and gives\n    \
         // up the right to allocate more, so a CTA on the same SM waits for none of it.\n    \
         if (warp == 0u) wsg::tmem_alloc(&tmem_base, {}u);",
        plan.tmem_cols
    );
    src.push_str("    wsg::tmem_fence_before_sync();\n    __syncthreads();\n    wsg::tmem_fence_after_sync();\n");
    src.push_str(&shared_init.replace("};\n", ", tmem_base};\n"));
}

/// The entry of a kernel whose warpgroups each run one role and which has neither plain
/// barriers nor tensor memory (every Hopper kernel of the examples): one block per role
/// that calls `setmaxnreg` with the role's budget, runs it and returns.
pub(super) fn hopper(src: &mut String, k: &Kernel, plan: &Plan, decls: &[String], ts: Option<&TimestampLayout>) {
    let ns = &format!("{}_roles", k.name);
    prologue(src, k, plan, decls);
    open_recorder(src, ts);
    for r in &plan.roles {
        let (lo, hi, used) = (r.base_warp, r.base_warp + r.padded_warps, r.base_warp + r.warps);
        let range = if lo == 0 { format!("warp < {hi}u") } else { format!("warp >= {lo}u && warp < {hi}u") };
        let _ = writeln!(src, "    if ({range}) {{  // role `{}`", r.name);
        if plan.set_regs
            && let Some(regs) = r.regs
        {
            let max = plan.roles.iter().filter_map(|x| x.regs).max().unwrap_or(regs);
            let f = if regs < max { "setmaxnreg_dec" } else { "setmaxnreg_inc" };
            let _ = writeln!(src, "        ws::{f}<{regs}>();");
        }
        let threads = r.warps_per_instance * 32;
        let _ = writeln!(
            src,
            "        if ({}) {{\n{}\n        }}\n        return;\n    }}",
            if used == hi { "true".to_string() } else { format!("warp < {used}u") },
            call_role(ns, &r.name, lo, threads, "            ", ts),
        );
    }
    src.push_str("}\n");
}

/// The entry of any other kernel: one block per run of warpgroups with the same roles,
/// which calls `setmaxnreg` with the largest budget of those roles (it acts on whole
/// warpgroups) and dispatches each warp to its role; warps no role takes idle. Then, with
/// tensor memory, every warp meets once more and warp 0 frees the allocation.
pub(super) fn packed(src: &mut String, k: &Kernel, plan: &Plan, decls: &[String], ts: Option<&TimestampLayout>) {
    let ns = &format!("{}_roles", k.name);
    prologue(src, k, plan, decls);
    open_recorder(src, ts);
    // Runs of consecutive warpgroups holding the same roles (a role of several warpgroups).
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for (g, wg) in plan.warpgroups.iter().enumerate() {
        match runs.last_mut() {
            Some((_, end)) if plan.warpgroups[*end].roles == wg.roles && wg.roles.len() == 1 => *end = g,
            _ => runs.push((g, g)),
        }
    }
    for (n, &(first, last)) in runs.iter().enumerate() {
        let (lo, hi) = (first as u32 * 4, last as u32 * 4 + 4);
        let wg = &plan.warpgroups[first];
        let names: Vec<String> = wg.roles.iter().map(|&r| format!("`{}`", plan.roles[r].name)).collect();
        let range = if lo == 0 { format!("warp < {hi}u") } else { format!("warp >= {lo}u && warp < {hi}u") };
        let els = if n == 0 { "" } else { "} else " };
        let _ = writeln!(src, "    {els}if ({range}) {{  // warpgroup(s) {first}..={last}: {}", names.join(", "));
        if plan.set_regs
            && let Some(regs) = wg.regs
        {
            let f = if regs < plan.launch_regs { "setmaxnreg_dec" } else { "setmaxnreg_inc" };
            let _ = writeln!(src, "        ws::{f}<{regs}>();");
        }
        for (i, &r) in wg.roles.iter().enumerate() {
            let r = &plan.roles[r];
            let (lo, used) = (r.base_warp, r.base_warp + r.warps);
            let threads = r.warps_per_instance * 32;
            let els = if i == 0 { "" } else { "else " };
            let range = if lo == 0 { format!("warp < {used}u") } else { format!("warp >= {lo}u && warp < {used}u") };
            let _ = writeln!(
                src,
                "        {els}if ({range}) {{  // role `{}`\n{}\n        }}",
                r.name,
                call_role(ns, &r.name, lo, threads, "            ", ts),
            );
        }
    }
    if !runs.is_empty() {
        src.push_str("    }\n");
    }
    if plan.tmem_cols > 0 {
        let _ = writeln!(
            src,
            "    // Every role is done with tensor memory: warp 0 frees it (the warp index asked\n    \
             // again rather than kept live through the roles).\n    \
             wsg::tmem_fence_before_sync();\n    __syncthreads();\n    \
             if (ws::warp_idx() == 0u) {{\n        wsg::tmem_fence_after_sync();\n        wsg::tmem_dealloc(tmem_base, {}u);\n    }}",
            plan.tmem_cols
        );
    }
    src.push_str("}\n");
}
