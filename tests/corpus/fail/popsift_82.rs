//! alicevision/popsift pull request #82: `racecheck` found that `ori_par` initialised a
//! shared-memory histogram and other threads `atomicAdd`ed into it with no barrier between,
//! so an addition could land before the initialisation. The fix adds a `__syncthreads()`
//! after the initialisation.
//!
//! Re-enacted: warp 0 clears the histogram; every warp then adds into its rows. Buggy twin
//! (fixed twin: `tests/corpus/popsift_82.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[shared]
    pub struct Smem {
        hist: Tile<f32, 64, 1>,
    }

    #[role(warps = 4, regs = 64)]
    pub async fn block(cx: &Ctx<'_, ()>, hist: &Tile<f32, 64, 1>) {
        if cx.instance() == 0 {
            let zero = cx.row_vec::<64>(0.0);
            cx.store_rows(&zero, hist);
        }
        let bins = cx.row_vec::<16>(1.0);
        cx.store_rows(&bins, hist.rows::<16>(cx.instance() * 16));
    }
}

fn main() {}
