//! The library entry point of `#[kernel]`: parse → model → check → expand.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemMod;

use crate::errors::Errors;
use crate::{check, codegen, model, parse};

/// Expands `#[kernel] mod name { ... }`. On error the result carries every problem found.
pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new_spanned(attr, "#[kernel] takes no arguments"));
    }
    let module: ItemMod = syn::parse2(item)?;
    let errors = Errors::default();
    let kernel = parse::parse(module, &errors);
    let model = model::Model::build(&kernel, &errors);
    check::check(&model, &errors);
    errors.finish()?;
    let generated = codegen::generate(&model);
    Ok(emit(&kernel.module, generated))
}

/// Expands, or on error emits the user's module (attributes stripped, so rust-analyzer
/// keeps working on it) beside the `compile_error!`s.
pub fn expand_or_fallback(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr, item.clone()) {
        Ok(tokens) => tokens,
        Err(error) => {
            let errors = error.to_compile_error();
            match syn::parse2::<ItemMod>(item) {
                Ok(module) => {
                    let fallback = emit(&module, TokenStream::new());
                    quote!(#errors #fallback)
                }
                Err(_) => errors,
            }
        }
    }
}

/// The module with its items stripped of kernel attributes, plus `generated`.
fn emit(module: &ItemMod, generated: TokenStream) -> TokenStream {
    let ItemMod { attrs, vis, unsafety, mod_token, ident, content, semi, .. } = module;
    let items = content.as_ref().map(|(_, items)| codegen::stripped_items(items)).unwrap_or_default();
    if content.is_none() {
        return quote!(#(#attrs)* #vis #unsafety #mod_token #ident #semi);
    }
    quote! {
        #(#attrs)*
        #vis #unsafety #mod_token #ident {
            #(#items)*
            #generated
        }
    }
}
