//! A multicast mask that names a rank outside the 2-CTA cluster.

use warpspec::prelude::*;

#[warpspec::kernel(cluster = [2, 1, 1])]
pub mod cluster_gemm {
    use warpspec::prelude::*;

    /// Rows of the output tile of one CTA.
    pub const BM: usize = 128;
    /// Columns of the output tile (shared by the two CTAs of a cluster).
    pub const BN: usize = 128;
    /// Depth of one k-step.
    pub const BK: usize = 64;
    /// Rows of the B tile each CTA of a cluster loads and multicasts.
    pub const HALF_BK: usize = BK / 2;
    /// Stages of the operand ring.
    pub const STAGES: usize = 4;
    /// Rows each consumer warpgroup owns.
    pub const WG_ROWS: usize = BM / 2;
    /// Both CTAs of a cluster.
    pub const BOTH: u16 = 0b101;

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

    /// Loads this CTA's A tile and its half of the shared B tile of every k-step of every
    /// tile of its cluster.
    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
        let args = cx.args();
        let rank = cx.cluster_rank();
        let n_tiles = args.b.shape()[1].div_ceil(BN);
        let tiles = args.a.shape()[0].div_ceil(2 * BM) * n_tiles;
        cx.cluster_sync().await;
        for tile in cx.persistent_tiles(tiles) {
            let m0 = ((tile / n_tiles) * 2 + rank) * BM;
            let n0 = (tile % n_tiles) * BN;
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
    /// CTAs, then writes its rows of the tile through shared memory and a TMA store.
    #[role(warpgroups = 2, regs = 232)]
    pub async fn consumer(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>, out: &Tile<bf16, BM, BN>) {
        let args = cx.args();
        let rank = cx.cluster_rank();
        let rows = cx.instance() * WG_ROWS;
        let n_tiles = args.b.shape()[1].div_ceil(BN);
        let tiles = args.a.shape()[0].div_ceil(2 * BM) * n_tiles;
        cx.cluster_sync().await;
        for tile in cx.persistent_tiles(tiles) {
            let m0 = ((tile / n_tiles) * 2 + rank) * BM;
            let n0 = (tile % n_tiles) * BN;
            let mut acc = cx.fragment::<WG_ROWS, BN>(0.0);
            for _ in 0..args.a.shape()[1].div_ceil(BK) {
                let full = ops.wait().await;
                let mma = cx.wgmma(&mut acc, full.a().rows::<WG_ROWS>(rows), full.b());
                cx.mma_wait(mma, 0).await;
                ops.release_cluster(full, BOTH);
            }
            cx.store(&acc, out.rows::<WG_ROWS>(rows));
            let stored = cx.tma_store(out.rows::<WG_ROWS>(rows), &args.c, &[m0 + rows, n0]);
            cx.store_wait(stored).await;
        }
        cx.cluster_sync().await;
    }
}


fn main() {}
