//! The `#[kernel]` attribute of warpspec. A thin shim over the library pipeline in
//! [`expand`]: parse → model → check → expand.

use proc_macro::TokenStream;

mod check;
mod codegen;
mod errors;
mod expand;
mod model;
mod parse;

/// Turns a `mod` of role functions, shared memory, pipelines and barriers into a
/// warp-specialized kernel. See the `warpspec` crate documentation for the syntax.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand_or_fallback(attr.into(), item.into()).into()
}
