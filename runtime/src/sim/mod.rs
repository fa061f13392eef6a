//! The timing model: machine descriptions, occupancy, and the cycle-level SM model.

pub mod machine;
pub mod occupancy;

pub use machine::Machine;
pub use occupancy::{BlockResources, Occupancy, OccupancyError, occupancy};
