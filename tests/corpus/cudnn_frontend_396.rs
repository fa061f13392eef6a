//! NVIDIA/cudnn-frontend pull request #396: in the SM100 DSA backward's `reduce_dKV`, with
//! `head_dim == 576` the `dKV2`/`dKV3` tensor-memory columns alias `dKV0`/`dKV1`; the reduce
//! warps read them in `part2`, but the next iteration's MMA (`producer_acquire`) was ordered
//! only against an earlier hand-off, not against these reads, so the MMA warp could overwrite
//! the columns before the reduce warps had read them (a write-after-read race on tensor
//! memory that silently corrupted dKV). The fix reads `dKV2`/`dKV3` into registers and then
//! signals the MMA warp (a named barrier), before the slow global reduction.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/cudnn_frontend_396.rs`.

/// The fixed twin: both parts are read before the tile is handed back.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub blocks: usize,
        pub dkv: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        q: Tile<bf16, 128, 64>,
        acc: TmemTile<128, 128>,
    }

    #[barrier(arrive = [mma], wait = [reduce])]
    pub struct AccFull;

    #[barrier(arrive = [reduce], wait = [mma])]
    pub struct AccEmpty;

    #[role(warps = 1, regs = 40)]
    pub async fn mma(
        cx: &Ctx<'_, Args>,
        full: Arriver<'_, AccFull>,
        empty: Waiter<'_, AccEmpty>,
        q: &Tile<bf16, 128, 64>,
        acc: &TmemTile<128, 128>,
    ) {
        for j in 0..cx.args().blocks {
            empty.wait(0, (j as u32 & 1) ^ 1).await;
            cx.umma(acc, q, q.t(), false);
            full.arrive_on_mma_completion(0);
        }
    }

    #[role(warpgroups = 1, regs = 192)]
    pub async fn reduce(
        cx: &Ctx<'_, Args>,
        full: Waiter<'_, AccFull>,
        empty: Arriver<'_, AccEmpty>,
        acc: &TmemTile<128, 128>,
    ) {
        for j in 0..cx.args().blocks {
            full.wait(0, j as u32 & 1).await;
            let part1 = cx.tmem_load(acc);
            let part2 = cx.tmem_load(acc);
            empty.arrive(0);
            cx.store_global(&part1, &cx.args().dkv, &[j * 128, 0]);
            cx.store_global(&part2, &cx.args().dkv, &[j * 128, 128]);
        }
    }
}
