//! Expand: the checked model as Rust. The user's items are re-emitted with the kernel
//! attributes removed; generated items implement the runtime's traits. Generated code
//! names the runtime only through `::warpspec::__private`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Ident, Item};

use crate::model::{Model, Target};
use crate::parse::MARKERS;

/// The path generated code reaches the runtime through.
const P: &str = "::warpspec::__private";

/// [`P`] as tokens.
pub fn private() -> TokenStream {
    P.parse().unwrap_or_default()
}

/// The module's items with `#[params]`, `#[shared]`, `#[pipeline]`, `#[barrier]`,
/// `#[named_barrier]` and `#[role]` removed, and line hints in its functions' statements
/// ([`crate::hints`]; not in `const fn`s, which cannot call them).
pub fn stripped_items(items: &[Item]) -> Vec<Item> {
    let hint = crate::hints::path(&private());
    items
        .iter()
        .cloned()
        .map(|mut item| {
            if let Item::Fn(f) = &mut item
                && f.sig.constness.is_none()
            {
                crate::hints::add(f, &hint);
            }
            let is_role = matches!(&item, Item::Fn(f) if f.attrs.iter().any(|a| a.path().is_ident("role")));
            if let Some(attrs) = attrs_mut(&mut item) {
                attrs.retain(|a| !MARKERS.iter().any(|m| a.path().is_ident(m)));
                if is_role {
                    // A role takes one parameter per endpoint; many is normal.
                    attrs.push(syn::parse_quote!(#[allow(clippy::too_many_arguments)]));
                }
            }
            item
        })
        .collect()
}

/// The attributes of an item, if it has any.
fn attrs_mut(item: &mut Item) -> Option<&mut Vec<syn::Attribute>> {
    Some(match item {
        Item::Struct(s) => &mut s.attrs,
        Item::Fn(f) => &mut f.attrs,
        Item::Const(c) => &mut c.attrs,
        Item::Enum(e) => &mut e.attrs,
        Item::Impl(i) => &mut i.attrs,
        Item::Mod(m) => &mut m.attrs,
        Item::Static(s) => &mut s.attrs,
        Item::Trait(t) => &mut t.attrs,
        Item::Type(t) => &mut t.attrs,
        Item::Union(u) => &mut u.attrs,
        Item::Use(u) => &mut u.attrs,
        _ => return None,
    })
}

/// The generated items of a checked kernel.
pub fn generate(model: &Model<'_>) -> TokenStream {
    let private = private();
    let k = model.kernel;
    let cluster = k.cluster.map_or([1, 1, 1], |(shape, _)| shape.dims);
    let name = k.module.ident.to_string();
    let params_ty = k.params.as_ref().map_or_else(
        || quote!(()),
        |p| {
            let i = &p.ident;
            quote!(#i)
        },
    );
    let smem_ty = k.shared.as_ref().map_or_else(
        || quote!(()),
        |s| {
            let i = &s.ident;
            quote!(#i)
        },
    );

    let smem_impl = k.shared.as_ref().map(|s| {
        let ident = &s.ident;
        let names: Vec<&Ident> = model.fields.iter().map(|f| &f.name).collect();
        let tys: Vec<&syn::Type> = model.fields.iter().map(|f| &f.ty).collect();
        quote! {
            impl #private::SmemBuffer for #ident {
                const BYTES: usize = 0 #(+ <#tys as #private::SmemBuffer>::BYTES)*;
                const FIELDS: &'static [#private::SmemField] = &[#(#private::SmemField::of::<#tys>(stringify!(#names))),*];
                fn allocate(data: bool) -> Self {
                    Self { #(#names: <#tys as #private::SmemBuffer>::allocate(data),)* }
                }
                fn reset(&mut self) {
                    #(<#tys as #private::SmemBuffer>::reset(&mut self.#names);)*
                }
                fn __cells<'s>(&'s self, out: &mut ::std::vec::Vec<&'s #private::TileCell>) {
                    #(<#tys as #private::SmemBuffer>::__cells(&self.#names, out);)*
                }
            }
        }
    });

    let roles = model.roles.iter().map(|r| {
        let role_name = r.name.to_string();
        let (instances, regs, wpi) = (&r.instances, &r.regs, r.warps_per_instance);
        quote!(#private::RoleSpec { name: #role_name, instances: (#instances) as u32, warps_per_instance: #wpi, regs: (#regs) as u32 })
    });

    let role_list = |roles: &[usize]| {
        let idx = roles.iter().map(|&r| r as u16);
        quote!(&[#(#idx),*])
    };

    // Barrier table: each pipeline's full and empty arrays, then the plain barriers.
    let mut barrier_specs = Vec::new();
    let mut pipeline_specs = Vec::new();
    let mut pipeline_impls = Vec::new();
    let mut views = Vec::new();
    for (i, (decl, pipe)) in k.pipelines.iter().zip(&model.pipelines).enumerate() {
        let pname = &decl.name;
        let stage_tys: Vec<&syn::Type> = pipe.guards.iter().map(|&f| &model.fields[f].ty).collect();
        let stages = match (&decl.stages, stage_tys.first()) {
            (Some(e), _) => quote!((#e) as u32),
            (None, Some(t)) => quote!(<#t as #private::SmemBuffer>::STAGES as u32),
            (None, None) => quote!(1u32),
        };
        let tx = if decl.tma {
            quote!(0u32 #(+ <#stage_tys as #private::SmemBuffer>::STAGE_BYTES as u32)*)
        } else {
            quote!(0u32)
        };
        let full_arrivals =
            decl.full_arrivals.as_ref().map_or_else(|| model.instances_sum(&pipe.producers), |e| quote!((#e) as u32));
        let empty_arrivals =
            decl.empty_arrivals.as_ref().map_or_else(|| model.instances_sum(&pipe.consumers), |e| quote!((#e) as u32));
        let (prod, cons) = (role_list(&pipe.producers), role_list(&pipe.consumers));
        let (full_name, empty_name) = (format!("{pname}.full"), format!("{pname}.empty"));
        let full = barrier_specs.len() as u16;
        barrier_specs.push(quote!(#private::BarrierSpec { name: #full_name, len: #stages, arrivals: #full_arrivals, arrivers: #prod, waiters: #cons }));
        barrier_specs.push(quote!(#private::BarrierSpec { name: #empty_name, len: #stages, arrivals: #empty_arrivals, arrivers: #cons, waiters: #prod }));
        let empty = full + 1;
        let pname_str = pname.to_string();
        pipeline_specs.push(quote!(#private::PipelineSpec { name: #pname_str, stages: #stages, full: #full, empty: #empty, tx_bytes: #tx }));

        let view = format_ident!("{}View", pname);
        let fields: Vec<&Ident> = pipe.guards.iter().map(|&f| &model.fields[f].name).collect();
        let field_tys: Vec<&syn::Type> = pipe.guards.iter().map(|&f| &model.fields[f].stage_ty).collect();
        let doc = format!("The buffers of one slot of pipeline `{pname}`, reached through its tokens.");
        views.push(quote! {
            #[doc = #doc]
            pub struct #view<'s> { #(#fields: &'s #field_tys,)* }
            impl<'s> #view<'s> {
                pub(in super) fn __new(smem: &'s super::#smem_ty, stage: usize) -> Self {
                    Self { #(#fields: smem.#fields.__stage(stage),)* }
                }
                #(
                    #[doc = "This slot's buffer."]
                    pub fn #fields(&self) -> &#field_tys { self.#fields }
                )*
            }
        });
        pipeline_impls.push(quote! {
            impl #private::Pipeline for #pname {
                type Kernel = Kernel;
                const INDEX: usize = #i;
                type View<'s> = __warpspec_views::#view<'s>;
                fn view(smem: &#smem_ty, stage: usize) -> Self::View<'_> {
                    __warpspec_views::#view::__new(smem, stage)
                }
            }
        });
    }
    let mut barrier_impls = Vec::new();
    for (decl, (arrive, wait)) in k.barriers.iter().zip(&model.barriers) {
        let bname = &decl.name;
        let index = barrier_specs.len();
        let len = decl.len.as_ref().map_or_else(|| quote!(1u32), |e| quote!((#e) as u32));
        let count = decl.count.as_ref().map_or_else(|| model.instances_sum(arrive), |e| quote!((#e) as u32));
        let (a, w) = (role_list(arrive), role_list(wait));
        let s = bname.to_string();
        barrier_specs
            .push(quote!(#private::BarrierSpec { name: #s, len: #len, arrivals: #count, arrivers: #a, waiters: #w }));
        barrier_impls.push(quote! {
            impl #private::Barrier for #bname { type Kernel = Kernel; const INDEX: usize = #index; }
        });
    }
    let mut named_specs = Vec::new();
    let mut named_impls = Vec::new();
    for (i, (decl, roles)) in k.named.iter().zip(&model.named).enumerate() {
        let nname = &decl.name;
        let threads = decl.threads.as_ref().map_or_else(
            || {
                let terms = roles.iter().map(|&r| {
                    let (n, w) = (&model.roles[r].instances, model.roles[r].warps_per_instance * 32);
                    quote!((#n) as u32 * #w)
                });
                quote!(0u32 #(+ #terms)*)
            },
            |e| quote!((#e) as u32),
        );
        let id = decl.id.as_ref().map_or_else(
            || {
                let id = i as u32 + 1;
                quote!(#id)
            },
            |e| quote!((#e) as u32),
        );
        let s = nname.to_string();
        let r = role_list(roles);
        named_specs.push(quote!(#private::NamedBarrierSpec { name: #s, id: #id, threads: #threads, roles: #r }));
        named_impls.push(quote! {
            impl #private::NamedBarrier for #nname { type Kernel = Kernel; const INDEX: usize = #i; }
        });
    }

    let last = model.roles.len().saturating_sub(1);
    let arms = model.roles.iter().enumerate().map(|(i, r)| {
        let f = &r.name;
        let binds = r.endpoints.iter().map(|e| match e.target {
            Target::Buffer(field) => {
                let name = &model.fields[field].name;
                quote!(&cta.smem.#name)
            }
            _ => quote!(#private::Endpoint::bind(cta, who)),
        });
        let pat = if i == last {
            quote!(_)
        } else {
            let i = i as u16;
            quote!(#i)
        };
        if !r.resolved {
            // Its parameters are reported as errors; spawn nothing rather than add noise.
            return quote!(#pat => #private::Box::pin(async {}),);
        }
        quote! {
            #pat => #private::Box::pin(async move {
                let cx = cta.__ctx(who);
                #f(&cx #(, #binds)*).await
            }),
        }
    });
    let arguments = arguments(k.params.as_ref());
    let doc = format!("The `{name}` kernel: launch it with `warpspec::emu::run::<{name}::Kernel>`.");
    quote! {
        #smem_impl
        #(#pipeline_impls)*
        #(#barrier_impls)*
        #(#named_impls)*
        #[doc(hidden)]
        mod __warpspec_views {
            #[allow(unused_imports)]
            use super::*;
            #(#views)*
        }
        #[doc = #doc]
        pub struct Kernel;
        impl #private::Kernel for Kernel {
            type Params = #params_ty;
            type Smem = #smem_ty;
            const SPEC: #private::KernelSpec = #private::KernelSpec {
                name: #name,
                roles: &[#(#roles),*],
                barriers: &[#(#barrier_specs),*],
                pipelines: &[#(#pipeline_specs),*],
                named_barriers: &[#(#named_specs),*],
                smem_bytes: <#smem_ty as #private::SmemBuffer>::BYTES,
                cluster: [#(#cluster),*],
            };
            fn spawn<'a>(cta: &'a #private::Cta<'a, Self>, who: #private::Who) -> #private::RoleFuture<'a> {
                match who.role {
                    #(#arms)*
                }
            }
            #arguments
            fn ir_of() -> ::std::option::Option<&'static #private::ir::Kernel> {
                __warpspec_ir()
            }
        }
    }
}

/// `Kernel::arguments`: each field of the `#[params]` struct as a value a device target can
/// read (global tensors, integers, flags, floats; any other type by its name).
fn arguments(params: Option<&syn::ItemStruct>) -> TokenStream {
    let private = private();
    let fields = params.into_iter().flat_map(|p| p.fields.iter()).filter_map(|f| {
        let ident = f.ident.as_ref()?;
        let name = ident.to_string();
        let ty_name = match &f.ty {
            syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
            _ => String::new(),
        };
        let value = match ty_name.as_str() {
            "Global" => quote!(#private::ArgValue::Global(&params.#ident)),
            "bool" => quote!(#private::ArgValue::Bool(params.#ident)),
            "usize" | "u64" | "u32" | "u16" | "u8" | "isize" | "i64" | "i32" | "i16" | "i8" => {
                quote!(#private::ArgValue::Int(params.#ident as i64))
            }
            "f32" | "f64" => quote!(#private::ArgValue::Float(params.#ident as f64)),
            _ => {
                let ty = &f.ty;
                let written = quote!(#ty).to_string();
                quote!(#private::ArgValue::Other(#written))
            }
        };
        Some(quote!(#private::Argument { name: #name, value: #value }))
    });
    let fields: Vec<TokenStream> = fields.collect();
    let used = if fields.is_empty() { quote!(let _ = params;) } else { quote!() };
    quote! {
        fn arguments(params: &Self::Params) -> ::std::vec::Vec<#private::Argument<'_>> {
            #used
            ::std::vec![#(#fields),*]
        }
    }
}
