//! flashinfer-ai/flashinfer pull request #3529: in `FilteredTopK`'s overflow refinement loop,
//! every round reuses `s_histogram`: near the end of round `r` the threads read it to update
//! `topk_remain`, and at the start of round `r + 1` threads clear it, with no barrier between
//! (flagged by `racecheck`). The fix adds a `__syncthreads()` after the read.
//!
//! Re-enacted: per round, warp 0 clears the histogram, every warp adds its rows, and every
//! warp reads all of it; nothing separates the read from the next round's clear. Buggy twin
//! (fixed twin: `tests/corpus/flashinfer_3529.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub rounds: usize,
    }

    #[shared]
    pub struct Smem {
        histogram: Tile<f32, 64, 1>,
    }

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Cleared;

    #[named_barrier(roles = [block], threads = 128)]
    pub struct Counted;

    #[role(warps = 4, regs = 64)]
    pub async fn block(
        cx: &Ctx<'_, Args>,
        cleared: Named<'_, Cleared>,
        counted: Named<'_, Counted>,
        histogram: &Tile<f32, 64, 1>,
    ) {
        let rows = cx.instance() * 16;
        for _ in 0..cx.args().rounds {
            if cx.instance() == 0 {
                let zero = cx.row_vec::<64>(0.0);
                cx.store_rows(&zero, histogram);
            }
            cleared.sync().await;
            let counts = cx.row_vec::<16>(1.0);
            cx.store_rows(&counts, histogram.rows::<16>(rows));
            counted.sync().await;
            let remain = cx.load_rows(histogram);
            let _ = remain;
        }
    }
}

fn main() {}
