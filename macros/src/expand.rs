//! The library entry point of `#[kernel]`: parse → model → check → expand.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemMod;

use crate::errors::Errors;
use crate::{attr, check, codegen, lift, lower, markers, model, parse};

/// Expands `#[kernel] mod name { ... }`. On error the result carries every problem found.
///
/// The library entry point: the proc-macro shim uses [`expand_or_fallback`], which also
/// emits the module beside the errors; tests call this.
#[cfg_attr(not(test), expect(dead_code, reason = "called by the unit tests; the shim uses expand_or_fallback"))]
pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let (tokens, errors) = expand_parts(attr, item)?;
    errors.finish()?;
    Ok(tokens)
}

/// Expands, emitting the module beside a `compile_error!` for each problem found. The
/// module is always emitted when it parses (with the generated impls for whatever resolved),
/// so rust-analyzer keeps working and rustc reports only the problems themselves.
pub fn expand_or_fallback(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand_parts(attr, item) {
        Ok((tokens, errors)) => match errors.finish() {
            Ok(()) => tokens,
            Err(e) => {
                let errors = e.to_compile_error();
                quote!(#errors #tokens)
            }
        },
        Err(e) => e.to_compile_error(),
    }
}

/// The expanded module and the problems found; `Err` only if the input is not a module.
fn expand_parts(attr: TokenStream, item: TokenStream) -> syn::Result<(TokenStream, Errors)> {
    let module: ItemMod = syn::parse2(item)?;
    let errors = Errors::default();
    let attr = attr::parse(attr, &errors);
    let protocol = !attr.unchecked;
    let mut kernel = parse::parse(module, &errors);
    kernel.cluster = attr.cluster;
    markers::check(&mut kernel, &errors);
    let model = model::Model::build(&kernel, &errors);
    let mut lowered = lower::lower(&model, &errors);
    let wait_ld = check::check(&model, lowered.as_ref(), &errors, protocol);
    if let Some(lowered) = &mut lowered {
        lowered.kernel.wait_ld = wait_ld;
    }
    let mut generated = codegen::generate(&model);
    if let Some(lowered) = &lowered {
        generated.extend(lift::ir_fn(&lowered.kernel, &codegen::private()));
    } else {
        generated.extend(lift::no_ir_fn(&codegen::private()));
    }
    Ok((emit(&kernel.module, generated), errors))
}

/// The module with its items stripped of kernel attributes, plus `generated`.
fn emit(module: &ItemMod, generated: TokenStream) -> TokenStream {
    let ItemMod { attrs, vis, unsafety, mod_token, ident, content, semi, .. } = module;
    let Some((_, items)) = content else {
        return quote!(#(#attrs)* #vis #unsafety #mod_token #ident #semi);
    };
    let items = codegen::stripped_items(items);
    quote! {
        #(#attrs)*
        #vis #unsafety #mod_token #ident {
            #(#items)*
            #generated
        }
    }
}
