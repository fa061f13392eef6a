//! warpspec: warp-specialized GPU kernels in Rust.
//!
//! Write a kernel as a `#[kernel] mod` of role functions joined by typed pipelines and
//! barriers; misuse of the protocol is a compile error. Run the same kernel on a CPU
//! emulation of the SM's warps ([`emu`]), which computes real numbers and reports deadlocks
//! instead of hanging.
//!
//! Layout: [`dsl`] holds what kernel code touches, [`emu`] the functional executor, [`sim`]
//! the timing model, [`report`] what a timing run reports; [`launch`] the launch
//! configuration shared by the executions, [`target`] the one launch API over them
//! ([`Target`], implemented by [`Emulator`] and [`Model`]) and [`error`] the errors they
//! share. [`hw`] is the hardware semantics (mbarrier, named barrier, vector clock, CTA
//! limits) that the `#[kernel]` checker, the emulator and the model all run.

pub mod deadlock;
pub mod dsl;
pub mod emu;
pub mod error;
pub mod gpu;
pub mod launch;
pub mod report;
pub mod sim;
pub mod target;

pub use error::{RoleFault, RolePanic};
pub use launch::{Grid, LaunchError};
pub use target::{Emulator, Model, Target};
pub use warpspec_hw as hw;
/// The kernel IR and the DSL's operation catalogue: what `Kernel::ir()` of every
/// `#[kernel]` returns, for backends to render.
pub use warpspec_ir as ir;
pub use warpspec_macros::kernel;

/// Storage formats re-exported for kernel code.
pub use half::{bf16, f16};

/// Everything kernel code needs: `use warpspec::prelude::*;`.
pub mod prelude {
    pub use crate::dsl::{
        Arriver, Consumer, Ctx, Fragment, Full, Global, MmaGroup, Named, Producer, Ring, RowVec, Slot, StoreGroup,
        Tile, TileRef, TmemTile, Waiter,
    };
    pub use crate::kernel;
    pub use crate::launch::Grid;
    pub use half::{bf16, f16};
}

/// Items generated code refers to. Not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::dsl::{
        Barrier, BarrierSpec, Cta, Endpoint, Kernel, KernelSpec, NamedBarrier, NamedBarrierSpec, Pipeline,
        PipelineSpec, RoleFuture, RoleSpec, SmemBuffer, SmemField, Who,
    };
    pub use std::boxed::Box;
    pub use std::future::Future;
    pub use std::sync::OnceLock;
    pub use warpspec_ir as ir;
}
