//! NVlabs/cuda-oxide pull request #1066: in the phase 4B GEMM (`gemm_sol_clc`) the producer
//! warp publishes `{tile_m, tile_n, has_work}` in a shared mailbox, signals `TILE_READY`, and
//! reuses the mailbox for the next tile; nothing acknowledged that the MMA warp and the four
//! epilogue warps had copied the values before the producer overwrote them. The fix adds a
//! `TILE_INFO_FREE` mbarrier the readers arrive on after copying, which the producer waits on
//! before republishing.
//!
//! Re-enacted: a scheduler warp writes the tile number into a shared `info` tile
//! (`store_rows`) and arrives on `TileReady`; an MMA warp and an epilogue warpgroup wait and
//! read it (`load_rows`). Buggy twin, which the checker rejects as a lapped phase (fixed
//! twin, with `TileInfoFree` of count 2: `tests/corpus/cuda_oxide_1066.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub out: Global<f32>,
        pub tiles: usize,
    }

    #[shared]
    pub struct Smem {
        info: Tile<f32, 32, 1>,
    }

    #[barrier(arrive = [scheduler], wait = [mma, epilogue], count = 1)]
    pub struct TileReady;

    #[role(warps = 1, regs = 40)]
    pub async fn scheduler(cx: &Ctx<'_, Args>, ready: Arriver<'_, TileReady>, info: &Tile<f32, 32, 1>) {
        for tile in 0..cx.args().tiles {
            let values = cx.row_vec::<32>(tile as f32);
            cx.store_rows(&values, info);
            ready.arrive(0);
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn mma(cx: &Ctx<'_, Args>, ready: Waiter<'_, TileReady>, info: &Tile<f32, 32, 1>) {
        for tile in 0..cx.args().tiles {
            ready.wait(0, tile as u32 & 1).await;
            let _ = cx.load_rows(info);
        }
    }

    #[role(warpgroups = 1, regs = 40)]
    pub async fn epilogue(cx: &Ctx<'_, Args>, ready: Waiter<'_, TileReady>, info: &Tile<f32, 32, 1>) {
        for tile in 0..cx.args().tiles {
            ready.wait(0, tile as u32 & 1).await;
            let _ = cx.load_rows(info);
        }
    }
}

fn main() {}
