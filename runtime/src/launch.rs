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

/// The largest `gridDim` a launch may have along x, y and z (CUDA C++ Programming Guide,
/// technical specifications: 2³¹ − 1 along x, 65535 along y and z, on every compute
/// capability from 3.0 on). Every target checks a launch against it.
pub const MAX_GRID_DIMS: [u32; 3] = [i32::MAX as u32, 65_535, 65_535];

impl Grid {
    /// A grid of `x * y * z` CTAs.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Self { dims: [x, y, z] }
    }

    /// A grid of `x * y * z` CTAs from sizes computed in `usize`, each checked against
    /// [`MAX_GRID_DIMS`] (a plain `as u32` would wrap 2³² + 1 heads to 1).
    pub fn try_new(x: usize, y: usize, z: usize) -> Result<Self, LaunchError> {
        let mut dims = [0u32; 3];
        for (axis, (&want, limit)) in [x, y, z].iter().zip(MAX_GRID_DIMS).enumerate() {
            dims[axis] = u32::try_from(want).ok().filter(|&d| d <= limit).ok_or(LaunchError::GridTooLarge {
                axis: AXES[axis],
                dim: want as u64,
                limit,
            })?;
        }
        Ok(Self { dims })
    }

    /// [`Grid::try_new`] for callers that return a `Grid`: a dimension beyond `u32` becomes
    /// `u32::MAX`, which every launch rejects with [`LaunchError::GridTooLarge`] before any
    /// work.
    pub fn saturating(x: usize, y: usize, z: usize) -> Self {
        let dim = |d: usize| u32::try_from(d).unwrap_or(u32::MAX);
        Self { dims: [dim(x), dim(y), dim(z)] }
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

/// The names of the grid's axes, in `dims` order.
const AXES: [char; 3] = ['x', 'y', 'z'];

/// Why a kernel could not be launched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaunchError {
    /// The grid has no CTA.
    EmptyGrid {
        /// The grid given.
        grid: [u32; 3],
    },
    /// A grid dimension is larger than a launch may have ([`MAX_GRID_DIMS`]).
    GridTooLarge {
        /// `'x'`, `'y'` or `'z'`.
        axis: char,
        /// The dimension asked for.
        dim: u64,
        /// The largest allowed.
        limit: u32,
    },
    /// The run would need more host memory than the machine has available.
    HostMemory {
        /// What needs the memory (the emulator's per-thread state, an example's tensors).
        what: String,
        /// Bytes needed, estimated.
        needed: u64,
        /// Bytes available (`MemAvailable` of `/proc/meminfo`).
        available: u64,
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
    /// The kernel's cluster shape does not fit the grid (or no GPU allows it).
    Cluster {
        /// The kernel.
        kernel: &'static str,
        /// What is wrong.
        error: warpspec_hw::ClusterError,
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
            LaunchError::GridTooLarge { axis, dim, limit } => write!(
                f,
                "the grid has {dim} CTAs along {axis}; a launch takes 1 to {limit} along {axis}: use a smaller problem"
            ),
            LaunchError::HostMemory { what, needed, available } => write!(
                f,
                "{what} would need about {} of host memory, but only {} is available; use a smaller problem or the timing model (shape-only tensors)",
                crate::launch::gib(*needed),
                crate::launch::gib(*available)
            ),
            LaunchError::SharedMemory { kernel, bytes, limit } => write!(
                f,
                "kernel `{kernel}` needs {bytes} bytes of shared memory per CTA, more than the {limit} bytes a CTA can have; use fewer stages or smaller tiles"
            ),
            LaunchError::Threads { kernel, threads, limit } => {
                write!(f, "kernel `{kernel}` has {threads} threads per CTA; a CTA needs between 1 and {limit}")
            }
            LaunchError::Cluster { kernel, error } => write!(f, "kernel `{kernel}`: {error}"),
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
    for (axis, (&dim, limit)) in grid.dims.iter().zip(MAX_GRID_DIMS).enumerate() {
        if dim > limit {
            return Err(LaunchError::GridTooLarge { axis: AXES[axis], dim: u64::from(dim), limit });
        }
    }
    let cluster = warpspec_hw::ClusterShape::new(spec.cluster)
        .and_then(|shape| shape.check_grid(grid.dims))
        .map_err(|error| LaunchError::Cluster { kernel: spec.name, error });
    cluster?;
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

/// `bytes` in GiB (or MiB below one GiB), for messages.
pub(crate) fn gib(bytes: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    let b = bytes as f64;
    if b >= 1024.0 * MIB { format!("{:.1} GiB", b / (1024.0 * MIB)) } else { format!("{:.1} MiB", b / MIB) }
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

    #[test]
    fn grid_dimensions_beyond_the_limits_are_rejected_not_wrapped() {
        assert_eq!(Grid::try_new(3, 2, 1), Ok(Grid::new(3, 2, 1)));
        let heads = (1usize << 32) + 1;
        let err = Grid::try_new(32, heads, 4).unwrap_err();
        assert_eq!(err, LaunchError::GridTooLarge { axis: 'y', dim: heads as u64, limit: 65_535 });
        assert!(err.to_string().contains("1 to 65535 along y"), "{err}");
        assert_eq!(Grid::saturating(1, heads, 1).dims, [1, u32::MAX, 1]);
        assert!(Grid::try_new(1 << 31, 1, 1).is_err());
    }
}
