//! Thread-block clusters (compute capability 9.0 and later): a group of CTAs launched
//! together on the SMs of one GPC, which can arrive on each other's mbarriers and receive each
//! other's TMA multicast copies (distributed shared memory).
//!
//! A cluster has a shape `[x, y, z]` in CTAs; the grid must be a whole number of clusters along
//! each axis. A CTA's *rank* in its cluster is its linear index within the cluster, x fastest
//! (PTX `%cluster_ctarank`); the cluster's index in the grid is `blockIdx / shape` per axis
//! (PTX `%clusterid`).

/// Where each figure comes from.
pub mod source {
    /// The cluster size limits.
    pub const CLUSTER_CTAS: &str = "CUDA C++ Programming Guide, Thread Block Clusters: 8 thread blocks per cluster is the portable maximum; H100-class GPUs (compute capability 9.0) allow up to 16 when the kernel opts in to non-portable sizes (cudaFuncAttributeNonPortableClusterSizeAllowed)";
    /// Where a cluster's CTAs run.
    pub const GPC: &str = "NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), Thread Block Clusters and H100 SM architecture: the thread blocks of a cluster are guaranteed to be co-scheduled on the SMs of one GPC; the full GH100 has 8 GPCs of 9 TPCs with 2 SMs each (18 SMs per GPC), of which H100 SXM5 enables 132 SMs";
    /// The multicast mask.
    pub const CTA_MASK: &str =
        "PTX ISA, cp.async.bulk.tensor: `.multicast::cluster` takes a 16-bit ctaMask, one bit per destination CTA rank";
}

/// The most CTAs a cluster may have on every cluster-capable GPU ([`source::CLUSTER_CTAS`]).
pub const MAX_PORTABLE_CLUSTER_CTAS: u32 = 8;

/// The most CTAs a cluster may have with a non-portable size on H100/H200
/// ([`source::CLUSTER_CTAS`]); also the width of a multicast mask ([`source::CTA_MASK`]).
pub const MAX_CLUSTER_CTAS: u32 = 16;

/// The shape of a kernel's clusters, in CTAs along x, y and z.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClusterShape {
    /// CTAs along x, y and z.
    pub dims: [u32; 3],
}

/// Why a cluster shape, or a grid for it, is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterError {
    /// A dimension is zero.
    Empty {
        /// The shape.
        dims: [u32; 3],
    },
    /// More CTAs than any GPU allows in one cluster.
    TooLarge {
        /// The shape.
        dims: [u32; 3],
        /// Its CTAs.
        ctas: u64,
    },
    /// The grid is not a whole number of clusters along `axis`.
    Indivisible {
        /// The shape.
        dims: [u32; 3],
        /// The grid.
        grid: [u32; 3],
        /// The first axis that does not divide (0 = x).
        axis: usize,
    },
}

impl std::fmt::Display for ClusterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const AXES: [char; 3] = ['x', 'y', 'z'];
        match *self {
            ClusterError::Empty { dims } => {
                write!(f, "cluster shape {dims:?} has a zero dimension; every dimension is at least 1")
            }
            ClusterError::TooLarge { dims, ctas } => write!(
                f,
                "cluster shape {dims:?} has {ctas} CTAs, more than the {MAX_CLUSTER_CTAS} any GPU allows ({MAX_PORTABLE_CLUSTER_CTAS} portably; {})",
                source::CLUSTER_CTAS
            ),
            ClusterError::Indivisible { dims, grid, axis } => write!(
                f,
                "the grid {grid:?} is not a whole number of {dims:?} clusters: {} CTAs along {} is not a multiple of {}; size the grid in whole clusters",
                grid[axis], AXES[axis], dims[axis]
            ),
        }
    }
}

impl std::error::Error for ClusterError {}

impl ClusterShape {
    /// One CTA per cluster: what a kernel without a cluster shape runs as.
    pub const SINGLE: ClusterShape = ClusterShape { dims: [1, 1, 1] };

    /// The shape `dims`, checked: every dimension at least 1 and at most
    /// [`MAX_CLUSTER_CTAS`] CTAs in all.
    pub fn new(dims: [u32; 3]) -> Result<Self, ClusterError> {
        if dims.contains(&0) {
            return Err(ClusterError::Empty { dims });
        }
        let ctas = dims.iter().map(|&d| u64::from(d)).product::<u64>();
        if ctas > u64::from(MAX_CLUSTER_CTAS) {
            return Err(ClusterError::TooLarge { dims, ctas });
        }
        Ok(Self { dims })
    }

    /// CTAs in one cluster.
    pub const fn ctas(self) -> u32 {
        self.dims[0] * self.dims[1] * self.dims[2]
    }

    /// Whether the size is portable (at most [`MAX_PORTABLE_CLUSTER_CTAS`] CTAs).
    pub const fn portable(self) -> bool {
        self.ctas() <= MAX_PORTABLE_CLUSTER_CTAS
    }

    /// Checks that `grid` is a whole number of clusters along every axis.
    pub fn check_grid(self, grid: [u32; 3]) -> Result<(), ClusterError> {
        match (0..3).find(|&a| self.dims[a] == 0 || !grid[a].is_multiple_of(self.dims[a])) {
            Some(axis) => Err(ClusterError::Indivisible { dims: self.dims, grid, axis }),
            None => Ok(()),
        }
    }

    /// The rank of CTA `block` in its cluster (x fastest).
    pub const fn rank(self, block: [u32; 3]) -> u32 {
        let [x, y, z] = self.dims;
        (block[0] % x) + x * ((block[1] % y) + y * (block[2] % z))
    }

    /// The index of the cluster holding CTA `block`, per axis.
    pub const fn cluster_of(self, block: [u32; 3]) -> [u32; 3] {
        [block[0] / self.dims[0], block[1] / self.dims[1], block[2] / self.dims[2]]
    }

    /// The CTA of rank `rank` in the cluster at `cluster` (per axis).
    pub const fn block_of(self, cluster: [u32; 3], rank: u32) -> [u32; 3] {
        let [x, y, _] = self.dims;
        [cluster[0] * x + rank % x, cluster[1] * y + (rank / x) % y, cluster[2] * self.dims[2] + rank / (x * y)]
    }

    /// Clusters of `grid` per axis (the grid divisible, [`ClusterShape::check_grid`]).
    pub const fn clusters(self, grid: [u32; 3]) -> [u32; 3] {
        [grid[0] / self.dims[0], grid[1] / self.dims[1], grid[2] / self.dims[2]]
    }

    /// The mask of every CTA of the cluster.
    pub const fn all(self) -> u16 {
        ((1u32 << self.ctas()) - 1) as u16
    }

    /// Clusters of this shape a GPU holds at once when its GPCs have `gpc_sms` SMs each and
    /// an SM holds `ctas_per_sm` CTAs of the kernel: every CTA of a cluster runs on an SM of
    /// one GPC ([`source::GPC`]), so a GPC holds `floor(SMs x ctas_per_sm / CTAs)` clusters
    /// and SMs left over in a GPC stay idle. A launch of more clusters runs in waves of this
    /// many.
    pub fn resident_clusters(self, gpc_sms: &[u32], ctas_per_sm: u32) -> u64 {
        let ctas = u64::from(self.ctas().max(1));
        gpc_sms.iter().map(|&sms| u64::from(sms) * u64::from(ctas_per_sm) / ctas).sum()
    }

    /// The ranks a multicast mask names, or the first rank outside the cluster.
    pub fn ranks(self, mask: u16) -> Result<Vec<u32>, u32> {
        let ranks: Vec<u32> = (0..16).filter(|r| mask & (1 << r) != 0).collect();
        match ranks.iter().find(|&&r| r >= self.ctas()) {
            Some(&outside) => Err(outside),
            None => Ok(ranks),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_checked_and_ranks_go_x_first() {
        assert!(matches!(ClusterShape::new([0, 1, 1]), Err(ClusterError::Empty { .. })));
        assert!(matches!(ClusterShape::new([4, 4, 2]), Err(ClusterError::TooLarge { ctas: 32, .. })));
        let c = ClusterShape::new([2, 2, 1]).unwrap();
        assert!(c.portable() && !ClusterShape::new([4, 4, 1]).unwrap().portable());
        assert_eq!(c.rank([3, 4, 0]), 1);
        assert_eq!(c.rank([2, 5, 0]), 2);
        assert_eq!(c.cluster_of([3, 5, 0]), [1, 2, 0]);
        for rank in 0..4 {
            assert_eq!(c.rank(c.block_of([1, 2, 0], rank)), rank);
            assert_eq!(c.cluster_of(c.block_of([1, 2, 0], rank)), [1, 2, 0]);
        }
        assert_eq!(c.check_grid([4, 6, 1]), Ok(()));
        assert_eq!(
            c.check_grid([4, 5, 1]),
            Err(ClusterError::Indivisible { dims: [2, 2, 1], grid: [4, 5, 1], axis: 1 })
        );
        assert_eq!(c.all(), 0b1111);
        assert_eq!(c.ranks(0b0101), Ok(vec![0, 2]));
        assert_eq!(c.ranks(0b1_0001), Err(4));
    }

    #[test]
    fn clusters_fill_gpcs_and_leftover_sms_stay_idle() {
        // 132 SMs as two GPCs of 18 and six of 16: pairs use every SM.
        let gpcs = [18, 18, 16, 16, 16, 16, 16, 16];
        let pair = ClusterShape::new([2, 1, 1]).unwrap();
        assert_eq!(pair.resident_clusters(&gpcs, 1), 66);
        assert_eq!(pair.resident_clusters(&gpcs, 2), 132);
        // Clusters of 4 leave two SMs of each 18-SM GPC idle; of 16, one per GPC.
        assert_eq!(ClusterShape::new([4, 1, 1]).unwrap().resident_clusters(&gpcs, 1), 32);
        assert_eq!(ClusterShape::new([16, 1, 1]).unwrap().resident_clusters(&gpcs, 1), 8);
        // A single CTA is a cluster of one: every SM's CTAs.
        assert_eq!(ClusterShape::SINGLE.resident_clusters(&gpcs, 3), 396);
        assert_eq!(pair.resident_clusters(&[], 1), 0);
    }
}
