//! Lowering of the kernel as a whole: its declarations, its roles, and the module functions
//! the roles reach through calls.

use syn::{Item, ItemFn};
use warpspec_ir::{Const, Expr, ExprKind, Field, Function, Kernel, Lit, Param, Role};

use super::{Lowered, Lowerer, Sources, receiver_of};
use crate::errors::Errors;
use crate::model::Model;
use crate::parse::RoleSize;

/// Lowers the kernel `model` describes. Constructs outside the subset are recorded in
/// `errors`; then there is no IR (`None`).
pub fn lower<'a>(model: &Model<'a>, errors: &Errors) -> Option<Lowered<'a>> {
    let k = model.kernel;
    let items: &'a [Item] = k.module.content.as_ref().map_or(&[], |(_, items)| items.as_slice());
    let helpers: Vec<&'a ItemFn> = items
        .iter()
        .filter_map(|item| match item {
            Item::Fn(f) if !f.attrs.iter().any(|a| a.path().is_ident("role")) => Some(f),
            _ => None,
        })
        .collect();
    let mut l = Lowerer {
        errors,
        failed: false,
        sources: Sources::default(),
        context: "a kernel declaration",
        scope: Vec::new(),
        module_fns: helpers.iter().map(|f| f.sig.ident.to_string()).collect(),
        called: Vec::new(),
    };
    let consts = items
        .iter()
        .filter_map(|item| match item {
            Item::Const(c) => Some(Const {
                name: c.ident.to_string(),
                ty: l.ty(&c.ty),
                value: l.expr(&c.expr),
                evaluated: model.consts.value(&c.ident.to_string()),
            }),
            _ => None,
        })
        .collect();
    let fields = |l: &mut Lowerer<'a, '_>, s: &'a Option<syn::ItemStruct>| -> Vec<Field> {
        let Some(s) = s else { return Vec::new() };
        s.fields.iter().filter_map(|f| Some(Field { name: f.ident.as_ref()?.to_string(), ty: l.ty(&f.ty) })).collect()
    };
    let params = fields(&mut l, &k.params);
    let shared = fields(&mut l, &k.shared);
    let names = |ids: &[syn::Ident]| ids.iter().map(ToString::to_string).collect::<Vec<_>>();
    let pipelines = k
        .pipelines
        .iter()
        .map(|p| warpspec_ir::Pipeline {
            name: p.name.to_string(),
            tma: p.tma,
            producers: names(&p.producers),
            consumers: names(&p.consumers),
            guards: names(&p.guards),
            stages: p.stages.as_ref().map(|e| l.expr(e)),
            full_arrivals: p.full_arrivals.as_ref().map(|e| l.expr(e)),
            empty_arrivals: p.empty_arrivals.as_ref().map(|e| l.expr(e)),
        })
        .collect();
    let barriers = k
        .barriers
        .iter()
        .map(|b| warpspec_ir::Barrier {
            name: b.name.to_string(),
            arrive: names(&b.arrive),
            wait: names(&b.wait),
            count: b.count.as_ref().map(|e| l.expr(e)),
            len: b.len.as_ref().map(|e| l.expr(e)),
        })
        .collect();
    let named = k
        .named
        .iter()
        .map(|n| warpspec_ir::NamedBarrier {
            name: n.name.to_string(),
            roles: names(&n.roles),
            threads: n.threads.as_ref().map(|e| l.expr(e)),
            id: n.id.as_ref().map(|e| l.expr(e)),
        })
        .collect();
    l.context = "role code";
    let roles = k
        .roles
        .iter()
        .map(|decl| {
            let (warps_per_instance, instances) = match &decl.size {
                Some(RoleSize::Warps(e)) => (1, l.expr(e)),
                Some(RoleSize::Warpgroups(e)) => (4, l.expr(e)),
                None => {
                    let pos = l.pos(&decl.attr);
                    (1, Expr { pos, kind: ExprKind::Lit(Lit::Int { digits: "1".into(), suffix: String::new() }) })
                }
            };
            let regs = decl.regs.as_ref().map(|e| l.expr(e));
            Role { warps_per_instance, instances, regs, func: l.function(&decl.func) }
        })
        .collect();
    // The module functions the roles call, and those they call in turn.
    let mut functions = Vec::new();
    while let Some(name) = l.called.get(functions.len()).cloned() {
        let Some(f) = helpers.iter().find(|f| f.sig.ident == name) else { break };
        functions.push(l.function(f));
    }
    if l.failed {
        return None;
    }
    let kernel = Kernel {
        name: k.module.ident.to_string(),
        cluster: k.cluster.map(|(shape, _)| shape.dims),
        consts,
        params,
        shared,
        pipelines,
        barriers,
        named,
        roles,
        functions,
        wait_ld: Vec::new(),
    };
    Some(Lowered { kernel, sources: l.sources })
}

impl<'a> Lowerer<'a, '_> {
    /// A function: a role or a module helper. Its parameters take the DSL types their types
    /// name; a role's first parameter is its context.
    fn function(&mut self, f: &'a ItemFn) -> Function {
        let pos = self.pos(&f.sig.ident);
        self.scoped(|l| {
            let params: Vec<Param> = f
                .sig
                .inputs
                .iter()
                .map(|input| match input {
                    syn::FnArg::Typed(pt) => {
                        let param = Param { pat: l.pat(&pt.pat), ty: l.ty(&pt.ty) };
                        l.bind(&param.pat, receiver_of(&param.ty));
                        param
                    }
                    syn::FnArg::Receiver(r) => {
                        // Roles and helpers are free functions (the model reports a
                        // receiver); it binds `self`.
                        let pos = l.pos(r);
                        let pat = warpspec_ir::Pat {
                            pos,
                            kind: warpspec_ir::PatKind::Ident {
                                name: "self".into(),
                                mutable: false,
                                by_ref: false,
                                sub: None,
                            },
                        };
                        Param { pat, ty: warpspec_ir::Ty::Infer }
                    }
                })
                .collect();
            let ret = match &f.sig.output {
                syn::ReturnType::Default => None,
                syn::ReturnType::Type(_, ty) => Some(l.ty(ty)),
            };
            Function {
                pos,
                name: f.sig.ident.to_string(),
                is_async: f.sig.asyncness.is_some(),
                params,
                ret,
                body: l.block(&f.block),
            }
        })
    }
}
