//! Parse: the `#[kernel] mod` into its declarations, each kept with its spans.
//!
//! Recognised items: `const` integers, one `#[params]` struct, one `#[shared]` struct,
//! `#[pipeline(...)]`, `#[barrier(...)]` and `#[named_barrier(...)]` unit structs, and
//! `#[role(...)]` async functions. Everything else passes through untouched.

use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::{Expr, Ident, Item, ItemFn, ItemMod, ItemStruct, Token};

use crate::errors::Errors;

/// A kernel module as written.
pub struct KernelMod {
    /// The module itself (its items are re-emitted with our attributes stripped).
    pub module: ItemMod,
    /// `const NAME: ty = expr;` items, for constant evaluation.
    pub consts: Vec<(Ident, Expr)>,
    /// The `#[params]` struct.
    pub params: Option<ItemStruct>,
    /// The `#[shared]` struct.
    pub shared: Option<ItemStruct>,
    /// Pipelines in declaration order.
    pub pipelines: Vec<PipelineDecl>,
    /// Plain barriers in declaration order.
    pub barriers: Vec<BarrierDecl>,
    /// Named barriers in declaration order.
    pub named: Vec<NamedDecl>,
    /// Roles in declaration order.
    pub roles: Vec<RoleDecl>,
    /// The cluster shape of `#[kernel(cluster = [x, y, z])]`, checked, and where it is
    /// written.
    pub cluster: Option<(warpspec_hw::ClusterShape, crate::errors::Loc)>,
}

/// `#[pipeline(producer = .., consumer = .., guards = [..], tma, stages = N)] struct P;`
pub struct PipelineDecl {
    /// The struct's name.
    pub name: Ident,
    /// Filled by TMA: the producer's commit expects the slot's bytes.
    pub tma: bool,
    /// Producing roles.
    pub producers: Vec<Ident>,
    /// Consuming roles.
    pub consumers: Vec<Ident>,
    /// Shared-memory fields the pipeline guards.
    pub guards: Vec<Ident>,
    /// Declared stage count, if given.
    pub stages: Option<Expr>,
    /// Declared arrivals on the full barrier per phase, if given.
    pub full_arrivals: Option<Expr>,
    /// Declared arrivals on the empty barrier per phase, if given.
    pub empty_arrivals: Option<Expr>,
}

/// `#[barrier(arrive = [..], wait = [..], count = N, len = N)] struct B;`
pub struct BarrierDecl {
    /// The struct's name.
    pub name: Ident,
    /// Arriving roles.
    pub arrive: Vec<Ident>,
    /// Waiting roles.
    pub wait: Vec<Ident>,
    /// Declared arrivals per phase, if given.
    pub count: Option<Expr>,
    /// Number of barriers in the array, if given.
    pub len: Option<Expr>,
}

/// `#[named_barrier(roles = [..], threads = N, id = N)] struct B;`
pub struct NamedDecl {
    /// The struct's name.
    pub name: Ident,
    /// Roles that use it.
    pub roles: Vec<Ident>,
    /// Declared thread count, if given.
    pub threads: Option<Expr>,
    /// Declared hardware id, if given.
    pub id: Option<Expr>,
}

/// How many warps a role instance has.
pub enum RoleSize {
    /// `warps = N`: N instances of one warp.
    Warps(Expr),
    /// `warpgroups = N`: N instances of four warps.
    Warpgroups(Expr),
}

/// `#[role(warps = N | warpgroups = N, regs = R)] async fn name(cx: &Ctx<..>, ...)`
pub struct RoleDecl {
    /// The function's name.
    pub name: Ident,
    /// The function.
    pub func: ItemFn,
    /// Warps or warpgroups.
    pub size: Option<RoleSize>,
    /// Register budget per thread.
    pub regs: Option<Expr>,
    /// The `#[role(...)]` attribute, for spans.
    pub attr: syn::Attribute,
}

/// The attributes `#[kernel]` gives meaning to inside the module.
pub const MARKERS: [&str; 6] = ["params", "shared", "pipeline", "barrier", "named_barrier", "role"];

/// Parses the module. Problems are recorded in `errors`; what could be parsed is returned.
pub fn parse(module: ItemMod, errors: &Errors) -> KernelMod {
    let mut kernel = KernelMod {
        module,
        consts: Vec::new(),
        params: None,
        shared: None,
        pipelines: Vec::new(),
        barriers: Vec::new(),
        named: Vec::new(),
        roles: Vec::new(),
        cluster: None,
    };
    let Some((_, items)) = kernel.module.content.clone() else {
        errors.at(&kernel.module, "#[kernel] needs an inline module: `mod name { ... }`");
        return kernel;
    };
    for item in items {
        match item {
            Item::Const(c) => kernel.consts.push((c.ident, *c.expr)),
            Item::Struct(s) => parse_struct(s, &mut kernel, errors),
            Item::Fn(f) => {
                if let Some(attr) = f.attrs.iter().find(|a| a.path().is_ident("role")).cloned() {
                    parse_role(f, attr, &mut kernel, errors);
                }
            }
            other => {
                if let Some(attr) = attrs_of(&other).iter().find(|a| MARKERS.iter().any(|m| a.path().is_ident(m))) {
                    errors.at(attr, "this attribute belongs on a struct (or, for #[role], an async fn)");
                }
            }
        }
    }
    kernel
}

/// The attributes of an item kind `#[kernel]` does not give meaning to.
fn attrs_of(item: &Item) -> &[syn::Attribute] {
    match item {
        Item::Enum(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// Records a struct marked `#[params]`, `#[shared]`, `#[pipeline]`, `#[barrier]` or `#[named_barrier]`.
fn parse_struct(s: ItemStruct, kernel: &mut KernelMod, errors: &Errors) {
    let markers: Vec<&syn::Attribute> =
        s.attrs.iter().filter(|a| MARKERS.iter().any(|m| a.path().is_ident(m))).collect();
    if markers.len() > 1 {
        errors.at(
            markers[1],
            "a struct takes at most one of #[params], #[shared], #[pipeline], #[barrier], #[named_barrier]",
        );
    }
    let Some(attr) = markers.first().map(|a| (*a).clone()) else { return };
    let name = s.ident.clone();
    let unit = matches!(s.fields, syn::Fields::Unit);
    let path = attr.path().get_ident().map(Ident::to_string).unwrap_or_default();
    match path.as_str() {
        "params" => set_once(&mut kernel.params, s, &attr, "#[params]", errors),
        "shared" => set_once(&mut kernel.shared, s, &attr, "#[shared]", errors),
        "role" => errors.at(&attr, "#[role] goes on an `async fn`, not a struct"),
        _ if !unit => errors
            .at(&s.ident, format!("`{name}` is declared with #[{path}]: make it a unit struct (`struct {name};`)")),
        "pipeline" => {
            let mut p = PipelineDecl {
                name,
                tma: false,
                producers: Vec::new(),
                consumers: Vec::new(),
                guards: Vec::new(),
                stages: None,
                full_arrivals: None,
                empty_arrivals: None,
            };
            let parsed = attr.parse_nested_meta(|meta| {
                let key = meta.path.get_ident().map(Ident::to_string).unwrap_or_default();
                match key.as_str() {
                    "tma" => p.tma = true,
                    "producer" | "producers" => p.producers = idents(meta.value()?)?,
                    "consumer" | "consumers" => p.consumers = idents(meta.value()?)?,
                    "guards" => p.guards = idents(meta.value()?)?,
                    "stages" => p.stages = Some(meta.value()?.parse()?),
                    "full_arrivals" => p.full_arrivals = Some(meta.value()?.parse()?),
                    "empty_arrivals" => p.empty_arrivals = Some(meta.value()?.parse()?),
                    _ => return Err(meta.error(
                        "unknown pipeline option; expected `producer`, `consumer`, `guards`, `tma`, `stages`, `full_arrivals` or `empty_arrivals`",
                    )),
                }
                Ok(())
            });
            match parsed {
                Err(e) => errors.push(e),
                Ok(()) => {
                    if p.producers.is_empty() {
                        errors.at(&attr, format!("pipeline `{}` needs `producer = role` (or `[roles]`)", p.name));
                    }
                    if p.consumers.is_empty() {
                        errors.at(&attr, format!("pipeline `{}` needs `consumer = role` (or `[roles]`)", p.name));
                    }
                    kernel.pipelines.push(p);
                }
            }
        }
        "barrier" => {
            let mut b = BarrierDecl { name, arrive: Vec::new(), wait: Vec::new(), count: None, len: None };
            let parsed = attr.parse_nested_meta(|meta| {
                let key = meta.path.get_ident().map(Ident::to_string).unwrap_or_default();
                match key.as_str() {
                    "arrive" => b.arrive = idents(meta.value()?)?,
                    "wait" => b.wait = idents(meta.value()?)?,
                    "count" => b.count = Some(meta.value()?.parse()?),
                    "len" => b.len = Some(meta.value()?.parse()?),
                    _ => return Err(meta.error("unknown barrier option; expected `arrive`, `wait`, `count` or `len`")),
                }
                Ok(())
            });
            match parsed {
                Err(e) => errors.push(e),
                Ok(()) => {
                    if b.arrive.is_empty() || b.wait.is_empty() {
                        errors.at(&attr, format!("barrier `{}` needs `arrive = [roles]` and `wait = [roles]`", b.name));
                    }
                    kernel.barriers.push(b);
                }
            }
        }
        "named_barrier" => {
            let mut n = NamedDecl { name, roles: Vec::new(), threads: None, id: None };
            let parsed = attr.parse_nested_meta(|meta| {
                let key = meta.path.get_ident().map(Ident::to_string).unwrap_or_default();
                match key.as_str() {
                    "roles" => n.roles = idents(meta.value()?)?,
                    "threads" => n.threads = Some(meta.value()?.parse()?),
                    "id" => n.id = Some(meta.value()?.parse()?),
                    _ => return Err(meta.error("unknown named_barrier option; expected `roles`, `threads` or `id`")),
                }
                Ok(())
            });
            match parsed {
                Err(e) => errors.push(e),
                Ok(()) => {
                    if n.roles.is_empty() {
                        errors.at(&attr, format!("named barrier `{}` needs `roles = [roles]`", n.name));
                    }
                    kernel.named.push(n);
                }
            }
        }
        _ => {}
    }
}

/// Stores `s` in `slot`, reporting a second one.
fn set_once(slot: &mut Option<ItemStruct>, s: ItemStruct, attr: &syn::Attribute, what: &str, errors: &Errors) {
    if let Some(previous) = slot {
        errors.at(attr, format!("a kernel has one {what} struct; `{}` is already one", previous.ident));
    } else {
        *slot = Some(s);
    }
}

/// `ident` or `[ident, ident, ...]`.
fn idents(input: ParseStream<'_>) -> syn::Result<Vec<Ident>> {
    if input.peek(syn::token::Bracket) {
        let content;
        syn::bracketed!(content in input);
        let list = Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
        Ok(list.into_iter().collect())
    } else {
        Ok(vec![input.parse()?])
    }
}

/// Records a `#[role(..)]` function.
fn parse_role(func: ItemFn, attr: syn::Attribute, kernel: &mut KernelMod, errors: &Errors) {
    let mut size = None;
    let mut regs = None;
    let parsed = attr.parse_nested_meta(|meta| {
        let key = meta.path.get_ident().map(Ident::to_string).unwrap_or_default();
        match key.as_str() {
            "warps" => size = Some(RoleSize::Warps(meta.value()?.parse()?)),
            "warpgroups" => size = Some(RoleSize::Warpgroups(meta.value()?.parse()?)),
            "regs" => regs = Some(meta.value()?.parse()?),
            _ => return Err(meta.error("unknown role option; expected `warps`, `warpgroups` or `regs`")),
        }
        Ok(())
    });
    if let Err(e) = parsed {
        errors.push(e);
    }
    if size.is_none() {
        errors.at(&attr, format!("role `{}` needs a size: `warps = N` or `warpgroups = N`", func.sig.ident));
    }
    if regs.is_none() {
        errors.at(
            &attr,
            format!("role `{}` needs a register budget: `regs = N` (24..=256, a multiple of 8)", func.sig.ident),
        );
    }
    if func.sig.asyncness.is_none() {
        errors.at(
            func.sig.fn_token,
            format!("role `{}` must be an `async fn`: barrier waits are its suspension points", func.sig.ident),
        );
    }
    if !func.sig.generics.params.is_empty() {
        errors.at(&func.sig.generics, format!("role `{}` cannot be generic", func.sig.ident));
    }
    kernel.roles.push(RoleDecl { name: func.sig.ident.clone(), func, size, regs, attr });
}
