//! tile-ai/TileOPs pull request #1574 (fixes #1570): the 3WG persistent grouped-GEMM's
//! TMA-store epilogue stages each tile through a per-warpgroup `C_shared` buffer: all 128
//! threads of the warpgroup write it, then a TMA store reads it into global memory, with no
//! synchronization between the write and the read; the store could read a half-written tile
//! (about 3% of FusedMoe calls). The fix adds `T.fence_proxy_async()` and a warpgroup-scoped
//! named barrier between the two.
//!
//! Re-enacted: the four warps of one epilogue warpgroup each write their rows of `c_shared`;
//! warp 0 issues the TMA store of the whole tile. Buggy twin (fixed twin:
//! `tests/corpus/tileops_1574.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub c: Global<bf16>,
    }

    #[shared]
    pub struct Smem {
        c_shared: Tile<bf16, 64, 64>,
    }

    #[role(warps = 4, regs = 128)]
    pub async fn epilogue(cx: &Ctx<'_, Args>, c_shared: &Tile<bf16, 64, 64>) {
        let rows = cx.instance() * 16;
        let acc = cx.fragment::<16, 64>(1.0);
        cx.store(&acc, c_shared.rows::<16>(rows));
        if cx.instance() == 0 {
            let store = cx.tma_store(c_shared, &cx.args().c, &[0, 0]);
            cx.store_wait(store).await;
        }
    }
}

fn main() {}
