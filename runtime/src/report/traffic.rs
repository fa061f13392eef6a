//! Bytes moved at each level of the memory hierarchy, and the bandwidth that is at the
//! simulated clock.

use std::fmt;

/// A level of the memory hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryLevel {
    /// Shared memory: `ld.shared`/`st.shared` of the warps, and the bytes TMA copies write
    /// into it (loads) or read from it (stores). MMA operand reads are not counted.
    Shared,
    /// L2: every TMA load and store and every global access.
    L2,
    /// HBM: L2 misses, and stores (charged as their eventual write-back).
    Hbm,
    /// Tensor memory: `tcgen05.ld`/`tcgen05.st` of the warps (Blackwell).
    TensorMemory,
}

impl MemoryLevel {
    /// Every level, from the SM outwards (tensor memory last: only some machines have it).
    pub const ALL: [MemoryLevel; 4] =
        [MemoryLevel::Shared, MemoryLevel::L2, MemoryLevel::Hbm, MemoryLevel::TensorMemory];

    /// Short name, as the summary prints it.
    pub const fn name(self) -> &'static str {
        match self {
            MemoryLevel::Shared => "shared",
            MemoryLevel::L2 => "L2",
            MemoryLevel::Hbm => "HBM",
            MemoryLevel::TensorMemory => "tensor memory",
        }
    }
}

/// Bytes of the TMA loads that reached the L2's slices (not those the request coalescer
/// answered), by where their lines came from: the counterpart of Nsight Compute's
/// `lts__t_sectors_srcunit_tex_op_read` hits and `lts__t_sectors_srcunit_ltcfabric_op_read`
/// hits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct L2Sources {
    /// Hit in the SM's own L2 partition.
    pub near: u64,
    /// Hit in the line's home partition, over the fabric between the partitions.
    pub far: u64,
    /// Read from HBM.
    pub hbm: u64,
}

impl L2Sources {
    /// All of them.
    pub fn total(&self) -> u64 {
        self.near + self.far + self.hbm
    }

    /// Shares of the total: near, far, HBM (zeros when nothing was loaded).
    pub fn shares(&self) -> [f64; 3] {
        let t = self.total().max(1) as f64;
        [self.near as f64 / t, self.far as f64 / t, self.hbm as f64 / t]
    }
}

impl fmt::Display for MemoryLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Bytes moved at one level over the whole run (all SMs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelTraffic {
    /// The level.
    pub level: MemoryLevel,
    /// Bytes moved.
    pub bytes: u64,
}

impl LevelTraffic {
    /// Bandwidth in GB/s (10^9 bytes per second) over `seconds` of simulated time.
    pub fn gb_per_s(&self, seconds: f64) -> f64 {
        if seconds > 0.0 { self.bytes as f64 / seconds / 1e9 } else { 0.0 }
    }
}

/// `bytes` as "12.3 MB" (powers of 1000).
pub(crate) fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.2} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{bytes} B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidth_at_the_clock() {
        let t = LevelTraffic { level: MemoryLevel::L2, bytes: 3_000_000 };
        assert_eq!(t.gb_per_s(1e-3), 3.0);
        assert_eq!(t.gb_per_s(0.0), 0.0);
        assert_eq!(
            (human_bytes(999), human_bytes(1_500), human_bytes(2_500_000)),
            ("999 B".into(), "1.5 kB".into(), "2.50 MB".into())
        );
        assert_eq!(MemoryLevel::TensorMemory.to_string(), "tensor memory");
    }
}
