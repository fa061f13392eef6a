//! The `#[kernel]` attribute of warpspec. A thin shim: all logic lives in [`expand`].

use proc_macro::TokenStream;

mod expand;

/// Turns a `mod` of role functions, shared memory, pipelines and barriers into a
/// warp-specialized kernel. See the `warpspec` crate documentation.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}
