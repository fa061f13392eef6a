//! A forgotten `#[params]` or `#[shared]`: the roles name a struct of launch arguments or
//! of on-chip buffers that the kernel has not marked. Reported once, at the role or pipeline
//! that names it, with the unmarked struct as a related site; the expansion then goes on as
//! if the struct were marked, so the generated code adds no type errors to the report.

use quote::ToTokens;
use syn::{GenericArgument, Item, ItemStruct, PathArguments, Type};

use crate::diag::{Code, Diagnostic};
use crate::errors::{Errors, Loc};
use crate::parse::KernelMod;

/// Reports a missing `#[params]` or `#[shared]`, and recovers by taking the unmarked struct
/// the roles mean as marked.
pub fn check(kernel: &mut KernelMod, errors: &Errors) {
    let mut params = None;
    let mut shared = None;
    if kernel.params.is_none()
        && let Some((role, ty)) = kernel.roles.iter().find_map(|r| ctx_params(&r.func).map(|t| (r, t)))
    {
        let name = ty.to_token_stream().to_string().replace(' ', "");
        let message = format!(
            "role `{}` takes `Ctx<'_, {name}>`, but the kernel has no `#[params]` struct, so `{name}` is not its launch arguments; mark the struct of launch arguments with `#[params]` (`#[params] pub struct {name} {{ .. }}`)",
            role.name
        );
        let mut d = Diagnostic::new(Code::Declaration, Loc::of(ty), message);
        if let Some(s) = unmarked(kernel, &name) {
            d.related.push((Loc::of(&s.ident), format!("`{name}` is declared here without `#[params]`")));
            params = Some(s.clone());
        }
        errors.report(d);
    }
    if kernel.shared.is_none() {
        let guarded = kernel.pipelines.iter().find_map(|p| p.guards.first().map(|g| (p, g)));
        if let Some((pipe, field)) = guarded {
            let message = format!(
                "pipeline `{}` guards `{field}`, but the kernel has no `#[shared]` struct to hold it; mark the struct of on-chip buffers with `#[shared]` (`#[shared] pub struct Smem {{ {field}: Ring<Tile<..>, STAGES>, .. }}`)",
                pipe.name
            );
            let mut d = Diagnostic::new(Code::Declaration, Loc::of(field), message);
            if let Some(s) = struct_with_field(kernel, &field.to_string()) {
                d.related.push((Loc::of(&s.ident), format!("`{}` has a field `{field}` but no `#[shared]`", s.ident)));
                shared = Some(s.clone());
            }
            errors.report(d);
        }
    }
    kernel.params = kernel.params.take().or(params);
    kernel.shared = kernel.shared.take().or(shared);
}

/// The `T` of a role's `cx: &Ctx<'_, T>`, unless it is `()`.
fn ctx_params(func: &syn::ItemFn) -> Option<&Type> {
    let syn::FnArg::Typed(pt) = func.sig.inputs.first()? else { return None };
    let Type::Reference(r) = &*pt.ty else { return None };
    let Type::Path(p) = &*r.elem else { return None };
    let last = p.path.segments.last().filter(|s| s.ident == "Ctx")?;
    let PathArguments::AngleBracketed(args) = &last.arguments else { return None };
    args.args.iter().find_map(|a| match a {
        GenericArgument::Type(Type::Tuple(t)) if t.elems.is_empty() => None,
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// The module's structs.
fn structs(kernel: &KernelMod) -> impl Iterator<Item = &ItemStruct> {
    let items = kernel.module.content.as_ref().map_or(&[][..], |(_, items)| items.as_slice());
    items.iter().filter_map(|i| match i {
        Item::Struct(s) => Some(s),
        _ => None,
    })
}

/// The unmarked struct named `name`.
fn unmarked<'k>(kernel: &'k KernelMod, name: &str) -> Option<&'k ItemStruct> {
    structs(kernel).find(|s| s.ident == name)
}

/// A struct of the module with a field named `field`.
fn struct_with_field<'k>(kernel: &'k KernelMod, field: &str) -> Option<&'k ItemStruct> {
    structs(kernel).find(|s| s.fields.iter().any(|f| f.ident.as_ref().is_some_and(|i| i == field)))
}
