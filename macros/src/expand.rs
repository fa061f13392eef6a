//! The library entry point of `#[kernel]`: parse → model → check → expand.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemMod;

use crate::errors::Errors;
use crate::{check, codegen, model, parse};

/// Expands `#[kernel] mod name { ... }`. On error the result carries every problem found.
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
    if !attr.is_empty() {
        errors.at(&attr, "#[kernel] takes no arguments");
    }
    let kernel = parse::parse(module, &errors);
    let model = model::Model::build(&kernel, &errors);
    check::check(&model, &errors);
    let generated = codegen::generate(&model);
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
