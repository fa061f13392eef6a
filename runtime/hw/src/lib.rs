//! Hardware semantics of warp-specialized kernels, in one place: the `#[kernel]` macro's
//! protocol replay, the functional emulator and the timing model all run these types, so the
//! three agree on what an arrival, a phase or a limit means.
//!
//! One primitive per file:
//! - [`mbarrier`]: Hopper `mbarrier` objects (phase bit, pending arrivals, transaction bytes);
//! - [`named`]: named barriers (`bar.sync` / `bar.arrive` among a set of threads);
//! - [`vclock`]: vector clocks, the happens-before order carried by arrivals and waits;
//! - [`cluster`]: thread-block clusters (shape, ranks, multicast masks, size limits);
//! - [`limits`]: what one CTA may use on a machine (shared memory, threads, registers,
//!   tensor memory), with sources.
//!
//! The crate has no dependencies, so the proc-macro crate can use it at compile time.

#![deny(missing_docs)]

pub mod cluster;
pub mod limits;
pub mod mbarrier;
pub mod named;
pub mod vclock;

pub use cluster::{ClusterError, ClusterShape};
pub use limits::CtaLimits;
pub use mbarrier::MBarrier;
pub use named::{NamedArrival, NamedBarrier};
pub use vclock::{Epoch, VectorClock};
