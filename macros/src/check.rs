//! Check: declaration and budget rules the types cannot express, then the whole-kernel
//! protocol checks of [`crate::protocol`]. Each rule is a function that records its
//! findings; all of them run, so one compile shows every problem.

use quote::ToTokens;
use warpspec_hw::CtaLimits;

use crate::diag::{Code, Diagnostic};
use crate::errors::{Errors, Loc, list};
use crate::lower::Lowered;
use crate::model::{EndpointKind, Model, Target};

/// What a CTA may use on at least one known machine: the kernel's target is not known at
/// compile time, so the budgets are checked against the widest; a launch checks the limits
/// of the machine it targets.
const LIMITS: CtaLimits = CtaLimits::ANY;
/// Shared memory one CTA may use, bytes.
const MAX_SMEM_PER_CTA: i128 = LIMITS.smem_per_cta_bytes as i128;
/// 32-bit registers per SM.
const REGISTERS_PER_SM: i128 = LIMITS.registers_per_sm as i128;
/// Tensor-memory columns of an SM (Blackwell; none before).
const TMEM_COLUMNS: i128 = LIMITS.tmem_columns as i128;
/// Threads one CTA may have.
const MAX_THREADS_PER_CTA: i128 = LIMITS.threads_per_cta as i128;

/// Runs every rule; the whole-kernel protocol checks only when `protocol` is set and the
/// declarations are sound (a protocol run over unsound ones would only repeat their errors).
/// Returns what the protocol runs found a lowering must do: the arrivals that must wait for
/// a tensor-memory load.
pub fn check<'a>(
    model: &Model<'a>,
    lowered: Option<&Lowered<'a>>,
    errors: &Errors,
    protocol: bool,
) -> Vec<warpspec_ir::WaitLd> {
    let mut wait_ld = Vec::new();
    endpoint_directions(model, errors);
    guards(model, errors);
    let sound = errors.len() == 0;
    shared_memory_budget(model, errors);
    tensor_memory_budget(model, errors);
    register_budgets(model, errors);
    thread_count(model, errors);
    if protocol
        && sound
        && let Some(lowered) = lowered
    {
        wait_ld = crate::protocol::check(model, lowered, errors).wait_ld;
    }
    if model.roles.is_empty() {
        errors.at(&model.kernel.module.ident, "a kernel needs at least one `#[role(..)] async fn`");
    }
    wait_ld
}

/// A role may only take the ends of a pipeline or barrier it is declared for.
fn endpoint_directions(model: &Model<'_>, errors: &Errors) {
    let k = model.kernel;
    for (r, role) in model.roles.iter().enumerate() {
        for e in &role.endpoints {
            let (allowed, what, name, side, declared) = match (e.kind, e.target) {
                (EndpointKind::Producer, Target::Pipeline(p)) => (
                    &model.pipelines[p].producers,
                    "producer end of pipeline",
                    &k.pipelines[p].name,
                    "producer",
                    &model.pipelines[p].producers,
                ),
                (EndpointKind::Consumer, Target::Pipeline(p)) => (
                    &model.pipelines[p].consumers,
                    "consumer end of pipeline",
                    &k.pipelines[p].name,
                    "consumer",
                    &model.pipelines[p].consumers,
                ),
                (EndpointKind::Arriver, Target::Barrier(b)) => (
                    &model.barriers[b].0,
                    "arriving end of barrier",
                    &k.barriers[b].name,
                    "arrive",
                    &model.barriers[b].0,
                ),
                (EndpointKind::Waiter, Target::Barrier(b)) => {
                    (&model.barriers[b].1, "waiting end of barrier", &k.barriers[b].name, "wait", &model.barriers[b].1)
                }
                (EndpointKind::Named, Target::Named(n)) => {
                    (&model.named[n], "named barrier", &k.named[n].name, "roles", &model.named[n])
                }
                (EndpointKind::Buffer, Target::Buffer(_)) => continue,
                (kind, target) => {
                    let target_kind = match target {
                        Target::Pipeline(_) => "a #[pipeline] (use `Producer` or `Consumer`)",
                        Target::Barrier(_) => "a #[barrier] (use `Arriver` or `Waiter`)",
                        Target::Named(_) => "a #[named_barrier] (use `Named`)",
                        Target::Buffer(_) => "a #[shared] field (take it as `&Type`)",
                    };
                    errors.at(&e.ty, format!("`{kind:?}` cannot be used with {target_kind}"));
                    continue;
                }
            };
            let names_resolved = match e.target {
                Target::Pipeline(p) => {
                    let d = &k.pipelines[p];
                    d.producers.len() + d.consumers.len()
                        == model.pipelines[p].producers.len() + model.pipelines[p].consumers.len()
                }
                Target::Barrier(b) => {
                    k.barriers[b].arrive.len() + k.barriers[b].wait.len()
                        == model.barriers[b].0.len() + model.barriers[b].1.len()
                }
                Target::Named(n) => k.named[n].roles.len() == model.named[n].len(),
                Target::Buffer(_) => true,
            };
            if names_resolved && !allowed.contains(&r) {
                let names = list(declared.iter().map(|&i| &model.roles[i].name));
                errors.coded(
                    Code::Endpoint,
                    &e.ty,
                    format!(
                        "role `{}` takes the {what} `{name}`, but `{name}` is declared with `{side} = [{}]`; add `{}` there or take the other end",
                        role.name,
                        names.replace('`', ""),
                        role.name
                    ),
                );
            }
        }
    }
}

/// Shared memory per CTA must fit in what a CTA may have.
fn shared_memory_budget(model: &Model<'_>, errors: &Errors) {
    let Some(shared) = &model.kernel.shared else { return };
    let sizes: Option<Vec<i128>> = model.fields.iter().map(|f| f.size.map(|(bytes, _)| bytes)).collect();
    let Some(sizes) = sizes else { return };
    let Some(total) = sizes.iter().try_fold(0i128, |t, &s| t.checked_add(s)) else { return };
    if total > MAX_SMEM_PER_CTA {
        let parts: Vec<String> = model.fields.iter().zip(&sizes).map(|(f, s)| format!("`{}` {s} B", f.name)).collect();
        errors.coded(
            Code::Budget,
            &shared.ident,
            format!(
                "shared memory per CTA is {total} bytes ({}), over the {MAX_SMEM_PER_CTA} bytes ({} KB) a CTA can have; use fewer stages or smaller tiles",
                parts.join(", "),
                MAX_SMEM_PER_CTA / 1024
            ),
        );
    }
}

/// Tensor memory holds [`TMEM_COLUMNS`] columns of 128 lanes per SM.
fn tensor_memory_budget(model: &Model<'_>, errors: &Errors) {
    let Some(shared) = &model.kernel.shared else { return };
    let columns = model.fields.iter().try_fold(0i128, |t, f| t.checked_add(f.size?.1));
    if let Some(columns) = columns.filter(|&c| c > TMEM_COLUMNS) {
        errors.coded(
            Code::Budget,
            &shared.ident,
            format!("the tensor-memory buffers take {columns} columns, more than the {TMEM_COLUMNS} an SM has; alias them (P over S) or use narrower tiles"),
        );
    }
}

/// `setmaxnreg` budgets: multiples of 8 in 24..=256, within the SM's register file.
fn register_budgets(model: &Model<'_>, errors: &Errors) {
    let mut total = Some(0i128);
    for (role, decl) in model.roles.iter().zip(&model.kernel.roles) {
        let Some(regs) = role.regs_value else {
            total = None;
            continue;
        };
        if !(24..=256).contains(&regs) || regs % 8 != 0 {
            let nearest = (regs.clamp(24, 256) / 8) * 8;
            errors.coded(
                Code::Registers,
                decl.regs.as_ref().map_or_else(|| decl.attr.to_token_stream(), ToTokens::to_token_stream),
                format!(
                    "role `{}` asks for {regs} registers per thread, but `setmaxnreg` takes a multiple of 8 in 24..=256; declare `regs = {nearest}`",
                    role.name
                ),
            );
        }
        total = total.zip(role.instances_value).and_then(|(t, n)| {
            t.checked_add(regs.checked_mul(n)?.checked_mul(i128::from(role.warps_per_instance) * 32)?)
        });
    }
    if let Some(total) = total.filter(|&t| t > REGISTERS_PER_SM) {
        let parts: Vec<String> = model
            .roles
            .iter()
            .map(|r| {
                format!(
                    "`{}` {} warp(s) x {} regs",
                    r.name,
                    r.instances_value.unwrap_or(0).saturating_mul(i128::from(r.warps_per_instance)),
                    r.regs_value.unwrap_or(0)
                )
            })
            .collect();
        // Point at the budget to change: the role that takes the most registers.
        let (largest, share) = model
            .roles
            .iter()
            .zip(&model.kernel.roles)
            .map(|(r, d)| {
                let warps = r.instances_value.unwrap_or(0).saturating_mul(i128::from(r.warps_per_instance));
                (d, warps.saturating_mul(32).saturating_mul(r.regs_value.unwrap_or(0)), r)
            })
            .max_by_key(|(_, n, _)| *n)
            .map(|(d, _, r)| (Some(d), Some(r)))
            .unwrap_or((None, None));
        let at = largest.map_or_else(
            || model.kernel.module.ident.to_token_stream(),
            |d| d.regs.as_ref().map_or_else(|| d.attr.to_token_stream(), ToTokens::to_token_stream),
        );
        let over = total - REGISTERS_PER_SM;
        let fix = share.map_or_else(
            || "lower the budgets".to_string(),
            |r| {
                let threads = r.instances_value.unwrap_or(1).max(1) * i128::from(r.warps_per_instance) * 32;
                let lower = (r.regs_value.unwrap_or(0) - (over + threads - 1) / threads).div_euclid(8) * 8;
                format!("lower the budgets: `{}` at most `regs = {lower}` with the others unchanged", r.name)
            },
        );
        errors.coded(
            Code::Registers,
            at,
            format!(
                "the roles need {total} registers per CTA ({}), more than the {REGISTERS_PER_SM} of an SM; {fix}",
                parts.join(", ")
            ),
        );
    }
}

/// A CTA has at most [`MAX_THREADS_PER_CTA`] threads.
fn thread_count(model: &Model<'_>, errors: &Errors) {
    let warps = model
        .roles
        .iter()
        .try_fold(0i128, |t, r| t.checked_add(r.instances_value?.checked_mul(i128::from(r.warps_per_instance))?));
    if let Some(threads) = warps.and_then(|w| w.checked_mul(32)).filter(|&t| t > MAX_THREADS_PER_CTA || t == 0) {
        errors.coded(
            Code::Budget,
            &model.kernel.module.ident,
            format!("the roles add up to {threads} threads per CTA, but a CTA has 1 to {MAX_THREADS_PER_CTA}; change the roles' `warps`, `warpgroups` or `instances`"),
        );
    }
}

/// Each buffer is guarded by at most one pipeline, and a pipeline's buffers and declared
/// stage count agree.
fn guards(model: &Model<'_>, errors: &Errors) {
    let k = model.kernel;
    let mut owner: Vec<Option<usize>> = vec![None; model.fields.len()];
    for (p, pipe) in model.pipelines.iter().enumerate() {
        let decl = &k.pipelines[p];
        if pipe.guards.is_empty() && decl.tma {
            errors.at(&decl.name, format!("TMA pipeline `{}` guards no buffer: add `guards = [field, ..]`", decl.name));
        }
        for &f in &pipe.guards {
            if !model.fields[f].pipelined {
                errors.at(
                    &model.fields[f].ty,
                    format!(
                        "pipeline `{}` guards `{}`, but a pipeline guards a `Tile` or a `Ring` of tiles",
                        decl.name, model.fields[f].name
                    ),
                );
            }
            if let Some(other) = owner[f] {
                errors.at(
                    &decl.name,
                    format!(
                        "`{}` is guarded by pipelines `{}` and `{}`; a buffer has one guard",
                        model.fields[f].name, k.pipelines[other].name, decl.name
                    ),
                );
            }
            owner[f] = Some(p);
        }
        let declared = decl.stages.as_ref().map(|e| (e, model.consts.eval(e)));
        let mut expected = declared.as_ref().and_then(|(_, v)| v.map(|v| (v, "its `stages`".to_string())));
        for &f in &pipe.guards {
            let field = &model.fields[f];
            let Some(stages) = field.stages else { continue };
            match &expected {
                Some((n, from)) if *n != stages => {
                    // Point at `stages =` when the pipeline declares it, the ring otherwise.
                    let message = format!(
                        "ring `{}` has {stages} stage(s) but pipeline `{}` guarding it has {n} ({from}); give them the same stage count",
                        field.name, decl.name
                    );
                    let mut d = match &declared {
                        Some((e, _)) => Diagnostic::new(Code::Stages, Loc::of(e), message),
                        None => Diagnostic::new(Code::Stages, Loc::of(&field.ty), message),
                    };
                    if declared.is_some() {
                        d.related.push((Loc::of(&field.ty), format!("ring `{}` has {stages} stage(s)", field.name)));
                    }
                    errors.report(d);
                }
                Some(_) => {}
                None => expected = Some((stages, format!("ring `{}`", field.name))),
            }
        }
    }
}
