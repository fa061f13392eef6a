//! tile-ai/TileOPs pull request #1550: in the 3WG persistent grouped-GEMM, the per-warpgroup
//! `C_shared` buffer of the TMA-store epilogue is allocated once and refilled on every wave
//! of the persistent loop, and nothing ordered the next wave's refill after the previous
//! wave's TMA store, still reading it: the refill could overwrite the tile under the store
//! (one corrupted output tile, intermittently). The fix adds a warpgroup-scoped named barrier
//! before each refill, so every thread passes the previous store (drained by
//! `tma_store_wait`) before any thread overwrites the buffer.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/tileops_1550.rs`.

/// The fixed twin: the warpgroup meets before each refill, after the previous store.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub c: Global<bf16>,
        pub waves: usize,
    }

    #[shared]
    pub struct Smem {
        c_shared: Tile<bf16, 64, 64>,
    }

    #[named_barrier(roles = [epilogue], threads = 128)]
    pub struct Written;

    #[named_barrier(roles = [epilogue], threads = 128)]
    pub struct Refill;

    #[role(warps = 4, regs = 128)]
    pub async fn epilogue(
        cx: &Ctx<'_, Args>,
        written: Named<'_, Written>,
        refill: Named<'_, Refill>,
        c_shared: &Tile<bf16, 64, 64>,
    ) {
        let rows = cx.instance() * 16;
        for wave in 0..cx.args().waves {
            refill.sync().await;
            let acc = cx.fragment::<16, 64>(1.0);
            cx.store(&acc, c_shared.rows::<16>(rows));
            written.sync().await;
            if cx.instance() == 0 {
                let store = cx.tma_store(c_shared, &cx.args().c, &[wave * 64, 0]);
                cx.store_wait(store).await;
            }
        }
    }
}
