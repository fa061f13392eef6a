//! Errors of a timing run.

use crate::deadlock::Deadlock;
use crate::error::{LaunchError, RoleFault, RolePanic};

use super::occupancy::OccupancyError;

/// Why a timing run failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// The launch was rejected before any CTA ran.
    Launch(LaunchError),
    /// No CTA of the kernel fits on an SM of the machine.
    Occupancy {
        /// The kernel.
        kernel: &'static str,
        /// What the occupancy calculator said.
        error: OccupancyError,
    },
    /// In simulated time, every live warp of a CTA is blocked and nothing in flight can
    /// unblock it.
    Deadlock {
        /// The cycle at which the simulation ran out of events.
        cycle: u64,
        /// The CTA, its blocked instances and what they wait for.
        deadlock: Deadlock,
    },
    /// Role code issued an invalid operation.
    Fault(RoleFault),
    /// Role code panicked.
    Panic(RolePanic),
    /// Role code issued an op the machine cannot execute (a `wgmma` on Blackwell, tensor
    /// memory on Hopper).
    Unsupported {
        /// The kernel.
        kernel: &'static str,
        /// The instance, described.
        instance: String,
        /// What the op needs.
        needs: &'static str,
    },
    /// The options are unusable (for example a clock of zero GHz).
    Options(String),
    /// The kernel's clusters cannot be placed on the machine (no GPC holds one, or the
    /// machine's GPC layout does not add up to its SMs).
    Clusters(String),
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimError::Launch(e) => write!(f, "launch failed: {e}"),
            SimError::Occupancy { kernel, error } => {
                write!(f, "kernel `{kernel}` cannot run on this machine: {error}")
            }
            SimError::Deadlock { cycle, deadlock } => {
                write!(f, "at simulated cycle {cycle}, {deadlock}")
            }
            SimError::Fault(e) => e.fmt(f),
            SimError::Panic(e) => e.fmt(f),
            SimError::Unsupported { kernel, instance, needs } => {
                write!(f, "kernel `{kernel}`, {instance}: the kernel needs {needs}")
            }
            SimError::Options(message) => write!(f, "invalid simulation options: {message}"),
            SimError::Clusters(message) => write!(f, "cannot place the clusters: {message}"),
        }
    }
}

impl std::error::Error for SimError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SimError::Launch(e) => Some(e),
            SimError::Occupancy { error, .. } => Some(error),
            SimError::Fault(e) => Some(e),
            SimError::Panic(e) => Some(e),
            SimError::Deadlock { .. } | SimError::Unsupported { .. } | SimError::Options(_) | SimError::Clusters(_) => {
                None
            }
        }
    }
}

impl From<LaunchError> for SimError {
    fn from(e: LaunchError) -> Self {
        SimError::Launch(e)
    }
}
