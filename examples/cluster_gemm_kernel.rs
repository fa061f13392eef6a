//! A Hopper GEMM in the shape of CUTLASS's warp-specialized multicast kernels: `C = A · B`,
//! bf16 in, f32 accumulate, bf16 out.
//!
//! - **Clusters of 2 CTAs along M** share the B tile of every k-step: each CTA loads half of
//!   the B tile's rows with a TMA multicast into the same slot of both CTAs, and its own A
//!   tile. Each CTA's `full` barrier thus receives the bytes of its own A load, of its own
//!   half of B and of its peer's half, which together are the stage's bytes.
//! - A consumer releases a stage to **both** CTAs (`release_cluster`): its peer's producer
//!   writes into the slot too, so the `empty` barrier of each CTA counts the consumers of
//!   both (`empty_arrivals = 4`).
//! - **Persistent**: the grid holds as many clusters as the GPU keeps resident at once
//!   (`Cuda::max_active_clusters`), each walking the output tiles of a static round-robin
//!   schedule (`persistent_tiles`) in **grouped order**: `GROUP_M` cluster tile rows column
//!   by column, so that the clusters running together share their A and B tiles in L2.
//! - Each CTA computes a **128 x 256** tile, each of its two consumer warpgroups 64 x 256
//!   (four `wgmma` m64n256k16 per k-step), from a 3-stage ring beside a 64 KiB output tile.
//! - **Epilogue through shared memory, overlapped with the next tile**: each consumer
//!   warpgroup rounds its accumulator into its rows of a bf16 tile and writes them with a
//!   TMA store, which it does not wait for: the stores read the 64 KiB tile out of shared
//!   memory (at about 27 B/clk on an H200, some 2400 cycles) while the warpgroups run the
//!   next tile's main loop. Each waits for every store it issued (`store_wait_all`,
//!   CUTLASS's `tma_store_wait<0>`) just before writing the tile again, and once more before
//!   the teardown.
//! - The cluster barrier brackets the roles: no CTA arrives on a peer that has not started,
//!   and none exits while a peer may still arrive on it.
//!
//! Edge tiles rely on TMA semantics: loads outside A or B read zeros and stores outside C are
//! dropped, so any M, N, K work.

use warpspec::prelude::*;
use warpspec::{Grid, LaunchError};

/// The 2-CTA multicast GEMM kernel.
#[warpspec::kernel(cluster = [2, 1, 1])]
pub mod cluster_gemm {
    use warpspec::prelude::*;

    /// Rows of the output tile of one CTA.
    pub const BM: usize = 128;
    /// Columns of the output tile (shared by the two CTAs of a cluster).
    pub const BN: usize = 256;
    /// Depth of one k-step.
    pub const BK: usize = 64;
    /// Rows of the B tile each CTA of a cluster loads and multicasts.
    pub const HALF_BK: usize = BK / 2;
    /// Stages of the operand ring (3 x 48 KiB, beside the 64 KiB output tile).
    pub const STAGES: usize = 3;
    /// Rows each consumer warpgroup owns.
    pub const WG_ROWS: usize = BM / 2;
    /// Cluster tile rows of one rasterization group.
    pub const GROUP_M: usize = 8;
    /// Both CTAs of a cluster.
    pub const BOTH: u16 = 0b11;

    /// Launch arguments.
    #[params]
    pub struct Args {
        /// `M x K`, row-major.
        pub a: Global<bf16>,
        /// `K x N`, row-major.
        pub b: Global<bf16>,
        /// `M x N`, row-major, written by the kernel.
        pub c: Global<bf16>,
    }

    /// Shared memory of one CTA.
    #[shared]
    pub struct Smem {
        a: Ring<Tile<bf16, BM, BK>, STAGES>,
        b: Ring<Tile<bf16, BK, BN>, STAGES>,
        out: Tile<bf16, BM, BN>,
    }

    /// The k-loop operands: A from this CTA's producer, B from both CTAs' producers; drained
    /// by the consumers of both CTAs.
    #[pipeline(tma, producer = producer, consumer = consumer, guards = [a, b], empty_arrivals = 4)]
    pub struct Operands;

    /// Cluster tiles (`2·BM x BN` blocks of C) across N.
    fn tiles_n(args: &Args) -> usize {
        args.b.shape()[1].div_ceil(BN)
    }

    /// Cluster tiles across M.
    fn tiles_m(args: &Args) -> usize {
        args.a.shape()[0].div_ceil(2 * BM)
    }

    /// Positions per rasterization group: `GROUP_M` cluster tile rows of every column.
    fn group_span(args: &Args) -> usize {
        GROUP_M * tiles_n(args)
    }

    /// Cluster tile rows in the group of position `t` (fewer in the last group).
    fn group_rows(args: &Args, t: usize) -> usize {
        (tiles_m(args) - t / group_span(args) * GROUP_M).min(GROUP_M)
    }

    /// The first row of C this CTA writes at position `t`: the group walks its tile rows
    /// column by column, so that the clusters running together share A and B in L2.
    fn row0(args: &Args, t: usize, rank: usize) -> usize {
        let tile_row = t / group_span(args) * GROUP_M + t % group_span(args) % group_rows(args, t);
        (tile_row * 2 + rank) * BM
    }

    /// The first column of C of position `t`.
    fn col0(args: &Args, t: usize) -> usize {
        t % group_span(args) / group_rows(args, t) * BN
    }

    /// Loads this CTA's A tile and its half of the shared B tile of every k-step of every
    /// tile of its cluster.
    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
        let args = cx.args();
        let rank = cx.cluster_rank();
        cx.cluster_sync().await;
        for tile in cx.persistent_tiles(tiles_m(args) * tiles_n(args)) {
            let m0 = row0(args, tile, rank);
            let n0 = col0(args, tile);
            for k in 0..args.a.shape()[1].div_ceil(BK) {
                let slot = ops.acquire().await;
                cx.tma_load(&args.a, &[m0, k * BK], slot.a(), &slot);
                let half = rank * HALF_BK;
                cx.tma_load_multicast(&args.b, &[k * BK + half, n0], slot.b().rows::<HALF_BK>(half), &slot, BOTH);
                ops.commit(slot);
            }
        }
        cx.cluster_sync().await;
    }

    /// Multiplies its rows of each A tile by the shared B tile, releasing each stage to both
    /// CTAs, then writes its rows of the tile through shared memory and a TMA store that
    /// runs on under the next tile's main loop.
    #[role(warpgroups = 2, regs = 232)]
    pub async fn consumer(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>, out: &Tile<bf16, BM, BN>) {
        let args = cx.args();
        let rank = cx.cluster_rank();
        let rows = cx.instance() * WG_ROWS;
        cx.cluster_sync().await;
        for tile in cx.persistent_tiles(tiles_m(args) * tiles_n(args)) {
            let m0 = row0(args, tile, rank);
            let n0 = col0(args, tile);
            let mut acc = cx.fragment::<WG_ROWS, BN>(0.0);
            for _ in 0..args.a.shape()[1].div_ceil(BK) {
                let full = ops.wait().await;
                let mma = cx.wgmma(&mut acc, full.a().rows::<WG_ROWS>(rows), full.b());
                cx.mma_wait(mma, 0).await;
                ops.release_cluster(full, BOTH);
            }
            // Until the previous tile's store, which ran under this main loop, has read `out`.
            cx.store_wait_all().await;
            cx.store(&acc, out.rows::<WG_ROWS>(rows));
            let _in_flight = cx.tma_store(out.rows::<WG_ROWS>(rows), &args.c, &[m0 + rows, n0]);
        }
        cx.store_wait_all().await;
        cx.cluster_sync().await;
    }
}

/// Clusters (of 2 CTAs) the launch holds at most: a persistent grid is sized to the machine,
/// and the emulator's test problems have a handful of tiles.
pub const MAX_CLUSTERS: usize = 3;

/// `C = A · B` on the emulator for `A: m x k` and `B: k x n` (row-major, rounded to bf16), with
/// at most `clusters` persistent clusters. Returns `C` (`m x n`, bf16 values as `f32`) and the
/// emulator's report.
pub fn gemm(
    m: usize,
    n: usize,
    k: usize,
    a: &[f32],
    b: &[f32],
    clusters: usize,
) -> Result<(Vec<f32>, warpspec::emu::EmuReport), warpspec::emu::EmuError> {
    let grid = grid(m, n, clusters)?;
    crate::gemm::check_problem(m, n, k, cluster_gemm::BM, cluster_gemm::BN)?;
    let a = Global::from_f32(&[m, k], a)
        .ok_or_else(|| LaunchError::Problem(format!("A has {} values, expected m*k = {}", a.len(), m * k)))?;
    let b = Global::from_f32(&[k, n], b)
        .ok_or_else(|| LaunchError::Problem(format!("B has {} values, expected k*n = {}", b.len(), k * n)))?;
    let args = cluster_gemm::Args { a, b, c: Global::zeros(&[m, n]) };
    let report = warpspec::emu::run::<cluster_gemm::Kernel>(grid, &args)?;
    Ok((args.c.to_f32_vec().unwrap_or_default(), report))
}

/// The persistent grid: `min(clusters, tiles)` clusters of 2 CTAs along x, where a tile is a
/// `2·BM x BN` block of C. `clusters` must be at least 1.
pub fn grid(m: usize, n: usize, clusters: usize) -> Result<Grid, LaunchError> {
    if clusters == 0 {
        return Err(LaunchError::Problem("a persistent launch needs at least one cluster".into()));
    }
    let tiles = m.div_ceil(2 * cluster_gemm::BM).saturating_mul(n.div_ceil(cluster_gemm::BN));
    Grid::try_new(2 * clusters.min(tiles.max(1)), 1, 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{errors, matmul_f64, random_values, round_bf16};

    #[test]
    fn matches_f64_on_shapes_that_are_not_tile_multiples() {
        // 3 x 3 tiles of 256 x 256 over 2 persistent clusters (each walks 4 or 5 tiles); 10 x 2
        // tiles, whose last rasterization group holds 2 of the 10 tile rows; one tile.
        for (m, n, k, clusters) in [(600, 520, 150, 2), (2314, 300, 64, 3), (130, 70, 64, 1)] {
            let a = round_bf16(&random_values(m * k, 7));
            let b = round_bf16(&random_values(k * n, 8));
            let (c, report) = gemm(m, n, k, &a, &b, clusters).expect("the emulated GEMM runs");
            let want = matmul_f64(m, n, k, &a, &b);
            let (max_abs, max_rel) = errors(&c, &want);
            // bf16 output: one rounding of at most 2^-9 relative on top of f32 accumulation.
            assert!(max_rel < 8e-3, "{m}x{n}x{k}: max relative error {max_rel} (abs {max_abs})");
            assert_eq!(report.ctas, 2 * clusters);
        }
    }

    #[test]
    fn an_empty_persistent_grid_is_refused() {
        assert!(grid(10, 10, 0).is_err());
        assert_eq!(grid(600, 200, 8).map(|g| g.dims), Ok([6, 1, 1]));
        assert_eq!(grid(600, 520, 8).map(|g| g.dims), Ok([16, 1, 1]));
    }
}
