//! The timing model: machine descriptions, occupancy, and the cycle-level model of the SMs
//! and of the whole GPU.
//!
//! Where to look: [`machine`] holds every number (with its source); [`lower`] says how each
//! tile op becomes warp-instructions, [`ring`] what the generated code adds around each
//! release, acquire and wait; [`sm`] is one SM (schedulers, pipes, tensor cores,
//! TMA, barriers: the `wgmma` latency is [`machine::Machine::wgmma_latency`], used in
//! [`sm`]); [`memory`] is L2/HBM; [`gpu`] places CTAs on SMs and runs them all in one event
//! loop ([`simulate`]), with `clusters.rs` placing thread-block clusters on GPCs; [`clock`]
//! predicts the SM clock a run holds (a burst's, under a short run's power, and the clock at
//! the board's power limit); [`micro`] runs hand-built instruction streams. Results are a
//! [`crate::report::SimReport`].

mod backend;
pub mod clock;
mod clusters;
pub mod descriptors;
mod error;
mod fold;
pub mod gpu;
mod l2_content;
pub mod lower;
pub mod machine;
pub mod memory;
pub mod micro;
pub mod mix;
pub mod occupancy;
mod options;
mod reuse;
pub mod ring;
pub mod sites;
pub mod sm;
pub mod timing;
mod tma_issue;
pub mod wait_forms;

pub use backend::SimBackend;
pub use clock::{Clocked, simulate_clocked};
pub use error::SimError;
pub use gpu::{kernel_occupancy, simulate};
pub use machine::Machine;
pub use micro::{MicroInstance, MicroKernel, simulate_micro};
pub use occupancy::{BlockResources, Occupancy, OccupancyError, occupancy};
pub use options::{Progress, ProgressFn, SimOptions, TraceOptions};
pub use sm::SchedulerPolicy;
