//! alicevision/popsift pull request #82: `racecheck` found that `ori_par` initialised a
//! shared-memory histogram and other threads `atomicAdd`ed into it with no barrier between,
//! so an addition could land before the initialisation. The fix adds a `__syncthreads()`
//! after the initialisation.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/popsift_82.rs`.

/// The fixed twin: a barrier after the initialisation.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[shared]
    pub struct Smem {
        hist: Tile<f32, 64, 1>,
    }

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Initialised;

    #[role(warps = 4, regs = 64)]
    pub async fn block(cx: &Ctx<'_, ()>, initialised: Named<'_, Initialised>, hist: &Tile<f32, 64, 1>) {
        if cx.instance() == 0 {
            let zero = cx.row_vec::<64>(0.0);
            cx.store_rows(&zero, hist);
        }
        initialised.sync().await;
        let bins = cx.row_vec::<16>(1.0);
        cx.store_rows(&bins, hist.rows::<16>(cx.instance() * 16));
    }
}
