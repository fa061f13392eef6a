//! The `#[kernel]` attribute of warpspec. A thin shim over the library pipeline in
//! [`expand`]: parse → model → check → expand.

use proc_macro::TokenStream;

mod check;
mod codegen;
mod diag;
mod errors;
mod expand;
#[cfg(test)]
mod fuzz_tests;
mod lift;
mod lower;
mod markers;
mod model;
mod parse;
mod protocol;
#[cfg(test)]
mod snapshot_tests;
#[cfg(test)]
mod test_support;

/// Turns a `mod` of role functions, shared memory, pipelines and barriers into a
/// warp-specialized kernel. See the `warpspec` crate documentation for the syntax.
///
/// The macro checks the kernel's barrier protocol as a whole, at compile time: arrival
/// counts, transaction bytes, parities, slots released before the MMAs or TMA stores reading
/// them completed, arrivals skipped on some path, cycles of waits, named barriers, budgets
/// (`docs/checks.md` lists every check). `#[kernel(unchecked)]` skips the protocol checks
/// (not the declaration checks), for kernels that demonstrate the emulator's own reports.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand_or_fallback(attr.into(), item.into()).into()
}
