//! The `#[kernel]` attribute of warpspec. A thin shim over the library pipeline in
//! `expand`: parse → model → check → expand.

#![deny(missing_docs)]

use proc_macro::TokenStream;

mod attr;
mod check;
mod codegen;
mod diag;
mod errors;
mod expand;
#[cfg(test)]
mod fuzz_tests;
mod hints;
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
/// warp-specialized kernel, and checks its barrier protocol as a whole at compile time.
///
/// The guide with runnable examples is the `warpspec` crate documentation: it declares a
/// kernel, runs it on the emulator (`warpspec::emu::run`), times it on the model
/// (`warpspec::sim::simulate`) and reads the report and the timeline. This page is the
/// reference of the syntax.
///
/// # Items
///
/// ```text
/// #[kernel]                          // or #[kernel(unchecked)]
/// pub mod name {
///     use warpspec::prelude::*;
///     pub const STAGES: usize = 4;   // integer constants: evaluated by the checker
///     #[params] pub struct Args { .. }               // launch arguments: cx.args()
///     #[shared] pub struct Smem { .. }               // Tile, Ring<Tile, N>, TmemTile fields
///     #[pipeline(..)] pub struct P;                  // full + empty mbarrier per stage
///     #[barrier(..)] pub struct B;                   // an mbarrier array
///     #[named_barrier(..)] pub struct N;             // bar.sync / bar.arrive
///     #[role(..)] pub async fn r(cx: &Ctx<'_, Args>, p: Producer<'_, P>, ..) { .. }
///     fn helper(..) { .. }                           // followed by the checker when called
/// }
/// ```
///
/// It generates `name::Kernel` (what every launch names) with its `KernelSpec`, and the
/// endpoint types each role takes after `cx`: `Producer`/`Consumer` of a pipeline,
/// `Arriver`/`Waiter` of a barrier, `Named` of a named barrier, or `&Field` of an unguarded
/// shared buffer. A role may take only the ends it is declared for.
///
/// # Options, defaults and checks
///
/// - `#[kernel(unchecked)]`: skips the whole-kernel protocol checks (not the declaration
///   checks), for kernels that demonstrate the emulator's own reports. Default: checked.
/// - `#[params]`, `#[shared]`: at most one struct each. Shared memory must fit the 227 KB a
///   CTA may have; tensor-memory tiles the 512 columns of an SM.
/// - `#[pipeline(producer = r | [r, ..], consumer = r | [r, ..], guards = [f, ..], tma,
///   stages = N, full_arrivals = N, empty_arrivals = N)]`: `producer` and `consumer` are
///   required. `guards` (default none) are the `Tile`/`Ring` fields a slot reaches, each
///   guarded by one pipeline; a `tma` pipeline (default off) must guard one, and its commit
///   expects the stage's bytes as TMA transaction bytes. `stages` defaults to the guarded
///   rings' stage count (1 without a ring) and must agree with them. `full_arrivals` and
///   `empty_arrivals` default to one arrival per instance of the producer and consumer
///   roles; the checker replays commits and releases against them.
/// - `#[barrier(arrive = [r, ..], wait = [r, ..], count = N, len = N)]`: `arrive` and
///   `wait` are required; `count` (arrivals per phase) defaults to one per instance of the
///   arriving roles; `len` (barriers in the array, one per stage) defaults to 1, and an
///   index outside it is a use of an uninitialised barrier.
/// - `#[named_barrier(roles = [r, ..], threads = N, id = N)]`: `roles` is required;
///   `threads` defaults to every thread of the roles and must be a multiple of 32 in
///   32..=1024; `id` defaults to 1, 2, .. in declaration order, must be in 1..=15 (0 is
///   `__syncthreads`) and unique.
/// - `#[role(warps = N | warpgroups = N, regs = R)]` on an `async fn`: a size is required
///   (N instances of one warp, or of four warps for `wgmma`); `regs` is required, a multiple
///   of 8 in 24..=256 (`setmaxnreg`), and all roles together must fit the 65536 registers
///   of an SM. A CTA has 1 to 1024 threads.
///
/// # The protocol checks
///
/// Every role instance is run abstractly and the traces are simulated together on mbarrier
/// semantics: arrival counts, transaction bytes, parities, slots released before the MMAs or
/// TMA stores reading them completed, arrivals skipped on some path, cycles of waits, named
/// barriers, budgets. Each problem is a compile error at its span naming the roles and
/// barriers involved; `docs/checks.md` lists every check with a wrong and a right example.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand_or_fallback(attr.into(), item.into()).into()
}
