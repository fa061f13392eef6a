//! Launch configuration shared by every target, and the errors a launch can return.
//!
//! A launch is checked against the [`CtaLimits`] of the machine it targets: the timing model
//! takes them from its machine ([`crate::sim::Machine::cta_limits`]), the emulator from
//! [`crate::emu::LIMITS`].

use warpspec_hw::CtaLimits;

use crate::dsl::{Kernel, KernelSpec};

/// The grid of CTAs of a launch (`gridDim`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    /// CTAs along x, y and z.
    pub dims: [u32; 3],
}

impl Grid {
    /// A grid of `x * y * z` CTAs.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Self { dims: [x, y, z] }
    }

    /// Number of CTAs.
    pub fn ctas(&self) -> usize {
        self.dims.iter().map(|&d| d as usize).product()
    }

    /// `blockIdx` of the `linear`-th CTA, x fastest.
    pub fn block(&self, linear: usize) -> [u32; 3] {
        let [x, y, _] = self.dims.map(|d| d as usize);
        [(linear % x) as u32, (linear / x % y) as u32, (linear / (x * y)) as u32]
    }
}

/// Why a kernel could not be launched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchError {
    /// The grid has no CTA.
    EmptyGrid {
        /// The grid given.
        grid: [u32; 3],
    },
    /// The CTA needs more shared memory than the hardware gives one CTA.
    SharedMemory {
        /// The kernel.
        kernel: &'static str,
        /// Bytes the CTA needs.
        bytes: usize,
        /// Bytes allowed.
        limit: usize,
    },
    /// The CTA has more threads than allowed, or none.
    Threads {
        /// The kernel.
        kernel: &'static str,
        /// Threads per CTA.
        threads: u32,
        /// Threads allowed.
        limit: u32,
    },
    /// The problem does not fit the kernel (shapes, tile divisibility, arguments).
    Problem(String),
}

impl std::fmt::Display for LaunchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LaunchError::EmptyGrid { grid } => {
                write!(f, "the grid {grid:?} has no CTA; every dimension must be at least 1")
            }
            LaunchError::SharedMemory { kernel, bytes, limit } => write!(
                f,
                "kernel `{kernel}` needs {bytes} bytes of shared memory per CTA, more than the {limit} bytes a CTA can have; use fewer stages or smaller tiles"
            ),
            LaunchError::Threads { kernel, threads, limit } => {
                write!(f, "kernel `{kernel}` has {threads} threads per CTA; a CTA needs between 1 and {limit}")
            }
            LaunchError::Problem(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for LaunchError {
    /// A launch error is a root cause: it wraps no other error.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        None
    }
}

/// Checks what every launch of `K` on `grid` needs, against the per-CTA `limits` of the
/// machine the launch targets.
pub fn check<K: Kernel>(grid: &Grid, limits: &CtaLimits) -> Result<&'static KernelSpec, LaunchError> {
    check_spec(&K::SPEC, grid, limits)
}

/// [`check`] for the kernel described by `spec`.
pub fn check_spec(
    spec: &'static KernelSpec,
    grid: &Grid,
    limits: &CtaLimits,
) -> Result<&'static KernelSpec, LaunchError> {
    if grid.ctas() == 0 {
        return Err(LaunchError::EmptyGrid { grid: grid.dims });
    }
    let smem_limit = limits.smem_per_cta_bytes as usize;
    if spec.smem_bytes > smem_limit {
        return Err(LaunchError::SharedMemory { kernel: spec.name, bytes: spec.smem_bytes, limit: smem_limit });
    }
    let threads = spec.threads();
    if threads == 0 || threads > limits.threads_per_cta {
        return Err(LaunchError::Threads { kernel: spec.name, threads, limit: limits.threads_per_cta });
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_numbered_x_fastest() {
        let g = Grid::new(3, 2, 2);
        assert_eq!(g.ctas(), 12);
        assert_eq!(g.block(0), [0, 0, 0]);
        assert_eq!(g.block(4), [1, 1, 0]);
        assert_eq!(g.block(11), [2, 1, 1]);
    }
}
