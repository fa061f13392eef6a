//! tile-ai/TileOPs pull request #1574 (fixes #1570): the 3WG persistent grouped-GEMM's
//! TMA-store epilogue stages each tile through a per-warpgroup `C_shared` buffer: all 128
//! threads of the warpgroup write it, then a TMA store reads it into global memory, with no
//! synchronization between the write and the read; the store could read a half-written tile
//! (about 3% of FusedMoe calls). The fix adds `T.fence_proxy_async()` and a warpgroup-scoped
//! named barrier between the two.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/tileops_1574.rs`.

/// The fixed twin: the warpgroup meets between the writes and the TMA store.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub c: Global<bf16>,
    }

    #[shared]
    pub struct Smem {
        c_shared: Tile<bf16, 64, 64>,
    }

    #[named_barrier(roles = [epilogue], threads = 128)]
    pub struct Written;

    #[role(warps = 4, regs = 128)]
    pub async fn epilogue(cx: &Ctx<'_, Args>, written: Named<'_, Written>, c_shared: &Tile<bf16, 64, 64>) {
        let rows = cx.instance() * 16;
        let acc = cx.fragment::<16, 64>(1.0);
        cx.store(&acc, c_shared.rows::<16>(rows));
        written.sync().await;
        if cx.instance() == 0 {
            let store = cx.tma_store(c_shared, &cx.args().c, &[0, 0]);
            cx.store_wait(store).await;
        }
    }
}
