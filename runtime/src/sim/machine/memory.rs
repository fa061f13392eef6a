//! The memory system's part of a machine description: the TMA, L1, L2 and HBM parameter
//! groups, each parameter with its source (declared with [`parameters!`], audited with the
//! rest of the [`super::Machine`]).

use super::{Audit, Param, ParamEntry, Spread, audit_field};

parameters! {
    /// The Tensor Memory Accelerator (bulk asynchronous copies).
    pub struct Tma {
        /// Cycles a TMA load that hits in L2 takes, from issue until a thread waiting on its
        /// mbarrier resumes, beyond the L2 latency and its streaming time
        /// (`bytes / bytes_per_clk_per_sm`).
        pub extra_latency_cycles: Param<u32>,
        /// The same for a TMA load that misses in L2, beyond the HBM latency and streaming time,
        /// issued while no other SM has a TMA load outstanding.
        pub miss_extra_latency_cycles: Param<u32>,
        /// The same for a miss issued while another SM has a TMA load outstanding.
        pub miss_extra_latency_loaded_cycles: Param<u32>,
        /// Bytes per clock one SM's TMA unit can move into shared memory.
        pub bytes_per_clk_per_sm: Param<u32>,
        /// Bytes per clock one SM's TMA bulk stores read out of shared memory: a store's
        /// read completes (`cp.async.bulk.wait_group.read`) at this rate.
        pub store_bytes_per_clk_per_sm: Param<u32>,
    }
}

parameters! {
    /// L1 data cache.
    pub struct L1 {
        /// Latency of an L1 hit, in cycles.
        pub hit_latency_cycles: Param<u32>,
        /// Bytes per clock one SM's warp stores to global memory leave it at, with no other SM
        /// storing (an epilogue's fragment: 8-byte stores of column pairs, 32 bytes in each of
        /// 8 lines per warp instruction).
        pub store_bytes_per_clk_per_sm: Param<f64>,
        /// The same for warp stores that write part of each 32-byte sector they touch (a
        /// fragment rounded to 16 bits: 4-byte stores of column pairs, 16 bytes in each of 8
        /// lines, the sector's other half written by another instruction).
        pub partial_store_bytes_per_clk_per_sm: Param<f64>,
    }
}

parameters! {
    /// The L2 cache shared by all SMs.
    pub struct L2 {
        /// Capacity in bytes.
        pub size_bytes: Param<u64>,
        /// Partitions the capacity is divided into, each caching the data its own SMs access
        /// (a shared line takes room in each partition that reads it).
        pub partitions: Param<u32>,
        /// Typical hit latency (near partition), in cycles: the median of a warp's line loads.
        pub hit_latency_cycles: Param<u32>,
        /// Percentiles of the hit latency of a warp's line loads around the median (a TMA copy
        /// spans many lines and slices, and its hit latency varies far less).
        pub hit_latency_spread: Param<Spread>,
        /// Hit latency when the line lives in the far partition, in cycles.
        pub far_hit_latency_cycles: Param<u32>,
        /// Aggregate bandwidth over all SMs, in TB/s.
        pub bandwidth_tb_s: Param<f64>,
        /// Aggregate bandwidth of TMA bulk stores from all SMs into L2, in TB/s.
        pub write_bandwidth_tb_s: Param<f64>,
        /// Aggregate bandwidth of warp stores from all SMs into L2, 32 bytes per line (a
        /// fragment's column pairs), in TB/s.
        pub sector_write_bandwidth_tb_s: Param<f64>,
        /// The same for warp stores that write part of each sector (16 bytes per line), in
        /// TB/s.
        pub partial_sector_write_bandwidth_tb_s: Param<f64>,
        /// The L2 request coalescer's window, in cycles: a TMA load of a tile that another
        /// SM's load asked the L2 for at most this long before (or after) is answered with
        /// that load's data, so that only the first reaches the L2's slices and counts
        /// against their bandwidth. 0: no coalescer.
        pub coalescing_window_cycles: Param<u32>,
        /// Whether a load that hits a tile whose lines an earlier load is still filling from
        /// HBM waits for them (its data back no sooner than the filling load's), rather than
        /// returning at the hit latency as if they were there.
        pub hit_waits_for_fill: Param<bool>,
        /// Whether a TMA miss's extra latency (`tma.miss_extra_latency_cycles`, or
        /// `miss_extra_latency_loaded_cycles` while other SMs load) is the memory system's:
        /// the tile's lines are filled that much later, so the hits that wait for the fill
        /// and the loads the coalescer answers with the miss's data wait for it too. Off:
        /// the extra is the missing SM's alone.
        pub fill_takes_miss_extra: Param<bool>,
        /// Whether a TMA copy streams at an equal share of the L2's bandwidth among the SMs
        /// whose data is streaming in when its own data starts to arrive, rather than among
        /// every SM with a TMA load outstanding when it is issued (most of them still in
        /// the latency before their data).
        pub share_among_streaming: Param<bool>,
    }
}

parameters! {
    /// Device memory.
    pub struct Hbm {
        /// Capacity in bytes.
        pub capacity_bytes: Param<u64>,
        /// Peak bandwidth, in TB/s (10^12 bytes per second).
        pub bandwidth_tb_s: Param<f64>,
        /// Load latency of an L2 miss, in cycles: the median.
        pub latency_cycles: Param<u32>,
        /// Percentiles of the miss latency around the median.
        pub latency_spread: Param<Spread>,
    }
}
